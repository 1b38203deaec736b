/* ef-focus.c: autofocus: the estimation grid, forming on it, and running an estimator end to end. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-focus-private.h"
#include "ef-metrics.h"

#define SPEED_OF_LIGHT 299792458.0
/* PGA's rows at most (pixels), however many pulses: beyond, its spectral samples each hold several
 * pulses (see ef_focus_ctx_init). 8192 spans the ambiguity extent of 4096 pulses: on `bench --autofocus
 * pga --sizes 4096` (300 targets) a 2 rad quadratic is left at 0.021 rad on 8192 rows against 0.061 on
 * 4096, each formation of the estimate taking about 1.7 times as long. */
#define PGA_MAX_WIDTH 8192

void
ef_focus_params_init (EfFocusParams *p, EfFocusMethod method)
{
  g_return_if_fail (p != NULL);

  memset (p, 0, sizeof *p);
  p->method = method;
  p->max_px = 256;
  p->upsample = 16;
  p->precision = EF_PRECISION_FP32;
  p->max_iter = 20;
  p->tol_rad = 0.005;
  p->memory_bytes = (guint64) 512 << 20;
  p->backend = EF_BACKEND_CPU;
  p->device = -1;
  p->n_devices = 1;
}

void
ef_focus_result_clear (EfFocusResult *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->phase, g_free);
  g_clear_pointer (&r->backend, g_free);
  g_clear_pointer (&r->backend_note, g_free);
  g_clear_pointer (&r->sums_backend, g_free);
  memset (r, 0, sizeof *r);
}

const char *
ef_focus_method_to_string (EfFocusMethod m)
{
  switch (m)
    {
    case EF_FOCUS_PGA:
      return "pga";
    case EF_FOCUS_SHARPNESS:
      return "sharpness";
    case EF_FOCUS_NONE:
    default:
      return "none";
    }
}

gboolean
ef_focus_method_from_string (const char *s, EfFocusMethod *m)
{
  if (g_strcmp0 (s, "pga") == 0)
    *m = EF_FOCUS_PGA;
  else if (g_strcmp0 (s, "sharpness") == 0)
    *m = EF_FOCUS_SHARPNESS;
  else if (g_strcmp0 (s, "none") == 0)
    *m = EF_FOCUS_NONE;
  else
    return FALSE;
  return TRUE;
}

double
ef_focus_sharpness (const EfCf32 *data, gsize n)
{
  double s2 = 0, s4 = 0;

  for (gsize i = 0; i < n; i++)
    {
      double a = (double) crealf (data[i]) * crealf (data[i]) + (double) cimagf (data[i]) * cimagf (data[i]);
      s2 += a;
      s4 += a * a;
    }
  return s2 > 0 ? s4 / (s2 * s2) : 0.0;
}

double
ef_focus_phase_residual (const double *a, const double *b, guint64 n)
{
  g_autofree double *d = NULL;
  double sx = 0, sy = 0, sxx = 0, sxy = 0, slope, icpt, ss = 0, prev = 0;

  g_return_val_if_fail (a != NULL || n == 0, 0.0);
  if (n < 3)
    return 0.0;
  d = g_new (double, n);
  /* A pulse's phase counts modulo 2 pi: the difference unwrapped along the pulses (each step taken
   * into (-pi, pi]), then its least-squares line removed. */
  for (guint64 p = 0; p < n; p++)
    {
      double v = a[p] - (b != NULL ? b[p] : 0);

      d[p] = p == 0 ? v : d[p - 1] + remainder (v - prev, 2 * G_PI);
      prev = v;
      sx += (double) p;
      sy += d[p];
      sxx += (double) p * p;
      sxy += (double) p * d[p];
    }
  slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  icpt = (sy - slope * sx) / n;
  for (guint64 p = 0; p < n; p++)
    {
      double r = d[p] - icpt - slope * p;

      ss += r * r;
    }
  return sqrt (ss / n);
}

static void
antenna (const EfPulse *pu, double a[3])
{
  for (int i = 0; i < 3; i++)
    a[i] = 0.5 * (pu->tx[i] + pu->rcv[i]);
}

