/* ef-test-scene.c: simulated scenes and image formation shared by the engine tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "ef-test-scene.h"

EfProfiles *
ef_test_compress (EfDataset *ds, const EfRangeParams *rp, gboolean fp64)
{
  g_autoptr (EfRangeCompressor) rc = ef_range_compressor_new (&ds->info, rp, fp64, NULL);
  guint np = (guint) ds->info.n_pulses;
  g_autofree EfCf32 *s = g_new (EfCf32, (gsize) np * ds->info.n_samples);
  EfProfiles *p;

  g_assert_nonnull (rc);
  p = ef_profiles_new (np, ef_range_compressor_n_bins (rc), fp64, NULL);
  g_assert_nonnull (p);
  g_assert_true (ef_dataset_read_block (ds, 0, np, s, NULL));
  g_assert_true (ef_range_compress (rc, ds->pulses, s, np, p, NULL, NULL));
  return p;
}

EfCf64 *
ef_test_form_fp64 (EfDataset *ds, const EfGrid *grid, const EfRangeParams *rp)
{
  g_autoptr (EfProfiles) p = ef_test_compress (ds, rp, TRUE);
  EfCf64 *img = g_new0 (EfCf64, ef_grid_n_pixels (grid));

  ef_bp_reference (grid, p, img);
  return img;
}

EfCf32 *
ef_test_form_fp32 (EfDataset *ds, const EfGrid *grid, const EfRangeParams *rp)
{
  g_autoptr (EfProfiles) p = ef_test_compress (ds, rp, FALSE);
  EfCf32 *img = g_new (EfCf32, ef_grid_n_pixels (grid));

  /* Poisoned first: the fast path adds, so anything it forgets to clear shows. */
  for (gsize i = 0; i < ef_grid_n_pixels (grid); i++)
    img[i] = 0;
  ef_bp_cpu_fp32 (grid, p, img, 0);
  return img;
}

EfSimTarget *
ef_test_random_targets (guint n, double x0, double y0, double x1, double y1)
{
  EfSimTarget *t = g_new0 (EfSimTarget, n);

  for (guint i = 0; i < n; i++)
    {
      t[i].pos[0] = g_test_rand_double_range (x0, x1);
      t[i].pos[1] = g_test_rand_double_range (y0, y1);
      t[i].pos[2] = 0;
      t[i].amp = g_test_rand_double_range (0.2, 1.0) * cexp (I * g_test_rand_double_range (-G_PI, G_PI));
    }
  return t;
}

double
ef_test_sinc_islr_db (double extent_irw)
{
  /* sinc(x) = sin(pi x)/(pi x): nulls at +-1, -3 dB width 0.88589. */
  const double irw = 0.885893, h = 1e-4;
  double lim = extent_irw * irw, main_e = 0, side_e = 0;

  for (double x = h / 2; x < lim; x += h)
    {
      double s = sin (G_PI * x) / (G_PI * x), e = s * s * h;
      if (x < 1)
        main_e += e;
      else
        side_e += e;
    }
  return 10 * log10 (side_e / main_e);
}

double
ef_test_ser_db64 (const EfCf64 *t, const EfCf64 *r, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      num += pow (cabs (r[i]), 2);
      den += pow (cabs (t[i] - r[i]), 2);
    }
  return den > 0 ? 10 * log10 (num / den) : INFINITY;
}

gpointer
ef_test_form_pfa (const EfProfiles *all, const EfGrid *grid, double bandwidth, const EfPfaParams *pp, guint block,
                  EfPfaReport *rep)
{
  g_autoptr (GError) error = NULL;
  const gboolean f64 = all->data64 != NULL;
  g_autoptr (EfPfa) pfa = ef_pfa_new (grid, bandwidth, f64, pp, &error);
  const gsize n = ef_grid_n_pixels (grid);
  gpointer img = f64 ? (gpointer) g_new (EfCf64, n) : (gpointer) g_new (EfCf32, n);

  g_assert_no_error (error);
  for (guint p0 = 0; p0 < all->n_pulses; p0 += block)
    {
      EfProfiles view = *all;

      view.n_pulses = MIN (block, all->n_pulses - p0);
      view.meta = all->meta + p0;
      if (f64)
        view.data64 = all->data64 + (gsize) p0 * all->n_bins;
      else
        view.data32 = all->data32 + (gsize) p0 * all->n_bins;
      g_assert_true (ef_pfa_add (pfa, &view, &error));
      g_assert_no_error (error);
    }
  g_assert_true (ef_pfa_form (pfa, f64 ? img : NULL, f64 ? NULL : img, rep, &error));
  g_assert_no_error (error);
  return img;
}

void
ef_test_place_targets (EfSimTarget *tg, const double (*xy)[2], guint n)
{
  memset (tg, 0, n * sizeof *tg);
  for (guint i = 0; i < n; i++)
    {
      tg[i].pos[0] = xy[i][0];
      tg[i].pos[1] = xy[i][1];
      tg[i].amp = cexp (I * g_test_rand_double_range (-G_PI, G_PI));
    }
}

/* Sampled 64 times finer than the bins by a zero-padded float64 FFT, the main lobe taken out to its first
 * null. (fftw_complex is C99's double complex here: <complex.h> comes first.) */
double
ef_test_pslr_db (const double *w, guint n)
{
  guint nfft = 1;
  fftw_complex *buf;
  fftw_plan plan;
  g_autofree double *mag = NULL;
  double peak, side = 0;
  guint k = 1;

  while (nfft < 64 * n)
    nfft <<= 1;
  buf = fftw_malloc (sizeof (fftw_complex) * nfft);
  mag = g_new (double, nfft);
  memset (buf, 0, sizeof (fftw_complex) * nfft);
  for (guint i = 0; i < n; i++)
    buf[i] = w[i];
  plan = fftw_plan_dft_1d ((int) nfft, buf, buf, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute (plan);
  for (guint i = 0; i < nfft; i++)
    mag[i] = cabs (buf[i]);
  fftw_destroy_plan (plan);
  fftw_free (buf);
  peak = mag[0];
  while (k + 1 < nfft / 2 && mag[k + 1] < mag[k])
    k++;
  for (; k <= nfft / 2; k++)
    side = MAX (side, mag[k]);
  return 20 * log10 (side / peak);
}

/* The aperture weights of n pulses evenly spread in look angle, as ef_az_weight_at gives them. */
void
ef_test_az_weights (EfWindow window, guint n, double *w)
{
  for (guint k = 0; k < n; k++)
    w[k] = ef_window_value (window, 4, -35.0, (k + 0.5) / n);
}
