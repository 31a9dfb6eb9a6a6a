// Shared by the reader fuzz targets: what a target checks beyond "no crash", and how it says that a
// check failed (an abort, which libFuzzer records as a crash and the corpus replay as a failure).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "reference/common/memory_budget.hpp"
#include "reference/macko/macko_verify.hpp"

namespace warpsparse::fuzz {

// What a reader may plan to allocate under fuzzing: inputs that promise more are refused by the
// budget (that refusal is itself under test), which keeps every run far below libFuzzer's RSS limit.
inline const MemoryBudget kBudget{std::uint64_t{64} << 20, "fuzz budget"};

// The warp model runs on every accepted matrix up to this many elements (time per input stays in
// milliseconds).
inline constexpr std::int64_t kModelElements = std::int64_t{1} << 16;

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::abort();
}
inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// An Error from a reader must name the input first ("<name>:" then a line or byte offset).
inline void check_message(const std::string& what, const std::string& name) {
  check(what.rfind(name + ":", 0) == 0, "error does not start with the input's name: " + what);
}

// A matrix the readers accepted: it validates, and for small shapes the warp model equals the
// double-precision oracle within its bound for a few accumulator counts.
template <class T>
void check_model(const Macko<T>& a) {
  a.validate();
  // Both sides bounded: a 0 x 2^30 matrix has no elements but a 2^30-element x.
  if (std::max<std::int64_t>(a.rows, 1) * std::max<std::int64_t>(a.cols, 1) > kModelElements) return;
  const MackoVerifyResult r = macko_verify(a, 7, {1, 4});
  check(r.fault.empty(), "warp model fault: " + r.fault);
  check(r.check.ok(), "warp model disagrees with the oracle: " + r.check.first_failure);
}

}  // namespace warpsparse::fuzz
