/* ef-ffbp-private.h: the FFBP plan (tree, geometry, kernels, cost model) shared by the CPU and CUDA paths. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Plain C with GLib only: the CUDA backend's C files include it too. The CPU path (ef-ffbp-cpu.c) and the
 * GPU path (cuda/ef-cuda-ffbp.*) build the very same tree for a block through ef_ffbp_plan, from the
 * profiles' metadata alone, and read the same interpolation kernels; only the cost table that picks
 * the leaf length and decides for exact backprojection differs between them.
 */

#include "ef-ffbp.h"

G_BEGIN_DECLS

#define EF_FFBP_KQ  256        /* kernel table phases per sample; weights are interpolated linearly */
#define EF_FFBP_RS  8          /* range taps the gather reads (shorter kernels padded with zero weights) */
#define EF_FFBP_AS  16         /* most angular taps */
#define EF_FFBP_PAD EF_FFBP_RS /* zero samples after each polar row: the fast gather never checks bounds */

/* A Knab kernel, tabulated. The float tables come first: in a 64-byte aligned kernel every one of their
 * rows (64 bytes) is a vector load. */
typedef struct {
  /* The first RS taps, each twice, to weight interleaved (re, im) pairs in one vector. */
  float  wdf[EF_FFBP_KQ + 1][2 * EF_FFBP_RS];
  float  wf[EF_FFBP_KQ + 1][EF_FFBP_AS];
  double w[EF_FFBP_KQ + 1][EF_FFBP_AS];     /* weight of tap k at fractional offset q / KQ; zero past taps */
  double wd[EF_FFBP_KQ + 1][2 * EF_FFBP_RS];
  guint  taps;
} EfFfbpKernel;

/* A sub-aperture and its polar grid. Sample (j, i) of the grid is the point of the image plane at range
 * rho = rho0 + i drho from c and direction cosine alpha = al0 + j dal along t, on the side qsign of the
 * track: with pp = (rho alpha + h taun) / tau1 and q = qsign sqrt(rho^2 - h^2 - pp^2), the point is
 * cp + pp e1 + q e2 (valid where rho^2 - h^2 - pp^2 > 0 and rho > 0; other samples hold zero). */
typedef struct {
  guint    p0, p1;        /* pulses [p0, p1) of the block */
  guint    c0, nc;        /* children [c0, c0 + nc) in the stage below */
  double   c[3];          /* centre: mean phase centre */
  double   t[3];          /* unit track direction */
  double   r0;            /* reference range of the demodulation */
  double   len;           /* aperture length that sets the angular sampling, m */
  /* The grid plane seen from c: c = cp + h n; e1 is t's direction in the plane, e2 = n x e1. */
  double   cp[3], e1[3], e2[3], h, tau1, taun, qsign;
  double   rho0, drho, al0, dal;
  guint    nrho, nal, stride;
  gpointer data;          /* CPU path: nal rows of stride samples (EfCf64 or EfCf32) in the former's
                           * stage buffer (borrowed), or NULL */
} EfFfbpNode;

typedef struct {
  EfFfbpNode *nodes;      /* owned */
  guint       n;
} EfFfbpStage;

typedef struct {
  EfFfbpStage *stages;    /* owned: [0] leaves, last = fused onto the grid */
  guint        n_stages;
  double       cost;      /* model, in the cost table's units */
  guint        leaf_pulses;
} EfFfbpTree;

/* What the whole block shares. */
typedef struct {
  const EfProfiles *pr;   /* borrowed: metadata only */
  double kr;              /* demodulation wavenumber: the block's mean */
  double kr_max;          /* highest wavenumber of the band, for angular Nyquist */
  double spacing;         /* mean distance between consecutive phase centres */
  double tb[3];           /* the block's chord direction */
  double base2;           /* largest squared half-baseline (bistatic) */
} EfFfbpBlock;

