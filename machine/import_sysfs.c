/*
 * import_sysfs — the topology from a sysfs/procfs tree (the live system
 * or a copy of one: /sys/devices/system/node, node meminfo and distance,
 * /proc/zoneinfo, /proc/cpuinfo); see machine/import.h.
 */
#include "machine/import_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/diag.h"
#include "machine/cpulist.h"
#include "machine/datafile.h"
#include "machine/machine.h"

/* ------------------------------------------------------------------ */
/* sysfs / procfs                                                      */

struct sf_reader {
	const char *root;
	struct machine_desc *m;
	struct diag *d;
	char path[4096];
};

static const char *sf_path(struct sf_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *sf_path(struct sf_reader *r, const char *fmt, ...)
{
	size_t n = strlen(r->root);
	while (n > 1 && r->root[n - 1] == '/')
		n--;
	int k = snprintf(r->path, sizeof r->path, "%.*s",
			 (int)(n == 1 && r->root[0] == '/' ? 0 : n), r->root);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->path + k, sizeof r->path - (size_t)k, fmt, ap);
	va_end(ap);
	return r->path;
}

/* A cpulist-format file: node/online or nodeN/cpulist. */
static int sf_cpulist(struct sf_reader *r, const char *path, int max,
		      int **out, int *nr)
{
	char *buf;
	size_t len;
	int rc = read_file(path, IMPORT_MAX_PROFILE, &buf, &len, r->d);
	if (rc)
		return rc;
	size_t errpos;
	char msg[128];
	rc = cpulist_parse(buf, max, 0, out, nr, &errpos, msg, sizeof msg);
	if (rc == NS_EINPUT) {
		int line = 1, col = 1;
		for (size_t i = 0; i < errpos && buf[i]; i++, col++)
			if (buf[i] == '\n') {
				line++;
				col = 0;
			}
		rc = diag_set(r->d, NS_EINPUT, path, line, col, "%s", msg);
	}
	free(buf);
	return rc;
}

/* nodeN/distance: one line of nr_nodes numbers, in online-node order. */
static int sf_distance(struct sf_reader *r, int row)
{
	int nn = r->m->nr_nodes, id = r->m->nodes[row].id;
	const char *path = sf_path(r, "/sys/devices/system/node/node%d/distance", id);
	char *buf;
	size_t len;
	int rc = read_file(path, IMPORT_MAX_PROFILE, &buf, &len, r->d);
	if (rc)
		return rc;
	const char *q = buf;
	int j;
	for (j = 0;; j++) {
		const char *tok = q;
		while (*tok == ' ' || *tok == '\t')
			tok++;
		int col = (int)(tok - buf) + 1;
		if (!*tok || *tok == '\n') {
			if (j < nn)
				rc = diag_set(r->d, NS_EINPUT, path, 1, col, "%d distances "
					      "for %d online nodes", j, nn);
			else if (*tok == '\n' && tok[1])
				rc = diag_set(r->d, NS_EINPUT, path, 2, 1,
					      "unexpected second line");
			break;
		}
		uint64_t v;
		if (j >= nn) {
			rc = diag_set(r->d, NS_EINPUT, path, 1, col, "more than %d "
				      "distances for %d online nodes", nn, nn);
			break;
		}
		if (!(q = parse_u64(tok, 1000000, &v)) ||
		    (*q && *q != ' ' && *q != '\t' && *q != '\n')) {
			rc = diag_set(r->d, NS_EINPUT, path, 1, col,
				      "expected a distance (a whole number)");
			break;
		}
		if ((j == row && v != MACHINE_DISTANCE_LOCAL) ||
		    v < MACHINE_DISTANCE_LOCAL || v > MACHINE_DISTANCE_UNREACHABLE) {
			rc = diag_set(r->d, NS_EINPUT, path, 1, col, j == row ?
				      "local distance must be 10, not %llu" :
				      "distance %llu out of range 10..255",
				      (unsigned long long)v);
			break;
		}
		r->m->distance[row * nn + j] = (int)v;
	}
	free(buf);
	return rc;
}

