/* test-session.c: the session file: what it restores, and what a damaged or hostile one cannot do. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-session"
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "ef-session.h"

static void
state_init (EfSessionState *state)
{
  memset (state, 0, sizeof *state);
  ef_processing_init (&state->proc);
  ef_display_params_init (&state->display);
}

static void
write_session_file (const char *text, gssize len)
{
  g_autofree char *path = ef_session_get_file ();
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, len, NULL));
}

/* What is saved comes back. */
static void
test_roundtrip (void)
{
  EfSessionState a, b;
  g_autoptr (GError) error = NULL;
  const char *key = "/data/pass1.cphd";

  state_init (&a);
  a.has_roi = TRUE;
  a.roi[0] = -12.5, a.roi[1] = -3.25, a.roi[2] = 7.75, a.roi[3] = 9.0;
  a.proc.upsample = 4;
  a.proc.block_size = 128;
  a.proc.az_window = EF_WINDOW_HANN;
  /* Two kept regions, each with its own processing. */
  a.n_regions = 2;
  a.regions[0] = (EfSessionRegion) { { -5, -5, 5, 5 }, a.proc, "1: bp fp32" };
  a.regions[1] = (EfSessionRegion) { { 1.5, -2.25, 9, 3 }, a.proc, "2: pfa, rect" };
  a.regions[1].proc.algo = EF_ALGO_PFA;
  a.regions[1].proc.az_window = EF_WINDOW_RECT;
  a.regions[1].proc.upsample = 8;
  a.proc.spacing_auto = FALSE;
  a.proc.spacing = 0.05;
  a.proc.samples_per_cell = 3.0;
  a.has_display = TRUE;
  a.display.db_min = -42.0;
  a.display.db_max = -3.0;
  a.display.gamma = 1.7;
  g_assert_true (ef_session_save (key, &a, &error));
  g_assert_no_error (error);

  state_init (&b);
  g_assert_true (ef_session_load (key, &b));
  g_assert_true (b.has_roi);
  g_assert_cmpmem (b.roi, sizeof b.roi, a.roi, sizeof a.roi);
  g_assert_cmpuint (b.proc.upsample, ==, 4);
  g_assert_cmpuint (b.proc.block_size, ==, 128);
  g_assert_cmpint (b.proc.az_window, ==, EF_WINDOW_HANN);
  g_assert_cmpuint (b.n_regions, ==, 2);
  g_assert_cmpmem (b.regions[1].roi, sizeof b.regions[1].roi, a.regions[1].roi, sizeof a.regions[1].roi);
  g_assert_cmpstr (b.regions[0].label, ==, "1: bp fp32");
  g_assert_cmpstr (b.regions[1].label, ==, "2: pfa, rect");
  g_assert_cmpint (b.regions[0].proc.algo, ==, EF_ALGO_BP);
  g_assert_cmpint (b.regions[1].proc.algo, ==, EF_ALGO_PFA);
  g_assert_cmpint (b.regions[1].proc.az_window, ==, EF_WINDOW_RECT);
  g_assert_cmpuint (b.regions[1].proc.upsample, ==, 8);
  g_assert_false (b.proc.spacing_auto);
  g_assert_cmpfloat (b.proc.spacing, ==, 0.05);
  g_assert_cmpfloat (b.proc.samples_per_cell, ==, 3.0);
  g_assert_true (b.has_display);
  g_assert_cmpfloat (b.display.db_min, ==, -42.0);
  g_assert_cmpfloat (b.display.db_max, ==, -3.0);
  g_assert_cmpfloat (b.display.gamma, ==, 1.7);
  g_assert_false (ef_session_load ("/somewhere/else.cphd", &b));
}

/* Numbers from a damaged or hand-edited file that would ask the job for gigabytes (a range FFT 2^31
 * times longer, blocks of two billion pulses), or put NaN into the region or the display, are ignored:
 * the fields keep the values they had. */
