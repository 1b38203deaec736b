/* ef-cuda-display.cu: launch wrapper for the display conversion into a CUDA–OpenGL shared texture. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include "ef-cuda-display.cuh"

using namespace ef_cuda;

/* 32 x 8 threads; at most this many blocks a side, the threads striding over the rest: a 4096-pixel
 * row of rectangles is 128 blocks wide, enough to fill the device next to a running backprojection
 * without flooding its queue. */
static const unsigned kBlockX = 32, kBlockY = 8, kMaxGrid = 128;

extern "C" gboolean
ef_cuda_display_convert (gpointer stream, guint64 surface, const void *image, guint image_width, const EfRect *rects,
                         guint n_rects, guint dst_x, guint dst_y, GError **error)
{
  g_return_val_if_fail (image != NULL && (rects != NULL || n_rects == 0), FALSE);

  for (guint first = 0; first < n_rects; first += EF_CUDA_DISPLAY_BATCH)
    {
      DisplayBatch b;
      unsigned max_w = 0, max_h = 0;
      cudaError_t e;

      b.n = (int) MIN (n_rects - first, (guint) EF_CUDA_DISPLAY_BATCH);
      for (int i = 0; i < b.n; i++)
        {
          const EfRect *r = &rects[first + i];

          if (r->x < dst_x || r->y < dst_y || r->x + (guint64) r->width > image_width)
            {
              g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                           "Display rectangle %u,%u %ux%u is outside its tile at %u,%u", r->x, r->y, r->width,
                           r->height, dst_x, dst_y);
              return FALSE;
            }
          b.x[i] = (int) r->x;
          b.y[i] = (int) r->y;
          b.w[i] = (int) r->width;
          b.h[i] = (int) r->height;
          max_w = MAX (max_w, r->width);
          max_h = MAX (max_h, r->height);
        }
      if (max_w == 0 || max_h == 0)
        continue;

      dim3 block (kBlockX, kBlockY);
      dim3 grid (MIN ((max_w + kBlockX - 1) / kBlockX, kMaxGrid), MIN ((max_h + kBlockY - 1) / kBlockY, kMaxGrid),
                 (unsigned) b.n);
      display_copy_kernel<<<grid, block, 0, (cudaStream_t) stream>>> ((cudaSurfaceObject_t) surface,
                                                                     (const float2 *) image, (int) image_width, b,
                                                                     (int) dst_x, (int) dst_y);
      e = cudaGetLastError ();
      if (!ef_cuda_check_ ((int) e, "display_copy_kernel<<<>>>", __FILE__, __LINE__, error))
        return FALSE;
    }
  return TRUE;
}