/* nodeN/meminfo: "Node N MemTotal:   K kB" gives the node total,
 * "Node N MemFree:   K kB" (optional) the node's `free:` key. */
static int sf_meminfo(struct sf_reader *r, int pos)
{
	struct desc_node *n = &r->m->nodes[pos];
	const char *path = sf_path(r, "/sys/devices/system/node/node%d/meminfo",
				   n->id);
	char *buf;
	size_t len;
	int rc = read_file(path, IMPORT_MAX_PROFILE, &buf, &len, r->d);
	if (rc)
		return rc;
	int line = 1, found = 0, found_free = 0;
	for (char *s = buf; *s && rc == NS_OK && !(found && found_free); line++) {
		char *e = strchr(s, '\n');
		if (e)
			*e = '\0';
		int nid, off = 0, is_free = 0;
		if ((sscanf(s, "Node %d MemTotal:%n", &nid, &off) == 1 && off > 0) ||
		    (is_free = sscanf(s, "Node %d MemFree:%n", &nid, &off) == 1 && off > 0)) {
			const char *t = skip_ws(s + off), *q;
			uint64_t kb;
			if (nid != n->id)
				rc = diag_set(r->d, NS_EINPUT, path, line, 6, "meminfo "
					      "of node %d is about node %d", n->id, nid);
			else if (!(q = parse_u64(t, (uint64_t)1 << 54, &kb)) ||
				 strcmp(skip_ws(q), "kB"))
				rc = diag_set(r->d, NS_EINPUT, path, line,
					      (int)(t - s) + 1, "expected 'K kB'");
			else if (is_free) {
				n->has_free = 1;
				n->free_pages = kb * 1024 / r->m->page_size;
				found_free = 1;
			} else {
				n->mem_pages = kb * 1024 / r->m->page_size;
				found = 1;
			}
		}
		s = e ? e + 1 : s + strlen(s);
	}
	if (!found && rc == NS_OK)
		rc = diag_set(r->d, NS_EINPUT, path, 0, 0, "no 'Node %d MemTotal:' "
			      "line", n->id);
	if (rc == NS_OK && n->has_free && n->free_pages > n->mem_pages)
		rc = diag_set(r->d, NS_EINPUT, path, 0, 0, "node %d: MemFree is more "
			      "than MemTotal", n->id);
	free(buf);
	return rc;
}

/*
 * proc/zoneinfo: "Node N, zone NAME" starts a zone; its "present P" line
 * gives the size.  Returns NS_ENOENT (without a message) if absent.
 */
