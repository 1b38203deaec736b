/* ef-classroom-whatif.c: the classroom's what-if controls (window, interpolation, injected errors) and presenter aids. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-classroom"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-classroom-window-private.h"
#include "ef-error.h"
#include "ef-settings.h"

/* How long the controls stay still before the stack is formed again, ms. */
#define REFORM_DELAY_MS 250
/* The interpolation error's patch about the target, pixels a side. */
#define SER_EDGE 16
/* How far from a click the target's peak is looked for, pixels. */
#define SEARCH_PX 6
#define TEXT_SCALE_MIN 1.0
#define TEXT_SCALE_MAX 2.5
#define TEXT_SCALE_STEP 0.25

static const EfWindow window_values[] = { EF_WINDOW_RECT, EF_WINDOW_HANN, EF_WINDOW_TAYLOR };
static const EfTeachInterp interp_values[] = { EF_TEACH_INTERP_LINEAR, EF_TEACH_INTERP_NEAREST };
static const guint upsample_values[] = { 1, 2, 4, 8, 16 };
static const EfTeachPhaseShape shape_values[] = { EF_TEACH_PHASE_QUADRATIC, EF_TEACH_PHASE_SINE,
                                                  EF_TEACH_PHASE_RANDOM_WALK, EF_TEACH_PHASE_LINEAR };
static const EfTeachOffsetAxis axis_values[] = { EF_TEACH_OFFSET_ALONG_TRACK, EF_TEACH_OFFSET_LINE_OF_SIGHT };

/* The stack as opened: what the reference measurements are made with. */
static const EfTeachFormOptions default_form = { EF_WINDOW_RECT, EF_TEACH_INTERP_LINEAR, 16 };

static gboolean
form_equal (const EfTeachFormOptions *a, const EfTeachFormOptions *b)
{
  return a->window == b->window && a->interp == b->interp && a->upsample == b->upsample;
}

static gboolean
errors_equal (const EfTeachErrors *a, const EfTeachErrors *b)
{
  return memcmp (a, b, sizeof *a) == 0;
}

/* ---- measuring the selected target ---- */

static void
measure (EfClassroomWindow *self, EfCf32 *data, EfClassroomMeasure *out)
{
  EfImage img = { *ef_teach_stack_grid (self->stack_data), data };
  const EfPulse *pu = &self->ds->pulses[(self->shown_p0 + self->shown_p1) / 2];
  double h = hypot (pu->tx[0], pu->tx[1]);
  double dir[3] = { h > 0 ? pu->tx[0] / h : 1, h > 0 ? pu->tx[1] / h : 0, 0 };
  g_autoptr (GError) error = NULL;
  EfPointResult r = { 0 };

  memset (out, 0, sizeof *out);
  if (!ef_point_analyse (&img, self->target_col, self->target_row, SEARCH_PX, dir, &r, &error))
    return;
  out->ok = TRUE;
  out->cross_irw = r.cross.irw_m;
  out->range_irw = r.range.irw_m;
  out->cross_pslr = r.cross.pslr_db;
  out->range_pslr = r.range.pslr_db;
  memcpy (out->position, r.position, sizeof out->position);
  ef_point_result_clear (&r);
}

static char *
percent (double v, double ref)
{
  if (!(ref > 0))
    return g_strdup ("");
  return g_strdup_printf (" (%+.0f%%)", 100 * (v / ref - 1));
}

