/* ef-teach-theory.c: a lesson's theory: resolutions, the single-pulse arc, k-space extent, profiles. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-teach"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-rangecomp.h"
#include "ef-teach.h"

static void
antenna (const EfPulse *pu, double a[3])
{
  for (int c = 0; c < 3; c++)
    a[c] = 0.5 * (pu->tx[c] + pu->rcv[c]);
}

double
ef_teach_look_angle (const EfPulse *pu)
{
  double a[3];

  antenna (pu, a);
  return atan2 (a[1], a[0]);
}

/* The band of samples [k0, k1]: each FX sample stands for [f, f + df), so the whole band of n samples
 * is n df wide and runs from the first frequency. */
static void
band_edges (const EfDataset *ds, guint64 p, guint k0, guint k1, double *f_lo, double *f_hi, guint *nk)
{
  const EfPulse *pu = &ds->pulses[p];
  guint ns = (guint) ds->info.n_samples;

  if (ds->info.domain == EF_DOMAIN_FX && pu->scss > 0)
    {
      k1 = MIN (k1, ns - 1);
      k0 = MIN (k0, k1);
      *f_lo = pu->sc0 + k0 * pu->scss;
      *f_hi = pu->sc0 + (k1 + 1.0) * pu->scss;
      *nk = k1 - k0 + 1;
      return;
    }
  *nk = ns;
  if (ds->info.bandwidth > 0 && ds->info.fc > 0)
    {
      *f_lo = ds->info.fc - 0.5 * ds->info.bandwidth;
      *f_hi = ds->info.fc + 0.5 * ds->info.bandwidth;
    }
  else
    {
      *f_lo = pu->fx1;
      *f_hi = pu->fx2;
    }
}

/* The look angles of pulses [p0, p1], unwrapped step by step (a pass through +-180 degrees stays
 * continuous): the first's, the last's and the least and greatest. */
static void
look_span (const EfDataset *ds, guint64 p0, guint64 p1, double *first, double *last, double *lo, double *hi)
{
  double a = ef_teach_look_angle (&ds->pulses[p0]), prev = a;

  *first = *lo = *hi = a;
  for (guint64 p = p0 + 1; p <= p1; p++)
    {
      double b = ef_teach_look_angle (&ds->pulses[p]);

      a += remainder (b - prev, 2 * G_PI);
      prev = b;
      *lo = MIN (*lo, a);
      *hi = MAX (*hi, a);
    }
  *last = a;
}

void
ef_teach_theory (const EfDataset *ds, guint64 p0, guint64 p1, guint k0, guint k1, EfTeachTheory *out)
{
  double u0[3], u1[3], cr[3], n0 = 0, n1 = 0, dot = 0, g = 0, lo, hi;
  guint64 np;

  g_return_if_fail (ds != NULL && out != NULL && ds->info.n_pulses > 0);

  memset (out, 0, sizeof *out);
  np = ds->info.n_pulses;
  p1 = MIN (p1, np - 1);
  p0 = MIN (p0, p1);
  out->n_pulses = p1 - p0 + 1;
  band_edges (ds, (p0 + p1) / 2, k0, k1, &out->f_lo, &out->f_hi, &out->n_samples);
  out->bandwidth = out->f_hi - out->f_lo;
  out->fc = 0.5 * (out->f_lo + out->f_hi);
  out->lambda = out->fc > 0 ? EF_C / out->fc : 0;
  out->range_res = out->bandwidth > 0 ? EF_C / (2.0 * out->bandwidth) : 0;

  for (guint64 p = p0; p <= p1; p++)
    {
      double a[3], r;

      antenna (&ds->pulses[p], a);
      r = sqrt (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      g += r > 0 ? asin (a[2] / r) : 0;
    }
  out->grazing = g / (double) out->n_pulses;
  out->range_res_ground = out->range_res / MAX (cos (out->grazing), 0.1);

  /* The angle between the first and the last lines of sight, in 3-D: the slant-plane angle that sets
   * cross-range resolution (a ground-plane azimuth sweep shrinks by the cosine of the grazing angle). */
  antenna (&ds->pulses[p0], u0);
  antenna (&ds->pulses[p1], u1);
  for (int c = 0; c < 3; c++)
    {
      n0 += u0[c] * u0[c];
      n1 += u1[c] * u1[c];
    }
  n0 = sqrt (n0);
  n1 = sqrt (n1);
  if (n0 > 0 && n1 > 0 && out->n_pulses > 1)
    {
      for (int c = 0; c < 3; c++)
        {
          u0[c] /= n0;
          u1[c] /= n1;
          dot += u0[c] * u1[c];
        }
      cr[0] = u0[1] * u1[2] - u0[2] * u1[1];
      cr[1] = u0[2] * u1[0] - u0[0] * u1[2];
      cr[2] = u0[0] * u1[1] - u0[1] * u1[0];
      out->dtheta = atan2 (sqrt (cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]), dot)
                    * (double) out->n_pulses / (double) (out->n_pulses - 1);
    }
  out->cross_res = out->dtheta > 0 ? out->lambda / (2.0 * out->dtheta) : 0;
  look_span (ds, p0, p1, &out->look_first, &out->look_last, &lo, &hi);
}

