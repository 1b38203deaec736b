/* ef-cuda-display.cuh: device code that writes the accumulator's dirty rectangles into a GL surface. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-cuda-private.h"

namespace ef_cuda {

/* One launch handles up to this many rectangles, passed by value: no host-to-device copy of a list. */
#define EF_CUDA_DISPLAY_BATCH 32

struct DisplayBatch {
  int n;
  int x[EF_CUDA_DISPLAY_BATCH], y[EF_CUDA_DISPLAY_BATCH];
  int w[EF_CUDA_DISPLAY_BATCH], h[EF_CUDA_DISPLAY_BATCH];
};

/* grid (gx, gy, n): blockIdx.z picks the rectangle; threads stride over it, 32 columns a warp so that
 * reads of the image and writes of the surface are both whole rows of a warp. The texture holds the
 * complex value itself (RG32F), as the host path uploads it: the shader takes magnitude, phase or
 * parts, so one texture serves every view mode. */
__global__ void
display_copy_kernel (cudaSurfaceObject_t surf, const float2 *__restrict__ image, int image_width, DisplayBatch b,
                     int dst_x, int dst_y)
{
  const int r = blockIdx.z;
  const int w = b.w[r], h = b.h[r];

  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += gridDim.x * blockDim.x)
      {
        const int gx = b.x[r] + x, gy = b.y[r] + y;
        /* One 8-byte load: a pixel that a backprojection is updating reads as before or after. */
        const float2 v = image[(size_t) gy * image_width + gx];

        /* The x coordinate of a surface write is in bytes. */
        surf2Dwrite (v, surf, (gx - dst_x) * (int) sizeof (float2), gy - dst_y);
      }
}

} /* namespace ef_cuda */
