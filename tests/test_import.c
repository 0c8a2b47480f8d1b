/*
 * Tests for models/import and models/emit: every numactl fixture of
 * tests/fixtures/numactl (real outputs, see SOURCES.md), the sysfs trees of
 * tests/fixtures/sysfs, the zone layout rules, error positions, cost
 * profiles and the render/load round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "machine/emit.h"
#include "machine/import.h"
#include "machine/machine.h"
#include "numasim_config.h"

#define MB_PAGES(mb) ((uint64_t)(mb) * 256)

static const char *src_root(void)
{
	const char *s = getenv("NUMASIM_SRC");
	return s && *s ? s : NUMASIM_SOURCE_ROOT;
}

static char *slurp(const char *rel, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", src_root(), rel);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int parse_text(const char *text, enum import_arch arch,
		      struct machine_desc *m, struct diag *d)
{
	machine_desc_init(m);
	diag_init(d);
	return import_parse_numactl("t.txt", text, strlen(text), arch, m, d);
}

/* ---- fixtures ------------------------------------------------------- */

struct fixture {
	const char *file;
	int nr_nodes;
	int ids[12];
	int nr_cpus;          /* total */
	uint64_t total_mb;
	int far;              /* distance from the first to the last node */
	int cpuless;          /* nodes without CPUs */
	int memless;          /* nodes without memory */
};

static const struct fixture fixtures[] = {
	{"single-node-8cpu.txt", 1, {0}, 8, 7957, 10, 0, 0},
	{"intel-2s-e5-2695v4.txt", 2, {0, 1}, 36, 130958 + 131072, 21, 0, 0},
	{"intel-2s-c5n-18xlarge.txt", 2, {0, 1}, 72, 94590 + 94710, 21, 0, 0},
	{"intel-4s-e7-4870.txt", 4, {0, 1, 2, 3}, 40, 65415 + 3 * 65536, 21, 0, 0},
	{"amd-epyc7601-2s-8node-memoryless.txt", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 128,
	 20028 + 31391, 32, 0, 6},
	{"amd-epyc-2s-nps4-8node.txt", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 256,
	 64306 + 64502 * 5 + 64447 + 64492, 32, 0, 0},
	{"amd-epyc9135-2s-cpu-compress.txt", 2, {0, 1}, 32, 580088 + 580505, 32, 0, 0},
	{"kunpeng920-4826-4node.txt", 4, {0, 1, 2, 3}, 96,
	 192832 + 193533 * 2 + 193532, 22, 0, 0},
	{"power9-sparse-0-8.txt", 2, {0, 8}, 128, 130138 + 130781, 40, 0, 0},
	{"power8-sparse-0-8.txt", 2, {0, 8}, 160, 130703 + 130647, 40, 0, 0},
	{"optane-pmem-kmem-4node.txt", 4, {0, 1, 2, 3}, 96,
	 192115 + 192011 + 311296 + 321536, 28, 2, 0},
	{"xeon-max-9470c-hbm-flat.txt", 4, {0, 1, 2, 3}, 208,
	 515489 + 515028 + 65536 * 2, 23, 2, 0},
	{"cxl-3node-memory-expander.txt", 3, {0, 1, 2}, 128,
	 1031618 + 1032121 + 32768, 24, 1, 0},
	{"sparse-0-1-3-pmem-node.txt", 3, {0, 1, 3}, 40, 3958 + 4027 + 3994, 21, 1, 0},
	{"power-lpar-memory-only-nodes.txt", 4, {0, 1, 2, 3}, 8,
	 8664 + 5602 + 1023, 20, 3, 1},
	{"threadripper-3960x-nps4-memoryless.txt", 4, {0, 1, 2, 3}, 48,
	 64307 + 64472, 12, 0, 2},
	{"grace-gpu-9node-wrapped.txt", 9, {0, 1, 2, 3, 4, 5, 6, 7, 8}, 72,
	 490037 + 97280, 80, 8, 7},
	{"qemu-pseries-no-distances.txt", 1, {0}, 1, 16222, 10, 0, 0},
};

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
		const struct fixture *fx = &fixtures[f];
		char rel[256];
		size_t len;
		snprintf(rel, sizeof rel, "tests/fixtures/numactl/%s", fx->file);
		char *text = slurp(rel, &len);
		struct machine_desc m;
		struct diag d;
		machine_desc_init(&m);
		diag_init(&d);
		int rc = import_parse_numactl(fx->file, text, len, IMPORT_ARCH_X86_64,
					      &m, &d);
		if (rc)
			diag_print(&d, stderr);
		assert_int_equal(rc, NS_OK);
		assert_int_equal(m.nr_nodes, fx->nr_nodes);
		int cpus = 0, cpuless = 0, memless = 0;
		uint64_t pages = 0;
		for (int i = 0; i < m.nr_nodes; i++) {
			const struct desc_node *n = &m.nodes[i];
			uint64_t zp = 0;
			assert_int_equal(n->id, fx->ids[i]);
			cpus += n->nr_cpus;
			cpuless += n->nr_cpus == 0;
			memless += n->mem_pages == 0;
			pages += n->mem_pages;
			for (int z = 0; z < n->nr_zones; z++)
				zp += n->zones[z].pages;
			assert_int_equal(zp, n->mem_pages);
			for (int c = 1; c < n->nr_cpus; c++)
				assert_true(n->cpus[c - 1] < n->cpus[c]);
			assert_int_equal(m.distance[i * m.nr_nodes + i], 10);
		}
		assert_int_equal(cpus, fx->nr_cpus);
		assert_int_equal(cpuless, fx->cpuless);
		assert_int_equal(memless, fx->memless);
		assert_int_equal(pages, MB_PAGES(fx->total_mb));
		assert_int_equal(m.distance[m.nr_nodes - 1], fx->far);
		machine_desc_free(&m);
		free(text);
	}
}

