#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# The course on arm64, on this x86-64 machine: every target of //...
# cross-built with Debian's aarch64 toolchain (g++-aarch64-linux-gnu)
# against Debian's arm64 packages (Abseil, GoogleTest, Benchmark, the
# allocators, musl), and the tests run under qemu-user through binfmt_misc.
# .ci/run's arm64 leg.
#
# How: //tools/ci/arm64:toolchain is a cc_toolchain for the TARGET
# configuration only (--crosstool_top, --cpu=aarch64); the host/exec
# configuration keeps the machine's own toolchain (--host_crosstool_top,
# --host_cpu=k8), so whatever Bazel runs during the build stays native
# x86-64 and only the tests and the programs they run are emulated. The
# same output base as the x86-64 build: the configurations write to
# bazel-out/aarch64-fastbuild and bazel-out/k8-fastbuild, side by side (a
# second output base would also see the first one's convenience symlinks
# as packages of //...). musl_binary's musl-gcc is found on PATH: a
# directory holding an aarch64 musl-gcc (Debian's musl-dev:arm64 specs)
# comes first; its name is fixed, since PATH is part of every action's key.
#
# Which tests run: every test of //... but a fact qemu-user cannot give
# (built, not run), and the grader's own checks, which //... leaves out:
# - a fact qemu-user cannot give: tagged no_qemu_user in its BUILD, with
#   the reason and one tag more (or two) that names it (the list `reasons`;
#   a lab's generated tests get theirs through lab_tests' test_tags and
#   tools/lab/qemu.bzl's qemu_tags());
# - the known-bads and the order tests (manual, tags known_bad and order;
#   --all names them). They judge the grader (does each plausible wrong task.cc fail
#   the tests it must; is a verdict the same in any order), which the
#   x86-64 legs of the same CI judge on the same code. Under qemu-user
#   they are most of the time: a whole run (--all) took 1,441 s of wall
#   time at load 6 to 9, the order tests alone 1,010 s of its 2,814 s of
#   test time; the default mode, build and 86 tests (78 once the 8 whose
#   facts are the emulator's were tagged), 566 s at load 2 to 3
#   (2026-12-03, on the course's 2-core machine, --jobs=2).
#   Of the 151 known-bads, 15 are tagged no_qemu_user like their lab's
#   solution_test: their named tests fail on the reference there too
#   (measured by running every known-bad under qemu-user, 2026-12-03);
# - the other correct designs' tests (design_<design>_test, tags
#   correct_design and manual): they judge the grader too, from the other
#   side (does the suite pass every correct allocator, not the reference's
#   alone), on the same code the x86-64 legs judge. Named here and built,
#   so that each design compiles for arm64; not run: under qemu-user they took 191 s of
#   the leg's 430 s of test time (allocator_design's two 165 s,
#   jemalloc_adoption's 27 s; CI of 2026-12-06, load 2).
# The leg prints how many ran and how many were left out, by group.
#
# Usage: bash tools/ci/test_arm64.sh [--all] [BAZEL FLAG...]
#   default: build all of //... for arm64, then test all of it under
#            qemu-user but the groups above;
#   --all:   the known-bads, order tests and designs too (about 25 minutes
#            more on the course's 2-core machine: not in CI's budget).
# Needs root (apt-get, mount) on Debian 12 or later.
set -euo pipefail
cd "$(dirname "$0")/../.."

start=${SECONDS}
echo "== arm64: packages"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
fi
# jemalloc's library only: the course preloads libjemalloc.so.2 and never
# links it, and libjemalloc-dev is not Multi-Arch, so its arm64 package
# would remove the machine's own (and with it pkg-config's jemalloc.pc,
# which tools/setup.sh checks).
packages=(
  g++-aarch64-linux-gnu qemu-user-static binfmt-support
  libabsl-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
  libbenchmark-dev:arm64 libjemalloc2:arm64
  libgoogle-perftools-dev:arm64 libmimalloc-dev:arm64 musl-dev:arm64
)
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  "${packages[@]}"
echo "== arm64: packages took $((SECONDS - start)) s"

echo "== arm64: binfmt_misc runs aarch64 programs through qemu"
if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
update-binfmts --enable qemu-aarch64
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] ||
  { echo "qemu-aarch64 is not registered with binfmt_misc" >&2; exit 1; }

# musl-gcc for aarch64: Debian's musl-gcc with the cross compiler and the
# arm64 specs.
shim="${TMPDIR:-/tmp}/alloclab-arm64-musl"
mkdir -p "${shim}"
cat >"${shim}/musl-gcc" <<'SHIM'
#!/bin/sh
exec aarch64-linux-gnu-gcc "$@" -specs /usr/lib/aarch64-linux-musl/musl-gcc.specs
SHIM
chmod +x "${shim}/musl-gcc"

