/*
 * slub_setup — the SLUB model's set-up (models/slub.h): the names of its
 * stat items, variants and compilers, its cost tables (functions, sites
 * and their layout per compiler, the work rows and the `!n` block's work,
 * the code blocks), kmem_cache_create's geometry (calculate_sizes,
 * calculate_order, set_min_partial, set_cpu_partial of mm/slub.c v5.9),
 * create_kmalloc_caches, the world's creation and teardown, and the two
 * entries that have no fast copy (slub_free_bulk(), which validates its
 * objects before kmem_cache_free_bulk(), and slub_flush_cpu()).  They
 * call the hot file's kernel functions; the fast copies of models/slub.c
 * (models/slub_copy.c) do not compile this file again.  The tables it is
 * built from are in models/slub_internal.h.
 */
#include "models/slub.h"
#include "models/slub_internal.h"
#include "models/kcode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- names ----------------------------------------------------------------- */

static const char *const slub_stat_names[] = {
#define SLUB_STAT_NAME(id, name, desc) name,
	SLUB_STAT_ITEMS(SLUB_STAT_NAME)
#undef SLUB_STAT_NAME
};
static const char *const slub_stat_descs[] = {
#define SLUB_STAT_DESC(id, name, desc) desc,
	SLUB_STAT_ITEMS(SLUB_STAT_DESC)
#undef SLUB_STAT_DESC
};

const char *slub_stat_name(enum slub_stat s)
{
	return (unsigned)s < SLUB_NR_STATS ? slub_stat_names[s] : "?";
}

const char *slub_stat_desc(enum slub_stat s)
{
	return (unsigned)s < SLUB_NR_STATS ? slub_stat_descs[s] : "?";
}

static const char *const slub_where_names[] = {
#define SLUB_WHERE_NAME(id, name, desc) name,
	SLUB_WHERE_ITEMS(SLUB_WHERE_NAME)
#undef SLUB_WHERE_NAME
};
static const char *const slub_where_descs[] = {
#define SLUB_WHERE_DESC(id, name, desc) desc,
	SLUB_WHERE_ITEMS(SLUB_WHERE_DESC)
#undef SLUB_WHERE_DESC
};

const char *slub_where_name(enum slub_where x)
{
	return (unsigned)x < SLUB_NR_WHERE ? slub_where_names[x] : "?";
}

const char *slub_where_desc(enum slub_where x)
{
	return (unsigned)x < SLUB_NR_WHERE ? slub_where_descs[x] : "?";
}

static const char *const variant_names[] = {"v5.9", "c270cf30"};
static const char *const compiler_names[] = {"gcc", "clang"};
static const char *const loc_names[] = {"cpu_slab", "cpu_partial", "node_partial", "full"};

const char *slub_variant_name(enum slub_variant v)
{
	return (unsigned)v < 2 ? variant_names[v] : "?";
}

int slub_variant_parse(const char *s)
{
	if (!strcmp(s, "v5.9") || !strcmp(s, "pre"))
		return SLUB_PRE;
	if (!strcmp(s, "c270cf30") || !strcmp(s, "post"))
		return SLUB_POST;
	return -1;
}

const char *slub_compiler_name(enum slub_compiler c)
{
	return (unsigned)c < 2 ? compiler_names[c] : "?";
}

int slub_compiler_parse(const char *s)
{
	for (int i = 0; i < 2; i++)
		if (!strcmp(s, compiler_names[i]))
			return i;
	return -1;
}

const char *slub_loc_name(enum slub_loc l)
{
	return (unsigned)l < 4 ? loc_names[l] : "?";
}

/* --- cost tables ----------------------------------------------------------- */

static const char *const slub_fn_names[] = {SLUB_FUNCS(COST_FN_NAME)};
#define SLUB_SITE_DEF(id, desc, hint, gcc, clang) {#id, desc},
const struct cost_site_def slub_site_defs[SLUB_NR_SITE] = {SLUB_SITES(SLUB_SITE_DEF)};
#undef SLUB_SITE_DEF

