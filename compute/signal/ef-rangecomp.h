/* ef-rangecomp.h: range compression of pulse blocks into range profiles (FFTW on the CPU). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-dataset.h"
#include "ef-aperture.h"

G_BEGIN_DECLS

typedef struct {
  EfWindow window;
  guint    taylor_nbar;     /* Taylor: number of nearly constant sidelobes (default 4) */
  double   taylor_sll_db;   /* Taylor: sidelobe level, negative dB (default -35) */
  guint    upsample;        /* zero-padding factor, >= 1; the FFT length is the next power of two of
                             * n_samples * upsample */
  /* Cross-range (aperture) weighting, the same families and shapes as the range window: each pulse's
   * profile is scaled by the window at its look angle across `aperture` (ef-aperture.h). The aperture
   * is the job's pulses; ef_job_new and ef_verify_image fill it, and a caller that drives a backend or
   * a compressor itself fills it with ef_aperture_init. */
  EfWindow   az_window;
  guint      az_taylor_nbar;
  double     az_taylor_sll_db;
  EfAperture aperture;
} EfRangeParams;

#define EF_RANGE_PARAMS_DEFAULT \
  ((EfRangeParams) { .window = EF_WINDOW_RECT, .taylor_nbar = 4, .taylor_sll_db = -35.0, .upsample = 16, \
                     .az_window = EF_WINDOW_RECT, .az_taylor_nbar = 4, .az_taylor_sll_db = -35.0 })

/* Per-pulse metadata a backprojector needs for one range profile. A profile sample i sits at
 * differential range dR = r_start + i * dr, where dR = |tx - x|/2 + |rcv - x|/2 - r0 (metres), and
 * backprojection adds profile(dR) * exp(+j * kr * dR). Any constant phase has been folded into the
 * profile already. */
typedef struct {
  double tx[3], rcv[3];
  double r0;
  double r_start;   /* m */
  double dr;        /* m per bin */
  double kr;        /* rad per metre of dR: 4 pi f_ref / c */
} EfProfileMeta;

/* A block of range profiles. Exactly one of data32 / data64 is set. */
struct _EfProfiles {
  guint          n_pulses;
  guint          n_bins;
  guint          capacity;   /* pulses allocated */
  EfProfileMeta *meta;       /* owned, capacity */
  EfCf32        *data32;     /* owned, capacity * n_bins, or NULL */
  EfCf64        *data64;     /* owned, capacity * n_bins, or NULL */
  gboolean       monostatic; /* every pulse has tx == rcv */
};

EfProfiles *ef_profiles_new (guint capacity, guint n_bins, gboolean fp64, GError **error);
void        ef_profiles_free (EfProfiles *profiles);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfProfiles, ef_profiles_free)

/* Fills w[n] with the window, normalised so that sum(w) == n. */
void ef_window_fill (EfWindow window, guint nbar, double sll_db, double *w, guint n);

/* The RAW matched filter, the same for every backend: the forward FFT length nc, the kept chirp band
 * (k bins starting at bin k_first, in FFT order) and conj(FFT(chirp)) over nc bins, scaled so that a
 * unit target gives unit bins. */
typedef struct {
  guint   nc;
  guint   k;
  guint   k_first;
  EfCf64 *chirp_conj;  /* owned, nc values */
} EfMatchedFilter;

/* Builds the matched filter for info's chirp (RAW domain). Fails when the chirp does not fit the pulse. */
gboolean ef_matched_filter_init (const EfDatasetInfo *info, EfMatchedFilter *mf, GError **error);
void     ef_matched_filter_clear (EfMatchedFilter *mf);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (EfMatchedFilter, ef_matched_filter_clear)

/* How range compression lays out a dataset's profiles: the same on every backend, so that the CPU's
 * and the CUDA backend's profiles, and the records that say where their bins lie, agree. */
typedef struct {
  EfDomain domain;
  double   fc;        /* RAW: the carrier, Hz */
  guint    n_in;      /* samples a pulse */
  guint    k;         /* spectral bins kept (K) */
  guint    n;         /* profile bins: the inverse FFT's length */
  guint    nc;        /* RAW: the matched filter's forward FFT length; 0 otherwise */
  guint    k_first;   /* RAW: the first kept bin of the chirp band, in FFT order */
} EfProfileLayout;

/* The layout of info's profiles at an upsampling of upsample (clamped to 1..64). For RAW data it builds
 * the matched filter into mf, which the caller then owns (ef_matched_filter_clear); otherwise mf is
 * left empty. EF_COMPUTE_ERROR_INVALID_ARGUMENT when the pulses or the profiles are too long. */
gboolean ef_profile_layout_init (EfProfileLayout *layout, const EfDatasetInfo *info, guint upsample,
                                 EfMatchedFilter *mf, GError **error);

/* The record of the profile that range compression makes of pulse pu: where its bins lie and the
 * carrier backprojection restores. Every backend's range compression fills its records with this. */
void     ef_profile_meta_fill (const EfProfileLayout *layout, const EfPulse *pu, EfProfileMeta *m);

/* A compressor for one dataset shape. FFTW plans are made once here and reused; fp64 selects double
 * precision FFTs (the reference path). Not thread-safe: one per worker. */
EfRangeCompressor *ef_range_compressor_new (const EfDatasetInfo *info, const EfRangeParams *params,
                                            gboolean fp64, GError **error);
void               ef_range_compressor_free (EfRangeCompressor *rc);
guint              ef_range_compressor_n_bins (const EfRangeCompressor *rc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfRangeCompressor, ef_range_compressor_free)

/* Compresses count pulses (samples: count * n_samples, pulses: their vector parameters) into out,
 * which must have capacity >= count and matching n_bins and precision. Non-finite samples are
 * replaced by zero and counted in *n_bad (may be NULL). */
gboolean ef_range_compress (EfRangeCompressor *rc, const EfPulse *pulses, const EfCf32 *samples,
                            guint count, EfProfiles *out, guint64 *n_bad, GError **error);

G_END_DECLS
