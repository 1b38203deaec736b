/* ef-cut-plot.h: a plot of one impulse-response cut: level in dB against offset in metres. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-metrics.h"

G_BEGIN_DECLS

#define EF_TYPE_CUT_PLOT (ef_cut_plot_get_type ())
G_DECLARE_FINAL_TYPE (EfCutPlot, ef_cut_plot, EF, CUT_PLOT, GtkWidget)

GtkWidget *ef_cut_plot_new (const char *title);
/* Copies the cut's samples and figures; NULL clears the plot. */
void ef_cut_plot_set_cut (EfCutPlot *self, const EfCut *cut);
/* TRUE when a cut is plotted. */
gboolean ef_cut_plot_has_cut (EfCutPlot *self);

G_END_DECLS
