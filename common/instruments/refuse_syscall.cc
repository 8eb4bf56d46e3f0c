// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/refuse_syscall.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/harness/internal/subprocess.h"

namespace alloclab {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kArch = AUDIT_ARCH_AARCH64;
#elif defined(__i386__)
constexpr uint32_t kArch = AUDIT_ARCH_I386;
#else
#error "refuse_syscall: add this architecture's AUDIT_ARCH_ value"
#endif

sock_filter Load(size_t offset) {
  return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, static_cast<uint32_t>(offset));
}

// Jumps over `skip` instructions unless the accumulator equals `value`.
sock_filter SkipUnlessEqual(uint32_t value, uint8_t skip) {
  return BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, skip);
}

sock_filter Return(uint32_t action) {
  return BPF_STMT(BPF_RET | BPF_K, action);
}

// The low 32 bits of argument `arg`, in this machine's byte order.
size_t ArgOffset(int arg) {
  size_t offset = offsetof(seccomp_data, args) + 8 * static_cast<size_t>(arg);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  offset += 4;
#endif
  return offset;
}

}  // namespace

absl::Status RefuseSyscall(const Refusal& refusal) {
  if (refusal.nr < 0 || refusal.error <= 0 || refusal.error > 4095 ||
      (refusal.arg.has_value() && (*refusal.arg < 0 || *refusal.arg > 5))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RefuseSyscall: nr ", refusal.nr, ", arg ",
        refusal.arg.has_value() ? absl::StrCat(*refusal.arg) : "any",
        ", errno ", refusal.error, ": nr >= 0, arg 0-5, errno 1-4095"));
  }
  const uint32_t refuse =
      SECCOMP_RET_ERRNO | (static_cast<uint32_t>(refusal.error) & 0xffff);
  std::vector<sock_filter> filter = {
      Load(offsetof(seccomp_data, arch)),
      SkipUnlessEqual(kArch, refusal.arg.has_value() ? 5 : 3),
      Load(offsetof(seccomp_data, nr)),
      SkipUnlessEqual(static_cast<uint32_t>(refusal.nr),
                      refusal.arg.has_value() ? 3 : 1),
  };
  if (refusal.arg.has_value()) {
    filter.push_back(Load(ArgOffset(*refusal.arg)));
    filter.push_back(SkipUnlessEqual(refusal.arg_value, 1));
  }
  filter.push_back(Return(refuse));
  filter.push_back(Return(SECCOMP_RET_ALLOW));
  // Every mismatch jumps to the last instruction, ALLOW: a jump's `skip`
  // counts the instructions between it and there, REFUSE included.
  sock_fprog program = {static_cast<unsigned short>(filter.size()),
                        filter.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("RefuseSyscall: installing a seccomp filter: ",
                     internal::ErrnoText(errno)));
  }
  return absl::OkStatus();
}

}  // namespace alloclab
