/* ef-cli-private.h: what the echoform-cli subcommands share: argument parsing, errors, JSON, scenes. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "ef-backend.h"
#include "ef-dataset.h"
#include "ef-focus.h"
#include "ef-grid.h"
#include "ef-mri.h"
#include "ef-sim.h"
#include "ef-types.h"

G_BEGIN_DECLS

/* Exit codes: success, a runtime or file failure, and a command line that makes no sense. */
#define EF_CLI_EXIT_OK      0
#define EF_CLI_EXIT_FAILURE 1
#define EF_CLI_EXIT_USAGE   2

/* The subcommands. argv[0] is the subcommand's name. */
int ef_cli_simulate (int argc, char **argv);
int ef_cli_info (int argc, char **argv);
/* info on an ISMRMRD file (ef-cli-info-mri.c): whether path names one, by its name; its description. */
gboolean ef_cli_info_is_ismrmrd (const char *path);
int      ef_cli_info_ismrmrd (const char *path, gboolean json);
/* The image an ISMRMRD file's reconstruction takes: its edge (0: the file does not say) and whether its
 * trajectory is normalised (|k| <= 1/2) rather than in cycles per field of view. */
gboolean ef_cli_ismrmrd_image (const char *path, guint *edge, gboolean *normalised, GError **error);
int ef_cli_form (int argc, char **argv);
int ef_cli_metrics (int argc, char **argv);
int ef_cli_bench (int argc, char **argv);
int ef_cli_tune (int argc, char **argv);
int ef_cli_stack (int argc, char **argv);
int ef_cli_ps (int argc, char **argv);
int ef_cli_mri (int argc, char **argv);
/* The benchmarks' simulated scene: n_targets random point targets over an N-pixel square region whose
 * spacing is half the finer ground resolution, simulated with enough pulses and samples (0: N, and
 * max (128, N)) that it aliases in neither direction. */
typedef struct {
  gboolean spaceborne;
  guint    pulses, samples, n_targets;
  guint64  seed;
  guint    threads;
} EfCliBenchScene;

/* Fills sp (its targets pointing into the returned array, owned) and grid for a size x size region, or
 * returns NULL with error. */
EfSimTarget *ef_cli_bench_scene (guint size, const EfCliBenchScene *scene, EfSimParams *sp, EfGrid *grid,
                                 GError **error);

/* `bench --read PATH`: the read rate of a dataset's samples (ef-cli-bench-read.c). */
int ef_cli_bench_read (const char *path, guint block, guint repeat, gboolean json);
/* `bench --autofocus METHOD`: autofocus estimation and the corrected formation of a simulated scene
 * with an injected phase error, timed by phase, for each size (ef-cli-bench-focus.c). */
typedef struct {
  EfFocusMethod method;
  gboolean      random_walk;   /* the injected error: a per-pulse random walk, or a quadratic */
  double        error_rms;     /* rad, about its line */
  guint         max_px;        /* the estimation grid's side at most (0: the engine's default) */
  guint         memory_mib;    /* sharpness: bound on the blocks' images (0: the engine's default) */
  guint         pulses, samples, n_targets, threads, n_devices;
  guint64       seed;
  gboolean      spaceborne, json, tty;
  EfBackendKind backend_kind;
} EfCliBenchFocus;
int ef_cli_bench_focus (GArray *sizes, const EfCliBenchFocus *options);

