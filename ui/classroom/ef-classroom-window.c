/* ef-classroom-window.c: the classroom: a SAR image focusing pulse by pulse, with the theory beside it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-classroom"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ef-classroom-window-private.h"
#include "ef-error.h"
#include "ef-session.h"

G_DEFINE_FINAL_TYPE (EfClassroomWindow, ef_classroom_window, ADW_TYPE_WINDOW)

#define BLOCK_PULSES 16
#define DEMO_EDGE 256

/* ---- the worker: simulates (for the demo) and forms the stack ---- */

typedef struct {
  EfDataset    *ds;          /* owned, or NULL for the demo */
  EfGrid        grid;
  EfTeachStack *stack;       /* owned, the result */
  float        *history;     /* owned, the result */
  double        ser_db;      /* the interpolation error about the scene's reference point, or NAN */
  GWeakRef      window;
  guint         done, total; /* progress, read on the main thread */
} OpenData;

static void
open_data_free (OpenData *d)
{
  g_clear_pointer (&d->ds, ef_dataset_unref);
  g_clear_pointer (&d->stack, ef_teach_stack_free);
  g_free (d->history);
  g_weak_ref_clear (&d->window);
  g_free (d);
}

static void
progress_cb (guint done, guint total, gpointer user_data)
{
  OpenData *d = user_data;

  g_atomic_int_set (&d->done, done);
  g_atomic_int_set (&d->total, total);
}

