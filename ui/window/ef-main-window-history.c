/* ef-main-window-history.c: the region's history: undo and redo of region changes. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <string.h>

#include "ef-main-window-private.h"

/* The history keeps this many regions back; a drag is one change (the view reports its end only). */
#define MAX_ROI_UNDO 100

void
ef_main_window_remember_roi (EfMainWindow *self)
{
  EfRoiState state = { self->has_roi, { 0 } };

  if (self->roi_restoring)
    return;
  memcpy (state.roi, self->roi, sizeof state.roi);
  if (self->roi_undo->len >= MAX_ROI_UNDO)
    g_array_remove_index (self->roi_undo, 0);
  g_array_append_val (self->roi_undo, state);
  g_array_set_size (self->roi_redo, 0);
}

static void
restore_roi (EfMainWindow *self, GArray *from, GArray *to)
{
  EfRoiState now = { self->has_roi, { 0 } }, then;

  if (from->len == 0)
    return;
  then = g_array_index (from, EfRoiState, from->len - 1);
  g_array_remove_index (from, from->len - 1);
  memcpy (now.roi, self->roi, sizeof now.roi);
  g_array_append_val (to, now);
  self->roi_restoring = TRUE;
  ef_main_window_set_roi (self, then.has_roi ? then.roi : NULL);
  self->roi_restoring = FALSE;
  ef_main_window_actions_sync (self);
}

void
ef_main_window_undo_region (EfMainWindow *self)
{
  g_return_if_fail (EF_IS_MAIN_WINDOW (self));
  restore_roi (self, self->roi_undo, self->roi_redo);
}

void
ef_main_window_redo_region (EfMainWindow *self)
{
  g_return_if_fail (EF_IS_MAIN_WINDOW (self));
  restore_roi (self, self->roi_redo, self->roi_undo);
}
