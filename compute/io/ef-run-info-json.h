/* ef-run-info-json.h: the run record (ef-run-info.h) as JSON, for the sidecar and `form --json`. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "ef-job.h"
#include "ef-run-info.h"

G_BEGIN_DECLS

/*
 * Adds the record's members to the object being built (call between json_builder_begin_object and
 * json_builder_end_object):
 *   "backend", "algo", "precision"                        what ran ("bp" when exact backprojection formed
 *                                                         every block of an FFBP or FBP request)
 *   "backend_requested", "algo_requested", "precision_requested"
 *   "backend_reason", "algo_reason", "precision_reason"   why it differs; null where it ran as asked
 *   "devices"                                             CUDA devices (0: the CPU)
 *   "azimuth_window", "azimuth_window_requested"          the cross-range (aperture) window applied
 *   "azimuth_window_reason"                               and asked for, and why they differ (or null)
 *   "blocks": {"<ffbp|fbp>": n, "bp": n}                  FFBP and FBP requests: how each block was formed
 *   "nonfinite_samples"                                   input samples taken as zero
 *   "nonfinite_pixels"                                    null when the image was not counted
 *   "pfa_depth_of_focus": {"qpe_rad", "limit_rad", "outside", "note"}   PFA requests
 *   "kernel": {"shape", "name", "tuned", "note"}          the CUDA launch shape, where one was chosen
 *   "warnings": ["...", ...]                              ef_run_info_warnings, one line each
 */
void ef_run_info_add_json (const EfRunInfo *info, JsonBuilder *builder);

/* What a formed image's sidecar keeps under "extra", for the CLI and the application alike: "input"
 * (the collection, may be NULL), the record's members (above), and the parameters that reproduce it:
 * "window", "upsample", "block", "order", "pulses", "elapsed_s", "bp_per_s" (non-finite: null), and for
 * a Taylor window its shape: "taylor_sll_db", "taylor_nbar" in range, "azimuth_taylor_sll_db",
 * "azimuth_taylor_nbar" in cross-range. A new object. */
JsonObject *ef_run_info_sidecar_extra (const EfRunInfo *info, const char *input, const EfJobParams *params,
                                       guint64 pulses, double elapsed_s, double bp_per_s);

G_END_DECLS
