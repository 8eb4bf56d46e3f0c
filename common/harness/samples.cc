// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/samples.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/stats/stats.h"

namespace alloclab {

void Samples::Add(absl::string_view key, double value) {
  auto it = values_.find(key);
  if (it == values_.end()) {
    it = values_.emplace(std::string(key), std::vector<double>()).first;
  }
  it->second.push_back(value);
}

void Samples::AddAll(const std::map<std::string, double>& values) {
  for (const auto& [key, value] : values) Add(key, value);
}

bool Samples::Has(absl::string_view key) const {
  return values_.find(key) != values_.end();
}

const std::vector<double>& Samples::Values(absl::string_view key) const {
  static const std::vector<double>* const kNone = new std::vector<double>();
  auto it = values_.find(key);
  return it == values_.end() ? *kNone : it->second;
}

absl::StatusOr<Summary> Samples::Summarize(absl::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no run reported '", key, "' (", runs_, " runs)"));
  }
  return alloclab::Summarize(it->second);
}

std::optional<double> Samples::Median(absl::string_view key,
                                      double divisor) const {
  absl::StatusOr<Summary> summary = Summarize(key);
  if (!summary.ok()) return std::nullopt;
  return summary->median / divisor;
}

std::optional<double> Samples::Mad(absl::string_view key,
                                   double divisor) const {
  absl::StatusOr<Summary> summary = Summarize(key);
  if (!summary.ok()) return std::nullopt;
  return summary->mad / divisor;
}

}  // namespace alloclab
