/* ef-main-window.c: the main window: set-up, the collection in view, panels, session memory, batch runs. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "ef-demo.h"
#include "ef-scene.h"
#include "ef-session.h"
#include "ef-settings.h"
#include "ef-main-window-private.h"
#include "ef-main-window-focus.h"

G_DEFINE_FINAL_TYPE (EfMainWindow, ef_main_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  SIGNAL_DATASET_LOADED,
  SIGNAL_ROI_FINISHED,
  SIGNAL_BATCH_DONE,
  SIGNAL_EXPORT_FINISHED,
  SIGNAL_VERIFY_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Session changes are saved this long after the last one, so that a drag writes the file once. */
#define SESSION_SAVE_DELAY_MS 500
/* Frames a batch waits for the window's picture before its screenshot fails (about 5 s at 60 Hz). */
#define BATCH_PICTURE_FRAMES 300

static gboolean verbose;

void
ef_main_window_set_verbose (gboolean on)
{
  verbose = on;
}

/* What --verbose prints: plain lines for people and scripts, in English whatever the locale. */
static void G_GNUC_PRINTF (1, 2)
report (const char *format, ...)
{
  va_list args;
  g_autofree char *line = NULL;

  if (!verbose)
    return;
  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);
  g_print ("echoform: %s\n", line);
}

/* The sidebar's pages, and the shorter names the command line accepts for them. */
static const struct {
  const char *name;
  const char *aliases[3];
} panels[] = {
  { "dataset", { "data", NULL } },
  { "geometry", { "geo", NULL } },
  { "processing", { "process", NULL } },
  { "display", { NULL } },
  { "measurements", { "measure", "measurement", NULL } },
};

const char *
ef_main_window_panel_name (const char *name)
{
  if (name == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (panels); i++)
    {
      if (g_ascii_strcasecmp (name, panels[i].name) == 0)
        return panels[i].name;
      for (guint j = 0; panels[i].aliases[j] != NULL; j++)
        if (g_ascii_strcasecmp (name, panels[i].aliases[j]) == 0)
          return panels[i].name;
    }
  return NULL;
}

void
ef_batch_clear (EfBatch *batch)
{
  if (batch == NULL)
    return;
  g_clear_pointer (&batch->screenshot, g_free);
  g_clear_pointer (&batch->panel, g_free);
  g_clear_pointer (&batch->view, g_free);
  g_clear_pointer (&batch->colormap, g_free);
  memset (batch, 0, sizeof *batch);
}

/* ---- session ---------------------------------------------------------------------------------- */

static void
session_save_now (EfMainWindow *self)
{
  EfSessionState state = { 0 };
  g_autoptr (GError) error = NULL;

  if (self->session_key == NULL || self->dataset == NULL)
    return;
  state.has_roi = self->has_roi;
  memcpy (state.roi, self->roi, sizeof state.roi);
  state.proc = self->proc;
  state.has_display = self->display_known;
  state.display = self->display;
  ef_main_window_regions_to_state (self, &state);
  if (!ef_session_save (self->session_key, &state, &error))
    g_debug ("The session could not be saved: %s", error->message);
}

static gboolean
session_save_timeout (gpointer user_data)
{
  EfMainWindow *self = user_data;

  self->session_save_id = 0;
  session_save_now (self);
  return G_SOURCE_REMOVE;
}

void
ef_main_window_queue_session_save (EfMainWindow *self)
{
  /* Batch runs are driven from outside; they must not change what a user sees next time. */
  if (self->batch_running)
    return;
  g_clear_handle_id (&self->session_save_id, g_source_remove);
  self->session_save_id = g_timeout_add (SESSION_SAVE_DELAY_MS, session_save_timeout, self);
}

/* ---- display ---------------------------------------------------------------------------------- */

void
ef_main_window_apply_display (EfMainWindow *self)
{
  ef_image_view_set_display (self->image_view, &self->display);
  ef_main_window_jobs_sync_values_mode (self);
  ef_display_panel_set (self->display_panel, &self->display);
  ef_main_window_actions_sync (self);
}

static void
display_panel_changed (EfMainWindow *self)
{
  ef_display_panel_get (self->display_panel, &self->display);
  self->display_known = TRUE;
  ef_image_view_set_display (self->image_view, &self->display);
  ef_main_window_jobs_sync_values_mode (self);
  ef_main_window_actions_sync (self);
  ef_main_window_queue_session_save (self);
}

