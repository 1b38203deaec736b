/* ef-rangecomp.c: range compression with FFTW: FX windowing and upsampling, the RAW matched filter. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-rangecomp"
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>
#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-error.h"
#include "ef-fftw.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

/*
 * Every domain is brought to the same form before the inverse FFT: a spectrum S[k] on K bins at
 * frequencies f_k = f0 + k * df that obeys S[k] = sum_t a_t * exp(-j 4 pi f_k dR_t / c). The bins are
 * placed centred on the FFT input (bin K/2 at index 0), so the profile's spectrum is symmetric about
 * zero and linear interpolation of the profile loses as little as it can. The carrier that goes with
 * the profile is then f_ref = f0 + (K/2) df, which backprojection restores with exp(+j 4 pi f_ref dR/c).
 * This is the same sum as DESIGN.md's uncentred form; only the split of phase between the profile and
 * the carrier differs.
 */


typedef struct {
  fftw_complex  *spec;    /* K' prepared bins, double */
  fftw_complex  *raw;     /* RAW: Nc-point work buffer */
  fftwf_complex *work32;  /* N-point IFFT output for profiles of another alignment */
  fftwf_complex *in32;    /* N-point IFFT input: zero but for the K bins, which every pulse rewrites */
  fftw_complex  *work64;
} Scratch;

struct _EfRangeCompressor {
  EfDatasetInfo info;     /* owned copy */
  EfRangeParams params;
  gboolean      fp64;
  EfProfileLayout layout; /* samples, bins kept, profile bins; RAW: the matched filter's FFT */
  double       *window;   /* layout.k */
  EfAzWeight    az;       /* each pulse's cross-range weight, folded into its window */
  /* RAW matched filter */
  fftw_complex *chirp_conj; /* layout.nc: conj(FFT(chirp)) scaled, g_malloc'd (EfMatchedFilter) */
  fftw_plan     raw_fwd;
  /* IFFT plans. float32: from each scratch's in32 straight into a profile, with the fftshift folded
   * into the input as a sign (a shift by N/2 of the output is a factor (-1)^i on input bin i) and the
   * 1/K scale and the window into one weight. */
  fftwf_plan    inv32_out;
  int           out_align;  /* FFTW's alignment class of the output inv32_out was planned for */
  float        *w32;        /* k: window / K * (-1)^(FFT input index) */
  guint        *at32;       /* k: FFT input index of bin k */
  fftw_plan     inv64;
  guint         n_scratch;
  Scratch      *scratch;
};

/* Index in the FFT input of spectral bin k when bin k/2 sits at zero frequency. */
static inline guint
centred_index (guint k, guint nk, guint n)
{
  return (k + n - nk / 2) % n;
}

static guint
next_pow2 (guint64 n)
{
  guint64 p = 1;

  while (p < n)
    p <<= 1;
  return (guint) p;
}

/* The Taylor window over n bins at (k + 0.5) / n, with the coefficients the aperture weighting uses too. */
static void
taylor_fill (double *w, guint n, guint nbar, double sll_db)
{
  double fm[64];

  ef_taylor_coefficients (nbar, sll_db, fm);
  nbar = MIN (nbar, 63u);
  for (guint k = 0; k < n; k++)
    {
      double x = ((double) k + 0.5) / n - 0.5;

      w[k] = 1.0;
      for (guint m = 1; m < nbar; m++)
        w[k] += 2.0 * fm[m] * cos (2.0 * G_PI * m * x);
    }
}

void
ef_window_fill (EfWindow window, guint nbar, double sll_db, double *w, guint n)
{
  double sum = 0;

  g_return_if_fail (w != NULL);
  if (n == 0)
    return;
  for (guint k = 0; k < n; k++)
    {
      double x = n > 1 ? (double) k / (n - 1) : 0.5;

      switch (window)
        {
        case EF_WINDOW_HANN:
          w[k] = 0.5 - 0.5 * cos (2.0 * G_PI * x);
          break;
        case EF_WINDOW_HAMMING:
          w[k] = 0.54 - 0.46 * cos (2.0 * G_PI * x);
          break;
        case EF_WINDOW_RECT:
        case EF_WINDOW_TAYLOR:
        default:
          w[k] = 1.0;
          break;
        }
    }
  if (window == EF_WINDOW_HANN && n > 2)
    {
      /* Periodic-style endpoints would waste two samples; use the symmetric form over n + 2 points. */
      for (guint k = 0; k < n; k++)
        w[k] = 0.5 - 0.5 * cos (2.0 * G_PI * (k + 1.0) / (n + 1.0));
    }
  if (window == EF_WINDOW_TAYLOR)
    taylor_fill (w, n, nbar ? nbar : 4, sll_db < 0 ? sll_db : -35.0);
  for (guint k = 0; k < n; k++)
    sum += w[k];
  for (guint k = 0; k < n; k++)
    w[k] *= n / sum;
}

