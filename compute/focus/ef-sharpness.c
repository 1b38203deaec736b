/* ef-sharpness.c: backprojection autofocus by maximum sharpness (Ash 2012), by exact coordinate ascent. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-focus-private.h"

#if HAVE_OPENMP
#include <omp.h>
#endif

/* Below this many pixels a sweep's sums are not worth waking the threads for. */
#define SWEEP_THREAD_MIN_PIXELS 16384

/*
 * I = r + exp(j t) b, with b one block's image and r the rest. Per pixel, |I|^2 = A + 2 Re(exp(j t) z)
 * with A = |b|^2 + |r|^2 and z = b conj(r), so
 *   sum |I|^4 = const + 4 Re(alpha exp(j t)) + 2 Re(beta exp(2 j t)),  alpha = sum A z, beta = sum z^2,
 * a trigonometric polynomial of degree two in t. Its first harmonic alone peaks at t = -arg(alpha) (Ash's
 * closed form); the second harmonic moves the peak a little, so the peak is taken as the best of that
 * and a grid of starts, each refined by Newton's method on the derivative.
 */
static double
poly (EfCf64 alpha, EfCf64 beta, double t)
{
  return 4 * creal (alpha * cexp (I * t)) + 2 * creal (beta * cexp (2 * I * t));
}

static double
best_phase (EfCf64 alpha, EfCf64 beta)
{
  double best_t = -carg (alpha), best_f = poly (alpha, beta, best_t);

  for (int k = 0; k <= 16; k++)
    {
      double t = k < 16 ? 2 * G_PI * k / 16.0 : -carg (alpha), f;

      for (int it = 0; it < 12; it++)
        {
          EfCf64 e1 = cexp (I * t), e2 = e1 * e1;
          double d1 = -4 * cimag (alpha * e1) - 4 * cimag (beta * e2);
          double d2 = -4 * creal (alpha * e1) - 8 * creal (beta * e2);

          if (!(d2 < 0))
            break;
          t -= d1 / d2;
          if (fabs (d1 / d2) < 1e-12)
            break;
        }
      f = poly (alpha, beta, t);
      if (f > best_f)
        {
          best_f = f;
          best_t = t;
        }
    }
  return remainder (best_t, 2 * G_PI);
}

void
ef_focus_sweep_step (const EfCf32 *prev, EfCf64 prev_change, const EfCf32 *b, EfCf64 rot, EfCf64 *img, gsize npix,
                     guint n_threads, EfCf64 *alpha, EfCf64 *beta)
{
  double ar = 0, ai = 0, br = 0, bi = 0;
  double pcr = creal (prev_change), pci = cimag (prev_change), rr = creal (rot), ri = cimag (rot);

  if (n_threads == 0)
    {
#if HAVE_OPENMP
      n_threads = (guint) omp_get_max_threads ();
#else
      n_threads = 1;
#endif
    }
  (void) n_threads;
  /* Each pixel on its own: the previous block's new phase goes into the sum first, then the pixel's
   * share of this block's alpha and beta is taken from the updated sum. One pass over the sum per block. */
#if HAVE_OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) reduction(+:ar,ai,br,bi) \
  if (npix >= SWEEP_THREAD_MIN_PIXELS && n_threads > 1)
#endif
  for (gsize i = 0; i < npix; i++)
    {
      double sr = creal (img[i]), si = cimag (img[i]);
      double bre = crealf (b[i]), bim = cimagf (b[i]);
      double rre, rim, zr, zi, a;

      if (prev != NULL)
        {
          double pr = crealf (prev[i]), pi = cimagf (prev[i]);

          sr += pcr * pr - pci * pi;
          si += pcr * pi + pci * pr;
          img[i] = sr + I * si;
        }
      /* r = img - rot b; z = b conj (r); A = |b|^2 + |r|^2. */
      rre = sr - (rr * bre - ri * bim);
      rim = si - (rr * bim + ri * bre);
      zr = bre * rre + bim * rim;
      zi = bim * rre - bre * rim;
      a = bre * bre + bim * bim + rre * rre + rim * rim;
      ar += a * zr;
      ai += a * zi;
      br += zr * zr - zi * zi;
      bi += 2 * zr * zi;
    }
  *alpha = ar + I * ai;
  *beta = br + I * bi;
}

