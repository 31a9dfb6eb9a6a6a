// The property the MACKO and EC readers share for a header that claims far more than its file
// holds (drawn by the caller inside a ws_prop): refused before any array is sized from the claim.
#pragma once
#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/common/memory_budget.hpp"

namespace warpsparse::proptest {

// `read(stream, name, size, budget)` is the reader. With the file's size known, the claim is refused
// as truncated before reading; from a stream of unknown size (a pipe), by a 64 MiB budget, or where
// the stream ends if the claim fits the budget; and from a pipe with no budget to stop it, where the
// stream ends, since the arrays grow only as bytes arrive (sized from the header they would ask for
// terabytes).
template <class Read>
void check_huge_claim_refused(const std::vector<std::uint8_t>& file, const std::string& name, Read read) {
  const bool with_size = *rc::gen::arbitrary<bool>().as("file size known");
  const std::string bytes(file.begin(), file.end());
  const auto refused = [&](const std::optional<std::uint64_t> size, const MemoryBudget& budget,
                           std::initializer_list<const char*> why) {
    std::istringstream in(bytes);
    try {
      read(in, name, size, budget);
      RC_FAIL("accepted a header promising more than the input holds");
    } catch (const Error& e) {
      const std::string w = e.what();
      RC_ASSERT(w.rfind(name + ": ", 0) == 0);
      RC_ASSERT(
          std::any_of(why.begin(), why.end(), [&](const char* c) { return w.find(c) != std::string::npos; }));
    }
  };
  const MemoryBudget budget{std::uint64_t{64} << 20, "test"};
  if (with_size) {
    refused(file.size(), budget, {"truncated"});
  } else {
    refused(std::nullopt, budget, {"above the memory budget", "truncated"});
    refused(std::nullopt, MemoryBudget::unlimited(), {"truncated"});
  }
}

}  // namespace warpsparse::proptest
