/* ef-image-io-raster.c: writing formed images as float TIFF and dB PNG, and the dB range PNG shows. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-io"
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if HAVE_TIFF
#include <tiffio.h>
#endif
#if HAVE_PNG
#include <png.h>
#endif

#include "ef-error.h"
#include "ef-image-io.h"
#include "ef-sidecar.h"
#include "ef-image-io-private.h"

/* Display defaults for PNG: percentiles of the non-zero pixels' dB values, and at most this range. */
#define EF_PNG_P_LO 5.0
#define EF_PNG_P_HI 99.9
#define EF_PNG_MAX_RANGE_DB 50.0
/* ef_image_db_range looks at no more than this many pixels, evenly spread. */
#define EF_DB_RANGE_MAX_SAMPLES (1u << 20)

/*
 * TIFF: two samples per pixel, 32-bit IEEE float (real, imaginary), contiguous, in strips. This reads
 * as a two-band float image in GDAL, tifffile, MATLAB's Tiff and libtiff-based tools, where the
 * SAMPLEFORMAT_COMPLEXIEEEFP variant is understood by far fewer readers. The grid goes into
 * ImageDescription as the same JSON that the .npy sidecar holds.
 */

#if HAVE_TIFF
#if TIFFLIB_VERSION >= 20221213
static int
ef_tiff_error_handler (TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap)
{
  GString *msg = user_data;

  if (msg->len == 0)
    g_string_append_vprintf (msg, fmt, ap);
  return 1;   /* handled: keep libtiff from printing it */
}

static int
ef_tiff_warning_handler (TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap)
{
  g_autofree char *text = g_strdup_vprintf (fmt, ap);

  g_debug ("libtiff: %s: %s", module != NULL ? module : "", text);
  return 1;
}
#endif

gboolean
ef_image_write_tiff (const EfImage *image, const char *path, JsonObject *extra, GError **error)
{
  const EfGrid *g;
  EfAtomicFile af = { 0 };
  g_autoptr (GString) msg = g_string_new (NULL);
  g_autofree char *json = NULL;
  g_autofree char *software = NULL;
  g_autofree EfCf32 *strip = NULL;
  guint16 extra_samples[1] = { EXTRASAMPLE_UNSPECIFIED };
  guint32 rows_per_strip;
  int sync_fd;
  gboolean ok = TRUE;
  TIFF *tif;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ef_check_image (image, path, error))
    return FALSE;
  g = &image->grid;
  if (!ef_atomic_open (&af, path, error))
    return FALSE;

  /* TIFFClose closes the descriptor it was given; a duplicate lets the data be synced after. */
  sync_fd = dup (af.fd);
  {
#if TIFFLIB_VERSION >= 20221213
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc ();
    TIFFOpenOptionsSetErrorHandlerExtR (opts, ef_tiff_error_handler, msg);
    TIFFOpenOptionsSetWarningHandlerExtR (opts, ef_tiff_warning_handler, NULL);
    tif = TIFFFdOpenExt (af.fd, af.tmp, "w", opts);
    TIFFOpenOptionsFree (opts);
#else
    tif = TIFFFdOpen (af.fd, af.tmp, "w");
#endif
  }
  if (tif == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", path,
                   msg->len > 0 ? msg->str : "libtiff could not open it");
      if (sync_fd >= 0)
        close (sync_fd);
      ef_atomic_abort (&af);
      return FALSE;
    }
  af.fd = -1;

  /* Strips of about 256 KiB. */
  rows_per_strip = (guint32) CLAMP (262144 / ((gsize) g->width * sizeof (EfCf32)), 1, g->height);
  json = ef_sidecar_grid_is_finite (g) ? ef_sidecar_to_text (g, extra) : NULL;
  software = g_strdup_printf ("Echoform %s", PACKAGE_VERSION);

  ok = TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (guint32) g->width)
       && TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (guint32) g->height)
       && TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, 2)
       && TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, 32)
       && TIFFSetField (tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP)
       && TIFFSetField (tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG)
       && TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK)
       && TIFFSetField (tif, TIFFTAG_EXTRASAMPLES, 1, extra_samples)
       && TIFFSetField (tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE)
       && TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip)
       && TIFFSetField (tif, TIFFTAG_SOFTWARE, software)
       && (json == NULL || TIFFSetField (tif, TIFFTAG_IMAGEDESCRIPTION, json));

  /* libtiff may byte-swap or encode in place, so each strip goes through a scratch copy. */
  strip = g_new (EfCf32, (gsize) rows_per_strip * g->width);
  for (guint32 s = 0, row = 0; ok && row < g->height; s++, row += rows_per_strip)
    {
      guint32 rows = MIN (rows_per_strip, g->height - row);
      gsize count = (gsize) rows * g->width;
      memcpy (strip, image->data + (gsize) row * g->width, count * sizeof (EfCf32));
      ok = TIFFWriteEncodedStrip (tif, s, strip, (tmsize_t) (count * sizeof (EfCf32))) >= 0;
    }
  if (ok)
    ok = TIFFFlush (tif) == 1;
  TIFFClose (tif);
  if (ok && sync_fd >= 0 && fsync (sync_fd) != 0)
    {
      ef_write_error (&af, error);
      close (sync_fd);
      ef_atomic_abort (&af);
      return FALSE;
    }
  if (sync_fd >= 0)
    close (sync_fd);
  if (!ok)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", path,
                   msg->len > 0 ? msg->str : "libtiff failed");
      ef_atomic_abort (&af);
      return FALSE;
    }
  return ef_atomic_commit (&af, error);
}
#else
gboolean
ef_image_write_tiff (const EfImage *image, const char *path, JsonObject *extra, GError **error)
{
  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "Cannot write “%s”: built without TIFF support", path);
  return FALSE;
}
#endif

