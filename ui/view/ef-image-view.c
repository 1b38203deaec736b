/* ef-image-view.c: the image display widget: the view transform, navigation, realize and draw, overlays. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-view"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-annotate.h"
#include "ef-gl-cuda.h"
#include "ef-image-view-private.h"
#if EF_TEST_HOOKS
#include "ef-image-view-test.h"
#endif

#define MIN_SCALE 1e-4
#define MAX_SCALE 1e4
/* The CUDA device that jobs form images on when they choose (EfBackendParams.device = -1). */
#define COMPUTE_DEVICE 0

G_DEFINE_FINAL_TYPE (EfImageView, ef_image_view, GTK_TYPE_GL_AREA)

guint ef_image_view_signals[EF_IMAGE_VIEW_N_SIGNALS];

/* ---- view transform -------------------------------------------------------------------------- */

void
ef_image_view_scene_to_widget (EfImageView *self, double x, double y, double *wx, double *wy)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  *wx = 0.5 * w + (x - self->cx) * self->scale;
  *wy = 0.5 * h - (y - self->cy) * self->scale;
}

void
ef_image_view_widget_to_scene (EfImageView *self, double wx, double wy, double *x, double *y)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  *x = self->cx + (wx - 0.5 * w) / self->scale;
  *y = self->cy - (wy - 0.5 * h) / self->scale;
}

void
ef_image_view_get_transform (EfImageView *self, EfViewTransform *view)
{
  view->cx = self->cx;
  view->cy = self->cy;
  view->scale = self->scale;
  view->width = gtk_widget_get_width (GTK_WIDGET (self));
  view->height = gtk_widget_get_height (GTK_WIDGET (self));
  view->scale_factor = gtk_widget_get_scale_factor (GTK_WIDGET (self));
}

double
ef_image_view_get_scale (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), 1.0);
  return self->scale;
}

void
ef_image_view_view_changed (EfImageView *self)
{
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
fit_box (EfImageView *self, const double box[4], double margin)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  double bw = fabs (box[2] - box[0]), bh = fabs (box[3] - box[1]);

  if (w <= 1 || h <= 1)
    {
      /* Not allocated yet: guess, and fit again on the first allocation. */
      w = 800;
      h = 600;
    }
  self->cx = 0.5 * (box[0] + box[2]);
  self->cy = 0.5 * (box[1] + box[3]);
  if (bw > 0 && bh > 0)
    self->scale = CLAMP (margin * MIN (w / bw, h / bh), MIN_SCALE, MAX_SCALE);
  ef_image_view_view_changed (self);
}

void
ef_image_view_zoom_fit (EfImageView *self)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  if (!self->has_box)
    return;
  self->fitted = TRUE;
  fit_box (self, self->box, 0.95);
}

void
ef_image_view_zoom_to_box (EfImageView *self, const double box[4])
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->fitted = FALSE;
  fit_box (self, box, 0.9);
}

void
ef_image_view_zoom_one_to_one (EfImageView *self)
{
  const EfImageViewLayer *top = NULL;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  for (int id = EF_N_LAYERS - 1; id >= 0 && top == NULL; id--)
    if (self->layers[id].active)
      top = &self->layers[id];
  if (top == NULL)
    return;
  self->fitted = FALSE;
  /* One image pixel per device pixel of the topmost layer. */
  self->scale = 1.0 / (top->grid.spacing * gtk_widget_get_scale_factor (GTK_WIDGET (self)));
  if (self->has_roi && top == &self->layers[EF_LAYER_ROI])
    {
      self->cx = 0.5 * (self->roi[0] + self->roi[2]);
      self->cy = 0.5 * (self->roi[1] + self->roi[3]);
    }
  ef_image_view_view_changed (self);
}

void
ef_image_view_zoom_by (EfImageView *self, double factor, double wx, double wy)
{
  double x, y, new_scale;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  if (wx < 0)
    {
      wx = 0.5 * gtk_widget_get_width (GTK_WIDGET (self));
      wy = 0.5 * gtk_widget_get_height (GTK_WIDGET (self));
    }
  ef_image_view_widget_to_scene (self, wx, wy, &x, &y);
  new_scale = CLAMP (self->scale * factor, MIN_SCALE, MAX_SCALE);
  /* Keep the scene point under (wx, wy) where it is. */
  self->cx = x - (wx - 0.5 * gtk_widget_get_width (GTK_WIDGET (self))) / new_scale;
  self->cy = y + (wy - 0.5 * gtk_widget_get_height (GTK_WIDGET (self))) / new_scale;
  self->scale = new_scale;
  self->fitted = FALSE;
  ef_image_view_view_changed (self);
}

