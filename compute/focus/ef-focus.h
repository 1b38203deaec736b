/* ef-focus.h: autofocus: per-pulse phase errors estimated from formed images (PGA, sharpness), and applied. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ef-types.h"
#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

G_BEGIN_DECLS

/*
 * A phase error that differs from pulse to pulse (an antenna path known to a fraction of a wavelength
 * only) defocuses the image in cross-range. It is undone by multiplying pulse p's samples by
 * exp(-j phase[p]) before range compression: every former, on every backend, then forms from corrected
 * data (ef_dataset_new_phase_corrected). The estimate comes from the image itself:
 *
 * - PGA, the phase gradient algorithm (Wahl, Eichel, Ghiglia and Jakowatz, IEEE Trans. AES 30(3), 1994),
 *   for backprojected images: a patch about a prominent scatterer (a range line's brightest pixel,
 *   within 20 dB of the brightest line's) is windowed across and projected on each pulse's own
 *   contribution to an image (the band summed in closed form, the ranges exact for the patch's
 *   centre), which is that pulse's sample of the scatterer's phase history: the error is read per
 *   pulse with no resampling between azimuth bins and pulses. The gradient between neighbouring pulses
 *   (in order of cross-range spatial frequency) is the phase of the sum over patches of
 *   conj(G_k(p)) G_k(p + 1); integrated, rid of its constant and linear terms, it corrects the pulses,
 *   and the image is formed again, until the correction's RMS change falls below a tolerance. First
 *   the classical schedule: every prominent line alone, the window twice the blur's 10 dB width,
 *   widened to hold 99% of its energy, never wider than the last, halving when an iteration does not
 *   lower the image's entropy (it is then undone) or has converged. Then the wide stage: windows
 *   holding all but 1e-5 of the energy (the far, faint blur of an error that changes at every pulse is
 *   where its high orders are), one patch a scatterer, tall enough for the bands of equal range of the
 *   aperture's edge pulses across the window, kept while they lower the entropy. Neighbouring pulses'
 *   spectral samples are 1 / (n rho_x) apart, so PGA's grid spans n rho_x across (2n pixels, at most
 *   8192; the range side as asked): narrower, it would see an error's orders up to
 *   extent / (2 rho_x) cycles across the aperture only.
 * - Sharpness (Ash, "An autofocus method for backprojection imagery in synthetic aperture radar", IEEE
 *   GRSL 9(1), 2012): the image is the sum over pulse blocks k of exp(j theta_k) b_k, b_k the block's
 *   backprojected image. Sum |I|^4 is, as a function of one theta_k with the others fixed, a
 *   trigonometric polynomial of degree two; its maximum is found exactly (from the closed form of the
 *   first harmonic, refined by Newton's method among the polynomial's stationary points), block after
 *   block, sweep after sweep, until the blocks' phases move by less than the tolerance (RMS, their
 *   linear part aside). Memory: the blocks' images, n_blocks * pixels complex floats, kept within
 *   memory_bytes by making blocks longer, and the sum in complex double.
 *
 * Both estimate on their own grid: square (PGA's wider across, above), about the region's centre, its
 * rows along cross-range at the middle of the aperture, its spacing half the finer of the two ground
 * resolutions (so that the aperture's band of spatial frequencies is sampled twice over), at most max_px
 * pixels a side (the region's middle when it is larger). Both form with rectangular windows, whatever the final image uses.
 *
 * The images are formed through the backend asked for (ef_backend_new: the CPU, CUDA, or CUDA when a
 * device is there), so on CUDA every formation of the estimate runs on the device: PGA's image per
 * iteration, and each sharpness block's image, formed into a freshly cleared accumulator and read back
 * (the backend has no other way out for an image). A block costs, once: a clear of the accumulator, its
 * pulses' copy, range compression and backprojection, and the grid's copy to the host (8 bytes a
 * pixel: 0.5 MiB at 256 x 256) and, with the device's sweeps, back (the same again); the sweeps then
 * copy no image.
 * The sweeps' per-pixel sums run where the accelerator offers them (CUDA: the block goes back to the
 * device once, and every sweep then reads the blocks there; a few numbers a block come back to the
 * host, which picks each block's phase), else on the host, threaded over the pixels. PGA's projections
 * likewise (CUDA: the collection's geometry goes to the device once, each iteration's image once, one
 * thread a pulse; the patches' samples come back, and the host sums their neighbours' products), else on
 * the host, threaded over the pulses. host_sums keeps both on the host.
 */

typedef enum {
  EF_FOCUS_NONE,
  EF_FOCUS_PGA,
  EF_FOCUS_SHARPNESS,
} EfFocusMethod;

