/* test-streaming.c: a job over a memory-mapped CPHD file holds two pulse blocks in memory, never the file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <glib/gstdio.h>

#include "ef-cphd.h"
#include "ef-error.h"
#include "ef-job.h"
#include "ef-metrics.h"
#include "ef-rangecomp.h"
#include "ef-sim.h"

/* The same checks run at any scale. By default the file is 64 MB, large next to the memory bound and
 * quick to write. To stream a file larger than the machine's memory, run for example
 *   EF_STREAM_MB=30000 EF_STREAM_SAMPLES=4096 EF_STREAM_DIR=/var/tmp EF_STREAM_DROP_CACHE=1 \
 *     test-streaming -p /streaming/cphd/bounded-memory
 * EF_STREAM_DROP_CACHE asks the kernel to forget the written pages, so that the job reads from disk.
 * EF_STREAM_KEEP=1 keeps the file. */
#define DEFAULT_FILE_MB 64
#define DEFAULT_SAMPLES 1024
/* Memory the job may touch beyond its declared buffers: thread stacks, malloc arenas, FFTW plans, the
 * OpenMP runtime. It does not grow with the file. */
#define SLACK_BYTES (G_GUINT64_CONSTANT (16) << 20)
/* Above this the image is not formed a second time from the generator for comparison. */
#define COMPARE_MAX_BYTES (G_GUINT64_CONSTANT (256) << 20)

/* ---- a cheap synthetic collection: one point target, generated pulse by pulse ---- */

typedef struct {
  EfSimTarget target;
} SynthPriv;

/* d(p, k) = amp exp(-j 4 pi f_k (|a_p - x_t| - r0_p) / c), the FX model of DESIGN.md, with the phase
 * advanced by a rotation per sample so that a 30 GB file is generated in seconds. */
static gboolean
synth_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  const SynthPriv *priv = self->priv;
  gsize ns = self->info.n_samples;

  for (guint i = 0; i < count; i++)
    {
      const EfPulse *pu = &self->pulses[first + i];
      const double *x = priv->target.pos;
      double d[3] = { pu->tx[0] - x[0], pu->tx[1] - x[1], pu->tx[2] - x[2] };
      double dr = sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - pu->r0;
      EfCf64 z = priv->target.amp * cexp (-I * 4.0 * G_PI * pu->sc0 * dr / EF_C);
      EfCf64 w = cexp (-I * 4.0 * G_PI * pu->scss * dr / EF_C);
      double zr = creal (z), zi = cimag (z), wr = creal (w), wi = cimag (w);
      EfCf32 *dst = out + (gsize) i * ns;

      /* Written out: C's complex product checks for infinities on every call. */
      for (gsize k = 0; k < ns; k++)
        {
          double t = zr * wr - zi * wi;

          dst[k] = CMPLXF ((float) zr, (float) zi);
          zi = zr * wi + zi * wr;
          zr = t;
        }
    }
  return TRUE;
}

static void
synth_finalize (EfDataset *self)
{
  g_free (self->priv);
}

static const EfDatasetOps synth_ops = {
  .read_block = synth_read_block,
  .finalize = synth_finalize,
};

/* On a pixel centre of the 0.25 m grids below, so that the peak falls on one pixel. */
static const double target_pos[3] = { 3.125, -2.125, 0.0 };

