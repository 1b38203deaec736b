/* ef-test-hooks.c: switches that only tests turn: forced code paths, compiled in with -Dtest_hooks=true. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-test-hooks"
#include "config.h"

#include "ef-test-hooks.h"

static gint portable_simd;

void
ef_test_hooks_set_portable_simd (gboolean on)
{
  g_atomic_int_set (&portable_simd, on ? 1 : 0);
}

gboolean
ef_test_hooks_portable_simd (void)
{
  return g_atomic_int_get (&portable_simd) || g_getenv ("EF_BP_PORTABLE") != NULL;
}
