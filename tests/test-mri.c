/* test-mri.c: non-Cartesian reconstruction: F^H d, Q, the Q convolution, CG, gridding, phantoms. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri.h"
#include "ef-mri-cg.h"
#include "ef-mri-gridding.h"
#include "ef-mri-phantom.h"

/* A trajectory of m samples uniform in [-n/2, n/2)^dim, fresh for every run. */
static EfMriTraj *
random_traj (guint dim, guint n, gsize m)
{
  g_autoptr (GError) error = NULL;
  EfMriTraj *t = ef_mri_traj_new (dim, m, &error);

  g_assert_no_error (error);
  for (gsize i = 0; i < m * dim; i++)
    t->k[i] = g_test_rand_double_range (-(double) n / 2, (double) n / 2);
  return t;
}

static EfCf64 *
random_c64 (gsize n)
{
  EfCf64 *d = g_new (EfCf64, n);

  for (gsize i = 0; i < n; i++)
    d[i] = g_test_rand_double_range (-1, 1) + I * g_test_rand_double_range (-1, 1);
  return d;
}

/* The float64 direct sum, written here from the definition: sum_m d_m exp(sign j 2 pi k_m . x_n). */
static void
direct_sum (const EfMriTraj *t, const EfCf64 *d, const EfMriGrid *g, EfCf64 *out)
{
  gsize n = (gsize) g->n[0] * g->n[1] * g->n[2];

  for (gsize v = 0; v < n; v++)
    {
      guint idx[3] = { v % g->n[0], (v / g->n[0]) % g->n[1], v / ((gsize) g->n[0] * g->n[1]) };
      EfCf64 acc = 0;

      for (gsize i = 0; i < t->m; i++)
        {
          double dot = 0;
          for (guint a = 0; a < t->dim; a++)
            dot += t->k[i * t->dim + a] * ((double) idx[a] - (double) (g->n[a] / 2)) * g->spacing;
          acc += d[i] * cexp (2 * G_PI * I * dot);
        }
      out[v] = acc;
    }
}

static double
rel_err64 (const EfCf64 *a, const EfCf64 *ref, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      num += creal ((a[i] - ref[i]) * conj (a[i] - ref[i]));
      den += creal (ref[i] * conj (ref[i]));
    }
  return sqrt (num / den);
}

static double
rel_err32 (const EfCf32 *a, const EfCf64 *ref, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      EfCf64 e = (EfCf64) a[i] - ref[i];
      num += creal (e * conj (e));
      den += creal (ref[i] * conj (ref[i]));
    }
  return sqrt (num / den);
}

static void
check_adjoint (guint dim, guint n, gsize m)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = random_traj (dim, n, m);
  EfMriGrid g = ef_mri_grid_image (dim, n);
  gsize nv = ef_mri_grid_voxels (&g, NULL);
  g_autofree EfCf64 *d = random_c64 (m), *ref = g_new (EfCf64, nv), *out = g_new (EfCf64, nv);
  g_autofree EfCf32 *d32 = g_new (EfCf32, m), *out32 = g_new (EfCf32, nv);
  double e64, e32;

  for (gsize i = 0; i < m; i++)
    d32[i] = (EfCf32) d[i];
  direct_sum (t, d, &g, ref);
  memset (out, 0xff, nv * sizeof *out);     /* NaN poison */
  memset (out32, 0xff, nv * sizeof *out32);
  g_assert_true (ef_mri_adjoint (t, d, &g, out, 0, &error));
  g_assert_no_error (error);
  g_assert_true (ef_mri_adjoint_f32 (t, d32, &g, out32, 0, &error));
  g_assert_no_error (error);
  e64 = rel_err64 (out, ref, nv);
  /* fp32 against the sum of the same (rounded) samples: the kernel's error, not the input's */
  {
    g_autofree EfCf64 *d32w = g_new (EfCf64, m);
    g_autofree EfCf64 *ref32 = g_new (EfCf64, nv);
    for (gsize i = 0; i < m; i++)
      d32w[i] = d32[i];
    direct_sum (t, d32w, &g, ref32);
    e32 = rel_err32 (out32, ref32, nv);
  }
  g_test_message ("F^H d %u-D, %u^%u voxels, %" G_GSIZE_FORMAT " samples: rel. L2 error fp64 %.2e, fp32 %.2e",
                  dim, n, dim, m, e64, e32);
  /* fp32 measured near 1e-6 */
  g_assert_cmpfloat (e64, <=, 1e-12);
  g_assert_cmpfloat (e32, <=, 3e-6);
}