typedef struct {
  EfFocusMethod method;
  double        centre[2];     /* the region's centre, scene frame, m */
  double        extent_m;      /* the side of the square region to estimate on, m (0: max_px pixels) */
  double        spacing;       /* m; 0: half the finer of the ground resolutions */
  guint         max_px;        /* the grid's side at most (default 256) */
  guint64       first_pulse;   /* the pulses formed: [first_pulse, first_pulse + n_pulses) */
  guint64       n_pulses;      /* 0: to the end */
  guint         upsample;      /* range profiles' zero padding (default 16) */
  EfPrecision   precision;     /* fp32 (the default) or fp64 */
  guint         n_threads;     /* 0: all */
  guint         max_iter;      /* PGA iterations (its wide stage a quarter as many more), or sharpness sweeps
                                * (default 20) */
  double        tol_rad;       /* stop once the RMS change of an iteration is below (default 0.005) */
  guint         block_pulses;  /* sharpness: pulses a block (0: 1, or more to keep within memory_bytes) */
  guint64       memory_bytes;  /* sharpness: bound on the blocks' images (default 512 MiB) */
  const double *initial;       /* borrowed, may be NULL: a correction to start from (n of the collection) */
  EfBackendKind backend;       /* where the images are formed (default EF_BACKEND_CPU); AUTO falls back to the
                                * CPU with a note, CUDA fails without a device (as ef_backend_new does) */
  int           device;        /* CUDA device (-1, the default: choose) */
  guint         n_devices;     /* CUDA devices to spread the pulses over (0 or 1: one; see EfBackendParams) */
  gboolean      host_sums;     /* the estimator's sums over the pixels (the sharpness sweeps, PGA's projections)
                                * on the host even where the device that formed the images offers them
                                * (ef-focus-sweep.h) */
  GCancellable *cancellable;   /* borrowed, may be NULL: checked between pulse blocks */
} EfFocusParams;

void ef_focus_params_init (EfFocusParams *p, EfFocusMethod method);

typedef struct {
  EfFocusMethod method;
  guint64       n_pulses;          /* of the collection */
  double       *phase;             /* owned, n_pulses: rad; pulse p's samples are multiplied by exp(-j phase[p]) */
  EfGrid        grid;              /* where it estimated */
  guint         iterations;
  double        last_change_rad;   /* RMS change of the last iteration */
  guint         block_pulses;      /* sharpness: pulses a block */
  guint64       memory_bytes;      /* sharpness: the blocks' images took this much */
  double        entropy_before, entropy_after;      /* of the grid's image, without and with the correction */
  double        sharpness_before, sharpness_after;  /* sum |I|^4 / (sum |I|^2)^2 of the same images */
  /* What estimated: the backend that formed the images ("cpu" or "cuda", owned), on how many devices
   * (0 on the CPU), and why it is not what was asked (owned, NULL when it is: a fallback to the CPU). */
  char         *backend;
  guint         n_devices;
  char         *backend_note;
  /* Where the estimator's sums over the pixels ran (the sharpness sweeps, PGA's projections): "cpu" (the
   * host) or the accelerator's name ("cuda": the images it needs kept in its memory); owned. */
  char         *sums_backend;
  /* Where the time went (s): forming images through the backend (the images before and after
   * included), and the estimator's own arithmetic on the host (PGA's spectra and entropies, the
   * sweeps); n_formations images were formed (a sharpness block's image counts as one). */
  double        form_s;
  double        estimate_s;
  guint64       n_formations;
} EfFocusResult;

void ef_focus_result_clear (EfFocusResult *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (EfFocusResult, ef_focus_result_clear)

/* Estimates ds's per-pulse phase errors by params->method. Blocks for several image formations (through
 * params->backend).
 * FALSE with error on bad parameters or a failed formation. out is filled (clear it after). */
gboolean ef_focus_run (EfDataset *ds, const EfFocusParams *params, EfFocusResult *out, GError **error);

/* "pga", "sharpness", "none" and back. */
const char *ef_focus_method_to_string (EfFocusMethod m);
gboolean    ef_focus_method_from_string (const char *s, EfFocusMethod *m);

/* sum |I|^4 / (sum |I|^2)^2: 1 for a single bright pixel, 1/n for a flat image. */
double ef_focus_sharpness (const EfCf32 *data, gsize n);

/* How far per-pulse phase correction a is from b (NULL: zeros), rad RMS over the n pulses: the
 * difference unwrapped along the pulses (a pulse's phase counts modulo 2 pi, so a correction off by
 * 2 pi on some pulses changes no sample) and its least-squares line removed (a constant and a linear
 * phase only move the image). 0 for fewer than 3 pulses. */
double ef_focus_phase_residual (const double *a, const double *b, guint64 n);

/* A dataset that reads inner's pulses multiplied by exp(-j phase[p]) (phase: n_phase values, copied,
 * which must be inner's pulse count and finite). Every reader of the new dataset, every former on every
 * backend, sees corrected pulses. Returns a new reference, or NULL with error. */
EfDataset *ef_dataset_new_phase_corrected (EfDataset *inner, const double *phase, guint64 n_phase,
                                           GError **error);

/* The corrections file (JSON): {"format": "echoform-phase-correction", "version": 1, "n_pulses": N,
 * "method": "...", "note": "...", "phase_rad": [N numbers]}. Pulse p's samples are multiplied by
 * exp(-j phase_rad[p]). */
gboolean ef_phase_file_write (const char *path, const double *phase, guint64 n_pulses, const char *method,
                              const char *note, GError **error);
/* Reads path; expect_n (0: any) must equal its pulse count. *phase is owned (g_free); *method may be
 * NULL or receives an owned string. Clear errors for a missing file, bad JSON, a wrong count and
 * values that are not finite numbers. */
gboolean ef_phase_file_read (const char *path, guint64 expect_n, double **phase, guint64 *n_pulses,
                             char **method, GError **error);

G_END_DECLS
