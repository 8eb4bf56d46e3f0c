// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The storage half of task.h's "memory only from pages.h", part of the same
// suite as task_test.cc and linked with it against each implementation: the
// state an allocator reserves in the binary itself. Fixed state of a known
// size may be static; metadata that grows with use, and every block, come
// from the page source. Static storage is memory the allocator holds that
// neither the page source nor ReadCounters() ever counts, so task.h bounds
// it: kMaxStaticBytes of .data and .bss, kMaxThreadLocalBytes of
// thread-local state per thread.
//
// The suite does not believe the allocator about it: it reads the objects
// themselves. tools/lab/lab.bzl (implementation_objects) puts beside each test
// binary the static archives of its implementation, the learner's task.cc
// and whatever else their library links, but for the lab's given half
// (pages.h, lock.h, thread_exit.h): solution_objects/ beside solution_test,
// starter_objects/ beside starter_test and starter_suite,
// known_bad_<bad>_objects/ beside known_bad_<bad>_suite. Every ELF object
// in them (32 or 64 bits, either byte order: x86-64 and arm64 alike) is
// read, and each writable section it allocates is summed: .data, .bss and
// any section of the learner's own naming, thread-local ones (.tdata,
// .tbss) apart, per thread, and common symbols with them. Sections that are
// read-only once the program is loaded (.data.rel.ro) or that only list
// constructors (.init_array) hold no state.
//
// The bound in bytes says nothing of a static pool small enough to fit it,
// which the rule forbids all the same ("all metadata that grows with use"
// from pages.h): StaticStorageDoesNotGrowWithUse watches the pages of static
// storage a fresh process touches while it makes thousands of blocks live.
//
// Example failure (a pool of span descriptors "for any program" in .bss):
//
//   task.h: "fixed state of a known size ... may be static", at most
//   kMaxStaticBytes = 4194304 bytes of .data and .bss; your objects
//   reserve 17825792 (largest: allocator_design::(anonymous
//   namespace)::descriptor_pool, 16777216 bytes, in bad_....o)

#include <cxxabi.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "tests/allocator_design/run_fresh.h"

namespace allocator_design {
namespace {

// One variable (or common symbol) of the storage summed, for the message.
struct Variable {
  std::string name;  // demangled
  uint64_t bytes = 0;
  std::string object;
};

// What the objects reserve.
struct StaticStorage {
  uint64_t static_bytes = 0;        // .data, .bss, and the like
  uint64_t thread_local_bytes = 0;  // .tdata, .tbss: per thread
  std::vector<Variable> statics;
  std::vector<Variable> thread_locals;
  int objects = 0;  // ELF objects read
};

// ElfReader
//
// Fields of one ELF object in memory, of either class and byte order, each
// read checked against the object's end.
class ElfReader {
 public:
  explicit ElfReader(absl::string_view bytes) : bytes_(bytes) {}

  bool Valid() const {
    return bytes_.size() >= 64 &&
           bytes_.substr(0, 4) ==
               "\x7f"
               "ELF" &&
           (bytes_[4] == 1 || bytes_[4] == 2) &&
           (bytes_[5] == 1 || bytes_[5] == 2);
  }
  bool Wide() const { return bytes_[4] == 2; }  // ELFCLASS64

  // The unsigned number of `width` bytes at `at`; false past the end.
  bool Read(uint64_t at, int width, uint64_t* out) const {
    if (at > bytes_.size() || bytes_.size() - at < uint64_t(width)) {
      return false;
    }
    uint64_t value = 0;
    for (int i = 0; i < width; ++i) {
      const int byte = bytes_[5] == 1 ? width - 1 - i : i;  // 1: little end
      value = (value << 8) |
              static_cast<unsigned char>(bytes_[at + uint64_t(byte)]);
    }
    *out = value;
    return true;
  }

  // A word: 8 bytes in a 64-bit object, 4 in a 32-bit one.
  bool Word(uint64_t at, uint64_t* out) const {
    return Read(at, Wide() ? 8 : 4, out);
  }

