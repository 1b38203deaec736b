/* ef-gl-layers.c: a view's layers in GL: textures made and given up, CUDA registrations, the draw. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gl-layers"
#include "config.h"

#include <epoxy/gl.h>

#include "ef-gl-cuda.h"
#include "ef-gl-layers.h"
#include "ef-gl-renderer.h"

typedef struct {
  EfGlImage *image;         /* owned; NULL until made */
  EfGlCuda  *cuda;          /* owned registration of image; NULL: uploads from host memory */
  guint64    held_writes;   /* cuda's write count when it was last held */
  gboolean   share_failed;  /* sharing failed for these textures: uploads until they are remade */
} Slot;

struct _EfGlLayers {
  EfGlRenderer *renderer;   /* owned */
  Slot         *slots;      /* owned, n_slots */
  guint         n_slots;
  GPtrArray    *trash;      /* EfGlImage waiting to be deleted */
  GPtrArray    *trash_cuda; /* EfGlCuda waiting to be unregistered */
};

EfGlLayers *
ef_gl_layers_new (guint n_layers, GError **error)
{
  EfGlRenderer *renderer = ef_gl_renderer_new (error);
  EfGlLayers *self;

  if (renderer == NULL)
    return NULL;
  self = g_new0 (EfGlLayers, 1);
  self->renderer = renderer;
  self->slots = g_new0 (Slot, n_layers);
  self->n_slots = n_layers;
  self->trash = g_ptr_array_new ();
  self->trash_cuda = g_ptr_array_new ();
  return self;
}

void
ef_gl_layers_free (EfGlLayers *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->n_slots; i++)
    ef_gl_layers_release (self, i);
  ef_gl_layers_empty_trash (self);
  g_clear_pointer (&self->renderer, ef_gl_renderer_free);
  ef_gl_layers_forget (self);
}

void
ef_gl_layers_forget (EfGlLayers *self)
{
  if (self == NULL)
    return;
  /* Without a context the textures, registrations and programs cannot be deleted: their GL side went
   * with the context, and their host side is let go with it. */
  g_ptr_array_unref (self->trash);
  g_ptr_array_unref (self->trash_cuda);
  g_free (self->slots);
  g_free (self);
}

const char *
ef_gl_layers_describe (EfGlLayers *self)
{
  return ef_gl_renderer_describe (self->renderer);
}

void
ef_gl_layers_clear (void)
{
  glClearColor (0.11f, 0.11f, 0.12f, 1.0f);
  glClear (GL_COLOR_BUFFER_BIT);
}

void
ef_gl_layers_finish (void)
{
  glFinish ();
}

void
ef_gl_layers_release (EfGlLayers *self, guint layer)
{
  Slot *slot;

  g_return_if_fail (self != NULL && layer < self->n_slots);
  slot = &self->slots[layer];
  /* The registration goes first: it refers to the textures. */
  if (slot->cuda != NULL)
    g_ptr_array_add (self->trash_cuda, g_steal_pointer (&slot->cuda));
  if (slot->image != NULL)
    g_ptr_array_add (self->trash, g_steal_pointer (&slot->image));
}

void
ef_gl_layers_empty_trash (EfGlLayers *self)
{
  for (guint i = 0; i < self->trash_cuda->len; i++)
    ef_gl_cuda_free (g_ptr_array_index (self->trash_cuda, i));
  g_ptr_array_set_size (self->trash_cuda, 0);
  for (guint i = 0; i < self->trash->len; i++)
    ef_gl_image_free (g_ptr_array_index (self->trash, i));
  g_ptr_array_set_size (self->trash, 0);
}

gboolean
ef_gl_layers_ensure (EfGlLayers *self, guint layer, guint width, guint height, guint max_tile,
                     EfGlImageFormat format, EfViewMode mode, gboolean *made, GError **error)
{
  Slot *slot;

  g_return_val_if_fail (self != NULL && layer < self->n_slots, FALSE);
  slot = &self->slots[layer];
  *made = FALSE;
  /* A device image that came after the textures were made asks for the other kind. */
  if (slot->image != NULL && ef_gl_image_get_format (slot->image) != format)
    ef_gl_layers_release (self, layer);
  if (slot->image != NULL)
    return TRUE;
  slot->image = ef_gl_image_new_with_format (width, height, max_tile, format, mode, error);
  if (slot->image == NULL)
    return FALSE;
  slot->share_failed = FALSE;
  *made = TRUE;
  return TRUE;
}

EfGlImage *
ef_gl_layers_get_image (EfGlLayers *self, guint layer)
{
  g_return_val_if_fail (self != NULL && layer < self->n_slots, NULL);
  return self->slots[layer].image;
}

