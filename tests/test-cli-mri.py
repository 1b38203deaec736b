#!/usr/bin/env python3
# test-cli-mri.py: echoform-cli mri end to end: the phantom reconstructed three ways and with several coils, its .npy, bad options; info on its ISMRMRD file.
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import re
import subprocess
import sys
import tempfile

CLI = os.environ["EF_CLI"]
tests = []


def run(*args):
    return subprocess.run([CLI, "mri", *args], capture_output=True, text=True, timeout=240)


def nrmse(out):
    m = re.search(r"NRMSE against the phantom ([0-9.]+)", out)
    return float(m.group(1)) if m else None


def main():
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        npy = os.path.join(tmp, "cg.npy")
        errs = {}
        for method in ("gridding", "adjoint", "cg"):
            args = ["--size", "32", "--method", method, "--iters", "8"]
            if method == "cg":
                args += ["-o", npy]
            r = run(*args)
            errs[method] = nrmse(r.stdout)
            results.append((r.returncode == 0 and errs[method] is not None and errs[method] < 0.3,
                            f"{method}: exit {r.returncode}, NRMSE {errs[method]}"))
        # on a spiral with Pipe-Menon weights CG corrects what the weights miss (radial: all within 2%)
        sp = {m: nrmse(run("--size", "32", "--trajectory", "spiral", "--method", m, "--iters", "8").stdout)
              for m in ("gridding", "cg")}
        results.append((None not in sp.values() and sp["cg"] < 0.9 * sp["gridding"],
                        f"spiral: CG {sp['cg']} beats gridding {sp['gridding']} by 10%"))
        with open(npy, "rb") as f:
            head = f.read(128)
        ok = head.startswith(b"\x93NUMPY") and b"'<c16'" in head and b"(32, 32)" in head
        ok = ok and os.path.getsize(npy) == 128 + 32 * 32 * 16
        results.append((ok, "the .npy holds a 32 x 32 complex128 image"))
        # through an ISMRMRD file: the same samples (stored as float) give the same image (both with
        # Pipe-Menon weights: spiral)
        h5 = os.path.join(tmp, "phantom.h5")
        r = run("--size", "32", "--trajectory", "spiral", "--method", "adjoint", "--save-ismrmrd", h5,
                "-o", os.path.join(tmp, "a.npy"))
        if r.returncode == 2 and "ISMRMRD support" in r.stderr:
            results.append((True, "# SKIP no ISMRMRD support in this build"))
        else:
            r2 = run("--size", "32", "--method", "adjoint", "--ismrmrd", h5, "-o", os.path.join(tmp, "b.npy"))
            same = False
            if r.returncode == 0 and r2.returncode == 0:
                import array
                a, b = array.array("d"), array.array("d")
                with open(os.path.join(tmp, "a.npy"), "rb") as f:
                    f.seek(128)
                    a.frombytes(f.read())
                with open(os.path.join(tmp, "b.npy"), "rb") as f:
                    f.seek(128)
                    b.frombytes(f.read())
                num = sum((p - q) ** 2 for p, q in zip(a, b))
                den = sum(p * p for p in a)
                same = len(a) == len(b) == 2 * 32 * 32 and (num / den) ** 0.5 < 1e-6
            results.append((same, f"the phantom through an ISMRMRD file: exit {r.returncode}, {r2.returncode}, "
                                  "the same image"))
        # several coils: SENSE with estimated sensitivities about as good as with the true ones
        co = {}
        for mode in ("given", "estimate", "rss"):
            r = run("--size", "24", "--coils", mode, "--n-coils", "4", "--method", "cg", "--iters", "15")
            co[mode] = nrmse(r.stdout) if r.returncode == 0 else None
        results.append((None not in co.values() and co["estimate"] <= 1.2 * co["given"] and co["rss"] < 0.3,
                        f"4 coils, CG: NRMSE given {co['given']}, estimated {co['estimate']}, rss {co['rss']}"))
        h5c = os.path.join(tmp, "coils.h5")
        r = run("--size", "24", "--trajectory", "spiral", "--coils", "estimate", "--n-coils", "4", "--method",
                "adjoint", "--save-ismrmrd", h5c, "-o", os.path.join(tmp, "c.npy"))
        if r.returncode == 0:
            r2 = run("--size", "24", "--coils", "estimate", "--method", "adjoint", "--ismrmrd", h5c, "-o",
                     os.path.join(tmp, "d.npy"))
            same = False
            if r2.returncode == 0 and "4 coils" in r2.stdout:
                import array
                a, b = array.array("d"), array.array("d")
                with open(os.path.join(tmp, "c.npy"), "rb") as f:
                    f.seek(128)
                    a.frombytes(f.read())
                with open(os.path.join(tmp, "d.npy"), "rb") as f:
                    f.seek(128)
                    b.frombytes(f.read())
                num = sum((p - q) ** 2 for p, q in zip(a, b))
                den = sum(p * p for p in a)
                # float storage, and the estimate's 5% mask moving by a voxel at its edge: measured 4.3e-5
                same = len(a) == len(b) == 2 * 24 * 24 and (num / den) ** 0.5 < 8e-5
            results.append((same, f"4 coils through an ISMRMRD file: exit {r2.returncode}, the same image"))
            r3 = run("--coils", "given", "--ismrmrd", h5c)
            results.append((r3.returncode == 2 and "estimate or rss" in r3.stderr,
                            f"--coils given with a file: exit {r3.returncode}"))
        else:
            results.append((r.returncode == 2 and "ISMRMRD support" in r.stderr,
                            "# SKIP no ISMRMRD support in this build"))
        # info on the ISMRMRD file: what it holds, in text and JSON (the spiral: 16 arms of 256 samples)
        if os.path.exists(h5):
            import json
            ri = subprocess.run([CLI, "info", h5], capture_output=True, text=True, timeout=60)
            ok = ri.returncode == 0 and "2-D trajectory" in ri.stdout and "4096 per channel" in ri.stdout
            ok = ok and re.search(r"Channels:\s+1\n", ri.stdout) is not None and "normalised" in ri.stdout
            results.append((ok, f"info on an ISMRMRD file: exit {ri.returncode}"))
            rj = subprocess.run([CLI, "info", "--json", h5], capture_output=True, text=True, timeout=60)
            ok = rj.returncode == 0
            if ok:
                j = json.loads(rj.stdout)
                ok = (j["source"] == "ISMRMRD" and j["dimensions"] == 2 and j["samples"] == 4096
                      and j["channels"] == 1 and j["k_normalised"] and all(abs(v) <= 0.5 for v in j["k_max"])
                      and max(j["k_max"]) > 0.45)
            results.append((ok, f"info --json on an ISMRMRD file: exit {rj.returncode}"))
            bad = os.path.join(tmp, "junk.h5")
            with open(bad, "w") as f:
                f.write("not HDF5")
            rb = subprocess.run([CLI, "info", bad], capture_output=True, text=True, timeout=60)
            results.append((rb.returncode == 1 and "junk.h5" in rb.stderr, f"info on a bad .h5: exit {rb.returncode}"))
            # form on an ISMRMRD file: the mri reconstruction at the size the file implies (k in cycles per
            # field of view), the same image as mri itself; SAR options and other outputs refused.
            h5k = os.path.join(tmp, "cycles.h5")
            r = run("--size", "24", "--method", "adjoint", "--traj-scale", "1", "--save-ismrmrd", h5k)
            fa, fb = os.path.join(tmp, "form.npy"), os.path.join(tmp, "mri.npy")
            rf = subprocess.run([CLI, "form", h5k, "-o", fa], capture_output=True, text=True, timeout=120)
            rm = run("--ismrmrd", h5k, "--size", "24", "--traj-scale", "1", "-o", fb)
            same = False
            if r.returncode == 0 and rf.returncode == 0 and rm.returncode == 0:
                with open(fa, "rb") as f1, open(fb, "rb") as f2:
                    same = f1.read() == f2.read()
            results.append((same and "ISMRMRD (MRI) file" in rf.stderr,
                            f"form on an ISMRMRD file: exit {r.returncode}, {rf.returncode}, {rm.returncode}, "
                            "the same image as mri"))
            rs = subprocess.run([CLI, "form", h5k, "-o", fa, "--roi", "0,0,1,1"], capture_output=True, text=True,
                                timeout=60)
            rp = subprocess.run([CLI, "form", h5k, "-o", os.path.join(tmp, "x.png")], capture_output=True, text=True,
                                timeout=60)
            results.append((rs.returncode == 2 and "SAR options" in rs.stderr and rp.returncode == 2,
                            f"form on an ISMRMRD file with --roi, or to .png: exit {rs.returncode}, {rp.returncode}"))
        r = run("--coils", "all")
        results.append((r.returncode == 2 and "--coils" in r.stderr, f"a bad --coils: exit {r.returncode}"))
        r = run("--method", "fft")
        results.append((r.returncode == 2 and "--method" in r.stderr, f"a bad method: exit {r.returncode}"))
        r = run("--size", "100000")
        results.append((r.returncode == 2, f"a bad size: exit {r.returncode}"))
        r = run("--ismrmrd", os.path.join(tmp, "missing.h5"))
        results.append(((r.returncode == 1 and "missing.h5" in r.stderr)
                        or (r.returncode == 2 and "ISMRMRD support" in r.stderr),
                        f"a missing ISMRMRD file: exit {r.returncode}"))
    print(f"1..{len(results)}")
    for i, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {what}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
