/* ef-ref-bp.c: float64 images of whole collections through the device yardstick (ef-ref-bp.cu). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ref-bp"
#include "config.h"

#include "ef-error.h"
#include "ef-ref-bp.h"

#define REF_BLOCK 256u

static EfCf64 *
read_out (EfRefBp *ref, const EfGrid *grid, GError **error)
{
  g_autofree EfCf64 *img = g_try_new (EfCf64, ef_grid_n_pixels (grid));

  if (img == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No host memory for a %u x %u float64 image",
                   grid->width, grid->height);
      return NULL;
    }
  if (!ef_ref_bp_read (ref, img, error))
    return NULL;
  return g_steal_pointer (&img);
}

EfCf64 *
ef_ref_bp_form (const EfDatasetInfo *info, const EfPulse *pulses, const EfCf32 *samples, guint n_pulses,
                const EfRangeParams *rp, const EfGrid *grid, GError **error)
{
  g_autoptr (EfRangeCompressor) rc = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  g_autoptr (EfRefBp) ref = NULL;
  guint n_bins;

  g_return_val_if_fail (info != NULL && pulses != NULL && samples != NULL && rp != NULL && grid != NULL, NULL);
  rc = ef_range_compressor_new (info, rp, TRUE, error);
  if (rc == NULL)
    return NULL;
  n_bins = ef_range_compressor_n_bins (rc);
  prof = ef_profiles_new (REF_BLOCK, n_bins, TRUE, error);
  if (prof == NULL)
    return NULL;
  ref = ef_ref_bp_new (grid, REF_BLOCK, n_bins, error);
  if (ref == NULL)
    return NULL;
  for (guint p0 = 0; p0 < n_pulses; p0 += REF_BLOCK)
    {
      guint m = MIN (REF_BLOCK, n_pulses - p0);

      if (!ef_range_compress (rc, pulses + p0, samples + (gsize) p0 * info->n_samples, m, prof, NULL, error)
          || !ef_ref_bp_add (ref, prof, error))
        return NULL;
    }
  return read_out (ref, grid, error);
}

EfCf64 *
ef_ref_bp_form_profiles (const EfProfiles *profiles, const EfGrid *grid, GError **error)
{
  g_autoptr (EfRefBp) ref = NULL;

  g_return_val_if_fail (profiles != NULL && profiles->data64 != NULL && grid != NULL, NULL);
  ref = ef_ref_bp_new (grid, MIN (REF_BLOCK, MAX (profiles->n_pulses, 1u)), profiles->n_bins, error);
  if (ref == NULL)
    return NULL;
  for (guint p0 = 0; p0 < profiles->n_pulses; p0 += REF_BLOCK)
    {
      EfProfiles view = *profiles;

      view.n_pulses = MIN (REF_BLOCK, profiles->n_pulses - p0);
      view.meta = profiles->meta + p0;
      view.data64 = profiles->data64 + (gsize) p0 * profiles->n_bins;
      if (!ef_ref_bp_add (ref, &view, error))
        return NULL;
    }
  return read_out (ref, grid, error);
}
