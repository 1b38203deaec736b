/* ef-mri-window.c: an ISMRMRD file's image refined block of samples by block, its coils, k-space, least squares. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri-coils.h"
#include "ef-mri-window-private.h"
#include "ef-settings.h"

/* The points the k-space view draws at most. */
#define MAX_KSPACE_POINTS 60000

G_DEFINE_FINAL_TYPE (EfMriWindow, ef_mri_window, GTK_TYPE_WINDOW)

/* ---- drawing ---- */

/* Plane i's pixel size: 0 axial (x, y), 1 coronal (x, z), 2 sagittal (y, z). */
void
ef_mri_window_plane_size (const EfMriGrid *g, guint i, guint *w, guint *h)
{
  *w = i == 2 ? g->n[1] : g->n[0];
  *h = i == 0 ? g->n[1] : g->n[2];
}

static gsize
plane_voxel (EfMriWindow *self, guint i, guint col, guint row)
{
  const EfMriGrid *g = &self->prep->g;
  guint x = self->cursor[0], y = self->cursor[1], z = self->cursor[2];

  if (i == 0)
    x = col, y = row;
  else if (i == 1)
    x = col, z = row;
  else
    y = col, z = row;
  return ((gsize) z * g->n[1] + y) * g->n[0] + x;
}

static void
draw_plane (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  EfMriWindow *self = user_data;
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "plane"));
  cairo_surface_t *surf;
  guint w, h, stride;
  unsigned char *px;
  double s;

  if (self->prep == NULL || self->image == NULL)
    return;
  ef_mri_window_plane_size (&self->prep->g, i, &w, &h);
  surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  stride = (guint) cairo_image_surface_get_stride (surf);
  px = cairo_image_surface_get_data (surf);
  for (guint r = 0; r < h; r++)
    for (guint c = 0; c < w; c++)
      {
        /* y (and z) up: the first row drawn is the last voxel row */
        double m = cabs (self->image[plane_voxel (self, i, c, h - 1 - r)]);
        guint v = self->image_max > 0 ? (guint) CLAMP (255.0 * m / self->image_max, 0, 255) : 0;

        ((guint32 *) (px + (gsize) r * stride))[c] = (v << 16) | (v << 8) | v;
      }
  cairo_surface_mark_dirty (surf);
  s = MIN ((double) width / w, (double) height / h);
  cairo_translate (cr, (width - s * w) / 2, (height - s * h) / 2);
  cairo_scale (cr, s, s);
  cairo_set_source_surface (cr, surf, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_surface_destroy (surf);
  if (self->prep->g.dim == 3)
    {
      /* where the other planes cut this one */
      double cx = i == 2 ? self->cursor[1] : self->cursor[0];
      double cy = i == 0 ? self->cursor[1] : self->cursor[2];

      cairo_set_source_rgba (cr, 1.0, 0.6, 0.1, 0.6);
      cairo_set_line_width (cr, 1 / s);
      cairo_move_to (cr, cx + 0.5, 0);
      cairo_line_to (cr, cx + 0.5, h);
      cairo_move_to (cr, 0, h - cy - 0.5);
      cairo_line_to (cr, w, h - cy - 0.5);
      cairo_stroke (cr);
    }
}

/* The grey scale: a ramp from 0 to the largest magnitude. */
static void
draw_scale (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  EfMriWindow *self = user_data;
  cairo_pattern_t *ramp = cairo_pattern_create_linear (8, 0, width - 8, 0);
  char label[64];

  (void) area;
  cairo_pattern_add_color_stop_rgb (ramp, 0, 0, 0, 0);
  cairo_pattern_add_color_stop_rgb (ramp, 1, 1, 1, 1);
  cairo_rectangle (cr, 8, 2, width - 16, height / 2 - 2);
  cairo_set_source (cr, ramp);
  cairo_fill (cr);
  cairo_pattern_destroy (ramp);
  cairo_set_source_rgb (cr, 0.5, 0.5, 0.5);
  cairo_set_font_size (cr, 11);
  cairo_move_to (cr, 8, height - 3);
  cairo_show_text (cr, "0");
  g_snprintf (label, sizeof label, _("|image| %.4g"), self->image_max);
  {
    cairo_text_extents_t ext;

    cairo_text_extents (cr, label, &ext);
    cairo_move_to (cr, width - 8 - ext.x_advance, height - 3);
  }
  cairo_show_text (cr, label);
}

