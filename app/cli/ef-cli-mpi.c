/* ef-cli-mpi.c: `echoform-cli form` over MPI ranks: pulse or row decomposition, agreement on errors. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <complex.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ef-cli-mpi.h"
#include "ef-cli-private.h"
#include "ef-grid.h"

/* Rows are split between ranks in multiples of this, so that a rank's band starts where a tile of the
 * CPU and CUDA formers starts in the whole region. */
#define ROW_UNIT 64
/* The pulse sum is reduced this many doubles (2 MB) at a time: the extra memory of a rank is bounded, and
 * the buffers stay in cache (32 MB chunks were slower in tests/bench/mpi-reduce.sh, which is noisy here). */
#define REDUCE_CHUNK_DOUBLES (1u << 18)
#define MESSAGE_TAG 7
/* How long a rank that has finished waits for the others at the end before it ends the whole run. */
#define END_WAIT_US (10 * G_USEC_PER_SEC)

struct _EfCliMpi {
  int      rank;
  int      size;
  int      host;       /* the lowest world rank on this rank's host */
  int      local_rank; /* this rank's rank on its host */
  MPI_Comm end_comm;  /* owned: only the closing barrier, so that it never meets another collective */
  int      last_word; /* owned: the original standard error of a rank that is otherwise silenced, or -1 */
};

const char *
ef_cli_decompose_to_string (EfCliDecompose how)
{
  switch (how)
    {
    case EF_CLI_DECOMPOSE_PULSES: return "pulses";
    case EF_CLI_DECOMPOSE_TILES:  return "tiles";
    case EF_CLI_DECOMPOSE_AUTO:   break;
    }
  return "auto";
}

/* A launcher's environment: Open MPI's, PMIx's, or Hydra's and Slurm's PMI. */
static gboolean
started_by_launcher (void)
{
  return g_getenv ("OMPI_COMM_WORLD_SIZE") != NULL || g_getenv ("PMIX_RANK") != NULL
         || g_getenv ("PMI_SIZE") != NULL;
}

