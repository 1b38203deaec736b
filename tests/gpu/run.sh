#!/usr/bin/env bash
# tests/gpu/run.sh: build, test and benchmark the CUDA backend on a GPU machine, from the repository root.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/gpu/run.sh [all|test|bench|tune|ncu|none]...   (default: all = test bench tune ncu)
#
# Builds the engine and the CLI with -Dgui=disabled -Dcuda=enabled into $EF_BUILD (default
# /tmp/ef-build-gpu), runs the CUDA tests, compute-sanitizer (memcheck, racecheck) on the tiny case,
# the benchmarks with SER against float64 on sampled sub-rectangles, and optionally Nsight Compute on
# the backprojection kernels. Logs go to $OUT (default /tmp/ef-gpu-out); a short table is printed last.
#
# A machine without GLib's development files gets them from Debian packages in .gpu-debs/, unpacked
# into a private prefix (never into /): see the `deps` function.
#
# Environment: EF_GPU_ARCHS (default: the device's own, e.g. 90; "all" builds every release target),
# EF_BENCH_BIG=0 skips the 4096^2 x 8192 case.

set -u -o pipefail

ROOT=$(pwd)
OUT=${OUT:-/tmp/ef-gpu-out}
BUILD=${EF_BUILD:-/tmp/ef-build-gpu}
PREFIX=${EF_PREFIX:-/tmp/efprefix}
STEPS=${*:-all}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"

note () { echo "== $*"; echo "$*" >> "$SUMMARY"; }

if [ ! -f "$ROOT/meson.build" ] || [ ! -d "$ROOT/compute/cuda" ]; then
  echo "run.sh: run me from the repository root" >&2
  exit 2
fi

deps () {
  # GLib's headers and pkg-config files, from Debian 12 packages. Runtime libraries come from the
  # packages too, except libxml2, whose system runtime is used (the carried headers match it) so that
  # its ICU dependency stays the system's.
  if [ "${EF_FORCE_DEBS:-0}" = 0 ] && pkg-config --exists glib-2.0 gio-2.0 libxml-2.0 2>/dev/null; then
    echo "system GLib and libxml2 development files found"
    return 0
  fi
  if ! ls .gpu-debs/*.deb > /dev/null 2>&1; then
    echo "run.sh: no GLib development files and no .gpu-debs/ to unpack" >&2
    return 1
  fi
  rm -rf "$PREFIX"
  mkdir -p "$PREFIX"
  for f in .gpu-debs/*.deb; do
    case "$f" in
      */libxml2_*) continue ;;
    esac
    dpkg -x "$f" "$PREFIX"
  done
  local lib="$PREFIX/usr/lib/x86_64-linux-gnu"
  find "$PREFIX" -name '*.pc' -exec sed -i "s|^prefix=/usr\$|prefix=$PREFIX/usr|" {} +
  local sysxml
  sysxml=$(ls /usr/lib/x86_64-linux-gnu/libxml2.so.2* 2> /dev/null | head -1)
  if [ -n "$sysxml" ]; then
    ln -sf "$sysxml" "$lib/libxml2.so"
  fi
  # Debian's libpcre2, libffi and friends are only needed for their .pc files; their .so links would
  # shadow the system's, so drop the unversioned links whose targets were not carried.
  find "$lib" -maxdepth 1 -xtype l -name '*.so' -delete
  export PKG_CONFIG_PATH="$lib/pkgconfig:$PREFIX/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  # The programs find the carried GLib through their run path; nothing else (ncu, compute-sanitizer)
  # sees it.
  export LDFLAGS="-Wl,-rpath,$lib${LDFLAGS:+ $LDFLAGS}"
  export LIBRARY_PATH="$lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
  # libxml2's headers include ICU's.
  export CPATH="$PREFIX/usr/include${CPATH:+:$CPATH}"
  if ! command -v pkg-config > /dev/null; then
    export PKG_CONFIG="$PREFIX/usr/bin/pkgconf"
  fi
  pkg-config --modversion glib-2.0 gio-2.0 libxml-2.0 fftw3 fftw3f
}

build () {
  local archs=${EF_GPU_ARCHS:-}
  if [ -z "$archs" ]; then
    archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d '. ')
    archs=${archs:-90}
  fi
  note "build: gpu_archs=$archs"
  if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" "$ROOT" -Dgui=disabled -Dcuda=enabled -Ddemo=false -Dgpu_archs="$archs" \
      -Dbuildtype=debugoptimized > "$OUT/meson-setup.log" 2>&1 || { tail -40 "$OUT/meson-setup.log"; return 1; }
  fi
  ninja -C "$BUILD" tests/gpu/test-cuda tests/gpu/test-cuda-model tests/gpu/bench-cuda app/cli/echoform-cli \
    > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -40; tail -20 "$OUT/build.log"; return 1; }
  echo "built in $BUILD"
}

