/* ef-main-window-actions.c: the window's actions, used by its buttons, menus, shortcuts and D-Bus. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>

#include "ef-demo.h"
#include "ef-main-window-private.h"

static GSimpleAction *
lookup (EfMainWindow *self, const char *name)
{
  return G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), name));
}

static void
set_enabled (EfMainWindow *self, const char *name, gboolean enabled)
{
  g_simple_action_set_enabled (lookup (self, name), enabled);
}

static void
set_string_state (EfMainWindow *self, const char *name, const char *value)
{
  g_simple_action_set_state (lookup (self, name), g_variant_new_string (value));
}

void
ef_main_window_actions_sync (EfMainWindow *self)
{
  gboolean has_data = self->dataset != NULL;
  gboolean running = (self->roi_runner && ef_job_runner_is_running (self->roi_runner))
                     || (self->overview && ef_job_runner_is_running (self->overview)) || self->roi_pending;
  gboolean paused = self->roi_runner ? ef_job_runner_is_paused (self->roi_runner)
                                     : (self->overview && ef_job_runner_is_paused (self->overview));

  set_enabled (self, "export-image", has_data && (self->roi_runner != NULL || self->overview != NULL));
  set_enabled (self, "export-png", has_data);
  set_enabled (self, "export-region-png", has_data && (self->roi_runner != NULL || self->overview != NULL));
  set_enabled (self, "export-measurements", self->measurements->len > 0);
  set_enabled (self, "clear-measurements", self->measurements->len > 0 || self->has_marker);
  /* Forming again is for the region; the overview follows the collection by itself. */
  set_enabled (self, "start", has_data && self->has_roi);
  set_enabled (self, "pause", running);
  set_enabled (self, "cancel", running);
  set_enabled (self, "zoom-roi", self->has_roi);
  set_enabled (self, "clear-roi", self->has_roi);
  set_enabled (self, "undo-region", self->roi_undo->len > 0);
  set_enabled (self, "redo-region", self->roi_redo->len > 0);
  set_enabled (self, "auto-range", has_data);
  set_enabled (self, "verify-region",
               ef_main_window_verify_running (self) || ef_main_window_verify_available (self));
  g_simple_action_set_state (lookup (self, "pause"), g_variant_new_boolean (paused && running));

  set_string_state (self, "view-mode", ef_view_mode_to_string (self->display.mode));
  set_string_state (self, "colormap", ef_colormap_to_string (self->display.colormap));
  set_string_state (self, "algorithm", ef_algo_to_string (self->proc.algo));
  set_string_state (self, "precision", ef_precision_to_string (self->proc.precision));
  set_string_state (self, "backend", ef_backend_kind_to_string (self->proc.backend));
  set_string_state (self, "order", ef_order_to_string (self->proc.order));
}

/* ---- files ------------------------------------------------------------------------------------ */

static void
open_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_show_open_dialog (EF_MAIN_WINDOW (user_data), FALSE);
}

static void
open_folder_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_show_open_dialog (EF_MAIN_WINDOW (user_data), TRUE);
}

static void
open_recent_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    ef_main_window_open_path (EF_MAIN_WINDOW (user_data), path);
}

static void
open_path_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_open_path (EF_MAIN_WINDOW (user_data), g_variant_get_string (param, NULL));
}

static void
show_message_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_show_message (EF_MAIN_WINDOW (user_data), g_variant_get_string (param, NULL));
}

static void
open_demo_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_open_demo (EF_MAIN_WINDOW (user_data), FALSE);
}

static void
export_image_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_image (EF_MAIN_WINDOW (user_data));
}

static void
export_png_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_png (EF_MAIN_WINDOW (user_data));
}

static void
export_region_png_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_region_png (EF_MAIN_WINDOW (user_data));
}

static void
export_region_png_to_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_region_png_to (EF_MAIN_WINDOW (user_data), g_variant_get_string (param, NULL));
}

static void
export_measurements_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_measurements (EF_MAIN_WINDOW (user_data));
}

static void
export_image_to_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_image_to (EF_MAIN_WINDOW (user_data), g_variant_get_string (param, NULL));
}

static void
export_png_to_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_png_to (EF_MAIN_WINDOW (user_data), g_variant_get_string (param, NULL));
}

static void
export_measurements_to_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_export_measurements_to (EF_MAIN_WINDOW (user_data), g_variant_get_string (param, NULL));
}

static void
clear_measurements_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  g_array_set_size (self->measurements, 0);
  self->has_marker = FALSE;
  self->remeasure = FALSE;
  ef_image_view_set_marker (self->image_view, NULL);
  ef_measure_panel_set_result (self->measure_panel, NULL, 0, NULL);
  ef_main_window_actions_sync (self);
}

