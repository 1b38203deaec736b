/* ef-cuda-backend.c: the CUDA backend: its operations, and its creation on one device or several. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-backend-private.h"
#include "ef-cuda-test-hooks.h"

/* The RAW matched filter: the CPU path's (ef_profile_layout_init), in float for the device. */
static float *
chirp_to_float (const EfMatchedFilter *mf, GError **error)
{
  float *out = g_try_new (float, 2 * (gsize) mf->nc);

  if (out == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the matched filter");
      return NULL;
    }
  for (guint i = 0; i < mf->nc; i++)
    {
      out[2 * i] = (float) creal (mf->chirp_conj[i]);
      out[2 * i + 1] = (float) cimag (mf->chirp_conj[i]);
    }
  return out;
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

      if (ef_cuda_backend_run_sub_block (self, pulses + done, samples + (gsize) done * priv->layout.n_in, m, &local))
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
        if (!ef_cuda_backend_collect_timing (priv, s, error))
          return FALSE;
      priv->max_block = MAX (1u, priv->max_block / 2);
      if (!ef_cuda_backend_alloc (priv, error))
        return FALSE;
    }
  if (priv->pfa != NULL && count > 0)
    {
      if (!ef_cuda_backend_pfa_form (self, error))
        return FALSE;
      ef_cuda_backend_pfa_check (self);
    }
  /* Only backprojection marks its bands as it goes. */
  if (self->params.algo != EF_ALGO_BP && !ef_cuda_backend_mark_bands (priv, error))
    return FALSE;
  priv->n_blocks++;
  /* A display reads the image as of the newest mark the device has passed. */
  return ef_cuda_image_mark (priv->image, priv->s_comp, error);
}

gboolean
ef_cuda_backend_read_bad (EfBackend *self, GError **error)
{
  CudaPriv *priv = self->priv;
  unsigned long long bad = 0;

  EF_CUDA_CHECK (cudaMemcpy (&bad, priv->d_bad, sizeof bad, cudaMemcpyDeviceToHost), error);
  self->n_bad_samples = bad;
  return TRUE;
}

/* Reads of at least READ_STAGED_MIN bytes go through two pinned staging buffers: the device copies a
 * piece of rows into one while threads copy the other's into the caller's (pageable) memory. Straight into
 * pageable memory the driver stages the copy itself, at about 10 GB/s (13 ms for a 4096^2 image). */
#define READ_STAGED_MIN ((gsize) 16 << 20)

static gboolean
ensure_read_stage (CudaPriv *priv)
{
  if (priv->h_read[0] != NULL)
    return TRUE;
  if (priv->read_unstaged)
    return FALSE;
  for (int s = 0; s < 2; s++)
    if (ef_cuda_malloc_host (&priv->h_read[s], EF_CUDA_READ_STAGE_BYTES) != cudaSuccess
        || cudaEventCreateWithFlags (&priv->ev_read[s], cudaEventDisableTiming) != cudaSuccess)
      {
        (void) cudaGetLastError ();
        g_debug ("CUDA device %d: no pinned memory to stage reads in; reading straight to the caller", priv->device);
        for (int t = 0; t < 2; t++)
          {
            if (priv->h_read[t] != NULL)
              EF_CUDA_WARN (cudaFreeHost (priv->h_read[t]));
            priv->h_read[t] = NULL;
          }
        priv->read_unstaged = TRUE;
        return FALSE;
      }
  return TRUE;
}

/* The rows of piece s, copied by the device into h_read[s], into out. */
static gboolean
drain_piece (CudaPriv *priv, int s, EfCf32 *dst, gsize bytes, GError **error)
{
  EF_CUDA_CHECK (cudaEventSynchronize (priv->ev_read[s]), error);
  ef_cuda_host_copy (dst, priv->h_read[s], bytes);
  return TRUE;
}

/* A band of rows at a time, each copied as soon as the device has formed it: while a block is still
 * being formed, its first rows are copied out while the later ones are formed (ef-cuda-block.c). */