void
ef_image_view_pan_by (EfImageView *self, double dx_px, double dy_px)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->cx -= dx_px / self->scale;
  self->cy += dy_px / self->scale;
  self->fitted = FALSE;
  ef_image_view_view_changed (self);
}

void
ef_image_view_set_scene_box (EfImageView *self, const double box[4])
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  if (box == NULL)
    {
      self->has_box = FALSE;
      ef_image_view_view_changed (self);
      return;
    }
  self->has_box = TRUE;
  self->box[0] = MIN (box[0], box[2]);
  self->box[1] = MIN (box[1], box[3]);
  self->box[2] = MAX (box[0], box[2]);
  self->box[3] = MAX (box[1], box[3]);
  ef_image_view_zoom_fit (self);
}

/* ---- display, tool, ROI ---------------------------------------------------------------------- */

void
ef_image_view_set_display (EfImageView *self, const EfDisplayParams *params)
{
  gboolean mode_changed;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self) && params != NULL);
  mode_changed = params->mode != self->display.mode;
  self->display = *params;
  /* The dB window, gamma and colour map are uniforms and a table: instant. The view mode is what
   * the value textures hold, so they fill again from their sources. */
  if (mode_changed)
    for (guint id = 0; id < EF_N_LAYERS; id++)
      {
        EfImageViewLayer *layer = &self->layers[id];
        EfGlImage *image = self->gl != NULL ? ef_gl_layers_get_image (self->gl, id) : NULL;
        gboolean again = FALSE;

        if (image != NULL && ef_gl_image_get_format (image) == EF_GL_IMAGE_VALUE)
          {
            ef_gl_image_set_view_mode (image, params->mode);
            again = TRUE;
          }
        if (layer->soft != NULL)
          again |= ef_image_view_layer_ensure_soft (layer, params->mode);
        if (again && layer->damaged)
          {
            ef_image_view_layer_mark_all (layer);
            ef_image_view_queue_upload (self);
          }
      }
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

const EfDisplayParams *
ef_image_view_get_display (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), NULL);
  return &self->display;
}

void
ef_image_view_set_tool (EfImageView *self, EfTool tool)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->tool = tool;
  ef_image_view_input_update_cursor (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ef_image_view_get_marker (EfImageView *self, double xy[2])
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  if (self->has_marker && xy != NULL)
    {
      xy[0] = self->marker[0];
      xy[1] = self->marker[1];
    }
  return self->has_marker;
}

EfTool
ef_image_view_get_tool (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), EF_TOOL_PAN);
  return self->tool;
}

void
ef_image_view_normalise_box (double b[4])
{
  double x0 = MIN (b[0], b[2]), x1 = MAX (b[0], b[2]), y0 = MIN (b[1], b[3]), y1 = MAX (b[1], b[3]);

  b[0] = x0;
  b[1] = y0;
  b[2] = x1;
  b[3] = y1;
}

void
ef_image_view_set_roi (EfImageView *self, const double roi[4])
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->has_roi = roi != NULL;
  if (roi != NULL)
    {
      memcpy (self->roi, roi, sizeof self->roi);
      ef_image_view_normalise_box (self->roi);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ef_image_view_get_roi (EfImageView *self, double roi[4])
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  if (self->has_roi && roi != NULL)
    memcpy (roi, self->roi, sizeof self->roi);
  return self->has_roi;
}

void
ef_image_view_set_roi_spacing (EfImageView *self, double spacing)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->roi_spacing = spacing;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ef_image_view_set_marker (EfImageView *self, const double xy[2])
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->has_marker = xy != NULL;
  if (xy != NULL)
    {
      self->marker[0] = xy[0];
      self->marker[1] = xy[1];
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}


const char *
ef_image_view_get_gl_description (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), NULL);
  return self->gl_description;
}

const GError *
ef_image_view_get_gl_error (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), NULL);
  return self->gl_error;
}

