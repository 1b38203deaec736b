/* ef-cuda-register.c: offers the CUDA backend to the engine's registry when the program starts. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda.h"
#include "ef-cuda-arcs.h"
#include "ef-arcs-accel.h"
#include "ef-cuda-focus-private.h"
#include "ef-cuda-mri.h"

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

/* Arc coherence: the session is the CUDA one, seen through the engine's opaque type. */
static const char *const arcs_mappings[] = { "window", "arc", "graph", NULL };

static gboolean
arcs_available (char **why)
{
  if (ef_cuda_available (why))
    return TRUE;
  if (*why == NULL)
    *why = g_strdup ("No CUDA device");
  return FALSE;
}

static EfArcsSession *
arcs_session_new (int device, guint width, guint max_rows, guint n_passes, const EfArcOffset *off, guint n_off,
                  const EfArcModel *model, const EfArcGrid *grid, GError **error)
{
  return (EfArcsSession *) ef_cuda_arcs_new (device, width, max_rows, n_passes, off, n_off, model, grid, error);
}

static gboolean
arcs_session_run (EfArcsSession *s, const EfArcPhasors *ph, guint mapping, gboolean periodogram, float *coh,
                  guint16 *best, double *kernel_ms, GError **error)
{
  EfCudaArcsTiming t = { 0 };
  gboolean ok = ef_cuda_arcs_run ((EfCudaArcs *) s, ph->re, ph->im, ph->height, (EfCudaArcsMapping) mapping,
                                  periodogram, coh, best, NULL, &t, error);

  if (kernel_ms != NULL)
    *kernel_ms = t.kernel_ms;
  return ok;
}

static void
arcs_session_free (EfArcsSession *s)
{
  ef_cuda_arcs_free ((EfCudaArcs *) s);
}

static guint
arcs_n_devices (void)
{
  return ef_cuda_device_count ();
}

static gboolean
arcs_session_set_periodogram (EfArcsSession *s, EfArcsPgPrecision precision, GError **error)
{
  return ef_cuda_arcs_set_periodogram_path ((EfCudaArcs *) s, precision == EF_ARCS_PG_TENSOR
                                            ? EF_CUDA_ARCS_PG_TENSOR : EF_CUDA_ARCS_PG_FP32, error);
}

static const EfArcsProvider ef_cuda_arcs_provider = {
  .name = "CUDA",
  .mappings = arcs_mappings,
  .available = arcs_available,
  .session_new = arcs_session_new,
  .session_run = arcs_session_run,
  .session_free = arcs_session_free,
  .n_devices = arcs_n_devices,
  .session_set_periodogram = arcs_session_set_periodogram,
};

__attribute__ ((constructor)) static void
register_provider (void)
{
  ef_backend_register (&ef_cuda_backend_provider);
  ef_arcs_register (&ef_cuda_arcs_provider);
  ef_cuda_focus_register ();
  ef_cuda_mri_register ();
}
