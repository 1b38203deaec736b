/* bench-teach-slider.c: the classroom's aperture slider, headless: windows from the stack's sums, their pixels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "bench-teach-slider"
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ef-teach.h"
#if EF_BENCH_RASTER
#include "ef-teach-raster.h"
#endif

/* As the classroom window draws: 40 dB of dynamic range, grey. */
#define RANGE_DB 40.0

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
report (const char *what, double *ms, guint n)
{
  qsort (ms, n, sizeof *ms, cmp_double);
  printf ("%-34s median %7.2f ms  p90 %7.2f ms  max %7.2f ms  (%u moves)\n", what, ms[n / 2], ms[(n * 9) / 10],
          ms[n - 1], n);
}

static void
progress (guint done, guint total, gpointer user_data)
{
  if (*(gboolean *) user_data)
    fprintf (stderr, "\rforming block %u of %u", done, total);
}

/* Times `moves` windows; every_band: random sub-band windows too (up to four sums a pixel), else the
 * whole band as the classroom opens (one or two). */
static void
run_moves (const EfTeachStack *st, guint moves, gboolean every_band, GRand *rng, EfCf32 *img, guint8 *px)
{
  const EfGrid *g = ef_teach_stack_grid (st);
  guint nb = ef_teach_stack_n_blocks (st), ns = ef_teach_stack_n_bands (st);
  g_autofree double *win = g_new (double, moves);
  g_autofree double *all = g_new (double, moves);
#if EF_BENCH_RASTER
  g_autofree double *pix = g_new (double, moves);
#endif

  /* Three moves first, uncounted: page faults of the output and thread start-up. */
  for (guint i = 0; i < moves + 3; i++)
    {
      guint b0 = (guint) g_rand_int_range (rng, 0, (gint32) nb);
      guint b1 = (guint) g_rand_int_range (rng, (gint32) b0, (gint32) nb);
      guint s0 = every_band ? (guint) g_rand_int_range (rng, 0, (gint32) ns) : 0;
      guint s1 = every_band ? (guint) g_rand_int_range (rng, (gint32) s0, (gint32) ns) : ns - 1;
      g_autoptr (GError) error = NULL;
      gint64 t0, t1, t2;

      if (every_band && i % 2 == 0 && nb > 1 && ns > 1)
        {
          /* Half of them the worst case: four sums. */
          b0 = MAX (b0, 1);
          b1 = MAX (b1, b0);
          s0 = MAX (s0, 1);
          s1 = MAX (s1, s0);
        }
      t0 = g_get_monotonic_time ();
      if (!ef_teach_stack_window (st, b0, b1, s0, s1, img, &error))
        {
          g_printerr ("bench-teach-slider: %s\n", error->message);
          exit (1);
        }
      t1 = g_get_monotonic_time ();
#if EF_BENCH_RASTER
      ef_teach_raster (img, g->width, g->height, 0, RANGE_DB, EF_COLORMAP_GREY, px, (gsize) g->width * 4);
#else
      (void) px;
      (void) g;
#endif
      t2 = g_get_monotonic_time ();
      if (i < 3)
        continue;
      win[i - 3] = (t1 - t0) / 1000.0;
#if EF_BENCH_RASTER
      pix[i - 3] = (t2 - t1) / 1000.0;
#endif
      all[i - 3] = (t2 - t0) / 1000.0;
    }
  printf ("%s:\n", every_band ? "aperture and sub-band windows" : "aperture windows, whole band");
  report ("  window from the sums (compute)", win, moves);
#if EF_BENCH_RASTER
  report ("  its pixels (render, ef_teach_raster)", pix, moves);
  report ("  slider move to pixels", all, moves);
#endif
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfTeachStack) st = NULL;
  g_autoptr (GRand) rng = NULL;
  g_autofree char *backend = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autofree guint8 *px = NULL;
  gint edge = 512, moves = 200, bands = 4, block = 16, threads = 0;
  double budget_mib = 0;
  gboolean tty = FALSE;
  EfTeachStackParams p = { 0 };
  gint64 t0;
  double form_s;
  gsize n;
  const GOptionEntry entries[] = {
    { "edge", 0, 0, G_OPTION_ARG_INT, &edge, "Region of N x N pixels over the classroom's 20.48 m (512)", "N" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "What forms the stack: stack (its own processor path, as "
      "the classroom does; the default), cpu, cuda or auto (a formation backend, as form --backend)", "NAME" },
    { "moves", 0, 0, G_OPTION_ARG_INT, &moves, "Aperture moves timed in each series (200)", "N" },
    { "bands", 0, 0, G_OPTION_ARG_INT, &bands, "Sub-bands (4, as the classroom)", "N" },
    { "block", 0, 0, G_OPTION_ARG_INT, &block, "Pulses a block (16, as the classroom)", "N" },
    { "budget-mib", 0, 0, G_OPTION_ARG_DOUBLE, &budget_mib, "Memory for the sums, MiB (0: the classroom's 512); "
      "blocks merge to fit", "MIB" },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads, "Threads forming the stack (0: all; the windows use "
      "OpenMP's, OMP_NUM_THREADS)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("- time the classroom's aperture slider on an N x N region");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("bench-teach-slider: %s\n", error->message);
      return 2;
    }
  if (edge < 8 || edge > 16384 || moves < 1 || moves > 100000 || bands < 1 || block < 1 || threads < 0
      || !(budget_mib >= 0 && budget_mib <= 1048576))
    {
      g_printerr ("bench-teach-slider: --edge 8..16384, --moves 1..100000, positive --bands and --block, "
                  "--budget-mib 0..1048576\n");
      return 2;
    }
  if (backend == NULL || g_strcmp0 (backend, "stack") == 0)
    p.use_backend = FALSE;
  else
    {
      p.use_backend = TRUE;
      if (g_strcmp0 (backend, "cpu") == 0)
        p.backend = EF_BACKEND_CPU;
      else if (g_strcmp0 (backend, "cuda") == 0)
        p.backend = EF_BACKEND_CUDA;
      else if (g_strcmp0 (backend, "auto") == 0)
        p.backend = EF_BACKEND_AUTO;
      else
        {
          g_printerr ("bench-teach-slider: --backend: '%s' is not stack, cpu, cuda or auto\n", backend);
          return 2;
        }
    }

  ds = ef_teach_classroom_new ((guint) threads, &error);
  if (ds == NULL)
    {
      g_printerr ("bench-teach-slider: %s\n", error->message);
      return 1;
    }
  ef_teach_classroom_grid (&p.grid, (guint) edge);
  p.block_pulses = (guint) block;
  p.n_bands = (guint) bands;
  p.budget_bytes = (guint64) (budget_mib * 1048576.0);
  p.n_threads = (guint) threads;
  tty = isatty (fileno (stderr));
  t0 = g_get_monotonic_time ();
  st = ef_teach_stack_new (ds, &p, progress, &tty, NULL, &error);
  form_s = (g_get_monotonic_time () - t0) * 1e-6;
  if (tty)
    fprintf (stderr, "\n");
  if (st == NULL)
    {
      g_printerr ("bench-teach-slider: %s\n", error->message);
      return 1;
    }
  printf ("classroom scene, %" G_GUINT64_FORMAT " pulses x %" G_GUINT64_FORMAT " samples; region %u x %u\n",
          ds->info.n_pulses, ds->info.n_samples, p.grid.width, p.grid.height);
  printf ("stack: %u blocks of %u pulses x %u sub-bands, fp32, %.1f MiB of sums; formed by %s in %.2f s%s%s\n",
          ef_teach_stack_n_blocks (st), ef_teach_stack_block_pulses (st), ef_teach_stack_n_bands (st),
          ef_teach_stack_bytes (st) / 1048576.0, ef_teach_stack_formed_by (st), form_s,
          ef_teach_stack_note (st) ? ": " : "", ef_teach_stack_note (st) ? ef_teach_stack_note (st) : "");
#if EF_BENCH_RASTER
  printf ("pixels: ef_teach_raster (render/), %.0f dB grey, as the classroom window\n", RANGE_DB);
#else
  printf ("pixels: not timed (this build has no render/ library)\n");
#endif
  printf ("processors: %u\n", g_get_num_processors ());

  n = ef_grid_n_pixels (&p.grid);
  img = g_new (EfCf32, n);
  px = g_new (guint8, n * 4);
  rng = g_rand_new_with_seed (1);
  run_moves (st, (guint) moves, FALSE, rng, img, px);
  run_moves (st, (guint) moves, TRUE, rng, img, px);
  return 0;
}