int
ef_image_view_get_shared_device (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), -1);
  return self->share_device;
}

const char *
ef_image_view_get_display_path (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), NULL);
  return self->display_path;
}

/* ---- GL -------------------------------------------------------------------------------------- */

static gboolean
ef_image_view_render (GtkGLArea *area, GdkGLContext *context)
{
  ef_image_view_render_layers (EF_IMAGE_VIEW (area));
  return TRUE;
}

/* With the context current: which way images reach the textures, said once in the log. Device
 * images of other devices, or textures that CUDA will not register, still fall back layer by layer. */
static void
choose_display_path (EfImageView *self)
{
  g_autofree char *why = NULL;

  if (self->force_host_upload)
    {
      self->share_device = -1;
      why = g_strdup ("the preferences ask for it");
    }
  else
    self->share_device = ef_gl_cuda_choose_device (COMPUTE_DEVICE, &why);
  g_free (self->display_path);
  self->display_path = g_strdup_printf ("%s, because %s",
                                        self->share_device >= 0 ? "CUDA-OpenGL sharing" : "host upload", why);
  /* A message, not a warning: the fallback is a normal way to run. */
  g_message ("Display path: %s", self->display_path);
}

void
ef_image_view_set_force_host_upload (EfImageView *self, gboolean force)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  force = !!force;
  if (self->force_host_upload == force)
    return;
  self->force_host_upload = force;
  if (!gtk_widget_get_realized (GTK_WIDGET (self)) || self->gl == NULL)
    return;
  gtk_gl_area_make_current (GTK_GL_AREA (self));
  if (gtk_gl_area_get_error (GTK_GL_AREA (self)) != NULL)
    return;
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      EfImageViewLayer *layer = &self->layers[id];

      ef_gl_layers_reset_share (self->gl, id);
      /* Whatever is on screen came one way; the other way starts from the whole image. */
      if (layer->active && layer->damaged)
        ef_image_view_layer_mark_all (layer);
    }
  ef_gl_layers_empty_trash (self->gl);
  choose_display_path (self);
  ef_image_view_queue_upload (self);
}

static void
ef_image_view_realize (GtkWidget *widget)
{
  EfImageView *self = EF_IMAGE_VIEW (widget);
  GtkGLArea *area = GTK_GL_AREA (widget);
  g_autoptr (GError) error = NULL;

  GTK_WIDGET_CLASS (ef_image_view_parent_class)->realize (widget);

  g_clear_error (&self->gl_error);
  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) != NULL)
    {
      self->gl_error = g_error_copy (gtk_gl_area_get_error (area));
      g_warning ("OpenGL is not available: %s", self->gl_error->message);
      return;
    }
  self->gl = ef_gl_layers_new (EF_N_LAYERS, &error);
  if (self->gl == NULL)
    {
      gtk_gl_area_set_error (area, error);
      self->gl_error = g_steal_pointer (&error);
      g_warning ("%s", self->gl_error->message);
      return;
    }
  g_free (self->gl_description);
  self->gl_description = g_strdup (ef_gl_layers_describe (self->gl));
  g_debug ("GL: %s", self->gl_description);
  choose_display_path (self);

  /* Every texture is rebuilt for this context (in the next render); layers refill from their sources. */
  for (guint id = 0; id < EF_N_LAYERS; id++)
    if (self->layers[id].active && self->layers[id].damaged)
      ef_image_view_layer_mark_all (&self->layers[id]);
  ef_image_view_queue_upload (self);
}

static void
ef_image_view_unrealize (GtkWidget *widget)
{
  EfImageView *self = EF_IMAGE_VIEW (widget);
  GtkGLArea *area = GTK_GL_AREA (widget);

  ef_image_view_stop_uploads (self);
  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) == NULL)
    g_clear_pointer (&self->gl, ef_gl_layers_free);
  else
    /* No context to delete in: the objects went with it. Nothing was registered with CUDA
     * either, since that needs the context. */
    g_clear_pointer (&self->gl, ef_gl_layers_forget);
  for (guint id = 0; id < EF_N_LAYERS; id++)
    self->layers[id].has_data = FALSE;

  GTK_WIDGET_CLASS (ef_image_view_parent_class)->unrealize (widget);
}

