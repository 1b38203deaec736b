/* ef-metrics.c: image-quality measurements: impulse response, entropy, SER, PSNR, SSIM. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-metrics"
#include "config.h"

#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-fftw.h"
#include "ef-metrics.h"

/*
 * Point-target analysis
 *
 * A window of n x n pixels around the brightest pixel is upsampled by zero padding its 2-D spectrum
 * (FFTW), which is the exact band-limited interpolation of the samples as long as the image is
 * oversampled (pixel spacing finer than the resolution). SAR images carry a linear phase ramp, so the
 * spectrum's occupied band may sit anywhere in [0, n) and wrap around the Nyquist bin; the padding
 * zeros are therefore inserted opposite the band's circular centre instead of at Nyquist, which also
 * demodulates the ramp (magnitudes, all we measure, are unchanged).
 *
 * Cuts are sampled from the upsampled data by bicubic interpolation of the complex values. The -3 dB
 * width is the half-power width. The main lobe runs between the first local minima on either side of
 * the peak. Sidelobe measurements (PSLR, ISLR) use the cut out to EF_CUT_EXTENT_IRW times the -3 dB
 * width on each side of the peak, or as far as the largest window (EF_WINDOW_MAX pixels) reaches.
 */

#define EF_WINDOW_MIN 32          /* pixels; the first pass, to find the peak and a rough width */
#define EF_WINDOW_MAX 256         /* pixels; bounds the cut length for very broad responses */
#define EF_WINDOW_GUARD 8         /* pixels kept clear of the window edge, where the periodic
                                   * interpolant wraps round */
#define EF_FINE_MAX 1024          /* upsampled edge, samples */
#define EF_CUT_EXTENT_IRW 10.0    /* cut half-length for PSLR/ISLR, in -3 dB widths */
#define EF_HALF_POWER_DB (-3.0102999566398120)
#define EF_LEVEL_FLOOR_DB (-300.0)


typedef struct {
  guint         n;      /* window edge, pixels */
  guint         up;     /* upsampling factor */
  guint         m;      /* n * up */
  gint64        c0, r0; /* image pixel under window sample (0, 0) */
  fftw_complex *fine;   /* owned: m * m, row-major; sample (i, j) is pixel (r0 + i/up, c0 + j/up) */
} EfUpsampled;

static void
ef_upsampled_clear (EfUpsampled *u)
{
  if (u->fine != NULL)
    fftw_free (u->fine);
  memset (u, 0, sizeof *u);
}

/* Circular centre (in bins, rounded) of a power distribution over n bins. */
static guint
ef_spectral_centre (const double *power, guint n)
{
  double complex acc = 0;
  double phase;
  long k;

  for (guint i = 0; i < n; i++)
    acc += power[i] * cexp (2.0 * G_PI * I * (double) i / (double) n);
  if (cabs (acc) == 0)
    return 0;
  phase = carg (acc);
  k = lround (phase * (double) n / (2.0 * G_PI));
  return (guint) (((k % (long) n) + (long) n) % (long) n);
}

