/* ef-cuda-bp.cu: backprojection launch wrappers, the choice of kernel shape, and the kernel's CPU model. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-bp.cuh"

using namespace ef_cuda;

template <int SEG, int WARPS, int CHUNK, int MINB>
static gboolean
launch_shape (cudaStream_t stream, EfPrecision precision, const EfCudaBpArgs *args, GError **error)
{
  constexpr int BH = SEG * WARPS;
  dim3 grid ((args->width + 31) / 32, (args->height + BH - 1) / BH);

  if (grid.y > 65535u || grid.x == 0 || grid.y == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A %u x %u image needs a launch grid the device cannot take", args->width, args->height);
      return FALSE;
    }
  if (precision == EF_PRECISION_FP16)
    {
      bp_fp16_kernel<SEG, WARPS, CHUNK, MINB><<<grid, WARPS * 32, 0, stream>>> (*args);
      return ef_cuda_check_ ((int) cudaGetLastError (), "bp_fp16_kernel<<<>>>", __FILE__, __LINE__, error);
    }
  bp_fp32_kernel<SEG, WARPS, CHUNK, MINB><<<grid, WARPS * 32, 0, stream>>> (*args);
  return ef_cuda_check_ ((int) cudaGetLastError (), "bp_fp32_kernel<<<>>>", __FILE__, __LINE__, error);
}

/* Must follow ef_cuda_shapes[] in ef-cuda-util.c. */
extern "C" gboolean
ef_cuda_bp_launch (cudaStream_t stream, EfPrecision precision, guint variant, const EfCudaBpArgs *args,
                   GError **error)
{
  if (args->n_pulses == 0)
    return TRUE;
  switch (variant)
    {
    case 1: return launch_shape<16, 4, 32, 8> (stream, precision, args, error);
    case 2: return launch_shape<16, 8, 32, 4> (stream, precision, args, error);
    case 3: return launch_shape<8, 4, 32, 8> (stream, precision, args, error);
    case 4: return launch_shape<8, 8, 32, 4> (stream, precision, args, error);
    case 5: return launch_shape<4, 4, 32, 8> (stream, precision, args, error);
    case 6: return launch_shape<4, 8, 32, 4> (stream, precision, args, error);
    case 7: return launch_shape<16, 4, 32, 5> (stream, precision, args, error);
    case 8: return launch_shape<16, 8, 32, 3> (stream, precision, args, error);
    case 9: return launch_shape<16, 4, 64, 6> (stream, precision, args, error);
    default:
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No kernel shape %u", variant);
      return FALSE;
    }
}

extern "C" void
ef_cuda_pulse_from_meta (const EfProfileMeta *m, EfCudaPulse *out)
{
  memset (out, 0, sizeof *out);
  memcpy (out->tx, m->tx, sizeof out->tx);
  memcpy (out->rcv, m->rcv, sizeof out->rcv);
  out->rref = m->r0 + m->r_start;
  out->inv_dr = 1.0 / m->dr;
  out->cyc0 = m->kr * (m->r_start + 0.5 * m->dr) / (2.0 * G_PI);
  out->cyc_step = m->kr * m->dr / (2.0 * G_PI);
  out->kdr = (float) (m->kr * m->dr);
  out->az_w = 1.0f;
}

static double
dist3 (const double a[3], const double b[3])
{
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];

  return sqrt (dx * dx + dy * dy + dz * dz);
}

/* Bounds, in metres of range, on what the kernel leaves out: the fourth-order remainder of the tile's
 * series (about 1.5 d^4 / R^3 for a tile half-diagonal d) and the cubic term inside a segment that the
 * per-thread quadratic drops (about (s seg / 2)^3 / R^2). */
static double
shape_error_m (const EfCudaShape *sh, double spacing, double r_min)
{
  double ha = 16.0 * spacing, hy = 0.5 * sh->seg * sh->warps * spacing;
  double d = sqrt (ha * ha + hy * hy), e = 0.5 * sh->seg * spacing;

  return 1.5 * d * d * d * d / (r_min * r_min * r_min) + e * e * e / (r_min * r_min);
}