static void
open_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancel)
{
  OpenData *d = task_data;
  EfTeachStackParams p = { 0 };
  GError *error = NULL;

  if (d->ds == NULL)
    {
      d->ds = ef_teach_classroom_new (0, &error);
      if (d->ds == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
    }
  /* The collection is read from the main thread and from the what-if formations' thread. */
  {
    EfDataset *serial = ef_teach_dataset_serialized (d->ds);

    ef_dataset_unref (d->ds);
    d->ds = serial;
  }
  p.grid = d->grid;
  p.block_pulses = BLOCK_PULSES;
  p.n_bands = d->ds->info.domain == EF_DOMAIN_FX ? MIN (4u, (guint) d->ds->info.n_samples) : 1;
  d->stack = ef_teach_stack_new (d->ds, &p, progress_cb, d, cancel, &error);
  if (d->stack == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* The interpolation error of the stack as opened, about the scene's reference point when the region
   * holds it (ef_classroom_whatif_opened selects the same point). */
  d->ser_db = NAN;
  {
    double origin[3] = { 0, 0, 0 }, col, row;
    EfTeachFormOptions o = { EF_WINDOW_RECT, EF_TEACH_INTERP_LINEAR, 16 };

    ef_grid_position_to_pixel (&d->grid, origin, &col, &row);
    if (d->ds->info.domain == EF_DOMAIN_FX && col >= 0 && row >= 0 && col <= d->grid.width - 1
        && row <= d->grid.height - 1)
      d->ser_db = ef_teach_interp_ser_db (d->ds, &d->grid, (guint) llround (col), (guint) llround (row), 16, 0,
                                          d->ds->info.n_pulses, 0, (guint) d->ds->info.n_samples, &o, NULL);
  }
  d->history = ef_teach_phase_history (d->ds, EF_CLASSROOM_HISTORY_EDGE, EF_CLASSROOM_HISTORY_EDGE, &error);
  if (d->history == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* ---- the state shown ---- */

static void
set_scale (GtkRange *r, double lo, double hi, double value)
{
  gtk_range_set_range (r, lo, MAX (hi, lo + 1e-9));
  gtk_range_set_value (r, value);
}

static void
update_labels (EfClassroomWindow *self)
{
  const EfTeachTheory *t = &self->theory;
  g_autofree char *pulse = NULL, *ap = NULL, *band = NULL, *st = NULL;

  pulse = g_strdup_printf (_("Pulse %" G_GUINT64_FORMAT " of 0–%" G_GUINT64_FORMAT), self->current, self->n_pulses - 1);
  if (t->n_pulses > 1)
    ap = g_strdup_printf (_("Aperture: %" G_GUINT64_FORMAT " pulses, Δθ = %.3f°\n"
                            "Cross-range resolution λ/(2Δθ) = %.3f m"),
                          t->n_pulses, t->dtheta * 180 / G_PI, t->cross_res);
  else
    ap = g_strdup (_("Aperture: one pulse, Δθ = 0\nNo cross-range resolution: one pulse images its whole range ring"));
  band = g_strdup_printf (_("Band: %.1f MHz about %.3f GHz\n"
                            "Range resolution c/(2B) = %.3f m (%.3f m on the ground)"),
                          t->bandwidth / 1e6, t->fc / 1e9, t->range_res, t->range_res_ground);
  st = g_strdup_printf (_("%u blocks of %u pulses × %u sub-bands: %.1f MiB of sums"),
                        ef_teach_stack_n_blocks (self->stack_data), self->block,
                        ef_teach_stack_n_bands (self->stack_data), ef_teach_stack_bytes (self->stack_data) / 1048576.0);
  gtk_label_set_text (GTK_LABEL (self->pulse_label), pulse);
  gtk_label_set_text (GTK_LABEL (self->aperture_label), ap);
  gtk_label_set_text (GTK_LABEL (self->band_label), band);
  gtk_label_set_text (GTK_LABEL (self->stack_label), st);
}

void
ef_classroom_window_refresh (EfClassroomWindow *self, gboolean pulse_changed)
{
  guint k0, n0, k1, n1;
  guint64 p0, p1;

  if (!self->ready)
    return;
  self->change_us = g_get_monotonic_time ();
  ef_classroom_views_update_image (self);
  p0 = self->shown_p0;
  p1 = self->shown_p1;
  ef_teach_stack_band_range (self->stack_data, self->band_lo, &k0, &n0);
  ef_teach_stack_band_range (self->stack_data, self->band_hi, &k1, &n1);
  ef_teach_theory (self->ds, p0, p1, k0, k1 + n1 - 1, &self->theory);
  ef_teach_kspace (self->ds, p0, p1, k0, k1 + n1 - 1, &self->ks_sel);
  if (pulse_changed)
    ef_classroom_views_update_pulse (self);
  update_labels (self);
  ef_classroom_whatif_update (self);
  self->updating++;
  gtk_range_set_value (self->timeline, (double) self->current);
  ef_range_slider_set_values (self->aperture_slider, (double) self->first, (double) self->last);
  ef_range_slider_set_values (self->band_slider, self->band_lo, self->band_hi);
  self->updating--;
  for (guint v = 0; v < EF_CLASSROOM_N_VIEWS; v++)
    gtk_widget_queue_draw (self->views[v]);
}

static void
set_current (EfClassroomWindow *self, gint64 p)
{
  guint64 c = (guint64) CLAMP (p, 0, (gint64) self->n_pulses - 1);
  gboolean changed = c != self->current;

  self->current = c;
  if (changed)
    ef_classroom_window_refresh (self, TRUE);
}

static void
timeline_changed (GtkRange *r, EfClassroomWindow *self)
{
  if (self->updating)
    return;
  set_current (self, (gint64) llround (gtk_range_get_value (r)));
}

static void
window_changed (EfRangeSlider *slider, EfClassroomWindow *self)
{
  double a0, a1, s0, s1;
  guint64 first, last;

  if (self->updating || !self->ready)
    return;
  ef_range_slider_get_values (self->aperture_slider, &a0, &a1);
  ef_range_slider_get_values (self->band_slider, &s0, &s1);
  first = (guint64) llround (a0);
  last = (guint64) llround (a1);
  /* The aperture's ends snap to whole blocks, so that a window of the sums is all a move costs; the
   * timeline still steps a pulse at a time inside it. */
  {
    guint64 bp = self->block, nb = (self->n_pulses + bp - 1) / bp;
    guint64 bf = MIN ((first + bp / 2) / bp, nb - 1), bl = CLAMP ((last + 1 + bp / 2) / bp, bf + 1, nb);

    first = bf * bp;
    last = MIN (bl * bp, self->n_pulses) - 1;
  }
  self->first = first;
  self->last = last;
  self->band_lo = (guint) llround (s0);
  self->band_hi = (guint) llround (MAX (s0, s1));
  /* Moving the aperture shows the whole aperture: the timeline goes to its end. */
  if (slider == self->aperture_slider)
    self->current = last;
  else
    self->current = CLAMP (self->current, first, last);
  ef_classroom_window_refresh (self, TRUE);
}

void
ef_classroom_window_set_windows (EfClassroomWindow *self, guint64 first, guint64 last, guint band_lo, guint band_hi,
                                 guint64 current)
{
  guint nb;

  if (!self->ready)
    return;
  nb = ef_teach_stack_n_bands (self->stack_data);
  self->last = MIN (last, self->n_pulses - 1);
  self->first = MIN (first, self->last);
  self->band_hi = MIN (band_hi, nb - 1);
  self->band_lo = MIN (band_lo, self->band_hi);
  self->current = CLAMP (current, self->first, self->last);
  ef_classroom_window_refresh (self, TRUE);
}

/* ---- playing ---- */

static gboolean
tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  EfClassroomWindow *self = EF_CLASSROOM_WINDOW (widget);
  gint64 now = gdk_frame_clock_get_frame_time (clock);
  double rate = gtk_spin_button_get_value (self->rate_spin);
  guint64 step;

  if (self->tick_us == 0)
    self->tick_us = now;
  /* A frame clock that was idle may report an old first time; a long frame never jumps far. */
  self->carry += rate * CLAMP (now - self->tick_us, 0, 100000) / 1e6;
  self->tick_us = now;
  step = (guint64) floor (self->carry);
  if (step == 0)
    return G_SOURCE_CONTINUE;
  self->carry -= (double) step;
  if (self->current + step >= self->last)
    {
      set_current (self, (gint64) self->last);
      ef_classroom_window_set_playing (self, FALSE);
      return G_SOURCE_REMOVE;
    }
  set_current (self, (gint64) (self->current + step));
  return G_SOURCE_CONTINUE;
}

void
ef_classroom_window_set_playing (EfClassroomWindow *self, gboolean playing)
{
  if (!self->ready || playing == self->playing)
    return;
  self->playing = playing;
  if (playing)
    {
      /* From the aperture's start when there is nothing left to play. */
      if (self->current >= self->last)
        set_current (self, (gint64) self->first);
      self->tick_us = 0;
      self->carry = 0;
      self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), tick, NULL, NULL);
    }
  else if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  gtk_button_set_icon_name (GTK_BUTTON (self->play_button),
                            playing ? "media-playback-pause-symbolic" : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (self->play_button, playing ? _("Pause (Space)") : _("Play (Space)"));
}

static void
play_clicked (GtkButton *button, EfClassroomWindow *self)
{
  ef_classroom_window_set_playing (self, !self->playing);
}

gboolean
ef_classroom_window_key (EfClassroomWindow *self, guint keyval, GdkModifierType state)
{
  if (keyval == GDK_KEY_F11)
    {
      if (gtk_window_is_fullscreen (GTK_WINDOW (self)))
        gtk_window_unfullscreen (GTK_WINDOW (self));
      else
        gtk_window_fullscreen (GTK_WINDOW (self));
      return TRUE;
    }
  /* The presenter's text size. */
  if (state & GDK_CONTROL_MASK)
    switch (keyval)
      {
      case GDK_KEY_plus:
      case GDK_KEY_equal:
      case GDK_KEY_KP_Add:
        ef_classroom_whatif_set_text_scale (self, self->text_scale + 0.25);
        return TRUE;
      case GDK_KEY_minus:
      case GDK_KEY_KP_Subtract:
        ef_classroom_whatif_set_text_scale (self, self->text_scale - 0.25);
        return TRUE;
      case GDK_KEY_0:
      case GDK_KEY_KP_0:
        ef_classroom_whatif_set_text_scale (self, 1);
        return TRUE;
      default:
        break;
      }
  if (!self->ready)
    return FALSE;
  /* A focused slider or entry keeps its own keys; the timeline's are the window's. */
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

    for (GtkWidget *f = focus; f != NULL; f = gtk_widget_get_parent (f))
      if ((GTK_IS_RANGE (f) && f != GTK_WIDGET (self->timeline)) || GTK_IS_EDITABLE (f) || EF_IS_RANGE_SLIDER (f))
        return FALSE;
  }
  switch (keyval)
    {
    case GDK_KEY_space:
      ef_classroom_window_set_playing (self, !self->playing);
      return TRUE;
    case GDK_KEY_Right:
      set_current (self, (gint64) self->current + 1);
      return TRUE;
    case GDK_KEY_Left:
      set_current (self, (gint64) self->current - 1);
      return TRUE;
    case GDK_KEY_Up:
    case GDK_KEY_Page_Up:
      set_current (self, (gint64) self->current + self->block);
      return TRUE;
    case GDK_KEY_Down:
    case GDK_KEY_Page_Down:
      set_current (self, (gint64) self->current - self->block);
      return TRUE;
    case GDK_KEY_Home:
      set_current (self, (gint64) self->first);
      return TRUE;
    case GDK_KEY_End:
      set_current (self, (gint64) self->last);
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
             EfClassroomWindow *self)
{
  return ef_classroom_window_key (self, keyval, state);
}

/* ---- opening ---- */

static gboolean
poll_progress (gpointer user_data)
{
  GTask *task = user_data;
  OpenData *d = g_task_get_task_data (task);
  g_autoptr (EfClassroomWindow) self = g_weak_ref_get (&d->window);
  guint done = g_atomic_int_get (&d->done), total = g_atomic_int_get (&d->total);

  if (self == NULL || g_task_get_completed (task))
    return G_SOURCE_REMOVE;
  if (total > 0)
    {
      g_autofree char *t = g_strdup_printf (_("Forming block %u of %u…"), done, total);

      gtk_label_set_text (GTK_LABEL (self->loading_label), t);
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), (double) done / total);
    }
  return G_SOURCE_CONTINUE;
}

