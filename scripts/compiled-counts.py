#!/usr/bin/env python3
"""compiled-counts: the `cost.code: compiled` column of MM_WORK.

Walks the compiled v4.6.2 objects (docs/design/compiled-counts.md says how to
build them) along the path the model executes for an order-0
GFP_KERNEL|__GFP_NOWARN allocation that hits the per-cpu list and the free
back to it (kpath.py does the walking), assigns every walked instruction
to the MM_WORK row whose segment it belongs to, and prints per row:

  insns   instructions walked
  uops    their fused-domain uops, per instruction form from Agner Fog's
          Broadwell table (kpath.py, UOPS): a memory-destination
          read-modify-write is 2 or 3, xadd 4, push/pop of memory 2, ...
  fused   cmp/test+jcc pairs Broadwell macro-fuses (one uop for two)
  excl    the uops the model charges by other means (kpath.py's xuops,
          worked out per walk): every call into and return from a
          function (the compiled layout has every function of these walks
          out of line, as gcc 11 does: cpu_call/cpu_ret at
          call_uops/ret_uops), the irq save/restore sequences (pushf;pop;cli
          and push;popf: cpu_irq_save/restore), locked instructions
          (cpu_atomic); plus, named per walk, the unlocking store of a
          spin_unlock (cpu_unlock)
  net     uops - fused - excl: the segment's uops left to the work row
  prims   what the model charges explicitly in the same segment, per
          execution: branches, loads and stores (one uop each), measured
          on the model (numasim bench pagealloc, per-segment counts;
          docs/design/compiled-counts.md)
  work    net - prims: the row's value (never below 0)

Usage: compiled-counts.py [--per-insn] OBJDIR
       (OBJDIR holds pre-*.rdis, post-*.rdis: objdump -dr --no-show-raw-insn
       of each object; --per-insn: the earlier rule, one uop per
       instruction, for comparison)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kpath  # noqa: E402


def walk(objdir, variant, obj, func, take='', start=None, stop=''):
    dis = os.path.join(objdir, '%s-%s.rdis' % (variant, obj))
    funcs, insns, nxt = kpath.parse(dis, func)
    st = int(start, 16) if start else None
    c, calls, irqs = kpath.walk(funcs, insns, nxt, func, st, kpath.hexset(take),
                                kpath.hexset(stop), 5000, False)
    return c, calls


# One walk: (obj, func, take, start, stop, extra) where extra counts the
# uops of the walk the model charges by other means beyond kpath's xuops
# (calls, rets, irq sequences, locked instructions: see above), i.e. the
# unlocking store of spin_unlock.
# Addresses are those of gcc 11.3 objects built as docs/design/compiled-counts.md
# says; another compiler gives other addresses (and other counts).
WALKS = {
    'post': {
        'alloc_pages_current': [
            # + the three helpers gcc keeps out of line (out of line in the
            # compiled layout too); their rows are alloc_pages_current's
            ('mempolicy', 'alloc_pages_current', '', None, '', 0),
            ('mempolicy', 'get_task_policy', '14b8,14e7', None, '', 0),
            ('mempolicy', 'policy_nodemask', '', None, '', 0),
            ('mempolicy', 'policy_zonelist', '777', None, '', 0),
        ],
        'alloc_nodemask': [
            ('page_alloc', '__alloc_pages_nodemask', '54e5', None, '5569', 0),
            ('page_alloc', '__alloc_pages_nodemask', '54e5', '5573', '', 0),
        ],
        'nzl_inline': [
            # the wrapper's own test;jne;cmp;jb, in __alloc_pages_nodemask and
            # in get_page_from_freelist's first_zones_zonelist: 2 executions
            ('page_alloc', '__alloc_pages_nodemask', '', '5569', '5573', 0),
            ('page_alloc', 'get_page_from_freelist', '', '4baf', '4bb9', 0),
        ],
        'cond_resched': [('core', '_cond_resched', '', None, '', 0)],
        'gpfl_entry': [
            ('page_alloc', 'get_page_from_freelist', '', None, '4baf', 0),
            ('page_alloc', 'get_page_from_freelist', '', '4bb9', '4d11', 0),
            ('page_alloc', 'get_page_from_freelist', '', '515d', '', 0),
        ],
        'gpfl_zone': [
            # + zone_local's body (out of line in gcc and in the compiled
            # layout; the model has no row of its own for it)
            ('page_alloc', 'get_page_from_freelist', '4c36,4c76', '4d11', '4e4e', 0),
            ('page_alloc', 'zone_local', '', None, '', 0),
            ('page_alloc', 'get_page_from_freelist', '4e48', '4e2c', '515d', 0),
        ],
        'watermark': [
            # zone_watermark_ok + __zone_watermark_ok (both out of line)
            ('page_alloc', 'zone_watermark_ok', '', None, '', 0),
            ('page_alloc', '__zone_watermark_ok', '636,67c', None, '', 0),
        ],
        'buffered_pcp': [
            ('page_alloc', 'get_page_from_freelist', '4ea3', '4e4e', '4dea', 0),
            ('page_alloc', 'get_page_from_freelist', '', '4e28', '4e2c', 0),
        ],
        'zone_statistics': [
            ('page_alloc', 'get_page_from_freelist', '4e07', '4dea', '4e28', 0),
        ],
        'mod_zone_page_state': [('vmstat', '__mod_zone_page_state', '', None, '', 0)],
        'inc_zone_state': [('vmstat', '__inc_zone_state', '', None, '', 0)],
        'prep_new_page': [('page_alloc', 'prep_new_page', '18cc@2,1946,195b', None, '', 0)],
        'free_pages': [
            ('page_alloc', '__free_pages', '3e6d,3e77', None, '', 0),
        ],
        'free_hot_cold_page': [
            ('page_alloc', 'free_hot_cold_page', '3cbb,3cfd', None, '', 0),
        ],
        'free_pages_prepare': [('page_alloc', 'free_pages_prepare', 'bec,cf6,d3b', None, '', 0)],
        'pfnblock': [('page_alloc', 'get_pfnblock_flags_mask', '', None, '', 0)],
        # the pcp refill (hot, UNMOVABLE): rmqueue_bulk's entry and exit per
        # call, one trip of its loop per page
        'rmqueue_bulk': [
            ('page_alloc', 'rmqueue_bulk', '', None, '4a0c', 0),
            ('page_alloc', 'rmqueue_bulk', '4a12', '4a0c', '', 1),  # spin_unlock's movb
        ],
        'rmqueue_bulk_page': [('page_alloc', 'rmqueue_bulk', '4a4b', '4a0c', '4a0c', 0)],
        # __rmqueue with __rmqueue_smallest and expand inlined: entry and
        # exit per call, a probe of one order (empty: to the next
        # order; found: up to the take), the take, one expand step
        'rmqueue': [
            ('page_alloc', '__rmqueue', '', None, '4622', 0),
            ('page_alloc', '__rmqueue', '', '4742', '', 0),
        ],
        'smallest_probe': [
            ('page_alloc', '__rmqueue', '465c', '4622', '4622', 0),
            ('page_alloc', '__rmqueue', '', '4622', '4662', 0),
        ],
        'smallest_take': [('page_alloc', '__rmqueue', '', '4662', '4742', 0)],
        'expand_step': [('page_alloc', '__rmqueue', '4745', '46f5', '46f5', 0)],
        # the pcp drain: free_pcppages_bulk(zone, pcp->batch, pcp) from
        # free_hot_cold_page with every page on the UNMOVABLE list, so one
        # batch of three list probes (MOVABLE and RECLAIMABLE empty, then
        # UNMOVABLE: batch_free == MT_PCPTYPES, so the whole count in one
        # batch); __free_one_page inlined (order 0, mt not ISOLATE or CMA,
        # max_order pageblock_order + 1 = 10).  Per call: entry to the first
        # probe and the exit (spin_unlock's movb is cpu_unlock's)
        'pcpbulk': [
            ('page_alloc', 'free_pcppages_bulk', '', None, '36f2', 0),
            ('page_alloc', 'free_pcppages_bulk', '36b4', '36b0', '', 1),
        ],
        # the three probes, the wrap of mt and the batch_free test (EXECS 3)
        'pcpbulk_search': [
            ('page_alloc', 'free_pcppages_bulk', '36fb@1,36fb@2,36f0@3', '36f2', '3a38', 0),
        ],
        # per page: list->prev, list_del, get_pcppage_migratetype, the
        # isolate test, page_to_pfn; after __free_one_page the tracepoint
        # (a static key) and the three loop tests, falling through to the
        # next page
        'pcpbulk_page': [
            ('page_alloc', 'free_pcppages_bulk', '', '3a38', '3aa2', 0),
            ('page_alloc', 'free_pcppages_bulk', '', '384d', '3a38', 0),
        ],
        # __free_one_page: the isolate test, __mod_zone_freepage_state (the
        # call to __mod_zone_page_state, is_migrate_cma), page_idx, order 0,
        # the first test of the merge loop (the model's is in this segment)
        'free_one_entry': [('page_alloc', 'free_pcppages_bulk', '3ae3', '3aa2', '3765', 0)],
        # one trip of the merge loop from the buddy index: the buddy found
        # and taken off its list, then the loop test again, or not a buddy
        # (to done_merging); weighted below
        'free_one_merge': [
            ('page_alloc', 'free_pcppages_bulk', '378b,3ae3', '3765', '3765', 0),
            ('page_alloc', 'free_pcppages_bulk', '', '3765', '3791', 0),
        ],
        # done_merging: set_page_order, the higher buddy's test (not a buddy:
        # list_add; a buddy: list_add_tail), nr_free++; weighted below
        'free_one_done': [
            ('page_alloc', 'free_pcppages_bulk', '', '3791', '384d', 0),
            ('page_alloc', 'free_pcppages_bulk', '37dd', '3791', '384d', 0),
        ],
    },
    'pre': {
        'alloc_nodemask': [
            ('page_alloc', '__alloc_pages_nodemask', '5422,549c', None, '', 0),
        ],
        'nzl_body': [
            # next_zones_zonelist: once with the mems_allowed mask (the
            # preferred-zone lookup), once with none (the zonelist scan)
            ('mmzone', 'next_zones_zonelist', '', None, '', 0),
            ('mmzone', 'next_zones_zonelist', 'b3', None, '', 0),
        ],
        'gpfl_entry': [
            ('page_alloc', 'get_page_from_freelist', '', None, '4cb2', 0),
            ('page_alloc', 'get_page_from_freelist', '', '50fe', '', 0),
        ],
        'gpfl_zone': [
            ('page_alloc', 'get_page_from_freelist', '4be4,4c24', '4cb2', '4def', 0),
            ('page_alloc', 'zone_local', '', None, '', 0),
            ('page_alloc', 'get_page_from_freelist', '4de9', '4dcd', '50fe', 0),
        ],
        'watermark': [
            ('page_alloc', 'zone_watermark_ok', '', None, '', 0),
            ('page_alloc', '__zone_watermark_ok', '636,67c', None, '', 0),
        ],
        'buffered_pcp': [
            ('page_alloc', 'get_page_from_freelist', '4e44', '4def', '4d8b', 0),
            ('page_alloc', 'get_page_from_freelist', '', '4dc9', '4dcd', 0),
        ],
        'zone_statistics': [
            ('page_alloc', 'get_page_from_freelist', '4da8', '4d8b', '4dc9', 0),
        ],
        'prep_new_page': [('page_alloc', 'prep_new_page', '1892@2,190c,1921', None, '', 0)],
        'free_pages': [('page_alloc', '__free_pages', '3e33,3e3d', None, '', 0)],
        'free_hot_cold_page': [('page_alloc', 'free_hot_cold_page', '3c81,3cc3', None, '', 0)],
    },
}
# rows whose PRE walks are those of POST (the seed diff does not touch their
# code; in PRE's objects it sits at other addresses)
SHARED = ('alloc_pages_current', 'cond_resched', 'mod_zone_page_state', 'inc_zone_state',
          'free_pages_prepare', 'pfnblock', 'rmqueue_bulk', 'rmqueue_bulk_page', 'rmqueue',
          'smallest_probe', 'smallest_take', 'expand_step', 'pcpbulk', 'pcpbulk_search',
          'pcpbulk_page', 'free_one_entry', 'free_one_merge', 'free_one_done')
for r in SHARED:
    WALKS['pre'][r] = WALKS['post'][r]

# Executions of the row per walk set (the walks of nzl_body / nzl_inline
# cover two executions; smallest_probe's two walks, an empty order and the
# order that has a page, are weighted below).
EXECS = {'nzl_body': 2, 'nzl_inline': 2, 'pcpbulk_search': 3}
# smallest_probe: of the model's 630 probes per 310 __rmqueue calls, 308
# found a page (the per-segment counts): weights of the two walks
WEIGHTS = {'smallest_probe': (322 / 630, 308 / 630),
           # the seed's run under ooo (run 2, 682a3385, all N; the branch
           # table of its database): free_one_not_buddy true 9446236 of
           # 18850329 merge trips (the rest found the buddy), and
           # free_one_tail_buddy true 4703866 of 9436921
           'free_one_merge': (9404093 / 18850329, 9446236 / 18850329),
           'free_one_done': (4733055 / 9436921, 4703866 / 9436921)}

# What the model charges in each row's segment per execution: branches +
# loads + stores (atomics are excluded above), from the per-segment counts
# of `numasim bench pagealloc --variant V --cost-model ooo --pairs 100000`
# (docs/design/compiled-counts.md, "The model's side"), rounded to the nearest
# integer.  Segments without a row of their own (inline helpers) are
# summed into the row whose compiled instructions hold them.
PRIMS = {
    'post': {
        'alloc_pages_current': 5 + 6 + 3 + 1,   # + get_task_policy, policy_zonelist, policy_nodemask
        'alloc_nodemask': 10 + 1,
        'nzl_inline': 2 + 1,
        'cond_resched': 1,
        'gpfl_entry': 1,
        'gpfl_zone': 9 + 4,
        'watermark': 5 + 4,
        'buffered_pcp': 1 + 3 + 4 + 5,          # + buffered_rmqueue's A34
        'zone_statistics': 2 + 1,
        'mod_zone_page_state': 2 + 2 + 1,
        'inc_zone_state': 1 + 2 + 1,
        'prep_new_page': 3 + 1 + 2 + 7 + 1,     # + prep's loop tests, check_new_page
        'free_pages': 2,
        'free_hot_cold_page': 4 + 3 + 6,
        'free_pages_prepare': 5 + 7 + 1,        # + free_pages_check
        'pfnblock': 1,
        'rmqueue_bulk': 1,
        'rmqueue_bulk_page': 4 + 1 + 3,
        'rmqueue': 1 + 1 + 1,                   # + __rmqueue_smallest, expand's exit test
        'smallest_probe': 2.5,                  # 952 branches, 630 loads per 630 probes
        'smallest_take': 1 + 3,
        'expand_step': 1 + 1 + 3,
        # the pcp drain, from `--batch 16384 --pairs 200000` (6385 calls,
        # 19155 probes, 197935 pages, 395473 merge trips): per execution
        'pcpbulk': 3,                           # 12770 br + 6385 ld
        'pcpbulk_search': 3.33,                 # 44695 br + 19155 ld
        'pcpbulk_page': 8.97,                   # 785355 br + 395870 ld + 593805 st
        'free_one_entry': 2,                    # 395870 br
        'free_one_merge': 6.53,                 # 1385507 br + 593204 ld + 602985 st
        'free_one_done': 10.04,                 # 790508 br + 395482 ld + 801728 st
    },
}
PRIMS['pre'] = dict(PRIMS['post'])
del PRIMS['pre']['nzl_inline']
PRIMS['pre']['alloc_nodemask'] = 9 + 2
PRIMS['pre']['nzl_body'] = 3 + 2


def main(argv):
    per_insn = len(argv) == 3 and argv[1] == '--per-insn'
    if len(argv) != 2 + per_insn:
        print(__doc__, file=sys.stderr)
        return 2
    objdir = argv[-1]
    ukey, xkey = ('insns', 'xinsns') if per_insn else ('uops', 'xuops')
    out = {}
    for v in ('pre', 'post'):
        print('== %s' % v)
        print('%-22s %6s %6s %6s %6s %6s %6s %5s' % ('row', 'insns', 'uops', 'fused', 'excl',
                                                    'net', 'prims', 'work'))
        tot = {'insns': 0, 'uops': 0, 'fused': 0, 'excl': 0, 'net': 0, 'work': 0}
        for row, walks in WALKS[v].items():
            ins = uop = fus = exc = 0
            wts = WEIGHTS.get(row, (1,) * len(walks))
            for (obj, func, take, start, stop, extra), wt in zip(walks, wts):
                # a shared row: POST's objects (the same code, other addresses)
                c, calls = walk(objdir, 'post' if row in SHARED else v, obj, func, take, start,
                                stop)
                ins += c['insns'] * wt
                uop += c[ukey] * wt
                fus += c['fused'] * wt
                exc += (c[xkey] + extra) * wt
            n = EXECS.get(row, 1)
            net = (uop - fus - exc) / n
            prims = PRIMS[v][row]
            work = max(0, int(net - prims + 0.5))
            out.setdefault(row, {})[v] = work
            print('%-22s %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %5d' % (
                row, ins / n, uop / n, fus / n, exc / n, net, prims, work))
            for k, x in (('insns', ins), ('uops', uop), ('fused', fus), ('excl', exc),
                         ('net', uop - fus - exc)):
                tot[k] += x
            tot['work'] += work * n
        print('%-22s %6.1f %6.1f %6.1f %6.1f %6.1f %6s %5d  (all rows, once each walk set)'
              % ('total', tot['insns'], tot['uops'], tot['fused'], tot['excl'], tot['net'], '',
                 tot['work']))
        print()
    print('C table column (pre, post):')
    for row in out:
        print('  %-22s %s %s' % (row, out[row].get('pre', '-'), out[row].get('post', '-')))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
