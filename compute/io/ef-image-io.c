/* ef-image-io.c: writing and reading .npy images with their .json sidecar; the atomic file every writer uses. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-io"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ef-error.h"
#include "ef-image-io.h"
#include "ef-sidecar.h"
#include "ef-image-io-private.h"

/* The largest .npy header accepted; NumPy's own are a few hundred bytes. */
#define EF_NPY_MAX_HEADER (1u << 20)
#define EF_IMAGE_MAX_EDGE 65536u
#define EF_IMAGE_MAX_PIXELS (G_GUINT64_CONSTANT (1) << 28)
/* The largest sidecar read; Echoform's are about a kilobyte. */
#define EF_SIDECAR_MAX_BYTES (16u << 20)

/*
 * Atomic replacement: every writer fills a hidden temporary file in the destination's folder (so
 * that rename() never crosses a file system) and renames it over the destination when complete.
 * Readers see the old file or the new one, never a partial one.
 */

gboolean
ef_atomic_open (EfAtomicFile *af, const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = g_strdup_printf (".%s.XXXXXX", base);

  af->path = g_strdup (path);
  af->tmp = g_build_filename (dir, name, NULL);
  /* Mode 0666 under the umask, as for any newly created file. */
  af->fd = g_mkstemp_full (af->tmp, O_RDWR | O_CLOEXEC, 0666);
  if (af->fd < 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", path, g_strerror (saved));
      g_clear_pointer (&af->tmp, g_free);
      g_clear_pointer (&af->path, g_free);
      return FALSE;
    }
  return TRUE;
}

/* Removes the temporary file; safe to call after a successful commit. */
void
ef_atomic_abort (EfAtomicFile *af)
{
  if (af->fd >= 0)
    close (af->fd);
  af->fd = -1;
  if (af->tmp != NULL)
    g_unlink (af->tmp);
  g_clear_pointer (&af->tmp, g_free);
  g_clear_pointer (&af->path, g_free);
}

/* Renames the finished temporary file over the destination. The caller has closed the data
 * descriptor (af->fd == -1) after flushing it to disk. */
gboolean
ef_atomic_commit (EfAtomicFile *af, GError **error)
{
  g_assert (af->fd < 0);
  if (g_rename (af->tmp, af->path) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot replace “%s”: %s", af->path, g_strerror (saved));
      ef_atomic_abort (af);
      return FALSE;
    }
  g_clear_pointer (&af->tmp, g_free);
  g_clear_pointer (&af->path, g_free);
  return TRUE;
}

/* Wraps the temporary file's descriptor in a stdio stream, which then owns it. */
FILE *
ef_atomic_stream (EfAtomicFile *af, GError **error)
{
  FILE *f = fdopen (af->fd, "wb");

  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", af->path, g_strerror (saved));
      return NULL;
    }
  af->fd = -1;
  return f;
}

/* Flushes and closes a stream over the temporary file; the data reaches the disk before the rename
 * so that a crash cannot leave a renamed but empty file. */
gboolean
ef_atomic_close_stream (EfAtomicFile *af, FILE *f, GError **error)
{
  int saved = 0;

  if (fflush (f) != 0 || fsync (fileno (f)) != 0)
    saved = errno;
  if (fclose (f) != 0 && saved == 0)
    saved = errno;
  if (saved != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", af->path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
ef_write_error (EfAtomicFile *af, GError **error)
{
  int saved = errno;

  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot write “%s”: %s", af->path,
               g_strerror (saved != 0 ? saved : EIO));
  return FALSE;
}

gboolean
ef_check_image (const EfImage *image, const char *path, GError **error)
{
  const EfGrid *g = &image->grid;

  if (g->width == 0 || g->height == 0 || image->data == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "Cannot write “%s”: the image is empty", path);
      return FALSE;
    }
  return TRUE;
}

/*
 * .npy: NumPy format 1.0, complex64 little-endian, C order, shape (height, width).
 */

/* The header of a C-order array of type descr ("<c8", "<f8", ...) and shape, the text of a Python tuple
 * ("(3, 4)"); shared with ef-npy.c. */
