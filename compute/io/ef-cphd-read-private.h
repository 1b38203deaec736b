/* ef-cphd-read-private.h: what the CPHD reader's metadata parser and its file reader share. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libxml/tree.h>

#include "ef-cphd.h"

G_BEGIN_DECLS

/* The file header is a few hundred bytes; anything this long without its terminator is not one. */
#define MAX_HEADER_BYTES (64u * 1024u)
#define MAX_HEADER_LINE 1024u

/* a + b <= limit, without overflow. */
static inline gboolean
fits (guint64 offset, guint64 size, guint64 limit)
{
  return offset <= limit && size <= limit - offset;
}

typedef struct {
  char    *version;  /* owned */
  guint64  xml_size, xml_off, pvp_size, pvp_off, sig_size, sig_off, sup_size, sup_off;
  guint    seen;     /* bit per numeric key */
  gsize    end;      /* first byte after the terminator */
} Header;

/* Parses the "CPHD/<version>" line and the "KEY := value" lines up to the "\f\n" terminator in the
 * first size bytes of data (at most two past MAX_HEADER_BYTES are looked at). Clear *h afterwards. */
gboolean ef_cphd_parse_header (const guint8 *data, gsize size, Header *h, GError **error);
/* TRUE when the block of len bytes at off lies inside the file and after the header. */
gboolean ef_cphd_check_block (const char *name, guint64 off, guint64 len, guint64 file_size, gsize header_end,
                              GError **error);
void     ef_cphd_header_clear (Header *h);

/* The XML block as a document, refusing a DTD and any network access; free it with xmlFreeDoc. */
xmlDocPtr ef_cphd_parse_xml (const guint8 *xml, guint64 size, GError **error);

/* XML helpers; element names are matched without their namespace. The strings returned are owned by
 * the caller; NULL when the element is absent. */
xmlNodePtr ef_cphd_child (xmlNodePtr parent, const char *name);
xmlNodePtr ef_cphd_find (xmlNodePtr node, const char *path);
char      *ef_cphd_text_at (xmlNodePtr node, const char *path);
gboolean   ef_cphd_parse_double (const char *s, double *out);
gboolean   ef_cphd_uint_at (xmlNodePtr node, const char *path, const char *where, guint64 *out, GError **error);
gboolean   ef_cphd_xyz_at (xmlNodePtr node, const char *path, double out[3]);

/* The per-vector parameters that Echoform reads. */
typedef enum {
  PV_TX_TIME, PV_TX_POS, PV_RCV_TIME, PV_RCV_POS, PV_SRP_POS, PV_FX1, PV_FX2, PV_SC0, PV_SCSS,
  PV_AMP_SF, PV_SIGNAL, PV_N
} Pv;

typedef struct {
  gboolean present[PV_N];
  guint64  offset[PV_N];  /* bytes within a vector's record */
} PvLayout;

/* Where each parameter lies in a record of num_bytes_pvp bytes; the required ones must be there, and
 * none may overlap another. */
gboolean ef_cphd_parse_pvp_layout (xmlNodePtr root, guint64 num_bytes_pvp, PvLayout *l, GError **error);

G_END_DECLS
