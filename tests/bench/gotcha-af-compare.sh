#!/bin/sh
# gotcha-af-compare.sh: a Gotcha region formed as delivered, with the files' af corrections, and with each autofocus; entropy, sharpness and magnitude correlation of each image.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: tests/bench/gotcha-af-compare.sh [COLLECTION] (default ../shared/data/gotcha-pass1-hh).
# Environment: EF_CLI, ROI (X0,Y0,X1,Y1 in metres), SPACING, SIZE (the autofocus grid's side at most),
# OUT (a folder for the images, PNGs and corrections), PYTHON (with numpy). Entropy and sharpness
# (sum |I|^4 / (sum |I|^2)^2) are of each whole formed image, not the autofocus grid; the correlation is
# that of the magnitudes against the image formed with the files' af corrections and against the one
# as delivered. Not run by the test suite: it takes a minute or more.
set -eu

cli=${EF_CLI:-build/app/cli/echoform-cli}
data=${1:-../shared/data/gotcha-pass1-hh}
roi=${ROI:--20,-20,20,20}
spacing=${SPACING:-0.1}
size=${SIZE:-256}
out=${OUT:-$(mktemp -d)}
py=${PYTHON:-python3}
common="--roi $roi --spacing $spacing --window rect --azimuth-window rect --backend cpu"

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores; $data, region $roi at $spacing m, autofocus grid <= $size px"
# Each image as .npy, then as a PNG formed again with the same corrections (the estimate is not repeated).
png () {
  # shellcheck disable=SC2086
  "$cli" form "$data" $common "$@" > /dev/null 2>> "$out/png.log"
}
# shellcheck disable=SC2086
"$cli" form "$data" $common -o "$out/delivered.npy" > /dev/null 2> "$out/delivered.log"
png -o "$out/delivered.png"
# shellcheck disable=SC2086
"$cli" form "$data" $common --gotcha-af -o "$out/af.npy" > /dev/null 2> "$out/af.log"
png --gotcha-af -o "$out/af.png"
for m in pga sharpness; do
  # shellcheck disable=SC2086
  "$cli" form "$data" $common --autofocus "$m" --autofocus-size "$size" --phase-out "$out/$m-phase.json" \
    -o "$out/$m.npy" > /dev/null 2> "$out/$m.log"
  png --phase-correction "$out/$m-phase.json" -o "$out/$m.png"
  # shellcheck disable=SC2086
  "$cli" form "$data" $common --gotcha-af --autofocus "$m" --autofocus-size "$size" --phase-out "$out/af+$m-phase.json" \
    -o "$out/af+$m.npy" > /dev/null 2> "$out/af+$m.log"
  png --gotcha-af --phase-correction "$out/af+$m-phase.json" -o "$out/af+$m.png"
done
"$py" - "$out" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
names = [("delivered", "as delivered"), ("af", "with the files' af"), ("pga", "delivered + PGA"),
         ("sharpness", "delivered + sharpness"), ("af+pga", "af + PGA"), ("af+sharpness", "af + sharpness")]
img = {k: np.abs(np.load(f"{d}/{k}.npy")).astype(np.float64) for k, _ in names}
def entropy(a):
    p = a**2 / np.sum(a**2)
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))
def sharp(a):
    return float(np.sum(a**4) / np.sum(a**2)**2)
def corr(a, b):
    a = a - a.mean(); b = b - b.mean()
    return float(np.sum(a * b) / np.sqrt(np.sum(a * a) * np.sum(b * b)))
print("| image | entropy | sharpness | magnitude correlation with the af image | with the delivered image |")
print("|---|---|---|---|---|")
for k, label in names:
    a = img[k]
    print(f"| {label} | {entropy(a):.4f} | {sharp(a):.4g} | {corr(a, img['af']):.4f} | {corr(a, img['delivered']):.4f} |")
PY
echo "# images in $out"
