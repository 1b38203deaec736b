/* test-cuda.c: the CUDA backend against the float64 CPU reference, on a device; skipped without one. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-test-hooks.h"
#include "ef-backend.h"
#include "ef-error.h"
#include "ef-job.h"
#include "ef-metrics.h"
#include "ef-cuda-test-scene.h"
#include "ef-ref-bp.h"
#include "ef-test-scene.h"

/* tests/bench/RESULTS.md (CUDA: accuracy in test-cuda); each bound is the figure there less 3 dB. Kernel
 * cases on white profiles: fp32 100.8-116 dB, the kernel against its CPU model 117-131 dB, fp16 PSNR on
 * magnitudes 72-76 dB and complex SER that of the benchmark's white scenes, 60.6-61.3 dB; dense simulated
 * scenes through the backend: fp32 118-128 dB, fp16 PSNR 81-86 dB; point targets: fp32 129 dB, fp16 PSNR
 * 101.6 dB, positions within 1.2e-7 m (fp32) and 7e-5 m (fp16; one run of 2026-11-27 on an H200 gave
 * 1.40e-4 m, so the fp16 bound is twice that, not the figure less 3 dB) of the CPU's, PSLR within 0.001 and
 * 0.006 dB; device range profiles 129-136 dB from the CPU's; two devices 127.8-130.7 dB from float64 and
 * 128.6-133.8 dB from one device, fp16 PSNR 83.1 dB. The device's float64 yardstick (ef-ref-bp.cu) must
 * stay far above all of these: 130 dB from the CPU's float64 path (rounding of double ranges at 700 km
 * alone allows about 146 dB). */
#define KERNEL_SER_DB 97.8
#define MODEL_SER_DB 114.0
#define KERNEL_PSNR16_DB 69.0
#define KERNEL_SER16_DB 57.6
#define SCENE_SER_DB 115.0
#define SCENE_PSNR16_DB 78.0
#define POINT_SER_DB 126.0
#define POINT_PSNR16_DB 98.6
#define POINT_POS32_M 2.4e-7
#define POINT_POS16_M 2.8e-4
#define POINT_PSLR32_DB 0.002
#define POINT_PSLR16_DB 0.012
#define PROFILE_SER_DB 126.0
#define MULTI_SER_DB 124.8
#define MULTI_ONE_SER_DB 125.6
#define MULTI_PSNR16_DB 80.0
#define REFERENCE_SER_DB 130.0

/* ---- kernel level: random profiles, every output pixel poisoned first ---- */

typedef struct {
  const char *name;
  double standoff, grazing, aperture;
  guint n_pulses, n_bins;
  double dr, spacing;
  guint width, height;
  gboolean bistatic;
} BpCase;

static const BpCase bp_cases[] = {
  { "10km", 10e3, 30, 4, 200, 2048, 0.125, 0.125, 333, 290, FALSE },
  { "700km", 700e3, 45, 3.6, 200, 2048, 0.125, 0.125, 333, 290, FALSE },
  { "10km-fine-bins", 10e3, 30, 4, 100, 8192, 0.0156, 0.125, 200, 130, FALSE },
  { "bistatic", 10e3, 30, 4, 100, 2048, 0.125, 0.125, 150, 200, TRUE },
  { "edges", 10e3, 30, 4, 64, 256, 0.1, 0.1, 400, 60, FALSE },
};

typedef struct {
  double ser32, ser_model, psnr16, ser16;
} BpResult;

static void
run_bp_case (const BpCase *c, guint variant, BpResult *res)
{
  g_autoptr (EfProfiles) p32 = NULL;
  g_autoptr (EfProfiles) p64 = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autofree EfCf32 *model = NULL;
  g_autofree EfCf64 *model64 = NULL;
  guint32 seed = g_test_rand_int ();
  double ms = 0;
  EfGrid grid;
  gsize n;

  p64 = ef_cuda_test_profiles (c->n_pulses, c->n_bins, c->dr, c->standoff, c->grazing, c->aperture, 9.6e9,
                               c->bistatic, seed, &p32);
  g_assert_true (ef_grid_init_roi (&grid, -0.5 * c->width * c->spacing + 0.37 * c->spacing,
                                   -0.5 * c->height * c->spacing, 0.5 * c->width * c->spacing + 0.37 * c->spacing,
                                   0.5 * c->height * c->spacing, c->spacing, NULL));
  n = ef_grid_n_pixels (&grid);
  ref = g_new0 (EfCf64, n);
  ef_bp_reference (&grid, p64, ref);

  img = g_new (EfCf32, n);
  ef_cuda_test_poison (img, n);
  g_assert_true (ef_cuda_bp_profiles (&grid, p32, EF_PRECISION_FP32, variant, img, &ms, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, n), ==, 0);
  res->ser32 = ef_cuda_test_ser_db (img, ref, n);

  /* The kernel and its CPU model differ only by the hardware sincos. */
  model = g_new0 (EfCf32, n);
  model64 = g_new (EfCf64, n);
  g_assert_true (ef_cuda_bp_model (&grid, p32, variant, model, &error));
  for (gsize i = 0; i < n; i++)
    model64[i] = model[i];
  res->ser_model = ef_cuda_test_ser_db (img, model64, n);

  ef_cuda_test_poison (img, n);
  g_assert_true (ef_cuda_bp_profiles (&grid, p32, EF_PRECISION_FP16, variant, img, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, n), ==, 0);
  res->psnr16 = ef_cuda_test_psnr_db (img, ref, n);
  res->ser16 = ef_cuda_test_ser_db (img, ref, n);

  g_test_message ("%s (variant %u, %ux%u px, %u pulses, %u bins, seed %u): fp32 SER %.1f dB (%.2f ms), "
                  "kernel vs model %.1f dB, fp16 SER %.1f dB (magnitude PSNR %.1f dB)", c->name, variant, grid.width,
                  grid.height, c->n_pulses, c->n_bins, seed, res->ser32, ms, res->ser_model, res->ser16,
                  res->psnr16);
}

static void
test_bp_case (gconstpointer data)
{
  BpResult r;

  run_bp_case (data, 0, &r);
  g_assert_cmpfloat (r.ser32, >=, KERNEL_SER_DB);
  g_assert_cmpfloat (r.ser_model, >=, MODEL_SER_DB);
  g_assert_cmpfloat (r.ser16, >=, KERNEL_SER16_DB);
  g_assert_cmpfloat (r.psnr16, >=, KERNEL_PSNR16_DB);
}

static void
test_bp_every_shape (void)
{
  for (guint v = 1; v <= ef_cuda_n_shapes (); v++)
    {
      BpResult r;

      run_bp_case (&bp_cases[0], v, &r);
      g_assert_cmpfloat (r.ser32, >=, KERNEL_SER_DB);
      g_assert_cmpfloat (r.ser16, >=, KERNEL_SER16_DB);
      g_assert_cmpfloat (r.psnr16, >=, KERNEL_PSNR16_DB);
    }
}

/* ---- the float64 yardstick on the device, against the CPU's float64 path ---- */

static EfDataset *simulate (void (*init) (EfSimParams *), EfDomain domain, guint n_pulses, const EfSimTarget *tg,
                            guint n_tg);

/* The benchmarks' SER is measured against ef-ref-bp.cu over whole images; here that kernel is checked
 * against ef_bp_reference on the same float64 profiles (white, so that every bin matters) over every kernel
 * case's geometry (10 km, 700 km, fine bins, bistatic, the image running off the profiles' ends), and on
 * a simulated collection from its samples. */
