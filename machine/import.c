/*
 * import — machine descriptions from numactl output and sysfs; see import.h.
 * This file is the importers' shared part: the architectures and their
 * zone layouts, the node and file helpers, what the input says about the
 * CPU (/proc/cpuinfo or lscpu), completion and rendering.  One file per
 * input format: import_numactl.c, import_sysfs.c, import_costs.c (the
 * cost profile).
 *
 * Design notes.  Both importers fill the same struct machine_desc in two
 * steps: a parser that only establishes the topology (node ids, CPUs, node
 * memory, SLIT, and zones when the input has them), then import_complete()
 * which adds what the input cannot say (name, description, provenance and
 * the cost profile).  The numactl parser's design: import_numactl.c.
 * Rendering always goes through machine_load_buf(), so what leaves this
 * module is a file the rest of numasim accepts.
 */
#include "machine/import_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "machine/cpulist.h"
#include "machine/datafile.h"
#include "machine/machine.h"
#include "numasim_config.h"

static const char *const arch_names[] = {
#define IMPORT_ARCH_NAME(id, name) name,
	IMPORT_ARCH_MAP(IMPORT_ARCH_NAME)
#undef IMPORT_ARCH_NAME
};

const char *import_arch_name(enum import_arch a)
{
	return (unsigned)a < NR_IMPORT_ARCHS ? arch_names[a] : "unknown";
}

int import_arch_parse(const char *s)
{
	for (int i = 0; i < NR_IMPORT_ARCHS; i++)
		if (!strcmp(s, arch_names[i]))
			return i;
	if (!strcmp(s, "x86-64") || !strcmp(s, "amd64"))
		return IMPORT_ARCH_X86_64;
	if (!strcmp(s, "aarch64"))
		return IMPORT_ARCH_ARM64;
	return -1;
}

void import_opts_init(struct import_opts *o)
{
	memset(o, 0, sizeof *o);
	o->arch = IMPORT_ARCH_X86_64;
}

/* ------------------------------------------------------------------ */
/* Zone layout                                                         */

struct zone_span {
	enum zone_type type;
	uint64_t lo, hi;       /* bytes; hi = UINT64_MAX for "to the end" */
};

static int arch_spans(enum import_arch arch, struct zone_span *s)
{
	switch (arch) {
	case IMPORT_ARCH_X86_64:
		s[0] = (struct zone_span){ZONE_DMA, 0, 16 * MiB};
		s[1] = (struct zone_span){ZONE_DMA32, 16 * MiB, 4 * GiB};
		s[2] = (struct zone_span){ZONE_NORMAL, 4 * GiB, UINT64_MAX};
		return 3;
	case IMPORT_ARCH_ARM64:
		s[0] = (struct zone_span){ZONE_DMA, 0, 4 * GiB};
		s[1] = (struct zone_span){ZONE_NORMAL, 4 * GiB, UINT64_MAX};
		return 2;
	case IMPORT_ARCH_NONE:
	case NR_IMPORT_ARCHS:
		break;
	}
	s[0] = (struct zone_span){ZONE_NORMAL, 0, UINT64_MAX};
	return 1;
}

void import_layout_zones(struct machine_desc *m, enum import_arch arch)
{
	struct zone_span spans[NR_ZONE_TYPES];
	int nr_spans = arch_spans(arch, spans);
	uint64_t page = m->page_size;
	uint64_t addr = 0;     /* in pages: where the next node's memory starts */

	for (int i = 0; i < m->nr_nodes; i++) {
		struct desc_node *n = &m->nodes[i];
		uint64_t start = addr, end = addr + n->mem_pages;
		n->nr_zones = 0;
		for (int s = 0; s < nr_spans; s++) {
			uint64_t lo = spans[s].lo / page;
			uint64_t hi = spans[s].hi == UINT64_MAX ? UINT64_MAX :
				      spans[s].hi / page;
			uint64_t a = start > lo ? start : lo;
			uint64_t b = end < hi ? end : hi;
			if (b > a)
				n->zones[n->nr_zones++] =
					(struct desc_zone){spans[s].type, b - a};
		}
		addr = end;
	}
}

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */

