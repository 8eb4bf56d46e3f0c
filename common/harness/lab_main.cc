// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/lab_main.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/harness/internal/subprocess.h"
#include "common/harness/report.h"
#include "common/machine/topology.h"

ABSL_FLAG(
    bool, quick, false,
    "CI scale: fewer repetitions and smaller sizes, a few seconds in all");
ABSL_FLAG(std::string, json, "",
          "also write the results as JSON to this path (relative to the "
          "directory `bazel run` was started in)");
ABSL_FLAG(int, repetitions, 0,
          "timed repetitions per variant; 0 keeps the lab's default");
ABSL_FLAG(int, cpu, -1,
          "pin the experiment, and the processes it starts, to this online "
          "CPU (as taskset -c does); -1 leaves it unpinned");

namespace alloclab {
namespace {

[[noreturn]] void ExitWithUsageError(absl::string_view program,
                                     absl::string_view message) {
  std::cerr << program << ": " << message << " (see --help)" << std::endl;
  std::exit(1);
}

// Abseil's --help lists the flags of the file named like the program and
// exits 1. An experiment's flags live in common/harness/lab_main.cc and in the
// lab's experiment.cc, and asking for help is not an error: the course answers
// --help itself, with the flags of its own files, and exits 0. Abseil's
// other help flags (--helpfull, ...) keep their meaning.
bool IsHelpRequest(absl::string_view arg) {
  return arg == "--help" || arg == "-help" || arg == "-h";
}

bool IsCourseFlag(const absl::CommandLineFlag& flag) {
  // Abseil's own flags (flagfile, fromenv, ...) are in absl/ files.
  return !absl::StrContains(flag.Filename(), "absl/");
}

[[noreturn]] void PrintHelpAndExit(absl::string_view usage) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (IsCourseFlag(*flag)) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  std::cout << usage << "\n\nFlags:\n";
  for (const absl::CommandLineFlag* flag : flags) {
    std::cout << "  --" << flag->Name() << " (default: \""
              << flag->DefaultValue() << "\")\n      " << flag->Help() << "\n";
  }
  std::cout << "\n--helpfull lists Abseil's own flags too." << std::endl;
  std::exit(0);
}

// `bazel run` starts the program in its runfiles directory; a relative
// --json path means the directory the learner typed the command in.
std::string ResolveOutputPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* workdir = getenv("BUILD_WORKING_DIRECTORY");
  std::string base;
  if (workdir != nullptr && workdir[0] != '\0') {
    base = workdir;
  } else {
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
    base = cwd;
  }
  return absl::StrCat(base, "/", path);
}

// Whether `path` can be written, without changing it: a full run that ends
// in "cannot write" has wasted the learner's minutes.
absl::Status CheckWritable(const std::string& path) {
  struct stat info;
  const bool existed = stat(path.c_str(), &info) == 0;
  if (existed && S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": it is a directory"));
  }
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": ", internal::ErrnoText(error)));
  }
  close(fd);
  if (!existed) unlink(path.c_str());
  return absl::OkStatus();
}

}  // namespace

LabOptions InitLab(int argc, char** argv, absl::string_view usage) {
  MaybeRunFreshCall();
  absl::SetProgramUsageMessage(usage);
  // The program's name without its directory: under `bazel run` argv[0] is
  // a long path into Bazel's output tree, which says nothing to a learner.
  absl::string_view program = argc > 0 ? argv[0] : "lab";
  program.remove_prefix(program.rfind('/') + 1);  // npos + 1 == 0
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (IsHelpRequest(arg)) PrintHelpAndExit(usage);
  }
  // Unknown flags and bad values end here, with Abseil's message, exit 1.
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    ExitWithUsageError(program,
                       absl::StrCat("unexpected argument '", positional[1],
                                    "': experiments take only flags"));
  }
  LabOptions options;
  options.quick = absl::GetFlag(FLAGS_quick);
  options.json_path = absl::GetFlag(FLAGS_json);
  if (!options.json_path.empty()) {
    if (absl::Status writable =
            CheckWritable(ResolveOutputPath(options.json_path));
        !writable.ok()) {
      ExitWithUsageError(program, absl::StrCat("--json=", options.json_path,
                                               ": ", writable.message()));
    }
  }
  options.repetitions = absl::GetFlag(FLAGS_repetitions);
  if (options.repetitions < 0) {
    ExitWithUsageError(program,
                       absl::StrCat("--repetitions=", options.repetitions,
                                    " is negative; give a count, or 0 for the "
                                    "lab's default"));
  }
  options.cpu = absl::GetFlag(FLAGS_cpu);
  if (options.cpu != -1) {
    // Validate against the topology first: sched_setaffinity's EINVAL does
    // not say which CPUs exist.
    absl::StatusOr<Topology> topology = ReadTopology();
    absl::Status pinned = topology.ok() ? ValidateCpus(*topology, {options.cpu})
                                        : topology.status();
    if (pinned.ok()) pinned = PinCurrentThread(options.cpu);
    if (!pinned.ok()) {
      ExitWithUsageError(
          program, absl::StrCat("--cpu=", options.cpu, ": ", pinned.message()));
    }
  }
  return options;
}

int FinishLab(const Results& results, const LabOptions& options,
              const std::vector<Column>& columns) {
  std::cout << results.RenderTable(columns);
  for (const std::string& note : results.notes()) {
    std::cout << "note: " << note << "\n";
  }
  std::cout << MachineLine(results.machine()) << std::endl;

  if (options.json_path.empty()) return 0;
  const std::string path = ResolveOutputPath(options.json_path);
  absl::Status written = results.WriteJson(path);
  if (!written.ok()) {
    std::cerr << "error: " << written.message() << std::endl;
    return 1;
  }
  std::cout << "wrote " << path << std::endl;
  return 0;
}

}  // namespace alloclab