static void
open_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  OpenData *d = g_task_get_task_data (G_TASK (res));
  g_autoptr (EfClassroomWindow) self = g_weak_ref_get (&d->window);
  g_autoptr (GError) error = NULL;
  const EfGrid *g;

  if (!g_task_propagate_boolean (G_TASK (res), &error))
    {
      if (self != NULL && !g_error_matches (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED))
        gtk_label_set_text (GTK_LABEL (self->loading_label), error->message);
      return;
    }
  if (self == NULL)
    return;
  self->ds = g_steal_pointer (&d->ds);
  ef_classroom_whatif_opened (self, g_steal_pointer (&d->stack), d->ser_db);
  self->history = g_steal_pointer (&d->history);
  g = ef_teach_stack_grid (self->stack_data);
  self->image = g_new0 (EfCf32, ef_grid_n_pixels (g));
  self->n_pulses = self->ds->info.n_pulses;
  self->block = ef_teach_stack_block_pulses (self->stack_data);
  self->first = 0;
  self->last = self->n_pulses - 1;
  self->current = self->last;
  self->band_lo = 0;
  self->band_hi = ef_teach_stack_n_bands (self->stack_data) - 1;
  ef_teach_kspace (self->ds, 0, self->last, 0, (guint) self->ds->info.n_samples - 1, &self->ks_all);
  ef_classroom_views_update_history (self);
  ef_classroom_whatif_load_bookmarks (self);
  self->updating++;
  set_scale (self->timeline, 0, (double) self->last, (double) self->current);
  gtk_range_set_increments (self->timeline, 1, self->block);
  ef_range_slider_set_range (self->aperture_slider, 0, (double) self->last, self->block);
  ef_range_slider_set_hi_offset (self->aperture_slider, self->block - 1);
  ef_range_slider_set_values (self->aperture_slider, 0, (double) self->last);
  ef_range_slider_set_range (self->band_slider, 0, self->band_hi, 1);
  ef_range_slider_set_values (self->band_slider, 0, self->band_hi);
  gtk_widget_set_sensitive (GTK_WIDGET (self->band_slider), self->band_hi > 0);
  self->updating--;
  self->ready = TRUE;
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "lesson");
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
  ef_classroom_window_refresh (self, TRUE);
}

