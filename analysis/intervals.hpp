// Confidence intervals for what the Monte Carlo studies and reports estimate: proportions (rows
// with padding, cases that pass), counts of rare events (padding elements) and means of
// non-negative counts (padding per row). Every interval here lies inside the range of what it
// estimates (never below 0, never above 1 for a proportion) and is not [0, 0] after zero events,
// which a normal-approximation interval gets wrong exactly where the reports need it: at high
// density, where padding is rare.
#pragma once
#include <cstdint>

namespace warpsparse::analysis {

struct Bounds {
  double lo = 0, hi = 0;
};

// The highest two-sided level taken: beyond it the tail quantiles leave double's range (at
// 1 - 1e-16 the gamma quantile overflows), and no study here needs more than 4.9 sigma.
inline constexpr double kMaxConfidence = 0.999999;

// Throws Error unless 0 < confidence <= kMaxConfidence, naming the value.
void require_confidence(double confidence);

// Exact (Clopper-Pearson) interval for a binomial proportion: k successes in n trials.
Bounds clopper_pearson(std::int64_t k, std::int64_t n, double confidence = 0.95);

// Wilson score interval for a binomial proportion (narrower than Clopper-Pearson, close to its
// nominal coverage); used where a proportion is shown beside many others.
Bounds wilson(std::int64_t k, std::int64_t n, double confidence = 0.95);

// Exact (Garwood) interval for the mean of a Poisson count observed as `count`; a non-integer count
// is allowed (the chi-square quantiles are continuous in it), which the quasi-Poisson form uses.
Bounds poisson(double count, double confidence = 0.95);

// Interval for the mean of a non-negative count per unit (padding elements per row) from its sum,
// sum of squares and the number of units. Quasi-Poisson: the sum is treated as phi times a Poisson
// count of sum / phi, with phi = max(1, sample variance / mean) the measured over-dispersion (padding
// comes in runs when a gap needs several padding elements). With many events this tends to the
// normal interval of the mean; with few it is the exact Poisson interval, so it is never negative
// and its upper end stays above 0 after zero events.
Bounds count_mean(double sum, double sum_sq, std::int64_t units, double confidence = 0.95);

}  // namespace warpsparse::analysis