static gboolean
cuda_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  CudaPriv *priv = self->priv;
  const guint w = self->params.grid.width;
  const gsize pitch = (gsize) w * sizeof (EfCf32), out_pitch = (gsize) rect->width * sizeof (EfCf32);
  const gboolean staged = out_pitch * rect->height >= READ_STAGED_MIN && out_pitch <= EF_CUDA_READ_STAGE_BYTES
                          && ensure_read_stage (priv);
  EfCf32 *pending_dst[2] = { NULL, NULL };
  gsize pending_bytes[2] = { 0, 0 };
  int k = 0;

  EF_CUDA_CHECK (cudaSetDevice (priv->device), error);
  for (guint y = rect->y; rect->width > 0 && y < rect->y + rect->height;)
    {
      guint end = 0;
      cudaEvent_t ev = ef_cuda_backend_rows_event (self, y, &end);
      const char *src;
      EfCf32 *dst = out + (gsize) (y - rect->y) * rect->width;

      end = MIN (end, rect->y + rect->height);
      if (staged)
        end = MIN (end, y + (guint) (EF_CUDA_READ_STAGE_BYTES / out_pitch));
      src = (const char *) priv->d_image + (gsize) y * pitch + (gsize) rect->x * sizeof (EfCf32);
      EF_CUDA_CHECK (cudaStreamWaitEvent (priv->s_copy, ev, 0), error);
      if (!staged)
        EF_CUDA_CHECK (cudaMemcpy2DAsync (dst, out_pitch, src, pitch, out_pitch, end - y, cudaMemcpyDeviceToHost,
                                          priv->s_copy),
                       error);
      else
        {
          const int s = k & 1;

          /* The piece before last used this buffer: out of it before the device writes it again. */
          if (pending_dst[s] != NULL && !drain_piece (priv, s, pending_dst[s], pending_bytes[s], error))
            return FALSE;
          EF_CUDA_CHECK (cudaMemcpy2DAsync (priv->h_read[s], out_pitch, src, pitch, out_pitch, end - y,
                                            cudaMemcpyDeviceToHost, priv->s_copy),
                         error);
          EF_CUDA_CHECK (cudaEventRecord (priv->ev_read[s], priv->s_copy), error);
          pending_dst[s] = dst;
          pending_bytes[s] = (gsize) (end - y) * out_pitch;
          /* The last piece goes out while this one comes over. */
          if (pending_dst[1 - s] != NULL
              && !drain_piece (priv, 1 - s, pending_dst[1 - s], pending_bytes[1 - s], error))
            return FALSE;
          pending_dst[1 - s] = NULL;
          k++;
        }
      y = end;
    }
  for (int s = 0; s < 2; s++)
    if (pending_dst[(k + s) & 1] != NULL
        && !drain_piece (priv, (k + s) & 1, pending_dst[(k + s) & 1], pending_bytes[(k + s) & 1], error))
      return FALSE;
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_copy), error);
  /* Everything queued done: a failed kernel shows here, and the bad-sample count is current. */
  EF_CUDA_CHECK (cudaStreamSynchronize (priv->s_comp), error);
  ef_cuda_test_hooks_count_d2h ((guint64) rect->width * rect->height * sizeof (EfCf32));
  return ef_cuda_backend_read_bad (self, error);
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
  if (!ef_cuda_backend_mark_bands (priv, error))
    return FALSE;
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
  ef_cuda_backend_free_buffers (priv);
  g_clear_pointer (&priv->ffbp, ef_cuda_ffbp_free);
  g_clear_pointer (&priv->pfa, ef_cuda_pfa_free);
  g_clear_pointer (&priv->mf, ef_cuda_mf_free);
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
  for (guint k = 0; k < EF_CUDA_ROW_BANDS; k++)
    {
      destroy_event (&priv->ev_band[k]);
      if (priv->s_band[k])
        EF_CUDA_WARN (cudaStreamDestroy (priv->s_band[k]));
    }
  destroy_event (&priv->ev_bands_in);
  for (int s = 0; s < 2; s++)
    {
      if (priv->h_read[s] != NULL)
        EF_CUDA_WARN (cudaFreeHost (priv->h_read[s]));
      destroy_event (&priv->ev_read[s]);
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

const EfBackendOps ef_cuda_backend_ops = {
  .name = "cuda",
  .process_block = cuda_process_block,
  .read_image = cuda_read_image,
  .clear = cuda_clear,
  .free = cuda_free,
  .ref_device_image = cuda_ref_device_image,
};

/* ---- creation ---- */

/* mf: the layout's matched filter (RAW), borrowed. */
static gboolean
create_device_state (EfBackend *self, const EfMatchedFilter *mf, GError **error)
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
  /* Bands of at least 64 rows, EF_CUDA_ROW_BANDS_DEFAULT of them at most (a test hook may ask for up to
   * EF_CUDA_ROW_BANDS). */
  priv->n_bands = CLAMP (self->params.grid.height / 64, 1u, (guint) EF_CUDA_ROW_BANDS);
  priv->n_bands = MIN (priv->n_bands, ef_cuda_test_hooks_row_bands () > 0 ? ef_cuda_test_hooks_row_bands ()
                                                                          : (guint) EF_CUDA_ROW_BANDS_DEFAULT);
  priv->band_rows = (self->params.grid.height + priv->n_bands - 1) / priv->n_bands;
  EF_CUDA_CHECK (cudaEventCreateWithFlags (&priv->ev_bands_in, cudaEventDisableTiming), error);
  for (guint k = 0; k < EF_CUDA_ROW_BANDS; k++)
    EF_CUDA_CHECK (cudaEventCreateWithFlags (&priv->ev_band[k], cudaEventDisableTiming), error);
  if (priv->n_bands > 1)
    {
      int least = 0, greatest = 0;

      /* Band k before band k + 1 wherever the device has room for a block of either: the first rows are
       * done first. */
      EF_CUDA_CHECK (cudaDeviceGetStreamPriorityRange (&least, &greatest), error);
      /* The greatest priority is left to the several-device reads' sums (ef-cuda-multi.c). */
      for (guint k = 0; k < priv->n_bands; k++)
        EF_CUDA_CHECK (cudaStreamCreateWithPriority (&priv->s_band[k], cudaStreamNonBlocking,
                                                     MIN (greatest + 1 + (int) k, least)),
                       error);
    }
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

  if (priv->layout.domain == EF_DOMAIN_RAW)
    {
      chirp = chirp_to_float (mf, error);
      if (chirp == NULL)
        return FALSE;
      EF_CUDA_CHECK (ef_cuda_malloc (&priv->d_chirp, priv->layout.nc * 2 * sizeof (float)), error);
      EF_CUDA_CHECK (cudaMemcpy (priv->d_chirp, chirp, priv->layout.nc * 2 * sizeof (float), cudaMemcpyHostToDevice),
                     error);
    }

  priv->tuned = ef_cuda_tune_lookup (priv->device, MAX (self->params.grid.width, self->params.grid.height), priv->layout.n,
                                     priv->precision);

  /* Window and 1/K in one float per spectral bin (double first, as the CPU path does). */
  w = g_new (double, priv->layout.k);
  coef = g_new (float, priv->layout.k);
  ef_window_fill (self->params.range.window, self->params.range.taylor_nbar, self->params.range.taylor_sll_db, w,
                  priv->layout.k);
  for (guint i = 0; i < priv->layout.k; i++)
    coef[i] = (float) (w[i] / priv->layout.k);
  ef_az_weight_init (&priv->az, self->params.range.az_window, self->params.range.az_taylor_nbar,
                     self->params.range.az_taylor_sll_db, &self->params.range.aperture);
  EF_CUDA_CHECK (ef_cuda_malloc ((void **) &priv->d_coef, priv->layout.k * sizeof (float)), error);
  EF_CUDA_CHECK (cudaMemcpy (priv->d_coef, coef, priv->layout.k * sizeof (float), cudaMemcpyHostToDevice), error);

  /* A first guess of the guard from the nominal bin size; a block with finer bins grows it. */
  {
    const EfCudaShape widest = { 16, 1, 1, 1 };
    double inv_dr = 0;
    int ext;

    if (priv->layout.domain == EF_DOMAIN_FX && info->bandwidth > 0)
      inv_dr = 2.0 * priv->layout.n * (info->bandwidth / MAX (priv->layout.n_in - 1.0, 1.0)) / EF_C;
    else if (priv->layout.domain == EF_DOMAIN_RAW && info->sample_rate > 0)
      inv_dr = 2.0 * priv->layout.n * (info->sample_rate / priv->layout.nc) / EF_C;
    else if (info->sample_rate > 0)
      inv_dr = 2.0 * info->sample_rate / EF_C;
    ext = ef_cuda_guard_ext (&widest, self->params.grid.spacing, inv_dr);
    ef_cuda_backend_set_guard (priv, ext < 0 ? 8 : ext + ext / 4);
  }
  if (!ef_cuda_table_fits (priv->layout.n, priv->guard, error))
    return FALSE;
  return ef_cuda_backend_alloc (priv, error);
}