static void test_fixture_details(void **state)
{
	(void)state;
	size_t len;
	struct machine_desc m;
	struct diag d;
	/* Grace: the CPU list wrapped over four lines is one list 0-71. */
	char *t = slurp("tests/fixtures/numactl/grace-gpu-9node-wrapped.txt", &len);
	machine_desc_init(&m);
	diag_init(&d);
	assert_int_equal(import_parse_numactl("g", t, len, IMPORT_ARCH_X86_64, &m, &d), NS_OK);
	assert_int_equal(m.nodes[0].nr_cpus, 72);
	assert_int_equal(m.nodes[0].cpus[71], 71);
	assert_int_equal(m.distance[1 * 9 + 2], 255);
	assert_int_equal(m.nodes[1].mem_pages, MB_PAGES(97280));
	/* Node 1's memory follows node 0's 478 GiB: all of it is Normal. */
	assert_int_equal(m.nodes[1].nr_zones, 1);
	assert_int_equal(m.nodes[1].zones[0].type, ZONE_NORMAL);
	machine_desc_free(&m);
	free(t);

	/* Asymmetric-looking SLIT rows are kept by position. */
	t = slurp("tests/fixtures/numactl/xeon-max-9470c-hbm-flat.txt", &len);
	machine_desc_init(&m);
	assert_int_equal(import_parse_numactl("x", t, len, IMPORT_ARCH_X86_64, &m, &d), NS_OK);
	assert_int_equal(m.distance[0 * 4 + 2], 13);
	assert_int_equal(m.distance[2 * 4 + 3], 23);
	assert_int_equal(m.nodes[1].cpus[0], 52);
	assert_int_equal(m.nodes[1].cpus[52], 156);
	machine_desc_free(&m);
	free(t);
}

/* ---- zone layout ------------------------------------------------------ */

static void layout(uint64_t *mb, int n, enum import_arch arch,
		   struct machine_desc *m)
{
	machine_desc_init(m);
	m->nodes = calloc((size_t)n, sizeof *m->nodes);
	assert_non_null(m->nodes);
	m->nr_nodes = n;
	for (int i = 0; i < n; i++) {
		m->nodes[i].id = i;
		m->nodes[i].mem_pages = MB_PAGES(mb[i]);
	}
	import_layout_zones(m, arch);
}

static void assert_zone(const struct desc_node *n, int z, enum zone_type t,
			uint64_t pages)
{
	assert_true(z < n->nr_zones);
	assert_int_equal(n->zones[z].type, t);
	assert_int_equal(n->zones[z].pages, pages);
}

