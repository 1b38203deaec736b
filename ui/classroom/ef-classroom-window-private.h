/* ef-classroom-window-private.h: the classroom window's state, shared by its window and its views. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cairo.h>

#include "ef-classroom-window.h"
#include "ef-range-slider.h"
#include "ef-teach.h"

G_BEGIN_DECLS

/* The small views beside the image, and the image itself. */
typedef enum {
  EF_CLASSROOM_IMAGE,
  EF_CLASSROOM_GEOMETRY,
  EF_CLASSROOM_PROFILE,
  EF_CLASSROOM_HISTORY,
  EF_CLASSROOM_KSPACE,
  EF_CLASSROOM_N_VIEWS
} EfClassroomView;

#define EF_CLASSROOM_MAX_ARCS 8
#define EF_CLASSROOM_HISTORY_EDGE 256

struct _EfClassroomWindow {
  AdwWindow parent_instance;

  /* Widgets, borrowed (the window owns them). */
  GtkWidget    *views[EF_CLASSROOM_N_VIEWS];  /* GtkDrawingArea */
  GtkWidget    *stack;          /* GtkStack: "loading" or "lesson" */
  GtkWidget    *loading_label;
  GtkWidget    *progress;
  GtkRange     *timeline;
  EfRangeSlider *aperture_slider;  /* [first, last] pulse, in whole blocks */
  EfRangeSlider *band_slider;      /* [first, last] sub-band */
  GtkSpinButton *rate_spin;
  GtkWidget    *play_button;
  GtkWidget    *pulse_label;
  GtkWidget    *aperture_label;   /* the aperture, its angle and the cross-range resolution */
  GtkWidget    *band_label;       /* the band and the range resolution */
  GtkWidget    *stack_label;      /* blocks, sub-bands and the memory the sums take */

  /* Owned state. */
  GCancellable *cancellable;
  EfDataset    *ds;
  EfTeachStack *stack_data;
  EfCf32       *image;           /* the window's image, pixels of the stack's grid */
  cairo_surface_t *surface;      /* the image as drawn */
  float        *history;         /* phase history magnitude, EF_CLASSROOM_HISTORY_EDGE^2 */
  cairo_surface_t *history_surface;
  float        *profile;         /* the current pulse's range profile, linear magnitude */
  guint         n_bins;
  double        r_start, dr;
  double        region_dr[2];    /* the region's differential ranges for the current pulse, m */
  double        arc_range[EF_CLASSROOM_MAX_ARCS];   /* ranges of the profile's peaks, m */
  guint         n_arcs;
  EfTeachTheory theory;
  EfTeachKspace ks_all, ks_sel;

  guint64       n_pulses;
  guint         block;           /* pulses a block of the stack */
  guint64       current;         /* the timeline's pulse */
  guint64       first, last;     /* the aperture window, pulses */
  guint         band_lo, band_hi;/* the band window, sub-bands */
  guint64       shown_p0, shown_p1; /* the pulses the image shows */
  gboolean      ready;
  guint         updating;        /* scales being set from the state, not by the user */

  gboolean      playing;
  guint         tick_id;
  gint64        tick_us;
  double        carry;           /* pulses owed to the timeline between frames */

  gint64        change_us;       /* when the window last changed, for the frame time */
  double        frame_ms;        /* from the last change to its image drawn */
  guint         draws[EF_CLASSROOM_N_VIEWS];
};

/* ef-classroom-window.c */
void     ef_classroom_window_set_playing (EfClassroomWindow *self, gboolean playing);
/* What a key does in the window (the key controller calls it, and tests can); TRUE when handled. */
gboolean ef_classroom_window_key (EfClassroomWindow *self, guint keyval, GdkModifierType state);

/* ef-classroom-views.c */
void ef_classroom_views_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data);
/* Rebuilds the image surface from the stack for the current windows. */
void ef_classroom_views_update_image (EfClassroomWindow *self);
/* The current pulse's profile, the region's ranges and the arcs at the profile's peaks. */
void ef_classroom_views_update_pulse (EfClassroomWindow *self);
/* The phase history's picture, from self->history. */
void ef_classroom_views_update_history (EfClassroomWindow *self);
/* A framed view with its title and a "?" button whose popover explains it. */
GtkWidget *ef_classroom_views_frame (GtkWidget *child, const char *title, const char *help, const char *formula);

G_END_DECLS
