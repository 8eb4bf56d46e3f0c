#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# The counting malloc forwards to the allocator that would otherwise serve
# the call: glibc's by default, jemalloc's when it is preloaded. $1 is
# alloc_counter_preload_check, which checks both the count and the server.
set -euo pipefail
check="$1"

echo "== glibc"
"${check}" glibc

echo "== LD_PRELOAD=libjemalloc.so.2"
LD_PRELOAD=libjemalloc.so.2 "${check}" jemalloc