/*
 * Display range.
 */

static int
ef_cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

static double
ef_percentile_sorted (const float *v, gsize n, double p)
{
  double rank = CLAMP (p, 0.0, 100.0) / 100.0 * (double) (n - 1);
  gsize lo = (gsize) floor (rank);
  gsize hi = MIN (lo + 1, n - 1);
  double t = rank - (double) lo;

  /* Linear between the neighbouring order statistics, as NumPy's default. */
  return (double) v[lo] + t * ((double) v[hi] - (double) v[lo]);
}

void
ef_image_db_range (const EfCf32 *data, gsize n, double p_lo, double p_hi, double *db_min, double *db_max)
{
  g_autofree float *db = NULL;
  gsize stride, m = 0;

  g_return_if_fail (data != NULL || n == 0);
  g_return_if_fail (db_min != NULL && db_max != NULL);

  *db_min = *db_max = 0.0;
  if (n == 0)
    return;

  /* A display range needs no exact order statistics of a huge image: an even subsample will do. */
  stride = (n + EF_DB_RANGE_MAX_SAMPLES - 1) / EF_DB_RANGE_MAX_SAMPLES;
  db = g_new (float, (n + stride - 1) / stride);
  for (gsize i = 0; i < n; i += stride)
    {
      double re = crealf (data[i]), im = cimagf (data[i]);
      double p = re * re + im * im;
      if (p > 0 && isfinite (p))
        db[m++] = (float) (10.0 * log10 (p));
    }
  if (m == 0)
    return;
  qsort (db, m, sizeof (float), ef_cmp_float);
  *db_min = ef_percentile_sorted (db, m, p_lo);
  *db_max = ef_percentile_sorted (db, m, p_hi);
}

/*
 * PNG: 8-bit greyscale of 20 log10 |z|, mapped linearly from [db_min, db_max] to [0, 1] and raised to
 * the power 1 / gamma (gamma > 1 lifts the dark end, as an image editor's gamma control does).
 */

#if HAVE_PNG
typedef struct {
  char msg[256];
} EfPngErr;

static void
ef_png_error (png_structp png, png_const_charp msg)
{
  EfPngErr *e = png_get_error_ptr (png);

  g_strlcpy (e->msg, msg, sizeof e->msg);
  png_longjmp (png, 1);
}

static void
ef_png_warning (png_structp png, png_const_charp msg)
{
  g_debug ("libpng: %s", msg);
}

static void
ef_png_range (const EfImage *image, const EfPngOptions *opts, double *lo, double *hi, double *gamma)
{
  *gamma = 1.0;
  if (opts != NULL && isfinite (opts->gamma) && opts->gamma > 0)
    *gamma = opts->gamma;
  if (opts != NULL && isfinite (opts->db_min) && isfinite (opts->db_max) && opts->db_min < opts->db_max)
    {
      *lo = opts->db_min;
      *hi = opts->db_max;
      return;
    }
  ef_image_db_range (image->data, ef_grid_n_pixels (&image->grid), EF_PNG_P_LO, EF_PNG_P_HI, lo, hi);
  /* Speckle scenes span some 30 dB between these percentiles; a point-target simulation, whose
   * sidelobes fall away for ever, would otherwise show 100 dB of nothing. */
  *lo = MAX (*lo, *hi - EF_PNG_MAX_RANGE_DB);
  if (!(*hi - *lo >= 1.0))
    *lo = *hi - 1.0;
}

