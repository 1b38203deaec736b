/* ef-geometry-plot.c: cairo drawing of the acquisition geometry from above. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-geometry-plot"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-geometry-plot.h"

/* A path of a million pulses is drawn from this many points at most. */
#define MAX_DRAWN_PULSES 4000

struct _EfGeometryPlot {
  GtkWidget  parent_instance;

  EfDataset *dataset;   /* owned reference */
  gboolean   has_box, has_roi;
  double     box[4], roi[4];
  guint8    *done;      /* owned, n_pulses */
  guint64    n_done_total;
};

G_DEFINE_FINAL_TYPE (EfGeometryPlot, ef_geometry_plot, GTK_TYPE_WIDGET)

void
ef_geometry_plot_set_dataset (EfGeometryPlot *self, EfDataset *dataset, const double box[4])
{
  g_return_if_fail (EF_IS_GEOMETRY_PLOT (self));
  g_clear_pointer (&self->dataset, ef_dataset_unref);
  g_clear_pointer (&self->done, g_free);
  self->dataset = dataset ? ef_dataset_ref (dataset) : NULL;
  self->has_box = box != NULL;
  if (box != NULL)
    memcpy (self->box, box, sizeof self->box);
  self->has_roi = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_geometry_plot_set_roi (EfGeometryPlot *self, const double roi[4])
{
  g_return_if_fail (EF_IS_GEOMETRY_PLOT (self));
  self->has_roi = roi != NULL;
  if (roi != NULL)
    memcpy (self->roi, roi, sizeof self->roi);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_geometry_plot_set_done (EfGeometryPlot *self, const gboolean *done, guint64 n)
{
  g_return_if_fail (EF_IS_GEOMETRY_PLOT (self));
  g_clear_pointer (&self->done, g_free);
  self->n_done_total = 0;
  if (done != NULL && self->dataset != NULL && n == self->dataset->info.n_pulses)
    {
      self->done = g_malloc (n);
      for (guint64 i = 0; i < n; i++)
        {
          self->done[i] = done[i] ? 1 : 0;
          self->n_done_total += self->done[i];
        }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

typedef struct {
  double ox, oy, k;  /* widget = (ox + k x, oy - k y) */
} Map;

static void
map_fit (Map *m, double x0, double y0, double x1, double y1, double left, double top, double w, double h)
{
  double bw = MAX (x1 - x0, 1e-9), bh = MAX (y1 - y0, 1e-9);

  m->k = MIN (w / bw, h / bh);
  m->ox = left + 0.5 * w - m->k * 0.5 * (x0 + x1);
  m->oy = top + 0.5 * h + m->k * 0.5 * (y0 + y1);
}

static void
map_point (const Map *m, double x, double y, double *wx, double *wy)
{
  *wx = m->ox + m->k * x;
  *wy = m->oy - m->k * y;
}

static void
rect_path (cairo_t *cr, const Map *m, const double b[4])
{
  double ax, ay, bx, by;

  map_point (m, b[0], b[3], &ax, &ay);
  map_point (m, b[2], b[1], &bx, &by);
  cairo_rectangle (cr, ax, ay, MAX (bx - ax, 1), MAX (by - ay, 1));
}

static void
draw_label (cairo_t *cr, GtkWidget *widget, const char *text, double x, double y, const GdkRGBA *color)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
  PangoAttrList *attrs = pango_attr_list_new ();

  pango_attr_list_insert (attrs, pango_attr_scale_new (0.85));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  gdk_cairo_set_source_rgba (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

static void
draw (EfGeometryPlot *self, cairo_t *cr, double w, double h)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GdkRGBA fg, dim, accent = { 0.21, 0.52, 0.89, 1 }, roi_color = { 0.90, 0.38, 0.0, 1 };
  const EfPulse *pulses;
  guint64 n, step;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0, inset, ix, iy;
  Map m, mi;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  dim = fg;
  dim.alpha = 0.35f;

  if (self->dataset == NULL)
    {
      draw_label (cr, widget, _("No collection open"), 12, 12, &dim);
      return;
    }

  pulses = self->dataset->pulses;
  n = self->dataset->info.n_pulses;
  step = MAX (1, n / MAX_DRAWN_PULSES);
  for (guint64 i = 0; i < n; i++)
    {
      x0 = MIN (x0, pulses[i].tx[0]);
      x1 = MAX (x1, pulses[i].tx[0]);
      y0 = MIN (y0, pulses[i].tx[1]);
      y1 = MAX (y1, pulses[i].tx[1]);
    }
  {
    double pad = 0.08 * MAX (x1 - x0, y1 - y0);
    x0 -= pad;
    x1 += pad;
    y0 -= pad;
    y1 += pad;
  }
  map_fit (&m, x0, y0, x1, y1, 8, 24, w - 16, h - 32);

  draw_label (cr, widget, _("Flight path, seen from above"), 8, 4, &dim);

  /* The aperture wedge: lines of sight from the first and last pulses to the scene centre. */
  {
    double sx, sy, ax, ay;
    cairo_set_line_width (cr, 1);
    gdk_cairo_set_source_rgba (cr, &dim);
    map_point (&m, 0, 0, &sx, &sy);
    for (int e = 0; e < 2; e++)
      {
        const EfPulse *p = &pulses[e == 0 ? 0 : n - 1];
        map_point (&m, p->tx[0], p->tx[1], &ax, &ay);
        cairo_move_to (cr, ax, ay);
        cairo_line_to (cr, sx, sy);
      }
    {
      static const double dash[] = { 3, 3 };
      cairo_set_dash (cr, dash, 2, 0);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  }

  /* The path, pulses in use bright. */
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (int pass = 0; pass < 2; pass++)
    {
      gboolean in_run = FALSE;

      cairo_set_line_width (cr, pass == 0 ? 2 : 4);
      gdk_cairo_set_source_rgba (cr, pass == 0 ? &fg : &accent);
      for (guint64 i = 0; i < n; i += step)
        {
          gboolean on = pass == 0 || (self->done != NULL && self->done[i]);
          double px, py;

          map_point (&m, pulses[i].tx[0], pulses[i].tx[1], &px, &py);
          if (on && !in_run)
            cairo_move_to (cr, px, py);
          else if (on)
            cairo_line_to (cr, px, py);
          else if (in_run)
            {
              cairo_line_to (cr, px, py);
              cairo_stroke (cr);
            }
          in_run = on;
        }
      if (in_run)
        cairo_stroke (cr);
    }

  /* Direction of flight. */
  if (n >= 2)
    {
      double ax, ay, bx, by, ang;
      map_point (&m, pulses[n - 1 - MIN (n - 1, step)].tx[0], pulses[n - 1 - MIN (n - 1, step)].tx[1], &ax, &ay);
      map_point (&m, pulses[n - 1].tx[0], pulses[n - 1].tx[1], &bx, &by);
      ang = atan2 (by - ay, bx - ax);
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_move_to (cr, bx + 8 * cos (ang), by + 8 * sin (ang));
      cairo_line_to (cr, bx + 8 * cos (ang + 2.5), by + 8 * sin (ang + 2.5));
      cairo_line_to (cr, bx + 8 * cos (ang - 2.5), by + 8 * sin (ang - 2.5));
      cairo_close_path (cr);
      cairo_fill (cr);
    }

  /* The scene centre. */
  {
    double sx, sy;
    map_point (&m, 0, 0, &sx, &sy);
    gdk_cairo_set_source_rgba (cr, &roi_color);
    cairo_arc (cr, sx, sy, 3, 0, 2 * G_PI);
    cairo_fill (cr);
  }

  /* The scene itself is tiny at this scale: show it in an inset. */
  inset = MIN (w, h) * 0.42;
  ix = w - inset - 8;
  iy = h - inset - 8;
  cairo_set_source_rgba (cr, 0, 0, 0, 0.06);
  cairo_rectangle (cr, ix, iy, inset, inset);
  cairo_fill (cr);
  gdk_cairo_set_source_rgba (cr, &dim);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, ix + 0.5, iy + 0.5, inset - 1, inset - 1);
  cairo_stroke (cr);
  if (self->has_box)
    {
      const double *b = self->box;
      double pad = 0.08 * MAX (b[2] - b[0], b[3] - b[1]);
      const EfPulse *mid = &pulses[n / 2];
      double len = hypot (mid->tx[0], mid->tx[1]);
      double sx, sy;

      map_fit (&mi, b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad, ix + 4, iy + 16, inset - 8, inset - 20);
      draw_label (cr, widget, _("Scene"), ix + 4, iy + 2, &dim);
      gdk_cairo_set_source_rgba (cr, &fg);
      rect_path (cr, &mi, b);
      cairo_stroke (cr);
      if (self->has_roi)
        {
          cairo_save (cr);
          cairo_rectangle (cr, ix, iy, inset, inset);
          cairo_clip (cr);
          gdk_cairo_set_source_rgba (cr, &roi_color);
          cairo_set_line_width (cr, 2);
          rect_path (cr, &mi, self->roi);
          cairo_stroke (cr);
          cairo_restore (cr);
        }
      /* The look direction, from the mid-aperture antenna towards the scene. */
      if (len > 0)
        {
          double ux = -mid->tx[0] / len, uy = -mid->tx[1] / len;
          double r = 0.5 * (b[2] - b[0]) + pad * 0.9, ex, ey, ang;

          map_point (&mi, -ux * r, -uy * r, &sx, &sy);
          map_point (&mi, -ux * (r - 0.35 * r), -uy * (r - 0.35 * r), &ex, &ey);
          gdk_cairo_set_source_rgba (cr, &accent);
          cairo_set_line_width (cr, 2);
          cairo_move_to (cr, sx, sy);
          cairo_line_to (cr, ex, ey);
          cairo_stroke (cr);
          ang = atan2 (ey - sy, ex - sx);
          cairo_move_to (cr, ex + 6 * cos (ang), ey + 6 * sin (ang));
          cairo_line_to (cr, ex + 6 * cos (ang + 2.5), ey + 6 * sin (ang + 2.5));
          cairo_line_to (cr, ex + 6 * cos (ang - 2.5), ey + 6 * sin (ang - 2.5));
          cairo_close_path (cr);
          cairo_fill (cr);
        }
    }

  /* North. */
  gdk_cairo_set_source_rgba (cr, &fg);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, 16, h - 12);
  cairo_line_to (cr, 16, h - 36);
  cairo_stroke (cr);
  cairo_move_to (cr, 16, h - 40);
  cairo_line_to (cr, 12, h - 32);
  cairo_line_to (cr, 20, h - 32);
  cairo_close_path (cr);
  cairo_fill (cr);
  draw_label (cr, widget, C_("compass", "N"), 22, h - 44, &fg);

  {
    g_autofree char *done = g_strdup_printf ("%" G_GUINT64_FORMAT, self->n_done_total);
    g_autofree char *total = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
    /* Translators: "120 of 469 pulses used" */
    g_autofree char *text = g_strdup_printf (_("%s of %s pulses used"), done, total);
    draw_label (cr, widget, text, 8, 22, &dim);
  }
}

static void
ef_geometry_plot_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (w < 2 || h < 2)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, (float) w, (float) h));
  draw (EF_GEOMETRY_PLOT (widget), cr, w, h);
  cairo_destroy (cr);
}

static void
ef_geometry_plot_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                          int *natural, int *minimum_baseline, int *natural_baseline)
{
  *minimum = 160;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 320 : (for_size > 0 ? MAX (160, for_size) : 320);
}

static void
ef_geometry_plot_finalize (GObject *object)
{
  EfGeometryPlot *self = EF_GEOMETRY_PLOT (object);

  g_clear_pointer (&self->dataset, ef_dataset_unref);
  g_free (self->done);
  G_OBJECT_CLASS (ef_geometry_plot_parent_class)->finalize (object);
}

static void
ef_geometry_plot_class_init (EfGeometryPlotClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ef_geometry_plot_finalize;
  widget_class->snapshot = ef_geometry_plot_snapshot;
  widget_class->measure = ef_geometry_plot_measure;
  gtk_widget_class_set_css_name (widget_class, "geometryplot");
}

static void
ef_geometry_plot_init (EfGeometryPlot *self)
{
}

GtkWidget *
ef_geometry_plot_new (void)
{
  return g_object_new (EF_TYPE_GEOMETRY_PLOT, NULL);
}
