/* ef-cuda-backend.c: the CUDA backend: streams, pinned buffers, cuFFT plans and out-of-memory retries. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-private.h"
#include "ef-cuda-ffbp.h"
#include "ef-cuda-pfa.h"
#include "ef-cuda-image-private.h"
#include "ef-cuda-tune-private.h"

/*
 * One sub-block of pulses goes through these steps:
 *
 *   host memcpy -> pinned[slot] --H2D (copy stream)--> samples[slot]
 *   compute stream: wait for the copy; prepare (window, centring, fftshift by modulation, bad samples);
 *                   cuFFT inverse (RAW: forward FFT, matched filter first); pair table; backproject.
 *
 * Two slots of pinned and device sample buffers let the copy of sub-block k+1 run while sub-block k is
 * compressed and backprojected. The profile buffer and the pair table are used only on the compute
 * stream, which orders them, so one of each is enough. process_block returns once the work is queued;
 * read_image, stats and free wait for it. An error from a kernel shows at the next wait.
 *
 * With algo FFBP or FBP the profiles go from d_prof through the GPU former (ef-cuda-ffbp.h) into the
 * same accumulator instead of through the pair table; a sub-block that the plan gives to exact
 * backprojection takes the path above. The former is made at the first sub-block, where the processed
 * band is known even when the dataset's header leaves it out.
 *
 * With algo PFA the profiles in d_prof are gridded into the device PFA former's k-space grid
 * (ef-cuda-pfa.h), and after every block the image formed from all the pulses so far is written over
 * the accumulator, so that a display and read_image see it as they see a backprojected one.
 */

#define N_PLANS 3
#define MAX_BLOCK 8192u

typedef struct {
  cufftHandle handle;
  int         n;
  int         batch;
  cufftType   type;
  guint64     last_use;
  gboolean    valid;
} Plan;

typedef struct {
  cudaEvent_t h2d0, h2d1;   /* copy: start, end */
  cudaEvent_t rc0, rc1;     /* compute: before the first step, after the table */
  cudaEvent_t bp1;          /* compute: after the backprojection */
  guint64     n_bp;
  gboolean    pending;      /* recorded, not yet added to the stats */
} Timing;

typedef struct {
  int            device;
  EfCudaOptions  opts;
  EfPrecision    precision;
  EfDomain       domain;
  guint          variant;       /* in use, 1-based; 0 until the first block when automatic */
  guint          tuned;         /* from the tuning cache, 0 if none */

  guint          n_in;          /* samples per pulse */
  guint          k;             /* spectral bins kept (K) */
  guint          n;             /* profile bins */
  guint          nc;            /* RAW: matched-filter FFT length; 0 otherwise */
  guint          k_first;       /* RAW: first kept bin of the chirp band */

  guint          max_block;     /* pulses per sub-block now */
  int            ext, guard;    /* table guard (see ef-cuda-bp.cuh) */
  guint          stride;        /* table entries per pulse */

  cudaStream_t   s_copy, s_comp;
  cudaEvent_t    ev_h2d[2];     /* the slot's copy is done: its pinned buffer may be refilled */
  cudaEvent_t    ev_done[2];    /* the slot's device buffers have been consumed */
  Timing         timing[2];
  guint          slot;

  EfCf32        *h_samples[2];  /* pinned, max_block * n_in */
  EfCudaPulse   *h_pulses[2];   /* pinned, max_block */
  void          *d_samples[2];
  EfCudaPulse   *d_pulses[2];
  void          *d_raw;         /* RAW: max_block * nc */
  void          *d_prof;        /* max_block * n */
  void          *d_table;       /* max_block * stride entries */
  float         *d_coef;        /* K: window / K */
  void          *d_chirp;       /* RAW: nc, conj(FFT(chirp)) scaled */
  EfCudaImage   *image;         /* owned reference: the accumulator, shared with displays */
  void          *d_image;       /* float2, width * height; borrowed from image */
  float         *d_scale;       /* fp16: scale, 1 / scale, max bits, spare */
  unsigned long long *d_bad;

  Plan           plans[N_PLANS];
  guint64        plan_clock;

  EfCudaFfbp    *ffbp;          /* owned: the FFBP or FBP former, or NULL */
  EfCudaPfa     *pfa;           /* owned: the PFA former, or NULL */

  guint          n_blocks;      /* process_block calls so far */
  EfCudaStats    stats;
} CudaPriv;

static const EfBackendOps cuda_ops;

static guint
next_pow2 (guint64 n)
{
  guint64 p = 1;

  while (p < n)
    p <<= 1;
  return (guint) p;
}

/* ---- per-pulse records: the same numbers as ef-rangecomp.c's fill_meta ---- */

static void
pulse_meta (const CudaPriv *priv, const EfDatasetInfo *info, const EfPulse *pu, EfProfileMeta *m,
            EfCudaPulse *rec)
{
  double f0 = pu->sc0, df = pu->scss;

  memcpy (m->tx, pu->tx, sizeof m->tx);
  memcpy (m->rcv, pu->rcv, sizeof m->rcv);
  m->r0 = pu->r0;
  if (priv->domain == EF_DOMAIN_TOA)
    {
      m->dr = 0.5 * EF_C * pu->scss;
      m->r_start = 0.5 * EF_C * pu->sc0;
      m->kr = 4.0 * G_PI * 0.5 * (pu->fx1 + pu->fx2) / EF_C;
    }
  else
    {
      if (priv->domain == EF_DOMAIN_RAW)
        {
          double dfb = (1.0 / pu->scss) / priv->nc;
          guint i = priv->k_first;

          f0 = info->fc + (i < priv->nc / 2 ? (double) i : (double) i - priv->nc) * dfb;
          df = dfb;
        }
      m->dr = EF_C / (2.0 * priv->n * df);
      m->r_start = -(double) (priv->n / 2) * m->dr;
      m->kr = 4.0 * G_PI * (f0 + (double) (priv->k / 2) * df) / EF_C;
    }
  ef_cuda_pulse_from_meta (m, rec);
  if (priv->domain == EF_DOMAIN_RAW)
    {
      double fs = 1.0 / pu->scss, dfb = fs / priv->nc;
      double shift = 2.0 * pu->r0 / EF_C - pu->sc0;
      double c0 = 2.0 * info->fc * pu->r0 / EF_C;

      rec->raw_cyc0 = c0 - floor (c0);
      rec->raw_cstep = dfb * shift;
    }
}

/* ---- the RAW matched filter: the CPU path's (ef_matched_filter_init), in float for the device ---- */

