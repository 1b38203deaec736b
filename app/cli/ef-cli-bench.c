/* ef-cli-bench.c: `echoform-cli bench`: times the backprojection kernels and checks them against float64. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-backend.h"
#include "ef-bp.h"
#include "ef-cli-private.h"
#include "ef-error.h"
#include "ef-ffbp.h"
#include "ef-metrics.h"
#include "ef-rangecomp.h"

/* The float64 reference is scalar and single-threaded; past this many pixel-pulses it is computed
 * on a centred sub-rectangle only, so that a benchmark of a large image still ends today. */
#define REF_BUDGET (G_GUINT64_CONSTANT (1) << 26)
#define DEFAULT_TARGETS 300

typedef struct {
  guint       size, width, height, pulses, samples;
  EfPrecision precision;
  EfAlgo      algo;
  double      x_bp;        /* exact BP's time over this row's, both through the backend; NAN if not compared */
  char       *backend;     /* owned */
  guint       threads;     /* 0: not a CPU count (a device) */
  double      seconds;
  double      bp_per_s;
  double      ser_db;      /* vs the float64 reference over ref_rect; +inf for the reference itself */
  EfRect      ref_rect;
  gboolean    ref_full;
  char       *note;        /* owned, may be NULL */
} BenchRow;

static void
bench_row_clear (gpointer data)
{
  BenchRow *row = data;

  g_free (row->backend);
  g_free (row->note);
}

typedef struct {
  guint         pulses, samples, n_targets, threads, upsample, block, repeat, n_devices;
  guint64       seed;
  gboolean      spaceborne;
  EfBackendKind backend_kind;
  GArray       *precisions;   /* EfPrecision */
  GArray       *algos;        /* EfAlgo, BP first; NULL: the kernel rows only */
  gboolean      tty;
} BenchOptions;

static double
now_s (void)
{
  return (double) g_get_monotonic_time () * 1e-6;
}

static guint
cpu_threads (guint n)
{
  return n > 0 ? n : g_get_num_processors ();
}

/* SER of a full-size float image against the reference over ref_rect. */
static double
ser_on_rect (const EfCf32 *image, guint width, const EfRect *rect, const EfCf64 *ref)
{
  g_autofree EfCf32 *sub = g_new (EfCf32, (gsize) rect->width * rect->height);

  for (guint r = 0; r < rect->height; r++)
    memcpy (sub + (gsize) r * rect->width, image + (gsize) (rect->y + r) * width + rect->x,
            rect->width * sizeof (EfCf32));
  return ef_ser_db_f32_f64 (sub, ref, (gsize) rect->width * rect->height);
}

static void
progress (const BenchOptions *o, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
progress (const BenchOptions *o, const char *format, ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  if (!o->tty)
    return;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "\r%s\033[K", msg);
  fflush (stderr);
}

/* Times a whole backend (range compression, transfers and image formation by algo) in blocks of block
 * pulses, for CUDA, for what the CPU has no direct kernel for, and for comparing algorithms. Returns
 * FALSE with error if the backend cannot be made or fails. */
static gboolean
time_backend (EfDataset *ds, const EfGrid *grid, const BenchOptions *o, EfBackendKind kind, EfPrecision precision,
              EfAlgo algo, guint block, EfCf32 *out, double *seconds, char **name, char **note, GError **error)
{
  g_autoptr(EfBackend) backend = NULL;
  const EfCf32 *samples = ef_dataset_memory_samples (ds);
  EfBackendParams bp;
  EfRect all = { 0, 0, grid->width, grid->height };
  guint64 ns = ds->info.n_samples;
  double best = INFINITY;

  memset (&bp, 0, sizeof bp);
  bp.grid = *grid;
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  if (o->upsample > 0)
    bp.range.upsample = o->upsample;
  bp.precision = precision;
  bp.algo = algo;
  bp.block_size = block;
  bp.n_threads = o->threads;
  bp.device = -1;
  bp.n_devices = o->n_devices;

  backend = ef_backend_new (kind, &ds->info, &bp, note, error);
  if (backend == NULL)
    return FALSE;
  *name = g_strdup (ef_backend_name (backend));
  /* A CUDA request may fall back to the CPU; a CUDA row must time CUDA or say it could not. */
  if (kind == EF_BACKEND_CUDA && g_strcmp0 (*name, "cuda") != 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "%s",
                   *note != NULL ? *note : "no CUDA device");
      return FALSE;
    }

  /* One block first, so that plan creation and device start-up stay out of the timing. */
  if (!ef_backend_process_block (backend, ds->pulses, samples, MIN (block, (guint) ds->info.n_pulses), error)
      || !ef_backend_read_image (backend, &all, out, error))
    return FALSE;

  for (guint rep = 0; rep < o->repeat; rep++)
    {
      double t0;

      if (backend->ops->clear != NULL && !backend->ops->clear (backend, error))
        return FALSE;
      t0 = now_s ();
      for (guint64 first = 0; first < ds->info.n_pulses; first += block)
        {
          guint count = (guint) MIN ((guint64) block, ds->info.n_pulses - first);

          if (!ef_backend_process_block (backend, ds->pulses + first, samples + first * ns, count, error))
            return FALSE;
        }
      /* Reading the image back waits for an asynchronous device to finish. */
      if (!ef_backend_read_image (backend, &all, out, error))
        return FALSE;
      best = MIN (best, now_s () - t0);
    }
  *seconds = best;
  return TRUE;
}

