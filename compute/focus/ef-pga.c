/* ef-pga.c: the phase gradient autofocus (Wahl et al. 1994), read per pulse by projecting scatterers' patches on each pulse. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-focus-private.h"
#include "ef-metrics.h"

#if HAVE_OPENMP
#include <omp.h>
#endif

/* The window never shrinks below this many cross-range resolution cells: each cell of the window is one
 * degree of freedom of the phase error that the lines' spectra can tell, and a window of a few cells
 * would see only the error's lowest orders. */
#define PGA_MIN_WINDOW_CELLS 12.0
/* The share of the lines' summed intensity that the window holds at least: first 99%, the classical
 * PGA's schedule, shrinking with the blur, which keeps clutter out; then, once that has converged,
 * nearly all of it. An error that changes at every pulse spreads a faint blur over the whole ambiguity
 * extent, and what the window leaves out, a share eps of the energy, stays as about sqrt(eps) rad of
 * residual: on a 1.5 rad random walk, 0.11 rad at 0.99, 0.031 at 0.999, 0.015 at 0.99999 (64 m grid,
 * point targets). The wide iterations are kept only while they lower the entropy: over clutter a wide
 * window's estimate of the high orders is the clutter's, and the image says so. */
#define PGA_WINDOW_ENERGY 0.99
#define PGA_WIDE_WINDOW_ENERGY 0.99999
/* Range lines whose brightest pixel is this far below the brightest line's take no part: a line of
 * clutter alone adds only noise to the gradient. */
#define PGA_LINE_THRESHOLD 0.01
/* Patches projected at a time: their samples, 16 bytes a pulse each, are what PGA holds besides images. */
#define PGA_PATCH_CHUNK 16u

/* Pulses in order of spatial frequency, lines in order of brightness. */
typedef struct {
  double key;
  guint  index;
} SortKey;

static int
cmp_key (gconstpointer a, gconstpointer b)
{
  double ka = ((const SortKey *) a)->key, kb = ((const SortKey *) b)->key;

  return (ka > kb) - (ka < kb);
}

/* The width about the centre where the lines' summed intensity stays within 10 dB of its peak. */
static guint
width_10db (const double *profile, guint w)
{
  guint c = w / 2, lo = c, hi = c;
  double thr = profile[c] * 0.1;

  while (lo > 0 && profile[lo - 1] >= thr)
    lo--;
  while (hi + 1 < w && profile[hi + 1] >= thr)
    hi++;
  return hi - lo + 1;
}

/* The narrowest width about the centre that holds the share `frac` of the lines' summed intensity. */
static guint
width_energy (const double *profile, guint w, double frac)
{
  guint c = w / 2, half = 0;
  double total = 0, acc = profile[c];

  for (guint k = 0; k < w; k++)
    total += profile[k];
  while (acc < frac * total && half < w / 2)
    {
      half++;
      acc += profile[c - half];
      if (c + half < w)
        acc += profile[c + half];
    }
  return MIN (2 * half + 1, w);
}

/* The entropy of the region asked for, the grid's middle c->asked_cols columns, and in *share the region's
 * share of the grid's energy: an iteration is kept only if it lowers the grid's entropy and does not
 * raise the region's by more than kept_step allows. PGA's grid is wider to read each pulse apart, and
 * over a wide strip of a real scene a correction can sharpen the strip and blur the region (spatially
 * varying errors, range errors: on the Gotcha pass's calibration target the region formed after went
 * from entropy 4.237 to 4.274 without this test, to 4.220 with it). */
static double
region_entropy (const EfFocusCtx *c, const EfCf32 *img, double *share)
{
  guint w = c->grid.width, cols = MIN (MAX (c->asked_cols, 1u), w), x0 = (w - cols) / 2;
  double total = 0, acc = 0, all = 0;

  /* Every pixel's energy for the share, the region's also for its entropy. */
  for (guint row = 0; row < c->grid.height; row++)
    for (guint col = 0; col < w; col++)
      {
        EfCf32 v = img[(gsize) row * w + col];
        double p = (double) crealf (v) * crealf (v) + (double) cimagf (v) * cimagf (v);

        all += p;
        if (col < x0 || col >= x0 + cols)
          continue;
        total += p;
        if (p > 0)
          acc += p * log (p);
      }
  *share = all > 0 ? total / all : 1.0;
  return total > 0 ? log (total) - acc / total : 0.0;
}

