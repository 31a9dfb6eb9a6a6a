// Shared-memory bank model of MACKO's x gathers when x sits in shared memory
// (macko::Schedule::x_shared): what the policy reads to turn Schedule::x_swizzle on.
//
// A gather is one load instruction of the warp: lane l reads x at the column of its element, and
// the load takes as many shared-memory wavefronts as the largest number of distinct 4-byte words
// that the 32 lanes address in any one of the 32 banks (two lanes reading one word share it).
// Regular patterns put many lanes in one bank: lane l of a 2:4 row at d = 0.5 owns columns
// 16l .. 16l + 15, so 8 lanes of every gather share a bank. The swizzle (macko::x_pack_slot) moves
// them apart at a cost of a few instructions per gather, which uniform rows pay for nothing
// (docs/macko-schedule.md has the measurement).
//
// x_gather_wavefronts() counts the wavefronts of a sample of rows both ways; the schedule policy
// (macko_policy.hpp) turns the swizzle on where it saves enough of them. The kernel alone reads x
// through this layout, so the choice changes no result, only where x's values sit.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "reference/macko/macko_format.hpp"

namespace warpsparse::macko {

// Wavefronts of both layouts over the sampled gathers.
struct XGatherWavefronts {
  std::int64_t gathers = 0;
  std::int64_t plain = 0;     // x stored in column order
  std::int64_t swizzled = 0;  // x at x_pack_slot(c, 1)
  double saving() const { return plain > 0 ? 1.0 - static_cast<double>(swizzled) / static_cast<double>(plain) : 0.0; }
};

// Wavefronts of one gather whose active lanes read the 16-bit x elements at `slots`.
inline int gather_wavefronts(const std::array<std::int64_t, kWarpLanes>& slots,
                             const std::array<bool, kWarpLanes>& active) {
  std::array<std::array<std::int64_t, kWarpLanes>, 32> words{};  // per bank: distinct words seen
  std::array<int, 32> count{};
  int worst = 0;
  for (int l = 0; l < kWarpLanes; ++l) {
    if (!active[static_cast<std::size_t>(l)]) continue;
    const std::int64_t w = slots[static_cast<std::size_t>(l)] / 2;  // 4-byte word of a 16-bit value
    const auto b = static_cast<std::size_t>(w % 32);
    auto& seen = words[b];
    if (std::find(seen.begin(), seen.begin() + count[b], w) != seen.begin() + count[b]) continue;
    seen[static_cast<std::size_t>(count[b]++)] = w;
    worst = std::max(worst, count[b]);
  }
  return worst;
}

// The gathers of up to `max_rows` rows spread evenly over the matrix, at `lane_elems` elements per
// lane: step s of a row covers its elements s * 32 * lane_elems ..., lane l owns lane_elems
// consecutive ones of them, and gather k reads each lane's k-th (padding elements gather too; the
// kernel's ROMA alignment shifts a row's first step by up to one vector, which this ignores).
template <class T>
XGatherWavefronts x_gather_wavefronts(const Macko<T>& a, int lane_elems = kElemsPerLane, std::int64_t max_rows = 256) {
  XGatherWavefronts out;
  if (a.rows == 0 || max_rows <= 0) return out;
  const std::int64_t stride = std::max<std::int64_t>(1, a.rows / max_rows);
  const int step_elems = kWarpLanes * lane_elems;
  std::vector<std::int64_t> col;
  for (std::int64_t r = 0; r < a.rows; r += stride) {
    col.clear();
    std::int64_t c = -1;
    for (std::int64_t e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) col.push_back(c += std::int64_t{a.delta(e)} + 1);
    const auto n = static_cast<std::int64_t>(col.size());
    for (std::int64_t base = 0; base < n; base += step_elems)
      for (int k = 0; k < lane_elems; ++k) {
        std::array<std::int64_t, kWarpLanes> plain{}, swz{};
        std::array<bool, kWarpLanes> active{};
        bool any = false;
        for (int l = 0; l < kWarpLanes; ++l) {
          const std::int64_t e = base + std::int64_t{l} * lane_elems + k;
          if (e >= n) continue;
          const auto i = static_cast<std::size_t>(l);
          active[i] = any = true;
          plain[i] = col[static_cast<std::size_t>(e)];
          swz[i] = x_pack_slot(plain[i], 1);
        }
        if (!any) continue;
        ++out.gathers;
        out.plain += gather_wavefronts(plain, active);
        out.swizzled += gather_wavefronts(swz, active);
      }
  }
  return out;
}

}  // namespace warpsparse::macko
