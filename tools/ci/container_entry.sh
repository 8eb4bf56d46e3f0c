#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# The course's container runs its command as the owner of the clone
# mounted at /course (the Dockerfile's ENTRYPOINT), so that what the labs
# and Bazel write into your clone is yours on a Linux host, whatever your
# uid: no root-owned folders to delete with sudo.
#
#   docker run --rm --network=none -v "${PWD}:/course" allocator-labs \
#     bazel run //:tour         # runs as the uid:gid that owns ${PWD}
#
# Started as root (Docker's default), it gives the clone's owner a name
# and a home in the container when the image has none for that uid, and
# runs the command as that user (setpriv, from Debian's util-linux). A
# clone owned by root (a root learner; Docker Desktop's mounts on some
# hosts) keeps root. Started as another user (`--user`, VS Code's
# remoteUser), it runs the command as that user, with a home of its own.
# Bazel's outputs live in that home; the image's disk cache
# (/etc/bazel.bazelrc) hands them the course's prebuilt outputs.
set -euo pipefail

clone=/course

# A writable home and a user name for Bazel (its output root is
# ~/.cache/bazel/_bazel_$USER), for a uid with or without a passwd entry.
with_home() {
  local name home
  name="$(id -un 2>/dev/null || echo "uid$(id -u)")"
  home="$(getent passwd "$(id -u)" | cut -d: -f6 || true)"
  if [[ -z "${home}" || ! -w "${home}" ]]; then
    home="/tmp/home-$(id -u)"
    mkdir -p "${home}"
  fi
  exec env HOME="${home}" USER="${name}" LOGNAME="${name}" "$@"
}

if [[ $(id -u) -ne 0 || ! -d "${clone}" ]]; then
  with_home "$@"
fi
uid="$(stat -c %u "${clone}")"
gid="$(stat -c %g "${clone}")"
if ((uid == 0)); then
  with_home "$@"
fi
getent group "${gid}" >/dev/null || groupadd --gid "${gid}" "learner${gid}"
if ! getent passwd "${uid}" >/dev/null; then
  useradd --uid "${uid}" --gid "${gid}" --no-create-home \
    --home-dir "/home/learner${uid}" --shell /bin/bash "learner${uid}"
fi
name="$(getent passwd "${uid}" | cut -d: -f1)"
home="$(getent passwd "${uid}" | cut -d: -f6)"
if [[ ! -d "${home}" ]]; then
  mkdir -p "${home}"
  chown "${uid}:${gid}" "${home}"
elif [[ "$(stat -c %u "${home}")" != "${uid}" ]]; then
  # A system account's home (/usr/sbin, /nonexistent) is not changed.
  home="/tmp/home-${uid}"
  mkdir -p "${home}"
  chown "${uid}:${gid}" "${home}"
fi
exec setpriv --reuid="${uid}" --regid="${gid}" --init-groups \
  env HOME="${home}" USER="${name}" LOGNAME="${name}" "$@"
