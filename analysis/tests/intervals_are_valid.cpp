// The intervals of analysis/intervals.hpp: known values, the properties the reports rely on (never
// outside the range, not [0, 0] after zero events) and their coverage, simulated.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "analysis/intervals.hpp"
#include "analysis/padding_study.hpp"

using namespace warpsparse::analysis;

TEST_CASE("intervals match published values", "[intervals]") {
  // Zero events: the exact upper bounds are the "rule of three" values.
  CHECK(poisson(0).lo == 0.0);
  CHECK(poisson(0).hi == Approx(3.6889).epsilon(1e-4));
  CHECK(poisson(10).lo == Approx(4.7954).epsilon(1e-4));
  CHECK(poisson(10).hi == Approx(18.3904).epsilon(1e-4));
  CHECK(clopper_pearson(0, 10).hi == Approx(0.30850).epsilon(1e-4));
  CHECK(clopper_pearson(5, 10).lo == Approx(0.18709).epsilon(1e-4));
  CHECK(clopper_pearson(5, 10).hi == Approx(0.81291).epsilon(1e-4));
  CHECK(wilson(5, 10).lo == Approx(0.23659).epsilon(1e-4));
  CHECK(wilson(0, 20).lo == 0.0);
  CHECK(wilson(0, 20).hi == Approx(0.16113).epsilon(1e-4));
  CHECK_THROWS(clopper_pearson(3, 2));
  CHECK_THROWS(poisson(-1));
  // Up to the highest level taken, every interval is finite; just past 1 the gamma quantile
  // overflowed, so such levels are refused by value.
  for (const double c : {0.5, 0.999, kMaxConfidence}) {
    CHECK(std::isfinite(poisson(3, c).hi));
    CHECK(std::isfinite(clopper_pearson(0, 10, c).hi));
    CHECK(std::isfinite(count_mean(5, 9, 3, c).hi));
  }
  for (const double c : {0.0, 0.9999999999999999, 1.0, -0.5})
    CHECK_THROWS_WITH(poisson(3, c), Catch::Contains("confidence must lie in (0, 0.999999]"));
}

TEST_CASE("count means: never negative, not [0, 0], normal-like with many events", "[intervals]") {
  const Bounds none = count_mean(0, 0, 1000);
  CHECK(none.lo == 0.0);
  CHECK(none.hi > 0.0);
  const Bounds few = count_mean(2, 2, 1000);  // two rows with one padding element each
  CHECK(few.lo > 0.0);
  CHECK(few.lo < 0.002);
  CHECK(few.hi > 0.002);
  // Many events: within 2 % of the normal interval's half-width.
  const double n = 10000, mean = 3, var = 6;
  const Bounds many = count_mean(mean * n, (var + mean * mean) * (n - 1) + mean * mean, 10000);
  const double half = 1.959964 * std::sqrt(var / n);
  CHECK((many.hi - many.lo) / 2 == Approx(half).epsilon(0.02));
}

TEST_CASE("count-mean intervals cover a rare, clumped count at their level", "[intervals][coverage]") {
  // Rows pad with probability q, one element usually and two sometimes (as MACKO's rare padding
  // does: a second element needs a gap twice as long); 2000 draws of 500 rows each. With clumps of
  // 1-3 elements uniformly and ~2.5 padded rows expected, the estimated over-dispersion is too noisy
  // and the coverage falls to about 89 % (measured with this test's generator): the interval is
  // nominal only where clumps are mostly single or events many.
  std::mt19937_64 rng(12345);
  for (const double q : {0.0005, 0.005, 0.05}) {
    std::bernoulli_distribution padded(q), two(0.1);
    const double truth = q * 1.1;
    int covered = 0;
    const int trials = 2000;
    for (int t = 0; t < trials; ++t) {
      double sum = 0, sq = 0;
      for (int r = 0; r < 500; ++r) {
        const int p = padded(rng) ? (two(rng) ? 2 : 1) : 0;
        sum += p;
        sq += double(p) * p;
      }
      const Bounds b = count_mean(sum, sq, 500);
      REQUIRE(b.lo >= 0.0);
      REQUIRE(b.hi > 0.0);
      covered += b.lo <= truth && truth <= b.hi;
    }
    INFO("q = " << q << ": covered " << covered << " of " << trials);
    CHECK(covered >= int(0.93 * trials));
  }
}

TEST_CASE("the padding study's intervals stay valid where padding is rare", "[intervals][monte-carlo]") {
  StudyConfig cfg;
  cfg.pattern.kind = Pattern::bernoulli;
  cfg.densities = default_densities(20);
  cfg.rows = 500;
  cfg.cols = 4096;
  cfg.seed = 99;
  CHECK(cfg.densities.back() == 1.0);
  CHECK(cfg.densities.front() == 0.01);
  for (const auto& p : run_padding_study(cfg)) {
    INFO("d = " << p.density << ": [" << p.pad_lo << ", " << p.pad_hi << "], exact " << p.exact_mean);
    CHECK(p.pad_lo >= 0.0);
    CHECK(p.pad_lo <= p.pad_mean);
    CHECK(p.pad_mean <= p.pad_hi);
    if (p.exact_mean > 0) CHECK(p.pad_hi > 0.0);
  }
}
