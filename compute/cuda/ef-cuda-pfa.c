/* ef-cuda-pfa.c: the polar format former on a CUDA device: buffers, cuFFT plans, per-pulse records. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-pfa"
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ef-error.h"
#include "ef-pfa-private.h"
#include "ef-cuda-private.h"
#include "ef-cuda-pfa.h"
#include "ef-cuda-pfa-private.h"
#include "ef-cuda-test-hooks.h"

G_STATIC_ASSERT (EF_CUDA_PFA_KBQ == EF_PFA_KBQ);
G_STATIC_ASSERT (EF_CUDA_PFA_KNQ == EF_PFA_KNQ);
G_STATIC_ASSERT (EF_CUDA_PFA_TAPS_MAX == EF_PFA_TAPS_MAX);
G_STATIC_ASSERT (EF_CUDA_PFA_SPREAD_MAX == EF_PFA_KERNEL_MAX + 1);

/* The profiles of a block are transformed in chunks whose spectra take at most SPEC_BYTES (and at most
 * CHUNK_MAX pulses): one batched plan per chunk size, the spectra buffer reused. */
#define SPEC_BYTES ((gsize) 256 << 20)
#define CHUNK_MAX 8192u
#define NBINS_MAX (1u << 26)

typedef struct {
  cufftHandle h;
  gboolean    valid;
  guint       batch;
  guint64     used;       /* plan_clock at the last use: the least recent is replaced */
} Plan1d;

struct _EfCudaPfa {
  EfPfaCore        core;          /* the parameters, the layout, every pulse seen */
  int              device;
  EfCudaPfaSpread  spread;
  gboolean         broken;        /* a block failed half-way: the grid holds part of it */
  /* Device buffers, made at the first block and kept over a clear while the sizes stay the same. */
  gboolean         have_buffers;
  guint            b_mu, b_mv, b_nu, b_nv, b_nb;   /* the sizes they were made for */
  void            *d_kgrid;       /* owned: float2, mv rows of mu: the accumulated grid */
  void            *d_work;        /* owned: float2, the same: its copy, transformed */
  void            *d_lat;         /* owned: float2, nv rows of nu: the lattice image */
  void            *d_spec;        /* owned: float2, chunk rows of nb: one chunk's spectra */
  EfCudaPfaPulse  *d_pulses;      /* owned: chunk records */
  float           *d_kb;          /* owned: kb_n */
  float           *d_deap_u;      /* owned: nu */
  float           *d_deap_v;      /* owned: nv */
  float           *d_knab;        /* owned: (KNQ + 1) * TAPS_MAX */
  unsigned long long *d_dist;     /* owned: one word */
  cufftHandle      plan2d;
  gboolean         have_plan2d;
  Plan1d           plan1d[2];
  guint64          plan_clock;
  guint            nbins;         /* profile length the buffers and plans are for */
  guint            chunk;         /* pulses per transform */
  EfCudaPfaPulse  *h_pulses;      /* owned: chunk records, staged for the copy */
  float           *h_knab;        /* owned: (KNQ + 1) * TAPS_MAX */
  /* The end of the work the last call queued, and the stage timers. */
  cudaEvent_t      ev_done, ev_t0, ev_t1;
  gboolean         have_events;
  gboolean         timing;
  EfCudaPfaStats   stats;
};

/* ---- buffers ---- */

static gboolean
dev_alloc (void **ptr, gsize size, const char *what, GError **error)
{
  cudaError_t e = ef_cuda_malloc (ptr, MAX (size, (gsize) 1));

  if (e == cudaSuccess)
    return TRUE;
  /* An allocation's failure is reported here; it must not show again at the next launch check. */
  (void) cudaGetLastError ();
  *ptr = NULL;
  if (e == cudaErrorMemoryAllocation)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough device memory for the polar format %s (%.1f MiB)", what, size / 1048576.0);
      return FALSE;
    }
  return ef_cuda_check_ ((int) e, what, __FILE__, __LINE__, error);
}

static void
dev_free (void **ptr)
{
  if (*ptr)
    EF_CUDA_WARN (cudaFree (*ptr));
  *ptr = NULL;
}

static void
release_plans1d (EfCudaPfa *self)
{
  for (int k = 0; k < 2; k++)
    {
      if (self->plan1d[k].valid)
        cufftDestroy (self->plan1d[k].h);
      self->plan1d[k].valid = FALSE;
    }
}

