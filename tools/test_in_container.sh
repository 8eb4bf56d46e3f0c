#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# Builds the repository's Dockerfile on a Debian release's base image and
# runs a command in the image: the proof that a learner's `docker build`
# and `docker run` (README.md, "Any machine with Docker") give a green
# course. The base image cannot be pulled here (no registry), so it is made
# the way Debian's own images are: a minbase root from debootstrap
# (tools/test_in_debian.sh --bootstrap-only), imported as debian:<N>.
#
#   sudo tools/test_in_container.sh trixie              # README's test command
#   sudo tools/test_in_container.sh trixie -- bazel run //:tour -- --quick
#
# It starts a Docker daemon of its own (Debian's docker.io) with its own
# data root and socket, and no network of its own: --bridge=none, and every
# build and container on --network=host, so that nothing gets an address.
# The image's context is this clone's tracked files (HEAD plus uncommitted
# changes), as git would commit them. The command runs in a default
# container, as README.md's; then the doctor, which must say what the
# container restricts. The daemon is stopped and its data root removed on every exit.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
  echo "test_in_container: $*" >&2
  exit 2
}

usage() {
  cat >&2 <<'EOF'
usage: tools/test_in_container.sh SUITE [-- COMMAND...]
  SUITE    a Debian suite debootstrap knows (bookworm, trixie, ...): the
           image's base
  COMMAND  what to run in the image's /course; default: README.md's test
           command (bazel test //...)
EOF
  exit 2
}

suite=""
while (($#)); do
  case "$1" in
    -h | --help) usage ;;
    --) shift; break ;;
    -*) echo "test_in_container: unknown flag $1" >&2; usage ;;
    *)
      [[ -z "${suite}" ]] || { echo "test_in_container: one suite only" >&2; usage; }
      suite="$1"
      ;;
  esac
  shift
done
[[ -n "${suite}" ]] || usage
command=("$@")
if ((${#command[@]} == 0)); then
  command=(bazel test //...)
fi

[[ $(id -u) -eq 0 ]] || die "a Docker daemon and debootstrap need root: run it with sudo."
# Debian's docker.io: its daemon, and its client (another `docker` earlier
# on PATH may not be one).
dockerd=/usr/sbin/dockerd
docker_cli=/usr/bin/docker
[[ -x "${dockerd}" && -x "${docker_cli}" ]] ||
  die "Debian's docker.io is missing: apt-get install docker.io (.ci/run installs it)."

work="$(mktemp -d /var/tmp/alloclab-container-XXXXXX)"
socket="${work}/docker.sock"
docker() {
  "${docker_cli}" --host "unix://${socket}" "$@"
}

daemon_pid=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n "${daemon_pid}" ]]; then
    # Containers first (a run interrupted before its --rm), then the daemon.
    docker ps -q | xargs -r "${docker_cli}" --host "unix://${socket}" kill \
      >/dev/null 2>&1 || true
    kill "${daemon_pid}" 2>/dev/null || true
    local waited=0
    while kill -0 "${daemon_pid}" 2>/dev/null && ((waited < 30)); do
      sleep 1
      waited=$((waited + 1))
    done
    kill -9 "${daemon_pid}" 2>/dev/null || true
  fi
  # The layers' overlay mounts go with the daemon; any left are undone
  # before the data root is deleted, never deleted through.
  grep -o " ${work}/[^ ]*" /proc/mounts | sort -r | xargs -r umount -l 2>/dev/null || true
  if grep -q " ${work}/" /proc/mounts; then
    echo "test_in_container: ${work} still has mounts; left in place" >&2
  elif rm -rf --one-file-system "${work}"; then
    echo "test_in_container: removed ${work}"
  else
    echo "test_in_container: could not remove all of ${work}" >&2
  fi
  exit "${status}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=${SECONDS}
# No bridge, no NAT, no iptables rules: the daemon makes no network at all.
"${dockerd}" --data-root="${work}/data" --exec-root="${work}/exec" \
  --pidfile="${work}/dockerd.pid" --host="unix://${socket}" \
  --bridge=none --iptables=false --ip-masq=false --ip-forward=false \
  >"${work}/dockerd.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 60); do
  docker version >/dev/null 2>&1 && break
  kill -0 "${daemon_pid}" 2>/dev/null || break
  sleep 1
done
if ! docker version >/dev/null 2>&1; then
  tail -n 20 "${work}/dockerd.log" >&2
  die "dockerd did not answer on ${socket} (its log's tail above)."
fi
echo "test_in_container: dockerd $(docker version --format '{{.Server.Version}}')," \
  "storage $(docker info --format '{{.Driver}}')"

# The base image, as Debian's own: minbase from debootstrap, imported.
root="${work}/root"
bash tools/test_in_debian.sh --keep="${root}" --bootstrap-only "${suite}"
release="$(cut -d. -f1 "${root}/etc/debian_version")"
[[ "${release}" =~ ^[0-9]+$ ]] ||
  die "${suite} is Debian '$(cat "${root}/etc/debian_version")', not a numbered release."
base="debian:${release}"
# The image holds no marker of this script's and no downloaded packages.
rm -f "${root}/.alloclab-bootstrapped" "${root}"/var/cache/apt/archives/*.deb
tar -C "${root}" -c . | docker import - "${base}" >/dev/null
rm -rf --one-file-system "${root}"
echo "test_in_container: ${base} from debootstrap ${suite}: $((SECONDS - start)) s"

# The image, from the repository's Dockerfile, on the work tree as git
# would commit it now.
image="allocator-labs:${suite}"
build_start=${SECONDS}
stash="$(git stash create 2>/dev/null || true)"
git archive --format=tar "${stash:-HEAD}" |
  DOCKER_BUILDKIT=0 docker build --network=host --build-arg BASE="${base}" \
    -t "${image}" -
echo "test_in_container: docker build: $((SECONDS - build_start)) s"

# The command in a default container, as README.md runs the course: no
# flag is needed for any lab.
run_start=${SECONDS}
status=0
docker run --rm --network=host "${image}" \
  bash -c 'exec "$@"' bash "${command[@]}" || status=$?
echo "test_in_container: '${command[*]}' exited ${status} after" \
  "$((SECONDS - run_start)) s"

# The doctor there: it must say it is in a container, its seccomp filter,
# and what the labs do without what the filter refuses.
doctor="$(docker run --rm --network=host "${image}" bazel run //:doctor 2>/dev/null)" ||
  status=1
echo "${doctor}"
if ! grep -q '^container:    docker (/.dockerenv); seccomp filter on' <<<"${doctor}" ||
  ! grep -q 'perf_event_open is refused (a seccomp filter' <<<"${doctor}"; then
  echo "test_in_container: the doctor in a default container did not name it," \
    "its seccomp filter and what that refuses" >&2
  status=1
fi
echo "test_in_container: ${suite}: exited ${status} after $((SECONDS - start)) s"
exit "${status}"
