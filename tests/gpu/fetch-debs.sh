#!/bin/sh
# tests/gpu/fetch-debs.sh: gathers the Debian 12 packages that tests/gpu/run.sh unpacks on a GPU machine
# that lacks them (GLib's, json-glib's and libxml2's development files), into .gpu-debs/.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/gpu/fetch-debs.sh          run from the repository root, on a Debian 12 machine with apt
#
# The GPU machine has no network: the packages travel with the working tree (.gpu-debs/ is ignored by
# git; name it where the device call carries files). Only amd64 packages are fetched, whatever this
# machine's architecture.
set -eu

if [ ! -f meson.build ] || [ ! -d compute ]; then
  echo "fetch-debs.sh: run me from the repository root" >&2
  exit 2
fi

pkgs="libglib2.0-dev libglib2.0-0 libglib2.0-dev-bin libxml2-dev libicu-dev libpcre2-dev libffi-dev
      libmount-dev libblkid-dev libselinux1-dev libsepol-dev zlib1g-dev liblzma-dev uuid-dev
      libjson-glib-dev libjson-glib-1.0-0"

lists=${TMPDIR:-/tmp}/ef-apt-amd64
o="-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$lists"
mkdir -p "$lists/partial" .gpu-debs
# shellcheck disable=SC2086
apt-get $o update -qq
# shellcheck disable=SC2086
(cd .gpu-debs && apt-get $o download $pkgs)
ls .gpu-debs
