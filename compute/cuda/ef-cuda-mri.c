/* ef-cuda-mri.c: F^H d and Q on a device: the samples in, the tiles run, the image out. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-mri"
#include "config.h"

#include <math.h>

#include "ef-cuda-private.h"
#include "ef-cuda-mri.h"
#include "ef-cuda-mri-private.h"

/* Everything one call holds on the device and the host; freed by ef_cuda_mri_job_clear. */
typedef struct {
  cudaStream_t stream;          /* owned */
  cudaEvent_t  ev[4];           /* owned */
  float       *host;            /* owned: the samples as floats, 7 m */
  float       *dev;             /* owned: the same on the device */
  double      *out;             /* owned: device, 2 n_vox */
} EfCudaMriJob;

static void
ef_cuda_mri_job_clear (EfCudaMriJob *j)
{
  if (j->dev != NULL)
    EF_CUDA_WARN (cudaFree (j->dev));
  if (j->out != NULL)
    EF_CUDA_WARN (cudaFree (j->out));
  for (guint i = 0; i < G_N_ELEMENTS (j->ev); i++)
    if (j->ev[i] != NULL)
      EF_CUDA_WARN (cudaEventDestroy (j->ev[i]));
  if (j->stream != NULL)
    EF_CUDA_WARN (cudaStreamDestroy (j->stream));
  g_free (j->host);
}

static double
elapsed_ms (cudaEvent_t a, cudaEvent_t b)
{
  float ms = -1;

  return cudaEventElapsedTime (&ms, a, b) == cudaSuccess ? ms : -1;
}

static gboolean
ef_cuda_mri_run (EfCudaMriJob *j, int device, const EfMriTraj *t, const EfCf32 *d, const float *w,
                 const EfMriGrid *grid, gsize n_vox, guint shape, EfCf64 *out, EfCudaMriTiming *timing,
                 GError **error)
{
  gsize m = t->m;
  EfCudaMriArgs a = { 0 };
  guint tiles = 0;

  if (device >= 0)
    EF_CUDA_CHECK (cudaSetDevice (device), error);
  EF_CUDA_CHECK (cudaStreamCreateWithFlags (&j->stream, cudaStreamNonBlocking), error);
  for (guint i = 0; i < G_N_ELEMENTS (j->ev); i++)
    EF_CUDA_CHECK (cudaEventCreate (&j->ev[i]), error);

  j->host = g_try_new (float, 7 * m);
  if (j->host == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples",
                   m);
      return FALSE;
    }
  for (gsize i = 0; i < m; i++)
    {
      j->host[i] = (float) t->k[i * t->dim];
      j->host[m + i] = (float) t->k[i * t->dim + 1];
      j->host[2 * m + i] = t->dim == 3 ? (float) t->k[i * t->dim + 2] : 0.0f;
      j->host[3 * m + i] = d != NULL ? crealf (d[i]) : (w != NULL ? w[i] : 1.0f);
      j->host[4 * m + i] = d != NULL ? cimagf (d[i]) : 0.0f;
      /* the step's phase in double, reduced to cycles before it is rounded */
      {
        double st = t->k[i * t->dim] * grid->spacing;
        st -= nearbyint (st);
        j->host[5 * m + i] = (float) cos (2 * G_PI * st);
        j->host[6 * m + i] = (float) sin (2 * G_PI * st);
      }
    }
  if (ef_cuda_malloc ((void **) &j->dev, 7 * m * sizeof (float)) != cudaSuccess
      || ef_cuda_malloc ((void **) &j->out, 2 * n_vox * sizeof (double)) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "The device has too little memory for %" G_GSIZE_FORMAT " samples and %" G_GSIZE_FORMAT " voxels",
                   m, n_vox);
      return FALSE;
    }

  EF_CUDA_CHECK (cudaEventRecord (j->ev[0], j->stream), error);
  EF_CUDA_CHECK (cudaMemcpyAsync (j->dev, j->host, 7 * m * sizeof (float), cudaMemcpyHostToDevice, j->stream), error);
  EF_CUDA_CHECK (cudaMemsetAsync (j->out, 0, 2 * n_vox * sizeof (double), j->stream), error);
  EF_CUDA_CHECK (cudaEventRecord (j->ev[1], j->stream), error);

  a.nx = grid->n[0];
  a.ny = grid->n[1];
  a.nz = grid->n[2];
  a.spacing = (float) grid->spacing;
  a.n_vox = n_vox;
  a.kx = j->dev;
  a.ky = j->dev + m;
  a.kz = j->dev + 2 * m;
  a.re = j->dev + 3 * m;
  a.im = d != NULL ? j->dev + 4 * m : NULL;
  a.stc = j->dev + 5 * m;
  a.sts = j->dev + 6 * m;
  a.m = m;
  a.out = j->out;
  if (!ef_cuda_mri_run_tiles (j->stream, &a, shape, &tiles, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (j->ev[2], j->stream), error);
  /* EfCf64 is two doubles, as the accumulator holds them */
  EF_CUDA_CHECK (cudaMemcpyAsync (out, j->out, 2 * n_vox * sizeof (double), cudaMemcpyDeviceToHost, j->stream), error);
  EF_CUDA_CHECK (cudaEventRecord (j->ev[3], j->stream), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (j->stream), error);
  if (timing != NULL)
    {
      timing->h2d_ms = elapsed_ms (j->ev[0], j->ev[1]);
      timing->kernel_ms = elapsed_ms (j->ev[1], j->ev[2]);
      timing->d2h_ms = elapsed_ms (j->ev[2], j->ev[3]);
      timing->tiles = tiles;
    }
  return TRUE;
}

gboolean
ef_cuda_mri_sum (int device, const EfMriTraj *t, const EfCf32 *d, const float *w, const EfMriGrid *grid, int shape,
                 EfCf64 *out, EfCudaMriTiming *timing, GError **error)
{
  EfCudaMriJob job = { 0 };
  g_autofree char *why = NULL;
  gsize n_vox;
  gboolean ok, tuned = FALSE;

  g_return_val_if_fail (t != NULL && grid != NULL && out != NULL, FALSE);
  g_return_val_if_fail (shape < EF_CUDA_MRI_N_SHAPES, FALSE);
  G_STATIC_ASSERT (sizeof (EfCf64) == 2 * sizeof (double));

  n_vox = ef_mri_grid_voxels (grid, error);
  if (n_vox == 0 || !ef_mri_traj_check (t, error))
    return FALSE;
  if (t->dim != grid->dim || t->m > G_MAXSIZE / (7 * sizeof (float)))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A %u-D trajectory of %" G_GSIZE_FORMAT " samples cannot reconstruct a %u-D grid", t->dim, t->m,
                   grid->dim);
      return FALSE;
    }
  if (!ef_cuda_available (&why))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "%s", why);
      return FALSE;
    }
  if (shape < 0)
    shape = ef_cuda_mri_pick_shape (device, grid, d == NULL, &tuned);
  ok = ef_cuda_mri_run (&job, device, t, d, w, grid, n_vox, (guint) shape, out, timing, error);
  if (ok && timing != NULL)
    {
      timing->shape = (guint) shape;
      timing->tuned = tuned;
    }
  ef_cuda_mri_job_clear (&job);
  return ok;
}
