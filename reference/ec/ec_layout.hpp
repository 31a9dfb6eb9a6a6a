// EC-CSR storage layout (ec-spmv-paper.txt §6; decisions in docs/ec-spmv.md): the single
// definition shared by the host encoder, the warp model and the CUDA kernel. Dependency-free (only
// <cstdint> and WS_HD) so nvcc and g++ include the same bytes.
//
// A block is G rows that share a column sequence. Its columns, with padding slots where a gap
// exceeds the delta range, form a slot sequence cut into kLanes contiguous chunks of L slots, one
// per lane. A lane's first slot is its base column (delta 0); every further slot adds its delta
// (1..max_delta, or 0 for the trailing slots of a short block, which repeat the last column).
// Slot j of lane l is stored at position ((j / v) · kLanes + l) · v + j mod v of the block, so
// that each step (kLanes · v slots) is one contiguous run a warp loads with one vector per lane.
// The G values of a slot are adjacent (value index = position · G + k), the deltas are packed
// b bits per slot, lowest bits first.
#pragma once
#include <cstdint>

#include "reference/common/hd.hpp"

namespace warpsparse::ec {

inline constexpr int kLanes = 32;
inline constexpr int kMaxGroup = 8;  // G of the kernels; 16 exists only as a host ablation

WS_HD constexpr bool valid_delta_bits(int b) { return b == 4 || b == 8; }
WS_HD constexpr int max_delta(int b) { return (1 << b) - 1; }
WS_HD constexpr bool valid_group(int g) { return g == 1 || g == 2 || g == 4 || g == 8 || g == 16; }

// Columns a lane takes per step in a long block: at least 16 bytes of values per lane and step
// (8 fp16 values at G = 1, 4 at G >= 2; 4 fp32 values at every G). Short blocks use 1.
WS_HD constexpr int long_vec(int group, int value_bytes) {
  const int v = 16 / (group * value_bytes);
  return v > 4 ? v : 4;
}

// Position of slot j of lane `lane` in a block whose lanes take v slots per step.
WS_HD constexpr std::int64_t slot_position(std::int64_t j, int lane, int v, int lanes = kLanes) {
  return ((j / v) * lanes + lane) * v + j % v;
}
// Its inverse: the lane and the slot within the lane of position p.
struct LaneSlot {
  int lane;
  std::int64_t slot;
};
WS_HD constexpr LaneSlot lane_slot(std::int64_t p, int v, int lanes = kLanes) {
  const std::int64_t step = p / (std::int64_t{lanes} * v), in = p % (std::int64_t{lanes} * v);
  return {static_cast<int>(in / v), step * v + in % v};
}

// Packed deltas: field p lives in byte p·b/8, at bit (p mod (8/b))·b.
WS_HD constexpr std::int64_t delta_byte(std::int64_t p, int b) { return b == 8 ? p : p >> 1; }
WS_HD constexpr int delta_shift(std::int64_t p, int b) { return b == 8 ? 0 : static_cast<int>(p & 1) * 4; }
WS_HD constexpr std::int64_t delta_bytes(std::int64_t slots, int b) { return b == 8 ? slots : (slots + 1) / 2; }

}  // namespace warpsparse::ec
