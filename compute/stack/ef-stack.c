/* ef-stack.c: the tiled on-disk stack of co-registered passes: its index, its tiles, memory-mapped reads. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-stack"
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ef-stack.h"
#include "ef-error.h"
#include "ef-image-io.h"
#include "ef-json.h"
#include "ef-run-info-json.h"

#define EF_STACK_INDEX "stack.json"
#define EF_STACK_MAX_PASSES 1000
#define EF_STACK_MAX_EDGE 65536
#define EF_STACK_MAX_INDEX (64u << 20)

typedef struct {
  double      t_years;
  double      bperp;
  char       *source;   /* owned, may be NULL */
  JsonObject *formed;   /* owned, may be NULL */
} EfStackPass;

struct _EfStack {
  char           *dir;         /* owned */
  EfGrid          grid;
  guint           tile;
  guint           tiles_x, tiles_y;
  EfStackGeometry geometry;
  GArray         *passes;      /* owned, of EfStackPass */
  GMutex          lock;        /* guards maps */
  GHashTable     *maps;        /* owned: slot ((pass * tiles_y + tile_y) * tiles_x + tile_x, a gint64)
                                * -> GMappedFile, for the tiles mapped so far: no table sized by what
                                * an index claims */
};

static void
pass_clear (gpointer p)
{
  EfStackPass *s = p;

  g_free (s->source);
  if (s->formed != NULL)
    json_object_unref (s->formed);
}

static EfStack *
stack_new (const char *dir, const EfGrid *grid, guint tile, const EfStackGeometry *geometry)
{
  EfStack *s = g_new0 (EfStack, 1);

  s->dir = g_strdup (dir);
  s->grid = *grid;
  s->tile = tile;
  s->tiles_x = (grid->width + tile - 1) / tile;
  s->tiles_y = (grid->height + tile - 1) / tile;
  s->geometry = *geometry;
  s->passes = g_array_new (FALSE, TRUE, sizeof (EfStackPass));
  g_array_set_clear_func (s->passes, pass_clear);
  g_mutex_init (&s->lock);
  s->maps = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_mapped_file_unref);
  return s;
}

void
ef_stack_free (EfStack *stack)
{
  if (stack == NULL)
    return;
  g_hash_table_unref (stack->maps);
  g_array_unref (stack->passes);
  g_mutex_clear (&stack->lock);
  g_free (stack->dir);
  g_free (stack);
}

static gboolean
check_shape (const EfGrid *grid, guint tile, const EfStackGeometry *g, const char *what, GError **error)
{
  if (grid->width < 1 || grid->height < 1 || grid->width > EF_STACK_MAX_EDGE || grid->height > EF_STACK_MAX_EDGE
      || !(grid->spacing > 0) || !isfinite (grid->spacing))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "%s: the grid is absurd (%u x %u at %g m)", what,
                   grid->width, grid->height, grid->spacing);
      return FALSE;
    }
  if (tile < 16 || tile > EF_STACK_MAX_EDGE)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "%s: tiles are 16 to %d pixels (got %u)", what,
                   EF_STACK_MAX_EDGE, tile);
      return FALSE;
    }
  if (!(g->wavelength > 0) || !(g->range > 0) || !(g->incidence_deg > 0 && g->incidence_deg < 90)
      || !isfinite (g->wavelength) || !isfinite (g->range))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "%s: the wavelength and range must be positive and the incidence in (0, 90) degrees", what);
      return FALSE;
    }
  return TRUE;
}

static char *
tile_path (const EfStack *s, guint k, guint ty, guint tx)
{
  g_autofree char *name = g_strdup_printf ("%u.npy", k);
  g_autofree char *sub = g_strdup_printf ("%u-%u", ty, tx);

  return g_build_filename (s->dir, "tiles", sub, name, NULL);
}

