#!/usr/bin/env python3
# test-cli.py: end-to-end checks of echoform-cli: arguments, errors, simulate -> info -> form -> metrics.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run by meson with EF_CLI pointing at the binary. Skipped (a TAP "1..0 # SKIP" plan) when numpy is
# missing.

import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("1..0 # SKIP numpy is not installed")
    sys.exit(0)  # TAP: the plan above says skipped; a non-zero status would be an error

CLI = os.environ.get("EF_CLI")
if not CLI or not os.path.exists(CLI):
    print("Bail out! EF_CLI is not set to the echoform-cli binary")
    sys.exit(99)

# The rectangular window's peak sidelobe ratio (sinc): -13.26 dB, and its -3 dB width in resolution cells.
PSLR_RECT_DB = -13.26
IRW_RECT_CELLS = 0.8859
C = 299792458.0
# README.md: point targets within resolution/100 of where they are, impulse-response widths within 1.5% of
# theory, peak sidelobes within 0.15 dB of -13.26 dB, and the float32 path above 90 dB SER against float64.
POS_RES_FRACTION = 100
IRW_TOL = 0.015
PSLR_TOL_DB = 0.15
FP32_SER_DB = 90.0

failures = 0
count = 0


def run(*args, expect=0, timeout=120):
    """Runs the CLI and checks its exit status; never accepts a crash."""
    cmd = [CLI] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode < 0 or p.returncode >= 128:
        raise AssertionError(f"{' '.join(cmd)} crashed (status {p.returncode}):\n{p.stderr}")
    if expect is not None and p.returncode != expect:
        raise AssertionError(f"{' '.join(cmd)} exited {p.returncode}, expected {expect}\n"
                             f"stdout: {p.stdout}\nstderr: {p.stderr}")
    return p


def check(name, fn):
    global failures, count
    count += 1
    try:
        fn()
        print(f"ok {count} {name}")
    except Exception as e:  # report and go on: one failure should not hide the others
        failures += 1
        print(f"not ok {count} {name}")
        for line in str(e).splitlines():
            print(f"# {line}")
    sys.stdout.flush()


def expect_usage(*args, mention=None):
    p = run(*args, expect=2)
    assert "echoform-cli: " in p.stderr, f"no prefixed message on stderr: {p.stderr!r}"
    if mention is not None:
        assert mention in p.stderr, f"the message does not mention {mention!r}: {p.stderr!r}"


def expect_failure(*args, mention=None):
    p = run(*args, expect=1)
    assert "echoform-cli: " in p.stderr, f"no prefixed message on stderr: {p.stderr!r}"
    if mention is not None:
        assert mention in p.stderr, f"the message does not name {mention!r}: {p.stderr!r}"


def sidecar_of(npy):
    for cand in (npy + ".json", npy[:-4] + ".json"):
        if os.path.exists(cand):
            return cand
    return None


tmp = tempfile.TemporaryDirectory(prefix="ef-test-cli-")
d = tmp.name


def path(name):
    return os.path.join(d, name)


# One isolated point target off the scene centre, so that a wrong sign or offset shows.
TARGET = (1.5, -2.0, 0.0)
SIM_ARGS = ["--pulses", "128", "--samples", "128", "--targets", "%g,%g,%g" % TARGET, "--seed", "7"]
ROI = "%g,%g,%g,%g" % (TARGET[0] - 4, TARGET[1] - 4, TARGET[0] + 4, TARGET[1] + 4)


def t_no_command():
    p = run(expect=2)
    assert "Usage" in p.stderr


def t_help_lists():
    p = run("help")
    for c in ("simulate", "info", "form", "metrics", "bench", "tune"):
        assert c in p.stdout, f"help does not list {c}"
    for c in ("simulate", "info", "form", "metrics", "bench", "tune"):
        q = run(c, "--help")
        assert "Usage" in q.stdout and c in q.stdout, f"{c} --help: {q.stdout!r}"
    q = run("help", "form")
    assert "--roi" in q.stdout and ".ini" in q.stdout


