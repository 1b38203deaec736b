#version 150
// image.vert: places one rectangle of a texture tile of an image layer on screen.
// SPDX-License-Identifier: GPL-3.0-or-later

in vec2 a_corner;              // unit square, (0,0)..(1,1)

uniform mat3 u_pix_to_ndc;     // image pixel coordinates (centre of pixel 0 at 0) -> clip space
uniform vec2 u_tile_origin;    // first column and row of this tile, pixels
uniform vec2 u_tile_size;      // columns and rows of this tile
uniform vec2 u_quad_origin;    // the part of the tile drawn: first column and row, pixels
uniform vec2 u_quad_size;      // its columns and rows (the whole tile, or the cells that have arrived)

out vec2 v_uv;                 // texture coordinate within the tile
out vec2 v_pix;                // image pixel coordinate, edges at integers

void
main ()
{
  vec2 pix_edge = u_quad_origin + a_corner * u_quad_size;
  vec3 ndc = u_pix_to_ndc * vec3 (pix_edge - 0.5, 1.0);

  v_uv = (pix_edge - u_tile_origin) / u_tile_size;
  v_pix = pix_edge;
  gl_Position = vec4 (ndc.xy, 0.0, 1.0);
}
