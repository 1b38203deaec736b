/* test-arcs.c: temporal arc coherence and PS selection against float64 and against the simulator's truth. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-arcs"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-arcs.h"
#include "ef-arcs-ps.h"
#include "ef-sim-repeat.h"
#include "ef-error.h"
#include "ef-test-hooks.h"

static void
test_offsets (void)
{
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  EfArcWindow sq = { 2, EF_ARC_WINDOW_SQUARE }, disc = { 2, EF_ARC_WINDOW_DISC };
  guint n = ef_arc_offsets (&sq, off);

  g_assert_cmpuint (n, ==, 12);
  /* Each unordered pair once: no offset is the negative of another, and none is zero. */
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (off[i].dy > 0 || (off[i].dy == 0 && off[i].dx > 0));
      for (guint j = 0; j < n; j++)
        g_assert_false (off[i].dx == -off[j].dx && off[i].dy == -off[j].dy);
    }
  g_assert_cmpuint (ef_arc_offsets (&disc, off), ==, 6);
  sq.radius = EF_ARC_MAX_RADIUS;
  g_assert_cmpuint (ef_arc_offsets (&sq, off), ==, EF_ARC_MAX_OFFSETS);
}

/* A random stack with some pixels zero. */
static EfCf32 *
random_stack (guint w, guint h, guint n)
{
  EfCf32 *s = g_new (EfCf32, (gsize) w * h * n);

  for (gsize i = 0; i < (gsize) w * h * n; i++)
    s[i] = g_test_rand_int_range (0, 50) == 0 ? 0
           : (float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1);
  return s;
}

static EfCf64
unit64 (EfCf32 s)
{
  double a = cabs ((EfCf64) s);
  return a > 0 ? (EfCf64) s / a : 0;
}

static double
rel_l2 (const float *t, const double *r, gsize n)
{
  double e = 0, s = 0;

  for (gsize i = 0; i < n; i++)
    if (isfinite (r[i]))
      {
        e += (t[i] - r[i]) * (t[i] - r[i]);
        s += r[i] * r[i];
      }
  return sqrt (e / s);
}

/* Plain coherence against float64 on fresh random inputs, the output poisoned first. */
static void
test_plain_reference (void)
{
  guint w = 37, h = 23, n = 100;
  g_autofree EfCf32 *s = random_stack (w, h, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfArcPhasors) ph = ef_arc_phasors_new (s, w, h, n, &error);
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  EfArcWindow win = { 3, EF_ARC_WINDOW_DISC };
  guint n_off = ef_arc_offsets (&win, off);
  gsize plane = (gsize) w * h;
  g_autofree float *coh = g_new (float, plane * n_off);
  g_autofree double *ref = g_new (double, plane * n_off);
  double err;

  g_assert_no_error (error);
  memset (coh, 0x7f, plane * n_off * sizeof (float));
  ef_arcs_plain (ph, off, n_off, coh);
  for (guint o = 0; o < n_off; o++)
    for (guint r = 0; r < h; r++)
      for (guint c = 0; c < w; c++)
        {
          int qc = (int) c + off[o].dx, qr = (int) r + off[o].dy;
          EfCf64 acc = 0;
          gsize i = o * plane + (gsize) r * w + c;

          if (qc < 0 || qc >= (int) w || qr >= (int) h)
            {
              ref[i] = NAN;
              g_assert_true (isnan (coh[i]));
              continue;
            }
          for (guint k = 0; k < n; k++)
            acc += unit64 (s[k * plane + r * w + c]) * conj (unit64 (s[k * plane + (gsize) qr * w + qc]));
          ref[i] = cabs (acc) / n;
          g_assert_true (isfinite (coh[i]));
        }
  err = rel_l2 (coh, ref, plane * n_off);
  g_test_message ("plain coherence: relative L2 error %.3g against float64", err);
  g_assert_cmpfloat (err, <, 1e-5);
}

static void
random_model (EfArcModel *m, double *t, double *b, guint n)
{
  for (guint k = 0; k < n; k++)
    {
      t[k] = 2.0 * k / (n - 1) + g_test_rand_double_range (-0.01, 0.01);
      b[k] = g_test_rand_double_range (-300, 300);
    }
  *m = (EfArcModel) { 0.031, 700e3, 35.0, n, t, b };
}

