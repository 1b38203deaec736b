/* ef-cuda-resources.c: the CUDA backend's buffers sized to the sub-block, its cuFFT plans and timings. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-backend-private.h"

/* ---- plans ---- */

gboolean
ef_cuda_backend_get_plan (CudaPriv *priv, int n, int batch, cufftType type, cufftHandle *out, GError **error)
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

void
ef_cuda_backend_free_buffers (CudaPriv *priv)
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

gboolean
ef_cuda_backend_alloc_table (CudaPriv *priv, GError **error)
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

  ef_cuda_backend_free_buffers (priv);
  for (int s = 0; s < 2; s++)
    {
      if (!ef_cuda_check_ (ef_cuda_malloc_host ((void **) &priv->h_samples[s], B * priv->layout.n_in * sizeof (EfCf32)),
                           "cudaMallocHost (samples)", __FILE__, __LINE__, error)
          || !ef_cuda_check_ (ef_cuda_malloc_host ((void **) &priv->h_pulses[s], B * sizeof (EfCudaPulse)),
                              "cudaMallocHost (pulses)", __FILE__, __LINE__, error)
          || !ef_cuda_check_ (ef_cuda_malloc (&priv->d_samples[s], B * priv->layout.n_in * sizeof (EfCf32)),
                              "cudaMalloc (samples)", __FILE__, __LINE__, error)
          || !ef_cuda_check_ (ef_cuda_malloc ((void **) &priv->d_pulses[s], B * sizeof (EfCudaPulse)),
                              "cudaMalloc (pulses)", __FILE__, __LINE__, error))
        goto fail;
    }
  if (priv->layout.nc
      && !ef_cuda_check_ (ef_cuda_malloc (&priv->d_raw, B * priv->layout.nc * sizeof (EfCf32)), "cudaMalloc (raw)",
                          __FILE__, __LINE__, error))
    goto fail;
  if (!ef_cuda_check_ (ef_cuda_malloc (&priv->d_prof, B * priv->layout.n * sizeof (EfCf32)), "cudaMalloc (profiles)",
                       __FILE__, __LINE__, error))
    goto fail;
  /* The FFTs always run over the whole sub-block; rows past a short block's end must hold numbers. */
  if (!ef_cuda_check_ (cudaMemsetAsync (priv->d_prof, 0, B * priv->layout.n * sizeof (EfCf32), priv->s_comp),
                       "cudaMemsetAsync (profiles)", __FILE__, __LINE__, error)
      || (priv->layout.nc && !ef_cuda_check_ (cudaMemsetAsync (priv->d_raw, 0, B * priv->layout.nc * sizeof (EfCf32), priv->s_comp),
                                       "cudaMemsetAsync (raw)", __FILE__, __LINE__, error)))
    goto fail;
  if (!ef_cuda_backend_alloc_table (priv, error))
    goto fail;
  /* Plans for the full sub-block now, so that their work areas count against this size. */
  if (priv->layout.domain != EF_DOMAIN_TOA
      && !ef_cuda_backend_get_plan (priv, (int) priv->layout.n, (int) B, CUFFT_C2C, &plan, error))
    goto fail;
  if (priv->layout.nc && !ef_cuda_backend_get_plan (priv, (int) priv->layout.nc, (int) B, CUFFT_C2C, &plan, error))
    goto fail;
  return TRUE;

fail:
  ef_cuda_backend_free_buffers (priv);
  return FALSE;
}

/* Allocates for max_block pulses, halving it while the device says it is out of memory. */
gboolean
ef_cuda_backend_alloc (CudaPriv *priv, GError **error)
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
gboolean
ef_cuda_table_fits (guint n, int guard, GError **error)
{
  if ((guint64) n + 2 * (guint64) guard + 64 >= (1u << 22))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u range bins (and a guard of %d) are more than the GPU kernels index", n, guard);
      return FALSE;
    }
  return TRUE;
}

void
ef_cuda_backend_set_guard (CudaPriv *priv, int ext)
{
  priv->ext = ext;
  priv->guard = 2 * ext + 2;
  priv->stride = (priv->layout.n + 2u * (guint) priv->guard + 3u) & ~3u;
}

/* ---- timing ---- */

gboolean
ef_cuda_backend_collect_timing (CudaPriv *priv, int slot, GError **error)
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