static void
test_reference (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bp_cases); i++)
    {
      const BpCase *c = &bp_cases[i];
      g_autoptr (EfProfiles) p64 = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree EfCf64 *cpu = NULL;
      g_autofree EfCf64 *gpu = NULL;
      guint32 seed = g_test_rand_int ();
      EfGrid grid;
      double ser;
      gsize n;

      p64 = ef_cuda_test_profiles (c->n_pulses, c->n_bins, c->dr, c->standoff, c->grazing, c->aperture, 9.6e9,
                                   c->bistatic, seed, NULL);
      g_assert_true (ef_grid_init_roi (&grid, -0.5 * c->width * c->spacing + 0.37 * c->spacing,
                                       -0.5 * c->height * c->spacing, 0.5 * c->width * c->spacing + 0.37 * c->spacing,
                                       0.5 * c->height * c->spacing, c->spacing, NULL));
      n = ef_grid_n_pixels (&grid);
      cpu = g_new0 (EfCf64, n);
      ef_bp_reference (&grid, p64, cpu);
      gpu = ef_ref_bp_form_profiles (p64, &grid, &error);
      g_assert_no_error (error);
      if (gpu == NULL)
        continue;
      ser = ef_test_ser_db64 (gpu, cpu, n);
      g_test_message ("%s (seed %u): device float64 against the CPU's: SER %.1f dB", c->name, seed, ser);
      g_assert_cmpfloat (ser, >=, REFERENCE_SER_DB);
    }

  /* From samples: the CPU's float64 range compression in blocks, then the device. */
  {
    g_autofree EfSimTarget *tg = ef_test_random_targets (100, -10, -10, 10, 10);
    g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_spaceborne, EF_DOMAIN_FX, 600, tg, 100);
    g_autoptr (GError) error = NULL;
    EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
    g_autofree EfCf32 *s = g_new (EfCf32, (gsize) ds->info.n_pulses * ds->info.n_samples);
    g_autofree EfCf64 *cpu = NULL;
    g_autofree EfCf64 *gpu = NULL;
    EfGrid grid;
    double ser;

    rp.upsample = 4;
    g_assert_true (ef_grid_init_roi (&grid, -11.3, -10.1, 10.9, 10.7, 0.17, NULL));
    cpu = ef_test_form_fp64 (ds, &grid, &rp);
    g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, s, NULL));
    gpu = ef_ref_bp_form (&ds->info, ds->pulses, s, (guint) ds->info.n_pulses, &rp, &grid, &error);
    g_assert_no_error (error);
    if (gpu != NULL)
      {
        ser = ef_test_ser_db64 (gpu, cpu, ef_grid_n_pixels (&grid));
        g_test_message ("simulated, 700 km, 600 pulses in blocks of 256: device float64 against the CPU's: SER "
                        "%.1f dB", ser);
        g_assert_cmpfloat (ser, >=, REFERENCE_SER_DB);
      }
  }
}

/* ---- backend level: simulated phase histories through range compression and backprojection ---- */

static EfDataset *
simulate (void (*init) (EfSimParams *), EfDomain domain, guint n_pulses, const EfSimTarget *tg, guint n_tg)
{
  EfSimParams sp;
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  init (&sp);
  sp.n_pulses = n_pulses;
  sp.targets = tg;
  sp.n_targets = n_tg;
  sp.seed = g_test_rand_int ();
  if (domain == EF_DOMAIN_RAW)
    {
      sp.geometry = EF_SIM_STRIPMAP;
      sp.domain = EF_DOMAIN_RAW;
      sp.chirp_duration = 1e-6;
      sp.sample_rate = 750e6;
      sp.n_samples = 2048;
      sp.aperture_deg = sp.bandwidth / sp.fc / (G_PI / 180);
    }
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  return ds;
}

/* Forms the image with the CUDA backend over n_devices devices, block_size pulses per call; the output
 * is poisoned first. */
static EfCf32 *
form_cuda_on (EfDataset *ds, const EfGrid *grid, const EfRangeParams *rp, EfPrecision precision,
              const EfCudaOptions *opts, guint block, guint n_devices, guint *block_used)
{
  EfBackendParams bp = { 0 };
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  guint np = (guint) ds->info.n_pulses;
  g_autofree EfCf32 *s = g_new (EfCf32, (gsize) block * ds->info.n_samples);
  EfCf32 *img = g_new (EfCf32, ef_grid_n_pixels (grid));
  EfRect all = { 0, 0, grid->width, grid->height };

  bp.grid = *grid;
  bp.range = *rp;
  bp.precision = precision;
  bp.algo = EF_ALGO_BP;
  bp.block_size = block;
  bp.device = -1;
  bp.n_devices = n_devices;
  be = ef_backend_cuda_new_full (&ds->info, &bp, opts, &error);
  g_assert_no_error (error);
  ef_cuda_test_poison (img, ef_grid_n_pixels (grid));
  if (be == NULL)
    return img;
  for (guint p0 = 0; p0 < np; p0 += block)
    {
      guint m = MIN (block, np - p0);

      g_assert_true (ef_dataset_read_block (ds, p0, m, s, NULL));
      g_assert_true (ef_backend_process_block (be, ds->pulses + p0, s, m, &error));
      g_assert_no_error (error);
      if (error)
        return img;
    }
  g_assert_true (ef_backend_read_image (be, &all, img, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, ef_grid_n_pixels (grid)), ==, 0);
  if (block_used)
    *block_used = ef_backend_cuda_block_size (be);
  return img;
}

static EfCf32 *
form_cuda (EfDataset *ds, const EfGrid *grid, const EfRangeParams *rp, EfPrecision precision,
           const EfCudaOptions *opts, guint block, guint *block_used)
{
  return form_cuda_on (ds, grid, rp, precision, opts, block, 1, block_used);
}

static EfImage *
as_image (const EfGrid *grid, const EfCf32 *data)
{
  EfImage *im = ef_image_new (grid, NULL);

  memcpy (im->data, data, ef_grid_n_pixels (grid) * sizeof (EfCf32));
  return im;
}

static const double target_xy[][2] = { { 0.3, -0.2 }, { 11.3, -7.9 }, { -12.2, 9.6 } };

