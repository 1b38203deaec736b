#!/usr/bin/env bash
# tests/gpu/run.sh: build, test and benchmark the CUDA backend on a GPU machine, from the repository root.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/gpu/run.sh [all|test|bench|multi|bands|e2e|file|tune|ncu|gl|pfa|ffbp|aperture|arcs|arcs-multi|mf|mri|mpi|none]...
#                    (default: all = test bench multi e2e tune ncu ffbp aperture)
#
# Builds the engine and the CLI with -Dgui=disabled -Dcuda=enabled -Dtest_hooks=true into $EF_BUILD (default
# /tmp/ef-build-gpu), then:
#   test   the CUDA tests (one process per test; the multi-device test skips on one GPU; test-cuda-autofocus:
#          PGA and sharpness estimated on the device against the CPU) and compute-sanitizer (memcheck,
#          racecheck) on the tiny case;
#   bench  the single-GPU benchmarks with complex SER against float64 over the whole image (float64
#          backprojection on the device, tests/gpu/ef-ref-bp.cu; fp16 too: its magnitude PSNR is printed
#          beside it, labelled), PASS/FAIL against RESULTS.md's figures less 3 dB, and every kernel shape on
#          the large case;
#   multi  with two or more GPUs: the large case on 1, 2, 4 and 8 devices (as many as there are), and
#          the speed-up of the image formed, summed and read back to the host (the image formed on the
#          devices alone beside it);
#   bands  (not in all) a launch cut into 4 bands of rows (the default), 8 and 1, on one device and on
#          all, twice each in turn: the multi-device case formed and read back (bench-cuda --row-bands);
#   e2e    a job (reader thread, pinned transfers, cuFFT, backprojection) over a synthetic dataset of
#          4x the device memory, against the kernel-only rate (EF_E2E_ARGS adds bench-job options);
#   file   (not in all) end to end from a CPHD file on this machine's disk, as large as the disk allows:
#          `echoform-cli form` through the reader against the kernel-only rate (see run_file);
#   tune   `echoform-cli tune` on every device;
#   ncu    the pulse loops' instructions per pixel (cuobjdump -sass, tests/gpu/sass-loops.py), and Nsight
#          Compute (--clock-control none) on the fp32 and fp16 kernels at a small size;
#   gl     (not in all) CUDA–OpenGL sharing on a headless EGL context: test-gl-cuda and its
#          frame-time benchmark (EF_GL_BENCH_ARGS adds options); needs .gl/*.deb and .gl/dev/*.deb.
#   pfa    (not in all) the polar format algorithm: test-cuda-pfa, and bench-cuda-pfa (4096^2 px x 8192
#          pulses x 4096 samples at 700 km, upsampling 16 and 2) against GPU backprojection at the same
#          upsampling, range compression included, and float64 over the whole image.
#   ffbp   FFBP and FBP on the GPU: test-ffbp-plan, test-cuda-ffbp (one process per test) and
#          compute-sanitizer memcheck on its tiny case; bench-cuda-ffbp against exact GPU backprojection
#          at 4096^2 px x 8192 pulses (10 km and 700 km) and 2048^2 x 2048, upsampling 8 (at 2, linear
#          interpolation of the profiles caps any fast algorithm near 24 dB from BP: timed, not scored);
#          x BP is taken on range compression plus formation, at the same upsampling.
#   aperture cross-range (aperture) weighting: test-cuda-aperture (device profiles against the CPU's,
#          every algorithm's sidelobes in both directions against each window's theory), and test-cuda's
#          cases of the range-compression kernels that the weighting passes through, unweighted.
#   arcs   (not in all) temporal arc coherence: test-cuda-arcs, bench-cuda-arcs at the poster's scale
#          (15,000 x 8,000 px, 100 passes, 5 x 5 window) for each mapping, the CPU and the periodogram
#          (on the folded grid, the full-grid kernels timed beside it), and ncu's counters for each
#          kernel (EF_ARCS_NCU=0 skips them).
#   arcs-multi (not in all) arc coherence on every GPU: test-cuda-arcs' stack-devices case (a stored
#          stack's PS network on one device, then two: the same bit for bit), and bench-cuda-arcs --devices
#          N (the poster's workload's strips shared among all N GPUs against one, in the same run, for
#          each mapping and the periodogram on CUDA and tensor cores; EF_ARCS_MULTI_ARGS adds options).
#   mf     (not in all) the exact matched filter: test-cuda-mf (one process per test; the device against
#          the CPU's fp64 matched filter, every launch shape against the float64 direct sum and the
#          default, the tuned shape in use) and compute-sanitizer memcheck on its small case and on every
#          shape; `echoform-cli tune --mf` on the benchmark's class (its table and winner into the
#          summary, the benchmark then runs the winner); bench-cuda-mf
#          (pixel-pulse-samples per second against BP's pixel-pulses on the same region, and BP's SER
#          against the matched filter) at 1024^2 px x 1024 pulses x 1024 samples, BP upsampling 8 and 2.
#   mri    (not in all) non-Cartesian reconstruction: test-cuda-mri (F^H d and Q against the CPU's float64),
#          and bench-cuda-mri at 64^3 voxels and 3.2 M samples: F^H d with every kernel shape, Q on the
#          doubled grid, seconds and sample-voxel pairs per second (EF_MRI_ARGS adds options).
#   mpi    (not in all) `echoform-cli form --backend cuda` under mpirun, one GPU per rank: Open MPI from
#          .gpu-debs/mpi/*.deb in its own prefix (EF_MPI_PREFIX), echoform-cli built with -Dmpi=enabled in
#          its own tree (EF_MPI_BUILD, default $EF_BUILD-mpi; asked for alone, the main build is skipped),
#          then 4096^2 px x 8192 pulses x 4096 samples on 1, 2 and 4 ranks (as many as there are GPUs),
#          pulses and tiles: wall time end to end, form's combine_s, each rank's device, and SER against
#          the one rank's image (a failure below 100 dB, or when a rank is not on a device of its own).
# EF_BUILD_TARGETS replaces the targets the build step makes (the default: the backprojection tests,
# benchmarks and the CLI).
# Logs go to $OUT (default /tmp/ef-gpu-out); a short table is printed last.
#
# Exit status: 0 only when every step asked for ran and passed and at least one test or checked
# benchmark passed; 1 when a test failed (a "not ok" line or a non-zero exit, including 77 for "no
# device": on this machine a skipped GPU test is a failure), a benchmark printed FAIL or failed to run,
# or nothing was tested at all. The last line says which.
#
# A machine without GLib's development files gets them from Debian packages in .gpu-debs/, unpacked
# into a private prefix (never into /): see the `deps` function. json-glib's (libjson-glib-dev and
# libjson-glib-1.0-0) go there too. tests/gpu/fetch-debs.sh gathers them all.
#
# Environment: EF_GPU_ARCHS (default: the device's own, e.g. 90; "all" builds every release target),
# EF_BENCH_BIG=0 skips the 4096^2 x 8192 case, EF_E2E_TIMEOUT (seconds, default 420) stops the
# streaming job early (it prints its rate every 10 s, so a stopped run still reports).

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

# What passed and what failed, over every step.
N_PASSED=0
N_SKIPPED=0
FAILURES=()
fail () { FAILURES+=("$*"); note "FAIL: $*"; }

# Judges one test program's run: its exit status and its TAP log (skips are "ok ... # SKIP"), and adds
# its results to the totals. 77 means it found no device.
judge_tap () {
  local name=$1 rc=$2 log=$3 ok bad skip
  skip=$(grep -cE '^ok .*# (SKIP|skip)' "$log")
  ok=$(($(grep -cE '^ok ' "$log") - skip))
  bad=$(grep -cE '^not ok ' "$log")
  N_PASSED=$((N_PASSED + ok))
  N_SKIPPED=$((N_SKIPPED + skip))
  note "$name: exit $rc ($ok ok, $bad not ok, $skip skipped)"
  if [ "$rc" -eq 77 ]; then
    fail "$name: no test ran (exit 77: $(grep -m1 -E 'SKIP|skip' "$log" | cut -c1-160))"
  elif [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ]; then
    fail "$name: exit $rc, $bad not ok"
  elif [ "$ok" -eq 0 ]; then
    fail "$name: no test passed"
  fi
}

