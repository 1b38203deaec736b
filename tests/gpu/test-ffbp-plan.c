/* test-ffbp-plan.c: the FFBP plan that the CPU and GPU formers share, on the CPU (no device needed). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-ffbp-private.h"

/* The metadata of a block as range compression makes it, for a circular (or, with curve = 0, straight)
 * track at standoff metres and grazing_deg, aimed at the origin: no samples are needed to plan. */
typedef struct {
  EfProfiles pr;
  EfGrid     grid;
} Block;

static void
block_init (Block *b, guint n_pulses, guint edge, double spacing, double standoff, double grazing_deg,
            gboolean straight, gboolean bistatic)
{
  const double fc = 9.6e9, bw = 600e6, g = grazing_deg * G_PI / 180.0;
  const double span = bw / (fc * cos (g)), n_bins = 16384, df = bw / 1024;

  memset (b, 0, sizeof *b);
  b->pr.n_pulses = b->pr.capacity = n_pulses;
  b->pr.n_bins = (guint) n_bins;
  b->pr.meta = g_new0 (EfProfileMeta, n_pulses);
  b->pr.monostatic = !bistatic;
  for (guint p = 0; p < n_pulses; p++)
    {
      EfProfileMeta *m = &b->pr.meta[p];
      double az = -0.5 * span + span * p / MAX (n_pulses - 1.0, 1.0), ground = standoff * cos (g);

      if (straight)
        {
          m->tx[0] = ground;
          m->tx[1] = ground * az;
        }
      else
        {
          m->tx[0] = ground * cos (az);
          m->tx[1] = ground * sin (az);
        }
      m->tx[2] = standoff * sin (g);
      memcpy (m->rcv, m->tx, sizeof m->rcv);
      if (bistatic)
        {
          m->rcv[1] += 400.0;
          m->rcv[2] -= 150.0;
        }
      m->r0 = 0.5 * (sqrt (m->tx[0] * m->tx[0] + m->tx[1] * m->tx[1] + m->tx[2] * m->tx[2])
                     + sqrt (m->rcv[0] * m->rcv[0] + m->rcv[1] * m->rcv[1] + m->rcv[2] * m->rcv[2]));
      m->dr = EF_C / (2.0 * n_bins * df);
      m->r_start = -(n_bins / 2) * m->dr;
      m->kr = 4.0 * G_PI * fc / EF_C;
    }
  g_assert_true (ef_grid_init_roi (&b->grid, -0.5 * edge * spacing + 0.3 * spacing, -0.5 * edge * spacing,
                                   0.5 * edge * spacing + 0.3 * spacing, 0.5 * edge * spacing, spacing, NULL));
}

static void
block_clear (Block *b)
{
  g_free (b->pr.meta);
}

typedef struct {
  const char *name;
  guint       n_pulses, edge;
  double      spacing, standoff, grazing;
  gboolean    straight, bistatic;
} Case;

static const Case cases[] = {
  { "airborne-4k", 8192, 4096, 0.125, 10e3, 30, FALSE, FALSE },
  { "airborne-2k", 2048, 2048, 0.125, 10e3, 30, FALSE, FALSE },
  { "airborne-small", 512, 130, 0.157, 10e3, 30, FALSE, FALSE },
  { "spaceborne", 4096, 1024, 0.25, 700e3, 45, TRUE, FALSE },
  { "bistatic", 1024, 512, 0.1, 10e3, 30, FALSE, TRUE },
  { "short-block", 300, 256, 0.1, 10e3, 30, TRUE, FALSE },
};

static EfFfbp *
former (const Block *b, gboolean factorised, guint leaf_pulses)
{
  EfFfbpParams fp;
  g_autoptr (GError) error = NULL;
  EfFfbp *f;

  if (factorised)
    ef_ffbp_params_init (&fp);
  else
    ef_fbp_params_init (&fp);
  fp.leaf_pulses = leaf_pulses;
  f = ef_ffbp_new (&b->grid, 600e6, &fp, &error);
  g_assert_no_error (error);
  return f;
}

/* The descending search, which the GPU path uses to plan quickly, finds the exhaustive search's leaf
 * length on the model's costs, with both cost tables, for FFBP and FBP. */
