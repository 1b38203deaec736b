/* ef-dataset.h: a phase-history collection, read one pulse block at a time. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"

G_BEGIN_DECLS

/* Per-pulse vector parameters, in the local scene frame (metres, origin at the scene reference point,
 * x east, y north, z up), always double precision. */
struct _EfPulse {
  double tx[3];     /* transmit antenna phase centre at transmit time */
  double rcv[3];    /* receive antenna phase centre at receive time */
  double r0;        /* reference range to the SRP; half the two-way range when bistatic */
  double sc0;       /* first sample: Hz (FX), s relative to r0 (TOA), absolute fast time s (RAW) */
  double scss;      /* sample spacing: Hz (FX) or s (TOA, RAW) */
  double t;         /* transmit time relative to the collection start, s */
  double fx1, fx2;  /* processed band, Hz (FX: first and last frequency; RAW/TOA: fc ± B/2) */
};

struct _EfDatasetInfo {
  EfDomain domain;
  guint64  n_pulses;
  guint64  n_samples;        /* per pulse, the same for every pulse */
  double   fc;               /* centre frequency, Hz */
  double   bandwidth;        /* Hz */
  /* RAW only: the transmitted linear FM chirp exp(j pi K (t - T/2)^2), 0 <= t < T, centred on fc. */
  double   chirp_rate;       /* Hz/s, signed */
  double   chirp_duration;   /* s */
  double   sample_rate;      /* Hz */
  /* Where the scene is on the Earth, when known. */
  gboolean has_geo;
  double   srp_llh[3];       /* latitude deg, longitude deg, height m (WGS-84) */
  double   srp_ecf[3];       /* m */
  /* Channels: the dataset reads one; the others are listed for the user. */
  guint    n_channels;
  guint    channel;
  char   **channel_names;    /* owned, NULL-terminated, may be NULL */
  char    *source;           /* owned: a short description of the file type, e.g. "CPHD 1.0.1" */
  char    *path;             /* owned: the file or folder opened, or NULL */
  /* The file has no pulse times: t only counts pulses at a nominal interval, and a pulse rate or a
   * speed computed from it would mean nothing. */
  gboolean times_nominal;
};

typedef struct {
  /* Fill out[count * n_samples] with pulses [first, first + count). Must be safe to call from any
   * single thread at a time (the job's reader thread). */
  gboolean (*read_block) (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error);
  void     (*finalize)   (EfDataset *self);
} EfDatasetOps;

struct _EfDataset {
  gatomicrefcount     ref_count;
  const EfDatasetOps *ops;    /* borrowed, static */
  EfDatasetInfo       info;   /* owned strings inside */
  EfPulse            *pulses; /* owned, info.n_pulses entries; small next to the samples */
  gpointer            priv;   /* owned by ops->finalize */
};

/* Allocates the shell of a dataset; backends fill info, pulses and priv. Returns a new reference. */
EfDataset *ef_dataset_alloc (const EfDatasetOps *ops);
EfDataset *ef_dataset_ref (EfDataset *self);
void       ef_dataset_unref (EfDataset *self);

/* Reads pulses [first, first + count) as complex float into out (count * n_samples). May block on I/O. */
gboolean ef_dataset_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error);

/* A dataset held in memory; takes ownership of pulses and samples (n_pulses * n_samples, g_malloc'd). */
EfDataset *ef_dataset_new_memory (const EfDatasetInfo *info, EfPulse *pulses, EfCf32 *samples);
/* Borrowed view of a memory dataset's samples, or NULL if it is not one. */
const EfCf32 *ef_dataset_memory_samples (EfDataset *self);

/* Opens any supported file or folder (CPHD, Gotcha .mat file or folder), choosing the reader from its
 * contents. channel selects a CPHD channel (0 = first). Returns a new reference or NULL with error. */
EfDataset *ef_dataset_open (const char *path, guint channel, GError **error);

/* Checks what every reader must guarantee: finite positions, non-zero ranges, positive spacings,
 * sensible sizes. Readers call it before returning. */
gboolean ef_dataset_validate (EfDataset *self, GError **error);

/* Derived quantities a user wants to see. */
double ef_dataset_range_resolution (const EfDataset *self);      /* c / (2B), m */
double ef_dataset_aperture_angle (const EfDataset *self);        /* radians swept about the SRP */
double ef_dataset_crossrange_resolution (const EfDataset *self); /* lambda_c / (2 * dtheta), m */
double ef_dataset_mean_standoff (const EfDataset *self);         /* mean r0, m */
double ef_dataset_mean_grazing (const EfDataset *self);          /* radians */
/* The resolutions on the ground plane, where images are formed: range is c / (2B) projected through the
 * mean grazing angle (its cosine taken as 0.1 at the least), cross-range as above, or the range's when
 * the aperture does not say. 0 where the collection states neither. */
void   ef_dataset_ground_resolution (const EfDataset *self, double *range_m, double *cross_m);

void ef_dataset_info_clear (EfDatasetInfo *info);
void ef_dataset_info_copy (const EfDatasetInfo *src, EfDatasetInfo *dst);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfDataset, ef_dataset_unref)

G_END_DECLS
