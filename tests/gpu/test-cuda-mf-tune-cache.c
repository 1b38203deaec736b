/* test-cuda-mf-tune-cache.c: the matched filter's shapes and tiles, tuner cache and run record, without a device. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-mf.h"
#include "cuda/ef-cuda-mri.h"
#include "ef-run-info-json.h"

#define DEV "Test Device 80GB"
#define BP_KEY "fp32-edge4096-bins8192"

/* The table the kernels are instantiated from keeps to the launch limits the wrappers assume. */
static void
test_shapes (void)
{
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_const = 0;

  g_assert_cmpuint (EF_CUDA_MF_DEFAULT_SHAPE, >=, 1);
  g_assert_cmpuint (EF_CUDA_MF_DEFAULT_SHAPE, <=, EF_CUDA_MF_N_SHAPES);
  g_assert_false (ef_cuda_mf_shapes[EF_CUDA_MF_DEFAULT_SHAPE - 1].constant);
  g_assert_cmpuint (EF_CUDA_MF_CHUNK % EF_CUDA_MF_ANCHOR, ==, 0);
  g_assert_cmpuint (EF_CUDA_MF_TILE % EF_CUDA_MF_CHUNK, ==, 0);
  for (guint s = 1; s <= EF_CUDA_MF_N_SHAPES; s++)
    {
      const EfCudaMfShape *sh = &ef_cuda_mf_shapes[s - 1];
      const char *name = ef_cuda_mf_shape_name (s);

      g_assert_cmpuint (sh->bx % 32, ==, 0);
      g_assert_cmpuint (sh->bx * sh->by, >=, 64);
      g_assert_cmpuint (sh->bx * sh->by, <=, 1024);
      g_assert_cmpuint (sh->px * sh->py, >=, 1);
      g_assert_cmpuint (sh->px * sh->py, <=, 8);
      g_assert_cmpuint (sh->unroll, >=, 1);
      g_assert_cmpstr (name, !=, "?");
      /* distinct shapes, distinct names */
      g_assert_false (g_hash_table_contains (names, name));
      g_hash_table_add (names, (gpointer) name);
      n_const += sh->constant;
    }
  g_assert_cmpuint (n_const, >=, 1);
  g_assert_cmpuint (n_const, <, EF_CUDA_MF_N_SHAPES);
  g_assert_cmpstr (ef_cuda_mf_shape_name (0), ==, "?");
  g_assert_cmpstr (ef_cuda_mf_shape_name (EF_CUDA_MF_N_SHAPES + 1), ==, "?");
  g_assert_cmpstr (ef_cuda_mf_shape_name (1), ==, "32x8 threads, 1x1 px, unroll 8, shared");
}

