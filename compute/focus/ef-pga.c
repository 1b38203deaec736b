/* ef-pga.c: the phase gradient autofocus (Wahl et al. 1994), read per pulse from the range lines' spectra. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-focus-private.h"
#include "ef-metrics.h"

#if HAVE_OPENMP
#include <omp.h>
#endif

/* The window never shrinks below this many cross-range resolution cells: each cell of the window is one
 * degree of freedom of the phase error that the lines' spectra can tell, and a window of a few cells
 * would see only the error's lowest orders. */
#define PGA_MIN_WINDOW_CELLS 12.0
/* The share of the lines' summed intensity that the window holds at least. */
#define PGA_WINDOW_ENERGY 0.99
/* Range lines whose brightest pixel is this far below the brightest line's take no part: a line of
 * clutter alone adds only noise to the gradient. */
#define PGA_LINE_THRESHOLD 0.01

typedef struct {
  double kappa;
  guint  index;
} KappaIndex;

static int
cmp_kappa (gconstpointer a, gconstpointer b)
{
  double ka = ((const KappaIndex *) a)->kappa, kb = ((const KappaIndex *) b)->kappa;

  return (ka > kb) - (ka < kb);
}

/* The width about the centre where the lines' summed intensity stays within 10 dB of its peak. */
static guint
width_10db (const double *profile, guint w)
{
  guint c = w / 2, lo = c, hi = c;
  double thr = profile[c] * 0.1;

  while (lo > 0 && profile[lo - 1] >= thr)
    lo--;
  while (hi + 1 < w && profile[hi + 1] >= thr)
    hi++;
  return hi - lo + 1;
}

/* The narrowest width about the centre that holds the share `frac` of the lines' summed intensity. */
static guint
width_energy (const double *profile, guint w, double frac)
{
  guint c = w / 2, half = 0;
  double total = 0, acc = profile[c];

  for (guint k = 0; k < w; k++)
    total += profile[k];
  while (acc < frac * total && half < w / 2)
    {
      half++;
      acc += profile[c - half];
      if (c + half < w)
        acc += profile[c + half];
    }
  return MIN (2 * half + 1, w);
}

gboolean
ef_focus_pga (EfFocusCtx *c, const EfFocusParams *p, double *phase, EfFocusResult *r, GError **error)
{
  guint w = c->grid.width, h = c->grid.height;
  guint64 n = c->n;
  gsize npix = (gsize) w * h;
  double s = c->grid.spacing;
  guint win = w, win_min;
  guint max_iter = p->max_iter > 0 ? p->max_iter : 20;
  double tol = p->tol_rad > 0 ? p->tol_rad : 0.005;
  g_autofree EfCf32 *img = NULL, *trial = NULL, *shifted = NULL, *table = NULL;
  double entropy;
  g_autofree EfCf64 *g = NULL, *dsum = NULL;
  g_autofree double *profile = NULL, *e = NULL, *line_peak = NULL;
  g_autofree gboolean *use = NULL;
  g_autofree KappaIndex *order = NULL;
  guint n_threads = 1;

  if (n > G_MAXSIZE / sizeof (EfCf32) / w)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "PGA: too many pulses");
      return FALSE;
    }
  img = g_try_new (EfCf32, npix);
  shifted = g_try_new (EfCf32, npix);
  trial = g_try_new (EfCf32, npix);
  table = g_try_new (EfCf32, (gsize) n * w);
  if (img == NULL || shifted == NULL || trial == NULL || table == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "PGA: out of memory");
      return FALSE;
    }
  g = g_new (EfCf64, n);
  dsum = g_new (EfCf64, n);
  profile = g_new (double, w);
  line_peak = g_new (double, h);
  use = g_new (gboolean, h);
  e = g_new (double, n);
  order = g_new (KappaIndex, n);
  for (guint64 i = 0; i < n; i++)
    order[i] = (KappaIndex) { c->kappa[i], (guint) i };
  qsort (order, n, sizeof *order, cmp_kappa);
  win_min = (guint) MIN ((double) w, ceil (PGA_MIN_WINDOW_CELLS * c->res_cross / s));
#if HAVE_OPENMP
  n_threads = p->n_threads > 0 ? p->n_threads : (guint) omp_get_max_threads ();
