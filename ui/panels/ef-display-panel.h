/* ef-display-panel.h: the sidebar page of display choices: view, colour map, dB range, gamma. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-colormap.h"

G_BEGIN_DECLS

#define EF_TYPE_DISPLAY_PANEL (ef_display_panel_get_type ())
G_DECLARE_FINAL_TYPE (EfDisplayPanel, ef_display_panel, EF, DISPLAY_PANEL, GtkWidget)

GtkWidget *ef_display_panel_new (void);
/* Shows params without emitting "changed". */
void ef_display_panel_set (EfDisplayPanel *self, const EfDisplayParams *params);
void ef_display_panel_get (EfDisplayPanel *self, EfDisplayParams *params);
/* The histogram of the image's magnitudes (ef_histogram_set_counts), NULL while there is none. */
void ef_display_panel_set_histogram (EfDisplayPanel *self, const guint64 *counts, guint n_bins, double lo_db,
                                     double hi_db);

G_END_DECLS
