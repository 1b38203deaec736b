/* ef-main-window-verify.c: the region checked against exact backprojection at a sample of its pixels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ef-verify.h"
#include "ef-main-window-private.h"

/* Pixels sampled, and the seed that picks them: the same region checked twice gives the same answer. */
#define VERIFY_PIXELS 256
#define VERIFY_SEED 1

typedef struct {
  EfDataset      *dataset;   /* owned reference */
  EfRangeParams   range;
  EfGrid          grid;
  EfCf32         *image;     /* owned: the region as formed */
  EfVerifyParams  params;
  EfVerifyResult  result;
} VerifyData;

static void
verify_data_free (gpointer data)
{
  VerifyData *d = data;

  g_clear_pointer (&d->dataset, ef_dataset_unref);
  g_free (d->image);
  g_free (d);
}

static void
verify_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  VerifyData *d = task_data;
  GError *error = NULL;

  if (ef_verify_image (d->dataset, &d->range, &d->grid, d->image, &d->params, cancellable, &d->result,
                       &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
verify_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (source);
  GTask *task = G_TASK (result);
  VerifyData *d = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean ok = g_task_propagate_boolean (task, &error);

  /* A check that was stopped, or replaced by a newer region, or outlived by its window, says nothing. */
  if (g_task_get_cancellable (task) != self->verify_cancellable)
    return;
  g_clear_object (&self->verify_cancellable);
  if (!ok)
    {
      text = g_strdup_printf (_("The check failed: %s"), error->message);
      ef_processing_panel_set_verify (self->processing_panel, text, FALSE);
      ef_main_window_toast (self, text);
      ef_main_window_actions_sync (self);
      g_signal_emit_by_name (self, "verify-finished", FALSE, 0.0, 0u);
      return;
    }
  self->verify_ser_db = d->result.ser_db;
  self->verify_n_pixels = d->result.n_pixels;
  /* Translators: "54.2 dB signal-to-error ratio at 256 pixels, against exact float64 backprojection" */
  if (isfinite (d->result.ser_db))
    text = g_strdup_printf (_("%.1f dB signal-to-error ratio at %u pixels, against exact float64 "
                              "backprojection"), d->result.ser_db, d->result.n_pixels);
  else
    text = g_strdup_printf (_("Equal to exact float64 backprojection at %u pixels"), d->result.n_pixels);
  ef_processing_panel_set_verify (self->processing_panel, text, FALSE);
  ef_main_window_toast (self, text);
  ef_main_window_actions_sync (self);
  g_signal_emit_by_name (self, "verify-finished", TRUE, d->result.ser_db, d->result.n_pixels);
}

gboolean
ef_main_window_verify_available (EfMainWindow *self)
{
  return self->roi_runner != NULL && !ef_job_runner_is_running (self->roi_runner)
         && ef_job_runner_get_progress (self->roi_runner)->state == EF_JOB_DONE;
}

gboolean
ef_main_window_verify_running (EfMainWindow *self)
{
  return self->verify_cancellable != NULL;
}

void
ef_main_window_verify_reset (EfMainWindow *self)
{
  if (self->verify_cancellable != NULL)
    g_cancellable_cancel (self->verify_cancellable);
  g_clear_object (&self->verify_cancellable);
  self->verify_ser_db = NAN;
  self->verify_n_pixels = 0;
  if (self->processing_panel != NULL)
    ef_processing_panel_set_verify (self->processing_panel, NULL, FALSE);
}

void
ef_main_window_verify_region (EfMainWindow *self)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  const EfJobParams *jp;
  VerifyData *d;
  EfRect all;

  g_return_if_fail (EF_IS_MAIN_WINDOW (self));

  /* The same action stops a check in flight. */
  if (self->verify_cancellable != NULL)
    {
      ef_main_window_verify_reset (self);
      ef_processing_panel_set_verify (self->processing_panel, _("Stopped"), FALSE);
      ef_main_window_actions_sync (self);
      return;
    }
  if (!ef_main_window_verify_available (self))
    {
      ef_main_window_toast (self, _("Form a region first"));
      return;
    }

  d = g_new0 (VerifyData, 1);
  jp = ef_job_runner_get_params (self->roi_runner);
  d->dataset = ef_dataset_ref (ef_job_runner_get_dataset (self->roi_runner));
  d->range = jp->backend.range;
  d->grid = *ef_job_runner_get_grid (self->roi_runner);
  ef_verify_params_init (&d->params);
  d->params.n_pixels = VERIFY_PIXELS;
  d->params.seed = VERIFY_SEED;
  d->params.first_pulse = jp->first_pulse;
  d->params.n_pulses = jp->n_pulses;
  d->params.pulse_stride = jp->pulse_stride;
  /* One copy of the region, made here: the job's image may be replaced by the next region meanwhile. */
  all = (EfRect) { 0, 0, d->grid.width, d->grid.height };
  d->image = g_try_new (EfCf32, ef_grid_n_pixels (&d->grid));
  if (d->image == NULL || !ef_job_runner_read (self->roi_runner, &all, d->image, &error))
    {
      text = g_strdup_printf (_("The check failed: %s"),
                              error != NULL ? error->message : _("not enough memory"));
      ef_main_window_toast (self, text);
      verify_data_free (d);
      return;
    }

  self->verify_cancellable = g_cancellable_new ();
  task = g_task_new (self, self->verify_cancellable, verify_done, NULL);
  g_task_set_task_data (task, d, verify_data_free);
  g_task_set_name (task, "ef-verify-region");
  g_task_run_in_thread (task, verify_thread);

  text = g_strdup_printf (_("Backprojecting %u pixels exactly…"),
                          (guint) MIN ((gsize) VERIFY_PIXELS, ef_grid_n_pixels (&d->grid)));
  ef_processing_panel_set_verify (self->processing_panel, text, TRUE);
  ef_main_window_actions_sync (self);
}
