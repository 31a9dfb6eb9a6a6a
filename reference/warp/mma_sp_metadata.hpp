// The metadata nibble of mma.sp::ordered_metadata for .f16/.bf16 (PTX ISA 9.0, §9.7.14.6.1 "Sparse
// matrix storage"): one 4-bit field per group of four logical K elements, the 2-bit positions of the
// two kept elements, lo | hi << 2, with lo < hi (the ::ordered_metadata form). The instruction's
// definition, so the emulator (mma_sp.hpp) and the 2:4 storage format (sparse24_layout.hpp) both take
// it from here. Dependency-free (only WS_HD) so nvcc includes it too.
#pragma once
#include <cstdint>

#include "reference/common/hd.hpp"

namespace warpsparse::warp {

WS_HD constexpr std::uint32_t group_nibble(int lo, int hi) {
  return static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 2);
}
WS_HD constexpr int nibble_lo(std::uint32_t n) { return static_cast<int>(n & 3u); }
WS_HD constexpr int nibble_hi(std::uint32_t n) { return static_cast<int>((n >> 2) & 3u); }
// A nibble mma.sp::ordered_metadata accepts: two distinct positions, ascending.
WS_HD constexpr bool nibble_ordered(std::uint32_t n) { return nibble_lo(n) < nibble_hi(n); }

}  // namespace warpsparse::warp