/* Whether a step is kept: it lowers the grid's entropy, and the region's rise, weighed by the region's
 * share of the image's energy (about its weight in the grid's entropy), undoes no more than a tenth of
 * that fall. A wide step that focuses point targets across the grid can leave the region a hair less
 * sharp (4.6754 -> 4.6813 against the grid's 5.226 -> 4.732 on a 3 rad walk); over the Gotcha strip
 * (the region 45% of the energy) the region's rise was the larger. Unweighed, a region that holds little
 * of the energy stopped the estimate early: on `bench --autofocus pga --sizes 4096` the region is 3% of
 * the grid's energy, and steps that took the grid's entropy from 6.68 to 6.54 raised the region's from
 * 4.78 to 4.85 (its few pixels' sidelobes), leaving 0.234 rad of a 2 rad quadratic where 0.021 was
 * reachable. */
static gboolean
kept_step (double entropy, double trial_entropy, double region, double trial_region, double share)
{
  return trial_entropy < entropy && share * (trial_region - region) <= 0.1 * (entropy - trial_entropy);
}

/* Where the projections run: the host, or an accelerator's projector (the image and the geometry in its
 * memory). */
typedef struct {
  const EfFocusSweepProvider *dev;  /* NULL: the host */
  EfPgaProjector             *proj; /* owned, with dev */
  guint                       n_threads;
} Projections;

/* The patches' spectra of img (PGA_PATCH_CHUNK patches' samples in g at a time) and their neighbouring
 * pulses' products summed into dsum; FALSE with error when cancelled or the device fails. */
static gboolean
project_patches (EfFocusCtx *c, Projections *pr, const EfCf32 *img, const EfPgaPatch *patch, guint n_patch,
                 guint win, guint half_h, EfCf64 *g, EfCf64 *dsum, const SortKey *order, GError **error)
{
  guint64 n = c->n;

  if (pr->dev != NULL && !pr->dev->pga_set_image (pr->proj, img, error))
    return FALSE;
  /* The phase-difference estimator: sum over patches of conj(G(p)) G(p + 1), p in frequency order. */
  memset (dsum, 0, n * sizeof (EfCf64));
  for (guint j0 = 0; j0 < n_patch; j0 += PGA_PATCH_CHUNK)
    {
      guint nj = MIN (PGA_PATCH_CHUNK, n_patch - j0);

      if (pr->dev != NULL)
        {
          if (!pr->dev->pga_spectra (pr->proj, patch + j0, nj, win, half_h, g, error))
            return FALSE;
        }
      else
        ef_pga_patch_spectra (c, img, patch + j0, nj, win, half_h, FALSE, pr->n_threads, g);
      if (g_cancellable_is_cancelled (c->cancellable))
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED, "Autofocus cancelled");
          return FALSE;
        }
      for (guint j = 0; j < nj; j++)
        {
          const EfCf64 *gj = g + (gsize) j * n;

          for (guint64 q = 0; q + 1 < n; q++)
            dsum[q] += conj (gj[order[q].index]) * gj[order[q + 1].index];
        }
    }
  return TRUE;
}

