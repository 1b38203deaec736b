/* test-gui-firstday.c: what got in a new user's way, each reproduced through the handlers' own entry points. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-firstday"
#include "config.h"

#include <adwaita.h>
#include <gdk/x11/gdkx.h>
#include <math.h>
#include <string.h>

#include "ef-application.h"
#include "ef-gui-window-test.h"
#include "ef-demo-test.h"
#include "ef-dataset-panel-test.h"
#include "ef-display-panel-test.h"
#include "ef-geometry-plot-test.h"
#include "ef-image-view-test.h"
#include "ef-main-window-test.h"
#include "ef-measure-panel-test.h"
#include "ef-panel-util.h"
#include "ef-processing-panel-test.h"
#if HAVE_MATIO
#include <matio.h>
#endif


/* The first widget of type under root (depth first) for which match says yes, or NULL. */
static GtkWidget *
find_widget (GtkWidget *root, GType type, gboolean (*match) (GtkWidget *, gconstpointer), gconstpointer data)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && (match == NULL || match (root, data)))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_primary_menu_button (GtkWidget *w, gconstpointer data)
{
  return gtk_menu_button_get_primary (GTK_MENU_BUTTON (w));
}

static gboolean
has_text_property (GtkWidget *w, gconstpointer data)
{
  g_autofree char *text = NULL;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (w), "text") == NULL)
    return FALSE;
  g_object_get (w, "text", &text, NULL);
  return g_strcmp0 (text, data) == 0;
}

/* Sends a key to the window through the X server, as a keyboard does. */
static void
x_key (EfMainWindow *window, const char *key)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  g_autofree char *xid = g_strdup_printf ("%lu", (unsigned long) gdk_x11_surface_get_xid (surface));
  g_autofree char *out = NULL, *err = NULL;
  const char *argv[] = { "xdotool", "windowfocus", "--sync", xid, "key", "--clearmodifiers", key, NULL };
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status,
                               NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static gboolean
sidebar_is (EfMainWindow *window, gboolean want)
{
  g_autoptr (GVariant) s = g_action_group_get_action_state (G_ACTION_GROUP (window), "show-sidebar");
  return g_variant_get_boolean (s) == want;
}

typedef struct {
  EfMainWindow *window;
  gboolean      want;
} SidebarWait;

static gboolean
sidebar_became (gpointer data)
{
  SidebarWait *w = data;
  return sidebar_is (w->window, w->want);
}

/* 1: an item chosen in a submenu of the main menu leaves the keyboard shortcuts working. */
static void
test_shortcuts_after_submenu (void)
{
  EfMainWindow *window;
  GtkWidget *menu_button, *popover, *sub, *item;
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  SidebarWait wait;
  gint64 end;

  if (xdotool == NULL || !GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("needs xdotool on an X display");
      return;
    }
  window = new_window ();
  ef_main_window_set_dataset (window, demo);
  spin_until (window_idle, window, 120);
  gtk_widget_grab_focus (GTK_WIDGET (ef_main_window_get_image_view (window)));
  spin (0.3);

  /* F9 works before. */
  g_assert_true (sidebar_is (window, TRUE));
  x_key (window, "F9");
  wait = (SidebarWait) { window, FALSE };
  spin_until (sidebar_became, &wait, 5);
  x_key (window, "F9");
  wait.want = TRUE;
  spin_until (sidebar_became, &wait, 5);

  /* Main menu → Precision → Double. */
  menu_button = find_widget (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, is_primary_menu_button, NULL);
  g_assert_nonnull (menu_button);
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  spin (0.3);
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button)));
  g_assert_true (gtk_widget_get_visible (popover));
  sub = find_widget (popover, GTK_TYPE_WIDGET, has_text_property, "Precision");
  g_assert_nonnull (sub);
  gtk_widget_activate (sub);
  spin (0.3);
  item = find_widget (popover, GTK_TYPE_WIDGET, has_text_property, "Double (fp64)");
  g_assert_nonnull (item);
  gtk_widget_activate (item);
  spin (0.5);
  g_assert_false (gtk_widget_get_visible (popover));
  {
    g_autoptr (GVariant) s = g_action_group_get_action_state (G_ACTION_GROUP (window), "precision");
    g_assert_cmpstr (g_variant_get_string (s, NULL), ==, "fp64");
  }

  /* F9 still works, with no click in between. */
  x_key (window, "F9");
  end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  while (!sidebar_is (window, FALSE) && g_get_monotonic_time () < end)
    spin (0.05);
  g_assert_true (sidebar_is (window, FALSE));
  spin_until (window_idle, window, 120);
  close_window (window);
}


static void
dataset_loaded (EfMainWindow *window, gboolean *loaded)
{
  *loaded = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static const char *
label_text (GtkWidget *w)
{
  return gtk_label_get_text (GTK_LABEL (w));
}

static gboolean
label_is (GtkWidget *w, gconstpointer data)
{
  return gtk_widget_get_mapped (w) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (w)), data) == 0;
}

