/* ef-sicd.h: a formed region as an NGA SICD 1.3 product: the XML (libxml2) in NITF (GDAL's NITF driver). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-job.h"
#include "ef-run-info.h"

G_BEGIN_DECLS

/* What a SICD is made from: the collection, the image formed from it, the job's parameters (the pulses
 * it used, its windows) and the record of what ran. All borrowed. */
typedef struct {
  EfDataset         *dataset;
  const EfImage     *image;
  const EfJobParams *params;
  const EfRunInfo   *run;
  const char        *input;       /* the collection's path or name, for CollectionInfo/CoreName; may be NULL */
  /* Where the scene reference point is (lat deg, lon deg, height m) when the collection does not say
   * (dataset->info.has_geo is FALSE, as in the Gotcha files); ignored otherwise. The product records
   * that the place was given. */
  gboolean           has_place;
  double             place_llh[3];
} EfSicdSource;

/* The SICD 1.3.0 XML of src (UTF-8, NUL-terminated; owned, *len its length without the NUL), and through
 * reorder (may be NULL) the pixel order it describes: reorder[k] is the index in src->image->data of the
 * k-th pixel of the SICD's row-major array (owned, width * height). The SICD's rows run along the line of
 * sight away from the antenna, as SICD wants shadows to fall down the image; its columns are the other
 * grid axis. Fails with EF_IO_ERROR when the image cannot be described: no pulses, no place on the Earth,
 * a bistatic collection, a grid off the ground plane. Never blocks for long. */
char    *ef_sicd_build_xml (const EfSicdSource *src, gsize *len, guint64 **reorder, GError **error);

/* Writes src as a SICD 1.3.0 NITF file at path: the complex image as two float32 bands (I, Q) in one
 * NITF image segment and the XML in a DES, both through GDAL's NITF driver. The file is written beside
 * path under a temporary name and renamed into place only when complete: a failure leaves no file.
 * EF_IO_ERROR_UNSUPPORTED when this build has no GDAL. Blocks on I/O. */
gboolean ef_sicd_write (const char *path, const EfSicdSource *src, GError **error);

/* TRUE when this build can write SICD files (it has GDAL). */
gboolean ef_sicd_available (void);

G_END_DECLS
