// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab mmap_threshold: a correct solution that words its errors otherwise
// than the reference (//tests/mmap_threshold:design_reworded_test runs the
// whole suite on it). It is the reference with its two entry points
// wrapped, each FailedPrecondition written anew with the same facts:
//
//   - nothing maps: the sizes in binary units ("64 MiB", "1 TiB"), not in
//     bytes. task.h asks for "the message naming the size"; a suite that
//     read only a bare number of bytes judged the reference's form.
//   - another allocator serves malloc: its name capitalised ("Jemalloc"),
//     at the end of the sentence.
//   - the environment fixed the threshold: the tunable or variable that
//     did it in capitals ("GLIBC.MALLOC.MMAP_THRESHOLD=131072"), without
//     GLIBC_TUNABLES, after the verdict rather than before it.
//
// The probe, the policy, and their other errors stay the reference's.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/machine/allocator_probe.h"
#include "labs/mmap_threshold/task.h"

// The reference, with its two entry points renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#define SetMallocPolicy ReferenceSetMallocPolicy
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold
#undef SetMallocPolicy

namespace mmap_threshold {
namespace {

// `bytes` in the largest binary unit that leaves at least 1: "64 MiB",
// "1.5 GiB", "4096 bytes" below a MiB.
std::string InUnits(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"MiB", "GiB", "TiB"};
  if (bytes < (uint64_t{1} << 20)) return absl::StrCat(bytes, " bytes");
  double value = static_cast<double>(bytes) / (uint64_t{1} << 20);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof(kUnits) / sizeof(kUnits[0])) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%g %s", value, kUnits[unit]);
}

// `message` with each number of a MiB or more in binary units, and the
// word " bytes" after it dropped.
std::string SizesInUnits(absl::string_view message) {
  std::string out;
  for (size_t i = 0; i < message.size();) {
    size_t end = i;
    while (end < message.size() && absl::ascii_isdigit(message[end])) ++end;
    uint64_t number = 0;
    if (end == i || !absl::SimpleAtoi(message.substr(i, end - i), &number) ||
        number < (uint64_t{1} << 20)) {
      absl::StrAppend(&out, message.substr(i, end > i ? end - i : 1));
      i = end > i ? end : i + 1;
      continue;
    }
    out += InUnits(number);
    constexpr absl::string_view kBytes = " bytes";
    i = message.substr(end, kBytes.size()) == kBytes ? end + kBytes.size()
                                                     : end;
  }
  return out;
}

// "Jemalloc" for "jemalloc".
std::string Capitalised(absl::string_view name) {
  std::string out(name);
  if (!out.empty()) out[0] = absl::ascii_toupper(out[0]);
  return out;
}

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  absl::StatusOr<size_t> probe = ReferenceProbeMmapThreshold();
  if (probe.status().code() != absl::StatusCode::kFailedPrecondition) {
    return probe;
  }
  if (absl::StatusOr<alloclab::MallocProvider> malloc = alloclab::ProbeMalloc();
      malloc.ok() && malloc->allocator != "glibc") {
    return absl::FailedPreconditionError(
        absl::StrCat("No glibc mmap threshold to find: malloc in this "
                     "process is served by ",
                     Capitalised(malloc->allocator)));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "No block was mapped at all; ", SizesInUnits(probe.status().message())));
}

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  const absl::Status status = ReferenceSetMallocPolicy(policy);
  const std::string cause = FixedByEnvironment();
  if (status.code() != absl::StatusCode::kFailedPrecondition || g_fixed ||
      cause.empty()) {
    return status;
  }
  // The reference's cause is "<where> sets <setting>".
  constexpr absl::string_view kSets = " sets ";
  const absl::string_view said(cause);
  const size_t sets = said.rfind(kSets);
  const absl::string_view setting =
      sets == absl::string_view::npos ? said : said.substr(sets + kSets.size());
  return absl::FailedPreconditionError(
      absl::StrCat("Dynamic() is off in this process for good: ",
                   absl::AsciiStrToUpper(setting), " is set at start-up"));
}

}  // namespace mmap_threshold
