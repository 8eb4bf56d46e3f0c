#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# Proves the README's promise: solving a lab, or every lab, keeps
# `bazel test //...` green. In a scratch copy of the repository (the files
# git tracks, as committed or changed in the work tree, and user.bazelrc if
# there is one), each lab's reference solution is copied over its starter
# (solutions/<lab>/task.cc or task.c -> labs/<lab>/), as a learner who has
# solved it would have it; then `bazel test //...` runs there, and so does
# each solved lab's starter_test, which must now pass. The work tree itself
# is never touched.
#
# Usage:
#   tools/ci/solved_course_check.sh            every lab solved at once, then
#                                              each lab whose lab_facts.py sets
#                                              SOLVED_ALONE, solved alone
#   tools/ci/solved_course_check.sh LAB...     only these labs solved, together
#   tools/ci/solved_course_check.sh --each     each lab solved alone, in turn
#                                              (slow: one //... per lab)
#   tools/ci/solved_course_check.sh --list-labs
#                                              print the labs, one a line, and
#                                              stop (//tools/checks:one_list_test)
#   Flags after `--` go to every `bazel test` (e.g. -- --jobs=2).
#
# Exit 0 when every run is green; 1 when one is not (its summary says
# which); 2 on bad usage. .ci/run runs it with no arguments.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"

usage() {
  sed -n '/^# Usage:/,/^# which/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# The labs, in course order, from the one list: LABS in labs.bzl. This
# script runs outside Bazel, where there is no labs.txt, so it reads the
# file through the one reader, tools/labs.py; //tools/checks:one_list_test holds
# what it reads (--list-labs) to the labs.txt Bazel writes from the same
# list.
mapfile -t all_labs < <(cd "${repo}" && python3 -m tools.labs)
if ((${#all_labs[@]} == 0)); then
  echo "solved_course_check: no LABS list in ${repo}/labs.bzl" >&2
  exit 2
fi

each=0
labs=()
bazel_flags=()
while (($#)); do
  case "$1" in
    --each) each=1 ;;
    --list-labs)
      printf '%s\n' "${all_labs[@]}"
      exit 0
      ;;
    --) shift; bazel_flags=("$@"); break ;;
    -h | --help) usage ;;
    -*) echo "solved_course_check: unknown flag $1" >&2; usage ;;
    *)
      if [[ ! " ${all_labs[*]} " == *" $1 "* ]]; then
        echo "solved_course_check: '$1' is not a lab (${all_labs[*]})" >&2
        exit 2
      fi
      labs+=("$1")
      ;;
  esac
  shift
done

# The rounds: each is a space-separated list of labs solved together.
rounds=()
if ((each)); then
  rounds=("${all_labs[@]}")
elif ((${#labs[@]})); then
  rounds=("${labs[*]}")
else
  # Every lab at once, then each lab whose lab_facts.py asks for a round
  # of its own (SOLVED_ALONE, with the reason), alone.
  mapfile -t alone < <(cd "${repo}" && python3 -m tools.labs --with SOLVED_ALONE)
  rounds=("${all_labs[*]}" "${alone[@]}")
fi

# shellcheck source=tools/ci/scratch_copy.sh
source "${repo}/tools/ci/scratch_copy.sh"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/alloclab-solved.XXXXXX")"
copy="${scratch}/repo"
# The copy keeps one output base across rounds (one path), so a round
# rebuilds only what its solved labs change; at the end it goes, server and
# all.
trap 'remove_scratch "${scratch}" "${copy}"' EXIT

# solve LAB: the reference over the starter, in the copy.
solve() {
  local lab="$1" file
  for file in task.cc task.c; do
    if [[ -f "${repo}/solutions/${lab}/${file}" ]]; then
      cp "${repo}/solutions/${lab}/${file}" "${copy}/labs/${lab}/${file}"
      return 0
    fi
  done
  echo "solved_course_check: solutions/${lab} has no task.cc or task.c" >&2
  return 1
}

failed=()
for round in "${rounds[@]}"; do
  read -r -a solved <<<"${round}"
  echo "== solved: ${solved[*]}"
  rm -rf "${copy}"
  copy_tracked_files "${repo}" "${copy}"
  for lab in "${solved[@]}"; do solve "${lab}"; done
  starter_tests=()
  for lab in "${solved[@]}"; do
    starter_tests+=("//tests/${lab}:starter_test")
  done
  # //... must stay green, and each solved starter now passes its check.
  if (cd "${copy}" && bazel test "${bazel_flags[@]}" //... \
    "${starter_tests[@]}"); then
    echo "== green with ${solved[*]} solved"
  else
    echo "== RED with ${solved[*]} solved" >&2
    failed+=("${round}")
  fi
done

if ((${#failed[@]})); then
  for round in "${failed[@]}"; do
    echo "solved_course_check: bazel test //... is red with these labs" \
      "solved: ${round}" >&2
  done
  exit 1
fi
echo "solved_course_check: ${#rounds[@]} round(s), each green"
