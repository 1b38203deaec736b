/* ef-job.c: the progressive job: a reader thread and a worker thread, one pulse block at a time. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-job"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-grid.h"
#include "ef-job.h"

/* One call's pulse blocks in flight between the reader and the worker (one block, or one a device where
 * several devices each form a whole block). Exactly two exist, so memory is bounded by two calls plus the
 * accumulator whatever the dataset's size. */
typedef struct {
  guint    index;     /* the first block's number in processing order */
  guint    n_blocks;  /* blocks of the order held (the backend's blocks_per_call at most) */
  guint    count;     /* pulses */
  EfPulse *pulses;    /* owned, block_size * blocks_per_call */
  EfCf32  *samples;   /* owned, block_size * blocks_per_call * n_samples */
  GError  *error;     /* owned: the read failed */
  gboolean end;       /* no more blocks */
} Block;

struct _EfJob {
  EfDataset    *dataset;   /* owned ref */
  guint         per_call;  /* blocks of the order handed to the backend at a time (worker thread; set
                            * before the reader starts) */
  EfJobParams   params;
  guint64      *pulse_ids; /* owned: the pulses used, in order */
  guint64       n_used;
  guint        *order;     /* owned: block processing order */
  guint         n_blocks;

  GThread      *worker;    /* owned */
  EfJobProgressFunc func;
  gpointer      user_data;

  GMutex        lock;      /* guards state, paused, display, backend_name, note, run, error */
  GCond         cond;
  EfJobState    state;
  gboolean      paused;
  gint          cancelled; /* atomic */
  EfCf32       *display;   /* owned: the accumulator as of the last finished block */
  char         *backend_name;
  char         *note;
  EfRunInfo     run;       /* what ran so far: the backend's record as of the last block */
  GError       *error;
  EfDeviceImage *device_image; /* owned ref, set once by the worker: the backend's image on its device */
  EfAzWeight    az;          /* the cross-range weighting range compression applies */
  double        energy_total; /* the sum of the used pulses' squared weights */
  double        energy_done;  /* the same over the pulses formed so far (worker thread only) */
};

/* The sum of the squared cross-range weights of n pulses: the share of the image's energy they carry. */
static double
weight_energy (const EfAzWeight *az, const EfPulse *pulses, const guint64 *ids, gsize n)
{
  double sum = 0;

  for (gsize i = 0; i < n; i++)
    {
      double w = ef_az_weight_at (az, &pulses[ids != NULL ? ids[i] : i]);

      sum += w * w;
    }
  return sum;
}

void
ef_job_params_init (EfJobParams *params, const EfGrid *grid)
{
  memset (params, 0, sizeof *params);
  params->backend.grid = *grid;
  params->backend.range = EF_RANGE_PARAMS_DEFAULT;
  params->backend.precision = EF_PRECISION_FP32;
  params->backend.algo = EF_ALGO_BP;
  params->backend.block_size = 64;
  params->backend.device = -1;
  params->backend_kind = EF_BACKEND_CPU;
  params->order = EF_ORDER_SEQUENTIAL;
  params->pulse_stride = 1;
}

void
ef_job_interleaved_order (guint n, guint *order)
{
  guint bits = 0, k = 0;

  while ((1u << bits) < n)
    bits++;
  for (guint i = 0; i < (1u << bits) && k < n; i++)
    {
      guint r = 0;

      for (guint b = 0; b < bits; b++)
        if (i & (1u << b))
          r |= 1u << (bits - 1 - b);
      if (r < n)
        order[k++] = r;
    }
}

