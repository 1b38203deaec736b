/* ef-gl-cuda.c: CUDA–OpenGL sharing: registration, map-convert-unmap, and the choice of the path. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gl-cuda"
#include "config.h"

#include <epoxy/gl.h>
#include <string.h>

#include "ef-error.h"
#include "ef-gl-cuda.h"

#if HAVE_CUDA

/* epoxy's GL header first: it stands in for the GL/gl.h that the interop header includes. */
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include "cuda/ef-cuda.h"

struct _EfGlCuda {
  EfGlImage              *image;     /* borrowed: outlives this */
  int                     device;
  guint                   n_tiles;
  cudaGraphicsResource_t *res;       /* owned, one per tile */
  cudaSurfaceObject_t    *surf;      /* owned, one per tile, 0 when none: made at a map */
  cudaStream_t            stream;    /* owned: the display stream */
  cudaEvent_t             done;      /* owned: after the last conversion */
  gboolean                pending;   /* surfaces wait for `done` before they are destroyed */
  guint64                 written;   /* the mark last written, 0 for none */
  GArray                 *written_rects;  /* EfRect: the rectangles written at that mark */
  guint64                 n_writes;  /* calls that mapped and converted */
  gboolean                held;      /* every texture is mapped, since ef_gl_cuda_hold */
};

static gboolean
check (cudaError_t e, const char *expr, GError **error)
{
  if (e == cudaSuccess)
    return TRUE;
  g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_DEVICE, "CUDA–OpenGL sharing: %s failed: %s (%s)", expr,
               cudaGetErrorString (e), cudaGetErrorName (e));
  /* Clear a non-sticky error so that the next call starts clean. */
  (void) cudaGetLastError ();
  return FALSE;
}

#define CHECK(expr, error) check ((expr), #expr, (error))

int
ef_gl_cuda_choose_device (int compute_device, char **why)
{
  const char *renderer = (const char *) glGetString (GL_RENDERER);
  unsigned int n = 0;
  int devices[16];
  cudaError_t e;

  if (renderer == NULL)
    renderer = "unknown";
  e = cudaGLGetDevices (&n, devices, G_N_ELEMENTS (devices), cudaGLDeviceListAll);
  if (e != cudaSuccess)
    {
      if (why != NULL)
        *why = g_strdup_printf ("no CUDA device draws the OpenGL renderer \"%s\" (cudaGLGetDevices: %s, error %d)",
                                renderer, cudaGetErrorName (e), (int) e);
      (void) cudaGetLastError ();
      return -1;
    }
  for (unsigned int i = 0; i < MIN (n, G_N_ELEMENTS (devices)); i++)
    if (devices[i] == compute_device)
      {
        if (why != NULL)
          {
            g_autofree char *name = ef_cuda_device_name (compute_device);
            *why = g_strdup_printf ("CUDA device %d (%s) draws the OpenGL renderer \"%s\" and forms the images",
                                    compute_device, name ? name : "?", renderer);
          }
        return compute_device;
      }
  if (why != NULL)
    {
      if (n == 0)
        *why = g_strdup_printf ("no CUDA device draws the OpenGL renderer \"%s\"", renderer);
      else
        *why = g_strdup_printf ("the OpenGL renderer \"%s\" is on CUDA device %d, but images form on device %d",
                                renderer, devices[0], compute_device);
    }
  return -1;
}

static void
destroy_surfaces (EfGlCuda *self)
{
  if (self->pending)
    {
      /* The conversion that used them was queued a frame ago: this finds it done. */
      if (cudaEventSynchronize (self->done) != cudaSuccess)
        (void) cudaGetLastError ();
      self->pending = FALSE;
    }
  for (guint i = 0; i < self->n_tiles; i++)
    if (self->surf[i] != 0)
      {
        (void) cudaDestroySurfaceObject (self->surf[i]);
        self->surf[i] = 0;
      }
}

/* Gives the textures held since ef_gl_cuda_hold back to GL, after the work queued on the display stream. */
static gboolean
release (EfGlCuda *self, GError **error)
{
  if (!self->held)
    return TRUE;
  self->held = FALSE;
  return CHECK (cudaGraphicsUnmapResources ((int) self->n_tiles, self->res, self->stream), error);
}

void
ef_gl_cuda_free (EfGlCuda *self)
{
  if (self == NULL)
    return;
  if (cudaSetDevice (self->device) == cudaSuccess)
    {
      destroy_surfaces (self);
      (void) release (self, NULL);
      for (guint i = 0; i < self->n_tiles; i++)
        if (self->res[i] != NULL && cudaGraphicsUnregisterResource (self->res[i]) != cudaSuccess)
          (void) cudaGetLastError ();
      if (self->done != NULL)
        (void) cudaEventDestroy (self->done);
      if (self->stream != NULL)
        (void) cudaStreamDestroy (self->stream);
    }
  g_free (self->res);
  g_free (self->surf);
  if (self->written_rects != NULL)
    g_array_unref (self->written_rects);
  g_free (self);
}

