#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# Runs the course's test command inside a fresh root of another Debian
# release, made with debootstrap from the archive this machine's apt already
# uses: the proof that a learner on that release gets a green course.
#
#   sudo tools/ci/test_in_debian.sh trixie              # README's test command
#   sudo tools/ci/test_in_debian.sh trixie -- bazel run //:tour -- --quick
#   sudo tools/ci/test_in_debian.sh --keep=/var/tmp/r trixie   # reuse a root
#   sudo tools/ci/test_in_debian.sh --keep=/var/tmp/r --bootstrap-only trixie
#
# --bootstrap-only stops once the root is made (Debian's minbase, with
# ca-certificates, git and the mirror's apt sources, and nothing of this
# machine's: no certificate, resolver or npm settings): the base image that
# tools/ci/test_in_container.sh imports into Docker.
#
# The root gets this clone's tracked files (git archive of the work tree's
# HEAD plus uncommitted changes), the host's CA certificates, resolver and
# proxy variables (so that apt-get and npm reach their registries inside),
# and the mounts Bazel's sandbox needs (/proc, /sys, /dev, /dev/pts,
# /dev/shm). Then it runs tools/setup.sh there, and the command. Every mount
# is undone on every exit, and a root it made is deleted unless --keep names
# it.
set -euo pipefail
cd "$(dirname "$0")/../.."

die() {
  echo "test_in_debian: $*" >&2
  exit 2
}

usage() {
  cat >&2 <<'EOF'
usage: tools/ci/test_in_debian.sh [--keep=DIR] SUITE [-- COMMAND...]
  SUITE      a Debian suite debootstrap knows (bookworm, trixie, ...)
  --keep=DIR make (or reuse) the root in DIR and leave it there
  --bootstrap-only
             only make the root (with --keep: a base image to import)
  COMMAND    what to run in the clone inside; default: README.md's test
             command (bazel test //...)
EOF
  exit 2
}

keep=""
suite=""
bootstrap_only=0
while (($#)); do
  case "$1" in
    --keep=*) keep="${1#--keep=}" ;;
    --bootstrap-only) bootstrap_only=1 ;;
    -h | --help) usage ;;
    --) shift; break ;;
    -*) echo "test_in_debian: unknown flag $1" >&2; usage ;;
    *)
      [[ -z "${suite}" ]] || { echo "test_in_debian: one suite only" >&2; usage; }
      suite="$1"
      ;;
  esac
  shift
done
[[ -n "${suite}" ]] || usage
((bootstrap_only == 0)) || [[ -n "${keep}" ]] ||
  { echo "test_in_debian: --bootstrap-only needs --keep=DIR" >&2; usage; }
