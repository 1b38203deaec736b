/* ef-cuda-arcs-private.h: the arc kernels' launch arguments and wrappers, shared by C and CUDA. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <cuda_runtime_api.h>

G_BEGIN_DECLS

/* A region on the device: n_passes planes of width x rows unit phasors, re and im apart. */
typedef struct {
  const float *re, *im;
  guint        width, rows, n_passes;
  const int   *off;      /* device, 2 n_off: dx, dy */
  guint        n_off;
  float       *coh;      /* device, n_off * width * rows */
} EfCudaArcsArgs;

/* The arc-parallel mapping's arc lists and gathered phasors, for arcs [a0, a0 + n) of the region's
 * n_off * width * rows (arc a: offset a / plane, pixel a % plane). */
typedef struct {
  guint  a0, n;
  guint *arc_p, *arc_q;          /* device, n: pixel indices (G_MAXUINT: the arc leaves the region) */
  float *p_re, *p_im, *q_re, *q_im;   /* device, n_passes * n, pass-major */
} EfCudaArcsSoa;

gboolean ef_cuda_arcs_window_launch (cudaStream_t stream, const EfCudaArcsArgs *a, GError **error);
gboolean ef_cuda_arcs_soa_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const EfCudaArcsSoa *soa,
                                  GError **error);
gboolean ef_cuda_arcs_graph_launch (cudaStream_t stream, const EfCudaArcsArgs *a, GError **error);
/* The periodogram: table_re/im[g * n_passes + k]; best (device, like coh) may be NULL. */
gboolean ef_cuda_arcs_periodogram_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const float *table_re,
                                          const float *table_im, guint n_grid, guint16 *best, GError **error);
/* The periodogram on the folded grid (ef-arcs.h), register-tiled on CUDA cores (ef-cuda-arcs-half.cuh).
 * Its tables, p and q of the folded grid's pairs, go to the device tiled: EF_CUDA_ARCS_HALF_PAIRS pairs
 * a tile, the passes zero-padded to a multiple of EF_CUDA_ARCS_HALF_PASSES (ef_cuda_arcs_half_npad). */
#define EF_CUDA_ARCS_HALF_PAIRS 64u
#define EF_CUDA_ARCS_HALF_PASSES 16u
guint    ef_cuda_arcs_half_npad (guint n_passes);
guint    ef_cuda_arcs_half_tiles (guint n_pairs);
/* dst[(tile * npad + k) * EF_CUDA_ARCS_HALF_PAIRS + j] = src[(tile * EF_CUDA_ARCS_HALF_PAIRS + j) *
 * n_passes + k] (src: ef_arc_half_table's p or q), zero past the pairs and the passes; dst holds
 * ef_cuda_arcs_half_tiles (n_pairs) * EF_CUDA_ARCS_HALF_PAIRS * ef_cuda_arcs_half_npad (n_passes). */
void     ef_cuda_arcs_half_layout (const float *src, guint n_passes, guint n_pairs, float *dst);
/* Whether the current device gives a block the shared memory the kernel needs for n_passes (2 npad
 * x 64 floats, and its static buffers); FALSE with error when it cannot be asked. */
gboolean ef_cuda_arcs_half_fits (guint n_passes, gboolean *fits, GError **error);
/* tp, tq: the laid-out tables (device); rot: the centre's rotation (device, 2 n_passes floats, re and
 * im of pass k at 2 k and 2 k + 1); best (device, like coh) may be NULL. */
gboolean ef_cuda_arcs_half_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const float *tp, const float *tq,
                                   const float *rot, guint n_grid, guint16 *best, GError **error);
/* The periodogram on tensor cores (ef-cuda-arcs-tc.cu): fp16 phase series and rotations, fp32 sums.
 * Shared memory a block needs for n_passes (dynamic), the product's depth (2 n_passes rounded up to 16)
 * and the grid rounded up to the block's chunk of grid points. */
#define EF_CUDA_ARCS_TC_MAX_PASSES 128u
gsize    ef_cuda_arcs_tc_smem_bytes (guint n_passes);
guint    ef_cuda_arcs_tc_k2 (guint n_passes);
guint    ef_cuda_arcs_tc_grid_pad (guint n_grid);
/* br, bi (device, ef_cuda_arcs_tc_grid_pad (n_grid) * ef_cuda_arcs_tc_k2 (n_passes) halves each): the
 * real embedding's two matrices, from the float rotations table_re/im[g * n_passes + k]. */
gboolean ef_cuda_arcs_tc_tables (cudaStream_t stream, const float *tre, const float *tim, guint n_passes,
                                 guint n_grid, void *br, void *bi, GError **error);
gboolean ef_cuda_arcs_tc_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const void *br, const void *bi,
                                 guint n_grid, guint16 *best, GError **error);
/* The folded grid on tensor cores: four real products of the rotated series X, Y by the folded tables
 * P, Q in fp16, fp32 sums. Its shared memory a block for n_passes (dynamic), and the pairs rounded up
 * to its chunk. bp, bq (device, ef_cuda_arcs_tc_half_pairs_pad (n_pairs) * ef_cuda_arcs_half_npad
 * (n_passes) halves each) from the CUDA-core kernel's laid-out tables hp, hq. */
gsize    ef_cuda_arcs_tc_half_smem_bytes (guint n_passes);
guint    ef_cuda_arcs_tc_half_pairs_pad (guint n_pairs);
gboolean ef_cuda_arcs_tc_half_tables (cudaStream_t stream, const float *hp, const float *hq, guint n_passes,
                                      guint n_pairs, void *bp, void *bq, GError **error);
gboolean ef_cuda_arcs_tc_half_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const void *bp, const void *bq,
                                      const float *rot, guint n_grid, guint16 *best, GError **error);
/* Each pixel's score from the arcs in a->coh. */
gboolean ef_cuda_arcs_score_launch (cudaStream_t stream, const EfCudaArcsArgs *a, float *score, GError **error);

G_END_DECLS
