#!/bin/sh
# autofocus-random-walk.sh: `echoform-cli form --autofocus` against a per-pulse random-walk phase error: the residual left.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: tests/bench/autofocus-random-walk.sh [RMS_RAD ...] (default 1 2 3). A simulated point-target scene
# (SCENE: airborne or spaceborne, 256 pulses of 128 samples, five targets) is formed through
# `--phase-correction` with a random walk of uniform steps (rid of its line, scaled to RMS_RAD; a fresh
# seed each run unless SEED is set) and `--autofocus METHOD` on top: the corrections file it writes is
# then the walk plus the estimate, and what is left of it about its line is the residual. Environment:
# EF_CLI, METHOD (pga or sharpness, default both), SCENE, SEED, OUT. Not run by the test suite.
set -eu

cli=${EF_CLI:-build/app/cli/echoform-cli}
scene_kind=${SCENE:-airborne}
out=${OUT:-$(mktemp -d)}
methods=${METHOD:-pga sharpness}
[ $# -gt 0 ] || set -- 1 2 3

cat >"$out/scene.ini" <<INI
[simulate]
geometry=$scene_kind
pulses=256
samples=128
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
targets=0,0,0,1;4,3.1,0,0.8;-4.6,2.2,0,0.7;2.7,-4.4,0,0.9;-2.9,-3.3,0,0.6
INI
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores; $scene_kind, 256 pulses x 128 samples, 5 targets"
echo "| method | injected rad | residual rad | iterations | autofocus grid | estimate s |"
echo "|---|---|---|---|---|---|"
for rms in "$@"; do
  python3 - "$rms" "$out/walk.json" <<'PY'
import json, random, sys
rms, n = float(sys.argv[1]), 256
w, e = 0.0, []
for p in range(n):
    w += random.uniform(-1, 1)
    e.append(w)
def detrend(e):
    sx = sum(range(n)); sy = sum(e); sxx = sum(p * p for p in range(n)); sxy = sum(p * v for p, v in enumerate(e))
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
    return [v - a - b * p for p, v in enumerate(e)]
e = detrend(e)
s = (sum(v * v for v in e) / n) ** 0.5
json.dump({"format": "echoform-phase-correction", "version": 1, "n_pulses": n, "method": "random walk",
           "phase_rad": [v * rms / s for v in e]}, open(sys.argv[2], "w"))
PY
  for m in $methods; do
    "$cli" form "$out/scene.ini" --roi -8,-8,8,8 --spacing 0.1 --window rect --azimuth-window rect --backend cpu \
      --phase-correction "$out/walk.json" --autofocus "$m" --phase-out "$out/af-$m.json" -o "$out/$m.npy" \
      >/dev/null 2>"$out/$m.log" || { cat "$out/$m.log" >&2; exit 1; }
    python3 - "$out/af-$m.json" "$out/$m.log" "$m" "$rms" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))["phase_rad"]
n = len(e)
sx = sum(range(n)); sy = sum(e); sxx = sum(p * p for p in range(n)); sxy = sum(p * v for p, v in enumerate(e))
b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
res = (sum((v - a - b * p) ** 2 for p, v in enumerate(e)) / n) ** 0.5
log = open(sys.argv[2]).read()
m = re.search(r"(\d+) iterations on (\d+) x (\d+) pixels at ([\d.]+) m \(([\d.]+) s", log)
print(f"| {sys.argv[3]} | {float(sys.argv[4]):.2f} | {res:.4f} | {m.group(1)} | {m.group(2)} x {m.group(3)} at {m.group(4)} m | {m.group(5)} |")
PY
  done
done
echo "# corrections in $out"
