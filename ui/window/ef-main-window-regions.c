/* ef-main-window-regions.c: the regions a collection holds: kept, remembered, formed again and compared. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>

#include "ef-compare-window.h"
#include "ef-main-window-private.h"

/*
 * The region in view is formed by roi_runner. "Keep" copies it, image and all, into the list with its
 * processing; the list (boxes and processing, not images) is remembered in the collection's session.
 * Any two kept images compare in their own window: two regions over their overlap, or one region
 * formed two ways (another window, algorithm, precision) pixel for pixel. A region remembered from an
 * earlier session has no image until it is formed again ("restore-region").
 */

void
ef_main_window_regions_clear (EfMainWindow *self)
{
  for (guint i = 0; i < EF_SESSION_MAX_REGIONS; i++)
    g_clear_pointer (&self->region_images[i], ef_image_free);
  self->n_regions = 0;
}

void
ef_main_window_regions_to_state (EfMainWindow *self, EfSessionState *state)
{
  state->n_regions = self->n_regions;
  memcpy (state->regions, self->regions, self->n_regions * sizeof (EfSessionRegion));
}

void
ef_main_window_regions_from_state (EfMainWindow *self, const EfSessionState *state)
{
  ef_main_window_regions_clear (self);
  self->n_regions = MIN (state->n_regions, (guint) EF_SESSION_MAX_REGIONS);
  memcpy (self->regions, state->regions, self->n_regions * sizeof (EfSessionRegion));
}

guint
ef_main_window_get_n_regions (EfMainWindow *self)
{
  return self->n_regions;
}

const EfImage *
ef_main_window_get_region_image (EfMainWindow *self, guint index)
{
  return index < self->n_regions ? self->region_images[index] : NULL;
}

const EfSessionRegion *
ef_main_window_get_region (EfMainWindow *self, guint index)
{
  return index < self->n_regions ? &self->regions[index] : NULL;
}

/* A short name for what the region was formed with: "bp fp32, taylor × hann". */
static void
describe (const EfProcessing *p, guint n, char *out, gsize size)
{
  g_snprintf (out, size, "%u: %s %s, %s × %s", n + 1, ef_algo_to_string (p->algo), ef_precision_to_string (p->precision),
              ef_window_to_string (p->window), ef_window_to_string (p->az_window));
}

gboolean
ef_main_window_keep_region (EfMainWindow *self, GError **error)
{
  const EfRunnerProgress *p;
  const EfGrid *grid;
  EfSessionRegion *r;
  g_autoptr (EfImage) image = NULL;
  EfRect all;
  guint i;

  if (self->roi_runner == NULL || !self->has_roi)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no region to keep; draw one first"));
      return FALSE;
    }
  p = ef_job_runner_get_progress (self->roi_runner);
  if (p->state != EF_JOB_DONE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, _("The region is still forming"));
      return FALSE;
    }
  if (self->n_regions == EF_SESSION_MAX_REGIONS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, _("A collection keeps %d regions at most"),
                   EF_SESSION_MAX_REGIONS);
      return FALSE;
    }
  grid = ef_job_runner_get_grid (self->roi_runner);
  image = ef_image_new (grid, error);
  all = (EfRect) { 0, 0, grid->width, grid->height };
  if (image == NULL || !ef_job_runner_read (self->roi_runner, &all, image->data, error))
    return FALSE;
  i = self->n_regions++;
  r = &self->regions[i];
  memset (r, 0, sizeof *r);
  memcpy (r->roi, self->roi, sizeof r->roi);
  r->proc = self->proc;
  describe (&self->proc, i, r->label, sizeof r->label);
  self->region_images[i] = g_steal_pointer (&image);
  ef_main_window_queue_session_save (self);
  return TRUE;
}

gboolean
ef_main_window_compare_regions (EfMainWindow *self, guint a, guint b, GError **error)
{
  EfCompareWindow *win;

  if (a >= self->n_regions || b >= self->n_regions || a == b)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Keep two regions to compare them"));
      return FALSE;
    }
  if (self->region_images[a] == NULL || self->region_images[b] == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("Region %u was remembered from an earlier session; form it again and keep it"),
                   self->region_images[a] == NULL ? a + 1 : b + 1);
      return FALSE;
    }
  {
    const char *labels[EF_SESSION_MAX_REGIONS];

    for (guint i = 0; i < self->n_regions; i++)
      labels[i] = self->regions[i].label;
    /* Every kept region is offered, so that any two can be chosen once the window is open. */
    win = ef_compare_window_new_list (GTK_WINDOW (self), (const EfImage *const *) self->region_images, labels,
                                      self->n_regions, a, b);
  }
  g_clear_object (&self->compare_window);
  self->compare_window = GTK_WINDOW (g_object_ref (win));
  gtk_window_present (GTK_WINDOW (win));
  return TRUE;
}

gboolean
ef_main_window_restore_region (EfMainWindow *self, guint index, GError **error)
{
  if (index >= self->n_regions)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("There is no region %u"), index + 1);
      return FALSE;
    }
  self->proc = self->regions[index].proc;
  ef_processing_panel_set (self->processing_panel, &self->proc, ef_main_window_get_roi_spacing (self));
  ef_main_window_set_roi (self, self->regions[index].roi);
  return TRUE;
}

/* ---- actions ---- */

static void
say (EfMainWindow *self, gboolean ok, GError *error, const char *done)
{
  ef_main_window_toast (self, ok ? done : error->message);
}

static void
keep_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *msg = NULL;
  gboolean ok = ef_main_window_keep_region (self, &error);

  if (ok)
    msg = g_strdup_printf (_("Kept region %s"), self->regions[self->n_regions - 1].label);
  say (self, ok, error, msg);
}

/* "i,j" (1-based, as the regions are named), or "" for the last two kept. */
static void
compare_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = user_data;
  g_autoptr (GError) error = NULL;
  const char *s = g_variant_get_string (param, NULL);
  guint a = self->n_regions >= 2 ? self->n_regions - 2 : 0, b = self->n_regions >= 1 ? self->n_regions - 1 : 0;
  gboolean ok;

  if (s[0] != '\0')
    {
      unsigned ia = 0, ib = 0;

      if (sscanf (s, "%u,%u", &ia, &ib) != 2 || ia == 0 || ib == 0)
        {
          ef_main_window_toast (self, _("Name two regions to compare, as 1,2"));
          return;
        }
      a = ia - 1;
      b = ib - 1;
    }
  ok = ef_main_window_compare_regions (self, a, b, &error);
  if (!ok)
    say (self, ok, error, NULL);
}

static void
restore_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *self = user_data;
  g_autoptr (GError) error = NULL;
  guint i = g_variant_get_uint32 (param);

  if (i == 0 || !ef_main_window_restore_region (self, i - 1, &error))
    ef_main_window_toast (self, error != NULL ? error->message : _("Regions are numbered from 1"));
}

void
ef_main_window_regions_add_actions (EfMainWindow *self)
{
  static const GActionEntry entries[] = {
    { "keep-region", keep_activated, NULL },
    { "compare-regions", compare_activated, "s" },
    { "restore-region", restore_activated, "u" },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
}