static void
test_adjoint_2d (void)
{
  check_adjoint (2, 24, 3000);
}

static void
test_adjoint_3d (void)
{
  check_adjoint (3, 8, 3000);
}

static void
test_q (void)
{
  g_autoptr (GError) error = NULL;
  const guint n = 10;
  const gsize m = 2000;
  g_autoptr (EfMriTraj) t = random_traj (2, n, m);
  EfMriGrid img = ef_mri_grid_image (2, n), g = ef_mri_grid_doubled (&img);
  gsize nv = ef_mri_grid_voxels (&g, NULL);
  g_autofree double *w = g_new (double, m);
  g_autofree float *w32 = g_new (float, m);
  g_autofree EfCf64 *wc = g_new (EfCf64, m), *ref = g_new (EfCf64, nv), *out = g_new (EfCf64, nv);
  g_autofree EfCf32 *out32 = g_new (EfCf32, nv);
  double e64, e32;

  g_assert_cmpuint (nv, ==, 4 * n * n);
  for (gsize i = 0; i < m; i++)
    {
      w32[i] = (float) g_test_rand_double_range (0.1, 2);
      w[i] = w32[i];
      wc[i] = w[i];
    }
  direct_sum (t, wc, &g, ref);
  memset (out, 0xff, nv * sizeof *out);
  memset (out32, 0xff, nv * sizeof *out32);
  g_assert_true (ef_mri_q (t, w, &g, out, 0, &error));
  g_assert_true (ef_mri_q_f32 (t, w32, &g, out32, 0, &error));
  g_assert_no_error (error);
  e64 = rel_err64 (out, ref, nv);
  e32 = rel_err32 (out32, ref, nv);
  g_test_message ("Q on the doubled grid (%u^2), %" G_GSIZE_FORMAT " samples: rel. L2 error fp64 %.2e, fp32 %.2e",
                  2 * n, m, e64, e32);
  /* fp32 measured near 1e-6 */
  g_assert_cmpfloat (e64, <=, 1e-12);
  g_assert_cmpfloat (e32, <=, 3e-6);
  /* Q(0) is the sum of the weights, and Q is Hermitian: Q(-x) = conj Q(x) */
  {
    double sw = 0;
    for (gsize i = 0; i < m; i++)
      sw += w[i];
    g_assert_cmpfloat (fabs (creal (out[n * 2 * n + n]) - sw), <=, 1e-12 * sw);
    g_assert_cmpfloat (cabs (out[(n + 3) * 2 * n + n + 2] - conj (out[(n - 3) * 2 * n + n - 2])), <=, 1e-10 * sw);
  }
}

