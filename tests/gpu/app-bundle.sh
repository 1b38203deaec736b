#!/usr/bin/env bash
# tests/gpu/app-bundle.sh: build the desktop program and pack it, with an X server and every library the
# two need, into .appbundle/ for a machine that has neither GTK nor X (see tests/gpu/run-app.sh).
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/gpu/app-bundle.sh        (from anywhere; run on a Debian 12 machine with the build dependencies)
#
# Builds the program with -Dgui=enabled -Dcuda=enabled -Dgpu_archs=90 --buildtype=release in
# $EF_APPBUNDLE_BUILD (default /tmp/build-appbundle), then writes .appbundle/appbundle.tar.xz and
# .appbundle/MANIFEST.txt in the repository root. EF_APPBUNDLE_SKIP_BUILD=1 packs what the build folder
# already holds. The archive holds one folder, appbundle/:
#   bin/        echoform, Xvfb, xkbcomp, glxinfo, eglinfo;
#   lib/        every shared library they need, found with ldd, except glibc's own, the GL, EGL, GLX,
#               Vulkan and glvnd loaders (the GPU machine gets those from .gl/*.deb) and the CUDA driver;
#               Mesa's GLX and EGL vendor libraries, for runs without an NVIDIA GPU; libz3 and libicudata
#               are small stand-ins (see "stand-ins" below);
#   lib/compat/ libstdc++ and libgcc_s, used only where the system has none as new;
#   lib/cuda/   the CUDA runtime, used only where the machine's CUDA has none (cuFFT always comes from the
#               machine: it is too big to carry);
#   lib/dri/    Mesa's software driver, which Xvfb's GLX extension loads;
#   lib/gdk-pixbuf/  the SVG loader and its cache (paths under @BUNDLE@, set by run-app.sh);
#   share/      the settings schemas (the program's and GTK's), the demo collection, the XKB data, DejaVu
#               fonts, the hicolor index and the Adwaita symbolic icons that the program names, the MIME
#               cache, Mesa's EGL vendor file;
#   etc/fonts/fonts.conf.
# Files that this machine lacks (glxinfo) come from `apt-get download` and `dpkg -x` into a scratch folder.

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${EF_APPBUNDLE_BUILD:-/tmp/build-appbundle}
WORK=${EF_APPBUNDLE_WORK:-/tmp/appbundle-work}
DEST=$ROOT/.appbundle
STAGE=$WORK/stage/appbundle
EXTRA=$WORK/pkgroot
MULTI=x86_64-linux-gnu
MAX_MIB=60

die () { echo "app-bundle.sh: $*" >&2; exit 1; }

# ---- the program ----
if [ "${EF_APPBUNDLE_SKIP_BUILD:-0}" = 1 ]; then
  [ -x "$BUILD/app/echoform" ] || die "EF_APPBUNDLE_SKIP_BUILD=1, but $BUILD holds no app/echoform"
elif [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$ROOT" -Dgui=enabled -Dcuda=enabled -Dgpu_archs=90 --buildtype=release \
    > "$WORK.setup.log" 2>&1 || { tail -30 "$WORK.setup.log"; die "meson setup failed"; }
else
  meson configure "$BUILD" -Dgui=enabled -Dcuda=enabled -Dgpu_archs=90 -Dbuildtype=release > /dev/null
fi
if [ "${EF_APPBUNDLE_SKIP_BUILD:-0}" != 1 ]; then
  ninja -C "$BUILD" app/echoform data/demo.cphd data/gschemas.compiled > "$WORK.build.log" 2>&1 \
    || { grep -E "error|FAILED" "$WORK.build.log" | head -30; die "build failed (log: $WORK.build.log)"; }
fi
grep -q "^#define HAVE_CUDA 1" "$BUILD/config.h" || die "$BUILD is not a CUDA build"

rm -rf "$WORK/stage" "$EXTRA"
mkdir -p "$STAGE"/{bin,lib/compat,lib/cuda,lib/dri,lib/gdk-pixbuf/loaders,lib/gio-modules} \
  "$STAGE"/share/{glib-2.0/schemas,echoform,fonts,X11,glvnd/egl_vendor.d,icons/hicolor} "$STAGE/etc/fonts" \
  "$WORK/debs" "$EXTRA"

# Where a Debian package's files are: / when it is installed here, else a scratch root it is unpacked into.
pkg_root () {
  local pkg=$1
  if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null)" = "install ok installed" ]; then
    echo /
    return
  fi
  if ! ls "$WORK/debs/${pkg}"_*.deb > /dev/null 2>&1; then
    (cd "$WORK/debs" && apt-get download "$pkg" > /dev/null 2>&1) || die "apt-get download $pkg failed"
  fi
  dpkg -x "$(ls "$WORK/debs/${pkg}"_*.deb | head -1)" "$EXTRA"
  echo "$EXTRA"
}

