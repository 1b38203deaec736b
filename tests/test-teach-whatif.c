/* test-teach-whatif.c: the classroom's what-if errors against their definitions and the physics they predict. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-backend.h"
#include "ef-error.h"
#include "ef-metrics.h"
#include "ef-sim.h"
#include "ef-teach-whatif.h"

#define HALF 6.0
#define SPACING 0.08

/* The simulator's airborne X-band spotlight (9.6 GHz, 600 MHz, 4.1 degrees, 512 pulses) with one point
 * at the scene centre, of random phase. */
static EfDataset *
airborne_point (void)
{
  EfSimParams sp;
  EfSimTarget tg = { { 0, 0, 0 }, 1.0 };
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  ef_sim_params_init_airborne (&sp);
  tg.amp = cexp (I * g_test_rand_double_range (-G_PI, G_PI));
  sp.targets = &tg;
  sp.n_targets = 1;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  return ds;
}

static EfImage *
form (EfDataset *ds, const EfTeachFormOptions *o)
{
  EfGrid g;
  g_autoptr (GError) error = NULL;
  EfImage *img;

  g_assert_true (ef_grid_init_roi (&g, -HALF, -HALF, HALF, HALF, SPACING, NULL));
  img = ef_image_new (&g, NULL);
  g_assert_true (ef_teach_form_ex (ds, &g, 0, ds->info.n_pulses, 0, (guint) ds->info.n_samples, o, 0, img->data,
                                   NULL, &error));
  g_assert_no_error (error);
  return img;
}

/* The point near the image's centre, its range cut along the middle pulse's ground line of sight. */
static void
measure (const EfDataset *ds, const EfImage *img, EfPointResult *res)
{
  const EfPulse *pu = &ds->pulses[ds->info.n_pulses / 2];
  double h = hypot (pu->tx[0], pu->tx[1]);
  double dir[3] = { pu->tx[0] / h, pu->tx[1] / h, 0 };
  g_autoptr (GError) error = NULL;

  g_assert_true (ef_point_analyse (img, 0.5 * (img->grid.width - 1), 0.5 * (img->grid.height - 1), 12, dir, res,
                                   &error));
  g_assert_no_error (error);
}

static double
rms_of (const double *e, guint64 n, double *mean)
{
  double m = 0, s = 0;

  for (guint64 p = 0; p < n; p++)
    m += e[p];
  m /= (double) n;
  for (guint64 p = 0; p < n; p++)
    s += (e[p] - m) * (e[p] - m);
  *mean = m;
  return sqrt (s / (double) n);
}

/* Every shape has the RMS asked for, exactly, and mean zero; none at all for an RMS of 0. */
static void
test_phase_rms (void)
{
  const EfTeachPhaseShape shapes[] = { EF_TEACH_PHASE_QUADRATIC, EF_TEACH_PHASE_SINE, EF_TEACH_PHASE_RANDOM_WALK,
                                       EF_TEACH_PHASE_LINEAR };
  guint64 n = (guint64) g_test_rand_int_range (64, 4096);
  g_autofree double *e = g_new (double, n);

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      double r = g_test_rand_double_range (0.1, 5), mean, got;

      ef_teach_phase_error (shapes[i], r, 0, g_test_rand_int (), n, e);
      got = rms_of (e, n, &mean);
      g_test_message ("shape %u, %" G_GUINT64_FORMAT " pulses: RMS %.15f for %.15f, mean %.2e", i, n, got, r, mean);
      g_assert_cmpfloat (fabs (got - r), <, 1e-12 * r);
      g_assert_cmpfloat (fabs (mean), <, 1e-12 * r);
      ef_teach_phase_error (shapes[i], 0, 0, 1, n, e);
      for (guint64 p = 0; p < n; p++)
        g_assert_cmpfloat (e[p], ==, 0);
    }
  /* The quadratic is x^2 less its mean, over x in [-1, 1]. */
  ef_teach_phase_error (EF_TEACH_PHASE_QUADRATIC, 1, 0, 0, n, e);
  g_assert_cmpfloat (e[0], ==, e[n - 1]);
  g_assert_cmpfloat (e[0] - e[n / 2], >, 0);
}

