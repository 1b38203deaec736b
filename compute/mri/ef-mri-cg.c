/* ef-mri-cg.c: F^H W F through FFTW on the doubled grid, and conjugate gradients on the normal equations. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri-cg"
#include "config.h"

#include <math.h>
#include <string.h>

#include <fftw3.h>

#include "ef-error.h"
#include "ef-fftw.h"
#include "ef-mri-cg.h"

struct _EfMriToeplitz {
  EfMriGrid     image;
  EfMriGrid     big;       /* the doubled grid */
  gsize         n_image, n_big;
  fftw_complex *buf;       /* owned (fftw_malloc), n_big */
  fftw_complex *kernel;    /* owned: the spectrum of the circulant kernel, scaled by 1 / n_big */
  fftw_plan     fwd, bwd;  /* owned, in place on buf */
};

gsize
ef_mri_toeplitz_voxels (const EfMriToeplitz *t)
{
  return t->n_image;
}

void
ef_mri_toeplitz_free (EfMriToeplitz *t)
{
  if (t == NULL)
    return;
  ef_fftw_planner_lock ();
  if (t->fwd != NULL)
    fftw_destroy_plan (t->fwd);
  if (t->bwd != NULL)
    fftw_destroy_plan (t->bwd);
  ef_fftw_planner_unlock ();
  fftw_free (t->buf);
  fftw_free (t->kernel);
  g_free (t);
}

EfMriToeplitz *
ef_mri_toeplitz_new (const EfMriGrid *image, const EfCf64 *q, GError **error)
{
  g_autoptr (EfMriToeplitz) t = NULL;
  int dims[EF_MRI_MAX_DIM];
  guint D;

  g_return_val_if_fail (image != NULL && q != NULL, NULL);
  t = g_new0 (EfMriToeplitz, 1);
  t->image = *image;
  t->big = ef_mri_grid_doubled (image);
  t->n_image = ef_mri_grid_voxels (&t->image, error);
  if (t->n_image == 0)
    return NULL;
  t->n_big = ef_mri_grid_voxels (&t->big, error);
  if (t->n_big == 0)
    return NULL;
  t->buf = fftw_malloc (t->n_big * sizeof (fftw_complex));
  t->kernel = fftw_malloc (t->n_big * sizeof (fftw_complex));
  if (t->buf == NULL || t->kernel == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the %" G_GSIZE_FORMAT
                   "-voxel convolution grid", t->n_big);
      return NULL;
    }
  D = image->dim;
  for (guint a = 0; a < D; a++)
    dims[a] = (int) t->big.n[D - 1 - a];   /* FFTW's first dimension is the slowest */
  ef_fftw_planner_lock ();
  t->fwd = fftw_plan_dft ((int) D, dims, t->buf, t->buf, FFTW_FORWARD, FFTW_ESTIMATE);
  t->bwd = fftw_plan_dft ((int) D, dims, t->buf, t->buf, FFTW_BACKWARD, FFTW_ESTIMATE);
  ef_fftw_planner_unlock ();
  if (t->fwd == NULL || t->bwd == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "FFTW could not plan the convolution");
      return NULL;
    }

  /* Q's voxel j sits at offset j - N from the origin; the circulant kernel holds offset o at o mod 2N. */
  for (gsize v = 0; v < t->n_big; v++)
    {
      gsize rest = v, u = 0, stride = 1;

      for (guint a = 0; a < EF_MRI_MAX_DIM; a++)
        {
          gsize n = t->big.n[a], j = rest % n;

          rest /= n;
          if (a < D)
            u += ((j + n / 2) % n) * stride;
          stride *= n;
        }
      memcpy (&t->buf[u], &q[v], sizeof (fftw_complex));
    }
  fftw_execute (t->fwd);
  for (gsize v = 0; v < t->n_big; v++)
    {
      t->kernel[v][0] = t->buf[v][0] / (double) t->n_big;
      t->kernel[v][1] = t->buf[v][1] / (double) t->n_big;
    }
  return g_steal_pointer (&t);
}

void
ef_mri_toeplitz_apply (EfMriToeplitz *t, const EfCf64 *x, EfCf64 *y)
{
  guint nx = t->image.n[0], ny = t->image.n[1], nz = t->image.n[2];
  gsize bx = t->big.n[0], by = t->big.n[1];

  memset (t->buf, 0, t->n_big * sizeof (fftw_complex));
  for (guint iz = 0; iz < nz; iz++)
    for (guint iy = 0; iy < ny; iy++)
      memcpy (&t->buf[(iz * by + iy) * bx], &x[((gsize) iz * ny + iy) * nx], nx * sizeof (EfCf64));
  fftw_execute (t->fwd);
  for (gsize v = 0; v < t->n_big; v++)
    {
      double a = t->buf[v][0], b = t->buf[v][1], c = t->kernel[v][0], d = t->kernel[v][1];

      t->buf[v][0] = a * c - b * d;
      t->buf[v][1] = a * d + b * c;
    }
  fftw_execute (t->bwd);
  for (guint iz = 0; iz < nz; iz++)
    for (guint iy = 0; iy < ny; iy++)
      memcpy (&y[((gsize) iz * ny + iy) * nx], &t->buf[(iz * by + iy) * bx], nx * sizeof (EfCf64));
}

