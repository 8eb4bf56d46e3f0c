// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The virtual-memory facts: the zero-page verdict for both kinds of kernel
// (from counts, so both run here whatever this kernel is), the live probe
// checked against a second instrument (pagemap), and the THP settings of
// fixture trees (common/machine/testdata/thp/): a 6.8+ kernel with mTHP sizes
// enabled, this VM's 6.18 layout, a 6.1 kernel without per-size controls,
// an arm64 64 KiB-page kernel, no THP, and garbled files.

#include "common/machine/vm_facts.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;

// Bazel runs a test in its runfiles tree, where the fixtures sit at their
// workspace paths.
std::string Fixture(const std::string& kernel) {
  return "common/machine/testdata/thp/" + kernel;
}

std::vector<size_t> Bytes(const std::vector<ThpSize>& sizes) {
  std::vector<size_t> bytes;
  for (const ThpSize& size : sizes) bytes.push_back(size.bytes);
  return bytes;
}

TEST(PageBytesTest, IsTheKernelsPageSize) {
  EXPECT_EQ(PageBytes(), static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(PageBytes() & (PageBytes() - 1), 0u) << "a power of two";
}

TEST(PageBytesTest, PagesInRoundsUp) {
  EXPECT_EQ(PagesIn(0), 0u);
  EXPECT_EQ(PagesIn(1), 1u);
  EXPECT_EQ(PagesIn(PageBytes()), 1u);
  EXPECT_EQ(PagesIn(PageBytes() + 1), 2u);
  EXPECT_EQ(PagesIn(64 * PageBytes() - 1), 64u);
}

// --- The zero page: both verdicts, from counts
// --------------------------------

TEST(ClassifyZeroPageTest, FaultsOnReadAndOnWriteMeanASharedZeroPage) {
  const ZeroPageProbe probe = ClassifyZeroPage(64, 64, 64);
  EXPECT_EQ(probe.answer, ZeroPage::kShared);
  EXPECT_THAT(probe.reason, HasSubstr("64 read faults, then 64 write faults"));
  EXPECT_EQ(DescribeZeroPage(probe), "shared zero page");
}

TEST(ClassifyZeroPageTest, FaultsOnReadOnlyMeanNoZeroPage) {
  const ZeroPageProbe probe = ClassifyZeroPage(64, 64, 0);
  EXPECT_EQ(probe.answer, ZeroPage::kNone);
  EXPECT_THAT(probe.reason, HasSubstr("reading each page prefaults it"));
  EXPECT_EQ(DescribeZeroPage(probe), "no zero page");
}

TEST(ClassifyZeroPageTest, ToleratesAFewStrayFaults) {
  EXPECT_EQ(ClassifyZeroPage(64, 66, 63).answer, ZeroPage::kShared);
  EXPECT_EQ(ClassifyZeroPage(64, 49, 48).answer, ZeroPage::kShared);
  EXPECT_EQ(ClassifyZeroPage(64, 65, 2).answer, ZeroPage::kNone);
  EXPECT_EQ(ClassifyZeroPage(64, 64, 16).answer, ZeroPage::kNone);
}

TEST(ClassifyZeroPageTest, AnythingElseIsUnknownAndSaysWhy) {
  // One fault per 64 KiB folio: 4 faults for 64 pages.
  const ZeroPageProbe folios = ClassifyZeroPage(64, 4, 0);
  EXPECT_EQ(folios.answer, ZeroPage::kUnknown);
  EXPECT_THAT(DescribeZeroPage(folios),
              HasSubstr("zero page unknown (4 read faults, then 0 write"));
  EXPECT_EQ(ClassifyZeroPage(64, 0, 0).answer, ZeroPage::kUnknown);
  EXPECT_EQ(ClassifyZeroPage(64, 64, 32).answer, ZeroPage::kUnknown);
  EXPECT_EQ(ClassifyZeroPage(0, 0, 0).answer, ZeroPage::kUnknown);
}

// --- The zero page of this kernel, by two instruments
// -------------------------

TEST(ProbeZeroPageTest, AnswersAndEveryReadFaults) {
  const ZeroPageProbe probe = ProbeZeroPage();
  ASSERT_NE(probe.answer, ZeroPage::kUnknown) << probe.reason;
  EXPECT_EQ(probe.pages, 64);
  // Either way, each read of a fresh base page is a fault.
  EXPECT_GE(probe.read_faults, 48) << probe.reason;
}

// Pagemap, not fault counts: after reading fresh pages, they are this
// process's own where there is no zero page, and not where there is one.
TEST(ProbeZeroPageTest, AgreesWithPagemap) {
  const ZeroPageProbe probe = ProbeZeroPage();
  ASSERT_NE(probe.answer, ZeroPage::kUnknown) << probe.reason;
  const size_t bytes = 64 * PageBytes();
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(madvise(p, bytes, MADV_NOHUGEPAGE), 0);
  const volatile uint8_t* page = static_cast<const volatile uint8_t*>(p);
  uint8_t sum = 0;
  for (size_t offset = 0; offset < bytes; offset += PageBytes()) {
    sum = static_cast<uint8_t>(sum + page[offset]);
  }
  EXPECT_EQ(sum, 0);
  absl::StatusOr<size_t> own = OwnPresentPages(p, bytes);
  munmap(p, bytes);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(*own, probe.answer == ZeroPage::kNone ? 64u : 0u)
      << "probe said: " << DescribeZeroPage(probe) << "; " << probe.reason;
}

TEST(OwnPresentPagesTest, WrittenPagesAreOwnUntouchedAreNot) {
  const size_t bytes = 8 * PageBytes();
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(madvise(p, bytes, MADV_NOHUGEPAGE), 0);
  absl::StatusOr<size_t> before = OwnPresentPages(p, bytes);
  static_cast<volatile uint8_t*>(p)[0] = 1;
  static_cast<volatile uint8_t*>(p)[3 * PageBytes() + 5] = 1;
  absl::StatusOr<size_t> after = OwnPresentPages(p, bytes);
  // A range that starts mid-page spans that page too.
  absl::StatusOr<size_t> one =
      OwnPresentPages(static_cast<uint8_t*>(p) + 3 * PageBytes() + 7, 1);
  munmap(p, bytes);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(*before, 0u);
  EXPECT_EQ(*after, 2u);
  EXPECT_EQ(*one, 1u);
}

// --- THP settings from fixture trees -----------------------------------------

TEST(ParseBracketedTest, FindsTheSelectedWord) {
  EXPECT_EQ(*ParseBracketed("always [madvise] never"), "madvise");
  EXPECT_EQ(*ParseBracketed("[always] inherit madvise never\n"), "always");
  EXPECT_EQ(*ParseBracketed("always inherit madvise [never]"), "never");
  EXPECT_FALSE(ParseBracketed("always madvise never").ok());
  EXPECT_FALSE(ParseBracketed("[always] [never]").ok());
  EXPECT_FALSE(ParseBracketed("").ok());
  EXPECT_FALSE(ParseBracketed("[]").ok());
}

TEST(ReadThpSettingsTest, KernelWithMultiSizeThp) {
  absl::StatusOr<ThpSettings> thp = ReadThpSettings(Fixture("mthp_6_8"));
  ASSERT_TRUE(thp.ok()) << thp.status();
  EXPECT_EQ(thp->mode, "madvise");
  EXPECT_EQ(thp->pmd_bytes, 2u << 20);
  EXPECT_EQ(thp->sizes.size(), 8u);
  EXPECT_EQ(Bytes(thp->EnabledSizes()),
            (std::vector<size_t>{32 << 10, 64 << 10, 2 << 20}));
  EXPECT_EQ(Bytes(thp->MultiSize()), (std::vector<size_t>{32 << 10, 64 << 10}));
  EXPECT_TRUE(thp->PmdEnabled());
  EXPECT_EQ(DescribeThp(thp),
            "THP madvise (2048 KiB inherit=madvise), mTHP 32 KiB madvise, "
            "64 KiB always");
}

TEST(ReadThpSettingsTest, ThisVmsLayoutHasNoMultiSizeEnabled) {
  absl::StatusOr<ThpSettings> thp = ReadThpSettings(Fixture("this_vm_6_18"));
  ASSERT_TRUE(thp.ok()) << thp.status();
  // hugepages-8kB has shmem_enabled only: not a size of anonymous memory.
  EXPECT_EQ(thp->sizes.size(), 8u);
  EXPECT_EQ(thp->sizes.front().bytes, 16u << 10) << "sorted by size, not name";
  EXPECT_TRUE(thp->MultiSize().empty());
  EXPECT_EQ(DescribeThp(thp),
            "THP madvise (2048 KiB inherit=madvise), no mTHP size enabled");
}

TEST(ReadThpSettingsTest, KernelBeforePerSizeControls) {
  absl::StatusOr<ThpSettings> thp = ReadThpSettings(Fixture("classic_6_1"));
  ASSERT_TRUE(thp.ok()) << thp.status();
  EXPECT_EQ(thp->mode, "always");
  EXPECT_TRUE(thp->sizes.empty());
  EXPECT_EQ(Bytes(thp->EnabledSizes()), (std::vector<size_t>{2 << 20}));
  EXPECT_TRUE(thp->MultiSize().empty());
  EXPECT_TRUE(thp->PmdEnabled());
  EXPECT_EQ(DescribeThp(thp),
            "THP always (2048 KiB inherit=always), no mTHP controls (kernel "
            "before 6.8)");
}

TEST(ReadThpSettingsTest, Arm64With64KiBPages) {
  absl::StatusOr<ThpSettings> thp = ReadThpSettings(Fixture("arm64_64k"));
  ASSERT_TRUE(thp.ok()) << thp.status();
  EXPECT_EQ(thp->mode, "never");
  EXPECT_EQ(thp->pmd_bytes, 512u << 20);
  // The PMD size inherits "never"; 2 MiB (contiguous PTEs) is on by itself.
  EXPECT_EQ(Bytes(thp->EnabledSizes()), (std::vector<size_t>{2 << 20}));
  EXPECT_EQ(Bytes(thp->MultiSize()), (std::vector<size_t>{2 << 20}));
  EXPECT_FALSE(thp->PmdEnabled()) << "512 MiB inherits never";
  EXPECT_EQ(DescribeThp(thp), "THP never, mTHP 2048 KiB always");
}

// The global mode says madvise, the PMD size's own control says never: a
// MADV_HUGEPAGE region gets no 2 MiB page, only the 64 KiB folios.
TEST(ReadThpSettingsTest, PmdSizeOffWhileTheGlobalModeIsOn) {
  absl::StatusOr<ThpSettings> thp = ReadThpSettings(Fixture("pmd_off_6_8"));
  ASSERT_TRUE(thp.ok()) << thp.status();
  EXPECT_EQ(thp->mode, "madvise");
  EXPECT_FALSE(thp->PmdEnabled());
  EXPECT_EQ(Bytes(thp->EnabledSizes()), (std::vector<size_t>{64 << 10}));
  EXPECT_EQ(DescribeThp(thp), "THP madvise, mTHP 64 KiB always");
}

TEST(ReadThpSettingsTest, KernelWithoutThpIsNotFound) {
  absl::StatusOr<ThpSettings> thp = ReadThpSettings(Fixture("no_thp"));
  ASSERT_FALSE(thp.ok());
  EXPECT_TRUE(absl::IsNotFound(thp.status())) << thp.status();
  EXPECT_THAT(DescribeThp(thp), HasSubstr("THP n/a ("));
  EXPECT_THAT(DescribeThp(thp),
              HasSubstr("built without transparent huge pages"));
}

TEST(ReadThpSettingsTest, GarbledFilesAreNamed) {
  absl::StatusOr<ThpSettings> garbled = ReadThpSettings(Fixture("garbled"));
  ASSERT_FALSE(garbled.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(garbled.status()));
  EXPECT_THAT(
      garbled.status().message(),
      HasSubstr("transparent_hugepage/enabled: expected one [selected]"));
  absl::StatusOr<ThpSettings> bad_size =
      ReadThpSettings(Fixture("bad_size_mode"));
  ASSERT_FALSE(bad_size.ok());
  EXPECT_THAT(bad_size.status().message(),
              HasSubstr("hugepages-64kB/enabled: unknown mode \"sometimes\""));
}

TEST(ReadThpSettingsTest, ReadsThisMachineOrSaysWhyNot) {
  absl::StatusOr<ThpSettings> thp = ReadThpSettings();
  if (!thp.ok()) {
    EXPECT_TRUE(absl::IsNotFound(thp.status())) << thp.status();
    return;
  }
  EXPECT_THAT(thp->mode, ::testing::AnyOf("always", "madvise", "never"));
  for (const ThpSize& size : thp->sizes) {
    EXPECT_THAT(size.mode, ::testing::AnyOf("always", "madvise", "never"));
    EXPECT_EQ(size.bytes % PageBytes(), 0u) << size.bytes;
  }
}

}  // namespace
}  // namespace alloclab
