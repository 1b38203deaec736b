/* ef-compare-view.c: two formed images compared: side by side (pan and zoom linked), a swipe, a dB difference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-compare-view"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-compare-view.h"

/* The size the view is taken to have before it is drawn (tests probe it unrealized). */
#define DEFAULT_W 800
#define DEFAULT_H 600
/* Widget pixels within which a drag in swipe mode takes the line rather than the scene. */
#define SWIPE_GRAB_PX 8

typedef struct {
  EfImage *image;     /* owned copy */
  char    *label;     /* owned */
  double   peak;      /* largest magnitude */
} Side;

struct _EfCompareView {
  GtkWidget     parent_instance;

  Side          side[2];
  EfCompareMode mode;
  double        swipe;            /* fraction of the width */
  double        range_db, diff_db;
  /* One view of the scene for every pane: its centre (m) and the zoom over the fit. */
  double        cx, cy, zoom;
  double        bounds[4];        /* x0, y0, x1, y1 of both images, m */
  int           last_w, last_h;   /* the size last drawn or probed */
  /* a drag in progress */
  double        drag_x, drag_y;
  gboolean      dragging_swipe;
};

G_DEFINE_FINAL_TYPE (EfCompareView, ef_compare_view, GTK_TYPE_WIDGET)

static void
side_clear (Side *s)
{
  g_clear_pointer (&s->image, ef_image_free);
  g_clear_pointer (&s->label, g_free);
  s->peak = 0;
}

static void
side_set (Side *s, const EfImage *im, const char *label)
{
  gsize n;

  side_clear (s);
  if (im == NULL)
    return;
  s->image = ef_image_new (&im->grid, NULL);
  if (s->image == NULL)
    return;
  n = ef_grid_n_pixels (&im->grid);
  memcpy (s->image->data, im->data, n * sizeof (EfCf32));
  s->label = g_strdup (label);
  for (gsize i = 0; i < n; i++)
    s->peak = MAX (s->peak, (double) cabsf (im->data[i]));
}

/* The pane (one of the side-by-side halves, or the whole width) a widget x falls in. */
static void
pane_of (EfCompareView *self, int width, double x, double *x0, double *pw, int *index)
{
  if (self->mode == EF_COMPARE_SIDE_BY_SIDE)
    {
      int half = width / 2;

      *index = x < half ? 0 : 1;
      *x0 = *index == 0 ? 0 : half;
      *pw = *index == 0 ? half : width - half;
    }
  else
    {
      *index = 0;
      *x0 = 0;
      *pw = width;
    }
}

/* Pixels per metre for a pane of pw x h. */
static double
pane_scale (EfCompareView *self, double pw, double h)
{
  double w_m = MAX (self->bounds[2] - self->bounds[0], 1e-6), h_m = MAX (self->bounds[3] - self->bounds[1], 1e-6);

  return 0.95 * MIN (pw / w_m, h / h_m) * self->zoom;
}

static void
remember_size (EfCompareView *self, int width, int height)
{
  if (width > 0 && height > 0)
    {
      self->last_w = width;
      self->last_h = height;
    }
}

/* The value of image s at scene point (x, y), in dB below its peak; FALSE outside it. */
static gboolean
sample (const Side *s, double x, double y, double *db)
{
  double pos[3] = { x, y, 0 }, col, row;
  long c, r;

  if (s->image == NULL || !(s->peak > 0))
    return FALSE;
  ef_grid_position_to_pixel (&s->image->grid, pos, &col, &row);
  c = lround (col);
  r = lround (row);
  if (c < 0 || r < 0 || c >= (long) s->image->grid.width || r >= (long) s->image->grid.height)
    return FALSE;
  *db = 20.0 * log10 (MAX ((double) cabsf (s->image->data[(gsize) r * s->image->grid.width + c]), 1e-30) / s->peak);
  return TRUE;
}

