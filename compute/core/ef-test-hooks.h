/* ef-test-hooks.h: switches that only tests turn: forced code paths, compiled in with -Dtest_hooks=true. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Private: the engine's files that a switch changes, and the tests that turn it, include this; nothing
 * else may. Without -Dtest_hooks=true (EF_TEST_HOOKS 0 in config.h, which comes first) the setters do
 * not exist and the queries are constants, so a user's build has neither the switches nor their cost;
 * the tests that need them skip and say why. The CUDA library's own (allocation failures, the FFBP
 * kernels' exact path, the count of image bytes copied to the host) are in cuda/ef-cuda-test-hooks.h. */

#include <glib.h>

#ifndef EF_TEST_HOOKS
#error "config.h comes before ef-test-hooks.h"
#endif

G_BEGIN_DECLS

/* How a test that needs a switch says why it skips: "WHAT: " EF_TEST_HOOKS_MISSING. */
#define EF_TEST_HOOKS_MISSING "the test hooks are not built (configure with -Dtest_hooks=true)"

#if EF_TEST_HOOKS
/* The CPU formers' portable loops (the compiler-vectorised clones) instead of their AVX-512 intrinsics:
 * BP's tile loop, FFBP's leaves and merges; and the arcs periodogram's plain loop instead of its AVX2
 * vectors. On while set on, or while EF_BP_PORTABLE is in the environment (for benchmarks).
 * Process-wide; read when a former or a periodogram starts. */
void     ef_test_hooks_set_portable_simd (gboolean on);
gboolean ef_test_hooks_portable_simd (void);
/* The CPU backend's blocks_per_call (ef-backend.h) for backends created from now on (0: its own, one),
 * so that the job's grouping of several blocks into a call runs without several devices. Process-wide. */
void     ef_test_hooks_set_cpu_blocks_per_call (guint n);
guint    ef_test_hooks_cpu_blocks_per_call (void);
#else
#define ef_test_hooks_portable_simd() FALSE
#define ef_test_hooks_cpu_blocks_per_call() 0u
#endif

G_END_DECLS
