/* test-cuda-ffbp.c: FFBP and FBP on the GPU against the CPU's and against float64 backprojection. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-test-hooks.h"
#include "cuda/ef-cuda-ffbp.h"
#include "ef-backend.h"
#include "ef-error.h"
#include "ef-ffbp.h"
#include "ef-metrics.h"
#include "ef-cuda-test-scene.h"
#include "ef-test-scene.h"

/* tests/bench/RESULTS.md (FFBP, FBP and PFA on the GPU: tests); each bound is the figure less 3 dB, or
 * twice the stated difference: GPU against CPU on the same profiles and tree 82.1-92.9 dB (the CPU's
 * float32 merges blend their kernel weights from tables, compute/form/ef-ffbp-cpu-rows.c, and round
 * unlike the device: a difference 27 dB below either one's error against float64); against float64
 * BP 54.7-59.7 dB; fp16 grids PSNR (magnitudes) 75-82 dB against float64; point targets within res/2400
 * of where they are, PSLR within 0.02 dB and IRW within 0.1% of BP's; through the backend, fp32 and fp16,
 * at least 56.6 dB against float64. */
#define GPU_CPU_SER_DB 79.0
#define REF_SER_DB 51.7
#define PSNR16_DB 72.0
#define POS_RES_FRACTION 1200.0
#define PSLR_DIFF_DB 0.04
#define IRW_REL_TOL 0.002
#define BACKEND_SER_DB 53.6

typedef struct {
  const char *name;
  void      (*init) (EfSimParams *p);
} Geometry;

static const Geometry geometries[] = {
  { "airborne", ef_sim_params_init_airborne },
  { "spaceborne", ef_sim_params_init_spaceborne },
};

static EfDataset *
simulate (const Geometry *geo, guint n_pulses, const EfSimTarget *tg, guint n_tg, EfSimParams *sp_out)
{
  EfSimParams sp;
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  geo->init (&sp);
  sp.n_pulses = n_pulses;
  sp.targets = tg;
  sp.n_targets = n_tg;
  sp.seed = g_test_rand_int ();
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  if (sp_out)
    *sp_out = sp;
  return ds;
}

/* The GPU former at kernel level, into an output poisoned first. */
static EfCf32 *
form_gpu (const EfGrid *grid, double band, const EfFfbpParams *fp, EfPrecision prec, const EfProfiles *p32,
          EfFfbpStats *st, double *ms)
{
  gsize n = ef_grid_n_pixels (grid);
  EfCf32 *img = g_new (EfCf32, n);
  g_autoptr (GError) error = NULL;

  ef_cuda_test_poison (img, n);
  g_assert_true (ef_cuda_ffbp_profiles (grid, band, fp, prec, p32, img, st, ms, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, n), ==, 0);
  return img;
}

/* The CPU former in float32 on the same profiles, with the GPU plan's leaf length: the same tree. */
static EfCf32 *
form_cpu (const EfGrid *grid, double band, const EfFfbpParams *fp, guint leaf_pulses, const EfProfiles *p32,
          EfFfbpStats *st)
{
  gsize n = ef_grid_n_pixels (grid);
  EfCf32 *img = g_new0 (EfCf32, n);
  EfFfbpParams cp = *fp;
  g_autoptr (EfFfbp) f = NULL;
  g_autoptr (GError) error = NULL;

  cp.leaf_pulses = leaf_pulses;
  f = ef_ffbp_new (grid, band, &cp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_ffbp_process (f, p32, NULL, img, st, &error));
  g_assert_no_error (error);
  return img;
}

static void
check_same_tree (const EfFfbpStats *gpu, const EfFfbpStats *cpu)
{
  g_assert_false (gpu->used_bp);
  g_assert_false (cpu->used_bp);
  g_assert_cmpuint (gpu->leaf_pulses, ==, cpu->leaf_pulses);
  g_assert_cmpuint (gpu->n_leaves, ==, cpu->n_leaves);
  g_assert_cmpuint (gpu->n_stages, ==, cpu->n_stages);
  g_assert_cmpuint (gpu->n_final, ==, cpu->n_final);
  g_assert_cmpuint (gpu->polar_samples, ==, cpu->polar_samples);
}

