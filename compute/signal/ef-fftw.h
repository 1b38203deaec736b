/* ef-fftw.h: the one lock around FFTW's planner, shared by every module that makes or destroys plans. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* FFTW's planner (plan creation and destruction) is not thread-safe; executing plans is. */
void ef_fftw_planner_lock (void);
void ef_fftw_planner_unlock (void);

G_END_DECLS