/* An airborne X-band circular spotlight: 10 km standoff, 30 degrees grazing, 3 degrees of azimuth. */
static EfDataset *
synth_new (guint64 n_pulses, guint n_samples)
{
  EfDataset *ds = ef_dataset_alloc (&synth_ops);
  SynthPriv *priv = g_new0 (SynthPriv, 1);
  const double fc = 9.6e9, bw = 600e6, standoff = 10e3, graze = 30.0 * G_PI / 180.0;
  const double aperture = 3.0 * G_PI / 180.0;

  memcpy (priv->target.pos, target_pos, sizeof target_pos);
  priv->target.amp = 1.0;
  ds->priv = priv;
  ds->info.domain = EF_DOMAIN_FX;
  ds->info.n_pulses = n_pulses;
  ds->info.n_samples = n_samples;
  ds->info.fc = fc;
  ds->info.bandwidth = bw;
  ds->info.has_geo = TRUE;
  ds->info.srp_llh[0] = 35.05;
  ds->info.srp_llh[1] = -106.6;
  ds->info.srp_llh[2] = 1500.0;
  ef_geo_llh_to_ecf (ds->info.srp_llh, ds->info.srp_ecf);
  ds->info.source = g_strdup ("synthetic");
  ds->pulses = g_new0 (EfPulse, n_pulses);
  for (guint64 p = 0; p < n_pulses; p++)
    {
      EfPulse *pu = &ds->pulses[p];
      double az = aperture * ((double) p / (double) MAX (n_pulses - 1, 1) - 0.5);

      pu->tx[0] = standoff * cos (graze) * cos (az);
      pu->tx[1] = standoff * cos (graze) * sin (az);
      pu->tx[2] = standoff * sin (graze);
      memcpy (pu->rcv, pu->tx, sizeof pu->tx);
      pu->r0 = standoff;
      pu->scss = bw / n_samples;
      pu->sc0 = fc - 0.5 * bw;
      pu->t = (double) p * 1e-4;
      pu->fx1 = pu->sc0;
      pu->fx2 = pu->sc0 + (n_samples - 1) * pu->scss;
    }
  return ds;
}

/* ---- memory as the kernel counts it ---- */

/* Reads "Key:   N kB" from /proc/self/status, in bytes, without allocating: the sampler thread calls it
 * while the job runs, and an allocation of its own would blur what it measures. */
static gboolean
proc_status_bytes (const char *key, guint64 *out)
{
  char buf[4096];
  gsize klen = strlen (key);
  gssize n;
  int fd = open ("/proc/self/status", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return FALSE;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return FALSE;
  buf[n] = '\0';
  for (const char *line = buf; line != NULL && *line != '\0';)
    {
      if (strncmp (line, key, klen) == 0 && line[klen] == ':')
        {
          *out = g_ascii_strtoull (line + klen + 1, NULL, 10) * 1024;
          return TRUE;
        }
      line = strchr (line, '\n');
      if (line != NULL)
        line++;
    }
  return FALSE;
}

/* RssAnon is the anonymous memory the process has touched: heap, thread stacks, the job's blocks. The
 * pages of a memory-mapped file count in RssFile instead: touching them maps page-cache pages, which
 * the kernel can drop again at any time because the file holds their contents. A reader that copied
 * the file into its own memory would show up in RssAnon, so that is what the bound is about. */
typedef struct {
  gint    stop;       /* atomic */
  guint64 peak_anon;  /* written by the sampler until it is joined */
  guint64 peak_file;
  guint   n_samples;
} Sampler;

static void
sampler_take (Sampler *s)
{
  guint64 anon, file;

  if (proc_status_bytes ("RssAnon", &anon))
    s->peak_anon = MAX (s->peak_anon, anon);
  if (proc_status_bytes ("RssFile", &file))
    s->peak_file = MAX (s->peak_file, file);
  s->n_samples++;
}

static gpointer
sampler_main (gpointer data)
{
  Sampler *s = data;

  while (!g_atomic_int_get (&s->stop))
    {
      sampler_take (s);
      g_usleep (2000);
    }
  sampler_take (s);
  return NULL;
}

/* The progress callback samples too, at the moment both blocks are certainly allocated. */
typedef struct {
  guint64 peak_anon;
  guint   calls;
} Watch;

static void
watch_cb (EfJob *job, const EfJobProgress *pr, gpointer data)
{
  Watch *w = data;
  guint64 anon;

  w->calls++;
  if (proc_status_bytes ("RssAnon", &anon))
    w->peak_anon = MAX (w->peak_anon, anon);
}

static gboolean
under_address_sanitizer (void)
{
#if defined(__SANITIZE_ADDRESS__)
  return TRUE;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return TRUE;
#else
  return FALSE;
#endif
#else
  return FALSE;
#endif
}

static void
trim_heap (void)
{
  /* Memory freed by the writer may stay in malloc's free lists; give it back so that the baseline is
   * what the process really holds, and the job's growth is measured in full. */
#ifdef __GLIBC__
  malloc_trim (0);
#endif
}

/* ---- helpers ---- */

static guint64
env_uint (const char *name, guint64 fallback)
{
  const char *s = g_getenv (name);
  guint64 v;

  if (s == NULL || !g_ascii_string_to_unsigned (s, 10, 1, G_MAXUINT64, &v, NULL))
    return fallback;
  return v;
}

static double
now_s (void)
{
  return g_get_monotonic_time () * 1e-6;
}

static char *
make_tmp_in (const char *dir, GError **error)
{
  char *path = g_build_filename (dir, "ef-streaming-XXXXXX", NULL);

  if (g_mkdtemp (path) == NULL)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "Cannot make a folder in %s", dir);
      g_free (path);
      return NULL;
    }
  return path;
}

