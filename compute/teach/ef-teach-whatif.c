/* ef-teach-whatif.c: what-if lessons: phase, speed and position errors injected, and interpolation measured. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-teach"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-aperture.h"
#include "ef-error.h"
#include "ef-focus.h"
#include "ef-metrics.h"
#include "ef-mf.h"
#include "ef-teach-whatif.h"

#define MF_CHUNK 64u

typedef struct {
  EfDataset *inner;  /* owned reference */
  GMutex     lock;   /* about inner's reads */
} SerialPriv;

static gboolean
serial_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  SerialPriv *priv = self->priv;
  gboolean ok;

  g_mutex_lock (&priv->lock);
  ok = ef_dataset_read_block (priv->inner, first, count, out, error);
  g_mutex_unlock (&priv->lock);
  return ok;
}

static void
serial_finalize (EfDataset *self)
{
  SerialPriv *priv = self->priv;

  ef_dataset_unref (priv->inner);
  g_mutex_clear (&priv->lock);
  g_free (priv);
}

static const EfDatasetOps serial_ops = {
  .read_block = serial_read_block,
  .finalize = serial_finalize,
};

EfDataset *
ef_teach_dataset_serialized (EfDataset *ds)
{
  EfDataset *self;
  SerialPriv *priv;

  g_return_val_if_fail (ds != NULL, NULL);
  self = ef_dataset_alloc (&serial_ops);
  priv = g_new0 (SerialPriv, 1);
  priv->inner = ef_dataset_ref (ds);
  g_mutex_init (&priv->lock);
  ef_dataset_info_clear (&self->info);
  ef_dataset_info_copy (&ds->info, &self->info);
  self->pulses = g_memdup2 (ds->pulses, ds->info.n_pulses * sizeof (EfPulse));
  self->priv = priv;
  return self;
}

gboolean
ef_teach_errors_none (const EfTeachErrors *e)
{
  g_return_val_if_fail (e != NULL, TRUE);
  return e->phase_rms == 0 && e->speed_pct == 0 && e->offset_m == 0;
}

/* A standard normal deviate from r (Box-Muller), so that the walk depends on GLib's generator alone. */
static double
gauss (GRand *r)
{
  double u = g_rand_double (r), v = g_rand_double (r);

  return sqrt (-2 * log (1 - u)) * cos (2 * G_PI * v);
}

void
ef_teach_phase_error (EfTeachPhaseShape shape, double rms, double sine_cycles, guint32 seed, guint64 n, double *out)
{
  double mean = 0, ss = 0, half;

  g_return_if_fail (out != NULL || n == 0);
  if (n == 0)
    return;
  memset (out, 0, sizeof (double) * n);
  if (!(rms > 0) || n < 2)
    return;
  half = 0.5 * (double) (n - 1);
  switch (shape)
    {
    case EF_TEACH_PHASE_QUADRATIC:
      for (guint64 p = 0; p < n; p++)
        {
          double x = (p - half) / half;

          out[p] = x * x;
        }
      break;
    case EF_TEACH_PHASE_LINEAR:
      for (guint64 p = 0; p < n; p++)
        out[p] = (p - half) / half;
      break;
    case EF_TEACH_PHASE_SINE:
      {
        double c = sine_cycles > 0 ? sine_cycles : 3;

        for (guint64 p = 0; p < n; p++)
          out[p] = sin (2 * G_PI * c * (double) p / (double) n);
      }
      break;
    case EF_TEACH_PHASE_RANDOM_WALK:
    default:
      {
        g_autoptr (GRand) r = g_rand_new_with_seed (seed);
        double sx = 0, sxy = 0, sy = 0, sxx = 0, a, b;

        for (guint64 p = 1; p < n; p++)
          out[p] = out[p - 1] + gauss (r);
        /* The straight line through it moves the image; only what bends is kept. */
        for (guint64 p = 0; p < n; p++)
          {
            double x = (p - half) / half;

            sx += x, sy += out[p], sxx += x * x, sxy += x * out[p];
          }
        b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        a = (sy - b * sx) / n;
        for (guint64 p = 0; p < n; p++)
          out[p] -= a + b * (p - half) / half;
      }
      break;
    }
  for (guint64 p = 0; p < n; p++)
    mean += out[p];
  mean /= (double) n;
  for (guint64 p = 0; p < n; p++)
    {
      out[p] -= mean;
      ss += out[p] * out[p];
    }
  if (ss <= 0)
    {
      memset (out, 0, sizeof (double) * n);
      return;
    }
  ss = rms / sqrt (ss / (double) n);
  for (guint64 p = 0; p < n; p++)
    out[p] *= ss;
}

