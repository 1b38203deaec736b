/* ef-main-window-focus.c: autofocus of the region (PGA or sharpness), its re-formed image and the phase plotted. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ef-focus.h"
#include "ef-main-window-focus.h"
#include "ef-main-window-private.h"

/* What the window keeps of its autofocus, as object data: the collection as opened, and the corrected
 * one that stands in its place while the correction is applied. */
typedef struct {
  EfDataset    *original;    /* owned, or NULL when no correction is applied */
  EfDataset    *corrected;   /* borrowed: self->dataset while the correction is applied */
  GCancellable *cancellable; /* owned: the estimate in flight, or NULL */
  double       *phase;       /* owned: the last estimate, n_phase values */
  guint64       n_phase;
  guint64       first, n_used;
  EfFocusMethod method;      /* of the estimate, and its measures */
  double        entropy_before, entropy_after, sharpness_before, sharpness_after;
  char         *backend;     /* owned: where the estimate's images were formed ("cpu", "cuda") */
  guint         n_devices;
  char         *backend_note; /* owned, may be NULL: why that is not the backend the region forms with */
  GtkWidget    *plot_window; /* borrowed; cleared when it is destroyed */
} FocusState;

typedef struct {
  EfDataset     *dataset;   /* owned reference */
  EfFocusParams  params;
  EfFocusResult  result;
} FocusData;

static void
focus_state_free (gpointer data)
{
  FocusState *st = data;

  if (st->cancellable != NULL)
    g_cancellable_cancel (st->cancellable);
  g_clear_object (&st->cancellable);
  g_clear_pointer (&st->original, ef_dataset_unref);
  g_free (st->phase);
  g_free (st->backend);
  g_free (st->backend_note);
  if (st->plot_window != NULL)
    gtk_window_destroy (GTK_WINDOW (st->plot_window));
  g_free (st);
}

static FocusState *
get_state (EfMainWindow *self)
{
  FocusState *st = g_object_get_data (G_OBJECT (self), "ef-focus-state");

  if (st == NULL)
    {
      st = g_new0 (FocusState, 1);
      g_object_set_data_full (G_OBJECT (self), "ef-focus-state", st, focus_state_free);
    }
  /* Another collection opened since: the correction belonged to the one before. */
  if (st->original != NULL && self->dataset != st->corrected)
    {
      g_clear_pointer (&st->original, ef_dataset_unref);
      st->corrected = NULL;
    }
  return st;
}

static void
focus_data_free (gpointer data)
{
  FocusData *d = data;

  g_clear_pointer (&d->dataset, ef_dataset_unref);
  ef_focus_result_clear (&d->result);
  g_free (d);
}

static void
focus_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  FocusData *d = task_data;
  GError *error = NULL;

  if (ef_focus_run (d->dataset, &d->params, &d->result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The estimated phase against the pulse, drawn with cairo: the correction each pulse is formed with. */
static void
draw_phase (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  FocusState *st = user_data;
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, ml = 48, mr = 12, mt = 12, mb = 32, pw, ph;
  char text[64];

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (st->phase == NULL || st->n_used < 2)
    return;
  for (guint64 i = 0; i < st->n_used; i++)
    {
      lo = MIN (lo, st->phase[st->first + i]);
      hi = MAX (hi, st->phase[st->first + i]);
    }
  if (!(hi - lo > 1e-6))
    {
      lo -= 0.5;
      hi += 0.5;
    }
  pw = width - ml - mr;
  ph = height - mt - mb;
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, ml, mt, pw, ph);
  cairo_stroke (cr);
  cairo_set_font_size (cr, 11);
  g_snprintf (text, sizeof text, "%.2f", hi);
  cairo_move_to (cr, 4, mt + 10);
  cairo_show_text (cr, text);
  g_snprintf (text, sizeof text, "%.2f", lo);
  cairo_move_to (cr, 4, mt + ph);
  cairo_show_text (cr, text);
  cairo_move_to (cr, 4, mt + ph / 2);
  cairo_show_text (cr, _("rad"));
  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, st->first);
  cairo_move_to (cr, ml, height - 10);
  cairo_show_text (cr, text);
  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, st->first + st->n_used - 1);
  cairo_move_to (cr, ml + pw - 30, height - 10);
  cairo_show_text (cr, text);
  cairo_move_to (cr, ml + pw / 2 - 16, height - 10);
  cairo_show_text (cr, _("pulse"));

  cairo_set_source_rgb (cr, 0.1, 0.35, 0.75);
  cairo_set_line_width (cr, 1.5);
  for (guint64 i = 0; i < st->n_used; i++)
    {
      double x = ml + pw * (double) i / (double) (st->n_used - 1);
      double y = mt + ph * (hi - st->phase[st->first + i]) / (hi - lo);

      if (i == 0)
        cairo_move_to (cr, x, y);
      else
        cairo_line_to (cr, x, y);
    }
  cairo_stroke (cr);
}