# Runs every test path of a glib test program in its own process (a crash in one still lets the others
# report) into LOG; with no paths listed (the program found no device and registered nothing) runs it
# once so that its reason is logged. Judged as one program.
run_paths () {
  local name=$1 dir=$2 prog=$3 log=$4 tmo=$5 rc=0 prc p paths
  : > "$log"
  paths=$(cd "$dir" && "./$prog" -l 2> /dev/null | grep '^/')
  if [ -z "$paths" ]; then
    (cd "$dir" && G_DEBUG=fatal-warnings timeout "$tmo" "./$prog" --tap) >> "$log" 2>&1
    rc=$?
  fi
  for p in $paths; do
    (cd "$dir" && G_DEBUG=fatal-warnings timeout "$tmo" "./$prog" --tap -p "$p") >> "$log" 2>&1
    prc=$?
    if [ $prc -ne 0 ]; then
      rc=$prc
      note "$name $p: exit $prc"
    fi
  done
  judge_tap "$name" "$rc" "$log"
}

# Judges a benchmark's run: its exit status and the PASS / FAIL lines it printed into LOG.
judge_bench () {
  local name=$1 rc=$2 log=$3 fails
  fails=$(grep -cE '^FAIL' "$log")
  if [ "$rc" -eq 77 ]; then
    fail "$name: did not run (exit 77: no device)"
  elif [ "$rc" -ne 0 ]; then
    fail "$name: exit $rc"
  elif [ "$fails" -ne 0 ]; then
    fail "$name: $fails FAIL line(s)"
  fi
  return 0
}

if [ ! -f "$ROOT/meson.build" ] || [ ! -d "$ROOT/compute/cuda" ]; then
  echo "run.sh: run me from the repository root" >&2
  exit 2
fi

deps () {
  # GLib's headers and pkg-config files, from Debian 12 packages. Runtime libraries come from the
  # packages too, except libxml2, whose system runtime is used (the carried headers match it) so that
  # its ICU dependency stays the system's.
  if [ "${EF_FORCE_DEBS:-0}" = 0 ] && pkg-config --exists glib-2.0 gio-2.0 libxml-2.0 json-glib-1.0 2>/dev/null; then
    echo "system GLib, json-glib and libxml2 development files found"
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
  # DT_RPATH rather than DT_RUNPATH: it also serves the libraries' own dependencies (json-glib needs GIO).
  export LDFLAGS="-Wl,--disable-new-dtags,-rpath,$lib${LDFLAGS:+ $LDFLAGS}"
  export LIBRARY_PATH="$lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
  # libxml2's headers include ICU's.
  export CPATH="$PREFIX/usr/include${CPATH:+:$CPATH}"
  if ! command -v pkg-config > /dev/null; then
    export PKG_CONFIG="$PREFIX/usr/bin/pkgconf"
  fi
  pkg-config --modversion glib-2.0 gio-2.0 libxml-2.0 json-glib-1.0 fftw3 fftw3f
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
      -Dtest_hooks=true -Dbuildtype=debugoptimized > "$OUT/meson-setup.log" 2>&1 || { tail -40 "$OUT/meson-setup.log"; return 1; }
  fi
  # shellcheck disable=SC2086
  ninja -C "$BUILD" ${EF_BUILD_TARGETS:-tests/gpu/test-cuda tests/gpu/test-cuda-model tests/gpu/bench-cuda \
    tests/gpu/bench-job app/cli/echoform-cli tests/gpu/test-cuda-mf tests/gpu/bench-cuda-mf} \
    > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -40; tail -20 "$OUT/build.log"; return 1; }
  echo "built in $BUILD"
}

run_tests () {
  local t0=$SECONDS rc
  (cd "$BUILD" && G_DEBUG=fatal-warnings ./tests/gpu/test-cuda-model --tap) > "$OUT/test-cuda-model.log" 2>&1
  judge_tap test-cuda-model $? "$OUT/test-cuda-model.log"
  run_paths test-cuda "$BUILD" tests/gpu/test-cuda "$OUT/test-cuda.log" "${EF_TEST_TIMEOUT:-300}"
  note "test-cuda took $((SECONDS - t0)) s"
  grep -E "^# .*(SER|PSNR|differs|blocks|note|device|SKIP)" "$OUT/test-cuda.log" | head -80
  grep -E "ERROR|not ok|Bail" "$OUT/test-cuda.log" | head -20
  # Autofocus estimated on the device against the CPU's estimate.
  if ninja -C "$BUILD" tests/gpu/test-cuda-autofocus > "$OUT/build-autofocus.log" 2>&1; then
    run_paths test-cuda-autofocus "$BUILD" tests/gpu/test-cuda-autofocus "$OUT/test-cuda-autofocus.log" 300
    grep -E "^# [a-z]|^not ok|ERROR" "$OUT/test-cuda-autofocus.log" | grep -vE "^# (random seed|Start|End|  target)" | head -30
  else
    grep -E "error|FAILED" "$OUT/build-autofocus.log" | head -20
    fail "test-cuda-autofocus: build failed"
  fi

  if command -v compute-sanitizer > /dev/null; then
    for tool in memcheck racecheck; do
      (cd "$BUILD" && timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 \
         ./tests/gpu/test-cuda --tap -p /compute/cuda/tiny) > "$OUT/sanitizer-$tool.log" 2>&1
      rc=$?
      note "compute-sanitizer $tool on /compute/cuda/tiny: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | tail -1)"
      judge_tap "compute-sanitizer $tool" "$rc" "$OUT/sanitizer-$tool.log"
    done
  else
    note "compute-sanitizer: not found"
  fi
}