/* What the CPU backend's FFBP or FBP former does with the first block of profiles (its plan may give a
 * block to exact backprojection when that is cheaper), so that a row says what actually ran. Owned. */
static char *
fast_plan_note (const EfGrid *grid, double band, EfAlgo algo, const EfProfiles *all, guint block, guint threads)
{
  g_autoptr (EfFfbp) former = NULL;
  g_autofree EfCf32 *scratch = NULL;
  EfProfiles view = *all;
  EfFfbpParams fp;
  EfFfbpStats st;

  if (algo == EF_ALGO_FBP)
    ef_fbp_params_init (&fp);
  else
    ef_ffbp_params_init (&fp);
  fp.n_threads = threads;
  former = ef_ffbp_new (grid, band, &fp, NULL);
  scratch = ef_aligned_alloc0 (ef_grid_n_pixels (grid) * sizeof (EfCf32));
  view.n_pulses = MIN (block, all->n_pulses);
  memset (&st, 0, sizeof st);
  if (former == NULL || scratch == NULL || !ef_ffbp_process (former, &view, NULL, scratch, &st, NULL))
    {
      ef_aligned_free (g_steal_pointer (&scratch));
      return NULL;
    }
  ef_aligned_free (g_steal_pointer (&scratch));
  if (st.used_bp)
    return g_strdup_printf ("formed by exact BP: %s", st.why_bp != NULL ? st.why_bp : "the plan chose it");
  return g_strdup_printf ("leaves of %u pulses, %u merge stages, %u fused", st.leaf_pulses, st.n_stages,
                          st.n_final);
}

EfSimTarget *
ef_cli_bench_scene (guint size, const EfCliBenchScene *scene, EfSimParams *sp, EfGrid *grid, GError **error)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) (scene->seed ^ (scene->seed >> 32)));
  g_autofree EfSimTarget *t = g_new0 (EfSimTarget, MAX (scene->n_targets, 1u));
  double res_r, res_x, spacing, half;

  if (scene->spaceborne)
    ef_sim_params_init_spaceborne (sp);
  else
    ef_sim_params_init_airborne (sp);
  /* Enough pulses and samples that the scene neither aliases in range nor in cross-range. */
  sp->n_pulses = scene->pulses > 0 ? scene->pulses : size;
  sp->n_samples = scene->samples > 0 ? scene->samples : MAX (128u, size);
  sp->seed = scene->seed;
  sp->n_threads = scene->threads;
  res_r = EF_C / (2.0 * sp->bandwidth);
  res_x = EF_C / sp->fc / (2.0 * sp->aperture_deg * G_PI / 180.0);
  spacing = 0.5 * MIN (res_r, res_x);
  half = 0.5 * size * spacing;
  for (guint i = 0; i < scene->n_targets; i++)
    {
      double phase = g_rand_double_range (rand, 0, 2 * G_PI);
      double amp = g_rand_double_range (rand, 0.2, 1.0);

      t[i].pos[0] = g_rand_double_range (rand, -0.9 * half, 0.9 * half);
      t[i].pos[1] = g_rand_double_range (rand, -0.9 * half, 0.9 * half);
      t[i].pos[2] = 0;
      t[i].amp = amp * cexp (I * phase);
    }
  sp->targets = t;
  sp->n_targets = scene->n_targets;
  if (!ef_grid_init_roi (grid, -half, -half, half, half, spacing, error))
    return NULL;
  return g_steal_pointer (&t);
}