static gboolean
ef_upsample_window (const EfImage *image, gint64 pc, gint64 pr, guint n, guint up, EfUpsampled *out,
                    GError **error)
{
  const EfGrid *g = &image->grid;
  fftw_complex *win, *fine;
  fftw_plan fwd, inv;
  double *px, *py;
  guint64 n_bad = 0;
  guint m = n * up, kcx, kcy;
  double scale = 1.0 / ((double) n * (double) n);

  win = fftw_alloc_complex ((gsize) n * n);
  fine = fftw_alloc_complex ((gsize) m * m);
  if (win == NULL || fine == NULL)
    {
      if (win != NULL)
        fftw_free (win);
      if (fine != NULL)
        fftw_free (fine);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory to upsample a %u x %u window", m, m);
      return FALSE;
    }

  out->n = n;
  out->up = up;
  out->m = m;
  out->c0 = pc - n / 2;
  out->r0 = pr - n / 2;

  /* Pixels beyond the image edge are zero: the response is simply cut off there. A pixel that is not
   * finite would spread over the whole window, and zeroing it would measure a response with a hole:
   * neither is a measurement. */
  for (guint i = 0; i < n; i++)
    {
      gint64 r = out->r0 + i;
      for (guint j = 0; j < n; j++)
        {
          gint64 c = out->c0 + j;
          EfCf32 z = 0;
          if (r >= 0 && r < g->height && c >= 0 && c < g->width)
            z = image->data[(gsize) r * g->width + (gsize) c];
          if (!isfinite (crealf (z)) || !isfinite (cimagf (z)))
            n_bad++;
          win[(gsize) i * n + j] = (double complex) z;
        }
    }
  if (n_bad > 0)
    {
      fftw_free (win);
      fftw_free (fine);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED,
                   "%" G_GUINT64_FORMAT " pixels of the %u x %u window about the peak at pixel (%" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT ") are not finite (NaN or infinite): the image overflowed there, and its "
                   "impulse response cannot be measured", n_bad, n, n, pc, pr);
      return FALSE;
    }

  ef_fftw_planner_lock ();
  fwd = fftw_plan_dft_2d ((int) n, (int) n, win, win, FFTW_FORWARD, FFTW_ESTIMATE);
  inv = fftw_plan_dft_2d ((int) m, (int) m, fine, fine, FFTW_BACKWARD, FFTW_ESTIMATE);
  ef_fftw_planner_unlock ();
  if (fwd == NULL || inv == NULL)
    {
      ef_fftw_planner_lock ();
      if (fwd != NULL)
        fftw_destroy_plan (fwd);
      if (inv != NULL)
        fftw_destroy_plan (inv);
      ef_fftw_planner_unlock ();
      fftw_free (win);
      fftw_free (fine);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "FFTW could not plan a %u x %u transform", m, m);
      return FALSE;
    }

  fftw_execute (fwd);

  px = g_new0 (double, n);
  py = g_new0 (double, n);
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < n; j++)
      {
        double p = creal (win[(gsize) i * n + j]) * creal (win[(gsize) i * n + j])
                   + cimag (win[(gsize) i * n + j]) * cimag (win[(gsize) i * n + j]);
        py[i] += p;
        px[j] += p;
      }
  kcx = ef_spectral_centre (px, n);
  kcy = ef_spectral_centre (py, n);
  g_free (px);
  g_free (py);

  /* Bin k goes to signed frequency d = k - kc wrapped into [-n/2, n/2); the zeros fill the rest. */
  memset (fine, 0, sizeof (fftw_complex) * (gsize) m * m);
  for (guint i = 0; i < n; i++)
    {
      long dy = (long) ((i + n - kcy + n / 2) % n) - (long) (n / 2);
      gsize fi = (gsize) ((dy + (long) m) % (long) m);
      for (guint j = 0; j < n; j++)
        {
          long dx = (long) ((j + n - kcx + n / 2) % n) - (long) (n / 2);
          gsize fj = (gsize) ((dx + (long) m) % (long) m);
          fine[fi * m + fj] = win[(gsize) i * n + j] * scale;
        }
    }
  fftw_execute (inv);

  ef_fftw_planner_lock ();
  fftw_destroy_plan (fwd);
  fftw_destroy_plan (inv);
  ef_fftw_planner_unlock ();
  fftw_free (win);
  out->fine = fine;
  return TRUE;
}

/* Keys' cubic convolution kernel, a = -0.5. */
static inline double
ef_keys (double t)
{
  t = fabs (t);
  if (t <= 1.0)
    return (1.5 * t - 2.5) * t * t + 1.0;
  if (t < 2.0)
    return ((-0.5 * t + 2.5) * t - 4.0) * t + 2.0;
  return 0.0;
}

