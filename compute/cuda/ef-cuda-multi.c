/* ef-cuda-multi.c: the CUDA backend over several devices of one host, their partial images summed on read. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <string.h>

#include "ef-cuda-private.h"

/*
 * Backprojection is a sum over pulses, so devices can split the pulses and sum their images at the
 * end. Every block is cut into one contiguous share per device, each share goes to that device's own
 * single-device backend (streams, pinned buffers, plans, accumulator), and the shares are queued at
 * the same time from one host thread per device: filling pinned buffers is a host copy, and one thread
 * for every device would make the copies take turns.
 *
 * read_image sums the partial images on the first device, a band of rows at a time: a peer copy of
 * each other device's rows into a scratch band, one addition kernel, then the copy to the host. The
 * partial images themselves are never changed, so the result does not depend on how often it is read.
 */

/* Rows summed at a time: bounds the first device's extra memory (two bands) whatever the image size. */
#define BAND_BYTES ((gsize) 64 << 20)

typedef struct _Multi Multi;

typedef struct {
  Multi         *multi;     /* borrowed: the owner */
  EfBackend     *backend;   /* owned: this device's single-device backend */
  int            device;
  /* The share in hand: written by the caller before it is queued, read by the thread that runs it. */
  const EfPulse *pulses;    /* borrowed */
  const EfCf32  *samples;   /* borrowed */
  guint          count;
  GError        *error;     /* owned: the share failed */
} Part;

struct _Multi {
  guint        n;
  Part        *parts;       /* owned, n */
  GThreadPool *pool;        /* owned: n - 1 threads; the caller runs part 0 itself */
  GMutex       lock;
  GCond        cond;
  guint        pending;     /* shares handed to the pool and not done yet; guarded by lock */
  cudaStream_t stream;      /* on parts[0].device: the combining copies and sums */
  void        *d_sum;       /* on parts[0].device: band_rows rows; made at the first read */
  void        *d_tmp;       /* likewise: another device's rows */
  guint        band_rows;
  guint        n_blocks;    /* process_block calls since creation or clear */
};

static const EfBackendOps multi_ops;

#define CHECK_OR_NULL(expr, error) \
  G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, (error))) return NULL; } G_STMT_END

static void
run_part (Part *part)
{
  if (part->count > 0)
    (void) ef_backend_process_block (part->backend, part->pulses, part->samples, part->count, &part->error);
}

static void
part_thread (gpointer data, gpointer user_data)
{
  Part *part = data;
  Multi *m = user_data;

  run_part (part);
  g_mutex_lock (&m->lock);
  m->pending--;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
}

static gboolean
multi_process_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  Multi *m = self->priv;
  const gsize ns = self->info.n_samples;
  gboolean ok = TRUE;

  g_return_val_if_fail (pulses != NULL || count == 0, FALSE);
  g_return_val_if_fail (samples != NULL || count == 0, FALSE);

  for (guint i = 0; i < m->n; i++)
    {
      Part *part = &m->parts[i];
      guint lo = (guint) ((guint64) count * i / m->n), hi = (guint) ((guint64) count * (i + 1) / m->n);

      part->pulses = count > 0 ? pulses + lo : NULL;
      part->samples = count > 0 ? samples + (gsize) lo * ns : NULL;
      part->count = hi - lo;
      g_clear_error (&part->error);
    }
  for (guint i = 1; i < m->n; i++)
    {
      Part *part = &m->parts[i];

      if (part->count == 0)
        continue;
      g_mutex_lock (&m->lock);
      m->pending++;
      g_mutex_unlock (&m->lock);
      if (!g_thread_pool_push (m->pool, part, NULL))
        {
          /* No thread to run it: run it here, later than the others but just as right. */
          g_mutex_lock (&m->lock);
          m->pending--;
          g_mutex_unlock (&m->lock);
          run_part (part);
        }
    }
  run_part (&m->parts[0]);
  g_mutex_lock (&m->lock);
  while (m->pending > 0)
    g_cond_wait (&m->cond, &m->lock);
  g_mutex_unlock (&m->lock);

  for (guint i = 0; i < m->n; i++)
    {
      Part *part = &m->parts[i];

      if (part->error == NULL)
        continue;
      if (ok)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&part->error), "CUDA device %d: ", part->device);
          ok = FALSE;
        }
      else
        g_clear_error (&part->error);
    }
  if (ok)
    m->n_blocks++;
  return ok;
}