struct _EfFfbp {
  EfGrid        grid;
  double        bandwidth;
  EfFfbpParams  params;
  double        n[3];          /* grid normal */
  EfFfbpKernel *kr_range;      /* owned */
  EfFfbpKernel *kr_angle;      /* owned */
  double      (*edge)[3];      /* owned: points along the ROI's boundary */
  guint         n_edge;
  gboolean      avx512;        /* CPU path: the float32 loops may use AVX-512 */
  gpointer      grids[2];      /* CPU path, owned: the polar grids of even and odd stages, kept between
                                * blocks (64-byte aligned) */
  gsize         grid_bytes[2];
};

/* The operation-count model: time of one operation of each kind, in any unit (only ratios matter).
 * leaf: one pulse into one polar sample; merge: one child into one polar sample; final: one
 * sub-aperture into one pixel; bp: one pulse into one pixel by the exact path the block would take
 * otherwise. */
typedef struct {
  double leaf, merge, final, bp;
} EfFfbpCosts;

/* The CPU's, measured on an AMD Zen 5 with the AVX-512 builds: [0] float64, [1] float32. */
extern const EfFfbpCosts ef_ffbp_costs_cpu[2];
/* The CUDA path's, in units of one pixel-pulse of the fp32 backprojection kernel. */
extern const EfFfbpCosts ef_ffbp_costs_gpu;

/* One block's plan: the tree (structure, geometry and extents of every polar grid; no samples), or the
 * decision to backproject the block exactly. */
typedef struct {
  EfFfbpBlock block;      /* block.pr borrows the profiles given to ef_ffbp_plan */
  EfFfbpTree  tree;       /* owned; empty when use_bp or when there are no pulses */
  gboolean    use_bp;
  const char *why;        /* static: why exact backprojection, or NULL */
  double      bp_cost;    /* model cost of exact backprojection */
} EfFfbpPlan;

/* How ef_ffbp_plan looks for the leaf length. ALL builds the tree for every candidate length (1, 2, 3,
 * 4, 6, 8, ... up to the block) from the shortest up, and stops at the first that cannot be laid out.
 * DESCEND starts from the longest, whose trees are cheap to build, skips lengths that cannot be laid
 * out, and stops once two candidates in a row cost more than the best so far: on the model's costs,
 * which fall and then rise with the leaf length, it finds the same minimum in a fraction of the time
 * (the shortest leaves have the most nodes to lay out). */
typedef enum {
  EF_FFBP_SEARCH_ALL,
  EF_FFBP_SEARCH_DESCEND,
} EfFfbpSearch;

/* Plans the block in profiles (reads n_pulses, monostatic and meta only; the samples may be elsewhere,
 * even on a device) with the given cost table: the leaf length that minimises the model's cost (or
 * params.leaf_pulses), the tree, and whether exact backprojection is cheaper or the only way. Returns
 * FALSE with EF_COMPUTE_ERROR_INVALID_ARGUMENT only when the block cannot be formed by the fast path and
 * params.bp_fallback is off. plan must be cleared with ef_ffbp_plan_clear either way. The plan borrows
 * profiles. Deterministic: the same metadata, costs and search always give the same tree, and with a
 * given leaf length the tree does not depend on the costs or the search at all. */
gboolean ef_ffbp_plan (const EfFfbp *self, const EfProfiles *profiles, const EfFfbpCosts *costs,
                       EfFfbpSearch search, EfFfbpPlan *plan, GError **error);
void     ef_ffbp_plan_clear (EfFfbpPlan *plan);
/* The statistics of a plan (no timings): n_pulses, leaf_pulses, n_leaves, n_stages, n_final,
 * polar_samples, est_speedup, used_bp, why_bp. */
void     ef_ffbp_plan_stats (const EfFfbpPlan *plan, EfFfbpStats *stats);

/* Builds the tree for leaves of L pulses (structure, geometry, extents; no data) and its cost. On
 * FALSE, *why says why and the tree must still be cleared. */
gboolean ef_ffbp_tree_build (const EfFfbp *self, const EfFfbpBlock *b, guint L, const EfFfbpCosts *costs,
                             EfFfbpTree *tree, const char **why);
void     ef_ffbp_tree_clear (EfFfbpTree *tree);
/* The block's shared quantities; FALSE when it has fewer than two distinct phase centres. */
gboolean ef_ffbp_block_setup (const EfProfiles *pr, double bandwidth, EfFfbpBlock *b);

G_END_DECLS
