/* ef-gui-screenshot.h: a window as drawn, saved as PNG when EF_SCREENSHOT_DIR names a folder. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

/* With EF_SCREENSHOT_DIR set, the window as drawn, into that folder as name; nothing otherwise. */
static inline void
screenshot (GtkWidget *window, const char *name)
{
  const char *dir = g_getenv ("EF_SCREENSHOT_DIR");
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  GtkSnapshot *snap;
  GskRenderNode *node;
  int w, h;

  if (dir == NULL)
    return;
  gtk_test_widget_wait_for_draw (window);
  w = gtk_widget_get_width (window);
  h = gtk_widget_get_height (window);
  paintable = gtk_widget_paintable_new (window);
  snap = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snap, w, h);
  node = gtk_snapshot_free_to_node (snap);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("saved %s", path);
}