static gboolean
raw_setup (CudaPriv *priv, const EfDatasetInfo *info, float **chirp_out, GError **error)
{
  EfMatchedFilter mf;
  float *out;

  if (!ef_matched_filter_init (info, &mf, error))
    return FALSE;
  out = g_try_new (float, 2 * (gsize) mf.nc);
  if (out == NULL)
    {
      ef_matched_filter_clear (&mf);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the matched filter");
      return FALSE;
    }
  for (guint i = 0; i < mf.nc; i++)
    {
      out[2 * i] = (float) creal (mf.chirp_conj[i]);
      out[2 * i + 1] = (float) cimag (mf.chirp_conj[i]);
    }
  priv->nc = mf.nc;
  priv->k = mf.k;
  priv->k_first = mf.k_first;
  ef_matched_filter_clear (&mf);
  *chirp_out = out;
  return TRUE;
}

/* ---- plans ---- */

static gboolean
get_plan (CudaPriv *priv, int n, int batch, cufftType type, cufftHandle *out, GError **error)
{
  Plan *victim = NULL;

  for (int i = 0; i < N_PLANS; i++)
    {
      Plan *p = &priv->plans[i];

      if (p->valid && p->n == n && p->batch == batch && p->type == type)
        {
          p->last_use = ++priv->plan_clock;
          *out = p->handle;
          return TRUE;
        }
      if (victim == NULL || !p->valid || (victim->valid && p->last_use < victim->last_use))
        victim = p;
    }
  if (victim->valid)
    {
      /* The plan may still be in use by queued work. */
      EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
      cufftDestroy (victim->handle);
      victim->valid = FALSE;
    }
  EF_CUFFT_CHECK (ef_cufft_plan_many (&victim->handle, n, type, batch), error);
  victim->valid = TRUE;
  victim->n = n;
  victim->batch = batch;
  victim->type = type;
  victim->last_use = ++priv->plan_clock;
  if (cufftSetStream (victim->handle, priv->s_comp) != CUFFT_SUCCESS)
    {
      cufftDestroy (victim->handle);
      victim->valid = FALSE;
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_DEVICE, "cuFFT: cannot attach a plan to a stream");
      return FALSE;
    }
  *out = victim->handle;
  return TRUE;
}

static void
drop_plans (CudaPriv *priv)
{
  for (int i = 0; i < N_PLANS; i++)
    if (priv->plans[i].valid)
      {
        cufftDestroy (priv->plans[i].handle);
        priv->plans[i].valid = FALSE;
      }
}

/* ---- buffers ---- */

#define FREE_DEV(p) G_STMT_START { if (p) EF_CUDA_WARN (cudaFree (p)); (p) = NULL; } G_STMT_END
#define FREE_HOST(p) G_STMT_START { if (p) EF_CUDA_WARN (cudaFreeHost (p)); (p) = NULL; } G_STMT_END

static void
free_block_buffers (CudaPriv *priv)
{
  for (int s = 0; s < 2; s++)
    {
      FREE_HOST (priv->h_samples[s]);
      FREE_HOST (priv->h_pulses[s]);
      FREE_DEV (priv->d_samples[s]);
      FREE_DEV (priv->d_pulses[s]);
    }
  FREE_DEV (priv->d_raw);
  FREE_DEV (priv->d_prof);
  FREE_DEV (priv->d_table);
  drop_plans (priv);
}

static gboolean
alloc_table (CudaPriv *priv, GError **error)
{
  gsize bytes = (gsize) priv->max_block * priv->stride * ef_cuda_table_entry_size (priv->precision);

  FREE_DEV (priv->d_table);
  EF_CUDA_CHECK (ef_cuda_malloc (&priv->d_table, bytes), error);
  /* Zero once so that a row's guard is zero even if a pack were ever skipped. */
  EF_CUDA_CHECK (cudaMemsetAsync (priv->d_table, 0, bytes, priv->s_comp), error);
  return TRUE;
}

/* Everything whose size follows the sub-block, for max_block pulses. Frees what it made on failure. */
static gboolean
alloc_block_buffers (CudaPriv *priv, GError **error)
{
  gsize B = priv->max_block;
  cufftHandle plan;

  free_block_buffers (priv);
  for (int s = 0; s < 2; s++)
    {
      if (!ef_cuda_check_ (ef_cuda_malloc_host ((void **) &priv->h_samples[s], B * priv->n_in * sizeof (EfCf32)),
                           "cudaMallocHost (samples)", __FILE__, __LINE__, error)
          || !ef_cuda_check_ (ef_cuda_malloc_host ((void **) &priv->h_pulses[s], B * sizeof (EfCudaPulse)),
                              "cudaMallocHost (pulses)", __FILE__, __LINE__, error)
          || !ef_cuda_check_ (ef_cuda_malloc (&priv->d_samples[s], B * priv->n_in * sizeof (EfCf32)),
                              "cudaMalloc (samples)", __FILE__, __LINE__, error)
          || !ef_cuda_check_ (ef_cuda_malloc ((void **) &priv->d_pulses[s], B * sizeof (EfCudaPulse)),
                              "cudaMalloc (pulses)", __FILE__, __LINE__, error))
        goto fail;
    }
  if (priv->nc
      && !ef_cuda_check_ (ef_cuda_malloc (&priv->d_raw, B * priv->nc * sizeof (EfCf32)), "cudaMalloc (raw)",
                          __FILE__, __LINE__, error))
    goto fail;
  if (!ef_cuda_check_ (ef_cuda_malloc (&priv->d_prof, B * priv->n * sizeof (EfCf32)), "cudaMalloc (profiles)",
                       __FILE__, __LINE__, error))
    goto fail;
  /* The FFTs always run over the whole sub-block; rows past a short block's end must hold numbers. */
  if (!ef_cuda_check_ (cudaMemsetAsync (priv->d_prof, 0, B * priv->n * sizeof (EfCf32), priv->s_comp),
                       "cudaMemsetAsync (profiles)", __FILE__, __LINE__, error)
      || (priv->nc && !ef_cuda_check_ (cudaMemsetAsync (priv->d_raw, 0, B * priv->nc * sizeof (EfCf32), priv->s_comp),
                                       "cudaMemsetAsync (raw)", __FILE__, __LINE__, error)))
    goto fail;
  if (!alloc_table (priv, error))
    goto fail;
  /* Plans for the full sub-block now, so that their work areas count against this size. */
  if (priv->domain != EF_DOMAIN_TOA && !get_plan (priv, (int) priv->n, (int) B, CUFFT_C2C, &plan, error))
    goto fail;
  if (priv->nc && !get_plan (priv, (int) priv->nc, (int) B, CUFFT_C2C, &plan, error))
    goto fail;
  return TRUE;

fail:
  free_block_buffers (priv);
  return FALSE;
}

