/* test-image-io.c: image writers (.npy + sidecar, TIFF, PNG) and the .npy reader. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-image-io"
#include "config.h"

#include <complex.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#if HAVE_TIFF
#include <tiffio.h>
#endif
#if HAVE_PNG
#include <png.h>
#endif

#include "ef-error.h"
#include "ef-grid.h"
#include "ef-image-io.h"
#include "ef-sidecar.h"

typedef struct {
  char *dir;
} Fixture;

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      if (d != NULL)
        g_dir_close (d);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
fixture_setup (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  fx->dir = g_dir_make_tmp ("ef-image-io-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *fx, gconstpointer data)
{
  remove_tree (fx->dir);
  g_free (fx->dir);
}

static int
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The folder's entries, sorted, comma-separated: shows any temporary file left behind. */
static char *
list_dir (const char *dir)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, cmp_str);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (",", (char **) names->pdata);
}

static double
gauss (void)
{
  double u1 = g_test_rand_double_range (1e-12, 1), u2 = g_test_rand_double ();
  return sqrt (-2 * log (u1)) * cos (2 * G_PI * u2);
}

/* A rotated, offset grid with random data, including values whose bits must survive exactly. */
static EfImage *
random_image (guint width, guint height)
{
  EfGrid g = { 0 };
  EfImage *image;
  g_autoptr (GError) error = NULL;
  double a = g_test_rand_double_range (-G_PI, G_PI);
  gsize n = (gsize) width * height;

  g.width = width;
  g.height = height;
  g.spacing = g_test_rand_double_range (0.01, 3.0);
  g.origin[0] = g_test_rand_double_range (-1e5, 1e5);
  g.origin[1] = g_test_rand_double_range (-1e5, 1e5);
  g.origin[2] = g_test_rand_double_range (-100, 100);
  g.u[0] = cos (a);
  g.u[1] = sin (a);
  g.v[0] = sin (a);
  g.v[1] = -cos (a);
  image = ef_image_new (&g, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < n; i++)
    image->data[i] = (EfCf32) (gauss () * 1e3 + I * gauss () * 1e-3);
  image->data[0] = CMPLXF (-0.0f, 1e-42f);   /* negative zero and a denormal */
  image->data[n - 1] = INFINITY - I * 3.0e38f;
  return image;
}

static void
assert_grid_equal (const EfGrid *a, const EfGrid *b)
{
  g_assert_cmpuint (a->width, ==, b->width);
  g_assert_cmpuint (a->height, ==, b->height);
  g_assert_cmpmem (&a->spacing, sizeof (double), &b->spacing, sizeof (double));
  g_assert_cmpmem (a->origin, sizeof a->origin, b->origin, sizeof b->origin);
  g_assert_cmpmem (a->u, sizeof a->u, b->u, sizeof b->u);
  g_assert_cmpmem (a->v, sizeof a->v, b->v, sizeof b->v);
}

/* The sidecar at path, parsed (json-glib): the root object, a new reference. */
static JsonObject *
load_json (const char *path)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static JsonObject *
object_from_text (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_npy_round_trip (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (37, 23);
  g_autoptr (EfImage) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) extra_back = NULL;
  g_autofree char *path = g_build_filename (fx->dir, "out.npy", NULL);
  g_autofree char *listing = NULL;
  gboolean had_sidecar = FALSE;
  /* Nested keys that share our names must not confuse the reader. */
  g_autoptr (JsonObject) extra = object_from_text ("{\"algo\": \"bp\", \"note\": \"a \\\"quoted\\\" } brace\", "
                                                   "\"nested\": {\"width\": 3, \"u\": [9, 9, 9]}}");

  g_assert_true (ef_image_write_npy (image, path, extra, &error));
  g_assert_no_error (error);
  listing = list_dir (fx->dir);
  g_assert_cmpstr (listing, ==, "out.json,out.npy");

  back = ef_image_read_npy_full (path, 0, &had_sidecar, &extra_back, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  g_assert_true (had_sidecar);
  assert_grid_equal (&back->grid, &image->grid);
  g_assert_cmpmem (back->data, ef_grid_n_pixels (&back->grid) * sizeof (EfCf32), image->data,
                   ef_grid_n_pixels (&image->grid) * sizeof (EfCf32));
  g_assert_nonnull (extra_back);
  g_assert_cmpstr (json_object_get_string_member (extra_back, "algo"), ==, "bp");
  g_assert_cmpstr (json_object_get_string_member (extra_back, "note"), ==, "a \"quoted\" } brace");

  {
    g_autofree char *side = g_build_filename (fx->dir, "out.json", NULL);
    g_autoptr (JsonObject) root = load_json (side);

    g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "echoform-image");
    g_assert_cmpint (json_object_get_int_member (root, "width"), ==, 37);
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "extra"), "algo"), ==, "bp");
  }
}

