/* ef-cli-mpi.h: `echoform-cli form` over MPI ranks: pulse or row decomposition, agreement on errors. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "ef-job.h"
#include "ef-run-info.h"

G_BEGIN_DECLS

/* How the ranks share a region (--decompose). */
typedef enum {
  EF_CLI_DECOMPOSE_AUTO,
  EF_CLI_DECOMPOSE_PULSES,  /* each rank: the whole region from its pulse blocks; the images summed */
  EF_CLI_DECOMPOSE_TILES,   /* each rank: its rows of the region from every pulse; the rows gathered */
} EfCliDecompose;

/* An MPI run (defined only in builds with MPI). */
typedef struct _EfCliMpi EfCliMpi;

/* Where one rank formed its part. */
typedef struct {
  int   host;            /* the hosts numbered from 0 in the order of their lowest rank */
  int   local_rank;      /* its rank among the ranks on its host */
  int   device_asked;    /* the CUDA device it asked for; -1: the backend's default (device 0) */
  int   first_device;    /* the CUDA devices its image came from: first_device on, n_devices of them; */
  guint n_devices;       /* n_devices 0: not on CUDA (the CPU, or nothing to form) */
} EfCliRankPlace;

#if HAVE_MPI
/* Starts MPI when a launcher (mpirun) started this process as one of several ranks; otherwise returns
 * NULL and the run is a single process's. Ranks other than 0 send their standard output and error to
 * /dev/null: their messages reach the user through ef_cli_mpi_agree. Owned; end with ef_cli_mpi_end. */
EfCliMpi *ef_cli_mpi_begin (void);
/* Waits for the other ranks (10 s at most, then ends the whole run with MPI_Abort: the last resort
 * against a rank that left by a path that did not agree), finalises MPI and frees mpi. NULL is allowed. */
void      ef_cli_mpi_end (EfCliMpi *mpi);
int       ef_cli_mpi_rank (const EfCliMpi *mpi);
int       ef_cli_mpi_size (const EfCliMpi *mpi);
/* This rank's rank among the ranks that share its host's memory (MPI_COMM_TYPE_SHARED). */
int       ef_cli_mpi_local_rank (const EfCliMpi *mpi);

/* The CUDA device a rank takes when the command line chooses none, given the n_devices its host has:
 * its local rank modulo n_devices, so that each rank of a host has a device of its own while there are
 * enough of them (and ranks share them round-robin when there are not); -1 when n_devices is 0. */
int       ef_cli_mpi_pick_device (const EfCliMpi *mpi, guint n_devices);

/* Every rank calls this at the same point, with its step's error (NULL: the step succeeded). Returns
 * TRUE when every rank succeeded. Otherwise rank 0 has printed, once, the message of the lowest rank
 * that failed, and every rank returns FALSE: the caller ends with EF_CLI_EXIT_FAILURE. Never hangs on a
 * rank that is still alive; a rank that died ends the run through the launcher. */
gboolean  ef_cli_mpi_agree (EfCliMpi *mpi, const GError *local_error);

/* Picks a decomposition for how (auto: tiles for PFA and for regions of at least 64 rows per rank,
 * pulses otherwise) and checks it: PFA is not a sum over pulses and is refused with pulses
 * (G_OPTION_ERROR). Same answer on every rank. */
gboolean  ef_cli_mpi_choose (EfCliMpi *mpi, const EfJobParams *params, EfCliDecompose how,
                             EfCliDecompose *chosen, GError **error);

/* Forms params's region over the ranks of mpi with the decomposition chosen; all ranks call it, and all
 * return the same answer (the errors agreed on, and printed, by ef_cli_mpi_agree). On rank 0 *image is
 * the whole image (owned), *run what rank 0's job ran, *note its fallback note (owned; may be NULL),
 * *pulses_used the pulses of the whole run, *elapsed_s its wall time, reduction included, and
 * *combine_s the time rank 0 spent summing or gathering the ranks' images, and *ran what each rank ran
 * (owned, one line a rank; ef_run_info_describe's) and *places where each rank formed (owned, one a
 * rank); *run is made the whole run's: its counts of pulses and of pixels that are not finite. On other
 * ranks *image, *ran and *places are NULL. Blocks until the image is complete. */
gboolean  ef_cli_mpi_form (EfCliMpi *mpi, EfDataset *dataset, const EfJobParams *params, EfCliDecompose how,
                           EfImage **image, EfRunInfo *run, char **note, guint64 *pulses_used,
                           double *elapsed_s, double *combine_s, char ***ran, EfCliRankPlace **places);
/* TRUE when two ranks of one host formed on a common CUDA device; *a and *b are the first two such
 * ranks and *device their device. places: n of them, as ef_cli_mpi_form gives them. */
gboolean  ef_cli_mpi_devices_shared (const EfCliRankPlace *places, int n, int *a, int *b, int *device);
const char *ef_cli_decompose_to_string (EfCliDecompose how);
#endif

G_END_DECLS
