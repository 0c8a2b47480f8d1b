/*
 * copy — the one mechanism of the models' fast copies, for sampled
 * accounting (cost.accounting sampled, cost/cpu.h "Sampled accounting").
 *
 * A fast call (one top-level call not sampled) charges no cost of its
 * own: it counts its branches and calls and sums its path signature, and
 * performs its memory accesses on the caches only under cost.sample_warm
 * caches (its stores and locked ops only under stores).  Run through a
 * model's ordinary code, every primitive still tests the accounting mode,
 * and the model still computes the primitives' arguments (addresses, home
 * nodes, work rows) before the test.  So a model's hot files (its kernel
 * functions: no set-up, checks or introspection) are compiled twice more
 * with the charging helpers of a fast call (cost/charge.h's CHARGE_COPY_*
 * options), where the compiler drops the work and, in the copy without
 * warming, the memory accesses together with their arguments.
 *
 * How (in the manner of SQLite's amalgamation and SQLITE_PRIVATE):
 *
 *   - A copy is one translation unit of the model (models/mm_copy.c for
 *     the page allocator) that #includes the model's hot .c files, built
 *     twice by meson with COPY_MODE 1 (for cost.sample_warm caches and
 *     stores) and 2 (for none).
 *   - Every function one hot file calls in another is declared once, in
 *     the model's internal header, with COPY_PRIVATE: nothing in the
 *     ordinary build, `static` in a copy, so each copy calls its own and
 *     no name collides at the link.  A function of the cold files stays a
 *     plain declaration and the copy calls the ordinary one.
 *   - Only the entries are renamed: the definition of an entry is named
 *     COPY_ENTRY(name), which is `name` in the ordinary build and
 *     name_fast / name_fastn in the copies; COPY_DECLARE(name) declares
 *     the two, and the ordinary entry runs the copy with COPY_CALL(c,
 *     name, args...) when cpu_fast_entry() says its top-level call will be
 *     fast (that starts the fast call; the entry ends it with
 *     cpu_fast_end() when the copy returns).
 *
 * So no list of names exists: a new function in a hot file is static in
 * the copy by its declaration, and a missing COPY_PRIVATE is a link
 * error that names it.  Inside a copy every call is a fast call's
 * (cpu_copy_call(): no depth is kept) and a return, an irq save or
 * restore and a this_cpu cmpxchg are nothing, as they are in any fast
 * call.  A copy's results are the ordinary code's, bit for bit: it
 * performs the steps a fast call performs there (test_page_alloc runs one
 * workload with the copies on and off and compares every count).
 *
 * Rules for a hot file: no function or file-scope name that another hot
 * file of the same model also defines (they share one translation unit),
 * no public function other than the entries (put it in a cold file), and
 * no `#define` that another hot file would see unless it means the same.
 */
#ifndef NUMASIM_COST_COPY_H
#define NUMASIM_COST_COPY_H

#include "cost/charge.h"

#if defined(COPY_MODE)
#if COPY_MODE != 1 && COPY_MODE != 2
#error "COPY_MODE is 1 (warming) or 2 (none)"
#endif
/* the charging options of this copy (cost/charge.h) */
#define COPY_CHARGE (COPY_MODE == 2 ? CHARGE_COPY_NOMEM : CHARGE_COPY_WARM)
#define COPY_PRIVATE static __attribute__((unused))
#define COPY_ENTRY(name) COPY_CAT(name, COPY_SUFFIX)
#if COPY_MODE == 2
#define COPY_SUFFIX _fastn
#else
#define COPY_SUFFIX _fast
#endif
#else
#define COPY_CHARGE 0u
#define COPY_PRIVATE
#define COPY_ENTRY(name) name
#endif

#define COPY_CAT_(a, b) a##b
#define COPY_CAT(a, b) COPY_CAT_(a, b)

/* The copies of entry `name`: declared beside the ordinary one. */
#define COPY_DECLARE(name) __typeof__(name) name##_fast, name##_fastn

/* Run the copy of entry `name` for this fast call: the warming one
 * under cost.sample_warm caches or stores, else the one without. */
#define COPY_CALL(c, name, ...)                                                \
	((c)->fwarm ? name##_fast(__VA_ARGS__) : name##_fastn(__VA_ARGS__))

#endif
