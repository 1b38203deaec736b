/* test-metrics.c: impulse-response analysis and image-quality measures against analytic references. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-metrics"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-metrics.h"

typedef enum {
  RESP_RECT,
  RESP_HANN,
} Resp;

static double
sinc (double x)
{
  return fabs (x) < 1e-12 ? 1.0 : sin (G_PI * x) / (G_PI * x);
}

/* Impulse response of a band of width 1/res, x in resolution cells, with a peak of 1. The Hann-weighted
 * band's response is three shifted sincs. */
static double
response (Resp resp, double x)
{
  if (resp == RESP_RECT)
    return sinc (x);
  return sinc (x) + 0.5 * sinc (x - 1) + 0.5 * sinc (x + 1);
}

typedef struct {
  double irw;        /* resolution cells */
  double first_null; /* resolution cells */
  double pslr_db;
  double islr_db;
} Theory;

/* The continuous response's figures, integrating sidelobes out to +-extent resolution cells. */
static Theory
theory (Resp resp, double extent)
{
  Theory t = { 0 };
  double lo = 0, hi = 1.5, step = 1e-5, x, prev, peak = 0, main_e = 0, side_e = 0;

  for (int i = 0; i < 200; i++)
    {
      double mid = 0.5 * (lo + hi);
      if (fabs (response (resp, mid)) > sqrt (0.5))
        lo = mid;
      else
        hi = mid;
    }
  t.irw = lo + hi;

  prev = fabs (response (resp, 0));
  for (x = step;; x += step)
    {
      double a = fabs (response (resp, x));
      if (a > prev)
        break;
      prev = a;
    }
  t.first_null = x - step;

  prev = 0;
  for (x = t.first_null; x < extent; x += step)
    {
      double a = fabs (response (resp, x)), b = fabs (response (resp, x + step));
      if (a >= prev && a >= b)
        peak = MAX (peak, a);
      prev = a;
    }
  t.pslr_db = 20 * log10 (peak);

  /* Simpson on [0, null] and [null, extent]; the response is even. */
  for (int part = 0; part < 2; part++)
    {
      double a = part == 0 ? 0 : t.first_null, b = part == 0 ? t.first_null : extent;
      int n = 2 * (int) ceil ((b - a) / 1e-4 / 2);
      double h = (b - a) / n, s = 0;
      for (int i = 0; i <= n; i++)
        {
          double v = response (resp, a + i * h);
          double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
          s += w * v * v;
        }
      s *= h / 3;
      if (part == 0)
        main_e = s;
      else
        side_e = s;
    }
  t.islr_db = 10 * log10 (side_e / main_e);
  return t;
}

typedef struct {
  Resp   resp;
  double res;         /* pixels */
  double c0, r0;      /* true peak, pixels */
  double theta;       /* response axes rotated by theta from the pixel axes (col towards row) */
  double fx, fy;      /* carrier, cycles per pixel */
  double phase;
  double amp;
} Target;

