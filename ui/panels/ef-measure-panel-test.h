/* ef-measure-panel-test.h: what only tests ask of the measure panel: the texts it shows. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-measure-panel-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-measure-panel.h"

G_BEGIN_DECLS

/* The text shown for name ("range-pslr", "cross-irw", ..., "note"), or NULL; borrowed. */
const char *ef_measure_panel_get_text (EfMeasurePanel *self, const char *name);

G_END_DECLS