static char *
work_dir (void)
{
  const char *dir = g_getenv ("EF_STREAM_DIR");
  g_autoptr (GError) error = NULL;
  char *tmp;

  if (dir != NULL)
    tmp = make_tmp_in (dir, &error);
  else
    tmp = g_dir_make_tmp ("ef-streaming-XXXXXX", &error);
  g_assert_no_error (error);
  return tmp;
}

static void
remove_work (const char *dir, const char *file)
{
  if (g_strcmp0 (g_getenv ("EF_STREAM_KEEP"), "1") == 0)
    {
      g_test_message ("kept %s", file);
      return;
    }
  g_unlink (file);
  g_rmdir (dir);
}

/* A job over ds of a small ROI about the target, sequential blocks, on the CPU. */
static void
job_params (EfJobParams *jp, guint roi_px, guint block, guint upsample)
{
  EfGrid grid;
  double half = 0.125 * roi_px;
  g_autoptr (GError) error = NULL;

  g_assert_true (ef_grid_init_roi (&grid, -half, -half, half, half, 0.25, &error));
  g_assert_no_error (error);
  ef_job_params_init (jp, &grid);
  jp->backend_kind = EF_BACKEND_CPU;
  jp->backend.block_size = block;
  jp->backend.range.upsample = upsample;
}

static EfCf32 *
run_job (EfDataset *ds, const EfJobParams *jp, Watch *watch, double *seconds)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfJob) job = NULL;
  const EfGrid *g = &jp->backend.grid;
  EfRect all = { 0, 0, g->width, g->height };
  EfCf32 *img = g_new (EfCf32, ef_grid_n_pixels (g));
  double t0 = now_s ();
  Watch local = { 0 };

  job = ef_job_new (ds, jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, watch_cb, watch != NULL ? watch : &local, &error));
  g_assert_no_error (error);
  if (seconds != NULL)
    *seconds = now_s () - t0;
  g_assert_true (ef_job_read_image (job, &all, img, &error));
  g_assert_no_error (error);
  return img;
}

/* The image's brightest pixel must be the target's. */
static void
assert_peak_at_target (const EfCf32 *img, const EfGrid *g)
{
  gsize best = 0, n = ef_grid_n_pixels (g);
  double col, row;

  for (gsize i = 1; i < n; i++)
    if (cabsf (img[i]) > cabsf (img[best]))
      best = i;
  ef_grid_position_to_pixel (g, target_pos, &col, &row);
  g_test_message ("peak |z| = %.4g at (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "); target at (%.2f, %.2f)",
                  cabsf (img[best]), best % g->width, best / g->width, col, row);
  g_assert_cmpfloat (cabsf (img[best]), >, 0);
  g_assert_cmpfloat (fabs ((double) (best % g->width) - col), <=, 1.0);
  g_assert_cmpfloat (fabs ((double) (best / g->width) - row), <=, 1.0);
}

