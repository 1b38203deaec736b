/* test-pfa.c: the polar format algorithm against backprojection: focus, geometry, depth of focus. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-backend.h"
#include "ef-error.h"
#include "ef-job.h"
#include "ef-metrics.h"
#include "ef-pfa.h"
#include "ef-test-scene.h"

/* README.md: point targets within resolution/100 of where they are; tests/bench/RESULTS.md: PFA 55.7 dB
 * from float64 backprojection where the planar wavefront holds (the bound: that less 3 dB). */
#define POS_RES_FRACTION 100.0
#define PFA_SER_DB 52.0

#define DEG (G_PI / 180.0)

static EfImage *
image_from64 (const EfGrid *grid, const EfCf64 *acc)
{
  EfImage *img = ef_image_new (grid, NULL);

  for (gsize k = 0; k < ef_grid_n_pixels (grid); k++)
    img->data[k] = (EfCf32) acc[k];
  return img;
}

typedef struct {
  EfPointResult pr;
  double        err_m;      /* distance of the peak from the truth */
  double        peak_db;    /* peak relative to BP's */
  double        ser_db;     /* against BP over the window */
  EfPfaReport   rep;
} Measure;

/* Forms a res/4 window of 128 x 128 pixels about target t by BP and by PFA and measures both. */
static void
measure_target (const EfProfiles *prof, double bandwidth, const EfSimTarget *t, double res, gboolean correct,
                Measure *mb, Measure *mp)
{
  g_autoptr (GError) error = NULL;
  EfGrid grid;
  EfPfaParams pp;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf64 *img = NULL;
  g_autoptr (EfImage) ib = NULL;
  g_autoptr (EfImage) ip = NULL;
  double spacing = res / 4, half = 64 * spacing, col, row, dir[3];
  double jx = g_test_rand_double_range (-0.5, 0.5) * spacing, jy = g_test_rand_double_range (-0.5, 0.5) * spacing;
  const EfProfileMeta *mid = &prof->meta[prof->n_pulses / 2];
  double gr = hypot (mid->tx[0], mid->tx[1]);

  g_assert_true (ef_grid_init_roi (&grid, t->pos[0] - half + jx, t->pos[1] - half + jy, t->pos[0] + half + jx,
                                   t->pos[1] + half + jy, spacing, NULL));
  ref = g_new0 (EfCf64, ef_grid_n_pixels (&grid));
  ef_bp_reference (&grid, prof, ref);
  ef_pfa_params_init (&pp);
  pp.correct_distortion = correct;
  img = ef_test_form_pfa (prof, &grid, bandwidth, &pp, 128, &mp->rep);
  ib = image_from64 (&grid, ref);
  ip = image_from64 (&grid, img);
  ef_grid_position_to_pixel (&grid, t->pos, &col, &row);
  /* Range runs along the ground line of sight of the aperture's centre. */
  dir[0] = mid->tx[0] / gr;
  dir[1] = mid->tx[1] / gr;
  dir[2] = 0;
  g_assert_true (ef_point_analyse (ib, col, row, 8, dir, &mb->pr, &error));
  g_assert_no_error (error);
  g_assert_true (ef_point_analyse (ip, col, row, 40, dir, &mp->pr, &error));
  g_assert_no_error (error);
  mb->err_m = hypot (mb->pr.position[0] - t->pos[0], mb->pr.position[1] - t->pos[1]);
  mp->err_m = hypot (mp->pr.position[0] - t->pos[0], mp->pr.position[1] - t->pos[1]);
  mp->peak_db = mp->pr.peak_db - mb->pr.peak_db;
  mp->ser_db = ef_test_ser_db64 (img, ref, ef_grid_n_pixels (&grid));
}