/* Bicubic interpolation of the upsampled data at fine coordinates (fr, fc); it wraps round, as the
 * upsampled data is periodic. */
static double complex
ef_upsampled_at (const EfUpsampled *u, double fr, double fc)
{
  double ir = floor (fr), ic = floor (fc);
  double tr = fr - ir, tc = fc - ic;
  double wr[4], wc[4];
  double complex acc = 0;
  long m = u->m;

  for (int k = 0; k < 4; k++)
    {
      wr[k] = ef_keys (tr - (k - 1));
      wc[k] = ef_keys (tc - (k - 1));
    }
  for (int a = 0; a < 4; a++)
    {
      long r = (((long) ir + a - 1) % m + m) % m;
      double complex row = 0;
      for (int b = 0; b < 4; b++)
        {
          long c = (((long) ic + b - 1) % m + m) % m;
          row += wc[b] * u->fine[r * m + c];
        }
      acc += wr[a] * row;
    }
  return acc;
}

static inline double
ef_fine_mag (const EfUpsampled *u, long i, long j)
{
  long m = u->m;
  i = (i % m + m) % m;
  j = (j % m + m) % m;
  return cabs (u->fine[i * m + j]);
}

/* Sub-sample peak of the upsampled data within +-2 pixels of the window centre: the largest sample,
 * refined by a 2-D quadratic fit to its 3 x 3 neighbourhood (the fit's cross term keeps a rotated
 * response unbiased). Returns fine coordinates. */
static void
ef_upsampled_peak (const EfUpsampled *u, double *fr, double *fc)
{
  long centre = (long) (u->n / 2) * u->up;
  long reach = 2 * (long) u->up;
  long bi = centre, bj = centre;
  double best = -1, f[3][3], gx, gy, gxx, gyy, gxy, det, dx = 0, dy = 0;

  for (long i = centre - reach; i <= centre + reach; i++)
    for (long j = centre - reach; j <= centre + reach; j++)
      {
        double a = ef_fine_mag (u, i, j);
        if (a > best)
          {
            best = a;
            bi = i;
            bj = j;
          }
      }

  for (int a = -1; a <= 1; a++)
    for (int b = -1; b <= 1; b++)
      f[a + 1][b + 1] = ef_fine_mag (u, bi + a, bj + b);
  gx = 0.5 * (f[1][2] - f[1][0]);
  gy = 0.5 * (f[2][1] - f[0][1]);
  gxx = f[1][2] - 2 * f[1][1] + f[1][0];
  gyy = f[2][1] - 2 * f[1][1] + f[0][1];
  gxy = 0.25 * (f[2][2] - f[2][0] - f[0][2] + f[0][0]);
  det = gxx * gyy - gxy * gxy;
  if (gxx < 0 && det > 0)
    {
      dx = -(gyy * gx - gxy * gy) / det;
      dy = -(gxx * gy - gxy * gx) / det;
      if (fabs (dx) > 1 || fabs (dy) > 1)
        dx = dy = 0;
    }
  *fr = (double) bi + dy;
  *fc = (double) bj + dx;
}

/* Samples |z| along a line through the fine-grid point (fr, fc) in pixel direction (ec, er), from
 * -half_px to +half_px pixels, with step_px between samples. Returns the number of samples (odd; the
 * middle one is the peak). */
static guint
ef_sample_line (const EfUpsampled *u, double fr, double fc, double ec, double er, double half_px,
                double step_px, double **mag_out)
{
  guint h = (guint) floor (half_px / step_px);
  guint n = 2 * h + 1;
  double *mag = g_new (double, n);

  for (guint i = 0; i < n; i++)
    {
      double s = ((double) i - (double) h) * step_px * u->up;
      mag[i] = cabs (ef_upsampled_at (u, fr + s * er, fc + s * ec));
    }
  *mag_out = mag;
  return n;
}

