/* ef-sharpness.c: backprojection autofocus by maximum sharpness (Ash 2012), by exact coordinate ascent. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-focus-private.h"

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

gboolean
ef_focus_sharpness_run (EfFocusCtx *c, const EfFocusParams *p, double *phase, EfFocusResult *r, GError **error)
{
  gsize npix = ef_grid_n_pixels (&c->grid);
  guint64 n = c->n, len, n_blocks, need;
  guint max_iter = p->max_iter > 0 ? p->max_iter : 20;
  double tol = p->tol_rad > 0 ? p->tol_rad : 0.005;
  guint64 bound = p->memory_bytes > 0 ? p->memory_bytes : (guint64) 512 << 20;
  g_autofree EfCf32 *blocks = NULL;
  g_autofree EfCf64 *img = NULL;
  g_autofree double *theta = NULL, *dtheta = NULL, *kappa_block = NULL;

  /* Memory: n_blocks * npix complex floats for the blocks' images, and the sum in complex double. The
   * blocks are made as short as the bound allows (a pulse each at best). */
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
  if (n_blocks > G_MAXSIZE / sizeof (EfCf32) / npix
      || (blocks = g_try_new (EfCf32, (gsize) n_blocks * npix)) == NULL
      || (img = g_try_new0 (EfCf64, npix)) == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Sharpness autofocus: no memory for %" G_GUINT64_FORMAT " block images of %zu pixels", n_blocks,
                   npix);
      return FALSE;
    }
  r->block_pulses = (guint) len;
  r->memory_bytes = (guint64) n_blocks * npix * sizeof (EfCf32) + npix * sizeof (EfCf64);
  theta = g_new0 (double, n_blocks);
  dtheta = g_new (double, n_blocks);
  kappa_block = g_new0 (double, n_blocks);
  for (guint64 i = 0; i < n; i++)
    kappa_block[i / len] += c->kappa[i] / (double) MIN (len, n - (i / len) * len);

  for (guint64 k = 0; k < n_blocks; k++)
    {
      guint64 p0 = c->first + k * len, cnt = MIN (len, c->first + n - p0);
      EfCf32 *b = blocks + (gsize) k * npix;

      if (!ef_focus_form (c, p0, cnt, phase, b, error))
        return FALSE;
      for (gsize i = 0; i < npix; i++)
        img[i] += b[i];
    }

  for (guint it = 0; it < max_iter; it++)
    {
      double ss = 0;

      for (guint64 k = 0; k < n_blocks; k++)
        {
          const EfCf32 *b = blocks + (gsize) k * npix;
          EfCf64 rot = cexp (I * theta[k]), alpha = 0, beta = 0, nrot;
          double t, dt;

          for (gsize i = 0; i < npix; i++)
            {
              EfCf64 bi = b[i], ri = img[i] - rot * bi, z = bi * conj (ri);
              double a = creal (bi) * creal (bi) + cimag (bi) * cimag (bi) + creal (ri) * creal (ri)
                         + cimag (ri) * cimag (ri);

              alpha += a * z;
              beta += z * z;
            }
          t = best_phase (alpha, beta);
          dt = remainder (t - theta[k], 2 * G_PI);
          dtheta[k] = dt;
          nrot = cexp (I * t) - rot;
          for (gsize i = 0; i < npix; i++)
            img[i] += nrot * (EfCf64) b[i];
          theta[k] = t;
        }
      /* The change that matters: a linear phase across the aperture only moves the image, and the
       * sharpness of a region barely sees it move, so the sweeps may drift along it for ever. */
      ef_focus_detrend (kappa_block, dtheta, n_blocks);
      for (guint64 k = 0; k < n_blocks; k++)
        ss += dtheta[k] * dtheta[k] * (double) MIN (len, n - k * len);
      r->iterations = it + 1;
      r->last_change_rad = sqrt (ss / (double) n);
      g_debug ("sharpness sweep %u: %" G_GUINT64_FORMAT " blocks of %" G_GUINT64_FORMAT " pulses, RMS change %.4g rad",
               it + 1, n_blocks, len, r->last_change_rad);
      if (r->last_change_rad < tol)
        break;
    }

  /* The image is sum exp(j theta_k) b_k: the data's correction exp(-j phase) adds -theta_k. Block phases
   * are unwrapped along the aperture so that the correction is a smooth function where the error is. */
  for (guint64 k = 1; k < n_blocks; k++)
    theta[k] = theta[k - 1] + remainder (theta[k] - theta[k - 1], 2 * G_PI);
  for (guint64 i = 0; i < n; i++)
    phase[c->first + i] -= theta[i / len];
  return TRUE;
}
