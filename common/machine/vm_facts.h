// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: vm_facts.h
// -----------------------------------------------------------------------------
//
// The kernel's virtual-memory facts that decide what a page-fault count
// means, probed or read on the machine at hand instead of assumed:
//
//   - the page size (4 KiB on x86-64, often 16 or 64 KiB on arm64);
//   - whether a read of fresh anonymous memory maps the kernel's shared zero
//     page (then the first write faults again) or allocates a private page
//     at once (kernels or hypervisors without the zero page);
//   - transparent huge pages: the global mode and, on 6.8+ kernels, the
//     multi-size THP (mTHP) folio sizes that are enabled. With a 64 KiB size
//     enabled, one fault can make sixteen 4 KiB pages present, so a count of
//     faults is no longer a count of pages unless the memory asks for base
//     pages (see base_pages.h).
//
// Everything that reads /sys takes a `sys_root`, so tests run on fixture
// trees of kernels this machine is not (common/machine/testdata/thp/).
//
// Example:
//
//   alloclab::ZeroPageProbe zero = alloclab::ProbeZeroPage();
//   if (zero.answer == alloclab::ZeroPage::kNone) { ... reads prefault ... }
//   absl::StatusOr<alloclab::ThpSettings> thp = alloclab::ReadThpSettings();
//   std::string line = alloclab::DescribeThp(thp);  // "THP madvise, ..."

#ifndef ALLOCLAB_COMMON_MACHINE_VM_FACTS_H_
#define ALLOCLAB_COMMON_MACHINE_VM_FACTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// PageBytes()
//
// The base page size, sysconf(_SC_PAGESIZE).
size_t PageBytes();

// PagesIn()
//
// How many base pages `bytes` spans from a page boundary (rounded up); with
// `page_bytes`, in pages of that size (another machine's, e.g. a fixture's).
size_t PagesIn(size_t bytes);
size_t PagesIn(size_t bytes, size_t page_bytes);

// ZeroPage
//
// kShared: a read fault maps the kernel's shared page of zeros (read-only);
//   the first write to that page faults again for a private copy.
// kNone: a read fault allocates the private page at once; the write that
//   follows takes no fault.
// kUnknown: the counts fit neither pattern (see the probe's `reason`).
enum class ZeroPage { kShared, kNone, kUnknown };

// ZeroPageProbe
struct ZeroPageProbe {
  ZeroPage answer = ZeroPage::kUnknown;
  int64_t pages = 0;         // pages of the probe's mapping
  int64_t read_faults = 0;   // minor faults while reading one byte of each
  int64_t write_faults = 0;  // then while writing one byte of each
  std::string reason;        // the counts and what they mean, for a line
};

// ClassifyZeroPage()
//
// The answer the counts give: a fault per page on reading, then again on
// writing, is kShared; a fault per page on reading and (nearly) none on
// writing is kNone; anything else (fewer read faults than pages, as when
// one fault maps a large folio) is kUnknown. A quarter of the pages is the
// tolerance for stray faults of the process (the counters are per thread,
// but a signal handler or the loader can still fault on it).
ZeroPageProbe ClassifyZeroPage(int64_t pages, int64_t read_faults,
                               int64_t write_faults);

// ProbeZeroPage()
//
// Maps 64 base pages of fresh anonymous memory, asks for base pages
// (MADV_NOHUGEPAGE: a large folio would answer many reads with one fault),
// reads a byte of each page, then writes one, counting this thread's minor
// faults (faults.h) around each pass, and classifies the counts. kUnknown,
// with the reason, when the mapping or the counter is refused.
ZeroPageProbe ProbeZeroPage();

// OwnPresentPages()
//
// How many of the pages that [start, start + bytes) spans are present and
// this process's own, from /proc/self/pagemap: bit 63 (present) and bit 56
// (mapped exclusively). A page that was only read on a kernel with the zero
// page is present but not exclusive: its first write still faults. The
// second instrument of the zero page, independent of fault counts.
// Unavailable, with the reason, where pagemap cannot be read.
absl::StatusOr<size_t> OwnPresentPages(const void* start, size_t bytes);

// ZeroPageName()
//
// "shared zero page", "no zero page" or "zero page unknown".
absl::string_view ZeroPageName(ZeroPage answer);

// ThpSize
//
// One folio size of /sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/.
// `mode` is what applies: "always", "madvise" or "never", with "inherit"
// resolved to the global mode (and `inherited` set).
struct ThpSize {
  size_t bytes = 0;
  std::string mode;
  bool inherited = false;
};

// ThpSettings
//
// `mode` is the global setting of .../transparent_hugepage/enabled
// ("always", "madvise" or "never"). `sizes` lists the per-size controls of
// kernels 6.8 and later, smallest first (empty on older kernels, whose only
// size is the PMD size `pmd_bytes`, 0 where hpage_pmd_size is missing).
struct ThpSettings {
  std::string mode;
  size_t pmd_bytes = 0;
  std::vector<ThpSize> sizes;

  // EnabledSizes()
  //
  // The folio sizes a fault may use (mode "always" or "madvise"), smallest
  // first; on a kernel without per-size controls, the PMD size unless the
  // global mode is "never".
  std::vector<ThpSize> EnabledSizes() const;

  // PmdEnabled()
  //
  // Whether memory advised MADV_HUGEPAGE can get a PMD-size huge page: the
  // PMD size's own control on 6.8+ kernels (it may say "never" while the
  // global mode says "madvise"), else the global mode.
  bool PmdEnabled() const;

  // MultiSize()
  //
  // The enabled sizes below the PMD size: the mTHP sizes that make one
  // fault of an ordinary mapping cover several base pages.
  std::vector<ThpSize> MultiSize() const;
};

// ParseBracketed()
//
// The selected word of a sysfs choice file: "always [madvise] never" ->
// "madvise". InvalidArgument when no single word is bracketed.
absl::StatusOr<std::string> ParseBracketed(absl::string_view text);

// ReadThpSettings()
//
// Reads `<sys_root>/kernel/mm/transparent_hugepage/`. NotFound, naming the
// directory, on a kernel built without THP; InvalidArgument, naming the
// file, on contents it cannot parse.
absl::StatusOr<ThpSettings> ReadThpSettings(
    absl::string_view sys_root = "/sys");

// DescribeThp()
//
// For the machine line: "THP madvise (2048 KiB), no mTHP size enabled",
// "THP never, mTHP 16 KiB always, 64 KiB madvise", or "THP n/a (<reason>)".
std::string DescribeThp(const absl::StatusOr<ThpSettings>& thp);

// DescribeZeroPage()
//
// For the machine line: "shared zero page", "no zero page" or
// "zero page unknown (<reason>)".
std::string DescribeZeroPage(const ZeroPageProbe& probe);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_VM_FACTS_H_
