/* test-teach.c: the aperture stack and the classroom's theory against measurement and direct formation. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ef-error.h"
#include "ef-image-io.h"
#include "ef-metrics.h"
#include "ef-teach.h"
#include "ef-test-scene.h"

/* How close a measured -3 dB width must come to 0.886 of the theory's resolution. */
#define IRW_TOL 0.03
#define RECT_IRW 0.886

/* The airborne X-band spotlight of the simulator (9.6 GHz, 600 MHz, 4.1 degrees, 30 degrees grazing)
 * with one point target at (x, y), 512 pulses of 512 samples. */
static EfDataset *
airborne_point (double x, double y)
{
  EfSimParams sp;
  EfSimTarget tg = { { x, y, 0 }, 1.0 };
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

static EfTeachStack *
make_stack (EfDataset *ds, double half, double spacing, guint block, guint bands, gboolean fp64)
{
  EfTeachStackParams p = { 0 };
  g_autoptr (GError) error = NULL;
  EfTeachStack *st;

  g_assert_true (ef_grid_init_roi (&p.grid, -half, -half, half, half, spacing, NULL));
  p.block_pulses = block;
  p.n_bands = bands;
  p.fp64 = fp64;
  st = ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (st);
  return st;
}

/* The ground-plane unit vector from the SRP towards pulse p's antenna. */
static void
los_ground (const EfDataset *ds, guint64 p, double dir[3])
{
  const EfPulse *pu = &ds->pulses[p];
  double h = hypot (pu->tx[0], pu->tx[1]);

  dir[0] = pu->tx[0] / h;
  dir[1] = pu->tx[1] / h;
  dir[2] = 0;
}

/* Measures the point target at the grid's centre in the window's image; the range cut along the
 * window's middle line of sight. */
static void
measure_window (EfTeachStack *st, guint b0, guint b1, guint s0, guint s1, EfPointResult *res)
{
  const EfGrid *g = ef_teach_stack_grid (st);
  g_autoptr (EfImage) img = ef_image_new (g, NULL);
  g_autoptr (GError) error = NULL;
  guint64 f0, f1;
  guint c0, c1;
  double dir[3];

  g_assert_true (ef_teach_stack_window (st, b0, b1, s0, s1, img->data, &error));
  g_assert_no_error (error);
  ef_teach_stack_block_range (st, b0, &f0, &c0);
  ef_teach_stack_block_range (st, b1, &f1, &c1);
  los_ground (ef_teach_stack_dataset (st), (f0 + f1 + c1 - 1) / 2, dir);
  g_assert_true (ef_point_analyse (img, 0.5 * (g->width - 1), 0.5 * (g->height - 1), 8, dir, res, &error));
  g_assert_no_error (error);
}

/* Cross-range -3 dB width for the whole, half and quarter aperture against 0.886 lambda / (2 dtheta). */
static void
test_crossrange_irw (void)
{
  g_autoptr (EfDataset) ds = airborne_point (0, 0);
  g_autoptr (EfTeachStack) st = make_stack (ds, 12.0, 0.1, 32, 1, FALSE);
  const guint win[3][2] = { { 0, 15 }, { 4, 11 }, { 6, 9 } };

  g_assert_cmpuint (ef_teach_stack_n_blocks (st), ==, 16);
  for (guint i = 0; i < 3; i++)
    {
      EfPointResult res = { 0 };
      EfTeachTheory th;
      double expect;

      measure_window (st, win[i][0], win[i][1], 0, 0, &res);
      ef_teach_theory (ds, win[i][0] * 32, win[i][1] * 32 + 31, 0, 511, &th);
      expect = RECT_IRW * th.cross_res;
      g_test_message ("aperture 1/%u: %" G_GUINT64_FORMAT " pulses, dtheta %.4f deg, cross-range IRW %.4f m, "
                      "theory %.4f m (%.2f%%)", 1u << i, th.n_pulses, th.dtheta * 180 / G_PI, res.cross.irw_m, expect,
                      100 * (res.cross.irw_m / expect - 1));
      g_assert_cmpfloat (fabs (res.cross.irw_m / expect - 1), <, IRW_TOL);
      ef_point_result_clear (&res);
    }
}

/* Range -3 dB width for the whole band, half and a quarter against 0.886 c / (2 B), on the ground. */
static void
test_range_irw (void)
{
  g_autoptr (EfDataset) ds = airborne_point (0, 0);
  g_autoptr (EfTeachStack) st = make_stack (ds, 12.0, 0.1, 512, 4, FALSE);
  const guint win[3][2] = { { 0, 3 }, { 1, 2 }, { 2, 2 } };

  g_assert_cmpuint (ef_teach_stack_n_blocks (st), ==, 1);
  g_assert_cmpuint (ef_teach_stack_n_bands (st), ==, 4);
  for (guint i = 0; i < 3; i++)
    {
      EfPointResult res = { 0 };
      EfTeachTheory th;
      guint k0, n0, k1, n1;
      double expect;

      measure_window (st, 0, 0, win[i][0], win[i][1], &res);
      ef_teach_stack_band_range (st, win[i][0], &k0, &n0);
      ef_teach_stack_band_range (st, win[i][1], &k1, &n1);
      ef_teach_theory (ds, 0, 511, k0, k1 + n1 - 1, &th);
      g_assert_cmpfloat (fabs (th.bandwidth - 600e6 * (k1 + n1 - k0) / 512.0), <, 1.0);
      expect = RECT_IRW * th.range_res_ground;
      g_test_message ("band 1/%u: %.1f MHz, range IRW %.4f m, theory %.4f m (%.2f%%)", 1u << i, th.bandwidth / 1e6,
                      res.range.irw_m, expect, 100 * (res.range.irw_m / expect - 1));
      g_assert_cmpfloat (fabs (res.range.irw_m / expect - 1), <, IRW_TOL);
      ef_point_result_clear (&res);
    }
}

static double
ser_db32 (const EfCf32 *t, const EfCf32 *r, gsize n)
{
  double s = 0, e = 0;

  for (gsize i = 0; i < n; i++)
    {
      s += creal (r[i] * conjf (r[i]));
      e += cabs ((EfCf64) t[i] - (EfCf64) r[i]) * cabs ((EfCf64) t[i] - (EfCf64) r[i]);
    }
  return 10 * log10 (s / e);
}

/* A window of the stack equals one direct formation of its pulses and band: random targets, random
 * windows, in fp64 (>= 100 dB) and fp32 (>= 80 dB). */
static void
test_window_equals_direct (void)
{
  EfSimParams sp;
  g_autofree EfSimTarget *tg = ef_test_random_targets (12, -6, -6, 6, 6);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 240;
  sp.n_samples = 256;
  sp.targets = tg;
  sp.n_targets = 12;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);

  for (int fp64 = 1; fp64 >= 0; fp64--)
    {
      g_autoptr (EfTeachStack) st = make_stack (ds, 4.0, 0.125, 24, 4, fp64);
      const EfGrid *g = ef_teach_stack_grid (st);
      gsize n = ef_grid_n_pixels (g);

      g_assert_cmpuint (ef_teach_stack_n_blocks (st), ==, 10);
      for (guint trial = 0; trial < 3; trial++)
        {
          guint b0 = g_test_rand_int_range (0, 10), b1 = g_test_rand_int_range (b0, 10);
          guint s0 = g_test_rand_int_range (0, 4), s1 = g_test_rand_int_range (s0, 4);
          guint64 p0, p1;
          guint c, k0, k1, nk;
          double ser;

          ef_teach_stack_block_range (st, b0, &p0, &c);
          ef_teach_stack_block_range (st, b1, &p1, &c);
          ef_teach_stack_band_range (st, s0, &k0, &nk);
          ef_teach_stack_band_range (st, s1, &k1, &nk);
          if (fp64)
            {
              g_autofree EfCf64 *win = g_new (EfCf64, n);
              g_autofree EfCf64 *direct = g_new0 (EfCf64, n);

              for (gsize i = 0; i < n; i++)
                win[i] = NAN;
              g_assert_true (ef_teach_stack_window64 (st, b0, b1, s0, s1, win, &error));
              g_assert_true (ef_teach_form (ds, g, p0, p1 + c - p0, k0, k1 + nk - k0, 0, 0, NULL, direct, &error));
              g_assert_no_error (error);
              ser = ef_test_ser_db64 (win, direct, n);
              g_test_message ("fp64 blocks %u..%u bands %u..%u: SER %.1f dB", b0, b1, s0, s1, ser);
              g_assert_cmpfloat (ser, >=, 100.0);
            }
          else
            {
              g_autofree EfCf32 *win = g_new (EfCf32, n);
              g_autofree EfCf32 *direct = g_new0 (EfCf32, n);

              for (gsize i = 0; i < n; i++)
                win[i] = NAN;
              g_assert_true (ef_teach_stack_window (st, b0, b1, s0, s1, win, &error));
              g_assert_true (ef_teach_form (ds, g, p0, p1 + c - p0, k0, k1 + nk - k0, 0, 0, direct, NULL, &error));
              g_assert_no_error (error);
              ser = ser_db32 (win, direct, n);
              g_test_message ("fp32 blocks %u..%u bands %u..%u: SER %.1f dB", b0, b1, s0, s1, ser);
              g_assert_cmpfloat (ser, >=, 80.0);
            }
        }
      /* A window outside the stack is refused. */
      {
        g_autofree EfCf32 *win = g_new (EfCf32, n);

        g_assert_false (ef_teach_stack_window (st, 3, 10, 0, 0, win, &error));
        g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
        g_clear_error (&error);
      }
    }
}

