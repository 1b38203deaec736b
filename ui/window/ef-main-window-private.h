/* ef-main-window-private.h: the main window's state, shared by the files that make up EfMainWindow. */
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
#include "ef-session.h"
#include "ef-main-window.h"

G_BEGIN_DECLS

/* One row of the measurements table, with what produced the image it was measured on. */
typedef struct {
  double x, y, peak_db;
  double range_irw, range_pslr, range_islr;
  double cross_irw, cross_pslr, cross_islr;
  double spacing;
  char  *file;          /* owned: the collection's path, or "demo" for the simulated scene */
  EfAlgo      algo;     /* what ran */
  EfWindow    window;
  EfPrecision precision;
  gboolean    in_roi;   /* the region's image, or the overview's */
} EfMeasurement;

/* A region as it was, for undo and redo. */
typedef struct {
  gboolean has_roi;
  double   roi[4];
} EfRoiState;

struct _EfMainWindow {
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
  GtkMenuButton       *main_menu_button;
  GtkWidget           *empty_page;
  GtkWidget           *drop_highlight;
  GtkWidget           *zoom_box;

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
  GArray              *roi_undo;         /* owned EfRoiState: the regions before, newest last */
  GArray              *roi_redo;         /* owned EfRoiState: the regions undone, newest last */
  gboolean             roi_restoring;    /* an undo or redo sets the region: it is not a new change */
  guint                n_histograms;     /* histograms being made on worker threads */
  EfJobRunner         *overview;
  EfJobRunner         *roi_runner;
  gboolean             overview_done;
  gboolean             roi_pending;      /* start the region once the overview is done */
  double               roi_spacing;      /* of the region in flight */
  GArray              *measurements;     /* EfMeasurement */
  gboolean             has_marker;
  double               measure_click[2];  /* where the shown measurement was asked for */
  gboolean             remeasure;         /* measure there again once the region is formed */
  EfBatch              batch;
  gboolean             batch_pending;    /* batch waits for the next collection */
  gboolean             batch_running;
  guint                batch_tick_id;
  guint                batch_frames;
  guint                session_save_id;
  gint64               last_status_us;
  GCancellable        *verify_cancellable; /* owned: the check of the region in flight, or NULL */
  double               verify_ser_db;      /* the last check's result, NAN before one */
  guint                verify_n_pixels;
  char                *run_told;          /* owned: the region's warnings already toasted, or NULL */
#if EF_TEST_HOOKS
  char                *last_toast;        /* owned: the newest toast's message, or NULL */
  AdwToast            *last_toast_object; /* owned: the newest toast, or NULL */
#endif
  /* The regions kept (ef-main-window-regions.c): boxes and processing, remembered with the session, and
   * their images (owned; NULL for one remembered from an earlier session and not formed since). */
  guint                n_regions;
  EfSessionRegion      regions[EF_SESSION_MAX_REGIONS];
  EfImage             *region_images[EF_SESSION_MAX_REGIONS];
  GtkWindow           *compare_window;    /* owned ref: the last comparison opened, or NULL */
};

/* ef-main-window-actions.c */
void ef_main_window_actions_init (EfMainWindow *self);
void ef_main_window_actions_sync (EfMainWindow *self);

/* ef-main-window-regions.c */
void ef_main_window_regions_add_actions (EfMainWindow *self);
void ef_main_window_regions_clear (EfMainWindow *self);
void ef_main_window_regions_to_state (EfMainWindow *self, EfSessionState *state);
void ef_main_window_regions_from_state (EfMainWindow *self, const EfSessionState *state);
/* Keeps the region in view, formed, with its processing; FALSE with error when there is none yet. */
gboolean ef_main_window_keep_region (EfMainWindow *self, GError **error);
/* Opens a window comparing kept regions a and b (0-based). */
gboolean ef_main_window_compare_regions (EfMainWindow *self, guint a, guint b, GError **error);
/* Forms kept region index (0-based) again: its box and processing become the view's. */
gboolean ef_main_window_restore_region (EfMainWindow *self, guint index, GError **error);
guint                  ef_main_window_get_n_regions (EfMainWindow *self);
const EfSessionRegion *ef_main_window_get_region (EfMainWindow *self, guint index);
const EfImage         *ef_main_window_get_region_image (EfMainWindow *self, guint index);

