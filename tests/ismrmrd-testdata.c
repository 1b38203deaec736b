/* ismrmrd-testdata.c: small valid ISMRMRD files, and where their numbers lie in the bytes, for tests and fuzzing. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <hdf5.h>
#include <ismrmrd/dataset.h>

#include "ef-error.h"
#include "ismrmrd-testdata.h"

char *
ef_test_ismrmrd_xml (const char *const matrix[3], const char *const fov[3])
{
  return g_strdup_printf ("<?xml version=\"1.0\"?>\n"
                          "<ismrmrdHeader xmlns=\"http://www.ismrm.org/ISMRMRD\">\n"
                          "  <encoding>\n"
                          "    <encodedSpace>\n"
                          "      <matrixSize><x>%s</x><y>%s</y><z>%s</z></matrixSize>\n"
                          "      <fieldOfView_mm><x>%s</x><y>%s</y><z>%s</z></fieldOfView_mm>\n"
                          "    </encodedSpace>\n"
                          "    <trajectory>radial</trajectory>\n"
                          "  </encoding>\n"
                          "</ismrmrdHeader>\n", matrix[0], matrix[1], matrix[2], fov[0], fov[1], fov[2]);
}

gboolean
ef_test_ismrmrd_write (const char *path, guint n_acq, guint n_samples, guint n_coils, const char *xml, GError **error)
{
  ISMRMRD_Dataset dset;
  gboolean ok = TRUE;

  if (g_unlink (path) != 0 && errno != ENOENT)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot replace %s", path);
      return FALSE;
    }
  if (ismrmrd_init_dataset (&dset, path, "/dataset") != ISMRMRD_NOERROR
      || ismrmrd_open_dataset (&dset, true) != ISMRMRD_NOERROR)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot create %s", path);
      return FALSE;
    }
  if (xml != NULL && ismrmrd_write_header (&dset, xml) != ISMRMRD_NOERROR)
    ok = FALSE;
  for (guint a = 0; a < n_acq && ok; a++)
    {
      ISMRMRD_Acquisition acq;
      double th = G_PI * a / MAX (n_acq, 1);

      ismrmrd_init_acquisition (&acq);
      acq.head.measurement_uid = EF_TEST_ISMRMRD_UID + a;
      acq.head.number_of_samples = (uint16_t) n_samples;
      acq.head.active_channels = (uint16_t) n_coils;
      acq.head.available_channels = (uint16_t) n_coils;
      acq.head.trajectory_dimensions = 2;
      acq.head.idx.kspace_encode_step_1 = (uint16_t) a;
      acq.head.center_sample = (uint16_t) (n_samples / 2);
      ok = ismrmrd_make_consistent_acquisition (&acq) == ISMRMRD_NOERROR;
      for (guint s = 0; s < n_samples && ok; s++)
        {
          double r = ((double) s - n_samples / 2.0) / MAX (n_samples, 1);
          acq.traj[2 * s] = (float) (r * cos (th));
          acq.traj[2 * s + 1] = (float) (r * sin (th));
          for (guint c = 0; c < n_coils; c++)
            acq.data[(gsize) c * n_samples + s] = (float) exp (-30 * r * r) * (1.0f + 0.1f * c) + I * (float) (0.01 * a);
        }
      ok = ok && ismrmrd_append_acquisition (&dset, &acq) == ISMRMRD_NOERROR;
      ismrmrd_cleanup_acquisition (&acq);
    }
  if (ismrmrd_close_dataset (&dset) != ISMRMRD_NOERROR)
    ok = FALSE;
  if (!ok)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write %s", path);
  return ok;
}

EfTestIsmrmrdField *
ef_test_ismrmrd_fields (const char *path)
{
  static const char *const names[] = {
    "number_of_samples", "active_channels", "available_channels", "trajectory_dimensions", "discard_pre",
    "discard_post", "center_sample", "encoding_space_ref", "flags", "scan_counter",
  };
  static const char *const idx_names[] = {
    "kspace_encode_step_1", "kspace_encode_step_2", "average", "slice", "contrast", "phase", "repetition", "set",
    "segment",
  };
  GArray *out = g_array_new (TRUE, TRUE, sizeof (EfTestIsmrmrdField));
  hid_t f, ds, type, head, idx;
  int hi, ii;

  f = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ds = f >= 0 ? H5Dopen2 (f, "/dataset/data", H5P_DEFAULT) : -1;
  type = ds >= 0 ? H5Dget_type (ds) : -1;
  hi = type >= 0 ? H5Tget_member_index (type, "head") : -1;
  head = hi >= 0 ? H5Tget_member_type (type, (unsigned) hi) : -1;
  if (head >= 0)
    {
      guint base = (guint) H5Tget_member_offset (type, (unsigned) hi);

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          int m = H5Tget_member_index (head, names[i]);
          if (m >= 0)
            {
              hid_t mt = H5Tget_member_type (head, (unsigned) m);
              EfTestIsmrmrdField fl = { names[i], base + (guint) H5Tget_member_offset (head, (unsigned) m),
                                        (guint) H5Tget_size (mt) };
              g_array_append_val (out, fl);
              H5Tclose (mt);
            }
        }
      ii = H5Tget_member_index (head, "idx");
      idx = ii >= 0 ? H5Tget_member_type (head, (unsigned) ii) : -1;
      for (guint i = 0; idx >= 0 && i < G_N_ELEMENTS (idx_names); i++)
        {
          int m = H5Tget_member_index (idx, idx_names[i]);
          if (m >= 0)
            {
              hid_t mt = H5Tget_member_type (idx, (unsigned) m);
              EfTestIsmrmrdField fl = { idx_names[i], base + (guint) H5Tget_member_offset (head, (unsigned) ii)
                                                      + (guint) H5Tget_member_offset (idx, (unsigned) m),
                                        (guint) H5Tget_size (mt) };
              g_array_append_val (out, fl);
              H5Tclose (mt);
            }
        }
      if (idx >= 0)
        H5Tclose (idx);
      H5Tclose (head);
    }
  if (type >= 0) H5Tclose (type);
  if (ds >= 0) H5Dclose (ds);
  if (f >= 0) H5Fclose (f);
  if (out->len == 0)
    {
      g_array_unref (out);
      return NULL;
    }
  return (EfTestIsmrmrdField *) g_array_free (out, FALSE);
}

GArray *
ef_test_ismrmrd_find_heads (const guint8 *file, gsize len)
{
  GArray *heads = g_array_new (FALSE, FALSE, sizeof (gsize));
  /* measurement_uid follows version (2 bytes) and flags (8 bytes), packed */
  const gsize uid_at = 10;

  for (gsize i = uid_at; i + 4 <= len; i++)
    {
      guint32 v;
      memcpy (&v, file + i, 4);
      v = GUINT32_FROM_LE (v);
      if (v - EF_TEST_ISMRMRD_UID < (1u << 16) && v - EF_TEST_ISMRMRD_UID == heads->len)
        {
          gsize at = i - uid_at;
          g_array_append_val (heads, at);
        }
    }
  return heads;
}

gboolean
ef_test_ismrmrd_find_count (const guint8 *file, gsize len, guint n_acq, gsize *offset)
{
  guint8 pattern[16];
  guint64 le = GUINT64_TO_LE ((guint64) n_acq);
  gboolean found = FALSE;

  memcpy (pattern, &le, 8);
  memset (pattern + 8, 0xff, 8);
  for (gsize i = 0; i + sizeof pattern <= len; i++)
    if (memcmp (file + i, pattern, sizeof pattern) == 0)
      {
        if (found)
          return FALSE;   /* ambiguous */
        *offset = i;
        found = TRUE;
      }
  return found;
}
