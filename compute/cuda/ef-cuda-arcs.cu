/* ef-cuda-arcs.cu: launch wrappers for the arc coherence, periodogram and score kernels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-arcs"
#include "config.h"

#include "ef-cuda-private.h"
#include "ef-cuda-arcs.cuh"
#include "ef-cuda-arcs-half.cuh"

using namespace ef_cuda_arcs;

#define EF_LAUNCH_CHECK(name, error) \
  ef_cuda_check_ ((int) cudaGetLastError (), name "<<<>>>", __FILE__, __LINE__, (error))

static gboolean
check_grid (size_t gx, size_t gy, GError **error)
{
  if (gx == 0 || gy == 0 || gy > 65535u || gx > 0x7fffffffu)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Launch grid %zu x %zu is outside the device's limits", gx, gy);
      return FALSE;
    }
  return TRUE;
}

extern "C" gboolean
ef_cuda_arcs_window_launch (cudaStream_t stream, const EfCudaArcsArgs *a, GError **error)
{
  dim3 block (32, 8);
  size_t gx = ((size_t) a->width + 31) / 32, gy = ((size_t) a->rows + 7) / 8;

  if (!check_grid (gx, gy, error))
    return FALSE;
  window_kernel<<<dim3 ((unsigned) gx, (unsigned) gy), block, 0, stream>>> (*a);
  return EF_LAUNCH_CHECK ("window_kernel", error);
}

extern "C" gboolean
ef_cuda_arcs_soa_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const EfCudaArcsSoa *soa, GError **error)
{
  size_t gx = ((size_t) soa->n + 255) / 256;

  if (soa->n == 0)
    return TRUE;
  if (!check_grid (gx, 1, error))
    return FALSE;
  soa_gather_kernel<<<(unsigned) gx, 256, 0, stream>>> (*a, *soa);
  if (!EF_LAUNCH_CHECK ("soa_gather_kernel", error))
    return FALSE;
  soa_coherence_kernel<<<(unsigned) gx, 256, 0, stream>>> (*a, *soa);
  return EF_LAUNCH_CHECK ("soa_coherence_kernel", error);
}

extern "C" gboolean
ef_cuda_arcs_graph_launch (cudaStream_t stream, const EfCudaArcsArgs *a, GError **error)
{
  unsigned pgroups = (a->width + kGraphPixels - 1) / kGraphPixels;
  unsigned ogroups = (a->n_off + kGraphOffsets - 1) / kGraphOffsets;
  size_t warps = (size_t) pgroups * ogroups * a->rows;
  size_t gx = (warps + 7) / 8;

  if (!check_grid (gx, 1, error))
    return FALSE;
  graph_kernel<<<(unsigned) gx, 256, 0, stream>>> (*a, pgroups, ogroups);
  return EF_LAUNCH_CHECK ("graph_kernel", error);
}

extern "C" gboolean
ef_cuda_arcs_periodogram_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const float *table_re,
                                 const float *table_im, guint n_grid, guint16 *best, GError **error)
{
  size_t arcs = (size_t) a->n_off * a->width * a->rows;
  size_t gx = (arcs + kPgThreads - 1) / kPgThreads;

  if (!check_grid (gx, 1, error))
    return FALSE;
  periodogram_kernel<<<(unsigned) gx, kPgThreads, 0, stream>>> (*a, table_re, table_im, n_grid,
                                                                 (unsigned short *) best);
  return EF_LAUNCH_CHECK ("periodogram_kernel", error);
}

/* Dynamic shared memory of the folded-grid kernel: x and y of its arcs over the padded passes. */
static size_t
half_dynamic_bytes (unsigned n_passes)
{
  return (size_t) 2 * ef_cuda_arcs_half_npad (n_passes) * kHpArcs * sizeof (float);
}

extern "C" gboolean
ef_cuda_arcs_half_fits (guint n_passes, gboolean *fits, GError **error)
{
  cudaFuncAttributes attr;
  int device = 0, optin = 0;

  *fits = FALSE;
  EF_CUDA_CHECK (cudaGetDevice (&device), error);
  EF_CUDA_CHECK (cudaDeviceGetAttribute (&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), error);
  EF_CUDA_CHECK (cudaFuncGetAttributes (&attr, periodogram_half_kernel), error);
  *fits = attr.sharedSizeBytes + half_dynamic_bytes (n_passes) <= (size_t) optin;
  return TRUE;
}

extern "C" gboolean
ef_cuda_arcs_half_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const float *tp, const float *tq,
                          const float *rot, guint n_grid, guint16 *best, GError **error)
{
  size_t arcs = (size_t) a->n_off * a->width * a->rows;
  size_t gx = (arcs + kHpArcs - 1) / kHpArcs;
  size_t bytes = half_dynamic_bytes (a->n_passes);
  guint n_pairs = (n_grid + 1) / 2;

  if (!check_grid (gx, 1, error))
    return FALSE;
  EF_CUDA_CHECK (cudaFuncSetAttribute (periodogram_half_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int) bytes), error);
  /* Two blocks an SM (what the registers allow) need twice a block's shared memory: ask for the largest
   * carveout rather than leave it to the driver's guess. */
  EF_CUDA_CHECK (cudaFuncSetAttribute (periodogram_half_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       (int) cudaSharedmemCarveoutMaxShared), error);
  periodogram_half_kernel<<<(unsigned) gx, kHpThreads, bytes, stream>>> (
      *a, tp, tq, rot, ef_cuda_arcs_half_npad (a->n_passes), ef_cuda_arcs_half_tiles (n_pairs), n_grid, n_pairs,
      (unsigned short *) best);
  return EF_LAUNCH_CHECK ("periodogram_half_kernel", error);
}

extern "C" gboolean
ef_cuda_arcs_score_launch (cudaStream_t stream, const EfCudaArcsArgs *a, float *score, GError **error)
{
  dim3 block (32, 8);
  size_t gx = ((size_t) a->width + 31) / 32, gy = ((size_t) a->rows + 7) / 8;

  if (!check_grid (gx, gy, error))
    return FALSE;
  score_kernel<<<dim3 ((unsigned) gx, (unsigned) gy), block, 0, stream>>> (*a, score);
  return EF_LAUNCH_CHECK ("score_kernel", error);
}
