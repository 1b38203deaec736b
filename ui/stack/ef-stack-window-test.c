/* ef-stack-window-test.c: test-only access to the stack window. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-stack-window"
#include "config.h"

#include "ef-stack-window-private.h"
#include "ef-stack-window-test.h"

gboolean
ef_stack_window_test_is_loaded (EfStackWindow *self)
{
  return self->loaded;
}

int
ef_stack_window_test_n_candidates (EfStackWindow *self)
{
  return self->an != NULL ? (int) self->an->net->candidates->len : -1;
}

void
ef_stack_window_test_click_pixel (EfStackWindow *self, double col, double row)
{
  double x0, y0, s;
  GtkEventController *click = NULL;
  GListModel *controllers = gtk_widget_observe_controllers (self->map);

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && click == NULL; i++)
    {
      GtkEventController *c = g_list_model_get_item (controllers, i);

      if (GTK_IS_GESTURE_CLICK (c))
        click = c;
      else
        g_object_unref (c);
    }
  g_object_unref (controllers);
  g_assert (click != NULL);
  ef_stack_window_map_geometry (self, &x0, &y0, &s);
  /* The gesture's own signal, as a press on the map would emit it. */
  g_signal_emit_by_name (click, "pressed", 1, x0 + col * s, y0 + row * s);
  g_object_unref (click);
}

gboolean
ef_stack_window_test_selected (EfStackWindow *self, guint *col, guint *row, guint *n_points, guint *n_truth)
{
  EfPsCandidate *c;

  if (self->selected < 0)
    return FALSE;
  c = &g_array_index (self->an->net->candidates, EfPsCandidate, self->selected);
  *col = c->col;
  *row = c->row;
  *n_points = self->n_series;
  *n_truth = self->truth_mm != NULL ? self->n_series : 0;
  return TRUE;
}

void
ef_stack_window_test_set_layer (EfStackWindow *self, guint layer)
{
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->layer_button), layer == 1);
}
