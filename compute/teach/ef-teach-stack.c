/* ef-teach-stack.c: the aperture stack: block images formed once, kept as prefix sums over blocks and bands. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-teach"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-aperture.h"
#include "ef-backend.h"
#include "ef-bp.h"
#include "ef-error.h"
#include "ef-rangecomp.h"
#include "ef-teach.h"

/* Pulses read and range-compressed at a time while forming; bounds the profiles' memory. */
#define FORM_CHUNK 256u
/* Pixels a thread takes at a time when a window is read from the sums: 16 rows of a 2048-pixel-wide
 * region, 256 KiB of each complex float sum. Smaller regions than this stay on one thread. */
#define WINDOW_RUN ((gsize) 32768)

struct _EfTeachStack {
  EfDataset *ds;            /* owned reference */
  EfGrid     grid;
  guint      n_blocks;
  guint      block_pulses;
  guint      n_bands;
  gboolean   fp64;
  EfTeachFormOptions options;
  guint      n_threads;
  gsize      n_pixels;
  gpointer   sums;          /* owned: n_blocks x n_bands images, S(b, s) at (b * n_bands + s) * n_pixels */
  char      *formed_by;     /* owned */
  char      *note;          /* owned, may be NULL */
};

guint64
ef_teach_stack_bytes_for (guint64 n_blocks, guint n_bands, gsize n_pixels, gboolean fp64)
{
  guint64 esz = fp64 ? sizeof (EfCf64) : sizeof (EfCf32);
  guint64 n;

  if (n_blocks == 0 || n_bands == 0 || n_pixels == 0)
    return 0;
  if (n_blocks > G_MAXUINT64 / n_bands)
    return 0;
  n = n_blocks * n_bands;
  if (n > G_MAXUINT64 / n_pixels || n * n_pixels > G_MAXUINT64 / esz)
    return 0;
  return n * n_pixels * esz;
}

/* The fp64 reference sum, rows spread over threads (it is the scalar yardstick otherwise). */
static void
reference_rows (const EfGrid *grid, const EfProfiles *profiles, EfCf64 *acc)
{
  const guint band = 8;
  guint n_rows = (grid->height + band - 1) / band;

#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (guint b = 0; b < n_rows; b++)
    {
      EfRect r = { 0, b * band, grid->width, MIN (band, grid->height - b * band) };

      ef_bp_reference_rect (grid, profiles, &r, acc + (gsize) r.y * grid->width);
    }
}

/* The nearest profile bin: the lesson's counterpart to backprojection's linear interpolation, a plain
 * loop in double precision over rows (adds into acc32 or acc64). */
static void
nearest_rows (const EfGrid *grid, const EfProfiles *prof, EfCf32 *acc32, EfCf64 *acc64)
{
#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (guint row = 0; row < grid->height; row++)
    for (guint col = 0; col < grid->width; col++)
      {
        double x[3];
        EfCf64 v = 0;
        gsize at = (gsize) row * grid->width + col;

        ef_grid_pixel_position (grid, col, row, x);
        for (guint i = 0; i < prof->n_pulses; i++)
          {
            const EfProfileMeta *m = &prof->meta[i];
            double dt[3] = { m->tx[0] - x[0], m->tx[1] - x[1], m->tx[2] - x[2] };
            double dc[3] = { m->rcv[0] - x[0], m->rcv[1] - x[1], m->rcv[2] - x[2] };
            double dR = 0.5 * (sqrt (dt[0] * dt[0] + dt[1] * dt[1] + dt[2] * dt[2])
                               + sqrt (dc[0] * dc[0] + dc[1] * dc[1] + dc[2] * dc[2])) - m->r0;
            double b = floor ((dR - m->r_start) / m->dr + 0.5);
            gsize j;
            EfCf64 z;

            if (!(b >= 0 && b < prof->n_bins))
              continue;
            j = (gsize) i * prof->n_bins + (gsize) b;
            z = prof->data64 != NULL ? prof->data64[j] : (EfCf64) prof->data32[j];
            v += z * cexp (I * m->kr * dR);
          }
        if (acc64 != NULL)
          acc64[at] += v;
        else
          acc32[at] += (EfCf32) v;
      }
}

