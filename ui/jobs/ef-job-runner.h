/* ef-job-runner.h: a progressive job seen from the main loop: coalesced progress, no waiting. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "ef-colormap.h"
#include "ef-job.h"

G_BEGIN_DECLS

#define EF_TYPE_JOB_RUNNER (ef_job_runner_get_type ())
G_DECLARE_FINAL_TYPE (EfJobRunner, ef_job_runner, EF, JOB_RUNNER, GObject)

/* A copy of the worker's news, owned by the runner and valid on the main thread. */
typedef struct {
  EfJobState state;
  guint      blocks_done, blocks_total;
  guint64    pulses_done, pulses_total;
  double     energy_fraction;  /* as EfJobProgress's */
  double     elapsed_s, bp_per_s, eta_s;
} EfRunnerProgress;

/* Makes a job over dataset (a reference is taken) with params copied. Nothing runs until start. */
EfJobRunner *ef_job_runner_new (EfDataset *dataset, const EfJobParams *params, GError **error);
/* Starts the worker; returns at once. "progress" and "finished" are emitted on the main context that
 * was current here, at most once per main-loop iteration however fast blocks complete. */
void ef_job_runner_start (EfJobRunner *self);
/* These return at once. Cancel asks the worker to stop after its block; "finished" follows. */
void ef_job_runner_cancel (EfJobRunner *self);
void ef_job_runner_pause (EfJobRunner *self);
void ef_job_runner_resume (EfJobRunner *self);

gboolean                ef_job_runner_is_running (EfJobRunner *self);
gboolean                ef_job_runner_is_paused (EfJobRunner *self);
const EfRunnerProgress *ef_job_runner_get_progress (EfJobRunner *self);
const EfGrid           *ef_job_runner_get_grid (EfJobRunner *self);
const EfJobParams      *ef_job_runner_get_params (EfJobRunner *self);
EfDataset              *ef_job_runner_get_dataset (EfJobRunner *self);
/* The backend in use once known, and its fallback note; NULL before. */
const char             *ef_job_runner_get_backend_name (EfJobRunner *self);
const char             *ef_job_runner_get_note (EfJobRunner *self);
/* What the job ran (ef-run-info.h), as of the last "progress" or "finished": the request before the
 * backend exists; complete (non-finite pixels included) once "finished" has been emitted. Owned by the
 * runner; main thread. */
const EfRunInfo        *ef_job_runner_get_run_info (EfJobRunner *self);
/* The failure, once "finished" reported EF_JOB_FAILED. */
const GError           *ef_job_runner_get_error (EfJobRunner *self);

/* Copies a rectangle of the accumulator; safe while the job runs and never waits for a block. */
gboolean ef_job_runner_read (EfJobRunner *self, const EfRect *rect, EfCf32 *out, GError **error);

/* Display values: a helper thread of the job, as nice as its worker, turns the part of the image that
 * each block changed into the quantity that mode shows (ef_display_values_convert), before "progress"
 * reports it, so that a display only copies values. Call before start; without it nothing is converted.
 * A job whose image the display reads on its device needs none. */
void     ef_job_runner_enable_values (EfJobRunner *self, EfViewMode mode);
/* Asks for another mode: every value is made again off the main thread, and a "progress" covering the
 * whole grid follows (also after the end). Until then read_values fails for the new mode. */
void     ef_job_runner_set_values_mode (EfJobRunner *self, EfViewMode mode);
/* Copies a rectangle of the display values of mode; FALSE (nothing copied) when they are not kept, or
 * not for that mode just now. Never waits for more than a band's copy. */
gboolean ef_job_runner_read_values (EfJobRunner *self, EfViewMode mode, const EfRect *rect, float *out);

/* The job's image on its CUDA device, with a new reference (see ef_job_ref_device_image), or NULL:
 * before the backend exists, on other backends, without CUDA. Never waits. */
typedef struct _EfCudaImage EfCudaImage;
EfCudaImage *ef_job_runner_ref_device_image (EfJobRunner *self);

/* Jobs are freed on a helper thread after the last reference goes, because freeing waits for the
 * worker. This counts those still being freed, so that the application's shutdown (and a test) can
 * wait for them. */
guint ef_job_runner_get_n_pending_frees (void);

G_END_DECLS