/* The trajectory's kx, ky (a projection along kz in 3-D): the samples already summed in orange. */
static void
draw_kspace (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  EfMriWindow *self = user_data;
  const EfMriTraj *t;
  double s, half;
  gsize step;

  (void) area;
  /* a square plot, centred */
  cairo_set_source_rgb (cr, 0.08, 0.08, 0.1);
  cairo_rectangle (cr, (width - MIN (width, height)) / 2.0, (height - MIN (width, height)) / 2.0, MIN (width, height),
                   MIN (width, height));
  cairo_fill (cr);
  self->kspace_points = self->kspace_used = 0;
  if (self->prep == NULL)
    return;
  t = self->prep->t;
  half = self->prep->g.n[0] / 2.0;
  s = (MIN (width, height) - 8) / (2 * half);
  step = MAX ((gsize) 1, (t->m + MAX_KSPACE_POINTS - 1) / MAX_KSPACE_POINTS);
  for (int pass = 0; pass < 2; pass++)
    {
      if (pass == 0)
        cairo_set_source_rgb (cr, 0.35, 0.35, 0.4);
      else
        cairo_set_source_rgb (cr, 1.0, 0.55, 0.1);
      for (gsize i = 0; i < t->m; i += step)
        {
          gboolean used = i < self->done;

          if (used != (pass == 1))
            continue;
          cairo_rectangle (cr, width / 2.0 + s * t->k[i * t->dim] - 0.75,
                           height / 2.0 - s * t->k[i * t->dim + 1] - 0.75, 1.5, 1.5);
          self->kspace_points++;
          self->kspace_used += used;
        }
      cairo_fill (cr);
    }
  cairo_set_source_rgb (cr, 0.7, 0.7, 0.7);
  cairo_set_font_size (cr, 11);
  cairo_move_to (cr, (width - MIN (width, height)) / 2.0 + 6, (height - MIN (width, height)) / 2.0 + 14);
  cairo_show_text (cr, t->dim == 3 ? _("k-space: kx, ky (all kz)") : _("k-space: kx, ky"));
}
/* ---- the main loop's side ---- */

static void
update_header (EfMriWindow *self)
{
  const EfMriPrepared *pr = self->prep;
  g_autofree char *name = g_path_get_basename (pr->path);
  g_autofree char *dims = NULL, *text = NULL;

  if (pr->g.dim == 3)
    dims = g_strdup_printf ("%u × %u × %u", pr->g.n[0], pr->g.n[1], pr->g.n[2]);
  else
    dims = g_strdup_printf ("%u × %u", pr->g.n[0], pr->g.n[1]);
  /* Translators: the MRI window's header: file, image size, samples, timings (the coils have a line of
   * their own) */
  text = g_strdup_printf (_("%s\n%u-D image %s%s\n%'lu samples\n"
                            "read %.2f s, density weights %.2f s (Pipe–Menon, CPU)"),
                          name, pr->g.dim, dims, pr->edge_guessed ? _(" (assumed: the file gives no matrix)") : "",
                          (unsigned long) pr->t->m, pr->read_s, pr->density_s);
  gtk_label_set_text (GTK_LABEL (self->header_label), text);
}

/* The coils in use, in words. */
static void
update_coil_label (EfMriWindow *self)
{
  guint nc = self->prep->n_coils;
  g_autofree char *text = NULL;

  if (nc == 1)
    text = g_strdup (_("1 coil (receive channel)"));
  else if (self->coil_choice == 0)
    /* Translators: how the MRI window combines its receive coils */
    text = g_strdup_printf (self->ls_iterations > 0 ? _("%u coils: SENSE least squares")
                                                    : _("%u coils, combined (root sum of squares)"), nc);
  else
    text = g_strdup_printf (_("coil %u of %u alone"), self->coil_choice, nc);
  gtk_label_set_text (GTK_LABEL (self->coil_label), text);
}

/* One entry for all coils combined, then one per coil. */
static void
set_coils (EfMriWindow *self)
{
  guint nc = self->prep->n_coils;
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);

  gtk_string_list_append (list, _("All coils (combined)"));
  for (guint c = 1; c <= nc; c++)
    {
      g_autofree char *s = g_strdup_printf (_("Coil %u"), c);

      gtk_string_list_append (list, s);
    }
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->coil_drop), G_LIST_MODEL (list));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->coil_drop), 0);
  gtk_widget_set_visible (self->coil_drop, nc > 1);
  update_coil_label (self);
}

