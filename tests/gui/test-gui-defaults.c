/* test-gui-defaults.c: the desktop program starts from the engine's defaults, as echoform-cli does. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "ef-job-defaults.h"
#include "ef-processing.h"
#include "ef-scene.h"
#include "ef-sim.h"

static void
check_processing (const EfProcessing *p, const char *what)
{
  EfJobDefaults d;

  ef_job_defaults (NULL, EF_ALGO_BP, &d);
  g_test_message ("%s: window %s, order %s, upsampling %u, block %u, %.1f pixels a cell", what,
                  ef_window_to_string (p->window), ef_order_to_string (p->order), p->upsample, p->block_size,
                  p->samples_per_cell);
  g_assert_cmpint (p->window, ==, d.window);
  g_assert_cmpint (p->az_window, ==, d.az_window);
  g_assert_cmpint (p->order, ==, d.order);
  g_assert_cmpuint (p->upsample, ==, d.upsample);
  g_assert_cmpuint (p->block_size, ==, d.block_size);
  g_assert_true (p->spacing_auto);
  g_assert_cmpfloat (p->samples_per_cell, ==, EF_DEFAULT_PIXELS_PER_CELL);
}

/* The processing choices before any setting is read, and as the settings schema's defaults leave them
 * (the schema repeats the engine's values for the preferences window: they must agree). */
static void
test_processing (void)
{
  g_autoptr (GSettings) settings = g_settings_new (APP_ID);
  EfProcessing p;

  ef_processing_init (&p);
  check_processing (&p, "initial");
  ef_processing_load_settings (&p, settings);
  check_processing (&p, "settings schema");
}

/* A region's job parameters and its automatic spacing are the CLI's for the same collection. */
static void
test_region (void)
{
  EfSimParams sp;
  EfSimTarget target = { { 0, 0, 0 }, 1.0 };
  g_autoptr (EfDataset) ds = NULL;
  EfProcessing p;
  EfJobDefaults d;
  EfJobParams gui, cli;
  EfGrid grid;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 128;
  sp.n_samples = 128;
  sp.aperture_deg = 3.83;   /* cross-range between the slant and the ground range */
  sp.targets = &target;
  sp.n_targets = 1;
  ds = ef_sim_run (&sp, NULL);
  g_assert_nonnull (ds);

  ef_processing_init (&p);
  ef_job_defaults (ds, EF_ALGO_BP, &d);
  g_assert_cmpfloat (ef_scene_default_spacing (ds, p.samples_per_cell), ==, d.spacing);

  g_assert_true (ef_grid_init_roi (&grid, d.roi[0], d.roi[1], d.roi[2], d.roi[3], d.spacing, NULL));
  ef_processing_to_job_params (&p, &grid, &gui);
  ef_job_params_init (&cli, &grid);
  ef_job_defaults_apply (&d, &cli);
  g_assert_cmpint (gui.backend.range.window, ==, cli.backend.range.window);
  g_assert_cmpuint (gui.backend.range.taylor_nbar, ==, cli.backend.range.taylor_nbar);
  g_assert_cmpfloat (gui.backend.range.taylor_sll_db, ==, cli.backend.range.taylor_sll_db);
  g_assert_cmpint (gui.backend.range.az_window, ==, cli.backend.range.az_window);
  g_assert_cmpuint (gui.backend.range.az_taylor_nbar, ==, cli.backend.range.az_taylor_nbar);
  g_assert_cmpfloat (gui.backend.range.az_taylor_sll_db, ==, cli.backend.range.az_taylor_sll_db);
  g_assert_cmpuint (gui.backend.range.upsample, ==, cli.backend.range.upsample);
  g_assert_cmpuint (gui.backend.block_size, ==, cli.backend.block_size);
  g_assert_cmpint (gui.order, ==, cli.order);
  g_assert_cmpint (gui.backend.algo, ==, EF_ALGO_BP);
  g_assert_cmpint (gui.backend.precision, ==, cli.backend.precision);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/defaults/processing", test_processing);
  g_test_add_func ("/gui/defaults/region", test_region);
  return g_test_run ();
}