void
ef_teach_kspace (const EfDataset *ds, guint64 p0, guint64 p1, guint k0, guint k1, EfTeachKspace *out)
{
  double f_lo, f_hi, first, last;
  guint nk;

  g_return_if_fail (ds != NULL && out != NULL && ds->info.n_pulses > 0);

  p1 = MIN (p1, ds->info.n_pulses - 1);
  p0 = MIN (p0, p1);
  band_edges (ds, (p0 + p1) / 2, k0, k1, &f_lo, &f_hi, &nk);
  out->k_min = 2.0 * f_lo / EF_C;
  out->k_max = 2.0 * f_hi / EF_C;
  look_span (ds, p0, p1, &first, &last, &out->angle_lo, &out->angle_hi);
}

guint
ef_teach_pulse_arc (const EfGrid *grid, const EfPulse *pu, double r, double margin, double *xy, guint max_pts)
{
  double a[3], nrm[3], d = 0, c[3], cu = 0, cv = 0, rho, lo, hi, mid;
  double w, h, corner[4][2];
  gboolean inside, gap = TRUE;
  guint n = 0;

  g_return_val_if_fail (grid != NULL && pu != NULL && (xy != NULL || max_pts == 0), 0);
  if (max_pts < 2 || !(r > 0))
    return 0;

  antenna (pu, a);
  nrm[0] = grid->u[1] * grid->v[2] - grid->u[2] * grid->v[1];
  nrm[1] = grid->u[2] * grid->v[0] - grid->u[0] * grid->v[2];
  nrm[2] = grid->u[0] * grid->v[1] - grid->u[1] * grid->v[0];
  for (int k = 0; k < 3; k++)
    d += (a[k] - grid->origin[k]) * nrm[k];
  if (fabs (d) >= r)
    return 0;
  rho = sqrt (r * r - d * d);
  for (int k = 0; k < 3; k++)
    c[k] = a[k] - d * nrm[k] - grid->origin[k];
  for (int k = 0; k < 3; k++)
    {
      cu += c[k] * grid->u[k];
      cv += c[k] * grid->v[k];
    }
  /* In pixels from here on. */
  cu /= grid->spacing;
  cv /= grid->spacing;
  rho /= grid->spacing;
  w = grid->width - 1 + margin;
  h = grid->height - 1 + margin;
  corner[0][0] = -margin, corner[0][1] = -margin;
  corner[1][0] = w, corner[1][1] = -margin;
  corner[2][0] = w, corner[2][1] = h;
  corner[3][0] = -margin, corner[3][1] = h;
  inside = cu >= -margin && cu <= w && cv >= -margin && cv <= h;

  /* Only the angles that can reach the grid are sampled: a ring tens of kilometres across crosses a
   * region of tens of metres in a sliver of its circumference. */
  if (inside)
    {
      lo = -G_PI;
      hi = G_PI;
    }
  else
    {
      mid = atan2 (0.5 * (h - margin) - cv, 0.5 * (w - margin) - cu);
      lo = hi = 0;
      for (int k = 0; k < 4; k++)
        {
          double t = remainder (atan2 (corner[k][1] - cv, corner[k][0] - cu) - mid, 2 * G_PI);

          lo = MIN (lo, t);
          hi = MAX (hi, t);
        }
      lo += mid;
      hi += mid;
    }
  for (guint i = 0; i < max_pts && n < max_pts; i++)
    {
      double t = lo + (hi - lo) * i / (max_pts - 1);
      double x = cu + rho * cos (t), y = cv + rho * sin (t);

      if (x >= -margin && x <= w && y >= -margin && y <= h)
        {
          xy[2 * n] = x;
          xy[2 * n + 1] = y;
          n++;
          gap = FALSE;
        }
      else if (!gap && n < max_pts)
        {
          xy[2 * n] = NAN;
          xy[2 * n + 1] = NAN;
          n++;
          gap = TRUE;
        }
    }
  /* A trailing break joins nothing. */
  if (n > 0 && isnan (xy[2 * (n - 1)]))
    n--;
  return n;
}

