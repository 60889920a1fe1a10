#!/bin/sh
# A Python 3.11 base image made from Debian's packages, for when the registry's
# python:3.11.7-slim-bookworm cannot be pulled (no route to the public hub): Debian 12's
# python3 (3.11) on a minimal bookworm made by debootstrap, committed with buildah.
#   deploy/images/debian-base.sh IMAGE [WORKDIR]
# Needs root, debootstrap, buildah (make images installs both) and Debian's archive.
set -eu
image=${1:?usage: debian-base.sh IMAGE [WORKDIR]}
work=${2:-build/images}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
rootfs="$work/base-rootfs"
rm -rf "$rootfs"
mkdir -p "$work"
# python3-venv: the build stage's virtual environments (ensurepip); ca-certificates for pip.
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
  bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
# What an image does not need: package lists, caches, documentation, locales.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*
container=$(buildah from scratch)
trap 'buildah rm "$container" >/dev/null 2>&1 || true' EXIT
tar -C "$rootfs" -cf "$work/base-rootfs.tar" .
buildah add "$container" "$work/base-rootfs.tar" / >/dev/null
buildah config --env LANG=C.UTF-8 --env PATH=/usr/local/bin:/usr/bin:/bin \
  --cmd python3 --label org.opencontainers.image.description="python3 from Debian bookworm" \
  "$container"
buildah commit --quiet "$container" "$image" >/dev/null
rm -rf "$rootfs" "$work/base-rootfs.tar"
buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$image"