/* ---- a dense random scene: GPU against CPU (same tree), against float64, both paths, fp16 ---- */

typedef struct {
  const char *name;
  gboolean    factorised;
  gboolean    bistatic;
  const Geometry *geo;
} SceneCase;

static const SceneCase scene_cases[] = {
  { "ffbp/airborne", TRUE, FALSE, &geometries[0] },
  { "ffbp/spaceborne", TRUE, FALSE, &geometries[1] },
  { "fbp/airborne", FALSE, FALSE, &geometries[0] },
  { "fbp/spaceborne", FALSE, FALSE, &geometries[1] },
  { "ffbp/bistatic", TRUE, TRUE, &geometries[0] },
};

static void
test_scene (gconstpointer data)
{
  const SceneCase *c = data;
  g_autofree EfSimTarget *tg = ef_test_random_targets (300, -14, -11, 9, 13);
  EfSimParams sp;
  g_autoptr (EfDataset) ds = simulate (c->geo, 512, tg, 300, &sp);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p32 = NULL;
  g_autoptr (EfProfiles) p64 = NULL;
  EfGrid grid;
  EfFfbpParams fp;
  EfFfbpStats sg, sc, sx, s16;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *gpu = NULL;
  g_autofree EfCf32 *cpu = NULL;
  g_autofree EfCf32 *exact = NULL;
  g_autofree EfCf32 *half = NULL;
  double ms = 0, ms16 = 0, ser_cpu, ser_ref, ser_cpu_ref, ser_exact, psnr16;
  gsize n;

  if (c->bistatic)
    /* The backprojection test's receiver shift: monostatic echoes, referenced and formed bistatically. */
    for (guint p = 0; p < ds->info.n_pulses; p++)
      {
        EfPulse *pu = &ds->pulses[p];

        pu->rcv[1] += 400.0;
        pu->rcv[2] -= 150.0;
        pu->r0 = 0.5 * (sqrt (pu->tx[0] * pu->tx[0] + pu->tx[1] * pu->tx[1] + pu->tx[2] * pu->tx[2])
                        + sqrt (pu->rcv[0] * pu->rcv[0] + pu->rcv[1] * pu->rcv[1] + pu->rcv[2] * pu->rcv[2]));
      }
  /* An ROI off the scene centre, at a spacing that is not a multiple of anything. */
  g_assert_true (ef_grid_init_roi (&grid, -13.1, -9.7, 7.3, 11.9, 0.157, NULL));
  n = ef_grid_n_pixels (&grid);
  p32 = ef_test_compress (ds, &rp, FALSE);
  p64 = ef_test_compress (ds, &rp, TRUE);
  g_assert_true (p32->monostatic == !c->bistatic);
  ref = g_new0 (EfCf64, n);
  ef_bp_reference (&grid, p64, ref);
  if (c->factorised)
    ef_ffbp_params_init (&fp);
  else
    ef_fbp_params_init (&fp);
  fp.bp_fallback = FALSE;

  gpu = form_gpu (&grid, sp.bandwidth, &fp, EF_PRECISION_FP32, p32, &sg, &ms);
  cpu = form_cpu (&grid, sp.bandwidth, &fp, sg.leaf_pulses, p32, &sc);
  check_same_tree (&sg, &sc);
#if EF_TEST_HOOKS
  ef_cuda_ffbp_debug_force_exact (TRUE);
  exact = form_gpu (&grid, sp.bandwidth, &fp, EF_PRECISION_FP32, p32, &sx, NULL);
  ef_cuda_ffbp_debug_force_exact (FALSE);
#else
  (void) sx;
#endif
  half = form_gpu (&grid, sp.bandwidth, &fp, EF_PRECISION_FP16, p32, &s16, &ms16);

  ser_cpu = ef_ser_db_f32 (gpu, cpu, n);
  ser_ref = ef_ser_db_f32_f64 (gpu, ref, n);
  ser_cpu_ref = ef_ser_db_f32_f64 (cpu, ref, n);
  ser_exact = exact != NULL ? ef_ser_db_f32 (gpu, exact, n) : NAN;
  psnr16 = ef_cuda_test_psnr_db (half, ref, n);
  g_test_message ("%s: %ux%u px x %u pulses, leaves of %u, %u stages, %u fused: GPU against CPU %.1f dB; against "
                  "float64 %.1f dB (CPU: %.1f dB); cubic against exact geometry %.1f dB; fp16: PSNR %.1f dB, SER "
                  "%.1f dB. Device time %.3f ms (leaves %.3f, merges %.3f, final %.3f), fp16 %.3f ms",
                  c->name, grid.width, grid.height, p32->n_pulses, sg.leaf_pulses, sg.n_stages, sg.n_final, ser_cpu,
                  ser_ref, ser_cpu_ref, ser_exact, psnr16, ef_ser_db_f32_f64 (half, ref, n), ms,
                  sg.seconds_leaves * 1e3, sg.seconds_merge * 1e3, sg.seconds_final * 1e3, ms16);
  g_assert_cmpfloat (ser_cpu, >=, GPU_CPU_SER_DB);
  g_assert_cmpfloat (ser_ref, >=, REF_SER_DB);
  if (exact != NULL)
    g_assert_cmpfloat (ser_exact, >=, 80.0);
  else
    g_test_message ("the cubic geometry against the exact one: not checked, " EF_TEST_HOOKS_MISSING);
  g_assert_cmpfloat (psnr16, >=, PSNR16_DB);
}