static void
start_open (EfClassroomWindow *self, EfDataset *ds, const EfGrid *grid)
{
  g_autoptr (GTask) task = NULL;
  OpenData *d = g_new0 (OpenData, 1);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  ef_classroom_window_set_playing (self, FALSE);
  self->ready = FALSE;
  ef_classroom_whatif_clear (self);
  g_clear_pointer (&self->ds, ef_dataset_unref);
  g_clear_pointer (&self->image, g_free);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_pointer (&self->history, g_free);
  g_clear_pointer (&self->profile, g_free);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "loading");
  gtk_label_set_text (GTK_LABEL (self->loading_label), ds == NULL ? _("Simulating the classroom scene…")
                                                                  : _("Forming the aperture stack…"));
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);

  d->ds = ds != NULL ? ef_dataset_ref (ds) : NULL;
  g_free (self->bookmark_key);
  self->bookmark_key = ds != NULL ? ef_session_key_for_path (ds->info.path) : g_strdup ("classroom-scene");
  if (grid != NULL)
    d->grid = *grid;
  else
    ef_teach_classroom_grid (&d->grid, DEMO_EDGE);
  g_weak_ref_init (&d->window, self);
  task = g_task_new (NULL, self->cancellable, open_done, NULL);
  g_task_set_task_data (task, d, (GDestroyNotify) open_data_free);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 100, poll_progress, g_object_ref (task), g_object_unref);
  g_task_run_in_thread (task, open_thread);
}

