# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Records traces.h's `python` trace from a real program, once.

    bazel run //labs/allocator_design:record_trace

runs Debian's python3 on a small fixed script (SCRIPT below) with
libtrace_recorder.so in LD_PRELOAD (trace_recorder.cc) and PYTHONMALLOC=malloc,
so that every object CPython makes, not only those over 512 bytes that its
own small-object allocator passes on, is a malloc: the start of the
interpreter (unmarshalling its frozen modules, building their dicts,
interning names), then a list of byte strings of 256 bytes to 128 KiB (24
MB live at the peak, half of them replaced), then a word count. It writes
labs/allocator_design/recorded_python.trace in the checkout, which traces.cc
builds in: nothing is recorded at build or run time, and the replay does not
depend on the machine that recorded it.

The file is text. Its header lines begin with '#' and say which program,
version and input made it; `# name:` and `# what:` are the trace's name and
line. Then one operation a line:

    <size>    allocate the next block (blocks are numbered 0, 1, 2, ... in
              the order they are allocated) of <size> bytes, as recorded;
    -<back>   free the block allocated <back> allocations ago (-1: the last
              one allocated), so that the many short-lived blocks cost a
              character or two.

Addresses never reach the file: each becomes its block's number. A realloc
that moves or resizes a block is an allocation of the new size, then the
free of the old block (both are live while the bytes are copied); an
aligned allocation (posix_memalign and its kin) is an allocation of its
size (the trace has no alignment); a free of an address the recorder never
saw allocated (the dynamic loader's, before the recorder ran) is dropped;
the blocks still live when the program exits are freed at the end, in the
order they were allocated.
"""

import argparse
import ctypes
import os
import platform
import shutil
import subprocess
import sys
import tempfile

PYTHON = "/usr/bin/python3"
ADDR_NO_RANDOMIZE = 0x0040000  # <sys/personality.h>

# The program's input: deterministic (its own generator, PYTHONHASHSEED=0),
# no imports, a few thousand objects of many sizes and lifetimes.
SCRIPT = """\
blobs = [bytes((64 + i * 37 % 193) << (2 + i * 5 % 8)) for i in range(1000)]
del blobs[::2]
blobs += [bytes((64 + i * 41 % 191) << (2 + i * 3 % 8)) for i in range(500)]
x = 12345
def rand():
    global x
    x = (x * 1103515245 + 12345) % 2147483648
    return x >> 8
words = ['w' + 'abcdefghij'[rand() % 10] * (1 + rand() % 40)
         for _ in range(200)]
counts = {}
for _ in range(500):
    w = words[rand() % 200]
    counts[w] = counts.get(w, 0) + 1
rows = sorted(((n, w, [w[:i] for i in range(0, len(w), 4)])
               for w, n in counts.items()), reverse=True)
kept = []
for i, (n, w, parts) in enumerate(rows):
    kept.append(('%s=%d;' % (w, n)) * (1 + i % 7) + '|'.join(parts))
    if i % 3 == 0:
        del kept[len(kept) // 2]
print(len(blobs), sum(map(len, blobs)), len(counts), sum(map(len, kept)),
      kept[0][:40])
"""

ENV = {"PYTHONMALLOC": "malloc", "PYTHONHASHSEED": "0", "LC_ALL": "C"}
# The script as -c's argument, and the recorder's library and log by names
# relative to the scratch directory: CPython keeps its argv and environment
# (and a script file's absolute path), so that the sizes it asks for would
# otherwise depend on where the recording ran.
ARGV = [PYTHON, "-S", "-s", "-B", "-c", SCRIPT]
PRELOAD = {"ALLOCLAB_TRACE_LOG": "log", "LD_PRELOAD": "./recorder.so"}

WHAT = ("recorded: python3 (every object a malloc) starting, 1,500 bytes "
        "objects of 256 B-128 KiB, then counting words")


def convert(log_lines):
    """The trace's operation lines, and counts, from the recorder's log."""
    ops = []
    live = {}  # address -> block number
    next_id = 0
    counts = {"allocations": 0, "frees": 0, "reallocs": 0, "aligned": 0,
              "unknown_frees": 0, "freed_at_exit": 0}

    def free(block):
        ops.append("-%d" % (next_id - block))
        counts["frees"] += 1

    def allocate(address, size):
        nonlocal next_id
        if address in live:  # its free went unseen (glibc's own, inside)
            free(live.pop(address))
        live[address] = next_id
        ops.append(str(size))
        next_id += 1
        counts["allocations"] += 1

    for line in log_lines:
        f = line.split()
        if f[0] in ("m", "a"):
            allocate(int(f[1], 16), int(f[2]))
            counts["aligned"] += f[0] == "a"
        elif f[0] == "r":
            old, new, size = int(f[1], 16), int(f[2], 16), int(f[3])
            counts["reallocs"] += 1
            old_block = live.pop(old, None)
            if new != 0:
                allocate(new, size)
            if old_block is not None:
                free(old_block)
        elif f[0] == "f":
            block = live.pop(int(f[1], 16), None)
            if block is None:
                counts["unknown_frees"] += 1
            else:
                free(block)
    for block in sorted(live.values()):
        free(block)
        counts["freed_at_exit"] += 1
    return ops, counts


def fixed_addresses():
    """Runs the program without address-space randomization, if it can.

    CPython frees a few hundred objects at its exit in an order that
    follows their addresses; with the same addresses every time, two
    recordings on one machine are the same file.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    persona = libc.personality(0xffffffff)
    if persona != -1:
        libc.personality(persona | ADDR_NO_RANDOMIZE)


def version_of(argv):
    return subprocess.run(argv, check=True, capture_output=True,
                          text=True).stdout.splitlines()[0].strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recorder", required=True,
                        help="libtrace_recorder.so")
    parser.add_argument(
        "--out",
        default=os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."),
                             "labs/allocator_design/recorded_python.trace"))
    args = parser.parse_args()
    recorder = os.path.abspath(args.recorder)
    with tempfile.TemporaryDirectory() as scratch:
        shutil.copy(recorder, os.path.join(scratch, "recorder.so"))
        run = subprocess.run(ARGV, cwd=scratch, env=dict(ENV, **PRELOAD),
                             check=True, capture_output=True, text=True,
                             preexec_fn=fixed_addresses)
        with open(os.path.join(scratch, "log")) as f:
            ops, counts = convert(f.read().splitlines())
    python = version_of([PYTHON, "--version"])
    glibc = " ".join(platform.libc_ver())
    debian = ""
    if os.path.exists("/etc/debian_version"):
        with open("/etc/debian_version") as f:
            debian = "Debian " + f.read().strip()
    header = [
        "alloclab trace, version 1 (record_trace.py says the format)",
        "name: python",
        "what: " + WHAT,
        "recorded by: bazel run //labs/allocator_design:record_trace "
        "(trace_recorder.cc in LD_PRELOAD)",
        "program: %s (%s), %s, %s" % (python, PYTHON, glibc, debian),
        "command (without address randomization, as setarch -R): "
        "%s %s -c \"$(cat script.py)\"" % (
            " ".join("%s=%s" % kv for kv in dict(ENV, **PRELOAD).items()),
            " ".join(ARGV[:-2])),
        "its output: " + run.stdout.strip(),
        "ops: %d (%d allocations, %d frees; %d reallocs, %d aligned "
        "allocations; %d frees of blocks allocated before the recording, "
        "dropped; %d blocks freed at exit)" % (
            len(ops), counts["allocations"], counts["frees"],
            counts["reallocs"], counts["aligned"], counts["unknown_frees"],
            counts["freed_at_exit"]),
        "format: one op a line: <size> allocates the next block (numbered "
        "0, 1, 2, ...); -<back> frees the block allocated <back> "
        "allocations ago",
        "script.py:",
    ] + ["  " + line for line in SCRIPT.splitlines()]
    with open(args.out, "w") as f:
        for line in header:
            f.write(("# " + line).rstrip() + "\n")
        for op in ops:
            f.write(op + "\n")
    print("%s: %d ops, %d bytes" % (args.out, len(ops),
                                    os.path.getsize(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
