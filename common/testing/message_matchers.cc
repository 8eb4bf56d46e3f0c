// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/testing/message_matchers.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"

namespace alloclab {
namespace {

// A number as written in a text: its value, whether it has a decimal part,
// and where it ends.
struct Number {
  double value = 0;
  bool whole = true;
  size_t end = 0;
};

bool IsWordChar(char c) { return absl::ascii_isalnum(c); }

// The digits of `text` from `at` on, then a decimal part if one follows.
// Thousands grouped with commas ("67,108,864") count as one number when
// the first group has one to three digits, not starting with 0 (so "0,100"
// stays two). `text[at]` is a digit.
Number ReadNumber(absl::string_view text, size_t at) {
  Number number;
  size_t i = at;
  auto digits = [&text](size_t from) {
    size_t to = from;
    while (to < text.size() && absl::ascii_isdigit(text[to])) ++to;
    return to - from;
  };
  const size_t first = digits(i);
  const bool grouped = first <= 3 && text[i] != '0';
  for (size_t run = first;; run = digits(i)) {
    for (size_t k = 0; k < run; ++k) {
      number.value = number.value * 10 + (text[i + k] - '0');
    }
    i += run;
    if (grouped && i + 1 < text.size() && text[i] == ',' &&
        digits(i + 1) == 3) {
      ++i;
      continue;
    }
    break;
  }
  if (i + 1 < text.size() && text[i] == '.' && digits(i + 1) > 0) {
    number.whole = false;
    double scale = 0.1;
    for (++i; i < text.size() && absl::ascii_isdigit(text[i]); ++i) {
      number.value += scale * (text[i] - '0');
      scale /= 10;
    }
  }
  number.end = i;
  return number;
}

// Every number of `text` that starts a word (not the 5 of "x86_64" nor of
// "md5"), in order.
template <typename Visit>
void ForEachNumber(absl::string_view text, Visit visit) {
  for (size_t i = 0; i < text.size();) {
    const bool starts = absl::ascii_isdigit(text[i]) &&
                        (i == 0 || (!IsWordChar(text[i - 1]) &&
                                    text[i - 1] != '_' && text[i - 1] != '.'));
    if (!starts) {
      ++i;
      continue;
    }
    const Number number = ReadNumber(text, i);
    visit(number);
    i = std::max(number.end, i + 1);
  }
}

// The count's words, 0 to 12.
constexpr absl::string_view kCountWords[] = {
    "zero",  "one",   "two",  "three", "four",   "five",  "six",
    "seven", "eight", "nine", "ten",   "eleven", "twelve"};

// The factor of a unit word, or 0 when `unit` is none.
double UnitFactor(absl::string_view unit) {
  const std::string lower = absl::AsciiStrToLower(unit);
  constexpr double kKi = 1024, kK = 1000;
  struct Unit {
    absl::string_view name;
    double factor;
  };
  static constexpr Unit kUnits[] = {
      {"b", 1},
      {"byte", 1},
      {"bytes", 1},
      {"k", kKi},
      {"kib", kKi},
      {"m", kKi * kKi},
      {"mib", kKi * kKi},
      {"g", kKi * kKi * kKi},
      {"gib", kKi * kKi * kKi},
      {"t", kKi * kKi * kKi * kKi},
      {"tib", kKi * kKi * kKi * kKi},
      {"kb", kK},
      {"mb", kK * kK},
      {"gb", kK * kK * kK},
      {"tb", kK * kK * kK * kK},
  };
  for (const Unit& u : kUnits) {
    if (lower == u.name) return u.factor;
  }
  return 0;
}

// The word right after `at` (one space allowed before it), or "".
absl::string_view WordAfter(absl::string_view text, size_t at) {
  if (at < text.size() && text[at] == ' ') ++at;
  size_t end = at;
  while (end < text.size() && absl::ascii_isalpha(text[end])) ++end;
  return text.substr(at, end - at);
}

}  // namespace

bool TextSaysCount(absl::string_view text, uint64_t n) {
  bool says = false;
  ForEachNumber(text, [&](const Number& number) {
    const bool alone =
        number.end == text.size() || !IsWordChar(text[number.end]);
    says = says ||
           (number.whole && alone && number.value == static_cast<double>(n));
  });
  if (says) return true;
  if (n < sizeof(kCountWords) / sizeof(kCountWords[0]) &&
      TextMentions(text, kCountWords[n])) {
    return true;
  }
  return n == 0 && (TextMentions(text, "no") || TextMentions(text, "none"));
}

bool TextMentions(absl::string_view text, absl::string_view phrase) {
  if (phrase.empty()) return false;
  const std::string lower_text = absl::AsciiStrToLower(text);
  const std::string lower_phrase = absl::AsciiStrToLower(phrase);
  for (size_t at = lower_text.find(lower_phrase); at != std::string::npos;
       at = lower_text.find(lower_phrase, at + 1)) {
    const size_t end = at + lower_phrase.size();
    const bool starts = at == 0 || !IsWordChar(lower_text[at - 1]);
    const bool ends = end == lower_text.size() || !IsWordChar(lower_text[end]);
    if (starts && ends) return true;
  }
  return false;
}

double LargestSizeNamed(absl::string_view text) {
  double largest = 0;
  ForEachNumber(text, [&](const Number& number) {
    const double factor = UnitFactor(WordAfter(text, number.end));
    largest = std::max(largest, number.value * (factor > 0 ? factor : 1));
  });
  return largest;
}

}  // namespace alloclab