# Each reason a test is left out, as "tag: why"; every no_qemu_user test
# carries at least one of these tags as well.
reasons=(
  "qemu_ptrace: qemu-user answers ptrace with ENOSYS (syscall counts)"
  "qemu_seccomp: qemu-user does not install the program's seccomp filter"
  "qemu_thp: qemu-user refuses prctl(PR_SET_THP_DISABLE); MADV_NOHUGEPAGE leaves no mark"
  "qemu_faults: page faults under qemu-user are the emulator's (its own mappings, its translation cache)"
  "qemu_madvise: qemu-user 7.2 answers madvise with 0 and does nothing (MADV_POPULATE_WRITE faults in no page)"
  "qemu_host_programs: the machine's own programs (ldconfig, python3, sqlite3, ...) are x86-64"
)
mapfile -t all_tests < <(bazel query 'tests(//...) except attr(tags, "\bmanual\b", tests(//...))' 2>/dev/null)
mapfile -t left_out < <(bazel query 'attr(tags, "\bno_qemu_user\b", tests(//...)) except attr(tags, "\bmanual\b", tests(//...))' 2>/dev/null)
mapfile -t designs < <(bazel query 'attr(tags, "\bcorrect_design\b", tests(//...)) except attr(tags, "\bno_qemu_user\b", tests(//...))' 2>/dev/null)
# Every left-out test names at least one reason (a test may have two).
reason_tags="$(for reason in "${reasons[@]}"; do printf '%s|' "${reason%%:*}"; done)"
mapfile -t reasoned < <(bazel query "attr(tags, '\b(${reason_tags%|})\b', tests(//...)) except attr(tags, '\bmanual\b', tests(//...))" 2>/dev/null)
if ((${#reasoned[@]} != ${#left_out[@]})); then
  echo "arm64: ${#left_out[@]} tests are tagged no_qemu_user but" \
    "${#reasoned[@]} carry a reason's tag (tools/ci/test_arm64.sh's reasons):" >&2
  comm -3 <(printf '%s\n' "${left_out[@]}" | sort) \
    <(printf '%s\n' "${reasoned[@]}" | sort) >&2
  exit 1
fi

cross=(
  --crosstool_top=//tools/ci/arm64:toolchain --cpu=aarch64
  --host_crosstool_top=@local_config_cc//:toolchain --host_cpu=k8
)
build_start=${SECONDS}
status=0
# The grader's own checks (manual, tags known_bad and order; the starter's
# order test is course_integrity's): //... leaves them out, --all names them.
mapfile -t grader < <(bazel query 'attr(tags, "\b(known_bad|order)\b", tests(//...)) except attr(tags, "\b(course_integrity|no_qemu_user)\b", tests(//...))' 2>/dev/null)
# The designs' tests are the grader's too (manual): named here, so that
# each design is built for arm64; by default not run (the filter).
targets=(//... "${designs[@]}")
if [[ "${1:-}" == "--all" ]]; then
  shift
  targets+=("${grader[@]}")
  grader=()
  designs=()
  cross+=(--test_tag_filters=-no_qemu_user,-browser)
else
  cross+=(--test_tag_filters=-no_qemu_user,-browser,-correct_design)
fi
echo "== arm64: bazel test //... (cross-built; tests under qemu-user)"
PATH="${shim}:${PATH}" bazel test "${cross[@]}" "$@" "${targets[@]}" || status=$?
echo "== arm64: bazel took $((SECONDS - build_start)) s, exit ${status}"

echo "== arm64: $((${#all_tests[@]} - ${#left_out[@]})) of" \
  "${#all_tests[@]} tests of //... ran under qemu-user; left out:"
for reason in "${reasons[@]}"; do
  n=$(bazel query "attr(tags, '\b${reason%%:*}\b', tests(//...)) except attr(tags, '\bmanual\b', tests(//...))" 2>/dev/null | wc -l)
  echo "   ${n} ${reason} (built, not run)"
done
if ((${#designs[@]})); then
  echo "   ${#designs[@]} correct_design: the other correct designs, which judge" \
    "the grader; built here, run by the x86-64 legs"
fi
if ((${#grader[@]})); then
  echo "   ${#grader[@]} known_bad, order: the grader's own checks, judged by the" \
    "x86-64 legs (bash tools/ci/test_arm64.sh --all runs them here too)"
fi
echo "== arm64: ${SECONDS} s in all; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "${status}"
