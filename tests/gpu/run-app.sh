#!/usr/bin/env bash
# tests/gpu/run-app.sh: run the desktop program from .appbundle (tests/gpu/app-bundle.sh) under the bundled
# Xvfb, form a region of the demo collection and save a screenshot with the program's own batch hook.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bash tests/gpu/run-app.sh        (from the repository root; .appbundle and .gl carried)
#
# On the GPU machine: unpacks the GL loaders of .gl/*.deb into / (when the machine has no libGLX), the
# bundle into $EF_APP_DIR (default /tmp/appbundle), starts Xvfb with GLX on a free display, then runs
#   echoform demo.cphd --roi ... --zoom-roi --panel processing --screenshot $OUT/app-gpu.png
# with GDK_DEBUG=gl-glx and __GLX_VENDOR_LIBRARY_NAME=nvidia, the compute backend set to CUDA in a
# private settings file. When that run fails, or does not draw through CUDA-OpenGL sharing, it runs again
# with GDK_DEBUG=gl-egl (screenshot app-gpu-egl.png), and when neither does, once more with Mesa's software
# GLX (app-gpu-mesa.png), which tells the bundle and the CUDA backend apart from the GL driver. Everything
# goes to $OUT/app-gpu.log (and app-gpu-egl.log, app-gpu-mesa.log); a summary is printed last and kept in
# $OUT/summary.txt. Exit status 0 when a run drew the region through CUDA-OpenGL sharing.
# Xvfb runs xkbcomp from /usr/bin: a machine without one gets a link there to the bundle's.
#
# Environment:
#   OUT                 where the files go (default /tmp/ef-app-out)
#   EF_APP_DIR          where the bundle is unpacked (default /tmp/appbundle); EF_APP_REUSE=1 keeps an
#                       unpacked bundle that is already there
#   EF_APP_BACKEND      cuda (default), auto or cpu: the compute backend setting
#   EF_APP_GLX_VENDOR   GLX vendor library: nvidia (default) or mesa (the bundle's software renderer)
#   EF_APP_EGL          onfail (default), always or never: the second run through EGL
#   EF_APP_MESA         onfail (default) or never: when neither run drew through the GPU, a third one with
#                       Mesa's software GLX (app-gpu-mesa.png and .log)
#   EF_APP_ROI          X0,Y0,X1,Y1 in metres (default -25.6,-25.6,25.6,25.6)
#   EF_APP_TIMEOUT      seconds per run of the program (default 180)
#   EF_APP_PANEL        the sidebar page in the screenshot (default processing: it names the backend in use)
#   EF_APP_UNPACK_GL    auto (default: when ldconfig knows no libGLX.so.0), 1 or 0

set -u -o pipefail

ROOT=$(pwd)
OUT=${OUT:-/tmp/ef-app-out}
B=${EF_APP_DIR:-/tmp/appbundle}
BACKEND=${EF_APP_BACKEND:-cuda}
VENDOR=${EF_APP_GLX_VENDOR:-nvidia}
EGL=${EF_APP_EGL:-onfail}
ROI=${EF_APP_ROI:--25.6,-25.6,25.6,25.6}
TIMEOUT=${EF_APP_TIMEOUT:-180}
PANEL=${EF_APP_PANEL:-processing}
RUN=$B.run
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
LOG=$OUT/app-gpu.log
: > "$LOG"

note () { echo "$*" | tee -a "$SUMMARY"; }
log () { echo "== $*" >> "$LOG"; }

if [ ! -f "$ROOT/.appbundle/appbundle.tar.xz" ] && [ "${EF_APP_REUSE:-0}" != 1 ]; then
  echo "run-app.sh: no .appbundle/appbundle.tar.xz here; run tests/gpu/app-bundle.sh first and carry .appbundle" >&2
  exit 2
fi

# ---- the GL loaders (the driver brings only the vendor libraries) ----
unpack_gl=${EF_APP_UNPACK_GL:-auto}
if [ "$unpack_gl" = auto ]; then
  unpack_gl=0
  ldconfig -p 2> /dev/null | grep -q 'libGLX\.so\.0 ' || unpack_gl=1