gboolean
ef_image_write_png (const EfImage *image, const char *path, const EfPngOptions *opts, GError **error)
{
  const EfGrid *g;
  EfAtomicFile af = { 0 };
  EfPngErr perr = { { 0 } };
  png_structp png = NULL;
  png_infop info = NULL;
  png_text text[2];
  char comment[128];
  double lo, hi, gamma;
  guint8 *row_buf;
  FILE *f;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ef_check_image (image, path, error))
    return FALSE;
  g = &image->grid;
  ef_png_range (image, opts, &lo, &hi, &gamma);

  if (!ef_atomic_open (&af, path, error))
    return FALSE;
  f = ef_atomic_stream (&af, error);
  if (f == NULL)
    {
      ef_atomic_abort (&af);
      return FALSE;
    }

  row_buf = g_malloc (g->width);
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &perr, ef_png_error, ef_png_warning);
  if (png != NULL)
    info = png_create_info_struct (png);
  if (png == NULL || info == NULL)
    {
      png_destroy_write_struct (&png, &info);
      g_free (row_buf);
      fclose (f);
      ef_atomic_abort (&af);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: out of memory", path);
      return FALSE;
    }

  /* Nothing that changes after this point is read after a longjmp back to it. */
  if (setjmp (png_jmpbuf (png)))
    {
      png_destroy_write_struct (&png, &info);
      g_free (row_buf);
      fclose (f);
      ef_atomic_abort (&af);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", path,
                   perr.msg[0] ? perr.msg : "libpng failed");
      return FALSE;
    }

  png_init_io (png, f);
  png_set_IHDR (png, info, g->width, g->height, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  {
    char lo_s[G_ASCII_DTOSTR_BUF_SIZE], hi_s[G_ASCII_DTOSTR_BUF_SIZE], ga_s[G_ASCII_DTOSTR_BUF_SIZE];
    g_snprintf (comment, sizeof comment, "20 log10 |z| from %s to %s dB, gamma %s",
                g_ascii_formatd (lo_s, sizeof lo_s, "%.2f", lo), g_ascii_formatd (hi_s, sizeof hi_s, "%.2f", hi),
                g_ascii_formatd (ga_s, sizeof ga_s, "%.3g", gamma));
  }
  memset (text, 0, sizeof text);
  text[0].compression = PNG_TEXT_COMPRESSION_NONE;
  text[0].key = (char *) "Software";
  text[0].text = (char *) "Echoform " PACKAGE_VERSION;
  text[1].compression = PNG_TEXT_COMPRESSION_NONE;
  text[1].key = (char *) "Comment";
  text[1].text = comment;
  png_set_text (png, info, text, 2);
  png_write_info (png, info);

  for (guint r = 0; r < g->height; r++)
    {
      const EfCf32 *z = image->data + (gsize) r * g->width;
      for (guint c = 0; c < g->width; c++)
        {
          double re = crealf (z[c]), im = cimagf (z[c]);
          double p = re * re + im * im, t;
          if (!(p > 0) || !isfinite (p))
            {
              /* Zero and NaN are black; an infinite pixel is as bright as it gets. */
              row_buf[c] = isinf (p) ? 255 : 0;
              continue;
            }
          t = CLAMP ((10.0 * log10 (p) - lo) / (hi - lo), 0.0, 1.0);
          if (gamma != 1.0)
            t = pow (t, 1.0 / gamma);
          row_buf[c] = (guint8) lround (255.0 * t);
        }
      png_write_row (png, row_buf);
    }
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  g_free (row_buf);

  if (!ef_atomic_close_stream (&af, f, error))
    {
      ef_atomic_abort (&af);
      return FALSE;
    }
  return ef_atomic_commit (&af, error);
}
#else
gboolean
ef_image_write_png (const EfImage *image, const char *path, const EfPngOptions *opts, GError **error)
{
  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "Cannot write “%s”: built without PNG support", path);
  return FALSE;
}
#endif
