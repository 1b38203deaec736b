/* ef-main-window-export.c: saving what the window shows: float images, PNG of the view, measurements. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ef-error.h"
#include "ef-export-png.h"
#include "ef-image-io.h"
#include "ef-run-info-json.h"
#include "ef-sicd.h"
#include "ef-main-window-focus.h"
#include "ef-main-window-private.h"

typedef void (*SaveFunc) (EfMainWindow *self, const char *path);

static void
save_response (GtkNativeDialog *dialog, int response, EfMainWindow *self)
{
  SaveFunc func = g_object_get_data (G_OBJECT (dialog), "ef-save-func");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path != NULL)
        func (self, path);
      else
        ef_main_window_toast (self, _("Only local files can be written"));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
ask_save_path (EfMainWindow *self, const char *title, const char *name, SaveFunc func, GtkFileFilter **filters)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"),
                                         _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  for (guint i = 0; filters != NULL && filters[i] != NULL; i++)
    {
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filters[i]);
      g_object_unref (filters[i]);
    }
  g_object_set_data (G_OBJECT (chooser), "ef-save-func", func);
  g_signal_connect (chooser, "response", G_CALLBACK (save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static GtkFileFilter *
filter (const char *name, const char *suffix)
{
  GtkFileFilter *f = gtk_file_filter_new ();

  gtk_file_filter_set_name (f, name);
  gtk_file_filter_add_suffix (f, suffix);
  return f;
}

static char *
suggested_name (EfMainWindow *self, const char *what, const char *ext)
{
  g_autofree char *base = NULL;
  char *dot;

  if (self->dataset != NULL && self->dataset->info.path != NULL)
    base = g_path_get_basename (self->dataset->info.path);
  else
    base = g_strdup ("echoform-demo");
  dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    *dot = '\0';
  return g_strdup_printf ("%s-%s.%s", base, what, ext);
}

/* ---- complex image ---------------------------------------------------------------------------- */

typedef struct {
  EfJobRunner *runner;  /* owned */
  char        *path;    /* owned */
  JsonObject  *extra;   /* owned: the parameters and what ran, for the sidecar (or the TIFF's description) */
  /* SICD: the job's parameters and what ran, copied on the main thread; the dataset, owned */
  gboolean     sicd;
  EfDataset   *dataset;
  EfJobParams  params;
  EfRunInfo    run;
  char        *why_not; /* owned: why the region cannot be a SICD yet, or NULL */
} ExportData;

static gboolean
is_sicd_path (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  return g_str_has_suffix (lower, ".nitf") || g_str_has_suffix (lower, ".ntf");
}

static void
export_data_free (gpointer data)
{
  ExportData *d = data;

  g_object_unref (d->runner);
  g_free (d->path);
  g_clear_pointer (&d->extra, json_object_unref);
  g_clear_pointer (&d->dataset, ef_dataset_unref);
  ef_run_info_clear (&d->run);
  g_free (d->why_not);
  g_free (d);
}

