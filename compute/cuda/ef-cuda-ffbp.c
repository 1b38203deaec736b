/* ef-cuda-ffbp.c: FFBP and FBP on the GPU: the plan on the host, its records and buffers on the device. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-ffbp.h"
#include "ef-cuda-test-hooks.h"

#define FREE_DEV(p) G_STMT_START { if (p) EF_CUDA_WARN (cudaFree (p)); (p) = NULL; } G_STMT_END
#define FREE_HOST(p) G_STMT_START { if (p) EF_CUDA_WARN (cudaFreeHost (p)); (p) = NULL; } G_STMT_END

/* Byte offsets inside the per-block record buffer; parts start 256-aligned. */
typedef struct {
  gsize nodes, groups, upload;             /* copied from the host */
  gsize max, scale, prof_max, total;       /* zeroed on the device */
} StateLayout;

struct _EfCudaFfbp {
  EfFfbp      *former;        /* owned: grid, parameters, kernels and ROI boundary: the CPU's */
  EfPrecision  precision;
  void        *d_wr, *d_wa;   /* owned: (w, dw) tables */
  float        gain;          /* largest sum of |weights| of the 2-D kernel, for fp16 bounds */
  void        *d_grid[2];     /* owned: polar grids, even and odd stages */
  gsize        grid_bytes[2];
  void        *d_state;       /* owned: the block's records */
  gsize        state_bytes;
  void        *h_state[2];    /* owned, pinned: staging of the records, alternately */
  gsize        h_bytes[2];
  cudaEvent_t  ev_state[2];   /* the copy out of h_state[k] is done */
  guint        slot;
  EfFfbpPlan   plan;          /* owned: the prepared block's, borrowing its metadata */
  gboolean     planned;       /* plan is ready for ef_cuda_ffbp_queue */
  /* Step timing, for the kernel-level entry point. */
  gboolean     time_steps;
  cudaEvent_t  ev_step[4];
};

static inline gsize
align256 (gsize n)
{
  return (n + 255) & ~(gsize) 255;
}

/* The (w, dw) table of a kernel: taps entries per phase q < KQ. */
static float *
kernel_table (const EfFfbpKernel *k, guint taps, float *abs_sum)
{
  float *t = g_new (float, 2 * (gsize) EF_FFBP_KQ * taps);

  *abs_sum = 0.f;
  for (guint q = 0; q <= EF_FFBP_KQ; q++)
    {
      float s = 0.f;

      for (guint j = 0; j < taps; j++)
        s += fabsf (k->wf[q][j]);
      *abs_sum = MAX (*abs_sum, s);
    }
  for (guint q = 0; q < EF_FFBP_KQ; q++)
    for (guint j = 0; j < taps; j++)
      {
        /* The CPU's float weights and their float difference, as its float32 gather blends them. */
        t[2 * (q * taps + j)] = k->wf[q][j];
        t[2 * (q * taps + j) + 1] = k->wf[q + 1][j] - k->wf[q][j];
      }
  return t;
}

EfCudaFfbp *
ef_cuda_ffbp_new (const EfGrid *grid, double bandwidth_hz, const EfFfbpParams *params, EfPrecision precision,
                  GError **error)
{
  g_autoptr (EfCudaFfbp) self = NULL;
  g_autofree float *wr = NULL;
  g_autofree float *wa = NULL;
  float sr, sa;

  g_return_val_if_fail (grid != NULL && params != NULL, NULL);

  if (precision != EF_PRECISION_FP32 && precision != EF_PRECISION_FP16)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "GPU fast backprojection computes in fp32 or fp16, not %s",
                   ef_precision_to_string (precision));
      return NULL;
    }
  self = g_new0 (EfCudaFfbp, 1);
  self->precision = precision;
  self->former = ef_ffbp_new (grid, bandwidth_hz, params, error);
  if (self->former == NULL)
    return NULL;

  wr = kernel_table (self->former->kr_range, EF_FFBP_RS, &sr);
  wa = kernel_table (self->former->kr_angle, params->taps_angle, &sa);
  /* The blend of two table rows is a convex combination: its sum of |w| is no more than theirs. */
  self->gain = 1.001f * sr * sa;
  for (int k = 0; k < 2; k++)
    EF_CUDA_CHECK (cudaEventCreateWithFlags (&self->ev_state[k], cudaEventDisableTiming), error);
  for (int k = 0; k < 4; k++)
    EF_CUDA_CHECK (cudaEventCreate (&self->ev_step[k]), error);
  EF_CUDA_CHECK (ef_cuda_malloc (&self->d_wr, 2 * sizeof (float) * EF_FFBP_KQ * EF_FFBP_RS), error);
  EF_CUDA_CHECK (ef_cuda_malloc (&self->d_wa, 2 * sizeof (float) * EF_FFBP_KQ * params->taps_angle), error);
  EF_CUDA_CHECK (cudaMemcpy (self->d_wr, wr, 2 * sizeof (float) * EF_FFBP_KQ * EF_FFBP_RS,
                             cudaMemcpyHostToDevice),
                 error);
  EF_CUDA_CHECK (cudaMemcpy (self->d_wa, wa, 2 * sizeof (float) * EF_FFBP_KQ * params->taps_angle,
                             cudaMemcpyHostToDevice),
                 error);
  return g_steal_pointer (&self);
}

