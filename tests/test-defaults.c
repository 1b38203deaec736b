/* test-defaults.c: the defaults a dataset is formed with, against the collection's physics. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "ef-job-defaults.h"
#include "ef-test-scene.h"

#define DEG (G_PI / 180.0)

/* The simulator's collection, whose resolutions are known from its parameters alone. */
static EfDataset *
collection (gboolean spaceborne, double grazing_deg, double aperture_deg, EfSimParams *sp)
{
  static EfSimTarget target = { { 0, 0, 0 }, 1.0 };

  if (spaceborne)
    ef_sim_params_init_spaceborne (sp);
  else
    ef_sim_params_init_airborne (sp);
  sp->n_pulses = 256;
  sp->n_samples = 128;
  sp->grazing_deg = grazing_deg;
  sp->aperture_deg = aperture_deg;
  sp->targets = &target;
  sp->n_targets = 1;
  return ef_sim_run (sp, NULL);
}

/* Half the finer of the ground-plane resolutions: range c / (2B) projected through the grazing angle,
 * cross-range lambda / (2 dtheta cos(grazing)), whichever is finer; not the slant range's c / (2B). */
static void
check_spacing (gboolean spaceborne, double grazing_deg, double aperture_deg)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = collection (spaceborne, grazing_deg, aperture_deg, &sp);
  /* Through the collection's mean grazing angle: over a spaceborne aperture it is not the centre's
   * (1.3e-5 apart at 700 km). */
  double grazing = ef_dataset_mean_grazing (ds);
  double ground_range = EF_C / (2.0 * sp.bandwidth) / cos (grazing);
  double cross = EF_C / sp.fc / (2.0 * aperture_deg * DEG * cos (grazing));
  double want = 0.5 * MIN (ground_range, cross), err;
  EfJobDefaults d;
  EfGrid grid;

  g_assert_nonnull (ds);
  ef_job_defaults (ds, EF_ALGO_BP, &d);
  err = fabs (d.spacing - want) / want;
  g_test_message ("%s, grazing %.0f deg, aperture %.2f deg: ground range %.4f m, cross-range %.4f m (slant range "
                  "%.4f m); spacing %.5f m, %.1e from theory", spaceborne ? "spaceborne" : "airborne", grazing_deg,
                  aperture_deg, ground_range, cross, EF_C / (2.0 * sp.bandwidth), d.spacing, err);
  /* The simulator's positions and band give the dataset the resolutions of its parameters to rounding
   * (measured: below 5e-15). */
  g_assert_cmpfloat (fabs (grazing - grazing_deg * DEG), <, 1e-3);
  g_assert_cmpfloat (err, <, 1e-12);
  g_assert_cmpfloat (d.spacing, ==, ef_job_default_spacing (ds, EF_DEFAULT_PIXELS_PER_CELL));

  /* The region: EF_DEFAULT_ROI_PIXELS square about the scene centre, at that spacing. */
  g_assert_cmpfloat (d.roi[0], ==, -d.roi[2]);
  g_assert_cmpfloat (d.roi[1], ==, -d.roi[3]);
  g_assert_true (ef_grid_init_roi (&grid, d.roi[0], d.roi[1], d.roi[2], d.roi[3], d.spacing, NULL));
  g_assert_cmpuint (grid.width, ==, EF_DEFAULT_ROI_PIXELS);
  g_assert_cmpuint (grid.height, ==, EF_DEFAULT_ROI_PIXELS);
}

static void
test_spacing (void)
{
  /* Cross-range coarser than the ground range (a short aperture), finer than the slant range (a long
   * one), and between the two, where the slant range's c / (2B) would give a finer grid; airborne and
   * spaceborne. */
  check_spacing (FALSE, 30, 2.0);
  check_spacing (FALSE, 30, 8.0);
  check_spacing (FALSE, 30, 3.83);
  check_spacing (TRUE, 45, 1.0);
}

/* A collection that states neither resolution has no default spacing (echoform-cli then asks for one). */
static void
test_no_resolution (void)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = collection (FALSE, 30, 4.0, &sp);
  g_autoptr (EfDataset) blind = NULL;
  EfDatasetInfo info;
  EfPulse *one;
  EfJobDefaults d;

  ef_dataset_info_copy (&ds->info, &info);
  info.bandwidth = 0;
  info.n_pulses = 1;
  one = g_new (EfPulse, 1);
  one[0] = ds->pulses[0];
  one[0].fx1 = one[0].fx2 = 0;
  blind = ef_dataset_new_memory (&info, one, g_new0 (EfCf32, info.n_samples));
  ef_dataset_info_clear (&info);
  ef_job_defaults (blind, EF_ALGO_BP, &d);
  g_assert_cmpfloat (d.spacing, ==, 0);
  g_assert_cmpfloat (d.roi[0], ==, 0);
  g_assert_cmpfloat (d.roi[2], ==, 0);
}

/* The processing defaults, and that applying them sets exactly those on job parameters. */
static void
test_processing (void)
{
  EfRangeParams shape = EF_RANGE_PARAMS_DEFAULT;
  EfJobDefaults d;
  EfJobParams jp;
  EfGrid grid;

  for (EfAlgo a = EF_ALGO_BP; a <= EF_ALGO_PFA; a++)
    {
      ef_job_defaults (NULL, a, &d);
      g_assert_cmpfloat (d.spacing, ==, 0);
      g_assert_cmpint (d.window, ==, EF_WINDOW_TAYLOR);
      g_assert_cmpint (d.order, ==, EF_ORDER_INTERLEAVED);
      g_assert_cmpuint (d.upsample, ==, 16);
      g_assert_cmpuint (d.block_size, ==, a == EF_ALGO_FFBP || a == EF_ALGO_FBP ? 1024 : 64);
      g_assert_cmpuint (d.block_size, ==, ef_job_default_block_size (a));

      g_assert_true (ef_grid_init_roi (&grid, -1, -1, 1, 1, 0.1, NULL));
      ef_job_params_init (&jp, &grid);
      jp.backend.range.taylor_nbar = 9;
      ef_job_defaults_apply (&d, &jp);
      g_assert_cmpint (jp.backend.range.window, ==, d.window);
      g_assert_cmpuint (jp.backend.range.taylor_nbar, ==, shape.taylor_nbar);
      g_assert_cmpfloat (jp.backend.range.taylor_sll_db, ==, shape.taylor_sll_db);
      g_assert_cmpuint (jp.backend.range.upsample, ==, d.upsample);
      g_assert_cmpuint (jp.backend.block_size, ==, d.block_size);
      g_assert_cmpint (jp.order, ==, d.order);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/job/defaults/spacing", test_spacing);
  g_test_add_func ("/compute/job/defaults/no-resolution", test_no_resolution);
  g_test_add_func ("/compute/job/defaults/processing", test_processing);
  return g_test_run ();
}
