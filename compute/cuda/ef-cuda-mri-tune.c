/* ef-cuda-mri-tune.c: picks the fastest MRI sum shape per device and problem class, kept beside BP's choices. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-mri"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-tune-private.h"
#include "ef-cuda-mri.h"

/* The kernel time each shape's run aims at, from a first run of the default shape. */
#define TARGET_MS 150.0
#define MIN_SAMPLES 2048
#define MAX_SAMPLES ((gsize) 1 << 23)

static guint
decade (gsize n_vox)
{
  guint d = 0;

  while (n_vox >= 10)
    {
      n_vox /= 10;
      d++;
    }
  return d;
}

char *
ef_cuda_mri_tune_key (guint dim, gsize n_vox, gboolean q)
{
  return g_strdup_printf ("%s-%ud-vox1e%u", q ? "q" : "fhd", dim, decade (n_vox));
}

static gboolean
shape_fits (guint shape, guint nx)
{
  return shape < EF_CUDA_MRI_N_SHAPES && (!ef_cuda_mri_shapes[shape].rotate || nx % ef_cuda_mri_shapes[shape].voxels == 0);
}

int
ef_cuda_mri_tune_lookup (const char *device_name, const EfMriGrid *grid, gboolean q)
{
  g_autofree char *key = NULL;
  gsize n_vox;
  gint v;

  if (device_name == NULL || grid == NULL || (n_vox = ef_mri_grid_voxels (grid, NULL)) == 0)
    return -1;
  key = ef_cuda_mri_tune_key (grid->dim, n_vox, q);
  v = ef_cuda_tune_kernel_get ("MRI", device_name, key, 0, EF_CUDA_MRI_N_SHAPES - 1);
  return v >= 0 && shape_fits ((guint) v, grid->n[0]) ? v : -1;
}

gboolean
ef_cuda_mri_tune_store (const char *device_name, guint dim, gsize n_vox, gboolean q, guint shape, GError **error)
{
  g_autofree char *key = ef_cuda_mri_tune_key (dim, n_vox, q);

  g_return_val_if_fail (device_name != NULL && shape < EF_CUDA_MRI_N_SHAPES, FALSE);
  return ef_cuda_tune_kernel_set ("MRI", device_name, key, (gint) shape, error);
}

int
ef_cuda_mri_pick_shape (int device, const EfMriGrid *grid, gboolean q, gboolean *tuned)
{
  g_autofree char *name = ef_cuda_device_name (device);
  int s = ef_cuda_mri_tune_lookup (name, grid, q);

  *tuned = s >= 0;
  if (s >= 0)
    return s;
  return grid->n[0] % ef_cuda_mri_shapes[EF_CUDA_MRI_DEFAULT_SHAPE].voxels == 0 ? EF_CUDA_MRI_DEFAULT_SHAPE
                                                                             : EF_CUDA_MRI_ANY_SHAPE;
}

/* Random samples over the grid's whole band, and random data (NULL for Q). */
static EfMriTraj *
synthetic_traj (const EfMriGrid *g, gsize m, GRand *rand, EfCf32 **d, gboolean q, GError **error)
{
  EfMriTraj *t = ef_mri_traj_new (g->dim, m, error);

  if (t == NULL)
    return NULL;
  for (gsize i = 0; i < m * g->dim; i++)
    t->k[i] = g_rand_double_range (rand, -0.5, 0.5) / g->spacing;
  *d = NULL;
  if (!q)
    {
      *d = g_try_new (EfCf32, m);
      if (*d == NULL)
        {
          ef_mri_traj_free (t);
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples", m);
          return NULL;
        }
      for (gsize i = 0; i < m; i++)
        (*d)[i] = (float) g_rand_double_range (rand, -1, 1) + I * (float) g_rand_double_range (rand, -1, 1);
    }
  return t;
}

/* The fastest of runs kernel timings of shape. */
static gboolean
time_shape (int device, const EfMriTraj *t, const EfCf32 *d, const EfMriGrid *g, guint shape, EfCf64 *out, int runs,
            double *ms, GError **error)
{
  *ms = G_MAXDOUBLE;
  for (int r = 0; r < runs; r++)
    {
      EfCudaMriTiming tm;

      if (!ef_cuda_mri_sum (device, t, d, NULL, g, (int) shape, out, &tm, error))
        return FALSE;
      *ms = MIN (*ms, tm.kernel_ms);
    }
  return TRUE;
}

