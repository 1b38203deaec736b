/* ef-processing.c: defaults, settings and job parameters for the processing choices. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-processing"
#include "config.h"

#include "ef-processing.h"

void
ef_processing_init (EfProcessing *proc)
{
  EfJobDefaults d;

  g_return_if_fail (proc != NULL);
  /* The engine's defaults, which echoform-cli uses too (the settings schema repeats them). */
  ef_job_defaults (NULL, EF_ALGO_BP, &d);
  proc->algo = EF_ALGO_BP;
  proc->precision = EF_PRECISION_FP32;
  proc->backend = EF_BACKEND_AUTO;
  proc->order = d.order;
  proc->window = d.window;
  proc->az_window = d.az_window;
  proc->upsample = d.upsample;
  proc->block_size = d.block_size;
  proc->n_threads = 0;
  proc->spacing_auto = TRUE;
  proc->spacing = 0.1;
  proc->samples_per_cell = EF_DEFAULT_PIXELS_PER_CELL;
}

void
ef_processing_load_settings (EfProcessing *proc, GSettings *settings)
{
  g_autofree char *algo = NULL, *precision = NULL, *backend = NULL, *order = NULL, *window = NULL;
  g_autofree char *az_window = NULL;
  double spacing;

  g_return_if_fail (proc != NULL && G_IS_SETTINGS (settings));

  algo = g_settings_get_string (settings, "algorithm");
  precision = g_settings_get_string (settings, "precision");
  backend = g_settings_get_string (settings, "backend");
  order = g_settings_get_string (settings, "order");
  window = g_settings_get_string (settings, "window-function");
  az_window = g_settings_get_string (settings, "azimuth-window-function");
  ef_algo_from_string (algo, &proc->algo);
  ef_precision_from_string (precision, &proc->precision);
  ef_backend_kind_from_string (backend, &proc->backend);
  ef_order_from_string (order, &proc->order);
  ef_window_from_string (window, &proc->window);
  ef_window_from_string (az_window, &proc->az_window);
  proc->upsample = MAX (1, g_settings_get_uint (settings, "upsample"));
  proc->block_size = MAX (1, g_settings_get_uint (settings, "block-size"));
  proc->n_threads = g_settings_get_uint (settings, "threads");
  spacing = g_settings_get_double (settings, "default-spacing");
  proc->spacing_auto = !(spacing > 0);
  if (spacing > 0)
    proc->spacing = spacing;
  proc->samples_per_cell = MAX (0.5, g_settings_get_double (settings, "samples-per-cell"));
}

void
ef_processing_to_job_params (const EfProcessing *proc, const EfGrid *grid, EfJobParams *params)
{
  g_return_if_fail (proc != NULL && grid != NULL && params != NULL);

  ef_job_params_init (params, grid);
  params->backend.grid = *grid;
  params->backend.precision = proc->precision;
  params->backend.algo = proc->algo;
  params->backend.block_size = proc->block_size;
  params->backend.n_threads = proc->n_threads;
  params->backend.range.window = proc->window;
  params->backend.range.az_window = proc->az_window;
  params->backend.range.upsample = MAX (1, proc->upsample);
  params->backend_kind = proc->backend;
  params->order = proc->order;
}

