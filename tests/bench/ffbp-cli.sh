#!/bin/sh
# ffbp-cli.sh: FFBP against exact BP end to end, as a user runs them: a CPHD file of the 2048-pulse airborne
# scene read, range-compressed and formed onto 1024 x 1024 pixels at 0.1 m on the CPU by `echoform-cli form`,
# timed whole by hyperfine; then the SER of the FFBP image against the BP image and, over the whole image,
# against float64 BP (one slow run, skipped with --no-fp64).
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: tests/bench/ffbp-cli.sh [--no-fp64] [CLI [RUNS]]   (CLI defaults to build/app/cli/echoform-cli)
set -eu

fp64=1
if [ "${1:-}" = "--no-fp64" ]; then
  fp64=0
  shift
fi
cli=$(realpath "${1:-build/app/cli/echoform-cli}")
runs=${2:-10}
here=$(dirname "$(realpath "$0")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v hyperfine > /dev/null || { echo "ffbp-cli.sh: hyperfine is needed (apt-get install hyperfine)" >&2; exit 77; }
"$cli" simulate -c "$here/airborne-2048.ini" -o "$tmp/scene.cphd" > /dev/null
form="$cli form $tmp/scene.cphd --roi -51.2,-51.2,51.2,51.2 --spacing 0.1 --backend cpu"

echo "$(date -u +%Y-%m-%dT%H:%MZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
     "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine -N -w 1 -r "$runs" "$form --algo bp -o $tmp/bp.npy" "$form --algo ffbp -o $tmp/ffbp.npy"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'FFBP against BP: '
"$cli" metrics "$tmp/ffbp.npy" --ref "$tmp/bp.npy" | grep SER
if [ "$fp64" = 1 ]; then
  $form --algo bp --precision fp64 -o "$tmp/bp64.npy" > /dev/null
  printf 'FFBP against float64 BP: '
  "$cli" metrics "$tmp/ffbp.npy" --ref "$tmp/bp64.npy" | grep SER
  printf 'BP against float64 BP: '
  "$cli" metrics "$tmp/bp.npy" --ref "$tmp/bp64.npy" | grep SER
fi
