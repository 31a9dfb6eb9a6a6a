// Warp-level model of the MACKO SpMV kernel (kernels/macko/macko_spmv.cuh). One warp per row; the
// model replays the kernel's loads, masks, shuffles and fp32 fused multiply-adds in the same
// order, on 32 emulated lanes, so the two must agree bit for bit. Per row:
//   1. lanes 0 and 1 load row_ptr[r], row_ptr[r+1]; shfl broadcasts them;
//   2. ROMA: start at RowAligner::aligned_begin; elements outside [begin, end) are masked;
//   3. per block: one delta load per lane (b_Δ < 4: one 32-bit word serves 4/b_Δ steps and is
//      redistributed with shfl_sync, lane i of step s reading lane s·32/S + i/S);
//   4. per step: each lane loads its E = Schedule::lane_elems values (one vector), sums its
//      unmasked (delta+1), an exclusive shfl_up scan gives its starting column, lane 31's
//      inclusive sum (the step's total) is broadcast and added to the base of the next step;
//   5. per owned element i < E: gather x[col], acc[i % A] = fma(value, x, acc[i % A]);
//   6. accumulators summed in order, butterfly reduction, y = alpha*acc + beta*y_old.
// With Schedule::row_splits = s > 1, s warps share the row: warp j walks steps 2-5 over
// [split_start(j), split_start(j+1)) only, from the column that lane 0 loads from the split-base
// table (warp 0 starts at -1); each reduces its lanes as in 6, and the parts are added in order
// (part 0 + part 1, then + part 2, ...) before the epilogue. The model walks the parts one after
// the other and checks every table entry it uses against its own running column.
// With Schedule::grid_splits = P > 1 the parts are walked by warps anywhere in the grid and the
// row's last warp adds them: lane l starts from 0 and adds parts l, l + 32, l + 64, ... in turn, then
// the lanes are reduced by the butterfly of 6 (grid_part_sum).
// With Schedule::row_lanes = 16 each half of a warp runs its own row with 16-lane steps; every
// shuffle is segmented to 16 lanes (scan, step total, delta redistribution, a 4-level butterfly),
// so no value crosses halves, and the steps the shorter row's half walks past its end are fully
// masked. The model therefore walks each row on lanes 0-15 of the emulated warp, lanes 16-31 idle.
// Schedule::prefetch and Schedule::x_shared change only when the loads are issued and where x is
// read from (L1 or a shared-memory copy), not the values nor the arithmetic: the model ignores them.
// The kernel forms the same integer columns in fewer instructions than steps 4-5 spell out: lane
// sums by SWAR bytes (in a row's first and last steps over byte-masked increments), and one
// shfl_up ladder for two interior steps whose lane sums ride in the halves of one word
// (proptests/warp_emulator_tests.cpp checks that identity).
// With Schedule::batch = B > 1, x is cols x B and y rows x B (row-major): each gather of step 5 is
// one B-value vector load of x's row col, every lane keeps A accumulators per vector, and 6 runs
// once per vector; vector b's arithmetic is the batch-1 arithmetic on column b.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_schedule.hpp"
#include "reference/sparse/spmv_common.hpp"

