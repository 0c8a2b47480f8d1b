/*
 * cpu_mem — memory accesses charged through the caches (cost/cache.h):
 * a line's cost by where it came from, the charge of an access, the slow
 * and fast-copy paths of cpu_mem(), blocks (cpu_block_init(),
 * cpu_block_miss()) and locked operations (cpu_atomic()).
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/* Cost of a line served from src (from: the holder of a transfer). */
uint32_t line_cost(struct cpu *c, enum cache_src src, int from, int home_pos)
{
	struct cpu_sys *s = c->sys;
	uint64_t *k = c->ctr;
	k[CPU_CTR_mem_accesses]++;
	if (src == CACHE_SRC_L1) {
		k[CPU_CTR_l1d_hit]++;
		return s->k.l1d;
	}
	k[CPU_CTR_l1d_miss]++;
	if (src == CACHE_SRC_L2) {
		k[CPU_CTR_l2_hit]++;
		return s->k.l2;
	}
	k[CPU_CTR_l2_miss]++;
	if (src == CACHE_SRC_LLC) {
		k[CPU_CTR_llc_hit]++;
		return s->k.llc;
	}
	k[CPU_CTR_llc_miss]++;
	if (src == CACHE_SRC_XFER) {
		k[CPU_CTR_line_transfer]++;
		return s->xfer_lat[c->node_pos * s->nr_nodes + s->cpu[from].node_pos];
	}
	k[home_pos == c->node_pos ? CPU_CTR_mem_local : CPU_CTR_mem_remote]++;
	return s->mem_lat[c->node_pos * s->nr_nodes + home_pos];
}

/* Cost of one line and the counters it moves. */
static uint32_t mem_line(struct cpu *c, uint64_t line, int home_pos, bool write,
			 enum cache_src *srcp)
{
	int from = -1;
	*srcp = cache_access(&c->sys->cache, c->idx, line, write, &from);
	return line_cost(c, *srcp, from, home_pos);
}

static int home_pos(const struct cpu *c, int node)
{
	const struct machine *m = c->sys->m;
	assert(node >= 0 && node < MACHINE_MAX_NODES && m->node_index[node] >= 0);
	if (node < 0 || node >= MACHINE_MAX_NODES || m->node_index[node] < 0)
		return c->node_pos;
	return m->node_index[node];
}

_Static_assert(CPU_CTR_mem_load + 0 == CPU_CTR_mem_load_dep + (int)CPU_LOAD &&
		       CPU_CTR_mem_store + 0 == CPU_CTR_mem_load_dep + (int)CPU_STORE &&
		       CPU_CTR_mem_store_bulk + 0 == CPU_CTR_mem_load_dep + (int)CPU_STORE_BULK,
	       "per-kind counters follow enum cpu_access");

/* The charge of an access whose slowest line came from worst (cpu.h). */
uint32_t mem_charge(struct cpu *c, enum cpu_access kind, bool all_l1, uint32_t worst)
{
	if (c->ooo) {
		uint32_t moved = cpu_ooo_mem(c, kind, worst, !all_l1);
		cpu_charge_to(c, CPU_CHARGE_mem);
		return moved;
	}
	/* the out-of-order rule (cpu.h): only dependent loads wait for an L1
	 * hit, no load (nor bulk store) hides a miss, stores never stall */
	uint32_t cost = kind == CPU_STORE || (all_l1 && kind != CPU_LOAD_DEP)
				? c->k_mem_slot : worst;
	c->now += cost;
	c->ctr[CPU_CTR_mem_stall_cycles] += cost;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]++;
	cpu_charge_to(c, CPU_CHARGE_mem);
	return cost;
}

/* One line's access as the log keeps it (performed at log time): where
 * the line came from, the holder of a transfer (-1: none) and the home
 * node's position; the replay charges it with line_cost(). */
static uint64_t line_event(enum cpu_event ev, enum cache_src src, int from, int hp)
{
	return CPU_EV(ev, (uint64_t)src | (uint64_t)(from + 1) << 3 | (uint64_t)hp << 24);
}

void cpu_fast_line(struct cpu *c, uint64_t line, bool write)
{
	int from = -1;
	cache_access_slow(&c->sys->cache, c->idx, line, write, &from);
}

void cpu_fast_lines(struct cpu *c, uint64_t line, uint64_t last, bool write)
{
	const struct cache_sys *cs = &c->sys->cache;
	do {
		if (!cache_l1_fast(cs, c->idx, line, write))
			cpu_fast_line(c, line, write);
	} while (++line <= last);
}

