/* ef-classroom-window-private.h: the classroom window's state, shared by its window and its views. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cairo.h>

#include "ef-classroom-window.h"
#include "ef-range-slider.h"
#include "ef-metrics.h"
#include "ef-teach.h"
#include "ef-teach-whatif.h"

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

/* A pinned state of the lesson (ef-classroom-whatif.c). */
typedef struct {
  char              *name;       /* owned */
  guint64            current, first, last;
  guint              band_lo, band_hi;
  EfTeachErrors      errors;
  EfTeachFormOptions form;
} EfClassroomBookmark;

/* The selected target's measurements: cross-range and range -3 dB widths (m) and peak sidelobe ratios (dB). */
typedef struct {
  gboolean ok;
  double   cross_irw, range_irw, cross_pslr, range_pslr;
  double   position[3];
} EfClassroomMeasure;
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

  /* What if (ef-classroom-whatif.c). stack_data is ref_stack itself while nothing is changed. */
  EfTeachStack *ref_stack;       /* owned: the stack as opened (rectangular, linear, x16, no errors) */
  EfCf32       *ref_image;       /* owned: the reference stack's image of the windows shown */
  EfTeachErrors errors;          /* of the stack shown */
  EfTeachFormOptions form;       /* of the stack shown */
  EfTeachErrors want_errors;     /* as the controls stand */
  EfTeachFormOptions want_form;
  GCancellable *whatif_cancel;
  guint         whatif_source;   /* the pending re-formation */
  gboolean      forming;
  gboolean      has_target;
  double        target_col, target_row;  /* the selected target, pixels of the grid */
  EfClassroomMeasure measured, reference;
  double        ser_db;          /* the interpolation error of the stack shown, NAN until known */
  double        ser_col, ser_row;  /* the pixel it was measured about */
  double        ref_ser_db, ref_ser_col, ref_ser_row;  /* the stack as opened's */
  GtkWidget    *window_drop, *interp_drop, *upsample_drop, *shape_drop, *axis_drop;  /* GtkDropDown */
  GtkSpinButton *rms_spin, *seed_spin, *speed_spin, *offset_spin;
  GtkWidget    *measure_label, *ser_label, *forming_label;
  /* Presenter. */
  double        text_scale;      /* 1 = the desktop's */
  gboolean      high_contrast;
  GtkWidget    *presenter_button;  /* GtkMenuButton in the header bar */
  GtkWidget    *large_toggle, *contrast_toggle;
  GtkWidget    *bookmark_entry, *bookmark_drop;
  GtkStringList *bookmark_names; /* borrowed: the drop-down's model */
  GArray       *bookmarks;       /* owned: EfClassroomBookmark */
  char         *bookmark_key;    /* owned: the collection the bookmarks are kept under */
  GSettings    *settings;        /* owned, or NULL without the schema */
};

/* ef-classroom-window.c */
/* Everything follows the state: image, theory, pulse, views, readouts. */
void     ef_classroom_window_refresh (EfClassroomWindow *self, gboolean pulse_changed);
void     ef_classroom_window_set_playing (EfClassroomWindow *self, gboolean playing);
/* What a key does in the window (the key controller calls it, and tests can); TRUE when handled. */
gboolean ef_classroom_window_key (EfClassroomWindow *self, guint keyval, GdkModifierType state);

/* ef-classroom-whatif.c */
/* The what-if and presenter controls, built into the window once. */
GtkWidget *ef_classroom_whatif_build (EfClassroomWindow *self);
/* After a stack opens: it is the reference; the what-if state starts afresh. Takes the stack. */
void       ef_classroom_whatif_opened (EfClassroomWindow *self, EfTeachStack *stack, double ser_db);
/* After the image changes: the reference image of the same windows, the measurements, the readouts. */
void       ef_classroom_whatif_update (EfClassroomWindow *self);
/* Clears everything the what-if state owns (open and finalize). */
void       ef_classroom_whatif_clear (EfClassroomWindow *self);
/* The controls changed: re-form (soon) as they say. */
void       ef_classroom_whatif_changed (EfClassroomWindow *self);
/* Selects the target nearest pixel (col, row) of the grid. */
void       ef_classroom_whatif_select (EfClassroomWindow *self, double col, double row);
void       ef_classroom_whatif_set_text_scale (EfClassroomWindow *self, double scale);
void       ef_classroom_whatif_set_high_contrast (EfClassroomWindow *self, gboolean on);
void       ef_classroom_whatif_add_bookmark (EfClassroomWindow *self, const char *name);
gboolean   ef_classroom_whatif_go_bookmark (EfClassroomWindow *self, guint i);
/* Puts the errors and options into the controls (and so re-forms). */
void       ef_classroom_whatif_set_controls (EfClassroomWindow *self, const EfTeachErrors *e,
                                             const EfTeachFormOptions *f);
/* Sets the windows and the pulse as a user would have. */
void       ef_classroom_window_set_windows (EfClassroomWindow *self, guint64 first, guint64 last, guint band_lo,
                                            guint band_hi, guint64 current);

/* ef-classroom-bookmarks.c: bookmarks kept per collection (key: ef_session_key_for_path, or
 * "classroom-scene") in $XDG_STATE_HOME/echoform/classroom-bookmarks.ini. */
char    *ef_classroom_bookmarks_file (void);
/* Appends the bookmarks saved under key that fit a collection of n_pulses and n_bands to out; returns how
 * many. Reads a small file. */
guint    ef_classroom_bookmarks_load (const char *key, guint64 n_pulses, guint n_bands, GArray *out);
/* Replaces what is saved under key with bookmarks (at most 64). */
gboolean ef_classroom_bookmarks_save (const char *key, const GArray *bookmarks, GError **error);
/* ef-classroom-whatif.c: after opening, the collection's saved bookmarks listed. */
void     ef_classroom_whatif_load_bookmarks (EfClassroomWindow *self);

/* ef-classroom-views.c */
/* The image of pulses [p0, p1] and sub-bands [band_lo, band_hi] of stack into out: whole blocks from
 * its sums, the rest formed directly. FALSE with error. */
gboolean ef_classroom_views_compose (EfClassroomWindow *self, EfTeachStack *stack, guint64 p0, guint64 p1,
                                     EfCf32 *out, GError **error);
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
