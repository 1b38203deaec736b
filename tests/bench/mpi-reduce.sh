#!/bin/sh
# mpi-reduce.sh: what combining the ranks' images costs in `echoform-cli form` under mpirun, by image size
# and rank count: the pulse decomposition's sum (MPI_Reduce, double, rank order) and the tile
# decomposition's gather (MPI_Gatherv), as form's JSON reports them (mpi.combine_s, rank 0's wall time).
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: tests/bench/mpi-reduce.sh CLI [EDGES] [RANKS]   (CLI built with -Dmpi=enabled)
#   EDGES  image edges in pixels (default "1024 2048 4096"); RANKS (default "2 4")
# One pulse per run (--stride), so that forming costs next to nothing and the combination is what is
# timed; best of 3. Prints a Markdown table.
set -eu
cli=${1:?usage: $0 CLI [EDGES] [RANKS]}
edges=${2:-1024 2048 4096}
ranks=${3:-2 4}
py=$(command -v /usr/bin/python3 || command -v python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
launch="-x OMP_WAIT_POLICY=passive --oversubscribe --allow-run-as-root --mca btl_vader_single_copy_mechanism none"
command -v ssh >/dev/null || launch="$launch --mca plm isolated"

"$cli" simulate --pulses 64 --samples 256 -o "$tmp/s.cphd" >/dev/null
echo "| edge | image MB (cf32) | ranks | decompose | combine s (best of 3) | MB/s of image |"
echo "|---|---|---|---|---|---|"
for e in $edges; do
  half=$(awk -v e="$e" 'BEGIN { printf "%g", e * 0.125 / 2 }')
  for n in $ranks; do
    for how in pulses tiles; do
      best=
      for _ in 1 2 3; do
        # shellcheck disable=SC2086
        t=$(mpirun $launch -np "$n" "$cli" form "$tmp/s.cphd" --backend cpu --threads 1 --spacing 0.125 \
              --roi "-$half,-$half,$half,$half" --stride 64 --decompose "$how" --json -o "$tmp/o.npy" 2>/dev/null \
            | "$py" -c 'import json, sys; print(json.load(sys.stdin)["mpi"]["combine_s"])')
        best=$(awk -v a="$t" -v b="${best:-1e30}" 'BEGIN { print (a < b) ? a : b }')
      done
      awk -v e="$e" -v n="$n" -v h="$how" -v t="$best" \
        'BEGIN { mb = e * e * 8 / 1e6; printf "| %d | %.0f | %d | %s | %.4f | %.0f |\n", e, mb, n, h, t, mb / t }'
    done
  done
done