/* y += lambda R x */
static void
ef_mri_reg_add (const EfMriGrid *g, EfMriReg reg, double lambda, const EfCf64 *x, EfCf64 *y)
{
  gsize n = (gsize) g->n[0] * g->n[1] * g->n[2];
  gsize stride = 1;

  if (reg == EF_MRI_REG_NONE || lambda == 0)
    return;
  if (reg == EF_MRI_REG_TIKHONOV)
    {
      for (gsize v = 0; v < n; v++)
        y[v] += lambda * x[v];
      return;
    }
  for (guint a = 0; a < g->dim; a++)
    {
      for (gsize v = 0; v < n; v++)
        {
          gsize i = (v / stride) % g->n[a];
          EfCf64 acc = 0;

          if (i > 0)
            acc += x[v] - x[v - stride];
          if (i + 1 < g->n[a])
            acc -= x[v + stride] - x[v];
          y[v] += lambda * acc;
        }
      stride *= g->n[a];
    }
}

static double
ef_dot_re (const EfCf64 *a, const EfCf64 *b, gsize n)
{
  double s = 0;

  for (gsize i = 0; i < n; i++)
    s += creal (a[i]) * creal (b[i]) + cimag (a[i]) * cimag (b[i]);
  return s;
}

void
ef_mri_cg_report_clear (EfMriCgReport *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->residual, g_free);
  g_clear_pointer (&r->objective, g_free);
  r->iterations = 0;
}

static double
ef_mri_objective (const EfMriCgParams *p, const EfCf64 *x, const EfCf64 *b, const EfCf64 *r, gsize n)
{
  /* J = x^H A x - 2 Re x^H b + d^H W d, and x^H A x = x^H b - x^H r. */
  double j = -ef_dot_re (x, b, n) - ef_dot_re (x, r, n);

  if (p->data_norm2 > 0)
    return sqrt (MAX (0.0, (j + p->data_norm2) / p->data_norm2));
  return j;
}

gboolean
ef_mri_cg_run (EfMriCgOperator apply, gpointer data, gsize n, const EfCf64 *b, const EfMriCgParams *p,
               gboolean objective, EfCf64 *x, EfMriCgReport *report, const char *what, GError **error)
{
  g_autofree EfCf64 *r = NULL, *d = NULL, *q = NULL;
  double bnorm, rs;

  g_return_val_if_fail (apply != NULL && b != NULL && p != NULL && x != NULL && report != NULL, FALSE);
  memset (report, 0, sizeof *report);
  r = g_try_new (EfCf64, n);
  d = g_try_new (EfCf64, n);
  q = g_try_new (EfCf64, n);
  report->residual = g_try_new0 (double, p->max_iter + 1);
  report->objective = g_try_new0 (double, p->max_iter + 1);
  if (r == NULL || d == NULL || q == NULL || report->residual == NULL || report->objective == NULL)
    {
      ef_mri_cg_report_clear (report);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %s", what);
      return FALSE;
    }

  bnorm = sqrt (ef_dot_re (b, b, n));
  apply (x, q, data);
  for (gsize i = 0; i < n; i++)
    r[i] = b[i] - q[i];
  memcpy (d, r, n * sizeof (EfCf64));
  rs = ef_dot_re (r, r, n);
  report->residual[0] = bnorm > 0 ? sqrt (rs) / bnorm : 0;
  if (objective)
    report->objective[0] = ef_mri_objective (p, x, b, r, n);

  for (guint k = 1; k <= p->max_iter && report->residual[k - 1] > p->tol && rs > 0; k++)
    {
      double dq, alpha, rs_new;

      apply (d, q, data);
      dq = ef_dot_re (d, q, n);
      if (!(dq > 0))
        break;   /* A is singular along d: nothing more to gain */
      alpha = rs / dq;
      for (gsize i = 0; i < n; i++)
        {
          x[i] += alpha * d[i];
          r[i] -= alpha * q[i];
        }
      rs_new = ef_dot_re (r, r, n);
      for (gsize i = 0; i < n; i++)
        d[i] = r[i] + (rs_new / rs) * d[i];
      rs = rs_new;
      report->iterations = k;
      report->residual[k] = sqrt (rs) / bnorm;
      if (objective)
        report->objective[k] = ef_mri_objective (p, x, b, r, n);
      if (p->step != NULL && !p->step (k, x, n, report->residual[k], p->step_data))
        {
          report->stopped = TRUE;
          break;
        }
    }
  report->converged = report->residual[report->iterations] <= p->tol;
  return TRUE;
}

typedef struct {
  EfMriToeplitz       *t;
  const EfMriCgParams *p;
} Normal;

/* (F^H W F + lambda R) x */
static void
normal_apply (const EfCf64 *x, EfCf64 *y, gpointer data)
{
  Normal *a = data;

  ef_mri_toeplitz_apply (a->t, x, y);
  ef_mri_reg_add (&a->t->image, a->p->reg, a->p->lambda, x, y);
}

gboolean
ef_mri_cg (EfMriToeplitz *t, const EfCf64 *b, const EfMriCgParams *p, EfCf64 *x, EfMriCgReport *report,
           GError **error)
{
  Normal a = { t, p };

  g_return_val_if_fail (t != NULL && b != NULL && p != NULL && x != NULL && report != NULL, FALSE);
  memset (report, 0, sizeof *report);
  if (p->max_iter > 100000 || !(p->lambda >= 0) || !isfinite (p->lambda) || !(p->tol >= 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Conjugate gradients: %u iterations, lambda %g and tolerance %g are out of range", p->max_iter,
                   p->lambda, p->tol);
      return FALSE;
    }
  return ef_mri_cg_run (normal_apply, &a, t->n_image, b, p, TRUE, x, report, "conjugate gradients", error);
}
