#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# doc_names_check's own test: on a small tree made here, a doc whose names
# all exist (a design's suite test and a stage's test among them) passes,
# and each kind of name that does not exist (target, flag, API name, path,
# a stage out of its place) fails with the doc's line; a constant's value
# quoted as its source defines it passes, and a different value, or a
# constant no source defines, fails; an allowlisted name passes; bad input
# exits 2.
#
# Usage: doc_names_check_test.sh DOC_NAMES_CHECK
set -u
source tools/checks/expect.sh
checker="$1"
failures=0
root="${TEST_TMPDIR:-$(mktemp -d)}/tree"
mkdir -p "${root}/common" "${root}/docs" "${root}/tests/lab"
cat >"${root}/common/BUILD" <<'X'
cc_library(
    name = "thing",
)
X
cat >"${root}/tests/lab/BUILD" <<'X'
lab_tests(
    name = "lab",
    designs = {
        "other": "//solutions/lab:other",
    },
)
X
cat >"${root}/tests/lab/stages.bzl" <<'X'
STAGES = [
    {"name": "first", "tests": ["A"]},
    {
        "name": "second",
        "tests": ["B"],
    },
]
X
cat >"${root}/common/thing.h" <<'X'
namespace alloclab { int Frobnicate(int x); struct ThingSpec {}; }
inline constexpr size_t kThingBytes = size_t{4} << 20;
constexpr int kThingBase = 8;
constexpr uint64_t kThingCount = 2 * kThingBase;
constexpr double kThingShare = 0.5;
constexpr uint64_t kThingNs = 1'000'000'000;
constexpr const char* kThingName = "thing";
X
cat >"${root}/common/thing.cc" <<'X'
ABSL_FLAG(int, size_kib, 256, "KiB");
X
cat >"${root}/docs/good.md" <<'X'
Run `bazel run //common:thing -- --size_kib=4`; see `//common:thing.h`,
`common/thing.h`, `alloclab::Frobnicate()`, `ThingSpec` and `//...`.
A design's suite: `bazel test //tests/lab:design_other_test`.
Stages: `bazel test //tests/lab:stage_1_first_test`, `//tests/lab:stage_2_second_test`.
`a shell command | not a name` and `null` are not names.
Constants: `kThingBytes` = 4 << 20 (4 MiB), `kThingBytes` (4 MiB),
`kThingBytes` = 4,194,304 bytes, `kThingCount` = 16, `kThingShare` = 0.5,
`kThingNs` = 1'000'000'000; `kThingName` has no number, and `kThingBase`
(the base) quotes none.
```
`//common:in_a_fence_is_an_example`
```
X
printf 'one `Unheard()` line\n' >"${root}/docs/allowed.md"
printf 'Unheard()   # a comment\n' >"${root}/allow.txt"
: >"${root}/empty.txt"

subject() { "${checker}" --root="${root}" "$@"; }
expect good 0 'every name exists' -- --allowlist="${root}/empty.txt" \
  "${root}/docs/good.md"
expect allowed 0 'every name exists' -- --allowlist="${root}/allow.txt" \
  "${root}/docs/allowed.md"
bad() {
  local name="$1" span="$2" why="$3"
  printf 'line one\nsee `%s` here\n' "${span}" >"${root}/docs/${name}.md"
  expect "${name}" 1 "docs/${name}.md:2: .*${why}" -- \
    --allowlist="${root}/empty.txt" "${root}/docs/${name}.md"
}
bad no_target '//common:other' 'no target //common:other'
bad no_package 'bazel test //nowhere:thing' 'no target //nowhere:thing'
bad no_design '//tests/lab:design_missing_test' 'no target //tests/lab:design_missing_test'
bad no_stage '//tests/lab:stage_2_first_test' 'no target //tests/lab:stage_2_first_test'
bad stage_past_the_last '//tests/lab:stage_3_third_test' 'no target //tests/lab:stage_3_third_test'
bad no_flag '--sizes_kib=4' 'no program defines the flag --sizes_kib'
bad no_function 'alloclab::Frobnicated()' 'no declaration of alloclab::Frobnicated'
bad no_type 'ThingSpecs' 'no declaration of ThingSpecs'
bad no_path 'common/thing2.h' 'no file or directory common/thing2.h'
bad_value() {
  local name="$1" text="$2" why="$3"
  printf 'line one\nthe doc says %s here\n' "${text}" >"${root}/docs/${name}.md"
  expect "${name}" 1 "docs/${name}.md:2: .*${why}" -- \
    --allowlist="${root}/empty.txt" "${root}/docs/${name}.md"
}
bad_value wrong_value '`kThingBytes` (8 MiB)' 'kThingBytes is 4194304 in the source \(size_t\{4\} << 20\), not 8388608'
bad_value wrong_derived '`kThingCount` = 15.' 'kThingCount is 16 in the source \(2 \* kThingBase\), not 15'
bad_value wrong_share '`kThingShare` = 0.25' 'kThingShare is 0.5 in the source'
bad_value no_constant '`kNoThing` = 3' 'no constant kNoThing is defined'
expect no_root 2 'is not a directory' -- --root=/nonexistent \
  --allowlist="${root}/empty.txt" "${root}/docs/good.md"
finish "doc_names_check_test: names that exist pass, each kind of missing name fails, a constant's value must be its source's"
