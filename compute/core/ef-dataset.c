/* ef-dataset.c: dataset lifetime, the in-memory dataset, validation and derived quantities. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-dataset"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-dataset.h"
#include "ef-error.h"

/* Sizes past these are treated as lies in a header, never allocated. */
#define EF_MAX_PULSES (G_GUINT64_CONSTANT (1) << 26)
#define EF_MAX_SAMPLES (G_GUINT64_CONSTANT (1) << 24)

EfDataset *
ef_dataset_alloc (const EfDatasetOps *ops)
{
  EfDataset *self = g_new0 (EfDataset, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->ops = ops;
  self->info.n_channels = 1;
  return self;
}

EfDataset *
ef_dataset_ref (EfDataset *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
ef_dataset_unref (EfDataset *self)
{
  if (self == NULL)
    return;
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  if (self->ops != NULL && self->ops->finalize != NULL)
    self->ops->finalize (self);
  ef_dataset_info_clear (&self->info);
  g_free (self->pulses);
  g_free (self);
}

gboolean
ef_dataset_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (out != NULL || count == 0, FALSE);

  if (first > self->info.n_pulses || count > self->info.n_pulses - first)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "Pulses %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " are past the last pulse (%" G_GUINT64_FORMAT ")",
                   first, first + count, self->info.n_pulses);
      return FALSE;
    }
  if (count == 0)
    return TRUE;
  return self->ops->read_block (self, first, count, out, error);
}

void
ef_dataset_info_clear (EfDatasetInfo *info)
{
  g_clear_pointer (&info->channel_names, g_strfreev);
  g_clear_pointer (&info->source, g_free);
  g_clear_pointer (&info->path, g_free);
}

void
ef_dataset_info_copy (const EfDatasetInfo *src, EfDatasetInfo *dst)
{
  *dst = *src;
  dst->channel_names = g_strdupv (src->channel_names);
  dst->source = g_strdup (src->source);
  dst->path = g_strdup (src->path);
}

/* The in-memory dataset: the simulator's output. */
typedef struct {
  EfCf32 *samples;  /* owned */
} MemoryPriv;

static gboolean
memory_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  MemoryPriv *priv = self->priv;
  gsize ns = self->info.n_samples;

  memcpy (out, priv->samples + first * ns, (gsize) count * ns * sizeof (EfCf32));
  return TRUE;
}

static void
memory_finalize (EfDataset *self)
{
  MemoryPriv *priv = self->priv;

  g_free (priv->samples);
  g_free (priv);
}

static const EfDatasetOps memory_ops = {
  .read_block = memory_read_block,
  .finalize = memory_finalize,
};

EfDataset *
ef_dataset_new_memory (const EfDatasetInfo *info, EfPulse *pulses, EfCf32 *samples)
{
  EfDataset *self = ef_dataset_alloc (&memory_ops);
  MemoryPriv *priv = g_new0 (MemoryPriv, 1);

  ef_dataset_info_copy (info, &self->info);
  if (self->info.source == NULL)
    self->info.source = g_strdup ("memory");
  if (self->info.n_channels == 0)
    self->info.n_channels = 1;
  self->pulses = pulses;
  priv->samples = samples;
  self->priv = priv;
  return self;
}

const EfCf32 *
ef_dataset_memory_samples (EfDataset *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (self->ops != &memory_ops)
    return NULL;
  return ((MemoryPriv *) self->priv)->samples;
}

static gboolean
vec_finite (const double v[3])
{
  return isfinite (v[0]) && isfinite (v[1]) && isfinite (v[2]);
}