EfBackend *
ef_backend_cuda_new_full (const EfDatasetInfo *info, const EfBackendParams *params, const EfCudaOptions *options,
                          GError **error)
{
  g_autoptr (EfBackend) self = NULL;
  g_auto (EfMatchedFilter) mf = { 0 };
  EfProfileLayout layout;
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
      && params->algo != EF_ALGO_PFA && params->algo != EF_ALGO_MF)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The CUDA backend has no %s; use bp, ffbp, fbp, pfa or mf", ef_algo_to_string (params->algo));
      return NULL;
    }
  if (params->algo == EF_ALGO_MF && !ef_mf_check_info (info, error))
    return NULL;
  if (params->grid.width == 0 || params->grid.height == 0 || !(params->grid.spacing > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The image grid is empty");
      return NULL;
    }
  /* The profiles as the CPU's range compression lays them out (which checks the pulses' length). The
   * matched filter keeps only the weighted samples in the profile buffer: no upsampling to make room for. */
  if (!ef_profile_layout_init (&layout, info, params->algo == EF_ALGO_MF ? 1 : params->range.upsample, &mf, error))
    return NULL;
  if (layout.n < 2)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Range compression to %u bins is not supported", layout.n);
      return NULL;
    }
  if (options && options->variant > EF_CUDA_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No kernel shape %u",
                   options->variant);
      return NULL;
    }
  if (options && options->mf_shape > EF_CUDA_MF_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No matched-filter kernel shape %u",
                   options->mf_shape);
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
  self->ops = &ef_cuda_backend_ops;
  self->params = *params;
  ef_dataset_info_copy (info, &self->info);
  priv = g_new0 (CudaPriv, 1);
  self->priv = priv;
  priv->device = params->device < 0 ? 0 : params->device;
  priv->opts = options ? *options : EF_CUDA_OPTIONS_DEFAULT;
  priv->precision = params->precision;
  priv->layout = layout;
  priv->max_block = priv->opts.max_block ? priv->opts.max_block : MAX (params->block_size, 1u);
  priv->max_block = MIN (priv->max_block, MAX_BLOCK);
  ef_backend_run_init (self, params, EF_BACKEND_CUDA, 1);
  /* fp16 is a table and accumulation format of backprojection (and of FFBP's polar grids); the polar
   * format former grids, transforms and resamples in fp32 whatever is asked. */
  if (params->algo == EF_ALGO_PFA && params->precision == EF_PRECISION_FP16)
    ef_run_info_set_precision (&self->run, EF_PRECISION_FP32,
                               "the CUDA polar format former grids and transforms in fp32; fp16 is for "
                               "backprojection and FFBP");
  if (params->algo == EF_ALGO_MF && params->precision == EF_PRECISION_FP16)
    ef_run_info_set_precision (&self->run, EF_PRECISION_FP32,
                               "the CUDA matched filter sums in fp32; fp16 is for backprojection and FFBP");

  if (!create_device_state (self, &mf, error))
    return NULL;
  /* After the buffers, which may have shrunk the sub-block: it never grows again. */
  if (params->algo == EF_ALGO_MF)
    {
      if ((priv->mf = ef_cuda_mf_new (priv->max_block, error)) == NULL)
        return NULL;
      ef_cuda_backend_mf_choose (self);
    }
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
  return backend != NULL && (backend->ops == &ef_cuda_backend_ops || ef_cuda_multi_is (backend));
}

/* The single-device backend behind the accessors: itself, or the first device's of several. */
