/* ef-ref-bp.cu: float64 backprojection on a device, the yardstick of the GPU benchmarks and tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ref-bp"
#include "config.h"

#include <math.h>

#include "ef-cuda-private.h"
#include "ef-ref-bp.h"

/* One pulse's geometry, exactly as EfProfileMeta gives it. */
struct RefPulse {
  double tx[3], rcv[3];
  double r0, r_start, dr, kr;
};

/* Pulses staged in shared memory at a time: 64 x 80 B. */
#define REF_CHUNK 64
#define REF_BLOCK_X 16
#define REF_BLOCK_Y 16

struct _EfRefBp {
  EfGrid    grid;
  guint     max_pulses;
  guint     n_bins;
  int       device;
  double2  *d_acc;      /* owned, width * height */
  double2  *d_prof;     /* owned, max_pulses * n_bins */
  RefPulse *d_pulses;   /* owned, max_pulses */
  RefPulse *h_pulses;   /* owned, max_pulses */
};

/* Written for plainness, not speed: every operation in double, the square roots and sincos exact to the
 * last bit or two, nothing carried from one pulse to the next. The pixel position is ef_grid_pixel_position's
 * formula. */
__global__ void
ref_bp_kernel (double2 *acc, unsigned width, unsigned height, double ox, double oy, double oz, double ux, double uy,
               double uz, double vx, double vy, double vz, double spacing, const RefPulse *pulses,
               const double2 *prof, unsigned n_pulses, unsigned n_bins)
{
  __shared__ RefPulse sp[REF_CHUNK];
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
  const bool inside = c < width && r < height;
  const double x = ox + (double) c * spacing * ux + (double) r * spacing * vx;
  const double y = oy + (double) c * spacing * uy + (double) r * spacing * vy;
  const double z = oz + (double) c * spacing * uz + (double) r * spacing * vz;
  double sum_re = 0, sum_im = 0;

  for (unsigned p0 = 0; p0 < n_pulses; p0 += REF_CHUNK)
    {
      const unsigned m = min ((unsigned) REF_CHUNK, n_pulses - p0);

      if (t < m)
        sp[t] = pulses[p0 + t];
      __syncthreads ();
      if (inside)
        for (unsigned k = 0; k < m; k++)
          {
            const RefPulse *q = &sp[k];
            const double ax = q->tx[0] - x, ay = q->tx[1] - y, az = q->tx[2] - z;
            const double bx = q->rcv[0] - x, by = q->rcv[1] - y, bz = q->rcv[2] - z;
            const double dR = 0.5 * (sqrt (ax * ax + ay * ay + az * az) + sqrt (bx * bx + by * by + bz * bz)) - q->r0;
            const double f = (dR - q->r_start) / q->dr;
            const double fl = floor (f);
            double s, co;

            /* Outside the profile (or not a number): nothing, as in ef_bp_reference. */
            if (!(fl >= 0 && fl + 1 < (double) n_bins))
              continue;
            const size_t i = (size_t) fl;
            const double w = f - fl;
            const double2 a = prof[(size_t) (p0 + k) * n_bins + i];
            const double2 b = prof[(size_t) (p0 + k) * n_bins + i + 1];
            const double vr = a.x + w * (b.x - a.x), vi = a.y + w * (b.y - a.y);

            sincos (q->kr * dR, &s, &co);
            sum_re += vr * co - vi * s;
            sum_im += vr * s + vi * co;
          }
      __syncthreads ();
    }
  if (inside)
    {
      double2 *o = &acc[(size_t) r * width + c];

      o->x += sum_re;
      o->y += sum_im;
    }
}

extern "C" EfRefBp *
ef_ref_bp_new (const EfGrid *grid, guint max_pulses, guint n_bins, GError **error)
{
  g_autoptr (EfRefBp) ref = g_new0 (EfRefBp, 1);
  const size_t n_px = ef_grid_n_pixels (grid);

  g_return_val_if_fail (grid != NULL && max_pulses > 0 && n_bins > 1, NULL);
  ref->grid = *grid;
  ref->max_pulses = max_pulses;
  ref->n_bins = n_bins;
  ref->device = -1;
  if (!ef_cuda_check_ ((int) cudaGetDevice (&ref->device), "cudaGetDevice", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaMalloc ((void **) &ref->d_acc, n_px * sizeof (double2)), "cudaMalloc (image)",
                          __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaMalloc ((void **) &ref->d_prof, (size_t) max_pulses * n_bins * sizeof (double2)),
                          "cudaMalloc (profiles)", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaMalloc ((void **) &ref->d_pulses, max_pulses * sizeof (RefPulse)),
                          "cudaMalloc (pulses)", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaMemset (ref->d_acc, 0, n_px * sizeof (double2)), "cudaMemset", __FILE__,
                          __LINE__, error))
    return NULL;
  ref->h_pulses = g_new (RefPulse, max_pulses);
  return (EfRefBp *) g_steal_pointer (&ref);
}

