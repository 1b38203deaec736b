/* ef-backend-cpu.c: the CPU backend: range compression and BP, FFBP, FBP or PFA, or the matched filter. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-backend"
#include "config.h"

#include <string.h>

#include "ef-backend.h"
#include "ef-bp.h"
#include "ef-error.h"
#include "ef-ffbp.h"
#include "ef-mf.h"
#include "ef-pfa.h"
#include "ef-test-hooks.h"

typedef struct {
  EfRangeCompressor *rc;        /* owned */
  EfProfiles        *profiles;  /* owned, one block */
  EfCf32            *acc32;     /* owned, fp32 accumulator, or NULL */
  EfCf64            *acc64;     /* owned, fp64 accumulator, or NULL */
  EfFfbp            *ffbp;      /* owned: FFBP or FBP former, made at the first block, or NULL */
  EfPfa             *pfa;       /* owned: PFA k-space grid, made at the first block, or NULL */
  gboolean           pfa_stale; /* pulses were gridded since the accumulator was last formed */
  EfMfBlock         *mf;        /* owned: the matched filter's weighted samples (algo MF, no rc), or NULL */
} CpuPriv;

/* The fp64 path stays the plain reference sum; only rows are spread over threads. */
static void
reference_parallel (const EfGrid *grid, const EfProfiles *profiles, EfCf64 *acc)
{
  const guint band = 8;
  guint n_bands = (grid->height + band - 1) / band;

#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (guint b = 0; b < n_bands; b++)
    {
      EfRect r = { 0, b * band, grid->width, MIN (band, grid->height - b * band) };

      ef_bp_reference_rect (grid, profiles, &r, acc + (gsize) r.y * grid->width);
    }
}

/* PFA grids each block as it comes; the image is formed when it is read. */
static gboolean
cpu_pfa_add (EfBackend *self, const EfPulse *pulses, GError **error)
{
  CpuPriv *priv = self->priv;

  if (priv->pfa == NULL)
    {
      EfPfaParams pp;

      ef_pfa_params_init (&pp);
      pp.n_threads = self->params.n_threads;
      priv->pfa = ef_pfa_new (&self->params.grid, ef_backend_processed_band (self, pulses), priv->acc64 != NULL,
                              &pp, error);
      if (priv->pfa == NULL)
        return FALSE;
    }
  if (!ef_pfa_add (priv->pfa, priv->profiles, error))
    return FALSE;
  priv->pfa_stale = TRUE;
  /* The aperture grows with every block, and so may the defocus: checked each time. */
  {
    EfPfaReport rep;

    /* The record says it (the defocus is the algorithm's, not a failure), as of the last block: every
     * output states the error of the whole aperture, not the first that passed the limit. */
    ef_pfa_check (priv->pfa, &rep);
    ef_run_info_set_pfa (&self->run, rep.outside_dof, rep.qpe_max_rad, rep.qpe_limit_rad, rep.note);
  }
  return TRUE;
}

/* FFBP or FBP of the block in priv->profiles. The former is made at the first block, where the band is
 * known even when the dataset's header leaves it out. */
static gboolean
cpu_fast_bp (EfBackend *self, const EfPulse *pulses, GError **error)
{
  CpuPriv *priv = self->priv;
  EfFfbpStats st;

  if (priv->ffbp == NULL)
    {
      EfFfbpParams fp;
      double band = ef_backend_processed_band (self, pulses);

      if (self->params.algo == EF_ALGO_FBP)
        ef_fbp_params_init (&fp);
      else
        {
          ef_ffbp_params_init (&fp);
          /* Range interpolation sets most of FFBP's error, and on the CPU a finer range sampling costs
           * little: 2.2 instead of 2 keeps 1024-pulse blocks 55 dB from BP (52 dB at 2) for 4% more time
           * (tests/bench/RESULTS.md). The CUDA backend keeps the default it was measured with. */
          fp.oversample_range = 2.2;
        }
      fp.n_threads = self->params.n_threads;
      priv->ffbp = ef_ffbp_new (&self->params.grid, band, &fp, error);
      if (priv->ffbp == NULL)
        return FALSE;
    }
  if (!ef_ffbp_process (priv->ffbp, priv->profiles, priv->acc64, priv->acc32, &st, error))
    return FALSE;
  if (priv->profiles->n_pulses > 0)
    ef_run_info_add_block (&self->run, st.used_bp, st.why_bp);
  return TRUE;
}