uint32_t cpu_mem_line_slow(struct cpu *c, uint64_t line, int node, enum cpu_access kind)
{
	int from = -1;
	if (c->mlog_on == CPU_LOG_FAST) {
		if (cpu_fast_warms(c, kind))
			cpu_fast_line(c, line, kind >= CPU_STORE);
		return 0;
	}
	if (c->mlog_on == CPU_LOG_MUTE)
		return 0;              /* a call behind a key that is off */
	if (c->mlog_on) {
		if (c->mlog_n + 2 <= CPU_MEMO_LOG) {
			enum cache_src src = cache_access_slow(&c->sys->cache, c->idx, line,
							       kind >= CPU_STORE, &from);
			if (src == CACHE_SRC_L1) {
				/* charged as cpu_mem_l1_again() charges: one path */
				c->mlog[c->mlog_n++] = CPU_EV(CPU_EV_MEM, kind);
				return 0;
			}
			c->mlog[c->mlog_n++] = line_event(CPU_EV_LINE, src, from, home_pos(c, node));
			c->mlog[c->mlog_n++] = CPU_EV(CPU_EV_CHARGE, kind);
			return 0;
		}
		cpu_memo_break(c);
	}
	enum cache_src src = cache_access_slow(&c->sys->cache, c->idx, line,
					       kind >= CPU_STORE, &from);
	uint32_t lat = line_cost(c, src, from, home_pos(c, node));
	return mem_charge(c, kind, src == CACHE_SRC_L1, lat);
}

/* Log an access to lines first..last, performing them.  False (logging
 * over) when the log cannot take them. */
static bool memo_lines(struct cpu *c, uint64_t first, uint64_t last, int hp,
		       enum cpu_access kind)
{
	if (c->mlog_on == CPU_LOG_MUTE)
		return true;           /* a call behind a key that is off */
	if (c->mlog_on == CPU_LOG_FAST) {
		for (uint64_t line = first; cpu_fast_warms(c, kind) && line <= last; line++) {
			int from = -1;
			cache_access(&c->sys->cache, c->idx, line, kind >= CPU_STORE, &from);
		}
		return true;
	}
	if (last - first + 2 > CPU_MEMO_LOG - c->mlog_n) {
		cpu_memo_break(c);
		return false;
	}
	for (uint64_t line = first; line <= last; line++) {
		int from = -1;
		enum cache_src src = cache_access(&c->sys->cache, c->idx, line, kind >= CPU_STORE,
						  &from);
		c->mlog[c->mlog_n++] = line_event(CPU_EV_LINE, src, from, hp);
	}
	c->mlog[c->mlog_n++] = CPU_EV(CPU_EV_CHARGE, kind);
	return true;
}

uint32_t cpu_mem_slow(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
		      enum cpu_access kind)
{
	int shift = c->sys->cache.line_shift;
	int hp = home_pos(c, node);
	uint64_t first = addr >> shift;
	uint64_t last = (addr + (bytes ? bytes - 1 : 0)) >> shift;
	bool write = kind >= CPU_STORE;
	uint32_t worst = 0;
	bool all_l1 = true;
	enum cache_src src;
	if (c->mlog_on && memo_lines(c, first, last, hp, kind))
		return 0;
	for (uint64_t line = first; line <= last; line++) {
		uint32_t lat = mem_line(c, line, hp, write, &src);
		all_l1 &= src == CACHE_SRC_L1;
		if (lat > worst)
			worst = lat;
	}
	return mem_charge(c, kind, all_l1, worst);
}

/* --- blocks (cpu.h, "Blocks") -------------------------------------------- */

int cpu_block_init(struct cpu_block *b, uint32_t uops, const char *kinds, int32_t exit,
		   const struct cpu_costs *k)
{
	memset(b, 0, sizeof *b);
	b->unit = -1;
	b->uops = uops;
	b->work = (uops + CPU_INORDER_IPC - 1) / CPU_INORDER_IPC;  /* cpu_insns() */
	b->exit = exit;
	size_t n = strlen(kinds);
	if (n > CPU_BLOCK_MAX_ACCESSES || exit < -1)
		return NS_EINTERNAL;
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr("DLSB", kinds[i]);
		if (!at || !*at)
			return NS_EINTERNAL;
		enum cpu_access kind = (enum cpu_access)(at - "DLSB");
		/* an L1 hit of the kind, as cpu_mem_l1_again() charges it */
		b->stall += kind == CPU_LOAD_DEP ? k->l1d : k->mem_slot;
		b->kinds |= (uint32_t)kind << (2 * i);
		b->nkind[kind]++;
	}
	b->nacc = (uint8_t)n;
	return NS_OK;
}