EfProfiles *
ef_profiles_new (guint capacity, guint n_bins, gboolean fp64, GError **error)
{
  g_autoptr (EfProfiles) p = g_new0 (EfProfiles, 1);
  gsize elem = fp64 ? sizeof (EfCf64) : sizeof (EfCf32);

  if (capacity == 0 || n_bins == 0 || (guint64) capacity * n_bins > (G_GUINT64_CONSTANT (1) << 32))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Cannot hold %u range profiles of %u bins", capacity, n_bins);
      return NULL;
    }
  p->capacity = capacity;
  p->n_bins = n_bins;
  p->meta = g_try_new0 (EfProfileMeta, capacity);
  /* Written whole by range compression before they are read: no need to zero them. */
  if (fp64)
    p->data64 = ef_aligned_alloc ((gsize) capacity * n_bins * elem);
  else
    p->data32 = ef_aligned_alloc ((gsize) capacity * n_bins * elem);
  if (p->meta == NULL || (p->data64 == NULL && p->data32 == NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for %u range profiles of %u bins", capacity, n_bins);
      return NULL;
    }
  return g_steal_pointer (&p);
}

void
ef_profiles_free (EfProfiles *p)
{
  if (p == NULL)
    return;
  g_free (p->meta);
  ef_aligned_free (p->data32);
  ef_aligned_free (p->data64);
  g_free (p);
}

static void
scratch_free (Scratch *s)
{
  if (s->spec) fftw_free (s->spec);
  if (s->raw) fftw_free (s->raw);
  if (s->work32) fftwf_free (s->work32);
  if (s->in32) fftwf_free (s->in32);
  if (s->work64) fftw_free (s->work64);
}

void
ef_range_compressor_free (EfRangeCompressor *rc)
{
  if (rc == NULL)
    return;
  ef_fftw_planner_lock ();
  if (rc->inv32_out) fftwf_destroy_plan (rc->inv32_out);
  if (rc->inv64) fftw_destroy_plan (rc->inv64);
  if (rc->raw_fwd) fftw_destroy_plan (rc->raw_fwd);
  ef_fftw_planner_unlock ();
  for (guint i = 0; i < rc->n_scratch; i++)
    scratch_free (&rc->scratch[i]);
  g_free (rc->scratch);
  g_free (rc->chirp_conj);
  g_free (rc->window);
  g_free (rc->w32);
  g_free (rc->at32);
  ef_dataset_info_clear (&rc->info);
  g_free (rc);
}

guint
ef_range_compressor_n_bins (const EfRangeCompressor *rc)
{
  return rc->layout.n;
}

