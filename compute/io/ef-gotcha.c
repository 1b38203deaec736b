/* ef-gotcha.c: reads the AFRL Gotcha volumetric SAR data set (MATLAB v5 and v7.3 files) through matio. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gotcha"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <matio.h>
#include <zlib.h>

#include "ef-error.h"
#include "ef-gotcha.h"
#include "ef-gotcha-private.h"

/*
 * Layout of a Gotcha file: one struct `data` holding
 *   fp    complex, [n_samples x n_pulses]: each pulse's frequency samples are contiguous
 *   freq  [n_samples], Hz
 *   x, y, z, r0, th, phi   [n_pulses]: antenna position (m, scene frame), range to the scene centre (m),
 *                          azimuth and elevation (degrees)
 *   af.r_correct, af.ph_correct   [n_pulses]: autofocus corrections (m, rad)
 * Only fp, freq, x, y, z and r0 are required; th falls back to atan2 (y, x).
 *
 * The samples follow the convention of the rest of the engine, d(p,k) ~ exp(-j*4*pi*f_k*dR/c) with
 * dR = |a_p - x| - r0_p, and are passed on untouched.
 *
 * Autofocus corrections.  af.r_correct is a range correction (m) and af.ph_correct a phase correction
 * (rad), one each per pulse.  On pass 1 the phase history as delivered focuses best: the entropy of a
 * 25.6 m image patch is 8.30 as delivered, 8.51 with r0 += r_correct and d *= exp(+j*ph_correct), 8.65
 * with both signs flipped, and 10.6 with either correction alone (two other patches agree, 4 degrees of
 * aperture).  The two corrections thus belong together, mostly cancel, and are already in the data.  So
 * apply_autofocus is off by default and, when set, applies them with the signs above, the pair that kept
 * focus best on two of the three patches.
 *
 * Damaged files.  Everything here is checked before it is used, but matio 1.5.23 itself trusts the sizes
 * a file declares while it reads a variable's description: a hostile file of a kilobyte can make it
 * allocate gigabytes (or HDF5 1.10 spin on a damaged v7.3 file) before any check here runs.  So each file
 * is read in a child process (ef-gotcha-isolate.c) whose memory is bounded by twice what the file holds
 * decompressed and whose processor time is bounded too; the size checks below then keep the data reads
 * in proportion to the file, so that the bound never stops a truthful one.
 *
 * ef-gotcha-pass.c assembles these files into a pass: a folder, or a list of files, as one dataset.
 */

/* Frequencies are stored in single precision: at 10 GHz one unit in the last place is 1 kHz, 7e-4 of
 * Gotcha's 1.47 MHz step, so a tolerance much tighter than this would reject the real files. */
#define GOTCHA_FREQ_TOLERANCE 1e-3
/* zlib cannot expand data by more than about 1032:1, so a compressed v7.3 variable that claims more than
 * this many bytes per byte of file is lying, and is refused before its data is read. (A v5 file's
 * compressed variables are inflated and measured instead.) */
#define GOTCHA_MAX_INFLATION 1100
/* A single pulse longer than this is not Gotcha; the bound also keeps index arithmetic in 32 bits. */
#define GOTCHA_MAX_SAMPLES (1u << 24)
/* Memory per pulse beyond the samples while a file is converted: its EfPulse and the fields as doubles. */
#define GOTCHA_BYTES_PER_PULSE (sizeof (EfPulse) + 8 * sizeof (double))

void
ef_gotcha_options_init (EfGotchaOptions *opts)
{
  g_return_if_fail (opts != NULL);
  opts->az_min_deg = -INFINITY;
  opts->az_max_deg = INFINITY;
  opts->polarisation = NULL;
  opts->apply_autofocus = FALSE;
  opts->same_process = FALSE;
}

/* ---- matio plumbing ---------------------------------------------------------------------------- */

/* matio and the HDF5 library under it keep global state and are not thread-safe. */
G_LOCK_DEFINE_STATIC (matio);
static char *matio_last_message;  /* owned, guarded by the matio lock */

