/* ef-cuda.h: the CUDA backend: range compression with cuFFT and backprojection in fp32 and fp16. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C: nothing here includes a CUDA header, so any C file may include it. */
#include "ef-types.h"
#include "ef-backend.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

G_BEGIN_DECLS

/* TRUE when a CUDA device and a driver new enough for this build are present. Otherwise FALSE, and *why
 * (may be NULL) receives an owned one-line reason. Cheap after the first call; thread-safe. */
gboolean ef_cuda_available (char **why);

/* The name of the device that ef_backend_cuda_new would use (device < 0: the default), owned, or NULL
 * when there is none. */
char *ef_cuda_device_name (int device);

/* The number of CUDA devices this build can use; 0 when there is none. */
guint ef_cuda_device_count (void);

/* Backprojection kernel shapes. A thread owns `seg` pixels down one column; a warp spans 32 columns;
 * a block stacks `warps` warps, so its tile is 32 x (warps * seg) pixels. `chunk` pulses share one
 * staging of their geometry in shared memory. `blocks` is the number of blocks per multiprocessor the
 * register budget is cut for (fewer: more registers per thread for loads in flight). */
typedef struct {
  guint seg;
  guint warps;
  guint chunk;
  guint blocks;
} EfCudaShape;

/* The shapes compiled into this build; index i of the list is "variant i + 1" (0 means automatic). */
guint ef_cuda_n_shapes (void);
void  ef_cuda_shape (guint variant, EfCudaShape *shape);

typedef struct {
  gboolean synchronous;  /* one stream, a wait after every step: the unstreamed reference */
  guint    variant;      /* kernel shape, 0 = automatic (tuned or the default that fits the geometry) */
  guint    max_block;    /* pulses per device sub-block, 0 = params->block_size; at most 8192 */
  guint    mf_shape;     /* the matched filter's kernel shape (ef-cuda-mf.h), 0 = automatic (tuned or
                          * the default) */
} EfCudaOptions;

#define EF_CUDA_OPTIONS_DEFAULT ((EfCudaOptions) { FALSE, 0, 0, 0 })

/* Creates the CUDA backend for params->precision FP32 or FP16 and params->algo BP, FFBP, FBP (the
 * FFBP former's polar grids in half precision for FP16) or PFA (always fp32 on the device; the image is
 * formed after every block). On device out-of-memory it retries with
 * smaller pulse blocks before failing with EF_COMPUTE_ERROR_NO_MEMORY. Blocks while it allocates.
 * With params->n_devices > 1 (or EF_BACKEND_ALL_DEVICES and more than one device) it drives several
 * devices: every block is split into one contiguous share per device, each device accumulates its
 * own partial image (a host thread per device fills its pinned buffers), and read_image cuts the rows
 * asked for into one share per device, each device summing its share of the partial images (peer
 * copies) and copying it out over its own link, all at once. Asking for more devices than
 * there are fails with EF_COMPUTE_ERROR_NO_DEVICE.
 * A backend owns its streams, buffers and cuFFT plans; call it from one thread at a time (the job's
 * worker). process_block returns once its work is queued (it waits only for the pinned buffer it
 * refills); read_image, the stats and free wait for the device. A kernel's failure shows as
 * an error from the next call that waits. */
EfBackend *ef_backend_cuda_new (const EfDatasetInfo *info, const EfBackendParams *params, GError **error);
EfBackend *ef_backend_cuda_new_full (const EfDatasetInfo *info, const EfBackendParams *params,
                                     const EfCudaOptions *options, GError **error);

/* TRUE if backend is a CUDA backend. */
gboolean ef_backend_is_cuda (const EfBackend *backend);

/* The tiles changed by the last process_block: the whole ROI after any block (every pulse touches every
 * pixel), none before the first. Writes at most max rectangles into rects and returns how many. */
guint ef_backend_cuda_dirty (EfBackend *backend, EfRect *rects, guint max);

/* Pulses per device sub-block now in use (smaller than asked for after an out-of-memory retry). */
guint ef_backend_cuda_block_size (EfBackend *backend);

/* The kernel shape in use (a variant number, 1-based). */
guint ef_backend_cuda_variant (EfBackend *backend);

typedef struct {
  double   bp_ms;        /* backprojection kernels, device time */
  double   rc_ms;        /* range compression (prepare, FFTs, table packing), device time */
  double   h2d_ms;       /* host-to-device copies, device time */
  guint64  n_bp;         /* pixel-pulse pairs backprojected */
  guint    n_launches;   /* backprojection launches */
  guint    n_devices;    /* devices summed into the figures above (the times are device times added
                          * over devices, so bp_ms / n_devices approximates the elapsed kernel time) */
} EfCudaStats;

/* Waits for the device and copies the range profiles of the last sub-block (its first count pulses,
 * count * n_bins complex floats) to out. For checking range compression against the CPU. With several
 * devices, the first device's last sub-block (its share of the last block). */
gboolean ef_backend_cuda_read_profiles (EfBackend *backend, guint count, guint *n_bins, EfCf32 *out,
                                        GError **error);

/* Waits for the device, then fills stats with totals since creation. */
gboolean ef_backend_cuda_stats (EfBackend *backend, EfCudaStats *stats, GError **error);

/* Kernel level, for tests and benchmarks: backprojects profiles (fp32, host memory) onto a zeroed
 * device image and writes it to out (host, width * height), overwriting it. variant 0 = automatic.
 * kernel_ms (may be NULL) receives the backprojection kernel's device time. Blocks. */