/* Messages on stderr, prefixed "echoform-cli: ". */
void ef_cli_error (const char *format, ...) G_GNUC_PRINTF (1, 2);
void ef_cli_warning (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* Routes the engine's g_message()s to stderr as "echoform-cli: ..." and remembers them, so that
 * ef_cli_note() can say a thing once even when the engine has said it already. */
void ef_cli_install_log_handler (void);
void ef_cli_note (const char *message);
/* "echoform-cli: warning: MESSAGE", unless the same message was said already (by either). */
void ef_cli_warn_once (const char *message);
/* Prints error's message and returns the exit code that goes with it: EF_CLI_EXIT_USAGE for
 * G_OPTION_ERROR, EF_CLI_EXIT_FAILURE for anything else. */
int  ef_cli_report (const char *command, const GError *error);
/* Prints a usage error with a hint to read the subcommand's --help; returns EF_CLI_EXIT_USAGE. */
int  ef_cli_usage_error (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Makes a GOptionContext for a subcommand, with the program name set so that --help reads
 * "echoform-cli COMMAND ...". Returns an owned context. */
GOptionContext *ef_cli_option_context_new (const char *command, const char *parameter_string,
                                           const char *summary, const char *description,
                                           const GOptionEntry *entries);
/* Parses argv with context. On failure prints the error and returns FALSE. */
gboolean ef_cli_option_parse (GOptionContext *context, const char *command, int *argc, char ***argv);

/* Argument parsers. Each sets a G_OPTION_ERROR_BAD_VALUE naming `what` (the flag) on failure. NaN and
 * infinities are refused; trailing garbage is refused. */
gboolean ef_cli_parse_double (const char *what, const char *s, double min, double max, double *out,
                              GError **error);
gboolean ef_cli_parse_uint (const char *what, const char *s, guint min, guint max, guint *out, GError **error);
gboolean ef_cli_parse_uint64 (const char *what, const char *s, guint64 *out, GError **error);
/* "N" (1 to 1024) or "all" (EF_BACKEND_ALL_DEVICES): how many CUDA devices to spread the work over. */
gboolean ef_cli_parse_devices (const char *what, const char *s, guint *out, GError **error);
/* A comma-separated list of between min_count and max_count finite numbers. Returns the count. */
gboolean ef_cli_parse_doubles (const char *what, const char *s, guint min_count, guint max_count,
                               double *out, guint *count, GError **error);
/* A comma-separated list of unsigned integers in [min, max]. Returns an owned array. */
GArray  *ef_cli_parse_uints (const char *what, const char *s, guint min, guint max, GError **error);
/* "x0,y0,x1,y1" with x0 != x1 and y0 != y1; returned ordered (x0 < x1, y0 < y1). */
gboolean ef_cli_parse_roi (const char *what, const char *s, double roi[4], GError **error);
/* "x,y[,z[,amplitude]];..." into an array of EfSimTarget. */
GArray  *ef_cli_parse_targets (const char *what, const char *s, GError **error);

/* TRUE if stderr is a terminal, where a progress bar can be redrawn in place. */
gboolean ef_cli_stderr_is_tty (void);
/* Draws "label [#####.....]  42%  extra" in place on stderr. */
void     ef_cli_progress_draw (const char *label, double fraction, const char *extra);
void     ef_cli_progress_end (void);

/* JSON summaries on stdout, built with json-glib (the builder is reachable for ef_run_info_add_json). */
typedef struct {
  JsonBuilder *builder;  /* owned */
} EfCliJson;

void  ef_cli_json_init (EfCliJson *json);
char *ef_cli_json_finish (EfCliJson *json);  /* returns the owned text and resets json */
void  ef_cli_json_clear (EfCliJson *json);
/* key is NULL inside arrays and at the top level. */
void  ef_cli_json_begin_object (EfCliJson *json, const char *key);
void  ef_cli_json_end_object (EfCliJson *json);
void  ef_cli_json_begin_array (EfCliJson *json, const char *key);
void  ef_cli_json_end_array (EfCliJson *json);
void  ef_cli_json_string (EfCliJson *json, const char *key, const char *value);
void  ef_cli_json_double (EfCliJson *json, const char *key, double value);  /* non-finite: null */
void  ef_cli_json_int (EfCliJson *json, const char *key, gint64 value);
void  ef_cli_json_bool (EfCliJson *json, const char *key, gboolean value);
void  ef_cli_json_null (EfCliJson *json, const char *key);

/* A scene description: the simulate flags, or the [simulate] group of a key file. Each value is kept
 * as text with where it came from, so that an error can name the flag or the file. */
typedef enum {
  EF_CLI_SCENE_SCENE,
  EF_CLI_SCENE_GEOMETRY,
  EF_CLI_SCENE_DOMAIN,
  EF_CLI_SCENE_PULSES,
  EF_CLI_SCENE_SAMPLES,
  EF_CLI_SCENE_FC,
  EF_CLI_SCENE_BANDWIDTH,
  EF_CLI_SCENE_STANDOFF,
  EF_CLI_SCENE_GRAZING,
  EF_CLI_SCENE_APERTURE,
  EF_CLI_SCENE_SNR,
  EF_CLI_SCENE_PHASE_ERROR,
  EF_CLI_SCENE_SEED,
  EF_CLI_SCENE_TARGETS,
  EF_CLI_SCENE_SPEED,
  EF_CLI_SCENE_PRF,
  EF_CLI_SCENE_PULSE_LENGTH,
  EF_CLI_SCENE_SAMPLE_RATE,
  EF_CLI_SCENE_SQUINT,
  EF_CLI_SCENE_N_KEYS
} EfCliSceneKey;

typedef struct {
  char *value[EF_CLI_SCENE_N_KEYS];   /* owned, NULL when not given */
  char *origin[EF_CLI_SCENE_N_KEYS];  /* owned: the key file a value came from, NULL for a flag */
} EfCliSceneSpec;

void     ef_cli_scene_spec_clear (EfCliSceneSpec *spec);
/* The GOptionEntry array for the scene flags, pointing into spec. Owned array; strings are static. */
GOptionEntry *ef_cli_scene_option_entries (EfCliSceneSpec *spec);
/* Fills the values that are still unset from the [simulate] group of a key file (flags win). */
gboolean ef_cli_scene_spec_load (EfCliSceneSpec *spec, const char *path, GError **error);
/* Writes the given values as a key file. */
gboolean ef_cli_scene_spec_save (const EfCliSceneSpec *spec, const char *path, GError **error);
/* Turns the description into simulator parameters and targets (an owned GArray of EfSimTarget, which
 * params->targets borrows). Errors are G_OPTION_ERROR for flags and G_KEY_FILE_ERROR for key files. */
gboolean ef_cli_scene_build (const EfCliSceneSpec *spec, EfSimParams *params, GArray **targets,
                             GError **error);
/* Builds and simulates. Returns a new dataset reference. */
EfDataset *ef_cli_scene_simulate (const EfCliSceneSpec *spec, guint n_threads, GError **error);
/* TRUE if path names a scene key file rather than a data file (by its .ini extension). */
gboolean ef_cli_is_scene_file (const char *path);
/* Opens a data file, or simulates a scene key file in memory. */
EfDataset *ef_cli_open_input (const char *path, guint channel, guint n_threads, GError **error);

/* The per-subcommand help text for the key file format, shared by simulate and form. */
extern const char ef_cli_scene_file_help[];

/* F^H d (d given) or Q (weights w, NULL: 1) on grid g into out, where ef_mri_run_choose puts kind: on a
 * CUDA device when one is present and kind is not EF_BACKEND_CPU, otherwise on the CPU in float64 (kind
 * EF_BACKEND_CUDA then fails with EF_COMPUTE_ERROR_NO_DEVICE). *ran receives an owned line saying what
 * ran and, for a fallback, why. */
gboolean ef_cli_mri_sum (EfBackendKind kind, const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g,
                         EfCf64 *out, char **ran, GError **error);

G_END_DECLS