static void
show (const char *what, const EfSimTarget *t, const Measure *mb, const Measure *mp, double res)
{
  g_test_message ("%s target at (%.1f, %.1f): PFA peak %+.2f dB of BP's, position error %.4f m = res/%.0f (BP "
                  "%.5f m), IRW range %.4f/%.4f m, cross %.4f/%.4f m, PSLR range %.2f/%.2f dB, cross %.2f/%.2f dB "
                  "(PFA/BP), SER %.1f dB; QPE %.2f rad, r_max %.0f m, distortion corrected %.3f m%s%s",
                  what, t->pos[0], t->pos[1], mp->peak_db, mp->err_m, res / mp->err_m, mb->err_m, mp->pr.range.irw_m,
                  mb->pr.range.irw_m, mp->pr.cross.irw_m, mb->pr.cross.irw_m, mp->pr.range.pslr_db,
                  mb->pr.range.pslr_db, mp->pr.cross.pslr_db, mb->pr.cross.pslr_db, mp->ser_db, mp->rep.qpe_max_rad,
                  mp->rep.r_max_m, mp->rep.distortion_max_m, mp->rep.outside_dof ? "; " : "", mp->rep.note);
}

/* Airborne spotlight (10 km, depth of focus some 280 m): every target of the 128 m scene focuses where it
 * is, with a sinc's sidelobes. */
static void
test_point_targets (void)
{
  static const double xy[][2] = { { 0, 0 }, { 21.3, -14.9 }, { -24.2, 17.6 }, { 41.0, 35.5 } };
  EfSimParams sp;
  EfSimTarget tg[G_N_ELEMENTS (xy)];
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  double res;

  ef_sim_params_init_airborne (&sp);
  ef_test_place_targets (tg, xy, G_N_ELEMENTS (tg));
  sp.targets = tg;
  sp.n_targets = G_N_ELEMENTS (tg);
  ds = ef_sim_run (&sp, NULL);
  g_assert_nonnull (ds);
  prof = ef_test_compress (ds, &rp, TRUE);
  res = MIN (EF_C / (2 * sp.bandwidth * cos (ef_dataset_mean_grazing (ds))), ef_dataset_crossrange_resolution (ds));
  for (guint i = 0; i < G_N_ELEMENTS (tg); i++)
    {
      Measure mb, mp;

      measure_target (prof, sp.bandwidth, &tg[i], res, TRUE, &mb, &mp);
      show ("airborne", &tg[i], &mb, &mp, res);
      g_assert_false (mp.rep.outside_dof);
      g_assert_cmpfloat (mp.err_m, <, res / POS_RES_FRACTION);
      g_assert_cmpfloat_with_epsilon (mp.pr.range.pslr_db, -13.26, 0.15);
      g_assert_cmpfloat_with_epsilon (mp.pr.cross.pslr_db, -13.26, 0.15);
      /* PFA interpolates the spectrum where BP interpolates the profile: widths agree to 0.1-0.2%. */
      g_assert_cmpfloat (fabs (mp.pr.range.irw_m / mb.pr.range.irw_m - 1), <, 0.005);
      g_assert_cmpfloat (fabs (mp.pr.cross.irw_m / mb.pr.cross.irw_m - 1), <, 0.005);
      g_assert_cmpfloat (fabs (mp.peak_db), <, 0.05);
      ef_point_result_clear (&mb.pr);
      ef_point_result_clear (&mp.pr);
    }
}

/* The planar-wavefront distortion is real (a target 54 m out moves by about r^2 / 2R) and is undone. */
static void
test_distortion (void)
{
  EfSimParams sp;
  EfSimTarget tg = { { 41.0, 35.5, 0 }, 1.0 };
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  Measure mb, on, off;
  double res;

  ef_sim_params_init_airborne (&sp);
  sp.targets = &tg;
  sp.n_targets = 1;
  ds = ef_sim_run (&sp, NULL);
  prof = ef_test_compress (ds, &rp, TRUE);
  res = MIN (EF_C / (2 * sp.bandwidth * cos (ef_dataset_mean_grazing (ds))), ef_dataset_crossrange_resolution (ds));
  measure_target (prof, sp.bandwidth, &tg, res, FALSE, &mb, &off);
  show ("uncorrected", &tg, &mb, &off, res);
  ef_point_result_clear (&mb.pr);
  measure_target (prof, sp.bandwidth, &tg, res, TRUE, &mb, &on);
  show ("corrected", &tg, &mb, &on, res);
  g_assert_cmpfloat (off.err_m, >, res / 2);
  g_assert_cmpfloat (on.err_m, <, res / POS_RES_FRACTION);
  g_assert_cmpfloat (on.rep.distortion_max_m, >, res / 2);
  ef_point_result_clear (&mb.pr);
  ef_point_result_clear (&on.pr);
  ef_point_result_clear (&off.pr);
}

