/* ef-cphd-write-private.h: what the CPHD writer's summary, XML and file parts share. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <math.h>
#include <string.h>

#include "ef-cphd.h"
#include "ef-vec3.h"

G_BEGIN_DECLS

/* The PVP fields in the order the schema lists them. Offsets are in 8-byte words. */
typedef enum {
  PVP_TX_TIME, PVP_TX_POS, PVP_TX_VEL, PVP_RCV_TIME, PVP_RCV_POS, PVP_RCV_VEL, PVP_SRP_POS,
  PVP_AMP_SF, PVP_AFDOP, PVP_AFRR1, PVP_AFRR2, PVP_FX1, PVP_FX2, PVP_TOA1, PVP_TOA2, PVP_TD_TROPO,
  PVP_SC0, PVP_SCSS, PVP_SIGNAL, PVP_N_FIELDS
} PvpField;

typedef struct {
  const char *name;
  guint       size;
} PvpFieldSpec;

/* Name and size in words of each field, in ef-cphd-write.c. */
extern const PvpFieldSpec ef_cphd_pvp_fields[PVP_N_FIELDS];

/* One vector's parameters in Earth-fixed coordinates. */
typedef struct {
  double tx_time, tx_pos[3], tx_vel[3];
  double rcv_time, rcv_pos[3], rcv_vel[3];
  double srp[3];
  double amp_sf, afdop, afrr1, afrr2, fx1, fx2, toa1, toa2, sc0, scss;
} Pvp;

typedef struct {
  guint offset[PVP_N_FIELDS];
  gboolean present[PVP_N_FIELDS];
  guint n_words;
} PvpLayout;

typedef double Vec3[3];

static inline void
unit3 (const double a[3], double out[3])
{
  double n = ef_norm3 (a);
  ef_scale3 (a, n > 0 ? 1.0 / n : 0.0, out);
}

/* The collection as the XML states it: every vector in Earth-fixed coordinates, and what they span. */
typedef struct {
  const EfDatasetInfo *info;
  EfCphdFormat format;
  const char  *version;
  char        *core_name;       /* owned */
  double       srp_ecf[3], srp_llh[3];
  Pvp         *pvp;             /* owned, n_pulses */
  guint64      n_pulses, n_samples;
  gboolean     bistatic;
  gboolean     fx_fixed, toa_fixed;
  double       fx_min, fx_max, toa_min, toa_max, t_min, t_max;
  double       cod_time, dwell_time;
  guint64      ref_index;
  PvpLayout    layout;
} Summary;

/* When the vector's pulse reaches the SRP, between its transmit and receive times (section 6.5). */
double ef_cphd_reference_time (const Pvp *v);

/* The XML block that states the summary, and its length in bytes; the caller frees it. */
char *ef_cphd_build_xml (const Summary *s, gsize *len_out);

G_END_DECLS