static void
normalise (double v[3])
{
  double n = sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);

  if (n > 0)
    v[0] /= n, v[1] /= n, v[2] /= n;
}

EfDataset *
ef_teach_errors_apply (EfDataset *ds, const EfTeachErrors *e, GError **error)
{
  g_autofree double *phase = NULL;
  EfDataset *out;
  guint64 n, mid;
  double k = 0, d[3] = { 0, 0, 0 };
  EfPulse m;

  g_return_val_if_fail (ds != NULL && e != NULL, NULL);
  if (!isfinite (e->phase_rms) || e->phase_rms < 0 || !isfinite (e->speed_pct) || !isfinite (e->offset_m)
      || !isfinite (e->sine_cycles) || fabs (e->speed_pct) > 100)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Errors must be finite, the phase RMS not negative and the speed error within ±100%%");
      return NULL;
    }
  if (ef_teach_errors_none (e))
    return ef_dataset_ref (ds);
  n = ds->info.n_pulses;
  if (n < 2)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Errors need a collection of two pulses or more");
      return NULL;
    }
  if (n > G_MAXSIZE / sizeof (double))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Too many pulses for a phase error");
      return NULL;
    }
  /* Read as exp(+j e[p]): the phase-corrected dataset multiplies by exp(-j phase[p]). */
  phase = g_try_new (double, n);
  if (phase == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for a phase error");
      return NULL;
    }
  ef_teach_phase_error (e->phase_shape, e->phase_rms, e->sine_cycles, e->seed, n, phase);
  for (guint64 p = 0; p < n; p++)
    phase[p] = -phase[p];
  out = ef_dataset_new_phase_corrected (ds, phase, n, error);
  if (out == NULL)
    return NULL;

  mid = n / 2;
  m = ds->pulses[mid];
  k = e->speed_pct / 100;
  if (e->offset_m != 0)
    {
      const EfPulse *a = &ds->pulses[0], *z = &ds->pulses[n - 1];

      for (int i = 0; i < 3; i++)
        d[i] = e->offset_axis == EF_TEACH_OFFSET_ALONG_TRACK
                 ? 0.5 * (z->tx[i] + z->rcv[i]) - 0.5 * (a->tx[i] + a->rcv[i])
                 : -0.5 * (m.tx[i] + m.rcv[i]);
      normalise (d);
      for (int i = 0; i < 3; i++)
        d[i] *= e->offset_m;
    }
  /* The positions the formation believes; the wrapper owns its copy of the pulses. */
  for (guint64 p = 0; p < n; p++)
    {
      EfPulse *pu = &out->pulses[p];

      for (int i = 0; i < 3; i++)
        {
          pu->tx[i] += k * (pu->tx[i] - m.tx[i]) + d[i];
          pu->rcv[i] += k * (pu->rcv[i] - m.rcv[i]) + d[i];
        }
    }
  return out;
}

static double
antenna_range (const EfPulse *pu)
{
  double r = 0;

  for (int i = 0; i < 3; i++)
    {
      double a = 0.5 * (pu->tx[i] + pu->rcv[i]);

      r += a * a;
    }
  return sqrt (r);
}