EfCompareSource
ef_compare_view_probe (EfCompareView *self, int width, int height, double x, double y, double scene[2],
                       double *value_db)
{
  double x0, pw, scale, sx, sy, a = 0, b = 0;
  int pane;
  gboolean has_a, has_b;

  g_return_val_if_fail (EF_IS_COMPARE_VIEW (self), EF_COMPARE_NOTHING);
  if (width <= 0 || height <= 0)
    return EF_COMPARE_NOTHING;
  pane_of (self, width, x, &x0, &pw, &pane);
  scale = pane_scale (self, pw, height);
  sx = self->cx + (x - x0 - 0.5 * pw) / scale;
  sy = self->cy - (y - 0.5 * height) / scale;
  if (scene != NULL)
    {
      scene[0] = sx;
      scene[1] = sy;
    }
  switch (self->mode)
    {
    case EF_COMPARE_SIDE_BY_SIDE:
      if (!sample (&self->side[pane], sx, sy, value_db != NULL ? value_db : &a))
        return EF_COMPARE_NOTHING;
      return pane == 0 ? EF_COMPARE_A : EF_COMPARE_B;
    case EF_COMPARE_SWIPE:
      {
        int which = x < self->swipe * width ? 0 : 1;

        if (!sample (&self->side[which], sx, sy, value_db != NULL ? value_db : &a))
          return EF_COMPARE_NOTHING;
        return which == 0 ? EF_COMPARE_A : EF_COMPARE_B;
      }
    case EF_COMPARE_DIFFERENCE:
    default:
      has_a = sample (&self->side[0], sx, sy, &a);
      has_b = sample (&self->side[1], sx, sy, &b);
      if (!has_a || !has_b)
        return EF_COMPARE_NOTHING;
      if (value_db != NULL)
        *value_db = a - b;
      return EF_COMPARE_DIFF;
    }
}

/* Grey for an image in dB below its peak; a diverging blue-white-red for the difference. */
static guint32
colour (EfCompareView *self, EfCompareSource src, double v)
{
  double r, g, b;

  if (src == EF_COMPARE_NOTHING)
    return 0xff202020u;
  if (src == EF_COMPARE_DIFF)
    {
      double t = CLAMP (v / self->diff_db, -1.0, 1.0);

      r = t > 0 ? 1.0 : 1.0 + t;
      b = t < 0 ? 1.0 : 1.0 - t;
      g = 1.0 - fabs (t);
    }
  else
    r = g = b = CLAMP (1.0 + v / self->range_db, 0.0, 1.0);
  return 0xff000000u | ((guint32) lround (r * 255) << 16) | ((guint32) lround (g * 255) << 8) | (guint32) lround (b * 255);
}

cairo_surface_t *
ef_compare_view_render (EfCompareView *self, int width, int height)
{
  cairo_surface_t *surf;
  guint8 *data;
  int stride;

  g_return_val_if_fail (EF_IS_COMPARE_VIEW (self), NULL);
  width = MAX (width, 1);
  height = MAX (height, 1);
  remember_size (self, width, height);
  surf = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_surface_flush (surf);
  data = cairo_image_surface_get_data (surf);
  stride = cairo_image_surface_get_stride (surf);
  for (int y = 0; y < height; y++)
    {
      guint32 *row = (guint32 *) (data + (gsize) y * stride);

      for (int x = 0; x < width; x++)
        {
          double v = 0;
          EfCompareSource src = ef_compare_view_probe (self, width, height, x + 0.5, y + 0.5, NULL, &v);

          row[x] = colour (self, src, v);
        }
    }
  cairo_surface_mark_dirty (surf);
  {
    cairo_t *cr = cairo_create (surf);

    cairo_set_line_width (cr, 2);
    cairo_set_source_rgb (cr, 1.0, 0.8, 0.1);
    if (self->mode == EF_COMPARE_SIDE_BY_SIDE)
      {
        cairo_move_to (cr, width / 2, 0);
        cairo_line_to (cr, width / 2, height);
        cairo_stroke (cr);
      }
    else if (self->mode == EF_COMPARE_SWIPE)
      {
        cairo_move_to (cr, self->swipe * width, 0);
        cairo_line_to (cr, self->swipe * width, height);
        cairo_stroke (cr);
      }
    cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size (cr, 14);
    if (self->mode == EF_COMPARE_DIFFERENCE)
      {
        g_autofree char *t = g_strdup_printf ("A − B, ±%.0f dB: %s − %s", self->diff_db,
                                              self->side[0].label ? self->side[0].label : "A",
                                              self->side[1].label ? self->side[1].label : "B");
        cairo_move_to (cr, 10, 22);
        cairo_show_text (cr, t);
      }
    else
      {
        g_autofree char *ta = g_strdup_printf ("A: %s", self->side[0].label ? self->side[0].label : "");
        g_autofree char *tb = g_strdup_printf ("B: %s", self->side[1].label ? self->side[1].label : "");
        cairo_text_extents_t e;

        cairo_move_to (cr, 10, 22);
        cairo_show_text (cr, ta);
        cairo_text_extents (cr, tb, &e);
        cairo_move_to (cr, width - e.x_advance - 10, 22);
        cairo_show_text (cr, tb);
      }
    cairo_destroy (cr);
  }
  return surf;
}