  // The NUL-terminated string at `at`, or "" past the end.
  std::string String(uint64_t at) const {
    if (at >= bytes_.size()) return "";
    const size_t end = bytes_.find('\0', at);
    return std::string(
        bytes_.substr(at, end == absl::string_view::npos ? end : end - at));
  }

 private:
  absl::string_view bytes_;
};

// One section header's fields.
struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint64_t entry_size = 0;
};

// Whether a section is state: allocated in the running program, writable
// there, not code, and not one of the sections that only the loader writes
// (relocated pointers that become read-only, the constructor lists, the
// GOT).
bool IsState(const Section& s) {
  if ((s.flags & SHF_ALLOC) == 0 || (s.flags & SHF_WRITE) == 0 ||
      (s.flags & SHF_EXECINSTR) != 0) {
    return false;
  }
  for (absl::string_view loader_only :
       {".data.rel.ro", ".init_array", ".fini_array", ".preinit_array",
        ".ctors", ".dtors", ".got", ".tm_clone_table"}) {
    if (absl::StartsWith(s.name, loader_only)) return false;
  }
  return true;
}

// Adds what one ELF object reserves to `storage`.
absl::Status ReadObject(absl::string_view bytes, const std::string& object,
                        StaticStorage* storage) {
  const ElfReader elf(bytes);
  if (!elf.Valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat(object, " is not an ELF object"));
  }
  const bool wide = elf.Wide();
  uint64_t shoff = 0, shentsize = 0, shnum = 0, shstrndx = 0;
  if (!elf.Word(wide ? 0x28 : 0x20, &shoff) ||
      !elf.Read(wide ? 0x3a : 0x2e, 2, &shentsize) ||
      !elf.Read(wide ? 0x3c : 0x30, 2, &shnum) ||
      !elf.Read(wide ? 0x3e : 0x32, 2, &shstrndx)) {
    return absl::InvalidArgumentError(
        absl::StrCat(object, ": its ELF header is cut short"));
  }
  // Many sections (-ffunction-sections): their count, and the index of
  // their names, are in section 0's size and link.
  if (shnum == 0 && shoff != 0 &&
      !elf.Word(shoff + (wide ? 0x20 : 0x14), &shnum)) {
    shnum = 0;
  }
  if (shstrndx == SHN_XINDEX &&
      !elf.Read(shoff + (wide ? 0x28 : 0x18), 4, &shstrndx)) {
    shstrndx = shnum;
  }
  if (shstrndx >= shnum || shnum > bytes.size() / (wide ? 64 : 40)) {
    return absl::InvalidArgumentError(
        absl::StrCat(object, ": its section headers are corrupt"));
  }
  std::vector<Section> sections(shnum);
  std::vector<uint64_t> name_offsets(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + i * shentsize;
    Section& s = sections[i];
    uint64_t type = 0, link = 0;
    const bool ok = elf.Read(at, 4, &name_offsets[i]) &&
                    elf.Read(at + 4, 4, &type) && elf.Word(at + 8, &s.flags) &&
                    elf.Word(at + (wide ? 0x18 : 0x10), &s.offset) &&
                    elf.Word(at + (wide ? 0x20 : 0x14), &s.size) &&
                    elf.Read(at + (wide ? 0x28 : 0x18), 4, &link) &&
                    elf.Word(at + (wide ? 0x38 : 0x24), &s.entry_size);
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat(object, ": section header ", i, " is cut short"));
    }
    s.type = static_cast<uint32_t>(type);
    s.link = static_cast<uint32_t>(link);
  }
  for (uint64_t i = 0; i < shnum; ++i) {
    sections[i].name = elf.String(sections[shstrndx].offset + name_offsets[i]);
  }
  ++storage->objects;
  for (const Section& s : sections) {
    if (!IsState(s)) continue;
    if (s.flags & SHF_TLS) {
      storage->thread_local_bytes += s.size;
    } else {
      storage->static_bytes += s.size;
    }
  }

  // The variables, for the message; and common symbols, which have no
  // section and are storage all the same (a C tentative definition).
  for (const Section& table : sections) {
    if (table.type != SHT_SYMTAB || table.entry_size == 0 ||
        table.link >= shnum) {
      continue;
    }
    const Section& names = sections[table.link];
    for (uint64_t at = table.offset;
         at + table.entry_size <= table.offset + table.size;
         at += table.entry_size) {
      uint64_t name = 0, info = 0, shndx = 0, size = 0;
      const bool ok = elf.Read(at, 4, &name) &&
                      elf.Read(at + (wide ? 4 : 12), 1, &info) &&
                      elf.Read(at + (wide ? 6 : 14), 2, &shndx) &&
                      elf.Word(at + (wide ? 16 : 8), &size);
      if (!ok) break;
      const uint8_t kind = info & 0xf;
      if ((kind != STT_OBJECT && kind != STT_TLS) || size == 0) continue;
      bool thread_local_variable = kind == STT_TLS;
      if (shndx == SHN_COMMON) {
        (thread_local_variable ? storage->thread_local_bytes
                               : storage->static_bytes) += size;
      } else if (shndx < shnum && IsState(sections[shndx])) {
        thread_local_variable = (sections[shndx].flags & SHF_TLS) != 0;
      } else {
        continue;
      }
      Variable v;
      v.name = elf.String(names.offset + name);
      int status = 0;
      if (char* demangled =
              abi::__cxa_demangle(v.name.c_str(), nullptr, nullptr, &status)) {
        v.name = demangled;
        std::free(demangled);
      }
      v.bytes = size;
      v.object = object;
      (thread_local_variable ? storage->thread_locals : storage->statics)
          .push_back(std::move(v));
    }
  }
  return absl::OkStatus();
}