gboolean
ef_teach_form (EfDataset *ds, const EfGrid *grid, guint64 first, guint64 count, guint k0, guint nk,
               guint upsample, guint n_threads, EfCf32 *acc32, EfCf64 *acc64, GError **error)
{
  EfTeachFormOptions o = { EF_WINDOW_RECT, EF_TEACH_INTERP_LINEAR, upsample };

  return ef_teach_form_ex (ds, grid, first, count, k0, nk, &o, n_threads, acc32, acc64, error);
}

gboolean
ef_teach_form_ex (EfDataset *ds, const EfGrid *grid, guint64 first, guint64 count, guint k0, guint nk,
                  const EfTeachFormOptions *options, guint n_threads, EfCf32 *acc32, EfCf64 *acc64, GError **error)
{
  const EfDatasetInfo *info;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfRangeCompressor) rc = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  g_autofree EfCf32 *samples = NULL;
  gboolean fp64 = acc64 != NULL;
  EfTeachInterp interp = options != NULL ? options->interp : EF_TEACH_INTERP_LINEAR;
  guint ns;

  g_return_val_if_fail (ds != NULL && grid != NULL, FALSE);
  g_return_val_if_fail ((acc32 != NULL) != (acc64 != NULL), FALSE);

  info = &ds->info;
  ns = (guint) info->n_samples;
  if (first > info->n_pulses || count > info->n_pulses - first)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Pulses %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " are not all in a collection of %"
                   G_GUINT64_FORMAT, first, first + count, info->n_pulses);
      return FALSE;
    }
  if (info->domain != EF_DOMAIN_FX)
    {
      k0 = 0;
      nk = ns;
    }
  if (nk == 0 || k0 >= ns || nk > ns - k0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Samples %u..%u are not all in pulses of %u samples", k0, k0 + nk, ns);
      return FALSE;
    }
  if (count == 0)
    return TRUE;

  rp.upsample = options != NULL && options->upsample > 0 ? options->upsample : 16;
  if (options != NULL && options->window != EF_WINDOW_RECT)
    {
      /* The same window in range and, over the whole collection's look angles, in cross-range. */
      rp.window = options->window;
      rp.az_window = options->window;
      ef_aperture_init (&rp.aperture, ds->pulses, 0, info->n_pulses, 1);
    }
  rc = ef_range_compressor_new (info, &rp, fp64, error);
  if (rc == NULL)
    return FALSE;
  prof = ef_profiles_new ((guint) MIN (count, FORM_CHUNK), ef_range_compressor_n_bins (rc), fp64, error);
  if (prof == NULL)
    return FALSE;
  samples = g_try_new (EfCf32, (gsize) MIN (count, FORM_CHUNK) * ns);
  if (samples == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for %u pulses",
                   FORM_CHUNK);
      return FALSE;
    }
  for (guint64 done = 0; done < count;)
    {
      guint n = (guint) MIN (count - done, (guint64) FORM_CHUNK);

      if (!ef_dataset_read_block (ds, first + done, n, samples, error))
        return FALSE;
      if (nk < ns)
        for (guint i = 0; i < n; i++)
          {
            EfCf32 *s = samples + (gsize) i * ns;

            memset (s, 0, sizeof *s * k0);
            memset (s + k0 + nk, 0, sizeof *s * (ns - k0 - nk));
          }
      if (!ef_range_compress (rc, ds->pulses + first + done, samples, n, prof, NULL, error))
        return FALSE;
      if (interp == EF_TEACH_INTERP_NEAREST)
        nearest_rows (grid, prof, acc32, acc64);
      else if (fp64)
        reference_rows (grid, prof, acc64);
      else
        ef_bp_cpu_fp32 (grid, prof, acc32, n_threads);
      done += n;
    }
  return TRUE;
}

