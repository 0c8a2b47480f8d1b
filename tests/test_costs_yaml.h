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

#endif