/* Whether two sets of choices form the same region: the same spacing in effect and the same job. */
static gboolean
same_region_job (EfMainWindow *self, const EfProcessing *a, double spacing_a, const EfProcessing *b,
                 double spacing_b)
{
  EfProcessing x = *a, y = *b;

  x.spacing = y.spacing = 0;
  x.spacing_auto = y.spacing_auto = FALSE;
  x.samples_per_cell = y.samples_per_cell = 0;
  return memcmp (&x, &y, sizeof x) == 0 && spacing_a == spacing_b;
}

static void
processing_panel_changed (EfMainWindow *self)
{
  EfProcessing before = self->proc;
  double spacing_before = ef_main_window_get_roi_spacing (self), auto_spacing;

  ef_processing_panel_get (self->processing_panel, &self->proc);
  if (memcmp (&before, &self->proc, sizeof before) == 0)
    return;
  /* Switching the automatic spacing off keeps the spacing it gave, not the spin button's rounding of it:
   * the region stays as it is. */
  auto_spacing = ef_main_window_jobs_auto_spacing (self);
  if (before.spacing_auto && !self->proc.spacing_auto && fabs (self->proc.spacing - auto_spacing) < 5e-4)
    self->proc.spacing = auto_spacing;
  ef_main_window_actions_sync (self);
  ef_main_window_queue_session_save (self);
  /* Range compression and the backend shape the overview too. */
  if (before.window != self->proc.window || before.az_window != self->proc.az_window
      || before.upsample != self->proc.upsample
      || before.backend != self->proc.backend)
    ef_main_window_jobs_start_overview (self);
  if (self->has_roi
      && !same_region_job (self, &before, spacing_before, &self->proc, ef_main_window_get_roi_spacing (self)))
    ef_main_window_jobs_start_roi (self);
}

static void
region_typed (EfProcessingPanel *panel, double x0, double y0, double x1, double y1, EfMainWindow *self)
{
  const double roi[4] = { x0, y0, x1, y1 };

  ef_main_window_set_roi (self, roi);
}

/* ---- the collection --------------------------------------------------------------------------- */

static void
update_title (EfMainWindow *self)
{
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;
  const EfDatasetInfo *info;

  if (self->dataset == NULL)
    {
      adw_window_title_set_title (self->window_title, _("Echoform"));
      adw_window_title_set_subtitle (self->window_title, NULL);
      return;
    }
  info = &self->dataset->info;
  title = info->path ? g_path_get_basename (info->path) : g_strdup (_("Demo Scene"));
  {
    g_autofree char *pulses = g_strdup_printf ("%" G_GUINT64_FORMAT, info->n_pulses);
    g_autofree char *samples = g_strdup_printf ("%" G_GUINT64_FORMAT, info->n_samples);
    /* Translators: "CPHD 1.0.1 · 512 pulses × 512 samples" */
    subtitle = g_strdup_printf (_("%s · %s pulses × %s samples"), info->source ? info->source : "", pulses, samples);
  }
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, subtitle);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

/* Starts the batch run asked for, on the collection just loaded; FALSE (and "batch-done") if it cannot. */
static gboolean
start_batch (EfMainWindow *self)
{
  EfBatch *b = &self->batch;
  const char *panel = ef_main_window_panel_name (b->panel);

  self->batch_pending = FALSE;
  if (b->panel != NULL && panel == NULL)
    {
      /* Translators: the page names stay in English: they are what the command line accepts. */
      g_autofree char *msg = g_strdup_printf (_("There is no sidebar page “%s”: the pages are dataset, "
                                                "geometry, processing, display and measurements"), b->panel);
      g_signal_emit (self, signals[SIGNAL_BATCH_DONE], 0, FALSE, msg);
      return FALSE;
    }
  self->batch_running = TRUE;
  report ("opened %s: %" G_GUINT64_FORMAT " pulses of %" G_GUINT64_FORMAT " samples",
          self->dataset->info.path != NULL ? self->dataset->info.path : "the demo scene",
          self->dataset->info.n_pulses, self->dataset->info.n_samples);
  if (b->has_roi)
    {
      self->has_roi = TRUE;
      memcpy (self->roi, b->roi, sizeof self->roi);
    }
  if (b->spacing > 0)
    {
      self->proc.spacing_auto = FALSE;
      self->proc.spacing = b->spacing;
    }
  if (panel != NULL)
    {
      adw_flap_set_reveal_flap (self->flap, TRUE);
      adw_view_stack_set_visible_child_name (self->panel_stack, panel);
    }
  return TRUE;
}

