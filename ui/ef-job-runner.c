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

/* Workers run this much nicer than the main thread, so that drawing and input keep the processor
 * they need on a machine whose every core is forming an image. Idle cores still go to the job. */
#define WORKER_NICENESS 10

/* Shared between the worker's callback and the main loop. It outlives the runner, because the worker
 * may report after the runner is gone; it is released once the job itself is freed. */
typedef struct {
  gatomicrefcount ref_count;
  GMutex          lock;
  GWeakRef        runner;        /* the EfJobRunner, or NULL once disposed */
  GMainContext   *context;       /* owned */
  gboolean        scheduled;     /* a dispatch is queued on context */
  EfRunnerProgress latest;
  GArray         *dirty;         /* owned EfRect, accumulated since the last dispatch */
  gboolean        all_dirty;     /* too many rectangles, or none were given: the whole grid */
  gboolean        finished;      /* a terminal state was seen */
  GError         *error;         /* owned, the failure */
  char           *backend_name;  /* owned */
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
  gboolean          started;
  gboolean          finished;
  gboolean          paused;
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
  g_weak_ref_clear (&link->runner);
  g_mutex_clear (&link->lock);
  g_main_context_unref (link->context);
  g_array_unref (link->dirty);
  g_clear_error (&link->error);
  g_free (link->backend_name);
  g_free (link);
}

static gboolean
dispatch_progress (gpointer data)
{
  RunnerLink *link = data;
  g_autoptr (EfJobRunner) self = g_weak_ref_get (&link->runner);
  g_autoptr (GArray) dirty = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *backend_name = NULL;
  EfRunnerProgress latest;
  gboolean all_dirty, finished;

  g_mutex_lock (&link->lock);
  link->scheduled = FALSE;
  latest = link->latest;
  dirty = link->dirty;
  link->dirty = g_array_new (FALSE, FALSE, sizeof (EfRect));
  all_dirty = link->all_dirty;
  link->all_dirty = FALSE;
  finished = link->finished;
  error = g_steal_pointer (&link->error);
  backend_name = g_steal_pointer (&link->backend_name);
  g_mutex_unlock (&link->lock);

  if (self == NULL || self->finished)
    return G_SOURCE_REMOVE;

  self->progress = latest;
  if (backend_name != NULL)
    {
      g_free (self->backend_name);
      self->backend_name = g_steal_pointer (&backend_name);
      if (self->note == NULL && ef_job_get_note (self->job) != NULL)
        self->note = g_strdup (ef_job_get_note (self->job));
    }
  if (all_dirty)
    {
      EfRect whole = { 0, 0, self->grid.width, self->grid.height };
      g_array_set_size (dirty, 0);
      g_array_append_val (dirty, whole);
    }

  if (dirty->len > 0 || !finished)
    g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, dirty->data, dirty->len);

  if (finished)
    {
      self->finished = TRUE;
      if (error != NULL)
        self->error = g_steal_pointer (&error);
      g_signal_emit (self, signals[SIGNAL_FINISHED], 0, (int) self->progress.state);
    }
  return G_SOURCE_REMOVE;
}

/* On the worker thread: record, merge, and queue at most one dispatch. */
static void
progress_cb (EfJob *job, const EfJobProgress *p, gpointer user_data)
{
  RunnerLink *link = user_data;
  gboolean schedule = FALSE;

  g_mutex_lock (&link->lock);
  link->latest.state = p->state;
  link->latest.blocks_done = p->blocks_done;
  link->latest.blocks_total = p->blocks_total;
  link->latest.pulses_done = p->pulses_done;
  link->latest.pulses_total = p->pulses_total;
  link->latest.elapsed_s = p->elapsed_s;
  link->latest.bp_per_s = p->bp_per_s;
  link->latest.eta_s = p->eta_s;
  if (p->backend_name != NULL && link->backend_name == NULL)
    link->backend_name = g_strdup (p->backend_name);
  if (p->state == EF_JOB_RUNNING || p->state == EF_JOB_DONE || p->state == EF_JOB_PAUSED)
    {
      if (p->dirty == NULL || p->n_dirty == 0)
        {
          /* No tile list: a block with pulses touched everything. */
          if (p->pulses_done > 0 && p->state != EF_JOB_PAUSED)
            link->all_dirty = TRUE;
        }
      else if (!link->all_dirty)
        {
          if (link->dirty->len + p->n_dirty > MAX_DIRTY_RECTS)
            {
              link->all_dirty = TRUE;
              g_array_set_size (link->dirty, 0);
            }
          else
            g_array_append_vals (link->dirty, p->dirty, p->n_dirty);
        }
    }
  if (p->state == EF_JOB_DONE || p->state == EF_JOB_CANCELLED || p->state == EF_JOB_FAILED)
    {
      link->finished = TRUE;
      if (p->error != NULL && link->error == NULL)
        link->error = g_error_copy (p->error);
    }
  if (!link->scheduled)
    {
      link->scheduled = TRUE;
      schedule = TRUE;
    }
  g_mutex_unlock (&link->lock);

  if (schedule)
    g_main_context_invoke_full (link->context, G_PRIORITY_DEFAULT, dispatch_progress, runner_link_ref (link),
                                runner_link_unref);
}

static void
free_job_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  EfJob *job = task_data;

  /* Waits for at most one block: the job was cancelled before it got here. */
  ef_job_free (job);
  g_task_return_boolean (task, TRUE);
}

static void
free_job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RunnerLink *link = user_data;

  runner_link_unref (link);
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

          ef_job_cancel (self->job);
          if (self->paused)
            ef_job_resume (self->job);
          g_atomic_int_inc (&n_pending_frees);
          /* The link must outlive the job: the worker's last callback may still be on its way. */
          task = g_task_new (NULL, NULL, free_job_done, g_steal_pointer (&self->link));
          g_task_set_task_data (task, g_steal_pointer (&self->job), NULL);
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
  self->dataset = ef_dataset_ref (dataset);
  self->params = *params;
  self->grid = params->backend.grid;
  self->progress.state = EF_JOB_RUNNING;

  self->link = g_new0 (RunnerLink, 1);
  g_atomic_ref_count_init (&self->link->ref_count);
  g_mutex_init (&self->link->lock);
  g_weak_ref_init (&self->link->runner, self);
  self->link->context = g_main_context_ref_thread_default ();
  self->link->dirty = g_array_new (FALSE, FALSE, sizeof (EfRect));
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
  return self->job != NULL ? ef_job_ref_device_image (self->job) : NULL;
}

guint
ef_job_runner_get_n_pending_frees (void)
{
  return (guint) g_atomic_int_get (&n_pending_frees);
}