static void
plot_destroyed (GtkWidget *widget, gpointer user_data)
{
  FocusState *st = user_data;

  if (st->plot_window == widget)
    st->plot_window = NULL;
}

static void
show_plot (EfMainWindow *self, FocusState *st, const char *title)
{
  GtkWidget *area;

  if (st->plot_window == NULL)
    {
      st->plot_window = gtk_window_new ();
      gtk_window_set_transient_for (GTK_WINDOW (st->plot_window), GTK_WINDOW (self));
      gtk_window_set_default_size (GTK_WINDOW (st->plot_window), 520, 260);
      area = gtk_drawing_area_new ();
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_phase, st, NULL);
      gtk_window_set_child (GTK_WINDOW (st->plot_window), area);
      g_signal_connect (st->plot_window, "destroy", G_CALLBACK (plot_destroyed), st);
    }
  gtk_window_set_title (GTK_WINDOW (st->plot_window), title);
  gtk_widget_queue_draw (gtk_window_get_child (GTK_WINDOW (st->plot_window)));
  gtk_window_present (GTK_WINDOW (st->plot_window));
}

static void
focus_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (source);
  GTask *task = G_TASK (result);
  FocusData *d = g_task_get_task_data (task);
  FocusState *st = get_state (self);
  g_autoptr (GError) error = NULL;
  g_autofree char *msg = NULL, *title = NULL;
  EfDataset *corrected;

  /* One that was replaced by a newer estimate, or stopped with its window, says nothing. */
  if (g_task_get_cancellable (task) != st->cancellable || g_cancellable_is_cancelled (st->cancellable))
    return;
  g_clear_object (&st->cancellable);
  if (!g_task_propagate_boolean (task, &error))
    {
      msg = g_strdup_printf (_("Autofocus failed: %s"), error->message);
      ef_main_window_toast_error (self, msg);
      return;
    }
  /* The estimate is of the collection as opened; it stands in for it until cleared. */
  if (self->dataset != d->dataset && self->dataset != st->corrected)
    return;
  corrected = ef_dataset_new_phase_corrected (d->dataset, d->result.phase, d->result.n_pulses, &error);
  if (corrected == NULL)
    {
      ef_main_window_toast_error (self, error->message);
      return;
    }
  if (st->original == NULL)
    st->original = g_steal_pointer (&self->dataset);
  else
    g_clear_pointer (&self->dataset, ef_dataset_unref);
  self->dataset = corrected;
  st->corrected = corrected;
  g_free (st->phase);
  st->phase = g_steal_pointer (&d->result.phase);
  st->n_phase = d->result.n_pulses;
  st->first = d->params.first_pulse;
  st->n_used = st->n_phase - st->first;
  st->method = d->params.method;
  st->entropy_before = d->result.entropy_before;
  st->entropy_after = d->result.entropy_after;
  st->sharpness_before = d->result.sharpness_before;
  st->sharpness_after = d->result.sharpness_after;
  g_free (st->backend);
  st->backend = g_steal_pointer (&d->result.backend);
  st->n_devices = d->result.n_devices;
  g_free (st->backend_note);
  st->backend_note = g_steal_pointer (&d->result.backend_note);
  if (st->backend_note != NULL)
    {
      /* Translators: "Autofocus (pga) on cpu: entropy 6.1 → 4.7, 3 iterations (No CUDA device; using the CPU)" */
      msg = g_strdup_printf (_("Autofocus (%s) on %s: entropy %.4f → %.4f, %u iterations (%s)"),
                             ef_focus_method_to_string (d->params.method), st->backend, d->result.entropy_before,
                             d->result.entropy_after, d->result.iterations, st->backend_note);
    }
  else
    msg = g_strdup_printf (_("Autofocus (%s) on %s: entropy %.4f → %.4f, %u iterations"),
                           ef_focus_method_to_string (d->params.method), st->backend, d->result.entropy_before,
                           d->result.entropy_after, d->result.iterations);
  ef_main_window_toast (self, msg);
  title = g_strdup_printf (_("Estimated phase error (%s)"), ef_focus_method_to_string (d->params.method));
  show_plot (self, st, title);
  ef_main_window_jobs_start_roi (self);
}