EfCliMpi *
ef_cli_mpi_begin (void)
{
  EfCliMpi *mpi;
  int provided;

  if (!started_by_launcher ())
    return NULL;
  /* The job's reader thread never calls MPI: the main thread alone does. */
  if (MPI_Init_thread (NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    {
      ef_cli_error ("MPI could not start");
      exit (EF_CLI_EXIT_FAILURE);
    }
  mpi = g_new0 (EfCliMpi, 1);
  MPI_Comm_rank (MPI_COMM_WORLD, &mpi->rank);
  MPI_Comm_size (MPI_COMM_WORLD, &mpi->size);
  MPI_Comm_dup (MPI_COMM_WORLD, &mpi->end_comm);
  {
    MPI_Comm local;

    /* The ranks that share this host's memory, and so its devices. */
    MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_rank (local, &mpi->local_rank);
    MPI_Allreduce (&mpi->rank, &mpi->host, 1, MPI_INT, MPI_MIN, local);
    MPI_Comm_free (&local);
  }
  /* One voice: rank 0's. The others' messages travel to it through ef_cli_mpi_agree. */
  mpi->last_word = -1;
  if (mpi->rank != 0)
    {
      int null_fd = open ("/dev/null", O_WRONLY | O_CLOEXEC);

      mpi->last_word = fcntl (STDERR_FILENO, F_DUPFD_CLOEXEC, 3);

      if (null_fd >= 0)
        {
          fflush (stdout);
          fflush (stderr);
          dup2 (null_fd, STDOUT_FILENO);
          dup2 (null_fd, STDERR_FILENO);
          close (null_fd);
        }
    }
  return mpi;
}

void
ef_cli_mpi_end (EfCliMpi *mpi)
{
  MPI_Request request;
  gint64 deadline;
  int done = 0;

  if (mpi == NULL)
    return;
  /* Every path through form meets the others at each ef_cli_mpi_agree, so the ranks arrive here within
   * moments of each other. One that does not (a rank that left early by a path that failed to agree, or
   * that is stuck) would leave the others waiting in a collective for ever: the last resort is to end
   * the whole run. */
  MPI_Ibarrier (mpi->end_comm, &request);
  deadline = g_get_monotonic_time () + END_WAIT_US;
  while (!done)
    {
      MPI_Test (&request, &done, MPI_STATUS_IGNORE);
      if (done)
        break;
      if (g_get_monotonic_time () > deadline)
        {
          g_autofree char *msg = g_strdup_printf ("echoform-cli: form: rank %d of %d: the other ranks did not "
                                                  "finish with it; ending the run\n", mpi->rank, mpi->size);

          /* The one message of a silenced rank, to where its messages would have gone. */
          if (write (mpi->last_word >= 0 ? mpi->last_word : STDERR_FILENO, msg, strlen (msg)) < 0)
            g_debug ("cannot say why the run ends");
          MPI_Abort (MPI_COMM_WORLD, EF_CLI_EXIT_FAILURE);
        }
      g_usleep (1000);
    }
  MPI_Comm_free (&mpi->end_comm);
  if (mpi->last_word >= 0)
    close (mpi->last_word);
  MPI_Finalize ();
  g_free (mpi);
}

int
ef_cli_mpi_rank (const EfCliMpi *mpi)
{
  return mpi->rank;
}

int
ef_cli_mpi_size (const EfCliMpi *mpi)
{
  return mpi->size;
}

int
ef_cli_mpi_local_rank (const EfCliMpi *mpi)
{
  return mpi->local_rank;
}

int
ef_cli_mpi_pick_device (const EfCliMpi *mpi, guint n_devices)
{
  return n_devices > 0 ? (int) ((guint) mpi->local_rank % n_devices) : -1;
}

gboolean
ef_cli_mpi_agree (EfCliMpi *mpi, const GError *local_error)
{
  int mine = local_error != NULL ? mpi->rank : mpi->size;
  int first = mpi->size;

  /* Collective, and nothing else is: a rank that failed earlier has come straight here. */
  MPI_Allreduce (&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == mpi->size)
    return TRUE;

  if (first == 0)
    {
      if (mpi->rank == 0)
        ef_cli_error ("form: %s", local_error->message);
      return FALSE;
    }
  if (mpi->rank == first)
    {
      const char *msg = local_error->message;

      MPI_Send (msg, (int) MIN (strlen (msg), 4096u), MPI_CHAR, 0, MESSAGE_TAG, MPI_COMM_WORLD);
    }
  else if (mpi->rank == 0)
    {
      char msg[4097];
      MPI_Status status;
      int n = 0;

      MPI_Recv (msg, 4096, MPI_CHAR, first, MESSAGE_TAG, MPI_COMM_WORLD, &status);
      MPI_Get_count (&status, MPI_CHAR, &n);
      msg[CLAMP (n, 0, 4096)] = '\0';
      ef_cli_error ("form: rank %d of %d: %s", first, mpi->size, msg);
    }
  return FALSE;
}

/* PFA resamples the whole aperture's k-space onto one grid: its image is not a sum of images of parts
 * of the aperture. BP, FBP and FFBP (whose sub-apertures are the pulse blocks) are. */
static gboolean
algo_sums_over_pulses (EfAlgo algo)
{
  return algo != EF_ALGO_PFA;
}

gboolean
ef_cli_mpi_choose (EfCliMpi *mpi, const EfJobParams *params, EfCliDecompose how, EfCliDecompose *chosen,
                   GError **error)
{
  EfAlgo algo = params->backend.algo;

  if (how == EF_CLI_DECOMPOSE_AUTO)
    {
      /* Rows need no reduction and read the same pulses as a single process (bit for bit its image where
       * the grid's positions are exact); pulses are for regions too small to give every rank a band. */
      how = !algo_sums_over_pulses (algo) || params->backend.grid.height >= (guint64) ROW_UNIT * mpi->size
            ? EF_CLI_DECOMPOSE_TILES : EF_CLI_DECOMPOSE_PULSES;
    }
  if (how == EF_CLI_DECOMPOSE_PULSES && !algo_sums_over_pulses (algo))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--decompose pulses: %s's image is not a sum over pulses (it resamples the whole aperture at "
                   "once); use --decompose tiles", ef_algo_to_string (algo));
      return FALSE;
    }
  *chosen = how;
  return TRUE;
}