fi
if [ "$unpack_gl" = 1 ]; then
  ls .gl/*.deb > /dev/null 2>&1 || { echo "run-app.sh: no GL loaders on this machine and no .gl/*.deb" >&2; exit 2; }
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  log "GL loaders unpacked from $(cd .gl && echo *.deb)"
fi

# ---- the bundle ----
t0=$SECONDS
if [ "${EF_APP_REUSE:-0}" != 1 ] || [ ! -x "$B/bin/echoform" ]; then
  rm -rf "$B"
  mkdir -p "$B"
  if command -v xz > /dev/null; then
    tar -xJf "$ROOT/.appbundle/appbundle.tar.xz" -C "$B" --strip-components=1
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      "$ROOT/.appbundle/appbundle.tar.xz" "$B.x" && cp -a "$B.x/appbundle/." "$B/" && rm -rf "$B.x"
  fi || { echo "run-app.sh: unpacking the bundle failed" >&2; exit 2; }
fi
sed -i "s|@BUNDLE@|$B|g" "$B/lib/gdk-pixbuf/loaders.cache"
log "bundle in $B ($(du -sm "$B" | cut -f1) MiB), unpacked in $((SECONDS - t0)) s"
rm -rf "$RUN"
mkdir -p "$RUN"/{config/glib-2.0/settings,cache,data,runtime}
chmod 700 "$RUN/runtime"

# libstdc++ and libgcc_s: the system's when it has them as new as the bundle's (a newer one serves the
# bundle's libraries, an older one would not), else the bundle's.
libpath=$B/lib
want=$(grep -ao 'GLIBCXX_3\.4\.[0-9]*' "$B/lib/compat/libstdc++.so.6" | sort -uV | tail -1)
sys_cxx=""
for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/lib64 /lib64; do
  if [ -e "$d/libstdc++.so.6" ] && [ -e "$d/libgcc_s.so.1" ] && grep -aq "$want" "$d/libstdc++.so.6"; then
    sys_cxx=$d/libstdc++.so.6
    break
  fi
done
[ -n "$sys_cxx" ] || libpath=$libpath:$B/lib/compat
for d in /usr/local/nvidia/lib64 /usr/local/cuda/lib64; do
  [ -d "$d" ] && libpath=$libpath:$d
done
# ldd through the loader itself: a shell run with the bundle's libraries could pick up ones older than its own.
ldso=/lib64/ld-linux-x86-64.so.2
libs_of () { "$ldso" --library-path "$libpath" --list "$1"; }
# cuFFT is not carried: the machine's CUDA, or a pip wheel of it.
if ! libs_of "$B/bin/echoform" | grep -q 'libcufft.*=> /'; then
  cufft=$(find / -xdev -name 'libcufft.so.1[0-9]' -not -path "$B/*" 2> /dev/null | head -1)
  [ -n "$cufft" ] && libpath=$libpath:$(dirname "$cufft")
fi
libpath=$libpath:$B/lib/cuda
# Only the bundle's programs get its libraries (Xvfb passes them on to xkbcomp); the machine's own tools
# keep theirs.
BLIB=$libpath
export LIBGL_DRIVERS_PATH=$B/lib/dri
export XKB_CONFIG_ROOT=$B/share/X11/xkb
export FONTCONFIG_FILE=$B/etc/fonts/fonts.conf
export GDK_PIXBUF_MODULE_FILE=$B/lib/gdk-pixbuf/loaders.cache
export GIO_MODULE_DIR=$B/lib/gio-modules
export GSETTINGS_SCHEMA_DIR=$B/share/glib-2.0/schemas
export GSETTINGS_BACKEND=keyfile
export XDG_CONFIG_HOME=$RUN/config XDG_CACHE_HOME=$RUN/cache XDG_DATA_HOME=$RUN/data XDG_RUNTIME_DIR=$RUN/runtime
export XDG_DATA_DIRS=$B/share XDG_CONFIG_DIRS=$B/etc/xdg
export HOME=${HOME:-$RUN}
export LANG=C.UTF-8
export NO_AT_BRIDGE=1 GTK_A11Y=none
# No session bus: the program then runs as a plain non-unique application.
export DBUS_SESSION_BUS_ADDRESS=unix:path=$RUN/no-bus
export ECHOFORM_DEMO_FILE=$B/share/echoform/demo.cphd
# The compute backend, through the keyfile settings backend (the in-memory one cannot be preset).
printf "[io/github/echoform/Echoform]\nbackend='%s'\n" "$BACKEND" > "$RUN/config/glib-2.0/settings/keyfile"

{
  echo "== machine"
  uname -a
  (. /etc/os-release 2> /dev/null && echo "$PRETTY_NAME")
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2> /dev/null || echo "no nvidia-smi"
  echo "library path of the bundle's programs: $BLIB"
  echo "libstdc++: ${sys_cxx:-from the bundle} (needs $want)"
  echo "== libraries of echoform, as the loader finds them"
  libs_of "$B/bin/echoform" | grep -v "=> $B/" || true
  echo "(and $(libs_of "$B/bin/echoform" | grep -c "=> $B/") from the bundle)"
} >> "$LOG" 2>&1
head -5 "$ROOT/.appbundle/MANIFEST.txt" >> "$LOG" 2> /dev/null

# ---- Xvfb ----
# It runs xkbcomp from its build-time folder, /usr/bin: a machine without one gets a link to the bundle's.
if [ ! -x /usr/bin/xkbcomp ]; then
  ln -sf "$B/bin/xkbcomp" /usr/bin/xkbcomp && log "linked /usr/bin/xkbcomp to the bundle's"
fi
xvfb_pid=""
cleanup () {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2> /dev/null
  return 0
}
trap cleanup EXIT
: > "$RUN/display"
LD_LIBRARY_PATH=$BLIB "$B/bin/Xvfb" -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset -fp built-ins \
  -xkbdir "$B/share/X11/xkb" +extension GLX +iglx 3> "$RUN/display" > "$RUN/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 1 100); do
  [ -s "$RUN/display" ] && break
  kill -0 "$xvfb_pid" 2> /dev/null || break
  sleep 0.1
done
if [ ! -s "$RUN/display" ]; then
  log "Xvfb did not start"
  cat "$RUN/xvfb.log" >> "$LOG"
  note "Xvfb: did not start (see app-gpu.log)"
  cat "$RUN/xvfb.log"
  exit 1
fi
DISPLAY=:$(head -1 "$RUN/display" | tr -d ' \n')
export DISPLAY
note "Xvfb: running on $DISPLAY"

# ---- GL facts, from the bundle's glxinfo and eglinfo ----
{
  echo "== glxinfo -B, GLX vendor $VENDOR"
  timeout 30 env LD_LIBRARY_PATH="$BLIB" __GLX_VENDOR_LIBRARY_NAME="$VENDOR" "$B/bin/glxinfo" -B 2>&1
  echo "(exit $?)"
} >> "$LOG"
# The EGL vendor file of a GLX vendor's driver (glvnd looks only in /usr/share and /etc by itself).
egl_file () {
  local f
  if [ "$1" = mesa ]; then
    echo "$B/share/glvnd/egl_vendor.d/50_mesa.json"
    return
  fi
  for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json \
           /etc/glvnd/egl_vendor.d/10_nvidia.json; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
}
egl_vendor_file=$(egl_file "$VENDOR")
{
  echo "== eglinfo (EGL vendor file: ${egl_vendor_file:-none found})"
  timeout 30 env LD_LIBRARY_PATH="$BLIB" __EGL_VENDOR_LIBRARY_FILENAMES="$egl_vendor_file" "$B/bin/eglinfo" 2>&1 \
    | grep -E -i "platform|version|vendor|renderer|error|fail" | head -40
  echo "(exit $?)"
} >> "$LOG"
{
  echo "== libraries mapped by Xvfb that are not the bundle's"
  awk '$6 ~ /\.so/ { print $6 }' "/proc/$xvfb_pid/maps" | sort -u | grep -v "^$B/" || true
  echo "(and $(awk '$6 ~ /\.so/ { print $6 }' "/proc/$xvfb_pid/maps" | sort -u | grep -c "^$B/") of the bundle's)"
} >> "$LOG" 2>&1
glx_line=$(grep -E "OpenGL (vendor|renderer) string" "$LOG" | sed 's/^ *//' | tr '\n' ';' | sed 's/;$//')
note "glxinfo ($VENDOR): ${glx_line:-no GLX context (see app-gpu.log)}"

