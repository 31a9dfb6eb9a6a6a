// Helpers shared by the GPU property tests.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reference/formats/sparse_rows.hpp"

namespace warpsparse::gpu_props {

// The stored bits of a 16- or 32-bit value: kernel and model must agree on these exactly.
template <class T>
std::uint32_t raw_bits(T v) {
  if constexpr (sizeof(T) == 2) return std::bit_cast<std::uint16_t>(v);
  else return std::bit_cast<std::uint32_t>(v);
}

// Per row: |alpha| * sum_j |a_rj x_j| + |beta y0_r| (y0 unread when beta == 0), the magnitude the
// fp32 forward error bound of SpmvBound scales with.
template <class T, class TX, class TY>
std::vector<double> row_abs_sums(const SparseRows<T>& m, const std::vector<TX>& x, float alpha, float beta,
                                 const std::vector<TY>& y0) {
  std::vector<double> out(static_cast<std::size_t>(m.rows));
  for (std::int64_t r = 0; r < m.rows; ++r) {
    double s = 0;
    for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k)
      s += std::abs(double(to_float(m.val[k])) * double(to_float(x[m.col[k]])));
    out[r] = std::abs(alpha) * s + (beta != 0 ? std::abs(double(beta) * to_float(y0[r])) : 0.0);
  }
  return out;
}

}  // namespace warpsparse::gpu_props