int add_node(struct machine_desc *m, int id)
{
	struct desc_node *nn = realloc(m->nodes,
				       (size_t)(m->nr_nodes + 1) * sizeof *nn);
	if (!nn)
		return NS_ENOMEM;
	m->nodes = nn;
	memset(&nn[m->nr_nodes], 0, sizeof *nn);
	nn[m->nr_nodes].id = id;
	m->nr_nodes++;
	return NS_OK;
}

int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int node_pos(const struct machine_desc *m, int id)
{
	for (int i = 0; i < m->nr_nodes; i++)
		if (m->nodes[i].id == id)
			return i;
	return -1;
}

/* Read a whole (small) file; NS_ENOENT if it does not exist. */
int read_file(const char *path, size_t max, char **out, size_t *len,
	      struct diag *d)
{
	/* O_NONBLOCK: a FIFO planted in the tree must not block the open;
	 * anything but a regular file is refused before it is read */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return diag_set(d, errno == ENOENT ? NS_ENOENT : NS_EIO, path, 0, 0,
				"cannot open: %s", strerror(errno));
	struct stat sb = {0};
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return diag_set(d, NS_EINPUT, path, 0, 0, "not a regular file (%s)",
				S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ?
				"a FIFO" : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ?
				"a device" : S_ISSOCK(sb.st_mode) ? "a socket" : "not a file");
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return diag_set(d, NS_ENOMEM, path, 0, 0, "out of memory");
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int rc = NS_OK;
	if (!buf) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				rc = diag_set(d, NS_EINPUT, path, 0, 0,
					      "file larger than %zu bytes", max);
				goto out;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				rc = NS_ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = diag_set(d, NS_EIO, path, 0, 0, "read error");
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	fclose(f);
	return rc;
}

/* The CPU, from /proc/cpuinfo or a pasted lscpu (kept with the numactl
 * parser for its text helpers; used by both importers). */

void cpu_id_init(struct cpu_id *c)
{
	memset(c, 0, sizeof *c);
	c->family = c->model = c->implementer = c->part = -1;
}

/* Is key (before the colon, blanks trimmed) k, ignoring case? */
static int key_is(const char *key, size_t kl, const char *k)
{
	return strlen(k) == kl && !strncasecmp(key, k, kl);
}

void cpu_id_line(struct cpu_id *c, const char *line)
{
	const char *colon = strchr(line, ':');
	if (!colon)
		return;
	const char *key = skip_ws(line);
	size_t kl = (size_t)(colon - key);
	while (kl && (key[kl - 1] == ' ' || key[kl - 1] == '\t'))
		kl--;
	const char *v = skip_ws(colon + 1);
	size_t vl = strcspn(v, "\r\n");
	while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	char val[128];
	if (!kl || !vl)
		return;
	snprintf(val, sizeof val, "%.*s", (int)vl, v);
	char *end;
	long num = strtol(val, &end, 0);
	int is_num = end != val && *end == '\0' && num >= 0;
	if ((key_is(key, kl, "vendor_id") || key_is(key, kl, "vendor id")) && !c->vendor[0])
		snprintf(c->vendor, sizeof c->vendor, "%.31s", val);
	else if ((key_is(key, kl, "model name")) && !c->model_name[0])
		snprintf(c->model_name, sizeof c->model_name, "%s", val);
	else if (key_is(key, kl, "architecture") && !c->arch[0])
		snprintf(c->arch, sizeof c->arch, "%.31s", val);
	else if (key_is(key, kl, "cpu") && !c->ppc[0] && !strncmp(val, "POWER", 5))
		snprintf(c->ppc, sizeof c->ppc, "%.*s", (int)strcspn(val, " ("), val);
	else if (key_is(key, kl, "cpu family") && is_num && c->family < 0)
		c->family = num;
	else if (key_is(key, kl, "model") && is_num && c->model < 0)
		c->model = num;
	else if (key_is(key, kl, "cpu implementer") && is_num && c->implementer < 0)
		c->implementer = num;
	else if (key_is(key, kl, "cpu part") && is_num && c->part < 0)
		c->part = num;
}