/* Point targets: positions and sidelobes as the CPU finds them; the whole image against float64. */
static void
test_point_targets (gconstpointer data)
{
  EfPrecision prec = GPOINTER_TO_INT (data);
  EfSimTarget tg[G_N_ELEMENTS (target_xy)];
  g_autoptr (EfDataset) ds = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *ref32 = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autoptr (EfImage) im_ref = NULL;
  g_autoptr (EfImage) im_gpu = NULL;
  gsize n;
  double ser, psnr, res = 0.25;

  ef_test_place_targets (tg, target_xy, G_N_ELEMENTS (tg));
  ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 512, tg, G_N_ELEMENTS (tg));
  g_assert_true (ef_grid_init_roi (&grid, -16.05, -16.1, 16.1, 16.05, res / 4, NULL));
  n = ef_grid_n_pixels (&grid);
  ref = ef_test_form_fp64 (ds, &grid, &rp);
  img = form_cuda (ds, &grid, &rp, prec, NULL, 100, NULL);
  ser = ef_cuda_test_ser_db (img, ref, n);
  psnr = ef_cuda_test_psnr_db (img, ref, n);
  g_test_message ("%s: %ux%u px, %u pulses: SER %.1f dB, magnitude PSNR %.1f dB", ef_precision_to_string (prec),
                  grid.width, grid.height, (guint) ds->info.n_pulses, ser, psnr);
  if (prec == EF_PRECISION_FP32)
    g_assert_cmpfloat (ser, >=, POINT_SER_DB);
  else
    g_assert_cmpfloat (psnr, >=, POINT_PSNR16_DB);

  ref32 = g_new (EfCf32, n);
  for (gsize i = 0; i < n; i++)
    ref32[i] = (EfCf32) ref[i];
  im_ref = as_image (&grid, ref32);
  im_gpu = as_image (&grid, img);
  for (guint i = 0; i < G_N_ELEMENTS (tg); i++)
    {
      EfPointResult a, b;
      g_autoptr (GError) error = NULL;
      double col, row, dir[3] = { 1, 0, 0 }, d;

      ef_grid_position_to_pixel (&grid, tg[i].pos, &col, &row);
      g_assert_true (ef_point_analyse (im_ref, col, row, 4, dir, &a, &error));
      g_assert_no_error (error);
      g_assert_true (ef_point_analyse (im_gpu, col, row, 4, dir, &b, &error));
      g_assert_no_error (error);
      d = hypot (a.position[0] - b.position[0], a.position[1] - b.position[1]);
      g_test_message ("  target %u: position differs by %.2e m; PSLR range %.3f / %.3f dB, cross %.3f / %.3f dB",
                      i, d, a.range.pslr_db, b.range.pslr_db, a.cross.pslr_db, b.cross.pslr_db);
      g_assert_cmpfloat (d, <, prec == EF_PRECISION_FP32 ? POINT_POS32_M : POINT_POS16_M);
      g_assert_cmpfloat (fabs (a.range.pslr_db - b.range.pslr_db), <,
                         prec == EF_PRECISION_FP32 ? POINT_PSLR32_DB : POINT_PSLR16_DB);
      g_assert_cmpfloat (fabs (a.cross.pslr_db - b.cross.pslr_db), <,
                         prec == EF_PRECISION_FP32 ? POINT_PSLR32_DB : POINT_PSLR16_DB);
      /* Widths move with the image as the positions do: well under a hundredth of a millimetre in fp32. */
      g_assert_cmpfloat (fabs (a.range.irw_m - b.range.irw_m), <, prec == EF_PRECISION_FP32 ? res / 20000 : res / 1000);
      ef_point_result_clear (&a);
      ef_point_result_clear (&b);
    }
}

typedef struct {
  const char *name;
  void (*init) (EfSimParams *);
  EfDomain domain;
  EfWindow window;
  guint upsample;
} SceneCase;

static const SceneCase scene_cases[] = {
  { "airborne-fx", ef_sim_params_init_airborne, EF_DOMAIN_FX, EF_WINDOW_RECT, 16 },
  { "airborne-fx-taylor-2x", ef_sim_params_init_airborne, EF_DOMAIN_FX, EF_WINDOW_TAYLOR, 2 },
  { "spaceborne-fx", ef_sim_params_init_spaceborne, EF_DOMAIN_FX, EF_WINDOW_HANN, 4 },
  { "airborne-raw", ef_sim_params_init_airborne, EF_DOMAIN_RAW, EF_WINDOW_RECT, 8 },
};

/* Dense random scenes through every domain and window, against float64. */
static void
test_scene (gconstpointer data)
{
  const SceneCase *c = data;
  g_autofree EfSimTarget *tg = ef_test_random_targets (300, -12, -12, 12, 12);
  g_autoptr (EfDataset) ds = simulate (c->init, c->domain, 256, tg, 300);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img32 = NULL;
  g_autofree EfCf32 *img16 = NULL;
  double ser, psnr;
  gsize n;

  rp.window = c->window;
  rp.upsample = c->upsample;
  g_assert_true (ef_grid_init_roi (&grid, -13.1, -9.7, 7.3, 11.9, 0.157, NULL));
  n = ef_grid_n_pixels (&grid);
  ref = ef_test_form_fp64 (ds, &grid, &rp);
  img32 = form_cuda (ds, &grid, &rp, EF_PRECISION_FP32, NULL, 64, NULL);
  img16 = form_cuda (ds, &grid, &rp, EF_PRECISION_FP16, NULL, 64, NULL);
  ser = ef_cuda_test_ser_db (img32, ref, n);
  psnr = ef_cuda_test_psnr_db (img16, ref, n);
  g_test_message ("%s: fp32 SER %.1f dB, fp16 SER %.1f dB (magnitude PSNR %.1f dB)", c->name, ser,
                  ef_cuda_test_ser_db (img16, ref, n), psnr);
  g_assert_cmpfloat (ser, >=, SCENE_SER_DB);
  g_assert_cmpfloat (psnr, >=, SCENE_PSNR16_DB);
}

/* Sub-block splitting inside process_block, and range compression against the CPU's fp32 profiles. */
static void
test_sub_blocks (void)
{
  static const guint combos[][2] = { { 37, 0 }, { 20, 0 }, { 20, 16 }, { 16, 16 }, { 37, 16 }, { 37, 8 } };
  g_autofree EfSimTarget *tg = ef_test_random_targets (5, -2, -2, 2, 2);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 37, tg, 5);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf64 *ref = NULL;

  rp.upsample = 2;
  g_assert_true (ef_grid_init_roi (&grid, -2.3, -1.9, 2.1, 2.2, 0.13, NULL));
  ref = ef_test_form_fp64 (ds, &grid, &rp);
  {
    /* The kernel alone, on the CPU's fp32 profiles of the same pulses. */
    g_autoptr (EfProfiles) p32 = ef_test_compress (ds, &rp, FALSE);
    g_autofree EfCf32 *img = g_new (EfCf32, ef_grid_n_pixels (&grid));
    g_autoptr (GError) error = NULL;
    double ser;

    g_assert_true (ef_cuda_bp_profiles (&grid, p32, EF_PRECISION_FP32, 0, img, NULL, &error));
    g_assert_no_error (error);
    ser = ef_cuda_test_ser_db (img, ref, ef_grid_n_pixels (&grid));
    g_test_message ("kernel on the CPU's profiles: SER %.1f dB", ser);
    g_assert_cmpfloat (ser, >=, SCENE_SER_DB);
  }
  for (guint i = 0; i < G_N_ELEMENTS (combos); i++)
    {
      EfCudaOptions o = EF_CUDA_OPTIONS_DEFAULT;
      g_autofree EfCf32 *img = NULL;
      double ser;

      o.max_block = combos[i][1];
      img = form_cuda (ds, &grid, &rp, EF_PRECISION_FP32, &o, combos[i][0], NULL);
      ser = ef_cuda_test_ser_db (img, ref, ef_grid_n_pixels (&grid));
      g_test_message ("calls of %u pulses, sub-blocks of %u: SER %.1f dB", combos[i][0], combos[i][1], ser);
      g_assert_cmpfloat (ser, >=, SCENE_SER_DB);
    }

}

