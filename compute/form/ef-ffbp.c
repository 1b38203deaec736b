/* ef-ffbp.c: factorised and one-level fast backprojection: parameters, kernels and the plan of a block's
 * tree of polar sub-aperture grids (the CPU forms it in ef-ffbp-cpu.c, CUDA in cuda/ef-cuda-ffbp.c). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ffbp"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-bp.h"
#include "ef-error.h"
#include "ef-ffbp-private.h"
#include "ef-test-hooks.h"
#include "ef-vec3.h"

#define KQ EF_FFBP_KQ
#define RS EF_FFBP_RS
#define AS EF_FFBP_AS
#define PAD EF_FFBP_PAD

/* Operation-count model: nanoseconds of one core per operation, measured on an AMD EPYC (family 25,
 * model 17: Zen 4) with the AVX-512 builds; only the ratios matter. [0] float64, [1] float32. BP is the
 * exact path the block would otherwise take: the scalar float64 reference or the SIMD float32
 * backprojector. float32: a leaf pulse into a polar sample by the backprojector's tile loop, chunking
 * and demodulation included; a child into a merged sample or a sub-aperture into a pixel by the AVX-512
 * kernel sum, its geometry and re-modulation included (tests/bench/RESULTS.md, 2026-11-26). */
const EfFfbpCosts ef_ffbp_costs_cpu[2] = {
  { .leaf = 8.0, .merge = 40.0, .final = 35.0, .bp = 54.0 },
  { .leaf = 2.8, .merge = 13.0, .final = 13.0, .bp = 1.6 },
};

/* The CUDA path's, in pixel-pulses of the fp32 backprojection kernel (0.9 ps each on an H200), measured
 * there at 4096^2 px x 8192 pulses: a leaf pulse into a polar sample costs 2.5 of them (2.0 to 2.8 ps:
 * one pair-table read as BP's, but with no reuse of a tile's geometry), a merge or final interpolation,
 * 64 complex samples through L1 and 16 weights, about 30 (27 to 35 ps). */
const EfFfbpCosts ef_ffbp_costs_gpu = { .leaf = 2.5, .merge = 30.0, .final = 32.0, .bp = 1.0 };

typedef EfFfbpKernel Kernel;
typedef EfFfbpNode Node;
typedef EfFfbpStage Stage;
typedef EfFfbpTree Tree;
typedef EfFfbpBlock Block;

void
ef_ffbp_params_init (EfFfbpParams *p)
{
  g_return_if_fail (p != NULL);
  p->factorised = TRUE;
  p->merge_base = 4;
  p->leaf_pulses = 0;
  p->max_final = 1;
  p->oversample_range = 2.0;
  p->oversample_angle = 2.0;
  p->taps_range = 8;
  p->taps_angle = 8;
  p->bp_fallback = TRUE;
  p->n_threads = 0;
}

void
ef_fbp_params_init (EfFfbpParams *p)
{
  g_return_if_fail (p != NULL);
  ef_ffbp_params_init (p);
  p->factorised = FALSE;
}

/* Knab's interpolator (IEEE Trans. Inf. Theory 25, 1979): a sinc tapered by a window that spends the
 * guard band of data oversampled by os. Zero at and past half the kernel length. */
static double
knab (double x, guint taps, double os)
{
  double half = 0.5 * taps, v = 1.0 - 1.0 / os, s, r;

  if (fabs (x) >= half)
    return 0.0;
  s = fabs (x) < 1e-12 ? 1.0 : sin (G_PI * x) / (G_PI * x);
  r = sqrt (half * half - x * x);
  return s * cosh (G_PI * v * r) / cosh (G_PI * v * half);
}