bench_one () {
  local label=$1; shift
  local one="$OUT/bench-one.tsv"
  "$BUILD/tests/gpu/bench-cuda" --label "$label" "$@" > "$one" 2>> "$OUT/bench.log"
  local rc=$?
  cat "$one" >> "$OUT/bench.tsv"
  grep -E '^(PASS|FAIL) ' "$one"
  judge_bench "bench-cuda $label" $rc "$one"
  rm -f "$one"
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

n_gpus () {
  nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | grep -c .
}

run_multi () {
  local n
  n=$(n_gpus)
  if [ "$n" -lt 2 ]; then
    note "multi: $n GPU(s), skipped"
    return 0
  fi
  local t0=$SECONDS
  for p in fp32 fp16; do
    for d in 1 2 4 8; do
      [ "$d" -le "$n" ] || break
      bench_one "multi-4k-$p-${d}gpu" --edge 4096 --pulses 8192 --samples 4096 --precision $p --standoff 10e3 \
        --block 2048 --devices $d
    done
  done
  note "multi-GPU benchmarks took $((SECONDS - t0)) s"
  # Speed-up of N devices over one, on what a caller gets: the image formed, the partial images summed
  # and the whole image read back to the host (column 20); the image formed on the devices alone
  # (column 13) beside it.
  for p in fp32 fp16; do
    for d in 2 4 8; do
      [ "$d" -le "$n" ] || break
      awk -F'\t' -v p="$p" -v d="$d" '$1 == "RESULT" && $2 == "multi-4k-" p "-1gpu" { a = $13; ar = $20; r1 = $19 }
        $1 == "RESULT" && $2 == "multi-4k-" p "-" d "gpu" { b = $13; br = $20; rd = $19 }
        END { if (ar > 0 && br > 0) printf "multi %s: %d GPUs / 1 GPU = %.3f (formed, summed and read back to the host); %.3f counting the image formed on the devices only; read %.2f ms against %.2f on one\n", p, d, br / ar, b / a, rd, r1 }' \
        "$OUT/bench.tsv" >> "$SUMMARY"
    done
  done
  # The fast algorithms through the same backend over 1, 2, 4 devices (fp32; PFA in the spaceborne
  # geometry its far-field model is made for). The float64 reference is exact backprojection.
  for a in ffbp fbp pfa; do
    local so=10e3
    [ "$a" = pfa ] && so=700e3
    for d in 1 2 4 8; do
      [ "$d" -le "$n" ] || break
      bench_one "multi-4k-$a-${d}gpu" --algo $a --edge 4096 --pulses 8192 --samples 4096 --precision fp32 \
        --standoff $so --block 2048 --devices $d
    done
    for d in 2 4 8; do
      [ "$d" -le "$n" ] || break
      awk -F'\t' -v a="$a" -v d="$d" '$1 == "RESULT" && $2 == "multi-4k-" a "-1gpu" { a1 = $13; ar = $20; r1 = $19 }
        $1 == "RESULT" && $2 == "multi-4k-" a "-" d "gpu" { b = $13; br = $20; rd = $19; ser = $16 }
        END { if (ar > 0 && br > 0) printf "multi %s: %d GPUs / 1 GPU = %.3f (formed, summed and read back); %.3f formed only; read %.2f ms against %.2f on one; SER %s dB\n", a, d, br / ar, b / a1, rd, r1, ser }' \
        "$OUT/bench.tsv" >> "$SUMMARY"
    done
  done
  grep "^multi " "$SUMMARY"
}

# Bands of rows a launch is cut into, 4 (the default) against 8 and 1, on one device and on all: the
# read of the last block's first bands overlaps its later ones, and what stays exposed is the last
# band's. fp32 at the multi-device case, twice each in turn, the first time with the float64 check.
run_bands () {
  local n t0=$SECONDS
  n=$(n_gpus)
  for d in 1 "$n"; do
    for r in 1 2; do
      for b in 4 8 1; do
        bench_one "bands-${d}gpu-${b}b-r$r" --edge 4096 --pulses 8192 --samples 4096 --precision fp32 \
          --standoff 10e3 --block 2048 --devices "$d" --row-bands "$b" $([ "$r" = 2 ] && echo --no-ser)
      done
    done
    [ "$n" -gt 1 ] || break
  done
  note "band benchmarks took $((SECONDS - t0)) s"
  # Formed and read back (column 20), the better of the two runs, and the speed-up on all devices.
  for b in 4 8 1; do
    awk -F'\t' -v b="$b" -v n="$n" '$1 == "RESULT" && $2 ~ "^bands-1gpu-" b "b-" { if ($20 > one) one = $20; if ($13 > f1) f1 = $13 }
      $1 == "RESULT" && $2 ~ "^bands-" n "gpu-" b "b-" { if ($20 > all) all = $20; if ($13 > fa) fa = $13; rd = $19 }
      END { if (one > 0) printf "bands %s: one device %.4g BP/s formed + read; %d devices %.4g (%.3f x, formed only %.3f x, read %.2f ms)\n", b, one, n, all, (one > 0 ? all / one : 0), (f1 > 0 ? fa / f1 : 0), rd }' \
      "$OUT/bench.tsv" >> "$SUMMARY"
  done
  grep "^bands " "$SUMMARY"
}

run_e2e () {
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout "${EF_E2E_TIMEOUT:-420}" "$BUILD/tests/gpu/bench-job" --label "e2e-3k-fp32" ${EF_E2E_ARGS:-} \
    > "$OUT/e2e.tsv" 2> "$OUT/e2e.log"
  local rc=$?
  note "e2e: exit $rc in $((SECONDS - t0)) s"
  # 124: stopped by EF_E2E_TIMEOUT, by design (it reports its rate as it goes).
  if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
    fail "e2e (bench-job): exit $rc"
  fi
  grep -E "^(job|backend alone|NVIDIA|bench-job)" "$OUT/e2e.log" | tail -6
  grep -E "^job: .* s for " "$OUT/e2e.log" >> "$SUMMARY"
}

run_file () {
  # End to end from a real file: a CPHD written by the simulator on this machine's disk (as large as the
  # disk and the simulator allow: it writes at most 2^31 samples, 17.2 GB of CF8; EF_FILE_GB to choose), formed by `echoform-cli form` through the CPHD reader into a
  # 4096^2 region on one device, against bench-cuda's kernel-only rate for the same image, samples,
  # spacing, standoff and range upsampling, in the same call. Warm: the file as the simulator left it in
  # the page cache; cold (EF_FILE_COLD=1, the default): after the page cache is dropped, so every byte
  # comes from the disk.
  local t0=$SECONDS dir=${EF_FILE_DIR:-/tmp/ef-file} free gb pulses u rc cli="$BUILD/app/cli/echoform-cli"
  mkdir -p "$dir"
  free=$(df -B1000000000 --output=avail "$dir" | tail -1 | tr -d ' ')
  gb=${EF_FILE_GB:-$((free - 8))}
  pulses=$(( gb * 1000000000 / (4096 * 8) ))
  [ "$pulses" -le $(( (1 << 31) / 4096 )) ] || pulses=$(( (1 << 31) / 4096 ))
  gb=$(( pulses * 4096 * 8 / 1000000000 ))
  note "file: $free GB free in $dir; simulating $pulses pulses x 4096 samples (CF8, $gb GB)"
  /usr/bin/time -f "simulate: %e s wall, %M KB max RSS" "$cli" simulate --pulses "$pulses" --samples 4096 \
    -o "$dir/big.cphd" > "$OUT/file-sim.log" 2>&1
  rc=$?
  cat "$OUT/file-sim.log"
  if [ $rc -ne 0 ]; then
    fail "file: simulate exit $rc"
    rm -f "$dir/big.cphd"
    return 0
  fi
  note "file: $(ls -l "$dir/big.cphd" | awk '{ printf "%.2f GB", $5 / 1e9 }') written in $((SECONDS - t0)) s"
  "$cli" info "$dir/big.cphd" > "$OUT/file-info.log" 2>&1 || fail "file: info exit $?"
  for u in ${EF_FILE_UPSAMPLE:-2 16}; do
    for temp in warm $( [ "${EF_FILE_COLD:-1}" = 1 ] && [ "$u" = 2 ] && echo cold ); do
      if [ "$temp" = cold ]; then
        sync
        echo 3 > /proc/sys/vm/drop_caches 2> /dev/null || { note "file: cannot drop the page cache"; continue; }
      fi
      /usr/bin/time -f "%e s wall, %M KB max RSS, %P CPU" "$cli" form "$dir/big.cphd" --roi -256,-256,256,256 \
        --spacing 0.125 --backend cuda --upsample "$u" --json -o "$dir/img.npy" > "$OUT/file-form-u$u-$temp.json" \
        2> "$OUT/file-form-u$u-$temp.log"
      rc=$?
      [ $rc -ne 0 ] && fail "file: form upsampling $u ($temp) exit $rc"
      note "file form u$u $temp: $(tr -d '\n ' < "$OUT/file-form-u$u-$temp.json" | grep -oE '"(elapsed_s|bp_per_s|pulses|backend|precision)":[^,}]+' | tr '\n' ' ') $(tail -1 "$OUT/file-form-u$u-$temp.log")"
    done
    bench_one "file-kernel-u$u" --edge 4096 --pulses 8192 --samples 4096 --upsample "$u" --spacing 0.125 \
      --standoff 10e3 --block 2048 --no-ser
    note "file kernel u$u: $(awk -F'\t' -v l="file-kernel-u$u" '$1 == "RESULT" && $2 == l { print "kernel " $12 " BP/s" }' "$OUT/bench.tsv")"
  done
  rm -f "$dir/big.cphd" "$dir/img.npy" "$dir/img.json"
  note "file step took $((SECONDS - t0)) s"
}

run_tune () {
  # echoform-cli tune times every shape on a 4096^2 x 1024 x 8192 problem, on every device, and stores
  # the fastest in the user cache.
  "$BUILD/app/cli/echoform-cli" tune --device all > "$OUT/tune.txt" 2>&1
  local rc=$?
  note "echoform-cli tune --device all: exit $rc; $(grep -c fastest "$OUT/tune.txt") tables; $(grep fastest "$OUT/tune.txt" | tr '\n' ' ')"
  [ $rc -ne 0 ] && fail "echoform-cli tune: exit $rc"
  cat "$OUT/tune.txt"
}

run_arcs () {
  # Temporal arc coherence: test-cuda-arcs (each mapping and the periodogram against the CPU), the
  # benchmark at the poster's scale (15,000 x 8,000 px, 100 passes, 5 x 5 window; EF_ARCS_ARGS adds
  # options), and Nsight Compute's counters for each kernel on one strip.
  local t0=$SECONDS rc k
  ninja -C "$BUILD" tests/gpu/test-cuda-arcs tests/gpu/bench-cuda-arcs > "$OUT/build-arcs.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-arcs.log" | head -30; fail "arcs: build failed"; return 0; }
  run_paths test-cuda-arcs "$BUILD" tests/gpu/test-cuda-arcs "$OUT/test-cuda-arcs.log" 200
  grep -E "^# [a-z]|^not ok|ERROR|CRITICAL" "$OUT/test-cuda-arcs.log" | grep -vE "^# (random seed|Start|End)" | head -40
  # shellcheck disable=SC2086
  timeout 300 "$BUILD/tests/gpu/bench-cuda-arcs" ${EF_ARCS_ARGS:-} > "$OUT/bench-arcs.txt" 2> "$OUT/bench-arcs.log"
  rc=$?
  note "bench-cuda-arcs: exit $rc in $((SECONDS - t0)) s"
  judge_bench "bench-cuda-arcs" $rc "$OUT/bench-arcs.txt"
  cat "$OUT/bench-arcs.txt"
  tail -5 "$OUT/bench-arcs.log"
  grep -E '^RESULT' "$OUT/bench-arcs.txt" >> "$SUMMARY"
  if command -v ncu > /dev/null && [ "${EF_ARCS_NCU:-1}" = 1 ]; then
    for k in ${EF_ARCS_NCU_KERNELS:-window_kernel soa_coherence_kernel graph_kernel periodogram_half_kernel periodogram_kernel periodogram_tc_kernel}; do
      timeout 90 ncu --clock-control none -k "$k" --launch-count 1 \
        --metrics smsp__warps_eligible.avg.per_cycle_active,sm__cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__bytes_read.sum.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,gpu__time_duration.sum \
        "$BUILD/tests/gpu/bench-cuda-arcs" --width 4096 --height 256 --strip 256 --no-cpu --pg-rows 16 \
        > "$OUT/ncu-arcs-$k.log" 2>&1
      note "ncu $k: exit $?"
      grep -E "^ *(smsp__|sm__|dram__|lts__|l1tex__|gpu__time)" "$OUT/ncu-arcs-$k.log" | sed "s/^ */ncu $k: /" | tee -a "$SUMMARY"
    done
  fi
  note "arcs step took $((SECONDS - t0)) s"
}

