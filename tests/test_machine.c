/*
 * Tests for models/machine: loading good machines from buffers and from the
 * shipped test machines, every field of the result, machine_check() on good
 * and corrupted machines, latency interpolation, cost profiles, error
 * positions, and robustness against truncated and mutated input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "machine/machine.h"
#include "numasim_config.h"
#include "base/sha256.h"
#include "base/ytree.h"

#define COSTS                                                                  \
	"costs:\n"                                                             \
	"  clock_ghz:        {value: 2.5, source: \"[PE-CPU]\"}\n"             \
	"  call_return:      {value: 4, source: \"assumption\"}\n"             \
	"  branch:           {value: 1, source: \"[LLVM-SKX]\"}\n"             \
	"  taken_branch:     {value: 1.5, source: \"[LLVM-SKX]\"}\n"           \
	"  mispredict:       {value: 14, source: \"[LLVM-SKX]\"}\n"            \
	"  return_stack:     {value: 16, source: \"[RSB-SKL]\"}\n"             \
	"  line_size:        {value: 64, source: \"SDM\"}\n"                   \
	"  l1d_size:         {value: 32KiB, source: \"[PE-CPU]\"}\n"           \
	"  l1d_latency:      {value: 4, source: \"[AT-ROME]\"}\n"              \
	"  l2_size:          {value: 1M, source: \"[PE-CPU]\"}\n"              \
	"  l2_latency:       {value: 14, source: \"[AT-ROME]\"}\n"             \
	"  llc_size:         {value: 36608KiB, source: \"[PE-CPU]\"}\n"        \
	"  llc_latency:      {value: 46, source: \"[AT-ROME]\"}\n"             \
	"  atomic:           {value: 6, source: \"[PP-U64STATS]\"}\n"          \
	"  lock_uncontended: {value: 28, source: \"[PP-U64STATS]\"}\n"         \
	"  irq_save_restore: {value: 37, source: \"[SLUB-BULK-FREE]\"}\n"      \
	"  this_cpu_cmpxchg: {value: 9, source: \"[SLUB-BULK-FREE]\"}\n"       \
	"  memory_latency:\n"                                                  \
	"    - {distance: 10, ns: 78.5, source: \"[PE-NUMA] local\"}\n"        \
	"    - {distance: 21, ns: 144.1, source: \"[PE-NUMA] remote\"}\n"      \
	"  line_transfer:\n"                                                   \
	"    - {distance: 10, ns: 45.1, source: \"[PE-CPU]\"}\n"               \
	"    - {distance: 16, ns: 60, source: \"made up\"}\n"                  \
	"    - {distance: 21, ns: 110.0, source: \"[PE-CPU]\"}\n"

static const char two_node[] =
	"name: skylake-2s\n"
	"description: 2-socket test box\n"
	"sources:\n"
	"  - \"numactl --hardware\"\n"
	"  - sysfs\n"
	"nodes:\n"
	"  - id: 0\n"
	"    cpus: 0-3,8-11\n"
	"    zones:\n"
	"      - {type: DMA, size: 16MiB}\n"
	"      - {type: DMA32, size: 2GiB}\n"
	"      - {type: Normal, size: 94GiB}\n"
	"  - id: 1\n"
	"    cpus: \"4-7,12-15\"\n"
	"    zones:\n"
	"      - {type: Normal, size: 96GiB}\n"
	"distance:\n"
	"  - [10, 21]\n"
	"  - [21, 10]\n" COSTS;

static struct machine *load_ok(const char *text)
{
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	int rc = machine_load_buf("test.yaml", text, strlen(text), &m, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	assert_non_null(m);
	diag_init(&d);
	rc = machine_check(m, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	return m;
}

static void expect_error(const char *text, int line, int col, const char *frag)
{
	struct machine *m = (struct machine *)&m;
	struct diag d;
	diag_init(&d);
	int rc = machine_load_buf("bad.yaml", text, strlen(text), &m, &d);
	assert_int_equal(rc, NS_EINPUT);
	assert_null(m);
	assert_int_equal(d.status, NS_EINPUT);
	assert_string_equal(d.file, "bad.yaml");
	if (d.line != line || d.col != col || !strstr(d.msg, frag)) {
		diag_print(&d, stderr);
		fprintf(stderr, "expected %d:%d: ...%s...\n", line, col, frag);
	}
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
	assert_non_null(strstr(d.msg, frag));
}

/* ---- good machines ----------------------------------------------------- */

