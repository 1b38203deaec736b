/* ef-processing-panel.h: the sidebar page of processing choices. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-processing.h"
#include "ef-run-info.h"

G_BEGIN_DECLS

#define EF_TYPE_PROCESSING_PANEL (ef_processing_panel_get_type ())
G_DECLARE_FINAL_TYPE (EfProcessingPanel, ef_processing_panel, EF, PROCESSING_PANEL, GtkWidget)

GtkWidget *ef_processing_panel_new (void);
/* Shows proc without emitting "changed". auto_spacing is the spacing automatic mode gives, m. */
void ef_processing_panel_set (EfProcessingPanel *self, const EfProcessing *proc, double auto_spacing);
/* Reads the choices the widgets show. */
void ef_processing_panel_get (EfProcessingPanel *self, EfProcessing *proc);
/* Shows what ran (backend, precision, algorithm) and, below it, how and why that differs from the choices
 * and what went wrong with the input or the image; run NULL (or without a backend yet) shows nothing. */
void ef_processing_panel_set_run (EfProcessingPanel *self, const EfRunInfo *run);
void ef_processing_panel_set_roi_info (EfProcessingPanel *self, const char *text);
/* Shows the region's corners (x0, y0, x1, y1, m) in the typed-region row, or clears it (NULL). A region
 * typed there and applied is announced with "region-typed". */
void ef_processing_panel_set_roi (EfProcessingPanel *self, const double roi[4]);
/* Reads "x0, y0, x1, y1" in metres (commas, semicolons or spaces between; "−" taken as a minus): four
 * finite numbers making a box with area. FALSE otherwise. */
gboolean ef_processing_parse_roi (const char *text, double roi[4]);
/* The check against exact backprojection: its result or state (NULL: the hint), and whether one runs
 * (the button then stops it). */
void ef_processing_panel_set_verify (EfProcessingPanel *self, const char *text, gboolean running);

G_END_DECLS
