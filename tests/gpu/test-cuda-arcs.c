/* test-cuda-arcs.c: arc coherence and the periodogram on a device against the CPU (exits 77 without one). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-cuda-arcs"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ef-arcs.h"
#include "ef-arcs-ps.h"
#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-arcs.h"
#include "ef-sim-repeat.h"
#include "ef-error.h"
#include "ef-grid.h"
#include "ef-stack.h"
#include "ef-stack-ps.h"
#include "cuda/ef-cuda-test-hooks.h"

static EfCf32 *
random_stack (guint w, guint h, guint n)
{
  EfCf32 *s = g_new (EfCf32, (gsize) w * h * n);

  for (gsize i = 0; i < (gsize) w * h * n; i++)
    s[i] = g_test_rand_int_range (0, 50) == 0 ? 0
           : (float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1);
  return s;
}

/* The largest difference between two coherence maps; the NaN (outside) arcs must be the same. */
static double
max_diff (const float *a, const float *b, gsize n)
{
  double worst = 0;

  for (gsize i = 0; i < n; i++)
    {
      g_assert_cmpint (isnan (a[i]), ==, isnan (b[i]));
      if (!isnan (a[i]))
        worst = MAX (worst, fabs ((double) a[i] - b[i]));
    }
  return worst;
}

static void
check_plain (guint w, guint h, guint n, EfArcWindow win, EfCudaArcsMapping mapping)
{
  g_autofree EfCf32 *s = random_stack (w, h, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfArcPhasors) ph = ef_arc_phasors_new (s, w, h, n, &error);
  g_autoptr (EfCudaArcs) dev = NULL;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  guint n_off = ef_arc_offsets (&win, off);
  gsize plane = (gsize) w * h;
  g_autofree float *cpu = g_new (float, plane * n_off);
  g_autofree float *gpu = g_new (float, plane * n_off);
  g_autofree float *cpu_score = g_new (float, plane);
  g_autofree float *gpu_score = g_new (float, plane);
  EfCudaArcsTiming t;
  double d, ds;

  g_assert_no_error (error);
  ef_arcs_plain (ph, off, n_off, cpu);
  ef_arcs_pixel_scores (cpu, w, h, off, n_off, cpu_score);
  dev = ef_cuda_arcs_new (-1, w, h, n, off, n_off, NULL, NULL, &error);
  g_assert_no_error (error);
  memset (gpu, 0x7f, plane * n_off * sizeof (float));
  memset (gpu_score, 0x7f, plane * sizeof (float));
  g_assert_true (ef_cuda_arcs_run (dev, ph->re, ph->im, h, mapping, FALSE, gpu, NULL, gpu_score, &t, &error));
  g_assert_no_error (error);
  d = max_diff (cpu, gpu, plane * n_off);
  ds = max_diff (cpu_score, gpu_score, plane);
  g_test_message ("%s, %u x %u x %u, %u arcs a pixel: largest coherence difference %.3g, score %.3g; kernels %.3f ms",
                  ef_cuda_arcs_mapping_to_string (mapping), w, h, n, n_off, d, ds, t.kernel_ms);
  g_assert_cmpfloat (d, <=, 1e-5);
  g_assert_cmpfloat (ds, <=, 1e-5);
}

static void
test_window (void)
{
  check_plain (203, 37, 100, (EfArcWindow) { 2, EF_ARC_WINDOW_SQUARE }, EF_CUDA_ARCS_WINDOW);
  check_plain (97, 41, 60, (EfArcWindow) { 3, EF_ARC_WINDOW_DISC }, EF_CUDA_ARCS_WINDOW);
}

static void
test_arc (void)
{
  check_plain (203, 37, 100, (EfArcWindow) { 2, EF_ARC_WINDOW_SQUARE }, EF_CUDA_ARCS_ARC);
  check_plain (97, 41, 60, (EfArcWindow) { 3, EF_ARC_WINDOW_DISC }, EF_CUDA_ARCS_ARC);
  /* 2000 passes: the gathered series take 32 KB an arc, so the 48,000 arcs go in two chunks. */
  check_plain (100, 40, 2000, (EfArcWindow) { 2, EF_ARC_WINDOW_SQUARE }, EF_CUDA_ARCS_ARC);
}