gboolean
ef_matched_filter_init (const EfDatasetInfo *info, EfMatchedFilter *mf, GError **error)
{
  double fs = info->sample_rate, kchirp = info->chirp_rate, t = info->chirp_duration;
  double fmax = 0.5 * fabs (kchirp) * t, fmin = -fmax, df, scale;
  guint64 l = (guint64) llround (t * fs);
  fftw_complex *h, *out;
  fftw_plan plan;
  gint64 i_lo, i_hi;

  g_return_val_if_fail (info != NULL && mf != NULL, FALSE);
  memset (mf, 0, sizeof *mf);
  if (!(fs > 0) || l == 0 || l > info->n_samples || fmax - fmin > fs * 1.0000001)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The chirp (%.3g s at %.3g Hz/s) does not fit %" G_GUINT64_FORMAT " samples at %.4g Hz", t,
                   kchirp, info->n_samples, fs);
      return FALSE;
    }
  mf->nc = next_pow2 (info->n_samples + l);
  df = fs / mf->nc;
  i_lo = (gint64) ceil (fmin / df - 1e-9);
  i_hi = (gint64) floor (fmax / df + 1e-9);
  mf->k = (guint) (i_hi - i_lo + 1);
  mf->k_first = (guint) (((i_lo % (gint64) mf->nc) + mf->nc) % mf->nc);

  h = fftw_malloc (sizeof (fftw_complex) * mf->nc);
  out = fftw_malloc (sizeof (fftw_complex) * mf->nc);
  mf->chirp_conj = g_try_new (EfCf64, mf->nc);
  if (h == NULL || out == NULL || mf->chirp_conj == NULL)
    {
      fftw_free (h);
      fftw_free (out);
      ef_matched_filter_clear (mf);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the matched filter");
      return FALSE;
    }
  memset (h, 0, sizeof (fftw_complex) * mf->nc);
  /* The chirp is centred on its carrier: exp(j pi K (t - T/2)^2) sweeps -B/2 .. +B/2. */
  for (guint64 m = 0; m < l; m++)
    {
      double tm = (double) m / fs - 0.5 * t;
      double ph = G_PI * kchirp * tm * tm;

      h[m][0] = cos (ph);
      h[m][1] = sin (ph);
    }
  ef_fftw_planner_lock ();
  plan = fftw_plan_dft_1d ((int) mf->nc, h, out, FFTW_FORWARD, FFTW_ESTIMATE);
  ef_fftw_planner_unlock ();
  fftw_execute (plan);
  ef_fftw_planner_lock ();
  fftw_destroy_plan (plan);
  ef_fftw_planner_unlock ();
  /* |H|^2 averages nc * l / k over the band. */
  scale = (double) mf->k / ((double) mf->nc * (double) l);
  for (guint i = 0; i < mf->nc; i++)
    mf->chirp_conj[i] = scale * (out[i][0] - out[i][1] * I);
  fftw_free (h);
  fftw_free (out);
  return TRUE;
}

void
ef_matched_filter_clear (EfMatchedFilter *mf)
{
  g_clear_pointer (&mf->chirp_conj, g_free);
  mf->nc = mf->k = mf->k_first = 0;
}

gboolean
ef_profile_layout_init (EfProfileLayout *layout, const EfDatasetInfo *info, guint upsample, EfMatchedFilter *mf,
                        GError **error)
{
  guint up = CLAMP (upsample, 1u, 64u);

  g_return_val_if_fail (layout != NULL && info != NULL && mf != NULL, FALSE);

  memset (layout, 0, sizeof *layout);
  memset (mf, 0, sizeof *mf);
  if (info->n_samples == 0 || info->n_samples > (1u << 24))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Cannot range-compress pulses of %" G_GUINT64_FORMAT " samples", info->n_samples);
      return FALSE;
    }
  layout->domain = info->domain;
  layout->fc = info->fc;
  layout->n_in = (guint) info->n_samples;
  layout->k = layout->n_in;
  if (info->domain == EF_DOMAIN_RAW)
    {
      if (!ef_matched_filter_init (info, mf, error))
        return FALSE;
      layout->nc = mf->nc;
      layout->k = mf->k;
      layout->k_first = mf->k_first;
    }
  layout->n = info->domain == EF_DOMAIN_TOA ? layout->n_in : next_pow2 ((guint64) layout->k * up);
  if (layout->n > (1u << 26))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "An upsampling of %u on %u samples gives %u range bins, too many", up, layout->k, layout->n);
      ef_matched_filter_clear (mf);
      return FALSE;
    }
  return TRUE;
}

void
ef_profile_meta_fill (const EfProfileLayout *layout, const EfPulse *pu, EfProfileMeta *m)
{
  /* The spectral form every domain is brought to (prepare_spectrum): bins from f0, df apart. */
  double f0 = pu->sc0, df = pu->scss;

  memcpy (m->tx, pu->tx, sizeof m->tx);
  memcpy (m->rcv, pu->rcv, sizeof m->rcv);
  m->r0 = pu->r0;
  if (layout->domain == EF_DOMAIN_TOA)
    {
      m->dr = 0.5 * EF_C * pu->scss;
      m->r_start = 0.5 * EF_C * pu->sc0;
      m->kr = 4.0 * G_PI * 0.5 * (pu->fx1 + pu->fx2) / EF_C;
      return;
    }
  if (layout->domain == EF_DOMAIN_RAW)
    {
      /* The matched filter's kept band, its first bin at the carrier plus that bin's baseband
       * frequency. */
      double dfb = (1.0 / pu->scss) / layout->nc;
      guint i = layout->k_first % layout->nc;

      f0 = layout->fc + (i < layout->nc / 2 ? (double) i : (double) i - layout->nc) * dfb;
      df = dfb;
    }
  m->dr = EF_C / (2.0 * layout->n * df);
  m->r_start = -(double) (layout->n / 2) * m->dr;
  m->kr = 4.0 * G_PI * (f0 + (double) (layout->k / 2) * df) / EF_C;
}

