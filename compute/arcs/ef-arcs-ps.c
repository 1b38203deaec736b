/* ef-arcs-ps.c: PS candidates from arc coherence, and the arc network integrated from a reference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-arcs-ps"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-arcs-ps.h"
#include "ef-error.h"

/* An arc a region found, by image pixel index, before it is known whether its far end is a candidate. */
typedef struct {
  gsize  p, q;
  double dv, dh, coherence;
} PendingArc;

/* By near end, then far end: the order the threads found them in is not the same from run to run. */
static int
pending_cmp (gconstpointer a, gconstpointer b)
{
  const PendingArc *x = a, *y = b;

  if (x->p != y->p)
    return x->p < y->p ? -1 : 1;
  return x->q < y->q ? -1 : x->q > y->q;
}

void
ef_ps_params_init (EfPsParams *p)
{
  memset (p, 0, sizeof *p);
  p->window = (EfArcWindow) { 3, EF_ARC_WINDOW_SQUARE };
  p->plain = FALSE;
  p->grid = (EfArcGrid) { -0.012, 0.012, 13, -24.0, 24.0, 13 };
  p->threshold = 0.75;
  p->arc_threshold = 0.75;
  p->ref_col = -1;
  p->ref_row = -1;
}

EfPsNetwork *
ef_ps_network_new (guint width, guint height)
{
  EfPsNetwork *net = g_new0 (EfPsNetwork, 1);

  net->width = width;
  net->height = height;
  net->candidates = g_array_new (FALSE, FALSE, sizeof (EfPsCandidate));
  net->arcs = g_array_new (FALSE, FALSE, sizeof (EfPsArc));
  net->pending = g_array_new (FALSE, FALSE, sizeof (PendingArc));
  net->index = g_hash_table_new (g_direct_hash, g_direct_equal);
  return net;
}

void
ef_ps_network_free (EfPsNetwork *net)
{
  if (net == NULL)
    return;
  g_array_unref (net->candidates);
  g_array_unref (net->arcs);
  g_array_unref (net->pending);
  g_hash_table_unref (net->index);
  g_free (net);
}

/* The arc's series in double, from the phasors. */
static void
arc_series (const EfArcPhasors *ph, guint pc, guint pr, guint qc, guint qr, EfCf64 *z)
{
  gsize plane = (gsize) ph->width * ph->height;
  gsize p = (gsize) pr * ph->width + pc, q = (gsize) qr * ph->width + qc;

  for (guint k = 0; k < ph->n_passes; k++)
    {
      EfCf64 a = ph->re[k * plane + p] + I * (double) ph->im[k * plane + p];
      EfCf64 b = ph->re[k * plane + q] + I * (double) ph->im[k * plane + q];

      z[k] = a * conj (b);
    }
}

static gboolean
rect_inside (const EfRect *in, const EfRect *out)
{
  return in->x >= out->x && in->y >= out->y && in->x + in->width <= out->x + out->width
         && in->y + in->height <= out->y + out->height;
}

gboolean
ef_ps_network_add_region (EfPsNetwork *net, const EfCf32 *region_data, const EfRect *rect, const EfRect *core,
                          const EfArcModel *model, const EfPsParams *params, float *score, GError **error)
{
  g_autoptr (EfArcPhasors) ph = NULL;
  g_autofree float *coh = NULL;
  g_autofree guint16 *best = NULL;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  guint n_off;
  gsize plane, n_coh;

  g_return_val_if_fail (net != NULL && region_data != NULL && rect != NULL && core != NULL, FALSE);
  g_return_val_if_fail (model != NULL && params != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ef_arc_window_check (&params->window, error) || !ef_arc_model_check (model, error)
      || !ef_arc_grid_check (&params->grid, error))
    return FALSE;
  if (!rect_inside (core, rect) || rect->x + rect->width > net->width || rect->y + rect->height > net->height
      || core->width == 0 || core->height == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A region's core must lie inside the region, and the region inside the image");
      return FALSE;
    }
  ph = ef_arc_phasors_new (region_data, rect->width, rect->height, model->n_passes, error);
  if (ph == NULL)
    return FALSE;
  n_off = ef_arc_offsets (&params->window, off);
  plane = (gsize) rect->width * rect->height;
  n_coh = plane * n_off;
  coh = g_try_new (float, n_coh);
  if (!params->plain)
    best = g_try_new (guint16, n_coh);
  if (coh == NULL || (!params->plain && best == NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the arcs of a %u x %u region",
                   rect->width, rect->height);
      return FALSE;
    }
  if (params->plain)
    ef_arcs_plain (ph, off, n_off, coh);
  else if (!ef_arcs_periodogram (ph, off, n_off, model, &params->grid, coh, best, error))
    return FALSE;
  return ef_ps_network_add_arcs (net, ph, coh, best, rect, core, model, params, score, error);
}

