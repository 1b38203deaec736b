/* ef-image-view.c: the image display widget: GL layers, navigation, ROI editing and overlays. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-view"
#include "config.h"

#include <epoxy/gl.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-gl-cuda.h"
#include "ef-gl-image.h"
#include "ef-gl-renderer.h"
#include "ef-image-view-private.h"
#include "ef-soft-draw.h"
#if HAVE_CUDA
#include "cuda/ef-cuda.h"
#endif

/* Uploading stops for this frame past either limit; the rest goes in the next frames. */
#define UPLOAD_BUDGET_US 6000
#define UPLOAD_BUDGET_PIXELS (1u << 20)
#define HANDLE_RADIUS 6.0
#define MIN_SCALE 1e-4
#define MAX_SCALE 1e4
/* Entries of the display table drawn through on the processor, as in the GL renderer. */
#define SOFT_TABLE_SIZE 1024
/* The CUDA device that jobs form images on when they choose (EfBackendParams.device = -1). */
#define COMPUTE_DEVICE 0

/* Everything a layer's picture on the processor depends on: while it is the same, so is its node, and
 * GTK redraws nothing of it. */
typedef struct {
  double     m[6];          /* image pixel -> pixel of the node's surface */
  int        x0, y0, w, h;  /* the surface's place and size, device pixels of the widget */
  float      scale, offset;
  EfColormap map;
  double     gamma;
  gboolean   average_db;
  guint      version;
} SoftKey;

typedef struct {
  gboolean            active;
  EfGrid              grid;
  EfImageViewReadFunc read;
  gpointer            data;
  GDestroyNotify      destroy;
  double              gain_db;
  EfGlImage          *gl;          /* owned by the GL context; NULL until the next render */
  guint               cells_w, cells_h;
  guint8             *dirty;       /* owned, cells_w * cells_h */
  guint               n_dirty;
  gboolean            has_data;    /* some cell has been uploaded */
  gboolean            damaged;     /* the source has reported something: there is data to read */
  guint               n_updates;
  EfCudaImage        *device_image; /* owned reference or NULL: the source's pixels on their device */
  EfGlCuda           *gl_cuda;     /* owned by the GL context; NULL: uploads from host memory */
  guint64             held_writes; /* gl_cuda's write count when it was last held */
  gboolean            share_failed; /* sharing failed for these textures: uploads until they are remade */
  guint64             want_mark;   /* the device image's mark that the damage asks to see */
  EfImageViewValuesFunc values;    /* display values prepared by the source, or NULL */

  /* Drawing on the processor (see use_soft ()). */
  float              *soft_values; /* owned, grid width * height, or NULL */
  guint8             *soft_mask;   /* owned, cells_w * cells_h: non-zero where a cell has arrived */
  EfViewMode          soft_mode;   /* the quantity soft_values hold */
  guint               soft_version; /* bumped by every upload */
  GskRenderNode      *soft_node;   /* owned: the layer as last drawn, or NULL */
  SoftKey             soft_key;    /* what soft_node was drawn from */
} Layer;

typedef enum {
  DRAG_NONE,
  DRAG_PAN,
  DRAG_NEW_ROI,
  DRAG_MOVE_ROI,
  DRAG_RESIZE_ROI,
  DRAG_CLICK,       /* measure tool: a click unless it moves */
} DragMode;

/* Handles, as bit masks of the ROI edges they move. */
enum {
  EDGE_LEFT = 1 << 0,
  EDGE_RIGHT = 1 << 1,
  EDGE_BOTTOM = 1 << 2,   /* smaller y */
  EDGE_TOP = 1 << 3,      /* larger y */
  EDGE_ALL = 0xf,
};

struct _EfImageView {
  GtkGLArea        parent_instance;

  EfGlRenderer    *renderer;      /* owned by the GL context */
  GPtrArray       *trash;         /* EfGlImage waiting for the context to be deleted */
  GPtrArray       *trash_cuda;    /* EfGlCuda waiting for the context to be unregistered */
  int              share_device;  /* CUDA device drawing this view and forming images; -1: uploads */
  char            *display_path;  /* owned: which path and why, once realized */
  gboolean         force_host_upload;
  GError          *gl_error;      /* owned */
  Layer            layers[EF_N_LAYERS];
  EfDisplayParams  display;
  EfCf32          *staging;       /* owned upload buffer */
  gsize            staging_len;
  guint            max_texture;
  guint            tick_id;

  /* View: widget pixel (wx, wy) = (w/2 + (x - cx) * scale, h/2 - (y - cy) * scale). */
  double           cx, cy, scale;
  gboolean         fitted;        /* follow resizes until the user navigates */
  gboolean         has_box;
  double           box[4];

  EfTool           tool;
  gboolean         has_roi;
  double           roi[4];        /* x0 < x1, y0 < y1 */
  double           roi_spacing;
  gboolean         has_marker;
  double           marker[2];

  DragMode         drag;
  guint            drag_edges;
  double           drag_start_wx, drag_start_wy;
  double           drag_start_cx, drag_start_cy;
  double           drag_roi_before[4];
  gboolean         drag_had_roi;
  double           edit_roi[4];   /* the ROI while an edit is in flight */
  double           pointer_wx, pointer_wy;
  gboolean         pointer_inside;
  double           zoom_start_scale;

  GtkGesture      *drag_gesture;  /* borrowed: owned by the widget */
  char            *gl_description;

  gboolean         soft;          /* the last frame was drawn on the processor */
  gboolean         force_soft;
  guint8           soft_table[SOFT_TABLE_SIZE * 4];
  gboolean         soft_table_valid;
  EfColormap       soft_table_map;
  double           soft_table_gamma;
  float           *values_staging; /* owned upload buffer of display values */
  gsize            values_staging_len;

  GArray          *timings;       /* owned EfImageViewFrameTiming, or NULL when not timing */
  EfImageViewFrameTiming frame;   /* the render in progress */
};

G_DEFINE_FINAL_TYPE (EfImageView, ef_image_view, GTK_TYPE_GL_AREA)

