/* ef-ffbp-cpu.c: FFBP and FBP formed on the CPU: the stages of a block's tree, in threads, row by row. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ffbp"
#include "config.h"

#include <math.h>
#include <string.h>
#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-bp.h"
#include "ef-error.h"
#include "ef-ffbp-cpu-private.h"
#include "ef-ffbp-private.h"

/* The plan (ef-ffbp.c) lays a block's tree out; this file allocates each stage's polar grids and fills
 * them row by row on every thread (the rows: ef-ffbp-cpu-rows.c), then interpolates the last onto the
 * image. */

typedef EfFfbpTree Tree;

static guint
stage_width (const Stage *st)
{
  guint w = 0;

  for (guint i = 0; i < st->n; i++)
    w = MAX (w, st->nodes[i].nrho);
  return w;
}

static double
stage_samples (const Stage *st)
{
  double n = 0;

  for (guint i = 0; i < st->n; i++)
    n += (double) st->nodes[i].nal * st->nodes[i].nrho;
  return n;
}

/* Lays the grids of stage s out in the former's buffer for stages of its parity, which grows as needed
 * and is kept from block to block: fresh memory for every block costs page faults, and zeroing, that
 * are worth a merge stage. Only the padding after each row needs zeros; the rows are written whole. */
static gboolean
stage_alloc (EfFfbp *self, Stage *st, guint s, gboolean f64, guint64 *samples)
{
  gsize elem = f64 ? sizeof (EfCf64) : sizeof (EfCf32), total = 0, at = 0;
  guint slot = s % 2;
  guint8 *base;

  for (guint i = 0; i < st->n; i++)
    {
      const Node *nd = &st->nodes[i];
      gsize bytes;

      /* 64-byte aligned grids: the vector loads of a row stay within as few lines as they can. */
      if (!g_size_checked_mul (&bytes, (gsize) nd->nal * nd->stride, elem)
          || !g_size_checked_add (&total, total, (bytes + 63) & ~(gsize) 63))
        return FALSE;
    }
  if (total > self->grid_bytes[slot])
    {
      ef_aligned_free (self->grids[slot]);
      self->grid_bytes[slot] = 0;
      self->grids[slot] = ef_aligned_alloc0 (total);
      if (self->grids[slot] == NULL)
        return FALSE;
      self->grid_bytes[slot] = total;
    }
  base = self->grids[slot];
  for (guint i = 0; i < st->n; i++)
    {
      Node *nd = &st->nodes[i];

      nd->data = base + at;
      at += ((gsize) nd->nal * nd->stride * elem + 63) & ~(gsize) 63;
      for (guint j = 0; j < nd->nal; j++)
        memset ((guint8 *) nd->data + ((gsize) j * nd->stride + nd->nrho) * elem, 0, (gsize) EF_FFBP_PAD * elem);
      *samples += (guint64) nd->nal * nd->nrho;
    }
  return TRUE;
}

/* (node, row) pairs of a stage, as the unit of parallel work. */
static guint *
stage_rows (const Stage *st, guint *n_out)
{
  guint n = 0, k = 0;
  guint *rows;

  for (guint i = 0; i < st->n; i++)
    n += st->nodes[i].nal;
  rows = g_new (guint, 2 * (gsize) n);
  for (guint i = 0; i < st->n; i++)
    for (guint j = 0; j < st->nodes[i].nal; j++)
      {
        rows[2 * k] = i;
        rows[2 * k + 1] = j;
        k++;
      }
  *n_out = n;
  return rows;
}

