/* ef-sim.h: a physically exact phase-history simulator for point targets and dense scenes. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-dataset.h"

G_BEGIN_DECLS

typedef enum {
  EF_SIM_CIRCULAR,   /* circular spotlight about the SRP */
  EF_SIM_STRIPMAP,   /* straight line, broadside to the SRP at mid-aperture */
} EfSimGeometry;

typedef struct {
  double pos[3];     /* scene frame, m */
  EfCf64 amp;        /* complex amplitude */
} EfSimTarget;

typedef struct {
  EfSimGeometry geometry;
  EfDomain      domain;          /* EF_DOMAIN_FX or EF_DOMAIN_RAW */
  double        fc;              /* Hz */
  double        bandwidth;       /* Hz */
  guint         n_samples;       /* per pulse */
  guint         n_pulses;
  double        standoff;        /* slant range from the aperture centre to the SRP, m */
  double        grazing_deg;     /* grazing angle at the SRP */
  double        aperture_deg;    /* CIRCULAR: azimuth angle swept */
  double        aperture_len;    /* STRIPMAP: track length, m (0: chosen from aperture_deg) */
  double        azimuth_deg;     /* heading of the aperture centre as seen from the SRP; 0 = +x */
  double        squint_deg;      /* STRIPMAP: at mid-aperture the line of sight makes 90 - squint degrees
                                  * with the (level) track, looking ahead when positive;
                                  * 0 = broadside */
  double        speed;           /* platform speed m/s (sets pulse times) */
  /* RAW only: the chirp is exp(j pi K (t - T/2)^2) for 0 <= t < T, sweeping fc - B/2 .. fc + B/2. */
  double        chirp_duration;  /* s */
  double        sample_rate;     /* Hz (>= bandwidth) */
  /* Impairments */
  double        snr_db;          /* thermal noise per sample relative to a unit target; +inf = none */
  double        phase_error_rad; /* rms of an injected smooth per-pulse phase error; 0 = none */
  double        range_error_m;   /* rms of an injected per-pulse range error; 0 = none */
  guint64       seed;
  /* Where the scene sits on the Earth, for CPHD. */
  double        lat_deg, lon_deg, height_m;
  /* Targets: borrowed arrays. */
  const EfSimTarget *targets;
  guint              n_targets;
  guint              n_threads;  /* 0 = all */
} EfSimParams;

/* Sensible airborne X-band spotlight defaults: fc 9.6 GHz, B 600 MHz, 10 km standoff, 30 deg grazing. */
void ef_sim_params_init_airborne (EfSimParams *p);
/* Spaceborne defaults: 700 km standoff. */
void ef_sim_params_init_spaceborne (EfSimParams *p);

/* Simulates the collection in memory. Blocks. Returns a new dataset or NULL with error (absurd sizes,
 * bad parameters). The dataset's info.has_geo is set from lat/lon/height. */
EfDataset *ef_sim_run (const EfSimParams *params, GError **error);

/* One FX pulse in double precision, exactly as ef_sim_run computes it before phase errors, noise and
 * the conversion to complex float: out[k] = sum_t amp_t exp(-j 4 pi f_k (|a - x_t| - r0 + range_offset) / c)
 * with f_k = f0 + k df, for k < n_samples. out is caller-owned (n_samples entries). Does not block. */
void ef_sim_fx_pulse64 (const double a[3], double r0, double f0, double df, guint n_samples, double range_offset,
                        const EfSimTarget *targets, guint n_targets, EfCf64 *out);

/* One RAW pulse in double precision, exactly as ef_sim_run computes it before phase errors, noise and
 * the conversion to complex float: out[n] = sum_t amp_t exp(j 2 pi (K u^2 / 2 - fc tau_t)) over the
 * targets whose echo covers sample n (0 <= t_n - tau_t < T), with t_n = sc0 + n / fs,
 * tau_t = 2 (|a - x_t| + range_offset) / c and u = t_n - tau_t - T / 2. out is caller-owned (n_samples
 * entries). FALSE only when its work space cannot be allocated. Does not block. */
gboolean ef_sim_raw_pulse64 (const double a[3], double r0, double sc0, double fc, double fs, double K, double T,
                             guint n_samples, double range_offset, const EfSimTarget *targets, guint n_targets,
                             EfCf64 *out);

/* Turns a greyscale bitmap (row-major, 0..1, row 0 = north) into scatterers with random phase, spaced
 * `spacing` metres apart and centred on (cx, cy). Pixels below threshold are skipped. Returns an owned
 * array and its length (NULL and 0 when no pixel passes). The phases depend only on the seed and the
 * pixel's index. */
EfSimTarget *ef_sim_targets_from_bitmap (const float *pixels, guint width, guint height, double spacing,
                                         double cx, double cy, float threshold, guint64 seed, guint *n_out);

/* The bundled picture used by the demo (a recognisable line drawing), as pixels in 0..1. Owned. */
float *ef_sim_demo_bitmap (guint *width, guint *height);

G_END_DECLS