EfJob *
ef_job_new (EfDataset *dataset, const EfJobParams *params, GError **error)
{
  EfJob *job;
  guint64 first, avail, stride;
  guint block;

  g_return_val_if_fail (dataset != NULL && params != NULL, NULL);

  stride = MAX (params->pulse_stride, 1u);
  first = params->first_pulse;
  if (first >= dataset->info.n_pulses)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The first pulse %" G_GUINT64_FORMAT " is past the end (%" G_GUINT64_FORMAT " pulses)", first,
                   dataset->info.n_pulses);
      return NULL;
    }
  avail = dataset->info.n_pulses - first;
  if (params->n_pulses > 0)
    avail = MIN (avail, params->n_pulses);
  if (params->backend.grid.width == 0 || params->backend.grid.height == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The image grid is empty");
      return NULL;
    }

  job = g_new0 (EfJob, 1);
  job->per_call = 1;
  job->dataset = ef_dataset_ref (dataset);
  job->params = *params;
  job->params.pulse_stride = (guint) stride;
  block = CLAMP (params->backend.block_size, 1u, 4096u);
  /* Factorised backprojection only pays off over long sub-apertures. */
  if ((params->backend.algo == EF_ALGO_FFBP || params->backend.algo == EF_ALGO_FBP) && block < 256)
    block = 256;
  job->params.backend.block_size = block;
  job->n_used = (avail + stride - 1) / stride;
  job->pulse_ids = g_new (guint64, job->n_used);
  for (guint64 i = 0; i < job->n_used; i++)
    job->pulse_ids[i] = first + i * stride;
  /* The cross-range weighting spans exactly the pulses this job forms from. */
  ef_aperture_init (&job->params.backend.range.aperture, dataset->pulses, first, job->n_used, stride);
  ef_az_weight_init (&job->az, job->params.backend.range.az_window, job->params.backend.range.az_taylor_nbar,
                     job->params.backend.range.az_taylor_sll_db, &job->params.backend.range.aperture);
  if (params->share_count > 0)
    {
      if (params->share_first >= job->n_used || params->share_count > job->n_used - params->share_first)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "The share of pulses [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT ") is past the %"
                       G_GUINT64_FORMAT " pulses used", params->share_first, params->share_count, job->n_used);
          g_free (job->pulse_ids);
          ef_dataset_unref (job->dataset);
          g_free (job);
          return NULL;
        }
      /* The weighting above spans every pulse; only the share is read and formed. */
      memmove (job->pulse_ids, job->pulse_ids + params->share_first, params->share_count * sizeof (guint64));
      job->n_used = params->share_count;
    }
  job->energy_total = weight_energy (&job->az, dataset->pulses, job->pulse_ids, job->n_used);
  job->n_blocks = (guint) ((job->n_used + block - 1) / block);
  job->order = g_new (guint, job->n_blocks);
  if (params->order == EF_ORDER_INTERLEAVED)
    ef_job_interleaved_order (job->n_blocks, job->order);
  else
    for (guint i = 0; i < job->n_blocks; i++)
      job->order[i] = i;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);
  ef_run_info_init (&job->run, params->backend_kind, params->backend.algo, params->backend.precision);
  ef_backend_run_set_weighting (&job->run, &job->params.backend.range);
  job->state = EF_JOB_PAUSED;
  return job;
}

static gboolean
is_cancelled (EfJob *job)
{
  return g_atomic_int_get (&job->cancelled) != 0;
}

/* Reads block b of the processing order into pulses and samples; contiguous runs of pulses are read in
 * one call. *count receives its pulses. */
static gboolean
read_block (EfJob *job, guint b, EfPulse *pulses, EfCf32 *samples, guint *count, GError **error)
{
  guint block = job->params.backend.block_size;
  guint64 start = (guint64) job->order[b] * block;
  gsize ns = job->dataset->info.n_samples;

  *count = (guint) MIN ((guint64) block, job->n_used - start);
  if (job->params.pulse_stride == 1)
    {
      guint64 p0 = job->pulse_ids[start];

      memcpy (pulses, job->dataset->pulses + p0, *count * sizeof (EfPulse));
      return ef_dataset_read_block (job->dataset, p0, *count, samples, error);
    }
  for (guint i = 0; i < *count; i++)
    {
      guint64 p = job->pulse_ids[start + i];

      pulses[i] = job->dataset->pulses[p];
      if (!ef_dataset_read_block (job->dataset, p, 1, samples + i * ns, error))
        return FALSE;
    }
  return TRUE;
}