/* The two bands on the first device (current), made once. */
static gboolean
ensure_bands (EfBackend *self, GError **error)
{
  Multi *m = self->priv;
  const guint w = self->params.grid.width, h = self->params.grid.height;
  gsize bytes;

  if (m->d_sum != NULL && m->d_tmp != NULL)
    return TRUE;
  m->band_rows = (guint) CLAMP (BAND_BYTES / ((gsize) w * sizeof (EfCf32)), (gsize) 1, (gsize) h);
  bytes = (gsize) m->band_rows * w * sizeof (EfCf32);
  if (m->d_sum == NULL)
    EF_CUDA_CHECK (ef_cuda_malloc (&m->d_sum, bytes), error);
  if (m->d_tmp == NULL)
    EF_CUDA_CHECK (ef_cuda_malloc (&m->d_tmp, bytes), error);
  return TRUE;
}

static gboolean
multi_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  Multi *m = self->priv;
  const guint w = self->params.grid.width;
  const int dev0 = m->parts[0].device;
  const char *img0 = ef_cuda_backend_image (m->parts[0].backend, NULL);
  guint64 bad = 0;

  /* Every device's queued work first: the peer copies read what it writes. */
  for (guint i = 0; i < m->n; i++)
    {
      if (!ef_cuda_backend_sync (m->parts[i].backend, error))
        return FALSE;
      bad += m->parts[i].backend->n_bad_samples;
    }
  self->n_bad_samples = bad;
  if (rect->width == 0 || rect->height == 0)
    return TRUE;

  EF_CUDA_CHECK (cudaSetDevice (dev0), error);
  if (!ensure_bands (self, error))
    return FALSE;
  for (guint y = 0; y < rect->height;)
    {
      guint rows = MIN (m->band_rows, rect->height - y);
      gsize off = (gsize) (rect->y + y) * w * sizeof (EfCf32), bytes = (gsize) rows * w * sizeof (EfCf32);

      for (guint i = 1; i < m->n; i++)
        {
          int dev = 0;
          const char *src = ef_cuda_backend_image (m->parts[i].backend, &dev);

          EF_CUDA_CHECK (cudaMemcpyPeerAsync (m->d_tmp, dev0, src + off, dev, bytes, m->stream), error);
          /* Always in device order, so a pixel's sum is the same whatever the band. */
          if (!ef_cuda_image_add (m->stream, m->d_sum, i == 1 ? (const void *) (img0 + off) : m->d_sum, m->d_tmp,
                                  2 * (gsize) rows * w, error))
            return FALSE;
        }
      EF_CUDA_CHECK (cudaMemcpy2DAsync (out + (gsize) y * rect->width, rect->width * sizeof (EfCf32),
                                        (const char *) m->d_sum + (gsize) rect->x * sizeof (EfCf32),
                                        (gsize) w * sizeof (EfCf32), rect->width * sizeof (EfCf32), rows,
                                        cudaMemcpyDeviceToHost, m->stream),
                     error);
      EF_CUDA_CHECK (cudaStreamSynchronize (m->stream), error);
      y += rows;
    }
  return TRUE;
}

static gboolean
multi_clear (EfBackend *self, GError **error)
{
  Multi *m = self->priv;

  for (guint i = 0; i < m->n; i++)
    {
      EfBackend *b = m->parts[i].backend;

      if (!b->ops->clear (b, error))
        return FALSE;
    }
  m->n_blocks = 0;
  return TRUE;
}

static void
multi_free (EfBackend *self)
{
  Multi *m = self->priv;

  if (m == NULL)
    return;
  /* Waits for running shares; none is queued outside process_block, which has returned. */
  if (m->pool)
    g_thread_pool_free (m->pool, FALSE, TRUE);
  if (m->n > 0 && (m->stream || m->d_sum || m->d_tmp) && cudaSetDevice (m->parts[0].device) == cudaSuccess)
    {
      if (m->stream)
        (void) cudaStreamSynchronize (m->stream);
      if (m->d_sum)
        EF_CUDA_WARN (cudaFree (m->d_sum));
      if (m->d_tmp)
        EF_CUDA_WARN (cudaFree (m->d_tmp));
      if (m->stream)
        EF_CUDA_WARN (cudaStreamDestroy (m->stream));
    }
  for (guint i = 0; i < m->n; i++)
    {
      ef_backend_free (m->parts[i].backend);
      g_clear_error (&m->parts[i].error);
    }
  g_free (m->parts);
  g_mutex_clear (&m->lock);
  g_cond_clear (&m->cond);
  g_free (m);
  self->priv = NULL;
}

