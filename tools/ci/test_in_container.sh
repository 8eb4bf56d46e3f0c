#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# A learner's path through the course's container, proved: README.md's
# commands ("Any machine with Docker") build the repository's Dockerfile on
# a Debian release's base image, then run the tour, the doctor and
# first_call's tests on a mounted clone, typed by a user who is not root.
# The base image cannot be pulled here (no registry), so it is made the way
# Debian's own images are: a minbase root from debootstrap with Debian's
# own certificate list only (tools/ci/test_in_debian.sh --bootstrap-only),
# imported as debian:<N>.
#
#   sudo tools/ci/test_in_container.sh trixie
#   sudo tools/ci/test_in_container.sh trixie -- bazel test //...
#
# It starts a Docker daemon of its own (Debian's docker.io) with its own
# data root and socket, and no network of its own: --bridge=none, so that
# nothing gets an address. The clone is this work tree's tracked files
# (HEAD plus uncommitted changes, as git would commit them), owned by a uid
# that is neither root nor the image's learner (1000), with this machine's
# CA certificates in certs/: README.md's step for a network that inspects
# TLS, as this one does. As that uid, from the clone's root, it runs
# README.md's `docker build` line with --network=host (the build's RUN
# steps use this machine's network: the daemon has no bridge) and
# --build-arg BASE=debian:<N>, then README.md's run line without a
# terminal (--network=none) as written: the tour, then the same line with
# the doctor, first_call's tests and COMMAND, if given. It checks that the
# image has no npm and no buildifier, that the doctor names the container
# and what its seccomp filter refuses, that the tour names its folder on
# the clone's path, that every file in the clone belongs to that uid and
# that no link in it dangles; and prints each phase's time and the image's
# size. The daemon is stopped and its data root removed on every exit.
set -euo pipefail
cd "$(dirname "$0")/../.."

die() {
  echo "test_in_container: $*" >&2
  exit 2
}

usage() {
  cat >&2 <<'EOF'
usage: tools/ci/test_in_container.sh SUITE [-- COMMAND...]
  SUITE    a Debian suite debootstrap knows (bookworm, trixie, ...): the
           image's base
  COMMAND  what else to run with README.md's run line after the
           learner's path (the tour, the doctor, first_call's tests)
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
bash tools/ci/test_in_debian.sh --keep="${root}" --bootstrap-only "${suite}"
release="$(cut -d. -f1 "${root}/etc/debian_version")"
[[ "${release}" =~ ^[0-9]+$ ]] ||
  die "${suite} is Debian '$(cat "${root}/etc/debian_version")', not a numbered release."
base="debian:${release}"
# The entrypoint's tools (tools/ci/container_entry.sh) are Debian's own.
for tool in usr/bin/setpriv usr/sbin/useradd usr/sbin/groupadd; do
  [[ -x "${root}/${tool}" ]] || die "${suite}'s minbase has no /${tool}"