static void
matio_log (int level, char *message)
{
  /* A reading process was forked from a program that may have other threads; GLib's logging takes a
   * lock one of them might have held at the fork, so the child keeps the message and logs nothing. */
  if (!ef_gotcha_in_reader_process ())
    g_debug ("matio: %s", message);
  if (level & (MATIO_LOG_LEVEL_CRITICAL | MATIO_LOG_LEVEL_ERROR))
    {
      /* Keep the first line only: HDF5's error stacks run to dozens of lines. */
      const char *nl = strchr (message, '\n');
      g_free (matio_last_message);
      matio_last_message = g_strndup (message, nl ? (gsize) (nl - message) : strlen (message));
    }
}

void
ef_gotcha_matio_setup (void)
{
  static gsize initialised = 0;

  /* Route matio's (and HDF5's) messages to the debug log instead of stderr. */
  if (g_once_init_enter (&initialised))
    {
      Mat_LogInitFunc ("echoform", matio_log);
      (void) EF_IO_ERROR;
      g_once_init_leave (&initialised, 1);
    }
}

GMutex *
ef_gotcha_matio_mutex (void)
{
  return &G_LOCK_NAME (matio);
}

/* A reading process is forked with the lock held on its behalf and has no other thread. */
static void
matio_lock (void)
{
  if (!ef_gotcha_in_reader_process ())
    {
      ef_gotcha_matio_setup ();
      G_LOCK (matio);
    }
  g_clear_pointer (&matio_last_message, g_free);
}

static void
matio_unlock (void)
{
  g_clear_pointer (&matio_last_message, g_free);
  if (!ef_gotcha_in_reader_process ())
    G_UNLOCK (matio);
}

/* " (matio: reason)" when matio said why, else "". */
static char *
matio_reason (void)
{
  if (matio_last_message == NULL || matio_last_message[0] == '\0')
    return g_strdup ("");
  return g_strdup_printf (" (matio: %.200s)", matio_last_message);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (matvar_t, Mat_VarFree)

static guint64
sat_mul (guint64 a, guint64 b)
{
  guint64 r;
  return __builtin_mul_overflow (a, b, &r) ? G_MAXUINT64 : r;
}

static guint64
sat_add (guint64 a, guint64 b)
{
  guint64 r;
  return __builtin_add_overflow (a, b, &r) ? G_MAXUINT64 : r;
}

/* ---- variables --------------------------------------------------------------------------------- */

static gsize
class_size (enum matio_classes c)
{
  switch (c)
    {
    case MAT_C_SINGLE:
      return sizeof (float);
    case MAT_C_DOUBLE:
      return sizeof (double);
    default:
      return 0;
    }
}

/* Number of elements, or FALSE when the dimensions overflow. */
static gboolean
var_numel (const matvar_t *v, gsize *out)
{
  gsize n = 1;

  if (v->rank < 1 || v->dims == NULL)
    return FALSE;
  for (int i = 0; i < v->rank; i++)
    if (!g_size_checked_mul (&n, n, v->dims[i]))
      return FALSE;
  *out = n;
  return TRUE;
}

/* Looks up field `name` of the first element of a struct.  matio's own lookup trusts the struct to be
 * whole, and a damaged file can leave it with a field count but no field names; this one checks. */
static matvar_t *
struct_field (const matvar_t *s, const char *name)
{
  char *const *names;
  unsigned nf;
  gsize numel;

  if (s == NULL || s->class_type != MAT_C_STRUCT || s->data == NULL || !var_numel (s, &numel) || numel < 1)
    return NULL;
  nf = Mat_VarGetNumberOfFields ((matvar_t *) s);
  names = Mat_VarGetStructFieldnames (s);
  if (nf == 0 || names == NULL || s->nbytes / sizeof (matvar_t *) < nf)
    return NULL;
  for (unsigned i = 0; i < nf; i++)
    if (names[i] != NULL && strcmp (names[i], name) == 0)
      return ((matvar_t **) s->data)[i];
  return NULL;
}

/* Checks that a field is a numeric array of single or double with the expected shape: a vector of n
 * elements (n == 0 accepts any length, reported back in *n_out), or, with cols != 0, a [n x cols]
 * matrix.  Adds its size in bytes to *bytes.  With data, also checks that matio read all of it. */
static gboolean
check_field (const char *path, const matvar_t *data, const char *name, gboolean complex_expected,
             gsize n, gsize cols, gsize *n_out, gsize *bytes, gboolean need_data, GError **error)
{
  matvar_t *v = struct_field (data, name);
  gsize numel, esize, nbytes;
  const char *shape_hint = cols ? "a [frequency x pulse] matrix" : "a vector";

  if (v == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a Gotcha file: data.%s is missing",
                   path, name);
      return FALSE;
    }
  esize = class_size (v->class_type);
  if (esize == 0 || v->class_type == MAT_C_SPARSE || v->isLogical)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "“%s”: data.%s must hold single or double numbers", path, name);
      return FALSE;
    }
  if (!!v->isComplex != !!complex_expected)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: data.%s must be %s", path, name,
                   complex_expected ? "complex" : "real");
      return FALSE;
    }
  if (v->rank != 2 || !var_numel (v, &numel))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: data.%s must be %s", path, name, shape_hint);
      return FALSE;
    }
  if (cols != 0)
    {
      if (v->dims[0] != n || v->dims[1] != cols)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "“%s”: data.%s is [%zu x %zu], but freq has %zu samples and x has %zu pulses: it must be "
                       "[%zu x %zu]", path, name, v->dims[0], v->dims[1], n, cols, n, cols);
          return FALSE;
        }
    }
  else
    {
      if (v->dims[0] != 1 && v->dims[1] != 1)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: data.%s is [%zu x %zu]; it must be a vector",
                       path, name, v->dims[0], v->dims[1]);
          return FALSE;
        }
      if (n != 0 && numel != n)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "“%s”: data.%s has %zu elements, but there are %zu pulses", path, name, numel, n);
          return FALSE;
        }
    }
  if (!g_size_checked_mul (&nbytes, numel, esize * (complex_expected ? 2 : 1))
      || !g_size_checked_add (bytes, *bytes, nbytes))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: data.%s is absurdly large", path, name);
      return FALSE;
    }
  if (need_data)
    {
      /* numel * esize cannot overflow: nbytes, a multiple of it, was computed with a check above. */
      gboolean ok = v->data != NULL && (gsize) v->data_size == esize && v->nbytes >= numel * esize;

      if (ok && complex_expected)
        {
          const mat_complex_split_t *cs = v->data;
          ok = cs->Re != NULL && cs->Im != NULL;
        }
      if (!ok && numel > 0)
        {
          g_autofree char *why = matio_reason ();
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "“%s”: data.%s could not be read%s", path,
                       name, why);
          return FALSE;
        }
    }
  if (n_out != NULL)
    *n_out = numel;
  return TRUE;
}

