#!/usr/bin/env python3
# test_sicd.py: echoform-cli's SICD products checked by sarkit, the NGA reference library (TAP).
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run by meson with EF_CLI (the echoform-cli binary) and EF_SHARED_DATA set. For simulated airborne and
# spaceborne collections and the Gotcha pass, formed by BP, FFBP and PFA:
#   - sarkit's SICD consistency checker (the schema and every consistency check) finds nothing, not even
#     a warning;
#   - sarkit reads the pixels back identical to the .npy that the same `form` run writes, each SICD pixel
#     found through the SICD's own grid metadata (SCP, unit vectors, sample spacing);
#   - a point target measured from the SICD's pixels and its grid metadata alone lands where Echoform's
#     metrics put it in the .npy, within resolution / 50;
# and bad requests (an aperture of one pulse, no place on the Earth, a folder that does not exist, a
# path that is a folder) fail with a clear message and leave no file.
# Skipped (a TAP "1..0 # SKIP" plan) without sarkit, or when the CLI has no GDAL.

import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import sarkit.sicd as sksicd
    import sarkit.wgs84
    from sarkit.verification._sicd_consistency import SicdConsistency
except ImportError as exc:
    print(f"1..0 # SKIP sarkit is not installed (pip install sarkit==1.8.1): {exc}")
    sys.exit(0)

CLI = os.environ.get("EF_CLI")
if not CLI or not os.path.exists(CLI):
    print("Bail out! EF_CLI is not set to the echoform-cli binary")
    sys.exit(99)
GOTCHA = os.path.join(os.environ.get("EF_SHARED_DATA", ""), "gotcha-pass1-hh")
# Where the Gotcha files are said to be: they carry no place of their own, so SICD's needs one given.
GOTCHA_PLACE = "39.7815,-84.0912,250"
# The README's promise for positions measured through the SICD's own metadata.
RES_FRACTION = 50

tmp = tempfile.TemporaryDirectory(prefix="echoform-sicd-")
failures = 0
count = 0


def path(name):
    return os.path.join(tmp.name, name)


def run(*args, expect=0):
    p = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True, timeout=300)
    if p.returncode < 0 or p.returncode >= 128:
        raise AssertionError(f"{args} crashed (status {p.returncode}): {p.stderr}")
    if expect is not None and p.returncode != expect:
        raise AssertionError(f"{args} exited {p.returncode}, expected {expect}: {p.stderr}")
    return p


def check(name, fn):
    global failures, count
    count += 1
    try:
        fn()
        print(f"ok {count} {name}")
    except Exception as e:  # one failure should not hide the others
        failures += 1
        print(f"not ok {count} {name}")
        for line in str(e).splitlines():
            print(f"# {line}")


def enu_basis(llh):
    return np.stack([sarkit.wgs84.east(llh), sarkit.wgs84.north(llh), sarkit.wgs84.up(llh)])


def srp_of(src):
    """The scene reference point (ECF, LLH) of a collection: its own, or the place given for Gotcha."""
    info = json.loads(run("info", src, "--json").stdout)
    geo = info.get("geo")
    if geo:
        ecf = np.array(geo["ecf_m"], dtype=float)
        return ecf, sarkit.wgs84.cartesian_to_geodetic(ecf), info
    llh = np.array([float(v) for v in GOTCHA_PLACE.split(",")])
    return sarkit.wgs84.geodetic_to_cartesian(llh), llh, info


def sicd_grid(xml):
    """The SICD's pixel geometry: SCP ECF, SCP pixel, unit vectors and spacings of rows and columns."""
    x = sksicd.XmlHelper(xml)
    return (x.load("./{*}GeoData/{*}SCP/{*}ECF"),
            np.array([x.load("./{*}ImageData/{*}SCPPixel/{*}Row"), x.load("./{*}ImageData/{*}SCPPixel/{*}Col")]),
            x.load("./{*}Grid/{*}Row/{*}UVectECF"), x.load("./{*}Grid/{*}Col/{*}UVectECF"),
            x.load("./{*}Grid/{*}Row/{*}SS"), x.load("./{*}Grid/{*}Col/{*}SS"))