/* The parts' records summed: every device ran the same way on its share of each block. */
static void
multi_update_run (EfBackend *self)
{
  Multi *m = self->priv;
  EfRunInfo sum = { 0 };
  EfBackendKind asked = self->run.backend_requested;

  for (guint i = 0; i < m->n; i++)
    {
      const EfRunInfo *part = ef_backend_get_run_info (m->parts[i].backend);

      if (i == 0)
        {
          ef_run_info_copy (part, &sum);
          sum.nonfinite_samples = 0;
          sum.blocks_fast = sum.blocks_bp = 0;
          sum.bp_why = NULL;
        }
      ef_run_info_merge (&sum, part);
    }
  sum.backend_requested = asked;
  sum.n_devices = m->n;
  /* The devices' counters, as of the last read (which waits for them all). */
  sum.nonfinite_samples = self->n_bad_samples;
  ef_run_info_copy (&sum, &self->run);
  ef_run_info_clear (&sum);
}

static const EfBackendOps multi_ops = {
  .name = "cuda",
  .process_block = multi_process_block,
  .read_image = multi_read_image,
  .clear = multi_clear,
  .free = multi_free,
  .update_run = multi_update_run,
};

/* Lets the first device read the others' memory directly where the hardware allows; the peer copies
 * work either way (through the host when it does not). */
static void
enable_peer_access (int dev0, int dev)
{
  int can = 0;

  if (dev == dev0 || cudaSetDevice (dev0) != cudaSuccess || cudaDeviceCanAccessPeer (&can, dev0, dev) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      return;
    }
  if (can)
    {
      cudaError_t e = cudaDeviceEnablePeerAccess (dev, 0);

      if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
        g_debug ("Peer access from CUDA device %d to %d: %s", dev0, dev, cudaGetErrorString (e));
      (void) cudaGetLastError ();
    }
  g_debug ("CUDA devices %d and %d: %s", dev0, dev, can ? "peer access" : "copies through the host");
}

EfBackend *
ef_cuda_multi_new (const EfDatasetInfo *info, const EfBackendParams *params, const EfCudaOptions *options,
                   const int *devices, guint n, GError **error)
{
  g_autoptr (EfBackend) self = NULL;
  EfBackendParams one;
  Multi *m;

  g_return_val_if_fail (info != NULL && params != NULL && devices != NULL && n >= 2, NULL);

  self = g_new0 (EfBackend, 1);
  self->ops = &multi_ops;
  self->params = *params;
  ef_dataset_info_copy (info, &self->info);
  m = g_new0 (Multi, 1);
  g_mutex_init (&m->lock);
  g_cond_init (&m->cond);
  m->parts = g_new0 (Part, n);
  m->n = n;
  self->priv = m;
  ef_backend_run_init (self, params, EF_BACKEND_CUDA, n);

  /* Each device gets about 1/n of every block: its pinned buffers and tables are sized for that. */
  one = *params;
  one.n_devices = 1;
  one.block_size = MAX (1u, (MAX (params->block_size, 1u) + n - 1) / n);
  for (guint i = 0; i < n; i++)
    {
      Part *part = &m->parts[i];

      part->multi = m;
      part->device = devices[i];
      one.device = devices[i];
      part->backend = ef_backend_cuda_new_full (info, &one, options, error);
      if (part->backend == NULL)
        {
          g_prefix_error (error, "CUDA device %d: ", devices[i]);
          return NULL;
        }
    }
  for (guint i = 1; i < n; i++)
    enable_peer_access (devices[0], devices[i]);
  CHECK_OR_NULL (cudaSetDevice (devices[0]), error);
  CHECK_OR_NULL (cudaStreamCreateWithFlags (&m->stream, cudaStreamNonBlocking), error);
  m->pool = g_thread_pool_new (part_thread, m, (gint) n - 1, TRUE, error);
  if (m->pool == NULL)
    return NULL;
  return g_steal_pointer (&self);
}

gboolean
ef_cuda_multi_is (const EfBackend *backend)
{
  return backend != NULL && backend->ops == &multi_ops;
}

guint
ef_cuda_multi_n_parts (EfBackend *backend)
{
  g_return_val_if_fail (ef_cuda_multi_is (backend), 0);
  return ((Multi *) backend->priv)->n;
}

EfBackend *
ef_cuda_multi_part (EfBackend *backend, guint i)
{
  Multi *m;

  g_return_val_if_fail (ef_cuda_multi_is (backend), NULL);
  m = backend->priv;
  g_return_val_if_fail (i < m->n, NULL);
  return m->parts[i].backend;
}

guint
ef_cuda_multi_n_blocks (EfBackend *backend)
{
  g_return_val_if_fail (ef_cuda_multi_is (backend), 0);
  return ((Multi *) backend->priv)->n_blocks;
}
