/* test-backend.c: the backend registry and dispatcher, and the job's device image, with a stand-in accelerator. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-backend.h"
#include "ef-error.h"
#include "ef-job.h"
#include "ef-test-scene.h"

/* ---- a stand-in accelerator: its "device memory" is host memory behind the device-image interface ---- */

typedef struct {
  EfDeviceImage parent;
  guint         width, height;
  EfCf32       *data;             /* owned */
  gint          n_reads;          /* reads through the interface */
  gint          n_counts;         /* counts through the interface */
  guint         n_backend_reads;  /* reads through the backend's read_image */
} FakeImage;

static gint fake_images_alive;

static void
fake_image_free (EfDeviceImage *image)
{
  FakeImage *self = (FakeImage *) image;

  g_free (self->data);
  g_free (self);
  g_atomic_int_add (&fake_images_alive, -1);
}

static void
copy_rect (const FakeImage *self, const EfRect *rect, EfCf32 *out)
{
  for (guint r = 0; r < rect->height; r++)
    memcpy (out + (gsize) r * rect->width, self->data + (gsize) (rect->y + r) * self->width + rect->x,
            rect->width * sizeof (EfCf32));
}

static gboolean
fake_image_read (EfDeviceImage *image, const EfRect *rect, EfCf32 *out, GError **error)
{
  FakeImage *self = (FakeImage *) image;

  g_atomic_int_inc (&self->n_reads);
  copy_rect (self, rect, out);
  return TRUE;
}

static gboolean
fake_image_count_nonfinite (EfDeviceImage *image, guint64 *count, GError **error)
{
  FakeImage *self = (FakeImage *) image;
  guint64 bad = 0;

  g_atomic_int_inc (&self->n_counts);
  for (gsize i = 0; i < (gsize) self->width * self->height; i++)
    bad += !isfinite (crealf (self->data[i])) || !isfinite (cimagf (self->data[i]));
  *count = bad;
  return TRUE;
}

static const EfDeviceImageOps fake_image_ops = {
  .free = fake_image_free,
  .read = fake_image_read,
  .count_nonfinite = fake_image_count_nonfinite,
};

/* Every block adds its pulse count to every pixel, and the pixel (0, 0) becomes NaN once a block has
 * run, so that the image read and the non-finite count each show where they came from. */
static gboolean
fake_process_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count, GError **error)
{
  FakeImage *image = self->priv;

  for (gsize i = 0; i < (gsize) image->width * image->height; i++)
    image->data[i] += (float) count;
  image->data[0] = NAN;
  return TRUE;
}

static gboolean
fake_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  FakeImage *image = self->priv;

  image->n_backend_reads++;
  copy_rect (image, rect, out);
  return TRUE;
}

static gboolean
fake_clear (EfBackend *self, GError **error)
{
  FakeImage *image = self->priv;

  memset (image->data, 0, (gsize) image->width * image->height * sizeof (EfCf32));
  return TRUE;
}

static void
fake_free (EfBackend *self)
{
  ef_device_image_unref (self->priv);
}

static EfDeviceImage *
fake_ref_device_image (EfBackend *self)
{
  return ef_device_image_ref (self->priv);
}

static const EfBackendOps fake_ops = {
  .name = "fake",
  .process_block = fake_process_block,
  .read_image = fake_read_image,
  .clear = fake_clear,
  .free = fake_free,
  .ref_device_image = fake_ref_device_image,
};

/* What the stand-in provider says and does; set by each case. */
static const char *fake_unavailable;  /* NULL: available */
static const char *fake_create_error; /* NULL: creation succeeds */

static gboolean
fake_available (const EfBackendParams *params, char **why)
{
  if (fake_unavailable == NULL)
    return TRUE;
  *why = g_strdup (fake_unavailable);
  return FALSE;
}

static EfBackend *
fake_create (const EfDatasetInfo *info, const EfBackendParams *params, GError **error)
{
  EfBackend *self;
  FakeImage *image;

  if (fake_create_error != NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "%s", fake_create_error);
      return NULL;
    }
  image = g_new0 (FakeImage, 1);
  ef_device_image_init (&image->parent, &fake_image_ops);
  g_atomic_int_inc (&fake_images_alive);
  image->width = params->grid.width;
  image->height = params->grid.height;
  image->data = g_new0 (EfCf32, (gsize) image->width * image->height);
  self = g_new0 (EfBackend, 1);
  self->ops = &fake_ops;
  self->params = *params;
  ef_dataset_info_copy (info, &self->info);
  self->priv = image;
  ef_backend_run_init (self, params, EF_BACKEND_CUDA, 1);
  return self;
}

static const EfBackendProvider fake_provider = {
  .kind = EF_BACKEND_CUDA,
  .name = "Fake",
  .available = fake_available,
  .create = fake_create,
};

static EfDataset *
small_scene (guint n_pulses)
{
  EfSimParams sp;
  EfSimTarget tg = { { 0, 0, 0 }, 1.0 };

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = n_pulses;
  sp.n_samples = 64;
  sp.targets = &tg;
  sp.n_targets = 1;
  return ef_sim_run (&sp, NULL);
}

static void
small_params (EfBackendParams *bp)
{
  EfJobParams jp;
  EfGrid grid;

  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.5, NULL));
  ef_job_params_init (&jp, &grid);
  *bp = jp.backend;
}

/* ---- cases ---- */

/* What this build registers by itself, before any stand-in: the CUDA library's provider when it is
 * built (its constructor ran before main), nothing otherwise, and then the dispatcher says so. */
