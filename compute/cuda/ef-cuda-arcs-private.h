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
/* Each pixel's score from the arcs in a->coh. */
gboolean ef_cuda_arcs_score_launch (cudaStream_t stream, const EfCudaArcsArgs *a, float *score, GError **error);

G_END_DECLS