static Kernel *
kernel_new (guint taps, double os)
{
  /* Aligned: the float32 sums load its rows as whole vectors. */
  Kernel *k = ef_aligned_alloc0 (sizeof (Kernel));

  if (k == NULL)
    g_error ("Out of memory for a %zu-byte kernel table", sizeof (Kernel));
  k->taps = taps;
  for (guint q = 0; q <= KQ; q++)
    {
      double frac = (double) q / KQ;

      /* Tap j sits at index floor(f) - taps/2 + 1 + j, that is at distance frac + taps/2 - 1 - j. */
      for (guint j = 0; j < taps; j++)
        {
          k->w[q][j] = knab (frac + 0.5 * taps - 1.0 - j, taps, os);
          k->wf[q][j] = (float) k->w[q][j];
        }
      for (guint j = 0; j < RS; j++)
        {
          k->wd[q][2 * j] = k->wd[q][2 * j + 1] = k->w[q][j];
          k->wdf[q][2 * j] = k->wdf[q][2 * j + 1] = (float) k->w[q][j];
        }
    }
  return k;
}

static void
kernel_free (Kernel *k)
{
  ef_aligned_free (k);
}

EfFfbp *
ef_ffbp_new (const EfGrid *grid, double bandwidth_hz, const EfFfbpParams *params, GError **error)
{
  EfFfbp *self;
  const EfFfbpParams *p = params;
  guint per_edge = 32;

  g_return_val_if_fail (grid != NULL && params != NULL, NULL);

  if (grid->width == 0 || grid->height == 0 || !(grid->spacing > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The image grid is empty");
      return NULL;
    }
  if (!(bandwidth_hz > 0) || !isfinite (bandwidth_hz))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Fast backprojection needs the processed bandwidth (got %g Hz)", bandwidth_hz);
      return NULL;
    }
  if (p->merge_base < 2 || p->merge_base > 4 || p->max_final < 1
      || !(p->oversample_range >= 1.2 && p->oversample_range <= 8)
      || !(p->oversample_angle >= 1.2 && p->oversample_angle <= 8)
      || p->taps_range < 2 || p->taps_range > RS || p->taps_range % 2
      || p->taps_angle < 2 || p->taps_angle > AS || p->taps_angle % 2)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Fast backprojection parameters out of range: base %u (2-4), final %u (>= 1), oversampling "
                   "%g/%g (1.2-8), taps %u/%u (even, 2-%d in range, 2-%d in angle)",
                   p->merge_base, p->max_final, p->oversample_range, p->oversample_angle, p->taps_range,
                   p->taps_angle, RS, AS);
      return NULL;
    }

  self = g_new0 (EfFfbp, 1);
  self->grid = *grid;
  self->bandwidth = bandwidth_hz;
  self->params = *params;
  ef_cross3 (grid->u, grid->v, self->n);
  {
    double nn = ef_norm3 (self->n);
    for (int i = 0; i < 3; i++)
      self->n[i] /= nn;
  }
  self->avx512 = ef_bp_cpu_have_avx512 () && !ef_test_hooks_portable_simd ();
  self->kr_range = kernel_new (p->taps_range, p->oversample_range);
  self->kr_angle = kernel_new (p->taps_angle, p->oversample_angle);

  /* The ROI's boundary, one pixel outside the outermost pixel centres. */
  self->n_edge = 4 * per_edge;
  self->edge = g_malloc (sizeof (double[3]) * self->n_edge);
  for (guint i = 0; i < per_edge; i++)
    {
      double f = (double) i / per_edge;
      double w = grid->width, h = grid->height;
      double cr[4][2] = { { -1 + f * (w + 1), -1 }, { w, -1 + f * (h + 1) }, { w - f * (w + 1), h },
                          { -1, h - f * (h + 1) } };

      for (int e = 0; e < 4; e++)
        ef_grid_pixel_position (grid, cr[e][0], cr[e][1], self->edge[e * per_edge + i]);
    }
  return self;
}

void
ef_ffbp_free (EfFfbp *self)
{
  if (self == NULL)
    return;
  kernel_free (self->kr_range);
  kernel_free (self->kr_angle);
  ef_aligned_free (self->grids[0]);
  ef_aligned_free (self->grids[1]);
  g_free (self->edge);
  g_free (self);
}

void
ef_ffbp_tree_clear (Tree *tree)
{
  for (guint s = 0; s < tree->n_stages; s++)
    g_free (tree->stages[s].nodes);
  g_free (tree->stages);
  memset (tree, 0, sizeof *tree);
}