# ---- the program ----
# run_app API VENDOR SHOT RUNLOG: one batch run through GDK's GLX or EGL and the GL vendor library
# VENDOR, with the libraries it mapped.
run_app () {
  local api=$1 vendor=$2 shot=$3 runlog=$4 pid rc maps=$RUN/maps-$1-$2 tag=$1
  [ "$vendor" = "$VENDOR" ] || tag="$api, $vendor"
  rm -f "$shot" "$maps"
  {
    echo "== echoform, GDK_DEBUG=gl-$api, backend '$BACKEND', GL vendor library $vendor, ROI $ROI"
    echo "$B/bin/echoform $ECHOFORM_DEMO_FILE --roi $ROI --zoom-roi --panel $PANEL --screenshot $shot"
  } >> "$runlog"
  LD_LIBRARY_PATH=$BLIB __GLX_VENDOR_LIBRARY_NAME=$vendor __EGL_VENDOR_LIBRARY_FILENAMES=$(egl_file "$vendor") \
    GDK_DEBUG=gl-$api \
    G_MESSAGES_DEBUG=ef-image-view,ef-main-window,ef-job-runner,echoform \
    "$B/bin/echoform" "$ECHOFORM_DEMO_FILE" --roi "$ROI" --zoom-roi --panel "$PANEL" --screenshot "$shot" \
    >> "$runlog" 2>&1 &
  pid=$!
  local t=$SECONDS
  while kill -0 "$pid" 2> /dev/null; do
    cp "/proc/$pid/maps" "$maps.new" 2> /dev/null && mv "$maps.new" "$maps"
    if [ $((SECONDS - t)) -ge "$TIMEOUT" ]; then
      echo "== timed out after $TIMEOUT s" >> "$runlog"
      kill "$pid" 2> /dev/null
      sleep 3
      kill -9 "$pid" 2> /dev/null
      break
    fi
    sleep 0.5
  done
  wait "$pid"
  rc=$?
  echo "== exit $rc after $((SECONDS - t)) s" >> "$runlog"
  if [ -s "$maps" ]; then
    {
      echo "== libraries mapped by echoform that are not the bundle's"
      awk '$6 ~ /\.so/ { print $6 }' "$maps" | sort -u | grep -v "^$B/" || true
      echo "(and $(awk '$6 ~ /\.so/ { print $6 }' "$maps" | sort -u | grep -c "^$B/") of the bundle's)"
    } >> "$runlog"
  fi
  # What GDK and the program said about GL, the display path and the backend.
  local gl path size="none"
  gl=$(grep -o "DEBUG: [0-9:.]*: GL: .*" "$runlog" | sed 's/^DEBUG: [0-9:.]*: GL: //' | sort -u | tr '\n' ';' | sed 's/;$//')
  path=$(grep -o "Display path.*" "$runlog" | sort -u | tr '\n' ';' | sed 's/;$//')
  if [ -s "$shot" ]; then
    size=$(od -An -tu1 -j16 -N8 "$shot" | awk '{ printf "%dx%d PNG, ", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }')
    size="$size$(stat -c %s "$shot") bytes"
  fi
  note "[$tag] exit $rc; GL renderer: ${gl:-none (see the log)}"
  note "[$tag] ${path:-no Display path line}"
  note "[$tag] screenshot ${shot##*/}: $size"
  grep -E "^echoform: |cannot start|WARNING|CRITICAL|ERROR" "$runlog" | grep -v "Failed to load icon" | sort -u \
    | head -5 | sed "s/^/[$tag] /" | tee -a "$SUMMARY"
  [ "$rc" = 0 ] && [ -s "$shot" ] && grep -q "Display path: CUDA-OpenGL sharing" "$runlog" \
    && ! grep -q "Display path for this image: host upload" "$runlog"
}