GString *
ef_npy_header_for (const char *descr, const char *shape)
{
  GString *dict = g_string_new (NULL);
  GString *out = g_string_new (NULL);
  gsize total;
  guint16 len_le;

  g_string_printf (dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
  /* Pad with spaces and end with a newline so that the data start on a 64-byte boundary, as NumPy
   * itself does; the 10 bytes are the magic string, the version and the length. */
  total = 10 + dict->len + 1;
  while (total % 64 != 0)
    {
      g_string_append_c (dict, ' ');
      total++;
    }
  g_string_append_c (dict, '\n');

  g_string_append_len (out, "\x93NUMPY\x01\x00", 8);
  len_le = GUINT16_TO_LE ((guint16) dict->len);
  g_string_append_len (out, (const char *) &len_le, 2);
  g_string_append_len (out, dict->str, (gssize) dict->len);
  g_string_free (dict, TRUE);
  return out;
}

static GString *
ef_npy_header (guint height, guint width)
{
  g_autofree char *shape = g_strdup_printf ("(%u, %u)", height, width);

  return ef_npy_header_for ("<c8", shape);
}

/* Writes n complex floats little-endian. */
static gboolean
ef_write_c8_le (FILE *f, const EfCf32 *data, gsize n)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  return fwrite (data, sizeof (EfCf32), n, f) == n;
#else
  guint32 buf[2048];
  gsize done = 0;

  while (done < n)
    {
      gsize k = MIN (n - done, G_N_ELEMENTS (buf) / 2);
      memcpy (buf, data + done, k * sizeof (EfCf32));
      for (gsize i = 0; i < 2 * k; i++)
        buf[i] = GUINT32_TO_LE (buf[i]);
      if (fwrite (buf, sizeof (EfCf32), k, f) != k)
        return FALSE;
      done += k;
    }
  return TRUE;
#endif
}

static gboolean
ef_write_text_atomic (EfAtomicFile *af, const char *text, GError **error)
{
  FILE *f = ef_atomic_stream (af, error);
  gsize len = strlen (text);

  if (f == NULL)
    return FALSE;
  if (fwrite (text, 1, len, f) != len)
    {
      ef_write_error (af, error);
      fclose (f);
      return FALSE;
    }
  return ef_atomic_close_stream (af, f, error);
}

gboolean
ef_image_write_npy (const EfImage *image, const char *path, JsonObject *extra, GError **error)
{
  EfAtomicFile data_file = { 0 }, side_file = { 0 };
  g_autofree char *side_path = NULL;
  g_autofree char *json = NULL;
  GString *header;
  FILE *f;
  gboolean ok;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ef_check_image (image, path, error))
    return FALSE;
  if (!ef_sidecar_grid_is_finite (&image->grid))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "Cannot write “%s”: the image grid is not finite",
                   path);
      return FALSE;
    }

  side_path = ef_sidecar_path (path);
  json = ef_sidecar_to_text (&image->grid, extra);

  /* Both files are complete on disk before either replaces its predecessor. */
  if (!ef_atomic_open (&data_file, path, error))
    return FALSE;
  f = ef_atomic_stream (&data_file, error);
  if (f == NULL)
    {
      ef_atomic_abort (&data_file);
      return FALSE;
    }
  header = ef_npy_header (image->grid.height, image->grid.width);
  ok = fwrite (header->str, 1, header->len, f) == header->len
       && ef_write_c8_le (f, image->data, ef_grid_n_pixels (&image->grid));
  g_string_free (header, TRUE);
  if (!ok)
    {
      ef_write_error (&data_file, error);
      fclose (f);
    }
  else
    ok = ef_atomic_close_stream (&data_file, f, error);
  if (!ok)
    {
      ef_atomic_abort (&data_file);
      return FALSE;
    }

  if (!ef_atomic_open (&side_file, side_path, error))
    {
      ef_atomic_abort (&data_file);
      return FALSE;
    }
  if (!ef_write_text_atomic (&side_file, json, error))
    {
      ef_atomic_abort (&side_file);
      ef_atomic_abort (&data_file);
      return FALSE;
    }

  /* The sidecar goes first: a reader that finds the new array finds its grid too. */
  if (!ef_atomic_commit (&side_file, error))
    {
      ef_atomic_abort (&data_file);
      return FALSE;
    }
  return ef_atomic_commit (&data_file, error);
}

