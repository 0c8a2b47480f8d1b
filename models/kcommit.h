/*
 * kcommit — the kernel commits the models can apply, as users name them
 * (`kernel.commit: ID` in a scenario, `numasim list commits`).
 *
 * What it models: no kernel code; the single table of the modelled
 * commits.  For the page allocator (tree "mm") that is Mel Gorman's 2016
 * series "Optimise page alloc/free fast paths" (v3, 28 patches, merged
 * for v4.7 but for v3 13 and v3 15) on top of v4.6-rc2, in series order:
 * selecting a commit applies it and every commit before it of its tree.
 * The page allocator model switches each changed spot on the position of
 * the world's commit (mm_applied() in models/mm_internal.h):
 * docs/design/series-2016.md describes every entry.
 *
 * Table: X(enum name, tree, v3 number, id, status, title, changes) where
 * id is the upstream 12-hex commit id, or for a commit without a verified
 * upstream id the project's name `v3-NN-word` (v3 02, whose id was not
 * seen here, and v3 13 and 15, posted and measured but not merged);
 * status is 'M' (the model switches the changed spots on it), 'N' (the
 * change is in code or work the modelled benchmark does not execute or
 * the model does not charge: selecting it changes no result, and a test
 * shows it) or 'P' (not modelled yet: a configuration that applies it is
 * refused, kcommit_selectable()); "changes" names the kernel functions
 * and the model's sites the commit changes.  The entries of one tree are contiguous and in series order;
 * a tree's first entry is its base (nothing of it applied, v3 0).  Other
 * trees append their own block: tree "slub" (KCOMMIT_SLUB_TABLE) is the
 * SLUB model's v5.9 base and the cpu-partial pair b47291ef02b0,
 * 23e98ad1ce89.  A scenario's kernel.commit names one commit of either
 * tree, or one of each joined by '+' (kcommit_parse_pair()); the tree it
 * does not name stays at its default.
 *
 * Invariants: ids are unique across the table; within a tree the entries
 * are in series order and the first is a modelled base (kcommit_check());
 * no model code names an 'N' entry (tests/cli/twins.sh greps for it), so
 * kcommit_effective() is exact.  Error policy: lookups return
 * KCOMMIT_UNSET (0) for an unknown name; nothing here fails otherwise.
 */
#ifndef NUMASIM_KCOMMIT_H
#define NUMASIM_KCOMMIT_H