/* An optional field counts as absent when it is missing or empty ([] in MATLAB). */
static gboolean
field_present (const matvar_t *data, const char *name)
{
  matvar_t *v = struct_field (data, name);
  gsize numel;

  return v != NULL && var_numel (v, &numel) && numel > 0;
}

static inline double
element (const matvar_t *v, const void *base, gsize i)
{
  return v->class_type == MAT_C_SINGLE ? (double) ((const float *) base)[i] : ((const double *) base)[i];
}

/* Copies a checked real field into doubles, refusing NaN and infinities. */
static double *
field_doubles (const char *path, const matvar_t *data, const char *name, gsize n, GError **error)
{
  matvar_t *v = struct_field (data, name);
  g_autofree double *out = g_new (double, n);

  for (gsize i = 0; i < n; i++)
    {
      out[i] = element (v, v->data, i);
      if (!isfinite (out[i]))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: data.%s(%zu) is %g", path, name,
                       i + 1, out[i]);
          return NULL;
        }
    }
  return g_steal_pointer (&out);
}

/* ---- one file ---------------------------------------------------------------------------------- */


static const char *const required_fields[] = { "fp", "freq", "x", "y", "z", "r0", NULL };

/* Checks the structure of `data` (from Mat_VarReadInfo or Mat_VarRead) and returns the sizes. */
static EfGotchaLoad
check_structure (const char *path, const matvar_t *data, gboolean need_data, gboolean want_af,
                 gsize *n_samples, gsize *n_pulses, gsize *bytes, GError **error)
{
  gsize ns = 0, np = 0;
  matvar_t *af;

  if (data->class_type != MAT_C_STRUCT)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a Gotcha file: “data” is not a struct",
                   path);
      return EF_GOTCHA_LOAD_NOT_GOTCHA;
    }
  for (guint i = 0; required_fields[i] != NULL; i++)
    if (struct_field (data, required_fields[i]) == NULL)
      {
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a Gotcha file: data.%s is missing",
                     path, required_fields[i]);
        return EF_GOTCHA_LOAD_NOT_GOTCHA;
      }
  {
    gsize numel;
    if (!var_numel (data, &numel) || numel != 1)
      {
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: “data” must be a single struct, not an array",
                     path);
        return EF_GOTCHA_LOAD_ERROR;
      }
  }

  *bytes = 0;
  if (!check_field (path, data, "freq", FALSE, 0, 0, &ns, bytes, need_data, error)
      || !check_field (path, data, "x", FALSE, 0, 0, &np, bytes, need_data, error))
    return EF_GOTCHA_LOAD_ERROR;
  if (ns < 2 || ns > GOTCHA_MAX_SAMPLES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "“%s”: data.freq has %zu samples; a pulse needs 2 to %u", path, ns, GOTCHA_MAX_SAMPLES);
      return EF_GOTCHA_LOAD_ERROR;
    }
  if (np == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” holds no pulses", path);
      return EF_GOTCHA_LOAD_ERROR;
    }
  if (!check_field (path, data, "y", FALSE, np, 0, NULL, bytes, need_data, error)
      || !check_field (path, data, "z", FALSE, np, 0, NULL, bytes, need_data, error)
      || !check_field (path, data, "r0", FALSE, np, 0, NULL, bytes, need_data, error)
      || !check_field (path, data, "fp", TRUE, ns, np, NULL, bytes, need_data, error))
    return EF_GOTCHA_LOAD_ERROR;
  if (field_present (data, "th")
      && !check_field (path, data, "th", FALSE, np, 0, NULL, bytes, need_data, error))
    return EF_GOTCHA_LOAD_ERROR;
  if (want_af)
    {
      af = struct_field (data, "af");
      if (af == NULL || af->class_type != MAT_C_STRUCT)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "“%s” has no autofocus corrections (data.af) to apply", path);
          return EF_GOTCHA_LOAD_ERROR;
        }
      if (!check_field (path, af, "r_correct", FALSE, np, 0, NULL, bytes, need_data, error)
          || !check_field (path, af, "ph_correct", FALSE, np, 0, NULL, bytes, need_data, error))
        return EF_GOTCHA_LOAD_ERROR;
    }
  *n_samples = ns;
  *n_pulses = np;
  return EF_GOTCHA_LOAD_OK;
}

