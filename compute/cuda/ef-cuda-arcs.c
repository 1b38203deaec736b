/* ef-cuda-arcs.c: a device session for arc coherence: buffers, the stream, copies in and out, timing. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-arcs"
#include "config.h"

#include <string.h>

#include "ef-cuda-arcs.h"
#include "ef-cuda-arcs-private.h"
#include "ef-cuda-private.h"
#include "ef-cuda-test-hooks.h"

/* The arc-parallel mapping's gathered series are kept under this many bytes; its arcs go in chunks. */
#define EF_CUDA_ARCS_SOA_BYTES ((gsize) 1 << 30)

struct _EfCudaArcs {
  int          device;
  guint        width, max_rows, n_passes, n_off, n_grid;
  cudaStream_t stream;
  cudaEvent_t  ev[4];
  gboolean     have_events;
  /* Device buffers, owned. */
  float       *re, *im, *coh, *score, *tre, *tim;
  int         *off;
  guint16     *best;
  EfCudaArcsSoa soa;   /* n: the chunk's capacity */
  EfCudaArcsPgPath pg_path;
  void        *tc_br, *tc_bi;   /* device, owned: the tensor path's fp16 matrices (NULL until asked for) */
  void        *tc_bp, *tc_bq;   /* device, owned: its folded tables, fp16 (likewise) */
  /* The folded grid's tables (device, owned, with a model) and whether the device's shared memory holds
   * a block's series for n_passes (else the full-grid kernel runs on CUDA cores). */
  float       *hp, *hq, *rot;
  gboolean     half_fits;
};

const char *
ef_cuda_arcs_mapping_to_string (EfCudaArcsMapping m)
{
  switch (m)
    {
    case EF_CUDA_ARCS_WINDOW:
      return "window";
    case EF_CUDA_ARCS_ARC:
      return "arc";
    case EF_CUDA_ARCS_GRAPH:
      return "graph";
    default:
      return "unknown";
    }
}

gboolean
ef_cuda_arcs_mapping_from_string (const char *s, EfCudaArcsMapping *out)
{
  for (int m = EF_CUDA_ARCS_WINDOW; m <= EF_CUDA_ARCS_GRAPH; m++)
    if (g_strcmp0 (s, ef_cuda_arcs_mapping_to_string (m)) == 0)
      {
        *out = m;
        return TRUE;
      }
  return FALSE;
}

void
ef_cuda_arcs_free (EfCudaArcs *s)
{
  if (s == NULL)
    return;
  if (s->stream != NULL)
    EF_CUDA_WARN (cudaStreamSynchronize (s->stream));
  cudaFree (s->re);
  cudaFree (s->im);
  cudaFree (s->coh);
  cudaFree (s->score);
  cudaFree (s->tre);
  cudaFree (s->tim);
  cudaFree (s->tc_br);
  cudaFree (s->tc_bi);
  cudaFree (s->tc_bp);
  cudaFree (s->tc_bq);
  cudaFree (s->hp);
  cudaFree (s->hq);
  cudaFree (s->rot);
  cudaFree (s->off);
  cudaFree (s->best);
  cudaFree (s->soa.arc_p);
  cudaFree (s->soa.arc_q);
  cudaFree (s->soa.p_re);
  cudaFree (s->soa.p_im);
  cudaFree (s->soa.q_re);
  cudaFree (s->soa.q_im);
  if (s->have_events)
    for (int i = 0; i < 4; i++)
      cudaEventDestroy (s->ev[i]);
  if (s->stream != NULL)
    cudaStreamDestroy (s->stream);
  g_free (s);
}

static gboolean
alloc (void **p, gsize bytes, GError **error)
{
  EF_CUDA_CHECK (ef_cuda_malloc (p, MAX (bytes, 1)), error);
  return TRUE;
}

guint
ef_cuda_arcs_half_npad (guint n_passes)
{
  return (n_passes + EF_CUDA_ARCS_HALF_PASSES - 1) / EF_CUDA_ARCS_HALF_PASSES * EF_CUDA_ARCS_HALF_PASSES;
}

guint
ef_cuda_arcs_half_tiles (guint n_pairs)
{
  return (n_pairs + EF_CUDA_ARCS_HALF_PAIRS - 1) / EF_CUDA_ARCS_HALF_PAIRS;
}