def to_local(ecf, srp_ecf, srp_llh):
    return (np.asarray(ecf) - srp_ecf) @ enu_basis(srp_llh).T


def sicd_as_echoform_grid(xml, srp_ecf, srp_llh):
    """An Echoform grid (sidecar) for the SICD's pixels, from its metadata alone: columns along Col,
    rows along Row, pixel (0, 0) where the SCP and the spacings put it."""
    scp, scp_px, urow, ucol, ss_r, ss_c = sicd_grid(xml)
    assert abs(ss_r - ss_c) < 1e-12, (ss_r, ss_c)
    b = enu_basis(srp_llh)
    origin_ecf = scp - scp_px[0] * ss_r * urow - scp_px[1] * ss_c * ucol
    return {"origin": to_local(origin_ecf, srp_ecf, srp_llh), "u": b @ ucol, "v": b @ urow, "spacing": ss_c}


def write_npy(name, pixels, grid):
    out = path(name)
    np.save(out, pixels.astype(np.complex64))
    side = {"format": "echoform-image", "version": 1, "dtype": "complex64", "width": int(pixels.shape[1]),
            "height": int(pixels.shape[0]), "spacing": float(grid["spacing"]),
            "origin": [float(v) for v in grid["origin"]], "u": [float(v) for v in grid["u"]],
            "v": [float(v) for v in grid["v"]]}
    with open(out[:-4] + ".json", "w") as f:
        json.dump(side, f)
    return out


def measure(npy, point):
    m = json.loads(run("metrics", npy, "--point", "%.6f,%.6f" % tuple(point), "--json").stdout)["point"]
    return np.array(m["position_m"][:2])


def consistency(nitf):
    with open(nitf, "rb") as f:
        con = SicdConsistency.from_file(f)
    con.check()
    bad = []
    for name, res in con.failures().items():
        for d in res["details"]:
            if not d["passed"]:
                bad.append(f"{name}: {d['severity']}: {d['details']}")
    assert not bad, "sarkit's consistency checker:\n" + "\n".join(bad)


def case(src, algo, roi, extra=()):
    srp_ecf, srp_llh, info = srp_of(src)
    # Two pixels a resolution cell in the coarser direction: SICD's oversampling between 1.1 and 2.2.
    spacing = 0.5 * max(info["ground_range_resolution_m"], info["crossrange_resolution_m"])
    res = min(info["ground_range_resolution_m"], info["crossrange_resolution_m"])
    stem = os.path.basename(src).split(".")[0] + "-" + algo
    args = ["--roi", roi, "--spacing", "%.6f" % spacing, "--algo", algo, "--backend", "cpu", *extra]
    run("form", src, *args, "-o", path(stem + ".npy"))
    run("form", src, *args, "-o", path(stem + ".nitf"))
    nitf = path(stem + ".nitf")

    consistency(nitf)

    with open(nitf, "rb") as f:
        reader = sksicd.NitfReader(f)
        xml = reader.metadata.xmltree
        pixels = reader.read_image()
    ech = np.load(path(stem + ".npy"))
    with open(path(stem + ".json")) as f:
        side = json.load(f)
    # Each SICD pixel's place, from the SICD's metadata, as a pixel of Echoform's grid.
    grid = sicd_as_echoform_grid(xml, srp_ecf, srp_llh)
    rr, cc = np.meshgrid(np.arange(pixels.shape[0]), np.arange(pixels.shape[1]), indexing="ij")
    pos = (grid["origin"][None, None, :] + grid["spacing"] * (cc[..., None] * grid["u"] + rr[..., None] * grid["v"]))
    rel = pos - np.array(side["origin"])
    col = rel @ np.array(side["u"]) / side["spacing"]
    row = rel @ np.array(side["v"]) / side["spacing"]
    ic, ir = np.rint(col).astype(int), np.rint(row).astype(int)
    off = max(np.abs(col - ic).max(), np.abs(row - ir).max())
    assert off < 1e-3, f"SICD pixels lie {off:.2e} pixels off Echoform's grid"
    assert pixels.shape == (ech.shape[1], ech.shape[0]) or pixels.shape == ech.shape, (pixels.shape, ech.shape)
    assert np.array_equal(pixels, ech[ir, ic]), "the pixels sarkit reads differ from Echoform's"

    # The brightest point, measured in both.
    r0, c0 = np.unravel_index(np.argmax(np.abs(ech)), ech.shape)
    guess = np.array(side["origin"]) + side["spacing"] * (c0 * np.array(side["u"]) + r0 * np.array(side["v"]))
    p_ech = measure(path(stem + ".npy"), guess[:2])
    p_sicd = measure(write_npy(stem + "-sicd.npy", pixels, grid), guess[:2])
    err = float(np.hypot(*(p_sicd - p_ech)))
    print(f"# {stem}: {pixels.shape[0]} x {pixels.shape[1]} SICD pixels identical; target at "
          f"({p_ech[0]:.4f}, {p_ech[1]:.4f}) m, through the SICD's grid {err * 1000:.3f} mm away (res/{res / max(err, 1e-12):.0f})")
    assert err < res / RES_FRACTION, f"the target is {err:.4f} m away through the SICD's grid"


