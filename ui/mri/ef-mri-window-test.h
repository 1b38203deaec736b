/* ef-mri-window-test.h: test-only access to the MRI window (built with -Dtest_hooks=true). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"

#include "ef-mri-window.h"

G_BEGIN_DECLS

/* TRUE once the refinement (or a least-squares run) has finished, well or not; FALSE while one runs. */
gboolean ef_mri_window_test_is_idle (EfMriWindow *self);
/* The error shown, or NULL (borrowed). */
const char *ef_mri_window_test_error (EfMriWindow *self);
/* The displayed complex image (NULL before one): its voxels along x, y, z in n (z 1 in 2-D); borrowed. */
const EfCf64 *ef_mri_window_test_image (EfMriWindow *self, guint n[3]);
/* Samples summed so far and in all. */
void     ef_mri_window_test_samples (EfMriWindow *self, gsize *done, gsize *total);
/* Planes shown (1 in 2-D, 3 in 3-D) and the pixel size of plane i's image (width, height). */
guint    ef_mri_window_test_n_planes (EfMriWindow *self);
void     ef_mri_window_test_plane_size (EfMriWindow *self, guint i, guint *w, guint *h);
/* Points the k-space view drew at its last draw, and how many of them as already used. */
void     ef_mri_window_test_kspace_drawn (EfMriWindow *self, guint *points, guint *used);
/* Starts the least-squares action. */
void     ef_mri_window_test_least_squares (EfMriWindow *self);
/* Makes the worker wait after adding block (0 .. 15) until called again with G_MAXUINT; call before
 * opening. */
void     ef_mri_window_test_hold_after (EfMriWindow *self, guint block);
/* A click on plane i (0 axial, 1 coronal, 2 sagittal) where its pixel (col, row) is drawn (row 0 at
 * the bottom; fractions inside the pixel), through the click handler; the voxel the planes go through. */
void     ef_mri_window_test_click_voxel (EfMriWindow *self, guint i, double col, double row);
void     ef_mri_window_test_cursor (EfMriWindow *self, guint cursor[3]);
/* Clicks Cancel. */
void     ef_mri_window_test_cancel (EfMriWindow *self);
/* The text of the progress line (borrowed). */
const char *ef_mri_window_test_progress (EfMriWindow *self);
/* The text of the residuals label (borrowed). */
const char *ef_mri_window_test_residuals (EfMriWindow *self);
/* The file's coils and the choice shown (0: all combined; c + 1: coil c), and the coils' line (borrowed). */
void        ef_mri_window_test_coils (EfMriWindow *self, guint *n_coils, guint *choice);
const char *ef_mri_window_test_coil_text (EfMriWindow *self);
/* Picks choice in the coils' drop-down, as a user would. */
void        ef_mri_window_test_choose_coil (EfMriWindow *self, guint choice);
/* What the exact sums ran on ("cpu", "cuda"; NULL before the file is read) and why not the device asked
 * for (NULL: no fallback), both borrowed; and the line that says so. */
void        ef_mri_window_test_backend (EfMriWindow *self, const char **ran, const char **fallback);
const char *ef_mri_window_test_backend_text (EfMriWindow *self);
/* Makes the least-squares worker wait after iteration k (1 ..) until called again with G_MAXUINT or
 * cancelled. */
void        ef_mri_window_test_hold_iteration (EfMriWindow *self, guint k);
/* Iterations of the least-squares image shown (0: F^H d). */
guint       ef_mri_window_test_ls_iterations (EfMriWindow *self);
/* Clicks the least-squares button (Cancel while least squares runs), and its label (borrowed). */
void        ef_mri_window_test_click_least_squares (EfMriWindow *self);
const char *ef_mri_window_test_ls_label (EfMriWindow *self);

G_END_DECLS