/* Reads blocks b, b + 1, ... of the processing order, job->per_call of them at most, one after another
 * into blk; a short block (the collection's last) ends the call, so that every block of a call starts at
 * a multiple of the block size, where the backend cuts it. */
static gboolean
read_call (EfJob *job, guint b, Block *blk, GError **error)
{
  gsize ns = job->dataset->info.n_samples;
  guint want = MIN (job->per_call, job->n_blocks - b);

  blk->index = b;
  blk->n_blocks = 0;
  blk->count = 0;
  while (blk->n_blocks < want)
    {
      guint count = 0;

      if (!read_block (job, b + blk->n_blocks, blk->pulses + blk->count, blk->samples + (gsize) blk->count * ns,
                       &count, error))
        return FALSE;
      blk->n_blocks++;
      blk->count += count;
      if (count < job->params.backend.block_size)
        break;
    }
  return TRUE;
}

typedef struct {
  EfJob       *job;
  GAsyncQueue *free_q;  /* borrowed */
  GAsyncQueue *full_q;  /* borrowed */
} ReaderCtx;

static gpointer
reader_main (gpointer data)
{
  ReaderCtx *ctx = data;
  EfJob *job = ctx->job;

  for (guint b = 0, taken = 0; b < job->n_blocks; b += taken)
    {
      Block *blk = g_async_queue_pop (ctx->free_q);

      if (is_cancelled (job) || blk->end)
        {
          blk->end = TRUE;
          g_async_queue_push (ctx->full_q, blk);
          return NULL;
        }
      gint64 t0 = g_get_monotonic_time ();

      if (!read_call (job, b, blk, &blk->error))
        {
          g_async_queue_push (ctx->full_q, blk);
          return NULL;
        }
      g_debug ("blocks %u to %u of the order: %u pulses read in %.4f s", b, b + blk->n_blocks - 1, blk->count,
               (g_get_monotonic_time () - t0) * 1e-6);
      /* The worker may take blk as soon as it is pushed. */
      taken = blk->n_blocks;
      g_async_queue_push (ctx->full_q, blk);
    }
  {
    Block *blk = g_async_queue_pop (ctx->free_q);
    blk->end = TRUE;
    g_async_queue_push (ctx->full_q, blk);
  }
  return NULL;
}

static void
publish (EfJob *job, EfJobState state, guint blocks_done, guint64 pulses_done, gint64 t0, const EfRect *dirty,
         guint n_dirty)
{
  EfJobProgress pr = { 0 };
  const EfGrid *g = &job->params.backend.grid;
  double elapsed = (g_get_monotonic_time () - t0) / 1e6;

  if (job->func == NULL)
    return;
  pr.state = state;
  pr.blocks_done = blocks_done;
  pr.blocks_total = job->n_blocks;
  pr.pulses_done = pulses_done;
  pr.pulses_total = job->n_used;
  pr.energy_fraction = job->energy_total > 0 ? MIN (job->energy_done / job->energy_total, 1.0)
                                             : (job->n_used > 0 ? (double) pulses_done / job->n_used : 0);
  pr.elapsed_s = elapsed;
  pr.bp_per_s = elapsed > 0 ? (double) ef_grid_n_pixels (g) * pulses_done / elapsed : 0;
  pr.eta_s = pulses_done > 0 ? elapsed * (double) (job->n_used - pulses_done) / pulses_done : 0;
  pr.dirty = dirty;
  pr.n_dirty = n_dirty;
  pr.backend_name = job->backend_name;
  pr.error = job->error;
  job->func (job, &pr, job->user_data);
}

