#!/usr/bin/env python3
"""compiled-counts-slub: the `cost.code: compiled` columns of SLUB_WORK.

The SLUB sibling of compiled-counts.py (same rule, docs/design/compiled-counts.md
§3 and §6): walks the compiled v5.9 mm/slub.o (PRE = v5.9, POST = v5.9 +
c270cf30; gcc 11.3, CONFIG_SLUB_STATS=y: docs/design/compiled-counts.md §6 says
how to build them) along the paths the model executes in the seed-slub
run, with kpath.py, and prints per SLUB_WORK row and execution (walks
weighted by how often the model takes each path, from the site counts of
the run that also gave the prims)

  insns   instructions walked
  uops    their fused-domain uops, per instruction form from Agner Fog's
          Broadwell table (kpath.py, uops())
  fused   macro-fused cmp/test+jcc pairs (one uop for two; kpath's rule)
  excl    the uops the model charges by other means: kpath's xuops (every
          call, every ret, the irq save/restore sequences of __slab_alloc:
          cpu_call/cpu_ret/cpu_irq_save/restore; locked instructions, the
          lock cmpxchg16b of cmpxchg_double_slab: cpu_atomic; the call
          `call this_cpu_cmpxchg16b_emu` that the alternatives patch to
          `cmpxchg16b %gs:(%rsi)` on CX16 CPUs: cpu_this_cpu_cmpxchg), plus,
          named per walk ('xADDR'), put_cpu_partial's unlocked per-cpu
          `cmpxchg %r,%gs:..` (this_cpu_cmpxchg: cpu_this_cpu_cmpxchg) and
          the unlocking store of spin_unlock (cpu_unlock); minus, named per
          walk ('kADDR', 'kall'), the calls and returns of functions that
          are not the model's (_cond_resched, rcu_all_qs, should_failslab:
          the model charges no cpu_call/cpu_ret for them, so they stay work)
  net     uops - fused - excl
  prims   the branches, loads and stores the model charges in the row's
          segments per execution, read from the per-segment counts of the
          model (scripts/slub-segment-counts.patch; the SEG files given)
  work    net - prims, never below 0

Usage: compiled-counts-slub.py [--per-insn] OBJDIR PRE.seg POST.seg
  --per-insn: the earlier rule, one uop per instruction, for comparison
  OBJDIR holds pre-slub.rdis, post-slub.rdis, slab_common.rdis, core.rdis,
  tree.rdis (objdump -dr --no-show-raw-insn of mm/slub.o per variant and of
  mm/slab_common.o, kernel/sched/core.o, kernel/rcu/tree.o);
  PRE.seg / POST.seg are the SLSEG lines the patched model prints.
Prints each row and the C columns (pre, post) for models/slub.c.
"""
import contextlib
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kpath  # noqa: E402

# Path frequencies of the seed-slub run the SEG files come from (numasim run
# scenarios/seed-slub.yaml --set cost.model=ooo --set workload.loops=10
# --set repetitions=1, per variant), from its branch table (cond_true of the
# sites named).  Both variants take the same paths up to a few per cent;
# the POST counts weight the walks of the code the variants share.
FREQ = {
    'slow': 37726,          # alloc_slow true: ___slab_alloc calls
    'redo': 61338,          # sa_node_mismatch executed: trips through redo
    'refill': 61338 - 34491,  # get_freelist got objects (sa_empty false)
    'empty': 34491,         # sa_empty true: DEACTIVATE_BYPASS, to new_slab
    'cpu_partial': 23756,   # sa_cpu_partial true: the per-cpu chain's head
    'objects': 10879,       # sa_cpu_partial false: new_slab_objects
    'try_a': 157601 - 37726,  # __slab_free: S2a false, S2b false
    'try_b': 4083,          # S2c false: prior NULL or inuse 0, frozen
    'try_c': 34491,         # S3b true: a full slab frozen by the free
    'pcp_n': 34220 - 2293,  # put_cpu_partial: chain, drain arg, no drain
    'pcp_n0': 48613 - 34220,  # chain, drain arg 0 (get_partial_node)
    'pcp_e': 56491 - 48613,   # empty chain
    'gpn': 11321,           # get_partial_node calls (the model's)
    'gpn_lock': 11321 - 2899,  # gpn_empty false: the list_lock taken
    'gpn_page': 30422,      # gpn_next true: slabs tried
    'gpn_first': 8422,      # gpn_first true: the cpu slab
    'gpn_enough': 7952,     # gpn_enough true: stop
    'uf_page': 31914,       # uf_loop true: slabs unfrozen
    'uf_call': 2293,        # unfreeze_partials calls (first slab: no lock held)
    'uf_switch': 13292 - 2293,  # uf_node true with a lock held: unlock, lock
}


