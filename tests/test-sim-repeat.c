/* test-sim-repeat.c: the repeat-pass simulator against its own phase model and statistics. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-sim-repeat"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-sim-repeat.h"
#include "ef-grid.h"
#include "ef-error.h"

static void
test_dates_and_baselines (void)
{
  EfRepeatParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;
  double sum2 = 0;

  ef_repeat_params_init (&p, 64, 48);
  p.n_passes = 200;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (t->t_years[0], ==, 0);
  g_assert_cmpfloat_with_epsilon (t->t_years[p.n_passes - 1], p.span_years, 1e-12);
  for (guint k = 1; k < p.n_passes; k++)
    g_assert_cmpfloat (t->t_years[k], >, t->t_years[k - 1]);
  for (guint k = 0; k < p.n_passes; k++)
    sum2 += t->bperp[k] * t->bperp[k];
  /* The sample std of 200 normal draws lies within 15% of sigma with overwhelming probability (5 sigma). */
  g_assert_cmpfloat (fabs (sqrt (sum2 / p.n_passes) / p.bperp_std - 1), <, 0.25);
}

static void
test_ps_placement (void)
{
  EfRepeatParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;

  ef_repeat_params_init (&p, 80, 60);
  p.ps_gap = 3;
  p.n_ps = 300;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (t->n_ps, ==, 300);
  for (guint a = 0; a < t->n_ps; a++)
    {
      g_assert_cmpint (t->ps_index[(gsize) t->ps[a].row * p.width + t->ps[a].col], ==, (gint) a);
      g_assert_cmpfloat (fabs (t->ps[a].height), <=, p.height_max);
      g_assert_cmpfloat (t->ps[a].scr_db, >=, p.scr_db_min);
      g_assert_cmpfloat (t->ps[a].scr_db, <=, p.scr_db_max);
      for (guint b = a + 1; b < t->n_ps; b++)
        g_assert_cmpuint (MAX (ABS ((int) t->ps[a].col - (int) t->ps[b].col),
                               ABS ((int) t->ps[a].row - (int) t->ps[b].row)), >=, 3);
    }
}

/* A bright PS with no atmosphere turns exactly as the phase model says, pass against pass. */
static void
test_ps_phase_model (void)
{
  EfRepeatParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;
  g_autofree EfCf32 *s0 = NULL, *sk = NULL;
  double worst = 0;

  ef_repeat_params_init (&p, 40, 40);
  p.n_passes = 30;
  p.aps_rms = 0;
  p.scr_db_min = p.scr_db_max = 60;
  p.n_ps = 50;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_no_error (error);
  s0 = g_new (EfCf32, 1600);
  sk = g_new (EfCf32, 1600);
  ef_repeat_slc (t, 0, s0);
  for (guint k = 1; k < p.n_passes; k++)
    {
      ef_repeat_slc (t, k, sk);
      for (guint j = 0; j < t->n_ps; j++)
        {
          const EfRepeatPs *ps = &t->ps[j];
          gsize i = (gsize) ps->row * p.width + ps->col;
          double model = 4 * G_PI / p.wavelength
                         * (ef_repeat_displacement (ps, t->t_years[k]) - ef_repeat_displacement (ps, 0)
                            + ps->height * (t->bperp[k] - t->bperp[0]) * ef_repeat_height_factor (&p));
          double got = carg (sk[i] * conj (s0[i]));
          double err = fabs (remainder (got - model, 2 * G_PI));

          worst = MAX (worst, err);
        }
    }
  /* 60 dB SCR: the clutter moves each phase by about 1e-3 rad; two passes, five sigma. */
  g_assert_cmpfloat (worst, <, 1e-2);
}

/* The atmosphere: the rms asked for, smooth across neighbouring pixels, and unrelated between passes. */
static void
test_aps (void)
{
  EfRepeatParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;
  g_autofree float *a = NULL, *b = NULL;
  double s2 = 0, d2 = 0, ab = 0;
  gsize n = 128 * 128;

  ef_repeat_params_init (&p, 128, 128);
  p.aps_length = 8;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_no_error (error);
  a = g_new (float, n);
  b = g_new (float, n);
  ef_repeat_aps (t, 3, a);
  ef_repeat_aps (t, 4, b);
  for (guint r = 0; r < 128; r++)
    for (guint c = 0; c + 1 < 128; c++)
      {
        gsize i = r * 128 + c;

        d2 += (a[i + 1] - a[i]) * (a[i + 1] - a[i]);
      }
  for (gsize i = 0; i < n; i++)
    {
      s2 += a[i] * a[i];
      ab += a[i] * b[i];
    }
  g_assert_cmpfloat_with_epsilon (sqrt (s2 / n), p.aps_rms, 1e-5);
  /* A Gaussian kernel of sigma L: the one-pixel difference has variance 2 (1 - exp (-1 / 4 L^2)) times the
   * field's, 0.0078 at L = 8; allow twice that for the clamped edges. */
  g_assert_cmpfloat (d2 / (128.0 * 127) / (s2 / n), <, 2 * 2 * (1 - exp (-1.0 / (4 * 64))));
  /* About (128 / (2 sqrt(pi) 8))^2 = 20 independent patches: |corr| < 5 / sqrt(20) would be loose; 0.8. */
  g_assert_cmpfloat (fabs (ab) / s2, <, 0.8);
  /* The same pass made twice is the same. */
  ef_repeat_aps (t, 3, b);
  g_assert_cmpmem (a, n * sizeof (float), b, n * sizeof (float));
}

