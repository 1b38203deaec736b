/* ef-fftw.c: the one lock around FFTW's planner. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-fftw"
#include "config.h"

#include "ef-fftw.h"

static GMutex planner;

void
ef_fftw_planner_lock (void)
{
  g_mutex_lock (&planner);
}

void
ef_fftw_planner_unlock (void)
{
  g_mutex_unlock (&planner);
}
