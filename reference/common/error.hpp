// One exception type for bad input and broken invariants: the message names what is wrong
// (file, offset, field) so a CLI can print it on one line.
#pragma once
#include <stdexcept>
#include <string>

namespace warpsparse {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks a condition that depends on input data (never compiled out).
inline void require(bool ok, const std::string& what) {
  if (!ok) throw Error(what);
}

}  // namespace warpsparse
