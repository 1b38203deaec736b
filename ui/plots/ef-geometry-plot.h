/* ef-geometry-plot.h: a top view of the flight path, the scene, the ROI and the pulses processed. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-dataset.h"

G_BEGIN_DECLS

#define EF_TYPE_GEOMETRY_PLOT (ef_geometry_plot_get_type ())
G_DECLARE_FINAL_TYPE (EfGeometryPlot, ef_geometry_plot, EF, GEOMETRY_PLOT, GtkWidget)

GtkWidget *ef_geometry_plot_new (void);
/* dataset may be NULL; box is the scene's extent (x0, y0, x1, y1, m) or NULL. */
void ef_geometry_plot_set_dataset (EfGeometryPlot *self, EfDataset *dataset, const double box[4]);
void ef_geometry_plot_set_roi (EfGeometryPlot *self, const double roi[4]);
/* done[n] marks the pulses the ROI job has used so far (copied); NULL clears. */
void ef_geometry_plot_set_done (EfGeometryPlot *self, const gboolean *done, guint64 n);

G_END_DECLS