namespace warpsparse {

// The sum of a row's P grid-split parts, in the order the row's last warp adds them: lane l starts
// from 0 and adds parts l, l + 32, ... in turn (a fixed order any P <= kMaxGridSplits keeps short),
// then the 32 lane sums are reduced by the butterfly.
template <class Part>
float grid_part_sum(int parts, Part part) {
  warp::Lanes<float> lane_sum{};
  for (int l = 0; l < warp::kWarpSize; ++l)
    for (int k = l; k < parts; k += warp::kWarpSize) lane_sum[l] = lane_sum[l] + part(k);
  return spmv_detail::warp_reduce_sum(lane_sum, warp::kWarpSize);
}

template <class T, class TX, class TY>
std::vector<TY> macko_spmv_model(const Macko<T>& a, std::span<const TX> x, std::span<const TY> y_old,
                                 float alpha, float beta, const macko::Schedule& sched,
                                 SpmvTraffic* traffic = nullptr) {
  using namespace warp;
  require(sched.valid(a.delta_bits), "MACKO schedule " + macko::to_string(sched) + " is not valid for " +
                                         std::to_string(a.delta_bits) + "-bit deltas");
  const int nb = sched.batch;
  require(static_cast<std::int64_t>(x.size()) == a.cols * nb,
          "x has " + std::to_string(x.size()) + " entries, expected cols x batch = " + std::to_string(a.cols) + " x " +
              std::to_string(nb));
  require(beta == 0.0f || static_cast<std::int64_t>(y_old.size()) == a.rows * nb, "y has the wrong length");

  const int db = a.delta_bits;
  const int S = sched.steps_per_block(db);
  const int A = sched.lane_accumulators;
  const int E = sched.lane_elems;               // elements per lane per step
  const int L = sched.row_lanes;                // lanes of one row: 32, or 16 (lanes 16-31 idle)
  const std::uint32_t row_mask = L == kWarpSize ? kFullMask : (1u << L) - 1;
  const std::int64_t kStep = sched.elems_per_step();
  // A lane's E values are one vector load of at most 16 bytes (two for 32-bit values).
  const int vec_elems = std::min<int>(int(16 / sizeof(T)), E);
  const int vecs = E / vec_elems;

  std::vector<std::uint32_t> ptr32;
  if (!a.row_ptr.wide) ptr32.assign(a.row_ptr.narrow.begin(), a.row_ptr.narrow.end());

  GlobalArray<T> g_val("values", std::span<const T>(a.values));
  GlobalArray<std::uint8_t> g_delta("deltas", std::span<const std::uint8_t>(a.deltas), 0x20000000);
  GlobalArray<std::uint32_t> g_ptr32("row_ptr", std::span<const std::uint32_t>(ptr32), 0x30000000);
  GlobalArray<std::uint64_t> g_ptr64("row_ptr", std::span<const std::uint64_t>(a.row_ptr.wide_ptr), 0x30000000);
  GlobalArray<TX> g_x("x", x, 0x40000000);
  const int splits = sched.row_parts();
  const std::vector<std::int32_t> split_bases = splits > 1 ? macko_split_bases(a) : std::vector<std::int32_t>{};
  GlobalArray<std::int32_t> g_split("split_bases", std::span<const std::int32_t>(split_bases), 0x50000000);

  SpmvTraffic local_traffic;
  SpmvTraffic& tr = traffic ? *traffic : local_traffic;
  std::vector<TY> y(static_cast<std::size_t>(a.rows * nb));
  // One gather: each active lane loads the nb values of x's row xidx[lane] (one vector load).
  using XRow = std::array<TX, 8>;
  auto gather_x = [&](std::uint32_t active, const Lanes<std::int64_t>& xidx) {
    Lanes<XRow> out{};
    const Lanes<std::int64_t> eidx = per_lane([&](int l) { return xidx[l] * nb; });
    auto load = [&](auto n_c) {
      constexpr int kN = decltype(n_c)::value;
      const auto v = g_x.template load<kN>(active, eidx, &tr.x);
      for (int l = 0; l < kWarpSize; ++l)
        for (int b = 0; b < kN; ++b) out[l][b] = v[l][b];
    };
    switch (nb) {
      case 1: load(std::integral_constant<int, 1>{}); break;
      case 2: load(std::integral_constant<int, 2>{}); break;
      case 4: load(std::integral_constant<int, 4>{}); break;
      default:
        if constexpr (8 * sizeof(TX) <= 16) load(std::integral_constant<int, 8>{});
        else require(false, "a batch of 8 needs 16-bit x");
        break;
    }
    return out;
  };

  for (std::int64_t r = 0; r < a.rows; ++r) {
    // 1. row bounds: lanes 0 and 1 load, lane 0's and lane 1's values are broadcast.
    const Lanes<std::int64_t> pidx = per_lane([&](int l) { return r + (l & 1); });
    std::int64_t begin, end;
    if (a.row_ptr.wide) {
      const auto p = g_ptr64.gather(0x3u, pidx, &tr.row_ptr);
      begin = static_cast<std::int64_t>(p[0]);
      end = static_cast<std::int64_t>(p[1]);
    } else {
      const auto p = g_ptr32.gather(0x3u, pidx, &tr.row_ptr);
      begin = p[0];
      end = p[1];
    }
    const macko::RowAligner ra(begin, end, db);
    std::array<float, 8> row_sum{};
    std::vector<std::array<float, 8>> grid_parts(static_cast<std::size_t>(sched.grid_splits > 1 ? splits : 0));
    std::int64_t carry = -1;  // running column at the end of the parts walked so far
    for (int sp = 0; sp < splits; ++sp) {
      const std::int64_t start = ra.split_start(sp, splits), stop = ra.split_start(sp + 1, splits);
      const std::int64_t lo = std::max(begin, start);  // elements of this part: [lo, stop)
      Lanes<std::array<std::array<float, 8>, 8>> acc{};  // [lane][vector][accumulator]
      std::int64_t base = -1;  // column of the last element before this step (row starts at -1)
      if (sp > 0 && start < stop) {
        // Lane 0 loads the part's starting column; shfl broadcasts it.
        const Lanes<std::int64_t> sidx = per_lane([&](int) { return start / macko::kSplitUnit; });
        base = g_split.gather(0x1u, sidx, &tr.row_ptr)[0];
        require(base == carry, "split-base table entry " + std::to_string(start / macko::kSplitUnit) + " is " +
                                   std::to_string(base) + ", the row's running column there is " + std::to_string(carry));
      }

      for (std::int64_t blk = start; blk < stop; blk += sched.elems_per_block(db)) {
        // 3. delta load for the block: delta_load_bytes() (1, 2, 4 or 8) per lane.
        const std::int64_t welems = sched.delta_load_elems(db);
        const std::uint32_t dactive = ballot_sync(row_mask, per_lane([&](int l) { return blk + welems * l < stop; }));
        const Lanes<std::int64_t> didx = per_lane([&](int l) { return macko::delta_byte_index(blk + welems * l, db); });
        Lanes<std::uint64_t> dword{};
        auto load_deltas = [&](auto bytes_c) {
          constexpr int kB = decltype(bytes_c)::value;
          const auto w = g_delta.template load<kB>(dactive, didx, &tr.deltas);
          for (int l = 0; l < kWarpSize; ++l) {
            dword[l] = 0;
            std::memcpy(&dword[l], w[l].data(), kB);  // little-endian, as the GPU
          }
        };
        switch (sched.delta_load_bytes(db)) {
          case 1: load_deltas(std::integral_constant<int, 1>{}); break;
          case 2: load_deltas(std::integral_constant<int, 2>{}); break;
          case 4: load_deltas(std::integral_constant<int, 4>{}); break;
          default: load_deltas(std::integral_constant<int, 8>{}); break;
        }
        for (int l = 0; l < kWarpSize; ++l)
          if (!lane_in(dactive, l)) dword[l] = 0;

        for (int s = 0; s < S; ++s) {
          const std::int64_t step = blk + kStep * s;
          if (step >= stop) break;  // warp-uniform
          // Deltas of this step's E elements, as one field-per-element list per lane.
          Lanes<std::uint64_t> mine = dword;
          if (S > 1) {
            const Lanes<int> src = per_lane([&](int l) { return s * (L / S) + l / S; });
            mine = shfl_sync(row_mask, dword, src, L);
            for (int l = 0; l < kWarpSize; ++l) mine[l] >>= (l % S) * E * db;
          }
          // 4. values.
          const std::uint32_t vactive = ballot_sync(row_mask, per_lane([&](int l) { return step + E * l < stop; }));
          Lanes<std::array<T, 8>> vals{};
          auto load_values = [&](auto elems_c) {
            constexpr int kV = decltype(elems_c)::value;
            if constexpr (kV * sizeof(T) <= 16) {  // vec_elems never asks for more
              for (int v = 0; v < vecs; ++v) {
                const Lanes<std::int64_t> vidx = per_lane([&](int l) { return step + std::int64_t{E} * l + v * kV; });
                const auto part = g_val.template load<kV>(vactive, vidx, &tr.values);
                for (int l = 0; l < kWarpSize; ++l)
                  for (int i = 0; i < kV; ++i) vals[l][v * kV + i] = part[l][i];
              }
            }
          };
          switch (vec_elems) {
            case 2: load_values(std::integral_constant<int, 2>{}); break;
            case 4: load_values(std::integral_constant<int, 4>{}); break;
            default: load_values(std::integral_constant<int, 8>{}); break;
          }
          Lanes<std::array<int, 8>> inc{};
          Lanes<int> local{};
          for (int l = 0; l < L; ++l) {
            int sum = 0;
            for (int i = 0; i < E; ++i) {
              const std::int64_t e = step + std::int64_t{E} * l + i;
              const int d = static_cast<int>((mine[l] >> (i * db)) & static_cast<std::uint64_t>(macko::max_skip(db)));
              inc[l][i] = e >= lo && e < stop ? d + 1 : 0;
              sum += inc[l][i];
            }
            local[l] = sum;
          }
          const Lanes<int> excl = exclusive_scan_shfl_up(row_mask, local, L);
          // 5. columns, gathers and FMAs, element by element (one gather instruction each).
          Lanes<std::int64_t> col = per_lane([&](int l) { return base + excl[l]; });
          for (int i = 0; i < E; ++i) {
            std::uint32_t gactive = 0;
            Lanes<std::int64_t> xidx{};
            for (int l = 0; l < kWarpSize; ++l) {
              if (inc[l][i] == 0) continue;
              col[l] += inc[l][i];
              xidx[l] = col[l];
              gactive |= 1u << l;
            }
            const Lanes<XRow> xv = gather_x(gactive, xidx);
            for (int l = 0; l < kWarpSize; ++l)
              if (lane_in(gactive, l))
                for (int b = 0; b < nb; ++b)
                  acc[l][b][i % A] = std::fma(to_float(vals[l][i]), to_float(xv[l][b]), acc[l][b][i % A]);
          }
          // The step's total (lane L-1's inclusive sum, without base) is broadcast and added to
          // base: the shuffle does not wait for the previous step's base.
          const Lanes<int> incl = per_lane([&](int l) { return excl[l] + local[l]; });
          base += shfl_sync(row_mask, incl, L - 1, L)[0];
        }
      }
      if (start < stop) carry = base;
      // 6. per vector: accumulators, warp reduction; the parts are added in order.
      for (int b = 0; b < nb; ++b) {
        Lanes<float> lane_sum{};
        for (int l = 0; l < kWarpSize; ++l) {
          float s = acc[l][b][0];
          for (int k = 1; k < A; ++k) s = s + acc[l][b][k];
          lane_sum[l] = s;
        }
        const float sum = spmv_detail::warp_reduce_sum(lane_sum, L);
        if (sched.grid_splits > 1) grid_parts[static_cast<std::size_t>(sp)][b] = sum;
        else row_sum[b] = sp == 0 ? sum : row_sum[b] + sum;
      }
    }
    if (sched.grid_splits > 1)
      for (int b = 0; b < nb; ++b) row_sum[b] = grid_part_sum(splits, [&](int k) { return grid_parts[static_cast<std::size_t>(k)][b]; });
    for (int b = 0; b < nb; ++b) y[r * nb + b] = spmv_detail::epilogue<TY>(row_sum[b], alpha, beta, y_old, r * nb + b);
    // One store instruction per row (lanes 0..nb-1 hold the row's nb outputs, contiguous).
    const std::uint64_t ybytes = sizeof(TY) * static_cast<std::uint64_t>(nb);
    const std::uint64_t ysectors = (ybytes + 31) / 32;
    tr.y.instructions += 1;
    tr.y.bytes_requested += ybytes * (beta != 0.0f ? 2 : 1);
    tr.y.sectors += ysectors * (beta != 0.0f ? 2 : 1);
    tr.y.lines += beta != 0.0f ? 2 : 1;
  }
  return y;
}

// Longest fp32 accumulation chain of one row under a schedule, for SpmvBound: elements per
// accumulator per lane, plus the accumulator sum and the log2(row_lanes) butterfly levels.
inline std::int64_t macko_chain_length(std::int64_t row_elements, int delta_bits, const macko::Schedule& s) {
  const std::int64_t unit = macko::align_unit(delta_bits);
  const std::int64_t step = s.elems_per_step();
  const std::int64_t steps = (row_elements + unit - 1 + step - 1) / step + 1;
  const std::int64_t per_acc = steps * ((s.lane_elems + s.lane_accumulators - 1) / s.lane_accumulators);
  // Parts of a split row are shorter; their sum adds row_splits - 1 roundings, or with grid splits a
  // lane's ceil(P / 32) and the 5 butterfly levels.
  const std::int64_t parts = s.grid_splits > 1 ? (s.grid_splits + 31) / 32 + 5 : s.row_splits - 1;
  return per_acc + (s.lane_accumulators - 1) + std::countr_zero(static_cast<unsigned>(s.row_lanes)) + parts;
}

}  // namespace warpsparse
