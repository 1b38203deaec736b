/* ef-job-runner.c: hands a worker's progress to the main loop and frees jobs off the main thread. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-job-runner"
#include "config.h"

#include <errno.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ef-job-runner.h"
#if HAVE_CUDA
#include "cuda/ef-cuda.h"
#endif

/* Workers run this much nicer than the main thread, so that drawing and input keep the processor
 * they need on a machine whose every core is forming an image. Idle cores still go to the job. */
#define WORKER_NICENESS 10

/* The news that the worker posts after each block, merged until someone takes it. */
typedef struct {
  gboolean         has_news;
  gboolean         has_progress;  /* latest is set */
  EfRunnerProgress latest;
  GArray          *dirty;         /* owned EfRect */
  gboolean         all_dirty;     /* too many rectangles, or none were given: the whole grid */
  gboolean         finished;      /* a terminal state was seen */
  GError          *error;         /* owned, the failure */
  char            *backend_name;  /* owned */
} RunnerNews;

/* Shared between the worker's callback, the converter thread and the main loop. It outlives the runner,
 * because the worker may report after the runner is gone; it is released once the job itself is freed.
 *
 * Without display values, the worker's news goes straight to `ready` and the main loop. With them, it
 * waits in `pending` for the converter thread, which turns the part of the image that changed into
 * display values (dB, phase, ...) and only then passes the news on: so the main thread never converts,
 * and never hears of a block whose values are not there yet. */
typedef struct {
  gatomicrefcount ref_count;
  GMutex          lock;          /* guards the news, scheduled and stop */
  GCond           cond;          /* pending news, or stop */
  GWeakRef        runner;        /* the EfJobRunner, or NULL once disposed */
  GMainContext   *context;       /* owned */
  gboolean        scheduled;     /* a dispatch is queued on context */
  RunnerNews      pending;       /* for the converter */
  RunnerNews      ready;         /* for the main loop */

  /* Display values. */
  EfJob          *job;           /* borrowed: the converter stops before the job is freed */
  guint           width, height;
  GThread        *converter;     /* owned, or NULL: no display values */
  gboolean        stop;
  gint            mode;          /* atomic: the EfViewMode asked for */
  GMutex          values_lock;   /* guards values and values_mode */
  float          *values;        /* owned, width * height, or NULL before the first block */
  int             values_mode;   /* the EfViewMode that values hold throughout, or -1 */
} RunnerLink;

struct _EfJobRunner {
  GObject           parent_instance;

  EfJob            *job;          /* owned; freed on a helper thread */
  RunnerLink       *link;         /* owned reference */
  EfDataset        *dataset;      /* owned reference */
  EfJobParams       params;
  EfGrid            grid;
  EfRunnerProgress  progress;
  GError           *error;        /* owned */
  char             *backend_name; /* owned */
  char             *note;         /* owned */
  EfRunInfo         run;          /* the job's record as of the last dispatch */
  gboolean          started;
  gboolean          finished;
  gboolean          paused;
  gboolean          values;       /* display values asked for before start */
};

G_DEFINE_FINAL_TYPE (EfJobRunner, ef_job_runner, G_TYPE_OBJECT)

enum {
  SIGNAL_PROGRESS,
  SIGNAL_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];
static gint n_pending_frees;

/* Past this many rectangles between two dispatches, updating the whole grid is cheaper to track. */
#define MAX_DIRTY_RECTS 8192
/* The converter reads and converts about this many pixels at a time, so that a reader on the main
 * thread never waits long for the values' lock. */
#define CONVERT_BAND_PIXELS 65536

static void
news_init (RunnerNews *news)
{
  memset (news, 0, sizeof *news);
  news->dirty = g_array_new (FALSE, FALSE, sizeof (EfRect));
}

static void
news_clear (RunnerNews *news)
{
  g_clear_pointer (&news->dirty, g_array_unref);
  g_clear_error (&news->error);
  g_clear_pointer (&news->backend_name, g_free);
}

