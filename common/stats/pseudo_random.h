// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: pseudo_random.h
// -----------------------------------------------------------------------------
//
// The labs' stand-in for real work on a buffer: a cheap pseudo-random byte
// stream that a call writes into its memory. It has to cost a little per
// byte (so that the call is not only the allocation), write every byte (so
// that every page is touched and the compiler cannot skip any), and give the
// same bytes for the same seed on every run (so that a test can compare two
// implementations of a lab's call byte for byte).
//
// The generator is Marsaglia's xorshift64 (shifts 13, 7, 17): three shifts
// and three xors per 8 bytes. It is not for statistics or security; it is
// deterministic, fast and has no state besides one word.
//
// The stream of a seed is the sequence of generator words, each stored in
// host byte order; a length that is not a multiple of 8 ends with the first
// bytes of one more word as stored (its low bytes on x86 and other
// little-endian machines). So the first n bytes of a seed's stream are the
// same whatever the length of the buffer they were written into.
//
// Example:
//
//   std::vector<uint8_t> block(256 * 1024);
//   alloclab::FillPseudoRandom(/*seed=*/7, absl::MakeSpan(block));
//
//   // The same words, one at a time (e.g. to fold them as they are written):
//   alloclab::XorShift64 words(/*seed=*/7);
//   uint64_t first = words.Next();  // == the first 8 bytes of `block`

#ifndef ALLOCLAB_COMMON_STATS_PSEUDO_RANDOM_H_
#define ALLOCLAB_COMMON_STATS_PSEUDO_RANDOM_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"

namespace alloclab {

// XorShift64
//
// The generator behind `FillPseudoRandom()`. xorshift64 stays at 0 forever
// once its state is 0, so the seed is mixed with the golden-ratio constant
// first: seed 0, the most common seed, starts from a well-mixed state, and
// the one seed that would cancel the constant starts from the constant.
class XorShift64 {
 public:
  explicit XorShift64(uint64_t seed)
      : state_(seed == kGoldenRatio ? kGoldenRatio : seed ^ kGoldenRatio) {}

  // Next()
  //
  // Advances the state and returns it: never 0.
  uint64_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }

 private:
  static constexpr uint64_t kGoldenRatio = 0x9e3779b97f4a7c15ULL;
  uint64_t state_;
};

// FillPseudoRandom()
//
// Overwrites every byte of `out` with the stream of `seed` (see the file
// comment). An empty `out` is a no-op.
void FillPseudoRandom(uint64_t seed, absl::Span<uint8_t> out);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_STATS_PSEUDO_RANDOM_H_
