// Numbers from text, for every reader and option: one grammar (std::from_chars: decimal or
// scientific, inf, nan; no spaces, no hex, a leading '+' allowed), locale-independent, and
// IEEE-rounded when the magnitude is out of range (from_chars leaves its output untouched there,
// which once turned 1e400 into 0). Host only.
#pragma once
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace warpsparse {

// The number at the start of text; `used` is how many characters it took (0: none).
inline std::optional<double> leading_number(std::string_view text, std::size_t& used) {
  used = 0;
  const std::size_t plus = !text.empty() && text[0] == '+' ? 1 : 0;
  const std::string_view t = text.substr(plus);
  double d = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec == std::errc::invalid_argument) return std::nullopt;
  used = plus + static_cast<std::size_t>(p - t.data());
  // Out of range: strtod over the same characters gives +-HUGE_VAL (inf) or +-0 / a subnormal.
  if (ec == std::errc::result_out_of_range) d = std::strtod(std::string(t.substr(0, used - plus)).c_str(), nullptr);
  return d;
}

// The whole text as one number, or nullopt.
inline std::optional<double> to_number(std::string_view text) {
  std::size_t used = 0;
  const auto d = leading_number(text, used);
  if (!d || used != text.size()) return std::nullopt;
  return d;
}

}  // namespace warpsparse