static int sf_zoneinfo(struct sf_reader *r)
{
	const char *path = sf_path(r, "/proc/zoneinfo");
	char *buf;
	size_t len;
	struct diag quiet;
	diag_init(&quiet);
	int rc = read_file(path, IMPORT_MAX_INPUT, &buf, &len, &quiet);
	if (rc == NS_ENOENT)
		return rc;
	if (rc)
		return diag_set(r->d, rc, quiet.file, 0, 0, "%s", quiet.msg);
	int line = 1, pos = -1, type = -1, zone_line = 0;
	for (char *s = buf; *s && rc == NS_OK; line++) {
		char *e = strchr(s, '\n');
		if (e)
			*e = '\0';
		int nid, off = 0;
		char zname[32];
		const char *t = skip_ws(s);
		if (sscanf(s, "Node %d, zone %31s%n", &nid, zname, &off) == 2 &&
		    off > 0) {
			pos = node_pos(r->m, nid);
			zone_line = line;
			if (pos < 0) {
				rc = diag_set(r->d, NS_EINPUT, path, line, 6, "zone of "
					      "node %d, which is not online", nid);
				break;
			}
			type = zone_type_parse(zname);
			if (type < 0 && strcmp(zname, "Device"))
				rc = diag_set(r->d, NS_EINPUT, path, line,
					      (int)(strstr(s, zname) - s) + 1,
					      "unknown zone type '%s'", zname);
		} else if (!strncmp(t, "present", 7) &&
			   (t[7] == ' ' || t[7] == '\t') && pos >= 0 && type >= 0) {
			const char *v = skip_ws(t + 7), *q;
			uint64_t pages;
			if (!(q = parse_u64(v, (uint64_t)1 << 52, &pages)) || *skip_ws(q)) {
				rc = diag_set(r->d, NS_EINPUT, path, line,
					      (int)(v - s) + 1, "expected a page count "
					      "after 'present'");
				break;
			}
			struct desc_node *n = &r->m->nodes[pos];
			for (int z = 0; z < n->nr_zones; z++)
				if (n->zones[z].type == (enum zone_type)type) {
					rc = diag_set(r->d, NS_EINPUT, path, zone_line, 1,
						      "second zone %s for node %d",
						      zone_type_name((enum zone_type)type),
						      n->id);
					break;
				}
			if (rc == NS_OK && pages) {
				if (n->nr_zones &&
				    n->zones[n->nr_zones - 1].type > (enum zone_type)type)
					rc = diag_set(r->d, NS_EINPUT, path, zone_line, 1,
						      "zones of node %d out of order",
						      n->id);
				else
					n->zones[n->nr_zones++] = (struct desc_zone){
						(enum zone_type)type, pages};
			}
			type = -1;      /* one present line per zone */
		}
		s = e ? e + 1 : s + strlen(s);
	}
	free(buf);
	return rc;
}

int import_parse_sysfs(const char *root, enum import_arch arch,
		       struct machine_desc *out, struct diag *d)
{
	struct sf_reader r = {.root = root, .m = out, .d = d};
	int *ids = NULL, nr = 0, rc;
	rc = sf_cpulist(&r, sf_path(&r, "/sys/devices/system/node/online"),
			MACHINE_MAX_NODES, &ids, &nr);
	if (rc)
		goto out;
	if (!nr) {
		rc = diag_set(d, NS_EINPUT, r.path, 1, 1, "no online NUMA nodes");
		goto out;
	}
	for (int i = 0; i < nr && rc == NS_OK; i++)
		rc = add_node(out, ids[i]);
	if (rc || (rc = nl_alloc_distance(out)))
		goto out;
	int *owner = malloc(MACHINE_MAX_CPUS * sizeof *owner);
	if (!owner) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (int c = 0; c < MACHINE_MAX_CPUS; c++)
		owner[c] = -1;
	for (int i = 0; i < nr && rc == NS_OK; i++) {
		struct desc_node *n = &out->nodes[i];
		const char *path = sf_path(&r, "/sys/devices/system/node/node%d/cpulist",
					   n->id);
		rc = sf_cpulist(&r, path, MACHINE_MAX_CPUS, &n->cpus, &n->nr_cpus);
		for (int c = 0; rc == NS_OK && c < n->nr_cpus; c++) {
			if (owner[n->cpus[c]] >= 0)
				rc = diag_set(d, NS_EINPUT, path, 1, 1, "CPU %d is also "
					      "in node %d", n->cpus[c], owner[n->cpus[c]]);
			owner[n->cpus[c]] = n->id;
		}
		if (rc == NS_OK)
			rc = sf_distance(&r, i);
		if (rc == NS_OK)
			rc = sf_meminfo(&r, i);
	}
	free(owner);
	if (rc)
		goto out;
	rc = sf_zoneinfo(&r);
	if (rc == NS_ENOENT) {
		import_layout_zones(out, arch);
		rc = NS_OK;
		goto out;
	}
	/* zoneinfo present pages >= MemTotal (managed); a smaller sum means
	 * the two files come from different boots or boxes. */
	for (int i = 0; i < nr && rc == NS_OK; i++) {
		struct desc_node *n = &out->nodes[i];
		uint64_t sum = 0;
		for (int z = 0; z < n->nr_zones; z++)
			sum += n->zones[z].pages;
		if (sum < n->mem_pages)
			rc = diag_set(d, NS_EINPUT, sf_path(&r, "/proc/zoneinfo"), 0, 0,
				      "node %d: zones have %llu present pages but "
				      "node%d/meminfo MemTotal is %llu pages",
				      n->id, (unsigned long long)sum, n->id,
				      (unsigned long long)n->mem_pages);
		n->mem_pages = sum;
	}
out:
	free(ids);
	if (rc && rc != NS_ENOMEM && d && d->status == NS_OK)
		diag_set(d, rc, root, 0, 0, "%s", ns_status_msg(rc));
	if (rc)
		machine_desc_free(out);
	return rc;
}

