// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/vm_facts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/harness/internal/subprocess.h"
#include "common/instruments/faults.h"
#include "common/machine/base_pages.h"
#include "common/machine/sys_file.h"

namespace alloclab {
namespace {

using internal::ReadSysFile;

// Enough pages that a quarter of them is a clear margin over stray faults,
// few enough to cost nothing (256 KiB with 4 KiB pages).
constexpr int64_t kProbePages = 64;

std::string SizeText(size_t bytes) {
  return absl::StrCat(bytes / 1024, " KiB");
}

// A mode as the machine line shows it: "64 KiB always", and for an
// inherited one "2048 KiB inherit=madvise".
std::string SizeAndMode(const ThpSize& size) {
  return absl::StrCat(SizeText(size.bytes), " ",
                      size.inherited ? "inherit=" : "", size.mode);
}

bool IsMode(absl::string_view mode) {
  return mode == "always" || mode == "madvise" || mode == "never";
}

// The hugepages-<N>kB directories under `dir`, as N * 1024; empty when the
// kernel has no per-size controls.
absl::StatusOr<std::vector<std::pair<size_t, std::string>>> SizeDirs(
    const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    const int err = errno;
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrCat("cannot list ", dir, ": ", internal::ErrnoText(err)));
  }
  std::vector<std::pair<size_t, std::string>> sizes;
  while (const dirent* entry = readdir(d)) {
    absl::string_view name = entry->d_name;
    size_t kib = 0;
    if (absl::ConsumePrefix(&name, "hugepages-") &&
        absl::ConsumeSuffix(&name, "kB") && absl::SimpleAtoi(name, &kib) &&
        kib > 0) {
      sizes.emplace_back(kib * 1024, entry->d_name);
    }
  }
  closedir(d);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace

size_t PageBytes() {
  static const size_t bytes = [] {
    const long n = sysconf(_SC_PAGESIZE);
    // POSIX requires the answer; a failure would be a broken libc, and any
    // wrong guess here would make every page count wrong, so stop.
    if (n <= 0) abort();
    return static_cast<size_t>(n);
  }();
  return bytes;
}

size_t PagesIn(size_t bytes) { return PagesIn(bytes, PageBytes()); }

size_t PagesIn(size_t bytes, size_t page_bytes) {
  return (bytes + page_bytes - 1) / page_bytes;
}

absl::string_view ZeroPageName(ZeroPage answer) {
  switch (answer) {
    case ZeroPage::kShared:
      return "shared zero page";
    case ZeroPage::kNone:
      return "no zero page";
    case ZeroPage::kUnknown:
      break;
  }
  return "zero page unknown";
}

ZeroPageProbe ClassifyZeroPage(int64_t pages, int64_t read_faults,
                               int64_t write_faults) {
  ZeroPageProbe probe;
  probe.pages = pages;
  probe.read_faults = read_faults;
  probe.write_faults = write_faults;
  const std::string counts =
      absl::StrCat(read_faults, " read faults, then ", write_faults,
                   " write faults on ", pages, " fresh pages");
  const int64_t most = pages - pages / 4;
  const int64_t few = pages / 4;
  if (pages <= 0) {
    probe.reason = "no pages probed";
  } else if (read_faults >= most && write_faults >= most) {
    probe.answer = ZeroPage::kShared;
    probe.reason = absl::StrCat(
        counts,
        ": a read maps the shared zero page, the first write faults "
        "again for a page of its own");
  } else if (read_faults >= most && write_faults <= few) {
    probe.answer = ZeroPage::kNone;
    probe.reason =
        absl::StrCat(counts,
                     ": a read allocates the page, so reading each page "
                     "prefaults it");
  } else {
    probe.reason = absl::StrCat(
        counts,
        ": neither a fault per page on both passes nor on the "
        "read pass only (large folios, or another thread faulting?)");
  }
  return probe;
}

ZeroPageProbe ProbeZeroPage() {
  ZeroPageProbe failed;
  const size_t bytes = static_cast<size_t>(kProbePages) * PageBytes();
  absl::StatusOr<FaultCounter> counter =
      FaultCounter::Create(FaultScope::kThread);
  if (!counter.ok()) {
    failed.reason =
        absl::StrCat("no fault counter: ", counter.status().message());
    return failed;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    failed.reason =
        absl::StrCat("mmap of ", bytes, " bytes: ", internal::ErrnoText(errno));
    return failed;
  }
  // Base pages: with a large folio (THP "always", or an mTHP size enabled)
  // one read fault would make many pages present and the count would say
  // nothing about the zero page.
  if (absl::Status base = AdviseBasePages(p, bytes); !base.ok()) {
    failed.reason = std::string(base.message());
    munmap(p, bytes);
    return failed;
  }
  volatile uint8_t* const page = static_cast<volatile uint8_t*>(p);
  uint8_t sum = 0;
  absl::StatusOr<FaultCounts> reads = FaultsDuring(*counter, [&] {
    for (size_t offset = 0; offset < bytes; offset += PageBytes()) {
      sum = static_cast<uint8_t>(sum + page[offset]);
    }
  });
  absl::StatusOr<FaultCounts> writes = FaultsDuring(*counter, [&] {
    for (size_t offset = 0; offset < bytes; offset += PageBytes()) {
      page[offset] = static_cast<uint8_t>(sum + 1);
    }
  });
  munmap(p, bytes);
  if (!reads.ok() || !writes.ok()) {
    failed.reason =
        absl::StrCat("fault counter: ",
                     (reads.ok() ? writes.status() : reads.status()).message());
    return failed;
  }
  return ClassifyZeroPage(kProbePages, reads->minor, writes->minor);
}

absl::StatusOr<size_t> OwnPresentPages(const void* start, size_t bytes) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(start) / PageBytes();
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(start) + bytes + PageBytes() - 1) /
      PageBytes();
  std::vector<uint64_t> entries(end - first);
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot open /proc/self/pagemap: ", internal::ErrnoText(errno)));
  }
  const size_t want = entries.size() * sizeof(uint64_t);
  const ssize_t got = pread(fd, entries.data(), want,
                            static_cast<off_t>(first * sizeof(uint64_t)));
  const int err = errno;
  close(fd);
  if (got != static_cast<ssize_t>(want)) {
    return absl::UnavailableError(absl::StrCat(
        "/proc/self/pagemap: read ", got, " of ", want, " bytes",
        got < 0 ? absl::StrCat(": ", internal::ErrnoText(err)) : ""));
  }
  size_t own = 0;
  for (uint64_t entry : entries) {
    if ((entry >> 63 & 1) != 0 && (entry >> 56 & 1) != 0) ++own;
  }
  return own;
}