/* The clutter's coherence between two passes is what was asked for. */
static void
test_clutter_coherence (void)
{
  EfRepeatParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;
  g_autofree EfCf32 *s0 = NULL, *s1 = NULL;
  EfCf64 x = 0;
  double p0 = 0, p1 = 0;
  gsize n = 200 * 200;

  ef_repeat_params_init (&p, 200, 200);
  p.n_ps = 0;
  p.aps_rms = 0;
  p.noise_db = -200;
  p.clutter_coherence = 0.3;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_no_error (error);
  s0 = g_new (EfCf32, n);
  s1 = g_new (EfCf32, n);
  ef_repeat_slc (t, 0, s0);
  ef_repeat_slc (t, 7, s1);
  for (gsize i = 0; i < n; i++)
    {
      x += s0[i] * conj (s1[i]);
      p0 += cabs (s0[i]) * cabs (s0[i]);
      p1 += cabs (s1[i]) * cabs (s1[i]);
    }
  /* 40,000 samples: the estimate's standard error is below (1 - g^2) / sqrt(n) = 0.0045; five of them. */
  g_assert_cmpfloat (fabs (cabs (x) / sqrt (p0 * p1) - 0.3), <, 0.023);
  g_assert_cmpfloat (fabs (p0 / n - 1), <, 0.03);
}

/* The targets for the phase-history simulator sit at the pixel centres with the pixels' reflectivity. */
static void
test_targets (void)
{
  EfRepeatParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;
  g_autofree EfSimTarget *tg = NULL;
  g_autofree EfCf32 *s = NULL;
  EfGrid grid;
  double err2 = 0, sig2 = 0;

  ef_repeat_params_init (&p, 20, 16);
  p.noise_db = -200;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_no_error (error);
  g_assert_true (ef_grid_init_roi (&grid, -5, -4, 5, 4, 0.5, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (grid.width, ==, 20);
  g_assert_cmpuint (grid.height, ==, 16);
  tg = ef_repeat_targets (t, 5, &grid);
  s = g_new (EfCf32, 320);
  ef_repeat_slc (t, 5, s);
  for (guint i = 0; i < 320; i++)
    {
      double col, row;

      ef_grid_position_to_pixel (&grid, tg[i].pos, &col, &row);
      g_assert_cmpfloat (fabs (col - i % 20), <, 1e-9);
      g_assert_cmpfloat (fabs (row - i / 20), <, 1e-9);
      err2 += cabs (tg[i].amp - s[i]) * cabs (tg[i].amp - s[i]);
      sig2 += cabs (s[i]) * cabs (s[i]);
    }
  g_assert_cmpfloat (sqrt (err2 / sig2), <, 1e-6);
}

static void
test_bad_params (void)
{
  EfRepeatParams p;
  g_autoptr (GError) error = NULL;
  EfRepeatTruth *t;

  ef_repeat_params_init (&p, 10, 10);
  p.n_passes = 1;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_null (t);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ef_repeat_params_init (&p, 10, 10);
  p.n_ps = 40;
  p.ps_gap = 2;   /* 40 PS need 160 pixels at this gap; 100 are there */
  t = ef_repeat_truth_new (&p, &error);
  g_assert_null (t);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ef_repeat_params_init (&p, 0, 10);
  t = ef_repeat_truth_new (&p, &error);
  g_assert_null (t);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ef_repeat_params_init (&p, 10, 10);
  p.clutter_coherence = 1.5;
  t = ef_repeat_truth_new (&p, &error);
  g_assert_null (t);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/sim/repeat/dates-baselines", test_dates_and_baselines);
  g_test_add_func ("/compute/sim/repeat/ps-placement", test_ps_placement);
  g_test_add_func ("/compute/sim/repeat/ps-phase-model", test_ps_phase_model);
  g_test_add_func ("/compute/sim/repeat/aps", test_aps);
  g_test_add_func ("/compute/sim/repeat/clutter-coherence", test_clutter_coherence);
  g_test_add_func ("/compute/sim/repeat/targets", test_targets);
  g_test_add_func ("/compute/sim/repeat/bad-params", test_bad_params);
  return g_test_run ();
}
