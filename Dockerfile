# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# The course in a container, for a learner on macOS, Windows or any Linux:
# Debian with every package tools/setup.sh installs, and the course built
# once, so that the first `bazel run //:tour` only rebuilds what you changed.
#
#   docker build -t allocator-labs .
#   docker run --rm -it --network=none -v "$PWD":/course allocator-labs \
#     bazel run //:tour
#
# README.md ("Any machine with Docker") says what a default container
# changes for the labs, and which flags to add or avoid (`bazel run
# //:doctor` says it inside).
#
# BASE: Debian 12 (the default) or 13, e.g. --build-arg BASE=debian:13.

ARG BASE=debian:12
FROM ${BASE}

ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8

# The course sits where the run command mounts your work tree, so that
# Bazel's cache in this image (keyed by the workspace's path) is the one a
# run with your files uses.
WORKDIR /course
COPY . /course

# The packages the labs need, then every target once; the Bazel server is
# stopped so that it is not part of the image.
RUN bash tools/setup.sh \
 && rm -rf /var/lib/apt/lists/* \
 && bazel build //... \
 && bazel shutdown

CMD ["bazel", "run", "//:tour"]