gboolean
ef_ffbp_block_setup (const EfProfiles *pr, double bandwidth, Block *b)
{
  guint n = pr->n_pulses;
  double a0[3], a1[3], len = 0, ch;

  memset (b, 0, sizeof *b);
  b->pr = pr;
  for (guint p = 0; p < n; p++)
    {
      const EfProfileMeta *m = &pr->meta[p];
      double hb[3] = { 0.5 * (m->tx[0] - m->rcv[0]), 0.5 * (m->tx[1] - m->rcv[1]), 0.5 * (m->tx[2] - m->rcv[2]) };

      b->kr += m->kr / n;
      b->base2 = MAX (b->base2, ef_dot3 (hb, hb));
      if (p > 0)
        {
          const EfProfileMeta *q = &pr->meta[p - 1];
          double d[3];
          for (int i = 0; i < 3; i++)
            d[i] = 0.5 * (m->tx[i] + m->rcv[i]) - 0.5 * (q->tx[i] + q->rcv[i]);
          len += ef_norm3 (d);
        }
    }
  b->kr_max = b->kr + 2.0 * G_PI * bandwidth / EF_C;
  b->spacing = n > 1 ? len / (n - 1) : 0;
  for (int i = 0; i < 3; i++)
    {
      a0[i] = 0.5 * (pr->meta[0].tx[i] + pr->meta[0].rcv[i]);
      a1[i] = 0.5 * (pr->meta[n - 1].tx[i] + pr->meta[n - 1].rcv[i]);
      b->tb[i] = a1[i] - a0[i];
    }
  ch = ef_norm3 (b->tb);
  if (!(ch > 0) || !(b->spacing > 0))
    return FALSE;
  for (int i = 0; i < 3; i++)
    b->tb[i] /= ch;
  return TRUE;
}

/* Centre, direction, reference range and aperture length of pulses [p0, p1). */
static void
node_geometry (const Block *b, Node *nd)
{
  const EfProfileMeta *meta = b->pr->meta;
  guint n = nd->p1 - nd->p0;
  double d[3], dn, along = 0, across = 0, rmin = INFINITY;

  memset (nd->c, 0, sizeof nd->c);
  nd->r0 = 0;
  for (guint p = nd->p0; p < nd->p1; p++)
    {
      for (int i = 0; i < 3; i++)
        nd->c[i] += 0.5 * (meta[p].tx[i] + meta[p].rcv[i]) / n;
      nd->r0 += meta[p].r0 / n;
      rmin = MIN (rmin, meta[p].r0);
    }
  for (int i = 0; i < 3; i++)
    d[i] = 0.5 * (meta[nd->p1 - 1].tx[i] + meta[nd->p1 - 1].rcv[i]) - 0.5 * (meta[nd->p0].tx[i] + meta[nd->p0].rcv[i]);
  dn = ef_norm3 (d);
  for (int i = 0; i < 3; i++)
    nd->t[i] = n > 1 && dn > 1e-3 * b->spacing ? d[i] / dn : b->tb[i];
  for (guint p = nd->p0; p < nd->p1; p++)
    {
      double s[3], sa, perp[3];
      for (int i = 0; i < 3; i++)
        s[i] = 0.5 * (meta[p].tx[i] + meta[p].rcv[i]) - nd->c[i];
      sa = ef_dot3 (s, nd->t);
      for (int i = 0; i < 3; i++)
        perp[i] = s[i] - sa * nd->t[i];
      along = MAX (along, fabs (sa));
      across = MAX (across, ef_norm3 (perp));
    }
  /* The offsets across the chord (a curved track) and a bistatic baseline widen the angular spectrum a
   * little; count them as extra length. */
  nd->len = 2.0 * along + 2.0 * across + 2.0 * b->base2 / MAX (rmin, 1.0);
  nd->len = MAX (nd->len, b->spacing);
}

