/* ef-cuda-focus.c: the sharpness sweeps on the device: the blocks' images and their sum kept there, the sums taken there. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-focus"
#include "config.h"

#include <complex.h>

#include "ef-cuda-focus-private.h"
#include "ef-cuda-private.h"
#include "ef-focus-sweep.h"

/* Blocks of the step kernel per multiprocessor: enough to hide the loads' latency. */
#define BLOCKS_PER_SM 4

struct _EfFocusSweeper {
  int          device;
  cudaStream_t stream;
  float       *blocks;    /* owned, device: n_blocks * npix complex floats */
  double      *img;       /* owned, device: npix complex doubles, the turned blocks' sum */
  double      *partials;  /* owned, device: grid * 4 */
  double      *host;      /* owned, pinned: grid * 4 */
  guint64      n_blocks;
  gsize        npix;
  guint        grid;
};

static void
sweeper_free (EfFocusSweeper *s)
{
  if (s == NULL)
    return;
  if (cudaSetDevice (s->device) == cudaSuccess)
    {
      if (s->stream != NULL)
        EF_CUDA_WARN (cudaStreamSynchronize (s->stream));
      if (s->blocks != NULL)
        EF_CUDA_WARN (cudaFree (s->blocks));
      if (s->img != NULL)
        EF_CUDA_WARN (cudaFree (s->img));
      if (s->partials != NULL)
        EF_CUDA_WARN (cudaFree (s->partials));
      if (s->host != NULL)
        EF_CUDA_WARN (cudaFreeHost (s->host));
      if (s->stream != NULL)
        EF_CUDA_WARN (cudaStreamDestroy (s->stream));
    }
  g_free (s);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfFocusSweeper, sweeper_free)

static EfFocusSweeper *
sweeper_new (EfBackend *be, guint64 n_blocks, gsize npix, GError **error)
{
  g_autoptr (EfFocusSweeper) s = g_new0 (EfFocusSweeper, 1);
  struct cudaDeviceProp prop;
  guint64 want;

  g_return_val_if_fail (be != NULL && n_blocks > 0 && npix > 0, NULL);
  if (!ef_backend_is_cuda (be))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The sweeps' device: not a CUDA backend");
      return NULL;
    }
  if (npix > G_MAXSIZE / 16 || n_blocks > G_MAXSIZE / 8 / npix)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "The sweeps' %" G_GUINT64_FORMAT " blocks of %zu pixels are too many to address", n_blocks, npix);
      return NULL;
    }
  /* The device the backend forms on (its first, when it spreads the pulses over several). */
  s->device = be->params.device < 0 ? 0 : be->params.device;
  s->n_blocks = n_blocks;
  s->npix = npix;
  if (!ef_cuda_check_ ((int) cudaSetDevice (s->device), "cudaSetDevice", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaGetDeviceProperties (&prop, s->device), "cudaGetDeviceProperties", __FILE__,
                          __LINE__, error)
      || !ef_cuda_check_ ((int) cudaStreamCreateWithFlags (&s->stream, cudaStreamNonBlocking),
                          "cudaStreamCreateWithFlags", __FILE__, __LINE__, error))
    return NULL;
  want = ((guint64) npix + EF_CUDA_FOCUS_THREADS - 1) / EF_CUDA_FOCUS_THREADS;
  s->grid = (guint) MIN (want, (guint64) MAX (prop.multiProcessorCount, 1) * BLOCKS_PER_SM);
  if (!ef_cuda_check_ ((int) ef_cuda_malloc ((void **) &s->blocks, (gsize) n_blocks * npix * 2 * sizeof (float)),
                       "cudaMalloc (the blocks' images)", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) ef_cuda_malloc ((void **) &s->img, npix * 2 * sizeof (double)),
                          "cudaMalloc (the sum)", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) ef_cuda_malloc ((void **) &s->partials, (gsize) s->grid * 4 * sizeof (double)),
                          "cudaMalloc (the partial sums)", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) ef_cuda_malloc_host ((void **) &s->host, (gsize) s->grid * 4 * sizeof (double)),
                          "cudaMallocHost (the partial sums)", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaMemsetAsync (s->img, 0, npix * 2 * sizeof (double), s->stream),
                          "cudaMemsetAsync", __FILE__, __LINE__, error))
    return NULL;
  return g_steal_pointer (&s);
}

static const float *
block_ptr (const EfFocusSweeper *s, guint64 k)
{
  return s->blocks + (gsize) k * s->npix * 2;
}

static gboolean
sweeper_set_block (EfFocusSweeper *s, guint64 k, const EfCf32 *image, GError **error)
{
  g_return_val_if_fail (k < s->n_blocks, FALSE);

  EF_CUDA_CHECK (cudaSetDevice (s->device), error);
  EF_CUDA_CHECK (cudaMemcpyAsync ((void *) block_ptr (s, k), image, s->npix * sizeof (EfCf32), cudaMemcpyHostToDevice,
                                  s->stream), error);
  if (!ef_cuda_focus_add_launch (s->stream, s->img, block_ptr (s, k), 1.0, 0.0, s->npix, s->grid, error))
    return FALSE;
  /* image is the caller's to reuse once this returns. */
  EF_CUDA_CHECK (cudaStreamSynchronize (s->stream), error);
  return TRUE;
}

static gboolean
sweeper_step (EfFocusSweeper *s, gint64 prev, EfCf64 prev_change, guint64 k, EfCf64 rot, EfCf64 *alpha,
              EfCf64 *beta, GError **error)
{
  double ar = 0, ai = 0, br = 0, bi = 0;

  g_return_val_if_fail (k < s->n_blocks && (prev < 0 || (guint64) prev < s->n_blocks), FALSE);

  EF_CUDA_CHECK (cudaSetDevice (s->device), error);
  if (!ef_cuda_focus_step_launch (s->stream, s->img, prev >= 0 ? block_ptr (s, (guint64) prev) : NULL,
                                  creal (prev_change), cimag (prev_change), block_ptr (s, k), creal (rot), cimag (rot),
                                  s->npix, s->grid, s->partials, error))
    return FALSE;
  EF_CUDA_CHECK (cudaMemcpyAsync (s->host, s->partials, (gsize) s->grid * 4 * sizeof (double), cudaMemcpyDeviceToHost,
                                  s->stream), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (s->stream), error);
  /* In block order: the same sums from run to run. */
  for (guint g = 0; g < s->grid; g++)
    {
      ar += s->host[4 * g];
      ai += s->host[4 * g + 1];
      br += s->host[4 * g + 2];
      bi += s->host[4 * g + 3];
    }
  *alpha = ar + I * ai;
  *beta = br + I * bi;
  return TRUE;
}

static gboolean
sweeper_add (EfFocusSweeper *s, guint64 k, EfCf64 change, GError **error)
{
  g_return_val_if_fail (k < s->n_blocks, FALSE);

  EF_CUDA_CHECK (cudaSetDevice (s->device), error);
  return ef_cuda_focus_add_launch (s->stream, s->img, block_ptr (s, k), creal (change), cimag (change), s->npix,
                                   s->grid, error);
}

static const EfFocusSweepProvider ef_cuda_sweep_provider = {
  .backend = "cuda",
  .create = sweeper_new,
  .set_block = sweeper_set_block,
  .step = sweeper_step,
  .add = sweeper_add,
  .free = sweeper_free,
};

void
ef_cuda_focus_register (void)
{
  ef_focus_sweep_register (&ef_cuda_sweep_provider);
}