static void
ef_compare_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  EfCompareView *self = EF_COMPARE_VIEW (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  cairo_surface_t *surf;
  cairo_t *cr;

  if (w <= 0 || h <= 0)
    return;
  surf = ef_compare_view_render (self, w, h);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  cairo_set_source_surface (cr, surf, 0, 0);
  cairo_paint (cr);
  cairo_destroy (cr);
  cairo_surface_destroy (surf);
}

static void
fit (EfCompareView *self)
{
  double b[4] = { INFINITY, INFINITY, -INFINITY, -INFINITY };

  for (int i = 0; i < 2; i++)
    {
      const EfImage *im = self->side[i].image;

      if (im == NULL)
        continue;
      for (int k = 0; k < 4; k++)
        {
          double p[3];

          ef_grid_pixel_position (&im->grid, (k & 1) ? im->grid.width - 0.5 : -0.5, (k & 2) ? im->grid.height - 0.5 : -0.5, p);
          b[0] = MIN (b[0], p[0]);
          b[1] = MIN (b[1], p[1]);
          b[2] = MAX (b[2], p[0]);
          b[3] = MAX (b[3], p[1]);
        }
    }
  if (!isfinite (b[0]))
    {
      b[0] = b[1] = -1;
      b[2] = b[3] = 1;
    }
  memcpy (self->bounds, b, sizeof b);
  self->cx = 0.5 * (b[0] + b[2]);
  self->cy = 0.5 * (b[1] + b[3]);
  self->zoom = 1.0;
}