extern "C" gboolean
ef_ref_bp_add (EfRefBp *ref, const EfProfiles *profiles, GError **error)
{
  const EfGrid *g;
  const unsigned n = profiles ? profiles->n_pulses : 0;

  g_return_val_if_fail (ref != NULL && profiles != NULL && profiles->data64 != NULL, FALSE);
  if (n > ref->max_pulses || profiles->n_bins != ref->n_bins)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The float64 reference takes up to %u profiles of %u bins, not %u of %u", ref->max_pulses,
                   ref->n_bins, n, profiles->n_bins);
      return FALSE;
    }
  if (n == 0)
    return TRUE;
  for (unsigned p = 0; p < n; p++)
    {
      const EfProfileMeta *m = &profiles->meta[p];
      RefPulse *q = &ref->h_pulses[p];

      for (int k = 0; k < 3; k++)
        {
          q->tx[k] = m->tx[k];
          q->rcv[k] = m->rcv[k];
        }
      q->r0 = m->r0;
      q->r_start = m->r_start;
      q->dr = m->dr;
      q->kr = m->kr;
    }
  if (!ef_cuda_check_ ((int) cudaSetDevice (ref->device), "cudaSetDevice", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaMemcpy (ref->d_pulses, ref->h_pulses, n * sizeof (RefPulse),
                                            cudaMemcpyHostToDevice), "cudaMemcpy (pulses)", __FILE__, __LINE__, error)
      || !ef_cuda_check_ ((int) cudaMemcpy (ref->d_prof, profiles->data64, (size_t) n * ref->n_bins * sizeof (double2),
                                            cudaMemcpyHostToDevice), "cudaMemcpy (profiles)", __FILE__, __LINE__,
                          error))
    return FALSE;
  g = &ref->grid;
  dim3 block (REF_BLOCK_X, REF_BLOCK_Y);
  dim3 grid ((g->width + REF_BLOCK_X - 1) / REF_BLOCK_X, (g->height + REF_BLOCK_Y - 1) / REF_BLOCK_Y);
  if (grid.y > 65535u)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A %u x %u grid is too tall for the float64 reference", g->width, g->height);
      return FALSE;
    }
  ref_bp_kernel<<<grid, block>>> (ref->d_acc, g->width, g->height, g->origin[0], g->origin[1], g->origin[2], g->u[0],
                                  g->u[1], g->u[2], g->v[0], g->v[1], g->v[2], g->spacing, ref->d_pulses,
                                  ref->d_prof, n, ref->n_bins);
  return ef_cuda_check_ ((int) cudaGetLastError (), "ref_bp_kernel<<<>>>", __FILE__, __LINE__, error)
         && ef_cuda_check_ ((int) cudaDeviceSynchronize (), "cudaDeviceSynchronize", __FILE__, __LINE__, error);
}

extern "C" gboolean
ef_ref_bp_read (EfRefBp *ref, EfCf64 *out, GError **error)
{
  g_return_val_if_fail (ref != NULL && out != NULL, FALSE);
  return ef_cuda_check_ ((int) cudaSetDevice (ref->device), "cudaSetDevice", __FILE__, __LINE__, error)
         && ef_cuda_check_ ((int) cudaMemcpy (out, ref->d_acc, ef_grid_n_pixels (&ref->grid) * sizeof (double2),
                                              cudaMemcpyDeviceToHost), "cudaMemcpy (image)", __FILE__, __LINE__,
                            error);
}

extern "C" void
ef_ref_bp_free (EfRefBp *ref)
{
  if (ref == NULL)
    return;
  if (ref->device >= 0)
    EF_CUDA_WARN (cudaSetDevice (ref->device));
  if (ref->d_acc)
    EF_CUDA_WARN (cudaFree (ref->d_acc));
  if (ref->d_prof)
    EF_CUDA_WARN (cudaFree (ref->d_prof));
  if (ref->d_pulses)
    EF_CUDA_WARN (cudaFree (ref->d_pulses));
  g_free (ref->h_pulses);
  g_free (ref);
}