/* Frees every device buffer and plan (cudaFree waits for the device). */
static void
release_device (EfCudaPfa *self)
{
  release_plans1d (self);
  if (self->have_plan2d)
    cufftDestroy (self->plan2d);
  self->have_plan2d = FALSE;
  dev_free (&self->d_kgrid);
  dev_free (&self->d_work);
  dev_free (&self->d_lat);
  dev_free (&self->d_spec);
  dev_free ((void **) &self->d_pulses);
  dev_free ((void **) &self->d_kb);
  dev_free ((void **) &self->d_deap_u);
  dev_free ((void **) &self->d_deap_v);
  dev_free ((void **) &self->d_knab);
  dev_free ((void **) &self->d_dist);
  g_clear_pointer (&self->h_pulses, g_free);
  self->have_buffers = FALSE;
  self->stats.grid_u = self->stats.grid_v = self->stats.lattice_u = self->stats.lattice_v = 0;
}

static gboolean
upload_floats (float *dst, const double *src, guint n, cudaStream_t s, GError **error)
{
  g_autofree float *tmp = g_new (float, MAX (n, 1u));

  for (guint i = 0; i < n; i++)
    tmp[i] = (float) src[i];
  /* From pageable memory the copy is staged before the call returns, so tmp may go at once. */
  EF_CUDA_CHECK (cudaMemcpyAsync (dst, tmp, n * sizeof (float), cudaMemcpyHostToDevice, s), error);
  return TRUE;
}

/* Fixes the layout from the first block's geometry and makes (or reuses) the device buffers. */
static gboolean
setup (EfCudaPfa *self, cudaStream_t s, guint nb, GError **error)
{
  EfPfaCore *c = &self->core;
  gsize cells;

  if (!ef_pfa_core_layout (c, error))
    return FALSE;
  cells = (gsize) c->mu * c->mv;
  if (!self->have_buffers || self->b_mu != c->mu || self->b_mv != c->mv || self->b_nu != c->nu
      || self->b_nv != c->nv || self->b_nb != nb)
    {
      const guint chunk = (guint) CLAMP (SPEC_BYTES / ((gsize) nb * sizeof (EfCf32)), (gsize) 1,
                                         (gsize) CHUNK_MAX);

      release_device (self);
      self->chunk = chunk;
      if (!dev_alloc (&self->d_kgrid, cells * sizeof (EfCf32), "k-space grid", error)
          || !dev_alloc (&self->d_work, cells * sizeof (EfCf32), "FFT buffer", error)
          || !dev_alloc (&self->d_lat, (gsize) c->nu * c->nv * sizeof (EfCf32), "lattice image", error)
          || !dev_alloc (&self->d_spec, (gsize) chunk * nb * sizeof (EfCf32), "profile spectra", error)
          || !dev_alloc ((void **) &self->d_pulses, chunk * sizeof (EfCudaPfaPulse), "pulse records", error)
          || !dev_alloc ((void **) &self->d_kb, c->kb_n * sizeof (float), "kernel table", error)
          || !dev_alloc ((void **) &self->d_deap_u, c->nu * sizeof (float), "deapodisation", error)
          || !dev_alloc ((void **) &self->d_deap_v, c->nv * sizeof (float), "deapodisation", error)
          || !dev_alloc ((void **) &self->d_knab, (EF_PFA_KNQ + 1) * EF_PFA_TAPS_MAX * sizeof (float),
                         "resampling table", error)
          || !dev_alloc ((void **) &self->d_dist, sizeof (unsigned long long), "distortion word", error))
        return FALSE;
      /* The 2-D plan's work area is about the size of the grid: it counts as an allocation. */
      if (ef_cuda_test_hooks_alloc_fails (0))
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                       "Not enough device memory to plan a %u x %u FFT", c->mu, c->mv);
          return FALSE;
        }
      EF_CUFFT_CHECK (cufftPlan2d (&self->plan2d, (int) c->mv, (int) c->mu, CUFFT_C2C), error);
      self->have_plan2d = TRUE;
      self->h_pulses = g_new0 (EfCudaPfaPulse, chunk);
      self->b_mu = c->mu;
      self->b_mv = c->mv;
      self->b_nu = c->nu;
      self->b_nv = c->nv;
      self->b_nb = nb;
      self->have_buffers = TRUE;
    }
  self->nbins = nb;
  if (!upload_floats (self->d_kb, c->kb, c->kb_n, s, error)
      || !upload_floats (self->d_deap_u, c->deap_u, c->nu, s, error)
      || !upload_floats (self->d_deap_v, c->deap_v, c->nv, s, error))
    return FALSE;
  EF_CUDA_CHECK (cudaMemsetAsync (self->d_kgrid, 0, cells * sizeof (EfCf32), s), error);
  self->stats.grid_u = c->mu;
  self->stats.grid_v = c->mv;
  self->stats.lattice_u = c->nu;
  self->stats.lattice_v = c->nv;
  return TRUE;
}