/* x86 family 6 models of the shipped Intel profiles (arch/x86/include/
 * asm/intel-family.h); the rest of family 6 takes the server default. */
static const char *intel_profile(long model)
{
	static const struct { long model; const char *profile; } t[] = {
		{0x3F, "broadwell-ep"}, {0x4F, "broadwell-ep"}, {0x56, "broadwell-ep"},
		{0x55, "skylake-sp"}, {0x6A, "skylake-sp"}, {0x6C, "skylake-sp"},
		{0x8F, "skylake-sp"}, {0xCF, "skylake-sp"}, {0xAD, "skylake-sp"},
		{0x4E, "client-skylake"}, {0x5E, "client-skylake"},
		{0x8E, "client-skylake"}, {0x9E, "client-skylake"},
		{0xA5, "client-skylake"}, {0xA6, "client-skylake"},
		{0x7D, "client-skylake"}, {0x7E, "client-skylake"},
		{0x8C, "client-skylake"}, {0x8D, "client-skylake"},
		{0x97, "client-skylake"}, {0x9A, "client-skylake"},
		{0xB7, "client-skylake"}, {0xBA, "client-skylake"},
		{0xBF, "client-skylake"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].model == model)
			return t[i].profile;
	return NULL;
}

/*
 * The shipped profile nearest to the CPU, or NULL when the input does not
 * name one; *cpu_text describes the CPU as the input did.
 */
static const char *cpu_profile(const struct cpu_id *c, char *cpu_text, size_t len)
{
	const char *prof = NULL;
	int intel = !strcmp(c->vendor, "GenuineIntel");
	int amd = !strcmp(c->vendor, "AuthenticAMD") || !strcmp(c->vendor, "HygonGenuine");
	if (c->model_name[0])
		snprintf(cpu_text, len, "%s", c->model_name);
	else if (c->vendor[0] || c->implementer >= 0)
		snprintf(cpu_text, len, "%s", c->vendor[0] ? c->vendor : "arm64");
	else if (c->ppc[0])
		snprintf(cpu_text, len, "%s", c->ppc);
	else
		cpu_text[0] = '\0';
	if (intel && c->family == 6)
		prof = intel_profile(c->model);
	if (intel && !prof)
		prof = "skylake-sp";
	/* Zen 1/Zen+ (and Hygon's Dhyana, family 0x18) are nearest Zen 2;
	 * Zen 4/5 nearest Zen 3. */
	if (amd)
		prof = c->family >= 0x19 ? "zen3" : "zen2";
	if (c->implementer >= 0 || !strcmp(c->vendor, "HiSilicon") ||
	    !strcmp(c->vendor, "ARM") || !strcmp(c->arch, "aarch64"))
		prof = "kunpeng920";
	if (prof && (c->family >= 0 || c->implementer >= 0)) {
		size_t n = strlen(cpu_text);
		if (c->family >= 0)
			snprintf(cpu_text + n, len - n, "%sfamily 0x%lx model 0x%lx%s",
				 n ? " (" : "", c->family, c->model < 0 ? 0 : c->model,
				 n ? ")" : "");
		else
			snprintf(cpu_text + n, len - n, "%simplementer 0x%lx part 0x%lx%s",
				 n ? " (" : "", c->implementer, c->part < 0 ? 0 : c->part,
				 n ? ")" : "");
	}
	return prof;
}

/* ------------------------------------------------------------------ */
/* Completion and rendering                                            */

static void summary(const struct machine_desc *m, char *buf, size_t len)
{
	int cpus = 0, memnodes = 0, cpunodes = 0;
	uint64_t pages = 0;
	for (int i = 0; i < m->nr_nodes; i++) {
		cpus += m->nodes[i].nr_cpus;
		pages += m->nodes[i].mem_pages;
		memnodes += m->nodes[i].mem_pages > 0;
		cpunodes += m->nodes[i].nr_cpus > 0;
	}
	uint64_t mib = pages * m->page_size / MiB;
	snprintf(buf, len, "%d node%s (%d with CPUs, %d with memory), %d CPUs, "
		 "%llu MiB", m->nr_nodes, m->nr_nodes == 1 ? "" : "s", cpunodes,
		 memnodes, cpus, (unsigned long long)mib);
}

