// The exact finite-row padding model equals brute force: every one of the 2^C rows of C ≤ 16
// columns is encoded by the real encoder and its padding read back; Bernoulli moments weight each
// row by d^k (1 − d)^(C − k), exact-k moments average the C(C, k) rows with k nonzeros.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>
#include <vector>

#include "analysis/effd.hpp"
#include "reference/macko/macko_format.hpp"

using namespace warpsparse;
using namespace warpsparse::analysis;

namespace {
// Padding of every mask of a C-column row, from the encoder.
std::vector<std::int64_t> padding_of_all_rows(int C, int delta_bits, bool trailing) {
  std::vector<std::int64_t> pad(std::size_t{1} << C);
  MackoParams p;
  p.delta_bits = delta_bits;
  p.emit_trailing_padding = trailing;
  for (std::uint32_t mask = 0; mask < (1u << C); ++mask) {
    SparseRows<half> m;
    m.cols = C;
    for (int c = 0; c < C; ++c)
      if (mask >> c & 1u) m.push(c, from_float<half>(1.0f));
    m.end_row();
    const auto enc = encode_macko(m, p);
    pad[mask] = enc.padding();
  }
  return pad;
}

// Mean and variance of the padding over all rows, each weighted by d^k (1 − d)^(C − k).
PaddingMoments bernoulli_moments(const std::vector<std::int64_t>& pad, int C, double d) {
  double m1 = 0, m2 = 0;
  for (std::uint32_t mask = 0; mask < pad.size(); ++mask) {
    const int k = std::popcount(mask);
    const double w = std::pow(d, k) * std::pow(1 - d, C - k);
    m1 += w * double(pad[mask]);
    m2 += w * double(pad[mask]) * double(pad[mask]);
  }
  return {m1, m2 - m1 * m1};
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }
}  // namespace

TEST_CASE("exact padding model equals enumeration of all rows", "[exact][enumeration]") {
  const double densities[] = {0.03, 0.2, 0.5, 0.77, 0.95};
  for (const int db : {1, 2, 4}) {
    for (const bool trailing : {false, true}) {
      for (int C = 0; C <= 16; ++C) {
        const auto pad = padding_of_all_rows(C, db, trailing);
        for (const double d : densities) {
          const auto brute = bernoulli_moments(pad, C, d);
          const auto model = exact_padding_bernoulli(C, d, db, trailing);
          INFO("C = " << C << ", d = " << d << ", delta bits " << db << ", trailing " << trailing);
          CHECK(close(model.mean, brute.mean));
          CHECK(close(model.variance, brute.variance));
        }
        for (int k = 0; k <= C; ++k) {
          double s1 = 0, s2 = 0, n = 0;
          for (std::uint32_t mask = 0; mask < pad.size(); ++mask) {
            if (std::popcount(mask) != k) continue;
            s1 += double(pad[mask]);
            s2 += double(pad[mask]) * double(pad[mask]);
            n += 1;
          }
          const auto model = exact_padding_exact_k(C, k, db, trailing);
          INFO("C = " << C << ", k = " << k << ", delta bits " << db << ", trailing " << trailing);
          CHECK(close(model.mean, s1 / n));
          CHECK(close(model.variance, s2 / n - (s1 / n) * (s1 / n)));
          // The worst-case bound holds for every placement and is reached by one.
          std::int64_t worst = 0;
          for (std::uint32_t mask = 0; mask < pad.size(); ++mask)
            if (std::popcount(mask) == k) worst = std::max(worst, pad[mask]);
          if (!trailing) CHECK(worst == worst_padding_exact_k(C, k, db));
        }
      }
    }
  }
}

TEST_CASE("4-bit deltas: enumeration beyond 16 columns, where padding first appears", "[exact][enumeration]") {
  for (const int C : {17, 18, 20}) {
    const auto pad = padding_of_all_rows(C, 4, false);
    std::int64_t total = 0;
    for (const auto p : pad) total += p;
    REQUIRE(total > 0);  // the case is not vacuous
    for (const double d : {0.05, 0.3}) {
      const auto brute = bernoulli_moments(pad, C, d);
      const auto model = exact_padding_bernoulli(C, d, 4);
      CHECK(close(model.mean, brute.mean));
      CHECK(close(model.variance, brute.variance));
    }
  }
}