/* A stack formed through the processor's formation backend (the one `form --backend cpu` runs) gives the
 * windows of the float64 stack within fp32's error, and says what formed it; a device asked for by name
 * either forms it or is refused with a reason. */
static void
test_backend (void)
{
  EfSimParams sp;
  g_autofree EfSimTarget *tg = ef_test_random_targets (8, -4, -4, 4, 4);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfTeachStack) ref = NULL;
  g_autoptr (EfTeachStack) st = NULL;
  EfTeachStackParams p = { 0 };
  gsize n;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 160;
  sp.n_samples = 256;
  sp.targets = tg;
  sp.n_targets = 8;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  ref = make_stack (ds, 3.0, 0.125, 20, 3, TRUE);
  g_assert_cmpstr (ef_teach_stack_formed_by (ref), ==, "cpu");
  g_assert_null (ef_teach_stack_note (ref));

  p.grid = *ef_teach_stack_grid (ref);
  p.block_pulses = 20;
  p.n_bands = 3;
  p.use_backend = TRUE;
  p.backend = EF_BACKEND_CPU;
  p.fp64 = TRUE;
  /* Backends form in fp32 only: said, not quietly changed. */
  g_assert_null (ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  p.fp64 = FALSE;
  st = ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("formed by %s", ef_teach_stack_formed_by (st));
  g_assert_nonnull (ef_teach_stack_formed_by (st));
  g_assert_cmpuint (ef_teach_stack_n_blocks (st), ==, 8);
  n = ef_grid_n_pixels (&p.grid);
  for (guint trial = 0; trial < 4; trial++)
    {
      guint b0 = g_test_rand_int_range (0, 8), b1 = g_test_rand_int_range (b0, 8);
      guint s0 = g_test_rand_int_range (0, 3), s1 = g_test_rand_int_range (s0, 3);
      g_autofree EfCf32 *win = g_new (EfCf32, n);
      g_autofree EfCf64 *want = g_new (EfCf64, n);
      double ser;

      for (gsize i = 0; i < n; i++)
        win[i] = NAN;
      g_assert_true (ef_teach_stack_window (st, b0, b1, s0, s1, win, &error));
      g_assert_true (ef_teach_stack_window64 (ref, b0, b1, s0, s1, want, &error));
      g_assert_no_error (error);
      ser = ef_ser_db_f32_f64 (win, want, n);
      g_test_message ("backend blocks %u..%u bands %u..%u: SER %.1f dB against the float64 stack", b0, b1, s0, s1,
                      ser);
      /* 97.6-101.1 dB measured over 84 random windows; the bound is the least less 3 dB. */
      g_assert_cmpfloat (ser, >=, 94.0);
    }

  /* A device by name: formed there, or refused saying why (no CUDA in this build, or no device). */
  {
    g_autoptr (EfTeachStack) dev = NULL;

    p.backend = EF_BACKEND_CUDA;
    dev = ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error);
    if (dev == NULL)
      {
        g_test_message ("CUDA: %s", error->message);
        g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE);
        g_clear_error (&error);
      }
    else
      g_assert_cmpstr (ef_teach_stack_formed_by (dev), !=, "cpu");
  }
}