/* The periodogram against float64 brute force over the grid, on random arcs with a planted signal. */
static void
test_periodogram_reference (void)
{
  guint w = 29, h = 17, n = 60;
  g_autofree EfCf32 *s = random_stack (w, h, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfArcPhasors) ph = NULL;
  double t[60], b[60];
  EfArcModel m;
  EfArcGrid grid = { -0.01, 0.01, 9, -20, 20, 7 };
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  EfArcWindow win = { 2, EF_ARC_WINDOW_SQUARE };
  guint n_off = ef_arc_offsets (&win, off);
  gsize plane = (gsize) w * h;
  g_autofree float *coh = g_new (float, plane * n_off);
  g_autofree guint16 *best = g_new (guint16, plane * n_off);
  g_autofree double *ref = g_new (double, plane * n_off);
  g_autofree EfCf64 *z = g_new (EfCf64, n);
  double err, worst_pick = 0;

  random_model (&m, t, b, n);
  /* Pixel (5, 5) and its right neighbour turn by a grid point's model: their arc is coherent. */
  for (guint k = 0; k < n; k++)
    {
      double v, hh, ph0;

      ef_arc_grid_point (&grid, 23, &v, &hh);
      ph0 = 4 * G_PI / m.wavelength * (v * t[k] + hh * b[k] / (m.range * sin (m.incidence_deg * G_PI / 180)));
      s[k * plane + 5 * w + 5] = (float) cos (ph0) + I * (float) sin (ph0);
      s[k * plane + 5 * w + 6] = 1;
    }
  ph = ef_arc_phasors_new (s, w, h, n, &error);
  memset (coh, 0x7f, plane * n_off * sizeof (float));
  memset (best, 0x55, plane * n_off * sizeof (guint16));
  g_assert_true (ef_arcs_periodogram (ph, off, n_off, &m, &grid, coh, best, &error));
  g_assert_no_error (error);
  for (guint o = 0; o < n_off; o++)
    for (guint r = 0; r < h; r++)
      for (guint c = 0; c < w; c++)
        {
          int qc = (int) c + off[o].dx, qr = (int) r + off[o].dy;
          gsize i = o * plane + (gsize) r * w + c;
          double top = 0, v, hh;

          if (qc < 0 || qc >= (int) w || qr >= (int) h)
            {
              ref[i] = NAN;
              g_assert_true (isnan (coh[i]));
              g_assert_cmpuint (best[i], ==, G_MAXUINT16);
              continue;
            }
          for (guint k = 0; k < n; k++)
            z[k] = unit64 (s[k * plane + r * w + c]) * conj (unit64 (s[k * plane + (gsize) qr * w + qc]));
          for (guint g = 0; g < grid.nv * grid.nh; g++)
            {
              ef_arc_grid_point (&grid, g, &v, &hh);
              top = MAX (top, ef_arc_periodogram64 (z, &m, v, hh));
            }
          ref[i] = top;
          /* The grid point picked is a maximum to within float rounding. */
          g_assert_cmpuint (best[i], <, grid.nv * grid.nh);
          ef_arc_grid_point (&grid, best[i], &v, &hh);
          worst_pick = MAX (worst_pick, top - ef_arc_periodogram64 (z, &m, v, hh));
        }
  err = rel_l2 (coh, ref, plane * n_off);
  g_test_message ("periodogram: relative L2 error %.3g against float64; worst pick %.3g below the maximum", err,
                  worst_pick);
  g_assert_cmpfloat (err, <, 1e-5);
  g_assert_cmpfloat (worst_pick, <, 1e-5);
  /* The planted arc: coherence 1 at grid point 23. */
  g_assert_cmpfloat (fabs (coh[5 * w + 5] - 1), <, 1e-5);
  g_assert_cmpuint (best[5 * w + 5], ==, 23);
}

/* The folded grid's periodogram against the full grid summed in float64 on fresh random arcs: odd and
 * even edges, a single velocity, and a grid far from zero (its centre's rotation is then large). The
 * coherence within 1e-5; the grid point the same as float64's first maximum, except where the point
 * picked is within 1e-5 of it (a near tie that rounding may swap). One pixel is zero in every pass: its
 * arcs' sums are all exactly zero, a tie over the whole grid, which the first point must win. */