/* Allocates for max_block pulses, halving it while the device says it is out of memory. */
static gboolean
alloc_with_retry (CudaPriv *priv, GError **error)
{
  for (;;)
    {
      g_autoptr (GError) local = NULL;

      if (alloc_block_buffers (priv, &local))
        return TRUE;
      if (!g_error_matches (local, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY) || priv->max_block <= 1)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      /* A failed allocation leaves no sticky error, but clear it so that the next check is clean. */
      (void) cudaGetLastError ();
      priv->max_block = MAX (1u, priv->max_block / 2);
      g_debug ("Device out of memory; retrying with %u pulses per block", priv->max_block);
    }
}

/* The kernels split bin positions with float arithmetic that holds pair indices below 2^22. */
static gboolean
table_fits (guint n, int guard, GError **error)
{
  if ((guint64) n + 2 * (guint64) guard + 64 >= (1u << 22))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u range bins (and a guard of %d) are more than the GPU kernels index", n, guard);
      return FALSE;
    }
  return TRUE;
}

static void
set_guard (CudaPriv *priv, int ext)
{
  priv->ext = ext;
  priv->guard = 2 * ext + 2;
  priv->stride = (priv->n + 2u * (guint) priv->guard + 3u) & ~3u;
}

/* ---- timing ---- */

static gboolean
collect_timing (CudaPriv *priv, int slot, GError **error)
{
  Timing *t = &priv->timing[slot];
  float ms;

  if (!t->pending)
    return TRUE;
  EF_CUDA_CHECK (cudaEventSynchronize (t->bp1), error);
  EF_CUDA_CHECK (cudaEventSynchronize (t->h2d1), error);
  EF_CUDA_CHECK (cudaEventElapsedTime (&ms, t->h2d0, t->h2d1), error);
  priv->stats.h2d_ms += ms;
  EF_CUDA_CHECK (cudaEventElapsedTime (&ms, t->rc0, t->rc1), error);
  priv->stats.rc_ms += ms;
  EF_CUDA_CHECK (cudaEventElapsedTime (&ms, t->rc1, t->bp1), error);
  priv->stats.bp_ms += ms;
  priv->stats.n_bp += t->n_bp;
  priv->stats.n_launches++;
  t->pending = FALSE;
  return TRUE;
}

/* ---- exact backprojection of a sub-block ---- */

/* The kernel shape for the sub-block's geometry, and a table guard wide enough for its range bins. */
static gboolean
bp_setup (EfBackend *self, const EfProfileMeta *meta, guint count, double max_inv_dr, guint *variant_out,
          GError **error)
{
  CudaPriv *priv = self->priv;
  const EfGrid *g = &self->params.grid;
  guint variant;
  int ext;

  variant = priv->opts.variant ? priv->opts.variant : ef_cuda_choose_variant (g, meta, count, priv->precision);
  if (variant == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The antenna is too near the image for the GPU kernels' range series");
      return FALSE;
    }
  /* A tuned shape is used whenever its segment is no longer than the one the geometry allows. */
  if (!priv->opts.variant && priv->tuned
      && ef_cuda_shapes[priv->tuned - 1].seg * ef_cuda_shapes[priv->tuned - 1].warps
         <= ef_cuda_shapes[variant - 1].seg * ef_cuda_shapes[variant - 1].warps
      && ef_cuda_shapes[priv->tuned - 1].seg <= ef_cuda_shapes[variant - 1].seg)
    variant = priv->tuned;
  priv->variant = variant;

  /* The guard is sized for the longest segment of any shape, so switching shapes never needs a new
   * table; it grows only when a block brings finer range bins. */
  {
    const EfCudaShape widest = { 16, 1, 1, 1 };

    ext = ef_cuda_guard_ext (&widest, g->spacing, max_inv_dr);
  }
  if (ext < 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Pixels of %g m span too many range bins of %g m", g->spacing, 1.0 / max_inv_dr);
      return FALSE;
    }
  if (ext > priv->ext)
    {
      EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
      set_guard (priv, ext + ext / 4);
      if (!table_fits (priv->n, priv->guard, error) || !alloc_table (priv, error))
        return FALSE;
    }
  *variant_out = variant;
  return TRUE;
}

/* The pair table from d_prof (fp16: with its scale), on the compute stream. chunk: the fp16 scale's
 * pulses per half-precision sum (the kernel shape's; FFBP reads single pulses). */
static gboolean
pack_table (EfBackend *self, int slot, guint chunk, guint count, GError **error)
{
  CudaPriv *priv = self->priv;

  if (priv->precision == EF_PRECISION_FP16
      && !ef_cuda_rc_absmax (priv->s_comp, priv->d_prof, (gsize) count * priv->n * 2, priv->d_scale, chunk,
                             error))
    return FALSE;
  return ef_cuda_rc_pack (priv->s_comp, priv->precision, priv->d_prof, priv->n, priv->guard, priv->stride,
                          priv->d_pulses[slot], priv->d_scale, priv->d_table, count, error);
}

/* The backprojection of the table into the accumulator, on the compute stream. */
static gboolean
launch_bp (EfBackend *self, int slot, guint variant, guint count, gboolean mono, GError **error)
{
  CudaPriv *priv = self->priv;
  const EfGrid *g = &self->params.grid;
  EfCudaBpArgs args;

  memset (&args, 0, sizeof args);
  for (int i = 0; i < 3; i++)
    {
      args.origin[i] = g->origin[i];
      args.su[i] = g->spacing * g->u[i];
      args.sv[i] = g->spacing * g->v[i];
    }
  args.width = g->width;
  args.height = g->height;
  args.table = priv->d_table;
  args.stride = priv->stride;
  args.guard = priv->guard;
  args.ib_lo = -priv->guard + priv->ext;
  args.ib_hi = (int) priv->n + priv->guard - 1 - priv->ext;
  args.pulses = priv->d_pulses[slot];
  args.n_pulses = count;
  args.bistatic = !mono;
  args.image = priv->d_image;
  args.scale = priv->d_scale;
  return ef_cuda_bp_launch (priv->s_comp, priv->precision, variant, &args, error);
}

/* ---- fast backprojection of a sub-block ---- */

/* The FFBP or FBP former, made at the first sub-block with the processed band. */
static gboolean
fast_former (EfBackend *self, const EfPulse *pulses, GError **error)
{
  CudaPriv *priv = self->priv;
  EfFfbpParams fp;
  double band = ef_backend_processed_band (self, pulses);

  if (priv->ffbp != NULL)
    return TRUE;
  if (self->params.algo == EF_ALGO_FBP)
    ef_fbp_params_init (&fp);
  else
    ef_ffbp_params_init (&fp);
  priv->ffbp = ef_cuda_ffbp_new (&self->params.grid, band, &fp, priv->precision, error);
  return priv->ffbp != NULL;
}

