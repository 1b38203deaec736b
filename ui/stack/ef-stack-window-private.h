/* ef-stack-window-private.h: what the stack window's files share: its state and the analysis it shows. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-stack-window.h"
#include "ef-arcs-ps.h"
#include "ef-sim-repeat.h"
#include "ef-stack.h"
#include "ef-stack-ps.h"

G_BEGIN_DECLS

/* What the worker hands the window: everything owned. */
typedef struct {
  guint            width, height, n_passes;
  float           *amp_db;     /* mean amplitude over the passes, dB */
  float           *score;      /* each pixel's best arc coherence */
  EfPsNetwork     *net;
  double          *t_years, *bperp;
  EfStackGeometry  geometry;
  EfRepeatTruth   *truth;      /* NULL without truth.json */
  EfStackPsReport  report;     /* what ran */
} EfStackAnalysis;

void ef_stack_analysis_free (EfStackAnalysis *an);

struct _EfStackWindow {
  GtkWindow        parent_instance;

  GtkWidget       *map;        /* borrowed (children) */
  GtkWidget       *plot;
  GtkWidget       *status;
  GtkWidget       *layer_button;

  char            *dir;        /* owned */
  EfStack         *stack;      /* owned: read for the selected candidate's series */
  EfStackAnalysis *an;         /* owned, once loaded */
  GCancellable    *cancel;     /* owned */
  gboolean         loaded;
  gboolean         failed;
  cairo_surface_t *layers[2];  /* owned: mean amplitude, coherence */
  guint            layer;
  double           vmax;       /* velocity colour scale, m/yr */
  int              selected;   /* candidate, or -1 */
  /* The selected candidate's series, owned: dates (years), estimated displacement relative to the
   * reference (mm), and the truth's (mm, NULL without truth). */
  guint            n_series;
  double          *series_t, *series_mm, *truth_mm;
};

/* Selects the candidate nearest pixel (col, row) within a few pixels, reads its series and redraws. */
void ef_stack_window_pick (EfStackWindow *self, double col, double row);
/* The map's placement of pixel (0, 0) and its scale, in widget coordinates. */
void ef_stack_window_map_geometry (EfStackWindow *self, double *x0, double *y0, double *scale);

G_END_DECLS
