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


print("1..6")
with tempfile.TemporaryDirectory() as tmp:
    shot = os.path.join(tmp, "demo.png")
    r = run(["--simulate-demo", "--roi", "10,6,18,14", "--zoom-roi", "--panel", "geometry",
             "--screenshot", shot])
    ok(r.returncode == 0, "a batch run on the demo exits with 0 (%d: %s)" % (r.returncode, r.stderr.strip()[-300:]))
    size = png_size(shot) if os.path.exists(shot) else None
    ok(size is not None and size[0] >= 640 and size[1] >= 400, "it saves a PNG of the window (%s)" % (size,))

    r = run(["--simulate-demo", "--roi", "1,2,3", "--screenshot", shot])
    ok(r.returncode != 0 and "--roi" in r.stderr, "a malformed --roi is refused with a message")

    r = run([os.path.join(tmp, "missing.cphd"), "--roi", "0,0,1,1", "--screenshot", os.path.join(tmp, "x.png")])
    ok(r.returncode != 0 and "missing.cphd" in r.stderr, "a missing file fails the batch run and says which")
    ok(not os.path.exists(os.path.join(tmp, "x.png")), "and writes no screenshot")

    r = run(["--version"])
    ok(r.returncode == 0 and r.stdout.startswith("echoform "), "--version prints the version")
sys.exit(0)
