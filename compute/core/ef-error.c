/* ef-error.c: the engine's GError domains. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-error"
#include "config.h"

#include "ef-error.h"

G_DEFINE_QUARK (ef-io-error-quark, ef_io_error)
G_DEFINE_QUARK (ef-compute-error-quark, ef_compute_error)
