/* ef-cli-mri-sum.c: echoform-cli mri's exact sums (F^H d, Q) on a CUDA device when asked and able, else the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli-mri"
#include "config.h"

#include <complex.h>

#include "ef-cli-private.h"
#include "ef-error.h"
#if HAVE_CUDA
#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-mri.h"
#endif

#if HAVE_CUDA
/* The device's float sums (EfCudaMriShape's default), the samples and weights rounded to float first. */
static gboolean
sum_cuda (const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g, EfCf64 *out,
          EfCudaMriTiming *timing, GError **error)
{
  g_autofree EfCf32 *d32 = NULL;
  g_autofree float *w32 = NULL;

  if (d != NULL)
    {
      d32 = g_try_new (EfCf32, t->m);
      if (d32 != NULL)
        for (gsize i = 0; i < t->m; i++)
          d32[i] = (EfCf32) d[i];
    }
  else if (w != NULL)
    {
      w32 = g_try_new (float, t->m);
      if (w32 != NULL)
        for (gsize i = 0; i < t->m; i++)
          w32[i] = (float) w[i];
    }
  if ((d != NULL && d32 == NULL) || (d == NULL && w != NULL && w32 == NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples",
                   t->m);
      return FALSE;
    }
  return ef_cuda_mri_sum (-1, t, d32, w32, g, -1, out, timing, error);
}
#endif

gboolean
ef_cli_mri_sum (EfBackendKind kind, const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g,
                EfCf64 *out, char **ran, GError **error)
{
  g_autofree char *why = NULL;

  *ran = NULL;
#if HAVE_CUDA
  if (kind != EF_BACKEND_CPU && ef_cuda_available (&why))
    {
      g_autofree char *name = ef_cuda_device_name (-1);
      EfCudaMriTiming tm = { 0 };

      if (!sum_cuda (t, d, w, g, out, &tm, error))
        return FALSE;
      *ran = g_strdup_printf ("CUDA, %s, shape %u (%s), %s, fp32 sums into fp64", name, tm.shape,
                              ef_cuda_mri_shape_name (tm.shape), tm.tuned ? "tuned" : "default");
      return TRUE;
    }
#else
  if (kind != EF_BACKEND_CPU)
    why = g_strdup ("this build has no CUDA backend");
#endif
  if (kind == EF_BACKEND_CUDA)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "--backend cuda: %s", why);
      return FALSE;
    }
  if (!(d != NULL ? ef_mri_adjoint (t, d, g, out, 0, error) : ef_mri_q (t, w, g, out, 0, error)))
    return FALSE;
  *ran = kind == EF_BACKEND_AUTO && why != NULL ? g_strdup_printf ("CPU, fp64 (no CUDA: %s)", why)
                                                : g_strdup ("CPU, fp64");
  return TRUE;
}