static void
news_add_dirty (RunnerNews *news, const EfRect *rects, guint n, gboolean all)
{
  if (news->all_dirty)
    return;
  if (all || news->dirty->len + n > MAX_DIRTY_RECTS)
    {
      news->all_dirty = TRUE;
      g_array_set_size (news->dirty, 0);
    }
  else
    g_array_append_vals (news->dirty, rects, n);
}

/* Moves everything src holds into dst, newer over older; src is left empty. */
static void
news_merge (RunnerNews *dst, RunnerNews *src)
{
  if (!src->has_news)
    return;
  dst->has_news = TRUE;
  if (src->has_progress)
    {
      dst->has_progress = TRUE;
      dst->latest = src->latest;
    }
  news_add_dirty (dst, (const EfRect *) src->dirty->data, src->dirty->len, src->all_dirty);
  dst->finished |= src->finished;
  if (src->error != NULL && dst->error == NULL)
    dst->error = g_steal_pointer (&src->error);
  if (src->backend_name != NULL && dst->backend_name == NULL)
    dst->backend_name = g_steal_pointer (&src->backend_name);
  g_array_set_size (src->dirty, 0);
  src->has_news = src->has_progress = src->all_dirty = src->finished = FALSE;
  g_clear_error (&src->error);
  g_clear_pointer (&src->backend_name, g_free);
}

static RunnerLink *
runner_link_ref (RunnerLink *link)
{
  g_atomic_ref_count_inc (&link->ref_count);
  return link;
}

static void
runner_link_unref (gpointer data)
{
  RunnerLink *link = data;

  if (!g_atomic_ref_count_dec (&link->ref_count))
    return;
  g_assert (link->converter == NULL);
  g_weak_ref_clear (&link->runner);
  g_mutex_clear (&link->lock);
  g_cond_clear (&link->cond);
  g_mutex_clear (&link->values_lock);
  g_main_context_unref (link->context);
  news_clear (&link->pending);
  news_clear (&link->ready);
  g_free (link->values);
  g_free (link);
}

static gboolean
dispatch_progress (gpointer data)
{
  RunnerLink *link = data;
  g_autoptr (EfJobRunner) self = g_weak_ref_get (&link->runner);
  RunnerNews news;
  gboolean was_finished;

  news_init (&news);
  g_mutex_lock (&link->lock);
  link->scheduled = FALSE;
  news_merge (&news, &link->ready);
  g_mutex_unlock (&link->lock);

  if (self == NULL || !news.has_news)
    {
      news_clear (&news);
      return G_SOURCE_REMOVE;
    }
  was_finished = self->finished;
  /* What ran, as of this news (the job's record is complete once it has reported its end). */
  if (!was_finished && self->job != NULL)
    ef_job_get_run_info (self->job, &self->run);
  /* After the end only display values that were made again (another view mode) are news. */
  if (!was_finished && news.has_progress)
    self->progress = news.latest;
  if (news.backend_name != NULL && !was_finished)
    {
      g_free (self->backend_name);
      self->backend_name = g_steal_pointer (&news.backend_name);
      if (self->note == NULL && ef_job_get_note (self->job) != NULL)
        self->note = g_strdup (ef_job_get_note (self->job));
    }
  if (news.all_dirty)
    {
      EfRect whole = { 0, 0, self->grid.width, self->grid.height };
      g_array_set_size (news.dirty, 0);
      g_array_append_val (news.dirty, whole);
    }

  if (news.dirty->len > 0 || (!news.finished && !was_finished))
    g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, news.dirty->data, news.dirty->len);

  if (news.finished && !was_finished)
    {
      self->finished = TRUE;
      if (news.error != NULL)
        self->error = g_steal_pointer (&news.error);
      g_signal_emit (self, signals[SIGNAL_FINISHED], 0, (int) self->progress.state);
    }
  news_clear (&news);
  return G_SOURCE_REMOVE;
}

/* With the lock held: queues one dispatch on the main loop unless one is queued already. */
static void
schedule_dispatch_locked (RunnerLink *link)
{
  GSource *source;

  if (link->scheduled)
    return;
  link->scheduled = TRUE;
  /* A source, not g_main_context_invoke: that would run the dispatch right here, on this thread and with
   * the lock held, whenever no thread happens to own the context (a test spinning iterations). */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, dispatch_progress, runner_link_ref (link), runner_link_unref);
  g_source_set_static_name (source, "[ef-job-runner] progress");
  g_source_attach (source, link->context);
  g_source_unref (source);
}