/* The plane frame of a node; FALSE when the ROI cannot be mapped to polar coordinates about it. */
static gboolean
node_frame (const EfFfbp *self, Node *nd, const char **why)
{
  const EfGrid *g = &self->grid;
  const double *n = self->n;
  double tn = ef_dot3 (nd->t, n), qmin = INFINITY, qmax = -INFINITY;

  for (int i = 0; i < 3; i++)
    nd->e1[i] = nd->t[i] - tn * n[i];
  nd->tau1 = ef_norm3 (nd->e1);
  nd->taun = tn;
  if (nd->tau1 < 0.1)
    {
      *why = "the track is nearly normal to the image plane";
      return FALSE;
    }
  for (int i = 0; i < 3; i++)
    nd->e1[i] /= nd->tau1;
  ef_cross3 (n, nd->e1, nd->e2);
  {
    double co[3] = { nd->c[0] - g->origin[0], nd->c[1] - g->origin[1], nd->c[2] - g->origin[2] };
    nd->h = ef_dot3 (co, n);
  }
  for (int i = 0; i < 3; i++)
    nd->cp[i] = nd->c[i] - nd->h * n[i];
  for (guint k = 0; k < self->n_edge; k++)
    {
      const double *x = self->edge[k];
      double d[3] = { x[0] - nd->cp[0], x[1] - nd->cp[1], x[2] - nd->cp[2] };
      double q = ef_dot3 (d, nd->e2);
      qmin = MIN (qmin, q);
      qmax = MAX (qmax, q);
    }
  if (!(qmin > 0) && !(qmax < 0))
    {
      *why = "the ROI straddles the ground track";
      return FALSE;
    }
  nd->qsign = qmin > 0 ? 1.0 : -1.0;
  return TRUE;
}

/* The polar box that covers the ROI, with margins for the kernels of this stage and those above. */
static gboolean
node_extent (const EfFfbp *self, const Block *b, Node *nd, guint stages_above, const char **why)
{
  const EfGrid *g = &self->grid;
  const EfFfbpParams *p = &self->params;
  double rmin, rmax = 0, amin = INFINITY, amax = -INFINITY, mr, ma, a1;
  double cpo[3] = { nd->cp[0] - g->origin[0], nd->cp[1] - g->origin[1], nd->cp[2] - g->origin[2] };
  double ac = ef_dot3 (cpo, g->u) / g->spacing, bc = ef_dot3 (cpo, g->v) / g->spacing;
  double ax = CLAMP (ac, -1.0, (double) g->width), bx = CLAMP (bc, -1.0, (double) g->height);
  double corners[4][2] = { { -1, -1 }, { g->width, -1 }, { -1, g->height }, { g->width, g->height } };
  guint64 size;

  /* Nearest point of the rectangle to the foot of the centre, farthest corner. */
  rmin = sqrt (pow ((ax - ac) * g->spacing, 2) + pow ((bx - bc) * g->spacing, 2) + nd->h * nd->h);
  for (int k = 0; k < 4; k++)
    {
      double x[3];
      ef_grid_pixel_position (g, corners[k][0], corners[k][1], x);
      x[0] -= nd->c[0];
      x[1] -= nd->c[1];
      x[2] -= nd->c[2];
      rmax = MAX (rmax, ef_norm3 (x));
    }
  for (guint k = 0; k < self->n_edge; k++)
    {
      const double *x = self->edge[k];
      double d[3] = { x[0] - nd->c[0], x[1] - nd->c[1], x[2] - nd->c[2] };
      double al = ef_dot3 (d, nd->t) / ef_norm3 (d);
      amin = MIN (amin, al);
      amax = MAX (amax, al);
    }
  nd->drho = EF_C / (2.0 * self->bandwidth * p->oversample_range);
  nd->dal = 2.0 * G_PI / (b->kr_max * nd->len * p->oversample_angle);
  /* Each stage above, and the final step, reads its neighbourhood of the ROI through its own kernel, so
   * a stage must be right over the ROI widened by the half-kernels of every stage above it: in range
   * the same spacing each time, in angle spacings that shrink by the merge base at each stage (a
   * geometric series worth base / (base - 1) of this stage's own). */
  mr = ((p->taps_range / 2) * (stages_above + 1) + 1) * nd->drho;
  ma = ((p->taps_angle / 2) * (double) p->merge_base / (p->merge_base - 1) + 1) * nd->dal;
  nd->rho0 = rmin - mr;
  nd->nrho = (guint) ceil ((rmax + mr - nd->rho0) / nd->drho) + 1;
  nd->al0 = MAX (amin - ma, -1.0 - nd->dal);
  a1 = MIN (amax + ma, 1.0 + nd->dal);
  nd->nal = (guint) ceil ((a1 - nd->al0) / nd->dal) + 1;
  nd->stride = nd->nrho + PAD;
  size = (guint64) nd->nal * nd->stride;
  if (size > (G_GUINT64_CONSTANT (1) << 26))
    {
      *why = "a polar grid would be too large";
      return FALSE;
    }
  return TRUE;
}

