/* ef-fuzz-ismrmrd.c: structure-aware fuzz target for the ISMRMRD reader: valid files whose numbers the input sets. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-fuzz"
#include "config.h"

#include <complex.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ef-error.h"
#include "ef-fuzz-targets.h"
#include "ef-ismrmrd-private.h"
#include "ismrmrd-testdata.h"

/*
 * The structure-aware target writes a valid ISMRMRD file of 6 acquisitions of 16 samples on 2 channels,
 * with an XML header whose encodedSpace matrixSize and fieldOfView_mm the input may replace by any text,
 * then replaces numbers in the stored bytes: acquisition header fields (number_of_samples,
 * active_channels, trajectory_dimensions, discards, encoding counters, flags) of one acquisition or all,
 * and the acquisition dataset's size, or renames a member of the stored types (one letter changed, so
 * that the file stays the same size). The input is a list of edits of three bytes,
 * [target, value kind, acquisition], each with eight more raw bytes when the kind asks for them.
 * The file is read in-process (for the coverage), for every channel and for channel 1; a refusal must
 * be an EF_IO_ERROR with a message.
 */

static const guint64 boundary_u64[] = {
  0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 32767, 32768, 65535, 65536,
  G_MAXINT32, (guint64) G_MAXINT32 + 1, G_MAXUINT32, (guint64) G_MAXUINT32 + 1, G_GUINT64_CONSTANT (1) << 24,
  (G_GUINT64_CONSTANT (1) << 24) + 1, G_GUINT64_CONSTANT (1) << 40, G_MAXINT64, (guint64) G_MAXINT64 + 1, G_MAXUINT64,
};
static const char *const boundary_text[] = {
  "0", "1", "64", "4096", "4097", "2147483648", "4294967296", "18446744073709551616", "-1", "nan", "inf", "-inf",
  "1e300", "1e-300", "-0", "", " 64 ", "0x40", "250.5", "1e6", "999999", "abc",
};
enum { N_BOUNDARY_U64 = G_N_ELEMENTS (boundary_u64), RAW_KIND = N_BOUNDARY_U64, N_KINDS_U64 };
/* Names in the stored types that a rename edit may spoil. */
static const char *const member_names[] = {
  "number_of_samples", "active_channels", "trajectory_dimensions", "user_float", "position", "idx",
  "kspace_encode_step_1", "head", "traj", "data", "real", "imag",
};
#define N_TARGETS(n_fields) (6 + (n_fields) + 2)

typedef struct {
  const guint8 *data;
  gsize         size, pos;
} Input;

static guint8
next_byte (Input *in)
{
  return in->pos < in->size ? in->data[in->pos++] : 0;
}

static void
put_le (guint8 *at, guint size, guint64 v)
{
  for (guint b = 0; b < size; b++)
    at[b] = (guint8) (v >> (8 * b));
}

static void
expect_io_error (gboolean ok, GError *error)
{
  if (!ok && (error == NULL || error->domain != EF_IO_ERROR || error->message == NULL || error->message[0] == '\0'))
    g_error ("The ISMRMRD reader failed without an EF_IO_ERROR (%s)",
             error != NULL ? g_quark_to_string (error->domain) : "no error");
}

/* Reads path in-process, all channels and channel 1; TRUE when it opened. */
static gboolean
read_file (const char *path)
{
  GError *error = NULL;
  EfMriTraj *t = NULL;
  EfCf64 *d = NULL;
  EfIsmrmrdInfo info;
  gboolean ok;
  volatile double sink = 0;

  ok = ef_ismrmrd_read_in_process (path, EF_ISMRMRD_ALL_CHANNELS, 64, &info, &t, &d, &error);
  expect_io_error (ok, error);
  g_clear_error (&error);
  if (ok)
    {
      for (gsize i = 0; i < t->m * t->dim; i++)
        sink += t->k[i];
      for (gsize i = 0; i < t->m * info.n_coils; i++)
        sink += creal (d[i]);
      ef_mri_traj_free (g_steal_pointer (&t));
      g_clear_pointer (&d, g_free);
      if (ef_ismrmrd_read_in_process (path, 1, 1.0, &info, &t, &d, &error))
        {
          ef_mri_traj_free (t);
          g_free (d);
        }
      expect_io_error (TRUE, error);
      g_clear_error (&error);
    }
  (void) sink;
  return ok;
}

/* A fixed temporary path (HDF5 cannot open a memfd's /proc path), removed at exit. */
static char *fuzz_path;

static void
remove_fuzz_path (void)
{
  if (fuzz_path != NULL)
    g_unlink (fuzz_path);
}

static const char *
get_fuzz_path (void)
{
  if (fuzz_path == NULL)
    {
      int fd = g_file_open_tmp ("ef-fuzz-ismrmrd-XXXXXX.h5", &fuzz_path, NULL);
      if (fd < 0)
        g_error ("Cannot create a temporary file for the fuzzer: %s", g_strerror (errno));
      close (fd);
      atexit (remove_fuzz_path);
    }
  return fuzz_path;
}