static void
finish (EfJob *job, EfJobState state, GError *error)
{
  g_mutex_lock (&job->lock);
  job->state = state;
  if (error)
    {
      g_clear_error (&job->error);
      job->error = error;
    }
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
}

/* The backend's record, as of now, for readers of the job (worker thread). */
static void
take_run_info (EfJob *job, EfBackend *backend)
{
  const EfRunInfo *run = ef_backend_get_run_info (backend);

  g_mutex_lock (&job->lock);
  ef_run_info_copy (run, &job->run);
  g_mutex_unlock (&job->lock);
}

static guint64
count_nonfinite (const EfCf32 *px, gsize n)
{
  guint64 bad = 0;

  for (gsize i = 0; i < n; i++)
    bad += !(isfinite (crealf (px[i])) && isfinite (cimagf (px[i])));
  return bad;
}

/* At the end of a complete image: its non-finite pixels, from the host copy, or on the device when
 * there is none. Failing to count is not failing to form: the record then says nothing was counted. */
static void
count_image (EfJob *job, gboolean device_only)
{
  const EfCf32 *display;
  guint64 bad = 0;
  gboolean counted = FALSE;

  /* Only this thread replaces the copy, and it is done with that: readers may go on reading it while
   * it is counted, without waiting. */
  g_mutex_lock (&job->lock);
  display = job->display;
  g_mutex_unlock (&job->lock);
  if (display != NULL)
    {
      bad = count_nonfinite (display, ef_grid_n_pixels (&job->params.backend.grid));
      counted = TRUE;
    }
  if (!counted && device_only && job->device_image != NULL)
    {
      g_autoptr (GError) local = NULL;

      counted = ef_device_image_count_nonfinite (job->device_image, &bad, &local);
      if (!counted)
        g_debug ("Could not count the image's non-finite pixels: %s", local->message);
    }
  g_mutex_lock (&job->lock);
  job->run.pixels_counted = counted;
  job->run.nonfinite_pixels = counted ? bad : 0;
  g_mutex_unlock (&job->lock);
}

/* Copies the accumulator into job->display for ef_job_read_image. The copy happens outside the lock;
 * only the swap is inside. need_spare: allocate the buffer for the next copy now (not after the last). */
static gboolean
refresh_display (EfJob *job, EfBackend *backend, const EfRect *all, EfCf32 **scratch, gboolean need_spare,
                 GError **error)
{
  EfCf32 *old;

  if (!ef_backend_read_image (backend, all, *scratch, error))
    return FALSE;
  g_mutex_lock (&job->lock);
  old = job->display;
  job->display = *scratch;
  g_mutex_unlock (&job->lock);
  *scratch = old;
  if (*scratch == NULL && need_spare)
    *scratch = g_try_new (EfCf32, (gsize) all->width * all->height);
  if (*scratch == NULL && need_spare)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for the image");
      return FALSE;
    }
  return TRUE;
}

/* Whether this block's image is copied for readers, by EfJobParams.publish_interval_s. last_us < 0:
 * never copied yet. */
static gboolean
copy_due (const EfJob *job, gint64 last_us)
{
  double iv = job->params.publish_interval_s;

  if (iv == 0)
    return TRUE;
  if (iv < 0)
    return FALSE;
  return last_us < 0 || (double) (g_get_monotonic_time () - last_us) >= iv * 1e6;
}

