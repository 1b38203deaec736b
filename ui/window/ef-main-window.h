/* ef-main-window.h: the main window: one collection, its overview, a region forming, panels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>
#include "ef-dataset.h"
#include "ef-image-view.h"
#include "ef-job-runner.h"

G_BEGIN_DECLS

#define EF_TYPE_MAIN_WINDOW (ef_main_window_get_type ())
G_DECLARE_FINAL_TYPE (EfMainWindow, ef_main_window, EF, MAIN_WINDOW, AdwApplicationWindow)

/* What to do without a user: form a region, measure, save a screenshot once the region is done. */
typedef struct {
  gboolean has_roi;
  double   roi[4];        /* x0, y0, x1, y1, m */
  double   spacing;       /* m; 0 = from the resolution */
  gboolean has_measure;
  double   measure[2];    /* x, y, m */
  char    *screenshot;    /* PNG path, or NULL */
  char    *panel;         /* sidebar page to show (ef_main_window_panel_name); a name of none fails the run */
  gboolean zoom_roi;      /* zoom the view to the region */
  char    *view;          /* magnitude, phase, real or imaginary; NULL keeps it */
  char    *colormap;      /* grey, perceptual or cyclic; NULL keeps it */
} EfBatch;

void ef_batch_clear (EfBatch *batch);

/* The sidebar page that name stands for (dataset, geometry, processing, display, measurements, or one of
 * their short forms such as "measure"), static; NULL for none. */
const char *ef_main_window_panel_name (const char *name);
/* Batch runs say on standard output what they did and what the window shows when the screenshot is
 * taken (the command line's --verbose). Process-wide. */
void ef_main_window_set_verbose (gboolean verbose);

EfMainWindow *ef_main_window_new (GtkApplication *app);

/* Opens a file or folder on a worker thread; the window shows progress and never waits. */
void ef_main_window_open_path (EfMainWindow *self, const char *path);
/* Opens the installed demo file, or simulates the demo scene in memory (always, if simulate). */
void ef_main_window_open_demo (EfMainWindow *self, gboolean simulate);
/* Takes over a dataset already in memory. */
void ef_main_window_set_dataset (EfMainWindow *self, EfDataset *dataset);
EfDataset *ef_main_window_get_dataset (EfMainWindow *self);

/* Copies batch; it applies to the next collection that finishes loading. "batch-done" reports the end. */
void ef_main_window_set_batch (EfMainWindow *self, const EfBatch *batch);

/* Sets the region (x0, y0, x1, y1 in m) and starts forming it at once, cancelling what ran. */
void ef_main_window_set_roi (EfMainWindow *self, const double roi[4]);
gboolean ef_main_window_get_roi (EfMainWindow *self, double roi[4]);
/* The pixel spacing the region forms at, m. */
double ef_main_window_get_roi_spacing (EfMainWindow *self);
/* Measures the point target nearest scene point (x, y) in what is formed so far. */
gboolean ef_main_window_measure_at (EfMainWindow *self, double x, double y, GError **error);

/* Writes the measurements made so far as CSV (C locale numbers), atomically. */
gboolean ef_main_window_write_measurements_csv (EfMainWindow *self, const char *path, GError **error);

/* Saves a PNG of the whole window as it is on screen (atomically). */
gboolean ef_main_window_save_screenshot (EfMainWindow *self, const char *path, GError **error);

EfImageView *ef_main_window_get_image_view (EfMainWindow *self);

G_END_DECLS
