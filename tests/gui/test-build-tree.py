#!/usr/bin/env python3
# test-build-tree.py: the program the build made runs from the build tree as it is, with no environment set up.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run under Xvfb with EF_GUI (build/app/echoform), EF_BUILD_ROOT and EF_PO (po/fr.po). The variables the
# other GUI tests set for the program (GSETTINGS_SCHEMA_DIR, ECHOFORM_DEMO_FILE) are removed and
# XDG_DATA_DIRS names only the system's folder, not /usr/local where `meson install` puts a copy: the
# schema, the French catalogue and the demo file must come from the build tree.
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ef_po  # noqa: E402

ECHOFORM = os.environ["EF_GUI"]
BUILD = os.environ["EF_BUILD_ROOT"]
FR = ef_po.read_po(os.environ["EF_PO"])
SUMMARY = ("Form synthetic aperture radar images from phase histories (CPHD, Gotcha). With no file, opens the "
           "demo scene.")
n = 0


def ok(cond, what):
    global n
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, " ".join(what.split())), flush=True)


print("1..5")
with tempfile.TemporaryDirectory() as tmp:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GSETTINGS_SCHEMA_DIR", "ECHOFORM_DEMO_FILE", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["XDG_DATA_DIRS"] = "/usr/share"
    env["LANG"] = "C.UTF-8"

    fr = dict(env, LANGUAGE="fr")
    r = subprocess.run([ECHOFORM, "--help"], env=fr, capture_output=True, text=True, timeout=60)
    ok(r.returncode == 0 and FR[SUMMARY] in r.stdout,
       "LANGUAGE=fr: --help shows po/fr.po's summary (%d: %s)" % (r.returncode, (r.stdout + r.stderr)[:300]))
    r = subprocess.run([ECHOFORM, "--help"], env=env, capture_output=True, text=True, timeout=60)
    ok(r.returncode == 0 and SUMMARY in r.stdout, "without LANGUAGE it stays in English")

    shot = os.path.join(tmp, "demo.png")
    r = subprocess.run([ECHOFORM, "--roi", "10,6,18,14", "--verbose", "--screenshot", shot], env=fr,
                       capture_output=True, text=True, timeout=300)
    ok(r.returncode == 0 and "is not installed" not in r.stderr,
       "the window opens with the build tree's schema (%d: %s)" % (r.returncode, r.stderr.strip()[-300:]))
    demo = os.path.join(BUILD, "data", "demo.cphd")
    opened = [l[len("echoform: opened "):].rsplit(": ", 1)[0] for l in r.stdout.splitlines()
              if l.startswith("echoform: opened ")]
    ok(len(opened) == 1 and os.path.exists(opened[0]) and os.path.samefile(opened[0], demo),
       "with no file it opens the build tree's demo (%s)" % opened)
    ok(os.path.exists(shot), "and saves its screenshot")
sys.exit(0)
