/* ef-ismrmrd.h: non-Cartesian k-space samples from (and to) ISMRMRD raw data files, through libismrmrd. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "ef-mri.h"

G_BEGIN_DECLS

/* Reads every imaging acquisition of the ISMRMRD file path (group "/dataset"): the samples of one
 * channel and their trajectory, which must be 2-D or 3-D throughout. Noise measurements are skipped,
 * and so are each acquisition's discard_pre and discard_post samples. The file's trajectory times
 * traj_scale must give cycles per FOV (for example the matrix size, when the file keeps k in
 * [-1/2, 1/2]). On success *traj and *data are owned by the caller; FALSE with an EF_IO_ERROR otherwise
 * (a missing or malformed file, no trajectory, a channel out of range, sizes beyond the engine's).
 * Blocks on the file system. */
gboolean ef_ismrmrd_read (const char *path, guint channel, double traj_scale, EfMriTraj **traj, EfCf64 **data,
                          GError **error);

/* Writes t and d as a new single-channel ISMRMRD file (path is replaced), samples_per_acq samples an
 * acquisition (the last one may be shorter), the trajectory divided by traj_scale. FALSE with error. */
gboolean ef_ismrmrd_write (const char *path, const EfMriTraj *t, const EfCf64 *d, guint samples_per_acq,
                           double traj_scale, GError **error);

G_END_DECLS
