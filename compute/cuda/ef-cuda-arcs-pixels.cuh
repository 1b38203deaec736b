/* ef-cuda-arcs-pixels.cuh: what every arc coherence kernel shares: an arc's two pixels, and the NaN of an arc that leaves the region. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cuda_runtime.h>

#include "ef-cuda-arcs-private.h"

namespace ef_cuda_arcs {

__device__ __forceinline__ float
quiet_nan ()
{
  return __int_as_float (0x7fc00000);
}

/* Arc `arc` (offset * plane + pixel, as coh is laid out): its pixel *p and its neighbour *q along the
 * offset, TRUE; or FALSE where the neighbour leaves the region, and then its results are written here
 * (NaN coherence, and no grid point where best is not NULL). */
__device__ __forceinline__ bool
arc_pixels (const EfCudaArcsArgs &a, size_t arc, size_t plane, unsigned short *best, size_t *p, size_t *q)
{
  unsigned o = (unsigned) (arc / plane);
  size_t pp = arc % plane;
  unsigned c = (unsigned) (pp % a.width), r = (unsigned) (pp / a.width);
  int qc = (int) c + __ldg (a.off + 2 * o), qr = (int) r + __ldg (a.off + 2 * o + 1);

  if (qc < 0 || qc >= (int) a.width || qr >= (int) a.rows)
    {
      a.coh[arc] = quiet_nan ();
      if (best != NULL)
        best[arc] = 0xffffu;
      return false;
    }
  *p = pp;
  *q = (size_t) qr * a.width + qc;
  return true;
}

}  // namespace ef_cuda_arcs
