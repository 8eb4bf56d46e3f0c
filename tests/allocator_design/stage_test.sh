#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# One stage of the capstone (tests/allocator_design/stages.bzl): the
# learner's suite binary with the stage's --gtest_filter, as the test
# itself, so that its report and exit status are the stage's.
#
# Usage: stage_test.sh SUITE_BINARY FILTER TITLE
set -u
if [[ $# -ne 3 ]]; then
  echo "usage: stage_test.sh SUITE_BINARY FILTER TITLE" >&2
  exit 2
fi
echo "${3}: the suite's tests ${2}"
exec "${1}" "--gtest_filter=${2}"
