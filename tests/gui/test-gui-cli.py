#!/usr/bin/env python3
# test-gui-cli.py: the echoform program's command line: the batch screenshot hook and its errors.
# SPDX-License-Identifier: GPL-3.0-or-later
import cmath
import math
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


# The demo is the simulator's airborne collection: 600 MHz at 30 degrees grazing, square resolution cells
# of c/2B = 0.2498 m on the ground in cross-range; the program's default window is Taylor (nbar 4, -35 dB) in
# range and in cross-range.
C = 299792458.0
CELL_M = C / (2 * 600e6)
GRAZING = math.radians(30.0)


def taylor(n, nbar=4, sll_db=-35.0):
    """Taylor window weights (Carrara et al., Appendix D), as the range compressor fills them."""
    eta = 10 ** (-sll_db / 20)
    a = math.acosh(eta) / math.pi
    s2 = nbar * nbar / (a * a + (nbar - 0.5) ** 2)
    fm = [0.0] * nbar
    for m in range(1, nbar):
        num = den = 1.0
        for i in range(1, nbar):
            num *= 1 - m * m / (s2 * (a * a + (i - 0.5) ** 2))
            if i != m:
                den *= 1 - m * m / (i * i)
        fm[m] = (1 if m % 2 else -1) * num / (2 * den)
    return [1 + sum(2 * fm[m] * math.cos(2 * math.pi * m * ((k + 0.5) / n - 0.5)) for m in range(1, nbar))
            for k in range(n)]


def response(w, f):
    """Power of the window's transform at f resolution cells from the peak, normalised to 1 at 0."""
    n = len(w)
    z = sum(wk * cmath.exp(-2j * math.pi * f * (k - (n - 1) / 2) / n) for k, wk in enumerate(w))
    return abs(z) ** 2 / sum(w) ** 2


def irw_pslr(w):
    """The -3 dB width (cells) and the peak sidelobe (dB) of a window's impulse response."""
    lo, hi = 0.0, 2.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if response(w, mid) > 0.5 else (lo, mid)
    f, prev = 0.5, response(w, 0.5)
    while True:
        cur = response(w, f + 0.01)
        if cur > prev:
            break
        f, prev = f + 0.01, cur
    side = max(response(w, f + 0.01 * i) for i in range(400))
    return lo + hi, 10 * math.log10(side)


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
    # The demo's point target against the windows' theory: IRW within 1.5% (README.md), PSLR within 0.3 dB of
    # the Taylor window's (its transform's, in both directions: the aperture is weighted as the band is), ISLR
    # below the Taylor design level in both.
    t_irw, t_pslr = irw_pslr(taylor(512))
    want = (t_irw * CELL_M / math.cos(GRAZING), t_pslr, t_irw * CELL_M, t_pslr)
    good = (len(figures) == 6 and abs(figures[0] / want[0] - 1) < 0.015 and abs(figures[1] - want[1]) < 0.3
            and figures[2] < -25 and abs(figures[3] / want[2] - 1) < 0.015 and abs(figures[4] - want[3]) < 0.3
            and figures[5] < -25)
    ok(good, "--verbose reports the point's IRW, PSLR and ISLR in range and cross-range (%s; theory: range IRW "
       "%.3f m, PSLR %.2f dB, cross-range IRW %.3f m, PSLR %.2f dB)" % (point, *want))
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
