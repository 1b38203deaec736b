/* ef-job.h: the progressive image-formation job, one pulse block at a time on a worker thread. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-backend.h"

G_BEGIN_DECLS

typedef struct {
  EfBackendParams backend;
  EfBackendKind   backend_kind;
  EfOrder         order;
  guint           pulse_stride;   /* use every n-th pulse (1 = all; >1 for quick overviews) */
  guint64         first_pulse;    /* sub-aperture: [first_pulse, first_pulse + n_pulses) */
  guint64         n_pulses;       /* 0 = to the end */
  /* A share of the pulses above, [share_first, share_first + share_count) counted among the pulses used
   * (after the stride); share_count 0 = all of them. Only the share is read and formed, but the
   * cross-range weighting still spans every pulse above, so that images formed from disjoint shares sum
   * to the image of the whole (echoform-cli form's pulse decomposition under MPI). */
  guint64         share_first;
  guint64         share_count;
  /* How often the worker copies the accumulator for ef_job_read_image and reports dirty tiles:
   * 0 = after every block (the default: what a display wants); > 0 = at most once per this many
   * seconds; < 0 = only at the end. Reading the image back waits for the device, so a batch run
   * that does not display sets it < 0 and keeps the device busy. */
  double          publish_interval_s;
  /* On a backend whose image stays on a device that the caller reads in place (a single CUDA device;
   * see ef_job_ref_device_image), never copy the image to host memory: not after a block, not at the
   * end. Dirty tiles are still reported after every block, and the end is reported once the device has
   * finished. ef_job_read_image then copies from the device when asked. Ignored on other backends. */
  gboolean        no_host_image;
} EfJobParams;

void ef_job_params_init (EfJobParams *params, const EfGrid *grid);

typedef enum {
  EF_JOB_RUNNING,
  EF_JOB_PAUSED,
  EF_JOB_DONE,
  EF_JOB_CANCELLED,
  EF_JOB_FAILED,
} EfJobState;

typedef struct {
  EfJobState state;
  guint      blocks_done;
  guint      blocks_total;
  guint64    pulses_done;
  guint64    pulses_total;
  double     energy_fraction; /* the share of the finished image's energy the pulses so far carry: the sum
                               * of their squared cross-range weights over the whole aperture's, which is
                               * pulses_done / pulses_total when the aperture is not weighted */
  double     elapsed_s;
  double     bp_per_s;        /* pixel-pulse backprojections per second so far */
  double     eta_s;
  const EfRect *dirty;        /* borrowed, valid during the callback: tiles changed since the last
                               * report that had any (none when publish_interval_s skipped this one) */
  guint      n_dirty;
  const char *backend_name;
  const GError *error;        /* when state == EF_JOB_FAILED */
} EfJobProgress;

/* Called on the worker thread after each block and once at the end. It must not block; a GUI hands
 * the news to its main loop with g_idle_add or g_main_context_invoke. */
typedef void (*EfJobProgressFunc) (EfJob *job, const EfJobProgress *progress, gpointer user_data);

/* Creates a job over dataset (a new reference is taken) with params copied. Nothing runs yet.
 * FFBP and FBP blocks are at least 256 pulses long, since shorter sub-apertures gain nothing. */
EfJob *ef_job_new (EfDataset *dataset, const EfJobParams *params, GError **error);
/* Starts the worker thread. Returns at once. */
void   ef_job_start (EfJob *job, EfJobProgressFunc func, gpointer user_data);
/* Runs to the end on the calling thread (the CLI); returns FALSE with error on failure or cancel. */
gboolean ef_job_run (EfJob *job, EfJobProgressFunc func, gpointer user_data, GError **error);
/* Asks the worker to stop after the current block. Returns at once; never blocks. */
void   ef_job_cancel (EfJob *job);
void   ef_job_pause (EfJob *job);
void   ef_job_resume (EfJob *job);
/* Waits for the worker to end. Returns TRUE if the job completed. */
gboolean ef_job_wait (EfJob *job, GError **error);
/* Cancels, waits and frees. Safe on a job that never started. */
void   ef_job_free (EfJob *job);

EfJobState ef_job_get_state (EfJob *job);
const EfGrid *ef_job_get_grid (EfJob *job);
/* The backend's name once the job has started ("cpu", "cuda"), and its fallback note, if any. */
const char *ef_job_get_backend_name (EfJob *job);
const char *ef_job_get_note (EfJob *job);
/* What the job has run so far (ef-run-info.h), deep-copied into out (which must hold a record or zeros;
 * clear it with ef_run_info_clear): the request until the backend exists, then the backend's record as
 * of the last block, and at the end, once the image is complete, its non-finite pixels. Thread-safe;
 * never blocks for more than the copy. */
void ef_job_get_run_info (EfJob *job, EfRunInfo *out);

/* Copies a rectangle of the current accumulator into out (rect->width * rect->height). Safe from any
 * thread while the job runs; may wait for at most the copy itself, never for a block. */
gboolean ef_job_read_image (EfJob *job, const EfRect *rect, EfCf32 *out, GError **error);

/* The job's device-resident image, with a new reference, once the job's backend exists and keeps its
 * image in an accelerator's memory (one CUDA device: ef_cuda_image_from_device turns it into the
 * EfCudaImage a display writes from); NULL before that and on other backends. It stays valid after the
 * job ends, for as long as the reference is held. Thread-safe; never blocks. */
EfDeviceImage *ef_job_ref_device_image (EfJob *job);

/* Bit-reversed permutation of 0..n-1 (for any n), written into order. */
void ef_job_interleaved_order (guint n, guint *order);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfJob, ef_job_free)

G_END_DECLS
