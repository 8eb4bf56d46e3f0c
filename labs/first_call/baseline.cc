// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/first_call/baseline.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace first_call {
namespace {

uint64_t Next(uint64_t state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

// FNV-1a on 64-bit words: cheap, and a single wrong byte changes it.
constexpr uint64_t kFoldStart = 0xcbf29ce484222325ULL;
uint64_t Fold(uint64_t hash, uint64_t word) {
  return (hash ^ word) * 0x100000001b3ULL;
}

}  // namespace

size_t PageBytes() {
  static const size_t page = [] {
    const long bytes = sysconf(_SC_PAGESIZE);
    return bytes > 0 ? static_cast<size_t>(bytes) : size_t{4096};
  }();
  return page;
}

size_t PagesIn(size_t bytes) { return (bytes + PageBytes() - 1) / PageBytes(); }

uint64_t Work(uint64_t seed, absl::Span<uint8_t> buffer) {
  // xorshift64 needs a non-zero state; the golden-ratio constant gives one
  // for every seed, 0 included.
  uint64_t state = seed ^ 0x9e3779b97f4a7c15ULL;
  uint64_t hash = kFoldStart;
  uint8_t* const out = buffer.data();
  const size_t size = buffer.size();
  size_t i = 0;
  for (; i + sizeof(state) <= size; i += sizeof(state)) {
    state = Next(state);
    std::memcpy(out + i, &state, sizeof(state));
    hash = Fold(hash, state);
  }
  if (i < size) {
    state = Next(state);
    uint64_t tail = 0;
    for (size_t k = 0; i + k < size; ++k) {
      const uint8_t byte = static_cast<uint8_t>(state >> (8 * k));
      out[i + k] = byte;
      tail |= uint64_t{byte} << (8 * k);
    }
    hash = Fold(hash, tail);
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
  if (i < size) {
    uint64_t tail = 0;
    for (size_t k = 0; i + k < size; ++k) {
      tail |= uint64_t{in[i + k]} << (8 * k);
    }
    hash = Fold(hash, tail);
  }
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
  // Best effort: a kernel built without THP refuses the advice, and then
  // there are only base pages anyway.
  (void)madvise(p, PagesIn(bytes) * PageBytes(), MADV_NOHUGEPAGE);
  return absl::MakeSpan(static_cast<uint8_t*>(p), bytes);
}

void UnmapBuffer(absl::Span<uint8_t> buffer) {
  if (buffer.empty()) return;
  munmap(buffer.data(), PagesIn(buffer.size()) * PageBytes());
}

}  // namespace first_call