#define N_ACQ 6
#define N_SAMPLES 16
#define N_COILS 2

gboolean
ef_fuzz_ismrmrd_fields (const guint8 *data, gsize size)
{
  static EfTestIsmrmrdField *fields;
  static guint n_fields;
  static char *default_xml;          /* the header of an input without XML edits, and its file */
  static GByteArray *default_file;
  const char *matrix[3] = { "64", "64", "1" }, *fov[3] = { "250", "250", "5" };
  const char *path = get_fuzz_path ();
  Input in = { data, size, 0 };
  g_autofree char *xml = NULL;
  g_autofree guint8 *bytes = NULL;
  g_autoptr (GArray) heads = NULL;
  g_autoptr (GError) error = NULL;
  gsize len, count_at = 0;
  gboolean have_count;

  if (fields == NULL)
    {
      if (!ef_test_ismrmrd_write (path, N_ACQ, N_SAMPLES, N_COILS, NULL, &error)
          || (fields = ef_test_ismrmrd_fields (path)) == NULL)
        g_error ("Cannot write the ISMRMRD template");
      while (fields[n_fields].name != NULL)
        n_fields++;
    }
  /* First pass: XML edits (targets 0..5), which the file is written with. */
  while (in.pos < in.size)
    {
      guint8 target = next_byte (&in), kind = next_byte (&in), acq = next_byte (&in);
      guint t = target % N_TARGETS (n_fields);

      if (t < 6)
        (t < 3 ? matrix : fov)[t % 3] = boundary_text[kind % G_N_ELEMENTS (boundary_text)];
      else if (kind % N_KINDS_U64 == RAW_KIND)
        in.pos = MIN (in.pos + 8, in.size);
      (void) acq;
    }
  /* writing through HDF5 is most of an input's time: the file with the default header is kept */
  xml = ef_test_ismrmrd_xml (matrix, fov);
  if (default_xml == NULL)
    {
      const char *m0[3] = { "64", "64", "1" }, *f0[3] = { "250", "250", "5" };
      default_xml = ef_test_ismrmrd_xml (m0, f0);
    }
  if (default_file != NULL && strcmp (xml, default_xml) == 0)
    {
      bytes = g_memdup2 (default_file->data, default_file->len);
      len = default_file->len;
    }
  else
    {
      if (!ef_test_ismrmrd_write (path, N_ACQ, N_SAMPLES, N_COILS, xml, &error))
        g_error ("Cannot write the ISMRMRD file: %s", error->message);
      if (!g_file_get_contents (path, (char **) &bytes, &len, &error))
        g_error ("Cannot read back the ISMRMRD file: %s", error->message);
      if (default_file == NULL && strcmp (xml, default_xml) == 0)
        {
          default_file = g_byte_array_new ();
          g_byte_array_append (default_file, bytes, (guint) len);
        }
    }
  heads = ef_test_ismrmrd_find_heads (bytes, len);
  have_count = ef_test_ismrmrd_find_count (bytes, len, N_ACQ, &count_at);
  if (heads->len != N_ACQ)
    g_error ("The ISMRMRD template's headers were not found (%u of %u)", heads->len, N_ACQ);

  /* Second pass: the binary edits. */
  in.pos = 0;
  while (in.pos < in.size)
    {
      guint8 target = next_byte (&in), kind = next_byte (&in), acq = next_byte (&in);
      guint t = target % N_TARGETS (n_fields);
      guint64 v = 0;

      if (kind % N_KINDS_U64 == RAW_KIND)
        for (int i = 0; i < 8; i++)
          v = v << 8 | next_byte (&in);
      else
        v = boundary_u64[kind % N_KINDS_U64];
      if (t < 6)
        continue;
      if (t == 6 + n_fields + 1)
        {
          const char *name = member_names[kind % G_N_ELEMENTS (member_names)];
          guint8 *at = memmem (bytes, len, name, strlen (name));

          if (at != NULL)
            at[acq % strlen (name)] ^= 0x01;
          continue;
        }
      if (t == 6 + n_fields)
        {
          if (have_count)
            put_le (bytes + count_at, 8, v);
          continue;
        }
      /* acq: one acquisition (0 .. N_ACQ - 1) or, past that, all of them */
      for (guint a = acq % (N_ACQ + 1) == N_ACQ ? 0 : acq % (N_ACQ + 1);
           a < (acq % (N_ACQ + 1) == N_ACQ ? N_ACQ : acq % (N_ACQ + 1) + 1u); a++)
        put_le (bytes + g_array_index (heads, gsize, a) + fields[t - 6].offset, fields[t - 6].size, v);
    }
  if (!g_file_set_contents (path, (const char *) bytes, (gssize) len, &error))
    g_error ("Cannot write the ISMRMRD file: %s", error->message);
  return read_file (path);
}
