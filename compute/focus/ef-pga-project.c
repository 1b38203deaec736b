/* ef-pga-project.c: PGA's per-pulse samples: scatterers' patches of a backprojected image projected on each pulse. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-focus-private.h"

/*
 * Pulse i's signal from a patch, as a backprojected image holds it: the patch's pixels x weighed by the
 * conjugate of what pulse i alone puts at x for a scatterer at the patch's centre X,
 *   h_i(x) = sum_k exp(+j 4 pi f_k (dR_i(x) - dR_i(X)) / c),
 * the band summed in closed form (a Dirichlet kernel: K samples f_k = fmid + (k - (K - 1) / 2) df). A
 * pulse's contribution to an image is a band along its own line of equal range, tilted from the rows by
 * its look angle: a single row holds only part of it, and a row's spectrum mixes the pulses whose bands
 * cross that row at the same frequency, several at the aperture's edges (a row resolves about 2 fc / B
 * cycles across the aperture). And the ranges are those of each patch's own centre, whose look
 * directions differ from the grid centre's by its offset over the range (at 10 km, 8 m off the centre
 * turns the local spectrum by more than three pulses' spacing).
 *
 * The exact way takes two square roots and three sines a pixel and pulse. The fast way takes the exact
 * differential range at a row's two ends and middle, and follows the quadratic through them along the
 * row by recurrences of unit phasors (three complex products a pixel): along a row of half-width L at
 * range R the cubic term is L^3 sin(theta) / (2 R^2), 5e-6 m for 32 m at 10 km (2e-3 rad at X band).
 */

static double
half_range (const EfPulse *pu, const double x[3])
{
  double t = 0, r = 0;

  for (int k = 0; k < 3; k++)
    {
      t += (pu->tx[k] - x[k]) * (pu->tx[k] - x[k]);
      r += (pu->rcv[k] - x[k]) * (pu->rcv[k] - x[k]);
    }
  return 0.5 * (sqrt (t) + sqrt (r));
}

/* The band's centre and step for pulse pu (the collection's band when the pulse states none). */
static void
pulse_band (const EfDatasetInfo *info, const EfPulse *pu, guint ns, double *fmid, double *df)
{
  double f1 = pu->fx1, f2 = pu->fx2;

  if (!(f2 > f1) || !(f1 > 0))
    {
      f1 = info->fc - 0.5 * info->bandwidth;
      f2 = info->fc + 0.5 * info->bandwidth;
    }
  *fmid = 0.5 * (f1 + f2);
  *df = ns > 1 ? (f2 - f1) / (ns - 1) : 0;
}

/* The columns [c0, c1) and rows [r0, r1] of patch pa. */
static void
patch_bounds (const EfFocusCtx *c, const EfPgaPatch *pa, guint win, guint half_h, guint *c0, guint *c1,
              guint *r0, guint *r1)
{
  gint64 lo = (gint64) pa->col - (gint64) (win / 2);

  *r0 = pa->row >= half_h ? pa->row - half_h : 0;
  *r1 = MIN (pa->row + half_h, c->grid.height - 1);
  *c0 = (guint) MAX (lo, 0);
  *c1 = (guint) MIN (lo + (gint64) win, (gint64) c->grid.width);
}

static EfCf64
project_exact (const EfFocusCtx *c, const EfCf32 *img, const EfPulse *pu, const EfPgaPatch *pa, guint win,
               guint half_h, guint ns, double fmid, double df)
{
  guint c0, c1, r0, r1;
  double X[3], rx, re = 0, im = 0;

  patch_bounds (c, pa, win, half_h, &c0, &c1, &r0, &r1);
  ef_grid_pixel_position (&c->grid, pa->col, pa->row, X);
  rx = half_range (pu, X);
  for (guint row = r0; row <= r1; row++)
    for (guint col = c0; col < c1; col++)
      {
        EfCf32 v = img[(gsize) row * c->grid.width + col];
        double x[3], beta, half, sd, amp;

        ef_grid_pixel_position (&c->grid, col, row, x);
        beta = 4 * G_PI * (half_range (pu, x) - rx) / EF_FOCUS_C;
        half = 0.5 * beta * df;
        sd = sin (half);
        amp = fabs (sd) > 1e-12 ? sin (ns * half) / sd : (double) ns;
        /* v * conj (amp * exp (j beta fmid)) */
        re += amp * (crealf (v) * cos (beta * fmid) + cimagf (v) * sin (beta * fmid));
        im += amp * (cimagf (v) * cos (beta * fmid) - crealf (v) * sin (beta * fmid));
      }
  return re + I * im;
}

/* exp(j a), exp(j (a + b)) ... with the step itself turning by exp(j 2 c) each time: a + b t + c t^2. */
typedef struct {
  double complex e, step, turn;
} Chirp;

static void
chirp_init (Chirp *q, double a, double b, double cq)
{
  q->e = cexp (I * a);
  q->step = cexp (I * (b + cq));
  q->turn = cexp (I * 2 * cq);
}

