#!/usr/bin/env python3
# test-mpi.py: echoform-cli form under mpirun: both decompositions against the single process's image,
# reproducibility, refusals, failures on one rank that must end the whole run, and the CUDA device each
# rank asks for.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-mpi.py HOOKS (1 when the build has the test hooks). EF_CLI names echoform-cli, built with
# -Dmpi=enabled. Exits 77 (skipped) without mpirun or numpy. Images are float64 formations of a small
# simulated collection; SER is 10 log10(sum |ref|^2 / sum |img - ref|^2).

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

CLI = os.environ.get("EF_CLI")
MPIRUN = shutil.which("mpirun")
HOOKS = len(sys.argv) > 1 and sys.argv[1] == "1"
SER_MIN_DB = 120.0
# Local ranks only: without ssh (a minimal root), Open MPI's rsh launcher would refuse to start, and
# a container may not allow the shared-memory transport's single-copy mechanism.
LAUNCH = ["--mca", "btl_vader_single_copy_mechanism", "none"]
if shutil.which("ssh") is None and shutil.which("rsh") is None:
    LAUNCH += ["--mca", "plm", "isolated"]
# A run whose rank failed must end well inside this; a hang would not.
END_WITHIN_S = 60

failures = 0


def check(cond, name, detail=""):
    global failures
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        failures += 1
        for line in str(detail).splitlines()[-20:]:
            print("     " + line)


def mpirun(n, *args, env=None, timeout=300):
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", str(n), *LAUNCH, CLI, *args]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    return r, time.monotonic() - t0


def single(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)


def ser_db(img, ref):
    img = img.astype(np.complex128)
    ref = ref.astype(np.complex128)
    err = np.sum(np.abs(img - ref) ** 2)
    return float("inf") if err == 0 else 10 * np.log10(np.sum(np.abs(ref) ** 2) / err)


