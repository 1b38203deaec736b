/* ef-cli-bench-read.c: `echoform-cli bench --read`: how fast a dataset's samples come off the page cache. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <glib/gstdio.h>

#include "ef-cli-private.h"
#include "ef-cphd.h"
#include "ef-error.h"

/* As complex float, the way a job reads them, block by block. */

/* The bytes a CPHD file's signal array holds, from SIGNAL_BLOCK_SIZE in its text header: the sample
 * format is not part of EfDatasetInfo, and the header states the size without the XML. 0 if the file
 * is not CPHD or the key is missing. */
static guint64
cphd_signal_block_size (const char *path)
{
  /* Read, not mapped: a file cut short by another program meanwhile must not raise SIGBUS here. */
  char head[64 * 1024 + 1];
  const char *key = "\nSIGNAL_BLOCK_SIZE := ";
  const char *hit, *end;
  gsize len;
  FILE *f = g_fopen (path, "rb");

  if (f == NULL)
    return 0;
  len = fread (head, 1, sizeof head - 1, f);
  fclose (f);
  head[len] = '\0';
  if (!ef_cphd_sniff ((const guint8 *) head, len))
    return 0;
  /* The header ends at "\f\n"; the key must come before it. */
  end = memchr (head, '\f', len);
  hit = g_strstr_len (head, end != NULL ? end - head : (gssize) len, key);
  if (hit == NULL)
    return 0;
  hit += strlen (key);
  if (!g_ascii_isdigit (*hit))
    return 0;
  return g_ascii_strtoull (hit, NULL, 10);
}

/* Bytes on disk of a file, or of the regular files directly inside a folder (a Gotcha folder). */
static guint64
input_size (const char *path)
{
  GStatBuf st;
  guint64 total = 0;
  g_autoptr (GDir) dir = NULL;
  const char *name;

  if (g_stat (path, &st) != 0)
    return 0;
  if (!S_ISDIR (st.st_mode))
    return (guint64) st.st_size;
  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_stat (child, &st) == 0 && S_ISREG (st.st_mode))
        total += (guint64) st.st_size;
    }
  return total;
}

/* CPU time of the calling thread, page faults in the kernel included. On a machine shared with other
 * work it varies far less than the wall clock. */