/* Doubles that print with an exponent (tiny offsets, a micrometre spacing) stay valid JSON and read
 * back bit for bit: json-glib 1.6 would write "1e-05.0". */
static void
test_npy_exponents (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (4, 3);
  g_autoptr (EfImage) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (fx->dir, "tiny.npy", NULL);
  g_autofree char *side = g_build_filename (fx->dir, "tiny.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr (JsonObject) extra = object_from_text ("{\"elapsed_s\": 0}");

  image->grid.spacing = 1e-5;
  image->grid.origin[0] = 1.2345678901234567e-300;
  image->grid.origin[1] = -6.123233995736766e-17;
  image->grid.origin[2] = 1e22;
  json_object_set_double_member (extra, "elapsed_s", 3.5e-7);
  json_object_set_string_member (extra, "text", "1e-05.0 stays as written");
  g_assert_true (ef_image_write_npy (image, path, extra, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (side, &text, NULL, NULL));
  g_assert_null (strstr (text, "e-05.0,"));
  g_assert_null (strstr (text, "e-300.0"));
  g_assert_nonnull (strstr (text, "1e-05.0 stays as written"));
  back = ef_image_read_npy (path, &error);
  g_assert_no_error (error);
  assert_grid_equal (&back->grid, &image->grid);
  {
    g_autoptr (JsonObject) root = load_json (side);
    double t = json_object_get_double_member (json_object_get_object_member (root, "extra"), "elapsed_s");

    g_assert_cmpmem (&t, sizeof t, &(double) { 3.5e-7 }, sizeof t);
  }
}

static void
test_npy_locale (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (5, 4);
  g_autoptr (EfImage) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (fx->dir, "loc.npy", NULL);
  g_autofree char *side = g_build_filename (fx->dir, "loc.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *saved = g_strdup (setlocale (LC_NUMERIC, NULL));
  const char *locales[] = { "de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "C.UTF-8" };
  const char *got = NULL;

  /* A decimal comma must not leak into the JSON. */
  for (guint i = 0; i < G_N_ELEMENTS (locales) && got == NULL; i++)
    got = setlocale (LC_NUMERIC, locales[i]);
  g_test_message ("numeric locale: %s", got != NULL ? got : "(none)");
  image->grid.spacing = 0.25;
  g_assert_true (ef_image_write_npy (image, path, NULL, &error));
  g_assert_no_error (error);
  back = ef_image_read_npy (path, &error);
  setlocale (LC_NUMERIC, saved);
  g_assert_no_error (error);
  assert_grid_equal (&back->grid, &image->grid);
  g_assert_true (g_file_get_contents (side, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "0.25"));
  g_assert_null (strstr (text, "0,25"));
}

static guint32
le32 (const guint8 *p)
{
  return p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static void
test_npy_header (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (19, 7);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (fx->dir, "h.npy", NULL);
  g_autofree char *bytes = NULL;
  g_autofree char *dict = NULL;
  gsize len;
  guint hlen;
  const guint8 *u;
  float re, im;
  guint32 bits;

  g_assert_true (ef_image_write_npy (image, path, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  u = (const guint8 *) bytes;

  g_assert_cmpmem (bytes, 8, "\x93NUMPY\x01\x00", 8);
  hlen = u[8] | (guint) u[9] << 8;
  g_assert_cmpuint ((10 + hlen) % 64, ==, 0);
  g_assert_cmpuint (len, ==, 10 + hlen + 19 * 7 * 8);
  g_assert_cmpint (bytes[10 + hlen - 1], ==, '\n');
  dict = g_strndup (bytes + 10, hlen);
  g_assert_true (g_str_has_prefix (dict, "{'descr': '<c8', 'fortran_order': False, 'shape': (7, 19), }"));
  for (guint i = strlen ("{'descr': '<c8', 'fortran_order': False, 'shape': (7, 19), }"); i + 1 < hlen; i++)
    g_assert_cmpint (dict[i], ==, ' ');

  /* The second pixel, little-endian whatever the host. */
  bits = le32 (u + 10 + hlen + 8);
  memcpy (&re, &bits, 4);
  bits = le32 (u + 10 + hlen + 12);
  memcpy (&im, &bits, 4);
  g_assert_cmpfloat (re, ==, crealf (image->data[1]));
  g_assert_cmpfloat (im, ==, cimagf (image->data[1]));
}

static void
write_bytes (const char *path, const void *data, gsize len)
{
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
}

static void
test_npy_errors (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (8, 6);
  g_autofree char *path = g_build_filename (fx->dir, "e.npy", NULL);
  g_autofree char *side = g_build_filename (fx->dir, "e.json", NULL);
  g_autofree char *bytes = NULL;
  g_autofree char *listing = NULL;
  GError *error = NULL;
  EfImage *back;
  gsize len;

  g_assert_null (ef_image_read_npy (path, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
  g_clear_error (&error);

  /* A grid that is not finite writes nothing. */
  image->grid.origin[0] = NAN;
  g_assert_false (ef_image_write_npy (image, path, NULL, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  image->grid.origin[0] = 0;
  listing = list_dir (fx->dir);
  g_assert_cmpstr (listing, ==, "");

  g_assert_true (ef_image_write_npy (image, path, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));

  write_bytes (path, "not an array at all", 19);
  g_assert_null (ef_image_read_npy (path, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_clear_error (&error);

  write_bytes (path, bytes, len - 1);
  g_assert_null (ef_image_read_npy (path, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED);
  g_clear_error (&error);

  {
    g_autofree char *other = g_memdup2 (bytes, len);
    memcpy (strstr (other + 10, "<c8"), "<f8", 3);
    write_bytes (path, other, len);
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED);
    g_clear_error (&error);

    memcpy (other, bytes, len);
    memcpy (strstr (other + 10, "False"), "True ", 5);
    write_bytes (path, other, len);
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED);
    g_clear_error (&error);
  }

  /* A sidecar for another size. */
  write_bytes (path, bytes, len);
  {
    g_autofree char *text = NULL;
    g_autofree char *wrong = NULL;
    g_auto (GStrv) parts = NULL;
    g_assert_true (g_file_get_contents (side, &text, NULL, NULL));
    parts = g_strsplit (text, "\"width\" : 8,", -1);
    g_assert_cmpuint (g_strv_length (parts), ==, 2);
    wrong = g_strjoinv ("\"width\" : 9,", parts);
    write_bytes (side, wrong, strlen (wrong));
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);

    write_bytes (side, "{\"width\": 8}", 12);
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
    g_clear_error (&error);

    write_bytes (side, "{\"width\": 8, ", 13);
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
    g_clear_error (&error);

    /* A negative or fractional size, and axes that are not orthonormal. */
    g_clear_pointer (&wrong, g_free);
    wrong = g_strjoinv ("\"width\" : -8,", parts);
    write_bytes (side, wrong, strlen (wrong));
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);
    g_clear_pointer (&wrong, g_free);
    wrong = g_strjoinv ("\"width\" : 8.5,", parts);
    write_bytes (side, wrong, strlen (wrong));
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);
  }

  /* Without a sidecar the pixel size is unknown: refused, unless the caller gives it. */
  g_assert_cmpint (g_unlink (side), ==, 0);
  g_assert_null (ef_image_read_npy (path, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_NO_GRID);
  g_clear_error (&error);
  {
    gboolean had_sidecar = TRUE;

    back = ef_image_read_npy_full (path, 0.25, &had_sidecar, NULL, &error);
    g_assert_no_error (error);
    g_assert_false (had_sidecar);
  }
  g_assert_cmpuint (back->grid.width, ==, 8);
  g_assert_cmpuint (back->grid.height, ==, 6);
  g_assert_cmpfloat (back->grid.spacing, ==, 0.25);
  g_assert_cmpmem (back->data, 48 * sizeof (EfCf32), image->data, 48 * sizeof (EfCf32));
  ef_image_free (back);
}

/* A .npy header with the given dictionary, version 1, then data_bytes of zeros. */
static void
write_npy (const char *path, const char *dict, gsize data_bytes)
{
  g_autoptr (GString) s = g_string_new_len ("\x93NUMPY\x01\x00", 8);
  guint16 len = GUINT16_TO_LE ((guint16) (strlen (dict) + 1));

  g_string_append_len (s, (const char *) &len, 2);
  g_string_append (s, dict);
  g_string_append_c (s, '\n');
  for (gsize i = 0; i < data_bytes; i++)
    g_string_append_c (s, '\0');
  write_bytes (path, s->str, s->len);
}

/* Shapes whose product overflows, or that no file this size can hold, are refused before anything is
 * allocated for them; so are header lengths past what NumPy writes. */
static void
test_npy_sizes (Fixture *fx, gconstpointer data)
{
  static const char *const shapes[] = {
    "(4294967296, 4294967296)", "(18446744073709551615, 18446744073709551615)", "(65536, 65536)",
    "(65537, 1)", "(1, 65537)", "(0, 8)", "(8, 0)", "(-1, 8)", "(8, -1)",
    "(1234567890123456789012345678901234567890, 1)", "(1, 99999999999999999999)", "(16384, 16385)",
    "(2, 4)",  /* fits the limits, but the file holds no data */
  };
  g_autofree char *path = g_build_filename (fx->dir, "s.npy", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autofree char *dict = g_strdup_printf ("{'descr': '<c8', 'fortran_order': False, 'shape': %s, }", shapes[i]);
      g_autoptr (GError) error = NULL;
      EfImage *back;

      write_npy (path, dict, 0);
      back = ef_image_read_npy (path, &error);
      g_assert_null (back);
      g_assert_nonnull (error);
      g_test_message ("%s: %s", shapes[i], error->message);
      g_assert_true (error->domain == EF_IO_ERROR);
    }

  /* Format 2.0's 32-bit header length, at its largest. */
  {
    const guint8 v2[] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0xff, '{', '}' };
    g_autoptr (GError) error = NULL;

    write_bytes (path, v2, sizeof v2);
    g_assert_null (ef_image_read_npy (path, &error));
    g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "absurd length"));
  }
}

/* The grid sidecar is read only when it is of a plausible size: a huge one is refused without being
 * read into memory. */
static void
test_npy_sidecar_size (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (4, 3);
  g_autofree char *path = g_build_filename (fx->dir, "g.npy", NULL);
  g_autofree char *side = g_build_filename (fx->dir, "g.json", NULL);
  g_autoptr (GError) error = NULL;
  int fd;

  g_assert_true (ef_image_write_npy (image, path, NULL, &error));
  g_assert_no_error (error);
  /* 64 MiB, sparse: a reader that loads the whole file first would hold it all (it could as well be
   * gigabytes) before finding that it is no grid. */
  fd = g_open (side, O_WRONLY | O_TRUNC, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 64 << 20), ==, 0);
  close (fd);
  g_assert_null (ef_image_read_npy (path, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "g.json” is not a grid description"));
  g_clear_error (&error);
  g_assert_cmpint (g_unlink (side), ==, 0);

  /* A folder where the sidecar should be. */
  g_assert_cmpint (g_mkdir (side, 0700), ==, 0);
  g_assert_null (ef_image_read_npy (path, &error));
  g_assert_true (error->domain == EF_IO_ERROR);
  g_assert_cmpint (g_rmdir (side), ==, 0);
}

#if HAVE_TIFF
static void
test_tiff_readback (Fixture *fx, gconstpointer data)
{
  /* Tall enough for several strips. */
  g_autoptr (EfImage) image = random_image (301, 517);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (fx->dir, "out.tiff", NULL);
  g_autofree EfCf32 *line = NULL;
  guint32 w = 0, h = 0, rps = 0;
  guint16 spp = 0, bps = 0, fmt = 0, planar = 0;
  char *desc = NULL;
  TIFF *tif;
  g_autoptr (JsonObject) extra = object_from_text ("{\"algo\": \"pfa\"}");

  g_assert_true (ef_image_write_full (image, path, extra, NULL, &error));
  g_assert_no_error (error);

  tif = TIFFOpen (path, "r");
  g_assert_nonnull (tif);
  g_assert_true (TIFFGetField (tif, TIFFTAG_IMAGEWIDTH, &w));
  g_assert_true (TIFFGetField (tif, TIFFTAG_IMAGELENGTH, &h));
  g_assert_true (TIFFGetField (tif, TIFFTAG_SAMPLESPERPIXEL, &spp));
  g_assert_true (TIFFGetField (tif, TIFFTAG_BITSPERSAMPLE, &bps));
  g_assert_true (TIFFGetField (tif, TIFFTAG_SAMPLEFORMAT, &fmt));
  g_assert_true (TIFFGetField (tif, TIFFTAG_PLANARCONFIG, &planar));
  g_assert_true (TIFFGetField (tif, TIFFTAG_ROWSPERSTRIP, &rps));
  g_assert_true (TIFFGetField (tif, TIFFTAG_IMAGEDESCRIPTION, &desc));
  g_assert_cmpuint (w, ==, 301);
  g_assert_cmpuint (h, ==, 517);
  g_assert_cmpuint (spp, ==, 2);
  g_assert_cmpuint (bps, ==, 32);
  g_assert_cmpuint (fmt, ==, SAMPLEFORMAT_IEEEFP);
  g_assert_cmpuint (planar, ==, PLANARCONFIG_CONTIG);
  g_assert_cmpuint (TIFFNumberOfStrips (tif), >, 1);
  {
    /* The description is the sidecar's JSON, what formed the image included. */
    g_autoptr (JsonObject) desc_extra = NULL;
    EfGrid dg;

    g_assert_true (ef_sidecar_parse (desc, -1, "description", &dg, &desc_extra, &error));
    g_assert_no_error (error);
    assert_grid_equal (&dg, &image->grid);
    g_assert_nonnull (desc_extra);
    g_assert_cmpstr (json_object_get_string_member (desc_extra, "algo"), ==, "pfa");
  }
  g_assert_cmpint (TIFFScanlineSize (tif), ==, 301 * 8);
  g_test_message ("TIFF: %u strips of %u rows", TIFFNumberOfStrips (tif), rps);

  line = g_new (EfCf32, 301);
  for (guint32 r = 0; r < h; r++)
    {
      g_assert_cmpint (TIFFReadScanline (tif, line, r, 0), ==, 1);
      g_assert_cmpmem (line, 301 * sizeof (EfCf32), image->data + (gsize) r * 301, 301 * sizeof (EfCf32));
    }
  TIFFClose (tif);
}
#endif

#if HAVE_PNG
static guint8 *
read_png (const char *path, guint *width, guint *height)
{
  png_image pi;
  guint8 *buf;

  memset (&pi, 0, sizeof pi);
  pi.version = PNG_IMAGE_VERSION;
  g_assert_true (png_image_begin_read_from_file (&pi, path));
  g_assert_cmpuint (pi.format & PNG_FORMAT_FLAG_COLOR, ==, 0);
  pi.format = PNG_FORMAT_GRAY;
  buf = g_malloc (PNG_IMAGE_SIZE (pi));
  g_assert_true (png_image_finish_read (&pi, NULL, buf, 0, NULL));
  *width = pi.width;
  *height = pi.height;
  return buf;
}

static void
test_png_readback (Fixture *fx, gconstpointer data)
{
  guint W = 97, H = 61, pc = (guint) g_test_rand_int_range (10, 87), pr = (guint) g_test_rand_int_range (10, 51);
  g_autoptr (EfImage) image = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (fx->dir, "out.png", NULL);
  EfGrid g;
  double peak_db = 0;

  g_assert_true (ef_grid_init_roi (&g, 0, 0, W, H, 1.0, &error));
  image = ef_image_new (&g, &error);
  g_assert_no_error (error);
  /* A point target on weak speckle. */
  for (guint r = 0; r < H; r++)
    for (guint c = 0; c < W; c++)
      {
        double x = (double) c - pc - 0.2, y = (double) r - pr + 0.3;
        double s = (x == 0 ? 1 : sin (G_PI * x / 2) / (G_PI * x / 2)) * (y == 0 ? 1 : sin (G_PI * y / 2) / (G_PI * y / 2));
        image->data[(gsize) r * W + c] = (EfCf32) (100 * s + 0.01 * (gauss () + I * gauss ()));
      }
  peak_db = 20 * log10 (cabs ((EfCf64) image->data[(gsize) pr * W + pc]));

  for (int pass = 0; pass < 3; pass++)
    {
      EfPngOptions opts = { peak_db - 60, peak_db, pass == 1 ? 2.0 : 1.0 };
      g_autofree guint8 *px = NULL;
      guint w, h, best = 0, n_best = 0;
      gsize at = 0;

      if (pass < 2)
        g_assert_true (ef_image_write_png (image, path, &opts, &error));
      else
        g_assert_true (ef_image_write (image, path, &error));   /* percentile defaults */
      g_assert_no_error (error);
      px = read_png (path, &w, &h);
      g_assert_cmpuint (w, ==, W);
      g_assert_cmpuint (h, ==, H);
      for (gsize i = 0; i < (gsize) W * H; i++)
        if (px[i] > best)
          {
            best = px[i];
            at = i;
          }
      for (gsize i = 0; i < (gsize) W * H; i++)
        n_best += px[i] == best;
      g_test_message ("pass %d: brightest %u at (%u, %u), %u pixels at that level", pass, best,
                      (guint) (at % W), (guint) (at / W), n_best);
      g_assert_cmpuint (best, ==, 255);
      g_assert_cmpuint (px[(gsize) pr * W + pc], ==, 255);
      if (pass < 2)
        {
          g_assert_cmpuint (at, ==, (gsize) pr * W + pc);
          g_assert_cmpuint (n_best, ==, 1);
        }

      /* A pixel's grey level is its place in the dB range, raised to 1 / gamma. */
      for (int k = 0; k < 20 && pass < 2; k++)
        {
          gsize i = (gsize) g_test_rand_int_range (0, (gint32) (W * H));
          double db = 20 * log10 (cabs ((EfCf64) image->data[i]));
          double t = pow (CLAMP ((db - opts.db_min) / 60, 0, 1), 1 / opts.gamma);
          g_assert_cmpfloat (fabs (px[i] - 255 * t), <=, 0.5 + 1e-6);
        }
    }
}
#endif

static double
percentile_reference (double *v, gsize n, double p)
{
  double rank = p / 100 * (n - 1);
  gsize lo = (gsize) floor (rank), hi = MIN (lo + 1, n - 1);
  return v[lo] + (rank - lo) * (v[hi] - v[lo]);
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
test_db_range (void)
{
  gsize n = 20000, m = 0;
  g_autofree EfCf32 *z = g_new (EfCf32, n);
  g_autofree double *db = g_new (double, n);
  double lo, hi;

  for (gsize i = 0; i < n; i++)
    {
      /* A tenth of the pixels are zero and take no part. */
      z[i] = i % 10 == 3 ? 0 : (EfCf32) (exp (3 * gauss ()) * cexp (I * g_test_rand_double ()));
      if (z[i] != 0)
        db[m++] = 20 * log10 (cabs ((EfCf64) z[i]));
    }
  qsort (db, m, sizeof (double), cmp_double);
  ef_image_db_range (z, n, 5, 99.9, &lo, &hi);
  g_test_message ("dB range %.4f .. %.4f, reference %.4f .. %.4f", lo, hi, percentile_reference (db, m, 5),
                  percentile_reference (db, m, 99.9));
  g_assert_cmpfloat (fabs (lo - percentile_reference (db, m, 5)), <, 1e-4);
  g_assert_cmpfloat (fabs (hi - percentile_reference (db, m, 99.9)), <, 1e-4);
  ef_image_db_range (z, n, 0, 100, &lo, &hi);
  g_assert_cmpfloat (fabs (lo - db[0]), <, 1e-4);
  g_assert_cmpfloat (fabs (hi - db[m - 1]), <, 1e-4);

  memset (z, 0, n * sizeof (EfCf32));
  ef_image_db_range (z, n, 5, 99.9, &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 0);
}

static const char *all_names[] = { "out.npy", "out.tif", "out.TIFF", "out.png" };

static gboolean
format_available (const char *name)
{
  if (g_str_has_suffix (name, ".png"))
    return HAVE_PNG;
  if (!g_str_has_suffix (name, ".npy"))
    return HAVE_TIFF;
  return TRUE;
}

static void
test_missing_folder (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (16, 16);
  g_autofree char *missing = g_build_filename (fx->dir, "missing", NULL);
  g_autofree char *listing = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (all_names); i++)
    {
      g_autofree char *path = g_build_filename (missing, all_names[i], NULL);
      GError *error = NULL;

      if (!format_available (all_names[i]))
        continue;
      g_assert_false (ef_image_write (image, path, &error));
      g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, path));
      g_clear_error (&error);
    }
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  listing = list_dir (fx->dir);
  g_assert_cmpstr (listing, ==, "");
}

/* The destination is a folder: everything is written, then the rename fails, and the temporary
 * file must go. */
static void
test_rename_fails (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (16, 16);

  for (guint i = 0; i < G_N_ELEMENTS (all_names); i++)
    {
      g_autofree char *path = g_build_filename (fx->dir, all_names[i], NULL);
      g_autofree char *side = g_build_filename (fx->dir, "out.json", NULL);
      g_autofree char *inner = g_build_filename (path, "keep", NULL);
      g_autofree char *listing = NULL;
      g_autofree char *expect = NULL;
      GError *error = NULL;

      if (!format_available (all_names[i]))
        continue;
      g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
      write_bytes (inner, "x", 1);
      g_assert_false (ef_image_write (image, path, &error));
      g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, path));
      g_test_message ("%s", error->message);
      g_clear_error (&error);
      g_assert_true (g_file_test (inner, G_FILE_TEST_IS_REGULAR));
      listing = list_dir (fx->dir);
      /* The .npy sidecar, a file, is written before the array's rename fails. */
      expect = g_str_has_suffix (all_names[i], ".npy") ? g_strdup ("out.json,out.npy")
                                                       : g_strdup_printf ("%s", all_names[i]);
      g_assert_cmpstr (listing, ==, expect);
      remove_tree (path);
      remove_tree (side);
    }
}

static void
test_replace (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) a = random_image (40, 30);
  g_autoptr (EfImage) b = random_image (20, 10);

  for (guint i = 0; i < G_N_ELEMENTS (all_names); i++)
    {
      g_autofree char *path = g_build_filename (fx->dir, all_names[i], NULL);
      g_autofree char *side = g_build_filename (fx->dir, "out.json", NULL);
      g_autofree char *old_bytes = NULL;
      g_autofree char *new_bytes = NULL;
      g_autofree char *listing = NULL;
      g_autofree char *seen = NULL;
      gsize old_len, new_len;
      GError *error = NULL;
      struct stat st;
      int fd;

      if (!format_available (all_names[i]))
        continue;
      g_assert_true (ef_image_write (a, path, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &old_bytes, &old_len, NULL));

      /* A reader holding the old file keeps seeing all of it. */
      fd = g_open (path, O_RDONLY, 0);
      g_assert_cmpint (fd, >=, 0);
      g_assert_true (ef_image_write (b, path, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &new_bytes, &new_len, NULL));
      g_assert_cmpuint (new_len, !=, old_len);

      g_assert_cmpint (fstat (fd, &st), ==, 0);
      g_assert_cmpint (st.st_size, ==, (goffset) old_len);
      seen = g_malloc (old_len);
      g_assert_cmpint (pread (fd, seen, old_len, 0), ==, (gssize) old_len);
      g_assert_cmpmem (seen, old_len, old_bytes, old_len);
      close (fd);

      if (g_str_has_suffix (all_names[i], ".npy"))
        {
          g_autoptr (EfImage) back = ef_image_read_npy (path, &error);
          g_assert_no_error (error);
          assert_grid_equal (&back->grid, &b->grid);
        }
      listing = list_dir (fx->dir);
      g_assert_cmpstr (listing, ==, g_str_has_suffix (all_names[i], ".npy") ? "out.json,out.npy" : all_names[i]);
      remove_tree (path);
      remove_tree (side);
    }
}

static void
test_by_extension (Fixture *fx, gconstpointer data)
{
  g_autoptr (EfImage) image = random_image (8, 8);
  g_autofree char *path = g_build_filename (fx->dir, "out.jpg", NULL);
  g_autofree char *listing = NULL;
  GError *error = NULL;

  g_assert_false (ef_image_write (image, path, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  listing = list_dir (fx->dir);
  g_assert_cmpstr (listing, ==, "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) g_test_add ("/compute/image-io/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("npy/round-trip", test_npy_round_trip);
  ADD ("npy/locale", test_npy_locale);
  ADD ("npy/exponents", test_npy_exponents);
  ADD ("npy/header", test_npy_header);
  ADD ("npy/errors", test_npy_errors);
  ADD ("npy/sizes", test_npy_sizes);
  ADD ("npy/sidecar-size", test_npy_sidecar_size);
#if HAVE_TIFF
  ADD ("tiff/readback", test_tiff_readback);
#endif
#if HAVE_PNG
  ADD ("png/readback", test_png_readback);
#endif
  ADD ("atomic/missing-folder", test_missing_folder);
  ADD ("atomic/rename-fails", test_rename_fails);
  ADD ("atomic/replace", test_replace);
  ADD ("by-extension", test_by_extension);
#undef ADD
  g_test_add_func ("/compute/image-io/db-range", test_db_range);

  return g_test_run ();
}