extern "C" guint
ef_cuda_choose_variant (const EfGrid *grid, const EfProfileMeta *meta, guint n_pulses, EfPrecision precision)
{
  double centre[3], half_diag, r_min = G_MAXDOUBLE, kr_max = 0;

  /* fp16 shares the fp32 kernels' geometry, so the same bound holds. */
  (void) precision;
  g_return_val_if_fail (grid != NULL && (meta != NULL || n_pulses == 0), 0);
  ef_grid_pixel_position (grid, 0.5 * (grid->width - 1.0), 0.5 * (grid->height - 1.0), centre);
  half_diag = 0.5 * grid->spacing * sqrt ((double) grid->width * grid->width + (double) grid->height * grid->height);
  for (guint p = 0; p < n_pulses; p++)
    {
      r_min = MIN (r_min, MIN (dist3 (meta[p].tx, centre), dist3 (meta[p].rcv, centre)));
      kr_max = MAX (kr_max, fabs (meta[p].kr));
    }
  if (n_pulses == 0)
    return 1;
  r_min -= half_diag + 64.0 * grid->spacing;
  if (!(r_min > 0))
    return 0;
  /* The bound is a worst case at a tile's corner; measured errors run ten times lower, so 1e-4 rad here
   * keeps the truncation's share of the error near -95 dB (test-cuda-model checks several geometries). */
  for (guint v = 1; v <= EF_CUDA_N_SHAPES; v++)
    if (kr_max * shape_error_m (&ef_cuda_shapes[v - 1], grid->spacing, r_min) < 1e-4)
      return v;
  return 0;
}

/* The host model. It follows the fp32 kernel step by step; only sincos comes from libm. */

/* prof: interleaved re, im (EfCf32 is a C complex type, which C++ cannot take apart). */
static void
model_pair (const float *prof, int n, int q, const EfCudaPulse *pu, float out[4])
{
  if (q < 0 || q > n - 2)
    {
      out[0] = out[1] = out[2] = out[3] = 0.f;
      return;
    }
  float s0r = prof[2 * q], s0i = prof[2 * q + 1], s1r = prof[2 * q + 2], s1i = prof[2 * q + 3];
  double cyc = fma ((double) q, pu->cyc_step, pu->cyc0);

  cyc -= rint (cyc);
  float c = (float) cos (2.0 * G_PI * cyc), s = (float) sin (2.0 * G_PI * cyc);
  float mr = 0.5f * (s0r + s1r), mi = 0.5f * (s0i + s1i), dr = s1r - s0r, di = s1i - s0i;

  out[0] = mr * c - mi * s;
  out[1] = mr * s + mi * c;
  out[2] = dr * c - di * s;
  out[3] = dr * s + di * c;
}