command=("$@")
if ((${#command[@]} == 0)); then
  command=(bazel test //...)
fi

[[ $(id -u) -eq 0 ]] || die "debootstrap and mounts need root: run it with sudo."
command -v debootstrap >/dev/null ||
  die "debootstrap is missing: apt-get install debootstrap (tools/setup.sh installs it)."

# The archive: the first Debian URI this machine's apt uses, so that the
# root comes from the same mirror (and proxy) as the host's own packages.
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -r "${f}" ]] || continue
  mirror="$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "${f}")"
  [[ -n "${mirror}" ]] && break
done
if [[ -z "${mirror}" && -r /etc/apt/sources.list ]]; then
  mirror="$(awk '/^deb / && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)"
fi
[[ -n "${mirror}" ]] || die "cannot find this machine's Debian archive in /etc/apt/sources.list{,.d}."

if [[ -n "${keep}" ]]; then
  root="${keep}"
  mkdir -p "${root}"
else
  root="$(mktemp -d /var/tmp/alloclab-"${suite}"-XXXXXX)"
fi
root="$(cd "${root}" && pwd)"

# The processes whose root directory is inside the root (a Bazel server
# that outlived its client, a test's child): they would keep using files
# while the root is removed.
# shellcheck disable=SC2317  # run by cleanup, from the EXIT trap
inside_root() {
  local link pid
  for link in /proc/[0-9]*/root; do
    pid="${link#/proc/}"
    pid="${pid%/root}"
    [[ "$(readlink "${link}" 2>/dev/null)" == "${root}" ]] && echo "${pid}"
  done
  return 0
}

mounted=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local status=$?
  local i pids
  trap - EXIT INT TERM
  pids="$(inside_root)"
  if [[ -n "${pids}" ]]; then
    # shellcheck disable=SC2086
    kill ${pids} 2>/dev/null || true
    sleep 2
    pids="$(inside_root)"
    # shellcheck disable=SC2086
    [[ -z "${pids}" ]] || kill -9 ${pids} 2>/dev/null || true
  fi
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[i]}" 2>/dev/null || true
  done
  if [[ -z "${keep}" && -d "${root}" ]]; then
    # Only after every mount is gone: never delete through a bind mount.
    if grep -q " ${root}/" /proc/mounts; then
      echo "test_in_debian: ${root} still has mounts; left in place" >&2
    elif rm -rf --one-file-system "${root}"; then
      echo "test_in_debian: removed ${root}"
    else
      echo "test_in_debian: could not remove all of ${root}" >&2
    fi
  fi
  exit "${status}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ ! -x "${root}/usr/bin/apt-get" || ! -f "${root}/.alloclab-bootstrapped" ]]; then
  echo "test_in_debian: debootstrap ${suite} into ${root} from ${mirror}"
  bootstrap_start=${SECONDS}
  debootstrap --variant=minbase --include=ca-certificates,git "${suite}" "${root}" "${mirror}"
  # Its apt sources: the main suite and its updates, from the same mirror.
  cat >"${root}/etc/apt/sources.list" <<EOF
deb ${mirror} ${suite} main
deb ${mirror} ${suite}-updates main
EOF
  touch "${root}/.alloclab-bootstrapped"
  echo "test_in_debian: $((SECONDS - bootstrap_start)) s of debootstrap"
fi
echo "test_in_debian: ${suite} is Debian $(cat "${root}/etc/debian_version")"

# A base image holds Debian's own certificate list only, as Debian's images
# do: what a network needs besides is the Dockerfile's certs/ step.
((bootstrap_only == 0)) || exit 0

# What apt and npm need to reach their registries from inside.
cp -L /etc/resolv.conf "${root}/etc/resolv.conf"
mkdir -p "${root}/usr/local/share/ca-certificates/host"
if [[ -d /usr/local/share/ca-certificates ]]; then
  find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' \
    -exec cp {} "${root}/usr/local/share/ca-certificates/host/" \;
fi
chroot "${root}" update-ca-certificates >/dev/null 2>&1 || true
if [[ -f /etc/npmrc || -f /root/.npmrc ]]; then
  for rc in /etc/npmrc /root/.npmrc; do
    [[ -f "${rc}" ]] && mkdir -p "${root}$(dirname "${rc}")" && cp "${rc}" "${root}${rc}"
  done
fi

bind() {
  mkdir -p "${root}$1"
  mount --bind "$1" "${root}$1"
  mounted+=("${root}$1")
}
mount -t proc proc "${root}/proc" && mounted+=("${root}/proc")
bind /sys
bind /dev
bind /dev/pts
mkdir -p "${root}/dev/shm"
mount -t tmpfs -o mode=1777 shm "${root}/dev/shm" && mounted+=("${root}/dev/shm")

# The clone: this work tree as git would commit it now (tracked files and
# their uncommitted changes), so that what is tested is what is submitted.
src="${root}/src/allocator-labs"
rm -rf "${src}"
mkdir -p "${src}"
stash="$(git stash create 2>/dev/null || true)"
git archive --format=tar "${stash:-HEAD}" | tar -x -C "${src}"

env_vars=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive CI="${CI:-}")
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [[ -n "${!v:-}" ]] && env_vars+=("${v}=${!v}")
done

start=${SECONDS}
echo "test_in_debian: tools/setup.sh in ${suite}"
chroot "${root}" /usr/bin/env -i "${env_vars[@]}" bash -c \
  'cd /src/allocator-labs && bash tools/setup.sh'
echo "test_in_debian: $((SECONDS - start)) s of set-up; now: ${command[*]}"
status=0
chroot "${root}" /usr/bin/env -i "${env_vars[@]}" bash -c \
  'cd /src/allocator-labs && exec "$@"' bash "${command[@]}" || status=$?
# Bazel's server would hold the root's files open past the unmount.
chroot "${root}" /usr/bin/env -i "${env_vars[@]}" bash -c \
  'cd /src/allocator-labs && bazel shutdown' >/dev/null 2>&1 || true
echo "test_in_debian: ${suite}: '${command[*]}' exited ${status} after $((SECONDS - start)) s"
exit "${status}"