void
ef_cuda_arcs_half_layout (const float *src, guint n, guint n_pairs, float *dst)
{
  guint npad = ef_cuda_arcs_half_npad (n), tiles = ef_cuda_arcs_half_tiles (n_pairs);

  for (guint t = 0; t < tiles; t++)
    for (guint k = 0; k < npad; k++)
      for (guint j = 0; j < EF_CUDA_ARCS_HALF_PAIRS; j++)
        {
          guint g = t * EF_CUDA_ARCS_HALF_PAIRS + j;

          dst[((gsize) t * npad + k) * EF_CUDA_ARCS_HALF_PAIRS + j] = g < n_pairs && k < n ? src[(gsize) g * n + k]
                                                                                            : 0.0f;
        }
}

/* The folded grid's tables on the device, and whether its CUDA-core kernel fits the device. */
static gboolean
setup_half (EfCudaArcs *s, const EfArcModel *model, const EfArcGrid *grid, GError **error)
{
  guint n = s->n_passes, n_pairs = ef_arc_grid_pairs (grid);
  gsize laid = (gsize) ef_cuda_arcs_half_tiles (n_pairs) * EF_CUDA_ARCS_HALF_PAIRS * ef_cuda_arcs_half_npad (n);
  g_autofree float *cr = g_new (float, n), *ci = g_new (float, n), *rot = g_new (float, 2 * n);
  g_autofree float *p = g_new (float, (gsize) n_pairs * n), *q = g_new (float, (gsize) n_pairs * n);
  g_autofree float *lp = NULL, *lq = NULL;

  if (!ef_cuda_arcs_half_fits (n, &s->half_fits, error))
    return FALSE;
  ef_arc_half_table (model, grid, cr, ci, p, q);
  for (guint k = 0; k < n; k++)
    {
      rot[2 * k] = cr[k];
      rot[2 * k + 1] = ci[k];
    }
  lp = g_new (float, laid);
  lq = g_new (float, laid);
  ef_cuda_arcs_half_layout (p, n, n_pairs, lp);
  ef_cuda_arcs_half_layout (q, n, n_pairs, lq);
  if (!alloc ((void **) &s->hp, laid * sizeof (float), error) || !alloc ((void **) &s->hq, laid * sizeof (float), error)
      || !alloc ((void **) &s->rot, 2 * n * sizeof (float), error))
    return FALSE;
  EF_CUDA_CHECK (cudaMemcpy (s->hp, lp, laid * sizeof (float), cudaMemcpyHostToDevice), error);
  EF_CUDA_CHECK (cudaMemcpy (s->hq, lq, laid * sizeof (float), cudaMemcpyHostToDevice), error);
  EF_CUDA_CHECK (cudaMemcpy (s->rot, rot, 2 * n * sizeof (float), cudaMemcpyHostToDevice), error);
  return TRUE;
}

static gboolean
setup (EfCudaArcs *s, const EfArcOffset *off, const EfArcModel *model, const EfArcGrid *grid, GError **error)
{
  gsize plane = (gsize) s->width * s->max_rows;
  gsize data = plane * s->n_passes;
  gsize arcs = plane * s->n_off;
  g_autofree int *hoff = g_new (int, 2 * s->n_off);

  EF_CUDA_CHECK (cudaSetDevice (s->device), error);
  EF_CUDA_CHECK (cudaStreamCreateWithFlags (&s->stream, cudaStreamNonBlocking), error);
  for (int i = 0; i < 4; i++)
    EF_CUDA_CHECK (cudaEventCreate (&s->ev[i]), error);
  s->have_events = TRUE;
  if (!alloc ((void **) &s->re, data * sizeof (float), error) || !alloc ((void **) &s->im, data * sizeof (float), error)
      || !alloc ((void **) &s->coh, arcs * sizeof (float), error)
      || !alloc ((void **) &s->score, plane * sizeof (float), error)
      || !alloc ((void **) &s->off, 2 * s->n_off * sizeof (int), error))
    return FALSE;
  for (guint o = 0; o < s->n_off; o++)
    {
      hoff[2 * o] = off[o].dx;
      hoff[2 * o + 1] = off[o].dy;
    }
  EF_CUDA_CHECK (cudaMemcpy (s->off, hoff, 2 * s->n_off * sizeof (int), cudaMemcpyHostToDevice), error);

  /* The arc-parallel mapping's chunk: as many arcs as fit the gathered series' budget. */
  s->soa.n = (guint) MIN (arcs, EF_CUDA_ARCS_SOA_BYTES / (4 * sizeof (float) * s->n_passes));
  s->soa.n = MAX (s->soa.n, 1);
  if (!alloc ((void **) &s->soa.arc_p, s->soa.n * sizeof (guint), error)
      || !alloc ((void **) &s->soa.arc_q, s->soa.n * sizeof (guint), error)
      || !alloc ((void **) &s->soa.p_re, (gsize) s->soa.n * s->n_passes * sizeof (float), error)
      || !alloc ((void **) &s->soa.p_im, (gsize) s->soa.n * s->n_passes * sizeof (float), error)
      || !alloc ((void **) &s->soa.q_re, (gsize) s->soa.n * s->n_passes * sizeof (float), error)
      || !alloc ((void **) &s->soa.q_im, (gsize) s->soa.n * s->n_passes * sizeof (float), error))
    return FALSE;

  if (model != NULL)
    {
      gsize tn = (gsize) s->n_grid * s->n_passes;
      g_autofree float *tre = g_new (float, tn);
      g_autofree float *tim = g_new (float, tn);

      ef_arc_phase_table (model, grid, tre, tim);
      if (!alloc ((void **) &s->tre, tn * sizeof (float), error) || !alloc ((void **) &s->tim, tn * sizeof (float), error)
          || !alloc ((void **) &s->best, arcs * sizeof (guint16), error))
        return FALSE;
      EF_CUDA_CHECK (cudaMemcpy (s->tre, tre, tn * sizeof (float), cudaMemcpyHostToDevice), error);
      EF_CUDA_CHECK (cudaMemcpy (s->tim, tim, tn * sizeof (float), cudaMemcpyHostToDevice), error);
      if (!setup_half (s, model, grid, error))
        return FALSE;
    }
  return TRUE;
}