/* F^H W F by the Q convolution against F then W then F^H, both directly. */
static void
check_toeplitz (guint dim, guint n, gsize m)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = random_traj (dim, n, m);
  EfMriGrid img = ef_mri_grid_image (dim, n), big = ef_mri_grid_doubled (&img);
  gsize nv = ef_mri_grid_voxels (&img, NULL), nb = ef_mri_grid_voxels (&big, NULL);
  g_autofree double *w = g_new (double, m);
  g_autofree EfCf64 *rho = random_c64 (nv), *fr = g_new (EfCf64, m), *ref = g_new (EfCf64, nv);
  g_autofree EfCf64 *q = g_new (EfCf64, nb), *out = g_new (EfCf64, nv), *fr_ref = g_new (EfCf64, m);
  g_autoptr (EfMriToeplitz) T = NULL;
  double e, ef;

  for (gsize i = 0; i < m; i++)
    w[i] = g_test_rand_double_range (0.1, 2);
  g_assert_true (ef_mri_forward (t, rho, &img, fr, 0, &error));
  g_assert_no_error (error);
  /* the forward against its definition: conj of the adjoint sum of conj data at one sample each */
  for (gsize i = 0; i < m; i++)
    {
      EfCf64 acc = 0;
      for (gsize v = 0; v < nv; v++)
        {
          guint idx[3] = { v % img.n[0], (v / img.n[0]) % img.n[1], v / ((gsize) img.n[0] * img.n[1]) };
          double dot = 0;
          for (guint a = 0; a < dim; a++)
            dot += t->k[i * dim + a] * ((double) idx[a] - (double) (n / 2)) / n;
          acc += rho[v] * cexp (-2 * G_PI * I * dot);
        }
      fr_ref[i] = acc;
    }
  ef = rel_err64 (fr, fr_ref, m);
  g_assert_cmpfloat (ef, <=, 1e-12);
  for (gsize i = 0; i < m; i++)
    fr[i] *= w[i];
  direct_sum (t, fr, &img, ref);
  g_assert_true (ef_mri_q (t, w, &big, q, 0, &error));
  T = ef_mri_toeplitz_new (&img, q, &error);
  g_assert_no_error (error);
  memset (out, 0xff, nv * sizeof *out);
  ef_mri_toeplitz_apply (T, rho, out);
  e = rel_err64 (out, ref, nv);
  g_test_message ("F^H W F as a Q convolution (%u-D, %u a side, %" G_GSIZE_FORMAT " samples) against F, W, F^H "
                  "directly: rel. L2 error %.2e (F alone %.2e)", dim, n, m, e, ef);
  g_assert_cmpfloat (e, <=, 1e-10);
}

static void
test_toeplitz (void)
{
  check_toeplitz (2, 16, 1500);
  check_toeplitz (3, 6, 800);
}

static double
nrmse (const EfCf64 *x, const double *truth, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      num += creal ((x[i] - truth[i]) * conj (x[i] - truth[i]));
      den += truth[i] * truth[i];
    }
  return sqrt (num / den);
}

typedef struct {
  guint       n;
  EfMriTraj  *t;        /* owned */
  EfCf64     *dw;       /* owned: density-weighted data, area / N^2 * d */
  double     *w;        /* owned: area / N^2 */
  double      dwd;      /* d^H W d */
  double     *truth;    /* owned */
  EfMriToeplitz *T;     /* owned */
  EfCf64     *b;        /* owned: F^H W d */
} Problem;

static void
problem_init (Problem *p, EfMriTraj *t, const double *area, guint n)
{
  g_autoptr (GError) error = NULL;
  EfMriPhantom ph = ef_mri_phantom_shepp_logan (2);
  EfMriGrid img = ef_mri_grid_image (2, n), big = ef_mri_grid_doubled (&img);
  gsize nv = (gsize) n * n;
  g_autofree EfCf64 *d = g_new (EfCf64, t->m), *q = g_new (EfCf64, 4 * nv);

  p->n = n;
  p->t = t;
  p->dw = g_new (EfCf64, t->m);
  p->w = g_new (double, t->m);
  p->truth = g_new (double, nv);
  p->b = g_new (EfCf64, nv);
  p->dwd = 0;
  ef_mri_phantom_sample (&ph, t, (double) nv, d, 0);
  for (gsize i = 0; i < t->m; i++)
    {
      p->w[i] = area[i] / nv;
      p->dw[i] = p->w[i] * d[i];
      p->dwd += p->w[i] * creal (d[i] * conj (d[i]));
    }
  ef_mri_phantom_raster (&ph, &img, 4, p->truth);
  g_assert_true (ef_mri_adjoint (t, p->dw, &img, p->b, 0, &error));
  g_assert_true (ef_mri_q (t, p->w, &big, q, 0, &error));
  g_assert_no_error (error);
  p->T = ef_mri_toeplitz_new (&img, q, &error);
  g_assert_no_error (error);
}

