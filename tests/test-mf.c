/* test-mf.c: the matched filter against a float64 direct sum, against backprojection, and its refusals. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-backend.h"
#include "ef-error.h"
#include "ef-job.h"
#include "ef-metrics.h"
#include "ef-mf.h"
#include "ef-test-mf.h"
#include "ef-test-scene.h"

/* The fp32 matched filter sums each pulse in float (about 121 dB from a float64 direct sum on random data
 * here), the fp64 one in double (about 254 dB); read as complex float, the fp64 image keeps about 151 dB.
 * BP at upsampling 16 puts point targets within a hundredth of a resolution cell of the matched
 * filter's, with peak sidelobes within 0.2 dB. */
#define FP32_SER_DB 115.0
#define FP64_SER_DB 245.0
#define FP64_READ_SER_DB 148.0
#define PSLR_TOL_DB 0.2

static double
ser_f32 (const EfCf32 *t, const EfCf64 *r, gsize n)
{
  return ef_ser_db_f32_f64 (t, r, n);
}

/* The engine directly: a sub-rectangle whose rows are no multiple of the vector width, pulses whose
 * sample count is no multiple of the rotator's anchor spacing. */
static void
test_direct (gconstpointer data)
{
  gboolean bistatic = GPOINTER_TO_INT (data);
  EfTestMfScene s;
  EfRect rect = { 3, 2, 37, 21 };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMfBlock) b32 = NULL;
  g_autoptr (EfMfBlock) b64 = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *i32 = NULL;
  g_autofree EfCf64 *i64 = NULL;
  gsize n = (gsize) rect.width * rect.height;
  guint64 bad = 1;
  double ser32, ser64;

  ef_test_mf_scene_init (&s, 19, 203, 48, 30, bistatic);
  ref = ef_test_mf_direct_sum (&s, &rect);
  b32 = ef_mf_block_new (&s.info, &s.range, 19, FALSE, &error);
  g_assert_no_error (error);
  b64 = ef_mf_block_new (&s.info, &s.range, 19, TRUE, &error);
  g_assert_no_error (error);
  g_assert_true (ef_mf_block_fill (b32, s.pulses, s.samples, 19, &bad, &error));
  g_assert_cmpuint (bad, ==, 0);
  g_assert_true (ef_mf_block_fill (b64, s.pulses, s.samples, 19, NULL, &error));
  i32 = g_new0 (EfCf32, n);
  i64 = g_new0 (EfCf64, n);
  ef_mf_form_f32 (&s.grid, b32, &rect, i32, 2);
  ef_mf_form_f64 (&s.grid, b64, &rect, i64, 2);
  ser32 = ser_f32 (i32, ref, n);
  ser64 = ef_test_ser_db64 (i64, ref, n);
  g_test_message ("%s: fp32 %.1f dB, fp64 %.1f dB from the direct sum", bistatic ? "bistatic" : "monostatic",
                  ser32, ser64);
  g_assert_cmpfloat (ser32, >=, FP32_SER_DB);
  g_assert_cmpfloat (ser64, >=, FP64_SER_DB);
  ef_test_mf_scene_clear (&s);
}

/* Through the CPU backend, in blocks that split the pulses unevenly, read into a poisoned buffer; the
 * record says the matched filter ran. */
