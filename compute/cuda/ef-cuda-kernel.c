/* ef-cuda-kernel.c: one backprojection kernel run on host profiles, for the tuner, tests and benchmarks. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-backend-private.h"

gboolean
ef_cuda_bp_profiles (const EfGrid *grid, const EfProfiles *profiles, EfPrecision precision, guint variant,
                     EfCf32 *out, double *kernel_ms, GError **error)
{
  const guint np = profiles->n_pulses, n = profiles->n_bins;
  const gsize n_px = ef_grid_n_pixels (grid);
  g_autofree EfCudaPulse *pulses = NULL;
  double max_inv_dr = 0;
  void *d_prof = NULL, *d_table = NULL, *d_image = NULL;
  EfCudaPulse *d_pulses = NULL;
  float *d_scale = NULL;
  cudaStream_t s = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  gboolean ok = FALSE;
  EfCudaBpArgs args;
  int ext, guard;
  guint stride;
  float ms = 0;

  g_return_val_if_fail (grid != NULL && profiles != NULL && out != NULL, FALSE);
  g_return_val_if_fail (profiles->data32 != NULL, FALSE);
  g_return_val_if_fail (precision == EF_PRECISION_FP32 || precision == EF_PRECISION_FP16, FALSE);

  if (!ef_cuda_available (NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device");
      return FALSE;
    }
  if (variant == 0)
    variant = ef_cuda_choose_variant (grid, profiles->meta, np, precision);
  if (variant < 1 || variant > EF_CUDA_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "No kernel shape keeps the range series accurate for this geometry");
      return FALSE;
    }
  pulses = g_new0 (EfCudaPulse, MAX (np, 1u));
  for (guint p = 0; p < np; p++)
    {
      ef_cuda_pulse_from_meta (&profiles->meta[p], &pulses[p]);
      max_inv_dr = MAX (max_inv_dr, pulses[p].inv_dr);
    }
  ext = ef_cuda_guard_ext (&ef_cuda_shapes[variant - 1], grid->spacing, max_inv_dr);
  if (ext < 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Pixels span too many range bins");
      return FALSE;
    }
  guard = 2 * ext + 2;
  stride = n + 2u * (guint) guard;
  if (!ef_cuda_table_fits (n, guard, error))
    return FALSE;

#define TRY(expr) G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, error)) goto out; } G_STMT_END
  TRY (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  TRY (cudaEventCreate (&e0));
  TRY (cudaEventCreate (&e1));
  TRY (ef_cuda_malloc (&d_prof, (gsize) MAX (np, 1u) * n * sizeof (EfCf32)));
  TRY (ef_cuda_malloc (&d_table, (gsize) MAX (np, 1u) * stride * ef_cuda_table_entry_size (precision)));
  TRY (ef_cuda_malloc ((void **) &d_pulses, MAX (np, 1u) * sizeof (EfCudaPulse)));
  TRY (ef_cuda_malloc ((void **) &d_scale, 4 * sizeof (float)));
  TRY (ef_cuda_malloc (&d_image, n_px * sizeof (EfCf32)));
  TRY (cudaMemcpyAsync (d_prof, profiles->data32, (gsize) np * n * sizeof (EfCf32), cudaMemcpyHostToDevice, s));
  TRY (cudaMemcpyAsync (d_pulses, pulses, np * sizeof (EfCudaPulse), cudaMemcpyHostToDevice, s));
  if (!ef_cuda_fill_nan (s, d_image, 2 * n_px, error))
    goto out;
  TRY (cudaMemsetAsync (d_image, 0, n_px * sizeof (EfCf32), s));
  if (precision == EF_PRECISION_FP16
      && !ef_cuda_rc_absmax (s, d_prof, (gsize) np * n * 2, d_scale, ef_cuda_shapes[variant - 1].chunk, error))
    goto out;
  if (!ef_cuda_rc_pack (s, precision, d_prof, n, guard, stride, d_pulses, d_scale, d_table, np, error))
    goto out;

  memset (&args, 0, sizeof args);
  for (int i = 0; i < 3; i++)
    {
      args.origin[i] = grid->origin[i];
      args.su[i] = grid->spacing * grid->u[i];
      args.sv[i] = grid->spacing * grid->v[i];
    }
  args.width = grid->width;
  args.height = grid->height;
  args.table = d_table;
  args.stride = stride;
  args.guard = guard;
  args.ib_lo = -guard + ext;
  args.ib_hi = (int) n + guard - 1 - ext;
  args.pulses = d_pulses;
  args.n_pulses = np;
  args.bistatic = !profiles->monostatic;
  args.image = d_image;
  args.scale = d_scale;
  TRY (cudaEventRecord (e0, s));
  if (!ef_cuda_bp_launch (s, precision, variant, &args, error))
    goto out;
  TRY (cudaEventRecord (e1, s));
  TRY (cudaMemcpyAsync (out, d_image, n_px * sizeof (EfCf32), cudaMemcpyDeviceToHost, s));
  TRY (cudaStreamSynchronize (s));
  TRY (cudaEventElapsedTime (&ms, e0, e1));
  if (kernel_ms)
    *kernel_ms = ms;
  ok = TRUE;
#undef TRY

out:
  if (s)
    (void) cudaStreamSynchronize (s);
  FREE_DEV (d_prof);
  FREE_DEV (d_table);
  FREE_DEV (d_pulses);
  FREE_DEV (d_scale);
  FREE_DEV (d_image);
  if (e0)
    EF_CUDA_WARN (cudaEventDestroy (e0));
  if (e1)
    EF_CUDA_WARN (cudaEventDestroy (e1));
  if (s)
    EF_CUDA_WARN (cudaStreamDestroy (s));
  return ok;
}