static gboolean
bench_size (guint size, const BenchOptions *o, GArray *rows, gboolean *any_unavailable, GError **error)
{
  g_autofree EfSimTarget *targets = NULL;
  g_autoptr(EfDataset) ds = NULL;
  g_autoptr(EfRangeCompressor) rc64 = NULL;
  g_autoptr(EfRangeCompressor) rc32 = NULL;
  g_autoptr(EfProfiles) prof64 = NULL;
  g_autoptr(EfProfiles) prof32 = NULL;
  g_autofree EfCf64 *ref = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfSimParams sp;
  EfGrid grid;
  EfRect rect;
  const EfCf32 *samples;
  double t0, t_ref;
  guint64 work;
  gboolean ref_full, need32 = FALSE;
  EfCf32 *acc;

  {
    EfCliBenchScene scene = { o->spaceborne, o->pulses, o->samples, o->n_targets, o->seed, o->threads };

    targets = ef_cli_bench_scene (size, &scene, &sp, &grid, error);
    if (targets == NULL)
      return FALSE;
  }

  progress (o, "%u px: simulating %u pulses x %u samples, %u targets…", size, sp.n_pulses, sp.n_samples,
            o->n_targets);
  ds = ef_sim_run (&sp, error);
  if (ds == NULL)
    return FALSE;
  samples = ef_dataset_memory_samples (ds);
  g_assert (samples != NULL);

  if (o->upsample > 0)
    rp.upsample = o->upsample;

  /* Range compression once, outside the timing: these rows time backprojection alone. */
  progress (o, "%u px: range compression…", size);
  rc64 = ef_range_compressor_new (&ds->info, &rp, TRUE, error);
  if (rc64 == NULL)
    return FALSE;
  prof64 = ef_profiles_new (sp.n_pulses, ef_range_compressor_n_bins (rc64), TRUE, error);
  if (prof64 == NULL || !ef_range_compress (rc64, ds->pulses, samples, sp.n_pulses, prof64, NULL, error))
    return FALSE;
  for (guint i = 0; i < o->precisions->len; i++)
    if (g_array_index (o->precisions, EfPrecision, i) == EF_PRECISION_FP32)
      need32 = TRUE;
  if (need32 && o->backend_kind != EF_BACKEND_CUDA)
    {
      rc32 = ef_range_compressor_new (&ds->info, &rp, FALSE, error);
      if (rc32 == NULL)
        return FALSE;
      prof32 = ef_profiles_new (sp.n_pulses, ef_range_compressor_n_bins (rc32), FALSE, error);
      if (prof32 == NULL || !ef_range_compress (rc32, ds->pulses, samples, sp.n_pulses, prof32, NULL, error))
        return FALSE;
    }

  /* The float64 reference, on all of the image when affordable. */
  work = (guint64) grid.width * grid.height * sp.n_pulses;
  ref_full = work <= REF_BUDGET;
  if (ref_full)
    rect = (EfRect) { 0, 0, grid.width, grid.height };
  else
    {
      guint edge = (guint) sqrt ((double) REF_BUDGET / sp.n_pulses);

      edge = CLAMP (edge, 8u, MIN (grid.width, grid.height));
      rect = (EfRect) { (grid.width - edge) / 2, (grid.height - edge) / 2, edge, edge };
    }
  ref = g_try_new0 (EfCf64, (gsize) rect.width * rect.height);
  if (ref == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for the reference image");
      return FALSE;
    }
  progress (o, "%u px: float64 reference on %u x %u pixels…", size, rect.width, rect.height);
  t0 = now_s ();
  if (ref_full)
    ef_bp_reference (&grid, prof64, ref);
  else
    ef_bp_reference_rect (&grid, prof64, &rect, ref);
  t_ref = now_s () - t0;

  acc = ef_aligned_alloc0 (ef_grid_n_pixels (&grid) * sizeof (EfCf32));
  if (acc == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for a %u x %u image",
                   grid.width, grid.height);
      return FALSE;
    }

  for (guint i = 0; i < o->precisions->len; i++)
    {
      EfPrecision prec = g_array_index (o->precisions, EfPrecision, i);
      BenchRow row;
      gboolean direct_cpu = o->backend_kind == EF_BACKEND_CPU;
      g_autoptr(GError) local = NULL;

      memset (&row, 0, sizeof row);
      row.size = size;
      row.width = grid.width;
      row.height = grid.height;
      row.pulses = sp.n_pulses;
      row.samples = sp.n_samples;
      row.precision = prec;
      row.algo = EF_ALGO_BP;
      row.x_bp = NAN;
      row.ref_rect = rect;
      row.ref_full = ref_full;

      if (o->backend_kind == EF_BACKEND_AUTO)
        {
          /* AUTO means CUDA when there is a device; otherwise the CPU kernels, timed directly. */
          g_autofree char *name = NULL, *note = NULL;
          double secs = 0;

          progress (o, "%u px: %s on the automatic backend…", size, ef_precision_to_string (prec));
          memset (acc, 0, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
          if (time_backend (ds, &grid, o, EF_BACKEND_AUTO, prec, EF_ALGO_BP, o->block > 0 ? o->block : 256, acc,
                            &secs, &name, &note, &local)
              && g_strcmp0 (name, "cpu") != 0)
            {
              row.backend = g_steal_pointer (&name);
              row.seconds = secs;
              row.threads = 0;
              row.note = g_strdup ("incl. range compression and transfers");
              row.bp_per_s = (double) work / secs;
              row.ser_db = ser_on_rect (acc, grid.width, &rect, ref);
              g_array_append_val (rows, row);
              continue;
            }
          g_clear_error (&local);
          direct_cpu = TRUE;
        }

      if (direct_cpu && prec == EF_PRECISION_FP64)
        {
          /* The reference is the float64 CPU path: its own time, on the pixels it covered. */
          row.backend = g_strdup ("cpu");
          row.threads = 1;
          row.seconds = t_ref;
          row.bp_per_s = (double) rect.width * rect.height * sp.n_pulses / t_ref;
          row.ser_db = INFINITY;
          row.note = g_strdup (ref_full ? "reference" : "reference, timed on its sub-rectangle");
        }
      else if (direct_cpu && prec == EF_PRECISION_FP32)
        {
          double best = INFINITY;
          EfGrid warm = grid;

          /* One tile first, so that thread start-up stays out of the timing. */
          warm.width = MIN (grid.width, (guint) EF_BP_TILE);
          warm.height = MIN (grid.height, (guint) EF_BP_TILE);
          ef_bp_cpu_fp32 (&warm, prof32, acc, o->threads);
          for (guint rep = 0; rep < o->repeat; rep++)
            {
              progress (o, "%u px: float32 CPU kernel (%s), run %u of %u…", size, ef_bp_cpu_simd_name (), rep + 1,
                        o->repeat);
              memset (acc, 0, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
              t0 = now_s ();
              ef_bp_cpu_fp32 (&grid, prof32, acc, o->threads);
              best = MIN (best, now_s () - t0);
            }
          row.backend = g_strdup ("cpu");
          row.threads = cpu_threads (o->threads);
          row.seconds = best;
          row.bp_per_s = (double) work / best;
          row.ser_db = ser_on_rect (acc, grid.width, &rect, ref);
        }
      else
        {
          /* CUDA, or a precision the CPU has no bare kernel for: time the whole backend. */
          EfBackendKind kind = direct_cpu ? EF_BACKEND_CPU : o->backend_kind;
          g_autofree char *name = NULL, *note = NULL;
          double secs = 0;

          progress (o, "%u px: %s on the %s backend…", size, ef_precision_to_string (prec),
                    ef_backend_kind_to_string (kind));
          memset (acc, 0, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
          if (!time_backend (ds, &grid, o, kind, prec, EF_ALGO_BP, o->block > 0 ? o->block : 256, acc, &secs, &name,
                             &note, &local))
            {
              row.backend = g_strdup (ef_backend_kind_to_string (kind));
              row.seconds = NAN;
              row.bp_per_s = NAN;
              row.ser_db = NAN;
              row.note = g_strdup_printf ("unavailable: %s", local->message);
              *any_unavailable = TRUE;
              g_array_append_val (rows, row);
              continue;
            }
          row.backend = g_steal_pointer (&name);
          row.threads = g_strcmp0 (row.backend, "cpu") == 0 ? cpu_threads (o->threads) : 0;
          row.seconds = secs;
          row.bp_per_s = (double) work / secs;
          row.ser_db = ser_on_rect (acc, grid.width, &rect, ref);
          row.note = g_strdup ("incl. range compression and transfers");
        }
      g_array_append_val (rows, row);
    }

  /* The algorithms against exact backprojection: each through the whole backend (range compression at the
   * same upsampling included), on every core unless --threads says otherwise, in one block of every pulse
   * unless --block says otherwise (the fast algorithms gain with the block). */
  for (guint i = 0; o->algos != NULL && i < o->precisions->len; i++)
    {
      EfPrecision prec = g_array_index (o->precisions, EfPrecision, i);
      guint block = o->block > 0 ? o->block : sp.n_pulses;
      double bp_secs = NAN;

      for (guint a = 0; a < o->algos->len; a++)
        {
          EfAlgo algo = g_array_index (o->algos, EfAlgo, a);
          g_autofree char *name = NULL, *note = NULL;
          g_autoptr(GError) local = NULL;
          double secs = 0;
          BenchRow row;

          memset (&row, 0, sizeof row);
          row.size = size;
          row.width = grid.width;
          row.height = grid.height;
          row.pulses = sp.n_pulses;
          row.samples = sp.n_samples;
          row.precision = prec;
          row.algo = algo;
          row.ref_rect = rect;
          row.ref_full = ref_full;
          progress (o, "%u px: %s %s through the %s backend…", size, ef_algo_to_string (algo),
                    ef_precision_to_string (prec), ef_backend_kind_to_string (o->backend_kind));
          memset (acc, 0, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
          if (!time_backend (ds, &grid, o, o->backend_kind, prec, algo, block, acc, &secs, &name, &note, &local))
            {
              row.backend = g_strdup (ef_backend_kind_to_string (o->backend_kind));
              row.seconds = row.bp_per_s = row.ser_db = row.x_bp = NAN;
              row.note = g_strdup_printf ("unavailable: %s", local->message);
              *any_unavailable = TRUE;
              g_array_append_val (rows, row);
              continue;
            }
          row.backend = g_steal_pointer (&name);
          row.threads = g_strcmp0 (row.backend, "cpu") == 0 ? cpu_threads (o->threads) : 0;
          row.seconds = secs;
          /* For the fast algorithms: the exact backprojection rate that would take as long. */
          row.bp_per_s = (double) work / secs;
          row.ser_db = ser_on_rect (acc, grid.width, &rect, ref);
          if (algo == EF_ALGO_BP)
            bp_secs = secs;
          row.x_bp = bp_secs / secs;
          if ((algo == EF_ALGO_FFBP || algo == EF_ALGO_FBP) && g_strcmp0 (row.backend, "cpu") == 0 && prof32 != NULL
              && prec == EF_PRECISION_FP32)
            {
              g_autofree char *plan = fast_plan_note (&grid, sp.bandwidth, algo, prof32, block, o->threads);

              row.note = g_strdup_printf ("incl. range compression; blocks of %u pulses; %s", block,
                                          plan != NULL ? plan : "plan unknown");
            }
          else
            row.note = g_strdup_printf ("incl. range compression; blocks of %u pulses", block);
          g_array_append_val (rows, row);
        }
    }
  ef_aligned_free (acc);
  progress (o, "%s", "");
  return TRUE;
}

static void
print_table (const GArray *rows, guint n_cores)
{
  printf ("SIMD level: %s    cores: %u\n", ef_bp_cpu_simd_name (), n_cores);
  printf ("%6s %7s %7s %5s %5s %6s %7s %10s %10s %10s %6s %8s  %s\n", "size", "pulses", "samples", "algo", "prec",
          "backend", "threads", "seconds", "bp/s", "bp/s/core", "x BP", "SER dB", "reference");
  for (guint i = 0; i < rows->len; i++)
    {
      const BenchRow *r = &g_array_index (rows, BenchRow, i);
      char threads[16], per_core[32], ser[32], refdesc[64], secs[32], rate[32], xbp[16];

      if (r->threads > 0 && isfinite (r->bp_per_s))
        {
          g_snprintf (threads, sizeof threads, "%u", r->threads);
          g_snprintf (per_core, sizeof per_core, "%.3g", r->bp_per_s / r->threads);
        }
      else
        {
          g_strlcpy (threads, "-", sizeof threads);
          g_strlcpy (per_core, "-", sizeof per_core);
        }
      if (isinf (r->ser_db))
        g_strlcpy (ser, "ref", sizeof ser);
      else if (isnan (r->ser_db))
        g_strlcpy (ser, "-", sizeof ser);
      else
        g_snprintf (ser, sizeof ser, "%.1f", r->ser_db);
      if (isfinite (r->seconds))
        {
          g_snprintf (secs, sizeof secs, "%.4g", r->seconds);
          g_snprintf (rate, sizeof rate, "%.4g", r->bp_per_s);
        }
      else
        {
          g_strlcpy (secs, "-", sizeof secs);
          g_strlcpy (rate, "-", sizeof rate);
        }
      if (isfinite (r->x_bp))
        g_snprintf (xbp, sizeof xbp, "%.2f", r->x_bp);
      else
        g_strlcpy (xbp, "-", sizeof xbp);
      if (r->ref_full)
        g_strlcpy (refdesc, "full image", sizeof refdesc);
      else
        g_snprintf (refdesc, sizeof refdesc, "sampled %ux%u at %u,%u", r->ref_rect.width, r->ref_rect.height,
                    r->ref_rect.x, r->ref_rect.y);
      printf ("%6u %7u %7u %5s %5s %6s %7s %10s %10s %10s %6s %8s  %s%s%s\n", r->size, r->pulses, r->samples,
              ef_algo_to_string (r->algo), ef_precision_to_string (r->precision), r->backend, threads, secs, rate,
              per_core, xbp, ser, refdesc, r->note != NULL ? "; " : "", r->note != NULL ? r->note : "");
    }
}

static void
print_json (const GArray *rows, guint n_cores)
{
  g_autofree char *text = NULL;
  EfCliJson j;

  ef_cli_json_init (&j);
  ef_cli_json_begin_object (&j, NULL);
  ef_cli_json_string (&j, "simd", ef_bp_cpu_simd_name ());
  ef_cli_json_int (&j, "cores", n_cores);
  ef_cli_json_begin_array (&j, "rows");
  for (guint i = 0; i < rows->len; i++)
    {
      const BenchRow *r = &g_array_index (rows, BenchRow, i);

      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_int (&j, "size", r->size);
      ef_cli_json_int (&j, "width", r->width);
      ef_cli_json_int (&j, "height", r->height);
      ef_cli_json_int (&j, "pulses", r->pulses);
      ef_cli_json_int (&j, "samples", r->samples);
      ef_cli_json_string (&j, "precision", ef_precision_to_string (r->precision));
      ef_cli_json_string (&j, "algo", ef_algo_to_string (r->algo));
      /* Exact BP's time over this row's, both through the backend with range compression; null when the
       * row was not part of an algorithm comparison. */
      ef_cli_json_double (&j, "x_bp", r->x_bp);
      ef_cli_json_string (&j, "backend", r->backend);
      if (r->threads > 0)
        ef_cli_json_int (&j, "threads", r->threads);
      else
        ef_cli_json_null (&j, "threads");
      ef_cli_json_double (&j, "seconds", r->seconds);
      ef_cli_json_double (&j, "bp_per_s", r->bp_per_s);
      ef_cli_json_double (&j, "bp_per_s_per_core", r->threads > 0 ? r->bp_per_s / r->threads : NAN);
      /* JSON has no infinity: the reference row says so instead. */
      ef_cli_json_double (&j, "ser_db", r->ser_db);
      ef_cli_json_bool (&j, "is_reference", isinf (r->ser_db));
      ef_cli_json_begin_object (&j, "ser_region");
      ef_cli_json_bool (&j, "full", r->ref_full);
      ef_cli_json_int (&j, "x", r->ref_rect.x);
      ef_cli_json_int (&j, "y", r->ref_rect.y);
      ef_cli_json_int (&j, "width", r->ref_rect.width);
      ef_cli_json_int (&j, "height", r->ref_rect.height);
      ef_cli_json_end_object (&j);
      ef_cli_json_string (&j, "note", r->note);
      ef_cli_json_end_object (&j);
    }
  ef_cli_json_end_array (&j);
  ef_cli_json_end_object (&j);
  text = ef_cli_json_finish (&j);
  fputs (text, stdout);
}

int
ef_cli_bench (int argc, char **argv)
{
  g_autofree char *sizes_s = NULL, *pulses_s = NULL, *samples_s = NULL, *precision_s = NULL, *backend_s = NULL;
  g_autofree char *geometry_s = NULL, *threads_s = NULL, *upsample_s = NULL, *block_s = NULL, *repeat_s = NULL;
  g_autofree char *seed_s = NULL, *targets_s = NULL, *read_path = NULL, *devices_s = NULL, *algo_s = NULL;
  g_autofree char *af_s = NULL, *af_size_s = NULL, *af_error_s = NULL, *af_memory_s = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GArray) sizes = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GArray) precisions = g_array_new (FALSE, FALSE, sizeof (EfPrecision));
  g_autoptr(GArray) algos = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) prec_names = NULL;
  gboolean json = FALSE, any_unavailable = FALSE;
  BenchOptions o;
  const GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_s, "Image edges in pixels (default 256,512)", "N,N,..." },
    { "pulses", 0, 0, G_OPTION_ARG_STRING, &pulses_s, "Pulses (default: the image edge)", "N" },
    { "samples", 0, 0, G_OPTION_ARG_STRING, &samples_s, "Samples per pulse (default: the image edge, at least "
      "128)", "N" },
    { "precision", 'p', 0, G_OPTION_ARG_STRING, &precision_s, "Precisions to time (default fp32)", "P,P,..." },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend_s, "cpu (the default), cuda or auto", "KIND" },
    { "geometry", 'g', 0, G_OPTION_ARG_STRING, &geometry_s, "airborne (10 km; the default) or spaceborne "
      "(700 km)", "GEOMETRY" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_s, "CPU threads (0: all cores; the default)", "N" },
    { "upsample", 'u', 0, G_OPTION_ARG_STRING, &upsample_s, "Range profile zero-padding factor", "N" },
    { "block", 0, 0, G_OPTION_ARG_STRING, &block_s, "Pulses per block for whole-backend timings (default 256)",
      "N" },
    { "repeat", 0, 0, G_OPTION_ARG_STRING, &repeat_s, "Time each kernel N times and keep the best (default 1)",
      "N" },
    { "targets", 0, 0, G_OPTION_ARG_STRING, &targets_s, "Random point targets in the scene (default 300)", "N" },
    { "devices", 0, 0, G_OPTION_ARG_STRING, &devices_s, "CUDA devices that CUDA rows spread the pulses over: "
      "N or all (default 1)", "N|all" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_s, "Random seed (default 1)", "N" },
    { "algo", 'a', 0, G_OPTION_ARG_STRING, &algo_s, "Also compare these algorithms with exact BP through the "
      "backend, range compression included (bp, ffbp, fbp, pfa, mf)", "A,A,..." },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of a table", NULL },
    { "autofocus", 0, 0, G_OPTION_ARG_STRING, &af_s, "Time autofocus instead: pga or sharpness estimated on a "
      "scene with an injected phase error, then the corrected region formed (with --sizes, --backend, "
      "--pulses, --samples, --targets, --seed, --threads, --devices, --geometry)", "METHOD" },
    { "autofocus-size", 0, 0, G_OPTION_ARG_STRING, &af_size_s, "--autofocus: the estimation grid's side at "
      "most (default 256)", "N" },
    { "autofocus-error", 0, 0, G_OPTION_ARG_STRING, &af_error_s, "--autofocus: the injected error, "
      "quadratic or random-walk, with its RMS in rad (default random-walk,2)", "KIND[,RMS]" },
    { "autofocus-memory", 0, 0, G_OPTION_ARG_STRING, &af_memory_s, "--autofocus sharpness: bound on the "
      "blocks' images in MiB (default 512)", "MIB" },
    { "read", 0, 0, G_OPTION_ARG_FILENAME, &read_path, "Time reading FILE's samples as complex float instead "
      "(with --block, default 256, and --repeat, default 3)", "FILE" },
    { NULL }
  };

  context = ef_cli_option_context_new ("bench", NULL, "Time backprojection on simulated scenes of random point "
                                       "targets.",
                                       "Each scene is simulated in memory and range-compressed once; the CPU rows "
                                       "then time the bare backprojection kernels (float64 reference, float32 "
                                       "SIMD). CUDA rows, and fp16 on the CPU, time the whole backend, range "
                                       "compression and transfers included.\n"
                                       "With --algo, each algorithm (exact BP among them) also runs through the "
                                       "whole backend at the same range upsampling, range compression included, "
                                       "on every core (or --threads), in one block of every pulse (or --block); "
                                       "'x BP' is exact BP's time over the algorithm's, and bp/s the exact "
                                       "backprojection rate that would take as long.\n"
                                       "SER is the signal-to-error ratio against the float64 reference. Past "
                                       "2^26 pixel-pulses the reference covers a centred sub-rectangle only, and "
                                       "the table says which.\n"
                                       "With --read FILE it times ef_dataset_read_block over every pulse of FILE "
                                       "instead, after one untimed pass that brings the file into the page cache: "
                                       "'fresh mapping' reopens the file before each pass, as a job does; "
                                       "'mapped' reads a second time through the same open dataset (the readers "
                                       "copy blocks out of the file rather than map it, so for CPHD the two rows "
                                       "now do the same work; the names are kept for the JSON's readers). File "
                                       "GB/s counts a CPHD file's "
                                       "signal bytes (other inputs: their size on disk), cf32 GB/s the complex "
                                       "float bytes delivered; 1 GB = 10^9 bytes.\n"
                                       "With --autofocus METHOD it times autofocus instead, for each size N: a "
                                       "scene of N x N pixels with an injected phase error (--autofocus-error) is "
                                       "estimated as `form --autofocus` estimates it (the middle --autofocus-size "
                                       "pixels, on --backend), then the corrected N x N region is formed; the table "
                                       "gives the estimate's formations, its host arithmetic and the final "
                                       "formation apart, and the phase error left (RMS about its line).", entries);
  if (!ef_cli_option_parse (context, "bench", &argc, &argv))
    return EF_CLI_EXIT_USAGE;
  if (argc > 1)
    return ef_cli_usage_error ("bench", "unexpected argument '%s'", argv[1]);

  if (read_path != NULL)
    {
      guint block = 256, repeat = 3;

      if (sizes_s != NULL || pulses_s != NULL || samples_s != NULL || precision_s != NULL || backend_s != NULL
          || geometry_s != NULL || threads_s != NULL || upsample_s != NULL || seed_s != NULL || targets_s != NULL
          || devices_s != NULL || algo_s != NULL)
        return ef_cli_usage_error ("bench", "--read takes only --block, --repeat and --json");
      if ((block_s != NULL && !ef_cli_parse_uint ("--block", block_s, 1, 1u << 20, &block, &error))
          || (repeat_s != NULL && !ef_cli_parse_uint ("--repeat", repeat_s, 1, 1000, &repeat, &error)))
        return ef_cli_report ("bench", error);
      return ef_cli_bench_read (read_path, block, repeat, json);
    }

  if (af_s == NULL && (af_size_s != NULL || af_error_s != NULL || af_memory_s != NULL))
    return ef_cli_usage_error ("bench", "--autofocus-size, --autofocus-error and --autofocus-memory need --autofocus");
  if (af_s != NULL)
    {
      EfCliBenchFocus f = { 0 };
      g_auto (GStrv) parts = NULL;

      if (precision_s != NULL || upsample_s != NULL || block_s != NULL || repeat_s != NULL || algo_s != NULL)
        return ef_cli_usage_error ("bench", "--autofocus takes no --precision, --upsample, --block, --repeat or "
                                            "--algo");
      if (!ef_focus_method_from_string (af_s, &f.method) || f.method == EF_FOCUS_NONE)
        return ef_cli_usage_error ("bench", "--autofocus: '%s' is not pga or sharpness", af_s);
      f.random_walk = TRUE;
      f.error_rms = 2.0;
      f.n_targets = DEFAULT_TARGETS;
      f.seed = 1;
      f.n_devices = 1;
      f.backend_kind = EF_BACKEND_CPU;
      f.json = json;
      f.tty = ef_cli_stderr_is_tty ();
      if (af_error_s != NULL)
        {
          parts = g_strsplit (af_error_s, ",", 2);
          if (g_strcmp0 (parts[0], "quadratic") == 0)
            f.random_walk = FALSE;
          else if (g_strcmp0 (parts[0], "random-walk") != 0)
            return ef_cli_usage_error ("bench", "--autofocus-error: '%s' is not quadratic or random-walk", parts[0]);
          if (parts[1] != NULL && !ef_cli_parse_double ("--autofocus-error", parts[1], 1e-3, 100, &f.error_rms, &error))
            return ef_cli_report ("bench", error);
        }
      sizes = ef_cli_parse_uints ("--sizes", sizes_s != NULL ? sizes_s : "256,512", 16, 65536, &error);
      if (sizes == NULL
          || (af_size_s != NULL && !ef_cli_parse_uint ("--autofocus-size", af_size_s, 16, 65536, &f.max_px, &error))
          || (af_memory_s != NULL
              && !ef_cli_parse_uint ("--autofocus-memory", af_memory_s, 1, 1u << 24, &f.memory_mib, &error))
          || (pulses_s != NULL && !ef_cli_parse_uint ("--pulses", pulses_s, 8, 1u << 20, &f.pulses, &error))
          || (samples_s != NULL && !ef_cli_parse_uint ("--samples", samples_s, 2, 1u << 22, &f.samples, &error))
          || (threads_s != NULL && !ef_cli_parse_uint ("--threads", threads_s, 0, 4096, &f.threads, &error))
          || (targets_s != NULL && !ef_cli_parse_uint ("--targets", targets_s, 1, 1u << 20, &f.n_targets, &error))
          || (seed_s != NULL && !ef_cli_parse_uint64 ("--seed", seed_s, &f.seed, &error))
          || (devices_s != NULL && !ef_cli_parse_devices ("--devices", devices_s, &f.n_devices, &error)))
        return ef_cli_report ("bench", error);
      if (backend_s != NULL && !ef_backend_kind_from_string (backend_s, &f.backend_kind))
        return ef_cli_usage_error ("bench", "--backend: '%s' is not cpu, cuda or auto", backend_s);
      if (geometry_s != NULL)
        {
          if (g_ascii_strcasecmp (geometry_s, "spaceborne") == 0)
            f.spaceborne = TRUE;
          else if (g_ascii_strcasecmp (geometry_s, "airborne") != 0)
            return ef_cli_usage_error ("bench", "--geometry: '%s' is not airborne or spaceborne", geometry_s);
        }
      return ef_cli_bench_focus (sizes, &f);
    }

  memset (&o, 0, sizeof o);
  o.n_targets = DEFAULT_TARGETS;
  o.repeat = 1;
  o.seed = 1;
  o.backend_kind = EF_BACKEND_CPU;
  o.n_devices = 1;
  o.tty = ef_cli_stderr_is_tty ();

  sizes = ef_cli_parse_uints ("--sizes", sizes_s != NULL ? sizes_s : "256,512", 8, 65536, &error);
  if (sizes == NULL
      || (pulses_s != NULL && !ef_cli_parse_uint ("--pulses", pulses_s, 1, 1u << 20, &o.pulses, &error))
      || (samples_s != NULL && !ef_cli_parse_uint ("--samples", samples_s, 2, 1u << 22, &o.samples, &error))
      || (threads_s != NULL && !ef_cli_parse_uint ("--threads", threads_s, 0, 4096, &o.threads, &error))
      || (upsample_s != NULL && !ef_cli_parse_uint ("--upsample", upsample_s, 1, 64, &o.upsample, &error))
      || (block_s != NULL && !ef_cli_parse_uint ("--block", block_s, 1, 1u << 20, &o.block, &error))
      || (repeat_s != NULL && !ef_cli_parse_uint ("--repeat", repeat_s, 1, 1000, &o.repeat, &error))
      || (targets_s != NULL && !ef_cli_parse_uint ("--targets", targets_s, 1, 1u << 20, &o.n_targets, &error))
      || (seed_s != NULL && !ef_cli_parse_uint64 ("--seed", seed_s, &o.seed, &error))
      || (devices_s != NULL && !ef_cli_parse_devices ("--devices", devices_s, &o.n_devices, &error)))
    return ef_cli_report ("bench", error);
  if (backend_s != NULL && !ef_backend_kind_from_string (backend_s, &o.backend_kind))
    return ef_cli_usage_error ("bench", "--backend: '%s' is not cpu, cuda or auto", backend_s);
  if (geometry_s != NULL)
    {
      if (g_ascii_strcasecmp (geometry_s, "spaceborne") == 0)
        o.spaceborne = TRUE;
      else if (g_ascii_strcasecmp (geometry_s, "airborne") != 0)
        return ef_cli_usage_error ("bench", "--geometry: '%s' is not airborne or spaceborne", geometry_s);
    }
  prec_names = g_strsplit (precision_s != NULL ? precision_s : "fp32", ",", -1);
  for (guint i = 0; prec_names[i] != NULL; i++)
    {
      EfPrecision p;

      if (!ef_precision_from_string (g_strstrip (prec_names[i]), &p))
        return ef_cli_usage_error ("bench", "--precision: '%s' is not fp64, fp32 or fp16", prec_names[i]);
      g_array_append_val (precisions, p);
    }
  if (precisions->len == 0)
    return ef_cli_usage_error ("bench", "--precision: no precision given");
  o.precisions = precisions;
  if (algo_s != NULL)
    {
      g_auto(GStrv) names = g_strsplit (algo_s, ",", -1);
      EfAlgo bp = EF_ALGO_BP;

      /* Exact BP first: every other algorithm is compared with it. */
      algos = g_array_new (FALSE, FALSE, sizeof (EfAlgo));
      g_array_append_val (algos, bp);
      for (guint i = 0; names[i] != NULL; i++)
        {
          EfAlgo a;

          if (!ef_algo_from_string (g_strstrip (names[i]), &a))
            return ef_cli_usage_error ("bench", "--algo: '%s' is not bp, ffbp, fbp, pfa or mf", names[i]);
          if (a != EF_ALGO_BP)
            g_array_append_val (algos, a);
        }
      o.algos = algos;
    }

  rows = g_array_new (FALSE, TRUE, sizeof (BenchRow));
  g_array_set_clear_func (rows, bench_row_clear);
  for (guint i = 0; i < sizes->len; i++)
    if (!bench_size (g_array_index (sizes, guint, i), &o, rows, &any_unavailable, &error))
      {
        if (o.tty)
          ef_cli_progress_end ();
        return ef_cli_report ("bench", error);
      }

  if (json)
    print_json (rows, g_get_num_processors ());
  else
    print_table (rows, g_get_num_processors ());

  if (any_unavailable)
    {
      ef_cli_error ("bench: the %s backend was not available (see the table)",
                    ef_backend_kind_to_string (o.backend_kind));
      return EF_CLI_EXIT_FAILURE;
    }
  return EF_CLI_EXIT_OK;
}