#endif
  (void) n_threads;

  /* An iteration's correction is kept only when the image it forms has a lower entropy than the last
   * one kept. Over distributed clutter an estimate can be noise, and iterating would pile the noise up;
   * a rejected step halves the window (less clutter in it) and tries again, down to the least window. */
  if (!ef_focus_form (c, c->first, n, phase, img, error))
    return FALSE;
  entropy = ef_image_entropy (img, npix);
  for (guint it = 0; it < max_iter; it++)
    {
      guint lo, w10, n_used = 0;
      double ss = 0, trial_entropy, top = 0;

      /* Centre each range line on its brightest pixel (circularly), and sum the lines' intensities. */
      memset (profile, 0, w * sizeof (double));
      for (guint row = 0; row < h; row++)
        {
          const EfCf32 *line = img + (gsize) row * w;
          EfCf32 *out = shifted + (gsize) row * w;
          guint peak = 0;
          float best = -1;

          for (guint k = 0; k < w; k++)
            {
              float a = crealf (line[k]) * crealf (line[k]) + cimagf (line[k]) * cimagf (line[k]);
              if (a > best)
                {
                  best = a;
                  peak = k;
                }
            }
          for (guint k = 0; k < w; k++)
            out[k] = line[(k + peak + w - w / 2) % w];
          line_peak[row] = best;
          top = MAX (top, best);
        }
      /* The lines that hold a prominent scatterer: within PGA_LINE_THRESHOLD of the brightest line, and
       * the 8 brightest lines whatever their level. */
      for (guint row = 0; row < h; row++)
        {
          use[row] = line_peak[row] >= PGA_LINE_THRESHOLD * top;
          n_used += use[row];
        }
      while (n_used < MIN (8u, h))
        {
          guint best_row = 0;
          double best_peak = -1;

          for (guint row = 0; row < h; row++)
            if (!use[row] && line_peak[row] > best_peak)
              {
                best_peak = line_peak[row];
                best_row = row;
              }
          use[best_row] = TRUE;
          n_used++;
        }
      for (guint row = 0; row < h; row++)
        if (use[row])
          for (guint k = 0; k < w; k++)
            {
              const EfCf32 *out = shifted + (gsize) row * w;
              profile[k] += crealf (out[k]) * crealf (out[k]) + cimagf (out[k]) * cimagf (out[k]);
            }
      /* The window: twice the 10 dB width of the blur (Wahl et al.), widened to hold nearly all of the
       * blur's energy (an error of high order spreads it far below 10 dB, where the narrow window would
       * never see it), never wider than the last one. */
      w10 = MAX (2 * width_10db (profile, w), width_energy (profile, w, PGA_WINDOW_ENERGY));
      win = CLAMP (w10, win_min, win);
      lo = w / 2 - win / 2;

      /* Each pulse's spectral sample of a windowed line: G(p) = sum_m x[m] exp(+j 2 pi kappa_p m s),
       * m counted from the centre, the line's Fourier transform at exactly the pulse's frequency. */
#if HAVE_OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static)
#endif
      for (guint64 i = 0; i < n; i++)
        for (guint m = 0; m < win; m++)
          {
            double arg = 2 * G_PI * c->kappa[i] * ((double) (lo + m) - (double) (w / 2)) * s;
            table[i * win + m] = (float) cos (arg) + I * (float) sin (arg);
          }
      memset (dsum, 0, n * sizeof (EfCf64));
      for (guint row = 0; row < h; row++)
        {
          const EfCf32 *x = shifted + (gsize) row * w + lo;

          if (!use[row])
            continue;

#if HAVE_OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) if ((guint64) n * win >= 65536)
#endif
          for (guint64 i = 0; i < n; i++)
            {
              const EfCf32 *t = table + i * win;
              EfCf32 acc = 0;

              for (guint m = 0; m < win; m++)
                acc += x[m] * t[m];
              g[i] = acc;
            }
          /* The phase-difference estimator: sum over lines of conj(G(p)) G(p + 1), p in frequency order. */
          for (guint64 j = 0; j + 1 < n; j++)
            dsum[j] += conj (g[order[j].index]) * g[order[j + 1].index];
        }
      e[order[0].index] = 0;
      for (guint64 j = 0; j + 1 < n; j++)
        e[order[j + 1].index] = e[order[j].index] + carg (dsum[j]);
      ef_focus_detrend (c->kappa, e, n);
      for (guint64 i = 0; i < n; i++)
        {
          phase[c->first + i] += e[i];
          ss += e[i] * e[i];
        }
      r->iterations = it + 1;
      if (!ef_focus_form (c, c->first, n, phase, trial, error))
        return FALSE;
      trial_entropy = ef_image_entropy (trial, npix);
      g_debug ("PGA iteration %u: %u of %u lines, window %u of %u px, RMS change %.4g rad, entropy %.5f -> %.5f", it + 1, n_used, h, win, w,
               sqrt (ss / (double) n), entropy, trial_entropy);
      if (!(trial_entropy < entropy))
        {
          for (guint64 i = 0; i < n; i++)
            phase[c->first + i] -= e[i];
          if (win <= win_min)
            break;
          win = MAX (win / 2, win_min);
          continue;
        }
      memcpy (img, trial, npix * sizeof (EfCf32));
      entropy = trial_entropy;
      r->last_change_rad = sqrt (ss / (double) n);
      if (r->last_change_rad < tol)
        break;
    }
  return TRUE;
}