static void
update_backend_label (EfMriWindow *self)
{
  g_autofree char *text = NULL;

  if (self->run.ran == NULL)
    return;
  if (self->run.fallback != NULL)
    /* Translators: where the MRI window's exact sums ran, and why not on the device asked for */
    text = g_strdup_printf (_("Exact sums on %s\n%s"), self->run.detail, self->run.fallback);
  else
    text = g_strdup_printf (_("Exact sums on %s"), self->run.detail);
  gtk_label_set_text (GTK_LABEL (self->backend_label), text);
}

static void
set_planes (EfMriWindow *self)
{
  guint np = self->prep->g.dim == 3 ? 3 : 1;

  for (guint i = 0; i < 3; i++)
    gtk_widget_set_visible (gtk_widget_get_parent (self->planes[i]), i < np);
  /* one plane needs no name */
  gtk_widget_set_visible (gtk_widget_get_prev_sibling (self->planes[0]), np == 3);
  /* one plane: k-space beside it; three: k-space in the fourth corner */
  g_object_ref (self->kspace);
  gtk_grid_remove (GTK_GRID (self->planes_box), self->kspace);
  gtk_grid_attach (GTK_GRID (self->planes_box), self->kspace, 1, np == 3 ? 1 : 0, 1, 1);
  g_object_unref (self->kspace);
  gtk_widget_set_visible (self->slider_box, np == 3);
  for (guint a = 0; a < 3; a++)
    {
      guint n = self->prep->g.n[a];

      self->cursor[a] = n / 2;
      gtk_range_set_range (GTK_RANGE (self->sliders[a]), 0, MAX (n, 2u) - 1);
      gtk_range_set_value (GTK_RANGE (self->sliders[a]), n / 2);
    }
}

static void
set_image (EfMriWindow *self, EfCf64 *img)
{
  g_free (self->image);
  self->image = img;
  self->image_max = 0;
  for (gsize v = 0; v < self->prep->nv; v++)
    self->image_max = MAX (self->image_max, cabs (img[v]));
  for (guint i = 0; i < 3; i++)
    gtk_widget_queue_draw (self->planes[i]);
  gtk_widget_queue_draw (self->scale);
}

/* F^H d as chosen: one coil's image, or every coil's combined by root sum of squares. */
static void
show_coils (EfMriWindow *self)
{
  const EfMriPrepared *pr = self->prep;
  EfCf64 *img = g_new (EfCf64, pr->nv);

  if (pr->n_coils == 1 || self->coil_choice > 0)
    memcpy (img, self->coil_images + (gsize) (self->coil_choice > 0 ? self->coil_choice - 1 : 0) * pr->nv,
            pr->nv * sizeof (EfCf64));
  else
    ef_mri_coils_combine (NULL, self->coil_images, pr->n_coils, pr->nv, img);
  self->ls_iterations = 0;
  set_image (self, img);
}

void
ef_mri_window_show_publish (EfMriWindow *self, EfMriPublish *p)
{
  char text[200];

  if (p->run.ran != NULL)
    {
      ef_mri_run_clear (&self->run);
      ef_mri_run_copy (&p->run, &self->run);
      update_backend_label (self);
    }
  if (self->prep == NULL)
    {
      self->prep = ef_mri_prepared_ref (p->prep);
      update_header (self);
      set_planes (self);
      set_coils (self);
    }
  if (p->coils != NULL)
    {
      g_autofree char *line = NULL;

      self->done = p->done;
      g_free (self->coil_images);
      self->coil_images = g_steal_pointer (&p->coils);
      show_coils (self);
      /* the device's words can be long: no fixed buffer */
      line = g_strdup_printf (_("samples %'lu of %'lu (F^H d, exact, %s), %.2f s"), (unsigned long) p->done,
                              (unsigned long) self->prep->t->m, self->run.detail != NULL ? self->run.detail : "",
                              (g_get_monotonic_time () - self->started) / 1e6);
      gtk_label_set_text (GTK_LABEL (self->progress_label), line);
      g_free (self->fhd_line);
      self->fhd_line = g_steal_pointer (&line);
    }
  if (p->iterate != NULL)
    {
      self->ls_iterations = p->iteration;
      set_image (self, g_steal_pointer (&p->iterate));
      g_snprintf (text, sizeof text, _("least squares: iteration %u of %u"), p->iteration,
                  EF_MRI_WINDOW_CG_ITERATIONS);
      gtk_label_set_text (GTK_LABEL (self->progress_label), text);
      update_coil_label (self);
    }
  gtk_widget_queue_draw (self->kspace);
}

