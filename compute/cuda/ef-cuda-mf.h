/* ef-cuda-mf.h: the CUDA matched filter's launch shapes, and the tuner that picks one per device and class. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C: no CUDA header. */
#include "ef-types.h"

G_BEGIN_DECLS

/*
 * A launch shape of the matched-filter kernel (ef-cuda-mf.cuh). A block is bx x by threads; each thread
 * sums px x py pixels, a block's width (height) apart so that a warp's writes stay contiguous: every
 * sample it reads serves all of them, while each pixel's geometry (its differential range and both
 * phases, in double) serves every sample of a pulse. The samples come through shared memory a chunk at a
 * time, staged by the whole block, or (constant) through constant memory, a tile of them a launch, read
 * by every warp in step. unroll is the sample loop's unrolling. Every shape takes the same steps for
 * each pixel: the exact phase, in double, reduced to cycles, every 64 samples, a float rotator between,
 * one float sum per pulse; so they agree to float rounding.
 *
 * One list makes both the table and the kernels' instantiations (ef-cuda-mf.cu); X (bx, by, px, py,
 * unroll, constant). Shape s (1-based, as the tables and the cache name it) is row s - 1. The first is
 * the default where nothing is tuned.
 */
#define EF_CUDA_MF_SHAPE_LIST(X) \
  X (32, 8, 1, 1, 8, 0) \
  X (32, 8, 2, 1, 8, 0) \
  X (32, 8, 1, 2, 8, 0) \
  X (32, 4, 2, 2, 8, 0) \
  X (32, 8, 4, 1, 4, 0) \
  X (32, 4, 1, 4, 4, 0) \
  X (64, 4, 2, 1, 8, 0) \
  X (32, 16, 1, 1, 8, 0) \
  X (32, 8, 1, 1, 16, 0) \
  X (32, 8, 2, 2, 4, 0) \
  X (32, 8, 1, 1, 8, 1) \
  X (32, 8, 2, 1, 8, 1) \
  X (32, 4, 2, 2, 4, 1) \
  X (32, 8, 1, 4, 4, 1)

typedef struct {
  guint    bx, by;
  guint    px, py;
  guint    unroll;
  gboolean constant;
} EfCudaMfShape;

#define EF_CUDA_MF_N_SHAPES 14
#define EF_CUDA_MF_DEFAULT_SHAPE 1u
/* ef_cuda_mf_shapes[s - 1] is shape s. */
extern const EfCudaMfShape ef_cuda_mf_shapes[EF_CUDA_MF_N_SHAPES];

/* Samples staged in shared memory at a time, samples of one constant-memory tile, and the rotator's
 * steps between two exact phases (each a multiple of the last). */
#define EF_CUDA_MF_CHUNK 512u
#define EF_CUDA_MF_TILE 4096u
#define EF_CUDA_MF_ANCHOR 64u

/* What one launch of a constant-memory shape sums: pulses [p0, p0 + np), samples [kb, ke) of each,
 * np (ke - kb) <= EF_CUDA_MF_TILE samples in all, kb a multiple of the tile. Whole pulses share a tile where
 * they fit; a longer pulse takes a tile a part. */
typedef struct {
  guint p0, np;
  guint kb, ke;
} EfCudaMfTile;

/* The number of tiles a sub-block of n_pulses pulses of n_samples takes, and (where tile is not NULL and
 * i is below that number) tile i. Tiles are in order: every sample of every pulse in exactly one. */
guint64 ef_cuda_mf_tile (guint n_pulses, guint n_samples, guint64 i, EfCudaMfTile *tile);

/* A shape's name for tables and records: "32x8 threads, 2x1 px, unroll 8, shared" (static storage;
 * "?" outside 1..EF_CUDA_MF_N_SHAPES). */
const char *ef_cuda_mf_shape_name (guint shape);

/* Tuning. A class is the image's longer edge and the samples per pulse, each rounded up to a power of
 * two: keys such as "edge1024-samples1024", in the group "MF <device name>" of BP's cache file
 * (ef_cuda_tune_cache_path), whose other entries they leave alone. */

/* The class's key (owned). */
char    *ef_cuda_mf_tune_key (guint edge, guint n_samples);
/* The shape stored for device_name and the class, or 0 where none is (no cache, no entry, unreadable or
 * out of range). Never fails; needs no device. */
guint    ef_cuda_mf_tune_lookup (const char *device_name, guint edge, guint n_samples);
/* Stores shape (1..EF_CUDA_MF_N_SHAPES) for device_name and the class, keeping every other entry. */
gboolean ef_cuda_mf_tune_store (const char *device_name, guint edge, guint n_samples, guint shape,
                                GError **error);
/* The shape a backend runs for the class on the device named device_name (NULL: none): the tuned one
 * (*tuned TRUE) or EF_CUDA_MF_DEFAULT_SHAPE. Never fails; needs no device. */
guint    ef_cuda_mf_pick_shape (const char *device_name, guint edge, guint n_samples, gboolean *tuned);

/* Times every shape on a synthetic problem of the class of edge and n_samples on device (random samples
 * over a 10 km spotlight arc; the image at most 2048 pixels square, the pulse count set so that a
 * launch takes about 25 ms), stores the fastest, and returns it in *shape and a timing table in *report
 * (owned; either may be NULL). Blocks for a second or a few. */
gboolean ef_cuda_mf_tune (int device, guint edge, guint n_samples, guint *shape, char **report, GError **error);

G_END_DECLS