static void
test_search (gconstpointer data)
{
  const Case *c = data;
  Block b;

  block_init (&b, c->n_pulses, c->edge, c->spacing, c->standoff, c->grazing, c->straight, c->bistatic);
  for (int factorised = 0; factorised < 2; factorised++)
    for (int table = 0; table < 3; table++)
      {
        const EfFfbpCosts *costs = table < 2 ? &ef_ffbp_costs_cpu[table] : &ef_ffbp_costs_gpu;
        g_autoptr (EfFfbp) f = former (&b, factorised, 0);
        EfFfbpPlan all, desc;
        EfFfbpStats sa, sd;
        gint64 t0, t1, t2;

        t0 = g_get_monotonic_time ();
        g_assert_true (ef_ffbp_plan (f, &b.pr, costs, EF_FFBP_SEARCH_ALL, &all, NULL));
        t1 = g_get_monotonic_time ();
        g_assert_true (ef_ffbp_plan (f, &b.pr, costs, EF_FFBP_SEARCH_DESCEND, &desc, NULL));
        t2 = g_get_monotonic_time ();
        ef_ffbp_plan_stats (&all, &sa);
        ef_ffbp_plan_stats (&desc, &sd);
        g_test_message ("%s, %s, %s costs: leaves of %u (%s), model x%.2f; all %.1f ms, descending %.1f ms", c->name,
                        factorised ? "ffbp" : "fbp", table == 0 ? "CPU fp64" : table == 1 ? "CPU fp32" : "GPU",
                        sd.leaf_pulses, sd.used_bp ? "exact BP" : "fast", sd.est_speedup, (t1 - t0) * 1e-3,
                        (t2 - t1) * 1e-3);
        g_assert_cmpint (sa.used_bp, ==, sd.used_bp);
        g_assert_cmpuint (sa.leaf_pulses, ==, sd.leaf_pulses);
        g_assert_cmpuint (sa.n_stages, ==, sd.n_stages);
        g_assert_cmpuint (sa.polar_samples, ==, sd.polar_samples);
        if (!sa.used_bp)
          g_assert_cmpfloat (all.tree.cost, ==, desc.tree.cost);
        ef_ffbp_plan_clear (&all);
        ef_ffbp_plan_clear (&desc);
      }
  block_clear (&b);
}

/* With a given leaf length, the tree does not depend on the cost table or the search: what lets the
 * GPU's result be compared with the CPU's. */
static void
test_fixed_leaves (void)
{
  Block b;
  g_autoptr (EfFfbp) f = NULL;
  EfFfbpPlan p[3];

  block_init (&b, 2048, 512, 0.1, 10e3, 30, FALSE, FALSE);
  f = former (&b, TRUE, 24);
  g_assert_true (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_cpu[0], EF_FFBP_SEARCH_ALL, &p[0], NULL));
  g_assert_true (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_cpu[1], EF_FFBP_SEARCH_DESCEND, &p[1], NULL));
  g_assert_true (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &p[2], NULL));
  for (int k = 1; k < 3; k++)
    {
      g_assert_false (p[k].use_bp);
      g_assert_cmpuint (p[k].tree.leaf_pulses, ==, 24);
      g_assert_cmpuint (p[k].tree.n_stages, ==, p[0].tree.n_stages);
      for (guint s = 0; s < p[0].tree.n_stages; s++)
        {
          g_assert_cmpuint (p[k].tree.stages[s].n, ==, p[0].tree.stages[s].n);
          /* The geometry, bit for bit (no data pointers are set by planning). */
          g_assert_cmpmem (p[k].tree.stages[s].nodes, p[k].tree.stages[s].n * sizeof (EfFfbpNode),
                           p[0].tree.stages[s].nodes, p[0].tree.stages[s].n * sizeof (EfFfbpNode));
        }
    }
  /* The tree is consistent: leaves cover the block, children cover their parents. */
  {
    const EfFfbpTree *t = &p[0].tree;

    g_assert_cmpuint (t->stages[0].nodes[0].p0, ==, 0);
    g_assert_cmpuint (t->stages[0].nodes[t->stages[0].n - 1].p1, ==, b.pr.n_pulses);
    for (guint s = 0; s < t->n_stages; s++)
      for (guint i = 0; i < t->stages[s].n; i++)
        {
          const EfFfbpNode *nd = &t->stages[s].nodes[i];

          g_assert_cmpuint (nd->p0, <, nd->p1);
          g_assert_cmpuint (nd->stride, ==, nd->nrho + EF_FFBP_PAD);
          g_assert_cmpuint ((guint64) nd->nal * nd->stride, <=, G_GUINT64_CONSTANT (1) << 26);
          if (i > 0)
            g_assert_cmpuint (nd->p0, ==, t->stages[s].nodes[i - 1].p1);
          if (s > 0)
            {
              const EfFfbpStage *lo = &t->stages[s - 1];

              g_assert_cmpuint (nd->nc, >=, 1);
              g_assert_cmpuint (nd->nc, <=, 4);
              g_assert_cmpuint (nd->c0 + nd->nc, <=, lo->n);
              g_assert_cmpuint (nd->p0, ==, lo->nodes[nd->c0].p0);
              g_assert_cmpuint (nd->p1, ==, lo->nodes[nd->c0 + nd->nc - 1].p1);
              /* A parent's aperture is longer: its angle is sampled more finely. */
              g_assert_cmpfloat (nd->dal, <, lo->nodes[nd->c0].dal);
            }
        }
    g_assert_cmpuint (t->stages[t->n_stages - 1].n, ==, 1);
  }
  for (int k = 0; k < 3; k++)
    ef_ffbp_plan_clear (&p[k]);
  block_clear (&b);
}