/* Writes n_pulses x n_samples CF8 samples to DIR/stream.cphd, streamed from the generator block by block. */
static char *
write_cphd (const char *dir, guint64 n_pulses, guint n_samples, double *seconds)
{
  g_autoptr (EfDataset) synth = synth_new (n_pulses, n_samples);
  g_autoptr (GError) error = NULL;
  EfCphdWriteOptions wo = { EF_CPHD_CF8, NULL, NULL };
  char *path = g_build_filename (dir, "stream.cphd", NULL);
  double t0 = now_s ();

  g_assert_true (ef_cphd_write (synth, path, &wo, &error));
  g_assert_no_error (error);
  if (seconds != NULL)
    *seconds = now_s () - t0;
  return path;
}

static guint64
header_value (const char *path, const char *key)
{
  g_autofree char *head = g_malloc0 (4097);
  g_autofree char *needle = g_strdup_printf ("\n%s := ", key);
  FILE *f = g_fopen (path, "rb");
  const char *hit;

  g_assert_nonnull (f);
  g_assert_cmpuint (fread (head, 1, 4096, f), >, 0);
  fclose (f);
  hit = strstr (head, needle);
  g_assert_nonnull (hit);
  return g_ascii_strtoull (hit + strlen (needle), NULL, 10);
}

/* ---- the cases ---- */