std::string DescribeZeroPage(const ZeroPageProbe& probe) {
  if (probe.answer == ZeroPage::kUnknown) {
    return absl::StrCat("zero page unknown (", probe.reason, ")");
  }
  return std::string(ZeroPageName(probe.answer));
}

std::vector<ThpSize> ThpSettings::EnabledSizes() const {
  std::vector<ThpSize> enabled;
  if (sizes.empty()) {
    if (mode != "never" && pmd_bytes > 0) {
      enabled.push_back(ThpSize{pmd_bytes, mode, /*inherited=*/true});
    }
    return enabled;
  }
  for (const ThpSize& size : sizes) {
    if (size.mode != "never") enabled.push_back(size);
  }
  return enabled;
}

bool ThpSettings::PmdEnabled() const {
  for (const ThpSize& size : sizes) {
    if (size.bytes == pmd_bytes) return size.mode != "never";
  }
  return pmd_bytes > 0 && mode != "never";
}

std::vector<ThpSize> ThpSettings::MultiSize() const {
  std::vector<ThpSize> small;
  for (const ThpSize& size : EnabledSizes()) {
    if (pmd_bytes == 0 || size.bytes < pmd_bytes) small.push_back(size);
  }
  return small;
}

absl::StatusOr<std::string> ParseBracketed(absl::string_view text) {
  std::string selected;
  int found = 0;
  for (absl::string_view word :
       absl::StrSplit(text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&word, "[") && absl::ConsumeSuffix(&word, "]") &&
        !word.empty()) {
      selected = std::string(word);
      ++found;
    }
  }
  if (found != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected one [selected] word among the choices, found \"",
                     text, "\""));
  }
  return selected;
}

