/* ef-display-panel-test.h: what only tests ask of the display panel: its controls. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-display-panel-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-display-panel.h"

G_BEGIN_DECLS

/* The control named name ("db-min", "db-max", "gamma", "histogram"), or NULL; borrowed. */
GtkWidget *ef_display_panel_get_widget (EfDisplayPanel *self, const char *name);

G_END_DECLS
