#!/usr/bin/env python3
# check-layers.py: fails when an #include points the wrong way between Echoform's folders.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   check-layers.py [--self-test] [ROOT]
#
# The rules (README.md, "Layout"):
#   - layers point one way: app -> ui -> render -> compute; a file includes only from its own layer or
#     a lower one;
#   - the engine (compute/) includes no GTK, GDK, GSK, libadwaita, GL, EGL or cairo header;
#   - render/ includes no widget header (GTK, GDK, GSK, libadwaita);
#   - the engine outside compute/cuda/ includes no CUDA header and nothing from compute/cuda/: the CUDA
#     library depends on the engine, never the reverse;
#   - inside the engine, a stage includes only from the stages before it (ENGINE_STAGES: core first,
#     then signal, sim and the vector kernels, form and metrics, the job, and io and cuda last), and
#     every folder of the engine has a place there;
#   - the folders form no cycle: if a file in folder A includes one in folder B, nothing in B (or in a
#     folder B reaches) includes anything in A.
# tests/ may include anything and is not part of the graph. --self-test copies the tree's sources into a
# temporary folder, adds one forbidden include of each kind, and checks that each is caught.

import os
import re
import shutil
import sys
import tempfile

LAYERS = {"compute": 0, "render": 1, "ui": 2, "app": 3}
# The engine's folders in pipeline order: each may include from those of a lower rank (and from itself).
# io writes images with a sidecar that records the job's parameters, so it comes after the job; the
# CUDA library implements the formers' interface and registers itself, so it comes after form.
ENGINE_STAGES = {
    "compute": 0,            # the engine's root holds no sources, only the build file
    "compute/core": 0,
    "compute/signal": 1,
    "compute/sim": 1,
    "compute/arcs": 1,       # time-series estimators: they need only the data model
    "compute/form/cpu": 1,
    "compute/form": 2,
    "compute/metrics": 2,
    "compute/mri": 2,        # non-Cartesian reconstruction: the data model and signal/'s FFTW lock
    "compute/job": 3,
    "compute/focus": 3,      # autofocus: forms through the formers, measures with metrics
    "compute/io": 4,
    "compute/cuda": 4,
    "compute/stack": 5,      # forms passes through the job and writes them with io
    "compute/teach": 4,      # forms block images through the formers, after the job
}
SOURCE_EXT = (".c", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

GUI_HEADERS = re.compile(r"^(gtk/|gdk/|gsk/|adwaita\.h|libadwaita|epoxy/|GL/|EGL/|GLES|cairo|cuda_gl_interop\.h)")
WIDGET_HEADERS = re.compile(r"^(gtk/|gdk/|gsk/|adwaita\.h|libadwaita)")
CUDA_HEADERS = re.compile(r"^(cuda[_a-z0-9]*\.h|cufft[_a-z0-9]*\.h|nccl\.h|crt/)")


def sources(root):
    for top in LAYERS:
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def resolve(inc, here, by_name):
    """The repository file a quoted include names, or None (generated or system headers)."""
    candidates = by_name.get(os.path.basename(inc), [])
    if not candidates:
        return None
    local = os.path.normpath(os.path.join(os.path.dirname(here), inc))
    if local in candidates:
        return local
    suffix = [c for c in candidates if c.endswith(os.sep + inc) or c == inc]
    if len(suffix) == 1:
        return suffix[0]
    if len(candidates) == 1:
        return candidates[0]
    raise SystemExit(f"check-layers: {here}: include \"{inc}\" is ambiguous: {', '.join(sorted(candidates))}")


def in_cuda(path):
    return path.startswith(os.path.join("compute", "cuda") + os.sep)


def check(root):
    files = sorted(sources(root))
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    problems = []
    edges = {}  # folder -> {folder: (file, included file)}
    for f in files:
        top = f.split(os.sep)[0]
        folder = os.path.dirname(f).replace(os.sep, "/")
        if top == "compute" and folder not in ENGINE_STAGES:
            problems.append(f"{f}: the engine folder {folder}/ has no place in ENGINE_STAGES (tests/check-layers.py)")
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        # Includes inside comments are not includes.
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        for kind, inc in INCLUDE.findall(text):
            if top == "compute" and GUI_HEADERS.match(inc):
                problems.append(f"{f}: the engine includes <{inc}> (GTK, GDK, GL and EGL stay out of compute/)")
            if top == "render" and WIDGET_HEADERS.match(inc):
                problems.append(f"{f}: render/ includes the widget header <{inc}>")
            if top == "compute" and not in_cuda(f) and CUDA_HEADERS.match(inc):
                problems.append(f"{f}: the engine includes the CUDA header {inc}; only compute/cuda/ may")
            if kind != '"':
                continue
            target = resolve(inc, f, by_name)
            if target is None:
                continue
            ttop = target.split(os.sep)[0]
            if LAYERS[ttop] > LAYERS[top]:
                problems.append(f"{f}: includes {target}, a layer above it ({top} -> {ttop}; "
                                "the direction is app -> ui -> render -> compute)")
            if top == "compute" and not in_cuda(f) and in_cuda(target):
                problems.append(f"{f}: the engine includes {target} from compute/cuda/; "
                                "the CUDA library depends on the engine, never the reverse")
            tfolder = os.path.dirname(target).replace(os.sep, "/")
            if (top == "compute" and ttop == "compute" and folder != tfolder and folder in ENGINE_STAGES
                    and tfolder in ENGINE_STAGES and ENGINE_STAGES[tfolder] >= ENGINE_STAGES[folder]):
                problems.append(f"{f}: includes {target}, a later stage of the engine ({folder} -> {tfolder}; "
                                "see ENGINE_STAGES)")
            a, b = os.path.dirname(f), os.path.dirname(target)
            if a != b:
                edges.setdefault(a, {}).setdefault(b, (f, target))
    problems += cycles(edges)
    return files, edges, problems


def cycles(edges):
    """One message for each cycle between folders found by a depth-first search."""
    found = []
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, {})):
            if state.get(m) == 1:
                loop = stack[stack.index(m):] + [m]
                steps = [f"{edges[x][y][0]} -> {edges[x][y][1]}" for x, y in zip(loop, loop[1:])]
                found.append("folders include each other in a cycle: " + " -> ".join(loop) +
                             " (" + "; ".join(steps) + ")")
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)
    return found


