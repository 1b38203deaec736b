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

static double
dot_re (const EfCf64 *a, const EfCf64 *b, gsize n)
{
  double acc = 0;

  for (gsize i = 0; i < n; i++)
    acc += creal (a[i]) * creal (b[i]) + cimag (a[i]) * cimag (b[i]);
  return acc;
}

gboolean
ef_mri_sense_cg (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, const EfCf64 *b, double lambda, guint max_iter,
                 double tol, EfCf64 *x, EfMriCgReport *report, GError **error)
{
  EfMriCgParams p = { .reg = EF_MRI_REG_TIKHONOV, .lambda = lambda, .max_iter = max_iter, .tol = tol };

  return ef_mri_sense_cg_params (t, s, n_coils, b, &p, x, report, error);
}

gboolean
ef_mri_sense_cg_params (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, const EfCf64 *b, const EfMriCgParams *p,
                        EfCf64 *x, EfMriCgReport *report, GError **error)
{
  g_autofree EfCf64 *r = NULL, *dir = NULL, *q = NULL, *work = NULL;
  gsize n;
  double bnorm, rs, lambda;
  guint max_iter;
  double tol;

  g_return_val_if_fail (t != NULL && s != NULL && b != NULL && p != NULL && x != NULL && report != NULL, FALSE);
  memset (report, 0, sizeof *report);
  lambda = p->reg == EF_MRI_REG_NONE ? 0 : p->lambda;
  max_iter = p->max_iter;
  tol = p->tol;
  if (p->reg == EF_MRI_REG_GRADIENT)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "SENSE conjugate gradients take no "
                   "gradient regulariser (Tikhonov or none)");
      return FALSE;
    }
  if (n_coils < 1 || n_coils > EF_MRI_MAX_COILS || max_iter > 100000 || !(lambda >= 0) || !isfinite (lambda)
      || !(tol >= 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "SENSE conjugate gradients: %u coils, "
                   "%u iterations, lambda %g and tolerance %g are out of range", n_coils, max_iter, lambda, tol);
      return FALSE;
    }
  n = ef_mri_toeplitz_voxels (t);
  r = g_try_new (EfCf64, n);
  dir = g_try_new (EfCf64, n);
  q = g_try_new (EfCf64, n);
  work = g_try_new (EfCf64, n);
  report->residual = g_try_new0 (double, max_iter + 1);
  report->objective = g_try_new0 (double, max_iter + 1);
  if (r == NULL || dir == NULL || q == NULL || work == NULL || report->residual == NULL || report->objective == NULL)
    {
      ef_mri_cg_report_clear (report);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for SENSE conjugate gradients");
      return FALSE;
    }
  bnorm = sqrt (dot_re (b, b, n));
  ef_mri_sense_apply (t, s, n_coils, n, x, work, q);
  for (gsize i = 0; i < n; i++)
    r[i] = b[i] - q[i] - lambda * x[i];
  memcpy (dir, r, n * sizeof (EfCf64));
  rs = dot_re (r, r, n);
  report->residual[0] = bnorm > 0 ? sqrt (rs) / bnorm : 0;
  for (guint k = 1; k <= max_iter && report->residual[k - 1] > tol && rs > 0; k++)
    {
      double dq, alpha, rs_new;

      ef_mri_sense_apply (t, s, n_coils, n, dir, work, q);
      for (gsize i = 0; i < n; i++)
        q[i] += lambda * dir[i];
      dq = dot_re (dir, q, n);
      if (!(dq > 0))
        break;
      alpha = rs / dq;
      for (gsize i = 0; i < n; i++)
        {
          x[i] += alpha * dir[i];
          r[i] -= alpha * q[i];
        }
      rs_new = dot_re (r, r, n);
      for (gsize i = 0; i < n; i++)
        dir[i] = r[i] + (rs_new / rs) * dir[i];
      rs = rs_new;
      report->iterations = k;
      report->residual[k] = sqrt (rs) / bnorm;
      if (p->step != NULL && !p->step (k, x, n, report->residual[k], p->step_data))
        {
          report->stopped = TRUE;
          break;
        }
    }
  report->converged = report->residual[report->iterations] <= tol;
  return TRUE;
}
