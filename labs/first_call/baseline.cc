// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/first_call/baseline.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/machine/base_pages.h"
#include "common/machine/vm_facts.h"
#include "common/stats/pseudo_random.h"

namespace first_call {
namespace {

// FNV-1a on 64-bit words: cheap, and a single wrong byte changes it.
constexpr uint64_t kFoldStart = 0xcbf29ce484222325ULL;
uint64_t Fold(uint64_t hash, uint64_t word) {
  return (hash ^ word) * 0x100000001b3ULL;
}

// The last `n` (< 8) bytes at `in` as one word, zero-padded: what the fold
// takes for the tail of a size that is not a multiple of 8.
uint64_t TailWord(const uint8_t* in, size_t n) {
  uint64_t tail = 0;
  for (size_t k = 0; k < n; ++k) tail |= uint64_t{in[k]} << (8 * k);
  return tail;
}

}  // namespace

// The course's one answer (common/machine/vm_facts.h), under the lab's names.
size_t PageBytes() { return alloclab::PageBytes(); }

size_t PagesIn(size_t bytes) { return alloclab::PagesIn(bytes); }

uint64_t Work(uint64_t seed, absl::Span<uint8_t> buffer) {
  // The bytes of alloclab::FillPseudoRandom(seed, buffer), folded as they
  // are written: one pass over the buffer, not a fill and then a read.
  alloclab::XorShift64 words(seed);
  uint64_t hash = kFoldStart;
  uint8_t* const out = buffer.data();
  const size_t size = buffer.size();
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= size; i += sizeof(uint64_t)) {
    const uint64_t word = words.Next();
    std::memcpy(out + i, &word, sizeof(word));
    hash = Fold(hash, word);
  }
  if (i < size) {
    const uint64_t word = words.Next();
    std::memcpy(out + i, &word, size - i);
    hash = Fold(hash, TailWord(out + i, size - i));
  }
  return hash;
}

uint64_t Checksum(absl::Span<const uint8_t> buffer) {
  uint64_t hash = kFoldStart;
  const uint8_t* const in = buffer.data();
  const size_t size = buffer.size();
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= size; i += sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, in + i, sizeof(word));
    hash = Fold(hash, word);
  }
  if (i < size) hash = Fold(hash, TailWord(in + i, size - i));
  return hash;
}

absl::StatusOr<absl::Span<uint8_t>> MapBuffer(size_t bytes) {
  if (bytes == 0) {
    return absl::InvalidArgumentError("MapBuffer: 0 bytes requested");
  }
  void* p = mmap(nullptr, PagesIn(bytes) * PageBytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "MapBuffer: mmap of ", bytes, " bytes: ", strerror(errno)));
  }
  // Base pages, so that a fault is a page whatever THP and mTHP are set to.
  if (absl::Status base =
          alloclab::AdviseBasePages(p, PagesIn(bytes) * PageBytes());
      !base.ok()) {
    munmap(p, PagesIn(bytes) * PageBytes());
    return absl::InternalError(absl::StrCat("MapBuffer: ", base.message()));
  }
  return absl::MakeSpan(static_cast<uint8_t*>(p), bytes);
}

void UnmapBuffer(absl::Span<uint8_t> buffer) {
  if (buffer.empty()) return;
  munmap(buffer.data(), PagesIn(buffer.size()) * PageBytes());
}

}  // namespace first_call