/* The stack states its memory, merges blocks to fit a budget and refuses one that cannot. */
static void
test_budget (void)
{
  g_autoptr (EfDataset) ds = airborne_point (0, 0);
  EfTeachStackParams p = { 0 };
  g_autoptr (EfTeachStack) st = NULL;
  g_autoptr (GError) error = NULL;
  gsize px;

  g_assert_true (ef_grid_init_roi (&p.grid, -2, -2, 2, 2, 0.25, NULL));
  px = ef_grid_n_pixels (&p.grid);
  p.block_pulses = 8;    /* 64 blocks */
  p.n_bands = 2;
  p.budget_bytes = ef_teach_stack_bytes_for (16, 2, px, FALSE);
  st = ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ef_teach_stack_n_blocks (st), ==, 16);
  g_assert_cmpuint (ef_teach_stack_block_pulses (st), ==, 32);
  g_assert_cmpuint (ef_teach_stack_bytes (st), ==, 16 * 2 * px * 8);
  g_assert_cmpuint (ef_teach_stack_bytes_for (3, 1, 5, TRUE), ==, 3 * 5 * 16);
  g_assert_cmpuint (ef_teach_stack_bytes_for (G_MAXUINT64 / 2, 4, 1000, FALSE), ==, 0);

  p.budget_bytes = px * 8 - 1;
  g_assert_null (ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY);
}