void
ef_main_window_set_dataset (EfMainWindow *self, EfDataset *dataset)
{
  EfSessionState state = { 0 };

  g_return_if_fail (EF_IS_MAIN_WINDOW (self));
  g_return_if_fail (dataset != NULL);

  if (self->session_save_id != 0)
    {
      g_clear_handle_id (&self->session_save_id, g_source_remove);
      session_save_now (self);
    }
  ef_main_window_jobs_stop (self);
  ef_main_window_set_loading (self, NULL);

  g_clear_pointer (&self->dataset, ef_dataset_unref);
  self->dataset = ef_dataset_ref (dataset);
  g_free (self->session_key);
  self->session_key = ef_session_key_for_path (dataset->info.path);

  ef_scene_estimate_box (dataset, self->box);
  self->has_box = TRUE;

  /* Defaults, then what this collection was last seen with. */
  ef_processing_init (&self->proc);
  ef_processing_load_settings (&self->proc, self->settings);
  state.proc = self->proc;
  ef_display_params_init (&state.display);
  self->has_roi = FALSE;
  self->display_known = FALSE;
  state.n_regions = 0;
  if (ef_session_load (self->session_key, &state))
    {
      self->proc = state.proc;
      self->has_roi = state.has_roi;
      memcpy (self->roi, state.roi, sizeof self->roi);
      if (state.has_display)
        {
          self->display = state.display;
          self->display_known = TRUE;
        }
    }
  if (!self->display_known)
    {
      g_autofree char *map = g_settings_get_string (self->settings, "colormap");
      ef_display_params_init (&self->display);
      ef_colormap_from_string (map, &self->display.colormap);
      self->display.gamma = g_settings_get_double (self->settings, "gamma");
      if (!g_settings_get_boolean (self->settings, "db-range-auto"))
        {
          self->display.db_min = g_settings_get_double (self->settings, "db-min");
          self->display.db_max = g_settings_get_double (self->settings, "db-max");
          self->display_known = TRUE;
        }
    }
  ef_main_window_regions_from_state (self, &state);
  g_array_set_size (self->measurements, 0);
  self->has_marker = FALSE;
  self->remeasure = FALSE;
  ef_image_view_set_marker (self->image_view, NULL);
  ef_measure_panel_set_result (self->measure_panel, NULL, 0, NULL);
  /* The history is this collection's. */
  g_array_set_size (self->roi_undo, 0);
  g_array_set_size (self->roi_redo, 0);

  if (self->batch_pending && start_batch (self))
    {
      if (self->batch.view != NULL && ef_view_mode_from_string (self->batch.view, &self->display.mode)
          && self->display.mode == EF_VIEW_PHASE)
        self->display.colormap = EF_COLORMAP_CYCLIC;
      if (self->batch.colormap != NULL)
        ef_colormap_from_string (self->batch.colormap, &self->display.colormap);
    }

  update_title (self);
  gtk_widget_set_visible (self->empty_page, FALSE);
  gtk_widget_set_visible (self->zoom_box, TRUE);
  if (!self->has_roi)
    ef_processing_panel_set_roi_info (self->processing_panel, NULL);
  ef_processing_panel_set_roi (self->processing_panel, self->has_roi ? self->roi : NULL);
  ef_display_panel_set_histogram (self->display_panel, NULL, 0, 0, 0);
  ef_image_view_set_scene_box (self->image_view, self->box);
  ef_image_view_set_roi (self->image_view, self->has_roi ? self->roi : NULL);
  ef_dataset_panel_set_dataset (self->dataset_panel, dataset, self->box);
  ef_geometry_plot_set_dataset (self->geometry_plot, dataset, self->box);
  ef_geometry_plot_set_roi (self->geometry_plot, self->has_roi ? self->roi : NULL);
  ef_processing_panel_set (self->processing_panel, &self->proc, ef_main_window_jobs_auto_spacing (self));
  ef_main_window_apply_display (self);

  ef_main_window_jobs_start_overview (self);
  if (self->has_roi)
    {
      ef_main_window_jobs_start_roi (self);
      if (self->batch_running && self->batch.zoom_roi)
        ef_image_view_zoom_to_box (self->image_view, self->roi);
    }
  ef_main_window_actions_sync (self);
  g_signal_emit (self, signals[SIGNAL_DATASET_LOADED], 0);
}