static void test_layout_x86(void **state)
{
	(void)state;
	struct machine_desc m;
	/* 2 GiB node 0: DMA + the rest in DMA32; node 1 (memoryless) takes no
	 * address space; node 2 finishes DMA32 and starts Normal. */
	uint64_t mb[] = {2048, 0, 8192};
	layout(mb, 3, IMPORT_ARCH_X86_64, &m);
	assert_int_equal(m.nodes[0].nr_zones, 2);
	assert_zone(&m.nodes[0], 0, ZONE_DMA, 4096);
	assert_zone(&m.nodes[0], 1, ZONE_DMA32, MB_PAGES(2048 - 16));
	assert_int_equal(m.nodes[1].nr_zones, 0);
	assert_int_equal(m.nodes[2].nr_zones, 2);
	assert_zone(&m.nodes[2], 0, ZONE_DMA32, MB_PAGES(2048));
	assert_zone(&m.nodes[2], 1, ZONE_NORMAL, MB_PAGES(6144));
	machine_desc_free(&m);

	/* A node smaller than ZONE_DMA: all DMA, the next node continues it. */
	uint64_t tiny[] = {8, 100};
	layout(tiny, 2, IMPORT_ARCH_X86_64, &m);
	assert_int_equal(m.nodes[0].nr_zones, 1);
	assert_zone(&m.nodes[0], 0, ZONE_DMA, MB_PAGES(8));
	assert_zone(&m.nodes[1], 0, ZONE_DMA, MB_PAGES(8));
	assert_zone(&m.nodes[1], 1, ZONE_DMA32, MB_PAGES(92));
	machine_desc_free(&m);

	/* Exactly 4 GiB on node 0: no Normal zone there. */
	uint64_t four[] = {4096, 4096};
	layout(four, 2, IMPORT_ARCH_X86_64, &m);
	assert_int_equal(m.nodes[0].nr_zones, 2);
	assert_int_equal(m.nodes[1].nr_zones, 1);
	assert_zone(&m.nodes[1], 0, ZONE_NORMAL, MB_PAGES(4096));
	machine_desc_free(&m);
}

static void test_layout_arm64_none(void **state)
{
	(void)state;
	struct machine_desc m;
	uint64_t mb[] = {0, 6144, 1024};
	layout(mb, 3, IMPORT_ARCH_ARM64, &m);
	assert_int_equal(m.nodes[0].nr_zones, 0);
	assert_zone(&m.nodes[1], 0, ZONE_DMA, MB_PAGES(4096));
	assert_zone(&m.nodes[1], 1, ZONE_NORMAL, MB_PAGES(2048));
	assert_int_equal(m.nodes[2].nr_zones, 1);
	assert_zone(&m.nodes[2], 0, ZONE_NORMAL, MB_PAGES(1024));
	for (int i = 0; i < 3; i++)
		for (int z = 0; z < m.nodes[i].nr_zones; z++)
			assert_int_not_equal(m.nodes[i].zones[z].type, ZONE_DMA32);
	machine_desc_free(&m);

	layout(mb, 3, IMPORT_ARCH_NONE, &m);
	assert_int_equal(m.nodes[1].nr_zones, 1);
	assert_zone(&m.nodes[1], 0, ZONE_NORMAL, MB_PAGES(6144));
	machine_desc_free(&m);
}

static void test_arch_names(void **state)
{
	(void)state;
	assert_int_equal(import_arch_parse("x86_64"), IMPORT_ARCH_X86_64);
	assert_int_equal(import_arch_parse("aarch64"), IMPORT_ARCH_ARM64);
	assert_int_equal(import_arch_parse("none"), IMPORT_ARCH_NONE);
	assert_int_equal(import_arch_parse("ppc64le"), -1);
	assert_string_equal(import_arch_name(IMPORT_ARCH_ARM64), "arm64");
	assert_string_equal(import_default_costs(IMPORT_ARCH_ARM64), "kunpeng920");
}

/* ---- numactl errors ------------------------------------------------- */

struct bad_case {
	const char *text;
	int line, col;
	const char *msg;      /* substring of the message */
};