void
ef_cuda_ffbp_free (EfCudaFfbp *self)
{
  if (self == NULL)
    return;
  /* Queued kernels may still read the buffers. */
  EF_CUDA_WARN (cudaDeviceSynchronize ());
  FREE_DEV (self->d_wr);
  FREE_DEV (self->d_wa);
  for (int k = 0; k < 2; k++)
    {
      FREE_DEV (self->d_grid[k]);
      FREE_HOST (self->h_state[k]);
      if (self->ev_state[k])
        EF_CUDA_WARN (cudaEventDestroy (self->ev_state[k]));
    }
  for (int k = 0; k < 4; k++)
    if (self->ev_step[k])
      EF_CUDA_WARN (cudaEventDestroy (self->ev_step[k]));
  FREE_DEV (self->d_state);
  ef_ffbp_plan_clear (&self->plan);
  ef_ffbp_free (self->former);
  g_free (self);
}

guint64
ef_cuda_ffbp_device_bytes (EfCudaFfbp *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->grid_bytes[0] + self->grid_bytes[1] + self->state_bytes
         + 2 * sizeof (float) * EF_FFBP_KQ * (EF_FFBP_RS + self->former->params.taps_angle);
}

/* Device memory of at least need bytes in *buf (capacity *cap), growing by a margin so that blocks of
 * slightly different geometry do not reallocate every time. Waits for stream before freeing. */
static gboolean
ensure_device (void **buf, gsize *cap, gsize need, cudaStream_t stream, GError **error)
{
  gsize want;

  if (need <= *cap && *buf != NULL)
    return TRUE;
  want = need + need / 8 + 4096;
  EF_CUDA_CHECK (cudaStreamSynchronize (stream), error);
  FREE_DEV (*buf);
  *cap = 0;
  if (!ef_cuda_check_ (ef_cuda_malloc (buf, want), "cudaMalloc (polar grids)", __FILE__, __LINE__, error))
    {
      /* Leaves no sticky error behind. */
      (void) cudaGetLastError ();
      *buf = NULL;
      g_prefix_error (error, "Fast backprojection: %" G_GSIZE_FORMAT " MB of grids: ", want >> 20);
      return FALSE;
    }
  *cap = want;
  return TRUE;
}

static gboolean
ensure_host (EfCudaFfbp *self, guint k, gsize need, GError **error)
{
  gsize want;

  if (need <= self->h_bytes[k] && self->h_state[k] != NULL)
    return TRUE;
  want = need + need / 8 + 4096;
  FREE_HOST (self->h_state[k]);
  self->h_bytes[k] = 0;
  if (!ef_cuda_check_ (ef_cuda_malloc_host (&self->h_state[k], want), "cudaMallocHost (records)", __FILE__,
                       __LINE__, error))
    {
      (void) cudaGetLastError ();
      self->h_state[k] = NULL;
      return FALSE;
    }
  self->h_bytes[k] = want;
  return TRUE;
}