static gboolean
azimuth_selected (double az, const EfGotchaOptions *opts)
{
  if (opts->az_min_deg > opts->az_max_deg)
    return TRUE;
  return az >= opts->az_min_deg && az <= opts->az_max_deg;
}

/* Turns a fully read `data` struct into a part holding the selected pulses. */
static gboolean
convert_part (EfGotchaPart *part, const matvar_t *data, gsize ns, gsize np, const EfGotchaOptions *opts,
              GError **error)
{
  const char *path = part->path;
  g_autofree double *freq = NULL, *x = NULL, *y = NULL, *z = NULL, *r0 = NULL, *th = NULL;
  g_autofree double *rc = NULL, *pc = NULL;
  const matvar_t *fp = struct_field (data, "fp");
  const mat_complex_split_t *cs = fp->data;
  double f0, f1, df;
  gsize n_keep = 0, k = 0;

  if (!(freq = field_doubles (path, data, "freq", ns, error)) || !(x = field_doubles (path, data, "x", np, error))
      || !(y = field_doubles (path, data, "y", np, error)) || !(z = field_doubles (path, data, "z", np, error))
      || !(r0 = field_doubles (path, data, "r0", np, error)))
    return FALSE;
  if (field_present (data, "th"))
    {
      if (!(th = field_doubles (path, data, "th", np, error)))
        return FALSE;
    }
  else
    {
      /* The azimuth is measured from +x, as in the data set's own th. */
      th = g_new (double, np);
      for (gsize p = 0; p < np; p++)
        th[p] = atan2 (y[p], x[p]) * (180.0 / G_PI);
    }
  if (opts->apply_autofocus)
    {
      matvar_t *af = struct_field (data, "af");
      if (!(rc = field_doubles (path, af, "r_correct", np, error))
          || !(pc = field_doubles (path, af, "ph_correct", np, error)))
        return FALSE;
    }

  /* The frequencies must step uniformly upwards: the range profile is an FFT over them. */
  f0 = freq[0];
  f1 = freq[ns - 1];
  df = (f1 - f0) / (double) (ns - 1);
  if (!(df > 0) || !(f0 > 0))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "“%s”: the frequencies run from %.9g Hz to %.9g Hz; they must be positive and increase", path,
                   f0, f1);
      return FALSE;
    }
  for (gsize i = 1; i < ns; i++)
    {
      double step = freq[i] - freq[i - 1];
      if (!(fabs (step - df) <= GOTCHA_FREQ_TOLERANCE * df))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "“%s”: the frequency step between samples %zu and %zu is %.6g Hz, not the mean %.6g Hz: "
                       "the frequencies must increase uniformly", path, i, i + 1, step, df);
          return FALSE;
        }
    }

  part->n_samples = (guint) ns;
  part->first_az = th[0];
  part->min_az = part->max_az = th[0];
  for (gsize p = 0; p < np; p++)
    {
      part->min_az = MIN (part->min_az, th[p]);
      part->max_az = MAX (part->max_az, th[p]);
      if (azimuth_selected (th[p], opts))
        n_keep++;
    }
  if (n_keep == 0)
    return TRUE;

  part->pulses = g_new0 (EfPulse, n_keep);
  /* n_keep * ns <= np * ns, the element count of fp, which check_field computed with overflow checks;
   * g_try_new checks the byte count again. n_keep <= GOTCHA_MAX_PULSES fits n_pulses. */
  part->samples = g_try_new (EfCf32, n_keep * ns);
  if (part->samples == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Not enough memory for the samples of “%s”", path);
      return FALSE;
    }
  for (gsize p = 0; p < np; p++)
    {
      EfPulse *pu;
      EfCf32 *dst;
      EfCf32 rot = 1.0f;

      if (!azimuth_selected (th[p], opts))
        continue;
      pu = &part->pulses[k];
      pu->tx[0] = pu->rcv[0] = x[p];
      pu->tx[1] = pu->rcv[1] = y[p];
      pu->tx[2] = pu->rcv[2] = z[p];
      pu->r0 = r0[p];
      pu->sc0 = f0;
      pu->scss = df;
      pu->fx1 = f0;
      pu->fx2 = f1;
      if (opts->apply_autofocus)
        {
          pu->r0 += rc[p];
          rot = (EfCf32) cexp (I * pc[p]);
        }

      dst = part->samples + k * ns;
      for (gsize i = 0; i < ns; i++)
        {
          gsize src = p * ns + i;
          double re = element (fp, cs->Re, src), im = element (fp, cs->Im, src);

          if (!isfinite (re) || !isfinite (im))
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                           "“%s”: sample %zu of pulse %zu is not a finite number", path, i + 1, p + 1);
              return FALSE;
            }
          dst[i] = ((float) re + I * (float) im) * rot;
        }
      if (!(pu->r0 > 0))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: pulse %zu has a range of %g m", path,
                       p + 1, pu->r0);
          return FALSE;
        }
      k++;
    }
  part->n_pulses = (guint) n_keep;
  return TRUE;
}

