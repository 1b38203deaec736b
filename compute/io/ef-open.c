/* ef-open.c: opens any supported phase-history file or folder, choosing the reader from its contents. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-open"
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ef-cphd.h"
#include "ef-dataset.h"
#include "ef-error.h"
#if HAVE_MATIO
#include "ef-gotcha.h"
#endif

/* Enough for the CPHD version line and the MATLAB text header. */
#define EF_OPEN_HEAD_BYTES 64

#if HAVE_MATIO
#define EF_OPEN_SUPPORTED "CPHD 1.x files, and AFRL Gotcha MATLAB files (.mat, or a folder of them)"
#else
#define EF_OPEN_SUPPORTED "CPHD 1.x files (this build cannot read MATLAB files)"
#endif

static gboolean
is_mat_name (const char *path)
{
  gsize n = strlen (path);
  return n > 4 && g_ascii_strcasecmp (path + n - 4, ".mat") == 0;
}

static EfDataset *
open_gotcha (const char *path, guint channel, GError **error)
{
#if HAVE_MATIO
  const char *paths[] = { path, NULL };

  if (channel != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "Gotcha data has a single channel; channel %u does not exist in “%s”", channel, path);
      return NULL;
    }
  return ef_gotcha_open (paths, NULL, error);
#else
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
               "This build of Echoform has no MATLAB support (matio), so it cannot read the Gotcha data in “%s”",
               path);
  return NULL;
#endif
}

EfDataset *
ef_dataset_open (const char *path, guint channel, GError **error)
{
  guint8 head[EF_OPEN_HEAD_BYTES];
  gsize n_head;
  GStatBuf st;
  FILE *f;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot open “%s”: %s", path, g_strerror (saved));
      return NULL;
    }
  /* A folder can only be a set of Gotcha files; a .mat name is trusted over the contents. */
  if (S_ISDIR (st.st_mode) || is_mat_name (path))
    return open_gotcha (path, channel, error);
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a regular file or a folder", path);
      return NULL;
    }

  f = g_fopen (path, "rb");
  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot open “%s”: %s", path, g_strerror (saved));
      return NULL;
    }
  n_head = fread (head, 1, sizeof head, f);
  if (n_head < sizeof head && ferror (f))
    {
      int saved = errno;
      fclose (f);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot read “%s”: %s", path, g_strerror (saved));
      return NULL;
    }
  fclose (f);

  if (ef_cphd_sniff (head, n_head))
    return ef_cphd_open (path, channel, error);
  /* MATLAB v5 and v7.3 files start with a text header, "MATLAB 5.0 MAT-file..." */
  if (n_head >= 7 && memcmp (head, "MATLAB ", 7) == 0)
    return open_gotcha (path, channel, error);

  if (n_head == 0)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is empty. Echoform reads " EF_OPEN_SUPPORTED ".",
                 path);
  else
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                 "“%s” is not a format Echoform reads. It reads " EF_OPEN_SUPPORTED ".", path);
  return NULL;
}