gboolean
ef_teach_stack_form (const EfTeachStack *stack, guint64 first, guint64 count, guint k0, guint nk, EfCf32 *acc32,
                     GError **error)
{
  g_return_val_if_fail (stack != NULL && acc32 != NULL, FALSE);
  return ef_teach_form_ex (stack->ds, &stack->grid, first, count, k0, nk, &stack->options, stack->n_threads, acc32,
                           NULL, error);
}

/* ef_teach_form's work through a backend: pulses [first, first + count), samples [k0, k0 + nk), into out. */
static gboolean
backend_form (EfBackend *be, EfDataset *ds, guint64 first, guint count, guint k0, guint nk, EfCf32 *samples,
              EfCf32 *out, GError **error)
{
  guint ns = (guint) ds->info.n_samples;
  EfRect all = { 0, 0, be->params.grid.width, be->params.grid.height };

  if (!be->ops->clear (be, error))
    return FALSE;
  for (guint done = 0; done < count;)
    {
      guint n = MIN (count - done, FORM_CHUNK);

      if (!ef_dataset_read_block (ds, first + done, n, samples, error))
        return FALSE;
      if (nk < ns)
        for (guint i = 0; i < n; i++)
          {
            EfCf32 *s = samples + (gsize) i * ns;

            memset (s, 0, sizeof *s * k0);
            memset (s + k0 + nk, 0, sizeof *s * (ns - k0 - nk));
          }
      if (!ef_backend_process_block (be, ds->pulses + first + done, samples, n, error))
        return FALSE;
      done += n;
    }
  return ef_backend_read_image (be, &all, out, error);
}

static EfBackend *
stack_backend (EfDataset *ds, const EfTeachStackParams *p, char **note, GError **error)
{
  EfBackendParams bp = { 0 };

  if (p->fp64)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "An aperture stack formed through a backend is kept in fp32");
      return NULL;
    }
  bp.grid = p->grid;
  /* The window ef_teach_form_ex applies (rectangular by default, so that a window of the stack is then
   * exactly a formation of its pulses and band). */
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.range.window = p->window;
  bp.range.az_window = p->window;
  if (p->window != EF_WINDOW_RECT)
    ef_aperture_init (&bp.range.aperture, ds->pulses, 0, ds->info.n_pulses, 1);
  bp.range.upsample = p->upsample > 0 ? p->upsample : 16;
  bp.precision = EF_PRECISION_FP32;
  bp.algo = EF_ALGO_BP;
  bp.block_size = FORM_CHUNK;
  bp.n_threads = p->n_threads;
  bp.device = -1;
  bp.n_devices = 1;
  return ef_backend_new (p->backend, &ds->info, &bp, note, error);
}

static gboolean
stack_check (const EfDataset *ds, const EfTeachStackParams *p, GError **error)
{
  if (ds->info.n_pulses == 0 || ds->info.n_pulses > G_MAXUINT)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "An aperture stack takes 1 to %u pulses, not %" G_GUINT64_FORMAT, G_MAXUINT, ds->info.n_pulses);
      return FALSE;
    }
  if (p->block_pulses == 0 || p->n_bands == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "An aperture stack needs at least one pulse a block and one sub-band");
      return FALSE;
    }
  if (p->n_bands > 1 && ds->info.domain != EF_DOMAIN_FX)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Sub-bands need frequency-domain (FX) samples; this collection holds %s data, so it takes "
                   "one band", ef_domain_to_string (ds->info.domain));
      return FALSE;
    }
  if (p->n_bands > ds->info.n_samples)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u sub-bands do not fit in %" G_GUINT64_FORMAT " samples", p->n_bands, ds->info.n_samples);
      return FALSE;
    }
  if ((guint) p->window > EF_WINDOW_TAYLOR || (guint) p->interp > EF_TEACH_INTERP_NEAREST)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Unknown window or interpolation");
      return FALSE;
    }
  if (p->use_backend && p->interp != EF_TEACH_INTERP_LINEAR)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Nearest-bin interpolation is the stack's own path: a formation backend interpolates linearly");
      return FALSE;
    }
  if (ef_grid_n_pixels (&p->grid) == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The region has no pixels");
      return FALSE;
    }
  return TRUE;
}

