#!/usr/bin/env python3
# test-form-checksums.py: echoform-cli's simulated files and formed images, bit for bit, against stored SHA-256s.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   test-form-checksums.py            run every case and compare with form-checksums.txt (TAP)
#   test-form-checksums.py --update   run every case twice, refuse if any output differs between the two,
#                                     and store the checksums for this platform
#
# A fixed set of runs: CPHD files simulated with fixed seeds (their bytes are checked too), a RAW scene
# simulated in memory, and the Gotcha data in ../shared/data when it is there; every algorithm (bp, ffbp,
# fbp, pfa) at every precision (fp64, fp32, fp16, which the CPU runs as fp32 and says so) on the CPU
# backend. The simulated files are checked too, except for the time they were written. Every parameter that has a default is given (ROI, spacing, windows in both directions, upsampling, block, order,
# threads), so the stored images change only when the arithmetic does, never when a default does. Each
# image's sidecar is checked too, without the two timings (elapsed_s, bp_per_s): it records what ran.
#
# The processor's vector unit and the C library's sin/cos decide the last bits, so the checksums are kept
# per platform (instruction set and glibc version); on a platform with none stored the test is skipped
# and says how to make them. Run by meson with EF_CLI and EF_SHARED_DATA set.

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STORE = os.path.join(HERE, "form-checksums.txt")
CLI = os.path.abspath(os.environ["EF_CLI"]) if os.environ.get("EF_CLI") else None
GOTCHA = os.path.join(os.environ.get("EF_SHARED_DATA", os.path.join(HERE, "..", "..", "shared", "data")),
                      "gotcha-pass1-hh")
TIMINGS = ("elapsed_s", "bp_per_s")

# The inputs. name: simulate arguments (the output name is part of the CPHD, so it is fixed too).
SIMULATIONS = {
    # Airborne spotlight at 10 km, FX, complex float samples.
    "air.cphd": ["--scene", "points", "--geometry", "airborne", "--pulses", "512", "--samples", "512",
                 "--seed", "11", "--snr", "30"],
    # Spaceborne at 700 km, FX, 16-bit integer samples (the scaled-integer reader).
    "space.cphd": ["--scene", "points", "--geometry", "spaceborne", "--pulses", "384", "--samples", "384",
                   "--seed", "5", "--snr", "20", "--format", "ci2"],
    # Stripmap chirp echoes (RAW: the matched filter), simulated in memory by `form`.
    "raw.ini": ["--geometry", "stripmap", "--domain", "raw", "--pulses", "256", "--samples", "4096",
                "--seed", "3", "--snr", "25"],
}

ALGOS = ("bp", "ffbp", "fbp", "pfa")
PRECISIONS = ("fp64", "fp32", "fp16")
WINDOWS = ("rect", "taylor", "hann", "hamming")


