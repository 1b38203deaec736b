/* test-gui-view.c: the image view: GL life cycle, tiled textures, colours on screen, drawing on the
 * processor, and its pointer and keyboard input. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-view"
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "ef-colormap.h"
#include "ef-gl-renderer.h"
#include "ef-gui-test-util.h"
#include "ef-image-view-input.h"
#include "ef-image-view-test.h"
#include "ef-render-test.h"

/* A synthetic source: a dim background with a bright square, complex values of known phase. */
typedef struct {
  guint  width, height;
  guint  sq_x, sq_y, sq_size;
  guint  n_reads;
} Source;

static gboolean
source_read (gpointer data, const EfRect *rect, EfCf32 *out, GError **error)
{
  Source *s = data;

  s->n_reads++;
  for (guint r = 0; r < rect->height; r++)
    for (guint c = 0; c < rect->width; c++)
      {
        guint x = rect->x + c, y = rect->y + r;
        gboolean inside = x >= s->sq_x && x < s->sq_x + s->sq_size && y >= s->sq_y && y < s->sq_y + s->sq_size;
        out[(gsize) r * rect->width + c] = inside ? 1.0f : 0.001f * I;
      }
  return TRUE;
}

static void
wait_for (gboolean (*cond) (gpointer), gpointer data, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!cond (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static gboolean
view_settled (gpointer data)
{
  return gtk_widget_get_realized (data) && ef_image_view_is_settled (data)
         && ef_image_view_get_n_updates (data, EF_LAYER_ROI) > 0;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* Renders widget as the screen would and returns its pixels (BGRA, premultiplied, as GDK stores). */
static guint8 *
grab (GtkWidget *widget, int *w, int *h, gsize *stride)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr (GdkTexture) texture = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  guint8 *pixels;

  *w = gtk_widget_get_width (widget);
  *h = gtk_widget_get_height (widget);
  gdk_paintable_snapshot (paintable, snapshot, *w, *h);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, *w, *h));
  gsk_render_node_unref (node);
  *stride = (gsize) gdk_texture_get_width (texture) * 4;
  pixels = g_malloc ((gsize) gdk_texture_get_height (texture) * *stride);
  gdk_texture_download (texture, pixels, *stride);
  return pixels;
}

static void
check_square (EfImageView *view, const EfGrid *grid, const Source *src)
{
  gsize stride;
  int w, h;
  g_autofree guint8 *px = grab (GTK_WIDGET (view), &w, &h, &stride);
  double pos[3], wx, wy;

  /* The middle of the bright square is white, and the background far from it is black. */
  ef_grid_pixel_position (grid, src->sq_x + 0.5 * src->sq_size, src->sq_y + 0.5 * src->sq_size, pos);
  ef_image_view_scene_to_widget (view, pos[0], pos[1], &wx, &wy);
  g_assert_cmpint ((int) wx, >, 0);
  g_assert_cmpint ((int) wx, <, w);
  g_assert_cmpint ((int) wy, >, 0);
  g_assert_cmpint ((int) wy, <, h);
  {
    const guint8 *p = px + (gsize) (int) wy * stride + (gsize) (int) wx * 4;
    g_test_message ("square centre at %.0f,%.0f: %u %u %u", wx, wy, p[0], p[1], p[2]);
    g_assert_cmpuint (p[0], >, 240);
    g_assert_cmpuint (p[1], >, 240);
    g_assert_cmpuint (p[2], >, 240);
  }
  ef_grid_pixel_position (grid, 4, grid->height - 5, pos);
  ef_image_view_scene_to_widget (view, pos[0], pos[1], &wx, &wy);
  {
    const guint8 *p = px + (gsize) (int) wy * stride + (gsize) (int) wx * 4;
    g_test_message ("background at %.0f,%.0f: %u %u %u", wx, wy, p[0], p[1], p[2]);
    g_assert_cmpuint (p[0], <, 16);
    g_assert_cmpuint (p[1], <, 16);
    g_assert_cmpuint (p[2], <, 16);
  }
}

