/* bench-cuda-arcs.c: temporal arc coherence at the poster's scale on a device, each mapping, and the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "bench-cuda-arcs"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-arcs.h"
#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-arcs.h"
#include "cuda/ef-cuda-test-hooks.h"
#include "ef-error.h"

/*
 * The workload: a width x height image of n passes, every pixel's arcs in a (2 r + 1)^2 window. It is
 * streamed through the device in strips of `strip` rows plus r rows of halo above and below, each strip's
 * phasors copied in from pinned memory and its pixel scores copied out, as a stack larger than the
 * device would be. Every strip carries the same (random) phasors, generated once: the copies and the
 * kernels are what is timed, and they do not depend on the values.
 */

static guint64
mix (guint64 x)
{
  x += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return x ^ (x >> 31);
}

/* The arcs of a width x rows region whose both ends lie in it. */
static double
valid_arcs (int width, int rows, const EfArcOffset *off, guint n_off)
{
  double n = 0;

  for (guint o = 0; o < n_off; o++)
    n += (double) MAX (width - ABS (off[o].dx), 0) * MAX (rows - off[o].dy, 0);
  return n;
}

static void
fill_phasors (float *re, float *im, gsize n)
{
#pragma omp parallel for schedule(static)
  for (gsize i = 0; i < n; i++)
    {
      double ph = (mix (i) >> 11) * (2 * G_PI / 9007199254740992.0);
      re[i] = (float) cos (ph);
      im[i] = (float) sin (ph);
    }
}

/* --devices: the whole workload's strips shared among devices, a thread, a session and a pinned buffer
 * a device, each thread taking the next strip as it finishes one. */
typedef struct {
  int          device;
  EfCudaArcs  *s;
  float       *re, *im;   /* pinned, owned (the first device's borrowed) */
  float       *score;
  double       kernel_ms;
  guint        strips;
  GError      *error;
} MultiDev;

typedef struct {
  MultiDev *dev;
  gint      next;        /* atomic */
  guint     n_strips, strip, height, radius;
  int       mapping;
  gboolean  periodogram;
  gboolean  warm_up;     /* each device its one strip, the first */
} MultiJob;

typedef struct {
  MultiJob *job;
  MultiDev *dev;
} MultiArg;

static gpointer
multi_worker (gpointer data)
{
  MultiArg *a = data;
  MultiJob *j = a->job;
  MultiDev *d = a->dev;

  for (;;)
    {
      guint s = j->warm_up ? 0 : (guint) g_atomic_int_add (&j->next, 1), rows;
      EfCudaArcsTiming t = { 0 };

      if (s >= j->n_strips || d->error != NULL)
        break;
      rows = j->periodogram ? j->strip + 2 * j->radius : MIN (j->strip, j->height - s * j->strip) + 2 * j->radius;
      if (!ef_cuda_arcs_run (d->s, d->re, d->im, rows, j->mapping, j->periodogram, NULL, NULL, d->score, &t,
                             &d->error))
        break;
      d->kernel_ms += t.kernel_ms;
      d->strips++;
      if (j->warm_up)
        break;
    }
  return NULL;
}

/* n_strips strips over the first n of devs, after a strip of warm-up on each (its kernels loaded): the wall time, the kernels'
 * summed over the devices in *kernel_s; < 0 when a device failed (its error printed). */
static double
multi_spread (MultiDev *devs, guint n, guint n_strips, guint strip, guint height, guint radius, int mapping,
              gboolean periodogram, double *kernel_s)
{
  MultiArg args[64];
  GThread *threads[64];
  gint64 t0 = 0;
  double wall = 0;

  for (int pass = 0; pass < 2; pass++)
    {
      MultiJob job = { devs, 0, n_strips, strip, height, radius, mapping, periodogram, pass == 0 };

      for (guint i = 0; i < n; i++)
        {
          devs[i].kernel_ms = 0;
          devs[i].strips = 0;
          args[i] = (MultiArg) { &job, &devs[i] };
        }
      t0 = g_get_monotonic_time ();
      for (guint i = 0; i < n; i++)
        threads[i] = g_thread_new ("bench-arcs", multi_worker, &args[i]);
      for (guint i = 0; i < n; i++)
        g_thread_join (threads[i]);
      wall = (g_get_monotonic_time () - t0) / 1e6;
    }
  *kernel_s = 0;
  for (guint i = 0; i < n; i++)
    {
      if (devs[i].error != NULL)
        {
          fprintf (stderr, "bench-cuda-arcs: device %d: %s\n", devs[i].device, devs[i].error->message);
          return -1;
        }
      *kernel_s += devs[i].kernel_ms / 1e3;
    }
  return wall;
}

