/* test-gotcha.c: the AFRL Gotcha reader, on the real pass-1 files and on MATLAB files written here. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gotcha"
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cphd-testdata.h"
#include "ef-dataset.h"
#include "ef-error.h"

#if HAVE_MATIO
#include <matio.h>

#include "ef-gotcha.h"

/* ---- helpers ----------------------------------------------------------------------------------- */

static char *
real_data_dir (void)
{
  const char *root = g_getenv ("EF_SHARED_DATA");
  char *dir;

  if (root == NULL)
    return NULL;
  dir = g_build_filename (root, "gotcha-pass1-hh", NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_free (dir);
      return NULL;
    }
  return dir;
}

static char *
real_file (const char *dir, guint deg)
{
  g_autofree char *name = g_strdup_printf ("data_3dsar_pass1_az%03u_HH.mat", deg);
  return g_build_filename (dir, name, NULL);
}

/* Wraps a test body that needs the real files, skipping it when they are absent. */
#define REAL_DATA_TEST(body)                                                                            \
  static void test_##body (void)                                                                        \
  {                                                                                                     \
    g_autofree char *dir = real_data_dir ();                                                            \
    if (dir == NULL)                                                                                    \
      {                                                                                                 \
        g_test_skip ("the Gotcha pass-1 data is not there ($EF_SHARED_DATA/gotcha-pass1-hh)");          \
        return;                                                                                         \
      }                                                                                                 \
    body (dir);                                                                                         \
  }

static double
pulse_azimuth_deg (const EfPulse *p)
{
  return atan2 (p->tx[1], p->tx[0]) * 180.0 / G_PI;
}

/* A real field of a file read straight through matio, as doubles: the independent reference. */
typedef struct {
  gsize   ns, np;
  double *freq, *x, *y, *z, *r0, *th, *rc, *pc;
  float  *re, *im;
} RawFile;

static double *
raw_doubles (matvar_t *v, gsize *n)
{
  gsize numel = v->dims[0] * v->dims[1];
  double *out = g_new (double, numel);

  g_assert_cmpint (v->class_type, ==, MAT_C_SINGLE);
  for (gsize i = 0; i < numel; i++)
    out[i] = ((float *) v->data)[i];
  if (n)
    *n = numel;
  return out;
}

static void
raw_file_read (const char *path, RawFile *raw)
{
  mat_t *mat = Mat_Open (path, MAT_ACC_RDONLY);
  matvar_t *data, *fp, *af;
  mat_complex_split_t *cs;

  g_assert_nonnull (mat);
  data = Mat_VarRead (mat, "data");
  g_assert_nonnull (data);
  raw->freq = raw_doubles (Mat_VarGetStructFieldByName (data, "freq", 0), &raw->ns);
  raw->x = raw_doubles (Mat_VarGetStructFieldByName (data, "x", 0), &raw->np);
  raw->y = raw_doubles (Mat_VarGetStructFieldByName (data, "y", 0), NULL);
  raw->z = raw_doubles (Mat_VarGetStructFieldByName (data, "z", 0), NULL);
  raw->r0 = raw_doubles (Mat_VarGetStructFieldByName (data, "r0", 0), NULL);
  raw->th = raw_doubles (Mat_VarGetStructFieldByName (data, "th", 0), NULL);
  af = Mat_VarGetStructFieldByName (data, "af", 0);
  raw->rc = raw_doubles (Mat_VarGetStructFieldByName (af, "r_correct", 0), NULL);
  raw->pc = raw_doubles (Mat_VarGetStructFieldByName (af, "ph_correct", 0), NULL);
  fp = Mat_VarGetStructFieldByName (data, "fp", 0);
  cs = fp->data;
  raw->re = g_memdup2 (cs->Re, raw->ns * raw->np * sizeof (float));
  raw->im = g_memdup2 (cs->Im, raw->ns * raw->np * sizeof (float));
  Mat_VarFree (data);
  Mat_Close (mat);
}

static void
raw_file_clear (RawFile *raw)
{
  g_free (raw->freq);
  g_free (raw->x);
  g_free (raw->y);
  g_free (raw->z);
  g_free (raw->r0);
  g_free (raw->th);
  g_free (raw->rc);
  g_free (raw->pc);
  g_free (raw->re);
  g_free (raw->im);
}

static EfCf32 *
read_all (EfDataset *ds)
{
  gsize n = ds->info.n_pulses * ds->info.n_samples;
  EfCf32 *out = g_new (EfCf32, n);
  g_autoptr (GError) error = NULL;

  for (gsize i = 0; i < n; i++)
    out[i] = NAN;  /* poison */
  g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, out, &error));
  g_assert_no_error (error);
  return out;
}

/* The exact matched filter (k-space) at a point of the z = 0 plane, in the engine's convention:
 * sum over p,k of d(p,k) * exp(+j*4*pi*f_k*dR_p/c), dR_p = |a_p - x| - r0_p. */
static double complex
kspace_at (EfDataset *ds, const EfCf32 *samples, double px, double py, gboolean conjugate)
{
  gsize ns = ds->info.n_samples;
  double complex acc = 0;

  for (guint64 p = 0; p < ds->info.n_pulses; p++)
    {
      const EfPulse *pu = &ds->pulses[p];
      double dx = pu->tx[0] - px, dy = pu->tx[1] - py, dz = pu->tx[2];
      double dr = sqrt (dx * dx + dy * dy + dz * dz) - pu->r0;
      double complex w = cexp (I * 4 * G_PI * pu->sc0 * dr / EF_C);
      double complex step = cexp (I * 4 * G_PI * pu->scss * dr / EF_C);
      double complex sum = 0;

      for (gsize k = 0; k < ns; k++)
        {
          EfCf32 d = samples[p * ns + k];
          sum += (conjugate ? conjf (d) : d) * w;
          w *= step;
        }
      acc += sum;
    }
  return acc;
}

/* ---- fixtures written with matio ------------------------------------------------------------ */

typedef struct {
  guint    np, ns;
  double   az0_deg, daz_deg;
  double   f0, df;
  double   radius, height;
  double   target[2];
  gboolean omit_th, omit_r0, real_fp, fp_transposed, nan_x, freq_reversed, freq_jitter, data_not_struct;
  gboolean as_double, with_af, extra_variable;
} Fixture;