// Adds what every ELF object of `file` reserves: an archive's members (the
// GNU ar format Bazel writes), or `file` itself when it is an object.
absl::Status ReadFile(const std::string& path, StaticStorage* storage) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path));
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string bytes = text.str();
  // Its name without the number lab.bzl gave it ("1-libtask.a").
  absl::string_view file = path;
  file = file.substr(file.rfind('/') + 1);
  file = file.substr(file.find('-') + 1);
  constexpr absl::string_view kMagic = "!<arch>\n";
  if (!absl::StartsWith(bytes, kMagic)) {
    return ReadObject(bytes, std::string(file), storage);
  }
  size_t at = kMagic.size();
  absl::string_view long_names;  // the "//" member: names over 15 bytes
  while (at + 60 <= bytes.size()) {
    const absl::string_view header(bytes.data() + at, 60);
    uint64_t size = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(header.substr(48, 10)),
                          &size) ||
        size > bytes.size() - at - 60) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": an archive member's header is corrupt"));
    }
    const absl::string_view member(bytes.data() + at + 60, size);
    absl::string_view name = absl::StripAsciiWhitespace(header.substr(0, 16));
    uint64_t long_name = 0;
    if (name == "//") {
      long_names = member;
    } else if (absl::ConsumePrefix(&name, "/") &&
               absl::SimpleAtoi(name, &long_name) &&
               long_name < long_names.size()) {
      name = long_names.substr(long_name);
      name = name.substr(0, name.find('\n'));
    }
    absl::ConsumeSuffix(&name, "/");
    // The symbol index ("/", "/SYM64/") and long names ("//") are not
    // objects; every other member of an archive of a cc_library is.
    if (absl::StartsWith(member,
                         "\x7f"
                         "ELF")) {
      absl::Status read =
          ReadObject(member, absl::StrCat(file, "(", name, ")"), storage);
      if (!read.ok()) return read;
    }
    at += 60 + size + (size & 1);  // members start at even offsets
  }
  return absl::OkStatus();
}

