/* ef-main-window-files.c: opening collections: the file chooser, recent files, drag and drop, the demo. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>

#include "ef-demo.h"
#include "ef-main-window-private.h"
#include "ef-mri-window.h"

#define MAX_RECENT 8
/* A toast's title longer than this is cut at the window's width: such a toast has a button that shows the
 * whole message, and stays longer. An error's stays until it is dismissed. */
#define TOAST_SHORT_CHARS 60
#define TOAST_TIMEOUT_S 5
#define TOAST_LONG_TIMEOUT_S 12

static void
show_toast (EfMainWindow *self, AdwToast *toast, const char *message)
{
#if EF_TEST_HOOKS
  g_free (self->last_toast);
  self->last_toast = g_strdup (message);
  g_set_object (&self->last_toast_object, toast);
#endif
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
toast_message (EfMainWindow *self, const char *message, gboolean error)
{
  /* The title is markup (libadwaita 1.2); a message (a file name, an error) is shown as it is. */
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *toast = adw_toast_new (escaped);

  if (g_utf8_strlen (message, -1) > TOAST_SHORT_CHARS)
    {
      adw_toast_set_button_label (toast, _("_Details"));
      adw_toast_set_action_name (toast, "win.show-message");
      adw_toast_set_action_target_value (toast, g_variant_new_string (message));
      adw_toast_set_timeout (toast, error ? 0 : TOAST_LONG_TIMEOUT_S);
    }
  else
    adw_toast_set_timeout (toast, TOAST_TIMEOUT_S);
  show_toast (self, toast, message);
}

void
ef_main_window_toast (EfMainWindow *self, const char *message)
{
  toast_message (self, message, FALSE);
}

void
ef_main_window_toast_error (EfMainWindow *self, const char *message)
{
  toast_message (self, message, TRUE);
}

void
ef_main_window_toast_with_action (EfMainWindow *self, const char *message, const char *button, const char *action,
                                  GVariant *target)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_button_label (toast, button);
  adw_toast_set_action_name (toast, action);
  if (target != NULL)
    adw_toast_set_action_target_value (toast, target);
  /* Time to read it and decide. */
  adw_toast_set_timeout (toast, 3 * TOAST_TIMEOUT_S);
  show_toast (self, toast, message);
}

void
ef_main_window_show_message (EfMainWindow *self, const char *message)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Details"), NULL);

  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog), message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

void
ef_main_window_set_loading (EfMainWindow *self, const char *message)
{
  gtk_widget_set_visible (self->loading_box, message != NULL);
  gtk_spinner_set_spinning (self->spinner, message != NULL);
  if (message != NULL)
    gtk_label_set_text (self->loading_label, message);
}

/* ---- loading on a worker thread --------------------------------------------------------------- */

typedef struct {
  char    *path;      /* owned, NULL: simulate the demo */
} LoadData;

static void
load_data_free (gpointer data)
{
  LoadData *d = data;

  g_free (d->path);
  g_free (d);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadData *d = task_data;
  GError *error = NULL;
  EfDataset *dataset;

  dataset = d->path != NULL ? ef_dataset_open (d->path, 0, &error) : ef_demo_simulate (&error);
  if (dataset == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, dataset, (GDestroyNotify) ef_dataset_unref);
}

/* How many files of the same Gotcha pass and polarisation as path ("data_3dsar_pass1_az001_HH.mat") its
 * folder holds, path included; 0 when path is not named as one. */
static guint
count_pass_files (const char *path)
{
  g_autoptr (GRegex) re = g_regex_new ("^data_3dsar_pass([0-9]+)_az[0-9]+_([A-Za-z]+)\\.mat$", 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *dirname = g_path_get_dirname (path);
  g_autofree char *pass = NULL, *pol = NULL;
  g_autoptr (GDir) dir = NULL;
  const char *entry;
  guint n = 0;

  if (!g_regex_match (re, name, 0, &match))
    return 0;
  pass = g_match_info_fetch (match, 1);
  pol = g_match_info_fetch (match, 2);
  dir = g_dir_open (dirname, 0, NULL);
  if (dir == NULL)
    return 0;
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autoptr (GMatchInfo) m = NULL;

      if (g_regex_match (re, entry, 0, &m))
        {
          g_autofree char *p = g_match_info_fetch (m, 1), *q = g_match_info_fetch (m, 2);
          n += g_str_equal (p, pass) && g_str_equal (q, pol);
        }
    }
  return n;
}