/* The batched forward plan for `batch` profiles, from a two-entry cache (a job's blocks and its last,
 * shorter one). */
static gboolean
plan_for (EfCudaPfa *self, guint batch, cufftHandle *out, GError **error)
{
  Plan1d *slot = NULL;
  cufftResult r;

  for (int k = 0; k < 2; k++)
    if (self->plan1d[k].valid && self->plan1d[k].batch == batch)
      {
        self->plan1d[k].used = ++self->plan_clock;
        *out = self->plan1d[k].h;
        return TRUE;
      }
  for (int k = 0; k < 2 && slot == NULL; k++)
    if (!self->plan1d[k].valid)
      slot = &self->plan1d[k];
  if (slot == NULL)
    {
      slot = self->plan1d[0].used <= self->plan1d[1].used ? &self->plan1d[0] : &self->plan1d[1];
      cufftDestroy (slot->h);
      slot->valid = FALSE;
    }
  r = ef_cufft_plan_many (&slot->h, (int) self->nbins, CUFFT_C2C, (int) batch);
  if (r != CUFFT_SUCCESS)
    return ef_cufft_check_ ((int) r, "cufftPlanMany (profile spectra)", __FILE__, __LINE__, error);
  slot->valid = TRUE;
  slot->batch = batch;
  slot->used = ++self->plan_clock;
  *out = slot->h;
  return TRUE;
}

/* ---- timing ---- */

static gboolean
tic (EfCudaPfa *self, cudaStream_t s, GError **error)
{
  if (self->timing)
    EF_CUDA_CHECK (cudaEventRecord (self->ev_t0, s), error);
  return TRUE;
}

static gboolean
toc (EfCudaPfa *self, cudaStream_t s, double *acc, GError **error)
{
  float ms = 0;

  if (!self->timing)
    return TRUE;
  EF_CUDA_CHECK (cudaEventRecord (self->ev_t1, s), error);
  EF_CUDA_CHECK (cudaEventSynchronize (self->ev_t1), error);
  EF_CUDA_CHECK (cudaEventElapsedTime (&ms, self->ev_t0, self->ev_t1), error);
  *acc += ms;
  return TRUE;
}

/* ---- the former ---- */

static gboolean
make_events (EfCudaPfa *self, GError **error)
{
  cudaEvent_t ev[3] = { NULL, NULL, NULL };
  cudaError_t e = cudaEventCreateWithFlags (&ev[0], cudaEventDisableTiming);

  if (e == cudaSuccess)
    e = cudaEventCreate (&ev[1]);
  if (e == cudaSuccess)
    e = cudaEventCreate (&ev[2]);
  if (e != cudaSuccess)
    {
      for (int i = 0; i < 3; i++)
        if (ev[i])
          EF_CUDA_WARN (cudaEventDestroy (ev[i]));
      return ef_cuda_check_ ((int) e, "cudaEventCreate", __FILE__, __LINE__, error);
    }
  self->ev_done = ev[0];
  self->ev_t0 = ev[1];
  self->ev_t1 = ev[2];
  return TRUE;
}

EfCudaPfa *
ef_cuda_pfa_new (const EfGrid *grid, double bandwidth_hz, const EfPfaParams *params, GError **error)
{
  g_autofree char *why = NULL;
  EfCudaPfa *self;

  g_return_val_if_fail (grid != NULL && params != NULL, NULL);

  if (!ef_cuda_available (&why))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "%s", why);
      return NULL;
    }
  self = g_new0 (EfCudaPfa, 1);
  if (!ef_pfa_core_init (&self->core, grid, bandwidth_hz, params, error))
    {
      g_free (self);
      return NULL;
    }
  self->h_knab = g_new0 (float, (EF_PFA_KNQ + 1) * EF_PFA_TAPS_MAX);
  if (!ef_cuda_check_ ((int) cudaGetDevice (&self->device), "cudaGetDevice", __FILE__, __LINE__, error)
      || !make_events (self, error))
    {
      ef_cuda_pfa_free (self);
      return NULL;
    }
  self->have_events = TRUE;
  return self;
}

