#!/usr/bin/env python3
"""kpath: count the instructions a kernel object executes along one path.

Reads `objdump -dr --no-show-raw-insn OBJ` output, walks one function from
its entry (or --start) and follows the path given on the command line: a
conditional jump at an address listed in --take is taken (ADDR@K: only the
K-th time the walk reaches it, for loops), every other one falls through;
unconditional jumps are followed; the walk ends at a `ret`, at an address
listed in --stop (not executed; the start itself does not stop it, so
--start A --stop A walks one trip of a loop), or after --max instructions.
It prints the instructions walked (with -v) and their counts by kind, as
docs/design/compiled-counts.md uses them:

  insns    every instruction executed (a static-key or ftrace 5-byte nop
           counts 1, as the CPU executes it)
  load     instructions that read memory (a pop, or a memory source
           operand; a read-modify-write counts in load and store)
  store    instructions that write memory (push, memory destination)
  jcc      conditional jumps;  taken: how many of them were taken
  jmp      unconditional direct jumps (always taken)
  call     calls other than the ftrace hook (their targets listed)
  ret      returns
  nop      nops (static keys, the ftrace hook patched to a nop at boot)
  irq      pushf/popf/cli/sti (named: microcoded on Intel cores)
  fused    cmp/test/add/sub/and/inc/dec immediately followed by a jcc that
           Broadwell macro-fuses into one uop (Intel optimization manual
           248966, "Macro-fusion", Haswell/Broadwell rules as summarised by
           Agner Fog, microarchitecture.pdf, "Haswell/Broadwell:
           macro-op fusion": not when the first instruction has both a
           memory operand and an immediate, not when it writes memory;
           inc/dec not with jcc on CF)
  uops     fused-domain uops of the instructions walked, per instruction
           form from Agner Fog's instruction tables (instruction_tables.pdf,
           Broadwell, column "Uops fused domain"): uops(), UOPS
  xuops    the uops of the instructions the models charge by other means
           (every call but the ftrace hook, every ret, the irq save and
           restore sequences pushf;pop;cli and push;popf, locked
           instructions): excluded from the work rows; xinsns: how many
           instructions those are

Usage: kpath.py DIS FUNC [--start ADDR] [--take A,B,..] [--stop A,B,..]
                [--max N] [-v]
Addresses are hex offsets within the object, as objdump prints them.
This is numasim's own tool; it reads objects you build from a kernel tree
(see docs/design/compiled-counts.md), nothing of the kernel is stored here.
"""
import re
import sys

INS_RE = re.compile(r'^\s+([0-9a-f]+):\t(\S+)\s*(.*)$')
REL_RE = re.compile(r'^\s+([0-9a-f]+): (R_X86_64_\S+)\s+(\S+)')
FUNC_RE = re.compile(r'^([0-9a-f]+) <(.+)>:$')
FUSE_FIRST = ('cmp', 'test', 'add', 'sub', 'and', 'inc', 'dec')


def parse(path, func):
    """The instructions of the section that holds func (objects have several
    sections, each numbered from 0)."""
    funcs, insns, order = {}, {}, []
    last, sect, want = None, None, None
    for line in open(path):
        if line.startswith('Disassembly of section '):
            if want is not None:
                break
            sect = line.split()[3].rstrip(':')
            funcs, insns, order, last = {}, {}, [], None
            continue
        m = FUNC_RE.match(line.rstrip('\n'))
        if m:
            funcs[m.group(2)] = int(m.group(1), 16)
            if m.group(2) == func:
                want = sect
            continue
        m = REL_RE.match(line)
        if m and last is not None:
            insns[last]['rel'] = m.group(3)
            continue
        m = INS_RE.match(line.rstrip('\n'))
        if not m:
            continue
        a = int(m.group(1), 16)
        ops = m.group(3).split('#')[0].strip()
        insns[a] = {'a': a, 'mn': m.group(2), 'ops': ops, 'rel': None}
        order.append(a)
        last = a
    nxt = {order[i]: order[i + 1] for i in range(len(order) - 1)}
    return funcs, insns, nxt