static void
fixture_init (Fixture *fx)
{
  memset (fx, 0, sizeof *fx);
  fx->np = 24;
  fx->ns = 32;
  fx->az0_deg = 10.0;
  fx->daz_deg = 0.1;
  fx->f0 = 9.6e9;
  fx->df = 2e6;
  fx->radius = 7000;
  fx->height = 7000;
  fx->target[0] = g_test_rand_double_range (-20, 20);
  fx->target[1] = g_test_rand_double_range (-20, 20);
  fx->with_af = TRUE;
}

static matvar_t *
vector_var (const char *name, const double *v, gsize n, gboolean as_double)
{
  size_t dims[2] = { 1, n };

  if (as_double)
    return Mat_VarCreate (name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, (void *) v, 0);
  {
    g_autofree float *f = g_new (float, n);
    for (gsize i = 0; i < n; i++)
      f[i] = (float) v[i];
    /* Without MAT_F_DONT_COPY_DATA, matio copies the data. */
    return Mat_VarCreate (name, MAT_C_SINGLE, MAT_T_SINGLE, 2, dims, f, 0);
  }
}

/* Writes a Gotcha-like file holding one point target of unit amplitude at fx->target on z = 0. */
static void
fixture_write (const Fixture *fx, const char *path, enum mat_ft version, enum matio_compression compress)
{
  guint np = fx->np, ns = fx->ns;
  g_autofree double *x = g_new (double, np), *y = g_new (double, np), *z = g_new (double, np);
  g_autofree double *r0 = g_new (double, np), *th = g_new (double, np), *phi = g_new (double, np);
  g_autofree double *rc = g_new (double, np), *pc = g_new (double, np), *freq = g_new (double, ns);
  g_autofree float *re = g_new (float, (gsize) np * ns), *im = g_new (float, (gsize) np * ns);
  const char *fields[] = { "fp", "freq", "x", "y", "z", "r0", "th", "phi", "af", NULL };
  const char *af_fields[] = { "r_correct", "ph_correct", NULL };
  size_t one[2] = { 1, 1 };
  mat_complex_split_t cs = { re, im };
  matvar_t *data, *field;
  mat_t *mat;

  for (guint k = 0; k < ns; k++)
    freq[k] = fx->f0 + k * fx->df;
  if (fx->freq_reversed)
    {
      double t = freq[3];
      freq[3] = freq[4];
      freq[4] = t;
    }
  if (fx->freq_jitter)
    freq[ns / 2] += 0.1 * fx->df;
  for (guint p = 0; p < np; p++)
    {
      double az = (fx->az0_deg + p * fx->daz_deg) * G_PI / 180.0;
      double tdx, tdy, rt;

      x[p] = fx->radius * cos (az);
      y[p] = fx->radius * sin (az);
      z[p] = fx->height;
      r0[p] = sqrt (x[p] * x[p] + y[p] * y[p] + z[p] * z[p]);
      th[p] = fx->az0_deg + p * fx->daz_deg;
      phi[p] = atan2 (z[p], fx->radius) * 180.0 / G_PI;
      rc[p] = 0.25 + 0.01 * p;
      pc[p] = -3.0 + 0.25 * p;
      tdx = x[p] - fx->target[0];
      tdy = y[p] - fx->target[1];
      rt = sqrt (tdx * tdx + tdy * tdy + z[p] * z[p]);
      for (guint k = 0; k < ns; k++)
        {
          double ph = -4 * G_PI * (fx->f0 + k * fx->df) * (rt - r0[p]) / EF_C;
          re[(gsize) p * ns + k] = (float) cos (ph);
          im[(gsize) p * ns + k] = (float) sin (ph);
        }
    }
  if (fx->nan_x)
    x[np / 2] = NAN;

  mat = Mat_CreateVer (path, NULL, version);
  g_assert_nonnull (mat);
  if (fx->extra_variable)
    {
      double v = 42;
      size_t d[2] = { 1, 1 };
      field = Mat_VarCreate ("aaa_notes", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d, &v, 0);
      g_assert_cmpint (Mat_VarWrite (mat, field, compress), ==, 0);
      Mat_VarFree (field);
    }
  if (fx->data_not_struct)
    {
      field = vector_var ("data", x, np, TRUE);
      g_assert_cmpint (Mat_VarWrite (mat, field, compress), ==, 0);
      Mat_VarFree (field);
      Mat_Close (mat);
      return;
    }

  data = Mat_VarCreateStruct2 ("data", 2, one, fields);
  g_assert_nonnull (data);
  {
    size_t dims[2] = { ns, np };
    if (fx->fp_transposed)
      {
        dims[0] = np;
        dims[1] = ns;
      }
    if (fx->real_fp)
      field = Mat_VarCreate ("fp", MAT_C_SINGLE, MAT_T_SINGLE, 2, dims, re, 0);
    else
      field = Mat_VarCreate ("fp", MAT_C_SINGLE, MAT_T_SINGLE, 2, dims, &cs, MAT_F_COMPLEX);
    Mat_VarSetStructFieldByName (data, "fp", 0, field);
  }
  {
    size_t dims[2] = { ns, 1 };
    if (fx->as_double)
      field = Mat_VarCreate ("freq", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, freq, 0);
    else
      {
        g_autofree float *f = g_new (float, ns);
        for (guint k = 0; k < ns; k++)
          f[k] = (float) freq[k];
        field = Mat_VarCreate ("freq", MAT_C_SINGLE, MAT_T_SINGLE, 2, dims, f, 0);
      }
    Mat_VarSetStructFieldByName (data, "freq", 0, field);
  }
  Mat_VarSetStructFieldByName (data, "x", 0, vector_var ("x", x, np, fx->as_double));
  Mat_VarSetStructFieldByName (data, "y", 0, vector_var ("y", y, np, fx->as_double));
  Mat_VarSetStructFieldByName (data, "z", 0, vector_var ("z", z, np, fx->as_double));
  if (!fx->omit_r0)
    Mat_VarSetStructFieldByName (data, "r0", 0, vector_var ("r0", r0, np, fx->as_double));
  if (!fx->omit_th)
    Mat_VarSetStructFieldByName (data, "th", 0, vector_var ("th", th, np, fx->as_double));
  Mat_VarSetStructFieldByName (data, "phi", 0, vector_var ("phi", phi, np, fx->as_double));
  if (fx->with_af)
    {
      matvar_t *af = Mat_VarCreateStruct2 ("af", 2, one, af_fields);
      Mat_VarSetStructFieldByName (af, "r_correct", 0, vector_var ("r_correct", rc, np, fx->as_double));
      Mat_VarSetStructFieldByName (af, "ph_correct", 0, vector_var ("ph_correct", pc, np, fx->as_double));
      Mat_VarSetStructFieldByName (data, "af", 0, af);
    }
  g_assert_cmpint (Mat_VarWrite (mat, data, compress), ==, 0);
  Mat_VarFree (data);
  Mat_Close (mat);
}

