// How a column sequence becomes lane chunks (docs/ec-spmv.md, "Which shared columns a pair takes"
// and "Long/short split at G = 1"): the one rule that extraction and encoding share, so an
// extracted block never needs end padding. Host only.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "reference/ec/ec_layout.hpp"

namespace warpsparse::ec {

// A block's slots, lane-major: slot j of lane l is col[l · per_lane + j]; `real` is 0 for a
// padding slot (value zero in all G rows). `used` columns of the input (a prefix) are covered.
struct Fill {
  std::int64_t per_lane = 0;
  std::int64_t used = 0;
  std::vector<std::int32_t> col;
  std::vector<std::uint8_t> real;
  std::int64_t slots() const { return static_cast<std::int64_t>(col.size()); }
};

namespace fill_detail {
// Greedy fill of `lanes` lanes of L slots each from the sorted columns c: a lane's first slot is
// the next column (its base); a further column within max_delta of the previous slot takes the
// next slot, a wider gap takes padding slots at prev + max_delta until it is in reach. With
// `exact`, every lane must be filled by columns (false when they run out); otherwise (a short
// block) the slots left after the last column repeat it (delta 0). Returns the columns used, or
// -1. `out` (optional) receives the slots.
inline std::int64_t fill_lanes(std::span<const std::int32_t> c, std::int64_t L, int D, int lanes, bool exact,
                               Fill* out) {
  const auto n = static_cast<std::int64_t>(c.size());
  if (out) {
    out->per_lane = L;
    out->col.assign(static_cast<std::size_t>(L * lanes), 0);
    out->real.assign(static_cast<std::size_t>(L * lanes), 0);
  }
  std::int64_t next = 0;
  std::int64_t last = n > 0 ? c[static_cast<std::size_t>(n - 1)] : 0;
  for (int l = 0; l < lanes; ++l) {
    std::int64_t prev = -1;
    for (std::int64_t j = 0; j < L; ++j) {
      std::int64_t slot_col;
      bool is_real;
      if (next >= n) {
        if (exact) return -1;
        slot_col = j == 0 ? last : prev;  // trailing slot: delta 0
        is_real = false;
      } else if (j == 0 || c[static_cast<std::size_t>(next)] - prev <= D) {
        slot_col = c[static_cast<std::size_t>(next++)];
        is_real = true;
      } else {
        slot_col = prev + D;
        is_real = false;
      }
      prev = slot_col;
      if (out) {
        out->col[static_cast<std::size_t>(l * L + j)] = static_cast<std::int32_t>(slot_col);
        out->real[static_cast<std::size_t>(l * L + j)] = is_real ? 1 : 0;
      }
    }
  }
  if (out) out->used = next;
  return next;
}
}  // namespace fill_detail

// The long block of a column sequence: the largest per-lane length L, a multiple of v with
// L >= min_steps · v, such that the first columns fill all lanes exactly. per_lane = 0 (and
// used = 0) when no such L exists. Columns beyond `used` are left to the caller.
inline Fill fill_long(std::span<const std::int32_t> c, int v, int delta_bits, int min_steps = 1, int lanes = kLanes) {
  Fill f;
  const auto n = static_cast<std::int64_t>(c.size());
  const int D = max_delta(delta_bits);
  // The slots never exceed the columns plus the padding of every gap (a lane boundary only drops
  // padding), so no L above that bound can fill.
  std::int64_t pads = 0;
  for (std::int64_t i = 1; i < n; ++i) pads += (c[static_cast<std::size_t>(i)] - c[static_cast<std::size_t>(i - 1)] - 1) / D;
  for (std::int64_t L = (n + pads) / lanes / v * v; L >= std::int64_t{min_steps} * v && L > 0; L -= v)
    if (fill_detail::fill_lanes(c, L, D, lanes, true, nullptr) >= 0) {
      fill_detail::fill_lanes(c, L, D, lanes, true, &f);
      return f;
    }
  return f;
}

// The short block: all of c at one slot per step, with the smallest L that covers it.
inline Fill fill_short(std::span<const std::int32_t> c, int delta_bits, int lanes = kLanes) {
  Fill f;
  if (c.empty()) return f;
  const auto n = static_cast<std::int64_t>(c.size());
  const int D = max_delta(delta_bits);
  for (std::int64_t L = (n + lanes - 1) / lanes;; ++L)
    if (fill_detail::fill_lanes(c, L, D, lanes, false, nullptr) == n) {
      fill_detail::fill_lanes(c, L, D, lanes, false, &f);
      return f;
    }
}

}  // namespace warpsparse::ec
