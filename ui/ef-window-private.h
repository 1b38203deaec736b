/* ef-window-private.h: the main window's state, shared by the files that make up EfWindow. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-cut-plot.h"
#include "ef-dataset-panel.h"
#include "ef-display-panel.h"
#include "ef-geometry-plot.h"
#include "ef-job-runner.h"
#include "ef-measure-panel.h"
#include "ef-processing.h"
#include "ef-processing-panel.h"
#include "ef-window.h"

G_BEGIN_DECLS

/* One row of the measurements table. */
typedef struct {
  double x, y, peak_db;
  double range_irw, range_pslr, range_islr;
  double cross_irw, cross_pslr, cross_islr;
  double spacing;
} EfMeasurement;

struct _EfWindow {
  AdwApplicationWindow parent_instance;

  /* Template children, borrowed. */
  AdwWindowTitle      *window_title;
  AdwToastOverlay     *toast_overlay;
  AdwFlap             *flap;
  AdwViewStack        *panel_stack;
  EfImageView         *image_view;
  GtkWidget           *loading_box;
  GtkSpinner          *spinner;
  GtkLabel            *loading_label;
  GtkProgressBar      *progress_bar;
  GtkLabel            *progress_label;
  GtkLabel            *readout_label;
  EfDatasetPanel      *dataset_panel;
  EfGeometryPlot      *geometry_plot;
  EfProcessingPanel   *processing_panel;
  EfDisplayPanel      *display_panel;
  EfMeasurePanel      *measure_panel;
  GMenu               *recent_section;

  /* Owned state. */
  GSettings           *settings;
  EfDataset           *dataset;
  char                *session_key;
  GCancellable        *load_cancellable;
  gboolean             has_box;
  double               box[4];
  EfProcessing         proc;
  EfDisplayParams      display;
  gboolean             display_known;    /* from the session, or set by the user: no automatic range */
  gboolean             has_roi;
  double               roi[4];
  EfJobRunner         *overview;
  EfJobRunner         *roi_runner;
  gboolean             overview_done;
  gboolean             roi_pending;      /* start the region once the overview is done */
  double               roi_spacing;      /* of the region in flight */
  GArray              *measurements;     /* EfMeasurement */
  gboolean             has_marker;
  EfBatch              batch;
  gboolean             batch_pending;    /* batch waits for the next collection */
  gboolean             batch_running;
  guint                batch_tick_id;
  guint                batch_frames;
  guint                session_save_id;
  gint64               last_status_us;
};

/* ef-window-actions.c */
void ef_window_actions_init (EfWindow *self);
void ef_window_actions_sync (EfWindow *self);

/* ef-window-jobs.c */
void ef_window_jobs_start_overview (EfWindow *self);
void ef_window_jobs_start_roi (EfWindow *self);
void ef_window_jobs_stop (EfWindow *self);
void ef_window_jobs_update_status (EfWindow *self);
double ef_window_jobs_auto_spacing (EfWindow *self);
void ef_window_jobs_auto_range (EfWindow *self);

/* ef-window-files.c */
void ef_window_files_init (EfWindow *self);
void ef_window_files_update_recent (EfWindow *self);
void ef_window_show_open_dialog (EfWindow *self, gboolean folder);
void ef_window_toast (EfWindow *self, const char *message);
void ef_window_set_loading (EfWindow *self, const char *message);

/* ef-window-export.c */
void ef_window_export_image (EfWindow *self);
void ef_window_export_png (EfWindow *self);
void ef_window_export_measurements (EfWindow *self);
gboolean ef_window_write_measurements_csv (EfWindow *self, const char *path, GError **error);

/* ef-window.c */
void ef_window_queue_session_save (EfWindow *self);
void ef_window_apply_display (EfWindow *self);
void ef_window_batch_roi_finished (EfWindow *self, EfJobState state, const GError *error);

G_END_DECLS
