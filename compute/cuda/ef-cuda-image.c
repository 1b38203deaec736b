/* ef-cuda-image.c: the device accumulator shared with displays: ownership, block marks, host reads. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-image"
#include "config.h"

#include "ef-cuda-private.h"
#include "ef-cuda-image-private.h"
#include "ef-cuda-test-hooks.h"

/* Marks live in a ring of events. The compute thread is at most a few blocks ahead of the device
 * (process_block waits for the pinned buffer of two sub-blocks ago), so the newest finished mark is
 * nearly always still in the ring; an older one that was overwritten needs no ordering any more. */
#define N_MARKS 8

struct _EfCudaImage {
  EfDeviceImage parent;           /* first: the engine holds and reads the image through it */
  int          device;
  guint        width, height;
  void        *data;              /* owned device float2, width * height */
  cudaStream_t s_read;            /* owned, non-blocking: host reads never wait for compute streams */

  GMutex       lock;              /* guards what follows */
  cudaEvent_t  marks[N_MARKS];    /* owned; mark m (1-based) is recorded in marks[(m - 1) % N_MARKS] */
  guint64      n_marks;           /* recorded so far */
  guint64      finished;          /* the newest mark seen finished */
};

static void
image_free (EfCudaImage *self)
{
  if (cudaSetDevice (self->device) == cudaSuccess)
    {
      /* cudaFree waits for the kernels that still read the buffer (a display's conversion). */
      if (self->data != NULL)
        EF_CUDA_WARN (cudaFree (self->data));
      for (guint i = 0; i < N_MARKS; i++)
        if (self->marks[i] != NULL)
          EF_CUDA_WARN (cudaEventDestroy (self->marks[i]));
      if (self->s_read != NULL)
        EF_CUDA_WARN (cudaStreamDestroy (self->s_read));
    }
  g_mutex_clear (&self->lock);
  g_free (self);
}

static void
device_image_free (EfDeviceImage *image)
{
  image_free ((EfCudaImage *) image);
}

static gboolean
device_image_read (EfDeviceImage *image, const EfRect *rect, EfCf32 *out, GError **error)
{
  return ef_cuda_image_read ((EfCudaImage *) image, rect, out, error);
}

static gboolean
device_image_count_nonfinite (EfDeviceImage *image, guint64 *count, GError **error)
{
  return ef_cuda_image_count_nonfinite ((EfCudaImage *) image, count, error);
}

static const EfDeviceImageOps cuda_image_ops = {
  .free = device_image_free,
  .read = device_image_read,
  .count_nonfinite = device_image_count_nonfinite,
};

EfCudaImage *
ef_cuda_image_new (int device, guint width, guint height, GError **error)
{
  EfCudaImage *self;

  g_return_val_if_fail (width > 0 && height > 0, NULL);

  self = g_new0 (EfCudaImage, 1);
  ef_device_image_init (&self->parent, &cuda_image_ops);
  g_mutex_init (&self->lock);
  self->device = device;
  self->width = width;
  self->height = height;

#define TRY(expr) G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, error)) goto fail; } G_STMT_END
  TRY (cudaSetDevice (device));
  TRY (ef_cuda_malloc (&self->data, (gsize) width * height * sizeof (EfCf32)));
  TRY (cudaStreamCreateWithFlags (&self->s_read, cudaStreamNonBlocking));
  for (guint i = 0; i < N_MARKS; i++)
    TRY (cudaEventCreateWithFlags (&self->marks[i], cudaEventDisableTiming));
#undef TRY
  return self;

fail:
  image_free (self);
  return NULL;
}

EfCudaImage *
ef_cuda_image_ref (EfCudaImage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (EfCudaImage *) ef_device_image_ref (&self->parent);
}

void
ef_cuda_image_unref (EfCudaImage *self)
{
  if (self != NULL)
    ef_device_image_unref (&self->parent);
}

EfDeviceImage *
ef_cuda_image_ref_device (EfCudaImage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return ef_device_image_ref (&self->parent);
}

EfCudaImage *
ef_cuda_image_from_device (EfDeviceImage *image)
{
  if (image == NULL)
    return NULL;
  if (image->ops != &cuda_image_ops)
    {
      ef_device_image_unref (image);
      return NULL;
    }
  return (EfCudaImage *) image;
}

int
ef_cuda_image_get_device (EfCudaImage *self)
{
  g_return_val_if_fail (self != NULL, -1);
  return self->device;
}

void
ef_cuda_image_get_size (EfCudaImage *self, guint *width, guint *height)
{
  g_return_if_fail (self != NULL);
  if (width != NULL)
    *width = self->width;
  if (height != NULL)
    *height = self->height;
}

const void *
ef_cuda_image_get_data (EfCudaImage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->data;
}

void *
ef_cuda_image_get_data_mutable (EfCudaImage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->data;
}