/* A close-range, wide-angle collection (1.5 km, 12 degrees) whose depth of focus is some 37 m: a target
 * near the centre focuses; one 60 m out is reported and is visibly defocused, while BP focuses both. */
static void
test_depth_of_focus (void)
{
  static const double xy[][2] = { { 0, 0 }, { 5.2, -6.1 }, { 60.0, 0 } };
  EfSimParams sp;
  EfSimTarget tg[G_N_ELEMENTS (xy)];
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  double res;

  ef_sim_params_init_airborne (&sp);
  sp.standoff = 1500;
  sp.aperture_deg = 12;
  sp.n_pulses = 768;
  ef_test_place_targets (tg, xy, G_N_ELEMENTS (tg));
  sp.targets = tg;
  sp.n_targets = G_N_ELEMENTS (tg);
  ds = ef_sim_run (&sp, NULL);
  g_assert_nonnull (ds);
  prof = ef_test_compress (ds, &rp, TRUE);
  res = MIN (EF_C / (2 * sp.bandwidth * cos (ef_dataset_mean_grazing (ds))), ef_dataset_crossrange_resolution (ds));
  for (guint i = 0; i < G_N_ELEMENTS (tg); i++)
    {
      Measure mb, mp;
      gboolean far = hypot (tg[i].pos[0], tg[i].pos[1]) > 30;

      measure_target (prof, sp.bandwidth, &tg[i], res, TRUE, &mb, &mp);
      show (far ? "beyond the depth of focus:" : "within the depth of focus:", &tg[i], &mb, &mp, res);
      g_assert_cmpfloat (mp.rep.r_max_m, >, 25);
      g_assert_cmpfloat (mp.rep.r_max_m, <, 50);
      if (!far)
        {
          g_assert_false (mp.rep.outside_dof);
          g_assert_cmpfloat (mp.err_m, <, res / POS_RES_FRACTION);
          /* At 12 degrees the range cut's sidelobes sit near -13.5 dB in BP too: PFA must match BP's. */
          g_assert_cmpfloat (fabs (mp.pr.range.pslr_db - mb.pr.range.pslr_db), <, 0.1);
          g_assert_cmpfloat_with_epsilon (mp.pr.cross.pslr_db, -13.26, 0.15);
          g_assert_cmpfloat (fabs (mp.peak_db), <, 0.05);
        }
      else
        {
          /* BP still focuses it... */
          g_assert_cmpfloat_with_epsilon (mb.pr.cross.pslr_db, -13.26, 0.15);
          /* ...PFA says it cannot, and indeed loses peak and widens. */
          g_assert_true (mp.rep.outside_dof);
          g_assert_cmpfloat (mp.rep.qpe_max_rad, >, 0.5 * G_PI);
          g_assert_cmpstr (mp.rep.note, !=, "");
          g_assert_cmpfloat (mp.peak_db, <, -1.0);
          g_assert_cmpfloat (mp.pr.cross.irw_m, >, 1.1 * mb.pr.cross.irw_m);
        }
      ef_point_result_clear (&mb.pr);
      ef_point_result_clear (&mp.pr);
    }
}

/* The default airborne geometry (10 km, 30 degrees grazing, X band, a 4.1 degree arc) with targets
 * hundreds of metres out along the axes and the diagonals. 4096 samples keep them inside the
 * unambiguous scene in range; the pulses are a quarter of 6144, which spans the same arc and so has the
 * same resolution and depth of focus (they depend on the arc and the wavelength, not on the pulse
 * count); the coarser azimuth sampling puts BP's grating lobes some 380 m from each target, far
 * outside its 4 m region, and PFA's lattice is referred to each region's own centre. */
#define DIR_PULSES 1536
#define DIR_SAMPLES 4096
#define DIR_UPSAMPLE 4
#define DIR_BLOCK 256
#define DIR_EDGE 64

typedef struct {
  double   x, y;
  EfGrid   grid;
  EfCf32  *bp;     /* owned */
  EfPfa   *pfa;    /* owned */
  double   qpe_first, qpe_last;  /* ef_pfa_check after the first block and after the last */
} DirRegion;