EfRangeCompressor *
ef_range_compressor_new (const EfDatasetInfo *info, const EfRangeParams *params, gboolean fp64, GError **error)
{
  g_autoptr (EfRangeCompressor) rc = NULL;
  EfMatchedFilter mf;
  int n_threads = 1;

  g_return_val_if_fail (info != NULL && params != NULL, NULL);

  rc = g_new0 (EfRangeCompressor, 1);
  if (!ef_profile_layout_init (&rc->layout, info, params->upsample, &mf, error))
    return NULL;
  rc->chirp_conj = (fftw_complex *) g_steal_pointer (&mf.chirp_conj);
  ef_dataset_info_copy (info, &rc->info);
  rc->params = *params;
  rc->params.upsample = CLAMP (params->upsample, 1u, 64u);
  rc->fp64 = fp64;
  rc->window = g_new (double, rc->layout.k);
  ef_window_fill (params->window, params->taylor_nbar, params->taylor_sll_db, rc->window, rc->layout.k);
  ef_az_weight_init (&rc->az, params->az_window, params->az_taylor_nbar, params->az_taylor_sll_db,
                     &params->aperture);
  if (!fp64)
    {
      rc->w32 = g_new (float, rc->layout.k);
      rc->at32 = g_new (guint, rc->layout.k);
      for (guint k = 0; k < rc->layout.k; k++)
        {
          rc->at32[k] = centred_index (k, rc->layout.k, rc->layout.n);
          rc->w32[k] = (float) (rc->window[k] / rc->layout.k * (rc->at32[k] % 2 ? -1.0 : 1.0));
        }
    }

#if HAVE_OPENMP
  n_threads = omp_get_max_threads ();
#endif
  rc->n_scratch = (guint) MAX (1, n_threads);
  rc->scratch = g_new0 (Scratch, rc->n_scratch);
  for (guint i = 0; i < rc->n_scratch; i++)
    {
      Scratch *s = &rc->scratch[i];

      s->spec = fftw_malloc (sizeof (fftw_complex) * rc->layout.k);
      if (rc->layout.nc)
        s->raw = fftw_malloc (sizeof (fftw_complex) * rc->layout.nc);
      if (fp64)
        s->work64 = fftw_malloc (sizeof (fftw_complex) * rc->layout.n);
      else
        {
          s->work32 = fftwf_malloc (sizeof (fftwf_complex) * rc->layout.n);
          s->in32 = fftwf_malloc (sizeof (fftwf_complex) * rc->layout.n);
          if (s->in32 != NULL)
            memset (s->in32, 0, sizeof (fftwf_complex) * rc->layout.n);
        }
      if (s->spec == NULL || (rc->layout.nc && s->raw == NULL) || (s->work64 == NULL && (s->work32 == NULL || s->in32 == NULL)))
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                       "Not enough memory for range compression buffers");
          return NULL;
        }
    }

  /* Plans are made once, on the first scratch buffers, and executed on any buffer of the same alignment. */
  ef_fftw_planner_lock ();
  if (fp64)
    rc->inv64 = fftw_plan_dft_1d ((int) rc->layout.n, rc->scratch[0].work64, rc->scratch[0].work64, FFTW_BACKWARD,
                                  FFTW_ESTIMATE);
  else
    {
      /* Planned on an fftwf_malloc'd buffer; the profiles are 64-byte aligned: a profile row of a
       * power-of-two length shares its alignment, anything else goes through work32. */
      rc->inv32_out = fftwf_plan_dft_1d ((int) rc->layout.n, rc->scratch[0].in32, rc->scratch[0].work32, FFTW_BACKWARD,
                                         FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
      rc->out_align = fftwf_alignment_of ((float *) rc->scratch[0].work32);
    }
  if (rc->layout.nc)
    rc->raw_fwd = fftw_plan_dft_1d ((int) rc->layout.nc, rc->scratch[0].raw, rc->scratch[0].raw, FFTW_FORWARD,
                                    FFTW_ESTIMATE);
  ef_fftw_planner_unlock ();
  if ((fp64 && !rc->inv64) || (!fp64 && !rc->inv32_out) || (rc->layout.nc && !rc->raw_fwd))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "FFTW could not plan a %u-point FFT", rc->layout.n);
      return NULL;
    }
  return g_steal_pointer (&rc);
}

