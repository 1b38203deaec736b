/* ef-ismrmrd-private.h: the ISMRMRD reader's in-process entry point, for the fuzz harnesses and tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-ismrmrd.h"

G_BEGIN_DECLS

/* ef_ismrmrd_read's work, in the calling process (channel may be EF_ISMRMRD_ALL_CHANNELS): what the
 * child process runs. A damaged file may make libismrmrd or HDF5 allocate without bound or crash here;
 * the checks before each libismrmrd call stop the cases that are known. Blocks. */
gboolean ef_ismrmrd_read_in_process (const char *path, guint channel, double traj_scale, EfIsmrmrdInfo *info,
                                     EfMriTraj **traj, EfCf64 **data, GError **error);

G_END_DECLS
