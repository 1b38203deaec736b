/* ef-ismrmrd.c: ISMRMRD raw data through libismrmrd's C interface: acquisitions in, k-space samples out. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ismrmrd"
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/ismrmrd.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "ef-error.h"
#include "ef-isolate.h"
#include "ef-ismrmrd-private.h"

#define EF_ISMRMRD_GROUP "/dataset"
#define EF_ISMRMRD_DATA EF_ISMRMRD_GROUP "/data"
#define EF_ISMRMRD_XML EF_ISMRMRD_GROUP "/xml"
#define MAX_FOV_MM 1e6

/* libismrmrd reports through one process-wide handler; keep the calling thread's last message for the
 * GError instead of letting it print. */
static GPrivate last_message = G_PRIVATE_INIT (g_free);
/* Held around every use of libismrmrd in this process, and across the fork of a reading process. */
static GMutex ismrmrd_lock;

static void
ef_ismrmrd_on_error (const char *file, int line, const char *function, int code, const char *msg)
{
  (void) file;
  (void) line;
  g_private_replace (&last_message, g_strdup_printf ("%s (%s, code %d)", msg != NULL ? msg : "error",
                                                     function != NULL ? function : "?", code));
}

static void
ef_ismrmrd_init (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      ismrmrd_set_error_handler (ef_ismrmrd_on_error);
      H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
      g_once_init_leave (&once, 1);
    }
  g_private_replace (&last_message, NULL);
}

static gboolean
ef_ismrmrd_fail (GError **error, int code, const char *path, const char *what)
{
  const char *why = g_private_get (&last_message);

  g_set_error (error, EF_IO_ERROR, code, "“%s”: %s%s%s", path, what, why != NULL ? ": " : "", why != NULL ? why : "");
  return FALSE;
}

/* ---- the XML header ---- */

static xmlNode *
child_element (xmlNode *parent, const char *name)
{
  for (xmlNode *c = parent != NULL ? parent->children : NULL; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE && strcmp ((const char *) c->name, name) == 0)
      return c;
  return NULL;
}

/* The number in element parent/name ("x", "y", "z"), or FALSE with an error naming it. */
static gboolean
xml_number (xmlNode *parent, const char *where, const char *name, gboolean integer, double *out, const char *path,
            GError **error)
{
  xmlNode *e = child_element (parent, name);
  g_autofree char *text = NULL;
  char *end = NULL;
  double v;

  if (e == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: the XML header's %s lacks <%s>", path, where, name);
      return FALSE;
    }
  text = (char *) xmlNodeGetContent (e);
  g_strstrip (text);
  if (integer)
    {
      guint64 u;
      if (text[0] == '-' || !g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &u, NULL))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: the XML header's %s/%s is not a "
                       "count: “%.40s”", path, where, name, text);
          return FALSE;
        }
      *out = (double) u;
      return TRUE;
    }
  v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0')
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: the XML header's %s/%s is not a number: "
                   "“%.40s”", path, where, name, text);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* Reads encoding/encodedSpace's matrixSize and fieldOfView_mm into info and checks them. */