#define HEAD2 "available: 2 nodes (0-1)\n"                                     \
	      "node 0 cpus: 0 1\nnode 0 size: 100 MB\nnode 0 free: 50 MB\n"     \
	      "node 1 cpus: 2 3\nnode 1 size: 100 MB\nnode 1 free: 50 MB\n"

static const struct bad_case bad_cases[] = {
	/* truncated distance table */
	{HEAD2 "node distances:\nnode   0   1\n  0:  10  21\n", 11, 1,
	 "ends after 1 of 2 rows"},
	{HEAD2 "node distances:\nnode   0   1\n  0:  10  21\n  1:  21\n", 11, 9,
	 "has 1 values, expected 2"},
	{HEAD2 "node distances:\n", 9, 1, "before the distance table header"},
	/* missing distances */
	{HEAD2, 8, 1, "without a 'node distances:' table"},
	{HEAD2 "No distance information available.\n", 8, 1,
	 "no distance information for these 2 nodes"},
	/* non-numeric / malformed sizes */
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: lots MB\n", 3, 14,
	 "expected a size in MB"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: 12 GB\n", 3, 17,
	 "expected 'MB'"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: <not available>\n",
	 3, 14, "could not read the memory size"},
	/* inconsistent node counts and ids */
	{"available: 3 nodes (0-1)\n", 1, 12, "says 3 nodes but the list has 2"},
	{"available: 2 nodes (0-1)\nnode 2 cpus: 0\n", 2, 6,
	 "node 2 is not in the 'available:' list"},
	{"available: 2 nodes (0-1)\nnode 0 cpus: 0\nnode 0 size: 1 MB\n"
	 "node distances:\n", 4, 1, "node 1 has no 'node 1 cpus:' line"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode distances:\n", 3, 1,
	 "node 0 has no 'node 0 size:' line"},
	{HEAD2 "node distances:\nnode   0   8\n", 9, 12,
	 "has node 8 where node 1 was expected"},
	{HEAD2 "node distances:\nnode   0\n", 9, 9, "lists 1 of the 2"},
	{HEAD2 "node distances:\nnode   0   1\n  1:  10  21\n", 10, 3,
	 "row for node 1 where node 0 was expected"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 cpus: 1\n", 3, 8,
	 "second 'cpus:' line"},
	/* values */
	{HEAD2 "node distances:\nnode   0   1\n  0:  20  21\n", 10, 7,
	 "to itself is 20"},
	{HEAD2 "node distances:\nnode   0   1\n  0:  10  300\n", 10, 11,
	 "out of range 10..255"},
	{HEAD2 "node distances:\nnode   0   1\n  0:  10  2x\n", 10, 11,
	 "expected a distance"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0 9000\n", 2, 16, "out of range"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0 1 1\n", 2, 18, "listed twice"},
	{"available: 2 nodes (0-1)\nnode 0 cpus: 0 1\nnode 1 cpus: 1\n", 3, 14,
	 "CPU 1 is already in node 0"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0-3 (5)\n", 2, 1,
	 "count (5) does not match the 4 CPUs"},
	{"available: 1 nodes (0)\nnode 0 cpus: 3-1\n", 2, 14, "backwards"},
	/* not numactl output at all */
	{"", 1, 1, "empty input"},
	{"$ numactl -H\n", 1, 1, "starting with 'available:"},
	{"No NUMA available on this system\n", 1, 1, "no NUMA on this system"},
	{"available: 0 nodes ()\n", 1, 12, "0 NUMA nodes"},
	{"available: 1 nodes (0\n", 1, 22, "missing ')'"},
	{"available: 1 nodes (x)\n", 1, 21, "bad node list"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: 1 MB\n"
	 "node 0 weight: 3\n", 4, 8, "expected 'cpus:', 'size:' or 'free:'"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: 1 MB\n"
	 "node distances:\nnode 0\n 0: 10\n 1: 10\n", 7, 2,
	 "unexpected text after the distance table"},
	{"$ numactl -H\nnode 0 cpus: 0\n", 1, 1, "starting with 'available:"},
	{"available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: 1 MB\ncpus 0\n",
	 4, 1, "expected a 'node N ...' line"},
};