void
ef_classroom_window_open_demo (EfClassroomWindow *self)
{
  g_return_if_fail (EF_IS_CLASSROOM_WINDOW (self));
  start_open (self, NULL, NULL);
}

void
ef_classroom_window_open_dataset (EfClassroomWindow *self, EfDataset *ds, const EfGrid *grid)
{
  g_return_if_fail (EF_IS_CLASSROOM_WINDOW (self) && ds != NULL && grid != NULL);
  start_open (self, ds, grid);
}

/* ---- construction ---- */

static GtkRange *
labelled_scale (GtkWidget *grid, int row, const char *text, const char *tooltip, EfClassroomWindow *self,
                GCallback cb)
{
  GtkWidget *label = gtk_label_new (text);
  GtkWidget *scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1);

  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_scale_set_digits (GTK_SCALE (scale), 0);
  gtk_scale_set_draw_value (GTK_SCALE (scale), TRUE);
  gtk_scale_set_value_pos (GTK_SCALE (scale), GTK_POS_RIGHT);
  gtk_widget_set_hexpand (scale, TRUE);
  gtk_widget_set_tooltip_text (scale, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (scale), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
  gtk_grid_attach (GTK_GRID (grid), label, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), scale, 1, row, 1, 1);
  g_signal_connect (scale, "value-changed", cb, self);
  return GTK_RANGE (scale);
}

static EfRangeSlider *
labelled_range (GtkWidget *grid, int row, const char *text, const char *tooltip, EfClassroomWindow *self)
{
  GtkWidget *label = gtk_label_new (text);
  GtkWidget *slider = ef_range_slider_new ();

  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_set_tooltip_text (slider, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (slider), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
  gtk_grid_attach (GTK_GRID (grid), label, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), slider, 1, row, 1, 1);
  g_signal_connect (slider, "changed", G_CALLBACK (window_changed), self);
  return EF_RANGE_SLIDER (slider);
}

static GtkWidget *
view_area (EfClassroomWindow *self, EfClassroomView v, int w, int h)
{
  GtkWidget *area = gtk_drawing_area_new ();

  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (area), w);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), h);
  g_object_set_data (G_OBJECT (area), "ef-view", GUINT_TO_POINTER (v));
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), ef_classroom_views_draw, self, NULL);
  self->views[v] = area;
  return area;
}

static GtkWidget *
theory_label (void)
{
  GtkWidget *l = gtk_label_new ("");

  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  return l;
}

