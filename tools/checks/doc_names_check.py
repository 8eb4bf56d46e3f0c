#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Checks that the names the docs put in backquotes exist.

Docs drift when code is renamed and prose is not. This reads every inline
`code span` of the Markdown files given (fenced blocks are commands and
examples, not names) and checks the ones that name something of the
course:

  //pkg:target, //pkg/...   a BUILD file declares it (or one of lab.bzl's
                            macros does, or it is a stage_<n>_<name>_test
                            of the package's stages.bzl), or it is a file
                            of that package;
  --flag, --flag=VALUE      a program of the course defines it (ABSL_FLAG,
                            argparse, or the literal "--flag" in a source);
  Name(), ns::Name, Name    a C++ or Python source of the course declares
                            or uses the name (CamelCase API names must be
                            in a header);
  path/to/file              the file or directory exists.

And where a doc quotes a constant's value right after its name, `kName` =
16 or `kName` (4 MiB), the value is the one a C++ source of the course
defines (`constexpr ... kName = ...;`, evaluated: literals, size_t{N},
shifts and arithmetic, other constants): one source of truth, and a doc
that states a different number fails.

Anything else (a shell command, a value, a field of the results JSON) is
not a name and is not checked. A name that is real but not the course's
(a libc call, a Bazel or GoogleTest flag) is listed, with why, in the
allowlist file given with --allowlist.

Usage:
    doc_names_check.py --root=DIR --allowlist=FILE DOC.md...