static char *
fixture_path (const char *dir, const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static EfDataset *
open_one (const char *path, const EfGotchaOptions *opts, GError **error)
{
  const char *paths[] = { path, NULL };
  return ef_gotcha_open (paths, opts, error);
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        remove_tree (p);
      else
        g_unlink (p);
    }
  g_rmdir (dir);
}

/* ---- real data ------------------------------------------------------------------------------ */

static void
real_folder (const char *dir)
{
  g_autoptr (GError) error = NULL;
  const char *paths[] = { dir, NULL };
  g_autoptr (EfDataset) ds = ef_gotcha_open (paths, NULL, &error);
  g_autofree EfCf32 *all = NULL;
  double prev_az = -G_MAXDOUBLE;

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  g_assert_cmpint (ds->info.domain, ==, EF_DOMAIN_FX);
  g_assert_cmpuint (ds->info.n_pulses, ==, 469);
  g_assert_cmpuint (ds->info.n_samples, ==, 424);
  g_assert_nonnull (ds->info.channel_names);
  g_assert_cmpstr (ds->info.channel_names[0], ==, "HH");
  g_assert_nonnull (strstr (ds->info.source, "v5"));
  g_assert_nonnull (strstr (ds->info.source, "4 files"));
  g_test_message ("fc %.6f GHz, bandwidth %.3f MHz, mean r0 %.2f m, aperture %.3f deg", ds->info.fc / 1e9,
                  ds->info.bandwidth / 1e6, ef_dataset_mean_standoff (ds),
                  ef_dataset_aperture_angle (ds) * 180 / G_PI);

  /* The band: 9.288-9.910 GHz in 424 steps of about 1.4713 MHz. */
  for (guint64 p = 0; p < ds->info.n_pulses; p++)
    {
      const EfPulse *pu = &ds->pulses[p];
      double az = pulse_azimuth_deg (pu);

      g_assert_cmpfloat_with_epsilon (pu->fx1, 9.28808e9, 1e4);
      g_assert_cmpfloat_with_epsilon (pu->fx2, 9.91044e9, 1e4);
      g_assert_cmpfloat (pu->sc0, ==, pu->fx1);
      g_assert_cmpfloat_with_epsilon (pu->scss, 1.4713e6, 1e3);
      g_assert_cmpfloat_with_epsilon (pu->fx1 + 423 * pu->scss, pu->fx2, 1.0);
      g_assert_cmpfloat (pu->r0, >, 10150);
      g_assert_cmpfloat (pu->r0, <, 10170);
      /* r0 is the range to the scene centre, the origin of the frame. */
      g_assert_cmpfloat_with_epsilon (sqrt (pu->tx[0] * pu->tx[0] + pu->tx[1] * pu->tx[1] + pu->tx[2] * pu->tx[2]),
                                      pu->r0, 0.05);
      g_assert_cmpmem (pu->tx, sizeof pu->tx, pu->rcv, sizeof pu->rcv);
      /* Azimuth order, across the file boundaries too. */
      g_assert_cmpfloat (az, >, prev_az);
      g_assert_cmpfloat (az, >=, 0.0);
      g_assert_cmpfloat (az, <=, 4.0);
      if (p > 0)
        g_assert_cmpfloat (pu->t, >, ds->pulses[p - 1].t);
      prev_az = az;
    }
  g_assert_cmpfloat_with_epsilon (ds->info.fc, 0.5 * (9.28808e9 + 9.91044e9), 1e4);
  g_assert_cmpfloat_with_epsilon (ds->info.bandwidth, 424 * 1.4715e6, 1e5);
  g_assert_cmpfloat_with_epsilon (ef_dataset_mean_standoff (ds), 10158.2, 1.0);
  g_assert_cmpfloat_with_epsilon (ef_dataset_aperture_angle (ds) * 180 / G_PI, 4.0, 0.05);

  /* The samples of pulse 117 are the first pulse of the second file, read here straight through matio. */
  all = read_all (ds);
  {
    g_autofree char *f2 = real_file (dir, 2);
    RawFile raw = { 0 };

    raw_file_read (f2, &raw);
    g_assert_cmpuint (raw.np, ==, 117);
    for (gsize p = 0; p < raw.np; p++)
      {
        const EfPulse *pu = &ds->pulses[117 + p];
        g_assert_cmpfloat (pu->tx[0], ==, raw.x[p]);
        g_assert_cmpfloat (pu->tx[1], ==, raw.y[p]);
        g_assert_cmpfloat (pu->tx[2], ==, raw.z[p]);
        g_assert_cmpfloat (pu->r0, ==, raw.r0[p]);
        for (gsize k = 0; k < raw.ns; k++)
          {
            EfCf32 v = all[(117 + p) * 424 + k];
            g_assert_cmpfloat (crealf (v), ==, raw.re[p * raw.ns + k]);
            g_assert_cmpfloat (cimagf (v), ==, raw.im[p * raw.ns + k]);
          }
      }
    raw_file_clear (&raw);
  }

  /* A block that straddles two files reads the same as the whole. */
  {
    EfCf32 *block = g_new (EfCf32, 300 * 424);
    g_autoptr (GError) err2 = NULL;

    for (gsize i = 0; i < 300 * 424; i++)
      block[i] = NAN;
    g_assert_true (ef_dataset_read_block (ds, 100, 300, block, &err2));
    g_assert_no_error (err2);
    g_assert_cmpmem (block, 300 * 424 * sizeof (EfCf32), all + 100 * 424, 300 * 424 * sizeof (EfCf32));
    g_assert_false (ef_dataset_read_block (ds, 400, 70, block, &err2));
    g_assert_error (err2, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
    g_free (block);
  }
}

static void
real_list_order (const char *dir)
{
  g_autofree char *f1 = real_file (dir, 1), *f2 = real_file (dir, 2), *f3 = real_file (dir, 3), *f4 = real_file (dir, 4);
  const char *shuffled[] = { f3, f1, f4, f2, NULL };
  const char *folder[] = { dir, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) a = ef_gotcha_open (shuffled, NULL, &error);
  g_autoptr (EfDataset) b = NULL;
  g_autofree EfCf32 *sa = NULL, *sb = NULL;

  g_assert_no_error (error);
  b = ef_gotcha_open (folder, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->info.n_pulses, ==, b->info.n_pulses);
  g_assert_cmpmem (a->pulses, a->info.n_pulses * sizeof (EfPulse), b->pulses, b->info.n_pulses * sizeof (EfPulse));
  sa = read_all (a);
  sb = read_all (b);
  g_assert_cmpmem (sa, 469 * 424 * sizeof (EfCf32), sb, 469 * 424 * sizeof (EfCf32));
}

static void
real_single (const char *dir)
{
  g_autofree char *f3 = real_file (dir, 3);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = open_one (f3, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, 118);
  g_assert_cmpuint (ds->info.n_samples, ==, 424);
  g_assert_cmpstr (ds->info.path, ==, f3);
  g_assert_cmpfloat (pulse_azimuth_deg (&ds->pulses[0]), >=, 2.0);
  g_assert_cmpfloat (pulse_azimuth_deg (&ds->pulses[117]), <=, 3.0);
}

static void
real_azimuth (const char *dir)
{
  const char *paths[] = { dir, NULL };
  double lo = g_test_rand_double_range (0.2, 1.8), hi = lo + g_test_rand_double_range (0.5, 2.0);
  EfGotchaOptions opts;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  guint expected = 0;

  /* Count the pulses in range independently, from each file's th. */
  for (guint f = 1; f <= 4; f++)
    {
      g_autofree char *path = real_file (dir, f);
      RawFile raw = { 0 };

      raw_file_read (path, &raw);
      for (gsize p = 0; p < raw.np; p++)
        expected += raw.th[p] >= lo && raw.th[p] <= hi;
      raw_file_clear (&raw);
    }
  g_test_message ("azimuth %.4f to %.4f deg: %u pulses", lo, hi, expected);

  ef_gotcha_options_init (&opts);
  opts.az_min_deg = lo;
  opts.az_max_deg = hi;
  ds = ef_gotcha_open (paths, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, expected);
  for (guint64 p = 0; p < ds->info.n_pulses; p++)
    {
      double az = pulse_azimuth_deg (&ds->pulses[p]);
      /* th and atan2 (y, x) agree to a few thousandths of a degree. */
      g_assert_cmpfloat (az, >=, lo - 0.01);
      g_assert_cmpfloat (az, <=, hi + 0.01);
    }

  /* Nothing in range: an error that says what the files span. */
  g_clear_pointer (&ds, ef_dataset_unref);
  opts.az_min_deg = 10;
  opts.az_max_deg = 20;
  ds = ef_gotcha_open (paths, &opts, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "azimuth"));
}

