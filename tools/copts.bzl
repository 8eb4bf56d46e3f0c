"""Compiler flags shared by every target of the course.

One constant, passed as `copts` on every cc_* target (the habit of
abseil-cpp's absl/copts): warnings are part of the lesson, and a learner's
task.cc gets the same checks as the reference.
"""

ALLOCLAB_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wcast-qual",
    "-Wconversion-null",
    "-Wnon-virtual-dtor",
    "-Woverloaded-virtual",
    "-Wvla",
]

ALLOCLAB_TEST_COPTS = ALLOCLAB_COPTS + [
    # GoogleTest's macros compare signed and unsigned counts freely.
    "-Wno-sign-compare",
]