static void
test_realize_unrealize (void)
{
  GtkWidget *window = gtk_window_new ();
  EfImageView *view = EF_IMAGE_VIEW (ef_image_view_new ());
  Source src = { 700, 500, 300, 200, 64, 0 };
  EfDisplayParams display;
  EfGrid grid;
  double box[4] = { -40, -30, 40, 30 };

  g_object_ref_sink (view);
  g_assert_true (ef_grid_init_roi (&grid, -35, -25, 35, 25, 0.1, NULL));
  g_assert_cmpuint (grid.width, ==, src.width);
  g_assert_cmpuint (grid.height, ==, src.height);

  /* Textures of 256 pixels at most: the 700 x 500 image must be split into 3 x 2 tiles and still line up. */
  ef_image_view_set_max_texture_size (view, 256);
  ef_display_params_init (&display);
  display.db_min = -40;
  display.db_max = 0;
  ef_image_view_set_display (view, &display);
  ef_image_view_set_layer (view, EF_LAYER_ROI, &grid, source_read, &src, NULL);
  ef_image_view_damage (view, EF_LAYER_ROI, &(EfRect) { 0, 0, grid.width, grid.height }, 1);

  gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  ef_image_view_set_scene_box (view, box);

  for (int round = 0; round < 3; round++)
    {
      guint reads_before = src.n_reads;

      wait_for (view_settled, view, 10000);
      spin (100);
      g_assert_null (ef_image_view_get_gl_error (view));
      g_assert_nonnull (ef_image_view_get_gl_description (view));
      g_test_message ("round %d: GL %s, %u reads", round, ef_image_view_get_gl_description (view), src.n_reads);
      g_assert_cmpuint (src.n_reads, >, reads_before);
      check_square (view, &grid, &src);

      /* Take the view out of the window and put it back: it is unrealized and realized again, and
       * every GL object must be rebuilt and refilled from the source. */
      gtk_window_set_child (GTK_WINDOW (window), NULL);
      g_assert_false (gtk_widget_get_realized (GTK_WIDGET (view)));
      spin (20);
      gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
    }

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_assert_finalize_object (view);
}