/* Range compression against the CPU's fp32 profiles, and the kernel alone on the CPU's profiles. */
static void
test_profiles (gconstpointer data)
{
  EfDomain domain = GPOINTER_TO_INT (data);
  g_autofree EfSimTarget *tg = ef_test_random_targets (5, -2, -2, 2, 2);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, domain, 37, tg, 5);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) cpu = NULL;
  EfBackendParams bp = { 0 };
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  guint np = (guint) ds->info.n_pulses, n_bins = 0;
  g_autofree EfCf32 *s = g_new (EfCf32, (gsize) np * ds->info.n_samples);
  g_autofree EfCf32 *prof = NULL;
  g_autofree EfCf64 *ref64 = NULL;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  gsize n;
  guint imax_c = 0, imax_g = 0;

  rp.upsample = 2;
  cpu = ef_test_compress (ds, &rp, FALSE);
  g_assert_true (ef_grid_init_roi (&bp.grid, -2.3, -1.9, 2.1, 2.2, 0.13, NULL));
  bp.range = rp;
  bp.precision = EF_PRECISION_FP32;
  bp.block_size = np;
  bp.device = -1;
  be = ef_backend_cuda_new (&ds->info, &bp, &error);
  g_assert_no_error (error);
  if (be == NULL)
    return;
  g_assert_true (ef_dataset_read_block (ds, 0, np, s, NULL));
  g_assert_true (ef_backend_process_block (be, ds->pulses, s, np, &error));
  g_assert_true (ef_backend_cuda_read_profiles (be, 0, &n_bins, NULL, &error));
  g_assert_cmpuint (n_bins, ==, cpu->n_bins);
  if (n_bins != cpu->n_bins)
    return;
  n = (gsize) np * n_bins;
  prof = g_new (EfCf32, n);
  ref64 = g_new (EfCf64, n);
  g_assert_true (ef_backend_cuda_read_profiles (be, np, NULL, prof, &error));
  for (gsize i = 0; i < n; i++)
    ref64[i] = cpu->data32[i];
  for (guint i = 0; i < n_bins; i++)
    {
      if (cabsf (cpu->data32[i]) > cabsf (cpu->data32[imax_c]))
        imax_c = i;
      if (cabsf (prof[i]) > cabsf (prof[imax_g]))
        imax_g = i;
    }
  g_test_message ("%s profiles: %u x %u bins, SER against the CPU's fp32 %.1f dB; peak of pulse 0 at bin %u "
                  "(CPU %u), %g (CPU %g); value there %g%+gi (CPU %g%+gi)", ef_domain_to_string (domain), np, n_bins,
                  ef_cuda_test_ser_db (prof, ref64, n), imax_g, imax_c, cabsf (prof[imax_g]),
                  cabsf (cpu->data32[imax_c]), crealf (prof[imax_c]), cimagf (prof[imax_c]),
                  crealf (cpu->data32[imax_c]), cimagf (cpu->data32[imax_c]));
  g_assert_cmpfloat (ef_cuda_test_ser_db (prof, ref64, n), >=, PROFILE_SER_DB);

  ref = ef_test_form_fp64 (ds, &bp.grid, &rp);
  img = g_new (EfCf32, ef_grid_n_pixels (&bp.grid));
  g_assert_true (ef_cuda_bp_profiles (&bp.grid, cpu, EF_PRECISION_FP32, 0, img, NULL, &error));
  g_test_message ("%s: kernel on the CPU's profiles: SER %.1f dB", ef_domain_to_string (domain),
                  ef_cuda_test_ser_db (img, ref, ef_grid_n_pixels (&bp.grid)));
  g_assert_cmpfloat (ef_cuda_test_ser_db (img, ref, ef_grid_n_pixels (&bp.grid)), >=, SCENE_SER_DB);
}

/* Copies overlapping compute must give exactly what one stream with waits gives. */
static void
test_streamed (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (100, -10, -10, 10, 10);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 300, tg, 100);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfCudaOptions sync = EF_CUDA_OPTIONS_DEFAULT, streamed = EF_CUDA_OPTIONS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf32 *a = NULL;
  g_autofree EfCf32 *b = NULL;

  /* Sub-blocks of 32 inside process_block calls of 150: several copies in flight. */
  sync.synchronous = TRUE;
  sync.max_block = 32;
  streamed.max_block = 32;
  g_assert_true (ef_grid_init_roi (&grid, -10, -10, 10, 10, 0.11, NULL));
  a = form_cuda (ds, &grid, &rp, EF_PRECISION_FP32, &sync, 150, NULL);
  b = form_cuda (ds, &grid, &rp, EF_PRECISION_FP32, &streamed, 150, NULL);
  g_assert_cmpmem (a, ef_grid_n_pixels (&grid) * sizeof (EfCf32), b, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
}

/* Out of memory: the backend shrinks its blocks and still forms the right image; when even the image
 * does not fit, the dispatcher falls back to the CPU and says so. */
static void
test_oom (void)
{
#if EF_TEST_HOOKS
  g_autofree EfSimTarget *tg = ef_test_random_targets (60, -8, -8, 8, 8);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 256, tg, 60);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf32 *img = NULL;
  guint used = 0;
  gsize n, limit;

  g_assert_true (ef_grid_init_roi (&grid, -8, -8, 8, 8, 0.1, NULL));
  n = ef_grid_n_pixels (&grid);
  ref = ef_test_form_fp64 (ds, &grid, &rp);

  /* Anything as large as 64 pulses of profiles fails: 256-pulse blocks must shrink below 64. */
  limit = 64 * (gsize) 512 * 16 * 8 - 1;
  ef_cuda_debug_fail_alloc_above (limit);
  img = form_cuda (ds, &grid, &rp, EF_PRECISION_FP32, NULL, 256, &used);
  ef_cuda_debug_fail_alloc_above (0);
  g_test_message ("allocations over %zu bytes refused: blocks of %u pulses", limit, used);
  g_assert_cmpuint (used, <, 64);
  g_assert_cmpuint (used, >=, 1);
  g_assert_cmpfloat (ef_cuda_test_ser_db (img, ref, n), >=, SCENE_SER_DB);
  g_clear_pointer (&img, g_free);

  /* One failure at each allocation in turn: creation either succeeds (perhaps with smaller blocks) and
   * forms the right image, or fails cleanly with NO_MEMORY. */
  for (int k = 0; k < 16; k++)
    {
      EfBackendParams bp = { 0 };
      g_autoptr (EfBackend) be = NULL;
      g_autoptr (GError) error = NULL;

      bp.grid = grid;
      bp.range = rp;
      bp.precision = EF_PRECISION_FP32;
      bp.algo = EF_ALGO_BP;
      bp.block_size = 128;
      bp.device = -1;
      ef_cuda_debug_fail_alloc_after (k);
      be = ef_backend_cuda_new (&ds->info, &bp, &error);
      ef_cuda_debug_fail_alloc_after (-1);
      if (be == NULL)
        {
          g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY);
          g_test_message ("failure at allocation %d: %s", k, error->message);
        }
      else
        {
          guint np = (guint) ds->info.n_pulses;
          g_autofree EfCf32 *s = g_new (EfCf32, (gsize) np * ds->info.n_samples);
          g_autofree EfCf32 *out = g_new (EfCf32, n);
          EfRect all = { 0, 0, grid.width, grid.height };
          double ser;

          g_assert_true (ef_dataset_read_block (ds, 0, np, s, NULL));
          g_assert_true (ef_backend_process_block (be, ds->pulses, s, np, &error));
          ef_cuda_test_poison (out, n);
          g_assert_true (ef_backend_read_image (be, &all, out, &error));
          g_assert_no_error (error);
          ser = ef_cuda_test_ser_db (out, ref, n);
          g_test_message ("failure at allocation %d: recovered with blocks of %u, SER %.1f dB", k,
                          ef_backend_cuda_block_size (be), ser);
          g_assert_cmpfloat (ser, >=, SCENE_SER_DB);
        }
    }

  /* The image itself is refused: AUTO falls back to the CPU with a note. */
  {
    EfBackendParams bp = { 0 };
    g_autoptr (EfBackend) be = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *note = NULL;
    g_autofree EfCf32 *s = g_new (EfCf32, (gsize) ds->info.n_pulses * ds->info.n_samples);
    EfRect all = { 0, 0, grid.width, grid.height };

    bp.grid = grid;
    bp.range = rp;
    bp.precision = EF_PRECISION_FP32;
    bp.algo = EF_ALGO_BP;
    bp.block_size = 256;
    bp.device = -1;
    ef_cuda_debug_fail_alloc_after (0);
    be = ef_backend_new (EF_BACKEND_AUTO, &ds->info, &bp, &note, &error);
    ef_cuda_debug_fail_alloc_after (-1);
    g_assert_no_error (error);
    g_assert_nonnull (be);
    g_assert_cmpstr (ef_backend_name (be), ==, "cpu");
    g_assert_nonnull (note);
    g_test_message ("fallback note: %s", note);
    g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, s, NULL));
    g_assert_true (ef_backend_process_block (be, ds->pulses, s, (guint) ds->info.n_pulses, &error));
    img = g_new (EfCf32, n);
    ef_cuda_test_poison (img, n);
    g_assert_true (ef_backend_read_image (be, &all, img, &error));
    /* The CPU backend's float32 path: README.md's 90 dB. */
    g_assert_cmpfloat (ef_cuda_test_ser_db (img, ref, n), >=, 90.0);
  }