gboolean
ef_cuda_mri_tune (int device, guint dim, gsize n_vox, gboolean q, guint *shape, char **report, GError **error)
{
  g_autofree char *name = NULL;
  g_autoptr (GString) table = g_string_new (NULL);
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf32 *d = NULL;
  g_autofree EfCf64 *out = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (12345);
  g_autofree char *key = ef_cuda_mri_tune_key (dim, n_vox, q);
  double ms0, ms[EF_CUDA_MRI_N_SHAPES], best_ms = G_MAXDOUBLE, target, edge_f;
  guint edge, winner = EF_CUDA_MRI_DEFAULT_SHAPE;
  EfMriGrid g;
  gsize nv, m;

  g_return_val_if_fail (dim == 2 || dim == 3, FALSE);
  if (n_vox < 64 || n_vox > ((gsize) 1 << 30))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%" G_GSIZE_FORMAT " voxels is outside the tuner's classes (64 to 2^30)", n_vox);
      return FALSE;
    }
  if (!ef_cuda_available (NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device");
      return FALSE;
    }
  name = ef_cuda_device_name (device);
  if (name == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device %d", device);
      return FALSE;
    }

  /* A grid in the middle of the class's decade (in the log), its width a multiple of 16 so that every
   * rotating shape fits; Q's grid is the doubled grid of an image half its width. */
  target = pow (10.0, decade (n_vox) + 0.5);
  edge_f = pow (target, 1.0 / dim);
  edge = MAX (16u, (guint) (edge_f / 16.0 + 0.5) * 16u);
  if (q)
    {
      EfMriGrid img = ef_mri_grid_image (dim, edge / 2);

      g = ef_mri_grid_doubled (&img);
    }
  else
    g = ef_mri_grid_image (dim, edge);
  nv = ef_mri_grid_voxels (&g, error);
  if (nv == 0)
    return FALSE;
  out = g_try_new (EfCf64, nv);
  if (out == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " voxels", nv);
      return FALSE;
    }

  /* Runs of the default set the sample count so that a run takes about TARGET_MS: a short first run is
   * mostly launch overhead, so the estimate is refined until a run is long enough to trust. */
  m = CLAMP ((gsize) 1e9 / nv, MIN_SAMPLES, MAX_SAMPLES);
  for (int round = 0;; round++)
    {
      gsize next;

      t = synthetic_traj (&g, m, rand, &d, q, error);
      if (t == NULL)
        return FALSE;
      if (round == 4)
        break;
      if (!time_shape (device, t, d, &g, EF_CUDA_MRI_DEFAULT_SHAPE, out, 2, &ms0, error))
        return FALSE;
      next = CLAMP ((gsize) (m * TARGET_MS / MAX (ms0, 1e-3)), MIN_SAMPLES, MAX_SAMPLES);
      if (next == m || (ms0 >= TARGET_MS / 4 && ms0 <= TARGET_MS * 4))
        break;
      m = next;
      g_clear_pointer (&t, ef_mri_traj_free);
      g_clear_pointer (&d, g_free);
    }

  g_string_append_printf (table, "%s, %s %u-D, %u", name, q ? "Q" : "F^H d", dim, g.n[0]);
  for (guint a = 1; a < dim; a++)
    g_string_append_printf (table, " x %u", g.n[a]);
  g_string_append_printf (table, " voxels (class %s), %" G_GSIZE_FORMAT " samples\n",
                          key, m);
  for (guint s = 0; s < EF_CUDA_MRI_N_SHAPES; s++)
    {
      ms[s] = -1;
      if (!shape_fits (s, g.n[0]))
        continue;
      /* two runs, the faster counts: the first also pays for module loading */
      if (!time_shape (device, t, d, &g, s, out, 2, &ms[s], error))
        return FALSE;
      if (ms[s] < best_ms)
        {
          best_ms = ms[s];
          winner = s;
        }
    }
  g_string_append (table, "shape  kernel ms  pairs/s    chosen  name\n");
  for (guint s = 0; s < EF_CUDA_MRI_N_SHAPES; s++)
    if (ms[s] >= 0)
      g_string_append_printf (table, "%5u  %9.3f  %.3e  %-6s  %s\n", s, ms[s], (double) m * nv / (ms[s] * 1e-3),
                              s == winner ? "yes" : "", ef_cuda_mri_shape_name (s));
  g_string_append_printf (table, "fastest: shape %u (%s)\n", winner, ef_cuda_mri_shape_name (winner));

  if (!ef_cuda_mri_tune_store (name, dim, n_vox, q, winner, error))
    return FALSE;
  if (shape)
    *shape = winner;
  if (report)
    *report = g_string_free (g_steal_pointer (&table), FALSE);
  return TRUE;
}
