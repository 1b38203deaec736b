/* ef-cli-ps.c: echoform-cli ps: persistent-scatterer candidates of a stack, their velocities and heights. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli-ps"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#include "ef-arcs-ps.h"
#include "ef-error.h"
#include "ef-grid.h"
#include "ef-json.h"
#include "ef-stack.h"
#include "ef-stack-truth.h"
#include "ef-arcs-accel.h"
#include "ef-stack-ps.h"

static const char ps_description[] =
  "Every pixel forms an arc with each neighbour in the search window; an arc's coherence over the passes\n"
  "is its periodogram's maximum over the velocity-height grid (or, with --plain, |sum of its phasors| / N).\n"
  "A pixel's score is its best arc's; pixels at or above --threshold are candidates, and the arcs between\n"
  "candidates whose refined coherence reaches --arc-threshold are integrated by least squares from the\n"
  "reference. The stack is read a strip of tiles at a time. Velocities are printed in mm/yr, relative to\n"
  "the reference, along the line of sight (positive towards the sensor).\n"
  "\n"
  "With --truth (a simulation's truth.json), detection precision and recall and the velocity and height\n"
  "errors are measured against it, the common offset (the datum) taken out.";

typedef struct {
  double precision, recall, v_rms, h_rms;
  guint  tp, fp, connected;
} Score;

static void
score_truth (const EfPsNetwork *net, const EfRepeatTruth *truth, Score *s)
{
  const EfPsCandidate *ref = &g_array_index (net->candidates, EfPsCandidate, net->ref);
  gint rj = truth->ps_index[(gsize) ref->row * truth->params.width + ref->col];
  double mv = 0, mh = 0, sv = 0, sh = 0;
  guint n = 0;

  memset (s, 0, sizeof *s);
  for (guint i = 0; i < net->candidates->len; i++)
    {
      const EfPsCandidate *c = &g_array_index (net->candidates, EfPsCandidate, i);
      if (truth->ps_index[(gsize) c->row * truth->params.width + c->col] >= 0)
        s->tp++;
      else
        s->fp++;
    }
  s->precision = s->tp / (double) MAX (s->tp + s->fp, 1);
  s->recall = s->tp / (double) MAX (truth->n_ps, 1);
  s->v_rms = s->h_rms = NAN;
  if (rj < 0)
    return;
  /* Twice over: the mean difference from the truth (the datum), then the rms about it. */
  for (int pass = 0; pass < 2; pass++)
    {
      double av = n ? mv / n : 0, ah = n ? mh / n : 0;

      n = 0;
      mv = mh = sv = sh = 0;
      for (guint i = 0; i < net->candidates->len; i++)
        {
          const EfPsCandidate *c = &g_array_index (net->candidates, EfPsCandidate, i);
          gint j = truth->ps_index[(gsize) c->row * truth->params.width + c->col];
          double ev, eh;

          if (j < 0 || !c->connected)
            continue;
          ev = c->velocity - (ef_repeat_linear_velocity (truth, &truth->ps[j])
                              - ef_repeat_linear_velocity (truth, &truth->ps[rj]));
          eh = c->height - (truth->ps[j].height - truth->ps[rj].height);
          n++;
          mv += ev;
          mh += eh;
          sv += (ev - av) * (ev - av);
          sh += (eh - ah) * (eh - ah);
        }
    }
  s->connected = n;
  if (n > 0)
    {
      s->v_rms = sqrt (sv / n);
      s->h_rms = sqrt (sh / n);
    }
}

static gboolean
parse_axis (const char *what, const char *s, double scale, double *lo, double *hi, guint *n, GError **error)
{
  double v[3];
  guint count;

  if (!ef_cli_parse_doubles (what, s, 3, 3, v, &count, error))
    return FALSE;
  if (!(v[0] <= v[1]) || v[2] < 1 || v[2] > 4096 || v[2] != floor (v[2]))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: expected MIN,MAX,N with MIN <= MAX and N "
                   "in 1..4096, got “%s”", what, s);
      return FALSE;
    }
  *lo = v[0] * scale;
  *hi = v[1] * scale;
  *n = (guint) v[2];
  return TRUE;
}