/* Half-power width of a sampled cut (samples step apart, peak in the middle), by linear
 * interpolation of the crossing in dB on either side. Returns -1 when a side never drops below. */
static double
ef_cut_irw (const double *mag, guint n, double step, guint *left_cross, guint *right_cross)
{
  guint c = n / 2;
  double peak = mag[c], lim = peak * sqrt (0.5), xl = 0, xr = 0;
  guint i;
  gboolean found;

  if (!(peak > 0))
    return -1;

  found = FALSE;
  for (i = c + 1; i < n; i++)
    if (mag[i] <= lim)
      {
        double d1 = 20 * log10 (MAX (mag[i - 1], 1e-300) / peak) - EF_HALF_POWER_DB;
        double d2 = 20 * log10 (MAX (mag[i], 1e-300) / peak) - EF_HALF_POWER_DB;
        double t = d1 / (d1 - d2);
        xr = ((double) (i - 1 - c) + t) * step;
        found = TRUE;
        break;
      }
  if (!found)
    return -1;
  *right_cross = i;

  found = FALSE;
  for (i = c; i-- > 0;)
    if (mag[i] <= lim)
      {
        double d1 = 20 * log10 (MAX (mag[i + 1], 1e-300) / peak) - EF_HALF_POWER_DB;
        double d2 = 20 * log10 (MAX (mag[i], 1e-300) / peak) - EF_HALF_POWER_DB;
        double t = d1 / (d1 - d2);
        xl = ((double) (i + 1) - t - (double) c) * step;
        found = TRUE;
        break;
      }
  if (!found)
    return -1;
  *left_cross = i;
  return xr - xl;
}

/* Measures one cut. (ec, er) is a unit direction in pixel axes. avail_px bounds the cut length. */
static gboolean
ef_measure_cut (const EfUpsampled *u, double fr, double fc, double ec, double er, double spacing,
                double avail_px, EfCut *cut, GError **error)
{
  double step_px = 0.5 / u->up;   /* two samples per upsampled cell */
  double *mag = NULL, irw_px, half_px, peak, main_e = 0, side_e = 0, psl = -1;
  guint n, lc = 0, rc = 0, h, c, first, last, nl, nr;

  n = ef_sample_line (u, fr, fc, ec, er, avail_px, step_px, &mag);
  irw_px = ef_cut_irw (mag, n, step_px, &lc, &rc);
  if (irw_px <= 0)
    {
      g_free (mag);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED,
                   "The response never drops 3 dB below its peak within %.0f pixels; it is not a point target",
                   avail_px);
      return FALSE;
    }

  /* Keep +-EF_CUT_EXTENT_IRW widths, or what the window allows. */
  c = n / 2;
  half_px = MIN (EF_CUT_EXTENT_IRW * irw_px, avail_px);
  h = MIN (c, (guint) floor (half_px / step_px));
  first = c - h;
  last = c + h;
  peak = mag[c];

  /* Main lobe: from each -3 dB crossing outwards to the first local minimum. */
  nr = MIN (rc, last);
  while (nr < last && mag[nr + 1] < mag[nr])
    nr++;
  nl = MAX (lc, first);
  while (nl > first && mag[nl - 1] < mag[nl])
    nl--;

  for (guint i = first + 1; i < last; i++)
    {
      if (i > nl && i < nr)
        continue;
      if (mag[i] >= mag[i - 1] && mag[i] >= mag[i + 1] && mag[i] > psl)
        psl = mag[i];
    }
  if (psl < 0)
    {
      /* No sidelobe peak inside the cut: the highest level outside the main lobe bounds it. */
      for (guint i = first; i <= last; i++)
        if ((i <= nl || i >= nr) && mag[i] > psl)
          psl = mag[i];
    }

  /* Trapezoidal energies; the null samples belong to both sides' integrals. */
  for (guint i = first; i < last; i++)
    {
      double e = 0.5 * (mag[i] * mag[i] + mag[i + 1] * mag[i + 1]);
      if (i >= nl && i < nr)
        main_e += e;
      else
        side_e += e;
    }

  memset (cut, 0, sizeof *cut);
  cut->n = last - first + 1;
  cut->offset_m = g_new (double, cut->n);
  cut->level_db = g_new (double, cut->n);
  for (guint i = 0; i < cut->n; i++)
    {
      double a = mag[first + i] / peak;
      cut->offset_m[i] = ((double) (first + i) - (double) c) * step_px * spacing;
      cut->level_db[i] = a > 0 ? MAX (20 * log10 (a), EF_LEVEL_FLOOR_DB) : EF_LEVEL_FLOOR_DB;
    }
  cut->irw_m = irw_px * spacing;
  cut->pslr_db = psl > 0 ? MAX (20 * log10 (psl / peak), EF_LEVEL_FLOOR_DB) : EF_LEVEL_FLOOR_DB;
  cut->islr_db = side_e > 0 ? MAX (10 * log10 (side_e / main_e), EF_LEVEL_FLOOR_DB) : EF_LEVEL_FLOOR_DB;
  g_free (mag);
  return TRUE;
}

