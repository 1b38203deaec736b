/* ef-dataset-panel.h: the sidebar page describing the open collection. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-dataset.h"

G_BEGIN_DECLS

#define EF_TYPE_DATASET_PANEL (ef_dataset_panel_get_type ())
G_DECLARE_FINAL_TYPE (EfDatasetPanel, ef_dataset_panel, EF, DATASET_PANEL, GtkWidget)

GtkWidget *ef_dataset_panel_new (void);
/* Shows dataset (NULL clears) and the scene box the window derived from it (may be NULL). */
void ef_dataset_panel_set_dataset (EfDatasetPanel *self, EfDataset *dataset, const double box[4]);

G_END_DECLS