static int
bench_multi (guint n_dev, int width, int height, int passes, int radius, int strip, int pg_rows, int pg_strips,
             const char *only, const EfArcOffset *off, guint n_off, const EfArcModel *m, const EfArcGrid *grid,
             float *re, float *im, double workload_arcs)
{
  guint have = ef_cuda_device_count (), counts[2] = { 1, 0 }, n_counts;
  guint rows_max = strip + 2 * radius, n_strips = (height + strip - 1) / strip;
  gsize data_max = (gsize) width * rows_max * passes;
  MultiDev devs[64] = { { 0 } };
  int failures = 0;

  if (n_dev > have)
    {
      printf ("# --devices %u: there are %u device(s); %u used\n", n_dev, have, have);
      n_dev = have;
    }
  n_dev = MIN (n_dev, 64u);
  counts[1] = n_dev;
  n_counts = n_dev > 1 ? 2 : 1;
  for (guint i = 0; i < n_dev; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *name = ef_cuda_device_name ((int) i);

      devs[i].device = (int) i;
      devs[i].re = i == 0 ? re : ef_cuda_arcs_host_alloc (data_max * sizeof (float), &error);
      devs[i].im = i == 0 ? im
                   : devs[i].re != NULL ? ef_cuda_arcs_host_alloc (data_max * sizeof (float), &error) : NULL;
      devs[i].score = g_new (float, (gsize) width * rows_max);
      if (devs[i].re == NULL || devs[i].im == NULL)
        {
          fprintf (stderr, "bench-cuda-arcs: device %u: no pinned memory: %s\n", i, error->message);
          return 1;
        }
      if (i > 0)
        {
          memcpy (devs[i].re, re, data_max * sizeof (float));
          memcpy (devs[i].im, im, data_max * sizeof (float));
        }
      devs[i].s = ef_cuda_arcs_new ((int) i, width, rows_max, passes, off, n_off, pg_rows > 0 ? m : NULL,
                                    pg_rows > 0 ? grid : NULL, &error);
      if (devs[i].s == NULL)
        {
          fprintf (stderr, "bench-cuda-arcs: device %u: %s\n", i, error->message);
          return 1;
        }
      printf ("# device %u: %s\n", i, name);
    }

  for (int mi = EF_CUDA_ARCS_WINDOW; mi <= EF_CUDA_ARCS_GRAPH; mi++)
    {
      double wall1 = 0;

      if (only != NULL && strstr (only, ef_cuda_arcs_mapping_to_string (mi)) == NULL)
        continue;
      for (guint c = 0; c < n_counts; c++)
        {
          double ks, wall = multi_spread (devs, counts[c], n_strips, strip, height, radius, mi, FALSE, &ks);

          if (wall < 0)
            return 1;
          wall1 = c == 0 ? wall : wall1;
          printf ("RESULT\tmulti-arcs-%s\t%ugpu\twall %.3f s\tkernels %.3f s (summed over the devices)\t%d strips\t"
                  "%.4g arcs*passes/s (wall)\tspeed-up %.3f vs 1 device\n", ef_cuda_arcs_mapping_to_string (mi),
                  counts[c], wall, ks, n_strips, workload_arcs * passes / wall, wall1 / wall);
        }
    }

  for (int path = EF_CUDA_ARCS_PG_FP32; path <= EF_CUDA_ARCS_PG_TENSOR && pg_rows > 0; path++)
    {
      const char *label = path == EF_CUDA_ARCS_PG_TENSOR ? "tensor-cores" : "cuda-cores";
      double wall1 = 0;
      gboolean ok = TRUE;

      for (guint i = 0; i < n_dev && ok; i++)
        {
          g_autoptr (GError) error = NULL;

          ok = ef_cuda_arcs_set_periodogram_path (devs[i].s, path, &error);
          if (!ok)
            printf ("# periodogram on %s refused on device %u: %s\n", label, i, error->message);
        }
      for (guint c = 0; c < n_counts && ok; c++)
        {
          guint rows = MIN ((guint) pg_rows, (guint) strip);
          double ks, wall = multi_spread (devs, counts[c], pg_strips, rows, height, radius, EF_CUDA_ARCS_WINDOW, TRUE,
                                          &ks);

          if (wall < 0)
            return 1;
          wall1 = c == 0 ? wall : wall1;
          printf ("RESULT\tmulti-periodogram-%s\t%ugpu\twall %.3f s\tkernels %.3f s (summed over the devices)\t"
                  "%d strips of %u rows\t%u x %u grid\twhole workload at this rate: %.1f s\tspeed-up %.3f vs 1 "
                  "device\n",
                  label, counts[c], wall, ks, pg_strips, rows, grid->nv, grid->nh,
                  wall * height / ((double) pg_strips * rows), wall1 / wall);
        }
      failures += !ok && path == EF_CUDA_ARCS_PG_FP32;
    }

  for (guint i = 0; i < n_dev; i++)
    {
      ef_cuda_arcs_free (devs[i].s);
      g_free (devs[i].score);
      if (i > 0)
        {
          ef_cuda_arcs_host_free (devs[i].re);
          ef_cuda_arcs_host_free (devs[i].im);
        }
    }
  return failures ? 1 : 0;
}