Exit status: 0 when every name exists, 1 with each missing name and where
the doc says it, 2 for bad input.
"""

import argparse
import os
import re
import sys

SOURCE_ENDINGS = (".h", ".cc", ".c", ".py", ".sh", ".bzl")

# Targets lab.bzl's macros declare in a lab's packages (tools/lab/lab.bzl).
MACRO_TARGETS = {
    "benchmark", "solution_test", "starter_test", "starter_unsolved_test",
    "solution_order_test", "starter_order_test", "solution_experiment_test",
    "starter_suite", "suite", "task", "task_header", "experiment",
    "lab_facts",
}

TARGET = re.compile(r"^//([\w/.\-]*)(?::([\w.\-+/]+))?$")
FLAG = re.compile(r"^(--[a-z][\w\-]*)(?:=.*)?$")
NAME = re.compile(r"^((?:[A-Za-z_]\w*::)*)([A-Za-z_]\w*)(\(\))?$")
PATH = re.compile(r"^(common|labs|tools|tests|solutions|docs|\.ci)/[\w./\-]*$")
SPAN = re.compile(r"(`+)(.+?)\1")


# A constant's definition in a C++ source, and a doc's quote of its value.
DEFINITION = re.compile(
    r"\bconstexpr\s+(?:const\s+)?[\w:]+\s+(k[A-Z]\w*)\s*=\s*([^;{}]+|"
    r"[\w:]+\{[^}]*\}[^;]*);")
QUOTE = re.compile(
    r"`(k[A-Z]\w*)`(?: = (?P<eq>[0-9][0-9',.]*(?: << [0-9]+)?)|"
    r" \((?P<paren>[0-9][0-9',.]*)(?=[ )]))(?: (?P<unit>bytes|KiB|MiB|GiB)\b)?")
UNITS = {None: 1, "bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def evaluate(expr, definitions, seen=()):
    """The value of a C++ constant expression, or None when it is more than
    literals, casts to an integer type, arithmetic and other constants."""
    expr = re.sub(r"\b(?:size_t|u?int(?:8|16|32|64)_t|int|double|unsigned)"
                  r"\{([^{}]*)\}", r"(\1)", expr)
    expr = re.sub(r"(?<=[0-9])'(?=[0-9])", "", expr)
    expr = re.sub(r"\b([0-9]+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU])\b", r"\1",
                  expr)

    def constant(match):
        name = match.group(0)
        if name in seen:
            return "?"
        values = [evaluate(e, definitions, seen + (name,))
                  for e in definitions.get(name, [])]
        values = [v for v in values if v is not None]
        if len(set(values)) != 1:
            return "?"  # unknown, or defined with different values
        return repr(values[0])
    expr = re.sub(r"\bk[A-Z]\w*\b", constant, expr)
    if not re.fullmatch(r"[0-9.\s+\-*/()<>e]*", expr) or not expr.strip():
        return None
    try:
        value = eval(expr, {"__builtins__": {}})  # digits and operators only
    except (SyntaxError, TypeError, ZeroDivisionError, ValueError):
        return None
    return value if isinstance(value, (int, float)) else None


def quoted_number(text, unit):
    """The number a doc wrote ("1'000'000'000", "131,072", "0.5", "4 << 20"),
    times its unit, or None."""
    text = text.rstrip(".,")
    if "," in text:
        if not re.fullmatch(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?", text):
            return None
        text = text.replace(",", "")
    text = text.replace("'", "")
    shift = re.fullmatch(r"([0-9]+) << ([0-9]+)", text)
    try:
        value = (int(shift.group(1)) << int(shift.group(2)) if shift
                 else float(text) if "." in text else int(text))
    except ValueError:
        return None
    return value * UNITS[unit]


def unfenced_lines(text):
    """(line number, line) of every line of a doc outside its ``` fences
    (the fence lines themselves left out)."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def constant_quotes(text):
    """(line number, name, number) of every constant's value a doc quotes,
    outside fences."""
    for number, line in unfenced_lines(text):
        for match in QUOTE.finditer(line):
            value = quoted_number(match.group("eq") or match.group("paren"),
                                  match.group("unit"))
            if value is not None:
                yield number, match.group(1), value


def code_spans(text):
    """(line number, span) of every inline code span outside fences."""
    for number, line in unfenced_lines(text):
        for match in SPAN.finditer(line):
            yield number, match.group(2).strip()


class Tree:
    """What the course declares, read from the files under `root`."""

    def __init__(self, root):
        self.root = root
        self.sources = {}   # relative path -> text
        self.builds = {}    # package -> BUILD text
        for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
            dirnames[:] = [
                d for d in dirnames if not d.startswith(("bazel-", "."))]
            for name in filenames:
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if name == "BUILD":
                    self.builds[os.path.dirname(rel)] = read(path)
                elif name.endswith(SOURCE_ENDINGS):
                    self.sources[rel] = read(path)
        self.words = set()
        self.header_words = set()
        for rel, text in self.sources.items():
            found = set(re.findall(r"[A-Za-z_]\w*", text))
            self.words |= found
            if rel.endswith(".h"):
                self.header_words |= found
        self.all_text = "\n".join(self.sources.values())
        self.constants = {}  # name -> [expression, ...]
        for rel, text in self.sources.items():
            if rel.endswith((".h", ".cc", ".c")):
                for name, expr in DEFINITION.findall(text):
                    self.constants.setdefault(name, []).append(expr.strip())

    def constant_problem(self, name, value):
        """None when `name` is defined with `value`, else what is wrong."""
        if name not in self.constants:
            return "no constant %s is defined" % name
        values = [evaluate(e, self.constants) for e in self.constants[name]]
        known = [v for v in values if v is not None]
        if not known:
            return None  # not an expression this check can evaluate
        if any(abs(v - value) <= 1e-9 * max(1, abs(v)) for v in known):
            return None

        def show(v):
            return str(int(v)) if v == int(v) else "%g" % v
        return "%s is %s in the source (%s), not %s" % (
            name, " or ".join(show(v) for v in known),
            "; ".join(self.constants[name]), show(value))

    def target_exists(self, package, name):
        if package == "..." or package.endswith("/..."):
            return os.path.isdir(os.path.join(self.root, package[:-3]))
        build = self.builds.get(package)
        if build is None:
            return False
        if name is None:
            name = os.path.basename(package)
        if name in ("all", "*"):
            return True  # every target of the package
        if re.search(r'name = "%s"' % re.escape(name), build):
            return True
        if os.path.exists(os.path.join(self.root, package, name)):
            return True
        lab = os.path.basename(package)
        if "lab_" in build and (name in MACRO_TARGETS or name == lab):
            return True
        # known_bad_<bad>_test of known_bad = {...}, design_<design>_test of
        # designs = {...}: each named in the package's lab_tests().
        made = re.match(r"^(?:known_bad|design)_(\w+)_(?:test|suite)$", name)
        if made and '"%s"' % made.group(1) in build:
            return True
        # stage_<n>_<name>_test: the n-th of the stages the package's
        # stages.bzl lists (tests/allocator_design/stages.bzl).
        made = re.match(r"^stage_(\d+)_(\w+)_test$", name)
        stages = self.sources.get(os.path.join(package, "stages.bzl"))
        if made and stages is not None:
            names = re.findall(r'"name":\s*"(\w+)"', stages)
            number = int(made.group(1))
            return (0 < number <= len(names) and
                    names[number - 1] == made.group(2))
        return False

    def flag_exists(self, flag):
        bare = flag[2:]
        return (re.search(r"ABSL_FLAG\([^,]+,\s*%s\b" % re.escape(bare),
                          self.all_text) is not None or
                ('"%s' % flag) in self.all_text or
                ("'%s" % flag) in self.all_text)

    def name_exists(self, qualifiers, name):
        if name[0].isupper() and not name.isupper():
            return (name in self.header_words
                    or name in self.words and not qualifiers)
        return name in self.words


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def load_allowlist(path):
    """The allowed spans: one a line, '#' starts a comment."""
    allowed = set()
    for line in read(path).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            allowed.add(line)
    return allowed


def check_span(tree, span):
    """None when `span` is no name or an existing one, else what is wrong."""
    if "<" in span or "*" in span:
        return None  # a pattern with placeholders, not one name
    words = span.split()
    if words and words[0] == "bazel" and len(words) > 2:
        for word in words[2:]:
            if word == "--":
                break
            problem = check_span(tree, word)
            if problem and word.startswith("//"):
                return problem
        return None
    match = TARGET.match(span)
    if match:
        if not tree.target_exists(match.group(1), match.group(2)):
            return "no target %s" % span
        return None
    match = FLAG.match(span)
    if match:
        if not tree.flag_exists(match.group(1)):
            return "no program defines the flag %s" % match.group(1)
        return None
    match = PATH.match(span)
    if match:
        if not os.path.exists(os.path.join(tree.root, span.rstrip("/"))):
            return "no file or directory %s" % span
        return None
    match = NAME.match(span)
    if match and (match.group(3) or match.group(1) or
                  re.match(r"^[A-Z][a-z]+[A-Z]\w*$", match.group(2))):
        if not tree.name_exists(match.group(1), match.group(2)):
            return "no declaration of %s" % span
    return None


def main(argv):
    parser = argparse.ArgumentParser(
        prog="doc_names_check", description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True,
                        help="the workspace: sources, BUILD files")
    parser.add_argument("--allowlist", required=True)
    parser.add_argument("docs", nargs="+", metavar="DOC.md")
    args = parser.parse_args(argv[1:])
    if not os.path.isdir(args.root):
        print("doc_names_check: --root=%s is not a directory" % args.root,
              file=sys.stderr)
        return 2
    tree = Tree(args.root)
    if not tree.builds:
        print("doc_names_check: no BUILD file under %s" % args.root,
              file=sys.stderr)
        return 2
    allowed = load_allowlist(args.allowlist)
    problems = []
    checked = 0
    for doc in args.docs:
        for number, span in code_spans(read(doc)):
            if span in allowed:
                continue
            checked += 1
            problem = check_span(tree, span)
            if problem:
                problems.append("%s:%d: `%s`: %s" % (
                    os.path.relpath(doc, args.root), number, span, problem))
        for number, name, value in constant_quotes(read(doc)):
            checked += 1
            problem = tree.constant_problem(name, value)
            if problem:
                problems.append("%s:%d: `%s`: %s" % (
                    os.path.relpath(doc, args.root), number, name, problem))
    for problem in problems:
        print("doc_names_check: " + problem, file=sys.stderr)
    if problems:
        print("doc_names_check: %d name(s) the docs give do not exist; fix "
              "the doc, or allowlist a name that is not the course's" %
              len(problems), file=sys.stderr)
        return 1
    print("doc_names_check: %d code spans of %d docs, every name exists" % (
        checked, len(args.docs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
