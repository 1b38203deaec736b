/* ef-vec3.h: three-vectors in double: the dot and cross products, the norm, differences and scaling. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <math.h>

/* Every output may be one of the inputs. */

static inline double
ef_dot3 (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double
ef_norm3 (const double a[3])
{
  return sqrt (ef_dot3 (a, a));
}

static inline void
ef_sub3 (const double a[3], const double b[3], double out[3])
{
  for (int i = 0; i < 3; i++)
    out[i] = a[i] - b[i];
}

static inline void
ef_scale3 (const double a[3], double s, double out[3])
{
  for (int i = 0; i < 3; i++)
    out[i] = a[i] * s;
}

static inline void
ef_cross3 (const double a[3], const double b[3], double out[3])
{
  double r0 = a[1] * b[2] - a[2] * b[1], r1 = a[2] * b[0] - a[0] * b[2], r2 = a[0] * b[1] - a[1] * b[0];

  out[0] = r0;
  out[1] = r1;
  out[2] = r2;
}