EfGlCuda *
ef_gl_cuda_new (EfGlImage *image, int device, GError **error)
{
  g_autoptr (GError) local = NULL;
  EfGlCuda *self;
  int least = 0, greatest = 0;

  g_return_val_if_fail (image != NULL && device >= 0, NULL);

  /* The conversion writes complex pairs; a VALUE image's R32F textures are for host uploads. */
  if (ef_gl_image_get_format (image) != EF_GL_IMAGE_COMPLEX)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "CUDA writes complex (RG32F) textures only");
      return NULL;
    }

  self = g_new0 (EfGlCuda, 1);
  self->image = image;
  self->device = device;
  self->n_tiles = ef_gl_image_get_n_tiles (image);
  self->res = g_new0 (cudaGraphicsResource_t, self->n_tiles);
  self->surf = g_new0 (cudaSurfaceObject_t, self->n_tiles);

  if (!CHECK (cudaSetDevice (device), &local)
      || !CHECK (cudaDeviceGetStreamPriorityRange (&least, &greatest), &local)
      /* The highest priority: a conversion's few blocks go ahead of a backprojection's queued ones, so
       * a frame does not wait for SMs behind the block being formed. */
      || !CHECK (cudaStreamCreateWithPriority (&self->stream, cudaStreamNonBlocking, greatest), &local)
      || !CHECK (cudaEventCreateWithFlags (&self->done, cudaEventDisableTiming), &local))
    goto fail;
  for (guint i = 0; i < self->n_tiles; i++)
    {
      const EfGlTile *t = ef_gl_image_get_tile (image, i);

      if (!CHECK (cudaGraphicsGLRegisterImage (&self->res[i], t->texture, GL_TEXTURE_2D,
                                               cudaGraphicsRegisterFlagsSurfaceLoadStore),
                  &local))
        goto fail;
    }
  return self;

fail:
  g_propagate_error (error, g_steal_pointer (&local));
  ef_gl_cuda_free (self);
  return NULL;
}

static gboolean
intersect (const EfRect *a, const EfGlTile *t, EfRect *out)
{
  guint x0 = MAX (a->x, t->x), y0 = MAX (a->y, t->y);
  guint x1 = MIN (a->x + a->width, t->x + t->width), y1 = MIN (a->y + a->height, t->y + t->height);

  if (x0 >= x1 || y0 >= y1)
    return FALSE;
  *out = (EfRect) { x0, y0, x1 - x0, y1 - y0 };
  return TRUE;
}