/* ---- point targets: where BP puts them, with BP's sidelobes ---- */

static void
test_point_targets (gconstpointer data)
{
  const Geometry *geo = data;
  static const double target_xy[][2] = { { 0, 0 }, { 21.3, -14.9 }, { -24.2, 17.6 } };
  EfSimTarget tg[G_N_ELEMENTS (target_xy)];
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p64 = NULL;
  g_autoptr (EfProfiles) p32 = NULL;
  EfFfbpParams fp;
  double rres, xres, res;

  ef_test_place_targets (tg, target_xy, G_N_ELEMENTS (tg));
  ds = simulate (geo, 512, tg, G_N_ELEMENTS (tg), &sp);
  rres = 0.886 * EF_C / (2 * sp.bandwidth * cos (ef_dataset_mean_grazing (ds)));
  xres = 0.886 * ef_dataset_crossrange_resolution (ds);
  res = MIN (rres, xres) / 0.886;
  p64 = ef_test_compress (ds, &rp, TRUE);
  p32 = ef_test_compress (ds, &rp, FALSE);
  ef_ffbp_params_init (&fp);
  fp.bp_fallback = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (tg); i++)
    {
      EfGrid grid;
      g_autofree EfCf64 *ref = NULL;
      g_autofree EfCf32 *gpu = NULL;
      g_autoptr (EfImage) ibp = NULL;
      g_autoptr (EfImage) igpu = NULL;
      g_autoptr (GError) error = NULL;
      EfPointResult pb, pg;
      EfFfbpStats st;
      double spacing = res / 4, jx = g_test_rand_double_range (-0.5, 0.5) * spacing;
      double jy = g_test_rand_double_range (-0.5, 0.5) * spacing, col, row, err;
      double half = 64 * spacing, dir[3] = { 1, 0, 0 };
      gsize n;

      g_assert_true (ef_grid_init_roi (&grid, tg[i].pos[0] - half + jx, tg[i].pos[1] - half + jy,
                                       tg[i].pos[0] + half + jx, tg[i].pos[1] + half + jy, spacing, NULL));
      n = ef_grid_n_pixels (&grid);
      ref = g_new0 (EfCf64, n);
      ef_bp_reference (&grid, p64, ref);
      gpu = form_gpu (&grid, sp.bandwidth, &fp, EF_PRECISION_FP32, p32, &st, NULL);
      g_assert_false (st.used_bp);
      ibp = ef_image_new (&grid, NULL);
      igpu = ef_image_new (&grid, NULL);
      for (gsize k = 0; k < n; k++)
        ibp->data[k] = (EfCf32) ref[k];
      memcpy (igpu->data, gpu, n * sizeof (EfCf32));
      ef_grid_position_to_pixel (&grid, tg[i].pos, &col, &row);
      g_assert_true (ef_point_analyse (ibp, col, row, 4, dir, &pb, &error));
      g_assert_no_error (error);
      g_assert_true (ef_point_analyse (igpu, col, row, 4, dir, &pg, &error));
      g_assert_no_error (error);
      err = hypot (pg.position[0] - tg[i].pos[0], pg.position[1] - tg[i].pos[1]);
      g_test_message ("%s target %u at (%.1f, %.1f): GPU FFBP (L %u, %u stages) SER %.1f dB, position error %.5f m "
                      "= res/%.0f; IRW range %.4f/%.4f m, cross %.4f/%.4f m; PSLR range %.2f/%.2f dB, cross "
                      "%.2f/%.2f dB (GPU/BP)", geo->name, i, tg[i].pos[0], tg[i].pos[1], st.leaf_pulses,
                      st.n_stages, ef_ser_db_f32_f64 (gpu, ref, n), err, res / err, pg.range.irw_m, pb.range.irw_m,
                      pg.cross.irw_m, pb.cross.irw_m, pg.range.pslr_db, pb.range.pslr_db, pg.cross.pslr_db,
                      pb.cross.pslr_db);
      g_assert_cmpfloat (err, <, res / POS_RES_FRACTION);
      g_assert_cmpfloat (fabs (pg.range.pslr_db - pb.range.pslr_db), <, PSLR_DIFF_DB);
      g_assert_cmpfloat (fabs (pg.cross.pslr_db - pb.cross.pslr_db), <, PSLR_DIFF_DB);
      g_assert_cmpfloat (fabs (pg.range.irw_m / pb.range.irw_m - 1), <, IRW_REL_TOL);
      g_assert_cmpfloat (fabs (pg.cross.irw_m / pb.cross.irw_m - 1), <, IRW_REL_TOL);
      ef_point_result_clear (&pb);
      ef_point_result_clear (&pg);
    }
}