def t_simulated():
    run("simulate", "--scene", "points", "--geometry", "airborne", "--pulses", "512", "--samples", "512",
        "--seed", "3", "-o", path("air.cphd"))
    run("simulate", "--scene", "points", "--geometry", "spaceborne", "--pulses", "384", "--samples", "384",
        "--seed", "5", "-o", path("space.cphd"))


def bad_case(args, mention, target):
    before = set(os.listdir(tmp.name))
    p = run("form", *args, "-o", target, expect=None)
    assert p.returncode != 0, f"{args}: exit 0"
    assert "echoform-cli: " in p.stderr and mention in p.stderr, f"{args}: {p.stderr!r}"
    after = set(os.listdir(tmp.name))
    assert after == before, f"{args} left {after - before}"
    assert not os.path.isfile(target), f"{target} was written"


def t_bad_inputs():
    run("simulate", "--scene", "points", "--geometry", "airborne", "--pulses", "1", "--samples", "128",
        "-o", path("one.cphd"))
    bad_case([path("one.cphd"), "--spacing", "0.2", "--backend", "cpu"], "pulse", path("one.nitf"))
    bad_case([path("air.cphd"), "--spacing", "0.2", "--backend", "cpu"], "Cannot write",
             path("no-such-folder/x.nitf"))
    os.mkdir(path("a-folder.nitf"))
    bad_case([path("air.cphd"), "--spacing", "0.2", "--backend", "cpu"], "a-folder.nitf", path("a-folder.nitf"))
    if os.path.isdir(GOTCHA):
        bad_case([GOTCHA, "--roi", "-2,-2,2,2", "--spacing", "0.2", "--backend", "cpu"], "--place",
                 path("gotcha-noplace.nitf"))


tests = [
    ("simulate", t_simulated),
    ("airborne-bp", lambda: case(path("air.cphd"), "bp", "-8,-8,8,8")),
    ("airborne-pfa", lambda: case(path("air.cphd"), "pfa", "-8,-8,8,8")),
    ("spaceborne-bp", lambda: case(path("space.cphd"), "bp", "-8,-8,8,8")),
    ("spaceborne-ffbp", lambda: case(path("space.cphd"), "ffbp", "-8,-8,8,8", ("--block", "384"))),
    ("bad-inputs", t_bad_inputs),
]
if os.path.isdir(GOTCHA):
    tests.append(("gotcha-bp", lambda: case(GOTCHA, "bp", "-18,14,-10,22", ("--place", GOTCHA_PLACE))))

probe = subprocess.run([CLI, "form", "x", "-o", "x.nitf"], capture_output=True, text=True)
if "no GDAL" in probe.stderr:
    print("1..0 # SKIP echoform-cli was built without GDAL")
    sys.exit(0)

print(f"1..{len(tests)}")
for name, fn in tests:
    check(name, fn)
tmp.cleanup()
sys.exit(1 if failures else 0)