/* Each site's hint and fall-through per compiler (the columns of SLUB_SITES). */
static const struct {
	uint8_t hint;
	int8_t ft[2];
} slub_site_layout[] = {
#define SLUB_SITE_LAYOUT(id, desc, hint, gcc, clang) {COST_HINT_##hint, {COST_FT_##gcc, COST_FT_##clang}},
	SLUB_SITES(SLUB_SITE_LAYOUT)
#undef SLUB_SITE_LAYOUT
};

/* The names of the code (models/kcode.h): sites with gcc's fall-through. */
static const struct kcode_site slub_kcode_sites[] = {
#define SLUB_KSITE(id, desc, hint, gcc, clang) {#id, desc, COST_HINT_##hint, COST_FT_##gcc},
	SLUB_SITES(SLUB_KSITE)
#undef SLUB_KSITE
};
static const struct kcode_block slub_kcode_blocks[] = {
#define SLUB_KBLOCK(name, row, kinds, exit) {#name, #row, kinds, #exit},
	SLUB_BLOCKS(SLUB_KBLOCK)
#undef SLUB_KBLOCK
};
static const uint8_t slub_kcode_inline[SLUB_NR_FN] = {
#define SLUB_KINL(name) [FN_##name] = 1,
	SLUB_INLINE_FUNCS(SLUB_KINL)
#undef SLUB_KINL
};

void slub_kcode(struct kcode_model *out)
{
	*out = (struct kcode_model){
		.name = "slub", .kernel = "v5.9 mm/slub.c (workloads messaging, parallel, replay)",
		.nr_fns = SLUB_NR_FN, .fns = slub_fn_names, .fn_inline = slub_kcode_inline,
		.nr_sites = SLUB_NR_SITE, .sites = slub_kcode_sites,
		.nr_blocks = SLUB_NR_CODE, .blocks = slub_kcode_blocks,
	};
}

/*
 * Callee-saved registers pushed and popped because of the !n block
 * (slub-free.md §4.2, a skeleton compiled with GCC 12 / clang 14): for the
 * FREE_FROZEN path (hot) and the other two outcomes (cold), indexed
 * [variant][compiler][stats].  One register = push + pop = 2 instructions
 * = 1 cycle at SLUB_IPC.
 */
static const uint8_t slub_spill[2][2][2][2] = {
	/* PRE:  gcc {off, on}, clang {off, on}; each {hot, cold} */
	{{{0, 0}, {1, 1}}, {{0, 0}, {3, 3}}},
	/* POST */
	{{{0, 0}, {0, 1}}, {{0, 0}, {1, 1}}},
};

/* The rows of SLUB_WORK: {est, pre, post}. */
static const uint32_t slub_work_rows[][3] = {
#define SLUB_WORK_ROW(id, est, pre, post) {est, pre, post},
	SLUB_WORK(SLUB_WORK_ROW)
#undef SLUB_WORK_ROW
};

int slub_block_describe(int i, enum mm_code code, enum slub_variant v,
			struct mm_block_desc *out)
{
	static const struct {
		const char *name, *kinds;
		int row, exit;
	} defs[SLUB_NR_CODE] = {
#define SLUB_CODE_DESC(name, r, k, e) [B_##name] = {#name, k, W_##r, e},
		SLUB_BLOCKS(SLUB_CODE_DESC)
#undef SLUB_CODE_DESC
	};
	if (i < 0 || i >= SLUB_NR_CODE)
		return SLUB_NR_CODE;
	uint32_t work[SLUB_NR_WORK];
	cost_work_column(slub_work_rows, SLUB_NR_WORK, code != MM_CODE_COMPILED ? COST_WORK_EST
						       : v == SLUB_PRE ? COST_WORK_PRE : COST_WORK_POST,
			 work);
	out->name = defs[i].name;
	out->kinds = defs[i].kinds;
	out->exit_site = defs[i].exit >= 0 ? slub_site_defs[defs[i].exit].name : NULL;
	out->uops = work[defs[i].row];
	return 0;
}

/* The `!n` block's compiled work (enum slub_block). */
const uint8_t slub_block_compiled[2][SLUB_NR_BLOCK] = {
	{3, 6, 1},      /* PRE: 8, 12, 6 instructions; 10, 15, 6 uops */
	{3, 8, 1},      /* POST: 6, 13, 6 instructions; 8, 16, 6 uops */
};

/* --- the entries without a fast copy ---------------------------------------- */

