/* ef-compare-window.c: a window comparing two formed images: side by side, swipe, dB difference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-compare-window"
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ef-compare-window.h"

struct _EfCompareWindow {
  AdwWindow      parent_instance;

  EfCompareView *view;    /* borrowed: a child */
  GtkDropDown   *mode;    /* borrowed */
  GtkScale      *swipe;   /* borrowed */
  GtkDropDown   *pick[2]; /* borrowed: which entries are A and B */
  GPtrArray     *images;  /* owned: EfImage or NULL, one an entry */
  GPtrArray     *labels;  /* owned: char * */
  guint          updating;
};

G_DEFINE_FINAL_TYPE (EfCompareWindow, ef_compare_window, ADW_TYPE_WINDOW)

static void
mode_changed (GtkDropDown *dd, GParamSpec *pspec, EfCompareWindow *self)
{
  EfCompareMode mode = (EfCompareMode) gtk_drop_down_get_selected (dd);

  ef_compare_view_set_mode (self->view, mode);
  gtk_widget_set_visible (GTK_WIDGET (self->swipe), mode == EF_COMPARE_SWIPE);
}

static void
swipe_changed (GtkRange *range, EfCompareWindow *self)
{
  ef_compare_view_set_swipe (self->view, gtk_range_get_value (range));
}

static void
show_picked (EfCompareWindow *self)
{
  guint a = gtk_drop_down_get_selected (self->pick[0]), b = gtk_drop_down_get_selected (self->pick[1]);

  if (self->updating || a >= self->images->len || b >= self->images->len)
    return;
  ef_compare_view_set_images (self->view, g_ptr_array_index (self->images, a), g_ptr_array_index (self->labels, a),
                              g_ptr_array_index (self->images, b), g_ptr_array_index (self->labels, b));
}

static void
pick_changed (GtkDropDown *dd, GParamSpec *pspec, EfCompareWindow *self)
{
  show_picked (self);
}

static void
ef_compare_window_finalize (GObject *object)
{
  EfCompareWindow *self = EF_COMPARE_WINDOW (object);

  g_ptr_array_unref (self->images);
  g_ptr_array_unref (self->labels);
  G_OBJECT_CLASS (ef_compare_window_parent_class)->finalize (object);
}

static void
ef_compare_window_class_init (EfCompareWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ef_compare_window_finalize;
}

static void
image_free (gpointer p)
{
  if (p != NULL)
    ef_image_free (p);
}

static void
ef_compare_window_init (EfCompareWindow *self)
{
  /* The orders match EfCompareMode. */
  const char *modes[] = { _("Side by side"), _("Swipe"), _("Difference (dB)"), NULL };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();

  self->view = EF_COMPARE_VIEW (ef_compare_view_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->view), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->view), TRUE);
  self->mode = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (modes));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->mode), _("How the two images are shown"));
  self->swipe = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 0.01));
  gtk_range_set_value (GTK_RANGE (self->swipe), 0.5);
  gtk_widget_set_size_request (GTK_WIDGET (self->swipe), 200, -1);
  gtk_widget_set_visible (GTK_WIDGET (self->swipe), FALSE);
  self->images = g_ptr_array_new_with_free_func (image_free);
  self->labels = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < 2; i++)
    {
      self->pick[i] = GTK_DROP_DOWN (gtk_drop_down_new_from_strings ((const char *const[]) { NULL }));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->pick[i]), i == 0 ? _("The first image, A") : _("The second image, B"));
      g_signal_connect (self->pick[i], "notify::selected", G_CALLBACK (pick_changed), self);
    }
  /* From the right: B, then A to its left. */
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), GTK_WIDGET (self->pick[1]));
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), GTK_WIDGET (self->pick[0]));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), GTK_WIDGET (self->mode));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), GTK_WIDGET (self->swipe));
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->view));
  adw_window_set_content (ADW_WINDOW (self), box);
  gtk_window_set_title (GTK_WINDOW (self), _("Compare"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1100, 650);
  g_signal_connect (self->mode, "notify::selected", G_CALLBACK (mode_changed), self);
  g_signal_connect (self->swipe, "value-changed", G_CALLBACK (swipe_changed), self);
}

EfCompareWindow *
ef_compare_window_new (GtkWindow *parent, const EfImage *a, const char *label_a, const EfImage *b,
                       const char *label_b)
{
  const EfImage *images[2] = { a, b };
  const char *labels[2] = { label_a != NULL ? label_a : "A", label_b != NULL ? label_b : "B" };

  return ef_compare_window_new_list (parent, images, labels, 2, 0, 1);
}

EfCompareWindow *
ef_compare_window_new_list (GtkWindow *parent, const EfImage *const *images, const char *const *labels, guint n,
                            guint a, guint b)
{
  EfCompareWindow *self = g_object_new (EF_TYPE_COMPARE_WINDOW, NULL);
  g_autoptr (GtkStringList) names = gtk_string_list_new (NULL);

  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (self), parent);
      gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
    }
  for (guint i = 0; i < n; i++)
    {
      EfImage *copy = NULL;

      if (images[i] != NULL)
        {
          copy = ef_image_new (&images[i]->grid, NULL);
          if (copy != NULL)
            memcpy (copy->data, images[i]->data, ef_grid_n_pixels (&images[i]->grid) * sizeof (EfCf32));
        }
      g_ptr_array_add (self->images, copy);
      g_ptr_array_add (self->labels, g_strdup (labels[i]));
      {
        g_autofree char *shown = images[i] != NULL ? g_strdup (labels[i])
                                                   : g_strdup_printf (_("%s (not formed)"), labels[i]);
        gtk_string_list_append (names, shown);
      }
    }
  self->updating++;
  for (int i = 0; i < 2; i++)
    gtk_drop_down_set_model (self->pick[i], G_LIST_MODEL (names));
  self->updating--;
  ef_compare_window_select (self, a, b);
  return self;
}

void
ef_compare_window_select (EfCompareWindow *self, guint a, guint b)
{
  g_return_if_fail (EF_IS_COMPARE_WINDOW (self));
  self->updating++;
  gtk_drop_down_set_selected (self->pick[0], a);
  gtk_drop_down_set_selected (self->pick[1], b);
  self->updating--;
  show_picked (self);
}

EfCompareView *
ef_compare_window_get_view (EfCompareWindow *self)
{
  g_return_val_if_fail (EF_IS_COMPARE_WINDOW (self), NULL);
  return self->view;
}