static void test_two_node_fields(void **state)
{
	(void)state;
	struct machine *m = load_ok(two_node);
	assert_string_equal(m->path, "test.yaml");
	assert_string_equal(m->name, "skylake-2s");
	assert_string_equal(m->description, "2-socket test box");
	assert_int_equal(m->nr_sources, 2);
	assert_string_equal(m->sources[0], "numactl --hardware");
	assert_string_equal(m->sources[1], "sysfs");
	assert_int_equal(m->page_size, 4096);
	assert_int_equal(m->nr_nodes, 2);

	const struct machine_node *n0 = &m->nodes[0], *n1 = &m->nodes[1];
	assert_int_equal(n0->id, 0);
	assert_int_equal(n0->nr_cpus, 8);
	int want0[] = {0, 1, 2, 3, 8, 9, 10, 11};
	assert_memory_equal(n0->cpus, want0, sizeof want0);
	assert_int_equal(n0->nr_zones, 3);
	assert_int_equal(n0->zones[0].type, ZONE_DMA);
	assert_int_equal(n0->zones[0].pages, 4096);
	assert_int_equal(n0->zones[1].type, ZONE_DMA32);
	assert_int_equal(n0->zones[1].pages, 524288);
	assert_int_equal(n0->zones[2].type, ZONE_NORMAL);
	assert_int_equal(n0->zones[2].pages, 94ull << 18);
	assert_int_equal(n0->mem_pages, 4096 + 524288 + (94ull << 18));
	assert_int_equal(n1->id, 1);
	assert_int_equal(n1->nr_cpus, 8);
	assert_int_equal(n1->cpus[0], 4);
	assert_int_equal(n1->cpus[7], 15);
	assert_int_equal(n1->nr_zones, 1);
	assert_int_equal(n1->zones[0].type, ZONE_NORMAL);
	assert_int_equal(n1->mem_pages, 96ull << 18);
	assert_int_equal(machine_mem_pages(m), n0->mem_pages + n1->mem_pages);

	assert_int_equal(m->node_index[0], 0);
	assert_int_equal(m->node_index[1], 1);
	assert_int_equal(m->node_index[2], -1);
	assert_int_equal(m->node_index[MACHINE_MAX_NODES - 1], -1);
	assert_int_equal(m->nr_cpus, 16);
	assert_int_equal(m->max_cpu, 15);
	for (int c = 0; c <= 15; c++)
		assert_int_equal(m->cpu_node[c], (c & 4) ? 1 : 0);
	assert_int_equal(machine_distance(m, 0, 0), 10);
	assert_int_equal(machine_distance(m, 0, 1), 21);
	assert_int_equal(machine_distance(m, 1, 0), 21);

	const struct machine_costs *c = &m->costs;
	assert_true(c->clock_ghz.value == 2.5);
	assert_string_equal(c->clock_ghz.source, "[PE-CPU]");
	assert_int_equal(c->clock_ghz.line, 21);
	assert_int_equal(c->clock_ghz.col, 29);
	assert_true(c->taken_branch.value == 1.5);
	assert_true(c->return_stack.value == 16);
	assert_true(c->line_size.value == 64);
	assert_true(c->l1d_size.value == 32768);
	assert_true(c->l2_size.value == 1048576);
	assert_true(c->llc_size.value == 36608.0 * 1024);
	assert_true(c->this_cpu_cmpxchg.value == 9);
	assert_string_equal(c->this_cpu_cmpxchg.source, "[SLUB-BULK-FREE]");
	assert_int_equal(c->nr_memory_latency, 2);
	assert_int_equal(c->memory_latency[1].distance, 21);
	assert_true(c->memory_latency[1].ns == 144.1);
	assert_string_equal(c->memory_latency[1].source, "[PE-NUMA] remote");
	assert_int_equal(c->nr_line_transfer, 3);
	assert_null(c->name);

	uint8_t want[SHA256_DIGEST_LEN];
	sha256(two_node, strlen(two_node), want);
	assert_memory_equal(m->sha256, want, sizeof want);
	machine_free(m);
}