static inline void
chirp_next (Chirp *q)
{
  q->e *= q->step;
  q->step *= q->turn;
}

static EfCf64
project_fast (const EfFocusCtx *c, const EfCf32 *img, const EfPulse *pu, const EfPgaPatch *pa, guint win,
              guint half_h, guint ns, double fmid, double df)
{
  guint c0, c1, r0, r1;
  double X[3], rx;
  EfCf64 acc = 0;

  patch_bounds (c, pa, win, half_h, &c0, &c1, &r0, &r1);
  ef_grid_pixel_position (&c->grid, pa->col, pa->row, X);
  rx = half_range (pu, X);
  for (guint row = r0; row <= r1; row++)
    {
      const EfCf32 *line = img + (gsize) row * c->grid.width;
      double x[3], d0, dm, de, tm, te, q2, q1;
      double kp = 4 * G_PI * fmid / EF_FOCUS_C, kh = 2 * G_PI * df / EF_FOCUS_C;
      Chirp car, one, all;
      EfCf64 racc = 0;

      /* The differential range at the row's ends and middle, and the quadratic through them in t = col - c0. */
      te = (double) (c1 - 1 - c0);
      tm = floor (0.5 * te);
      ef_grid_pixel_position (&c->grid, c0, row, x);
      d0 = half_range (pu, x) - rx;
      ef_grid_pixel_position (&c->grid, c0 + tm, row, x);
      dm = half_range (pu, x) - rx;
      ef_grid_pixel_position (&c->grid, c0 + te, row, x);
      de = half_range (pu, x) - rx;
      if (te > tm && tm > 0)
        {
          q2 = ((de - d0) / te - (dm - d0) / tm) / (te - tm);
          q1 = (dm - d0) / tm - q2 * tm;
        }
      else
        {
          q2 = 0;
          q1 = te > 0 ? (de - d0) / te : 0;
        }
      chirp_init (&car, kp * d0, kp * q1, kp * q2);
      chirp_init (&one, kh * d0, kh * q1, kh * q2);
      chirp_init (&all, ns * kh * d0, ns * kh * q1, ns * kh * q2);
      for (guint col = c0; col < c1; col++)
        {
          EfCf32 v = line[col];
          double sd = cimag (one.e), amp = fabs (sd) > 1e-12 ? cimag (all.e) / sd : (double) ns;

          racc += amp * ((double) crealf (v) + I * (double) cimagf (v)) * conj (car.e);
          chirp_next (&car);
          chirp_next (&one);
          chirp_next (&all);
        }
      acc += racc;
    }
  return acc;
}

void
ef_pga_patch_spectra (const EfFocusCtx *c, const EfCf32 *img, const EfPgaPatch *patch, guint n_patch, guint win,
                      guint half_h, gboolean exact, guint n_threads, EfCf64 *g)
{
  guint64 n = c->n;
  const EfDatasetInfo *info = &c->ds->info;
  guint ns = (guint) MAX (info->n_samples, 1u);

  (void) n_threads;
#if HAVE_OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(dynamic, 4)
#endif
  for (guint64 i = 0; i < n; i++)
    {
      const EfPulse *pu = &c->ds->pulses[c->first + i];
      double fmid, df;

      /* Cancelled: the rest is skipped, and the caller says so. */
      if (g_cancellable_is_cancelled (c->cancellable))
        continue;
      pulse_band (info, pu, ns, &fmid, &df);
      for (guint j = 0; j < n_patch; j++)
        g[(gsize) j * n + i] = exact ? project_exact (c, img, pu, &patch[j], win, half_h, ns, fmid, df)
                                     : project_fast (c, img, pu, &patch[j], win, half_h, ns, fmid, df);
    }
}

void
ef_pga_geometry_init (const EfFocusCtx *c, EfPgaGeometry *geo, double **table)
{
  const EfDatasetInfo *info = &c->ds->info;
  guint ns = (guint) MAX (info->n_samples, 1u);
  double *t = g_new (double, (gsize) c->n * EF_PGA_PULSE_DOUBLES);

  memset (geo, 0, sizeof *geo);
  for (guint64 i = 0; i < c->n; i++)
    {
      const EfPulse *pu = &c->ds->pulses[c->first + i];
      double *row = t + (gsize) i * EF_PGA_PULSE_DOUBLES;

      for (int k = 0; k < 3; k++)
        {
          row[k] = pu->tx[k];
          row[3 + k] = pu->rcv[k];
        }
      pulse_band (info, pu, ns, &row[6], &row[7]);
    }
  geo->n_pulses = c->n;
  geo->pulse = t;
  geo->n_samples = ns;
  geo->width = c->grid.width;
  geo->height = c->grid.height;
  for (int k = 0; k < 3; k++)
    {
      geo->origin[k] = c->grid.origin[k];
      geo->du[k] = c->grid.spacing * c->grid.u[k];
      geo->dv[k] = c->grid.spacing * c->grid.v[k];
    }
  *table = t;
}
