/* ef-cuda-rangecomp.cu: launch wrappers for range compression, the pair tables and image poisoning. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda-rangecomp.cuh"

using namespace ef_cuda;

static const int kThreads = 256;

static inline unsigned
blocks_for (size_t n)
{
  return (unsigned) ((n + kThreads - 1) / kThreads);
}

/* Launch configurations are checked before launching: a grid too large is an argument error, not a
 * device failure. */
static gboolean
check_grid (unsigned gx, unsigned gy, GError **error)
{
  if (gx == 0 || gy == 0 || gy > 65535u || gx > 0x7fffffffu)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Launch grid %u x %u is outside the device's limits", gx, gy);
      return FALSE;
    }
  return TRUE;
}

#define EF_LAUNCH_CHECK(name, error) \
  ef_cuda_check_ ((int) cudaGetLastError (), name "<<<>>>", __FILE__, __LINE__, (error))

extern "C" gboolean
ef_cuda_rc_prep_fx (cudaStream_t stream, const void *samples, guint n_in, guint n, const float *coef,
                    const EfCudaPulse *pulses, void *out, guint count, unsigned long long *bad, GError **error)
{
  dim3 grid (blocks_for (n), count);

  if (!check_grid (grid.x, grid.y, error))
    return FALSE;
  prep_fx_kernel<<<grid, kThreads, 0, stream>>> ((const float2 *) samples, (int) n_in, (int) n, coef, pulses,
                                                 (float2 *) out, bad);
  return EF_LAUNCH_CHECK ("prep_fx_kernel", error);
}

extern "C" gboolean
ef_cuda_rc_prep_toa (cudaStream_t stream, const void *samples, guint n_in, const EfCudaPulse *pulses, void *out,
                     guint count, unsigned long long *bad, GError **error)
{
  dim3 grid (blocks_for (n_in), count);

  if (!check_grid (grid.x, grid.y, error))
    return FALSE;
  prep_toa_kernel<<<grid, kThreads, 0, stream>>> ((const float2 *) samples, (int) n_in, pulses, (float2 *) out,
                                                  bad);
  return EF_LAUNCH_CHECK ("prep_toa_kernel", error);
}

extern "C" gboolean
ef_cuda_rc_prep_raw (cudaStream_t stream, const void *samples, guint n_in, guint nc, void *out, guint count,
                     unsigned long long *bad, GError **error)
{
  dim3 grid (blocks_for (nc), count);

  if (!check_grid (grid.x, grid.y, error))
    return FALSE;
  prep_raw_kernel<<<grid, kThreads, 0, stream>>> ((const float2 *) samples, (int) n_in, (int) nc,
                                                  (float2 *) out, bad);
  return EF_LAUNCH_CHECK ("prep_raw_kernel", error);
}

extern "C" gboolean
ef_cuda_rc_select_raw (cudaStream_t stream, const void *spec, guint nc, guint k, guint k_first, guint n,
                       const void *chirp_conj, const float *coef, const EfCudaPulse *pulses, void *out,
                       guint count, GError **error)
{
  dim3 grid (blocks_for (n), count);

  if (!check_grid (grid.x, grid.y, error))
    return FALSE;
  select_raw_kernel<<<grid, kThreads, 0, stream>>> ((const float2 *) spec, (int) nc, (int) k, (int) k_first,
                                                    (int) n, (const float2 *) chirp_conj, coef, pulses,
                                                    (float2 *) out);
  return EF_LAUNCH_CHECK ("select_raw_kernel", error);
}

extern "C" gboolean
ef_cuda_rc_absmax (cudaStream_t stream, const void *prof, gsize n_values, float *scale, guint chunk,
                   GError **error)
{
  unsigned blocks = (unsigned) MIN ((gsize) 1024, MAX ((gsize) 1, (n_values + kThreads - 1) / kThreads));

  EF_CUDA_CHECK (cudaMemsetAsync (scale + 2, 0, sizeof (float), stream), error);
  absmax_kernel<<<blocks, kThreads, 0, stream>>> ((const float *) prof, n_values, (unsigned *) (scale + 2));
  if (!EF_LAUNCH_CHECK ("absmax_kernel", error))
    return FALSE;
  scale_kernel<<<1, 1, 0, stream>>> (scale, (int) chunk);
  return EF_LAUNCH_CHECK ("scale_kernel", error);
}

extern "C" gboolean
ef_cuda_rc_pack (cudaStream_t stream, EfPrecision precision, const void *prof, guint n, int guard, guint stride,
                 const EfCudaPulse *pulses, const float *scale, void *table, guint count, GError **error)
{
  dim3 grid (blocks_for (stride), count);

  if (!check_grid (grid.x, grid.y, error))
    return FALSE;
  if (precision == EF_PRECISION_FP16)
    {
      pack_fp16_kernel<<<grid, kThreads, 0, stream>>> ((const float2 *) prof, (int) n, guard, (int) stride,
                                                       pulses, scale, (uint2 *) table);
      return EF_LAUNCH_CHECK ("pack_fp16_kernel", error);
    }
  pack_fp32_kernel<<<grid, kThreads, 0, stream>>> ((const float2 *) prof, (int) n, guard, (int) stride, pulses,
                                                   (float4 *) table);
  return EF_LAUNCH_CHECK ("pack_fp32_kernel", error);
}

extern "C" gboolean
ef_cuda_fill_nan (cudaStream_t stream, void *image, gsize n_floats, GError **error)
{
  unsigned blocks = (unsigned) MIN ((gsize) 4096, MAX ((gsize) 1, (n_floats + kThreads - 1) / kThreads));

  fill_nan_kernel<<<blocks, kThreads, 0, stream>>> ((float *) image, n_floats);
  return EF_LAUNCH_CHECK ("fill_nan_kernel", error);
}

extern "C" gboolean
ef_cuda_count_nonfinite (cudaStream_t stream, const void *image, gsize n_pixels, unsigned long long *d_count,
                         GError **error)
{
  unsigned blocks = (unsigned) MIN ((gsize) 4096, MAX ((gsize) 1, (n_pixels + kThreads - 1) / kThreads));

  if (n_pixels == 0)
    return TRUE;
  count_nonfinite_kernel<<<blocks, kThreads, 0, stream>>> ((const float2 *) image, n_pixels, d_count);
  return EF_LAUNCH_CHECK ("count_nonfinite_kernel", error);
}

extern "C" gboolean
ef_cuda_image_add (cudaStream_t stream, void *dst, const void *a, const void *b, gsize n_floats, GError **error)
{
  unsigned blocks = (unsigned) MIN ((gsize) 8192, MAX ((gsize) 1, (n_floats / 4 + kThreads - 1) / kThreads));

  if (n_floats == 0)
    return TRUE;
  add_kernel<<<blocks, kThreads, 0, stream>>> ((float *) dst, (const float *) a, (const float *) b, n_floats);
  return EF_LAUNCH_CHECK ("add_kernel", error);
}

extern "C" guint
ef_cuda_table_entry_size (EfPrecision precision)
{
  return precision == EF_PRECISION_FP16 ? (guint) sizeof (uint2) : (guint) sizeof (float4);
}