/* Brings one pulse to the common spectral form: bins from f0, df apart, where ef_profile_meta_fill says
 * they start. Returns the count of samples that were not finite. */
static guint64
prepare_spectrum (EfRangeCompressor *rc, Scratch *s, const EfPulse *pu, const EfCf32 *in)
{
  guint64 bad = 0;

  if (rc->info.domain == EF_DOMAIN_FX)
    {
      for (guint k = 0; k < rc->layout.k; k++)
        {
          float re = crealf (in[k]), im = cimagf (in[k]);

          if (!isfinite (re) || !isfinite (im))
            {
              re = im = 0;
              bad++;
            }
          s->spec[k][0] = re;
          s->spec[k][1] = im;
        }
      return bad;
    }

  /* RAW: matched filter, then move the delay origin to 2 r0 / c and fold the carrier so that the bins
   * obey the FX convention with f = fc + f_baseband. */
  {
    double fs = 1.0 / pu->scss, fc = rc->info.fc;
    double dfb = fs / rc->layout.nc;
    double shift = 2.0 * pu->r0 / EF_C - pu->sc0;

    memset (s->raw, 0, sizeof (fftw_complex) * rc->layout.nc);
    for (guint m = 0; m < rc->layout.n_in; m++)
      {
        float re = crealf (in[m]), im = cimagf (in[m]);

        if (!isfinite (re) || !isfinite (im))
          {
            re = im = 0;
            bad++;
          }
        s->raw[m][0] = re;
        s->raw[m][1] = im;
      }
    fftw_execute_dft (rc->raw_fwd, s->raw, s->raw);
    for (guint k = 0; k < rc->layout.k; k++)
      {
        guint i = (rc->layout.k_first + k) % rc->layout.nc;
        double fb = (i < rc->layout.nc / 2 ? (double) i : (double) i - rc->layout.nc) * dfb;
        double ph = 2.0 * G_PI * fb * shift + 4.0 * G_PI * fc * pu->r0 / EF_C;
        double cr = cos (ph), ci = sin (ph);
        double xr = s->raw[i][0] * rc->chirp_conj[i][0] - s->raw[i][1] * rc->chirp_conj[i][1];
        double xi = s->raw[i][0] * rc->chirp_conj[i][1] + s->raw[i][1] * rc->chirp_conj[i][0];

        s->spec[k][0] = xr * cr - xi * ci;
        s->spec[k][1] = xr * ci + xi * cr;
      }
  }
  return bad;
}

static void
execute_f32 (EfRangeCompressor *rc, Scratch *s, EfCf32 *out)
{
  if (fftwf_alignment_of ((float *) out) == rc->out_align)
    fftwf_execute_dft (rc->inv32_out, s->in32, (fftwf_complex *) out);
  else
    {
      fftwf_execute_dft (rc->inv32_out, s->in32, s->work32);
      memcpy (out, s->work32, sizeof (fftwf_complex) * rc->layout.n);
    }
}

/* FX samples in float32 straight to a profile, weighted by the window and the pulse's cross-range
 * weight wp: non-finite samples become zero and are counted. */
static guint64
compress_fx_f32 (EfRangeCompressor *rc, Scratch *s, const EfCf32 *in, float wp, EfCf32 *out)
{
  guint64 bad = 0;

  for (guint k = 0; k < rc->layout.k; k++)
    {
      guint i = rc->at32[k];
      float re = crealf (in[k]), im = cimagf (in[k]), w = rc->w32[k] * wp;
      int fin = isfinite (re) && isfinite (im);

      bad += !fin;
      s->in32[i][0] = fin ? re * w : 0.0f;
      s->in32[i][1] = fin ? im * w : 0.0f;
    }
  execute_f32 (rc, s, out);
  return bad;
}