static guint
ef_fine_factor (guint n)
{
  return CLAMP (EF_FINE_MAX / n, 4, 16);
}

gboolean
ef_point_analyse (const EfImage *image, double col, double row, guint search_px, const double *dir,
                  EfPointResult *result, GError **error)
{
  const EfGrid *g;
  EfUpsampled up = { 0 };
  EfPointResult res = { 0 };
  double ec = 1, er = 0, fr, fc, best = 0, irw_r, irw_c, need;
  gint64 ic, ir, pc = -1, pr = -1;
  guint64 n_bad, n_box = 0;
  guint n;

  g_return_val_if_fail (image != NULL && image->data != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g = &image->grid;
  if (!isfinite (col) || !isfinite (row) || col < -0.5 || row < -0.5 || col >= g->width - 0.5
      || row >= g->height - 0.5)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The point (%.1f, %.1f) is outside the %u x %u image", col, row, g->width, g->height);
      return FALSE;
    }
  if (dir != NULL)
    {
      double dc = dir[0] * g->u[0] + dir[1] * g->u[1] + dir[2] * g->u[2];
      double dr = dir[0] * g->v[0] + dir[1] * g->v[1] + dir[2] * g->v[2];
      double len = hypot (dc, dr);
      double full = sqrt (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);

      /* A direction mostly out of the image plane has no meaningful projection. */
      if (!isfinite (len) || !isfinite (full) || full == 0 || len < 0.1 * full)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "The cut direction (%g, %g, %g) does not lie in the image plane", dir[0], dir[1], dir[2]);
          return FALSE;
        }
      ec = dc / len;
      er = dr / len;
    }

  /* The brightest finite pixel within the search box. */
  ic = (gint64) floor (col + 0.5);
  ir = (gint64) floor (row + 0.5);
  n_bad = 0;
  {
    gint64 s = MIN ((gint64) search_px, (gint64) EF_WINDOW_MAX);
    gint64 r_lo = MAX (0, ir - s), r_hi = MIN ((gint64) g->height - 1, ir + s);
    gint64 c_lo = MAX (0, ic - s), c_hi = MIN ((gint64) g->width - 1, ic + s);

    n_box = (guint64) (r_hi - r_lo + 1) * (guint64) (c_hi - c_lo + 1);
    for (gint64 r = r_lo; r <= r_hi; r++)
      for (gint64 c = c_lo; c <= c_hi; c++)
        {
          EfCf32 z = image->data[(gsize) r * g->width + (gsize) c];
          double p = (double) crealf (z) * crealf (z) + (double) cimagf (z) * cimagf (z);

          n_bad += !isfinite (p);
          if (isfinite (p) && p > best)
            {
              best = p;
              pc = c;
              pr = r;
            }
        }
  }
  if (!(best > 0) && n_bad > 0)
    {
      /* Not an empty image: one that overflowed (or was formed from samples that were not finite). */
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED,
                   "No point target near (%.1f, %.1f): %" G_GUINT64_FORMAT " pixels within %u of it are not finite "
                   "(NaN or infinite)%s", col, row, n_bad, search_px,
                   n_bad < n_box ? ", the others zero" : "");
      return FALSE;
    }
  if (!(best > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED,
                   "No point target near (%.1f, %.1f): the image is zero within %u pixels of it", col, row,
                   search_px);
      return FALSE;
    }

  /* First pass: a small window gives the peak and a rough width, which sizes the final window so
   * that the cuts reach EF_CUT_EXTENT_IRW widths. */
  n = EF_WINDOW_MIN;
  if (!ef_upsample_window (image, pc, pr, n, ef_fine_factor (n), &up, error))
    return FALSE;
  ef_upsampled_peak (&up, &fr, &fc);
  {
    double *mag;
    guint lc, rc, m;
    double avail = n / 2.0 - 4.0;

    m = ef_sample_line (&up, fr, fc, ec, er, avail, 0.5 / up.up, &mag);
    irw_r = ef_cut_irw (mag, m, 0.5 / up.up, &lc, &rc);
    g_free (mag);
    m = ef_sample_line (&up, fr, fc, -er, ec, avail, 0.5 / up.up, &mag);
    irw_c = ef_cut_irw (mag, m, 0.5 / up.up, &lc, &rc);
    g_free (mag);
  }
  need = (irw_r > 0 && irw_c > 0) ? 2.0 * (EF_CUT_EXTENT_IRW * MAX (irw_r, irw_c) + EF_WINDOW_GUARD + 1)
                                  : EF_WINDOW_MAX;
  if (need > n)
    {
      while (n < need && n < EF_WINDOW_MAX)
        n *= 2;
      ef_upsampled_clear (&up);
      if (!ef_upsample_window (image, pc, pr, n, ef_fine_factor (n), &up, error))
        return FALSE;
      ef_upsampled_peak (&up, &fr, &fc);
    }

  res.col = (double) up.c0 + fc / up.up;
  res.row = (double) up.r0 + fr / up.up;
  res.peak_db = 20 * log10 (cabs (ef_upsampled_at (&up, fr, fc)));
  ef_grid_pixel_position (g, res.col, res.row, res.position);

  {
    /* The sub-pixel peak may sit up to a pixel off the window centre. */
    double avail = n / 2.0 - EF_WINDOW_GUARD - 1.0;

    if (!ef_measure_cut (&up, fr, fc, ec, er, g->spacing, avail, &res.range, error)
        || !ef_measure_cut (&up, fr, fc, -er, ec, g->spacing, avail, &res.cross, error))
      {
        ef_point_result_clear (&res);
        ef_upsampled_clear (&up);
        return FALSE;
      }
  }
  ef_upsampled_clear (&up);
  *result = res;
  return TRUE;
}