enum {
  SIGNAL_ROI_EDITED,
  SIGNAL_POINT_PICKED,
  SIGNAL_CURSOR_MOVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void queue_upload (EfImageView *self);
static gboolean soft_layer_ensure (Layer *layer, EfViewMode mode);

/* ---- layers ---------------------------------------------------------------------------------- */

static void
layer_release_gl (EfImageView *self, Layer *layer)
{
  /* The registration goes first: it refers to the textures. */
  if (layer->gl_cuda != NULL)
    g_ptr_array_add (self->trash_cuda, g_steal_pointer (&layer->gl_cuda));
  if (layer->gl != NULL)
    g_ptr_array_add (self->trash, g_steal_pointer (&layer->gl));
}

static void
layer_drop_device_image (Layer *layer)
{
#if HAVE_CUDA
  g_clear_pointer (&layer->device_image, ef_cuda_image_unref);
#endif
  layer->device_image = NULL;
}

static void
layer_clear (EfImageView *self, Layer *layer)
{
  layer_release_gl (self, layer);
  /* Before the source: a job freed on another thread then holds the image's last reference, and
   * the main thread never waits for the device to free it. */
  layer_drop_device_image (layer);
  if (layer->destroy != NULL && layer->data != NULL)
    layer->destroy (layer->data);
  g_clear_pointer (&layer->dirty, g_free);
  g_clear_pointer (&layer->soft_values, g_free);
  g_clear_pointer (&layer->soft_mask, g_free);
  g_clear_pointer (&layer->soft_node, gsk_render_node_unref);
  memset (layer, 0, sizeof *layer);
}

static void
layer_mark_all (Layer *layer)
{
  memset (layer->dirty, 1, (gsize) layer->cells_w * layer->cells_h);
  layer->n_dirty = layer->cells_w * layer->cells_h;
}

static void
empty_trash (EfImageView *self)
{
  /* Called with the context current. */
  for (guint i = 0; i < self->trash_cuda->len; i++)
    ef_gl_cuda_free (g_ptr_array_index (self->trash_cuda, i));
  g_ptr_array_set_size (self->trash_cuda, 0);
  for (guint i = 0; i < self->trash->len; i++)
    ef_gl_image_free (g_ptr_array_index (self->trash, i));
  g_ptr_array_set_size (self->trash, 0);
}

void
ef_image_view_set_layer (EfImageView *self, EfLayerId id, const EfGrid *grid, EfImageViewReadFunc read,
                         gpointer data, GDestroyNotify destroy)
{
  Layer *layer;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  g_return_if_fail (id < EF_N_LAYERS);

  layer = &self->layers[id];
  layer_clear (self, layer);
  if (grid != NULL)
    {
      g_return_if_fail (grid->width > 0 && grid->height > 0 && read != NULL);
      layer->active = TRUE;
      layer->grid = *grid;
      layer->read = read;
      layer->data = data;
      layer->destroy = destroy;
      layer->cells_w = (grid->width + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL;
      layer->cells_h = (grid->height + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL;
      layer->dirty = g_malloc0 ((gsize) layer->cells_w * layer->cells_h);
    }
  else if (destroy != NULL && data != NULL)
    destroy (data);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

void
ef_image_view_set_layer_values (EfImageView *self, EfLayerId id, EfImageViewValuesFunc values)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS);
  g_return_if_fail (self->layers[id].active || values == NULL);
  self->layers[id].values = values;
}

gboolean
ef_image_view_has_layer (EfImageView *self, EfLayerId id)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS, FALSE);
  return self->layers[id].active;
}

const EfGrid *
ef_image_view_get_layer_grid (EfImageView *self, EfLayerId id)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS, NULL);
  return self->layers[id].active ? &self->layers[id].grid : NULL;
}

void
ef_image_view_damage (EfImageView *self, EfLayerId id, const EfRect *rects, guint n_rects)
{
  Layer *layer;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS);
  layer = &self->layers[id];
  if (!layer->active)
    return;
  layer->damaged = TRUE;
#if HAVE_CUDA
  /* The job marks a block's end before it reports the block: what this damage asks for is at most
   * the newest mark queued now. */
  if (layer->device_image != NULL)
    layer->want_mark = ef_cuda_image_get_n_marks (layer->device_image);
#endif

  for (guint i = 0; i < n_rects; i++)
    {
      const EfRect *r = &rects[i];
      guint x1 = MIN (r->x + r->width, layer->grid.width), y1 = MIN (r->y + r->height, layer->grid.height);

      if (r->x >= x1 || r->y >= y1)
        continue;
      for (guint cy = r->y / EF_GL_IMAGE_CELL; cy <= (y1 - 1) / EF_GL_IMAGE_CELL; cy++)
        for (guint cx = r->x / EF_GL_IMAGE_CELL; cx <= (x1 - 1) / EF_GL_IMAGE_CELL; cx++)
          {
            guint8 *d = &layer->dirty[(gsize) cy * layer->cells_w + cx];
            if (!*d)
              {
                *d = 1;
                layer->n_dirty++;
              }
          }
    }
  if (layer->n_dirty > 0)
    queue_upload (self);
}

void
ef_image_view_set_layer_gain (EfImageView *self, EfLayerId id, double gain_db)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS);
  if (self->layers[id].gain_db == gain_db)
    return;
  self->layers[id].gain_db = gain_db;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

double
ef_image_view_get_layer_gain (EfImageView *self, EfLayerId id)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS, 0);
  return self->layers[id].gain_db;
}

void
ef_image_view_take_layer_device_image (EfImageView *self, EfLayerId id, EfCudaImage *image)
{
  Layer *layer;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS);
  layer = &self->layers[id];
#if HAVE_CUDA
  if (image == layer->device_image)
    {
      g_clear_pointer (&image, ef_cuda_image_unref);
      return;
    }
  if (image != NULL && !layer->active)
    {
      ef_cuda_image_unref (image);
      return;
    }
  if (layer->gl_cuda != NULL)
    g_ptr_array_add (self->trash_cuda, g_steal_pointer (&layer->gl_cuda));
  layer->share_failed = FALSE;
  layer_drop_device_image (layer);
  layer->device_image = image;
  if (image != NULL)
    {
      guint w = 0, h = 0;

      ef_cuda_image_get_size (image, &w, &h);
      if (w != layer->grid.width || h != layer->grid.height)
        {
          g_critical ("A %u × %u device image cannot show a %u × %u layer", w, h, layer->grid.width,
                      layer->grid.height);
          layer_drop_device_image (layer);
          return;
        }
      layer->want_mark = ef_cuda_image_get_n_marks (image);
      if (self->share_device >= 0 && ef_cuda_image_get_device (image) != self->share_device)
        g_message ("Display path for this image: host upload, because it forms on CUDA device %d and the view "
                   "draws on device %d", ef_cuda_image_get_device (image), self->share_device);
    }
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
#else
  /* No build without CUDA makes one. */
  g_return_if_fail (image == NULL);
  layer->device_image = NULL;
