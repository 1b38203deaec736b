/* ef-mri-coils.c: several receive coils: sensitivities (synthetic, or estimated from the centre of k-space), SENSE least squares. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri-coils.h"

#define COIL_RING 0.75     /* FOV units from the centre */
#define COIL_WIDTH 0.45    /* Gaussian sigma, FOV units */

void
ef_mri_coils_synthetic (const EfMriGrid *grid, guint n_coils, EfCf64 *s)
{
  gsize nv = (gsize) grid->n[0] * grid->n[1] * grid->n[2];

  g_return_if_fail (grid != NULL && s != NULL && n_coils >= 1 && n_coils <= EF_MRI_MAX_COILS);
  for (gsize v = 0; v < nv; v++)
    {
      double x[3] = { 0, 0, 0 }, sum = 0;
      gsize rest = v;

      for (guint a = 0; a < grid->dim; a++)
        {
          x[a] = ef_mri_grid_x (grid, a, (guint) (rest % grid->n[a]));
          rest /= grid->n[a];
        }
      for (guint c = 0; c < n_coils; c++)
        {
          double th = 2 * G_PI * c / n_coils + 0.3;
          double px = COIL_RING * cos (th), py = COIL_RING * sin (th);
          double r2 = (x[0] - px) * (x[0] - px) + (x[1] - py) * (x[1] - py) + x[2] * x[2];
          double phase = 1.0 * (x[0] * cos (th) + x[1] * sin (th)) + 0.7 * c;
          EfCf64 v_c = exp (-r2 / (2 * COIL_WIDTH * COIL_WIDTH)) * cexp (I * phase);

          s[(gsize) c * nv + v] = v_c;
          sum += creal (v_c * conj (v_c));
        }
      for (guint c = 0; c < n_coils; c++)
        s[(gsize) c * nv + v] /= sqrt (sum);
    }
}

void
ef_mri_coils_combine (const EfCf64 *s, const EfCf64 *img, guint n_coils, gsize voxels, EfCf64 *out)
{
  for (gsize v = 0; v < voxels; v++)
    {
      EfCf64 acc = 0;
      double ss = 0;

      for (guint c = 0; c < n_coils; c++)
        {
          EfCf64 z = img[(gsize) c * voxels + v];
          if (s != NULL)
            acc += conj (s[(gsize) c * voxels + v]) * z;
          else
            ss += creal (z * conj (z));
        }
      out[v] = s != NULL ? acc : sqrt (ss);
    }
}

gboolean
ef_mri_coils_estimate (const EfMriTraj *t, const EfCf64 *d, const double *w, guint n_coils, const EfMriGrid *grid,
                       const EfMriCoilEstimate *p, EfCf64 *s, GError **error)
{
  g_autoptr (EfMriTraj) sub = NULL;
  g_autofree gsize *keep = NULL;
  g_autofree double *taper = NULL;
  g_autofree EfCf64 *dc = NULL, *rss = NULL;
  gsize nv, m = 0;
  double top = 0;

  g_return_val_if_fail (t != NULL && d != NULL && grid != NULL && p != NULL && s != NULL, FALSE);
  nv = ef_mri_grid_voxels (grid, error);
  if (nv == 0)
    return FALSE;
  if (n_coils < 1 || n_coils > EF_MRI_MAX_COILS || !(p->centre_radius > 0) || !isfinite (p->centre_radius)
      || !(p->threshold >= 0 && p->threshold < 1) || t->dim != grid->dim)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Coil sensitivities: %u coils (1 to %u),"
                   " centre radius %g and threshold %g (0 to 1) are out of range, or the trajectory is %u-D on a %u-D "
                   "grid", n_coils, EF_MRI_MAX_COILS, p->centre_radius, p->threshold, t->dim, grid->dim);
      return FALSE;
    }
  keep = g_try_new (gsize, t->m);
  taper = g_try_new (double, t->m);
  if (keep == NULL || taper == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the coil estimate");
      return FALSE;
    }
  for (gsize i = 0; i < t->m; i++)
    {
      double r2 = 0, rho;

      for (guint a = 0; a < t->dim; a++)
        r2 += t->k[i * t->dim + a] * t->k[i * t->dim + a];
      rho = sqrt (r2) / p->centre_radius;
      if (rho < 1)
        {
          double h = cos (G_PI / 2 * rho);
          keep[m] = i;
          taper[m++] = h * h * (w != NULL ? w[i] : 1.0);
        }
    }
  if (m == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Coil sensitivities: no sample lies "
                   "within %g cycles per FOV of the centre of k-space", p->centre_radius);
      return FALSE;
    }
  sub = ef_mri_traj_new (t->dim, m, error);
  if (sub == NULL)
    return FALSE;
  for (gsize j = 0; j < m; j++)
    memcpy (&sub->k[j * t->dim], &t->k[keep[j] * t->dim], t->dim * sizeof (double));
  dc = g_try_new (EfCf64, m);
  rss = g_try_new (EfCf64, nv);
  if (dc == NULL || rss == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the coil estimate");
      return FALSE;
    }
  for (guint c = 0; c < n_coils; c++)
    {
      for (gsize j = 0; j < m; j++)
        dc[j] = taper[j] * d[(gsize) c * t->m + keep[j]];
      if (!ef_mri_adjoint (sub, dc, grid, s + (gsize) c * nv, 0, error))
        return FALSE;
    }
  ef_mri_coils_combine (NULL, s, n_coils, nv, rss);
  for (gsize v = 0; v < nv; v++)
    top = MAX (top, creal (rss[v]));
  for (gsize v = 0; v < nv; v++)
    {
      double r = creal (rss[v]);
      gboolean inside = r > p->threshold * top && r > 0;

      for (guint c = 0; c < n_coils; c++)
        s[(gsize) c * nv + v] = inside ? s[(gsize) c * nv + v] / r : 0;
    }
  return TRUE;
}