def t_bad_arguments():
    expect_usage("frobnicate", mention="frobnicate")
    expect_usage("simulate", mention="-o")
    expect_usage("simulate", "--pulses", "abc", "-o", path("x.cphd"), mention="--pulses")
    expect_usage("simulate", "--grazing", "nan", "-o", path("x.cphd"), mention="--grazing")
    expect_usage("simulate", "--geometry", "lunar", "-o", path("x.cphd"), mention="--geometry")
    expect_usage("simulate", "--targets", "1,2,3,4,5", "-o", path("x.cphd"), mention="--targets")
    expect_usage("simulate", "--no-such-flag", "-o", path("x.cphd"))
    expect_usage("form", "whatever.cphd", "--roi", "1,2,3", "-o", path("x.npy"), mention="--roi")
    expect_usage("form", "whatever.cphd", "--roi", "nan,0,1,1", "-o", path("x.npy"), mention="--roi")
    expect_usage("form", "whatever.cphd", "--roi", "0,0,0,1", "-o", path("x.npy"), mention="--roi")
    expect_usage("form", "whatever.cphd", "--precision", "fp8", "-o", path("x.npy"), mention="fp8")
    expect_usage("form", "whatever.cphd", "--devices", "0", "-o", path("x.npy"), mention="--devices")
    expect_usage("bench", "--devices", "two", mention="--devices")
    expect_usage("form", "whatever.cphd", "-o", path("x.bmp"), mention="x.bmp")
    expect_usage("form", "whatever.cphd", mention="-o")
    expect_usage("metrics", mention="image")
    expect_usage("metrics", "x.npy", "--point", "1", mention="--point")
    expect_usage("bench", "--sizes", "0", mention="--sizes")
    expect_usage("bench", "--precision", "fp7", mention="fp7")
    expect_usage("info")
    # RAW echoes have no CPHD form: the message says what to do instead.
    expect_usage("simulate", "--domain", "raw", "-o", path("raw.cphd"), mention=".ini")


def t_missing_files():
    missing = path("no-such-collection.cphd")
    expect_failure("info", missing, mention="no-such-collection.cphd")
    expect_failure("form", missing, "-o", path("out.npy"), mention="no-such-collection.cphd")
    expect_failure("metrics", path("no-such-image.npy"), mention="no-such-image.npy")
    expect_failure("form", path("no-such-scene.ini"), "-o", path("out.npy"), mention="no-such-scene.ini")
    assert not os.path.exists(path("out.npy"))


def t_garbage_files():
    rng = np.random.default_rng(1)
    junk = path("junk.cphd")
    with open(junk, "wb") as f:
        f.write(b"CPHD/1.0.1\n" + rng.integers(0, 256, 4000, dtype=np.uint8).tobytes())
    expect_failure("info", junk, mention="junk.cphd")
    junk_npy = path("junk.npy")
    with open(junk_npy, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + rng.integers(0, 256, 300, dtype=np.uint8).tobytes())
    expect_failure("metrics", junk_npy, mention="junk.npy")
    bad_ini = path("bad.ini")
    with open(bad_ini, "w") as f:
        f.write("[simulate]\npulses=minus one\n")
    expect_failure("form", bad_ini, "-o", path("out.npy"), mention="bad.ini")


def t_simulate_info():
    cphd = path("point.cphd")
    run("simulate", *SIM_ARGS, "-o", cphd)
    assert os.path.getsize(cphd) > 128 * 128 * 8, "the CPHD file is too small to hold the samples"
    p = run("info", cphd)
    assert "Pulses" in p.stdout and "128" in p.stdout
    p = run("info", cphd, "--json")
    info = json.loads(p.stdout)
    assert info["pulses"] == 128 and info["samples"] == 128, info
    assert info["domain"] == "FX"
    # Airborne defaults: 600 MHz gives c/2B = 0.2498 m.
    assert abs(info["range_resolution_m"] - 299792458.0 / (2 * info["bandwidth_hz"])) < 1e-6
    assert info["crossrange_resolution_m"] > 0
    assert 5e3 < info["mean_standoff_m"] < 2e4, info["mean_standoff_m"]
    assert info["geo"] is not None
    assert sum(1 for c in info["channels"] if c["selected"]) == 1


