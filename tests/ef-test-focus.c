/* ef-test-focus.c: the autofocus tests' point-target scenes, injected phase errors and focus measures. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>

#include "ef-job.h"
#include "ef-focus.h"
#include "ef-focus-private.h"
#include "ef-sim.h"
#include "ef-test-focus.h"

static const double target_xy[][2] = {
  { 0.0, 0.0 }, { 4.0, 3.1 }, { -4.6, 2.2 }, { 2.7, -4.4 }, { -2.9, -3.3 },
};
static const double target_amp[] = { 1.0, 0.8, 0.7, 0.9, 0.6 };
#define N_TARGETS G_N_ELEMENTS (target_xy)

/* Weak scatterers spread over the region, when a case asks for clutter: the distributed scene PGA's
 * windows and its choice of range lines exist for. */
#define N_CLUTTER 600
#define CLUTTER_AMP 0.04

const char *
ef_test_err_name (EfTestErrKind kind)
{
  static const char *names[] = { "quadratic", "sinusoid", "random-walk" };

  return names[kind];
}

EfDataset *
ef_test_focus_scene (gboolean spaceborne, gboolean clutter)
{
  EfSimParams sp;
  EfSimTarget tg[N_TARGETS + N_CLUTTER];
  guint nt = N_TARGETS;
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  if (spaceborne)
    ef_sim_params_init_spaceborne (&sp);
  else
    ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 256;
  sp.n_samples = 128;
  for (guint i = 0; i < N_TARGETS; i++)
    {
      tg[i].pos[0] = target_xy[i][0];
      tg[i].pos[1] = target_xy[i][1];
      tg[i].pos[2] = 0;
      tg[i].amp = target_amp[i] * cexp (I * g_test_rand_double_range (-G_PI, G_PI));
    }
  if (clutter)
    for (guint i = 0; i < N_CLUTTER; i++, nt++)
      {
        tg[nt].pos[0] = g_test_rand_double_range (-8, 8);
        tg[nt].pos[1] = g_test_rand_double_range (-8, 8);
        tg[nt].pos[2] = 0;
        tg[nt].amp = CLUTTER_AMP * cexp (I * g_test_rand_double_range (-G_PI, G_PI));
      }
  sp.targets = tg;
  sp.n_targets = nt;
  sp.seed = (guint64) g_test_rand_int_range (1, G_MAXINT32);
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  return ds;
}

double
ef_test_focus_residual (const double *a, const double *b, guint n)
{
  return ef_focus_phase_residual (a, b, n);
}

double *
ef_test_focus_error (EfTestErrKind kind, guint n, double rms_rad)
{
  double *e = g_new (double, n), rms;
  g_autofree double *zeros = g_new0 (double, n);
  double phase0 = g_test_rand_double_range (0, 2 * G_PI), walk = 0;

  for (guint p = 0; p < n; p++)
    {
      double x = 2.0 * p / (n - 1) - 1;

      switch (kind)
        {
        case EF_TEST_ERR_QUADRATIC:
          e[p] = x * x;
          break;
        case EF_TEST_ERR_SINUSOID:
          /* Two and a half cycles across the aperture. */
          e[p] = sin (2.5 * G_PI * x + phase0);
          break;
        case EF_TEST_ERR_RANDOM_WALK:
        default:
          walk += g_test_rand_double_range (-1, 1);
          e[p] = walk;
          break;
        }
    }
  /* Without its line, which would only move the targets from where the error-free image has them. */
  {
    double sx = 0, sy = 0, sxx = 0, sxy = 0, slope, icpt;

    for (guint p = 0; p < n; p++)
      {
        sx += p;
        sy += e[p];
        sxx += (double) p * p;
        sxy += p * e[p];
      }
    slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    icpt = (sy - slope * sx) / n;
    for (guint p = 0; p < n; p++)
      e[p] -= icpt + slope * p;
  }
  rms = ef_test_focus_residual (e, zeros, n);
  for (guint p = 0; p < n; p++)
    e[p] *= rms_rad / rms;
  return e;
}