void
ef_point_result_clear (EfPointResult *result)
{
  if (result == NULL)
    return;
  g_free (result->range.offset_m);
  g_free (result->range.level_db);
  g_free (result->cross.offset_m);
  g_free (result->cross.level_db);
  memset (result, 0, sizeof *result);
}

/*
 * Whole-image measures. All sums run in double.
 */

static inline double
ef_power32 (EfCf32 z)
{
  double re = crealf (z), im = cimagf (z);
  return re * re + im * im;
}

/* In nats (natural logarithm); 0 for an all-zero image. Lower is better focused. */
double
ef_image_entropy (const EfCf32 *data, gsize n)
{
  double total = 0, acc = 0;

  g_return_val_if_fail (data != NULL || n == 0, NAN);

  for (gsize i = 0; i < n; i++)
    total += ef_power32 (data[i]);
  if (!(total > 0))
    return 0.0;
  /* H = -sum p ln p with p = I / total, rearranged to one pass over I ln I. */
  for (gsize i = 0; i < n; i++)
    {
      double p = ef_power32 (data[i]);
      if (p > 0)
        acc += p * log (p);
    }
  return log (total) - acc / total;
}

static double
ef_ratio_db (double signal, double error)
{
  if (error == 0)
    return signal > 0 ? INFINITY : NAN;
  return 10.0 * log10 (signal / error);
}

