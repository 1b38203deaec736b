/* ef-arcs.h: temporal arc coherence over a stack of co-registered passes, and the velocity-height periodogram. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"

G_BEGIN_DECLS

/*
 * An arc joins a pixel p to a neighbour q = p + (dx, dy) within the search window. Its series over the
 * passes is z_k = u_p,k conj (u_q,k), with u = s / |s| each pixel's unit phasor (0 where s is 0). Two
 * coherences:
 *   plain        |sum_k z_k| / N, the seed's temporal arc coherence;
 *   periodogram  max over a grid of (dv, dh) of |sum_k z_k exp (-j (4 pi / lambda) (dv t_k + dh bperp_k /
 *                (R sin theta)))| / N, the classical PS estimator, whose maximum gives the arc's
 *                velocity difference dv = v_p - v_q (m/yr) and height difference dh = h_p - h_q (m).
 * Each arc is counted once: the offsets are half the window, (dx, dy) with dy > 0, or dy = 0 and dx > 0.
 */

#define EF_ARC_MAX_RADIUS 15
/* Half of a (2 r + 1)^2 window at the largest radius. */
#define EF_ARC_MAX_OFFSETS (((2 * EF_ARC_MAX_RADIUS + 1) * (2 * EF_ARC_MAX_RADIUS + 1) - 1) / 2)
/* The grid's index is kept in 16 bits. */
#define EF_ARC_MAX_GRID 65535

typedef enum {
  EF_ARC_WINDOW_SQUARE,   /* |dx|, |dy| <= radius */
  EF_ARC_WINDOW_DISC,     /* dx^2 + dy^2 <= radius^2 */
} EfArcShape;

typedef struct {
  guint      radius;      /* 1 .. EF_ARC_MAX_RADIUS */
  EfArcShape shape;
} EfArcWindow;

typedef struct {
  int dx, dy;
} EfArcOffset;

/* The acquisitions, as the phase model needs them. Borrowed arrays of n_passes. */
typedef struct {
  double        wavelength;     /* m */
  double        range;          /* m */
  double        incidence_deg;
  guint         n_passes;
  const double *t_years;
  const double *bperp;          /* m */
} EfArcModel;

/* The periodogram's grid: nv velocities evenly over [v_min, v_max] (m/yr) times nh heights over
 * [h_min, h_max] (m); point g = iv * nh + ih. */
typedef struct {
  double v_min, v_max;
  guint  nv;
  double h_min, h_max;
  guint  nh;
} EfArcGrid;

/* A stack region's unit phasors, structure of arrays: re[k * width * height + row * width + col]. */
typedef struct {
  guint  width, height, n_passes;
  float *re;   /* owned, 64-byte aligned */
  float *im;   /* owned, 64-byte aligned */
} EfArcPhasors;

/* The half-window offsets, in row order, into out (EF_ARC_MAX_OFFSETS entries); returns how many. */
guint ef_arc_offsets (const EfArcWindow *window, EfArcOffset *out);

/* Checks a window, a model and a grid; FALSE with EF_COMPUTE_ERROR_INVALID_ARGUMENT and a message. */
gboolean ef_arc_window_check (const EfArcWindow *window, GError **error);
gboolean ef_arc_model_check (const EfArcModel *model, GError **error);
gboolean ef_arc_grid_check (const EfArcGrid *grid, GError **error);

/* Grid point g's velocity and height. */
void ef_arc_grid_point (const EfArcGrid *grid, guint g, double *v, double *h);

/* Unit phasors of a region held pass-major (stack[k * width * height + row * width + col]). Owned, or
 * NULL with error when memory is short. Blocks (OpenMP). */
EfArcPhasors *ef_arc_phasors_new (const EfCf32 *stack, guint width, guint height, guint n_passes,
                                  GError **error);
void          ef_arc_phasors_free (EfArcPhasors *ph);

/* Plain coherence of every arc whose ends both lie in the region: coh[o * width * height + row * width +
 * col] for the arc from (col, row) along offset o; NaN where the neighbour falls outside. Blocks
 * (OpenMP over rows, SIMD over columns). */
void ef_arcs_plain (const EfArcPhasors *ph, const EfArcOffset *off, guint n_off, float *coh);

/* The periodogram's unit rotations exp (-j (4 pi / lambda) (v t_k + h bperp_k / (R sin theta))) for every
 * grid point and pass, computed in double: table_re/im[g * n_passes + k] (caller-owned, nv nh N). */
void ef_arc_phase_table (const EfArcModel *model, const EfArcGrid *grid, float *table_re, float *table_im);

/*
 * The grid folded about its centre. The phase is linear in (v, h), so with c the grid's centre (the
 * mean of its points) and delta a point's offset from it, theta_k (c + delta) = theta_k (c) + theta_k
 * (delta), and the offsets come in mirror pairs: point g's mirror is nv nh - 1 - g (the centre point,
 * when nv and nh are both odd, is its own). With z'_k = z_k exp (-j theta_k (c)) = x_k + j y_k and
 * exp (-j theta_k (delta)) = p_k - j q_k, the sums A = sum x p, B = sum y q, C = sum y p, D = sum x q give
 * both points of a pair: S (c + delta) = (A + B) + j (C - D) and S (c - delta) = (A - B) + j (C + D),
 * four real multiply-adds a pair and a pass where the full grid takes eight.
 */

/* The pairs of the folded grid, (nv nh + 1) / 2: pair g holds grid points g and nv nh - 1 - g. */
guint ef_arc_grid_pairs (const EfArcGrid *grid);

/* The folded grid's tables, computed in double: the centre's rotation exp (-j theta_k (c)) in
 * centre_re/im[k] (n_passes each), and for pair g, delta = point g - c, p[g * n_passes + k] = cos
 * theta_k (delta) and q[g * n_passes + k] = sin theta_k (delta) (ef_arc_grid_pairs () * n_passes
 * each). All caller-owned. */
void ef_arc_half_table (const EfArcModel *model, const EfArcGrid *grid, float *centre_re, float *centre_im,
                        float *p, float *q);

/* Periodogram coherence of every arc (laid out as ef_arcs_plain's), and the grid point of its maximum in
 * best (may be NULL; G_MAXUINT16 where the arc is outside): the first maximum in grid order, the lowest
 * g among equal |S|^2. Summed on the folded grid (above). model->n_passes must be ph->n_passes. FALSE
 * with error on a bad model or grid, or no memory. Blocks (OpenMP over rows and offsets, SIMD over
 * columns). */
gboolean ef_arcs_periodogram (const EfArcPhasors *ph, const EfArcOffset *off, guint n_off, const EfArcModel *model,
                              const EfArcGrid *grid, float *coh, guint16 *best, GError **error);

/* One arc's periodogram in double: |sum_k z_k exp (-j (4 pi / lambda) (v t_k + h bperp_k / (R sin theta)))| / N. */
double ef_arc_periodogram64 (const EfCf64 *z, const EfArcModel *model, double v, double h);

/* Refines one arc's maximum from (*v, *h), a grid point's neighbourhood, by a pattern search in double
 * down to a thousandth of the grid's steps; returns the coherence there. Does not block. */
double ef_arc_refine (const EfCf64 *z, const EfArcModel *model, const EfArcGrid *grid, double *v, double *h);

/* Each pixel's score: the largest coherence of the arcs that touch it, either end (NaN arcs ignored; 0 with
 * none). score: width * height. */
void ef_arcs_pixel_scores (const float *coh, guint width, guint height, const EfArcOffset *off, guint n_off,
                           float *score);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfArcPhasors, ef_arc_phasors_free)

G_END_DECLS