void
ef_cuda_pfa_free (EfCudaPfa *self)
{
  if (self == NULL)
    return;
  release_device (self);
  if (self->have_events)
    {
      EF_CUDA_WARN (cudaEventDestroy (self->ev_done));
      EF_CUDA_WARN (cudaEventDestroy (self->ev_t0));
      EF_CUDA_WARN (cudaEventDestroy (self->ev_t1));
    }
  ef_pfa_core_clear (&self->core);
  g_free (self->h_knab);
  g_free (self);
}

void
ef_cuda_pfa_clear (EfCudaPfa *self)
{
  g_return_if_fail (self != NULL);
  EF_CUDA_WARN (cudaEventSynchronize (self->ev_done));
  ef_pfa_core_unlayout (&self->core);
  g_array_set_size (self->core.pulses, 0);
  self->core.n_gridded = 0;
  self->broken = FALSE;
}

void
ef_cuda_pfa_check (EfCudaPfa *self, EfPfaReport *report)
{
  g_return_if_fail (self != NULL && report != NULL);

  memset (report, 0, sizeof *report);
  report->n_pulses = self->core.n_gridded;
  /* The very function the CPU former calls: the pulses' geometry on the host, nothing on the device. */
  ef_pfa_dof_report (&self->core, report);
}

void
ef_cuda_pfa_check_all (EfCudaPfa *const *formers, guint n, EfPfaReport *report)
{
  EfPfaCore all;
  g_autoptr (GArray) pulses = NULL;

  g_return_if_fail (formers != NULL && n > 0 && formers[0] != NULL && report != NULL);

  memset (report, 0, sizeof *report);
  /* The first former's parameters (the same grid and band on every device) over every former's pulses. */
  all = formers[0]->core;
  pulses = g_array_new (FALSE, FALSE, g_array_get_element_size (formers[0]->core.pulses));
  for (guint i = 0; i < n; i++)
    {
      g_array_append_vals (pulses, formers[i]->core.pulses->data, formers[i]->core.pulses->len);
      report->n_pulses += formers[i]->core.n_gridded;
    }
  all.pulses = pulses;
  ef_pfa_dof_report (&all, report);
}

void
ef_cuda_pfa_set_spread (EfCudaPfa *self, EfCudaPfaSpread spread)
{
  g_return_if_fail (self != NULL);
  self->spread = spread;
}

void
ef_cuda_pfa_set_timing (EfCudaPfa *self, gboolean timing)
{
  g_return_if_fail (self != NULL);
  self->timing = timing;
}

void
ef_cuda_pfa_get_stats (EfCudaPfa *self, EfCudaPfaStats *stats)
{
  g_return_if_fail (self != NULL && stats != NULL);
  *stats = self->stats;
}

void
ef_cuda_pfa_reset_stats (EfCudaPfa *self)
{
  g_return_if_fail (self != NULL);
  self->stats.fft_ms = self->stats.grid_ms = self->stats.fft2d_ms = self->stats.correct_ms = 0;
  self->stats.n_samples = 0;
}

typedef struct {
  double phi;
  guint  k;
} ByAngle;

static int
by_angle (const void *a, const void *b)
{
  const ByAngle *x = a, *y = b;

  return x->phi < y->phi ? -1 : (x->phi > y->phi ? 1 : (x->k < y->k ? -1 : (x->k > y->k)));
}

/* Transforms and grids m profiles (pulse index first in the core's list). *queued becomes TRUE once
 * anything that changes the grid has been queued. */