static void
show_error (EfMriWindow *self, const GError *error)
{
  g_free (self->error);
  self->error = g_strdup (error->message);
  gtk_label_set_text (GTK_LABEL (self->progress_label), error->message);
}

static void
refine_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMriWindow *self = EF_MRI_WINDOW (source);
  g_autoptr (GError) error = NULL;

  (void) user_data;
  self->busy = FALSE;
  if (self->disposed)
    return;
  ef_mri_window_take_pending (self);
  /* it stops the refinement only: least squares' button becomes its own Cancel */
  gtk_widget_set_visible (self->cancel_button, FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      show_error (self, error);
      return;
    }
  if (self->prep != NULL && self->done == self->prep->t->m && error == NULL)
    {
      self->refined = TRUE;
      gtk_widget_set_sensitive (self->ls_button, TRUE);
    }
  else
    {
      char text[160];

      g_snprintf (text, sizeof text, _("cancelled at %'lu samples"), (unsigned long) self->done);
      gtk_label_set_text (GTK_LABEL (self->progress_label), text);
    }
}

/* The settings' backend, as the main window's jobs take it; auto where there are no settings. */
static EfBackendKind
backend_from_settings (void)
{
  g_autoptr (GSettings) settings = NULL;
  g_autofree char *s = NULL;
  EfBackendKind kind = EF_BACKEND_AUTO;

  if (!ef_settings_schema_is_available ())
    return kind;
  settings = ef_settings_new ();
  s = g_settings_get_string (settings, "backend");
  if (!ef_backend_kind_from_string (s, &kind))
    kind = EF_BACKEND_AUTO;
  return kind;
}

void
ef_mri_window_open (EfMriWindow *self, const char *path)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *name = NULL;

  g_return_if_fail (EF_IS_MRI_WINDOW (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (!self->busy && self->prep == NULL);

  name = g_filename_display_basename (path);
  gtk_window_set_title (GTK_WINDOW (self), name);
  gtk_label_set_text (GTK_LABEL (self->header_label), name);
  gtk_label_set_text (GTK_LABEL (self->progress_label), _("Reading the samples and their density weights…"));
  self->backend = backend_from_settings ();
  self->busy = TRUE;
  self->started = g_get_monotonic_time ();
  gtk_widget_set_sensitive (self->cancel_button, TRUE);
  task = g_task_new (self, self->cancellable, refine_done, NULL);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, ef_mri_window_refine_thread);
}

/* ---- least squares ---- */

static void
ls_running (EfMriWindow *self, gboolean running)
{
  gtk_button_set_label (GTK_BUTTON (self->ls_button), running ? _("_Cancel") : _("_Least squares"));
  gtk_widget_set_sensitive (self->coil_drop, !running);
  if (running)
    gtk_widget_add_css_class (self->ls_button, "destructive-action");
  else
    gtk_widget_remove_css_class (self->ls_button, "destructive-action");
}

static void
ls_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMriWindow *self = EF_MRI_WINDOW (source);
  EfMriLs *ls = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  EfCf64 *x;
  guint k;

  (void) user_data;
  self->busy = FALSE;
  g_clear_object (&self->ls_cancellable);
  if (self->disposed)
    return;
  ef_mri_window_take_pending (self);
  ls_running (self, FALSE);
  gtk_widget_set_sensitive (self->ls_button, TRUE);
  ef_mri_run_clear (&self->run);
  ef_mri_run_copy (ef_mri_window_ls_run (ls), &self->run);
  update_backend_label (self);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      show_error (self, error);
      return;
    }
  /* the last completed iterate, or F^H d where none was */
  k = ef_mri_window_ls_iterations (ls);
  x = ef_mri_window_ls_steal_image (ls);
  if (x != NULL)
    {
      self->ls_iterations = k;
      set_image (self, x);
    }
  else if (self->ls_iterations > 0)
    show_coils (self);
  update_coil_label (self);
  if (ef_mri_window_ls_report (ls) != NULL)
    gtk_label_set_text (GTK_LABEL (self->residual_label), ef_mri_window_ls_report (ls));
  else
    gtk_label_set_text (GTK_LABEL (self->residual_label), "");
  if (ef_mri_window_ls_cancelled (ls))
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "least squares cancelled after %u iteration",
                                                            "least squares cancelled after %u iterations", k), k);

      gtk_label_set_text (GTK_LABEL (self->progress_label), text);
    }
  else
    gtk_label_set_text (GTK_LABEL (self->progress_label), _("least-squares image (conjugate gradients through Q)"));
}