static void
ef_image_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  EfImageView *self = EF_IMAGE_VIEW (widget);

  GTK_WIDGET_CLASS (ef_image_view_parent_class)->size_allocate (widget, width, height, baseline);
  if (self->fitted && self->has_box)
    fit_box (self, self->box, 0.95);
}

/* ---- overlays -------------------------------------------------------------------------------- */

void
ef_image_view_box_to_rect (EfImageView *self, const double b[4], graphene_rect_t *r)
{
  double ax, ay, bx, by;

  ef_image_view_scene_to_widget (self, b[0], b[3], &ax, &ay);
  ef_image_view_scene_to_widget (self, b[2], b[1], &bx, &by);
  graphene_rect_init (r, (float) ax, (float) ay, (float) (bx - ax), (float) (by - ay));
}

static void
append_frame (GtkSnapshot *snapshot, const graphene_rect_t *r, float width, const GdkRGBA *color)
{
  GskRoundedRect rr;
  const float widths[4] = { width, width, width, width };
  const GdkRGBA colors[4] = { *color, *color, *color, *color };

  gsk_rounded_rect_init_from_rect (&rr, r, 0);
  gtk_snapshot_append_border (snapshot, &rr, widths, colors);
}

/* The region's size label: its text (owned) and where it goes, or NULL when none is shown (only while
 * the region tool is chosen or an edit is in flight). */
static PangoLayout *
roi_label_layout (EfImageView *self, graphene_rect_t *where)
{
  gboolean editing = ef_image_view_input_is_editing (self);
  const double *b = editing ? self->edit_roi : self->roi;
  double wm, hm;
  g_autofree char *text = NULL;
  PangoLayout *layout;
  graphene_rect_t r;
  int lw, lh;
  float x, y;

  if (!(self->has_roi || editing) || !(editing || self->tool == EF_TOOL_REGION))
    return NULL;
  wm = b[2] - b[0];
  hm = b[3] - b[1];
  if (self->roi_spacing > 0)
    text = g_strdup_printf (_("%.1f × %.1f m · %.0f × %.0f px"), wm, hm, floor (wm / self->roi_spacing + 0.5),
                            floor (hm / self->roi_spacing + 0.5));
  else
    text = g_strdup_printf (_("%.1f × %.1f m"), wm, hm);
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  pango_layout_get_pixel_size (layout, &lw, &lh);
  ef_image_view_box_to_rect (self, b, &r);
  /* Above the region's top edge, or inside its top corner when that is off the top: the bottom left
   * belongs to the zoom buttons, the bottom right to the scale bar. */
  x = r.origin.x;
  y = r.origin.y - lh - 4 - 6;
  if (y < 2)
    {
      x = r.origin.x + 8;
      y = MAX (r.origin.y, 18.0f) + 6;
    }
  x = CLAMP (x, 2.0f, MAX (2.0f, gtk_widget_get_width (GTK_WIDGET (self)) - lw - 10.0f));
  y = CLAMP (y, 2.0f, MAX (2.0f, gtk_widget_get_height (GTK_WIDGET (self)) - lh - 6.0f));
  *where = GRAPHENE_RECT_INIT (x, y, lw + 8, lh + 4);
  return layout;
}

static void
append_roi_label (EfImageView *self, GtkSnapshot *snapshot)
{
  const GdkRGBA bg = { 0, 0, 0, 0.65f }, fg = { 1, 1, 1, 1 };
  graphene_rect_t r;
  g_autoptr (PangoLayout) layout = roi_label_layout (self, &r);

  if (layout == NULL)
    return;
  gtk_snapshot_append_color (snapshot, &bg, &r);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (r.origin.x + 4, r.origin.y + 2));
  gtk_snapshot_append_layout (snapshot, layout, &fg);
  gtk_snapshot_restore (snapshot);
}

#if EF_TEST_HOOKS
gboolean
ef_image_view_get_roi_label_rect (EfImageView *self, graphene_rect_t *rect)
{
  g_autoptr (PangoLayout) layout = NULL;

  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self) && rect != NULL, FALSE);
  layout = roi_label_layout (self, rect);
  return layout != NULL;
}
#endif

/* ---- scale, north and axes --------------------------------------------------------------------- */

/* The view is north up, one scale in x and y: a scale bar (bottom right, clear of the zoom buttons), a
 * north arrow (top right) and ticks in metres along the top and left edges. Each is its own small cairo
 * node, so that a frame redraws little. */