/* The PFA former, made at the first sub-block. */
static gboolean
pfa_former (EfBackend *self, const EfPulse *pulses, GError **error)
{
  CudaPriv *priv = self->priv;
  EfPfaParams pp;

  if (priv->pfa != NULL)
    return TRUE;
  ef_pfa_params_init (&pp);
  priv->pfa = ef_cuda_pfa_new (&self->params.grid, ef_backend_processed_band (self, pulses), &pp, error);
  return priv->pfa != NULL;
}

/* Writes the PFA image of every pulse gridded so far over the accumulator (queued; nothing waits). */
static gboolean
pfa_form (EfBackend *self, GError **error)
{
  CudaPriv *priv = self->priv;

  return ef_cuda_pfa_form (priv->pfa, priv->s_comp, priv->d_image, NULL, error);
}

/* The depth of focus over every pulse gridded so far, after each block: the host-side check the CPU
 * former makes too (ef_pfa_dof_report), from the pulses' geometry alone. */
static void
pfa_check (EfBackend *self)
{
  CudaPriv *priv = self->priv;
  EfPfaReport rep;

  /* The record says it (the defocus is the algorithm's, not a failure), as of the last block. */
  ef_cuda_pfa_check (priv->pfa, &rep);
  ef_run_info_set_pfa (&self->run, rep.outside_dof, rep.qpe_max_rad, rep.qpe_limit_rad, rep.note);
}

/* ---- one sub-block ---- */

static gboolean
run_sub_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  CudaPriv *priv = self->priv;
  const EfGrid *g = &self->params.grid;
  const int slot = (int) priv->slot;
  Timing *tm = &priv->timing[slot];
  g_autofree EfProfileMeta *meta = g_new (EfProfileMeta, count);
  double max_inv_dr = 0;
  gboolean mono = TRUE;
  cudaStream_t cs = priv->opts.synchronous ? priv->s_comp : priv->s_copy;
  const gboolean fast = self->params.algo == EF_ALGO_FFBP || self->params.algo == EF_ALGO_FBP;
  const gboolean pfa = self->params.algo == EF_ALGO_PFA;
  EfProfiles view = { 0 };
  EfFfbpStats fst = { 0 };
  gboolean use_bp = FALSE;
  guint variant = 0;

  /* The pinned buffer of this slot was last read by a copy two sub-blocks ago. */
  EF_CUDA_CHECK (cudaEventSynchronize (priv->ev_h2d[slot]), error);
  if (!collect_timing (priv, slot, error))
    return FALSE;

  for (guint p = 0; p < count; p++)
    {
      pulse_meta (priv, &self->info, &pulses[p], &meta[p], &priv->h_pulses[slot][p]);
      max_inv_dr = MAX (max_inv_dr, priv->h_pulses[slot][p].inv_dr);
      mono = mono && memcmp (pulses[p].tx, pulses[p].rcv, sizeof pulses[p].tx) == 0;
    }

  /* The fast path plans the block on the host now, while the device may still work on the last one;
   * a block that the plan gives to exact backprojection takes the path below. */
  if (fast)
    {
      view.n_pulses = view.capacity = count;
      view.n_bins = priv->n;
      view.meta = meta;
      view.monostatic = mono;
      if (!fast_former (self, pulses, error)
          || !ef_cuda_ffbp_prepare (priv->ffbp, &view, &use_bp, &fst, error))
        return FALSE;
    }
  if (pfa && !pfa_former (self, pulses, error))
    return FALSE;
  if (!pfa && (!fast || use_bp) && !bp_setup (self, meta, count, max_inv_dr, &variant, error))
    return FALSE;

  memcpy (priv->h_samples[slot], samples, (gsize) count * priv->n_in * sizeof (EfCf32));

  /* Copy: waits until the compute stream is done with this slot's device buffers. */
  EF_CUDA_CHECK (cudaStreamWaitEvent (cs, priv->ev_done[slot], 0), error);
  EF_CUDA_CHECK (cudaEventRecord (tm->h2d0, cs), error);
  EF_CUDA_CHECK (cudaMemcpyAsync (priv->d_samples[slot], priv->h_samples[slot],
                                  (gsize) count * priv->n_in * sizeof (EfCf32), cudaMemcpyHostToDevice, cs),
                 error);
  EF_CUDA_CHECK (cudaMemcpyAsync (priv->d_pulses[slot], priv->h_pulses[slot], count * sizeof (EfCudaPulse),
                                  cudaMemcpyHostToDevice, cs),
                 error);
  EF_CUDA_CHECK (cudaEventRecord (tm->h2d1, cs), error);
  EF_CUDA_CHECK (cudaEventRecord (priv->ev_h2d[slot], cs), error);
  EF_CUDA_CHECK (cudaStreamWaitEvent (priv->s_comp, priv->ev_h2d[slot], 0), error);

  /* Range compression into d_prof. */
  EF_CUDA_CHECK (cudaEventRecord (tm->rc0, priv->s_comp), error);
  switch (priv->domain)
    {
    case EF_DOMAIN_FX:
      {
        cufftHandle inv;

        if (!ef_cuda_rc_prep_fx (priv->s_comp, priv->d_samples[slot], priv->n_in, priv->n, priv->d_coef,
                                 priv->d_prof, count, priv->d_bad, error)
            || !get_plan (priv, (int) priv->n, (int) priv->max_block, CUFFT_C2C, &inv, error))
          return FALSE;
        EF_CUFFT_CHECK (cufftExecC2C (inv, priv->d_prof, priv->d_prof, CUFFT_INVERSE), error);
      }
      break;
    case EF_DOMAIN_RAW:
      {
        cufftHandle fwd, inv;

        if (!ef_cuda_rc_prep_raw (priv->s_comp, priv->d_samples[slot], priv->n_in, priv->nc, priv->d_raw, count,
                                  priv->d_bad, error)
            || !get_plan (priv, (int) priv->nc, (int) priv->max_block, CUFFT_C2C, &fwd, error))
          return FALSE;
        EF_CUFFT_CHECK (cufftExecC2C (fwd, priv->d_raw, priv->d_raw, CUFFT_FORWARD), error);
        if (!ef_cuda_rc_select_raw (priv->s_comp, priv->d_raw, priv->nc, priv->k, priv->k_first, priv->n,
                                    priv->d_chirp, priv->d_coef, priv->d_pulses[slot], priv->d_prof, count,
                                    error)
            || !get_plan (priv, (int) priv->n, (int) priv->max_block, CUFFT_C2C, &inv, error))
          return FALSE;
        EF_CUFFT_CHECK (cufftExecC2C (inv, priv->d_prof, priv->d_prof, CUFFT_INVERSE), error);
      }
      break;
    case EF_DOMAIN_TOA:
    default:
      if (!ef_cuda_rc_prep_toa (priv->s_comp, priv->d_samples[slot], priv->n_in, priv->d_prof, count,
                                priv->d_bad, error))
        return FALSE;
      break;
    }
  if (!pfa && !pack_table (self, slot, variant ? ef_cuda_shapes[variant - 1].chunk : 32, count, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (tm->rc1, priv->s_comp), error);
  if (pfa)
    {
      if (!ef_cuda_pfa_add (priv->pfa, priv->s_comp, meta, priv->d_prof, priv->n, count, error))
        return FALSE;
    }
  else if (fast && !use_bp)
    {
      EfCudaFfbpInput in = { 0 };

      in.prof = priv->d_prof;
      in.pulses = priv->d_pulses[slot];
      in.table = priv->d_table;
      in.table_precision = priv->precision;
      in.table_scale = priv->d_scale;
      in.table_stride = priv->stride;
      in.guard = (guint) priv->guard;
      if (!ef_cuda_ffbp_queue (priv->ffbp, priv->s_comp, &in, priv->d_image, error))
        return FALSE;
    }
  else if (!launch_bp (self, slot, variant, count, mono, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (tm->bp1, priv->s_comp), error);
  EF_CUDA_CHECK (cudaEventRecord (priv->ev_done[slot], priv->s_comp), error);
  tm->n_bp = (guint64) count * g->width * g->height;
  tm->pending = TRUE;

  if (priv->opts.synchronous)
    EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  priv->slot ^= 1;
  /* Counted once queued: a sub-block that ran out of memory earlier is done again, and counts once. */
  if (fast)
    ef_run_info_add_block (&self->run, use_bp, fst.why_bp);
  return TRUE;
}

static gboolean
cuda_process_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  CudaPriv *priv = self->priv;

  g_return_val_if_fail (pulses != NULL || count == 0, FALSE);
  g_return_val_if_fail (samples != NULL || count == 0, FALSE);

  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  for (guint done = 0; done < count;)
    {
      guint m = MIN (count - done, priv->max_block);
      g_autoptr (GError) local = NULL;

      if (run_sub_block (self, pulses + done, samples + (gsize) done * priv->n_in, m, &local))
        {
          done += m;
          continue;
        }
      if (!g_error_matches (local, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY) || priv->max_block <= 1)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      /* Out of memory on a plan or a larger table: nothing of this sub-block was queued yet (the
       * allocations come first), so drain, shrink and do it again. */
      (void) cudaGetLastError ();
      EF_CUDA_CHECK (cudaDeviceSynchronize (), error);
      for (int s = 0; s < 2; s++)
        if (!collect_timing (priv, s, error))
          return FALSE;
      priv->max_block = MAX (1u, priv->max_block / 2);
      if (!alloc_with_retry (priv, error))
        return FALSE;
    }
  if (priv->pfa != NULL && count > 0)
    {
      if (!pfa_form (self, error))
        return FALSE;
      pfa_check (self);
    }
  priv->n_blocks++;
  /* A display reads the image as of the newest mark the device has passed. */
  return ef_cuda_image_mark (priv->image, priv->s_comp, error);
}

