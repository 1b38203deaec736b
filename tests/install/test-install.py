#!/usr/bin/env python3
# test-install.py: a staged installation (meson install --destdir) runs, as a package built from it would.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Installs the build into a temporary DESTDIR, does what a package's triggers do (compile the schemas),
# then checks the tree the way a distribution would ship it: the desktop file, its icon and program, the
# metainfo, both in French where po/fr.po translates them; and the staged program itself, run with
# XDG_DATA_DIRS pointing into the tree, finds its schema, demo and French catalogue there.
# The build tree's copies of the desktop file and metainfo are validated by the desktop-file and metainfo
# tests. Run under Xvfb by meson; arguments: MESON BUILD_ROOT PREFIX BINDIR DATADIR LOCALEDIR FR_PO.
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ef_po  # noqa: E402

APP_ID = "io.github.echoform.Echoform"
meson, build, prefix, bindir, datadir, localedir, po = sys.argv[1:8]
FR = ef_po.read_po(po)
n = 0


def ok(cond, what):
    global n
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, " ".join(str(what).split())), flush=True)
    return cond


def desktop_entry(path):
    entry = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, eq, value = line.rstrip("\n").partition("=")
            if eq and not line.startswith("#"):
                entry[key] = value
    return entry


print("1..16")
with tempfile.TemporaryDirectory() as tmp:
    stage = os.path.join(tmp, "stage")
    r = subprocess.run([meson, "install", "-C", build, "--destdir", stage, "--no-rebuild", "--quiet"],
                       capture_output=True, text=True, timeout=300)
    ok(r.returncode == 0, "meson install --destdir succeeds (%d: %s)" % (r.returncode, r.stderr[-300:]))

    def staged(d):
        """Where meson put an install folder (relative to the prefix, or absolute) under DESTDIR."""
        return stage + (d if os.path.isabs(d) else os.path.join(prefix, d))

    bin_dir = staged(bindir)
    share = staged(datadir)
    program = os.path.join(bin_dir, "echoform")
    cli = os.path.join(bin_dir, "echoform-cli")
    desktop = os.path.join(share, "applications", APP_ID + ".desktop")
    metainfo = os.path.join(share, "metainfo", APP_ID + ".metainfo.xml")
    schemas = os.path.join(share, "glib-2.0", "schemas")
    demo = os.path.join(share, "echoform", "demo.cphd")
    mo = os.path.join(staged(localedir), "fr", "LC_MESSAGES", "echoform.mo")
    ok(all(os.access(p, os.X_OK) for p in (program, cli)), "echoform and echoform-cli are in %s" % bin_dir)
    ok(all(os.path.isfile(p) for p in (desktop, metainfo, demo, mo, os.path.join(schemas, APP_ID + ".gschema.xml"))),
       "the desktop file, metainfo, demo, French catalogue and schema are installed")

    # The desktop file: its program and icon are in the tree, its text in French where fr.po has it.
    entry = desktop_entry(desktop)
    ok(entry.get("Exec", "").split()[:1] == ["echoform"], "the desktop file runs echoform (%s)" % entry.get("Exec"))
    icon = entry.get("Icon", "")
    icons = [os.path.join(share, "icons", "hicolor", "scalable", "apps", icon + ".svg"),
             os.path.join(share, "icons", "hicolor", "symbolic", "apps", icon + "-symbolic.svg")]
    ok(icon == APP_ID and all(os.path.isfile(p) for p in icons),
       "its icon %s is installed in hicolor, full colour and symbolic" % icon)
    for key, english in (("GenericName", "SAR Image Former"),
                         ("Comment", "Form synthetic aperture radar images and watch them focus")):
        ok(entry.get(key) == english and entry.get(key + "[fr]") == FR[english],
           "%s[fr] is po/fr.po's %r (%r)" % (key, FR[english], entry.get(key + "[fr]")))

    # The metainfo: it names the installed desktop file and program; French summary.
    tree = ET.parse(metainfo).getroot()
    lang = "{http://www.w3.org/XML/1998/namespace}lang"
    ok(tree.findtext("launchable") == APP_ID + ".desktop" and tree.findtext("provides/binary") == "echoform",
       "the metainfo names the installed desktop file and program")
    summary = tree.findtext("summary")
    fr_summary = [e.text for e in tree.findall("summary") if e.get(lang) == "fr"]
    ok(fr_summary == [FR[summary]], "its French summary is po/fr.po's (%s)" % fr_summary)

    # What a package's trigger does after unpacking.
    r = subprocess.run(["glib-compile-schemas", "--strict", schemas], capture_output=True, text=True)
    ok(r.returncode == 0, "the installed schema compiles (%s)" % r.stderr.strip())

    # The staged program, found as a package's would be: schemas and icons through XDG_DATA_DIRS. Nothing
    # points it at the build tree, and LOCALEDIR (under the configured prefix) is not where its catalogue is.
    env = {k: v for k, v in os.environ.items()
           if k not in ("GSETTINGS_SCHEMA_DIR", "ECHOFORM_DEMO_FILE", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env.update(XDG_DATA_DIRS=share + os.pathsep + "/usr/local/share:/usr/share", LANG="C.UTF-8")
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    fr = dict(env, LANGUAGE="fr")
    summary = ("Form synthetic aperture radar images from phase histories (CPHD, Gotcha). With no file, opens "
               "the demo scene.")
    r = subprocess.run([program, "--help"], env=fr, cwd=work, capture_output=True, text=True, timeout=60)
    ok(r.returncode == 0 and FR[summary] in r.stdout,
       "LANGUAGE=fr: the installed echoform --help is in French (%d: %s)" % (r.returncode, r.stdout[:400]))
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    print("# " + "\n# ".join(lines[:4]), flush=True)
    r = subprocess.run([program, "--help"], env=env, cwd=work, capture_output=True, text=True, timeout=60)
    ok(r.returncode == 0 and summary in r.stdout, "and in English without LANGUAGE")

    shot = os.path.join(tmp, "installed.png")
    r = subprocess.run([program, "--roi", "10,6,18,14", "--verbose", "--screenshot", shot], env=fr, cwd=work,
                       capture_output=True, text=True, timeout=300)
    ok(r.returncode == 0, "the installed program opens its window with the installed schema (%d: %s)"
       % (r.returncode, r.stderr.strip()[-300:]))
    opened = [l[len("echoform: opened "):].rsplit(": ", 1)[0] for l in r.stdout.splitlines()
              if l.startswith("echoform: opened ")]
    ok(len(opened) == 1 and os.path.exists(opened[0]) and os.path.samefile(opened[0], demo),
       "with no file it opens the installed demo (%s)" % opened)
    ok(os.path.getsize(shot) > 10000 if os.path.exists(shot) else False, "and saves its screenshot")

    r = subprocess.run([cli, "info", demo], env=env, cwd=work, capture_output=True, text=True, timeout=120)
    ok(r.returncode == 0 and "512" in r.stdout, "the installed echoform-cli reads the installed demo (%d)" % r.returncode)
sys.exit(0)
