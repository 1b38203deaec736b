/* ef-geometry-plot.c: cairo drawing of the acquisition geometry from above. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-geometry-plot"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-geometry-plot.h"
#if EF_TEST_HOOKS
#include "ef-geometry-plot-test.h"
#endif

/* A path of a million pulses is drawn from this many points at most. */
#define MAX_DRAWN_PULSES 4000

/* Scene coordinates are drawn as the image shows them: x to the right, north (+y) up, so that the
 * sketch and the image can be read together. rot stays the identity; then scaled to widgets. */
typedef struct {
  double c, s;       /* rotation */
  double ox, oy, k;  /* widget = (ox + k x', oy - k y') */
} Map;

struct _EfGeometryPlot {
  GtkWidget  parent_instance;

  EfDataset *dataset;   /* owned reference */
  gboolean   has_box, has_roi;
  double     box[4], roi[4];
  guint8    *done;      /* owned, n_pulses */
  guint64    n_done_total;
  gboolean   has_scene_map;
  Map        scene_map;  /* the scene inset's, as last drawn */
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

static void
rotate (const Map *m, double x, double y, double *rx, double *ry)
{
  *rx = m->c * x - m->s * y;
  *ry = m->s * x + m->c * y;
}

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
  double rx, ry;

  rotate (m, x, y, &rx, &ry);
  *wx = m->ox + m->k * rx;
  *wy = m->oy - m->k * ry;
}

/* A scene rectangle, which the rotation turns into a general quadrilateral. */
static void
rect_path (cairo_t *cr, const Map *m, const double b[4])
{
  const double corners[4][2] = { { b[0], b[1] }, { b[2], b[1] }, { b[2], b[3] }, { b[0], b[3] } };

  for (int i = 0; i < 4; i++)
    {
      double wx, wy;
      map_point (m, corners[i][0], corners[i][1], &wx, &wy);
      if (i == 0)
        cairo_move_to (cr, wx, wy);
      else
        cairo_line_to (cr, wx, wy);
    }
  cairo_close_path (cr);
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
arrow_head (cairo_t *cr, double x, double y, double ang, double size)
{
  cairo_move_to (cr, x + size * cos (ang), y + size * sin (ang));
  cairo_line_to (cr, x + size * cos (ang + 2.5), y + size * sin (ang + 2.5));
  cairo_line_to (cr, x + size * cos (ang - 2.5), y + size * sin (ang - 2.5));
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
draw_north (cairo_t *cr, GtkWidget *widget, const Map *m, double x, double y, const GdkRGBA *fg)
{
  double nx, ny, ang;

  /* North is +y in the scene; where it points on the page depends on the rotation. */
  rotate (m, 0, 1, &nx, &ny);
  ang = atan2 (-ny, nx);
  gdk_cairo_set_source_rgba (cr, fg);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, x - 11 * cos (ang), y - 11 * sin (ang));
  cairo_line_to (cr, x + 7 * cos (ang), y + 7 * sin (ang));
  cairo_stroke (cr);
  arrow_head (cr, x + 11 * cos (ang), y + 11 * sin (ang), ang, 5);
  {
    g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, C_("compass", "N"));
    int tw, th;

    /* Centred beyond the tip, on whichever side it points. */
    pango_layout_get_pixel_size (layout, &tw, &th);
    cairo_move_to (cr, x + 20 * cos (ang) - 0.5 * tw, y + 20 * sin (ang) - 0.5 * th);
    pango_cairo_show_layout (cr, layout);
  }
}