static void
update_readouts (EfClassroomWindow *self)
{
  const EfClassroomMeasure *m = &self->measured, *r = &self->reference;
  gboolean changed = self->stack_data != self->ref_stack;
  g_autoptr (GString) t = g_string_new (NULL);
  g_autoptr (GString) extra = g_string_new (NULL);

  if (!self->has_target)
    g_string_append (t, _("Click a point target on the image to measure it."));
  else if (!m->ok)
    g_string_append (t, _("No point target to measure at the selection: none stands out there (yet)."));
  else
    {
      g_autofree char *pc = percent (m->cross_irw, r->cross_irw), *pr = percent (m->range_irw, r->range_irw);

      g_string_append_printf (t, _("Target at (%.2f, %.2f) m"), round (m->position[0] * 100) / 100 + 0.0,
                              round (m->position[1] * 100) / 100 + 0.0);
      if (changed && r->ok)
        {
          g_string_append_printf (t, _(": as changed / error-free\n"
                                       "Cross-range IRW %.3f / %.3f m%s, PSLR %.1f / %.1f dB\n"
                                       "Range IRW %.3f / %.3f m%s, PSLR %.1f / %.1f dB"),
                                  m->cross_irw, r->cross_irw, pc, m->cross_pslr, r->cross_pslr, m->range_irw,
                                  r->range_irw, pr, m->range_pslr, r->range_pslr);
          if (hypot (m->position[0] - r->position[0], m->position[1] - r->position[1]) >= 0.005)
            g_string_append_printf (extra, _("Peak moved by (%+.3f, %+.3f) m"),
                                    round ((m->position[0] - r->position[0]) * 1000) / 1000 + 0.0,
                                    round ((m->position[1] - r->position[1]) * 1000) / 1000 + 0.0);
        }
      else
        g_string_append_printf (t, _("\nCross-range IRW %.3f m, PSLR %.1f dB\nRange IRW %.3f m, PSLR %.1f dB"),
                                m->cross_irw, m->cross_pslr, m->range_irw, m->range_pslr);
    }
  if (self->errors.speed_pct != 0 && self->shown_p1 > self->shown_p0)
    {
      double q = ef_teach_errors_qpe (self->ds, ef_teach_stack_dataset (self->stack_data), self->shown_p0,
                                      self->shown_p1);

      /* One line of news: the prediction says more than the move it causes. */
      g_string_truncate (extra, 0);
      g_string_append_printf (extra, _("Speed error: %.2f rad of quadratic phase at the edges, predicted"), fabs (q));
    }
  /* Always four lines, so that the window keeps its size as the readouts change. */
  {
    guint lines = 1;

    for (const char *c = t->str; *c != '\0'; c++)
      lines += *c == '\n';
    for (; lines < 4; lines++)
      g_string_append_c (t, '\n');
    if (extra->len > 0)
      g_string_append_printf (t, "%s", extra->str);
  }
  gtk_label_set_text (GTK_LABEL (self->measure_label), t->str);

  if (isnan (self->ser_db))
    {
      gtk_label_set_text (GTK_LABEL (self->ser_label), _("Interpolation error: not measured"));
      gtk_widget_set_tooltip_text (self->ser_label, _("It needs frequency-domain data and a target in the region"));
    }
  else
    {
      g_autofree char *s = g_strdup_printf (_("Interpolation error: SER %.1f dB against the exact matched filter"),
                                            self->ser_db);
      g_autofree char *tip = g_strdup_printf (_("The image formed as set, against the same pulses summed with no "
                                                "interpolation (ef_mf_form_f64), over %u×%u pixels about pixel "
                                                "(%.0f, %.0f), whole aperture and band"),
                                              SER_EDGE, SER_EDGE, self->ser_col, self->ser_row);

      gtk_label_set_text (GTK_LABEL (self->ser_label), s);
      gtk_widget_set_tooltip_text (self->ser_label, tip);
    }
}

void
ef_classroom_whatif_update (EfClassroomWindow *self)
{
  gsize n;

  if (self->stack_data == NULL)
    return;
  n = ef_grid_n_pixels (ef_teach_stack_grid (self->stack_data));
  if (self->has_target)
    {
      measure (self, self->image, &self->measured);
      if (self->stack_data == self->ref_stack)
        self->reference = self->measured;
      else
        {
          g_autoptr (GError) error = NULL;

          if (self->ref_image == NULL)
            self->ref_image = g_new0 (EfCf32, n);
          if (ef_classroom_views_compose (self, self->ref_stack, self->shown_p0, self->shown_p1, self->ref_image,
                                          &error))
            measure (self, self->ref_image, &self->reference);
          else
            memset (&self->reference, 0, sizeof self->reference);
        }
    }
  update_readouts (self);
}

/* ---- forming again ---- */

typedef struct {
  EfDataset         *ds;      /* owned: the collection as recorded */
  EfTeachStack      *stack;   /* owned, the result */
  EfTeachStackParams params;
  EfTeachErrors      errors;
  EfTeachFormOptions form;
  gboolean           has_target;
  guint              col, row;
  double             ser_db;
  GWeakRef           window;
} ReformData;

static void
reform_data_free (ReformData *d)
{
  g_clear_pointer (&d->ds, ef_dataset_unref);
  g_clear_pointer (&d->stack, ef_teach_stack_free);
  g_weak_ref_clear (&d->window);
  g_free (d);
}

