/* ef-cli-stack.c: echoform-cli stack: make a stack of co-registered passes (simulated or formed), describe one. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli-stack"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#include "ef-error.h"
#include "ef-grid.h"
#include "ef-job.h"
#include "ef-job-defaults.h"
#include "ef-sim-repeat.h"
#include "ef-stack.h"
#include "ef-stack-truth.h"

static const char stack_description[] =
  "Subcommands:\n"
  "  simulate DIR   repeat passes of one simulated scene (ef-sim-repeat.h), with truth.json beside\n"
  "                 them: as focused images on the pixel grid, or with --phase-history as phase\n"
  "                 histories flown on a track moved by each pass's baseline, formed by the job\n"
  "  form DIR FILE… passes of one scene (CPHD, Gotcha, scene files), each formed on one grid; their\n"
  "                 dates and baselines from --dates and --bperp\n"
  "  info DIR       the stack's grid, geometry and passes\n"
  "\n"
  "A stack is a folder: stack.json (the index) and tiles/R-C/K.npy, pass K's tile at tile row R and\n"
  "column C (complex64), read back memory-mapped a region at a time.";

static int
stack_info (const char *dir, gboolean json_out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfStack) s = ef_stack_open (dir, &error);
  const EfGrid *g;
  const EfStackGeometry *geo;
  guint n;

  if (s == NULL)
    return ef_cli_report ("stack", error);
  g = ef_stack_get_grid (s);
  geo = ef_stack_get_geometry (s);
  n = ef_stack_get_n_passes (s);
  if (json_out)
    {
      EfCliJson j;
      g_autofree char *text = NULL;

      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_int (&j, "width", g->width);
      ef_cli_json_int (&j, "height", g->height);
      ef_cli_json_double (&j, "spacing", g->spacing);
      ef_cli_json_int (&j, "tile", ef_stack_get_tile (s));
      ef_cli_json_double (&j, "wavelength", geo->wavelength);
      ef_cli_json_double (&j, "range", geo->range);
      ef_cli_json_double (&j, "incidence_deg", geo->incidence_deg);
      ef_cli_json_begin_array (&j, "passes");
      for (guint k = 0; k < n; k++)
        {
          ef_cli_json_begin_object (&j, NULL);
          ef_cli_json_double (&j, "t_years", ef_stack_get_t_years (s, k));
          ef_cli_json_double (&j, "bperp", ef_stack_get_bperp (s, k));
          ef_cli_json_string (&j, "source", ef_stack_get_source (s, k));
          ef_cli_json_end_object (&j);
        }
      ef_cli_json_end_array (&j);
      ef_cli_json_end_object (&j);
      text = ef_cli_json_finish (&j);
      fputs (text, stdout);
      return EF_CLI_EXIT_OK;
    }
  printf ("Stack:       %s\n", dir);
  printf ("Grid:        %u x %u pixels at %g m, tiles of %u\n", g->width, g->height, g->spacing,
          ef_stack_get_tile (s));
  printf ("Geometry:    wavelength %g m, range %g m, incidence %g deg\n", geo->wavelength, geo->range,
          geo->incidence_deg);
  printf ("Passes:      %u\n", n);
  for (guint k = 0; k < n; k++)
    printf ("  %4u  t %8.4f yr  bperp %8.2f m  %s\n", k, ef_stack_get_t_years (s, k), ef_stack_get_bperp (s, k),
            ef_stack_get_source (s, k) != NULL ? ef_stack_get_source (s, k) : "");
  return EF_CLI_EXIT_OK;
}

static void
progress (gboolean tty, const char *label, guint done, guint total)
{
  g_autofree char *extra = g_strdup_printf ("%u/%u passes", done, total);

  if (tty)
    ef_cli_progress_draw (label, (double) done / total, extra);
}

int
ef_cli_stack (int argc, char **argv)
{
  g_autofree char *size_s = NULL, *passes_s = NULL, *ps_s = NULL, *seed_s = NULL, *spacing_s = NULL;
  g_autofree char *tile_s = NULL, *backend_s = NULL, *dates_s = NULL, *bperp_s = NULL, *roi_s = NULL;
  g_autofree char *wavelength_s = NULL, *range_s = NULL, *incidence_s = NULL, *years_s = NULL;
  gboolean phase_history = FALSE, json_out = FALSE;
  GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_STRING, &size_s, "simulate: image size (default 128x128)", "WxH" },
    { "passes", 0, 0, G_OPTION_ARG_STRING, &passes_s, "simulate: passes (default 60)", "N" },
    { "years", 0, 0, G_OPTION_ARG_STRING, &years_s, "simulate: the span of the dates (default 2)", "Y" },
    { "ps", 0, 0, G_OPTION_ARG_STRING, &ps_s, "simulate: persistent scatterers (default a tenth of the pixels)",
      "N" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_s, "simulate: random seed (default 1)", "N" },
    { "phase-history", 0, 0, G_OPTION_ARG_NONE, &phase_history,
      "simulate: phase histories formed by the job, not images", NULL },
    { "spacing", 0, 0, G_OPTION_ARG_STRING, &spacing_s, "Pixel spacing, m (simulate: 0.5; form: the default)", "M" },
    { "roi", 0, 0, G_OPTION_ARG_STRING, &roi_s, "form: region x0,y0,x1,y1 (m)", "ROI" },
    { "dates", 0, 0, G_OPTION_ARG_STRING, &dates_s, "form: each pass's date, years", "T,T,…" },
    { "bperp", 0, 0, G_OPTION_ARG_STRING, &bperp_s, "form: each pass's perpendicular baseline, m", "B,B,…" },
    { "wavelength", 0, 0, G_OPTION_ARG_STRING, &wavelength_s, "form: wavelength, m (default c / fc)", "M" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range_s, "form: slant range to the scene, m", "M" },
    { "incidence", 0, 0, G_OPTION_ARG_STRING, &incidence_s, "form: incidence angle, degrees", "DEG" },
    { "tile", 0, 0, G_OPTION_ARG_STRING, &tile_s, "Tile edge on disk, pixels (default 256)", "N" },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend_s, "Formation backend: auto, cpu, cuda (default auto)",
      "NAME" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json_out, "info: print JSON", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = ef_cli_option_context_new ("stack", "simulate|form|info DIR [FILE…]",
                                                              "Make or describe a stack of co-registered passes",
                                                              stack_description, entries);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfStack) stack = NULL;
  EfStackGeometry geo;
  EfGrid grid;
  guint tile = 256;
  EfBackendKind backend_kind = EF_BACKEND_AUTO;
  gboolean tty = ef_cli_stderr_is_tty ();
  const char *sub, *dir;

  if (!ef_cli_option_parse (ctx, "stack", &argc, &argv))
    return EF_CLI_EXIT_USAGE;
  if (argc < 3)
    return ef_cli_usage_error ("stack", "give a subcommand (simulate, form or info) and a folder");
  sub = argv[1];
  dir = argv[2];
  if (strcmp (sub, "info") == 0)
    return stack_info (dir, json_out);
  if ((tile_s != NULL && !ef_cli_parse_uint ("--tile", tile_s, 16, 65536, &tile, &error))
      || (backend_s != NULL && !ef_backend_kind_from_string (backend_s, &backend_kind)))
    {
      if (error == NULL)
        return ef_cli_usage_error ("stack", "--backend: expected auto, cpu or cuda, got “%s”", backend_s);
      return ef_cli_report ("stack", error);
    }

  if (strcmp (sub, "simulate") == 0)
    {
      EfRepeatParams rp;
      g_autoptr (EfRepeatTruth) truth = NULL;
      g_autofree char *truth_path = NULL;
      guint w = 128, h = 128, n_ps;
      double spacing = 0.5;

      if (argc != 3)
        return ef_cli_usage_error ("stack", "simulate takes one folder");
      if (size_s != NULL)
        {
          g_auto (GStrv) wh = g_strsplit (size_s, "x", 2);
          if (g_strv_length (wh) != 2 || !ef_cli_parse_uint ("--size", wh[0], 8, 65536, &w, &error)
              || !ef_cli_parse_uint ("--size", wh[1], 8, 65536, &h, &error))
            return error != NULL ? ef_cli_report ("stack", error)
                                 : ef_cli_usage_error ("stack", "--size: expected WxH, got “%s”", size_s);
        }
      ef_repeat_params_init (&rp, w, h);
      if ((passes_s != NULL && !ef_cli_parse_uint ("--passes", passes_s, 2, 1000, &rp.n_passes, &error))
          || (years_s != NULL && !ef_cli_parse_double ("--years", years_s, 1e-3, 100, &rp.span_years, &error))
          || (ps_s != NULL && !ef_cli_parse_uint ("--ps", ps_s, 0, G_MAXUINT, &n_ps, &error))
          || (seed_s != NULL && !ef_cli_parse_uint64 ("--seed", seed_s, &rp.seed, &error))
          || (spacing_s != NULL && !ef_cli_parse_double ("--spacing", spacing_s, 1e-4, 1e4, &spacing, &error)))
        return ef_cli_report ("stack", error);
      if (ps_s != NULL)
        rp.n_ps = n_ps;
      rp.spacing = spacing;
      truth = ef_repeat_truth_new (&rp, &error);
      if (truth == NULL)
        return ef_cli_usage_error ("stack", "%s", error->message);
      if (!ef_grid_init_roi (&grid, -0.5 * w * spacing, -0.5 * h * spacing, 0.5 * w * spacing, 0.5 * h * spacing,
                             spacing, &error))
        return ef_cli_report ("stack", error);
      g_assert (grid.width == w && grid.height == h);
      geo = (EfStackGeometry) { rp.wavelength, rp.range, rp.incidence_deg };
      stack = ef_stack_create (dir, &grid, tile, &geo, &error);
      if (stack == NULL)
        return ef_cli_report ("stack", error);
      truth_path = g_build_filename (dir, "truth.json", NULL);
      if (!ef_repeat_truth_write_json (truth, truth_path, &error))
        return ef_cli_report ("stack", error);
      for (guint k = 0; k < rp.n_passes; k++)
        {
          if (!phase_history)
            {
              g_autoptr (EfImage) img = ef_image_new (&grid, &error);

              if (img == NULL)
                return ef_cli_report ("stack", error);
              ef_repeat_slc (truth, k, img->data);
              if (!ef_stack_add_pass (stack, img, truth->t_years[k], truth->bperp[k], "simulated image", NULL,
                                      &error))
                return ef_cli_report ("stack", error);
            }
          else
            {
              g_autofree EfSimTarget *tg = ef_repeat_targets (truth, k, &grid);
              g_autoptr (EfDataset) ds = NULL;
              EfSimParams sp;
              EfJobParams jp;
              EfJobDefaults defaults;

              /* An airborne X-band pass whose track is moved by its baseline: the grazing angle changes
               * by bperp / standoff, and the heading by a degree a pass, so that every pass is flown
               * differently and only formation on one grid lines them up. */
              ef_sim_params_init_airborne (&sp);
              sp.n_pulses = 512;
              sp.n_samples = 512;
              sp.aperture_deg = 4;
              sp.targets = tg;
              sp.n_targets = w * h;
              sp.grazing_deg += truth->bperp[k] / sp.standoff * 180 / G_PI;
              sp.azimuth_deg = (double) k;
              sp.seed = rp.seed + 1000 + k;
              ds = ef_sim_run (&sp, &error);
              if (ds == NULL)
                return ef_cli_report ("stack", error);
              ef_job_defaults (ds, EF_ALGO_BP, &defaults);
              ef_job_params_init (&jp, &grid);
              ef_job_defaults_apply (&defaults, &jp);
              jp.backend_kind = backend_kind;
              if (!ef_stack_form_pass (stack, ds, &jp, truth->t_years[k], truth->bperp[k], "simulated phase history",
                                       &error))
                return ef_cli_report ("stack", error);
            }
          progress (tty, "stack", k + 1, rp.n_passes);
        }
      if (tty)
        ef_cli_progress_end ();
      printf ("%s: %u passes of %u x %u pixels, %u PS; truth in %s\n", dir, rp.n_passes, w, h, truth->n_ps,
              truth_path);
      return EF_CLI_EXIT_OK;
    }

  if (strcmp (sub, "form") == 0)
    {
      guint n_files = argc - 3, n_dates = 0, n_bperp = 0;
      g_autofree double *dates = NULL, *bperp = NULL;
      double roi[4], spacing = 0;

      if (n_files < 2)
        return ef_cli_usage_error ("stack", "form needs a folder and at least two passes");
      dates = g_new (double, n_files);
      bperp = g_new (double, n_files);
      if (dates_s == NULL || bperp_s == NULL || roi_s == NULL || range_s == NULL || incidence_s == NULL)
        return ef_cli_usage_error ("stack", "form needs --roi, --dates, --bperp, --range and --incidence");
      if (!ef_cli_parse_doubles ("--dates", dates_s, n_files, n_files, dates, &n_dates, &error)
          || !ef_cli_parse_doubles ("--bperp", bperp_s, n_files, n_files, bperp, &n_bperp, &error)
          || !ef_cli_parse_roi ("--roi", roi_s, roi, &error)
          || !ef_cli_parse_double ("--range", range_s, 1, 1e9, &geo.range, &error)
          || !ef_cli_parse_double ("--incidence", incidence_s, 1e-3, 89.999, &geo.incidence_deg, &error)
          || (spacing_s != NULL && !ef_cli_parse_double ("--spacing", spacing_s, 1e-4, 1e4, &spacing, &error))
          || (wavelength_s != NULL && !ef_cli_parse_double ("--wavelength", wavelength_s, 1e-4, 100, &geo.wavelength,
                                                            &error)))
        return ef_cli_report ("stack", error);
      for (guint f = 0; f < n_files; f++)
        {
          g_autoptr (EfDataset) ds = ef_cli_open_input (argv[3 + f], 0, 0, &error);
          EfJobDefaults defaults;
          EfJobParams jp;

          if (ds == NULL)
            return ef_cli_report ("stack", error);
          ef_job_defaults (ds, EF_ALGO_BP, &defaults);
          if (stack == NULL)
            {
              /* The first pass sets the grid every other pass is formed on. */
              if (spacing == 0)
                spacing = defaults.spacing;
              if (wavelength_s == NULL)
                geo.wavelength = EF_C / ds->info.fc;
              if (!ef_grid_init_roi (&grid, roi[0], roi[1], roi[2], roi[3], spacing, &error))
                return ef_cli_usage_error ("stack", "%s", error->message);
              stack = ef_stack_create (dir, &grid, tile, &geo, &error);
              if (stack == NULL)
                return ef_cli_report ("stack", error);
            }
          ef_job_params_init (&jp, &grid);
          ef_job_defaults_apply (&defaults, &jp);
          jp.backend_kind = backend_kind;
          if (!ef_stack_form_pass (stack, ds, &jp, dates[f], bperp[f], argv[3 + f], &error))
            return ef_cli_report ("stack", error);
          progress (tty, "stack", f + 1, n_files);
        }
      if (tty)
        ef_cli_progress_end ();
      printf ("%s: %u passes of %u x %u pixels at %g m\n", dir, n_files, grid.width, grid.height, grid.spacing);
      return EF_CLI_EXIT_OK;
    }
  return ef_cli_usage_error ("stack", "no subcommand “%s” (simulate, form or info)", sub);
}