static void
check_folded (const EfArcGrid *grid, guint *n_mismatch)
{
  guint w = 23, h = 13, n = 47, n_grid = grid->nv * grid->nh;
  g_autofree EfCf32 *s = random_stack (w, h, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfArcPhasors) ph = NULL;
  double t[47], b[47];
  EfArcModel m;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  EfArcWindow win = { 2, EF_ARC_WINDOW_SQUARE };
  guint n_off = ef_arc_offsets (&win, off), zero_arcs = 0;
  gsize plane = (gsize) w * h;
  g_autofree float *coh = g_new (float, plane * n_off);
  g_autofree guint16 *best = g_new (guint16, plane * n_off);
  g_autofree EfCf64 *rot = g_new (EfCf64, (gsize) n_grid * n);
  g_autofree double *cg = g_new (double, n_grid);
  double worst = 0, worst_pick = 0, a, hf;

  random_model (&m, t, b, n);
  a = 4 * G_PI / m.wavelength;
  hf = 1.0 / (m.range * sin (m.incidence_deg * G_PI / 180));
  for (guint g = 0; g < n_grid; g++)
    {
      double v, hh;

      ef_arc_grid_point (grid, g, &v, &hh);
      for (guint k = 0; k < n; k++)
        {
          double phase = a * (v * t[k] + hh * b[k] * hf);
          rot[(gsize) g * n + k] = cos (phase) - I * sin (phase);
        }
    }
  for (guint k = 0; k < n; k++)
    s[k * plane + 6 * w + 11] = 0;
  ph = ef_arc_phasors_new (s, w, h, n, &error);
  g_assert_no_error (error);
  memset (coh, 0x7f, plane * n_off * sizeof (float));
  memset (best, 0x55, plane * n_off * sizeof (guint16));
  g_assert_true (ef_arcs_periodogram (ph, off, n_off, &m, grid, coh, best, &error));
  g_assert_no_error (error);
  for (guint o = 0; o < n_off; o++)
    for (guint r = 0; r < h; r++)
      for (guint c = 0; c < w; c++)
        {
          int qc = (int) c + off[o].dx, qr = (int) r + off[o].dy;
          gsize i = o * plane + (gsize) r * w + c;
          EfCf64 z[47];
          double top = -1;
          guint top_g = 0;

          if (qc < 0 || qc >= (int) w || qr >= (int) h)
            {
              g_assert_true (isnan (coh[i]));
              g_assert_cmpuint (best[i], ==, G_MAXUINT16);
              continue;
            }
          for (guint k = 0; k < n; k++)
            z[k] = unit64 (s[k * plane + r * w + c]) * conj (unit64 (s[k * plane + (gsize) qr * w + qc]));
          for (guint g = 0; g < n_grid; g++)
            {
              EfCf64 acc = 0;

              for (guint k = 0; k < n; k++)
                acc += z[k] * rot[(gsize) g * n + k];
              cg[g] = cabs (acc) / n;
              if (cg[g] > top)
                {
                  top = cg[g];
                  top_g = g;
                }
            }
          worst = MAX (worst, fabs (coh[i] - top));
          g_assert_cmpuint (best[i], <, n_grid);
          if (best[i] != top_g)
            {
              (*n_mismatch)++;
              worst_pick = MAX (worst_pick, top - cg[best[i]]);
            }
          if ((r == 6 && c == 11) || (qr == 6 && qc == 11))
            {
              zero_arcs++;
              g_assert_cmpfloat (coh[i], ==, 0);
              g_assert_cmpuint (best[i], ==, 0);
            }
        }
  g_test_message ("folded grid %u x %u, v [%g, %g], h [%g, %g]: largest coherence difference from float64 %.3g; "
                  "%u arcs (of %" G_GSIZE_FORMAT " slots) picked another point than float64, within %.3g of its "
                  "maximum; %u all-zero arcs picked point 0", grid->nv, grid->nh, grid->v_min, grid->v_max,
                  grid->h_min, grid->h_max, worst, *n_mismatch, plane * n_off, worst_pick, zero_arcs);
  g_assert_cmpfloat (worst, <=, 1e-5);
  g_assert_cmpfloat (worst_pick, <=, 1e-5);
  g_assert_cmpuint (zero_arcs, >, 0);
}