static gpointer
worker_main (gpointer data)
{
  EfJob *job = data;
  const EfGrid *grid = &job->params.backend.grid;
  EfRect all = { 0, 0, grid->width, grid->height };
  g_autoptr (EfBackend) backend = NULL;
  g_autoptr (GAsyncQueue) free_q = g_async_queue_new ();
  g_autoptr (GAsyncQueue) full_q = g_async_queue_new ();
  Block blocks[2] = { 0 };
  ReaderCtx ctx = { job, free_q, full_q };
  GThread *reader = NULL;
  GError *error = NULL;
  g_autofree EfCf32 *scratch = NULL;
  char *note = NULL;
  guint done = 0;
  guint64 pulses_done = 0;
  gint64 t0 = g_get_monotonic_time (), last_copy_us = -1;
  gboolean unpublished = FALSE, device_only = FALSE;
  gsize ns = job->dataset->info.n_samples, block = job->params.backend.block_size;
  EfJobState end_state = EF_JOB_DONE;

  backend = ef_backend_new (job->params.backend_kind, &job->dataset->info, &job->params.backend, &note, &error);
  g_mutex_lock (&job->lock);
  job->note = note;
  if (backend)
    {
      job->backend_name = g_strdup (ef_backend_name (backend));
      ef_run_info_copy (ef_backend_get_run_info (backend), &job->run);
    }
  if (backend)
    job->device_image = ef_backend_ref_device_image (backend);
  /* no_host_image: a display reads the device image itself, so nothing is ever copied here. */
  device_only = job->params.no_host_image && job->device_image != NULL;
  g_mutex_unlock (&job->lock);
  if (backend == NULL)
    {
      finish (job, EF_JOB_FAILED, error);
      publish (job, EF_JOB_FAILED, 0, 0, t0, NULL, 0);
      return NULL;
    }

  /* As many blocks a call as the backend forms best at once (several devices, each a whole block of a
   * fast algorithm); one a call where memory does not allow. */
  job->per_call = ef_backend_blocks_per_call (backend);
  for (;;)
    {
      gsize want = block * job->per_call;
      gboolean ok = ns == 0 || want <= G_MAXSIZE / sizeof (EfCf32) / ns;

      for (int i = 0; i < 2 && ok; i++)
        {
          blocks[i].pulses = g_try_new (EfPulse, want);
          blocks[i].samples = g_try_new (EfCf32, want * ns);
          ok = blocks[i].pulses != NULL && blocks[i].samples != NULL;
        }
      if (ok)
        {
          block = want;
          break;
        }
      for (int i = 0; i < 2; i++)
        {
          g_clear_pointer (&blocks[i].pulses, g_free);
          g_clear_pointer (&blocks[i].samples, g_free);
        }
      if (job->per_call == 1)
        {
          g_set_error (&error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                       "Not enough memory for pulse blocks of %zu x %zu samples", block, ns);
          goto out;
        }
      job->per_call = 1;
    }
  for (int i = 0; i < 2; i++)
    g_async_queue_push (free_q, &blocks[i]);
  scratch = device_only ? NULL : g_try_new (EfCf32, ef_grid_n_pixels (grid));
  if (scratch == NULL && !device_only)
    {
      g_set_error (&error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for the image");
      goto out;
    }
  reader = g_thread_new ("ef-job-reader", reader_main, &ctx);

  for (;;)
    {
      Block *blk;

      g_mutex_lock (&job->lock);
      while (job->paused && !is_cancelled (job))
        {
          job->state = EF_JOB_PAUSED;
          g_cond_wait (&job->cond, &job->lock);
        }
      job->state = EF_JOB_RUNNING;
      g_mutex_unlock (&job->lock);
      if (is_cancelled (job))
        {
          end_state = EF_JOB_CANCELLED;
          break;
        }

      blk = g_async_queue_pop (full_q);
      if (blk->error)
        {
          error = g_steal_pointer (&blk->error);
          blk->end = TRUE;
          g_async_queue_push (free_q, blk);
          break;
        }
      if (blk->end)
        {
          g_async_queue_push (free_q, blk);
          break;
        }
      if (!ef_backend_process_block (backend, blk->pulses, blk->samples, blk->count, &error))
        {
          blk->end = TRUE;
          g_async_queue_push (free_q, blk);
          break;
        }
      pulses_done += blk->count;
      job->energy_done += weight_energy (&job->az, blk->pulses, NULL, blk->count);
      done += blk->n_blocks;
      g_async_queue_push (free_q, blk);
      take_run_info (job, backend);

      if (device_only)
        {
          /* The tiles changed, on the device; nothing here waits for it. */
          if (done < job->n_blocks)
            publish (job, EF_JOB_RUNNING, done, pulses_done, t0, &all, 1);
          continue;
        }
      if (!copy_due (job, last_copy_us))
        {
          /* The device keeps working: nothing here waits for it. */
          unpublished = TRUE;
          if (done < job->n_blocks)
            publish (job, EF_JOB_RUNNING, done, pulses_done, t0, NULL, 0);
          continue;
        }
      if (!refresh_display (job, backend, &all, &scratch, TRUE, &error))
        break;
      last_copy_us = g_get_monotonic_time ();
      unpublished = FALSE;
      if (done < job->n_blocks)
        publish (job, EF_JOB_RUNNING, done, pulses_done, t0, &all, 1);
    }
  /* Blocks that were not copied for readers yet (publish_interval_s != 0) are, before the end is
   * reported: this read also waits for the device to finish them. */
  if (unpublished && error == NULL && !refresh_display (job, backend, &all, &scratch, FALSE, &error))
    end_state = EF_JOB_FAILED;
  /* Without copies, an empty read waits for the device: the end is reported once the image is
   * complete, and a kernel's failure shows here. */
  if (device_only && error == NULL)
    {
      EfRect none = { 0, 0, 0, 0 };
      EfCf32 unused;

      if (!ef_backend_read_image (backend, &none, &unused, &error))
        end_state = EF_JOB_FAILED;
    }

  /* The record as of the end (reads above waited for every block), and the image's own health. */
  if (error == NULL)
    {
      take_run_info (job, backend);
      if (end_state == EF_JOB_DONE && done == job->n_blocks)
        count_image (job, device_only);
    }

out:
  if (reader)
    {
      /* Unblock the reader whatever it waits for, then let it see the end. */
      g_atomic_int_set (&job->cancelled, 1);
      for (;;)
        {
          Block *blk = g_async_queue_try_pop (full_q);
          if (blk == NULL)
            break;
          g_clear_error (&blk->error);
          g_async_queue_push (free_q, blk);
        }
      g_thread_join (reader);
    }
  for (int i = 0; i < 2; i++)
    {
      g_free (blocks[i].pulses);
      g_free (blocks[i].samples);
      g_clear_error (&blocks[i].error);
    }
  if (error)
    end_state = EF_JOB_FAILED;
  else if (end_state == EF_JOB_DONE && done < job->n_blocks)
    end_state = EF_JOB_CANCELLED;
  finish (job, end_state, error);
  publish (job, end_state, done, pulses_done, t0, end_state == EF_JOB_DONE ? &all : NULL,
           end_state == EF_JOB_DONE ? 1 : 0);
  return NULL;
}

void
ef_job_start (EfJob *job, EfJobProgressFunc func, gpointer user_data)
{
  g_return_if_fail (job != NULL);
  g_return_if_fail (job->worker == NULL);

  job->func = func;
  job->user_data = user_data;
  job->state = EF_JOB_RUNNING;
  job->worker = g_thread_new ("ef-job", worker_main, job);
}

gboolean
ef_job_run (EfJob *job, EfJobProgressFunc func, gpointer user_data, GError **error)
{
  ef_job_start (job, func, user_data);
  return ef_job_wait (job, error);
}

void
ef_job_cancel (EfJob *job)
{
  g_return_if_fail (job != NULL);
  g_atomic_int_set (&job->cancelled, 1);
  g_mutex_lock (&job->lock);
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
}

void
ef_job_pause (EfJob *job)
{
  g_return_if_fail (job != NULL);
  g_mutex_lock (&job->lock);
  job->paused = TRUE;
  g_mutex_unlock (&job->lock);
}

void
ef_job_resume (EfJob *job)
{
  g_return_if_fail (job != NULL);
  g_mutex_lock (&job->lock);
  job->paused = FALSE;
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
}

gboolean
ef_job_wait (EfJob *job, GError **error)
{
  EfJobState state;

  g_return_val_if_fail (job != NULL, FALSE);
  if (job->worker)
    {
      g_thread_join (job->worker);
      job->worker = NULL;
    }
  g_mutex_lock (&job->lock);
  state = job->state;
  if (state == EF_JOB_FAILED && job->error)
    g_propagate_error (error, g_error_copy (job->error));
  else if (state == EF_JOB_CANCELLED)
    g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED, "The job was cancelled");
  else if (state != EF_JOB_DONE)
    g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "The job never ran");
  g_mutex_unlock (&job->lock);
  return state == EF_JOB_DONE;
}