int cpu_block_edit(struct cpu_block *b, int32_t uops, const char *add)
{
	int64_t u = (int64_t)b->uops + uops;
	size_t n = strlen(add);
	if (b->nextra + n > CPU_BLOCK_MAX_EXTRA)
		return NS_EINPUT;
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr("DLS", add[i]);
		if (!at || !*at)
			return NS_EINPUT;
		b->extra |= (uint16_t)((unsigned)(at - "DLS") << (2 * b->nextra));
		b->nextra++;
	}
	b->uops = u < 0 ? 0 : u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
	b->work = (b->uops + CPU_INORDER_IPC - 1) / CPU_INORDER_IPC;  /* cpu_insns() */
	return NS_OK;
}

int cpu_blocks_change(struct cpu_block *blocks, const char *const *names, int n,
		      const struct cpu_block_change *ch, int nch)
{
	for (int i = 0; i < nch; i++)
		for (int b = 0; b < n; b++)
			if (!strcmp(names[b], ch[i].block)) {
				int rc = cpu_block_edit(&blocks[b], ch[i].uops, ch[i].add);
				if (rc != NS_OK)
					return rc;
			}
	return NS_OK;
}

void cpu_block_extra(struct cpu *c, const struct cpu_block *b)
{
	for (unsigned i = 0; i < b->nextra; i++)
		cpu_mem_l1_again(c, (enum cpu_access)((b->extra >> (2 * i)) & 3));
}

int cpu_blocks_init(struct cpu_block *out, const struct cpu_block_def *defs, int n,
		    const uint32_t *work, int site_base, const struct cpu_costs *k)
{
	for (int b = 0; b < n; b++) {
		int32_t exit = defs[b].exit < 0 ? -1 : site_base + defs[b].exit;
		int rc = cpu_block_init(&out[b], work[defs[b].row], defs[b].kinds, exit, k);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

void cpu_blocks_units(struct cpu_block *out, int n, int unit_base)
{
	for (int b = 0; b < n; b++)
		out[b].unit = unit_base < 0 ? -1 : unit_base + b;
}

uint32_t cpu_block_miss(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
			enum cpu_access kind)
{
	/* the precharge (cpu_block()) of this access, taken back */
	uint32_t hit = kind == CPU_LOAD_DEP ? c->k_l1d : c->k_mem_slot;
	c->now -= hit;
	c->ctr[CPU_CTR_mem_accesses]--;
	c->ctr[CPU_CTR_l1d_hit]--;
	c->ctr[CPU_CTR_mem_stall_cycles] -= hit;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]--;
	int shift = c->sys->cache.line_shift;
	uint64_t line = addr >> shift;
	if (((addr + (bytes ? bytes - 1 : 0)) >> shift) != line)
		return cpu_mem_slow(c, addr, bytes, node, kind);
	return cpu_mem_line_slow(c, line, node, kind);
}

/* The charge of a locked op whose line came from src at lat. */
static uint32_t atomic_charge(struct cpu *c, enum cache_src src, uint32_t lat)
{
	uint32_t cost = c->sys->k.atomic;
	if (src != CACHE_SRC_L1) {
		cost += lat;
		c->ctr[CPU_CTR_mem_stall_cycles] += lat;
	}
	c->ctr[CPU_CTR_atomic]++;
	c->now += cost;
	cpu_charge_to(c, CPU_CHARGE_lock);
	return cost;
}

uint32_t cpu_atomic(struct cpu *c, uint64_t addr, int node)
{
	uint64_t line = addr >> c->sys->cache.line_shift;
	if (c->mlog_on == CPU_LOG_MUTE)
		return 0;              /* a call behind a key that is off */
	if (c->mlog_on == CPU_LOG_FAST) {
		int from = -1;
		if (c->fwarm)
			cache_access(&c->sys->cache, c->idx, line, true, &from);
		return 0;
	}
	if (c->mlog_on) {
		if (c->mlog_n < CPU_MEMO_LOG) {
			int from = -1;
			enum cache_src src = cache_access(&c->sys->cache, c->idx, line, true, &from);
			c->mlog[c->mlog_n++] = line_event(CPU_EV_ATOMIC, src, from, home_pos(c, node));
			return 0;
		}
		cpu_memo_break(c);
	}
	if (c->ooo)
		ooo_fence(c);
	enum cache_src src;
	uint32_t lat = mem_line(c, line, home_pos(c, node), true, &src);
	return atomic_charge(c, src, lat);
}

/* A logged locked op (its access was performed at log time). */
void atomic_logged(struct cpu *c, enum cache_src src, int from, int hp)
{
	if (c->ooo)
		ooo_fence(c);
	atomic_charge(c, src, line_cost(c, src, from, hp));
}
