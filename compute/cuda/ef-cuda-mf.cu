/* ef-cuda-mf.cu: the matched filter's launch wrappers. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda-mf.cuh"

using namespace ef_cuda_mf;

extern "C" gboolean
ef_cuda_mf_weight (cudaStream_t stream, const void *samples, guint n_samples, const float *coef,
                   const EfCudaMfPulse *pulses, guint count, void *out, unsigned long long *bad, GError **error)
{
  const unsigned long long n = (unsigned long long) count * n_samples;
  const unsigned threads = 256;
  /* A grid-stride loop: a few blocks per multiprocessor are enough whatever the block's size. */
  const unsigned blocks = (unsigned) MIN ((n + threads - 1) / threads, 65535ull);

  if (n == 0)
    return TRUE;
  weight_kernel<<<blocks, threads, 0, stream>>> ((const float2 *) samples, n_samples, coef, pulses, n,
                                                 (float2 *) out, bad);
  return ef_cuda_check_ ((int) cudaGetLastError (), "weight_kernel<<<>>>", __FILE__, __LINE__, error);
}

extern "C" {
#define EF_MF_ROW(bx, by, px, py, u, c) { bx, by, px, py, u, c },
const EfCudaMfShape ef_cuda_mf_shapes[EF_CUDA_MF_N_SHAPES] = { EF_CUDA_MF_SHAPE_LIST (EF_MF_ROW) };
#undef EF_MF_ROW

const char *
ef_cuda_mf_shape_name (guint shape)
{
  static char names[EF_CUDA_MF_N_SHAPES][64];
  static gsize done;
  const EfCudaMfShape *sh;

  if (shape < 1 || shape > EF_CUDA_MF_N_SHAPES)
    return "?";
  /* Written once for all, before any is handed out: callers on several threads read them. */
  if (g_once_init_enter (&done))
    {
      for (guint i = 0; i < EF_CUDA_MF_N_SHAPES; i++)
        {
          sh = &ef_cuda_mf_shapes[i];
          g_snprintf (names[i], sizeof names[i], "%ux%u threads, %ux%u px, unroll %u, %s", sh->bx, sh->by, sh->px,
                      sh->py, sh->unroll, sh->constant ? "constant" : "shared");
        }
      g_once_init_leave (&done, 1);
    }
  return names[shape - 1];
}

guint64
ef_cuda_mf_tile (guint n_pulses, guint n_samples, guint64 i, EfCudaMfTile *tile)
{
  guint64 count;

  if (n_pulses == 0 || n_samples == 0)
    return 0;
  if (n_samples <= EF_CUDA_MF_TILE)
    {
      const guint per = EF_CUDA_MF_TILE / n_samples;

      count = ((guint64) n_pulses + per - 1) / per;
      if (tile != NULL && i < count)
        {
          tile->p0 = (guint) (i * per);
          tile->np = MIN (per, n_pulses - tile->p0);
          tile->kb = 0;
          tile->ke = n_samples;
        }
    }
  else
    {
      const guint parts = (guint) (((guint64) n_samples + EF_CUDA_MF_TILE - 1) / EF_CUDA_MF_TILE);

      count = (guint64) n_pulses * parts;
      if (tile != NULL && i < count)
        {
          tile->p0 = (guint) (i / parts);
          tile->np = 1;
          tile->kb = (guint) (i % parts) * EF_CUDA_MF_TILE;
          tile->ke = MIN (n_samples - tile->kb, EF_CUDA_MF_TILE) + tile->kb;
        }
    }
  return count;
}
}

#define EF_LAUNCH_CHECK(error) \
  ef_cuda_check_ ((int) cudaGetLastError (), "ef_cuda_mf::mf_kernel<<<>>>", __FILE__, __LINE__, (error))

/* Constant memory is one per device, whatever the stream: a constant-memory sub-block waits on the
 * device for the last one queued before it (by any backend of this process) to finish. One event per
 * device, made on first use and kept for the life of the process. */
#define EF_MF_MAX_DEVICES 64
static GMutex c_lock;
static cudaEvent_t c_done[EF_MF_MAX_DEVICES];

/* Locks c_lock and orders stream after the device's last constant-memory work; unlocked on failure. */
static gboolean
constant_begin (cudaStream_t stream, int *device, GError **error)
{
  g_mutex_lock (&c_lock);
  if (!ef_cuda_check_ ((int) cudaGetDevice (device), "cudaGetDevice", __FILE__, __LINE__, error))
    goto fail;
  if (*device < 0 || *device >= EF_MF_MAX_DEVICES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The matched filter's constant-memory kernels run on the first %d devices, not on device %d",
                   EF_MF_MAX_DEVICES, *device);
      goto fail;
    }
  if (c_done[*device] == NULL)
    {
      if (!ef_cuda_check_ ((int) cudaEventCreateWithFlags (&c_done[*device], cudaEventDisableTiming),
                           "cudaEventCreateWithFlags", __FILE__, __LINE__, error))
        {
          c_done[*device] = NULL;
          goto fail;
        }
    }
  else if (!ef_cuda_check_ ((int) cudaStreamWaitEvent (stream, c_done[*device], 0), "cudaStreamWaitEvent", __FILE__,
                            __LINE__, error))
    goto fail;
  return TRUE;

