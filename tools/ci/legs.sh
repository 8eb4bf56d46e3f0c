#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# The release check: the course on the machines and builds .ci/run does
# not reach. Each leg is a cold build of the whole course, so together they
# take longer than CI allows; run them before a release, and after a change
# to what a leg guards (the Dockerfile, tools/setup.sh or a version probe:
# debian13; the arm64 toolchain or a no_qemu_user tag: arm64; a no_asan or
# no_tsan tag, or threads and locks in a solution: asan, tsan).
#
#   debian13  README.md's docker lines on a Debian 13 base image, typed by a
#             user who is not root on a mounted clone: the tour, the doctor,
#             first_call's tests, then README.md's test command and the
#             starters' own checks in the container (its GCC 14, Benchmark
#             1.9, mimalloc 3, musl 1.2.5 and glibc 2.41;
#             tools/ci/test_in_container.sh). It runs in the background,
#             beside the other legs: its base image and packages are
#             downloads and unpacking, which their builds overlap.
#   asan      //... under AddressSanitizer+UBSan,
#   tsan      //... under ThreadSanitizer, both without the tests tagged
#             no_asan / no_tsan (a fact a sanitizer changes: glibc's
#             malloc, which both replace; page faults, which their shadow
#             memory adds to), the known-bads and the order tests (their
#             facts do not change under a sanitizer),
#   arm64     //... cross-built for arm64, its tests under qemu-user
#             (tools/ci/test_arm64.sh).
#
# Usage: bash tools/ci/legs.sh [debian13] [asan] [tsan] [arm64]
#   no leg named: all four. Needs root (apt-get, a Docker daemon, mount)
#   on Debian 12 or later; tools/setup.sh --maintainer first.
# Exit 0 when every leg named passed, 1 when one did not, 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/phases.sh

all_legs=(debian13 asan tsan arm64)
legs=()
for leg in "$@"; do
  case " ${all_legs[*]} " in
    *" ${leg} "*) legs+=("${leg}") ;;
    *)
      echo "legs.sh: unknown leg '${leg}' (legs: ${all_legs[*]})" >&2
      exit 2
      ;;
  esac
done
((${#legs[@]})) || legs=("${all_legs[@]}")
wants() { [[ " ${legs[*]} " == *" $1 "* ]]; }

if wants debian13; then
  missing=()
  for tool in debootstrap:debootstrap dockerd:docker.io; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
  done
  if ((${#missing[@]})); then
    echo "== installing the Debian 13 leg's tools: ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  fi
fi

phases_init
deb13_log=""
trap '[[ -z "${deb13_pid:-}" ]] || pkill -TERM -P "${deb13_pid}" 2>/dev/null || true
  phases_cleanup; rm -f "${deb13_log}"' EXIT

# The Debian 13 leg, in the background. The known-bad and order tests
# (tags known_bad, order) judge the grader, which .ci/run judges on the
# same code: here they would be most of the leg's time, and prove nothing
# more. The other correct designs (tag correct_design, manual) run: each
# is an allocator of its own, built by Debian 13's GCC 14.
debian13_leg() {
  bash tools/ci/test_in_container.sh trixie -- bash -c '
    set -uo pipefail
    status=0
    mapfile -t designs < <(bazel query "attr(tags, correct_design, tests(//...))")
    bazel test --build_tests_only --test_tag_filters=-known_bad,-order \
      //... "${designs[@]}" || status=1
    mapfile -t integrity < <(bazel query "attr(tags, course_integrity, //tests/...)")
    bazel test "${integrity[@]}" || status=1
    exit "${status}"'
}
if wants debian13; then
  deb13_log="$(mktemp)"
  deb13_start=${SECONDS}
  echo "== debian13: started in the background (its output when it is joined)"
  debian13_leg >"${deb13_log}" 2>&1 &
  deb13_pid=$!
fi

# The other correct designs' tests (tag correct_design) are the grader's,
# left out of //... (manual), and named here: a design must be as free of
# races and undefined behaviour as the reference.
if wants asan || wants tsan; then
  mapfile -t designs < <(bazel query 'attr(tags, "\bcorrect_design\b", tests(//...))' 2>/dev/null)
fi
if wants asan; then
  run_tests bazel test --config=asan --config=ubsan --build_tests_only \
    --test_tag_filters=-no_asan,-known_bad,-order //... "${designs[@]}"
fi
if wants tsan; then
  run_tests bazel test --config=tsan --build_tests_only \
    --test_tag_filters=-no_tsan,-known_bad,-order //... "${designs[@]}"
fi
# It prints the tests it ran and, per reason, those it left out.
if wants arm64; then
  run_tests bash tools/ci/test_arm64.sh
fi

if wants debian13; then
  deb13_status=0
  wait "${deb13_pid}" || deb13_status=$?
  deb13_pid=""
  echo "== debian13 (started at ${deb13_start} s, in the background)"
  cat "${deb13_log}"
  echo "== $((SECONDS - deb13_start)) s: debian13"
  tally debian13 "${deb13_log}" "${deb13_status}" "$((SECONDS - deb13_start))"
fi

phases_summary "$(wants debian13 && echo "debian13 ran beside the others")"
exit "${overall}"