static void
test_uploads_budget (void)
{
  GtkWidget *window = gtk_window_new ();
  EfImageView *view = EF_IMAGE_VIEW (ef_image_view_new ());
  Source src = { 2048, 2048, 1000, 1000, 48, 0 };
  EfGrid grid;
  double box[4] = { -110, -110, 110, 110 };
  guint updates;

  g_object_ref_sink (view);
  g_assert_true (ef_grid_init_roi (&grid, -102.4, -102.4, 102.4, 102.4, 0.1, NULL));
  ef_image_view_set_layer (view, EF_LAYER_ROI, &grid, source_read, &src, NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  ef_image_view_set_scene_box (view, box);

  /* 4 M pixels are more than one frame's budget: they arrive over several frames, and then all of them. */
  ef_image_view_damage (view, EF_LAYER_ROI, &(EfRect) { 0, 0, grid.width, grid.height }, 1);
  wait_for (view_settled, view, 20000);
  updates = ef_image_view_get_n_updates (view, EF_LAYER_ROI);
  g_assert_cmpuint (updates, ==, 1);
  g_assert_cmpuint (src.n_reads, >=, 16);  /* 16 rows of cells, at least one read each */

  /* Damage in one corner uploads that cell alone. */
  src.n_reads = 0;
  ef_image_view_damage (view, EF_LAYER_ROI, &(EfRect) { 10, 10, 4, 4 }, 1);
  wait_for (view_settled, view, 5000);
  spin (50);
  g_assert_cmpuint (src.n_reads, ==, 1);
  g_assert_cmpuint (ef_image_view_get_n_updates (view, EF_LAYER_ROI), ==, updates + 1);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_assert_finalize_object (view);
}

static void
test_view_transform (void)
{
  GtkWidget *window = gtk_window_new ();
  EfImageView *view = EF_IMAGE_VIEW (ef_image_view_new ());
  double box[4] = { -50, -20, 50, 20 }, x, y, wx, wy, s0;

  g_object_ref_sink (view);
  gtk_window_set_default_size (GTK_WINDOW (window), 500, 400);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  spin (200);
  ef_image_view_set_scene_box (view, box);

  /* Fit: the 100 m wide box fills 95 % of the width, centred. */
  s0 = ef_image_view_get_scale (view);
  g_assert_cmpfloat_with_epsilon (s0, 0.95 * gtk_widget_get_width (GTK_WIDGET (view)) / 100.0, 1e-9);
  ef_image_view_scene_to_widget (view, 0, 0, &wx, &wy);
  g_assert_cmpfloat_with_epsilon (wx, 0.5 * gtk_widget_get_width (GTK_WIDGET (view)), 1e-9);

  /* North is up, east is right, and the inverse is exact. */
  ef_image_view_scene_to_widget (view, 10, 5, &wx, &wy);
  ef_image_view_widget_to_scene (view, wx, wy, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 10, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 5, 1e-9);
  {
    double ex, ey;
    ef_image_view_scene_to_widget (view, 0, 0, &ex, &ey);
    g_assert_cmpfloat (wx, >, ex);
    g_assert_cmpfloat (wy, <, ey);
  }

  /* Zooming about a point keeps that point still. */
  ef_image_view_scene_to_widget (view, 10, 5, &wx, &wy);
  ef_image_view_zoom_by (view, 3.0, wx, wy);
  ef_image_view_widget_to_scene (view, wx, wy, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 10, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 5, 1e-9);
  g_assert_cmpfloat_with_epsilon (ef_image_view_get_scale (view), 3 * s0, 1e-9);

  ef_image_view_pan_by (view, 20, -10);
  ef_image_view_widget_to_scene (view, wx + 20, wy - 10, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 10, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 5, 1e-9);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_assert_finalize_object (view);
}

static void
test_colormap (void)
{
  EfDisplayParams p;
  guint8 lut[EF_COLORMAP_LUT_SIZE * 4], rgb[3], prev = 0;

  /* Grey is the identity; the perceptual map's lightness rises; the cyclic map wraps without a seam. */
  ef_colormap_fill (EF_COLORMAP_GREY, lut);
  g_assert_cmpuint (lut[0], ==, 0);
  g_assert_cmpuint (lut[4 * 255], ==, 255);
  ef_colormap_fill (EF_COLORMAP_PERCEPTUAL, lut);
  for (guint i = 0; i < EF_COLORMAP_LUT_SIZE; i += 16)
    {
      guint8 l = (guint8) ((299 * lut[4 * i] + 587 * lut[4 * i + 1] + 114 * lut[4 * i + 2]) / 1000);
      g_assert_cmpuint (l, >=, prev);
      prev = l;
    }
  ef_colormap_fill (EF_COLORMAP_CYCLIC, lut);
  for (int c = 0; c < 3; c++)
    g_assert_cmpint (abs ((int) lut[c] - (int) lut[4 * 255 + c]), <=, 2);

  ef_display_params_init (&p);
  p.db_min = -40;
  p.db_max = 0;
  g_assert_cmpfloat_with_epsilon (ef_display_value (&p, 1.0f, 0.0f, 0.0), 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ef_display_value (&p, 0.1f, 0.0f, 0.0), 0.5, 1e-6);
  g_assert_cmpfloat_with_epsilon (ef_display_value (&p, 10.0f, 0.0f, -20.0), 1.0, 1e-6);
  p.mode = EF_VIEW_PHASE;
  g_assert_cmpfloat_with_epsilon (ef_display_value (&p, 0.0f, 1.0f, 0.0), 0.75, 1e-6);
  ef_colormap_lookup (EF_COLORMAP_GREY, 0.5, rgb);
  g_assert_cmpint (abs ((int) rgb[0] - 128), <=, 1);
}

static gboolean
view_realized (gpointer data)
{
  return gtk_widget_get_realized (data) && ef_image_view_get_display_path (data) != NULL;
}

/* Under Xvfb the GL renderer is Mesa's: the view must choose host uploads and say why, at every
 * realize, and the preference that forces host uploads must say so instead. */
static void
test_display_path (void)
{
  GtkWidget *window = gtk_window_new ();
  EfImageView *view = EF_IMAGE_VIEW (ef_image_view_new ());

  g_object_ref_sink (view);
  g_assert_null (ef_image_view_get_display_path (view));
  gtk_window_set_default_size (GTK_WINDOW (window), 320, 240);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  wait_for (view_realized, view, 10000);
  g_test_message ("%s", ef_image_view_get_display_path (view));
  g_assert_cmpint (ef_image_view_get_shared_device (view), ==, -1);
  g_assert_true (g_str_has_prefix (ef_image_view_get_display_path (view), "host upload, because "));
  g_assert_null (strstr (ef_image_view_get_display_path (view), "preferences"));

  ef_image_view_set_force_host_upload (view, TRUE);
  g_assert_cmpstr (ef_image_view_get_display_path (view), ==, "host upload, because the preferences ask for it");
  /* Chosen again at the next realize, with the preference still in force. */
  gtk_window_set_child (GTK_WINDOW (window), NULL);
  spin (20);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  wait_for (view_realized, view, 10000);
  g_assert_cmpstr (ef_image_view_get_display_path (view), ==, "host upload, because the preferences ask for it");
  ef_image_view_set_force_host_upload (view, FALSE);
  g_assert_null (strstr (ef_image_view_get_display_path (view), "preferences"));
  g_assert_cmpint (ef_image_view_get_shared_device (view), ==, -1);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_assert_finalize_object (view);
}

/* ---- drawing on the processor ------------------------------------------------------------------- */

/* A smooth source (magnitude in dB a slow ramp across the image, plus a ripple), so that the processor's
 * picture and the shader's can be compared pixel by pixel even where they round a coordinate apart. */
typedef struct {
  guint width, height;
  guint n_reads, n_value_reads;
} Smooth;

static float
smooth_db (const Smooth *s, guint x, guint y)
{
  return -40.0f + 35.0f * (float) x / s->width + 4.0f * sinf (0.02f * (float) y);
}

static gboolean
smooth_read (gpointer data, const EfRect *rect, EfCf32 *out, GError **error)
{
  Smooth *s = data;

  s->n_reads++;
  for (guint r = 0; r < rect->height; r++)
    for (guint c = 0; c < rect->width; c++)
      out[(gsize) r * rect->width + c] = powf (10.0f, smooth_db (s, rect->x + c, rect->y + r) / 20.0f);
  return TRUE;
}

/* Prepared display values (magnitude only), as a job's helper thread would hand them. */
static gboolean
smooth_values (gpointer data, EfViewMode mode, const EfRect *rect, float *out)
{
  Smooth *s = data;

  if (mode != EF_VIEW_MAGNITUDE)
    return FALSE;
  s->n_value_reads++;
  for (guint r = 0; r < rect->height; r++)
    for (guint c = 0; c < rect->width; c++)
      out[(gsize) r * rect->width + c] = smooth_db (s, rect->x + c, rect->y + r);
  return TRUE;
}

static gboolean
view_settled_any (gpointer data)
{
  return gtk_widget_get_realized (data) && ef_image_view_is_settled (data)
         && ef_image_view_get_n_updates (data, EF_LAYER_OVERVIEW) > 0;
}

/* Grabs the view drawn one way, then the other (GL, then on the processor), and counts pixels that differ. */
static void
compare_soft_gl (EfImageView *view, double *frac_off, int *max_diff)
{
  gsize stride_gl, stride_soft;
  int w, h, w2, h2;
  g_autofree guint8 *gl = NULL;
  g_autofree guint8 *soft = NULL;
  guint64 off = 0, n = 0;

  ef_image_view_set_force_soft (view, FALSE);
  wait_for (view_settled_any, view, 10000);
  spin (100);
  gl = grab (GTK_WIDGET (view), &w, &h, &stride_gl);
  g_assert_false (ef_image_view_is_soft (view));
  ef_image_view_set_force_soft (view, TRUE);
  spin (100);
  wait_for (view_settled_any, view, 10000);
  soft = grab (GTK_WIDGET (view), &w2, &h2, &stride_soft);
  g_assert_true (ef_image_view_is_soft (view));
  g_assert_cmpint (w, ==, w2);
  g_assert_cmpint (h, ==, h2);
  *max_diff = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++)
        {
          int d = abs ((int) gl[(gsize) y * stride_gl + 4 * x + c]
                       - (int) soft[(gsize) y * stride_soft + 4 * x + c]);

          *max_diff = MAX (*max_diff, d);
          off += d > 0;
          n++;
        }
  *frac_off = (double) off / n;
}