static gboolean
parse_header (const char *xml, gsize len, const char *path, EfIsmrmrdInfo *info, GError **error)
{
  static const char *const axes[] = { "x", "y", "z" };
  xmlDoc *doc;
  xmlNode *root, *space;
  gboolean ok = TRUE;

  doc = xmlReadMemory (xml, (int) len, "ismrmrd.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR
                       | XML_PARSE_NOWARNING);
  if (doc == NULL || (root = xmlDocGetRootElement (doc)) == NULL)
    {
      const xmlError *e = xmlGetLastError ();
      g_autofree char *why = g_strchomp (g_strdup (e != NULL && e->message != NULL ? e->message : ""));
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: the XML header is malformed%s%s", path,
                   why[0] != '\0' ? ": " : "", why);
      if (doc != NULL)
        xmlFreeDoc (doc);
      return FALSE;
    }
  if (doc->intSubset != NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: the XML header declares a DTD, which ISMRMRD "
                   "does not use; refusing to read it", path);
      xmlFreeDoc (doc);
      return FALSE;
    }
  space = child_element (child_element (root, "encoding"), "encodedSpace");
  if (space != NULL)
    {
      xmlNode *matrix = child_element (space, "matrixSize"), *fov = child_element (space, "fieldOfView_mm");

      for (guint a = 0; a < 3 && ok; a++)
        {
          double m = 0, f = 0;
          ok = xml_number (matrix, "encodedSpace/matrixSize", axes[a], TRUE, &m, path, error)
               && xml_number (fov, "encodedSpace/fieldOfView_mm", axes[a], FALSE, &f, path, error);
          if (ok && (m < 1 || m > EF_MRI_MAX_EDGE))
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: the XML header's encodedSpace/"
                           "matrixSize/%s is %.0f; it must be 1 to %u", path, axes[a], m, EF_MRI_MAX_EDGE);
              ok = FALSE;
            }
          else if (ok && !(f > 0 && f < MAX_FOV_MM))
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: the XML header's encodedSpace/"
                           "fieldOfView_mm/%s is %g; it must be positive, finite and below %g mm", path, axes[a], f,
                           MAX_FOV_MM);
              ok = FALSE;
            }
          if (ok)
            {
              /* converted only once checked: a size of 2^32 or more does not fit a guint */
              info->matrix[a] = (guint) m;
              info->fov_mm[a] = f;
            }
        }
    }
  xmlFreeDoc (doc);
  return ok;
}

static gboolean
read_header (ISMRMRD_Dataset *dset, const char *path, EfIsmrmrdInfo *info, GError **error)
{
  hid_t ds, type;
  htri_t vlen;
  char *xml;
  gboolean ok;

  if (H5Lexists (dset->fileid, EF_ISMRMRD_XML, H5P_DEFAULT) <= 0)
    return TRUE;
  /* libismrmrd reads it as one variable-length string and takes its strlen unchecked */
  ds = H5Dopen2 (dset->fileid, EF_ISMRMRD_XML, H5P_DEFAULT);
  type = ds >= 0 ? H5Dget_type (ds) : -1;
  vlen = type >= 0 && H5Tget_class (type) == H5T_STRING ? H5Tis_variable_str (type) : 0;
  if (ds >= 0)
    {
      hid_t space = H5Dget_space (ds);
      if (space < 0 || H5Sget_simple_extent_npoints (space) != 1)
        vlen = 0;
      if (space >= 0)
        H5Sclose (space);
    }
  if (vlen > 0)
    {
      char *buf[1] = { NULL };
      hid_t mtype = H5Tcopy (H5T_C_S1);

      H5Tset_size (mtype, H5T_VARIABLE);
      if (H5Dread (ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 || buf[0] == NULL)
        vlen = 0;
      else if (strnlen (buf[0], EF_ISMRMRD_MAX_XML + 1) > EF_ISMRMRD_MAX_XML)
        vlen = -1;
      free (buf[0]);
      H5Tclose (mtype);
    }
  if (type >= 0)
    H5Tclose (type);
  if (ds >= 0)
    H5Dclose (ds);
  if (vlen <= 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, vlen < 0 ? "“%s”: the XML header (" EF_ISMRMRD_XML
                   ") is longer than %u bytes" : "“%s”: the XML header (" EF_ISMRMRD_XML ") is not one string",
                   path, EF_ISMRMRD_MAX_XML);
      return FALSE;
    }
  xml = ismrmrd_read_header (dset);
  if (xml == NULL)
    return ef_ismrmrd_fail (error, EF_IO_ERROR_FORMAT, path, "the XML header cannot be read");
  ok = parse_header (xml, strlen (xml), path, info, error);
  free (xml);
  return ok;
}

/* ---- acquisitions ---- */

/* What the reader checks before libismrmrd reads an acquisition: its header's sizes, and the true
 * lengths of its arrays, through HDF5's conversion of the members it names (by name). */
typedef struct {
  uint16_t number_of_samples, active_channels, trajectory_dimensions;
} PeekHead;
typedef struct {
  PeekHead head;
  hvl_t    traj, data;
} Peek;

typedef struct {
  hid_t ds, space, mem, peek;
} AcqFile;

static void
acq_file_close (AcqFile *f)
{
  if (f->peek >= 0) H5Tclose (f->peek);
  if (f->mem >= 0) H5Sclose (f->mem);
  if (f->space >= 0) H5Sclose (f->space);
  if (f->ds >= 0) H5Dclose (f->ds);
}

