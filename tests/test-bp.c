/* test-bp.c: backprojection physics (position, resolution, sidelobes) and fp32 against fp64. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-bp-cpu.h"
#include "ef-metrics.h"
#include "ef-test-hooks.h"
#include "ef-test-scene.h"

/* README.md: impulse-response widths within 1.5% of theory, peak sidelobes within 0.15 dB of the
 * rectangular window's -13.26 dB, and the fast float32 path above 90 dB SER against float64. */
#define IRW_TOL 0.015
#define PSLR_TOL_DB 0.15
#define FP32_SER_DB 90.0

typedef struct {
  const char *name;
  void      (*init) (EfSimParams *p);
  EfDomain    domain;
  EfSimGeometry geometry;
} Case;

static void
airborne_stripmap_raw (EfSimParams *p)
{
  ef_sim_params_init_airborne (p);
  p->geometry = EF_SIM_STRIPMAP;
  p->domain = EF_DOMAIN_RAW;
  p->chirp_duration = 1e-6;
  p->sample_rate = 750e6;
  p->n_samples = 2048;
  p->aperture_deg = p->bandwidth / p->fc / (G_PI / 180);
}

static const Case cases[] = {
  { "airborne-spotlight", ef_sim_params_init_airborne },
  { "spaceborne-stripmap", ef_sim_params_init_spaceborne },
  { "airborne-stripmap-raw", airborne_stripmap_raw },
};

static const double target_xy[][2] = { { 0, 0 }, { 21.3, -14.9 }, { -24.2, 17.6 } };

/* ISLR theory is that of a sinc integrated over the same extent as the measured cut. */
static void
check_cut (const char *what, const EfCut *cut, double irw_theory)
{
  double extent = cut->offset_m[cut->n - 1] / cut->irw_m;
  double islr_theory = ef_test_sinc_islr_db (extent);

  g_test_message ("  %s: IRW %.4f m (theory %.4f, %+.2f%%), PSLR %.2f dB, ISLR %.2f dB (theory %.2f over +-%.1f "
                  "IRW)", what, cut->irw_m, irw_theory, 100 * (cut->irw_m / irw_theory - 1), cut->pslr_db,
                  cut->islr_db, islr_theory, extent);
  g_assert_cmpfloat (fabs (cut->irw_m / irw_theory - 1), <, IRW_TOL);
  g_assert_cmpfloat_with_epsilon (cut->pslr_db, -13.26, PSLR_TOL_DB);
  g_assert_cmpfloat_with_epsilon (cut->islr_db, islr_theory, 0.5);
}

static void
test_point_targets (gconstpointer data)
{
  const Case *c = data;
  EfSimParams sp;
  EfSimTarget tg[G_N_ELEMENTS (target_xy)];
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) error = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) prof = NULL;
  double grazing, rres, xres, res;

  c->init (&sp);
  ef_test_place_targets (tg, target_xy, G_N_ELEMENTS (tg));
  sp.targets = tg;
  sp.n_targets = G_N_ELEMENTS (tg);
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);

  grazing = ef_dataset_mean_grazing (ds);
  rres = 0.886 * EF_C / (2 * sp.bandwidth * cos (grazing));
  xres = 0.886 * ef_dataset_crossrange_resolution (ds);
  res = MIN (rres, xres) / 0.886;
  g_test_message ("%s: ground range IRW %.4f m, cross-range IRW %.4f m, grazing %.2f deg", c->name, rres, xres,
                  grazing * 180 / G_PI);
  prof = ef_test_compress (ds, &rp, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (tg); i++)
    {
      EfGrid grid;
      g_autoptr (EfImage) img = NULL;
      g_autofree EfCf64 *acc = NULL;
      EfPointResult pr;
      double spacing = res / 4, jx = g_test_rand_double_range (-0.5, 0.5) * spacing;
      double jy = g_test_rand_double_range (-0.5, 0.5) * spacing, col, row;
      double half = 64 * spacing, dir[3] = { 1, 0, 0 }, err;

      g_assert_true (ef_grid_init_roi (&grid, tg[i].pos[0] - half + jx, tg[i].pos[1] - half + jy,
                                       tg[i].pos[0] + half + jx, tg[i].pos[1] + half + jy, spacing, NULL));
      acc = g_new0 (EfCf64, ef_grid_n_pixels (&grid));
      ef_bp_reference (&grid, prof, acc);
      img = ef_image_new (&grid, NULL);
      for (gsize k = 0; k < ef_grid_n_pixels (&grid); k++)
        img->data[k] = (EfCf32) acc[k];
      ef_grid_position_to_pixel (&grid, tg[i].pos, &col, &row);
      /* Range runs along x for both geometries: the aperture centre lies on the +x axis. */
      g_assert_true (ef_point_analyse (img, col, row, 4, dir, &pr, &error));
      g_assert_no_error (error);
      err = hypot (pr.position[0] - tg[i].pos[0], pr.position[1] - tg[i].pos[1]);
      g_test_message (" target %u at (%.2f, %.2f): found (%.5f, %.5f), error %.5f m = res/%.0f", i, tg[i].pos[0],
                      tg[i].pos[1], pr.position[0], pr.position[1], err, res / err);
      g_assert_cmpfloat (err, <, res / 100);
      check_cut ("range", &pr.range, rres);
      check_cut ("cross-range", &pr.cross, xres);
      ef_point_result_clear (&pr);
    }
}