/* On the worker thread: record, merge, and hand on. Never waits for more than the lock. */
static void
progress_cb (EfJob *job, const EfJobProgress *p, gpointer user_data)
{
  RunnerLink *link = user_data;
  RunnerNews *news;

  g_mutex_lock (&link->lock);
  news = link->converter != NULL ? &link->pending : &link->ready;
  news->has_news = TRUE;
  news->has_progress = TRUE;
  news->latest.state = p->state;
  news->latest.blocks_done = p->blocks_done;
  news->latest.blocks_total = p->blocks_total;
  news->latest.pulses_done = p->pulses_done;
  news->latest.pulses_total = p->pulses_total;
  news->latest.energy_fraction = p->energy_fraction;
  news->latest.elapsed_s = p->elapsed_s;
  news->latest.bp_per_s = p->bp_per_s;
  news->latest.eta_s = p->eta_s;
  if (p->backend_name != NULL && news->backend_name == NULL)
    news->backend_name = g_strdup (p->backend_name);
  if (p->state == EF_JOB_RUNNING || p->state == EF_JOB_DONE || p->state == EF_JOB_PAUSED)
    {
      if (p->dirty == NULL || p->n_dirty == 0)
        {
          /* No tile list: a block with pulses touched everything. */
          if (p->pulses_done > 0 && p->state != EF_JOB_PAUSED)
            news_add_dirty (news, NULL, 0, TRUE);
        }
      else
        news_add_dirty (news, p->dirty, p->n_dirty, FALSE);
    }
  if (p->state == EF_JOB_DONE || p->state == EF_JOB_CANCELLED || p->state == EF_JOB_FAILED)
    {
      news->finished = TRUE;
      if (p->error != NULL && news->error == NULL)
        news->error = g_error_copy (p->error);
    }
  if (link->converter != NULL)
    g_cond_signal (&link->cond);
  else
    schedule_dispatch_locked (link);
  g_mutex_unlock (&link->lock);
}

/* ---- display values --------------------------------------------------------------------------- */

/* Converts rect of the job's image into link->values, band by band. FALSE if the image cannot be read. */
static gboolean
convert_rect (RunnerLink *link, EfViewMode mode, const EfRect *rect, EfCf32 *scratch, float *converted)
{
  guint band = MAX (1u, CONVERT_BAND_PIXELS / MAX (rect->width, 1u));

  for (guint y = rect->y; y < rect->y + rect->height; y += band)
    {
      EfRect r = { rect->x, y, rect->width, MIN (band, rect->y + rect->height - y) };
      gsize n = (gsize) r.width * r.height;

      if (!ef_job_read_image (link->job, &r, scratch, NULL))
        return FALSE;
      ef_display_values_convert (mode, scratch, converted, n);
      g_mutex_lock (&link->values_lock);
      for (guint row = 0; row < r.height; row++)
        memcpy (link->values + (gsize) (r.y + row) * link->width + r.x, converted + (gsize) row * r.width,
                r.width * sizeof (float));
      g_mutex_unlock (&link->values_lock);
    }
  return TRUE;
}