#else
  g_test_skip ("allocation failures: " EF_TEST_HOOKS_MISSING);
#endif
}

/* Non-finite samples are counted, replaced by zeros, and never reach the image. */
static void
test_bad_samples (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (20, -5, -5, 5, 5);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 64, tg, 20);
  EfBackendParams bp = { 0 };
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *s = g_new (EfCf32, (gsize) 64 * ds->info.n_samples);
  g_autofree EfCf32 *img = NULL;
  EfRect all;
  EfRect dirty[2];

  g_assert_true (ef_grid_init_roi (&bp.grid, -5, -5, 5, 5, 0.2, NULL));
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.precision = EF_PRECISION_FP32;
  bp.block_size = 64;
  bp.device = -1;
  be = ef_backend_cuda_new (&ds->info, &bp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_backend_is_cuda (be));
  g_assert_cmpuint (ef_backend_cuda_dirty (be, dirty, 2), ==, 0);
  g_assert_true (ef_dataset_read_block (ds, 0, 64, s, NULL));
  s[5] = NAN;
  s[700] = CMPLXF (1.0f, INFINITY);
  s[64 * ds->info.n_samples - 1] = CMPLXF (-INFINITY, 0.0f);
  g_assert_true (ef_backend_process_block (be, ds->pulses, s, 64, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_backend_cuda_dirty (be, dirty, 2), ==, 1);
  g_assert_cmpuint (dirty[0].width, ==, bp.grid.width);
  g_assert_cmpuint (dirty[0].height, ==, bp.grid.height);
  all = dirty[0];
  img = g_new (EfCf32, ef_grid_n_pixels (&bp.grid));
  g_assert_true (ef_backend_read_image (be, &all, img, &error));
  g_assert_cmpuint (be->n_bad_samples, ==, 3);
  g_assert_cmpuint (ef_backend_get_run_info (be)->nonfinite_samples, ==, 3);
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, ef_grid_n_pixels (&bp.grid)), ==, 0);

  /* clear() zeroes everything; a sub-rectangle reads back the right pixels. */
  g_assert_true (be->ops->clear (be, &error));
  g_assert_true (ef_backend_read_image (be, &all, img, &error));
  for (gsize i = 0; i < ef_grid_n_pixels (&bp.grid); i++)
    g_assert_true (img[i] == 0);
}

/* Runs a CUDA job to the end and returns its record; device_only: the image never leaves the device. */
static EfJob *
run_cuda_job (EfDataset *ds, const EfGrid *grid, EfAlgo algo, EfPrecision precision, gboolean device_only,
              EfRunInfo *run)
{
  EfJobParams jp;
  EfJob *job;
  g_autoptr (GError) error = NULL;

  ef_job_params_init (&jp, grid);
  jp.backend_kind = EF_BACKEND_CUDA;
  jp.backend.algo = algo;
  jp.backend.precision = precision;
  jp.backend.block_size = 256;
  jp.publish_interval_s = -1;
  jp.no_host_image = device_only;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  g_assert_no_error (error);
  ef_job_get_run_info (job, run);
  return job;
}

static void
scale_to_max (EfCf32 *s, gsize n)
{
  float peak = 0;

  for (gsize i = 0; i < n; i++)
    peak = MAX (peak, cabsf (s[i]));
  for (gsize i = 0; i < n; i++)
    s[i] *= 0.25f * FLT_MAX / peak;
}

/* What ran is what the record says: fp16 backprojection on the device as asked; FFBP's blocks counted;
 * and an image that overflowed (samples near the largest float) has its non-finite pixels counted on
 * the device when it never leaves it (no bytes copied), as on the host when it does. */
static void
test_run_record (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (20, -5, -5, 5, 5);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 512, tg, 20);
  g_autoptr (EfDataset) huge = NULL;
  EfGrid grid;

  g_assert_true (ef_grid_init_roi (&grid, -5, -5, 5, 5, 0.05, NULL));
  {
    g_auto (EfRunInfo) run = { 0 };
    g_autoptr (EfJob) job = run_cuda_job (ds, &grid, EF_ALGO_BP, EF_PRECISION_FP16, FALSE, &run);

    g_assert_cmpstr (run.backend, ==, "cuda");
    g_assert_cmpuint (run.n_devices, ==, 1);
    g_assert_cmpint (run.precision, ==, EF_PRECISION_FP16);
    g_assert_null (run.precision_reason);
    g_assert_false (ef_run_info_has_news (&run));
    g_assert_true (run.pixels_counted);
    g_assert_cmpuint (run.nonfinite_pixels, ==, 0);
  }
  {
    g_auto (EfRunInfo) run = { 0 };
    g_autoptr (EfJob) job = run_cuda_job (ds, &grid, EF_ALGO_FFBP, EF_PRECISION_FP16, FALSE, &run);

    g_test_message ("FFBP on the device: %" G_GUINT64_FORMAT " blocks factorised, %" G_GUINT64_FORMAT " by exact "
                    "backprojection%s%s", run.blocks_fast, run.blocks_bp, run.algo_reason ? ": " : "",
                    run.algo_reason ? run.algo_reason : "");
    g_assert_cmpint (run.precision, ==, EF_PRECISION_FP16);
    g_assert_cmpuint (run.blocks_fast + run.blocks_bp, ==, 2);
    g_assert_cmpint (run.algo, ==, run.blocks_fast > 0 ? EF_ALGO_FFBP : EF_ALGO_BP);
  }
  {
    gsize n = (gsize) ds->info.n_pulses * ds->info.n_samples, n_px = ef_grid_n_pixels (&grid);
    EfCf32 *s = g_new (EfCf32, n);
    g_autofree EfCf32 *img = g_new (EfCf32, n_px);
    g_auto (EfRunInfo) on_device = { 0 };
    g_auto (EfRunInfo) on_host = { 0 };
    g_autoptr (EfJob) a = NULL;
    g_autoptr (EfJob) b = NULL;
    g_autoptr (EfCudaImage) image = NULL;
    g_autoptr (GError) error = NULL;
    EfRect all = { 0, 0, grid.width, grid.height };
    guint64 d2h;

    g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, s, NULL));
    scale_to_max (s, n);
    huge = ef_dataset_new_memory (&ds->info, g_memdup2 (ds->pulses, sizeof (EfPulse) * ds->info.n_pulses), s);