void
ef_mri_window_least_squares (EfMriWindow *self)
{
  g_autoptr (GTask) task = NULL;

  if (self->busy || !self->refined)
    return;
  self->busy = TRUE;
  self->ls_cancellable = g_cancellable_new ();
  ls_running (self, TRUE);
  gtk_label_set_text (GTK_LABEL (self->residual_label), "");
  gtk_label_set_text (GTK_LABEL (self->progress_label), _("least squares: computing Q…"));
  task = g_task_new (self, NULL, ls_done, NULL);
  g_task_set_task_data (task, ef_mri_window_ls_new (self), ef_mri_window_ls_free);
  g_task_run_in_thread (task, ef_mri_window_ls_thread);
}

/* Least squares, or Cancel while it runs: the worker stops after the iteration it is in. */
static void
ls_clicked (EfMriWindow *self)
{
  if (self->ls_cancellable == NULL)
    {
      ef_mri_window_least_squares (self);
      return;
    }
  g_mutex_lock (&self->hold_lock);
  g_cancellable_cancel (self->ls_cancellable);
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->hold_lock);
  gtk_widget_set_sensitive (self->ls_button, FALSE);
  gtk_label_set_text (GTK_LABEL (self->progress_label), _("least squares: cancelling…"));
}

static void
coil_chosen (EfMriWindow *self)
{
  guint choice = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->coil_drop));

  if (self->prep == NULL || choice == GTK_INVALID_LIST_POSITION || choice > self->prep->n_coils
      || choice == self->coil_choice || self->ls_cancellable != NULL)
    return;
  self->coil_choice = choice;
  if (self->coil_images != NULL)
    {
      /* The F^H d image of the choice: the status line says so again (it said least squares). */
      show_coils (self);
      if (self->fhd_line != NULL)
        gtk_label_set_text (GTK_LABEL (self->progress_label), self->fhd_line);
    }
  gtk_label_set_text (GTK_LABEL (self->residual_label), "");
  update_coil_label (self);
}

/* ---- widgets ---- */

static void
slider_changed (GtkRange *range, EfMriWindow *self)
{
  guint a = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (range), "axis"));

  self->cursor[a] = (guint) gtk_range_get_value (range);
  for (guint i = 0; i < 3; i++)
    gtk_widget_queue_draw (self->planes[i]);
}

/* A click at (x, y) on plane i moves the other planes through the voxel clicked. */
void
ef_mri_window_pick (EfMriWindow *self, guint i, double x, double y)
{
  GtkWidget *area = self->planes[i];
  int width = gtk_widget_get_width (area), height = gtk_widget_get_height (area);
  guint w, h, ca, ra;
  double s, col, row;

  if (self->prep == NULL || self->prep->g.dim != 3)
    return;
  ef_mri_window_plane_size (&self->prep->g, i, &w, &h);
  s = MIN ((double) width / w, (double) height / h);
  col = (x - (width - s * w) / 2) / s;
  row = h - (y - (height - s * h) / 2) / s;
  if (col < 0 || row < 0 || col >= w || row >= h)
    return;
  ca = i == 2 ? 1 : 0;
  ra = i == 0 ? 1 : 2;
  gtk_range_set_value (GTK_RANGE (self->sliders[ca]), floor (col));
  gtk_range_set_value (GTK_RANGE (self->sliders[ra]), floor (row));
}

static void
plane_clicked (GtkGestureClick *gesture, int n_press, double x, double y, EfMriWindow *self)
{
  GtkWidget *area = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));

  (void) n_press;
  ef_mri_window_pick (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "plane")), x, y);
}

static GtkWidget *
new_area (EfMriWindow *self, GtkDrawingAreaDrawFunc func, int w, int h)
{
  GtkWidget *a = gtk_drawing_area_new ();

  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (a), w);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (a), h);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (a), func, self, NULL);
  return a;
}