gboolean
ef_cuda_image_mark (EfCudaImage *self, cudaStream_t stream, GError **error)
{
  cudaError_t e;

  g_return_val_if_fail (self != NULL, FALSE);
  g_mutex_lock (&self->lock);
  /* Re-recording an event that a display is about to wait on is harmless: the lock orders the two,
   * and the display then waits for the newer, later mark or none. */
  e = cudaEventRecord (self->marks[self->n_marks % N_MARKS], stream);
  if (e == cudaSuccess)
    self->n_marks++;
  g_mutex_unlock (&self->lock);
  return ef_cuda_check_ ((int) e, "cudaEventRecord (mark)", __FILE__, __LINE__, error);
}

guint64
ef_cuda_image_get_n_marks (EfCudaImage *self)
{
  guint64 n;

  g_return_val_if_fail (self != NULL, 0);
  g_mutex_lock (&self->lock);
  n = self->n_marks;
  g_mutex_unlock (&self->lock);
  return n;
}

gboolean
ef_cuda_image_order_after_finished (EfCudaImage *self, gpointer stream, guint64 *mark, GError **error)
{
  cudaError_t e = cudaSuccess;
  const char *what = NULL;

  g_return_val_if_fail (self != NULL && mark != NULL, FALSE);

  e = cudaSetDevice (self->device);
  if (e != cudaSuccess)
    return ef_cuda_check_ ((int) e, "cudaSetDevice", __FILE__, __LINE__, error);

  g_mutex_lock (&self->lock);
  /* Newest first; stop at the newest one already known to be finished, which needs no ordering:
   * work that the host has seen finish is visible to everything queued after that. */
  for (guint64 m = self->n_marks; m > self->finished && m + N_MARKS > self->n_marks; m--)
    {
      cudaEvent_t ev = self->marks[(m - 1) % N_MARKS];

      e = cudaEventQuery (ev);
      if (e == cudaErrorNotReady)
        {
          e = cudaSuccess;
          continue;
        }
      if (e != cudaSuccess)
        {
          what = "cudaEventQuery (mark)";
          break;
        }
      e = cudaStreamWaitEvent ((cudaStream_t) stream, ev, 0);
      if (e != cudaSuccess)
        {
          what = "cudaStreamWaitEvent (mark)";
          break;
        }
      self->finished = m;
      break;
    }
  *mark = self->finished;
  g_mutex_unlock (&self->lock);
  if (what != NULL)
    return ef_cuda_check_ ((int) e, what, __FILE__, __LINE__, error);
  return TRUE;
}

gboolean
ef_cuda_image_read (EfCudaImage *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  const char *src;

  g_return_val_if_fail (self != NULL && rect != NULL && out != NULL, FALSE);
  if (rect->x + (guint64) rect->width > self->width || rect->y + (guint64) rect->height > self->height)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The rectangle %u,%u %ux%u is outside the %ux%u image", rect->x, rect->y, rect->width,
                   rect->height, self->width, self->height);
      return FALSE;
    }
  if (rect->width == 0 || rect->height == 0)
    return TRUE;
  src = (const char *) self->data + ((gsize) rect->y * self->width + rect->x) * sizeof (EfCf32);
  EF_CUDA_CHECK (cudaSetDevice (self->device), error);
  EF_CUDA_CHECK (cudaMemcpy2DAsync (out, rect->width * sizeof (EfCf32), src, (gsize) self->width * sizeof (EfCf32),
                                    rect->width * sizeof (EfCf32), rect->height, cudaMemcpyDeviceToHost,
                                    self->s_read),
                 error);
  EF_CUDA_CHECK (cudaStreamSynchronize (self->s_read), error);
  ef_cuda_test_hooks_count_d2h ((guint64) rect->width * rect->height * sizeof (EfCf32));
  return TRUE;
}

gboolean
ef_cuda_image_count_nonfinite (EfCudaImage *self, guint64 *count, GError **error)
{
  unsigned long long *d_count = NULL, n = 0;
  gboolean ok;

  g_return_val_if_fail (self != NULL && count != NULL, FALSE);
  EF_CUDA_CHECK (cudaSetDevice (self->device), error);
  EF_CUDA_CHECK (ef_cuda_malloc ((void **) &d_count, sizeof *d_count), error);
  ok = ef_cuda_check_ ((int) cudaMemsetAsync (d_count, 0, sizeof *d_count, self->s_read), "cudaMemsetAsync",
                       __FILE__, __LINE__, error)
       && ef_cuda_count_nonfinite (self->s_read, self->data, (gsize) self->width * self->height, d_count, error)
       && ef_cuda_check_ ((int) cudaMemcpyAsync (&n, d_count, sizeof n, cudaMemcpyDeviceToHost, self->s_read),
                          "cudaMemcpyAsync", __FILE__, __LINE__, error)
       && ef_cuda_check_ ((int) cudaStreamSynchronize (self->s_read), "cudaStreamSynchronize", __FILE__, __LINE__,
                          error);
  EF_CUDA_WARN (cudaFree (d_count));
  if (ok)
    *count = n;
  return ok;
}