static void
reform_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancel)
{
  ReformData *d = task_data;
  g_autoptr (EfDataset) erred = NULL;
  GError *error = NULL;

  erred = ef_teach_errors_apply (d->ds, &d->errors, &error);
  if (erred == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  d->stack = ef_teach_stack_new (erred, &d->params, NULL, NULL, cancel, &error);
  if (d->stack == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  d->ser_db = NAN;
  if (d->has_target && erred->info.domain == EF_DOMAIN_FX && !g_cancellable_is_cancelled (cancel))
    d->ser_db = ef_teach_interp_ser_db (erred, &d->params.grid, d->col, d->row, SER_EDGE, 0, erred->info.n_pulses,
                                        0, (guint) erred->info.n_samples, &d->form, NULL);
  g_task_return_boolean (task, TRUE);
}

static void
show_stack (EfClassroomWindow *self, EfTeachStack *stack, const EfTeachErrors *e, const EfTeachFormOptions *f,
            double ser_db, double ser_col, double ser_row)
{
  if (self->stack_data != self->ref_stack)
    g_clear_pointer (&self->stack_data, ef_teach_stack_free);
  self->stack_data = stack;
  self->errors = *e;
  self->form = *f;
  self->ser_db = ser_db;
  self->ser_col = ser_col;
  self->ser_row = ser_row;
  self->forming = FALSE;
  gtk_widget_set_visible (self->forming_label, FALSE);
  ef_classroom_window_refresh (self, FALSE);
}

static void
reform_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  ReformData *d = g_task_get_task_data (G_TASK (res));
  g_autoptr (EfClassroomWindow) self = g_weak_ref_get (&d->window);
  g_autoptr (GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (res), &error))
    {
      if (self != NULL && !g_error_matches (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED))
        {
          self->forming = FALSE;
          gtk_label_set_text (GTK_LABEL (self->forming_label), error->message);
        }
      return;
    }
  if (self == NULL || g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (res))))
    return;
  show_stack (self, g_steal_pointer (&d->stack), &d->errors, &d->form, d->ser_db, d->col, d->row);
}

static gboolean
reform (gpointer user_data)
{
  EfClassroomWindow *self = user_data;
  g_autoptr (GTask) task = NULL;
  ReformData *d;

  self->whatif_source = 0;
  if (!self->ready || self->ref_stack == NULL)
    return G_SOURCE_REMOVE;
  /* What is being formed is no longer wanted. */
  if (self->whatif_cancel != NULL)
    g_cancellable_cancel (self->whatif_cancel);
  g_clear_object (&self->whatif_cancel);
  self->forming = FALSE;
  gtk_widget_set_visible (self->forming_label, FALSE);
  if (errors_equal (&self->want_errors, &self->errors) && form_equal (&self->want_form, &self->form))
    return G_SOURCE_REMOVE;
  /* Back to the stack as opened: no formation, and the reference exactly. */
  if (ef_teach_errors_none (&self->want_errors) && form_equal (&self->want_form, &default_form))
    {
      show_stack (self, self->ref_stack, &self->want_errors, &self->want_form, self->ref_ser_db, self->ref_ser_col,
                  self->ref_ser_row);
      return G_SOURCE_REMOVE;
    }
  self->whatif_cancel = g_cancellable_new ();
  self->forming = TRUE;
  gtk_label_set_text (GTK_LABEL (self->forming_label), _("Forming the image again with the changes…"));
  gtk_widget_set_visible (self->forming_label, TRUE);
  d = g_new0 (ReformData, 1);
  d->ds = ef_dataset_ref (self->ds);
  d->params.grid = *ef_teach_stack_grid (self->ref_stack);
  d->params.block_pulses = self->block;
  d->params.n_bands = ef_teach_stack_n_bands (self->ref_stack);
  d->params.budget_bytes = MAX (ef_teach_stack_bytes (self->ref_stack), EF_TEACH_DEFAULT_BUDGET);
  d->params.window = self->want_form.window;
  d->params.interp = self->want_form.interp;
  d->params.upsample = self->want_form.upsample;
  d->errors = self->want_errors;
  d->form = self->want_form;
  d->has_target = self->has_target;
  d->col = self->has_target ? (guint) MAX (0, llround (self->target_col)) : 0;
  d->row = self->has_target ? (guint) MAX (0, llround (self->target_row)) : 0;
  g_weak_ref_init (&d->window, self);
  task = g_task_new (NULL, self->whatif_cancel, reform_done, NULL);
  g_task_set_task_data (task, d, (GDestroyNotify) reform_data_free);
  g_task_run_in_thread (task, reform_thread);
  return G_SOURCE_REMOVE;
}