absl::StatusOr<ThpSettings> ReadThpSettings(absl::string_view sys_root) {
  const std::string dir =
      absl::StrCat(sys_root, "/kernel/mm/transparent_hugepage");
  ThpSettings thp;
  auto mode_of = [](const std::string& path) -> absl::StatusOr<std::string> {
    absl::StatusOr<std::string> text = ReadSysFile(path);
    if (!text.ok()) return text.status();
    absl::StatusOr<std::string> mode = ParseBracketed(*text);
    if (!mode.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", mode.status().message()));
    }
    return mode;
  };
  absl::StatusOr<std::string> mode = mode_of(dir + "/enabled");
  if (!mode.ok()) {
    if (absl::IsNotFound(mode.status())) {
      return absl::NotFoundError(absl::StrCat(
          dir, " is missing: a kernel built without transparent huge pages"));
    }
    return mode.status();
  }
  if (!IsMode(*mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, "/enabled: unknown mode \"", *mode, "\""));
  }
  thp.mode = *mode;
  // Older kernels may lack the file; the PMD size then stays unknown (0).
  absl::StatusOr<std::string> pmd = ReadSysFile(dir + "/hpage_pmd_size");
  if (pmd.ok() && !absl::SimpleAtoi(*pmd, &thp.pmd_bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, "/hpage_pmd_size: expected a byte count, found \"", *pmd, "\""));
  }
  absl::StatusOr<std::vector<std::pair<size_t, std::string>>> dirs =
      SizeDirs(dir);
  if (!dirs.ok()) return dirs.status();
  for (const auto& [bytes, name] : *dirs) {
    const std::string path = absl::StrCat(dir, "/", name, "/enabled");
    absl::StatusOr<std::string> size_mode = mode_of(path);
    // A size only shared memory can use (6.18 lists 8 KiB with just
    // shmem_enabled) is no size of anonymous memory.
    if (absl::IsNotFound(size_mode.status())) continue;
    if (!size_mode.ok()) return size_mode.status();
    ThpSize size{bytes, *size_mode, false};
    if (size.mode == "inherit") {
      size.mode = thp.mode;
      size.inherited = true;
    } else if (!IsMode(size.mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": unknown mode \"", size.mode, "\""));
    }
    thp.sizes.push_back(size);
  }
  return thp;
}

std::string DescribeThp(const absl::StatusOr<ThpSettings>& thp) {
  if (!thp.ok()) return absl::StrCat("THP n/a (", thp.status().message(), ")");
  std::vector<std::string> huge;
  std::vector<std::string> multi;
  for (const ThpSize& size : thp->EnabledSizes()) {
    const bool below_pmd = thp->pmd_bytes == 0 || size.bytes < thp->pmd_bytes;
    (below_pmd && !thp->sizes.empty() ? multi : huge)
        .push_back(SizeAndMode(size));
  }
  std::string line = absl::StrCat("THP ", thp->mode);
  if (!huge.empty())
    absl::StrAppend(&line, " (", absl::StrJoin(huge, ", "), ")");
  if (thp->sizes.empty()) {
    absl::StrAppend(&line, ", no mTHP controls (kernel before 6.8)");
  } else if (multi.empty()) {
    absl::StrAppend(&line, ", no mTHP size enabled");
  } else {
    absl::StrAppend(&line, ", mTHP ", absl::StrJoin(multi, ", "));
  }
  return line;
}

}  // namespace alloclab
