#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# Proves docs/adding_a_lab.md's promise that a new lab is one line in
# labs.bzl: in a scratch copy of the repository (the files git tracks, as
# they are in the work tree, and user.bazelrc, so the copy shares the disk
# cache), tools/lab/new_lab.sh makes lab toy_lab from the template; then the
# doctor, the tour, the board, the pictures (//tools/plot:plot_test), the
# quick-versus-full check (//tools/report:quick_full_test), the course's
# integrity (//:course_integrity_test, the lab's course_integrity tests) and
# the lab's own tests must all take it, with no other edit. The files
# new_lab.sh changed must be exactly those docs/adding_a_lab.md's section 9
# says it changes; //tools/checks:readme_labs_test must fail, naming toy_lab,
# until the edits the doc says are made by hand are made, and pass after
# them. The work tree itself is never touched.
#
# Usage:
#   tools/ci/new_lab_check.sh [--paste-list FILE] [-- BAZEL_FLAGS...]
#
#   --paste-list FILE  before the checks, paste a list of the labs (the ones
#                      before toy_lab) into FILE, a Python tool of the copy,
#                      as a tool that keeps its own list would: the check
#                      must then fail (this shows it can)
#   BAZEL_FLAGS        flags for every bazel command (e.g. --jobs=2)
#
# Exit 0 when every check holds; 1 when one does not (the summary says
# which); 2 on bad usage. .ci/run runs it with no arguments.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
lab="toy_lab"

usage() {
  sed -n '/^# Usage:/,/^#   BAZEL_FLAGS/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

paste_into=""
bazel_flags=()
while (($#)); do
  case "$1" in
    --paste-list) paste_into="${2:?--paste-list needs a FILE}"; shift ;;
    --) shift; bazel_flags=("$@"); break ;;
    -h | --help) usage ;;
    *) echo "new_lab_check: unknown argument $1" >&2; usage ;;
  esac
  shift
done

# shellcheck source=tools/ci/scratch_copy.sh
source "${repo}/tools/ci/scratch_copy.sh"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/alloclab-new-lab-check.XXXXXX")"
copy="${scratch}/repo"
trap 'remove_scratch "${scratch}" "${copy}"' EXIT

copy_tracked_files "${repo}" "${copy}"
cd "${copy}"
# The copy as a repository of its own: what new_lab.sh touches is its diff.
git init -q .
git add -A
git -c user.name=new_lab_check -c user.email=new_lab_check@localhost \
  commit -q -m "the course before ${lab}"

failures=()
fail() {
  echo "FAIL: $*"
  failures+=("$*")
}

# The labs before toy_lab (LABS in labs.bzl, through tools/labs.py), and
# its number.
mapfile -t labs < <(python3 -m tools.labs)
number=$((${#labs[@]} + 1))

echo "== tools/lab/new_lab.sh ${lab}"
bash tools/lab/new_lab.sh "${lab}" -- "${bazel_flags[@]}"

if [[ -n "${paste_into}" ]]; then
  echo "== pasting a list of labs into ${paste_into}, as a tool of its own"
  printf '\n# The labs this tool knows.\nOWN_LABS = [%s]\n' \
    "$(printf '"%s", ' "${labs[@]}" | sed 's/, $//')" >>"${paste_into}"
fi

# The edits to existing files docs/adding_a_lab.md's section 9 lists: the
# rows of its table after "Edits to existing files", as (file, who).
doc_rows="$(awk '/^Edits to existing files/ {on = 1; next}
  on && /^\|/ {table = 1; print; next}
  table {exit}' docs/adding_a_lab.md |
  sed -n 's/^| `\([^`]*\)` | .* | \(.*\) |$/\1\t\2/p')"
doc_by_script="$(awk -F'\t' '$2 ~ /new_lab\.sh/ {print $1}' <<<"${doc_rows}" |
  sort)"
doc_by_hand="$(awk -F'\t' '$2 !~ /new_lab\.sh/ {print $1}' <<<"${doc_rows}" |
  sort)"
touched="$(git diff --name-only | sort)"
if [[ -n "${paste_into}" ]]; then
  touched="$(grep -vxF "${paste_into}" <<<"${touched}" || true)"
fi
echo "== edits to existing files by tools/lab/new_lab.sh: $(echo ${touched})"
if [[ -z "${doc_by_script}" ]]; then
  fail "docs/adding_a_lab.md: no table of edits to existing files"
elif [[ "${touched}" != "${doc_by_script}" ]]; then
  fail "tools/lab/new_lab.sh changed [$(echo ${touched})], docs/adding_a_lab.md says [$(echo ${doc_by_script})]"
fi