static void
read_controls (EfClassroomWindow *self)
{
  EfTeachErrors *e = &self->want_errors;
  EfTeachFormOptions *f = &self->want_form;

  f->window = window_values[MIN (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->window_drop)),
                                 G_N_ELEMENTS (window_values) - 1)];
  f->interp = interp_values[MIN (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->interp_drop)),
                                 G_N_ELEMENTS (interp_values) - 1)];
  f->upsample = upsample_values[MIN (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->upsample_drop)),
                                     G_N_ELEMENTS (upsample_values) - 1)];
  memset (e, 0, sizeof *e);
  e->phase_shape = shape_values[MIN (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->shape_drop)),
                                     G_N_ELEMENTS (shape_values) - 1)];
  e->phase_rms = gtk_spin_button_get_value (self->rms_spin);
  e->seed = (guint32) gtk_spin_button_get_value_as_int (self->seed_spin);
  /* The seed is the random walk's alone. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->seed_spin), e->phase_shape == EF_TEACH_PHASE_RANDOM_WALK);
  e->speed_pct = gtk_spin_button_get_value (self->speed_spin);
  e->offset_m = gtk_spin_button_get_value (self->offset_spin);
  e->offset_axis = axis_values[MIN (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->axis_drop)),
                                    G_N_ELEMENTS (axis_values) - 1)];
}

void
ef_classroom_whatif_changed (EfClassroomWindow *self)
{
  if (self->updating || self->window_drop == NULL)
    return;
  read_controls (self);
  if (self->whatif_source != 0)
    g_source_remove (self->whatif_source);
  self->whatif_source = g_timeout_add (REFORM_DELAY_MS, reform, self);
}

static void
control_changed (EfClassroomWindow *self)
{
  ef_classroom_whatif_changed (self);
}

static guint
index_of (const guint *values, guint n, guint v)
{
  for (guint i = 0; i < n; i++)
    if (values[i] == v)
      return i;
  return 0;
}

void
ef_classroom_whatif_set_controls (EfClassroomWindow *self, const EfTeachErrors *e, const EfTeachFormOptions *f)
{
  self->updating++;
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->window_drop),
                              index_of ((const guint *) window_values, G_N_ELEMENTS (window_values), f->window));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->interp_drop),
                              index_of ((const guint *) interp_values, G_N_ELEMENTS (interp_values), f->interp));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->upsample_drop),
                              index_of (upsample_values, G_N_ELEMENTS (upsample_values), f->upsample));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->shape_drop),
                              index_of ((const guint *) shape_values, G_N_ELEMENTS (shape_values), e->phase_shape));
  gtk_spin_button_set_value (self->rms_spin, e->phase_rms);
  gtk_spin_button_set_value (self->seed_spin, e->seed);
  gtk_spin_button_set_value (self->speed_spin, e->speed_pct);
  gtk_spin_button_set_value (self->offset_spin, e->offset_m);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->axis_drop),
                              index_of ((const guint *) axis_values, G_N_ELEMENTS (axis_values), e->offset_axis));
  self->updating--;
  ef_classroom_whatif_changed (self);
}

/* ---- opening and clearing ---- */

void
ef_classroom_whatif_opened (EfClassroomWindow *self, EfTeachStack *stack, double ser_db)
{
  const EfGrid *g = ef_teach_stack_grid (stack);
  double origin[3] = { 0, 0, 0 }, col, row;

  self->ref_stack = stack;
  self->stack_data = stack;
  self->errors = (EfTeachErrors) { 0 };
  self->form = default_form;
  self->ser_db = self->ref_ser_db = ser_db;
  /* The first target: the one at the scene's reference point, when the region holds it. */
  ef_grid_position_to_pixel (g, origin, &col, &row);
  self->has_target = col >= 0 && row >= 0 && col <= g->width - 1 && row <= g->height - 1;
  self->target_col = self->has_target ? col : 0;
  self->target_row = self->has_target ? row : 0;
  self->ser_col = self->ref_ser_col = llround (self->target_col);
  self->ser_row = self->ref_ser_row = llround (self->target_row);
  ef_classroom_whatif_set_controls (self, &self->errors, &self->form);
  read_controls (self);
  if (self->whatif_source != 0)
    g_source_remove (self->whatif_source);
  self->whatif_source = 0;
}

void
ef_classroom_whatif_clear (EfClassroomWindow *self)
{
  if (self->whatif_source != 0)
    g_source_remove (self->whatif_source);
  self->whatif_source = 0;
  if (self->whatif_cancel != NULL)
    g_cancellable_cancel (self->whatif_cancel);
  g_clear_object (&self->whatif_cancel);
  self->forming = FALSE;
  if (self->stack_data != self->ref_stack)
    g_clear_pointer (&self->stack_data, ef_teach_stack_free);
  self->stack_data = NULL;
  g_clear_pointer (&self->ref_stack, ef_teach_stack_free);
  g_clear_pointer (&self->ref_image, g_free);
  memset (&self->measured, 0, sizeof self->measured);
  memset (&self->reference, 0, sizeof self->reference);
  self->has_target = FALSE;
}