def split_ops(ops):
    out, depth, cur = [], 0, ''
    for ch in ops:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def is_mem(op):
    return '(' in op or op.startswith('%gs:') or re.match(r'^0x[0-9a-f]+$', op) is not None


def classify(i):
    mn, ops = i['mn'], split_ops(i['ops'])
    k = set()
    base = mn.rstrip('lqwb') if mn not in ('call', 'jb', 'jl', 'sbb', 'sub', 'cwtl') else mn
    if mn.startswith('nop') or mn == 'xchg' and i['ops'] == '%ax,%ax':
        return {'nop'}
    if mn == 'call' and i['rel'] and i['rel'].startswith('__fentry__'):
        return {'nop'}
    if mn in ('pushf', 'pushfq', 'popf', 'popfq', 'cli', 'sti'):
        k.add('irq')
        if mn.startswith('push'):
            k.add('store')
        if mn.startswith('pop'):
            k.add('load')
        return k
    if mn == 'call':
        return {'call', 'store'}
    if mn == 'leave':
        return {'load', 'alu'}
    if mn == 'ret':
        return {'ret', 'load'}
    if mn == 'jmp':
        return {'jmp'} | ({'load'} if ops and ops[0].startswith('*') and is_mem(ops[0][1:]) else set())
    if mn.startswith('j'):
        return {'jcc'}
    if mn.startswith('push'):
        return {'store'} | ({'load'} if ops and is_mem(ops[0]) else set())
    if mn.startswith('pop'):
        return {'load'}
    if mn.startswith('lea') or mn == 'prefetcht0' or mn.startswith('prefetch'):
        return {'alu'}
    mem = [j for j, o in enumerate(ops) if is_mem(o)]
    if not mem:
        return {'alu'}
    dst_mem = len(ops) >= 1 and is_mem(ops[-1])
    pure_store = base in ('mov', 'movs', 'movz', 'movabs', 'set', 'movnti') or mn.startswith('set')
    no_write = base in ('cmp', 'test', 'bt') or mn.startswith('cmp') or mn.startswith('test') \
        or mn.startswith('bt') and mn in ('bt', 'btl', 'btq')
    if dst_mem and not no_write:
        k.add('store')
        if not pure_store or len(ops) == 1 and not mn.startswith('set'):
            k.add('load')
    else:
        k.add('load')
    k.add('alu')
    return k


def fusible(first, jcc):
    mn = first['mn']
    b = mn if mn in FUSE_FIRST else mn[:-1] if mn[-1:] in 'lqwb' else mn
    if b not in FUSE_FIRST:
        return False
    ops = split_ops(first['ops'])
    has_imm = any(o.startswith('$') for o in ops)
    has_mem = any(is_mem(o) for o in ops)
    if has_imm and has_mem:
        return False
    if 'store' in classify(first):
        return False
    if b in ('inc', 'dec') and jcc['mn'] in ('jb', 'jae', 'jbe', 'ja'):
        return False
    return True