def form_point(name, precision="fp64", extra=()):
    out = path(name)
    run("form", path("point.cphd"), "--roi", ROI, "--spacing", "0.05", "--precision", precision,
        "--backend", "cpu", "--window", "rect", "--azimuth-window", "rect", *extra, "-o", out)
    return out


def t_form_outputs():
    npy = form_point("point64.npy")
    img = np.load(npy)
    assert img.dtype == np.complex64, img.dtype
    assert img.shape == (160, 160), img.shape
    assert np.all(np.isfinite(img))
    side = sidecar_of(npy)
    assert side is not None, "no .json sidecar next to the .npy"
    with open(side) as f:
        meta = json.load(f)
    assert "precision" in json.dumps(meta) and "fp64" in json.dumps(meta), meta
    # The peak sits on the target (row 0 is north, +y).
    r, c = np.unravel_index(np.argmax(np.abs(img)), img.shape)
    x = TARGET[0] - 4 + 0.05 * (c + 0.5)
    y = TARGET[1] + 4 - 0.05 * (r + 0.5)
    assert math.hypot(x - TARGET[0], y - TARGET[1]) < 0.15, (x, y)

    png = path("point.png")
    run("form", path("point.cphd"), "--roi", ROI, "--spacing", "0.1", "--backend", "cpu", "-o", png)
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    tif = path("point.tiff")
    run("form", path("point.cphd"), "--roi", ROI, "--spacing", "0.1", "--backend", "cpu", "-o", tif)
    with open(tif, "rb") as f:
        assert f.read(4) in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")

    p = run("form", path("point.cphd"), "--roi", ROI, "--backend", "cpu", "--json", "-o", path("default.npy"))
    summary = json.loads(p.stdout)
    assert summary["width"] > 0 and summary["height"] > 0 and summary["bp_per_s"] > 0, summary
    assert summary["backend"] == "cpu"
    # The default spacing is half the finer ground-plane resolution: c/2B projected through the grazing
    # angle, or the cross-range resolution; info says the same.
    info = json.loads(run("info", path("point.cphd"), "--json").stdout)
    ground = info["range_resolution_m"] / math.cos(math.radians(info["mean_grazing_deg"]))
    assert abs(info["ground_range_resolution_m"] - ground) < 1e-9 * ground, (info["ground_range_resolution_m"], ground)
    want = 0.5 * min(ground, info["crossrange_resolution_m"])
    assert abs(summary["spacing_m"] - want) < 1e-9, (summary["spacing_m"], want)
    assert abs(info["defaults"]["spacing_m"] - want) < 1e-9, (info["defaults"], want)