run_app glx "$VENDOR" "$OUT/app-gpu.png" "$LOG"
glx_ok=$?
egl_ok=""
if [ "$EGL" = always ] || { [ "$EGL" = onfail ] && [ $glx_ok != 0 ]; }; then
  : > "$OUT/app-gpu-egl.log"
  run_app egl "$VENDOR" "$OUT/app-gpu-egl.png" "$OUT/app-gpu-egl.log"
  egl_ok=$?
fi
# When neither drew through the GPU's GL, Mesa's software GLX tells the bundle and the compute backend
# apart from the GL driver: the region then forms as asked and reaches the view by host upload.
if [ "$VENDOR" != mesa ] && [ $glx_ok != 0 ] && [ "$egl_ok" != 0 ] && [ "${EF_APP_MESA:-onfail}" = onfail ]; then
  : > "$OUT/app-gpu-mesa.log"
  run_app glx mesa "$OUT/app-gpu-mesa.png" "$OUT/app-gpu-mesa.log"
fi

{
  echo "== Xvfb"
  cat "$RUN/xvfb.log"
} >> "$LOG"
echo
echo "== summary (also in $SUMMARY)"
cat "$SUMMARY"
if [ $glx_ok = 0 ] || [ "$egl_ok" = 0 ]; then
  echo "RESULT: the program drew the region through CUDA-OpenGL sharing"
  exit 0
fi
echo "RESULT: no run drew through CUDA-OpenGL sharing (see app-gpu.log)"
exit 1
