/* ef-cphd-geo.c: WGS-84 geodetic <-> Earth-fixed and the local east-north-up frame, in double. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cphd-geo"
#include "config.h"

#include <math.h>

#include "ef-cphd.h"

/* WGS-84 defining constants. */
#define WGS84_A 6378137.0
#define WGS84_F (1.0 / 298.257223563)
#define WGS84_E2 (WGS84_F * (2.0 - WGS84_F))

#define DEG (G_PI / 180.0)

void
ef_geo_llh_to_ecf (const double llh[3], double ecf[3])
{
  double lat = llh[0] * DEG, lon = llh[1] * DEG, h = llh[2];
  double s = sin (lat), c = cos (lat);
  double n = WGS84_A / sqrt (1.0 - WGS84_E2 * s * s);

  ecf[0] = (n + h) * c * cos (lon);
  ecf[1] = (n + h) * c * sin (lon);
  ecf[2] = (n * (1.0 - WGS84_E2) + h) * s;
}

void
ef_geo_ecf_to_llh (const double ecf[3], double llh[3])
{
  double x = ecf[0], y = ecf[1], z = ecf[2];
  double p = hypot (x, y);
  double lat, h = 0;

  if (p == 0 && z == 0)
    {
      /* The centre of the Earth has no latitude; call it the equator, one radius down. */
      llh[0] = 0;
      llh[1] = 0;
      llh[2] = -WGS84_A;
      return;
    }

  /* Fixed-point iteration on latitude. Height is taken along the normal with the form
   * h = p cos(lat) + z sin(lat) - a sqrt(1 - e2 sin^2 lat), which stays well conditioned at the poles
   * where p / cos(lat) would not. Each step gains about three digits near the surface, so a handful
   * reach the last bit for anything from the Earth's surface to orbit. */
  lat = atan2 (z, p * (1.0 - WGS84_E2));
  for (int i = 0; i < 12; i++)
    {
      double s = sin (lat), c = cos (lat);
      double w = sqrt (1.0 - WGS84_E2 * s * s);
      double n = WGS84_A / w;
      double next;

      h = p * c + z * s - WGS84_A * w;
      next = atan2 (z, p * (1.0 - WGS84_E2 * n / (n + h)));
      if (fabs (next - lat) < 1e-15)
        {
          lat = next;
          break;
        }
      lat = next;
    }
  {
    double s = sin (lat), c = cos (lat);
    h = p * c + z * s - WGS84_A * sqrt (1.0 - WGS84_E2 * s * s);
  }

  llh[0] = lat / DEG;
  llh[1] = atan2 (y, x) / DEG;
  llh[2] = h;
}

/* Rows of the rotation from ECF to ENU at the reference point: east, north, up. */
static void
enu_basis (const double ref_llh[3], double e[3], double n[3], double u[3])
{
  double lat = ref_llh[0] * DEG, lon = ref_llh[1] * DEG;
  double sl = sin (lat), cl = cos (lat), so = sin (lon), co = cos (lon);

  e[0] = -so;
  e[1] = co;
  e[2] = 0;
  n[0] = -sl * co;
  n[1] = -sl * so;
  n[2] = cl;
  u[0] = cl * co;
  u[1] = cl * so;
  u[2] = sl;
}

void
ef_geo_ecf_to_enu_dir (const double ref_llh[3], const double ecf[3], double enu[3])
{
  double e[3], n[3], u[3];
  double v[3] = { ecf[0], ecf[1], ecf[2] };

  enu_basis (ref_llh, e, n, u);
  enu[0] = e[0] * v[0] + e[1] * v[1] + e[2] * v[2];
  enu[1] = n[0] * v[0] + n[1] * v[1] + n[2] * v[2];
  enu[2] = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

void
ef_geo_enu_to_ecf_dir (const double ref_llh[3], const double enu[3], double ecf[3])
{
  double e[3], n[3], u[3];
  double v[3] = { enu[0], enu[1], enu[2] };

  enu_basis (ref_llh, e, n, u);
  for (int i = 0; i < 3; i++)
    ecf[i] = e[i] * v[0] + n[i] * v[1] + u[i] * v[2];
}

void
ef_geo_ecf_to_enu (const double ref_ecf[3], const double ref_llh[3], const double ecf[3], double enu[3])
{
  /* Subtract first: the difference of two Earth-radius numbers is exact to well under a micrometre,
   * and the rotation then works on small numbers. */
  double d[3] = { ecf[0] - ref_ecf[0], ecf[1] - ref_ecf[1], ecf[2] - ref_ecf[2] };

  ef_geo_ecf_to_enu_dir (ref_llh, d, enu);
}

void
ef_geo_enu_to_ecf (const double ref_ecf[3], const double ref_llh[3], const double enu[3], double ecf[3])
{
  double d[3];

  ef_geo_enu_to_ecf_dir (ref_llh, enu, d);
  ecf[0] = ref_ecf[0] + d[0];
  ecf[1] = ref_ecf[1] + d[1];
  ecf[2] = ref_ecf[2] + d[2];
}