/* ---- the CUDA backend with algo ffbp / fbp: range compression on the device, blocks, fallback ---- */

typedef struct {
  const char *name;
  EfAlgo      algo;
  EfPrecision precision;
  guint       block;
  guint       devices;   /* 0 or 1: one; more: the multi-device backend, skipped without enough */
} BackendCase;

static const BackendCase backend_cases[] = {
  { "ffbp/fp32/256", EF_ALGO_FFBP, EF_PRECISION_FP32, 256, 1 },
  { "ffbp/fp32/100", EF_ALGO_FFBP, EF_PRECISION_FP32, 100, 1 },
  /* Blocks this short go to exact backprojection, on the same accumulator. */
  { "ffbp/fp32/8", EF_ALGO_FFBP, EF_PRECISION_FP32, 8, 1 },
  { "ffbp/fp16/256", EF_ALGO_FFBP, EF_PRECISION_FP16, 256, 1 },
  { "fbp/fp32/512", EF_ALGO_FBP, EF_PRECISION_FP32, 512, 1 },
  { "fbp/fp16/512", EF_ALGO_FBP, EF_PRECISION_FP16, 512, 1 },
  /* Each device factorises its share of every block (an uneven split in the second case); the shares'
   * images add up on read. */
  { "ffbp/fp32/256/2-devices", EF_ALGO_FFBP, EF_PRECISION_FP32, 256, 2 },
  { "ffbp/fp32/101/2-devices", EF_ALGO_FFBP, EF_PRECISION_FP32, 101, 2 },
  { "fbp/fp16/512/2-devices", EF_ALGO_FBP, EF_PRECISION_FP16, 512, 2 },
};