static void
node_record (const EfFfbpNode *nd, guint64 off, guint row0, EfCudaFfbpNode *out)
{
  memset (out, 0, sizeof *out);
  memcpy (out->c, nd->c, sizeof out->c);
  memcpy (out->t, nd->t, sizeof out->t);
  memcpy (out->cp, nd->cp, sizeof out->cp);
  memcpy (out->e1, nd->e1, sizeof out->e1);
  memcpy (out->e2, nd->e2, sizeof out->e2);
  /* The same derived numbers as the CPU's node_row_points and gather. */
  out->h = nd->h;
  out->hn = nd->h * nd->taun;
  out->itau = 1.0 / nd->tau1;
  out->qsign = nd->qsign;
  out->r0 = nd->r0;
  out->rho0 = nd->rho0;
  out->drho = nd->drho;
  out->al0 = nd->al0;
  out->dal = nd->dal;
  out->idrho = 1.0 / nd->drho;
  out->idal = 1.0 / nd->dal;
  out->off = off;
  out->nrho = nd->nrho;
  out->nal = nd->nal;
  out->stride = nd->stride;
  out->row0 = row0;
  out->p0 = nd->p0;
  out->p1 = nd->p1;
  out->c0 = nd->c0;
  out->nc = nd->nc;
}

static guint
div_up (guint a, guint b)
{
  return (a + b - 1) / b;
}

gboolean
ef_cuda_ffbp_prepare (EfCudaFfbp *self, const EfProfiles *meta, gboolean *use_bp, EfFfbpStats *stats,
                      GError **error)
{
  g_return_val_if_fail (self != NULL && meta != NULL, FALSE);

  ef_ffbp_plan_clear (&self->plan);
  self->planned = FALSE;
  if (use_bp)
    *use_bp = FALSE;
  if (stats)
    memset (stats, 0, sizeof *stats);
  if (!ef_ffbp_plan (self->former, meta, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &self->plan, error))
    {
      ef_ffbp_plan_clear (&self->plan);
      return FALSE;
    }
  if (stats)
    ef_ffbp_plan_stats (&self->plan, stats);
  if (use_bp)
    *use_bp = self->plan.use_bp;
  self->planned = !self->plan.use_bp && self->plan.tree.stages != NULL;
  return TRUE;
}

/* The groups of output rows of stage s: one row each for the leaves, gather_rows for merges. */
static guint
stage_groups (const EfFfbpStage *st, guint per)
{
  guint n = 0;

  for (guint i = 0; i < st->n; i++)
    n += div_up (st->nodes[i].nal, per);
  return n;
}