def main():
    if not CLI or not os.access(CLI, os.X_OK):
        print("SKIP: EF_CLI does not name echoform-cli")
        return 77
    if MPIRUN is None:
        print("SKIP: mpirun is not installed (openmpi-bin)")
        return 77

    tmp = tempfile.mkdtemp(prefix="ef-mpi-")
    try:
        return run_all(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_all(tmp):
    def p(name):
        return os.path.join(tmp, name)

    r = single("simulate", "--scene", "demo", "--pulses", "512", "--samples", "256", "-o", p("d.cphd"))
    check(r.returncode == 0, "simulate a small collection", r.stderr)
    if r.returncode != 0:
        return 1
    # A grid whose pixel positions are exact (spacing and corners multiples of 1/8 m), where the row
    # bands' pixels are the whole region's to the last bit; and the default grid, where they are not.
    exact = ["--spacing", "0.125", "--roi", "-12,-12,12,12"]
    common = ["-p", "fp64", "-b", "cpu", "-t", "1"]
    refs = {}
    for name, grid in (("exact", exact), ("default", ["--roi", "-12,-12,12,12"])):
        r = single("form", p("d.cphd"), *common, *grid, "-o", p(f"ref-{name}.npy"))
        check(r.returncode == 0, f"single-process image ({name} grid)", r.stderr)
        refs[name] = np.load(p(f"ref-{name}.npy"))
    check(np.max(np.abs(refs["exact"])) > 0, "the reference image is not empty")

    for n in (1, 2, 4):
        for how in ("pulses", "tiles"):
            out = p(f"{how}-{n}.npy")
            r, _ = mpirun(n, "form", p("d.cphd"), *common, *exact, "--decompose", how, "--json", "-o", out)
            check(r.returncode == 0, f"{n} ranks, {how}: exit 0", r.stderr)
            if r.returncode != 0:
                continue
            summary = json.loads(r.stdout)
            check(summary.get("mpi", {}).get("ranks") == n and summary["mpi"].get("decompose") == how
                  and len(summary["mpi"].get("ran", [])) == n and summary["mpi"]["ran"][0] == "cpu fp64 bp"
                  and set(summary["mpi"]["ran"]) <= {"cpu fp64 bp", "nothing to form"},
                  f"{n} ranks, {how}: the summary says how the ranks shared it and what each ran", r.stdout)
            m = summary["mpi"]
            check(m.get("hosts") == [0] * n and m.get("local_ranks") == list(range(n))
                  and m.get("device_requested") == [None] * n and m.get("devices") == [[]] * n
                  and m.get("devices_shared") is False,
                  f"{n} ranks, {how}: one host, a local rank each, no device asked for or used on the CPU", m)
            with open(out[:-4] + ".json") as f:
                side = json.load(f)
            check(json.dumps(side).find('"ranks": %d' % n) >= 0, f"{n} ranks, {how}: the sidecar says so too")
            img = np.load(out)
            ser = ser_db(img, refs["exact"])
            print(f"     {n} ranks, {how}: SER {ser:.1f} dB against the single process")
            check(ser >= SER_MIN_DB, f"{n} ranks, {how}: SER >= {SER_MIN_DB} dB ({ser:.1f})")
            if how == "tiles":
                check(np.array_equal(img, refs["exact"]), f"{n} ranks, tiles: bit for bit the single process's")

    # The pulse sum is reduced in a fixed order: the same run gives the same bits.
    r1, _ = mpirun(4, "form", p("d.cphd"), *common, *exact, "--decompose", "pulses", "-o", p("again.npy"))
    check(r1.returncode == 0 and np.array_equal(np.load(p("again.npy")), np.load(p("pulses-4.npy"))),
          "4 ranks, pulses: a second run is bit for bit the first", r1.stderr)

    # On the default spacing, whose positions may round, the bands differ from the whole by rounding at most.
    r, _ = mpirun(2, "form", p("d.cphd"), *common, "--roi", "-12,-12,12,12", "--decompose", "tiles",
                  "-o", p("tiles-default.npy"))
    ser = ser_db(np.load(p("tiles-default.npy")), refs["default"]) if r.returncode == 0 else -1
    print(f"     2 ranks, tiles, default grid: SER {ser:.1f} dB")
    check(r.returncode == 0 and ser >= SER_MIN_DB, "2 ranks, tiles, default grid: SER >= 120 dB", r.stderr)

    # FFBP's sub-apertures are pulse blocks: shared whole between ranks, their images sum to one process's.
    r = single("form", p("d.cphd"), *common, *exact, "-a", "ffbp", "--block", "256", "-o", p("ffbp-1.npy"))
    r2, _ = mpirun(2, "form", p("d.cphd"), *common, *exact, "-a", "ffbp", "--block", "256",
                   "--decompose", "pulses", "-o", p("ffbp-2.npy"))
    ok = r.returncode == 0 and r2.returncode == 0
    ser = ser_db(np.load(p("ffbp-2.npy")), np.load(p("ffbp-1.npy"))) if ok else -1
    print(f"     2 ranks, ffbp, pulses: SER {ser:.1f} dB against one process's ffbp")
    check(ok and ser >= SER_MIN_DB, "2 ranks, ffbp, pulses: SER >= 120 dB", r.stderr + r2.stderr)

    # auto: rows when every rank gets at least 64 of them (192 rows: 2 ranks yes, 4 no), and for PFA.
    for n, algo, want in ((2, "bp", "tiles"), (4, "bp", "pulses"), (4, "pfa", "tiles")):
        r, _ = mpirun(n, "form", p("d.cphd"), *common, *exact, "-a", algo, "--json", "-o", p("auto.npy"))
        got = json.loads(r.stdout).get("mpi", {}).get("decompose") if r.returncode == 0 else r.stderr
        check(got == want, f"auto on {n} ranks, {algo}, 192 rows: {want} (got {got})")

    # Under mpirun each rank of a host asks for its own CUDA device (local rank modulo the host's devices)
    # unless --devices is given or the backend is the CPU; here, with none, auto forms on the CPU all the
    # same, and the image is the one process's.
    if HOOKS:
        fake = {"EF_TEST_MPI_CUDA_DEVICES": "3"}
        auto = ["-p", "fp64", "-t", "1"]
        r, _ = mpirun(4, "form", p("d.cphd"), *auto, *exact, "--decompose", "pulses", "--json",
                      "-o", p("pick.npy"), env=fake)
        m = json.loads(r.stdout).get("mpi", {}) if r.returncode == 0 else {}
        check(m.get("device_requested") == [0, 1, 2, 0] and m.get("devices") == [[]] * 4
              and m.get("ran") == ["cpu fp64 bp"] * 4 and m.get("devices_shared") is False,
              "4 ranks, 3 devices: ranks ask for devices 0, 1, 2, 0; they formed on the CPU", r.stdout + r.stderr)
        ser = ser_db(np.load(p("pick.npy")), refs["exact"]) if r.returncode == 0 else -1
        check(ser >= SER_MIN_DB, f"4 ranks, 3 devices, auto on the CPU: SER >= {SER_MIN_DB} dB ({ser:.1f})")
        for extra, what in ((["-b", "cpu"], "--backend cpu"), (["--devices", "1"], "--devices 1")):
            r, _ = mpirun(2, "form", p("d.cphd"), *auto, *extra, *exact, "--json", "-o", p("pick.npy"), env=fake)
            m = json.loads(r.stdout).get("mpi", {}) if r.returncode == 0 else {}
            check(m.get("device_requested") == [None, None],
                  f"2 ranks, 3 devices, {what}: no device is asked for (as in one process)", r.stdout + r.stderr)

    # PFA is not a sum over pulses: refused as a usage error, said once.
    r, _ = mpirun(2, "form", p("d.cphd"), *common, *exact, "-a", "pfa", "--decompose", "pulses", "-o", p("x.npy"))
    check(r.returncode != 0 and "not a sum over pulses" in r.stderr and r.stderr.count("echoform-cli:") == 1,
          "pfa with --decompose pulses is refused, once", r.stderr)
    check(not os.path.exists(p("x.npy")), "and no image is written")

    # A file that cannot be read ends every rank, with one message.
    r, dt = mpirun(2, "form", p("missing.cphd"), "-o", p("x.npy"), timeout=END_WITHIN_S)
    check(r.returncode != 0 and r.stderr.count("Cannot open") == 1,
          f"a missing file ends the run with one message ({dt:.1f} s)", r.stderr)
    with open(p("bad.cphd"), "wb") as f:
        f.write(b"CPHD/1.0.1\n" + os.urandom(4000))
    r, dt = mpirun(4, "form", p("bad.cphd"), "-o", p("x.npy"), timeout=END_WITHIN_S)
    check(r.returncode != 0 and r.stderr.count("echoform-cli: form:") == 1,
          f"a malformed file ends the run with one message ({dt:.1f} s)", r.stderr)

    # A rank that dies (as one killed by the system) ends the run; nobody waits for it for ever.
    if HOOKS:
        for how in ("pulses", "tiles"):
            try:
                r, dt = mpirun(2, "form", p("d.cphd"), *common, *exact, "--decompose", how, "-o", p("x.npy"),
                               env={"EF_TEST_MPI_DIE_RANK": "1"}, timeout=END_WITHIN_S)
                check(r.returncode != 0, f"rank 1 dying ({how}) ends the run with a failure ({dt:.1f} s)", r.stderr)
            except subprocess.TimeoutExpired:
                check(False, f"rank 1 dying ({how}) ends the run within {END_WITHIN_S} s: it hung")
        check(not os.path.exists(p("x.npy")), "and no image is written")
        # A rank that fails (memory, say) ends every rank; its message reaches the user once, via rank 0.
        for how in ("pulses", "tiles"):
            r, dt = mpirun(4, "form", p("d.cphd"), *common, *exact, "--decompose", how, "-o", p("x.npy"),
                           env={"EF_TEST_MPI_FAIL_RANK": "2"}, timeout=END_WITHIN_S)
            check(r.returncode == 1 and r.stderr.count("rank 2 of 4: Not enough memory") == 1
                  and r.stderr.count("echoform-cli:") == 1,
                  f"rank 2 failing ({how}) ends the run with its message, once ({dt:.1f} s)", r.stderr)
        check(not os.path.exists(p("x.npy")), "and no image is written")
        # A rank that leaves without agreeing (a bug's path) must not leave the others waiting for ever.
        try:
            r, dt = mpirun(2, "form", p("d.cphd"), *common, *exact, "--decompose", "pulses", "-o", p("x.npy"),
                           env={"EF_TEST_MPI_STRAY_RANK": "1"}, timeout=END_WITHIN_S)
            check(r.returncode != 0 and "did not finish with it" in r.stderr,
                  f"a rank that strays is ended by the closing barrier ({dt:.1f} s)", r.stderr)
        except subprocess.TimeoutExpired:
            check(False, f"a rank that strays: the run hung past {END_WITHIN_S} s")
    else:
        print("skip a rank that dies: the test hooks are not built (-Dtest_hooks=true)")

    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