const char *base_name(const char *p, char *buf, size_t len)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	size_t s = n;
	while (s > 0 && p[s - 1] != '/')
		s--;
	size_t k = n - s;
	const char *dot = memchr(p + s, '.', k);
	if (dot && dot > p + s)
		k = (size_t)(dot - (p + s));
	snprintf(buf, len, "%.*s", (int)k, p + s);
	return buf;
}

/* Shipped profiles are cited relative to their data directory, so that
 * the same import gives the same file from any checkout or install. */
static const char *shown_path(const char *path)
{
	return datafile_shown(path);
}

/*
 * The cost profile: --costs, else the shipped profile nearest to the CPU
 * the input names (cpu_profile), else the arch's default; the choice and
 * its reason go into notes (when given) for the command to print.
 */
const char *choose_costs(const struct import_opts *o,
			 const struct cpu_id *cpu, const char *cpu_where,
			 struct import_notes *n)
{
	char text[256], why[512];
	const char *prof = cpu_profile(cpu, text, sizeof text);
	const char *costs = o->costs ? o->costs : prof ? prof :
			    import_default_costs(o->arch);
	if (o->costs)
		snprintf(why, sizeof why, "given with --costs");
	else if (prof)
		snprintf(why, sizeof why, "the shipped profile nearest to the CPU "
			 "%s in %s", text, cpu_where);
	else
		snprintf(why, sizeof why, "the default for --arch %s, as %s %s; "
			 "give --costs NAME for another (--list-costs lists them)",
			 import_arch_name(o->arch), cpu_where, text[0] ?
			 "names a CPU with no shipped profile" : "does not name the CPU");
	if (n) {
		snprintf(n->costs, sizeof n->costs, "%s", costs);
		snprintf(n->costs_from, sizeof n->costs_from, "%s", why);
	}
	return costs;
}

int import_complete(struct machine_desc *m, const struct import_opts *o,
		    const char *kind, const char *input, const char *zones,
		    const char *default_name, const char *costs,
		    struct diag *d)
{
	char *block = NULL, *path = NULL, *pname = NULL, *pdesc = NULL;
	char buf[1024], sum[256];
	int rc, line = 0;
	if ((rc = import_load_costs(costs, &block, &path, &pname,
				    &pdesc, &line, d)))
		goto out;
	m->costs_text = block;
	m->costs_path = path;
	m->costs_line = line;
	block = path = NULL;
	summary(m, sum, sizeof sum);
	m->name = strdup(o->name ? o->name : default_name);
	snprintf(buf, sizeof buf, "%s imported from %s: %s", kind, input, sum);
	m->description = strdup(o->description ? o->description : buf);
	if (!m->name || !m->description) {
		rc = NS_ENOMEM;
		goto out;
	}
	snprintf(buf, sizeof buf, "%s of %s", kind, input);
	if ((rc = machine_desc_add_source(m, buf)))
		goto out;
	snprintf(buf, sizeof buf, "cost profile %s (%s)%s%s", pname ? pname : costs,
		 shown_path(m->costs_path), pdesc ? ": " : "", pdesc ? pdesc : "");
	if ((rc = machine_desc_add_source(m, buf)))
		goto out;
	snprintf(buf, sizeof buf, "Generated by numasim %s%s%s", NUMASIM_VERSION,
		 o->command ? ": " : " import", o->command ? o->command : "");
	if ((rc = machine_desc_add_header(m, buf)))
		goto out;
	snprintf(buf, sizeof buf, "Topology: %s of %s (%s).", kind, input, sum);
	if ((rc = machine_desc_add_header(m, buf)))
		goto out;
	if ((rc = machine_desc_add_header(m, zones)))
		goto out;
	snprintf(buf, sizeof buf, "Costs: copied from %s.", shown_path(m->costs_path));
	rc = machine_desc_add_header(m, buf);
out:
	free(block);
	free(path);
	free(pname);
	free(pdesc);
	return rc;
}