static gboolean
write_index (EfStack *s, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;
  g_autofree char *path = g_build_filename (s->dir, EF_STACK_INDEX, NULL);

  json_builder_begin_object (b);
  ef_json_set_string (b, "format", "echoform-stack");
  ef_json_set_int (b, "version", 1);
  ef_json_set_int (b, "width", s->grid.width);
  ef_json_set_int (b, "height", s->grid.height);
  ef_json_set_int (b, "tile", s->tile);
  json_builder_set_member_name (b, "grid");
  json_builder_begin_object (b);
  ef_json_set_doubles (b, "origin", s->grid.origin, 3);
  ef_json_set_doubles (b, "u", s->grid.u, 3);
  ef_json_set_doubles (b, "v", s->grid.v, 3);
  ef_json_set_double (b, "spacing", s->grid.spacing);
  json_builder_end_object (b);
  ef_json_set_double (b, "wavelength", s->geometry.wavelength);
  ef_json_set_double (b, "range", s->geometry.range);
  ef_json_set_double (b, "incidence_deg", s->geometry.incidence_deg);
  json_builder_set_member_name (b, "passes");
  json_builder_begin_array (b);
  for (guint k = 0; k < s->passes->len; k++)
    {
      EfStackPass *p = &g_array_index (s->passes, EfStackPass, k);

      json_builder_begin_object (b);
      ef_json_set_double (b, "t_years", p->t_years);
      ef_json_set_double (b, "bperp", p->bperp);
      ef_json_set_string (b, "source", p->source);
      json_builder_set_member_name (b, "formed");
      if (p->formed != NULL)
        {
          JsonNode *n = json_node_new (JSON_NODE_OBJECT);

          json_node_set_object (n, p->formed);
          json_builder_add_value (b, n);
        }
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = ef_json_to_text (root, TRUE);
  /* g_file_set_contents writes a temporary file and renames it: a reader sees the old index or the new. */
  if (!g_file_set_contents (path, text, -1, error))
    {
      g_prefix_error (error, "Cannot write the stack's index: ");
      return FALSE;
    }
  return TRUE;
}

EfStack *
ef_stack_create (const char *dir, const EfGrid *grid, guint tile, const EfStackGeometry *geometry, GError **error)
{
  g_autoptr (EfStack) s = NULL;
  g_autofree char *index = NULL;
  g_autofree char *tiles = NULL;

  g_return_val_if_fail (dir != NULL && grid != NULL && geometry != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_shape (grid, tile, geometry, dir, error))
    return NULL;
  index = g_build_filename (dir, EF_STACK_INDEX, NULL);
  if (g_file_test (index, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "“%s” holds a stack already", dir);
      return NULL;
    }
  tiles = g_build_filename (dir, "tiles", NULL);
  if (g_mkdir_with_parents (tiles, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot create “%s”: %s", tiles, g_strerror (saved));
      return NULL;
    }
  s = stack_new (dir, grid, tile, geometry);
  if (!write_index (s, error))
    return NULL;
  return g_steal_pointer (&s);
}

EfStack *
ef_stack_open (const char *dir, GError **error)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (EfStack) s = NULL;
  GStatBuf st;
  gsize len;
  JsonNode *root;
  JsonObject *o, *g;
  JsonArray *passes;
  EfGrid grid = { 0 };
  EfStackGeometry geo = { 0 };
  double w, h, tile, version;

  g_return_val_if_fail (dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  path = g_build_filename (dir, EF_STACK_INDEX, NULL);
  if (g_stat (path, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "“%s” is not a stack: %s", dir, g_strerror (saved));
      return NULL;
    }
  if (st.st_size > EF_STACK_MAX_INDEX)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” is too large for a stack's index", path);
      return NULL;
    }
  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, len, NULL)
      || (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    goto bad;
  o = json_node_get_object (root);
  if (g_strcmp0 (json_object_get_string_member_with_default (o, "format", ""), "echoform-stack") != 0)
    goto bad;
  if (!ef_json_get_double (o, "version", &version) || version != 1)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "“%s” is a stack of an unknown version", path);
      return NULL;
    }
  if (!ef_json_get_double (o, "width", &w) || !ef_json_get_double (o, "height", &h)
      || !ef_json_get_double (o, "tile", &tile) || !(w >= 1 && w <= EF_STACK_MAX_EDGE)
      || !(h >= 1 && h <= EF_STACK_MAX_EDGE) || !(tile >= 1 && tile <= EF_STACK_MAX_EDGE) || w != floor (w)
      || h != floor (h) || tile != floor (tile))
    goto bad;
  grid.width = (guint) w;
  grid.height = (guint) h;
  if (!json_object_has_member (o, "grid") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "grid")))
    goto bad;
  g = json_object_get_object_member (o, "grid");
  if (!ef_json_get_vec3 (g, "origin", grid.origin) || !ef_json_get_vec3 (g, "u", grid.u) || !ef_json_get_vec3 (g, "v", grid.v)
      || !ef_json_get_double (g, "spacing", &grid.spacing))
    goto bad;
  if (!ef_json_get_double (o, "wavelength", &geo.wavelength) || !ef_json_get_double (o, "range", &geo.range)
      || !ef_json_get_double (o, "incidence_deg", &geo.incidence_deg))
    goto bad;
  if (!check_shape (&grid, (guint) tile, &geo, path, error))
    return NULL;
  if (!json_object_has_member (o, "passes") || !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "passes")))
    goto bad;
  passes = json_object_get_array_member (o, "passes");
  if (json_array_get_length (passes) > EF_STACK_MAX_PASSES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” lists more than %d passes", path,
                   EF_STACK_MAX_PASSES);
      return NULL;
    }
  s = stack_new (dir, &grid, (guint) tile, &geo);
  for (guint k = 0; k < json_array_get_length (passes); k++)
    {
      JsonNode *n = json_array_get_element (passes, k);
      JsonObject *po;
      EfStackPass p = { 0 };

      if (!JSON_NODE_HOLDS_OBJECT (n))
        goto bad;
      po = json_node_get_object (n);
      if (!ef_json_get_double (po, "t_years", &p.t_years) || !ef_json_get_double (po, "bperp", &p.bperp)
          || !isfinite (p.t_years) || !isfinite (p.bperp))
        goto bad;
      if (json_object_has_member (po, "source")
          && json_node_get_value_type (json_object_get_member (po, "source")) == G_TYPE_STRING)
        p.source = g_strdup (json_object_get_string_member (po, "source"));
      if (json_object_has_member (po, "formed") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (po, "formed")))
        p.formed = json_object_ref (json_object_get_object_member (po, "formed"));
      g_array_append_val (s->passes, p);
    }
  return g_steal_pointer (&s);