def t_form_defaults():
    # Without options: the engine's defaults (the desktop program's too), which the sidecar records.
    out = path("all-defaults.npy")
    p = run("form", path("point.cphd"), "--backend", "cpu", "--json", "-o", out)
    summary = json.loads(p.stdout)
    defaults = json.loads(run("info", path("point.cphd"), "--json").stdout)["defaults"]
    assert (summary["width"], summary["height"]) == (256, 256), summary
    for got, want in zip(summary["roi_m"], defaults["roi_m"]):
        assert abs(got - want) < 1e-9, (summary["roi_m"], defaults["roi_m"])
    assert abs(summary["roi_m"][0] + summary["roi_m"][2]) < 1e-9 and abs(summary["roi_m"][1] + summary["roi_m"][3]) < 1e-9
    extra = sidecar_extra(out)
    assert (extra["window"], extra["order"], extra["upsample"], extra["block"]) == ("taylor", "interleaved", 16, 64), extra
    assert (defaults["window"], defaults["order"], defaults["upsample"]) == ("taylor", "interleaved", 16), defaults
    # The aperture is weighted as the range is, and the record says what was applied.
    assert defaults["azimuth_window"] == "taylor", defaults
    assert (extra["azimuth_window"], extra["azimuth_window_requested"]) == ("taylor", "taylor"), extra
    assert (extra["taylor_sll_db"], extra["taylor_nbar"]) == (-35, 4), extra
    assert (extra["azimuth_taylor_sll_db"], extra["azimuth_taylor_nbar"]) == (-35, 4), extra
    assert defaults["block"] == {"bp": 64, "ffbp": 1024, "fbp": 1024, "pfa": 64}, defaults
    # The fast algorithms' sub-apertures.
    small = "%g,%g,%g,%g" % (TARGET[0] - 2, TARGET[1] - 2, TARGET[0] + 2, TARGET[1] + 2)
    run("form", path("point.cphd"), "--roi", small, "--algo", "fbp", "--backend", "cpu", "-o", path("fbp-default.npy"))
    assert sidecar_extra(path("fbp-default.npy"))["block"] == 1024


def t_metrics_point():
    npy = path("point64.npy")
    if not os.path.exists(npy):
        form_point("point64.npy")
    cuts = path("cuts.csv")
    p = run("metrics", npy, "--point", "%g,%g" % TARGET[:2], "--json", "--cuts", cuts)
    m = json.loads(p.stdout)["point"]
    pos = m["position_m"]
    err = math.hypot(pos[0] - TARGET[0], pos[1] - TARGET[1])
    print(f"# peak at {pos[0]:.4f}, {pos[1]:.4f} ({err * 1000:.1f} mm off); "
          f"PSLR range {m['range']['pslr_db']:.2f} dB, cross {m['cross_range']['pslr_db']:.2f} dB; "
          f"IRW {m['range']['irw_m']:.4f}, {m['cross_range']['irw_m']:.4f} m")
    # Theory from the collection: the band the samples span (N samples cover N/(N-1) times the span between
    # the first and last frequency) on the ground at the grazing angle, and the cross-range resolution
    # likewise over P pulses.
    info = json.loads(run("info", path("point.cphd"), "--json").stdout)
    n, p = info["samples"], info["pulses"]
    band = (info["band_hz"][1] - info["band_hz"][0]) * n / (n - 1)
    want = {"range": IRW_RECT_CELLS * C / (2 * band) / math.cos(math.radians(info["mean_grazing_deg"])),
            "cross_range": IRW_RECT_CELLS * info["crossrange_resolution_m"] * (p - 1) / p}
    res = min(info["range_resolution_m"], info["crossrange_resolution_m"])
    assert err < res / POS_RES_FRACTION, f"the peak is {err:.4f} m from the target (res/{res / err:.0f})"
    for cut in ("range", "cross_range"):
        pslr, irw = m[cut]["pslr_db"], m[cut]["irw_m"]
        assert abs(pslr - PSLR_RECT_DB) < PSLR_TOL_DB, f"{cut} PSLR {pslr:.2f} dB, expected {PSLR_RECT_DB}"
        assert abs(irw / want[cut] - 1) < IRW_TOL, f"{cut} IRW {irw:.4f} m, theory {want[cut]:.4f} m"
    with open(cuts) as f:
        lines = f.read().splitlines()
    assert lines[0] == "cut,offset_m,level_db" and len(lines) > 10
    # The text form says the same.
    p = run("metrics", npy, "--point", "%g,%g" % TARGET[:2])
    assert "PSLR" in p.stdout and "Range" in p.stdout
    # A point outside the image is a bad argument.
    expect_usage("metrics", npy, "--point", "500,500", mention="outside")