#if EF_TEST_HOOKS
    d2h = ef_cuda_debug_d2h_image_bytes ();
#endif
    a = run_cuda_job (huge, &grid, EF_ALGO_BP, EF_PRECISION_FP32, TRUE, &on_device);
#if EF_TEST_HOOKS
    g_assert_cmpuint (ef_cuda_debug_d2h_image_bytes () - d2h, ==, 0);
#else
    (void) d2h;
    g_test_message ("no image byte through the host: not checked, " EF_TEST_HOOKS_MISSING);
#endif
    image = ef_cuda_image_from_device (ef_job_ref_device_image (a));
    g_assert_nonnull (image);
    g_assert_true (ef_cuda_image_read (image, &all, img, &error));
    g_assert_no_error (error);
    b = run_cuda_job (huge, &grid, EF_ALGO_BP, EF_PRECISION_FP32, FALSE, &on_host);
    g_test_message ("samples at FLT_MAX / 4: %zu of %zu pixels not finite; counted on the device %" G_GUINT64_FORMAT
                    ", on the host %" G_GUINT64_FORMAT, ef_cuda_test_count_nonfinite (img, n_px), n_px,
                    on_device.nonfinite_pixels, on_host.nonfinite_pixels);
    g_assert_cmpuint (ef_cuda_test_count_nonfinite (img, n_px), >, 0);
    g_assert_true (on_device.pixels_counted && on_host.pixels_counted);
    g_assert_cmpuint (on_device.nonfinite_pixels, ==, ef_cuda_test_count_nonfinite (img, n_px));
    g_assert_cmpuint (on_host.nonfinite_pixels, ==, on_device.nonfinite_pixels);
    g_assert_true (ef_run_info_has_news (&on_device));
  }
}

/* A rectangle read returns the same pixels as the whole image. */
static void
test_read_rect (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (20, -5, -5, 5, 5);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 40, tg, 20);
  EfBackendParams bp = { 0 };
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *s = g_new (EfCf32, (gsize) 40 * ds->info.n_samples);
  g_autofree EfCf32 *all_px = NULL;
  EfCf32 sub[7 * 5];
  EfRect all, r = { 13, 21, 7, 5 };

  g_assert_true (ef_grid_init_roi (&bp.grid, -5, -5, 5, 5, 0.2, NULL));
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.precision = EF_PRECISION_FP16;
  bp.block_size = 40;
  bp.device = -1;
  be = ef_backend_cuda_new (&ds->info, &bp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_dataset_read_block (ds, 0, 40, s, NULL));
  g_assert_true (ef_backend_process_block (be, ds->pulses, s, 40, &error));
  all = (EfRect) { 0, 0, bp.grid.width, bp.grid.height };
  all_px = g_new (EfCf32, ef_grid_n_pixels (&bp.grid));
  g_assert_true (ef_backend_read_image (be, &all, all_px, &error));
  g_assert_true (ef_backend_read_image (be, &r, sub, &error));
  for (guint y = 0; y < r.height; y++)
    for (guint x = 0; x < r.width; x++)
      g_assert_true (sub[y * r.width + x] == all_px[(gsize) (r.y + y) * bp.grid.width + r.x + x]);
}

static void
test_errors (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (2, -1, -1, 1, 1);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 8, tg, 2);
  EfBackendParams bp = { 0 };
  g_autoptr (GError) error = NULL;
  EfBackend *be;

  g_assert_true (ef_grid_init_roi (&bp.grid, -5, -5, 5, 5, 0.2, NULL));
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.block_size = 8;
  bp.device = -1;
  bp.precision = EF_PRECISION_FP64;
  be = ef_backend_cuda_new (&ds->info, &bp, &error);
  g_assert_null (be);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  bp.precision = EF_PRECISION_FP32;
  bp.device = 999;
  be = ef_backend_cuda_new (&ds->info, &bp, &error);
  g_assert_null (be);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE);
}

/* Two devices: each takes a share of every block and the shares' images are summed on read. The sum
 * must be the single-device image (to rounding) and the float64 one, for blocks that split unevenly
 * and blocks smaller than the number of devices, in both precisions; sub-rectangles, the bad-sample
 * count and clear() must see the sum too. */
/* One device's reads: the whole image of 19 MB (staged through pinned buffers, several pieces, both
 * buffers reused) and a sub-rectangle of 17 MB at an odd offset (staged), against the same rows read one
 * at a time (each small enough to go straight to the caller): the same bits. Poisoned outputs first. */
