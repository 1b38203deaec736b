/* ef-stack-window.c: a window on a stack of repeat passes: mean amplitude, coherence, PS and their time series. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-stack-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-stack-window-private.h"
#include "ef-stack-truth.h"

G_DEFINE_FINAL_TYPE (EfStackWindow, ef_stack_window, GTK_TYPE_WINDOW)

void
ef_stack_analysis_free (EfStackAnalysis *an)
{
  if (an == NULL)
    return;
  g_free (an->amp_db);
  g_free (an->score);
  ef_ps_network_free (an->net);
  g_free (an->t_years);
  g_free (an->bperp);
  ef_repeat_truth_free (an->truth);
  ef_stack_ps_report_clear (&an->report);
  g_free (an);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfStackAnalysis, ef_stack_analysis_free)

/* ---- the worker: reads the stack a strip at a time, as echoform-cli ps does ---- */

static void
analyse (GTask *task, gpointer source, gpointer task_data, GCancellable *cancel)
{
  const char *dir = task_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfStack) stack = ef_stack_open (dir, &error);
  g_autoptr (EfStackAnalysis) an = NULL;
  g_autofree char *truth_path = NULL;
  const EfGrid *grid;
  EfPsParams pp;
  /* The accelerator where there is one: echoform-cli ps --backend auto. */
  EfStackPsOptions opt = { EF_BACKEND_AUTO, 0 };
  guint n;

  if (stack == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  grid = ef_stack_get_grid (stack);
  n = ef_stack_get_n_passes (stack);
  an = g_new0 (EfStackAnalysis, 1);
  an->width = grid->width;
  an->height = grid->height;
  an->n_passes = n;
  an->geometry = *ef_stack_get_geometry (stack);
  an->t_years = g_new (double, MAX (n, 1));
  an->bperp = g_new (double, MAX (n, 1));
  for (guint k = 0; k < n; k++)
    {
      an->t_years[k] = ef_stack_get_t_years (stack, k);
      an->bperp[k] = ef_stack_get_bperp (stack, k);
    }
  an->amp_db = g_try_new0 (float, (gsize) grid->width * grid->height);
  an->score = g_try_new0 (float, (gsize) grid->width * grid->height);
  if (an->amp_db == NULL || an->score == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NO_SPACE, _("Not enough memory for the stack"));
      return;
    }
  ef_ps_params_init (&pp);
  an->net = ef_stack_ps_run (stack, &pp, &opt, an->score, an->amp_db, cancel, &an->report, &error);
  if (an->net == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* The simulation's truth, when the stack has one beside it; a stack without is no error. */
  truth_path = g_build_filename (dir, "truth.json", NULL);
  if (g_file_test (truth_path, G_FILE_TEST_EXISTS))
    {
      an->truth = ef_repeat_truth_read_json (truth_path, NULL);
      if (an->truth != NULL && (an->truth->params.width != grid->width || an->truth->params.height != grid->height
                                || an->truth->params.n_passes != n))
        g_clear_pointer (&an->truth, ef_repeat_truth_free);
    }
  g_task_return_pointer (task, g_steal_pointer (&an), (GDestroyNotify) ef_stack_analysis_free);
}

/* ---- drawing ---- */

static cairo_surface_t *
layer_surface (const float *v, guint w, guint h, double lo, double hi, gboolean warm)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  guint8 *px = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);

  cairo_surface_flush (s);
  for (guint r = 0; r < h; r++)
    for (guint c = 0; c < w; c++)
      {
        double x = CLAMP ((v[(gsize) r * w + c] - lo) / MAX (hi - lo, 1e-12), 0, 1);
        guint32 rgb;

        if (warm)
          /* Coherence: dark blue through magenta to yellow, brighter where arcs hold. */
          rgb = (guint32) (255 * MIN (1, 1.6 * x)) << 16 | (guint32) (255 * x * x) << 8
                | (guint32) (255 * (0.35 + 0.3 * sin (G_PI * x)));
        else
          rgb = (guint32) (255 * x) * 0x010101u;
        *(guint32 *) (px + (gsize) r * stride + 4 * c) = rgb;
      }
  cairo_surface_mark_dirty (s);
  return s;
}

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