static void
screenshot_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  g_autoptr (GError) error = NULL;

  if (!ef_main_window_save_screenshot (self, g_variant_get_string (param, NULL), &error))
    ef_main_window_toast (self, error->message);
}

/* ---- jobs ------------------------------------------------------------------------------------- */

static void
start_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (self->has_roi)
    ef_main_window_jobs_start_roi (self);
  ef_main_window_actions_sync (self);
}

static void
pause_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  EfJobRunner *runner = self->roi_runner ? self->roi_runner : self->overview;

  if (runner == NULL)
    return;
  if (g_variant_get_boolean (state))
    ef_job_runner_pause (runner);
  else
    ef_job_runner_resume (runner);
  g_simple_action_set_state (action, state);
  ef_main_window_jobs_update_status (self);
}

static void
cancel_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (self->roi_runner != NULL)
    ef_job_runner_cancel (self->roi_runner);
  if (self->overview != NULL)
    ef_job_runner_cancel (self->overview);
  self->roi_pending = FALSE;
  ef_main_window_actions_sync (self);
}

/* ---- view ------------------------------------------------------------------------------------- */

static void
tool_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  const char *s = g_variant_get_string (state, NULL);
  EfTool tool = g_str_equal (s, "region") ? EF_TOOL_REGION : g_str_equal (s, "measure") ? EF_TOOL_MEASURE
                                                                                         : EF_TOOL_PAN;

  ef_image_view_set_tool (self->image_view, tool);
  g_simple_action_set_state (action, state);
}

static void
zoom_in_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_image_view_zoom_by (EF_MAIN_WINDOW (user_data)->image_view, 1.25, -1, -1);
}

static void
zoom_out_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_image_view_zoom_by (EF_MAIN_WINDOW (user_data)->image_view, 0.8, -1, -1);
}

static void
zoom_fit_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_image_view_zoom_fit (EF_MAIN_WINDOW (user_data)->image_view);
}

static void
zoom_1_1_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_image_view_zoom_one_to_one (EF_MAIN_WINDOW (user_data)->image_view);
}

static void
zoom_roi_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (self->has_roi)
    ef_image_view_zoom_to_box (self->image_view, self->roi);
}

static void
set_roi_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  double roi[4];

  g_variant_get (param, "(dddd)", &roi[0], &roi[1], &roi[2], &roi[3]);
  ef_main_window_set_roi (EF_MAIN_WINDOW (user_data), roi);
}

static void
clear_roi_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_set_roi (EF_MAIN_WINDOW (user_data), NULL);
}

static void
undo_region_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_undo_region (EF_MAIN_WINDOW (user_data));
}

static void
redo_region_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_redo_region (EF_MAIN_WINDOW (user_data));
}

static void
set_spacing_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  double spacing = g_variant_get_double (param);

  if (spacing > 0)
    {
      self->proc.spacing_auto = FALSE;
      self->proc.spacing = spacing;
    }
  else
    self->proc.spacing_auto = TRUE;
  ef_processing_panel_set (self->processing_panel, &self->proc, ef_main_window_jobs_auto_spacing (self));
  if (self->has_roi)
    ef_main_window_jobs_start_roi (self);
  ef_main_window_queue_session_save (self);
}

static void
measure_at_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  g_autoptr (GError) error = NULL;
  double x, y;

  g_variant_get (param, "(dd)", &x, &y);
  if (!ef_main_window_measure_at (self, x, y, &error))
    ef_main_window_toast (self, error->message);
}

static void
auto_range_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  ef_main_window_jobs_auto_range (self);
  self->display_known = TRUE;
  ef_main_window_queue_session_save (self);
}

static void
view_mode_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (!ef_view_mode_from_string (g_variant_get_string (state, NULL), &self->display.mode))
    return;
  /* Phase reads best on the cyclic map; switching back restores the map chosen in the settings. */
  if (self->display.mode == EF_VIEW_PHASE)
    self->display.colormap = EF_COLORMAP_CYCLIC;
  else if (self->display.colormap == EF_COLORMAP_CYCLIC)
    {
      g_autofree char *map = g_settings_get_string (self->settings, "colormap");
      if (!ef_colormap_from_string (map, &self->display.colormap) || self->display.colormap == EF_COLORMAP_CYCLIC)
        self->display.colormap = EF_COLORMAP_GREY;
    }
  self->display_known = TRUE;
  ef_main_window_apply_display (self);
  ef_main_window_queue_session_save (self);
}

static void
colormap_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (!ef_colormap_from_string (g_variant_get_string (state, NULL), &self->display.colormap))
    return;
  ef_main_window_apply_display (self);
  ef_main_window_queue_session_save (self);
}

