// Warp-level model of the EC-SpMV kernels (kernels/ec/ec_spmv.cuh; decisions in docs/ec-spmv.md,
// "Kernel", "Per-row reduction order", "In-warp arithmetic"). The model replays the kernels' loads
// and fp32 roundings in the same order on 32 emulated lanes, so the two agree bit for bit.
//   Kernel 1, one warp per piece of the plan (set s: G rows per block, v slots per lane-step):
//     lanes load the piece's table entry (16 bytes, the same for all) and their lane_start;
//     per step: lane l loads its v deltas (positions p0 = (step·32 + l)·v .. p0 + v − 1: one load
//     of v·b/8 bytes; at v = 1 with 4-bit deltas lanes 2i and 2i + 1 load the same byte and take
//     the nibble of their parity) and its v·G values (one vector load per 16 bytes); then per slot
//     i: col += delta_i, one gather of x[col], converted once, and acc[k] = fma(val[i·G + k], x,
//     acc[k]) for k = 0..G−1;
//     after the last step, per k, a butterfly (shfl_xor 16..1, fp32 adds), and lane 0 stores the
//     G sums to partials[piece.partial + k].
//   Kernel 2, one thread per row (warps of 32 consecutive rows): s = 0.0f, s = s + partial for the
//     row's partials in plan order, then the epilogue (y_old not read when beta == 0).
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/ec/ec_format.hpp"
#include "reference/ec/ec_schedule.hpp"
#include "reference/sparse/spmv_common.hpp"

