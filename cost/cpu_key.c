/*
 * cpu_key — calls behind a static key (cost/cpu.h, "Calls behind a
 * static key"): a change file's `call: CALLER -> CALLEE` or `function:
 * CALLEE` with `static-key: on|off` (scenarios/kchange.h), applied at the
 * call step.  It models what a patched kernel does at a call site it put
 * behind a static key: a key that is off makes the site a no-op (the
 * call, and everything the callee would have done on the CPU, is gone),
 * a key that is on makes it a jump to the call (one uop more).
 *
 * Bound at set-up: cpu_sys_init() and cpu_sys_set_layout() give the CPUs
 * the function bytes with CPU_FN_KEYED (s->fn_step) only when the layout
 * keys a call, so a run without keys takes no step of this file.
 *
 * Invariants: a CPU mutes (c->mlog_on == CPU_LOG_MUTE) only from
 * cpu_call_keyed(), with no memo logging or fast call under way, and
 * stops at the muted call's return (cpu_key_end()); s->fn_step[fn] is the
 * layout's fn_inline[fn] with CPU_FN_KEYED for every keyed callee.  Error
 * policy: set-up returns NS_ENOMEM, or NS_ERANGE for keys under sampled
 * accounting; the steps cannot fail.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "cost/charge.h"

int cpu_key_bind(struct cpu_sys *s, const struct cost_layout *l)
{
	free(s->fn_step);
	s->fn_step = NULL;
	if (!l->nr_keys)
		return NS_OK;
	if (s->acct == CPU_ACCOUNTING_SAMPLED || s->acct == CPU_ACCOUNTING_MEMO)
		return NS_ERANGE;      /* cpu_sys_init() ran memo as exact */
	if (!(s->fn_step = malloc((size_t)l->nr_fns + 1)))
		return NS_ENOMEM;
	memcpy(s->fn_step, l->fn_inline, (size_t)l->nr_fns);
	for (int i = 0; i < l->nr_keys; i++)
		s->fn_step[l->keys[i].callee] |= CPU_FN_KEYED;
	return NS_OK;
}

bool cpu_call_keyed(struct cpu *c, int fn)
{
	const struct cost_layout *l = c->sys->layout;
	struct cpu_frame *f = &c->stack[c->depth - 1];
	int caller = c->depth >= 2 ? c->stack[c->depth - 2].fn : -1;
	const struct cost_call_key *k = cost_layout_call_key(l, caller, fn);
	assert(!c->mlog_on && f->fn == fn);
	f->inl = l->fn_inline[fn];
	if (!k)
		return false;
	if (k->on) {
		/* the jump the patched key site is, in the caller's code */
		cpu_insns(c, 1);
		f->enter = c->now;
		return false;
	}
	/* off: the call is not made */
	struct cpu_prof *p = &c->prof[fn];
	c->depth--;
	p->active--;
	p->calls--;
	c->mlog_on = CPU_LOG_MUTE;
	c->mdepth = 1;
	return true;
}

void cpu_key_end(struct cpu *c)
{
	assert(c->mlog_on == CPU_LOG_MUTE && c->mdepth == 0);
	c->mlog_on = 0;
	for (int i = 0; i < c->sys->nr_memos; i++)
		c->sys->memos[i][c->idx].last_line = UINT64_MAX;
}

int cpu_sys_add_memo(struct cpu_sys *s, struct charge_memo *memo)
{
	if (s->nr_memos == CPU_SYS_MAX_MEMOS)
		return NS_ENOMEM;
	s->memos[s->nr_memos++] = memo;
	return NS_OK;
}

void cpu_sys_remove_memo(struct cpu_sys *s, const struct charge_memo *memo)
{
	for (int i = 0; i < s->nr_memos; i++)
		if (s->memos[i] == memo) {
			memmove(&s->memos[i], &s->memos[i + 1],
				(size_t)(s->nr_memos - i - 1) * sizeof s->memos[0]);
			s->nr_memos--;
			return;
		}
}
