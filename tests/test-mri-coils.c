/* test-mri-coils.c: several receive coils: sensitivities estimated from the centre of k-space, SENSE least squares. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri.h"
#include "ef-mri-cg.h"
#include "ef-mri-coils.h"
#include "ef-mri-phantom.h"

/* A radial problem of n voxels a side and n_coils synthetic coils: the phantom raster rho, the true maps,
 * the coils' samples d_c = F (S_c rho) (the discrete model, so that least squares can reach rho), and the
 * density weights (exact ring-sector areas / voxels). */
typedef struct {
  guint      n, n_coils, spokes, nr;
  EfMriGrid  g;
  gsize      nv;
  EfMriTraj *t;
  double    *rho, *w;
  EfCf64    *s, *d;
} Problem;

static void
problem_init (Problem *p, guint n, guint n_coils, guint spokes)
{
  g_autoptr (GError) error = NULL;
  EfMriPhantom ph = ef_mri_phantom_shepp_logan (2);
  g_autofree EfCf64 *sr = NULL;

  p->n = n;
  p->n_coils = n_coils;
  p->spokes = spokes;
  p->nr = 2 * n;
  p->g = ef_mri_grid_image (2, n);
  p->nv = (gsize) n * n;
  p->t = ef_mri_traj_radial (n, spokes, p->nr, &error);
  g_assert_no_error (error);
  /* a random rotation of the spokes, so that every run samples differently */
  {
    double th = g_test_rand_double_range (0, G_PI / spokes);
    for (gsize i = 0; i < p->t->m; i++)
      {
        double x = p->t->k[2 * i], y = p->t->k[2 * i + 1];
        p->t->k[2 * i] = cos (th) * x - sin (th) * y;
        p->t->k[2 * i + 1] = sin (th) * x + cos (th) * y;
      }
  }
  p->rho = g_new (double, p->nv);
  ef_mri_phantom_raster (&ph, &p->g, 4, p->rho);
  p->s = g_new (EfCf64, n_coils * p->nv);
  ef_mri_coils_synthetic (&p->g, n_coils, p->s);
  p->d = g_new (EfCf64, n_coils * p->t->m);
  sr = g_new (EfCf64, p->nv);
  for (guint c = 0; c < n_coils; c++)
    {
      for (gsize v = 0; v < p->nv; v++)
        sr[v] = p->s[c * p->nv + v] * p->rho[v];
      g_assert_true (ef_mri_forward (p->t, sr, &p->g, p->d + c * p->t->m, 0, &error));
    }
  p->w = g_new (double, p->t->m);
  ef_mri_density_radial (n, spokes, p->nr, p->w);
  for (gsize i = 0; i < p->t->m; i++)
    p->w[i] /= (double) p->nv;
}

static void
problem_clear (Problem *p)
{
  ef_mri_traj_free (p->t);
  g_free (p->rho);
  g_free (p->w);
  g_free (p->s);
  g_free (p->d);
}

/* The synthetic maps are smooth, distinct and normalised. */
static void
test_synthetic (void)
{
  const guint n = 32, nc = 8;
  EfMriGrid g = ef_mri_grid_image (2, n);
  g_autofree EfCf64 *s = g_new (EfCf64, nc * n * n);
  double worst = 0, spread = 0;

  ef_mri_coils_synthetic (&g, nc, s);
  for (gsize v = 0; v < (gsize) n * n; v++)
    {
      double sum = 0, lo = 1, hi = 0;
      for (guint c = 0; c < nc; c++)
        {
          double a = cabs (s[c * n * n + v]);
          sum += a * a;
          lo = MIN (lo, a);
          hi = MAX (hi, a);
        }
      worst = MAX (worst, fabs (sum - 1));
      spread = MAX (spread, hi / MAX (lo, 1e-300));
    }
  g_assert_cmpfloat (worst, <=, 1e-12);
  g_assert_cmpfloat (spread, >, 3);   /* the coils see different parts of the FOV */
}

