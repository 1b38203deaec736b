/* ef-image-view-input.c: the image view's input: pan, zoom, ROI drawing and editing, picks, keys, cursors. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-view"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-image-view-private.h"

#define HANDLE_RADIUS 6.0

/* Handles, as bit masks of the ROI edges they move. */
enum {
  EDGE_LEFT = 1 << 0,
  EDGE_RIGHT = 1 << 1,
  EDGE_BOTTOM = 1 << 2,   /* smaller y */
  EDGE_TOP = 1 << 3,      /* larger y */
  EDGE_ALL = 0xf,
};

gboolean
ef_image_view_input_is_editing (EfImageView *self)
{
  return self->drag == EF_DRAG_NEW_ROI || self->drag == EF_DRAG_MOVE_ROI || self->drag == EF_DRAG_RESIZE_ROI;
}

/* Which edges of the ROI a widget point grabs: a handle (two edges or one), EDGE_ALL inside, 0 outside. */
static guint
hit_roi (EfImageView *self, double wx, double wy)
{
  graphene_rect_t r;
  double x0, y0, x1, y1;
  guint edges = 0;

  if (!self->has_roi)
    return 0;
  ef_image_view_box_to_rect (self, self->roi, &r);
  x0 = r.origin.x;
  y0 = r.origin.y;
  x1 = x0 + r.size.width;
  y1 = y0 + r.size.height;
  if (wx < x0 - HANDLE_RADIUS || wx > x1 + HANDLE_RADIUS || wy < y0 - HANDLE_RADIUS || wy > y1 + HANDLE_RADIUS)
    return 0;
  if (fabs (wx - x0) <= HANDLE_RADIUS)
    edges |= EDGE_LEFT;
  else if (fabs (wx - x1) <= HANDLE_RADIUS)
    edges |= EDGE_RIGHT;
  if (fabs (wy - y0) <= HANDLE_RADIUS)
    edges |= EDGE_TOP;
  else if (fabs (wy - y1) <= HANDLE_RADIUS)
    edges |= EDGE_BOTTOM;
  /* Edges grab only near their handle (the middle), corners anywhere near the corner. */
  if (edges == EDGE_LEFT || edges == EDGE_RIGHT)
    edges = fabs (wy - 0.5 * (y0 + y1)) <= 2 * HANDLE_RADIUS ? edges : EDGE_ALL;
  else if (edges == EDGE_TOP || edges == EDGE_BOTTOM)
    edges = fabs (wx - 0.5 * (x0 + x1)) <= 2 * HANDLE_RADIUS ? edges : EDGE_ALL;
  if (edges == 0)
    edges = (wx > x0 && wx < x1 && wy > y0 && wy < y1) ? EDGE_ALL : 0;
  return edges;
}

static const char *
cursor_for_edges (guint edges)
{
  switch (edges)
    {
    case EDGE_LEFT | EDGE_TOP:
    case EDGE_RIGHT | EDGE_BOTTOM:
      return "nwse-resize";
    case EDGE_RIGHT | EDGE_TOP:
    case EDGE_LEFT | EDGE_BOTTOM:
      return "nesw-resize";
    case EDGE_LEFT:
    case EDGE_RIGHT:
      return "ew-resize";
    case EDGE_TOP:
    case EDGE_BOTTOM:
      return "ns-resize";
    case EDGE_ALL:
      return "move";
    default:
      return NULL;
    }
}

void
ef_image_view_input_update_cursor (EfImageView *self)
{
  const char *name = NULL;

  if (self->drag == EF_DRAG_PAN)
    name = "grabbing";
  else if (self->tool == EF_TOOL_REGION)
    {
      name = cursor_for_edges (self->drag == EF_DRAG_NONE ? hit_roi (self, self->pointer_wx, self->pointer_wy)
                                                       : self->drag_edges);
      if (name == NULL)
        name = "crosshair";
    }
  else if (self->tool == EF_TOOL_MEASURE)
    name = "crosshair";
  else
    name = "grab";
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), name);
}

