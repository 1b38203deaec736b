/* ef-ffbp-cpu-private.h: what the CPU FFBP's row loops and its stage driver share. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-bp.h"
#include "ef-ffbp-cpu.h"
#include "ef-ffbp-private.h"

G_BEGIN_DECLS

/* One thread's buffers for the points of a row. */
typedef struct {
  double *px, *py, *pz, *off;   /* points and their phase offsets (m) */
  guint8 *ok;
  double *fr, *fa, *cyc;        /* per-node fractional indices and phases */
  double *are, *aim;            /* accumulators */
  double *vre, *vim;            /* interpolated values before re-modulation */
  double *dr;                   /* leaf: differential ranges */
  int    *kb;                   /* leaf: profile bins */
  /* The float32 path. */
  EfFfbpTaps taps;              /* where each point reads a child's grid */
  float  *ph;                   /* phase of the re-modulation, cycles in [-0.5, 0.5] */
  float  *fre, *fim;            /* accumulators */
  float  *gre, *gim;            /* interpolated values */
  /* Leaves by the backprojector's tile loop: a chunk of a row at a time. */
  EfBpCoef *coef;               /* one per pulse of the leaf */
  float  *ta, *tb, *tq;         /* offsets of the chunk's points from its centre, 64-byte aligned */
  float  *tre, *tim;            /* the chunk's sums, 64-byte aligned */
} EfFfbpScratch;

/* The most points of a leaf row that the tile loop takes at once. */
#define LEAF_CHUNK 128

/* The short names of the plan's types, in both files. */
typedef EfFfbpNode Node;
typedef EfFfbpStage Stage;
typedef EfFfbpBlock Block;
typedef EfFfbpScratch Scratch;

/* Buffers for rows of up to n points (and leaves of up to max_leaf pulses by the tile loop; 0: none). */
void     ef_ffbp_scratch_init (Scratch *s, guint n, guint max_leaf);
void     ef_ffbp_scratch_clear (Scratch *s);

/* One row j of a leaf node's grid from the block's profiles: by the per-point loop in float64 or float32,
 * or (float32, monostatic, AVX-512) by the backprojector's tile loop a chunk at a time. */
void     ef_ffbp_leaf_row64 (const Block *b, const Node *nd, guint j, Scratch *s);
void     ef_ffbp_leaf_row32 (const Block *b, const Node *nd, guint j, Scratch *s);
void     ef_ffbp_leaf_row32_tiles (const EfFfbp *self, const Block *b, const Node *nd, guint j, Scratch *s);
/* Whether a block's leaves go through the tile loop. */
gboolean ef_ffbp_leaves_by_tiles (const EfFfbp *self, const Block *b, gboolean f64);
/* One row j of a merged node's grid, interpolated from its children's. */
void     ef_ffbp_merge_row64 (const EfFfbp *self, const Block *b, const Node *nd, const Node *children, guint j,
                              Scratch *s);
void     ef_ffbp_merge_row32 (const EfFfbp *self, const Block *b, const Node *nd, const Node *children, guint j,
                              Scratch *s);
/* Image row r from the last stage's grids, added into the accumulator. */
void     ef_ffbp_final_row64 (const EfFfbp *self, const Block *b, const Stage *st, guint r, Scratch *s, EfCf64 *acc64,
                              EfCf32 *acc32);
void     ef_ffbp_final_row32 (const EfFfbp *self, const Block *b, const Stage *st, guint r, Scratch *s, EfCf64 *acc64,
                              EfCf32 *acc32);

G_END_DECLS