/* The random walk is the seed's: the same seed, the same error; another seed, another one; and it holds
 * no straight line. */
static void
test_random_walk_seed (void)
{
  const guint64 n = 512;
  double a[512], b[512], c[512], sxy = 0, sxx = 0, diff = 0;
  guint32 seed = g_test_rand_int ();

  ef_teach_phase_error (EF_TEACH_PHASE_RANDOM_WALK, 1.5, 0, seed, n, a);
  ef_teach_phase_error (EF_TEACH_PHASE_RANDOM_WALK, 1.5, 0, seed, n, b);
  ef_teach_phase_error (EF_TEACH_PHASE_RANDOM_WALK, 1.5, 0, seed + 1, n, c);
  g_assert_cmpmem (a, sizeof a, b, sizeof b);
  for (guint64 p = 0; p < n; p++)
    {
      double x = (double) p - 0.5 * (n - 1);

      sxy += x * a[p], sxx += x * x;
      diff += (a[p] - c[p]) * (a[p] - c[p]);
    }
  g_test_message ("seed %u: slope left %.2e rad/pulse; another seed differs by %.2f rad RMS", seed, sxy / sxx,
                  sqrt (diff / n));
  g_assert_cmpfloat (fabs (sxy / sxx), <, 1e-12);
  g_assert_cmpfloat (sqrt (diff / n), >, 0.1);
}