void
ef_image_view_input_drag_begin (EfImageView *self, guint button, GdkModifierType mods, double wx, double wy)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));

  self->drag_start_wx = wx;
  self->drag_start_wy = wy;
  self->drag_start_cx = self->cx;
  self->drag_start_cy = self->cy;
  self->drag_had_roi = self->has_roi;
  memcpy (self->drag_roi_before, self->roi, sizeof self->roi);
  memcpy (self->edit_roi, self->roi, sizeof self->roi);
  self->drag_edges = 0;

  if (button == GDK_BUTTON_MIDDLE || button == GDK_BUTTON_SECONDARY)
    self->drag = EF_DRAG_PAN;
  else if ((mods & GDK_CONTROL_MASK) != 0 || self->tool == EF_TOOL_REGION)
    {
      guint edges = (mods & GDK_CONTROL_MASK) ? 0 : hit_roi (self, wx, wy);

      if (edges == EDGE_ALL)
        self->drag = EF_DRAG_MOVE_ROI;
      else if (edges != 0)
        self->drag = EF_DRAG_RESIZE_ROI;
      else
        {
          double x, y;
          self->drag = EF_DRAG_NEW_ROI;
          edges = EDGE_RIGHT | EDGE_BOTTOM;
          ef_image_view_widget_to_scene (self, wx, wy, &x, &y);
          self->edit_roi[0] = self->edit_roi[2] = x;
          self->edit_roi[1] = self->edit_roi[3] = y;
        }
      self->drag_edges = edges;
    }
  else if (self->tool == EF_TOOL_MEASURE)
    self->drag = EF_DRAG_CLICK;
  else
    self->drag = EF_DRAG_PAN;
  ef_image_view_input_update_cursor (self);
}

static void
drag_begin (GtkGestureDrag *gesture, double wx, double wy, EfImageView *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
  ef_image_view_input_drag_begin (self, button, mods, wx, wy);
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

void
ef_image_view_input_drag_update (EfImageView *self, double dx, double dy)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));

  switch (self->drag)
    {
    case EF_DRAG_CLICK:
      if (hypot (dx, dy) < 4)
        break;
      self->drag = EF_DRAG_PAN;
      G_GNUC_FALLTHROUGH;
    case EF_DRAG_PAN:
      self->cx = self->drag_start_cx - dx / self->scale;
      self->cy = self->drag_start_cy + dy / self->scale;
      self->fitted = FALSE;
      ef_image_view_view_changed (self);
      break;
    case EF_DRAG_NEW_ROI:
      {
        double x, y, x0, y0;
        ef_image_view_widget_to_scene (self, self->drag_start_wx, self->drag_start_wy, &x0, &y0);
        ef_image_view_widget_to_scene (self, self->drag_start_wx + dx, self->drag_start_wy + dy, &x, &y);
        self->edit_roi[0] = MIN (x0, x);
        self->edit_roi[2] = MAX (x0, x);
        self->edit_roi[1] = MIN (y0, y);
        self->edit_roi[3] = MAX (y0, y);
        gtk_widget_queue_draw (GTK_WIDGET (self));
      }
      break;
    case EF_DRAG_MOVE_ROI:
    case EF_DRAG_RESIZE_ROI:
      {
        double mx = dx / self->scale, my = -dy / self->scale;
        const double *b = self->drag_roi_before;
        guint e = self->drag_edges;

        memcpy (self->edit_roi, b, sizeof self->edit_roi);
        if (e & EDGE_LEFT)
          self->edit_roi[0] = b[0] + mx;
        if (e & EDGE_RIGHT)
          self->edit_roi[2] = b[2] + mx;
        if (e & EDGE_BOTTOM)
          self->edit_roi[1] = b[1] + my;
        if (e & EDGE_TOP)
          self->edit_roi[3] = b[3] + my;
        ef_image_view_normalise_box (self->edit_roi);
        gtk_widget_queue_draw (GTK_WIDGET (self));
      }
      break;
    case EF_DRAG_NONE:
    default:
      break;
    }
}

static void
drag_update (GtkGestureDrag *gesture, double dx, double dy, EfImageView *self)
{
  ef_image_view_input_drag_update (self, dx, dy);
}

void
ef_image_view_input_drag_end (EfImageView *self, double dx, double dy)
{
  EfDragMode mode;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  /* The end's offset counts, whether or not an update with it came first. */
  ef_image_view_input_drag_update (self, dx, dy);
  mode = self->drag;

  self->drag = EF_DRAG_NONE;
  ef_image_view_input_update_cursor (self);
  if (mode == EF_DRAG_CLICK)
    {
      double x, y;
      ef_image_view_widget_to_scene (self, self->drag_start_wx + dx, self->drag_start_wy + dy, &x, &y);
      g_signal_emit (self, ef_image_view_signals[EF_IMAGE_VIEW_SIGNAL_POINT_PICKED], 0, x, y);
    }
  else if (mode == EF_DRAG_NEW_ROI || mode == EF_DRAG_MOVE_ROI || mode == EF_DRAG_RESIZE_ROI)
    {
      double wpx = (self->edit_roi[2] - self->edit_roi[0]) * self->scale;
      double hpx = (self->edit_roi[3] - self->edit_roi[1]) * self->scale;

      /* A click without a drag is not a region. */
      if (wpx < 3 || hpx < 3)
        {
          gtk_widget_queue_draw (GTK_WIDGET (self));
          return;
        }
      memcpy (self->roi, self->edit_roi, sizeof self->roi);
      self->has_roi = TRUE;
      gtk_widget_queue_draw (GTK_WIDGET (self));
      g_signal_emit (self, ef_image_view_signals[EF_IMAGE_VIEW_SIGNAL_ROI_EDITED], 0, self->roi[0], self->roi[1], self->roi[2], self->roi[3]);
    }
}