gboolean
ef_cuda_ffbp_queue (EfCudaFfbp *self, cudaStream_t stream, const EfCudaFfbpInput *in, void *image,
                    GError **error)
{
  const EfFfbpTree *tree = &self->plan.tree;
  const EfProfiles *meta = self->plan.block.pr;
  const EfGrid *g = &self->former->grid;
  const gsize elem = self->precision == EF_PRECISION_FP16 ? 4 : 8;
  const guint gather_rows = ef_cuda_ffbp_gather_rows ();
  const gboolean half = self->precision == EF_PRECISION_FP16;
  g_autofree guint *node_base = NULL;
  g_autofree guint *group_base = NULL;
  gsize need[2] = { 0, 0 };
  guint n_nodes = 0, n_groups = 0, slot;
  StateLayout L;
  char *h;
  EfCudaFfbpNode *h_nodes;
  guint *h_groups;
  EfCudaFfbpArgs a;

  g_return_val_if_fail (self != NULL && in != NULL && image != NULL, FALSE);
  g_return_val_if_fail (in->guard >= 1 && in->table_stride >= meta->n_bins + 2 * in->guard, FALSE);
  if (!self->planned)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "No block is prepared for fast backprojection");
      return FALSE;
    }
  self->planned = FALSE;

  /* Records: every node of every stage and the groups of rows of every stage. */
  node_base = g_new (guint, tree->n_stages);
  group_base = g_new (guint, tree->n_stages);
  for (guint s = 0; s < tree->n_stages; s++)
    {
      guint64 off = 0;

      node_base[s] = n_nodes;
      group_base[s] = n_groups;
      n_nodes += tree->stages[s].n;
      n_groups += stage_groups (&tree->stages[s], s == 0 ? 1 : gather_rows);
      for (guint i = 0; i < tree->stages[s].n; i++)
        off += (guint64) tree->stages[s].nodes[i].nal * tree->stages[s].nodes[i].stride;
      need[s % 2] = MAX (need[s % 2], off * elem);
    }
  L.nodes = 0;
  L.groups = align256 (L.nodes + n_nodes * sizeof (EfCudaFfbpNode));
  L.upload = L.groups + 2 * (gsize) n_groups * sizeof (guint);
  L.max = align256 (L.upload);
  L.scale = align256 (L.max + n_nodes * sizeof (float));
  L.prof_max = align256 (L.scale + n_nodes * sizeof (float));
  L.total = L.prof_max + 256;

  if (!ensure_device (&self->d_grid[0], &self->grid_bytes[0], need[0], stream, error)
      || (need[1] > 0 && !ensure_device (&self->d_grid[1], &self->grid_bytes[1], need[1], stream, error))
      || !ensure_device (&self->d_state, &self->state_bytes, L.total, stream, error))
    return FALSE;

  /* The pinned buffer of this slot was last read by a copy two blocks ago. */
  slot = self->slot;
  EF_CUDA_CHECK (cudaEventSynchronize (self->ev_state[slot]), error);
  if (!ensure_host (self, slot, L.upload, error))
    return FALSE;
  h = self->h_state[slot];
  h_nodes = (EfCudaFfbpNode *) (h + L.nodes);
  h_groups = (guint *) (h + L.groups);
  for (guint s = 0; s < tree->n_stages; s++)
    {
      const guint per = s == 0 ? 1 : gather_rows;
      guint64 off = 0;
      guint row = 0, grp = group_base[s];

      for (guint i = 0; i < tree->stages[s].n; i++)
        {
          const EfFfbpNode *nd = &tree->stages[s].nodes[i];

          node_record (nd, off, row, &h_nodes[node_base[s] + i]);
          for (guint j = 0; j < nd->nal; j += per)
            {
              h_groups[2 * grp] = i;
              h_groups[2 * grp + 1] = j;
              grp++;
            }
          off += (guint64) nd->nal * nd->stride;
          row += nd->nal;
        }
    }

  EF_CUDA_CHECK (cudaMemcpyAsync (self->d_state, h, L.upload, cudaMemcpyHostToDevice, stream), error);
  EF_CUDA_CHECK (cudaEventRecord (self->ev_state[slot], stream), error);
  self->slot ^= 1;
  EF_CUDA_CHECK (cudaMemsetAsync ((char *) self->d_state + L.max, 0, L.total - L.max, stream), error);
  if (self->time_steps)
    EF_CUDA_CHECK (cudaEventRecord (self->ev_step[0], stream), error);

  memset (&a, 0, sizeof a);
  a.kcb = self->plan.block.kr / (2.0 * G_PI);
  a.pulses = in->pulses;
  a.table = in->table;
  a.table_half = in->table_precision == EF_PRECISION_FP16;
  a.table_scale = in->table_scale;
  a.table_stride = in->table_stride;
  a.guard = in->guard;
  a.n_bins = meta->n_bins;
  a.bistatic = !meta->monostatic;
  a.prof_max = (const float *) ((char *) self->d_state + L.prof_max);
  a.wr = self->d_wr;
  a.wa = self->d_wa;
  a.taps_range = self->former->params.taps_range;
  a.taps_angle = self->former->params.taps_angle;
  a.gain = self->gain;
  a.force_exact = ef_cuda_test_hooks_ffbp_exact ();
  if (half && !ef_cuda_ffbp_absmax (stream, in->prof, meta->n_pulses, meta->n_bins, meta->n_bins,
                                    (float *) ((char *) self->d_state + L.prof_max), error))
    return FALSE;

  for (guint s = 0; s < tree->n_stages; s++)
    {
      const EfFfbpStage *st = &tree->stages[s];
      guint max_stride = 0;

      for (guint i = 0; i < st->n; i++)
        max_stride = MAX (max_stride, st->nodes[i].stride);
      a.nodes = (const EfCudaFfbpNode *) ((char *) self->d_state + L.nodes) + node_base[s];
      a.groups = (const guint *) ((char *) self->d_state + L.groups) + 2 * (gsize) group_base[s];
      a.n_nodes = st->n;
      a.n_rows = stage_groups (st, s == 0 ? 1 : gather_rows);
      a.out = self->d_grid[s % 2];
      a.out_max = (float *) ((char *) self->d_state + L.max) + node_base[s];
      a.out_scale = (float *) ((char *) self->d_state + L.scale) + node_base[s];
      if (s == 0)
        {
          a.tiles_per_row = div_up (max_stride, ef_cuda_ffbp_leaf_tile ());
          if (!ef_cuda_ffbp_leaves (stream, self->precision, &a, error))
            return FALSE;
          if (self->time_steps)
            EF_CUDA_CHECK (cudaEventRecord (self->ev_step[1], stream), error);
        }
      else
        {
          a.tiles_per_row = div_up (max_stride, ef_cuda_ffbp_gather_tile ());
          a.children = (const EfCudaFfbpNode *) ((char *) self->d_state + L.nodes) + node_base[s - 1];
          a.n_children = tree->stages[s - 1].n;
          a.in = self->d_grid[(s - 1) % 2];
          a.in_max = (const float *) ((char *) self->d_state + L.max) + node_base[s - 1];
          a.in_scale = (const float *) ((char *) self->d_state + L.scale) + node_base[s - 1];
          if (!ef_cuda_ffbp_merge (stream, self->precision, &a, error))
            return FALSE;
        }
    }
  if (self->time_steps)
    EF_CUDA_CHECK (cudaEventRecord (self->ev_step[2], stream), error);

  /* The last stage onto the image. */
  {
    guint s = tree->n_stages - 1;

    a.nodes = NULL;
    a.groups = NULL;
    a.n_nodes = 0;
    a.n_rows = div_up (g->height, gather_rows);
    a.tiles_per_row = div_up (g->width, ef_cuda_ffbp_gather_tile ());
    a.out = image;
    a.out_max = a.out_scale = NULL;
    a.children = (const EfCudaFfbpNode *) ((char *) self->d_state + L.nodes) + node_base[s];
    a.n_children = tree->stages[s].n;
    a.in = self->d_grid[s % 2];
    a.in_max = (const float *) ((char *) self->d_state + L.max) + node_base[s];
    a.in_scale = (const float *) ((char *) self->d_state + L.scale) + node_base[s];
    for (int k = 0; k < 3; k++)
      {
        a.origin[k] = g->origin[k];
        a.su[k] = g->spacing * g->u[k];
        a.sv[k] = g->spacing * g->v[k];
      }
    a.width = g->width;
    a.height = g->height;
    if (!ef_cuda_ffbp_final (stream, self->precision, &a, error))
      return FALSE;
  }
  if (self->time_steps)
    EF_CUDA_CHECK (cudaEventRecord (self->ev_step[3], stream), error);
  return TRUE;
}

