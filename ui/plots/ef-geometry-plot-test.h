/* ef-geometry-plot-test.h: what only tests ask of the geometry plot: where it drew a scene point. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-geometry-plot-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-geometry-plot.h"

G_BEGIN_DECLS

/* Where the last drawing put scene point (x, y) in the scene inset, in widget pixels; FALSE before one. */
gboolean ef_geometry_plot_scene_to_widget (EfGeometryPlot *self, double x, double y, double *wx, double *wy);

G_END_DECLS