/* Writes the K weighted bins into in32 (its other bins stay zero) and transforms it into out. */
static void
compress_one_f32 (EfRangeCompressor *rc, Scratch *s, float wp, EfCf32 *out)
{
  for (guint k = 0; k < rc->layout.k; k++)
    {
      guint i = rc->at32[k];
      float w = rc->w32[k] * wp;

      s->in32[i][0] = (float) s->spec[k][0] * w;
      s->in32[i][1] = (float) s->spec[k][1] * w;
    }
  execute_f32 (rc, s, out);
}

static void
compress_one_f64 (EfRangeCompressor *rc, Scratch *s, double wp, EfCf64 *out)
{
  guint n = rc->layout.n, h = n / 2;
  double scale = 1.0 / (double) rc->layout.k;

  memset (s->work64, 0, sizeof (fftw_complex) * n);
  for (guint k = 0; k < rc->layout.k; k++)
    {
      guint i = centred_index (k, rc->layout.k, n);
      s->work64[i][0] = s->spec[k][0] * (rc->window[k] * wp);
      s->work64[i][1] = s->spec[k][1] * (rc->window[k] * wp);
    }
  fftw_execute_dft (rc->inv64, s->work64, s->work64);
  for (guint m = 0; m < n; m++)
    {
      const double *z = s->work64[(m + h) % n];
      out[m] = (z[0] * scale) + (z[1] * scale) * I;
    }
}

gboolean
ef_range_compress (EfRangeCompressor *rc, const EfPulse *pulses, const EfCf32 *samples, guint count,
                   EfProfiles *out, guint64 *n_bad, GError **error)
{
  guint64 bad = 0;
  gboolean mono = TRUE;

  g_return_val_if_fail (rc != NULL && pulses != NULL && samples != NULL && out != NULL, FALSE);

  if (count > out->capacity || out->n_bins != rc->layout.n || (rc->fp64 ? out->data64 == NULL : out->data32 == NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The profile buffer does not match the compressor (%u/%u pulses, %u/%u bins)", count,
                   out->capacity, out->n_bins, rc->layout.n);
      return FALSE;
    }

#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 4) reduction(+:bad) num_threads(rc->n_scratch)
#endif
  for (guint p = 0; p < count; p++)
    {
      int t = 0;
      Scratch *s;
      const EfPulse *pu = &pulses[p];
      const EfCf32 *in = samples + (gsize) p * rc->layout.n_in;
      /* The pulse's cross-range weight: 1 where the aperture is not weighted. */
      double wp = ef_az_weight_at (&rc->az, pu);

#if HAVE_OPENMP
      t = omp_get_thread_num ();
#endif
      s = &rc->scratch[t];
      if (rc->info.domain == EF_DOMAIN_TOA)
        {
          for (guint m = 0; m < rc->layout.n; m++)
            {
              EfCf32 z = in[m];
              if (!isfinite (crealf (z)) || !isfinite (cimagf (z)))
                {
                  z = 0;
                  bad++;
                }
              if (rc->fp64)
                out->data64[(gsize) p * rc->layout.n + m] = (EfCf64) z * wp;
              else
                out->data32[(gsize) p * rc->layout.n + m] = z * (float) wp;
            }
        }
      else if (rc->info.domain == EF_DOMAIN_FX && !rc->fp64)
        bad += compress_fx_f32 (rc, s, in, (float) wp, out->data32 + (gsize) p * rc->layout.n);
      else
        {
          bad += prepare_spectrum (rc, s, pu, in);
          if (rc->fp64)
            compress_one_f64 (rc, s, wp, out->data64 + (gsize) p * rc->layout.n);
          else
            compress_one_f32 (rc, s, (float) wp, out->data32 + (gsize) p * rc->layout.n);
        }
      ef_profile_meta_fill (&rc->layout, pu, &out->meta[p]);
    }
  for (guint p = 0; p < count && mono; p++)
    mono = memcmp (pulses[p].tx, pulses[p].rcv, sizeof pulses[p].tx) == 0;
  out->n_pulses = count;
  out->monostatic = mono;
  if (n_bad)
    *n_bad = bad;
  return TRUE;
}