static void
test_backend (void)
{
  EfTestMfScene s;
  EfRect all;
  g_autofree EfCf64 *ref = NULL;
  gsize n;

  ef_test_mf_scene_init (&s, 23, 130, 21, 17, FALSE);
  all = (EfRect) { 0, 0, s.grid.width, s.grid.height };
  n = ef_grid_n_pixels (&s.grid);
  ref = ef_test_mf_direct_sum (&s, &all);
  for (int prec = 0; prec < 3; prec++)
    {
      EfBackendParams bp = { 0 };
      g_autoptr (EfBackend) be = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree EfCf32 *out = g_new (EfCf32, n);
      g_autofree char *what = NULL;
      const EfRunInfo *run;
      double ser;

      bp.grid = s.grid;
      bp.range = s.range;
      bp.precision = prec == 0 ? EF_PRECISION_FP64 : prec == 1 ? EF_PRECISION_FP32 : EF_PRECISION_FP16;
      bp.algo = EF_ALGO_MF;
      bp.block_size = 7;
      bp.n_threads = 2;
      bp.device = -1;
      be = ef_backend_new (EF_BACKEND_CPU, &s.info, &bp, NULL, &error);
      g_assert_no_error (error);
      for (guint done = 0; done < s.info.n_pulses; done += 10)
        g_assert_true (ef_backend_process_block (be, s.pulses + done, s.samples + (gsize) done * s.info.n_samples,
                                                 MIN (10u, (guint) s.info.n_pulses - done), &error));
      memset (out, 0xff, n * sizeof *out);
      g_assert_true (ef_backend_read_image (be, &all, out, &error));
      ser = ser_f32 (out, ref, n);
      run = ef_backend_get_run_info (be);
      what = ef_run_info_describe (run);
      g_test_message ("%s: %.1f dB", what, ser);
      g_assert_cmpint (run->algo, ==, EF_ALGO_MF);
      g_assert_cmpint (run->algo_requested, ==, EF_ALGO_MF);
      g_assert_null (run->algo_reason);
      g_assert_cmpstr (run->backend, ==, "cpu");
      if (prec == 2)
        {
          /* fp16 is a CUDA format: the record says the CPU summed in fp32. */
          g_assert_cmpint (run->precision, ==, EF_PRECISION_FP32);
          g_assert_nonnull (run->precision_reason);
        }
      else
        g_assert_cmpint (run->precision, ==, bp.precision);
      /* fp64 accumulates in double and is read as float: the float rounding is the floor. */
      g_assert_cmpfloat (ser, >=, prec == 0 ? FP64_READ_SER_DB : FP32_SER_DB);
    }
  ef_test_mf_scene_clear (&s);
}

/* Non-finite samples are summed as zero and counted, as range compression does. */
static void
test_nonfinite (void)
{
  EfTestMfScene s;
  EfBackendParams bp = { 0 };
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  EfRect all;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *out = NULL;
  gsize n;

  ef_test_mf_scene_init (&s, 5, 70, 9, 7, FALSE);
  all = (EfRect) { 0, 0, s.grid.width, s.grid.height };
  n = ef_grid_n_pixels (&s.grid);
  s.samples[3] = NAN;
  s.samples[77] = INFINITY * I;
  s.samples[200] = NAN + NAN * I;
  bp.grid = s.grid;
  bp.range = s.range;
  bp.precision = EF_PRECISION_FP32;
  bp.algo = EF_ALGO_MF;
  bp.block_size = 64;
  be = ef_backend_new (EF_BACKEND_CPU, &s.info, &bp, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ef_backend_process_block (be, s.pulses, s.samples, 5, &error));
  out = g_new (EfCf32, n);
  g_assert_true (ef_backend_read_image (be, &all, out, &error));
  g_assert_cmpuint (ef_backend_get_run_info (be)->nonfinite_samples, ==, 3);
  s.samples[3] = s.samples[77] = s.samples[200] = 0;
  ref = ef_test_mf_direct_sum (&s, &all);
  g_assert_cmpfloat (ser_f32 (out, ref, n), >=, FP32_SER_DB);
  ef_test_mf_scene_clear (&s);
}

/* The physics: point targets of a simulated spotlight collection, formed by the matched filter and by BP
 * (upsampling 16), are where the other puts them and have the same peak sidelobes. */
