// The memory a command may take, decided before it allocates: readers, encoders and the CLI's
// commands compute what an input will need (from a header, a shape, the padding a matrix implies)
// and refuse it above the budget with one line that says how much and why, instead of running into
// std::bad_alloc or the machine's swap. Host only.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "reference/common/error.hpp"
#include "reference/common/parse_number.hpp"

namespace warpsparse {

// "1.5 GiB", "512 MiB", "100 bytes".
inline std::string human_bytes(std::uint64_t b) {
  const char* unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return std::to_string(b) + " bytes";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, unit[u]);
  return buf;
}

// Saturating arithmetic for byte counts computed from untrusted sizes.
inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

struct MemoryBudget {
  std::uint64_t bytes = 0;
  std::string source = "--max-memory";  // where the number came from, for the message

  // A quarter of the machine's physical memory: room for the input, the output and a copy in
  // between, with the rest left to the system.
  static MemoryBudget default_budget() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    const std::uint64_t phys = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                                                     : std::uint64_t{8} << 30;
    return {phys / 4, "a quarter of physical memory; --max-memory changes it"};
  }
  static MemoryBudget unlimited() { return {UINT64_MAX, "unlimited"}; }

  // Throws Error("<what> needs <N>, above the memory budget of <M> (<source>)").
  void require(std::uint64_t need, const std::string& what) const {
    if (need > bytes)
      throw Error(what + " needs " + human_bytes(need) + ", above the memory budget of " + human_bytes(bytes) + " (" +
                  source + ")");
  }
};

// "4G", "512M", "100K", "1000" (bytes) or "2.5G"; throws Error naming the text otherwise.
inline std::uint64_t parse_bytes(const std::string& text) {
  std::size_t used = 0;
  const double v = leading_number(text, used).value_or(-1);
  const std::string unit = text.substr(used);
  double mul = 1;
  if (unit == "K" || unit == "KiB" || unit == "k") mul = 1024.0;
  else if (unit == "M" || unit == "MiB") mul = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB") mul = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TiB") mul = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty()) used = 0;
  if (used == 0 || !(v >= 0) || v * mul > 1.8e19)
    throw Error("'" + text + "' is not a size (bytes, or a number with K, M, G or T)");
  return static_cast<std::uint64_t>(v * mul);
}

}  // namespace warpsparse