/* Finds a key of the .npy header's Python dict literal; returns the text after its colon. */
static const char *
ef_npy_find (const char *header, const char *key)
{
  g_autofree char *sq = g_strdup_printf ("'%s'", key);
  g_autofree char *dq = g_strdup_printf ("\"%s\"", key);
  const char *p = strstr (header, sq);

  if (p == NULL)
    p = strstr (header, dq);
  if (p == NULL)
    return NULL;
  p += strlen (sq);
  while (g_ascii_isspace (*p))
    p++;
  if (*p != ':')
    return NULL;
  p++;
  while (g_ascii_isspace (*p))
    p++;
  return p;
}

static gboolean
ef_npy_parse_header (const char *header, const char *path, guint64 *height, guint64 *width, GError **error)
{
  const char *p;
  char *end;

  p = ef_npy_find (header, "descr");
  if (p == NULL || (*p != '\'' && *p != '"'))
    goto malformed;
  if (strncmp (p + 1, "<c8", 3) != 0 || p[4] != *p)
    {
      const char *q = strchr (p + 1, *p);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "“%s” holds %.*s values; only little-endian complex64 ('<c8') arrays can be read", path,
                   q != NULL ? (int) MIN (q - p - 1, 16) : 0, p + 1);
      return FALSE;
    }

  p = ef_npy_find (header, "fortran_order");
  if (p == NULL)
    goto malformed;
  if (g_str_has_prefix (p, "True"))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "“%s” is stored in Fortran (column-major) order, which cannot be read", path);
      return FALSE;
    }
  if (!g_str_has_prefix (p, "False"))
    goto malformed;

  p = ef_npy_find (header, "shape");
  if (p == NULL || *p != '(')
    goto malformed;
  p++;
  while (g_ascii_isspace (*p))
    p++;
  if (!g_ascii_isdigit (*p))
    goto not_2d;
  errno = 0;
  *height = g_ascii_strtoull (p, &end, 10);
  if (errno == ERANGE)
    goto too_large;
  p = end;
  while (g_ascii_isspace (*p))
    p++;
  if (*p != ',')
    goto malformed;
  p++;
  while (g_ascii_isspace (*p))
    p++;
  if (!g_ascii_isdigit (*p))
    goto not_2d;
  errno = 0;
  *width = g_ascii_strtoull (p, &end, 10);
  if (errno == ERANGE)
    goto too_large;
  p = end;
  while (g_ascii_isspace (*p))
    p++;
  if (*p == ',')
    {
      p++;
      while (g_ascii_isspace (*p))
        p++;
    }
  if (*p != ')')
    goto not_2d;
  return TRUE;

not_2d:
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "“%s” does not hold a 2-D array", path);
  return FALSE;
too_large:
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” declares a dimension of 2^64 or more", path);
  return FALSE;
malformed:
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” has a malformed .npy header", path);
  return FALSE;
}

/* The contents of a text file of at most max bytes, NUL-terminated. NULL with *missing set when there is
 * no such file, else NULL with an EF_IO_ERROR. The size is checked on the open file, and no more is read. */
