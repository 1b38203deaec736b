/* test-ismrmrd.c: non-Cartesian samples through ISMRMRD files: round trip, skipped samples, bad files. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>

#include <glib/gstdio.h>
#include <ismrmrd/dataset.h>

#include "ef-error.h"
#include "ef-ismrmrd.h"
#include "ef-mri.h"
#include "ef-mri-phantom.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/ismrmrd/roundtrip", test_roundtrip);
  g_test_add_func ("/compute/ismrmrd/skipped", test_skipped);
  g_test_add_func ("/compute/ismrmrd/bad-files", test_bad_files);
  return g_test_run ();
}
