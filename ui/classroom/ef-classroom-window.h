/* ef-classroom-window.h: the classroom: a SAR image focusing pulse by pulse, with the theory beside it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ef-dataset.h"
#include "ef-grid.h"

G_BEGIN_DECLS

#define EF_TYPE_CLASSROOM_WINDOW (ef_classroom_window_get_type ())
G_DECLARE_FINAL_TYPE (EfClassroomWindow, ef_classroom_window, EF, CLASSROOM_WINDOW, AdwWindow)

/* A new window, transient for parent (may be NULL). */
EfClassroomWindow *ef_classroom_window_new (GtkWindow *parent);

/* Simulates the classroom scene (data/presets/classroom.ini) and forms its aperture stack on a worker
 * thread; returns at once, and the window shows its progress. */
void ef_classroom_window_open_demo (EfClassroomWindow *self);
/* The same for a collection (a new reference is taken) over grid. */
void ef_classroom_window_open_dataset (EfClassroomWindow *self, EfDataset *ds, const EfGrid *grid);

G_END_DECLS