gboolean
ef_focus_ctx_init (EfFocusCtx *c, EfDataset *ds, const EfFocusParams *p, GError **error)
{
  const EfDatasetInfo *info = &ds->info;
  double centre[3] = { p->centre[0], p->centre[1], 0 };
  double am[3], d[2], dn, slant, cos_psi, lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, res_range, spacing;
  double side_m;
  guint side, across;
  EfBackendParams bp = { 0 };

  memset (c, 0, sizeof *c);
  c->ds = ds;
  if (p->first_pulse >= info->n_pulses)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Autofocus: the first pulse %" G_GUINT64_FORMAT " is past the end (%" G_GUINT64_FORMAT ")",
                   p->first_pulse, info->n_pulses);
      return FALSE;
    }
  c->first = p->first_pulse;
  c->n = info->n_pulses - c->first;
  if (p->n_pulses > 0)
    c->n = MIN (c->n, p->n_pulses);
  if (c->n < 8)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Autofocus needs 8 pulses at least (%" G_GUINT64_FORMAT " given)", c->n);
      return FALSE;
    }
  if (!isfinite (centre[0]) || !isfinite (centre[1]))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Autofocus: the centre is not finite");
      return FALSE;
    }

  /* Range runs from the antenna at mid-aperture through the centre, on the ground. */
  antenna (&ds->pulses[c->first + c->n / 2], am);
  d[0] = am[0] - centre[0];
  d[1] = am[1] - centre[1];
  dn = hypot (d[0], d[1]);
  slant = sqrt (dn * dn + am[2] * am[2]);
  if (!(dn > 0) || !(slant > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Autofocus: the antenna is above the region's centre; there is no range direction");
      return FALSE;
    }
  d[0] /= dn;
  d[1] /= dn;
  cos_psi = MAX (dn / slant, 0.1);
  for (guint64 i = 0; i < c->n; i++)
    {
      double a[3], ang;

      antenna (&ds->pulses[c->first + i], a);
      ang = atan2 (d[0] * (a[1] - centre[1]) - d[1] * (a[0] - centre[0]),
                   d[0] * (a[0] - centre[0]) + d[1] * (a[1] - centre[1]));
      lo = MIN (lo, ang);
      hi = MAX (hi, ang);
    }
  if (!(hi - lo > 1e-9) || !(info->fc > 0) || !(info->bandwidth > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Autofocus: the pulses span no look angle, or the collection states no band");
      return FALSE;
    }
  c->res_cross = SPEED_OF_LIGHT / (2 * info->fc * (hi - lo) * cos_psi);
  res_range = SPEED_OF_LIGHT / (2 * info->bandwidth * cos_psi);
  c->res_range = res_range;
  c->dtheta = hi - lo;
  spacing = p->spacing > 0 ? p->spacing : 0.5 * MIN (res_range, c->res_cross);
  side_m = p->extent_m > 0 ? p->extent_m : spacing * MAX (p->max_px, 16u);
  side = (guint) MIN (ceil (side_m / spacing), (double) MAX (p->max_px, 16u));
  side = MAX (side, 16u) & ~1u;
  /* PGA reads pulse p's phase from the image's spectrum along cross-range at the pulse's own spatial
   * frequency; neighbouring pulses are 1 / (n rho_x) apart there, so the rows must span n rho_x (the
   * aperture's ambiguity extent, 2n pixels at half a resolution cell) for each pulse's sample to be its
   * own. Narrower, the spectrum holds extent / rho_x independent samples only, and an error that
   * changes from pulse to pulse keeps its orders above extent / (2 rho_x) cycles across the aperture
   * (0.27 rad of a 1.5 rad random walk at 16 m, n rho_x = 64 m; 0.015 rad at 64 m). The range side
   * stays as asked. */
  across = side;
  if (p->method == EF_FOCUS_PGA)
    {
      double ambiguity = (double) c->n * c->res_cross / spacing;

      across = (guint) MIN (MAX ((double) side, ceil (ambiguity)), (double) MAX (PGA_MAX_WIDTH, p->max_px));
      across = MAX (across, side) & ~1u;
    }

  /* Rows (u) along cross-range, columns (v) down range, away from the antenna. */
  c->grid.u[0] = -d[1];
  c->grid.u[1] = d[0];
  c->grid.u[2] = 0;
  c->grid.v[0] = -d[0];
  c->grid.v[1] = -d[1];
  c->grid.v[2] = 0;
  c->grid.spacing = spacing;
  c->asked_cols = side;
  c->grid.width = across;
  c->grid.height = side;
  for (int i = 0; i < 3; i++)
    c->grid.origin[i] = centre[i] - 0.5 * spacing * (across * c->grid.u[i] + side * c->grid.v[i]);

  c->kappa = g_new (double, c->n);
  for (guint64 i = 0; i < c->n; i++)
    {
      const EfPulse *pu = &ds->pulses[c->first + i];
      double a[3], r = 0, dot = 0, f = 0.5 * (pu->fx1 + pu->fx2);

      if (!(f > 0))
        f = info->fc;
      antenna (pu, a);
      for (int k = 0; k < 3; k++)
        r += (a[k] - centre[k]) * (a[k] - centre[k]);
      r = sqrt (r);
      for (int k = 0; k < 3; k++)
        dot += (a[k] - centre[k]) / r * c->grid.u[k];
      c->kappa[i] = 2 * f / SPEED_OF_LIGHT * dot;
    }

  bp.grid = c->grid;
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.range.upsample = p->upsample > 0 ? p->upsample : 16;
  bp.precision = p->precision == EF_PRECISION_FP64 ? EF_PRECISION_FP64 : EF_PRECISION_FP32;
  bp.algo = EF_ALGO_BP;
  /* A device wants more pulses at a time than the processor's cache does. */
  bp.block_size = p->backend == EF_BACKEND_CPU ? 64 : 512;
  bp.n_threads = p->n_threads;
  bp.device = p->device;
  bp.n_devices = p->n_devices;
  c->block = bp.block_size;
  c->cancellable = p->cancellable;
  c->be = ef_backend_new (p->backend, info, &bp, &c->be_note, error);
  if (c->be == NULL)
    return FALSE;
  if (c->be_note != NULL)
    g_debug ("autofocus: %s", c->be_note);
  if (info->n_samples > G_MAXSIZE / sizeof (EfCf32) / c->block)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Autofocus: pulses too long");
      return FALSE;
    }
  c->samples = g_try_new (EfCf32, (gsize) c->block * info->n_samples);
  c->pulses = g_new (EfPulse, c->block);
  if (c->samples == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Autofocus: out of memory for a pulse block");
      return FALSE;
    }
  return TRUE;
}