static void test_numactl_errors(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *c = &bad_cases[i];
		struct machine_desc m;
		struct diag d;
		int rc = parse_text(c->text, IMPORT_ARCH_X86_64, &m, &d);
		/* Report every mismatch, not only the first. */
		if (rc != NS_EINPUT || strcmp(d.file, "t.txt") || d.line != c->line ||
		    d.col != c->col || !strstr(d.msg, c->msg) || m.nr_nodes ||
		    m.nodes) {
			fprintf(stderr, "case %zu: rc %d at %d:%d '%s' (want %d:%d "
				"'%s')\n", i, rc, d.line, d.col, d.msg, c->line,
				c->col, c->msg);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

static void test_bad_fixtures(void **state)
{
	(void)state;
	static const struct { const char *file; int line, col; const char *msg; } bad[] = {
		{"fake-numa-12node-shared-cpus.txt", 8, 14, "CPU 0 is already in node 0"},
		{"no-numa-rk3588.txt", 1, 1, "CONFIG_NUMA"},
		{"zero-nodes-docker.txt", 1, 12, "0 NUMA nodes"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char rel[256];
		size_t len;
		snprintf(rel, sizeof rel, "tests/fixtures/numactl/bad/%s", bad[i].file);
		char *t = slurp(rel, &len);
		struct machine_desc m;
		struct diag d;
		machine_desc_init(&m);
		diag_init(&d);
		assert_int_equal(import_parse_numactl(bad[i].file, t, len,
						      IMPORT_ARCH_X86_64, &m, &d),
				 NS_EINPUT);
		assert_int_equal(d.line, bad[i].line);
		assert_int_equal(d.col, bad[i].col);
		assert_non_null(strstr(d.msg, bad[i].msg));
		free(t);
	}
}

/* Pasted text: a prompt or header before numactl's output and a prompt
 * after it are skipped; positions stay those of the pasted text. */
static void test_pasted_text(void **state)
{
	(void)state;
	struct machine_desc m;
	struct diag d;
	const char *t =
		"[user@host ~]$ numactl --hardware\n"
		"Command: numactl --hardware\n"
		"available: 1 nodes (0)\n"
		"node 0 cpus: 0 1\n"
		"node 0 size: 64 MB\n"
		"node distances:\n"
		"node 0\n"
		"  0: 10\n"
		"[user@host ~]$\n";
	assert_int_equal(parse_text(t, IMPORT_ARCH_NONE, &m, &d), NS_OK);
	assert_int_equal(m.nr_nodes, 1);
	assert_int_equal(m.nodes[0].line, 5);
	machine_desc_free(&m);
	const char *bad = "[user@host ~]$ numactl --hardware\n"
			  "available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: 1 GB\n";
	assert_int_equal(parse_text(bad, IMPORT_ARCH_NONE, &m, &d), NS_EINPUT);
	assert_int_equal(d.line, 4);
	assert_int_equal(d.col, 16);
}

static void test_tolerated_forms(void **state)
{
	(void)state;
	struct machine_desc m;
	struct diag d;
	/* CRLF, libnuma warnings, blank lines, tabs, --cpu-compress with a
	 * single CPU and an empty compressed list. */
	const char *t =
		"libnuma: Warning: /sys not mounted or invalid. Assuming one node\r\n"
		"available: 2 nodes (0-1)\r\n"
		"node 0 cpus: 0, 2-3 (3)\r\n"
		"node 0 size: 64 MB\r\n"
		"\r\n"
		"node 1 cpus: (0)\r\n"
		"node 1 size: 32 MB\r\n"
		"node 1 free: 32 MB\r\n"
		"node distances:\r\n"
		"node\t0\t1\r\n"
		"0:\t10\t21\r\n"
		"1:\t21\t10\r\n"
		"\r\n";
	assert_int_equal(parse_text(t, IMPORT_ARCH_NONE, &m, &d), NS_OK);
	assert_int_equal(m.nodes[0].nr_cpus, 3);
	assert_int_equal(m.nodes[0].cpus[1], 2);
	assert_int_equal(m.nodes[1].nr_cpus, 0);
	assert_int_equal(m.nodes[1].mem_pages, MB_PAGES(32));
	assert_int_equal(m.distance[1], 21);
	machine_desc_free(&m);

	/* A NUL byte means binary garbage, not numactl text. */
	char nul[] = "available: 1 nodes (0)\n\0junk";
	machine_desc_init(&m);
	diag_init(&d);
	assert_int_equal(import_parse_numactl("n", nul, sizeof nul - 1,
					      IMPORT_ARCH_NONE, &m, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "NUL"));
}

/* ---- sysfs ------------------------------------------------------------ */

static void test_sysfs_trees(void **state)
{
	(void)state;
	char root[4096];
	struct machine_desc m;
	struct diag d;

	snprintf(root, sizeof root, "%s/tests/fixtures/sysfs/intel-2s-pmem-zoneinfo",
		 src_root());
	machine_desc_init(&m);
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(root, IMPORT_ARCH_NONE, &m, &d), NS_OK);
	assert_int_equal(m.nr_nodes, 2);
	assert_int_equal(m.nodes[0].nr_cpus, 48);
	assert_int_equal(m.nodes[1].cpus[0], 24);
	/* zoneinfo wins over --arch: present pages, empty zones dropped. */
	assert_int_equal(m.nodes[0].nr_zones, 3);
	assert_zone(&m.nodes[0], 0, ZONE_DMA, 3998);
	assert_zone(&m.nodes[0], 1, ZONE_DMA32, 474224);
	assert_zone(&m.nodes[0], 2, ZONE_NORMAL, 7864320);
	assert_int_equal(m.nodes[1].nr_zones, 1);
	assert_zone(&m.nodes[1], 0, ZONE_NORMAL, 8388608);
	assert_int_equal(m.nodes[0].mem_pages, 3998 + 474224 + 7864320);
	assert_int_equal(m.distance[1], 21);
	machine_desc_free(&m);

	snprintf(root, sizeof root, "%s/tests/fixtures/sysfs/ppc-sparse-memoryless/",
		 src_root());
	assert_int_equal(import_parse_sysfs(root, IMPORT_ARCH_X86_64, &m, &d), NS_OK);
	assert_int_equal(m.nr_nodes, 2);
	assert_int_equal(m.nodes[1].id, 2);
	assert_int_equal(m.nodes[0].nr_cpus, 16);
	assert_int_equal(m.nodes[0].nr_zones, 0);      /* memoryless */
	assert_int_equal(m.nodes[1].nr_cpus, 0);       /* CPU-less */
	assert_int_equal(m.nodes[1].mem_pages, MB_PAGES(7168));
	/* No zoneinfo: the x86 rule puts node 2's low memory in DMA/DMA32. */
	assert_zone(&m.nodes[1], 0, ZONE_DMA, 4096);
	assert_zone(&m.nodes[1], 1, ZONE_DMA32, MB_PAGES(4096 - 16));
	assert_zone(&m.nodes[1], 2, ZONE_NORMAL, MB_PAGES(7168 - 4096));
	assert_int_equal(m.distance[2], 40);
	machine_desc_free(&m);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_sysfs_errors(void **state)
{
	(void)state;
	char dir[] = "/tmp/numasim-import-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct machine_desc m;
	struct diag d;
	char want[4200];

	machine_desc_init(&m);
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_ENOENT);
	snprintf(want, sizeof want, "%s/sys/devices/system/node/online", dir);
	assert_string_equal(d.file, want);

	put(dir, "sys/devices/system/node/online", "0-1\n");
	put(dir, "sys/devices/system/node/node0/cpulist", "0-3\n");
	put(dir, "sys/devices/system/node/node1/cpulist", "4-7,x\n");
	put(dir, "sys/devices/system/node/node0/distance", "10 20\n");
	put(dir, "sys/devices/system/node/node1/distance", "20 10\n");
	put(dir, "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 1024 kB\n");
	put(dir, "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 2048 kB\n");
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_EINPUT);
	assert_int_equal(d.line, 1);
	assert_int_equal(d.col, 5);
	assert_non_null(strstr(d.file, "node1/cpulist"));

	put(dir, "sys/devices/system/node/node1/cpulist", "3-7\n");
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "CPU 3 is also in node 0"));

	put(dir, "sys/devices/system/node/node1/cpulist", "4-7\n");
	put(dir, "sys/devices/system/node/node1/distance", "20\n");
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "1 distances for 2 online nodes"));
	assert_int_equal(d.col, 3);

	put(dir, "sys/devices/system/node/node1/distance", "20 10\n");
	put(dir, "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: lots kB\n");
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "expected 'K kB'"));

	put(dir, "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 2048 kB\n");
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_OK);
	assert_int_equal(m.nodes[1].mem_pages, 512);
	machine_desc_free(&m);

	/* zoneinfo with fewer present pages than MemTotal: refused. */
	put(dir, "proc/zoneinfo", "Node 0, zone   Normal\n  pages free 1\n"
	    "        present  256\nNode 1, zone   Normal\n        present  100\n");
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "node 1: zones have 100 present pages"));
	put(dir, "proc/zoneinfo", "Node 0, zone   Weird\n        present  256\n");
	diag_init(&d);
	assert_int_equal(import_parse_sysfs(dir, IMPORT_ARCH_X86_64, &m, &d), NS_EINPUT);
	assert_int_equal(d.line, 1);
	assert_int_equal(d.col, 16);
	assert_non_null(strstr(d.msg, "unknown zone type 'Weird'"));

	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- emitter ---------------------------------------------------------- */