static void
real_polarisation (const char *dir)
{
  g_autofree char *f1 = real_file (dir, 1);
  const char *folder[] = { dir, NULL };
  EfGotchaOptions opts;
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  ef_gotcha_options_init (&opts);
  opts.polarisation = "hh";
  ds = ef_gotcha_open (folder, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, 469);
  ef_dataset_unref (ds);

  /* A file that says it is HH, asked for as VV. */
  opts.polarisation = "VV";
  ds = open_one (f1, &opts, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "VV"));
  g_clear_error (&error);

  /* A folder with no VV file. */
  ds = ef_gotcha_open (folder, &opts, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_clear_error (&error);

  opts.polarisation = "XY";
  ds = ef_gotcha_open (folder, &opts, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
}

static void
real_autofocus (const char *dir)
{
  g_autofree char *f4 = real_file (dir, 4);
  EfGotchaOptions opts;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfCf32 *s = NULL;
  RawFile raw = { 0 };

  ef_gotcha_options_init (&opts);
  opts.apply_autofocus = TRUE;
  ds = open_one (f4, &opts, &error);
  g_assert_no_error (error);
  s = read_all (ds);
  raw_file_read (f4, &raw);
  for (gsize p = 0; p < raw.np; p++)
    {
      double complex rot = cexp (I * raw.pc[p]);

      g_assert_cmpfloat_with_epsilon (ds->pulses[p].r0, raw.r0[p] + raw.rc[p], 1e-9);
      for (gsize k = 0; k < raw.ns; k += 37)
        {
          double complex want = (raw.re[p * raw.ns + k] + I * raw.im[p * raw.ns + k]) * rot;
          g_assert_cmpfloat (cabs (s[p * raw.ns + k] - want), <=, 1e-5 * (cabs (want) + 1e-30));
        }
    }
  raw_file_clear (&raw);
}

/* The data focuses in the engine's convention: a bright scatterer near (-12, -2) m sharpens with
 * exp(+j*4*pi*f*dR/c), and does not with the conjugate. */
static void
real_focus (const char *dir)
{
  const char *paths[] = { dir, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = ef_gotcha_open (paths, NULL, &error);
  g_autofree EfCf32 *s = NULL;
  double best = 0, best_conj = 0, bx = 0, by = 0;

  g_assert_no_error (error);
  s = read_all (ds);
  for (int iy = -8; iy <= 8; iy++)
    for (int ix = -8; ix <= 8; ix++)
      {
        double px = -12.0 + 0.2 * ix, py = -2.0 + 0.2 * iy;
        double a = cabs (kspace_at (ds, s, px, py, FALSE));
        double b = cabs (kspace_at (ds, s, px, py, TRUE));
        if (a > best)
          {
            best = a;
            bx = px;
            by = py;
          }
        best_conj = MAX (best_conj, b);
      }
  g_test_message ("peak %.3g at (%.1f, %.1f); conjugate peak %.3g", best, bx, by, best_conj);
  g_assert_cmpfloat (best, >, 10 * best_conj);
  g_assert_cmpfloat (fabs (bx + 12.0), <=, 1.0);
  g_assert_cmpfloat (fabs (by + 2.0), <=, 1.0);
}

static void
real_dataset_open (const char *dir)
{
  g_autofree char *f2 = real_file (dir, 2);
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  ds = ef_dataset_open (dir, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, 469);
  ef_dataset_unref (ds);

  ds = ef_dataset_open (f2, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, 117);
  ef_dataset_unref (ds);

  ds = ef_dataset_open (f2, 1, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);

  g_assert_true (ef_gotcha_sniff (dir));
  g_assert_true (ef_gotcha_sniff (f2));
}

REAL_DATA_TEST (real_folder)
REAL_DATA_TEST (real_list_order)
REAL_DATA_TEST (real_single)
REAL_DATA_TEST (real_azimuth)
REAL_DATA_TEST (real_polarisation)
REAL_DATA_TEST (real_autofocus)
REAL_DATA_TEST (real_focus)
REAL_DATA_TEST (real_dataset_open)

/* ---- fixtures ------------------------------------------------------------------------------- */

static void
assert_same_dataset (EfDataset *a, EfDataset *b)
{
  g_autofree EfCf32 *sa = read_all (a), *sb = read_all (b);

  g_assert_cmpuint (a->info.n_pulses, ==, b->info.n_pulses);
  g_assert_cmpuint (a->info.n_samples, ==, b->info.n_samples);
  g_assert_cmpfloat (a->info.fc, ==, b->info.fc);
  g_assert_cmpfloat (a->info.bandwidth, ==, b->info.bandwidth);
  g_assert_cmpmem (a->pulses, a->info.n_pulses * sizeof (EfPulse), b->pulses, b->info.n_pulses * sizeof (EfPulse));
  g_assert_cmpmem (sa, a->info.n_pulses * a->info.n_samples * sizeof (EfCf32), sb,
                   b->info.n_pulses * b->info.n_samples * sizeof (EfCf32));
}

static void
test_fixture_versions (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *p5 = fixture_path (dir, "v5.mat"), *p5z = fixture_path (dir, "v5z.mat");
  g_autofree char *p73 = fixture_path (dir, "v73.mat");
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) a = NULL, b = NULL, c = NULL;
  Fixture fx;

  fixture_init (&fx);
  fixture_write (&fx, p5, MAT_FT_MAT5, MAT_COMPRESSION_NONE);
  fixture_write (&fx, p5z, MAT_FT_MAT5, MAT_COMPRESSION_ZLIB);
  fixture_write (&fx, p73, MAT_FT_MAT73, MAT_COMPRESSION_NONE);
  {
    mat_t *m = Mat_Open (p73, MAT_ACC_RDONLY);
    g_assert_nonnull (m);
    g_assert_cmpint (Mat_GetVersion (m), ==, MAT_FT_MAT73);
    Mat_Close (m);
  }

  a = open_one (p5, NULL, &error);
  g_assert_no_error (error);
  b = open_one (p73, NULL, &error);
  g_assert_no_error (error);
  c = open_one (p5z, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->info.n_pulses, ==, fx.np);
  g_assert_cmpuint (a->info.n_samples, ==, fx.ns);
  g_assert_nonnull (strstr (b->info.source, "v7.3"));
  g_assert_null (a->info.channel_names);  /* the names say no polarisation */
  assert_same_dataset (a, b);
  assert_same_dataset (a, c);
  remove_tree (dir);
}

/* A point target written in the engine's convention focuses where it was put, with full coherent gain. */
static void
test_fixture_focus (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *path = fixture_path (dir, "target.mat");
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfCf32 *s = NULL;
  double gain, off, conj;
  Fixture fx;

  fixture_init (&fx);
  fx.np = 64;
  fx.daz_deg = 0.05;
  fx.as_double = TRUE;  /* so that positions carry no float rounding into the phase */
  fixture_write (&fx, path, MAT_FT_MAT5, MAT_COMPRESSION_NONE);
  ds = open_one (path, NULL, &error);
  g_assert_no_error (error);
  s = read_all (ds);
  gain = cabs (kspace_at (ds, s, fx.target[0], fx.target[1], FALSE)) / (fx.np * fx.ns);
  off = cabs (kspace_at (ds, s, fx.target[0] + 1.0, fx.target[1] + 1.0, FALSE)) / (fx.np * fx.ns);
  conj = cabs (kspace_at (ds, s, fx.target[0], fx.target[1], TRUE)) / (fx.np * fx.ns);
  g_test_message ("target (%.2f, %.2f): gain %.6f, 1.4 m off %.4f, conjugate %.4f", fx.target[0], fx.target[1],
                  gain, off, conj);
  g_assert_cmpfloat (gain, >, 0.999);
  g_assert_cmpfloat (off, <, 0.3);
  g_assert_cmpfloat (conj, <, 0.3);
  remove_tree (dir);
}

static void
test_fixture_no_th (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *path = fixture_path (dir, "no-th.mat");
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  EfGotchaOptions opts;
  Fixture fx;

  fixture_init (&fx);
  fx.omit_th = TRUE;
  fx.with_af = FALSE;
  fixture_write (&fx, path, MAT_FT_MAT5, MAT_COMPRESSION_NONE);
  /* Without th the azimuth comes from the positions: 10.0 + 0.1 p degrees, so [10.45, 10.95] keeps
   * pulses 5 to 9. */
  ef_gotcha_options_init (&opts);
  opts.az_min_deg = 10.45;
  opts.az_max_deg = 10.95;
  ds = open_one (path, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, 5);
  g_assert_cmpfloat_with_epsilon (pulse_azimuth_deg (&ds->pulses[0]), 10.5, 1e-4);

  /* No af to apply. */
  g_clear_pointer (&ds, ef_dataset_unref);
  opts.apply_autofocus = TRUE;
  ds = open_one (path, &opts, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  remove_tree (dir);
}

/* Files of two azimuth ranges, given in the wrong order and with a stranger in the folder. */
static void
test_fixture_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *pa = fixture_path (dir, "pass_a_VV.mat"), *pb = fixture_path (dir, "pass_b_VV.mat");
  g_autofree char *other = fixture_path (dir, "notes.mat"), *text = fixture_path (dir, "readme.txt");
  const char *folder[] = { dir, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  Fixture fx;

  fixture_init (&fx);
  fx.az0_deg = 20.0;  /* "a" sorts first by name but lies after "b" in azimuth */
  fixture_write (&fx, pa, MAT_FT_MAT5, MAT_COMPRESSION_ZLIB);
  fx.az0_deg = 17.0;
  fixture_write (&fx, pb, MAT_FT_MAT73, MAT_COMPRESSION_NONE);
  fx.data_not_struct = TRUE;
  fixture_write (&fx, other, MAT_FT_MAT5, MAT_COMPRESSION_NONE);
  g_assert_true (g_file_set_contents (text, "hello", -1, NULL));

  ds = ef_gotcha_open (folder, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, 2 * fx.np);
  g_assert_cmpstr (ds->info.channel_names[0], ==, "VV");
  g_assert_nonnull (strstr (ds->info.source, "v5 and v7.3"));
  g_assert_cmpfloat_with_epsilon (pulse_azimuth_deg (&ds->pulses[0]), 17.0, 1e-3);
  g_assert_cmpfloat_with_epsilon (pulse_azimuth_deg (&ds->pulses[fx.np]), 20.0, 1e-3);
  g_assert_true (ef_gotcha_sniff (dir));

  /* A folder with only strangers. */
  g_clear_pointer (&ds, ef_dataset_unref);
  g_unlink (pa);
  g_unlink (pb);
  ds = ef_gotcha_open (folder, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  remove_tree (dir);
}

static void
test_fixture_mixed (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *hh = fixture_path (dir, "x_HH.mat"), *vv = fixture_path (dir, "x_VV.mat");
  g_autofree char *big = fixture_path (dir, "big.mat");
  const char *pols[] = { hh, vv, NULL };
  const char *sizes[] = { hh, big, NULL };
  g_autoptr (GError) error = NULL;
  EfDataset *ds;
  Fixture fx;

  fixture_init (&fx);
  fixture_write (&fx, hh, MAT_FT_MAT5, MAT_COMPRESSION_NONE);
  fixture_write (&fx, vv, MAT_FT_MAT5, MAT_COMPRESSION_NONE);
  fx.ns = 40;
  fixture_write (&fx, big, MAT_FT_MAT5, MAT_COMPRESSION_NONE);

  ds = ef_gotcha_open (pols, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "polarisations"));
  g_clear_error (&error);

  ds = ef_gotcha_open (sizes, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "samples"));
  remove_tree (dir);
}

typedef struct {
  const char *name;
  void      (*mutate) (Fixture *fx);
  int         code;
  const char *words;  /* something the message must say */
} BadCase;

static void bad_omit_r0 (Fixture *fx) { fx->omit_r0 = TRUE; }
static void bad_real_fp (Fixture *fx) { fx->real_fp = TRUE; }
static void bad_transposed (Fixture *fx) { fx->fp_transposed = TRUE; }
static void bad_nan_x (Fixture *fx) { fx->nan_x = TRUE; }
static void bad_reversed (Fixture *fx) { fx->freq_reversed = TRUE; }
static void bad_jitter (Fixture *fx) { fx->freq_jitter = TRUE; }
static void bad_not_struct (Fixture *fx) { fx->data_not_struct = TRUE; }
static void bad_one_sample (Fixture *fx) { fx->ns = 1; }

static const BadCase bad_cases[] = {
  { "missing-r0", bad_omit_r0, EF_IO_ERROR_FORMAT, "r0" },
  { "real-fp", bad_real_fp, EF_IO_ERROR_FORMAT, "complex" },
  { "transposed-fp", bad_transposed, EF_IO_ERROR_FORMAT, "fp" },
  { "nan-position", bad_nan_x, EF_IO_ERROR_INVALID_DATA, "data.x" },
  { "freq-not-monotonic", bad_reversed, EF_IO_ERROR_INVALID_DATA, "frequenc" },
  { "freq-not-uniform", bad_jitter, EF_IO_ERROR_INVALID_DATA, "frequenc" },
  { "data-not-struct", bad_not_struct, EF_IO_ERROR_FORMAT, "struct" },
  { "one-sample", bad_one_sample, EF_IO_ERROR_INVALID_DATA, "samples" },
};

static void
test_bad_case (gconstpointer user_data)
{
  const BadCase *bc = user_data;
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *path = fixture_path (dir, "bad.mat");
  enum mat_ft versions[] = { MAT_FT_MAT5, MAT_FT_MAT73 };

  for (guint v = 0; v < G_N_ELEMENTS (versions); v++)
    {
      g_autoptr (GError) error = NULL;
      EfDataset *ds;
      Fixture fx;

      fixture_init (&fx);
      bc->mutate (&fx);
      fixture_write (&fx, path, versions[v], MAT_COMPRESSION_NONE);
      ds = open_one (path, NULL, &error);
      g_assert_null (ds);
      g_assert_error (error, EF_IO_ERROR, bc->code);
      g_test_message ("%s: %s", versions[v] == MAT_FT_MAT5 ? "v5" : "v7.3", error->message);
      g_assert_nonnull (strstr (error->message, bc->words));
      g_unlink (path);
    }
  remove_tree (dir);
}

static void
test_bad_not_mat (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *text = fixture_path (dir, "text.mat"), *empty = fixture_path (dir, "empty.mat");
  g_autofree char *missing = fixture_path (dir, "missing.mat"), *garbage = fixture_path (dir, "garbage.mat");
  g_autofree char *junk = g_malloc (4096);
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  for (guint i = 0; i < 4096; i++)
    junk[i] = (char) g_test_rand_int ();
  g_assert_true (g_file_set_contents (text, "This is not a MATLAB file, only some words.\n", -1, NULL));
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_assert_true (g_file_set_contents (garbage, junk, 4096, NULL));

  ds = open_one (text, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "text.mat"));
  g_clear_error (&error);

  ds = open_one (empty, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_clear_error (&error);

  ds = open_one (garbage, NULL, &error);
  g_assert_null (ds);
  g_assert_true (error->domain == EF_IO_ERROR);
  g_clear_error (&error);

  ds = open_one (missing, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "missing.mat"));
  g_clear_error (&error);

  /* The dispatcher says what it can read. */
  {
    g_autofree char *txt = fixture_path (dir, "notes.txt");
    g_assert_true (g_file_set_contents (txt, "not radar data at all, just words in a file\n", -1, NULL));
    ds = ef_dataset_open (txt, 0, &error);
    g_assert_null (ds);
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "notes.txt"));
    g_assert_nonnull (strstr (error->message, "CPHD"));
    g_assert_nonnull (strstr (error->message, "Gotcha"));
    g_clear_error (&error);
    g_assert_false (ef_gotcha_sniff (txt));

    ds = ef_dataset_open (missing, 0, &error);
    g_assert_null (ds);
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
    g_clear_error (&error);
  }
  g_assert_false (ef_gotcha_sniff (missing));
  remove_tree (dir);
}