static gboolean
grid_chunk (EfCudaPfa *self, cudaStream_t s, const EfProfileMeta *meta, guint first, const void *d_prof,
            guint m, gboolean *queued, GError **error)
{
  const EfPfaCore *c = &self->core;
  const guint nb = self->nbins;
  g_autofree ByAngle *order = g_new (ByAngle, m);
  EfCudaPfaGridArgs args;
  cufftHandle plan;
  int qmax = 0;

  /* Records sorted by look angle: a block of the gridding kernel then covers a compact patch. */
  for (guint k = 0; k < m; k++)
    {
      order[k].phi = g_array_index (c->pulses, EfPfaPulseGeo, first + k).phi;
      order[k].k = k;
    }
  qsort (order, m, sizeof *order, by_angle);
  for (guint i = 0; i < m; i++)
    {
      const guint k = order[i].k;
      const EfProfileMeta *mt = &meta[k];
      const EfPfaPulseGeo *pg = &g_array_index (c->pulses, EfPfaPulseGeo, first + k);
      EfCudaPfaPulse *rec = &self->h_pulses[i];
      EfPfaSpectrum sp;
      double d, cyc;

      ef_pfa_core_spectrum (c, mt, pg, nb, &sp);
      /* ef_pfa_add's phase -(q dkq) r_start + kq (r0o - r0) - kq uo, kq = kr + q dkq, split into a
       * constant and a step per bin. */
      d = pg->r0o - mt->r0 - sp.uo;
      cyc = mt->kr * d / (2 * G_PI);
      rec->cyc0 = cyc - rint (cyc);
      rec->dcyc = sp.dkq * (d - mt->r_start) / (2 * G_PI);
      rec->fu0 = mt->kr * sp.uu / c->dku;
      rec->dfu = sp.dkq * sp.uu / c->dku;
      rec->fv0 = mt->kr * sp.uv / c->dkv;
      rec->dfv = sp.dkq * sp.uv / c->dkv;
      rec->qmax = (int) sp.qmax;
      rec->row = (int) k;
      qmax = MAX (qmax, rec->qmax);
      self->stats.n_samples += 2 * (guint64) sp.qmax + 1;
    }
  if (!plan_for (self, m, &plan, error))
    return FALSE;
  EF_CUDA_CHECK (cudaMemcpyAsync (self->d_pulses, self->h_pulses, m * sizeof (EfCudaPfaPulse),
                                  cudaMemcpyHostToDevice, s), error);
  EF_CUFFT_CHECK (cufftSetStream (plan, s), error);
  if (!tic (self, s, error))
    return FALSE;
  *queued = TRUE;
  /* Out of place: the caller's profiles are only read. */
  EF_CUFFT_CHECK (cufftExecC2C (plan, (cufftComplex *) d_prof, (cufftComplex *) self->d_spec, CUFFT_FORWARD),
                  error);
  if (!toc (self, s, &self->stats.fft_ms, error) || !tic (self, s, error))
    return FALSE;
  memset (&args, 0, sizeof args);
  args.spec = self->d_spec;
  args.nb = nb;
  args.pulses = self->d_pulses;
  args.count = m;
  args.qmax = qmax;
  args.kb = self->d_kb;
  args.kb_n = c->kb_n;
  args.width = c->params.kernel_width;
  args.mu = c->mu;
  args.mv = c->mv;
  args.inv_nb = (float) (1.0 / nb);
  args.tiled = self->spread == EF_CUDA_PFA_SPREAD_AUTO;
  args.kgrid = self->d_kgrid;
  if (!ef_cuda_pfa_grid_launch (s, &args, error))
    return FALSE;
  return toc (self, s, &self->stats.grid_ms, error);
}

gboolean
ef_cuda_pfa_add (EfCudaPfa *self, void *stream, const EfProfileMeta *meta, const void *d_profiles,
                 guint n_bins, guint count, GError **error)
{
  cudaStream_t s = (cudaStream_t) stream;
  EfPfaCore *c;
  cufftHandle plan;
  gboolean queued = FALSE, did_setup = FALSE;
  guint first;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (count == 0 || (meta != NULL && d_profiles != NULL), FALSE);

  if (count == 0)
    return TRUE;
  if (self->broken)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED,
                   "An earlier block failed half-way through the polar format grid; clear it first");
      return FALSE;
    }
  if (n_bins < 4 || n_bins > NBINS_MAX)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The polar format former takes profiles of 4 to %u bins (got %u)", NBINS_MAX, n_bins);
      return FALSE;
    }
  c = &self->core;
  first = c->pulses->len;
  ef_pfa_core_append (c, meta, count);
  if (!ef_cuda_check_ ((int) cudaStreamWaitEvent (s, self->ev_done, 0), "cudaStreamWaitEvent", __FILE__,
                       __LINE__, error))
    goto fail;
  if (!c->ready)
    {
      if (!setup (self, s, n_bins, error))
        {
          release_device (self);
          ef_pfa_core_unlayout (c);
          goto fail;
        }
      did_setup = TRUE;
    }
  if (n_bins != self->nbins)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The profiles changed length (%u bins, then %u)", self->nbins, n_bins);
      goto fail;
    }
  /* Both plans this call needs, before anything is queued: a plan that cannot be had leaves the grid as
   * it was. */
  if (!plan_for (self, MIN (count, self->chunk), &plan, error)
      || (count > self->chunk && count % self->chunk != 0
          && !plan_for (self, count % self->chunk, &plan, error)))
    goto fail;
  for (guint p0 = 0; p0 < count; p0 += self->chunk)
    {
      const guint m = MIN (self->chunk, count - p0);
      const char *prof = (const char *) d_profiles + (gsize) p0 * n_bins * sizeof (EfCf32);

      if (!grid_chunk (self, s, meta + p0, first + p0, prof, m, &queued, error))
        goto fail;
    }
  if (!ef_cuda_check_ ((int) cudaEventRecord (self->ev_done, s), "cudaEventRecord", __FILE__, __LINE__,
                       error))
    goto fail;
  c->n_gridded += count;
  return TRUE;