static void test_sparse_ids(void **state)
{
	(void)state;
	struct machine *m = load_ok(
		"name: sparse\nsources: []\nnodes:\n"
		"  - {id: 0, cpus: '0-1', zones: [{type: Normal, size: 1GiB}]}\n"
		"  - {id: 1, cpus: '2-3', zones: [{type: Normal, size: 1GiB}]}\n"
		"  - {id: 3, cpus: '4-5', zones: [{type: Normal, size: 100}]}\n"
		"distance: [[10, 21, 31], [21, 10, 21], [31, 21, 10]]\n" COSTS);
	assert_int_equal(m->nr_nodes, 3);
	assert_null(m->description);
	assert_int_equal(m->nr_sources, 0);
	assert_int_equal(m->nodes[2].id, 3);
	assert_int_equal(m->node_index[2], -1);
	assert_int_equal(m->node_index[3], 2);
	assert_int_equal(m->nodes[2].mem_pages, 100);
	assert_int_equal(machine_distance(m, 0, 3), 31);
	assert_int_equal(machine_distance(m, 3, 1), 21);
	assert_int_equal(m->cpu_node[5], 3);
	machine_free(m);
}

static void test_memoryless_and_cpuless(void **state)
{
	(void)state;
	struct machine *m = load_ok(
		"name: cxl\nsources: []\nnodes:\n"
		"  - {id: 0, cpus: 0-3, zones: [{type: Normal, size: 1GiB}]}\n"
		"  - {id: 1, cpus: 6-7, zones: []}\n"
		"  - {id: 2, cpus: \"\", zones: [{type: Movable, size: 2GiB}]}\n"
		"distance: [[10, 21, 14], [21, 10, 24], [14, 24, 10]]\n" COSTS);
	assert_int_equal(m->nodes[1].nr_zones, 0);
	assert_int_equal(m->nodes[1].mem_pages, 0);
	assert_int_equal(m->nodes[1].nr_cpus, 2);
	assert_int_equal(m->nodes[2].nr_cpus, 0);
	assert_null(m->nodes[2].cpus);
	assert_int_equal(m->nodes[2].zones[0].type, ZONE_MOVABLE);
	assert_int_equal(m->nr_cpus, 6);
	assert_int_equal(m->max_cpu, 7);
	assert_int_equal(m->cpu_node[4], -1);
	assert_int_equal(m->cpu_node[5], -1);
	assert_int_equal(m->cpu_node[6], 1);
	machine_free(m);
}

static void test_no_cpus_at_all(void **state)
{
	(void)state;
	struct machine *m = load_ok(
		"name: nocpu\nsources: []\nnodes:\n"
		"  - {id: 0, cpus: '', zones: [{type: Normal, size: 1GiB}]}\n"
		"distance: [[10]]\n" COSTS);
	assert_int_equal(m->nr_cpus, 0);
	assert_int_equal(m->max_cpu, -1);
	assert_null(m->cpu_node);
	machine_free(m);
}

static void test_asymmetric_distance(void **state)
{
	(void)state;
	struct machine *m = load_ok(
		"name: asym\nsources: []\nnodes:\n"
		"  - {id: 0, cpus: '0', zones: []}\n"
		"  - {id: 5, cpus: '1', zones: []}\n"
		"distance:\n  - [10, 20]\n  - [30, 10]\n" COSTS);
	assert_int_equal(machine_distance(m, 0, 5), 20);
	assert_int_equal(machine_distance(m, 5, 0), 30);
	assert_int_equal(m->distance[1], 20);
	assert_int_equal(m->distance[2], 30);
	machine_free(m);
}

static void test_size_units(void **state)
{
	(void)state;
	static const struct {
		const char *size;
		uint64_t bytes;
	} v[] = {
		{"8192B", 8192},        {"8KiB", 8192},         {"8K", 8192},
		{"8KB", 8192},          {"3MiB", 3 << 20},      {"3M", 3 << 20},
		{"3MB", 3 << 20},       {"2GiB", 2ull << 30},   {"2G", 2ull << 30},
		{"2GB", 2ull << 30},    {"1TiB", 1ull << 40},   {"1T", 1ull << 40},
		{"1TB", 1ull << 40},    {"\"16 MiB\"", 16 << 20}, {"'4GiB'", 4ull << 30},
		{"5", 5 * 4096},
	};
	char buf[4096];
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		snprintf(buf, sizeof buf,
			 "name: u\nsources: []\nnodes:\n"
			 "  - {id: 0, cpus: '0', zones: [{type: Normal, size: %s}]}\n"
			 "distance: [[10]]\n%s", v[i].size, COSTS);
		struct machine *m = load_ok(buf);
		assert_int_equal(m->nodes[0].zones[0].pages, v[i].bytes / 4096);
		machine_free(m);
	}
	/* 2^64 bytes is one too many; 2^64 - 1 TiB-granular is not */
	snprintf(buf, sizeof buf,
		 "name: u\nsources: []\nnodes:\n"
		 "  - {id: 0, cpus: '0', zones: [{type: Normal, size: 16777216TiB}]}\n"
		 "distance: [[10]]\n%s", COSTS);
	expect_error(buf, 4, 53, "overflows 64 bits");
	snprintf(buf, sizeof buf,
		 "name: u\nsources: []\nnodes:\n"
		 "  - {id: 0, cpus: '0', zones: [{type: Normal, size: 16777215TiB}]}\n"
		 "distance: [[10]]\n%s", COSTS);
	struct machine *m = load_ok(buf);
	assert_int_equal(m->nodes[0].zones[0].pages, 16777215ull << 28);
	machine_free(m);
}