fail:
  g_mutex_unlock (&c_lock);
  return FALSE;
}

/* Marks the end of this sub-block's constant-memory work (ok: it was all queued) and unlocks. */
static gboolean
constant_end (cudaStream_t stream, int device, gboolean ok, GError **error)
{
  /* Even after a failure part of the work may be queued: later users wait for it too. */
  gboolean rec = ef_cuda_check_ ((int) cudaEventRecord (c_done[device], stream), "cudaEventRecord", __FILE__,
                                 __LINE__, ok ? error : NULL);

  g_mutex_unlock (&c_lock);
  return ok && rec;
}

template <int BX, int BY, int PX, int PY, int U, bool C>
static gboolean
run_constant (cudaStream_t stream, dim3 grid, const EfCudaMfArgs *a, GError **error)
{
  const float2 *samples = (const float2 *) a->samples;
  const guint64 n = ef_cuda_mf_tile (a->n_pulses, a->n_samples, 0, NULL);

  for (guint64 i = 0; i < n; i++)
    {
      EfCudaMfTile t;

      ef_cuda_mf_tile (a->n_pulses, a->n_samples, i, &t);
      /* Rows of ke - kb samples, one a pulse, back to back: a whole pulse's row, or a part of one. */
      EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_samples, samples + (size_t) t.p0 * a->n_samples + t.kb,
                                              (size_t) t.np * (t.ke - t.kb) * sizeof (float2), 0,
                                              cudaMemcpyDeviceToDevice, stream),
                     error);
      mf_kernel<BX, BY, PX, PY, U, C><<<grid, dim3 (BX, BY), 0, stream>>> (*a, t.p0, t.np, t.kb, t.ke);
      if (!EF_LAUNCH_CHECK (error))
        return FALSE;
    }
  return TRUE;
}

template <int BX, int BY, int PX, int PY, int U, bool C>
static gboolean
launch_shape (cudaStream_t stream, const EfCudaMfArgs *a, GError **error)
{
  static_assert (BX % 32 == 0 && BX * BY <= 1024 && PX * PY <= 8, "a block of whole warps, within the limits");
  const unsigned long long gx = ((unsigned long long) a->width + BX * PX - 1) / (BX * PX);
  const unsigned long long gy = ((unsigned long long) a->height + BY * PY - 1) / (BY * PY);

  if (gx == 0 || gy == 0 || gx > 0x7fffffffull || gy > 65535ull)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A %u x %u image needs a launch grid the device cannot take", a->width, a->height);
      return FALSE;
    }
  dim3 grid ((unsigned) gx, (unsigned) gy);
  if constexpr (!C)
    {
      mf_kernel<BX, BY, PX, PY, U, C><<<grid, dim3 (BX, BY), 0, stream>>> (*a, 0, a->n_pulses, 0, a->n_samples);
      return EF_LAUNCH_CHECK (error);
    }
  else
    {
      int device = 0;
      gboolean ok;

      if (!constant_begin (stream, &device, error))
        return FALSE;
      ok = run_constant<BX, BY, PX, PY, U, C> (stream, grid, a, error);
      return constant_end (stream, device, ok, error);
    }
}

typedef gboolean (*Launcher) (cudaStream_t, const EfCudaMfArgs *, GError **);
#define EF_MF_LAUNCHER(bx, by, px, py, u, c) &launch_shape<bx, by, px, py, u, (c) != 0>,
static const Launcher launchers[] = { EF_CUDA_MF_SHAPE_LIST (EF_MF_LAUNCHER) };
#undef EF_MF_LAUNCHER
static_assert (sizeof launchers / sizeof launchers[0] == EF_CUDA_MF_N_SHAPES, "a launcher per shape");

extern "C" gboolean
ef_cuda_mf_launch (cudaStream_t stream, guint shape, const EfCudaMfArgs *args, GError **error)
{
  if (shape < 1 || shape > EF_CUDA_MF_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No matched-filter kernel shape %u",
                   shape);
      return FALSE;
    }
  if (args->n_pulses == 0 || args->n_samples == 0)
    return TRUE;
  return launchers[shape - 1] (stream, args, error);
}