def cases():
    """(name, input, form arguments): each input through every algorithm and precision, with the windows,
    orders, upsampling factors and blocks varied between runs so that each of them is exercised."""
    inputs = [
        # input, ROI, spacing, upsampling factors, blocks for bp/pfa
        ("air.cphd", "-12,-4,4,12", "0.125", (16, 8, 4), (64, 100)),
        ("space.cphd", "-8,-8,8,8", "0.25", (8, 4, 2), (32, 96)),
        ("raw.ini", "-8,-8,8,8", "0.125", (4, 2, 8), (64, 128)),
        ("gotcha", "-10,-10,10,10", "0.1", (8, 16, 4), (64, 50)),
    ]
    out = []
    for src, roi, spacing, ups, blocks in inputs:
        k = 0
        for algo in ALGOS:
            for prec in PRECISIONS:
                fast = algo in ("ffbp", "fbp")
                block = (256, 512)[k % 2] if fast else blocks[k % 2]
                args = ["--backend", "cpu", "--algo", algo, "--precision", prec, "--roi", roi,
                        "--spacing", spacing, "--window", WINDOWS[k % 4],
                        "--azimuth-window", WINDOWS[(k + 1) % 4], "--upsample", str(ups[k % 3]),
                        "--block", str(block), "--order", ("sequential", "interleaved")[(k // 2) % 2],
                        "--threads", "2"]
                stem = src.split(".")[0]
                out.append((f"{stem}-{algo}-{prec}", src, args))
                k += 1
    # A quick look that skips pulses, on one thread.
    out.append(("air-bp-fp32-stride3", "air.cphd",
                ["--backend", "cpu", "--algo", "bp", "--precision", "fp32", "--roi", "-8,-8,8,8", "--spacing",
                 "0.125", "--window", "taylor", "--azimuth-window", "hann", "--upsample", "8", "--block", "64",
                 "--order", "sequential",
                 "--threads", "1", "--stride", "3"]))
    return out


def platform_key():
    """What decides the last bits: the machine, the vector unit the kernels choose, the C library."""
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    if {"avx512f", "avx512dq", "avx512vl"} <= flags:
        simd = "avx512"
    elif {"avx2", "fma"} <= flags:
        simd = "avx2"
    else:
        simd = "baseline"
    libc = "-".join(platform.libc_ver()) or "unknown-libc"
    return f"{platform.machine()}/{simd}/{libc}"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cphd_sha256(path):
    """The file's bytes, with the time it was written (CreationInfo's DateTime, of fixed length) blanked."""
    with open(path, "rb") as f:
        data = f.read()
    data = re.sub(rb"(<CreationInfo>.*?<DateTime>)([^<]*)(</DateTime>)",
                  lambda m: m.group(1) + b"-" * len(m.group(2)) + m.group(3), data, count=1, flags=re.S)
    return hashlib.sha256(data).hexdigest()


def sidecar_sha256(path):
    """The sidecar's content without its timings, in one canonical text."""
    with open(path) as f:
        side = json.load(f)
    extra = side.get("extra", {})
    for key in TIMINGS:
        extra.pop(key, None)
    # The input's path is where this run put it, not part of what was formed.
    extra.pop("input", None)
    text = json.dumps(side, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def cli(*args, cwd):
    p = subprocess.run([CLI] + list(args), cwd=cwd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"echoform-cli {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


def run_all(workdir, have_gotcha):
    """Runs every simulation and case in workdir; returns {key: sha256} and the keys that were skipped."""
    sums = {}
    skipped = {}
    for name, args in SIMULATIONS.items():
        cli("simulate", *args, "--threads", "2", "-o", name, cwd=workdir)
        if name.endswith(".cphd"):
            sums[name] = cphd_sha256(os.path.join(workdir, name))
    for name, src, args in cases():
        if src == "gotcha":
            if not have_gotcha:
                skipped[name + ".npy"] = skipped[name + ".json"] = f"the Gotcha data is not at {GOTCHA}"
                continue
            src = GOTCHA
        out = os.path.join(workdir, name + ".npy")
        cli("form", src, *args, "-o", out, cwd=workdir)
        sums[name + ".npy"] = sha256(out)
        sums[name + ".json"] = sidecar_sha256(os.path.join(workdir, name + ".json"))
    return sums, skipped


def load_store():
    stored = {}
    if os.path.exists(STORE):
        with open(STORE) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                plat, key, digest = line.split()
                stored.setdefault(plat, {})[key] = digest
    return stored


def save_store(stored):
    with open(STORE, "w") as f:
        f.write("# SHA-256 of echoform-cli's outputs for the runs in test-form-checksums.py, one set per platform\n"
                "# (machine/vector unit/C library). `.json` lines are the sidecars without their timings.\n"
                "# Regenerate with: EF_CLI=build/app/cli/echoform-cli tests/test-form-checksums.py --update\n")
        for plat in sorted(stored):
            for key in sorted(stored[plat]):
                f.write(f"{plat} {key} {stored[plat][key]}\n")


def have_gotcha_data():
    return os.path.isdir(GOTCHA) and any(n.endswith(".mat") for n in os.listdir(GOTCHA))


def update():
    plat = platform_key()
    have_gotcha = have_gotcha_data()
    if not have_gotcha:
        print(f"test-form-checksums: the Gotcha data is not at {GOTCHA}; refusing to store a partial set",
              file=sys.stderr)
        return 1
    results = []
    for attempt in range(2):
        with tempfile.TemporaryDirectory(prefix="ef-checksums-") as tmp:
            results.append(run_all(tmp, have_gotcha)[0])
    differ = sorted(k for k in results[0] if results[0][k] != results[1].get(k))
    if differ:
        print("test-form-checksums: these outputs differ between two runs; not stored: " + ", ".join(differ),
              file=sys.stderr)
        return 1
    stored = load_store()
    stored[plat] = results[0]
    save_store(stored)
    print(f"test-form-checksums: stored {len(results[0])} checksums for {plat} (two runs, identical)")
    return 0


def main():
    if not CLI or not os.path.exists(CLI):
        print("Bail out! EF_CLI is not set to the echoform-cli binary")
        return 99
    if "--update" in sys.argv[1:]:
        return update()
    plat = platform_key()
    stored = load_store().get(plat)
    if stored is None:
        print(f"1..0 # SKIP no checksums stored for this platform ({plat}); make them from a trusted build "
              "with --update")
        return 0
    with tempfile.TemporaryDirectory(prefix="ef-checksums-") as tmp:
        try:
            sums, skipped = run_all(tmp, have_gotcha_data())
        except AssertionError as e:
            print("Bail out! " + str(e).splitlines()[0])
            for line in str(e).splitlines()[1:]:
                print("# " + line)
            return 1
    keys = sorted(set(stored) | set(sums) | set(skipped))
    print(f"1..{len(keys)}")
    failed = 0
    for i, key in enumerate(keys, 1):
        if key in skipped:
            print(f"ok {i} {key} # SKIP {skipped[key]}")
        elif key not in stored:
            failed += 1
            print(f"not ok {i} {key}\n# no checksum stored for it: run with --update from a trusted build")
        elif key not in sums:
            failed += 1
            print(f"not ok {i} {key}\n# stored, but no run made it")
        elif sums[key] != stored[key]:
            failed += 1
            print(f"not ok {i} {key}\n# sha256 {sums[key]}, stored {stored[key]}")
        else:
            print(f"ok {i} {key} {sums[key][:16]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