static uint8_t *alloc_bit(const struct slub_world *w, slub_obj_t x)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &s, &id, &idx) != NS_OK)
		return NULL;
	return &s->alloc[(size_t)id * s->per + idx];
}

/* kmem_cache_free_bulk(s, size, p): every entry validated first, then
 * the kernel function (slub.c). */
int slub_free_bulk(struct slub_world *w, struct cpu *c, struct slub_cache *s, size_t n,
		   slub_obj_t *p)
{
	/* validate in O(n): clear each allocated bit, a second sight of an
	 * object finds it clear; on failure restore the bits cleared so far */
	for (size_t i = 0; i < n; i++) {
		if (!p[i])
			continue;
		uint8_t *bit = alloc_bit(w, p[i]);
		if (!bit || !*bit || (s && slub_obj_cache(w, p[i]) != s)) {
			for (size_t j = 0; j < i; j++)
				if (p[j])
					*alloc_bit(w, p[j]) = 1;
			return NS_EINTERNAL;
		}
		*bit = 0;
	}
	kmem_cache_free_bulk(c, w, n, p);
	return NS_OK;
}

/* __flush_cpu_slab(s, cpu) for CPU c, as flush_all runs it (slub.c). */
void slub_flush_cpu(struct slub_world *w, struct cpu *c, struct slub_cache *s)
{
	(void)w;
	flush_cpu_slab(c, s);
}

/* --- the slab pool, tunables and hooks --------------------------------------- */

int slub_pool_grow(struct slub_cache *s)
{
	uint32_t cap = s->cap_slab ? s->cap_slab * 2 : 16;
	struct slub_slab *sl = realloc(s->slab, cap * sizeof *sl);
	if (!sl)
		return NS_ENOMEM;
	s->slab = sl;
	uint16_t *nx = realloc(s->next, (size_t)cap * s->per * sizeof *nx);
	if (!nx)
		return NS_ENOMEM;
	s->next = nx;
	uint8_t *al = realloc(s->alloc, (size_t)cap * s->per);
	if (!al)
		return NS_ENOMEM;
	s->alloc = al;
	uint32_t *fi = realloc(s->free_ids, cap * sizeof *fi);
	if (!fi)
		return NS_ENOMEM;
	s->free_ids = fi;
	for (uint32_t i = cap; i-- > s->cap_slab;) {
		memset(&s->slab[i], 0, sizeof s->slab[i]);
		s->free_ids[s->nr_free_ids++] = i;
	}
	s->cap_slab = cap;
	return NS_OK;
}


/* slub_set_cpu_partial(s, nr_objects): b47291ef02b0 made the macro a
 * function that also converts the target to slabs, assuming half-full
 * slabs of the default order. */
static void set_cpu_partial_objects(struct slub_cache *s, unsigned nr_objects)
{
	s->cpu_partial = nr_objects;
	s->cpu_partial_pages = 0;
	if (slub_applied(&s->w->cfg, KC_slub_01))       /* b47291ef02b0 */
		s->cpu_partial_pages = (nr_objects * 2 + s->oo_objects - 1) / s->oo_objects;
}

int slub_set_cpu_partial(struct slub_cache *s, unsigned objects)
{
	if (objects && !s->has_cpu_partial)
		return NS_ERANGE;   /* sysfs: -EINVAL */
	set_cpu_partial_objects(s, objects);
	return NS_OK;
}

/* set_cpu_partial(s)'s targets by s->size, [23e98ad1ce89 applied]: */
static const unsigned cpu_partial_targets[2][4] = {
	{2, 6, 13, 30},         /* v5.9, b47291ef02b0 */
	{6, 24, 52, 120},       /* 23e98ad1ce89 */
};

void slub_set_race_hook(struct slub_world *w, slub_race_fn fn, void *arg)
{
	w->race = fn;
	w->race_arg = arg;
}


void slub_set_trace_hook(struct slub_world *w, slub_trace_fn fn, void *arg)
{
	w->trace = fn;
	w->trace_arg = arg;
}

/* --- registration and layout ---------------------------------------------- */

/* The units of work (cost_register_units()): the blocks of SLUB_BLOCKS in
 * enum slub_code order, then the `!n` block per outcome (enum slub_block);
 * slub_blocks_init() numbers them from the first one's id. */
