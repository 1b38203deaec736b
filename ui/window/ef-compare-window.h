/* ef-compare-window.h: a window comparing two formed images: side by side, swipe, dB difference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>
#include "ef-compare-view.h"

G_BEGIN_DECLS

#define EF_TYPE_COMPARE_WINDOW (ef_compare_window_get_type ())
G_DECLARE_FINAL_TYPE (EfCompareWindow, ef_compare_window, EF, COMPARE_WINDOW, AdwWindow)

/* A window over a and b (copied), named label_a and label_b, transient for parent (may be NULL). */
EfCompareWindow *ef_compare_window_new (GtkWindow *parent, const EfImage *a, const char *label_a, const EfImage *b,
                                        const char *label_b);
/* A window over a list of n images (copied; an entry may be NULL for one not formed), named by labels,
 * showing a and b first; two lists in the header bar choose any two. */
EfCompareWindow *ef_compare_window_new_list (GtkWindow *parent, const EfImage *const *images,
                                             const char *const *labels, guint n, guint a, guint b);
/* Shows entries a and b of the list. */
void             ef_compare_window_select (EfCompareWindow *self, guint a, guint b);
/* The view inside; borrowed. */
EfCompareView   *ef_compare_window_get_view (EfCompareWindow *self);

G_END_DECLS
