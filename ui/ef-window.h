/* ef-window.h: the main window: one collection, its overview, a region forming, panels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>
#include "ef-dataset.h"
#include "ef-image-view.h"
#include "ef-job-runner.h"

G_BEGIN_DECLS

#define EF_TYPE_WINDOW (ef_window_get_type ())
G_DECLARE_FINAL_TYPE (EfWindow, ef_window, EF, WINDOW, AdwApplicationWindow)

/* What to do without a user: form a region, measure, save a screenshot once the region is done. */
typedef struct {
  gboolean has_roi;
  double   roi[4];        /* x0, y0, x1, y1, m */
  double   spacing;       /* m; 0 = from the resolution */
  gboolean has_measure;
  double   measure[2];    /* x, y, m */
  char    *screenshot;    /* PNG path, or NULL */
  char    *panel;         /* sidebar page to show: dataset, geometry, processing, display, measurements */
  gboolean zoom_roi;      /* zoom the view to the region */
} EfBatch;

void ef_batch_clear (EfBatch *batch);

EfWindow *ef_window_new (GtkApplication *app);

/* Opens a file or folder on a worker thread; the window shows progress and never waits. */
void ef_window_open_path (EfWindow *self, const char *path);
/* Opens the installed demo file, or simulates the demo scene in memory (always, if simulate). */
void ef_window_open_demo (EfWindow *self, gboolean simulate);
/* Takes over a dataset already in memory. */
void ef_window_set_dataset (EfWindow *self, EfDataset *dataset);
EfDataset *ef_window_get_dataset (EfWindow *self);

/* Copies batch; it applies to the next collection that finishes loading. "batch-done" reports the end. */
void ef_window_set_batch (EfWindow *self, const EfBatch *batch);

/* Sets the region (x0, y0, x1, y1 in m) and starts forming it at once, cancelling what ran. */
void ef_window_set_roi (EfWindow *self, const double roi[4]);
gboolean ef_window_get_roi (EfWindow *self, double roi[4]);
/* The pixel spacing the region forms at, m. */
double ef_window_get_roi_spacing (EfWindow *self);
/* Measures the point target nearest scene point (x, y) in what is formed so far. */
gboolean ef_window_measure_at (EfWindow *self, double x, double y, GError **error);

/* Saves a PNG of the whole window as it is on screen (atomically). */
gboolean ef_window_save_screenshot (EfWindow *self, const char *path, GError **error);

EfImageView *ef_window_get_image_view (EfWindow *self);
EfJobRunner *ef_window_get_roi_runner (EfWindow *self);
EfJobRunner *ef_window_get_overview_runner (EfWindow *self);
/* TRUE once the overview and any region have finished and the view shows all of them. */
gboolean ef_window_is_idle (EfWindow *self);

G_END_DECLS