static void sysfs_name(const char *root, char *buf, size_t len)
{
	base_name(root, buf, len);
	if (buf[0] && strcmp(buf, "/"))
		return;
	size_t rl = strlen(root);
	char *p = malloc(rl + 32), *text = NULL;
	size_t tl;
	struct diag quiet;
	diag_init(&quiet);
	snprintf(buf, len, "localhost");
	if (!p)
		return;
	snprintf(p, rl + 32, "%s/proc/sys/kernel/hostname",
		 strcmp(root, "/") ? root : "");
	if (read_file(p, 4096, &text, &tl, &quiet) == NS_OK) {
		text[strcspn(text, "\n")] = '\0';
		if (text[0])
			snprintf(buf, len, "%s", text);
		free(text);
	}
	free(p);
}

/* ROOT/proc/cpuinfo, when the tree has it, names the CPU. */
static void sysfs_cpu(const char *root, struct cpu_id *cpu, char *where,
		      size_t wlen)
{
	char path[4096], *text = NULL;
	size_t tl;
	struct diag quiet;
	diag_init(&quiet);
	snprintf(path, sizeof path, "%s/proc/cpuinfo", strcmp(root, "/") ? root : "");
	snprintf(where, wlen, "%s", path);
	if (read_file(path, IMPORT_MAX_INPUT, &text, &tl, &quiet) != NS_OK) {
		snprintf(where, wlen, "the tree (no %s)", path);
		return;
	}
	for (char *s = text; *s;) {
		char *e = strchr(s, '\n');
		if (e)
			*e = '\0';
		cpu_id_line(cpu, s);
		s = e ? e + 1 : s + strlen(s);
	}
	free(text);
}

int import_sysfs(const char *root, const struct import_opts *o,
		 struct machine_desc *out, struct import_notes *notes,
		 struct diag *d)
{
	char note[4608], base[256], where[4200];
	struct import_notes local;
	struct import_notes *n = notes ? notes : &local;
	struct cpu_id cpu;
	memset(n, 0, sizeof *n);
	cpu_id_init(&cpu);
	int rc = import_parse_sysfs(root, o->arch, out, d);
	if (rc)
		return rc;
	sysfs_cpu(root, &cpu, where, sizeof where);
	const char *costs = choose_costs(o, &cpu, where, n);
	char zi[4096];
	snprintf(zi, sizeof zi, "%s/proc/zoneinfo", strcmp(root, "/") ? root : "");
	int have_zi = file_exists(zi);
	if (have_zi)
		snprintf(note, sizeof note, "Zones: present pages of each zone in "
			 "%s (present, not managed: boot reservations vary "
			 "by kernel and command line).", zi);
	else
		layout_note(o->arch, note, sizeof note);
	sysfs_name(root, base, sizeof base);
	snprintf(n->name, sizeof n->name, "%s", o->name ? o->name : base);
	snprintf(n->name_from, sizeof n->name_from, "%s", o->name ?
		 "given with --name" : strcmp(root, "/") ? "the tree's directory name"
		 : "the host name");
	rc = import_complete(out, o, "sysfs", root, note, base, costs, d);
	if (rc)
		machine_desc_free(out);
	return rc;
}

/* The loaded machine must describe exactly what was emitted. */
