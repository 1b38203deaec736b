#!/usr/bin/env python3
# test-cli-stack.py: echoform-cli stack and ps end to end: a simulated stack, PS against its truth,
# tiling that changes nothing, passes formed from scene files, and bad input.
# SPDX-License-Identifier: GPL-3.0-or-later

import json
import os
import sys
import tempfile

from ef_tap import check, finish, run


def candidates(path):
    with open(path) as f:
        return {(c["col"], c["row"]): c for c in json.load(f)["candidates"]}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "a")
        b = os.path.join(tmp, "b")
        rc, out, err = run("stack", "simulate", a, "--size", "96x80", "--passes", "60", "--ps", "700", "--seed", "11")
        check("stack simulate", rc == 0 and os.path.exists(os.path.join(a, "truth.json")), err)
        rc, out, err = run("stack", "info", a, "--json")
        info = json.loads(out) if rc == 0 else {}
        check("stack info", rc == 0 and len(info.get("passes", [])) == 60 and info.get("width") == 96, err)

        # Detection, velocity and height against the simulator's truth: PS at 10-20 dB SCR, 60 passes over
        # two years (the limits README.md states: precision and recall 0.95, 1 mm/yr, 1 m).
        ca = os.path.join(tmp, "ca.json")
        rc, out, err = run("ps", a, "--truth", os.path.join(a, "truth.json"), "--json", "-o", ca)
        s = json.loads(out) if rc == 0 else {"truth": {}}
        t = s["truth"]
        print(f"# ps: {out.strip()}".replace("\n", " "))
        check("ps precision", t.get("precision", 0) >= 0.95, str(t))
        check("ps recall", t.get("recall", 0) >= 0.95, str(t))
        check("ps velocity rms", (t.get("velocity_rms_mm_yr") or 9) <= 1.0, str(t))
        check("ps height rms", (t.get("height_rms_m") or 9) <= 1.0, str(t))
        check("ps records what ran", s.get("backend") == "cpu" and s.get("estimator") == "periodogram", str(s))

        # Asked for CUDA: the device's scores give the same candidates; without a device the CPU runs them,
        # and the summary says so and why.
        rc, out, err = run("ps", a, "--backend", "cuda", "--json", "-o", os.path.join(tmp, "cg.json"))
        g = json.loads(out) if rc == 0 else {}
        if g.get("backend") == "cuda":
            x, y = candidates(ca), candidates(os.path.join(tmp, "cg.json"))
            check("ps on the device: the same candidates", x.keys() == y.keys(), str(g))
        else:
            check("ps without a device falls back and says why",
                  g.get("backend") == "cpu" and g.get("backend_requested") == "cuda" and g.get("backend_reason")
                  and "on the CPU" in err, out + err)

        # Tensor cores asked for: on a device they run (or the summary says why not); without one the
        # periodogram runs in fp32 and the summary and a warning say so.
        rc, out, err = run("ps", a, "--backend", "cuda", "--periodogram-precision", "tensor", "--devices", "1",
                           "--json", "-o", os.path.join(tmp, "ct.json"))
        g = json.loads(out) if rc == 0 else {}
        if g.get("backend") == "cuda":
            check("ps on tensor cores records what ran",
                  g.get("devices") == 1 and (g.get("periodogram_precision") == "tensor cores (fp16 in, fp32 sums)"
                                             or (g.get("periodogram_precision") == "fp32"
                                                 and g.get("periodogram_precision_reason"))), str(g))
        else:
            check("ps tensor cores without a device: fp32, and why",
                  g.get("periodogram_precision") == "fp32" and g.get("periodogram_precision_requested") == "tensor"
                  and "tensor cores need an accelerator" in (g.get("periodogram_precision_reason") or "")
                  and g.get("devices") == 0 and "periodogram ran in fp32" in err, out + err)
        rc, out, err = run("ps", a, "--periodogram-precision", "fp16")
        check("ps bad periodogram precision", rc == 2 and "fp32 or tensor" in err, err)
        rc, out, err = run("ps", a, "--devices", "65")
        check("ps bad device count", rc == 2, err)

        # The same scene in tiles of 32 (strips of 32 rows with halos): the same candidates and values.
        rc, out, err = run("stack", "simulate", b, "--size", "96x80", "--passes", "60", "--ps", "700", "--seed", "11",
                           "--tile", "32")
        cb = os.path.join(tmp, "cb.json")
        rc2, out, err2 = run("ps", b, "-o", cb)
        same = False
        if rc == 0 and rc2 == 0:
            x, y = candidates(ca), candidates(cb)
            same = x.keys() == y.keys() and all(
                abs(x[k]["score"] - y[k]["score"]) < 1e-6 and x[k]["connected"] == y[k]["connected"]
                and (not x[k]["connected"] or abs(x[k]["velocity_mm_yr"] - y[k]["velocity_mm_yr"]) < 1e-6)
                for k in x)
        check("tiles change nothing", same, err + err2)

        # Passes formed from scene files on one grid through the job.
        scene = os.path.join(tmp, "scene.ini")
        with open(scene, "w") as f:
            f.write("[simulate]\ngeometry=airborne\npulses=256\nsamples=256\ntargets=0,0,0;2,1,0\n")
        c = os.path.join(tmp, "c")
        rc, out, err = run("stack", "form", c, scene, scene, "--roi", "-4,-4,4,4", "--spacing", "0.25",
                           "--dates", "0,0.1", "--bperp", "0,12", "--range", "10000", "--incidence", "60",
                           "--backend", "cpu")
        rc2, out2, _ = run("stack", "info", c, "--json")
        ok = rc == 0 and rc2 == 0 and [p["bperp"] for p in json.loads(out2)["passes"]] == [0, 12]
        check("stack form", ok, err)
        with open(os.path.join(c, "stack.json")) as f:
            formed = json.load(f)["passes"][0]["formed"]
        check("stack form records what ran", formed.get("backend") == "cpu", str(formed))

        # Bad input: a clear message and the right exit code.
        rc, out, err = run("ps", os.path.join(tmp, "none"))
        check("ps on a missing stack", rc == 1 and "not a stack" in err, err)
        rc, out, err = run("stack", "simulate", a)
        check("stack simulate over a stack", rc == 1 and "holds a stack already" in err, err)
        rc, out, err = run("ps", a, "--velocity", "5,-5,10")
        check("ps bad grid", rc == 2, err)
        rc, out, err = run("ps", c, "--truth", os.path.join(a, "truth.json"))
        check("ps truth of another stack", rc == 1 and "does not describe" in err, err)
        with open(os.path.join(c, "stack.json"), "w") as f:
            f.write("{\"format\": \"echoform-stack\", \"version\": 1, \"width\": ")
        rc, out, err = run("stack", "info", c)
        check("stack info on a broken index", rc == 1 and "well-formed" in err, err)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