const char *layout_note(enum import_arch arch, char *buf, size_t len)
{
	static const char *const rule[] = {
		[IMPORT_ARCH_X86_64] = "DMA below 16 MiB, DMA32 below 4 GiB, Normal above",
		[IMPORT_ARCH_ARM64] = "DMA in the first 4 GiB, Normal above",
		[IMPORT_ARCH_NONE] = "all memory in Normal",
	};
	snprintf(buf, len, "Zones: node totals split by the --arch %s rule (%s), "
		 "memory taken as contiguous from address 0 in node-id order, "
		 "holes not modelled.", import_arch_name(arch),
		 (unsigned)arch < NR_IMPORT_ARCHS ? rule[arch] : "?");
	return buf;
}

/* The default name of a numactl import and where it comes from: the
 * input file's name, for standard input -o's, a pasted prompt's host. */
static int same_topology(const struct machine_desc *m, const struct machine *lm,
			 struct diag *d)
{
	int ok = lm->nr_nodes == m->nr_nodes && lm->page_size == m->page_size;
	for (int i = 0; ok && i < m->nr_nodes; i++) {
		const struct desc_node *a = &m->nodes[i];
		const struct machine_node *b = &lm->nodes[i];
		uint64_t pages = 0;
		for (int z = 0; z < a->nr_zones; z++)
			pages += a->zones[z].pages;
		uint64_t used = a->has_free && a->nr_zones ? pages - a->free_pages : 0;
		ok = a->id == b->id && a->nr_cpus == b->nr_cpus &&
		     pages == b->mem_pages && a->nr_zones == b->nr_zones &&
		     used == b->used_pages &&
		     (!a->nr_cpus || !memcmp(a->cpus, b->cpus,
					     (size_t)a->nr_cpus * sizeof *a->cpus));
		for (int j = 0; ok && j < m->nr_nodes; j++)
			ok = m->distance[i * m->nr_nodes + j] ==
			     lm->distance[i * m->nr_nodes + j];
	}
	return ok ? NS_OK : diag_set(d, NS_EINTERNAL, NULL, 0, 0, "the machine "
				      "file read back differs from what was "
				      "written (emitter bug)");
}

/* Where does the emitted costs block start (1-based line)? */
static int costs_line_in(const char *text, const char *block)
{
	const char *at = block ? strstr(text, block) : NULL;
	int line = 1;
	if (!at)
		return 0;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

int import_render(const struct machine_desc *m, const char *out_name,
		  char **text, size_t *len, struct diag *d)
{
	struct emit_buf b;
	struct machine *lm = NULL;
	struct diag ld;
	int rc;
	emit_buf_init(&b);
	diag_init(&ld);
	if ((rc = emit_machine(m, &b)))
		goto out;
	rc = machine_load_buf(out_name, b.data, b.len, &lm, &ld);
	if (rc) {
		int first = costs_line_in(b.data, m->costs_text);
		int nl = 0;
		for (const char *p = m->costs_text; p && *p; p++)
			nl += *p == '\n';
		if (first && ld.line >= first && ld.line < first + nl && m->costs_path)
			/* A problem inside the copied block is the profile's. */
			rc = diag_set(d, rc, m->costs_path,
				      m->costs_line + ld.line - first, ld.col,
				      "%s", ld.msg);
		else
			rc = diag_set(d, rc, ld.file, ld.line, ld.col,
				      "imported machine does not validate: %s", ld.msg);
		goto out;
	}
	if ((rc = machine_check(lm, d)) || (rc = same_topology(m, lm, d)))
		goto out;
	*text = b.data;
	*len = b.len;
	b.data = NULL;
out:
	machine_free(lm);
	emit_buf_free(&b);
	return rc;
}