static void
ef_mri_window_init (EfMriWindow *self)
{
  static const char *const plane_names[3] = { N_("axial (x, y)"), N_("coronal (x, z)"), N_("sagittal (y, z)") };
  static const char *const axis_names[3] = { "x", "y", "z" };
  GtkWidget *root = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *side = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *title, *coil_row;

  self->cancellable = g_cancellable_new ();
  g_mutex_init (&self->pub_lock);
  g_mutex_init (&self->hold_lock);
  g_cond_init (&self->hold_cond);
  self->hold_after = G_MAXUINT;
  self->hold_iteration = G_MAXUINT;
  gtk_window_set_title (GTK_WINDOW (self), _("MRI reconstruction"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1180, 720);
  gtk_widget_set_margin_start (root, 12);
  gtk_widget_set_margin_end (root, 12);
  gtk_widget_set_margin_top (root, 12);
  gtk_widget_set_margin_bottom (root, 12);

  self->planes_box = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (self->planes_box), 6);
  gtk_grid_set_column_spacing (GTK_GRID (self->planes_box), 6);
  gtk_widget_set_hexpand (self->planes_box, TRUE);
  for (guint i = 0; i < 3; i++)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkGesture *click = gtk_gesture_click_new ();

      self->planes[i] = new_area (self, draw_plane, 300, 300);
      gtk_widget_set_hexpand (self->planes[i], TRUE);
      gtk_widget_set_vexpand (self->planes[i], TRUE);
      g_object_set_data (G_OBJECT (self->planes[i]), "plane", GUINT_TO_POINTER (i));
      g_signal_connect (click, "pressed", G_CALLBACK (plane_clicked), self);
      gtk_widget_add_controller (self->planes[i], GTK_EVENT_CONTROLLER (click));
      gtk_box_append (GTK_BOX (box), gtk_label_new (_(plane_names[i])));
      gtk_box_append (GTK_BOX (box), self->planes[i]);
      gtk_grid_attach (GTK_GRID (self->planes_box), box, i % 2, i / 2, 1, 1);
    }
  self->kspace = new_area (self, draw_kspace, 300, 300);
  gtk_widget_set_hexpand (self->kspace, TRUE);
  gtk_widget_set_vexpand (self->kspace, TRUE);
  gtk_grid_attach (GTK_GRID (self->planes_box), self->kspace, 1, 1, 1, 1);
  gtk_box_append (GTK_BOX (root), self->planes_box);

  gtk_widget_set_size_request (side, 340, -1);
  title = gtk_label_new (_("MRI reconstruction"));
  gtk_widget_add_css_class (title, "title-3");
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_box_append (GTK_BOX (side), title);
  self->header_label = gtk_label_new ("");
  self->coil_label = gtk_label_new ("");
  self->backend_label = gtk_label_new ("");
  self->progress_label = gtk_label_new ("");
  self->residual_label = gtk_label_new ("");
  for (guint i = 0; i < 5; i++)
    {
      GtkWidget *l = (GtkWidget *[]) { self->header_label, self->coil_label, self->backend_label, self->progress_label,
                                       self->residual_label }[i];

      gtk_label_set_xalign (GTK_LABEL (l), 0);
      gtk_label_set_wrap (GTK_LABEL (l), TRUE);
    }
  gtk_widget_add_css_class (self->backend_label, "dim-label");
  gtk_box_append (GTK_BOX (side), self->header_label);
  /* the coils: how many are used, and a choice between them combined and one alone */
  coil_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_hexpand (self->coil_label, TRUE);
  gtk_box_append (GTK_BOX (coil_row), self->coil_label);
  self->coil_drop = gtk_drop_down_new_from_strings ((const char *const[]) { _("All coils (combined)"), NULL });
  gtk_widget_set_tooltip_text (self->coil_drop, _("All coils: F^H d of each coil combined by root sum of squares, "
                                                  "and SENSE least squares; or one coil alone"));
  gtk_widget_set_visible (self->coil_drop, FALSE);
  g_signal_connect_swapped (self->coil_drop, "notify::selected", G_CALLBACK (coil_chosen), self);
  gtk_box_append (GTK_BOX (coil_row), self->coil_drop);
  gtk_box_append (GTK_BOX (side), coil_row);
  gtk_box_append (GTK_BOX (side), self->backend_label);
  gtk_box_append (GTK_BOX (side), self->progress_label);
  self->scale = new_area (self, draw_scale, 320, 34);
  gtk_box_append (GTK_BOX (side), self->scale);

  self->slider_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_box_append (GTK_BOX (self->slider_box), gtk_label_new (_("Planes through the voxel (x, y, z)")));
  for (guint a = 0; a < 3; a++)
    {
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);

      self->sliders[a] = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1);
      gtk_scale_set_digits (GTK_SCALE (self->sliders[a]), 0);
      gtk_scale_set_draw_value (GTK_SCALE (self->sliders[a]), TRUE);
      gtk_widget_set_hexpand (self->sliders[a], TRUE);
      g_object_set_data (G_OBJECT (self->sliders[a]), "axis", GUINT_TO_POINTER (a));
      g_signal_connect (self->sliders[a], "value-changed", G_CALLBACK (slider_changed), self);
      gtk_box_append (GTK_BOX (row), gtk_label_new (axis_names[a]));
      gtk_box_append (GTK_BOX (row), self->sliders[a]);
      gtk_box_append (GTK_BOX (self->slider_box), row);
    }
  gtk_widget_set_visible (self->slider_box, FALSE);
  gtk_box_append (GTK_BOX (side), self->slider_box);

  self->cancel_button = gtk_button_new_with_mnemonic (_("_Cancel"));
  gtk_widget_set_sensitive (self->cancel_button, FALSE);
  g_signal_connect_swapped (self->cancel_button, "clicked", G_CALLBACK (g_cancellable_cancel), self->cancellable);
  gtk_box_append (GTK_BOX (side), self->cancel_button);
  self->ls_button = gtk_button_new_with_mnemonic (_("_Least squares"));
  gtk_widget_set_tooltip_text (self->ls_button, _("Conjugate gradients through Q (F^H W F as a convolution), "
                                                  "starting from zero, a few iterations"));
  gtk_widget_set_sensitive (self->ls_button, FALSE);
  g_signal_connect_swapped (self->ls_button, "clicked", G_CALLBACK (ls_clicked), self);
  gtk_box_append (GTK_BOX (side), self->ls_button);
  gtk_box_append (GTK_BOX (side), self->residual_label);
  gtk_box_append (GTK_BOX (root), side);
  gtk_window_set_child (GTK_WINDOW (self), root);
}