static void
test_graph (void)
{
  check_plain (203, 37, 100, (EfArcWindow) { 2, EF_ARC_WINDOW_SQUARE }, EF_CUDA_ARCS_GRAPH);
  check_plain (97, 41, 60, (EfArcWindow) { 3, EF_ARC_WINDOW_DISC }, EF_CUDA_ARCS_GRAPH);
}

/* The coherence of arc i at grid point g, in double, from the float rotations (as the CPU's sum uses). */
static double
coherence_at (const EfArcPhasors *ph, const EfArcOffset *off, gsize i, const float *tre, const float *tim, guint g)
{
  gsize plane = (gsize) ph->width * ph->height, pix = i % plane;
  guint o = (guint) (i / plane), c = (guint) (pix % ph->width), r = (guint) (pix / ph->width), n = ph->n_passes;
  gsize q = (gsize) (r + off[o].dy) * ph->width + (c + off[o].dx);
  double sr = 0, si = 0;

  for (guint k = 0; k < n; k++)
    {
      double pr = ph->re[k * plane + pix], pi = ph->im[k * plane + pix];
      double qr = ph->re[k * plane + q], qi = ph->im[k * plane + q];
      double zr = pr * qr + pi * qi, zi = pi * qr - pr * qi;
      double a = tre[(gsize) g * n + k], b = tim[(gsize) g * n + k];

      sr += zr * a - zi * b;
      si += zr * b + zi * a;
    }
  return sqrt (sr * sr + si * si) / n;
}

/* The periodogram on the device against the CPU's, over a grid and n passes. limit: the largest
 * coherence difference allowed; where the device picks another grid point than the CPU, that point's
 * exact coherence must be within limit of the CPU's maximum (flat periodograms of random arcs have
 * near-ties that rounding may swap). kernel: what ef_cuda_arcs_periodogram_kernel must say ran. */