run_arcs_multi () {
  local t0=$SECONDS rc n
  n=$(n_gpus)
  ninja -C "$BUILD" tests/gpu/test-cuda-arcs tests/gpu/bench-cuda-arcs > "$OUT/build-arcs.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-arcs.log" | head -30; fail "arcs-multi: build failed"; return 0; }
  (cd "$BUILD" && G_DEBUG=fatal-warnings timeout 300 ./tests/gpu/test-cuda-arcs --tap \
    -p /compute/cuda/arcs/stack-devices) > "$OUT/test-cuda-arcs-multi.log" 2>&1
  rc=$?
  judge_tap test-cuda-arcs-multi $rc "$OUT/test-cuda-arcs-multi.log"
  grep -E "^# [a-z]|^ok|^not ok|ERROR|CRITICAL" "$OUT/test-cuda-arcs-multi.log" \
    | grep -vE "^# (random seed|Start|End)" | head -20
  if [ "$n" -lt 2 ]; then
    note "arcs-multi: $n GPU(s), the benchmark skipped"
    return 0
  fi
  # shellcheck disable=SC2086
  timeout 480 "$BUILD/tests/gpu/bench-cuda-arcs" --devices "$n" --no-cpu ${EF_ARCS_MULTI_ARGS:-} \
    > "$OUT/bench-arcs-multi.txt" 2> "$OUT/bench-arcs-multi.log"
  rc=$?
  note "bench-cuda-arcs --devices $n: exit $rc in $((SECONDS - t0)) s"
  judge_bench "bench-cuda-arcs --devices $n" $rc "$OUT/bench-arcs-multi.txt"
  cat "$OUT/bench-arcs-multi.txt"
  tail -5 "$OUT/bench-arcs-multi.log"
  grep -E '^RESULT' "$OUT/bench-arcs-multi.txt" >> "$SUMMARY"
  note "arcs-multi step took $((SECONDS - t0)) s"
}

run_mri () {
  # Non-Cartesian reconstruction: test-cuda-mri (each kernel shape against the CPU's float64 sums), then
  # bench-cuda-mri (goals on an H100: F^H d < 0.5 s, Q < 4 s).
  local t0=$SECONDS rc
  ninja -C "$BUILD" tests/gpu/test-cuda-mri tests/gpu/bench-cuda-mri app/cli/echoform-cli > "$OUT/build-mri.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-mri.log" | head -30; fail "mri: build failed"; return 0; }
  run_paths test-cuda-mri "$BUILD" tests/gpu/test-cuda-mri "$OUT/test-cuda-mri.log" 200
  grep -E "^# [A-Za-z]|^not ok|ERROR|CRITICAL" "$OUT/test-cuda-mri.log" | grep -vE "^# (random seed|Start|End)" | head -40
  # The shape that shape -1 runs: every shape timed per class (64^3's F^H d and Q, 2-D and 3-D), stored.
  timeout 300 "$BUILD/app/cli/echoform-cli" tune --mri > "$OUT/tune-mri.txt" 2>&1
  note "echoform-cli tune --mri: exit $?; $(grep fastest "$OUT/tune-mri.txt" | tr '\n' ' ')"
  cat "$OUT/tune-mri.txt"
  # shellcheck disable=SC2086
  timeout 400 "$BUILD/tests/gpu/bench-cuda-mri" ${EF_MRI_ARGS:-} > "$OUT/bench-mri.txt" 2> "$OUT/bench-mri.log"
  rc=$?
  note "bench-cuda-mri: exit $rc in $((SECONDS - t0)) s"
  judge_bench "bench-cuda-mri" $rc "$OUT/bench-mri.txt"
  cat "$OUT/bench-mri.txt"
  tail -5 "$OUT/bench-mri.log"
  grep -E '^(RESULT|PASS|FAIL)' "$OUT/bench-mri.txt" >> "$SUMMARY"
  # What limits each kind of kernel: the reference study's constant-memory tiles (shape 6) and the
  # shared-memory slices (EF_MRI_NCU_SHAPES), on the small problem, F^H d only.
  if command -v ncu > /dev/null && [ "${EF_MRI_NCU:-1}" = 1 ]; then
    local sh
    for sh in 6 ${EF_MRI_NCU_SHAPES:-14}; do
      timeout 120 ncu --clock-control none -k regex:"rotate_kernel|shared_kernel" --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis --section WarpStateStats \
        --section InstructionStats \
        --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active' \
        "$BUILD/tests/gpu/bench-cuda-mri" --small --no-q --check 1 --shape "$sh" > "$OUT/ncu-mri-$sh.log" 2>&1
      note "ncu mri shape $sh: exit $?"
      grep -E "(Compute \(SM\) Throughput|Issue Slots Busy|Achieved Occupancy|Duration|stalled_(imc_miss|short_scoreboard|long_scoreboard|wait|math_pipe_throttle|mio_throttle|no_instruction|not_selected|selected|barrier)_per|pipe_(fma|xu|alu|fp64|lsu|uniform|adu)_cycles|inst_executed_pipe_(fma|xu|alu|lsu|uniform|adu|fp64)\.avg)" \
        "$OUT/ncu-mri-$sh.log" | sed "s/^ */ncu mri $sh: /" | tee -a "$SUMMARY"
    done
  fi
  note "mri step took $((SECONDS - t0)) s"
}

