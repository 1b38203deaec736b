/* ef-cli-bench-focus.c: `echoform-cli bench --autofocus`: autofocus estimation and the corrected formation, timed by phase. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#include "ef-focus.h"
#include "ef-job.h"
#include "ef-job-defaults.h"
#include "ef-metrics.h"
#include "ef-sim.h"


typedef struct {
  guint         size;
  guint         max_px;         /* the estimate's grid: max_px across (cross-range), est_rows down range */
  guint         est_rows;
  char         *backend;        /* owned: where the estimate's images were formed */
  char         *final_backend;  /* owned: where the corrected image was formed */
  guint         pulses, samples, iterations;
  guint64       n_formations;
  double        sim_s, form_s, estimate_s, final_s;
  double        injected_rad, residual_rad;
  double        entropy_before, entropy_after;
} FocusRow;


/* The injected error: a quadratic across the aperture, or a random walk of uniform steps (every
 * pulse its own), rid of its line and scaled to rms_rad. Owned. */
static double *
make_error (const EfCliBenchFocus *o, guint n)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) (o->seed * 2654435761u + 17));
  double *e = g_new (double, n), walk = 0, rms, sx = 0, sy = 0, sxx = 0, sxy = 0, slope, icpt;

  for (guint p = 0; p < n; p++)
    {
      double x = 2.0 * p / (n - 1) - 1;

      if (o->random_walk)
        {
          walk += g_rand_double_range (rand, -1, 1);
          e[p] = walk;
        }
      else
        e[p] = x * x;
      sx += p;
      sy += e[p];
      sxx += (double) p * p;
      sxy += p * e[p];
    }
  slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  icpt = (sy - slope * sx) / n;
  for (guint p = 0; p < n; p++)
    e[p] -= icpt + slope * p;
  rms = ef_focus_phase_residual (e, NULL, n);
  for (guint p = 0; p < n; p++)
    e[p] *= o->error_rms / rms;
  return e;
}

static gboolean
bench_one (guint size, const EfCliBenchFocus *o, FocusRow *row, GError **error)
{
  g_autofree EfSimTarget *targets = NULL;
  g_autofree double *err = NULL, *inject = NULL;
  g_autoptr (EfDataset) clean = NULL;
  g_autoptr (EfDataset) bad = NULL;
  g_autoptr (EfDataset) fixed = NULL;
  g_autoptr (EfJob) job = NULL;
  g_auto (EfFocusResult) fr = { 0 };
  g_auto (EfRunInfo) run = { 0 };
  EfFocusParams fp;
  EfSimParams sp;
  EfJobDefaults defaults;
  EfJobParams jp;
  EfGrid grid;
  gint64 t0;

  {
    EfCliBenchScene scene = { o->spaceborne, o->pulses, o->samples, o->n_targets, o->seed, o->threads };

    targets = ef_cli_bench_scene (size, &scene, &sp, &grid, error);
    if (targets == NULL)
      return FALSE;
  }

  if (o->tty)
    fprintf (stderr, "%u px: simulating %u pulses x %u samples, %u targets…\n", size, sp.n_pulses, sp.n_samples,
             o->n_targets);
  t0 = g_get_monotonic_time ();
  clean = ef_sim_run (&sp, error);
  if (clean == NULL)
    return FALSE;
  /* The error goes in as a correction of the opposite sign: pulse p times exp(+j err[p]). */
  err = make_error (o, sp.n_pulses);
  inject = g_new (double, sp.n_pulses);
  for (guint p = 0; p < sp.n_pulses; p++)
    inject[p] = -err[p];
  bad = ef_dataset_new_phase_corrected (clean, inject, sp.n_pulses, error);
  if (bad == NULL)
    return FALSE;
  row->sim_s = (double) (g_get_monotonic_time () - t0) * 1e-6;

  /* The estimate, as `form --autofocus` makes it: about the region's centre, its middle max_px pixels
   * at the estimator's own spacing, on the same backend. */
  if (o->tty)
    fprintf (stderr, "%u px: %s autofocus…\n", size, ef_focus_method_to_string (o->method));
  ef_focus_params_init (&fp, o->method);
  fp.extent_m = grid.width * grid.spacing;
  if (o->max_px > 0)
    fp.max_px = o->max_px;
  if (o->memory_mib > 0)
    fp.memory_bytes = (guint64) o->memory_mib << 20;
  fp.n_threads = o->threads;
  fp.backend = o->backend_kind;
  fp.n_devices = o->n_devices;
  if (!ef_focus_run (bad, &fp, &fr, error))
    return FALSE;
  if (fr.backend_note != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("autofocus estimated on %s: %s", fr.backend, fr.backend_note);

      ef_cli_warn_once (msg);
    }

  /* The corrected region, formed as `form` forms it by default (a job, Taylor windows). */
  if (o->tty)
    fprintf (stderr, "%u px: forming the corrected region…\n", size);
  fixed = ef_dataset_new_phase_corrected (bad, fr.phase, fr.n_pulses, error);
  if (fixed == NULL)
    return FALSE;
  ef_job_params_init (&jp, &grid);
  ef_job_defaults (fixed, EF_ALGO_BP, &defaults);
  ef_job_defaults_apply (&defaults, &jp);
  jp.backend_kind = o->backend_kind;
  jp.backend.n_threads = o->threads;
  jp.backend.n_devices = o->n_devices;
  jp.publish_interval_s = -1;
  t0 = g_get_monotonic_time ();
  job = ef_job_new (fixed, &jp, error);
  if (job == NULL || !ef_job_run (job, NULL, NULL, error))
    return FALSE;
  {
    g_autoptr (EfImage) img = ef_image_new (&grid, error);
    EfRect all = { 0, 0, grid.width, grid.height };

    /* Read back: the image the user gets, on the host. */
    if (img == NULL || !ef_job_read_image (job, &all, img->data, error))
      return FALSE;
  }
  row->final_s = (double) (g_get_monotonic_time () - t0) * 1e-6;
  ef_job_get_run_info (job, &run);

  row->size = size;
  row->max_px = fr.grid.width;
  row->est_rows = fr.grid.height;
  row->backend = fr.sums_backend != NULL ? g_strdup_printf ("%s (sums %s)", fr.backend, fr.sums_backend)
                                           : g_strdup (fr.backend);
  row->final_backend = g_strdup (run.backend != NULL ? run.backend : "?");
  row->pulses = sp.n_pulses;
  row->samples = sp.n_samples;
  row->iterations = fr.iterations;
  row->n_formations = fr.n_formations;
  row->form_s = fr.form_s;
  row->estimate_s = fr.estimate_s;
  row->injected_rad = ef_focus_phase_residual (err, NULL, sp.n_pulses);
  row->residual_rad = ef_focus_phase_residual (err, fr.phase, sp.n_pulses);
  row->entropy_before = fr.entropy_before;
  row->entropy_after = fr.entropy_after;
  return TRUE;
}

