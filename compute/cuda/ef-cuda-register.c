/* ef-cuda-register.c: offers the CUDA backend to the engine's registry when the program starts. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda.h"

static gboolean
available (const EfBackendParams *params, char **why)
{
  if (params->precision == EF_PRECISION_FP64)
    {
      *why = g_strdup ("fp64 runs on the CPU only");
      return FALSE;
    }
  if (ef_cuda_available (why))
    return TRUE;
  if (*why == NULL)
    *why = g_strdup ("No CUDA device");
  return FALSE;
}

/* compute/meson.build makes every program that links the engine ask for this symbol, which is what
 * brings this file, and so the constructor below, out of the static library. */
const EfBackendProvider ef_cuda_backend_provider = {
  .kind = EF_BACKEND_CUDA,
  .name = "CUDA",
  .available = available,
  .create = ef_backend_cuda_new,
};

__attribute__ ((constructor)) static void
register_provider (void)
{
  ef_backend_register (&ef_cuda_backend_provider);
}