void
ef_focus_ctx_clear (EfFocusCtx *c)
{
  g_clear_pointer (&c->be, ef_backend_free);
  g_clear_pointer (&c->be_note, g_free);
  g_clear_pointer (&c->samples, g_free);
  g_clear_pointer (&c->pulses, g_free);
  g_clear_pointer (&c->kappa, g_free);
}

gboolean
ef_focus_form (EfFocusCtx *c, guint64 p0, guint64 count, const double *phase, EfCf32 *out, GError **error)
{
  gsize ns = c->ds->info.n_samples;
  EfRect all = { 0, 0, c->grid.width, c->grid.height };
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok;

  if (!c->be->ops->clear (c->be, error))
    return FALSE;
  for (guint64 q = p0; q < p0 + count; q += c->block)
    {
      guint cnt = (guint) MIN ((guint64) c->block, p0 + count - q);

      if (g_cancellable_is_cancelled (c->cancellable))
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED, "Autofocus cancelled");
          return FALSE;
        }
      if (!ef_dataset_read_block (c->ds, q, cnt, c->samples, error))
        return FALSE;
      memcpy (c->pulses, c->ds->pulses + q, cnt * sizeof (EfPulse));
      if (phase != NULL)
        for (guint i = 0; i < cnt; i++)
          {
            EfCf32 rot = (float) cos (phase[q + i]) - I * (float) sin (phase[q + i]);
            EfCf32 *s = c->samples + (gsize) i * ns;

            for (gsize k = 0; k < ns; k++)
              s[k] *= rot;
          }
      if (!ef_backend_process_block (c->be, c->pulses, c->samples, cnt, error))
        return FALSE;
    }
  ok = ef_backend_read_image (c->be, &all, out, error);
  c->form_s += (double) (g_get_monotonic_time () - t0) * 1e-6;
  c->n_formations++;
  return ok;
}

typedef struct {
  double  kappa;
  guint64 index;
} KappaKey;