/* An independent way in, beside the corrected dataset the engine makes. */
EfDataset *
ef_test_focus_with_error (EfDataset *ds, const double *err)
{
  guint64 np = ds->info.n_pulses, ns = ds->info.n_samples;
  EfCf32 *s = g_new (EfCf32, np * ns);
  g_autoptr (GError) error = NULL;

  g_assert_true (ef_dataset_read_block (ds, 0, (guint) np, s, &error));
  g_assert_no_error (error);
  for (guint64 p = 0; p < np; p++)
    for (guint64 k = 0; k < ns; k++)
      s[p * ns + k] *= cexp (I * err[p]);
  return ef_dataset_new_memory (&ds->info, g_memdup2 (ds->pulses, np * sizeof (EfPulse)), s);
}

EfImage *
ef_test_focus_form (EfDataset *ds, const EfGrid *grid, EfAlgo algo, EfBackendKind kind)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfJob) job = NULL;
  EfImage *img;
  EfJobParams jp;
  EfRect all = { 0, 0, grid->width, grid->height };

  ef_job_params_init (&jp, grid);
  jp.backend.algo = algo;
  jp.backend_kind = kind;
  jp.publish_interval_s = -1;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  g_assert_no_error (error);
  img = ef_image_new (grid, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_read_image (job, &all, img->data, &error));
  return img;
}

static void
measure (const EfImage *img, guint t, EfPointResult *res)
{
  g_autoptr (GError) error = NULL;
  double pos[3] = { target_xy[t][0], target_xy[t][1], 0 }, col, row;

  ef_grid_position_to_pixel (&img->grid, pos, &col, &row);
  g_assert_true (ef_point_analyse (img, col, row, 6, NULL, res, &error));
  g_assert_no_error (error);
}

void
ef_test_focus_compare (const EfImage *ref, const EfImage *focused, double *worst_pslr_db, double *worst_irw_rel)
{
  *worst_pslr_db = 0;
  *worst_irw_rel = 0;
  for (guint t = 0; t < N_TARGETS; t++)
    {
      EfPointResult a = { 0 }, b = { 0 };
      const EfCut *ca[2] = { &a.range, &a.cross }, *cb[2] = { &b.range, &b.cross };

      measure (ref, t, &a);
      measure (focused, t, &b);
      for (int k = 0; k < 2; k++)
        {
          double dp = fabs (cb[k]->pslr_db - ca[k]->pslr_db), di = fabs (cb[k]->irw_m / ca[k]->irw_m - 1);

          g_test_message ("  target %u %s: PSLR %.2f vs %.2f dB, IRW %.4f vs %.4f m", t, k == 0 ? "x" : "y",
                          cb[k]->pslr_db, ca[k]->pslr_db, cb[k]->irw_m, ca[k]->irw_m);
          *worst_pslr_db = MAX (*worst_pslr_db, dp);
          *worst_irw_rel = MAX (*worst_irw_rel, di);
        }
      ef_point_result_clear (&a);
      ef_point_result_clear (&b);
    }
}

EfCf32 *
ef_test_focus_pga_image (gboolean spaceborne, EfBackendKind kind, EfDataset **ds, EfFocusCtx *c)
{
  g_autoptr (EfDataset) clean = ef_test_focus_scene (spaceborne, FALSE);
  guint n = (guint) clean->info.n_pulses;
  g_autofree double *err = ef_test_focus_error (EF_TEST_ERR_RANDOM_WALK, n, 2.0);
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *img = NULL;
  EfFocusParams fp;

  *ds = ef_test_focus_with_error (clean, err);
  ef_focus_params_init (&fp, EF_FOCUS_PGA);
  fp.extent_m = 16;
  fp.backend = kind;
  g_assert_true (ef_focus_ctx_init (c, *ds, &fp, &error));
  g_assert_no_error (error);
  if (error != NULL)
    return NULL;
  img = g_new (EfCf32, ef_grid_n_pixels (&c->grid));
  g_assert_true (ef_focus_form (c, c->first, c->n, NULL, img, &error));
  g_assert_no_error (error);
  if (error != NULL)
    {
      ef_focus_ctx_clear (c);
      return NULL;
    }
  return g_steal_pointer (&img);
}
