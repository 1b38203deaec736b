/* ef-cuda-block.c: one sub-block on the device: pulse records, range compression, then BP, FFBP or PFA. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-backend-private.h"

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

/* ---- per-pulse records ---- */

/* The profile's record, as the CPU's range compression makes it (ef_profile_meta_fill), and the device's
 * record of the pulse; for RAW data also the delay shift and carrier that the device applies after the
 * matched filter, which the CPU applies in prepare_spectrum. */
static void
pulse_meta (const CudaPriv *priv, const EfDatasetInfo *info, const EfPulse *pu, EfProfileMeta *m,
            EfCudaPulse *rec)
{
  ef_profile_meta_fill (&priv->layout, pu, m);
  ef_cuda_pulse_from_meta (m, rec);
  /* Double first, as the CPU's range compression takes it. */
  rec->az_w = (float) ef_az_weight_at (&priv->az, pu);
  if (priv->layout.domain == EF_DOMAIN_RAW)
    {
      double fs = 1.0 / pu->scss, dfb = fs / priv->layout.nc;
      double shift = 2.0 * pu->r0 / EF_C - pu->sc0;
      double c0 = 2.0 * info->fc * pu->r0 / EF_C;

      rec->raw_cyc0 = c0 - floor (c0);
      rec->raw_cstep = dfb * shift;
    }
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
  /* Recorded when it changes (the geometry may allow another shape from one block to the next). */
  {
    const gboolean tuned = !priv->opts.variant && variant == priv->tuned;

    if (self->run.kernel_shape != variant || self->run.kernel_tuned != tuned)
      {
        const EfCudaShape *sh = &ef_cuda_shapes[variant - 1];
        g_autofree char *name = g_strdup_printf ("seg %u, %u warps, chunk %u", sh->seg, sh->warps, sh->chunk);
        const char *note = NULL;

        if (!priv->opts.variant && !priv->tuned)
          note = "no backprojection shape is tuned for this device and class: the geometry's default ran; "
                 "echoform-cli tune stores one";
        else if (!priv->opts.variant && !tuned)
          note = "the tuned backprojection shape takes longer range series than this geometry allows: the "
                 "geometry's default ran";
        ef_run_info_set_kernel (&self->run, variant, name, tuned, note);
      }
  }

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
      ef_cuda_backend_set_guard (priv, ext + ext / 4);
      if (!ef_cuda_table_fits (priv->layout.n, priv->guard, error) || !ef_cuda_backend_alloc_table (priv, error))
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
      && !ef_cuda_rc_absmax (priv->s_comp, priv->d_prof, (gsize) count * priv->layout.n * 2, priv->d_scale, chunk,
                             error))
    return FALSE;
  return ef_cuda_rc_pack (priv->s_comp, priv->precision, priv->d_prof, priv->layout.n, priv->guard, priv->stride,
                          priv->d_pulses[slot], priv->d_scale, priv->d_table, count, error);
}

gboolean
ef_cuda_backend_mark_bands (CudaPriv *priv, GError **error)
{
  for (guint k = 0; k < priv->n_bands; k++)
    EF_CUDA_CHECK (cudaEventRecord (priv->ev_band[k], priv->s_comp), error);
  return TRUE;
}

/* The backprojection of the table into the accumulator, a band of rows at a time (each pixel sums the
 * pulses in the same order either way), each band's event recorded after it. With several bands each
 * runs on a stream of its own after what the compute stream has queued, at a priority above the next
 * band's, and the compute stream waits for all: the device runs them back to back, the first band done
 * first, with no idle tail between. */