# Fused-domain uops per instruction form on Broadwell, Agner Fog,
# instruction_tables.pdf, Broadwell section, column "Uops fused domain"
# (r = register, m = memory, i = immediate).  Quoted from the tables as
# known to this work; they could not be re-read through the tools
# available when this was written (check them there before relying on one).  A load or a
# store is one micro-fused uop; a read-modify-write of memory is more:
#   mov/movzx/movsx/lea/alu r,r|i|m, cmp/test m,r|i, mov m,r|i       1
#   add/sub/and/or/xor m,r|i (read-modify-write)                      2
#   inc/dec/neg/not m                                                 3
#   xadd m,r                                                          4
#   push r|i, pop r, jmp, jcc, nop, cltq, setcc r, cmovcc r,r,
#   imul r,r(,i), bt r,r|i, bsr/tzcnt/popcnt r,r, shifts r,i          1
#   push m, pop m, setcc m, cmovcc r,m, bt m,i                        2
#   shl/shr/sar r,cl, leave, xchg r,r                                 3
#   call near 2, ret 1 (excluded: the model charges call_uops/ret_uops)
#   cmpxchg m,r (no lock prefix: this_cpu_cmpxchg's %gs: form)         5
#   cmpxchg8b m64 14, cmpxchg16b m128 19 (no lock prefix: the
#   boot-patched this_cpu_cmpxchg_double)
# The cmpxchg figures are quoted from Agner Fog's Broadwell table as
# recalled, not re-read (cmpxchg m,r may be 6 there; cmpxchg8b/16b 14/19
# agree with LLVM's Haswell scheduling model, as an llvm-mca
# instruction-table test for -mcpu=haswell prints it; the register form
# cmpxchg r,r is not in the table).  Every
# cmpxchg on the paths walked is charged whole by the models
# (cpu_this_cpu_cmpxchg, cpu_atomic) and excluded by the caller, so the
# figure changes the uops and excl columns alike and no work row.  A
# locked instruction (`lock` printed as its own mnemonic by objdump)
# counts 1 here and is excluded whole (cpu_atomic).
# Not modelled: the un-lamination of micro-fused uops with an indexed
# address (Intel optimization manual 248966, "Micro-fusion" for Haswell;
# a few on these paths, so the counts are a little low).  An instruction
# form outside the table is an error: the walk stops with its address.
UOPS_RMW = {'add': 2, 'sub': 2, 'and': 2, 'or': 2, 'xor': 2, 'adc': 4, 'sbb': 4,
            'inc': 3, 'dec': 3, 'neg': 3, 'not': 3, 'xadd': 4,
            'shl': 3, 'shr': 3, 'sar': 3, 'bts': 3, 'btr': 3, 'btc': 3}
UOPS_ONE = ('mov', 'movz', 'movs', 'movabs', 'lea', 'add', 'sub', 'and', 'or', 'xor', 'cmp',
            'test', 'inc', 'dec', 'neg', 'not', 'cltq', 'cwtl', 'cqto', 'cltd', 'imul', 'bt',
            'bts', 'btr', 'bsr', 'bsf', 'tzcnt', 'popcnt', 'shl', 'shr', 'sar', 'rol', 'ror',
            'adc', 'sbb', 'movnti', 'prefetcht0', 'prefetchw', 'pause')
UOPS_CMPXCHG = {'cmpxchg': 5, 'cmpxchg8b': 14, 'cmpxchg16b': 19}


def base_mn(mn):
    """The mnemonic without AT&T's size suffix or movz/movs's operand sizes."""
    for pre in ('movz', 'movs'):
        if mn.startswith(pre) and mn not in ('movsq', 'movsl', 'movsb', 'movsw'):
            return pre
    if mn in ('cltq', 'cwtl', 'cqto', 'cltd', 'movabs', 'call', 'sbb', 'sub', 'jb', 'jl'):
        return mn
    if mn[-1:] in 'lqwb' and mn[:-1] in UOPS_ONE + ('push', 'pop', 'xadd', 'ret', 'call',
                                                    'lea', 'xchg', 'leave', 'jmp'):
        return mn[:-1]
    return mn


def uops(i):
    """Fused-domain uops of one instruction (UOPS above); None if its form
    is not in the table."""
    mn, ops = i['mn'], split_ops(i['ops'])
    k = classify(i)
    if 'nop' in k or 'jcc' in k:
        return 1
    if mn == 'lock':
        return 1                       # excluded whole (cpu_atomic)
    if 'irq' in k:
        return 1                       # excluded whole (cpu_irq_save/restore)
    b = base_mn(mn)
    if b in UOPS_CMPXCHG or mn[:-1] == 'cmpxchg' and mn[-1:] in 'lqwb':
        if not ops or not is_mem(ops[-1]):
            return None                # cmpxchg r,r: not in the table
        return UOPS_CMPXCHG.get(b, UOPS_CMPXCHG['cmpxchg'])
    if b == 'call':
        return 2
    if b == 'ret':
        return 1
    if b == 'jmp':
        return 1
    if b == 'leave':
        return 3
    if b == 'xchg':
        return 3 if not any(is_mem(o) for o in ops) else None
    if b in ('push', 'pop'):
        return 2 if ops and is_mem(ops[0]) else 1
    if mn.startswith('set'):
        return 2 if ops and is_mem(ops[0]) else 1
    if mn.startswith('cmov'):
        return 2 if is_mem(ops[0]) else 1
    mem_dst = ops and is_mem(ops[-1]) and 'store' in k and 'load' in k
    if b in ('shl', 'shr', 'sar') and ops and ops[0] == '%cl' and not mem_dst:
        return 3
    if mem_dst:
        return UOPS_RMW.get(b)
    if b == 'bt' and ops and is_mem(ops[-1]):
        return 2
    return 1 if b in UOPS_ONE else None


