# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# The course in a container, for a learner on macOS, Windows or any Linux:
# Debian with the packages the labs use (tools/setup.sh in its learner's
# form: the labs' packages and nothing else), and the course's tour, doctor and board
# built once into a Bazel disk cache, so that the first `bazel run //:tour`
# compiles nothing. README.md ("Any machine with Docker") gives the
# commands for each shell, e.g. from the clone's root:
#
#   docker build -t allocator-labs .
#   docker run --rm -it --network=none -v "${PWD}:/course" \
#     -e "ALLOCLAB_CLONE=${PWD}" allocator-labs bazel run //:tour
#
# The command runs as the owner of the clone mounted at /course
# (tools/ci/container_entry.sh), so what it writes there is the learner's.
# Behind a network that inspects TLS, put its certificate (PEM, *.crt) in
# certs/ before building: it is trusted before apt runs.
#
# BASE: Debian 12 (the default) or 13, e.g. --build-arg BASE=debian:13.

ARG BASE=debian:12

# Debian and the labs' packages; apt's lists, and the packages' docs, man
# pages and translations, are not kept.
FROM ${BASE} AS packages
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
COPY certs/ /usr/local/share/ca-certificates/allocator-labs/
COPY tools/setup.sh /usr/local/share/allocator-labs/setup.sh
RUN rm -f /usr/local/share/ca-certificates/allocator-labs/README.md \
 && if ls /usr/local/share/ca-certificates/allocator-labs/*.crt >/dev/null 2>&1; then \
      if ! command -v update-ca-certificates >/dev/null; then \
        apt-get update \
        && apt-get install -y --no-install-recommends ca-certificates; \
      fi \
      && update-ca-certificates; \
    fi \
 && bash /usr/local/share/allocator-labs/setup.sh \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* \
      /usr/share/info/* /usr/share/locale/* \
 && useradd --create-home --uid 1000 --shell /bin/bash learner \
 && mkdir -p /var/cache/allocator-labs/bazel \
 && printf '%s\n' \
      '# The course container (Dockerfile): every user reads the course' \
      "# prebuilt outputs from this disk cache, and Bazel's output links" \
      '# are not made in the clone (their targets exist only in here).' \
      'build --disk_cache=/var/cache/allocator-labs/bazel' \
      'build --symlink_prefix=/' >/etc/bazel.bazelrc

# The course built once, at the path the run mounts the clone at; only
# its disk cache is kept, open to whichever uid runs the course.
FROM packages AS course
WORKDIR /course
COPY . /course
RUN bazel build //:tour //:doctor //:board \
 && bazel shutdown \
 && chmod -R a+rwX /var/cache/allocator-labs

FROM packages
COPY --from=course /var/cache/allocator-labs /var/cache/allocator-labs
COPY tools/ci/container_entry.sh /usr/local/bin/allocator-labs-entry
WORKDIR /course
ENTRYPOINT ["/usr/local/bin/allocator-labs-entry"]
CMD ["bazel", "run", "//:tour"]
