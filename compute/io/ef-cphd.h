/* ef-cphd.h: reading and writing CPHD 1.x (NGA Compensated Phase History Data). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-dataset.h"

G_BEGIN_DECLS

typedef enum {
  EF_CPHD_CF8,   /* complex float32 */
  EF_CPHD_CI4,   /* complex int16 */
  EF_CPHD_CI2,   /* complex int8 */
} EfCphdFormat;

typedef struct {
  EfCphdFormat format;
  const char  *version;     /* "1.0.1" (default) or "1.1.0" */
  const char  *core_name;   /* CollectionID/CoreName; NULL = from the file name */
} EfCphdWriteOptions;

/* Writes dataset (FX or TOA) to path, atomically (temporary file then rename). The dataset must have
 * info.has_geo so that positions can be placed in Earth-fixed coordinates. Blocks. */
gboolean ef_cphd_write (EfDataset *dataset, const char *path, const EfCphdWriteOptions *options,
                        GError **error);

/* Opens a CPHD file and converts the PVPs to the local frame at the SRP; the signal array stays in the file
 * and is read block by block (a file cut short while open gives EF_IO_ERROR_TRUNCATED). channel indexes
 * Data/Channel. Returns a new reference or NULL with a clear error. Blocks. */
EfDataset *ef_cphd_open (const char *path, guint channel, GError **error);

/* TRUE if the first bytes look like a CPHD file. */
gboolean ef_cphd_sniff (const guint8 *head, gsize len);

/* Earth-fixed <-> geodetic (WGS-84) and the local east-north-up frame at a reference point. */
void ef_geo_llh_to_ecf (const double llh[3], double ecf[3]);
void ef_geo_ecf_to_llh (const double ecf[3], double llh[3]);
void ef_geo_ecf_to_enu (const double ref_ecf[3], const double ref_llh[3], const double ecf[3], double enu[3]);
void ef_geo_enu_to_ecf (const double ref_ecf[3], const double ref_llh[3], const double enu[3], double ecf[3]);
/* Same, for directions (velocities), without the translation. */
void ef_geo_enu_to_ecf_dir (const double ref_llh[3], const double enu[3], double ecf[3]);
void ef_geo_ecf_to_enu_dir (const double ref_llh[3], const double ecf[3], double enu[3]);

G_END_DECLS