void
ef_job_free (EfJob *job)
{
  if (job == NULL)
    return;
  ef_job_cancel (job);
  if (job->worker)
    g_thread_join (job->worker);
  ef_dataset_unref (job->dataset);
  g_free (job->pulse_ids);
  g_free (job->order);
  g_free (job->display);
  g_free (job->backend_name);
  g_free (job->note);
  ef_run_info_clear (&job->run);
  g_clear_error (&job->error);
  g_clear_pointer (&job->device_image, ef_device_image_unref);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_free (job);
}

EfJobState
ef_job_get_state (EfJob *job)
{
  EfJobState s;

  g_mutex_lock (&job->lock);
  s = job->state;
  g_mutex_unlock (&job->lock);
  return s;
}

const EfGrid *
ef_job_get_grid (EfJob *job)
{
  return &job->params.backend.grid;
}

const char *
ef_job_get_backend_name (EfJob *job)
{
  return job->backend_name;
}

const char *
ef_job_get_note (EfJob *job)
{
  return job->note;
}

void
ef_job_get_run_info (EfJob *job, EfRunInfo *out)
{
  g_return_if_fail (job != NULL && out != NULL);

  g_mutex_lock (&job->lock);
  ef_run_info_copy (&job->run, out);
  g_mutex_unlock (&job->lock);
}