#endif
}

EfCudaImage *
ef_image_view_get_layer_device_image (EfImageView *self, EfLayerId id)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS, NULL);
  return self->layers[id].device_image;
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

static gboolean
layer_pixel_at (Layer *layer, double x, double y, guint *col, guint *row)
{
  double pos[3] = { x, y, 0 }, c, r;

  if (!layer->active)
    return FALSE;
  ef_grid_position_to_pixel (&layer->grid, pos, &c, &r);
  c = floor (c + 0.5);
  r = floor (r + 0.5);
  if (c < 0 || r < 0 || c >= layer->grid.width || r >= layer->grid.height)
    return FALSE;
  *col = (guint) c;
  *row = (guint) r;
  return TRUE;
}

gboolean
ef_image_view_probe (EfImageView *self, double x, double y, EfLayerId *out_layer, EfCf32 *value,
                     double *gain_db)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);

  for (int id = EF_N_LAYERS - 1; id >= 0; id--)
    {
      Layer *layer = &self->layers[id];
      guint col, row;
      EfRect rect;
      EfCf32 v;

      if (!layer->has_data || !layer_pixel_at (layer, x, y, &col, &row))
        continue;
      rect = (EfRect) { col, row, 1, 1 };
      if (!layer->read (layer->data, &rect, &v, NULL))
        continue;
      if (out_layer != NULL)
        *out_layer = (EfLayerId) id;
      if (value != NULL)
        *value = v;
      if (gain_db != NULL)
        *gain_db = layer->gain_db;
      return TRUE;
    }
  return FALSE;
}

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

double
ef_image_view_get_scale (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), 1.0);
  return self->scale;
}

static void
view_changed (EfImageView *self)
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
  view_changed (self);
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
  const Layer *top = NULL;

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
  view_changed (self);
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
  view_changed (self);
}

void
ef_image_view_pan_by (EfImageView *self, double dx_px, double dy_px)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->cx -= dx_px / self->scale;
  self->cy += dy_px / self->scale;
  self->fitted = FALSE;
  view_changed (self);
}

void
ef_image_view_set_scene_box (EfImageView *self, const double box[4])
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  if (box == NULL)
    {
      self->has_box = FALSE;
      view_changed (self);
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
        Layer *layer = &self->layers[id];
        gboolean again = FALSE;

        if (layer->gl != NULL && ef_gl_image_get_format (layer->gl) == EF_GL_IMAGE_VALUE)
          {
            ef_gl_image_set_view_mode (layer->gl, params->mode);
            again = TRUE;
          }
        if (layer->soft_values != NULL)
          again |= soft_layer_ensure (layer, params->mode);
        if (again && layer->damaged)
          {
            layer_mark_all (layer);
            queue_upload (self);
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

static void
update_cursor (EfImageView *self);

void
ef_image_view_set_tool (EfImageView *self, EfTool tool)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->tool = tool;
  update_cursor (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

EfTool
ef_image_view_get_tool (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), EF_TOOL_PAN);
  return self->tool;
}

static void
normalise_box (double b[4])
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
      normalise_box (self->roi);
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

gboolean
ef_image_view_is_settled (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), TRUE);
  for (guint id = 0; id < EF_N_LAYERS; id++)
    if (self->layers[id].active && self->layers[id].n_dirty > 0)
      return FALSE;
  return TRUE;
}

guint
ef_image_view_get_n_updates (EfImageView *self, EfLayerId id)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS, 0);
  return self->layers[id].n_updates;
}

void
ef_image_view_set_max_texture_size (EfImageView *self, guint max_size)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->max_texture = max_size;
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

/* ---- GL -------------------------------------------------------------------------------------- */

static gboolean
upload_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  EfImageView *self = EF_IMAGE_VIEW (widget);

  if (ef_image_view_is_settled (self))
    {
      self->tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  /* One render per frame; each uploads what its budget allows. */
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  return G_SOURCE_CONTINUE;
}

static void
queue_upload (EfImageView *self)
{
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  if (self->tick_id == 0 && gtk_widget_get_realized (GTK_WIDGET (self)))
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), upload_tick, NULL, NULL);
}

static EfCf32 *
staging (EfImageView *self, gsize n)
{
  if (n > self->staging_len)
    {
      g_free (self->staging);
      self->staging = g_new (EfCf32, n);
      self->staging_len = n;
    }
  return self->staging;
}

static float *
values_staging (EfImageView *self, gsize n)
{
  if (n > self->values_staging_len)
    {
      g_free (self->values_staging);
      self->values_staging = g_new (float, n);
      self->values_staging_len = n;
    }
  return self->values_staging;
}

/* Makes a layer's arrays for drawing on the processor, holding nothing yet, for mode. */
static gboolean
soft_layer_ensure (Layer *layer, EfViewMode mode)
{
  gsize n = ef_grid_n_pixels (&layer->grid), cells = (gsize) layer->cells_w * layer->cells_h;

  if (layer->soft_values != NULL && layer->soft_mode == mode)
    return TRUE;
  if (layer->soft_values == NULL)
    {
      layer->soft_values = g_try_new (float, n);
      if (layer->soft_values == NULL)
        {
          g_warning ("Not enough memory to draw a %u × %u image", layer->grid.width, layer->grid.height);
          return FALSE;
        }
      layer->soft_mask = g_malloc0 (cells);
    }
  /* Whatever the values held was another quantity: nothing of it shows until it comes again. */
  memset (layer->soft_mask, 0, cells);
  layer->soft_mode = mode;
  layer->soft_version++;
  return TRUE;
}

/* Writes one rectangle of values into the layer's processor-side image and marks its cells arrived. */
static void
soft_layer_write (Layer *layer, const EfRect *rect, const float *values)
{
  for (guint r = 0; r < rect->height; r++)
    memcpy (layer->soft_values + (gsize) (rect->y + r) * layer->grid.width + rect->x,
            values + (gsize) r * rect->width, rect->width * sizeof (float));
  for (guint cy = rect->y / EF_GL_IMAGE_CELL; cy * EF_GL_IMAGE_CELL < rect->y + rect->height; cy++)
    for (guint cx = rect->x / EF_GL_IMAGE_CELL; cx * EF_GL_IMAGE_CELL < rect->x + rect->width; cx++)
      layer->soft_mask[(gsize) cy * layer->cells_w + cx] = 1;
  layer->soft_version++;
}