bad:
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a well-formed stack index", path);
  return NULL;
}

static gboolean
same_grid (const EfGrid *a, const EfGrid *b)
{
  double tol = 1e-9 * MAX (1.0, a->spacing);

  if (a->width != b->width || a->height != b->height || fabs (a->spacing - b->spacing) > tol)
    return FALSE;
  for (int i = 0; i < 3; i++)
    if (fabs (a->origin[i] - b->origin[i]) > tol || fabs (a->u[i] - b->u[i]) > 1e-12
        || fabs (a->v[i] - b->v[i]) > 1e-12)
      return FALSE;
  return TRUE;
}

gboolean
ef_stack_add_pass (EfStack *stack, const EfImage *image, double t_years, double bperp, const char *source,
                   JsonObject *formed, GError **error)
{
  EfStackPass p = { 0 };
  guint k;

  g_return_val_if_fail (stack != NULL && image != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!same_grid (&image->grid, &stack->grid))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The image (%u x %u at %g m) is not on the stack's grid (%u x %u at %g m)", image->grid.width,
                   image->grid.height, image->grid.spacing, stack->grid.width, stack->grid.height,
                   stack->grid.spacing);
      return FALSE;
    }
  if (!isfinite (t_years) || !isfinite (bperp))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A pass's date and baseline must be finite");
      return FALSE;
    }
  if (stack->passes->len >= EF_STACK_MAX_PASSES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "A stack holds at most %d passes",
                   EF_STACK_MAX_PASSES);
      return FALSE;
    }
  k = stack->passes->len;
  for (guint ty = 0; ty < stack->tiles_y; ty++)
    {
      for (guint tx = 0; tx < stack->tiles_x; tx++)
        {
          g_autofree char *path = tile_path (stack, k, ty, tx);
          g_autofree char *folder = g_path_get_dirname (path);
          g_autoptr (EfImage) t = NULL;
          EfGrid tg = stack->grid;
          guint x0 = tx * stack->tile, y0 = ty * stack->tile;

          tg.width = MIN (stack->tile, stack->grid.width - x0);
          tg.height = MIN (stack->tile, stack->grid.height - y0);
          ef_grid_pixel_position (&stack->grid, x0, y0, tg.origin);
          if (g_mkdir_with_parents (folder, 0755) != 0)
            {
              int saved = errno;
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot create “%s”: %s", folder,
                           g_strerror (saved));
              return FALSE;
            }
          t = ef_image_new (&tg, error);
          if (t == NULL)
            return FALSE;
          for (guint r = 0; r < tg.height; r++)
            memcpy (t->data + (gsize) r * tg.width, image->data + (gsize) (y0 + r) * stack->grid.width + x0,
                    tg.width * sizeof (EfCf32));
          if (!ef_image_write_npy (t, path, NULL, error))
            return FALSE;
        }
    }
  p.t_years = t_years;
  p.bperp = bperp;
  p.source = g_strdup (source);
  p.formed = formed != NULL ? json_object_ref (formed) : NULL;
  g_array_append_val (stack->passes, p);
  return write_index (stack, error);
}

