/* ef-cuda-mf.c: the matched filter as a CUDA backend sub-block: pulse records, copies, weighting, the sum. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <string.h>

#include "ef-cuda-backend-private.h"

/*
 * The matched filter takes the samples as they come, with no range compression: the copy of sub-block
 * k+1 overlaps the sum of sub-block k through the backend's two slots, as backprojection's does. The
 * weighted samples go in the backend's profile buffer (max_block * n >= max_block * K), which only the
 * compute stream uses, and the window / K is the backend's d_coef, the same as range compression's.
 */

struct _EfCudaMf {
  guint          capacity;
  guint          shape;   /* the kernel's launch shape, 1-based (ef-cuda-mf.h) */
  EfCudaMfPulse *h[2];  /* pinned, capacity */
  EfCudaMfPulse *d[2];  /* device, capacity */
};

void
ef_cuda_mf_pulse_fill (const EfMfPulse *m, double w, EfCudaMfPulse *out)
{
  memset (out, 0, sizeof *out);
  memcpy (out->tx, m->tx, sizeof out->tx);
  memcpy (out->rcv, m->rcv, sizeof out->rcv);
  out->r0 = m->r0;
  out->k0 = 2.0 * m->f0 / EF_C;
  out->ks = 2.0 * m->df / EF_C;
  out->w = (float) w;
}

static gboolean
mf_alloc (EfCudaMf *mf, GError **error)
{
  for (int s = 0; s < 2; s++)
    {
      EF_CUDA_CHECK (ef_cuda_malloc_host ((void **) &mf->h[s], mf->capacity * sizeof (EfCudaMfPulse)), error);
      EF_CUDA_CHECK (ef_cuda_malloc ((void **) &mf->d[s], mf->capacity * sizeof (EfCudaMfPulse)), error);
    }
  return TRUE;
}

EfCudaMf *
ef_cuda_mf_new (guint capacity, GError **error)
{
  EfCudaMf *mf;

  g_return_val_if_fail (capacity > 0 && capacity <= MAX_BLOCK, NULL);
  mf = g_new0 (EfCudaMf, 1);
  mf->capacity = capacity;
  mf->shape = EF_CUDA_MF_DEFAULT_SHAPE;
  if (!mf_alloc (mf, error))
    {
      ef_cuda_mf_free (mf);
      return NULL;
    }
  return mf;
}

void
ef_cuda_mf_free (EfCudaMf *mf)
{
  if (mf == NULL)
    return;
  for (int s = 0; s < 2; s++)
    {
      FREE_HOST (mf->h[s]);
      FREE_DEV (mf->d[s]);
    }
  g_free (mf);
}

void
ef_cuda_backend_mf_choose (EfBackend *self)
{
  CudaPriv *priv = self->priv;
  const EfGrid *g = &self->params.grid;
  const guint edge = MAX (g->width, g->height), k = priv->layout.n_in;
  g_autofree char *name = NULL, *note = NULL;
  gboolean tuned = FALSE;
  guint shape;

  g_return_if_fail (priv->mf != NULL);
  if (priv->opts.mf_shape > 0)
    shape = priv->opts.mf_shape;
  else
    {
      name = ef_cuda_device_name (priv->device);
      shape = ef_cuda_mf_pick_shape (name, edge, k, &tuned);
      if (!tuned)
        {
          g_autofree char *key = ef_cuda_mf_tune_key (edge, k);

          note = g_strdup_printf ("no matched-filter shape is tuned for %s and class %s: the default (shape %u) "
                                  "ran; echoform-cli tune --mf --edge %u --samples %u stores one",
                                  name != NULL ? name : "this device", key, shape, edge, k);
          g_info ("%s", note);
        }
    }
  priv->mf->shape = shape;
  ef_run_info_set_kernel (&self->run, shape, ef_cuda_mf_shape_name (shape), tuned, note);
}

gboolean
ef_cuda_backend_run_mf (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  CudaPriv *priv = self->priv;
  EfCudaMf *mf = priv->mf;
  const EfGrid *g = &self->params.grid;
  const int slot = (int) priv->slot;
  Timing *tm = &priv->timing[slot];
  const guint k = priv->layout.n_in;
  cudaStream_t cs = priv->opts.synchronous ? priv->s_comp : priv->s_copy;
  EfCudaMfArgs args;

  g_return_val_if_fail (mf != NULL, FALSE);
  if (count > mf->capacity)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u pulses do not fit the matched filter's sub-block of %u", count, mf->capacity);
      return FALSE;
    }
  /* The pinned buffers of this slot were last read by a copy two sub-blocks ago. */
  EF_CUDA_CHECK (cudaEventSynchronize (priv->ev_h2d[slot]), error);
  if (!ef_cuda_backend_collect_timing (priv, slot, error))
    return FALSE;
  for (guint p = 0; p < count; p++)
    {
      EfMfPulse m;

      ef_mf_pulse_fill (&pulses[p], &m);
      /* Double first, as the CPU's weighting takes it. */
      ef_cuda_mf_pulse_fill (&m, ef_az_weight_at (&priv->az, &pulses[p]), &mf->h[slot][p]);
    }
  memcpy (priv->h_samples[slot], samples, (gsize) count * k * sizeof (EfCf32));

  EF_CUDA_CHECK (cudaStreamWaitEvent (cs, priv->ev_done[slot], 0), error);
  EF_CUDA_CHECK (cudaEventRecord (tm->h2d0, cs), error);
  EF_CUDA_CHECK (cudaMemcpyAsync (priv->d_samples[slot], priv->h_samples[slot], (gsize) count * k * sizeof (EfCf32),
                                  cudaMemcpyHostToDevice, cs),
                 error);
  EF_CUDA_CHECK (cudaMemcpyAsync (mf->d[slot], mf->h[slot], count * sizeof (EfCudaMfPulse), cudaMemcpyHostToDevice,
                                  cs),
                 error);
  EF_CUDA_CHECK (cudaEventRecord (tm->h2d1, cs), error);
  EF_CUDA_CHECK (cudaEventRecord (priv->ev_h2d[slot], cs), error);
  EF_CUDA_CHECK (cudaStreamWaitEvent (priv->s_comp, priv->ev_h2d[slot], 0), error);

  EF_CUDA_CHECK (cudaEventRecord (tm->rc0, priv->s_comp), error);
  if (!ef_cuda_mf_weight (priv->s_comp, priv->d_samples[slot], k, priv->d_coef, mf->d[slot], count, priv->d_prof,
                          priv->d_bad, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (tm->rc1, priv->s_comp), error);

  memset (&args, 0, sizeof args);
  for (int i = 0; i < 3; i++)
    {
      args.origin[i] = g->origin[i];
      args.su[i] = g->spacing * g->u[i];
      args.sv[i] = g->spacing * g->v[i];
    }
  args.width = g->width;
  args.height = g->height;
  args.samples = priv->d_prof;
  args.n_samples = k;
  args.pulses = mf->d[slot];
  args.n_pulses = count;
  args.image = priv->d_image;
  if (!ef_cuda_mf_launch (priv->s_comp, mf->shape, &args, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (tm->bp1, priv->s_comp), error);
  EF_CUDA_CHECK (cudaEventRecord (priv->ev_done[slot], priv->s_comp), error);
  tm->n_bp = (guint64) count * g->width * g->height;
  tm->pending = TRUE;

  if (priv->opts.synchronous)
    EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  priv->slot ^= 1;
  return TRUE;
}
