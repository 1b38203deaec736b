/* ef-dataset-panel-test.h: what only tests ask of the dataset panel: the labels it shows. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-dataset-panel-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-dataset-panel.h"

G_BEGIN_DECLS

/* The value label of the row named name ("res-cross", "prf", "speed", ...), or NULL; borrowed. */
GtkLabel *ef_dataset_panel_get_value (EfDatasetPanel *self, const char *name);

G_END_DECLS