void
ef_classroom_whatif_select (EfClassroomWindow *self, double col, double row)
{
  const EfGrid *g;

  if (!self->ready || self->stack_data == NULL)
    return;
  g = ef_teach_stack_grid (self->stack_data);
  self->has_target = TRUE;
  self->target_col = CLAMP (col, 0, g->width - 1);
  self->target_row = CLAMP (row, 0, g->height - 1);
  ef_classroom_whatif_update (self);
  gtk_widget_queue_draw (self->views[EF_CLASSROOM_IMAGE]);
}

/* ---- presenter ---- */

/* The rules for each text size: absolute sizes from the desktop's font, so that headings and plain labels
 * grow alike and nothing compounds down the widget tree. */
static GtkCssProvider *
text_css (GdkDisplay *display)
{
  GtkCssProvider *provider = g_object_get_data (G_OBJECT (display), "ef-classroom-css");
  g_autoptr (GString) css = NULL;
  g_autofree char *font = NULL;
  double base = 11;

  if (provider != NULL)
    return provider;
  g_object_get (gtk_settings_get_for_display (display), "gtk-font-name", &font, NULL);
  if (font != NULL)
    {
      PangoFontDescription *fd = pango_font_description_from_string (font);

      if (pango_font_description_get_size (fd) > 0 && !pango_font_description_get_size_is_absolute (fd))
        base = (double) pango_font_description_get_size (fd) / PANGO_SCALE;
      pango_font_description_free (fd);
    }
  css = g_string_new (NULL);
  for (guint p = 125; p <= 250; p += 25)
    {
      char size[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (size, sizeof size, "%.1f", base * p / 100);
      g_string_append_printf (css, ".ef-classroom-text-%u, .ef-classroom-text-%u * { font-size: %spt; }\n", p, p,
                              size);
    }
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (provider, css->str, -1);
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_data_full (G_OBJECT (display), "ef-classroom-css", provider, g_object_unref);
  return provider;
}

void
ef_classroom_whatif_set_text_scale (EfClassroomWindow *self, double scale)
{
  GdkDisplay *display = gtk_widget_get_display (GTK_WIDGET (self));
  char cls[32];

  scale = CLAMP (round (scale / TEXT_SCALE_STEP) * TEXT_SCALE_STEP, TEXT_SCALE_MIN, TEXT_SCALE_MAX);
  if (display != NULL)
    text_css (display);
  g_snprintf (cls, sizeof cls, "ef-classroom-text-%u", (guint) llround (self->text_scale * 100));
  gtk_widget_remove_css_class (GTK_WIDGET (self), cls);
  self->text_scale = scale;
  g_snprintf (cls, sizeof cls, "ef-classroom-text-%u", (guint) llround (scale * 100));
  gtk_widget_add_css_class (GTK_WIDGET (self), cls);
  if (self->large_toggle != NULL)
    {
      self->updating++;
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->large_toggle), scale > 1);
      self->updating--;
    }
  if (self->settings != NULL)
    g_settings_set_double (self->settings, "classroom-text-scale", scale);
  for (guint v = 0; v < EF_CLASSROOM_N_VIEWS; v++)
    if (self->views[v] != NULL)
      gtk_widget_queue_draw (self->views[v]);
}

void
ef_classroom_whatif_set_high_contrast (EfClassroomWindow *self, gboolean on)
{
  self->high_contrast = on;
  if (self->contrast_toggle != NULL)
    {
      self->updating++;
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->contrast_toggle), on);
      self->updating--;
    }
  if (self->settings != NULL)
    g_settings_set_boolean (self->settings, "classroom-high-contrast", on);
  if (self->ready)
    ef_classroom_window_refresh (self, FALSE);
}

static void
large_toggled (GtkToggleButton *b, EfClassroomWindow *self)
{
  if (!self->updating)
    ef_classroom_whatif_set_text_scale (self, gtk_toggle_button_get_active (b) ? 1.5 : 1.0);
}

static void
contrast_toggled (GtkToggleButton *b, EfClassroomWindow *self)
{
  if (!self->updating)
    ef_classroom_whatif_set_high_contrast (self, gtk_toggle_button_get_active (b));
}

static void
bookmark_clear (gpointer p)
{
  EfClassroomBookmark *b = p;

  g_free (b->name);
}

static void
list_bookmark (EfClassroomWindow *self, const EfClassroomBookmark *b)
{
  g_autofree char *label = g_strdup_printf (_("%s (pulse %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT
                                              ")"), b->name, b->current, b->first, b->last);

  gtk_string_list_append (self->bookmark_names, label);
  gtk_widget_set_sensitive (self->bookmark_drop, TRUE);
}

