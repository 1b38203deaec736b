#!/bin/sh
# autofocus-cli.sh: `echoform-cli form --autofocus` on a collection: each method's time, iterations, entropy and sharpness.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: tests/bench/autofocus-cli.sh [COLLECTION] (default: ../shared/data/gotcha-pass1-hh, formed as
# delivered, without the files' own af corrections). Environment: EF_CLI (the CLI), ROI (X0,Y0,X1,Y1 in
# metres), SIZE (the autofocus grid's side at most, pixels), SPACING (the image's), OUT (a folder for the
# images and the corrections files). Not run by the test suite: it takes seconds to minutes.
set -eu

cli=${EF_CLI:-build/app/cli/echoform-cli}
data=${1:-../shared/data/gotcha-pass1-hh}
roi=${ROI:--22,17,-9,26}
size=${SIZE:-128}
spacing=${SPACING:-0.1}
out=${OUT:-$(mktemp -d)}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores; $data, region $roi at $spacing m, autofocus grid <= ${size} px"
echo "| method | autofocus s | form s | iterations | entropy before | entropy after | sharpness before | sharpness after |"
echo "|---|---|---|---|---|---|---|---|"
for m in pga sharpness; do
  t0=$(date +%s.%N)
  "$cli" form "$data" --roi "$roi" --spacing "$spacing" --window rect --azimuth-window rect --backend cpu \
    --autofocus "$m" --autofocus-size "$size" --phase-out "$out/af-$m.json" -o "$out/$m.npy" --json \
    >"$out/$m.summary.json" 2>"$out/$m.log" || { cat "$out/$m.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 - "$out/$m.summary.json" "$out/$m.log" "$m" "$t0" "$t1" <<'PY'
import json, re, sys
run = json.load(open(sys.argv[1]))
af = run["autofocus"]
log = open(sys.argv[2]).read()
m = re.search(r"(\d+) iterations on .*\(([\d.]+) s[:)]", log)
total = float(sys.argv[5]) - float(sys.argv[4])
print(f"| {sys.argv[3]} | {m.group(2)} | {total - float(m.group(2)):.2f} | {m.group(1)} | {af['entropy_before']:.4f} | "
      f"{af['entropy_after']:.4f} | {af['sharpness_before']:.4g} | {af['sharpness_after']:.4g} |")
PY
done
echo "# images and corrections in $out"