/* The ring one pulse backprojects passes through every target at that target's range. */
static void
test_single_pulse_arc (void)
{
  const double xy[5][2] = { { 0, 0 }, { 8, 3 }, { -6, -5 }, { -2, 9 }, { 5, -8 } };
  EfSimTarget tg[5];
  EfGrid grid;
  EfSimParams sp;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  double bin;
  double *pts = g_new (double, 2 * 4096);

  ef_test_place_targets (tg, xy, 5);
  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 64;
  sp.azimuth_deg = g_test_rand_double_range (-180, 180);
  sp.targets = tg;
  sp.n_targets = 5;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_grid_init_roi (&grid, -12, -12, 12, 12, 0.1, NULL));
  bin = EF_C / (2 * ds->info.bandwidth);
  for (guint p = 0; p < 64; p += 21)
    for (guint t = 0; t < 5; t++)
      {
        const EfPulse *pu = &ds->pulses[p];
        double r = 0, col, row, best = INFINITY;
        guint n;

        for (int c = 0; c < 3; c++)
          r += (pu->tx[c] - tg[t].pos[c]) * (pu->tx[c] - tg[t].pos[c]);
        n = ef_teach_pulse_arc (&grid, pu, sqrt (r), 2, pts, 4096);
        g_assert_cmpuint (n, >, 10);
        ef_grid_position_to_pixel (&grid, tg[t].pos, &col, &row);
        /* The distance from the target to the polyline, in metres. */
        for (guint i = 0; i + 1 < n; i++)
          {
            double ax = pts[2 * i], ay = pts[2 * i + 1], bx = pts[2 * i + 2], by = pts[2 * i + 3];
            double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy, s;

            if (isnan (ax) || isnan (bx))
              continue;
            s = l2 > 0 ? CLAMP (((col - ax) * dx + (row - ay) * dy) / l2, 0, 1) : 0;
            best = MIN (best, hypot (ax + s * dx - col, ay + s * dy - row) * grid.spacing);
          }
        g_assert_cmpfloat (best, <, bin);
        g_assert_cmpfloat (best, <, 0.01);
      }
  /* A range shorter than the antenna's height reaches nothing. */
  g_assert_cmpuint (ef_teach_pulse_arc (&grid, &ds->pulses[0], 100.0, 0, pts, 4096), ==, 0);
  g_free (pts);
}

