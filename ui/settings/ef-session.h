/* ef-session.h: per-dataset memory of the ROI, processing and display choices, kept between runs. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-colormap.h"
#include "ef-processing.h"

G_BEGIN_DECLS

/* The regions a collection holds beside the one in view: each with its own processing, to be formed
 * again or compared. */
#define EF_SESSION_MAX_REGIONS 16

typedef struct {
  double       roi[4];          /* x0, y0, x1, y1, m */
  EfProcessing proc;
  char         label[64];       /* the user's name for it, NUL-terminated */
} EfSessionRegion;

typedef struct {
  gboolean        has_roi;
  double          roi[4];        /* x0, y0, x1, y1, m */
  EfProcessing    proc;
  gboolean        has_display;
  EfDisplayParams display;
  gboolean        db_auto;
  guint           n_regions;
  EfSessionRegion regions[EF_SESSION_MAX_REGIONS];
} EfSessionState;

/* The key a dataset is remembered by: its absolute path, or "demo" for the built-in scene. Owned. */
char *ef_session_key_for_path (const char *path);

/* The file sessions live in: $XDG_STATE_HOME/echoform/sessions.ini. Owned. */
char *ef_session_get_file (void);

/* Fills state from what was saved under key; returns FALSE (state untouched) if nothing was. proc
 * fields that were not saved keep the values state held. Reads a small file; fast. */
gboolean ef_session_load (const char *key, EfSessionState *state);
/* Saves state under key, atomically, keeping the most recent sessions only. */
gboolean ef_session_save (const char *key, const EfSessionState *state, GError **error);

G_END_DECLS
