#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# Makes a new lab from the template the repository keeps
# (tools/lab/lab_template/), at the end of the course: its starter, reference,
# suite with two known-bads, lab_facts.py, doctor rule and chapter stub,
# the one line in labs.bzl's LABS, and the fixtures the course's tests read
# (docs/adding_a_lab.md, section 9). The lab builds, passes its tests and
# is in every tool at once; then its files are the lab's author's to fill.
#
# Usage:
#   tools/lab/new_lab.sh NAME [--no-fixtures] [-- BAZEL_FLAGS...]
#
#   NAME           the lab, lower case, digits and underscores (my_lab)
#   --no-fixtures  write no fixture, run no bazel (only the files and the
#                  line in labs.bzl)
#   BAZEL_FLAGS    flags for every `bazel run` (e.g. --jobs=2)
#
# The fixtures, from real runs of the new lab: the reference's quick and
# full runs (tools/report/testdata/quick_full/NAME_{quick,full}.json), the starter
# beside the reference as the tour draws it (docs/img/NAME.svg with its two
# JSON files, which //tools/plot:plot_test draws through //:committed_runs).
#
# Of the files that exist already it edits labs.bzl only.
# //tools/checks:readme_labs_test then names the two by hand: README.md's list of
# labs and docs/README.md's syllabus.
#
# Exit 0 when the lab is made; 1 when a step fails; 2 on bad usage.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
template="${repo}/tools/lab/lab_template"

usage() {
  sed -n '/^# Usage:/,/^#   BAZEL_FLAGS/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

name=""
fixtures=1
bazel_flags=()
while (($#)); do
  case "$1" in
    --no-fixtures) fixtures=0 ;;
    --) shift; bazel_flags=("$@"); break ;;
    -h | --help) usage ;;
    -*) echo "new_lab: unknown flag $1" >&2; usage ;;
    *)
      [[ -z "${name}" ]] || { echo "new_lab: one NAME only" >&2; usage; }
      name="$1"
      ;;
  esac
  shift
done
[[ -n "${name}" ]] || usage
if [[ ! "${name}" =~ ^[a-z][a-z0-9_]*$ ]]; then
  echo "new_lab: '${name}' is not a lab name (lower case, digits, _)" >&2
  exit 2
fi

# The labs: LABS in labs.bzl, through its one reader (tools/labs.py).
mapfile -t labs < <(cd "${repo}" && python3 -m tools.labs)
if ((${#labs[@]} == 0)); then
  echo "new_lab: no LABS list in ${repo}/labs.bzl" >&2
  exit 1
fi
for lab in "${labs[@]}"; do
  if [[ "${lab}" == "${name}" ]]; then
    echo "new_lab: ${name} is a lab already" >&2
    exit 2
  fi
done
for dir in labs solutions tests; do
  if [[ -e "${repo}/${dir}/${name}" ]]; then
    echo "new_lab: ${dir}/${name} exists" >&2
    exit 2
  fi
done

camel="$(sed -E 's/(^|_)([a-z0-9])/\U\2/g' <<<"${name}")"
upper="${name^^}"
number=$((${#labs[@]} + 1))

# make TEMPLATE DEST: the template, its placeholders replaced.
make() {
  mkdir -p "$(dirname "${repo}/$2")"
  sed -e "s/@lab@/${name}/g" -e "s/@Lab@/${camel}/g" \
    -e "s/@LAB@/${upper}/g" -e "s/@n@/${number}/g" \
    "${template}/$1" >"${repo}/$2"
  echo "  new  $2"
}

echo "== lab ${number}: ${name}"
for file in BUILD task.h task.cc experiment.cc lab_facts.py doctor_rule.h \
  doctor_rule.cc; do
  make "labs/${file}.tmpl" "labs/${name}/${file}"
done
make solutions/BUILD.tmpl "solutions/${name}/BUILD"
make solutions/task.cc.tmpl "solutions/${name}/task.cc"
for file in BUILD task_test.cc bad_off_by_one.cc \
  bad_product_in_32_bits.cc; do
  make "tests/${file}.tmpl" "tests/${name}/${file}"
done
make docs/chapter.md.tmpl "docs/labs/${name}.md"
# The name's length moves line breaks: the C++ files as clang-format writes
# them (tools/checks/format_check.sh), where it is installed.
if command -v clang-format >/dev/null; then
  (cd "${repo}" && clang-format -i --style=file "labs/${name}"/*.{h,cc} \
    "solutions/${name}/task.cc" "tests/${name}"/*.cc)
fi

# The one edit to a file that exists: the lab's line at the end of LABS.
sed -i "/^LABS = \[/,/^\]/s/^\]\$/    \"${name}\",\n]/" "${repo}/labs.bzl"
echo "  edit labs.bzl (LABS: ${name})"

if ((fixtures)); then
  echo "== fixtures: runs of the new lab"
  out="$(mktemp -d "${TMPDIR:-/tmp}/alloclab-new-lab.XXXXXX")"
  trap 'rm -rf "${out}"' EXIT
  quick_full="${repo}/tools/report/testdata/quick_full"
  cd "${repo}"
  bazel run "${bazel_flags[@]}" "//solutions/${name}" -- --quick \
    "--json=${quick_full}/${name}_quick.json"
  bazel run "${bazel_flags[@]}" "//solutions/${name}" -- \
    "--json=${quick_full}/${name}_full.json"
  # Section 8's command for this lab alone: the starter beside the reference.
  bazel run "${bazel_flags[@]}" //:tour -- --labs="${name}" --reference \
    "--out=${out}"
  for file in "${name}.svg" "${name}.json" "${name}_reference.json"; do
    cp "${out}/${file}" "${repo}/docs/img/${file}"
    echo "  new  docs/img/${file}"
  done
  echo "  new  tools/report/testdata/quick_full/${name}_quick.json"
  echo "  new  tools/report/testdata/quick_full/${name}_full.json"
fi

cat <<DONE
== next
Two edits by hand, which //tools/checks:readme_labs_test names until they are made:
  README.md       a row for ${name} in "The labs", and the count of labs
  docs/README.md  row ${number} of the syllabus, and the count of labs
Then make the lab your own: docs/adding_a_lab.md, sections 1 to 9.
DONE