run_ncu () {
  # The pulse loops' instruction counts, from the machine code.
  if command -v cuobjdump > /dev/null && command -v python3 > /dev/null; then
    cuobjdump -sass "$BUILD/compute/cuda/libef-compute-cuda.a" > "$OUT/bp-sass.txt" 2> /dev/null
    python3 "$ROOT/tests/gpu/sass-loops.py" "$OUT/bp-sass.txt" bp_fp32_kernel bp_fp16_kernel > "$OUT/sass-loops.txt" 2>&1
    rm -f "$OUT/bp-sass.txt"
    note "pulse loops (cuobjdump -sass): $(grep -c 'loop ' "$OUT/sass-loops.txt") found, see sass-loops.txt"
    grep -A1 "ILi16ELi4ELi32ELi8E" "$OUT/sass-loops.txt" | grep "loop" | head -4
  fi
  if ! command -v ncu > /dev/null; then
    note "ncu: not found"
    return 0
  fi
  # A small case: 2048^2 px x 1024 pulses x 4096 bins; the first launch (the warm-up block) is measured.
  local args=(--edge 2048 --pulses 1024 --samples 2048 --block 1024 --reps 1 --no-ser)
  for p in fp32 fp16; do
    timeout 240 ncu --clock-control none -k regex:bp_fp --launch-count 1 --section SpeedOfLight \
      --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats \
      --section WarpStateStats --section SchedulerStats --section InstructionStats \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active' \
      "$BUILD/tests/gpu/bench-cuda" "${args[@]}" --precision $p > "$OUT/ncu-$p.log" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
      # Without the pipe metrics, in case this ncu names them differently.
      timeout 240 ncu --clock-control none -k regex:bp_fp --launch-count 1 --section SpeedOfLight \
        --section Occupancy --section ComputeWorkloadAnalysis --section LaunchStats --section WarpStateStats \
        --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
        "$BUILD/tests/gpu/bench-cuda" "${args[@]}" --precision $p >> "$OUT/ncu-$p.log" 2>&1
      local rc2=$?
      [ $rc2 -ne 0 ] && fail "ncu $p: exit $rc, retried without the pipe metrics: exit $rc2"
      rc="$rc, retried: $rc2"
    fi
    note "ncu $p: exit $rc (see ncu-$p.log)"
    grep -E "Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers|Issue Slots Busy|Executed Ipc Active|^ *SM Busy|L1/TEX Hit|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|pipe_(xu|fma|alu|lsu|fp16|fmaheavy)|issue_stalled_(long_scoreboard|wait|dispatch|mio_throttle|short_scoreboard|math_pipe|barrier|not_selected)" \
      "$OUT/ncu-$p.log" | sed "s/^/ncu $p: /" | head -40
  done
}

# ---- gl: CUDA–OpenGL sharing on a headless EGL context (tests/gpu/test-gl-cuda.c) ----
# The EGL and GL loaders from .gl/*.deb go into / (the device's driver supplies the NVIDIA vendor
# library); libepoxy and the GL and EGL headers from .gl/dev/*.deb into a private prefix. gl_deps runs
# before the build when the gl step is asked for, so that the build finds libepoxy and makes render/.
GL_PREFIX=${EF_GL_PREFIX:-/tmp/efprefix-gl}