EfDataset *
ef_main_window_get_dataset (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), NULL);
  return self->dataset;
}

void
ef_main_window_set_roi (EfMainWindow *self, const double roi[4])
{
  g_return_if_fail (EF_IS_MAIN_WINDOW (self));

  if (roi == NULL)
    {
      if (self->has_roi)
        ef_main_window_remember_roi (self);
      self->has_roi = FALSE;
      if (self->roi_runner != NULL)
        {
          ef_image_view_set_layer (self->image_view, EF_LAYER_ROI, NULL, NULL, NULL, NULL);
          g_clear_object (&self->roi_runner);
        }
      self->roi_pending = FALSE;
      ef_image_view_set_roi (self->image_view, NULL);
      ef_geometry_plot_set_roi (self->geometry_plot, NULL);
      ef_geometry_plot_set_done (self->geometry_plot, NULL, 0);
      ef_processing_panel_set_roi_info (self->processing_panel, NULL);
      ef_processing_panel_set_roi (self->processing_panel, NULL);
      ef_main_window_jobs_update_status (self);
      ef_main_window_actions_sync (self);
      ef_main_window_queue_session_save (self);
      return;
    }
  if (!isfinite (roi[0]) || !isfinite (roi[1]) || !isfinite (roi[2]) || !isfinite (roi[3]) || roi[0] == roi[2]
      || roi[1] == roi[3])
    {
      ef_main_window_toast (self, _("That region is empty"));
      return;
    }
  if (!self->has_roi || MIN (roi[0], roi[2]) != self->roi[0] || MIN (roi[1], roi[3]) != self->roi[1]
      || MAX (roi[0], roi[2]) != self->roi[2] || MAX (roi[1], roi[3]) != self->roi[3])
    ef_main_window_remember_roi (self);
  self->has_roi = TRUE;
  self->roi[0] = MIN (roi[0], roi[2]);
  self->roi[1] = MIN (roi[1], roi[3]);
  self->roi[2] = MAX (roi[0], roi[2]);
  self->roi[3] = MAX (roi[1], roi[3]);
  ef_image_view_set_roi (self->image_view, self->roi);
  ef_geometry_plot_set_roi (self->geometry_plot, self->roi);
  ef_processing_panel_set_roi (self->processing_panel, self->roi);
  if (self->dataset != NULL)
    ef_main_window_jobs_start_roi (self);
  ef_main_window_actions_sync (self);
  ef_main_window_queue_session_save (self);
}

gboolean
ef_main_window_get_roi (EfMainWindow *self, double roi[4])
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), FALSE);
  if (self->has_roi && roi != NULL)
    memcpy (roi, self->roi, sizeof self->roi);
  return self->has_roi;
}

double
ef_main_window_get_roi_spacing (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), 0);
  if (!self->proc.spacing_auto)
    return self->proc.spacing;
  return ef_main_window_jobs_auto_spacing (self);
}

EfImageView *
ef_main_window_get_image_view (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), NULL);
  return self->image_view;
}

/* ---- batch ------------------------------------------------------------------------------------ */

void
ef_main_window_set_batch (EfMainWindow *self, const EfBatch *batch)
{
  g_return_if_fail (EF_IS_MAIN_WINDOW (self) && batch != NULL);

  ef_batch_clear (&self->batch);
  self->batch = *batch;
  self->batch.screenshot = g_strdup (batch->screenshot);
  self->batch.panel = g_strdup (batch->panel);
  self->batch.view = g_strdup (batch->view);
  self->batch.colormap = g_strdup (batch->colormap);
  self->batch_pending = TRUE;
}

static void
batch_finish (EfMainWindow *self, gboolean ok, const char *message)
{
  self->batch_running = FALSE;
  g_signal_emit (self, signals[SIGNAL_BATCH_DONE], 0, ok, message);
}