void
ef_classroom_whatif_load_bookmarks (EfClassroomWindow *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->bookmark_names));

  g_array_set_size (self->bookmarks, 0);
  gtk_string_list_splice (self->bookmark_names, 0, n, NULL);
  gtk_widget_set_sensitive (self->bookmark_drop, FALSE);
  if (self->bookmark_key == NULL || self->ds == NULL || self->stack_data == NULL)
    return;
  ef_classroom_bookmarks_load (self->bookmark_key, self->n_pulses, ef_teach_stack_n_bands (self->stack_data),
                               self->bookmarks);
  for (guint i = 0; i < self->bookmarks->len; i++)
    list_bookmark (self, &g_array_index (self->bookmarks, EfClassroomBookmark, i));
}

void
ef_classroom_whatif_add_bookmark (EfClassroomWindow *self, const char *name)
{
  EfClassroomBookmark b = { 0 };
  g_autoptr (GError) error = NULL;

  if (!self->ready)
    return;
  b.name = name != NULL && *name != '\0' ? g_strdup (name)
                                         : g_strdup_printf (_("Bookmark %u"), self->bookmarks->len + 1);
  b.current = self->current;
  b.first = self->first;
  b.last = self->last;
  b.band_lo = self->band_lo;
  b.band_hi = self->band_hi;
  b.errors = self->want_errors;
  b.form = self->want_form;
  g_array_append_val (self->bookmarks, b);
  list_bookmark (self, &b);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->bookmark_drop), self->bookmarks->len - 1);
  /* Kept with the collection; a bookmark that cannot be saved still works until the window closes. */
  if (self->bookmark_key != NULL && !ef_classroom_bookmarks_save (self->bookmark_key, self->bookmarks, &error))
    {
      g_autofree char *t = g_strdup_printf (_("The bookmark is not saved: %s"), error->message);

      gtk_label_set_text (GTK_LABEL (self->forming_label), t);
      gtk_widget_set_visible (self->forming_label, TRUE);
    }
}

gboolean
ef_classroom_whatif_go_bookmark (EfClassroomWindow *self, guint i)
{
  const EfClassroomBookmark *b;

  if (!self->ready || i >= self->bookmarks->len)
    return FALSE;
  b = &g_array_index (self->bookmarks, EfClassroomBookmark, i);
  ef_classroom_whatif_set_controls (self, &b->errors, &b->form);
  ef_classroom_window_set_windows (self, b->first, b->last, b->band_lo, b->band_hi, b->current);
  return TRUE;
}

static void
pin_clicked (GtkButton *button, EfClassroomWindow *self)
{
  GtkEditable *e = GTK_EDITABLE (self->bookmark_entry);

  ef_classroom_whatif_add_bookmark (self, gtk_editable_get_text (e));
  gtk_editable_set_text (e, "");
}

static void
go_clicked (GtkButton *button, EfClassroomWindow *self)
{
  ef_classroom_whatif_go_bookmark (self, gtk_drop_down_get_selected (GTK_DROP_DOWN (self->bookmark_drop)));
}

/* ---- construction ---- */

static GtkWidget *
drop (EfClassroomWindow *self, const char *const *items, const char *tooltip)
{
  GtkWidget *d = gtk_drop_down_new_from_strings (items);

  gtk_widget_set_tooltip_text (d, tooltip);
  g_signal_connect_swapped (d, "notify::selected", G_CALLBACK (control_changed), self);
  return d;
}

static GtkSpinButton *
spin (EfClassroomWindow *self, double lo, double hi, double step, guint digits, const char *tooltip)
{
  GtkWidget *s = gtk_spin_button_new_with_range (lo, hi, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (s), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (s), 0);
  gtk_widget_set_tooltip_text (s, tooltip);
  g_signal_connect_swapped (s, "value-changed", G_CALLBACK (control_changed), self);
  return GTK_SPIN_BUTTON (s);
}

static void
attach_row (GtkWidget *grid, int row, const char *text, GtkWidget *a, GtkWidget *b)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_grid_attach (GTK_GRID (grid), label, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), a, 1, row, b == NULL ? 2 : 1, 1);
  if (b != NULL)
    gtk_grid_attach (GTK_GRID (grid), b, 2, row, 1, 1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (a), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

static GtkWidget *
group (const char *title, GtkWidget **grid_out)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *head = gtk_label_new (title);
  GtkWidget *grid = gtk_grid_new ();

  gtk_widget_add_css_class (head, "heading");
  gtk_label_set_xalign (GTK_LABEL (head), 0);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 6);
  gtk_box_append (GTK_BOX (box), head);
  gtk_box_append (GTK_BOX (box), grid);
  *grid_out = grid;
  return box;
}