/* Uploads damaged cells of one layer, a run of neighbouring cells in a row at a time, until the
 * budget is spent: into its textures, or with soft into its image in host memory. Display values come
 * from the source when it has them (no conversion here), otherwise from its complex pixels. Returns
 * FALSE once out of budget. */
static gboolean
upload_layer (EfImageView *self, Layer *layer, gint64 deadline, guint *pixels_left, gboolean soft)
{
  gboolean complete_before = layer->n_dirty == 0, complex_texture;
  EfViewMode mode;

  if (layer->n_dirty == 0)
    return TRUE;
  if (soft)
    {
      mode = self->display.mode;
      if (!soft_layer_ensure (layer, mode))
        return TRUE;
      complex_texture = FALSE;
    }
  else
    {
      if (layer->gl == NULL)
        return TRUE;
      mode = ef_gl_image_get_view_mode (layer->gl);
      complex_texture = ef_gl_image_get_format (layer->gl) != EF_GL_IMAGE_VALUE;
    }

  for (guint cy = 0; cy < layer->cells_h; cy++)
    for (guint cx = 0; cx < layer->cells_w;)
      {
        guint run = 0;
        EfRect rect;
        g_autoptr (GError) error = NULL;
        gint64 t0, t1 = 0;
        gsize n;
        float *values;
        gboolean prepared, ok = TRUE;

        while (cx + run < layer->cells_w && layer->dirty[(gsize) cy * layer->cells_w + cx + run])
          run++;
        if (run == 0)
          {
            cx++;
            continue;
          }
        if (*pixels_left == 0 || g_get_monotonic_time () > deadline)
          return FALSE;

        rect.x = cx * EF_GL_IMAGE_CELL;
        rect.y = cy * EF_GL_IMAGE_CELL;
        rect.width = MIN ((cx + run) * EF_GL_IMAGE_CELL, layer->grid.width) - rect.x;
        rect.height = MIN ((cy + 1) * EF_GL_IMAGE_CELL, layer->grid.height) - rect.y;
        n = (gsize) rect.width * rect.height;
        t0 = self->timings != NULL ? g_get_monotonic_time () : 0;
        values = values_staging (self, n);
        prepared = !complex_texture && layer->values != NULL
                   && layer->values (layer->data, mode, &rect, values);
        if (!prepared)
          ok = layer->read (layer->data, &rect, staging (self, n), &error);
        if (ok)
          {
            if (self->timings != NULL)
              {
                t1 = g_get_monotonic_time ();
                self->frame.read_us += (guint) (t1 - t0);
              }
            if (!prepared && !complex_texture)
              ef_display_values_convert (mode, self->staging, values, n);
            if (soft)
              soft_layer_write (layer, &rect, values);
            else if (complex_texture)
              ef_gl_image_upload (layer->gl, &rect, self->staging);
            else
              ef_gl_image_upload_values (layer->gl, &rect, values);
            layer->has_data = TRUE;
            if (self->timings != NULL)
              {
                if (!soft)
                  glFinish ();
                self->frame.upload_us += (guint) (g_get_monotonic_time () - t1);
                self->frame.pixels += (guint) n;
                self->frame.converted += prepared ? 0 : (guint) n;
              }
          }
        else
          g_debug ("Layer read failed: %s", error ? error->message : "?");
        memset (&layer->dirty[(gsize) cy * layer->cells_w + cx], 0, run);
        layer->n_dirty -= run;
        *pixels_left -= MIN (*pixels_left, (guint) n);
        cx += run;
      }
  if (!complete_before && layer->n_dirty == 0)
    layer->n_updates++;
  return TRUE;
}

#if HAVE_CUDA
/* Collects the damaged cells as rectangles, one per run of neighbouring cells in a row. */
static GArray *
dirty_runs (Layer *layer)
{
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (EfRect));

  for (guint cy = 0; cy < layer->cells_h; cy++)
    for (guint cx = 0; cx < layer->cells_w;)
      {
        guint run = 0;
        EfRect r;

        while (cx + run < layer->cells_w && layer->dirty[(gsize) cy * layer->cells_w + cx + run])
          run++;
        if (run == 0)
          {
            cx++;
            continue;
          }
        r.x = cx * EF_GL_IMAGE_CELL;
        r.y = cy * EF_GL_IMAGE_CELL;
        r.width = MIN ((cx + run) * EF_GL_IMAGE_CELL, layer->grid.width) - r.x;
        r.height = MIN ((cy + 1) * EF_GL_IMAGE_CELL, layer->grid.height) - r.y;
        g_array_append_val (rects, r);
        cx += run;
      }
  return rects;
}
#endif

/* The device path: the damaged cells go from the device image into the textures on the device, all
 * of them every frame (a short kernel; no budget needed), from the newest block the device has
 * finished. Cells stay damaged until the state that the damage asked for has been shown, so that
 * the last block of a job is never missed. Returns FALSE when the layer must be uploaded instead. */
static gboolean
share_layer (EfImageView *self, Layer *layer)
{
#if HAVE_CUDA
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rects = NULL;
  guint64 mark = 0;

  if (layer->device_image == NULL || layer->gl == NULL || self->share_device < 0 || layer->share_failed
      || ef_cuda_image_get_device (layer->device_image) != self->share_device)
    {
      /* Host uploads must find the textures GL's: a registration goes, giving back what it holds
       * now (the trash is emptied only after the uploads). */
      if (layer->gl_cuda != NULL)
        {
          (void) ef_gl_cuda_release (layer->gl_cuda, NULL);
          g_ptr_array_add (self->trash_cuda, g_steal_pointer (&layer->gl_cuda));
        }
      return FALSE;
    }
  if (layer->gl_cuda == NULL)
    {
      layer->gl_cuda = ef_gl_cuda_new (layer->gl, self->share_device, &error);
      layer->held_writes = 0;
      if (layer->gl_cuda == NULL)
        {
          g_message ("Display path for this image: host upload, because %s", error->message);
          layer->share_failed = TRUE;
          return FALSE;
        }
    }
  if (layer->n_dirty == 0)
    {
      /* Nothing to write; textures held since the last frame go back to GL for the draw. */
      if (!ef_gl_cuda_release (layer->gl_cuda, &error))
        {
          g_message ("Display path for this image: host upload from now on, because %s", error->message);
          g_ptr_array_add (self->trash_cuda, g_steal_pointer (&layer->gl_cuda));
          layer->share_failed = TRUE;
          return FALSE;
        }
      return TRUE;
    }
  rects = dirty_runs (layer);
  if (!ef_gl_cuda_update (layer->gl_cuda, layer->device_image, (const EfRect *) rects->data, rects->len, &mark,
                          &error))
    {
      g_message ("Display path for this image: host upload from now on, because %s", error->message);
      g_ptr_array_add (self->trash_cuda, g_steal_pointer (&layer->gl_cuda));
      layer->share_failed = TRUE;
      return FALSE;
    }
  if (mark == 0)
    return TRUE;   /* no block has finished yet: nothing to show, the tick comes back */
  layer->has_data = TRUE;
  if (mark >= layer->want_mark)
    {
      memset (layer->dirty, 0, (gsize) layer->cells_w * layer->cells_h);
      layer->n_dirty = 0;
      layer->n_updates++;
    }
  return TRUE;
#else
  return FALSE;
#endif
}