/* A file cut short either fails cleanly, or, when only fields the reader does not use were lost (phi,
 * af), reads exactly as the whole file does. */
static void
test_bad_truncated (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-gotcha-XXXXXX", NULL);
  g_autofree char *whole = fixture_path (dir, "whole.mat"), *cut = fixture_path (dir, "cut.mat");
  struct {
    const char             *name;
    enum mat_ft             version;
    enum matio_compression  compress;
  } kinds[] = {
    { "v5", MAT_FT_MAT5, MAT_COMPRESSION_NONE },
    { "v5 zlib", MAT_FT_MAT5, MAT_COMPRESSION_ZLIB },
    { "v7.3", MAT_FT_MAT73, MAT_COMPRESSION_NONE },
  };
  Fixture fx;

  fixture_init (&fx);
  for (guint c = 0; c < G_N_ELEMENTS (kinds); c++)
    {
      g_autofree char *bytes = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (EfDataset) ref = NULL;
      gsize len;
      guint failures = 0, tries = 0;

      fixture_write (&fx, whole, kinds[c].version, kinds[c].compress);
      g_assert_true (g_file_get_contents (whole, &bytes, &len, NULL));
      ref = open_one (whole, NULL, &error);
      g_assert_no_error (error);
      for (gsize n = 0; n < len; n += 1 + len / 211)
        {
          EfDataset *ds;

          g_assert_true (g_file_set_contents (cut, bytes, (gssize) n, NULL));
          ds = open_one (cut, NULL, &error);
          tries++;
          if (ds == NULL)
            {
              g_assert_true (error != NULL && error->domain == EF_IO_ERROR);
              g_clear_error (&error);
              failures++;
            }
          else
            {
              g_test_message ("%s: the first %zu of %zu bytes read whole", kinds[c].name, n, len);
              assert_same_dataset (ds, ref);
            }
          ef_dataset_unref (ds);
        }
      g_test_message ("%s: %u of %u prefixes refused", kinds[c].name, failures, tries);
      g_assert_cmpuint (failures, >=, tries * 8 / 10);
    }
  remove_tree (dir);
}

