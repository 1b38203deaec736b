/* ef-npy.c: writing plain NumPy arrays with the image writer's header and atomic file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-npy"
#include "config.h"

#include <stdio.h>

#include "ef-error.h"
#include "ef-npy.h"
#include "ef-image-io-private.h"

gboolean
ef_npy_write_array (const char *path, const char *descr, guint ndim, const guint64 *shape, gsize elem_size,
                    gconstpointer data, GError **error)
{
  EfAtomicFile af = { 0 };
  g_autoptr (GString) tuple = g_string_new ("(");
  GString *header;
  guint64 n = 1;
  FILE *f;
  gboolean ok;

  g_return_val_if_fail (path != NULL && descr != NULL && shape != NULL && data != NULL, FALSE);
  if (G_BYTE_ORDER != G_LITTLE_ENDIAN || (descr[0] != '<' && descr[0] != '|'))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "Cannot write “%s”: only little-endian arrays are "
                   "written", path);
      return FALSE;
    }
  if (ndim == 0 || ndim > EF_NPY_MAX_DIMS || elem_size == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "Cannot write “%s”: %u dimensions", path, ndim);
      return FALSE;
    }
  for (guint i = 0; i < ndim; i++)
    {
      if (shape[i] != 0 && n > G_MAXSIZE / elem_size / shape[i])
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "Cannot write “%s”: the array is too large",
                       path);
          return FALSE;
        }
      n *= shape[i];
      g_string_append_printf (tuple, "%" G_GUINT64_FORMAT "%s", shape[i], ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
    }
  g_string_append_c (tuple, ')');

  if (!ef_atomic_open (&af, path, error))
    return FALSE;
  f = ef_atomic_stream (&af, error);
  if (f == NULL)
    {
      ef_atomic_abort (&af);
      return FALSE;
    }
  header = ef_npy_header_for (descr, tuple->str);
  ok = fwrite (header->str, 1, header->len, f) == header->len && fwrite (data, elem_size, (size_t) n, f) == n;
  g_string_free (header, TRUE);
  if (!ok)
    {
      ef_write_error (&af, error);
      fclose (f);
    }
  else
    ok = ef_atomic_close_stream (&af, f, error);
  if (!ok)
    {
      ef_atomic_abort (&af);
      return FALSE;
    }
  return ef_atomic_commit (&af, error);
}