static void
test_backend (gconstpointer data)
{
  const BackendCase *c = data;
  g_autofree EfSimTarget *tg = ef_test_random_targets (100, -10, -10, 10, 10);
  g_autoptr (EfDataset) ds = simulate (&geometries[0], 512, tg, 100, NULL);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfBackendParams bp = { 0 };
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *note = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autofree EfCf32 *s = NULL;
  guint np = (guint) ds->info.n_pulses, call;
  EfRect all;
  EfCudaStats cs;
  double ser, psnr;
  gsize n;

  if (c->devices > ef_cuda_device_count ())
    {
      g_test_skip ("not enough CUDA devices");
      return;
    }
  g_assert_true (ef_grid_init_roi (&bp.grid, -10.3, -9.9, 10.1, 10.4, 0.1, NULL));
  n = ef_grid_n_pixels (&bp.grid);
  all = (EfRect) { 0, 0, bp.grid.width, bp.grid.height };
  ref = ef_test_form_fp64 (ds, &bp.grid, &rp);
  bp.range = rp;
  bp.precision = c->precision;
  bp.algo = c->algo;
  bp.block_size = c->block;
  bp.device = -1;
  bp.n_devices = MAX (c->devices, 1u);
  be = ef_backend_new (EF_BACKEND_CUDA, &ds->info, &bp, &note, &error);
  g_assert_no_error (error);
  g_assert_nonnull (be);
  g_assert_cmpstr (ef_backend_name (be), ==, "cuda");
  /* As the job hands them: several devices take a whole block each of a call. */
  call = c->block * ef_backend_blocks_per_call (be);
  g_assert_cmpuint (call, ==, c->block * MAX (c->devices, 1u));
  s = g_new (EfCf32, (gsize) call * ds->info.n_samples);
  for (guint p0 = 0; p0 < np; p0 += call)
    {
      guint m = MIN (call, np - p0);

      g_assert_true (ef_dataset_read_block (ds, p0, m, s, NULL));
      g_assert_true (ef_backend_process_block (be, ds->pulses + p0, s, m, &error));
      g_assert_no_error (error);
    }
  img = g_new (EfCf32, n);
  ef_cuda_test_poison (img, n);
  g_assert_true (ef_backend_read_image (be, &all, img, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, n), ==, 0);
  g_assert_true (ef_backend_cuda_stats (be, &cs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cs.n_bp, ==, (guint64) np * n);
  ser = ef_cuda_test_ser_db (img, ref, n);
  psnr = ef_cuda_test_psnr_db (img, ref, n);
  g_test_message ("backend %s: %ux%u px, %u pulses in blocks of %u: SER %.1f dB (magnitude PSNR %.1f dB) against "
                  "float64; "
                  "device time %.3f ms for formation, %.3f ms for range compression", c->name, bp.grid.width,
                  bp.grid.height, np, c->block, ser, psnr, cs.bp_ms, cs.rc_ms);
  g_assert_cmpfloat (ser, >=, BACKEND_SER_DB);
  if (c->precision == EF_PRECISION_FP16)
    g_assert_cmpfloat (psnr, >=, PSNR16_DB);
}

/* ---- a tiny case, for compute-sanitizer ---- */

static void
test_tiny (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (10, -3, -3, 3, 3);
  EfSimParams sp;
  g_autoptr (EfDataset) ds = simulate (&geometries[0], 96, tg, 10, &sp);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p32 = ef_test_compress (ds, &rp, FALSE);
  EfGrid grid;
  EfFfbpParams fp;
  EfFfbpStats sg, sc, s16;
  g_autofree EfCf32 *gpu = NULL;
  g_autofree EfCf32 *cpu = NULL;
  g_autofree EfCf32 *half = NULL;
  gsize n;

  g_assert_true (ef_grid_init_roi (&grid, -3.1, -2.9, 3.05, 3.2, 0.11, NULL));
  n = ef_grid_n_pixels (&grid);
  ef_ffbp_params_init (&fp);
  fp.bp_fallback = FALSE;
  fp.leaf_pulses = 8;
  gpu = form_gpu (&grid, sp.bandwidth, &fp, EF_PRECISION_FP32, p32, &sg, NULL);
  cpu = form_cpu (&grid, sp.bandwidth, &fp, 8, p32, &sc);
  half = form_gpu (&grid, sp.bandwidth, &fp, EF_PRECISION_FP16, p32, &s16, NULL);
  check_same_tree (&sg, &sc);
  g_test_message ("tiny: %ux%u px x %u pulses, %u stages: GPU against CPU %.1f dB, fp16 against CPU %.1f dB",
                  grid.width, grid.height, p32->n_pulses, sg.n_stages, ef_ser_db_f32 (gpu, cpu, n),
                  ef_ser_db_f32 (half, cpu, n));
  g_assert_cmpfloat (ef_ser_db_f32 (gpu, cpu, n), >=, GPU_CPU_SER_DB);
}

/* ---- out of device memory: an error, not a crash; the next call works ---- */

static void
test_oom (void)
{
#if EF_TEST_HOOKS
  g_autofree EfSimTarget *tg = ef_test_random_targets (10, -3, -3, 3, 3);
  EfSimParams sp;
  g_autoptr (EfDataset) ds = simulate (&geometries[0], 128, tg, 10, &sp);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p32 = ef_test_compress (ds, &rp, FALSE);
  g_autoptr (GError) error = NULL;
  EfGrid grid;
  EfFfbpParams fp;
  g_autofree EfCf32 *img = NULL;

  g_assert_true (ef_grid_init_roi (&grid, -3, -3, 3, 3, 0.1, NULL));
  img = g_new (EfCf32, ef_grid_n_pixels (&grid));
  ef_ffbp_params_init (&fp);
  fp.bp_fallback = FALSE;
  /* The kernel tables (2); the profiles, the image, the pulses, the pair table and its scale (5); then
   * the first polar grids: that one fails. */
  ef_cuda_debug_fail_alloc_after (7);
  g_assert_false (ef_cuda_ffbp_profiles (&grid, sp.bandwidth, &fp, EF_PRECISION_FP32, p32, img, NULL, NULL, &error));
  ef_cuda_debug_fail_alloc_after (-1);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_free (form_gpu (&grid, sp.bandwidth, &fp, EF_PRECISION_FP32, p32, NULL, NULL));
#else
  g_test_skip ("allocation failures: " EF_TEST_HOOKS_MISSING);
#endif
}

int
main (int argc, char **argv)
{
  g_autofree char *why = NULL;
  g_autofree char *name = NULL;

  g_test_init (&argc, &argv, NULL);
  /* A failed check marks its test failed and the rest still runs: one device run reports everything. */
  g_test_set_nonfatal_assertions ();
  if (!ef_cuda_available (&why))
    {
      /* 77: meson reports the test as skipped, never as passed. */
      printf ("# SKIP %s\n", why);
      return 77;
    }
  name = ef_cuda_device_name (-1);
  g_test_message ("device: %s", name);

  g_test_add_func ("/compute/cuda/ffbp/tiny", test_tiny);
  for (guint i = 0; i < G_N_ELEMENTS (scene_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/cuda/ffbp/scene/%s", scene_cases[i].name);

      g_test_add_data_func (path, &scene_cases[i], test_scene);
    }
  for (guint i = 0; i < G_N_ELEMENTS (geometries); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/cuda/ffbp/point-targets/%s", geometries[i].name);

      g_test_add_data_func (path, &geometries[i], test_point_targets);
    }
  for (guint i = 0; i < G_N_ELEMENTS (backend_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/cuda/ffbp/backend/%s", backend_cases[i].name);

      g_test_add_data_func (path, &backend_cases[i], test_backend);
    }
  g_test_add_func ("/compute/cuda/ffbp/oom", test_oom);
  return g_test_run ();
}
