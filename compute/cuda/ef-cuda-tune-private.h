/* ef-cuda-tune-private.h: the backend's side of the kernel-shape tuner. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-cuda-private.h"

G_BEGIN_DECLS

/* The variant stored by ef_cuda_tune for this device and problem class, or 0 if none. Never fails. */
guint ef_cuda_tune_lookup (int device, guint edge, guint n_bins, EfPrecision precision);

/* The cache file's integer under group and key, or -1 where there is none (or no file, or it is unreadable).
 * Never fails. Needs no device. */
gint ef_cuda_tune_cache_get (const char *group, const char *key);
/* Stores value under group and key, keeping every other entry (the folder is made as needed). */
gboolean ef_cuda_tune_cache_set (const char *group, const char *key, gint value, GError **error);

G_END_DECLS