gboolean
ef_gl_cuda_update (EfGlCuda *self, EfCudaImage *source, const EfRect *rects, guint n_rects, guint64 *mark,
                   GError **error)
{
  g_autofree cudaGraphicsResource_t *maps = NULL;
  g_autofree guint *tiles = NULL;
  g_autoptr (GArray) clipped = NULL;
  guint n_maps = 0, w = 0, h = 0;
  gboolean ok = TRUE;

  g_return_val_if_fail (self != NULL && source != NULL && mark != NULL, FALSE);
  g_return_val_if_fail (rects != NULL || n_rects == 0, FALSE);

  *mark = 0;
  ef_cuda_image_get_size (source, &w, &h);
  if (w != ef_gl_image_get_width (self->image) || h != ef_gl_image_get_height (self->image)
      || ef_cuda_image_get_device (source) != self->device)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The device image (%u × %u on device %d) does not match the textures (%u × %u on device %d)", w,
                   h, ef_cuda_image_get_device (source), ef_gl_image_get_width (self->image),
                   ef_gl_image_get_height (self->image), self->device);
      return FALSE;
    }
  if (!CHECK (cudaSetDevice (self->device), error))
    return FALSE;
  destroy_surfaces (self);
  if (!ef_cuda_image_order_after_finished (source, self->stream, mark, error))
    {
      (void) release (self, NULL);
      return FALSE;
    }
  /* Nothing finished yet, or the textures already hold this state of these rectangles: a frame drawn
   * between two blocks converts nothing, so the GPU leaves the job only for the draw. */
  if (*mark == 0 || n_rects == 0
      || (*mark == self->written && self->written_rects != NULL && self->written_rects->len == n_rects
          && memcmp (self->written_rects->data, rects, n_rects * sizeof (EfRect)) == 0))
    return release (self, error);

  /* Only the textures that a rectangle touches are converted (and mapped, unless held). */
  maps = g_new (cudaGraphicsResource_t, self->n_tiles);
  tiles = g_new (guint, self->n_tiles);
  for (guint i = 0; i < self->n_tiles; i++)
    {
      const EfGlTile *t = ef_gl_image_get_tile (self->image, i);
      EfRect r;

      for (guint k = 0; k < n_rects; k++)
        if (intersect (&rects[k], t, &r))
          {
            tiles[n_maps] = i;
            maps[n_maps++] = self->res[i];
            break;
          }
    }
  if (n_maps == 0)
    return release (self, error);
  if (!self->held && !CHECK (cudaGraphicsMapResources ((int) n_maps, maps, self->stream), error))
    return FALSE;

  clipped = g_array_new (FALSE, FALSE, sizeof (EfRect));
  for (guint m = 0; m < n_maps && ok; m++)
    {
      const EfGlTile *t = ef_gl_image_get_tile (self->image, tiles[m]);
      struct cudaResourceDesc desc = { 0 };
      cudaArray_t array = NULL;

      g_array_set_size (clipped, 0);
      for (guint k = 0; k < n_rects; k++)
        {
          EfRect r;
          if (intersect (&rects[k], t, &r))
            g_array_append_val (clipped, r);
        }
      /* The array behind a texture may change from one map to the next: a surface per map. */
      ok = CHECK (cudaGraphicsSubResourceGetMappedArray (&array, maps[m], 0, 0), error);
      if (ok)
        {
          desc.resType = cudaResourceTypeArray;
          desc.res.array.array = array;
          ok = CHECK (cudaCreateSurfaceObject (&self->surf[tiles[m]], &desc), error);
        }
      if (ok)
        ok = ef_cuda_display_convert (self->stream, (guint64) self->surf[tiles[m]], ef_cuda_image_get_data (source),
                                      w, (const EfRect *) clipped->data, clipped->len, t->x, t->y, error);
    }
  /* Unmapping orders GL's next use of the textures after the conversions; it does not wait here. */
  if (self->held)
    {
      if (!release (self, ok ? error : NULL))
        ok = FALSE;
    }
  else if (!CHECK (cudaGraphicsUnmapResources ((int) n_maps, maps, self->stream), ok ? error : NULL))
    ok = FALSE;
  if (cudaEventRecord (self->done, self->stream) == cudaSuccess)
    self->pending = TRUE;
  else
    (void) cudaGetLastError ();
  if (!ok)
    {
      self->written = 0;
      return FALSE;
    }
  if (self->written_rects == NULL)
    self->written_rects = g_array_new (FALSE, FALSE, sizeof (EfRect));
  g_array_set_size (self->written_rects, 0);
  g_array_append_vals (self->written_rects, rects, n_rects);
  self->written = *mark;
  self->n_writes++;
  for (guint k = 0; k < n_rects; k++)
    ef_gl_image_mark_arrived (self->image, &rects[k]);
  return TRUE;
}

gboolean
ef_gl_cuda_hold (EfGlCuda *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->held)
    return TRUE;
  if (!CHECK (cudaSetDevice (self->device), error)
      || !CHECK (cudaGraphicsMapResources ((int) self->n_tiles, self->res, self->stream), error))
    return FALSE;
  self->held = TRUE;
  return TRUE;
}

gboolean
ef_gl_cuda_release (EfGlCuda *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!self->held)
    return TRUE;
  if (!CHECK (cudaSetDevice (self->device), error))
    return FALSE;
  return release (self, error);
}

#if EF_TEST_HOOKS
gboolean
ef_gl_cuda_is_held (EfGlCuda *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->held;
}
#endif

guint64
ef_gl_cuda_get_n_writes (EfGlCuda *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_writes;
}

#else /* !HAVE_CUDA */

int
ef_gl_cuda_choose_device (int compute_device, char **why)
{
  if (why != NULL)
    *why = g_strdup ("this build has no CUDA support");
  return -1;
}

EfGlCuda *
ef_gl_cuda_new (EfGlImage *image, int device, GError **error)
{
  g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "This build has no CUDA support");
  return NULL;
}

void
ef_gl_cuda_free (EfGlCuda *self)
{
  g_return_if_fail (self == NULL);
}

gboolean
ef_gl_cuda_update (EfGlCuda *self, EfCudaImage *source, const EfRect *rects, guint n_rects, guint64 *mark,
                   GError **error)
{
  g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "This build has no CUDA support");
  return FALSE;
}

guint64
ef_gl_cuda_get_n_writes (EfGlCuda *self)
{
  return 0;
}

gboolean
ef_gl_cuda_hold (EfGlCuda *self, GError **error)
{
  g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "This build has no CUDA support");
  return FALSE;
}

gboolean
ef_gl_cuda_release (EfGlCuda *self, GError **error)
{
  g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "This build has no CUDA support");
  return FALSE;
}

#if EF_TEST_HOOKS
gboolean
ef_gl_cuda_is_held (EfGlCuda *self)
{
  return FALSE;
}
#endif

#endif /* HAVE_CUDA */