/* The window as GTK last drew it, or NULL while it has no picture: before its first frame, or while it
 * is laid out again. */
static GskRenderNode *
window_picture (EfMainWindow *self)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (self));
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (GTK_WIDGET (self)),
                          gtk_widget_get_height (GTK_WIDGET (self)));
  return gtk_snapshot_free_to_node (snapshot);
}

static gboolean
batch_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (widget);
  g_autoptr (GError) error = NULL;

  /* Wait until every damaged cell is on screen, then a few frames for the panels to lay out. */
  if (!ef_image_view_is_settled (self->image_view))
    {
      self->batch_frames = 0;
      return G_SOURCE_CONTINUE;
    }
  if (++self->batch_frames < 4)
    {
      gtk_widget_queue_draw (widget);
      return G_SOURCE_CONTINUE;
    }
  /* A batch that ends within the window's first frames can find it without a picture yet (a demo region
   * forms in half a second): the screenshot waits for one, a few seconds at most. */
  if (self->batch.screenshot != NULL && self->batch_frames < BATCH_PICTURE_FRAMES)
    {
      g_autoptr (GskRenderNode) picture = window_picture (self);

      if (picture == NULL)
        {
          gtk_widget_queue_draw (widget);
          return G_SOURCE_CONTINUE;
        }
    }
  self->batch_tick_id = 0;
  /* What the picture shows, from the widgets themselves. */
  report ("sidebar %s, page %s%s", adw_flap_get_reveal_flap (self->flap) ? "shown" : "hidden",
          adw_view_stack_get_visible_child_name (self->panel_stack),
          ef_measure_panel_shows_result (self->measure_panel) ? ", a measurement with both cuts" : "");
  if (self->batch.screenshot != NULL)
    report ("screenshot %s", self->batch.screenshot);
  if (self->batch.screenshot != NULL && !ef_main_window_save_screenshot (self, self->batch.screenshot, &error))
    {
      batch_finish (self, FALSE, error->message);
      return G_SOURCE_REMOVE;
    }
  batch_finish (self, TRUE, NULL);
  return G_SOURCE_REMOVE;
}

void
ef_main_window_batch_roi_finished (EfMainWindow *self, EfJobState state, const GError *error)
{
  if (!self->batch_running)
    return;
  if (state == EF_JOB_CANCELLED)
    return;  /* a newer region replaced it */
  if (state == EF_JOB_FAILED)
    {
      batch_finish (self, FALSE, error ? error->message : _("The region could not be formed"));
      return;
    }
  if (self->roi_runner != NULL && state == EF_JOB_DONE)
    {
      const EfGrid *g = ef_job_runner_get_grid (self->roi_runner);
      const EfRunnerProgress *p = ef_job_runner_get_progress (self->roi_runner);

      report ("region %.2f,%.2f,%.2f,%.2f formed: %u x %u px at %.3f m, %s on %s, %.2f s", self->roi[0],
              self->roi[1], self->roi[2], self->roi[3], g->width, g->height, g->spacing,
              ef_algo_to_string (ef_job_runner_get_params (self->roi_runner)->backend.algo),
              ef_job_runner_get_backend_name (self->roi_runner), p->elapsed_s);
    }
  if (self->batch.has_measure)
    {
      g_autoptr (GError) merror = NULL;

      if (!ef_main_window_measure_at (self, self->batch.measure[0], self->batch.measure[1], &merror))
        g_printerr ("%s\n", merror->message);
      else
        {
          const EfMeasurement *m = &g_array_index (self->measurements, EfMeasurement,
                                                   self->measurements->len - 1);

          report ("point at x %.2f m, y %.2f m: range IRW %.3f m, PSLR %.2f dB, ISLR %.2f dB; "
                  "cross-range IRW %.3f m, PSLR %.2f dB, ISLR %.2f dB", m->x, m->y, m->range_irw, m->range_pslr,
                  m->range_islr, m->cross_irw, m->cross_pslr, m->cross_islr);
        }
      if (self->batch.panel == NULL)
        {
          adw_flap_set_reveal_flap (self->flap, TRUE);
          adw_view_stack_set_visible_child_name (self->panel_stack, "measurements");
        }
    }
  self->batch_frames = 0;
  if (self->batch_tick_id == 0)
    self->batch_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), batch_tick, NULL, NULL);
}