EfTeachStack *
ef_teach_stack_new (EfDataset *ds, const EfTeachStackParams *params, EfTeachProgress progress, gpointer user_data,
                    GCancellable *cancellable, GError **error)
{
  g_autoptr (EfTeachStack) st = NULL;
  g_autoptr (EfBackend) be = NULL;
  g_autofree EfCf32 *be_samples = NULL;
  g_autofree double *row = NULL;     /* running sum over sub-bands of one block, re/im interleaved */
  gpointer img = NULL;
  guint64 budget, bytes;
  guint np, bp;
  gsize esz;

  g_return_val_if_fail (ds != NULL && params != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!stack_check (ds, params, error))
    return NULL;

  st = g_new0 (EfTeachStack, 1);
  st->ds = ef_dataset_ref (ds);
  st->grid = params->grid;
  st->n_bands = params->n_bands;
  st->fp64 = params->fp64;
  st->options.window = params->window;
  st->options.interp = params->interp;
  st->options.upsample = params->upsample > 0 ? params->upsample : 16;
  st->n_threads = params->n_threads;
  st->n_pixels = ef_grid_n_pixels (&params->grid);
  esz = st->fp64 ? sizeof (EfCf64) : sizeof (EfCf32);
  np = (guint) ds->info.n_pulses;
  budget = params->budget_bytes > 0 ? params->budget_bytes : EF_TEACH_DEFAULT_BUDGET;

  /* Merge neighbouring blocks until the sums fit the budget. */
  bp = MIN (params->block_pulses, np);
  for (;;)
    {
      guint nb = (np + bp - 1) / bp;

      bytes = ef_teach_stack_bytes_for (nb, st->n_bands, st->n_pixels, st->fp64);
      if (bytes != 0 && bytes <= budget)
        break;
      if (nb == 1)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                       "The aperture stack of %u x %u pixels and %u sub-bands takes %.1f MiB even as one block, "
                       "more than its budget of %.1f MiB", st->grid.width, st->grid.height, st->n_bands,
                       bytes ? bytes / 1048576.0 : INFINITY, budget / 1048576.0);
          return NULL;
        }
      bp = bp > np / 2 ? np : bp * 2;
    }
  st->block_pulses = bp;
  st->n_blocks = (np + bp - 1) / bp;
  if (params->use_backend)
    {
      be = stack_backend (ds, params, &st->note, error);
      if (be == NULL)
        return NULL;
      st->formed_by = g_strdup (ef_backend_name (be));
      be_samples = g_try_new (EfCf32, (gsize) MIN (bp, FORM_CHUNK) * ds->info.n_samples);
      if (be_samples == NULL)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for %u pulses",
                       MIN (bp, FORM_CHUNK));
          return NULL;
        }
    }
  else
    st->formed_by = g_strdup ("cpu");
  st->sums = g_try_malloc (bytes);
  row = g_try_new (double, 2 * st->n_pixels);
  img = g_try_malloc ((gsize) st->n_pixels * esz);
  if (st->sums == NULL || row == NULL || img == NULL)
    {
      g_free (img);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for an aperture stack of %.1f MiB", bytes / 1048576.0);
      return NULL;
    }

  for (guint b = 0; b < st->n_blocks; b++)
    {
      guint64 first;
      guint count;

      if (g_cancellable_is_cancelled (cancellable))
        {
          g_free (img);
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED, "Forming the aperture stack was cancelled");
          return NULL;
        }
      ef_teach_stack_block_range (st, b, &first, &count);
      memset (row, 0, sizeof (double) * 2 * st->n_pixels);
      for (guint s = 0; s < st->n_bands; s++)
        {
          guint k0, nk;
          gsize at = ((gsize) b * st->n_bands + s) * st->n_pixels;

          ef_teach_stack_band_range (st, s, &k0, &nk);
          memset (img, 0, (gsize) st->n_pixels * esz);
          if (be != NULL ? !backend_form (be, ds, first, count, k0, nk, be_samples, img, error)
                         : !ef_teach_form_ex (ds, &st->grid, first, count, k0, nk, &st->options, params->n_threads,
                                              st->fp64 ? NULL : img, st->fp64 ? img : NULL, error))
            {
              g_free (img);
              return NULL;
            }
          /* S(b, s) = S(b - 1, s) + sum over s' <= s of this block's images. */
          if (st->fp64)
            {
              const EfCf64 *in = img;
              EfCf64 *out = (EfCf64 *) st->sums + at;
              const EfCf64 *prev = b > 0 ? out - (gsize) st->n_bands * st->n_pixels : NULL;

              for (gsize i = 0; i < st->n_pixels; i++)
                {
                  row[2 * i] += creal (in[i]);
                  row[2 * i + 1] += cimag (in[i]);
                  out[i] = (prev ? prev[i] : 0) + (row[2 * i] + I * row[2 * i + 1]);
                }
            }
          else
            {
              const EfCf32 *in = img;
              EfCf32 *out = (EfCf32 *) st->sums + at;
              const EfCf32 *prev = b > 0 ? out - (gsize) st->n_bands * st->n_pixels : NULL;

              for (gsize i = 0; i < st->n_pixels; i++)
                {
                  double re, im;

                  row[2 * i] += crealf (in[i]);
                  row[2 * i + 1] += cimagf (in[i]);
                  re = row[2 * i] + (prev ? crealf (prev[i]) : 0);
                  im = row[2 * i + 1] + (prev ? cimagf (prev[i]) : 0);
                  out[i] = (float) re + I * (float) im;
                }
            }
        }
      if (progress != NULL)
        progress (b + 1, st->n_blocks, user_data);
    }
  g_free (img);
  return g_steal_pointer (&st);
}

