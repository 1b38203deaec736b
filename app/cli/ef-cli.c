/* ef-cli.c: echoform-cli, the headless front end: picks a subcommand and runs it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} EfCliCommand;

static const EfCliCommand commands[] = {
  { "simulate", ef_cli_simulate, "Simulate a phase-history collection and write it as CPHD" },
  { "info",     ef_cli_info,     "Describe a collection: sizes, band, resolution, geometry" },
  { "form",     ef_cli_form,     "Form an image of a region by backprojection" },
  { "metrics",  ef_cli_metrics,  "Measure an image: impulse response, or a comparison with another" },
  { "bench",    ef_cli_bench,    "Time the backprojection kernels on simulated scenes" },
  { "tune",     ef_cli_tune,     "Choose the fastest CUDA kernel shape for this GPU and cache it" },
  { "stack",    ef_cli_stack,    "Make or describe a stack of co-registered repeat passes" },
  { "ps",       ef_cli_ps,       "Find persistent scatterers in a stack: arc coherence, velocity, height" },
  { "mri",      ef_cli_mri,      "Non-Cartesian Fourier reconstruction: gridding, F^H d, CG least squares" },
};

static void
print_usage (FILE *out)
{
  fprintf (out,
           "Usage:\n"
           "  echoform-cli COMMAND [OPTION…]\n"
           "\n"
           "Synthetic aperture radar image formation from the command line.\n"
           "\n"
           "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out,
           "  %-10s %s\n"
           "\n"
           "Run 'echoform-cli COMMAND --help' or 'echoform-cli help COMMAND' for a command's options.\n"
           "Exit status: 0 on success, 1 when a file or a computation fails, 2 for bad arguments.\n",
           "help", "Show this text, or a command's help");
}

static const EfCliCommand *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

int
main (int argc, char **argv)
{
  const EfCliCommand *cmd;

  /* Messages may follow the user's language; numbers on stdout stay machine-readable. */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  ef_cli_install_log_handler ();

  if (argc < 2)
    {
      print_usage (stderr);
      return EF_CLI_EXIT_USAGE;
    }

  if (strcmp (argv[1], "help") == 0 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "-?") == 0)
    {
      char *help_argv[3];

      if (argc < 3)
        {
          print_usage (stdout);
          return EF_CLI_EXIT_OK;
        }
      cmd = find_command (argv[2]);
      if (cmd == NULL)
        {
          ef_cli_error ("no command '%s'; run 'echoform-cli help' for the list", argv[2]);
          return EF_CLI_EXIT_USAGE;
        }
      /* A command's --help is produced by its own option context, so it is always up to date. */
      help_argv[0] = argv[2];
      help_argv[1] = (char *) "--help";
      help_argv[2] = NULL;
      return cmd->run (2, help_argv);
    }

  if (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "version") == 0)
    {
      printf ("echoform-cli %s\n", PACKAGE_VERSION);
      return EF_CLI_EXIT_OK;
    }

  cmd = find_command (argv[1]);
  if (cmd == NULL)
    {
      ef_cli_error ("no command '%s'; run 'echoform-cli help' for the list", argv[1]);
      return EF_CLI_EXIT_USAGE;
    }
  return cmd->run (argc - 1, argv + 1);
}
