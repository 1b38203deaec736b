/* ef-ismrmrd.c: ISMRMRD raw data through libismrmrd's C interface: acquisitions in, k-space samples out. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ismrmrd"
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/ismrmrd.h>

#include "ef-error.h"
#include "ef-ismrmrd.h"

#define EF_ISMRMRD_GROUP "/dataset"

/* libismrmrd reports through one process-wide handler; keep the calling thread's last message for the
 * GError instead of letting it print. */
static GPrivate last_message = G_PRIVATE_INIT (g_free);

static void
ef_ismrmrd_on_error (const char *file, int line, const char *function, int code, const char *msg)
{
  (void) file;
  (void) line;
  g_private_replace (&last_message, g_strdup_printf ("%s (%s, code %d)", msg != NULL ? msg : "error",
                                                     function != NULL ? function : "?", code));
}

static void
ef_ismrmrd_init (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      ismrmrd_set_error_handler (ef_ismrmrd_on_error);
      g_once_init_leave (&once, 1);
    }
  g_private_replace (&last_message, NULL);
}

static gboolean
ef_ismrmrd_fail (GError **error, int code, const char *path, const char *what)
{
  const char *why = g_private_get (&last_message);

  g_set_error (error, EF_IO_ERROR, code, "“%s”: %s%s%s", path, what, why != NULL ? ": " : "", why != NULL ? why : "");
  return FALSE;
}

gboolean
ef_ismrmrd_read (const char *path, guint channel, double traj_scale, EfMriTraj **traj, EfCf64 **data,
                 GError **error)
{
  ISMRMRD_Dataset dset;
  ISMRMRD_Acquisition acq;
  g_autoptr (GArray) k = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) d = g_array_new (FALSE, FALSE, sizeof (EfCf64));
  guint dim = 0;
  uint32_t n_acq;
  gboolean ok = TRUE;
  EfMriTraj *t;

  g_return_val_if_fail (path != NULL && traj != NULL && data != NULL, FALSE);
  *traj = NULL;
  *data = NULL;
  if (!(traj_scale > 0) || !isfinite (traj_scale))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: trajectory scale %g is not positive", path,
                   traj_scale);
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "“%s” is not a readable file", path);
      return FALSE;
    }
  ef_ismrmrd_init ();
  if (ismrmrd_init_dataset (&dset, path, EF_ISMRMRD_GROUP) != ISMRMRD_NOERROR)
    return ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot set up the dataset");
  if (ismrmrd_open_dataset (&dset, false) != ISMRMRD_NOERROR)
    {
      ismrmrd_close_dataset (&dset);
      return ef_ismrmrd_fail (error, EF_IO_ERROR_FORMAT, path, "not an ISMRMRD (HDF5) file");
    }
  n_acq = ismrmrd_get_number_of_acquisitions (&dset);
  ismrmrd_init_acquisition (&acq);
  for (uint32_t a = 0; a < n_acq && ok; a++)
    {
      const ISMRMRD_AcquisitionHeader *h = &acq.head;
      guint n, first, last;

      if (ismrmrd_read_acquisition (&dset, a, &acq) != ISMRMRD_NOERROR)
        {
          ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FORMAT, path, "an acquisition cannot be read");
          break;
        }
      if (ismrmrd_is_flag_set (h->flags, ISMRMRD_ACQ_IS_NOISE_MEASUREMENT))
        continue;
      n = h->number_of_samples;
      if (h->trajectory_dimensions != 2 && h->trajectory_dimensions != 3)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "“%s”: acquisition %u has a %u-D trajectory; "
                       "non-Cartesian reconstruction needs 2-D or 3-D k-space positions", path, a,
                       h->trajectory_dimensions);
          ok = FALSE;
          break;
        }
      if (dim != 0 && h->trajectory_dimensions != dim)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u's trajectory is %u-D, "
                       "the earlier ones' %u-D", path, a, h->trajectory_dimensions, dim);
          ok = FALSE;
          break;
        }
      dim = h->trajectory_dimensions;
      if (channel >= h->active_channels)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u has %u channels, not "
                       "channel %u", path, a, h->active_channels, channel);
          ok = FALSE;
          break;
        }
      if (acq.traj == NULL || acq.data == NULL || (guint) h->discard_pre + h->discard_post > n)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u is malformed", path, a);
          ok = FALSE;
          break;
        }
      first = h->discard_pre;
      last = n - h->discard_post;
      if ((guint64) d->len + (last - first) > EF_MRI_MAX_SAMPLES)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” holds more samples than %" G_GUINT64_FORMAT,
                       path, (guint64) EF_MRI_MAX_SAMPLES);
          ok = FALSE;
          break;
        }
      for (guint s = first; s < last && ok; s++)
        {
          const float *kk = &acq.traj[(gsize) s * dim];
          const complex_float_t v = acq.data[(gsize) channel * n + s];
          EfCf64 z = crealf (v) + I * cimagf (v);

          for (guint c = 0; c < dim; c++)
            {
              double kc = kk[c] * traj_scale;
              ok = ok && isfinite (kc);
              g_array_append_val (k, kc);
            }
          g_array_append_val (d, z);
        }
      if (!ok)
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u has a trajectory point that "
                     "is not finite", path, a);
    }
  ismrmrd_cleanup_acquisition (&acq);
  ismrmrd_close_dataset (&dset);
  if (!ok)
    return FALSE;
  if (d->len == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” holds no imaging acquisition", path);
      return FALSE;
    }
  t = ef_mri_traj_new (dim, d->len, error);
  if (t == NULL)
    return FALSE;
  memcpy (t->k, k->data, (gsize) d->len * dim * sizeof (double));
  *traj = t;
  *data = (EfCf64 *) g_array_free (g_steal_pointer (&d), FALSE);
  return TRUE;
}