static char *
ef_read_small_file (const char *path, gsize max, gboolean *missing, GError **error)
{
  g_autofree char *text = NULL;
  struct stat st;
  gsize len = 0;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);

  *missing = FALSE;
  if (fd < 0)
    {
      int saved = errno;
      *missing = saved == ENOENT;
      if (!*missing)
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot read “%s”: %s", path, g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || (guint64) st.st_size > max)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "“%s” is not a grid description: those are files of at most %" G_GSIZE_FORMAT " bytes", path, max);
      close (fd);
      return NULL;
    }
  text = g_malloc ((gsize) st.st_size + 1);
  while (len < (gsize) st.st_size)
    {
      gssize n = read (fd, text + len, (gsize) st.st_size - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot read “%s”: %s", path, g_strerror (saved));
          close (fd);
          return NULL;
        }
      if (n == 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  text[len] = '\0';
  return g_steal_pointer (&text);
}

/* The grid from the sidecar; without one, `spacing` > 0 lays out a grid (x to the right, y up, origin
 * at 0, as ef_grid_init_roi does), and 0 refuses: a plain array does not say how large its pixels are. */
static gboolean
ef_read_sidecar (const char *path, guint64 height, guint64 width, double spacing, EfGrid *grid, JsonObject **extra,
                 gboolean *had_sidecar, GError **error)
{
  g_autofree char *side = ef_sidecar_path (path);
  g_autofree char *text = NULL;
  gboolean missing;

  memset (grid, 0, sizeof *grid);
  *had_sidecar = FALSE;
  text = ef_read_small_file (side, EF_SIDECAR_MAX_BYTES, &missing, error);
  if (text == NULL)
    {
      if (!missing)
        return FALSE;
      if (!(spacing > 0) || !isfinite (spacing))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_NO_GRID,
                       "“%s” has no sidecar “%s” to give its grid: the pixel spacing is unknown", path, side);
          return FALSE;
        }
      grid->width = (guint) width;
      grid->height = (guint) height;
      grid->spacing = spacing;
      grid->u[0] = 1.0;
      grid->v[1] = -1.0;
      return TRUE;
    }
  if (!ef_sidecar_parse (text, -1, side, grid, extra, error))
    return FALSE;
  *had_sidecar = TRUE;
  if (grid->width != width || grid->height != height)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "“%s” describes a %u x %u grid but “%s” holds %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
                   " pixels", side, grid->width, grid->height, path, width, height);
      if (extra != NULL)
        g_clear_pointer (extra, json_object_unref);
      return FALSE;
    }
  return TRUE;
}

gboolean
ef_npy_c8_view (const guint8 *bytes, gsize len, const char *path, guint64 *height, guint64 *width, gsize *offset,
                GError **error)
{
  g_autofree char *header = NULL;
  guint64 hlen, data_off, n;
  gsize prefix;

  g_return_val_if_fail (bytes != NULL || len == 0, FALSE);
  g_return_val_if_fail (path != NULL && height != NULL && width != NULL && offset != NULL, FALSE);

  if (len < 10 || memcmp (bytes, "\x93NUMPY", 6) != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a NumPy .npy file", path);
      return FALSE;
    }
  if (bytes[6] == 1)
    {
      hlen = bytes[8] | (guint) bytes[9] << 8;
      prefix = 10;
    }
  else if ((bytes[6] == 2 || bytes[6] == 3) && len >= 12)
    {
      hlen = bytes[8] | (guint32) bytes[9] << 8 | (guint32) bytes[10] << 16 | (guint32) bytes[11] << 24;
      prefix = 12;
    }
  else
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "“%s” uses .npy format version %u, which is unknown",
                   path, bytes[6]);
      return FALSE;
    }
  if (hlen == 0 || hlen > EF_NPY_MAX_HEADER || prefix + hlen > len)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” has a .npy header of absurd length", path);
      return FALSE;
    }
  header = g_strndup ((const char *) bytes + prefix, hlen);
  if (!ef_npy_parse_header (header, path, height, width, error))
    return FALSE;
  data_off = prefix + hlen;
  /* The edge limits keep the product far from overflow; the file's length bounds it. */
  if (*width == 0 || *height == 0 || *width > EF_IMAGE_MAX_EDGE || *height > EF_IMAGE_MAX_EDGE
      || (n = *width * *height) > EF_IMAGE_MAX_PIXELS || data_off + n * sizeof (EfCf32) > len)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                   "“%s” is shorter than its %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " array, or the array is absurd",
                   path, *height, *width);
      return FALSE;
    }
#if G_BYTE_ORDER == G_BIG_ENDIAN
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
               "“%s” is little-endian and cannot be used in place on this big-endian machine", path);
  return FALSE;
#endif
  *offset = data_off;
  return TRUE;
}

EfImage *
ef_image_read_npy (const char *path, GError **error)
{
  return ef_image_read_npy_full (path, 0, NULL, NULL, error);
}