static void
export_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ExportData *d = task_data;
  const EfGrid *grid = ef_job_runner_get_grid (d->runner);
  g_autoptr (EfImage) image = NULL;
  GError *error = NULL;
  EfRect rect = { 0, 0, grid->width, grid->height };

  if (d->why_not != NULL)
    {
      g_task_return_new_error (task, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "%s", d->why_not);
      return;
    }
  /* The copy and the write both take a while for a large region: neither belongs on the main thread. */
  image = ef_image_new (grid, &error);
  if (image == NULL || !ef_job_runner_read (d->runner, &rect, image->data, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (d->sicd)
    {
      EfSicdSource src = { 0 };

      src.dataset = d->dataset;
      src.image = image;
      src.params = &d->params;
      src.run = &d->run;
      src.input = d->dataset->info.path;
      if (!ef_sicd_write (d->path, &src, &error))
        {
          g_task_return_error (task, error);
          return;
        }
    }
  else if (!ef_image_write_full (image, d->path, d->extra, NULL, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* An export's end, whatever it wrote: a toast that says so, and "export-finished". */
static void
export_report (EfMainWindow *self, GAsyncResult *result, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_filename_display_basename (path);
  g_autofree char *msg = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  if (!ok)
    {
      msg = g_strdup_printf (_("Could not save %s: %s"), name, error->message);
      ef_main_window_toast_error (self, msg);
    }
  else
    {
      msg = g_strdup_printf (_("Saved %s"), name);
      ef_main_window_toast (self, msg);
    }
  g_signal_emit_by_name (self, "export-finished", path, ok);
}

static void
export_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ExportData *d = g_task_get_task_data (G_TASK (result));

  export_report (EF_MAIN_WINDOW (source), result, d->path);
}

void
ef_main_window_export_image_to (EfMainWindow *self, const char *path)
{
  g_autoptr (GTask) task = NULL;
  ExportData *d;
  EfJobRunner *runner = self->roi_runner ? self->roi_runner : self->overview;

  if (runner == NULL)
    return;
  d = g_new0 (ExportData, 1);
  d->runner = g_object_ref (runner);
  d->path = g_strdup (path);
  {
    const EfRunnerProgress *p = ef_job_runner_get_progress (runner);
    EfDataset *ds = ef_job_runner_get_dataset (runner);
    g_auto (EfRunInfo) run = { 0 };

    /* As the CLI keeps it: what ran is what the sidecar says. Taken here, on the main thread. */
    ef_run_info_copy (ef_job_runner_get_run_info (runner), &run);
    ef_main_window_focus_record (self, ds, &run);
    d->extra = ef_run_info_sidecar_extra (&run, ds->info.path,
                                          ef_job_runner_get_params (runner), p->pulses_done, p->elapsed_s,
                                          p->bp_per_s);
    d->sicd = is_sicd_path (path);
    if (d->sicd)
      {
        /* A SICD describes the whole aperture it names: only a region formed from all of it. */
        d->dataset = ef_dataset_ref (ds);
        d->params = *ef_job_runner_get_params (runner);
        ef_run_info_copy (&run, &d->run);
        if (p->pulses_done == 0)
          d->why_not = g_strdup (_("The region has no pulses formed yet"));
        else if (p->state != EF_JOB_DONE || p->pulses_done < p->pulses_total)
          d->why_not = g_strdup (_("The region is still forming; a SICD describes the whole aperture"));
      }
  }
  task = g_task_new (self, NULL, export_done, NULL);
  g_task_set_task_data (task, d, export_data_free);
  g_task_run_in_thread (task, export_thread);
}

void
ef_main_window_export_image (EfMainWindow *self)
{
  g_autofree char *name = suggested_name (self, self->roi_runner ? "region" : "overview", "tif");
  GtkFileFilter *filters[] = { filter (_("Float TIFF"), "tif"), filter (_("NumPy array with JSON metadata"), "npy"),
                               filter (_("SICD (NITF)"), "nitf"), NULL };

  ask_save_path (self, _("Export the Complex Image"), name, ef_main_window_export_image_to, filters);
}

/* ---- the view as PNG -------------------------------------------------------------------------- */

void
ef_main_window_export_png_to (EfMainWindow *self, const char *path)
{
  GtkWidget *view = GTK_WIDGET (self->image_view);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (view);
  g_autoptr (GdkTexture) texture = NULL;
  g_autoptr (GBytes) png = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_filename_display_basename (path);
  g_autofree char *msg = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  int w = gtk_widget_get_width (view), h = gtk_widget_get_height (view);

  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return;
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (self)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  png = gdk_texture_save_to_png_bytes (texture);
  if (!g_file_set_contents (path, g_bytes_get_data (png, NULL), (gssize) g_bytes_get_size (png), &error))
    msg = g_strdup_printf (_("Could not save %s: %s"), name, error->message);
  else
    msg = g_strdup_printf (_("Saved %s"), name);
  ef_main_window_toast (self, msg);
}

void
ef_main_window_export_png (EfMainWindow *self)
{
  g_autofree char *name = suggested_name (self, "view", "png");
  GtkFileFilter *filters[] = { filter (_("PNG image"), "png"), NULL };

  ask_save_path (self, _("Export the View as PNG"), name, ef_main_window_export_png_to, filters);
}

/* ---- the region at full resolution as a dB PNG ------------------------------------------------ */

typedef struct {
  EfJobRunner    *runner;   /* owned */
  char           *path;     /* owned */
  char           *title;    /* owned */
  EfDisplayParams display;
  double          gain_db;
} PngData;

static void
png_data_free (gpointer data)
{
  PngData *d = data;

  g_object_unref (d->runner);
  g_free (d->path);
  g_free (d->title);
  g_free (d);
}

static void
png_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  PngData *d = task_data;
  const EfGrid *grid = ef_job_runner_get_grid (d->runner);
  g_autoptr (EfImage) image = NULL;
  GError *error = NULL;
  EfRect rect = { 0, 0, grid->width, grid->height };

  image = ef_image_new (grid, &error);
  if (image == NULL || !ef_job_runner_read (d->runner, &rect, image->data, &error)
      || !ef_export_db_png (image->data, grid, &d->display, d->gain_db, d->title, d->path, NULL, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
png_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  PngData *d = g_task_get_task_data (G_TASK (result));

  export_report (EF_MAIN_WINDOW (source), result, d->path);
}

void
ef_main_window_export_region_png_to (EfMainWindow *self, const char *path)
{
  g_autoptr (GTask) task = NULL;
  EfJobRunner *runner = self->roi_runner ? self->roi_runner : self->overview;
  EfLayerId layer = self->roi_runner ? EF_LAYER_ROI : EF_LAYER_OVERVIEW;
  const EfJobParams *params;
  const EfGrid *grid;
  g_autofree char *file = NULL;
  PngData *d;

  if (runner == NULL)
    return;
  params = ef_job_runner_get_params (runner);
  grid = ef_job_runner_get_grid (runner);
  d = g_new0 (PngData, 1);
  d->runner = g_object_ref (runner);
  d->path = g_strdup (path);
  d->display = self->display;
  d->gain_db = ef_image_view_get_layer_gain (self->image_view, layer);
  file = self->dataset->info.path != NULL ? g_path_get_basename (self->dataset->info.path)
                                          : g_strdup (_("Demo scene"));
  /* Translators: the exported image's title: "scene.cphd · bp fp32 taylor · 0.125 m pixels · dB per pulse" */
  d->title = g_strdup_printf (_("%s · %s %s %s · %.3f m pixels · dB per pulse"), file,
                              ef_algo_to_string (params->backend.algo),
                              ef_precision_to_string (ef_job_runner_get_run_info (runner)->precision),
                              ef_window_to_string (params->backend.range.window), grid->spacing);
  task = g_task_new (self, NULL, png_done, NULL);
  g_task_set_task_data (task, d, png_data_free);
  g_task_run_in_thread (task, png_thread);
}

void
ef_main_window_export_region_png (EfMainWindow *self)
{
  g_autofree char *name = suggested_name (self, self->roi_runner ? "region" : "overview", "png");
  GtkFileFilter *filters[] = { filter (_("PNG image"), "png"), NULL };

  ask_save_path (self, _("Export the Region as PNG"), name, ef_main_window_export_region_png_to, filters);
}

/* ---- measurements ----------------------------------------------------------------------------- */

/* A field as RFC 4180 writes one: quoted, with quotes doubled, when it holds a comma, quote or line break. */
static void
append_csv_field (GString *csv, const char *text)
{
  if (strpbrk (text, ",\"\r\n") == NULL)
    {
      g_string_append (csv, text);
      return;
    }
  g_string_append_c (csv, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (csv, '"');
      g_string_append_c (csv, *p);
    }
  g_string_append_c (csv, '"');
}

gboolean
ef_main_window_write_measurements_csv (EfMainWindow *self, const char *path, GError **error)
{
  g_autoptr (GString) csv = g_string_new (NULL);
  char buf[9][G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), FALSE);

  /* Each line says what image it was measured on: the file, what formed it, and the pixel spacing. */
  g_string_append (csv, "x_m,y_m,peak_db,range_irw_m,range_pslr_db,range_islr_db,"
                        "cross_irw_m,cross_pslr_db,cross_islr_db,spacing_m,file,image,algorithm,window,"
                        "precision\n");
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const EfMeasurement *m = &g_array_index (self->measurements, EfMeasurement, i);
      const double v[] = { m->x, m->y, m->peak_db, m->range_irw, m->range_pslr, m->range_islr, m->cross_irw,
                           m->cross_pslr, m->cross_islr };

      /* The C locale's decimal point, whatever the user's: a CSV must read back anywhere. */
      for (guint k = 0; k < G_N_ELEMENTS (v); k++)
        g_ascii_formatd (buf[k], sizeof buf[k], "%.6g", v[k]);
      g_string_append_printf (csv, "%s,%s,%s,%s,%s,%s,%s,%s,%s,", buf[0], buf[1], buf[2], buf[3], buf[4], buf[5],
                              buf[6], buf[7], buf[8]);
      g_ascii_formatd (buf[0], sizeof buf[0], "%.6g", m->spacing);
      g_string_append_printf (csv, "%s,", buf[0]);
      append_csv_field (csv, m->file);
      g_string_append_printf (csv, ",%s,%s,%s,%s\n", m->in_roi ? "region" : "overview", ef_algo_to_string (m->algo),
                              ef_window_to_string (m->window), ef_precision_to_string (m->precision));
    }
  return g_file_set_contents (path, csv->str, (gssize) csv->len, error);
}

void
ef_main_window_export_measurements_to (EfMainWindow *self, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_filename_display_basename (path);
  g_autofree char *msg = NULL;

  if (!ef_main_window_write_measurements_csv (self, path, &error))
    msg = g_strdup_printf (_("Could not save %s: %s"), name, error->message);
  else
    msg = g_strdup_printf (_("Saved %s"), name);
  ef_main_window_toast (self, msg);
}

void
ef_main_window_export_measurements (EfMainWindow *self)
{
  g_autofree char *name = suggested_name (self, "points", "csv");
  GtkFileFilter *filters[] = { filter (_("Comma-separated values"), "csv"), NULL };

  ask_save_path (self, _("Export the Measurements"), name, ef_main_window_export_measurements_to, filters);
}
