/* ef-ismrmrd.h: non-Cartesian k-space samples from (and to) ISMRMRD raw data files, through libismrmrd. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "ef-mri.h"

G_BEGIN_DECLS

/*
 * Hostile files. libismrmrd 1.8 trusts the file: it allocates what an acquisition header declares
 * (up to 65535 samples x 65535 channels, 34 GB) before anything can look at it, copies as many bytes as
 * the header says out of trajectory and data arrays that may be shorter, dereferences a missing XML
 * header, and HDF5 itself can loop or crash on a damaged file. So every file is read in a child process
 * (ef-isolate.c) whose memory is 256 MiB plus 24 times the file's size and whose processor time is 2 s
 * plus 1 s per 512 KiB; a crash, a loop or an allocation past that is an EF_IO_ERROR_FORMAT for the
 * user. Inside the child, before libismrmrd reads an acquisition, the reader reads its header fields and
 * the true lengths of its arrays through HDF5 and checks them, so that a consistent error names the
 * field in most cases; the limits are the backstop.
 *
 * Bounds: at most EF_ISMRMRD_MAX_ACQUISITIONS acquisitions, EF_ISMRMRD_MAX_CHANNELS active channels
 * (and not 0), 2-D or 3-D trajectories, EF_ISMRMRD_MAX_VALUES samples times channels in all; an XML
 * header's encoded matrix sizes in 1 .. EF_MRI_MAX_EDGE and fields of view finite, positive and below
 * 10^6 mm; finite trajectory points and samples.
 */
#define EF_ISMRMRD_MAX_ACQUISITIONS (1u << 24)
#define EF_ISMRMRD_MAX_CHANNELS 256u
#define EF_ISMRMRD_MAX_VALUES (G_GUINT64_CONSTANT (1) << 28)
#define EF_ISMRMRD_MAX_XML (1u << 20)
/* The channel argument that asks for every channel. */
#define EF_ISMRMRD_ALL_CHANNELS G_MAXUINT

typedef struct {
  guint  n_coils;       /* channels returned */
  guint  matrix[3];     /* the XML header's encodedSpace/matrixSize; zeros when the file has no header */
  double fov_mm[3];     /* its encodedSpace/fieldOfView_mm; zeros likewise */
} EfIsmrmrdInfo;

/* Reads every imaging acquisition of the ISMRMRD file path (group "/dataset"): the samples of one
 * channel and their trajectory, which must be 2-D or 3-D throughout. Noise measurements are skipped,
 * and so are each acquisition's discard_pre and discard_post samples. The file's trajectory times
 * traj_scale must give cycles per FOV (for example the matrix size, when the file keeps k in
 * [-1/2, 1/2]). On success *traj and *data are owned by the caller; FALSE with an EF_IO_ERROR otherwise
 * (a missing or malformed file, no trajectory, a channel out of range, sizes beyond the bounds above).
 * Reads in a child process (see above). Blocks on the file system. */
gboolean ef_ismrmrd_read (const char *path, guint channel, double traj_scale, EfMriTraj **traj, EfCf64 **data,
                          GError **error);

/* The same for every channel: *data holds info->n_coils arrays of (*traj)->m samples one after the
 * other (coil-major). Every imaging acquisition must have the same number of active channels. info
 * also receives the XML header's matrix and field of view. */
gboolean ef_ismrmrd_read_coils (const char *path, double traj_scale, EfIsmrmrdInfo *info, EfMriTraj **traj,
                                EfCf64 **data, GError **error);

/* Writes t and d as a new ISMRMRD file (path is replaced), samples_per_acq samples an acquisition (the
 * last one may be shorter), the trajectory divided by traj_scale. d holds n_coils arrays of t->m
 * samples (coil-major), written as the acquisitions' channels. The XML header gives the matrix the
 * trajectory implies (in cycles per field of view, before traj_scale). FALSE with error. */
gboolean ef_ismrmrd_write (const char *path, const EfMriTraj *t, const EfCf64 *d, guint samples_per_acq,
                           double traj_scale, GError **error);
gboolean ef_ismrmrd_write_coils (const char *path, const EfMriTraj *t, const EfCf64 *d, guint n_coils,
                                 guint samples_per_acq, double traj_scale, GError **error);

G_END_DECLS
