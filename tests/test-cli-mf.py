#!/usr/bin/env python3
# test-cli-mf.py: echoform-cli form --algo mf end to end: the record of what ran, BP against it, refusals.
# SPDX-License-Identifier: GPL-3.0-or-later

import json
import os
import re
import sys
import tempfile

from ef_tap import check, finish, run


def ser(image, ref):
    rc, out, err = run("metrics", image, "--ref", ref)
    m = re.search(r"^SER:\s+([-0-9.]+) dB", out, re.M)
    return float(m.group(1)) if rc == 0 and m else float("nan")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        scene = os.path.join(tmp, "scene.ini")
        with open(scene, "w") as f:
            f.write("[simulate]\ngeometry=airborne\npulses=96\nsamples=128\ntargets=0,0,0;3,-2,0\n")
        form = ["form", scene, "--roi", "-4,-4,4,4", "--spacing", "0.25", "--backend", "cpu", "-t", "2"]

        mf = os.path.join(tmp, "mf.npy")
        rc, out, err = run(*form, "--algo", "mf", "--json", "-o", mf)
        s = json.loads(out) if rc == 0 else {}
        check("form --algo mf", rc == 0, err)
        check("the record says the matched filter ran", s.get("algo") == "mf" and s.get("algo_requested") == "mf"
              and s.get("algo_reason") is None and s.get("backend") == "cpu", str(s))
        with open(mf[:-4] + ".json") as f:
            side = json.load(f)
        extra = side.get("extra", {})
        check("the sidecar says so too", extra.get("algo") == "mf" and extra.get("algo_requested") == "mf", str(extra))

        # BP's interpolation error against the matched filter falls as the upsampling grows.
        sers = []
        for u in (2, 32):
            bp = os.path.join(tmp, f"bp{u}.npy")
            rc, out, err = run(*form, "--algo", "bp", "-u", str(u), "-o", bp)
            sers.append(ser(bp, mf))
        print(f"# BP against MF: {sers[0]:.1f} dB at upsampling 2, {sers[1]:.1f} dB at 32")
        check("BP at upsampling 2 is near the matched filter", 20 <= sers[0] < 40, str(sers))
        check("BP at upsampling 32 is 70 dB from it", sers[1] >= 70, str(sers))

        # fp16 is a CUDA format: the CPU sums in fp32 and says so.
        rc, out, err = run(*form, "--algo", "mf", "--precision", "fp16", "--json", "-o", os.path.join(tmp, "h.npy"))
        s = json.loads(out) if rc == 0 else {}
        check("fp16 on the CPU runs fp32, recorded", rc == 0 and s.get("precision") == "fp32"
              and s.get("precision_reason"), str(s))

        # Chirp echoes are not frequency samples: refused with a message, not formed.
        raw = os.path.join(tmp, "raw.ini")
        with open(raw, "w") as f:
            f.write("[simulate]\ngeometry=airborne\ndomain=raw\npulses=16\nsamples=512\n")
        rc, out, err = run("form", raw, "--roi", "-2,-2,2,2", "--spacing", "0.5", "--backend", "cpu", "--algo", "mf",
                           "-o", os.path.join(tmp, "r.npy"))
        check("RAW data refused", rc != 0 and "FX" in err and "Traceback" not in err, err)
        rc, out, err = run(*form, "--algo", "kspace", "-o", os.path.join(tmp, "k.npy"))
        check("an unknown algorithm is a usage error", rc == 2 and "mf" in err, err)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
