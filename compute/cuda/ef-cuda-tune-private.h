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

/* One kernel's entries, as every tuner keeps them: the group is "<kernel> <device_name>" (kernel NULL:
 * the device name alone, backprojection's). The stored value where it lies in lo..hi, else -1 (as for
 * no entry, no device name or an unreadable file). Never fails; needs no device. */
gint     ef_cuda_tune_kernel_get (const char *kernel, const char *device_name, const char *key, gint lo, gint hi);
gboolean ef_cuda_tune_kernel_set (const char *kernel, const char *device_name, const char *key, gint value,
                                  GError **error);
/* The smallest power of two not below x (1 for 0 and 1), at most 2^31: the tuners' size classes. */
guint    ef_cuda_tune_pow2 (guint64 x);

G_END_DECLS
