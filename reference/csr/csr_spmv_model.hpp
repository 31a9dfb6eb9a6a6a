// Warp-level model of the plain CSR SpMV kernel (kernels/csr/csr_spmv.cuh), the baseline of ours:
// one warp per row, lane l takes elements begin+l, begin+l+32, ... (coalesced scalar loads of
// values and column indices), acc = fma(value, x[col], acc), butterfly reduction, epilogue.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "reference/csr/csr_format.hpp"
#include "reference/sparse/spmv_common.hpp"

namespace warpsparse {

template <class T, class Index, class TX, class TY>
std::vector<TY> csr_spmv_model(const Csr<T, Index>& a, std::span<const TX> x, std::span<const TY> y_old,
                               float alpha, float beta, SpmvTraffic* traffic = nullptr) {
  using namespace warp;
  require(static_cast<std::int64_t>(x.size()) == a.cols, "x has the wrong length");
  require(beta == 0.0f || static_cast<std::int64_t>(y_old.size()) == a.rows, "y has the wrong length");
  GlobalArray<T> g_val("values", std::span<const T>(a.val));
  GlobalArray<Index> g_col("col", std::span<const Index>(a.col), 0x20000000);
  GlobalArray<std::int32_t> g_ptr("row_ptr", std::span<const std::int32_t>(a.row_ptr), 0x30000000);
  GlobalArray<TX> g_x("x", x, 0x40000000);
  SpmvTraffic local_traffic;
  SpmvTraffic& tr = traffic ? *traffic : local_traffic;
  std::vector<TY> y(static_cast<std::size_t>(a.rows));
  for (std::int64_t r = 0; r < a.rows; ++r) {
    const auto p = g_ptr.gather(0x3u, per_lane([&](int l) { return r + (l & 1); }), &tr.row_ptr);
    const std::int64_t begin = p[0], end = p[1];
    Lanes<float> acc{};
    for (std::int64_t k = begin; k < end; k += kWarpSize) {
      const std::uint32_t active = ballot_sync(kFullMask, per_lane([&](int l) { return k + l < end; }));
      const Lanes<std::int64_t> idx = per_lane([&](int l) { return k + l; });
      const Lanes<T> v = g_val.gather(active, idx, &tr.values);
      const Lanes<Index> c = g_col.gather(active, idx, &tr.deltas);
      const Lanes<TX> xv = g_x.gather(active, per_lane([&](int l) { return std::int64_t(c[l]); }), &tr.x);
      for (int l = 0; l < kWarpSize; ++l)
        if (lane_in(active, l)) acc[l] = std::fma(to_float(v[l]), to_float(xv[l]), acc[l]);
    }
    y[r] = spmv_detail::epilogue<TY>(spmv_detail::warp_reduce_sum(acc), alpha, beta, y_old, r);
  }
  return y;
}

// Longest fp32 accumulation chain of one row, for SpmvBound: one FMA per element a lane owns
// (lane l takes every 32nd element), plus the 5 butterfly levels.
inline std::int64_t csr_chain_length(std::int64_t row_nnz) { return (row_nnz + 31) / 32 + 5; }

}  // namespace warpsparse