def f(a, b):
    return FREQ[a] / FREQ[b]


# Walks: (object, function, take, start, stop, adj, weight per execution
# of the row).  adj adjusts kpath's excluded uops (xuops) for the walk:
# 'xADDR' also excludes the instruction at ADDR (charged whole by the
# model: this_cpu_cmpxchg, spin_unlock's store), 'kADDR' counts the call or
# ret at ADDR as work (not a model function), 'kall' counts every call and
# ret of the walk as work; each named address must be on the walk.  'slub' is the variant's mm/slub.o.  Addresses are those of
# the gcc 11.3 objects of docs/design/compiled-counts.md §6.
SHARED_WALKS = {
    # kmem_cache_alloc with slab_alloc_node inlined: entry up to the fast
    # path test (might_sleep_if -> _cond_resched -> rcu_all_qs for the
    # GFP_KERNEL allocation, slab_pre_alloc_hook -> should_failslab) and
    # the exit every allocation shares (4ebb..ret); excl: ret
    'alloc_entry': [
        ('slub', 'kmem_cache_alloc', '4e4b', None, '4e8a', 'k4f92,k4e57', 1),
        ('slub', 'kmem_cache_alloc', '', '4ebb', '', '', 1),
        ('core', '_cond_resched', '', None, '', 'kall', 1),
        ('tree', 'rcu_all_qs', '235e', None, '', 'kall', 1),
        ('slab_common', 'should_failslab', '', None, '', 'kall', 1),
    ],
    # the lockless pop: get_freepointer_safe, this_cpu_cmpxchg_double (the
    # call to the emulation, excl), prefetch_freepointer, stat, the
    # init-on-alloc test; excl: the cmpxchg16b
    'alloc_fast': [('slub', 'kmem_cache_alloc', '', '4e8a', '4ebb', '', 1)],
    # __slab_alloc's irq save, the call, irq restore, stat(ALLOC_SLOWPATH)
    # in kmem_cache_alloc (excl: pushf;pop;cli, the call, push;popf), then
    # ___slab_alloc: entry (prologue), redo trips (node_match with
    # NUMA_NO_NODE, pfmemalloc_match, c->freelist), the test after
    # get_freelist with its two outcomes, new_slab (the per-cpu chain's
    # head: CPU_PARTIAL_ALLOC and back to redo; or new_slab_objects ->
    # get_partial -> the call of get_partial_node, excl, and its success
    # back to load_freelist)
    'alloc_slow_entry': [
        ('slub', 'kmem_cache_alloc', '', '4fb1', '4ebb', '', 1),
        ('slub', '___slab_alloc', '', None, '3997', '', 1),
        ('slub', '___slab_alloc', '399a,39cc', '3997', '3a0d', '', f('redo', 'slow')),
        ('slub', '___slab_alloc', '', '3a98', '39ce', '', f('refill', 'slow')),
        ('slub', '___slab_alloc', '3a9b', '3a98', '3abe', '', f('empty', 'slow')),
        ('slub', '___slab_alloc', '3b14', '3abe', '3997', '', f('cpu_partial', 'slow')),
        ('slub', '___slab_alloc', '3b1f,3b30', '3abe', '3c3e', '', f('objects', 'slow')),
        ('slub', '___slab_alloc', '3c44,3b8f', '3c3e', '39ce', '', f('objects', 'slow')),
    ],
    # get_freelist (inlined): the snapshot and the cmpxchg_double (excl)
    'get_freelist': [('slub', '___slab_alloc', '3a56', '3a0d', '3a98', '', 1)],
    # load_freelist: the pop, next_tid, the exit of ___slab_alloc; excl: ret
    'alloc_load': [('slub', '___slab_alloc', '', '39ce', '', '', 1)],
    # kmem_cache_free with cache_from_obj, slab_free, slab_free_freelist_hook
    # and do_slab_free inlined: up to the c->page test, and the exit every
    # free shares (6885..ret); excl: ret
    'free_entry': [
        ('slub', 'kmem_cache_free', '', None, '685b', '', 1),
        ('slub', 'kmem_cache_free', '', '6885', '', '', 1),
    ],
    # do_slab_free's fast path: set_freepointer, this_cpu_cmpxchg_double
    # (excl), stat(FREE_FASTPATH)
    'free_fast': [('slub', 'kmem_cache_free', '', '685b', '6885', '', 1)],
    # put_cpu_partial: a chain, drain requested, below the limit; a chain
    # without drain (get_partial_node's call); an empty chain.  excl: the
    # this_cpu_cmpxchg and ret.  The drain (2293 of 56491) is not walked.
    'put_cpu_partial': [
        ('slub', 'put_cpu_partial', '3468,3457', None, '', 'x344e', 31927 / (31927 + 14393 + 7878)),
        ('slub', 'put_cpu_partial', '3468,3422,3457', None, '', 'x344e',
         14393 / (31927 + 14393 + 7878)),
        ('slub', 'put_cpu_partial', '3457', None, '', 'x344e', 7878 / (31927 + 14393 + 7878)),
    ],
    # get_partial_node.part.0 (gcc split off the `!n || !n->nr_partial`
    # test, which stays in ___slab_alloc and is walked there): the entry
    # with spin_lock (the call: cpu_lock, excl) and the exit with the
    # unlocking store (cpu_unlock, excl) and ret (excl), for the calls that
    # take the lock
    'partial_node_entry': [
        ('slub', 'get_partial_node.part.0', '', None, '353d', '', f('gpn_lock', 'gpn')),
        ('slub', 'get_partial_node.part.0', '', '35b3', '', 'x35b3', f('gpn_lock', 'gpn')),
    ],
    # one trip of the loop: pfmemalloc_match, then (after acquire_slab and
    # remove_partial) the cpu slab (ALLOC_FROM_PARTIAL) or put_cpu_partial
    # (the call, excl; CPU_PARTIAL_NODE), the `available > cpu_partial / 2`
    # test, the next entry
    'partial_node_page': [
        ('slub', 'get_partial_node.part.0', '', '353d', '3558', '', 1),
        ('slub', 'get_partial_node.part.0', '3647', '3644', '367e', '', f('gpn_first', 'gpn_page')),
        ('slub', 'get_partial_node.part.0', '', '3644', '367e', '',
         1 - f('gpn_first', 'gpn_page')),
        ('slub', 'get_partial_node.part.0', '368c', '367e', '35b3', '', f('gpn_enough', 'gpn_page')),
        ('slub', 'get_partial_node.part.0', '', '367e', '353d', '', 1 - f('gpn_enough', 'gpn_page')),
    ],
    # acquire_slab (inlined): the snapshot, `new` for the cpu slab (all
    # objects) or for the chain, the cmpxchg_double (lock cmpxchg16b, excl),
    # the result test.  remove_partial's list_del between them is list_op's
    # code (=est) and is not walked.
    'acquire_slab': [
        ('slub', 'get_partial_node.part.0', '35a8', '3558', '3602', '', f('gpn_first', 'gpn_page')),
        ('slub', 'get_partial_node.part.0', '3577,35a8', '3558', '3602', '',
         1 - f('gpn_first', 'gpn_page')),
        ('slub', 'get_partial_node.part.0', '', '3630', '3644', '', 1),
    ],
    # unfreeze_partials: entry, and the exit with the unlocking store
    # (cpu_unlock, excl), the empty discard loop and ret (excl)
    'unfreeze_entry': [
        ('slub', 'unfreeze_partials', '', None, '32b2', '', 1),
        ('slub', 'unfreeze_partials', '', '33a5', '', 'x33aa', 1),
    ],
    # per slab: unlink from the chain, get_node, the node lock when the
    # node changes (the first slab: spin_lock; later: unlock + lock; excl),
    # the unfreezing cmpxchg_double (excl), the inuse test, then (after
    # add_partial's list work, list_op's code, not walked) the stat and the
    # loop test.  U1 was never true in the run: no discard walked.
    'unfreeze_page': [
        ('slub', 'unfreeze_partials', '32d1,331e', '32b2', '336a', '',
         1 - f('uf_call', 'uf_page') - f('uf_switch', 'uf_page')),
        ('slub', 'unfreeze_partials', '32d6,331e', '32b2', '336a', '', f('uf_call', 'uf_page')),
        ('slub', 'unfreeze_partials', '331e', '32b2', '336a', 'x32d8', f('uf_switch', 'uf_page')),
        ('slub', 'unfreeze_partials', '339f', '3390', '32b2,33a5', '', 1),
    ],
    # list_op: add_partial's and remove_partial's list work, inlined where
    # the run does it: __add_partial (tail) in unfreeze_partials and the
    # list_del of remove_partial in get_partial_node, weighted by the
    # model's add_partial / remove_partial calls (31914 / 31898)
    'list_op': [
        ('slub', 'unfreeze_partials', '', '336a', '3390', '', 31914 / (31914 + 31898)),
        ('slub', 'get_partial_node.part.0', '', '3602', '3630', '', 31898 / (31914 + 31898)),
    ],
}