extern "C" gboolean
ef_cuda_bp_model (const EfGrid *grid, const EfProfiles *profiles, guint variant, EfCf32 *acc, GError **error)
{
  g_return_val_if_fail (grid != NULL && profiles != NULL && acc != NULL, FALSE);
  g_return_val_if_fail (profiles->data32 != NULL, FALSE);

  const guint np = profiles->n_pulses, n = profiles->n_bins;
  if (variant == 0)
    variant = ef_cuda_choose_variant (grid, profiles->meta, np, EF_PRECISION_FP32);
  if (variant < 1 || variant > EF_CUDA_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "No kernel shape keeps the range series accurate for this geometry");
      return FALSE;
    }
  const EfCudaShape sh = ef_cuda_shapes[variant - 1];
  const int SEG = (int) sh.seg, WARPS = (int) sh.warps, BH = SEG * WARPS;
  double su[3], sv[3], max_inv_dr = 0;
  g_autofree EfCudaPulse *pulses = g_new0 (EfCudaPulse, MAX (np, 1u));

  for (int i = 0; i < 3; i++)
    {
      su[i] = grid->spacing * grid->u[i];
      sv[i] = grid->spacing * grid->v[i];
    }
  for (guint p = 0; p < np; p++)
    {
      ef_cuda_pulse_from_meta (&profiles->meta[p], &pulses[p]);
      max_inv_dr = MAX (max_inv_dr, pulses[p].inv_dr);
    }
  int ext = ef_cuda_guard_ext (&sh, grid->spacing, max_inv_dr);
  if (ext < 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Pixels of %g m span too many range bins", grid->spacing);
      return FALSE;
    }
  const int guard = 2 * ext + 2, stride = (int) n + 2 * guard;
  if ((gint64) stride + 64 >= (1 << 22))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Too many range bins for the kernel");
      return FALSE;
    }
  const int ib_lo = -guard + ext, ib_hi = (int) n + guard - 1 - ext;
  g_autofree float *table = (float *) g_try_malloc ((gsize) MAX (np, 1u) * stride * 4 * sizeof (float));

  if (table == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the model's table");
      return FALSE;
    }
  for (guint p = 0; p < np; p++)
    for (int e = 0; e < stride; e++)
      model_pair ((const float *) profiles->data32 + (gsize) p * n * 2, (int) n, e - guard, &pulses[p],
                  table + ((gsize) p * stride + e) * 4);

  const guint tiles_x = (grid->width + 31) / 32, tiles_y = (grid->height + BH - 1) / BH;
  g_autofree EfTaylor *taylor = g_new (EfTaylor, MAX (np, 1u));
  g_autofree EfStage *stage = g_new (EfStage, (gsize) MAX (np, 1u) * WARPS);
  g_autofree float *accf = g_new (float, 2 * SEG);

  for (guint by = 0; by < tiles_y; by++)
    for (guint bx = 0; bx < tiles_x; bx++)
      {
        const int cx = (int) bx * 32 + 16, cy = (int) by * BH + BH / 2;
        double C[3];

        for (int i = 0; i < 3; i++)
          C[i] = grid->origin[i] + cx * su[i] + cy * sv[i];
        for (guint p = 0; p < np; p++)
          {
            pulse_taylor (&pulses[p], C, su, sv, !profiles->monostatic, &taylor[p]);
            for (int w = 0; w < WARPS; w++)
              make_stage (&taylor[p], (double) (w * SEG + SEG / 2 - BH / 2), pulses[p].kdr,
                          (long long) p * stride + guard, &stage[p * WARPS + w]);
          }
        for (int w = 0; w < WARPS; w++)
          for (int lane = 0; lane < 32; lane++)
            {
              const float a = (float) (lane - 16);
              const double ad = (double) (lane - 16);
              const float a2 = a * a;

              memset (accf, 0, sizeof (float) * 2 * SEG);
              for (guint p = 0; p < np; p++)
                {
                  EfSeg sg;

                  seg_setup (stage[p * WARPS + w], ad, a, a2, ib_lo, ib_hi, &sg);
                  for (int k = 0; k < SEG; k++)
                    {
                      const float kk = (float) (k - SEG / 2);
                      float wgt;
                      int off = split_bin (sg, kk, &wgt);
                      long long idx = sg.row + off;

                      g_assert (idx >= (long long) p * stride && idx < (long long) (p + 1) * stride);
                      const float *v = table + idx * 4;
                      float sr = fmaf (wgt, v[2], v[0]), si = fmaf (wgt, v[3], v[1]);
                      float th = wgt * sg.kdr, sn = sinf (th), cs = cosf (th);

                      accf[2 * k] = fmaf (sr, cs, accf[2 * k]);
                      accf[2 * k] = fmaf (-si, sn, accf[2 * k]);
                      accf[2 * k + 1] = fmaf (sr, sn, accf[2 * k + 1]);
                      accf[2 * k + 1] = fmaf (si, cs, accf[2 * k + 1]);
                    }
                }
              const guint col = bx * 32 + lane;
              if (col >= grid->width)
                continue;
              for (int k = 0; k < SEG; k++)
                {
                  const guint row = by * BH + w * SEG + k;

                  if (row < grid->height)
                    {
                      float *px = (float *) acc + 2 * ((gsize) row * grid->width + col);
                      px[0] += accf[2 * k];
                      px[1] += accf[2 * k + 1];
                    }
                }
            }
      }
  return TRUE;
}