static gboolean
action_is (GtkWidget *w, gconstpointer data)
{
  return GTK_IS_ACTIONABLE (w) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (w)), data) == 0;
}

static GtkWidget *
template_child (EfMainWindow *window, const char *name)
{
  GObject *o = gtk_widget_get_template_child (GTK_WIDGET (window), EF_TYPE_MAIN_WINDOW, name);
  return o != NULL && GTK_IS_WIDGET (o) ? GTK_WIDGET (o) : NULL;
}

static void
roi_around (const double c[2], double hw, double hh, double roi[4])
{
  roi[0] = c[0] - hw;
  roi[1] = c[1] - hh;
  roi[2] = c[0] + hw;
  roi[3] = c[1] + hh;
}

/* 2: a measurement follows its region: re-measured when the region forms again, gone with a region drawn
 * elsewhere. */
static void
test_measure_follows_region (void)
{
  EfMainWindow *window = new_window ();
  EfImageView *view = ef_main_window_get_image_view (window);
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  double target[3], roi[4], xy[2];
  GtkWidget *window_row;

  ef_demo_get_point_target (2, target);
  roi_around (target, 3, 3, roi);
  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_assert_true (ef_main_window_measure_at (window, target[0] + 0.1, target[1] - 0.1, &error));
  g_assert_no_error (error);
  before = g_strdup (ef_measure_panel_get_text (window->measure_panel, "range-pslr"));
  g_assert_true (ef_image_view_get_marker (view, xy));

  /* Taylor to rectangular in range: the region forms again, and so does the measurement. */
  window_row = ef_processing_panel_get_widget (window->processing_panel, "window");
  g_assert_cmpint (adw_combo_row_get_selected (ADW_COMBO_ROW (window_row)), ==, EF_WINDOW_TAYLOR);
  adw_combo_row_set_selected (ADW_COMBO_ROW (window_row), EF_WINDOW_RECT);
  g_assert_false (ef_main_window_is_idle (window));
  /* While it forms, the old figures are marked as the old region's. */
  g_assert_nonnull (ef_measure_panel_get_text (window->measure_panel, "note"));
  g_assert_cmpstr (ef_measure_panel_get_text (window->measure_panel, "note"), !=, "");
  spin_until (window_idle, window, 120);
  spin (0.2);
  after = g_strdup (ef_measure_panel_get_text (window->measure_panel, "range-pslr"));
  g_test_message ("range PSLR %s with Taylor, %s after rectangular", before, after);
  g_assert_cmpstr (before, !=, after);
  g_assert_cmpstr (ef_measure_panel_get_text (window->measure_panel, "note"), ==, "");
  /* What a fresh click there gives. */
  g_assert_true (ef_main_window_measure_at (window, target[0] + 0.1, target[1] - 0.1, &error));
  g_assert_cmpstr (ef_measure_panel_get_text (window->measure_panel, "range-pslr"), ==, after);

  /* A region drawn elsewhere: no marker, no figures. */
  roi[0] += 20;
  roi[2] += 20;
  ef_main_window_set_roi (window, roi);
  g_assert_false (ef_image_view_get_marker (view, xy));
  g_assert_false (ef_measure_panel_shows_result (window->measure_panel));
  spin_until (window_idle, window, 120);
  close_window (window);
}

static gboolean
recent_listed (gpointer data)
{
  return g_menu_model_get_n_items (G_MENU_MODEL (data)) > 0;
}

/* 3: a recent file's name keeps its underscores in the menu. */
static void
test_recent_underscores (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "data_3dsar_pass1_az001_HH.mat", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *uri = g_file_get_uri (file);
  const char *groups[] = { "echoform", NULL };
  GtkRecentData data = { .mime_type = (char *) "application/octet-stream", .app_name = (char *) "echoform",
                         .app_exec = (char *) "echoform %u", .groups = (char **) groups };
  EfMainWindow *window;
  GMenuModel *recent;
  GtkWidget *button, *popover, *label;

  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
  window = new_window ();
  recent = G_MENU_MODEL (gtk_widget_get_template_child (GTK_WIDGET (window), EF_TYPE_MAIN_WINDOW,
                                                        "recent_section"));
  spin_until (recent_listed, recent, 30);
  button = find_widget (GTK_WIDGET (window), ADW_TYPE_SPLIT_BUTTON, NULL, NULL);
  g_assert_nonnull (button);
  adw_split_button_popup (ADW_SPLIT_BUTTON (button));
  spin (0.3);
  popover = GTK_WIDGET (adw_split_button_get_popover (ADW_SPLIT_BUTTON (button)));
  label = find_widget (popover, GTK_TYPE_LABEL, label_is, "data_3dsar_pass1_az001_HH.mat");
  adw_split_button_popdown (ADW_SPLIT_BUTTON (button));
  g_assert_nonnull (label);
  spin (0.2);
  close_window (window);
  gtk_recent_manager_remove_item (gtk_recent_manager_get_default (), uri, NULL);
  g_unlink (path);
  g_rmdir (dir);
}