static gboolean
read_bad (EfBackend *self, GError **error)
{
  CudaPriv *priv = self->priv;
  unsigned long long bad = 0;

  EF_CUDA_CHECK (cudaMemcpy (&bad, priv->d_bad, sizeof bad, cudaMemcpyDeviceToHost), error);
  self->n_bad_samples = bad;
  return TRUE;
}

static gboolean
cuda_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  CudaPriv *priv = self->priv;
  const guint w = self->params.grid.width;
  const char *src = (const char *) priv->d_image + ((gsize) rect->y * w + rect->x) * sizeof (EfCf32);

  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  if (rect->width > 0 && rect->height > 0)
    EF_CUDA_CHECK (cudaMemcpy2D (out, rect->width * sizeof (EfCf32), src, (gsize) w * sizeof (EfCf32),
                                 rect->width * sizeof (EfCf32), rect->height, cudaMemcpyDeviceToHost),
                   error);
  ef_cuda_count_d2h_image_bytes ((guint64) rect->width * rect->height * sizeof (EfCf32));
  return read_bad (self, error);
}

static gboolean
cuda_clear (EfBackend *self, GError **error)
{
  CudaPriv *priv = self->priv;
  gboolean had_blocks = priv->n_blocks > 0;

  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaMemsetAsync (priv->d_image, 0, ef_grid_n_pixels (&self->params.grid) * sizeof (EfCf32),
                                  priv->s_comp),
                 error);
  priv->n_blocks = 0;
  if (priv->pfa != NULL)
    ef_cuda_pfa_clear (priv->pfa);
  ef_run_info_reset_image (&self->run);
  /* A display may be showing blocks: the cleared image is news. Before any block (at creation) it is
   * not, and a display shows nothing until the first block is done. */
  return had_blocks ? ef_cuda_image_mark (priv->image, priv->s_comp, error) : TRUE;
}

static void
destroy_event (cudaEvent_t *e)
{
  if (*e)
    EF_CUDA_WARN (cudaEventDestroy (*e));
  *e = NULL;
}

static void
cuda_free (EfBackend *self)
{
  CudaPriv *priv = self->priv;

  if (priv == NULL)
    return;
  if (cudaSetDevice (priv->device) == cudaSuccess)
    {
      /* Queued work may still read these buffers; an error here was reported earlier, or would be
       * reported to nobody. */
      (void) cudaDeviceSynchronize ();
      (void) cudaGetLastError ();
    }
  free_block_buffers (priv);
  g_clear_pointer (&priv->ffbp, ef_cuda_ffbp_free);
  g_clear_pointer (&priv->pfa, ef_cuda_pfa_free);
  FREE_DEV (priv->d_coef);
  FREE_DEV (priv->d_chirp);
  /* A display may still hold the image; the last reference frees it. */
  priv->d_image = NULL;
  g_clear_pointer (&priv->image, ef_cuda_image_unref);
  FREE_DEV (priv->d_scale);
  FREE_DEV (priv->d_bad);
  for (int s = 0; s < 2; s++)
    {
      Timing *t = &priv->timing[s];

      destroy_event (&priv->ev_h2d[s]);
      destroy_event (&priv->ev_done[s]);
      destroy_event (&t->h2d0);
      destroy_event (&t->h2d1);
      destroy_event (&t->rc0);
      destroy_event (&t->rc1);
      destroy_event (&t->bp1);
    }
  if (priv->s_copy)
    EF_CUDA_WARN (cudaStreamDestroy (priv->s_copy));
  if (priv->s_comp)
    EF_CUDA_WARN (cudaStreamDestroy (priv->s_comp));
  g_free (priv);
  self->priv = NULL;
}