fail:
  g_array_set_size (c->pulses, first);
  if (queued)
    self->broken = TRUE;
  else if (did_setup)
    ef_pfa_core_unlayout (c);   /* the next first block chooses again (the buffers stay for reuse) */
  return FALSE;
}

static void
look_from (const EfPfaPulseGeo *g, EfCudaPfaLook *out)
{
  memcpy (out->tx, g->tx, sizeof out->tx);
  memcpy (out->rcv, g->rcv, sizeof out->rcv);
  out->r0o = g->r0o;
}

static gboolean
is_bistatic (const EfPfaPulseGeo *g)
{
  return g->tx[0] != g->rcv[0] || g->tx[1] != g->rcv[1] || g->tx[2] != g->rcv[2];
}

/* The correction kernel's arguments: ef_pfa_apparent's per-image constants, computed as it computes them. */
static void
correct_args (const EfCudaPfa *self, const EfPfaStencil *st, gboolean correct, EfCudaPfaCorrectArgs *a)
{
  const EfPfaCore *c = &self->core;
  const EfGrid *g = &c->grid;
  const double duh[3] = { st->b.uh[0] - st->a.uh[0], st->b.uh[1] - st->a.uh[1], st->b.uh[2] - st->a.uh[2] };

  memset (a, 0, sizeof *a);
  memcpy (a->origin, g->origin, sizeof a->origin);
  memcpy (a->u, g->u, sizeof a->u);
  memcpy (a->v, g->v, sizeof a->v);
  memcpy (a->ol, c->ol, sizeof a->ol);
  a->spacing = g->spacing;
  a->width = g->width;
  a->height = g->height;
  a->cc = c->cc;
  a->rc = c->rc;
  a->u0 = -(int) (c->nu / 2);
  a->v0 = -(int) (c->nv / 2);
  a->nu = c->nu;
  a->nv = c->nv;
  look_from (&st->a, &a->a);
  look_from (&st->m, &a->m);
  look_from (&st->b, &a->b);
  a->bistatic = is_bistatic (&st->a) || is_bistatic (&st->m) || is_bistatic (&st->b);
  a->correct = correct;
  a->kr_c = st->kr_c;
  a->kr_d = st->kr_hi - st->kr_lo;
  a->om = ef_dot3 (st->m.uh, c->ol);
  a->duh_ol = ef_dot3 (duh, c->ol);
  a->a11 = st->kr_c * ef_dot3 (duh, g->u);
  a->a12 = st->kr_c * ef_dot3 (duh, g->v);
  a->a21 = a->kr_d * ef_dot3 (st->m.uh, g->u);
  a->a22 = a->kr_d * ef_dot3 (st->m.uh, g->v);
  a->det = a->a11 * a->a22 - a->a12 * a->a21;
  a->solve = correct && st->cross_ok
             && fabs (a->det) > 1e-12 * (fabs (a->a11 * a->a22) + fabs (a->a12 * a->a21));
  a->ku_rest = st->kr_c * ef_dot3 (st->m.uh, g->u) - st->kcu;
  a->kv_rest = st->kr_c * ef_dot3 (st->m.uh, g->v) - st->kcv;
  a->taps = c->params.resample_taps;
  a->knab = self->d_knab;
  a->lat = self->d_lat;
  a->dist = self->d_dist;
}

