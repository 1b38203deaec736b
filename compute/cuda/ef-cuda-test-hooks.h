/* ef-cuda-test-hooks.h: the CUDA library's switches that only tests turn, with -Dtest_hooks=true. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Private, as ../core/ef-test-hooks.h is: the library's files that a switch changes and the tests that
 * turn it include it. Without the option the setters and the counter do not exist, and what the library
 * asks of them is constant. */

#include "ef-test-hooks.h"

G_BEGIN_DECLS

#if EF_TEST_HOOKS
/* Out-of-memory paths. fail_alloc_after: the n-th device or pinned allocation or cuFFT plan from now on
 * (0 = the next one) fails once as if the device were out of memory; n < 0 disarms it.
 * fail_alloc_above: every such allocation larger than bytes fails until it is called again with 0.
 * Process-wide. */
void     ef_cuda_debug_fail_alloc_after (int n);
void     ef_cuda_debug_fail_alloc_above (gsize bytes);
/* For the library's allocators: whether an allocation of size bytes is to fail now (0: of any size). */
gboolean ef_cuda_test_hooks_alloc_fails (gsize size);

/* FFBP: with on, every tile evaluates its geometry exactly in double per sample (the path that tiles
 * whose cubic fails its check take), so that tests can compare the two paths. Process-wide. */
void     ef_cuda_ffbp_debug_force_exact (gboolean on);
gboolean ef_cuda_test_hooks_ffbp_exact (void);

/* Several devices: rows a device sums at a time when it reads (0: the library's choice), for backends
 * created from now on, so that tests with small images reach the reads of several bands. Process-wide. */
void     ef_cuda_debug_set_read_band_rows (guint rows);
guint    ef_cuda_test_hooks_read_band_rows (void);

/* Bands of rows a backprojection launch is cut into (0: the library's choice, at most EF_CUDA_ROW_BANDS),
 * for backends created from now on: benchmarks compare the read overlapped with the last block against
 * one band. Process-wide. */
void     ef_cuda_debug_set_row_bands (guint n);
guint    ef_cuda_test_hooks_row_bands (void);

/* Threads that copy a block's samples into pinned memory (0: the library's choice), for benchmarks that
 * compare it with one. Process-wide, read at every block. */
void     ef_cuda_debug_set_copy_threads (guint n);
guint    ef_cuda_test_hooks_copy_threads (void);

/* Bytes of image data copied from the device to host memory by CUDA backends' read_image and by
 * ef_cuda_image_read since the program started: a display that shares the device image keeps it
 * unchanged over a whole job. Process-wide; thread-safe. */
guint64  ef_cuda_debug_d2h_image_bytes (void);
void     ef_cuda_test_hooks_count_d2h (guint64 bytes);

/* The arcs' fp32 periodogram: with on, every session runs the full-grid kernel (a thread an arc) that
 * devices short of shared memory fall back to, instead of the folded grid's. Process-wide. */
void     ef_cuda_arcs_debug_full_grid (gboolean on);
gboolean ef_cuda_test_hooks_arcs_full_grid (void);
#else
#define ef_cuda_test_hooks_alloc_fails(size) ((void) (size), FALSE)
#define ef_cuda_test_hooks_arcs_full_grid() FALSE
#define ef_cuda_test_hooks_ffbp_exact() FALSE
#define ef_cuda_test_hooks_count_d2h(bytes) ((void) (bytes))
#define ef_cuda_test_hooks_read_band_rows() 0u
#define ef_cuda_test_hooks_row_bands() 0u
#define ef_cuda_test_hooks_copy_threads() 0u
#endif

G_END_DECLS