/* `free:` under a node: memory free at the start, in pages or with a unit;
 * absent = all free (used_pages 0). */
static void test_node_free(void **state)
{
	(void)state;
	struct machine *m = load_ok(
		"name: f\nsources: []\nnodes:\n"
		"  - id: 0\n    cpus: 0-1\n    free: 48MiB\n    zones:\n"
		"      - {type: DMA32, size: 16MiB}\n      - {type: Normal, size: 64MiB}\n"
		"  - {id: 1, cpus: '2', zones: [{type: Normal, size: 64MiB}], free: 100}\n"
		"  - {id: 2, cpus: '3', zones: [{type: Normal, size: 64MiB}]}\n"
		"  - {id: 3, cpus: '4', zones: [], free: 0}\n"
		"distance: [[10, 20, 20, 20], [20, 10, 20, 20], [20, 20, 10, 20], [20, 20, 20, 10]]\n"
		COSTS);
	assert_int_equal(m->nodes[0].used_pages, 20480 - 12288);
	assert_int_equal(m->nodes[1].used_pages, 16384 - 100);
	assert_int_equal(m->nodes[2].used_pages, 0);
	assert_int_equal(m->nodes[3].used_pages, 0);
	struct diag d;
	diag_init(&d);
	assert_int_equal(machine_check(m, &d), NS_OK);
	machine_free(m);
}

static void test_page_size_64k(void **state)
{
	(void)state;
	struct machine *m = load_ok(
		"name: arm64\nsources: [\"hand-made\"]\npage_size: 64KiB\nnodes:\n"
		"  - id: 0\n    cpus: 0-47\n    zones:\n"
		"      - {type: DMA, size: 1GiB}\n      - {type: Normal, size: 3}\n"
		"distance: [[10]]\n" COSTS);
	assert_int_equal(m->page_size, 65536);
	assert_int_equal(m->nodes[0].zones[0].pages, 16384);
	assert_int_equal(m->nodes[0].zones[1].pages, 3);
	assert_int_equal(m->nodes[0].mem_pages, 16387);
	machine_free(m);
	m = load_ok("name: p\nsources: []\npage_size: 65536\nnodes:\n"
		    "  - {id: 0, cpus: '0', zones: [{type: Normal, size: 128KiB}]}\n"
		    "distance: [[10]]\n" COSTS);
	assert_int_equal(m->nodes[0].zones[0].pages, 2);
	machine_free(m);
	/* 4 KiB-aligned is not enough with 64 KiB pages */
	expect_error("name: p\nsources: []\npage_size: 65536\nnodes:\n"
		     "  - {id: 0, cpus: '0', zones: [{type: Normal, size: 68KiB}]}\n"
		     "distance: [[10]]\n" COSTS,
		     5, 53, "not a multiple of the page size (65536 bytes)");
}

/* The test machines other modules use must stay valid. */
static void test_shipped_test_machines(void **state)
{
	(void)state;
	static const char *const files[] = {
		"tests/machines/two-node.yaml",
		"tests/machines/sparse.yaml",
		"tests/machines/memoryless.yaml",
	};
	const char *src = getenv("NUMASIM_SRC");
	if (!src)
		src = NUMASIM_SOURCE_ROOT;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[4096];
		struct machine *m = NULL;
		struct diag d;
		diag_init(&d);
		snprintf(path, sizeof path, "%s/%s", src, files[i]);
		int rc = machine_load_file(path, &m, &d);
		if (rc)
			diag_print(&d, stderr);
		assert_int_equal(rc, NS_OK);
		assert_string_equal(m->path, path);
		assert_int_equal(machine_check(m, &d), NS_OK);
		assert_true(m->nr_sources >= 0);
		machine_free(m);
	}
}