/* The matched filter: the samples are weighted and summed as they are, with no range compression. */
static gboolean
cpu_mf_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  CpuPriv *priv = self->priv;
  const EfGrid *g = &self->params.grid;
  EfRect all = { 0, 0, g->width, g->height };

  for (guint done = 0; done < count;)
    {
      guint n = MIN (count - done, priv->mf->capacity);
      guint64 bad = 0;
      gint64 t0 = g_get_monotonic_time ();

      if (!ef_mf_block_fill (priv->mf, pulses + done, samples + (gsize) done * self->info.n_samples, n, &bad, error))
        return FALSE;
      self->n_bad_samples += bad;
      if (priv->acc64)
        ef_mf_form_f64 (g, priv->mf, &all, priv->acc64, self->params.n_threads);
      else
        ef_mf_form_f32 (g, priv->mf, &all, priv->acc32, self->params.n_threads);
      g_debug ("%u pulses of %u samples: mf %.4f s", n, priv->mf->n_samples, (g_get_monotonic_time () - t0) * 1e-6);
      done += n;
    }
  return TRUE;
}

static gboolean
cpu_process_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  CpuPriv *priv = self->priv;
  guint64 bad = 0;

  if (priv->mf != NULL)
    return cpu_mf_block (self, pulses, samples, count, error);
  for (guint done = 0; done < count;)
    {
      guint n = MIN (count - done, priv->profiles->capacity);

      gint64 t0 = g_get_monotonic_time (), t1;
      double c0 = ef_process_cpu_seconds (), c1;

      if (!ef_range_compress (priv->rc, pulses + done, samples + (gsize) done * self->info.n_samples, n,
                              priv->profiles, &bad, error))
        return FALSE;
      t1 = g_get_monotonic_time ();
      c1 = ef_process_cpu_seconds ();
      self->n_bad_samples += bad;
      if (self->params.algo == EF_ALGO_FFBP || self->params.algo == EF_ALGO_FBP)
        {
          if (!cpu_fast_bp (self, pulses + done, error))
            return FALSE;
        }
      else if (self->params.algo == EF_ALGO_PFA)
        {
          if (!cpu_pfa_add (self, pulses + done, error))
            return FALSE;
        }
      else if (priv->acc64)
        reference_parallel (&self->params.grid, priv->profiles, priv->acc64);
      else
        ef_bp_cpu_fp32 (&self->params.grid, priv->profiles, priv->acc32, self->params.n_threads);
      g_debug ("%u pulses: range compression to %u bins %.4f s (CPU %.4f s), %s %.4f s (CPU %.4f s)", n,
               priv->profiles->n_bins, (t1 - t0) * 1e-6, c1 - c0, ef_algo_to_string (self->params.algo),
               (g_get_monotonic_time () - t1) * 1e-6, ef_process_cpu_seconds () - c1);
      done += n;
    }
  return TRUE;
}

static gboolean
cpu_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  CpuPriv *priv = self->priv;
  guint w = self->params.grid.width;

  if (priv->pfa != NULL && priv->pfa_stale)
    {
      EfPfaReport rep;

      if (!ef_pfa_form (priv->pfa, priv->acc64, priv->acc32, &rep, error))
        return FALSE;
      priv->pfa_stale = FALSE;
    }
  for (guint r = 0; r < rect->height; r++)
    {
      gsize src = (gsize) (rect->y + r) * w + rect->x;
      EfCf32 *dst = out + (gsize) r * rect->width;

      if (priv->acc64)
        for (guint c = 0; c < rect->width; c++)
          dst[c] = (EfCf32) priv->acc64[src + c];
      else
        memcpy (dst, priv->acc32 + src, rect->width * sizeof (EfCf32));
    }
  return TRUE;
}

