/* ef-cuda-multi.c: the CUDA backend over several devices of one host, their partial images summed on read. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <string.h>

#include "ef-cuda-pfa.h"
#include "ef-cuda-private.h"
#include "ef-cuda-test-hooks.h"

/*
 * Backprojection is a sum over pulses, so devices can split the pulses and sum their images at the
 * end. Every block is cut into one contiguous share per device, each share goes to that device's own
 * single-device backend (streams, pinned buffers, plans, accumulator), and the shares are queued at
 * the same time from one host thread per device: filling pinned buffers is a host copy, and one thread
 * for every device would make the copies take turns. The fast algorithms (FFBP, FBP, PFA) do part of a
 * block's work on the whole image whatever its pulses (the last stage's interpolation, the image
 * transform): for them a call holds one block of params.block_size pulses a device
 * (self->blocks_per_call), and each device forms its block as one device would.
 *
 * read_image is a reduce-scatter and a parallel read: the rows asked for are cut into bands dealt out in
 * turn to READERS_PER_DEVICE host threads a device, and each reader has its device sum its bands of
 * every partial image (peer copies of the other devices' rows over NVLink where the hardware joins
 * them, one addition kernel for each) and copy the sum to the caller over the device's own link to the
 * host (through two pinned buffers of a band, each band copied on into the caller's memory by threads
 * while the next comes over). Nothing waits for the devices to finish first: backprojection forms each block a band of rows
 * at a time and records an event after each (ef-cuda-block.c), and a reader's stream waits for those
 * of its rows on every device, so the rows formed first are summed and copied out while the last
 * block's later rows are still being formed. A reader's band is summed while its band before is
 * copied out. Each pixel is summed in device order (((p0 + p1) + p2) + ...), whichever device sums
 * it, so the result does not depend on the rectangle, the bands or the number of reads; the partial
 * images themselves are never changed.
 */

/* Rows summed at a time by a reader: small enough that the rows formed last make a band for every
 * reader, and bounds each reader's device memory (three bands). */
#define BAND_BYTES ((gsize) 4 << 20)

/* Host threads that read a device's rows (each copy into pageable memory holds its thread until done).
 * Two a device is what was measured (tests/bench/RESULTS.md); one was not timed against it with the
 * overlapped read, and one thread splitting a one-device read in two gained nothing. */
#define READERS_PER_DEVICE 2

typedef struct _Multi Multi;

/* What a thread runs: a device's share of a block (Part) or a reader's rows of a read (Reader). The
 * caller fills it in before it is queued; the thread that runs it sets error when it fails. */
typedef struct _Work Work;
struct _Work {
  void     (*run) (Work *work);
  int        device;
  gboolean   has_work;
  GError    *error;        /* owned */
};

typedef struct {
  Work           work;      /* first member */
  Multi         *multi;     /* borrowed: the owner */
  EfBackend     *backend;   /* owned: this device's single-device backend */
  const EfPulse *pulses;    /* borrowed */
  const EfCf32  *samples;   /* borrowed */
  guint          count;
} Part;

/* Some of the rows of a read of rect into out (see read_rows), summed and copied out on one device:
 * sums on one stream, copies out on another, two bands of sums and a band for another device's rows
 * (made at the first read). */
typedef struct {
  Work           work;      /* first member */
  Multi         *multi;     /* borrowed: the owner */
  guint          part;      /* the device's index in the multi backend */
  const EfRect  *rect;      /* borrowed */
  EfCf32        *out;       /* borrowed: rect->width * rect->height */
  cudaStream_t   s_sum, s_out;
  cudaEvent_t    summed[2], copied[2];
  void          *d_sum[2];
  void          *d_tmp;
  void          *h_out[2];  /* pinned, a band each: the sums come to the host through them (NULL: straight to
                             * the caller's memory, where the pinned memory could not be had) */
  gboolean       unstaged;
} Reader;

struct _Multi {
  guint        n;
  Part        *parts;       /* owned, n */
  Work       **part_work;   /* owned, n: &parts[i].work */
  guint        n_readers;
  Reader      *readers;     /* owned, n_readers; reader k on device k / READERS_PER_DEVICE */
  Work       **reader_work; /* owned, n_readers */
  GThreadPool *pool;        /* owned: n_readers - 1 threads; the caller runs the first work itself */
  GMutex       lock;
  GCond        cond;
  guint        pending;     /* work handed to the pool and not done yet; guarded by lock */
  guint        width;       /* the grid's */
  guint        band_rows;   /* rows of a band */
  guint        n_blocks;    /* process_block calls since creation or clear */
};

