/* ef-cuda-mf-tune.c: picks the fastest matched-filter launch shape per device and class, kept beside BP's and MRI's. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-backend-private.h"

#define GROUP "MF"
/* The kernel time each shape's launch aims at, from a first run of the default shape. The image the
 * tuner times is the class's edge, but at most MAX_EDGE (a larger one fills the device no better and only
 * takes longer), and smaller still where its first launch (of FIRST_PULSES) would pass FIRST_WORK
 * pixel-pulse-samples, a fraction of a second on current devices; never below MIN_EDGE. */
#define TARGET_MS 25.0
#define MAX_EDGE 2048u
#define MIN_EDGE 64u
#define FIRST_PULSES 4u
#define FIRST_WORK 4e11
#define MAX_PULSES 4096u
/* Device memory the synthetic samples may take. */
#define MAX_SAMPLE_BYTES ((gsize) 256 << 20)

char *
ef_cuda_mf_tune_key (guint edge, guint n_samples)
{
  return g_strdup_printf ("edge%u-samples%u", ef_cuda_tune_pow2 (edge), ef_cuda_tune_pow2 (n_samples));
}

guint
ef_cuda_mf_tune_lookup (const char *device_name, guint edge, guint n_samples)
{
  g_autofree char *key = ef_cuda_mf_tune_key (edge, n_samples);
  gint v = ef_cuda_tune_kernel_get (GROUP, device_name, key, 1, EF_CUDA_MF_N_SHAPES);

  return v < 0 ? 0 : (guint) v;
}

gboolean
ef_cuda_mf_tune_store (const char *device_name, guint edge, guint n_samples, guint shape, GError **error)
{
  g_autofree char *key = ef_cuda_mf_tune_key (edge, n_samples);

  g_return_val_if_fail (device_name != NULL && shape >= 1 && shape <= EF_CUDA_MF_N_SHAPES, FALSE);
  return ef_cuda_tune_kernel_set (GROUP, device_name, key, (gint) shape, error);
}

guint
ef_cuda_mf_pick_shape (const char *device_name, guint edge, guint n_samples, gboolean *tuned)
{
  guint s = ef_cuda_mf_tune_lookup (device_name, edge, n_samples);

  if (tuned)
    *tuned = s > 0;
  return s > 0 ? s : EF_CUDA_MF_DEFAULT_SHAPE;
}

/* The synthetic problem on the device: random samples (already weighted, as the kernel takes them) of
 * n_pulses over a 4 degree arc at 10 km, 30 degrees grazing, X band, 600 MHz; an edge x edge image at
 * the range resolution about the scene centre. Owned device buffers. */
typedef struct {
  EfCudaMfArgs   args;
  void          *d_samples;
  EfCudaMfPulse *d_pulses;
  void          *d_image;
  cudaEvent_t    t0, t1;
  cudaStream_t   stream;
} Problem;

static void
problem_free (Problem *pr)
{
  FREE_DEV (pr->d_samples);
  FREE_DEV (pr->d_pulses);
  FREE_DEV (pr->d_image);
  if (pr->t0)
    EF_CUDA_WARN (cudaEventDestroy (pr->t0));
  if (pr->t1)
    EF_CUDA_WARN (cudaEventDestroy (pr->t1));
  if (pr->stream)
    EF_CUDA_WARN (cudaStreamDestroy (pr->stream));
  memset (pr, 0, sizeof *pr);
}

