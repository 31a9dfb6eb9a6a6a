// Magnitude pruning: which elements of a row (or of a whole tensor) to keep. The order is |v|, with
// NaN counted as infinite (a NaN is never dropped in favour of a number) and ties going to the lower
// index, so the result is a function of the values alone. Activation-aware methods (Wanda,
// SparseGPT) need calibration data and are not here. Host only.
#pragma once
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "reference/common/error.hpp"

namespace warpsparse::prune {

inline float magnitude(float v) {
  const float a = std::fabs(v);
  return std::isnan(a) ? INFINITY : a;
}

// In each group of m consecutive entries (the last may be shorter) keeps the n of largest magnitude:
// keep[i] = 1 for those, 0 for the rest.
inline void keep_n_of_m(std::span<const float> mag, int n, int m, std::span<std::uint8_t> keep) {
  require(n >= 0 && m >= 1 && n <= m && keep.size() == mag.size(), "prune::keep_n_of_m: bad arguments");
  for (std::size_t g0 = 0; g0 < mag.size(); g0 += static_cast<std::size_t>(m)) {
    const std::size_t len = std::min<std::size_t>(static_cast<std::size_t>(m), mag.size() - g0);
    for (std::size_t i = 0; i < len; ++i) keep[g0 + i] = 0;
    for (int k = 0; k < n && static_cast<std::size_t>(k) < len; ++k) {
      std::size_t best = len;
      for (std::size_t i = 0; i < len; ++i)
        if (!keep[g0 + i] && (best == len || mag[g0 + i] > mag[g0 + best])) best = i;
      keep[g0 + best] = 1;
    }
  }
}

// Keeps the `count` entries of largest magnitude (ties: the lower index). Linear time: the
// count-th largest magnitude is found by selection, then entries above it are kept, and entries
// equal to it in index order until `count` are.
inline void keep_largest(std::span<const float> mag, std::int64_t count, std::span<std::uint8_t> keep) {
  require(keep.size() == mag.size() && count >= 0, "prune::keep_largest: bad arguments");
  const auto n = static_cast<std::int64_t>(mag.size());
  count = std::min(count, n);
  std::fill(keep.begin(), keep.end(), std::uint8_t{0});
  if (count == 0) return;
  std::vector<float> sorted(mag.begin(), mag.end());
  std::nth_element(sorted.begin(), sorted.begin() + (count - 1), sorted.end(), std::greater<float>());
  const float threshold = sorted[static_cast<std::size_t>(count - 1)];
  std::int64_t above = 0;
  for (const float v : mag) above += v > threshold;
  std::int64_t ties = count - above;
  for (std::size_t i = 0; i < mag.size(); ++i) {
    if (mag[i] > threshold) keep[i] = 1;
    else if (mag[i] == threshold && ties > 0) {
      keep[i] = 1;
      --ties;
    }
  }
}

// How many of n entries a density keeps: round(d * n), the convention of every pruning tool.
// An N:M pattern as users write it ("2:4"): the N:M sparsity the formats and analyses know, M = 4
// or 8 and 0 < N < M. Throws Error quoting the text otherwise (also for numbers past an int).
struct NM {
  int n = 0, m = 0;
};
inline NM parse_nm(std::string_view text) {
  NM r;
  const char* end = text.data() + text.size();
  const auto colon = text.find(':');
  const bool ok = colon != std::string_view::npos && [&] {
    const auto a = std::from_chars(text.data(), text.data() + colon, r.n);
    const auto b = std::from_chars(text.data() + colon + 1, end, r.m);
    return a.ec == std::errc() && a.ptr == text.data() + colon && b.ec == std::errc() && b.ptr == end;
  }();
  require(ok && (r.m == 4 || r.m == 8) && r.n > 0 && r.n < r.m,
          "'" + std::string(text) + "' is not N:M with M = 4 or 8 and 0 < N < M (e.g. 2:4, 4:8)");
  return r;
}

inline void require_density(double density) {
  require(density >= 0.0 && density <= 1.0,
          "prune: density must lie in [0, 1], got " + std::to_string(density));
}

inline std::int64_t kept_count(double density, std::int64_t n) {
  require_density(density);
  return std::llround(density * static_cast<double>(n));
}

}  // namespace warpsparse::prune
