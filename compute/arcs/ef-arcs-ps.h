/* ef-arcs-ps.h: persistent-scatterer candidates from arc coherence, and their velocities and heights
 * integrated over the arc network from a reference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-arcs.h"

G_BEGIN_DECLS

typedef struct {
  EfArcWindow window;
  gboolean    plain;          /* score pixels by plain coherence (the seed's) instead of the periodogram */
  EfArcGrid   grid;           /* the periodogram's grid; also where each kept arc's search starts */
  double      threshold;      /* a pixel is a candidate when its score reaches this */
  double      arc_threshold;  /* an arc between candidates joins the network when its refined
                               * periodogram coherence reaches this */
  int         ref_col;        /* the reference pixel; < 0: the candidate of highest score */
  int         ref_row;
} EfPsParams;

/* A 7 x 7 square window; the periodogram over +-12 mm/yr in 2 mm/yr steps and +-24 m in 4 m steps (the
 * steps a little finer than the main lobe's half-width at X band over two years and 150 m of baseline
 * spread); candidates and arcs at 0.75. */
void ef_ps_params_init (EfPsParams *p);

typedef struct {
  guint    col, row;      /* in the image */
  float    score;
  double   velocity;      /* m/yr, relative to the reference; NaN when not connected to it */
  double   height;        /* m, likewise */
  gboolean connected;
} EfPsCandidate;

typedef struct {
  guint  a, b;            /* candidates (indices); the arc runs from a to b: dv = v_a - v_b */
  double dv, dh, coherence;
} EfPsArc;

typedef struct {
  guint       width, height;   /* the image */
  GArray     *candidates;      /* owned, of EfPsCandidate, in the order regions found them */
  GArray     *arcs;            /* owned, of EfPsArc: once solved, between candidates */
  guint       ref;             /* the reference candidate, once solved */
  guint       n_connected;
  /* private */
  GArray     *pending;         /* owned: arcs found by regions, by pixel index, until solved */
  GHashTable *index;           /* owned: pixel index -> candidate index + 1 */
} EfPsNetwork;

EfPsNetwork *ef_ps_network_new (guint width, guint height);
void         ef_ps_network_free (EfPsNetwork *net);

/* Analyses one region of the image: region_data holds rect's pixels for every pass, pass-major; core (inside
 * rect) is the part whose pixels this call owns. A region should reach the window's radius beyond its
 * core where the image goes on, so that the core's arcs are whole. Writes the core's scores into score
 * (image-sized, may be NULL), adds its candidates, and refines (in double) the arcs from them that may
 * join the network. FALSE with error on bad parameters or no memory. Blocks (OpenMP). */
gboolean ef_ps_network_add_region (EfPsNetwork *net, const EfCf32 *region_data, const EfRect *rect,
                                   const EfRect *core, const EfArcModel *model, const EfPsParams *params,
                                   float *score, GError **error);

/* The same, with the region's arc coherence already computed (on a device, say): ph the region's
 * phasors, coh laid out as ef_arcs_plain's for params->window's offsets, and best as
 * ef_arcs_periodogram's (NULL with params->plain). None of them is kept. Blocks (OpenMP). */
gboolean ef_ps_network_add_arcs (EfPsNetwork *net, const EfArcPhasors *ph, const float *coh, const guint16 *best,
                                 const EfRect *rect, const EfRect *core, const EfArcModel *model,
                                 const EfPsParams *params, float *score, GError **error);

/* Keeps the arcs whose two ends are candidates, picks the reference, and integrates the arcs' velocity
 * and height differences over the reference's connected part of the network by weighted least squares
 * (conjugate gradients; weight g^2 / (1 - g^2) for coherence g). FALSE with error when there is no
 * candidate or the reference asked for is not one. Blocks. */
gboolean ef_ps_network_solve (EfPsNetwork *net, const EfPsParams *params, GError **error);

/* The whole pipeline on one stack in memory (width x height x n_passes, pass-major): one region, then the
 * solve. Owned, or NULL with error. Blocks. */
EfPsNetwork *ef_ps_run (const EfCf32 *stack, guint width, guint height, const EfArcModel *model,
                        const EfPsParams *params, float *score, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfPsNetwork, ef_ps_network_free)

G_END_DECLS