/* ---- latency lookup ---------------------------------------------------- */

static void test_memory_latency(void **state)
{
	(void)state;
	struct machine *m = load_ok(two_node);
	assert_true(machine_memory_latency_ns(m, 10) == 78.5);
	assert_true(machine_memory_latency_ns(m, 21) == 144.1);
	/* linear in between */
	assert_true(fabs(machine_memory_latency_ns(m, 16) -
			 (78.5 + (144.1 - 78.5) * 6.0 / 11.0)) < 1e-9);
	/* proportional beyond the last point */
	assert_true(fabs(machine_memory_latency_ns(m, 31) - 144.1 * 31 / 21) < 1e-9);
	assert_true(fabs(machine_memory_latency_ns(m, 255) - 144.1 * 255 / 21) < 1e-9);
	/* a three-point table interpolates per segment */
	assert_true(machine_line_transfer_ns(m, 10) == 45.1);
	assert_true(fabs(machine_line_transfer_ns(m, 13) - (45.1 + 14.9 / 2)) < 1e-9);
	assert_true(machine_line_transfer_ns(m, 16) == 60);
	assert_true(fabs(machine_line_transfer_ns(m, 18) - (60 + 50.0 * 2 / 5)) < 1e-9);
	assert_true(fabs(machine_line_transfer_ns(m, 42) - 220.0) < 1e-9);
	machine_free(m);

	struct latency_point one = {10, 50.0, "x"};
	assert_true(machine_latency_ns(&one, 1, 10) == 50.0);
	assert_true(machine_latency_ns(&one, 1, 20) == 100.0);
	assert_true(machine_latency_ns(NULL, 0, 20) == 0.0);
}

/* ---- machine_check ------------------------------------------------------ */

static void expect_check_fails(struct machine *m, const char *frag)
{
	struct diag d;
	diag_init(&d);
	assert_int_equal(machine_check(m, &d), NS_EINTERNAL);
	if (!strstr(d.msg, frag))
		fprintf(stderr, "machine_check: %s (wanted '%s')\n", d.msg, frag);
	assert_non_null(strstr(d.msg, frag));
}

static void test_check_detects_corruption(void **state)
{
	(void)state;
	struct machine *m = load_ok(two_node);
	struct diag d;

	m->distance[3] = 11;
	expect_check_fails(m, "distance[1][1]");
	m->distance[3] = 10;
	m->distance[1] = 256;
	expect_check_fails(m, "distance[0][1]");
	m->distance[1] = 21;

	m->node_index[5] = 0;
	expect_check_fails(m, "node_index[5]");
	m->node_index[5] = -1;

	m->cpu_node[9] = 1;
	expect_check_fails(m, "CPU 9");
	m->cpu_node[9] = 0;

	m->nodes[1].mem_pages++;
	expect_check_fails(m, "mem_pages");
	m->nodes[1].mem_pages--;

	m->nodes[1].used_pages = m->nodes[1].mem_pages + 1;
	expect_check_fails(m, "used_pages");
	m->nodes[1].used_pages = 0;

	m->nodes[0].zones[1].type = ZONE_DMA;
	expect_check_fails(m, "ascending type order");
	m->nodes[0].zones[1].type = ZONE_DMA32;

	m->nodes[0].cpus[1] = 0;
	expect_check_fails(m, "not ascending");
	m->nodes[0].cpus[1] = 1;

	m->nr_cpus = 15;
	expect_check_fails(m, "nr_cpus");
	m->nr_cpus = 16;

	m->costs.mispredict.value = 0;
	expect_check_fails(m, "mispredict");
	m->costs.mispredict.value = 14;

	char *s = m->costs.atomic.source;
	m->costs.atomic.source = NULL;
	expect_check_fails(m, "atomic has no source");
	m->costs.atomic.source = s;

	m->costs.memory_latency[1].distance = 10;
	expect_check_fails(m, "not ascending");
	m->costs.memory_latency[1].distance = 21;

	m->page_size = 8192 + 4096;
	expect_check_fails(m, "page_size");
	m->page_size = 4096;

	diag_init(&d);
	assert_int_equal(machine_check(m, &d), NS_OK);
	machine_free(m);
}

/* ---- cost profiles ------------------------------------------------------ */

