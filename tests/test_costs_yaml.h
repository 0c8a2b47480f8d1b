/*
 * Test machines' cost block: the `sources` line and a complete `costs:`
 * mapping with round figures (2.5 GHz, 4-cycle L1D, SLIT 10/21 latencies),
 * appended to a machine file text written in a test:
 *     static const char m[] = "name: x\nnodes: ...\ndistance: ...\n" TEST_COSTS_YAML;
 * Shared by the model tests that load machines from text.
 */
#ifndef NUMASIM_TEST_COSTS_YAML_H
#define NUMASIM_TEST_COSTS_YAML_H

#define TEST_COSTS_YAML                                                        \
	"sources: [test]\n"                                                    \
	"costs:\n"                                                             \
	"  clock_ghz: {value: 2.5, source: t}\n"                               \
	"  call_return: {value: 4, source: t}\n"                               \
	"  branch: {value: 1, source: t}\n"                                    \
	"  taken_branch: {value: 1, source: t}\n"                              \
	"  mispredict: {value: 16, source: t}\n"                               \
	"  return_stack: {value: 16, source: t}\n"                             \
	"  line_size: {value: 64, source: t}\n"                                \
	"  l1d_size: {value: 32KiB, source: t}\n"                              \
	"  l1d_latency: {value: 4, source: t}\n"                               \
	"  l2_size: {value: 256KiB, source: t}\n"                              \
	"  l2_latency: {value: 12, source: t}\n"                               \
	"  llc_size: {value: 4MiB, source: t}\n"                               \
	"  llc_latency: {value: 44, source: t}\n"                              \
	"  atomic: {value: 6, source: t}\n"                                    \
	"  lock_uncontended: {value: 28, source: t}\n"                         \
	"  irq_save_restore: {value: 37, source: t}\n"                         \
	"  this_cpu_cmpxchg: {value: 9, source: t}\n"                          \
	"  memory_latency:\n"                                                  \
	"    - {distance: 10, ns: 84, source: t}\n"                            \
	"    - {distance: 21, ns: 136, source: t}\n"                           \
	"  line_transfer:\n"                                                   \
	"    - {distance: 10, ns: 45, source: t}\n"                            \
	"    - {distance: 21, ns: 110, source: t}\n"

/* Two machines several model tests share (each test's comment says what it
 * relies on): one node with CPU 0 and Normal 64 MiB; two such nodes (CPU 0
 * on node 0, CPU 1 on node 1) at SLIT distance 21. */
#define TEST_MACHINE_ONE                                                       \
	"name: one\nnodes:\n  - id: 0\n    cpus: \"0\"\n    zones:\n"            \
	"      - {type: Normal, size: 64MiB}\n"                                 \
	"distance:\n  - [10]\n" TEST_COSTS_YAML
#define TEST_MACHINE_TWO                                                       \
	"name: two\nnodes:\n  - id: 0\n    cpus: \"0\"\n    zones:\n"            \
	"      - {type: Normal, size: 64MiB}\n"                                 \
	"  - id: 1\n    cpus: \"1\"\n    zones:\n"                              \
	"      - {type: Normal, size: 64MiB}\n"                                 \
	"distance:\n  - [10, 21]\n  - [21, 10]\n" TEST_COSTS_YAML

#endif
