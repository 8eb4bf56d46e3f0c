#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# Allocator Labs set-up: installs every Debian package the labs need, on
# Debian 12 (bookworm) or 13 (trixie); with --maintainer, also the course
# maintainers' lint, buildifier, from the npm registry (and Debian's npm),
# which .ci/run checks BUILD files with and no lab uses. Idempotent: run it
# again any time. Every package below has the
# same name on both releases; the libraries they pull in differ (Debian 13:
# mimalloc 3's libmimalloc3, the t64 names of gperftools' libraries), and the
# course probes what is installed (common/machine/versions.h).
#
#   tools/setup.sh                # a learner's: the labs' packages
#   tools/setup.sh --maintainer   # and buildifier (.ci/run's form)
#
# It runs apt-get through sudo when it is not root, and as itself when it
# is (a container, a minimal VM without sudo). Nothing else is ever
# downloaded: Bazel builds offline from these packages.
set -euo pipefail

# Packages, with what each one is for (docs/README.md, "Set-up", lists them).
DEBIAN_PACKAGES=(
  bazel-bootstrap          # Bazel 4.2.3, WORKSPACE mode
  bazel-rules-cc           # @rules_cc (patched for Bazel 4.2.3 in third_party/)
  bazel-rules-java         # @rules_java, needed by toolchain resolution
  g++                      # GCC 12 (Debian 12) or 14 (Debian 13), C++20
  pkg-config               # link flags of the system libraries
  libabsl-dev              # Abseil: flags, status, strings
  libgtest-dev             # GoogleTest
  libgmock-dev             # GoogleMock (GoogleTest's matchers)
  libbenchmark-dev         # Google Benchmark 1.7 (Debian 12) or 1.9 (Debian 13)
  libjemalloc-dev          # jemalloc      (lab jemalloc_adoption)
  libgoogle-perftools-dev  # tcmalloc      (lab jemalloc_adoption)
  libmimalloc-dev          # mimalloc 2 or 3 (lab jemalloc_adoption)
  musl-tools               # musl-gcc, musl 1.2.3 or 1.2.5 (lab musl_churn)
  strace                   # syscall counts to compare with the labs' own
  time                     # GNU /usr/bin/time: elapsed time and peak RSS by hand (labs 6, 7)
  python3                  # the checker of the experiments' results JSON
  python3-matplotlib       # //:report --plot and the tour's pictures (/usr/bin/python3)
)
BUILDIFIER_NPM_PACKAGE="@bazel/buildifier"

die() {
  echo "setup: $*" >&2
  exit 1
}

maintainer=0
case "${1:-}" in
  "") ;;
  --maintainer) maintainer=1 ;;
  *) die "usage: tools/setup.sh [--maintainer]" ;;
esac

if [[ ! -r /etc/os-release ]]; then
  die "cannot read /etc/os-release; this script supports Debian 12 (bookworm), Debian 13 (trixie) and Ubuntu with apt-get."
fi
# shellcheck disable=SC1091
. /etc/os-release
case " ${ID:-} ${ID_LIKE:-} " in
  *" debian "* | *" ubuntu "*) ;;
  *) die "this is ${PRETTY_NAME:-an unknown system}, not Debian or Ubuntu. Install the packages listed at the top of tools/setup.sh with your package manager (docs/README.md, \"Set-up\")." ;;
esac
command -v apt-get >/dev/null || die "apt-get not found."

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || die "run as root, or install sudo."
  SUDO=(sudo)
fi

missing=()
# buildifier comes from npm; a machine with its own Node.js (e.g. NodeSource)
# already has npm, and Debian's npm package would conflict with it.
if ((maintainer)) && ! command -v buildifier >/dev/null && ! command -v npm >/dev/null; then
  missing+=(npm)
fi
# Installed for this machine's own architecture (or for all): a package of a
# foreign one (e.g. arm64's, which tools/test_arm64.sh adds) does not count,
# and one that is not Multi-Arch (libjemalloc-dev) replaces the native one.
native="$(dpkg --print-architecture)"
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status} ${Architecture}\n' "${pkg}" 2>/dev/null |
    grep -Eq "^install ok installed (${native}|all)$"; then
    missing+=("${pkg}")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#DEBIAN_PACKAGES[@]} Debian packages are installed."
fi

tools=(bazel g++ pkg-config musl-gcc strace)
if ((maintainer)); then
  if command -v buildifier >/dev/null; then
    echo "setup: buildifier is installed ($(buildifier --version | head -n 1))."
  else
    echo "setup: installing buildifier from npm (${BUILDIFIER_NPM_PACKAGE})"
    "${SUDO[@]}" npm install --global "${BUILDIFIER_NPM_PACKAGE}"
  fi
  tools+=(buildifier)
fi

# Check what the labs rely on, so that a problem shows here and not in a lab.
for tool in "${tools[@]}"; do
  command -v "${tool}" >/dev/null || die "${tool} is still missing after installation."
done
pkg-config --exists absl_flags_parse gtest gmock benchmark jemalloc libtcmalloc_minimal ||
  die "pkg-config cannot find one of Abseil, GoogleTest, Google Benchmark, jemalloc, tcmalloc."
echo "setup: done. Next: bazel run //labs/allocator_cost -- --quick"