void
ef_compare_view_set_images (EfCompareView *self, const EfImage *a, const char *label_a, const EfImage *b,
                            const char *label_b)
{
  g_return_if_fail (EF_IS_COMPARE_VIEW (self));
  side_set (&self->side[0], a, label_a);
  side_set (&self->side[1], b, label_b);
  fit (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_compare_view_set_mode (EfCompareView *self, EfCompareMode mode)
{
  g_return_if_fail (EF_IS_COMPARE_VIEW (self));
  self->mode = CLAMP (mode, EF_COMPARE_SIDE_BY_SIDE, EF_COMPARE_DIFFERENCE);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

EfCompareMode
ef_compare_view_get_mode (EfCompareView *self)
{
  g_return_val_if_fail (EF_IS_COMPARE_VIEW (self), EF_COMPARE_SIDE_BY_SIDE);
  return self->mode;
}

void
ef_compare_view_set_swipe (EfCompareView *self, double fraction)
{
  g_return_if_fail (EF_IS_COMPARE_VIEW (self));
  self->swipe = isfinite (fraction) ? CLAMP (fraction, 0.0, 1.0) : 0.5;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

double
ef_compare_view_get_swipe (EfCompareView *self)
{
  g_return_val_if_fail (EF_IS_COMPARE_VIEW (self), 0.5);
  return self->swipe;
}

void
ef_compare_view_set_range (EfCompareView *self, double range_db, double diff_db)
{
  g_return_if_fail (EF_IS_COMPARE_VIEW (self));
  if (range_db > 0)
    self->range_db = range_db;
  if (diff_db > 0)
    self->diff_db = diff_db;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The pane size pan and zoom work in: the last drawn, or the default before any drawing. */
static void
current_pane (EfCompareView *self, double *pw, double *h, double *w)
{
  *w = self->last_w > 0 ? self->last_w : DEFAULT_W;
  *h = self->last_h > 0 ? self->last_h : DEFAULT_H;
  *pw = self->mode == EF_COMPARE_SIDE_BY_SIDE ? floor (*w / 2) : *w;
}

void
ef_compare_view_pan (EfCompareView *self, double dx, double dy)
{
  double pw, h, w, scale;

  g_return_if_fail (EF_IS_COMPARE_VIEW (self));
  current_pane (self, &pw, &h, &w);
  scale = pane_scale (self, pw, h);
  self->cx -= dx / scale;
  self->cy += dy / scale;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_compare_view_zoom (EfCompareView *self, double factor, double x, double y)
{
  double pw, h, w, x0, scale, sx, sy;
  int pane;

  g_return_if_fail (EF_IS_COMPARE_VIEW (self));
  if (!(factor > 0) || !isfinite (factor))
    return;
  current_pane (self, &pw, &h, &w);
  pane_of (self, (int) w, x, &x0, &pw, &pane);
  scale = pane_scale (self, pw, h);
  /* The scene point under (x, y) stays there. */
  sx = self->cx + (x - x0 - 0.5 * pw) / scale;
  sy = self->cy - (y - 0.5 * h) / scale;
  self->zoom = CLAMP (self->zoom * factor, 0.05, 200.0);
  scale = pane_scale (self, pw, h);
  self->cx = sx - (x - x0 - 0.5 * pw) / scale;
  self->cy = sy + (y - 0.5 * h) / scale;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ---- input ---- */

static void
drag_begin (GtkGestureDrag *g, double x, double y, EfCompareView *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self));

  remember_size (self, w, gtk_widget_get_height (GTK_WIDGET (self)));
  self->drag_x = self->drag_y = 0;
  self->dragging_swipe = self->mode == EF_COMPARE_SWIPE && fabs (x - self->swipe * w) <= SWIPE_GRAB_PX;
}

static void
drag_update (GtkGestureDrag *g, double ox, double oy, EfCompareView *self)
{
  if (self->dragging_swipe)
    {
      double sx = 0, sy = 0;
      int w = MAX (gtk_widget_get_width (GTK_WIDGET (self)), 1);

      gtk_gesture_drag_get_start_point (g, &sx, &sy);
      ef_compare_view_set_swipe (self, (sx + ox) / w);
      return;
    }
  ef_compare_view_pan (self, ox - self->drag_x, oy - self->drag_y);
  self->drag_x = ox;
  self->drag_y = oy;
}

static gboolean
scrolled (GtkEventControllerScroll *c, double dx, double dy, EfCompareView *self)
{
  double x = 0.5 * gtk_widget_get_width (GTK_WIDGET (self)), y = 0.5 * gtk_widget_get_height (GTK_WIDGET (self));
  GdkEvent *ev = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (c));

  if (ev != NULL)
    gdk_event_get_position (ev, &x, &y);
  remember_size (self, gtk_widget_get_width (GTK_WIDGET (self)), gtk_widget_get_height (GTK_WIDGET (self)));
  ef_compare_view_zoom (self, pow (1.15, -dy), x, y);
  return TRUE;
}

static void
ef_compare_view_finalize (GObject *object)
{
  EfCompareView *self = EF_COMPARE_VIEW (object);

  side_clear (&self->side[0]);
  side_clear (&self->side[1]);
  G_OBJECT_CLASS (ef_compare_view_parent_class)->finalize (object);
}

static void
ef_compare_view_measure (GtkWidget *widget, GtkOrientation o, int for_size, int *min, int *nat, int *min_b,
                         int *nat_b)
{
  *min = 100;
  *nat = o == GTK_ORIENTATION_HORIZONTAL ? DEFAULT_W : DEFAULT_H;
}

static void
ef_compare_view_class_init (EfCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ef_compare_view_finalize;
  widget_class->snapshot = ef_compare_view_snapshot;
  widget_class->measure = ef_compare_view_measure;
}

static void
ef_compare_view_init (EfCompareView *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);

  self->swipe = 0.5;
  self->range_db = 50;
  self->diff_db = 10;
  fit (self);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (scroll, "scroll", G_CALLBACK (scrolled), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
}

GtkWidget *
ef_compare_view_new (void)
{
  return g_object_new (EF_TYPE_COMPARE_VIEW, NULL);
}
