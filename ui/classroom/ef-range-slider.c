/* ef-range-slider.c: a slider with two handles, for a window [first, last] of a range. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-range-slider"
#include "config.h"

#include <math.h>

#include "ef-range-slider.h"

#define RADIUS 8.0
#define TEXT_WIDTH 96.0

struct _EfRangeSlider {
  GtkWidget parent_instance;

  double min, max, step;
  double hi_offset;   /* the last handle sits this far past a step: step - 1 for whole blocks */
  double lo, hi;
  int    active;      /* the handle the keys move: 0 = lo, 1 = hi */
  double drag_x;      /* where the drag began, widget coordinates */
};

G_DEFINE_FINAL_TYPE (EfRangeSlider, ef_range_slider, GTK_TYPE_WIDGET)

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static double
snap (EfRangeSlider *self, double v)
{
  v = CLAMP (v, self->min, self->max);
  if (self->step > 0)
    v = MIN (self->min + round ((v - self->min) / self->step) * self->step, self->max);
  return v;
}

static double
snap_hi (EfRangeSlider *self, double v)
{
  v = CLAMP (v, self->min, self->max);
  if (self->step > 0)
    v = MIN (self->min + round ((v - self->min - self->hi_offset) / self->step) * self->step + self->hi_offset,
             self->max);
  return MAX (v, self->min);
}

/* The room the values take on the right: the widest "lo – hi" in the widget's font (large text grows it). */
static double
text_width (EfRangeSlider *self)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), "0000 – 0000");
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  return MAX (TEXT_WIDTH, w + 16.0);
}

static double
track_width (EfRangeSlider *self)
{
  return MAX (gtk_widget_get_width (GTK_WIDGET (self)) - 2 * RADIUS - text_width (self), 1.0);
}

static double
x_of (EfRangeSlider *self, double v)
{
  double span = self->max > self->min ? self->max - self->min : 1;

  return RADIUS + track_width (self) * (v - self->min) / span;
}

static double
value_at (EfRangeSlider *self, double x)
{
  return self->min + (self->max - self->min) * (x - RADIUS) / track_width (self);
}

/* Moves the active handle to v; the other gives way when they cross. */
static void
move_active (EfRangeSlider *self, double v)
{
  double lo = self->lo, hi = self->hi;

  if (self->active == 0)
    {
      lo = snap (self, v);
      hi = MAX (hi, snap_hi (self, lo));
    }
  else
    {
      hi = snap_hi (self, v);
      lo = MIN (lo, snap (self, hi - self->hi_offset));
    }
  if (lo == self->lo && hi == self->hi)
    return;
  self->lo = lo;
  self->hi = hi;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
drag_begin (GtkGestureDrag *gesture, double x, double y, EfRangeSlider *self)
{
  double dl = fabs (x - x_of (self, self->lo)), dh = fabs (x - x_of (self, self->hi));

  /* The nearer handle; of two on top of each other, the one on the side clicked. */
  self->active = dl < dh || (dl == dh && x < x_of (self, self->lo)) ? 0 : 1;
  self->drag_x = x;
  gtk_widget_grab_focus (GTK_WIDGET (self));
  move_active (self, value_at (self, x));
}

static void
drag_update (GtkGestureDrag *gesture, double dx, double dy, EfRangeSlider *self)
{
  move_active (self, value_at (self, self->drag_x + dx));
}

static gboolean
key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
             EfRangeSlider *self)
{
  double step = self->step > 0 ? self->step : (self->max - self->min) / 100;
  double v = self->active == 0 ? self->lo : self->hi;

  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_Down:
      move_active (self, v - step);
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_Up:
      move_active (self, v + step);
      return TRUE;
    case GDK_KEY_Page_Down:
      move_active (self, v - 10 * step);
      return TRUE;
    case GDK_KEY_Page_Up:
      move_active (self, v + 10 * step);
      return TRUE;
    case GDK_KEY_Home:
      move_active (self, self->min);
      return TRUE;
    case GDK_KEY_End:
      move_active (self, self->max);
      return TRUE;
    case GDK_KEY_Tab:
    case GDK_KEY_ISO_Left_Tab:
      /* Tab goes from the first handle to the second before it leaves the slider. */
      if ((keyval == GDK_KEY_Tab) == (self->active == 0) && !(state & GDK_CONTROL_MASK))
        {
          self->active = 1 - self->active;
          gtk_widget_queue_draw (GTK_WIDGET (self));
          return TRUE;
        }
      return FALSE;
    default:
      return FALSE;
    }
}