static void test_emit_units_and_quotes(void **state)
{
	(void)state;
	struct emit_buf b;
	emit_buf_init(&b);
	emit_size(&b, 4096, 4096);
	emit_puts(&b, " ");
	emit_size(&b, 1048576, 4096);
	emit_puts(&b, " ");
	emit_size(&b, (uint64_t)1 << 28, 4096);
	emit_puts(&b, " ");
	emit_size(&b, 3998, 4096);
	emit_puts(&b, " ");
	emit_size(&b, 768, 4096);
	emit_puts(&b, " ");
	emit_quoted(&b, "a\"b\\c\n\x01");
	assert_false(b.oom);
	assert_string_equal(b.data, "16MiB 4GiB 1TiB 3998 3MiB \"a\\\"b\\\\c\\n\\x01\"");
	emit_buf_free(&b);
}

/* ---- costs and the round trip ------------------------------------------ */

static void test_costs_profiles(void **state)
{
	(void)state;
	char *block = NULL, *path = NULL, *name = NULL, *desc = NULL, p[4096];
	int line = 0;
	struct diag d;

	diag_init(&d);
	assert_int_equal(import_load_costs("skylake-sp", &block, &path, &name,
					   &desc, &line, &d), NS_OK);
	assert_true(!strncmp(block, "costs:\n", 7));
	assert_string_equal(name, "skylake-sp");
	assert_true(line > 1);
	assert_non_null(strstr(block, "memory_latency"));
	free(block);
	free(path);
	free(name);
	free(desc);

	snprintf(p, sizeof p, "%s/tests/fixtures/import/bad-profile-negative.yaml",
		 src_root());
	diag_init(&d);
	assert_int_equal(import_load_costs(p, &block, &path, NULL, NULL, NULL,
					   &d), NS_EINPUT);
	assert_string_equal(d.file, p);
	assert_int_equal(d.line, 5);
	assert_null(path);

	snprintf(p, sizeof p, "%s/tests/fixtures/import/bad-profile-nocosts.yaml",
		 src_root());
	diag_init(&d);
	assert_int_equal(import_load_costs(p, &block, &path, NULL, NULL, NULL,
					   &d), NS_EINPUT);
	assert_string_equal(d.file, p);

	diag_init(&d);
	assert_int_equal(import_load_costs("no-such-profile", &block, &path, NULL,
					   NULL, NULL, &d), NS_ENOENT);
	assert_non_null(strstr(d.msg, "no cost profile 'no-such-profile' (looked in"));
	diag_init(&d);
	assert_int_equal(import_load_costs("../x", &block, &path, NULL, NULL,
					   NULL, &d), NS_ENOENT);
	diag_init(&d);
	assert_int_equal(import_load_costs("a b", &block, &path, NULL, NULL,
					   NULL, &d), NS_EUSAGE);
}

