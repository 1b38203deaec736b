/* ef-cuda-query.c: what a CUDA backend tells of itself: dirty tiles, block size, kernel shape, timings. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-backend-private.h"

static EfBackend *
first_part (EfBackend *backend)
{
  return ef_cuda_multi_is (backend) ? ef_cuda_multi_part (backend, 0) : backend;
}

void *
ef_cuda_backend_image (EfBackend *backend, int *device)
{
  CudaPriv *priv;

  g_return_val_if_fail (backend != NULL && backend->ops == &ef_cuda_backend_ops, NULL);
  priv = backend->priv;
  if (device)
    *device = priv->device;
  return priv->d_image;
}

cudaEvent_t
ef_cuda_backend_rows_event (EfBackend *backend, guint row, guint *band_end)
{
  CudaPriv *priv;
  guint k;

  g_return_val_if_fail (backend != NULL && backend->ops == &ef_cuda_backend_ops, NULL);
  priv = backend->priv;
  k = MIN (row / priv->band_rows, priv->n_bands - 1);
  if (band_end)
    *band_end = k + 1 == priv->n_bands ? backend->params.grid.height : (k + 1) * priv->band_rows;
  return priv->ev_band[k];
}

gboolean
ef_cuda_backend_sync (EfBackend *backend, GError **error)
{
  CudaPriv *priv;

  g_return_val_if_fail (backend != NULL && backend->ops == &ef_cuda_backend_ops, FALSE);
  priv = backend->priv;
  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  return ef_cuda_backend_read_bad (backend, error);
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
    if (!ef_cuda_backend_collect_timing (priv, s, error))
      return FALSE;
  *stats = priv->stats;
  stats->n_devices = 1;
  return ef_cuda_backend_read_bad (backend, error);
}

gboolean
ef_backend_cuda_read_profiles (EfBackend *backend, guint count, guint *n_bins, EfCf32 *out, GError **error)
{
  CudaPriv *priv;

  g_return_val_if_fail (ef_backend_is_cuda (backend), FALSE);
  backend = first_part (backend);
  priv = backend->priv;
  if (n_bins)
    *n_bins = priv->layout.n;
  if (out == NULL || count == 0)
    return TRUE;
  g_return_val_if_fail (count <= priv->max_block, FALSE);
  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  EF_CUDA_CHECK (cudaMemcpy (out, priv->d_prof, (gsize) count * priv->layout.n * sizeof (EfCf32), cudaMemcpyDeviceToHost),
                 error);
  return TRUE;
}