/* 4: another collection without a region shows no region size. */
static void
test_region_size_follows_collection (void)
{
  const char *path = g_getenv ("EF_DEMO_CPHD");
  g_autoptr (EfDataset) other = NULL;
  g_autoptr (GError) error = NULL;
  EfMainWindow *window;
  const double roi[4] = { -6, -4, 6, 4 };
  GtkWidget *info;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the build made no demo file");
      return;
    }
  other = ef_dataset_open (path, 0, &error);
  g_assert_no_error (error);
  window = new_window ();
  info = ef_processing_panel_get_widget (window->processing_panel, "roi-info");
  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_assert_nonnull (strstr (label_text (info), "px"));
  ef_main_window_set_dataset (window, other);
  g_assert_false (ef_main_window_get_roi (window, NULL));
  g_assert_cmpstr (label_text (info), ==, "–");
  spin_until (window_idle, window, 120);
  close_window (window);
}

/* 5: no tooltip opens over a drop-down's list. */
static void
test_no_tooltip_on_dropdowns (void)
{
  EfMainWindow *window = new_window ();
  const char *rows[] = { "algorithm", "precision", "backend", "window", "order" };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GtkWidget *row = ef_processing_panel_get_widget (window->processing_panel, rows[i]);
      g_assert_nonnull (row);
      g_assert_false (gtk_widget_get_has_tooltip (row));
    }
  /* What the tooltip said is still there, in the row's group. */
  g_assert_nonnull (strstr (adw_preferences_group_get_description (ADW_PREFERENCES_GROUP (gtk_widget_get_ancestor (
                      ef_processing_panel_get_widget (window->processing_panel, "order"), ADW_TYPE_PREFERENCES_GROUP))),
                            "interleaved"));
  close_window (window);
}

static gboolean
rects_meet (const graphene_rect_t *a, const graphene_rect_t *b)
{
  return graphene_rect_intersection (a, b, NULL);
}

/* 6: the region's size label keeps clear of the zoom buttons, for a full-scene region and after Ctrl+R. */
static void
test_region_label_clear_of_zoom (void)
{
  EfMainWindow *window = new_window ();
  EfImageView *view = ef_main_window_get_image_view (window);
  GtkWidget *zoom_out, *zoom_box;
  graphene_rect_t label, zoom;

  ef_main_window_set_dataset (window, demo);
  g_action_group_activate_action (G_ACTION_GROUP (window), "tool", g_variant_new_string ("region"));
  ef_main_window_set_roi (window, window->box);
  spin_until (window_idle, window, 120);
  zoom_out = find_widget (GTK_WIDGET (window), GTK_TYPE_BUTTON, action_is, "win.zoom-out");
  zoom_box = gtk_widget_get_parent (zoom_out);
  for (int pass = 0; pass < 2; pass++)
    {
      g_action_group_activate_action (G_ACTION_GROUP (window), pass == 0 ? "zoom-fit" : "zoom-roi", NULL);
      spin (0.3);
      g_assert_true (gtk_widget_compute_bounds (zoom_box, GTK_WIDGET (view), &zoom));
      g_assert_true (ef_image_view_get_roi_label_rect (view, &label));
      g_test_message ("label %.0f,%.0f %.0fx%.0f; zoom buttons %.0f,%.0f %.0fx%.0f", label.origin.x,
                      label.origin.y, label.size.width, label.size.height, zoom.origin.x, zoom.origin.y,
                      zoom.size.width, zoom.size.height);
      g_assert_false (rects_meet (&label, &zoom));
    }
  close_window (window);
}

static gboolean
label_ellipsized (GtkWidget *label)
{
  return pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label)));
}

