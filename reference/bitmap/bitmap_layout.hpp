// Bitmap-tile storage layout for tensor-core SpMM (y = A·X with X a batch of 1-16 vectors): the
// single definition shared by the host encoder, the fragment model and the CUDA kernel.
// Dependency-free (only <cstdint> and WS_HD) so nvcc and g++ include the same bytes.
//
// The matrix is cut into 16 × 16 tiles, one mma.m16n8k16 A operand each (a tile row of 16 matrix
// rows, a k tile of 16 columns; the last ones padded with zeros). A tile is 2 × 2 subtiles of 8 × 8,
// each with one 64-bit bitmap, bit (r % 8) · 8 + (c % 8) set where the element is stored.
//   bitmaps[]  4 per tile, tiles row-major (tile row, then k tile); subtile s covers tile rows
//              8·(s & 1) .. +7 and tile columns 8·(s >> 1) .. +7: the order of the A fragment's
//              four registers (a0a1, a2a3, a4a5, a6a7), so register s of a lane reads subtile s.
//   values[]   the stored elements (the nonzeros), tile by tile; inside a tile subtile 0, 1, 2, 3,
//              each in bit order (row-major within the subtile).
//   tile_off[] per tile, the offset of its first value from its tile row's first value (32 bits:
//              16 · cols < 2^32 is checked), so every tile is found without walking its row.
//   row_base[] per tile row (+1), the offset of its first value in values[] (64 bits).
// Lane l = 4g + t of the warp holds, in every subtile, row g and columns 2t, 2t + 1: bits 8g + 2t
// and 8g + 2t + 1, adjacent in bit order, so when both are set their values are adjacent too.
// Why bitmaps and not MACKO's deltas: a lane finds its elements with one popcount per subtile, no
// scan across lanes, and the bytes are 2 per nonzero plus 1/8 per element (at d = 0.5 that is
// 2.25 B per nonzero against MACKO's ~2.5; at d = 0.1 3.25 against ~3.0).
#pragma once
#include <cstdint>

#include "reference/common/hd.hpp"

namespace warpsparse::bitmap {

inline constexpr int kTile = 16;     // rows and columns of a tile
inline constexpr int kSubtiles = 4;  // 8 × 8 subtiles per tile
inline constexpr int kBatchMax = 16;
inline constexpr int kN = 8;         // vectors per mma (its N side)

// Subtile s: its first row and first column inside the tile.
WS_HD constexpr int sub_row0(int s) { return 8 * (s & 1); }
WS_HD constexpr int sub_col0(int s) { return 8 * (s >> 1); }
// The subtile and bit of tile element (r, c), 0 <= r, c < 16.
WS_HD constexpr int subtile_of(int r, int c) { return (r >> 3) + 2 * (c >> 3); }
WS_HD constexpr int bit_of(int r, int c) { return (r & 7) * 8 + (c & 7); }
// The lower of the two bits lane l holds in every subtile (the other is this + 1).
WS_HD constexpr int lane_bit(int lane) { return 8 * (lane >> 2) + 2 * (lane & 3); }
// The tile row and column of element j (0, 1) of lane l's register s.
WS_HD constexpr int lane_row(int lane, int s) { return sub_row0(s) + (lane >> 2); }
WS_HD constexpr int lane_col(int lane, int s, int j) { return sub_col0(s) + 2 * (lane & 3) + j; }

WS_HD constexpr std::int64_t tile_rows(std::int64_t rows) { return (rows + kTile - 1) / kTile; }
WS_HD constexpr std::int64_t k_tiles(std::int64_t cols) { return (cols + kTile - 1) / kTile; }
// Groups of kN vectors a batch of b takes (the N side of the mma is padded with zero vectors).
WS_HD constexpr int n_groups(int batch) { return (batch + kN - 1) / kN; }

WS_HD int popcount32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __popc(v);
#else
  return __builtin_popcount(v);
#endif
}
WS_HD int popcount64(std::uint64_t v) {
  return popcount32(static_cast<std::uint32_t>(v)) + popcount32(static_cast<std::uint32_t>(v >> 32));
}
// Bits of m strictly below bit b (0 <= b < 64).
WS_HD constexpr std::uint64_t below(int b) { return (std::uint64_t{1} << b) - 1; }

// The slot of the element at bit b of subtile s of a tile whose bitmaps are tb and whose first
// value is at base: the rank of its bit among the tile's set bits. The encoder, the decoder and
// lane_slots all place values by this rule.
WS_HD std::int64_t value_slot(const std::uint64_t* tb, std::int64_t base, int s, int b) {
  for (int i = 0; i < s; ++i) base += popcount64(tb[i]);
  return base + popcount64(tb[s] & below(b));
}

// Where lane l's values of one tile sit: for register s, the value of its lower bit (if set) is at
// first[s] and that of its upper bit (if set) at first[s] + lo[s]. `base` is the tile's first value.
// value_slot's rule in 32-bit words, the kernel's cost per tile (a test checks the two agree): lane
// l's bits 2l, 2l + 1 lie in the low word for lanes 0-15 and in the high word for lanes 16-31.
template <class I>
struct LaneSlots {
  I first[kSubtiles];
  bool lo[kSubtiles], hi[kSubtiles];
  I end;  // base plus the tile's set bits: the next tile's base
};
template <class I>
WS_HD LaneSlots<I> lane_slots(const std::uint64_t (&bm)[kSubtiles], I base, int lane) {
  LaneSlots<I> s{};
  const int b = lane_bit(lane);
  const bool high = b >= 32;
  const unsigned sh = static_cast<unsigned>(b & 31);
  const std::uint32_t below_mask = (1u << sh) - 1u;
  for (int i = 0; i < kSubtiles; ++i) {
    const std::uint32_t lo = static_cast<std::uint32_t>(bm[i]), hi = static_cast<std::uint32_t>(bm[i] >> 32);
    const std::uint32_t w = high ? hi : lo;
    s.first[i] = base + static_cast<I>((high ? popcount32(lo) : 0) + popcount32(w & below_mask));
    s.lo[i] = (w >> sh) & 1u;
    s.hi[i] = (w >> (sh + 1)) & 1u;
    base += static_cast<I>(popcount32(lo) + popcount32(hi));
  }
  s.end = base;
  return s;
}

// Tile rows split into `parts` ranges of k tiles (few tile rows: more warps than rows): part p of
// kt k tiles is [part_begin(p), part_begin(p + 1)), near-even, in order.
WS_HD constexpr std::int64_t part_begin(std::int64_t p, std::int64_t parts, std::int64_t kt) { return kt * p / parts; }

}  // namespace warpsparse::bitmap