// The directory of this implementation's objects, beside this binary:
// solution_test's solution_objects/, known_bad_<bad>_suite's
// known_bad_<bad>_objects/.
absl::StatusOr<std::string> ObjectsDirectory() {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return absl::ErrnoToStatus(errno, "readlink /proc/self/exe");
  absl::string_view self(exe, static_cast<size_t>(n));
  const size_t slash = self.rfind('/');
  absl::string_view program = self.substr(slash + 1);
  if (!absl::ConsumeSuffix(&program, "_test")) {
    absl::ConsumeSuffix(&program, "_suite");
  }
  const std::string directory =
      absl::StrCat(self.substr(0, slash + 1), program, "_objects");
  if (access(directory.c_str(), R_OK | X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("no ", directory,
                     ": tools/lab/lab.bzl's implementation_objects puts "
                     "one beside each test binary of lab_tests"));
  }
  return directory;
}

// What every object in the directory reserves.
absl::StatusOr<StaticStorage> ReadObjects(const std::string& directory) {
  DIR* dir = opendir(directory.c_str());
  if (dir == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("opendir ", directory));
  }
  std::vector<std::string> files;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') files.push_back(entry->d_name);
  }
  closedir(dir);
  std::sort(files.begin(), files.end());
  StaticStorage storage;
  for (const std::string& file : files) {
    absl::Status read = ReadFile(absl::StrCat(directory, "/", file), &storage);
    if (!read.ok()) return read;
  }
  return storage;
}

// The largest variables, for the message.
std::string Largest(std::vector<Variable> variables) {
  std::sort(
      variables.begin(), variables.end(),
      [](const Variable& a, const Variable& b) { return a.bytes > b.bytes; });
  if (variables.size() > 3) variables.resize(3);
  if (variables.empty()) return "no named variable: anonymous sections";
  return absl::StrCat(
      "largest: ",
      absl::StrJoin(variables, "; ", [](std::string* out, const Variable& v) {
        absl::StrAppend(out, v.name, ", ", v.bytes, " bytes, in ", v.object);
      }));
}

TEST(ValidatorMemorySource, StaticStateIsFixedAndWithinItsBounds) {
  absl::StatusOr<std::string> directory = ObjectsDirectory();
  ASSERT_TRUE(directory.ok()) << directory.status();
  absl::StatusOr<StaticStorage> storage = ReadObjects(*directory);
  ASSERT_TRUE(storage.ok()) << storage.status();
  // An implementation has code: finding no object means the objects went
  // somewhere this test does not look.
  ASSERT_GT(storage->objects, 0)
      << "no ELF object in " << *directory
      << ": the implementation's archives were not found";
  std::printf(
      "%s: %d objects reserve %llu bytes of static state and %llu "
      "of thread-local state per thread\n",
      directory->substr(directory->rfind('/') + 1).c_str(), storage->objects,
      static_cast<unsigned long long>(storage->static_bytes),
      static_cast<unsigned long long>(storage->thread_local_bytes));
  EXPECT_LE(storage->static_bytes, kMaxStaticBytes)
      << "task.h: \"It gets memory only from pages.h: every block, and all "
         "metadata that grows with use; fixed state of a known size ... may "
         "be static\", at most kMaxStaticBytes = "
      << kMaxStaticBytes << " bytes of .data and .bss; your objects reserve "
      << storage->static_bytes << " (" << Largest(storage->statics) << ")";
  EXPECT_LE(storage->thread_local_bytes, kMaxThreadLocalBytes)
      << "task.h: \"fixed state of a known size (... the thread-local "
         "caches) may be static\", at most kMaxThreadLocalBytes = "
      << kMaxThreadLocalBytes << " bytes per thread; your objects reserve "
      << storage->thread_local_bytes << " of thread-local storage ("
      << Largest(storage->thread_locals) << ")";
}

// kStaticPagesTouchedByUse
//
// The pages of static storage (the writable segments of the object that
// holds Allocate()) a fresh process may touch while it takes
// kGrowthBlocks more blocks live, the allocator set up: fixed state of a known
// size is touched where the new memory lands, a page-map root's entry (one
// page of a root covers far more than those blocks' addresses) and the page
// source's table of mappings (one word a mapping), each across at most one
// page boundary. Metadata that grows with use touches pages in proportion:
// 4,096 span descriptors of 64 bytes are 64 pages.
constexpr uint64_t kStaticPagesTouchedByUse = 2;