static void
test_hostile_values (void)
{
  const char *key = "/data/hostile.cphd";
  g_autofree char *group = g_compute_checksum_for_string (G_CHECKSUM_SHA1, key, -1);
  g_autofree char *text = g_strdup_printf ("[%s]\n"
                                           "path=%s\n"
                                           "roi=nan;0;inf;5;\n"
                                           "upsample=2147483647\n"
                                           "block-size=4294967295\n"
                                           "spacing=1e-300\n"
                                           "samples-per-cell=1e308\n"
                                           "db-min=-inf\n"
                                           "db-max=1e400\n"
                                           "gamma=0\n"
                                           "view=nonsense\n",
                                           group, key);
  EfSessionState s, ref;

  write_session_file (text, -1);
  state_init (&s);
  state_init (&ref);
  g_assert_true (ef_session_load (key, &s));
  g_assert_false (s.has_roi);
  g_assert_cmpuint (s.proc.upsample, ==, ref.proc.upsample);
  g_assert_cmpuint (s.proc.block_size, ==, ref.proc.block_size);
  g_assert_cmpfloat (s.proc.spacing, ==, ref.proc.spacing);
  g_assert_cmpfloat (s.proc.samples_per_cell, ==, ref.proc.samples_per_cell);
  g_assert_true (s.has_display);
  g_assert_cmpfloat (s.display.db_min, ==, ref.display.db_min);
  g_assert_cmpfloat (s.display.db_max, ==, ref.display.db_max);
  g_assert_cmpfloat (s.display.gamma, ==, ref.display.gamma);
  g_assert_cmpint (s.display.mode, ==, ref.display.mode);

  /* Just past the schema's ranges, and just inside them. */
  g_free (text);
  text = g_strdup_printf ("[%s]\nupsample=33\nblock-size=4097\nspacing=100.5\nsamples-per-cell=0.4\n", group);
  write_session_file (text, -1);
  state_init (&s);
  g_assert_true (ef_session_load (key, &s));
  g_assert_cmpuint (s.proc.upsample, ==, ref.proc.upsample);
  g_assert_cmpuint (s.proc.block_size, ==, ref.proc.block_size);
  g_assert_cmpfloat (s.proc.spacing, ==, ref.proc.spacing);
  g_assert_cmpfloat (s.proc.samples_per_cell, ==, ref.proc.samples_per_cell);
  g_free (text);
  text = g_strdup_printf ("[%s]\nupsample=32\nblock-size=4096\nspacing=100\nsamples-per-cell=0.5\n", group);
  write_session_file (text, -1);
  g_assert_true (ef_session_load (key, &s));
  g_assert_cmpuint (s.proc.upsample, ==, 32);
  g_assert_cmpuint (s.proc.block_size, ==, 4096);
  g_assert_cmpfloat (s.proc.spacing, ==, 100.0);
  g_assert_cmpfloat (s.proc.samples_per_cell, ==, 0.5);
}

/* A file far larger than Echoform writes is not read at all (it might be gigabytes), nor is one with
 * thousands of sessions (forgetting the oldest of them would take quadratic time); saving replaces
 * either with a small file. Binary garbage is ignored too. */
static void
test_hostile_file (void)
{
  const char *key = "/data/big.cphd";
  g_autofree char *group = g_compute_checksum_for_string (G_CHECKSUM_SHA1, key, -1);
  g_autofree char *path = ef_session_get_file ();
  g_autoptr (GString) big = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  EfSessionState s;
  GStatBuf st;

  g_string_append_printf (big, "[%s]\nupsample=4\n", group);
  while (big->len <= 1024 * 1024)
    g_string_append (big, "# padding padding padding padding padding padding padding padding padding\n");
  write_session_file (big->str, (gssize) big->len);
  state_init (&s);
  g_assert_false (ef_session_load (key, &s));

  g_string_truncate (big, 0);
  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (big, "[g%u]\nsaved=%u\n", i, i);
  g_string_append_printf (big, "[%s]\nupsample=4\n", group);
  g_assert_cmpuint (big->len, <, 1024 * 1024);
  write_session_file (big->str, (gssize) big->len);
  g_assert_false (ef_session_load (key, &s));
  state_init (&s);
  g_assert_true (ef_session_save (key, &s, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 4096);
  g_assert_true (ef_session_load (key, &s));

  write_session_file ("\x01\x02\xff\xfe[[[\n=\n\x00garbage", 20);
  state_init (&s);
  g_assert_false (ef_session_load (key, &s));
}

int
main (int argc, char **argv)
{
  /* The session file lives under a temporary XDG_STATE_HOME. */
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ui/session/roundtrip", test_roundtrip);
  g_test_add_func ("/ui/session/hostile-values", test_hostile_values);
  g_test_add_func ("/ui/session/hostile-file", test_hostile_file);
  return g_test_run ();
}