gboolean
ef_ps_network_add_arcs (EfPsNetwork *net, const EfArcPhasors *ph, const float *coh, const guint16 *best,
                        const EfRect *rect, const EfRect *core, const EfArcModel *model, const EfPsParams *params,
                        float *score, GError **error)
{
  g_autofree float *rscore = NULL;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  guint n_off, n_grid;
  gsize plane;
  GArray *found;

  g_return_val_if_fail (net != NULL && ph != NULL && coh != NULL && rect != NULL && core != NULL, FALSE);
  g_return_val_if_fail (model != NULL && params != NULL && (params->plain || best != NULL), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ef_arc_window_check (&params->window, error) || !ef_arc_model_check (model, error)
      || !ef_arc_grid_check (&params->grid, error))
    return FALSE;
  if (!rect_inside (core, rect) || rect->x + rect->width > net->width || rect->y + rect->height > net->height
      || core->width == 0 || core->height == 0 || ph->width != rect->width || ph->height != rect->height
      || ph->n_passes != model->n_passes)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A region's core must lie inside the region, the region inside the image, and the phasors "
                   "must be the region's");
      return FALSE;
    }
  n_off = ef_arc_offsets (&params->window, off);
  plane = (gsize) rect->width * rect->height;
  rscore = g_try_new (float, plane);
  if (rscore == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the scores of a %u x %u region",
                   rect->width, rect->height);
      return FALSE;
    }
  ef_arcs_pixel_scores (coh, rect->width, rect->height, off, n_off, rscore);

  for (guint r = core->y; r < core->y + core->height; r++)
    for (guint c = core->x; c < core->x + core->width; c++)
      {
        float s = rscore[(gsize) (r - rect->y) * rect->width + (c - rect->x)];
        gsize pix = (gsize) r * net->width + c;

        if (score != NULL)
          score[pix] = s;
        if (s >= params->threshold && !g_hash_table_contains (net->index, GSIZE_TO_POINTER (pix)))
          {
            EfPsCandidate cand = { c, r, s, NAN, NAN, FALSE };

            g_array_append_val (net->candidates, cand);
            g_hash_table_insert (net->index, GSIZE_TO_POINTER (pix), GUINT_TO_POINTER (net->candidates->len));
          }
      }

  /* The arcs from the core's candidates that may join the network, refined in double. A far end inside
   * the region whose score is below the threshold cannot be a candidate: its every arc lies in the region
   * when the region reaches the radius beyond the core, and otherwise the score seen is a lower bound. */
  n_grid = params->grid.nv * params->grid.nh;
  found = g_array_new (FALSE, FALSE, sizeof (PendingArc));
#pragma omp parallel
  {
    EfCf64 *z = g_new (EfCf64, model->n_passes);
    GArray *mine = g_array_new (FALSE, FALSE, sizeof (PendingArc));

#pragma omp for collapse(2) schedule(dynamic, 8)
    for (guint r = core->y; r < core->y + core->height; r++)
      for (guint c = core->x; c < core->x + core->width; c++)
        {
          guint lr = r - rect->y, lc = c - rect->x;

          if (rscore[(gsize) lr * rect->width + lc] < params->threshold)
            continue;
          for (guint o = 0; o < n_off; o++)
            {
              int qc = (int) lc + off[o].dx, qr = (int) lr + off[o].dy;
              gsize i = o * plane + (gsize) lr * rect->width + lc;
              double v, h, g;

              if (qc < 0 || qr < 0 || qc >= (int) rect->width || qr >= (int) rect->height)
                continue;
              if (rscore[(gsize) qr * rect->width + qc] < params->threshold)
                continue;
              arc_series (ph, lc, lr, (guint) qc, (guint) qr, z);
              if (!params->plain)
                ef_arc_grid_point (&params->grid, best[i], &v, &h);
              else
                {
                  /* The plain score gives no start: search the grid in double first. */
                  double top = -1;

                  v = h = 0;
                  for (guint gi = 0; gi < n_grid; gi++)
                    {
                      double gv, gh, e;

                      ef_arc_grid_point (&params->grid, gi, &gv, &gh);
                      e = ef_arc_periodogram64 (z, model, gv, gh);
                      if (e > top)
                        {
                          top = e;
                          v = gv;
                          h = gh;
                        }
                    }
                }
              g = ef_arc_refine (z, model, &params->grid, &v, &h);
              if (g >= params->arc_threshold)
                {
                  PendingArc pa = { (gsize) r * net->width + c,
                                    (gsize) (qr + rect->y) * net->width + (guint) (qc + rect->x), v, h, g };
                  g_array_append_val (mine, pa);
                }
            }
        }
#pragma omp critical
    g_array_append_vals (found, mine->data, mine->len);
    g_array_unref (mine);
    g_free (z);
  }
  /* In a fixed order, so that the network (and its solution, to the last bit) is the same every run. */
  g_array_sort (found, pending_cmp);
  g_array_append_vals (net->pending, found->data, found->len);
  g_array_unref (found);
  return TRUE;
}

