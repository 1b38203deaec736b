/* ef-error.h: the engine's GError domains. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define EF_IO_ERROR (ef_io_error_quark ())
#define EF_COMPUTE_ERROR (ef_compute_error_quark ())

typedef enum {
  EF_IO_ERROR_FAILED,        /* the OS refused: open, read, mmap, write */
  EF_IO_ERROR_FORMAT,        /* not a file of the kind claimed, or malformed */
  EF_IO_ERROR_TRUNCATED,     /* the file is shorter than its header says */
  EF_IO_ERROR_UNSUPPORTED,   /* a valid file using a feature Echoform lacks */
  EF_IO_ERROR_INVALID_DATA,  /* NaN/Inf, zero vectors, non-monotonic frequencies, absurd sizes */
  EF_IO_ERROR_NO_GRID,       /* an image without the sidecar that says where its pixels are */
} EfIoError;

typedef enum {
  EF_COMPUTE_ERROR_FAILED,
  EF_COMPUTE_ERROR_INVALID_ARGUMENT,
  EF_COMPUTE_ERROR_NO_MEMORY,     /* host or device allocation failed */
  EF_COMPUTE_ERROR_NO_DEVICE,     /* no CUDA device, or the driver is too old */
  EF_COMPUTE_ERROR_DEVICE,        /* a CUDA or cuFFT call failed */
  EF_COMPUTE_ERROR_CANCELLED,
} EfComputeError;

GQuark ef_io_error_quark (void);
GQuark ef_compute_error_quark (void);

G_END_DECLS
