/* ef-sicd-write.c: a SICD 1.3.0 file through GDAL's NITF driver: the I/Q image segment and the XML DES. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-sicd"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if HAVE_GDAL
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#endif

#include "ef-error.h"
#include "ef-sicd.h"

/* SICD Volume 2 (the NITF file format) and sarkit's reader: one image segment per 10^10 bytes and one
 * block per segment when a side is at most 8192 pixels. A region that large is beyond what this writer
 * lays out. */
#define MAX_EDGE 8192

gboolean
ef_sicd_available (void)
{
  return HAVE_GDAL;
}

#if HAVE_GDAL

typedef struct {
  double lat[4], lon[4];
  guint  rows, cols;
} Corners;

static double
xpath_number (xmlXPathContextPtr ctx, const char *expr)
{
  xmlXPathObjectPtr o = xmlXPathEvalExpression ((const xmlChar *) expr, ctx);
  double v = NAN;

  if (o != NULL && o->type == XPATH_NUMBER)
    v = o->floatval;
  xmlXPathFreeObject (o);
  return v;
}

/* The corners and size the XML states, read back from it so that the NITF headers say the same. */
static gboolean
read_corners (const char *xml, gsize len, Corners *c, GError **error)
{
  xmlDocPtr doc = xmlReadMemory (xml, (int) len, "sicd.xml", NULL, XML_PARSE_NONET);
  xmlXPathContextPtr ctx;
  gboolean ok = TRUE;

  if (doc == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "The SICD XML does not read back");
      return FALSE;
    }
  ctx = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (ctx, (const xmlChar *) "s", (const xmlChar *) "urn:SICD:1.3.0");
  for (int i = 0; i < 4; i++)
    {
      char e[128];

      g_snprintf (e, sizeof e, "number(/s:SICD/s:GeoData/s:ImageCorners/s:ICP[%d]/s:Lat)", i + 1);
      c->lat[i] = xpath_number (ctx, e);
      g_snprintf (e, sizeof e, "number(/s:SICD/s:GeoData/s:ImageCorners/s:ICP[%d]/s:Lon)", i + 1);
      c->lon[i] = xpath_number (ctx, e);
      ok = ok && isfinite (c->lat[i]) && isfinite (c->lon[i]);
    }
  c->rows = (guint) xpath_number (ctx, "number(/s:SICD/s:ImageData/s:NumRows)");
  c->cols = (guint) xpath_number (ctx, "number(/s:SICD/s:ImageData/s:NumCols)");
  xmlXPathFreeContext (ctx);
  xmlFreeDoc (doc);
  if (!ok || c->rows == 0 || c->cols == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "The SICD XML lacks its corners or its size");
      return FALSE;
    }
  return TRUE;
}

/* One corner as NITF's IGEOLO wants it: ddmmssXdddmmssY. */
static void
dms (double v, int deg_digits, char pos, char neg, GString *out)
{
  long s = lround (fabs (v) * 3600.0);

  g_string_append_printf (out, "%0*ld%02ld%02ld%c", deg_digits, s / 3600, (s % 3600) / 60, s % 60, v < 0 ? neg : pos);
}

/* A field of exactly width characters, space-padded (NITF's BCS-A). */
static void
field (GString *s, const char *v, guint width)
{
  gsize n = strlen (v);

  g_string_append_len (s, v, MIN (n, width));
  for (gsize i = n; i < width; i++)
    g_string_append_c (s, ' ');
}

/* The DES contents from DESVER on (GDAL writes DE and DESID): unclassified security fields, the
 * XML_DATA_CONTENT user-defined subheader of 773 bytes that SICD Volume 2 asks for, and the XML. */
static char *
des_contents (const char *xml, gsize len, const Corners *c)
{
  GString *s = g_string_new ("01");   /* DESVER */
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *now_s = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  GString *lpg = g_string_new (NULL);

  field (s, "U", 1);       /* DESCLAS */
  field (s, "", 166);      /* DESCLSY .. DESCTLN: no further markings */
  field (s, "0773", 4);    /* DESSHL */
  field (s, "99999", 5);   /* DESCRC: no checksum */
  field (s, "XML", 8);     /* DESSHFT */
  field (s, now_s, 20);    /* DESSHDT */
  field (s, "", 40);       /* DESSHRP */
  field (s, "SICD Volume 1 Design & Implementation Description Document", 60);
  field (s, "1.3.0", 10);  /* DESSHSV */
  field (s, "2021-11-30T00:00:00Z", 20);  /* DESSHSD: the 1.3.0 specification's date */
  field (s, "urn:SICD:1.3.0", 120);       /* DESSHTN */
  for (int i = 0; i <= 4; i++)
    g_string_append_printf (lpg, "%+012.8f%+013.8f", c->lat[i % 4], c->lon[i % 4]);
  field (s, lpg->str, 125);  /* DESSHLPG: the corners, closed */
  g_string_free (lpg, TRUE);
  field (s, "", 25);   /* DESSHLPT */
  field (s, "", 20);   /* DESSHLI */
  field (s, "", 120);  /* DESSHLIN */
  field (s, "", 200);  /* DESSHABS */
  g_string_append_len (s, xml, len);
  return g_string_free (s, FALSE);
}