# take PKG PATH DEST: copy one file of a package (links followed) into the folder DEST of the stage.
take () {
  local pkg=$1 path=$2 dest=$3 r
  r=$(pkg_root "$pkg")
  [ -e "$r$path" ] || die "$pkg has no $path"
  cp -L "$r$path" "$STAGE/$dest/"
}

cp "$BUILD/app/echoform" "$STAGE/bin/"
cp "$BUILD/data/demo.cphd" "$STAGE/share/echoform/"
take xvfb /usr/bin/Xvfb bin
take x11-xkb-utils /usr/bin/xkbcomp bin
take mesa-utils-bin /usr/bin/glxinfo.$MULTI bin
take mesa-utils-bin /usr/bin/eglinfo.$MULTI bin
mv "$STAGE/bin/glxinfo.$MULTI" "$STAGE/bin/glxinfo"
mv "$STAGE/bin/eglinfo.$MULTI" "$STAGE/bin/eglinfo"
take libgl1-mesa-dri /usr/lib/$MULTI/dri/swrast_dri.so lib/dri
take libglx-mesa0 /usr/lib/$MULTI/libGLX_mesa.so.0 lib
take libegl-mesa0 /usr/lib/$MULTI/libEGL_mesa.so.0 lib
take libegl-mesa0 /usr/share/glvnd/egl_vendor.d/50_mesa.json share/glvnd/egl_vendor.d
take librsvg2-common /usr/lib/$MULTI/gdk-pixbuf-2.0/2.10.0/loaders/libpixbufloader-svg.so lib/gdk-pixbuf/loaders
r=$(pkg_root xkb-data)
cp -a "$r/usr/share/X11/xkb" "$STAGE/share/X11/"
for f in DejaVuSans.ttf DejaVuSans-Bold.ttf DejaVuSansMono.ttf; do
  take fonts-dejavu-core /usr/share/fonts/truetype/dejavu/$f share/fonts
done
take hicolor-icon-theme /usr/share/icons/hicolor/index.theme share/icons/hicolor
# Of the Adwaita theme, only the symbolic icons that the program names (the rest of it is 20 MiB).
r=$(pkg_root adwaita-icon-theme)
mkdir -p "$STAGE/share/icons/Adwaita"
cp "$r/usr/share/icons/Adwaita/index.theme" "$STAGE/share/icons/Adwaita/"
for name in $(grep -rhoE '[a-z0-9-]+-symbolic' "$ROOT/ui" "$ROOT/resources" --include='*.c' --include='*.ui' | sort -u); do
  (cd "$r/usr/share/icons/Adwaita" && find scalable -name "$name.svg" -exec cp --parents {} "$STAGE/share/icons/Adwaita/" \;)
done
# GIO's MIME sniffing, by which gdk-pixbuf picks its SVG loader for the program's icons, needs this.
if [ ! -f /usr/share/mime/mime.cache ]; then
  r=$(pkg_root shared-mime-info)
  "$r/usr/bin/update-mime-database" "$r/usr/share/mime" > /dev/null
else
  r=/
fi
mkdir -p "$STAGE/share/mime"
cp "$r/usr/share/mime/mime.cache" "$STAGE/share/mime/"

