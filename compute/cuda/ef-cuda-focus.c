/* ef-cuda-focus.c: autofocus's sums on the device: the sharpness sweeps (the blocks' images and their sum kept there) and PGA's projections. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-focus"
#include "config.h"

#include <complex.h>

#include "ef-cuda-focus-private.h"
#include "ef-cuda-private.h"
#include "ef-focus-sweep.h"

/* EF_CUDA_CHECK for the constructors, which return NULL. */
#define CHECK_NULL(expr, error) \
  G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, (error))) return NULL; } G_STMT_END

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

/* ---- PGA's projections ---- */

G_STATIC_ASSERT (EF_CUDA_PGA_PULSE_DOUBLES == EF_PGA_PULSE_DOUBLES);

struct _EfPgaProjector {
  int           device;
  cudaStream_t  stream;
  EfCudaPgaGrid grid;
  guint64       n;
  guint         ns;
  double       *pulse;      /* owned, device: n x EF_PGA_PULSE_DOUBLES */
  float        *img;        /* owned, device: the grid's complex floats */
  guint        *patch;      /* owned, device: patch_cap (row, col) pairs */
  double       *g;          /* owned, device: patch_cap * n complex doubles */
  guint         patch_cap;
};

static void
projector_free (EfPgaProjector *p)
{
  if (p == NULL)
    return;
  if (cudaSetDevice (p->device) == cudaSuccess)
    {
      if (p->stream != NULL)
        EF_CUDA_WARN (cudaStreamSynchronize (p->stream));
      if (p->pulse != NULL)
        EF_CUDA_WARN (cudaFree (p->pulse));
      if (p->img != NULL)
        EF_CUDA_WARN (cudaFree (p->img));
      if (p->patch != NULL)
        EF_CUDA_WARN (cudaFree (p->patch));
      if (p->g != NULL)
        EF_CUDA_WARN (cudaFree (p->g));
      if (p->stream != NULL)
        EF_CUDA_WARN (cudaStreamDestroy (p->stream));
    }
  g_free (p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfPgaProjector, projector_free)

static EfPgaProjector *
projector_new (EfBackend *be, const EfPgaGeometry *geo, GError **error)
{
  g_autoptr (EfPgaProjector) p = g_new0 (EfPgaProjector, 1);
  gsize npix;

  g_return_val_if_fail (be != NULL && geo != NULL && geo->pulse != NULL, NULL);
  if (!ef_backend_is_cuda (be))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "PGA's projections' device: not a CUDA backend");
      return NULL;
    }
  if (geo->n_pulses == 0 || geo->width == 0 || geo->height == 0
      || geo->n_pulses > G_MAXSIZE / (EF_PGA_PULSE_DOUBLES * sizeof (double))
      || geo->width > G_MAXSIZE / 8 / geo->height)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "PGA's projections: %" G_GUINT64_FORMAT " pulses on %u x %u pixels cannot be addressed",
                   geo->n_pulses, geo->width, geo->height);
      return NULL;
    }
  npix = (gsize) geo->width * geo->height;
  p->device = be->params.device < 0 ? 0 : be->params.device;
  p->n = geo->n_pulses;
  p->ns = geo->n_samples;
  p->grid.width = geo->width;
  p->grid.height = geo->height;
  for (int k = 0; k < 3; k++)
    {
      p->grid.origin[k] = geo->origin[k];
      p->grid.du[k] = geo->du[k];
      p->grid.dv[k] = geo->dv[k];
    }
  CHECK_NULL (cudaSetDevice (p->device), error);
  CHECK_NULL (cudaStreamCreateWithFlags (&p->stream, cudaStreamNonBlocking), error);
  CHECK_NULL (ef_cuda_malloc ((void **) &p->pulse, (gsize) p->n * EF_PGA_PULSE_DOUBLES * sizeof (double)),
                      error);
  CHECK_NULL (ef_cuda_malloc ((void **) &p->img, npix * 2 * sizeof (float)), error);
  CHECK_NULL (cudaMemcpyAsync (p->pulse, geo->pulse, (gsize) p->n * EF_PGA_PULSE_DOUBLES * sizeof (double),
                                       cudaMemcpyHostToDevice, p->stream), error);
  /* geo's table is the caller's to free once this returns. */
  CHECK_NULL (cudaStreamSynchronize (p->stream), error);
  return g_steal_pointer (&p);
}

static gboolean
projector_set_image (EfPgaProjector *p, const EfCf32 *img, GError **error)
{
  EF_CUDA_CHECK (cudaSetDevice (p->device), error);
  EF_CUDA_CHECK (cudaMemcpyAsync (p->img, img, (gsize) p->grid.width * p->grid.height * sizeof (EfCf32),
                                  cudaMemcpyHostToDevice, p->stream), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (p->stream), error);
  return TRUE;
}

static gboolean
projector_spectra (EfPgaProjector *p, const EfPgaPatch *patch, guint n_patch, guint win, guint half_h, EfCf64 *g,
                   GError **error)
{
  g_autofree guint *pairs = NULL;

  if (n_patch == 0)
    return TRUE;
  EF_CUDA_CHECK (cudaSetDevice (p->device), error);
  if (n_patch > p->patch_cap)
    {
      if (n_patch > G_MAXSIZE / 16 / p->n)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                       "PGA's projections: %u patches of %" G_GUINT64_FORMAT " pulses cannot be addressed", n_patch,
                       p->n);
          return FALSE;
        }
      if (p->patch != NULL)
        EF_CUDA_CHECK (cudaFree (p->patch), error);
      if (p->g != NULL)
        EF_CUDA_CHECK (cudaFree (p->g), error);
      p->patch = NULL;
      p->g = NULL;
      p->patch_cap = 0;
      EF_CUDA_CHECK (ef_cuda_malloc ((void **) &p->patch, (gsize) n_patch * 2 * sizeof (guint)), error);
      EF_CUDA_CHECK (ef_cuda_malloc ((void **) &p->g, (gsize) n_patch * p->n * 2 * sizeof (double)), error);
      p->patch_cap = n_patch;
    }
  pairs = g_new (guint, 2 * (gsize) n_patch);
  for (guint j = 0; j < n_patch; j++)
    {
      pairs[2 * j] = MIN (patch[j].row, p->grid.height - 1);
      pairs[2 * j + 1] = MIN (patch[j].col, p->grid.width - 1);
    }
  EF_CUDA_CHECK (cudaMemcpyAsync (p->patch, pairs, (gsize) n_patch * 2 * sizeof (guint), cudaMemcpyHostToDevice,
                                  p->stream), error);
  if (!ef_cuda_pga_spectra_launch (p->stream, p->img, &p->grid, p->pulse, p->n, p->ns, p->patch, n_patch,
                                   MIN (win, p->grid.width), half_h, p->g, error))
    return FALSE;
  EF_CUDA_CHECK (cudaMemcpyAsync (g, p->g, (gsize) n_patch * p->n * sizeof (EfCf64), cudaMemcpyDeviceToHost,
                                  p->stream), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (p->stream), error);
  return TRUE;
}

static const EfFocusSweepProvider ef_cuda_sweep_provider = {
  .backend = "cuda",
  .create = sweeper_new,
  .set_block = sweeper_set_block,
  .step = sweeper_step,
  .add = sweeper_add,
  .free = sweeper_free,
  .pga_create = projector_new,
  .pga_set_image = projector_set_image,
  .pga_spectra = projector_spectra,
  .pga_free = projector_free,
};

void
ef_cuda_focus_register (void)
{
  ef_focus_sweep_register (&ef_cuda_sweep_provider);
}