static gboolean
pga_run (EfFocusCtx *c, const EfFocusParams *p, Projections *pr, double *phase, EfFocusResult *r, GError **error)
{
  guint w = c->grid.width, h = c->grid.height;
  guint64 n = c->n;
  gsize npix = (gsize) w * h;
  double s = c->grid.spacing;
  guint win = w, win_min;
  gboolean wide = FALSE;
  guint max_iter = p->max_iter > 0 ? p->max_iter : 20;
  double tol = p->tol_rad > 0 ? p->tol_rad : 0.005;
  g_autofree EfCf32 *img = NULL, *trial = NULL;
  double entropy, region, share = 1, trial_share = 1;
  g_autofree EfCf64 *g = NULL, *dsum = NULL;
  g_autofree double *profile = NULL, *e = NULL, *line_peak = NULL;
  g_autofree guint *line_col = NULL, *by_level = NULL;
  g_autofree EfPgaPatch *patch = NULL;
  g_autofree SortKey *order = NULL, *levels = NULL;

  if (n > G_MAXSIZE / sizeof (EfCf64) / PGA_PATCH_CHUNK)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "PGA: too many pulses");
      return FALSE;
    }
  img = g_try_new (EfCf32, npix);
  trial = g_try_new (EfCf32, npix);
  g = g_try_new (EfCf64, (gsize) n * PGA_PATCH_CHUNK);
  if (img == NULL || trial == NULL || g == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "PGA: out of memory");
      return FALSE;
    }
  dsum = g_new (EfCf64, n);
  profile = g_new (double, w);
  line_peak = g_new (double, h);
  line_col = g_new (guint, h);
  by_level = g_new (guint, h);
  levels = g_new (SortKey, h);
  patch = g_new (EfPgaPatch, h);
  e = g_new (double, n);
  order = g_new (SortKey, n);
  for (guint64 i = 0; i < n; i++)
    order[i] = (SortKey) { c->kappa[i], (guint) i };
  qsort (order, n, sizeof *order, cmp_key);
  win_min = (guint) MIN ((double) w, ceil (PGA_MIN_WINDOW_CELLS * c->res_cross / s));

  /* An iteration's correction is kept only when the image it forms has a lower entropy than the last
   * one kept (and the region asked for no higher one). Over distributed clutter an estimate can be noise, and iterating would pile the noise up;
   * a rejected step halves the window (less clutter in it) and tries again, down to the least window. */
  if (!ef_focus_form (c, c->first, n, phase, img, error))
    return FALSE;
  entropy = ef_image_entropy (img, npix);
  region = region_entropy (c, img, &share);
  for (guint it = 0; it < max_iter + MAX (1u, max_iter / 4); it++)
    {
      guint w10, n_patch = 0, half_h;
      double ss = 0, trial_entropy, trial_region, top = 0;

      /* The classical stage has max_iter iterations at most, the wide one a quarter as many more. */
      if (!wide && it >= max_iter)
        {
          wide = TRUE;
          win = w;
        }

      /* Each range line's brightest pixel; the lines' intensities, each centred (circularly) on it,
       * summed over the prominent lines, give the blur's profile. */
      memset (profile, 0, w * sizeof (double));
      for (guint row = 0; row < h; row++)
        {
          const EfCf32 *line = img + (gsize) row * w;
          guint peak = 0;
          float best = -1;

          for (guint k = 0; k < w; k++)
            {
              float a = crealf (line[k]) * crealf (line[k]) + cimagf (line[k]) * cimagf (line[k]);
              if (a > best)
                {
                  best = a;
                  peak = k;
                }
            }
          line_peak[row] = best;
          line_col[row] = peak;
          top = MAX (top, best);
        }
      for (guint row = 0; row < h; row++)
        levels[row] = (SortKey) { -line_peak[row], row };
      qsort (levels, h, sizeof *levels, cmp_key);
      for (guint row = 0; row < h; row++)
        by_level[row] = levels[row].index;
      for (guint a = 0; a < h; a++)
        {
          guint row = by_level[a];
          const EfCf32 *line = img + (gsize) row * w;

          if (line_peak[row] < PGA_LINE_THRESHOLD * top && a >= MIN (8u, h))
            break;
          for (guint k = 0; k < w; k++)
            {
              EfCf32 v = line[(k + line_col[row] + w - w / 2) % w];
              profile[k] += crealf (v) * crealf (v) + cimagf (v) * cimagf (v);
            }
        }
      /* The window: twice the 10 dB width of the blur (Wahl et al.), widened to hold nearly all of the
       * blur's energy (an error of high order spreads it far below 10 dB, where the narrow window would
       * never see it), never wider than the last one. */
      w10 = MAX (2 * width_10db (profile, w),
                 width_energy (profile, w, wide ? PGA_WIDE_WINDOW_ENERGY : PGA_WINDOW_ENERGY));
      win = CLAMP (w10, win_min, win);
      /* The patches. First, as the classical PGA uses range lines: each prominent line alone, centred
       * on its own brightest pixel (in a busy scene distinct lines hold distinct mixtures of scatterers,
       * and the sum over many averages the mixtures out: on 300 targets in 256 pulses' region, 0.070 rad
       * left of a 2 rad quadratic, against 0.56 with one tall patch a scatterer and 0.16 before; patches
       * two range resolutions tall do as well, 0.067, in 15 times the time). Then, with the wide
       * windows, one patch a scatterer (brightest first, each patch's rows its own: a line inside a
       * brighter one's patch holds that scatterer, or its sidelobes), tall enough to hold the band of
       * equal range of the aperture's edge pulses across half the window, which is where a single
       * pulse's phase is read. */
      half_h = wide ? (guint) ceil ((2 * c->res_range + 0.5 * win * s * tan (0.5 * c->dtheta)) / s) : 0;
      half_h = MIN (half_h, h / 2);
      for (guint a = 0; a < h; a++)
        {
          guint row = by_level[a];
          gboolean taken = FALSE;

          if (line_peak[row] < PGA_LINE_THRESHOLD * top && n_patch >= MIN (8u, h))
            break;
          if (!(line_peak[row] > 0))
            break;
          for (guint j = 0; wide && j < n_patch && !taken; j++)
            taken = (row > patch[j].row ? row - patch[j].row : patch[j].row - row) <= half_h;
          if (!taken)
            patch[n_patch++] = (EfPgaPatch) { row, line_col[row] };
        }
      if (!project_patches (c, pr, img, patch, n_patch, win, half_h, g, dsum, order, error))
        return FALSE;
      e[order[0].index] = 0;
      for (guint64 q = 0; q + 1 < n; q++)
        e[order[q + 1].index] = e[order[q].index] + carg (dsum[q]);
      ef_focus_detrend (c->kappa, e, n);
      r->iterations = it + 1;
      /* A wide step that does not sharpen is tried again at half its size before the stage ends: on
       * large errors the full step can overshoot where half of it still gains. */
      for (guint half = 0;; half++)
        {
          ss = 0;
          for (guint64 i = 0; i < n; i++)
            {
              phase[c->first + i] += e[i];
              ss += e[i] * e[i];
            }
          if (!ef_focus_form (c, c->first, n, phase, trial, error))
            return FALSE;
          trial_entropy = ef_image_entropy (trial, npix);
          trial_region = region_entropy (c, trial, &trial_share);
          g_debug ("PGA iteration %u%s%s: %u patches of %u x %u px (grid %u x %u), RMS change %.4g rad, entropy %.5f "
                   "-> %.5f (region %.5f -> %.5f, %.3f of the energy)", it + 1, wide ? " (wide)" : "", half > 0 ? " (half step)" : "",
                   n_patch, win, 2 * half_h + 1, w, h, sqrt (ss / (double) n), entropy, trial_entropy, region,
                   trial_region, share);
          if (kept_step (entropy, trial_entropy, region, trial_region, share) || !wide || half > 0)
            break;
          for (guint64 i = 0; i < n; i++)
            {
              phase[c->first + i] -= e[i];
              e[i] *= 0.5;
            }
        }
      if (!kept_step (entropy, trial_entropy, region, trial_region, share))
        {
          for (guint64 i = 0; i < n; i++)
            phase[c->first + i] -= e[i];
          if (wide)
            break;
          if (win <= win_min)
            {
              wide = TRUE;
              win = w;
              continue;
            }
          win = MAX (win / 2, win_min);
          continue;
        }
      memcpy (img, trial, npix * sizeof (EfCf32));
      entropy = trial_entropy;
      region = trial_region;
      share = trial_share;
      r->last_change_rad = sqrt (ss / (double) n);
      if (r->last_change_rad < tol)
        {
          if (wide)
            break;
          /* Converged at this window: a narrower one holds less clutter, down to the least; then the
           * wide windows. */
          if (win > win_min)
            win = MAX (win / 2, win_min);
          else
            {
              wide = TRUE;
              win = w;
            }
        }
    }
  return TRUE;
}