static void
test_staged_read (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (50, -12, -12, 12, 12);
  g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 16, tg, 50);
  EfBackendParams bp = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfBackend) be = NULL;
  g_autofree EfCf32 *s = NULL, *whole = NULL, *rows = NULL, *part = NULL;
  EfRect all, sub;
  gsize n;
  guint differ = 0;

  g_assert_true (ef_grid_init_roi (&bp.grid, -12, -12, 12, 12, 0.0155, NULL));
  n = ef_grid_n_pixels (&bp.grid);
  /* More than two of the 8 MB pieces (EF_CUDA_READ_STAGE_BYTES), and above the 16 MB from which reads are
   * staged. */
  g_assert_cmpuint (n * sizeof (EfCf32), >, (gsize) 18 << 20);
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.precision = EF_PRECISION_FP32;
  bp.block_size = 16;
  bp.device = -1;
  be = ef_backend_cuda_new (&ds->info, &bp, &error);
  g_assert_no_error (error);
  if (be == NULL)
    return;
  s = g_new (EfCf32, (gsize) 16 * ds->info.n_samples);
  g_assert_true (ef_dataset_read_block (ds, 0, 16, s, NULL));
  g_assert_true (ef_backend_process_block (be, ds->pulses, s, 16, &error));
  g_assert_no_error (error);
  all = (EfRect) { 0, 0, bp.grid.width, bp.grid.height };
  whole = g_new (EfCf32, n);
  rows = g_new (EfCf32, n);
  ef_cuda_test_poison (whole, n);
  ef_cuda_test_poison (rows, n);
  g_assert_true (ef_backend_read_image (be, &all, whole, &error));
  g_assert_no_error (error);
  for (guint y = 0; y < bp.grid.height; y++)
    {
      EfRect one = { 0, y, bp.grid.width, 1 };

      g_assert_true (ef_backend_read_image (be, &one, rows + (gsize) y * bp.grid.width, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (ef_cuda_test_count_nonfinite (whole, n), ==, 0);
  g_assert_cmpmem (whole, n * sizeof (EfCf32), rows, n * sizeof (EfCf32));
  sub = (EfRect) { 7, 5, bp.grid.width - 11, bp.grid.height - 140 };
  g_assert_cmpuint ((gsize) sub.width * sub.height * sizeof (EfCf32), >, (gsize) 16 << 20);
  part = g_new (EfCf32, (gsize) sub.width * sub.height);
  ef_cuda_test_poison (part, (gsize) sub.width * sub.height);
  g_assert_true (ef_backend_read_image (be, &sub, part, &error));
  g_assert_no_error (error);
  for (guint y = 0; y < sub.height; y++)
    differ += memcmp (part + (gsize) y * sub.width, whole + (gsize) (y + sub.y) * bp.grid.width + sub.x,
                      sub.width * sizeof (EfCf32)) != 0;
  g_test_message ("%u x %u px (%.1f MB): the whole image and a %u x %u rectangle at (%u, %u) read through the "
                  "staging buffers, the same bits as row by row; %u rows differ", bp.grid.width, bp.grid.height,
                  n * sizeof (EfCf32) / 1e6, sub.width, sub.height, sub.x, sub.y, differ);
  g_assert_cmpuint (differ, ==, 0);
}

static void
test_multi_device (void)
{
  g_autofree EfSimTarget *tg = ef_test_random_targets (300, -12, -12, 12, 12);
  g_autoptr (EfDataset) ds = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf64 *one64 = NULL;
  g_autofree EfCf32 *one = NULL;
  guint n_dev = ef_cuda_device_count ();
  gsize n;

  /* Asking for more devices than there are is an error, never a quiet fallback to fewer. */
  {
    EfBackendParams bp = { 0 };
    g_autoptr (GError) error = NULL;
    g_autoptr (EfBackend) be = NULL;
    g_autoptr (EfDataset) small = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 8, tg, 2);

    g_assert_true (ef_grid_init_roi (&bp.grid, -5, -5, 5, 5, 0.2, NULL));
    bp.range = rp;
    bp.precision = EF_PRECISION_FP32;
    bp.block_size = 8;
    bp.device = -1;
    bp.n_devices = n_dev + 1;
    be = ef_backend_cuda_new (&small->info, &bp, &error);
    g_assert_null (be);
    g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE);
    g_test_message ("%u devices asked for: %s", n_dev + 1, error ? error->message : "(no error)");
  }
  if (n_dev < 2)
    {
      g_test_skip ("fewer than 2 CUDA devices");
      return;
    }

  ds = simulate (ef_sim_params_init_airborne, EF_DOMAIN_FX, 301, tg, 300);
  g_assert_true (ef_grid_init_roi (&grid, -13.1, -9.7, 7.3, 11.9, 0.157, NULL));
  n = ef_grid_n_pixels (&grid);
  ref = ef_test_form_fp64 (ds, &grid, &rp);
  one = form_cuda_on (ds, &grid, &rp, EF_PRECISION_FP32, NULL, 64, 1, NULL);
  one64 = g_new (EfCf64, n);
  for (gsize i = 0; i < n; i++)
    one64[i] = one[i];

  /* Calls of 64 (32 each), 37 (18 + 19) and 1 pulse (the second device idle), and all devices. */
  {
    static const guint blocks[] = { 64, 37, 1 };

    for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
      for (guint k = 0; k < 2; k++)
        {
          guint devs = k == 0 ? 2 : EF_BACKEND_ALL_DEVICES;
          g_autofree EfCf32 *img = form_cuda_on (ds, &grid, &rp, EF_PRECISION_FP32, NULL, blocks[i], devs, NULL);
          double ser = ef_cuda_test_ser_db (img, ref, n), ser1 = ef_cuda_test_ser_db (img, one64, n);

          g_test_message ("%s devices, calls of %u pulses: fp32 SER %.1f dB against float64, %.1f dB against one "
                          "device", k == 0 ? "2" : "all", blocks[i], ser, ser1);
          g_assert_cmpfloat (ser, >=, MULTI_SER_DB);
          g_assert_cmpfloat (ser1, >=, MULTI_ONE_SER_DB);
        }
  }
  {
    g_autofree EfCf32 *img = form_cuda_on (ds, &grid, &rp, EF_PRECISION_FP16, NULL, 64, 2, NULL);
    double psnr = ef_cuda_test_psnr_db (img, ref, n);

    g_test_message ("2 devices, fp16: SER %.1f dB (magnitude PSNR %.1f dB) against float64",
                    ef_cuda_test_ser_db (img, ref, n), psnr);
    g_assert_cmpfloat (psnr, >=, MULTI_PSNR16_DB);
  }

  /* Backend level: stats, bad samples in both shares, a sub-rectangle, clear(). */
  {
    EfBackendParams bp = { 0 };
    g_autoptr (EfBackend) be = NULL;
    g_autoptr (GError) error = NULL;
    guint np = (guint) ds->info.n_pulses;
    g_autofree EfCf32 *s = g_new (EfCf32, (gsize) np * ds->info.n_samples);
    g_autofree EfCf32 *all_px = g_new (EfCf32, n);
    EfRect all = { 0, 0, grid.width, grid.height }, r = { 17, 40, 33, 29 }, dirty[2];
    g_autofree EfCf32 *sub = g_new (EfCf32, (gsize) r.width * r.height);
    EfCudaStats st;

    bp.grid = grid;
    bp.range = rp;
    bp.precision = EF_PRECISION_FP32;
    bp.block_size = 128;
    bp.device = -1;
    bp.n_devices = 2;
    be = ef_backend_cuda_new (&ds->info, &bp, &error);
    g_assert_no_error (error);
    if (be == NULL)
      return;
    g_assert_true (ef_backend_is_cuda (be));
    g_assert_cmpstr (ef_backend_name (be), ==, "cuda");
    g_assert_cmpuint (ef_backend_cuda_dirty (be, dirty, 2), ==, 0);
    g_assert_true (ef_dataset_read_block (ds, 0, np, s, NULL));
    /* One bad sample in each device's share. */
    s[3] = NAN;
    s[(gsize) (np - 1) * ds->info.n_samples + 5] = CMPLXF (INFINITY, 0.0f);
    for (guint p0 = 0; p0 < np; p0 += 128)
      g_assert_true (ef_backend_process_block (be, ds->pulses + p0, s + (gsize) p0 * ds->info.n_samples,
                                               MIN (128u, np - p0), &error));
    g_assert_no_error (error);
    g_assert_cmpuint (ef_backend_cuda_dirty (be, dirty, 2), ==, 1);
    ef_cuda_test_poison (all_px, n);
    g_assert_true (ef_backend_read_image (be, &all, all_px, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (be->n_bad_samples, ==, 2);
    g_assert_cmpuint (ef_cuda_test_count_nonfinite (all_px, n), ==, 0);
    g_assert_true (ef_backend_read_image (be, &r, sub, &error));
    for (guint y = 0; y < r.height; y++)
      for (guint x = 0; x < r.width; x++)
        g_assert_true (sub[y * r.width + x] == all_px[(gsize) (r.y + y) * grid.width + r.x + x]);
    g_assert_true (ef_backend_cuda_stats (be, &st, &error));
    g_test_message ("2 devices: %" G_GUINT64_FORMAT " pixel-pulses in %u launches, %.2f ms of kernels over %u "
                    "devices", st.n_bp, st.n_launches, st.bp_ms, st.n_devices);
    g_assert_cmpuint (st.n_devices, ==, 2);
    g_assert_cmpuint (st.n_bp, ==, (guint64) np * n);
    g_assert_true (be->ops->clear (be, &error));
    g_assert_true (ef_backend_read_image (be, &all, all_px, &error));
    for (gsize i = 0; i < n; i++)
      g_assert_true (all_px[i] == 0);
  }

  /* Reading: every device sums and copies out its share of the rows asked for, in bands of 3 rows here
   * with the test switches (several bands a device, so that a band's sum overlaps the copy of the one before). The pixels are
   * the same bits whatever the rectangle, the bands or the share: every pixel is summed in device
   * order. Rectangles of fewer rows than devices leave devices idle. */
  {
    g_autofree EfCf32 *whole = form_cuda_on (ds, &grid, &rp, EF_PRECISION_FP32, NULL, 64, EF_BACKEND_ALL_DEVICES,
                                             NULL);
    g_autofree EfCf32 *banded = NULL;
    EfRect rects[] = { { 3, 2, 50, 1 }, { 0, 0, grid.width, n_dev - 1 }, { 7, 11, 33, 37 },
                       { 0, grid.height - 5, grid.width, 5 } };
    EfBackendParams bp = { 0 };
    g_autoptr (EfBackend) be = NULL;
    g_autoptr (GError) error = NULL;
    guint np = (guint) ds->info.n_pulses;
    g_autofree EfCf32 *s = g_new (EfCf32, (gsize) np * ds->info.n_samples);
    EfRect all = { 0, 0, grid.width, grid.height };
    gsize same = 0;

#if EF_TEST_HOOKS
    ef_cuda_debug_set_read_band_rows (3);
#endif
    bp.grid = grid;
    bp.range = rp;
    bp.precision = EF_PRECISION_FP32;
    bp.block_size = 64;
    bp.device = -1;
    bp.n_devices = EF_BACKEND_ALL_DEVICES;
    be = ef_backend_cuda_new (&ds->info, &bp, &error);
#if EF_TEST_HOOKS
    ef_cuda_debug_set_read_band_rows (0);
#endif
    g_assert_no_error (error);
    if (be == NULL)
      return;
    g_assert_true (ef_dataset_read_block (ds, 0, np, s, NULL));
    for (guint p0 = 0; p0 < np; p0 += 64)
      g_assert_true (ef_backend_process_block (be, ds->pulses + p0, s + (gsize) p0 * ds->info.n_samples,
                                               MIN (64u, np - p0), &error));
    g_assert_no_error (error);
    banded = g_new (EfCf32, n);
    ef_cuda_test_poison (banded, n);
    g_assert_true (ef_backend_read_image (be, &all, banded, &error));
    g_assert_no_error (error);
    for (gsize i = 0; i < n; i++)
      same += memcmp (&banded[i], &whole[i], sizeof (EfCf32)) == 0;
    g_test_message ("%u devices, bands of 3 rows against one band a device: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                    " pixels the same bits", n_dev, same, n);
    g_assert_cmpuint (same, ==, n);
    for (guint k = 0; k < G_N_ELEMENTS (rects); k++)
      {
        const EfRect *r = &rects[k];
        g_autofree EfCf32 *sub = g_new (EfCf32, MAX ((gsize) r->width * r->height, 1));

        if (r->height == 0)
          continue;
        ef_cuda_test_poison (sub, (gsize) r->width * r->height);
        g_assert_true (ef_backend_read_image (be, r, sub, &error));
        g_assert_no_error (error);
        for (guint y = 0; y < r->height; y++)
          for (guint x = 0; x < r->width; x++)
            g_assert_true (memcmp (&sub[y * r->width + x], &whole[(gsize) (r->y + y) * grid.width + r->x + x],
                                   sizeof (EfCf32)) == 0);
      }
  }
}

/* Small enough for compute-sanitizer (memcheck, racecheck): every kernel on odd sizes. */
static void
test_tiny (void)
{
  static const EfDomain domains[] = { EF_DOMAIN_FX, EF_DOMAIN_RAW };
  BpCase c = { "tiny", 10e3, 30, 4, 37, 300, 0.1, 0.1, 45, 27, FALSE };
  BpResult r;

  run_bp_case (&c, 0, &r);
  g_assert_cmpfloat (r.ser32, >=, KERNEL_SER_DB);
  c.bistatic = TRUE;
  run_bp_case (&c, 5, &r);
  g_assert_cmpfloat (r.ser32, >=, KERNEL_SER_DB);

  for (guint d = 0; d < G_N_ELEMENTS (domains); d++)
    for (EfPrecision prec = EF_PRECISION_FP32; prec <= EF_PRECISION_FP16; prec++)
      {
        g_autofree EfSimTarget *tg = ef_test_random_targets (5, -2, -2, 2, 2);
        g_autoptr (EfDataset) ds = simulate (ef_sim_params_init_airborne, domains[d], 37, tg, 5);
        EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
        EfCudaOptions o = EF_CUDA_OPTIONS_DEFAULT;
        EfGrid grid;
        g_autofree EfCf64 *ref = NULL;
        g_autofree EfCf32 *img = NULL;
        double q;

        rp.upsample = 2;
        o.max_block = 16;
        g_assert_true (ef_grid_init_roi (&grid, -2.3, -1.9, 2.1, 2.2, 0.13, NULL));
        ref = ef_test_form_fp64 (ds, &grid, &rp);
        img = form_cuda (ds, &grid, &rp, prec, &o, 20, NULL);
        q = prec == EF_PRECISION_FP32 ? ef_cuda_test_ser_db (img, ref, ef_grid_n_pixels (&grid))
                                      : ef_cuda_test_psnr_db (img, ref, ef_grid_n_pixels (&grid));
        g_test_message ("tiny %s %s: %s %.1f dB", ef_domain_to_string (domains[d]), ef_precision_to_string (prec),
                        prec == EF_PRECISION_FP32 ? "SER" : "magnitude PSNR", q);
        g_assert_cmpfloat (q, >=, prec == EF_PRECISION_FP32 ? SCENE_SER_DB : SCENE_PSNR16_DB);
      }
}

int
main (int argc, char **argv)
{
  g_autofree char *why = NULL;
  g_autofree char *name = NULL;

  g_test_init (&argc, &argv, NULL);
  /* A failed check marks its test failed and the rest of the test still runs: one device run should
   * report everything that is wrong. */
  g_test_set_nonfatal_assertions ();
  if (!ef_cuda_available (&why))
    {
      /* 77: meson reports the test as skipped, never as passed. */
      printf ("# SKIP %s\n", why);
      return 77;
    }
  name = ef_cuda_device_name (-1);
  g_test_message ("device: %s", name);

  for (guint i = 0; i < G_N_ELEMENTS (bp_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/cuda/bp/%s", bp_cases[i].name);

      g_test_add_data_func (path, &bp_cases[i], test_bp_case);
    }
  g_test_add_func ("/compute/cuda/bp/every-shape", test_bp_every_shape);
  g_test_add_func ("/compute/cuda/reference", test_reference);
  g_test_add_data_func ("/compute/cuda/backend/point-targets/fp32", GINT_TO_POINTER (EF_PRECISION_FP32),
                        test_point_targets);
  g_test_add_data_func ("/compute/cuda/backend/point-targets/fp16", GINT_TO_POINTER (EF_PRECISION_FP16),
                        test_point_targets);
  for (guint i = 0; i < G_N_ELEMENTS (scene_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/cuda/backend/scene/%s", scene_cases[i].name);

      g_test_add_data_func (path, &scene_cases[i], test_scene);
    }
  g_test_add_func ("/compute/cuda/backend/sub-blocks", test_sub_blocks);
  g_test_add_data_func ("/compute/cuda/backend/profiles/fx", GINT_TO_POINTER (EF_DOMAIN_FX), test_profiles);
  g_test_add_data_func ("/compute/cuda/backend/profiles/raw", GINT_TO_POINTER (EF_DOMAIN_RAW), test_profiles);
  g_test_add_func ("/compute/cuda/backend/streamed", test_streamed);
  g_test_add_func ("/compute/cuda/backend/oom", test_oom);
  g_test_add_func ("/compute/cuda/backend/bad-samples", test_bad_samples);
  g_test_add_func ("/compute/cuda/backend/run-record", test_run_record);
  g_test_add_func ("/compute/cuda/backend/read-rect", test_read_rect);
  g_test_add_func ("/compute/cuda/backend/errors", test_errors);
  g_test_add_func ("/compute/cuda/backend/staged-read", test_staged_read);
  g_test_add_func ("/compute/cuda/backend/multi-device", test_multi_device);
  g_test_add_func ("/compute/cuda/tiny", test_tiny);
  return g_test_run ();
}
