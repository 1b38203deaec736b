/* ef-mf.c: the exact matched filter of FX phase history on the CPU: weighting, geometry, rows over threads. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mf"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mf.h"
#include "ef-mf-cpu.h"

/* Pixels of a row summed together: the per-pixel phases stay in L1 beside the pulse's samples. */
#define RUN 256

gboolean
ef_mf_check_info (const EfDatasetInfo *info, GError **error)
{
  g_return_val_if_fail (info != NULL, FALSE);

  if (info->domain != EF_DOMAIN_FX)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The matched filter sums frequency samples (FX data); this dataset is %s: use bp",
                   ef_domain_to_string (info->domain));
      return FALSE;
    }
  if (info->n_samples == 0 || info->n_samples > (1u << 24))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The matched filter cannot sum pulses of %" G_GUINT64_FORMAT " samples", info->n_samples);
      return FALSE;
    }
  return TRUE;
}

void
ef_mf_window_fill (const EfRangeParams *range, guint n, double *w)
{
  g_return_if_fail (range != NULL && w != NULL);

  /* Range compression's window and scale (ef-rangecomp.c): the profile is (1 / K) IFFT(window * d). */
  ef_window_fill (range->window, range->taylor_nbar, range->taylor_sll_db, w, n);
  for (guint k = 0; k < n; k++)
    w[k] /= n;
}

void
ef_mf_pulse_fill (const EfPulse *pu, EfMfPulse *out)
{
  memcpy (out->tx, pu->tx, sizeof out->tx);
  memcpy (out->rcv, pu->rcv, sizeof out->rcv);
  out->r0 = pu->r0;
  out->f0 = pu->sc0;
  out->df = pu->scss;
}

void
ef_mf_block_free (EfMfBlock *block)
{
  if (block == NULL)
    return;
  g_free (block->meta);
  ef_aligned_free (block->re32);
  ef_aligned_free (block->im32);
  ef_aligned_free (block->re64);
  ef_aligned_free (block->im64);
  g_free (block->window);
  g_free (block);
}

EfMfBlock *
ef_mf_block_new (const EfDatasetInfo *info, const EfRangeParams *range, guint capacity, gboolean fp64,
                 GError **error)
{
  g_autoptr (EfMfBlock) b = NULL;
  gsize plane;

  g_return_val_if_fail (info != NULL && range != NULL, NULL);
  if (!ef_mf_check_info (info, error))
    return NULL;
  if (capacity == 0 || (guint64) capacity * info->n_samples > (G_GUINT64_CONSTANT (1) << 32))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Cannot hold %u pulses of %" G_GUINT64_FORMAT " samples", capacity, info->n_samples);
      return NULL;
    }
  b = g_new0 (EfMfBlock, 1);
  b->capacity = capacity;
  b->n_samples = (guint) info->n_samples;
  plane = (gsize) capacity * b->n_samples * (fp64 ? sizeof (double) : sizeof (float));
  b->meta = g_try_new0 (EfMfPulse, capacity);
  b->window = g_try_new (double, b->n_samples);
  if (fp64)
    {
      b->re64 = ef_aligned_alloc (plane);
      b->im64 = ef_aligned_alloc (plane);
    }
  else
    {
      b->re32 = ef_aligned_alloc (plane);
      b->im32 = ef_aligned_alloc (plane);
    }
  if (b->meta == NULL || b->window == NULL || (fp64 ? b->re64 == NULL || b->im64 == NULL
                                                    : b->re32 == NULL || b->im32 == NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for %u pulses of %u samples", capacity, b->n_samples);
      return NULL;
    }
  ef_mf_window_fill (range, b->n_samples, b->window);
  ef_az_weight_init (&b->az, range->az_window, range->az_taylor_nbar, range->az_taylor_sll_db, &range->aperture);
  return g_steal_pointer (&b);
}

gboolean
ef_mf_block_fill (EfMfBlock *b, const EfPulse *pulses, const EfCf32 *samples, guint count, guint64 *n_bad,
                  GError **error)
{
  guint64 bad = 0;
  const guint k = b->n_samples;

  g_return_val_if_fail (b != NULL && (count == 0 || (pulses != NULL && samples != NULL)), FALSE);
  if (count > b->capacity)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u pulses do not fit a matched-filter block of %u", count, b->capacity);
      return FALSE;
    }
  for (guint p = 0; p < count; p++)
    {
      const EfCf32 *in = samples + (gsize) p * k;
      /* Double first, as range compression takes it. */
      double wp = ef_az_weight_at (&b->az, &pulses[p]);

      ef_mf_pulse_fill (&pulses[p], &b->meta[p]);
      for (guint i = 0; i < k; i++)
        {
          float re = crealf (in[i]), im = cimagf (in[i]);
          gboolean fin = isfinite (re) && isfinite (im);
          double w = b->window[i] * wp;
          gsize at = (gsize) p * k + i;

          bad += !fin;
          if (b->re64 != NULL)
            {
              b->re64[at] = fin ? re * w : 0.0;
              b->im64[at] = fin ? im * w : 0.0;
            }
          else
            {
              b->re32[at] = fin ? (float) (re * w) : 0.0f;
              b->im32[at] = fin ? (float) (im * w) : 0.0f;
            }
        }
    }
  b->n_pulses = count;
  if (n_bad)
    *n_bad = bad;
  return TRUE;
}

