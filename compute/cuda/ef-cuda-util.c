/* ef-cuda-util.c: CUDA error reporting, allocation with a failure hook, device queries, kernel shapes. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-cuda-private.h"
#include "ef-cuda-test-hooks.h"

/* seg, warps, chunk, blocks per multiprocessor. The first shape whose Taylor residual is small enough
 * for a geometry is the default (ef_cuda_choose_variant), so they run from the fastest large tile
 * down; the tuner may pick any other that fits. Every one has 32 columns per tile (one warp across),
 * so that a warp's loads at one pixel step fall on neighbouring range bins. Measured on an H200 at
 * 4096^2 px x 1024 pulses x 8192 bins (tests/bench/RESULTS.md): 1.13e12 (fp32) and 1.22e12 (fp16)
 * backprojections/s for the first, 0.85e12 to 1.14e12 for the others. */
const EfCudaShape ef_cuda_shapes[EF_CUDA_N_SHAPES] = {
  { 16, 4, 32, 8 },
  { 16, 8, 32, 4 },
  { 8, 4, 32, 8 },
  { 8, 8, 32, 4 },
  { 4, 4, 32, 8 },
  { 4, 8, 32, 4 },
  /* Fewer resident warps, more registers each: more loads in flight per warp. */
  { 16, 4, 32, 5 },
  { 16, 8, 32, 3 },
  { 16, 4, 64, 6 },
};

guint
ef_cuda_n_shapes (void)
{
  return EF_CUDA_N_SHAPES;
}

void
ef_cuda_shape (guint variant, EfCudaShape *shape)
{
  g_return_if_fail (shape != NULL);
  g_return_if_fail (variant >= 1 && variant <= EF_CUDA_N_SHAPES);
  *shape = ef_cuda_shapes[variant - 1];
}

int
ef_cuda_guard_ext (const EfCudaShape *shape, double spacing, double max_inv_dr)
{
  /* A pixel k steps from its segment's centre is at most |k| * spacing metres further in range (the
   * gradient of a range is a unit vector; a bistatic mean of two is no longer), plus the quadratic
   * term, which is smaller than the linear one wherever the antenna is farther than a segment. The
   * factor 1.5 covers that, and 4 covers rounding of the base pair. */
  double ext = 1.5 * (shape->seg / 2.0 + 1.0) * spacing * max_inv_dr + 4.0;

  return ext < 1.0e8 ? (int) ceil (ext) : -1;
}

static const char *
cufft_result_string (int r)
{
  switch (r)
    {
    case CUFFT_SUCCESS: return "success";
    case CUFFT_INVALID_PLAN: return "invalid plan";
    case CUFFT_ALLOC_FAILED: return "allocation failed";
    case CUFFT_INVALID_TYPE: return "invalid type";
    case CUFFT_INVALID_VALUE: return "invalid value";
    case CUFFT_INTERNAL_ERROR: return "internal error";
    case CUFFT_EXEC_FAILED: return "execution failed";
    case CUFFT_SETUP_FAILED: return "setup failed";
    case CUFFT_INVALID_SIZE: return "invalid size";
    case CUFFT_UNALIGNED_DATA: return "unaligned data";
    case CUFFT_INVALID_DEVICE: return "invalid device";
    case CUFFT_NO_WORKSPACE: return "no workspace";
    case CUFFT_NOT_IMPLEMENTED: return "not implemented";
    case CUFFT_NOT_SUPPORTED: return "not supported";
    default: return "unknown cuFFT error";
    }
}

gboolean
ef_cuda_check_ (int code, const char *expr, const char *file, int line, GError **error)
{
  cudaError_t e = (cudaError_t) code;
  int kind;

  if (e == cudaSuccess)
    return TRUE;
  switch (e)
    {
    case cudaErrorMemoryAllocation:
      kind = EF_COMPUTE_ERROR_NO_MEMORY;
      break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      kind = EF_COMPUTE_ERROR_NO_DEVICE;
      break;
    default:
      kind = EF_COMPUTE_ERROR_DEVICE;
      break;
    }
  g_set_error (error, EF_COMPUTE_ERROR, kind, "CUDA: %s (%s) in %s at %s:%d", cudaGetErrorString (e),
               cudaGetErrorName (e), expr, file, line);
  return FALSE;
}

gboolean
ef_cufft_check_ (int code, const char *expr, const char *file, int line, GError **error)
{
  if (code == CUFFT_SUCCESS)
    return TRUE;
  g_set_error (error, EF_COMPUTE_ERROR,
               code == CUFFT_ALLOC_FAILED ? EF_COMPUTE_ERROR_NO_MEMORY : EF_COMPUTE_ERROR_DEVICE,
               "cuFFT: %s (%d) in %s at %s:%d", cufft_result_string (code), code, expr, file, line);
  return FALSE;
}

