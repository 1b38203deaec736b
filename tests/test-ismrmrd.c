/* test-ismrmrd.c: non-Cartesian samples through ISMRMRD files: round trip, skipped samples, bad files. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <ismrmrd/dataset.h>

#include "ef-error.h"
#include "ef-isolate.h"
#include "ef-ismrmrd.h"
#include "ef-mri-blocks.h"
#include "ef-mri.h"
#include "ef-mri-phantom.h"
#include "ismrmrd-testdata.h"

static char *
tmp_path (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-ismrmrd-XXXXXX", &error);

  g_assert_no_error (error);
  return g_build_filename (dir, name, NULL);
}

static void
remove_tmp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_roundtrip (void)
{
  g_autoptr (GError) error = NULL;
  const guint n = 32, spokes = 40, nr = 64;
  g_autofree char *path = tmp_path ("radial.h5");
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (n, spokes, nr, &error);
  g_autoptr (EfMriTraj) back = NULL;
  EfMriPhantom ph = ef_mri_phantom_shepp_logan (2);
  EfMriGrid g = ef_mri_grid_image (2, n);
  g_autofree EfCf64 *d = g_new (EfCf64, spokes * nr), *dback = NULL;
  g_autofree EfCf64 *img = g_new (EfCf64, n * n), *img_back = g_new (EfCf64, n * n);
  double num = 0, den = 0, kerr = 0;

  g_assert_no_error (error);
  /* a random rotation of the whole trajectory, so that every run writes different numbers */
  {
    double th = g_test_rand_double_range (0, G_PI);
    for (gsize i = 0; i < t->m; i++)
      {
        double x = t->k[2 * i], y = t->k[2 * i + 1];
        t->k[2 * i] = cos (th) * x - sin (th) * y;
        t->k[2 * i + 1] = sin (th) * x + cos (th) * y;
      }
  }
  ef_mri_phantom_sample (&ph, t, (double) n * n, d, 0);
  g_assert_true (ef_ismrmrd_write (path, t, d, nr, n, &error));
  g_assert_no_error (error);
  g_assert_true (ef_ismrmrd_read (path, 0, n, &back, &dback, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (back->dim, ==, 2);
  g_assert_cmpuint (back->m, ==, t->m);
  for (gsize i = 0; i < 2 * t->m; i++)
    kerr = MAX (kerr, fabs (back->k[i] - t->k[i]));
  /* float storage: k in [-1/2, 1/2] rounds to 3e-8, times the scale 32 */
  g_assert_cmpfloat (kerr, <=, 32 * 3e-8);
  g_assert_true (ef_mri_adjoint (t, d, &g, img, 0, &error));
  g_assert_true (ef_mri_adjoint (back, dback, &g, img_back, 0, &error));
  for (gsize i = 0; i < (gsize) n * n; i++)
    {
      num += creal ((img_back[i] - img[i]) * conj (img_back[i] - img[i]));
      den += creal (img[i] * conj (img[i]));
    }
  g_test_message ("ISMRMRD round trip, %" G_GSIZE_FORMAT " samples: max k error %.2e, F^H d rel. L2 %.2e", t->m,
                  kerr, sqrt (num / den));
  g_assert_cmpfloat (sqrt (num / den), <=, 1e-7);   /* float data: measured 2e-8 */
  remove_tmp (path);
}

/* Three acquisitions written directly with libismrmrd: a noise measurement, one with discarded samples at
 * both ends, one with two channels. */
static void
write_mixed (const char *path, guint traj_dims)
{
  ISMRMRD_Dataset dset;

  g_assert_cmpint (ismrmrd_init_dataset (&dset, path, "/dataset"), ==, ISMRMRD_NOERROR);
  g_assert_cmpint (ismrmrd_open_dataset (&dset, true), ==, ISMRMRD_NOERROR);
  for (guint a = 0; a < 3; a++)
    {
      ISMRMRD_Acquisition acq;

      ismrmrd_init_acquisition (&acq);
      acq.head.number_of_samples = 10;
      acq.head.active_channels = a == 2 ? 2 : 1;
      acq.head.available_channels = acq.head.active_channels;
      acq.head.trajectory_dimensions = (uint16_t) (a == 2 ? 2 : traj_dims);
      if (a == 0)
        ismrmrd_set_flag (&acq.head.flags, ISMRMRD_ACQ_IS_NOISE_MEASUREMENT);
      if (a == 1)
        {
          acq.head.discard_pre = 2;
          acq.head.discard_post = 1;
        }
      g_assert_cmpint (ismrmrd_make_consistent_acquisition (&acq), ==, ISMRMRD_NOERROR);
      for (guint s = 0; s < 10u * acq.head.trajectory_dimensions; s++)
        acq.traj[s] = 0.01f * (float) s;
      for (guint s = 0; s < 10u * acq.head.active_channels; s++)
        acq.data[s] = (float) (100 * a + s) + I * 1.0f;
      g_assert_cmpint (ismrmrd_append_acquisition (&dset, &acq), ==, ISMRMRD_NOERROR);
      ismrmrd_cleanup_acquisition (&acq);
    }
  ismrmrd_close_dataset (&dset);
}

static void
test_skipped (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("mixed.h5");
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL;

  write_mixed (path, 2);
  g_assert_true (ef_ismrmrd_read (path, 0, 1.0, &t, &d, &error));
  g_assert_no_error (error);
  /* the noise measurement skipped; 10 - 2 - 1 samples, then 10 of channel 0 */
  g_assert_cmpuint (t->m, ==, 7 + 10);
  g_assert_cmpfloat (creal (d[0]), ==, 102);
  g_assert_cmpfloat (creal (d[6]), ==, 108);
  g_assert_cmpfloat (creal (d[7]), ==, 200);
  g_assert_cmpfloat_with_epsilon (t->k[0], 0.04, 1e-7);
  /* channel 1 is missing from the second acquisition */
  ef_mri_traj_free (g_steal_pointer (&t));
  g_clear_pointer (&d, g_free);
  g_assert_false (ef_ismrmrd_read (path, 1, 1.0, &t, &d, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_assert_null (t);
  g_clear_error (&error);
  remove_tmp (path);

  /* a 1-D trajectory */
  path = (g_free (path), tmp_path ("oned.h5"));
  write_mixed (path, 1);
  g_assert_false (ef_ismrmrd_read (path, 0, 1.0, &t, &d, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED);
  remove_tmp (path);
}

static void
test_bad_files (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("junk.h5");
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL;

  g_assert_false (ef_ismrmrd_read (path, 0, 1.0, &t, &d, &error));   /* not there */
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (path, "not an HDF5 file at all", -1, NULL));
  g_assert_false (ef_ismrmrd_read (path, 0, 1.0, &t, &d, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_clear_error (&error);
  g_assert_false (ef_ismrmrd_read (path, 0, 0.0, &t, &d, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_assert_null (t);
  g_assert_null (d);
  remove_tmp (path);
}

/* Reads path and expects a refusal in domain EF_IO_ERROR with code, whose message contains what. */
static void
expect_refusal (const char *path, int code, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL;
  EfIsmrmrdInfo info;

  g_assert_false (ef_ismrmrd_read_coils (path, 1.0, &info, &t, &d, &error));
  g_assert_nonnull (error);
  g_test_message ("refused: %s", error->message);
  g_assert_error (error, EF_IO_ERROR, code);
  if (strstr (error->message, what) == NULL)
    g_error ("the message “%s” does not name “%s”", error->message, what);
  g_assert_null (t);
  g_assert_null (d);
}

static void
put_le (guint8 *at, guint size, guint64 v)
{
  for (guint b = 0; b < size; b++)
    at[b] = (guint8) (v >> (8 * b));
}

/* A valid file of 5 acquisitions of 24 samples on 3 channels, with one header field of every acquisition
 * (or of acquisition 2 only) set to value. */
static void
test_absurd_fields (void)
{
  static const struct {
    const char *field;
    guint64     value;
    gboolean    all;
    int         code;
    const char *what;
  } cases[] = {
    { "number_of_samples", 65535, FALSE, EF_IO_ERROR_INVALID_DATA, "number_of_samples 65535" },
    { "number_of_samples", 0, TRUE, EF_IO_ERROR_INVALID_DATA, "number_of_samples 0" },
    { "active_channels", 0, FALSE, EF_IO_ERROR_INVALID_DATA, "active_channels is 0" },
    { "active_channels", 65535, TRUE, EF_IO_ERROR_INVALID_DATA, "active_channels is 65535" },
    { "active_channels", 4, TRUE, EF_IO_ERROR_INVALID_DATA, "active_channels 4" },
    { "trajectory_dimensions", 7, FALSE, EF_IO_ERROR_UNSUPPORTED, "7-D trajectory (trajectory_dimensions)" },
    { "trajectory_dimensions", 0, TRUE, EF_IO_ERROR_UNSUPPORTED, "0-D trajectory (trajectory_dimensions)" },
    { "trajectory_dimensions", 3, TRUE, EF_IO_ERROR_INVALID_DATA, "trajectory_dimensions 3" },
    { "discard_pre", 65535, FALSE, EF_IO_ERROR_INVALID_DATA, "discard_pre 65535" },
    { "discard_post", 25, TRUE, EF_IO_ERROR_INVALID_DATA, "discard_post 25" },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("valid.h5");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *bad = g_build_filename (dir, "bad.h5", NULL);
  g_autofree EfTestIsmrmrdField *fields = NULL;
  g_autofree guint8 *bytes = NULL;
  g_autoptr (GArray) heads = NULL;
  gsize len;

  g_assert_true (ef_test_ismrmrd_write (path, 5, 24, 3, NULL, &error));
  g_assert_no_error (error);
  fields = ef_test_ismrmrd_fields (path);
  g_assert_nonnull (fields);
  g_assert_true (g_file_get_contents (path, (char **) &bytes, &len, &error));
  heads = ef_test_ismrmrd_find_heads (bytes, len);
  g_assert_cmpuint (heads->len, ==, 5);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree guint8 *copy = g_memdup2 (bytes, len);
      const EfTestIsmrmrdField *f = NULL;

      for (guint j = 0; fields[j].name != NULL; j++)
        if (strcmp (fields[j].name, cases[i].field) == 0)
          f = &fields[j];
      g_assert_nonnull (f);
      for (guint a = cases[i].all ? 0 : 2; a < (cases[i].all ? 5 : 3); a++)
        put_le (copy + g_array_index (heads, gsize, a) + f->offset, f->size, cases[i].value);
      g_assert_true (g_file_set_contents (bad, (const char *) copy, (gssize) len, NULL));
      expect_refusal (bad, cases[i].code, cases[i].what);
    }
  g_unlink (bad);
  remove_tmp (path);
}

/* A member of the stored acquisition header type renamed: libismrmrd would read on with an
 * unconverted header. */
static void
test_header_type (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("type.h5");
  g_autofree char *bytes = NULL;
  gsize len;
  char *at;

  g_assert_true (ef_test_ismrmrd_write (path, 3, 8, 1, NULL, &error));
  g_assert_true (g_file_get_contents (path, &bytes, &len, &error));
  at = memmem (bytes, len, "user_float", 10);
  g_assert_nonnull (at);
  memcpy (at, "user_flomt", 10);
  g_assert_true (g_file_set_contents (path, bytes, (gssize) len, NULL));
  expect_refusal (path, EF_IO_ERROR_FORMAT, "the acquisition header type lacks the member user_float");
  remove_tmp (path);
}

/* The acquisition dataset's size set to 2^40 and to 2^32 + 5 (which libismrmrd's 32-bit count would
 * take for 5). */
static void
test_absurd_count (void)
{
  const guint64 counts[] = { G_GUINT64_CONSTANT (1) << 40, (G_GUINT64_CONSTANT (1) << 32) + 5 };
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("count.h5");
  g_autofree guint8 *bytes = NULL;
  gsize len, at = 0;

  g_assert_true (ef_test_ismrmrd_write (path, 37, 8, 1, NULL, &error));
  g_assert_true (g_file_get_contents (path, (char **) &bytes, &len, &error));
  g_assert_true (ef_test_ismrmrd_find_count (bytes, len, 37, &at));
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      g_autofree char *what = g_strdup_printf ("dimensions of %" G_GUINT64_FORMAT, counts[i]);
      put_le (bytes + at, 8, counts[i]);
      g_assert_true (g_file_set_contents (path, (const char *) bytes, (gssize) len, NULL));
      expect_refusal (path, EF_IO_ERROR_INVALID_DATA, what);
    }
  remove_tmp (path);
}

static void
test_absurd_header (void)
{
  static const struct {
    guint       axis;
    gboolean    fov;
    const char *text;
    const char *what;
  } cases[] = {
    { 0, FALSE, "0", "matrixSize/x is 0" },
    { 1, FALSE, "2147483648", "matrixSize/y is 2147483648" },
    { 2, FALSE, "4097", "matrixSize/z is 4097" },
    { 0, FALSE, "-3", "matrixSize/x is not a count" },
    { 0, FALSE, "many", "matrixSize/x is not a count" },
    { 0, TRUE, "nan", "fieldOfView_mm/x is nan" },
    { 1, TRUE, "inf", "fieldOfView_mm/y is inf" },
    { 2, TRUE, "0", "fieldOfView_mm/z is 0" },
    { 0, TRUE, "-250", "fieldOfView_mm/x is -250" },
    { 0, TRUE, "1e300", "fieldOfView_mm/x is 1e+300" },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("xml.h5");
  const char *const good_m[3] = { "64", "64", "1" }, *const good_f[3] = { "250", "250", "5" };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *m[3] = { good_m[0], good_m[1], good_m[2] }, *f[3] = { good_f[0], good_f[1], good_f[2] };
      g_autofree char *xml = NULL;

      (cases[i].fov ? f : m)[cases[i].axis] = cases[i].text;
      xml = ef_test_ismrmrd_xml (m, f);
      g_assert_true (ef_test_ismrmrd_write (path, 3, 8, 1, xml, &error));
      g_assert_no_error (error);
      expect_refusal (path, EF_IO_ERROR_INVALID_DATA, cases[i].what);
    }
  /* malformed XML, and a DTD */
  g_assert_true (ef_test_ismrmrd_write (path, 3, 8, 1, "<ismrmrdHeader><encoding>", &error));
  expect_refusal (path, EF_IO_ERROR_FORMAT, "XML header is malformed");
  g_assert_true (ef_test_ismrmrd_write (path, 3, 8, 1, "<!DOCTYPE x [<!ENTITY a \"b\">]><x>&a;</x>", &error));
  expect_refusal (path, EF_IO_ERROR_FORMAT, "DTD");
  /* a good header is reported */
  {
    g_autofree char *xml = ef_test_ismrmrd_xml (good_m, good_f);
    g_autoptr (EfMriTraj) t = NULL;
    g_autofree EfCf64 *d = NULL;
    EfIsmrmrdInfo info;

    g_assert_true (ef_test_ismrmrd_write (path, 3, 8, 2, xml, &error));
    g_assert_true (ef_ismrmrd_read_coils (path, 1.0, &info, &t, &d, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (info.n_coils, ==, 2);
    g_assert_cmpuint (info.matrix[0], ==, 64);
    g_assert_cmpuint (info.matrix[2], ==, 1);
    g_assert_cmpfloat (info.fov_mm[1], ==, 250);
    g_assert_cmpuint (t->m, ==, 24);
  }
  remove_tmp (path);
}

static void
test_not_ismrmrd (void)
{
  g_autofree char *path = tmp_path ("other.h5");
  ISMRMRD_Dataset dset;
  hid_t f;

  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  expect_refusal (path, EF_IO_ERROR_FORMAT, "not an HDF5 file");
  g_assert_true (g_file_set_contents (path, "\x89HDF\r\n\x1a\n but nothing after", -1, NULL));
  expect_refusal (path, EF_IO_ERROR_FORMAT, "ISMRMRD");
  /* an HDF5 file without the group */
  f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  H5Fclose (f);
  {
    /* reading leaves the file as it was (libismrmrd's own open would add the group) */
    g_autofree char *before = NULL, *after = NULL;
    gsize n_before, n_after;

    g_assert_true (g_file_get_contents (path, &before, &n_before, NULL));
    expect_refusal (path, EF_IO_ERROR_FORMAT, "without the ISMRMRD group /dataset");
    g_assert_true (g_file_get_contents (path, &after, &n_after, NULL));
    g_assert_cmpmem (before, n_before, after, n_after);
  }
  /* the group and a header, but no acquisition dataset */
  g_unlink (path);
  g_assert_cmpint (ismrmrd_init_dataset (&dset, path, "/dataset"), ==, ISMRMRD_NOERROR);
  g_assert_cmpint (ismrmrd_open_dataset (&dset, true), ==, ISMRMRD_NOERROR);
  g_assert_cmpint (ismrmrd_write_header (&dset, "<ismrmrdHeader/>"), ==, ISMRMRD_NOERROR);
  ismrmrd_close_dataset (&dset);
  expect_refusal (path, EF_IO_ERROR_FORMAT, "no acquisition dataset (/dataset/data)");
  remove_tmp (path);
}

static void
test_not_finite (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("nan.h5");
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (8, 4, 16, &error);
  g_autofree EfCf64 *d = g_new0 (EfCf64, t->m);

  t->k[2 * 20 + 1] = NAN;
  g_assert_true (ef_ismrmrd_write (path, t, d, 16, 8, &error));
  expect_refusal (path, EF_IO_ERROR_INVALID_DATA, "acquisition 1 has a trajectory point or a sample that is not finite");
  t->k[2 * 20 + 1] = 0;
  d[50] = INFINITY;
  g_assert_true (ef_ismrmrd_write (path, t, d, 16, 8, &error));
  expect_refusal (path, EF_IO_ERROR_INVALID_DATA, "acquisition 3 has a trajectory point or a sample that is not finite");
  remove_tmp (path);
}

static void
test_coils_roundtrip (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_path ("coils.h5");
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (16, 10, 32, &error);
  g_autoptr (EfMriTraj) back = NULL;
  const guint nc = 4;
  g_autofree EfCf64 *d = g_new (EfCf64, nc * t->m), *dback = NULL;
  EfIsmrmrdInfo info;
  double err = 0;

  for (gsize i = 0; i < nc * t->m; i++)
    d[i] = g_test_rand_double_range (-1, 1) + I * g_test_rand_double_range (-1, 1);
  g_assert_true (ef_ismrmrd_write_coils (path, t, d, nc, 32, 16, &error));
  g_assert_true (ef_ismrmrd_read_coils (path, 16, &info, &back, &dback, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (info.n_coils, ==, nc);
  /* the header says the matrix the trajectory implies, the radial phantom's 16 (2-D: 1 along z) */
  g_assert_cmpuint (info.matrix[0], ==, ef_mri_traj_edge (t));
  g_assert_cmpuint (info.matrix[0], ==, 16);
  g_assert_cmpuint (info.matrix[1], ==, 16);
  g_assert_cmpuint (info.matrix[2], ==, 1);
  g_assert_cmpuint (back->m, ==, t->m);
  for (gsize i = 0; i < nc * t->m; i++)
    err = MAX (err, cabs (dback[i] - d[i]));
  g_assert_cmpfloat (err, <=, 1.2e-7);   /* float storage of values below 1.5 */
  remove_tmp (path);
}

/* The child process's limits, on a reader that crashes, allocates without bound or loops. */
static GPtrArray *
misbehave (gpointer user_data, GError **error)
{
  const char *how = user_data;

  (void) error;
  if (strcmp (how, "crash") == 0)
    raise (SIGSEGV);
  else if (strcmp (how, "allocate") == 0)
    {
      for (guint i = 0; i < 4096; i++)
        {
          volatile char *p = malloc (1 << 20);
          if (p == NULL)
            _exit (7);
          p[0] = 1;
        }
    }
  else if (strcmp (how, "loop") == 0)
    for (volatile guint64 i = 0;; i++)
      ;
  else if (strcmp (how, "error") == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "the reader's own message");
      return NULL;
    }
  else if (strcmp (how, "large") == 0)
    {
      GPtrArray *parts = g_ptr_array_new ();
      g_ptr_array_add (parts, g_bytes_new_take (g_malloc0 (2048), 2048));
      return parts;
    }
  return g_ptr_array_new ();
}

static void
test_isolate (void)
{
  static const struct {
    const char *how;
    int         code;
    const char *what;
  } cases[] = {
    /* under AddressSanitizer a crash ends the child with a status instead of the signal, and the
     * sanitizer's shadow memory counts against the memory limit */
    { "crash", EF_IO_ERROR_FORMAT, "could not be read: the reading process " },
    { "allocate", EF_IO_ERROR_FORMAT, "could not be read: the reading process " },
    { "loop", EF_IO_ERROR_FORMAT, "within the 1 s of processor time" },
    { "error", EF_IO_ERROR_TRUNCATED, "the reader's own message" },
    { "large", EF_IO_ERROR_FORMAT, "larger than the 1024 bytes allowed" },
  };
  EfIsolateLimits lim = { .what = "test", .memory_bytes = 64 << 20, .cpu_seconds = 1, .wall_seconds = 60,
                          .max_reply = 1024, .max_parts = 4 };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) parts = ef_isolate_run (&lim, NULL, misbehave, (gpointer) cases[i].how, &error);

      g_assert_null (parts);
      g_assert_error (error, EF_IO_ERROR, cases[i].code);
      g_test_message ("%s: %s", cases[i].how, error->message);
      g_assert_nonnull (strstr (error->message, cases[i].what));
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (GPtrArray) parts = ef_isolate_run (&lim, NULL, misbehave, (gpointer) "nothing", &error);
    g_assert_no_error (error);
    g_assert_cmpuint (parts->len, ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/ismrmrd/roundtrip", test_roundtrip);
  g_test_add_func ("/compute/ismrmrd/skipped", test_skipped);
  g_test_add_func ("/compute/ismrmrd/bad-files", test_bad_files);
  g_test_add_func ("/compute/ismrmrd/coils-roundtrip", test_coils_roundtrip);
  g_test_add_func ("/compute/ismrmrd/bad/absurd-fields", test_absurd_fields);
  g_test_add_func ("/compute/ismrmrd/bad/absurd-count", test_absurd_count);
  g_test_add_func ("/compute/ismrmrd/bad/header-type", test_header_type);
  g_test_add_func ("/compute/ismrmrd/bad/absurd-header", test_absurd_header);
  g_test_add_func ("/compute/ismrmrd/bad/not-ismrmrd", test_not_ismrmrd);
  g_test_add_func ("/compute/ismrmrd/bad/not-finite", test_not_finite);
  g_test_add_func ("/compute/ismrmrd/isolate", test_isolate);
  return g_test_run ();
}