static void
test_bounded_memory (void)
{
  guint64 file_mb = env_uint ("EF_STREAM_MB", DEFAULT_FILE_MB);
  guint n_samples = (guint) env_uint ("EF_STREAM_SAMPLES", DEFAULT_SAMPLES);
  guint roi_px = (guint) env_uint ("EF_STREAM_ROI_PX", 64);
  guint block = (guint) env_uint ("EF_STREAM_BLOCK", 32);
  guint upsample = (guint) env_uint ("EF_STREAM_UPSAMPLE", 2);
  guint64 n_pulses = MAX ((guint64) 2, (file_mb << 20) / ((guint64) n_samples * sizeof (EfCf32)));
  g_autofree char *dir = work_dir ();
  g_autofree char *path = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) error = NULL;
  EfJobParams jp;
  Sampler sampler = { 0 };
  Watch watch = { 0 };
  GThread *thread;
  GStatBuf st;
  guint64 anon_before_open, anon_base, file_base, peak, growth, bound, n_bins, blocks, profiles, images, books;
  double t_write = 0, t_job = 0;

  g_assert_nonnull (dir);
  if (!proc_status_bytes ("RssAnon", &anon_before_open))
    {
      g_test_skip ("/proc/self/status has no RssAnon: the kernel is older than 4.5 or this is not Linux");
      g_rmdir (dir);
      return;
    }

  path = write_cphd (dir, n_pulses, n_samples, &t_write);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  if (g_getenv ("EF_STREAM_DROP_CACHE") != NULL)
    {
      int fd = open (path, O_RDONLY | O_CLOEXEC);

      /* Clean pages only go: the writer has synced the file already. */
      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED), ==, 0);
      close (fd);
    }

  trim_heap ();
  g_assert_true (proc_status_bytes ("RssAnon", &anon_before_open));
  ds = ef_cphd_open (path, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, n_pulses);
  job_params (&jp, roi_px, block, upsample);
  {
    g_autoptr (EfRangeCompressor) rc = ef_range_compressor_new (&ds->info, &jp.backend.range, FALSE, &error);
    g_assert_no_error (error);
    n_bins = ef_range_compressor_n_bins (rc);
  }

  /* What the job is entitled to: two pulse blocks in flight, one block of range profiles, the
   * accumulator with its published copy and the spare that the copy swaps with, and eight bytes of
   * bookkeeping per pulse used. Nothing in it grows with the samples in the file. */
  blocks = 2 * (guint64) block * (n_samples * sizeof (EfCf32) + sizeof (EfPulse));
  profiles = (guint64) block * (n_bins * sizeof (EfCf32) + sizeof (EfProfileMeta));
  images = 3 * ef_grid_n_pixels (&jp.backend.grid) * sizeof (EfCf32);
  books = n_pulses * sizeof (guint64) + n_pulses / block * sizeof (guint) + 64;
  bound = blocks + profiles + images + books + SLACK_BYTES;
  /* The check means something only if the file dwarfs what the job may hold. */
  g_assert_cmpuint ((guint64) st.st_size, >, 2 * bound);

  trim_heap ();
  g_assert_true (proc_status_bytes ("RssAnon", &anon_base));
  g_assert_true (proc_status_bytes ("RssFile", &file_base));
  sampler.peak_anon = anon_base;
  thread = g_thread_new ("rss-sampler", sampler_main, &sampler);
  img = run_job (ds, &jp, &watch, &t_job);
  g_atomic_int_set (&sampler.stop, 1);
  g_thread_join (thread);

  peak = MAX (sampler.peak_anon, watch.peak_anon);
  growth = peak > anon_base ? peak - anon_base : 0;
  g_test_message ("file %.1f MB (%" G_GUINT64_FORMAT " pulses x %u samples CF8), written in %.2f s",
                  st.st_size / 1e6, n_pulses, n_samples, t_write);
  g_test_message ("job: ROI %u x %u px, blocks of %u pulses, upsample %u, %.2f s (%.2f GB/s of file)", roi_px,
                  roi_px, block, upsample, t_job, st.st_size / t_job / 1e9);
  g_test_message ("RssAnon: %.1f MB before opening, %.1f MB after (pulse metadata), peak %.1f MB during the job "
                  "(+%.2f MB; %u samples, %u callbacks)", anon_before_open / 1e6, anon_base / 1e6, peak / 1e6,
                  growth / 1e6, sampler.n_samples, watch.calls);
  g_test_message ("bound: blocks %.2f + profiles %.2f + images %.2f + bookkeeping %.2f + slack %.2f = %.2f MB",
                  blocks / 1e6, profiles / 1e6, images / 1e6, books / 1e6, SLACK_BYTES / 1e6, bound / 1e6);
  g_test_message ("RssFile: %.1f MB before the job, peak %.1f MB (mapped file pages; reclaimable)",
                  file_base / 1e6, sampler.peak_file / 1e6);

  g_assert_cmpuint (watch.calls, >=, 2);
  if (under_address_sanitizer ())
    g_test_message ("AddressSanitizer keeps freed memory in quarantine and adds shadow memory; RssAnon does "
                    "not measure the program here, so the bound is not checked");
  else
    g_assert_cmpuint (growth, <=, bound);

  assert_peak_at_target (img, &jp.backend.grid);
  if ((guint64) st.st_size <= COMPARE_MAX_BYTES)
    {
      /* The same job over the generator itself: CF8 holds float samples exactly, so the file must
       * give the same image. */
      g_autoptr (EfDataset) synth = synth_new (n_pulses, n_samples);
      g_autofree EfCf32 *ref = run_job (synth, &jp, NULL, NULL);
      double ser = ef_ser_db_f32 (img, ref, ef_grid_n_pixels (&jp.backend.grid));

      g_test_message ("image from the file vs from the generator: SER %.1f dB", ser);
      /* Measured 162 dB: only the threads' order of summation differs. */
      g_assert_cmpfloat (ser, >=, 150.0);
    }

  g_clear_pointer (&ds, ef_dataset_unref);
  remove_work (dir, path);
}

/* A CPHD file whose signal block is partly a hole (never written, or punched out) reads as zeros
 * there: the pulses before the hole form exactly the image that they form alone. */