static void
ef_classroom_window_init (EfClassroomWindow *self)
{
  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *loading = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *lesson = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *side = gtk_grid_new ();
  GtkWidget *theory = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *controls = gtk_grid_new ();
  GtkWidget *play_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *fullscreen = gtk_button_new_from_icon_name ("view-fullscreen-symbolic");
  GtkEventController *keys = gtk_event_controller_key_new ();
  GtkWidget *image_frame, *whatif;

  self->cancellable = g_cancellable_new ();

  /* While the stack forms. */
  self->loading_label = gtk_label_new ("");
  self->progress = gtk_progress_bar_new ();
  gtk_widget_set_valign (loading, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (loading, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (self->progress, 320, -1);
  gtk_box_append (GTK_BOX (loading), self->loading_label);
  gtk_box_append (GTK_BOX (loading), self->progress);

  /* The image, and the small views beside it. */
  image_frame = ef_classroom_views_frame (
    view_area (self, EF_CLASSROOM_IMAGE, 480, 480), _("Image"),
    _("The region formed from the pulses and the band selected. Each pulse alone smears every echo along an arc of "
      "constant range (orange); summed over the aperture, the arcs cross at the targets and the rest cancels."),
    _("I(x) = Σ_p g_p(|a_p − x| − r0_p) · exp(+j4πf0·ΔR/c)"));
  gtk_widget_set_hexpand (image_frame, TRUE);
  gtk_grid_set_row_spacing (GTK_GRID (side), 6);
  gtk_grid_set_column_spacing (GTK_GRID (side), 6);
  gtk_grid_attach (GTK_GRID (side), ef_classroom_views_frame (
    view_area (self, EF_CLASSROOM_GEOMETRY, 220, 160), _("Geometry"),
    _("The flight path from above, north up as in the image. The aperture in use is blue; the antenna at the "
      "current pulse looks at the scene along the orange line of sight."),
    _("Δθ = angle swept by the line of sight")), 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (side), ef_classroom_views_frame (
    view_area (self, EF_CLASSROOM_PROFILE, 220, 160), _("Range profile"),
    _("The current pulse after range compression: one peak per echo, as wide as the band allows. The shaded part "
      "is the region; each peak there becomes one arc on the image."),
    _("δr = c / (2B)")), 1, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (side), ef_classroom_views_frame (
    view_area (self, EF_CLASSROOM_HISTORY, 220, 160), _("Phase history"),
    _("The recorded samples, pulses downwards and frequency across (magnitude). The blue box is the part "
      "formed: its height is the aperture, its width the band."),
    _("d(p, f) = Σ_t s_t · exp(−j4πf·ΔR_t,p / c)")), 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (side), ef_classroom_views_frame (
    view_area (self, EF_CLASSROOM_KSPACE, 220, 160), _("k-space"),
    _("Each sample measures one spatial frequency of the scene, 2f/c along the line of sight. The image is the "
      "Fourier transform of the blue part: its depth sets range resolution, its angle cross-range resolution."),
    _("k = 2f/c, angle = look angle; δx = 1/Δk")), 1, 1, 1, 1);

  self->pulse_label = theory_label ();
  self->aperture_label = theory_label ();
  self->band_label = theory_label ();
  self->stack_label = theory_label ();
  gtk_widget_add_css_class (self->pulse_label, "heading");
  gtk_widget_add_css_class (self->stack_label, "dim-label");
  gtk_box_append (GTK_BOX (theory), self->pulse_label);
  gtk_box_append (GTK_BOX (theory), self->aperture_label);
  gtk_box_append (GTK_BOX (theory), self->band_label);
  gtk_box_append (GTK_BOX (theory), self->stack_label);
  whatif = ef_classroom_whatif_build (self);
  gtk_box_append (GTK_BOX (theory), self->measure_label);
  gtk_grid_attach (GTK_GRID (side), theory, 0, 2, 2, 1);
  gtk_box_append (GTK_BOX (top), image_frame);
  gtk_box_append (GTK_BOX (top), side);
  gtk_widget_set_vexpand (top, TRUE);

  /* The timeline and the windows. */
  self->play_button = gtk_button_new_from_icon_name ("media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (self->play_button, _("Play (Space)"));
  g_signal_connect (self->play_button, "clicked", G_CALLBACK (play_clicked), self);
  self->rate_spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (1, 2000, 1));
  gtk_spin_button_set_value (self->rate_spin, 64);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->rate_spin), _("Pulses a second while playing"));
  gtk_box_append (GTK_BOX (play_row), self->play_button);
  gtk_box_append (GTK_BOX (play_row), GTK_WIDGET (self->rate_spin));
  gtk_box_append (GTK_BOX (play_row), gtk_label_new (_("pulses/s")));
  gtk_grid_set_column_spacing (GTK_GRID (controls), 8);
  gtk_grid_set_row_spacing (GTK_GRID (controls), 6);
  gtk_grid_attach (GTK_GRID (controls), play_row, 0, 0, 2, 1);
  self->timeline = labelled_scale (controls, 1, _("Pulse"),
                                   _("The current pulse: ←/→ one pulse, ↑/↓ one block, Home/End"), self,
                                   G_CALLBACK (timeline_changed));
  self->aperture_slider = labelled_range (controls, 2, _("Aperture"),
                                          _("The first and last pulses formed, in whole blocks (Tab: the other "
                                            "handle)"), self);
  self->band_slider = labelled_range (controls, 3, _("Band"),
                                      _("The first and last sub-bands formed (Tab: the other handle)"), self);

  gtk_widget_set_margin_start (lesson, 12);
  gtk_widget_set_margin_end (lesson, 12);
  gtk_widget_set_margin_bottom (lesson, 12);
  gtk_box_append (GTK_BOX (lesson), top);
  gtk_box_append (GTK_BOX (lesson), controls);
  gtk_box_append (GTK_BOX (lesson), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (lesson), whatif);

  self->stack = gtk_stack_new ();
  gtk_stack_add_named (GTK_STACK (self->stack), loading, "loading");
  /* Scrolled when large text makes the lesson taller than the screen, so that the window still fits. */
  {
    GtkWidget *scroll = gtk_scrolled_window_new ();

    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), lesson);
    gtk_stack_add_named (GTK_STACK (self->stack), scroll, "lesson");
  }
  gtk_widget_set_vexpand (self->stack, TRUE);

  gtk_widget_set_tooltip_text (fullscreen, _("Full screen (F11)"));
  g_signal_connect_swapped (fullscreen, "clicked", G_CALLBACK (gtk_window_fullscreen), self);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), fullscreen);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), self->presenter_button);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), self->forming_label);
  gtk_box_append (GTK_BOX (outer), header);
  gtk_box_append (GTK_BOX (outer), self->stack);
  adw_window_set_content (ADW_WINDOW (self), outer);
  gtk_window_set_title (GTK_WINDOW (self), _("Classroom"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1400, 960);

  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed), self);
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