static gboolean
is_message_dialog (gpointer data)
{
  GList *all = gtk_window_list_toplevels ();
  gboolean found = FALSE;

  for (GList *l = all; l != NULL; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      found = TRUE;
  g_list_free (all);
  return found;
}

/* 7: nothing that matters is cut: the region size, the algorithm, the black level, and an error, which
 * opens in full from its toast. */
static void
test_nothing_cut (void)
{
  EfMainWindow *window = new_window ();
  const double roi[4] = { -20, -17.4, 20, 17.4 };
  GtkWidget *info, *algo, *algo_label, *db_min, *text;
  g_autofree char *longest = g_strdup_printf ("%.1f", -131.0);
  g_autofree char *message = NULL;
  AdwToast *toast;
  GVariant *target;
  int text_w;

  ef_main_window_set_dataset (window, demo);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "algorithm", g_variant_new_string ("ffbp"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-panel", g_variant_new_string ("processing"));
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  spin (0.3);
  info = ef_processing_panel_get_widget (window->processing_panel, "roi-info");
  g_test_message ("region size: %s", label_text (info));
  g_assert_false (label_ellipsized (info));
  algo = ef_processing_panel_get_widget (window->processing_panel, "algorithm");
  algo_label = find_widget (algo, GTK_TYPE_LABEL, label_is, "Fast factorised backprojection");
  g_assert_nonnull (algo_label);
  g_assert_false (label_ellipsized (algo_label));
  {
    GtkWidget *order = ef_processing_panel_get_widget (window->processing_panel, "order");
    const char *choice = adw_combo_row_get_selected (ADW_COMBO_ROW (order)) == EF_ORDER_INTERLEAVED
                         ? "Interleaved" : "Sequential";
    GtkWidget *order_label = find_widget (order, GTK_TYPE_LABEL, label_is, choice);

    g_assert_nonnull (order_label);
    g_assert_false (label_ellipsized (order_label));
  }

  g_action_group_activate_action (G_ACTION_GROUP (window), "show-panel", g_variant_new_string ("display"));
  db_min = ef_display_panel_get_widget (window->display_panel, "db-min");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (db_min), -131);
  spin (0.3);
  text = find_widget (db_min, GTK_TYPE_TEXT, NULL, NULL);
  {
    g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (text, longest);
    pango_layout_get_pixel_size (layout, &text_w, NULL);
  }
  g_test_message ("\"%s\" is %d px; its entry %d px", longest, text_w, gtk_widget_get_width (text));
  g_assert_cmpint (text_w, <=, gtk_widget_get_width (text));

  /* A long error: its toast stays, and its button shows the whole message. */
  ef_main_window_open_path (window, "/nonexistent/a folder with a long name/data_3dsar_pass1_az001_HH.mat");
  spin (1.0);
  message = g_strdup (ef_main_window_get_last_toast (window));
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "data_3dsar_pass1_az001_HH.mat"));
  toast = ef_main_window_get_last_toast_object (window);
  g_assert_nonnull (toast);
  g_assert_nonnull (adw_toast_get_button_label (toast));
  g_assert_cmpuint (adw_toast_get_timeout (toast), ==, 0);
  g_assert_nonnull (adw_toast_get_action_name (toast));
  target = adw_toast_get_action_target_value (toast);
  g_assert_true (g_str_has_prefix (adw_toast_get_action_name (toast), "win."));
  g_action_group_activate_action (G_ACTION_GROUP (window), adw_toast_get_action_name (toast) + 4, target);
  spin_until (is_message_dialog, NULL, 5);
  {
    GList *all = gtk_window_list_toplevels ();
    gboolean shown = FALSE;

    for (GList *l = all; l != NULL; l = l->next)
      if (ADW_IS_MESSAGE_DIALOG (l->data))
        {
          shown |= g_strcmp0 (adw_message_dialog_get_body (l->data), message) == 0;
          gtk_window_close (l->data);
        }
    g_list_free (all);
    g_assert_true (shown);
  }
  spin (0.2);
  close_window (window);
}

/* 8: the cross-range resolution's subtitle says what is computed. */
static void
test_cross_range_formula (void)
{
  EfMainWindow *window = new_window ();
  GtkLabel *value;
  GtkWidget *row;
  double cr;
  g_autofree char *want = NULL;

  ef_main_window_set_dataset (window, demo);
  value = ef_dataset_panel_get_value (window->dataset_panel, "res-cross");
  row = gtk_widget_get_ancestor (GTK_WIDGET (value), ADW_TYPE_ACTION_ROW);
  cr = ef_dataset_crossrange_resolution (demo);
  want = ef_format_length (cr);
  g_test_message ("%s: %s", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), gtk_label_get_text (value));
  g_assert_cmpstr (gtk_label_get_text (value), ==, want);
  /* The value divides by cos(grazing); so does the formula shown. */
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "cos"));
  spin_until (window_idle, window, 120);
  close_window (window);
}

/* 9: "form the region again" needs a region. */
static void
test_start_needs_region (void)
{
  EfMainWindow *window = new_window ();
  const double roi[4] = { -6, -4, 6, 4 };

  ef_main_window_set_dataset (window, demo);
  /* Without the region the collection's session may bring back. */
  ef_main_window_set_roi (window, NULL);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "start"));
  ef_main_window_set_roi (window, roi);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "start"));
  ef_main_window_set_roi (window, NULL);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "start"));
  spin_until (window_idle, window, 120);
  close_window (window);
}