gboolean
ef_main_window_save_screenshot (EfMainWindow *self, const char *path, GError **error)
{
  g_autoptr (GdkTexture) texture = NULL;
  g_autoptr (GBytes) png = NULL;
  GskRenderNode *node;
  GskRenderer *renderer;
  int w, h;

  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  w = gtk_widget_get_width (GTK_WIDGET (self));
  h = gtk_widget_get_height (GTK_WIDGET (self));
  renderer = gtk_native_get_renderer (GTK_NATIVE (self));
  if (w <= 0 || h <= 0 || renderer == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("The window is not on screen yet"));
      return FALSE;
    }
  node = window_picture (self);
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("The window drew nothing"));
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  png = gdk_texture_save_to_png_bytes (texture);
  /* g_file_set_contents writes a temporary file and renames it over the target. */
  return g_file_set_contents (path, g_bytes_get_data (png, NULL), (gssize) g_bytes_get_size (png), error);
}

/* ---- view signals ----------------------------------------------------------------------------- */

static void
roi_edited (EfImageView *view, double x0, double y0, double x1, double y1, EfMainWindow *self)
{
  const double roi[4] = { x0, y0, x1, y1 };

  ef_main_window_set_roi (self, roi);
}

static void
point_picked (EfImageView *view, double x, double y, EfMainWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (!ef_main_window_measure_at (self, x, y, &error))
    ef_main_window_toast (self, error->message);
}

static void
cursor_moved (EfImageView *view, gboolean inside, double x, double y, EfMainWindow *self)
{
  g_autofree char *text = NULL;
  EfCf32 z;
  double gain;
  EfLayerId layer;

  if (!inside)
    {
      gtk_label_set_text (self->readout_label, "");
      return;
    }
  if (ef_image_view_probe (self->image_view, x, y, &layer, &z, &gain))
    {
      double mag = cabsf (z);
      double db = mag > 0 ? 20 * log10 (mag) + gain : -INFINITY;

      text = g_strdup_printf (_("x %.2f m  y %.2f m  ·  %.1f dB  %.0f°"), x, y, db,
                              atan2 (cimagf (z), crealf (z)) * 180 / G_PI);
    }
  else
    text = g_strdup_printf (_("x %.2f m  y %.2f m"), x, y);
  gtk_label_set_text (self->readout_label, text);
}

static void
settings_changed (GSettings *settings, const char *key, EfMainWindow *self)
{
  if (g_str_equal (key, "backend"))
    {
      g_autofree char *s = g_settings_get_string (settings, key);
      EfBackendKind kind;

      if (ef_backend_kind_from_string (s, &kind) && kind != self->proc.backend)
        {
          self->proc.backend = kind;
          ef_processing_panel_set (self->processing_panel, &self->proc, ef_main_window_jobs_auto_spacing (self));
          if (self->dataset != NULL)
            {
              ef_main_window_jobs_start_overview (self);
              if (self->has_roi)
                ef_main_window_jobs_start_roi (self);
            }
          ef_main_window_actions_sync (self);
        }
    }
  else if (g_str_equal (key, "force-host-upload"))
    ef_image_view_set_force_host_upload (self->image_view, g_settings_get_boolean (settings, key));
  else if (g_str_equal (key, "colormap"))
    {
      g_autofree char *s = g_settings_get_string (settings, key);

      if (ef_colormap_from_string (s, &self->display.colormap))
        ef_main_window_apply_display (self);
    }
}

/* ---- focus after the main menu ---------------------------------------------------------------- */

static gboolean
restore_focus (gpointer data)
{
  EfMainWindow *self = data;
  GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (self));

  /* An item chosen in a submenu closes the menu with the focus left on the submenu's hidden page (GTK
   * 4.8), where key presses reach no shortcut until the user clicks: give it to the image. */
  if (focus == NULL || !gtk_widget_get_mapped (focus))
    {
      if (!gtk_widget_grab_focus (GTK_WIDGET (self->image_view)))
        gtk_window_set_focus (GTK_WINDOW (self), NULL);
    }
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* A window too narrow for the image and the sidebar side by side folds the sidebar over the image and
 * hides it until asked for (F9, the sidebar button), as GNOME's apps do; widening shows it again as the
 * user last left it. */