int
main (int argc, char **argv)
{
  int width = 15000, height = 8000, passes = 100, radius = 2, strip = 256, pg_rows = 32, cpu_rows = 64;
  int gv = 40, gh = 40, n_devices = 0, pg_strips = 32;
  gboolean no_cpu = FALSE, cpu_only = FALSE;
  g_autofree char *only = NULL;
  GOptionEntry entries[] = {
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Image width (15000)", "N" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Image height (8000)", "N" },
    { "passes", 0, 0, G_OPTION_ARG_INT, &passes, "Passes (100)", "N" },
    { "radius", 0, 0, G_OPTION_ARG_INT, &radius, "Window radius (2: 5 x 5)", "N" },
    { "strip", 0, 0, G_OPTION_ARG_INT, &strip, "Rows a strip (256)", "N" },
    { "pg-rows", 0, 0, G_OPTION_ARG_INT, &pg_rows, "Rows of the periodogram's timed strip (32; 0: none)", "N" },
    { "grid", 0, 0, G_OPTION_ARG_INT, &gv, "Periodogram grid edge (40: 40 x 40)", "N" },
    { "cpu-rows", 0, 0, G_OPTION_ARG_INT, &cpu_rows, "Rows the CPU is timed on (64)", "N" },
    { "no-cpu", 0, 0, G_OPTION_ARG_NONE, &no_cpu, "Skip the CPU", NULL },
    { "cpu-only", 0, 0, G_OPTION_ARG_NONE, &cpu_only, "Time the CPU alone (no device needed)", NULL },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, "Mappings to run (window,arc,graph)", "LIST" },
    { "devices", 0, 0, G_OPTION_ARG_INT, &n_devices,
      "The whole workload's strips shared among N devices, against 1 in the same run (0: one device, as "
      "before)", "N" },
    { "pg-strips", 0, 0, G_OPTION_ARG_INT, &pg_strips, "With --devices: periodogram strips timed (32)", "N" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- arc coherence benchmark");
  g_autoptr (GError) error = NULL;
  g_autofree char *why = NULL;
  g_autofree char *device = NULL;
  g_autoptr (EfCudaArcs) dev = NULL;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  EfArcWindow win;
  guint n_off, rows_max;
  gsize plane_max, data_max;
  float *re, *im;
  g_autofree float *score = NULL;
  g_autofree float *coh_gpu = NULL;
  g_autofree float *coh_cpu = NULL;
  double gbps = 0, workload_bytes, workload_arcs;
  int n_strips, failures = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
      return 2;
    }
  gh = gv;
  if (!cpu_only && !ef_cuda_available (&why))
    {
      fprintf (stderr, "bench-cuda-arcs: %s\n", why);
      return 77;
    }
  if (width < 8 || height < 1 || passes < 2 || radius < 1 || radius > EF_ARC_MAX_RADIUS || strip < 1
      || n_devices < 0 || n_devices > 64 || pg_strips < 1 || (n_devices > 0 && (cpu_only || passes > 1000)))
    {
      fprintf (stderr, "bench-cuda-arcs: sizes out of range\n");
      return 2;
    }
  strip = MIN (strip, height);
  device = cpu_only ? g_strdup ("cpu") : ef_cuda_device_name (-1);
  win = (EfArcWindow) { (guint) radius, EF_ARC_WINDOW_SQUARE };
  n_off = ef_arc_offsets (&win, off);
  rows_max = strip + 2 * radius;
  plane_max = (gsize) width * rows_max;
  data_max = plane_max * passes;
  n_strips = (height + strip - 1) / strip;
  workload_bytes = (double) width * height * passes * 2 * sizeof (float);
  workload_arcs = valid_arcs (width, height, off, n_off);
  printf ("# device: %s\n# workload: %d x %d px, %d passes, %u x %u window (%u arcs a pixel): %.3g arcs, %.1f GB of "
          "phasors; %d strips of %d rows (+%d halo rows each side)\n", device, width, height, passes, 2 * radius + 1,
          2 * radius + 1, n_off, workload_arcs, workload_bytes / 1e9, n_strips, strip, radius);

  if (cpu_only)
    {
      re = g_try_malloc (data_max * sizeof (float));
      im = g_try_malloc (data_max * sizeof (float));
    }
  else
    {
      re = ef_cuda_arcs_host_alloc (data_max * sizeof (float), &error);
      im = re != NULL ? ef_cuda_arcs_host_alloc (data_max * sizeof (float), &error) : NULL;
    }
  if (re == NULL || im == NULL)
    {
      fprintf (stderr, "bench-cuda-arcs: no memory for the phasors of a strip%s%s\n", error != NULL ? ": " : "",
               error != NULL ? error->message : "");
      return 1;
    }
  fill_phasors (re, im, data_max);
  score = g_new (float, plane_max);
  {
    double t[1000], b[1000];
    EfArcModel m;
    EfArcGrid grid = { -0.02, 0.02, (guint) gv, -40, 40, (guint) gh };

    for (int k = 0; k < passes && k < 1000; k++)
      {
        t[k] = 2.0 * k / (passes - 1);
        b[k] = 300.0 * sin (k * 1.7);
      }
    m = (EfArcModel) { 0.031, 700e3, 35.0, (guint) passes, t, b };
    if (n_devices > 0)
      {
        int rc = bench_multi ((guint) n_devices, width, height, passes, radius, strip, pg_rows, pg_strips, only, off,
                              n_off, &m, &grid, re, im, workload_arcs);

        ef_cuda_arcs_host_free (re);
        ef_cuda_arcs_host_free (im);
        return rc;
      }
    if (!cpu_only)
      {
        dev = ef_cuda_arcs_new (-1, width, rows_max, passes, off, n_off, passes <= 1000 && pg_rows > 0 ? &m : NULL,
                                passes <= 1000 && pg_rows > 0 ? &grid : NULL, &error);
        if (dev == NULL)
          {
            fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
            return 1;
          }
        gbps = ef_cuda_arcs_h2d_gbps (dev, MIN (data_max * sizeof (float), (gsize) 1 << 30), &error);
        printf ("# host-to-device (pinned, 1 GB): %.1f GB/s\n", gbps);
      }

    /* Correctness on the first strip, every mapping against the CPU. */
    coh_gpu = g_new (float, plane_max * n_off);
    coh_cpu = g_new (float, plane_max * n_off);
    {
      EfArcPhasors ph = { (guint) width, rows_max, (guint) passes, re, im };
      gint64 t0 = g_get_monotonic_time ();
      double cpu_s;

      if (!no_cpu)
        {
          EfArcPhasors part = { (guint) width, MIN ((guint) cpu_rows, rows_max), (guint) passes, NULL, NULL };
          g_autofree float *tmp = g_new (float, (gsize) width * part.height * n_off);
          g_autofree float *pre = g_new (float, (gsize) width * part.height * passes);
          g_autofree float *pim = g_new (float, (gsize) width * part.height * passes);

          /* The CPU's region: the first cpu_rows rows, as its own planes. */
          for (int k = 0; k < passes; k++)
            {
              memcpy (pre + (gsize) k * width * part.height, re + (gsize) k * plane_max,
                      (gsize) width * part.height * sizeof (float));
              memcpy (pim + (gsize) k * width * part.height, im + (gsize) k * plane_max,
                      (gsize) width * part.height * sizeof (float));
            }
          part.re = pre;
          part.im = pim;
          t0 = g_get_monotonic_time ();
          ef_arcs_plain (&part, off, n_off, tmp);
          cpu_s = (g_get_monotonic_time () - t0) / 1e6;
          printf ("RESULT\tcpu-plain\t%s\t%u threads\t%.4f s for %d rows\t%.4g arcs*passes/s\t(whole workload at this "
                  "rate: %.1f s)\n", "cpu", ef_thread_count (0), cpu_s, part.height,
                  valid_arcs (width, part.height, off, n_off) * passes / cpu_s,
                  workload_arcs / valid_arcs (width, part.height, off, n_off) * cpu_s);
          /* The whole first strip on the CPU, as the reference for the mappings. */
          if (!cpu_only)
            ef_arcs_plain (&ph, off, n_off, coh_cpu);
        }
      for (int mi = EF_CUDA_ARCS_WINDOW; mi <= EF_CUDA_ARCS_GRAPH && !no_cpu && !cpu_only; mi++)
        {
          double worst = 0;

          if (only != NULL && strstr (only, ef_cuda_arcs_mapping_to_string (mi)) == NULL)
            continue;
          if (!ef_cuda_arcs_run (dev, re, im, rows_max, mi, FALSE, coh_gpu, NULL, NULL, NULL, &error))
            {
              fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
              return 1;
            }
          for (gsize i = 0; i < plane_max * n_off; i++)
            if (isnan (coh_cpu[i]) != isnan (coh_gpu[i]))
              worst = INFINITY;
            else if (!isnan (coh_cpu[i]))
              worst = MAX (worst, fabs ((double) coh_cpu[i] - coh_gpu[i]));
          printf ("%s %s: largest difference from the CPU over the first strip %.3g (limit 1e-5)\n",
                  worst <= 1e-5 ? "PASS" : "FAIL", ef_cuda_arcs_mapping_to_string (mi), worst);
          failures += worst > 1e-5;
        }
    }

    for (int mi = EF_CUDA_ARCS_WINDOW; mi <= EF_CUDA_ARCS_GRAPH && !cpu_only; mi++)
      {
        EfCudaArcsTiming sum = { 0 }, t1;
        gint64 t0;
        double wall;

        if (only != NULL && strstr (only, ef_cuda_arcs_mapping_to_string (mi)) == NULL)
          continue;
        /* A warm-up strip, then the whole image. */
        if (!ef_cuda_arcs_run (dev, re, im, rows_max, mi, FALSE, NULL, NULL, score, NULL, &error))
          {
            fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
            return 1;
          }
        t0 = g_get_monotonic_time ();
        for (int s = 0; s < n_strips; s++)
          {
            guint rows = MIN (strip, height - s * strip) + 2 * radius;

            if (!ef_cuda_arcs_run (dev, re, im, rows, mi, FALSE, NULL, NULL, score, &t1, &error))
              {
                fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
                return 1;
              }
            sum.h2d_ms += t1.h2d_ms;
            sum.kernel_ms += t1.kernel_ms;
            sum.d2h_ms += t1.d2h_ms;
          }
        wall = (g_get_monotonic_time () - t0) / 1e6;
        printf ("RESULT\t%s\t%s\twall %.3f s\th2d %.3f s\tkernels %.3f s\td2h %.3f s\t%.4g arcs*passes/s (wall)\t"
                "%.4g arcs*passes/s (kernels)\t%.1f%% of H2D bandwidth\n", ef_cuda_arcs_mapping_to_string (mi),
                device, wall, sum.h2d_ms / 1e3, sum.kernel_ms / 1e3, sum.d2h_ms / 1e3, workload_arcs * passes / wall,
                workload_arcs * passes / (sum.kernel_ms / 1e3), 100.0 * workload_bytes / wall / (gbps * 1e9));
      }

    if (pg_rows > 0 && passes <= 1000)
      {
        guint rows = MIN ((guint) pg_rows + 2 * radius, rows_max);
        double arcs = valid_arcs (width, rows, off, n_off);
        EfCudaArcsTiming t1;

        if (!cpu_only
            && (!ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, NULL, NULL, NULL, &t1, &error)
                || !ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, NULL, NULL, NULL, &t1, &error)))
          {
            fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
            return 1;
          }
        if (!cpu_only)
          {
            const char *kernel = ef_cuda_arcs_periodogram_kernel (dev);
            gboolean folded = g_str_has_suffix (kernel, "folded grid");
            /* What the kernel executes: 8 flops a grid point a pass on the full grid, 8 a pair on the
             * folded one (four multiply-adds). */
            double pts = folded ? (double) ((gv * gh + 1) / 2) : (double) gv * gh;

            printf ("RESULT\tperiodogram-cuda-cores\t%s\t%s\t%d x %d grid\tkernel %.3f ms for %u rows\t"
                    "%.4g arcs*passes*grid/s\t%.1f TFLOP/s (8 a complex multiply-add over the full grid)\t"
                    "%.1f TFLOP/s executed (8 flops a %s a pass)\twhole workload at this rate: %.1f s\n", device,
                    kernel, gv, gh, t1.kernel_ms, rows, arcs * passes * gv * gh / (t1.kernel_ms / 1e3),
                    8 * arcs * passes * gv * gh / (t1.kernel_ms / 1e3) / 1e12,
                    8 * arcs * passes * pts / (t1.kernel_ms / 1e3) / 1e12, folded ? "pair" : "grid point",
                    workload_arcs * passes * gv * gh / (arcs * passes * gv * gh / (t1.kernel_ms / 1e3)));
          }