int
ef_cli_ps (int argc, char **argv)
{
  g_autofree char *radius_s = NULL, *shape_s = NULL, *thr_s = NULL, *arc_thr_s = NULL, *vel_s = NULL;
  g_autofree char *hgt_s = NULL, *ref_s = NULL, *truth_s = NULL, *out_s = NULL, *backend_s = NULL;
  g_autofree char *mapping_s = NULL, *pg_s = NULL, *devices_s = NULL;
  gboolean plain = FALSE, json_out = FALSE;
  GOptionEntry entries[] = {
    { "radius", 'r', 0, G_OPTION_ARG_STRING, &radius_s, "Search window radius, pixels (default 3)", "N" },
    { "shape", 0, 0, G_OPTION_ARG_STRING, &shape_s, "Window shape: square or disc (default square)", "SHAPE" },
    { "plain", 0, 0, G_OPTION_ARG_NONE, &plain, "Score by plain coherence instead of the periodogram", NULL },
    { "threshold", 't', 0, G_OPTION_ARG_STRING, &thr_s, "Candidate score threshold (default 0.75)", "G" },
    { "arc-threshold", 0, 0, G_OPTION_ARG_STRING, &arc_thr_s, "Arc coherence to join the network (default 0.75)",
      "G" },
    { "velocity", 0, 0, G_OPTION_ARG_STRING, &vel_s, "Periodogram velocities, mm/yr (default -12,12,13)",
      "MIN,MAX,N" },
    { "height", 0, 0, G_OPTION_ARG_STRING, &hgt_s, "Periodogram heights, m (default -24,24,13)", "MIN,MAX,N" },
    { "ref", 0, 0, G_OPTION_ARG_STRING, &ref_s, "Reference pixel (default: the best candidate)", "COL,ROW" },
    { "truth", 0, 0, G_OPTION_ARG_FILENAME, &truth_s, "Measure against a simulation's truth.json", "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_s, "Write the candidates as JSON", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json_out, "Print a JSON summary on stdout", NULL },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend_s,
      "Arc coherence on: auto (CUDA when there is a device), cpu, cuda (default cpu)", "NAME" },
    { "mapping", 0, 0, G_OPTION_ARG_STRING, &mapping_s,
      "CUDA plain coherence's thread mapping: window, arc, graph (default graph)", "NAME" },
    { "periodogram-precision", 0, 0, G_OPTION_ARG_STRING, &pg_s,
      "The device's periodogram: fp32, or tensor (tensor cores, fp16 in, fp32 sums; default fp32)", "NAME" },
    { "devices", 0, 0, G_OPTION_ARG_STRING, &devices_s,
      "Devices that share the strips, a thread each (default 0: all of them)", "N" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = ef_cli_option_context_new ("ps", "STACK",
                                                              "Find persistent scatterers in a stack of passes",
                                                              ps_description, entries);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfStack) stack = NULL;
  g_autoptr (EfPsNetwork) net = NULL;
  g_autoptr (EfRepeatTruth) truth = NULL;
  EfPsParams pp;
  const EfGrid *grid;
  guint n, radius = 3;
  Score sc;
  gboolean have_truth = FALSE;
  EfStackPsOptions opt = { EF_BACKEND_CPU, 0 };
  EfStackPsReport report = { 0 };
  const EfArcsProvider *acc = ef_arcs_provider ();

  if (!ef_cli_option_parse (ctx, "ps", &argc, &argv))
    return EF_CLI_EXIT_USAGE;
  if (argc != 2)
    return ef_cli_usage_error ("ps", "give one stack folder");
  ef_ps_params_init (&pp);
  if ((radius_s != NULL && !ef_cli_parse_uint ("--radius", radius_s, 1, EF_ARC_MAX_RADIUS, &radius, &error))
      || (thr_s != NULL && !ef_cli_parse_double ("--threshold", thr_s, 0, 1, &pp.threshold, &error))
      || (arc_thr_s != NULL && !ef_cli_parse_double ("--arc-threshold", arc_thr_s, 0, 1, &pp.arc_threshold, &error))
      || (vel_s != NULL && !parse_axis ("--velocity", vel_s, 1e-3, &pp.grid.v_min, &pp.grid.v_max, &pp.grid.nv, &error))
      || (hgt_s != NULL && !parse_axis ("--height", hgt_s, 1, &pp.grid.h_min, &pp.grid.h_max, &pp.grid.nh, &error)))
    return ef_cli_report ("ps", error);
  pp.window.radius = radius;
  pp.plain = plain;
  if (shape_s != NULL)
    {
      if (strcmp (shape_s, "square") == 0)
        pp.window.shape = EF_ARC_WINDOW_SQUARE;
      else if (strcmp (shape_s, "disc") == 0)
        pp.window.shape = EF_ARC_WINDOW_DISC;
      else
        return ef_cli_usage_error ("ps", "--shape: expected square or disc, got “%s”", shape_s);
    }
  if (ref_s != NULL)
    {
      double v[2];
      guint count;

      if (!ef_cli_parse_doubles ("--ref", ref_s, 2, 2, v, &count, &error))
        return ef_cli_report ("ps", error);
      if (v[0] < 0 || v[1] < 0 || v[0] != floor (v[0]) || v[1] != floor (v[1]) || v[0] > G_MAXINT || v[1] > G_MAXINT)
        return ef_cli_usage_error ("ps", "--ref: expected a pixel COL,ROW, got “%s”", ref_s);
      pp.ref_col = (int) v[0];
      pp.ref_row = (int) v[1];
    }
  if (!ef_arc_grid_check (&pp.grid, &error))
    return ef_cli_usage_error ("ps", "%s", error->message);
  if (pg_s != NULL && strcmp (pg_s, "tensor") == 0)
    opt.periodogram = EF_ARCS_PG_TENSOR;
  else if (pg_s != NULL && strcmp (pg_s, "fp32") != 0)
    return ef_cli_usage_error ("ps", "--periodogram-precision: expected fp32 or tensor, got “%s”", pg_s);
  if (devices_s != NULL && !ef_cli_parse_uint ("--devices", devices_s, 0, 64, &opt.n_devices, &error))
    return ef_cli_report ("ps", error);
  if (backend_s != NULL && !ef_backend_kind_from_string (backend_s, &opt.backend))
    return ef_cli_usage_error ("ps", "--backend: expected auto, cpu or cuda, got “%s”", backend_s);
  /* The accelerator's mappings, by name; the last it lists (the warp graph, in CUDA) by default. */
  if (acc != NULL && acc->mappings != NULL)
    {
      guint i = 0;

      while (acc->mappings[i] != NULL && (mapping_s == NULL || strcmp (acc->mappings[i], mapping_s) != 0))
        opt.mapping = i++;
      if (mapping_s != NULL && acc->mappings[i] == NULL)
        return ef_cli_usage_error ("ps", "--mapping: %s has no mapping “%s”", acc->name, mapping_s);
      opt.mapping = mapping_s != NULL ? i : opt.mapping;
    }
  else if (mapping_s != NULL)
    ef_cli_warning ("--mapping only applies to an accelerator, which this build lacks");

  stack = ef_stack_open (argv[1], &error);
  if (stack == NULL)
    return ef_cli_report ("ps", error);
  if (truth_s != NULL)
    {
      truth = ef_repeat_truth_read_json (truth_s, &error);
      if (truth == NULL)
        return ef_cli_report ("ps", error);
      have_truth = TRUE;
    }
  grid = ef_stack_get_grid (stack);
  n = ef_stack_get_n_passes (stack);
  if (n < 2)
    {
      ef_cli_error ("%s holds %u pass(es); arcs need at least two", argv[1], n);
      return EF_CLI_EXIT_FAILURE;
    }
  if (have_truth && (truth->params.width != grid->width || truth->params.height != grid->height
                     || truth->params.n_passes != n))
    {
      ef_cli_error ("%s does not describe %s: another size or number of passes", truth_s, argv[1]);
      return EF_CLI_EXIT_FAILURE;
    }
  net = ef_stack_ps_run (stack, &pp, &opt, NULL, NULL, NULL, &report, &error);
  if (report.reason != NULL && opt.backend != EF_BACKEND_CPU)
    {
      g_autofree char *msg = g_strdup_printf ("arc coherence ran on the CPU: %s", report.reason);
      ef_cli_warn_once (msg);
    }
  if (report.periodogram_reason != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("the periodogram ran in fp32: %s", report.periodogram_reason);
      ef_cli_warn_once (msg);
    }
  if (report.devices_reason != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("arc coherence ran on %u device(s): %s", report.n_devices,
                                              report.devices_reason);
      ef_cli_warn_once (msg);
    }
  if (net == NULL)
    {
      ef_stack_ps_report_clear (&report);
      return ef_cli_report ("ps", error);
    }
  if (have_truth)
    score_truth (net, truth, &sc);

  if (out_s != NULL)
    {
      g_autoptr (JsonBuilder) jb = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      g_autofree char *text = NULL;
      const EfPsCandidate *ref = &g_array_index (net->candidates, EfPsCandidate, net->ref);

      json_builder_begin_object (jb);
      ef_json_set_string (jb, "stack", argv[1]);
      ef_json_set_int (jb, "ref_col", ref->col);
      ef_json_set_int (jb, "ref_row", ref->row);
      json_builder_set_member_name (jb, "candidates");
      json_builder_begin_array (jb);
      for (guint i = 0; i < net->candidates->len; i++)
        {
          const EfPsCandidate *c = &g_array_index (net->candidates, EfPsCandidate, i);
          double pos[3];

          ef_grid_pixel_position (grid, c->col, c->row, pos);
          json_builder_begin_object (jb);
          ef_json_set_int (jb, "col", c->col);
          ef_json_set_int (jb, "row", c->row);
          ef_json_set_doubles (jb, "position", pos, 3);
          ef_json_set_double (jb, "score", c->score);
          ef_json_set_double (jb, "velocity_mm_yr", c->velocity * 1e3);
          ef_json_set_double (jb, "height_m", c->height);
          ef_json_set_bool (jb, "connected", c->connected);
          json_builder_end_object (jb);
        }
      json_builder_end_array (jb);
      json_builder_end_object (jb);
      root = json_builder_get_root (jb);
      text = ef_json_to_text (root, TRUE);
      if (!g_file_set_contents (out_s, text, -1, &error))
        return ef_cli_report ("ps", error);
    }

  if (json_out)
    {
      EfCliJson j;
      g_autofree char *text = NULL;

      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_string (&j, "backend", report.backend);
      ef_cli_json_string (&j, "backend_requested", ef_backend_kind_to_string (opt.backend));
      ef_cli_json_string (&j, "backend_reason", report.reason);
      ef_cli_json_string (&j, "mapping", g_strcmp0 (report.backend, "cpu") != 0 && plain
                                         ? acc->mappings[opt.mapping] : NULL);
      if (g_strcmp0 (report.backend, "cpu") != 0)
        ef_cli_json_double (&j, "device_kernels_s", report.device_s);
      ef_cli_json_string (&j, "estimator", plain ? "plain" : "periodogram");
      ef_cli_json_string (&j, "periodogram_precision", report.periodogram);
      ef_cli_json_string (&j, "periodogram_precision_requested",
                          plain ? NULL : opt.periodogram == EF_ARCS_PG_TENSOR ? "tensor" : "fp32");
      ef_cli_json_string (&j, "periodogram_precision_reason", report.periodogram_reason);
      ef_cli_json_int (&j, "devices", report.n_devices);
      ef_cli_json_string (&j, "devices_reason", report.devices_reason);
      ef_cli_json_int (&j, "radius", radius);
      ef_cli_json_int (&j, "passes", n);
      ef_cli_json_int (&j, "candidates", net->candidates->len);
      ef_cli_json_int (&j, "connected", net->n_connected);
      ef_cli_json_int (&j, "arcs", net->arcs->len);
      ef_cli_json_double (&j, "elapsed_s", report.elapsed_s);
      if (have_truth)
        {
          ef_cli_json_begin_object (&j, "truth");
          ef_cli_json_int (&j, "ps", truth->n_ps);
          ef_cli_json_double (&j, "precision", sc.precision);
          ef_cli_json_double (&j, "recall", sc.recall);
          ef_cli_json_double (&j, "velocity_rms_mm_yr", sc.v_rms * 1e3);
          ef_cli_json_double (&j, "height_rms_m", sc.h_rms);
          ef_cli_json_end_object (&j);
        }
      ef_cli_json_end_object (&j);
      text = ef_cli_json_finish (&j);
      fputs (text, stdout);
    }
  else
    {
      g_autofree char *on = report.n_devices > 1 ? g_strdup_printf ("%s (%u devices)", report.backend,
                                                                     report.n_devices)
                          : g_strdup (g_strcmp0 (report.backend, "cpu") == 0 ? "CPU" : report.backend);

      printf ("%u candidates (%u connected to the reference by %u arcs) in %.2f s, arc coherence on the %s, %s "
              "scores%s%s\n", net->candidates->len, net->n_connected, net->arcs->len, report.elapsed_s, on,
              plain ? "plain" : "periodogram", plain ? "" : ", periodogram in ", plain ? "" : report.periodogram);
      if (have_truth)
        printf ("against the truth (%u PS): precision %.4f, recall %.4f; velocity rms %.3f mm/yr, height rms %.3f m\n",
                truth->n_ps, sc.precision, sc.recall, sc.v_rms * 1e3, sc.h_rms);
    }
  ef_stack_ps_report_clear (&report);
  return EF_CLI_EXIT_OK;
}
