#version 150
// image-value.frag: a precomputed display value (dB, phase, real or imaginary) -> affine map -> colour table.
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The pixel's quantity was computed when it was uploaded, and the table already holds the colour map
// with the gamma applied, so a frame costs one fetch, one multiply-add and one table lookup a pixel:
// what a software rasteriser pays for every pixel of every frame. Only the cells that have arrived are
// drawn (one quad per run of cells), so no coverage mask is read either. Compiled twice: with
// EF_AVERAGE_DB defined for magnitude zoomed out, where the power under the pixel's footprint is
// averaged, as image.frag does.

in vec2 v_uv;

uniform sampler2D u_data;      // R32F: magnitude in dB, phase in turns [0, 1], real or imaginary part
uniform sampler2D u_lut;       // the colour table, gamma applied
uniform vec2  u_lut_map;       // t -> table coordinate: t * x + y (the centres of the first and last texel)
uniform float u_scale;         // t = clamp (value * u_scale + u_offset, 0, 1)
uniform float u_offset;
uniform vec2  u_tap;           // EF_AVERAGE_DB: a quarter of the pixel's footprint, texture coordinates

out vec4 o_color;

#ifdef EF_AVERAGE_DB
const float DB_TO_LOG2 = 0.33219280948873623;   // log2 (10) / 10
const float LOG2_TO_DB = 3.0102999566398120;    // 10 / log2 (10)

float
power_at (vec2 uv)
{
  return exp2 (texture (u_data, uv).r * DB_TO_LOG2);
}
#endif

void
main ()
{
#ifdef EF_AVERAGE_DB
  vec2 d = u_tap;
  float p = 0.25 * (power_at (v_uv + vec2 (-d.x, -d.y)) + power_at (v_uv + vec2 (d.x, -d.y))
                    + power_at (v_uv + vec2 (-d.x, d.y)) + power_at (v_uv + vec2 (d.x, d.y)));
  float v = LOG2_TO_DB * log2 (max (p, 1e-30));
#else
  float v = texture (u_data, v_uv).r;
#endif
  float t = clamp (v * u_scale + u_offset, 0.0, 1.0);

  o_color = vec4 (texture (u_lut, vec2 (t * u_lut_map.x + u_lut_map.y, 0.5)).rgb, 1.0);
}