double
ef_teach_errors_qpe (const EfDataset *truth, const EfDataset *erred, guint64 p0, guint64 p1)
{
  double s[5] = { 0 }, t[3] = { 0 }, half, k, det, a;

  g_return_val_if_fail (truth != NULL && erred != NULL, 0);
  g_return_val_if_fail (p0 < p1 && p1 < truth->info.n_pulses && truth->info.n_pulses == erred->info.n_pulses, 0);
  k = 4 * G_PI * truth->info.fc / EF_C;
  half = 0.5 * (double) (p1 - p0);
  /* Least squares of y = a x^2 + b x + c: the normal equations of the sums of x^0..x^4. */
  for (guint64 p = p0; p <= p1; p++)
    {
      double x = ((double) (p - p0) - half) / half;
      double y = k * (antenna_range (&erred->pulses[p]) - antenna_range (&truth->pulses[p]));
      double xp = 1;

      for (int i = 0; i < 5; i++, xp *= x)
        {
          s[i] += xp;
          if (i < 3)
            t[i] += xp * y;
        }
    }
  /* | s4 s3 s2 | |a|   |t2|
   * | s3 s2 s1 | |b| = |t1|
   * | s2 s1 s0 | |c|   |t0| (Cramer's rule, a only) */
  det = s[4] * (s[2] * s[0] - s[1] * s[1]) - s[3] * (s[3] * s[0] - s[1] * s[2]) + s[2] * (s[3] * s[1] - s[2] * s[2]);
  if (det == 0)
    return 0;
  a = t[2] * (s[2] * s[0] - s[1] * s[1]) - s[3] * (t[1] * s[0] - s[1] * t[0]) + s[2] * (t[1] * s[1] - s[2] * t[0]);
  return a / det;
}

double
ef_teach_interp_ser_db (EfDataset *ds, const EfGrid *grid, guint col, guint row, guint edge, guint64 first,
                        guint64 count, guint k0, guint nk, const EfTeachFormOptions *options, GError **error)
{
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfMfBlock) block = NULL;
  g_autofree EfCf32 *samples = NULL;
  g_autofree EfCf32 *bp = NULL;
  g_autofree EfCf64 *mf = NULL;
  EfGrid sub;
  EfRect rect;
  guint ns;
  gsize n;

  g_return_val_if_fail (ds != NULL && grid != NULL && edge > 0, NAN);
  if (!ef_mf_check_info (&ds->info, error))
    return NAN;
  ns = (guint) ds->info.n_samples;
  if (first > ds->info.n_pulses || count == 0 || count > ds->info.n_pulses - first || nk == 0 || k0 >= ns
      || nk > ns - k0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Pulses %" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT " and samples %u+%u are not a window of the "
                   "collection", first, count, k0, nk);
      return NAN;
    }
  /* The patch, as a grid of its own. */
  edge = MIN (edge, MIN (grid->width, grid->height));
  col = MIN (col > edge / 2 ? col - edge / 2 : 0, grid->width - edge);
  row = MIN (row > edge / 2 ? row - edge / 2 : 0, grid->height - edge);
  sub = *grid;
  ef_grid_pixel_position (grid, col, row, sub.origin);
  sub.width = edge;
  sub.height = edge;
  n = ef_grid_n_pixels (&sub);
  bp = g_new0 (EfCf32, n);
  mf = g_new0 (EfCf64, n);
  if (!ef_teach_form_ex (ds, &sub, first, count, k0, nk, options, 0, bp, NULL, error))
    return NAN;

  if (options != NULL && options->window != EF_WINDOW_RECT)
    {
      rp.window = options->window;
      rp.az_window = options->window;
      ef_aperture_init (&rp.aperture, ds->pulses, 0, ds->info.n_pulses, 1);
    }
  block = ef_mf_block_new (&ds->info, &rp, MF_CHUNK, TRUE, error);
  if (block == NULL)
    return NAN;
  samples = g_new (EfCf32, (gsize) MF_CHUNK * ns);
  rect = (EfRect) { 0, 0, edge, edge };
  for (guint64 done = 0; done < count;)
    {
      guint c = (guint) MIN (count - done, (guint64) MF_CHUNK);

      if (!ef_dataset_read_block (ds, first + done, c, samples, error))
        return NAN;
      for (guint i = 0; i < c; i++)
        {
          EfCf32 *s = samples + (gsize) i * ns;

          memset (s, 0, sizeof *s * k0);
          memset (s + k0 + nk, 0, sizeof *s * (ns - k0 - nk));
        }
      if (!ef_mf_block_fill (block, ds->pulses + first + done, samples, c, NULL, error))
        return NAN;
      ef_mf_form_f64 (&sub, block, &rect, mf, 0);
      done += c;
    }
  return ef_ser_db_f32_f64 (bp, mf, n);
}
