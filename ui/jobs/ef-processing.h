/* ef-processing.h: the processing choices a user makes, and how they become job parameters. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "ef-job.h"
#include "ef-job-defaults.h"

G_BEGIN_DECLS

typedef struct {
  EfAlgo        algo;
  EfPrecision   precision;
  EfBackendKind backend;
  EfOrder       order;
  EfWindow      window;
  EfWindow      az_window;          /* cross-range (aperture) weighting */
  guint         upsample;
  guint         block_size;
  guint         n_threads;          /* 0 = all cores */
  gboolean      spacing_auto;       /* the ROI spacing follows the resolution */
  double        spacing;            /* m, when not automatic */
  double        samples_per_cell;   /* pixels per resolution cell, when automatic */
} EfProcessing;

void ef_processing_init (EfProcessing *proc);
/* Reads the defaults from the application's settings (schema APP_ID). */
void ef_processing_load_settings (EfProcessing *proc, GSettings *settings);

/* Fills job parameters for grid from the choices. */
void ef_processing_to_job_params (const EfProcessing *proc, const EfGrid *grid, EfJobParams *params);

G_END_DECLS
