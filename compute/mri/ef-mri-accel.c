/* ef-mri-accel.c: the registry of the accelerator for the exact MRI sums, and the choice between it and the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri"
#include "config.h"

#include <string.h>

#include "ef-error.h"
#include "ef-mri-accel.h"

static const EfMriAccel *registered;
static GMutex registry_lock;

void
ef_mri_accel_register (const EfMriAccel *accel)
{
  g_return_if_fail (accel != NULL && accel->available != NULL && accel->sum != NULL);

  g_mutex_lock (&registry_lock);
  registered = accel;
  g_mutex_unlock (&registry_lock);
}

const EfMriAccel *
ef_mri_accel_get (void)
{
  const EfMriAccel *a;

  g_mutex_lock (&registry_lock);
  a = registered;
  g_mutex_unlock (&registry_lock);
  return a;
}

static void
run_cpu (EfMriRun *run, char *fallback)
{
  run->accel = NULL;
  g_free (run->ran);
  run->ran = g_strdup ("cpu");
  g_free (run->detail);
  run->detail = g_strdup ("CPU, fp64");
  g_free (run->fallback);
  run->fallback = fallback;
}

gboolean
ef_mri_run_choose (EfBackendKind kind, EfMriRun *run, GError **error)
{
  const EfMriAccel *accel;
  g_autofree char *why = NULL;

  g_return_val_if_fail (run != NULL, FALSE);
  memset (run, 0, sizeof *run);
  run->requested = kind;
  if (kind == EF_BACKEND_CPU)
    {
      run_cpu (run, NULL);
      return TRUE;
    }
  accel = ef_mri_accel_get ();
  if (accel == NULL)
    why = g_strdup ("This build has no CUDA support");
  else if (accel->available (&why))
    {
      run->accel = accel;
      run->ran = g_strdup (accel->id);
      run->detail = g_strdup (accel->name);
      return TRUE;
    }
  if (why == NULL)
    why = g_strdup_printf ("No %s device", accel->name);
  /* Asked for CUDA by name: say why not rather than quietly running elsewhere. */
  if (kind == EF_BACKEND_CUDA)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "CUDA was asked for: %s", why);
      return FALSE;
    }
  run_cpu (run, g_strdup_printf ("%s; using the CPU", why));
  return TRUE;
}

gboolean
ef_mri_run_sum (EfMriRun *run, const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g,
                EfCf64 *out, GError **error)
{
  g_return_val_if_fail (run != NULL && run->ran != NULL && t != NULL && g != NULL && out != NULL, FALSE);
  if (run->accel != NULL)
    {
      g_autoptr (GError) local = NULL;
      char *detail = NULL;

      if (run->accel->sum (t, d, w, g, out, &detail, &local))
        {
          g_free (run->detail);
          run->detail = detail;
          return TRUE;
        }
      if (run->requested == EF_BACKEND_CUDA)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      run_cpu (run, g_strdup_printf ("%s failed: %s; using the CPU", run->accel->name, local->message));
    }
  return d != NULL ? ef_mri_adjoint (t, d, g, out, 0, error) : ef_mri_q (t, w, g, out, 0, error);
}

gboolean
ef_mri_run_sum_add (EfMriRun *run, const EfMriTraj *t, const EfCf64 *d, const double *w, gsize first, gsize last,
                    const EfMriGrid *g, EfCf64 *out, GError **error)
{
  g_autofree EfCf64 *part = NULL;
  EfMriTraj sub;
  gsize nv;

  g_return_val_if_fail (run != NULL && t != NULL && g != NULL && out != NULL, FALSE);
  if (first > last || last > t->m)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Samples %" G_GSIZE_FORMAT " to %" G_GSIZE_FORMAT " are outside the %" G_GSIZE_FORMAT
                   " of the trajectory", first, last, t->m);
      return FALSE;
    }
  nv = ef_mri_grid_voxels (g, error);
  if (nv == 0)
    return FALSE;
  if (first == last)
    return TRUE;
  part = g_try_new (EfCf64, nv);
  if (part == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " voxels", nv);
      return FALSE;
    }
  /* a view of the block: the same layout, borrowed */
  sub.dim = t->dim;
  sub.m = last - first;
  sub.k = t->k + first * t->dim;
  if (!ef_mri_run_sum (run, &sub, d != NULL ? d + first : NULL, d == NULL && w != NULL ? w + first : NULL, g, part,
                       error))
    return FALSE;
  for (gsize v = 0; v < nv; v++)
    out[v] += part[v];
  return TRUE;
}

void
ef_mri_run_copy (const EfMriRun *src, EfMriRun *dst)
{
  g_return_if_fail (src != NULL && dst != NULL);
  dst->requested = src->requested;
  dst->accel = src->accel;
  dst->ran = g_strdup (src->ran);
  dst->detail = g_strdup (src->detail);
  dst->fallback = g_strdup (src->fallback);
}

void
ef_mri_run_clear (EfMriRun *run)
{
  if (run == NULL)
    return;
  g_clear_pointer (&run->ran, g_free);
  g_clear_pointer (&run->detail, g_free);
  g_clear_pointer (&run->fallback, g_free);
  run->accel = NULL;
}