static inline double
dist3 (const double a[3], double x, double y, double z)
{
  double dx = a[0] - x, dy = a[1] - y, dz = a[2] - z;

  return sqrt (dx * dx + dy * dy + dz * dz);
}

/* The phase of sample 0 and the step per sample, in cycles, of pulse m at n pixels. */
static inline void
pulse_phases (const EfMfPulse *m, const double *px, const double *py, const double *pz, guint n, double *c0,
              double *cs)
{
  const double k0 = 2.0 * m->f0 / EF_C, ks = 2.0 * m->df / EF_C;

  for (guint i = 0; i < n; i++)
    {
      double dr = 0.5 * (dist3 (m->tx, px[i], py[i], pz[i]) + dist3 (m->rcv, px[i], py[i], pz[i])) - m->r0;

      c0[i] = k0 * dr;
      cs[i] = ks * dr;
    }
}

/* The runs of the rectangle: RUN pixels of a row at most. */
static guint
n_runs_per_row (const EfRect *rect)
{
  return (rect->width + RUN - 1) / RUN;
}

static void
run_positions (const EfGrid *g, const EfRect *rect, guint item, guint *row, guint *col0, guint *n, double *px,
               double *py, double *pz)
{
  guint per_row = n_runs_per_row (rect);

  *row = item / per_row;
  *col0 = (item % per_row) * RUN;
  *n = MIN (RUN, rect->width - *col0);
  for (guint i = 0; i < *n; i++)
    {
      double x[3];

      ef_grid_pixel_position (g, rect->x + *col0 + i, rect->y + *row, x);
      px[i] = x[0];
      py[i] = x[1];
      pz[i] = x[2];
    }
}

void
ef_mf_form_f32 (const EfGrid *grid, const EfMfBlock *block, const EfRect *rect, EfCf32 *acc, guint n_threads)
{
  guint n_items;

  g_return_if_fail (grid != NULL && block != NULL && rect != NULL && acc != NULL);
  g_return_if_fail (block->re32 != NULL);
  if (rect->width == 0 || rect->height == 0 || block->n_pulses == 0)
    return;
  n_items = rect->height * n_runs_per_row (rect);

#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(ef_thread_count (n_threads))
#else
  (void) n_threads;
#endif
  for (guint item = 0; item < n_items; item++)
    {
      double px[RUN], py[RUN], pz[RUN], c0[RUN], cs[RUN];
      float ar[RUN], ai[RUN];
      guint row, col0, n;
      EfCf32 *out;

      run_positions (grid, rect, item, &row, &col0, &n, px, py, pz);
      memset (ar, 0, n * sizeof *ar);
      memset (ai, 0, n * sizeof *ai);
      for (guint p = 0; p < block->n_pulses; p++)
        {
          gsize at = (gsize) p * block->n_samples;

          pulse_phases (&block->meta[p], px, py, pz, n, c0, cs);
          ef_mf_cpu_pulse_f32 (block->re32 + at, block->im32 + at, block->n_samples, c0, cs, n, ar, ai);
        }
      out = acc + (gsize) row * rect->width + col0;
      for (guint i = 0; i < n; i++)
        out[i] += ar[i] + ai[i] * I;
    }
}

void
ef_mf_form_f64 (const EfGrid *grid, const EfMfBlock *block, const EfRect *rect, EfCf64 *acc, guint n_threads)
{
  guint n_items;

  g_return_if_fail (grid != NULL && block != NULL && rect != NULL && acc != NULL);
  g_return_if_fail (block->re64 != NULL);
  if (rect->width == 0 || rect->height == 0 || block->n_pulses == 0)
    return;
  n_items = rect->height * n_runs_per_row (rect);

#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(ef_thread_count (n_threads))
#else
  (void) n_threads;
#endif
  for (guint item = 0; item < n_items; item++)
    {
      double px[RUN], py[RUN], pz[RUN], c0[RUN], cs[RUN], ar[RUN], ai[RUN];
      guint row, col0, n;
      EfCf64 *out;

      run_positions (grid, rect, item, &row, &col0, &n, px, py, pz);
      memset (ar, 0, n * sizeof *ar);
      memset (ai, 0, n * sizeof *ai);
      for (guint p = 0; p < block->n_pulses; p++)
        {
          gsize at = (gsize) p * block->n_samples;

          pulse_phases (&block->meta[p], px, py, pz, n, c0, cs);
          ef_mf_cpu_pulse_f64 (block->re64 + at, block->im64 + at, block->n_samples, c0, cs, n, ar, ai);
        }
      out = acc + (gsize) row * rect->width + col0;
      for (guint i = 0; i < n; i++)
        out[i] += ar[i] + ai[i] * I;
    }
}