static void
problem_clear (Problem *p)
{
  ef_mri_traj_free (p->t);
  g_free (p->dw);
  g_free (p->w);
  g_free (p->truth);
  g_free (p->b);
  ef_mri_toeplitz_free (p->T);
}

/* CG from zero for iters iterations; returns the NRMSE against the phantom. */
static double
problem_cg (Problem *p, EfMriReg reg, double lambda, guint iters, EfMriCgReport *report)
{
  g_autoptr (GError) error = NULL;
  gsize nv = (gsize) p->n * p->n;
  g_autofree EfCf64 *x = g_new0 (EfCf64, nv);
  EfMriCgParams prm = { .reg = reg, .lambda = lambda, .max_iter = iters, .tol = 0, .data_norm2 = p->dwd };

  g_assert_true (ef_mri_cg (p->T, p->b, &prm, x, report, &error));
  g_assert_no_error (error);
  return nrmse (x, p->truth, nv);
}

static void
test_cg_monotone (void)
{
  g_autoptr (GError) error = NULL;
  const guint n = 32, spokes = 50, nr = 64;
  Problem p;
  g_autofree double *area = g_new (double, spokes * nr);
  const EfMriReg regs[] = { EF_MRI_REG_NONE, EF_MRI_REG_TIKHONOV, EF_MRI_REG_GRADIENT };
  const double lambdas[] = { 0, 0.05, 0.05 };

  ef_mri_density_radial (n, spokes, nr, area);
  problem_init (&p, ef_mri_traj_radial (n, spokes, nr, &error), area, n);
  g_assert_no_error (error);
  for (guint r = 0; r < G_N_ELEMENTS (regs); r++)
    {
      EfMriCgReport rep;
      g_autoptr (GString) s = g_string_new (NULL);
      gboolean normal_monotone = TRUE;

      problem_cg (&p, regs[r], lambdas[r], 25, &rep);
      g_assert_cmpuint (rep.iterations, ==, 25);
      for (guint k = 1; k <= rep.iterations; k++)
        {
          /* the objective CG minimises over growing Krylov spaces never rises */
          g_assert_cmpfloat (rep.objective[k], <=, rep.objective[k - 1] * (1 + 1e-12));
          normal_monotone = normal_monotone && rep.residual[k] <= rep.residual[k - 1];
        }
      for (guint k = 0; k <= rep.iterations; k += 5)
        g_string_append_printf (s, " %u: %.3e/%.4f", k, rep.residual[k], rep.objective[k]);
      g_test_message ("CG, regulariser %u, lambda %g: |b - Ax|/|b| / sqrt(J / d^H W d) by iteration:%s "
                      "(normal residual monotone: %s)", regs[r], lambdas[r], s->str, normal_monotone ? "yes" : "no");
      g_assert_cmpfloat (rep.residual[rep.iterations], <, 0.05 * rep.residual[0]);
      g_assert_cmpfloat (rep.objective[rep.iterations], <, rep.objective[0]);
      ef_mri_cg_report_clear (&rep);
    }
  /* a tolerance stops it early, and says so */
  {
    EfMriCgReport rep;
    gsize nv = (gsize) n * n;
    g_autofree EfCf64 *x = g_new0 (EfCf64, nv);
    EfMriCgParams prm = { .max_iter = 200, .tol = 1e-3 };

    g_assert_true (ef_mri_cg (p.T, p.b, &prm, x, &rep, &error));
    g_assert_true (rep.converged);
    g_assert_cmpuint (rep.iterations, <, 200);
    g_assert_cmpfloat (rep.residual[rep.iterations], <=, 1e-3);
    ef_mri_cg_report_clear (&rep);
  }
  problem_clear (&p);
}