/* libismrmrd reads the header with a type of all these members and uses the result even when HDF5
 * could not convert it: a file whose header lacks one must be refused before. */
static gboolean
check_head_members (hid_t ds, const char *path, GError **error)
{
  static const char *const names[] = {
    "version", "flags", "measurement_uid", "scan_counter", "acquisition_time_stamp", "physiology_time_stamp",
    "number_of_samples", "available_channels", "active_channels", "channel_mask", "discard_pre", "discard_post",
    "center_sample", "encoding_space_ref", "trajectory_dimensions", "sample_time_us", "position", "read_dir",
    "phase_dir", "slice_dir", "patient_table_position", "idx", "user_int", "user_float",
  };
  hid_t ftype = H5Dget_type (ds), head = -1;
  int hi = ftype >= 0 ? H5Tget_member_index (ftype, "head") : -1;
  const char *missing = NULL;

  if (hi >= 0)
    head = H5Tget_member_type (ftype, (unsigned) hi);
  if (head < 0 || H5Tget_class (head) != H5T_COMPOUND)
    missing = "head";
  for (guint i = 0; missing == NULL && i < G_N_ELEMENTS (names); i++)
    if (H5Tget_member_index (head, names[i]) < 0)
      missing = names[i];
  if (head >= 0)
    H5Tclose (head);
  if (ftype >= 0)
    H5Tclose (ftype);
  if (missing != NULL)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: the acquisition header type lacks the member %s",
                 path, missing);
  return missing == NULL;
}

/* Opens /dataset/data and checks its shape and type; *n_acq is its length. */
static gboolean
acq_file_open (ISMRMRD_Dataset *dset, const char *path, AcqFile *f, guint *n_acq, GError **error)
{
  hsize_t dims[2] = { 0, 0 }, one = 1;
  hid_t ftype, head;
  int rank;
  gboolean ok;

  f->ds = f->space = f->mem = f->peek = -1;
  if (H5Lexists (dset->fileid, EF_ISMRMRD_GROUP, H5P_DEFAULT) <= 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is an HDF5 file without the ISMRMRD group "
                   EF_ISMRMRD_GROUP, path);
      return FALSE;
    }
  if (H5Lexists (dset->fileid, EF_ISMRMRD_DATA, H5P_DEFAULT) <= 0
      || (f->ds = H5Dopen2 (dset->fileid, EF_ISMRMRD_DATA, H5P_DEFAULT)) < 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” has no acquisition dataset (" EF_ISMRMRD_DATA ")",
                   path);
      return FALSE;
    }
  f->space = H5Dget_space (f->ds);
  rank = f->space >= 0 ? H5Sget_simple_extent_ndims (f->space) : -1;
  if (rank != 1 || H5Sget_simple_extent_dims (f->space, dims, NULL) != 1 || dims[0] > EF_ISMRMRD_MAX_ACQUISITIONS)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: the acquisition dataset (" EF_ISMRMRD_DATA
                   ") has %d dimensions of %" G_GUINT64_FORMAT " (and %" G_GUINT64_FORMAT "); ISMRMRD has one of at "
                   "most %u acquisitions here", path, rank, (guint64) dims[0], (guint64) dims[1],
                   EF_ISMRMRD_MAX_ACQUISITIONS);
      return FALSE;
    }
  *n_acq = (guint) dims[0];
  ftype = H5Dget_type (f->ds);
  ok = ftype >= 0 && H5Tget_class (ftype) == H5T_COMPOUND && H5Tget_member_index (ftype, "head") >= 0
       && H5Tget_member_index (ftype, "traj") >= 0 && H5Tget_member_index (ftype, "data") >= 0;
  if (ftype >= 0)
    H5Tclose (ftype);
  if (!ok)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: the acquisition dataset (" EF_ISMRMRD_DATA ") is "
                   "not of ISMRMRD's acquisition type (head, traj, data)", path);
      return FALSE;
    }
  if (!check_head_members (f->ds, path, error))
    return FALSE;
  head = H5Tcreate (H5T_COMPOUND, sizeof (PeekHead));
  H5Tinsert (head, "number_of_samples", HOFFSET (PeekHead, number_of_samples), H5T_NATIVE_UINT16);
  H5Tinsert (head, "active_channels", HOFFSET (PeekHead, active_channels), H5T_NATIVE_UINT16);
  H5Tinsert (head, "trajectory_dimensions", HOFFSET (PeekHead, trajectory_dimensions), H5T_NATIVE_UINT16);
  f->peek = H5Tcreate (H5T_COMPOUND, sizeof (Peek));
  H5Tinsert (f->peek, "head", HOFFSET (Peek, head), head);
  {
    hid_t vt = H5Tvlen_create (H5T_NATIVE_FLOAT), vd = H5Tvlen_create (H5T_NATIVE_FLOAT);
    H5Tinsert (f->peek, "traj", HOFFSET (Peek, traj), vt);
    H5Tinsert (f->peek, "data", HOFFSET (Peek, data), vd);
    H5Tclose (vt);
    H5Tclose (vd);
  }
  H5Tclose (head);
  f->mem = H5Screate_simple (1, &one, NULL);
  return TRUE;
}