/* No error: the collection itself, and the image bit for bit. */
static void
test_zero_identical (void)
{
  g_autoptr (EfDataset) ds = airborne_point ();
  EfTeachErrors e = { .phase_shape = EF_TEACH_PHASE_RANDOM_WALK, .seed = 7 };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) same = ef_teach_errors_apply (ds, &e, &error);
  g_autoptr (EfImage) a = NULL, b = NULL;

  g_assert_no_error (error);
  g_assert_true (same == ds);
  a = form (ds, NULL);
  b = form (same, NULL);
  g_assert_cmpmem (a->data, ef_grid_n_pixels (&a->grid) * sizeof (EfCf32), b->data,
                   ef_grid_n_pixels (&b->grid) * sizeof (EfCf32));
  /* The serialized reader reads the same pulses. */
  {
    g_autoptr (EfDataset) serial = ef_teach_dataset_serialized (ds);
    g_autoptr (EfImage) c = form (serial, NULL);

    g_assert_cmpmem (a->data, ef_grid_n_pixels (&a->grid) * sizeof (EfCf32), c->data,
                     ef_grid_n_pixels (&c->grid) * sizeof (EfCf32));
  }
  /* Bad amounts are refused. */
  e.phase_rms = NAN;
  g_assert_null (ef_teach_errors_apply (ds, &e, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

/* A phase ramp of Phi across the aperture moves the point across the line of sight by
 * Phi c / (4 pi fc dtheta): one resolution cell for each 2 pi. */
static void
test_linear_shift (void)
{
  g_autoptr (EfDataset) ds = airborne_point ();
  const EfPulse *first = &ds->pulses[0], *last = &ds->pulses[ds->info.n_pulses - 1];
  guint64 n = ds->info.n_pulses;
  g_autofree double *e = g_new (double, n);
  double cells = g_test_rand_double_range (0.8, 2.0), phi, na, nb, dtheta, want, got, moved[3], dir[2], along;
  EfTeachErrors err = { .phase_shape = EF_TEACH_PHASE_LINEAR };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) erred = NULL;
  g_autoptr (EfImage) a = NULL, b = NULL;
  EfPointResult ra, rb;

  /* The RMS that makes a ramp of `cells` turns from the first pulse to the last. */
  ef_teach_phase_error (EF_TEACH_PHASE_LINEAR, 1, 0, 0, n, e);
  err.phase_rms = cells * 2 * G_PI / (e[n - 1] - e[0]);
  ef_teach_phase_error (EF_TEACH_PHASE_LINEAR, err.phase_rms, 0, 0, n, e);
  phi = e[n - 1] - e[0];
  na = sqrt (first->tx[0] * first->tx[0] + first->tx[1] * first->tx[1] + first->tx[2] * first->tx[2]);
  nb = sqrt (last->tx[0] * last->tx[0] + last->tx[1] * last->tx[1] + last->tx[2] * last->tx[2]);
  dtheta = acos ((first->tx[0] * last->tx[0] + first->tx[1] * last->tx[1] + first->tx[2] * last->tx[2]) / (na * nb));
  want = phi * EF_C / (4 * G_PI * ds->info.fc * dtheta);

  erred = ef_teach_errors_apply (ds, &err, &error);
  g_assert_no_error (error);
  a = form (ds, NULL);
  b = form (erred, NULL);
  measure (ds, a, &ra);
  measure (ds, b, &rb);
  for (int i = 0; i < 3; i++)
    moved[i] = rb.position[i] - ra.position[i];
  got = sqrt (moved[0] * moved[0] + moved[1] * moved[1] + moved[2] * moved[2]);
  /* Across the line of sight: along it, nothing. */
  dir[0] = ds->pulses[n / 2].tx[0] / hypot (ds->pulses[n / 2].tx[0], ds->pulses[n / 2].tx[1]);
  dir[1] = ds->pulses[n / 2].tx[1] / hypot (ds->pulses[n / 2].tx[0], ds->pulses[n / 2].tx[1]);
  along = moved[0] * dir[0] + moved[1] * dir[1];
  g_test_message ("ramp of %.2f rad: moved %.4f m (%.4f m along the line of sight), predicted %.4f m; "
                  "IRW %.4f -> %.4f m", phi, got, along, want, ra.cross.irw_m, rb.cross.irw_m);
  g_assert_cmpfloat (fabs (got - want), <, 0.01 * want);
  g_assert_cmpfloat (fabs (along), <, 0.01 * want);
  g_assert_cmpfloat (fabs (rb.cross.irw_m - ra.cross.irw_m), <, 0.03 * ra.cross.irw_m);
  ef_point_result_clear (&ra);
  ef_point_result_clear (&rb);
}

/* A speed error of x % on the simulator's circle about the scene puts pi x/100 L^2 / (2 lambda R0) of
 * quadratic phase on the aperture's edges, and blurs the point as that quadratic phase injected into the
 * data does. */
static void
test_speed_defocus (void)
{
  g_autoptr (EfDataset) ds = airborne_point ();
  guint64 n = ds->info.n_pulses;
  const EfPulse *f = &ds->pulses[0], *l = &ds->pulses[n - 1], *m = &ds->pulses[n / 2];
  EfTeachErrors speed = { .speed_pct = 0.15 }, quad = { .phase_shape = EF_TEACH_PHASE_QUADRATIC };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds_speed = NULL, ds_quad = NULL;
  g_autoptr (EfImage) a = NULL, b = NULL, c = NULL;
  g_autofree double *shape = g_new (double, n);
  double len, r0, lambda = EF_C / ds->info.fc, analytic, qpe, mean;
  EfPointResult ra, rb, rc;

  len = sqrt ((l->tx[0] - f->tx[0]) * (l->tx[0] - f->tx[0]) + (l->tx[1] - f->tx[1]) * (l->tx[1] - f->tx[1])
              + (l->tx[2] - f->tx[2]) * (l->tx[2] - f->tx[2]));
  r0 = sqrt (m->tx[0] * m->tx[0] + m->tx[1] * m->tx[1] + m->tx[2] * m->tx[2]);
  analytic = G_PI * speed.speed_pct / 100 * len * len / (2 * lambda * r0);
  ds_speed = ef_teach_errors_apply (ds, &speed, &error);
  g_assert_no_error (error);
  qpe = ef_teach_errors_qpe (ds, ds_speed, 0, n - 1);
  /* The same quadratic phase, injected: x^2 has an RMS of rms_of (x^2) over the pulses. */
  for (guint64 p = 0; p < n; p++)
    {
      double x = ((double) p - 0.5 * (n - 1)) / (0.5 * (n - 1));

      shape[p] = x * x;
    }
  quad.phase_rms = fabs (qpe) * rms_of (shape, n, &mean);
  ds_quad = ef_teach_errors_apply (ds, &quad, &error);
  g_assert_no_error (error);
  a = form (ds, NULL);
  b = form (ds_speed, NULL);
  c = form (ds_quad, NULL);
  measure (ds, a, &ra);
  measure (ds, b, &rb);
  measure (ds, c, &rc);
  g_test_message ("speed +%.2f%%: quadratic phase %.3f rad at the edges from the geometry, %.3f rad by "
                  "pi x L^2/(2 lambda R0) (L %.1f m, R0 %.1f m); cross-range IRW %.4f m error-free, %.4f m with the "
                  "speed error, %.4f m with %.3f rad RMS of quadratic phase injected",
                  speed.speed_pct, qpe, analytic, len, r0, ra.cross.irw_m, rb.cross.irw_m, rc.cross.irw_m,
                  quad.phase_rms);
  g_assert_cmpfloat (fabs (fabs (qpe) - analytic), <, 0.02 * analytic);
  g_assert_cmpfloat (rb.cross.irw_m, >, 1.3 * ra.cross.irw_m);
  g_assert_cmpfloat (fabs (rb.cross.irw_m - rc.cross.irw_m), <, 0.05 * rc.cross.irw_m);
  ef_point_result_clear (&ra);
  ef_point_result_clear (&rb);
  ef_point_result_clear (&rc);
}

/* A position error moves the image with it: d along the track moves the point by d along the track; d
 * towards the scene along the line of sight moves it d further in slant range, d / cos(grazing) on the
 * ground, away from the radar. */
static void
test_position_offset (void)
{
  g_autoptr (EfDataset) ds = airborne_point ();
  guint64 n = ds->info.n_pulses;
  const EfPulse *f = &ds->pulses[0], *l = &ds->pulses[n - 1], *m = &ds->pulses[n / 2];
  g_autoptr (EfImage) a = form (ds, NULL);
  EfPointResult ra;
  double d = g_test_rand_double_range (0.2, 0.8);

  measure (ds, a, &ra);
  for (int axis = 0; axis < 2; axis++)
    {
      EfTeachErrors e = { .offset_m = d, .offset_axis = axis ? EF_TEACH_OFFSET_LINE_OF_SIGHT
                                                              : EF_TEACH_OFFSET_ALONG_TRACK };
      g_autoptr (GError) error = NULL;
      g_autoptr (EfDataset) erred = ef_teach_errors_apply (ds, &e, &error);
      g_autoptr (EfImage) b = NULL;
      double want[3], got[3], len, err = 0, size = 0;
      EfPointResult rb;

      g_assert_no_error (error);
      b = form (erred, NULL);
      measure (ds, b, &rb);
      if (axis == 0)
        {
          for (int i = 0; i < 3; i++)
            want[i] = l->tx[i] - f->tx[i];
          len = sqrt (want[0] * want[0] + want[1] * want[1] + want[2] * want[2]);
          for (int i = 0; i < 3; i++)
            want[i] *= d / len;
        }
      else
        {
          double h = hypot (m->tx[0], m->tx[1]), grazing = atan2 (m->tx[2], h);

          want[0] = -m->tx[0] / h * d / cos (grazing);
          want[1] = -m->tx[1] / h * d / cos (grazing);
          want[2] = 0;
        }
      for (int i = 0; i < 3; i++)
        {
          got[i] = rb.position[i] - ra.position[i];
          err += (got[i] - want[i]) * (got[i] - want[i]);
          size += want[i] * want[i];
        }
      g_test_message ("%.3f m %s: moved (%.4f, %.4f) m, predicted (%.4f, %.4f) m", d,
                      axis ? "along the line of sight" : "along the track", got[0], got[1], want[0], want[1]);
      g_assert_cmpfloat (sqrt (err), <, 0.01 * sqrt (size));
      ef_point_result_clear (&rb);
    }
  ef_point_result_clear (&ra);
}

/* The interpolation error against the exact matched filter: small with linear interpolation of a
 * 16-times upsampled profile, far larger with the nearest bin of an unpadded one. */
static void
test_interp_ser (void)
{
  g_autoptr (EfDataset) ds = airborne_point ();
  EfGrid g;
  EfTeachFormOptions fine = { EF_WINDOW_RECT, EF_TEACH_INTERP_LINEAR, 16 };
  EfTeachFormOptions coarse = { EF_WINDOW_RECT, EF_TEACH_INTERP_NEAREST, 1 };
  EfTeachFormOptions coarse_lin = { EF_WINDOW_RECT, EF_TEACH_INTERP_LINEAR, 1 };
  g_autoptr (GError) error = NULL;
  double s_fine, s_coarse, s_lin;
  guint ns = (guint) ds->info.n_samples;

  g_assert_true (ef_grid_init_roi (&g, -HALF, -HALF, HALF, HALF, SPACING, NULL));
  s_fine = ef_teach_interp_ser_db (ds, &g, g.width / 2, g.height / 2, 16, 0, ds->info.n_pulses, 0, ns, &fine, &error);
  g_assert_no_error (error);
  s_lin = ef_teach_interp_ser_db (ds, &g, g.width / 2, g.height / 2, 16, 0, ds->info.n_pulses, 0, ns, &coarse_lin,
                                  &error);
  g_assert_no_error (error);
  s_coarse = ef_teach_interp_ser_db (ds, &g, g.width / 2, g.height / 2, 16, 0, ds->info.n_pulses, 0, ns, &coarse,
                                     &error);
  g_assert_no_error (error);
  g_test_message ("SER against the matched filter, 16 x 16 px about the point: linear x16 %.1f dB, linear x1 "
                  "%.1f dB, nearest x1 %.1f dB", s_fine, s_lin, s_coarse);
  g_assert_cmpfloat (s_fine, >, 53);
  g_assert_cmpfloat (s_fine, >, s_lin + 10);
  g_assert_cmpfloat (s_lin, >, s_coarse + 3);
}

/* A windowed stack, by its own path and through the processor's backend, is the windowed formation of
 * the same pulses; nearest-bin interpolation is refused through a backend, which says so. */
static void
test_window_stack (void)
{
  g_autoptr (EfDataset) ds = airborne_point ();
  EfTeachFormOptions taylor = { EF_WINDOW_TAYLOR, EF_TEACH_INTERP_LINEAR, 16 };
  EfTeachStackParams p = { 0 };
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *direct = NULL, *win = NULL;
  gsize n;

  g_assert_true (ef_grid_init_roi (&p.grid, -HALF, -HALF, HALF, HALF, 0.2, NULL));
  n = ef_grid_n_pixels (&p.grid);
  direct = g_new0 (EfCf32, n);
  win = g_new (EfCf32, n);
  g_assert_true (ef_teach_form_ex (ds, &p.grid, 0, ds->info.n_pulses, 0, (guint) ds->info.n_samples, &taylor, 0,
                                   direct, NULL, &error));
  g_assert_no_error (error);
  p.block_pulses = 64;
  p.n_bands = 2;
  p.window = EF_WINDOW_TAYLOR;
  for (int use_backend = 0; use_backend < 2; use_backend++)
    {
      g_autoptr (EfTeachStack) st = NULL;
      double ser;

      p.use_backend = use_backend;
      p.backend = EF_BACKEND_CPU;
      st = ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      for (gsize i = 0; i < n; i++)
        win[i] = NAN;
      g_assert_true (ef_teach_stack_window (st, 0, ef_teach_stack_n_blocks (st) - 1, 0, 1, win, &error));
      ser = ef_ser_db_f32 (win, direct, n);
      g_test_message ("Taylor stack, %s (%s): %.1f dB against the direct formation",
                      use_backend ? "through the backend" : "its own path", ef_teach_stack_formed_by (st), ser);
      g_assert_cmpfloat (ser, >, 120);
    }
  p.interp = EF_TEACH_INTERP_NEAREST;
  g_assert_null (ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/teach/whatif/phase-rms", test_phase_rms);
  g_test_add_func ("/compute/teach/whatif/random-walk-seed", test_random_walk_seed);
  g_test_add_func ("/compute/teach/whatif/zero-identical", test_zero_identical);
  g_test_add_func ("/compute/teach/whatif/linear-shift", test_linear_shift);
  g_test_add_func ("/compute/teach/whatif/speed-defocus", test_speed_defocus);
  g_test_add_func ("/compute/teach/whatif/position-offset", test_position_offset);
  g_test_add_func ("/compute/teach/whatif/interp-ser", test_interp_ser);
  g_test_add_func ("/compute/teach/whatif/window-stack", test_window_stack);
  return g_test_run ();
}