gl_deps () {
  if ! ls .gl/*.deb .gl/dev/*.deb > /dev/null 2>&1; then
    echo "run.sh: gl needs .gl/*.deb and .gl/dev/*.deb" >&2
    return 1
  fi
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  rm -rf "$GL_PREFIX"
  mkdir -p "$GL_PREFIX"
  for f in .gl/dev/*.deb; do dpkg -x "$f" "$GL_PREFIX"; done
  local lib="$GL_PREFIX/usr/lib/x86_64-linux-gnu"
  # Requires.private names x11, egl and gl, whose .pc files (and theirs) are not needed to link.
  sed -i -e "s|^prefix=/usr\$|prefix=$GL_PREFIX/usr|" -e '/^Requires.private/d' "$lib"/pkgconfig/*.pc
  export PKG_CONFIG_PATH="$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # cuda_gl_interop.h includes GL/gl.h, which a CUDA image may not have.
  export CPATH="${CPATH:+$CPATH:}$GL_PREFIX/usr/include"
  local vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$vendor" ]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
  fi
  echo "libepoxy $(${PKG_CONFIG:-pkg-config} --modversion epoxy); EGL vendor files: ${__EGL_VENDOR_LIBRARY_FILENAMES:-default}"
}

run_gl () {
  local t0=$SECONDS dir=$BUILD rc
  # The run path reaches only a program's direct dependencies; libepoxy and GIO pull in GObject, so the
  # carried GLib must be on the loader's path for these programs.
  if [ -d "$PREFIX/usr/lib/x86_64-linux-gnu" ]; then
    export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  if ! ninja -C "$dir" -t targets all 2> /dev/null | grep -q '^tests/gpu/test-gl-cuda:'; then
    # A build configured before libepoxy was there: one of its own.
    dir="$BUILD-gl"
    if [ ! -f "$dir/build.ninja" ]; then
      meson setup "$dir" "$ROOT" -Dgui=disabled -Dcuda=enabled -Ddemo=false -Dtest_hooks=true \
        -Dgpu_archs="${EF_GPU_ARCHS:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d '. ')}" \
        -Dbuildtype=debugoptimized > "$OUT/meson-setup-gl.log" 2>&1 || { tail -30 "$OUT/meson-setup-gl.log"; note "gl: setup failed"; return 0; }
    fi
  fi
  ninja -C "$dir" tests/gpu/test-gl-cuda > "$OUT/build-gl.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-gl.log" | head -30; fail "gl: build failed"; return 0; }
  # No list when it skips (no device, no EGL): one run then says why, and counts as a failure here.
  run_paths test-gl-cuda "$dir" tests/gpu/test-gl-cuda "$OUT/test-gl-cuda.log" 300
  grep -E "^# [^r]|^not ok|ERROR|skip" "$OUT/test-gl-cuda.log" | head -40
  # shellcheck disable=SC2086
  (cd "$dir" && timeout 300 ./tests/gpu/test-gl-cuda --bench ${EF_GL_BENCH_ARGS:-}) > "$OUT/bench-gl.txt" 2>&1
  rc=$?
  note "bench gl: exit $rc in $((SECONDS - t0)) s; $(grep -E '^(PASS|FAIL)' "$OUT/bench-gl.txt")"
  judge_bench "bench gl" $rc "$OUT/bench-gl.txt"
  cat "$OUT/bench-gl.txt"
}

run_pfa () {
  local t0=$SECONDS rc u
  ninja -C "$BUILD" tests/gpu/test-cuda-pfa tests/gpu/bench-cuda-pfa > "$OUT/build-pfa.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-pfa.log" | head -30; fail "pfa: build failed"; return 0; }
  (cd "$BUILD" && G_DEBUG=fatal-warnings timeout 600 ./tests/gpu/test-cuda-pfa --tap) > "$OUT/test-cuda-pfa.log" 2>&1
  judge_tap test-cuda-pfa $? "$OUT/test-cuda-pfa.log"
  grep -E "^# |^not ok|ERROR|CRITICAL" "$OUT/test-cuda-pfa.log" | grep -vE "^# (Start|End) of" | head -60
  : > "$OUT/bench-pfa.tsv"
  : > "$OUT/bench-pfa.log"
  for u in 16 2; do
    timeout 600 "$BUILD/tests/gpu/bench-cuda-pfa" --label "pfa-4k-700km-u$u" --upsample $u \
      > "$OUT/bench-pfa-one.tsv" 2>> "$OUT/bench-pfa.log"
    rc=$?
    cat "$OUT/bench-pfa-one.tsv" >> "$OUT/bench-pfa.tsv"
    judge_bench "bench-cuda-pfa upsampling $u" $rc "$OUT/bench-pfa-one.tsv"
  done
  rm -f "$OUT/bench-pfa-one.tsv"
  cat "$OUT/bench-pfa.log"
  grep -E '^(PASS|FAIL) ' "$OUT/bench-pfa.tsv"
  awk -F'\t' '$1 == "RESULT" { printf "%s: profile FFTs %s ms, gridding %s ms (global atomics %s), grid FFT %s ms, correction %s ms; formed in %s ms; BP kernel %s ms; with range compression (same upsampling) %.2fx BP, kernels alone %.2fx; SER vs BP %s dB, vs float64 (whole image) %s dB (BP %s dB)\n", $2, $10, $11, $12, $13, $14, $15, $17, $23, $24, $18, $25, $26 }' \
    "$OUT/bench-pfa.tsv" >> "$SUMMARY"
  note "pfa step took $((SECONDS - t0)) s"
}

run_ffbp () {
  local t0=$SECONDS rc p paths
  ninja -C "$BUILD" tests/gpu/test-cuda-ffbp tests/gpu/bench-cuda-ffbp tests/gpu/test-ffbp-plan > "$OUT/build-ffbp.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-ffbp.log" | head -30; fail "ffbp: build failed"; return 0; }
  (cd "$BUILD" && G_DEBUG=fatal-warnings ./tests/gpu/test-ffbp-plan --tap) > "$OUT/test-ffbp-plan.log" 2>&1
  judge_tap test-ffbp-plan $? "$OUT/test-ffbp-plan.log"
  run_paths test-cuda-ffbp "$BUILD" tests/gpu/test-cuda-ffbp "$OUT/test-cuda-ffbp.log" 300
  grep -E "^# [a-z]|^not ok|ERROR|CRITICAL" "$OUT/test-cuda-ffbp.log" | grep -vE "^# (random seed|device)" | head -60
  if command -v compute-sanitizer > /dev/null; then
    (cd "$BUILD" && timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
       ./tests/gpu/test-cuda-ffbp --tap -p /compute/cuda/ffbp/tiny) > "$OUT/sanitizer-ffbp.log" 2>&1
    rc=$?
    note "compute-sanitizer memcheck on /compute/cuda/ffbp/tiny: exit $rc; $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer-ffbp.log" | tail -1)"
    judge_tap "compute-sanitizer memcheck (ffbp)" "$rc" "$OUT/sanitizer-ffbp.log"
  fi
  # The CLI end to end: a simulated scene formed by FFBP on the device.
  printf '[simulate]\ngeometry=airborne\npulses=1024\nsamples=1024\ntargets=0,0,0;5,2,0;-7,4,0\n' > "$OUT/ffbp-scene.ini"
  "$BUILD/app/cli/echoform-cli" form "$OUT/ffbp-scene.ini" -o "$OUT/ffbp-cli.npy" --algo ffbp --backend cuda --block 1024 \
    --json > "$OUT/ffbp-cli.json" 2> "$OUT/ffbp-cli.log"
  rc=$?
  note "echoform-cli form --algo ffbp --backend cuda: exit $rc; $(tr -d '\n ' < "$OUT/ffbp-cli.json" | grep -oE '"backend":"[a-z]+"|"bp_per_s":[0-9.e+]+' | tr '\n' ' ')"
  if [ $rc -ne 0 ] || ! grep -q '"backend" *: *"cuda"' "$OUT/ffbp-cli.json"; then
    fail "echoform-cli form --algo ffbp --backend cuda: exit $rc, or not formed on the device"
  fi
  rm -f "$OUT/ffbp-cli.npy" "$OUT/ffbp-cli.json" "$OUT/ffbp-scene.ini"
  : > "$OUT/ffbp.tsv"
  : > "$OUT/bench-ffbp.log"
  for args in "--label ffbp-4k-10km --edge 4096 --pulses 8192 --standoff 10e3" \
              "--label ffbp-4k-700km --edge 4096 --pulses 8192 --standoff 700e3" \
              "--label ffbp-2k-10km --edge 2048 --pulses 2048 --standoff 10e3" \
              "--label ffbp-4k-10km-u2 --edge 4096 --pulses 8192 --upsample 2 --no-ser --only ffbp,ffbp16,fbp"; do
    # shellcheck disable=SC2086
    timeout 600 "$BUILD/tests/gpu/bench-cuda-ffbp" $args > "$OUT/ffbp-one.tsv" 2>> "$OUT/bench-ffbp.log"
    rc=$?
    cat "$OUT/ffbp-one.tsv" >> "$OUT/ffbp.tsv"
    judge_bench "bench-cuda-ffbp $args" $rc "$OUT/ffbp-one.tsv"
  done
  rm -f "$OUT/ffbp-one.tsv"
  grep -vE "rep [0-9]" "$OUT/bench-ffbp.log"
  grep -E '^(PASS|FAIL) ' "$OUT/ffbp.tsv"
  awk -F'\t' '$1 == "RESULT" && $8 != "bp" { printf "ffbp %s %s %s (upsampling %s): range compression + formation %s ms, x%s over GPU BP at the same upsampling (formation alone %s ms, x%s); SER %s dB vs BP, %s dB vs float64 (whole image)\n", $2, $8, $9, $27, $10, $12, $24, $25, $13, $14 }' \
    "$OUT/ffbp.tsv" >> "$SUMMARY"
  note "ffbp step took $((SECONDS - t0)) s"
}

run_aperture () {
  local t0=$SECONDS p rc=0 prc
  ninja -C "$BUILD" tests/gpu/test-cuda-aperture tests/gpu/test-cuda > "$OUT/build-aperture.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-aperture.log" | head -30; fail "aperture: build failed"; return 0; }
  run_paths test-cuda-aperture "$BUILD" tests/gpu/test-cuda-aperture "$OUT/test-cuda-aperture.log" 120
  grep -E "^# [a-z]|^not ok|ERROR|CRITICAL" "$OUT/test-cuda-aperture.log" | grep -vE "^# random seed" | head -60
  : > "$OUT/test-cuda-rc.log"
  for p in /compute/cuda/backend/profiles/fx /compute/cuda/backend/profiles/raw /compute/cuda/backend/scene/airborne-fx \
           /compute/cuda/backend/scene/spaceborne-fx /compute/cuda/backend/scene/airborne-raw \
           /compute/cuda/backend/point-targets/fp32 /compute/cuda/backend/bad-samples /compute/cuda/tiny; do
    (cd "$BUILD" && G_DEBUG=fatal-warnings timeout 120 ./tests/gpu/test-cuda --tap -p "$p") >> "$OUT/test-cuda-rc.log" 2>&1
    prc=$?
    if [ $prc -ne 0 ]; then
      rc=$prc
      note "test-cuda $p: exit $prc"
    fi
  done
  judge_tap "test-cuda (range compression)" "$rc" "$OUT/test-cuda-rc.log"
  grep -E "^# .*(SER|PSNR)|^not ok" "$OUT/test-cuda-rc.log" | head -20
  note "aperture step took $((SECONDS - t0)) s"
}

run_mf () {
  local t0=$SECONDS rc u
  ninja -C "$BUILD" tests/gpu/test-cuda-mf tests/gpu/bench-cuda-mf app/cli/echoform-cli > "$OUT/build-mf.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-mf.log" | head -30; fail "mf: build failed"; return 0; }
  run_paths test-cuda-mf "$BUILD" tests/gpu/test-cuda-mf "$OUT/test-cuda-mf.log" 300
  grep -E "^# [a-z]|^not ok|ERROR|CRITICAL" "$OUT/test-cuda-mf.log" | grep -vE "^# (random seed|Start|End)" | head -30
  if command -v compute-sanitizer > /dev/null; then
    (cd "$BUILD" && timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
       ./tests/gpu/test-cuda-mf --tap -p /compute/cuda/mf/vs-cpu-fp64/small) > "$OUT/sanitizer-mf.log" 2>&1
    rc=$?
    note "compute-sanitizer memcheck on /compute/cuda/mf/vs-cpu-fp64/small: exit $rc; $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer-mf.log" | tail -1)"
    [ $rc -eq 0 ] || fail "compute-sanitizer memcheck on test-cuda-mf: exit $rc"
    # Every launch shape, over partial tiles, constant-memory tiles and a pulse longer than a tile.
    (cd "$BUILD" && timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
       ./tests/gpu/test-cuda-mf --tap -p /compute/cuda/mf/shapes/short -p /compute/cuda/mf/shapes/long) \
       > "$OUT/sanitizer-mf-shapes.log" 2>&1
    rc=$?
    note "compute-sanitizer memcheck on /compute/cuda/mf/shapes/*: exit $rc; $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer-mf-shapes.log" | tail -1)"
    [ $rc -eq 0 ] || fail "compute-sanitizer memcheck on the matched filter's shapes: exit $rc"
  fi
  # Every launch shape timed on the benchmark's class (1024^2 px, 1024 samples a pulse), the fastest
  # stored: the benchmark below then runs it and names it. A second or two of device time.
  timeout 120 "$BUILD/app/cli/echoform-cli" tune --mf --edge 1024 --samples 1024 > "$OUT/tune-mf.txt" 2>&1
  rc=$?
  note "echoform-cli tune --mf: exit $rc"
  [ $rc -ne 0 ] && fail "echoform-cli tune --mf: exit $rc"
  cat "$OUT/tune-mf.txt"
  grep -E "^ *[0-9]+ +[0-9.]+ |^shape |^fastest|, matched filter, class" "$OUT/tune-mf.txt" | sed 's/^/tune mf: /' >> "$SUMMARY"
  : > "$OUT/bench-mf.txt"
  for u in 8 2; do
    timeout 300 "$BUILD/tests/gpu/bench-cuda-mf" --upsample $u ${EF_MF_ARGS:-} > "$OUT/bench-mf-one.txt" 2>> "$OUT/bench-mf.log"
    rc=$?
    cat "$OUT/bench-mf-one.txt" >> "$OUT/bench-mf.txt"
    judge_bench "bench-cuda-mf upsampling $u" $rc "$OUT/bench-mf-one.txt"
  done
  rm -f "$OUT/bench-mf-one.txt"
  grep -vE '^RESULT' "$OUT/bench-mf.txt"
  grep -E '^RESULT' "$OUT/bench-mf.txt" >> "$SUMMARY"
  # The shape the benchmark's matched filter ran: the tuned one above.
  grep -E '^# mf: shape' "$OUT/bench-mf.txt" | sort -u | sed 's/^# /bench-cuda-mf: /' >> "$SUMMARY"
  note "mf step took $((SECONDS - t0)) s"
}

ffbp_table () {
  echo
  echo "(rc+form: range compression and formation, device time; x BP on that, at the same upsampling; SER vs f64 over the whole image)"
  echo "label              algo prec   rc+form ms  BP-equiv/s  x BP  form ms  x BP (form)  SER vs BP  SER vs f64  leaves stages fused  leaves ms  merges ms  final ms"
  awk -F'\t' '$1 == "RESULT" { printf "%-18s %-4s %-4s %12s %11s %5s %8s %12s %10s %11s %7s %6s %5s %10s %10s %9s\n", $2, $8, $9, $10, $11, $12, $24, $25, $13, $14, $16, $17, $18, $21, $22, $23 }' \
    "$OUT/ffbp.tsv"
}

table () {
  echo
  echo "(SER: complex, over the whole image, against float64; mag PSNR: magnitudes only; formed+read: the image formed, summed and read back)"
  echo "label              device                     prec shape gpus  kernel ms    BP/s (kernel)  BP/s (formed)  BP/s (formed+read)  read ms  SER dB  mag PSNR dB"
  awk -F'\t' '$1 == "RESULT" { split($3, d, " \\("); printf "%-18s %-26s %-4s %5s %4s %10s %14s %14s %19s %8s %7s %12s\n", $2, d[1], $8, $9, ($18 == "" ? 1 : $18), $11, $12, $13, $20, ($19 == "" ? "-" : $19), $16, $17 }' \
    "$OUT/bench.tsv" 2> /dev/null
}

# ---- mpi: `echoform-cli form` under mpirun, one GPU per rank ----
# Open MPI 4.1 from .gpu-debs/mpi/*.deb (tests/gpu/fetch-debs.sh) in a private prefix, relocated there
# with OPAL_PREFIX; its own build tree ($EF_MPI_BUILD, default $BUILD-mpi: -Dmpi=enabled -Dcuda=enabled)
# makes echoform-cli. Every Open MPI program and echoform-cli run with MPI_ENV.
MPI_PREFIX=${EF_MPI_PREFIX:-/tmp/efprefix-mpi}
MPI_ENV=()

mpi_deps () {
  local usr="$MPI_PREFIX/usr" lib="$MPI_PREFIX/usr/lib/x86_64-linux-gnu" so name f
  # libnl-3-200 installs into /lib, the others into /usr/lib.
  local libs="$lib:$MPI_PREFIX/lib/x86_64-linux-gnu"
  if ! ls .gpu-debs/mpi/*.deb > /dev/null 2>&1; then
    echo "run.sh: mpi needs .gpu-debs/mpi/*.deb (tests/gpu/fetch-debs.sh)" >&2
    return 1
  fi
  rm -rf "$MPI_PREFIX"
  mkdir -p "$MPI_PREFIX"
  for f in .gpu-debs/mpi/*.deb; do
    dpkg -x "$f" "$MPI_PREFIX" || return 1
  done
  # What the packages' maintainer scripts make (update-alternatives), which dpkg -x does not run.
  ln -sf mpirun.openmpi "$usr/bin/mpirun"
  ln -sf mpicc.openmpi "$usr/bin/mpicc"
  ln -sf ../libpsm1/libpsm_infinipath.so.1.16 "$lib/libpsm_infinipath.so.1"
  # A library this machine has already (libudev, libuuid, libnuma, say) is the machine's: the carried
  # one, older maybe, would shadow it for every program on this LD_LIBRARY_PATH. Open MPI's and PMIx's
  # own always come from the prefix.
  ldconfig -p | awk '/x86-64/ { print $1 }' | sort -u > "$MPI_PREFIX/system-sonames.txt"
  for so in "$lib"/lib*.so.* "$MPI_PREFIX"/lib/x86_64-linux-gnu/lib*.so.*; do
    name=${so##*/}
    case $name in libmpi*|libopen-*|libmca_common_*|liboshmem*|libompitrace*|libpmix*) continue ;; esac
    if grep -qxF "$name" "$MPI_PREFIX/system-sonames.txt"; then
      rm -f "$so"
    fi
  done
  sed -i "s|^prefix=/usr\$|prefix=$usr|" "$lib"/openmpi/lib/pkgconfig/*.pc
  # OPAL_PREFIX relocates every directory Open MPI was built with under /usr (its libraries, components,
  # help files, the wrappers' data); OPAL_SYSCONFDIR its /etc/openmpi, whose Debian defaults leave UCX,
  # OFI and openib out. PMIx is found through LD_LIBRARY_PATH, its components (zlib compression) through
  # PMIX_MCA_mca_base_component_path: it has no relocation of its own that works here.
  MPI_ENV=(OPAL_PREFIX="$usr" OPAL_SYSCONFDIR="$MPI_PREFIX/etc/openmpi"
           PMIX_MCA_mca_base_component_path="$lib/pmix2/lib/pmix"
           PATH="$usr/bin:$PATH" LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
           PKG_CONFIG_PATH="$lib/openmpi/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
           OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0)
  env "${MPI_ENV[@]}" mpirun --version | head -1
  # shellcheck disable=SC2016 # expanded by sh, in MPI_ENV's environment
  env "${MPI_ENV[@]}" sh -c 'command -v mpirun; "${PKG_CONFIG:-pkg-config}" --modversion ompi-c'
}

# The SER of image $2 against image $1 (complex, the whole image), in dB: "inf" when they are equal,
# nothing when either cannot be read or their shapes differ.
mpi_ser () {
  python3 - "$1" "$2" << 'PY' 2>> "$OUT/mpi-python.log"
import sys
import numpy as np
a = np.load(sys.argv[1]).astype(np.complex128)
b = np.load(sys.argv[2]).astype(np.complex128)
if a.shape == b.shape:
    e = np.sum(np.abs(b - a) ** 2)
    print("inf" if e == 0 else "%.1f" % (10 * np.log10(np.sum(np.abs(a) ** 2) / e)))
PY
}

# From form's --json summary $1: "elapsed_s combine_s shared devices ran", devices as 0,1,... per rank
# ("-" for a rank not on CUDA) and ran "cuda" when every rank that formed did so on CUDA.
mpi_fields () {
  python3 - "$1" << 'PY' 2>> "$OUT/mpi-python.log"
import json, sys
s = json.load(open(sys.argv[1]))
m = s["mpi"]
devs = ",".join("+".join(str(d) for d in ds) or "-" for ds in m["devices"])
ran = "cuda" if all(r.startswith("cuda") for r in m["ran"] if r != "nothing to form") else "|".join(m["ran"])
print("%.3f %.3f" % (s["elapsed_s"], m["combine_s"]), "shared" if m["devices_shared"] else "own", devs, ran.replace(" ", "_"))
PY
}

run_mpi () {
  # A simulated collection (8192 pulses x 4096 samples, CF8, 268 MB: 13 point targets over the region)
  # formed into 4096 x 4096 px at 0.125 m by `echoform-cli form --backend cuda` under mpirun on R = 1, 2
  # and 4 ranks (no more than the GPUs), each decomposition; timed end to end (mpirun's start, every
  # rank's formation, the sum or gather, rank 0's write of the 134 MB .npy). Every image against the
  # one rank's, and every rank on a device of its own.
  local t0=$SECONDS dir=${EF_MPI_BUILD:-$BUILD-mpi} data=${EF_MPI_DIR:-/tmp/ef-mpi} n archs r how rc ser ref=
  local cli w0 w1 wall fields elapsed combine shared devs ran want
  local launch=(--oversubscribe --allow-run-as-root --bind-to none --mca plm isolated --mca pml ob1
                --mca btl "self,vader" --mca btl_vader_single_copy_mechanism none)
  local shm
  export NCCL_NVLS_ENABLE=0
  # A container's /dev/shm may be small (64 MB): the shared-memory transport's files go to /tmp then.
  shm=$(df -Pk /dev/shm 2> /dev/null | awk 'NR == 2 { print $4 }')
  if [ "${shm:-0}" -lt 1048576 ]; then
    launch+=(--mca btl_vader_backing_directory /tmp)
  fi
  mpi_deps > "$OUT/mpi-deps.log" 2>&1 || { cat "$OUT/mpi-deps.log"; fail "mpi: Open MPI could not be set up from .gpu-debs/mpi"; return 0; }
  note "mpi: $(head -1 "$OUT/mpi-deps.log") from $MPI_PREFIX ($(sed -n 2p "$OUT/mpi-deps.log"))"
  archs=${EF_GPU_ARCHS:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d '. ')}
  if [ ! -f "$dir/build.ninja" ]; then
    # libmpi.so's own dependencies are in the prefix: the linker finds them through -rpath-link.
    env "${MPI_ENV[@]}" LDFLAGS="-Wl,-rpath-link,$MPI_PREFIX/usr/lib/x86_64-linux-gnu:$MPI_PREFIX/lib/x86_64-linux-gnu${LDFLAGS:+ $LDFLAGS}" \
      meson setup "$dir" "$ROOT" -Dgui=disabled -Dcuda=enabled -Dmpi=enabled -Ddemo=false -Dtests=false \
      -Dgpu_archs="${archs:-90}" -Dbuildtype=debugoptimized > "$OUT/meson-setup-mpi.log" 2>&1 \
      || { tail -30 "$OUT/meson-setup-mpi.log"; fail "mpi: setup failed"; return 0; }
  fi
  env "${MPI_ENV[@]}" ninja -C "$dir" app/cli/echoform-cli > "$OUT/build-mpi.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build-mpi.log" | head -30; fail "mpi: build failed"; return 0; }
  note "mpi: built in $((SECONDS - t0)) s"
  cli="$dir/app/cli/echoform-cli"
  mkdir -p "$data"
  # echoform-cli needs the prefix's libmpi whatever it does.
  env "${MPI_ENV[@]}" "$cli" simulate --scene points --pulses 8192 --samples 4096 -o "$data/scene.cphd" \
    --targets "-200,-200,0;200,-200,0;-200,200,0;200,200,0;0,-230,0;0,230,0;-230,0,0;230,0,0" \
    > "$OUT/mpi-simulate.log" 2>&1 || { cat "$OUT/mpi-simulate.log"; fail "mpi: simulate failed"; return 0; }
  n=$(n_gpus)
  : > "$OUT/mpi.txt"
  for r in 1 2 4; do
    if [ "$r" -gt "$n" ]; then
      note "mpi: $r ranks skipped ($n GPU(s))"
      continue
    fi
    for how in pulses tiles; do
      w0=$(date +%s.%N)
      env "${MPI_ENV[@]}" timeout 300 mpirun "${launch[@]}" -np "$r" "$cli" form "$data/scene.cphd" \
        --roi -256,-256,256,256 --spacing 0.125 --backend cuda --block 1024 --decompose "$how" --json \
        -o "$data/img-$how-$r.npy" > "$OUT/mpi-$how-$r.json" 2> "$OUT/mpi-$how-$r.log"
      rc=$?
      w1=$(date +%s.%N)
      wall=$(awk -v a="$w0" -v b="$w1" 'BEGIN { printf "%.2f", b - a }')
      if [ $rc -ne 0 ]; then
        tail -5 "$OUT/mpi-$how-$r.log"
        fail "mpi: $r rank(s), $how: exit $rc"
        continue
      fi
      [ -n "$ref" ] || ref="$data/img-$how-$r.npy"
      ser=$(mpi_ser "$ref" "$data/img-$how-$r.npy")
      fields=$(mpi_fields "$OUT/mpi-$how-$r.json")
      read -r elapsed combine shared devs ran <<< "${fields:-? ? ? ? ?}"
      printf '%5s  %-9s %7s %9s %10s  %-8s %-6s %-5s %s\n' "$r" "$how" "$wall" "$elapsed" "$combine" "$devs" \
        "$shared" "$ran" "${ser:-?}" >> "$OUT/mpi.txt"
      # One device a rank, in rank order, when there are enough of them.
      want=$(seq -s, 0 $((r - 1)))
      if [ "$ran" != cuda ]; then
        fail "mpi: $r rank(s), $how: not every rank formed on CUDA ($ran)"
      elif [ "$devs" != "$want" ] || [ "$shared" != own ]; then
        fail "mpi: $r rank(s), $how: devices $devs ($shared), not one each ($want)"
      elif [ -z "$ser" ] || awk -v s="$ser" 'BEGIN { exit !(s != "inf" && s + 0 < 100) }'; then
        fail "mpi: $r rank(s), $how: SER ${ser:-?} dB against one rank's image (below 100 dB)"
      else
        N_PASSED=$((N_PASSED + 1))
      fi
      [ "$data/img-$how-$r.npy" = "$ref" ] || rm -f "$data/img-$how-$r.npy" "$data/img-$how-$r.json"
    done
  done
  {
    echo "mpi: 4096^2 px x 8192 pulses x 4096 samples, cuda fp32 bp, upsampling 16, block 1024; wall: mpirun end to end"
    echo "ranks  decompose  wall s    form s  combine s  devices  shared ran   SER dB vs 1 rank"
    cat "$OUT/mpi.txt"
  } | tee -a "$SUMMARY"
  rm -rf "$data"
  note "mpi step took $((SECONDS - t0)) s"
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

deps || exit 1
case " $STEPS " in *" gl "*) gl_deps || exit 1 ;; esac
# The mpi step builds a tree of its own: asked for alone, it needs nothing of the main one.
if [ "$STEPS" != mpi ]; then
  build || exit 1
fi
for s in $STEPS; do
  case $s in
    all) run_tests; run_bench; run_multi; run_e2e; run_tune; run_ncu; run_ffbp; run_aperture ;;
    tune) run_tune ;;
    test) run_tests ;;
    bench) run_bench ;;
    multi) run_multi ;;
    bands) run_bands ;;
    e2e) run_e2e ;;
    file) run_file ;;
    ncu) run_ncu ;;
    gl) run_gl ;;
    pfa) run_pfa ;;
    ffbp) run_ffbp ;;
    aperture) run_aperture ;;
    arcs) run_arcs ;;
    arcs-multi) run_arcs_multi ;;
    mf) run_mf ;;
    mri) run_mri ;;
    mpi) run_mpi ;;
    none) ;;
    *) fail "unknown step $s" ;;
  esac
done
# Only a few files come back from a remote run: keep the logs in one archive.
(cd "$OUT" && tar czf logs.tar.gz --exclude=logs.tar.gz ./*.log ./*.txt ./*.tsv 2> /dev/null \
  && rm -f ./*.log gpu.txt tune*.txt)
echo
cat "$SUMMARY"
[ -s "$OUT/bench.tsv" ] && table
[ -s "$OUT/ffbp.tsv" ] && ffbp_table
if [ -s "$OUT/e2e.tsv" ]; then
  echo
  echo "end to end     device            edge   pulses samples prec gpus dataset GB  dev GB  wall s   job BP/s  steady BP/s  kernel BP/s  % of kernel"
  awk -F'\t' '$1 == "E2E" { split($3, d, " \\("); printf "%-14s %-17s %5s %8s %7s %4s %4s %10s %7s %7s %10s %12s %12s %12s\n", $2, substr(d[1], 1, 17), $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $16 }' \
    "$OUT/e2e.tsv"
fi

# The verdict: checked benchmarks count as passed tests.
for f in "$OUT/bench.tsv" "$OUT/ffbp.tsv" "$OUT/bench-pfa.tsv" "$OUT/bench-gl.txt"; do
  [ -f "$f" ] && N_PASSED=$((N_PASSED + $(grep -cE '^PASS ' "$f")))
done
echo
if [ ${#FAILURES[@]} -gt 0 ]; then
  echo "run.sh: FAILED: ${#FAILURES[@]} failure(s), $N_PASSED passed, $N_SKIPPED skipped:"
  printf '  %s\n' "${FAILURES[@]}"
  exit 1
fi
if [ "$(echo $STEPS)" = none ]; then
  echo "run.sh: built; no step was asked for"
  exit 0
fi
if [ "$N_PASSED" -eq 0 ]; then
  echo "run.sh: FAILED: no test ran ($N_SKIPPED skipped)"
  exit 1
fi
echo "run.sh: PASSED: $N_PASSED passed, $N_SKIPPED skipped, 0 failed"
exit 0