void
ef_focus_sweep_add (const EfCf32 *b, EfCf64 change, EfCf64 *img, gsize npix, guint n_threads)
{
  if (n_threads == 0)
    {
#if HAVE_OPENMP
      n_threads = (guint) omp_get_max_threads ();
#else
      n_threads = 1;
#endif
    }
  (void) n_threads;
#if HAVE_OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) if (npix >= SWEEP_THREAD_MIN_PIXELS && n_threads > 1)
#endif
  for (gsize i = 0; i < npix; i++)
    img[i] += change * (EfCf64) b[i];
}

/* Where the sweeps run: the host's arrays, or an accelerator's sweeper (the blocks' images and their sum
 * in its memory), the same calls either way. */
typedef struct {
  const EfFocusSweepProvider *dev;  /* NULL: the host */
  EfFocusSweeper *sw;               /* owned, with dev */
  EfCf32         *blocks;           /* owned: the host's n_blocks * npix (one image's room with dev) */
  EfCf64         *img;              /* owned: the host's sum (NULL with dev) */
  gsize           npix;
  guint           n_threads;
} Sweeps;

static void
sweeps_clear (Sweeps *w)
{
  if (w->sw != NULL)
    w->dev->free (w->sw);
  g_free (w->blocks);
  g_free (w->img);
  memset (w, 0, sizeof *w);
}

/* The sweeps on the accelerator that formed the images when it offers them (and p allows), else on the
 * host; FALSE with error when neither has the memory. */
static gboolean
sweeps_init (Sweeps *w, EfFocusCtx *c, const EfFocusParams *p, guint64 n_blocks, gsize npix, GError **error)
{
  const EfRunInfo *run = ef_backend_get_run_info (c->be);
  const EfFocusSweepProvider *dev = p->host_sums ? NULL : ef_focus_sweep_get (run->backend);

  memset (w, 0, sizeof *w);
  w->npix = npix;
  w->n_threads = p->n_threads;
  if (dev != NULL)
    {
      g_autoptr (GError) local = NULL;

      w->sw = dev->create (c->be, n_blocks, npix, &local);
      if (w->sw != NULL)
        {
          w->dev = dev;
          w->blocks = g_try_new (EfCf32, npix);
          if (w->blocks != NULL)
            return TRUE;
          dev->free (w->sw);
          w->sw = NULL;
          w->dev = NULL;
        }
      else
        g_debug ("sharpness sweeps on the host: %s", local->message);
    }
  if (n_blocks > G_MAXSIZE / sizeof (EfCf32) / npix
      || (w->blocks = g_try_new (EfCf32, (gsize) n_blocks * npix)) == NULL
      || (w->img = g_try_new0 (EfCf64, npix)) == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Sharpness autofocus: no memory for %" G_GUINT64_FORMAT " block images of %zu pixels", n_blocks,
                   npix);
      sweeps_clear (w);
      return FALSE;
    }
  return TRUE;
}

/* Where block k's image is to be formed. */
static EfCf32 *
sweeps_block (Sweeps *w, guint64 k)
{
  return w->dev != NULL ? w->blocks : w->blocks + (gsize) k * w->npix;
}

/* Block k's image, formed where sweeps_block said, goes into the sum. */
static gboolean
sweeps_set (Sweeps *w, guint64 k, GError **error)
{
  if (w->dev != NULL)
    return w->dev->set_block (w->sw, k, w->blocks, error);
  ef_focus_sweep_add (sweeps_block (w, k), 1.0, w->img, w->npix, w->n_threads);
  return TRUE;
}

static gboolean
sweeps_step (Sweeps *w, gint64 prev, EfCf64 prev_change, guint64 k, EfCf64 rot, EfCf64 *alpha, EfCf64 *beta,
             GError **error)
{
  if (w->dev != NULL)
    return w->dev->step (w->sw, prev, prev_change, k, rot, alpha, beta, error);
  ef_focus_sweep_step (prev >= 0 ? sweeps_block (w, (guint64) prev) : NULL, prev_change, sweeps_block (w, k), rot,
                       w->img, w->npix, w->n_threads, alpha, beta);
  return TRUE;
}

static gboolean
sweeps_add (Sweeps *w, guint64 k, EfCf64 change, GError **error)
{
  if (w->dev != NULL)
    return w->dev->add (w->sw, k, change, error);
  ef_focus_sweep_add (sweeps_block (w, k), change, w->img, w->npix, w->n_threads);
  return TRUE;
}