/* y = L x over the connected nodes, with the reference held at zero: the weighted graph Laplacian. */
static void
laplacian (const EfPsArc *arcs, guint n_arcs, const double *w, const gboolean *in, guint ref, const double *x,
           double *y, guint n)
{
  memset (y, 0, n * sizeof (double));
  for (guint i = 0; i < n_arcs; i++)
    {
      guint a = arcs[i].a, b = arcs[i].b;
      double xa = a == ref ? 0 : x[a], xb = b == ref ? 0 : x[b];

      if (!in[a])
        continue;
      y[a] += w[i] * (xa - xb);
      y[b] -= w[i] * (xa - xb);
    }
  y[ref] = 0;
  for (guint i = 0; i < n; i++)
    if (!in[i])
      y[i] = 0;
}

/* Solves L x = rhs by conjugate gradients with a Jacobi preconditioner, x = 0 at the reference. */
static void
integrate (const EfPsArc *arcs, guint n_arcs, const double *w, const gboolean *in, guint ref, gboolean heights,
           double *x, guint n)
{
  g_autofree double *rhs = g_new0 (double, n);
  g_autofree double *diag = g_new0 (double, n);
  g_autofree double *r = g_new (double, n);
  g_autofree double *z = g_new (double, n);
  g_autofree double *p = g_new (double, n);
  g_autofree double *q = g_new (double, n);
  double rz = 0, b2 = 0;

  for (guint i = 0; i < n_arcs; i++)
    {
      double d = heights ? arcs[i].dh : arcs[i].dv;

      if (!in[arcs[i].a])
        continue;
      rhs[arcs[i].a] += w[i] * d;
      rhs[arcs[i].b] -= w[i] * d;
      diag[arcs[i].a] += w[i];
      diag[arcs[i].b] += w[i];
    }
  rhs[ref] = 0;
  memset (x, 0, n * sizeof (double));
  for (guint i = 0; i < n; i++)
    {
      if (!in[i] || i == ref)
        rhs[i] = 0;
      r[i] = rhs[i];
      z[i] = diag[i] > 0 ? r[i] / diag[i] : 0;
      p[i] = z[i];
      rz += r[i] * z[i];
      b2 += rhs[i] * rhs[i];
    }
  for (guint it = 0; it < 10 * n + 100 && rz > 0; it++)
    {
      double pq = 0, alpha, rz_new = 0, r2 = 0;

      laplacian (arcs, n_arcs, w, in, ref, p, q, n);
      for (guint i = 0; i < n; i++)
        pq += p[i] * q[i];
      if (!(pq > 0))
        break;
      alpha = rz / pq;
      for (guint i = 0; i < n; i++)
        {
          x[i] += alpha * p[i];
          r[i] -= alpha * q[i];
          z[i] = diag[i] > 0 ? r[i] / diag[i] : 0;
          rz_new += r[i] * z[i];
          r2 += r[i] * r[i];
        }
      if (r2 <= 1e-24 * b2)
        break;
      for (guint i = 0; i < n; i++)
        p[i] = z[i] + (rz_new / rz) * p[i];
      rz = rz_new;
    }
  x[ref] = 0;
}

