// Shared pieces of the SpMV warp models: per-array traffic counters, the fp32 warp reduction
// and the epilogue y = alpha*acc + beta*y, written with the roundings the kernels use.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/values/value_types.hpp"
#include "reference/warp/memory.hpp"
#include "reference/warp/shuffle.hpp"

namespace warpsparse {

// A batch of nb vectors of length n is stored row-major as n x nb (element (i, b) at i * nb + b),
// the layout of macko::Schedule::batch; batch 1 is the plain vector.
// columns[b] is vector b (all of one length n); returns the n x columns.size() row-major matrix.
template <class T>
std::vector<T> interleave_columns(std::span<const std::vector<T>> columns) {
  const std::size_t nb = columns.size();
  require(nb > 0, "interleave_columns: no columns");
  const std::size_t n = columns[0].size();
  std::vector<T> out(n * nb);
  for (std::size_t b = 0; b < nb; ++b) {
    require(columns[b].size() == n, "interleave_columns: columns of different lengths");
    for (std::size_t i = 0; i < n; ++i) out[i * nb + b] = columns[b][i];
  }
  return out;
}
// Its inverse for one vector: column b of the n x nb row-major matrix m.
template <class T>
std::vector<T> batch_column(std::span<const T> m, int nb, int b) {
  require(nb > 0 && b >= 0 && b < nb && m.size() % static_cast<std::size_t>(nb) == 0,
          "batch_column: vector " + std::to_string(b) + " of a batch of " + std::to_string(nb) + " in " +
              std::to_string(m.size()) + " elements");
  std::vector<T> out(m.size() / static_cast<std::size_t>(nb));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = m[i * static_cast<std::size_t>(nb) + static_cast<std::size_t>(b)];
  return out;
}

// Bytes the emulated warps asked for and the sectors they touched, per array.
struct SpmvTraffic {
  warp::MemoryStats values, deltas, row_ptr, x, y;
  warp::MemoryStats total() const {
    warp::MemoryStats t;
    t += values;
    t += deltas;
    t += row_ptr;
    t += x;
    t += y;
    return t;
  }
};

namespace spmv_detail {

// Butterfly reduction within segments of `width` lanes (shfl_xor width/2, ..., 2, 1): every lane of
// a segment ends with the same fp32 sum; segment 0's is returned.
inline float warp_reduce_sum(warp::Lanes<float> v, int width = warp::kWarpSize) {
  for (int off = width / 2; off >= 1; off >>= 1) {
    const auto o = warp::shfl_xor_sync(warp::kFullMask, v, off, width);
    for (int l = 0; l < warp::kWarpSize; ++l) v[l] = v[l] + o[l];
  }
  return v[0];
}

// y = alpha*acc (+ beta*y_old when beta != 0; y_old is not read otherwise), as the kernels:
// __fmul_rn then __fmaf_rn, then one rounding to the output type.
template <class TY>
TY epilogue(float acc, float alpha, float beta, std::span<const TY> y_old, std::int64_t r) {
  float out = alpha * acc;
  if (beta != 0.0f) out = std::fma(beta, to_float(y_old[r]), out);
  return from_float<TY>(out);
}

}  // namespace spmv_detail

// Double-precision oracle over decoded rows: y = alpha * A x + beta * y_old.
template <class T, class TX, class TY>
std::vector<double> spmv_oracle(const SparseRows<T>& a, std::span<const TX> x, std::span<const TY> y_old,
                                double alpha, double beta) {
  std::vector<double> y(static_cast<std::size_t>(a.rows));
  for (std::int64_t r = 0; r < a.rows; ++r) {
    double s = 0;
    for (std::int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      s += double(to_float(a.val[k])) * double(to_float(x[a.col[k]]));
    y[r] = alpha * s + (beta != 0 ? beta * double(to_float(y_old[r])) : 0.0);
  }
  return y;
}

template <class T>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<T, half>) return std::ldexp(1.0, -11);
  else if constexpr (std::is_same_v<T, bfloat16>) return std::ldexp(1.0, -8);
  else return std::ldexp(1.0, -24);
}

// Half the smallest subnormal step of the output type: converting a tiny fp32 sum to fp16/bf16
// has an absolute, not a relative, error there.
template <class TY>
double output_abs_floor() {
  return 0.5 * double(to_float(std::numeric_limits<TY>::denorm_min()));
}

// Forward error bound of an fp32 dot product evaluated with fused multiply-adds along chains of
// at most `chain` terms and `tree` further additions (Higham, Accuracy and Stability, §3.1):
//   |fl(s) - s| <= gamma_k * sum|p_i|,  k = chain + tree,  gamma_k = k u / (1 - k u), u = 2^-24.
// The epilogue adds two roundings (alpha*, fma with beta); the conversion to the output type TY
// adds u_out * |y| plus half its smallest subnormal step; a small absolute term covers products
// that underflow fp32.
struct SpmvBound {
  // Infinite where k u >= 1 (chains of 2^24 terms and more): the bound says nothing there.
  double gamma(std::int64_t k) const {
    const double u = std::ldexp(1.0, -24);
    const double ku = double(k) * u;
    return ku < 1.0 ? ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
  }
  // abs_sum = |alpha| * sum |a_i x_i| + |beta * y_old|.
  template <class TY>
  double bound(std::int64_t k, double abs_sum, double y_exact, std::int64_t terms) const {
    const double out_unit = unit_roundoff<TY>();
    return gamma(k + 2) * abs_sum * (1 + out_unit) + out_unit * std::abs(y_exact) +
           double(terms + 2) * std::ldexp(1.0, -126) + output_abs_floor<TY>();
  }
};


}  // namespace warpsparse