static const char *const slub_unit_names[SLUB_NR_CODE + SLUB_NR_BLOCK] = {
#define SLUB_UNIT_NAME(name, r, k, e) [B_##name] = #name,
	SLUB_BLOCKS(SLUB_UNIT_NAME)
#undef SLUB_UNIT_NAME
	[SLUB_NR_CODE + SLUB_BLOCK_FROZEN] = "nblock_frozen",
	[SLUB_NR_CODE + SLUB_BLOCK_PUT] = "nblock_put",
	[SLUB_NR_CODE + SLUB_BLOCK_NONE] = "nblock_none",
};

int slub_register(struct cost_tables *t, int *fn_base, int *site_base)
{
	int unit_base;
	int rc = cost_register_fns(t, slub_fn_names, SLUB_NR_FN, fn_base);
	if (rc == NS_OK)
		rc = cost_register_units(t, slub_unit_names, SLUB_NR_CODE + SLUB_NR_BLOCK,
					 &unit_base);
	if (rc != NS_OK)
		return rc;
	return cost_register_sites(t, slub_site_defs, SLUB_NR_SITE, site_base);
}

int slub_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		int site_base, const struct slub_config *cfg)
{
	if (fn_base < 0 || site_base < 0 || fn_base + SLUB_NR_FN > t->nr_fns ||
	    site_base + SLUB_NR_SITE > t->nr_sites || l->nr_fns != t->nr_fns ||
	    l->nr_sites != t->nr_sites || (unsigned)cfg->compiler > SLUB_CLANG)
		return NS_EINTERNAL;
	static const int inl[] = {
#define SLUB_INL(name) FN_##name,
		SLUB_INLINE_FUNCS(SLUB_INL)
#undef SLUB_INL
	};
	int rc0 = cost_layout_set_model_fns(l, fn_base, SLUB_NR_FN, inl,
						 sizeof inl / sizeof inl[0]);
	if (rc0 != NS_OK)
		return rc0;
	for (int s = 0; s < SLUB_NR_SITE; s++) {
		int rc = cost_layout_set_site(l, site_base + s,
					      (enum cost_hint)slub_site_layout[s].hint,
					      slub_site_layout[s].ft[cfg->compiler]);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

/* --- set-up ------------------------------------------------------------------ */

/* The work rows (into work[SLUB_NR_WORK]) and the `!n` block's work of the
 * world's (resolved) layout. */
static void slub_work_layout(struct slub_world *w, uint32_t *work)
{
	const struct slub_config *cfg = &w->cfg;
	if (cfg->code == MM_CODE_COMPILED) {
		cost_work_column(slub_work_rows, SLUB_NR_WORK,
				 cfg->variant == SLUB_PRE ? COST_WORK_PRE : COST_WORK_POST, work);
		for (int b = 0; b < SLUB_NR_BLOCK; b++)
			w->block[b] = slub_block_compiled[cfg->variant][b];
		return;
	}
	cost_work_column(slub_work_rows, SLUB_NR_WORK, COST_WORK_EST, work);
	/* a spill is cycles at SLUB_IPC: push + pop per register */
	const uint8_t *sp = slub_spill[cfg->variant][cfg->compiler][cfg->stats ? 1 : 0];
	w->block[SLUB_BLOCK_FROZEN] = SLUB_IPC * sp[0];
	w->block[SLUB_BLOCK_PUT] = w->block[SLUB_BLOCK_NONE] = SLUB_IPC * sp[1];
}

/* The static costs of SLUB_BLOCKS under the world's layout and core (its
 * work rows, costs of w->s), once: cpu_block_init(). */
static int slub_blocks_init(struct slub_world *w, const uint32_t *work)
{
	static const struct cpu_block_def defs[SLUB_NR_CODE] = {
#define SLUB_CODE_DEF(name, r, k, e) [B_##name] = {W_##r, k, e},
		SLUB_BLOCKS(SLUB_CODE_DEF)
#undef SLUB_CODE_DEF
	};
	static const char *const names[SLUB_NR_CODE] = {
#define SLUB_CODE_NAME(name, r, k, e) [B_##name] = #name,
		SLUB_BLOCKS(SLUB_CODE_NAME)
#undef SLUB_CODE_NAME
	};
	int rc = cpu_blocks_init(w->code, defs, SLUB_NR_CODE, work, w->ch.site_base, &w->s->k);
	/* the units slub_register() named, for a run that books work per unit */
	int unit_base = cost_unit_lookup(w->s->tables, slub_unit_names[0]);
	cpu_blocks_units(w->code, SLUB_NR_CODE, unit_base);
	w->block_unit = unit_base < 0 ? -1 : unit_base + SLUB_NR_CODE;
	if (rc == NS_OK)
		rc = cpu_blocks_change(w->code, names, SLUB_NR_CODE, w->cfg.block_changes,
				       w->cfg.nr_block_changes);
	return rc;
}

void slub_config_default(struct slub_config *c)
{
	memset(c, 0, sizeof *c);
	c->variant = SLUB_PRE;
	c->compiler = SLUB_GCC;
	c->stats = 1;
	c->cpu_partial = 1;
	c->commit = KC_v5_9;
	c->slub_max_order = 3;
	c->gfp = GFP_KERNEL;
}

static unsigned fls_u(unsigned x)
{
	unsigned r = 0;
	while (x) {
		r++;
		x >>= 1;
	}
	return r;
}

static unsigned ilog2_u(unsigned x)
{
	return x ? fls_u(x) - 1 : 0;
}

/* get_order(size) */
static unsigned get_order(const struct slub_world *w, unsigned long size)
{
	unsigned order = 0;
	while (((unsigned long)w->page_size << order) < size)
		order++;
	return order;
}

static unsigned order_objects(const struct slub_world *w, unsigned order, unsigned size)
{
	return (unsigned)(((unsigned long)w->page_size << order) / size);
}

/* slab_order(size, min_objects, max_order, fract_leftover) */
static unsigned slab_order(const struct slub_world *w, unsigned size, unsigned min_objects,
			   unsigned max_order, unsigned fract_leftover)
{
	unsigned min_order = w->cfg.slub_min_order;
	if (order_objects(w, min_order, size) > MAX_OBJS_PER_PAGE)
		return get_order(w, (unsigned long)size * MAX_OBJS_PER_PAGE) - 1;
	unsigned order = get_order(w, (unsigned long)min_objects * size);
	if (order < min_order)
		order = min_order;
	for (; order <= max_order; order++) {
		unsigned long slab_size = (unsigned long)w->page_size << order;
		if (slab_size % size <= slab_size / fract_leftover)
			break;
	}
	return order;
}

/* calculate_order(size); -1 when nothing fits below MAX_ORDER. */
static int calculate_order(const struct slub_world *w, unsigned size)
{
	unsigned max_order = w->cfg.slub_max_order;
	unsigned min_objects = w->cfg.slub_min_objects;
	if (!min_objects)
		min_objects = 4 * (fls_u(w->nr_cpu_ids) + 1);
	unsigned max_objects = order_objects(w, max_order, size);
	if (min_objects > max_objects)
		min_objects = max_objects;
	while (min_objects > 1) {
		for (unsigned fraction = 16; fraction >= 4; fraction /= 2) {
			unsigned order = slab_order(w, size, min_objects, max_order, fraction);
			if (order <= max_order)
				return (int)order;
		}
		min_objects--;
	}
	unsigned order = slab_order(w, size, 1, max_order, 1);
	if (order <= max_order)
		return (int)order;
	order = slab_order(w, size, 1, MAX_ORDER, 1);
	return order < MAX_ORDER ? (int)order : -1;
}

static unsigned align_up(unsigned x, unsigned a)
{
	return (x + a - 1) / a * a;
}

static void cache_release(struct slub_cache *s)
{
	if (!s)
		return;
	free(s->cpu);
	free(s->node);
	free(s->slab);
	free(s->next);
	free(s->alloc);
	free(s->free_ids);
	free(s);
}

int slub_cache_create(struct slub_world *w, const char *name, unsigned size,
		      unsigned align, unsigned flags, struct slub_cache **out,
		      struct diag *d)
{
	*out = NULL;
	if (!name || !*name || strlen(name) >= SLUB_NAME_MAX || strchr(name, '/'))
		return diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: bad cache name");
	if (slub_cache_find(w, name))
		return diag_set(d, NS_EINPUT, "slub", 0, 0, "slub: cache %s exists", name);
	if (w->nr_caches == SLUB_MAX_CACHES)
		return diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: more than %d caches",
				SLUB_MAX_CACHES);
	if (size == 0 || size > (2u * w->page_size) || (flags & ~SLUB_FLAGS_KNOWN) ||
	    (align & (align - 1)) || align > w->page_size)
		return diag_set(d, NS_ERANGE, "slub", 0, 0,
				"slub: cache %s: size %u, align %u or flags %#x not modelled",
				name, size, align, flags);
	struct slub_cache *s = calloc(1, sizeof *s);
	if (!s)
		return NS_ENOMEM;
	int rc = NS_ENOMEM;
	s->w = w;
	s->idx = w->nr_caches;
	snprintf(s->name, sizeof s->name, "%s", name);
	s->flags = flags;
	s->object_size = size;
	/* calculate_alignment */
	if (flags & SLUB_HWCACHE_ALIGN) {
		unsigned ralign = w->line_size;
		while (size <= ralign / 2)
			ralign /= 2;
		if (align < ralign)
			align = ralign;
	}
	if (align < 8)
		align = 8;   /* ARCH_SLAB_MINALIGN rounded to a word */
	s->align = align_up(align, 8);
	/* calculate_sizes (no debug) */
	unsigned sz = align_up(size, 8);
	if (flags & SLUB_TYPESAFE_BY_RCU) {
		s->offset = sz;
		sz += 8;
	} else if (sz > 8) {
		/* v5.9: ALIGN(freepointer_area / 2, sizeof(void *)), the area being
		 * the word-aligned size (5.10 changed it to ALIGN_DOWN(object_size / 2)) */
		s->offset = align_up(sz / 2, 8);
	}
	sz = align_up(sz, s->align);
	s->size = sz;
	int order = calculate_order(w, sz);
	if (order < 0) {
		rc = diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: cache %s: no slab order", name);
		goto err;
	}
	s->oo_order = (unsigned)order;
	s->oo_objects = order_objects(w, s->oo_order, sz);
	s->min_order = get_order(w, sz);
	s->min_objects = order_objects(w, s->min_order, sz);
	s->max_order = s->oo_order > s->min_order ? s->oo_order : s->min_order;
	s->max_objects = s->oo_objects > s->min_objects ? s->oo_objects : s->min_objects;
	s->gfp = w->cfg.gfp | (s->oo_order ? __GFP_COMP : 0);
	/* set_min_partial(s, ilog2(s->size) / 2) */
	unsigned long mp = ilog2_u(sz) / 2;
	s->min_partial = mp < SLUB_MIN_PARTIAL ? SLUB_MIN_PARTIAL
			 : mp > SLUB_MAX_PARTIAL ? SLUB_MAX_PARTIAL : mp;
	/* set_cpu_partial */
	s->has_cpu_partial = w->cfg.cpu_partial != 0;
	const unsigned *target = cpu_partial_targets[slub_applied(&w->cfg, KC_slub_02)];
	set_cpu_partial_objects(s, !s->has_cpu_partial ? 0
				   : sz >= w->page_size ? target[0]
				   : sz >= 1024 ? target[1]
				   : sz >= 256 ? target[2] : target[3]);
	s->per = s->max_objects;
	struct cpu_sys *cs = w->s;
	s->cpu = calloc((size_t)cs->nr_cpus, sizeof *s->cpu);
	s->node = calloc((size_t)w->m->nr_nodes, sizeof *s->node);
	if (!s->cpu || !s->node)
		goto err;
	struct cache_as *as = w->cfg.as;
	int home = w->m->nodes[0].id;
	if ((rc = cache_as_alloc(as, home, KCACHE_SIZE, 64, &s->addr)) != NS_OK)
		goto err;
	for (int i = 0; i < cs->nr_cpus; i++) {
		struct slub_kcpu *k = &s->cpu[i];
		if ((rc = cache_as_alloc(as, cs->cpu[i].node, KCPU_SIZE, 64, &k->addr)) != NS_OK)
			goto err;
		k->tid = (uint64_t)cs->cpu[i].id;   /* init_tid(cpu) */
		k->page = k->partial = NIL32;
		k->freelist = NIL16;
	}
	for (int i = 0; i < w->m->nr_nodes; i++) {
		struct slub_knode *n = &s->node[i];
		if ((rc = cache_as_alloc(as, w->m->nodes[i].id, KNODE_SIZE, 64, &n->addr)) != NS_OK)
			goto err;
		cpu_lock_init_class(&n->lock, "&n->list_lock");
		n->head = n->tail = NIL32;
	}
	w->caches[w->nr_caches++] = s;
	*out = s;
	return NS_OK;
err:
	cache_release(s);
	return rc;
}

int slub_kmalloc_create(struct slub_world *w, struct diag *d)
{
	for (unsigned sz = 8; sz <= 2 * w->page_size; sz *= 2) {
		unsigned sizes[2] = {sz, sz == 128 ? 96 : sz == 256 ? 192 : 0};
		for (int j = 1; j >= 0; j--) {
			if (!sizes[j])
				continue;
			char name[SLUB_NAME_MAX];
			snprintf(name, sizeof name, "kmalloc-%u", sizes[j]);
			if (sizes[j] >= 1024 && sizes[j] % 1024 == 0)
				snprintf(name, sizeof name, "kmalloc-%uk", sizes[j] / 1024);
			/* create_boot_cache: natural alignment for powers of two */
			unsigned align = (sizes[j] & (sizes[j] - 1)) ? 8 : sizes[j];
			if (align > w->page_size)
				align = w->page_size;
			struct slub_cache *s;
			int rc = slub_cache_create(w, name, sizes[j], align, SLUB_KMALLOC, &s, d);
			if (rc != NS_OK)
				return rc;
		}
	}
	return NS_OK;
}

struct slub_cache *slub_kmalloc_cache(const struct slub_world *w, size_t size)
{
	if (size == 0 || size > 2 * (size_t)w->page_size)
		return NULL;
	/* kmalloc_index: 65..96 -> 96, 129..192 -> 192, else the next power of two */
	unsigned target;
	if (size > 64 && size <= 96)
		target = 96;
	else if (size > 128 && size <= 192)
		target = 192;
	else
		for (target = 8; target < size; target *= 2)
			;
	for (int i = 0; i < w->nr_caches; i++) {
		struct slub_cache *s = w->caches[i];
		if ((s->flags & SLUB_KMALLOC) && s->object_size == target)
			return s;
	}
	return NULL;
}

struct slub_cache *slub_cache_find(const struct slub_world *w, const char *name)
{
	for (int i = 0; i < w->nr_caches; i++)
		if (!strcmp(w->caches[i]->name, name))
			return w->caches[i];
	return NULL;
}

/* Node order of each node's zonelist: ascending distance, then id. */
static void build_node_order(struct slub_world *w)
{
	const struct machine *m = w->m;
	int nn = m->nr_nodes;
	for (int p = 0; p < nn; p++) {
		int *o = &w->node_order[p * nn];
		for (int i = 0; i < nn; i++)
			o[i] = m->nodes[i].id;
		for (int i = 1; i < nn; i++) {
			int v = o[i], j = i;
			int dv = m->distance[p * nn + m->node_index[v]];
			while (j > 0 && m->distance[p * nn + m->node_index[o[j - 1]]] > dv) {
				o[j] = o[j - 1];
				j--;
			}
			o[j] = v;
		}
	}
}

int slub_world_create(const struct machine *m, const struct slub_config *cfg,
		      struct cpu_sys *s, struct mm_world *pa, int fn_base, int site_base,
		      struct slub_world **out, struct diag *d)
{
	*out = NULL;
	if (fn_base < 0 || site_base < 0 || fn_base + SLUB_NR_FN > s->tables->nr_fns ||
	    site_base + SLUB_NR_SITE > s->tables->nr_sites)
		return diag_set(d, NS_EINTERNAL, "slub", 0, 0, "slub: tables not registered");
	if (!cfg->as)
		return diag_set(d, NS_ERANGE, "slub", 0, 0,
				"slub: needs the page allocator's address space");
	if ((unsigned)cfg->variant > SLUB_POST || (unsigned)cfg->compiler > SLUB_CLANG ||
	    cfg->slub_max_order >= MAX_ORDER || cfg->slub_min_order > cfg->slub_max_order)
		return diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: bad configuration");
	if (!kcommit_tree(cfg->commit) || strcmp(kcommit_tree(cfg->commit), "slub"))
		return diag_set(d, NS_EINPUT, "slub", 0, 0,
				"slub: commit %d is not a SLUB commit (models/kcommit.h)",
				(int)cfg->commit);
	enum mm_code code = cfg->code;
	int counted = cfg->compiler == SLUB_GCC && cfg->stats;
	if (code == MM_CODE_DEFAULT)
		code = s->model == CPU_MODEL_OOO && counted ? MM_CODE_COMPILED : MM_CODE_ESTIMATE;
	if (code == MM_CODE_COMPILED && !counted)
		return diag_set(d, NS_EINPUT, "slub", 0, 0,
				"slub: cost.code compiled has counts for compiler_layout gcc with "
				"slub_stats on only (docs/design/compiled-counts.md §6)");
	struct slub_world *w = calloc(1, sizeof *w);
	if (!w)
		return NS_ENOMEM;
	int rc = NS_ENOMEM;
	w->m = m;
	w->cfg = *cfg;
	w->cfg.code = code;
	uint32_t work[SLUB_NR_WORK];
	slub_work_layout(w, work);
	w->s = s;
	w->pa = pa;
	w->ch.fn_base = fn_base;
	w->ch.site_base = site_base;
	if ((rc = slub_blocks_init(w, work)) != NS_OK) {
		diag_set(d, rc, "slub", 0, 0, "slub: a code block's description is invalid");
		goto err;
	}
	w->page_size = m->page_size ? m->page_size : 4096;
	w->page_shift = ilog2_u(w->page_size);
	w->line_size = (unsigned)m->costs.line_size.value;
	if (!w->line_size)
		w->line_size = 64;
	w->nr_cpu_ids = cfg->nr_cpu_ids > 0 ? (unsigned)cfg->nr_cpu_ids : (unsigned)(m->max_cpu + 1);
	int nn = m->nr_nodes;
	w->vmemmap = calloc((size_t)nn, sizeof *w->vmemmap);
	w->node_start_pfn = calloc((size_t)nn, sizeof *w->node_start_pfn);
	w->node_order = calloc((size_t)nn * (size_t)nn, sizeof *w->node_order);
	if (!w->vmemmap || !w->node_start_pfn || !w->node_order)
		goto err;
	for (int i = 0; i < nn; i++) {
		const struct machine_node *mn = &m->nodes[i];
		uint64_t lo = UINT64_MAX, hi = 0;
		for (int z = 0; z < mn->nr_zones; z++) {
			struct mm_zone_info zi;
			if (mm_zone_get_info(pa, mn->id, mn->zones[z].type, -1, &zi) != NS_OK)
				continue;
			if (zi.start_pfn < lo)
				lo = zi.start_pfn;
			/* zones start on MAX_ORDER boundaries: leave room for the rounding */
			uint64_t end = zi.start_pfn + mn->zones[z].pages + (1u << (MAX_ORDER - 1));
			if (end > hi)
				hi = end;
		}
		if (lo == UINT64_MAX)
			continue;
		w->node_start_pfn[i] = lo;
		if ((rc = cache_as_alloc(cfg->as, mn->id, (hi - lo) * STRUCT_PAGE_SIZE, 64,
					 &w->vmemmap[i])) != NS_OK) {
			diag_set(d, rc, "slub", 0, 0, "slub: no room for node %d's struct pages",
				 mn->id);
			goto err;
		}
	}
	build_node_order(w);
	*out = w;
	return NS_OK;
err:
	free(w->vmemmap);
	free(w->node_start_pfn);
	free(w->node_order);
	free(w);
	return rc;
}

void slub_world_destroy(struct slub_world *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nr_caches; i++)
		cache_release(w->caches[i]);
	if (w->trb) {
		free(w->trb->chain);
		free(w->trb->stats);
		free(w->trb->sites);
		free(w->trb);
	}
	free(w->vmemmap);
	free(w->node_start_pfn);
	free(w->node_order);
	free(w);
}