/* Reads acquisition a's sizes and checks them against its arrays' lengths and the bounds. */
static gboolean
acq_peek (AcqFile *f, guint a, const char *path, PeekHead *out, GError **error)
{
  hsize_t start = a, count = 1;
  Peek p;
  gboolean ok = TRUE;
  guint64 want_traj, want_data;

  memset (&p, 0, sizeof p);
  if (H5Sselect_hyperslab (f->space, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0
      || H5Dread (f->ds, f->peek, f->mem, f->space, H5P_DEFAULT, &p) < 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: acquisition %u cannot be read: its type or "
                   "storage is damaged", path, a);
      return FALSE;
    }
  *out = p.head;
  want_traj = (guint64) p.head.number_of_samples * p.head.trajectory_dimensions;
  /* the data are stored as floats, real and imaginary parts interleaved */
  want_data = (guint64) 2 * p.head.number_of_samples * p.head.active_channels;
  if (p.head.active_channels == 0 || p.head.active_channels > EF_ISMRMRD_MAX_CHANNELS)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u's active_channels is %u; it "
                   "must be 1 to %u", path, a, p.head.active_channels, EF_ISMRMRD_MAX_CHANNELS);
      ok = FALSE;
    }
  else if (p.head.trajectory_dimensions != 2 && p.head.trajectory_dimensions != 3)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "“%s”: acquisition %u has a %u-D trajectory "
                   "(trajectory_dimensions); non-Cartesian reconstruction needs 2-D or 3-D k-space positions", path,
                   a, p.head.trajectory_dimensions);
      ok = FALSE;
    }
  else if (p.traj.len != want_traj || p.data.len != want_data)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u's header declares "
                   "number_of_samples %u, active_channels %u and trajectory_dimensions %u, but it holds %"
                   G_GUINT64_FORMAT " trajectory and %" G_GUINT64_FORMAT " data floats", path, a,
                   p.head.number_of_samples, p.head.active_channels, p.head.trajectory_dimensions,
                   (guint64) p.traj.len, (guint64) p.data.len);
      ok = FALSE;
    }
  H5Dvlen_reclaim (f->peek, f->mem, H5P_DEFAULT, &p);
  return ok;
}