_TRY = FREQ['try_a'] + FREQ['try_b'] + FREQ['try_c']
VARIANT_WALKS = {
    'post': {
        # __slab_free's prologue (stack realignment for the cmpxchg16b
        # operand, stat(FREE_SLOWPATH), the kmem_cache_debug static key) and
        # its epilogue; excl: ret
        'slab_free_entry': [
            ('slub', '__slab_free', '', None, '57fa', '', 1),
            ('slub', '__slab_free', '', '5950', '', '', 1),
        ],
        # one trip of the cmpxchg loop that succeeds: the common case (S2a,
        # S2b false), prior NULL on a frozen slab, a full slab frozen
        # (new.frozen = 1); excl: lock cmpxchg16b.  The locked path (1492
        # of 159941) is not walked.
        'slab_free_try': [
            ('slub', '__slab_free', '5836,585d', '57fa', '5937', '', FREQ['try_a'] / _TRY),
            ('slub', '__slab_free', '585d', '57fa', '5937', '', FREQ['try_b'] / _TRY),
            ('slub', '__slab_free', '583d,58c5,585d', '57fa', '5937', '', FREQ['try_c'] / _TRY),
        ],
        # the `!n` block (S5 and the variant's tests and stats) per outcome
        'block_frozen': [('slub', '__slab_free', '', '5937', '5950', '', 1)],
        'block_put': [('slub', '__slab_free', '5943', '5937', '5950', '', 1)],  # call put_cpu_partial
        'block_none': [('slub', '__slab_free', '5943,59fd', '5937', '5950', '', 1)],
    },
    'pre': {
        'slab_free_entry': [
            ('slub', '__slab_free', '', None, '57fa', '', 1),
            ('slub', '__slab_free', '', '5946', '', '', 1),
        ],
        'slab_free_try': [
            ('slub', '__slab_free', '5834,585a', '57fa', '5932', '', FREQ['try_a'] / _TRY),
            ('slub', '__slab_free', '585a', '57fa', '5932', '', FREQ['try_b'] / _TRY),
            ('slub', '__slab_free', '583a,58c2,585a', '57fa', '5932', '', FREQ['try_c'] / _TRY),
        ],
        # gcc merged PRE6b and PRE7 into one test of was_frozen under
        # new.frozen: the FREE_FROZEN free runs 2 conditional jumps here
        'block_frozen': [('slub', '__slab_free', '5940', '5932', '59c5', '', 1)],
        'block_put': [('slub', '__slab_free', '5940,59bc', '5932', '59fa', '', 1)],
        'block_none': [('slub', '__slab_free', '', '5932', '5946', '', 1)],
    },
}