static void
show_sidebar_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  adw_flap_set_reveal_flap (self->flap, g_variant_get_boolean (state));
  g_simple_action_set_state (action, state);
}

static void
show_panel_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  const char *panel = ef_main_window_panel_name (g_variant_get_string (param, NULL));

  if (panel == NULL)
    return;
  adw_flap_set_reveal_flap (self->flap, TRUE);
  adw_view_stack_set_visible_child_name (self->panel_stack, panel);
}

/* ---- processing ------------------------------------------------------------------------------- */

static void
verify_region_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  ef_main_window_verify_region (EF_MAIN_WINDOW (user_data));
}

static void
processing_changed (EfMainWindow *self, gboolean overview_too)
{
  ef_processing_panel_set (self->processing_panel, &self->proc, ef_main_window_jobs_auto_spacing (self));
  ef_main_window_actions_sync (self);
  if (overview_too)
    ef_main_window_jobs_start_overview (self);
  if (self->has_roi)
    ef_main_window_jobs_start_roi (self);
  ef_main_window_queue_session_save (self);
}

static void
algorithm_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (ef_algo_from_string (g_variant_get_string (state, NULL), &self->proc.algo))
    processing_changed (self, FALSE);
}

static void
precision_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (ef_precision_from_string (g_variant_get_string (state, NULL), &self->proc.precision))
    processing_changed (self, FALSE);
}

static void
backend_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (ef_backend_kind_from_string (g_variant_get_string (state, NULL), &self->proc.backend))
    processing_changed (self, TRUE);
}

static void
order_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);

  if (ef_order_from_string (g_variant_get_string (state, NULL), &self->proc.order))
    processing_changed (self, FALSE);
}

static const GActionEntry win_entries[] = {
  { "open", open_activated },
  { "open-folder", open_folder_activated },
  { "open-recent", open_recent_activated, "s" },
  { "open-demo", open_demo_activated },
  { "open-path", open_path_activated, "s" },
  { "show-message", show_message_activated, "s" },
  { "export-image", export_image_activated },
  { "export-png", export_png_activated },
  { "export-measurements", export_measurements_activated },
  { "export-region-png", export_region_png_activated },
  { "clear-measurements", clear_measurements_activated },
  /* The same without a dialog, for scripts (over D-Bus) and tests. */
  { "export-image-to", export_image_to_activated, "s" },
  { "export-png-to", export_png_to_activated, "s" },
  { "export-region-png-to", export_region_png_to_activated, "s" },
  { "export-measurements-to", export_measurements_to_activated, "s" },
  { "screenshot", screenshot_activated, "s" },
  { "start", start_activated },
  { "pause", NULL, NULL, "false", pause_change_state },
  { "cancel", cancel_activated },
  { "tool", NULL, "s", "'pan'", tool_change_state },
  { "zoom-in", zoom_in_activated },
  { "zoom-out", zoom_out_activated },
  { "zoom-fit", zoom_fit_activated },
  { "zoom-1-1", zoom_1_1_activated },
  { "zoom-roi", zoom_roi_activated },
  { "set-roi", set_roi_activated, "(dddd)" },
  { "clear-roi", clear_roi_activated },
  { "undo-region", undo_region_activated },
  { "redo-region", redo_region_activated },
  { "set-spacing", set_spacing_activated, "d" },
  { "measure-at", measure_at_activated, "(dd)" },
  { "auto-range", auto_range_activated },
  { "view-mode", NULL, "s", "'magnitude'", view_mode_change_state },
  { "colormap", NULL, "s", "'grey'", colormap_change_state },
  { "show-sidebar", NULL, NULL, "true", show_sidebar_change_state },
  { "show-panel", show_panel_activated, "s" },
  { "algorithm", NULL, "s", "'bp'", algorithm_change_state },
  { "precision", NULL, "s", "'fp32'", precision_change_state },
  { "backend", NULL, "s", "'auto'", backend_change_state },
  { "order", NULL, "s", "'interleaved'", order_change_state },
  { "verify-region", verify_region_activated },
};

static void
flap_revealed (AdwFlap *flap, GParamSpec *pspec, EfMainWindow *self)
{
  g_simple_action_set_state (lookup (self, "show-sidebar"), g_variant_new_boolean (adw_flap_get_reveal_flap (flap)));
}

void
ef_main_window_actions_init (EfMainWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries), self);
  g_signal_connect_object (self->flap, "notify::reveal-flap", G_CALLBACK (flap_revealed), self, 0);
  flap_revealed (self->flap, NULL, self);
  ef_main_window_actions_sync (self);
}