/* Bytes a zlib stream of len bytes at offset inflates to: the output is counted and dropped. A damaged
 * stream counts as far as it inflates. */
static guint64
inflated_size (int fd, guint64 offset, guint64 len)
{
  z_stream z = { 0 };
  guint8 in[16384], out[65536];
  guint64 total = 0, done = 0;

  if (inflateInit (&z) != Z_OK)
    return 0;
  for (;;)
    {
      int ret;

      if (z.avail_in == 0 && done < len)
        {
          gssize n = pread (fd, in, (gsize) MIN ((guint64) sizeof in, len - done), (off_t) (offset + done));
          if (n <= 0)
            break;
          done += (guint64) n;
          z.next_in = in;
          z.avail_in = (uInt) n;
        }
      z.next_out = out;
      z.avail_out = sizeof out;
      ret = inflate (&z, Z_NO_FLUSH);
      total += sizeof out - z.avail_out;
      if (ret != Z_OK && ret != Z_BUF_ERROR)
        break;  /* the end of the stream, or damage */
      if (z.avail_in == 0 && done >= len && z.avail_out != 0)
        break;  /* all of the input used and nothing more to come out */
      if (ret == Z_BUF_ERROR && z.avail_in == 0 && done >= len)
        break;
    }
  inflateEnd (&z);
  return total;
}