static void
draw_annotations (EfImageView *self, GtkSnapshot *snapshot)
{
  const double white[3] = { 1, 1, 1 };
  const GdkRGBA plate = { 0, 0, 0, 0.55f };
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  double metres, px, x0, y0, x1, y1, step;
  g_autofree char *label = NULL;
  cairo_t *cr;

  if (!self->has_box || !(self->scale > 0) || w < 120 || h < 120)
    return;

  if (ef_scale_bar_choose (1.0 / self->scale, EF_IMAGE_VIEW_SCALE_BAR_PX, &metres, &px))
    {
      graphene_rect_t r = GRAPHENE_RECT_INIT ((float) (w - 12 - EF_IMAGE_VIEW_SCALE_BAR_PX - 20),
                                              (float) (h - 12 - 42), EF_IMAGE_VIEW_SCALE_BAR_PX + 20, 42);

      label = ef_scale_bar_label (metres);
      gtk_snapshot_append_color (snapshot, &plate, &r);
      cr = gtk_snapshot_append_cairo (snapshot, &r);
      ef_draw_scale_bar (cr, r.origin.x + r.size.width - 10 - round (px), r.origin.y + r.size.height - 10
                         - EF_SCALE_BAR_HEIGHT, round (px), label, white);
      cairo_destroy (cr);
    }

  {
    graphene_rect_t r = GRAPHENE_RECT_INIT ((float) (w - 12 - 36), 30, 36, 52);

    gtk_snapshot_append_color (snapshot, &plate, &r);
    cr = gtk_snapshot_append_cairo (snapshot, &r);
    ef_draw_north_arrow (cr, r.origin.x + 18, r.origin.y + 32, 28, 0, -1, white);
    cairo_destroy (cr);
  }

  /* Ticks: a round step for about eight across the wider edge. */
  ef_image_view_widget_to_scene (self, 0, 0, &x0, &y1);
  ef_image_view_widget_to_scene (self, w, h, &x1, &y0);
  step = ef_nice_step (MAX (x1 - x0, y1 - y0), 8);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, (float) w, 18));
  for (double v = ceil (x0 / step) * step; v <= x1; v += step)
    {
      double wx, wy;
      g_autofree char *text = g_strdup_printf ("%g", fabs (v) < 1e-9 * step ? 0.0 : v);

      ef_image_view_scene_to_widget (self, v, 0, &wx, &wy);
      cairo_set_source_rgba (cr, 1, 1, 1, 0.8);
      cairo_rectangle (cr, round (wx), 0, 1, 5);
      cairo_fill (cr);
      if (wx > 40 && wx < w - 60)
        ef_annotate_text (cr, text, wx, 3, 0.5, white);
    }
  cairo_destroy (cr);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 18, 48, (float) h - 18 - 60));
  for (double v = floor (y1 / step) * step; v >= y0; v -= step)
    {
      double wx, wy;
      g_autofree char *text = g_strdup_printf ("%g", fabs (v) < 1e-9 * step ? 0.0 : v);

      ef_image_view_scene_to_widget (self, 0, v, &wx, &wy);
      if (wy < 24 || wy > h - 70)
        continue;
      cairo_set_source_rgba (cr, 1, 1, 1, 0.8);
      cairo_rectangle (cr, 0, round (wy), 5, 1);
      cairo_fill (cr);
      ef_annotate_text (cr, text, 7, wy - 7, 0.0, white);
    }
  cairo_destroy (cr);
  {
    g_autofree char *unit = g_strdup (_("m"));
    cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, 40, 18));
    ef_annotate_text (cr, unit, 4, 3, 0.0, white);
    cairo_destroy (cr);
  }
}

/* A frame that only brings new pixels (a region forming) keeps the view where it was: the annotations
 * drawn for that view are used again rather than drawn with cairo each frame. */
static void
append_annotations (EfImageView *self, GtkSnapshot *snapshot)
{
  const double key[5] = { gtk_widget_get_width (GTK_WIDGET (self)), gtk_widget_get_height (GTK_WIDGET (self)),
                          self->cx, self->cy, self->has_box ? self->scale : 0 };

  if (self->annotations == NULL || memcmp (key, self->annotations_key, sizeof key) != 0)
    {
      GtkSnapshot *sub = gtk_snapshot_new ();

      draw_annotations (self, sub);
      g_clear_pointer (&self->annotations, gsk_render_node_unref);
      self->annotations = gtk_snapshot_free_to_node (sub);
      memcpy (self->annotations_key, key, sizeof key);
    }
  if (self->annotations != NULL)
    gtk_snapshot_append_node (snapshot, self->annotations);
}