double
ef_ser_db_f32 (const EfCf32 *test, const EfCf32 *ref, gsize n)
{
  double sig = 0, err = 0;

  g_return_val_if_fail ((test != NULL && ref != NULL) || n == 0, NAN);

  for (gsize i = 0; i < n; i++)
    {
      double dr = (double) crealf (test[i]) - crealf (ref[i]);
      double di = (double) cimagf (test[i]) - cimagf (ref[i]);
      sig += ef_power32 (ref[i]);
      err += dr * dr + di * di;
    }
  return ef_ratio_db (sig, err);
}

double
ef_ser_db_f32_f64 (const EfCf32 *test, const EfCf64 *ref, gsize n)
{
  double sig = 0, err = 0;

  g_return_val_if_fail ((test != NULL && ref != NULL) || n == 0, NAN);

  for (gsize i = 0; i < n; i++)
    {
      double rr = creal (ref[i]), ri = cimag (ref[i]);
      double dr = (double) crealf (test[i]) - rr;
      double di = (double) cimagf (test[i]) - ri;
      sig += rr * rr + ri * ri;
      err += dr * dr + di * di;
    }
  return ef_ratio_db (sig, err);
}

double
ef_psnr_db (const EfCf32 *test, const EfCf32 *ref, gsize n)
{
  double peak = 0, err = 0;

  g_return_val_if_fail ((test != NULL && ref != NULL) || n == 0, NAN);
  if (n == 0)
    return NAN;

  for (gsize i = 0; i < n; i++)
    {
      double a = sqrt (ef_power32 (ref[i]));
      double d = sqrt (ef_power32 (test[i])) - a;
      peak = MAX (peak, a);
      err += d * d;
    }
  return ef_ratio_db (peak * peak, err / (double) n);
}

/* SSIM's stabilising constants for a dynamic range L = 1 (Wang et al., 2004). */
#define EF_SSIM_C1 (0.01 * 0.01)
#define EF_SSIM_C2 (0.03 * 0.03)

static void
ef_ssim_map_row (const EfCf32 *z, guint width, double lo, double range_db, double *out)
{
  for (guint i = 0; i < width; i++)
    {
      double p = ef_power32 (z[i]);
      double db = p > 0 ? 10.0 * log10 (p) : -INFINITY;
      double t = (db - lo) / range_db;
      out[i] = isnan (t) ? 0.0 : CLAMP (t, 0.0, 1.0);
    }
}