def self_test(root):
    """Each kind of forbidden include, added to a copy of the tree, must be caught, and by its own rule."""
    files, edges, problems = check(root)
    if problems:
        print("check-layers: the tree itself fails; fix it before the self-test", file=sys.stderr)
        return 1

    def pick(folder, ext):
        return sorted(f for f in files if os.path.dirname(f) == os.path.join(*folder.split("/")) and f.endswith(ext))

    def name(f):
        return os.path.basename(f)

    engine = sorted(f for f in files if f.startswith("compute" + os.sep) and not in_cuda(f) and f.endswith(".c"))
    render = sorted(f for f in files if f.startswith("render" + os.sep) and f.endswith(".c"))
    ui_header = sorted(f for f in files if f.startswith("ui" + os.sep) and f.endswith(".h"))
    cuda_header = pick("compute/cuda", ".h")
    core, job_header = pick("compute/core", ".c"), pick("compute/job", ".h")
    signal, form_header = pick("compute/signal", ".c"), pick("compute/form", ".h")
    left, right = os.path.join("ui", "left", "ef-left.h"), os.path.join("ui", "right", "ef-right.h")
    # what, [(file, line added)], words the problem found must hold
    cases = [
        ("the engine includes GTK", [(engine[0], "#include <gtk/gtk.h>")], "GTK, GDK, GL"),
        ("the engine includes GL", [(engine[0], "#include <epoxy/gl.h>")], "GTK, GDK, GL"),
        ("render/ includes a widget", [(render[0], "#include <gtk/gtk.h>")], "widget header"),
        ("the engine includes ui/", [(engine[0], f'#include "{name(ui_header[0])}"')], "a layer above it"),
        ("the engine core includes CUDA", [(engine[0], "#include <cuda_runtime_api.h>")], "CUDA header"),
        ("the engine core includes compute/cuda/", [(engine[0], f'#include "{name(cuda_header[0])}"')],
         "never the reverse"),
        ("the engine's core includes a later stage", [(core[0], f'#include "{name(job_header[0])}"')],
         "later stage"),
        ("a stage includes the one after it", [(signal[0], f'#include "{name(form_header[0])}"')], "cycle"),
        ("a cycle between two folders of one layer",
         [(left, '#include "ef-right.h"'), (right, '#include "ef-left.h"')], "cycle"),
        ("an engine folder with no stage", [(os.path.join("compute", "extra", "ef-extra.c"), '#include "ef-types.h"')],
         "no place in ENGINE_STAGES"),
    ]
    failed = 0
    for what, edits, expect in cases:
        with tempfile.TemporaryDirectory() as tmp:
            for f in files:
                os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
                shutil.copy(os.path.join(root, f), os.path.join(tmp, f))
            for victim, line in edits:
                os.makedirs(os.path.join(tmp, os.path.dirname(victim)), exist_ok=True)
                with open(os.path.join(tmp, victim), "a", encoding="utf-8") as fh:
                    fh.write("\n" + line + "\n")
            _, _, found = check(tmp)
            hits = [p for p in found if expect in p]
            ok = len(hits) > 0
            added = "; ".join(f"{line} added to {victim}" for victim, line in edits)
            print(f"{'ok' if ok else 'not ok'} - {what}: {added}"
                  + (f" -> {hits[0]}" if ok else f" was not caught as '{expect}' (found: {found})"))
            failed += not ok
    return 1 if failed else 0


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    if "--self-test" in argv:
        return self_test(root)
    files, edges, problems = check(root)
    for p in problems:
        print("check-layers: " + p, file=sys.stderr)
    n_edges = sum(len(v) for v in edges.values())
    print(f"check-layers: {len(files)} files, {len(edges)} folders that include from others, "
          f"{n_edges} folder-to-folder edges, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
