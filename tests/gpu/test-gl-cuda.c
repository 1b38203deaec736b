/* test-gl-cuda.c: CUDA–OpenGL sharing on a headless EGL context: pixels, the host path, frame rates. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

/* The EGL headers otherwise pull in Xlib for native types that a device display never uses. */
#define EGL_NO_X11 1
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-test-hooks.h"
#include "ef-colormap.h"
#include "ef-error.h"
#include "ef-gl-cuda.h"
#include "ef-gl-image.h"
#include "ef-gl-renderer.h"
#include "ef-grid.h"
#include "ef-job.h"
#include "ef-render-test.h"
#include "ef-sim.h"

/*
 * Without a window system: an EGL display on the NVIDIA device itself (EGL_EXT_platform_device, the
 * device whose EGL_CUDA_DEVICE_NV is the compute device), a desktop GL 3.3 core context made current
 * with no surface (EGL_KHR_surfaceless_context; a small pbuffer otherwise), and an off-screen
 * framebuffer to draw into. Exits 77 (skipped) without a CUDA device, without libEGL, or when no EGL
 * display runs on the compute device.
 *
 * The test mode (default) forms a small region with the CUDA backend and no host copies while it
 * pushes the damaged cells through the shared path, as the image view does, then checks that the
 * textures hold the device accumulator (to 1e-4 dB, in fact bit for bit), that the host-upload path
 * makes the same pixels, that a job with host copies forms the same image, and that not one byte of
 * image data left the device during the shared job.
 *
 * --bench forms a 4096^2 region (by default) and measures, on the same job: backprojections/s with no
 * display; with the shared display paced at 60 Hz, which writes the textures whenever a block has
 * finished since the frame before and draws every frame, once mapping the textures in each write and
 * once holding them for CUDA after each draw (as the image view does); drawing only, at 60 Hz; writing
 * and drawing only when a block has finished; the shared display flat out; and host uploads paced at
 * 60 Hz. For each, the time of a frame (map + convert + unmap + draw, to glFinish) and its two parts.
 * It passes when the paced held display holds 60 frames/s and costs the job under 5%.
 */

#define COMPUTE_DEVICE 0

static struct {
  EGLDisplay dpy;
  EGLContext ctx;
  EGLSurface surf;
  int        cuda_device;   /* from EGL_NV_device_cuda, -1 when unknown */
  const char *platform;
} egl = { EGL_NO_DISPLAY, EGL_NO_CONTEXT, EGL_NO_SURFACE, -1, "default" };

