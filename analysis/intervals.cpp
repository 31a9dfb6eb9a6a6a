#include "analysis/intervals.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <string>

#include "reference/common/error.hpp"

namespace warpsparse::analysis {

void require_confidence(double confidence) {
  require(confidence > 0 && confidence <= kMaxConfidence,
          fmt::format("confidence must lie in (0, {}], got {}", kMaxConfidence, confidence));
}

namespace {

void check(std::int64_t k, std::int64_t n, double confidence) {
  require(n >= 1 && k >= 0 && k <= n,
          "a proportion needs 0 <= k <= n and n >= 1 (k = " + std::to_string(k) + ", n = " + std::to_string(n) + ")");
  require_confidence(confidence);
}

}  // namespace

Bounds clopper_pearson(std::int64_t k, std::int64_t n, double confidence) {
  check(k, n, confidence);
  const double a = (1 - confidence) / 2;
  Bounds b;
  b.lo = k == 0 ? 0.0 : boost::math::quantile(boost::math::beta_distribution<>(double(k), double(n - k + 1)), a);
  b.hi = k == n ? 1.0 : boost::math::quantile(boost::math::beta_distribution<>(double(k + 1), double(n - k)), 1 - a);
  return b;
}

Bounds wilson(std::int64_t k, std::int64_t n, double confidence) {
  check(k, n, confidence);
  const double z = boost::math::quantile(boost::math::complement(boost::math::normal(), (1 - confidence) / 2));
  const double nn = double(n), p = double(k) / nn, z2 = z * z;
  const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = z / (1 + z2 / nn) * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Bounds poisson(double count, double confidence) {
  require(std::isfinite(count) && count >= 0, "a Poisson count must be finite and non-negative");
  require_confidence(confidence);
  const double a = (1 - confidence) / 2;
  // Garwood: the chi-square quantiles 2k and 2(k+1) degrees of freedom, halved, are the gamma
  // quantiles with shape k and k + 1.
  return {count > 0 ? boost::math::gamma_p_inv(count, a) : 0.0, boost::math::gamma_p_inv(count + 1, 1 - a)};
}

Bounds count_mean(double sum, double sum_sq, std::int64_t units, double confidence) {
  require(units >= 1, "a mean needs at least one unit");
  require(sum >= 0 && sum_sq >= 0, "counts must be non-negative");
  const double n = double(units), mean = sum / n;
  const double var = units > 1 ? std::max(0.0, (sum_sq - sum * mean) / (n - 1)) : 0.0;
  const double phi = mean > 0 ? std::max(1.0, var / mean) : 1.0;
  const Bounds c = poisson(sum / phi, confidence);
  return {c.lo * phi / n, c.hi * phi / n};
}

}  // namespace warpsparse::analysis