gboolean
ef_ps_network_solve (EfPsNetwork *net, const EfPsParams *params, GError **error)
{
  guint n, ref = 0;
  g_autofree gboolean *in = NULL;
  g_autofree double *w = NULL;
  g_autofree double *xv = NULL;
  g_autofree double *xh = NULL;
  g_autofree guint *queue = NULL;
  g_autofree guint *first = NULL;
  g_autofree guint *adj = NULL;
  EfPsArc *arcs;
  guint n_arcs, head = 0, tail = 0;

  g_return_val_if_fail (net != NULL && params != NULL, FALSE);
  n = net->candidates->len;
  if (n == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED,
                   "No pixel reached the threshold %.3g: there is no PS candidate", params->threshold);
      return FALSE;
    }
  if (params->ref_col >= 0 && params->ref_row >= 0)
    {
      gsize pix = (gsize) params->ref_row * net->width + (guint) params->ref_col;
      gpointer v = g_hash_table_lookup (net->index, GSIZE_TO_POINTER (pix));

      if ((guint) params->ref_col >= net->width || (guint) params->ref_row >= net->height || v == NULL)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "The reference pixel (%d, %d) is not a PS candidate", params->ref_col, params->ref_row);
          return FALSE;
        }
      ref = GPOINTER_TO_UINT (v) - 1;
    }
  else
    for (guint i = 1; i < n; i++)
      if (g_array_index (net->candidates, EfPsCandidate, i).score
          > g_array_index (net->candidates, EfPsCandidate, ref).score)
        ref = i;

  g_array_set_size (net->arcs, 0);
  for (guint i = 0; i < net->pending->len; i++)
    {
      PendingArc *pa = &g_array_index (net->pending, PendingArc, i);
      gpointer a = g_hash_table_lookup (net->index, GSIZE_TO_POINTER (pa->p));
      gpointer b = g_hash_table_lookup (net->index, GSIZE_TO_POINTER (pa->q));

      if (a != NULL && b != NULL)
        {
          EfPsArc arc = { GPOINTER_TO_UINT (a) - 1, GPOINTER_TO_UINT (b) - 1, pa->dv, pa->dh, pa->coherence };
          g_array_append_val (net->arcs, arc);
        }
    }
  arcs = (EfPsArc *) net->arcs->data;
  n_arcs = net->arcs->len;

  /* The reference's connected part, breadth first over an adjacency list (counting sort by node). */
  first = g_new0 (guint, n + 1);
  adj = g_new (guint, 2 * (gsize) n_arcs + 1);
  for (guint i = 0; i < n_arcs; i++)
    {
      first[arcs[i].a + 1]++;
      first[arcs[i].b + 1]++;
    }
  for (guint i = 0; i < n; i++)
    first[i + 1] += first[i];
  {
    g_autofree guint *fill = g_memdup2 (first, (n + 1) * sizeof (guint));

    for (guint i = 0; i < n_arcs; i++)
      {
        adj[fill[arcs[i].a]++] = arcs[i].b;
        adj[fill[arcs[i].b]++] = arcs[i].a;
      }
  }
  in = g_new0 (gboolean, n);
  queue = g_new (guint, n);
  in[ref] = TRUE;
  queue[tail++] = ref;
  while (head < tail)
    {
      guint u = queue[head++];

      for (guint j = first[u]; j < first[u + 1]; j++)
        if (!in[adj[j]])
          {
            in[adj[j]] = TRUE;
            queue[tail++] = adj[j];
          }
    }

  w = g_new (double, MAX (n_arcs, 1));
  for (guint i = 0; i < n_arcs; i++)
    {
      double g2 = arcs[i].coherence * arcs[i].coherence;
      w[i] = g2 / MAX (1 - g2, 1e-3);
    }
  xv = g_new (double, n);
  xh = g_new (double, n);
  integrate (arcs, n_arcs, w, in, ref, FALSE, xv, n);
  integrate (arcs, n_arcs, w, in, ref, TRUE, xh, n);
  net->n_connected = tail;
  net->ref = ref;
  for (guint i = 0; i < n; i++)
    {
      EfPsCandidate *c = &g_array_index (net->candidates, EfPsCandidate, i);

      c->connected = in[i];
      c->velocity = in[i] ? xv[i] : NAN;
      c->height = in[i] ? xh[i] : NAN;
    }
  return TRUE;
}

EfPsNetwork *
ef_ps_run (const EfCf32 *stack, guint width, guint height, const EfArcModel *model, const EfPsParams *params,
           float *score, GError **error)
{
  g_autoptr (EfPsNetwork) net = NULL;
  EfRect all = { 0, 0, width, height };

  g_return_val_if_fail (stack != NULL && model != NULL && params != NULL, NULL);
  net = ef_ps_network_new (width, height);
  if (!ef_ps_network_add_region (net, stack, &all, &all, model, params, score, error)
      || !ef_ps_network_solve (net, params, error))
    return NULL;
  return g_steal_pointer (&net);
}