/* The constant-memory shapes' tiles cover every sample of every pulse once, each within the tile. */
static void
test_tiles (void)
{
  static const guint sizes[][2] = {
    { 1, 1 }, { 1, 4096 }, { 3, 4096 }, { 47, 203 }, { 5, 4099 }, { 2, 8192 }, { 7, 12289 }, { 8192, 2 },
    { 100, 4095 }, { 45, 2049 }, { 3, 3 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (sizes); c++)
    {
      const guint np = sizes[c][0], ns = sizes[c][1];
      g_autofree guint8 *seen = g_new0 (guint8, (gsize) np * ns);
      const guint64 n = ef_cuda_mf_tile (np, ns, 0, NULL);
      EfCudaMfTile t;

      g_assert_cmpuint (n, >=, 1);
      for (guint64 i = 0; i < n; i++)
        {
          g_assert_cmpuint (ef_cuda_mf_tile (np, ns, i, &t), ==, n);
          g_assert_cmpuint (t.np, >=, 1);
          g_assert_cmpuint (t.p0 + t.np, <=, np);
          g_assert_cmpuint (t.kb, <, t.ke);
          g_assert_cmpuint (t.ke, <=, ns);
          g_assert_cmpuint (t.kb % EF_CUDA_MF_TILE, ==, 0);
          g_assert_cmpuint ((guint64) t.np * (t.ke - t.kb), <=, EF_CUDA_MF_TILE);
          /* several pulses share a tile only whole */
          if (t.np > 1)
            g_assert_true (t.kb == 0 && t.ke == ns);
          for (guint p = t.p0; p < t.p0 + t.np; p++)
            for (guint k = t.kb; k < t.ke; k++)
              seen[(gsize) p * ns + k]++;
        }
      for (gsize i = 0; i < (gsize) np * ns; i++)
        g_assert_cmpuint (seen[i], ==, 1);
      /* past the last tile: the count, and the tile left alone */
      t.p0 = 12345;
      g_assert_cmpuint (ef_cuda_mf_tile (np, ns, n, &t), ==, n);
      g_assert_cmpuint (t.p0, ==, 12345);
    }
  g_assert_cmpuint (ef_cuda_mf_tile (0, 100, 0, NULL), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_tile (100, 0, 0, NULL), ==, 0);
  /* 4096 samples: one pulse a tile; 203: 20 */
  g_assert_cmpuint (ef_cuda_mf_tile (3, 4096, 0, NULL), ==, 3);
  g_assert_cmpuint (ef_cuda_mf_tile (47, 203, 0, NULL), ==, 3);
  g_assert_cmpuint (ef_cuda_mf_tile (5, 4099, 0, NULL), ==, 10);
}

static void
test_keys (void)
{
  g_autofree char *a = ef_cuda_mf_tune_key (1024, 1024), *b = ef_cuda_mf_tune_key (1000, 1025);
  g_autofree char *c = ef_cuda_mf_tune_key (1, 2), *d = ef_cuda_mf_tune_key (65536, 1u << 22);

  g_assert_cmpstr (a, ==, "edge1024-samples1024");
  g_assert_cmpstr (b, ==, "edge1024-samples2048");
  g_assert_cmpstr (c, ==, "edge1-samples2");
  g_assert_cmpstr (d, ==, "edge65536-samples4194304");
}

static void
test_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *path = ef_cuda_tune_cache_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  gboolean tuned = TRUE;

  /* no file: nothing, never an error; the default, not tuned */
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 1024, 1024), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_pick_shape (DEV, 1024, 1024, &tuned), ==, EF_CUDA_MF_DEFAULT_SHAPE);
  g_assert_false (tuned);
  g_assert_cmpuint (ef_cuda_mf_pick_shape (NULL, 1024, 1024, &tuned), ==, EF_CUDA_MF_DEFAULT_SHAPE);
  g_assert_false (tuned);

  /* BP's and MRI's entries first, as their tuners write them */
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_key_file_set_integer (kf, DEV, BP_KEY, 3);
  g_assert_true (g_key_file_save_to_file (kf, path, &error));
  g_assert_no_error (error);
  g_assert_true (ef_cuda_mri_tune_store (DEV, 3, 262144, FALSE, 12, &error));
  g_assert_no_error (error);

  g_assert_true (ef_cuda_mf_tune_store (DEV, 1024, 1024, 7, &error));
  g_assert_true (ef_cuda_mf_tune_store (DEV, 4096, 100, EF_CUDA_MF_N_SHAPES, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 1024, 1024), ==, 7);
  /* the same class: 513..1024 px, 513..1024 samples */
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 600, 1000), ==, 7);
  g_assert_cmpuint (ef_cuda_mf_pick_shape (DEV, 700, 513, &tuned), ==, 7);
  g_assert_true (tuned);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 3000, 128), ==, EF_CUDA_MF_N_SHAPES);
  /* other classes and devices: nothing */
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 1025, 1024), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 1024, 512), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup ("Another Device", 1024, 1024), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (NULL, 1024, 1024), ==, 0);
  /* overwriting one class leaves the others */
  g_assert_true (ef_cuda_mf_tune_store (DEV, 1024, 1024, 2, &error));
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 1024, 1024), ==, 2);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 4096, 100), ==, EF_CUDA_MF_N_SHAPES);

  /* BP's and MRI's entries are untouched, and their groups hold no matched-filter key */
  g_clear_pointer (&kf, g_key_file_unref);
  kf = g_key_file_new ();
  g_assert_true (g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &error));
  g_assert_cmpint (g_key_file_get_integer (kf, DEV, BP_KEY, &error), ==, 3);
  g_assert_no_error (error);
  {
    EfMriGrid g64 = ef_mri_grid_image (3, 64);
    g_auto (GStrv) bp_keys = g_key_file_get_keys (kf, DEV, NULL, &error);
    g_auto (GStrv) mri_keys = g_key_file_get_keys (kf, "MRI " DEV, NULL, NULL);
    g_auto (GStrv) mf_keys = g_key_file_get_keys (kf, "MF " DEV, NULL, NULL);

    g_assert_no_error (error);
    g_assert_cmpuint (g_strv_length (bp_keys), ==, 1);
    g_assert_cmpuint (g_strv_length (mri_keys), ==, 1);
    g_assert_cmpuint (g_strv_length (mf_keys), ==, 2);
    g_assert_cmpint (ef_cuda_mri_tune_lookup (DEV, &g64, FALSE), ==, 12);
  }

  /* out of range (0 and past the last shape), non-numeric, or a garbled file: nothing */
  g_key_file_set_integer (kf, "MF " DEV, "edge1024-samples1024", EF_CUDA_MF_N_SHAPES + 1);
  g_key_file_set_integer (kf, "MF " DEV, "edge4096-samples128", 0);
  g_key_file_set_string (kf, "MF " DEV, "edge2048-samples128", "fast");
  g_assert_true (g_key_file_save_to_file (kf, path, &error));
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 1024, 1024), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 4096, 128), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 2048, 128), ==, 0);
  g_assert_cmpuint (ef_cuda_mf_pick_shape (DEV, 2048, 128, &tuned), ==, EF_CUDA_MF_DEFAULT_SHAPE);
  g_assert_false (tuned);
  g_assert_true (g_file_set_contents (path, "[MF " DEV "\nedge1024-samples1024=\x01", -1, &error));
  g_assert_cmpuint (ef_cuda_mf_tune_lookup (DEV, 1024, 1024), ==, 0);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static char *
