/* ef-image-io-private.h: what the .npy writer and the TIFF and PNG writers share. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <stdio.h>

#include "ef-image-io.h"

G_BEGIN_DECLS

/* A file being replaced atomically: ef-image-io.c says how. */
typedef struct {
  char *path;  /* owned: destination */
  char *tmp;   /* owned: temporary file, or NULL once renamed or removed */
  int   fd;    /* open descriptor of tmp, or -1 once handed on or closed */
} EfAtomicFile;

/* In ef-image-io.c; those that can fail set error and return FALSE (or NULL). */
gboolean ef_atomic_open (EfAtomicFile *af, const char *path, GError **error);
void     ef_atomic_abort (EfAtomicFile *af);
gboolean ef_atomic_commit (EfAtomicFile *af, GError **error);
FILE    *ef_atomic_stream (EfAtomicFile *af, GError **error);
gboolean ef_atomic_close_stream (EfAtomicFile *af, FILE *f, GError **error);
/* A failed write to af, from errno: always FALSE. */
gboolean ef_write_error (EfAtomicFile *af, GError **error);
/* A NumPy 1.0 header (magic, length, dict padded to 64 bytes) for type descr and shape, a Python tuple's
 * text; owned. */
GString *ef_npy_header_for (const char *descr, const char *shape);
/* FALSE, with an error naming path, for an image with no pixels. */
gboolean ef_check_image (const EfImage *image, const char *path, GError **error);

G_END_DECLS