#if EF_TEST_HOOKS
gboolean
ef_image_view_get_scale_bar (EfImageView *self, double *metres, double *pixels)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  if (!self->has_box)
    return FALSE;
  return ef_scale_bar_choose (1.0 / self->scale, EF_IMAGE_VIEW_SCALE_BAR_PX, metres, pixels);
}
#endif

/* ---- drawing on the processor ----------------------------------------------------------------- */

/* GL drawing pays off where GTK composites with GL too. A compositor that draws on the processor (GTK's
 * cairo renderer) would read the GL area's pixels back and convert them every frame, however little
 * changed; drawing the layers here, on the processor, lets GTK redraw only what did change. Without GL
 * at all, it is the only way to show the image. */
static gboolean
use_soft (EfImageView *self)
{
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (self));
  GskRenderer *renderer = native != NULL ? gtk_native_get_renderer (native) : NULL;

  return self->force_soft || self->gl == NULL
         || (renderer != NULL && GSK_IS_CAIRO_RENDERER (renderer));
}

static void
ef_image_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  EfImageView *self = EF_IMAGE_VIEW (widget);
  const GdkRGBA box_color = { 1, 1, 1, 0.35f };
  const GdkRGBA roi_color = { 0.21f, 0.52f, 0.89f, 1 };
  const GdkRGBA edit_color = { 0.98f, 0.76f, 0.19f, 1 };
  const GdkRGBA shadow = { 0, 0, 0, 0.6f };
  const GdkRGBA marker_color = { 0.95f, 0.3f, 0.25f, 1 };
  graphene_rect_t r;

  if (use_soft (self))
    ef_image_view_snapshot_soft (self, snapshot);
  else
    {
      if (self->soft)
        {
          self->soft = FALSE;
          for (guint id = 0; id < EF_N_LAYERS; id++)
            if (self->layers[id].active && self->layers[id].damaged)
              ef_image_view_layer_mark_all (&self->layers[id]);
        }
      GTK_WIDGET_CLASS (ef_image_view_parent_class)->snapshot (widget, snapshot);
    }

  if (self->has_box)
    {
      ef_image_view_box_to_rect (self, self->box, &r);
      append_frame (snapshot, &r, 1, &box_color);
    }

  if (self->has_roi || ef_image_view_input_is_editing (self))
    {
      const double *b = ef_image_view_input_is_editing (self) ? self->edit_roi : self->roi;
      const GdkRGBA *color = ef_image_view_input_is_editing (self) ? &edit_color : &roi_color;
      graphene_rect_t outer;

      ef_image_view_box_to_rect (self, b, &r);
      outer = GRAPHENE_RECT_INIT (r.origin.x - 1, r.origin.y - 1, r.size.width + 2, r.size.height + 2);
      append_frame (snapshot, &outer, 3, &shadow);
      append_frame (snapshot, &r, 2, color);

      if (self->tool == EF_TOOL_REGION || ef_image_view_input_is_editing (self))
        {
          for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
              {
                float hx, hy;
                if (i == 1 && j == 1)
                  continue;
                hx = r.origin.x + 0.5f * i * r.size.width;
                hy = r.origin.y + 0.5f * j * r.size.height;
                gtk_snapshot_append_color (snapshot, &shadow,
                                           &GRAPHENE_RECT_INIT (hx - 5, hy - 5, 10, 10));
                gtk_snapshot_append_color (snapshot, color, &GRAPHENE_RECT_INIT (hx - 4, hy - 4, 8, 8));
              }
        }

      append_roi_label (self, snapshot);
    }
  append_annotations (self, snapshot);

  if (self->has_marker)
    {
      double mx, my;

      ef_image_view_scene_to_widget (self, self->marker[0], self->marker[1], &mx, &my);
      gtk_snapshot_append_color (snapshot, &shadow, &GRAPHENE_RECT_INIT ((float) mx - 13, (float) my - 2, 26, 4));
      gtk_snapshot_append_color (snapshot, &shadow, &GRAPHENE_RECT_INIT ((float) mx - 2, (float) my - 13, 4, 26));
      gtk_snapshot_append_color (snapshot, &marker_color,
                                 &GRAPHENE_RECT_INIT ((float) mx - 12, (float) my - 1, 8, 2));
      gtk_snapshot_append_color (snapshot, &marker_color,
                                 &GRAPHENE_RECT_INIT ((float) mx + 4, (float) my - 1, 8, 2));
      gtk_snapshot_append_color (snapshot, &marker_color,
                                 &GRAPHENE_RECT_INIT ((float) mx - 1, (float) my - 12, 2, 8));
      gtk_snapshot_append_color (snapshot, &marker_color,
                                 &GRAPHENE_RECT_INIT ((float) mx - 1, (float) my + 4, 2, 8));
    }
}