record_json (const EfRunInfo *info)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (b);
  ef_run_info_add_json (info, b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

/* The record keeps the shape through copies, and the JSON states it only where one was chosen. */
static void
test_record (void)
{
  g_auto (EfRunInfo) run = { 0 }, copy = { 0 };
  g_autofree char *plain = NULL, *with = NULL, *copied = NULL;

  ef_run_info_init (&run, EF_BACKEND_CUDA, EF_ALGO_MF, EF_PRECISION_FP32);
  plain = record_json (&run);
  g_assert_null (strstr (plain, "\"kernel\""));

  ef_run_info_set_kernel (&run, 5, ef_cuda_mf_shape_name (5), FALSE, "nothing tuned");
  ef_run_info_set_kernel (&run, 7, ef_cuda_mf_shape_name (7), TRUE, NULL);
  ef_run_info_copy (&run, &copy);
  ef_run_info_reset_image (&copy);
  g_assert_cmpuint (copy.kernel_shape, ==, 7);
  g_assert_cmpstr (copy.kernel_shape_name, ==, ef_cuda_mf_shape_name (7));
  g_assert_true (copy.kernel_shape_name != run.kernel_shape_name);
  g_assert_true (copy.kernel_tuned);
  g_assert_null (copy.kernel_note);
  with = record_json (&run);
  copied = record_json (&copy);
  g_assert_cmpstr (with, ==, copied);
  {
    g_autoptr (JsonParser) p = json_parser_new ();
    JsonObject *o, *k;

    g_assert_true (json_parser_load_from_data (p, with, -1, NULL));
    o = json_node_get_object (json_parser_get_root (p));
    g_assert_true (json_object_has_member (o, "kernel"));
    k = json_object_get_object_member (o, "kernel");
    g_assert_cmpint (json_object_get_int_member (k, "shape"), ==, 7);
    g_assert_cmpstr (json_object_get_string_member (k, "name"), ==, ef_cuda_mf_shape_name (7));
    g_assert_true (json_object_get_boolean_member (k, "tuned"));
    g_assert_true (json_object_get_null_member (k, "note"));
  }
}

int
main (int argc, char **argv)
{
  g_autofree char *tmp = g_dir_make_tmp ("ef-mf-tune-XXXXXX", NULL);
  int rc;

  /* before anything asks GLib for the cache folder */
  g_assert_nonnull (tmp);
  g_setenv ("XDG_CACHE_HOME", tmp, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cuda/mf-tune/shapes", test_shapes);
  g_test_add_func ("/cuda/mf-tune/tiles", test_tiles);
  g_test_add_func ("/cuda/mf-tune/keys", test_keys);
  g_test_add_func ("/cuda/mf-tune/round-trip", test_round_trip);
  g_test_add_func ("/cuda/mf-tune/record", test_record);
  rc = g_test_run ();
  (void) g_rmdir (tmp);
  return rc;
}