static gboolean
cpu_clear (EfBackend *self, GError **error)
{
  CpuPriv *priv = self->priv;
  gsize n = ef_grid_n_pixels (&self->params.grid);

  if (priv->pfa != NULL)
    {
      ef_pfa_clear (priv->pfa);
      priv->pfa_stale = FALSE;
    }
  ef_run_info_reset_image (&self->run);
  if (priv->acc64)
    memset (priv->acc64, 0, n * sizeof (EfCf64));
  else
    memset (priv->acc32, 0, n * sizeof (EfCf32));
  return TRUE;
}

static void
cpu_free (EfBackend *self)
{
  CpuPriv *priv = self->priv;

  ef_range_compressor_free (priv->rc);
  ef_profiles_free (priv->profiles);
  ef_aligned_free (priv->acc32);
  ef_aligned_free (priv->acc64);
  ef_ffbp_free (priv->ffbp);
  ef_pfa_free (priv->pfa);
  ef_mf_block_free (priv->mf);
  g_free (priv);
}

static void
cpu_update_run (EfBackend *self)
{
  self->run.nonfinite_samples = self->n_bad_samples;
}

static const EfBackendOps cpu_ops = {
  .name = "cpu",
  .process_block = cpu_process_block,
  .read_image = cpu_read_image,
  .clear = cpu_clear,
  .free = cpu_free,
  .update_run = cpu_update_run,
};

static gboolean
check_params (const EfDatasetInfo *info, const EfBackendParams *params, GError **error)
{
  if (params->grid.width == 0 || params->grid.height == 0 || !(params->grid.spacing > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The image grid is empty");
      return FALSE;
    }
  if (params->algo != EF_ALGO_BP && params->algo != EF_ALGO_FFBP && params->algo != EF_ALGO_FBP
      && params->algo != EF_ALGO_PFA && params->algo != EF_ALGO_MF)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The %s algorithm is not available in this build; use bp", ef_algo_to_string (params->algo));
      return FALSE;
    }
  if (params->algo == EF_ALGO_MF && !ef_mf_check_info (info, error))
    return FALSE;
  if (info->n_samples == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The dataset has no samples");
      return FALSE;
    }
  return TRUE;
}

EfBackend *
ef_backend_cpu_new (const EfDatasetInfo *info, const EfBackendParams *params, GError **error)
{
  g_autoptr (EfBackend) self = NULL;
  CpuPriv *priv;
  gboolean fp64;
  gsize n;
  guint block;

  g_return_val_if_fail (info != NULL && params != NULL, NULL);
  if (!check_params (info, params, error))
    return NULL;

  fp64 = params->precision == EF_PRECISION_FP64;
  block = CLAMP (params->block_size, 1u, 4096u);
  self = g_new0 (EfBackend, 1);
  self->ops = &cpu_ops;
  self->params = *params;
  ef_dataset_info_copy (info, &self->info);
  priv = g_new0 (CpuPriv, 1);
  self->priv = priv;
  ef_backend_run_init (self, params, EF_BACKEND_CPU, 0);
  /* One block a call; a test may ask for more (the job groups them, the loop below cuts them again). */
  self->blocks_per_call = ef_test_hooks_cpu_blocks_per_call ();
  /* The processor has no half-precision path: everything below is fp32 (the same as asking for fp32). */
  if (params->precision == EF_PRECISION_FP16)
    ef_run_info_set_precision (&self->run, EF_PRECISION_FP32,
                               "fp16 needs the CUDA backend; the CPU computed in fp32");

  if (params->algo == EF_ALGO_MF)
    {
      priv->mf = ef_mf_block_new (info, &params->range, block, fp64, error);
      if (priv->mf == NULL)
        return NULL;
    }
  else
    {
      priv->rc = ef_range_compressor_new (info, &params->range, fp64, error);
      if (priv->rc == NULL)
        return NULL;
      priv->profiles = ef_profiles_new (block, ef_range_compressor_n_bins (priv->rc), fp64, error);
      if (priv->profiles == NULL)
        return NULL;
    }
  n = ef_grid_n_pixels (&params->grid);
  if (fp64)
    priv->acc64 = ef_aligned_alloc0 (n * sizeof (EfCf64));
  else
    priv->acc32 = ef_aligned_alloc0 (n * sizeof (EfCf32));
  if (priv->acc64 == NULL && priv->acc32 == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for a %u x %u accumulator", params->grid.width, params->grid.height);
      return NULL;
    }
  return g_steal_pointer (&self);
}
