/* ef-cuda-mf.cu: the matched filter's launch wrappers. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda-mf.cuh"

using namespace ef_cuda_mf;

extern "C" gboolean
ef_cuda_mf_weight (cudaStream_t stream, const void *samples, guint n_samples, const float *coef,
                   const EfCudaMfPulse *pulses, guint count, void *out, unsigned long long *bad, GError **error)
{
  const unsigned long long n = (unsigned long long) count * n_samples;
  const unsigned threads = 256;
  /* A grid-stride loop: a few blocks per multiprocessor are enough whatever the block's size. */
  const unsigned blocks = (unsigned) MIN ((n + threads - 1) / threads, 65535ull);

  if (n == 0)
    return TRUE;
  weight_kernel<<<blocks, threads, 0, stream>>> ((const float2 *) samples, n_samples, coef, pulses, n,
                                                 (float2 *) out, bad);
  return ef_cuda_check_ ((int) cudaGetLastError (), "weight_kernel<<<>>>", __FILE__, __LINE__, error);
}

extern "C" gboolean
ef_cuda_mf_launch (cudaStream_t stream, const EfCudaMfArgs *args, GError **error)
{
  dim3 grid ((args->width + BX - 1) / BX, (args->height + BY - 1) / BY);

  if (args->n_pulses == 0 || args->n_samples == 0)
    return TRUE;
  if (grid.y > 65535u || grid.x == 0 || grid.y == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A %u x %u image needs a launch grid the device cannot take", args->width, args->height);
      return FALSE;
    }
  mf_kernel<<<grid, dim3 (BX, BY), 0, stream>>> (*args);
  return ef_cuda_check_ ((int) cudaGetLastError (), "mf_kernel<<<>>>", __FILE__, __LINE__, error);
}