/* The depth-of-focus warning fires exactly when PFA's image is measurably defocused: its cross-range
 * -3 dB width more than 1.1 times BP's, whatever the target's direction. The targets sit clearly on
 * either side of the limit, with one just inside each side ((0, 500) at 1.07, (300, 0) at 1.14); the
 * diagonal at 500 m, (354, 354), lands on the limit itself (1.10) and is left out. On the old
 * three-point estimate (400, 300) (2.7 times as wide) and the other diagonals went unreported. */
static void
test_depth_of_focus_directions (void)
{
  static const double xy[][2] = {
    /* within: on the diagonals, on the axes, and the cross-range axis at 500 m just inside */
    { 100, 100 }, { 212, -212 }, { 300, 300 }, { -300, 300 }, { 200, 0 }, { 0, -400 }, { 0, 500 },
    /* beyond: the range axis at 300 m just past, the diagonals from 500 m, the cross-range axis at 600 m */
    { 300, 0 }, { 400, 300 }, { -354, 354 }, { 424, 424 }, { -424, -424 }, { 0, 600 },
  };
  const guint nt = G_N_ELEMENTS (xy);
  EfSimParams sp;
  EfSimTarget tg[G_N_ELEMENTS (xy)];
  DirRegion reg[G_N_ELEMENTS (xy)];
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfRangeCompressor) rc = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  g_autofree EfCf32 *samples = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  double res, dir[3] = { 1, 0, 0 };
  guint n_within = 0, n_beyond = 0;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = DIR_PULSES;
  sp.n_samples = DIR_SAMPLES;
  ef_test_place_targets (tg, xy, nt);
  sp.targets = tg;
  sp.n_targets = nt;
  ds = ef_sim_run (&sp, NULL);
  g_assert_nonnull (ds);
  res = EF_C / (2 * sp.bandwidth);
  rp.upsample = DIR_UPSAMPLE;
  rc = ef_range_compressor_new (&ds->info, &rp, FALSE, NULL);
  prof = ef_profiles_new (DIR_BLOCK, ef_range_compressor_n_bins (rc), FALSE, NULL);
  samples = g_new (EfCf32, (gsize) DIR_BLOCK * DIR_SAMPLES);
  for (guint i = 0; i < nt; i++)
    {
      double half = 0.5 * DIR_EDGE * res / 4;
      EfPfaParams pp;

      reg[i].x = xy[i][0];
      reg[i].y = xy[i][1];
      g_assert_true (ef_grid_init_roi (&reg[i].grid, reg[i].x - half, reg[i].y - half, reg[i].x + half,
                                       reg[i].y + half, res / 4, NULL));
      reg[i].bp = g_new0 (EfCf32, ef_grid_n_pixels (&reg[i].grid));
      ef_pfa_params_init (&pp);
      reg[i].pfa = ef_pfa_new (&reg[i].grid, sp.bandwidth, FALSE, &pp, NULL);
      g_assert_nonnull (reg[i].pfa);
    }
  /* One pass over the pulses, block by block, into every region's BP image and PFA grid. */
  for (guint p0 = 0; p0 < DIR_PULSES; p0 += DIR_BLOCK)
    {
      guint n = MIN (DIR_BLOCK, DIR_PULSES - p0);

      g_assert_true (ef_dataset_read_block (ds, p0, n, samples, NULL));
      g_assert_true (ef_range_compress (rc, ds->pulses + p0, samples, n, prof, NULL, NULL));
      for (guint i = 0; i < nt; i++)
        {
          EfPfaReport rep;

          ef_bp_cpu_fp32 (&reg[i].grid, prof, reg[i].bp, 0);
          g_assert_true (ef_pfa_add (reg[i].pfa, prof, NULL));
          ef_pfa_check (reg[i].pfa, &rep);
          if (p0 == 0)
            reg[i].qpe_first = rep.qpe_max_rad;
          reg[i].qpe_last = rep.qpe_max_rad;
        }
    }

  g_test_message ("%9s %9s %6s %9s %9s %7s %8s %8s %7s", "x (m)", "y (m)", "r (m)", "IRW PFA", "IRW BP", "ratio",
                  "QPE", "limit", "warned");
  for (guint i = 0; i < nt; i++)
    {
      g_autoptr (EfImage) ib = ef_image_new (&reg[i].grid, NULL);
      g_autoptr (EfImage) ip = ef_image_new (&reg[i].grid, NULL);
      g_autoptr (GError) error = NULL;
      EfPointResult rb = { 0 }, rpf = { 0 };
      EfPfaReport rep;
      double col, row, pos[3] = { reg[i].x, reg[i].y, 0 }, ratio;
      gboolean defocused;

      memcpy (ib->data, reg[i].bp, ef_grid_n_pixels (&reg[i].grid) * sizeof (EfCf32));
      g_assert_true (ef_pfa_form (reg[i].pfa, NULL, ip->data, &rep, NULL));
      ef_grid_position_to_pixel (&reg[i].grid, pos, &col, &row);
      g_assert_true (ef_point_analyse (ib, col, row, 8, dir, &rb, &error));
      g_assert_no_error (error);
      g_assert_true (ef_point_analyse (ip, col, row, 20, dir, &rpf, &error));
      g_assert_no_error (error);
      ratio = rpf.cross.irw_m / rb.cross.irw_m;
      defocused = ratio > 1.1;
      g_test_message ("%9.1f %9.1f %6.0f %9.4f %9.4f %7.3f %8.2f %8.2f %7s", reg[i].x, reg[i].y,
                      hypot (reg[i].x, reg[i].y), rpf.cross.irw_m, rb.cross.irw_m, ratio, rep.qpe_max_rad,
                      rep.qpe_limit_rad, rep.outside_dof ? "yes" : "no");
      /* BP focuses every one of them. */
      g_assert_cmpfloat_with_epsilon (rb.cross.pslr_db, -13.26, 0.5);
      g_assert_cmpint (rep.outside_dof, ==, defocused);
      /* The cases are chosen clear of the limit, so both measures agree with room to spare. */
      g_assert_cmpfloat (fabs (ratio - 1.1), >, 0.02);
      g_assert_cmpfloat (fabs (rep.qpe_max_rad / rep.qpe_limit_rad - 1), >, 0.05);
      if (rep.outside_dof)
        {
          n_beyond++;
          g_assert_cmpstr (rep.note, !=, "");
          /* The worst point is on the region. */
          g_assert_cmpfloat (fabs (rep.qpe_at_m[0] - reg[i].x), <=, 0.5 * DIR_EDGE * res / 4 + 1e-9);
          g_assert_cmpfloat (fabs (rep.qpe_at_m[1] - reg[i].y), <=, 0.5 * DIR_EDGE * res / 4 + 1e-9);
        }
      else
        n_within++;
      /* Checked after every block: the error grows with the aperture seen, from next to nothing. */
      g_assert_cmpfloat (reg[i].qpe_first, <, 0.1 * reg[i].qpe_last);
      g_assert_cmpfloat (reg[i].qpe_last, ==, rep.qpe_max_rad);
      ef_point_result_clear (&rb);
      ef_point_result_clear (&rpf);
      g_free (reg[i].bp);
      ef_pfa_free (reg[i].pfa);
    }
  g_assert_cmpuint (n_within, ==, 7);
  g_assert_cmpuint (n_beyond, ==, 6);
}