namespace warpsparse {

// Longest fp32 rounding chain of row r for SpmvBound: the longest lane chain among the row's
// pieces ((step_end − step_begin) · v fused multiply-adds), the 5 butterfly levels, and the adds of
// the second pass (the leading 0 + first partial, then one per further partial). 0 for an empty row.
template <class T>
std::int64_t ec_chain_length(const Ec<T>& a, const ec::Plan& p, std::int64_t r) {
  const std::uint32_t b = p.row_part_ptr[static_cast<std::size_t>(r)], e = p.row_part_ptr[static_cast<std::size_t>(r + 1)];
  if (b == e) return 0;
  std::int64_t longest = 0;
  for (std::uint32_t k = b; k < e; ++k) {
    // Pieces are in partial order: the piece of partial q is the last one starting at or before q.
    const auto it = std::upper_bound(p.pieces.begin(), p.pieces.end(), p.row_parts[k],
                                     [](std::uint32_t q, const ec::Piece& pc) { return q < pc.partial; });
    const ec::Piece& pc = *(it - 1);
    longest = std::max(longest, (std::int64_t{pc.step_end} - pc.step_begin) * a.sets[pc.set].vec);
  }
  return longest + 5 + (std::int64_t{e} - b - 1) + 1;
}

namespace ec_model_detail {
// A store of `bytes` contiguous bytes at `addr` by one instruction.
inline void count_store(warp::MemoryStats& m, std::uint64_t addr, std::uint64_t bytes, std::uint64_t instructions = 1) {
  if (bytes == 0) return;
  m.instructions += instructions;
  m.bytes_requested += bytes;
  m.sectors += (addr + bytes - 1) / 32 - addr / 32 + 1;
  m.lines += (addr + bytes - 1) / 128 - addr / 128 + 1;
}
}  // namespace ec_model_detail

// y = alpha · A x + beta · y_old by the EC kernels' arithmetic. traffic (optional) gets the loads:
// values, deltas, x and y as named; the plan's tables (piece entries, lane starts, row → partials
// map) and the partials themselves, stores included, under row_ptr. partials_out (optional) gets
// kernel 1's partial sums.
template <class T, class TX, class TY>
std::vector<TY> ec_spmv_model(const Ec<T>& a, const ec::Plan& plan, std::span<const TX> x, std::span<const TY> y_old,
                              float alpha, float beta, SpmvTraffic* traffic = nullptr,
                              std::vector<float>* partials_out = nullptr) {
  using namespace warp;
  require(static_cast<std::int64_t>(x.size()) == a.cols,
          "x has " + std::to_string(x.size()) + " entries, expected cols = " + std::to_string(a.cols));
  require(beta == 0.0f || static_cast<std::int64_t>(y_old.size()) == a.rows, "y has the wrong length");
  if (const auto f = ec_plan_fault(a, plan)) throw Error("EC plan does not fit the matrix: " + *f);
  SpmvTraffic local_traffic;
  SpmvTraffic& tr = traffic ? *traffic : local_traffic;
  const int bits = a.delta_bits;

  // The tables as the kernel reads them: a piece is 16 bytes {step_begin, step_end, partial, set}.
  std::vector<std::uint32_t> piece_words;
  piece_words.reserve(plan.pieces.size() * 4);
  for (const ec::Piece& pc : plan.pieces) piece_words.insert(piece_words.end(), {pc.step_begin, pc.step_end, pc.partial, pc.set});
  GlobalArray<std::uint32_t> g_piece("pieces", std::span<const std::uint32_t>(piece_words), 0x50000000);
  GlobalArray<std::uint32_t> g_start("lane_start", std::span<const std::uint32_t>(plan.lane_start), 0x60000000);
  GlobalArray<TX> g_x("x", x, 0x40000000);
  // Each set's arrays at their own base (the kernel's sets start 16-byte aligned in one buffer).
  std::vector<GlobalArray<T>> g_val;
  std::vector<GlobalArray<std::uint8_t>> g_delta;
  for (std::size_t si = 0; si < a.sets.size(); ++si) {
    const std::uint64_t base = std::uint64_t{si + 1} << 36;
    g_val.emplace_back("values", std::span<const T>(a.sets[si].values), base);
    g_delta.emplace_back("deltas", std::span<const std::uint8_t>(a.sets[si].deltas), base + (std::uint64_t{1} << 35));
  }
  constexpr std::uint64_t kPartialsBase = 0x70000000;

  std::vector<float> partials(static_cast<std::size_t>(plan.partials), 0.0f);
  constexpr int kMaxG = 16;            // the host ablation's largest G
  constexpr int kMaxLaneValues = 64;   // v · G: 8 at G = 1, 4 · G above
  for (std::size_t w = 0; w < plan.pieces.size(); ++w) {
    const auto pw = g_piece.template load<4>(kFullMask, broadcast<std::int64_t>(static_cast<std::int64_t>(w * 4)), &tr.row_ptr)[0];
    const std::uint32_t step_begin = pw[0], step_end = pw[1], partial = pw[2], set = pw[3];
    const EcSet<T>& s = a.sets[set];
    const int G = s.group, v = s.vec;
    require(G <= kMaxG && v * G <= kMaxLaneValues,
            "EC model: G = " + std::to_string(G) + ", v = " + std::to_string(v) + " exceeds the model's registers");
    const Lanes<std::uint32_t> start =
        g_start.gather(kFullMask, per_lane([&](int l) { return static_cast<std::int64_t>(w * ec::kLanes + static_cast<std::size_t>(l)); }), &tr.row_ptr);
    Lanes<std::int64_t> col = per_lane([&](int l) { return std::int64_t{start[l]}; });
    Lanes<std::array<float, kMaxG>> acc{};
    const int delta_load_bits = v * bits;  // per lane and step: 4, 8, 16, 32 or 64
    const int value_chunk = std::min<int>(static_cast<int>(16 / sizeof(T)), v * G);  // values per vector load
    for (std::int64_t step = step_begin; step < step_end; ++step) {
      const Lanes<std::int64_t> p0 = per_lane([&](int l) { return (step * ec::kLanes + l) * v; });
      // Deltas: one load per lane, the fields of its v slots, lowest bits first.
      Lanes<std::uint64_t> dword{};
      const Lanes<std::int64_t> didx = per_lane([&](int l) { return ec::delta_byte(p0[l], bits); });
      auto load_deltas = [&](auto bytes_c) {
        constexpr int kB = decltype(bytes_c)::value;
        const auto d = g_delta[set].template load<kB>(kFullMask, didx, &tr.deltas);
        for (int l = 0; l < kWarpSize; ++l) std::memcpy(&dword[l], d[l].data(), kB);  // little-endian, as the GPU
      };
      switch (delta_load_bits) {
        case 4:
        case 8: load_deltas(std::integral_constant<int, 1>{}); break;
        case 16: load_deltas(std::integral_constant<int, 2>{}); break;
        case 32: load_deltas(std::integral_constant<int, 4>{}); break;
        default: load_deltas(std::integral_constant<int, 8>{}); break;
      }
      if (delta_load_bits == 4)
        for (int l = 0; l < kWarpSize; ++l) dword[l] >>= ec::delta_shift(p0[l], bits);  // the lane's nibble
      // Values: v·G per lane, in vectors of at most 16 bytes.
      Lanes<std::array<T, kMaxLaneValues>> vals{};
      auto load_values = [&](auto elems_c) {
        constexpr int kE = decltype(elems_c)::value;
        if constexpr (kE * sizeof(T) <= 16) {
          for (int c = 0; c < v * G / kE; ++c) {
            const Lanes<std::int64_t> vidx = per_lane([&](int l) { return p0[l] * G + c * kE; });
            const auto part = g_val[set].template load<kE>(kFullMask, vidx, &tr.values);
            for (int l = 0; l < kWarpSize; ++l)
              for (int e = 0; e < kE; ++e) vals[l][c * kE + e] = part[l][e];
          }
        }
      };
      switch (value_chunk) {
        case 1: load_values(std::integral_constant<int, 1>{}); break;
        case 2: load_values(std::integral_constant<int, 2>{}); break;
        case 4: load_values(std::integral_constant<int, 4>{}); break;
        case 8: load_values(std::integral_constant<int, 8>{}); break;
        default: require(false, "EC model: a lane's values are not whole vectors"); break;
      }
      // Slots in order: advance, one gather, converted once, G fused multiply-adds.
      for (int i = 0; i < v; ++i) {
        for (int l = 0; l < kWarpSize; ++l)
          col[l] += static_cast<std::int64_t>((dword[l] >> (i * bits)) & static_cast<std::uint64_t>(ec::max_delta(bits)));
        const Lanes<TX> xv = g_x.gather(kFullMask, col, &tr.x);
        for (int l = 0; l < kWarpSize; ++l) {
          const float xf = to_float(xv[l]);
          for (int k = 0; k < G; ++k) acc[l][k] = std::fma(to_float(vals[l][i * G + k]), xf, acc[l][k]);
        }
      }
    }
    for (int k = 0; k < G; ++k) {
      const Lanes<float> lane_acc = per_lane([&](int l) { return acc[l][k]; });
      partials[partial + static_cast<std::size_t>(k)] = spmv_detail::warp_reduce_sum(lane_acc);
    }
    ec_model_detail::count_store(tr.row_ptr, kPartialsBase + std::uint64_t{partial} * 4, 4 * static_cast<std::uint64_t>(G),
                                 static_cast<std::uint64_t>(G));
  }

  // Kernel 2: thread r of warps of 32 consecutive rows.
  GlobalArray<std::uint32_t> g_ptr("row_part_ptr", std::span<const std::uint32_t>(plan.row_part_ptr), 0x80000000);
  GlobalArray<std::uint32_t> g_parts("row_parts", std::span<const std::uint32_t>(plan.row_parts), 0x90000000);
  GlobalArray<float> g_partials("partials", std::span<const float>(partials), kPartialsBase);
  GlobalArray<TY> g_y("y", y_old, 0xa0000000);
  std::vector<TY> y(static_cast<std::size_t>(a.rows));
  for (std::int64_t r0 = 0; r0 < a.rows; r0 += kWarpSize) {
    const std::uint32_t active = ballot_sync(kFullMask, per_lane([&](int l) { return r0 + l < a.rows; }));
    const Lanes<std::uint32_t> b = g_ptr.gather(active, per_lane([&](int l) { return r0 + l; }), &tr.row_ptr);
    const Lanes<std::uint32_t> e = g_ptr.gather(active, per_lane([&](int l) { return r0 + l + 1; }), &tr.row_ptr);
    Lanes<float> sum{};
    for (std::uint32_t it = 0;; ++it) {
      std::uint32_t m = 0;
      for (int l = 0; l < kWarpSize; ++l)
        if (lane_in(active, l) && b[l] + it < e[l]) m |= 1u << l;
      if (m == 0) break;
      const Lanes<std::uint32_t> q = g_parts.gather(m, per_lane([&](int l) { return std::int64_t{b[l]} + it; }), &tr.row_ptr);
      const Lanes<float> pv = g_partials.gather(m, per_lane([&](int l) { return std::int64_t{q[l]}; }), &tr.row_ptr);
      for (int l = 0; l < kWarpSize; ++l)
        if (lane_in(m, l)) sum[l] = sum[l] + pv[l];
    }
    if (beta != 0.0f) g_y.gather(active, per_lane([&](int l) { return r0 + l; }), &tr.y);
    std::int64_t n = 0;
    for (int l = 0; l < kWarpSize; ++l)
      if (lane_in(active, l)) {
        y[static_cast<std::size_t>(r0 + l)] = spmv_detail::epilogue<TY>(sum[l], alpha, beta, y_old, r0 + l);
        ++n;
      }
    ec_model_detail::count_store(tr.y, 0xa0000000 + static_cast<std::uint64_t>(r0) * sizeof(TY), static_cast<std::uint64_t>(n) * sizeof(TY));
  }
  if (partials_out) *partials_out = std::move(partials);
  return y;
}

}  // namespace warpsparse