static void
report_nrmse (const char *what, Problem *p, double *out_grid, double *out_cg20)
{
  g_autoptr (GError) error = NULL;
  EfMriGrid img = ef_mri_grid_image (2, p->n);
  gsize nv = (gsize) p->n * p->n;
  g_autofree EfCf64 *x = g_new (EfCf64, nv);
  const guint iters[] = { 5, 10, 20 };
  double e_grid, e_fhd, e_cg[3];

  g_assert_true (ef_mri_gridding (p->t, p->dw, &img, 4, x, &error));
  g_assert_no_error (error);
  e_grid = nrmse (x, p->truth, nv);
  e_fhd = nrmse (p->b, p->truth, nv);
  for (guint i = 0; i < 3; i++)
    {
      EfMriCgReport rep;
      e_cg[i] = problem_cg (p, EF_MRI_REG_NONE, 0, iters[i], &rep);
      ef_mri_cg_report_clear (&rep);
    }
  g_test_message ("NRMSE against the phantom, %s: gridding (KB width 4) %.4f, F^H W d %.4f, CG 5 its %.4f, "
                  "10 its %.4f, 20 its %.4f", what, e_grid, e_fhd, e_cg[0], e_cg[1], e_cg[2]);
  *out_grid = e_grid;
  *out_cg20 = e_cg[2];
  g_assert_cmpfloat (e_cg[2], <, e_fhd);
}

static void
test_nrmse (void)
{
  g_autoptr (GError) error = NULL;
  const guint n = 64, spokes = 100, nr = 128;
  Problem p;
  g_autofree double *area = g_new (double, spokes * nr);
  double e_grid, e_cg;

  ef_mri_density_radial (n, spokes, nr, area);
  problem_init (&p, ef_mri_traj_radial (n, spokes, nr, &error), area, n);
  g_assert_no_error (error);
  report_nrmse ("64^2, radial 100 spokes x 128", &p, &e_grid, &e_cg);
  g_assert_cmpfloat (e_cg, <, e_grid);
  problem_clear (&p);
}

static void
test_nrmse_spiral (void)
{
  g_autoptr (GError) error = NULL;
  const guint n = 64, arms = 16, per = 1024;
  Problem p;
  EfMriTraj *t = ef_mri_traj_spiral (n, arms, per, &error);
  EfMriGrid img = ef_mri_grid_image (2, n);
  g_autofree double *area = g_new (double, arms * per);
  double e_grid, e_cg;

  g_assert_no_error (error);
  g_assert_true (ef_mri_density_pipe (t, &img, 4, 20, area, &error));
  g_assert_no_error (error);
  problem_init (&p, t, area, n);
  report_nrmse ("64^2, spiral 16 arms x 1024, Pipe-Menon weights", &p, &e_grid, &e_cg);
  problem_clear (&p);
}