# The program's schema, with GTK's own, compiled together.
r=$(pkg_root libgtk-4-common)
cp "$ROOT/data/io.github.echoform.Echoform.gschema.xml" "$r"/usr/share/glib-2.0/schemas/org.gtk.gtk4.*.gschema.xml \
  "$STAGE/share/glib-2.0/schemas/"
glib-compile-schemas --strict "$STAGE/share/glib-2.0/schemas"
rm "$STAGE"/share/glib-2.0/schemas/*.xml

# The loaders cache names the bundle's folder, which run-app.sh puts in place of @BUNDLE@.
{
  echo "# gdk-pixbuf loaders of the Echoform bundle; @BUNDLE@ is where it is unpacked."
  GDK_PIXBUF_MODULEDIR="$STAGE/lib/gdk-pixbuf/loaders" \
    "$(pkg_root libgdk-pixbuf-2.0-0)/usr/lib/$MULTI/gdk-pixbuf-2.0/gdk-pixbuf-query-loaders" \
    | grep -v '^#' | sed "s|$STAGE|@BUNDLE@|g"
} > "$STAGE/lib/gdk-pixbuf/loaders.cache"
grep -q '@BUNDLE@/lib/gdk-pixbuf/loaders/libpixbufloader-svg.so' "$STAGE/lib/gdk-pixbuf/loaders.cache" \
  || die "the SVG loader is not in the loaders cache"

# fontconfig: the bundled fonts only, the cache under $XDG_CACHE_HOME.
cat > "$STAGE/etc/fonts/fonts.conf" << 'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- fonts.conf: the fonts of the Echoform bundle and nothing else. -->
<fontconfig>
  <dir prefix="relative">../../share/fonts</dir>
  <cachedir prefix="xdg">fontconfig</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>Sans</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>Cantarell</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <alias><family>Monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <alias><family>Source Code Pro</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>true</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
EOF

# ---- the libraries ----
# glibc's own libraries come from the machine, and so do the loaders (.gl/*.deb there) and the driver.
glibc=" $(dpkg -L libc6 | grep -E '/lib[^/]*\.so[.0-9]*$|/ld-linux' | xargs -n1 basename | tr '\n' ' ') "
loaders=" libGL.so.1 libGLX.so.0 libGLdispatch.so.0 libEGL.so.1 libOpenGL.so.0 libGLESv2.so.2 libGLESv1_CM.so.1 \
libvulkan.so.1 libcuda.so.1 "
export LD_LIBRARY_PATH="$EXTRA/usr/lib/$MULTI${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
declare -A seen=()
missing=""
skipped=""
for elf in "$STAGE"/bin/* "$STAGE"/lib/dri/*.so "$STAGE"/lib/*.so.* "$STAGE"/lib/gdk-pixbuf/loaders/*.so; do
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    [ -n "${seen[$name]:-}" ] && continue
    seen[$name]=1
    if [ "$path" = "not" ]; then
      missing="$missing $name(${elf##*/})"
      continue
    fi
    case "$glibc$loaders" in *" $name "*) continue ;; esac
    case $name in
      libstdc++.so.* | libgcc_s.so.*) cp -L "$path" "$STAGE/lib/compat/$name" ;;
      libcudart.so.*) cp -L "$path" "$STAGE/lib/cuda/$name" ;;
      libcufft*.so.* | libcublas*.so.* | libnvidia-*) skipped="$skipped $name" ;;
      *) [ -e "$STAGE/lib/$name" ] || cp -L "$path" "$STAGE/lib/$name" ;;
    esac
  done < <(ldd "$elf")
done
[ -z "$missing" ] || die "ldd found no$missing"

