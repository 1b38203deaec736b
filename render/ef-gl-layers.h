/* ef-gl-layers.h: the GL side of a view of image layers: programs, textures, CUDA registrations, drawing. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-colormap.h"
#include "ef-gl-image.h"
#include "ef-view-transform.h"

G_BEGIN_DECLS

/* compute/cuda/ef-cuda.h and ef-gl-cuda.h declare the same type. */
typedef struct _EfCudaImage EfCudaImage;

/* A view's layers as GL draws them: each slot holds a layer's textures and, where CUDA writes them, their
 * registration. What a slot gives up waits in a trash until the context is current to delete it, so that
 * layers can change at any time. Everything here belongs to the GL context the object was made in:
 * every call except release and reset_share needs that context current. Made at a widget's
 * realize and freed at its unrealize; it knows nothing of widgets. */
typedef struct _EfGlLayers EfGlLayers;

/* Compiles the programs (ef_gl_renderer_new) for n_layers empty slots. NULL with error if they fail. */
EfGlLayers *ef_gl_layers_new (guint n_layers, GError **error);
/* Unregisters and deletes every texture and program, and frees self. */
void        ef_gl_layers_free (EfGlLayers *self);
/* Frees self without a context: the GL objects went with the context that lost them, and nothing was
 * registered with CUDA without one. */
void        ef_gl_layers_forget (EfGlLayers *self);
/* The context's version string (ef_gl_renderer_describe), static. */
const char *ef_gl_layers_describe (EfGlLayers *self);

/* Clears the frame to the views' background. Needs no EfGlLayers: a view without programs shows it too. */
void        ef_gl_layers_clear (void);
/* Waits for what GL has queued, so that a time measured after it includes the rasteriser's work. */
void        ef_gl_layers_finish (void);

/* Gives up a layer's textures and registration (the registration first: it refers to the textures). */
void        ef_gl_layers_release (EfGlLayers *self, guint layer);
/* Deletes what was given up (registrations first). */
void        ef_gl_layers_empty_trash (EfGlLayers *self);

/* Makes a layer's textures for a width x height image held as format (VALUE ones holding mode), unless it
 * has some of that format already; textures of the other format are given up first. max_tile limits a
 * texture's edge (0: the driver's limit). *made is TRUE when new textures were made: they hold nothing
 * yet, and the layer may share again. FALSE with error when the driver refuses. */
gboolean    ef_gl_layers_ensure (EfGlLayers *self, guint layer, guint width, guint height, guint max_tile,
                                 EfGlImageFormat format, EfViewMode mode, gboolean *made, GError **error);
/* The layer's textures, or NULL; borrowed. */
EfGlImage  *ef_gl_layers_get_image (EfGlLayers *self, guint layer);

/* Draws a layer of grid in view, if it has textures; gain_db as for ef_gl_renderer_draw_image. */
void        ef_gl_layers_draw (EfGlLayers *self, guint layer, const EfGrid *grid, const EfViewTransform *view,
                               const EfDisplayParams *params, double gain_db);

/* CUDA–OpenGL sharing, one layer at a time (ef-gl-cuda.h). A layer whose registration failed stays on
 * host uploads until its textures are made again or reset_share is called. */

/* TRUE when sharing failed for the layer's present textures. */
gboolean    ef_gl_layers_share_failed (EfGlLayers *self, guint layer);
/* Registers the layer's textures with device unless they are; FALSE with error (and the layer marked
 * failed) when the driver refuses. */
gboolean    ef_gl_layers_share_begin (EfGlLayers *self, guint layer, int device, GError **error);
/* Writes rects (n_rects > 0) of source into the textures (ef_gl_cuda_update). On failure the registration
 * goes, the layer is marked failed, and FALSE comes with error. */
gboolean    ef_gl_layers_share_update (EfGlLayers *self, guint layer, EfCudaImage *source, const EfRect *rects,
                                       guint n_rects, guint64 *mark, GError **error);
/* Gives textures held since the last frame back to GL (ef_gl_cuda_release), for a frame that writes
 * nothing. Fails as share_update does. */
gboolean    ef_gl_layers_share_give_back (EfGlLayers *self, guint layer, GError **error);
/* The layer goes back to host uploads: held textures are given back to GL (not waiting) and the
 * registration goes; a failure stays marked. */
void        ef_gl_layers_unshare (EfGlLayers *self, guint layer);
/* The registration goes as it is and the layer may share again (a new source, another path). May be
 * called without the context current. */
void        ef_gl_layers_reset_share (EfGlLayers *self, guint layer);
/* At the end of a frame: maps for CUDA again the textures of every layer written since it was last
 * held (ef_gl_cuda_hold), so that GL gives them up with this frame's work. A failure only costs that. */
void        ef_gl_layers_hold_shared (EfGlLayers *self);

G_END_DECLS
