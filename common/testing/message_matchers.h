// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: message_matchers.h
// -----------------------------------------------------------------------------
//
// For tests: judging a message a learner wrote by what it says, never by its
// punctuation or the reference's wording. A task.h promises facts about a
// message ("the message says how many do", "names the cause", "naming the
// size"); these check exactly such a fact, in any sentence around it:
//
//   SaysCount(n)       the count n, as a whole number ("3", not the 3 of
//                      "13" or "3.5") or in words ("three"; "no" and "none"
//                      for 0)
//   Mentions(phrase)   the phrase, in any letter case, as whole words ("no
//                      SMT" in "No SMT here", not "jemalloc" in "jemallocx")
//   LargestSizeNamed() the largest size in a text, in bytes: a number, with
//                      a unit if one follows ("64 MiB", "1.5 GiB",
//                      "67,108,864 bytes"; kB, MB, GB are powers of 1000)
//
// The matchers print the message as text (common/testing/test_printers.h).
//
// Example:
//
//   EXPECT_THAT(status.message(), alloclab::SaysCount(3));
//   EXPECT_THAT(status.message(), alloclab::Mentions("no SMT"));
//   EXPECT_GT(alloclab::LargestSizeNamed(status.message()), 64 << 20);

#ifndef ALLOCLAB_COMMON_TESTING_MESSAGE_MATCHERS_H_
#define ALLOCLAB_COMMON_TESTING_MESSAGE_MATCHERS_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/testing/test_printers.h"
#include "gmock/gmock.h"

namespace alloclab {

// TextSaysCount()
//
// Whether `text` says the count `n`: n in digits as a whole number (no digit,
// letter or decimal part next to it; thousands may be grouped with commas),
// or n in words from zero to twelve, or "no" / "none" for 0.
bool TextSaysCount(absl::string_view text, uint64_t n);

// TextMentions()
//
// Whether `text` holds `phrase`, ignoring letter case, with no letter or
// digit just before or after it.
bool TextMentions(absl::string_view text, absl::string_view phrase);

// LargestSizeNamed()
//
// The largest size `text` names, in bytes (0 when it names none). Each
// number counts, times the unit right after it (one space allowed): B or
// bytes 1, K or KiB 1024, M or MiB 1024^2, G or GiB 1024^3, T or TiB 1024^4,
// kB 1000, MB 1000^2, GB 1000^3, TB 1000^4, in any letter case; a number
// with another word after it counts as bytes.
double LargestSizeNamed(absl::string_view text);

// SaysCount()
//
// A matcher of a message (std::string or absl::string_view):
// TextSaysCount().
MATCHER_P(SaysCount, n,
          absl::StrCat(negation ? "does not say" : "says", " the count ", n,
                       " (as a whole number, or in words)")) {
  return TextSaysCount(absl::string_view(arg), n);
}

// Mentions()
//
// A matcher of a message: TextMentions().
MATCHER_P(Mentions, phrase,
          absl::StrCat(negation ? "does not mention" : "mentions", " \"",
                       phrase, "\" (in any letter case, as whole words)")) {
  return TextMentions(absl::string_view(arg), phrase);
}

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_TESTING_MESSAGE_MATCHERS_H_
