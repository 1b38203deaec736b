/* ef-main-window-classroom.c: win.classroom: the classroom window, on the collection open or the classroom scene. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>

#include "ef-classroom-window.h"
#include "ef-main-window-private.h"

/* The lesson's region of a collection: the region drawn, or 256 pixels about the scene centre at
 * 2.5 pixels a resolution cell; either way at most 256 pixels a side. */
static gboolean
lesson_grid (EfMainWindow *self, EfGrid *grid, GError **error)
{
  const double edge = 256;

  if (self->has_roi)
    {
      double w = self->roi[2] - self->roi[0], h = self->roi[3] - self->roi[1];

      return ef_grid_init_roi (grid, self->roi[0], self->roi[1], self->roi[2], self->roi[3], MAX (w, h) / edge,
                               error);
    }
  {
    double rr = 0, cr = 0, sp, half;

    ef_dataset_ground_resolution (self->dataset, &rr, &cr);
    sp = MIN (rr > 0 ? rr : 1.0, cr > 0 ? cr : 1.0) / 2.5;
    half = 0.5 * edge * sp;
    return ef_grid_init_roi (grid, -half, -half, half, half, sp, error);
  }
}

static void
classroom_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (user_data);
  EfClassroomWindow *w = ef_classroom_window_new (GTK_WINDOW (self));
  g_autoptr (GError) error = NULL;
  EfGrid grid;

  if (self->dataset != NULL && lesson_grid (self, &grid, &error))
    ef_classroom_window_open_dataset (w, self->dataset, &grid);
  else
    ef_classroom_window_open_demo (w);
  gtk_window_present (GTK_WINDOW (w));
}

void
ef_main_window_classroom_add_actions (EfMainWindow *self)
{
  static const GActionEntry entries[] = {
    { "classroom", classroom_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
}
