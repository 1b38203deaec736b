/* test-grid.c: the ROI grid and image accumulator. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "ef-error.h"
#include "ef-grid.h"

static void
test_roi (void)
{
  EfGrid g;
  g_autoptr (GError) error = NULL;
  double x0 = g_test_rand_double_range (-100, 0), y0 = g_test_rand_double_range (-100, 0);
  double w = g_test_rand_double_range (5, 50), h = g_test_rand_double_range (5, 50);
  double s = g_test_rand_double_range (0.05, 0.5);
  double pos[3], col, row, corner[3];

  g_assert_true (ef_grid_init_roi (&g, x0, y0, x0 + w, y0 + h, s, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g.width, ==, (guint) floor (w / s + 0.5));
  g_assert_cmpuint (g.height, ==, (guint) floor (h / s + 0.5));
  /* North up: row 0 is the largest y, and the lattice is centred on the box. */
  ef_grid_pixel_position (&g, 0, 0, corner);
  g_assert_cmpfloat (corner[1], >, y0 + h - s);
  ef_grid_pixel_position (&g, 0.5 * (g.width - 1), 0.5 * (g.height - 1), pos);
  g_assert_cmpfloat_with_epsilon (pos[0], x0 + 0.5 * w, 1e-9);
  g_assert_cmpfloat_with_epsilon (pos[1], y0 + 0.5 * h, 1e-9);
  /* pixel -> position -> pixel round trip */
  ef_grid_pixel_position (&g, 3.25, 7.5, pos);
  ef_grid_position_to_pixel (&g, pos, &col, &row);
  g_assert_cmpfloat_with_epsilon (col, 3.25, 1e-9);
  g_assert_cmpfloat_with_epsilon (row, 7.5, 1e-9);
}

static void
test_bad_roi (void)
{
  EfGrid g;
  GError *error = NULL;

  g_assert_false (ef_grid_init_roi (&g, 0, 0, 0, 10, 0.1, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ef_grid_init_roi (&g, 0, 0, 10, 10, -1, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ef_grid_init_roi (&g, 0, 0, NAN, 10, 0.1, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* An absurd size is refused before anything is allocated. */
  g_assert_false (ef_grid_init_roi (&g, 0, 0, 1e6, 1e6, 0.01, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

static void
test_image (void)
{
  EfGrid g;
  g_autoptr (EfImage) img = NULL;

  g_assert_true (ef_grid_init_roi (&g, -1, -1, 1, 1, 0.1, NULL));
  img = ef_image_new (&g, NULL);
  g_assert_nonnull (img);
  g_assert_cmpuint ((guintptr) img->data % 64, ==, 0);
  for (gsize i = 0; i < ef_grid_n_pixels (&g); i++)
    g_assert_true (img->data[i] == 0);
  img->data[5] = 1 + 2 * I;
  ef_image_clear (img);
  g_assert_true (img->data[5] == 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/grid/roi", test_roi);
  g_test_add_func ("/compute/grid/bad-roi", test_bad_roi);
  g_test_add_func ("/compute/grid/image", test_image);
  return g_test_run ();
}