static int
cmp_kappa (gconstpointer a, gconstpointer b)
{
  const KappaKey *x = a, *y = b;

  if (x->kappa != y->kappa)
    return x->kappa < y->kappa ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

void
ef_focus_detrend (const double *kappa, double *e, guint64 n)
{
  double sk = 0, se = 0, skk = 0, ske = 0, det, a, b;

  /* Unwrapped first along the spatial frequency: a pulse's phase counts modulo 2 pi, and a correction
   * that differs from the error by whole turns on some pulses (PGA's steps, summed, can) focuses as
   * well, but its fitted line would then be tilted by the turns, and removing that line would move the
   * image (seen on a 3 rad walk: a whole resolution cell and more). */
  if (n > 1)
    {
      g_autofree KappaKey *order = g_new (KappaKey, n);

      for (guint64 i = 0; i < n; i++)
        order[i] = (KappaKey) { kappa[i], i };
      qsort (order, n, sizeof *order, cmp_kappa);
      for (guint64 q = 1; q < n; q++)
        {
          double prev = e[order[q - 1].index];

          e[order[q].index] = prev + remainder (e[order[q].index] - prev, 2 * G_PI);
        }
    }
  for (guint64 i = 0; i < n; i++)
    {
      sk += kappa[i];
      se += e[i];
      skk += kappa[i] * kappa[i];
      ske += kappa[i] * e[i];
    }
  det = (double) n * skk - sk * sk;
  if (!(fabs (det) > 0))
    {
      for (guint64 i = 0; i < n; i++)
        e[i] -= se / (double) n;
      return;
    }
  b = ((double) n * ske - sk * se) / det;
  a = (se - b * sk) / (double) n;
  for (guint64 i = 0; i < n; i++)
    e[i] -= a + b * kappa[i];
}

gboolean
ef_focus_run (EfDataset *ds, const EfFocusParams *params, EfFocusResult *out, GError **error)
{
  g_autofree double *phase = NULL;
  g_autofree EfCf32 *img = NULL;
  EfFocusCtx c;
  gsize npix;
  gboolean ok = FALSE;
  gint64 t0;
  double form0;

  g_return_val_if_fail (ds != NULL && params != NULL && out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (params->method != EF_FOCUS_PGA && params->method != EF_FOCUS_SHARPNESS)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Autofocus: no method asked for");
      return FALSE;
    }
  phase = g_new0 (double, MAX (ds->info.n_pulses, 1));
  if (params->initial != NULL)
    for (guint64 p = 0; p < ds->info.n_pulses; p++)
      {
        if (!isfinite (params->initial[p]))
          {
            g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                         "Autofocus: the starting correction of pulse %" G_GUINT64_FORMAT " is not finite", p);
            return FALSE;
          }
        phase[p] = params->initial[p];
      }
  if (!ef_focus_ctx_init (&c, ds, params, error))
    goto out;
  npix = ef_grid_n_pixels (&c.grid);
  img = g_try_new (EfCf32, npix);
  if (img == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Autofocus: no memory for the image");
      goto out;
    }
  if (!ef_focus_form (&c, c.first, c.n, phase, img, error))
    goto out;
  out->entropy_before = ef_image_entropy (img, npix);
  out->sharpness_before = ef_focus_sharpness (img, npix);

  t0 = g_get_monotonic_time ();
  form0 = c.form_s;
  if (params->method == EF_FOCUS_PGA)
    ok = ef_focus_pga (&c, params, phase, out, error);
  else
    ok = ef_focus_sharpness_run (&c, params, phase, out, error);
  out->estimate_s = (double) (g_get_monotonic_time () - t0) * 1e-6 - (c.form_s - form0);
  if (!ok)
    goto out;
  ef_focus_detrend (c.kappa, phase + c.first, c.n);

  ok = ef_focus_form (&c, c.first, c.n, phase, img, error);
  if (!ok)
    goto out;
  out->entropy_after = ef_image_entropy (img, npix);
  out->sharpness_after = ef_focus_sharpness (img, npix);
  out->method = params->method;
  out->n_pulses = ds->info.n_pulses;
  out->grid = c.grid;
  out->phase = g_steal_pointer (&phase);
  {
    const EfRunInfo *run = ef_backend_get_run_info (c.be);

    out->backend = g_strdup (run->backend != NULL ? run->backend : ef_backend_name (c.be));
    out->n_devices = run->n_devices;
    out->backend_note = g_strdup (c.be_note);
  }
  out->form_s = c.form_s;
  out->n_formations = c.n_formations;
  g_debug ("autofocus %s on %s: %u iterations, entropy %.4f -> %.4f, sharpness %.4g -> %.4g; %" G_GUINT64_FORMAT
           " formations in %.3f s, estimation %.3f s",
           ef_focus_method_to_string (params->method), out->backend, out->iterations, out->entropy_before,
           out->entropy_after, out->sharpness_before, out->sharpness_after, out->n_formations, out->form_s,
           out->estimate_s);

out:
  ef_focus_ctx_clear (&c);
  /* A failed estimate leaves nothing behind (the caller may not clear it). */
  if (!ok)
    ef_focus_result_clear (out);
  return ok;
}