/* The SENSE operator through Q against the direct sums sum_c S_c^H F^H W F S_c x, on a random x. */
static void
test_sense_operator (void)
{
  g_autoptr (GError) error = NULL;
  Problem p;
  EfMriGrid big;
  g_autofree EfCf64 *q = NULL, *x = NULL, *y = NULL, *ref = NULL, *work = NULL, *sx = NULL, *fx = NULL;
  g_autofree EfCf64 *back = NULL;
  g_autoptr (EfMriToeplitz) T = NULL;
  double num = 0, den = 0;

  problem_init (&p, 16, 4, 26);
  big = ef_mri_grid_doubled (&p.g);
  q = g_new (EfCf64, 4 * p.nv);
  g_assert_true (ef_mri_q (p.t, p.w, &big, q, 0, &error));
  T = ef_mri_toeplitz_new (&p.g, q, &error);
  g_assert_nonnull (T);
  x = g_new (EfCf64, p.nv);
  for (gsize v = 0; v < p.nv; v++)
    x[v] = g_test_rand_double_range (-1, 1) + I * g_test_rand_double_range (-1, 1);
  y = g_new (EfCf64, p.nv);
  work = g_new (EfCf64, p.nv);
  ef_mri_sense_apply (T, p.s, p.n_coils, p.nv, x, work, y);
  ref = g_new0 (EfCf64, p.nv);
  sx = g_new (EfCf64, p.nv);
  fx = g_new (EfCf64, p.t->m);
  back = g_new (EfCf64, p.nv);
  for (guint c = 0; c < p.n_coils; c++)
    {
      for (gsize v = 0; v < p.nv; v++)
        sx[v] = p.s[c * p.nv + v] * x[v];
      g_assert_true (ef_mri_forward (p.t, sx, &p.g, fx, 0, &error));
      for (gsize i = 0; i < p.t->m; i++)
        fx[i] *= p.w[i];
      g_assert_true (ef_mri_adjoint (p.t, fx, &p.g, back, 0, &error));
      for (gsize v = 0; v < p.nv; v++)
        ref[v] += conj (p.s[c * p.nv + v]) * back[v];
    }
  for (gsize v = 0; v < p.nv; v++)
    {
      num += creal ((y[v] - ref[v]) * conj (y[v] - ref[v]));
      den += creal (ref[v] * conj (ref[v]));
    }
  g_test_message ("SENSE operator through Q vs direct sums: rel. L2 %.2e", sqrt (num / den));
  g_assert_cmpfloat (sqrt (num / den), <=, 1e-11);
  problem_clear (&p);
}

/* Relative error of the estimated maps against the true ones, inside the object, after removing at each
 * voxel the phase common to all coils. */
static double
map_error (const Problem *p, const EfCf64 *est, gboolean *all_inside)
{
  double num = 0, den = 0;

  *all_inside = TRUE;
  for (gsize v = 0; v < p->nv; v++)
    {
      EfCf64 inner = 0;
      EfCf64 ph;

      if (p->rho[v] <= 0)
        continue;
      for (guint c = 0; c < p->n_coils; c++)
        inner += conj (p->s[c * p->nv + v]) * est[c * p->nv + v];
      if (cabs (inner) == 0)
        *all_inside = FALSE;
      ph = cabs (inner) > 0 ? inner / cabs (inner) : 1;
      for (guint c = 0; c < p->n_coils; c++)
        {
          EfCf64 e = est[c * p->nv + v] - ph * p->s[c * p->nv + v];
          num += creal (e * conj (e));
          den += creal (p->s[c * p->nv + v] * conj (p->s[c * p->nv + v]));
        }
    }
  return sqrt (num / den);
}

static double
nrmse (const Problem *p, const EfCf64 *x)
{
  double num = 0, den = 0;

  for (gsize v = 0; v < p->nv; v++)
    {
      num += creal ((x[v] - p->rho[v]) * conj (x[v] - p->rho[v]));
      den += p->rho[v] * p->rho[v];
    }
  return sqrt (num / den);
}

/* SENSE least squares with the maps s: NRMSE against the phantom. */
static double
sense_nrmse (const Problem *p, const EfCf64 *s, guint iters)
{
  g_autoptr (GError) error = NULL;
  EfMriGrid big = ef_mri_grid_doubled (&p->g);
  g_autofree EfCf64 *q = g_new (EfCf64, 4 * p->nv), *img = g_new (EfCf64, p->n_coils * p->nv);
  g_autofree EfCf64 *b = g_new (EfCf64, p->nv), *x = g_new0 (EfCf64, p->nv), *dw = g_new (EfCf64, p->t->m);
  g_autoptr (EfMriToeplitz) T = NULL;
  EfMriCgReport rep;
  double e;

  g_assert_true (ef_mri_q (p->t, p->w, &big, q, 0, &error));
  T = ef_mri_toeplitz_new (&p->g, q, &error);
  g_assert_nonnull (T);
  for (guint c = 0; c < p->n_coils; c++)
    {
      for (gsize i = 0; i < p->t->m; i++)
        dw[i] = p->w[i] * p->d[c * p->t->m + i];
      g_assert_true (ef_mri_adjoint (p->t, dw, &p->g, img + c * p->nv, 0, &error));
    }
  ef_mri_coils_combine (s, img, p->n_coils, p->nv, b);
  g_assert_true (ef_mri_sense_cg (T, s, p->n_coils, b, 0, iters, 1e-8, x, &rep, &error));
  g_assert_no_error (error);
  /* CG on a positive semi-definite operator: the residual ends far below where it started */
  g_assert_cmpfloat (rep.residual[rep.iterations], <, 0.1 * rep.residual[0]);
  e = nrmse (p, x);
  ef_mri_cg_report_clear (&rep);
  return e;
}