/* The k-space sector is the collection's band and look angles, and a window's part of them. */
static void
test_kspace (void)
{
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) error = NULL;
  EfSimParams sp;
  EfSimTarget tg = { { 0 }, 1.0 };
  EfTeachKspace ks;
  EfTeachTheory th;
  double az = g_test_rand_double_range (-180, 180);

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 101;
  sp.azimuth_deg = az;
  sp.targets = &tg;
  sp.n_targets = 1;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  ef_teach_kspace (ds, 0, 100, 0, 511, &ks);
  g_assert_cmpfloat (fabs (ks.k_min - 2 * (sp.fc - 0.5 * sp.bandwidth) / EF_C), <, 1e-9);
  g_assert_cmpfloat (fabs (ks.k_max - 2 * (sp.fc + 0.5 * sp.bandwidth) / EF_C), <, 1e-9);
  g_assert_cmpfloat (fabs (ks.angle_hi - ks.angle_lo - sp.aperture_deg * G_PI / 180), <, 1e-9);
  g_assert_cmpfloat (fabs (remainder (0.5 * (ks.angle_hi + ks.angle_lo) - az * G_PI / 180, 2 * G_PI)), <, 1e-9);
  /* The middle half of the band over the first fifth of the pulses. */
  ef_teach_kspace (ds, 0, 20, 128, 383, &ks);
  g_assert_cmpfloat (fabs (ks.k_min - 2 * (sp.fc - 0.25 * sp.bandwidth) / EF_C), <, 1e-9);
  g_assert_cmpfloat (fabs (ks.k_max - 2 * (sp.fc + 0.25 * sp.bandwidth) / EF_C), <, 1e-9);
  g_assert_cmpfloat (fabs (ks.angle_hi - ks.angle_lo - 0.2 * sp.aperture_deg * G_PI / 180), <, 1e-9);
  ef_teach_theory (ds, 0, 100, 0, 511, &th);
  g_assert_cmpfloat (fabs (th.bandwidth - sp.bandwidth), <, 1e-3);
  g_assert_cmpfloat (fabs (th.range_res - EF_C / (2 * sp.bandwidth)), <, 1e-12);
  g_assert_cmpfloat (fabs (th.grazing - sp.grazing_deg * G_PI / 180), <, 1e-9);
}

