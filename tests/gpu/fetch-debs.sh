#!/bin/sh
# tests/gpu/fetch-debs.sh: gathers the Debian 12 packages that tests/gpu/run.sh unpacks on a GPU machine
# that lacks them (GLib's, json-glib's and libxml2's development files; Open MPI for the mpi step), into
# .gpu-debs/.
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
# Open MPI 4.1 and every library its programs and components load (readelf's NEEDED, followed to the
# end), less what any glibc system has (libc6, libgcc-s1, libstdc++6, zlib1g). libhwloc-plugins (hwloc's
# optional PCI, OpenCL and GL plugins, which pull in X11 and libxnvctrl0) is left out: hwloc works
# without it. They go to .gpu-debs/mpi/, which run.sh's mpi step unpacks into a prefix of their own; the
# deps step unpacks .gpu-debs/*.deb only, so these never mix with GLib's.
mpi_pkgs="libopenmpi-dev libopenmpi3 openmpi-bin openmpi-common
      libevent-core-2.1-7 libevent-pthreads-2.1-7 libhwloc15 libudev1 libpmix2 libmunge2
      libfabric1 libucx0 libibverbs1 ibverbs-providers librdmacm1 libnl-3-200 libnl-route-3-200
      libpsm2-2 libpsm-infinipath1 libnuma1 libatomic1 libuuid1"

lists=${TMPDIR:-/tmp}/ef-apt-amd64
o="-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$lists"
mkdir -p "$lists/partial" .gpu-debs/mpi
# shellcheck disable=SC2086
apt-get $o update -qq
# shellcheck disable=SC2086
(cd .gpu-debs && apt-get $o download $pkgs)
# shellcheck disable=SC2086
(cd .gpu-debs/mpi && apt-get $o download $mpi_pkgs)
ls .gpu-debs .gpu-debs/mpi