// The blocks StaticStorageDoesNotGrowWithUse makes live: kGrowthBlocks of
// kGrowthBlockBytes, 32 MiB, hundreds of spans or regions of any design's.
constexpr size_t kGrowthBlocks = 4096;
constexpr size_t kGrowthBlockBytes = size_t{8} << 10;

// ResidentStaticPages()
//
// The pages of the writable segments (.data, .bss) of the object that holds
// Allocate() (this executable, or the shared library the implementation is
// linked as) that are resident now (mincore(2)): static storage the process
// has touched. -1 when the object is not found or mincore fails.
int64_t ResidentStaticPages() {
  struct Search {
    uintptr_t code;
    int64_t pages = -1;
  } search{reinterpret_cast<uintptr_t>(&Allocate)};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        Search& search = *static_cast<Search*>(data);
        bool ours = false;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && search.code >= start &&
              search.code < start + ph.p_memsz) {
            ours = true;
          }
        }
        if (!ours) return 0;
        const uintptr_t page = PageSize();
        search.pages = 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) == 0) continue;
          const uintptr_t start = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
          const uintptr_t end =
              (info->dlpi_addr + ph.p_vaddr + ph.p_memsz + page - 1) &
              ~(page - 1);
          std::vector<unsigned char> resident((end - start) / page);
          if (mincore(reinterpret_cast<void*>(start), end - start,
                      resident.data()) != 0) {
            search.pages = -1;
            return 1;
          }
          for (unsigned char r : resident) search.pages += r & 1;
        }
        return 1;
      },
      &search);
  return search.pages;
}

// In a fresh process: one block of kGrowthBlockBytes allocated and freed
// (the allocator set up), then kGrowthBlocks of them allocated, the pages of
// static storage resident counted before and after, and all freed. Nothing but
// the allocator runs between the two counts; the blocks are not written.
void StaticGrowthCall(alloclab::FreshCall& call) {
  std::vector<void*> blocks(kGrowthBlocks, nullptr);
  Free(Allocate(kGrowthBlockBytes, 0, false));
  const int64_t before = ResidentStaticPages();
  for (void*& p : blocks) p = Allocate(kGrowthBlockBytes, 0, false);
  const int64_t after = ResidentStaticPages();
  int64_t failed = 0;
  for (void* p : blocks) {
    failed += p == nullptr;
    Free(p);
  }
  call.Record("before", static_cast<double>(before));
  call.Record("after", static_cast<double>(after));
  call.Record("failed", static_cast<double>(failed));
}
ALLOCLAB_FRESH_CALL("allocator_design_static_growth", StaticGrowthCall);

// The rule the bound in bytes cannot see: a pool of descriptors in .bss
// within kMaxStaticBytes is static storage that grows with use all the same.
TEST(ValidatorMemorySource, StaticStorageDoesNotGrowWithUse) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      suite::RunFresh("allocator_design_static_growth");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["failed"], 0) << "Allocate() gave nullptr";
  ASSERT_GE(r->values["before"], 0)
      << "the object that holds Allocate() not found, or mincore(2) failed";
  const double touched = r->values["after"] - r->values["before"];
  std::printf(
      "%g pages of static storage touched while %zu blocks of %zu bytes were "
      "taken live (%g before)\n",
      touched, kGrowthBlocks, kGrowthBlockBytes, r->values["before"]);
  EXPECT_LE(touched, kStaticPagesTouchedByUse)
      << "task.h: \"It gets memory only from pages.h: every block, and all "
         "metadata that grows with use (span descriptors, page-map leaves); "
         "fixed state of a known size ... may be static\": taking "
      << kGrowthBlocks << " blocks of " << kGrowthBlockBytes
      << " bytes live touched " << touched
      << " more pages of static storage (at most " << kStaticPagesTouchedByUse
      << " for fixed state): metadata that grows with use is in static "
         "storage";
}

}  // namespace
}  // namespace allocator_design