void
ef_mri_sense_apply (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, gsize voxels, const EfCf64 *x, EfCf64 *work,
                    EfCf64 *y)
{
  memset (y, 0, voxels * sizeof (EfCf64));
  for (guint c = 0; c < n_coils; c++)
    {
      const EfCf64 *sc = s + (gsize) c * voxels;

      for (gsize v = 0; v < voxels; v++)
        work[v] = sc[v] * x[v];
      ef_mri_toeplitz_apply (t, work, work);
      for (gsize v = 0; v < voxels; v++)
        y[v] += conj (sc[v]) * work[v];
    }
}

gboolean
ef_mri_sense_cg (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, const EfCf64 *b, double lambda, guint max_iter,
                 double tol, EfCf64 *x, EfMriCgReport *report, GError **error)
{
  EfMriCgParams p = { .reg = EF_MRI_REG_TIKHONOV, .lambda = lambda, .max_iter = max_iter, .tol = tol };

  return ef_mri_sense_cg_params (t, s, n_coils, b, &p, x, report, error);
}

typedef struct {
  EfMriToeplitz *t;
  const EfCf64  *s;
  guint          n_coils;
  gsize          voxels;
  double         lambda;
  EfCf64        *work;
} Sense;

/* (sum_c S_c^H F^H W F S_c + lambda) x */
static void
sense_apply (const EfCf64 *x, EfCf64 *y, gpointer data)
{
  Sense *a = data;

  ef_mri_sense_apply (a->t, a->s, a->n_coils, a->voxels, x, a->work, y);
  for (gsize i = 0; i < a->voxels; i++)
    y[i] += a->lambda * x[i];
}

gboolean
ef_mri_sense_cg_params (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, const EfCf64 *b, const EfMriCgParams *p,
                        EfCf64 *x, EfMriCgReport *report, GError **error)
{
  g_autofree EfCf64 *work = NULL;
  Sense a;

  g_return_val_if_fail (t != NULL && s != NULL && b != NULL && p != NULL && x != NULL && report != NULL, FALSE);
  memset (report, 0, sizeof *report);
  a = (Sense) { t, s, n_coils, ef_mri_toeplitz_voxels (t), p->reg == EF_MRI_REG_NONE ? 0 : p->lambda, NULL };
  if (p->reg == EF_MRI_REG_GRADIENT)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "SENSE conjugate gradients take no "
                   "gradient regulariser (Tikhonov or none)");
      return FALSE;
    }
  if (n_coils < 1 || n_coils > EF_MRI_MAX_COILS || p->max_iter > 100000 || !(a.lambda >= 0) || !isfinite (a.lambda)
      || !(p->tol >= 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "SENSE conjugate gradients: %u coils, "
                   "%u iterations, lambda %g and tolerance %g are out of range", n_coils, p->max_iter, a.lambda, p->tol);
      return FALSE;
    }
  a.work = work = g_try_new (EfCf64, a.voxels);
  if (work == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for SENSE conjugate gradients");
      return FALSE;
    }
  return ef_mri_cg_run (sense_apply, &a, a.voxels, b, p, FALSE, x, report, "SENSE conjugate gradients", error);
}
