/* ef-cuda-focus.cu: launch wrappers for autofocus's kernels (the sharpness sweeps, PGA's projections). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-focus"
#include "config.h"

#include "ef-cuda-private.h"
#include "ef-cuda-focus.cuh"

using namespace ef_cuda_focus;

#define EF_LAUNCH_CHECK(name, error) \
  ef_cuda_check_ ((int) cudaGetLastError (), name "<<<>>>", __FILE__, __LINE__, (error))

static gboolean
check_grid (guint grid, gsize npix, GError **error)
{
  if (grid == 0 || grid > 0x7fffffffu || npix == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Sweep launch of %u blocks over %zu pixels is outside the device's limits", grid, (size_t) npix);
      return FALSE;
    }
  return TRUE;
}

extern "C" gboolean
ef_cuda_focus_add_launch (cudaStream_t stream, double *img, const float *b, double cr, double ci, gsize npix,
                          guint grid, GError **error)
{
  if (!check_grid (grid, npix, error))
    return FALSE;
  add_kernel<<<grid, EF_CUDA_FOCUS_THREADS, 0, stream>>> ((double2 *) img, (const float2 *) b, cr, ci, npix);
  return EF_LAUNCH_CHECK ("add_kernel", error);
}

extern "C" gboolean
ef_cuda_focus_step_launch (cudaStream_t stream, double *img, const float *prev, double pcr, double pci,
                           const float *b, double rr, double ri, gsize npix, guint grid, double *partials,
                           GError **error)
{
  if (!check_grid (grid, npix, error))
    return FALSE;
  step_kernel<<<grid, EF_CUDA_FOCUS_THREADS, 0, stream>>> ((double2 *) img, (const float2 *) prev, pcr, pci,
                                                           (const float2 *) b, rr, ri, npix, partials);
  return EF_LAUNCH_CHECK ("step_kernel", error);
}

extern "C" gboolean
ef_cuda_pga_spectra_launch (cudaStream_t stream, const float *img, const EfCudaPgaGrid *grid, const double *pulse,
                            guint64 n, guint ns, const guint *patch, guint n_patch, guint win, guint half_h,
                            double *g, GError **error)
{
  guint64 bx = (n + EF_CUDA_PGA_THREADS - 1) / EF_CUDA_PGA_THREADS;

  if (n == 0 || n_patch == 0)
    return TRUE;
  if (bx > 0x7fffffffu || n_patch > 65535u || grid->width == 0 || grid->height == 0 || win == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "PGA projection of %u patches on %" G_GUINT64_FORMAT " pulses is outside the device's limits",
                   n_patch, n);
      return FALSE;
    }
  pga_kernel<<<dim3 ((unsigned) bx, n_patch), EF_CUDA_PGA_THREADS, 0, stream>>> (
    (const float2 *) img, *grid, pulse, n, ns, patch, win, half_h, (double2 *) g);
  return EF_LAUNCH_CHECK ("pga_kernel", error);
}
