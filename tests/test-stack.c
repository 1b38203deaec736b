/* test-stack.c: the tiled stack on disk, read back memory-mapped, and passes formed onto one grid. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-stack"
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ef-stack.h"
#include "ef-stack-truth.h"
#include "ef-sim-repeat.h"
#include "ef-metrics.h"
#include "ef-image-io.h"
#include "ef-error.h"
#include "ef-arcs-accel.h"
#include "ef-stack-ps.h"

static const EfStackGeometry geo = { 0.031, 700e3, 35.0 };

static char *
temp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *d = g_dir_make_tmp ("ef-stack-XXXXXX", &error);

  g_assert_no_error (error);
  return d;
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

/* Passes of random pixels on a grid that tiles do not divide, read back through regions that straddle
 * tiles: every byte as written. */
static void
test_roundtrip (void)
{
  g_autofree char *dir = temp_dir ();
  g_autoptr (GError) error = NULL;
  g_autoptr (EfStack) s = NULL;
  g_autoptr (EfStack) r = NULL;
  EfImage *img[3] = { NULL, NULL, NULL };
  g_autofree EfCf32 *out = NULL;
  EfGrid grid;
  EfRect rect = { 7, 13, 30, 20 };
  GRand *rng = g_rand_new_with_seed (g_test_rand_int ());
  guint tw, th;
  const EfCf32 *t;

  g_assert_true (ef_grid_init_roi (&grid, 0, 0, 40, 36, 1.0, &error));
  s = ef_stack_create (dir, &grid, 16, &geo, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < 3; k++)
    {
      img[k] = ef_image_new (&grid, &error);
      for (gsize i = 0; i < ef_grid_n_pixels (&grid); i++)
        img[k]->data[i] = (float) g_rand_double_range (rng, -1, 1) + I * (float) g_rand_double_range (rng, -1, 1);
      g_assert_true (ef_stack_add_pass (s, img[k], 0.1 * k, 10.0 * k - 5, "random", NULL, &error));
      g_assert_no_error (error);
    }
  g_rand_free (rng);
  /* A second stack in the same folder is refused. */
  g_assert_null (ef_stack_create (dir, &grid, 16, &geo, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
  g_clear_error (&error);

  r = ef_stack_open (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ef_stack_get_n_passes (r), ==, 3);
  g_assert_cmpuint (ef_stack_get_grid (r)->width, ==, 40);
  g_assert_cmpuint (ef_stack_get_grid (r)->height, ==, 36);
  g_assert_cmpfloat (ef_stack_get_bperp (r, 2), ==, 15.0);
  g_assert_cmpfloat (ef_stack_get_t_years (r, 1), ==, 0.1);
  g_assert_cmpstr (ef_stack_get_source (r, 0), ==, "random");
  g_assert_cmpfloat (ef_stack_get_geometry (r)->wavelength, ==, 0.031);
  /* The last tile column is 40 - 32 = 8 wide, the last tile row 36 - 32 = 4 high. */
  t = ef_stack_map_tile (r, 1, 2, 2, &tw, &th, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tw, ==, 8);
  g_assert_cmpuint (th, ==, 4);
  g_assert_cmpmem (t, 8 * sizeof (EfCf32), img[1]->data + 32 * 40 + 32, 8 * sizeof (EfCf32));

  /* Unmapped, the tiles map again when next read. */
  ef_stack_unmap (r);
  out = g_new (EfCf32, 3 * rect.width * rect.height);
  memset (out, 0xff, 3 * rect.width * rect.height * sizeof (EfCf32));
  g_assert_true (ef_stack_read_region (r, &rect, 0, 3, out, &error));
  g_assert_no_error (error);
  for (guint k = 0; k < 3; k++)
    for (guint row = 0; row < rect.height; row++)
      g_assert_cmpmem (out + (k * rect.height + row) * rect.width, rect.width * sizeof (EfCf32),
                       img[k]->data + (gsize) (rect.y + row) * 40 + rect.x, rect.width * sizeof (EfCf32));
  /* An image on another grid is refused. */
  {
    EfGrid other;
    g_autoptr (EfImage) o = NULL;

    g_assert_true (ef_grid_init_roi (&other, 0, 0, 40, 36, 0.5, &error));
    o = ef_image_new (&other, &error);
    g_assert_false (ef_stack_add_pass (s, o, 1, 0, NULL, NULL, &error));
    g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  }
  for (guint k = 0; k < 3; k++)
    ef_image_free (img[k]);
  remove_tree (dir);
}

static void
write_text (const char *dir, const char *name, const char *text)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (p, text, -1, NULL));
}