static EfDeviceImage *
cuda_ref_device_image (EfBackend *self)
{
  return ef_cuda_image_ref_device (((CudaPriv *) self->priv)->image);
}

static const EfBackendOps cuda_ops = {
  .name = "cuda",
  .process_block = cuda_process_block,
  .read_image = cuda_read_image,
  .clear = cuda_clear,
  .free = cuda_free,
  .ref_device_image = cuda_ref_device_image,
};

/* ---- creation ---- */

static gboolean
create_device_state (EfBackend *self, GError **error)
{
  CudaPriv *priv = self->priv;
  const EfDatasetInfo *info = &self->info;
  gsize n_px = ef_grid_n_pixels (&self->params.grid);
  g_autofree double *w = NULL;
  g_autofree float *coef = NULL;
  g_autofree float *chirp = NULL;

  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaStreamCreateWithFlags (&priv->s_comp, cudaStreamNonBlocking), error);
  EF_CUDA_CHECK (cudaStreamCreateWithFlags (&priv->s_copy, cudaStreamNonBlocking), error);
  for (int s = 0; s < 2; s++)
    {
      Timing *t = &priv->timing[s];

      EF_CUDA_CHECK (cudaEventCreateWithFlags (&priv->ev_h2d[s], cudaEventDisableTiming), error);
      EF_CUDA_CHECK (cudaEventCreateWithFlags (&priv->ev_done[s], cudaEventDisableTiming), error);
      EF_CUDA_CHECK (cudaEventCreate (&t->h2d0), error);
      EF_CUDA_CHECK (cudaEventCreate (&t->h2d1), error);
      EF_CUDA_CHECK (cudaEventCreate (&t->rc0), error);
      EF_CUDA_CHECK (cudaEventCreate (&t->rc1), error);
      EF_CUDA_CHECK (cudaEventCreate (&t->bp1), error);
    }

  /* The image first: if it does not fit, nothing smaller will help. */
  priv->image = ef_cuda_image_new (priv->device, self->params.grid.width, self->params.grid.height, error);
  if (priv->image == NULL)
    return FALSE;
  priv->d_image = ef_cuda_image_get_data_mutable (priv->image);
  /* Poisoned, then cleared through the same path as clear(): a clear that missed a pixel would show. */
  if (!ef_cuda_fill_nan (priv->s_comp, priv->d_image, 2 * n_px, error) || !cuda_clear (self, error))
    return FALSE;
  EF_CUDA_CHECK (ef_cuda_malloc ((void **) &priv->d_scale, 4 * sizeof (float)), error);
  EF_CUDA_CHECK (cudaMemsetAsync (priv->d_scale, 0, 4 * sizeof (float), priv->s_comp), error);
  EF_CUDA_CHECK (ef_cuda_malloc ((void **) &priv->d_bad, sizeof (unsigned long long)), error);
  EF_CUDA_CHECK (cudaMemsetAsync (priv->d_bad, 0, sizeof (unsigned long long), priv->s_comp), error);

  if (priv->domain == EF_DOMAIN_RAW)
    {
      if (!raw_setup (priv, info, &chirp, error))
        return FALSE;
      EF_CUDA_CHECK (ef_cuda_malloc (&priv->d_chirp, priv->nc * 2 * sizeof (float)), error);
      EF_CUDA_CHECK (cudaMemcpy (priv->d_chirp, chirp, priv->nc * 2 * sizeof (float), cudaMemcpyHostToDevice),
                     error);
    }
  else
    priv->k = priv->n_in;
  priv->n = priv->domain == EF_DOMAIN_TOA ? priv->n_in
                                          : next_pow2 ((guint64) priv->k * CLAMP (self->params.range.upsample, 1u, 64u));
  if (priv->n > (1u << 26) || priv->n < 2)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Range compression to %u bins is not supported", priv->n);
      return FALSE;
    }

  priv->tuned = ef_cuda_tune_lookup (priv->device, MAX (self->params.grid.width, self->params.grid.height), priv->n,
                                     priv->precision);

  /* Window and 1/K in one float per spectral bin (double first, as the CPU path does). */
  w = g_new (double, priv->k);
  coef = g_new (float, priv->k);
  ef_window_fill (self->params.range.window, self->params.range.taylor_nbar, self->params.range.taylor_sll_db, w,
                  priv->k);
  for (guint i = 0; i < priv->k; i++)
    coef[i] = (float) (w[i] / priv->k);
  EF_CUDA_CHECK (ef_cuda_malloc ((void **) &priv->d_coef, priv->k * sizeof (float)), error);
  EF_CUDA_CHECK (cudaMemcpy (priv->d_coef, coef, priv->k * sizeof (float), cudaMemcpyHostToDevice), error);

  /* A first guess of the guard from the nominal bin size; a block with finer bins grows it. */
  {
    const EfCudaShape widest = { 16, 1, 1, 1 };
    double inv_dr = 0;
    int ext;

    if (priv->domain == EF_DOMAIN_FX && info->bandwidth > 0)
      inv_dr = 2.0 * priv->n * (info->bandwidth / MAX (priv->n_in - 1.0, 1.0)) / EF_C;
    else if (priv->domain == EF_DOMAIN_RAW && info->sample_rate > 0)
      inv_dr = 2.0 * priv->n * (info->sample_rate / priv->nc) / EF_C;
    else if (info->sample_rate > 0)
      inv_dr = 2.0 * info->sample_rate / EF_C;
    ext = ef_cuda_guard_ext (&widest, self->params.grid.spacing, inv_dr);
    set_guard (priv, ext < 0 ? 8 : ext + ext / 4);
  }
  if (!table_fits (priv->n, priv->guard, error))
    return FALSE;
  return alloc_with_retry (priv, error);
}