/* At the end of a frame that wrote, the textures that CUDA writes are mapped for it again
 * (ef_gl_cuda_hold), so that GL gives them up with this frame's work and the next write is a
 * conversion and an unmap. A frame that wrote nothing (the job is done or quiet: panning, zooming)
 * holds nothing, and the next write maps for itself. A failure only costs the saving. */
static void
hold_shared_layers (EfImageView *self)
{
#if HAVE_CUDA
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      Layer *layer = &self->layers[id];
      g_autoptr (GError) error = NULL;
      guint64 writes;

      if (!layer->active || layer->gl_cuda == NULL)
        continue;
      writes = ef_gl_cuda_get_n_writes (layer->gl_cuda);
      if (writes == layer->held_writes)
        continue;
      layer->held_writes = writes;
      if (!ef_gl_cuda_hold (layer->gl_cuda, &error))
        g_debug ("Textures not held for the next write: %s", error->message);
    }
#endif
}

static void
ensure_layer_textures (EfImageView *self)
{
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      Layer *layer = &self->layers[id];
      g_autoptr (GError) error = NULL;
      /* Values computed at upload make a frame cheap; the textures that CUDA writes hold the
       * complex pixels, and the shader takes their magnitude or phase every frame. */
      EfGlImageFormat format = layer->device_image != NULL && self->share_device >= 0 ? EF_GL_IMAGE_COMPLEX
                                                                                      : EF_GL_IMAGE_VALUE;

      if (!layer->active)
        continue;
      /* A device image that came after the textures were made asks for the other kind. */
      if (layer->gl != NULL && ef_gl_image_get_format (layer->gl) != format)
        layer_release_gl (self, layer);
      if (layer->gl != NULL)
        continue;
      layer->gl = ef_gl_image_new_with_format (layer->grid.width, layer->grid.height, self->max_texture, format,
                                               self->display.mode, &error);
      if (layer->gl == NULL)
        {
          g_warning ("%s", error->message);
          layer->active = FALSE;
          continue;
        }
      /* A new texture holds nothing: everything the source has must come again. A source that has
       * reported nothing yet holds only zeros, which would hide the layer below. */
      layer->has_data = FALSE;
      layer->share_failed = FALSE;
      if (layer->damaged)
        layer_mark_all (layer);
    }
}

static void
layer_matrix (EfImageView *self, const EfGrid *g, double m[6])
{
  double w = MAX (gtk_widget_get_width (GTK_WIDGET (self)), 1);
  double h = MAX (gtk_widget_get_height (GTK_WIDGET (self)), 1);
  double kx = 2.0 * self->scale / w, ky = 2.0 * self->scale / h;

  m[0] = kx * g->spacing * g->u[0];
  m[1] = kx * g->spacing * g->v[0];
  m[2] = kx * (g->origin[0] - self->cx);
  m[3] = ky * g->spacing * g->u[1];
  m[4] = ky * g->spacing * g->v[1];
  m[5] = ky * (g->origin[1] - self->cy);
}

static gboolean
ef_image_view_render (GtkGLArea *area, GdkGLContext *context)
{
  EfImageView *self = EF_IMAGE_VIEW (area);
  gint64 deadline = g_get_monotonic_time () + UPLOAD_BUDGET_US, t_draw;
  guint pixels_left = UPLOAD_BUDGET_PIXELS;

  if (self->timings != NULL)
    {
      memset (&self->frame, 0, sizeof self->frame);
      self->frame.start_us = g_get_monotonic_time ();
    }
  empty_trash (self);
  glClearColor (0.11f, 0.11f, 0.12f, 1.0f);
  glClear (GL_COLOR_BUFFER_BIT);
  if (self->renderer == NULL)
    return TRUE;

  ensure_layer_textures (self);
  /* The ROI first: it is what the user is watching. Layers on the device take no upload budget. */
  for (int id = EF_N_LAYERS - 1; id >= 0; id--)
    {
      Layer *layer = &self->layers[id];

      if (!layer->active || share_layer (self, layer))
        continue;
      if (!upload_layer (self, layer, deadline, &pixels_left, FALSE))
        break;
    }
  empty_trash (self);

  t_draw = self->timings != NULL ? g_get_monotonic_time () : 0;
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      Layer *layer = &self->layers[id];
      double m[6];

      if (!layer->active || layer->gl == NULL || !layer->has_data)
        continue;
      layer_matrix (self, &layer->grid, m);
      ef_gl_renderer_draw_image (self->renderer, layer->gl, m, &self->display, layer->gain_db);
    }
  hold_shared_layers (self);
  if (self->timings != NULL)
    {
      glFinish ();
      self->frame.draw_us = (guint) (g_get_monotonic_time () - t_draw);
      g_array_append_val (self->timings, self->frame);
    }
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
  if (!gtk_widget_get_realized (GTK_WIDGET (self)) || self->renderer == NULL)
    return;
  gtk_gl_area_make_current (GTK_GL_AREA (self));
  if (gtk_gl_area_get_error (GTK_GL_AREA (self)) != NULL)
    return;
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      Layer *layer = &self->layers[id];

      if (layer->gl_cuda != NULL)
        g_ptr_array_add (self->trash_cuda, g_steal_pointer (&layer->gl_cuda));
      layer->share_failed = FALSE;
      /* Whatever is on screen came one way; the other way starts from the whole image. */
      if (layer->active && layer->damaged)
        layer_mark_all (layer);
    }
  empty_trash (self);
  choose_display_path (self);
  queue_upload (self);
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
  self->renderer = ef_gl_renderer_new (&error);
  if (self->renderer == NULL)
    {
      gtk_gl_area_set_error (area, error);
      self->gl_error = g_steal_pointer (&error);
      g_warning ("%s", self->gl_error->message);
      return;
    }
  g_free (self->gl_description);
  self->gl_description = g_strdup (ef_gl_renderer_describe (self->renderer));
  g_debug ("GL: %s", self->gl_description);
  choose_display_path (self);

  /* Every texture is rebuilt for this context (in the next render); layers refill from their sources. */
  for (guint id = 0; id < EF_N_LAYERS; id++)
    if (self->layers[id].active && self->layers[id].damaged)
      layer_mark_all (&self->layers[id]);
  queue_upload (self);
}

