/* ef-image-view-layers.c: the image view's layers: sources, damage, uploads within a frame's budget, GL and processor draws. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-view"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-image-view-private.h"
#if HAVE_CUDA
#include "cuda/ef-cuda.h"
#endif

static guint
layer_id (EfImageView *self, EfImageViewLayer *layer)
{
  return (guint) (layer - self->layers);
}

static void
layer_drop_device_image (EfImageViewLayer *layer)
{
#if HAVE_CUDA
  g_clear_pointer (&layer->device_image, ef_cuda_image_unref);
#endif
  layer->device_image = NULL;
}

void
ef_image_view_layer_clear (EfImageView *self, EfImageViewLayer *layer)
{
  if (self->gl != NULL)
    ef_gl_layers_release (self->gl, layer_id (self, layer));
  /* Before the source: a job freed on another thread then holds the image's last reference, and
   * the main thread never waits for the device to free it. */
  layer_drop_device_image (layer);
  if (layer->destroy != NULL && layer->data != NULL)
    layer->destroy (layer->data);
  g_clear_pointer (&layer->dirty, g_free);
  g_clear_pointer (&layer->soft, ef_soft_layer_free);
  g_clear_pointer (&layer->soft_node, gsk_render_node_unref);
  memset (layer, 0, sizeof *layer);
}

void
ef_image_view_layer_mark_all (EfImageViewLayer *layer)
{
  memset (layer->dirty, 1, (gsize) layer->cells_w * layer->cells_h);
  layer->n_dirty = layer->cells_w * layer->cells_h;
}

void
ef_image_view_set_layer (EfImageView *self, EfLayerId id, const EfGrid *grid, EfImageViewReadFunc read,
                         gpointer data, GDestroyNotify destroy)
{
  EfImageViewLayer *layer;

  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  g_return_if_fail (id < EF_N_LAYERS);

  layer = &self->layers[id];
  ef_image_view_layer_clear (self, layer);
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
  EfImageViewLayer *layer;

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
    ef_image_view_queue_upload (self);
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
  EfImageViewLayer *layer;

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
  if (self->gl != NULL)
    ef_gl_layers_reset_share (self->gl, id);
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

static gboolean
layer_pixel_at (EfImageViewLayer *layer, double x, double y, guint *col, guint *row)
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
      EfImageViewLayer *layer = &self->layers[id];
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

gboolean
ef_image_view_is_settled (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), TRUE);
  for (guint id = 0; id < EF_N_LAYERS; id++)
    if (self->layers[id].active && self->layers[id].n_dirty > 0)
      return FALSE;
  return TRUE;
}

/* ---- uploads --------------------------------------------------------------------------------- */

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

void
ef_image_view_queue_upload (EfImageView *self)
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

void
ef_image_view_stop_uploads (EfImageView *self)
{
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
}

/* Makes a layer's image for drawing on the processor, holding nothing yet, for mode. */
gboolean
ef_image_view_layer_ensure_soft (EfImageViewLayer *layer, EfViewMode mode)
{
  if (layer->soft != NULL)
    {
      ef_soft_layer_set_mode (layer->soft, mode);
      return TRUE;
    }
  layer->soft = ef_soft_layer_try_new (layer->grid.width, layer->grid.height, mode);
  if (layer->soft == NULL)
    {
      g_warning ("Not enough memory to draw a %u × %u image", layer->grid.width, layer->grid.height);
      return FALSE;
    }
  return TRUE;
}

/* Uploads damaged cells of one layer, a run of neighbouring cells in a row at a time, until the
 * budget is spent: into its textures, or with soft into its image in host memory. Display values come
 * from the source when it has them (no conversion here), otherwise from its complex pixels. Returns
 * FALSE once out of budget. */