static void
flap_folded (EfMainWindow *self)
{
  if (adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, FALSE);
  else
    adw_flap_set_reveal_flap (self->flap, g_settings_get_boolean (self->settings, "show-sidebar"));
}

static void
main_menu_closed (EfMainWindow *self)
{
  /* After the popover has finished hiding and GTK has moved the focus, if it did. */
  g_idle_add (restore_focus, g_object_ref (self));
}

/* ---- object ----------------------------------------------------------------------------------- */

static gboolean
ef_main_window_close_request (GtkWindow *window)
{
  EfMainWindow *self = EF_MAIN_WINDOW (window);
  int w, h;

  if (self->session_save_id != 0)
    {
      g_clear_handle_id (&self->session_save_id, g_source_remove);
      session_save_now (self);
    }
  gtk_window_get_default_size (window, &w, &h);
  g_settings_set (self->settings, "window-size", "(ii)", w, h);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  /* Folded, the sidebar was hidden for the window's width, not by the user. */
  if (!adw_flap_get_folded (self->flap))
    g_settings_set_boolean (self->settings, "show-sidebar", adw_flap_get_reveal_flap (self->flap));
  /* Stop the workers now; their jobs are freed on helper threads. */
  ef_main_window_jobs_stop (self);
  return GTK_WINDOW_CLASS (ef_main_window_parent_class)->close_request (window);
}

static void
ef_main_window_dispose (GObject *object)
{
  EfMainWindow *self = EF_MAIN_WINDOW (object);

  g_clear_handle_id (&self->session_save_id, g_source_remove);
  ef_main_window_verify_reset (self);
  if (self->batch_tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->batch_tick_id);
      self->batch_tick_id = 0;
    }
  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  if (self->image_view != NULL)
    ef_main_window_jobs_stop (self);
  g_clear_object (&self->overview);
  g_clear_object (&self->roi_runner);
  if (self->compare_window != NULL)
    gtk_window_destroy (self->compare_window);
  g_clear_object (&self->compare_window);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->dataset, ef_dataset_unref);

  gtk_widget_dispose_template (GTK_WIDGET (self), EF_TYPE_MAIN_WINDOW);
  G_OBJECT_CLASS (ef_main_window_parent_class)->dispose (object);
}

static void
ef_main_window_finalize (GObject *object)
{
  EfMainWindow *self = EF_MAIN_WINDOW (object);

  g_free (self->session_key);
  g_free (self->run_told);
#if EF_TEST_HOOKS
  g_free (self->last_toast);
  g_clear_object (&self->last_toast_object);
#endif
  g_array_unref (self->measurements);
  g_array_unref (self->roi_undo);
  g_array_unref (self->roi_redo);
  ef_main_window_regions_clear (self);
  ef_batch_clear (&self->batch);
  G_OBJECT_CLASS (ef_main_window_parent_class)->finalize (object);
}