/* A pulse's profile peaks at the target's differential range; the phase history picture is normalised. */
static void
test_profile_and_history (void)
{
  g_autoptr (EfDataset) ds = airborne_point (6, -3);
  g_autoptr (GError) error = NULL;
  g_autofree float *mag = NULL;
  g_autofree float *ph = NULL;
  const EfPulse *pu = &ds->pulses[100];
  double r0 = 0, r_start, dr, want;
  guint n, best = 0;
  float peak = 0;

  mag = ef_teach_pulse_profile (ds, 100, 0, 512, &n, &r_start, &dr, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    if (mag[i] > mag[best])
      best = i;
  want = sqrt ((pu->tx[0] - 6) * (pu->tx[0] - 6) + (pu->tx[1] + 3) * (pu->tx[1] + 3) + pu->tx[2] * pu->tx[2])
         - pu->r0;
  r0 = r_start + best * dr;
  g_assert_cmpfloat (fabs (r0 - want), <=, dr);
  ph = ef_teach_phase_history (ds, 64, 32, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 64 * 32; i++)
    peak = MAX (peak, ph[i]);
  g_assert_cmpfloat (fabs (peak - 1), <, 1e-6);
  g_assert_null (ef_teach_phase_history (ds, 0, 32, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

/* A squinted stripmap: at mid-aperture the line of sight is 90 - squint degrees from the track, the
 * standoff unchanged; the pulses are speed x their times apart. */
static void
test_squint (void)
{
  const double squints[] = { 0, 20, -35 };

  for (guint i = 0; i < G_N_ELEMENTS (squints); i++)
    {
      EfSimParams sp;
      EfSimTarget tg = { { 0 }, 1.0 };
      g_autoptr (GError) error = NULL;
      g_autoptr (EfDataset) ds = NULL;
      const EfPulse *a, *b, *m;
      double d[3], l[3], nd = 0, nl = 0, dot = 0, ang;

      ef_sim_params_init_airborne (&sp);
      sp.geometry = EF_SIM_STRIPMAP;
      sp.n_pulses = 65;
      sp.squint_deg = squints[i];
      sp.targets = &tg;
      sp.n_targets = 1;
      ds = ef_sim_run (&sp, &error);
      g_assert_no_error (error);
      a = &ds->pulses[31];
      m = &ds->pulses[32];
      b = &ds->pulses[33];
      for (int c = 0; c < 3; c++)
        {
          d[c] = b->tx[c] - a->tx[c];
          l[c] = -m->tx[c];
          nd += d[c] * d[c];
          nl += l[c] * l[c];
          dot += d[c] * l[c];
        }
      ang = acos (dot / sqrt (nd * nl)) * 180 / G_PI;
      g_assert_cmpfloat (fabs (90 - ang - squints[i]), <, 1e-6);
      g_assert_cmpfloat (fabs (sqrt (nl) - sp.standoff), <, 1e-6);
      g_assert_cmpfloat (fabs (sqrt (nd) - sp.speed * (b->t - a->t)), <, 1e-6);
    }
  {
    EfSimParams sp;
    g_autoptr (GError) error = NULL;

    ef_sim_params_init_airborne (&sp);
    sp.squint_deg = 10;
    g_assert_null (ef_sim_run (&sp, &error));
    g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  }
}

/* The FP16 streaming paper's stripmap point (its Table 2, data/presets/fp16-stripmap.ini), simulated as
 * chirp echoes through the preset by the command line and formed with rectangular windows: PSLR
 * -13.3 +- 0.2 dB and ISLR within 0.5 dB of the paper's -10.2 dB, in range and cross-range. */
static void
test_fp16_preset (void)
{
  const char *cli = g_getenv ("EF_CLI");
  g_autofree char *preset = g_test_build_filename (G_TEST_DIST, "..", "data", "presets", "fp16-stripmap.ini", NULL);
  g_autofree char *dir = g_dir_make_tmp ("ef-teach-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "fp16.npy", NULL);
  g_autofree char *side = g_strconcat (out, ".json", NULL);
  g_autofree char *err_text = NULL;
  g_autoptr (EfImage) img = NULL;
  g_autoptr (GError) error = NULL;
  const double dir_range[3] = { 1, 0, 0 };
  const double target[3] = { -197.9826537, 4, 0 };
  EfPointResult res = { 0 };
  double col, row;
  int status = 0;

  if (cli == NULL || !g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("EF_CLI does not name echoform-cli");
      return;
    }
  {
    const char *argv[] = { cli, "form", preset, "--roi", "-210,-8,-186,16", "--spacing", "0.08", "--window", "rect",
                           "--azimuth-window", "rect", "--backend", "cpu", "-o", out, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err_text,
                                 &status, &error));
    g_assert_no_error (error);
    if (!g_spawn_check_wait_status (status, NULL))
      g_error ("echoform-cli form failed: %s", err_text);
  }
  img = ef_image_read_npy (out, &error);
  g_assert_no_error (error);
  ef_grid_position_to_pixel (&img->grid, target, &col, &row);
  g_assert_true (ef_point_analyse (img, col, row, 8, dir_range, &res, &error));
  g_assert_no_error (error);
  g_test_message ("range: IRW %.4f m PSLR %.2f dB ISLR %.2f dB; cross-range: IRW %.4f m PSLR %.2f dB ISLR %.2f dB",
                  res.range.irw_m, res.range.pslr_db, res.range.islr_db, res.cross.irw_m, res.cross.pslr_db,
                  res.cross.islr_db);
  g_assert_cmpfloat (fabs (res.range.pslr_db + 13.3), <=, 0.2);
  g_assert_cmpfloat (fabs (res.cross.pslr_db + 13.3), <=, 0.2);
  g_assert_cmpfloat (fabs (res.range.islr_db + 10.2), <=, 0.5);
  g_assert_cmpfloat (fabs (res.cross.islr_db + 10.2), <=, 0.5);
  /* Where the preset puts it, within a tenth of the range resolution. */
  g_assert_cmpfloat (hypot (res.position[0] - target[0], res.position[1] - target[1]), <, 0.03);
  ef_point_result_clear (&res);
  g_unlink (out);
  g_unlink (side);
  g_rmdir (dir);
}

static gboolean
run_cli (const char *const *argv, char **err_text)
{
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, err_text,
                               &status, &error));
  g_assert_no_error (error);
  return g_spawn_check_wait_status (status, NULL);
}

/* Every preset is a scene the command line reads; the classroom's is the scene the classroom window
 * simulates, sample for sample. */
static void
test_presets (void)
{
  const char *names[] = { "fp16-stripmap.ini", "gotcha-circular.ini", "spaceborne-stripmap.ini", "classroom.ini" };
  const char *cli = g_getenv ("EF_CLI");
  g_autofree char *dir = NULL;
  g_autofree char *cphd = NULL;
  g_autoptr (EfDataset) file = NULL;
  g_autoptr (EfDataset) mine = NULL;
  g_autoptr (GError) error = NULL;
  const EfCf32 *a;
  g_autofree EfCf32 *b = NULL;
  gsize n;
  double e = 0, s = 0;

  if (cli == NULL || !g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("EF_CLI does not name echoform-cli");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *preset = g_test_build_filename (G_TEST_DIST, "..", "data", "presets", names[i], NULL);
      g_autofree char *err_text = NULL;
      const char *argv[] = { cli, "info", preset, NULL };

      if (!run_cli (argv, &err_text))
        g_error ("echoform-cli info %s failed: %s", names[i], err_text);
    }
  dir = g_dir_make_tmp ("ef-teach-XXXXXX", NULL);
  cphd = g_build_filename (dir, "classroom.cphd", NULL);
  {
    g_autofree char *preset = g_test_build_filename (G_TEST_DIST, "..", "data", "presets", "classroom.ini", NULL);
    g_autofree char *err_text = NULL;
    const char *argv[] = { cli, "simulate", "-c", preset, "-o", cphd, NULL };

    if (!run_cli (argv, &err_text))
      g_error ("echoform-cli simulate classroom.ini failed: %s", err_text);
  }
  file = ef_dataset_open (cphd, 0, &error);
  g_assert_no_error (error);
  mine = ef_teach_classroom_new (0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (file->info.n_pulses, ==, mine->info.n_pulses);
  g_assert_cmpuint (file->info.n_samples, ==, mine->info.n_samples);
  n = mine->info.n_pulses * mine->info.n_samples;
  a = ef_dataset_memory_samples (mine);
  b = g_new (EfCf32, n);
  g_assert_true (ef_dataset_read_block (file, 0, (guint) file->info.n_pulses, b, &error));
  for (gsize i = 0; i < n; i++)
    {
      e += cabs ((EfCf64) a[i] - (EfCf64) b[i]) * cabs ((EfCf64) a[i] - (EfCf64) b[i]);
      s += cabs ((EfCf64) a[i]) * cabs ((EfCf64) a[i]);
    }
  if (e == 0)
    g_test_message ("classroom.ini against the classroom scene: identical samples");
  else
    g_test_message ("classroom.ini against the classroom scene: SER %.1f dB", 10 * log10 (s / e));
  g_assert_cmpfloat (10 * log10 (s / MAX (e, 1e-300)), >, 100);
  for (guint64 p = 0; p < mine->info.n_pulses; p += 97)
    for (int c = 0; c < 3; c++)
      g_assert_cmpfloat (fabs (file->pulses[p].tx[c] - mine->pulses[p].tx[c]), <, 1e-3);
  g_unlink (cphd);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/teach/stack/crossrange-irw", test_crossrange_irw);
  g_test_add_func ("/compute/teach/stack/range-irw", test_range_irw);
  g_test_add_func ("/compute/teach/stack/window-equals-direct", test_window_equals_direct);
  g_test_add_func ("/compute/teach/stack/budget", test_budget);
  g_test_add_func ("/compute/teach/stack/backend", test_backend);
  g_test_add_func ("/compute/teach/theory/single-pulse-arc", test_single_pulse_arc);
  g_test_add_func ("/compute/teach/theory/kspace", test_kspace);
  g_test_add_func ("/compute/teach/theory/profile-history", test_profile_and_history);
  g_test_add_func ("/compute/teach/sim/squint", test_squint);
  g_test_add_func ("/compute/teach/preset/fp16-stripmap", test_fp16_preset);
  g_test_add_func ("/compute/teach/preset/all", test_presets);
  return g_test_run ();
}