static void
ef_image_view_unrealize (GtkWidget *widget)
{
  EfImageView *self = EF_IMAGE_VIEW (widget);
  GtkGLArea *area = GTK_GL_AREA (widget);

  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (widget, self->tick_id);
      self->tick_id = 0;
    }
  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) == NULL)
    {
      for (guint id = 0; id < EF_N_LAYERS; id++)
        layer_release_gl (self, &self->layers[id]);
      empty_trash (self);
      g_clear_pointer (&self->renderer, ef_gl_renderer_free);
    }
  else
    {
      /* No context to delete in: the objects went with it. Nothing was registered with CUDA
       * either, since that needs the context. */
      for (guint id = 0; id < EF_N_LAYERS; id++)
        {
          self->layers[id].gl = NULL;
          self->layers[id].gl_cuda = NULL;
        }
      g_ptr_array_set_size (self->trash, 0);
      g_ptr_array_set_size (self->trash_cuda, 0);
      self->renderer = NULL;
    }
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

static void
box_to_rect (EfImageView *self, const double b[4], graphene_rect_t *r)
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

static void
append_label (EfImageView *self, GtkSnapshot *snapshot, const char *text, float x, float y)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  const GdkRGBA bg = { 0, 0, 0, 0.65f }, fg = { 1, 1, 1, 1 };
  int lw, lh;

  pango_layout_get_pixel_size (layout, &lw, &lh);
  x = CLAMP (x, 2.0f, MAX (2.0f, gtk_widget_get_width (GTK_WIDGET (self)) - lw - 10.0f));
  y = CLAMP (y, 2.0f, MAX (2.0f, gtk_widget_get_height (GTK_WIDGET (self)) - lh - 6.0f));
  gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (x, y, lw + 8, lh + 4));
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x + 4, y + 2));
  gtk_snapshot_append_layout (snapshot, layout, &fg);
  gtk_snapshot_restore (snapshot);
}

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

  return self->force_soft || self->renderer == NULL
         || (renderer != NULL && GSK_IS_CAIRO_RENDERER (renderer));
}

static void
soft_table_update (EfImageView *self, EfColormap map, double gamma)
{
  if (self->soft_table_valid && self->soft_table_map == map && self->soft_table_gamma == gamma)
    return;
  ef_display_table_fill (map, gamma, self->soft_table, SOFT_TABLE_SIZE);
  self->soft_table_valid = TRUE;
  self->soft_table_map = map;
  self->soft_table_gamma = gamma;
}

/* The layer drawn on the processor, over the part of the widget it covers, at device pixels: the node of
 * the last frame when nothing it depends on changed. Returns it borrowed, or NULL.
 *
 * The node is a cairo node painting an image surface, not a texture node, for GTK 4.8's cairo renderer:
 * that draws a texture node by converting the whole texture, pixel by pixel, in every frame that redraws
 * any part of it (4 ms for a 700 × 700 overview under a refining region), while it paints a surface as
 * it is, and only where damaged. The same node, reused, is no damage at all. */
static GskRenderNode *
soft_layer_node (EfImageView *self, Layer *layer)
{
  const EfGrid *g = &layer->grid;
  int sf = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  double k = self->scale * sf;
  double xmin = G_MAXDOUBLE, ymin = G_MAXDOUBLE, xmax = -G_MAXDOUBLE, ymax = -G_MAXDOUBLE;
  double scale, offset, fw_col, fw_row;
  EfColormap map = (guint) self->display.colormap < EF_COLORMAP_N ? self->display.colormap : EF_COLORMAP_GREY;
  EfSoftImage image;
  SoftKey key;
  GskRenderNode *node;
  cairo_surface_t *surface;
  cairo_t *cr;

  if (layer->soft_values == NULL || layer->soft_mode != self->display.mode)
    return NULL;
  /* Compared byte by byte: the padding too. */
  memset (&key, 0, sizeof key);
  /* Image pixel (col, row) -> device pixel of the widget, as layer_matrix () for GL. */
  key.m[0] = k * g->spacing * g->u[0];
  key.m[1] = k * g->spacing * g->v[0];
  key.m[2] = sf * (0.5 * w + self->scale * (g->origin[0] - self->cx));
  key.m[3] = -k * g->spacing * g->u[1];
  key.m[4] = -k * g->spacing * g->v[1];
  key.m[5] = sf * (0.5 * h - self->scale * (g->origin[1] - self->cy));
  for (int c = 0; c < 4; c++)
    {
      double col = (c & 1) ? g->width - 0.5 : -0.5, row = (c & 2) ? g->height - 0.5 : -0.5;
      double x = key.m[0] * col + key.m[1] * row + key.m[2], y = key.m[3] * col + key.m[4] * row + key.m[5];

      xmin = MIN (xmin, x);
      xmax = MAX (xmax, x);
      ymin = MIN (ymin, y);
      ymax = MAX (ymax, y);
    }
  if (!isfinite (xmin + xmax + ymin + ymax))
    return NULL;
  /* Only the part on screen. */
  key.x0 = (int) floor (MAX (xmin, 0));
  key.y0 = (int) floor (MAX (ymin, 0));
  key.w = (int) ceil (MIN (xmax, w * sf)) - key.x0;
  key.h = (int) ceil (MIN (ymax, h * sf)) - key.y0;
  if (key.w <= 0 || key.h <= 0)
    return NULL;
  key.m[2] -= key.x0;
  key.m[5] -= key.y0;
  ef_display_values_map (&self->display, layer->gain_db, &scale, &offset);
  key.scale = (float) scale;
  key.offset = (float) offset;
  key.map = map;
  key.gamma = self->display.mode == EF_VIEW_MAGNITUDE ? self->display.gamma : 1.0;
  ef_soft_draw_footprint (key.m, &fw_col, &fw_row);
  key.average_db = self->display.mode == EF_VIEW_MAGNITUDE && MAX (fw_col, fw_row) > 1.5;
  key.version = layer->soft_version;

  if (layer->soft_node != NULL && memcmp (&key, &layer->soft_key, sizeof key) == 0)
    return layer->soft_node;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, key.w, key.h);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return NULL;
    }
  soft_table_update (self, map, key.gamma);
  image.values = layer->soft_values;
  image.width = g->width;
  image.height = g->height;
  image.stride = g->width;
  image.cell_mask = layer->soft_mask;
  image.cells_w = layer->cells_w;
  image.cell = EF_GL_IMAGE_CELL;
  cairo_surface_flush (surface);
  ef_soft_draw (&image, key.m, key.scale, key.offset, self->soft_table, SOFT_TABLE_SIZE, key.average_db,
                cairo_image_surface_get_data (surface), (guint) key.w, (guint) key.h,
                (gsize) cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  cairo_surface_set_device_scale (surface, sf, sf);

  node = gsk_cairo_node_new (&GRAPHENE_RECT_INIT ((float) key.x0 / sf, (float) key.y0 / sf,
                                                  (float) key.w / sf, (float) key.h / sf));
  cr = gsk_cairo_node_get_draw_context (node);
  cairo_set_source_surface (cr, surface, (double) key.x0 / sf, (double) key.y0 / sf);
  /* Nearest: one surface pixel per device pixel, never resampled. */
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_clear_pointer (&layer->soft_node, gsk_render_node_unref);
  layer->soft_node = node;
  layer->soft_key = key;
  return node;
}