/* One file of a pass holds a degree of it: say that the folder completes it, and offer to open that. */
static void
tell_rest_of_pass (EfMainWindow *self, const char *path, EfDataset *dataset)
{
  g_autofree char *dirname = NULL, *name = NULL, *pulses = NULL, *msg = NULL;
  guint n;

  if (g_file_test (path, G_FILE_TEST_IS_DIR) || (n = count_pass_files (path)) < 2)
    return;
  dirname = g_path_get_dirname (path);
  name = g_filename_display_basename (path);
  pulses = g_strdup_printf ("%" G_GUINT64_FORMAT, dataset->info.n_pulses);
  /* Translators: "data_3dsar_pass1_az001_HH.mat holds 1.0° of the pass (117 pulses); its folder holds 4
   * files of the pass" */
  msg = g_strdup_printf (_("%s holds %.1f° of the pass (%s pulses); its folder holds %u files of the pass"), name,
                         ef_dataset_aperture_angle (dataset) * 180 / G_PI, pulses, n);
  ef_main_window_toast_with_action (self, msg, _("Open _Folder"), "win.open-path", g_variant_new_string (dirname));
}

static void
load_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (source);
  LoadData *d = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) dataset = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  ef_main_window_set_loading (self, NULL);
  if (dataset == NULL)
    {
      g_autofree char *name = d->path ? g_filename_display_basename (d->path) : g_strdup (_("the demo scene"));
      g_autofree char *msg = g_strdup_printf (_("Could not open %s: %s"), name, error->message);

      ef_main_window_toast_error (self, msg);
      if (self->batch_pending)
        {
          self->batch_pending = FALSE;
          g_signal_emit_by_name (self, "batch-done", FALSE, msg);
        }
      ef_main_window_jobs_update_status (self);
      return;
    }
  if (d->path != NULL)
    {
      g_autoptr (GFile) file = g_file_new_for_path (d->path);
      g_autofree char *uri = g_file_get_uri (file);
      GtkRecentData data = { 0 };
      const char *groups[] = { "echoform", NULL };

      data.display_name = NULL;
      data.mime_type = (char *) (g_file_test (d->path, G_FILE_TEST_IS_DIR) ? "inode/directory"
                                                                            : "application/octet-stream");
      data.app_name = (char *) g_get_prgname ();
      data.app_exec = (char *) "echoform %u";
      data.groups = (char **) groups;
      gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
    }
  ef_main_window_set_dataset (self, dataset);
  if (d->path != NULL)
    tell_rest_of_pass (self, d->path, dataset);
}

static void
start_load (EfMainWindow *self, char *path, const char *message)
{
  g_autoptr (GTask) task = NULL;
  LoadData *d = g_new0 (LoadData, 1);

  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  self->load_cancellable = g_cancellable_new ();

  d->path = path;
  ef_main_window_set_loading (self, message);
  task = g_task_new (self, self->load_cancellable, load_done, NULL);
  g_task_set_task_data (task, d, load_data_free);
  /* A cancelled load's result is dropped: a newer one replaced it. */
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, load_thread);
}

void
ef_main_window_open_path (EfMainWindow *self, const char *path)
{
  g_autofree char *name = NULL;
  g_autofree char *msg = NULL;

  g_return_if_fail (EF_IS_MAIN_WINDOW (self));
  g_return_if_fail (path != NULL);

  if (ef_mri_window_accepts (path))
    {
      /* k-space samples (ISMRMRD) open in a window of their own */
      EfMriWindow *mw = ef_mri_window_new (gtk_window_get_application (GTK_WINDOW (self)));

      gtk_window_set_transient_for (GTK_WINDOW (mw), GTK_WINDOW (self));
      ef_mri_window_open (mw, path);
      gtk_window_present (GTK_WINDOW (mw));
      return;
    }
  name = g_filename_display_basename (path);
  msg = g_strdup_printf (_("Opening %s…"), name);
  start_load (self, g_strdup (path), msg);
}

void
ef_main_window_open_demo (EfMainWindow *self, gboolean simulate)
{
  g_autofree char *file = NULL;

  g_return_if_fail (EF_IS_MAIN_WINDOW (self));

  if (!simulate)
    file = ef_demo_find_file ();
  if (file != NULL)
    ef_main_window_open_path (self, file);
  else
    start_load (self, NULL, _("Simulating the demo scene…"));
}

/* ---- the file chooser ------------------------------------------------------------------------- */

static void
chooser_response (GtkNativeDialog *dialog, int response, EfMainWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path != NULL)
        ef_main_window_open_path (self, path);
      else if (file != NULL)
        ef_main_window_toast (self, _("Only local files can be opened"));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