# Two stand-ins keep the archive small (they are a third of it otherwise). LLVM, which Mesa's software
# driver links, names libz3 for the Clang static analyser alone: every Z3 function it names is here, and
# each one aborts with a message. ICU's data library is replaced by an empty ICU data package: libxml2
# reaches ICU only for encodings that iconv lacks, and the program's files are UTF-8.
stubs=$WORK/stubs
rm -rf "$stubs"
mkdir -p "$stubs"
z3=$(ls "$STAGE"/lib/libz3.so.* 2> /dev/null | head -1)
if [ -n "$z3" ]; then
  {
    echo "/* ${z3##*/} stand-in of the Echoform bundle: the Z3 functions that LLVM names, each of them aborting. */"
    echo "#include <stdio.h>"
    echo "#include <stdlib.h>"
    echo "static void gone (const char *f) { fprintf (stderr, \"${z3##*/} here is a stand-in without %s\\n\", f); abort (); }"
    for elf in "$STAGE"/lib/*.so.* "$STAGE"/lib/dri/*.so; do
      readelf -W --dyn-syms "$elf" | awk '$7 == "UND" && $8 ~ /^Z3_/ { print $8 }'
    done | sort -u | sed 's/.*/void & (void) { gone ("&"); }/'
  } > "$stubs/z3.c"
  cc -shared -fPIC -O1 -Wl,-soname,"${z3##*/}" -o "$stubs/${z3##*/}" "$stubs/z3.c"
  cp "$stubs/${z3##*/}" "$z3"
fi
icudata=$(ls "$STAGE"/lib/libicudata.so.* 2> /dev/null | head -1)
if [ -n "$icudata" ]; then
  v=${icudata##*/libicudata.so.}
  cat > "$stubs/icudata.c" << EOF
/* libicudata.so.$v stand-in of the Echoform bundle: an ICU common data package with no entries. */
#include <stdint.h>
__attribute__ ((visibility ("default"))) const struct {
  uint16_t header_size;
  uint8_t magic1, magic2;
  struct {
    uint16_t size, reserved_word;
    uint8_t big_endian, charset_family, sizeof_uchar, reserved_byte;
    uint8_t format[4], format_version[4], data_version[4];
  } info;
  uint8_t padding[8];
  uint32_t count, reserved;
  uint32_t toc[4];
} icudt${v}_dat = { 32, 0xda, 0x27, { 20, 0, 0, 0, 2, 0, { 'T', 'o', 'C', 'P' }, { 1, 0, 0, 0 }, { 0 } }, { 0 }, 0, 0, { 0 } };
EOF
  cc -shared -fPIC -O1 -Wl,-soname,"libicudata.so.$v" -o "$stubs/libicudata.so.$v" "$stubs/icudata.c"
  cp "$stubs/libicudata.so.$v" "$icudata"
fi

# ---- pack ----
rm -rf "$DEST"
mkdir -p "$DEST"
raw=$(du -sm "$STAGE" | cut -f1)
echo "staged $raw MiB in $STAGE; compressing (xz, x86 filter, preset 9e)..."
tar -C "$WORK/stage" --owner=0 --group=0 -cf - appbundle | xz -T0 --x86 --lzma2=preset=9e > "$DEST/appbundle.tar.xz"
{
  echo "Echoform application bundle for tests/gpu/run-app.sh"
  echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}')"
  echo "source: $(git -C "$ROOT" describe --always --dirty 2> /dev/null || echo unknown); build: $BUILD"
  echo "taken from the machine at run time: glibc, the GL/EGL/GLX/Vulkan loaders, libcuda and$skipped"
  echo "stand-ins (see app-bundle.sh): ${z3:+${z3##*/} }${icudata:+${icudata##*/}}"
  echo "uncompressed: $raw MiB"
  echo
  (cd "$WORK/stage" && find appbundle -type f -printf '%10s  %p\n' | sort -k2)
} > "$DEST/MANIFEST.txt"
size=$(du -sm "$DEST" | cut -f1)
du -sh "$DEST"; ls -l "$DEST"
echo "libraries: $(find "$STAGE/lib" -maxdepth 1 -name '*.so*' | wc -l) in lib/, $(find "$STAGE/lib/compat" -type f | wc -l) in lib/compat, $(find "$STAGE/lib/cuda" -type f | wc -l) in lib/cuda; from the machine:$skipped"
[ "$size" -lt "$MAX_MIB" ] || die ".appbundle is $size MiB, over $MAX_MIB"