static void
run_leaves (const EfFfbp *self, const Block *b, Stage *st, gboolean f64)
{
  guint n_rows, width = stage_width (st), max_leaf = 0;
  g_autofree guint *rows = stage_rows (st, &n_rows);
  gboolean tiles = ef_ffbp_leaves_by_tiles (self, b, f64);

  for (guint i = 0; i < st->n; i++)
    max_leaf = MAX (max_leaf, st->nodes[i].p1 - st->nodes[i].p0);
#if HAVE_OPENMP
#pragma omp parallel num_threads(ef_thread_count (self->params.n_threads))
#endif
  {
    Scratch s;

    ef_ffbp_scratch_init (&s, width, tiles ? max_leaf : 0);
#if HAVE_OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
    for (guint k = 0; k < n_rows; k++)
      {
        const Node *nd = &st->nodes[rows[2 * k]];
        if (f64)
          ef_ffbp_leaf_row64 (b, nd, rows[2 * k + 1], &s);
        else if (tiles)
          ef_ffbp_leaf_row32_tiles (self, b, nd, rows[2 * k + 1], &s);
        else
          ef_ffbp_leaf_row32 (b, nd, rows[2 * k + 1], &s);
      }
    ef_ffbp_scratch_clear (&s);
  }
}

static void
run_merge (const EfFfbp *self, const Block *b, Stage *st, const Stage *lo, gboolean f64)
{
  guint n_rows, width = stage_width (st);
  g_autofree guint *rows = stage_rows (st, &n_rows);

#if HAVE_OPENMP
#pragma omp parallel num_threads(ef_thread_count (self->params.n_threads))
#endif
  {
    Scratch s;

    ef_ffbp_scratch_init (&s, width, 0);
#if HAVE_OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
    for (guint k = 0; k < n_rows; k++)
      {
        const Node *nd = &st->nodes[rows[2 * k]];
        if (f64)
          ef_ffbp_merge_row64 (self, b, nd, lo->nodes, rows[2 * k + 1], &s);
        else
          ef_ffbp_merge_row32 (self, b, nd, lo->nodes, rows[2 * k + 1], &s);
      }
    ef_ffbp_scratch_clear (&s);
  }
}

static void
run_final (const EfFfbp *self, const Block *b, const Stage *st, gboolean f64, EfCf64 *acc64, EfCf32 *acc32)
{
  const EfGrid *g = &self->grid;

#if HAVE_OPENMP
#pragma omp parallel num_threads(ef_thread_count (self->params.n_threads))
#endif
  {
    Scratch s;

    ef_ffbp_scratch_init (&s, g->width, 0);
#if HAVE_OPENMP
#pragma omp for schedule(dynamic, 2)
#endif
    for (guint r = 0; r < g->height; r++)
      {
        if (f64)
          ef_ffbp_final_row64 (self, b, st, r, &s, acc64, acc32);
        else
          ef_ffbp_final_row32 (self, b, st, r, &s, acc64, acc32);
      }
    ef_ffbp_scratch_clear (&s);
  }
}

/* Exact backprojection of the block, for blocks where the fast path does not pay or does not apply. */
static void
exact_bp (const EfFfbp *self, const EfProfiles *pr, EfCf64 *acc64, EfCf32 *acc32)
{
  const EfGrid *g = &self->grid;

  if (pr->data32 != NULL)
    {
      ef_bp_cpu_fp32 (g, pr, acc32, self->params.n_threads);
      return;
    }
#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(ef_thread_count (self->params.n_threads))
#endif
  for (guint r0 = 0; r0 < g->height; r0 += 8)
    {
      EfRect r = { 0, r0, g->width, MIN (8u, g->height - r0) };
      ef_bp_reference_rect (g, pr, &r, acc64 + (gsize) r0 * g->width);
    }
}