EfCudaArcs *
ef_cuda_arcs_new (int device, guint width, guint max_rows, guint n_passes, const EfArcOffset *off, guint n_off,
                  const EfArcModel *model, const EfArcGrid *grid, GError **error)
{
  g_autoptr (EfCudaArcs) s = NULL;
  g_autofree char *why = NULL;
  gsize check;

  g_return_val_if_fail (off != NULL, NULL);
  g_return_val_if_fail ((model == NULL) == (grid == NULL), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ef_cuda_available (&why))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "%s", why);
      return NULL;
    }
  if (device >= (int) ef_cuda_device_count ())
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No CUDA device %d: there are %u",
                   device, ef_cuda_device_count ());
      return NULL;
    }
  if (width == 0 || max_rows == 0 || n_passes < 2 || n_off == 0 || n_off > EF_ARC_MAX_OFFSETS
      || !g_size_checked_mul (&check, (gsize) width * max_rows, MAX (n_passes, n_off))
      || (gsize) width * max_rows * n_off > G_MAXUINT32 || !g_size_checked_mul (&check, check, sizeof (float)))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Arc coherence on the device: %u x %u pixels, %u passes and %u offsets is out of range", width,
                   max_rows, n_passes, n_off);
      return NULL;
    }
  if (model != NULL)
    {
      if (!ef_arc_model_check (model, error) || !ef_arc_grid_check (grid, error))
        return NULL;
      if (model->n_passes != n_passes)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "The model has %u passes and the session %u", model->n_passes, n_passes);
          return NULL;
        }
    }
  s = g_new0 (EfCudaArcs, 1);
  s->device = device < 0 ? 0 : device;
  s->width = width;
  s->max_rows = max_rows;
  s->n_passes = n_passes;
  s->n_off = n_off;
  s->n_grid = grid != NULL ? grid->nv * grid->nh : 0;
  if (!setup (s, off, model, grid, error))
    return NULL;
  return g_steal_pointer (&s);
}

/* Whether the fp32 periodogram runs on the folded grid. */
static gboolean
use_half (const EfCudaArcs *s)
{
  return s->half_fits && !ef_cuda_test_hooks_arcs_full_grid ();
}

const char *
ef_cuda_arcs_periodogram_kernel (EfCudaArcs *s)
{
  g_return_val_if_fail (s != NULL, NULL);
  if (s->tre == NULL)
    return NULL;
  if (s->pg_path == EF_CUDA_ARCS_PG_TENSOR)
    return ef_cuda_test_hooks_arcs_full_grid () ? "tensor cores, full grid" : "tensor cores, folded grid";
  return use_half (s) ? "CUDA cores, folded grid" : "CUDA cores, full grid";
}

static double
elapsed_ms (cudaEvent_t a, cudaEvent_t b)
{
  float ms = 0;

  return cudaEventElapsedTime (&ms, a, b) == cudaSuccess ? ms : -1;
}