#if EF_TEST_HOOKS
        if (!cpu_only && g_str_has_suffix (ef_cuda_arcs_periodogram_kernel (dev), "folded grid"))
          {
            /* The full-grid kernel on the same strip, timed, and the folded one's result against it. */
            gsize n_arc = (gsize) width * rows * n_off;
            g_autofree float *cf = g_new (float, n_arc), *cu = g_new (float, n_arc);
            g_autofree guint16 *bf = g_new (guint16, n_arc), *bu = g_new (guint16, n_arc);
            EfCudaArcsTiming t2;
            double dmax = 0;
            gsize nd = 0, same = 0;
            gboolean ok;

            ok = ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, cf, bf, NULL, NULL, &error);
            ef_cuda_arcs_debug_full_grid (TRUE);
            ok = ok && ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, cu, bu, NULL, &t2, &error);
            ef_cuda_arcs_debug_full_grid (FALSE);
            if (!ok)
              {
                fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
                return 1;
              }
            for (gsize i = 0; i < n_arc; i++)
              if (isnan (cu[i]) != isnan (cf[i]))
                dmax = INFINITY;
              else if (!isnan (cu[i]))
                {
                  dmax = MAX (dmax, fabs ((double) cf[i] - cu[i]));
                  nd++;
                  same += bf[i] == bu[i];
                }
            printf ("RESULT\tperiodogram-cuda-cores-full-grid\t%s\t%d x %d grid\tkernel %.3f ms for %u rows\t"
                    "%.1f TFLOP/s (8 a complex multiply-add)\twhole workload at this rate: %.1f s\tfolded grid "
                    "%.2fx faster\n", device, gv, gh, t2.kernel_ms, rows,
                    8 * arcs * passes * gv * gh / (t2.kernel_ms / 1e3) / 1e12,
                    workload_arcs * passes * gv * gh / (arcs * passes * gv * gh / (t2.kernel_ms / 1e3)),
                    t2.kernel_ms / t1.kernel_ms);
            printf ("%s periodogram folded grid against the full grid over the strip: largest coherence difference "
                    "%.3g (limit 1e-5), the same grid point for %.5f of %" G_GSIZE_FORMAT " arcs\n",
                    dmax <= 1e-5 && nd > 0 ? "PASS" : "FAIL", dmax, nd > 0 ? (double) same / nd : 0.0, nd);
            failures += !(dmax <= 1e-5 && nd > 0);
          }