/* 10: "Spacing from resolution" off, at the same spacing, leaves the region as it is. */
static void
test_spacing_switch_keeps_region (void)
{
  EfMainWindow *window = new_window ();
  const double roi[4] = { -6, -4, 6, 4 };
  EfJobRunner *runner;
  GtkWidget *sw;
  double spacing;

  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  runner = ef_main_window_get_roi_runner (window);
  spacing = ef_main_window_get_roi_spacing (window);
  sw = ef_processing_panel_get_widget (window->processing_panel, "spacing-auto");
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (sw)));
  gtk_switch_set_active (GTK_SWITCH (sw), FALSE);
  /* Nothing started: a restart would have begun at once. */
  g_assert_true (ef_main_window_is_idle (window));
  spin (0.3);
  g_assert_true (ef_main_window_is_idle (window));
  g_assert_true (ef_main_window_get_roi_runner (window) == runner);
  g_assert_cmpfloat (fabs (ef_main_window_get_roi_spacing (window) - spacing), <, 5e-4);
  g_assert_false (window->proc.spacing_auto);
  close_window (window);
}

/* 11: the command line's help names the file once. */
static void
test_help_file_once (void)
{
  const char *gui = g_getenv ("EF_GUI");
  const char *argv[] = { gui, "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0, n = 0;

  if (gui == NULL)
    {
      g_test_skip ("EF_GUI is not set");
      return;
    }
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
  g_test_message ("%s", out);
  for (const char *p = out; (p = strstr (p, "FILE")) != NULL; p++)
    n++;
  g_assert_cmpint (n, ==, 2);  /* the usage line and --screenshot=FILE */
}

/* 12: the measure tool says when there is no point target to measure, and when the pixels are too
 * coarse for one. */
static void
test_measure_refuses (void)
{
  EfMainWindow *window = new_window ();
  g_autoptr (GError) error = NULL;
  double target[3], roi[4], rr, cr;
  const double clutter[2] = { 0.0, 0.0 };

  ef_demo_get_point_target (2, target);
  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, NULL);
  spin_until (window_idle, window, 120);
  ef_dataset_ground_resolution (demo, &rr, &cr);
  g_test_message ("overview at %.3f m pixels; resolution %.3f × %.3f m",
                  ef_job_runner_get_grid (ef_main_window_get_overview_runner (window))->spacing, rr, cr);
  /* On the overview, whose pixels are coarser than half the resolution. */
  g_assert_false (ef_main_window_measure_at (window, target[0], target[1], &error));
  g_assert_nonnull (error);
  g_test_message ("on the overview: %s", error->message);
  g_clear_error (&error);

  /* On the drawing, which is clutter: no clear main lobe. */
  roi_around (clutter, 6, 6, roi);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_assert_false (ef_main_window_measure_at (window, clutter[0], clutter[1], &error));
  g_assert_nonnull (error);
  g_test_message ("on clutter: %s", error->message);
  g_assert_false (ef_measure_panel_shows_result (window->measure_panel));
  g_clear_error (&error);

  /* A point target still measures. */
  roi_around (target, 3, 3, roi);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_assert_true (ef_main_window_measure_at (window, target[0], target[1], &error));
  g_assert_no_error (error);
  close_window (window);
}

/* 13: the geometry sketch's scene is turned as the image is: x to the right, y up, a landscape region
 * landscape. */
static void
test_geometry_orientation (void)
{
  EfMainWindow *window = new_window ();
  const double roi[4] = { -8, -2, 8, 2 };
  double ax, ay, bx, by;

  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-panel", g_variant_new_string ("geometry"));
  spin_until (window_idle, window, 120);
  spin (0.3);
  g_assert_true (ef_geometry_plot_scene_to_widget (window->geometry_plot, roi[0], roi[1], &ax, &ay));
  g_assert_true (ef_geometry_plot_scene_to_widget (window->geometry_plot, roi[2], roi[3], &bx, &by));
  g_test_message ("region drawn from %.1f,%.1f to %.1f,%.1f", ax, ay, bx, by);
  g_assert_cmpfloat (bx - ax, >, 0);        /* x to the right */
  g_assert_cmpfloat (by - ay, <, 0);        /* y up */
  g_assert_cmpfloat (fabs (bx - ax), >, 3 * fabs (by - ay));
  close_window (window);
}

typedef struct {
  EfMainWindow *window;
  double        first_db, last_db;
  guint64       first_n, total;
} Brightness;

/* The image's mean power as shown: dB of the mean |z|^2 plus the layer's gain. */
static double
shown_level (EfMainWindow *window, EfJobRunner *runner)
{
  const EfGrid *g = ef_job_runner_get_grid (runner);
  gsize n = ef_grid_n_pixels (g);
  g_autofree EfCf32 *px = g_new (EfCf32, n);
  EfRect all = { 0, 0, g->width, g->height };
  double sum = 0;

  g_assert_true (ef_job_runner_read (runner, &all, px, NULL));
  for (gsize i = 0; i < n; i++)
    sum += (double) crealf (px[i]) * crealf (px[i]) + (double) cimagf (px[i]) * cimagf (px[i]);
  return 10 * log10 (sum / n)
         + ef_image_view_get_layer_gain (ef_main_window_get_image_view (window), EF_LAYER_ROI);
}