typedef struct {
  guint  n;
  double qpe[64];
  gboolean outside[64];
} QpeTrack;

static void
track_qpe (EfJob *job, const EfJobProgress *pr, gpointer data)
{
  QpeTrack *t = data;
  g_auto (EfRunInfo) run = { 0 };

  if (pr->state != EF_JOB_RUNNING || t->n >= G_N_ELEMENTS (t->qpe))
    return;
  ef_job_get_run_info (job, &run);
  g_assert_true (run.pfa_checked);
  t->qpe[t->n] = run.pfa_qpe_rad;
  t->outside[t->n] = run.pfa_outside_dof;
  t->n++;
}

/* Through a job: the CPU backend checks the depth of focus after every block and its record carries it
 * (with fp16 asked, which the processor runs in fp32 and says so): the diagonal target at (400, 300)
 * is reported once the aperture has grown enough, the one at (0, -400) never. */
static void
test_job_record (void)
{
  static const double xy[][2] = { { 400, 300 }, { 0, -400 } };
  EfSimParams sp;
  EfSimTarget tg[G_N_ELEMENTS (xy)];
  g_autoptr (EfDataset) ds = NULL;
  double res;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = DIR_PULSES;
  sp.n_samples = DIR_SAMPLES;
  ef_test_place_targets (tg, xy, G_N_ELEMENTS (xy));
  sp.targets = tg;
  sp.n_targets = G_N_ELEMENTS (xy);
  ds = ef_sim_run (&sp, NULL);
  res = EF_C / (2 * sp.bandwidth);
  for (guint i = 0; i < G_N_ELEMENTS (xy); i++)
    {
      double half = 0.5 * DIR_EDGE * res / 4;
      g_autoptr (EfJob) job = NULL;
      g_autoptr (GError) error = NULL;
      g_auto (EfRunInfo) run = { 0 };
      g_auto (GStrv) warnings = NULL;
      QpeTrack t = { 0 };
      EfJobParams jp;
      EfGrid grid;

      g_assert_true (ef_grid_init_roi (&grid, xy[i][0] - half, xy[i][1] - half, xy[i][0] + half, xy[i][1] + half,
                                       res / 4, NULL));
      ef_job_params_init (&jp, &grid);
      jp.backend.algo = EF_ALGO_PFA;
      jp.backend.precision = EF_PRECISION_FP16;
      jp.backend.range.upsample = DIR_UPSAMPLE;
      jp.backend.block_size = DIR_BLOCK;
      jp.publish_interval_s = -1;
      job = ef_job_new (ds, &jp, &error);
      g_assert_no_error (error);
      g_assert_true (ef_job_run (job, track_qpe, &t, &error));
      g_assert_no_error (error);
      ef_job_get_run_info (job, &run);
      warnings = ef_run_info_warnings (&run);
      g_test_message ("(%.0f, %.0f): QPE after each block %.2f, %.2f, %.2f, %.2f, %.2f; at the end %.2f rad (limit "
                      "%.2f)%s%s", xy[i][0], xy[i][1], t.qpe[0], t.qpe[1], t.qpe[2], t.qpe[3], t.qpe[4],
                      run.pfa_qpe_rad, run.pfa_qpe_limit_rad, run.pfa_note ? ": " : "", run.pfa_note ? run.pfa_note : "");
      g_assert_cmpuint (t.n, ==, DIR_PULSES / DIR_BLOCK - 1);
      for (guint k = 1; k < t.n; k++)
        g_assert_cmpfloat (t.qpe[k], >, t.qpe[k - 1]);
      g_assert_cmpint (run.algo, ==, EF_ALGO_PFA);
      g_assert_cmpint (run.precision, ==, EF_PRECISION_FP32);
      g_assert_nonnull (run.precision_reason);
      g_assert_true (run.pfa_checked);
      g_assert_cmpfloat (run.pfa_qpe_rad, >, t.qpe[t.n - 1]);
      if (i == 0)
        {
          /* Not after the first block (a sixth of the arc), but by the end. */
          g_assert_false (t.outside[0]);
          g_assert_true (run.pfa_outside_dof);
          g_assert_nonnull (run.pfa_note);
          g_assert_cmpuint (g_strv_length (warnings), ==, 2);
        }
      else
        {
          g_assert_false (run.pfa_outside_dof);
          g_assert_null (run.pfa_note);
          g_assert_cmpuint (g_strv_length (warnings), ==, 1);
        }
    }
}