gboolean
ef_focus_pga (EfFocusCtx *c, const EfFocusParams *p, double *phase, EfFocusResult *r, GError **error)
{
  const EfRunInfo *run = ef_backend_get_run_info (c->be);
  Projections pr = { .dev = p->host_sums ? NULL : ef_focus_sweep_get (run->backend), .n_threads = 1 };
  gboolean ok;

#if HAVE_OPENMP
  pr.n_threads = p->n_threads > 0 ? p->n_threads : (guint) omp_get_max_threads ();
#endif
  if (pr.dev != NULL && pr.dev->pga_create != NULL)
    {
      g_autoptr (GError) local = NULL;
      g_autofree double *table = NULL;
      EfPgaGeometry geo;

      ef_pga_geometry_init (c, &geo, &table);
      pr.proj = pr.dev->pga_create (c->be, &geo, &local);
      if (pr.proj == NULL)
        g_debug ("PGA's projections on the host: %s", local->message);
    }
  if (pr.proj == NULL)
    pr.dev = NULL;
  g_free (r->sums_backend);
  r->sums_backend = g_strdup (pr.dev != NULL ? pr.dev->backend : "cpu");
  ok = pga_run (c, p, &pr, phase, r, error);
  if (pr.proj != NULL)
    pr.dev->pga_free (pr.proj);
  return ok;
}
