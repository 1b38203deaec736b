/* test-ffbp.c: fast factorised and one-level backprojection against exact backprojection. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-ffbp.h"
#include "ef-metrics.h"
#include "ef-test-scene.h"

static void
test_explore (void)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (300, -12, -12, 12, 12);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autoptr (EfProfiles) p64 = NULL;
  g_autoptr (EfProfiles) p32 = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf64 *img = NULL;
  g_autofree EfCf32 *img32 = NULL;
  EfFfbpParams fp;
  EfFfbpStats stats;
  g_autoptr (EfFfbp) f = NULL;
  gint64 t0;
  const char *geo = g_getenv ("GEO");

  if (geo && g_str_equal (geo, "space"))
    ef_sim_params_init_spaceborne (&sp);
  else
    ef_sim_params_init_airborne (&sp);
  sp.n_pulses = g_getenv ("NP") ? atoi (g_getenv ("NP")) : 512;
  sp.targets = tg;
  sp.n_targets = 300;
  ds = ef_sim_run (&sp, NULL);
  {
    double sp_ = g_getenv ("SP") ? atof (g_getenv ("SP")) : 0.157;
    double half = g_getenv ("N") ? 0.5 * atoi (g_getenv ("N")) * sp_ : 10.2;
    g_assert_true (ef_grid_init_roi (&grid, -3 - half, 1.1 - half, -3 + half, 1.1 + half, sp_, NULL));
  }
  p64 = ef_test_compress (ds, &rp, TRUE);
  p32 = ef_test_compress (ds, &rp, FALSE);
  ref = g_new0 (EfCf64, ef_grid_n_pixels (&grid));
  img = g_new0 (EfCf64, ef_grid_n_pixels (&grid));
  img32 = g_new0 (EfCf32, ef_grid_n_pixels (&grid));
  t0 = g_get_monotonic_time ();
  if (g_getenv ("REF32"))
    {
      ef_bp_cpu_fp32 (&grid, p32, img32, 0);
      for (gsize i = 0; i < ef_grid_n_pixels (&grid); i++) ref[i] = img32[i];
      memset (img32, 0, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
    }
  else
  ef_bp_reference (&grid, p64, ref);
  g_printerr ("ref %.3f s\n", (g_get_monotonic_time () - t0) * 1e-6);
  ef_ffbp_params_init (&fp);
  if (g_getenv ("FBP")) fp.factorised = FALSE;
  if (g_getenv ("L")) fp.leaf_pulses = atoi (g_getenv ("L"));
  if (g_getenv ("OS")) fp.oversample_angle = fp.oversample_range = atof (g_getenv ("OS"));
  if (g_getenv ("TA")) fp.taps_angle = atoi (g_getenv ("TA"));
  if (g_getenv ("TR")) fp.taps_range = atoi (g_getenv ("TR"));
  if (g_getenv ("FINAL")) fp.max_final = atoi (g_getenv ("FINAL"));
  if (g_getenv ("BASE")) fp.merge_base = atoi (g_getenv ("BASE"));
  fp.bp_fallback = FALSE;
  f = ef_ffbp_new (&grid, sp.bandwidth, &fp, NULL);
  t0 = g_get_monotonic_time ();
  g_assert_true (ef_ffbp_process (f, p64, img, NULL, &stats, NULL));
  g_printerr ("ffbp64 %.3f s: L %u leaves %u stages %u final %u samples %" G_GUINT64_FORMAT " est x%.1f (%.3f %.3f %.3f)\n",
              (g_get_monotonic_time () - t0) * 1e-6, stats.leaf_pulses, stats.n_leaves, stats.n_stages, stats.n_final,
              stats.polar_samples, stats.est_speedup, stats.seconds_leaves, stats.seconds_merge, stats.seconds_final);
  {
    double num = 0, den = 0;
    for (gsize i = 0; i < ef_grid_n_pixels (&grid); i++)
      {
        num += pow (cabs (ref[i]), 2);
        den += pow (cabs (img[i] - ref[i]), 2);
      }
    g_printerr ("SER64 %.2f dB\n", 10 * log10 (num / den));
  }
  t0 = g_get_monotonic_time ();
  g_assert_true (ef_ffbp_process (f, p32, NULL, img32, &stats, NULL));
  g_printerr ("ffbp32 %.3f s (%.3f %.3f %.3f) SER32 %.2f\n", (g_get_monotonic_time () - t0) * 1e-6,
              stats.seconds_leaves, stats.seconds_merge, stats.seconds_final,
              ef_ser_db_f32_f64 (img32, ref, ef_grid_n_pixels (&grid)));
  memset (img32, 0, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
  t0 = g_get_monotonic_time ();
  ef_bp_cpu_fp32 (&grid, p32, img32, 0);
  g_printerr ("bp32 %.3f s\n", (g_get_monotonic_time () - t0) * 1e-6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/ffbp/explore", test_explore);
  return g_test_run ();
}