gboolean
ef_focus_sharpness_run (EfFocusCtx *c, const EfFocusParams *p, double *phase, EfFocusResult *r, GError **error)
{
  gsize npix = ef_grid_n_pixels (&c->grid);
  guint64 n = c->n, len, n_blocks, need;
  guint max_iter = p->max_iter > 0 ? p->max_iter : 20;
  double tol = p->tol_rad > 0 ? p->tol_rad : 0.005;
  guint64 bound = p->memory_bytes > 0 ? p->memory_bytes : (guint64) 512 << 20;
  g_autofree double *theta = NULL, *dtheta = NULL, *kappa_block = NULL;
  Sweeps w;
  gboolean ok = FALSE;

  /* Memory: n_blocks * npix complex floats for the blocks' images, and the sum in complex double (on
   * the device that formed them when it takes the sweeps). The blocks are made as short as the bound
   * allows (a pulse each at best). */
  len = MAX (p->block_pulses, 1u);
  if (npix > G_MAXUINT64 / sizeof (EfCf32) / n)
    len = n;
  else
    {
      need = (n * npix * sizeof (EfCf32) + bound - 1) / bound;
      len = MAX (len, need);
    }
  len = MIN (len, n);
  n_blocks = (n + len - 1) / len;
  if (!sweeps_init (&w, c, p, n_blocks, npix, error))
    return FALSE;
  r->block_pulses = (guint) len;
  r->memory_bytes = (guint64) n_blocks * npix * sizeof (EfCf32) + npix * sizeof (EfCf64);
  g_free (r->sums_backend);
  r->sums_backend = g_strdup (w.dev != NULL ? w.dev->backend : "cpu");
  theta = g_new0 (double, n_blocks);
  dtheta = g_new (double, n_blocks);
  kappa_block = g_new0 (double, n_blocks);
  for (guint64 i = 0; i < n; i++)
    kappa_block[i / len] += c->kappa[i] / (double) MIN (len, n - (i / len) * len);

  for (guint64 k = 0; k < n_blocks; k++)
    {
      guint64 p0 = c->first + k * len, cnt = MIN (len, c->first + n - p0);

      if (!ef_focus_form (c, p0, cnt, phase, sweeps_block (&w, k), error) || !sweeps_set (&w, k, error))
        goto out;
    }

  for (guint it = 0; it < max_iter; it++)
    {
      double ss = 0;
      gint64 prev = -1;
      EfCf64 prev_change = 0;

      for (guint64 k = 0; k < n_blocks; k++)
        {
          EfCf64 rot = cexp (I * theta[k]), alpha, beta;
          double t, dt;

          /* The last block's change is added to the sum in the same pass that takes this block's sums. */
          if (!sweeps_step (&w, prev, prev_change, k, rot, &alpha, &beta, error))
            goto out;
          t = best_phase (alpha, beta);
          dt = remainder (t - theta[k], 2 * G_PI);
          dtheta[k] = dt;
          prev = (gint64) k;
          prev_change = cexp (I * t) - rot;
          theta[k] = t;
        }
      if (!sweeps_add (&w, (guint64) prev, prev_change, error))
        goto out;
      /* The change that matters: a linear phase across the aperture only moves the image, and the
       * sharpness of a region barely sees it move, so the sweeps may drift along it for ever. */
      ef_focus_detrend (kappa_block, dtheta, n_blocks);
      for (guint64 k = 0; k < n_blocks; k++)
        ss += dtheta[k] * dtheta[k] * (double) MIN (len, n - k * len);
      r->iterations = it + 1;
      r->last_change_rad = sqrt (ss / (double) n);
      g_debug ("sharpness sweep %u on %s: %" G_GUINT64_FORMAT " blocks of %" G_GUINT64_FORMAT
               " pulses, RMS change %.4g rad", it + 1, r->sums_backend, n_blocks, len, r->last_change_rad);
      if (r->last_change_rad < tol)
        break;
    }

  /* The image is sum exp(j theta_k) b_k: the data's correction exp(-j phase) adds -theta_k. Block phases
   * are unwrapped along the aperture so that the correction is a smooth function where the error is. */
  for (guint64 k = 1; k < n_blocks; k++)
    theta[k] = theta[k - 1] + remainder (theta[k] - theta[k - 1], 2 * G_PI);
  for (guint64 i = 0; i < n; i++)
    phase[c->first + i] -= theta[i / len];
  ok = TRUE;

out:
  sweeps_clear (&w);
  return ok;
}