run_tests () {
  local t0=$SECONDS
  (cd "$BUILD" && G_DEBUG=fatal-warnings ./tests/gpu/test-cuda-model --tap) > "$OUT/test-cuda-model.log" 2>&1
  note "test-cuda-model: exit $? ($(grep -c '^ok' "$OUT/test-cuda-model.log") ok, $(grep -c '^not ok' "$OUT/test-cuda-model.log") not ok)"
  # One process per test, so that a crash in one still lets the others report.
  local rc=0 paths
  paths=$(cd "$BUILD" && ./tests/gpu/test-cuda -l 2> /dev/null | grep '^/')
  : > "$OUT/test-cuda.log"
  for p in $paths; do
    (cd "$BUILD" && G_DEBUG=fatal-warnings timeout 300 ./tests/gpu/test-cuda --tap -p "$p") >> "$OUT/test-cuda.log" 2>&1
    local prc=$?
    if [ $prc -ne 0 ]; then
      rc=$prc
      note "test-cuda $p: exit $prc"
    fi
  done
  note "test-cuda: exit $rc ($(grep -c '^ok' "$OUT/test-cuda.log") ok, $(grep -c '^not ok' "$OUT/test-cuda.log") not ok) in $((SECONDS - t0)) s"
  grep -E "^# .*(SER|PSNR|differs|blocks|note|device)" "$OUT/test-cuda.log" | head -80
  if [ $rc -ne 0 ]; then
    grep -E "ERROR|not ok|Bail" "$OUT/test-cuda.log" | head -20
  fi

  if command -v compute-sanitizer > /dev/null; then
    for tool in memcheck racecheck; do
      (cd "$BUILD" && compute-sanitizer --tool $tool --error-exitcode 9 \
         ./tests/gpu/test-cuda --tap -p /compute/cuda/tiny) > "$OUT/sanitizer-$tool.log" 2>&1
      local src=$?
      note "compute-sanitizer $tool on /compute/cuda/tiny: exit $src; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | tail -1)"
    done
  else
    note "compute-sanitizer: not found"
  fi
}

bench_one () {
  local label=$1; shift
  "$BUILD/tests/gpu/bench-cuda" --label "$label" "$@" >> "$OUT/bench.tsv" 2>> "$OUT/bench.log"
  local rc=$?
  [ $rc -ne 0 ] && note "bench $label: exit $rc"
  return 0
}

run_bench () {
  : > "$OUT/bench.tsv"
  : > "$OUT/bench.log"
  local t0=$SECONDS
  for p in fp32 fp16; do
    bench_one "2k-10km-$p" --edge 2048 --pulses 2048 --samples 2048 --precision $p --standoff 10e3 --block 1024
    if [ "${EF_BENCH_BIG:-1}" != 0 ]; then
      bench_one "4k-10km-$p" --edge 4096 --pulses 8192 --samples 4096 --precision $p --standoff 10e3 --block 2048
      bench_one "4k-700km-$p" --edge 4096 --pulses 8192 --samples 4096 --precision $p --standoff 700e3 --block 2048
    fi
  done
  note "benchmarks took $((SECONDS - t0)) s"
  # Every kernel shape on the large case, without the float64 check.
  for v in 1 2 3 4 5 6 7 8 9; do
    for p in fp32 fp16; do
      bench_one "shape$v-$p" --edge 4096 --pulses 2048 --samples 4096 --precision $p --standoff 10e3 --block 2048 \
        --variant $v --reps 2 --no-ser
    done
  done
}

run_tune () {
  # The tuner times every shape on a 4096^2 x 1024 problem and stores the fastest in the user cache.
  for p in fp32 fp16; do
    "$BUILD/tests/gpu/bench-cuda" --tune --edge 4096 --pulses 1024 --samples 4096 --precision $p \
      > "$OUT/tune-$p.txt" 2>&1
    note "tune $p: exit $?; $(grep fastest "$OUT/tune-$p.txt")"
  done
  cat "$OUT"/tune-*.txt
}

run_ncu () {
  if ! command -v ncu > /dev/null; then
    note "ncu: not found"
    return 0
  fi
  for p in fp32 fp16; do
    ncu --clock-control none -k regex:bp_fp --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats \
      --section WarpStateStats --section SchedulerStats \
      --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
      "$BUILD/tests/gpu/bench-cuda" --edge 4096 --pulses 1024 --samples 4096 --precision $p --block 1024 \
      --reps 1 --no-ser > "$OUT/ncu-$p.log" 2>&1
    note "ncu $p: exit $? (see ncu-$p.log)"
  done
}

table () {
  echo
  echo "label              device                     prec shape  kernel ms    BP/s (kernel)  BP/s (end to end)  SER dB  PSNR dB"
  awk -F'\t' '$1 == "RESULT" { split($3, d, " \\("); printf "%-18s %-26s %-4s %5s %10s %14s %18s %7s %8s\n", $2, d[1], $8, $9, $11, $12, $13, $16, $17 }' \
    "$OUT/bench.tsv" 2> /dev/null
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

deps || exit 1
build || exit 1
for s in $STEPS; do
  case $s in
    all) run_tests; run_bench; run_tune; run_ncu ;;
    tune) run_tune ;;
    test) run_tests ;;
    bench) run_bench ;;
    ncu) run_ncu ;;
    none) ;;
    *) echo "run.sh: unknown step $s" >&2 ;;
  esac
done
# Only a few files come back from a remote run: keep the logs in one archive.
(cd "$OUT" && tar czf logs.tar.gz --exclude=logs.tar.gz ./*.log ./*.txt ./*.tsv 2> /dev/null \
  && rm -f ./*.log gpu.txt)
echo
cat "$SUMMARY"
[ -s "$OUT/bench.tsv" ] && table
exit 0
