// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/allocator_probe.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/machine/debian_packages.h"

namespace alloclab {
namespace {

// The multiarch triplet Debian uses for this architecture's libraries.
constexpr const char* kMultiarch =
#if defined(__x86_64__)
    "x86_64-linux-gnu";
#elif defined(__aarch64__)
    "aarch64-linux-gnu";
#elif defined(__i386__)
    "i386-linux-gnu";
#elif defined(__arm__)
    "arm-linux-gnueabihf";
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    "powerpc64le-linux-gnu";
#elif defined(__s390x__)
    "s390x-linux-gnu";
#elif defined(__riscv) && __riscv_xlen == 64
    "riscv64-linux-gnu";
#else
    "";
#endif

// glibc's ld.so cache layout (elf/dl-cache.h), new format: a 48-byte header,
// then `nlibs` entries of 24 bytes; string offsets count from the header.
constexpr absl::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr absl::string_view kOldMagic = "ld.so-1.7.0";
constexpr size_t kNewHeaderBytes = 48;
constexpr size_t kNewEntryBytes = 24;
constexpr size_t kOldHeaderBytes = 16;  // magic (11), padding, nlibs
constexpr size_t kOldEntryBytes = 12;

uint32_t ReadU32(const std::string& data, size_t at) {
  uint32_t value;
  std::memcpy(&value, data.data() + at, sizeof(value));
  return value;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Dirname(absl::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return ".";
  return std::string(path.substr(0, slash == 0 ? 1 : slash));
}

absl::string_view Basename(absl::string_view path) {
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

// The file of the C library this process runs on, whoever serves malloc.
std::optional<std::string> LibcFile() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&gnu_get_libc_version), &info) == 0 ||
      info.dli_fname == nullptr) {
    return std::nullopt;
  }
  return std::string(info.dli_fname);
}

// "libjemalloc.so.2" -> "libjemalloc.so": what every version's file starts
// with.
absl::string_view UnversionedSoname(absl::string_view soname) {
  size_t so = soname.find(".so");
  return so == absl::string_view::npos ? soname : soname.substr(0, so + 3);
}

}  // namespace

const std::vector<AllocatorSpec>& KnownAllocators() {
  static const auto* const kAllocators = new std::vector<AllocatorSpec>{
      {"glibc", {}, "glibc's ptmalloc2, the default: no preload"},
      {"jemalloc",
       {{"libjemalloc.so.2", {"libjemalloc2"}}},
       "jemalloc, the allocator Rust shipped with for years",
       "libjemalloc-dev"},
      {"tcmalloc",
       {{"libtcmalloc_minimal.so.4",
         {"libtcmalloc-minimal4t64", "libtcmalloc-minimal4"}},
        {"libtcmalloc.so.4",
         {"libgoogle-perftools4t64", "libgoogle-perftools4"}}},
       "gperftools' tcmalloc",
       "libgoogle-perftools-dev"},
      {"mimalloc",
       {{"libmimalloc.so.3", {"libmimalloc3"}},
        {"libmimalloc.so.2", {"libmimalloc2.0"}}},
       "Microsoft's mimalloc",
       "libmimalloc-dev"},
  };
  return *kAllocators;
}

