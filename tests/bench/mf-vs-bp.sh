#!/bin/sh
# mf-vs-bp.sh: BP's error against the exact matched filter as its range upsampling grows (2 to 32): SER over the
# whole image of BP (fp64 and fp32) against the fp64 matched filter, on a simulated scene and on a small region
# of the real Gotcha pass, formed on the CPU by `echoform-cli form` with the default windows (Taylor, both ways).
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: tests/bench/mf-vs-bp.sh [CLI [THREADS]]   (CLI defaults to build/app/cli/echoform-cli, THREADS to 2)
# The Gotcha rows need ../shared/data/gotcha-pass1-hh beside the checkout (EF_SHARED_DATA points elsewhere).
set -eu

cli=$(realpath "${1:-build/app/cli/echoform-cli}")
threads=${2:-2}
root=$(dirname "$(dirname "$(dirname "$(realpath "$0")")")")
gotcha=${EF_SHARED_DATA:-$root/../shared/data}/gotcha-pass1-hh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ser () { "$cli" metrics "$1" --ref "$2" 2> /dev/null | sed -n 's/^SER: *\([-0-9.inf]*\) dB/\1/p'; }

# table NAME INPUT FORM-ARGS: one row per upsampling.
table () {
  name=$1 input=$2
  shift 2
  t0=$(date +%s)
  "$cli" form "$input" "$@" --backend cpu -t "$threads" --algo mf --precision fp64 -o "$tmp/mf64.npy" > /dev/null 2>&1
  "$cli" form "$input" "$@" --backend cpu -t "$threads" --algo mf --precision fp32 -o "$tmp/mf32.npy" > /dev/null 2>&1
  t1=$(date +%s)
  echo "$name: fp64 and fp32 matched filters in $((t1 - t0)) s; fp32 MF against fp64 MF: $(ser "$tmp/mf32.npy" "$tmp/mf64.npy") dB"
  echo
  echo "| BP upsampling | BP fp64 vs MF fp64 (dB) | BP fp32 vs MF fp64 (dB) |"
  echo "|---|---|---|"
  for u in 2 4 8 16 32; do
    "$cli" form "$input" "$@" --backend cpu -t "$threads" --algo bp --precision fp64 -u "$u" -o "$tmp/bp64.npy" > /dev/null 2>&1
    "$cli" form "$input" "$@" --backend cpu -t "$threads" --algo bp --precision fp32 -u "$u" -o "$tmp/bp32.npy" > /dev/null 2>&1
    echo "| $u | $(ser "$tmp/bp64.npy" "$tmp/mf64.npy") | $(ser "$tmp/bp32.npy" "$tmp/mf64.npy") |"
  done
  echo
}

echo "$(date -u +%Y-%m-%dT%H:%MZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads threads;" \
     "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
cat > "$tmp/scene.ini" << 'INI'
[simulate]
scene=demo
geometry=airborne
pulses=512
samples=512
INI
table "Simulated (airborne demo scene, 512 pulses x 512 samples, 128 x 128 px at 0.125 m)" "$tmp/scene.ini" \
  --roi -8,-8,8,8 --spacing 0.125
if [ -d "$gotcha" ]; then
  table "Gotcha pass 1 HH (469 pulses x 424 samples, 100 x 100 px at 0.1 m about the calibration target)" "$gotcha" \
    --roi -20.6,16.6,-10.6,26.6 --spacing 0.1
else
  echo "Gotcha: $gotcha not found; skipped"
fi
