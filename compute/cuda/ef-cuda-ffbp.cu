/* ef-cuda-ffbp.cu: launch wrappers for the FFBP and FBP kernels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda-ffbp.cuh"

using namespace ef_ffbp_gpu;

/* A 1-D grid of rows x tiles blocks: a row count beyond 65535 would not fit in grid.y. */
static gboolean
grid_blocks (const EfCudaFfbpArgs *args, unsigned *blocks, GError **error)
{
  guint64 n = (guint64) args->n_rows * args->tiles_per_row;

  if (n == 0 || n > 0x7fffffffu)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u rows of %u tiles are more than one launch takes", args->n_rows, args->tiles_per_row);
      return FALSE;
    }
  *blocks = (unsigned) n;
  return TRUE;
}

#define EF_LAUNCH_CHECK(name, error) \
  ef_cuda_check_ ((int) cudaGetLastError (), name "<<<>>>", __FILE__, __LINE__, (error))

extern "C" guint
ef_cuda_ffbp_leaf_tile (void)
{
  return kLeafTile;
}

extern "C" guint
ef_cuda_ffbp_gather_tile (void)
{
  return kGatherTile;
}

extern "C" guint
ef_cuda_ffbp_gather_rows (void)
{
  return kGatherRows;
}

/* A merge stages all its children at once (ef_ffbp_new allows a merge base of at most 4). */
static_assert (kGatherFits / kGatherRows >= 4, "a merge's children must fit one staging");

extern "C" gboolean
ef_cuda_ffbp_absmax (cudaStream_t stream, const void *prof, guint n_pulses, guint n_bins, guint stride,
                     float *out, GError **error)
{
  dim3 grid (MIN ((n_bins + 255u) / 256u, 64u), MIN (MAX (n_pulses, 1u), 1024u));

  if (n_pulses == 0 || n_bins == 0)
    return TRUE;
  absmax_kernel<<<grid, 256, 0, stream>>> ((const float2 *) prof, n_bins, stride, n_pulses, out);
  return EF_LAUNCH_CHECK ("absmax_kernel", error);
}

extern "C" gboolean
ef_cuda_ffbp_leaves (cudaStream_t stream, EfPrecision precision, const EfCudaFfbpArgs *args, GError **error)
{
  unsigned blocks;

  if (!grid_blocks (args, &blocks, error))
    return FALSE;
  if (precision == EF_PRECISION_FP16)
    {
      if (args->table_half)
        leaf_kernel<true, true><<<blocks, kLeafThreads, 0, stream>>> (*args);
      else
        leaf_kernel<true, false><<<blocks, kLeafThreads, 0, stream>>> (*args);
      return EF_LAUNCH_CHECK ("leaf_kernel<fp16>", error);
    }
  if (args->table_half)
    leaf_kernel<false, true><<<blocks, kLeafThreads, 0, stream>>> (*args);
  else
    leaf_kernel<false, false><<<blocks, kLeafThreads, 0, stream>>> (*args);
  return EF_LAUNCH_CHECK ("leaf_kernel<fp32>", error);
}

template <bool HALF, bool FINAL>
static gboolean
launch_gather (cudaStream_t stream, const EfCudaFfbpArgs *args, unsigned blocks, GError **error)
{
  switch (args->taps_angle)
    {
#define TAPS(n) case n: gather_kernel<HALF, n, FINAL><<<blocks, kGatherThreads, 0, stream>>> (*args); break;
    TAPS (2) TAPS (4) TAPS (6) TAPS (8) TAPS (10) TAPS (12) TAPS (14) TAPS (16)
#undef TAPS
    default:
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "No gather kernel for %u angular taps", args->taps_angle);
      return FALSE;
    }
  return EF_LAUNCH_CHECK ("gather_kernel", error);
}

extern "C" gboolean
ef_cuda_ffbp_merge (cudaStream_t stream, EfPrecision precision, const EfCudaFfbpArgs *args, GError **error)
{
  unsigned blocks;

  if (!grid_blocks (args, &blocks, error))
    return FALSE;
  if (precision == EF_PRECISION_FP16)
    return launch_gather<true, false> (stream, args, blocks, error);
  return launch_gather<false, false> (stream, args, blocks, error);
}

extern "C" gboolean
ef_cuda_ffbp_final (cudaStream_t stream, EfPrecision precision, const EfCudaFfbpArgs *args, GError **error)
{
  unsigned blocks;

  if (!grid_blocks (args, &blocks, error))
    return FALSE;
  if (precision == EF_PRECISION_FP16)
    return launch_gather<true, true> (stream, args, blocks, error);
  return launch_gather<false, true> (stream, args, blocks, error);
}