#define KCOMMIT_TABLE(X)                                                      \
	X(v4_6_rc2, "mm", 0, "v4.6-rc2", 'M', "v4.6-rc2: none of the series",       \
	  "(base)")                                                            \
	X(v3_01, "mm", 1, "d61f85903974", 'M',                                      \
	  "mm, page_alloc: only check PageCompound for high-order pages",      \
	  "free_pages_prepare: before, PageCompound (block free_pages_compound, F05p F05q) and the order-0 tail-loop test (F05d); after, F05b unlikely(order)")                          \
	X(v3_02, "mm", 2, "v3-02-pageanonhead", 'M',                                \
	  "mm, page_alloc: use new PageAnonHead helper in the free page fast path", \
	  "free_pages_prepare: before, compound_head in PageAnon (F05r); after, PageAnonHead (F05e)")          \
	X(v3_03, "mm", 3, "b9f00e147f27", 'M',                                      \
	  "mm, page_alloc: reduce branches in zone_statistics",                \
	  "zone_statistics: before, v4.6's body (block zone_statistics_v46, A42d A42a A42e); after, A42a A42b")                      \
	X(v3_04, "mm", 4, "060e74173f29", 'M', "mm, page_alloc: inline zone_statistics", \
	  "zone_statistics: out of line in vmstat.c before, inline after (layout)")                \
	X(v3_05, "mm", 5, "682a3385e773", 'M',                                      \
	  "mm, page_alloc: inline the fast path of the zonelist iterator",     \
	  "next_zones_zonelist (nzl_inline_*), __alloc_pages_nodemask A10a A10b, " \
	  "slowpath_cpuset_nodemask")                                          \
	X(v3_06, "mm", 6, "754078eb45df", 'M',                                      \
	  "mm, page_alloc: use __dec_zone_state for order-0 page allocation",  \
	  "buffered_rmqueue: NR_ALLOC_BATCH by the new __dec_zone_state on the order-0 path (block dec_zone_state, A39c)")      \
	X(v3_07, "mm", 7, "f75fb889d18d", 'N',                                      \
	  "mm, page_alloc: avoid unnecessary zone lookups during pageblock operations", \
	  "get_pfnblock_flags_mask (the unused zone lookup was compiled away: no executed change)")           \
	X(v3_08, "mm", 8, "c603844bdcb5", 'N', "mm, page_alloc: convert alloc_flags to unsigned", \
	  "(types only)")                                                      \
	X(v3_09, "mm", 9, "fa379b9586c7", 'N', "mm, page_alloc: convert nr_fair_skipped to bool", \
	  "get_page_from_freelist: a counter becomes a flag on the fair-skip path (no work charged for it)")  \
	X(v3_10, "mm", 10, "4dfa6cd8fdb1", 'N',                                     \
	  "mm, page_alloc: remove unnecessary local variable in get_page_from_freelist", \
	  "(no executed change)")                                              \
	X(v3_11, "mm", 11, "be06af002f6d", 'N',                                     \
	  "mm, page_alloc: remove unnecessary initialisation in get_page_from_freelist", \
	  "(no executed change)")                                              \
	X(v3_12, "mm", 12, "5bb1b1697578", 'N',                                     \
	  "mm, page_alloc: remove unnecessary initialisation from __alloc_pages_nodemask()", \
	  "(no executed change)")                                              \
	X(v3_13, "mm", 13, "v3-13-empty-zonelist", 'M',                             \
	  "mm, page_alloc: Remove redundant check for empty zonelist (not merged)", \
	  "__alloc_pages_nodemask: A13 (and its zoneref load), A19 removed")                         \
	X(v3_14, "mm", 14, "09940a4f1e81", 'N', "mm, page_alloc: simplify last cpupid reset", \
	  "page_cpupid_reset_last (empty: NUMA_BALANCING off in the modelled config)")  \
	X(v3_15, "mm", 15, "v3-15-might-sleep", 'M',                                \
	  "mm, page_alloc: Move might_sleep_if check to the allocator slowpath (not merged)", \
	  "__alloc_pages_nodemask A11 -> __alloc_pages_slowpath A11s")        \
	X(v3_16, "mm", 16, "83d4ca8148fd", 'M',                                     \
	  "mm, page_alloc: move __GFP_HARDWALL modifications out of the fastpath", \
	  "__alloc_pages_nodemask: block alloc_nodemask_16 (no OR of __GFP_HARDWALL)")                   \
	X(v3_17, "mm", 17, "3777999dd47e", 'N',                                     \
	  "mm, page_alloc: check once if a zone has isolated pageblocks",      \
	  "free_pcppages_bulk: pcpbulk_isolate (the model charges no per-page load to remove)")        \
	X(v3_18, "mm", 18, "4fcb0971175f", 'M', "mm, page_alloc: shorten the page allocator fast path", \
	  "__alloc_pages_nodemask: A48 -> A48p likely(page) -> out, A51 off the fast path") \
	X(v3_19, "mm", 19, "305347550bec", 'M',                                     \
	  "mm, page_alloc: reduce cost of fair zone allocation policy retry",  \
	  "get_page_from_freelist: A25f A27f A26f A26s (the depleted bit first), gpfl_fair_skipped_19 + block gpfl_after_19 (no rescan flag)") \
	X(v3_20, "mm", 20, "48ee5f3696f6", 'M', "mm, page_alloc: shortcut watermark checks for order-0 pages", \
	  "zone_watermark_fast (inline): block watermark_fast, A30f A30g A30h; zone_watermark_ok only when the shortcut fails") \
	X(v3_21, "mm", 21, "c33d6c06f60f", 'M',                                     \
	  "mm, page_alloc: avoid looking up the first zone in a zonelist twice", \
	  "get_page_from_freelist: cursor from ac->preferred_zoneref (block gpfl_entry_21, no first_zones_zonelist), preferred zone via the zoneref (a load per use); restart keeps the cursor as posted") \
	X(v3_22, "mm", 22, "93ea9964d14a", 'M', "mm, page_alloc: remove field from alloc_context", \
	  "__alloc_pages_nodemask, get_page_from_freelist: ac_classzone_idx() (a zoneref load per watermark check)") \
	X(v3_23, "mm", 23, "7bfec6f47bb0", 'M', "mm, page_alloc: check multiple page fields with a single branch", \
	  "free_pages_check, check_new_page: page_expected_state (F05s F05t, A45s A45t; blocks expected_state_free/_new)") \
	X(v3_24, "mm", 24, "e5b31ac2ca2c", 'N', "mm, page_alloc: remove unnecessary variable from free_pcppages_bulk", \
	  "free_pcppages_bulk (a local variable: no executed change)") \
	X(v3_25, "mm", 25, "0b423ca22f95", 'M', "mm, page_alloc: inline pageblock lookup in page free fast paths", \
	  "get_pfnblock_flags_mask inline in the free paths (layout)") \
	X(v3_26, "mm", 26, "002f290627c2", 'M', "cpuset: use static key better and convert to new API", \
	  "cpuset_zone_allowed: A24c gone (cpusets on only)") \
	X(v3_27, "mm", 27, "4db7548ccbd9", 'M',                                     \
	  "mm, page_alloc: defer debugging checks of freed pages until a PCP drain", \
	  "free_hot_cold_page: free_pcp_prepare (no free_pages_check, F05m F05o gone); free_pcppages_bulk: free_pages_check per page (pcpbulk_bad)") \
	X(v3_28, "mm", 28, "479f854a207c", 'M',                                     \
	  "mm, page_alloc: defer debugging checks of pages allocated from the PCP", \
	  "prep_new_page: no checks (A45h A45m gone); rmqueue_bulk: check_new_page per page (rmqueue_bulk_bad); order > 0: check_new_pages under zone->lock")