void
ef_teach_stack_free (EfTeachStack *stack)
{
  if (stack == NULL)
    return;
  g_clear_pointer (&stack->ds, ef_dataset_unref);
  g_free (stack->sums);
  g_free (stack->formed_by);
  g_free (stack->note);
  g_free (stack);
}

EfDataset *
ef_teach_stack_dataset (const EfTeachStack *stack)
{
  return stack->ds;
}

const EfGrid *
ef_teach_stack_grid (const EfTeachStack *stack)
{
  return &stack->grid;
}

guint
ef_teach_stack_n_blocks (const EfTeachStack *stack)
{
  return stack->n_blocks;
}

guint
ef_teach_stack_block_pulses (const EfTeachStack *stack)
{
  return stack->block_pulses;
}

guint
ef_teach_stack_n_bands (const EfTeachStack *stack)
{
  return stack->n_bands;
}

guint64
ef_teach_stack_bytes (const EfTeachStack *stack)
{
  return ef_teach_stack_bytes_for (stack->n_blocks, stack->n_bands, stack->n_pixels, stack->fp64);
}

gboolean
ef_teach_stack_is_fp64 (const EfTeachStack *stack)
{
  return stack->fp64;
}

const char *
ef_teach_stack_formed_by (const EfTeachStack *stack)
{
  return stack->formed_by;
}

const char *
ef_teach_stack_note (const EfTeachStack *stack)
{
  return stack->note;
}

void
ef_teach_stack_block_range (const EfTeachStack *stack, guint b, guint64 *first, guint *count)
{
  guint64 np = stack->ds->info.n_pulses;
  guint64 f = MIN ((guint64) b * stack->block_pulses, np);

  *first = f;
  *count = (guint) MIN ((guint64) stack->block_pulses, np - f);
}

void
ef_teach_stack_band_range (const EfTeachStack *stack, guint s, guint *first, guint *count)
{
  guint64 ns = stack->ds->info.n_samples;
  guint64 a = ns * s / stack->n_bands, z = ns * (s + 1) / stack->n_bands;

  *first = (guint) a;
  *count = (guint) (z - a);
}