static void
build_layers (EfStackWindow *self)
{
  EfStackAnalysis *an = self->an;
  gsize n = (gsize) an->width * an->height;
  g_autofree float *sorted = g_memdup2 (an->amp_db, n * sizeof (float));

  qsort (sorted, n, sizeof (float), cmp_float);
  self->layers[0] = layer_surface (an->amp_db, an->width, an->height, sorted[(gsize) (0.02 * (n - 1))],
                                   sorted[(gsize) (0.995 * (n - 1))], FALSE);
  self->layers[1] = layer_surface (an->score, an->width, an->height, 0, 1, TRUE);
  self->vmax = 1e-4;
  for (guint i = 0; i < an->net->candidates->len; i++)
    {
      EfPsCandidate *c = &g_array_index (an->net->candidates, EfPsCandidate, i);
      if (c->connected)
        self->vmax = MAX (self->vmax, fabs (c->velocity));
    }
}

void
ef_stack_window_map_geometry (EfStackWindow *self, double *x0, double *y0, double *scale)
{
  double w = gtk_widget_get_width (self->map), h = gtk_widget_get_height (self->map);
  double s = 1;

  if (self->an != NULL)
    s = MIN (w / self->an->width, h / self->an->height);
  *scale = s;
  *x0 = self->an != NULL ? 0.5 * (w - s * self->an->width) : 0;
  *y0 = self->an != NULL ? 0.5 * (h - s * self->an->height) : 0;
}

/* Velocity: blue (away from the sensor) through white to red (towards it). */
static void
velocity_colour (double x, double *r, double *g, double *b)
{
  x = CLAMP (x, -1, 1);
  *r = x < 0 ? 1 + x : 1;
  *g = 1 - fabs (x);
  *b = x > 0 ? 1 - x : 1;
}

static void
draw_map (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  EfStackWindow *self = data;
  double x0, y0, s;

  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  cairo_paint (cr);
  if (self->an == NULL)
    return;
  ef_stack_window_map_geometry (self, &x0, &y0, &s);
  cairo_save (cr);
  cairo_translate (cr, x0, y0);
  cairo_scale (cr, s, s);
  cairo_set_source_surface (cr, self->layers[self->layer], 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
  for (guint i = 0; i < self->an->net->candidates->len; i++)
    {
      EfPsCandidate *c = &g_array_index (self->an->net->candidates, EfPsCandidate, i);
      double r, g, b, rad = MAX (2.5, 0.45 * s);

      cairo_arc (cr, x0 + (c->col + 0.5) * s, y0 + (c->row + 0.5) * s, rad, 0, 2 * G_PI);
      if (c->connected)
        velocity_colour (c->velocity / self->vmax, &r, &g, &b);
      else
        r = g = b = 0.5;
      cairo_set_source_rgb (cr, r, g, b);
      cairo_fill_preserve (cr);
      cairo_set_source_rgb (cr, 0, 0, 0);
      cairo_set_line_width (cr, 0.8);
      cairo_stroke (cr);
      if ((int) i == self->selected || i == self->an->net->ref)
        {
          cairo_arc (cr, x0 + (c->col + 0.5) * s, y0 + (c->row + 0.5) * s, rad + 3, 0, 2 * G_PI);
          cairo_set_source_rgb (cr, (int) i == self->selected ? 0.2 : 1, 1, (int) i == self->selected ? 0.2 : 1);
          cairo_set_line_width (cr, 2);
          cairo_stroke (cr);
        }
    }
}

static void
draw_plot (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  EfStackWindow *self = data;
  double l = 60, r = 16, t = 24, b = 36, lo = 0, hi = 0, tmax = 0;
  char label[64];

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 12);
  if (self->n_series == 0)
    {
      cairo_move_to (cr, l, height / 2.0);
      cairo_show_text (cr, self->loaded ? _("Click a PS candidate to plot its displacement")
                                        : _("Finding persistent scatterers…"));
      return;
    }
  for (guint k = 0; k < self->n_series; k++)
    {
      lo = MIN (lo, self->series_mm[k]);
      hi = MAX (hi, self->series_mm[k]);
      if (self->truth_mm != NULL)
        {
          lo = MIN (lo, self->truth_mm[k]);
          hi = MAX (hi, self->truth_mm[k]);
        }
      tmax = MAX (tmax, self->series_t[k]);
    }
  lo -= 0.1 * (hi - lo) + 0.5;
  hi += 0.1 * (hi - lo) + 0.5;
  tmax = MAX (tmax, 1e-3);
#define PX(tt) (l + (tt) / tmax * (width - l - r))
#define PY(v) (t + (hi - (v)) / (hi - lo) * (height - t - b))
  /* Axes, the zero line and a few ticks. */
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, l, t, width - l - r, height - t - b);
  cairo_stroke (cr);
  cairo_set_source_rgb (cr, 0.7, 0.7, 0.7);
  cairo_move_to (cr, l, PY (0));
  cairo_line_to (cr, width - r, PY (0));
  cairo_stroke (cr);
  cairo_set_source_rgb (cr, 0, 0, 0);
  for (int i = 0; i <= 4; i++)
    {
      double tv = tmax * i / 4, yv = lo + (hi - lo) * i / 4;

      g_snprintf (label, sizeof label, "%.2f", tv);
      cairo_move_to (cr, PX (tv) - 12, height - b + 16);
      cairo_show_text (cr, label);
      g_snprintf (label, sizeof label, "%.1f", yv);
      cairo_move_to (cr, 8, PY (yv) + 4);
      cairo_show_text (cr, label);
    }
  cairo_move_to (cr, l, 16);
  g_snprintf (label, sizeof label, "%s", _("displacement towards the sensor, mm, against years"));
  cairo_show_text (cr, label);
  /* The truth, dashed; then the estimate's linear model and its points. */
  if (self->truth_mm != NULL)
    {
      double dash[] = { 5, 4 };

      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_source_rgb (cr, 0.1, 0.6, 0.1);
      for (guint k = 0; k < self->n_series; k++)
        (k == 0 ? cairo_move_to : cairo_line_to) (cr, PX (self->series_t[k]), PY (self->truth_mm[k]));
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  cairo_set_source_rgb (cr, 0.8, 0.1, 0.1);
  {
    EfPsCandidate *c = &g_array_index (self->an->net->candidates, EfPsCandidate, self->selected);
    cairo_move_to (cr, PX (0), PY (0));
    cairo_line_to (cr, PX (tmax), PY (c->velocity * 1e3 * tmax));
    cairo_stroke (cr);
  }
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.7);
  for (guint k = 0; k < self->n_series; k++)
    {
      cairo_arc (cr, PX (self->series_t[k]), PY (self->series_mm[k]), 2.5, 0, 2 * G_PI);
      cairo_fill (cr);
    }