def t_azimuth_window():
    # Windows in cross-range through `form` and `metrics`: the peak sidelobe of the cross-range cut is the
    # window's (theory of the pulses' weights: Hann -31.47, Taylor -40 dB n = 5 -40.14 dB), the range cut
    # stays the rectangular window's, and the sidecar says which ran. (Hamming's -42.67 dB is checked in
    # test-aperture with the same window in range: under a rectangular range window the 6% fractional
    # band of this collection, whose look-angle spread scales with frequency, lowers it by 0.27 dB.)
    theory = {"hann": -31.47, "taylor,-40,5": -40.14}
    for win, want in theory.items():
        name = "az-%s.npy" % win.split(",")[0]
        npy = form_point(name, extra=("--azimuth-window", win))
        m = json.loads(run("metrics", npy, "--point", "%g,%g" % TARGET[:2], "--json").stdout)["point"]
        print(f"# --azimuth-window {win}: PSLR range {m['range']['pslr_db']:.2f} dB, "
              f"cross {m['cross_range']['pslr_db']:.2f} dB (theory {want})")
        assert abs(m["cross_range"]["pslr_db"] - want) < 0.3, (win, m["cross_range"])
        assert abs(m["range"]["pslr_db"] - PSLR_RECT_DB) < PSLR_TOL_DB, (win, m["range"])
        extra = sidecar_extra(npy)
        assert extra["azimuth_window"] == win.split(",")[0] and extra["window"] == "rect", extra
    assert (extra["azimuth_taylor_sll_db"], extra["azimuth_taylor_nbar"]) == (-40, 5), extra
    for bad in ("kaiser", "hann,-30", "taylor,-5", "taylor,-40,0", "taylor,x"):
        expect_usage("form", path("point.cphd"), "--azimuth-window", bad, "-o", path("bad.npy"),
                     mention="--azimuth-window")
    assert not os.path.exists(path("bad.npy"))


def t_metrics_reference():
    ref = path("point64.npy")
    test = form_point("point32.npy", precision="fp32")
    m = json.loads(run("metrics", test, "--ref", ref, "--json").stdout)["reference"]
    print(f"# fp32 vs fp64: SER {m['ser_db']:.1f} dB, PSNR {m['psnr_db']:.1f} dB, SSIM {m['ssim']:.4f}")
    assert m["ser_db"] > FP32_SER_DB, m
    # At 100 dB SER the images are the same picture: SSIM and the magnitude correlation are 1 to 1e-5.
    assert 0.99999 < m["ssim"] <= 1.0 + 1e-9, m
    assert m["correlation"] > 0.99999, m
    other = path("other.npy")
    run("form", path("point.cphd"), "--roi", ROI, "--spacing", "0.1", "--backend", "cpu", "-o", other)
    expect_failure("metrics", test, "--ref", other)


def sidecar_extra(npy):
    side = sidecar_of(npy)
    assert side is not None, f"no .json sidecar next to {npy}"
    with open(side) as f:
        return json.load(f)["extra"]


def t_fp16_on_cpu():
    # The processor has no half precision: it computes in fp32, and everything that reports says so.
    out = path("half.npy")
    p = run("form", path("point.cphd"), "--roi", ROI, "--spacing", "0.05", "--precision", "fp16",
            "--backend", "cpu", "--json", "-o", out)
    summary = json.loads(p.stdout)
    extra = sidecar_extra(out)
    for what, rec in (("--json", summary), ("sidecar", extra)):
        assert rec["precision"] == "fp32", (what, rec)
        assert rec["precision_requested"] == "fp16", (what, rec)
        assert rec["precision_reason"] and "CUDA" in rec["precision_reason"], (what, rec)
        assert rec["backend"] == "cpu" and rec["algo"] == "bp", (what, rec)
        assert any("fp16" in w for w in rec["warnings"]), (what, rec)
    assert "warning" in p.stderr and "fp16" in p.stderr, p.stderr
    # It is the fp32 image, to the bit.
    ref = path("point32-again.npy")
    run("form", path("point.cphd"), "--roi", ROI, "--spacing", "0.05", "--precision", "fp32",
        "--backend", "cpu", "-o", ref)
    assert np.array_equal(np.load(out), np.load(ref))
    assert sidecar_extra(ref)["precision_reason"] is None


