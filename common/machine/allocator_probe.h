// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: allocator_probe.h
// -----------------------------------------------------------------------------
//
// Which allocator really serves malloc, and where its library lives.
//
// Swapping an allocator with LD_PRELOAD is easy to get silently wrong: a
// misspelt path makes ld.so print one warning and run the program with
// glibc's malloc anyway, a statically linked program ignores the preload,
// and a sanitizer's runtime replaces malloc before any preload. A table of
// "jemalloc" timings measured on glibc's malloc would be a lie nobody sees.
// So a measurement asks the process itself: the dynamic linker resolves
// `malloc` exactly as the program's own calls resolve it (dlsym with
// RTLD_DEFAULT), and dladdr() names the object that defines it.
//
// The second half finds an allocator's shared library before a run, in the
// dynamic linker's cache (/etc/ld.so.cache, what `ldconfig -p` prints) and
// then in the standard library directories. A missing library is an error
// that names the Debian package to install.
//
// Example:
//
//   // In the parent: which file to preload.
//   absl::StatusOr<alloclab::LocatedAllocator> jemalloc =
//       alloclab::LocateAllocator("jemalloc");
//   if (!jemalloc.ok()) return jemalloc.status();  // "... apt-get install
//                                                  //  libjemalloc2 ..."
//   // env: LD_PRELOAD=jemalloc->path
//
//   // In the child: who serves malloc here?
//   absl::StatusOr<alloclab::MallocProvider> p = alloclab::ProbeMalloc();
//   // p->allocator == "jemalloc", p->path == "/lib/x86_64-linux-gnu/..."

#ifndef ALLOCLAB_COMMON_MACHINE_ALLOCATOR_PROBE_H_
#define ALLOCLAB_COMMON_MACHINE_ALLOCATOR_PROBE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// AllocatorLibrary
//
// One shared library that provides an allocator, and the Debian packages
// that ship it: one name per release where the name changed (Debian 13's
// libtcmalloc-minimal4t64 is Debian 12's libtcmalloc-minimal4), newest
// first.
struct AllocatorLibrary {
  std::string soname;                        // e.g. "libjemalloc.so.2"
  std::vector<std::string> debian_packages;  // e.g. {"libjemalloc2"}
};

// AllocatorSpec
//
// An allocator the course knows. `libraries` is empty for glibc, the
// default that needs no preload; otherwise the first one found is used, in
// the order given (tcmalloc: the minimal library first, without the heap
// profiler's hooks).
// `dev_package` is the package tools/setup.sh installs for it, the same
// name on Debian 12 and 13, which pulls in the release's library.
struct AllocatorSpec {
  std::string name;  // "glibc", "jemalloc", "tcmalloc", "mimalloc"
  std::vector<AllocatorLibrary> libraries;
  std::string description;
  std::string dev_package = {};
};

// kYoursAllocator / kYoursLibraryFile
//
// The learner's own allocator, "yours": lab allocator_design's shared
// library, libyours.so, preloaded like the others. It is built by Bazel,
// has no Debian package and is never looked for in the system's
// directories: the experiment that runs it finds it beside itself
// (child_run.h's ProgramBesideSelf()) and preloads that path. It is not one
// of KnownAllocators(), which are the installed ones; IdentifyAllocatorFile()
// knows it by its file name, so that the probe can verify its rows.
inline constexpr absl::string_view kYoursAllocator = "yours";
inline constexpr absl::string_view kYoursLibraryFile = "libyours.so";

// KnownAllocators()
//
// glibc, jemalloc, tcmalloc (gperftools) and mimalloc, with the sonames
// and packages of Debian 12 and 13 (mimalloc 3's libmimalloc.so.3 first,
// then mimalloc 2's libmimalloc.so.2).
const std::vector<AllocatorSpec>& KnownAllocators();

// FindAllocator()
//
// The spec of `name`; InvalidArgument listing the known names otherwise
// (for kYoursAllocator: saying that only lab allocator_design runs it).
absl::StatusOr<const AllocatorSpec*> FindAllocator(absl::string_view name);

// LibrarySearch
//
// Where `LocateAllocator()` looks: first the ld.so cache file (none when
// empty), then each directory in order.
struct LibrarySearch {
  std::string ld_cache;
  std::vector<std::string> dirs;
};

// DefaultLibrarySearch()
//
// /etc/ld.so.cache, then the directory of the C library this process runs
// on, the multiarch directories of this architecture (/lib/<triplet>,
// /usr/lib/<triplet>), /lib64, /usr/lib64, /lib, /usr/lib, /usr/local/lib.
LibrarySearch DefaultLibrarySearch();