/* Blocks too short for the fast path to pay go to exact backprojection, more readily on the GPU where
 * it is fast; with bp_fallback off, planning them is an error. A ground track under the ROI cannot be
 * planned at all. */
static void
test_fallback (void)
{
  Block b;
  g_autoptr (EfFfbp) f = NULL;
  g_autoptr (GError) error = NULL;
  EfFfbpPlan plan;
  EfFfbpStats st;
  EfFfbpParams fp;

  block_init (&b, 8, 128, 0.1, 10e3, 30, FALSE, FALSE);
  f = former (&b, TRUE, 0);
  g_assert_true (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &plan, NULL));
  ef_ffbp_plan_stats (&plan, &st);
  g_test_message ("8 pulses on the GPU: %s", st.why_bp ? st.why_bp : "fast path");
  g_assert_true (plan.use_bp);
  g_assert_true (st.used_bp);
  g_assert_null (plan.tree.stages);
  ef_ffbp_plan_clear (&plan);

  ef_ffbp_params_init (&fp);
  fp.bp_fallback = FALSE;
  g_clear_pointer (&f, ef_ffbp_free);
  f = ef_ffbp_new (&b.grid, 600e6, &fp, NULL);
  g_assert_true (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &plan, NULL));
  g_assert_false (plan.use_bp);
  ef_ffbp_plan_clear (&plan);
  block_clear (&b);

  /* The ROI straddles the ground track. */
  block_init (&b, 256, 100, 2.0, 10e3, 30, TRUE, FALSE);
  b.grid.origin[0] = 8660.0 - 100.0;
  g_clear_pointer (&f, ef_ffbp_free);
  f = ef_ffbp_new (&b.grid, 600e6, &fp, NULL);
  g_assert_false (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &plan, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  ef_ffbp_plan_clear (&plan);
  block_clear (&b);

  /* No pulses: an empty plan, neither fast nor exact. */
  block_init (&b, 1, 64, 0.1, 10e3, 30, FALSE, FALSE);
  b.pr.n_pulses = 0;
  g_assert_true (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &plan, NULL));
  g_assert_false (plan.use_bp);
  g_assert_null (plan.tree.stages);
  ef_ffbp_plan_clear (&plan);
  block_clear (&b);
}

/* The GPU model's estimate for the benchmark's case, which the H200 measured at 12.5-13x (fp32). */
static void
test_gpu_model (void)
{
  Block b;
  g_autoptr (EfFfbp) f = NULL;
  EfFfbpPlan plan;
  EfFfbpStats st;

  block_init (&b, 8192, 4096, 0.125, 10e3, 30, FALSE, FALSE);
  f = former (&b, TRUE, 0);
  g_assert_true (ef_ffbp_plan (f, &b.pr, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &plan, NULL));
  ef_ffbp_plan_stats (&plan, &st);
  g_test_message ("4096^2 x 8192 at 10 km: leaves of %u, %u stages, %.3g polar samples, model x%.1f", st.leaf_pulses,
                  st.n_stages, (double) st.polar_samples, st.est_speedup);
  g_assert_false (st.used_bp);
  g_assert_cmpfloat (st.est_speedup, >, 8.0);
  g_assert_cmpfloat (st.est_speedup, <, 25.0);
  ef_ffbp_plan_clear (&plan);
  block_clear (&b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/ffbp/plan/search/%s", cases[i].name);

      g_test_add_data_func (path, &cases[i], test_search);
    }
  g_test_add_func ("/compute/ffbp/plan/fixed-leaves", test_fixed_leaves);
  g_test_add_func ("/compute/ffbp/plan/fallback", test_fallback);
  g_test_add_func ("/compute/ffbp/plan/gpu-model", test_gpu_model);
  return g_test_run ();
}