static void
ef_main_window_class_init (EfMainWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = ef_main_window_dispose;
  object_class->finalize = ef_main_window_finalize;
  window_class->close_request = ef_main_window_close_request;

  /**
   * EfMainWindow::dataset-loaded:
   * A collection is in view and its overview has started.
   */
  signals[SIGNAL_DATASET_LOADED] = g_signal_new ("dataset-loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * EfMainWindow::roi-finished:
   * @state: the EfJobState the region's job ended in
   */
  signals[SIGNAL_ROI_FINISHED] = g_signal_new ("roi-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  /**
   * EfMainWindow::batch-done:
   * @ok: whether the batch run succeeded
   * @message: (nullable): what went wrong
   */
  signals[SIGNAL_BATCH_DONE] = g_signal_new ("batch-done", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                             NULL, NULL, G_TYPE_NONE, 2, G_TYPE_BOOLEAN, G_TYPE_STRING);

  /**
   * EfMainWindow::export-finished:
   * @path: the file written
   * @ok: whether it was written
   *
   * An image export that ran on a worker thread ended.
   */
  signals[SIGNAL_EXPORT_FINISHED] = g_signal_new ("export-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING,
                                                  G_TYPE_BOOLEAN);

  /**
   * EfMainWindow::verify-finished:
   * @ok: whether the check ran to its end
   * @ser_db: the region's signal-to-error ratio against exact float64 backprojection, dB
   * @n_pixels: how many pixels were checked
   *
   * A check of the region (the "verify-region" action) ended; one that was stopped says nothing.
   */
  /**
   * EfMainWindow::histogram-ready:
   * The Display page's histogram shows the image in view, now finished.
   */
  g_signal_new ("histogram-ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                G_TYPE_NONE, 0);

  signals[SIGNAL_VERIFY_FINISHED] = g_signal_new ("verify-finished", G_TYPE_FROM_CLASS (klass),
                                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                                  G_TYPE_BOOLEAN, G_TYPE_DOUBLE, G_TYPE_UINT);

  g_type_ensure (EF_TYPE_IMAGE_VIEW);
  g_type_ensure (EF_TYPE_DATASET_PANEL);
  g_type_ensure (EF_TYPE_GEOMETRY_PLOT);
  g_type_ensure (EF_TYPE_PROCESSING_PANEL);
  g_type_ensure (EF_TYPE_DISPLAY_PANEL);
  g_type_ensure (EF_TYPE_MEASURE_PANEL);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/echoform/Echoform/ui/ef-main-window.ui");
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, flap);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, panel_stack);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, image_view);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, loading_box);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, loading_label);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, readout_label);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, dataset_panel);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, geometry_plot);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, processing_panel);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, display_panel);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, measure_panel);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, main_menu_button);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, empty_page);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, drop_highlight);
  gtk_widget_class_bind_template_child (widget_class, EfMainWindow, zoom_box);
}

static void
ef_main_window_init (EfMainWindow *self)
{
  int w = 0, h = 0;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = ef_settings_new ();
  self->measurements = g_array_new (FALSE, TRUE, sizeof (EfMeasurement));
  g_array_set_clear_func (self->measurements, ef_measurement_clear);
  self->roi_undo = g_array_new (FALSE, TRUE, sizeof (EfRoiState));
  self->roi_redo = g_array_new (FALSE, TRUE, sizeof (EfRoiState));
  self->verify_ser_db = NAN;
  ef_processing_init (&self->proc);
  ef_processing_load_settings (&self->proc, self->settings);
  ef_display_params_init (&self->display);

  g_settings_get (self->settings, "window-size", "(ii)", &w, &h);
  if (w > 0 && h > 0)
    gtk_window_set_default_size (GTK_WINDOW (self), w, h);
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  adw_flap_set_reveal_flap (self->flap, g_settings_get_boolean (self->settings, "show-sidebar"));
  ef_image_view_set_force_host_upload (self->image_view,
                                       g_settings_get_boolean (self->settings, "force-host-upload"));

  g_signal_connect (self->image_view, "roi-edited", G_CALLBACK (roi_edited), self);
  g_signal_connect (self->image_view, "point-picked", G_CALLBACK (point_picked), self);
  g_signal_connect (self->image_view, "cursor-moved", G_CALLBACK (cursor_moved), self);
  g_signal_connect_swapped (self->processing_panel, "changed", G_CALLBACK (processing_panel_changed), self);
  g_signal_connect (self->processing_panel, "region-typed", G_CALLBACK (region_typed), self);
  g_signal_connect_swapped (self->display_panel, "changed", G_CALLBACK (display_panel_changed), self);
  g_signal_connect_object (self->settings, "changed", G_CALLBACK (settings_changed), self, 0);

  ef_processing_panel_set (self->processing_panel, &self->proc, 0);
  ef_display_panel_set (self->display_panel, &self->display);
  ef_main_window_actions_init (self);
  ef_main_window_classroom_add_actions (self);
  ef_main_window_regions_add_actions (self);
  ef_main_window_focus_init (self);
  ef_main_window_files_init (self);
  g_signal_connect_object (self->flap, "notify::folded", G_CALLBACK (flap_folded), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_menu_button_get_popover (self->main_menu_button), "closed",
                           G_CALLBACK (main_menu_closed), self, G_CONNECT_SWAPPED);
  ef_main_window_jobs_update_status (self);
}

EfMainWindow *
ef_main_window_new (GtkApplication *app)
{
  return g_object_new (EF_TYPE_MAIN_WINDOW, "application", app, NULL);
}