/* The block size ef_job_new settles on: a pulse share starts on a block's first pulse, so that FFBP's
 * sub-apertures are those of a single process. */
static guint
effective_block (const EfJobParams *params)
{
  guint block = CLAMP (params->backend.block_size, 1u, 4096u);

  if ((params->backend.algo == EF_ALGO_FFBP || params->backend.algo == EF_ALGO_FBP) && block < 256)
    block = 256;
  return block;
}

/* The pulses the whole run uses, as ef_job_new counts them. */
static guint64
pulses_in_use (EfDataset *dataset, const EfJobParams *params)
{
  guint64 stride = MAX (params->pulse_stride, 1u), avail;

  if (params->first_pulse >= dataset->info.n_pulses)
    return 0;
  avail = dataset->info.n_pulses - params->first_pulse;
  if (params->n_pulses > 0)
    avail = MIN (avail, params->n_pulses);
  return (avail + stride - 1) / stride;
}

/* Rank r's part of n units: [ceil(n r / size), ceil(n (r + 1) / size)); rank 0's is never empty. */
static void
share_of (guint64 n, int rank, int size, guint64 *begin, guint64 *end)
{
  *begin = (n * (guint64) rank + (guint64) size - 1) / (guint64) size;
  *end = (n * (guint64) (rank + 1) + (guint64) size - 1) / (guint64) size;
}

#if EF_TEST_HOOKS
/* Tests: EF_TEST_MPI_STRAY_RANK=R makes rank R leave form by a path that skips the agreement, as a bug
 * would; the closing barrier must end the run rather than leave the others waiting. */
static gboolean
strays (const EfCliMpi *mpi)
{
  const char *s = g_getenv ("EF_TEST_MPI_STRAY_RANK");

  return s != NULL && atoi (s) == mpi->rank;
}

/* Tests: EF_TEST_MPI_DIE_RANK=R makes rank R leave abruptly before the images are combined, as a rank
 * killed by the system would; the others must not wait for it for ever. */
static void
maybe_die (const EfCliMpi *mpi)
{
  const char *s = g_getenv ("EF_TEST_MPI_DIE_RANK");

  if (s != NULL && atoi (s) == mpi->rank)
    _exit (3);
}

/* Tests: EF_TEST_MPI_FAIL_RANK=R makes rank R's formation fail as if memory ran out; its message must
 * reach the user through rank 0, once. */
static void
maybe_fail (const EfCliMpi *mpi, GError **error)
{
  const char *s = g_getenv ("EF_TEST_MPI_FAIL_RANK");

  if (s != NULL && atoi (s) == mpi->rank && *error == NULL)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "Not enough memory for the image (a fault the test "
                 "hooks injected)");
}
#else
#define maybe_die(mpi) ((void) 0)
#define maybe_fail(mpi, error) ((void) 0)
#define strays(mpi) FALSE
#endif

/* Forms params's region (on grid, from the share of pulses) into a new image. */
static EfImage *
form_part (EfDataset *dataset, const EfJobParams *params, const EfGrid *grid, guint64 share_first,
           guint64 share_count, EfRunInfo *run, char **note, GError **error)
{
  g_autoptr (EfJob) job = NULL;
  g_autoptr (EfImage) image = NULL;
  EfJobParams jp = *params;
  EfRect all = { 0, 0, grid->width, grid->height };

  jp.backend.grid = *grid;
  jp.share_first = share_first;
  jp.share_count = share_count;
  job = ef_job_new (dataset, &jp, error);
  if (job == NULL)
    return NULL;
  if (!ef_job_run (job, NULL, NULL, error))
    {
      ef_job_get_run_info (job, run);
      return NULL;
    }
  ef_job_get_run_info (job, run);
  *note = g_strdup (ef_job_get_note (job));
  image = ef_image_new (grid, error);
  if (image == NULL || !ef_job_read_image (job, &all, image->data, error))
    return NULL;
  return g_steal_pointer (&image);
}

static void
sum_doubles (void *in, void *inout, int *len, MPI_Datatype *type)
{
  const double *a = in;
  double *b = inout;

  for (int i = 0; i < *len; i++)
    b[i] = a[i] + b[i];
}

