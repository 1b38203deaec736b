#!/usr/bin/env python3
# test-gui-cli.py: the echoform program's command line: the batch screenshot hook and its errors.
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import struct
import subprocess
import sys
import tempfile

ECHOFORM = os.environ["EF_GUI"]
n = 0


def ok(cond, what):
    global n
    n += 1
    # One line each: what a program printed may hold newlines.
    what = " ".join(what.split())
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what), flush=True)
    return cond


def run(args, timeout=180):
    return subprocess.run([ECHOFORM] + args, capture_output=True, text=True, timeout=timeout)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


print("1..12")
with tempfile.TemporaryDirectory() as tmp:
    shot = os.path.join(tmp, "demo.png")
    r = run(["--simulate-demo", "--roi", "10,6,18,14", "--zoom-roi", "--panel", "geometry",
             "--screenshot", shot])
    ok(r.returncode == 0, "a batch run on the demo exits with 0 (%d: %s)" % (r.returncode, r.stderr.strip()[-300:]))
    size = png_size(shot) if os.path.exists(shot) else None
    ok(size is not None and size[0] >= 640 and size[1] >= 400, "it saves a PNG of the window (%s)" % (size,))

    # A point measured in a batch run: the Measurements page is open with its figures and both cuts when
    # the screenshot is taken, as --verbose reports from the widgets themselves.
    mshot = os.path.join(tmp, "measure.png")
    r = run(["--simulate-demo", "--roi", "10,6,18,14", "--zoom-roi", "--measure", "14,10", "--panel", "measure",
             "--verbose", "--screenshot", mshot])
    lines = [l for l in r.stdout.splitlines() if l.startswith("echoform: ")]
    ok(r.returncode == 0 and os.path.exists(mshot),
       "a batch run with --measure and --panel measure saves its screenshot (%d: %s)" % (r.returncode,
                                                                                         r.stderr.strip()[-300:]))
    ok("echoform: sidebar shown, page measurements, a measurement with both cuts" in lines,
       "the screenshot shows the Measurements page with a measurement and both cuts (%s)" % lines)
    point = [l for l in lines if l.startswith("echoform: point at ")]
    figures = []
    if point:
        for part in point[0].replace(";", ",").split(","):
            words = part.split()
            if len(words) >= 2 and words[-1] in ("m", "dB") and words[-3:-2] != ["x"]:
                try:
                    figures.append(float(words[-2]))
                except ValueError:
                    pass
    # The demo's targets: IRW a few tenths of a metre, PSLR and ISLR below -10 dB, in both cuts.
    ok(len(figures) == 6 and 0.1 < figures[0] < 0.5 and 0.1 < figures[3] < 0.5
       and all(-45 < f < -9 for f in figures[1:3] + figures[4:6]),
       "--verbose reports the point's IRW, PSLR and ISLR in range and cross-range (%s)" % (point,))
    ok(any(l.startswith("echoform: region 10.00,6.00,18.00,14.00 formed: ") for l in lines),
       "--verbose reports the region formed")

    r = run(["--simulate-demo", "--panel", "nonsense", "--screenshot", os.path.join(tmp, "n.png")])
    ok(r.returncode != 0 and "nonsense" in r.stderr and "measurements" in r.stderr,
       "an unknown --panel fails the batch run and names the pages (%s)" % r.stderr.strip()[-200:])
    ok(not os.path.exists(os.path.join(tmp, "n.png")), "and writes no screenshot")

    r = run(["--simulate-demo", "--roi", "1,2,3", "--screenshot", shot])
    ok(r.returncode != 0 and "--roi" in r.stderr, "a malformed --roi is refused with a message")

    r = run([os.path.join(tmp, "missing.cphd"), "--roi", "0,0,1,1", "--screenshot", os.path.join(tmp, "x.png")])
    ok(r.returncode != 0 and "missing.cphd" in r.stderr, "a missing file fails the batch run and says which")
    ok(not os.path.exists(os.path.join(tmp, "x.png")), "and writes no screenshot")

    r = run(["--version"])
    ok(r.returncode == 0 and r.stdout.startswith("echoform "), "--version prints the version")
sys.exit(0)
