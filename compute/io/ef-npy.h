/* ef-npy.h: plain NumPy arrays (.npy) of any shape and element type, for tools and tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define EF_NPY_MAX_DIMS 4

/* Writes data, a C-order array of shape[0..ndim) elements of elem_size bytes in the host's order, as
 * path (replaced atomically, no sidecar). descr is NumPy's type string ("<f8", "<c16", "<c8", "<f4");
 * the host must be little-endian. FALSE with error on failure. Blocks on the file system. */
gboolean ef_npy_write_array (const char *path, const char *descr, guint ndim, const guint64 *shape, gsize elem_size,
                             gconstpointer data, GError **error);

G_END_DECLS
