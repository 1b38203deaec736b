/* ef-cuda-test-hooks.c: the CUDA library's switches that only tests turn, with -Dtest_hooks=true. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda-test-hooks.h"

/* The failure hooks. fail_after: < 0 off; otherwise how many allocations may still succeed before
 * one fails. fail_above: 0 off; otherwise the largest allocation that succeeds. */
static gint fail_after = -1;
static gsize fail_above = 0;

void
ef_cuda_debug_fail_alloc_after (int n)
{
  g_atomic_int_set (&fail_after, n < 0 ? -1 : n);
}

void
ef_cuda_debug_fail_alloc_above (gsize bytes)
{
  g_atomic_pointer_set (&fail_above, bytes);
}

gboolean
ef_cuda_test_hooks_alloc_fails (gsize size)
{
  gsize above = (gsize) g_atomic_pointer_get (&fail_above);

  if (above != 0 && size > above)
    return TRUE;
  for (;;)
    {
      gint v = g_atomic_int_get (&fail_after);

      if (v < 0)
        return FALSE;
      if (v == 0)
        {
          /* One failure, then disarmed. */
          if (g_atomic_int_compare_and_exchange (&fail_after, 0, -1))
            return TRUE;
          continue;
        }
      if (g_atomic_int_compare_and_exchange (&fail_after, v, v - 1))
        return FALSE;
    }
}

static gint force_exact = FALSE;

void
ef_cuda_ffbp_debug_force_exact (gboolean on)
{
  g_atomic_int_set (&force_exact, on ? TRUE : FALSE);
}

gboolean
ef_cuda_test_hooks_ffbp_exact (void)
{
  return g_atomic_int_get (&force_exact);
}

static gint read_band_rows, row_bands, copy_threads;

void
ef_cuda_debug_set_copy_threads (guint n)
{
  g_atomic_int_set (&copy_threads, (gint) MIN (n, 64u));
}

guint
ef_cuda_test_hooks_copy_threads (void)
{
  return (guint) g_atomic_int_get (&copy_threads);
}

void
ef_cuda_debug_set_row_bands (guint n)
{
  g_atomic_int_set (&row_bands, (gint) MIN (n, (guint) G_MAXINT));
}

guint
ef_cuda_test_hooks_row_bands (void)
{
  return (guint) g_atomic_int_get (&row_bands);
}

void
ef_cuda_debug_set_read_band_rows (guint rows)
{
  g_atomic_int_set (&read_band_rows, (gint) MIN (rows, (guint) G_MAXINT));
}

guint
ef_cuda_test_hooks_read_band_rows (void)
{
  return (guint) g_atomic_int_get (&read_band_rows);
}

static gint arcs_full_grid = FALSE;

void
ef_cuda_arcs_debug_full_grid (gboolean on)
{
  g_atomic_int_set (&arcs_full_grid, on ? TRUE : FALSE);
}

gboolean
ef_cuda_test_hooks_arcs_full_grid (void)
{
  return g_atomic_int_get (&arcs_full_grid);
}

static guint64 d2h_image_bytes;

void
ef_cuda_test_hooks_count_d2h (guint64 bytes)
{
  __atomic_add_fetch (&d2h_image_bytes, bytes, __ATOMIC_RELAXED);
}

guint64
ef_cuda_debug_d2h_image_bytes (void)
{
  return __atomic_load_n (&d2h_image_bytes, __ATOMIC_RELAXED);
}
