/* ef-measure-panel.h: the sidebar page of point-target measurements. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-metrics.h"

G_BEGIN_DECLS

#define EF_TYPE_MEASURE_PANEL (ef_measure_panel_get_type ())
G_DECLARE_FINAL_TYPE (EfMeasurePanel, ef_measure_panel, EF, MEASURE_PANEL, GtkWidget)

GtkWidget *ef_measure_panel_new (void);
/* Shows result (copied; NULL shows the hint), n_total measurements made so far, and where it was
 * measured ("ROI, 0.10 m pixels"). */
void ef_measure_panel_set_result (EfMeasurePanel *self, const EfPointResult *result, guint n_total,
                                  const char *where);
/* TRUE when the page shows a result: the figures and both cuts. */
gboolean ef_measure_panel_shows_result (EfMeasurePanel *self);
/* A line above the figures that says how they stand (the region forms again, ...), or NULL for none.
 * ef_measure_panel_set_result clears it. */
void     ef_measure_panel_set_note (EfMeasurePanel *self, const char *note);

G_END_DECLS
