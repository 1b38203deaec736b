/* ef-processing-panel.h: the sidebar page of processing choices. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-processing.h"

G_BEGIN_DECLS

#define EF_TYPE_PROCESSING_PANEL (ef_processing_panel_get_type ())
G_DECLARE_FINAL_TYPE (EfProcessingPanel, ef_processing_panel, EF, PROCESSING_PANEL, GtkWidget)

GtkWidget *ef_processing_panel_new (void);
/* Shows proc without emitting "changed". auto_spacing is the spacing automatic mode gives, m. */
void ef_processing_panel_set (EfProcessingPanel *self, const EfProcessing *proc, double auto_spacing);
/* Reads the choices the widgets show. */
void ef_processing_panel_get (EfProcessingPanel *self, EfProcessing *proc);
void ef_processing_panel_set_backend_in_use (EfProcessingPanel *self, const char *name, const char *note);
void ef_processing_panel_set_roi_info (EfProcessingPanel *self, const char *text);
/* The check against exact backprojection: its result or state (NULL: the hint), and whether one runs
 * (the button then stops it). */
void ef_processing_panel_set_verify (EfProcessingPanel *self, const char *text, gboolean running);

G_END_DECLS
