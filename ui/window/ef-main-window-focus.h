/* ef-main-window-focus.h: the window's autofocus actions ("win.autofocus" with "pga" or "sharpness", "win.autofocus-clear"). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-main-window.h"
#include "ef-run-info.h"

G_BEGIN_DECLS

/* Adds the actions; called once from the window's init. */
void          ef_main_window_focus_init (EfMainWindow *self);
/* TRUE while the region forms from phase-corrected pulses. */
gboolean      ef_main_window_focus_applied (EfMainWindow *self);
/* The last estimate (borrowed, the collection's pulses in *n), or NULL. */
const double *ef_main_window_focus_phase (EfMainWindow *self, guint64 *n);
/* The window that plots the last estimate (borrowed), or NULL when none is shown. */
GtkWindow    *ef_main_window_focus_get_plot (EfMainWindow *self);
/* Adds the autofocus to run, the record of a job over dataset, when dataset is the corrected one. */
void          ef_main_window_focus_record (EfMainWindow *self, EfDataset *dataset, EfRunInfo *run);

G_END_DECLS