double
ef_ssim (const EfCf32 *test, const EfCf32 *ref, guint width, guint height, double range_db)
{
  guint wx, wy;
  double max_p = 0, hi, lo, total = 0, inv_n;
  double *ring_x, *ring_y, *sx, *sy, *sxx, *syy, *sxy;
  guint64 count = 0;

  g_return_val_if_fail (test != NULL && ref != NULL, NAN);
  g_return_val_if_fail (width > 0 && height > 0, NAN);
  g_return_val_if_fail (range_db > 0 && isfinite (range_db), NAN);

  /* Both images are shown on the reference's scale, so a gain error counts as an error. */
  for (gsize i = 0; i < (gsize) width * height; i++)
    {
      double p = ef_power32 (ref[i]);
      if (isfinite (p))
        max_p = MAX (max_p, p);
    }
  hi = max_p > 0 ? 10.0 * log10 (max_p) : 0.0;
  lo = hi - range_db;

  /* Images smaller than a window are measured as one window. */
  wx = MIN (8u, width);
  wy = MIN (8u, height);
  inv_n = 1.0 / ((double) wx * wy);

  ring_x = g_new (double, (gsize) wy * width);
  ring_y = g_new (double, (gsize) wy * width);
  sx = g_new0 (double, width);
  sy = g_new0 (double, width);
  sxx = g_new0 (double, width);
  syy = g_new0 (double, width);
  sxy = g_new0 (double, width);

  /* Sliding 8 x 8 windows at every position: column sums over the last wy rows, kept in a ring. */
  for (guint r = 0; r < height; r++)
    {
      double *rx = ring_x + (gsize) (r % wy) * width;
      double *ry = ring_y + (gsize) (r % wy) * width;

      if (r >= wy)
        for (guint c = 0; c < width; c++)
          {
            sx[c] -= rx[c];
            sy[c] -= ry[c];
            sxx[c] -= rx[c] * rx[c];
            syy[c] -= ry[c] * ry[c];
            sxy[c] -= rx[c] * ry[c];
          }
      ef_ssim_map_row (test + (gsize) r * width, width, lo, range_db, rx);
      ef_ssim_map_row (ref + (gsize) r * width, width, lo, range_db, ry);
      for (guint c = 0; c < width; c++)
        {
          sx[c] += rx[c];
          sy[c] += ry[c];
          sxx[c] += rx[c] * rx[c];
          syy[c] += ry[c] * ry[c];
          sxy[c] += rx[c] * ry[c];
        }
      if (r + 1 < wy)
        continue;

      {
        double a = 0, b = 0, aa = 0, bb = 0, ab = 0;
        for (guint c = 0; c < wx; c++)
          {
            a += sx[c];
            b += sy[c];
            aa += sxx[c];
            bb += syy[c];
            ab += sxy[c];
          }
        for (guint c = 0;; c++)
          {
            double mx = a * inv_n, my = b * inv_n;
            double vx = MAX (0.0, aa * inv_n - mx * mx);
            double vy = MAX (0.0, bb * inv_n - my * my);
            double cxy = ab * inv_n - mx * my;
            total += ((2 * mx * my + EF_SSIM_C1) * (2 * cxy + EF_SSIM_C2))
                     / ((mx * mx + my * my + EF_SSIM_C1) * (vx + vy + EF_SSIM_C2));
            count++;
            if (c + wx >= width)
              break;
            a += sx[c + wx] - sx[c];
            b += sy[c + wx] - sy[c];
            aa += sxx[c + wx] - sxx[c];
            bb += syy[c + wx] - syy[c];
            ab += sxy[c + wx] - sxy[c];
          }
      }
    }

  g_free (ring_x);
  g_free (ring_y);
  g_free (sx);
  g_free (sy);
  g_free (sxx);
  g_free (syy);
  g_free (sxy);
  return total / (double) count;
}

double
ef_magnitude_correlation (const EfCf32 *a, const EfCf32 *b, gsize n)
{
  double ma = 0, mb = 0, saa = 0, sbb = 0, sab = 0;

  g_return_val_if_fail ((a != NULL && b != NULL) || n == 0, NAN);
  if (n == 0)
    return 0.0;

  for (gsize i = 0; i < n; i++)
    {
      ma += sqrt (ef_power32 (a[i]));
      mb += sqrt (ef_power32 (b[i]));
    }
  ma /= (double) n;
  mb /= (double) n;
  for (gsize i = 0; i < n; i++)
    {
      double da = sqrt (ef_power32 (a[i])) - ma;
      double db = sqrt (ef_power32 (b[i])) - mb;
      saa += da * da;
      sbb += db * db;
      sab += da * db;
    }
  /* A constant image carries no pattern to correlate. */
  if (saa == 0 || sbb == 0)
    return 0.0;
  return sab / sqrt (saa * sbb);
}