gboolean
ef_ismrmrd_read_in_process (const char *path, guint channel, double traj_scale, EfIsmrmrdInfo *info,
                            EfMriTraj **traj, EfCf64 **data, GError **error)
{
  ISMRMRD_Dataset dset;
  ISMRMRD_Acquisition acq;
  g_autoptr (GArray) k = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) d = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  AcqFile f = { -1, -1, -1, -1 };
  guint dim = 0, n_acq = 0, n_coils = 0;
  guint64 values = 0;
  gsize m;
  gboolean ok = TRUE;
  EfMriTraj *t;
  EfCf64 *out;

  g_return_val_if_fail (path != NULL && info != NULL && traj != NULL && data != NULL, FALSE);
  memset (info, 0, sizeof *info);
  *traj = NULL;
  *data = NULL;
  if (!(traj_scale > 0) || !isfinite (traj_scale))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: trajectory scale %g is not positive", path,
                   traj_scale);
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "“%s” is not a readable file", path);
      return FALSE;
    }
  ef_ismrmrd_init ();
  if (H5Fis_hdf5 (path) <= 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not an ISMRMRD file: it is not an HDF5 file",
                   path);
      return FALSE;
    }
  if (ismrmrd_init_dataset (&dset, path, EF_ISMRMRD_GROUP) != ISMRMRD_NOERROR)
    return ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot set up the dataset");
  /* Not ismrmrd_open_dataset: it opens the file for writing and adds the group when it is missing, so
   * that reading would change the file, and fail on one that may not be written. */
  dset.fileid = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (dset.fileid < 0)
    {
      dset.fileid = 0;
      ismrmrd_close_dataset (&dset);
      return ef_ismrmrd_fail (error, EF_IO_ERROR_FORMAT, path, "not an ISMRMRD file: HDF5 cannot open it");
    }
  ok = read_header (&dset, path, info, error) && acq_file_open (&dset, path, &f, &n_acq, error);
  ismrmrd_init_acquisition (&acq);
  for (guint a = 0; a < n_acq && ok; a++)
    {
      const ISMRMRD_AcquisitionHeader *h = &acq.head;
      PeekHead ph;
      guint n, first, last, c0, c1;

      if (!acq_peek (&f, a, path, &ph, error))
        {
          ok = FALSE;
          break;
        }
      if (ismrmrd_read_acquisition (&dset, a, &acq) != ISMRMRD_NOERROR)
        {
          ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FORMAT, path, "an acquisition cannot be read");
          break;
        }
      if (h->number_of_samples != ph.number_of_samples || h->active_channels != ph.active_channels
          || h->trajectory_dimensions != ph.trajectory_dimensions)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s”: acquisition %u changed while it was read", path,
                       a);
          ok = FALSE;
          break;
        }
      if (ismrmrd_is_flag_set (h->flags, ISMRMRD_ACQ_IS_NOISE_MEASUREMENT))
        continue;
      n = h->number_of_samples;
      if (dim != 0 && h->trajectory_dimensions != dim)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u's trajectory is %u-D, "
                       "the earlier ones' %u-D", path, a, h->trajectory_dimensions, dim);
          ok = FALSE;
          break;
        }
      dim = h->trajectory_dimensions;
      if (channel == EF_ISMRMRD_ALL_CHANNELS)
        {
          if (n_coils != 0 && h->active_channels != n_coils)
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u has %u active_channels,"
                           " the earlier ones %u", path, a, h->active_channels, n_coils);
              ok = FALSE;
              break;
            }
          c0 = 0;
          c1 = h->active_channels;
        }
      else if (channel >= h->active_channels)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u has %u channels "
                       "(active_channels), not channel %u", path, a, h->active_channels, channel);
          ok = FALSE;
          break;
        }
      else
        {
          c0 = channel;
          c1 = channel + 1;
        }
      for (guint c = n_coils; c < c1 - c0; c++)
        g_ptr_array_add (d, g_array_new (FALSE, FALSE, sizeof (EfCf64)));
      n_coils = c1 - c0;
      if (acq.traj == NULL || acq.data == NULL || (guint) h->discard_pre + h->discard_post > n)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u is malformed: discard_pre "
                       "%u + discard_post %u exceed its %u samples", path, a, h->discard_pre, h->discard_post, n);
          ok = FALSE;
          break;
        }
      first = h->discard_pre;
      last = n - h->discard_post;
      values += (guint64) (last - first) * n_coils;
      if (values > EF_ISMRMRD_MAX_VALUES)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” holds more samples times channels than %"
                       G_GUINT64_FORMAT, path, (guint64) EF_ISMRMRD_MAX_VALUES);
          ok = FALSE;
          break;
        }
      for (guint s = first; s < last && ok; s++)
        {
          const float *kk = &acq.traj[(gsize) s * dim];

          for (guint c = 0; c < dim; c++)
            {
              double kc = kk[c] * traj_scale;
              ok = ok && isfinite (kc);
              g_array_append_val (k, kc);
            }
          for (guint c = c0; c < c1; c++)
            {
              const complex_float_t v = acq.data[(gsize) c * n + s];
              EfCf64 z = crealf (v) + I * cimagf (v);
              ok = ok && isfinite (creal (z)) && isfinite (cimag (z));
              g_array_append_val ((GArray *) g_ptr_array_index (d, c - c0), z);
            }
        }
      if (!ok)
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: acquisition %u has a trajectory point or "
                     "a sample that is not finite", path, a);
    }
  ismrmrd_cleanup_acquisition (&acq);
  acq_file_close (&f);
  ismrmrd_close_dataset (&dset);
  if (!ok)
    return FALSE;
  m = dim > 0 ? k->len / dim : 0;
  if (m == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” holds no imaging acquisition", path);
      return FALSE;
    }
  t = ef_mri_traj_new (dim, m, error);
  if (t == NULL)
    return FALSE;
  out = g_try_new (EfCf64, (gsize) n_coils * m);
  if (out == NULL)
    {
      ef_mri_traj_free (t);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "“%s”: not enough memory for %u x %" G_GSIZE_FORMAT
                   " samples", path, n_coils, m);
      return FALSE;
    }
  memcpy (t->k, k->data, m * dim * sizeof (double));
  for (guint c = 0; c < n_coils; c++)
    memcpy (out + (gsize) c * m, ((GArray *) g_ptr_array_index (d, c))->data, m * sizeof (EfCf64));
  info->n_coils = n_coils;
  *traj = t;
  *data = out;
  return TRUE;
}