static void
brightness_progress (EfJobRunner *runner, const EfRect *dirty, guint n_dirty, Brightness *b)
{
  const EfRunnerProgress *p = ef_job_runner_get_progress (runner);

  if (b->first_n == 0 && p->pulses_done > 0 && p->pulses_done < p->pulses_total)
    {
      b->first_n = p->pulses_done;
      b->total = p->pulses_total;
      b->first_db = shown_level (b->window, runner);
    }
}

/* 14: the first interleaved blocks are as bright as the finished image, only blurrier. */
static void
test_brightness_while_forming (void)
{
  EfMainWindow *window = new_window ();
  const double roi[4] = { -12, -12, 12, 12 };
  Brightness b = { window };
  EfJobRunner *runner;

  ef_main_window_set_dataset (window, demo);
  /* Backprojection, whose blocks are as asked (FFBP's are sub-apertures of at least 512 pulses). */
  g_action_group_change_action_state (G_ACTION_GROUP (window), "algorithm", g_variant_new_string ("bp"));
  g_action_group_change_action_state (G_ACTION_GROUP (window), "order", g_variant_new_string ("interleaved"));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (ef_processing_panel_get_widget (window->processing_panel,
                                                                              "block-size")), 32);
  spin_until (window_idle, window, 120);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  ef_main_window_set_roi (window, NULL);
  /* Again, watching from the first block. */
  ef_main_window_set_roi (window, roi);
  runner = ef_main_window_get_roi_runner (window);
  g_assert_nonnull (runner);
  g_signal_connect_after (runner, "progress", G_CALLBACK (brightness_progress), &b);
  spin_until (window_idle, window, 120);
  b.last_db = shown_level (window, runner);
  g_test_message ("mean level shown after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " pulses %.2f dB, "
                  "at the end %.2f dB", b.first_n, b.total, b.first_db, b.last_db);
  g_assert_cmpuint (b.first_n, >, 0);
  g_assert_cmpuint (b.first_n * 4, <=, b.total);
  g_assert_cmpfloat (fabs (b.first_db - b.last_db), <, 1.5);
  close_window (window);
}

/* 15: an empty window says what to do, and keeps saying it after a failed open. */
static void
test_empty_state (void)
{
  EfMainWindow *window = new_window ();
  GtkWidget *empty = template_child (window, "empty_page");
  gboolean loaded = FALSE;

  spin (0.3);
  g_assert_nonnull (empty);
  g_assert_true (ADW_IS_STATUS_PAGE (empty));
  g_assert_true (gtk_widget_get_mapped (empty));
  g_assert_nonnull (find_widget (empty, GTK_TYPE_BUTTON, action_is, "win.open"));
  g_assert_nonnull (find_widget (empty, GTK_TYPE_BUTTON, action_is, "win.open-demo"));

  ef_main_window_open_path (window, "/nonexistent/scene.cphd");
  spin (1.0);
  g_assert_null (ef_main_window_get_dataset (window));
  g_assert_true (gtk_widget_get_mapped (empty));

  g_signal_connect (window, "dataset-loaded", G_CALLBACK (dataset_loaded), &loaded);
  ef_main_window_set_dataset (window, demo);
  spin (0.2);
  g_assert_false (gtk_widget_get_mapped (empty));
  spin_until (window_idle, window, 120);
  close_window (window);
}

