#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# Compiles and links a static C program against musl with musl-gcc: the
# action of musl_binary (tools/lab/musl.bzl). A missing musl-gcc stops the build
# with the Debian package to install, not with "command not found".
#
# Usage: musl_cc.sh OUTPUT SOURCE... [-- FLAG...]
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "musl_cc: usage: musl_cc.sh OUTPUT SOURCE... [-- FLAG...]" >&2
  exit 2
fi
output="$1"
shift
sources=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  sources+=("$1")
  shift
done
if [[ $# -gt 0 ]]; then
  shift
fi
if ! command -v musl-gcc >/dev/null 2>&1; then
  echo "musl_cc: musl-gcc is not on PATH (${PATH})." >&2
  echo "musl_cc: it comes with Debian's musl-tools package:" \
    "sudo apt-get install musl-tools (or sudo tools/setup.sh)." >&2
  exit 1
fi
# -I.: sources include headers by their path from the workspace root, as
# Bazel's cc rules do; the action runs in the execution root.
exec musl-gcc -static -I. "$@" -o "${output}" "${sources[@]}"