def t_ffbp_exact():
    # 128 pulses onto 20 x 20 pixels: FFBP's plan finds exact backprojection cheaper for the one block.
    # The record says bp, with why and the block counts, and the image is exact backprojection's to the
    # bit (FFBP itself stays some 50 dB from it).
    out = path("ffbp-small.npy")
    small = "%g,%g,%g,%g" % (TARGET[0] - 1, TARGET[1] - 1, TARGET[0] + 1, TARGET[1] + 1)
    p = run("form", path("point.cphd"), "--roi", small, "--spacing", "0.1", "--algo", "ffbp", "--backend", "cpu",
            "--json", "-o", out)
    summary = json.loads(p.stdout)
    for what, rec in (("--json", summary), ("sidecar", sidecar_extra(out))):
        assert rec["algo"] == "bp" and rec["algo_requested"] == "ffbp", (what, rec)
        assert rec["blocks"] == {"ffbp": 0, "bp": 1}, (what, rec)
        assert "exact backprojection" in rec["algo_reason"], (what, rec)
    assert "algorithm bp (asked: ffbp)" in p.stderr, p.stderr
    bp = path("bp-small.npy")
    run("form", path("point.cphd"), "--roi", small, "--spacing", "0.1", "--algo", "bp", "--backend", "cpu",
        "--block", "256", "-o", bp)
    print(f"# FFBP request on 20 x 20 px: {summary['algo_reason']}")
    assert np.array_equal(np.load(out), np.load(bp))