#if HAVE_MATIO
/* A small Gotcha-like file: np pulses on a circle from az0 degrees, 0.05 degrees apart. */
static void
write_gotcha (const char *path, guint np, double az0)
{
  const guint ns = 32;
  g_autofree double *x = g_new (double, np), *y = g_new (double, np), *z = g_new (double, np);
  g_autofree double *r0 = g_new (double, np), *th = g_new (double, np), *phi = g_new (double, np);
  g_autofree double *freq = g_new (double, ns);
  g_autofree float *re = g_new0 (float, (gsize) np * ns), *im = g_new0 (float, (gsize) np * ns);
  const char *fields[] = { "fp", "freq", "x", "y", "z", "r0", "th", "phi", NULL };
  size_t one[2] = { 1, 1 }, fdims[2] = { ns, np }, vdims[2] = { 1, np }, qdims[2] = { ns, 1 };
  mat_complex_split_t cs = { re, im };
  matvar_t *data;
  mat_t *mat;

  for (guint k = 0; k < ns; k++)
    freq[k] = 9.6e9 + k * 2e6;
  for (guint p = 0; p < np; p++)
    {
      double az = (az0 + p * 0.05) * G_PI / 180;
      x[p] = 7000 * cos (az);
      y[p] = 7000 * sin (az);
      z[p] = 7000;
      r0[p] = sqrt (x[p] * x[p] + y[p] * y[p] + z[p] * z[p]);
      th[p] = az0 + p * 0.05;
      phi[p] = 45;
      for (guint k = 0; k < ns; k++)
        re[(gsize) p * ns + k] = 1;
    }
  mat = Mat_CreateVer (path, NULL, MAT_FT_MAT5);
  g_assert_nonnull (mat);
  data = Mat_VarCreateStruct2 ("data", 2, one, fields);
  Mat_VarSetStructFieldByName (data, "fp", 0, Mat_VarCreate ("fp", MAT_C_SINGLE, MAT_T_SINGLE, 2, fdims, &cs,
                                                             MAT_F_COMPLEX));
  Mat_VarSetStructFieldByName (data, "freq", 0, Mat_VarCreate ("freq", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, qdims,
                                                               freq, 0));
  Mat_VarSetStructFieldByName (data, "x", 0, Mat_VarCreate ("x", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, vdims, x, 0));
  Mat_VarSetStructFieldByName (data, "y", 0, Mat_VarCreate ("y", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, vdims, y, 0));
  Mat_VarSetStructFieldByName (data, "z", 0, Mat_VarCreate ("z", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, vdims, z, 0));
  Mat_VarSetStructFieldByName (data, "r0", 0, Mat_VarCreate ("r0", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, vdims, r0, 0));
  Mat_VarSetStructFieldByName (data, "th", 0, Mat_VarCreate ("th", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, vdims, th, 0));
  Mat_VarSetStructFieldByName (data, "phi", 0, Mat_VarCreate ("phi", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, vdims, phi,
                                                              0));
  g_assert_cmpint (Mat_VarWrite (mat, data, MAT_COMPRESSION_NONE), ==, 0);
  Mat_VarFree (data);
  Mat_Close (mat);
}
#endif

/* 16: one file of a pass opened alone says that its folder holds the rest, and offers to open it. */
static void
test_one_file_of_a_pass (void)
{
#if HAVE_MATIO
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (dir, "data_3dsar_pass1_az001_HH.mat", NULL);
  g_autofree char *b = g_build_filename (dir, "data_3dsar_pass1_az002_HH.mat", NULL);
  EfMainWindow *window = new_window ();
  gboolean loaded = FALSE;
  AdwToast *toast;
  GVariant *target;

  write_gotcha (a, 20, 0.0);
  write_gotcha (b, 20, 1.0);
  g_signal_connect (window, "dataset-loaded", G_CALLBACK (dataset_loaded), &loaded);
  ef_main_window_open_path (window, a);
  spin_until (flag_set, &loaded, 60);
  g_assert_cmpuint (ef_main_window_get_dataset (window)->info.n_pulses, ==, 20);
  /* The files have no pulse times: no rate or speed is made up. */
  g_assert_cmpstr (gtk_label_get_text (ef_dataset_panel_get_value (window->dataset_panel, "prf")), ==,
                   "Not in the file");
  toast = ef_main_window_get_last_toast_object (window);
  g_assert_nonnull (toast);
  g_test_message ("%s", ef_main_window_get_last_toast (window));
  g_assert_nonnull (strstr (ef_main_window_get_last_toast (window), "2"));
  g_assert_cmpstr (adw_toast_get_action_name (toast), ==, "win.open-path");
  target = adw_toast_get_action_target_value (toast);
  g_assert_cmpstr (g_variant_get_string (target, NULL), ==, dir);

  loaded = FALSE;
  g_action_group_activate_action (G_ACTION_GROUP (window), "open-path", target);
  spin_until (flag_set, &loaded, 60);
  g_assert_cmpuint (ef_main_window_get_dataset (window)->info.n_pulses, ==, 40);
  spin_until (window_idle, window, 120);
  close_window (window);
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
#else
  g_test_skip ("built without matio");
#endif
}

/* 17: the pulse rate and the platform's speed, a drop target that lights up, and a narrow window whose
 * sidebar folds over the image. */