static void
autofocus_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  FocusState *st = get_state (self);
  g_autoptr (GTask) task = NULL;
  FocusData *d;
  EfFocusMethod method;

  if (!ef_focus_method_from_string (g_variant_get_string (param, NULL), &method) || method == EF_FOCUS_NONE)
    return;
  if (self->dataset == NULL || !self->has_roi)
    {
      ef_main_window_toast (self, _("Draw a region to autofocus first"));
      return;
    }
  if (st->cancellable != NULL)
    g_cancellable_cancel (st->cancellable);
  g_clear_object (&st->cancellable);
  st->cancellable = g_cancellable_new ();

  d = g_new0 (FocusData, 1);
  d->dataset = ef_dataset_ref (st->original != NULL ? st->original : self->dataset);
  ef_focus_params_init (&d->params, method);
  d->params.centre[0] = 0.5 * (self->roi[0] + self->roi[2]);
  d->params.centre[1] = 0.5 * (self->roi[1] + self->roi[3]);
  d->params.extent_m = MAX (self->roi[2] - self->roi[0], self->roi[3] - self->roi[1]);
  d->params.cancellable = st->cancellable;
  /* The estimate's images are formed where the region is (as `form --autofocus` does): the same backend,
   * devices, threads and range upsampling. CUDA asked for by name and no device falls back to the CPU
   * here with the backend's own message, shown and recorded, rather than failing as the region does. */
  {
    /* Only the processing choices are read: the grid is the estimator's own. */
    EfGrid grid = { .spacing = 1, .width = 1, .height = 1, .u = { 1, 0, 0 }, .v = { 0, 1, 0 } };
    EfJobParams jp;

    ef_processing_to_job_params (&self->proc, &grid, &jp);
    d->params.backend = jp.backend_kind == EF_BACKEND_CPU ? EF_BACKEND_CPU : EF_BACKEND_AUTO;
    d->params.device = jp.backend.device;
    d->params.n_devices = jp.backend.n_devices;
    d->params.n_threads = jp.backend.n_threads;
    d->params.upsample = jp.backend.range.upsample;
  }
  task = g_task_new (self, st->cancellable, focus_done, NULL);
  g_task_set_name (task, "ef-autofocus");
  g_task_set_task_data (task, d, focus_data_free);
  g_task_run_in_thread (task, focus_thread);
  ef_main_window_toast (self, _("Autofocus: estimating the phase errors…"));
}

static void
autofocus_clear_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  FocusState *st = get_state (self);

  if (st->original == NULL)
    return;
  g_clear_pointer (&self->dataset, ef_dataset_unref);
  self->dataset = g_steal_pointer (&st->original);
  st->corrected = NULL;
  if (st->plot_window != NULL)
    gtk_window_destroy (GTK_WINDOW (st->plot_window));
  ef_main_window_toast (self, _("Autofocus correction removed"));
  ef_main_window_jobs_start_roi (self);
}

static const GActionEntry focus_entries[] = {
  { "autofocus", autofocus_activated, "s" },
  { "autofocus-clear", autofocus_clear_activated },
};

void
ef_main_window_focus_init (EfMainWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), focus_entries, G_N_ELEMENTS (focus_entries), self);
}

gboolean
ef_main_window_focus_applied (EfMainWindow *self)
{
  FocusState *st = g_object_get_data (G_OBJECT (self), "ef-focus-state");

  return st != NULL && st->original != NULL && self->dataset == st->corrected;
}

const double *
ef_main_window_focus_phase (EfMainWindow *self, guint64 *n)
{
  FocusState *st = g_object_get_data (G_OBJECT (self), "ef-focus-state");

  *n = st != NULL ? st->n_phase : 0;
  return st != NULL ? st->phase : NULL;
}

void
ef_main_window_focus_record (EfMainWindow *self, EfDataset *dataset, EfRunInfo *run)
{
  FocusState *st = g_object_get_data (G_OBJECT (self), "ef-focus-state");

  if (st == NULL || st->original == NULL || dataset != st->corrected)
    return;
  g_free (run->autofocus);
  run->autofocus = g_strdup (ef_focus_method_to_string (st->method));
  run->autofocus_measured = TRUE;
  run->autofocus_entropy_before = st->entropy_before;
  run->autofocus_entropy_after = st->entropy_after;
  run->autofocus_sharpness_before = st->sharpness_before;
  run->autofocus_sharpness_after = st->sharpness_after;
  g_free (run->autofocus_backend);
  run->autofocus_backend = g_strdup (st->backend);
  run->autofocus_n_devices = st->n_devices;
  g_free (run->autofocus_backend_reason);
  run->autofocus_backend_reason = g_strdup (st->backend_note);
}

GtkWindow *
ef_main_window_focus_get_plot (EfMainWindow *self)
{
  FocusState *st = g_object_get_data (G_OBJECT (self), "ef-focus-state");

  return st != NULL && st->plot_window != NULL ? GTK_WINDOW (st->plot_window) : NULL;
}