static gboolean
egl_open (char **why)
{
  static const EGLint config_attrs[] = {
    EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
    EGL_BLUE_SIZE, 8, EGL_NONE,
  };
  static const EGLint context_attrs[] = {
    EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
  };
  EGLConfig config;
  EGLint n_configs = 0, major = 0, minor = 0;

  /* libepoxy aborts when it cannot load libEGL: look first. */
  if (dlopen ("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL) == NULL)
    {
      *why = g_strdup_printf ("libEGL.so.1 cannot be loaded (%s)", dlerror ());
      return FALSE;
    }
  if (epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_EXT_device_enumeration")
      && epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_EXT_platform_device"))
    {
      EGLDeviceEXT devices[16];
      EGLint n = 0;

      if (eglQueryDevicesEXT (G_N_ELEMENTS (devices), devices, &n))
        for (EGLint i = 0; i < n && egl.dpy == EGL_NO_DISPLAY; i++)
          {
            const char *ext = eglQueryDeviceStringEXT (devices[i], EGL_EXTENSIONS);
            EGLAttrib cuda = -1;

            if (ext != NULL && strstr (ext, "EGL_NV_device_cuda") != NULL
                && eglQueryDeviceAttribEXT (devices[i], EGL_CUDA_DEVICE_NV, &cuda) && cuda == COMPUTE_DEVICE)
              {
                egl.dpy = eglGetPlatformDisplayEXT (EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
                egl.cuda_device = (int) cuda;
                egl.platform = "EGL_EXT_platform_device";
              }
          }
    }
  if (egl.dpy == EGL_NO_DISPLAY && epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless"))
    {
      egl.dpy = eglGetPlatformDisplayEXT (EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
      egl.platform = "EGL_MESA_platform_surfaceless";
    }
  if (egl.dpy == EGL_NO_DISPLAY)
    egl.dpy = eglGetDisplay (EGL_DEFAULT_DISPLAY);
  if (egl.dpy == EGL_NO_DISPLAY || !eglInitialize (egl.dpy, &major, &minor))
    {
      *why = g_strdup_printf ("no EGL display could be initialised (EGL error 0x%04x)", eglGetError ());
      return FALSE;
    }
  if (!eglBindAPI (EGL_OPENGL_API) || !eglChooseConfig (egl.dpy, config_attrs, &config, 1, &n_configs)
      || n_configs < 1)
    {
      *why = g_strdup_printf ("EGL %d.%d offers no desktop OpenGL configuration (0x%04x)", major, minor,
                              eglGetError ());
      return FALSE;
    }
  egl.ctx = eglCreateContext (egl.dpy, config, EGL_NO_CONTEXT, context_attrs);
  if (egl.ctx == EGL_NO_CONTEXT)
    {
      *why = g_strdup_printf ("EGL refused an OpenGL 3.3 core context (0x%04x)", eglGetError ());
      return FALSE;
    }
  if (!epoxy_has_egl_extension (egl.dpy, "EGL_KHR_surfaceless_context"))
    {
      static const EGLint pbuffer_attrs[] = { EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE };
      egl.surf = eglCreatePbufferSurface (egl.dpy, config, pbuffer_attrs);
    }
  if (!eglMakeCurrent (egl.dpy, egl.surf, egl.surf, egl.ctx))
    {
      *why = g_strdup_printf ("eglMakeCurrent failed (0x%04x)", eglGetError ());
      return FALSE;
    }
  printf ("# EGL %d.%d on %s (%s), CUDA device %d; GL %s, %s\n", major, minor, egl.platform,
          eglQueryString (egl.dpy, EGL_VENDOR), egl.cuda_device, (const char *) glGetString (GL_VERSION),
          (const char *) glGetString (GL_RENDERER));
  return TRUE;
}

static void
egl_close (void)
{
  if (egl.dpy == EGL_NO_DISPLAY)
    return;
  eglMakeCurrent (egl.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (egl.surf != EGL_NO_SURFACE)
    eglDestroySurface (egl.dpy, egl.surf);
  if (egl.ctx != EGL_NO_CONTEXT)
    eglDestroyContext (egl.dpy, egl.ctx);
  eglTerminate (egl.dpy);
}

/* ---- shared helpers ---------------------------------------------------------------------------- */

static EfDataset *
simulate (guint n_pulses, guint n_samples, double half_extent, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  g_autofree EfSimTarget *targets = g_new0 (EfSimTarget, 12);
  GRand *rand = g_rand_new_with_seed ((guint32) seed);
  EfSimParams sp;
  EfDataset *ds;

  for (guint i = 0; i < 12; i++)
    {
      targets[i].pos[0] = g_rand_double_range (rand, -half_extent, half_extent);
      targets[i].pos[1] = g_rand_double_range (rand, -half_extent, half_extent);
      targets[i].amp = (EfCf64) g_rand_double_range (rand, 0.2, 1.0);
    }
  g_rand_free (rand);
  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = n_pulses;
  sp.n_samples = n_samples;
  sp.targets = targets;
  sp.n_targets = 12;
  sp.seed = seed;
  ds = ef_sim_run (&sp, &error);
  if (ds == NULL)
    g_error ("The simulator failed: %s", error->message);
  return ds;
}

/* The damaged cells of a whole image as the view sends them: one rectangle per row of cells. */
static GArray *
cell_rows (guint width, guint height)
{
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (EfRect));

  for (guint y = 0; y < height; y += EF_GL_IMAGE_CELL)
    {
      EfRect r = { 0, y, width, MIN (EF_GL_IMAGE_CELL, height - y) };
      g_array_append_val (rects, r);
    }
  return rects;
}

/* Every texture of image, read back with glGetTexImage into one width x height array. */
static EfCf32 *
read_textures (EfGlImage *image)
{
  guint w = ef_gl_image_get_width (image), h = ef_gl_image_get_height (image);
  EfCf32 *out = g_new (EfCf32, (gsize) w * h);

  for (guint i = 0; i < ef_gl_image_get_n_tiles (image); i++)
    {
      const EfGlTile *t = ef_gl_image_get_tile (image, i);
      g_autofree EfCf32 *tile = g_new (EfCf32, (gsize) t->width * t->height);

      glBindTexture (GL_TEXTURE_2D, t->texture);
      glPixelStorei (GL_PACK_ALIGNMENT, 4);
      glGetTexImage (GL_TEXTURE_2D, 0, GL_RG, GL_FLOAT, tile);
      for (guint r = 0; r < t->height; r++)
        memcpy (out + (gsize) (t->y + r) * w + t->x, tile + (gsize) r * t->width, t->width * sizeof (EfCf32));
    }
  glBindTexture (GL_TEXTURE_2D, 0);
  g_assert_cmphex (glGetError (), ==, GL_NO_ERROR);
  return out;
}

typedef struct {
  double max_db;      /* largest |difference| in 10 log10 |z|^2, over pixels above the floor */
  gsize  n_compared;
  gsize  n_identical; /* bit for bit */
  gsize  n_nonfinite;
  double peak_db;
} Compare;

/* a against b in log-magnitude; pixels more than floor_db below b's peak are left out (zero there,
 * or rounding noise far below anything the display shows). */
static void
compare_db (const EfCf32 *a, const EfCf32 *b, gsize n, double floor_db, Compare *c)
{
  double peak = 0, floor_p;

  memset (c, 0, sizeof *c);
  for (gsize i = 0; i < n; i++)
    peak = MAX (peak, (double) crealf (b[i]) * crealf (b[i]) + (double) cimagf (b[i]) * cimagf (b[i]));
  c->peak_db = 10 * log10 (MAX (peak, 1e-300));
  floor_p = peak * pow (10.0, -floor_db / 10.0);
  for (gsize i = 0; i < n; i++)
    {
      double pa = (double) crealf (a[i]) * crealf (a[i]) + (double) cimagf (a[i]) * cimagf (a[i]);
      double pb = (double) crealf (b[i]) * crealf (b[i]) + (double) cimagf (b[i]) * cimagf (b[i]);

      if (memcmp (&a[i], &b[i], sizeof a[i]) == 0)
        c->n_identical++;
      if (!isfinite (pa))
        {
          c->n_nonfinite++;
          continue;
        }
      if (pa <= floor_p && pb <= floor_p)
        continue;
      c->n_compared++;
      c->max_db = MAX (c->max_db, fabs (10 * log10 (MAX (pa, 1e-300)) - 10 * log10 (MAX (pb, 1e-300))));
    }
}

typedef struct {
  gint     state;         /* atomic: EfJobState of the last report */
  gint     finished;      /* atomic */
  gint     blocks;        /* atomic */
  double   bp_per_s;      /* of the final report */
  double   elapsed_s;
} JobWatch;

static void
watch_cb (EfJob *job, const EfJobProgress *p, gpointer user_data)
{
  JobWatch *w = user_data;

  g_atomic_int_set (&w->blocks, (gint) p->blocks_done);
  if (p->state == EF_JOB_DONE || p->state == EF_JOB_FAILED || p->state == EF_JOB_CANCELLED)
    {
      w->bp_per_s = p->bp_per_s;
      w->elapsed_s = p->elapsed_s;
      g_atomic_int_set (&w->state, (gint) p->state);
      g_atomic_int_set (&w->finished, 1);
    }
}

/* n_pulses 0: all of them. */
static EfJob *
new_job (EfDataset *ds, const EfGrid *grid, guint block, gboolean no_host_image, guint64 n_pulses)
{
  g_autoptr (GError) error = NULL;
  EfJobParams params;
  EfJob *job;

  ef_job_params_init (&params, grid);
  params.backend_kind = EF_BACKEND_CUDA;
  params.backend.block_size = block;
  params.order = EF_ORDER_INTERLEAVED;
  params.no_host_image = no_host_image;
  params.n_pulses = n_pulses;
  job = ef_job_new (ds, &params, &error);
  g_assert_no_error (error);
  return job;
}

/* Image bytes copied from the device to host memory so far, as the test hooks count them; without
 * them nothing is counted, and the checks of the count say that they were not made. */
static guint64
d2h_bytes (void)
{
#if EF_TEST_HOOKS
  return ef_cuda_debug_d2h_image_bytes ();
#else
  return 0;
#endif
}

static EfCudaImage *
wait_device_image (EfJob *job, JobWatch *w)
{
  for (;;)
    {
      EfCudaImage *image = ef_cuda_image_from_device (ef_job_ref_device_image (job));

      if (image != NULL)
        return image;
      if (g_atomic_int_get (&w->finished))
        return NULL;
      g_usleep (500);
    }
}

/* ---- tests --------------------------------------------------------------------------------------- */

static void
test_choose_device (void)
{
  g_autofree char *why = NULL;
  int device = ef_gl_cuda_choose_device (COMPUTE_DEVICE, &why);

  g_test_message ("Display path: %s", why);
  printf ("# ef_gl_cuda_choose_device: %d (%s)\n", device, why);
  g_assert_cmpint (device, ==, COMPUTE_DEVICE);
}

/* Realize, resize, unrealize, realize again: the textures are made, registered, unregistered and
 * deleted each time, as the image view does. */
static void
test_register_cycle (void)
{
  for (guint round = 0; round < 4; round++)
    {
      g_autoptr (GError) error = NULL;
      guint w = 300 + 170 * round, h = 200 + 130 * round;
      EfGlImage *image = ef_gl_image_new (w, h, 256, &error);
      EfGlCuda *shared;

      g_assert_no_error (error);
      shared = ef_gl_cuda_new (image, COMPUTE_DEVICE, &error);
      g_assert_no_error (error);
      g_assert_nonnull (shared);
      ef_gl_cuda_free (shared);
      ef_gl_image_free (image);
    }
  g_assert_cmphex (glGetError (), ==, GL_NO_ERROR);
}

static void
test_job (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfJob) job = NULL;
  g_autoptr (EfJob) job_host = NULL;
  g_autoptr (EfCudaImage) device_image = NULL;
  g_autoptr (GArray) rows = NULL;
  g_autofree EfCf32 *shared_px = NULL;
  g_autofree EfCf32 *host_px = NULL;
  g_autofree EfCf32 *device_px = NULL;
  g_autofree EfCf32 *job_host_px = NULL;
  g_autofree EfCf32 *strip = NULL;
  EfGlImage *tex = NULL, *tex_host = NULL;
  EfGlCuda *shared = NULL;
  JobWatch watch = { 0 }, watch_host = { 0 };
  EfGrid grid;
  EfRect all;
  Compare c;
  guint64 d2h_before, d2h_after, last_mark = 0, n_marks;
  guint n_updates = 0, n_early = 0, n_held = 0;
  gsize n_px;

  /* An image of 3 x 2 textures of at most 256 pixels a side, with partial cells at the edges. */
  ds = simulate (768, 512, 12.0, g_test_rand_int ());
  g_assert_true (ef_grid_init_roi (&grid, -14.0, -11.0, 14.0, 11.0, 0.05, &error));
  g_assert_no_error (error);
  n_px = ef_grid_n_pixels (&grid);
  all = (EfRect) { 0, 0, grid.width, grid.height };
  printf ("# region %u x %u px, %u pulses of %u samples\n", grid.width, grid.height, (guint) ds->info.n_pulses,
          (guint) ds->info.n_samples);
  tex = ef_gl_image_new (grid.width, grid.height, 256, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ef_gl_image_get_n_tiles (tex), >=, 4);
  shared = ef_gl_cuda_new (tex, COMPUTE_DEVICE, &error);
  g_assert_no_error (error);
  rows = cell_rows (grid.width, grid.height);

  /* The shared path over a whole job: the display converts whatever the device has finished,
   * every few milliseconds, until it has shown the last block. */
  d2h_before = d2h_bytes ();
  job = new_job (ds, &grid, 32, TRUE, 0);
  ef_job_start (job, watch_cb, &watch);
  device_image = wait_device_image (job, &watch);
  g_assert_nonnull (device_image);
  for (;;)
    {
      gboolean finished = g_atomic_int_get (&watch.finished);
      guint64 mark = 0;

      g_assert_true (ef_gl_cuda_update (shared, device_image, (const EfRect *) rows->data, rows->len, &mark, &error));
      g_assert_no_error (error);
      g_assert_false (ef_gl_cuda_is_held (shared));
      n_marks = ef_cuda_image_get_n_marks (device_image);
      g_assert_cmpuint (mark, >=, last_mark);
      g_assert_cmpuint (mark, <=, n_marks);
      if (mark > last_mark)
        n_updates++;
      if (mark > 0 && mark < n_marks)
        n_early++;
      last_mark = mark;
      if (finished && mark == ef_cuda_image_get_n_marks (device_image))
        break;
      /* Every other frame holds the textures, as the image view does after drawing: the next update
       * then only converts and unmaps. */
      if (n_updates % 2 == 1)
        {
          g_assert_true (ef_gl_cuda_hold (shared, &error));
          g_assert_no_error (error);
          g_assert_true (ef_gl_cuda_is_held (shared));
          n_held++;
        }
      g_usleep (2000);
    }
  g_assert_true (ef_job_wait (job, &error));
  g_assert_no_error (error);
  /* Held textures written: half the rows, then all of them (the rectangles differ from the last
   * written, so both convert); and held with nothing new, which only gives them back. */
  for (guint pass = 0; pass < 3; pass++)
    {
      guint64 mark = 0, writes = ef_gl_cuda_get_n_writes (shared);
      guint n = pass == 0 ? rows->len / 2 : rows->len;

      g_assert_true (ef_gl_cuda_hold (shared, &error));
      g_assert_no_error (error);
      g_assert_true (ef_gl_cuda_is_held (shared));
      g_assert_true (ef_gl_cuda_update (shared, device_image, (const EfRect *) rows->data, n, &mark, &error));
      g_assert_no_error (error);
      g_assert_false (ef_gl_cuda_is_held (shared));
      g_assert_cmpuint (mark, ==, ef_cuda_image_get_n_marks (device_image));
      g_assert_cmpuint (ef_gl_cuda_get_n_writes (shared), ==, writes + (pass < 2 ? 1 : 0));
      n_held++;
    }
  d2h_after = d2h_bytes ();
  printf ("# shared job: %u blocks, %" G_GUINT64_FORMAT " marks, %u display updates (%u while later blocks "
          "were queued, %u after a hold), %.3g backprojections/s; image bytes device to host: %" G_GUINT64_FORMAT "\n",
          (guint) g_atomic_int_get (&watch.blocks), last_mark, n_updates, n_early, n_held, watch.bp_per_s,
          d2h_after - d2h_before);
  g_assert_cmpuint (n_held, >=, 3);
  g_assert_cmpint (g_atomic_int_get (&watch.state), ==, EF_JOB_DONE);
#if EF_TEST_HOOKS
  g_assert_cmpuint (d2h_after - d2h_before, ==, 0);
#else
  g_test_message ("no image byte through the host: not checked, " EF_TEST_HOOKS_MISSING);
#endif
  g_assert_cmpuint (ef_gl_image_get_n_valid_cells (tex), ==,
                    ((grid.width + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL)
                      * ((grid.height + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL));

  /* The textures against the device accumulator, converted on the CPU. */
  shared_px = read_textures (tex);
  device_px = g_new (EfCf32, n_px);
  g_assert_true (ef_cuda_image_read (device_image, &all, device_px, &error));
  g_assert_no_error (error);
  compare_db (shared_px, device_px, n_px, 200, &c);
  printf ("# shared textures vs device accumulator: max |diff| %.3g dB over %zu px (peak %.1f dB), %zu of %zu "
          "bit-identical, %zu non-finite\n", c.max_db, c.n_compared, c.peak_db, c.n_identical, n_px,
          c.n_nonfinite);
  g_assert_cmpuint (c.n_nonfinite, ==, 0);
  g_assert_cmpuint (c.n_compared, >, n_px / 2);
  /* tests/bench/RESULTS.md: the textures hold the accumulator's complex values bit for bit. */
  g_assert_cmpfloat (c.max_db, <, 1e-4);
  g_assert_cmpuint (c.n_identical, ==, n_px);

  /* The host-upload path of the same job gives the same pixels. */
  tex_host = ef_gl_image_new (grid.width, grid.height, 256, &error);
  g_assert_no_error (error);
  strip = g_new (EfCf32, (gsize) grid.width * EF_GL_IMAGE_CELL);
  for (guint i = 0; i < rows->len; i++)
    {
      const EfRect *r = &g_array_index (rows, EfRect, i);

      g_assert_true (ef_job_read_image (job, r, strip, &error));
      g_assert_no_error (error);
      ef_gl_image_upload (tex_host, r, strip);
    }
  host_px = read_textures (tex_host);
  compare_db (host_px, shared_px, n_px, 200, &c);
  printf ("# host-upload textures vs shared textures: max |diff| %.3g dB, %zu of %zu bit-identical\n", c.max_db,
          c.n_identical, n_px);
  g_assert_cmpfloat (c.max_db, <, 1e-4);
  g_assert_cmpuint (c.n_identical, ==, n_px);

  /* A job that copies its image to host memory after every block forms the same image, and the
   * counter sees those copies. */
  d2h_before = d2h_bytes ();
  job_host = new_job (ds, &grid, 32, FALSE, 0);
  g_assert_true (ef_job_run (job_host, watch_cb, &watch_host, &error));
  g_assert_no_error (error);
  d2h_after = d2h_bytes ();
  job_host_px = g_new (EfCf32, n_px);
  g_assert_true (ef_job_read_image (job_host, &all, job_host_px, &error));
  compare_db (job_host_px, device_px, n_px, 120, &c);
  printf ("# job with host copies: %" G_GUINT64_FORMAT " image bytes device to host; its image vs the shared "
          "job's: max |diff| %.3g dB, %zu of %zu bit-identical\n", d2h_after - d2h_before, c.max_db, c.n_identical,
          n_px);
#if EF_TEST_HOOKS
  g_assert_cmpuint (d2h_after - d2h_before, >=, (guint64) n_px * sizeof (EfCf32));
#else
  g_test_message ("the count of host copies: not checked, " EF_TEST_HOOKS_MISSING);
#endif
  g_assert_cmpfloat (c.max_db, <, 1e-4);

  ef_gl_cuda_free (shared);
  ef_gl_image_free (tex);
  ef_gl_image_free (tex_host);
  g_assert_cmphex (glGetError (), ==, GL_NO_ERROR);
}

/* ---- benchmark ----------------------------------------------------------------------------------- */

typedef enum {
  DISPLAY_OFF,
  DISPLAY_SHARED,      /* paced at hz, mapping the textures in each write */
  DISPLAY_HELD,        /* paced at hz, the textures held for CUDA after each draw (as the image view does) */
  DISPLAY_DRAW,        /* paced at hz, drawing what the first frame wrote: the cost of the draw alone */
  DISPLAY_BLOCK,       /* ticks at hz, and writes and draws only when a block has finished since the last */
  DISPLAY_SHARED_MAX,  /* as fast as it goes */
  DISPLAY_HOST,        /* host uploads of what the job copied, paced at hz */
  N_MODES
} DisplayMode;

static const char *const mode_names[] = { "off", "shared 60 Hz", "held 60 Hz", "draw only 60 Hz",
                                          "held on block", "held flat out", "host upload 60 Hz" };

typedef struct {
  EfGlImage    *tex;
  EfGlCuda     *shared;
  EfGlRenderer *renderer;
  GLuint        fbo, rb;
  int           fb_w, fb_h;
  GArray       *rows;
  EfCf32       *staging;
  double        hz;
  gboolean      clear_only;  /* frames clear the framebuffer and draw nothing: the cost of a GL frame alone */
} Display;

typedef struct {
  double bp_per_s, elapsed_s;
  guint  frames;
  double ms_mean, ms_p50, ms_p95, ms_max;
  double update_ms, draw_ms;   /* means over frames: the texture update, and the draw to glFinish */
  guint64 writes;              /* frames that mapped and converted */
  guint64 d2h;
} Run;

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
draw (Display *d)
{
  const guint w = ef_gl_image_get_width (d->tex), h = ef_gl_image_get_height (d->tex);
  double m[6];
  EfDisplayParams params;

  /* The whole image fitted into the framebuffer, as "fit" shows it: many texels per pixel. */
  double s = MIN ((double) d->fb_w / w, (double) d->fb_h / h);
  m[0] = 2.0 * s / d->fb_w;
  m[1] = 0;
  m[2] = -m[0] * (0.5 * w - 0.5);
  m[3] = 0;
  m[4] = -2.0 * s / d->fb_h;
  m[5] = -m[4] * (0.5 * h - 0.5);
  ef_display_params_init (&params);
  params.db_min = -60;
  params.db_max = 0;
  glBindFramebuffer (GL_FRAMEBUFFER, d->fbo);
  glViewport (0, 0, d->fb_w, d->fb_h);
  glClearColor (0.1f, 0.1f, 0.1f, 1.0f);
  glClear (GL_COLOR_BUFFER_BIT);
  if (!d->clear_only)
    ef_gl_renderer_draw_image (d->renderer, d->tex, m, &params, -80.0);
  glBindFramebuffer (GL_FRAMEBUFFER, 0);
}

/* One frame of a mode: the write into the textures and the draw, finished. Adds the two parts' times
 * (ms) into upd and drw. Returns FALSE when there was nothing to draw (DISPLAY_BLOCK between blocks). */
static gboolean
frame (Display *d, DisplayMode mode, EfJob *job, EfCudaImage *image, gboolean first, double *upd, double *drw)
{
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time (), t1;

  const gboolean hold = mode == DISPLAY_HELD || mode == DISPLAY_BLOCK || mode == DISPLAY_SHARED_MAX;

  if (mode == DISPLAY_SHARED || hold || (mode == DISPLAY_DRAW && first))
    {
      guint64 mark = 0, writes = ef_gl_cuda_get_n_writes (d->shared);

      if (!ef_gl_cuda_update (d->shared, image, (const EfRect *) d->rows->data, d->rows->len, &mark, &error))
        g_error ("Shared update failed: %s", error->message);
      if (mode == DISPLAY_BLOCK && ef_gl_cuda_get_n_writes (d->shared) == writes)
        return FALSE;
    }
  else if (mode == DISPLAY_HOST)
    {
      /* What the view's budget allows in one frame: 1 Mpixel of host uploads. */
      static guint next_row = 0;
      guint budget = 1u << 20;

      while (budget > 0)
        {
          const EfRect *r = &g_array_index (d->rows, EfRect, next_row % d->rows->len);

          if (!ef_job_read_image (job, r, d->staging, &error))
            g_error ("Read failed: %s", error->message);
          ef_gl_image_upload (d->tex, r, d->staging);
          budget -= MIN (budget, r->width * r->height);
          next_row++;
        }
    }
  t1 = g_get_monotonic_time ();
  draw (d);
  if (hold && !ef_gl_cuda_hold (d->shared, &error))
    g_error ("Hold failed: %s", error->message);
  glFinish ();
  *upd += (t1 - t0) / 1e3;
  *drw += (g_get_monotonic_time () - t1) / 1e3;
  return TRUE;
}

static void
run_mode (Display *d, EfDataset *ds, const EfGrid *grid, guint block, DisplayMode mode, guint64 n_pulses, Run *out)
{
  g_autoptr (EfJob) job = NULL;
  g_autoptr (EfCudaImage) image = NULL;
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GError) error = NULL;
  JobWatch watch = { 0 };
  guint64 d2h0 = d2h_bytes ();
  const guint64 writes0 = ef_gl_cuda_get_n_writes (d->shared);
  double upd = 0, drw = 0;
  const gint64 period_us = (gint64) (1e6 / d->hz);
  gint64 next;

  memset (out, 0, sizeof *out);
  job = new_job (ds, grid, block, mode != DISPLAY_HOST, n_pulses);
  ef_job_start (job, watch_cb, &watch);
  if (mode != DISPLAY_OFF && mode != DISPLAY_HOST)
    {
      image = wait_device_image (job, &watch);
      if (image == NULL)
        g_error ("The job has no device image");
    }
  next = g_get_monotonic_time ();
  while (mode != DISPLAY_OFF && !g_atomic_int_get (&watch.finished))
    {
      gint64 t0 = g_get_monotonic_time (), t1;
      double ms;

      gboolean drawn = frame (d, mode, job, image, times->len == 0, &upd, &drw);
      t1 = g_get_monotonic_time ();
      ms = (t1 - t0) / 1e3;
      if (drawn)
        g_array_append_val (times, ms);
      if (mode != DISPLAY_SHARED_MAX)
        {
          next += period_us;
          if (next > t1)
            g_usleep ((gulong) (next - t1));
          else
            next = t1;
        }
    }
  if (!ef_job_wait (job, &error))
    g_error ("The job failed: %s", error->message);
  /* The next mode may upload from the host: the textures go back to GL. */
  if (!ef_gl_cuda_release (d->shared, &error))
    g_error ("Release failed: %s", error->message);
  out->bp_per_s = watch.bp_per_s;
  out->elapsed_s = watch.elapsed_s;
  out->d2h = d2h_bytes () - d2h0;
  out->frames = times->len;
  out->writes = ef_gl_cuda_get_n_writes (d->shared) - writes0;
  if (times->len > 0)
    {
      out->update_ms = upd / times->len;
      out->draw_ms = drw / times->len;
      double *t = (double *) times->data;

      for (guint i = 0; i < times->len; i++)
        out->ms_mean += t[i] / times->len;
      g_array_sort (times, cmp_double);
      out->ms_p50 = t[times->len / 2];
      out->ms_p95 = t[MIN (times->len - 1, (guint) ceil (0.95 * times->len) - 1)];
      out->ms_max = t[times->len - 1];
    }
}

static int
bench (int edge, int pulses, int samples, int block, int reps, double hz, int fb_w, int fb_h, gboolean clear_only)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GBytes) vert = NULL;
  g_autoptr (GBytes) frag = NULL;
  g_autofree char *vert_src = NULL;
  g_autofree char *frag_src = NULL;
  gsize vert_len = 0, frag_len = 0;
  Display d = { 0 };
  EfGrid grid;
  Run sum[N_MODES] = { 0 }, one;
  guint n[N_MODES] = { 0 };
  double t0;
  gboolean pass;

  t0 = g_get_monotonic_time () / 1e6;
  /* 3 cm pixels: a 4096-pixel region is 123 m, inside the 128 m range window of 512 samples over the
   * simulator's 600 MHz. */
  ds = simulate ((guint) pulses, (guint) samples, 0.012 * edge, 1);
  printf ("# simulated %d pulses x %d samples in %.1f s\n", pulses, samples, g_get_monotonic_time () / 1e6 - t0);
  if (!ef_grid_init_roi (&grid, -0.015 * edge, -0.015 * edge, 0.015 * edge, 0.015 * edge, 0.03, &error))
    g_error ("%s", error->message);

  /* The application's own shaders, from the source tree. */
  if (!g_file_get_contents (EF_SHADER_DIR "/image.vert", &vert_src, &vert_len, &error)
      || !g_file_get_contents (EF_SHADER_DIR "/image.frag", &frag_src, &frag_len, &error))
    g_error ("%s", error->message);
  vert = g_bytes_new (vert_src, vert_len);
  frag = g_bytes_new (frag_src, frag_len);
  d.renderer = ef_gl_renderer_new_from_sources (vert, frag, &error);
  if (d.renderer == NULL)
    g_error ("%s", error->message);
  d.tex = ef_gl_image_new (grid.width, grid.height, 0, &error);
  if (d.tex == NULL)
    g_error ("%s", error->message);
  d.shared = ef_gl_cuda_new (d.tex, COMPUTE_DEVICE, &error);
  if (d.shared == NULL)
    g_error ("%s", error->message);
  d.rows = cell_rows (grid.width, grid.height);
  d.staging = g_new (EfCf32, (gsize) grid.width * EF_GL_IMAGE_CELL);
  d.hz = hz;
  d.clear_only = clear_only;
  d.fb_w = fb_w;
  d.fb_h = fb_h;
  glGenRenderbuffers (1, &d.rb);
  glBindRenderbuffer (GL_RENDERBUFFER, d.rb);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_RGBA8, fb_w, fb_h);
  glGenFramebuffers (1, &d.fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, d.fbo);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, d.rb);
  if (glCheckFramebufferStatus (GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    g_error ("The off-screen framebuffer is incomplete");
  glBindFramebuffer (GL_FRAMEBUFFER, 0);
  printf ("# region %u x %u px in %u texture(s); %d pulses in blocks of %d; framebuffer %d x %d\n", grid.width,
          grid.height, ef_gl_image_get_n_tiles (d.tex), pulses, block, fb_w, fb_h);

  /* A warm-up job: plans, the tuning cache and the driver's first-use costs stay out of the figures. */
  run_mode (&d, ds, &grid, (guint) block, DISPLAY_SHARED, 8 * (guint64) block, &one);
  /* Off and on alternate, so that clocks and heat treat them alike. */
  for (int r = 0; r < reps; r++)
    for (int m = DISPLAY_OFF; m <= DISPLAY_BLOCK; m++)
      {
        run_mode (&d, ds, &grid, (guint) block, (DisplayMode) m, 0, &one);
        printf ("# rep %d %-18s %.4g BP/s, %u frames, %.2f ms mean\n", r, mode_names[m], one.bp_per_s, one.frames,
                one.ms_mean);
        sum[m].bp_per_s += one.bp_per_s;
        sum[m].elapsed_s += one.elapsed_s;
        sum[m].frames += one.frames;
        sum[m].ms_mean += one.ms_mean;
        sum[m].ms_p50 += one.ms_p50;
        sum[m].update_ms += one.update_ms;
        sum[m].draw_ms += one.draw_ms;
        sum[m].writes += one.writes;
        sum[m].ms_p95 = MAX (sum[m].ms_p95, one.ms_p95);
        sum[m].ms_max = MAX (sum[m].ms_max, one.ms_max);
        sum[m].d2h += one.d2h;
        n[m]++;
      }
  for (int m = DISPLAY_SHARED_MAX; m <= DISPLAY_HOST; m++)
    {
      run_mode (&d, ds, &grid, (guint) block, (DisplayMode) m, 0, &sum[m]);
      n[m] = 1;
    }
  for (int m = 0; m < N_MODES; m++)
    {
      sum[m].bp_per_s /= n[m];
      sum[m].elapsed_s /= n[m];
      sum[m].ms_mean /= n[m];
      sum[m].ms_p50 /= n[m];
      sum[m].update_ms /= n[m];
      sum[m].draw_ms /= n[m];
    }

  printf ("\n%-18s %12s %9s %8s %8s %8s %9s %9s %9s %9s %9s %9s %14s\n", "display", "BP/s", "vs off", "job s",
          "frames", "writes", "frame ms", "update ms", "draw ms", "p50 ms", "p95 ms", "max ms", "img bytes D2H");
  for (int m = 0; m < N_MODES; m++)
    printf ("%-18s %12.4g %8.1f%% %8.2f %8u %8" G_GUINT64_FORMAT " %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %14"
            G_GUINT64_FORMAT "\n", mode_names[m], sum[m].bp_per_s, 100.0 * sum[m].bp_per_s / sum[0].bp_per_s,
            sum[m].elapsed_s, sum[m].frames, sum[m].writes, sum[m].ms_mean, sum[m].update_ms, sum[m].draw_ms,
            sum[m].ms_p50, sum[m].ms_p95, sum[m].ms_max, sum[m].d2h);
#if !EF_TEST_HOOKS
  printf ("# image bytes device to host: not counted, %s\n", EF_TEST_HOOKS_MISSING);
#endif
  printf ("\nframes/s the shared display can make (1000 / mean frame ms): %.0f paced, %.0f flat out\n",
          1000.0 / MAX (sum[DISPLAY_HELD].ms_mean, 1e-6), 1000.0 / MAX (sum[DISPLAY_SHARED_MAX].ms_mean, 1e-6));

  /* The image view's way: textures held for CUDA after each draw. */
  pass = sum[DISPLAY_HELD].frames > 0 && 1000.0 / sum[DISPLAY_HELD].ms_mean >= 60.0
         && sum[DISPLAY_HELD].bp_per_s >= 0.95 * sum[DISPLAY_OFF].bp_per_s && sum[DISPLAY_HELD].d2h == 0
         && sum[DISPLAY_SHARED].d2h == 0 && sum[DISPLAY_OFF].d2h == 0;
  printf ("RESULT\tgl-cuda\t%s\t%.4g\t%.4g\t%.3f\t%.3f\t%s\n", mode_names[DISPLAY_HELD], sum[DISPLAY_OFF].bp_per_s,
          sum[DISPLAY_HELD].bp_per_s, sum[DISPLAY_HELD].ms_mean, sum[DISPLAY_HELD].ms_p95, pass ? "PASS" : "FAIL");
  printf ("%s: shared display >= 60 frames/s and within 5%% of the job's rate with no display, no image bytes "
          "to host\n", pass ? "PASS" : "FAIL");

  glDeleteFramebuffers (1, &d.fbo);
  glDeleteRenderbuffers (1, &d.rb);
  ef_gl_cuda_free (d.shared);
  ef_gl_image_free (d.tex);
  ef_gl_renderer_free (d.renderer);
  g_array_unref (d.rows);
  g_free (d.staging);
  return pass ? 0 : 1;
}

int
main (int argc, char **argv)
{
  g_autofree char *why = NULL;
  gboolean do_bench = FALSE, clear_only = FALSE;
  gint edge = 4096, pulses = 131072, samples = 512, block = 1024, reps = 2, fb_w = 1920, fb_h = 1080;
  double hz = 60;
  GOptionEntry entries[] = {
    { "bench", 0, 0, G_OPTION_ARG_NONE, &do_bench, "measure frame times and the job's rate instead of testing",
      NULL },
    { "edge", 0, 0, G_OPTION_ARG_INT, &edge, "bench: region edge, pixels", "N" },
    { "pulses", 0, 0, G_OPTION_ARG_INT, &pulses, "bench: pulses", "N" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples, "bench: samples per pulse", "N" },
    { "block", 0, 0, G_OPTION_ARG_INT, &block, "bench: pulses per block", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "bench: repetitions of display off and on", "N" },
    { "hz", 0, 0, G_OPTION_ARG_DOUBLE, &hz, "bench: display rate", "HZ" },
    { "fb-width", 0, 0, G_OPTION_ARG_INT, &fb_w, "bench: framebuffer width", "N" },
    { "fb-height", 0, 0, G_OPTION_ARG_INT, &fb_h, "bench: framebuffer height", "N" },
    { "clear-only", 0, 0, G_OPTION_ARG_NONE, &clear_only, "bench: frames only clear the framebuffer", NULL },
    { NULL },
  };
  int status;

  /* Line by line, so that a run stopped by a time limit still shows how far it got. */
  setvbuf (stdout, NULL, _IOLBF, 0);
  /* g_test_init takes its own options first; the rest are ours. */
  g_test_init (&argc, &argv, NULL);
  {
    g_autoptr (GOptionContext) ctx = g_option_context_new ("- CUDA–OpenGL sharing test and benchmark");
    g_autoptr (GError) error = NULL;

    g_option_context_add_main_entries (ctx, entries, NULL);
    if (!g_option_context_parse (ctx, &argc, &argv, &error))
      {
        fprintf (stderr, "test-gl-cuda: %s\n", error->message);
        return 2;
      }
  }

  if (!ef_cuda_available (&why))
    {
      printf ("# skip: %s\n", why);
      return 77;
    }
  if (!egl_open (&why))
    {
      printf ("# skip: %s\n", why);
      egl_close ();
      return 77;
    }
  if (egl.cuda_device != COMPUTE_DEVICE && ef_gl_cuda_choose_device (COMPUTE_DEVICE, NULL) < 0)
    {
      printf ("# skip: no EGL display runs on CUDA device %d (%s)\n", COMPUTE_DEVICE,
              (const char *) glGetString (GL_RENDERER));
      egl_close ();
      return 77;
    }

  if (do_bench)
    status = bench (edge, pulses, samples, block, MAX (reps, 1), hz, fb_w, fb_h, clear_only);
  else
    {
      g_test_add_func ("/gl-cuda/choose-device", test_choose_device);
      g_test_add_func ("/gl-cuda/register-cycle", test_register_cycle);
      g_test_add_func ("/gl-cuda/job", test_job);
      status = g_test_run ();
    }
  egl_close ();
  return status;
}