/* Stops the workers: they stop after the block or iteration in progress, and hold nothing back. */
static void
stop_workers (EfMriWindow *self)
{
  g_mutex_lock (&self->hold_lock);
  g_cancellable_cancel (self->cancellable);
  if (self->ls_cancellable != NULL)
    g_cancellable_cancel (self->ls_cancellable);
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->hold_lock);
}

/* gtk_window_destroy unrealizes the window but leaves dispose to the last reference, which a running
 * worker's task holds: so the workers are told here to stop. */
static void
ef_mri_window_unrealize (GtkWidget *widget)
{
  stop_workers (EF_MRI_WINDOW (widget));
  GTK_WIDGET_CLASS (ef_mri_window_parent_class)->unrealize (widget);
}

static void
ef_mri_window_dispose (GObject *object)
{
  EfMriWindow *self = EF_MRI_WINDOW (object);

  self->disposed = TRUE;
  stop_workers (self);
  G_OBJECT_CLASS (ef_mri_window_parent_class)->dispose (object);
}

static void
ef_mri_window_finalize (GObject *object)
{
  EfMriWindow *self = EF_MRI_WINDOW (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->ls_cancellable);
  ef_mri_run_clear (&self->run);
  g_mutex_clear (&self->pub_lock);
  g_mutex_clear (&self->hold_lock);
  g_cond_clear (&self->hold_cond);
  ef_mri_prepared_unref (self->prep);
  g_free (self->coil_images);
  g_free (self->image);
  g_free (self->error);
  g_free (self->fhd_line);
  G_OBJECT_CLASS (ef_mri_window_parent_class)->finalize (object);
}

static void
ef_mri_window_class_init (EfMriWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ef_mri_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = ef_mri_window_finalize;
  GTK_WIDGET_CLASS (klass)->unrealize = ef_mri_window_unrealize;
}

EfMriWindow *
ef_mri_window_new (GtkApplication *app)
{
  return g_object_new (EF_TYPE_MRI_WINDOW, "application", app, NULL);
}

gboolean
ef_mri_window_accepts (const char *path)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  lower = g_ascii_strdown (path, -1);
  return g_str_has_suffix (lower, ".h5") || g_str_has_suffix (lower, ".mrd") || g_str_has_suffix (lower, ".ismrmrd");
}

