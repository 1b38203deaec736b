/* ef-cuda-mri.h: the exact non-Cartesian sums F^H d and Q on a CUDA device. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C: no CUDA header. */
#include "ef-types.h"
#include "ef-mri.h"

G_BEGIN_DECLS

/* The launch shapes the kernels come in: threads per block and voxels each thread accumulates; with
 * rotate, the voxels are consecutive along x (the grid's nx must be a multiple of them) and share one
 * __sincosf a sample, the others rotated from it; without, they are a block apart and each has its own.
 * Without shared, the samples go through constant memory a tile at a time, one launch a tile, every
 * block reading the whole tile (the reference study's structure). With shared, one launch covers every
 * sample: the blocks of a launch split the samples into slices as well as the voxels into groups, each
 * block stages its slice through shared memory a chunk at a time, and the slices' sums meet in the
 * float64 accumulator by atomic addition; so a grid of few voxels still fills the device, and warps at
 * different points of their samples do not evict one another from the small constant cache. */
typedef struct {
  guint    block;
  guint    voxels;
  gboolean rotate;
  gboolean shared;
} EfCudaMriShape;

#define EF_CUDA_MRI_N_SHAPES 16
extern const EfCudaMriShape ef_cuda_mri_shapes[EF_CUDA_MRI_N_SHAPES];
/* The shape used when none is asked for (-1), where the grid's width is a multiple of its voxels;
 * elsewhere EF_CUDA_MRI_ANY_SHAPE, one voxel a thread. */
#define EF_CUDA_MRI_DEFAULT_SHAPE 14
#define EF_CUDA_MRI_ANY_SHAPE 10

typedef struct {
  double h2d_ms;      /* the samples in (and their conversion to float) */
  double kernel_ms;   /* every tile: its copy into constant memory and its kernel */
  double d2h_ms;      /* the image out */
  guint  tiles;       /* launches (constant memory), or slices of the samples (shared) */
  guint  shape;       /* the shape that ran (an index into ef_cuda_mri_shapes) */
  gboolean tuned;     /* shape -1 was asked and the tuner's cached choice ran (FALSE: asked, or the default) */
} EfCudaMriTiming;

/* A shape's name for tables: "128 x 4 voxels rotated, shared" and the like (static storage). */
const char *ef_cuda_mri_shape_name (guint shape);

/* The sum over samples for every voxel of grid, on the device (device < 0: the current one):
 * F^H d when d is given, Q with weights w (NULL: 1) when d is NULL. The samples are cut into tiles (through
 * constant memory, or slices through shared memory: see EfCudaMriShape); each thread keeps `voxels`
 * voxels' sums in float across a tile's 2048 samples (phase in cycles, reduced, then the hardware
 * __sincosf) and adds them to a float64 accumulator after each tile.
 * shape: an index into ef_cuda_mri_shapes, or -1: the shape ef_cuda_mri_tune stored for this device and
 * problem class where it fits the grid, else EF_CUDA_MRI_DEFAULT_SHAPE (or EF_CUDA_MRI_ANY_SHAPE). out (caller's)
 * receives one value per voxel. timing may be NULL. FALSE with error (no device:
 * EF_COMPUTE_ERROR_NO_DEVICE; too little memory: EF_COMPUTE_ERROR_NO_MEMORY). Blocks until the result is
 * in out. */
gboolean ef_cuda_mri_sum (int device, const EfMriTraj *t, const EfCf32 *d, const float *w, const EfMriGrid *grid,
                          int shape, EfCf64 *out, EfCudaMriTiming *timing, GError **error);

/* Tuning. A class is F^H d or Q, 2-D or 3-D, and the decade of the voxel count of the grid the sum runs
 * on (Q's doubled grid): keys such as "q-3d-vox1e6", in the group "MRI <device name>" of BP's cache file
 * (ef_cuda_tune_cache_path), whose own entries they leave alone. */

/* The class's key (owned). */
char *ef_cuda_mri_tune_key (guint dim, gsize n_vox, gboolean q);
/* The shape stored for device_name and grid's class, or -1 where none is (no cache, no entry, unreadable,
 * out of range, or a rotating shape whose voxels do not divide grid's width). Never fails; needs no device. */
int ef_cuda_mri_tune_lookup (const char *device_name, const EfMriGrid *grid, gboolean q);
/* Stores shape for device_name and the class, keeping every other entry. Needs no device. */
gboolean ef_cuda_mri_tune_store (const char *device_name, guint dim, gsize n_vox, gboolean q, guint shape,
                                 GError **error);
/* The shape that shape -1 runs on device for grid: the tuned one (*tuned TRUE) or the static default. */
int ef_cuda_mri_pick_shape (int device, const EfMriGrid *grid, gboolean q, gboolean *tuned);
/* Times every shape that fits on a synthetic problem of the class of n_vox voxels (random samples and
 * data; the sample count set so that a run takes about 0.15 s), stores the fastest, and returns it in
 * *shape and a timing table in *report (owned; either may be NULL). Takes a few seconds. */
gboolean ef_cuda_mri_tune (int device, guint dim, gsize n_vox, gboolean q, guint *shape, char **report,
                           GError **error);

/* Offers ef_cuda_mri_sum to the engine (ef-mri-accel.h); ef-cuda-register.c calls it at start-up. */
void ef_cuda_mri_register (void);

G_END_DECLS
