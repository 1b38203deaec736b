/* ef-stack-window-test.h: test-only access to the stack window (built with -Dtest_hooks=true). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-stack-window.h"

G_BEGIN_DECLS

/* TRUE once the analysis has finished (well or not); the number of candidates, or -1 on failure. */
gboolean ef_stack_window_test_is_loaded (EfStackWindow *self);
int      ef_stack_window_test_n_candidates (EfStackWindow *self);
/* A primary click on the map where pixel (col, row) is drawn, through the click handler. */
void     ef_stack_window_test_click_pixel (EfStackWindow *self, double col, double row);
/* The selected candidate's pixel (FALSE when none), and the points of its plotted series and of the
 * truth's (0 without truth). */
gboolean ef_stack_window_test_selected (EfStackWindow *self, guint *col, guint *row, guint *n_points,
                                        guint *n_truth);
/* Shows layer 0 (mean amplitude) or 1 (coherence). */
void     ef_stack_window_test_set_layer (EfStackWindow *self, guint layer);

G_END_DECLS