/* ---- in a child process ---- */

typedef struct {
  const char *path;
  guint       channel;
  double      traj_scale;
} ReadJob;

typedef struct {
  EfIsmrmrdInfo info;
  guint64       m;
  guint32       dim;
  guint32       reserved;
} ReplyHead;

static GPtrArray *
read_in_child (gpointer user_data, GError **error)
{
  ReadJob *job = user_data;
  ReplyHead *rh = g_new0 (ReplyHead, 1);
  EfMriTraj *t = NULL;
  EfCf64 *d = NULL;
  GPtrArray *parts;

  if (!ef_ismrmrd_read_in_process (job->path, job->channel, job->traj_scale, &rh->info, &t, &d, error))
    return NULL;
  rh->m = t->m;
  rh->dim = t->dim;
  /* the child leaves right after sending: nothing is freed */
  parts = g_ptr_array_new ();
  g_ptr_array_add (parts, g_bytes_new_static (rh, sizeof *rh));
  g_ptr_array_add (parts, g_bytes_new_static (t->k, t->m * t->dim * sizeof (double)));
  g_ptr_array_add (parts, g_bytes_new_static (d, t->m * rh->info.n_coils * sizeof (EfCf64)));
  return parts;
}

static gboolean
read_isolated (const char *path, guint channel, double traj_scale, EfIsmrmrdInfo *info, EfMriTraj **traj,
               EfCf64 **data, GError **error)
{
  ReadJob job = { path, channel, traj_scale };
  g_autoptr (GPtrArray) parts = NULL;
  EfIsolateLimits lim = { .what = path, .max_parts = 3 };
  const ReplyHead *rh;
  GStatBuf st;
  guint64 size = 0;
  gsize len;
  EfMriTraj *t;

  g_return_val_if_fail (path != NULL && traj != NULL && data != NULL, FALSE);
  *traj = NULL;
  *data = NULL;
  if (g_stat (path, &st) == 0)
    size = (guint64) st.st_size;
  size = MIN (size, G_GUINT64_CONSTANT (1) << 40);
  lim.memory_bytes = (G_GUINT64_CONSTANT (256) << 20) + 24 * size + EF_ISOLATE_SANITIZER_ALLOWANCE;
  lim.max_reply = (G_GUINT64_CONSTANT (1) << 20) + 24 * size;
  lim.cpu_seconds = 2 + (guint) (size >> 19);
  lim.wall_seconds = 20 + 4 * lim.cpu_seconds;
  ef_ismrmrd_init ();
  parts = ef_isolate_run (&lim, &ismrmrd_lock, read_in_child, &job, error);
  if (parts == NULL)
    return FALSE;
  rh = g_bytes_get_data (g_ptr_array_index (parts, 0), &len);
  if (parts->len != 3 || len != sizeof *rh || (rh->dim != 2 && rh->dim != 3) || rh->m == 0
      || rh->info.n_coils == 0 || rh->info.n_coils > EF_ISMRMRD_MAX_CHANNELS
      || g_bytes_get_size (g_ptr_array_index (parts, 1)) / sizeof (double) / rh->dim != rh->m
      || g_bytes_get_size (g_ptr_array_index (parts, 1)) != rh->m * rh->dim * sizeof (double)
      || g_bytes_get_size (g_ptr_array_index (parts, 2)) / sizeof (EfCf64) / rh->info.n_coils != rh->m
      || g_bytes_get_size (g_ptr_array_index (parts, 2)) != rh->m * rh->info.n_coils * sizeof (EfCf64))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "“%s”: the reading process sent a malformed reply", path);
      return FALSE;
    }
  t = ef_mri_traj_new (rh->dim, rh->m, error);
  if (t == NULL)
    return FALSE;
  memcpy (t->k, g_bytes_get_data (g_ptr_array_index (parts, 1), NULL), rh->m * rh->dim * sizeof (double));
  if (info != NULL)
    *info = rh->info;
  *traj = t;
  *data = g_memdup2 (g_bytes_get_data (g_ptr_array_index (parts, 2), NULL), rh->m * rh->info.n_coils * sizeof (EfCf64));
  return TRUE;
}