/* The layers drawn on the processor (what the cairo renderer uses) look like the shader's, zoomed in
 * (nearest pixel) and zoomed out (power averaged over the footprint), with any colour map; display
 * values from the source are used as they are, with no complex read. */
static void
test_soft_drawing (void)
{
  GtkWidget *window = gtk_window_new ();
  EfImageView *view = EF_IMAGE_VIEW (ef_image_view_new ());
  Smooth src = { 600, 400, 0, 0 };
  EfDisplayParams display;
  EfGrid grid;
  double box[4] = { -30, -20, 30, 20 }, frac;
  int max_diff;

  if (g_strcmp0 (g_getenv ("GSK_RENDERER"), "cairo") == 0)
    {
      /* GTK's cairo renderer draws on the processor whatever is asked: there is no GL picture to compare. */
      g_test_skip ("the cairo renderer draws the view on the processor only");
      gtk_window_destroy (GTK_WINDOW (window));
      g_object_unref (g_object_ref_sink (view));
      return;
    }
  g_object_ref_sink (view);
  g_assert_true (ef_grid_init_roi (&grid, -30, -20, 30, 20, 0.1, NULL));
  g_assert_cmpuint (grid.width, ==, src.width);
  ef_display_params_init (&display);
  display.db_min = -45;
  display.db_max = 0;
  display.gamma = 1.5;
  ef_image_view_set_display (view, &display);
  ef_image_view_set_layer (view, EF_LAYER_OVERVIEW, &grid, smooth_read, &src, NULL);
  ef_image_view_set_layer_values (view, EF_LAYER_OVERVIEW, smooth_values);
  ef_image_view_damage (view, EF_LAYER_OVERVIEW, &(EfRect) { 0, 0, grid.width, grid.height }, 1);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  ef_image_view_set_scene_box (view, box);

  /* Zoomed out: 600 pixels across some 600 widget pixels, then a third of that. */
  for (int pass = 0; pass < 3; pass++)
    {
      if (pass == 1)
        ef_image_view_zoom_by (view, 1.0 / 3.0, -1, -1);
      if (pass == 2)
        {
          /* Zoomed in 4x on the middle, in colour. */
          ef_image_view_zoom_fit (view);
          ef_image_view_zoom_by (view, 4.0, -1, -1);
          display.colormap = EF_COLORMAP_PERCEPTUAL;
          ef_image_view_set_display (view, &display);
        }
      compare_soft_gl (view, &frac, &max_diff);
      g_test_message ("pass %d (scale %.2f px/m): %.4f%% of channels differ, by at most %d", pass,
                      ef_image_view_get_scale (view), 100 * frac, max_diff);
      /* tests/bench/RESULTS.md: the two pictures are at most 1 grey level apart (rounding). */
      g_assert_cmpint (max_diff, <=, 1);
    }
  /* Every cell came as prepared values. */
  g_assert_cmpuint (src.n_value_reads, >, 0);
  g_assert_cmpuint (src.n_reads, ==, 0);

  /* Phase: the source has no prepared values for it, so the view converts what it reads. */
  display.mode = EF_VIEW_PHASE;
  display.colormap = EF_COLORMAP_CYCLIC;
  ef_image_view_set_display (view, &display);
  wait_for (view_settled_any, view, 10000);
  spin (50);
  g_assert_cmpuint (src.n_reads, >, 0);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_assert_finalize_object (view);
}