static gboolean
launch_bp (EfBackend *self, int slot, guint variant, guint count, gboolean mono, GError **error)
{
  CudaPriv *priv = self->priv;
  const EfGrid *g = &self->params.grid;
  EfCudaBpArgs args;

  memset (&args, 0, sizeof args);
  args.width = g->width;
  args.table = priv->d_table;
  args.stride = priv->stride;
  args.guard = priv->guard;
  args.ib_lo = -priv->guard + priv->ext;
  args.ib_hi = (int) priv->layout.n + priv->guard - 1 - priv->ext;
  args.pulses = priv->d_pulses[slot];
  args.n_pulses = count;
  args.bistatic = !mono;
  args.scale = priv->d_scale;
  if (priv->n_bands > 1)
    EF_CUDA_CHECK (cudaEventRecord (priv->ev_bands_in, priv->s_comp), error);
  for (guint k = 0; k < priv->n_bands; k++)
    {
      guint y0 = k * priv->band_rows, y1 = MIN (g->height, y0 + priv->band_rows);
      cudaStream_t st = priv->n_bands > 1 ? priv->s_band[k] : priv->s_comp;

      if (priv->n_bands > 1)
        EF_CUDA_CHECK (cudaStreamWaitEvent (st, priv->ev_bands_in, 0), error);

      for (int i = 0; i < 3; i++)
        {
          args.origin[i] = g->origin[i] + (double) y0 * g->spacing * g->v[i];
          args.su[i] = g->spacing * g->u[i];
          args.sv[i] = g->spacing * g->v[i];
        }
      args.height = y1 - y0;
      args.image = (char *) priv->d_image + (gsize) y0 * g->width * sizeof (EfCf32);
      if (args.height > 0 && !ef_cuda_bp_launch (st, priv->precision, variant, &args, error))
        return FALSE;
      EF_CUDA_CHECK (cudaEventRecord (priv->ev_band[k], st), error);
    }
  for (guint k = 0; k < priv->n_bands && priv->n_bands > 1; k++)
    EF_CUDA_CHECK (cudaStreamWaitEvent (priv->s_comp, priv->ev_band[k], 0), error);
  return TRUE;
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
gboolean
ef_cuda_backend_pfa_form (EfBackend *self, GError **error)
{
  CudaPriv *priv = self->priv;

  return ef_cuda_pfa_form (priv->pfa, priv->s_comp, priv->d_image, NULL, error);
}

/* The depth of focus over every pulse gridded so far, after each block: the host-side check the CPU
 * former makes too (ef_pfa_dof_report), from the pulses' geometry alone. */
void
ef_cuda_backend_pfa_check (EfBackend *self)
{
  CudaPriv *priv = self->priv;
  EfPfaReport rep;

  /* The record says it (the defocus is the algorithm's, not a failure), as of the last block. */
  ef_cuda_pfa_check (priv->pfa, &rep);
  ef_run_info_set_pfa (&self->run, rep.outside_dof, rep.qpe_max_rad, rep.qpe_limit_rad, rep.note);
}

EfCudaPfa *
ef_cuda_backend_pfa (EfBackend *self)
{
  return ((CudaPriv *) self->priv)->pfa;
}

/* ---- one sub-block ---- */

gboolean
ef_cuda_backend_run_sub_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count,
                               GError **error)
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

  /* The matched filter sums the samples themselves (ef-cuda-mf.c). */
  if (self->params.algo == EF_ALGO_MF)
    return ef_cuda_backend_run_mf (self, pulses, samples, count, error);

  /* The pinned buffer of this slot was last read by a copy two sub-blocks ago. */
  EF_CUDA_CHECK (cudaEventSynchronize (priv->ev_h2d[slot]), error);
  if (!ef_cuda_backend_collect_timing (priv, slot, error))
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
      view.n_bins = priv->layout.n;
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

  ef_cuda_host_copy (priv->h_samples[slot], samples, (gsize) count * priv->layout.n_in * sizeof (EfCf32));

  /* Copy: waits until the compute stream is done with this slot's device buffers. */
  EF_CUDA_CHECK (cudaStreamWaitEvent (cs, priv->ev_done[slot], 0), error);
  EF_CUDA_CHECK (cudaEventRecord (tm->h2d0, cs), error);
  EF_CUDA_CHECK (cudaMemcpyAsync (priv->d_samples[slot], priv->h_samples[slot],
                                  (gsize) count * priv->layout.n_in * sizeof (EfCf32), cudaMemcpyHostToDevice, cs),
                 error);
  EF_CUDA_CHECK (cudaMemcpyAsync (priv->d_pulses[slot], priv->h_pulses[slot], count * sizeof (EfCudaPulse),
                                  cudaMemcpyHostToDevice, cs),
                 error);
  EF_CUDA_CHECK (cudaEventRecord (tm->h2d1, cs), error);
  EF_CUDA_CHECK (cudaEventRecord (priv->ev_h2d[slot], cs), error);
  EF_CUDA_CHECK (cudaStreamWaitEvent (priv->s_comp, priv->ev_h2d[slot], 0), error);

  /* Range compression into d_prof. */
  EF_CUDA_CHECK (cudaEventRecord (tm->rc0, priv->s_comp), error);
  switch (priv->layout.domain)
    {
    case EF_DOMAIN_FX:
      {
        cufftHandle inv;

        if (!ef_cuda_rc_prep_fx (priv->s_comp, priv->d_samples[slot], priv->layout.n_in, priv->layout.n, priv->d_coef,
                                 priv->d_pulses[slot], priv->d_prof, count, priv->d_bad, error)
            || !ef_cuda_backend_get_plan (priv, (int) priv->layout.n, (int) priv->max_block, CUFFT_C2C, &inv, error))
          return FALSE;
        EF_CUFFT_CHECK (cufftExecC2C (inv, priv->d_prof, priv->d_prof, CUFFT_INVERSE), error);
      }
      break;
    case EF_DOMAIN_RAW:
      {
        cufftHandle fwd, inv;

        if (!ef_cuda_rc_prep_raw (priv->s_comp, priv->d_samples[slot], priv->layout.n_in, priv->layout.nc, priv->d_raw, count,
                                  priv->d_bad, error)
            || !ef_cuda_backend_get_plan (priv, (int) priv->layout.nc, (int) priv->max_block, CUFFT_C2C, &fwd, error))
          return FALSE;
        EF_CUFFT_CHECK (cufftExecC2C (fwd, priv->d_raw, priv->d_raw, CUFFT_FORWARD), error);
        if (!ef_cuda_rc_select_raw (priv->s_comp, priv->d_raw, priv->layout.nc, priv->layout.k, priv->layout.k_first, priv->layout.n,
                                    priv->d_chirp, priv->d_coef, priv->d_pulses[slot], priv->d_prof, count,
                                    error)
            || !ef_cuda_backend_get_plan (priv, (int) priv->layout.n, (int) priv->max_block, CUFFT_C2C, &inv, error))
          return FALSE;
        EF_CUFFT_CHECK (cufftExecC2C (inv, priv->d_prof, priv->d_prof, CUFFT_INVERSE), error);
      }
      break;
    case EF_DOMAIN_TOA:
    default:
      if (!ef_cuda_rc_prep_toa (priv->s_comp, priv->d_samples[slot], priv->layout.n_in, priv->d_pulses[slot],
                                priv->d_prof, count, priv->d_bad, error))
        return FALSE;
      break;
    }
  if (!pfa && !pack_table (self, slot, variant ? ef_cuda_shapes[variant - 1].chunk : 32, count, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (tm->rc1, priv->s_comp), error);
  if (pfa)
    {
      if (!ef_cuda_pfa_add (priv->pfa, priv->s_comp, meta, priv->d_prof, priv->layout.n, count, error))
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