def write_nan_samples(src, dst):
    """A copy of a CPHD file whose every signal sample (complex float, big-endian) is NaN."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    head = data[:data.index(b"\f\n")].decode("ascii")
    fields = dict(line.split(" := ") for line in head.splitlines()[1:])
    off, size = int(fields["SIGNAL_BLOCK_BYTE_OFFSET"]), int(fields["SIGNAL_BLOCK_SIZE"])
    data[off:off + size] = b"\x7f\xc0\x00\x00" * (size // 4)
    with open(dst, "wb") as f:
        f.write(data)
    return size // 8


def t_nonfinite_samples():
    bad = path("nan.cphd")
    n = write_nan_samples(path("point.cphd"), bad)
    out = path("nan.npy")
    p = run("form", bad, "--roi", ROI, "--spacing", "0.1", "--backend", "cpu", "--json", "-o", out)
    summary = json.loads(p.stdout)
    for what, rec in (("--json", summary), ("sidecar", sidecar_extra(out))):
        assert rec["nonfinite_samples"] == n, (what, rec["nonfinite_samples"], n)
        assert any("not finite" in w for w in rec["warnings"]), (what, rec)
    assert f"{n} input samples were not finite" in p.stderr, p.stderr
    # The samples were taken as zero: an all-zero image, which metrics calls what it is and traces back.
    assert not np.any(np.load(out))
    q = run("metrics", out, expect=1)
    assert "zero" in q.stderr and f"{n} input samples were not finite" in q.stderr, q.stderr


def t_overflow():
    # Targets near the largest float: the image overflows single precision. form says so and records it;
    # metrics reports the non-finite pixels instead of calling the image zero.
    big = path("big.cphd")
    run("simulate", "--pulses", "128", "--samples", "128", "--targets", "%g,%g,%g,3e38" % TARGET, "--seed", "7",
        "-o", big)
    out = path("big.npy")
    p = run("form", big, "--roi", ROI, "--spacing", "0.1", "--backend", "cpu", "--json", "-o", out)
    img = np.load(out)
    n_bad = int(np.count_nonzero(~np.isfinite(img)))
    summary = json.loads(p.stdout)
    print(f"# amplitude 3e38: {n_bad} of {img.size} pixels not finite")
    assert n_bad > 0, n_bad
    for what, rec in (("--json", summary), ("sidecar", sidecar_extra(out))):
        assert rec["nonfinite_pixels"] == n_bad, (what, rec["nonfinite_pixels"], n_bad)
        assert rec["nonfinite_samples"] == 0, (what, rec)
    assert "not finite" in p.stderr and "overflowed" in p.stderr, p.stderr
    m = json.loads(run("metrics", out, "--ref", out, "--json").stdout)
    assert m["nonfinite_pixels"] == n_bad, m
    q = run("metrics", out, "--point", "%g,%g" % TARGET[:2], expect=1)
    assert "not finite" in q.stderr and "image is zero" not in q.stderr, q.stderr
    # A finite image says nothing of the kind.
    m = json.loads(run("metrics", path("point64.npy"), "--point", "%g,%g" % TARGET[:2], "--json").stdout)
    assert m["nonfinite_pixels"] == 0


def t_metrics_needs_spacing():
    # Without its sidecar an array does not say how large its pixels are: metrics refuses to guess.
    src = path("point64.npy")
    if not os.path.exists(src):
        form_point("point64.npy")
    bare = path("bare.npy")
    with open(src, "rb") as f, open(bare, "wb") as g:
        g.write(f.read())
    p = run("metrics", bare, expect=2)
    assert "--spacing" in p.stderr and "sidecar" in p.stderr, p.stderr
    # With the spacing given, the widths in metres are the sidecar's.
    a = json.loads(run("metrics", src, "--json").stdout)["point"]
    b = json.loads(run("metrics", bare, "--spacing", "0.05", "--json").stdout)["point"]
    for cut in ("range", "cross_range"):
        assert abs(a[cut]["irw_m"] - b[cut]["irw_m"]) < 1e-9, (cut, a[cut], b[cut])
    # A spacing that contradicts the sidecar is refused.
    expect_usage("metrics", src, "--spacing", "0.2", mention="--spacing")


def t_scene_files():
    ini = path("raw.ini")
    p = run("simulate", "--domain", "raw", "--pulses", "128", "--targets", "%g,%g,%g" % TARGET, "-o", ini)
    assert os.path.exists(ini)
    with open(ini) as f:
        text = f.read()
    assert "[simulate]" in text and "domain=raw" in text
    info = json.loads(run("info", ini, "--json").stdout)
    assert info["domain"] == "RAW" and info["pulses"] == 128, info
    out = path("raw.npy")
    run("form", ini, "--roi", ROI, "--spacing", "0.05", "--precision", "fp64", "--backend", "cpu", "-o", out)
    m = json.loads(run("metrics", out, "--point", "%g,%g" % TARGET[:2], "--json").stdout)["point"]
    pos = m["position_m"]
    err = math.hypot(pos[0] - TARGET[0], pos[1] - TARGET[1])
    print(f"# RAW: peak {err * 1000:.1f} mm from the target")
    res = min(info["range_resolution_m"], info["crossrange_resolution_m"])
    assert err < res / POS_RES_FRACTION, f"RAW: the peak is {err:.4f} m from the target (res/{res / err:.0f})"

    # --config: the key file gives the scene, flags override it.
    fx_ini = path("fx.ini")
    run("simulate", *SIM_ARGS, "-o", fx_ini)
    cphd = path("config.cphd")
    run("simulate", "--config", fx_ini, "--pulses", "64", "-o", cphd)
    info = json.loads(run("info", cphd, "--json").stdout)
    assert info["pulses"] == 64 and info["samples"] == 128, info


def t_bench():
    p = run("bench", "--sizes", "32", "--pulses", "32", "--samples", "64", "--targets", "20",
            "--precision", "fp32,fp64", "--backend", "cpu", "--json")
    b = json.loads(p.stdout)
    assert b["simd"], b
    rows = b["rows"]
    assert len(rows) == 2, rows
    fp32 = [r for r in rows if r["precision"] == "fp32"][0]
    fp64 = [r for r in rows if r["precision"] == "fp64"][0]
    assert fp32["bp_per_s"] > 0 and fp32["seconds"] > 0
    assert fp64["is_reference"]
    print(f"# bench fp32 SER {fp32['ser_db']:.1f} dB, {fp32['bp_per_s']:.3g} bp/s")
    assert fp32["ser_db"] > FP32_SER_DB, fp32
    p = run("bench", "--sizes", "32", "--pulses", "32", "--samples", "64", "--targets", "10")
    assert "SIMD" in p.stdout and "bp/s" in p.stdout
    # --algo: exact BP and each algorithm through the backend with range compression, compared with BP; a
    # block too small for FFBP says that exact backprojection formed it.
    p = run("bench", "--sizes", "64", "--pulses", "64", "--samples", "64", "--targets", "10", "--algo", "ffbp,pfa",
            "--json")
    rows = {r["algo"]: r for r in json.loads(p.stdout)["rows"] if r["x_bp"] is not None}
    assert sorted(rows) == ["bp", "ffbp", "pfa"], rows
    assert rows["bp"]["x_bp"] == 1 and rows["bp"]["ser_db"] > FP32_SER_DB, rows["bp"]
    for a in ("ffbp", "pfa"):
        assert rows[a]["x_bp"] > 0 and "range compression" in rows[a]["note"], rows[a]
    assert "formed by exact BP" in rows["ffbp"]["note"] or "leaves of" in rows["ffbp"]["note"], rows["ffbp"]
    # PFA against float64 where the planar wavefront holds: RESULTS.md's 55.7 dB less 3 dB.
    assert rows["pfa"]["ser_db"] > 52.7, rows["pfa"]
    expect_usage("bench", "--algo", "sar", mention="--algo")


def t_tune():
    # Arguments are checked before any device is looked for: usage errors are the same everywhere.
    expect_usage("tune", "--precision", "fp64", mention="fp64")
    expect_usage("tune", "--edge", "abc", mention="--edge")
    expect_usage("tune", "--device", "-1", mention="--device")
    # A sealed cache folder: a machine with a GPU must not write into the user's.
    env = dict(os.environ, XDG_CACHE_HOME=path("cache"))
    p = subprocess.run([CLI, "tune", "--edge", "256", "--pulses", "64", "--bins", "1024", "--json"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert 0 <= p.returncode < 128, f"tune crashed (status {p.returncode}): {p.stderr}"
    if p.returncode == 1:
        # No CUDA in this build, or no device: one clear line, nothing on stdout.
        assert p.stderr.startswith("echoform-cli: tune: "), p.stderr
        assert "CUDA" in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert p.stdout == "", p.stdout
        print(f"# {p.stderr.strip()}")
    else:
        assert p.returncode == 0, f"tune exited {p.returncode}: {p.stderr}"
        t = json.loads(p.stdout)
        assert t["results"] and all(r["variant"] >= 1 for r in t["results"]), t
        assert os.path.exists(t["cache"]) and t["cache"].startswith(path("cache")), t
        print(f"# tuned: {t['results']}")


tests = [
    ("no-command", t_no_command),
    ("help", t_help_lists),
    ("bad-arguments", t_bad_arguments),
    ("missing-files", t_missing_files),
    ("garbage-files", t_garbage_files),
    ("simulate-info", t_simulate_info),
    ("form-outputs", t_form_outputs),
    ("form-defaults", t_form_defaults),
    ("metrics-point", t_metrics_point),
    ("metrics-reference", t_metrics_reference),
    ("azimuth-window", t_azimuth_window),
    ("fp16-on-cpu", t_fp16_on_cpu),
    ("ffbp-exact", t_ffbp_exact),
    ("nonfinite-samples", t_nonfinite_samples),
    ("overflow", t_overflow),
    ("metrics-needs-spacing", t_metrics_needs_spacing),
    ("scene-files", t_scene_files),
    ("bench", t_bench),
    ("tune", t_tune),
]

print(f"1..{len(tests)}")
for name, fn in tests:
    check(name, fn)
tmp.cleanup()
sys.exit(1 if failures else 0)