static void
test_sparse_signal (void)
{
  const guint64 n_pulses = 1024, half = 512;
  const guint n_samples = 1024;
  guint64 vector_bytes = n_samples * 8, sig_off, hole_off, hole_len;
  g_autofree char *dir = work_dir ();
  g_autofree char *path = NULL;
  g_autofree EfCf32 *front = NULL;
  g_autofree EfCf32 *whole = NULL;
  g_autofree EfCf32 *buf = NULL;
  g_autofree EfCf32 *expect = NULL;
  g_autoptr (GError) error = NULL;
  EfJobParams jp;
  GStatBuf before, after;
  int fd;

  path = write_cphd (dir, n_pulses, n_samples, NULL);
  job_params (&jp, 64, 32, 2);

  /* The first half on its own, from the intact file. */
  {
    g_autoptr (EfDataset) ds = ef_cphd_open (path, 0, &error);
    EfJobParams first = jp;

    g_assert_no_error (error);
    first.n_pulses = half;
    front = run_job (ds, &first, NULL, NULL);
  }

  /* Punch the second half of the signal block out. The file keeps its size; the blocks go back to the
   * file system, and the kernel zeroes the partial pages at the hole's edges. */
  sig_off = header_value (path, "SIGNAL_BLOCK_BYTE_OFFSET");
  g_assert_cmpuint (header_value (path, "SIGNAL_BLOCK_SIZE"), ==, n_pulses * vector_bytes);
  hole_off = sig_off + half * vector_bytes;
  hole_len = (n_pulses - half) * vector_bytes;
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  fd = open (path, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  if (fallocate (fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t) hole_off, (off_t) hole_len) != 0)
    {
      int saved = errno;

      close (fd);
      remove_work (dir, path);
      if (saved == EOPNOTSUPP || saved == ENOSYS)
        {
          g_test_skip ("the file system cannot punch holes");
          return;
        }
      g_error ("fallocate: %s", g_strerror (saved));
    }
  close (fd);
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpint (after.st_size, ==, before.st_size);
  g_test_message ("file %.1f MB; allocated %.1f MB before the hole, %.1f MB after", before.st_size / 1e6,
                  before.st_blocks * 512.0 / 1e6, after.st_blocks * 512.0 / 1e6);
  /* The hole is real: at least most of its pages went back. */
  g_assert_cmpuint ((guint64) (before.st_blocks - after.st_blocks) * 512, >=, hole_len / 2);

  {
    g_autoptr (EfDataset) ds = ef_cphd_open (path, 0, &error);
    g_autoptr (EfDataset) synth = synth_new (n_pulses, n_samples);
    double ser;

    g_assert_no_error (error);
    g_assert_cmpuint (ds->info.n_pulses, ==, n_pulses);

    /* Pulse by pulse: the data before the hole, zeros inside it, including the pulses that straddle a
     * page boundary at its start. */
    buf = g_new (EfCf32, n_samples * 2);
    expect = g_new (EfCf32, n_samples * 2);
    for (guint64 p = half - 2; p < half + 2; p += 2)
      {
        g_assert_true (ef_dataset_read_block (ds, p, 2, buf, &error));
        g_assert_no_error (error);
        g_assert_true (ef_dataset_read_block (synth, p, 2, expect, &error));
        for (guint i = 0; i < 2 * n_samples; i++)
          {
            EfCf32 want = p + i / n_samples < half ? expect[i] : 0;
            if (buf[i] != want)
              g_error ("pulse %" G_GUINT64_FORMAT " sample %u: read %g%+gj, expected %g%+gj", p + i / n_samples,
                       i % n_samples, crealf (buf[i]), cimagf (buf[i]), crealf (want), cimagf (want));
          }
      }
    g_assert_true (ef_dataset_read_block (ds, n_pulses - 1, 1, buf, &error));
    for (guint i = 0; i < n_samples; i++)
      g_assert_true (buf[i] == 0);

    whole = run_job (ds, &jp, NULL, NULL);
    ser = ef_ser_db_f32 (whole, front, ef_grid_n_pixels (&jp.backend.grid));
    g_test_message ("all pulses over the hole vs the first half alone: SER %.1f dB", ser);
    /* The hole's pulses are zeros and add nothing: measured identical (infinite SER). */
    g_assert_cmpfloat (ser, >=, 150.0);
    assert_peak_at_target (whole, &jp.backend.grid);
  }
  remove_work (dir, path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/streaming/cphd/bounded-memory", test_bounded_memory);
  g_test_add_func ("/streaming/cphd/sparse-signal", test_sparse_signal);
  return g_test_run ();
}