# The model's segments whose charged branches, loads and stores belong to
# each row (SLSEG names: "work ROW" and "fn FUNCTION"; the block_* and
# after_loop markers are the patch's), and the segment whose count is the
# row's executions.  Extra per-execution terms are noted.
SEGS = {
    'alloc_entry': (['work alloc_entry', 'fn kmem_cache_alloc', 'fn slab_alloc_node'],
                    'work alloc_entry'),
    'alloc_fast': (['work alloc_fast'], 'work alloc_fast'),
    'alloc_slow_entry': (['work alloc_slow_entry', 'fn __slab_alloc', 'fn ___slab_alloc',
                          'fn new_slab_objects', 'fn get_partial'], 'work alloc_slow_entry'),
    'get_freelist': (['work get_freelist', 'fn get_freelist'], 'work get_freelist'),
    'alloc_load': (['work alloc_load'], 'work alloc_load'),
    'free_entry': (['work free_entry', 'fn kmem_cache_free', 'fn slab_free', 'fn do_slab_free'],
                   'work free_entry'),
    'free_fast': (['work free_fast'], 'work free_fast'),
    'put_cpu_partial': (['work put_cpu_partial', 'fn put_cpu_partial'], 'work put_cpu_partial'),
    'partial_node_entry': (['work partial_node_entry', 'fn get_partial_node'],
                           'work partial_node_entry'),
    'partial_node_page': (['work partial_node_page'], 'work partial_node_page'),
    'acquire_slab': (['work acquire_slab', 'fn acquire_slab'], 'work acquire_slab'),
    'unfreeze_entry': (['work unfreeze_entry', 'fn unfreeze_partials'], 'work unfreeze_entry'),
    'unfreeze_page': (['work unfreeze_page'], 'work unfreeze_page'),
    'list_op': (['work list_op', 'fn add_partial', 'fn remove_partial'], 'work list_op'),
    'slab_free_entry': (['work slab_free_entry', 'fn __slab_free'], 'work slab_free_entry'),
    'slab_free_try': (['work slab_free_try'], 'work slab_free_try'),
    'block_frozen': (['fn block_frozen'], 'fn block_frozen'),
    'block_put': (['fn block_put'], 'fn block_put'),
    'block_none': (['fn block_none'], 'fn block_none'),
}
# stat(ALLOC_SLOWPATH): the model stores it after ___slab_alloc returns,
# in the alloc_entry segment; the object has it in the __slab_alloc part
# walked for alloc_slow_entry.  S5 (`if (likely(!n))`): the model charges
# it in the after_loop segment; the object tests it at the block's start.
MOVE = {'alloc_entry': ('st', 'work alloc_slow_entry', -1), 'alloc_slow_entry': ('st', None, +1),
        'block_frozen': ('br', None, +1), 'block_put': ('br', None, +1),
        'block_none': ('br', None, +1)}