/* A dense scene near the centre: PFA is BP wherever the planar wavefront holds; fp32 agrees with fp64. */
static void
test_random_scene (void)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (300, -14, -11, 9, 13);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p64 = NULL;
  g_autoptr (EfProfiles) p32 = NULL;
  g_autoptr (EfPfa) pfa32 = NULL;
  EfGrid grid;
  EfPfaParams pp;
  EfPfaReport rep;
  g_autofree EfCf64 *ref = NULL;
  g_autofree EfCf64 *img = NULL;
  g_autofree EfCf32 *img32 = NULL;
  double ser, ser32;
  gsize n;

  ef_sim_params_init_airborne (&sp);
  sp.targets = tg;
  sp.n_targets = 300;
  sp.seed = g_test_rand_int ();
  ds = ef_sim_run (&sp, NULL);
  g_assert_true (ef_grid_init_roi (&grid, -13.1, -9.7, 7.3, 11.9, 0.157, NULL));
  n = ef_grid_n_pixels (&grid);
  p64 = ef_test_compress (ds, &rp, TRUE);
  p32 = ef_test_compress (ds, &rp, FALSE);
  ref = g_new0 (EfCf64, n);
  ef_bp_reference (&grid, p64, ref);
  ef_pfa_params_init (&pp);
  img = ef_test_form_pfa (p64, &grid, sp.bandwidth, &pp, 64, &rep);
  ser = ef_test_ser_db64 (img, ref, n);
  pfa32 = ef_pfa_new (&grid, sp.bandwidth, FALSE, &pp, NULL);
  g_assert_true (ef_pfa_add (pfa32, p32, NULL));
  img32 = g_new (EfCf32, n);
  g_assert_true (ef_pfa_form (pfa32, NULL, img32, NULL, NULL));
  ser32 = ef_ser_db_f32_f64 (img32, img, n);
  g_test_message ("%ux%u px: PFA against BP: SER %.1f dB (QPE %.3f rad, distortion %.3f m); fp32 against fp64 PFA: "
                  "%.1f dB", grid.width, grid.height, ser, rep.qpe_max_rad, rep.distortion_max_m, ser32);
  g_assert_false (rep.outside_dof);
  g_assert_cmpfloat (ser, >=, PFA_SER_DB);
  /* Measured 134-135 dB: float32 rounding of the grid and the FFTs. */
  g_assert_cmpfloat (ser32, >=, 128.0);
}

