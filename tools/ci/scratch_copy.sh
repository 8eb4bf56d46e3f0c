# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# The one scratch copy of the repository for the checks that change a copy
# and run Bazel in it, never the work tree (tools/ci/solved_course_check.sh,
# tools/ci/new_lab_check.sh). Sourced:
# `source "${repo}/tools/ci/scratch_copy.sh"`.
#
# copy_tracked_files REPO DEST: the files git tracks in REPO, as they are in
# its work tree (deleted ones left out), into DEST (made if missing); and
# REPO's user.bazelrc if there is one, so that the copy shares the disk
# cache.
copy_tracked_files() {
  local repo="$1" dest="$2"
  mkdir -p "${dest}"
  (cd "${repo}" && git ls-files -z --cached | while IFS= read -r -d '' f; do
    [[ -e "${f}" ]] && printf '%s\0' "${f}"
  done | tar --null -T - -cf -) | tar -C "${dest}" -xf -
  if [[ -f "${repo}/user.bazelrc" ]]; then
    cp "${repo}/user.bazelrc" "${dest}/user.bazelrc"
  fi
}

# remove_scratch SCRATCH COPY: COPY's Bazel output base and server go
# (`bazel clean --expunge` in it, when it is there), then SCRATCH, the
# directory that holds it. For `trap ... EXIT`.
remove_scratch() {
  local scratch="$1" copy="$2"
  if [[ -d "${copy}" ]]; then
    (cd "${copy}" && bazel clean --expunge >/dev/null 2>&1) || true
  fi
  rm -rf "${scratch}"
}
