/* ef-cuda-tune-private.h: the backend's side of the kernel-shape tuner. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-cuda-private.h"

G_BEGIN_DECLS

/* The variant stored by ef_cuda_tune for this device and problem class, or 0 if none. Never fails. */
guint ef_cuda_tune_lookup (int device, guint edge, guint n_bins, EfPrecision precision);

G_END_DECLS