TEST_CASE("exact model approaches the paper's z/(1-z) term as rows grow", "[exact][asymptotic]") {
  for (const double d : {0.02, 0.1, 0.3}) {
    double prev_err = 1e300;
    for (const std::int64_t C : {256, 1024, 4096, 16384, 65536}) {
      const double exact = exact_padding_bernoulli(C, d, 4).mean;
      const double asym = asymptotic_padding_per_row(C, d, 4);
      const double rel = std::abs(exact - asym) / asym;
      CHECK(exact < asym);  // the dropped trailing run only ever removes padding
      CHECK(rel < prev_err);
      prev_err = rel;
    }
    CHECK(prev_err < 0.01);
  }
}

// The Bernoulli model's first and second moments as sums taken term by term in R (each indicator
// product's probability times its count, as the model's comment derives them): O(C) steps.
namespace {
template <class R>
std::pair<R, R> term_by_term(std::int64_t C, double d, int db, bool trailing) {
  const std::int64_t L = std::int64_t{1} << db;
  R z = 1;
  for (std::int64_t i = 0; i < L; ++i) z *= R(1) - R(d);
  R mean = 0, second = 0, zm = 1;
  for (std::int64_t m = 1; m * L <= C - 1; ++m) {
    zm *= z;
    mean += R(d) * zm * R(C - m * L);
    second += R(d) * R(2 * m - 1) * zm * R(C - m * L);
  }
  R zs = z;
  for (std::int64_t s = 2; C - 1 - s * L >= 1; ++s) {
    zs *= z;
    const R n = R(C - 1 - s * L);
    second += R(d) * R(d) * R(s - 1) * zs * n * (n + 1);
  }
  if (trailing) {
    R zt = 1;
    for (std::int64_t m = 1; m * L <= C; ++m) {
      zt *= z;
      mean += zt;
      second += R(2 * m - 1) * zt;
    }
    R zc = z;
    for (std::int64_t s = 2; C - s * L >= 1; ++s) {
      zc *= z;
      second += 2 * R(d) * R(s - 1) * zc * R(C - s * L);
    }
  }
  return {mean, second};
}
}  // namespace

// Long rows, past what enumeration reaches: the model's O(log C) sums against the same sums taken
// term by term.
TEST_CASE("exact padding model equals its sums taken term by term on long rows", "[exact][sums]") {
  for (const std::int64_t C : {100, 1000, 12345, 100000})
    for (const double d : {1e-4, 0.01, 0.1, 0.5})
      for (const int db : {1, 2, 4, 8})
        for (const bool trailing : {false, true}) {
          const auto [mean, second] = term_by_term<long double>(C, d, db, trailing);
          const auto model = exact_padding_bernoulli(C, d, db, trailing);
          INFO("C = " << C << ", d = " << d << ", delta bits " << db << ", trailing " << trailing);
          CHECK(std::abs(model.mean - double(mean)) <= 1e-12 * std::max(1.0, double(mean)));
          // The variance is a difference of two sums of about mean²: compare on that scale.
          CHECK(std::abs(model.variance - double(second - mean * mean)) <=
                1e-12 * std::max(1.0, double(second)));
        }
}