SEG_RE = re.compile(r'^SLSEG (\w+) (\S+) n=(\d+) br=(\d+) ld=(\d+) st=(\d+)')


def read_seg(path):
    out = {}
    for line in open(path):
        m = SEG_RE.match(line)
        if m:
            out['%s %s' % (m.group(1), m.group(2))] = {
                'n': int(m.group(3)), 'br': int(m.group(4)), 'ld': int(m.group(5)),
                'st': int(m.group(6))}
    return out


def prims(seg, row):
    names, denom = SEGS[row]
    n = seg[denom]['n']
    tot = sum(seg[s]['br'] + seg[s]['ld'] + seg[s]['st'] for s in names if s in seg)
    p = tot / n
    if row in MOVE:
        kind, other, sign = MOVE[row]
        p += sign * (seg[other]['n'] / n if other else 1)
    return p


def body(dis, func):
    """The function's instructions without addresses (to compare variants)."""
    funcs, insns, nxt = kpath.parse(dis, func)
    a, out, end = funcs[func], [], None
    names = sorted(funcs.values())
    later = [x for x in names if x > funcs[func]]
    end = later[0] if later else None
    while a in insns and (end is None or a < end):
        i = insns[a]
        out.append((i['mn'], re.sub(r'[0-9a-f]+ <[^>]*>', 'T', i['ops']), i['rel']))
        a = nxt.get(a)
        if a is None:
            break
    return out


