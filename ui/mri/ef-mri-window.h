/* ef-mri-window.h: a window reconstructing an ISMRMRD file's non-Cartesian samples block by block. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define EF_TYPE_MRI_WINDOW (ef_mri_window_get_type ())
G_DECLARE_FINAL_TYPE (EfMriWindow, ef_mri_window, EF, MRI_WINDOW, GtkWindow)

/* A new window belonging to app (may be NULL). */
EfMriWindow *ef_mri_window_new (GtkApplication *app);

/* Reads every channel (receive coil) of the ISMRMRD file at path on a worker thread, weighs its samples
 * by their density and sums each coil's exact F^H d one block of samples at a time, where the settings'
 * backend puts the sums, redrawing after each block (the coils combined by root sum of squares, or the
 * one chosen). Returns at once; errors show in the window. A window opens one file. */
void ef_mri_window_open (EfMriWindow *self, const char *path);

/* Whether path names a file this window opens (ISMRMRD: .h5, .mrd or .ismrmrd), by its name. */
gboolean ef_mri_window_accepts (const char *path);

G_END_DECLS
