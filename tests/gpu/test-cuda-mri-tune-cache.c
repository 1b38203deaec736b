/* test-cuda-mri-tune-cache.c: the MRI tuner's cache entries stored and found beside BP's, which they leave alone (no device). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-mri.h"
#include "ef-mri.h"

#define DEV "Test Device 80GB"
#define BP_KEY "fp32-edge4096-bins8192"

static char *
cache_file (void)
{
  return ef_cuda_tune_cache_path ();
}

static void
test_keys (void)
{
  g_autofree char *a = ef_cuda_mri_tune_key (3, 262144, FALSE), *b = ef_cuda_mri_tune_key (3, 2097152, TRUE);
  g_autofree char *c = ef_cuda_mri_tune_key (2, 99, FALSE), *e = ef_cuda_mri_tune_key (2, 100, FALSE);

  g_assert_cmpstr (a, ==, "fhd-3d-vox1e5");
  g_assert_cmpstr (b, ==, "q-3d-vox1e6");
  g_assert_cmpstr (c, ==, "fhd-2d-vox1e1");
  g_assert_cmpstr (e, ==, "fhd-2d-vox1e2");
}

static void
test_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *path = cache_file ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  EfMriGrid g64 = ef_mri_grid_image (3, 64), g48 = ef_mri_grid_image (2, 48), g6 = ef_mri_grid_image (2, 6);
  EfMriGrid g2 = ef_mri_grid_doubled (&g64);

  /* no file: nothing, never an error */
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g64, FALSE), ==, -1);

  /* BP's entry first, as ef_cuda_tune writes it */
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_key_file_set_integer (kf, DEV, BP_KEY, 3);
  g_assert_true (g_key_file_save_to_file (kf, path, &error));
  g_assert_no_error (error);

  g_assert_true (ef_cuda_mri_tune_store (DEV, 3, 262144, FALSE, 12, &error));
  g_assert_true (ef_cuda_mri_tune_store (DEV, 3, 2097152, TRUE, 15, &error));
  g_assert_true (ef_cuda_mri_tune_store (DEV, 2, 2304, FALSE, 7, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g64, FALSE), ==, 12);
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g2, TRUE), ==, 15);
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g48, FALSE), ==, 7);
  /* other classes and devices: nothing */
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g64, TRUE), ==, -1);
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g48, TRUE), ==, -1);
  g_assert_cmpint (ef_cuda_mri_tune_lookup ("Another Device", &g64, FALSE), ==, -1);
  g_assert_cmpint (ef_cuda_mri_tune_lookup (NULL, &g64, FALSE), ==, -1);
  /* overwriting one class leaves the others */
  g_assert_true (ef_cuda_mri_tune_store (DEV, 3, 300000, FALSE, 10, &error));
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g64, FALSE), ==, 10);
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g2, TRUE), ==, 15);

  /* BP's entry is untouched, and BP's group holds no MRI key */
  g_clear_pointer (&kf, g_key_file_unref);
  kf = g_key_file_new ();
  g_assert_true (g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &error));
  g_assert_cmpint (g_key_file_get_integer (kf, DEV, BP_KEY, &error), ==, 3);
  g_assert_no_error (error);
  {
    g_auto (GStrv) keys = g_key_file_get_keys (kf, DEV, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (g_strv_length (keys), ==, 1);
  }

  /* a rotating shape whose voxels do not divide the width is not used: 6 is no multiple of 4 */
  g_assert_true (ef_cuda_mri_shapes[7].rotate && 6 % ef_cuda_mri_shapes[7].voxels != 0);
  g_assert_true (ef_cuda_mri_tune_store (DEV, 2, 36, FALSE, 7, &error));
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g6, FALSE), ==, -1);
  g_assert_true (ef_cuda_mri_tune_store (DEV, 2, 36, FALSE, EF_CUDA_MRI_ANY_SHAPE, &error));
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g6, FALSE), ==, EF_CUDA_MRI_ANY_SHAPE);

  /* an out-of-range or non-numeric entry, or a garbled file: nothing */
  g_key_file_set_integer (kf, "MRI " DEV, "fhd-3d-vox1e5", 99);
  g_key_file_set_string (kf, "MRI " DEV, "q-3d-vox1e6", "fast");
  g_assert_true (g_key_file_save_to_file (kf, path, &error));
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g64, FALSE), ==, -1);
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g2, TRUE), ==, -1);
  g_assert_true (g_file_set_contents (path, "[MRI " DEV "\nfhd-3d-vox1e5=\x01", -1, &error));
  g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g64, FALSE), ==, -1);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_autofree char *tmp = g_dir_make_tmp ("ef-mri-tune-XXXXXX", NULL);
  int rc;

  /* before anything asks GLib for the cache folder */
  g_assert_nonnull (tmp);
  g_setenv ("XDG_CACHE_HOME", tmp, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cuda/mri-tune/keys", test_keys);
  g_test_add_func ("/cuda/mri-tune/round-trip", test_round_trip);
  rc = g_test_run ();
  (void) g_rmdir (tmp);
  return rc;
}