static void
test_prf_drop_narrow (void)
{
  EfMainWindow *window = new_window ();
  const EfPulse *p = demo->pulses;
  guint64 n = demo->info.n_pulses;
  double dt = p[n - 1].t - p[0].t, prf = (n - 1) / dt, path = 0;
  GtkLabel *prf_label, *speed_label;
  GtkDropTarget *drop = NULL;
  GtkWidget *hover;
  GListModel *controllers;
  GdkDragAction action;

  for (guint64 i = 1; i < n; i++)
    path += sqrt (pow (p[i].tx[0] - p[i - 1].tx[0], 2) + pow (p[i].tx[1] - p[i - 1].tx[1], 2)
                  + pow (p[i].tx[2] - p[i - 1].tx[2], 2));
  ef_main_window_set_dataset (window, demo);
  prf_label = ef_dataset_panel_get_value (window->dataset_panel, "prf");
  speed_label = ef_dataset_panel_get_value (window->dataset_panel, "speed");
  g_assert_nonnull (prf_label);
  g_assert_nonnull (speed_label);
  g_test_message ("PRF %s (%.2f Hz), speed %s (%.2f m/s)", gtk_label_get_text (prf_label), prf,
                  gtk_label_get_text (speed_label), path / dt);
  g_assert_cmpfloat (fabs (g_ascii_strtod (gtk_label_get_text (prf_label), NULL) / prf - 1), <, 1e-3);
  g_assert_cmpfloat (fabs (g_ascii_strtod (gtk_label_get_text (speed_label), NULL) / (path / dt) - 1), <, 1e-3);

  /* Hovering with files lights the window up; leaving puts it out. */
  controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_DROP_TARGET (c))
        drop = GTK_DROP_TARGET (c);
    }
  g_object_unref (controllers);
  g_assert_nonnull (drop);
  hover = template_child (window, "drop_highlight");
  g_assert_nonnull (hover);
  g_assert_false (gtk_widget_get_visible (hover));
  g_signal_emit_by_name (drop, "enter", 100.0, 100.0, &action);
  g_assert_true (action & GDK_ACTION_COPY);
  g_assert_true (gtk_widget_get_visible (hover));
  g_signal_emit_by_name (drop, "leave");
  g_assert_false (gtk_widget_get_visible (hover));
  spin_until (window_idle, window, 120);
  close_window (window);

  /* 640 pixels wide: the sidebar folds over the image, which keeps the window's width. */
  window = new_window_sized (640, 700);
  ef_main_window_set_dataset (window, demo);
  spin_until (window_idle, window, 120);
  spin (0.3);
  g_test_message ("window %d px, image %d px", gtk_widget_get_width (GTK_WIDGET (window)),
                  gtk_widget_get_width (GTK_WIDGET (ef_main_window_get_image_view (window))));
  g_assert_true (adw_flap_get_folded (window->flap));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (ef_main_window_get_image_view (window))), >=,
                   gtk_widget_get_width (GTK_WIDGET (window)) - 2);
  /* Hidden until asked for; then over the image, at its own width, leaving some of the image in view. */
  g_assert_false (adw_flap_get_reveal_flap (window->flap));
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sidebar", NULL);
  spin (0.5);
  g_assert_true (adw_flap_get_reveal_flap (window->flap));
  g_test_message ("sidebar %d px", gtk_widget_get_width (adw_flap_get_flap (window->flap)));
  /* The view switcher's five pages need 440 pixels. */
  g_assert_cmpint (gtk_widget_get_width (adw_flap_get_flap (window->flap)), <=, 450);
  g_assert_cmpint (gtk_widget_get_width (adw_flap_get_flap (window->flap)), <=,
                   gtk_widget_get_width (GTK_WIDGET (window)) - 150);
  close_window (window);
}

int
main (int argc, char *argv[])
{
  int status;

  ef_test_window_setup (&argc, &argv);

  g_test_add_func ("/gui/firstday/01-shortcuts-after-submenu", test_shortcuts_after_submenu);
  g_test_add_func ("/gui/firstday/02-measure-follows-region", test_measure_follows_region);
  g_test_add_func ("/gui/firstday/03-recent-underscores", test_recent_underscores);
  g_test_add_func ("/gui/firstday/04-region-size-follows-collection", test_region_size_follows_collection);
  g_test_add_func ("/gui/firstday/05-no-tooltip-on-dropdowns", test_no_tooltip_on_dropdowns);
  g_test_add_func ("/gui/firstday/06-region-label-clear-of-zoom", test_region_label_clear_of_zoom);
  g_test_add_func ("/gui/firstday/07-nothing-cut", test_nothing_cut);
  g_test_add_func ("/gui/firstday/08-cross-range-formula", test_cross_range_formula);
  g_test_add_func ("/gui/firstday/09-start-needs-region", test_start_needs_region);
  g_test_add_func ("/gui/firstday/10-spacing-switch-keeps-region", test_spacing_switch_keeps_region);
  g_test_add_func ("/gui/firstday/11-help-file-once", test_help_file_once);
  g_test_add_func ("/gui/firstday/12-measure-refuses", test_measure_refuses);
  g_test_add_func ("/gui/firstday/13-geometry-orientation", test_geometry_orientation);
  g_test_add_func ("/gui/firstday/14-brightness-while-forming", test_brightness_while_forming);
  g_test_add_func ("/gui/firstday/15-empty-state", test_empty_state);
  g_test_add_func ("/gui/firstday/16-one-file-of-a-pass", test_one_file_of_a_pass);
  g_test_add_func ("/gui/firstday/17-prf-drop-narrow", test_prf_drop_narrow);
  status = g_test_run ();

  ef_test_window_teardown ();
  return status;
}