static gboolean
window_check (const EfTeachStack *stack, guint b0, guint b1, guint s0, guint s1, GError **error)
{
  if (b0 > b1 || b1 >= stack->n_blocks || s0 > s1 || s1 >= stack->n_bands)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Blocks %u..%u and sub-bands %u..%u are not a window of a stack of %u blocks and %u sub-bands",
                   b0, b1, s0, s1, stack->n_blocks, stack->n_bands);
      return FALSE;
    }
  return TRUE;
}

/* The (up to four) sums a window adds, with their signs; NULL-free entries only. */
static guint
window_terms (const EfTeachStack *stack, guint b0, guint b1, guint s0, guint s1, gsize at[4], int sign[4])
{
  guint n = 0;
  gsize nb = stack->n_bands, px = stack->n_pixels;

  at[n] = ((gsize) b1 * nb + s1) * px, sign[n++] = 1;
  if (b0 > 0)
    at[n] = ((gsize) (b0 - 1) * nb + s1) * px, sign[n++] = -1;
  if (s0 > 0)
    at[n] = ((gsize) b1 * nb + s0 - 1) * px, sign[n++] = -1;
  if (b0 > 0 && s0 > 0)
    at[n] = ((gsize) (b0 - 1) * nb + s0 - 1) * px, sign[n++] = 1;
  return n;
}

gboolean
ef_teach_stack_window (const EfTeachStack *stack, guint b0, guint b1, guint s0, guint s1, EfCf32 *out,
                       GError **error)
{
  gsize at[4];
  int sign[4];
  guint n;

  g_return_val_if_fail (stack != NULL && out != NULL, FALSE);
  if (!window_check (stack, b0, b1, s0, s1, error))
    return FALSE;
  n = window_terms (stack, b0, b1, s0, s1, at, sign);
  /* A slider's move waits on this: it streams up to four sums of the region, so threads share the
   * pixels in runs long enough to keep each one's reads sequential. Each pixel is its own sum, so the
   * result does not depend on how many threads there are. */
#if HAVE_OPENMP
#pragma omp parallel for schedule(static) if (stack->n_pixels >= WINDOW_RUN)
#endif
  for (gsize r0 = 0; r0 < stack->n_pixels; r0 += WINDOW_RUN)
    {
      gsize r1 = MIN (r0 + WINDOW_RUN, stack->n_pixels);

      if (stack->fp64)
        {
          const EfCf64 *s = stack->sums;

          for (gsize i = r0; i < r1; i++)
            {
              EfCf64 v = 0;

              for (guint t = 0; t < n; t++)
                v += sign[t] * s[at[t] + i];
              out[i] = (EfCf32) v;
            }
        }
      else
        {
          const EfCf32 *s = stack->sums;

          /* The differences in double: the sums are larger than the window's image. */
          for (gsize i = r0; i < r1; i++)
            {
              EfCf64 v = s[at[0] + i];

              for (guint t = 1; t < n; t++)
                v += sign[t] * (EfCf64) s[at[t] + i];
              out[i] = (EfCf32) v;
            }
        }
    }
  return TRUE;
}

gboolean
ef_teach_stack_window64 (const EfTeachStack *stack, guint b0, guint b1, guint s0, guint s1, EfCf64 *out,
                         GError **error)
{
  gsize at[4];
  int sign[4];
  guint n;

  g_return_val_if_fail (stack != NULL && out != NULL, FALSE);
  if (!window_check (stack, b0, b1, s0, s1, error))
    return FALSE;
  n = window_terms (stack, b0, b1, s0, s1, at, sign);
#if HAVE_OPENMP
#pragma omp parallel for schedule(static) if (stack->n_pixels >= WINDOW_RUN)
#endif
  for (gsize r0 = 0; r0 < stack->n_pixels; r0 += WINDOW_RUN)
    for (gsize i = r0; i < MIN (r0 + WINDOW_RUN, stack->n_pixels); i++)
      {
        EfCf64 v = 0;

        for (guint t = 0; t < n; t++)
          v += sign[t] * (stack->fp64 ? ((const EfCf64 *) stack->sums)[at[t] + i]
                                      : (EfCf64) ((const EfCf32 *) stack->sums)[at[t] + i]);
        out[i] = v;
      }
  return TRUE;
}