gboolean
ef_ffbp_process (EfFfbp *self, const EfProfiles *profiles, EfCf64 *acc64, EfCf32 *acc32, EfFfbpStats *stats,
                 GError **error)
{
  EfFfbpStats st = { 0 };
  EfFfbpPlan plan;
  Tree *tree;
  gboolean f64, ok = TRUE;
  guint64 samples = 0;
  gint64 t0, t1;
  double c0, c1;

  g_return_val_if_fail (self != NULL && profiles != NULL, FALSE);
  g_return_val_if_fail ((profiles->data64 != NULL) == (acc64 != NULL), FALSE);
  g_return_val_if_fail ((profiles->data32 != NULL) == (acc32 != NULL), FALSE);

  f64 = profiles->data64 != NULL;
  st.n_pulses = profiles->n_pulses;
  if (profiles->n_pulses == 0)
    goto done;
  t0 = g_get_monotonic_time ();
  /* The descending search finds the exhaustive search's tree (test-ffbp-plan) in a fraction of the time,
   * which every block spends on one thread. */
  if (!ef_ffbp_plan (self, profiles, &ef_ffbp_costs_cpu[!f64], EF_FFBP_SEARCH_DESCEND, &plan, error))
    {
      ef_ffbp_plan_clear (&plan);
      return FALSE;
    }
  g_debug ("block of %u pulses planned in %.4f s", profiles->n_pulses, (g_get_monotonic_time () - t0) * 1e-6);
  ef_ffbp_plan_stats (&plan, &st);
  tree = &plan.tree;
  if (plan.use_bp)
    {
      g_debug ("block of %u pulses by exact backprojection: %s", profiles->n_pulses, plan.why);
      t0 = g_get_monotonic_time ();
      exact_bp (self, profiles, acc64, acc32);
      st.seconds_final = (g_get_monotonic_time () - t0) * 1e-6;
      ef_ffbp_plan_clear (&plan);
      goto done;
    }

  t0 = g_get_monotonic_time ();
  c0 = ef_process_cpu_seconds ();
  if (!stage_alloc (self, &tree->stages[0], 0, f64, &samples))
    {
      ok = FALSE;
      goto out;
    }
  run_leaves (self, &plan.block, &tree->stages[0], f64);
  t1 = g_get_monotonic_time ();
  c1 = ef_process_cpu_seconds ();
  st.seconds_leaves = (t1 - t0) * 1e-6;
  g_debug ("leaves: %u grids of %u pulses, %.2f M samples, %.4f s (CPU %.4f s)", tree->stages[0].n,
           tree->leaf_pulses, stage_samples (&tree->stages[0]) * 1e-6, st.seconds_leaves, c1 - c0);
  for (guint s = 1; s < tree->n_stages; s++)
    {
      gint64 ts = g_get_monotonic_time ();
      double cs = ef_process_cpu_seconds ();

      if (!stage_alloc (self, &tree->stages[s], s, f64, &samples))
        {
          ok = FALSE;
          goto out;
        }
      run_merge (self, &plan.block, &tree->stages[s], &tree->stages[s - 1], f64);
      g_debug ("merge stage %u: %u grids, %.2f M samples from %u children each, %.4f s (CPU %.4f s)", s,
               tree->stages[s].n, stage_samples (&tree->stages[s]) * 1e-6, tree->stages[s].nodes[0].nc,
               (g_get_monotonic_time () - ts) * 1e-6, ef_process_cpu_seconds () - cs);
    }
  t0 = g_get_monotonic_time ();
  c0 = ef_process_cpu_seconds ();
  st.seconds_merge = (t0 - t1) * 1e-6;
  run_final (self, &plan.block, &tree->stages[tree->n_stages - 1], f64, acc64, acc32);
  st.seconds_final = (g_get_monotonic_time () - t0) * 1e-6;
  g_debug ("final: %u grids onto %u x %u pixels, %.4f s (CPU %.4f s)", tree->stages[tree->n_stages - 1].n,
           self->grid.width, self->grid.height, st.seconds_final, ef_process_cpu_seconds () - c0);

out:
  ef_ffbp_plan_clear (&plan);
  if (!ok)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for the polar grids of a %u-pulse block", profiles->n_pulses);
      return FALSE;
    }
done:
  if (stats)
    *stats = st;
  return TRUE;
}