static void
test_fp32_vs_fp64 (gconstpointer data)
{
  const Case *c = data;
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (300, -12, -12, 12, 12);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  double ser;

  c->init (&sp);
  sp.n_pulses = 256;
  sp.targets = tg;
  sp.n_targets = 300;
  sp.seed = g_test_rand_int ();
  ds = ef_sim_run (&sp, NULL);
  g_assert_nonnull (ds);
  /* An ROI off the scene centre, at a spacing that is not a multiple of anything. */
  g_assert_true (ef_grid_init_roi (&grid, -13.1, -9.7, 7.3, 11.9, 0.157, NULL));
  ref = ef_test_form_fp64 (ds, &grid, &rp);
  img = ef_test_form_fp32 (ds, &grid, &rp);
  ser = ef_ser_db_f32_f64 (img, ref, ef_grid_n_pixels (&grid));
  g_test_message ("%s: %ux%u px x %u pulses, fp32 SER %.1f dB (SIMD %s)", c->name, grid.width, grid.height,
                  sp.n_pulses, ser, ef_bp_cpu_simd_name ());
  g_assert_cmpfloat (ser, >=, FP32_SER_DB);
}

/* The fast path's geometry reduction must also hold for bistatic pulses. */
static void
test_bistatic (void)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (50, -8, -8, 8, 8);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  double ser;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 64;
  sp.targets = tg;
  sp.n_targets = 50;
  ds = ef_sim_run (&sp, NULL);
  for (guint p = 0; p < ds->info.n_pulses; p++)
    {
      EfPulse *pu = &ds->pulses[p];
      pu->rcv[1] += 400.0;
      pu->rcv[2] -= 150.0;
      pu->r0 = 0.5 * (sqrt (pu->tx[0] * pu->tx[0] + pu->tx[1] * pu->tx[1] + pu->tx[2] * pu->tx[2])
                      + sqrt (pu->rcv[0] * pu->rcv[0] + pu->rcv[1] * pu->rcv[1] + pu->rcv[2] * pu->rcv[2]));
    }
  g_assert_true (ef_grid_init_roi (&grid, -8, -8, 8, 8, 0.2, NULL));
  ref = ef_test_form_fp64 (ds, &grid, &rp);
  img = ef_test_form_fp32 (ds, &grid, &rp);
  ser = ef_ser_db_f32_f64 (img, ref, ef_grid_n_pixels (&grid));
  g_test_message ("bistatic: fp32 SER %.1f dB", ser);
  g_assert_cmpfloat (ser, >=, FP32_SER_DB);
}

/* The result must not depend on how tiles are spread over threads. */
static void
test_threads (void)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (40, -5, -5, 5, 5);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p = NULL;
  EfGrid grid;
  g_autofree EfCf32 *a = NULL, *b = NULL;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 32;
  sp.targets = tg;
  sp.n_targets = 40;
  ds = ef_sim_run (&sp, NULL);
  p = ef_test_compress (ds, &rp, FALSE);
  g_assert_true (ef_grid_init_roi (&grid, -5, -5, 5, 5, 0.13, NULL));
  a = g_new0 (EfCf32, ef_grid_n_pixels (&grid));
  b = g_new0 (EfCf32, ef_grid_n_pixels (&grid));
  ef_bp_cpu_fp32 (&grid, p, a, 1);
  ef_bp_cpu_fp32 (&grid, p, b, 2);
  g_assert_cmpmem (a, ef_grid_n_pixels (&grid) * sizeof (EfCf32), b, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
}

/* The definition, evaluated here in double with nothing shared with the fast paths: for pixel x and pulse p,
 * dR = (|tx - x| + |rcv - x|) / 2 - r0, the profile interpolated linearly at (dR - r_start) / dr, times
 * exp(+j kr dR). */