static void test_cost_profile(void **state)
{
	(void)state;
	const char *text = "name: skx\ndescription: Skylake-SP\n" COSTS;
	struct machine_costs c;
	struct diag d;
	diag_init(&d);
	assert_int_equal(machine_costs_load_buf("p.yaml", text, strlen(text), &c, &d),
			 NS_OK);
	assert_string_equal(c.name, "skx");
	assert_string_equal(c.description, "Skylake-SP");
	assert_true(c.mispredict.value == 14);
	assert_int_equal(c.mispredict.line, 8);
	assert_int_equal(c.nr_line_transfer, 3);
	assert_int_equal(machine_costs_check(&c, "p.yaml", &d), NS_OK);
	machine_costs_free(&c);
	assert_null(c.name);
	assert_null(c.memory_latency);

	/* errors leave *out zeroed */
	const char *bad = "name: skx\nnodes: []\n" COSTS;
	diag_init(&d);
	memset(&c, 0x5a, sizeof c);
	assert_int_equal(machine_costs_load_buf("p.yaml", bad, strlen(bad), &c, &d),
			 NS_EINPUT);
	assert_null(c.name);
	assert_null(c.clock_ghz.source);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 1);
	assert_non_null(strstr(d.msg, "unknown key 'nodes' in cost profile"));

	const char *late = "name: skx\n" COSTS "    - {distance: 9, ns: 1, source: x}\n";
	diag_init(&d);
	assert_int_equal(machine_costs_load_buf("p.yaml", late, strlen(late), &c, &d),
			 NS_EINPUT);
	assert_int_equal(d.line, 27);
	assert_int_equal(d.col, 18);
	assert_null(c.name);

	char path[4096];
	const char *src = getenv("NUMASIM_SRC");
	snprintf(path, sizeof path, "%s/tests/costs/cascadelake.yaml",
		 src ? src : NUMASIM_SOURCE_ROOT);
	diag_init(&d);
	assert_int_equal(machine_costs_load_file(path, &c, &d), NS_OK);
	assert_string_equal(c.name, "cascadelake");
	assert_true(c.llc_size.value == 36608.0 * 1024);
	machine_costs_free(&c);
}

/* ---- errors --------------------------------------------------------------- */

static void test_error_positions(void **state)
{
	(void)state;
	expect_error("", 1, 1, "empty file");
	expect_error("# only a comment\n", 1, 1, "empty file");
	expect_error("name: *x\n", 1, 7, "aliases");
	expect_error("a: 1\nb: [1, &x 2]\n", 2, 8, "anchors (&x)");
	expect_error("- 1\n", 1, 1, "machine file must be a mapping, got a sequence");
	expect_error("name: a\nname: b\n", 2, 1,
		     "duplicate key 'name' in machine file (first at line 1)");
	expect_error("name: a\n", 1, 1, "missing required key 'sources'");
	expect_error("name: a\nsources: []\nfoo: 1\n", 3, 1,
		     "unknown key 'foo' in machine file");
	expect_error("name: a\n---\nb: 1\n", 2, 1, "more than one YAML document");
	expect_error("name: [a\n", 2, 1, "malformed YAML");
	expect_error("name: a\n\tsources: []\n", 2, 1, "tab character");
	expect_error("name: a\nnodes:\n\t- 1\n", 3, 1, "cannot start any token");

	/* a valid frame around one broken node */
	const char *head = "name: a\nsources: []\nnodes:\n  - id: 0\n";
	char buf[8192];
#define NODE_ERR(body, l, c, frag)                                            \
	do {                                                                   \
		snprintf(buf, sizeof buf, "%s%sdistance: [[10]]\n%s", head, body, \
			 COSTS);                                               \
		expect_error(buf, l, c, frag);                                 \
	} while (0)
	NODE_ERR("    cpus: 0-3,,4\n    zones: []\n", 5, 15, "expected a CPU number");
	NODE_ERR("    cpus: '0-3 ,4'\n    zones: []\n", 5, 15, "expected ','");
	/* escapes or non-ASCII: the column falls back to the scalar's start */
	NODE_ERR("    cpus: \"0-3\\x41\"\n    zones: []\n", 5, 11, "expected ','");
	NODE_ERR("    cpus: \"0-3\\u00e9\"\n    zones: []\n", 5, 11, "expected ','");
	NODE_ERR("    cpus: 0-3\n    zones: []\n  - id: 1\n    cpus: 4-5,3\n"
		 "    zones: []\n", 8, 11, "CPU 3 of node 1 is already in node 0");
	NODE_ERR("    cpus: 0-3\n    zones: [{type: Normal, size: 99999999999TiB}]\n",
		 6, 34, "overflows 64 bits");
	NODE_ERR("    cpus: 0-3\n    zones: [{type: Normal, size: 1GiB}, "
		 "{type: DMA, size: 1GiB}]\n", 6, 48, "kernel order");
	NODE_ERR("    cpus: 0-3\n    zones: [{type: Highmem, size: 1GiB}]\n", 6, 20,
		 "unknown zone type 'Highmem'");
	NODE_ERR("    cpus: 0-3\n    zones: [{type: Normal, size: 4095B}]\n", 6, 34,
		 "not a multiple of the page size");
	NODE_ERR("    cpus: 0-3\n    zones: [{type: Normal, size: 1.5GiB}]\n", 6, 34,
		 "whole number");
	NODE_ERR("    cpus: 0-3\n    zones: [{type: Normal, size: 4 PiB}]\n", 6, 34,
		 "unknown size unit");
	NODE_ERR("    cpus: 0-3\n    zones: [{type: Normal, size: 0GiB}]\n", 6, 34,
		 "must be positive");
	NODE_ERR("    cpus: 0-3\n", 4, 5, "missing required key 'zones' in node");
#undef NODE_ERR

	/* distance matrix */
	const char *nodes2 = "name: a\nsources: []\nnodes:\n"
			     "  - {id: 0, cpus: '0', zones: []}\n"
			     "  - {id: 1, cpus: '1', zones: []}\n";
#define DIST_ERR(dist, l, c, frag)                                            \
	do {                                                                   \
		snprintf(buf, sizeof buf, "%sdistance: %s\n%s", nodes2, dist,  \
			 COSTS);                                               \
		expect_error(buf, l, c, frag);                                 \
	} while (0)
	DIST_ERR("[[10, 21], [21, 12]]", 6, 27, "to itself must be 10, got 12");
	DIST_ERR("[[10, 21], [21]]", 6, 22, "has 1 entry, expected 2");
	DIST_ERR("[[10, 21]]", 6, 11, "has 1 row, expected 2");
	DIST_ERR("[[10, 21], [0x15, 10]]", 6, 23, "decimal integer");
	DIST_ERR("[[10, 21], [21, 10], [10, 10]]", 6, 11, "has 3 rows");
	DIST_ERR("{a: 1}", 6, 11, "'distance' must be a sequence, got a mapping");
#undef DIST_ERR
}