/* ---- input ----------------------------------------------------------------------------------------- */

typedef struct {
  guint  n_edits;
  double roi[4];
  guint  n_picks;
  double pick[2];
} Edits;

static void
roi_edited (EfImageView *view, double x0, double y0, double x1, double y1, Edits *e)
{
  e->n_edits++;
  e->roi[0] = x0;
  e->roi[1] = y0;
  e->roi[2] = x1;
  e->roi[3] = y1;
}

static void
point_picked (EfImageView *view, double x, double y, Edits *e)
{
  e->n_picks++;
  e->pick[0] = x;
  e->pick[1] = y;
}

static gboolean
view_allocated (gpointer data)
{
  return gtk_widget_get_realized (data) && gtk_widget_get_width (data) > 100;
}

static EfImageView *
input_view (GtkWidget **window)
{
  EfImageView *view = EF_IMAGE_VIEW (ef_image_view_new ());
  double box[4] = { -50, -20, 50, 20 };

  g_object_ref_sink (view);
  *window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (*window), 500, 400);
  gtk_window_set_child (GTK_WINDOW (*window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (*window));
  wait_for (view_allocated, view, 10000);
  spin (50);
  ef_image_view_set_scene_box (view, box);
  return view;
}

static void
assert_box (const double got[4], double x0, double y0, double x1, double y1, double tol)
{
  g_test_message ("box %.4f %.4f %.4f %.4f, expected %.4f %.4f %.4f %.4f", got[0], got[1], got[2], got[3], x0,
                  y0, x1, y1);
  g_assert_cmpfloat (fabs (got[0] - x0), <=, tol);
  g_assert_cmpfloat (fabs (got[1] - y0), <=, tol);
  g_assert_cmpfloat (fabs (got[2] - x1), <=, tol);
  g_assert_cmpfloat (fabs (got[3] - y1), <=, tol);
}

/* A drag with the region tool draws a ROI; dragging inside it moves it, a handle resizes it, Esc cancels
 * an edit in flight, and a click draws nothing. Widget offsets are whole metres times the scale, so the
 * ROI lands on exact numbers of metres and of pixels at the view's spacing. */