done
# The image holds no marker of this script's and no downloaded packages.
rm -f "${root}/.alloclab-bootstrapped" "${root}"/var/cache/apt/archives/*.deb
tar -C "${root}" -c . | docker import - "${base}" >/dev/null
rm -rf --one-file-system "${root}"
echo "test_in_container: ${base} from debootstrap ${suite}: $((SECONDS - start)) s"

# README.md's lines, as written: the build, and the run without a terminal.
readme_line() {
  grep -m 1 -x -- "$1" README.md ||
    die "README.md has no line matching '$1'"
}
build_line="$(readme_line 'docker build .*')"
run_line="$(readme_line 'docker run --rm --network=none .* bazel run //:tour')"
run_prefix="${run_line% bazel run //:tour}"

# The learner: a uid that is neither root nor the image's learner, with
# the clone, a home for docker's client, and the daemon's socket.
learner=4242
chmod 755 "${work}"
clone="${work}/allocator-labs"
mkdir -p "${clone}" "${work}/home"
stash="$(git stash create 2>/dev/null || true)"
git archive --format=tar "${stash:-HEAD}" | tar -x -C "${clone}"
find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' \
  -exec cp {} "${clone}/certs/" \;
echo "test_in_container: certs/: $(cd "${clone}/certs" && echo *.crt)"
chown -R "${learner}:${learner}" "${clone}" "${work}/home"
chown "${learner}" "${socket}"
as_learner() {
  # shellcheck disable=SC2016  # expanded by the learner's bash
  setpriv --reuid="${learner}" --regid="${learner}" --clear-groups \
    env -i PATH="/usr/sbin:/usr/bin:/sbin:/bin" HOME="${work}/home" \
    DOCKER_HOST="unix://${socket}" DOCKER_BUILDKIT=0 \
    bash -c 'cd "$1" && eval "$2"' bash "${clone}" "$1"
}

status=0
phase() {
  local name="$1" line="$2" phase_start=${SECONDS} phase_status=0
  echo "test_in_container: \$ ${line}"
  as_learner "${line}" 2>&1 | tee "${work}/${name}.log" || phase_status=$?
  echo "test_in_container: ${name}: exited ${phase_status} after" \
    "$((SECONDS - phase_start)) s"
  ((phase_status == 0)) || status=1
}

build_start=${SECONDS}
phase build "${build_line/docker build/docker build --network=host --build-arg BASE=${base}}"
build_seconds=$((SECONDS - build_start))
image="$(awk '{for (i = 1; i < NF; i++) if ($i == "-t") print $(i + 1)}' <<<"${build_line}")"
docker image inspect "${image}" >/dev/null 2>&1 || die "README.md's build made no image ${image}"
echo "test_in_container: image ${image}: $(($(docker image inspect --format '{{.Size}}' "${image}") / 1000000)) MB," \
  "$(docker run --rm --network=none --entrypoint dpkg-query "${image}" -W | wc -l) Debian packages"
if docker run --rm --network=none --entrypoint sh "${image}" -c \
  'command -v npm || command -v buildifier'; then
  echo "test_in_container: the image has npm or buildifier, which are CI's" >&2
  status=1
fi

touch "${work}/before-run"
tour_start=${SECONDS}
phase tour "${run_line}"
echo "test_in_container: from docker build to the tour's end:" \
  "$((build_seconds + SECONDS - tour_start)) s"
if ! grep -q "index.html (on your machine: ${clone}/alloclab-tour-" "${work}/tour.log"; then
  echo "test_in_container: the tour did not name its page on the clone's path" >&2
  status=1
fi
phase doctor "${run_prefix} bazel run //:doctor"
phase first_call "${run_prefix} bazel test //tests/first_call:all"
if ((${#command[@]})); then
  phase command "${run_prefix} $(printf '%q ' "${command[@]}")"
fi

# The doctor: it must say it is in a container, its seccomp filter, and
# what the labs do without what the filter refuses.
if ! grep -q '^container:    docker (/.dockerenv); seccomp filter on' "${work}/doctor.log" ||
  ! grep -q 'perf_event_open is refused (a seccomp filter' "${work}/doctor.log"; then
  echo "test_in_container: the doctor in a default container did not name it," \
    "its seccomp filter and what that refuses" >&2
  status=1
fi

# What the runs wrote into the clone: the learner's, and no dangling link.
written="$(find "${clone}" -newer "${work}/before-run" | wc -l)"
foreign="$(find "${clone}" ! -uid "${learner}" -printf '%u:%g %p\n')"
dangling="$(find "${clone}" -xtype l -printf '%p -> %l\n')"
echo "test_in_container: the runs wrote ${written} files and folders into the clone"
if [[ -n "${foreign}" ]]; then
  echo "test_in_container: files in the clone not owned by uid ${learner}:" >&2
  head -n 20 <<<"${foreign}" >&2
  status=1
fi
if [[ -n "${dangling}" ]]; then
  echo "test_in_container: links in the clone that dangle here:" >&2
  head -n 20 <<<"${dangling}" >&2
  status=1
fi
echo "test_in_container: ${suite}: exited ${status} after $((SECONDS - start)) s"
exit "${status}"