/* ---- kernel level ---- */

gboolean
ef_cuda_ffbp_profiles (const EfGrid *grid, double bandwidth_hz, const EfFfbpParams *params,
                       EfPrecision precision, const EfProfiles *profiles, EfCf32 *out, EfFfbpStats *stats,
                       double *kernel_ms, GError **error)
{
  const gsize n_px = ef_grid_n_pixels (grid);
  const guint np = profiles->n_pulses, nb = profiles->n_bins;
  /* A guard of one zero entry is all the leaves need: they clamp every read into it. */
  const guint guard = 1, stride = (nb + 2 * guard + 3u) & ~3u;
  g_autoptr (EfCudaFfbp) self = NULL;
  g_autofree EfCudaPulse *pulses = NULL;
  EfFfbpStats st = { 0 };
  EfCudaFfbpInput in = { 0 };
  void *d_prof = NULL, *d_image = NULL, *d_table = NULL;
  EfCudaPulse *d_pulses = NULL;
  float *d_scale = NULL;
  cudaStream_t s = NULL;
  gboolean ok = FALSE, use_bp = FALSE;
  float ms = 0;

  g_return_val_if_fail (grid != NULL && params != NULL && profiles != NULL && out != NULL, FALSE);
  g_return_val_if_fail (profiles->data32 != NULL, FALSE);

  if (!ef_cuda_available (NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device");
      return FALSE;
    }
  self = ef_cuda_ffbp_new (grid, bandwidth_hz, params, precision, error);
  if (self == NULL)
    return FALSE;
  self->time_steps = TRUE;
  if (!ef_cuda_ffbp_prepare (self, profiles, &use_bp, &st, error))
    return FALSE;
  if (use_bp)
    {
      double bp_ms = 0;

      if (!ef_cuda_bp_profiles (grid, profiles, precision, 0, out, &bp_ms, error))
        return FALSE;
      st.seconds_final = bp_ms * 1e-3;
      if (kernel_ms)
        *kernel_ms = bp_ms;
      if (stats)
        *stats = st;
      return TRUE;
    }
  pulses = g_new0 (EfCudaPulse, MAX (np, 1u));
  for (guint p = 0; p < np; p++)
    ef_cuda_pulse_from_meta (&profiles->meta[p], &pulses[p]);

  /* In this order (the tests' out-of-memory hook counts on it): profiles, image, pulses, table, scale. */
#define TRY(expr) \
  G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, error)) goto out; } G_STMT_END
  TRY (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  TRY (ef_cuda_malloc (&d_prof, (gsize) MAX (np, 1u) * nb * sizeof (EfCf32)));
  TRY (ef_cuda_malloc (&d_image, n_px * sizeof (EfCf32)));
  TRY (ef_cuda_malloc ((void **) &d_pulses, MAX (np, 1u) * sizeof (EfCudaPulse)));
  TRY (ef_cuda_malloc (&d_table, (gsize) MAX (np, 1u) * stride * ef_cuda_table_entry_size (precision)));
  TRY (ef_cuda_malloc ((void **) &d_scale, 4 * sizeof (float)));
  TRY (cudaMemcpyAsync (d_prof, profiles->data32, (gsize) np * nb * sizeof (EfCf32), cudaMemcpyHostToDevice,
                        s));
  TRY (cudaMemcpyAsync (d_pulses, pulses, np * sizeof (EfCudaPulse), cudaMemcpyHostToDevice, s));
  /* Poisoned, then cleared: a pixel that the final step skipped would stay NaN only if cleared by it. */
  if (!ef_cuda_fill_nan (s, d_image, 2 * n_px, error))
    goto out;
  TRY (cudaMemsetAsync (d_image, 0, n_px * sizeof (EfCf32), s));
  TRY (cudaMemsetAsync (d_scale, 0, 4 * sizeof (float), s));
  if (precision == EF_PRECISION_FP16
      && !ef_cuda_rc_absmax (s, d_prof, (gsize) np * nb * 2, d_scale, 32, error))
    goto out;
  if (!ef_cuda_rc_pack (s, precision, d_prof, nb, (int) guard, stride, d_pulses, d_scale, d_table, np, error))
    goto out;
  in.prof = d_prof;
  in.pulses = d_pulses;
  in.table = d_table;
  in.table_precision = precision;
  in.table_scale = d_scale;
  in.table_stride = stride;
  in.guard = guard;
  if (np > 0 && !ef_cuda_ffbp_queue (self, s, &in, d_image, error))
    goto out;
  TRY (cudaMemcpyAsync (out, d_image, n_px * sizeof (EfCf32), cudaMemcpyDeviceToHost, s));
  TRY (cudaStreamSynchronize (s));
  if (np > 0)
    {
      TRY (cudaEventElapsedTime (&ms, self->ev_step[0], self->ev_step[1]));
      st.seconds_leaves = ms * 1e-3;
      TRY (cudaEventElapsedTime (&ms, self->ev_step[1], self->ev_step[2]));
      st.seconds_merge = ms * 1e-3;
      TRY (cudaEventElapsedTime (&ms, self->ev_step[2], self->ev_step[3]));
      st.seconds_final = ms * 1e-3;
      TRY (cudaEventElapsedTime (&ms, self->ev_step[0], self->ev_step[3]));
    }
  if (kernel_ms)
    *kernel_ms = ms;
  if (stats)
    *stats = st;
  ok = TRUE;
#undef TRY

out:
  if (s)
    (void) cudaStreamSynchronize (s);
  g_clear_pointer (&self, ef_cuda_ffbp_free);
  FREE_DEV (d_prof);
  FREE_DEV (d_image);
  FREE_DEV (d_pulses);
  FREE_DEV (d_table);
  FREE_DEV (d_scale);
  if (s)
    EF_CUDA_WARN (cudaStreamDestroy (s));
  return ok;
}