static double
cpu_seconds (const struct rusage *ru)
{
  return ru->ru_utime.tv_sec + ru->ru_stime.tv_sec + 1e-6 * (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

/* The worst inputs fuzzing found (regress-gotcha/oom-*): MATLAB files of one or two kilobytes that made
 * matio allocate 4 GB in one block, or 7.6 GB in small ones for 20 s and more, while it described the
 * variable. Read as Echoform reads them, each is refused with an EF_IO_ERROR, within its second of
 * processor time, by a reading process that stays within its 16 MiB plus twice the file's decompressed
 * size; and this process allocates nothing for them. */
static void
test_bad_hostile_limits (void)
{
  const char *srcdir = g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".";
  g_autofree char *dir = g_build_filename (srcdir, "fuzz", "regress-gotcha", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  struct rusage self0, self1, kids;
  guint64 worst_budget = 0;
  guint n = 0;
  const char *name;

  g_assert_nonnull (d);
  g_assert_cmpint (getrusage (RUSAGE_SELF, &self0), ==, 0);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *bytes = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (GTimer) timer = NULL;
      struct rusage s0, s1, c0, c1;
      guint64 decompressed;
      double cpu;
      gsize len;
      EfDataset *ds;

      if (!g_str_has_prefix (name, "oom-"))
        continue;
      g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
      /* What a compressed one holds decompressed is at most zlib's 1032:1 of it. */
      decompressed = len > 132 && bytes[128] == 15 ? 128 + 1032 * (guint64) len : len;
      worst_budget = MAX (worst_budget, (G_GUINT64_CONSTANT (16) << 20) + 2 * decompressed);
      g_assert_cmpint (getrusage (RUSAGE_SELF, &s0), ==, 0);
      g_assert_cmpint (getrusage (RUSAGE_CHILDREN, &c0), ==, 0);
      timer = g_timer_new ();
      ds = open_one (path, NULL, &error);
      g_timer_stop (timer);
      g_assert_cmpint (getrusage (RUSAGE_SELF, &s1), ==, 0);
      g_assert_cmpint (getrusage (RUSAGE_CHILDREN, &c1), ==, 0);
      g_assert_null (ds);
      g_assert_nonnull (error);
      g_assert_true (error->domain == EF_IO_ERROR);
      cpu = cpu_seconds (&s1) - cpu_seconds (&s0) + cpu_seconds (&c1) - cpu_seconds (&c0);
      g_test_message ("%s: %zu bytes, refused after %.3f s (%.3f s of processor time): %s", name, len,
                      g_timer_elapsed (timer, NULL), cpu, error->message);
      /* The limit is 1 s of processor time for a file this small; SIGXCPU comes within a clock tick. */
      g_assert_cmpfloat (cpu, <, 1.5);
      n++;
    }
  g_assert_cmpuint (n, >=, 8);
  g_assert_cmpint (getrusage (RUSAGE_SELF, &self1), ==, 0);
  g_assert_cmpint (getrusage (RUSAGE_CHILDREN, &kids), ==, 0);
  g_test_message ("peak resident memory: reading processes %ld KiB, this process %ld KiB before and %ld KiB after "
                  "(limit for the reading processes: %" G_GUINT64_FORMAT " KiB more than they start with)",
                  kids.ru_maxrss, self0.ru_maxrss, self1.ru_maxrss, worst_budget / 1024);
  /* A reading process starts as a copy of this one, whose pages it may touch, and then may use its
   * budget; 8 MiB more is for the sanitizers' own bookkeeping in those builds. */
  g_assert_cmpint (kids.ru_maxrss, <=, self1.ru_maxrss + (glong) (worst_budget / 1024) + 8192);
  g_assert_cmpint (self1.ru_maxrss, <=, self0.ru_maxrss + 8192);
}

/* MATLAB v7.3 files (HDF5) of 10 KB, each a valid Gotcha file with a few bytes changed, on which HDF5
 * 1.10.8 loops (in H5Aread, under matio's reading of a variable's class), dies with SIGSEGV (in
 * H5HG_read, after an overlapping memcpy), or corrupts the heap and aborts. Read in Echoform's own process, each stopped it; read as
 * now, each is an EF_IO_ERROR that says what happened, and the loop is cut at its second of processor
 * time. */
static void
test_bad_hdf5 (void)
{
  const struct {
    const char *file;
    const char *words;
  } cases[] = {
    { "hdf5-spin.mat", "within the 1 s of processor time" },
    /* SIGSEGV, SIGABRT from glibc's heap checks, or, under AddressSanitizer, its report (an overlapping
     * memcpy in H5HG_read) and exit status. */
    { "hdf5-crash.mat", "could not be read: the reading process " },
    { "hdf5-heap-corruption.mat", "could not be read: the reading process " },
  };
  const char *srcdir = g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".";

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (srcdir, "gotcha", cases[i].file, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (GTimer) timer = g_timer_new ();
      struct rusage c0, c1;
      EfDataset *ds;
      double cpu;

      g_assert_cmpint (getrusage (RUSAGE_CHILDREN, &c0), ==, 0);
      ds = open_one (path, NULL, &error);
      g_assert_cmpint (getrusage (RUSAGE_CHILDREN, &c1), ==, 0);
      cpu = cpu_seconds (&c1) - cpu_seconds (&c0);
      g_test_message ("%s: refused after %.3f s (%.3f s of processor time): %s", cases[i].file,
                      g_timer_elapsed (timer, NULL), cpu, error != NULL ? error->message : "(opened)");
      g_assert_null (ds);
      g_assert_nonnull (error);
      g_assert_true (error->domain == EF_IO_ERROR);
      g_assert_nonnull (strstr (error->message, cases[i].words));
      g_assert_cmpfloat (cpu, <, 1.5);
    }
}

/* A compressed v5 variable whose dimensions claim 909 KB of data while the whole file inflates to
 * 1776 bytes: within zlib's 1032:1 of the 863-byte file, so only measuring what it inflates to tells
 * that the claim is false. It is refused before matio allocates anything for the data. */
static void
test_bad_declared_size (void)
{
  const char *srcdir = g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".";
  g_autofree char *path = g_build_filename (srcdir, "gotcha", "declares-more-than-inflated.mat", NULL);
  g_autoptr (GError) error = NULL;
  EfDataset *ds = open_one (path, NULL, &error);

  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "claims 909376 bytes of data but the file holds only 1776 bytes decompressed"));
}