/* The image part of a frame drawn on the processor: the uploads this frame's budget allows, then each
 * layer's node (see soft_layer_node ()). */
static void
soft_snapshot (EfImageView *self, GtkSnapshot *snapshot)
{
  const GdkRGBA background = { 0.11f, 0.11f, 0.12f, 1.0f };
  gint64 deadline = g_get_monotonic_time () + UPLOAD_BUDGET_US, t_draw;
  guint pixels_left = UPLOAD_BUDGET_PIXELS;
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (self->timings != NULL)
    {
      memset (&self->frame, 0, sizeof self->frame);
      self->frame.start_us = g_get_monotonic_time ();
    }
  if (!self->soft)
    {
      /* What the textures held came the other way: everything comes again. */
      self->soft = TRUE;
      for (guint id = 0; id < EF_N_LAYERS; id++)
        if (self->layers[id].active && self->layers[id].damaged)
          layer_mark_all (&self->layers[id]);
    }
  for (int id = EF_N_LAYERS - 1; id >= 0; id--)
    if (self->layers[id].active && !upload_layer (self, &self->layers[id], deadline, &pixels_left, TRUE))
      break;

  t_draw = self->timings != NULL ? g_get_monotonic_time () : 0;
  gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, (float) w, (float) h));
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      GskRenderNode *node;

      if (!self->layers[id].active)
        continue;
      node = soft_layer_node (self, &self->layers[id]);
      if (node != NULL)
        gtk_snapshot_append_node (snapshot, node);
    }
  if (self->timings != NULL)
    {
      self->frame.draw_us = (guint) (g_get_monotonic_time () - t_draw);
      g_array_append_val (self->timings, self->frame);
    }
}