static const EfBackendOps multi_ops;

#define CHECK_OR_NULL(expr, error) \
  G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, (error))) return NULL; } G_STMT_END

/* Queues the sum of every device's rows at byte offset off (bytes long) into sum, in device order. */
static gboolean
sum_band (Reader *r, void *sum, gsize off, gsize bytes, GError **error)
{
  Multi *m = r->multi;
  const void *first = NULL;

  for (guint i = 0; i < m->n; i++)
    {
      int dev = 0;
      const char *img = ef_cuda_backend_image (m->parts[i].backend, &dev);
      const void *term = img + off;

      if (i != r->part)
        {
          void *dst = i == 0 ? sum : r->d_tmp;

          EF_CUDA_CHECK (cudaMemcpyPeerAsync (dst, r->work.device, img + off, dev, bytes, r->s_sum), error);
          term = dst;
        }
      if (i == 0)
        first = term;
      else if (!ef_cuda_image_add (r->s_sum, sum, i == 1 ? first : sum, term, bytes / sizeof (float), error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
ensure_bands (Reader *r, GError **error)
{
  gsize bytes = (gsize) r->multi->band_rows * r->multi->width * sizeof (EfCf32);

  for (guint k = 0; k < 2; k++)
    if (r->d_sum[k] == NULL)
      EF_CUDA_CHECK (ef_cuda_malloc (&r->d_sum[k], bytes), error);
  if (r->d_tmp == NULL)
    EF_CUDA_CHECK (ef_cuda_malloc (&r->d_tmp, bytes), error);
  /* Straight into the caller's pageable memory the driver stages the copy itself, at about 10 GB/s. */
  for (guint k = 0; k < 2 && r->h_out[1] == NULL && !r->unstaged; k++)
    if (r->h_out[k] == NULL && ef_cuda_malloc_host (&r->h_out[k], bytes) != cudaSuccess)
      {
        (void) cudaGetLastError ();
        g_debug ("CUDA device %d: no pinned memory to stage a reader's bands in; copying straight out",
                 r->work.device);
        if (r->h_out[0] != NULL)
          EF_CUDA_WARN (cudaFreeHost (r->h_out[0]));
        r->h_out[0] = NULL;
        r->unstaged = TRUE;
      }
  return TRUE;
}

/* Makes r's sum stream wait until every device has done the work queued on rows [y0, y1) of the image. */
static gboolean
wait_rows (Reader *r, guint y0, guint y1, GError **error)
{
  Multi *m = r->multi;

  for (guint i = 0; i < m->n; i++)
    for (guint y = y0; y < y1;)
      {
        guint end = y1;

        EF_CUDA_CHECK (cudaStreamWaitEvent (r->s_sum, ef_cuda_backend_rows_event (m->parts[i].backend, y, &end), 0),
                       error);
        y = end;
      }
  return TRUE;
}

/* The reader's band c, copied by the device into h_out[c % 2], into the caller's memory. */
static gboolean
out_band (Reader *r, guint c, GError **error)
{
  Multi *m = r->multi;
  const EfRect *rect = r->rect;
  guint k = (guint) (r - m->readers), y0 = (k + c * m->n_readers) * m->band_rows;
  guint nr = MIN (m->band_rows, rect->height - y0);

  EF_CUDA_CHECK (cudaEventSynchronize (r->copied[c % 2]), error);
  ef_cuda_host_copy (r->out + (gsize) y0 * rect->width, r->h_out[c % 2], (gsize) nr * rect->width * sizeof (EfCf32));
  return TRUE;
}

/* A reader's rows: band j of the rect is the reader's when j % n_readers is its index, so that the rows
 * formed last are read by every reader at once. Each band is summed once every device has formed its
 * rows, and while the reader's band before is copied out. */
static gboolean
read_rows (Reader *r, GError **error)
{
  Multi *m = r->multi;
  const EfRect *rect = r->rect;
  const gsize row_bytes = (gsize) m->width * sizeof (EfCf32), out_row = (gsize) rect->width * sizeof (EfCf32);
  const guint n_all = (rect->height + m->band_rows - 1) / m->band_rows;
  const guint k = (guint) (r - m->readers);
  const guint n_bands = n_all > k ? (n_all - k + m->n_readers - 1) / m->n_readers : 0;

  EF_CUDA_CHECK (cudaSetDevice (r->work.device), error);
  if (!ensure_bands (r, error))
    return FALSE;
  for (guint b = 0; b <= n_bands; b++)
    {
      if (b < n_bands)
        {
          guint y0 = (k + b * m->n_readers) * m->band_rows, nr = MIN (m->band_rows, rect->height - y0);

          /* The buffer's band before last has been copied out; the rows are formed. */
          EF_CUDA_CHECK (cudaStreamWaitEvent (r->s_sum, r->copied[b % 2], 0), error);
          if (!wait_rows (r, rect->y + y0, rect->y + y0 + nr, error)
              || !sum_band (r, r->d_sum[b % 2], (gsize) (rect->y + y0) * row_bytes, (gsize) nr * row_bytes, error))
            return FALSE;
          EF_CUDA_CHECK (cudaEventRecord (r->summed[b % 2], r->s_sum), error);
        }
      if (b > 0)
        {
          guint c = b - 1, y0 = (k + c * m->n_readers) * m->band_rows, nr = MIN (m->band_rows, rect->height - y0);
          EfCf32 *dst = r->out + (gsize) y0 * rect->width;

          EF_CUDA_CHECK (cudaStreamWaitEvent (r->s_out, r->summed[c % 2], 0), error);
          EF_CUDA_CHECK (cudaMemcpy2DAsync (r->h_out[1] != NULL ? r->h_out[c % 2] : (void *) dst, out_row,
                                            (const char *) r->d_sum[c % 2] + (gsize) rect->x * sizeof (EfCf32),
                                            row_bytes, out_row, nr, cudaMemcpyDeviceToHost, r->s_out),
                         error);
          EF_CUDA_CHECK (cudaEventRecord (r->copied[c % 2], r->s_out), error);
          ef_cuda_test_hooks_count_d2h ((guint64) nr * out_row);
          /* The band before goes on to the caller while this one comes over. */
          if (r->h_out[1] != NULL && c > 0 && !out_band (r, c - 1, error))
            return FALSE;
        }
    }
  if (r->h_out[1] != NULL && n_bands > 0 && !out_band (r, n_bands - 1, error))
    return FALSE;
  EF_CUDA_CHECK (cudaStreamSynchronize (r->s_out), error);
  return TRUE;
}

static void
reader_run (Work *work)
{
  (void) read_rows ((Reader *) work, &work->error);
}

static void
part_run (Work *work)
{
  Part *part = (Part *) work;

  (void) ef_backend_process_block (part->backend, part->pulses, part->samples, part->count, &work->error);
}

static void
work_thread (gpointer data, gpointer user_data)
{
  Work *work = data;
  Multi *m = user_data;

  work->run (work);
  g_mutex_lock (&m->lock);
  m->pending--;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
}

/* Runs the works that have work at once (the first on this thread) and waits for all; FALSE with the
 * first one's error, in order, when any failed. */
static gboolean
run_works (Multi *m, Work **works, guint n, GError **error)
{
  gboolean ok = TRUE;
  Work *mine = NULL;

  for (guint i = 0; i < n; i++)
    {
      Work *w = works[i];

      g_clear_error (&w->error);
      if (!w->has_work)
        continue;
      if (mine == NULL)
        {
          mine = w;
          continue;
        }
      g_mutex_lock (&m->lock);
      m->pending++;
      g_mutex_unlock (&m->lock);
      if (!g_thread_pool_push (m->pool, w, NULL))
        {
          /* No thread to run it: run it here, later than the others but just as right. */
          g_mutex_lock (&m->lock);
          m->pending--;
          g_mutex_unlock (&m->lock);
          w->run (w);
        }
    }
  if (mine != NULL)
    mine->run (mine);
  g_mutex_lock (&m->lock);
  while (m->pending > 0)
    g_cond_wait (&m->cond, &m->lock);
  g_mutex_unlock (&m->lock);

  for (guint i = 0; i < n; i++)
    {
      Work *w = works[i];

      if (w->error == NULL)
        continue;
      if (ok)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&w->error), "CUDA device %d: ", w->device);
          ok = FALSE;
        }
      else
        g_clear_error (&w->error);
    }
  return ok;
}

static gboolean
multi_process_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  Multi *m = self->priv;
  const gsize ns = self->info.n_samples;

  g_return_val_if_fail (pulses != NULL || count == 0, FALSE);
  g_return_val_if_fail (samples != NULL || count == 0, FALSE);

  for (guint i = 0; i < m->n; i++)
    {
      Part *part = &m->parts[i];
      guint lo = (guint) ((guint64) count * i / m->n), hi = (guint) ((guint64) count * (i + 1) / m->n);

      if (self->blocks_per_call > 1)
        {
          /* A whole block each (the fast algorithms); the last device takes whatever is past the others'. */
          guint64 whole = MAX (self->params.block_size, 1u);

          lo = (guint) MIN (whole * i, (guint64) count);
          hi = i + 1 == m->n ? count : (guint) MIN (whole * (i + 1), (guint64) count);
        }

      part->pulses = count > 0 ? pulses + lo : NULL;
      part->samples = count > 0 ? samples + (gsize) lo * ns : NULL;
      part->count = hi - lo;
      part->work.has_work = part->count > 0;
    }
  if (!run_works (m, m->part_work, m->n, error))
    return FALSE;
  m->n_blocks++;
  return TRUE;
}

