/* ef-main-window-test.c: the main window's test-only interface (ef-main-window-test.h), built with -Dtest_hooks=true. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include "ef-main-window-test.h"

EfJobRunner *
ef_main_window_get_roi_runner (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), NULL);
  return self->roi_runner;
}

EfJobRunner *
ef_main_window_get_overview_runner (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), NULL);
  return self->overview;
}

gboolean
ef_main_window_is_idle (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), TRUE);
  if (self->overview != NULL && ef_job_runner_is_running (self->overview))
    return FALSE;
  if (self->roi_pending || self->n_histograms > 0)
    return FALSE;
  if (self->roi_runner != NULL && ef_job_runner_is_running (self->roi_runner))
    return FALSE;
  return ef_image_view_is_settled (self->image_view);
}

const char *
ef_main_window_get_last_toast (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), NULL);
  return self->last_toast;
}

AdwToast *
ef_main_window_get_last_toast_object (EfMainWindow *self)
{
  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), NULL);
  return self->last_toast_object;
}