cudaError_t
ef_cuda_malloc (void **ptr, gsize size)
{
  *ptr = NULL;
  if (ef_cuda_test_hooks_alloc_fails (size))
    return cudaErrorMemoryAllocation;
  return cudaMalloc (ptr, size);
}

cudaError_t
ef_cuda_malloc_host (void **ptr, gsize size)
{
  *ptr = NULL;
  if (ef_cuda_test_hooks_alloc_fails (size))
    return cudaErrorMemoryAllocation;
  return cudaMallocHost (ptr, size);
}

cufftResult
ef_cufft_plan_many (cufftHandle *plan, int n, cufftType type, int batch)
{
  int dims[1] = { n };
  gsize elem = type == CUFFT_Z2Z ? 16 : 8;

  /* The work area is about one batch of data; count it as an allocation of that size. */
  if (ef_cuda_test_hooks_alloc_fails ((gsize) n * (gsize) batch * elem))
    return CUFFT_ALLOC_FAILED;
  return cufftPlanMany (plan, 1, dims, NULL, 1, n, NULL, 1, n, type, batch);
}

gboolean
ef_cuda_available (char **why)
{
  static gsize once = 0;
  static int status;   /* cudaError_t of the probe */
  static int n_devices;

  if (g_once_init_enter (&once))
    {
      int count = 0;
      cudaError_t e = cudaGetDeviceCount (&count);

      if (e == cudaSuccess && count == 0)
        e = cudaErrorNoDevice;
      /* Touch the runtime so that a broken context shows here rather than in the middle of a job. */
      if (e == cudaSuccess)
        e = cudaFree (NULL);
      status = e;
      n_devices = count;
      /* A failed probe leaves a sticky error that the next call would report. */
      (void) cudaGetLastError ();
      g_once_init_leave (&once, 1);
    }
  if (status == cudaSuccess && n_devices > 0)
    return TRUE;
  if (why)
    {
      cudaError_t e = (cudaError_t) status;

      if (e == cudaErrorNoDevice)
        *why = g_strdup ("No CUDA device");
      else if (e == cudaErrorInsufficientDriver)
        *why = g_strdup ("The NVIDIA driver is missing or too old for this build");
      else
        *why = g_strdup_printf ("CUDA is unavailable: %s", cudaGetErrorString (e));
    }
  return FALSE;
}

char *
ef_cuda_device_name (int device)
{
  struct cudaDeviceProp prop;

  if (!ef_cuda_available (NULL))
    return NULL;
  if (device < 0 && cudaGetDevice (&device) != cudaSuccess)
    return NULL;
  if (cudaGetDeviceProperties (&prop, device) != cudaSuccess)
    return NULL;
  return g_strdup_printf ("%s (sm_%d%d, %d SMs)", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
}

guint
ef_cuda_device_count (void)
{
  int count = 0;

  if (!ef_cuda_available (NULL) || cudaGetDeviceCount (&count) != cudaSuccess)
    return 0;
  return (guint) MAX (count, 0);
}

/* Threads that copy between pinned and pageable memory (a block's samples in, an image out; at most the
 * host's processors), and the least copy they split. One thread moves 10-13 GB/s of pageable memory, and the fast formers form a
 * 2048-pulse block of 4096 samples (67 MB) in about that time: on two H200s' host (32 cores), FFBP formed
 * and read back 2.57e12 BP-equivalent/s with one thread, 4.70e12 with 4, 5.11e12 with 8, 5.56e12 with 16
 * (one run each; the spread between runs is 10-30%); backprojection 4-5% (tests/bench/RESULTS.md). */
#define COPY_THREADS 8
#define COPY_SPLIT_MIN ((gsize) 4 << 20)

void
ef_cuda_host_copy (void *dst, const void *src, gsize bytes)
{
  guint threads = ef_cuda_test_hooks_copy_threads () > 0 ? ef_cuda_test_hooks_copy_threads ()
                                                         : MIN (COPY_THREADS, (guint) MAX (g_get_num_processors (), 1));

#if HAVE_OPENMP
  if (threads > 1 && bytes >= COPY_SPLIT_MIN)
    {
      gsize piece = (bytes / threads + 4095) & ~(gsize) 4095;

#pragma omp parallel for num_threads(threads) schedule(static)
      for (guint t = 0; t < threads; t++)
        {
          gsize off = MIN ((gsize) t * piece, bytes);

          memcpy ((char *) dst + off, (const char *) src + off, MIN (piece, bytes - off));
        }
      return;
    }
#else
  (void) threads;
#endif
  memcpy (dst, src, bytes);
}