/* The gridding baseline against the exact sum on the same weighted samples, for each kernel width. */
static void
test_gridding_error (void)
{
  g_autoptr (GError) error = NULL;
  const guint n = 32;
  const gsize m = 4000;
  g_autoptr (EfMriTraj) t = random_traj (2, n, m);
  EfMriGrid img = ef_mri_grid_image (2, n);
  gsize nv = (gsize) n * n;
  g_autofree EfCf64 *d = random_c64 (m), *ref = g_new (EfCf64, nv), *out = g_new (EfCf64, nv);
  /* measured 6e-4, 6e-5 and 7e-6 (2.5x margin) */
  const double limit[] = { 0, 0, 0, 0, 1.5e-3, 1.5e-4, 1.5e-5 };

  g_assert_true (ef_mri_adjoint (t, d, &img, ref, 0, &error));
  for (guint w = 4; w <= 6; w++)
    {
      double e;

      memset (out, 0xff, nv * sizeof *out);
      g_assert_true (ef_mri_gridding (t, d, &img, w, out, &error));
      g_assert_no_error (error);
      e = rel_err64 (out, ref, nv);
      g_test_message ("gridding, KB width %u, sigma 2, beta %.3f: rel. L2 error against the exact F^H d %.2e", w,
                      ef_mri_kb_beta (w, 2), e);
      g_assert_cmpfloat (e, <=, limit[w]);
    }
  g_assert_false (ef_mri_gridding (t, d, &img, 1, out, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

/* The analytic transform against a DFT of the finely rasterised phantom at low k. */
static void
check_analytic (guint dim, guint fine, int kmax, double limit)
{
  g_autoptr (GError) error = NULL;
  EfMriPhantom ph = ef_mri_phantom_shepp_logan (dim);
  EfMriGrid g = ef_mri_grid_image (dim, fine);
  gsize nv = ef_mri_grid_voxels (&g, NULL), m = 1, i = 0;
  g_autofree double *raster = g_new (double, nv);
  g_autofree EfCf64 *rho = g_new (EfCf64, nv);
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *dft = NULL, *exact = NULL;
  int kz_lim = dim == 3 ? kmax : 0;
  double e;

  for (guint a = 0; a < dim; a++)
    m *= 2 * kmax + 1;
  t = ef_mri_traj_new (dim, m, &error);
  for (int kz = -kz_lim; kz <= kz_lim; kz++)
    for (int ky = -kmax; ky <= kmax; ky++)
      for (int kx = -kmax; kx <= kmax; kx++, i++)
        {
          t->k[i * dim] = kx;
          t->k[i * dim + 1] = ky;
          if (dim == 3)
            t->k[i * dim + 2] = kz;
        }
  ef_mri_phantom_raster (&ph, &g, 1, raster);
  for (gsize v = 0; v < nv; v++)
    rho[v] = raster[v] / nv;          /* the voxel's volume */
  dft = g_new (EfCf64, m);
  exact = g_new (EfCf64, m);
  g_assert_true (ef_mri_forward (t, rho, &g, dft, 0, &error));
  g_assert_no_error (error);
  ef_mri_phantom_sample (&ph, t, 1.0, exact, 0);
  e = rel_err64 (dft, exact, m);
  g_test_message ("%u-D phantom: analytic transform against the DFT of a %u^%u raster, |k| <= %d: rel. L2 %.2e "
                  "(F(0) = %.5f, DFT %.5f)", dim, fine, dim, kmax, e, creal (exact[m / 2]), creal (dft[m / 2]));
  g_assert_cmpfloat (e, <=, limit);
}

static void
test_analytic (void)
{
  /* measured 8e-4 and 4e-3: the raster's staircase edges */
  check_analytic (2, 1024, 6, 2e-3);
  check_analytic (3, 96, 2, 1e-2);
}

static void
test_bad_input (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = random_traj (2, 8, 10);
  EfMriGrid g = ef_mri_grid_image (3, 8);
  EfCf64 d[10] = { 0 }, out[64];

  g_assert_null (ef_mri_traj_new (4, 10, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ef_mri_adjoint (t, d, &g, out, 0, &error));   /* 2-D samples, 3-D grid */
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g = ef_mri_grid_image (2, 100000);
  g_assert_false (ef_mri_adjoint (t, d, &g, out, 0, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g = ef_mri_grid_image (2, 8);
  t->k[3] = NAN;
  g_assert_false (ef_mri_adjoint (t, d, &g, out, 0, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ef_mri_traj_radial (8, 0, 16, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/mri/adjoint/2d", test_adjoint_2d);
  g_test_add_func ("/compute/mri/adjoint/3d", test_adjoint_3d);
  g_test_add_func ("/compute/mri/q", test_q);
  g_test_add_func ("/compute/mri/toeplitz", test_toeplitz);
  g_test_add_func ("/compute/mri/cg/monotone", test_cg_monotone);
  g_test_add_func ("/compute/mri/gridding/error", test_gridding_error);
  g_test_add_func ("/compute/mri/nrmse/radial", test_nrmse);
  g_test_add_func ("/compute/mri/nrmse/spiral", test_nrmse_spiral);
  g_test_add_func ("/compute/mri/phantom/analytic", test_analytic);
  g_test_add_func ("/compute/mri/bad-input", test_bad_input);
  return g_test_run ();
}