static void
ef_classroom_window_dispose (GObject *object)
{
  EfClassroomWindow *self = EF_CLASSROOM_WINDOW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->whatif_cancel != NULL)
    g_cancellable_cancel (self->whatif_cancel);
  if (self->whatif_source != 0)
    g_source_remove (self->whatif_source);
  self->whatif_source = 0;
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  G_OBJECT_CLASS (ef_classroom_window_parent_class)->dispose (object);
}

static void
ef_classroom_window_finalize (GObject *object)
{
  EfClassroomWindow *self = EF_CLASSROOM_WINDOW (object);

  g_clear_object (&self->cancellable);
  ef_classroom_whatif_clear (self);
  g_clear_pointer (&self->bookmarks, g_array_unref);
  g_free (self->bookmark_key);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->ds, ef_dataset_unref);
  g_free (self->image);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_pointer (&self->history_surface, cairo_surface_destroy);
  g_free (self->history);
  g_free (self->profile);
  G_OBJECT_CLASS (ef_classroom_window_parent_class)->finalize (object);
}

static void
ef_classroom_window_class_init (EfClassroomWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ef_classroom_window_dispose;
  object_class->finalize = ef_classroom_window_finalize;
}

EfClassroomWindow *
ef_classroom_window_new (GtkWindow *parent)
{
  EfClassroomWindow *self = g_object_new (EF_TYPE_CLASSROOM_WINDOW, NULL);

  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (self), parent);
      gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
    }
  return self;
}