def walk(funcs, insns, nxt, func, start, take, stop, maxn, verbose):
    a = start if start is not None else funcs[func]
    c = {k: 0 for k in ('insns', 'load', 'store', 'jcc', 'taken', 'jmp', 'call', 'ret',
                         'nop', 'irq', 'fused', 'uops', 'xuops', 'xinsns')}
    calls, irqs, prev, seen, visits = [], [], None, 0, {}
    while True:
        if (a in stop and seen > 0) or seen >= maxn:
            break
        i = insns[a]
        k = classify(i)
        seen += 1
        c['insns'] += 1
        for x in ('load', 'store', 'jcc', 'jmp', 'call', 'ret', 'nop', 'irq'):
            if x in k:
                c[x] += 1
        if 'jcc' in k and prev is not None and fusible(prev, i):
            c['fused'] += 1
        u = uops(i)
        if u is None:
            raise ValueError('%x: %s %s: instruction form not in the uop table'
                             % (a, i['mn'], i['ops']))
        c['uops'] += u
        # excluded: calls, rets, locked instructions, irq sequences (the pop
        # after pushf, the push before popf)
        nx = insns.get(nxt.get(a))
        if ('call' in k or 'ret' in k or 'irq' in k or i['mn'] == 'lock'
                or i['mn'].startswith('pop') and prev is not None and prev['mn'].startswith('pushf')
                or i['mn'].startswith('push') and nx is not None and nx['mn'].startswith('popf')):
            c['xuops'] += u
            c['xinsns'] += 1
        if 'call' in k:
            calls.append(i['rel'] or i['ops'])
        if 'irq' in k:
            irqs.append(i['mn'])
        if verbose:
            print('  %6x  %-8s %-40s %s' % (a, i['mn'], i['ops'][:40], ','.join(sorted(k))))
        if 'ret' in k:
            break
        target = None
        visits[a] = visits.get(a, 0) + 1
        if 'jmp' in k or ('jcc' in k and (a in take or (a, visits[a]) in take)):
            if 'jcc' in k:
                c['taken'] += 1
            m = re.match(r'^([0-9a-f]+)', i['ops'])
            target = int(m.group(1), 16)
        prev = i
        a = target if target is not None else nxt[a]
    return c, calls, irqs


def hexset(s):
    """A,B,..: addresses; A@k: only the k-th time the walk reaches A."""
    out = set()
    for x in (s.split(',') if s else []):
        if '@' in x:
            a, k = x.split('@')
            out.add((int(a, 16), int(k)))
        elif x:
            out.add(int(x, 16))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    dis, func = argv[1], argv[2]
    opts = {'--start': None, '--take': '', '--stop': '', '--max': '2000'}
    verbose = False
    rest = argv[3:]
    while rest:
        o = rest.pop(0)
        if o == '-v':
            verbose = True
        elif o in opts and rest:
            opts[o] = rest.pop(0)
        else:
            print('kpath.py: error: bad argument %s' % o, file=sys.stderr)
            return 2
    funcs, insns, nxt = parse(dis, func)
    if func not in funcs:
        print('kpath.py: error: no function %s in %s' % (func, dis), file=sys.stderr)
        return 2
    start = int(opts['--start'], 16) if opts['--start'] else None
    c, calls, irqs = walk(funcs, insns, nxt, func, start, hexset(opts['--take']),
                          hexset(opts['--stop']), int(opts['--max']), verbose)
    print('%s: %s' % (func, ' '.join('%s=%d' % kv for kv in c.items())))
    if calls:
        print('  calls: %s' % ' '.join(calls))
    if irqs:
        print('  irq: %s' % ' '.join(irqs))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