int
ef_cli_bench_focus (GArray *sizes, const EfCliBenchFocus *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (FocusRow));
  g_autofree char *now = NULL;
  g_autoptr (GDateTime) dt = g_date_time_new_now_utc ();

  for (guint i = 0; i < sizes->len; i++)
    {
      FocusRow row = { 0 };

      if (!bench_one (g_array_index (sizes, guint, i), o, &row, &error))
        {
          g_free (row.backend);
          g_free (row.final_backend);
          for (guint k = 0; k < rows->len; k++)
            {
              g_free (g_array_index (rows, FocusRow, k).backend);
              g_free (g_array_index (rows, FocusRow, k).final_backend);
            }
          return ef_cli_report ("bench", error);
        }
      g_array_append_val (rows, row);
    }

  now = g_date_time_format (dt, "%Y-%m-%dT%H:%MZ");
  if (o->json)
    {
      EfCliJson j;
      g_autofree char *text = NULL;

      ef_cli_json_init (&j);
      ef_cli_json_string (&j, "date", now);
      ef_cli_json_string (&j, "method", ef_focus_method_to_string (o->method));
      ef_cli_json_string (&j, "error", o->random_walk ? "random-walk" : "quadratic");
      ef_cli_json_int (&j, "cores", g_get_num_processors ());
      ef_cli_json_begin_array (&j, "rows");
      for (guint i = 0; i < rows->len; i++)
        {
          const FocusRow *r = &g_array_index (rows, FocusRow, i);

          ef_cli_json_begin_object (&j, NULL);
          ef_cli_json_int (&j, "size", r->size);
          ef_cli_json_int (&j, "estimation_px", r->max_px);
          ef_cli_json_int (&j, "estimation_rows", r->est_rows);
          ef_cli_json_int (&j, "pulses", r->pulses);
          ef_cli_json_int (&j, "samples", r->samples);
          ef_cli_json_string (&j, "backend", r->backend);
          ef_cli_json_string (&j, "final_backend", r->final_backend);
          ef_cli_json_int (&j, "iterations", r->iterations);
          ef_cli_json_int (&j, "formations", (gint64) r->n_formations);
          ef_cli_json_double (&j, "estimation_formations_s", r->form_s);
          ef_cli_json_double (&j, "estimation_host_s", r->estimate_s);
          ef_cli_json_double (&j, "final_formation_s", r->final_s);
          ef_cli_json_double (&j, "simulate_s", r->sim_s);
          ef_cli_json_double (&j, "injected_rad", r->injected_rad);
          ef_cli_json_double (&j, "residual_rad", r->residual_rad);
          ef_cli_json_double (&j, "entropy_before", r->entropy_before);
          ef_cli_json_double (&j, "entropy_after", r->entropy_after);
          ef_cli_json_end_object (&j);
        }
      ef_cli_json_end_array (&j);
      text = ef_cli_json_finish (&j);
      fputs (text, stdout);
    }
  else
    {
      printf ("# %s, %u cores; %s autofocus, injected %s error; times in s (formations: the estimate's images "
              "through the backend, the grid's before and after included; host: the estimator's own arithmetic, "
              "%s; final: the corrected region formed and read back)\n",
              now, g_get_num_processors (), ef_focus_method_to_string (o->method),
              o->random_walk ? "random-walk" : "quadratic",
              o->method == EF_FOCUS_PGA ? "PGA's spectra and entropies" : "the sweeps");
      printf ("| region px | pulses x samples | estimation px | estimated on | iterations | formations | "
              "formations s | host s | final s (on) | estimate + final s | injected rad | residual rad |\n");
      printf ("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
      for (guint i = 0; i < rows->len; i++)
        {
          const FocusRow *r = &g_array_index (rows, FocusRow, i);

          printf ("| %u² | %u x %u | %u x %u | %s | %u | %" G_GUINT64_FORMAT " | %.3f | %.3f | %.3f (%s) | %.3f | %.2f | "
                  "%.4f |\n", r->size, r->pulses, r->samples, r->max_px, r->est_rows, r->backend, r->iterations,
                  r->n_formations,
                  r->form_s, r->estimate_s, r->final_s, r->final_backend, r->form_s + r->estimate_s + r->final_s,
                  r->injected_rad, r->residual_rad);
        }
    }
  for (guint i = 0; i < rows->len; i++)
    {
      g_free (g_array_index (rows, FocusRow, i).backend);
      g_free (g_array_index (rows, FocusRow, i).final_backend);
    }
  return EF_CLI_EXIT_OK;
}
