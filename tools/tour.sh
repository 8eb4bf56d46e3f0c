#!/usr/bin/env bash
# The tour: every lab's experiment, on your task.cc, in quick mode, one after
# the other. `bazel run //:tour` builds them all first; arguments given after
# `--` go to every experiment (e.g. --repetitions=3).
set -uo pipefail
for arg in "${@}"; do
  if [[ "${arg}" == --json* ]]; then
    echo "tour: --json would make every lab write the same file; run one lab with --json instead" >&2
    exit 1
  fi
done
status=0
for experiment in "${@}"; do
  [[ "${experiment}" == --* ]] && continue
  name="$(basename "${experiment}")"
  echo
  echo "=== ${name}: bazel run //labs/${name} -- --quick"
  flags=()
  for arg in "${@}"; do [[ "${arg}" == --* ]] && flags+=("${arg}"); done
  if ! "${experiment}" --quick "${flags[@]}"; then
    echo "=== ${name} failed" >&2
    status=1
  fi
done
exit "${status}"