/* Gridding is linear: the blocks may come in any order and any size, and forming midway changes nothing. */
static void
test_progressive (void)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (40, -6, -6, 6, 6);
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfProfiles) p64 = NULL;
  g_autoptr (EfPfa) pfa = NULL;
  EfGrid grid;
  EfPfaParams pp;
  EfPfaReport rep;
  g_autofree EfCf64 *whole = NULL;
  g_autofree EfCf64 *img = NULL;
  const guint order[] = { 3, 0, 2, 1 };
  guint q;
  gsize n;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 256;
  sp.targets = tg;
  sp.n_targets = 40;
  ds = ef_sim_run (&sp, NULL);
  g_assert_true (ef_grid_init_roi (&grid, -6, -6, 6, 6, 0.1, NULL));
  n = ef_grid_n_pixels (&grid);
  p64 = ef_test_compress (ds, &rp, TRUE);
  ef_pfa_params_init (&pp);
  whole = ef_test_form_pfa (p64, &grid, sp.bandwidth, &pp, 256, NULL);
  pfa = ef_pfa_new (&grid, sp.bandwidth, TRUE, &pp, NULL);
  img = g_new (EfCf64, n);
  /* Nothing gridded yet: a black image. */
  g_assert_true (ef_pfa_form (pfa, img, NULL, &rep, NULL));
  g_assert_cmpuint (rep.n_pulses, ==, 0);
  g_assert_cmpfloat (cabs (img[n / 2]), ==, 0);
  q = p64->n_pulses / 4;
  for (guint k = 0; k < 4; k++)
    {
      EfProfiles view = *p64;

      view.n_pulses = q;
      view.meta = p64->meta + order[k] * q;
      view.data64 = p64->data64 + (gsize) order[k] * q * p64->n_bins;
      g_assert_true (ef_pfa_add (pfa, &view, NULL));
      g_assert_true (ef_pfa_form (pfa, img, NULL, &rep, NULL));
      g_assert_cmpuint (rep.n_pulses, ==, (k + 1) * q);
    }
  g_test_message ("blocks in the order 3, 0, 2, 1 against one block: SER %.1f dB", ef_test_ser_db64 (img, whole, n));
  /* The distortion correction follows the aperture seen so far, and so may differ before the end; at the
   * end the two images must agree to rounding. */
  g_assert_cmpfloat (ef_test_ser_db64 (img, whole, n), >, 135);
  ef_pfa_clear (pfa);
  g_assert_true (ef_pfa_form (pfa, img, NULL, &rep, NULL));
  g_assert_cmpuint (rep.n_pulses, ==, 0);
}

