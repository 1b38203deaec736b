/* ef-cut-plot.c: cairo plot of an impulse-response cut with its -3 dB width and sidelobe level. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cut-plot"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-cut-plot.h"

#define FLOOR_DB -45.0

struct _EfCutPlot {
  GtkWidget parent_instance;

  char     *title;     /* owned */
  guint     n;
  double   *offset_m;  /* owned */
  double   *level_db;  /* owned */
  double    irw_m, pslr_db;
};

G_DEFINE_FINAL_TYPE (EfCutPlot, ef_cut_plot, GTK_TYPE_WIDGET)

void
ef_cut_plot_set_cut (EfCutPlot *self, const EfCut *cut)
{
  g_return_if_fail (EF_IS_CUT_PLOT (self));
  g_clear_pointer (&self->offset_m, g_free);
  g_clear_pointer (&self->level_db, g_free);
  self->n = 0;
  if (cut != NULL && cut->n > 1 && cut->offset_m != NULL && cut->level_db != NULL)
    {
      self->n = cut->n;
      self->offset_m = g_memdup2 (cut->offset_m, sizeof (double) * cut->n);
      self->level_db = g_memdup2 (cut->level_db, sizeof (double) * cut->n);
      self->irw_m = cut->irw_m;
      self->pslr_db = cut->pslr_db;
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
text (cairo_t *cr, GtkWidget *widget, const char *s, double x, double y, double align, const GdkRGBA *color)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, s);
  PangoAttrList *attrs = pango_attr_list_new ();
  int tw, th;

  pango_attr_list_insert (attrs, pango_attr_scale_new (0.8));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  pango_layout_get_pixel_size (layout, &tw, &th);
  gdk_cairo_set_source_rgba (cr, color);
  cairo_move_to (cr, x - align * tw, y);
  pango_cairo_show_layout (cr, layout);
}

static void
draw (EfCutPlot *self, cairo_t *cr, double w, double h)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GdkRGBA fg, dim, accent = { 0.21, 0.52, 0.89, 1 }, warn = { 0.9, 0.38, 0.0, 1 };
  const double left = 40, right = 8, top = 20, bottom = 22;
  double pw = w - left - right, ph = h - top - bottom, xmin, xmax;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  dim = fg;
  dim.alpha = 0.4f;

  text (cr, widget, self->title, 4, 2, 0, &fg);
  if (self->n < 2 || pw < 20 || ph < 20)
    {
      text (cr, widget, _("No measurement"), w / 2, h / 2 - 8, 0.5, &dim);
      return;
    }

  xmin = self->offset_m[0];
  xmax = self->offset_m[self->n - 1];
  if (xmax <= xmin)
    xmax = xmin + 1;

