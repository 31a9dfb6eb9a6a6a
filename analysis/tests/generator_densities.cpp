// Every pattern family produces the density it promises.
//   * exact families (exact_nnz, magnitude_row, magnitude_heavy, 2:4, 4:8): every row has exactly
//     its nonzero count, and N:M holds in every group;
//   * random families (bernoulli, row_varying, clustered, magnitude_matrix): rows are i.i.d. with
//     mean density d, so the mean of the row densities lies within a 99.9% t interval of d.
// False-alarm rate: 0.1% per statistical check, 12 checks: ≤ 1.2% for a random seed (seeds fixed).
#include <catch2/catch.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "analysis/patterns.hpp"

using namespace warpsparse;
using namespace warpsparse::analysis;

TEST_CASE("random families have the requested mean density", "[patterns][statistical]") {
  const std::int64_t R = 600, C = 1000;
  for (const Pattern pat : {Pattern::bernoulli, Pattern::row_varying, Pattern::clustered, Pattern::magnitude_matrix}) {
    for (const double d : {0.05, 0.4, 0.85}) {
      PatternSpec spec{pat, d, 0.0};
      double s = 0, s2 = 0;
      for (std::int64_t r = 0; r < R; ++r) {
        const double x = double(pattern_row(spec, C, 99, r).size()) / double(C);
        s += x;
        s2 += x * x;
      }
      const double mean = s / R, var = (s2 - s * mean) / (R - 1);
      const boost::math::students_t t(double(R - 1));
      const double half = boost::math::quantile(boost::math::complement(t, 0.0005)) * std::sqrt(var / R);
      INFO(to_string(pat) << " d = " << d << ": mean row density " << mean << " ± " << half);
      CHECK(std::abs(mean - d) <= half);
      CHECK(var > 0);  // a random family really varies
    }
  }
}

TEST_CASE("row_varying and clustered differ from Bernoulli the way they should", "[patterns][statistical]") {
  const std::int64_t R = 400, C = 2000;
  const double d = 0.3;
  auto row_density_var = [&](Pattern p) {
    double s = 0, s2 = 0;
    for (std::int64_t r = 0; r < R; ++r) {
      const double x = double(pattern_row({p, d, 0.0}, C, 5, r).size()) / double(C);
      s += x;
      s2 += x * x;
    }
    return (s2 - s * s / R) / (R - 1);
  };
  // Beta(6, 14) rows: variance d(1 − d)/21 = 0.01 ≫ Bernoulli's d(1 − d)/C ≈ 1e-4.
  CHECK(row_density_var(Pattern::row_varying) > 20 * row_density_var(Pattern::bernoulli));
  // Clustered: mean zero-run length 2/d by default, against 1/d for Bernoulli.
  double runs = 0, zeros = 0;
  for (std::int64_t r = 0; r < R; ++r) {
    const auto idx = pattern_row({Pattern::clustered, d, 0.0}, C, 5, r);
    std::int64_t prev = -1;
    for (const auto c : idx) {
      if (c - prev - 1 > 0) { runs += 1; zeros += double(c - prev - 1); }
      prev = c;
    }
  }
  CHECK(zeros / runs == Approx(2.0 / d).epsilon(0.05));
}

TEST_CASE("exact families have exactly their nonzero counts", "[patterns]") {
  const std::int64_t C = 1003;  // not a multiple of 4 or 8: a ragged last group
  for (const Pattern pat : {Pattern::exact_nnz, Pattern::magnitude_row, Pattern::magnitude_heavy}) {
    for (const double d : {0.0, 0.1, 0.5, 1.0}) {
      for (std::int64_t r = 0; r < 20; ++r) {
        const auto idx = pattern_row({pat, d, 0.0}, C, 3, r);
        REQUIRE(static_cast<std::int64_t>(idx.size()) == std::llround(d * C));
        for (std::size_t i = 1; i < idx.size(); ++i) REQUIRE(idx[i] > idx[i - 1]);
      }
    }
  }
  for (const auto& [pat, n, m] : {std::tuple{Pattern::nm_2_4, 2, 4}, std::tuple{Pattern::nm_4_8, 4, 8}}) {
    for (std::int64_t r = 0; r < 20; ++r) {
      const auto idx = pattern_row({pat, 0.5, 0.0}, C, 3, r);
      std::vector<int> per_group((C + m - 1) / m, 0);
      for (const auto c : idx) ++per_group[c / m];
      for (std::size_t g = 0; g + 1 < per_group.size(); ++g) REQUIRE(per_group[g] == n);
      const int last = static_cast<int>(C % m);
      REQUIRE(per_group.back() == std::lround(double(last) * n / m));
    }
  }
}

TEST_CASE("magnitude families keep the largest scores", "[patterns]") {
  // Per-row pruning with column scales concentrates nonzeros in high-scale columns: over many
  // rows, column occupancy must vary far more than Bernoulli's binomial spread.
  const std::int64_t R = 300, C = 500;
  std::vector<int> occ(C, 0);
  for (std::int64_t r = 0; r < R; ++r)
    for (const auto c : pattern_row({Pattern::magnitude_row, 0.3, 0.0}, C, 11, r)) ++occ[c];
  double s = 0, s2 = 0;
  for (const int o : occ) { s += o; s2 += double(o) * o; }
  const double var = (s2 - s * s / C) / (C - 1);
  CHECK(var > 5 * R * 0.3 * 0.7);
}