static void
test_builtin (void)
{
  const EfBackendProvider *p = ef_backend_get_provider (EF_BACKEND_CUDA);
  g_autoptr (EfDataset) ds = small_scene (8);
  g_autoptr (EfBackend) be = NULL;
  g_autofree char *note = NULL;
  EfBackendParams bp;

  g_assert_null (ef_backend_get_provider (EF_BACKEND_CPU));
#if HAVE_CUDA
  g_assert_nonnull (p);
  g_assert_cmpstr (p->name, ==, "CUDA");
  g_assert_cmpint (p->kind, ==, EF_BACKEND_CUDA);
#else
  g_assert_null (p);
#endif
  small_params (&bp);
  bp.precision = EF_PRECISION_FP64;
  be = ef_backend_new (EF_BACKEND_AUTO, &ds->info, &bp, &note, NULL);
  g_assert_nonnull (be);
  g_assert_cmpstr (ef_backend_name (be), ==, "cpu");
#if HAVE_CUDA
  g_assert_cmpstr (note, ==, "fp64 runs on the CPU only; using the CPU");
#else
  g_assert_cmpstr (note, ==, "This build has no CUDA support; using the CPU");
#endif
  g_assert_null (ef_backend_ref_device_image (be));
}

/* With the stand-in saying unavailable, or failing to create: auto falls back to the CPU and says why,
 * in the note and in the run record; asked for by name, the dispatcher fails with the same words. */
static void
check_fallback (const char *unavailable, const char *create_error, const char *why)
{
  g_autoptr (EfDataset) ds = small_scene (8);
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *note = NULL;
  g_autofree char *fallback = g_strdup_printf ("%s; using the CPU", why);
  EfBackendParams bp;

  ef_backend_register (&fake_provider);
  g_assert_true (ef_backend_get_provider (EF_BACKEND_CUDA) == &fake_provider);
  fake_unavailable = unavailable;
  fake_create_error = create_error;
  small_params (&bp);

  be = ef_backend_new (EF_BACKEND_AUTO, &ds->info, &bp, &note, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ef_backend_name (be), ==, "cpu");
  g_assert_cmpstr (note, ==, fallback);
  g_assert_cmpstr (ef_backend_get_run_info (be)->backend_reason, ==, fallback);
  g_assert_cmpint (ef_backend_get_run_info (be)->backend_requested, ==, EF_BACKEND_AUTO);

  g_assert_null (ef_backend_new (EF_BACKEND_CUDA, &ds->info, &bp, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE);
  g_assert_cmpstr (error->message, ==, why);
}

/* Unavailable: the provider's reason. */
static void
test_unavailable (void)
{
  check_fallback ("No fake device here", NULL, "No fake device here");
}

/* Available, but creation fails: the provider's name and the error. */
static void
test_create_fails (void)
{
  check_fallback (NULL, "out of fake memory", "Fake failed: out of fake memory");
}

/* A job on the stand-in that never copies the image to the host: its image, its read and its count of
 * non-finite pixels all come through the device-image interface, and the image outlives the job. */
static void
test_job_device_image (void)
{
  g_autoptr (EfDataset) ds = small_scene (40);
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *out = NULL;
  EfDeviceImage *image;
  FakeImage *fake;
  EfJobParams jp;
  EfRunInfo run = { 0 };
  EfGrid grid;
  EfJob *job;
  EfRect all;

  ef_backend_register (&fake_provider);
  fake_unavailable = NULL;
  fake_create_error = NULL;
  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.5, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend_kind = EF_BACKEND_AUTO;
  jp.backend.block_size = 16;
  jp.no_host_image = TRUE;
  jp.publish_interval_s = -1;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  g_assert_null (ef_job_ref_device_image (job));
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (ef_job_get_backend_name (job), ==, "fake");

  image = ef_job_ref_device_image (job);
  g_assert_nonnull (image);
  g_assert_true (image->ops == &fake_image_ops);
  fake = (FakeImage *) image;
  g_assert_cmpint (fake->n_counts, ==, 1);
  ef_job_get_run_info (job, &run);
  g_assert_true (run.pixels_counted);
  g_assert_cmpuint (run.nonfinite_pixels, ==, 1);
  ef_run_info_clear (&run);

  all = (EfRect) { 0, 0, grid.width, grid.height };
  out = g_new (EfCf32, ef_grid_n_pixels (&grid));
  g_assert_true (ef_job_read_image (job, &all, out, &error));
  g_assert_no_error (error);
  g_assert_cmpint (fake->n_reads, ==, 1);
  g_test_message ("the backend's read_image ran %u times", fake->n_backend_reads);
  g_assert_true (isnan (crealf (out[0])));
  for (gsize i = 1; i < ef_grid_n_pixels (&grid); i++)
    g_assert_cmpfloat (crealf (out[i]), ==, 40.0f);

  ef_job_free (job);
  g_assert_cmpint (g_atomic_int_get (&fake_images_alive), ==, 1);
  ef_device_image_unref (image);
  g_assert_cmpint (g_atomic_int_get (&fake_images_alive), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* First: what the build registered, before any stand-in takes its place. */
  g_test_add_func ("/compute/backend/registry/builtin", test_builtin);
  g_test_add_func ("/compute/backend/registry/unavailable", test_unavailable);
  g_test_add_func ("/compute/backend/registry/create-fails", test_create_fails);
  g_test_add_func ("/compute/backend/registry/job-device-image", test_job_device_image);
  return g_test_run ();
}
