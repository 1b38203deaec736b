/* ef-stack-truth.h: a repeat-pass simulation's ground truth as JSON, beside the stack it made. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-sim-repeat.h"

G_BEGIN_DECLS

/*
 * The file (json-glib): "format": "echoform-repeat-truth", "version": 1, "params" (every field of
 * EfRepeatParams by its name), "t_years" and "bperp" (one number a pass), and "ps": one object a
 * scatterer {"col", "row", "velocity" (m/yr), "height" (m), "seasonal_amp" (m), "scr_db", "amplitude",
 * "phase0"}. Atomic; blocks for the write.
 */
gboolean ef_repeat_truth_write_json (const EfRepeatTruth *truth, const char *path, GError **error);

/* Reads such a file back: the truth is rebuilt from its parameters (the draw is repeatable) and checked
 * against the file's dates and scatterers. Owned, or NULL with error (EF_IO_ERROR). Blocks. */
EfRepeatTruth *ef_repeat_truth_read_json (const char *path, GError **error);

G_END_DECLS