static void
check_periodogram_on (EfCudaArcsPgPath path, EfArcGrid grid, guint n, double limit, double min_same,
                      const char *kernel)
{
  guint w = 61, h = 29, n_grid = grid.nv * grid.nh;
  g_autofree EfCf32 *s = random_stack (w, h, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfArcPhasors) ph = ef_arc_phasors_new (s, w, h, n, &error);
  g_autoptr (EfCudaArcs) dev = NULL;
  g_autofree double *t = g_new (double, n), *b = g_new (double, n);
  EfArcModel m;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  EfArcWindow win = { 2, EF_ARC_WINDOW_SQUARE };
  guint n_off = ef_arc_offsets (&win, off);
  gsize plane = (gsize) w * h, same = 0, valid = 0;
  g_autofree float *cpu = g_new (float, plane * n_off);
  g_autofree float *gpu = g_new (float, plane * n_off);
  g_autofree guint16 *cpu_best = g_new (guint16, plane * n_off);
  g_autofree guint16 *gpu_best = g_new (guint16, plane * n_off);
  g_autofree float *tre = g_new (float, (gsize) n_grid * n), *tim = g_new (float, (gsize) n_grid * n);
  EfCudaArcsTiming tm;
  double d, worst_pick = 0;

  for (guint k = 0; k < n; k++)
    {
      t[k] = 2.0 * k / (n - 1);
      b[k] = g_test_rand_double_range (-300, 300);
    }
  m = (EfArcModel) { 0.031, 700e3, 35.0, n, t, b };
  ef_arc_phase_table (&m, &grid, tre, tim);
  g_assert_true (ef_arcs_periodogram (ph, off, n_off, &m, &grid, cpu, cpu_best, &error));
  dev = ef_cuda_arcs_new (-1, w, h, n, off, n_off, &m, &grid, &error);
  g_assert_no_error (error);
  g_assert_true (ef_cuda_arcs_set_periodogram_path (dev, path, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (ef_cuda_arcs_periodogram_kernel (dev), ==, kernel);
  memset (gpu, 0x7f, plane * n_off * sizeof (float));
  memset (gpu_best, 0x55, plane * n_off * sizeof (guint16));
  g_assert_true (ef_cuda_arcs_run (dev, ph->re, ph->im, h, EF_CUDA_ARCS_WINDOW, TRUE, gpu, gpu_best, NULL, &tm,
                                   &error));
  g_assert_no_error (error);
  d = max_diff (cpu, gpu, plane * n_off);
  for (gsize i = 0; i < plane * n_off; i++)
    if (!isnan (cpu[i]))
      {
        valid++;
        if (cpu_best[i] == gpu_best[i])
          same++;
        else
          {
            g_assert_cmpuint (gpu_best[i], <, n_grid);
            worst_pick = MAX (worst_pick, cpu[i] - coherence_at (ph, off, i, tre, tim, gpu_best[i]));
          }
      }
    else
      g_assert_cmpuint (gpu_best[i], ==, G_MAXUINT16);
  g_test_message ("periodogram %u x %u (v %g to %g, h %g to %g), %u passes, %s: largest coherence difference "
                  "%.3g; the same grid point for %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " arcs, the others within "
                  "%.3g of the maximum; kernel %.3f ms", grid.nv, grid.nh, grid.v_min, grid.v_max, grid.h_min,
                  grid.h_max, n, kernel, d, same, valid, worst_pick, tm.kernel_ms);
  g_assert_cmpfloat (d, <=, limit);
  g_assert_cmpfloat (worst_pick, <=, limit);
  g_assert_cmpfloat ((double) same / valid, >=, min_same);
}

/* Over a 40 x 40 grid and 100 passes (neither a multiple of the kernels' staging). */
static void
check_periodogram (EfCudaArcsPgPath path, double limit, double min_same, const char *kernel)
{
  check_periodogram_on (path, (EfArcGrid) { -0.02, 0.02, 40, -30, 30, 40 }, 100, limit, min_same, kernel);
}

static void
test_periodogram (void)
{
  check_periodogram (EF_CUDA_ARCS_PG_FP32, 1e-5, 0.99, "CUDA cores, folded grid");
}

/* The folded grid on the device: odd edges (the centre its own mirror), a grid off zero (-5 to 25 mm/yr,
 * 10 to 50 m), pairs a multiple of the kernel's tile (64 x 64: 2048) and passes a multiple of its chunk
 * (64), passes fewer than a chunk (7), and one point. */
static void
test_periodogram_folded (void)
{
  check_periodogram_on (EF_CUDA_ARCS_PG_FP32, (EfArcGrid) { -0.02, 0.02, 41, -30, 30, 39 }, 100, 1e-5, 0.99,
                        "CUDA cores, folded grid");
  check_periodogram_on (EF_CUDA_ARCS_PG_FP32, (EfArcGrid) { -0.005, 0.025, 40, 10, 50, 40 }, 100, 1e-5, 0.99,
                        "CUDA cores, folded grid");
  check_periodogram_on (EF_CUDA_ARCS_PG_FP32, (EfArcGrid) { -0.02, 0.02, 64, -30, 30, 64 }, 64, 1e-5, 0.99,
                        "CUDA cores, folded grid");
  check_periodogram_on (EF_CUDA_ARCS_PG_FP32, (EfArcGrid) { -0.02, 0.02, 9, -30, 30, 11 }, 7, 1e-5, 0.99,
                        "CUDA cores, folded grid");
  check_periodogram_on (EF_CUDA_ARCS_PG_FP32, (EfArcGrid) { 0.003, 0.003, 1, 17, 17, 1 }, 20, 1e-5, 1.0,
                        "CUDA cores, folded grid");
}

/* The full-grid kernel, which devices short of shared memory run: forced by the test hook at 100
 * passes, and taken by itself at 1000 (a block's series would need 0.5 MB of shared memory). */
static void
test_periodogram_full_grid (void)
{
#if EF_TEST_HOOKS
  ef_cuda_arcs_debug_full_grid (TRUE);
  check_periodogram (EF_CUDA_ARCS_PG_FP32, 1e-5, 0.99, "CUDA cores, full grid");
  ef_cuda_arcs_debug_full_grid (FALSE);
#endif
  check_periodogram_on (EF_CUDA_ARCS_PG_FP32, (EfArcGrid) { -0.02, 0.02, 8, -30, 30, 6 }, 1000, 1e-5, 0.99,
                        "CUDA cores, full grid");
}

/* fp16 rounding of series and rotations: about 2^-11 each, over 100 passes summed in fp32, predicts
 * a few 1e-5 in coherence; the bound is the 1e-3 allowed a reduced-precision path. The folded grid on
 * 40 x 40 and 100 passes, and on an odd grid off zero with 37 passes (neither a multiple of 16). */
static void
test_periodogram_tensor (void)
{
  check_periodogram (EF_CUDA_ARCS_PG_TENSOR, 1e-3, 0.9, "tensor cores, folded grid");
  check_periodogram_on (EF_CUDA_ARCS_PG_TENSOR, (EfArcGrid) { -0.005, 0.025, 41, 10, 50, 39 }, 37, 1e-3, 0.9,
                        "tensor cores, folded grid");
#if EF_TEST_HOOKS
  /* The full-grid tensor-core kernel, kept behind the test hook as the folded one's reference. */
  ef_cuda_arcs_debug_full_grid (TRUE);
  check_periodogram (EF_CUDA_ARCS_PG_TENSOR, 1e-3, 0.9, "tensor cores, full grid");
  ef_cuda_arcs_debug_full_grid (FALSE);
#endif
}

/* Scores from the device pick the same PS candidates as the CPU's on a simulated stack. */
static void
test_ps_scores (void)
{
  EfRepeatParams rp;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) truth = NULL;
  g_autoptr (EfArcPhasors) ph = NULL;
  g_autoptr (EfCudaArcs) dev = NULL;
  g_autofree EfCf32 *stack = NULL;
  EfPsParams pp;
  EfArcModel m;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  guint w = 80, h = 80, n_off, differ = 0, cand = 0;
  gsize plane = (gsize) w * h;
  g_autofree float *cpu = NULL, *gpu = NULL, *cs = NULL, *gs = NULL;

  ef_repeat_params_init (&rp, w, h);
  rp.n_ps = 800;
  rp.seed = g_test_rand_int ();
  truth = ef_repeat_truth_new (&rp, &error);
  stack = g_new (EfCf32, plane * rp.n_passes);
  for (guint k = 0; k < rp.n_passes; k++)
    ef_repeat_slc (truth, k, stack + k * plane);
  m = (EfArcModel) { rp.wavelength, rp.range, rp.incidence_deg, rp.n_passes, truth->t_years, truth->bperp };
  ef_ps_params_init (&pp);
  n_off = ef_arc_offsets (&pp.window, off);
  ph = ef_arc_phasors_new (stack, w, h, rp.n_passes, &error);
  cpu = g_new (float, plane * n_off);
  gpu = g_new (float, plane * n_off);
  cs = g_new (float, plane);
  gs = g_new (float, plane);
  g_assert_true (ef_arcs_periodogram (ph, off, n_off, &m, &pp.grid, cpu, NULL, &error));
  ef_arcs_pixel_scores (cpu, w, h, off, n_off, cs);
  dev = ef_cuda_arcs_new (-1, w, h, rp.n_passes, off, n_off, &m, &pp.grid, &error);
  g_assert_no_error (error);
  g_assert_true (ef_cuda_arcs_run (dev, ph->re, ph->im, h, EF_CUDA_ARCS_WINDOW, TRUE, gpu, NULL, gs, NULL, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < plane; i++)
    {
      cand += cs[i] >= pp.threshold;
      /* A score within rounding of the threshold may fall either way. */
      if (fabs (cs[i] - pp.threshold) > 1e-5)
        differ += (cs[i] >= pp.threshold) != (gs[i] >= pp.threshold);
    }
  g_test_message ("PS scores: %u candidates on the CPU, %u pixels decided otherwise on the device", cand, differ);
  g_assert_cmpuint (differ, ==, 0);
  g_assert_cmpuint (cand, >=, 0.95 * truth->n_ps);

  /* The tensor-core path: only pixels whose score lies within its 1e-3 of the threshold may differ. */
  {
    guint near = 0;

    differ = 0;
    g_assert_true (ef_cuda_arcs_set_periodogram_path (dev, EF_CUDA_ARCS_PG_TENSOR, &error));
    g_assert_no_error (error);
    g_assert_true (ef_cuda_arcs_run (dev, ph->re, ph->im, h, EF_CUDA_ARCS_WINDOW, TRUE, gpu, NULL, gs, NULL,
                                     &error));
    g_assert_no_error (error);
    for (gsize i = 0; i < plane; i++)
      {
        gboolean d = (cs[i] >= pp.threshold) != (gs[i] >= pp.threshold);

        if (fabs (cs[i] - pp.threshold) > 1e-3)
          differ += d;
        else
          near += d;
      }
    g_test_message ("PS scores on tensor cores: %u pixels decided otherwise (%u more within 1e-3 of the threshold)",
                    differ, near);
    g_assert_cmpuint (differ, ==, 0);
  }
}

static void
test_bad_args (void)
{
  g_autoptr (GError) error = NULL;
  EfArcOffset off[1] = { { 1, 0 } };
  g_autoptr (EfCudaArcs) dev = ef_cuda_arcs_new (-1, 0, 10, 10, off, 1, NULL, NULL, &error);
  float re[20] = { 0 }, im[20] = { 0 };

  g_assert_null (dev);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  dev = ef_cuda_arcs_new (-1, 2, 5, 2, off, 1, NULL, NULL, &error);
  g_assert_no_error (error);
  /* More rows than the session holds, and a periodogram it has no table for. */
  g_assert_false (ef_cuda_arcs_run (dev, re, im, 6, EF_CUDA_ARCS_WINDOW, FALSE, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ef_cuda_arcs_run (dev, re, im, 5, EF_CUDA_ARCS_WINDOW, TRUE, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* A device past the last. */
  g_clear_pointer (&dev, ef_cuda_arcs_free);
  dev = ef_cuda_arcs_new ((int) ef_cuda_device_count (), 2, 5, 2, off, 1, NULL, NULL, &error);
  g_assert_null (dev);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d != NULL)
    while ((name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        if (g_file_test (child, G_FILE_TEST_IS_DIR))
          remove_tree (child);
        else
          g_remove (child);
      }
  g_rmdir (path);
}

/* Two networks candidate for candidate and arc for arc, bit for bit. */
static void
assert_same_network (const EfPsNetwork *a, const EfPsNetwork *b)
{
  g_assert_cmpuint (a->candidates->len, ==, b->candidates->len);
  g_assert_cmpuint (a->arcs->len, ==, b->arcs->len);
  g_assert_cmpuint (a->n_connected, ==, b->n_connected);
  for (guint i = 0; i < a->candidates->len && i < b->candidates->len; i++)
    {
      const EfPsCandidate *x = &g_array_index (a->candidates, EfPsCandidate, i);
      const EfPsCandidate *y = &g_array_index (b->candidates, EfPsCandidate, i);

      g_assert_true (x->col == y->col && x->row == y->row && x->connected == y->connected);
      g_assert_true (memcmp (&x->score, &y->score, sizeof x->score) == 0);
      g_assert_true (memcmp (&x->velocity, &y->velocity, sizeof x->velocity) == 0);
      g_assert_true (memcmp (&x->height, &y->height, sizeof x->height) == 0);
    }
}

/* A stored stack's strips on one device, then shared between two (a thread each): the same network bit
 * for bit, plain, periodogram and the periodogram on tensor cores. The two-device runs skip on one GPU. */
static void
test_stack_devices (void)
{
  static const EfStackGeometry geo = { 0.031, 700e3, 35.0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) truth = NULL;
  g_autoptr (EfStack) stack = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-arcs-XXXXXX", &error);
  EfRepeatParams rp;
  EfGrid grid;
  guint n_dev = ef_cuda_device_count ();

  g_assert_no_error (error);
  ef_repeat_params_init (&rp, 96, 160);
  rp.n_passes = 40;
  rp.n_ps = 600;
  rp.seed = g_test_rand_int ();
  truth = ef_repeat_truth_new (&rp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_grid_init_roi (&grid, 0, 0, 48, 80, 0.5, &error));
  stack = ef_stack_create (dir, &grid, 16, &geo, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < rp.n_passes; k++)
    {
      g_autoptr (EfImage) img = ef_image_new (&grid, &error);

      ef_repeat_slc (truth, k, img->data);
      g_assert_true (ef_stack_add_pass (stack, img, truth->t_years[k], truth->bperp[k], NULL, NULL, &error));
    }
  for (int mode = 0; mode < 3; mode++)
    {
      g_autoptr (EfPsNetwork) one = NULL;
      g_autoptr (EfPsNetwork) two = NULL;
      EfStackPsOptions opt = { EF_BACKEND_CUDA, EF_CUDA_ARCS_GRAPH,
                               mode == 2 ? EF_ARCS_PG_TENSOR : EF_ARCS_PG_FP32, 1 };
      EfStackPsReport rep = { 0 };
      EfPsParams pp;

      ef_ps_params_init (&pp);
      pp.window.radius = 2;
      pp.plain = mode == 0;
      one = ef_stack_ps_run (stack, &pp, &opt, NULL, NULL, NULL, &rep, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (rep.backend, ==, "cuda");
      g_assert_null (rep.reason);
      g_assert_cmpuint (rep.n_devices, ==, 1);
      if (mode == 2)
        g_assert_cmpstr (rep.periodogram, ==, EF_ARCS_PG_TENSOR_LABEL);
      g_test_message ("%s, one device: %u candidates, %u connected, periodogram %s",
                      mode == 0 ? "plain" : "periodogram", one->candidates->len, one->n_connected,
                      rep.periodogram != NULL ? rep.periodogram : "-");
      ef_stack_ps_report_clear (&rep);
      g_assert_cmpuint (one->candidates->len, >, 100);
      if (n_dev < 2)
        continue;
      opt.n_devices = 2;
      two = ef_stack_ps_run (stack, &pp, &opt, NULL, NULL, NULL, &rep, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (rep.backend, ==, "cuda");
      g_assert_null (rep.reason);
      g_assert_cmpuint (rep.n_devices, ==, 2);
      if (mode == 2)
        g_assert_cmpstr (rep.periodogram, ==, EF_ARCS_PG_TENSOR_LABEL);
      ef_stack_ps_report_clear (&rep);
      assert_same_network (one, two);
    }
  g_clear_pointer (&stack, ef_stack_free);
  remove_tree (dir);
  if (n_dev < 2)
    g_test_skip ("one device: the two-device runs need two");
}

int
main (int argc, char **argv)
{
  g_autofree char *why = NULL;
  g_autofree char *name = NULL;

  g_test_init (&argc, &argv, NULL);
  g_test_set_nonfatal_assertions ();
  if (!ef_cuda_available (&why))
    {
      /* 77: meson reports the test as skipped, never as passed. */
      printf ("# SKIP %s\n", why);
      return 77;
    }
  name = ef_cuda_device_name (-1);
  g_test_message ("device: %s", name);
  g_test_add_func ("/compute/cuda/arcs/plain/window", test_window);
  g_test_add_func ("/compute/cuda/arcs/plain/arc", test_arc);
  g_test_add_func ("/compute/cuda/arcs/plain/graph", test_graph);
  g_test_add_func ("/compute/cuda/arcs/periodogram", test_periodogram);
  g_test_add_func ("/compute/cuda/arcs/periodogram-folded", test_periodogram_folded);
  g_test_add_func ("/compute/cuda/arcs/periodogram-full-grid", test_periodogram_full_grid);
  g_test_add_func ("/compute/cuda/arcs/periodogram-tensor", test_periodogram_tensor);
  g_test_add_func ("/compute/cuda/arcs/ps-scores", test_ps_scores);
  g_test_add_func ("/compute/cuda/arcs/bad-args", test_bad_args);
  g_test_add_func ("/compute/cuda/arcs/stack-devices", test_stack_devices);
  return g_test_run ();
}