static gboolean
problem_init (Problem *pr, guint edge, guint n_pulses, guint n_samples, GError **error)
{
  const double R = 10e3, graze = 30.0 * G_PI / 180.0, span = 4.0 * G_PI / 180.0, fc = 9.6e9, bw = 600e6;
  const double res = EF_C / (2 * bw);
  const gsize n_s = (gsize) n_pulses * n_samples, n_px = (gsize) edge * edge;
  g_autofree EfCudaMfPulse *h_pulses = g_new0 (EfCudaMfPulse, n_pulses);
  g_autofree float *h_samples = g_try_new (float, 2 * n_s);
  g_autoptr (GRand) rand = g_rand_new_with_seed (12345);

  memset (pr, 0, sizeof *pr);
  if (h_samples == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples",
                   n_s);
      return FALSE;
    }
  for (guint p = 0; p < n_pulses; p++)
    {
      EfMfPulse m = { 0 };
      const double az = -0.5 * span + span * p / MAX (n_pulses - 1.0, 1.0);

      m.tx[0] = R * cos (graze) * cos (az);
      m.tx[1] = R * cos (graze) * sin (az);
      m.tx[2] = R * sin (graze);
      memcpy (m.rcv, m.tx, sizeof m.tx);
      m.r0 = R;
      m.f0 = fc - 0.5 * bw;
      m.df = bw / MAX (n_samples - 1.0, 1.0);
      ef_cuda_mf_pulse_fill (&m, 1.0, &h_pulses[p]);
    }
  for (gsize i = 0; i < 2 * n_s; i++)
    h_samples[i] = (float) g_rand_double_range (rand, -1, 1);

  EF_CUDA_CHECK (cudaStreamCreateWithFlags (&pr->stream, cudaStreamNonBlocking), error);
  EF_CUDA_CHECK (cudaEventCreate (&pr->t0), error);
  EF_CUDA_CHECK (cudaEventCreate (&pr->t1), error);
  EF_CUDA_CHECK (ef_cuda_malloc (&pr->d_samples, n_s * 2 * sizeof (float)), error);
  EF_CUDA_CHECK (ef_cuda_malloc ((void **) &pr->d_pulses, n_pulses * sizeof (EfCudaMfPulse)), error);
  EF_CUDA_CHECK (ef_cuda_malloc (&pr->d_image, n_px * 2 * sizeof (float)), error);
  EF_CUDA_CHECK (cudaMemcpy (pr->d_samples, h_samples, n_s * 2 * sizeof (float), cudaMemcpyHostToDevice), error);
  EF_CUDA_CHECK (cudaMemcpy (pr->d_pulses, h_pulses, n_pulses * sizeof (EfCudaMfPulse), cudaMemcpyHostToDevice),
                 error);
  EF_CUDA_CHECK (cudaMemset (pr->d_image, 0, n_px * 2 * sizeof (float)), error);

  for (int i = 0; i < 3; i++)
    {
      pr->args.origin[i] = 0;
      pr->args.su[i] = pr->args.sv[i] = 0;
    }
  pr->args.origin[0] = pr->args.origin[1] = -0.5 * edge * res;
  pr->args.su[0] = res;
  pr->args.sv[1] = res;
  pr->args.width = pr->args.height = edge;
  pr->args.samples = pr->d_samples;
  pr->args.n_samples = n_samples;
  pr->args.pulses = pr->d_pulses;
  pr->args.n_pulses = n_pulses;
  pr->args.image = pr->d_image;
  return TRUE;
}

/* The fastest of runs launches of shape, in milliseconds of device time. */
static gboolean
time_shape (Problem *pr, guint shape, int runs, double *ms, GError **error)
{
  *ms = G_MAXDOUBLE;
  for (int r = 0; r < runs; r++)
    {
      float t;

      EF_CUDA_CHECK (cudaEventRecord (pr->t0, pr->stream), error);
      if (!ef_cuda_mf_launch (pr->stream, shape, &pr->args, error))
        return FALSE;
      EF_CUDA_CHECK (cudaEventRecord (pr->t1, pr->stream), error);
      EF_CUDA_CHECK (cudaEventSynchronize (pr->t1), error);
      EF_CUDA_CHECK (cudaEventElapsedTime (&t, pr->t0, pr->t1), error);
      *ms = MIN (*ms, (double) t);
    }
  return TRUE;
}