gboolean
ef_job_read_image (EfJob *job, const EfRect *rect, EfCf32 *out, GError **error)
{
  const EfGrid *g;

  g_return_val_if_fail (job != NULL && rect != NULL && out != NULL, FALSE);
  g = &job->params.backend.grid;
  if (rect->x + (guint64) rect->width > g->width || rect->y + (guint64) rect->height > g->height)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The rectangle %u,%u %ux%u is outside the %ux%u image", rect->x, rect->y, rect->width,
                   rect->height, g->width, g->height);
      return FALSE;
    }
  g_mutex_lock (&job->lock);
  if (job->display == NULL && job->params.no_host_image && job->device_image != NULL)
    {
      /* Nothing was copied to host memory: read the device (the copy only; never a block). */
      g_autoptr (EfDeviceImage) image = ef_device_image_ref (job->device_image);

      g_mutex_unlock (&job->lock);
      return ef_device_image_read (image, rect, out, error);
    }
  for (guint r = 0; r < rect->height; r++)
    {
      EfCf32 *dst = out + (gsize) r * rect->width;

      if (job->display)
        memcpy (dst, job->display + (gsize) (rect->y + r) * g->width + rect->x, rect->width * sizeof (EfCf32));
      else
        memset (dst, 0, rect->width * sizeof (EfCf32));
    }
  g_mutex_unlock (&job->lock);
  return TRUE;
}

EfDeviceImage *
ef_job_ref_device_image (EfJob *job)
{
  EfDeviceImage *image = NULL;

  g_return_val_if_fail (job != NULL, NULL);
  g_mutex_lock (&job->lock);
  if (job->device_image != NULL)
    image = ef_device_image_ref (job->device_image);
  g_mutex_unlock (&job->lock);
  return image;
}