static void
test_periodogram_folded (void)
{
  static const EfArcGrid grids[] = {
    { -0.01, 0.01, 9, -20, 20, 7 },      /* both odd: the centre is a point, its own mirror */
    { -0.01, 0.01, 8, -20, 20, 6 },      /* both even */
    { -0.01, 0.01, 7, -20, 20, 10 },     /* odd by even */
    { -0.012, 0.012, 10, -24, 24, 5 },   /* even by odd */
    { -0.005, 0.025, 11, 10, 50, 12 },   /* off zero: -5 to 25 mm/yr, 10 to 50 m */
    { -0.005, 0.025, 12, 10, 50, 9 },
    { 0.004, 0.004, 1, -30, 30, 6 },     /* one velocity */
    { 0.003, 0.003, 1, 17, 17, 1 },      /* one point */
  };
  guint mismatches = 0;

  for (guint i = 0; i < G_N_ELEMENTS (grids); i++)
    check_folded (&grids[i], &mismatches);
#if EF_TEST_HOOKS
  /* The plain loop that machines without AVX2 take. */
  ef_test_hooks_set_portable_simd (TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (grids); i++)
    check_folded (&grids[i], &mismatches);
  ef_test_hooks_set_portable_simd (FALSE);
#endif
  /* Near ties are rare on a coarse grid: most arcs must agree outright. */
  g_assert_cmpuint (mismatches, <, 40);
}

/* Refinement finds an arc's velocity and height between grid points to far better than the grid step. */
static void
test_refine (void)
{
  guint n = 50;
  double t[50], b[50];
  EfArcModel m;
  EfArcGrid grid = { -0.012, 0.012, 13, -24, 24, 13 };
  EfCf64 z[50];

  random_model (&m, t, b, n);
  for (int trial = 0; trial < 20; trial++)
    {
      double dv = g_test_rand_double_range (-0.01, 0.01), dh = g_test_rand_double_range (-20, 20);
      double v = 0, h = 0, top = -1, g;

      for (guint k = 0; k < n; k++)
        {
          double ph = 4 * G_PI / m.wavelength * (dv * t[k] + dh * b[k] / (m.range * sin (35 * G_PI / 180)));
          z[k] = cos (ph + 0.3) + I * sin (ph + 0.3);
        }
      for (guint gi = 0; gi < grid.nv * grid.nh; gi++)
        {
          double gv, gh, e;

          ef_arc_grid_point (&grid, gi, &gv, &gh);
          e = ef_arc_periodogram64 (z, &m, gv, gh);
          if (e > top)
            {
              top = e;
              v = gv;
              h = gh;
            }
        }
      g = ef_arc_refine (z, &m, &grid, &v, &h);
      g_assert_cmpfloat (g, >, 1 - 1e-6);
      /* A thousandth of the steps: 2 um/yr and 4 mm. */
      g_assert_cmpfloat (fabs (v - dv), <, 2e-6);
      g_assert_cmpfloat (fabs (h - dh), <, 4e-3);
    }
}

/* The whole chain on a simulated stack: PS at 10 to 20 dB over 60 passes spanning two years, in
 * decorrelating clutter under a correlated atmosphere. Detection, velocity and height against the truth. */
