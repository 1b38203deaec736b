/* ef-main-window-test.h: what only tests and benches ask of the main window: its jobs, idleness, last toast. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-main-window-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-main-window-private.h"

G_BEGIN_DECLS

/* The jobs in flight or last run, or NULL; borrowed. */
EfJobRunner *ef_main_window_get_roi_runner (EfMainWindow *self);
EfJobRunner *ef_main_window_get_overview_runner (EfMainWindow *self);
/* TRUE once the overview and any region have finished and the view shows all of them. */
gboolean     ef_main_window_is_idle (EfMainWindow *self);
/* The newest toast's message, or NULL; borrowed. */
const char  *ef_main_window_get_last_toast (EfMainWindow *self);
/* The newest toast itself, or NULL; borrowed. */
AdwToast    *ef_main_window_get_last_toast_object (EfMainWindow *self);

G_END_DECLS