float *
ef_teach_pulse_profile (EfDataset *ds, guint64 p, guint k0, guint nk, guint *n_bins, double *r_start, double *dr,
                        GError **error)
{
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfRangeCompressor) rc = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  g_autofree EfCf32 *samples = NULL;
  guint ns;
  float *mag;

  g_return_val_if_fail (ds != NULL && n_bins != NULL, NULL);

  ns = (guint) ds->info.n_samples;
  if (p >= ds->info.n_pulses)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "There is no pulse %" G_GUINT64_FORMAT, p);
      return NULL;
    }
  if (ds->info.domain != EF_DOMAIN_FX)
    {
      k0 = 0;
      nk = ns;
    }
  if (nk == 0 || k0 >= ns || nk > ns - k0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Samples %u..%u are not all in %u", k0,
                   k0 + nk, ns);
      return NULL;
    }
  rp.upsample = 4;
  rc = ef_range_compressor_new (&ds->info, &rp, FALSE, error);
  if (rc == NULL)
    return NULL;
  prof = ef_profiles_new (1, ef_range_compressor_n_bins (rc), FALSE, error);
  if (prof == NULL)
    return NULL;
  samples = g_new (EfCf32, ns);
  if (!ef_dataset_read_block (ds, p, 1, samples, error))
    return NULL;
  memset (samples, 0, sizeof *samples * k0);
  memset (samples + k0 + nk, 0, sizeof *samples * (ns - k0 - nk));
  if (!ef_range_compress (rc, ds->pulses + p, samples, 1, prof, NULL, error))
    return NULL;
  mag = g_new (float, prof->n_bins);
  for (guint i = 0; i < prof->n_bins; i++)
    mag[i] = cabsf (prof->data32[i]);
  *n_bins = prof->n_bins;
  if (r_start != NULL)
    *r_start = prof->meta[0].r_start;
  if (dr != NULL)
    *dr = prof->meta[0].dr;
  return mag;
}

float *
ef_teach_phase_history (EfDataset *ds, guint width, guint height, GError **error)
{
  const guint chunk = 64;
  g_autofree float *acc = NULL;
  g_autofree guint *cnt = NULL;
  g_autofree EfCf32 *samples = NULL;
  guint64 np, ns;
  float peak = 0;

  g_return_val_if_fail (ds != NULL, NULL);

  np = ds->info.n_pulses;
  ns = ds->info.n_samples;
  if (width == 0 || height == 0 || width > 4096 || height > 4096 || np == 0 || ns == 0 || ns > G_MAXUINT / chunk)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A phase history picture takes 1 to 4096 pixels a side of a non-empty collection");
      return NULL;
    }
  acc = g_new0 (float, (gsize) width * height);
  cnt = g_new0 (guint, (gsize) width * height);
  samples = g_new (EfCf32, (gsize) chunk * ns);
  for (guint64 p = 0; p < np; p += chunk)
    {
      guint n = (guint) MIN ((guint64) chunk, np - p);

      if (!ef_dataset_read_block (ds, p, n, samples, error))
        return NULL;
      for (guint i = 0; i < n; i++)
        {
          gsize row = (gsize) ((p + i) * height / np) * width;

          for (guint64 k = 0; k < ns; k++)
            {
              gsize at = row + (gsize) (k * width / ns);

              acc[at] += cabsf (samples[(gsize) i * ns + k]);
              cnt[at]++;
            }
        }
    }
  for (gsize i = 0; i < (gsize) width * height; i++)
    {
      acc[i] = cnt[i] ? acc[i] / cnt[i] : 0;
      peak = MAX (peak, acc[i]);
    }
  if (peak > 0)
    for (gsize i = 0; i < (gsize) width * height; i++)
      acc[i] /= peak;
  return g_steal_pointer (&acc);
}
