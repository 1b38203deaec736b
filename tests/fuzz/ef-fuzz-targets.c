/* ef-fuzz-targets.c: feeds arbitrary bytes to the readers, for the fuzzers and the corpus regression test. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-fuzz"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cphd-testdata.h"
#include "ef-cphd.h"
#include "ef-dataset.h"
#include "ef-error.h"
#include "ef-fuzz-targets.h"
#if HAVE_MATIO
#include "ef-gotcha.h"
#endif

/* The readers take paths, so each input goes into a file that is rewritten for every input: an in-memory
 * file where that works, else a temporary file removed at exit. HDF5 (MATLAB v7.3) resolves the path it
 * is given and cannot open /proc/self/fd/N of a memfd, so the Gotcha target uses a real file. */
typedef struct {
  int      fd;
  char    *path;       /* owned */
  gboolean on_disk;
} FuzzFile;

static GPtrArray *files_to_remove;  /* owned paths */

static void
remove_files (void)
{
  for (guint i = 0; files_to_remove != NULL && i < files_to_remove->len; i++)
    g_unlink (g_ptr_array_index (files_to_remove, i));
}

static const char *
fuzz_file_put (FuzzFile *f, const char *name, const guint8 *data, gsize size)
{
  if (f->fd < 0)
    {
#ifdef MFD_CLOEXEC
      if (!f->on_disk)
        {
          f->fd = memfd_create (name, MFD_CLOEXEC);
          if (f->fd >= 0)
            f->path = g_strdup_printf ("/proc/self/fd/%d", f->fd);
        }
#endif
      if (f->fd < 0)
        {
          g_autofree char *tmpl = g_strdup_printf ("%s-XXXXXX", name);
          f->fd = g_file_open_tmp (tmpl, &f->path, NULL);
          if (f->fd < 0)
            g_error ("Cannot create a temporary file for the fuzzer: %s", g_strerror (errno));
          if (files_to_remove == NULL)
            {
              files_to_remove = g_ptr_array_new ();
              atexit (remove_files);
            }
          g_ptr_array_add (files_to_remove, f->path);
        }
    }
  if (ftruncate (f->fd, 0) != 0)
    g_error ("ftruncate: %s", g_strerror (errno));
  for (gsize done = 0; done < size;)
    {
      gssize w = pwrite (f->fd, data + done, size - done, (off_t) done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        g_error ("pwrite: %s", g_strerror (errno));
      done += (gsize) w;
    }
  return f->path;
}

/* Reads every pulse, in blocks of an odd size so that block edges fall everywhere, and touches every
 * sample so that a bad read shows up under the sanitizers. */
static void
read_everything (EfDataset *ds)
{
  const guint per_block = 7;
  gsize ns = ds->info.n_samples;
  g_autofree EfCf32 *buf = NULL;
  volatile float sink = 0;
  GError *error = NULL;

  g_assert (ds->info.n_pulses > 0 && ns > 0);
  buf = g_new (EfCf32, per_block * ns);
  for (guint64 first = 0; first < ds->info.n_pulses; first += per_block)
    {
      guint count = (guint) MIN ((guint64) per_block, ds->info.n_pulses - first);

      if (!ef_dataset_read_block (ds, first, count, buf, &error))
        {
          g_clear_error (&error);
          return;
        }
      for (gsize i = 0; i < count * ns; i++)
        sink += crealf (buf[i]) + cimagf (buf[i]);
    }
  /* Derived quantities walk the pulses; they must cope with whatever a reader accepted. */
  sink += (float) ef_dataset_range_resolution (ds) + (float) ef_dataset_crossrange_resolution (ds)
          + (float) ef_dataset_mean_standoff (ds) + (float) ef_dataset_mean_grazing (ds);
  (void) sink;
}

static void
expect_io_error (EfDataset *ds, GError *error)
{
  /* Every refusal carries an EF_IO_ERROR and a message. */
  if (ds == NULL && (error == NULL || error->domain != EF_IO_ERROR || error->message == NULL))
    g_error ("A reader failed without an EF_IO_ERROR (%s)", error ? g_quark_to_string (error->domain) : "no error");
}

/* The Gotcha reader turns a crash of its reading process into an error for the user; here it is a bug.
 * Running out of its processor time is not: that is the limit doing its work. The test is on the
 * message's start, which the reader writes itself: further on, the message may quote the file. */
static void
expect_no_reader_crash (const char *path, GError *error)
{
  g_autofree char *crashed = g_strdup_printf ("“%s” could not be read: the reading process ", path);

  if (error != NULL && g_str_has_prefix (error->message, crashed))
    g_error ("The Gotcha reading process crashed: %s", error->message);
}

static gboolean gotcha_same_process;

void
ef_fuzz_gotcha_same_process (gboolean same)
{
  gotcha_same_process = same;
}

/* TRUE for a MATLAB v7.3 header: the 16-bit version 0x0200 at byte 124, in either byte order. */
static gboolean
is_mat73 (const guint8 *data, gsize size)
{
  return size >= 128 && ((data[124] == 0x00 && data[125] == 0x02) || (data[124] == 0x02 && data[125] == 0x00));
}

gboolean
ef_fuzz_gotcha (const guint8 *data, gsize size)
{
#if HAVE_MATIO
  static FuzzFile file = { -1, NULL, TRUE };
  const char *path;
  const char *paths[] = { NULL, NULL };
  EfGotchaOptions opts;
  GError *error = NULL;
  EfDataset *ds;

  /* MATLAB v7.3 files are HDF5 files, which matio hands to the HDF5 library. HDF5 1.10 loops for minutes
   * inside H5Aread on some damaged files and leaks on others: that is HDF5's to fix, and fuzzing it here
   * would only find it again. The v7.3 path is covered by the unit tests. */
  if (is_mat73 (data, size))
    return FALSE;
  path = fuzz_file_put (&file, "ef-fuzz-gotcha", data, size);
  paths[0] = path;
  ef_gotcha_options_init (&opts);
  opts.same_process = gotcha_same_process;
  ds = ef_gotcha_open (paths, &opts, &error);
  expect_io_error (ds, error);
  expect_no_reader_crash (path, error);
  g_clear_error (&error);
  if (ds == NULL)
    return FALSE;
  read_everything (ds);
  ef_dataset_unref (ds);

  /* The other paths: the autofocus corrections and an azimuth window. */
  opts.apply_autofocus = TRUE;
  opts.az_min_deg = 0.5;
  opts.az_max_deg = 2.5;
  ds = ef_gotcha_open (paths, &opts, &error);
  expect_io_error (ds, error);
  expect_no_reader_crash (path, error);
  g_clear_error (&error);
  if (ds != NULL)
    {
      read_everything (ds);
      ef_dataset_unref (ds);
    }
  return TRUE;
#else
  (void) data;
  (void) size;
  return FALSE;
#endif
}

gboolean
ef_fuzz_cphd (const guint8 *data, gsize size)
{
  static FuzzFile file = { -1, NULL, FALSE };
  const char *path = fuzz_file_put (&file, "ef-fuzz-cphd", data, size);
  GError *error = NULL;
  EfDataset *ds;
  guint n_channels;

  if (!ef_cphd_sniff (data, size))
    {
      /* Still worth a call: the reader must refuse it cleanly. */
      ds = ef_cphd_open (path, 0, &error);
      expect_io_error (ds, error);
      g_clear_error (&error);
      if (ds != NULL)
        g_error ("ef_cphd_open accepted a file that ef_cphd_sniff rejects");
      return FALSE;
    }
  ds = ef_cphd_open (path, 0, &error);
  expect_io_error (ds, error);
  g_clear_error (&error);
  if (ds == NULL)
    return FALSE;
  n_channels = ds->info.n_channels;
  read_everything (ds);
  ef_dataset_unref (ds);

  /* The last channel, and one past it. */
  if (n_channels > 1)
    {
      ds = ef_cphd_open (path, n_channels - 1, &error);
      expect_io_error (ds, error);
      g_clear_error (&error);
      if (ds != NULL)
        {
          read_everything (ds);
          ef_dataset_unref (ds);
        }
    }
  ds = ef_cphd_open (path, n_channels, &error);
  expect_io_error (ds, error);
  g_clear_error (&error);
  if (ds != NULL)
    g_error ("ef_cphd_open opened channel %u of a file with %u channels", n_channels, n_channels);
  return TRUE;
}

/* The PVP and signal blocks that go with the XML: those of a small file from the writer, so that an XML
 * close to the writer's own describes them correctly and the reader gets past its consistency checks. */
typedef struct {
  char    *version;   /* owned */
  guint8  *pvp;       /* owned */
  gsize    pvp_size;
  guint8  *signal;    /* owned */
  gsize    signal_size;
} XmlTemplate;

static gboolean
header_value (const char *text, gsize len, const char *key, guint64 *out)
{
  g_autofree char *needle = g_strdup_printf ("\n%s := ", key);
  const char *at = g_strstr_len (text, (gssize) len, needle);

  if (at == NULL)
    return FALSE;
  *out = g_ascii_strtoull (at + strlen (needle), NULL, 10);
  return TRUE;
}

static const XmlTemplate *
xml_template (void)
{
  static gsize done = 0;
  static XmlTemplate t;

  if (g_once_init_enter (&done))
    {
      CphdTestSpec spec;
      g_autoptr (EfDataset) ds = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *dir = g_dir_make_tmp ("ef-fuzz-XXXXXX", NULL);
      g_autofree char *path = NULL;
      g_autofree char *bytes = NULL;
      gsize len;
      guint64 pvp_off, pvp_size, sig_off, sig_size;
      const char *nl;

      if (dir == NULL)
        g_error ("Cannot make a temporary folder for the CPHD template");
      path = g_build_filename (dir, "template.cphd", NULL);
      cphd_test_spec_init (&spec);
      spec.n_pulses = 8;
      spec.n_samples = 16;
      spec.point_targets = TRUE;
      ds = cphd_test_dataset (&spec);
      if (!ef_cphd_write (ds, path, NULL, &error) || !g_file_get_contents (path, &bytes, &len, &error))
        g_error ("Cannot make the CPHD template: %s", error->message);
      g_unlink (path);
      g_rmdir (dir);
      if (!header_value (bytes, len, "PVP_BLOCK_BYTE_OFFSET", &pvp_off)
          || !header_value (bytes, len, "PVP_BLOCK_SIZE", &pvp_size)
          || !header_value (bytes, len, "SIGNAL_BLOCK_BYTE_OFFSET", &sig_off)
          || !header_value (bytes, len, "SIGNAL_BLOCK_SIZE", &sig_size) || pvp_off + pvp_size > len
          || sig_off + sig_size > len || (nl = memchr (bytes, '\n', MIN (len, (gsize) 32))) == NULL)
        g_error ("The writer's CPHD header is not what the fuzzer expects");
      t.version = g_strndup (bytes + 5, (gsize) (nl - bytes) - 5);
      t.pvp = g_memdup2 (bytes + pvp_off, pvp_size);
      t.pvp_size = pvp_size;
      t.signal = g_memdup2 (bytes + sig_off, sig_size);
      t.signal_size = sig_size;
      g_once_init_leave (&done, 1);
    }
  return &t;
}

gboolean
ef_fuzz_cphd_xml (const guint8 *data, gsize size)
{
  static FuzzFile file = { -1, NULL, FALSE };
  const XmlTemplate *t = xml_template ();
  g_autofree char *header = NULL;
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint64 xml_off = 0, pvp_off = 0, sig_off = 0;

  /* The offsets depend on the header's length, which depends on the offsets: settle it by iterating. */
  for (int i = 0; i < 4; i++)
    {
      g_free (header);
      header = g_strdup_printf ("CPHD/%s\n"
                                "XML_BLOCK_SIZE := %" G_GSIZE_FORMAT "\n"
                                "XML_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT "\n"
                                "PVP_BLOCK_SIZE := %" G_GSIZE_FORMAT "\n"
                                "PVP_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT "\n"
                                "SIGNAL_BLOCK_SIZE := %" G_GSIZE_FORMAT "\n"
                                "SIGNAL_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT "\n"
                                "CLASSIFICATION := UNCLASSIFIED\n"
                                "RELEASE_INFO := UNRESTRICTED\n"
                                "\f\n",
                                t->version, size, xml_off, t->pvp_size, pvp_off, t->signal_size, sig_off);
      xml_off = strlen (header);
      pvp_off = xml_off + size + 2;
      sig_off = pvp_off + t->pvp_size;
    }
  g_byte_array_append (out, (const guint8 *) header, (guint) strlen (header));
  g_byte_array_append (out, data, (guint) size);
  g_byte_array_append (out, (const guint8 *) "\f\n", 2);
  g_byte_array_append (out, t->pvp, (guint) t->pvp_size);
  g_byte_array_append (out, t->signal, (guint) t->signal_size);
  g_assert (out->len == sig_off + t->signal_size);

  {
    const char *path = fuzz_file_put (&file, "ef-fuzz-cphd-xml", out->data, out->len);
    GError *error = NULL;
    EfDataset *ds = ef_cphd_open (path, 0, &error);

    expect_io_error (ds, error);
    g_clear_error (&error);
    if (ds == NULL)
      return FALSE;
    read_everything (ds);
    ef_dataset_unref (ds);
    return TRUE;
  }
}

static void
quiet_log (const char *domain, GLogLevelFlags level, const char *message, gpointer user_data)
{
  /* Warnings, criticals and errors abort, as they do in the test suite (G_DEBUG=fatal-warnings), so that
   * the fuzzer records them; debug output is dropped. */
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    {
      fprintf (stderr, "%s: %s\n", domain ? domain : "", message);
      abort ();
    }
}

void
ef_fuzz_quiet (void)
{
  g_log_set_default_handler (quiet_log, NULL);
}