gboolean
ef_ismrmrd_read (const char *path, guint channel, double traj_scale, EfMriTraj **traj, EfCf64 **data, GError **error)
{
  g_return_val_if_fail (channel != EF_ISMRMRD_ALL_CHANNELS, FALSE);
  return read_isolated (path, channel, traj_scale, NULL, traj, data, error);
}

gboolean
ef_ismrmrd_read_coils (const char *path, double traj_scale, EfIsmrmrdInfo *info, EfMriTraj **traj, EfCf64 **data,
                       GError **error)
{
  return read_isolated (path, EF_ISMRMRD_ALL_CHANNELS, traj_scale, info, traj, data, error);
}

/* ---- writing ---- */

/* The XML header of a file written here, through libxml2: the encoded and reconstructed space with the
 * matrix the trajectory implies (along each axis the smallest even edge whose band, in cycles per field
 * of view, holds every sample, as ef_mri_traj_edge; 1 along z for 2-D) and a trajectory of type
 * "other"; the field of view in millimetres equals the matrix (the samples carry no physical scale).
 * Free with xmlFree. */
static xmlChar *
header_xml (const EfMriTraj *t)
{
  static const char *const axes[3] = { "x", "y", "z" };
  static const char *const spaces[2] = { "encodedSpace", "reconSpace" };
  guint edge[3] = { 1, 1, 1 };
  xmlDoc *doc;
  xmlNode *root, *enc;
  xmlNs *ns;
  xmlChar *out = NULL;
  int len = 0;

  for (guint a = 0; a < t->dim && a < 3; a++)
    {
      double kmax = 0;

      for (gsize i = 0; i < t->m; i++)
        kmax = MAX (kmax, fabs (t->k[i * t->dim + a]));
      edge[a] = kmax < EF_MRI_MAX_EDGE / 2 ? MAX (2u, 2 * (guint) ceil (kmax - 1e-9)) : EF_MRI_MAX_EDGE;
    }
  doc = xmlNewDoc (BAD_CAST "1.0");
  root = xmlNewNode (NULL, BAD_CAST "ismrmrdHeader");
  ns = xmlNewNs (root, BAD_CAST "http://www.ismrm.org/ISMRMRD", NULL);
  xmlSetNs (root, ns);
  xmlDocSetRootElement (doc, root);
  enc = xmlNewChild (root, ns, BAD_CAST "encoding", NULL);
  for (guint s = 0; s < G_N_ELEMENTS (spaces); s++)
    {
      xmlNode *space = xmlNewChild (enc, ns, BAD_CAST spaces[s], NULL);
      xmlNode *matrix = xmlNewChild (space, ns, BAD_CAST "matrixSize", NULL);
      xmlNode *fov = xmlNewChild (space, ns, BAD_CAST "fieldOfView_mm", NULL);

      for (guint a = 0; a < 3; a++)
        {
          char text[16];

          g_snprintf (text, sizeof text, "%u", edge[a]);
          xmlNewChild (matrix, ns, BAD_CAST axes[a], BAD_CAST text);
          xmlNewChild (fov, ns, BAD_CAST axes[a], BAD_CAST text);
        }
    }
  xmlNewChild (enc, ns, BAD_CAST "trajectory", BAD_CAST "other");
  xmlDocDumpMemoryEnc (doc, &out, &len, "UTF-8");
  xmlFreeDoc (doc);
  return out;
}

