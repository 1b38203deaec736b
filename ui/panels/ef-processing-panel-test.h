/* ef-processing-panel-test.h: what only tests ask of the processing panel: the text it shows for what ran. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-processing-panel-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-processing-panel.h"

G_BEGIN_DECLS

/* The text shown for what ran; borrowed. */
const char *ef_processing_panel_get_run_text (EfProcessingPanel *self);
/* The control named name ("algorithm", "precision", "backend", "window", "order", "block-size",
 * "spacing-auto", "spacing", "roi-info"), or NULL; borrowed. */
GtkWidget  *ef_processing_panel_get_widget (EfProcessingPanel *self, const char *name);

G_END_DECLS