typedef struct {
  guint  undersample;
  double snr_db;        /* complex Gaussian noise on the samples, this far below their mean power; 0: none */
  double max_ratio;     /* the NRMSE with estimated maps over that with the true ones, at most */
} EstimateCase;

/* Adds complex Gaussian noise (Box-Muller on GLib's test generator) snr_db below the samples' power. */
static void
add_noise (Problem *p, double snr_db)
{
  gsize n = (gsize) p->n_coils * p->t->m;
  double power = 0, sigma;

  for (gsize i = 0; i < n; i++)
    power += creal (p->d[i] * conj (p->d[i]));
  sigma = sqrt (power / n / 2 * pow (10, -snr_db / 10));
  for (gsize i = 0; i < n; i++)
    {
      double u1 = g_test_rand_double_range (1e-300, 1), u2 = g_test_rand_double ();
      double r = sigma * sqrt (-2 * log (u1));
      p->d[i] += r * cos (2 * G_PI * u2) + I * r * sin (2 * G_PI * u2);
    }
}

static void
test_estimate (gconstpointer data)
{
  const EstimateCase *ec = data;
  const guint undersample = ec->undersample;
  g_autoptr (GError) error = NULL;
  const guint n = 32, nc = 8;
  Problem p;
  EfMriCoilEstimate prm = { .centre_radius = 6, .threshold = 0.05 };
  g_autofree EfCf64 *est = NULL;
  double err, e_true, e_est, e_one;
  gboolean all_inside;

  problem_init (&p, n, nc, (guint) ceil (G_PI / 2 * n) / undersample);
  if (ec->snr_db > 0)
    add_noise (&p, ec->snr_db);
  est = g_new (EfCf64, nc * p.nv);
  g_assert_true (ef_mri_coils_estimate (p.t, p.d, p.w, nc, &p.g, &prm, est, &error));
  g_assert_no_error (error);
  err = map_error (&p, est, &all_inside);
  g_assert_true (all_inside);
  e_true = sense_nrmse (&p, p.s, 30);
  e_est = sense_nrmse (&p, est, 30);
  /* one coil (of uniform magnitude) on the same sampling: what the coils add */
  {
    Problem one;
    problem_init (&one, n, 1, p.spokes);
    if (ec->snr_db > 0)
      add_noise (&one, ec->snr_db);
    e_one = sense_nrmse (&one, one.s, 30);
    problem_clear (&one);
  }
  g_test_message ("%u coils, %u spokes (1/%u), SNR %g dB (0: no noise): maps rel. error inside the object %.4f; "
                  "NRMSE true maps %.4f, estimated %.4f (ratio %.2f); one coil %.4f", nc, p.spokes, undersample,
                  ec->snr_db, err, e_true, e_est, e_est / e_true, e_one);
  /* measured 0.044 (both samplings; 0.045-0.046 with noise) and a ratio of 0.93-0.95 without noise (the
   * estimated maps are zero outside the object, which helps); at 20 dB, where 30 unregularised iterations
   * amplify the noise, the ratio spread over 0.87-1.30 in 15 runs with fresh noise */
  g_assert_cmpfloat (err, <=, 0.07);
  g_assert_cmpfloat (e_est, <=, ec->max_ratio * e_true);
  problem_clear (&p);
}

/* Stops at step_stop; records what it saw. */
typedef struct {
  guint   calls, stop_at;
  double  residual[8];
} StepLog;

static gboolean
step_log (guint k, const EfCf64 *x, gsize n, double residual, gpointer data)
{
  StepLog *log = data;

  g_assert_cmpuint (k, ==, log->calls + 1);
  g_assert_nonnull (x);
  g_assert_cmpuint (n, >, 0);
  log->residual[log->calls++] = residual;
  return k < log->stop_at;
}

/* The step callback sees every iterate and stops CG there: the iterate is the one a run of that many
 * iterations ends on, to the bit, for SENSE and for one coil. */