static void test_round_trip(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
		char rel[256];
		size_t len, tlen;
		snprintf(rel, sizeof rel, "tests/fixtures/numactl/%s", fixtures[f].file);
		char *t = slurp(rel, &len), *text = NULL;
		struct import_opts o;
		struct machine_desc m;
		struct diag d;
		import_opts_init(&o);
		o.arch = f % 3 == 0 ? IMPORT_ARCH_ARM64 : IMPORT_ARCH_X86_64;
		machine_desc_init(&m);
		diag_init(&d);
		assert_int_equal(import_numactl(rel, t, len, &o, &m, NULL, &d), NS_OK);
		int rc = import_render(&m, "out.yaml", &text, &tlen, &d);
		if (rc)
			diag_print(&d, stderr);
		assert_int_equal(rc, NS_OK);
		assert_int_equal(strlen(text), tlen);
		assert_true(!strncmp(text, "# Generated by numasim", 22));

		struct machine *lm;
		assert_int_equal(machine_load_buf("out.yaml", text, tlen, &lm, &d), NS_OK);
		assert_int_equal(lm->nr_nodes, fixtures[f].nr_nodes);
		assert_int_equal(lm->nr_cpus, fixtures[f].nr_cpus);
		assert_int_equal(machine_mem_pages(lm), MB_PAGES(fixtures[f].total_mb));
		assert_int_equal(lm->nr_sources, 2);
		assert_non_null(strstr(lm->sources[1], o.arch == IMPORT_ARCH_ARM64 ?
					"kunpeng920" : "skylake-sp"));
		machine_free(lm);
		free(text);
		machine_desc_free(&m);
		free(t);
	}
}