absl::StatusOr<const AllocatorSpec*> FindAllocator(absl::string_view name) {
  std::vector<std::string> names;
  for (const AllocatorSpec& spec : KnownAllocators()) {
    if (spec.name == name) return &spec;
    names.push_back(spec.name);
  }
  if (name == kYoursAllocator) {
    return absl::InvalidArgumentError(absl::StrCat(
        "allocator '", name, "' is lab allocator_design's ", kYoursLibraryFile,
        ", built by Bazel and never installed: only that lab's experiment "
        "runs it; installed allocators: ",
        absl::StrJoin(names, ", ")));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown allocator '", name, "'; known: ", absl::StrJoin(names, ", ")));
}

LibrarySearch DefaultLibrarySearch() {
  LibrarySearch search;
  search.ld_cache = "/etc/ld.so.cache";
  if (std::optional<std::string> libc = LibcFile()) {
    search.dirs.push_back(Dirname(*libc));
  }
  if (kMultiarch[0] != '\0') {
    search.dirs.push_back(absl::StrCat("/lib/", kMultiarch));
    search.dirs.push_back(absl::StrCat("/usr/lib/", kMultiarch));
  }
  for (const char* dir :
       {"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"}) {
    search.dirs.push_back(dir);
  }
  return search;
}

absl::StatusOr<std::vector<LdCacheEntry>> ReadLdCache(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the ld.so cache ", path));
  }
  const std::string data((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  size_t base = 0;
  // Older glibc writes the old table first, then the new one, 8-aligned.
  if (absl::StartsWith(data, kOldMagic) && data.size() >= kOldHeaderBytes) {
    const uint64_t old_libs = ReadU32(data, 12);
    base = (kOldHeaderBytes + old_libs * kOldEntryBytes + 7) & ~size_t{7};
  }
  if (data.size() < base + kNewHeaderBytes ||
      absl::string_view(data).substr(base, kNewMagic.size()) != kNewMagic) {
    return absl::DataLossError(
        absl::StrCat(path, " is not an ld.so cache in glibc's format (no '",
                     kNewMagic, "' header)"));
  }
  const uint64_t nlibs = ReadU32(data, base + 20);
  if (data.size() < base + kNewHeaderBytes + nlibs * kNewEntryBytes) {
    return absl::DataLossError(absl::StrCat(path, " is truncated: ", nlibs,
                                            " entries do not fit in ",
                                            data.size(), " bytes"));
  }
  auto string_at = [&](uint32_t offset) -> std::optional<std::string> {
    const size_t at = base + offset;
    if (at >= data.size()) return std::nullopt;
    const size_t end = data.find('\0', at);
    if (end == std::string::npos) return std::nullopt;
    return data.substr(at, end - at);
  };
  std::vector<LdCacheEntry> entries;
  entries.reserve(nlibs);
  for (uint64_t i = 0; i < nlibs; ++i) {
    const size_t at = base + kNewHeaderBytes + i * kNewEntryBytes;
    std::optional<std::string> soname = string_at(ReadU32(data, at + 4));
    std::optional<std::string> file = string_at(ReadU32(data, at + 8));
    if (!soname.has_value() || !file.has_value()) {
      return absl::DataLossError(absl::StrCat(
          path, ": entry ", i, " points outside the file's string table"));
    }
    int32_t flags;
    std::memcpy(&flags, data.data() + at, sizeof(flags));
    entries.push_back({*std::move(soname), *std::move(file), flags});
  }
  return entries;
}

absl::StatusOr<LocatedAllocator> LocateAllocator(absl::string_view name,
                                                 const LibrarySearch& search) {
  absl::StatusOr<const AllocatorSpec*> spec = FindAllocator(name);
  if (!spec.ok()) return spec.status();
  LocatedAllocator located;
  located.spec = *spec;
  if ((*spec)->libraries.empty()) {
    located.debian_package = "libc6";
    return located;  // glibc: nothing to preload
  }

  std::vector<LdCacheEntry> cache;
  std::optional<int32_t> own_abi;
  if (!search.ld_cache.empty()) {
    // A missing or foreign cache is not an error: the directories remain.
    if (absl::StatusOr<std::vector<LdCacheEntry>> read =
            ReadLdCache(search.ld_cache);
        read.ok()) {
      cache = *std::move(read);
    }
    // The ABI of our own C library: skips the 32-bit twin of a library.
    std::optional<std::string> libc = LibcFile();
    for (const LdCacheEntry& entry : cache) {
      if (libc.has_value() && entry.soname == Basename(*libc) &&
          Dirname(entry.path) == Dirname(*libc)) {
        own_abi = entry.flags;
      }
    }
    // A cache that lists no C library of ours was written for another ABI:
    // on a multiarch machine an x86-64 ldconfig leaves the arm64 libraries
    // out, and an arm64 program (under qemu-user, say) would take x86-64's
    // jemalloc from it, which its loader cannot preload. The directories,
    // starting from our C library's, remain.
    if (libc.has_value() && !own_abi.has_value()) cache.clear();
  }
  for (const AllocatorLibrary& library : (*spec)->libraries) {
    for (const LdCacheEntry& entry : cache) {
      if (entry.soname == library.soname &&
          (!own_abi.has_value() || entry.flags == *own_abi) &&
          FileExists(entry.path)) {
        located.path = entry.path;
        located.debian_package = FirstInstalledPackage(library.debian_packages);
        return located;
      }
    }
    for (const std::string& dir : search.dirs) {
      std::string candidate = absl::StrCat(dir, "/", library.soname);
      if (FileExists(candidate)) {
        located.path = std::move(candidate);
        located.debian_package = FirstInstalledPackage(library.debian_packages);
        return located;
      }
    }
  }

  std::vector<std::string> wanted;
  for (const AllocatorLibrary& library : (*spec)->libraries) {
    wanted.push_back(
        absl::StrCat(library.soname, " (Debian package ",
                     absl::StrJoin(library.debian_packages, " or "), ")"));
  }
  std::vector<std::string> places;
  if (!search.ld_cache.empty()) places.push_back(search.ld_cache);
  places.insert(places.end(), search.dirs.begin(), search.dirs.end());
  return absl::NotFoundError(absl::StrCat(
      "allocator ", name, " is not installed: no ",
      absl::StrJoin(wanted, " or "), " in ", absl::StrJoin(places, ", "),
      ". Install it with `sudo apt-get install ", (*spec)->dev_package,
      "`, which brings this release's library (or run `sudo tools/setup.sh`, "
      "which installs every allocator)"));
}

std::string IdentifyAllocatorFile(absl::string_view path) {
  const absl::string_view file = Basename(path);
  if (absl::StartsWith(file, "libc.so") || absl::StartsWith(file, "libc-2.")) {
    return "glibc";
  }
  if (file == kYoursLibraryFile) return std::string(kYoursAllocator);
  for (const AllocatorSpec& spec : KnownAllocators()) {
    for (const AllocatorLibrary& library : spec.libraries) {
      const absl::string_view stem = UnversionedSoname(library.soname);
      if (absl::StartsWith(file, stem) &&
          (file.size() == stem.size() || file[stem.size()] == '.')) {
        return spec.name;
      }
    }
  }
  return "unknown";
}

absl::StatusOr<MallocProvider> ProbeMalloc() {
  void* symbol = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info;
  link_map* map = nullptr;
  if (symbol == nullptr ||
      dladdr1(symbol, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) ==
          0 ||
      info.dli_fname == nullptr || map == nullptr) {
    return absl::UnavailableError(
        "the dynamic linker cannot say which object defines malloc (a "
        "statically linked program?)");
  }
  MallocProvider provider;
  provider.path = info.dli_fname;
  provider.allocator = IdentifyAllocatorFile(provider.path);
  if (map->l_prev != nullptr) return provider;  // not the program itself
  // A sanitizer linked statically (clang's default) defines malloc in the
  // program too, but serves it from its own allocator: nothing to follow.
  for (const char* runtime :
       {"__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"}) {
    if (dlsym(RTLD_DEFAULT, runtime) != nullptr) return provider;
  }

  // The program wraps malloc: the next object in load order (preloads come
  // right after the program) whose own definition of malloc it is.
  for (link_map* next = map->l_next; next != nullptr; next = next->l_next) {
    // A handle from dlopen, not the link_map itself: the vDSO's map has no
    // search scope, and dlsym on it crashes; dlopen refuses it instead.
    if (next->l_name == nullptr || next->l_name[0] == '\0') continue;
    void* handle = dlopen(next->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* candidate = dlsym(handle, "malloc");
    dlclose(handle);
    Dl_info next_info;
    link_map* owner = nullptr;
    if (candidate == nullptr ||
        dladdr1(candidate, &next_info, reinterpret_cast<void**>(&owner),
                RTLD_DL_LINKMAP) == 0 ||
        owner != next || next_info.dli_fname == nullptr) {
      continue;
    }
    provider.wrapped_by = provider.path;
    provider.path = next_info.dli_fname;
    provider.allocator = IdentifyAllocatorFile(provider.path);
    break;
  }
  return provider;
}

std::string ProviderLine(const MallocProvider& provider) {
  return absl::StrCat(kProviderLinePrefix, " ", provider.allocator, " ",
                      provider.path);
}

absl::StatusOr<MallocProvider> ParseProviderLine(absl::string_view output) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (!absl::ConsumePrefix(&line, kProviderLinePrefix)) continue;
    line = absl::StripLeadingAsciiWhitespace(line);
    std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    if (parts.first.empty()) break;
    return MallocProvider{std::string(parts.second), std::string(parts.first)};
  }
  return absl::NotFoundError(absl::StrCat(
      "no '", kProviderLinePrefix,
      "' line in the program's output: it did not report who serves malloc"));
}

}  // namespace alloclab