gboolean ef_cuda_bp_profiles (const EfGrid *grid, const EfProfiles *profiles, EfPrecision precision,
                              guint variant, EfCf32 *out, double *kernel_ms, GError **error);

/* A CPU model of the fp32 kernel: the same tiles, Taylor expansions and float steps (with libm's sincos
 * in place of the hardware's), for checking the kernel's numerics where no device is present. Adds into
 * acc. Slow; meant for small grids. Returns FALSE if the variant is not valid for the geometry. */
gboolean ef_cuda_bp_model (const EfGrid *grid, const EfProfiles *profiles, guint variant, EfCf32 *acc,
                           GError **error);

/* Which variant the automatic choice takes for this grid and these profiles (1-based): the first shape
 * whose bound on the phase its range series leaves out is below 1e-4 rad (measured errors are ten times
 * smaller). 0 if none is, as with an antenna within a few tile sizes of the scene. */
guint ef_cuda_choose_variant (const EfGrid *grid, const EfProfileMeta *meta, guint n_pulses,
                              EfPrecision precision);

/* Times every kernel shape on a synthetic problem of the given class (grid edge, pulses, bins,
 * precision) and stores the fastest in g_get_user_cache_dir()/echoform/cuda-tune.ini under the device
 * name and class; backends read it back. *best (may be NULL) receives the variant chosen, and report
 * (may be NULL) an owned table of the timings. Blocks for a few seconds. */
gboolean ef_cuda_tune (int device, guint edge, guint n_pulses, guint n_bins, EfPrecision precision,
                       guint *best, char **report, GError **error);
/* Where ef_cuda_tune stores its choices (g_get_user_cache_dir()/echoform/cuda-tune.ini), owned. */
char *ef_cuda_tune_cache_path (void);

/* ---- the device image, for a display that reads it in place ---- */

/* A CUDA backend's accumulator as a display sees it. The handle is reference-counted and owns the
 * device buffer, so the image outlives the backend (and its job) for as long as a display holds it.
 * The backend marks the end of every block (and of a clear) with an event in a small ring, so that
 * another stream, on another thread, can read a finished state without ever making the compute
 * stream wait, and without waiting for a block itself. It is an EfDeviceImage (ef-device-image.h) to
 * the engine, which hands it out through ef_job_ref_device_image; the same type is forward-declared in
 * render/ef-gl-cuda.h. A backend over several devices has none: its image is a sum that only a read
 * makes. */
typedef struct _EfCudaImage EfCudaImage;

EfCudaImage *ef_cuda_image_ref (EfCudaImage *image);
/* Drops a reference. The last one frees the buffer, which waits for work that still reads it. */
void         ef_cuda_image_unref (EfCudaImage *image);
/* The CUDA image that image is, taking over the caller's reference to it; NULL (and the reference
 * dropped) when image is NULL or held by another kind of accelerator. Never blocks. */
EfCudaImage *ef_cuda_image_from_device (EfDeviceImage *image);
/* A new reference to image as the engine holds it. */
EfDeviceImage *ef_cuda_image_ref_device (EfCudaImage *image);
int          ef_cuda_image_get_device (EfCudaImage *image);
void         ef_cuda_image_get_size (EfCudaImage *image, guint *width, guint *height);
/* The device buffer (float2, width * height, row-major), borrowed: valid while a reference is held. */
const void  *ef_cuda_image_get_data (EfCudaImage *image);
/* How many marks (ends of blocks and of clears) the backend has queued so far. Thread-safe. */
guint64      ef_cuda_image_get_n_marks (EfCudaImage *image);
/* Orders stream (a cudaStream_t on the image's device, passed as a pointer) after the newest mark that
 * the device has already passed, and sets *mark to that mark's number (1-based; 0 when none has passed
 * yet). Never waits for the device, and never makes the compute stream wait. Pixels that a later block
 * is updating may be read before or after their update, each as a whole complex value. Thread-safe.
 * FALSE with error when the device reports a failure. */
gboolean     ef_cuda_image_order_after_finished (EfCudaImage *image, gpointer stream, guint64 *mark,
                                                 GError **error);
/* Copies rect of the image to out (host, rect->width * rect->height). Waits for the copy only, not for
 * queued blocks. Thread-safe. */
gboolean     ef_cuda_image_read (EfCudaImage *image, const EfRect *rect, EfCf32 *out, GError **error);

/* Counts the pixels of the image with a component that is not finite, on the device (nothing of the
 * image is copied to the host). Waits for the count only, not for queued blocks. Thread-safe. */
gboolean     ef_cuda_image_count_nonfinite (EfCudaImage *image, guint64 *count, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfCudaImage, ef_cuda_image_unref)

/* The display conversion: writes rects of image (device float2, image_width pixels a row) into a 2-D
 * CUDA surface as complex float pairs (an RG32F texture), at (x - dst_x, y - dst_y). surface is a
 * cudaSurfaceObject_t, stream a cudaStream_t. Queued on stream; returns at once. Rectangles must lie
 * inside the image and, shifted, inside the surface. The CPU path that does the same job is
 * ef_gl_image_upload (render/), and the GPU tests compare the two. */
gboolean ef_cuda_display_convert (gpointer stream, guint64 surface, const void *image, guint image_width,
                                  const EfRect *rects, guint n_rects, guint dst_x, guint dst_y, GError **error);

G_END_DECLS