static void
test_input_roi (void)
{
  GtkWidget *window;
  EfImageView *view = input_view (&window);
  Edits e = { 0 };
  double s, wx, wy, roi[4], edit[4];

  g_signal_connect (view, "roi-edited", G_CALLBACK (roi_edited), &e);
  ef_image_view_set_tool (view, EF_TOOL_REGION);
  ef_image_view_set_roi_spacing (view, 0.1);
  s = ef_image_view_get_scale (view);

  /* Create: from (-10, 5) to (10, -5), dragged down and right. */
  ef_image_view_scene_to_widget (view, -10, 5, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_update (view, 10 * s, 5 * s);
  g_assert_true (ef_image_view_get_edit_roi (view, edit));
  assert_box (edit, -10, 0, 0, 5, 1e-9);
  ef_image_view_input_drag_update (view, 20 * s, 10 * s);
  g_assert_false (ef_image_view_get_roi (view, NULL));
  ef_image_view_input_drag_end (view, 20 * s, 10 * s);
  g_assert_false (ef_image_view_get_edit_roi (view, NULL));
  g_assert_cmpuint (e.n_edits, ==, 1);
  assert_box (e.roi, -10, -5, 10, 5, 1e-9);
  g_assert_true (ef_image_view_get_roi (view, roi));
  assert_box (roi, -10, -5, 10, 5, 1e-9);
  /* 20 m x 10 m at 0.1 m: 200 x 100 pixels. */
  g_assert_cmpfloat_with_epsilon ((roi[2] - roi[0]) / 0.1, 200, 1e-6);
  g_assert_cmpfloat_with_epsilon ((roi[3] - roi[1]) / 0.1, 100, 1e-6);

  /* Move: grab the middle, 2 m east and 1 m north. */
  ef_image_view_scene_to_widget (view, 0, 0, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_update (view, 2 * s, -1 * s);
  ef_image_view_input_drag_end (view, 2 * s, -1 * s);
  g_assert_cmpuint (e.n_edits, ==, 2);
  assert_box (e.roi, -8, -4, 12, 6, 1e-9);

  /* Resize by the handle in the middle of the east edge: 3 m further east; the rest stays. */
  ef_image_view_scene_to_widget (view, 12, 1, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx + 2, wy - 1);
  ef_image_view_input_drag_update (view, 3 * s, 0);
  ef_image_view_input_drag_end (view, 3 * s, 0);
  g_assert_cmpuint (e.n_edits, ==, 3);
  assert_box (e.roi, -8, -4, 15, 6, 1e-9);

  /* Resize by the north-west corner: 1 m west and 2 m north. */
  ef_image_view_scene_to_widget (view, -8, 6, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx - 1, wy + 1);
  ef_image_view_input_drag_update (view, -1 * s, -2 * s);
  ef_image_view_input_drag_end (view, -1 * s, -2 * s);
  g_assert_cmpuint (e.n_edits, ==, 4);
  assert_box (e.roi, -9, -4, 15, 8, 1e-9);

  /* A handle dragged past the opposite edge turns the box over, and it stays a box. */
  ef_image_view_scene_to_widget (view, 15, 2, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_end (view, -30 * s, 0);
  g_assert_cmpuint (e.n_edits, ==, 5);
  assert_box (e.roi, -15, -4, -9, 8, 1e-9);

  /* Esc in the middle of a move: no edit, the ROI as it was, and the drag's end changes nothing. */
  ef_image_view_scene_to_widget (view, -12, 2, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_update (view, 10 * s, 10 * s);
  g_assert_true (ef_image_view_get_edit_roi (view, edit));
  assert_box (edit, -5, -14, 1, -2, 1e-9);
  g_assert_true (ef_image_view_input_key (view, GDK_KEY_Escape, 0));
  g_assert_false (ef_image_view_get_edit_roi (view, NULL));
  ef_image_view_input_drag_end (view, 10 * s, 10 * s);
  g_assert_cmpuint (e.n_edits, ==, 5);
  g_assert_true (ef_image_view_get_roi (view, roi));
  assert_box (roi, -15, -4, -9, 8, 1e-9);
  /* Esc with nothing in flight is not the view's. */
  g_assert_false (ef_image_view_input_key (view, GDK_KEY_Escape, 0));

  /* Esc while drawing a new ROI from outside the old one keeps the old one. */
  ef_image_view_scene_to_widget (view, 20, 10, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_update (view, 50, 50);
  g_assert_true (ef_image_view_input_key (view, GDK_KEY_Escape, 0));
  ef_image_view_input_drag_end (view, 50, 50);
  g_assert_cmpuint (e.n_edits, ==, 5);
  g_assert_true (ef_image_view_get_roi (view, roi));
  assert_box (roi, -15, -4, -9, 8, 1e-9);

  /* A click (under 3 pixels of drag) outside the ROI draws no region. */
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_end (view, 2, 2);
  g_assert_cmpuint (e.n_edits, ==, 5);

  /* Ctrl-drag draws a new region even with the pan tool, and even from inside the old one. */
  ef_image_view_set_tool (view, EF_TOOL_PAN);
  ef_image_view_scene_to_widget (view, -12, 2, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, GDK_CONTROL_MASK, wx, wy);
  ef_image_view_input_drag_end (view, 4 * s, 4 * s);
  g_assert_cmpuint (e.n_edits, ==, 6);
  assert_box (e.roi, -12, -2, -8, 2, 1e-9);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_assert_finalize_object (view);
}

/* Panning by drag keeps the grabbed scene point under the pointer; the wheel, a touchpad and a pinch zoom
 * about the pointer or the fingers; the measure tool's click picks the point under it. */
static void
test_input_navigation (void)
{
  GtkWidget *window;
  EfImageView *view = input_view (&window);
  Edits e = { 0 };
  double s0, wx, wy, x, y, cx, cy;

  g_signal_connect (view, "point-picked", G_CALLBACK (point_picked), &e);
  s0 = ef_image_view_get_scale (view);

  /* Pan: the point at the drag's start follows the pointer, all the way. */
  ef_image_view_scene_to_widget (view, 7, 3, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_update (view, 30, -12);
  ef_image_view_widget_to_scene (view, wx + 30, wy - 12, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 7, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 3, 1e-9);
  ef_image_view_input_drag_update (view, -45, 20);
  ef_image_view_input_drag_end (view, -45, 20);
  ef_image_view_widget_to_scene (view, wx - 45, wy + 20, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 7, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 3, 1e-9);
  g_assert_cmpfloat_with_epsilon (ef_image_view_get_scale (view), s0, 1e-12);

  /* The middle button pans whatever the tool, and draws no region. */
  ef_image_view_set_tool (view, EF_TOOL_REGION);
  ef_image_view_scene_to_widget (view, 0, 0, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_MIDDLE, 0, wx, wy);
  ef_image_view_input_drag_update (view, 25, 25);
  ef_image_view_input_drag_end (view, 25, 25);
  ef_image_view_widget_to_scene (view, wx + 25, wy + 25, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 0, 1e-9);
  g_assert_false (ef_image_view_get_roi (view, NULL));

  /* Wheel: one notch towards the user zooms in by 1.2 about the pointer. */
  ef_image_view_scene_to_widget (view, -12, 4, &wx, &wy);
  ef_image_view_input_motion (view, wx, wy);
  g_assert_true (ef_image_view_input_scroll (view, GDK_SCROLL_UNIT_WHEEL, -1));
  g_assert_cmpfloat_with_epsilon (ef_image_view_get_scale (view), 1.2 * s0, 1e-9 * s0);
  ef_image_view_widget_to_scene (view, wx, wy, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, -12, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 4, 1e-9);
  /* A touchpad's 40 pixels are two notches out. */
  g_assert_true (ef_image_view_input_scroll (view, GDK_SCROLL_UNIT_SURFACE, 40));
  g_assert_cmpfloat_with_epsilon (ef_image_view_get_scale (view), 1.2 * s0 / 1.44, 1e-9 * s0);
  ef_image_view_widget_to_scene (view, wx, wy, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, -12, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 4, 1e-9);
  /* With the pointer gone, about the middle. */
  ef_image_view_input_leave (view);
  cx = 0.5 * gtk_widget_get_width (GTK_WIDGET (view));
  cy = 0.5 * gtk_widget_get_height (GTK_WIDGET (view));
  ef_image_view_widget_to_scene (view, cx, cy, &x, &y);
  ef_image_view_input_scroll (view, GDK_SCROLL_UNIT_WHEEL, 1);
  {
    double x2, y2;
    ef_image_view_widget_to_scene (view, cx, cy, &x2, &y2);
    g_assert_cmpfloat_with_epsilon (x2, x, 1e-9);
    g_assert_cmpfloat_with_epsilon (y2, y, 1e-9);
  }

  /* Pinch: the scale follows the fingers' spread from where the pinch began, about their centre. */
  s0 = ef_image_view_get_scale (view);
  ef_image_view_scene_to_widget (view, 5, -5, &wx, &wy);
  ef_image_view_input_pinch_begin (view);
  ef_image_view_input_pinch (view, 2.0, wx, wy);
  g_assert_cmpfloat_with_epsilon (ef_image_view_get_scale (view), 2 * s0, 1e-9 * s0);
  ef_image_view_input_pinch (view, 1.5, wx, wy);
  g_assert_cmpfloat_with_epsilon (ef_image_view_get_scale (view), 1.5 * s0, 1e-9 * s0);
  ef_image_view_widget_to_scene (view, wx, wy, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 5, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, -5, 1e-9);

  /* Keys: an arrow moves the view 48 pixels, minus zooms out about the middle. */
  s0 = ef_image_view_get_scale (view);
  ef_image_view_widget_to_scene (view, cx, cy, &x, &y);
  g_assert_true (ef_image_view_input_key (view, GDK_KEY_Right, 0));
  {
    double x2, y2;
    ef_image_view_widget_to_scene (view, cx, cy, &x2, &y2);
    g_assert_cmpfloat_with_epsilon (x2 - x, 48 / s0, 1e-9);
    g_assert_cmpfloat_with_epsilon (y2, y, 1e-9);
  }
  g_assert_true (ef_image_view_input_key (view, GDK_KEY_minus, 0));
  g_assert_cmpfloat_with_epsilon (ef_image_view_get_scale (view), 0.8 * s0, 1e-9 * s0);

  /* Measure tool: a click picks the point under it; a drag that moves pans instead. */
  ef_image_view_set_tool (view, EF_TOOL_MEASURE);
  ef_image_view_scene_to_widget (view, 3, -2, &wx, &wy);
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_end (view, 1, 0);
  g_assert_cmpuint (e.n_picks, ==, 1);
  g_assert_cmpfloat (fabs (e.pick[0] - 3), <, 2 / ef_image_view_get_scale (view));
  g_assert_cmpfloat (fabs (e.pick[1] + 2), <, 2 / ef_image_view_get_scale (view));
  ef_image_view_input_drag_begin (view, GDK_BUTTON_PRIMARY, 0, wx, wy);
  ef_image_view_input_drag_update (view, 40, 0);
  ef_image_view_input_drag_end (view, 40, 0);
  g_assert_cmpuint (e.n_picks, ==, 1);
  ef_image_view_widget_to_scene (view, wx + 40, wy, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 3, 1e-9);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_assert_finalize_object (view);
}

/* Which GL renderers draw on the processor (the application then asks GTK for its cairo renderer). */
static void
test_software_names (void)
{
  g_assert_true (ef_gl_renderer_name_is_software ("llvmpipe (LLVM 15.0.6, 256 bits)"));
  g_assert_true (ef_gl_renderer_name_is_software ("softpipe"));
  g_assert_true (ef_gl_renderer_name_is_software ("Mesa X11 swrast"));
  g_assert_false (ef_gl_renderer_name_is_software ("NVIDIA H200/PCIe/SSE2"));
  g_assert_false (ef_gl_renderer_name_is_software ("AMD Radeon RX 6600 (radeonsi, navi23, LLVM 15.0.6)"));
  g_assert_false (ef_gl_renderer_name_is_software ("Mesa Intel(R) UHD Graphics 620 (KBL GT2)"));
  g_assert_false (ef_gl_renderer_name_is_software (NULL));
}

int
main (int argc, char *argv[])
{
  ef_test_isolate_user_dirs ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/gui/colormap/values", test_colormap);
  g_test_add_func ("/gui/renderer/software-names", test_software_names);
  g_test_add_func ("/gui/image-view/transform", test_view_transform);
  g_test_add_func ("/gui/image-view/realize-unrealize-tiled", test_realize_unrealize);
  g_test_add_func ("/gui/image-view/upload-budget", test_uploads_budget);
  g_test_add_func ("/gui/image-view/display-path", test_display_path);
  g_test_add_func ("/gui/image-view/soft-drawing", test_soft_drawing);
  g_test_add_func ("/gui/image-view/input/roi", test_input_roi);
  g_test_add_func ("/gui/image-view/input/navigation", test_input_navigation);
  return g_test_run ();
}