gboolean
ef_cuda_arcs_run (EfCudaArcs *s, const float *re, const float *im, guint rows, EfCudaArcsMapping mapping,
                  gboolean periodogram, float *coh, guint16 *best, float *score, EfCudaArcsTiming *timing,
                  GError **error)
{
  EfCudaArcsArgs a;
  gsize plane, data, arcs;

  g_return_val_if_fail (s != NULL && re != NULL && im != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (rows == 0 || rows > s->max_rows)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A region of %u rows does not fit this session's %u", rows, s->max_rows);
      return FALSE;
    }
  if (periodogram && s->tre == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "This session was made without a model and grid: it has no periodogram");
      return FALSE;
    }
  plane = (gsize) s->width * rows;
  data = plane * s->n_passes;
  arcs = plane * s->n_off;
  a = (EfCudaArcsArgs) { s->re, s->im, s->width, rows, s->n_passes, s->off, s->n_off, s->coh };

  EF_CUDA_CHECK (cudaSetDevice (s->device), error);
  EF_CUDA_CHECK (cudaEventRecord (s->ev[0], s->stream), error);
  EF_CUDA_CHECK (cudaMemcpyAsync (s->re, re, data * sizeof (float), cudaMemcpyHostToDevice, s->stream), error);
  EF_CUDA_CHECK (cudaMemcpyAsync (s->im, im, data * sizeof (float), cudaMemcpyHostToDevice, s->stream), error);
  EF_CUDA_CHECK (cudaEventRecord (s->ev[1], s->stream), error);
  if (periodogram && s->pg_path == EF_CUDA_ARCS_PG_TENSOR && !ef_cuda_test_hooks_arcs_full_grid ())
    {
      if (!ef_cuda_arcs_tc_half_launch (s->stream, &a, s->tc_bp, s->tc_bq, s->rot, s->n_grid, s->best, error))
        return FALSE;
    }
  else if (periodogram && s->pg_path == EF_CUDA_ARCS_PG_TENSOR)
    {
      if (!ef_cuda_arcs_tc_launch (s->stream, &a, s->tc_br, s->tc_bi, s->n_grid, s->best, error))
        return FALSE;
    }
  else if (periodogram && use_half (s))
    {
      if (!ef_cuda_arcs_half_launch (s->stream, &a, s->hp, s->hq, s->rot, s->n_grid, s->best, error))
        return FALSE;
    }
  else if (periodogram)
    {
      if (!ef_cuda_arcs_periodogram_launch (s->stream, &a, s->tre, s->tim, s->n_grid, s->best, error))
        return FALSE;
    }
  else if (mapping == EF_CUDA_ARCS_WINDOW)
    {
      if (!ef_cuda_arcs_window_launch (s->stream, &a, error))
        return FALSE;
    }
  else if (mapping == EF_CUDA_ARCS_GRAPH)
    {
      if (!ef_cuda_arcs_graph_launch (s->stream, &a, error))
        return FALSE;
    }
  else
    {
      guint cap = s->soa.n;

      for (gsize a0 = 0; a0 < arcs; a0 += cap)
        {
          EfCudaArcsSoa chunk = s->soa;

          chunk.a0 = (guint) a0;
          chunk.n = (guint) MIN (cap, arcs - a0);
          if (!ef_cuda_arcs_soa_launch (s->stream, &a, &chunk, error))
            return FALSE;
        }
    }
  if (score != NULL && !ef_cuda_arcs_score_launch (s->stream, &a, s->score, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (s->ev[2], s->stream), error);
  if (coh != NULL)
    EF_CUDA_CHECK (cudaMemcpyAsync (coh, s->coh, arcs * sizeof (float), cudaMemcpyDeviceToHost, s->stream), error);
  if (best != NULL && periodogram)
    EF_CUDA_CHECK (cudaMemcpyAsync (best, s->best, arcs * sizeof (guint16), cudaMemcpyDeviceToHost, s->stream),
                   error);
  if (score != NULL)
    EF_CUDA_CHECK (cudaMemcpyAsync (score, s->score, plane * sizeof (float), cudaMemcpyDeviceToHost, s->stream),
                   error);
  EF_CUDA_CHECK (cudaEventRecord (s->ev[3], s->stream), error);
  EF_CUDA_CHECK (cudaStreamSynchronize (s->stream), error);
  if (timing != NULL)
    {
      timing->h2d_ms = elapsed_ms (s->ev[0], s->ev[1]);
      timing->kernel_ms = elapsed_ms (s->ev[1], s->ev[2]);
      timing->d2h_ms = elapsed_ms (s->ev[2], s->ev[3]);
    }
  return TRUE;
}