#endif
        if (!cpu_only)
          {
            /* The same strip on tensor cores, against the CUDA cores' result. */
            gsize n_arc = (gsize) width * rows * n_off;
            g_autofree float *c32 = g_new (float, n_arc), *c16 = g_new (float, n_arc);
            g_autofree guint16 *b32 = g_new (guint16, n_arc), *b16 = g_new (guint16, n_arc);
            EfCudaArcsTiming t2;
            const char *tc_kernel;
            double dmax = 0, dsum = 0;
            gsize nd = 0, same = 0;

            if (!ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, c32, b32, NULL, NULL, &error)
                || !ef_cuda_arcs_set_periodogram_path (dev, EF_CUDA_ARCS_PG_TENSOR, &error)
                || !ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, c16, b16, NULL, &t2, &error)
                || !ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, c16, b16, NULL, &t2, &error))
              {
                fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
                return 1;
              }
            tc_kernel = ef_cuda_arcs_periodogram_kernel (dev);
#if EF_TEST_HOOKS
            /* The full-grid tensor-core kernel it replaced, timed on the same strip. */
            {
              EfCudaArcsTiming t3;

              ef_cuda_arcs_debug_full_grid (TRUE);
              if (!ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, NULL, NULL, NULL, &t3, &error)
                  || !ef_cuda_arcs_run (dev, re, im, rows, EF_CUDA_ARCS_WINDOW, TRUE, NULL, NULL, NULL, &t3, &error))
                {
                  ef_cuda_arcs_debug_full_grid (FALSE);
                  fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
                  return 1;
                }
              ef_cuda_arcs_debug_full_grid (FALSE);
              printf ("RESULT\tperiodogram-tensor-cores-full-grid\t%s\t%d x %d grid\tkernel %.3f ms for %u rows\t"
                      "whole workload at this rate: %.1f s\tfolded grid %.2fx faster\n", device, gv, gh,
                      t3.kernel_ms, rows,
                      workload_arcs * passes * gv * gh / (arcs * passes * gv * gh / (t3.kernel_ms / 1e3)),
                      t3.kernel_ms / t2.kernel_ms);
            }
