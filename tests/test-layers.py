#!/usr/bin/env python3
# test-layers.py: the layers point one way (app -> ui -> render -> compute), as the sources' includes say.
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
LAYERS = ["compute", "render", "ui", "app"]   # each may include only those before it
SOURCES = (".c", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

# System headers a layer must not reach: widgets for render/, widgets and GL for compute/.
WIDGETS = re.compile(r"^(gtk/|gdk/|gsk/|adwaita\.h$|libadwaita)")
GRAPHICS = re.compile(r"^(gtk/|gdk/|gsk/|adwaita\.h$|epoxy/|GL/|EGL/|cairo|cuda_gl_interop\.h$)")
FORBIDDEN = {"compute": GRAPHICS, "render": WIDGETS}


def sources(layer):
    for dirpath, _, names in os.walk(os.path.join(ROOT, layer)):
        for name in sorted(names):
            if name.endswith(SOURCES):
                yield os.path.join(dirpath, name)


# Which layer each project header belongs to, by the name the sources include it by: its file name, or
# its path below the layer (as "cuda/ef-cuda.h").
owner = {}
for layer in LAYERS:
    base = os.path.join(ROOT, layer)
    for path in sources(layer):
        if path.endswith((".h", ".cuh")):
            owner.setdefault(os.path.basename(path), layer)
            owner.setdefault(os.path.relpath(path, base), layer)

results = []
for i, layer in enumerate(LAYERS):
    allowed = set(LAYERS[: i + 1])
    bad = []
    for path in sources(layer):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for kind, name in INCLUDE.findall(text):
            rel = os.path.relpath(path, ROOT)
            if kind == "<" and layer in FORBIDDEN and FORBIDDEN[layer].search(name):
                bad.append("%s includes <%s>" % (rel, name))
            elif kind == '"' and owner.get(name, layer) not in allowed:
                bad.append('%s includes "%s" from %s/' % (rel, name, owner[name]))
    results.append((not bad, "%s/ includes only %s%s" % (
        layer, ", ".join(l + "/" for l in LAYERS[:i + 1]),
        {"compute": ", no GTK, GL or cairo", "render": ", no widget header"}.get(layer, "")), bad))

print("1..%d" % len(results))
for n, (ok, what, bad) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
    for line in bad:
        print("# " + line)
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
