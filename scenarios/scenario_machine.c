/*
 * scenario_machine — a point's machine: the machine file resolved against
 * the scenario, its `overrides:` written into its text, loaded once per
 * distinct (file, override values) (scenario.c's design notes).
 */
#include "scenarios/scenario.h"
#include "scenarios/scenario_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cost/cpu.h"
#include "machine/cpulist.h"
#include "machine/datafile.h"
#include "base/ytree.h"
#include "models/zonelist.h"


/* ---- machine ------------------------------------------------------------- */

/* dir(scenario path) + "/" + ref, unless ref is absolute or the scenario
 * came from standard input. */
char *scn_resolve_path(const char *scenario_path, const char *ref)
{
	const char *slash = strrchr(scenario_path, '/');
	if (ref[0] == '/' || !strcmp(scenario_path, "-") || !slash)
		return strdup(ref);
	size_t dl = (size_t)(slash - scenario_path) + 1, rl = strlen(ref);
	char *p = malloc(dl + rl + 1);
	if (!p)
		return NULL;
	memcpy(p, scenario_path, dl);
	memcpy(p + dl, ref, rl + 1);
	return p;
}

/*
 * A machine path that does not exist (a bare name "rome-nps4", a
 * scenario's "../configs/x.yaml" read from standard input or copied
 * elsewhere) is looked up among the shipped machines (machine/datafile.h);
 * found nowhere, *path stays, for the loader's "cannot open".
 */
static int find_shipped(char **path, const char *ref)
{
	struct stat st;
	char *found;
	struct diag quiet;
	if (stat(*path, &st) == 0)
		return NS_OK;
	diag_init(&quiet);
	int rc = datafile_resolve(DATAFILE_MACHINE, ref, &found, &quiet);
	if (rc == NS_ENOENT)
		return NS_OK;
	if (rc)
		return rc;
	free(*path);
	*path = found;
	return NS_OK;
}

/* Byte offset of 1-based line:col in buf (columns count UTF-8 characters,
 * as libyaml's marks do). */
static size_t pos_offset(const char *buf, size_t len, int line, int col)
{
	size_t off = 0;
	for (int ln = 1; ln < line && off < len; off++)
		if (buf[off] == '\n')
			ln++;
	for (int c = 1; c < col && off < len; c++) {
		off++;
		while (off < len && ((unsigned char)buf[off] & 0xc0) == 0x80)
			off++;
	}
	return off;
}

/* An override value as YAML text: plain when it is a plain token, else
 * double-quoted. */