#undef PX
#undef PY
}

/* ---- picking and the time series ---- */

static void
clear_series (EfStackWindow *self)
{
  g_clear_pointer (&self->series_t, g_free);
  g_clear_pointer (&self->series_mm, g_free);
  g_clear_pointer (&self->truth_mm, g_free);
  self->n_series = 0;
}

/* The candidate's displacement relative to the reference in each pass: its linear model plus the wrapped
 * residual phase (with its constant taken out), in mm. */
static gboolean
read_series (EfStackWindow *self, const EfPsCandidate *c, const EfPsCandidate *ref)
{
  EfStackAnalysis *an = self->an;
  guint n = an->n_passes;
  g_autofree EfCf32 *sc = g_new (EfCf32, n);
  g_autofree EfCf32 *sr = g_new (EfCf32, n);
  g_autofree EfCf64 *res = g_new (EfCf64, n);
  EfRect rc = { c->col, c->row, 1, 1 }, rr = { ref->col, ref->row, 1, 1 };
  double a = 4 * G_PI / an->geometry.wavelength;
  double hf = 1.0 / (an->geometry.range * sin (an->geometry.incidence_deg * G_PI / 180));
  EfCf64 mean = 0;
  g_autoptr (GError) error = NULL;

  if (!ef_stack_read_region (self->stack, &rc, 0, n, sc, &error)
      || !ef_stack_read_region (self->stack, &rr, 0, n, sr, &error))
    {
      gtk_label_set_text (GTK_LABEL (self->status), error->message);
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    {
      double ph = a * (c->velocity * an->t_years[k] + c->height * an->bperp[k] * hf);

      res[k] = (EfCf64) sc[k] * conj ((EfCf64) sr[k]) * (cos (ph) - I * sin (ph));
      res[k] = cabs (res[k]) > 0 ? res[k] / cabs (res[k]) : 0;
      mean += res[k];
    }
  self->n_series = n;
  self->series_t = g_new (double, n);
  self->series_mm = g_new (double, n);
  for (guint k = 0; k < n; k++)
    {
      double r = carg (res[k] * conj (mean));

      self->series_t[k] = an->t_years[k];
      self->series_mm[k] = 1e3 * (c->velocity * an->t_years[k] + r / a);
    }
  if (an->truth != NULL)
    {
      gint j = an->truth->ps_index[(gsize) c->row * an->width + c->col];
      gint jr = an->truth->ps_index[(gsize) ref->row * an->width + ref->col];

      if (j >= 0 && jr >= 0)
        {
          const EfRepeatPs *p = &an->truth->ps[j], *q = &an->truth->ps[jr];
          double d0 = ef_repeat_displacement (p, an->t_years[0]) - ef_repeat_displacement (q, an->t_years[0]);

          self->truth_mm = g_new (double, n);
          for (guint k = 0; k < n; k++)
            self->truth_mm[k] = 1e3 * (ef_repeat_displacement (p, an->t_years[k])
                                       - ef_repeat_displacement (q, an->t_years[k]) - d0);
        }
    }
  return TRUE;
}

void
ef_stack_window_pick (EfStackWindow *self, double col, double row)
{
  double best = 9.0;   /* within three pixels */
  int pick = -1;
  g_autofree char *text = NULL;
  EfPsCandidate *c;

  if (self->an == NULL)
    return;
  for (guint i = 0; i < self->an->net->candidates->len; i++)
    {
      EfPsCandidate *p = &g_array_index (self->an->net->candidates, EfPsCandidate, i);
      double dx = p->col + 0.5 - col, dy = p->row + 0.5 - row;

      if (p->connected && dx * dx + dy * dy < best)
        {
          best = dx * dx + dy * dy;
          pick = (int) i;
        }
    }
  clear_series (self);
  self->selected = pick;
  if (pick >= 0)
    {
      c = &g_array_index (self->an->net->candidates, EfPsCandidate, pick);
      read_series (self, c, &g_array_index (self->an->net->candidates, EfPsCandidate, self->an->net->ref));
      text = g_strdup_printf (_("PS at pixel %u, %u: score %.3f, velocity %+.2f mm/yr, height %+.2f m (relative to the "
                                "reference)"), c->col, c->row, c->score, c->velocity * 1e3, c->height);
      gtk_label_set_text (GTK_LABEL (self->status), text);
    }
  gtk_widget_queue_draw (self->map);
  gtk_widget_queue_draw (self->plot);
}

static void
on_click (GtkGestureClick *gesture, int n_press, double x, double y, gpointer data)
{
  EfStackWindow *self = data;
  double x0, y0, s;

  ef_stack_window_map_geometry (self, &x0, &y0, &s);
  ef_stack_window_pick (self, (x - x0) / s, (y - y0) / s);
}

static void
on_layer_toggled (GtkToggleButton *button, gpointer data)
{
  EfStackWindow *self = data;

  self->layer = gtk_toggle_button_get_active (button) ? 1 : 0;
  gtk_button_set_label (GTK_BUTTON (button), self->layer ? _("Coherence") : _("Mean amplitude"));
  gtk_widget_queue_draw (self->map);
}

static void
on_analysed (GObject *source, GAsyncResult *result, gpointer data)
{
  EfStackWindow *self = EF_STACK_WINDOW (source);
  g_autoptr (GError) error = NULL;
  EfStackAnalysis *an = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *text = NULL;

  self->loaded = TRUE;
  /* The window is being destroyed: its widgets are gone. */
  if (g_cancellable_is_cancelled (self->cancel))
    {
      ef_stack_analysis_free (an);
      self->failed = an == NULL;
      return;
    }
  if (an == NULL)
    {
      self->failed = TRUE;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        gtk_label_set_text (GTK_LABEL (self->status), error->message);
      gtk_widget_queue_draw (self->plot);
      return;
    }
  self->an = an;
  build_layers (self);
  text = g_strdup_printf (_("%u passes of %u × %u pixels: %u PS candidates, %u connected to the reference; "
                            "velocities ±%.1f mm/yr; arcs on the %s%s"), an->n_passes, an->width, an->height,
                          an->net->candidates->len, an->net->n_connected, self->vmax * 1e3,
                          g_strcmp0 (an->report.backend, "cpu") == 0 ? _("CPU") : an->report.backend,
                          an->truth != NULL ? _("; truth loaded") : "");
  gtk_label_set_text (GTK_LABEL (self->status), text);
  gtk_widget_queue_draw (self->map);
  gtk_widget_queue_draw (self->plot);
}

void
ef_stack_window_open (EfStackWindow *self, const char *dir)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *title = NULL;

  g_return_if_fail (EF_IS_STACK_WINDOW (self) && dir != NULL);
  g_return_if_fail (self->dir == NULL);

  self->dir = g_strdup (dir);
  title = g_strdup_printf (_("Stack — %s"), dir);
  gtk_window_set_title (GTK_WINDOW (self), title);
  /* The window keeps its own reader for the time series; the worker opens another. */
  self->stack = ef_stack_open (dir, &error);
  if (self->stack == NULL)
    {
      self->loaded = self->failed = TRUE;
      gtk_label_set_text (GTK_LABEL (self->status), error->message);
      return;
    }
  gtk_label_set_text (GTK_LABEL (self->status), _("Finding persistent scatterers…"));
  task = g_task_new (self, self->cancel, on_analysed, NULL);
  g_task_set_task_data (task, g_strdup (dir), g_free);
  g_task_run_in_thread (task, analyse);
}