/* Sums every rank's partial image into rank 0's, in double. The operation is declared non-commutative,
 * so MPI combines the ranks in their order whatever its algorithm: a run gives the same image each time. */
static gboolean
reduce_images (EfCliMpi *mpi, const EfImage *part, EfImage *whole, GError **error)
{
  const EfGrid *grid = &part->grid;
  gsize row = (gsize) grid->width * 2;
  guint rows_per = (guint) MAX (1u, REDUCE_CHUNK_DOUBLES / row);
  g_autofree double *send = NULL, *recv = NULL;
  MPI_Op op;
  GError *local = NULL;

  if (row > (gsize) G_MAXINT)
    {
      g_set_error (&local, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "rows of %u pixels are too long to reduce",
                   grid->width);
    }
  else
    {
      send = g_try_new (double, rows_per * row);
      recv = mpi->rank == 0 ? g_try_new (double, rows_per * row) : NULL;
      if (send == NULL || (mpi->rank == 0 && recv == NULL))
        g_set_error (&local, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "not enough memory to sum the images");
    }
  if (!ef_cli_mpi_agree (mpi, local))
    {
      if (local != NULL)
        g_propagate_error (error, local);
      return FALSE;
    }

  MPI_Op_create (sum_doubles, 0, &op);
  for (guint r0 = 0; r0 < grid->height; r0 += rows_per)
    {
      guint n_rows = MIN (rows_per, grid->height - r0);
      gsize n = (gsize) n_rows * row;
      const float *src = (const float *) (part->data + (gsize) r0 * grid->width);

      for (gsize i = 0; i < n; i++)
        send[i] = src[i];
      MPI_Reduce (send, recv, (int) n, MPI_DOUBLE, op, 0, MPI_COMM_WORLD);
      if (mpi->rank == 0)
        {
          float *dst = (float *) (whole->data + (gsize) r0 * grid->width);

          for (gsize i = 0; i < n; i++)
            dst[i] = (float) recv[i];
        }
    }
  MPI_Op_free (&op);
  return TRUE;
}

static gboolean
form_pulses (EfCliMpi *mpi, EfDataset *dataset, const EfJobParams *params, EfImage **image, EfRunInfo *run,
             char **note, double *combine_s)
{
  gint64 t0;
  g_autoptr (EfImage) part = NULL;
  g_autoptr (EfImage) whole = NULL;
  g_autoptr (GError) error = NULL;
  const EfGrid *grid = &params->backend.grid;
  guint block = effective_block (params);
  guint64 n_used = pulses_in_use (dataset, params);
  guint64 n_blocks = (n_used + block - 1) / block, b0, b1, first, count;

  /* The blocks, not the pulses, are shared: a block is a sub-aperture of FFBP and FBP. */
  share_of (n_blocks, mpi->rank, mpi->size, &b0, &b1);
  first = b0 * block;
  count = MIN (b1 * block, n_used) - MIN (first, n_used);
  g_debug ("rank %d: pulses [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT ") of %" G_GUINT64_FORMAT, mpi->rank,
           first, count, n_used);
  if (count > 0)
    part = form_part (dataset, params, grid, first, count, run, note, &error);
  else
    part = ef_image_new (grid, &error);  /* more ranks than blocks: this one adds nothing */
  if (part != NULL && mpi->rank == 0)
    whole = ef_image_new (grid, &error);
  maybe_fail (mpi, &error);
  if (!ef_cli_mpi_agree (mpi, error))
    return FALSE;
  maybe_die (mpi);
  t0 = g_get_monotonic_time ();
  if (!reduce_images (mpi, part, whole, &error))
    return FALSE;
  *combine_s = (double) (g_get_monotonic_time () - t0) * 1e-6;
  *image = g_steal_pointer (&whole);
  return TRUE;
}

