/* ef-test-hooks.c: switches that only tests turn: forced code paths, compiled in with -Dtest_hooks=true. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-test-hooks"
#include "config.h"

#include "ef-test-hooks.h"

static gint portable_simd, cpu_blocks_per_call;

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

void
ef_test_hooks_set_cpu_blocks_per_call (guint n)
{
  g_atomic_int_set (&cpu_blocks_per_call, (gint) MIN (n, (guint) G_MAXINT));
}

guint
ef_test_hooks_cpu_blocks_per_call (void)
{
  return (guint) g_atomic_int_get (&cpu_blocks_per_call);
}