echo "== bazel run //:doctor"
if ! bazel run "${bazel_flags[@]}" //:doctor >"${scratch}/doctor.txt"; then
  fail "//:doctor did not run"
elif ! grep -E "^${number} ${lab} +yes " "${scratch}/doctor.txt"; then
  fail "//:doctor has no line '${number} ${lab} yes'"
fi

echo "== bazel run //:tour -- --labs=${lab}"
if ! bazel run "${bazel_flags[@]}" //:tour -- --labs="${lab}" \
  --out="${scratch}/tour" >"${scratch}/tour.txt"; then
  fail "//:tour failed on ${lab}"
elif [[ ! -f "${scratch}/tour/${lab}.svg" ]] ||
  ! grep -E "^${lab} .*0 of 3" "${scratch}/tour.txt"; then
  fail "//:tour drew no picture or summary line of ${lab}"
fi

echo "== bazel run //:board -- --labs=${lab}"
# The starter leaves the sum at 0: the board says the lab is not solved.
if ! bazel run "${bazel_flags[@]}" //:board -- --labs="${lab}" \
  >"${scratch}/board.txt"; then
  fail "//:board did not run on ${lab}"
elif ! grep -E "^${lab} +not yet " "${scratch}/board.txt"; then
  fail "//:board has no line '${lab} not yet'"
fi

echo "== the course's tests of every lab, and ${lab}'s own"
mapfile -t integrity < <(bazel query \
  "attr(tags, course_integrity, //tests/${lab}/...)" 2>/dev/null)
if ((${#integrity[@]} == 0)); then
  fail "//tests/${lab} has no test tagged course_integrity"
fi
if ! bazel test "${bazel_flags[@]}" //tools/plot:plot_test //tools/report:quick_full_test \
  //tools/doctor:doctor_test //tools/checks:one_list_test //:course_integrity_test \
  //:doc_names_test "//tests/${lab}:all" "${integrity[@]}"; then
  fail "a test of the course failed on ${lab} (above)"
fi

echo "== //tools/checks:readme_labs_test names the edits by hand"
set +e
bazel test "${bazel_flags[@]}" --test_output=errors //tools/checks:readme_labs_test \
  >"${scratch}/readme.txt" 2>&1
readme=$?
set -e
named=""
for file in ${doc_by_hand}; do
  if grep -q "lab ${lab} of labs.bzl has no row in ${file}" \
    "${scratch}/readme.txt"; then
    named+="${file} "
  fi
done
echo "named: ${lab} has no row in $(echo ${named:-nothing})"
if ((readme == 0)) || [[ "$(echo ${named})" != "$(echo ${doc_by_hand})" ]]; then
  fail "//tools/checks:readme_labs_test did not fail naming ${lab} in [$(echo ${doc_by_hand})] (it named [$(echo ${named})])"
fi
# The edits by hand, as the lab's author makes them.
words=(zero one two three four five six seven eight nine ten eleven twelve)
before="${words[${#labs[@]}]}"
after="${words[${number}]}"
sed -i -e "s/in ${before} C++ labs/in ${after} C++ labs/" \
  -e "/^| \`${labs[-1]}\` |/a | \`${lab}\` | what one SumTo(n) costs | [docs/labs/${lab}.md](docs/labs/${lab}.md) |" \
  README.md
sed -i -e "s/^${before^} labs on/${after^} labs on/" \
  -e "/^| ${#labs[@]} | \[${labs[-1]}\]/a | ${number} | [${lab}](labs/${lab}.md) | what one SumTo(n) costs | any machine |" \
  docs/README.md
if ! bazel test "${bazel_flags[@]}" //tools/checks:readme_labs_test; then
  fail "//tools/checks:readme_labs_test failed after the edits by hand"
fi
all_touched="$(git diff --name-only | sort)"
doc_all="$(cut -f1 <<<"${doc_rows}" | sort)"
if [[ -n "${paste_into}" ]]; then
  all_touched="$(grep -vxF "${paste_into}" <<<"${all_touched}" || true)"
fi
count=$(wc -l <<<"${all_touched}")
echo "== edits to existing files for lab ${lab}: ${count} ($(echo ${all_touched}))"
if [[ "${all_touched}" != "${doc_all}" ]]; then
  fail "the edits to existing files [$(echo ${all_touched})] are not docs/adding_a_lab.md's [$(echo ${doc_all})]"
fi

if ((${#failures[@]})); then
  echo "new_lab_check: ${#failures[@]} check(s) failed (${SECONDS} s):"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "new_lab_check: lab ${lab} is in every tool; ${count} edits to existing files, as docs/adding_a_lab.md says (${SECONDS} s)"