static gboolean
gdal_error (GError **error, const char *what, const char *path)
{
  const char *msg = CPLGetLastErrorMsg ();

  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "%s “%s”: %s", what, path,
               msg != NULL && msg[0] != '\0' ? msg : "GDAL's NITF driver failed");
  return FALSE;
}

/*
 * GDAL's NITF driver (3.6) writes a multi-band image band by band (IMODE B), while SICD wants its two
 * bands interleaved by pixel (IMODE P). With one block per band the two layouts are the same bytes in
 * another order: band 1 holds the first half of the I/Q stream and band 2 the second, and the image
 * subheader's IMODE says how to read them. GDAL writes every byte; this changes the one IMODE byte, found
 * by the fields GDAL writes around it (ISYNC IMODE NBPR NBPC NPPBH NPPBV NBPP), inside the image
 * subheader that the file header locates.
 */
static gboolean
set_imode_p (const char *path, const Corners *c, GError **error)
{
  FILE *f = g_fopen (path, "r+b");
  char hl_s[7] = { 0 }, lish_s[7] = { 0 };
  g_autofree char *hdr = NULL;
  g_autofree char *pattern = NULL;
  long hl, lish;
  const char *hit, *again;
  gboolean ok = FALSE;

  if (f == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot reopen “%s”: %s", path, g_strerror (errno));
      return FALSE;
    }
  /* NITF 2.1 file header: HL at 354 (6), NUMI at 360 (3), LISH001 at 363 (6). */
  if (fseek (f, 354, SEEK_SET) != 0 || fread (hl_s, 1, 6, f) != 6 || fseek (f, 363, SEEK_SET) != 0
      || fread (lish_s, 1, 6, f) != 6)
    goto out;
  hl = strtol (hl_s, NULL, 10);
  lish = strtol (lish_s, NULL, 10);
  if (hl < 388 || lish < 100 || lish > 100000)
    goto out;
  hdr = g_malloc (lish + 1);
  if (fseek (f, hl, SEEK_SET) != 0 || fread (hdr, 1, lish, f) != (size_t) lish)
    goto out;
  hdr[lish] = '\0';
  pattern = g_strdup_printf ("0B00010001%04u%04u32", c->cols, c->rows);
  hit = g_strstr_len (hdr, lish, pattern);
  again = hit != NULL ? g_strstr_len (hit + 1, lish - (hit + 1 - hdr), pattern) : NULL;
  if (hit == NULL || again != NULL)
    goto out;
  if (fseek (f, hl + (hit - hdr) + 1, SEEK_SET) != 0 || fputc ('P', f) == EOF)
    goto out;
  ok = TRUE;
out:
  if (fclose (f) != 0)
    ok = FALSE;
  if (!ok)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED,
                 "GDAL's NITF driver laid out “%s” in a way this writer does not know; it cannot mark its "
                 "bands as interleaved by pixel", path);
  return ok;
}

