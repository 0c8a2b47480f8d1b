/*
 * workload — the table of workloads and the helpers of their parse; see
 * workload.h.
 */
#include "workloads/workload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/store.h"
#include "models/page_alloc.h"

#define WL_TABLE_ENTRY(name, NAME) &wl_##name##_ops,
const struct workload_ops *const workload_table[] = {WORKLOAD_TABLE(WL_TABLE_ENTRY)};
#undef WL_TABLE_ENTRY
const int workload_count = (int)(sizeof workload_table / sizeof workload_table[0]);

const struct workload_ops *workload_find(const char *name, int *index)
{
	for (int i = 0; i < workload_count; i++)
		if (!strcmp(workload_table[i]->name, name)) {
			if (index)
				*index = i;
			return workload_table[i];
		}
	return NULL;
}

void workload_names(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < workload_count && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					workload_table[i]->name);
}

const struct ytree *wl_tree(const struct wl_reader *r, const struct ynode *n)
{
	return r->tree_of(r->ctx, n);
}

int wl_err(const struct wl_reader *r, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_vset(r->d, NS_EINPUT, wl_tree(r, n)->name, n->line, n->col, fmt, ap);
	va_end(ap);
	return rc;
}

int wl_nomem(const struct wl_reader *r)
{
	return diag_set(r->d, NS_ENOMEM, r->file, 0, 0, "out of memory");
}

void *wl_result_alloc(const struct wl_run *r, size_t size, void **result)
{
	void *res = calloc(1, size);
	if (res)
		*result = res;
	else
		diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
	return res;
}

int wl_run_status(const struct wl_run *r, int rc, int stopped)
{
	if (rc == NS_OK && stopped)
		return WL_STOPPED;
	if (rc)
		return diag_set(r->d, rc, r->path, 0, 0, "%s, repetition %lld: %s", r->label,
				r->rep, r->d->msg[0] ? r->d->msg : ns_status_msg(rc));
	return NS_OK;
}

int wl_store_metrics(struct store *st, int64_t id, const struct wl_metric *rows, size_t n)
{
	int rc = NS_OK;
	for (size_t i = 0; rc == NS_OK && i < n; i++)
		rc = store_metric(st, id, rows[i].name, rows[i].v, rows[i].unit);
	return rc;
}

int wl_get_u32(const struct wl_reader *r, const struct ynode *n, const char *what,
	       long long min, long long max, uint32_t *out)
{
	return ytree_u32(wl_tree(r, n), n, what, min, max, out, r->d);
}

int wl_get_frac(const struct wl_reader *r, const struct ynode *n, const char *what,
		double min, double max, double *out)
{
	return ytree_number_in(wl_tree(r, n), n, what, min, max, out, r->d);
}

int wl_get_orders(const struct wl_reader *r, const struct ynode *n, int max_order,
		  unsigned *orders, int *nr_orders)
{
	int rc;
	long long v;
	if (n->kind == YNODE_SCALAR) {
		if ((rc = ytree_int(wl_tree(r, n), n, "order", 0, max_order - 1, &v, r->d)))
			return rc;
		orders[0] = (unsigned)v;
		*nr_orders = 1;
		return NS_OK;
	}
	if ((rc = ytree_expect_seq(wl_tree(r, n), n, "'orders'", r->d)))
		return rc;
	if (n->nr == 0)
		return wl_err(r, n, "'orders' must list at least one order");
	if (n->nr > (size_t)max_order)
		return wl_err(r, n, "'orders' lists %zu orders; there are only %d "
			      "(0..%d)", n->nr, max_order, max_order - 1);
	*nr_orders = 0;
	for (size_t i = 0; i < n->nr; i++) {
		if ((rc = ytree_int(wl_tree(r, n), n->items[i], "order", 0, max_order - 1,
				    &v, r->d)))
			return rc;
		for (int j = 0; j < *nr_orders; j++)
			if (orders[j] == (unsigned)v)
				return wl_err(r, n->items[i], "order %lld is listed twice", v);
		orders[(*nr_orders)++] = (unsigned)v;
	}
	return NS_OK;
}

int wl_get_gfp(const struct wl_reader *r, const struct ynode *n, const struct ynode *sec,
	       const char **text, uint32_t *gfp)
{
	int rc;
	if (n && (rc = ytree_string(wl_tree(r, n), n, "gfp", 1, text, r->d)))
		return rc;
	if (gfp_parse(*text, gfp) != NS_OK) {
		char q[128];
		ytree_quote(*text, strlen(*text), q, sizeof q);
		return wl_err(r, n ? n : sec, "unknown gfp mask '%s' "
			      "(write flags as the kernel does: GFP_KERNEL|__GFP_NOWARN)", q);
	}
	return NS_OK;
}

int wl_all_cpus(const struct wl_reader *r, struct wl_point *pt)
{
	const struct machine *m = pt->machine;
	int *cpus = calloc((size_t)(m->nr_cpus > 0 ? m->nr_cpus : 1), sizeof *cpus);
	if (!cpus)
		return wl_nomem(r);
	*pt->cpus = cpus;
	*pt->nr_cpus = 0;
	for (int c = 0; c <= m->max_cpu; c++)
		if (m->cpu_node[c] >= 0)
			cpus[(*pt->nr_cpus)++] = c;
	return NS_OK;
}

void wl_list_text(const unsigned *u, const uint32_t *b, int n, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? "," : "",
					u ? u[i] : b[i]);
}
