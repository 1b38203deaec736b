#!/bin/sh
# build-deb.sh: builds echoform_<version>_<arch>.deb (the desktop program, echoform-cli, their data and
# manual pages) from a meson install tree, with its dependencies from dpkg-shlibdeps.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: data/packaging/build-deb.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR  a meson build folder configured with --prefix=/usr; when it does not exist it is
#              configured here: release, the GUI and the manual pages required, no tests, CUDA off
#              (a package for any amd64 machine; a CUDA build would depend on the toolkit's libraries),
#              with Debian's hardening flags from dpkg-buildflags. Default: build-deb.
#   OUT_DIR    where the .deb goes (default: the current folder).
# Needs: meson, ninja, dpkg-dev (dpkg-shlibdeps, dpkg-buildflags), scdoc, and what .ci/setup app installs.
# Check the result with .ci/package-check (installs it in a pristine Debian 12 root).
#
# lintian 2.116 (Debian 12), `lintian -I -E --pedantic` on the package built so: no tags. What answers
# the ones a hand-made package usually gets:
#   - copyright-without-copyright-notice, no-copyright-file: usr/share/doc/echoform/copyright below, in
#     the machine-readable format, with a Copyright line (the year of the last commit).
#   - no-changelog: usr/share/doc/echoform/changelog.gz below (one entry: this is not an upload to
#     Debian's archive, so it closes no bugs and has no history).
#   - no-md5sums-control-file: DEBIAN/md5sums below.
#   - unstripped-binary-or-object: the binaries are stripped below (no -dbgsym package is made).
#   - hardening-no-fortify-functions, hardening-no-bindnow, hardening-no-relro: dpkg-buildflags with
#     hardening=+all when this script configures the build; a BUILD_DIR configured elsewhere without
#     them would bring these tags back (configure it here).
#   - manpage-not-compressed: gzip -9n below. binary-without-manpage: both programs have one.
#   - package-contains-compiled-glib-schema, and the icon and desktop caches: removed below; the
#     triggers of libglib2.0-0, hicolor-icon-theme and desktop-file-utils rebuild them on install.
#   - non-standard-file-perm, wrong-file-owner-uid-or-gid: umask 022 and dpkg-deb --root-owner-group.
set -eu
umask 022
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-deb}
outdir=${2:-.}
arch=$(dpkg-architecture -qDEB_HOST_ARCH 2>/dev/null || dpkg --print-architecture)

die () { echo "build-deb: $*" >&2; exit 1; }
command -v dpkg-shlibdeps >/dev/null || die "dpkg-shlibdeps is missing (apt-get install dpkg-dev)"
command -v meson >/dev/null || die "meson is missing"

if [ ! -f "$build/build.ninja" ]; then
  # Debian's compiler and linker hardening; the optimisation level stays the build type's (-O3), which
  # the vectorised formers need, and debugging information is not made since it is stripped anyway.
  eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
  CFLAGS=$(printf '%s' "$CFLAGS" | sed 's/-O2//; s/-g //; s/-ffile-prefix-map=[^ ]*//')
  export CFLAGS CPPFLAGS LDFLAGS
  (cd "$here" && meson setup "$build" --buildtype=release --prefix=/usr -Dgui=enabled -Dman=enabled \
     -Dtests=false -Dcuda=disabled -Dmpi=disabled) || die "meson setup failed"
fi
case $build in /*) ;; *) build="$here/$build" ;; esac
prefix=$(meson introspect --buildoptions "$build" | python3 -c \
  'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
[ "$prefix" = /usr ] || die "$build is configured with --prefix=$prefix; a package needs /usr"
meson compile -C "$build" || die "the build failed"
version=$(meson introspect --projectinfo "$build" | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
DESTDIR=$root meson install -C "$build" --no-rebuild --quiet || die "meson install failed"
for f in usr/bin/echoform usr/bin/echoform-cli usr/share/man/man1/echoform.1 usr/share/man/man1/echoform-cli.1 \
         usr/share/applications/io.github.echoform.Echoform.desktop \
         usr/share/metainfo/io.github.echoform.Echoform.metainfo.xml \
         usr/share/glib-2.0/schemas/io.github.echoform.Echoform.gschema.xml; do
  [ -e "$root/$f" ] || die "the install tree lacks /$f (is $build configured with the GUI and the manual pages?)"
done
# The desktop's caches (schemas, icons, desktop database) are rebuilt by the triggers of the packages
# that own them; a compiled schema file in the package would clash with theirs.
rm -f "$root/usr/share/glib-2.0/schemas/gschemas.compiled" "$root/usr/share/icons/hicolor/icon-theme.cache" \
      "$root/usr/share/applications/mimeinfo.cache"

strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/echoform" \
      "$root/usr/bin/echoform-cli"
gzip -9n "$root"/usr/share/man/man1/*.1

doc=$root/usr/share/doc/echoform
mkdir -p "$doc"
year=$(git -C "$here" log -1 --format=%cd --date=format:%Y 2>/dev/null || date +%Y)
cat >"$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: echoform
Source: https://github.com/echoform/echoform

Files: *
Copyright: $year The Echoform authors
License: GPL-3.0-or-later

License: GPL-3.0-or-later
 This program is free software: you can redistribute it and/or modify it under the terms of the GNU
 General Public License as published by the Free Software Foundation, either version 3 of the License,
 or (at your option) any later version.
 .
 On Debian systems, the complete text of the GNU General Public License version 3 can be found in
 /usr/share/common-licenses/GPL-3.
EOF
printf 'echoform (%s) unstable; urgency=medium\n\n  * Built from the source tree by data/packaging/build-deb.sh.\n\n -- Echoform <echoform@users.noreply.github.com>  %s\n' \
  "$version" "$(date -R -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}")" | gzip -9n >"$doc/changelog.gz"

# Shared-library dependencies of the binaries, as Debian's own packages get them.
mkdir -p "$stage/debian" "$root/DEBIAN"
printf 'Source: echoform\n\nPackage: echoform\nArchitecture: %s\n' "$arch" >"$stage/debian/control"
depends=$(cd "$stage" && dpkg-shlibdeps -O -e"root/usr/bin/echoform" -e"root/usr/bin/echoform-cli" 2>/dev/null \
          | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)

cat >"$root/DEBIAN/control" <<EOF
Package: echoform
Version: $version
Architecture: $arch
Maintainer: Echoform <echoform@users.noreply.github.com>
Installed-Size: $size
Depends: $depends
Recommends: librsvg2-common, libgl1-mesa-dri
Section: science
Priority: optional
Homepage: https://github.com/echoform/echoform
Description: synthetic aperture radar image formation
 Echoform forms synthetic aperture radar (SAR) images from phase-history
 collections (CPHD, the AFRL Gotcha set, or its own simulator) by
 backprojection, and lets you watch a region come into focus one block of
 pulses at a time. It runs on the processor with SIMD on all cores.
 .
 The package holds the desktop program, echoform, and the command-line tool,
 echoform-cli, which simulates, describes, forms, measures and benchmarks
 without a display, with a demo collection and manual pages.
EOF
(cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
mkdir -p "$outdir"
deb="$outdir/echoform_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null || die "dpkg-deb failed"
echo "$deb"
