/* ef-gotcha.h: the AFRL Gotcha volumetric SAR data set (MATLAB files), read with matio. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-dataset.h"

G_BEGIN_DECLS

typedef struct {
  double      az_min_deg, az_max_deg;  /* keep pulses with azimuth in [min, max]; min > max keeps all */
  const char *polarisation;            /* "HH", "VV", "HV", "VH" or NULL for any */
  gboolean    apply_autofocus;         /* apply the files' af.r_correct / af.ph_correct */
  /* Read in the calling process instead of a child with memory and time limits: only where something
   * else bounds what a damaged file can do, as a fuzzer's own limits do. */
  gboolean    same_process;
} EfGotchaOptions;

void ef_gotcha_options_init (EfGotchaOptions *opts);

/* Opens one .mat file, a NULL-terminated list of them, or a folder of them; pulses are concatenated in
 * azimuth order. Returns a new reference or NULL with a clear error. */
EfDataset *ef_gotcha_open (const char *const *paths, const EfGotchaOptions *opts, GError **error);
/* TRUE if path is a .mat file or a folder holding Gotcha .mat files. */
gboolean   ef_gotcha_sniff (const char *path);

G_END_DECLS