#endif
            if (!ef_cuda_arcs_set_periodogram_path (dev, EF_CUDA_ARCS_PG_FP32, &error))
              {
                fprintf (stderr, "bench-cuda-arcs: %s\n", error->message);
                return 1;
              }
            for (gsize i = 0; i < n_arc; i++)
              if (!isnan (c32[i]))
                {
                  double e = fabs ((double) c16[i] - c32[i]);

                  dmax = MAX (dmax, e);
                  dsum += e;
                  nd++;
                  same += b16[i] == b32[i];
                }
            printf ("RESULT\tperiodogram-tensor-cores\t%s\t%s\t%d x %d grid\tkernel %.3f ms for %u rows\t"
                    "%.4g arcs*passes*grid/s\t%.1f TFLOP/s (8 a complex multiply-add)\twhole workload at this rate: "
                    "%.1f s\tcoherence vs CUDA cores: max %.2e, mean %.2e; same grid point %.4f\n", device, tc_kernel,
                    gv, gh,
                    t2.kernel_ms, rows, arcs * passes * gv * gh / (t2.kernel_ms / 1e3),
                    8 * arcs * passes * gv * gh / (t2.kernel_ms / 1e3) / 1e12,
                    workload_arcs * passes * gv * gh / (arcs * passes * gv * gh / (t2.kernel_ms / 1e3)), dmax,
                    nd > 0 ? dsum / nd : 0.0, nd > 0 ? (double) same / nd : 0.0);
          }
        if (!no_cpu)
          {
            guint crow = MIN (rows, 4u + 2 * radius);
            EfArcPhasors part = { (guint) width, crow, (guint) passes, re, im };
            g_autofree float *tmp = g_new (float, (gsize) width * crow * n_off);
            gint64 t0;
            double s;

            /* Rows of one plane are not the planes of a smaller region: use a region of its own size. */
            part.re = g_new (float, (gsize) width * crow * passes);
            part.im = g_new (float, (gsize) width * crow * passes);
            for (int k = 0; k < passes; k++)
              {
                memcpy (part.re + (gsize) k * width * crow, re + (gsize) k * plane_max, (gsize) width * crow * 4);
                memcpy (part.im + (gsize) k * width * crow, im + (gsize) k * plane_max, (gsize) width * crow * 4);
              }
            t0 = g_get_monotonic_time ();
            if (!ef_arcs_periodogram (&part, off, n_off, &m, &grid, tmp, NULL, &error))
              return 1;
            s = (g_get_monotonic_time () - t0) / 1e6;
            printf ("RESULT\tperiodogram-cpu\tcpu\t%d x %d grid\t%.3f s for %u rows\t%.4g arcs*passes*grid/s\t"
                    "whole workload at this rate: %.0f s\n", gv, gh, s, crow,
                    valid_arcs (width, crow, off, n_off) * passes * gv * gh / s,
                    workload_arcs / valid_arcs (width, crow, off, n_off) * s);
            g_free (part.re);
            g_free (part.im);
          }
      }
  }
  if (cpu_only)
    {
      g_free (re);
      g_free (im);
    }
  else
    {
      ef_cuda_arcs_host_free (re);
      ef_cuda_arcs_host_free (im);
    }
  return failures ? 1 : 0;
}