gboolean
ef_stack_form_pass (EfStack *stack, EfDataset *dataset, const EfJobParams *params, double t_years, double bperp,
                    const char *source, GError **error)
{
  g_autoptr (EfJob) job = NULL;
  g_autoptr (EfImage) image = NULL;
  g_autoptr (JsonObject) formed = NULL;
  EfJobParams jp;
  EfRunInfo run = { 0 };
  EfRect all;
  gint64 t0 = g_get_monotonic_time ();

  g_return_val_if_fail (stack != NULL && dataset != NULL && params != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!same_grid (&params->backend.grid, &stack->grid))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A pass must be formed on the stack's grid");
      return FALSE;
    }
  jp = *params;
  /* Nobody watches a stack form: the image is read once, at the end. */
  jp.publish_interval_s = -1;
  job = ef_job_new (dataset, &jp, error);
  if (job == NULL || !ef_job_run (job, NULL, NULL, error))
    return FALSE;
  image = ef_image_new (&stack->grid, error);
  if (image == NULL)
    return FALSE;
  all = (EfRect) { 0, 0, stack->grid.width, stack->grid.height };
  if (!ef_job_read_image (job, &all, image->data, error))
    return FALSE;
  ef_job_get_run_info (job, &run);
  formed = ef_run_info_sidecar_extra (&run, source, &jp, 0, (g_get_monotonic_time () - t0) / 1e6, NAN);
  ef_run_info_clear (&run);
  return ef_stack_add_pass (stack, image, t_years, bperp, source, formed, error);
}

const EfGrid *
ef_stack_get_grid (EfStack *stack)
{
  g_return_val_if_fail (stack != NULL, NULL);
  return &stack->grid;
}

const EfStackGeometry *
ef_stack_get_geometry (EfStack *stack)
{
  g_return_val_if_fail (stack != NULL, NULL);
  return &stack->geometry;
}

guint
ef_stack_get_tile (EfStack *stack)
{
  g_return_val_if_fail (stack != NULL, 0);
  return stack->tile;
}

guint
ef_stack_get_n_passes (EfStack *stack)
{
  g_return_val_if_fail (stack != NULL, 0);
  return stack->passes->len;
}

double
ef_stack_get_t_years (EfStack *stack, guint k)
{
  g_return_val_if_fail (stack != NULL && k < stack->passes->len, NAN);
  return g_array_index (stack->passes, EfStackPass, k).t_years;
}

double
ef_stack_get_bperp (EfStack *stack, guint k)
{
  g_return_val_if_fail (stack != NULL && k < stack->passes->len, NAN);
  return g_array_index (stack->passes, EfStackPass, k).bperp;
}

const char *
ef_stack_get_source (EfStack *stack, guint k)
{
  g_return_val_if_fail (stack != NULL && k < stack->passes->len, NULL);
  return g_array_index (stack->passes, EfStackPass, k).source;
}

