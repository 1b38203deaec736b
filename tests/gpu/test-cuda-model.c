/* test-cuda-model.c: the CUDA kernel's arithmetic, run on the CPU, against the float64 reference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "ef-cuda-test-scene.h"

/* These run without a GPU: the model follows the fp32 kernel's tiles, series and float steps, so its
 * accuracy is the kernel's, up to the hardware sincos (whose error is below 1e-6). */

typedef struct {
  const char *name;
  double standoff, grazing, aperture;
  guint n_bins;
  double dr, spacing;
  guint width, height;
  gboolean bistatic;
  double min_ser;
} Case;

/* min_ser: tests/bench/RESULTS.md's 100.8-116 dB for the kernel on the device, less 3 dB; the coarse case
 * sits lower (95.1-95.5 dB measured: several bins a pixel step and a 2 km scene). */
static const Case cases[] = {
  /* one bin per pixel, as with 2x upsampling at half-resolution pixels */
  { "airborne-10km", 10e3, 30, 4, 1024, 0.125, 0.125, 72, 150, FALSE, 97.8 },
  { "spaceborne-700km", 700e3, 45, 3.6, 1024, 0.125, 0.125, 72, 150, FALSE, 97.8 },
  /* eight bins per pixel, as with 16x upsampling */
  { "airborne-10km-fine-bins", 10e3, 30, 4, 4096, 0.0156, 0.125, 40, 70, FALSE, 97.8 },
  { "bistatic-10km", 10e3, 30, 4, 1024, 0.125, 0.125, 45, 70, TRUE, 97.8 },
  /* the image runs off both ends of the profiles: out-of-range pixels must be exactly the reference's
   * zeros, and in-range ones right */
  { "edges", 10e3, 30, 4, 160, 0.1, 0.1, 300, 40, FALSE, 97.8 },
  /* coarse pixels: several bins per pixel step in a 2 km scene */
  { "coarse-1km-pixels", 12e3, 40, 6, 4096, 0.25, 1.0, 40, 40, FALSE, 92.0 },
};

static void
run_case (const Case *c, guint variant, double *ser_out)
{
  g_autoptr (EfProfiles) p32 = NULL;
  g_autoptr (EfProfiles) p64 = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autoptr (GError) error = NULL;
  EfGrid grid;
  gsize n;
  guint32 seed = g_test_rand_int ();
  double ser;

  p64 = ef_cuda_test_profiles (48, c->n_bins, c->dr, c->standoff, c->grazing, c->aperture, 9.6e9, c->bistatic,
                               seed, &p32);
  g_assert_true (ef_grid_init_roi (&grid, -0.5 * c->width * c->spacing, -0.5 * c->height * c->spacing,
                                   0.5 * c->width * c->spacing, 0.5 * c->height * c->spacing, c->spacing, &error));
  g_assert_no_error (error);
  n = ef_grid_n_pixels (&grid);
  ref = g_new0 (EfCf64, n);
  img = g_new0 (EfCf32, n);
  ef_bp_reference (&grid, p64, ref);
  g_assert_true (ef_cuda_bp_model (&grid, p32, variant, img, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, n), ==, 0);
  ser = ef_cuda_test_ser_db (img, ref, n);
  g_test_message ("%s, variant %u, seed %u: SER %.1f dB", c->name, variant, seed, ser);
  g_assert_cmpfloat (ser, >=, c->min_ser);
  if (ser_out)
    *ser_out = ser;
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;

  run_case (c, 0, NULL);
}

/* Every shape the automatic choice would accept for a geometry is as accurate as the chosen one. */
static void
test_every_shape (void)
{
  const Case *c = &cases[0];

  for (guint v = 1; v <= ef_cuda_n_shapes (); v++)
    {
      double ser = 0;

      run_case (c, v, &ser);
    }
}

/* The shape chooser refuses geometries its series cannot follow, and prefers large tiles far away. */
static void
test_choose (void)
{
  g_autoptr (EfProfiles) near = NULL;
  g_autoptr (EfProfiles) mid = NULL;
  g_autoptr (EfProfiles) far = NULL;
  EfGrid grid;
  guint v_mid;

  g_assert_true (ef_grid_init_roi (&grid, -50, -50, 50, 50, 0.5, NULL));
  far = ef_cuda_test_profiles (8, 256, 0.5, 700e3, 45, 4, 9.6e9, FALSE, 1, NULL);
  g_assert_cmpuint (ef_cuda_choose_variant (&grid, far->meta, far->n_pulses, EF_PRECISION_FP32), ==, 1);
  /* Nearer, coarse pixels: a smaller tile or segment, but still one. */
  mid = ef_cuda_test_profiles (8, 256, 0.5, 10e3, 30, 4, 9.6e9, FALSE, 1, NULL);
  v_mid = ef_cuda_choose_variant (&grid, mid->meta, mid->n_pulses, EF_PRECISION_FP32);
  g_assert_cmpuint (v_mid, >, 1);
  g_assert_cmpuint (v_mid, <=, ef_cuda_n_shapes ());
  /* An antenna 60 m above a 100 m scene: no third-order series over a tile is good to a micrometre. */
  near = ef_cuda_test_profiles (8, 256, 0.5, 60, 80, 4, 9.6e9, FALSE, 1, NULL);
  g_assert_cmpuint (ef_cuda_choose_variant (&grid, near->meta, near->n_pulses, EF_PRECISION_FP32), ==, 0);
}

/* A pulse whose antenna position is not finite (so is its range series) parks every pixel on a guard
 * zero: it adds nothing and reads nothing outside its row (the model asserts every read's row). The
 * image is the reference formed without that pulse. */
static void
test_not_finite (void)
{
  const Case *c = &cases[0];
  g_autoptr (EfProfiles) p32 = NULL;
  g_autoptr (EfProfiles) p64 = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autoptr (GError) error = NULL;
  const guint bad = 7;
  EfGrid grid;
  gsize n;
  double ser;

  p64 = ef_cuda_test_profiles (48, c->n_bins, c->dr, c->standoff, c->grazing, c->aperture, 9.6e9, FALSE,
                               g_test_rand_int (), &p32);
  g_assert_true (ef_grid_init_roi (&grid, -0.5 * c->width * c->spacing, -0.5 * c->height * c->spacing,
                                   0.5 * c->width * c->spacing, 0.5 * c->height * c->spacing, c->spacing, NULL));
  n = ef_grid_n_pixels (&grid);
  memset (p64->data64 + (gsize) bad * p64->n_bins, 0, p64->n_bins * sizeof (EfCf64));
  ref = g_new0 (EfCf64, n);
  ef_bp_reference (&grid, p64, ref);
  for (int i = 0; i < 3; i++)
    p32->meta[bad].tx[i] = p32->meta[bad].rcv[i] = NAN;
  img = g_new0 (EfCf32, n);
  /* Shape 1 given: the chooser refuses geometry it cannot measure. */
  g_assert_true (ef_cuda_bp_model (&grid, p32, 1, img, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, n), ==, 0);
  ser = ef_cuda_test_ser_db (img, ref, n);
  g_test_message ("pulse %u of 48 with a NaN antenna: SER %.1f dB against the reference without it", bad, ser);
  g_assert_cmpfloat (ser, >=, 97.8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/cuda/model/%s", cases[i].name);

      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/compute/cuda/model/every-shape", test_every_shape);
  g_test_add_func ("/compute/cuda/model/choose", test_choose);
  g_test_add_func ("/compute/cuda/model/not-finite", test_not_finite);
  return g_test_run ();
}
