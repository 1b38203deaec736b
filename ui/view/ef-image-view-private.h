/* ef-image-view-private.h: the image view's state, shared by the files that make up EfImageView. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-gl-layers.h"
#include "ef-image-view.h"
#include "ef-image-view-input.h"
#include "ef-soft-layer.h"

G_BEGIN_DECLS

/* Uploading stops for this frame past either limit; the rest goes in the next frames. */
#define EF_IMAGE_VIEW_UPLOAD_BUDGET_US 6000
#define EF_IMAGE_VIEW_UPLOAD_BUDGET_PIXELS (1u << 20)
/* The scale bar's longest length on screen. */
#define EF_IMAGE_VIEW_SCALE_BAR_PX 160.0

typedef struct {
  gboolean            active;
  EfGrid              grid;
  EfImageViewReadFunc read;
  gpointer            data;
  GDestroyNotify      destroy;
  double              gain_db;
  guint               cells_w, cells_h;
  guint8             *dirty;       /* owned, cells_w * cells_h */
  guint               n_dirty;
  gboolean            has_data;    /* some cell has been uploaded */
  gboolean            damaged;     /* the source has reported something: there is data to read */
  guint               n_updates;
  EfCudaImage        *device_image; /* owned reference or NULL: the source's pixels on their device */
  guint64             want_mark;   /* the device image's mark that the damage asks to see */
  EfImageViewValuesFunc values;    /* display values prepared by the source, or NULL */

  /* Drawing on the processor (ef_image_view_use_soft ()). */
  EfSoftLayer        *soft;        /* owned, or NULL until the first upload there */
  GskRenderNode      *soft_node;   /* owned: the layer as last drawn, or NULL */
  EfSoftPlace         soft_place;  /* what soft_node was drawn from */
} EfImageViewLayer;

typedef enum {
  EF_DRAG_NONE,
  EF_DRAG_PAN,
  EF_DRAG_NEW_ROI,
  EF_DRAG_MOVE_ROI,
  EF_DRAG_RESIZE_ROI,
  EF_DRAG_CLICK,       /* measure tool: a click unless it moves */
} EfDragMode;

/* One render of the view, timed when timing is on (each part ends with glFinish, so that the time
 * is the rasteriser's as well as ours; this serialises the GL pipeline and costs a little). */
typedef struct {
  gint64 start_us;     /* monotonic time the render began */
  guint  read_us;      /* reading source pixels or prepared values */
  guint  upload_us;    /* conversion on the main thread, if any, and glTexSubImage2D */
  guint  draw_us;      /* drawing the layers */
  guint  pixels;       /* uploaded */
  guint  converted;    /* of which converted on the main thread (no prepared values) */
} EfImageViewFrameTiming;

struct _EfImageView {
  GtkGLArea        parent_instance;

  EfGlLayers      *gl;            /* owned by the GL context: from realize to unrealize, if GL works */
  int              share_device;  /* CUDA device drawing this view and forming images; -1: uploads */
  char            *display_path;  /* owned: which path and why, once realized */
  gboolean         force_host_upload;
  GError          *gl_error;      /* owned */
  EfImageViewLayer layers[EF_N_LAYERS];
  EfDisplayParams  display;
  EfCf32          *staging;       /* owned upload buffer */
  gsize            staging_len;
  float           *values_staging; /* owned upload buffer of display values */
  gsize            values_staging_len;
  guint            max_texture;   /* a texture's largest edge, 0: the driver's; tests lower it */
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

  /* Input (ef-image-view-input.c). */
  EfDragMode       drag;
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
  gboolean         force_soft;    /* draw on the processor whatever GTK composites with; tests set it */

  GArray          *timings;       /* owned EfImageViewFrameTiming, or NULL unless a bench times renders */
  GskRenderNode   *annotations;   /* owned: scale bar, north arrow and ticks as last drawn, or NULL */
  double           annotations_key[5]; /* the width, height, cx, cy and scale they were drawn for */
  EfImageViewFrameTiming frame;   /* the render in progress */
};

enum {
  EF_IMAGE_VIEW_SIGNAL_ROI_EDITED,
  EF_IMAGE_VIEW_SIGNAL_POINT_PICKED,
  EF_IMAGE_VIEW_SIGNAL_CURSOR_MOVED,
  EF_IMAGE_VIEW_N_SIGNALS
};

/* ef-image-view.c */
extern guint ef_image_view_signals[EF_IMAGE_VIEW_N_SIGNALS];

void     ef_image_view_view_changed (EfImageView *self);
void     ef_image_view_get_transform (EfImageView *self, EfViewTransform *view);
void     ef_image_view_normalise_box (double b[4]);
/* The rectangle of widget pixels that a scene box (x0, y0, x1, y1) covers. */
void     ef_image_view_box_to_rect (EfImageView *self, const double b[4], graphene_rect_t *r);

/* ef-image-view-input.c */
/* Adds the gestures and controllers. */
void     ef_image_view_input_init (EfImageView *self);
void     ef_image_view_input_update_cursor (EfImageView *self);
/* TRUE while a ROI drawing, move or resize is in flight (its outline is edit_roi). */
gboolean ef_image_view_input_is_editing (EfImageView *self);

/* ef-image-view-layers.c */
void     ef_image_view_layer_clear (EfImageView *self, EfImageViewLayer *layer);
/* Marks every cell of the layer damaged. */
void     ef_image_view_layer_mark_all (EfImageViewLayer *layer);
/* Makes the layer's processor-side image hold mode; FALSE when it cannot be made. */
gboolean ef_image_view_layer_ensure_soft (EfImageViewLayer *layer, EfViewMode mode);
/* Asks for renders, one per frame, until every damaged cell is uploaded. */
void     ef_image_view_queue_upload (EfImageView *self);
void     ef_image_view_stop_uploads (EfImageView *self);
/* The uploads and draws of one GL render, and of the layers' part of a frame drawn on the processor. */
void     ef_image_view_render_layers (EfImageView *self);
void     ef_image_view_snapshot_soft (EfImageView *self, GtkSnapshot *snapshot);

G_END_DECLS