// With trailing padding a row's padding is nearly fixed ((C − k − R)/L, R the runs' remainders mod
// L), so its variance is small against the sums of about (C/L)² it is the difference of, and must
// keep its digits there: compared on its own scale, against the sums taken term by term in quad
// precision (Bernoulli; exact k >= 2, whose model sums the remainders instead) and against
// whole-number sums over every placement of one nonzero (exact k = 1).
#if defined(__SIZEOF_FLOAT128__)
TEST_CASE("with trailing padding the variance keeps its digits at low density", "[exact][trailing]") {
  for (const std::int64_t C : {1000, 100000, 1000000})
    for (const int db : {1, 4})
      for (const double d : {1e-12, 1e-9, 1e-6, 1e-3}) {
        const auto [mean, second] = term_by_term<__float128>(C, d, db, true);
        const double var = double(second - mean * mean);
        const auto model = exact_padding_bernoulli(C, d, db, true);
        INFO("C = " << C << ", d = " << d << ", delta bits " << db << ": term by term " << var << ", model "
                    << model.variance);
        REQUIRE(var > 0);
        CHECK(std::abs(model.variance - var) <= 1e-9 * var);
        CHECK(std::abs(model.mean - double(mean)) <= 1e-12 * double(mean));
      }
}

// The exact-k sums stop once a geometric bound on the rest of the row is under half an ulp, so
// k = 100 and 1000 stop well before the row's end here, and k = 2 to 10 walk it.
TEST_CASE("exact k: the model's stopped sums equal the run sums taken over the whole row in quad precision",
          "[exact][quad]") {
  using Q = __float128;
  for (const std::int64_t C : {100000, 100003})
    for (const std::int64_t k : {2, 3, 10, 100, 1000})
      for (const int db : {1, 4, 8}) {
        // E⌊g_0/L⌋, E⌊g_0/L⌋², E⌊g_0/L⌋⌊g_1/L⌋ from P(g_0 >= j) = C(C − j, k)/C(C, k) and
        // P(g_0 >= a, g_1 >= b) = C(C − a − b, k)/C(C, k), over the k runs in front of the nonzeros,
        // and the k + 1 runs with the trailing one.
        const std::int64_t L = std::int64_t{1} << db;
        Q e1 = 0, e2 = 0, cross = 0, ratio = 1;
        std::int64_t j = 0;
        for (std::int64_t m = 1; m * L <= C; ++m) {
          for (; j < m * L; ++j) ratio = j < C - k ? ratio * Q(C - k - j) / Q(C - j) : Q(0);
          e1 += ratio;
          e2 += Q(2 * m - 1) * ratio;
          if (m >= 2) cross += Q(m - 1) * ratio;
        }
        for (const bool trailing : {false, true}) {
          const Q r = Q(trailing ? k + 1 : k), mean = r * e1,
                  var = r * e2 + r * (r - 1) * cross - mean * mean;
          const auto model = exact_padding_exact_k(C, k, db, trailing);
          INFO("C = " << C << ", k = " << k << ", delta bits " << db << ", trailing " << trailing
                      << ": run sums " << double(var) << ", model " << model.variance);
          CHECK(std::abs(model.mean - double(mean)) <= 1e-12 * double(mean));
          CHECK(std::abs(model.variance - double(var)) <= 1e-9 * double(var));
        }
      }
}
#endif

TEST_CASE("exact k = 1 with trailing padding: moments equal whole-number sums over every placement",
          "[exact][trailing]") {
  for (const std::int64_t C : {1000000, 1000007})
    for (const int db : {1, 2, 4, 8}) {
      const std::int64_t L = std::int64_t{1} << db;
      // One nonzero at j: the run in front of it and the trailing run after it. The sums are of
      // p − p0, which is -1 or 0, so C² · variance stays a whole number within 64 bits.
      const std::int64_t p0 = (C - 1) / L;
      std::int64_t s1 = 0, s2 = 0;
      for (std::int64_t j = 0; j < C; ++j) {
        const std::int64_t p = j / L + (C - 1 - j) / L - p0;
        s1 += p;
        s2 += p * p;
      }
      const double var = double(C * s2 - s1 * s1) / (double(C) * double(C));
      const double mean = double(p0) + double(s1) / double(C);
      const auto model = exact_padding_exact_k(C, 1, db, true);
      INFO("C = " << C << ", delta bits " << db << ": whole-number variance " << var << ", model "
                  << model.variance);
      CHECK(std::abs(model.mean - mean) <= 1e-12 * mean);
      CHECK(std::abs(model.variance - var) <= 1e-9 * std::max(var, 1.0 / double(L)));
    }
}