gboolean
ef_dataset_validate (EfDataset *self, GError **error)
{
  const EfDatasetInfo *info = &self->info;

  if (info->n_pulses == 0 || info->n_samples == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The collection is empty (%" G_GUINT64_FORMAT " pulses of %" G_GUINT64_FORMAT " samples)",
                   info->n_pulses, info->n_samples);
      return FALSE;
    }
  if (info->n_pulses > EF_MAX_PULSES || info->n_samples > EF_MAX_SAMPLES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The collection claims %" G_GUINT64_FORMAT " pulses of %" G_GUINT64_FORMAT
                   " samples, beyond what Echoform accepts (%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT ")",
                   info->n_pulses, info->n_samples, EF_MAX_PULSES, EF_MAX_SAMPLES);
      return FALSE;
    }
  for (guint64 p = 0; p < info->n_pulses; p++)
    {
      const EfPulse *pu = &self->pulses[p];

      if (!vec_finite (pu->tx) || !vec_finite (pu->rcv) || !isfinite (pu->r0) || !isfinite (pu->sc0)
          || !isfinite (pu->scss))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "Pulse %" G_GUINT64_FORMAT " has a NaN or infinite position, range or frequency", p);
          return FALSE;
        }
      if (!(pu->scss > 0))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "Pulse %" G_GUINT64_FORMAT " has a sample spacing of %g: the samples must increase "
                       "monotonically", p, pu->scss);
          return FALSE;
        }
      if (!(pu->r0 > 0) || (pu->tx[0] == 0 && pu->tx[1] == 0 && pu->tx[2] == 0))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "Pulse %" G_GUINT64_FORMAT " has a zero antenna position or reference range", p);
          return FALSE;
        }
      if (info->domain == EF_DOMAIN_FX && !(pu->sc0 > 0))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "Pulse %" G_GUINT64_FORMAT " starts at %g Hz; FX frequencies must be positive", p,
                       pu->sc0);
          return FALSE;
        }
    }
  if (info->domain == EF_DOMAIN_RAW && !(info->sample_rate > 0 && isfinite (info->chirp_rate)
                                         && info->chirp_rate != 0 && info->chirp_duration > 0))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "RAW data needs a chirp rate, a chirp duration and a sampling rate");
      return FALSE;
    }
  return TRUE;
}

double
ef_dataset_range_resolution (const EfDataset *self)
{
  return self->info.bandwidth > 0 ? EF_C / (2.0 * self->info.bandwidth) : 0.0;
}

static double
pulse_azimuth (const EfPulse *p)
{
  double m[3] = { 0.5 * (p->tx[0] + p->rcv[0]), 0.5 * (p->tx[1] + p->rcv[1]), 0.5 * (p->tx[2] + p->rcv[2]) };
  return atan2 (m[1], m[0]);
}

double
ef_dataset_aperture_angle (const EfDataset *self)
{
  guint64 n = self->info.n_pulses;
  double total = 0, prev;

  if (n < 2)
    return 0;
  /* Sum the unwrapped azimuth steps so that a circular pass through +-180 degrees is measured right. */
  prev = pulse_azimuth (&self->pulses[0]);
  for (guint64 p = 1; p < n; p++)
    {
      double a = pulse_azimuth (&self->pulses[p]);
      double d = remainder (a - prev, 2 * G_PI);
      total += d;
      prev = a;
    }
  return fabs (total);
}

double
ef_dataset_crossrange_resolution (const EfDataset *self)
{
  double dtheta = ef_dataset_aperture_angle (self);
  double grazing = ef_dataset_mean_grazing (self);

  if (dtheta <= 0 || self->info.fc <= 0)
    return 0;
  /* The azimuth angle is measured in the ground plane; the slant-plane angle is smaller by cos(grazing). */
  return EF_C / self->info.fc / (2.0 * dtheta * cos (grazing));
}

double
ef_dataset_mean_standoff (const EfDataset *self)
{
  double s = 0;

  for (guint64 p = 0; p < self->info.n_pulses; p++)
    s += self->pulses[p].r0;
  return self->info.n_pulses ? s / (double) self->info.n_pulses : 0;
}

double
ef_dataset_mean_grazing (const EfDataset *self)
{
  double s = 0;

  for (guint64 p = 0; p < self->info.n_pulses; p++)
    {
      const double *a = self->pulses[p].tx;
      s += atan2 (a[2], hypot (a[0], a[1]));
    }
  return self->info.n_pulses ? s / (double) self->info.n_pulses : 0;
}

void
ef_dataset_ground_resolution (const EfDataset *self, double *range_m, double *cross_m)
{
  double rr, cr;

  g_return_if_fail (self != NULL);
  rr = ef_dataset_range_resolution (self) / MAX (cos (ef_dataset_mean_grazing (self)), 0.1);
  cr = ef_dataset_crossrange_resolution (self);
  if (!(cr > 0) || !isfinite (cr))
    cr = rr;
  if (range_m != NULL)
    *range_m = rr;
  if (cross_m != NULL)
    *cross_m = cr;
}