gboolean
ef_cuda_pfa_form (EfCudaPfa *self, void *stream, void *d_out, EfPfaReport *report, GError **error)
{
  cudaStream_t s = (cudaStream_t) stream;
  const EfPfaCore *c;
  EfPfaReport rep = { 0 };
  EfPfaStencil st;
  EfCudaPfaLatticeArgs la;
  EfCudaPfaCorrectArgs ca;
  g_autofree EfPfaKnab *kn = NULL;
  gsize npx;
  gboolean correct;

  g_return_val_if_fail (self != NULL && d_out != NULL, FALSE);

  c = &self->core;
  if (self->broken)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED,
                   "An earlier block failed half-way through the polar format grid; clear it first");
      return FALSE;
    }
  npx = ef_grid_n_pixels (&c->grid);
  rep.n_pulses = c->n_gridded;
  EF_CUDA_CHECK (cudaStreamWaitEvent (s, self->ev_done, 0), error);
  if (!c->ready || c->n_gridded == 0 || !ef_pfa_stencil_make (c, &st))
    {
      EF_CUDA_CHECK (cudaMemsetAsync (d_out, 0, npx * sizeof (EfCf32), s), error);
      EF_CUDA_CHECK (cudaEventRecord (self->ev_done, s), error);
      if (report)
        *report = rep;
      return TRUE;
    }
  correct = c->params.correct_distortion && st.cross_ok;

  /* The lattice image: FFT of a copy of the grid, the kernel's taper divided out, the carrier removed. */
  if (!tic (self, s, error))
    return FALSE;
  EF_CUDA_CHECK (cudaMemcpyAsync (self->d_work, self->d_kgrid, (gsize) c->mu * c->mv * sizeof (EfCf32),
                                  cudaMemcpyDeviceToDevice, s), error);
  EF_CUFFT_CHECK (cufftSetStream (self->plan2d, s), error);
  EF_CUFFT_CHECK (cufftExecC2C (self->plan2d, (cufftComplex *) self->d_work, (cufftComplex *) self->d_work,
                                CUFFT_FORWARD), error);
  if (!toc (self, s, &self->stats.fft2d_ms, error) || !tic (self, s, error))
    return FALSE;
  memset (&la, 0, sizeof la);
  la.work = self->d_work;
  la.mu = c->mu;
  la.mv = c->mv;
  la.nu = c->nu;
  la.nv = c->nv;
  la.deap_u = self->d_deap_u;
  la.deap_v = self->d_deap_v;
  la.ccu = st.kcu * c->grid.spacing / (2 * G_PI);
  la.ccv = st.kcv * c->grid.spacing / (2 * G_PI);
  la.lat = self->d_lat;
  if (!ef_cuda_pfa_lattice_launch (s, &la, error))
    return FALSE;

  /* The resampling kernel, for the image's own oversampling; then every pixel read at its apparent place. */
  kn = g_new (EfPfaKnab, 1);
  ef_pfa_knab_fill (kn, c->params.resample_taps, ef_pfa_image_oversampling (c, &st));
  for (guint q = 0; q <= EF_PFA_KNQ; q++)
    for (guint k = 0; k < kn->taps; k++)
      self->h_knab[q * kn->taps + k] = (float) kn->w[q][k];
  EF_CUDA_CHECK (cudaMemcpyAsync (self->d_knab, self->h_knab, (EF_PFA_KNQ + 1) * kn->taps * sizeof (float),
                                  cudaMemcpyHostToDevice, s), error);
  EF_CUDA_CHECK (cudaMemsetAsync (self->d_dist, 0, sizeof (unsigned long long), s), error);
  correct_args (self, &st, correct, &ca);
  ca.out = d_out;
  if (!ef_cuda_pfa_correct_launch (s, &ca, error) || !toc (self, s, &self->stats.correct_ms, error))
    return FALSE;
  EF_CUDA_CHECK (cudaEventRecord (self->ev_done, s), error);

  if (report)
    {
      unsigned long long bits = 0;
      double dist;

      EF_CUDA_CHECK (cudaMemcpyAsync (&bits, self->d_dist, sizeof bits, cudaMemcpyDeviceToHost, s), error);
      EF_CUDA_CHECK (cudaStreamSynchronize (s), error);
      G_STATIC_ASSERT (sizeof bits == sizeof dist);
      memcpy (&dist, &bits, sizeof dist);
      ef_pfa_dof_report (c, &rep);
      rep.distortion_max_m = correct ? dist : 0;
      *report = rep;
    }
  return TRUE;
}