/* matio reads a MAT v5 file that was cut short without complaint, filling the missing bytes with whatever
 * its buffer held.  The top level of a v5 file is a sequence of tagged elements (a 32-bit type and a
 * 32-bit length, in the byte order of the header) after a 128-byte header: check only that each of them
 * lies within the file, and leave everything inside them to matio.  On the way, *decompressed gets what
 * the file holds once its compressed elements are inflated (zlib does that, and the output is dropped):
 * no truthful variable describes more data than that. */
static gboolean
check_v5_framing (const char *path, guint64 *decompressed, GError **error)
{
  guint8 head[128];
  GStatBuf st;
  guint64 size, pos = 128, total = 128;
  guint16 endian;
  gboolean swap;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);

  if (fd < 0 || fstat (fd, &st) != 0 || pread (fd, head, sizeof head, 0) != (gssize) sizeof head)
    {
      /* matio opened it; let matio report what it finds */
      if (fd >= 0)
        close (fd);
      return TRUE;
    }
  size = (guint64) st.st_size;
  memcpy (&endian, head + 126, 2);
  swap = endian != 0x4d49;
  while (pos < size)
    {
      guint32 tag[2], type, len;
      guint64 next;

      if (size - pos < 8)
        {
          total += size - pos;
          break;  /* trailing bytes too short for a tag: padding, ignored as MATLAB does */
        }
      if (pread (fd, tag, 8, (off_t) pos) != 8)
        {
          int saved = errno;
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot read “%s”: %s", path,
                       g_strerror (saved != 0 ? saved : EIO));
          close (fd);
          return FALSE;
        }
      type = swap ? GUINT32_SWAP_LE_BE (tag[0]) : tag[0];
      len = swap ? GUINT32_SWAP_LE_BE (tag[1]) : tag[1];
      if ((type >> 16) != 0)
        next = pos + 8;  /* a small element: type, length and up to 4 bytes of data in 8 bytes */
      else if (type == 15)
        next = pos + 8 + len;  /* compressed: not padded */
      else
        next = pos + 8 + (((guint64) len + 7) & ~(guint64) 7);
      if (next > size)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                       "“%s” is cut short: a variable at byte %" G_GUINT64_FORMAT " needs %" G_GUINT64_FORMAT
                       " bytes, but the file ends at %" G_GUINT64_FORMAT, path, pos, next - pos, size);
          close (fd);
          return FALSE;
        }
      if ((type >> 16) == 0 && type == 15)
        total += inflated_size (fd, pos + 8, len);
      else
        total += next - pos;
      pos = next;
    }
  close (fd);
  *decompressed = total;
  return TRUE;
}

