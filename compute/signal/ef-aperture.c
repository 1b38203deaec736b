/* ef-aperture.c: cross-range (aperture) weighting: each pulse's weight from its place in the aperture. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-rangecomp"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-aperture.h"

/* A ground-plane antenna position nearer the SRP's vertical than this (m) has no azimuth. */
#define MIN_GROUND_RANGE_M 1e-6
/* An aperture narrower than this (rad) has nothing to weight. */
#define MIN_SPAN_RAD 1e-12

static void
ground_position (const EfPulse *pu, double out[2])
{
  out[0] = 0.5 * (pu->tx[0] + pu->rcv[0]);
  out[1] = 0.5 * (pu->tx[1] + pu->rcv[1]);
}

/* The look angle of pu relative to dir, in (-pi, pi]; NAN when the antenna is over the SRP. */
static double
look_angle (const double dir[2], const EfPulse *pu)
{
  double g[2];

  ground_position (pu, g);
  if (hypot (g[0], g[1]) < MIN_GROUND_RANGE_M)
    return NAN;
  return atan2 (dir[0] * g[1] - dir[1] * g[0], dir[0] * g[0] + dir[1] * g[1]);
}

void
ef_aperture_init (EfAperture *ap, const EfPulse *pulses, guint64 first, guint64 n_used, guint64 stride)
{
  double g[2], norm, lo = INFINITY, hi = -INFINITY;

  g_return_if_fail (ap != NULL);
  memset (ap, 0, sizeof *ap);
  if (pulses == NULL || n_used < 2)
    return;
  stride = MAX (stride, 1);
  /* Angles are taken about the middle pulse, so that an aperture that crosses the -x axis does not wrap. */
  ground_position (&pulses[first + (n_used / 2) * stride], g);
  norm = hypot (g[0], g[1]);
  if (!(norm >= MIN_GROUND_RANGE_M))
    return;
  ap->dir[0] = g[0] / norm;
  ap->dir[1] = g[1] / norm;
  for (guint64 i = 0; i < n_used; i++)
    {
      double a = look_angle (ap->dir, &pulses[first + i * stride]);

      if (isnan (a))
        return;
      lo = MIN (lo, a);
      hi = MAX (hi, a);
    }
  if (!(hi - lo > MIN_SPAN_RAD))
    return;
  ap->lo = lo;
  ap->hi = hi;
  ap->n_pulses = n_used;
}

const char *
ef_aperture_why_not (const EfAperture *ap)
{
  g_return_val_if_fail (ap != NULL, NULL);
  if (ap->n_pulses >= 2)
    return NULL;
  return "the pulses span no look angle about the scene centre, so the aperture was not weighted";
}

void
ef_taylor_coefficients (guint nbar, double sll_db, double fm[64])
{
  double eta = pow (10.0, -sll_db / 20.0);
  double a = acosh (eta) / G_PI;
  double sigma2;

  memset (fm, 0, 64 * sizeof (double));
  nbar = MIN (nbar, 63u);
  sigma2 = (double) nbar * nbar / (a * a + (nbar - 0.5) * (nbar - 0.5));
  for (guint m = 1; m < nbar; m++)
    {
      double num = 1, den = 1;

      for (guint i = 1; i < nbar; i++)
        {
          num *= 1.0 - (double) m * m / (sigma2 * (a * a + (i - 0.5) * (i - 0.5)));
          if (i != m)
            den *= 1.0 - (double) m * m / ((double) i * i);
        }
      fm[m] = (m % 2 ? 1.0 : -1.0) * num / (2.0 * den);
    }
}

/* The Taylor window from its coefficients at x in [0, 1]; its mean over [0, 1] is 1. */
static double
taylor_value (const double fm[64], guint nbar, double x)
{
  double w = 1.0;

  for (guint m = 1; m < MIN (nbar, 63u); m++)
    w += 2.0 * fm[m] * cos (2.0 * G_PI * m * (x - 0.5));
  return w;
}

/* Hann and Hamming divided by their means over [0, 1] (1/2 and 0.54). */
static double
cosine_value (EfWindow window, double x)
{
  switch (window)
    {
    case EF_WINDOW_HANN:
      return (0.5 - 0.5 * cos (2.0 * G_PI * x)) / 0.5;
    case EF_WINDOW_HAMMING:
      return (0.54 - 0.46 * cos (2.0 * G_PI * x)) / 0.54;
    case EF_WINDOW_RECT:
    case EF_WINDOW_TAYLOR:
    default:
      return 1.0;
    }
}

/* ef_window_fill's defaults for a Taylor window given no shape. */
static void
taylor_shape (guint *nbar, double *sll_db)
{
  if (*nbar == 0)
    *nbar = 4;
  if (!(*sll_db < 0))
    *sll_db = -35.0;
}

double
ef_window_value (EfWindow window, guint nbar, double sll_db, double x)
{
  double fm[64];

  x = CLAMP (x, 0.0, 1.0);
  if (window != EF_WINDOW_TAYLOR)
    return cosine_value (window, x);
  taylor_shape (&nbar, &sll_db);
  ef_taylor_coefficients (nbar, sll_db, fm);
  return taylor_value (fm, nbar, x);
}

void
ef_az_weight_init (EfAzWeight *w, EfWindow window, guint nbar, double sll_db, const EfAperture *ap)
{
  g_return_if_fail (w != NULL && ap != NULL);
  memset (w, 0, sizeof *w);
  w->window = window;
  w->ap = *ap;
  if (window == EF_WINDOW_TAYLOR)
    {
      taylor_shape (&nbar, &sll_db);
      w->nbar = MIN (nbar, 63u);
      ef_taylor_coefficients (w->nbar, sll_db, w->fm);
    }
}

gboolean
ef_az_weight_active (const EfAzWeight *w)
{
  g_return_val_if_fail (w != NULL, FALSE);
  return w->window != EF_WINDOW_RECT && w->ap.n_pulses >= 2;
}

double
ef_az_weight_at (const EfAzWeight *w, const EfPulse *pu)
{
  double a, u, n, x;

  if (!ef_az_weight_active (w))
    return 1.0;
  a = look_angle (w->ap.dir, pu);
  if (isnan (a))
    return 1.0;
  n = (double) w->ap.n_pulses;
  u = CLAMP ((a - w->ap.lo) / (w->ap.hi - w->ap.lo), 0.0, 1.0);
  x = (u * (n - 1.0) + 0.5) / n;
  if (w->window == EF_WINDOW_TAYLOR)
    return taylor_value (w->fm, w->nbar, x);
  return cosine_value (w->window, x);
}