EfImage *
ef_image_read_npy_full (const char *path, double spacing, gboolean *had_sidecar, JsonObject **extra, GError **error)
{
  g_autoptr (JsonObject) extra_read = NULL;
  gboolean from_sidecar = FALSE;
  g_autoptr (EfImage) image = NULL;
  g_autoptr (GError) local = NULL;
  unsigned char magic[12];
  g_autofree char *header = NULL;
  guint64 hlen, height = 0, width = 0, data_off, need;
  gsize prefix;
  EfGrid grid;
  struct stat st;
  FILE *f;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  f = g_fopen (path, "rb");
  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot open “%s”: %s", path, g_strerror (saved));
      return NULL;
    }

  if (fread (magic, 1, 10, f) != 10 || memcmp (magic, "\x93NUMPY", 6) != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a NumPy .npy file", path);
      goto fail;
    }
  if (magic[6] == 1)
    {
      hlen = magic[8] | (guint) magic[9] << 8;
      prefix = 10;
    }
  else if (magic[6] == 2 || magic[6] == 3)
    {
      if (fread (magic + 10, 1, 2, f) != 2)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "“%s” ends inside its header", path);
          goto fail;
        }
      hlen = magic[8] | (guint32) magic[9] << 8 | (guint32) magic[10] << 16 | (guint32) magic[11] << 24;
      prefix = 12;
    }
  else
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "“%s” uses .npy format version %u, which is unknown",
                   path, magic[6]);
      goto fail;
    }
  if (hlen == 0 || hlen > EF_NPY_MAX_HEADER)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” has a .npy header of absurd length", path);
      goto fail;
    }
  header = g_malloc (hlen + 1);
  if (fread (header, 1, hlen, f) != hlen)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "“%s” ends inside its header", path);
      goto fail;
    }
  header[hlen] = '\0';
  if (!ef_npy_parse_header (header, path, &height, &width, error))
    goto fail;
  if (width == 0 || height == 0 || width > EF_IMAGE_MAX_EDGE || height > EF_IMAGE_MAX_EDGE
      || width * height > EF_IMAGE_MAX_PIXELS)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "“%s” holds a %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " image, which cannot be loaded", path,
                   height, width);
      goto fail;
    }

  data_off = prefix + hlen;
  need = data_off + width * height * sizeof (EfCf32);
  if (fstat (fileno (f), &st) != 0 || (guint64) st.st_size < need)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                   "“%s” is shorter than its %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " array", path, height,
                   width);
      goto fail;
    }

  if (!ef_read_sidecar (path, height, width, spacing, &grid, &extra_read, &from_sidecar, error))
    goto fail;
  /* The size was checked against the file's length above, so this asks for no more than the file holds;
   * only the memory can fail, and it is reported as this file's error. */
  image = ef_image_new (&grid, &local);
  if (image == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot load “%s”: %s", path, local->message);
      goto fail;
    }
  if (fread (image->data, sizeof (EfCf32), width * height, f) != width * height)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "Cannot read the array in “%s”", path);
      goto fail;
    }
#if G_BYTE_ORDER == G_BIG_ENDIAN
  {
    guint32 *w32 = (guint32 *) image->data;
    for (gsize i = 0; i < 2 * width * height; i++)
      w32[i] = GUINT32_FROM_LE (w32[i]);
  }
#endif
  fclose (f);
  if (had_sidecar != NULL)
    *had_sidecar = from_sidecar;
  if (extra != NULL)
    *extra = g_steal_pointer (&extra_read);
  return g_steal_pointer (&image);

fail:
  fclose (f);
  return NULL;
}


gboolean
ef_image_write (const EfImage *image, const char *path, GError **error)
{
  return ef_image_write_full (image, path, NULL, NULL, error);
}

gboolean
ef_image_write_full (const EfImage *image, const char *path, JsonObject *extra, const EfPngOptions *png,
                     GError **error)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".npy"))
    return ef_image_write_npy (image, path, extra, error);
  if (g_str_has_suffix (lower, ".tif") || g_str_has_suffix (lower, ".tiff"))
    return ef_image_write_tiff (image, path, extra, error);
  if (g_str_has_suffix (lower, ".png"))
    return ef_image_write_png (image, path, png, error);
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
               "Cannot tell the format of “%s” from its name; use .npy, .tif, .tiff or .png", path);
  return FALSE;
}