gboolean
ef_cuda_arcs_set_periodogram_path (EfCudaArcs *s, EfCudaArcsPgPath path, GError **error)
{
  int major = 0, optin = 0;
  gsize bytes, halves, half_halves;

  g_return_val_if_fail (s != NULL, FALSE);
  if (path == EF_CUDA_ARCS_PG_FP32 || s->tc_br != NULL)
    {
      s->pg_path = path;
      return TRUE;
    }
  if (s->tre == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "This session was made without a model and grid: it has no periodogram");
      return FALSE;
    }
  EF_CUDA_CHECK (cudaSetDevice (s->device), error);
  EF_CUDA_CHECK (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, s->device), error);
  EF_CUDA_CHECK (cudaDeviceGetAttribute (&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->device), error);
  bytes = MAX (ef_cuda_arcs_tc_smem_bytes (s->n_passes), ef_cuda_arcs_tc_half_smem_bytes (s->n_passes));
  if (s->n_passes > EF_CUDA_ARCS_TC_MAX_PASSES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The tensor-core periodogram takes up to %u passes, not %u", EF_CUDA_ARCS_TC_MAX_PASSES,
                   s->n_passes);
      return FALSE;
    }
  if (major < 7 || bytes > (gsize) optin)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE,
                   "The tensor-core periodogram needs compute capability 7.0 and %" G_GSIZE_FORMAT " bytes of "
                   "shared memory a block for %u passes; device %d has %d.x and %d", bytes, s->n_passes, s->device,
                   major, optin);
      return FALSE;
    }
  halves = (gsize) ef_cuda_arcs_tc_grid_pad (s->n_grid) * ef_cuda_arcs_tc_k2 (s->n_passes);
  half_halves = (gsize) ef_cuda_arcs_tc_half_pairs_pad ((s->n_grid + 1) / 2) * ef_cuda_arcs_half_npad (s->n_passes);
  if (!alloc (&s->tc_br, halves * 2, error) || !alloc (&s->tc_bi, halves * 2, error)
      || !alloc (&s->tc_bp, half_halves * 2, error) || !alloc (&s->tc_bq, half_halves * 2, error)
      || !ef_cuda_arcs_tc_tables (s->stream, s->tre, s->tim, s->n_passes, s->n_grid, s->tc_br, s->tc_bi, error)
      || !ef_cuda_arcs_tc_half_tables (s->stream, s->hp, s->hq, s->n_passes, (s->n_grid + 1) / 2, s->tc_bp,
                                       s->tc_bq, error))
    {
      cudaFree (s->tc_br);
      cudaFree (s->tc_bi);
      cudaFree (s->tc_bp);
      cudaFree (s->tc_bq);
      s->tc_br = s->tc_bi = s->tc_bp = s->tc_bq = NULL;
      return FALSE;
    }
  EF_CUDA_CHECK (cudaStreamSynchronize (s->stream), error);
  s->pg_path = path;
  return TRUE;
}

gpointer
ef_cuda_arcs_host_alloc (gsize bytes, GError **error)
{
  void *p = NULL;
  cudaError_t e = ef_cuda_malloc_host (&p, MAX (bytes, 1));

  if (!ef_cuda_check_ ((int) e, "cudaMallocHost", __FILE__, __LINE__, error))
    return NULL;
  return p;
}

void
ef_cuda_arcs_host_free (gpointer p)
{
  if (p != NULL)
    EF_CUDA_WARN (cudaFreeHost (p));
}

double
ef_cuda_arcs_h2d_gbps (EfCudaArcs *s, gsize bytes, GError **error)
{
  gsize cap = (gsize) s->width * s->max_rows * s->n_passes * sizeof (float);
  void *host;
  double best = 0;

  bytes = MIN (bytes, cap);
  host = ef_cuda_arcs_host_alloc (bytes, error);
  if (host == NULL)
    return -1;
  memset (host, 0, bytes);
  for (int rep = 0; rep < 4; rep++)
    {
      double ms;

      if (!ef_cuda_check_ ((int) cudaEventRecord (s->ev[0], s->stream), "cudaEventRecord", __FILE__, __LINE__, error)
          || !ef_cuda_check_ ((int) cudaMemcpyAsync (s->re, host, bytes, cudaMemcpyHostToDevice, s->stream),
                              "cudaMemcpyAsync", __FILE__, __LINE__, error)
          || !ef_cuda_check_ ((int) cudaEventRecord (s->ev[1], s->stream), "cudaEventRecord", __FILE__, __LINE__, error)
          || !ef_cuda_check_ ((int) cudaStreamSynchronize (s->stream), "cudaStreamSynchronize", __FILE__, __LINE__,
                              error))
        {
          ef_cuda_arcs_host_free (host);
          return -1;
        }
      ms = elapsed_ms (s->ev[0], s->ev[1]);
      if (ms > 0)
        best = MAX (best, bytes / (ms * 1e6));
    }
  ef_cuda_arcs_host_free (host);
  return best;
}