gboolean
ef_ffbp_tree_build (const EfFfbp *self, const Block *b, guint L, const EfFfbpCosts *costs, Tree *tree,
                    const char **why)
{
  const EfFfbpParams *p = &self->params;
  guint n = b->pr->n_pulses, n_leaves = (n + L - 1) / L, n_st = 1, cnt = n_leaves;
  double npx = (double) ef_grid_n_pixels (&self->grid);

  memset (tree, 0, sizeof *tree);
  tree->leaf_pulses = L;
  if (p->factorised)
    while (cnt > p->max_final)
      {
        cnt = (cnt + p->merge_base - 1) / p->merge_base;
        n_st++;
      }
  tree->n_stages = n_st;
  tree->stages = g_new0 (Stage, n_st);
  tree->stages[0].n = n_leaves;
  tree->stages[0].nodes = g_new0 (Node, n_leaves);
  for (guint i = 0; i < n_leaves; i++)
    {
      Node *nd = &tree->stages[0].nodes[i];
      nd->p0 = (guint) ((guint64) i * n / n_leaves);
      nd->p1 = (guint) ((guint64) (i + 1) * n / n_leaves);
    }
  for (guint s = 1; s < n_st; s++)
    {
      Stage *lo = &tree->stages[s - 1], *st = &tree->stages[s];

      st->n = (lo->n + p->merge_base - 1) / p->merge_base;
      st->nodes = g_new0 (Node, st->n);
      for (guint i = 0; i < st->n; i++)
        {
          Node *nd = &st->nodes[i];
          nd->c0 = i * p->merge_base;
          nd->nc = MIN (p->merge_base, lo->n - nd->c0);
          nd->p0 = lo->nodes[nd->c0].p0;
          nd->p1 = lo->nodes[nd->c0 + nd->nc - 1].p1;
        }
    }

  tree->cost = 0;
  for (guint s = 0; s < n_st; s++)
    {
      Stage *st = &tree->stages[s];

      for (guint i = 0; i < st->n; i++)
        {
          Node *nd = &st->nodes[i];
          double pts;

          node_geometry (b, nd);
          if (!node_frame (self, nd, why) || !node_extent (self, b, nd, n_st - 1 - s, why))
            return FALSE;
          pts = (double) nd->nal * nd->nrho;
          tree->cost += s == 0 ? costs->leaf * pts * (nd->p1 - nd->p0) : costs->merge * pts * nd->nc;
        }
    }
  tree->cost += costs->final * npx * tree->stages[n_st - 1].n;
  return TRUE;
}

/* Leaf lengths worth trying: powers of two and their halfway points. */
static guint
next_candidate (guint L)
{
  guint p = 1;

  while (p * 2 <= L)
    p *= 2;
  if (L < 3)
    return L + 1;
  return L == p ? p + p / 2 : 2 * p;
}

/* The leaf length before L among next_candidate's lengths, or 0 before the first. */
static guint
prev_candidate (guint L)
{
  guint prev = 0;

  for (guint c = 1; c < L; c = next_candidate (c))
    prev = c;
  return prev;
}