gboolean
ef_ismrmrd_write (const char *path, const EfMriTraj *t, const EfCf64 *d, guint samples_per_acq, double traj_scale,
                  GError **error)
{
  ISMRMRD_Dataset dset;
  gboolean ok = TRUE;

  g_return_val_if_fail (path != NULL && t != NULL && d != NULL, FALSE);
  if (samples_per_acq == 0 || samples_per_acq > G_MAXUINT16 || !(traj_scale > 0))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: %u samples an acquisition (at most %u) or "
                   "trajectory scale %g is out of range", path, samples_per_acq, G_MAXUINT16, traj_scale);
      return FALSE;
    }
  if (g_unlink (path) != 0 && errno != ENOENT)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot replace “%s”: %s", path, g_strerror (errno));
      return FALSE;
    }
  ef_ismrmrd_init ();
  if (ismrmrd_init_dataset (&dset, path, EF_ISMRMRD_GROUP) != ISMRMRD_NOERROR)
    return ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot set up the dataset");
  if (ismrmrd_open_dataset (&dset, true) != ISMRMRD_NOERROR)
    {
      ismrmrd_close_dataset (&dset);
      return ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot create the file");
    }
  for (gsize s0 = 0; s0 < t->m && ok; s0 += samples_per_acq)
    {
      ISMRMRD_Acquisition acq;
      guint n = (guint) MIN ((gsize) samples_per_acq, t->m - s0);

      ismrmrd_init_acquisition (&acq);
      acq.head.number_of_samples = (uint16_t) n;
      acq.head.active_channels = 1;
      acq.head.available_channels = 1;
      acq.head.trajectory_dimensions = (uint16_t) t->dim;
      acq.head.scan_counter = (uint32_t) (s0 / samples_per_acq);
      if (ismrmrd_make_consistent_acquisition (&acq) != ISMRMRD_NOERROR)
        ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot allocate an acquisition");
      else
        {
          for (guint s = 0; s < n; s++)
            {
              for (guint c = 0; c < t->dim; c++)
                acq.traj[(gsize) s * t->dim + c] = (float) (t->k[(s0 + s) * t->dim + c] / traj_scale);
              acq.data[s] = (float) creal (d[s0 + s]) + I * (float) cimag (d[s0 + s]);
            }
          if (ismrmrd_append_acquisition (&dset, &acq) != ISMRMRD_NOERROR)
            ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot write an acquisition");
        }
      ismrmrd_cleanup_acquisition (&acq);
    }
  if (ismrmrd_close_dataset (&dset) != ISMRMRD_NOERROR && ok)
    ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot close the file");
  return ok;
}