static double
thread_cpu_s (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return NAN;
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

typedef struct {
  double seconds;      /* best wall time of the timed passes */
  double cpu_seconds;  /* best thread CPU time of the timed passes */
} ReadTiming;

/* One pass of ef_dataset_read_block over every pulse; keeps the best times in timing. Returns FALSE with
 * error set on failure. */
static gboolean
read_pass (EfDataset *ds, guint block, EfCf32 *buf, ReadTiming *timing, GError **error)
{
  guint64 n = ds->info.n_pulses;
  double c0 = thread_cpu_s (), t0 = (double) g_get_monotonic_time () * 1e-6;

  for (guint64 first = 0; first < n; first += block)
    if (!ef_dataset_read_block (ds, first, (guint) MIN ((guint64) block, n - first), buf, error))
      return FALSE;
  if (timing != NULL)
    {
      timing->seconds = MIN (timing->seconds, (double) g_get_monotonic_time () * 1e-6 - t0);
      timing->cpu_seconds = MIN (timing->cpu_seconds, thread_cpu_s () - c0);
    }
  return TRUE;
}

int
ef_cli_bench_read (const char *path, guint block, guint repeat, gboolean json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree char *source = NULL;
  g_autofree EfCf32 *buf = NULL;
  ReadTiming fresh = { INFINITY, INFINITY }, mapped = { INFINITY, INFINITY };
  guint64 n_pulses, n_samples, cf32_bytes, file_bytes, sig;
  double bytes_per_sample = NAN;
  const char *format = NULL;
  gboolean is_cphd;
  EfDomain domain;

  /* Pass 0 brings the file into the page cache (when it fits) and is not timed. */
  ds = ef_dataset_open (path, 0, &error);
  if (ds == NULL)
    return ef_cli_report ("bench", error);
  n_pulses = ds->info.n_pulses;
  n_samples = ds->info.n_samples;
  domain = ds->info.domain;
  source = g_strdup (ds->info.source);
  block = (guint) MIN ((guint64) block, n_pulses);
  buf = g_try_new (EfCf32, (gsize) block * n_samples);
  if (buf == NULL)
    {
      ef_cli_error ("bench: not enough memory for a block of %u pulses x %" G_GUINT64_FORMAT " samples", block,
                    n_samples);
      return EF_CLI_EXIT_FAILURE;
    }
  if (ef_cli_stderr_is_tty ())
    fprintf (stderr, "\rReading %s once to warm the page cache…\033[K", path);
  if (!read_pass (ds, block, buf, NULL, &error))
    return ef_cli_report ("bench", error);

  /* What the file spends on the samples. For a CPHD file with one channel that is its signal array;
   * for anything else it is the input's size on disk. */
  sig = cphd_signal_block_size (path);
  is_cphd = sig > 0;
  cf32_bytes = n_pulses * n_samples * sizeof (EfCf32);
  if (is_cphd && ds->info.n_channels == 1)
    {
      file_bytes = sig;
      bytes_per_sample = (double) sig / (double) (n_pulses * n_samples);
      format = bytes_per_sample == 8 ? "CF8" : bytes_per_sample == 4 ? "CI4" : bytes_per_sample == 2 ? "CI2" : NULL;
    }
  else if (is_cphd)
    file_bytes = 0;  /* several channels share the signal block: this one's share is not stated */
  else
    file_bytes = input_size (path);

  for (guint rep = 0; rep < repeat; rep++)
    {
      if (ef_cli_stderr_is_tty ())
        fprintf (stderr, "\rTimed pass %u of %u…\033[K", rep + 1, repeat);
      /* A fresh open, as a job over a cached file does: every block comes from the page cache. Opening
       * is not timed. */
      g_clear_pointer (&ds, ef_dataset_unref);
      ds = ef_dataset_open (path, 0, &error);
      if (ds == NULL)
        return ef_cli_report ("bench", error);
      if (!read_pass (ds, block, buf, &fresh, &error))
        return ef_cli_report ("bench", error);
      /* The same dataset again. While CPHD files were mapped this timed the conversion alone; now each
       * block is copied from the page cache again, as in the first pass. */
      if (!read_pass (ds, block, buf, &mapped, &error))
        return ef_cli_report ("bench", error);
    }
  if (ef_cli_stderr_is_tty ())
    fprintf (stderr, "\r\033[K");

  if (json)
    {
      g_autofree char *text = NULL;
      EfCliJson j;
      const ReadTiming *rows[2] = { &fresh, &mapped };
      const char *names[2] = { "fresh_mapping", "mapped" };

      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_string (&j, "input", path);
      ef_cli_json_string (&j, "source", source);
      ef_cli_json_string (&j, "domain", ef_domain_to_string (domain));
      ef_cli_json_int (&j, "pulses", (gint64) n_pulses);
      ef_cli_json_int (&j, "samples", (gint64) n_samples);
      if (file_bytes > 0)
        ef_cli_json_int (&j, "file_bytes", (gint64) file_bytes);
      else
        ef_cli_json_null (&j, "file_bytes");
      ef_cli_json_bool (&j, "file_bytes_are_signal", is_cphd && file_bytes > 0);
      ef_cli_json_double (&j, "bytes_per_sample", bytes_per_sample);
      ef_cli_json_string (&j, "format", format);
      ef_cli_json_int (&j, "cf32_bytes", (gint64) cf32_bytes);
      ef_cli_json_int (&j, "block", block);
      ef_cli_json_int (&j, "repeat", repeat);
      for (int i = 0; i < 2; i++)
        {
          ef_cli_json_begin_object (&j, names[i]);
          ef_cli_json_double (&j, "seconds", rows[i]->seconds);
          ef_cli_json_double (&j, "cpu_seconds", rows[i]->cpu_seconds);
          ef_cli_json_double (&j, "file_gb_per_s", file_bytes > 0 ? file_bytes / rows[i]->seconds / 1e9 : NAN);
          ef_cli_json_double (&j, "cf32_gb_per_s", cf32_bytes / rows[i]->seconds / 1e9);
          ef_cli_json_double (&j, "file_gb_per_cpu_s",
                              file_bytes > 0 ? file_bytes / rows[i]->cpu_seconds / 1e9 : NAN);
          ef_cli_json_double (&j, "cf32_gb_per_cpu_s", cf32_bytes / rows[i]->cpu_seconds / 1e9);
          ef_cli_json_end_object (&j);
        }
      ef_cli_json_end_object (&j);
      text = ef_cli_json_finish (&j);
      fputs (text, stdout);
      return EF_CLI_EXIT_OK;
    }

  printf ("Input:   %s (%s), %s, %" G_GUINT64_FORMAT " pulses x %" G_GUINT64_FORMAT " samples\n", path, source,
          ef_domain_to_string (domain), n_pulses, n_samples);
  if (is_cphd && file_bytes > 0)
    printf ("Signal:  %" G_GUINT64_FORMAT " bytes in the file (%g per sample%s%s), %" G_GUINT64_FORMAT
            " bytes as complex float\n", file_bytes, bytes_per_sample, format != NULL ? ", " : "",
            format != NULL ? format : "", cf32_bytes);
  else if (file_bytes > 0)
    printf ("Input:   %" G_GUINT64_FORMAT " bytes on disk, %" G_GUINT64_FORMAT " bytes as complex float\n",
            file_bytes, cf32_bytes);
  else
    printf ("Signal:  %" G_GUINT64_FORMAT " bytes as complex float (the file's share for this channel is not "
            "known)\n", cf32_bytes);
  printf ("Block:   %u pulses; one untimed warm-up pass, then the best of %u\n", block, repeat);
  printf ("%-14s %9s %9s %10s %10s %14s %14s\n", "pass", "seconds", "CPU s", "file GB/s", "cf32 GB/s",
          "file GB/CPU-s", "cf32 GB/CPU-s");
  for (int i = 0; i < 2; i++)
    {
      const ReadTiming *r = i == 0 ? &fresh : &mapped;
      char file_rate[32], file_cpu_rate[32];

      if (file_bytes > 0)
        {
          g_snprintf (file_rate, sizeof file_rate, "%.3f", file_bytes / r->seconds / 1e9);
          g_snprintf (file_cpu_rate, sizeof file_cpu_rate, "%.3f", file_bytes / r->cpu_seconds / 1e9);
        }
      else
        {
          g_strlcpy (file_rate, "-", sizeof file_rate);
          g_strlcpy (file_cpu_rate, "-", sizeof file_cpu_rate);
        }
      printf ("%-14s %9.4f %9.4f %10s %10.3f %14s %14.3f\n", i == 0 ? "fresh mapping" : "mapped", r->seconds,
              r->cpu_seconds, file_rate, cf32_bytes / r->seconds / 1e9, file_cpu_rate,
              cf32_bytes / r->cpu_seconds / 1e9);
    }
  printf ("Each column is the best of the timed passes; GB/CPU-s divides by this thread's CPU time, which a "
          "busy machine disturbs less than the wall clock.\n");
  return EF_CLI_EXIT_OK;
}