static gboolean
form_tiles (EfCliMpi *mpi, EfDataset *dataset, const EfJobParams *params, EfImage **image, EfRunInfo *run,
            char **note, double *combine_s)
{
  gint64 t0;
  g_autoptr (EfImage) part = NULL;
  g_autoptr (EfImage) whole = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree int *counts = NULL, *displs = NULL;
  const EfGrid *grid = &params->backend.grid;
  guint64 n_units = (grid->height + ROW_UNIT - 1) / ROW_UNIT, u0, u1;
  guint r0, r1;
  EfGrid band = *grid;
  MPI_Datatype row_type;

  share_of (n_units, mpi->rank, mpi->size, &u0, &u1);
  r0 = (guint) MIN (u0 * ROW_UNIT, grid->height);
  r1 = (guint) MIN (u1 * ROW_UNIT, grid->height);
  g_debug ("rank %d: rows [%u, %u) of %u", mpi->rank, r0, r1, grid->height);
  /* The band's first pixel where the whole region's pixel (0, r0) is. */
  ef_grid_pixel_position (grid, 0, r0, band.origin);
  band.height = r1 - r0;
  if (band.height > 0)
    part = form_part (dataset, params, &band, 0, 0, run, note, &error);
  if (mpi->rank == 0 && error == NULL)
    whole = ef_image_new (grid, &error);
  if ((guint64) grid->width * 2 > G_MAXINT && error == NULL)
    g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "rows of %u pixels are too long to gather",
                 grid->width);
  maybe_fail (mpi, &error);
  if (!ef_cli_mpi_agree (mpi, error))
    return FALSE;
  maybe_die (mpi);

  t0 = g_get_monotonic_time ();
  /* Counted in rows, so that no count overflows an int however large the region. */
  MPI_Type_contiguous ((int) grid->width * 2, MPI_FLOAT, &row_type);
  MPI_Type_commit (&row_type);
  if (mpi->rank == 0)
    {
      counts = g_new (int, mpi->size);
      displs = g_new (int, mpi->size);
      for (int r = 0; r < mpi->size; r++)
        {
          share_of (n_units, r, mpi->size, &u0, &u1);
          displs[r] = (int) MIN (u0 * ROW_UNIT, grid->height);
          counts[r] = (int) MIN (u1 * ROW_UNIT, grid->height) - displs[r];
        }
    }
  MPI_Gatherv (part != NULL ? (void *) part->data : NULL, (int) band.height, row_type,
               whole != NULL ? (void *) whole->data : NULL, counts, displs, row_type, 0, MPI_COMM_WORLD);
  MPI_Type_free (&row_type);
  *combine_s = (double) (g_get_monotonic_time () - t0) * 1e-6;
  *image = g_steal_pointer (&whole);
  return TRUE;
}

#define RAN_LEN 96
#define PLACE_INTS 5

gboolean
ef_cli_mpi_devices_shared (const EfCliRankPlace *places, int n, int *a, int *b, int *device)
{
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      {
        const EfCliRankPlace *p = &places[i], *q = &places[j];
        int lo = MAX (p->first_device, q->first_device);

        if (p->host != q->host || p->n_devices == 0 || q->n_devices == 0)
          continue;
        /* Two ranges of devices that overlap: the higher start lies inside both. */
        if ((gint64) lo < (gint64) p->first_device + p->n_devices && (gint64) lo < (gint64) q->first_device + q->n_devices)
          {
            *a = i;
            *b = j;
            *device = lo;
            return TRUE;
          }
      }
  return FALSE;
}

/* Gathers where each rank formed into *places (owned, on rank 0): its host and local rank, the device it
 * asked for, and the CUDA devices its record says its image came from. */
static void
gather_places (EfCliMpi *mpi, const EfJobParams *params, const EfRunInfo *run, EfCliRankPlace **places)
{
  gboolean on_cuda = g_strcmp0 (run->backend, "cuda") == 0 && run->n_devices > 0;
  int mine[PLACE_INTS] = { mpi->host, mpi->local_rank, params->backend.device,
                           on_cuda ? MAX (params->backend.device, 0) : -1, on_cuda ? (int) run->n_devices : 0 };
  g_autofree int *all = mpi->rank == 0 ? g_new0 (int, (gsize) PLACE_INTS * mpi->size) : NULL;
  int n_hosts = 0;
  g_autofree int *host_of = NULL;

  MPI_Gather (mine, PLACE_INTS, MPI_INT, all, PLACE_INTS, MPI_INT, 0, MPI_COMM_WORLD);
  if (mpi->rank != 0)
    return;
  /* A host is named by its lowest world rank; number them 0, 1, ... in that order. */
  host_of = g_new (int, mpi->size);
  for (int r = 0; r < mpi->size; r++)
    host_of[r] = -1;
  *places = g_new0 (EfCliRankPlace, mpi->size);
  for (int r = 0; r < mpi->size; r++)
    {
      const int *v = all + (gsize) r * PLACE_INTS;
      EfCliRankPlace *p = &(*places)[r];
      int lowest = CLAMP (v[0], 0, mpi->size - 1);

      if (host_of[lowest] < 0)
        host_of[lowest] = n_hosts++;
      p->host = host_of[lowest];
      p->local_rank = v[1];
      p->device_asked = v[2];
      p->first_device = v[3];
      p->n_devices = (guint) MAX (v[4], 0);
    }
}