static gboolean
tune (int device, const char *name, guint edge, guint n_samples, Problem *pr, guint *shape, char **report,
      GError **error)
{
  g_autoptr (GString) table = g_string_new (NULL);
  g_autofree char *key = ef_cuda_mf_tune_key (edge, n_samples);
  const guint k = ef_cuda_tune_pow2 (n_samples);
  const guint max_pulses = (guint) MIN ((gsize) MAX_PULSES, MAX (MAX_SAMPLE_BYTES / ((gsize) k * 8), (gsize) 1));
  double ms[EF_CUDA_MF_N_SHAPES], ms0, best_ms = G_MAXDOUBLE;
  guint n_pulses = MIN (FIRST_PULSES, max_pulses), winner = EF_CUDA_MF_DEFAULT_SHAPE;
  guint e = MIN (ef_cuda_tune_pow2 (edge), MAX_EDGE);

  while (e > MIN_EDGE && (double) e * e * n_pulses * k > FIRST_WORK)
    e /= 2;

  EF_CUDA_CHECK (cudaSetDevice (device), error);
  /* A few pulses first, then as many as make a launch of the default last about TARGET_MS: a short run is
   * mostly launch overhead, so the estimate is refined until a run is long enough to trust. */
  if (!problem_init (pr, e, n_pulses, k, error))
    return FALSE;
  for (int round = 0; round < 4; round++)
    {
      guint want;

      if (!time_shape (pr, EF_CUDA_MF_DEFAULT_SHAPE, 2, &ms0, error))
        return FALSE;
      want = (guint) CLAMP (n_pulses * TARGET_MS / MAX (ms0, 1e-3), 1.0, (double) max_pulses);
      if (want == n_pulses || (ms0 >= TARGET_MS / 4 && ms0 <= TARGET_MS * 4))
        break;
      n_pulses = want;
      problem_free (pr);
      if (!problem_init (pr, e, n_pulses, k, error))
        return FALSE;
    }

  g_string_append_printf (table, "%s, matched filter, class %s: timed on %u x %u px, %u pulses x %u samples\n",
                          name, key, e, e, n_pulses, k);
  g_string_append (table, "shape  kernel ms  px-pulse-samples/s  chosen  name\n");
  for (guint s = 1; s <= EF_CUDA_MF_N_SHAPES; s++)
    {
      /* Three runs, the fastest counts: the first also pays for module loading. */
      if (!time_shape (pr, s, 3, &ms[s - 1], error))
        {
          g_prefix_error (error, "Matched-filter shape %u: ", s);
          return FALSE;
        }
      if (ms[s - 1] < best_ms)
        {
          best_ms = ms[s - 1];
          winner = s;
        }
    }
  for (guint s = 1; s <= EF_CUDA_MF_N_SHAPES; s++)
    g_string_append_printf (table, "%5u  %9.3f  %18.3e  %-6s  %s\n", s, ms[s - 1],
                            (double) e * e * n_pulses * k / (ms[s - 1] * 1e-3), s == winner ? "yes" : "",
                            ef_cuda_mf_shape_name (s));
  g_string_append_printf (table, "fastest: shape %u (%s), %.2fx the default\n", winner, ef_cuda_mf_shape_name (winner),
                          ms[EF_CUDA_MF_DEFAULT_SHAPE - 1] / best_ms);

  if (!ef_cuda_mf_tune_store (name, edge, n_samples, winner, error))
    return FALSE;
  if (shape)
    *shape = winner;
  if (report)
    *report = g_string_free (g_steal_pointer (&table), FALSE);
  return TRUE;
}

gboolean
ef_cuda_mf_tune (int device, guint edge, guint n_samples, guint *shape, char **report, GError **error)
{
  g_autofree char *name = NULL;
  Problem pr = { 0 };
  gboolean ok;

  g_return_val_if_fail (edge > 0 && n_samples > 0, FALSE);
  if (edge > 65536 || n_samples > (1u << 22))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u px and %u samples are outside the tuner's classes (edges to 65536, samples to 2^22)", edge,
                   n_samples);
      return FALSE;
    }
  if (!ef_cuda_available (NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device");
      return FALSE;
    }
  if (device < 0)
    EF_CUDA_CHECK (cudaGetDevice (&device), error);
  name = ef_cuda_device_name (device);
  if (name == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device %d", device);
      return FALSE;
    }
  ok = tune (device, name, edge, n_samples, &pr, shape, report, error);
  problem_free (&pr);
  return ok;
}
