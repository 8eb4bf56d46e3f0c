// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: samples.h
// -----------------------------------------------------------------------------
//
// Values of repeated runs, gathered key by key. A run that happens outside
// the lab's process (a fresh process of one call, a child process of one
// workload) reports a handful of named numbers, e.g. {"calloc_ns": 812,
// "calloc_minor_faults": 257}; `Samples` keeps every run's value of every
// key, counts the runs, and summarises a key (median, min, max, MAD) when a
// row is made. A key that no run reported is an error naming it, so a
// misspelt key or a run that failed before it measured reads as such rather
// than as a zero.
//
// clang-format off
// Example:
//
//   alloclab::Samples samples;
//   for (int i = 0; i < 5; ++i) {
//     absl::StatusOr<std::map<std::string, double>> values = RunOnce();
//     if (!values.ok()) return values.status();
//     samples.AddRun(*values);
//   }
//   absl::StatusOr<alloclab::Summary> ns = samples.Summarize("calloc_ns");
//   if (!ns.ok()) return ns.status();  // "no run reported 'calloc_ns' ..."
//   std::optional<double> faults =
//       samples.Median("calloc_minor_faults", /*divisor=*/calls);
// clang-format on

#ifndef ALLOCLAB_COMMON_HARNESS_SAMPLES_H_
#define ALLOCLAB_COMMON_HARNESS_SAMPLES_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/stats/stats.h"

namespace alloclab {

// Samples
//
// Values of repeated runs, key by key: the fresh processes of one call, or
// the child processes of one workload.
class Samples {
 public:
  void Add(absl::string_view key, double value);
  void AddAll(const std::map<std::string, double>& values);
  // Runs that were added with `AddRun()` (each adds its values).
  void AddRun(const std::map<std::string, double>& values) {
    ++runs_;
    AddAll(values);
  }
  int runs() const { return runs_; }

  bool Has(absl::string_view key) const;
  // The values of `key`, empty when none.
  const std::vector<double>& Values(absl::string_view key) const;
  // The summary of `key`; NotFound naming the key when no run gave it.
  absl::StatusOr<Summary> Summarize(absl::string_view key) const;
  // The median of `key` divided by `divisor` (a per-call figure from a
  // per-run total); nullopt when no run gave it.
  std::optional<double> Median(absl::string_view key, double divisor = 1) const;
  // Their median absolute deviation, likewise.
  std::optional<double> Mad(absl::string_view key, double divisor = 1) const;

 private:
  int runs_ = 0;
  std::map<std::string, std::vector<double>, std::less<>> values_;
};

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_SAMPLES_H_