/* Makes rank 0's record the whole run's: the counts of the pulse shares summed (every rank of the tile
 * decomposition reads every pulse, so rank 0's counts are the run's), the pixels that are not finite
 * counted on the whole image, and what each rank ran, which may differ (a rank whose CUDA device failed
 * falls back to the CPU), into *ran (owned, on rank 0), and where, into *places. */
static void
combine_records (EfCliMpi *mpi, EfCliDecompose how, const EfJobParams *params, EfRunInfo *run,
                 const EfImage *image, char ***ran, EfCliRankPlace **places)
{
  guint64 mine[3] = { run->nonfinite_samples, run->blocks_fast, run->blocks_bp }, sum[3] = { 0, 0, 0 };
  g_autofree char *all = NULL;
  char text[RAN_LEN] = { 0 };

  gather_places (mpi, params, run, places);
  MPI_Reduce (mine, sum, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (run->backend != NULL)
    {
      g_autofree char *d = ef_run_info_describe (run);
      g_strlcpy (text, d, sizeof text);
    }
  else
    g_strlcpy (text, "nothing to form", sizeof text);
  if (mpi->rank == 0)
    all = g_malloc0 ((gsize) RAN_LEN * mpi->size);
  MPI_Gather (text, RAN_LEN, MPI_CHAR, all, RAN_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (mpi->rank != 0)
    return;

  *ran = g_new0 (char *, mpi->size + 1);
  for (int r = 0; r < mpi->size; r++)
    (*ran)[r] = g_strndup (all + (gsize) r * RAN_LEN, RAN_LEN - 1);
  if (how == EF_CLI_DECOMPOSE_PULSES)
    {
      run->nonfinite_samples = sum[0];
      run->blocks_fast = sum[1];
      run->blocks_bp = sum[2];
    }
  run->nonfinite_pixels = 0;
  for (gsize i = 0, n = ef_grid_n_pixels (&image->grid); i < n; i++)
    if (!isfinite (crealf (image->data[i])) || !isfinite (cimagf (image->data[i])))
      run->nonfinite_pixels++;
  run->pixels_counted = TRUE;
}

gboolean
ef_cli_mpi_form (EfCliMpi *mpi, EfDataset *dataset, const EfJobParams *params, EfCliDecompose how,
                 EfImage **image, EfRunInfo *run, char **note, guint64 *pulses_used, double *elapsed_s,
                 double *combine_s, char ***ran, EfCliRankPlace **places)
{
  gint64 t0;
  gboolean ok;

  *image = NULL;
  *note = NULL;
  *combine_s = 0;
  *ran = NULL;
  *places = NULL;
  if (strays (mpi))
    return FALSE;
  /* Every rank starts together, so that the time is the run's, not the slowest file open's. */
  MPI_Barrier (MPI_COMM_WORLD);
  t0 = g_get_monotonic_time ();
  if (how == EF_CLI_DECOMPOSE_PULSES)
    ok = form_pulses (mpi, dataset, params, image, run, note, combine_s);
  else
    ok = form_tiles (mpi, dataset, params, image, run, note, combine_s);
  *elapsed_s = (double) (g_get_monotonic_time () - t0) * 1e-6;
  *pulses_used = pulses_in_use (dataset, params);
  if (ok)
    combine_records (mpi, how, params, run, *image, ran, places);
  return ok;
}