void
ef_gl_layers_draw (EfGlLayers *self, guint layer, const EfGrid *grid, const EfViewTransform *view,
                   const EfDisplayParams *params, double gain_db)
{
  double m[6];

  g_return_if_fail (self != NULL && layer < self->n_slots);
  if (self->slots[layer].image == NULL)
    return;
  ef_view_transform_grid_to_ndc (view, grid, m);
  ef_gl_renderer_draw_image (self->renderer, self->slots[layer].image, m, params, gain_db);
}

/* ---- CUDA–OpenGL sharing ---------------------------------------------------------------------- */

gboolean
ef_gl_layers_share_failed (EfGlLayers *self, guint layer)
{
  g_return_val_if_fail (self != NULL && layer < self->n_slots, TRUE);
  return self->slots[layer].share_failed;
}

/* The registration goes, apart from the textures, and the layer uploads from now on. */
static void
share_fail (EfGlLayers *self, Slot *slot)
{
  if (slot->cuda != NULL)
    g_ptr_array_add (self->trash_cuda, g_steal_pointer (&slot->cuda));
  slot->share_failed = TRUE;
}

gboolean
ef_gl_layers_share_begin (EfGlLayers *self, guint layer, int device, GError **error)
{
  Slot *slot;

  g_return_val_if_fail (self != NULL && layer < self->n_slots, FALSE);
  slot = &self->slots[layer];
  g_return_val_if_fail (slot->image != NULL, FALSE);
  if (slot->cuda != NULL)
    return TRUE;
  slot->cuda = ef_gl_cuda_new (slot->image, device, error);
  slot->held_writes = 0;
  if (slot->cuda == NULL)
    {
      slot->share_failed = TRUE;
      return FALSE;
    }
  return TRUE;
}

gboolean
ef_gl_layers_share_update (EfGlLayers *self, guint layer, EfCudaImage *source, const EfRect *rects,
                           guint n_rects, guint64 *mark, GError **error)
{
  Slot *slot;

  g_return_val_if_fail (self != NULL && layer < self->n_slots, FALSE);
  slot = &self->slots[layer];
  g_return_val_if_fail (slot->cuda != NULL && n_rects > 0, FALSE);
  if (ef_gl_cuda_update (slot->cuda, source, rects, n_rects, mark, error))
    return TRUE;
  share_fail (self, slot);
  return FALSE;
}

gboolean
ef_gl_layers_share_give_back (EfGlLayers *self, guint layer, GError **error)
{
  Slot *slot;

  g_return_val_if_fail (self != NULL && layer < self->n_slots, FALSE);
  slot = &self->slots[layer];
  g_return_val_if_fail (slot->cuda != NULL, FALSE);
  if (ef_gl_cuda_release (slot->cuda, error))
    return TRUE;
  share_fail (self, slot);
  return FALSE;
}

void
ef_gl_layers_unshare (EfGlLayers *self, guint layer)
{
  Slot *slot;

  g_return_if_fail (self != NULL && layer < self->n_slots);
  slot = &self->slots[layer];
  /* Host uploads must find the textures GL's: the registration gives back what it holds now (it is
   * unregistered only when the trash is emptied, after the uploads). */
  if (slot->cuda != NULL)
    {
      (void) ef_gl_cuda_release (slot->cuda, NULL);
      g_ptr_array_add (self->trash_cuda, g_steal_pointer (&slot->cuda));
    }
}

void
ef_gl_layers_reset_share (EfGlLayers *self, guint layer)
{
  Slot *slot;

  g_return_if_fail (self != NULL && layer < self->n_slots);
  slot = &self->slots[layer];
  if (slot->cuda != NULL)
    g_ptr_array_add (self->trash_cuda, g_steal_pointer (&slot->cuda));
  slot->share_failed = FALSE;
}

/* A frame that wrote nothing (the job is done or quiet: panning, zooming) holds nothing, and the next
 * write maps for itself. */
void
ef_gl_layers_hold_shared (EfGlLayers *self)
{
  for (guint i = 0; i < self->n_slots; i++)
    {
      Slot *slot = &self->slots[i];
      g_autoptr (GError) error = NULL;
      guint64 writes;

      if (slot->cuda == NULL)
        continue;
      writes = ef_gl_cuda_get_n_writes (slot->cuda);
      if (writes == slot->held_writes)
        continue;
      slot->held_writes = writes;
      if (!ef_gl_cuda_hold (slot->cuda, &error))
        g_debug ("Textures not held for the next write: %s", error->message);
    }
}