EfBackend *
ef_backend_cuda_new_full (const EfDatasetInfo *info, const EfBackendParams *params, const EfCudaOptions *options,
                          GError **error)
{
  g_autoptr (EfBackend) self = NULL;
  CudaPriv *priv;
  g_autofree char *why = NULL;
  int n_dev = 0;

  g_return_val_if_fail (info != NULL && params != NULL, NULL);

  if (!ef_cuda_available (&why))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "%s", why);
      return NULL;
    }
  if (params->precision != EF_PRECISION_FP32 && params->precision != EF_PRECISION_FP16)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The CUDA backend computes in fp32 or fp16, not %s", ef_precision_to_string (params->precision));
      return NULL;
    }
  if (params->algo != EF_ALGO_BP && params->algo != EF_ALGO_FFBP && params->algo != EF_ALGO_FBP
      && params->algo != EF_ALGO_PFA)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The CUDA backend has no %s; use bp, ffbp, fbp or pfa", ef_algo_to_string (params->algo));
      return NULL;
    }
  if (params->grid.width == 0 || params->grid.height == 0 || !(params->grid.spacing > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The image grid is empty");
      return NULL;
    }
  if (info->n_samples == 0 || info->n_samples > (1u << 24))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Cannot range-compress pulses of %" G_GUINT64_FORMAT " samples", info->n_samples);
      return NULL;
    }
  if (options && options->variant > EF_CUDA_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No kernel shape %u",
                   options->variant);
      return NULL;
    }
  if (!ef_cuda_check_ (cudaGetDeviceCount (&n_dev), "cudaGetDeviceCount", __FILE__, __LINE__, error))
    return NULL;
  if (params->device >= n_dev)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "There is no CUDA device %d (%d found)",
                   params->device, n_dev);
      return NULL;
    }
  {
    int first = params->device < 0 ? 0 : params->device;
    guint want = params->n_devices == EF_BACKEND_ALL_DEVICES ? (guint) (n_dev - first) : MAX (params->n_devices, 1u);

    if ((guint64) first + want > (guint64) n_dev)
      {
        g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE,
                     "%u CUDA devices were asked for from device %d on, but %d %s found", want, first, n_dev,
                     n_dev == 1 ? "was" : "were");
        return NULL;
      }
    if (want > 1)
      {
        g_autofree int *devices = g_new (int, want);

        for (guint i = 0; i < want; i++)
          devices[i] = first + (int) i;
        return ef_cuda_multi_new (info, params, options, devices, want, error);
      }
  }

  self = g_new0 (EfBackend, 1);
  self->ops = &cuda_ops;
  self->params = *params;
  ef_dataset_info_copy (info, &self->info);
  priv = g_new0 (CudaPriv, 1);
  self->priv = priv;
  priv->device = params->device < 0 ? 0 : params->device;
  priv->opts = options ? *options : EF_CUDA_OPTIONS_DEFAULT;
  priv->precision = params->precision;
  priv->domain = info->domain;
  priv->n_in = (guint) info->n_samples;
  priv->max_block = priv->opts.max_block ? priv->opts.max_block : MAX (params->block_size, 1u);
  priv->max_block = MIN (priv->max_block, MAX_BLOCK);
  ef_backend_run_init (self, params, EF_BACKEND_CUDA, 1);
  /* fp16 is a table and accumulation format of backprojection (and of FFBP's polar grids); the polar
   * format former grids, transforms and resamples in fp32 whatever is asked. */
  if (params->algo == EF_ALGO_PFA && params->precision == EF_PRECISION_FP16)
    ef_run_info_set_precision (&self->run, EF_PRECISION_FP32,
                               "the CUDA polar format former grids and transforms in fp32; fp16 is for "
                               "backprojection and FFBP");

  if (!create_device_state (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

EfBackend *
ef_backend_cuda_new (const EfDatasetInfo *info, const EfBackendParams *params, GError **error)
{
  return ef_backend_cuda_new_full (info, params, NULL, error);
}

gboolean
ef_backend_is_cuda (const EfBackend *backend)
{
  return backend != NULL && (backend->ops == &cuda_ops || ef_cuda_multi_is (backend));
}

/* The single-device backend behind the accessors: itself, or the first device's of several. */
static EfBackend *
first_part (EfBackend *backend)
{
  return ef_cuda_multi_is (backend) ? ef_cuda_multi_part (backend, 0) : backend;
}

void *
ef_cuda_backend_image (EfBackend *backend, int *device)
{
  CudaPriv *priv;

  g_return_val_if_fail (backend != NULL && backend->ops == &cuda_ops, NULL);
  priv = backend->priv;
  if (device)
    *device = priv->device;
  return priv->d_image;
}

gboolean
ef_cuda_backend_sync (EfBackend *backend, GError **error)
{
  CudaPriv *priv;

  g_return_val_if_fail (backend != NULL && backend->ops == &cuda_ops, FALSE);
  priv = backend->priv;
  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  return read_bad (backend, error);
}

guint
ef_backend_cuda_dirty (EfBackend *backend, EfRect *rects, guint max)
{
  CudaPriv *priv;

  g_return_val_if_fail (ef_backend_is_cuda (backend), 0);
  if (ef_cuda_multi_is (backend))
    {
      if (ef_cuda_multi_n_blocks (backend) == 0 || max == 0 || rects == NULL)
        return 0;
      rects[0] = (EfRect) { 0, 0, backend->params.grid.width, backend->params.grid.height };
      return 1;
    }
  priv = backend->priv;
  if (priv->n_blocks == 0 || max == 0 || rects == NULL)
    return 0;
  rects[0] = (EfRect) { 0, 0, backend->params.grid.width, backend->params.grid.height };
  return 1;
}

guint
ef_backend_cuda_block_size (EfBackend *backend)
{
  g_return_val_if_fail (ef_backend_is_cuda (backend), 0);
  return ((CudaPriv *) first_part (backend)->priv)->max_block;
}

guint
ef_backend_cuda_variant (EfBackend *backend)
{
  g_return_val_if_fail (ef_backend_is_cuda (backend), 0);
  return ((CudaPriv *) first_part (backend)->priv)->variant;
}

gboolean
ef_backend_cuda_stats (EfBackend *backend, EfCudaStats *stats, GError **error)
{
  CudaPriv *priv;

  g_return_val_if_fail (ef_backend_is_cuda (backend) && stats != NULL, FALSE);
  if (ef_cuda_multi_is (backend))
    {
      EfCudaStats sum = { 0 };

      backend->n_bad_samples = 0;
      for (guint i = 0; i < ef_cuda_multi_n_parts (backend); i++)
        {
          EfBackend *part = ef_cuda_multi_part (backend, i);
          EfCudaStats one;

          if (!ef_backend_cuda_stats (part, &one, error))
            return FALSE;
          sum.bp_ms += one.bp_ms;
          sum.rc_ms += one.rc_ms;
          sum.h2d_ms += one.h2d_ms;
          sum.n_bp += one.n_bp;
          sum.n_launches += one.n_launches;
          sum.n_devices++;
          backend->n_bad_samples += part->n_bad_samples;
        }
      *stats = sum;
      return TRUE;
    }
  priv = backend->priv;
  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  for (int s = 0; s < 2; s++)
    if (!collect_timing (priv, s, error))
      return FALSE;
  *stats = priv->stats;
  stats->n_devices = 1;
  return read_bad (backend, error);
}

gboolean
ef_backend_cuda_read_profiles (EfBackend *backend, guint count, guint *n_bins, EfCf32 *out, GError **error)
{
  CudaPriv *priv;

  g_return_val_if_fail (ef_backend_is_cuda (backend), FALSE);
  backend = first_part (backend);
  priv = backend->priv;
  if (n_bins)
    *n_bins = priv->n;
  if (out == NULL || count == 0)
    return TRUE;
  g_return_val_if_fail (count <= priv->max_block, FALSE);
  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  EF_CUDA_CHECK (cudaMemcpy (out, priv->d_prof, (gsize) count * priv->n * sizeof (EfCf32), cudaMemcpyDeviceToHost),
                 error);
  return TRUE;
}

/* ---- kernel level ---- */

gboolean
ef_cuda_bp_profiles (const EfGrid *grid, const EfProfiles *profiles, EfPrecision precision, guint variant,
                     EfCf32 *out, double *kernel_ms, GError **error)
{
  const guint np = profiles->n_pulses, n = profiles->n_bins;
  const gsize n_px = ef_grid_n_pixels (grid);
  g_autofree EfCudaPulse *pulses = NULL;
  double max_inv_dr = 0;
  void *d_prof = NULL, *d_table = NULL, *d_image = NULL;
  EfCudaPulse *d_pulses = NULL;
  float *d_scale = NULL;
  cudaStream_t s = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  gboolean ok = FALSE;
  EfCudaBpArgs args;
  int ext, guard;
  guint stride;
  float ms = 0;

  g_return_val_if_fail (grid != NULL && profiles != NULL && out != NULL, FALSE);
  g_return_val_if_fail (profiles->data32 != NULL, FALSE);
  g_return_val_if_fail (precision == EF_PRECISION_FP32 || precision == EF_PRECISION_FP16, FALSE);

  if (!ef_cuda_available (NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device");
      return FALSE;
    }
  if (variant == 0)
    variant = ef_cuda_choose_variant (grid, profiles->meta, np, precision);
  if (variant < 1 || variant > EF_CUDA_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "No kernel shape keeps the range series accurate for this geometry");
      return FALSE;
    }
  pulses = g_new0 (EfCudaPulse, MAX (np, 1u));
  for (guint p = 0; p < np; p++)
    {
      ef_cuda_pulse_from_meta (&profiles->meta[p], &pulses[p]);
      max_inv_dr = MAX (max_inv_dr, pulses[p].inv_dr);
    }
  ext = ef_cuda_guard_ext (&ef_cuda_shapes[variant - 1], grid->spacing, max_inv_dr);
  if (ext < 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Pixels span too many range bins");
      return FALSE;
    }
  guard = 2 * ext + 2;
  stride = n + 2u * (guint) guard;
  if (!table_fits (n, guard, error))
    return FALSE;

#define TRY(expr) G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, error)) goto out; } G_STMT_END
  TRY (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  TRY (cudaEventCreate (&e0));
  TRY (cudaEventCreate (&e1));
  TRY (ef_cuda_malloc (&d_prof, (gsize) MAX (np, 1u) * n * sizeof (EfCf32)));
  TRY (ef_cuda_malloc (&d_table, (gsize) MAX (np, 1u) * stride * ef_cuda_table_entry_size (precision)));
  TRY (ef_cuda_malloc ((void **) &d_pulses, MAX (np, 1u) * sizeof (EfCudaPulse)));
  TRY (ef_cuda_malloc ((void **) &d_scale, 4 * sizeof (float)));
  TRY (ef_cuda_malloc (&d_image, n_px * sizeof (EfCf32)));
  TRY (cudaMemcpyAsync (d_prof, profiles->data32, (gsize) np * n * sizeof (EfCf32), cudaMemcpyHostToDevice, s));
  TRY (cudaMemcpyAsync (d_pulses, pulses, np * sizeof (EfCudaPulse), cudaMemcpyHostToDevice, s));
  if (!ef_cuda_fill_nan (s, d_image, 2 * n_px, error))
    goto out;
  TRY (cudaMemsetAsync (d_image, 0, n_px * sizeof (EfCf32), s));
  if (precision == EF_PRECISION_FP16
      && !ef_cuda_rc_absmax (s, d_prof, (gsize) np * n * 2, d_scale, ef_cuda_shapes[variant - 1].chunk, error))
    goto out;
  if (!ef_cuda_rc_pack (s, precision, d_prof, n, guard, stride, d_pulses, d_scale, d_table, np, error))
    goto out;

  memset (&args, 0, sizeof args);
  for (int i = 0; i < 3; i++)
    {
      args.origin[i] = grid->origin[i];
      args.su[i] = grid->spacing * grid->u[i];
      args.sv[i] = grid->spacing * grid->v[i];
    }
  args.width = grid->width;
  args.height = grid->height;
  args.table = d_table;
  args.stride = stride;
  args.guard = guard;
  args.ib_lo = -guard + ext;
  args.ib_hi = (int) n + guard - 1 - ext;
  args.pulses = d_pulses;
  args.n_pulses = np;
  args.bistatic = !profiles->monostatic;
  args.image = d_image;
  args.scale = d_scale;
  TRY (cudaEventRecord (e0, s));
  if (!ef_cuda_bp_launch (s, precision, variant, &args, error))
    goto out;
  TRY (cudaEventRecord (e1, s));
  TRY (cudaMemcpyAsync (out, d_image, n_px * sizeof (EfCf32), cudaMemcpyDeviceToHost, s));
  TRY (cudaStreamSynchronize (s));
  TRY (cudaEventElapsedTime (&ms, e0, e1));
  if (kernel_ms)
    *kernel_ms = ms;
  ok = TRUE;
#undef TRY

out:
  if (s)
    (void) cudaStreamSynchronize (s);
  FREE_DEV (d_prof);
  FREE_DEV (d_table);
  FREE_DEV (d_pulses);
  FREE_DEV (d_scale);
  FREE_DEV (d_image);
  if (e0)
    EF_CUDA_WARN (cudaEventDestroy (e0));
  if (e1)
    EF_CUDA_WARN (cudaEventDestroy (e1));
  if (s)
    EF_CUDA_WARN (cudaStreamDestroy (s));
  return ok;
}
