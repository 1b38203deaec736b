#version 150
// image.frag: complex pixel -> magnitude dB, phase, real or imaginary -> dynamic range, gamma -> colour map.
// SPDX-License-Identifier: GPL-3.0-or-later

in vec2 v_uv;
in vec2 v_pix;

uniform sampler2D u_data;      // RG32F: real, imaginary
uniform sampler2D u_mask;      // R8: 1 where a cell of the image has arrived
uniform sampler2D u_lut;       // 256 x 1 RGBA colour map
uniform vec2  u_mask_scale;    // 1 / (cells * cell size), pixels -> mask texture coordinates
uniform vec2  u_tile_size;     // texels in this tile
uniform bool  u_use_mask;      // false once every cell has arrived: no mask fetch
uniform int   u_mode;          // 0 magnitude, 1 phase, 2 real, 3 imaginary
uniform float u_db_min;
uniform float u_db_max;
uniform float u_inv_gamma;
uniform float u_gain_db;       // normalisation of this layer (per pulse)

out vec4 o_color;

const float LOG10_INV = 0.43429448190325176;

float
power_at (vec2 uv)
{
  vec2 z = texture (u_data, uv).rg;
  return dot (z, z);
}

void
main ()
{
  // Derivatives first: they are undefined after a discard in non-uniform flow.
  // Every fetch counts where few units rasterise (a compute GPU's graphics runs on a few SMs): the
  // mask is read only while cells are missing, and the centre texel only when it is used.
  vec2 fw = fwidth (v_uv);
  float texels_per_pixel = max (fw.x * u_tile_size.x, fw.y * u_tile_size.y);
  bool average = u_mode == 0 && texels_per_pixel > 1.5;
  vec2 z = vec2 (0.0);
  float t;

  if (u_use_mask && texture (u_mask, v_pix * u_mask_scale).r < 0.5)
    discard;
  if (!average)
    z = texture (u_data, v_uv).rg;

  if (u_mode == 0)
    {
      float p = dot (z, z);
      // Zoomed out, average the power under the pixel's footprint instead of picking one speckle.
      if (average)
        {
          vec2 d = 0.25 * fw;
          p = 0.25 * (power_at (v_uv + vec2 (-d.x, -d.y)) + power_at (v_uv + vec2 (d.x, -d.y))
                      + power_at (v_uv + vec2 (-d.x, d.y)) + power_at (v_uv + vec2 (d.x, d.y)));
        }
      float db = 10.0 * LOG10_INV * log (max (p, 1e-30)) + u_gain_db;
      t = clamp ((db - u_db_min) / max (u_db_max - u_db_min, 1e-6), 0.0, 1.0);
      t = pow (t, u_inv_gamma);
    }
  else if (u_mode == 1)
    {
      t = atan (z.y, z.x) / 6.283185307179586 + 0.5;
    }
  else
    {
      float a = (u_mode == 2 ? z.x : z.y) * pow (10.0, u_gain_db / 20.0);
      float lim = pow (10.0, u_db_max / 20.0);
      t = clamp (0.5 + 0.5 * a / lim, 0.0, 1.0);
    }

  o_color = vec4 (texture (u_lut, vec2 (t * (255.0 / 256.0) + 0.5 / 256.0, 0.5)).rgb, 1.0);
}