/* Waits for every device's queued work; self->n_bad_samples from their counters. */
static gboolean
multi_sync (Multi *m, EfBackend *self, GError **error)
{
  guint64 bad = 0;

  for (guint i = 0; i < m->n; i++)
    {
      if (!ef_cuda_backend_sync (m->parts[i].backend, error))
        return FALSE;
      bad += m->parts[i].backend->n_bad_samples;
    }
  self->n_bad_samples = bad;
  return TRUE;
}

/* Readers start at once: each waits, on its devices, for the rows it sums to be formed. */
static gboolean
multi_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  Multi *m = self->priv;
  gboolean ok;

  if (rect->width == 0 || rect->height == 0)
    return multi_sync (m, self, error);

  for (guint k = 0; k < m->n_readers; k++)
    {
      Reader *r = &m->readers[k];

      r->rect = rect;
      r->out = out;
      r->work.has_work = (guint64) k * m->band_rows < rect->height;
    }
  ok = run_works (m, m->reader_work, m->n_readers, error);
  for (guint k = 0; k < m->n_readers; k++)
    {
      m->readers[k].rect = NULL;
      m->readers[k].out = NULL;
    }
  /* Every device's work done: its errors and bad-sample counts. */
  return multi_sync (m, self, ok ? error : NULL) && ok;
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
  /* Waits for running work; none is queued outside process_block and read_image, which have returned. */
  if (m->pool)
    g_thread_pool_free (m->pool, FALSE, TRUE);
  for (guint k = 0; k < m->n_readers; k++)
    {
      Reader *r = &m->readers[k];

      if (cudaSetDevice (r->work.device) != cudaSuccess)
        continue;
      for (guint j = 0; j < 2; j++)
        {
          if (r->d_sum[j])
            EF_CUDA_WARN (cudaFree (r->d_sum[j]));
          if (r->summed[j])
            EF_CUDA_WARN (cudaEventDestroy (r->summed[j]));
          if (r->copied[j])
            EF_CUDA_WARN (cudaEventDestroy (r->copied[j]));
        }
      if (r->d_tmp)
        EF_CUDA_WARN (cudaFree (r->d_tmp));
      for (guint j = 0; j < 2; j++)
        if (r->h_out[j])
          EF_CUDA_WARN (cudaFreeHost (r->h_out[j]));
      if (r->s_sum)
        EF_CUDA_WARN (cudaStreamDestroy (r->s_sum));
      if (r->s_out)
        EF_CUDA_WARN (cudaStreamDestroy (r->s_out));
      g_clear_error (&r->work.error);
    }
  for (guint i = 0; i < m->n; i++)
    {
      ef_backend_free (m->parts[i].backend);
      g_clear_error (&m->parts[i].work.error);
    }
  g_free (m->readers);
  g_free (m->reader_work);
  g_free (m->parts);
  g_free (m->part_work);
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
  /* The depth of focus is the whole aperture's, whichever device gridded which block. */
  if (self->params.algo == EF_ALGO_PFA)
    {
      g_autofree EfCudaPfa **formers = g_new0 (EfCudaPfa *, m->n);
      guint k = 0;

      for (guint i = 0; i < m->n; i++)
        if ((formers[k] = ef_cuda_backend_pfa (m->parts[i].backend)) != NULL)
          k++;
      if (k > 0 && sum.pfa_checked)
        {
          EfPfaReport rep;

          ef_cuda_pfa_check_all (formers, k, &rep);
          ef_run_info_set_pfa (&sum, rep.outside_dof, rep.qpe_max_rad, rep.qpe_limit_rad, rep.note);
        }
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

/* Lets device `from` read device `to`'s memory directly where the hardware allows; the peer copies
 * work either way (through the host when it does not). */
static void
enable_peer_access (int from, int to)
{
  int can = 0;

  if (to == from || cudaSetDevice (from) != cudaSuccess || cudaDeviceCanAccessPeer (&can, from, to) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      return;
    }
  if (can)
    {
      cudaError_t e = cudaDeviceEnablePeerAccess (to, 0);

      if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
        g_debug ("Peer access from CUDA device %d to %d: %s", from, to, cudaGetErrorString (e));
      (void) cudaGetLastError ();
    }
  g_debug ("CUDA devices %d and %d: %s", from, to, can ? "peer access" : "copies through the host");
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
  m->part_work = g_new0 (Work *, n);
  m->n = n;
  m->n_readers = n * READERS_PER_DEVICE;
  m->readers = g_new0 (Reader, m->n_readers);
  m->reader_work = g_new0 (Work *, m->n_readers);
  m->width = params->grid.width;
  m->band_rows = (guint) CLAMP (BAND_BYTES / ((gsize) MAX (params->grid.width, 1u) * sizeof (EfCf32)), (gsize) 1,
                                (gsize) MAX (params->grid.height, 1u));
  if (ef_cuda_test_hooks_read_band_rows () > 0)
    m->band_rows = ef_cuda_test_hooks_read_band_rows ();
  self->priv = m;
  ef_backend_run_init (self, params, EF_BACKEND_CUDA, n);

  /* Each device gets about 1/n of every block (backprojection), or a whole block of each call (the fast
   * algorithms): its pinned buffers and tables are sized for that. */
  one = *params;
  one.n_devices = 1;
  one.block_size = MAX (1u, (MAX (params->block_size, 1u) + n - 1) / n);
  if (params->algo == EF_ALGO_FFBP || params->algo == EF_ALGO_FBP || params->algo == EF_ALGO_PFA)
    {
      one.block_size = MAX (params->block_size, 1u);
      self->blocks_per_call = n;
    }
  for (guint i = 0; i < n; i++)
    {
      Part *part = &m->parts[i];

      part->multi = m;
      part->work.run = part_run;
      part->work.device = devices[i];
      m->part_work[i] = &part->work;
      one.device = devices[i];
      part->backend = ef_backend_cuda_new_full (info, &one, options, error);
      if (part->backend == NULL)
        {
          g_prefix_error (error, "CUDA device %d: ", devices[i]);
          return NULL;
        }
    }
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < n; j++)
      enable_peer_access (devices[i], devices[j]);
  for (guint k = 0; k < m->n_readers; k++)
    {
      Reader *r = &m->readers[k];
      int least = 0, greatest = 0;

      r->multi = m;
      r->part = k / READERS_PER_DEVICE;
      r->work.run = reader_run;
      r->work.device = devices[r->part];
      m->reader_work[k] = &r->work;
      CHECK_OR_NULL (cudaSetDevice (r->work.device), error);
      /* The sums at the device's greatest priority: backprojection's bands run at high priorities
       * (ef-cuda-backend.c), and a sum queued behind the last block's later bands would wait for them
       * to be dispatched, which is what reading while they run is for. */
      CHECK_OR_NULL (cudaDeviceGetStreamPriorityRange (&least, &greatest), error);
      CHECK_OR_NULL (cudaStreamCreateWithPriority (&r->s_sum, cudaStreamNonBlocking, greatest), error);
      CHECK_OR_NULL (cudaStreamCreateWithFlags (&r->s_out, cudaStreamNonBlocking), error);
      for (guint j = 0; j < 2; j++)
        {
          CHECK_OR_NULL (cudaEventCreateWithFlags (&r->summed[j], cudaEventDisableTiming), error);
          CHECK_OR_NULL (cudaEventCreateWithFlags (&r->copied[j], cudaEventDisableTiming), error);
        }
    }
  m->pool = g_thread_pool_new (work_thread, m, (gint) m->n_readers - 1, TRUE, error);
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
