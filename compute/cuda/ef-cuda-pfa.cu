/* ef-cuda-pfa.cu: launch wrappers for the polar format kernels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-pfa"
#include "config.h"

#include "ef-cuda-private.h"
#include "ef-cuda-pfa.cuh"

using namespace ef_cuda_pfa;

/* Launch configurations are checked before launching: a grid too large is an argument error, not a
 * device failure. */
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

#define EF_LAUNCH_CHECK(name, error) \
  ef_cuda_check_ ((int) cudaGetLastError (), name "<<<>>>", __FILE__, __LINE__, (error))

extern "C" gboolean
ef_cuda_pfa_grid_launch (cudaStream_t stream, const EfCudaPfaGridArgs *args, GError **error)
{
  const size_t nq = 2 * (size_t) args->qmax + 1;
  dim3 block (kBinsPerBlock, kPulsesPerBlock);
  dim3 grid;

  if (args->count == 0)
    return TRUE;
  if (args->qmax < 0 || args->width + 1 > EF_CUDA_PFA_SPREAD_MAX
      || args->width + 1 >= MIN (args->mu, args->mv) || (guint) args->qmax >= args->nb)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Polar format gridding: kernel of %u cells on a %u x %u grid, %d of %u bins", args->width,
                   args->mu, args->mv, args->qmax, args->nb);
      return FALSE;
    }
  const size_t gx = (nq + kBinsPerBlock - 1) / kBinsPerBlock;
  const size_t gy = ((size_t) args->count + kPulsesPerBlock - 1) / kPulsesPerBlock;

  if (!check_grid (gx, gy, error))
    return FALSE;
  grid = dim3 ((unsigned) gx, (unsigned) gy);
  grid_kernel<<<grid, block, 0, stream>>> (*args);
  return EF_LAUNCH_CHECK ("grid_kernel", error);
}

extern "C" gboolean
ef_cuda_pfa_lattice_launch (cudaStream_t stream, const EfCudaPfaLatticeArgs *args, GError **error)
{
  dim3 block (32, 8);
  size_t gx = ((size_t) args->nu + 31) / 32, gy = ((size_t) args->nv + 7) / 8;

  if (args->nu / 2 >= args->mu || args->nv / 2 >= args->mv)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Polar format lattice %u x %u does not fit a %u x %u grid", args->nu, args->nv, args->mu,
                   args->mv);
      return FALSE;
    }
  if (!check_grid (gx, gy, error))
    return FALSE;
  lattice_kernel<<<dim3 ((unsigned) gx, (unsigned) gy), block, 0, stream>>> (*args);
  return EF_LAUNCH_CHECK ("lattice_kernel", error);
}

extern "C" gboolean
ef_cuda_pfa_correct_launch (cudaStream_t stream, const EfCudaPfaCorrectArgs *args, GError **error)
{
  dim3 block (32, kCorrectThreads / 32);
  size_t gx = ((size_t) args->width + 31) / 32, gy = ((size_t) args->height + block.y - 1) / block.y;

  if (args->taps > EF_CUDA_PFA_TAPS_MAX || args->nu == 0 || args->nv == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Polar format resampling: %u taps on a %u x %u lattice", args->taps, args->nu, args->nv);
      return FALSE;
    }
  if (!check_grid (gx, gy, error))
    return FALSE;
  correct_kernel<<<dim3 ((unsigned) gx, (unsigned) gy), block, 0, stream>>> (*args);
  return EF_LAUNCH_CHECK ("correct_kernel", error);
}
