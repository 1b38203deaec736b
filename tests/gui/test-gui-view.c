/* test-gui-view.c: the image view's GL life cycle, tiled textures and colours on screen. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-view"
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "ef-colormap.h"
#include "ef-gui-test-util.h"
#include "ef-image-view.h"

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

int
main (int argc, char *argv[])
{
  ef_test_isolate_user_dirs ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/gui/colormap/values", test_colormap);
  g_test_add_func ("/gui/image-view/transform", test_view_transform);
  g_test_add_func ("/gui/image-view/realize-unrealize-tiled", test_realize_unrealize);
  g_test_add_func ("/gui/image-view/upload-budget", test_uploads_budget);
  g_test_add_func ("/gui/image-view/display-path", test_display_path);
  return g_test_run ();
}