static void
test_cg_step (void)
{
  g_autoptr (GError) error = NULL;
  Problem p;
  EfMriGrid big;
  g_autofree EfCf64 *q = NULL, *b = NULL, *x1 = NULL, *x2 = NULL;
  g_autoptr (EfMriToeplitz) T = NULL;

  problem_init (&p, 24, 4, 24);
  big = ef_mri_grid_doubled (&p.g);
  q = g_new (EfCf64, 4 * p.nv);
  b = g_new (EfCf64, p.nv);
  g_assert_true (ef_mri_q (p.t, p.w, &big, q, 0, &error));
  T = ef_mri_toeplitz_new (&p.g, q, &error);
  g_assert_nonnull (T);
  for (gsize v = 0; v < p.nv; v++)
    b[v] = g_test_rand_double_range (-1, 1) + I * g_test_rand_double_range (-1, 1);
  for (guint sense = 0; sense < 2; sense++)
    {
      StepLog log = { .stop_at = 3 };
      EfMriCgParams stopped = { .max_iter = 8, .tol = 0, .step = step_log, .step_data = &log };
      EfMriCgParams plain = { .max_iter = 3, .tol = 0 };
      EfMriCgReport r1, r2;

      x1 = g_new0 (EfCf64, p.nv);
      x2 = g_new0 (EfCf64, p.nv);
      if (sense)
        {
          g_assert_true (ef_mri_sense_cg_params (T, p.s, p.n_coils, b, &stopped, x1, &r1, &error));
          g_assert_true (ef_mri_sense_cg_params (T, p.s, p.n_coils, b, &plain, x2, &r2, &error));
        }
      else
        {
          g_assert_true (ef_mri_cg (T, b, &stopped, x1, &r1, &error));
          g_assert_true (ef_mri_cg (T, b, &plain, x2, &r2, &error));
        }
      g_assert_no_error (error);
      g_assert_cmpuint (log.calls, ==, 3);
      g_assert_cmpuint (r1.iterations, ==, 3);
      g_assert_true (r1.stopped);
      g_assert_false (r2.stopped);
      g_assert_cmpuint (r2.iterations, ==, 3);
      for (guint k = 1; k <= 3; k++)
        g_assert_cmpfloat (log.residual[k - 1], ==, r1.residual[k]);
      g_assert_cmpmem (x1, p.nv * sizeof (EfCf64), x2, p.nv * sizeof (EfCf64));
      ef_mri_cg_report_clear (&r1);
      ef_mri_cg_report_clear (&r2);
      g_clear_pointer (&x1, g_free);
      g_clear_pointer (&x2, g_free);
    }
  {
    EfMriCgParams grad = { .reg = EF_MRI_REG_GRADIENT, .max_iter = 2 };
    EfMriCgReport r;

    x1 = g_new0 (EfCf64, p.nv);
    g_assert_false (ef_mri_sense_cg_params (T, p.s, p.n_coils, b, &grad, x1, &r, &error));
    g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  }
  problem_clear (&p);
}

static void
test_bad_arguments (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (8, 4, 16, &error);
  EfMriGrid g = ef_mri_grid_image (2, 8);
  g_autofree EfCf64 *d = g_new0 (EfCf64, t->m), *s = g_new (EfCf64, 64);
  EfMriCoilEstimate prm = { .centre_radius = 0, .threshold = 0 };

  g_assert_false (ef_mri_coils_estimate (t, d, NULL, 1, &g, &prm, s, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  prm.centre_radius = 4;
  g_assert_false (ef_mri_coils_estimate (t, d, NULL, 0, &g, &prm, s, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  for (gsize i = 0; i < t->m; i++)
    t->k[2 * i] += 100;   /* nothing near the centre */
  g_assert_false (ef_mri_coils_estimate (t, d, NULL, 1, &g, &prm, s, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/mri/coils/synthetic", test_synthetic);
  g_test_add_func ("/compute/mri/coils/sense-operator", test_sense_operator);
  {
    static const EstimateCase full = { 1, 0, 1.2 }, half = { 2, 0, 1.2 }, noisy = { 1, 20, 1.5 };
    g_test_add_data_func ("/compute/mri/coils/estimate/full", &full, test_estimate);
    g_test_add_data_func ("/compute/mri/coils/estimate/undersampled-2", &half, test_estimate);
    g_test_add_data_func ("/compute/mri/coils/estimate/noisy-20db", &noisy, test_estimate);
  }
  g_test_add_func ("/compute/mri/coils/cg-step", test_cg_step);
  g_test_add_func ("/compute/mri/coils/bad-arguments", test_bad_arguments);
  return g_test_run ();
}