// LdCacheEntry
//
// One library of the ld.so cache. `flags` holds its ABI (glibc's
// FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 == 0x0303 for x86-64): a multilib
// machine lists a 32-bit library of the same soname too.
struct LdCacheEntry {
  std::string soname;
  std::string path;
  int32_t flags = 0;
};

// ReadLdCache()
//
// Every entry of an ld.so cache file in glibc's format
// ("glibc-ld.so.cache1.1", alone or after the old "ld.so-1.7.0" table).
// NotFound when the file is missing; DataLoss when it is not such a cache.
absl::StatusOr<std::vector<LdCacheEntry>> ReadLdCache(const std::string& path);

// LocatedAllocator
//
// An allocator ready to preload. For glibc, `path` is empty: nothing to
// preload. `debian_package` is the installed package of the library found
// (dpkg's status file), or its newest name where dpkg does not know it.
struct LocatedAllocator {
  const AllocatorSpec* spec = nullptr;
  std::string path;  // the library's file, absolute
  std::string debian_package;
};

// LocateAllocator()
//
// The library of allocator `name`, found through `search`. Errors:
// InvalidArgument for an unknown name and for kYoursAllocator (never
// installed: its experiment passes its path); NotFound when no library of it is
// installed, naming each soname with the packages that provide it, the
// command that installs it on Debian 12 and 13 alike (its dev_package), and
// tools/setup.sh, which installs them all.
absl::StatusOr<LocatedAllocator> LocateAllocator(
    absl::string_view name,
    const LibrarySearch& search = DefaultLibrarySearch());

// MallocProvider
//
// The object that defines the malloc this process calls, and which known
// allocator that is: a name of KnownAllocators(), or "unknown" (a
// sanitizer's runtime, a program's own malloc, an allocator the course does
// not know).
//
// A program may define malloc itself and forward every call to the next
// definition (the course's allocation counter does, as interposing tools
// do): then `path` and `allocator` name that next definition, the one that
// really serves the memory, and `wrapped_by` names the program.
struct MallocProvider {
  std::string
      path;  // as dladdr() reports it, e.g. "/lib/x86_64-linux-gnu/libc.so.6"
  std::string allocator;
  std::string wrapped_by = {};  // empty unless the program wraps malloc
};

// IdentifyAllocatorFile()
//
// The allocator a library file belongs to, by its file name: "glibc" for
// libc.so.*, the name of the allocator whose soname it starts with (the
// soname without its version: libjemalloc.so.2 matches libjemalloc.so.2.1),
// kYoursAllocator for kYoursLibraryFile (wherever it lies), else "unknown".
std::string IdentifyAllocatorFile(absl::string_view path);

// ProbeMalloc()
//
// Resolves `malloc` in this process as its callers do (dlsym(RTLD_DEFAULT))
// and names its object with dladdr(); when that object is the program
// itself, follows the objects loaded after it (as dlsym(RTLD_NEXT) from the
// program would) to the one that defines malloc next, unless a sanitizer's
// runtime is in the program (it serves malloc itself). Unavailable when the
// dynamic linker cannot say (a static binary).
absl::StatusOr<MallocProvider> ProbeMalloc();

// kSanitizerServesMalloc
//
// Why no preloaded allocator can serve this program's malloc, or nullptr:
// a build with AddressSanitizer or ThreadSanitizer (--config=asan/tsan)
// has its runtime serve malloc. Tests that preload an allocator skip with
// it: `if (kSanitizerServesMalloc != nullptr) GTEST_SKIP() << ...;`.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr const char* kSanitizerServesMalloc =
    "built with a sanitizer: its runtime serves malloc and refuses to share "
    "the process with a preloaded allocator";
#else
inline constexpr const char* kSanitizerServesMalloc = nullptr;
#endif

// kProviderLinePrefix
//
// How a program reports its provider on stdout, one line:
// "alloclab-malloc-provider: <allocator> <path>". A parent that ran it
// reads the line back with `ParseProviderLine()`.
inline constexpr absl::string_view kProviderLinePrefix =
    "alloclab-malloc-provider:";

// ProviderLine() / ParseProviderLine()
//
// The line for `provider` (without newline); and the provider found in a
// child's whole stdout (NotFound when no line has the prefix).
std::string ProviderLine(const MallocProvider& provider);
absl::StatusOr<MallocProvider> ParseProviderLine(absl::string_view output);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_ALLOCATOR_PROBE_H_