/* ---- the dispatcher ------------------------------------------------------------------------- */

static void
test_open_dispatch (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-open-XXXXXX", NULL);
  g_autofree char *cphd = fixture_path (dir, "pass.cphd"), *cphd_odd = fixture_path (dir, "pass.dat");
  g_autofree char *mat_odd = fixture_path (dir, "collection.bin"), *empty = fixture_path (dir, "empty.dat");
  g_autofree char *sub = fixture_path (dir, "nothing-here");
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) src = NULL;
  CphdTestSpec spec;
  EfDataset *ds;
  Fixture fx;

  /* CPHD, whatever its name. */
  cphd_test_spec_init (&spec);
  spec.n_pulses = 9;
  spec.n_samples = 20;
  src = cphd_test_dataset (&spec);
  g_assert_true (ef_cphd_write (src, cphd, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_rename (cphd, cphd_odd) == 0);
  ds = ef_dataset_open (cphd_odd, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, 9);
  g_assert_cmpuint (ds->info.n_samples, ==, 20);
  g_assert_false (ef_gotcha_sniff (cphd_odd));
  ef_dataset_unref (ds);

  /* A MATLAB file under another name is recognised by its header. */
  fixture_init (&fx);
  fixture_write (&fx, mat_odd, MAT_FT_MAT5, MAT_COMPRESSION_NONE);
  g_assert_true (ef_gotcha_sniff (mat_odd));
  ds = ef_dataset_open (mat_odd, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ds->info.n_pulses, ==, fx.np);
  ef_dataset_unref (ds);

  /* An empty file, and a folder with nothing to read. */
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  ds = ef_dataset_open (empty, 0, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "empty"));
  g_clear_error (&error);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_false (ef_gotcha_sniff (sub));
  ds = ef_dataset_open (sub, 0, &error);
  g_assert_null (ds);
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "nothing-here"));
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/io/gotcha/real/folder", test_real_folder);
  g_test_add_func ("/io/gotcha/real/list-order", test_real_list_order);
  g_test_add_func ("/io/gotcha/real/single-file", test_real_single);
  g_test_add_func ("/io/gotcha/real/azimuth", test_real_azimuth);
  g_test_add_func ("/io/gotcha/real/polarisation", test_real_polarisation);
  g_test_add_func ("/io/gotcha/real/autofocus", test_real_autofocus);
  g_test_add_func ("/io/gotcha/real/focus", test_real_focus);
  g_test_add_func ("/io/gotcha/real/dataset-open", test_real_dataset_open);
  g_test_add_func ("/io/gotcha/fixture/v5-v73-equal", test_fixture_versions);
  g_test_add_func ("/io/gotcha/fixture/focus", test_fixture_focus);
  g_test_add_func ("/io/gotcha/fixture/no-th", test_fixture_no_th);
  g_test_add_func ("/io/gotcha/fixture/folder", test_fixture_folder);
  g_test_add_func ("/io/gotcha/fixture/mixed", test_fixture_mixed);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/io/gotcha/bad/%s", bad_cases[i].name);
      g_test_add_data_func (name, &bad_cases[i], test_bad_case);
    }
  g_test_add_func ("/io/gotcha/bad/not-mat", test_bad_not_mat);
  g_test_add_func ("/io/gotcha/bad/truncated", test_bad_truncated);
  g_test_add_func ("/io/gotcha/bad/hostile-limits", test_bad_hostile_limits);
  g_test_add_func ("/io/gotcha/bad/hdf5", test_bad_hdf5);
  g_test_add_func ("/io/gotcha/bad/declared-size", test_bad_declared_size);
  g_test_add_func ("/io/open/dispatch", test_open_dispatch);
  return g_test_run ();
}

#else /* !HAVE_MATIO */

static void
test_no_matio (void)
{
  g_test_skip ("built without matio");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/io/gotcha/no-matio", test_no_matio);
  return g_test_run ();
}

#endif
