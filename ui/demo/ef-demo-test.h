/* ef-demo-test.h: what only tests ask of the demo scene: where its point targets are. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-demo-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-demo.h"

G_BEGIN_DECLS

/* The isolated point targets of the demo scene, in the scene frame (metres): bright, far from the
 * drawing, for measuring impulse responses. */
guint ef_demo_get_n_point_targets (void);
void  ef_demo_get_point_target (guint i, double pos[3]);

G_END_DECLS
