# ef_po.py: reads a gettext catalogue (po/*.po) so that tests look for the strings it really translates.
# SPDX-License-Identifier: GPL-3.0-or-later
import ast


def read_po(path):
    """Returns {msgid: msgstr} for the catalogue's translated, non-fuzzy singular entries without context."""
    entries = {}
    with open(path, encoding="utf-8") as f:
        blocks = f.read().split("\n\n")
    for block in blocks:
        fields, current, fuzzy = {}, None, False
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            elif line.startswith("#") or not line:
                continue
            elif line.startswith('"') and current is not None:
                fields[current] += ast.literal_eval(line)
            else:
                current, _, value = line.partition(" ")
                fields[current] = ast.literal_eval(value)
        if not fuzzy and "msgctxt" not in fields and fields.get("msgid") and fields.get("msgstr"):
            entries[fields["msgid"]] = fields["msgstr"]
    return entries