/* ---- object ---------------------------------------------------------------------------------- */

static void
ef_image_view_dispose (GObject *object)
{
  EfImageView *self = EF_IMAGE_VIEW (object);

  for (guint id = 0; id < EF_N_LAYERS; id++)
    ef_image_view_layer_clear (self, &self->layers[id]);
  G_OBJECT_CLASS (ef_image_view_parent_class)->dispose (object);
}

static void
ef_image_view_finalize (GObject *object)
{
  EfImageView *self = EF_IMAGE_VIEW (object);

  /* Unrealize freed it; anything left had no context to be deleted in. */
  g_clear_pointer (&self->gl, ef_gl_layers_forget);
  g_free (self->display_path);
  g_clear_error (&self->gl_error);
  g_free (self->staging);
  g_free (self->values_staging);
  g_free (self->gl_description);
  g_clear_pointer (&self->timings, g_array_unref);
  g_clear_pointer (&self->annotations, gsk_render_node_unref);
  G_OBJECT_CLASS (ef_image_view_parent_class)->finalize (object);
}

static void
ef_image_view_class_init (EfImageViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkGLAreaClass *area_class = GTK_GL_AREA_CLASS (klass);
  guint *signals = ef_image_view_signals;

  object_class->dispose = ef_image_view_dispose;
  object_class->finalize = ef_image_view_finalize;
  widget_class->realize = ef_image_view_realize;
  widget_class->unrealize = ef_image_view_unrealize;
  widget_class->snapshot = ef_image_view_snapshot;
  widget_class->size_allocate = ef_image_view_size_allocate;
  area_class->render = ef_image_view_render;

  /**
   * EfImageView::roi-edited:
   * The user finished drawing, moving or resizing the ROI (x0, y0, x1, y1 in metres).
   */
  signals[EF_IMAGE_VIEW_SIGNAL_ROI_EDITED] =
    g_signal_new ("roi-edited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                  G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
  /**
   * EfImageView::point-picked:
   * The measure tool was clicked at scene point (x, y).
   */
  signals[EF_IMAGE_VIEW_SIGNAL_POINT_PICKED] =
    g_signal_new ("point-picked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_DOUBLE, G_TYPE_DOUBLE);
  /**
   * EfImageView::cursor-moved:
   * The pointer is over scene point (x, y), or left the view (inside FALSE).
   */
  signals[EF_IMAGE_VIEW_SIGNAL_CURSOR_MOVED] =
    g_signal_new ("cursor-moved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_BOOLEAN, G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  gtk_widget_class_set_css_name (widget_class, "imageview");
}

static void
ef_image_view_init (EfImageView *self)
{
  self->share_device = -1;
  self->scale = 1.0;
  self->fitted = TRUE;
  ef_display_params_init (&self->display);

  gtk_gl_area_set_use_es (GTK_GL_AREA (self), FALSE);
  gtk_gl_area_set_has_depth_buffer (GTK_GL_AREA (self), FALSE);
  gtk_gl_area_set_has_stencil_buffer (GTK_GL_AREA (self), FALSE);
  gtk_gl_area_set_auto_render (GTK_GL_AREA (self), TRUE);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);

  ef_image_view_input_init (self);
  ef_image_view_input_update_cursor (self);
}

GtkWidget *
ef_image_view_new (void)
{
  return g_object_new (EF_TYPE_IMAGE_VIEW, NULL);
}