static void test_render_names(void **state)
{
	(void)state;
	struct import_opts o;
	struct machine_desc m;
	struct diag d;
	char *text = NULL;
	size_t tlen;
	const char *t = "available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: 64 MB\n"
			"node distances:\nnode   0\n  0:  10\n";
	import_opts_init(&o);
	o.name = "box: \"quoted\" #1";
	o.description = "yes";          /* a YAML 1.1 boolean if unquoted */
	machine_desc_init(&m);
	diag_init(&d);
	assert_int_equal(import_numactl("/some/dir/box.txt", t, strlen(t), &o, &m, NULL, &d),
			 NS_OK);
	assert_int_equal(import_render(&m, "-", &text, &tlen, &d), NS_OK);
	struct machine *lm;
	assert_int_equal(machine_load_buf("-", text, tlen, &lm, &d), NS_OK);
	assert_string_equal(lm->name, "box: \"quoted\" #1");
	assert_string_equal(lm->description, "yes");
	assert_int_equal(lm->nodes[0].nr_zones, 2);     /* DMA + DMA32 */
	machine_free(lm);
	free(text);
	machine_desc_free(&m);

	/* Default name: the input's base name without extension. */
	import_opts_init(&o);
	machine_desc_init(&m);
	assert_int_equal(import_numactl("/some/dir/box.txt", t, strlen(t), &o, &m, NULL, &d),
			 NS_OK);
	assert_string_equal(m.name, "box");
	machine_desc_free(&m);

	/* A bad profile stops the import before anything is rendered. */
	char p[4096];
	snprintf(p, sizeof p, "%s/tests/fixtures/import/bad-profile-negative.yaml",
		 src_root());
	o.costs = p;
	machine_desc_init(&m);
	diag_init(&d);
	assert_int_equal(import_numactl("x.txt", t, strlen(t), &o, &m, NULL, &d), NS_EINPUT);
	assert_string_equal(d.file, p);
	assert_null(m.nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_fixture_details),
		cmocka_unit_test(test_layout_x86),
		cmocka_unit_test(test_layout_arm64_none),
		cmocka_unit_test(test_arch_names),
		cmocka_unit_test(test_numactl_errors),
		cmocka_unit_test(test_bad_fixtures),
		cmocka_unit_test(test_tolerated_forms),
		cmocka_unit_test(test_pasted_text),
		cmocka_unit_test(test_sysfs_trees),
		cmocka_unit_test(test_sysfs_errors),
		cmocka_unit_test(test_emit_units_and_quotes),
		cmocka_unit_test(test_costs_profiles),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_render_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