static void
test_points_vs_bp (void)
{
  static const double xy[][2] = { { 0, 0 }, { 6.3, -4.1 }, { -7.2, 5.5 } };
  EfSimParams sp;
  EfSimTarget tg[G_N_ELEMENTS (xy)];
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *samples = NULL;
  EfRangeParams range = EF_RANGE_PARAMS_DEFAULT;
  double res;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 192;
  sp.n_samples = 192;
  ef_test_place_targets (tg, xy, G_N_ELEMENTS (xy));
  sp.targets = tg;
  sp.n_targets = G_N_ELEMENTS (xy);
  sp.n_threads = 2;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  samples = g_new (EfCf32, ds->info.n_pulses * ds->info.n_samples);
  g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, samples, &error));
  ef_aperture_init (&range.aperture, ds->pulses, 0, ds->info.n_pulses, 1);
  res = EF_C / (2 * sp.bandwidth);

  for (guint t = 0; t < G_N_ELEMENTS (xy); t++)
    {
      EfPointResult pr[2];
      EfGrid grid;

      /* A small region about each target, at a fifth of the resolution. */
      g_assert_true (ef_grid_init_roi (&grid, xy[t][0] - 3, xy[t][1] - 3, xy[t][0] + 3, xy[t][1] + 3, res / 5, NULL));
      for (int a = 0; a < 2; a++)
        {
          EfBackendParams bp = { 0 };
          g_autoptr (EfBackend) be = NULL;
          g_autoptr (EfImage) img = ef_image_new (&grid, &error);
          EfRect all = { 0, 0, grid.width, grid.height };
          double col, row;

          bp.grid = grid;
          bp.range = range;
          bp.precision = EF_PRECISION_FP32;
          bp.algo = a == 0 ? EF_ALGO_MF : EF_ALGO_BP;
          bp.block_size = 64;
          bp.n_threads = 2;
          be = ef_backend_new (EF_BACKEND_CPU, &ds->info, &bp, NULL, &error);
          g_assert_no_error (error);
          g_assert_true (ef_backend_process_block (be, ds->pulses, samples, (guint) ds->info.n_pulses, &error));
          g_assert_true (ef_backend_read_image (be, &all, img->data, &error));
          ef_grid_position_to_pixel (&grid, (double[3]) { xy[t][0], xy[t][1], 0 }, &col, &row);
          g_assert_true (ef_point_analyse (img, col, row, 4, NULL, &pr[a], &error));
        }
      {
        double dx = pr[0].position[0] - pr[1].position[0], dy = pr[0].position[1] - pr[1].position[1];
        double off = hypot (xy[t][0] - pr[0].position[0], xy[t][1] - pr[0].position[1]);

        g_test_message ("target %u: mf at %.4f,%.4f (%.2g m from truth), bp %.2g m away; PSLR mf %.2f/%.2f dB, "
                        "bp %.2f/%.2f dB", t, pr[0].position[0], pr[0].position[1], off, hypot (dx, dy),
                        pr[0].range.pslr_db, pr[0].cross.pslr_db, pr[1].range.pslr_db, pr[1].cross.pslr_db);
        g_assert_cmpfloat (hypot (dx, dy), <, res / 100);
        g_assert_cmpfloat (off, <, res / 20);
        g_assert_cmpfloat_with_epsilon (pr[0].range.pslr_db, pr[1].range.pslr_db, PSLR_TOL_DB);
        g_assert_cmpfloat_with_epsilon (pr[0].cross.pslr_db, pr[1].cross.pslr_db, PSLR_TOL_DB);
        /* A rectangular window's sidelobes: the sum is the physics, not only close to BP. */
        g_assert_cmpfloat_with_epsilon (pr[0].range.pslr_db, -13.26, 0.3);
      }
      ef_point_result_clear (&pr[0]);
      ef_point_result_clear (&pr[1]);
    }
}

/* Through the progressive job, as the CLI and the app drive it: interleaved blocks, the aperture weighted
 * over the job's pulses, the backend chosen automatically. The image is the direct sum's, and the record
 * says the matched filter ran and, where CUDA was looked for and not used, why. */