/* Loads one file, keeping the pulses selected by opts. */
EfGotchaLoad
ef_gotcha_load_part (const char *path, const EfGotchaOptions *opts, EfGotchaPart **out, GError **error)
{
  g_autoptr (EfGotchaPart) part = ef_gotcha_part_new (path);
  g_autoptr (matvar_t) info = NULL;
  g_autoptr (matvar_t) data = NULL;
  GStatBuf st;
  mat_t *mat;
  gsize ns = 0, np = 0, bytes = 0;
  guint64 decompressed, budget;
  EfGotchaLoad res;

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot open “%s”: %s", path, g_strerror (saved));
      return EF_GOTCHA_LOAD_ERROR;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a regular file", path);
      return EF_GOTCHA_LOAD_NOT_GOTCHA;
    }

  matio_lock ();
  mat = Mat_Open (path, MAT_ACC_RDONLY);
  if (mat == NULL)
    {
      if (g_access (path, R_OK) != 0)
        {
          int saved = errno;
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot open “%s”: %s", path, g_strerror (saved));
          res = EF_GOTCHA_LOAD_ERROR;
        }
      else
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a MATLAB .mat file", path);
          res = EF_GOTCHA_LOAD_NOT_GOTCHA;
        }
      matio_unlock ();
      return res;
    }
  part->version = Mat_GetVersion (mat);
  if (part->version != MAT_FT_MAT5 && part->version != MAT_FT_MAT73)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "“%s” is not a Gotcha file: Gotcha files are MATLAB v5 or v7.3, and this is not", path);
      Mat_Close (mat);
      matio_unlock ();
      return EF_GOTCHA_LOAD_NOT_GOTCHA;
    }

  decompressed = (guint64) st.st_size;
  if (part->version == MAT_FT_MAT5 && !check_v5_framing (path, &decompressed, error))
    {
      Mat_Close (mat);
      matio_unlock ();
      return EF_GOTCHA_LOAD_ERROR;
    }

  /* Look at the shapes first, so that a file lying about its sizes is refused before its data is read.
   * matio believes the sizes it meets while it builds this description, too: in a reading process, the
   * memory it may take is bounded by what the file holds. */
  ef_gotcha_budget (sat_mul (decompressed, 2));
  info = Mat_VarReadInfo (mat, "data");
  if (info == NULL)
    {
      g_autofree char *why = matio_reason ();
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a Gotcha file: it has no variable “data”%s",
                   path, why);
      Mat_Close (mat);
      matio_unlock ();
      return EF_GOTCHA_LOAD_NOT_GOTCHA;
    }
  /* matio describes what it can of a damaged variable (one it ran out of memory for, say) and complains
   * only in its log. */
  if (matio_last_message != NULL)
    {
      g_autofree char *why = matio_reason ();
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: the description of the variable “data” is "
                   "damaged%s", path, why);
      res = EF_GOTCHA_LOAD_ERROR;
      goto out;
    }
  res = check_structure (path, info, FALSE, opts->apply_autofocus, &ns, &np, &bytes, error);
  if (res != EF_GOTCHA_LOAD_OK)
    goto out;
  /* A v5 file's data is all there is once inflated. HDF5 (v7.3) fills chunks a file does not store,
   * so a v7.3 dataset may legitimately hold more than its file; zlib still bounds the ratio. */
  budget = part->version == MAT_FT_MAT5 ? decompressed : sat_mul ((guint64) st.st_size, GOTCHA_MAX_INFLATION);
  if (bytes > budget)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                   "“%s” claims %zu bytes of data but the file holds only %" G_GUINT64_FORMAT " bytes%s", path,
                   bytes, part->version == MAT_FT_MAT5 ? decompressed : (guint64) st.st_size,
                   part->version == MAT_FT_MAT5 && decompressed != (guint64) st.st_size ? " decompressed" : "");
      res = EF_GOTCHA_LOAD_ERROR;
      goto out;
    }
  if (np > GOTCHA_MAX_PULSES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” holds %zu pulses; Echoform reads at most %u",
                   path, np, GOTCHA_MAX_PULSES);
      res = EF_GOTCHA_LOAD_ERROR;
      goto out;
    }
  g_clear_pointer (&info, Mat_VarFree);
  /* matio's copy of the data, ours in the engine's layout, and a few numbers per pulse. */
  ef_gotcha_budget (sat_add (sat_mul (MAX (decompressed, (guint64) bytes), 2), (guint64) np * GOTCHA_BYTES_PER_PULSE));

  data = Mat_VarRead (mat, "data");
  if (data == NULL)
    {
      g_autofree char *why = matio_reason ();
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "“%s”: the variable “data” could not be read%s", path,
                   why);
      res = EF_GOTCHA_LOAD_ERROR;
      goto out;
    }
  /* matio reads what it can of a damaged variable and complains only in its log. */
  if (matio_last_message != NULL)
    {
      g_autofree char *why = matio_reason ();
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "“%s”: the variable “data” is damaged or cut short%s",
                   path, why);
      res = EF_GOTCHA_LOAD_ERROR;
      goto out;
    }
  /* Check again on what was actually read: that is what gets dereferenced. */
  {
    gsize ns2 = 0, np2 = 0;
    res = check_structure (path, data, TRUE, opts->apply_autofocus, &ns2, &np2, &bytes, error);
    if (res == EF_GOTCHA_LOAD_OK && (ns2 != ns || np2 != np))
      {
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: the variable “data” changed size when read",
                     path);
        res = EF_GOTCHA_LOAD_ERROR;
      }
    if (res != EF_GOTCHA_LOAD_OK)
      {
        /* The first look found a Gotcha struct, so whatever is wrong now is damage. */
        res = EF_GOTCHA_LOAD_ERROR;
        goto out;
      }
  }
  if (!convert_part (part, data, ns, np, opts, error))
    {
      res = EF_GOTCHA_LOAD_ERROR;
      goto out;
    }
  res = EF_GOTCHA_LOAD_OK;
  *out = g_steal_pointer (&part);

out:
  g_clear_pointer (&info, Mat_VarFree);
  g_clear_pointer (&data, Mat_VarFree);
  Mat_Close (mat);
  matio_unlock ();
  return res;
}