/* ---- the object ---- */

static void
ef_stack_window_dispose (GObject *object)
{
  EfStackWindow *self = EF_STACK_WINDOW (object);

  g_cancellable_cancel (self->cancel);
  G_OBJECT_CLASS (ef_stack_window_parent_class)->dispose (object);
}

static void
ef_stack_window_finalize (GObject *object)
{
  EfStackWindow *self = EF_STACK_WINDOW (object);

  clear_series (self);
  for (int i = 0; i < 2; i++)
    g_clear_pointer (&self->layers[i], cairo_surface_destroy);
  ef_stack_analysis_free (self->an);
  ef_stack_free (self->stack);
  g_clear_object (&self->cancel);
  g_free (self->dir);
  G_OBJECT_CLASS (ef_stack_window_parent_class)->finalize (object);
}

static void
ef_stack_window_class_init (EfStackWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ef_stack_window_dispose;
  object_class->finalize = ef_stack_window_finalize;
}

static void
ef_stack_window_init (EfStackWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkGesture *click = gtk_gesture_click_new ();

  self->cancel = g_cancellable_new ();
  self->selected = -1;
  gtk_window_set_default_size (GTK_WINDOW (self), 900, 860);
  gtk_window_set_title (GTK_WINDOW (self), _("Stack"));

  self->layer_button = gtk_toggle_button_new_with_label (_("Mean amplitude"));
  gtk_widget_set_tooltip_text (self->layer_button, _("Show the mean amplitude or each pixel's best arc coherence"));
  g_signal_connect (self->layer_button, "toggled", G_CALLBACK (on_layer_toggled), self);
  self->status = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0);
  gtk_label_set_wrap (GTK_LABEL (self->status), TRUE);
  gtk_widget_set_hexpand (self->status, TRUE);
  gtk_box_append (GTK_BOX (bar), self->layer_button);
  gtk_box_append (GTK_BOX (bar), self->status);
  gtk_widget_set_margin_start (bar, 6);
  gtk_widget_set_margin_end (bar, 6);
  gtk_widget_set_margin_top (bar, 6);

  self->map = gtk_drawing_area_new ();
  gtk_widget_set_size_request (self->map, 400, 400);
  gtk_widget_set_vexpand (self->map, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->map), draw_map, self, NULL);
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect (click, "pressed", G_CALLBACK (on_click), self);
  gtk_widget_add_controller (self->map, GTK_EVENT_CONTROLLER (click));

  self->plot = gtk_drawing_area_new ();
  gtk_widget_set_size_request (self->plot, 400, 220);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->plot), draw_plot, self, NULL);

  gtk_paned_set_start_child (GTK_PANED (paned), self->map);
  gtk_paned_set_end_child (GTK_PANED (paned), self->plot);
  gtk_paned_set_position (GTK_PANED (paned), 600);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), bar);
  gtk_box_append (GTK_BOX (box), paned);
  gtk_window_set_child (GTK_WINDOW (self), box);
}

EfStackWindow *
ef_stack_window_new (GtkApplication *app)
{
  return g_object_new (EF_TYPE_STACK_WINDOW, "application", app, NULL);
}