static void test_limits(void **state)
{
	(void)state;
	/* nesting: 64 levels (the top-level mapping is one) pass the YAML
	 * layer, 65 do not */
	char buf[512];
	int n = snprintf(buf, sizeof buf, "name: ");
	for (int i = 0; i < 63; i++)
		buf[n++] = '[';
	for (int i = 0; i < 63; i++)
		buf[n++] = ']';
	buf[n] = '\0';
	expect_error(buf, 1, 1, "missing required key");
	n = snprintf(buf, sizeof buf, "name: ");
	for (int i = 0; i < 64; i++)
		buf[n++] = '[';
	for (int i = 0; i < 64; i++)
		buf[n++] = ']';
	buf[n] = '\0';
	expect_error(buf, 1, 70, "nesting deeper than 64 levels");

	/* more than 16 MiB: refused at the first byte past the limit */
	size_t big = YTREE_MAX_BYTES + 1;
	char *text = malloc(big + 1);
	assert_non_null(text);
	memset(text, '#', big);
	for (size_t i = 99; i < big; i += 100)
		text[i] = '\n';
	text[big] = '\0';
	struct machine *m = (struct machine *)text;
	struct diag d;
	diag_init(&d);
	assert_int_equal(machine_load_buf("big.yaml", text, big, &m, &d), NS_EINPUT);
	assert_null(m);
	assert_int_equal(d.line, (int)(YTREE_MAX_BYTES / 100) + 1);
	assert_int_equal(d.col, (int)(YTREE_MAX_BYTES % 100) + 1);
	assert_non_null(strstr(d.msg, "larger than the 16 MiB limit"));
	free(text);

	/* too many nodes: the same path as the 2^21 default, with a limit
	 * of 100 (the mapping, its key and the list are nodes 1..3) */
	static const struct ytree_limits lim = {1 << 20, 8, 100};
	char list[512];
	struct ytree *t = (struct ytree *)list;
	n = snprintf(list, sizeof list, "a: [");
	for (int i = 0; i < 97; i++)
		n += snprintf(list + n, sizeof list - (size_t)n, "%d,", i % 10);
	list[n - 1] = ']';
	diag_init(&d);
	assert_int_equal(ytree_parse_limited("l.yaml", list, (size_t)n, &lim, &t, &d),
			 NS_OK);
	assert_int_equal(t->root->items[1]->nr, 97);
	ytree_free(t);
	list[n - 1] = ',';
	list[n++] = '7';
	list[n++] = ']';
	diag_init(&d);
	assert_int_equal(ytree_parse_limited("l.yaml", list, (size_t)n, &lim, &t, &d),
			 NS_EINPUT);
	assert_null(t);
	assert_non_null(strstr(d.msg, "more than 100 YAML nodes"));
	assert_int_equal(d.line, 1);
	assert_int_equal(d.col, n - 1);
	/* depth and size limits of the same call */
	diag_init(&d);
	assert_int_equal(ytree_parse_limited("l.yaml", "a: [[[[[[[[1]]]]]]]]", 20,
					     &lim, &t, &d), NS_EINPUT);
	assert_int_equal(d.col, 11);
	assert_non_null(strstr(d.msg, "deeper than 8 levels"));
	static const struct ytree_limits tiny = {10, 8, 100};
	diag_init(&d);
	assert_int_equal(ytree_parse_limited("l.yaml", "a: b\nc: ddd\n", 12, &tiny,
					     &t, &d), NS_EINPUT);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 6);
	assert_non_null(strstr(d.msg, "larger than the 10 byte limit"));
}