static EfImage *
make_image (guint width, guint height, double spacing, const Target *t)
{
  EfGrid grid;
  EfImage *image;
  g_autoptr (GError) error = NULL;
  double ct = cos (t->theta), st = sin (t->theta);

  g_assert_true (ef_grid_init_roi (&grid, 0, 0, width * spacing, height * spacing, spacing, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (grid.width, ==, width);
  g_assert_cmpuint (grid.height, ==, height);
  image = ef_image_new (&grid, &error);
  g_assert_no_error (error);

  for (guint r = 0; r < height; r++)
    for (guint c = 0; c < width; c++)
      {
        double dx = c - t->c0, dy = r - t->r0;
        double a = dx * ct + dy * st, b = -dx * st + dy * ct;
        double mag = t->amp * response (t->resp, a / t->res) * response (t->resp, b / t->res);
        double ph = t->phase + 2 * G_PI * (t->fx * c + t->fy * r);
        image->data[(gsize) r * width + c] = (EfCf32) (mag * cexp (I * ph));
      }
  return image;
}

static void
random_target (Target *t, Resp resp, guint width, guint height)
{
  t->resp = resp;
  /* From barely oversampled to well oversampled. */
  t->res = g_test_rand_double_range (1.2, 4.0);
  t->c0 = width / 2 + g_test_rand_double_range (-3, 3);
  t->r0 = height / 2 + g_test_rand_double_range (-3, 3);
  t->theta = 0;
  t->fx = g_test_rand_double_range (0, 1);
  t->fy = g_test_rand_double_range (0, 1);
  t->phase = g_test_rand_double_range (-G_PI, G_PI);
  t->amp = g_test_rand_double_range (0.5, 100);
}

static void
check_cut (const char *name, const EfCut *cut, const Target *t, double spacing, double pslr_tol)
{
  double res_m = t->res * spacing;
  double extent = cut->offset_m[cut->n - 1] / res_m;
  Theory th = theory (t->resp, extent);
  double irw = cut->irw_m / res_m;

  g_test_message ("%s: IRW %.5f cells (theory %.5f, %+.3f%%), PSLR %.3f dB (theory %.3f), "
                  "ISLR %.3f dB (theory %.3f over +-%.2f cells)",
                  name, irw, th.irw, 100 * (irw / th.irw - 1), cut->pslr_db, th.pslr_db, cut->islr_db,
                  th.islr_db, extent);

  /* The cut is symmetric about the peak and spans the documented 10 -3 dB widths. */
  g_assert_cmpuint (cut->n % 2, ==, 1);
  g_assert_cmpfloat (fabs (cut->offset_m[0] + cut->offset_m[cut->n - 1]), <, 1e-9 * res_m);
  g_assert_cmpfloat (cut->offset_m[cut->n / 2], ==, 0.0);
  g_assert_cmpfloat (cut->level_db[cut->n / 2], ==, 0.0);
  g_assert_cmpfloat (fabs (cut->offset_m[cut->n - 1] - 10 * cut->irw_m), <, 0.05 * res_m);
  for (guint i = 0; i < cut->n; i++)
    g_assert_cmpfloat (cut->level_db[i], <=, 1e-6);

  /* Measured over 15 seeds: IRW within 0.11%, PSLR and ISLR within 0.016 dB of theory. */
  g_assert_cmpfloat (fabs (irw / th.irw - 1), <, 0.002);
  g_assert_cmpfloat (fabs (cut->pslr_db - th.pslr_db), <, pslr_tol);
  g_assert_cmpfloat (fabs (cut->islr_db - th.islr_db), <, 0.03);
}

static void
analyse_and_check (const Target *t, guint width, guint height, double spacing, const double *dir,
                   double pslr_tol)
{
  g_autoptr (EfImage) image = make_image (width, height, spacing, t);
  g_autoptr (GError) error = NULL;
  EfPointResult res = { 0 };
  double expect[3];
  gboolean ok;
  gint64 t0 = g_get_monotonic_time ();

  /* Start the search a pixel or two away from the peak. */
  ok = ef_point_analyse (image, round (t->c0) + 1, round (t->r0) - 1, 3, dir, &res, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_test_message ("resolution %.2f px, carrier (%.2f, %.2f): peak at (%.4f, %.4f), true (%.4f, %.4f), %.1f ms",
                  t->res, t->fx, t->fy, res.col, res.row, t->c0, t->r0, (g_get_monotonic_time () - t0) / 1000.0);

  /* Measured within 0.0021 px over 15 seeds. */
  g_assert_cmpfloat (fabs (res.col - t->c0), <, 0.004);
  g_assert_cmpfloat (fabs (res.row - t->r0), <, 0.004);
  ef_grid_pixel_position (&image->grid, t->c0, t->r0, expect);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (fabs (res.position[i] - expect[i]), <, 0.004 * spacing);
  /* The peak of the sampled response is amp * h(0) * h(0). */
  g_assert_cmpfloat (fabs (res.peak_db - 20 * log10 (t->amp * pow (response (t->resp, 0), 2))), <, 0.05);

  check_cut ("range", &res.range, t, spacing, pslr_tol);
  check_cut ("cross", &res.cross, t, spacing, pslr_tol);
  ef_point_result_clear (&res);
  g_assert_null (res.range.offset_m);
}

static void
test_point_rect (void)
{
  for (int trial = 0; trial < 3; trial++)
    {
      Target t;
      random_target (&t, RESP_RECT, 160, 150);
      analyse_and_check (&t, 160, 150, g_test_rand_double_range (0.05, 2.0), NULL, 0.03);
    }
}

static void
test_point_hann (void)
{
  for (int trial = 0; trial < 2; trial++)
    {
      Target t;
      Theory th = theory (RESP_HANN, 20);
      g_assert_cmpfloat (fabs (th.pslr_db + 31.47), <, 0.05);
      random_target (&t, RESP_HANN, 170, 160);
      analyse_and_check (&t, 170, 160, g_test_rand_double_range (0.05, 2.0), NULL, 0.03);
    }
}

static void
test_point_rotated (void)
{
  for (int trial = 0; trial < 3; trial++)
    {
      Target t;
      double dir[3];
      EfGrid g;

      g_assert_true (ef_grid_init_roi (&g, 0, 0, 1, 1, 1, NULL));
      random_target (&t, RESP_RECT, 160, 160);
      t.theta = g_test_rand_double_range (G_PI / 12, 5 * G_PI / 12) * (trial % 2 ? -1 : 1);
      /* The rotated square band spans (|cos| + |sin|) / res cycles per pixel; keep it unaliased. */
      t.res = MAX (t.res, 1.2 * (fabs (cos (t.theta)) + fabs (sin (t.theta))));
      /* The response's first axis, (cos, sin) in (col, row), expressed in the scene frame. */
      for (int i = 0; i < 3; i++)
        dir[i] = cos (t.theta) * g.u[i] + sin (t.theta) * g.v[i];
      g_test_message ("rotation %.2f degrees", t.theta * 180 / G_PI);
      analyse_and_check (&t, 160, 160, 0.5, dir, 0.03);
    }
}

static void
test_point_theory (void)
{
  Theory inf = theory (RESP_RECT, 400);

  /* The familiar figures of the rectangular window. */
  g_assert_cmpfloat (fabs (inf.irw - 0.8859), <, 1e-3);
  g_assert_cmpfloat (fabs (inf.pslr_db + 13.26), <, 0.01);
  g_assert_cmpfloat (fabs (inf.islr_db + 9.68), <, 0.02);
}

static void
test_point_border (void)
{
  Target t = { RESP_RECT, 3.0, 2.3, 40.6, 0, 0.3, 0.7, 0.4, 1.0 };
  g_autoptr (EfImage) image = make_image (64, 80, 1.0, &t);
  g_autoptr (GError) error = NULL;
  EfPointResult res = { 0 };

  /* The response is cut off by the image edge, yet the peak is found. */
  g_assert_true (ef_point_analyse (image, 2, 41, 2, NULL, &res, &error));
  g_assert_no_error (error);
  g_test_message ("near the edge: (%.4f, %.4f), true (%.4f, %.4f)", res.col, res.row, t.c0, t.r0);
  /* Measured 0.0038 px off: the cut-off response biases the fit a little. */
  g_assert_cmpfloat (fabs (res.col - t.c0), <, 0.008);
  g_assert_cmpfloat (fabs (res.row - t.r0), <, 0.008);
  ef_point_result_clear (&res);
}

/* An image that overflowed is not an empty one: a non-finite pixel near the peak stops the measurement
 * (zeroing it would measure a response with a hole), and an all-NaN image says so instead of "zero". A
 * NaN far from the target changes nothing. */
static void
test_point_nonfinite (void)
{
  Target t = { RESP_RECT, 3.0, 200.2, 200.7, 0, 0, 0, 0, 1.0 };
  g_autoptr (EfImage) image = make_image (400, 400, 1.0, &t);
  g_autoptr (EfImage) clean = make_image (400, 400, 1.0, &t);
  EfPointResult res = { 0 }, ref = { 0 };
  GError *error = NULL;

  image->data[2 * 400 + 5] = NAN;
  g_assert_true (ef_point_analyse (clean, 200, 200, 4, NULL, &ref, &error));
  g_assert_no_error (error);
  g_assert_true (ef_point_analyse (image, 200, 200, 4, NULL, &res, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (res.cross.irw_m, ==, ref.cross.irw_m);
  ef_point_result_clear (&res);
  ef_point_result_clear (&ref);

  image->data[202 * 400 + 203] = CMPLXF (INFINITY, 0);
  g_assert_false (ef_point_analyse (image, 200, 200, 4, NULL, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "not finite"));
  g_clear_error (&error);

  for (gsize i = 0; i < 400 * 400; i++)
    image->data[i] = NAN;
  g_assert_false (ef_point_analyse (image, 200, 200, 4, NULL, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "81 pixels within 4 of it are not finite"));
  g_assert_null (strstr (error->message, "zero"));
  g_clear_error (&error);
  g_assert_null (res.range.offset_m);
}

static void
test_point_errors (void)
{
  Target t = { RESP_RECT, 3.0, 30.2, 30.7, 0, 0, 0, 0, 1.0 };
  g_autoptr (EfImage) image = make_image (64, 64, 1.0, &t);
  EfPointResult res = { 0 };
  GError *error = NULL;
  double normal[3] = { 0, 0, 1 };

  g_assert_false (ef_point_analyse (image, -3, 10, 4, NULL, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ef_point_analyse (image, 10, 64, 4, NULL, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ef_point_analyse (image, NAN, 10, 4, NULL, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ef_point_analyse (image, 30, 30, 4, normal, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  ef_image_clear (image);
  g_assert_false (ef_point_analyse (image, 30, 30, 4, NULL, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "No point target"));
  g_clear_error (&error);
  g_assert_null (res.range.offset_m);

  /* A flat patch wider than the largest window has no -3 dB point, so it is not a point target. */
  {
    g_autoptr (EfImage) flat = make_image (300, 300, 1.0, &t);
    for (gsize i = 0; i < 300 * 300; i++)
      flat->data[i] = 1.0f;
    g_assert_false (ef_point_analyse (flat, 150, 150, 4, NULL, &res, &error));
    g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED);
    g_clear_error (&error);
    g_assert_null (res.range.offset_m);
  }
}

/* Whole-image measures. */

static double
gauss (void)
{
  double u1 = g_test_rand_double_range (1e-12, 1), u2 = g_test_rand_double ();
  return sqrt (-2 * log (u1)) * cos (2 * G_PI * u2);
}

static EfCf32 *
random_image (gsize n, double sigma)
{
  EfCf32 *z = g_new (EfCf32, n);
  for (gsize i = 0; i < n; i++)
    z[i] = (EfCf32) (sigma * gauss () + I * sigma * gauss ());
  return z;
}

static void
test_entropy (void)
{
  gsize n = 4096;
  g_autofree EfCf32 *z = random_image (n, 1.0);
  g_autofree EfCf32 *flat = g_new (EfCf32, n);
  g_autofree EfCf32 *spike = g_new0 (EfCf32, n);
  double total = 0, h = 0;

  for (gsize i = 0; i < n; i++)
    flat[i] = (EfCf32) (3.0 * cexp (I * g_test_rand_double_range (-G_PI, G_PI)));
  spike[17] = 5.0f + 1.0f * I;

  g_assert_cmpfloat (fabs (ef_image_entropy (flat, n) - log ((double) n)), <, 1e-9);
  g_assert_cmpfloat (fabs (ef_image_entropy (spike, n)), <, 1e-12);
  g_assert_cmpfloat (ef_image_entropy (spike, 0), ==, 0.0);

  for (gsize i = 0; i < n; i++)
    total += pow (cabs ((EfCf64) z[i]), 2);
  for (gsize i = 0; i < n; i++)
    {
      double p = pow (cabs ((EfCf64) z[i]), 2) / total;
      if (p > 0)
        h -= p * log (p);
    }
  g_test_message ("entropy %.9f, reference %.9f", ef_image_entropy (z, n), h);
  g_assert_cmpfloat (fabs (ef_image_entropy (z, n) - h), <, 1e-9 * h);
}

static void
test_ser (void)
{
  gsize n = 65536;
  g_autofree EfCf32 *ref = random_image (n, 2.0);
  g_autofree EfCf32 *test = g_new (EfCf32, n);
  g_autofree EfCf64 *ref64 = g_new (EfCf64, n);

  g_assert_true (isinf (ef_ser_db_f32 (ref, ref, n)) && ef_ser_db_f32 (ref, ref, n) > 0);

  for (double target = 10; target <= 50; target += 20)
    {
      double sigma = 2.0 / sqrt (pow (10, target / 10));
      double sig = 0, err = 0, ser, ser64;

      for (gsize i = 0; i < n; i++)
        {
          ref64[i] = 2.0 * gauss () + I * 2.0 * gauss ();
          test[i] = (EfCf32) (ref64[i] + sigma * gauss () + I * sigma * gauss ());
          ref[i] = (EfCf32) ref64[i];
        }
      ser = ef_ser_db_f32 (test, ref, n);
      ser64 = ef_ser_db_f32_f64 (test, ref64, n);
      for (gsize i = 0; i < n; i++)
        {
          sig += pow (cabs (ref64[i]), 2);
          err += pow (cabs ((EfCf64) test[i] - ref64[i]), 2);
        }
      g_test_message ("SER target %.1f dB: f32 %.4f dB, f64 ref %.4f dB, exact %.4f dB", target, ser, ser64,
                      10 * log10 (sig / err));
      g_assert_cmpfloat (fabs (ser - target), <, 0.1);
      g_assert_cmpfloat (fabs (ser64 - target), <, 0.1);
      g_assert_cmpfloat (fabs (ser64 - 10 * log10 (sig / err)), <, 1e-9);
    }
}

static void
test_psnr (void)
{
  gsize n = 16384;
  g_autofree EfCf32 *ref = random_image (n, 1.0);
  g_autofree EfCf32 *test = g_new (EfCf32, n);
  double last = INFINITY;

  g_assert_true (isinf (ef_psnr_db (ref, ref, n)));
  for (double sigma = 0.01; sigma < 1; sigma *= 4)
    {
      double peak = 0, err = 0, psnr;
      for (gsize i = 0; i < n; i++)
        test[i] = ref[i] + (EfCf32) (sigma * gauss () + I * sigma * gauss ());
      for (gsize i = 0; i < n; i++)
        {
          peak = MAX (peak, cabs ((EfCf64) ref[i]));
          err += pow (cabs ((EfCf64) test[i]) - cabs ((EfCf64) ref[i]), 2);
        }
      psnr = ef_psnr_db (test, ref, n);
      g_test_message ("PSNR at noise %.3f: %.3f dB", sigma, psnr);
      g_assert_cmpfloat (fabs (psnr - 10 * log10 (peak * peak / (err / n))), <, 1e-9);
      g_assert_cmpfloat (psnr, <, last);
      last = psnr;
    }
}

/* Direct SSIM: every 8 x 8 window computed from scratch. */
static double
ssim_reference (const EfCf32 *x, const EfCf32 *y, guint w, guint h, double range)
{
  double maxp = 0, hi, lo, total = 0;
  guint wx = MIN (8u, w), wy = MIN (8u, h), count = 0;
  g_autofree double *mx = g_new (double, (gsize) w * h);
  g_autofree double *my = g_new (double, (gsize) w * h);

  for (gsize i = 0; i < (gsize) w * h; i++)
    maxp = MAX (maxp, pow (cabs ((EfCf64) y[i]), 2));
  hi = 10 * log10 (maxp);
  lo = hi - range;
  for (gsize i = 0; i < (gsize) w * h; i++)
    {
      double a = 20 * log10 (cabs ((EfCf64) x[i])), b = 20 * log10 (cabs ((EfCf64) y[i]));
      mx[i] = CLAMP ((a - lo) / range, 0, 1);
      my[i] = CLAMP ((b - lo) / range, 0, 1);
    }
  for (guint r = 0; r + wy <= h; r++)
    for (guint c = 0; c + wx <= w; c++)
      {
        double ax = 0, ay = 0, vx = 0, vy = 0, cxy = 0, k = wx * wy;
        for (guint i = r; i < r + wy; i++)
          for (guint j = c; j < c + wx; j++)
            {
              ax += mx[i * w + j] / k;
              ay += my[i * w + j] / k;
            }
        for (guint i = r; i < r + wy; i++)
          for (guint j = c; j < c + wx; j++)
            {
              double dx = mx[i * w + j] - ax, dy = my[i * w + j] - ay;
              vx += dx * dx / k;
              vy += dy * dy / k;
              cxy += dx * dy / k;
            }
        total += ((2 * ax * ay + 1e-4) * (2 * cxy + 9e-4)) / ((ax * ax + ay * ay + 1e-4) * (vx + vy + 9e-4));
        count++;
      }
  return total / count;
}

static void
test_ssim (void)
{
  guint w = 61, h = 47;
  gsize n = (gsize) w * h;
  g_autofree EfCf32 *ref = random_image (n, 1.0);
  g_autofree EfCf32 *test = g_new (EfCf32, n);
  double last = 1.0;

  g_assert_cmpfloat (fabs (ef_ssim (ref, ref, w, h, 40) - 1.0), <, 1e-12);
  /* An image smaller than a window is one window. */
  g_assert_cmpfloat (fabs (ef_ssim (ref, ref, 5, 3, 40) - 1.0), <, 1e-12);

  for (double sigma = 0.03; sigma < 2; sigma *= 3)
    {
      double s, s_ref;
      for (gsize i = 0; i < n; i++)
        test[i] = ref[i] + (EfCf32) (sigma * gauss () + I * sigma * gauss ());
      s = ef_ssim (test, ref, w, h, 40);
      s_ref = ssim_reference (test, ref, w, h, 40);
      g_test_message ("SSIM at noise %.3f: %.6f (direct %.6f)", sigma, s, s_ref);
      g_assert_cmpfloat (fabs (s - s_ref), <, 1e-9);
      g_assert_cmpfloat (s, <, last);
      g_assert_cmpfloat (s, >, -1);
      last = s;
    }
  g_assert_cmpfloat (last, <, 0.6);
}

static void
test_correlation (void)
{
  gsize n = 65536;
  g_autofree EfCf32 *a = random_image (n, 1.0);
  g_autofree EfCf32 *b = random_image (n, 1.0);
  g_autofree EfCf32 *c = g_new (EfCf32, n);
  double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0, r;

  for (gsize i = 0; i < n; i++)
    c[i] = a[i] * (EfCf32) (3.0 * cexp (I * g_test_rand_double_range (-G_PI, G_PI)));
  g_assert_cmpfloat (fabs (ef_magnitude_correlation (a, a, n) - 1), <, 1e-12);
  g_assert_cmpfloat (fabs (ef_magnitude_correlation (a, c, n) - 1), <, 1e-6);
  r = ef_magnitude_correlation (a, b, n);
  g_assert_cmpfloat (fabs (r), <, 0.03);

  for (gsize i = 0; i < n; i++)
    b[i] = a[i] + 0.5f * b[i];
  for (gsize i = 0; i < n; i++)
    {
      ma += cabs ((EfCf64) a[i]) / n;
      mb += cabs ((EfCf64) b[i]) / n;
    }
  for (gsize i = 0; i < n; i++)
    {
      double da = cabs ((EfCf64) a[i]) - ma, db = cabs ((EfCf64) b[i]) - mb;
      sab += da * db;
      saa += da * da;
      sbb += db * db;
    }
  r = ef_magnitude_correlation (a, b, n);
  g_test_message ("correlation %.9f, reference %.9f", r, sab / sqrt (saa * sbb));
  g_assert_cmpfloat (fabs (r - sab / sqrt (saa * sbb)), <, 1e-9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/compute/metrics/point/theory", test_point_theory);
  g_test_add_func ("/compute/metrics/point/rect", test_point_rect);
  g_test_add_func ("/compute/metrics/point/hann", test_point_hann);
  g_test_add_func ("/compute/metrics/point/rotated", test_point_rotated);
  g_test_add_func ("/compute/metrics/point/border", test_point_border);
  g_test_add_func ("/compute/metrics/point/errors", test_point_errors);
  g_test_add_func ("/compute/metrics/point/nonfinite", test_point_nonfinite);
  g_test_add_func ("/compute/metrics/entropy", test_entropy);
  g_test_add_func ("/compute/metrics/ser", test_ser);
  g_test_add_func ("/compute/metrics/psnr", test_psnr);
  g_test_add_func ("/compute/metrics/ssim", test_ssim);
  g_test_add_func ("/compute/metrics/correlation", test_correlation);

  return g_test_run ();
}