static gboolean
write_nitf (const char *path, const EfSicdSource *src, const char *xml, gsize len, const guint64 *reorder,
            const Corners *c, GError **error)
{
  GDALDriverH drv;
  GDALDatasetH ds;
  char **opts = NULL;
  g_autofree char *des = NULL;
  g_autofree char *des_opt = NULL;
  char *escaped;
  GString *igeolo = g_string_new (NULL);
  g_autofree float *half = NULL;
  gsize n = (gsize) c->rows * c->cols;
  gboolean ok = TRUE;

  GDALAllRegister ();
  drv = GDALGetDriverByName ("NITF");
  if (drv == NULL)
    {
      g_string_free (igeolo, TRUE);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "This GDAL has no NITF driver");
      return FALSE;
    }
  for (int i = 0; i < 4; i++)
    {
      dms (c->lat[i], 2, 'N', 'S', igeolo);
      dms (c->lon[i], 3, 'E', 'W', igeolo);
    }
  des = des_contents (xml, len, c);
  escaped = CPLEscapeString (des, -1, CPLES_BackslashQuotable);
  des_opt = g_strconcat ("DES=XML_DATA_CONTENT=", escaped, NULL);
  CPLFree (escaped);

  opts = CSLSetNameValue (opts, "FHDR", "NITF02.10");
  opts = CSLSetNameValue (opts, "OSTAID", "Echoform");
  opts = CSLSetNameValue (opts, "FTITLE", "SICD: Echoform complex image");
  opts = CSLSetNameValue (opts, "IID1", "SICD000");
  opts = CSLSetNameValue (opts, "IDATIM", "20000101000000");
  opts = CSLSetNameValue (opts, "ISORCE", src->dataset->info.source != NULL ? src->dataset->info.source : "SAR");
  opts = CSLSetNameValue (opts, "IREP", "NODISPLY");
  opts = CSLSetNameValue (opts, "ICAT", "SAR");
  opts = CSLSetNameValue (opts, "ISUBCAT", "I,Q");
  opts = CSLSetNameValue (opts, "ABPP", "32");
  opts = CSLSetNameValue (opts, "PJUST", "R");
  opts = CSLSetNameValue (opts, "IC", "NC");
  opts = CSLSetNameValue (opts, "ICORDS", "G");
  opts = CSLSetNameValue (opts, "IGEOLO", igeolo->str);
  g_string_free (igeolo, TRUE);
  {
    char bx[16], by[16];

    g_snprintf (bx, sizeof bx, "%u", c->cols);
    g_snprintf (by, sizeof by, "%u", c->rows);
    opts = CSLSetNameValue (opts, "BLOCKXSIZE", bx);
    opts = CSLSetNameValue (opts, "BLOCKYSIZE", by);
  }
  opts = CSLSetNameValue (opts, "NUMDES", "1");
  opts = CSLAddString (opts, des_opt);

  CPLErrorReset ();
  ds = GDALCreate (drv, path, (int) c->cols, (int) c->rows, 2, GDT_Float32, opts);
  CSLDestroy (opts);
  if (ds == NULL)
    return gdal_error (error, "GDAL could not create", path);

  /* The I/Q stream in the SICD's pixel order: band 1 takes its first n floats, band 2 the rest. */
  half = g_try_new (float, n);
  if (half == NULL)
    {
      GDALClose (ds);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Not enough memory for a %u x %u SICD", c->cols, c->rows);
      return FALSE;
    }
  for (int b = 0; b < 2 && ok; b++)
    {
      for (gsize i = 0; i < n; i++)
        {
          gsize s = (gsize) b * n + i;           /* index in the interleaved stream */
          const EfCf32 z = src->image->data[reorder[s / 2]];

          half[i] = s % 2 == 0 ? crealf (z) : cimagf (z);
        }
      if (GDALRasterIO (GDALGetRasterBand (ds, b + 1), GF_Write, 0, 0, (int) c->cols, (int) c->rows, half,
                        (int) c->cols, (int) c->rows, GDT_Float32, 0, 0) != CE_None)
        ok = gdal_error (error, "GDAL could not write the image of", path);
    }
  /* The DES is written when the dataset closes; a failure there shows as an error state. */
  CPLErrorReset ();
  GDALClose (ds);
  if (ok && CPLGetLastErrorType () >= CE_Failure)
    ok = gdal_error (error, "GDAL could not finish", path);
  return ok && set_imode_p (path, c, error);
}

gboolean
ef_sicd_write (const char *path, const EfSicdSource *src, GError **error)
{
  g_autofree char *xml = NULL;
  g_autofree guint64 *reorder = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *tmp = NULL;
  gsize len = 0;
  Corners c;
  int fd;

  g_return_val_if_fail (path != NULL && src != NULL, FALSE);

  xml = ef_sicd_build_xml (src, &len, &reorder, error);
  if (xml == NULL || !read_corners (xml, len, &c, error))
    return FALSE;
  if (c.rows > MAX_EDGE || c.cols > MAX_EDGE)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "A SICD of %u x %u pixels needs blocked image segments, which this writer does not make; "
                   "export a region of at most %u pixels a side", c.rows, c.cols, MAX_EDGE);
      return FALSE;
    }
  /* A temporary file beside the target, renamed over it once complete: no partial file is ever left
   * under path, and a directory that cannot be written fails here, before any work. */
  dir = g_path_get_dirname (path);
  tmp = g_build_filename (dir, ".echoform-sicd-XXXXXX", NULL);
  fd = g_mkstemp_full (tmp, O_RDWR, 0666);
  if (fd < 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write in “%s”: %s", dir, g_strerror (errno));
      return FALSE;
    }
  close (fd);
  if (!write_nitf (tmp, src, xml, len, reorder, &c, error))
    {
      g_unlink (tmp);
      return FALSE;
    }
  if (g_rename (tmp, path) != 0)
    {
      int e = errno;

      g_unlink (tmp);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", path, g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

#else /* !HAVE_GDAL */

gboolean
ef_sicd_write (const char *path, const EfSicdSource *src, GError **error)
{
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
               "This build of Echoform has no GDAL, which writes SICD's NITF container");
  return FALSE;
}

#endif
