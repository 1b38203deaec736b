/* ef-stack-window.h: a window on a stack of repeat passes: mean amplitude, coherence, PS and their time series. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define EF_TYPE_STACK_WINDOW (ef_stack_window_get_type ())
G_DECLARE_FINAL_TYPE (EfStackWindow, ef_stack_window, EF, STACK_WINDOW, GtkWindow)

/* A new window belonging to app (may be NULL). */
EfStackWindow *ef_stack_window_new (GtkApplication *app);

/* Opens the stack in dir: its mean amplitude, pixel scores and PS candidates are computed on a worker
 * thread (the CPU's periodogram with the default parameters), and shown when done; a truth.json beside
 * the stack is read and plotted with the time series. Returns at once; errors show in the window. */
void ef_stack_window_open (EfStackWindow *self, const char *dir);

G_END_DECLS
