/* ismrmrd-testdata.h: small valid ISMRMRD files, and where their numbers lie in the bytes, for tests and fuzzing. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each acquisition's measurement_uid is EF_TEST_ISMRMRD_UID + its index, so that its header can be
 * found in the file's bytes (libismrmrd stores the acquisitions unfiltered). */
#define EF_TEST_ISMRMRD_UID 0x5AEF1500u

/* An XML header with encodedSpace's matrixSize and fieldOfView_mm given as text (so that any string can
 * go in). Owned. */
char *ef_test_ismrmrd_xml (const char *const matrix[3], const char *const fov[3]);

/* Writes path (replaced): n_acq acquisitions of n_samples samples on n_coils channels, a 2-D trajectory
 * of spokes within [-1/2, 1/2], smooth data; xml (NULL: none) as the header. FALSE with error. */
gboolean ef_test_ismrmrd_write (const char *path, guint n_acq, guint n_samples, guint n_coils, const char *xml,
                                GError **error);

/* A field of the acquisition header as stored: its offset from the header's start and its size. */
typedef struct {
  const char *name;
  guint       offset;
  guint       size;
} EfTestIsmrmrdField;

/* The numeric fields that matter to readers (number_of_samples, active_channels, available_channels,
 * trajectory_dimensions, discard_pre, discard_post, center_sample, the encoding counters, flags), at the
 * offsets the file at path stores them (read through HDF5); NULL-terminated, owned. NULL on failure. */
EfTestIsmrmrdField *ef_test_ismrmrd_fields (const char *path);

/* Offsets of the acquisition headers in file (found by their measurement_uid); owned array of gsize. */
GArray *ef_test_ismrmrd_find_heads (const guint8 *file, gsize len);
/* The offset of the acquisition dataset's current size (n_acq as 8 bytes, followed by the unlimited
 * maximum) in file, or FALSE. */
gboolean ef_test_ismrmrd_find_count (const guint8 *file, gsize len, guint n_acq, gsize *offset);

G_END_DECLS
