// Shared-memory bank model of MACKO's x gathers when x sits in shared memory
// (macko::Schedule::x_shared), and the rule that turns Schedule::x_swizzle on from the matrix.
//
// A gather is one load instruction of the warp: lane l reads x at the column of its element, and
// the load takes as many shared-memory wavefronts as the largest number of distinct 4-byte words
// that the 32 lanes address in any one of the 32 banks (two lanes reading one word share it).
// Regular patterns put many lanes in one bank: lane l of a 2:4 row at d = 0.5 owns columns
// 16l .. 16l + 15, so 8 lanes of every gather share a bank. The swizzle (macko::x_pack_slot) moves
// them apart at a cost of a few instructions per gather, which uniform rows pay for nothing
// (H100, run 60: 2:4 and 4:8 rows 15-28 % faster, uniform and Bernoulli rows 0.5-3.8 % slower).
//
// x_swizzle_pays() counts the wavefronts of a sample of rows both ways and says yes when the swizzle
// saves at least kXSwizzleMinSaving of them. The kernel alone reads x through this layout, so the
// rule changes no result, only where x's values sit.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "reference/formats/macko.hpp"
#include "reference/formats/macko_layout.hpp"

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

// The fraction of wavefronts the swizzle must save to be worth its instructions. Uniform random rows
// save nothing on average (run 60 measured them 0.5-3.8 % slower swizzled); 2:4 rows at d = 0.5 save
// half (8 lanes per bank become 4) and ran 15-28 % faster.
inline constexpr double kXSwizzleMinSaving = 0.2;

// Whether Schedule::x_swizzle should be on for this matrix under schedule `s`: only where x is in
// shared memory at batch 1 (batches always swizzle), and the sampled gathers save enough wavefronts.
template <class T>
bool x_swizzle_pays(const Macko<T>& a, const Schedule& s) {
  if (!s.x_shared || s.batch != 1) return false;
  return x_gather_wavefronts(a, s.lane_elems).saving() >= kXSwizzleMinSaving;
}

}  // namespace warpsparse::macko
