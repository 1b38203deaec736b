/* ef-image-view.h: the image display: layers of complex images in GL, pan, zoom, ROI editing, readout. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-grid.h"
#include "ef-colormap.h"

G_BEGIN_DECLS

#define EF_TYPE_IMAGE_VIEW (ef_image_view_get_type ())
G_DECLARE_FINAL_TYPE (EfImageView, ef_image_view, EF, IMAGE_VIEW, GtkGLArea)

/* Layers are drawn in this order, each over the previous one where it has arrived. */
typedef enum {
  EF_LAYER_OVERVIEW,
  EF_LAYER_ROI,
  EF_N_LAYERS
} EfLayerId;

typedef enum {
  EF_TOOL_PAN,      /* drag pans */
  EF_TOOL_REGION,   /* drag draws a new ROI; handles move and resize it */
  EF_TOOL_MEASURE,  /* a click picks a point to measure */
} EfTool;

/* Reads a rectangle of a layer's complex pixels on the main thread. It must not wait for a block. */
typedef gboolean (*EfImageViewReadFunc) (gpointer data, const EfRect *rect, EfCf32 *out, GError **error);

/* Reads a rectangle of display values of mode (ef_display_values_convert), prepared by the source off
 * the main thread; returns FALSE when it has none for that mode just now, and the view then converts the
 * complex pixels itself. Called on the main thread; must not wait for a block. */
typedef gboolean (*EfImageViewValuesFunc) (gpointer data, EfViewMode mode, const EfRect *rect, float *out);

GtkWidget *ef_image_view_new (void);

/* The extent of the scene (x0, y0, x1, y1 in metres); drawn as an outline and used by "fit". */
void ef_image_view_set_scene_box (EfImageView *self, const double box[4]);

/* Shows a layer on grid, reading its pixels through read(data) when damaged. grid NULL removes the
 * layer. The layer starts empty: nothing of it is drawn until a damaged cell has been uploaded. */
void ef_image_view_set_layer (EfImageView *self, EfLayerId layer, const EfGrid *grid, EfImageViewReadFunc read,
                              gpointer data, GDestroyNotify destroy);
/* Lets the view read a layer's display values through values (with the layer's data) instead of
 * converting its pixels on the main thread. Call after set_layer; set_layer forgets it. */
void ef_image_view_set_layer_values (EfImageView *self, EfLayerId layer, EfImageViewValuesFunc values);
gboolean ef_image_view_has_layer (EfImageView *self, EfLayerId layer);
const EfGrid *ef_image_view_get_layer_grid (EfImageView *self, EfLayerId layer);
/* Marks rectangles of a layer as changed; they are uploaded over the next frames, within a time budget
 * per frame, so that the main loop never stalls. */
void ef_image_view_damage (EfImageView *self, EfLayerId layer, const EfRect *rects, guint n_rects);
/* The dB added to a layer's magnitude, so that layers formed from different pulse counts agree. */
void ef_image_view_set_layer_gain (EfImageView *self, EfLayerId layer, double gain_db);
double ef_image_view_get_layer_gain (EfImageView *self, EfLayerId layer);
/* Reads the complex value under scene point (x, y) from the top layer that holds it. */
gboolean ef_image_view_probe (EfImageView *self, double x, double y, EfLayerId *layer, EfCf32 *value,
                              double *gain_db);

void ef_image_view_set_display (EfImageView *self, const EfDisplayParams *params);
const EfDisplayParams *ef_image_view_get_display (EfImageView *self);

void   ef_image_view_set_tool (EfImageView *self, EfTool tool);
EfTool ef_image_view_get_tool (EfImageView *self);

/* The ROI outline (x0, y0, x1, y1, metres) or NULL for none, and the pixel spacing used for its label. */
void     ef_image_view_set_roi (EfImageView *self, const double roi[4]);
gboolean ef_image_view_get_roi (EfImageView *self, double roi[4]);
void     ef_image_view_set_roi_spacing (EfImageView *self, double spacing);
/* A cross at a measured point, or NULL. */
void     ef_image_view_set_marker (EfImageView *self, const double xy[2]);
/* The marker's position, FALSE when there is none. */
gboolean ef_image_view_get_marker (EfImageView *self, double xy[2]);

void   ef_image_view_zoom_fit (EfImageView *self);
void   ef_image_view_zoom_to_box (EfImageView *self, const double box[4]);
void   ef_image_view_zoom_one_to_one (EfImageView *self);
/* Zooms by factor about the widget point (wx, wy); a negative wx zooms about the centre. */
void   ef_image_view_zoom_by (EfImageView *self, double factor, double wx, double wy);
void   ef_image_view_pan_by (EfImageView *self, double dx_px, double dy_px);
double ef_image_view_get_scale (EfImageView *self);   /* widget pixels per metre */
void   ef_image_view_scene_to_widget (EfImageView *self, double x, double y, double *wx, double *wy);
void   ef_image_view_widget_to_scene (EfImageView *self, double wx, double wy, double *x, double *y);

/* TRUE when no damaged cell is waiting for upload: what is on screen is what the sources hold. */
gboolean ef_image_view_is_settled (EfImageView *self);
/* CUDA–OpenGL sharing. A layer whose source keeps its pixels on a CUDA device (a CUDA job's
 * accumulator, ef_job_ref_device_image) is written into its textures on that device, with no copy
 * through host memory, when the view is drawn by the same device; read() then serves only probes. The
 * path is chosen at each realize (cudaGLGetDevices) and logged with the reason. Takes the reference;
 * NULL detaches. The layer keeps it until set_layer replaces the layer. */
typedef struct _EfCudaImage EfCudaImage;
void         ef_image_view_take_layer_device_image (EfImageView *self, EfLayerId layer, EfCudaImage *image);
EfCudaImage *ef_image_view_get_layer_device_image (EfImageView *self, EfLayerId layer);  /* borrowed */
/* The CUDA device that draws this view and receives device images in place, or -1 when the view
 * uploads from host memory. Known once realized. */
int          ef_image_view_get_shared_device (EfImageView *self);
/* Which display path is in use and why ("host upload, because …"), or NULL before realize. */
const char  *ef_image_view_get_display_path (EfImageView *self);
/* Always upload from host memory, even where the device could write the textures. */
void         ef_image_view_set_force_host_upload (EfImageView *self, gboolean force);

/* The renderer's description once realized ("llvmpipe …; 4.5 …"), or NULL; and the GL failure if any. */
const char *ef_image_view_get_gl_description (EfImageView *self);
const GError *ef_image_view_get_gl_error (EfImageView *self);

G_END_DECLS
