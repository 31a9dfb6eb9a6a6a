// ws_bench_macko's output check, host only so bench_host_tests can exercise it without a device:
// every element of a batched output against the double-precision oracle of its own vector.
//
// A batch of B vectors is stored row-major, x as cols x B and y as rows x B (element (i, b) at
// i * B + b), the layout of macko::Schedule::batch; batch 1 is the plain vector.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "bench/matrix_gen.hpp"
#include "reference/common/error.hpp"
#include "reference/sparse/spmv_common.hpp"

namespace warpsparse::bench {

// (interleave_columns and batch_column, the batch layout's helpers, are in
// reference/sparse/spmv_common.hpp.)

struct Check {
  double max_abs = 0, max_rel = 0, worst_ratio = 0;
  std::int64_t worst_row = -1, worst_col = -1, nonfinite = 0;
  bool pass = true;
};

// y is rows x B row-major with B = oracles.size(); column b is checked against oracles[b]:
// err <= gamma_{k_r + 2} sum_j |a_rj x_jb| + u_out |y_rb| + tiny (spmv_common.hpp's SpmvBound), with
// k_r = chain(r) the longest chain of fp32 roundings the kernel can apply to row r. One k per row
// serves every column because each vector of a batch goes through the batch-1 arithmetic.
// max_rel is max |err| / max |y_exact| over all elements (error relative to the output's scale; a
// per-element ratio explodes on sums near zero).
//
// output_partials admits a kernel that keeps partial sums of a row in the output type T: split-K
// with the partials stored as T and added in fp32 (cuBLASLt's OUTPUT_TYPE reduction scheme) adds at
// most u_T sum_j |p_j| <= u_T sum |a x| to the error, whatever the number of parts; the bound grows
// by output_partials times that. 0 for every kernel that accumulates in fp32 throughout.
template <class T>
Check check_output(const std::vector<T>& y, std::span<const Oracle> oracles,
                   const std::function<std::int64_t(std::int64_t)>& chain, double output_partials = 0) {
  const std::size_t nb = oracles.size();
  require(nb > 0, "check_output: no oracle");
  const std::size_t rows = oracles[0].y.size();
  require(y.size() == rows * nb, "check_output: y has " + std::to_string(y.size()) + " elements, expected " +
                                     std::to_string(rows) + " rows x " + std::to_string(nb) + " vectors");
  Check c;
  double ymax = 0;
  for (const Oracle& o : oracles) {
    require(o.y.size() == rows, "check_output: oracles of different lengths");
    for (const double v : o.y) ymax = std::max(ymax, std::abs(v));
  }
  const SpmvBound b;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto rr = static_cast<std::int64_t>(r);
    const std::int64_t k = chain(rr);
    for (std::size_t col = 0; col < nb; ++col) {
      const Oracle& o = oracles[col];
      const double got = to_float(y[r * nb + col]);
      if (!std::isfinite(got)) {
        // Worse than any finite error: the first one is where to look, whatever ratios follow.
        if (c.nonfinite++ == 0) {
          c.worst_row = rr;
          c.worst_col = static_cast<std::int64_t>(col);
          c.worst_ratio = std::numeric_limits<double>::infinity();
        }
        c.pass = false;
        continue;
      }
      const double err = std::abs(got - o.y[r]);
      const double bound = b.bound<T>(k, o.abs_sum[r], o.y[r], o.row_nnz[r]) +
                           output_partials * unit_roundoff<T>() * o.abs_sum[r];
      c.max_abs = std::max(c.max_abs, err);
      const double ratio = err / bound;
      if (ratio > c.worst_ratio) {  // never after a non-finite element (its ratio is infinite)
        c.worst_ratio = ratio;
        c.worst_row = rr;
        c.worst_col = static_cast<std::int64_t>(col);
      }
      if (err > bound) c.pass = false;
    }
  }
  c.max_rel = ymax > 0 ? c.max_abs / ymax : c.max_abs;
  if (c.nonfinite > 0) c.max_abs = c.max_rel = std::numeric_limits<double>::infinity();
  return c;
}

}  // namespace warpsparse::bench
