#!/usr/bin/env bash
# The churn program, built against glibc and against musl: the same seed and
# iterations give the same checksum under both libcs (the two builds do the
# same work), with and without the recycler; bad input exits 2 with a
# message that names the problem; --help exits 0.
#
# Usage: churn_cli_test.sh CHURN_GLIBC CHURN_MUSL
set -u
source tools/checks/expect.sh
glibc="$1"
musl="$2"
failures=0
checksum() {
  "$@" | sed -n 's/.*checksum=\(0x[0-9a-f]*\).*/\1/p'
}

for scale in 1024 256; do
  args=(--iterations=20000 "--scale=${scale}" --seed=42)
  a="$(checksum "${glibc}" "${args[@]}")"
  b="$(checksum "${musl}" "${args[@]}")"
  c="$(checksum "${musl}" "${args[@]}" --recycle_bound=8388608)"
  if [[ -z "${a}" || "${a}" != "${b}" || "${b}" != "${c}" ]]; then
    fail "scale ${scale}: glibc '${a}', musl '${b}', musl recycled '${c}'; want one checksum"
  else
    echo "ok: scale ${scale}: glibc and musl both give ${a}"
  fi
done
"${musl}" --iterations=20000 --seed=43 | grep -q "libc=musl" || fail "the musl build does not say libc=musl"
"${glibc}" --iterations=20000 --seed=43 | grep -q "libc=glibc" || fail "the glibc build does not say libc=glibc"

# Bad input: exit 2 and a message naming the argument.
expect_refused() {
  local want="$1"
  shift
  for binary in "${glibc}" "${musl}"; do
    out="$("${binary}" "$@" 2>&1)"
    status=$?
    if [[ ${status} -ne 2 ]] || ! grep -qF -- "${want}" <<<"${out}"; then
      fail "$(basename "${binary}") $*: exit ${status}, output '${out}'; want exit 2 naming '${want}'"
    fi
  done
  echo "ok: refused: $*"
}
expect_refused "--no_such_flag" --no_such_flag=1
expect_refused "--iterations=abc" --iterations=abc
expect_refused "--iterations=0" --iterations=0
expect_refused "--iterations=-5" --iterations=-5
expect_refused "--scale=65537" --scale=65537
expect_refused "--scale=" --scale=
expect_refused "--seed=1x" --seed=1x
expect_refused "extra" extra
expect_refused "--iterations" --iterations 100

"${musl}" --help | grep -q "usage: churn" || fail "--help prints no usage"
echo "ok: --help"

finish "churn_cli_test: the same checksums under both libcs, bad input refused"
