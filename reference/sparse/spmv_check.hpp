// Compares a model's (or kernel's) SpMV output with the double oracle row by row, against the
// forward error bound of SpmvBound for that row's accumulation chain. Shared by the property
// tests and `warpsparse verify` so both judge a result by the same rule:
//  - oracle finite: the output is finite and |y - oracle| <= bound(row), or it overflowed where
//    fp32 arithmetic may: +-Inf or NaN when a partial sum of the chain can pass FLT_MAX (then
//    signs and the order of overflows are the arithmetic's), the oracle's infinity when only the
//    conversion to the output type can (|oracle| + bound reaches its largest finite value);
//  - oracle NaN: the output is NaN; oracle +-Inf: the output is the same infinity, or NaN when the
//    finite terms' partial sum can overflow fp32 (to the other infinity).
// The bound of row r is SpmvBound::bound<TY>(chain(r), |alpha| sum|a x| + |beta y_old|, |oracle|,
// terms), which includes the output conversion's relative and absolute (subnormal) error.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "reference/sparse/sparse_rows.hpp"
#include "reference/sparse/spmv_common.hpp"

namespace warpsparse {

struct SpmvCheck {
  double max_error = 0;        // over rows with a finite oracle and a finite output
  double max_bound_ratio = 0;  // max over those rows of error / bound
  std::int64_t overflows = 0;  // rows whose output overflowed where the arithmetic may
  std::int64_t failures = 0;
  std::string first_failure;  // empty when every row passed
  bool ok() const { return failures == 0; }
};

// Row r's bound for an output of type TY, and the absolute sums it is made of: products =
// sum|a x|, abs_sum = |alpha| products + |beta y_old| (beta_y_old: beta * y_old[r], 0 when beta is 0).
// check_spmv judges by it, and the oracle-and-bound reports (Python's macko_oracle_bound) give it.
struct SpmvRowBound {
  double products = 0, abs_sum = 0, bound = 0;
};
template <class TY, class T, class TX>
SpmvRowBound spmv_row_bound(const SparseRows<T>& a, std::span<const TX> x, std::int64_t r, double alpha,
                            double beta_y_old, std::int64_t chain, double oracle) {
  SpmvRowBound rb;
  for (std::int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
    rb.products += std::abs(double(to_float(a.val[k])) * double(to_float(x[a.col[k]])));
  rb.abs_sum = rb.products * std::abs(alpha) + std::abs(beta_y_old);
  rb.bound = SpmvBound{}.template bound<TY>(chain, rb.abs_sum, std::abs(oracle), a.row_ptr[r + 1] - a.row_ptr[r]);
  return rb;
}

template <class T, class TX, class TY, class ChainOfRow>
SpmvCheck check_spmv(const SparseRows<T>& a, std::span<const TX> x, std::span<const TY> y_old, float alpha, float beta,
                     std::span<const TY> y, ChainOfRow&& chain_of_row) {
  const std::vector<double> want = spmv_oracle(a, x, y_old, double(alpha), double(beta));
  SpmvCheck c;
  const SpmvBound b;
  for (std::int64_t r = 0; r < a.rows; ++r) {
    const double got = double(to_float(y[r]));
    const double w = want[r];
    std::string bad;
    if (std::isnan(w)) {
      if (!std::isnan(got)) bad = "expected NaN";
    } else if (std::isinf(w)) {
      // The oracle's infinity comes from an infinite term (a double sum of these values cannot
      // overflow). fp32 may also overflow the finite terms' partial sum to the other infinity, and
      // the two then sum to NaN.
      if (got != w) {
        double finite = 0;
        for (std::int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
          const double p = std::abs(double(alpha) * double(to_float(a.val[k])) * double(to_float(x[a.col[k]])));
          if (std::isfinite(p)) finite += p;
        }
        const double yo = beta != 0.0f ? std::abs(double(beta) * double(to_float(y_old[r]))) : 0.0;
        if (std::isfinite(yo)) finite += yo;
        const bool fp32_may = (1 + b.gamma(chain_of_row(r) + 2)) * finite >= double(std::numeric_limits<float>::max());
        if (std::isnan(got) && fp32_may) ++c.overflows;
        else bad = "expected " + std::string(w > 0 ? "+inf" : "-inf");
      }
    } else {
      const std::int64_t chain = chain_of_row(r);
      const double beta_y_old = beta != 0.0f ? double(beta) * double(to_float(y_old[r])) : 0.0;
      const SpmvRowBound rb = spmv_row_bound<TY>(a, x, r, double(alpha), beta_y_old, chain, w);
      const double products = rb.products, abs_sum = rb.abs_sum, bound = rb.bound;
      const double err = std::abs(got - w);
      if (std::isfinite(got)) {
        c.max_error = std::max(c.max_error, err);
        c.max_bound_ratio = std::max(c.max_bound_ratio, bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0));
        if (!(err <= bound)) bad = "error " + std::to_string(err) + " exceeds bound " + std::to_string(bound);
      } else {
        const double partial_max = (1 + b.gamma(chain + 2)) * std::max(products, abs_sum);
        const bool fp32_may = partial_max >= double(std::numeric_limits<float>::max());
        const bool output_may = std::abs(w) + bound >= double(to_float(std::numeric_limits<TY>::max()));
        if (fp32_may || (output_may && got == (w > 0 ? INFINITY : -INFINITY))) ++c.overflows;
        else bad = "got a non-finite value where fp32 arithmetic cannot overflow (the bound allows at most " +
                   std::to_string(std::abs(w) + bound) + ")";
      }
    }
    if (!bad.empty()) {
      if (c.failures == 0)
        c.first_failure = "row " + std::to_string(r) + ": got " + std::to_string(got) + ", oracle " +
                          std::to_string(w) + ": " + bad;
      ++c.failures;
    }
  }
  return c;
}

}  // namespace warpsparse