/* Broken indexes and tiles: a clear error each, never a crash. */
static void
test_bad_input (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *tile = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfStack) s = NULL;
  g_autoptr (EfStack) r = NULL;
  g_autoptr (EfImage) img = NULL;
  EfGrid grid;
  guint tw, th;
  gsize len;
  g_autofree char *bytes = NULL;

  g_assert_null (ef_stack_open (dir, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
  g_clear_error (&error);
  write_text (dir, "stack.json", "{\"format\": \"echoform-stack\", \"version\": 1, \"width\": 1e12");
  g_assert_null (ef_stack_open (dir, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_clear_error (&error);
  write_text (dir, "stack.json", "{\"format\": \"echoform-stack\", \"version\": 2}");
  g_assert_null (ef_stack_open (dir, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  write_text (dir, "stack.json", "{\"format\": \"echoform-stack\", \"version\": 1, \"width\": 4000000000, "
              "\"height\": 10, \"tile\": 16, \"passes\": []}");
  g_assert_null (ef_stack_open (dir, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_clear_error (&error);
  {
    g_autofree char *index = g_build_filename (dir, "stack.json", NULL);
    g_remove (index);
  }

  g_assert_true (ef_grid_init_roi (&grid, 0, 0, 20, 20, 1.0, &error));
  s = ef_stack_create (dir, &grid, 16, &geo, &error);
  img = ef_image_new (&grid, &error);
  g_assert_true (ef_stack_add_pass (s, img, 0, 0, NULL, NULL, &error));
  g_assert_no_error (error);
  /* A tile cut short. */
  tile = g_build_filename (dir, "tiles", "0-0", "0.npy", NULL);
  g_assert_true (g_file_get_contents (tile, &bytes, &len, NULL));
  g_assert_true (g_file_set_contents (tile, bytes, len - 8, NULL));
  r = ef_stack_open (dir, &error);
  g_assert_no_error (error);
  g_assert_null (ef_stack_map_tile (r, 0, 0, 0, &tw, &th, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED);
  g_clear_error (&error);
  /* A tile of another size than the index says. */
  {
    g_autofree char *t2 = g_build_filename (dir, "tiles", "0-1", "0.npy", NULL);
    g_autofree char *b2 = NULL;
    gsize l2;

    g_assert_true (g_file_get_contents (t2, &b2, &l2, NULL));
    g_assert_true (g_file_set_contents (tile, b2, l2, NULL));
  }
  g_clear_pointer (&r, ef_stack_free);
  r = ef_stack_open (dir, &error);
  g_assert_null (ef_stack_map_tile (r, 0, 0, 0, &tw, &th, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  remove_tree (dir);
}

static void
test_truth_json (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "truth.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;
  g_autoptr (EfRepeatTruth) r = NULL;
  EfRepeatParams p;

  ef_repeat_params_init (&p, 30, 20);
  p.seed = G_GUINT64_CONSTANT (0xfedcba9876543210);
  t = ef_repeat_truth_new (&p, &error);
  g_assert_true (ef_repeat_truth_write_json (t, path, &error));
  g_assert_no_error (error);
  r = ef_repeat_truth_read_json (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->n_ps, ==, t->n_ps);
  g_assert_cmpuint (r->params.seed, ==, p.seed);
  for (guint i = 0; i < t->n_ps; i++)
    g_assert_cmpfloat (r->ps[i].velocity, ==, t->ps[i].velocity);
  write_text (dir, "truth.json", "{\"format\": \"echoform-repeat-truth\", \"params\": {\"width\": -3}}");
  g_assert_null (ef_repeat_truth_read_json (path, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_remove (path);
  g_rmdir (dir);
}

/* Passes flown on different tracks (grazing angle and heading moved with the baseline), simulated as
 * phase histories and formed by backprojection through the job onto one grid: each bright point lands
 * on the same spot in every pass, to a hundredth of the resolution. */
static void
test_coregistration (void)
{
  g_autofree char *dir = temp_dir ();
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) truth = NULL;
  g_autoptr (EfStack) s = NULL;
  EfRepeatParams rp;
  EfGrid sgrid, grid;
  EfSimParams sp;
  EfJobParams jp;
  double res, worst = 0, worst_truth = 0;
  guint n_passes = 4;

  ef_repeat_params_init (&rp, 16, 16);
  rp.spacing = 1.0;
  rp.n_passes = n_passes;
  rp.n_ps = 2;
  rp.ps_gap = 8;
  rp.scr_db_min = rp.scr_db_max = 60;
  truth = ef_repeat_truth_new (&rp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_grid_init_roi (&sgrid, -8, -8, 8, 8, 1.0, &error));
  g_assert_true (ef_grid_init_roi (&grid, -8, -8, 8, 8, 0.125, &error));
  s = ef_stack_create (dir, &grid, 64, &geo, &error);
  g_assert_no_error (error);

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 256;
  sp.n_samples = 256;
  sp.aperture_deg = 4;
  sp.snr_db = 40;
  res = EF_C / (2 * sp.bandwidth);
  ef_job_params_init (&jp, &grid);
  for (guint k = 0; k < n_passes; k++)
    {
      g_autofree EfSimTarget *tg = ef_repeat_targets (truth, k, &sgrid);
      g_autoptr (EfDataset) ds = NULL;
      EfSimParams pk = sp;

      pk.targets = tg;
      pk.n_targets = 256;
      pk.grazing_deg = 30 + truth->bperp[k] / pk.standoff * 180 / G_PI;
      pk.azimuth_deg = 2.0 * k;
      pk.seed = 100 + k;
      ds = ef_sim_run (&pk, &error);
      g_assert_no_error (error);
      g_assert_true (ef_stack_form_pass (s, ds, &jp, truth->t_years[k], truth->bperp[k], "simulated", &error));
      g_assert_no_error (error);
    }
  g_clear_pointer (&s, ef_stack_free);
  s = ef_stack_open (dir, &error);
  g_assert_no_error (error);
  for (guint j = 0; j < truth->n_ps; j++)
    {
      double want[3], first[3];

      ef_grid_pixel_position (&sgrid, truth->ps[j].col, truth->ps[j].row, want);
      for (guint k = 0; k < n_passes; k++)
        {
          g_autoptr (EfImage) img = ef_image_new (&grid, &error);
          EfRect all = { 0, 0, grid.width, grid.height };
          EfPointResult pr = { 0 };
          double col, row;

          g_assert_true (ef_stack_read_region (s, &all, k, 1, img->data, &error));
          ef_grid_position_to_pixel (&grid, want, &col, &row);
          g_assert_true (ef_point_analyse (img, col, row, 3, NULL, &pr, &error));
          g_assert_no_error (error);
          if (k == 0)
            memcpy (first, pr.position, sizeof first);
          worst = MAX (worst, hypot (pr.position[0] - first[0], pr.position[1] - first[1]));
          worst_truth = MAX (worst_truth, hypot (pr.position[0] - want[0], pr.position[1] - want[1]));
          ef_point_result_clear (&pr);
        }
    }
  g_test_message ("co-registration: largest shift between passes %.3g m, from the truth %.3g m (res %.3g m)",
                  worst, worst_truth, res);
  g_assert_cmpfloat (worst, <=, res / 100);
  g_assert_cmpfloat (worst_truth, <=, res / 100);
  remove_tree (dir);
}

/* A stand-in accelerator of three devices that computes on the CPU and fails on the strip fake_fail_at
 * (0: never): the dispatcher must give the same answer as the CPU alone, and say that the CPU took over. */
struct _EfArcsSession {
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  guint n_off;
  EfArcModel model;
  EfArcGrid grid;
  gboolean periodogram;
};

static gint fake_runs, fake_fail_at, fake_devices;

static gboolean
fake_available (char **why)
{
  return TRUE;
}

static EfArcsSession *
fake_new (int device, guint width, guint max_rows, guint n_passes, const EfArcOffset *off, guint n_off,
          const EfArcModel *model, const EfArcGrid *grid, GError **error)
{
  EfArcsSession *s = g_new0 (EfArcsSession, 1);

  g_assert_cmpint (device, >=, -1);
  g_assert_cmpint (device, <, 3);
  g_atomic_int_or (&fake_devices, 1u << (device + 1));
  memcpy (s->off, off, n_off * sizeof *off);
  s->n_off = n_off;
  s->periodogram = model != NULL;
  if (model != NULL)
    {
      s->model = *model;
      s->grid = *grid;
    }
  return s;
}

static gboolean
fake_run (EfArcsSession *s, const EfArcPhasors *ph, guint mapping, gboolean periodogram, float *coh, guint16 *best,
          double *kernel_ms, GError **error)
{
  if (g_atomic_int_add (&fake_runs, 1) + 1 == fake_fail_at)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_DEVICE, "the stand-in fails here");
      return FALSE;
    }
  *kernel_ms = 1;
  if (!periodogram)
    {
      ef_arcs_plain (ph, s->off, s->n_off, coh);
      return TRUE;
    }
  return ef_arcs_periodogram (ph, s->off, s->n_off, &s->model, &s->grid, coh, best, error);
}

static void
fake_free (EfArcsSession *s)
{
  g_free (s);
}

static guint
fake_n_devices (void)
{
  return 3;
}

static gboolean
fake_set_periodogram (EfArcsSession *s, EfArcsPgPrecision precision, GError **error)
{
  if (precision == EF_ARCS_PG_FP32)
    return TRUE;
  g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "the stand-in has no tensor cores");
  return FALSE;
}

static const char *const fake_mappings[] = { "only", NULL };
static const EfArcsProvider fake_provider = { "Stand-in", fake_mappings, fake_available, fake_new, fake_run,
                                              fake_free, fake_n_devices, fake_set_periodogram };

/* The same network, candidate for candidate and arc for arc, bit for bit. */
static void
assert_same_network (const EfPsNetwork *a, const EfPsNetwork *b)
{
  g_assert_cmpuint (a->candidates->len, ==, b->candidates->len);
  g_assert_cmpuint (a->arcs->len, ==, b->arcs->len);
  g_assert_cmpuint (a->n_connected, ==, b->n_connected);
  g_assert_cmpuint (a->ref, ==, b->ref);
  for (guint i = 0; i < a->candidates->len; i++)
    {
      const EfPsCandidate *x = &g_array_index (a->candidates, EfPsCandidate, i);
      const EfPsCandidate *y = &g_array_index (b->candidates, EfPsCandidate, i);

      g_assert_cmpuint (x->col, ==, y->col);
      g_assert_cmpuint (x->row, ==, y->row);
      g_assert_cmpmem (&x->score, sizeof x->score, &y->score, sizeof y->score);
      g_assert_cmpmem (&x->velocity, sizeof x->velocity, &y->velocity, sizeof y->velocity);
      g_assert_cmpmem (&x->height, sizeof x->height, &y->height, sizeof y->height);
      g_assert_cmpint (x->connected, ==, y->connected);
    }
  for (guint i = 0; i < a->arcs->len; i++)
    {
      const EfPsArc *x = &g_array_index (a->arcs, EfPsArc, i);
      const EfPsArc *y = &g_array_index (b->arcs, EfPsArc, i);

      g_assert_cmpuint (x->a, ==, y->a);
      g_assert_cmpuint (x->b, ==, y->b);
      g_assert_cmpmem (&x->dv, sizeof x->dv, &y->dv, sizeof y->dv);
      g_assert_cmpmem (&x->dh, sizeof x->dh, &y->dh, sizeof y->dh);
      g_assert_cmpmem (&x->coherence, sizeof x->coherence, &y->coherence, sizeof y->coherence);
    }
}

/* The whole stack a strip at a time against the whole image in memory, on the CPU and through an
 * accelerator that fails part way. */
static void
test_stack_ps (void)
{
  g_autofree char *dir = temp_dir ();
  g_autoptr (GError) error = NULL;
  g_autoptr (EfRepeatTruth) truth = NULL;
  g_autoptr (EfStack) s = NULL;
  g_autoptr (EfPsNetwork) mem = NULL;
  g_autoptr (EfPsNetwork) cpu = NULL;
  g_autoptr (EfPsNetwork) acc = NULL;
  g_autofree EfCf32 *all = NULL;
  EfRepeatParams rp;
  EfGrid grid;
  EfPsParams pp;
  EfStackPsOptions opt = { EF_BACKEND_CPU, 0 };
  EfStackPsReport rep = { 0 };
  EfArcModel m;
  gsize plane;

  ef_repeat_params_init (&rp, 48, 80);
  rp.n_passes = 30;
  rp.n_ps = 300;
  truth = ef_repeat_truth_new (&rp, &error);
  g_assert_true (ef_grid_init_roi (&grid, 0, 0, 24, 40, 0.5, &error));
  s = ef_stack_create (dir, &grid, 16, &geo, &error);
  plane = (gsize) 48 * 80;
  all = g_new (EfCf32, plane * rp.n_passes);
  for (guint k = 0; k < rp.n_passes; k++)
    {
      g_autoptr (EfImage) img = ef_image_new (&grid, &error);

      ef_repeat_slc (truth, k, img->data);
      memcpy (all + k * plane, img->data, plane * sizeof (EfCf32));
      g_assert_true (ef_stack_add_pass (s, img, truth->t_years[k], truth->bperp[k], NULL, NULL, &error));
    }
  ef_ps_params_init (&pp);
  m = (EfArcModel) { geo.wavelength, geo.range, geo.incidence_deg, rp.n_passes, truth->t_years, truth->bperp };
  mem = ef_ps_run (all, 48, 80, &m, &pp, NULL, &error);
  g_assert_no_error (error);
  cpu = ef_stack_ps_run (s, &pp, &opt, NULL, NULL, NULL, &rep, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (rep.backend, ==, "cpu");
  g_assert_null (rep.reason);
  ef_stack_ps_report_clear (&rep);

  ef_arcs_register (&fake_provider);
  opt.backend = EF_BACKEND_AUTO;
  opt.n_devices = 1;
  fake_fail_at = 3;
  acc = ef_stack_ps_run (s, &pp, &opt, NULL, NULL, NULL, &rep, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fake_runs, ==, 3);
  g_assert_cmpstr (rep.backend, ==, "cpu");
  g_assert_nonnull (strstr (rep.reason, "the stand-in fails here"));
  g_assert_cmpuint (rep.n_devices, ==, 1);
  g_assert_cmpstr (rep.periodogram, ==, "fp32");
  g_assert_null (rep.periodogram_reason);
  ef_stack_ps_report_clear (&rep);

  /* One device, then all three: the same network bit for bit; tensor cores asked for and refused. */
  {
    g_autoptr (EfPsNetwork) one = NULL;
    g_autoptr (EfPsNetwork) three = NULL;
    g_autoptr (EfPsNetwork) failing = NULL;
    g_autofree float *score1 = g_new (float, plane), *score3 = g_new (float, plane);
    g_autofree float *amp1 = g_new (float, plane), *amp3 = g_new (float, plane);

    fake_fail_at = 0;
    fake_runs = 0;
    opt.periodogram = EF_ARCS_PG_TENSOR;
    one = ef_stack_ps_run (s, &pp, &opt, score1, amp1, NULL, &rep, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (rep.backend, ==, "stand-in");
    g_assert_null (rep.reason);
    g_assert_cmpuint (rep.n_devices, ==, 1);
    g_assert_cmpstr (rep.periodogram, ==, "fp32");
    g_assert_cmpstr (rep.periodogram_reason, ==, "the stand-in has no tensor cores");
    g_assert_cmpint (fake_runs, ==, 5);
    ef_stack_ps_report_clear (&rep);

    fake_runs = fake_devices = 0;
    opt.n_devices = 0;
    three = ef_stack_ps_run (s, &pp, &opt, score3, amp3, NULL, &rep, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (rep.backend, ==, "stand-in");
    g_assert_cmpuint (rep.n_devices, ==, 3);
    g_assert_cmpint (fake_devices, ==, 0xe);
    g_assert_cmpint (fake_runs, ==, 5);
    g_assert_null (rep.devices_reason);
    ef_stack_ps_report_clear (&rep);
    assert_same_network (one, three);
    g_assert_cmpmem (score1, plane * sizeof (float), score3, plane * sizeof (float));
    g_assert_cmpmem (amp1, plane * sizeof (float), amp3, plane * sizeof (float));

    /* More devices than there are: the three, and the report says so. */
    opt.n_devices = 5;
    g_clear_pointer (&three, ef_ps_network_free);
    three = ef_stack_ps_run (s, &pp, &opt, NULL, NULL, NULL, &rep, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rep.n_devices, ==, 3);
    g_assert_nonnull (strstr (rep.devices_reason, "5 device(s) asked for"));
    ef_stack_ps_report_clear (&rep);
    assert_same_network (one, three);

    /* A device fails part way with three at work: the CPU takes over and the answer is the CPU's. */
    opt.n_devices = 0;
    opt.periodogram = EF_ARCS_PG_FP32;
    fake_runs = 0;
    fake_fail_at = 2;
    failing = ef_stack_ps_run (s, &pp, &opt, NULL, NULL, NULL, &rep, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (rep.backend, ==, "cpu");
    g_assert_nonnull (strstr (rep.reason, "the stand-in fails here"));
    g_assert_cmpint (fake_runs, <=, 5);
    ef_stack_ps_report_clear (&rep);
    g_assert_cmpuint (failing->candidates->len, ==, cpu->candidates->len);
    g_assert_cmpuint (failing->n_connected, ==, cpu->n_connected);
  }

  /* Strips of 16 rows (with halos) find what the whole image does, with the same velocities. */
  for (EfPsNetwork **other = (EfPsNetwork *[]) { cpu, acc, NULL }; *other != NULL; other++)
    {
      g_assert_cmpuint ((*other)->candidates->len, ==, mem->candidates->len);
      g_assert_cmpuint ((*other)->n_connected, ==, mem->n_connected);
      for (guint i = 0; i < mem->candidates->len; i++)
        {
          EfPsCandidate *a = &g_array_index (mem->candidates, EfPsCandidate, i);
          gboolean found = FALSE;

          for (guint j = 0; j < (*other)->candidates->len && !found; j++)
            {
              EfPsCandidate *b = &g_array_index ((*other)->candidates, EfPsCandidate, j);

              if (a->col == b->col && a->row == b->row)
                {
                  found = TRUE;
                  g_assert_cmpfloat (fabs (a->score - b->score), <, 1e-6);
                  if (a->connected)
                    g_assert_cmpfloat (fabs (a->velocity - b->velocity), <, 1e-9);
                }
            }
          g_assert_true (found);
        }
    }
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/stack/roundtrip", test_roundtrip);
  g_test_add_func ("/compute/stack/bad-input", test_bad_input);
  g_test_add_func ("/compute/stack/truth-json", test_truth_json);
  g_test_add_func ("/compute/stack/coregistration", test_coregistration);
  g_test_add_func ("/compute/stack/ps-strips", test_stack_ps);
  return g_test_run ();
}