static void
image_pressed (GtkGestureClick *g, int n_press, double x, double y, EfClassroomWindow *self)
{
  GtkWidget *area = self->views[EF_CLASSROOM_IMAGE];
  const EfGrid *grid;
  double w, h, s;

  if (!self->ready || self->stack_data == NULL)
    return;
  grid = ef_teach_stack_grid (self->stack_data);
  w = gtk_widget_get_width (area);
  h = gtk_widget_get_height (area);
  s = MIN (w / grid->width, h / grid->height);
  if (s <= 0)
    return;
  ef_classroom_whatif_select (self, (x - 0.5 * (w - s * grid->width)) / s - 0.5,
                              (y - 0.5 * (h - s * grid->height)) / s - 0.5);
}

GtkWidget *
ef_classroom_whatif_build (EfClassroomWindow *self)
{
  const char *windows[] = { _("Rectangular"), _("Hann"), _("Taylor (n̄ 4, −35 dB)"), NULL };
  const char *interps[] = { _("Linear"), _("Nearest"), NULL };
  const char *ups[] = { "×1", "×2", "×4", "×8", "×16", NULL };
  const char *shapes[] = { _("Quadratic"), _("Sinusoidal (3 cycles)"), _("Random walk"), _("Linear (a shift)"), NULL };
  const char *axes[] = { _("along the track"), _("along the line of sight"), NULL };
  GtkWidget *panel = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 24);
  GtkWidget *g1, *g2, *g3, *box, *row;
  GtkGesture *click = gtk_gesture_click_new ();

  self->bookmarks = g_array_new (FALSE, TRUE, sizeof (EfClassroomBookmark));
  g_array_set_clear_func (self->bookmarks, bookmark_clear);
  self->ser_db = NAN;
  self->text_scale = 1;

  /* The formation. */
  box = group (_("What if: the formation"), &g1);
  self->window_drop = drop (self, windows, _("The window in range (over the whole band) and in cross-range (over the "
                                             "whole aperture's look angles): lower sidelobes, a wider main lobe"));
  self->interp_drop = drop (self, interps, _("How backprojection reads a range profile between its samples"));
  self->upsample_drop = drop (self, ups, _("The range profile's zero-padding: finer samples to interpolate"));
  attach_row (g1, 0, _("Window"), self->window_drop, NULL);
  attach_row (g1, 1, _("Interpolation"), self->interp_drop, self->upsample_drop);
  self->ser_label = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->ser_label), 0);
  gtk_label_set_wrap (GTK_LABEL (self->ser_label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (self->ser_label), 30);
  gtk_label_set_width_chars (GTK_LABEL (self->ser_label), 30);
  gtk_label_set_lines (GTK_LABEL (self->ser_label), 2);
  gtk_widget_add_css_class (self->ser_label, "dim-label");
  gtk_grid_attach (GTK_GRID (g1), self->ser_label, 0, 2, 3, 1);
  gtk_box_append (GTK_BOX (panel), box);

  /* The errors. */
  box = group (_("What if: injected errors"), &g2);
  self->shape_drop = drop (self, shapes, _("The phase error's shape over the collection's pulses"));
  self->rms_spin = spin (self, 0, 10, 0.1, 2, _("The phase error's RMS over the collection, rad"));
  self->seed_spin = spin (self, 0, 9999, 1, 0, _("The random walk's seed: the same seed, the same error"));
  self->speed_spin = spin (self, -2, 2, 0.01, 2, _("Platform speed error, %: the positions stretched about the "
                                                   "middle pulse's"));
  self->offset_spin = spin (self, -5, 5, 0.05, 2, _("Antenna position error, m: every position moved alike"));
  self->axis_drop = drop (self, axes, _("The direction the positions are moved in"));
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->rms_spin));
  gtk_box_append (GTK_BOX (row), gtk_label_new (_("rad RMS, seed")));
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->seed_spin));
  attach_row (g2, 0, _("Phase error"), self->shape_drop, row);
  attach_row (g2, 1, _("Speed error (%)"), GTK_WIDGET (self->speed_spin), NULL);
  attach_row (g2, 2, _("Position error (m)"), GTK_WIDGET (self->offset_spin), self->axis_drop);
  gtk_box_append (GTK_BOX (panel), box);

  /* The presenter's. */
  box = group (_("Presenter"), &g3);
  self->large_toggle = gtk_toggle_button_new_with_label (_("Large text"));
  gtk_widget_set_tooltip_text (self->large_toggle, _("Larger labels and readouts for a projector (Ctrl+plus, "
                                                     "Ctrl+minus, Ctrl+0)"));
  g_signal_connect (self->large_toggle, "toggled", G_CALLBACK (large_toggled), self);
  self->contrast_toggle = gtk_toggle_button_new_with_label (_("High contrast"));
  gtk_widget_set_tooltip_text (self->contrast_toggle, _("The image through a colour map of rising lightness over "
                                                        "30 dB instead of grey over 40 dB"));
  g_signal_connect (self->contrast_toggle, "toggled", G_CALLBACK (contrast_toggled), self);
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_append (GTK_BOX (row), self->large_toggle);
  gtk_box_append (GTK_BOX (row), self->contrast_toggle);
  gtk_grid_attach (GTK_GRID (g3), row, 0, 0, 3, 1);
  {
    GtkWidget *pin = gtk_button_new_with_label (_("Pin"));
    GtkWidget *go = gtk_button_new_with_label (_("Go"));

    self->bookmark_entry = gtk_entry_new ();
    gtk_entry_set_placeholder_text (GTK_ENTRY (self->bookmark_entry), _("Name"));
    gtk_editable_set_width_chars (GTK_EDITABLE (self->bookmark_entry), 12);
    gtk_widget_set_tooltip_text (pin, _("Pin the pulse, the windows and the what-if settings, kept with the "
                                        "collection"));
    g_signal_connect (pin, "clicked", G_CALLBACK (pin_clicked), self);
    g_signal_connect (self->bookmark_entry, "activate", G_CALLBACK (pin_clicked), self);
    self->bookmark_names = gtk_string_list_new (NULL);
    self->bookmark_drop = gtk_drop_down_new (G_LIST_MODEL (self->bookmark_names), NULL);
    gtk_widget_set_sensitive (self->bookmark_drop, FALSE);
    gtk_widget_set_hexpand (self->bookmark_drop, TRUE);
    gtk_widget_set_tooltip_text (go, _("Go back to the bookmark"));
    g_signal_connect (go, "clicked", G_CALLBACK (go_clicked), self);
    attach_row (g3, 1, _("Bookmark"), self->bookmark_entry, pin);
    attach_row (g3, 2, _("Back to"), self->bookmark_drop, go);
  }
  /* In the header bar's popover: it takes no room from the lesson. */
  {
    GtkWidget *pop = gtk_popover_new ();

    gtk_widget_set_margin_start (box, 6);
    gtk_widget_set_margin_end (box, 6);
    gtk_widget_set_margin_top (box, 6);
    gtk_widget_set_margin_bottom (box, 6);
    gtk_popover_set_child (GTK_POPOVER (pop), box);
    self->presenter_button = gtk_menu_button_new ();
    gtk_menu_button_set_label (GTK_MENU_BUTTON (self->presenter_button), _("Presenter"));
    gtk_menu_button_set_popover (GTK_MENU_BUTTON (self->presenter_button), pop);
    gtk_widget_set_tooltip_text (self->presenter_button, _("Text size, image contrast and bookmarks"));
  }

  /* The readouts live beside the theory. */
  self->measure_label = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->measure_label), 0);
  gtk_label_set_wrap (GTK_LABEL (self->measure_label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->measure_label), TRUE);
  /* The state of a formation: in the header bar, where it moves nothing. */
  self->forming_label = gtk_label_new ("");
  gtk_widget_add_css_class (self->forming_label, "accent");
  gtk_label_set_ellipsize (GTK_LABEL (self->forming_label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_visible (self->forming_label, FALSE);

  g_signal_connect (click, "pressed", G_CALLBACK (image_pressed), self);
  gtk_widget_add_controller (self->views[EF_CLASSROOM_IMAGE], GTK_EVENT_CONTROLLER (click));

  if (ef_settings_schema_is_available ())
    {
      g_autoptr (GSettingsSchema) schema = NULL;

      self->settings = ef_settings_new ();
      g_object_get (self->settings, "settings-schema", &schema, NULL);
      if (schema != NULL && g_settings_schema_has_key (schema, "classroom-text-scale"))
        {
          double scale = g_settings_get_double (self->settings, "classroom-text-scale");
          gboolean hc = g_settings_get_boolean (self->settings, "classroom-high-contrast");

          ef_classroom_whatif_set_text_scale (self, scale);
          ef_classroom_whatif_set_high_contrast (self, hc);
        }
      else
        g_clear_object (&self->settings);
    }
  return panel;
}