static gpointer
converter_main (gpointer data)
{
  RunnerLink *link = data;
  guint band_rows = MAX (1u, CONVERT_BAND_PIXELS / MAX (link->width, 1u));
  gsize band_max = (gsize) MAX (link->width, 1u) * band_rows;
  g_autofree EfCf32 *scratch = g_new (EfCf32, band_max);
  g_autofree float *converted = g_new (float, band_max);
  RunnerNews take;
  const EfRect whole = { 0, 0, link->width, link->height };

  news_init (&take);
  g_mutex_lock (&link->lock);
  for (;;)
    {
      EfViewMode mode;
      gboolean again, ok = TRUE;

      while (!link->pending.has_news && !link->stop)
        g_cond_wait (&link->cond, &link->lock);
      if (link->stop)
        break;
      news_merge (&take, &link->pending);
      g_mutex_unlock (&link->lock);

      mode = (EfViewMode) g_atomic_int_get (&link->mode);
      if (link->values == NULL && (take.all_dirty || take.dirty->len > 0))
        {
          /* The parts that no block has reached yet hold what a zero pixel shows. */
          float zero = ef_display_values_zero (mode);
          float *values = g_try_new (float, (gsize) link->width * link->height);

          if (values != NULL)
            for (gsize i = 0; i < (gsize) link->width * link->height; i++)
              values[i] = zero;
          g_mutex_lock (&link->values_lock);
          link->values = values;
          link->values_mode = values != NULL ? (int) mode : -1;
          g_mutex_unlock (&link->values_lock);
        }
      if (link->values != NULL)
        {
          /* Another mode was asked for: every pixel again, and the values are of no mode meanwhile. */
          again = link->values_mode != (int) mode;
          if (again)
            {
              g_mutex_lock (&link->values_lock);
              link->values_mode = -1;
              g_mutex_unlock (&link->values_lock);
              news_add_dirty (&take, NULL, 0, TRUE);
            }
          if (take.all_dirty)
            ok = convert_rect (link, mode, &whole, scratch, converted);
          else
            for (guint i = 0; ok && i < take.dirty->len; i++)
              {
                EfRect r = g_array_index (take.dirty, EfRect, i);

                r.width = MIN (r.width, link->width - MIN (r.x, link->width));
                r.height = MIN (r.height, link->height - MIN (r.y, link->height));
                if (r.width > 0 && r.height > 0)
                  ok = convert_rect (link, mode, &r, scratch, converted);
              }
          if (again && ok)
            {
              g_mutex_lock (&link->values_lock);
              link->values_mode = (int) mode;
              g_mutex_unlock (&link->values_lock);
            }
        }

      g_mutex_lock (&link->lock);
      news_merge (&link->ready, &take);
      schedule_dispatch_locked (link);
    }
  g_mutex_unlock (&link->lock);
  news_clear (&take);
  runner_link_unref (link);
  return NULL;
}

/* Stops the converter, if any, and waits for it; before the job it reads is freed. */
static void
converter_stop (RunnerLink *link)
{
  GThread *thread;

  g_mutex_lock (&link->lock);
  link->stop = TRUE;
  thread = g_steal_pointer (&link->converter);
  /* Whatever news was waiting goes to the main loop unconverted: the runner is gone or going. */
  news_merge (&link->ready, &link->pending);
  g_cond_broadcast (&link->cond);
  g_mutex_unlock (&link->lock);
  if (thread != NULL)
    g_thread_join (thread);
}

typedef struct {
  EfJob      *job;     /* owned */
  RunnerLink *link;    /* owned reference */
} FreeJob;

static void
free_job_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  FreeJob *fj = task_data;

  converter_stop (fj->link);
  /* Waits for at most one block: the job was cancelled before it got here. */
  g_clear_pointer (&fj->job, ef_job_free);
  g_task_return_boolean (task, TRUE);
}

static void
free_job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FreeJob *fj = g_task_get_task_data (G_TASK (result));

  /* The link must outlive the job: the worker's last callback may still be on its way. */
  g_clear_pointer (&fj->link, runner_link_unref);
  g_atomic_int_dec_and_test (&n_pending_frees);
}

static void
ef_job_runner_dispose (GObject *object)
{
  EfJobRunner *self = EF_JOB_RUNNER (object);

  if (self->link != NULL)
    g_weak_ref_set (&self->link->runner, NULL);
  if (self->job != NULL)
    {
      if (self->started)
        {
          g_autoptr (GTask) task = NULL;
          FreeJob *fj = g_new0 (FreeJob, 1);

          ef_job_cancel (self->job);
          if (self->paused)
            ef_job_resume (self->job);
          g_atomic_int_inc (&n_pending_frees);
          fj->job = g_steal_pointer (&self->job);
          fj->link = g_steal_pointer (&self->link);
          task = g_task_new (NULL, NULL, free_job_done, NULL);
          g_task_set_task_data (task, fj, g_free);
          g_task_run_in_thread (task, free_job_thread);
        }
      else
        g_clear_pointer (&self->job, ef_job_free);
    }
  g_clear_pointer (&self->link, runner_link_unref);
  g_clear_pointer (&self->dataset, ef_dataset_unref);

  G_OBJECT_CLASS (ef_job_runner_parent_class)->dispose (object);
}