static gboolean
showing_edit (EfImageView *self)
{
  return self->drag == DRAG_NEW_ROI || self->drag == DRAG_MOVE_ROI || self->drag == DRAG_RESIZE_ROI;
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
    soft_snapshot (self, snapshot);
  else
    {
      if (self->soft)
        {
          self->soft = FALSE;
          for (guint id = 0; id < EF_N_LAYERS; id++)
            if (self->layers[id].active && self->layers[id].damaged)
              layer_mark_all (&self->layers[id]);
        }
      GTK_WIDGET_CLASS (ef_image_view_parent_class)->snapshot (widget, snapshot);
    }

  if (self->has_box)
    {
      box_to_rect (self, self->box, &r);
      append_frame (snapshot, &r, 1, &box_color);
    }

  if (self->has_roi || showing_edit (self))
    {
      const double *b = showing_edit (self) ? self->edit_roi : self->roi;
      const GdkRGBA *color = showing_edit (self) ? &edit_color : &roi_color;
      graphene_rect_t outer;

      box_to_rect (self, b, &r);
      outer = GRAPHENE_RECT_INIT (r.origin.x - 1, r.origin.y - 1, r.size.width + 2, r.size.height + 2);
      append_frame (snapshot, &outer, 3, &shadow);
      append_frame (snapshot, &r, 2, color);

      if (self->tool == EF_TOOL_REGION || showing_edit (self))
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

      if (showing_edit (self) || self->tool == EF_TOOL_REGION)
        {
          double wm = b[2] - b[0], hm = b[3] - b[1];
          g_autofree char *text = NULL;

          if (self->roi_spacing > 0)
            text = g_strdup_printf (_("%.1f × %.1f m · %.0f × %.0f px"), wm, hm, floor (wm / self->roi_spacing + 0.5),
                                    floor (hm / self->roi_spacing + 0.5));
          else
            text = g_strdup_printf (_("%.1f × %.1f m"), wm, hm);
          append_label (self, snapshot, text, r.origin.x, r.origin.y + r.size.height + 6);
        }
    }

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

/* ---- input ----------------------------------------------------------------------------------- */

/* Which edges of the ROI a widget point grabs: a handle (two edges or one), EDGE_ALL inside, 0 outside. */
static guint
hit_roi (EfImageView *self, double wx, double wy)
{
  graphene_rect_t r;
  double x0, y0, x1, y1;
  guint edges = 0;

  if (!self->has_roi)
    return 0;
  box_to_rect (self, self->roi, &r);
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

static void
update_cursor (EfImageView *self)
{
  const char *name = NULL;

  if (self->drag == DRAG_PAN)
    name = "grabbing";
  else if (self->tool == EF_TOOL_REGION)
    {
      name = cursor_for_edges (self->drag == DRAG_NONE ? hit_roi (self, self->pointer_wx, self->pointer_wy)
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
    self->drag = DRAG_PAN;
  else if ((mods & GDK_CONTROL_MASK) != 0 || self->tool == EF_TOOL_REGION)
    {
      guint edges = (mods & GDK_CONTROL_MASK) ? 0 : hit_roi (self, wx, wy);

      if (edges == EDGE_ALL)
        self->drag = DRAG_MOVE_ROI;
      else if (edges != 0)
        self->drag = DRAG_RESIZE_ROI;
      else
        {
          double x, y;
          self->drag = DRAG_NEW_ROI;
          edges = EDGE_RIGHT | EDGE_BOTTOM;
          ef_image_view_widget_to_scene (self, wx, wy, &x, &y);
          self->edit_roi[0] = self->edit_roi[2] = x;
          self->edit_roi[1] = self->edit_roi[3] = y;
        }
      self->drag_edges = edges;
    }
  else if (self->tool == EF_TOOL_MEASURE)
    self->drag = DRAG_CLICK;
  else
    self->drag = DRAG_PAN;
  update_cursor (self);
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
    case DRAG_CLICK:
      if (hypot (dx, dy) < 4)
        break;
      self->drag = DRAG_PAN;
      G_GNUC_FALLTHROUGH;
    case DRAG_PAN:
      self->cx = self->drag_start_cx - dx / self->scale;
      self->cy = self->drag_start_cy + dy / self->scale;
      self->fitted = FALSE;
      view_changed (self);
      break;
    case DRAG_NEW_ROI:
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
    case DRAG_MOVE_ROI:
    case DRAG_RESIZE_ROI:
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
        normalise_box (self->edit_roi);
        gtk_widget_queue_draw (GTK_WIDGET (self));
      }
      break;
    case DRAG_NONE:
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
  DragMode mode;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  /* The end's offset counts, whether or not an update with it came first. */
  ef_image_view_input_drag_update (self, dx, dy);
  mode = self->drag;

  self->drag = DRAG_NONE;
  update_cursor (self);
  if (mode == DRAG_CLICK)
    {
      double x, y;
      ef_image_view_widget_to_scene (self, self->drag_start_wx + dx, self->drag_start_wy + dy, &x, &y);
      g_signal_emit (self, signals[SIGNAL_POINT_PICKED], 0, x, y);
    }
  else if (mode == DRAG_NEW_ROI || mode == DRAG_MOVE_ROI || mode == DRAG_RESIZE_ROI)
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
      g_signal_emit (self, signals[SIGNAL_ROI_EDITED], 0, self->roi[0], self->roi[1], self->roi[2], self->roi[3]);
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
  if (!showing_edit (self))
    return;
  self->drag = DRAG_NONE;
  self->has_roi = self->drag_had_roi;
  memcpy (self->roi, self->drag_roi_before, sizeof self->roi);
  gtk_event_controller_reset (GTK_EVENT_CONTROLLER (self->drag_gesture));
  update_cursor (self);
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
  if (self->drag == DRAG_NONE)
    update_cursor (self);
  ef_image_view_widget_to_scene (self, wx, wy, &x, &y);
  g_signal_emit (self, signals[SIGNAL_CURSOR_MOVED], 0, TRUE, x, y);
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
  g_signal_emit (self, signals[SIGNAL_CURSOR_MOVED], 0, FALSE, 0.0, 0.0);
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
      if (showing_edit (self))
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

gboolean
ef_image_view_get_edit_roi (EfImageView *self, double roi[4])
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  if (showing_edit (self) && roi != NULL)
    memcpy (roi, self->edit_roi, sizeof self->edit_roi);
  return showing_edit (self);
}

/* ---- object ---------------------------------------------------------------------------------- */

static void
ef_image_view_dispose (GObject *object)
{
  EfImageView *self = EF_IMAGE_VIEW (object);

  for (guint id = 0; id < EF_N_LAYERS; id++)
    layer_clear (self, &self->layers[id]);
  G_OBJECT_CLASS (ef_image_view_parent_class)->dispose (object);
}

static void
ef_image_view_finalize (GObject *object)
{
  EfImageView *self = EF_IMAGE_VIEW (object);

  /* Unrealize emptied it; anything left had no context to be deleted in. */
  g_ptr_array_unref (self->trash);
  g_ptr_array_unref (self->trash_cuda);
  g_free (self->display_path);
  g_clear_error (&self->gl_error);
  g_free (self->staging);
  g_free (self->values_staging);
  g_free (self->gl_description);
  g_clear_pointer (&self->timings, g_array_unref);
  G_OBJECT_CLASS (ef_image_view_parent_class)->finalize (object);
}

static void
ef_image_view_class_init (EfImageViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkGLAreaClass *area_class = GTK_GL_AREA_CLASS (klass);

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
  signals[SIGNAL_ROI_EDITED] = g_signal_new ("roi-edited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                             NULL, NULL, G_TYPE_NONE, 4, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                             G_TYPE_DOUBLE, G_TYPE_DOUBLE);
  /**
   * EfImageView::point-picked:
   * The measure tool was clicked at scene point (x, y).
   */
  signals[SIGNAL_POINT_PICKED] = g_signal_new ("point-picked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
  /**
   * EfImageView::cursor-moved:
   * The pointer is over scene point (x, y), or left the view (inside FALSE).
   */
  signals[SIGNAL_CURSOR_MOVED] = g_signal_new ("cursor-moved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_BOOLEAN, G_TYPE_DOUBLE,
                                               G_TYPE_DOUBLE);

  gtk_widget_class_set_css_name (widget_class, "imageview");
}

static void
ef_image_view_init (EfImageView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->trash = g_ptr_array_new ();
  self->trash_cuda = g_ptr_array_new ();
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

  update_cursor (self);
}

GtkWidget *
ef_image_view_new (void)
{
  return g_object_new (EF_TYPE_IMAGE_VIEW, NULL);
}

/* ---- timing ---------------------------------------------------------------------------------- */

void
ef_image_view_set_force_soft (EfImageView *self, gboolean force)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->force_soft = !!force;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ef_image_view_is_soft (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  return self->soft;
}

void
ef_image_view_set_timing (EfImageView *self, gboolean timing)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  g_clear_pointer (&self->timings, g_array_unref);
  if (timing)
    self->timings = g_array_new (FALSE, TRUE, sizeof (EfImageViewFrameTiming));
}

GArray *
ef_image_view_get_timings (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), NULL);
  return self->timings;
}