static void
test_job (void)
{
  EfSimParams sp;
  EfSimTarget tg[2];
  static const double xy[][2] = { { 0.5, -0.3 }, { -2.1, 1.7 } };
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfJob) job = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (EfRunInfo) run = { 0 };
  EfTestMfScene s = { 0 };
  EfJobParams jp;
  EfRect all;
  g_autofree EfCf32 *img = NULL;
  g_autofree EfCf64 *ref = NULL;
  gsize n;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 48;
  sp.n_samples = 96;
  ef_test_place_targets (tg, xy, 2);
  sp.targets = tg;
  sp.n_targets = 2;
  sp.n_threads = 2;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_grid_init_roi (&s.grid, -3, -3, 3, 3, 0.25, NULL));
  ef_job_params_init (&jp, &s.grid);
  jp.backend.algo = EF_ALGO_MF;
  jp.backend.range.window = EF_WINDOW_TAYLOR;
  jp.backend.range.az_window = EF_WINDOW_TAYLOR;
  jp.backend.block_size = 10;
  jp.backend.n_threads = 2;
  jp.backend_kind = EF_BACKEND_AUTO;
  jp.order = EF_ORDER_INTERLEAVED;
  jp.publish_interval_s = -1;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  n = ef_grid_n_pixels (&s.grid);
  all = (EfRect) { 0, 0, s.grid.width, s.grid.height };
  img = g_new (EfCf32, n);
  g_assert_true (ef_job_read_image (job, &all, img, &error));
  ef_job_get_run_info (job, &run);
  g_assert_cmpint (run.algo, ==, EF_ALGO_MF);
  g_assert_null (run.algo_reason);
  g_assert_cmpint (run.az_window, ==, EF_WINDOW_TAYLOR);
  if (g_strcmp0 (run.backend, "cpu") == 0 && ef_backend_get_provider (EF_BACKEND_CUDA) != NULL)
    g_assert_nonnull (run.backend_reason);

  /* The direct sum of the same samples with the job's weighting. */
  s.info = ds->info;
  s.pulses = g_memdup2 (ds->pulses, sizeof (EfPulse) * ds->info.n_pulses);
  s.samples = g_new (EfCf32, ds->info.n_pulses * ds->info.n_samples);
  g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, s.samples, &error));
  s.range = jp.backend.range;
  ef_aperture_init (&s.range.aperture, ds->pulses, 0, ds->info.n_pulses, 1);
  ref = ef_test_mf_direct_sum (&s, &all);
  g_test_message ("job on %s: %.1f dB from the direct sum", run.backend, ser_f32 (img, ref, n));
  /* On a device the weighting is in float too (test-cuda-mf's bound). */
  g_assert_cmpfloat (ser_f32 (img, ref, n), >=, g_strcmp0 (run.backend, "cpu") == 0 ? FP32_SER_DB : 110.0);
  ef_test_mf_scene_clear (&s);
}

/* Data the matched filter cannot sum, and sizes it cannot hold, give clear errors. */
static void
test_bad_input (void)
{
  EfTestMfScene s;
  EfBackendParams bp = { 0 };
  EfDatasetInfo info;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMfBlock) b = NULL;

  ef_test_mf_scene_init (&s, 4, 16, 8, 8, FALSE);
  bp.grid = s.grid;
  bp.range = s.range;
  bp.precision = EF_PRECISION_FP32;
  bp.algo = EF_ALGO_MF;
  bp.block_size = 4;

  for (EfDomain d = EF_DOMAIN_TOA; d <= EF_DOMAIN_RAW; d++)
    {
      EfBackend *be;

      info = s.info;
      info.domain = d;
      be = ef_backend_new (EF_BACKEND_CPU, &info, &bp, NULL, &error);
      g_assert_null (be);
      g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "FX"));
      g_clear_error (&error);
    }
  info = s.info;
  info.n_samples = 0;
  g_assert_false (ef_mf_check_info (&info, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  info.n_samples = G_GUINT64_CONSTANT (1) << 40;
  g_assert_null (ef_mf_block_new (&info, &s.range, 4, FALSE, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* A block too large to hold is refused before anything is allocated. */
  info.n_samples = 1u << 24;
  g_assert_null (ef_mf_block_new (&info, &s.range, 4096, FALSE, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  b = ef_mf_block_new (&s.info, &s.range, 2, FALSE, &error);
  g_assert_no_error (error);
  g_assert_false (ef_mf_block_fill (b, s.pulses, s.samples, 3, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* The name the CLI and the records use. */
  g_assert_true (ef_algo_from_string ("mf", &bp.algo));
  g_assert_cmpint (bp.algo, ==, EF_ALGO_MF);
  g_assert_cmpstr (ef_algo_to_string (EF_ALGO_MF), ==, "mf");
  ef_test_mf_scene_clear (&s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/compute/mf/cpu/direct-sum/monostatic", GINT_TO_POINTER (FALSE), test_direct);
  g_test_add_data_func ("/compute/mf/cpu/direct-sum/bistatic", GINT_TO_POINTER (TRUE), test_direct);
  g_test_add_func ("/compute/mf/cpu/backend", test_backend);
  g_test_add_func ("/compute/mf/cpu/nonfinite", test_nonfinite);
  g_test_add_func ("/compute/mf/cpu/points-vs-bp", test_points_vs_bp);
  g_test_add_func ("/compute/mf/job", test_job);
  g_test_add_func ("/compute/mf/bad-input", test_bad_input);
  return g_test_run ();
}
