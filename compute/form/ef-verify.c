/* ef-verify.c: exact float64 backprojection at sampled pixels, and the SER of an image against it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-verify"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ef-bp.h"
#include "ef-error.h"
#include "ef-verify.h"

#define DEFAULT_PIXELS 256
#define DEFAULT_BLOCK 256

void
ef_verify_params_init (EfVerifyParams *params)
{
  g_return_if_fail (params != NULL);
  params->n_pixels = DEFAULT_PIXELS;
  params->seed = 1;
  params->first_pulse = 0;
  params->n_pulses = 0;
  params->pulse_stride = 1;
  params->block_size = DEFAULT_BLOCK;
}

/* n distinct pixel indices below total, in increasing order; all of them when n >= total. */
static guint64 *
sample_pixels (guint64 total, guint n, guint64 seed, guint *n_out)
{
  guint32 seed_words[2] = { (guint32) seed, (guint32) (seed >> 32) };
  g_autoptr (GRand) rand = g_rand_new_with_seed_array (seed_words, 2);
  g_autoptr (GHashTable) seen = NULL;
  guint64 *idx;

  if (n >= total)
    {
      idx = g_new (guint64, total);
      for (guint64 i = 0; i < total; i++)
        idx[i] = i;
      *n_out = (guint) total;
      return idx;
    }
  idx = g_new (guint64, n);
  seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint k = 0; k < n;)
    {
      guint64 v = (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand)) % total;

      if (g_hash_table_contains (seen, &v))
        continue;
      g_hash_table_add (seen, g_memdup2 (&v, sizeof v));
      idx[k++] = v;
    }
  *n_out = n;
  return idx;
}

static int
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

gboolean
ef_verify_image (EfDataset *dataset, const EfRangeParams *range, const EfGrid *grid, const EfCf32 *image,
                 const EfVerifyParams *params, GCancellable *cancellable, EfVerifyResult *result,
                 GError **error)
{
  g_autoptr (EfRangeCompressor) rc = NULL;
  g_autoptr (EfProfiles) profiles = NULL;
  g_autofree guint64 *pixels = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfPulse *pulses = NULL;
  g_autofree EfCf32 *samples = NULL;
  guint n_px, block, stride;
  guint64 first, avail, n_used, done = 0;
  gsize ns;
  gint64 t0 = g_get_monotonic_time ();
  double signal = 0, err = 0;

  g_return_val_if_fail (dataset != NULL && range != NULL && grid != NULL && image != NULL, FALSE);
  g_return_val_if_fail (params != NULL && result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  if (grid->width == 0 || grid->height == 0 || params->n_pixels == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "There are no pixels to check");
      return FALSE;
    }
  first = params->first_pulse;
  if (first >= dataset->info.n_pulses)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The first pulse %" G_GUINT64_FORMAT " is past the end (%" G_GUINT64_FORMAT " pulses)",
                   first, dataset->info.n_pulses);
      return FALSE;
    }
  stride = MAX (params->pulse_stride, 1u);
  avail = dataset->info.n_pulses - first;
  if (params->n_pulses > 0)
    avail = MIN (avail, params->n_pulses);
  n_used = (avail + stride - 1) / stride;
  block = CLAMP (params->block_size, 1u, 4096u);
  ns = dataset->info.n_samples;

  /* The image's cross-range weighting spanned the pulses it was formed from: the same ones here. */
  {
    EfRangeParams rp = *range;

    ef_aperture_init (&rp.aperture, dataset->pulses, first, n_used, stride);
    rc = ef_range_compressor_new (&dataset->info, &rp, TRUE, error);
  }
  if (rc == NULL)
    return FALSE;
  profiles = ef_profiles_new (block, ef_range_compressor_n_bins (rc), TRUE, error);
  if (profiles == NULL)
    return FALSE;
  pulses = g_new (EfPulse, block);
  samples = g_try_new (EfCf32, (gsize) block * ns);
  if (samples == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for %u pulses",
                   block);
      return FALSE;
    }

  pixels = sample_pixels (ef_grid_n_pixels (grid), params->n_pixels, params->seed, &n_px);
  qsort (pixels, n_px, sizeof *pixels, cmp_u64);
  ref = g_new0 (EfCf64, n_px);

  while (done < n_used)
    {
      guint count = (guint) MIN ((guint64) block, n_used - done);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      /* The same pulses as the job: contiguous runs are read in one call. */
      if (stride == 1)
        {
          guint64 p0 = first + done;

          memcpy (pulses, dataset->pulses + p0, count * sizeof (EfPulse));
          if (!ef_dataset_read_block (dataset, p0, count, samples, error))
            return FALSE;
        }
      else
        for (guint i = 0; i < count; i++)
          {
            guint64 p = first + (done + i) * stride;

            pulses[i] = dataset->pulses[p];
            if (!ef_dataset_read_block (dataset, p, 1, samples + (gsize) i * ns, error))
              return FALSE;
          }
      if (!ef_range_compress (rc, pulses, samples, count, profiles, NULL, error))
        return FALSE;
      for (guint k = 0; k < n_px; k++)
        {
          EfRect px = { (guint) (pixels[k] % grid->width), (guint) (pixels[k] / grid->width), 1, 1 };

          ef_bp_reference_rect (grid, profiles, &px, &ref[k]);
        }
      done += count;
    }

  for (guint k = 0; k < n_px; k++)
    {
      EfCf64 d = (EfCf64) image[pixels[k]] - ref[k];

      signal += creal (ref[k]) * creal (ref[k]) + cimag (ref[k]) * cimag (ref[k]);
      err += creal (d) * creal (d) + cimag (d) * cimag (d);
    }
  result->n_pixels = n_px;
  result->n_pulses = n_used;
  result->ref_rms = sqrt (signal / n_px);
  result->ser_db = err > 0 ? 10.0 * log10 (signal / err) : INFINITY;
  if (signal == 0 && err == 0)
    result->ser_db = NAN;
  result->seconds = (g_get_monotonic_time () - t0) / 1e6;
  return TRUE;
}