static void
draw (EfGeometryPlot *self, cairo_t *cr, double w, double h)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GdkRGBA fg, dim, accent = { 0.21, 0.52, 0.89, 1 }, roi_color = { 0.90, 0.38, 0.0, 1 };
  const EfPulse *pulses, *mid;
  guint64 n, step;
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE, split, phi, pad;
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
  mid = &pulses[n / 2];
  step = MAX (1, n / MAX_DRAWN_PULSES);
  phi = atan2 (mid->tx[1], mid->tx[0]);
  m.c = 1;
  m.s = 0;
  mi.c = m.c;
  mi.s = m.s;

  /* The path and the scene centre, in the turned frame. */
  for (guint64 i = 0; i <= n; i += (i == n ? 1 : step))
    {
      double rx, ry;
      if (i == n)
        rotate (&m, 0, 0, &rx, &ry);
      else
        rotate (&m, pulses[i].tx[0], pulses[i].tx[1], &rx, &ry);
      x0 = MIN (x0, rx);
      x1 = MAX (x1, rx);
      y0 = MIN (y0, ry);
      y1 = MAX (y1, ry);
      if (i == n)
        break;
    }
  pad = 0.06 * MAX (x1 - x0, y1 - y0);
  split = h * 0.55;
  map_fit (&m, x0 - pad, y0 - pad, x1 + pad, y1 + pad, 8, 44, w - 16, split - 52);

  draw_label (cr, widget, _("Flight path, seen from above"), 8, 4, &dim);
  {
    g_autofree char *done = g_strdup_printf ("%" G_GUINT64_FORMAT, self->n_done_total);
    g_autofree char *total = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
    /* Translators: "120 of 469 pulses used" */
    g_autofree char *text = g_strdup_printf (_("%s of %s pulses used"), done, total);
    draw_label (cr, widget, text, 8, 22, &dim);
  }

  /* The aperture wedge: lines of sight from the first and last pulses to the scene centre. */
  {
    static const double dash[] = { 3, 3 };
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
    cairo_set_dash (cr, dash, 2, 0);
    cairo_stroke (cr);
    cairo_set_dash (cr, NULL, 0, 0);
  }

  /* The path, pulses in use bright. */
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (int pass = 0; pass < 2; pass++)
    {
      gboolean in_run = FALSE;

      cairo_set_line_width (cr, pass == 0 ? 2 : 5);
      gdk_cairo_set_source_rgba (cr, pass == 0 ? &fg : &accent);
      for (guint64 i = 0; i < n; i += step)
        {
          gboolean on = pass == 0 || (self->done != NULL && self->done[i]);
          double px, py;

          map_point (&m, pulses[i].tx[0], pulses[i].tx[1], &px, &py);
          if (on && !in_run)
            {
              cairo_move_to (cr, px, py);
              cairo_line_to (cr, px, py);
            }
          else if (on)
            cairo_line_to (cr, px, py);
          else if (in_run)
            cairo_stroke (cr);
          in_run = on;
        }
      if (in_run)
        cairo_stroke (cr);
    }

  /* Direction of flight. */
  if (n >= 2)
    {
      double ax, ay, bx, by;
      const EfPulse *p = &pulses[n - 1 - MIN (n - 1, step)];

      map_point (&m, p->tx[0], p->tx[1], &ax, &ay);
      map_point (&m, pulses[n - 1].tx[0], pulses[n - 1].tx[1], &bx, &by);
      gdk_cairo_set_source_rgba (cr, &fg);
      arrow_head (cr, bx, by, atan2 (by - ay, bx - ax), 8);
    }

  /* The scene centre. */
  {
    double sx, sy;
    map_point (&m, 0, 0, &sx, &sy);
    gdk_cairo_set_source_rgba (cr, &roi_color);
    cairo_arc (cr, sx, sy, 3.5, 0, 2 * G_PI);
    cairo_fill (cr);
  }
  draw_north (cr, widget, &m, w - 34, 64, &fg);

  /* The scene itself is tiny at that scale: below, on its own, turned the same way. */
  if (self->has_box)
    {
      const double *b = self->box;
      double half = 0.5 * MAX (b[2] - b[0], b[3] - b[1]) * M_SQRT2 * 1.05;
      double top = split + 8, size = h - top - 8, sx, sy, ex, ey;

      cairo_set_source_rgba (cr, 0, 0, 0, 0.05);
      cairo_rectangle (cr, 8, top, w - 16, size);
      cairo_fill (cr);
      draw_label (cr, widget, _("Scene"), 14, top + 4, &dim);
      map_fit (&mi, -half, -half, half, half, 8, top + 18, w - 16, size - 22);
      self->scene_map = mi;
      self->has_scene_map = TRUE;
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_set_line_width (cr, 1);
      rect_path (cr, &mi, b);
      cairo_stroke (cr);
      if (self->has_roi)
        {
          gdk_cairo_set_source_rgba (cr, &roi_color);
          cairo_set_line_width (cr, 2);
          rect_path (cr, &mi, self->roi);
          cairo_stroke (cr);
        }
      /* The look direction at mid-aperture, from the antenna's side towards the scene. */
      {
        double ux = cos (phi), uy = -sin (phi), reach = 0.5 * MIN (w - 16, size - 22);

        map_point (&mi, 0, 0, &sx, &sy);
        ex = sx + 0.55 * reach * ux;
        ey = sy + 0.55 * reach * uy;
        gdk_cairo_set_source_rgba (cr, &accent);
        cairo_set_line_width (cr, 2);
        cairo_move_to (cr, sx + 0.92 * reach * ux, sy + 0.92 * reach * uy);
        cairo_line_to (cr, ex, ey);
        cairo_stroke (cr);
        arrow_head (cr, ex - 4 * ux, ey - 4 * uy, atan2 (-uy, -ux), 6);
      }
      draw_north (cr, widget, &mi, w - 34, top + 34, &fg);
    }
}

#if EF_TEST_HOOKS
gboolean
ef_geometry_plot_scene_to_widget (EfGeometryPlot *self, double x, double y, double *wx, double *wy)
{
  g_return_val_if_fail (EF_IS_GEOMETRY_PLOT (self), FALSE);
  if (!self->has_scene_map)
    return FALSE;
  map_point (&self->scene_map, x, y, wx, wy);
  return TRUE;
}
#endif

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