static void test_missing_file(void **state)
{
	(void)state;
	struct machine *m = (struct machine *)&m;
	struct diag d;
	diag_init(&d);
	assert_int_equal(machine_load_file("/nonexistent/numasim/x.yaml", &m, &d),
			 NS_ENOENT);
	assert_null(m);
	assert_string_equal(d.file, "/nonexistent/numasim/x.yaml");
}

/* Every prefix of a good file and a set of single-byte mutations must load
 * or fail cleanly (the sanitizer build checks for leaks and UB). */
static void test_truncations_and_mutations(void **state)
{
	(void)state;
	static const char subst[] = {'[', ']', '{', ':', '-', '&', '*', '!', '\t',
				     '\0', '"', '\n', '9', ',', '#', '\xff'};
	size_t len = strlen(two_node);
	char *buf = malloc(len + 1);
	assert_non_null(buf);
	int ok = 0, bad = 0;
	for (size_t cut = 0; cut <= len; cut++) {
		struct machine *m = NULL;
		struct diag d;
		diag_init(&d);
		int rc = machine_load_buf("t.yaml", two_node, cut, &m, &d);
		assert_true(rc == NS_OK || rc == NS_EINPUT);
		if (rc == NS_OK) {
			assert_int_equal(machine_check(m, &d), NS_OK);
			ok++;
		} else {
			assert_null(m);
			assert_true(d.line >= 1 && d.col >= 1);
			bad++;
		}
		machine_free(m);
	}
	/* valid prefixes end right after a complete line_transfer point (a
	 * one- or two-point table is still a table): after its '}', its
	 * newline, or 1..4 of the next line's indenting spaces; 3 x 6 - 4
	 * (the last point's line has no next line) = 14 */
	assert_int_equal(ok, 14);
	for (size_t pos = 0; pos < len; pos += 4)
		for (size_t s = 0; s < sizeof subst; s++) {
			struct machine *m = NULL;
			struct diag d;
			memcpy(buf, two_node, len + 1);
			buf[pos] = subst[s];
			diag_init(&d);
			int rc = machine_load_buf("t.yaml", buf, len, &m, &d);
			assert_true(rc == NS_OK || rc == NS_EINPUT);
			if (rc == NS_OK)
				assert_int_equal(machine_check(m, &d), NS_OK);
			else
				assert_true(d.line >= 1 && d.col >= 1 && d.msg[0]);
			machine_free(m);
		}
	free(buf);
	assert_true(bad > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_node_fields),
		cmocka_unit_test(test_node_free),
		cmocka_unit_test(test_sparse_ids),
		cmocka_unit_test(test_memoryless_and_cpuless),
		cmocka_unit_test(test_no_cpus_at_all),
		cmocka_unit_test(test_asymmetric_distance),
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_page_size_64k),
		cmocka_unit_test(test_shipped_test_machines),
		cmocka_unit_test(test_memory_latency),
		cmocka_unit_test(test_check_detects_corruption),
		cmocka_unit_test(test_cost_profile),
		cmocka_unit_test(test_error_positions),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_truncations_and_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