static void
ef_job_runner_finalize (GObject *object)
{
  EfJobRunner *self = EF_JOB_RUNNER (object);

  g_clear_error (&self->error);
  g_free (self->backend_name);
  g_free (self->note);
  ef_run_info_clear (&self->run);
  G_OBJECT_CLASS (ef_job_runner_parent_class)->finalize (object);
}

static void
ef_job_runner_class_init (EfJobRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ef_job_runner_dispose;
  object_class->finalize = ef_job_runner_finalize;

  /**
   * EfJobRunner::progress:
   * @dirty: (array length=n_dirty): rectangles changed since the last emission, borrowed
   *
   * The accumulator changed; read it with ef_job_runner_read().
   */
  signals[SIGNAL_PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_UINT);
  /**
   * EfJobRunner::finished:
   * @state: the EfJobState it ended in
   */
  signals[SIGNAL_FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
}

static void
ef_job_runner_init (EfJobRunner *self)
{
}

EfJobRunner *
ef_job_runner_new (EfDataset *dataset, const EfJobParams *params, GError **error)
{
  g_autoptr (EfJobRunner) self = NULL;
  EfJob *job;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (params != NULL, NULL);

  job = ef_job_new (dataset, params, error);
  if (job == NULL)
    return NULL;

  self = g_object_new (EF_TYPE_JOB_RUNNER, NULL);
  self->job = job;
  ef_job_get_run_info (job, &self->run);
  self->dataset = ef_dataset_ref (dataset);
  self->params = *params;
  self->grid = params->backend.grid;
  self->progress.state = EF_JOB_RUNNING;

  self->link = g_new0 (RunnerLink, 1);
  g_atomic_ref_count_init (&self->link->ref_count);
  g_mutex_init (&self->link->lock);
  g_cond_init (&self->link->cond);
  g_mutex_init (&self->link->values_lock);
  g_weak_ref_init (&self->link->runner, self);
  self->link->context = g_main_context_ref_thread_default ();
  news_init (&self->link->pending);
  news_init (&self->link->ready);
  self->link->job = job;
  self->link->width = self->grid.width;
  self->link->height = self->grid.height;
  self->link->values_mode = -1;
  return g_steal_pointer (&self);
}

static gpointer
start_thread (gpointer data)
{
  EfJobRunner *self = data;

#ifdef __linux__
  /* On Linux the niceness belongs to the thread and is inherited by the threads it creates: the
   * job's worker, its reader and the worker's OpenMP team start nicer than the user interface. The
   * main thread itself could not be made nice and then restored without privileges. */
  if (setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), WORKER_NICENESS) != 0)
    g_debug ("The job keeps the interface's priority: %s", g_strerror (errno));
#endif
  /* The converter starts first, so that the first block's news finds it; it is as nice as the job. */
  if (self->values)
    self->link->converter = g_thread_new ("ef-job-values", converter_main, runner_link_ref (self->link));
  ef_job_start (self->job, progress_cb, self->link);
  return NULL;
}

void
ef_job_runner_start (EfJobRunner *self)
{
  g_return_if_fail (EF_IS_JOB_RUNNER (self));
  g_return_if_fail (!self->started);

  self->started = TRUE;
  /* Starting a thread takes microseconds; joining it here keeps start() simple to reason about. */
  g_thread_join (g_thread_new ("ef-job-start", start_thread, self));
}

void
ef_job_runner_cancel (EfJobRunner *self)
{
  g_return_if_fail (EF_IS_JOB_RUNNER (self));
  if (self->job == NULL || self->finished)
    return;
  if (self->paused)
    {
      ef_job_resume (self->job);
      self->paused = FALSE;
    }
  ef_job_cancel (self->job);
}