#define PX(x) (left + ((x) - xmin) / (xmax - xmin) * pw)
#define PY(db) (top + (0.0 - MAX ((db), FLOOR_DB)) / (0.0 - FLOOR_DB) * ph)

  /* Grid: every 10 dB, and the axis. */
  cairo_set_line_width (cr, 1);
  for (double db = 0; db >= FLOOR_DB; db -= 10)
    {
      g_autofree char *s = g_strdup_printf ("%.0f", db);
      gdk_cairo_set_source_rgba (cr, &dim);
      cairo_move_to (cr, left, floor (PY (db)) + 0.5);
      cairo_line_to (cr, left + pw, floor (PY (db)) + 0.5);
      cairo_stroke (cr);
      text (cr, widget, s, left - 4, PY (db) - 7, 1.0, &dim);
    }
  {
    g_autofree char *s0 = g_strdup_printf (_("%.2f m"), xmin);
    g_autofree char *s1 = g_strdup_printf (_("%.2f m"), xmax);
    text (cr, widget, s0, left, top + ph + 3, 0, &dim);
    text (cr, widget, s1, left + pw, top + ph + 3, 1.0, &dim);
    text (cr, widget, "0", PX (0), top + ph + 3, 0.5, &dim);
  }

  /* The -3 dB line and the measured sidelobe level. */
  {
    static const double dash[] = { 4, 3 };
    cairo_set_dash (cr, dash, 2, 0);
    gdk_cairo_set_source_rgba (cr, &warn);
    cairo_move_to (cr, left, PY (-3.0));
    cairo_line_to (cr, left + pw, PY (-3.0));
    cairo_stroke (cr);
    if (isfinite (self->pslr_db) && self->pslr_db > FLOOR_DB)
      {
        gdk_cairo_set_source_rgba (cr, &dim);
        cairo_move_to (cr, left, PY (self->pslr_db));
        cairo_line_to (cr, left + pw, PY (self->pslr_db));
        cairo_stroke (cr);
      }
    cairo_set_dash (cr, NULL, 0, 0);
  }

  cairo_save (cr);
  cairo_rectangle (cr, left, top, pw, ph);
  cairo_clip (cr);
  gdk_cairo_set_source_rgba (cr, &accent);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint i = 0; i < self->n; i++)
    {
      double x = PX (self->offset_m[i]), y = PY (self->level_db[i]);
      if (i == 0)
        cairo_move_to (cr, x, y);
      else
        cairo_line_to (cr, x, y);
    }
  cairo_stroke (cr);
  /* Mark the -3 dB width. */
  if (isfinite (self->irw_m) && self->irw_m > 0)
    {
      gdk_cairo_set_source_rgba (cr, &warn);
      cairo_set_line_width (cr, 2);
      cairo_move_to (cr, PX (-0.5 * self->irw_m), PY (-3.0));
      cairo_line_to (cr, PX (0.5 * self->irw_m), PY (-3.0));
      cairo_stroke (cr);
    }
  cairo_restore (cr);

  gdk_cairo_set_source_rgba (cr, &dim);
  cairo_rectangle (cr, left + 0.5, top + 0.5, pw - 1, ph - 1);
  cairo_stroke (cr);
  {
    /* Inside the plot's top right corner, clear of the title whatever the language. */
    g_autofree char *s = g_strdup_printf (_("IRW %.3f m · PSLR %.1f dB"), self->irw_m, self->pslr_db);
    text (cr, widget, s, left + pw - 4, top + 2, 1.0, &dim);
  }
#undef PX
#undef PY
}

static void
ef_cut_plot_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (w < 2 || h < 2)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, (float) w, (float) h));
  draw (EF_CUT_PLOT (widget), cr, w, h);
  cairo_destroy (cr);
}

static void
ef_cut_plot_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum, int *natural,
                     int *minimum_baseline, int *natural_baseline)
{
  /* Short enough that both cuts fit under the figures in a window 800 pixels tall. */
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 200 : 110;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 320 : 140;
}

static void
ef_cut_plot_finalize (GObject *object)
{
  EfCutPlot *self = EF_CUT_PLOT (object);

  g_free (self->title);
  g_free (self->offset_m);
  g_free (self->level_db);
  G_OBJECT_CLASS (ef_cut_plot_parent_class)->finalize (object);
}

static void
ef_cut_plot_class_init (EfCutPlotClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ef_cut_plot_finalize;
  widget_class->snapshot = ef_cut_plot_snapshot;
  widget_class->measure = ef_cut_plot_measure;
  gtk_widget_class_set_css_name (widget_class, "cutplot");
}

static void
ef_cut_plot_init (EfCutPlot *self)
{
}

gboolean
ef_cut_plot_has_cut (EfCutPlot *self)
{
  g_return_val_if_fail (EF_IS_CUT_PLOT (self), FALSE);
  return self->n > 1;
}

GtkWidget *
ef_cut_plot_new (const char *title)
{
  EfCutPlot *self = g_object_new (EF_TYPE_CUT_PLOT, NULL);

  self->title = g_strdup (title);
  return GTK_WIDGET (self);
}
