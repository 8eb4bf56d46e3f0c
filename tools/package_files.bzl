"""The files of one package under tools/, for the course's checks.

Each package under tools/ calls `package_files()` once; the root package
tools/ gathers them: //tools:sources (the tools' own files, fixtures aside,
which //tools/checks:one_list_test reads) and //tools:all_files (every file,
for //:doc_names_test, which checks the names the docs quote).

Example (tools/plot/BUILD):

    load("//tools:package_files.bzl", "package_files")

    package_files(name = "all_files")
"""

def package_files(name):
    """Declares :<name> (every file) and :sources (no testdata/), for //tools.

    Args:
      name: the filegroup of every file, "all_files" as //tools gathers it.
    """
    native.filegroup(
        name = "sources",
        srcs = native.glob(
            ["**"],
            exclude = ["testdata/**"],
        ),
        visibility = ["//tools:__pkg__"],
    )
    native.filegroup(
        name = name,
        srcs = native.glob(["**"]),
        visibility = ["//tools:__pkg__"],
    )