static EfCf64 *
direct_fp64 (const EfGrid *grid, const EfProfiles *p32)
{
  EfCf64 *img = g_new0 (EfCf64, ef_grid_n_pixels (grid));

  for (guint p = 0; p < p32->n_pulses; p++)
    {
      const EfProfileMeta *m = &p32->meta[p];
      const EfCf32 *z = p32->data32 + (gsize) p * p32->n_bins;

      for (guint r = 0; r < grid->height; r++)
        for (guint c = 0; c < grid->width; c++)
          {
            double x[3], dt = 0, dv = 0, dR, f, w;
            gint64 i;

            for (int k = 0; k < 3; k++)
              {
                x[k] = grid->origin[k] + c * grid->spacing * grid->u[k] + r * grid->spacing * grid->v[k];
                dt += (m->tx[k] - x[k]) * (m->tx[k] - x[k]);
                dv += (m->rcv[k] - x[k]) * (m->rcv[k] - x[k]);
              }
            dR = 0.5 * (sqrt (dt) + sqrt (dv)) - m->r0;
            f = (dR - m->r_start) / m->dr;
            i = (gint64) floor (f);
            w = f - (double) i;
            if (i < 0 || i + 1 >= (gint64) p32->n_bins)
              continue;
            img[(gsize) r * grid->width + c] += ((1 - w) * (EfCf64) z[i] + w * (EfCf64) z[i + 1])
                                                * cexp (I * m->kr * dR);
          }
    }
  return img;
}

/* One fast path (the default, or the portable loop the test hooks force) against the direct float64
 * evaluation of the same float32 profiles, so that only the backprojection's own arithmetic is measured. */
static void
check_simd_path (gboolean portable)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (40, -5, -5, 5, 5);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  EfGrid grid;
  double ser;
  gsize n;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 48;
  sp.targets = tg;
  sp.n_targets = 40;
  sp.seed = g_test_rand_int ();
  ds = ef_sim_run (&sp, NULL);
  g_assert_nonnull (ds);
  p = ef_test_compress (ds, &rp, FALSE);
  g_assert_true (ef_grid_init_roi (&grid, -5.03, -4.97, 5.01, 5.05, 0.11, NULL));
  n = ef_grid_n_pixels (&grid);
  ref = direct_fp64 (&grid, p);
  img = g_new (EfCf32, n);
  for (gsize i = 0; i < n; i++)
    img[i] = 0;
#if EF_TEST_HOOKS
  ef_test_hooks_set_portable_simd (portable);
#endif
  g_test_message ("%s path: %s", portable ? "portable" : "default", ef_bp_cpu_simd_name ());
  ef_bp_cpu_fp32 (&grid, p, img, 0);
#if EF_TEST_HOOKS
  ef_test_hooks_set_portable_simd (FALSE);
#endif
  ser = ef_ser_db_f32_f64 (img, ref, n);
  g_test_message ("%ux%u px x %u pulses: SER %.1f dB against float64 on the same profiles", grid.width,
                  grid.height, p->n_pulses, ser);
  g_assert_cmpfloat (ser, >=, FP32_SER_DB);
}

/* The hand-written AVX-512 loop, where the processor has it. */
static void
test_simd_avx512 (void)
{
  if (!ef_bp_cpu_have_avx512 ())
    {
      g_test_skip ("this processor has no AVX-512: the intrinsics loop cannot run here");
      return;
    }
  g_assert_cmpstr (ef_bp_cpu_simd_name (), ==, "AVX-512 (intrinsics)");
  check_simd_path (FALSE);
}

/* The compiler-vectorised loop (the clone for this processor), which every CPU runs for bistatic pulses. */
static void
test_simd_portable (void)
{
#if !EF_TEST_HOOKS
  /* Only the test hooks make an AVX-512 processor take it for monostatic pulses. */
  if (ef_bp_cpu_have_avx512 ())
    {
      g_test_skip ("forcing the portable loop on this AVX-512 processor: " EF_TEST_HOOKS_MISSING);
      return;
    }
#endif
  check_simd_path (TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/compute/bp/cpu/point-targets/%s", cases[i].name);
      g_autofree char *p2 = g_strdup_printf ("/compute/bp/cpu/fp32-vs-fp64/%s", cases[i].name);

      g_test_add_data_func (p1, &cases[i], test_point_targets);
      g_test_add_data_func (p2, &cases[i], test_fp32_vs_fp64);
    }
  g_test_add_func ("/compute/bp/cpu/fp32-vs-fp64/bistatic", test_bistatic);
  g_test_add_func ("/compute/bp/cpu/threads", test_threads);
  g_test_add_func ("/compute/bp/cpu/simd-paths/avx512", test_simd_avx512);
  g_test_add_func ("/compute/bp/cpu/simd-paths/portable", test_simd_portable);
  return g_test_run ();
}