static void
run_truth (gboolean plain_scores)
{
  EfRepeatParams rp;
  EfPsParams pp;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) truth = NULL;
  g_autoptr (EfPsNetwork) net = NULL;
  g_autofree EfCf32 *stack = NULL;
  g_autofree float *score = NULL;
  guint w = 80, h = 80, tp = 0, fp = 0, n_conn = 0;
  gsize plane = (gsize) w * h;
  EfArcModel m;
  const EfRepeatPs *ref_ps = NULL;
  double ev2 = 0, eh2 = 0, ev_sum = 0, eh_sum = 0, precision, recall, v_rms, h_rms;

  ef_repeat_params_init (&rp, w, h);
  rp.n_ps = 800;
  rp.seed = g_test_rand_int ();
  truth = ef_repeat_truth_new (&rp, &error);
  g_assert_no_error (error);
  stack = g_new (EfCf32, plane * rp.n_passes);
  for (guint k = 0; k < rp.n_passes; k++)
    ef_repeat_slc (truth, k, stack + k * plane);
  m = (EfArcModel) { rp.wavelength, rp.range, rp.incidence_deg, rp.n_passes, truth->t_years, truth->bperp };
  ef_ps_params_init (&pp);
  pp.plain = plain_scores;
  score = g_new (float, plane);
  net = ef_ps_run (stack, w, h, &m, &pp, score, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < net->candidates->len; i++)
    {
      EfPsCandidate *c = &g_array_index (net->candidates, EfPsCandidate, i);
      if (truth->ps_index[(gsize) c->row * w + c->col] >= 0)
        tp++;
      else
        fp++;
    }
  precision = tp / (double) MAX (tp + fp, 1);
  recall = tp / (double) truth->n_ps;
  {
    EfPsCandidate *rc = &g_array_index (net->candidates, EfPsCandidate, net->ref);
    gint j = truth->ps_index[(gsize) rc->row * w + rc->col];

    g_assert_cmpint (j, >=, 0);
    ref_ps = &truth->ps[j];
  }
  /* Velocities and heights are relative: the datum (here the reference's own noise, the same for every
   * PS) is taken out as the mean difference from the truth before the rms. */
  for (int pass = 0; pass < 2; pass++)
    {
      double mv = ev_sum / MAX (n_conn, 1), mh = eh_sum / MAX (n_conn, 1);

      n_conn = 0;
      ev_sum = eh_sum = ev2 = eh2 = 0;
      for (guint i = 0; i < net->candidates->len; i++)
        {
          EfPsCandidate *c = &g_array_index (net->candidates, EfPsCandidate, i);
          gint j = truth->ps_index[(gsize) c->row * w + c->col];
          double ev, eh;

          if (j < 0 || !c->connected)
            continue;
          n_conn++;
          ev = c->velocity - (ef_repeat_linear_velocity (truth, &truth->ps[j])
                              - ef_repeat_linear_velocity (truth, ref_ps));
          eh = c->height - (truth->ps[j].height - ref_ps->height);
          ev_sum += ev;
          eh_sum += eh;
          ev2 += (ev - mv) * (ev - mv);
          eh2 += (eh - mh) * (eh - mh);
        }
    }
  v_rms = sqrt (ev2 / MAX (n_conn, 1));
  h_rms = sqrt (eh2 / MAX (n_conn, 1));
  g_test_message ("%s scores: %u PS, %u candidates (%u true); precision %.4f, recall %.4f; %u arcs, %u connected; "
                  "velocity rms %.3f mm/yr, height rms %.3f m",
                  plain_scores ? "plain" : "periodogram", truth->n_ps, net->candidates->len, tp, precision, recall,
                  net->arcs->len, n_conn, v_rms * 1e3, h_rms);
  g_assert_cmpfloat (precision, >=, 0.95);
  if (!plain_scores)
    {
      g_assert_cmpfloat (recall, >=, 0.95);
      g_assert_cmpuint (n_conn, >=, 0.95 * tp);
    }
  g_assert_cmpfloat (v_rms, <=, 0.001);
  g_assert_cmpfloat (h_rms, <=, 1.0);
}

static void
test_truth_periodogram (void)
{
  run_truth (FALSE);
}

/* The seed's plain coherence scores the same pixels without the model: arcs whose ends move apart lose
 * coherence, so fewer PS reach the threshold, but those that do are still PS, and their network's
 * velocities (refined by the periodogram) are as good. */
static void
test_truth_plain (void)
{
  run_truth (TRUE);
}

static void
test_bad_args (void)
{
  g_autoptr (GError) error = NULL;
  EfCf32 s[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
  double t[2] = { 0, 1 }, b[2] = { 0, NAN };
  EfArcModel m = { 0.031, 700e3, 35, 2, t, b };
  EfPsParams pp;
  EfPsNetwork *net;

  ef_ps_params_init (&pp);
  net = ef_ps_run (s, 2, 2, &m, &pp, NULL, &error);
  g_assert_null (net);
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  b[1] = 10;
  pp.window.radius = 0;
  g_assert_null (ef_ps_run (s, 2, 2, &m, &pp, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ef_ps_params_init (&pp);
  pp.grid.nv = 10000;
  g_assert_null (ef_ps_run (s, 2, 2, &m, &pp, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* No candidate at all: a clear error, not an empty answer. */
  ef_ps_params_init (&pp);
  pp.threshold = 1.5;
  g_assert_null (ef_ps_run (s, 2, 2, &m, &pp, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/arcs/offsets", test_offsets);
  g_test_add_func ("/compute/arcs/plain/float64", test_plain_reference);
  g_test_add_func ("/compute/arcs/periodogram/float64", test_periodogram_reference);
  g_test_add_func ("/compute/arcs/periodogram/folded", test_periodogram_folded);
  g_test_add_func ("/compute/arcs/periodogram/refine", test_refine);
  g_test_add_func ("/compute/arcs/ps/truth", test_truth_periodogram);
  g_test_add_func ("/compute/arcs/ps/truth-plain", test_truth_plain);
  g_test_add_func ("/compute/arcs/bad-args", test_bad_args);
  return g_test_run ();
}