def walk(objdir, variant, w):
    """One walk: kpath's counts, and the uops (instructions with per_insn)
    of it the model charges by other means."""
    obj, func, take, start, stop, adj, wt = w
    name = '%s-slub.rdis' % variant if obj == 'slub' else '%s.rdis' % obj
    funcs, insns, nxt = kpath.parse(os.path.join(objdir, name), func)
    st = int(start, 16) if start else None
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):   # -v lists the walked addresses
        c, calls, irqs = kpath.walk(funcs, insns, nxt, func, st, kpath.hexset(take),
                                    kpath.hexset(stop), 5000, True)
    walked = [int(line.split()[0], 16) for line in buf.getvalue().splitlines()]
    callret = [a for a in walked if kpath.classify(insns[a]) & {'call', 'ret'}]
    xu, xi = c['xuops'], c['xinsns']
    for tok in (adj.split(',') if adj else []):
        keep = tok[0] == 'k'
        addrs = callret if tok == 'kall' else [int(tok[1:], 16)]
        for a in addrs:
            if a not in walked or keep and a not in callret:
                raise ValueError('%s %s: %s: %x is not a %s on the walk'
                                 % (name, func, tok, a, 'call or ret' if keep else 'instruction'))
            sign = -1 if keep else 1
            xu += sign * kpath.uops(insns[a])
            xi += sign
    return c, xu, xi, wt


def main(argv):
    per_insn = len(argv) == 5 and argv[1] == '--per-insn'
    if len(argv) != 4 + per_insn:
        print(__doc__, file=sys.stderr)
        return 2
    objdir = argv[-3]
    segs = {'pre': read_seg(argv[-2]), 'post': read_seg(argv[-1])}
    # the shared rows are walked in POST's object: check that PRE's
    # functions are the same code (only __slab_free differs)
    for func in ('kmem_cache_alloc', 'kmem_cache_free', '___slab_alloc', 'put_cpu_partial',
                 'get_partial_node.part.0', 'unfreeze_partials'):
        if body(os.path.join(objdir, 'pre-slub.rdis'), func) != \
                body(os.path.join(objdir, 'post-slub.rdis'), func):
            print('compiled-counts-slub.py: error: %s differs between PRE and POST' % func,
                  file=sys.stderr)
            return 1
    out = {}
    for v in ('pre', 'post'):
        print('== %s%s' % (v, ' (one uop per instruction)' if per_insn else ''))
        print('%-18s %7s %6s %6s %5s %6s %6s %5s' % ('row', 'insns', 'uops', 'fused', 'excl',
                                                    'net', 'prims', 'work'))
        rows = dict((r, (w, 'post')) for r, w in SHARED_WALKS.items())
        rows.update((r, (w, v)) for r, w in VARIANT_WALKS[v].items())
        for row, (walks, objv) in rows.items():
            ins = uop = fus = exc = 0.0
            for w in walks:
                c, xu, xi, wt = walk(objdir, objv, w)
                ins += c['insns'] * wt
                uop += (c['insns'] if per_insn else c['uops']) * wt
                fus += c['fused'] * wt
                exc += (xi if per_insn else xu) * wt
            net = uop - fus - exc
            p = prims(segs[v], row)
            work = max(0, int(net - p + 0.5))
            out.setdefault(row, {})[v] = work
            print('%-18s %7.1f %6.1f %6.1f %5.1f %6.1f %6.1f %5d' % (row, ins, uop, fus, exc,
                                                                    net, p, work))
        print()
    print('C table columns (pre, post):')
    for row in out:
        print('  %-18s %s %s' % (row, out[row]['pre'], out[row]['post']))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except (ValueError, KeyError, OSError) as e:   # a form outside the table, a bad address
        print('compiled-counts-slub.py: error: %s' % e, file=sys.stderr)
        sys.exit(2)