static void
test_bad_params (void)
{
  EfGrid grid;
  EfPfaParams pp;
  g_autoptr (GError) error = NULL;

  g_assert_true (ef_grid_init_roi (&grid, -5, -5, 5, 5, 0.1, NULL));
  ef_pfa_params_init (&pp);
  pp.oversample = 1.0;
  g_assert_null (ef_pfa_new (&grid, 600e6, TRUE, &pp, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ef_pfa_params_init (&pp);
  pp.resample_taps = 5;
  g_assert_null (ef_pfa_new (&grid, 600e6, TRUE, &pp, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ef_pfa_params_init (&pp);
  g_assert_null (ef_pfa_new (&grid, -1, TRUE, &pp, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

/* The CPU backend forms PFA block by block and shows the image formed so far at every read. */
static void
test_backend (void)
{
  EfSimParams sp;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfSimTarget *tg = ef_test_random_targets (40, -6, -6, 6, 6);
  EfGrid grid;
  g_autofree EfCf32 *samples = NULL;
  g_autofree EfCf32 *bpimg = NULL;
  g_autofree EfCf32 *pfaimg = NULL;
  EfRect all;
  gsize n;
  guint np;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 256;
  sp.targets = tg;
  sp.n_targets = 40;
  ds = ef_sim_run (&sp, NULL);
  np = (guint) ds->info.n_pulses;
  g_assert_true (ef_grid_init_roi (&grid, -6, -6, 6, 6, 0.1, NULL));
  n = ef_grid_n_pixels (&grid);
  all = (EfRect) { 0, 0, grid.width, grid.height };
  samples = g_new (EfCf32, (gsize) np * ds->info.n_samples);
  g_assert_true (ef_dataset_read_block (ds, 0, np, samples, NULL));
  for (int a = 0; a < 2; a++)
    {
      EfBackendParams bp = { 0 };
      g_autoptr (EfBackend) be = NULL;
      g_autoptr (GError) error = NULL;
      EfCf32 **out = a == 0 ? &bpimg : &pfaimg;

      bp.grid = grid;
      bp.range = EF_RANGE_PARAMS_DEFAULT;
      bp.precision = EF_PRECISION_FP32;
      bp.algo = a == 0 ? EF_ALGO_BP : EF_ALGO_PFA;
      bp.block_size = 64;
      bp.device = -1;
      be = ef_backend_new (EF_BACKEND_AUTO, &ds->info, &bp, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (ef_backend_name (be), ==, "cpu");
      *out = g_new (EfCf32, n);
      for (guint p0 = 0; p0 < np; p0 += 64)
        {
          g_assert_true (ef_backend_process_block (be, ds->pulses + p0, samples + (gsize) p0 * ds->info.n_samples,
                                                   64, &error));
          g_assert_no_error (error);
          g_assert_true (ef_backend_read_image (be, &all, *out, &error));
          g_assert_no_error (error);
        }
    }
  g_test_message ("backend pfa against bp, float32: SER %.1f dB", ef_ser_db_f32 (pfaimg, bpimg, n));
  g_assert_cmpfloat (ef_ser_db_f32 (pfaimg, bpimg, n), >=, PFA_SER_DB);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/pfa/cpu/point-targets", test_point_targets);
  g_test_add_func ("/compute/pfa/cpu/distortion", test_distortion);
  g_test_add_func ("/compute/pfa/cpu/depth-of-focus", test_depth_of_focus);
  g_test_add_func ("/compute/pfa/cpu/depth-of-focus-directions", test_depth_of_focus_directions);
  g_test_add_func ("/compute/pfa/cpu/random-scene", test_random_scene);
  g_test_add_func ("/compute/pfa/cpu/progressive", test_progressive);
  g_test_add_func ("/compute/pfa/cpu/bad-params", test_bad_params);
  g_test_add_func ("/compute/pfa/backend", test_backend);
  g_test_add_func ("/compute/pfa/job-record", test_job_record);
  return g_test_run ();
}