/* Tree "slub": the SLUB model (v5.9) and Vlastimil Babka's cpu-partial pair
 * of v5.16 ported onto it, in order (v3 = the position in the pair).  The
 * model switches on slub_applied() (models/slub.h); docs/design/slub-model.md §1. */
#define KCOMMIT_SLUB_TABLE(X)                                                 \
	X(v5_9, "slub", 0, "v5.9", 'M', "v5.9: neither of the pair (the SLUB model's base)", \
	  "(base)")                                                            \
	X(slub_01, "slub", 1, "b47291ef02b0", 'M',                                  \
	  "mm, slub: change percpu partial accounting from objects to pages",   \
	  "slub_set_cpu_partial: cpu_partial_pages = DIV_ROUND_UP(objects * 2, oo_objects); " \
	  "put_cpu_partial: P2b (pobjects > cpu_partial) -> P2c (pages >= cpu_partial_pages), " \
	  "block put_cpu_partial -> put_cpu_partial_pages (no pobjects); " \
	  "get_partial_node: gpn_enough (available > cpu_partial / 2) -> gpn_enough_pages " \
	  "(partial_pages > cpu_partial_pages / 2)")                           \
	X(slub_02, "slub", 2, "23e98ad1ce89", 'M',                                  \
	  "mm/slub: increase default cpu partial list sizes",                  \
	  "set_cpu_partial: objects 6 / 24 / 52 / 120 by s->size (were 2 / 6 / 13 / 30)")

/* Every tree's block, in the order of the enum. */
#define KCOMMIT_ALL(X) KCOMMIT_TABLE(X) KCOMMIT_SLUB_TABLE(X)

/* KCOMMIT_UNSET (0) is no entry: a model's configuration that names no
 * commit (the page allocator then takes v3 04 or 05 from its
 * zonelist_iter). */
enum kcommit {
	KCOMMIT_UNSET,
#define KCOMMIT_ENUM(name, tree, v3, id, status, title, changes) KC_##name,
	KCOMMIT_ALL(KCOMMIT_ENUM)
#undef KCOMMIT_ENUM
	KCOMMIT_NR
};

/* The entry's id (its user name), tree, v3 number, status, title,
 * changes; NULL / -1 / 0 for KCOMMIT_UNSET or out of range. */
const char *kcommit_id(enum kcommit k);
const char *kcommit_tree(enum kcommit k);
int kcommit_v3(enum kcommit k);
char kcommit_status(enum kcommit k);
const char *kcommit_title(enum kcommit k);
const char *kcommit_changes(enum kcommit k);
/* The entry of tree `tree` whose id is s (also a unique prefix of at least
 * 7 hex digits of a 12-hex id, as git accepts it); KCOMMIT_UNSET if none. */
enum kcommit kcommit_parse(const char *tree, const char *s);
/* Whether a model can run commit k: it and every commit before it in its
 * tree are modelled ('M') or change nothing the model executes ('N'). */
int kcommit_selectable(enum kcommit k);
/* The entry whose model k behaves as: k for a modelled ('M') entry; for
 * an 'N' entry (no switch of the model tests it) the nearest 'M' entry
 * before it in its tree, so two kernels with the same effective entry
 * run the same model code (a run of one is a run of the other; the
 * planner of scenarios/run.c simulates such sweep points once).
 * KCOMMIT_UNSET for KCOMMIT_UNSET or out of range. */
enum kcommit kcommit_effective(enum kcommit k);
/* The last selectable entry of tree `tree` (KCOMMIT_UNSET if none). */
enum kcommit kcommit_last_selectable(const char *tree);
/* The id of tree `tree` nearest to s, for "did you mean" (a 12-hex id
 * that s is a prefix or a one-or-two-character misspelling of, or a
 * name within edit distance 3); NULL if none is close. */
const char *kcommit_suggest(const char *tree, const char *s);
/* The ids of tree `tree` joined with ", " into buf (for messages). */
void kcommit_list(const char *tree, char *buf, unsigned len);
/* The kernel an entry names, as runs record it: for tree "mm" "v4.6-rc2"
 * or "v4.6-rc2+series:ID"; for tree "slub" "v5.9" or "v5.9+ID", the ids of
 * the pair up to k joined by '+' ("v5.9+b47291ef02b0+23e98ad1ce89"). */
const char *kcommit_kernel_model(enum kcommit k);
/* kernel.commit's value: one id of any tree, or two of different trees
 * joined by '+' ("682a3385e773+b47291ef02b0").  On success *mm and *slub
 * hold the entries named (KCOMMIT_UNSET for a tree not named) and NS_OK is
 * returned.  Otherwise NS_EINPUT, and *bad points at the part that is no
 * known id (its length in *bad_len), or *bad is NULL when two parts name
 * the same tree. */
int kcommit_parse_pair(const char *s, enum kcommit *mm, enum kcommit *slub,
		       const char **bad, int *bad_len);
/* The table's invariants: NS_OK or NS_EINTERNAL. */
int kcommit_check(void);

#endif
