/* ef-cuda-pfa-private.h: what the CUDA polar format former's host file and kernels share. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Included from C (gcc) and from CUDA C++ (nvcc): device pointers are plain pointers, and nothing here
 * needs more than the runtime API's types. */
#include <glib.h>
#include <cuda_runtime_api.h>

G_BEGIN_DECLS

/* The same constants as ef-pfa-private.h's (checked there by ef-cuda-pfa.c). */
#define EF_CUDA_PFA_KBQ 512       /* Kaiser-Bessel table entries per grid cell */
#define EF_CUDA_PFA_KNQ 256       /* Knab table phases per pixel */
#define EF_CUDA_PFA_TAPS_MAX 16   /* Knab taps */
#define EF_CUDA_PFA_SPREAD_MAX 13 /* gridding taps per axis: the widest kernel (12 cells) plus one */

/* One profile's spectrum as the gridding kernel sees it: bin q (|q| <= qmax) of the forward FFT of
 * spectrum row `row` lands at grid coordinates (fu0 + q dfu, fv0 + q dfv), in cells, with the phase
 * cyc0 + q dcyc, in cycles. Everything that decides a position or a phase is double. */
typedef struct {
  double fu0, fv0;
  double dfu, dfv;
  double cyc0;       /* reduced to [-0.5, 0.5] */
  double dcyc;
  int    qmax;
  int    row;        /* row of the chunk's spectra (records are sorted by look angle, rows are not) */
} EfCudaPfaPulse;

typedef struct {
  const void           *spec;     /* device float2, rows of nb: the chunk's profile spectra */
  guint                 nb;
  const EfCudaPfaPulse *pulses;   /* device, count records */
  guint                 count;
  int                   qmax;     /* the largest of the records' */
  const float          *kb;       /* device, kb_n entries: the Kaiser-Bessel kernel at i / KBQ cells */
  guint                 kb_n;
  guint                 width;    /* kernel width W in cells: W + 1 taps per axis, the last always zero */
  guint                 mu, mv;   /* the k-space grid */
  float                 inv_nb;
  gboolean              tiled;    /* accumulate each block's footprint in shared memory when it fits */
  void                 *kgrid;    /* device float2, mv rows of mu: accumulated into */
} EfCudaPfaGridArgs;

typedef struct {
  const void  *work;              /* device float2, mv rows of mu: the transformed grid */
  guint        mu, mv, nu, nv;
  const float *deap_u, *deap_v;   /* device, nu and nv */
  double       ccu, ccv;          /* the support's carrier, cycles per lattice step along u and v */
  void        *lat;               /* device float2, nv rows of nu: written */
} EfCudaPfaLatticeArgs;

/* A look (first, middle or last) of the stencil. */
typedef struct {
  double tx[3], rcv[3];
  double r0o;
} EfCudaPfaLook;

typedef struct {
  double         origin[3], u[3], v[3], ol[3];
  double         spacing;
  guint          width, height;
  int            cc, rc;          /* ROI pixel at the lattice origin */
  int            u0, v0;          /* lattice index 0 in lattice steps from the origin */
  guint          nu, nv;
  EfCudaPfaLook  a, m, b;
  gboolean       bistatic;        /* some look has tx != rcv */
  gboolean       correct;         /* distortion correction: Knab resampling at the apparent place */
  gboolean       solve;           /* the apparent place comes from the 2 x 2 system below */
  double         kr_c, kr_d;      /* the support's centre wavenumber, and its width kr_hi - kr_lo */
  double         om, duh_ol;      /* m.uh . ol, (b.uh - a.uh) . ol */
  double         a11, a12, a21, a22, det;
  double         ku_rest, kv_rest;  /* K_m - K_c on the grid's axes, rad/m */
  guint          taps;
  const float   *knab;            /* device, (KNQ + 1) rows of taps */
  const void    *lat;             /* device float2, nv rows of nu */
  void          *out;             /* device float2, height rows of width: written */
  unsigned long long *dist;       /* device: the largest shift's bits (a non-negative double), max-ed into */
} EfCudaPfaCorrectArgs;

/* Launch wrappers (ef-cuda-pfa.cu); asynchronous on stream. */
gboolean ef_cuda_pfa_grid_launch (cudaStream_t stream, const EfCudaPfaGridArgs *args, GError **error);
gboolean ef_cuda_pfa_lattice_launch (cudaStream_t stream, const EfCudaPfaLatticeArgs *args, GError **error);
gboolean ef_cuda_pfa_correct_launch (cudaStream_t stream, const EfCudaPfaCorrectArgs *args, GError **error);

G_END_DECLS