static gboolean
upload_layer (EfImageView *self, guint id, gint64 deadline, guint *pixels_left, gboolean soft)
{
  EfImageViewLayer *layer = &self->layers[id];
  gboolean complete_before = layer->n_dirty == 0, complex_texture;
  EfGlImage *image = NULL;
  EfViewMode mode;

  if (layer->n_dirty == 0)
    return TRUE;
  if (soft)
    {
      mode = self->display.mode;
      if (!ef_image_view_layer_ensure_soft (layer, mode))
        return TRUE;
      complex_texture = FALSE;
    }
  else
    {
      image = self->gl != NULL ? ef_gl_layers_get_image (self->gl, id) : NULL;
      if (image == NULL)
        return TRUE;
      mode = ef_gl_image_get_view_mode (image);
      complex_texture = ef_gl_image_get_format (image) != EF_GL_IMAGE_VALUE;
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
              ef_soft_layer_write (layer->soft, &rect, values);
            else if (complex_texture)
              ef_gl_image_upload (image, &rect, self->staging);
            else
              ef_gl_image_upload_values (image, &rect, values);
            layer->has_data = TRUE;
            if (self->timings != NULL)
              {
                if (!soft)
                  ef_gl_layers_finish ();
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
dirty_runs (EfImageViewLayer *layer)
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
share_layer (EfImageView *self, guint id)
{
#if HAVE_CUDA
  EfImageViewLayer *layer = &self->layers[id];
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rects = NULL;
  guint64 mark = 0;

  if (layer->device_image == NULL || ef_gl_layers_get_image (self->gl, id) == NULL || self->share_device < 0
      || ef_gl_layers_share_failed (self->gl, id)
      || ef_cuda_image_get_device (layer->device_image) != self->share_device)
    {
      /* Host uploads must find the textures GL's. */
      ef_gl_layers_unshare (self->gl, id);
      return FALSE;
    }
  if (!ef_gl_layers_share_begin (self->gl, id, self->share_device, &error))
    {
      g_message ("Display path for this image: host upload, because %s", error->message);
      return FALSE;
    }
  if (layer->n_dirty == 0)
    {
      /* Nothing to write; textures held since the last frame go back to GL for the draw. */
      if (!ef_gl_layers_share_give_back (self->gl, id, &error))
        {
          g_message ("Display path for this image: host upload from now on, because %s", error->message);
          return FALSE;
        }
      return TRUE;
    }
  rects = dirty_runs (layer);
  if (!ef_gl_layers_share_update (self->gl, id, layer->device_image, (const EfRect *) rects->data, rects->len,
                                  &mark, &error))
    {
      g_message ("Display path for this image: host upload from now on, because %s", error->message);
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

static void
ensure_layer_textures (EfImageView *self)
{
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      EfImageViewLayer *layer = &self->layers[id];
      g_autoptr (GError) error = NULL;
      /* Values computed at upload make a frame cheap; the textures that CUDA writes hold the
       * complex pixels, and the shader takes their magnitude or phase every frame. */
      EfGlImageFormat format = layer->device_image != NULL && self->share_device >= 0 ? EF_GL_IMAGE_COMPLEX
                                                                                      : EF_GL_IMAGE_VALUE;
      gboolean made;

      if (!layer->active)
        continue;
      if (!ef_gl_layers_ensure (self->gl, id, layer->grid.width, layer->grid.height, self->max_texture, format,
                                self->display.mode, &made, &error))
        {
          g_warning ("%s", error->message);
          layer->active = FALSE;
          continue;
        }
      if (!made)
        continue;
      /* A new texture holds nothing: everything the source has must come again. A source that has
       * reported nothing yet holds only zeros, which would hide the layer below. */
      layer->has_data = FALSE;
      if (layer->damaged)
        ef_image_view_layer_mark_all (layer);
    }
}

void
ef_image_view_render_layers (EfImageView *self)
{
  gint64 deadline = g_get_monotonic_time () + EF_IMAGE_VIEW_UPLOAD_BUDGET_US, t_draw;
  guint pixels_left = EF_IMAGE_VIEW_UPLOAD_BUDGET_PIXELS;
  EfViewTransform view;

  if (self->timings != NULL)
    {
      memset (&self->frame, 0, sizeof self->frame);
      self->frame.start_us = g_get_monotonic_time ();
    }
  if (self->gl != NULL)
    ef_gl_layers_empty_trash (self->gl);
  ef_gl_layers_clear ();
  if (self->gl == NULL)
    return;

  ensure_layer_textures (self);
  /* The ROI first: it is what the user is watching. Layers on the device take no upload budget. */
  for (int id = EF_N_LAYERS - 1; id >= 0; id--)
    {
      if (!self->layers[id].active || share_layer (self, (guint) id))
        continue;
      if (!upload_layer (self, (guint) id, deadline, &pixels_left, FALSE))
        break;
    }
  ef_gl_layers_empty_trash (self->gl);

  t_draw = self->timings != NULL ? g_get_monotonic_time () : 0;
  ef_image_view_get_transform (self, &view);
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      EfImageViewLayer *layer = &self->layers[id];

      if (!layer->active || !layer->has_data)
        continue;
      ef_gl_layers_draw (self->gl, id, &layer->grid, &view, &self->display, layer->gain_db);
    }
  /* At the end of a frame that wrote, the textures that CUDA writes are mapped for it again, so that
   * GL gives them up with this frame's work and the next write is a conversion and an unmap. */
  ef_gl_layers_hold_shared (self->gl);
  if (self->timings != NULL)
    {
      ef_gl_layers_finish ();
      self->frame.draw_us = (guint) (g_get_monotonic_time () - t_draw);
      g_array_append_val (self->timings, self->frame);
    }
}

/* ---- drawing on the processor ----------------------------------------------------------------- */

/* The layer drawn on the processor, over the part of the widget it covers, at device pixels: the node of
 * the last frame when nothing it depends on changed. Returns it borrowed, or NULL.
 *
 * The node is a cairo node painting an image surface, not a texture node, for GTK 4.8's cairo renderer:
 * that draws a texture node by converting the whole texture, pixel by pixel, in every frame that redraws
 * any part of it (4 ms for a 700 × 700 overview under a refining region), while it paints a surface as
 * it is, and only where damaged. The same node, reused, is no damage at all. */
static GskRenderNode *
soft_layer_node (EfImageView *self, EfImageViewLayer *layer, const EfViewTransform *view)
{
  EfSoftPlace place;
  GskRenderNode *node;
  cairo_t *cr;
  gboolean painted;
  int sf;

  if (layer->soft == NULL
      || !ef_soft_layer_place (layer->soft, &layer->grid, view, &self->display, layer->gain_db, &place))
    return NULL;
  if (layer->soft_node != NULL && ef_soft_place_equal (&place, &layer->soft_place))
    return layer->soft_node;

  sf = place.scale_factor;
  node = gsk_cairo_node_new (&GRAPHENE_RECT_INIT ((float) place.x0 / sf, (float) place.y0 / sf,
                                                  (float) place.w / sf, (float) place.h / sf));
  cr = gsk_cairo_node_get_draw_context (node);
  painted = ef_soft_layer_paint (layer->soft, &place, cr);
  cairo_destroy (cr);
  if (!painted)
    {
      gsk_render_node_unref (node);
      return NULL;
    }
  g_clear_pointer (&layer->soft_node, gsk_render_node_unref);
  layer->soft_node = node;
  layer->soft_place = place;
  return node;
}

/* The image part of a frame drawn on the processor: the uploads this frame's budget allows, then each
 * layer's node (see soft_layer_node ()). */
void
ef_image_view_snapshot_soft (EfImageView *self, GtkSnapshot *snapshot)
{
  const GdkRGBA background = { 0.11f, 0.11f, 0.12f, 1.0f };
  gint64 deadline = g_get_monotonic_time () + EF_IMAGE_VIEW_UPLOAD_BUDGET_US, t_draw;
  guint pixels_left = EF_IMAGE_VIEW_UPLOAD_BUDGET_PIXELS;
  EfViewTransform view;

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
          ef_image_view_layer_mark_all (&self->layers[id]);
    }
  for (int id = EF_N_LAYERS - 1; id >= 0; id--)
    if (self->layers[id].active && !upload_layer (self, (guint) id, deadline, &pixels_left, TRUE))
      break;

  t_draw = self->timings != NULL ? g_get_monotonic_time () : 0;
  ef_image_view_get_transform (self, &view);
  gtk_snapshot_append_color (snapshot, &background,
                             &GRAPHENE_RECT_INIT (0, 0, (float) view.width, (float) view.height));
  for (guint id = 0; id < EF_N_LAYERS; id++)
    {
      GskRenderNode *node;

      if (!self->layers[id].active)
        continue;
      node = soft_layer_node (self, &self->layers[id], &view);
      if (node != NULL)
        gtk_snapshot_append_node (snapshot, node);
    }
  if (self->timings != NULL)
    {
      self->frame.draw_us = (guint) (g_get_monotonic_time () - t_draw);
      g_array_append_val (self->timings, self->frame);
    }
}