const EfCf32 *
ef_stack_map_tile (EfStack *stack, guint k, guint tile_row, guint tile_col, guint *width, guint *height,
                   GError **error)
{
  gint64 slot;
  gsize offset = 0;
  guint tw, th;
  GMappedFile *m;
  const EfCf32 *data = NULL;

  g_return_val_if_fail (stack != NULL && width != NULL && height != NULL, NULL);
  g_return_val_if_fail (k < stack->passes->len && tile_row < stack->tiles_y && tile_col < stack->tiles_x, NULL);

  tw = MIN (stack->tile, stack->grid.width - tile_col * stack->tile);
  th = MIN (stack->tile, stack->grid.height - tile_row * stack->tile);
  /* At most 1000 passes of at most 65536^2 / 16^2 tiles: far below overflow of 64 bits. */
  slot = ((gint64) k * stack->tiles_y + tile_row) * stack->tiles_x + tile_col;

  g_mutex_lock (&stack->lock);
  m = g_hash_table_lookup (stack->maps, &slot);
  if (m == NULL)
    {
      g_autofree char *path = tile_path (stack, k, tile_row, tile_col);

      m = g_mapped_file_new (path, FALSE, error);
      if (m == NULL)
        goto out;
      g_hash_table_insert (stack->maps, g_memdup2 (&slot, sizeof slot), m);
    }
  {
    g_autofree char *path = tile_path (stack, k, tile_row, tile_col);
    guint64 h64, w64;

    if (!ef_npy_c8_view ((const guint8 *) g_mapped_file_get_contents (m), g_mapped_file_get_length (m), path, &h64,
                         &w64, &offset, error))
      goto out;
    if (h64 != th || w64 != tw)
      {
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                     "“%s” holds %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " pixels; the index says %u x %u", path,
                     h64, w64, th, tw);
        goto out;
      }
    if (offset % sizeof (float) != 0)
      {
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "“%s” has an array that is not aligned", path);
        goto out;
      }
  }
  data = (const EfCf32 *) (g_mapped_file_get_contents (m) + offset);
  *width = tw;
  *height = th;
out:
  g_mutex_unlock (&stack->lock);
  return data;
}

void
ef_stack_unmap (EfStack *stack)
{
  g_return_if_fail (stack != NULL);
  g_mutex_lock (&stack->lock);
  g_hash_table_remove_all (stack->maps);
  g_mutex_unlock (&stack->lock);
}

gboolean
ef_stack_read_region (EfStack *stack, const EfRect *rect, guint k0, guint n, EfCf32 *out, GError **error)
{
  gsize plane;

  g_return_val_if_fail (stack != NULL && rect != NULL && out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (k0 + n <= stack->passes->len, FALSE);
  g_return_val_if_fail (rect->x + rect->width <= stack->grid.width && rect->y + rect->height <= stack->grid.height,
                        FALSE);

  plane = (gsize) rect->width * rect->height;
  for (guint k = k0; k < k0 + n; k++)
    for (guint ty = rect->y / stack->tile; ty * stack->tile < rect->y + rect->height; ty++)
      for (guint tx = rect->x / stack->tile; tx * stack->tile < rect->x + rect->width; tx++)
        {
          guint tw, th, x0 = tx * stack->tile, y0 = ty * stack->tile;
          const EfCf32 *t = ef_stack_map_tile (stack, k, ty, tx, &tw, &th, error);
          guint c0, c1, r0, r1;

          if (t == NULL)
            return FALSE;
          c0 = MAX (rect->x, x0);
          c1 = MIN (rect->x + rect->width, x0 + tw);
          r0 = MAX (rect->y, y0);
          r1 = MIN (rect->y + rect->height, y0 + th);
          for (guint r = r0; r < r1; r++)
            memcpy (out + (k - k0) * plane + (gsize) (r - rect->y) * rect->width + (c0 - rect->x),
                    t + (gsize) (r - y0) * tw + (c0 - x0), (c1 - c0) * sizeof (EfCf32));
        }
  return TRUE;
}