static int yaml_value(const struct ynode *v, char *buf, size_t len)
{
	int plain = v->style == YSTYLE_PLAIN && v->len > 0;
	for (size_t i = 0; plain && i < v->len; i++) {
		char c = v->str[i];
		plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || strchr("._+-/", c);
	}
	if (plain)
		return snprintf(buf, len, "%s", v->str) < (int)len ? 0 : -1;
	size_t o = 0;
	buf[o++] = '"';
	for (size_t i = 0; i < v->len; i++) {
		unsigned char c = (unsigned char)v->str[i];
		if (o + 6 >= len)
			return -1;
		if (c == '"' || c == '\\')
			buf[o++] = '\\';
		if (c < 0x20) {
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
			continue;
		}
		buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return 0;
}

struct splice {
	size_t from, to;                /* byte range of the target scalar */
	int line;                       /* its line in the machine file */
	char text[256];
	const struct ynode *val;        /* the override value */
	const char *path;               /* dotted path in the machine file */
};

static int cmp_splice(const void *a, const void *b)
{
	const struct splice *x = a, *y = b;
	return x->from < y->from ? 1 : x->from > y->from ? -1 : 0;
}

/* Find the scalar at dotted path in the machine tree; a mapping with a
 * `value` key (a cost figure) stands for its value. */
static int find_target(struct loader *l, const struct ytree *mt, const char *path,
		       const struct ynode *at, const struct ynode **out)
{
	const struct ynode *n = mt->root;
	char seg[128];
	const char *p = path;

	while (*p) {
		size_t sl = strcspn(p, ".");
		if (sl == 0 || sl >= sizeof seg)
			return scn_err(l, at, "machine override '%s': empty or too long "
				   "path segment", path);
		memcpy(seg, p, sl);
		seg[sl] = '\0';
		p += sl + (p[sl] == '.');
		if (n->kind == YNODE_MAP) {
			n = ynode_map_get(n, seg);
		} else if (n->kind == YNODE_SEQ && ytree_is_int_text(seg, sl)) {
			long long i = atoll(seg);
			n = i >= 0 && (size_t)i < n->nr ? n->items[i] : NULL;
		} else {
			n = NULL;
		}
		if (!n)
			return scn_err(l, at, "machine override '%s': machine file '%s' has "
				   "no value at '%.*s' (list items are numbered from 0)",
				   path, mt->name, (int)(p - path - (*p ? 1 : 0)), path);
	}
	if (n->kind == YNODE_MAP && ynode_map_get(n, "value"))
		n = ynode_map_get(n, "value");
	if (n->kind != YNODE_SCALAR)
		return scn_err(l, at, "machine override '%s': the machine file's value "
			   "there is a %s; overrides replace single values", path,
			   n->kind == YNODE_MAP ? "mapping" : "list");
	if (n->style == YSTYLE_BLOCK)
		return scn_err(l, at, "machine override '%s': cannot replace a block "
			   "scalar", path);
	*out = n;
	return NS_OK;
}

/* Write the overrides into text (a new malloc'ed buffer in *out). */
static int apply_overrides(struct loader *l, const char *path, const char *text,
			   size_t len, struct splice *sp, int nsp, char **out,
			   size_t *out_len)
{
	struct ytree *mt = NULL;
	int rc = ytree_parse(path, text, len, &mt, l->d);
	if (rc)
		return rc;
	for (int i = 0; i < nsp && rc == NS_OK; i++) {
		const struct ynode *tn = NULL;
		const struct ynode *at = sp[i].val;
		if ((rc = find_target(l, mt, sp[i].path, at, &tn)))
			break;
		sp[i].from = pos_offset(text, len, tn->line, tn->col);
		sp[i].to = pos_offset(text, len, tn->end_line, tn->end_col);
		sp[i].line = tn->line;
		if (sp[i].val->kind != YNODE_SCALAR || ynode_is_null(sp[i].val))
			rc = scn_err(l, at, "machine override '%s' needs a single value",
				 sp[i].path);
		else if (yaml_value(sp[i].val, sp[i].text, sizeof sp[i].text))
			rc = scn_err(l, at, "machine override '%s': value too long", sp[i].path);
	}
	ytree_free(mt);
	if (rc)
		return rc;
	qsort(sp, (size_t)nsp, sizeof *sp, cmp_splice);
	for (int i = 0; i + 1 < nsp; i++)
		if (sp[i + 1].to > sp[i].from)
			return scn_err(l, sp[i].val, "machine overrides '%s' and '%s' change "
				   "the same value", sp[i].path, sp[i + 1].path);
	size_t cap = len + 1;
	for (int i = 0; i < nsp; i++)
		cap += strlen(sp[i].text);
	char *buf = malloc(cap);
	if (!buf)
		return scn_nomem(l);
	memcpy(buf, text, len + 1);
	size_t cur = len;
	for (int i = 0; i < nsp; i++) {     /* descending offsets */
		size_t tl = strlen(sp[i].text), tail = cur - sp[i].to;
		memmove(buf + sp[i].from + tl, buf + sp[i].to, tail + 1);
		memcpy(buf + sp[i].from, sp[i].text, tl);
		cur = sp[i].from + tl + tail;
	}
	*out = buf;
	*out_len = cur;
	return NS_OK;
}

/* Load a memo entry's machine; an error on a line an override wrote is
 * reported at the override's value. */
static int load_memo_machine(struct loader *l, struct scn_machine *mm,
			     const struct splice *sp, int nsp)
{
	struct diag md;
	uint8_t dig[SHA256_DIGEST_LEN];
	int rc;

	diag_init(&md);
	rc = machine_load_buf(mm->path, mm->text, mm->text_len, &mm->machine, &md);
	if (rc == NS_OK)
		rc = machine_check(mm->machine, &md);
	if (rc) {
		for (int i = 0; i < nsp; i++)
			if (md.line == sp[i].line)
				return scn_err(l, sp[i].val, "machine override '%s': %s",
					   sp[i].path, md.msg);
		*l->d = md;
		return rc;
	}
	sha256(mm->text, mm->text_len, dig);
	sha256_hex(dig, mm->sha256);
	return NS_OK;
}

/* The point's machine: from the memo, or read, overridden and loaded. */
int scn_get_machine(struct loader *l, const struct ynode *n)
{
	struct scenario *s = l->s;
	struct splice sp[SCN_MAX_OVERRIDES];
	char *ref = NULL, *path = NULL, *key = NULL, vt[256];
	size_t klen = 0;
	FILE *kf = NULL;
	int nsp = 0, rc;

	if ((rc = scn_get_text(l, n, "machine", 1, &ref)))
		return rc;
	path = scn_is_cli(l, n) ? strdup(ref) : scn_resolve_path(s->path, ref);
	if (path && find_shipped(&path, ref) != NS_OK) {
		rc = scn_nomem(l);
		goto out;
	}
	kf = path ? open_memstream(&key, &klen) : NULL;
	if (!kf) {
		rc = scn_nomem(l);
		goto out;
	}
	fprintf(kf, "%s", path);
	for (int i = 0; i < l->nr_set; i++) {
		struct setting *st = &l->set[i];
		if (strncmp(st->key, "overrides.", 10))
			continue;
		if (nsp == SCN_MAX_OVERRIDES) {
			rc = scn_err(l, st->at, "more than %d machine overrides",
				 SCN_MAX_OVERRIDES);
			goto out;
		}
		memset(&sp[nsp], 0, sizeof sp[nsp]);
		sp[nsp].path = st->key + 10;
		sp[nsp].val = scn_lookup(l, st->key);
		scn_node_text(sp[nsp].val, vt, sizeof vt);
		fprintf(kf, "\n%s=%s", sp[nsp].path, vt);
		nsp++;
	}
	if (fclose(kf)) {
		kf = NULL;
		rc = scn_nomem(l);
		goto out;
	}
	kf = NULL;
	for (int i = 0; i < s->nr_machines; i++)
		if (!strcmp(s->machines[i].key, key)) {
			l->pt->mach = &s->machines[i];
			goto out;
		}
	struct scn_machine *mm = &s->machines[s->nr_machines];
	char *raw = NULL;
	size_t raw_len = 0;
	struct diag rd;
	diag_init(&rd);
	rc = ytree_read_file(path, &raw, &raw_len, &rd);
	if (rc == NS_ENOMEM) {
		rc = scn_nomem(l);
		goto out;
	}
	if (rc) {
		rc = scn_err(l, n, "cannot read machine file '%s': %s", path,
			 rd.msg[0] ? rd.msg : ns_status_msg(rc));
		goto out;
	}
	if (nsp) {
		rc = apply_overrides(l, path, raw, raw_len, sp, nsp, &mm->text,
				     &mm->text_len);
		free(raw);
		if (rc)
			goto out;
	} else {
		mm->text = raw;
		mm->text_len = raw_len;
	}
	mm->ref = ref;
	mm->path = path;
	mm->key = key;
	ref = path = key = NULL;
	s->nr_machines++;
	l->pt->mach = mm;
	rc = load_memo_machine(l, mm, sp, nsp);
out:
	if (kf)
		fclose(kf);
	free(ref);
	free(path);
	free(key);
	return rc;
}