void
ef_job_runner_pause (EfJobRunner *self)
{
  g_return_if_fail (EF_IS_JOB_RUNNER (self));
  if (self->job == NULL || self->finished || self->paused)
    return;
  self->paused = TRUE;
  ef_job_pause (self->job);
}

void
ef_job_runner_resume (EfJobRunner *self)
{
  g_return_if_fail (EF_IS_JOB_RUNNER (self));
  if (self->job == NULL || self->finished || !self->paused)
    return;
  self->paused = FALSE;
  ef_job_resume (self->job);
}

gboolean
ef_job_runner_is_running (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), FALSE);
  return self->started && !self->finished;
}

gboolean
ef_job_runner_is_paused (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), FALSE);
  return self->paused && !self->finished;
}

const EfRunnerProgress *
ef_job_runner_get_progress (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return &self->progress;
}

const EfGrid *
ef_job_runner_get_grid (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return &self->grid;
}

const EfJobParams *
ef_job_runner_get_params (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return &self->params;
}

EfDataset *
ef_job_runner_get_dataset (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return self->dataset;
}

const char *
ef_job_runner_get_backend_name (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return self->backend_name;
}

const char *
ef_job_runner_get_note (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return self->note;
}

const EfRunInfo *
ef_job_runner_get_run_info (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return &self->run;
}

const GError *
ef_job_runner_get_error (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
  return self->error;
}

gboolean
ef_job_runner_read (EfJobRunner *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), FALSE);
  g_return_val_if_fail (rect != NULL && out != NULL, FALSE);
  g_return_val_if_fail (self->job != NULL, FALSE);
  return ef_job_read_image (self->job, rect, out, error);
}

EfCudaImage *
ef_job_runner_ref_device_image (EfJobRunner *self)
{
  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), NULL);
#if HAVE_CUDA
  return self->job != NULL ? ef_cuda_image_from_device (ef_job_ref_device_image (self->job)) : NULL;
#else
  return NULL;
#endif
}

guint
ef_job_runner_get_n_pending_frees (void)
{
  return (guint) g_atomic_int_get (&n_pending_frees);
}

void
ef_job_runner_enable_values (EfJobRunner *self, EfViewMode mode)
{
  g_return_if_fail (EF_IS_JOB_RUNNER (self));
  g_return_if_fail (!self->started);
  g_return_if_fail ((guint) mode < EF_VIEW_N);

  self->values = TRUE;
  g_atomic_int_set (&self->link->mode, (gint) mode);
}

void
ef_job_runner_set_values_mode (EfJobRunner *self, EfViewMode mode)
{
  g_return_if_fail (EF_IS_JOB_RUNNER (self));
  g_return_if_fail ((guint) mode < EF_VIEW_N);

  if (self->link == NULL || g_atomic_int_get (&self->link->mode) == (gint) mode)
    return;
  g_atomic_int_set (&self->link->mode, (gint) mode);
  g_mutex_lock (&self->link->lock);
  if (self->link->converter != NULL)
    {
      /* Nothing changed in the image; the converter makes every value again and says so. */
      self->link->pending.has_news = TRUE;
      g_cond_signal (&self->link->cond);
    }
  g_mutex_unlock (&self->link->lock);
}

gboolean
ef_job_runner_read_values (EfJobRunner *self, EfViewMode mode, const EfRect *rect, float *out)
{
  RunnerLink *link;
  gboolean ok;

  g_return_val_if_fail (EF_IS_JOB_RUNNER (self), FALSE);
  g_return_val_if_fail (rect != NULL && out != NULL, FALSE);

  link = self->link;
  if (link == NULL || rect->x + (guint64) rect->width > link->width
      || rect->y + (guint64) rect->height > link->height)
    return FALSE;
  g_mutex_lock (&link->values_lock);
  ok = link->values != NULL && link->values_mode == (int) mode;
  if (ok)
    for (guint r = 0; r < rect->height; r++)
      memcpy (out + (gsize) r * rect->width, link->values + (gsize) (rect->y + r) * link->width + rect->x,
              rect->width * sizeof (float));
  g_mutex_unlock (&link->values_lock);
  return ok;
}