gboolean
ef_ffbp_plan (const EfFfbp *self, const EfProfiles *profiles, const EfFfbpCosts *costs, EfFfbpSearch search,
              EfFfbpPlan *plan, GError **error)
{
  const EfFfbpParams *p;
  Tree *tree;
  Block *b;
  const char *why = NULL;

  g_return_val_if_fail (self != NULL && profiles != NULL && costs != NULL && plan != NULL, FALSE);

  memset (plan, 0, sizeof *plan);
  p = &self->params;
  tree = &plan->tree;
  b = &plan->block;
  b->pr = profiles;
  if (profiles->n_pulses == 0)
    return TRUE;
  plan->bp_cost = costs->bp * (double) ef_grid_n_pixels (&self->grid) * profiles->n_pulses;

  if (profiles->n_pulses < 2 || !ef_ffbp_block_setup (profiles, self->bandwidth, b))
    why = "the block has fewer than two distinct pulse positions";
  else if (p->leaf_pulses > 0)
    {
      if (!ef_ffbp_tree_build (self, b, MIN (p->leaf_pulses, profiles->n_pulses), costs, tree, &why))
        ef_ffbp_tree_clear (tree);
    }
  else if (search == EF_FFBP_SEARCH_DESCEND)
    {
      guint top = 1, worse = 0;
      const char *why_cand = NULL;

      while (next_candidate (top) <= profiles->n_pulses)
        top = next_candidate (top);
      for (guint L = top; L > 0 && worse < 2; L = prev_candidate (L))
        {
          Tree cand;

          if (!ef_ffbp_tree_build (self, b, L, costs, &cand, &why_cand))
            {
              ef_ffbp_tree_clear (&cand);
              worse += tree->stages != NULL;
              continue;
            }
          if (tree->stages == NULL || cand.cost < tree->cost)
            {
              ef_ffbp_tree_clear (tree);
              *tree = cand;
              worse = 0;
            }
          else
            {
              ef_ffbp_tree_clear (&cand);
              worse++;
            }
        }
      if (tree->stages == NULL)
        why = why_cand;
    }
  else
    {
      /* The leaf length that minimises the operation count. */
      for (guint L = 1; L <= profiles->n_pulses; L = next_candidate (L))
        {
          Tree cand;

          if (!ef_ffbp_tree_build (self, b, L, costs, &cand, &why))
            {
              ef_ffbp_tree_clear (&cand);
              break;
            }
          if (tree->stages == NULL || cand.cost < tree->cost)
            {
              ef_ffbp_tree_clear (tree);
              *tree = cand;
            }
          else
            ef_ffbp_tree_clear (&cand);
        }
      if (tree->stages != NULL)
        why = NULL;
    }
  if (tree->stages != NULL && p->bp_fallback && tree->cost >= plan->bp_cost)
    why = "a factorised tree would cost more than exact backprojection for this region and block";
  if (tree->stages == NULL || (why != NULL && p->bp_fallback))
    {
      if (why == NULL)
        why = "no polar grid fits";
      ef_ffbp_tree_clear (tree);
      plan->use_bp = TRUE;
      plan->why = why;
      if (!p->bp_fallback)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "Fast backprojection cannot form this block: %s", why);
          return FALSE;
        }
    }
  return TRUE;
}

void
ef_ffbp_plan_clear (EfFfbpPlan *plan)
{
  if (plan == NULL)
    return;
  ef_ffbp_tree_clear (&plan->tree);
  memset (plan, 0, sizeof *plan);
}

void
ef_ffbp_plan_stats (const EfFfbpPlan *plan, EfFfbpStats *st)
{
  const Tree *tree = &plan->tree;

  memset (st, 0, sizeof *st);
  st->n_pulses = plan->block.pr ? plan->block.pr->n_pulses : 0;
  if (plan->use_bp)
    {
      st->used_bp = TRUE;
      st->why_bp = plan->why;
      st->est_speedup = 1.0;
      return;
    }
  if (tree->stages == NULL)
    return;
  st->leaf_pulses = tree->leaf_pulses;
  st->n_leaves = tree->stages[0].n;
  st->n_stages = tree->n_stages - 1;
  st->n_final = tree->stages[tree->n_stages - 1].n;
  st->est_speedup = plan->bp_cost / tree->cost;
  for (guint s = 0; s < tree->n_stages; s++)
    for (guint i = 0; i < tree->stages[s].n; i++)
      st->polar_samples += (guint64) tree->stages[s].nodes[i].nal * tree->stages[s].nodes[i].nrho;
}
