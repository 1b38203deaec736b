/* ef-cuda-mri-accel.c: the CUDA exact MRI sums offered to the engine (ef-mri-accel.h): float inputs, float64 image. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda.h"
#include "ef-cuda-mri.h"
#include "ef-error.h"
#include "ef-mri-accel.h"

static gboolean
mri_available (char **why)
{
  if (ef_cuda_available (why))
    return TRUE;
  if (*why == NULL)
    *why = g_strdup ("No CUDA device");
  return FALSE;
}

/* The device's float sums (the tuned or default shape), the samples and weights rounded to float first. */
static gboolean
mri_sum (const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g, EfCf64 *out, char **detail,
         GError **error)
{
  g_autofree EfCf32 *d32 = NULL;
  g_autofree float *w32 = NULL;
  g_autofree char *name = NULL;
  EfCudaMriTiming tm = { 0 };

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
  if (!ef_cuda_mri_sum (-1, t, d32, w32, g, -1, out, &tm, error))
    return FALSE;
  name = ef_cuda_device_name (-1);
  *detail = g_strdup_printf ("CUDA, %s, shape %u (%s), %s, fp32 sums into fp64", name != NULL ? name : "?", tm.shape,
                             ef_cuda_mri_shape_name (tm.shape), tm.tuned ? "tuned" : "default");
  return TRUE;
}

static const EfMriAccel ef_cuda_mri_accel = {
  .name = "CUDA",
  .id = "cuda",
  .available = mri_available,
  .sum = mri_sum,
};

void
ef_cuda_mri_register (void)
{
  ef_mri_accel_register (&ef_cuda_mri_accel);
}