gboolean
ef_ismrmrd_write_coils (const char *path, const EfMriTraj *t, const EfCf64 *d, guint n_coils, guint samples_per_acq,
                        double traj_scale, GError **error)
{
  ISMRMRD_Dataset dset;
  gboolean ok = TRUE;

  g_return_val_if_fail (path != NULL && t != NULL && d != NULL, FALSE);
  if (samples_per_acq == 0 || samples_per_acq > G_MAXUINT16 || !(traj_scale > 0) || n_coils == 0
      || n_coils > EF_ISMRMRD_MAX_CHANNELS)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: %u samples an acquisition (at most %u), %u "
                   "channels (at most %u) or trajectory scale %g is out of range", path, samples_per_acq, G_MAXUINT16,
                   n_coils, EF_ISMRMRD_MAX_CHANNELS, traj_scale);
      return FALSE;
    }
  if (g_unlink (path) != 0 && errno != ENOENT)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot replace “%s”: %s", path, g_strerror (errno));
      return FALSE;
    }
  g_mutex_lock (&ismrmrd_lock);
  ef_ismrmrd_init ();
  if (ismrmrd_init_dataset (&dset, path, EF_ISMRMRD_GROUP) != ISMRMRD_NOERROR)
    ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot set up the dataset");
  else if (ismrmrd_open_dataset (&dset, true) != ISMRMRD_NOERROR)
    {
      ismrmrd_close_dataset (&dset);
      ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot create the file");
    }
  else
    {
      xmlChar *xml = header_xml (t);

      if (xml == NULL || ismrmrd_write_header (&dset, (const char *) xml) != ISMRMRD_NOERROR)
        ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot write the XML header");
      xmlFree (xml);
      for (gsize s0 = 0; s0 < t->m && ok; s0 += samples_per_acq)
        {
          ISMRMRD_Acquisition acq;
          guint n = (guint) MIN ((gsize) samples_per_acq, t->m - s0);

          ismrmrd_init_acquisition (&acq);
          acq.head.number_of_samples = (uint16_t) n;
          acq.head.active_channels = (uint16_t) n_coils;
          acq.head.available_channels = (uint16_t) n_coils;
          acq.head.trajectory_dimensions = (uint16_t) t->dim;
          acq.head.scan_counter = (uint32_t) (s0 / samples_per_acq);
          if (ismrmrd_make_consistent_acquisition (&acq) != ISMRMRD_NOERROR)
            ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot allocate an acquisition");
          else
            {
              for (guint s = 0; s < n; s++)
                {
                  for (guint c = 0; c < t->dim; c++)
                    acq.traj[(gsize) s * t->dim + c] = (float) (t->k[(s0 + s) * t->dim + c] / traj_scale);
                  for (guint c = 0; c < n_coils; c++)
                    {
                      EfCf64 v = d[(gsize) c * t->m + s0 + s];
                      acq.data[(gsize) c * n + s] = (float) creal (v) + I * (float) cimag (v);
                    }
                }
              if (ismrmrd_append_acquisition (&dset, &acq) != ISMRMRD_NOERROR)
                ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot write an acquisition");
            }
          ismrmrd_cleanup_acquisition (&acq);
        }
      if (ismrmrd_close_dataset (&dset) != ISMRMRD_NOERROR && ok)
        ok = ef_ismrmrd_fail (error, EF_IO_ERROR_FAILED, path, "cannot close the file");
    }
  g_mutex_unlock (&ismrmrd_lock);
  return ok;
}

gboolean
ef_ismrmrd_write (const char *path, const EfMriTraj *t, const EfCf64 *d, guint samples_per_acq, double traj_scale,
                  GError **error)
{
  return ef_ismrmrd_write_coils (path, t, d, 1, samples_per_acq, traj_scale, error);
}