/* ef-main-window-classroom.c: win.classroom */
void ef_main_window_classroom_add_actions (EfMainWindow *self);

/* ef-main-window-jobs.c */
void ef_main_window_jobs_start_overview (EfMainWindow *self);
void ef_main_window_jobs_start_roi (EfMainWindow *self);
void ef_main_window_jobs_stop (EfMainWindow *self);
void ef_main_window_jobs_update_status (EfMainWindow *self);
double ef_main_window_jobs_auto_spacing (EfMainWindow *self);
void ef_main_window_jobs_auto_range (EfMainWindow *self);
/* Tells the jobs which display values the view wants now (the view mode). */
void ef_main_window_jobs_sync_values_mode (EfMainWindow *self);

/* ef-main-window-files.c */
void ef_main_window_files_init (EfMainWindow *self);
void ef_main_window_files_update_recent (EfMainWindow *self);
void ef_main_window_show_open_dialog (EfMainWindow *self, gboolean folder);
void ef_main_window_toast (EfMainWindow *self, const char *message);
/* The same for something that failed: a long one stays until it is dismissed. */
void ef_main_window_toast_error (EfMainWindow *self, const char *message);
/* A toast with a button that activates action (a "win." action, with target or NULL). */
void ef_main_window_toast_with_action (EfMainWindow *self, const char *message, const char *button,
                                       const char *action, GVariant *target);
/* Shows message whole, in a dialog: what a long toast's button does. */
void ef_main_window_show_message (EfMainWindow *self, const char *message);
void ef_main_window_set_loading (EfMainWindow *self, const char *message);
/* What a drop of files (GFile, the first one opens) on the window does; the drop target calls it, and
 * tests can. FALSE if nothing could be opened. */
gboolean ef_main_window_drop_files (EfMainWindow *self, GSList *files);

/* ef-main-window-history.c: the region's history (win.undo-region, win.redo-region). */
/* Remembers the region as it is, before a change that is the user's (not while undoing or redoing). */
void ef_main_window_remember_roi (EfMainWindow *self);
void ef_main_window_undo_region (EfMainWindow *self);
void ef_main_window_redo_region (EfMainWindow *self);

/* ef-main-window-measure.c */
void ef_measurement_clear (gpointer measurement);
/* The region forms again (TRUE) or a new one replaced it (FALSE): the measurement is marked, or goes. */
void ef_main_window_measure_region_changed (EfMainWindow *self);
/* The region is formed: a measurement marked as the old region's is made again. */
void ef_main_window_measure_region_formed (EfMainWindow *self);

/* ef-main-window-export.c */
void ef_main_window_export_image (EfMainWindow *self);
void ef_main_window_export_png (EfMainWindow *self);
void ef_main_window_export_measurements (EfMainWindow *self);
/* The same without asking: they report the outcome in a toast. The image is written on a worker
 * thread; "export-finished" follows. */
void ef_main_window_export_image_to (EfMainWindow *self, const char *path);
void ef_main_window_export_png_to (EfMainWindow *self, const char *path);
void ef_main_window_export_measurements_to (EfMainWindow *self, const char *path);
/* The region (or the overview) at full resolution, one file pixel per image pixel, as a dB PNG with
 * axes, scale bar, north arrow and colour bar; on a worker thread, then "export-finished". */
void ef_main_window_export_region_png (EfMainWindow *self);
void ef_main_window_export_region_png_to (EfMainWindow *self, const char *path);

/* ef-main-window-verify.c: the region against exact backprojection at sampled pixels ("verify-finished"). */
void     ef_main_window_verify_region (EfMainWindow *self);   /* starts a check, or stops the one in flight */
void     ef_main_window_verify_reset (EfMainWindow *self);    /* stops any check and forgets the result */
gboolean ef_main_window_verify_available (EfMainWindow *self); /* a formed region is there to check */
gboolean ef_main_window_verify_running (EfMainWindow *self);

/* ef-main-window.c */
void ef_main_window_queue_session_save (EfMainWindow *self);
void ef_main_window_apply_display (EfMainWindow *self);
void ef_main_window_batch_roi_finished (EfMainWindow *self, EfJobState state, const GError *error);

G_END_DECLS