static void
drag_end (GtkGestureDrag *gesture, double dx, double dy, EfImageView *self)
{
  ef_image_view_input_drag_end (self, dx, dy);
}

static void
cancel_edit (EfImageView *self)
{
  if (!ef_image_view_input_is_editing (self))
    return;
  self->drag = EF_DRAG_NONE;
  self->has_roi = self->drag_had_roi;
  memcpy (self->roi, self->drag_roi_before, sizeof self->roi);
  gtk_event_controller_reset (GTK_EVENT_CONTROLLER (self->drag_gesture));
  ef_image_view_input_update_cursor (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ef_image_view_input_scroll (EfImageView *self, GdkScrollUnit unit, double dy)
{
  double steps = unit == GDK_SCROLL_UNIT_WHEEL ? dy : dy / 20.0;

  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  ef_image_view_zoom_by (self, pow (1.2, -steps), self->pointer_inside ? self->pointer_wx : -1,
                         self->pointer_wy);
  return TRUE;
}

static gboolean
scroll (GtkEventControllerScroll *controller, double dx, double dy, EfImageView *self)
{
  return ef_image_view_input_scroll (self, gtk_event_controller_scroll_get_unit (controller), dy);
}

void
ef_image_view_input_pinch_begin (EfImageView *self)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->zoom_start_scale = self->scale;
}

void
ef_image_view_input_pinch (EfImageView *self, double scale, double cx, double cy)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  ef_image_view_zoom_by (self, self->zoom_start_scale * scale / self->scale, cx, cy);
}

static void
zoom_begin (GtkGesture *gesture, GdkEventSequence *sequence, EfImageView *self)
{
  ef_image_view_input_pinch_begin (self);
}

static void
zoom_scale_changed (GtkGestureZoom *gesture, double scale, EfImageView *self)
{
  double bx, by;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &bx, &by))
    bx = by = -1;
  ef_image_view_input_pinch (self, scale, bx, by);
}

void
ef_image_view_input_motion (EfImageView *self, double wx, double wy)
{
  double x, y;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->pointer_wx = wx;
  self->pointer_wy = wy;
  self->pointer_inside = TRUE;
  if (self->drag == EF_DRAG_NONE)
    ef_image_view_input_update_cursor (self);
  ef_image_view_widget_to_scene (self, wx, wy, &x, &y);
  g_signal_emit (self, ef_image_view_signals[EF_IMAGE_VIEW_SIGNAL_CURSOR_MOVED], 0, TRUE, x, y);
}

static void
motion (GtkEventControllerMotion *controller, double wx, double wy, EfImageView *self)
{
  ef_image_view_input_motion (self, wx, wy);
}

void
ef_image_view_input_leave (EfImageView *self)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->pointer_inside = FALSE;
  g_signal_emit (self, ef_image_view_signals[EF_IMAGE_VIEW_SIGNAL_CURSOR_MOVED], 0, FALSE, 0.0, 0.0);
}

static void
leave (GtkEventControllerMotion *controller, EfImageView *self)
{
  ef_image_view_input_leave (self);
}

gboolean
ef_image_view_input_key (EfImageView *self, guint keyval, GdkModifierType state)
{
  const double step = 48;

  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  switch (keyval)
    {
    case GDK_KEY_Escape:
      if (ef_image_view_input_is_editing (self))
        {
          cancel_edit (self);
          return TRUE;
        }
      return FALSE;
    case GDK_KEY_Left:
      ef_image_view_pan_by (self, step, 0);
      return TRUE;
    case GDK_KEY_Right:
      ef_image_view_pan_by (self, -step, 0);
      return TRUE;
    case GDK_KEY_Up:
      ef_image_view_pan_by (self, 0, step);
      return TRUE;
    case GDK_KEY_Down:
      ef_image_view_pan_by (self, 0, -step);
      return TRUE;
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      ef_image_view_zoom_by (self, 1.25, -1, -1);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      ef_image_view_zoom_by (self, 0.8, -1, -1);
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
             EfImageView *self)
{
  return ef_image_view_input_key (self, keyval, state);
}

void
ef_image_view_input_init (EfImageView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (drag_update), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
  self->drag_gesture = gesture;

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (zoom_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (zoom_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (controller, "scroll", G_CALLBACK (scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_key_new ();
  g_signal_connect (controller, "key-pressed", G_CALLBACK (key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}