void
ef_main_window_show_open_dialog (EfMainWindow *self, gboolean folder)
{
  GtkFileChooserNative *chooser;
  g_autoptr (GtkFileFilter) all = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) cphd = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) mat = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) mrd = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (folder ? _("Open a Folder of Gotcha Files") : _("Open a Collection"),
                                         GTK_WINDOW (self),
                                         folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  if (!folder)
    {
      gtk_file_filter_set_name (all, _("Phase histories"));
      gtk_file_filter_add_suffix (all, "cphd");
      gtk_file_filter_add_suffix (all, "mat");
      gtk_file_filter_add_suffix (all, "h5");
      gtk_file_filter_add_suffix (all, "mrd");
      gtk_file_filter_set_name (cphd, _("CPHD files"));
      gtk_file_filter_add_suffix (cphd, "cphd");
      gtk_file_filter_set_name (mat, _("Gotcha MATLAB files"));
      gtk_file_filter_add_suffix (mat, "mat");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), all);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), cphd);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), mat);
      gtk_file_filter_set_name (mrd, _("ISMRMRD k-space files (MRI)"));
      gtk_file_filter_add_suffix (mrd, "h5");
      gtk_file_filter_add_suffix (mrd, "mrd");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), mrd);
    }
  g_signal_connect (chooser, "response", G_CALLBACK (chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- recent files ----------------------------------------------------------------------------- */

static int
compare_recent (gconstpointer a, gconstpointer b)
{
  GtkRecentInfo *ia = *(GtkRecentInfo **) a, *ib = *(GtkRecentInfo **) b;
  GDateTime *ta = gtk_recent_info_get_modified (ia), *tb = gtk_recent_info_get_modified (ib);

  return -g_date_time_compare (ta, tb);
}

void
ef_main_window_files_update_recent (EfMainWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  g_autoptr (GPtrArray) ours = g_ptr_array_new ();
  guint shown = 0;

  g_menu_remove_all (self->recent_section);
  for (GList *l = items; l != NULL; l = l->next)
    if (gtk_recent_info_has_group (l->data, "echoform") && gtk_recent_info_exists (l->data))
      g_ptr_array_add (ours, l->data);
  g_ptr_array_sort (ours, compare_recent);
  for (guint i = 0; i < ours->len && shown < MAX_RECENT; i++, shown++)
    {
      GtkRecentInfo *info = g_ptr_array_index (ours, i);
      /* Menu labels take "_" as a mnemonic mark; file names keep theirs. */
      g_auto (GStrv) parts = g_strsplit (gtk_recent_info_get_display_name (info), "_", -1);
      g_autofree char *label = g_strjoinv ("__", parts);
      g_autoptr (GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target (item, "win.open-recent", "s", gtk_recent_info_get_uri (info));
      g_menu_append_item (self->recent_section, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

/* ---- drag and drop ---------------------------------------------------------------------------- */

gboolean
ef_main_window_drop_files (EfMainWindow *self, GSList *files)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), FALSE);
  if (files == NULL || !G_IS_FILE (files->data))
    return FALSE;
  path = g_file_get_path (files->data);
  if (path == NULL)
    {
      ef_main_window_toast (self, _("Only local files can be opened"));
      return FALSE;
    }
  ef_main_window_open_path (self, path);
  return TRUE;
}

static gboolean
drop (GtkDropTarget *target, const GValue *value, double x, double y, EfMainWindow *self)
{
  gtk_widget_set_visible (self->drop_highlight, FALSE);
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  return ef_main_window_drop_files (self, g_value_get_boxed (value));
}

/* While files are held over the window, it says where they go. */
static GdkDragAction
drop_enter (GtkDropTarget *target, double x, double y, EfMainWindow *self)
{
  gtk_widget_set_visible (self->drop_highlight, TRUE);
  return GDK_ACTION_COPY;
}

static void
drop_leave (GtkDropTarget *target, EfMainWindow *self)
{
  gtk_widget_set_visible (self->drop_highlight, FALSE);
}

void
ef_main_window_files_init (EfMainWindow *self)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (target, "drop", G_CALLBACK (drop), self);
  g_signal_connect (target, "enter", G_CALLBACK (drop_enter), self);
  g_signal_connect (target, "leave", G_CALLBACK (drop_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));

  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (ef_main_window_files_update_recent), self, G_CONNECT_SWAPPED);
  ef_main_window_files_update_recent (self);
}