static void
ef_range_slider_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  EfRangeSlider *self = EF_RANGE_SLIDER (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  double cy = 0.5 * h, xl = x_of (self, self->lo), xh = x_of (self, self->hi);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gboolean focus = gtk_widget_has_visible_focus (widget);
  g_autofree char *text = NULL;

  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_line_width (cr, 4);
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.35);
  cairo_move_to (cr, RADIUS, cy);
  cairo_line_to (cr, RADIUS + track_width (self), cy);
  cairo_stroke (cr);
  cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
  cairo_move_to (cr, xl, cy);
  cairo_line_to (cr, xh, cy);
  cairo_stroke (cr);
  for (int k = 0; k < 2; k++)
    {
      double x = k == 0 ? xl : xh;

      cairo_arc (cr, x, cy, RADIUS - 1, 0, 2 * G_PI);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, focus && k == self->active ? 2.5 : 1);
      if (focus && k == self->active)
        cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
      else
        cairo_set_source_rgba (cr, 0, 0, 0, 0.35);
      cairo_stroke (cr);
    }
  /* The values in the widget's own font, so that they follow the text size. */
  text = g_strdup_printf ("%.0f – %.0f", self->lo, self->hi);
  {
    g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
    int tw, th;

    pango_layout_get_pixel_size (layout, &tw, &th);
    cairo_set_source_rgba (cr, 0.3, 0.3, 0.3, 1);
    cairo_move_to (cr, w - text_width (self) + 8, cy - 0.5 * th);
    pango_cairo_show_layout (cr, layout);
  }
  cairo_destroy (cr);
}

static void
ef_range_slider_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum, int *natural,
                         int *minimum_baseline, int *natural_baseline)
{
  EfRangeSlider *self = EF_RANGE_SLIDER (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = (int) (4 * RADIUS + text_width (self));
  else
    {
      g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, "0");
      int tw, th;

      pango_layout_get_pixel_size (layout, &tw, &th);
      *minimum = *natural = (int) MAX (2 * RADIUS + 12, th + 4);
    }
}

static void
ef_range_slider_class_init (EfRangeSliderClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->snapshot = ef_range_slider_snapshot;
  widget_class->measure = ef_range_slider_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
ef_range_slider_init (EfRangeSlider *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkEventController *keys = gtk_event_controller_key_new ();

  self->max = 1;
  self->step = 1;
  self->hi = 1;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

GtkWidget *
ef_range_slider_new (void)
{
  return g_object_new (EF_TYPE_RANGE_SLIDER, NULL);
}

void
ef_range_slider_set_range (EfRangeSlider *self, double min, double max, double step)
{
  g_return_if_fail (EF_IS_RANGE_SLIDER (self) && max >= min && step > 0);
  self->min = min;
  self->max = max;
  self->step = step;
  self->lo = snap (self, self->lo);
  self->hi = MAX (self->lo, snap_hi (self, self->hi));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_range_slider_set_hi_offset (EfRangeSlider *self, double offset)
{
  g_return_if_fail (EF_IS_RANGE_SLIDER (self) && offset >= 0);
  self->hi_offset = offset;
  self->hi = MAX (self->lo, snap_hi (self, self->hi));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_range_slider_set_values (EfRangeSlider *self, double lo, double hi)
{
  g_return_if_fail (EF_IS_RANGE_SLIDER (self));
  self->lo = snap (self, MIN (lo, hi));
  self->hi = MAX (self->lo, snap_hi (self, MAX (lo, hi)));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_range_slider_get_values (EfRangeSlider *self, double *lo, double *hi)
{
  g_return_if_fail (EF_IS_RANGE_SLIDER (self));
  *lo = self->lo;
  *hi = self->hi;
}

void
ef_range_slider_move (EfRangeSlider *self, double lo, double hi)
{
  g_return_if_fail (EF_IS_RANGE_SLIDER (self));
  ef_range_slider_set_values (self, lo, hi);
  g_signal_emit (self, signals[CHANGED], 0);
}
