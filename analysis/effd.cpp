#include "analysis/effd.hpp"

#include <algorithm>
#include <array>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/macko/macko_layout.hpp"
#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse::analysis {

namespace {
using Real = long double;  // the variance is a difference of two large sums
// With trailing padding that difference is far larger still, and the Bernoulli model takes it in
// quad precision where the compiler has it (exact_padding_bernoulli says why).
#if defined(__SIZEOF_FLOAT128__)
using Quad = __float128;
#else
using Quad = long double;
#endif

std::int64_t run_length(int delta_bits) { return std::int64_t{1} << delta_bits; }  // L = 2^b_Δ

double storage_fraction(double bits, const StorageConfig& c) {
  return bits / (double(c.shape.rows) * double(c.shape.cols) * c.value_bits);
}
double row_pointer_bits(const Shape& s) { return 32.0 * double(s.rows + 1); }

// MACKO bits for a given expected number of emitted elements (nonzeros + padding), with the
// value and delta arrays rounded up to the alignment unit as the encoder does.
double macko_bits(double emitted, const StorageConfig& c) {
  const double u = macko::align_unit(c.delta_bits);
  const double padded = std::ceil(emitted / u) * u;
  return padded * (c.value_bits + c.delta_bits) + row_pointer_bits(c.shape);
}
}  // namespace

void StorageConfig::validate() const {
  require(macko::valid_value_bits(value_bits), "value bits must be 8, 16 or 32, got " + std::to_string(value_bits));
  require(macko::valid_delta_bits(delta_bits), "delta bits must be 1, 2, 4 or 8, got " + std::to_string(delta_bits));
  require(shape.rows >= 0 && shape.cols >= 0, "negative shape");
  // The exact padding model sums over a row's columns: bounding the width by what a MACKO column
  // index can address also bounds its time (seconds at the limit).
  require(shape.cols <= kMaxCols, "cols = " + std::to_string(shape.cols) +
                                      " exceeds 2^31 - 1, the widest row a MACKO column index addresses");
  require(shape.rows <= kMaxCols, "rows = " + std::to_string(shape.rows) + " exceeds 2^31 - 1");
  require(tile_rows > 0 && tile_cols > 0, "Tiled-CSL tiles must be non-empty");
}

double run_probability(double d, int delta_bits) {
  return std::pow(1.0 - d, double(run_length(delta_bits)));
}

double macko_best_printed(double d, int vb, int db) { return d * double(vb + db) / vb; }

double macko_expected_printed(double d, int vb, int db) {
  const double z = run_probability(d, db);
  if (z >= 1.0) return 0.0;  // d = 0: nothing stored (the limit of d·z/(1−z) is 1/2^b_Δ only per zero run)
  return d * (1.0 + z / (1.0 - z)) * double(vb + db) / vb;
}

double macko_worst_printed(double d, int vb, int db) {
  return (d + (1.0 - d) / double(run_length(db))) * double(vb + db) / vb;
}

MackoEffd macko_effd(double d, const StorageConfig& c) {
  c.validate();
  require(d >= 0.0 && d <= 1.0, "density must lie in [0, 1]");
  if (!c.shape.bounded())
    return {macko_best_printed(d, c.value_bits, c.delta_bits), macko_expected_printed(d, c.value_bits, c.delta_bits),
            macko_worst_printed(d, c.value_bits, c.delta_bits)};
  const double R = double(c.shape.rows), C = double(c.shape.cols);
  const double nnz = d * R * C;
  const auto k = static_cast<std::int64_t>(std::llround(d * C));
  const double exp_pad = exact_padding_bernoulli(c.shape.cols, d, c.delta_bits).mean;
  const double worst_pad = double(worst_padding_exact_k(c.shape.cols, k, c.delta_bits));
  return {storage_fraction(macko_bits(nnz, c), c), storage_fraction(macko_bits(nnz + R * exp_pad, c), c),
          storage_fraction(macko_bits(nnz + R * worst_pad, c), c)};
}

std::string format_name(Format f) {
  switch (f) {
    case Format::dense: return "dense";
    case Format::csr32: return "CSR32";
    case Format::csr16: return "CSR16";
    case Format::bitmask: return "bitmask";
    case Format::tiled_csl: return "Tiled-CSL";
    case Format::q8: return "Q8";
    case Format::q4: return "Q4";
    case Format::macko_best: return "MACKO best";
    case Format::macko_expected: return "MACKO expected";
    case Format::macko_worst: return "MACKO worst";
  }
  return "?";
}

std::vector<Format> all_formats() {
  return {Format::dense, Format::csr32, Format::csr16, Format::bitmask, Format::tiled_csl,
          Format::q8,    Format::q4,    Format::macko_best, Format::macko_expected, Format::macko_worst};
}

double format_effd(Format f, double d, const StorageConfig& c) {
  c.validate();
  const double vb = c.value_bits;
  const bool kept = c.shape.bounded();
  const double R = double(c.shape.rows), C = double(c.shape.cols);
  const double nnz = d * R * C;
  switch (f) {
    case Format::dense: return 1.0;
    case Format::q8: return 8.0 / vb;
    case Format::q4: return 4.0 / vb;
    case Format::csr32:
      return kept ? storage_fraction(nnz * (vb + 32) + row_pointer_bits(c.shape), c) : d * (32 + vb) / vb;
    case Format::csr16:
      return kept ? storage_fraction(nnz * (vb + 16) + row_pointer_bits(c.shape), c) : d * (16 + vb) / vb;
    case Format::bitmask:
      return kept ? storage_fraction(nnz * vb + std::ceil(R * C / 8.0) * 8.0, c) : d + 1.0 / vb;
    case Format::tiled_csl: {
      if (!kept) return d * (16 + vb) / vb;
      // NOTE: paper eq. 6 prints the tile-offset term as 32·NT/(R·C) bits per element without
      // dividing by b_val; as a fraction of the dense bits it is 32·NT/(R·C·b_val).
      const double nt = std::ceil(R / double(c.tile_rows)) * std::ceil(C / double(c.tile_cols));
      return storage_fraction(nnz * (16 + vb) + 32.0 * nt, c);
    }
    case Format::macko_best: return macko_effd(d, c).best;
    case Format::macko_expected: return macko_effd(d, c).expected;
    case Format::macko_worst: return macko_effd(d, c).worst;
  }
  return 0.0;
}

namespace {

// x^n by squaring (n >= 0), for any of the floating types here (std::pow has no quad overload).
template <class R>
R power(R x, std::int64_t n) {
  R r = 1;
  for (; n > 0; n >>= 1, x *= x)
    if (n & 1) r *= x;
  return r;
}

// Σ_{m=lo}^{hi} p(m)·z^m for the cubic p(m) = c[0] + c[1]·m + c[2]·m² + c[3]·m³ (0 when hi < lo),
// in O(log hi) steps, as z^lo·Σ_{i=0}^{hi-lo} q(i)·z^i with q(i) = p(lo + i): subtracting the terms
// below lo instead would cancel them against the sum, all of it when z is small. The power sums
// P_k(n) = Σ_{i<n} i^k·z^i double as P_k(2n) = P_k(n) + z^n·Σ_{j<=k} C(k, j)·n^(k-j)·P_j(n), one term
// added per set bit of n. Their terms are all non-negative, so they carry no cancellation; the
// closed forms in 1/(1 − z)^k lose every digit as z → 1 (d → 0), and a loop over m takes seconds
// at 2^31 columns. What cancels is the combination with q's coefficients, a few bits for the
// polynomials below, which are >= 0 on [lo, hi].
template <class Real>
Real cubic_geometric_sum(Real z, std::int64_t lo, std::int64_t hi, const std::array<Real, 4>& c) {
  if (hi < lo) return 0;
  const Real l = Real(lo);
  const std::array<Real, 4> q{c[0] + l * (c[1] + l * (c[2] + l * c[3])), c[1] + l * (2 * c[2] + 3 * l * c[3]),
                              c[2] + 3 * l * c[3], c[3]};
  const std::int64_t n = hi - lo + 1;
  std::array<Real, 4> P{0, 0, 0, 0};
  Real zn = 1;  // z^cur
  std::int64_t cur = 0;
  for (int bit = 62; bit >= 0; --bit) {
    if (cur > 0) {
      const Real x = Real(cur), x2 = x * x, x3 = x2 * x;
      const std::array<Real, 4> Q = P;
      P[0] = Q[0] + zn * Q[0];
      P[1] = Q[1] + zn * (Q[1] + x * Q[0]);
      P[2] = Q[2] + zn * (Q[2] + 2 * x * Q[1] + x2 * Q[0]);
      P[3] = Q[3] + zn * (Q[3] + 3 * x * Q[2] + 3 * x2 * Q[1] + x3 * Q[0]);
      zn *= zn;
      cur *= 2;
    }
    if ((n >> bit) & 1) {
      const Real x = Real(cur);
      P[0] += zn;
      P[1] += x * zn;
      P[2] += x * x * zn;
      P[3] += x * x * x * zn;
      zn *= z;
      ++cur;
    }
  }
  return power(z, lo) * (q[0] * P[0] + q[1] * P[1] + q[2] * P[2] + q[3] * P[3]);
}

// ----- Exact finite-row model -------------------------------------------------------------------
// Write the padding of a row as a sum of indicators: A(j,k) = "column j is nonzero and the k·L
// columns before it are zero" (k·L ≤ j) contributes one padding element, since a zero run g in
// front of a nonzero costs ⌊g/L⌋ = #{k ≥ 1 : k·L ≤ g}. With trailing padding the run after the
// last nonzero adds T(k) = "the last k·L columns are zero". The moments are sums of products of
// these indicators; two A's at different columns are independent when their column sets are
// disjoint and impossible together otherwise, which gives the sums below: each a cubic in m (or
// s) times z^m, summed by cubic_geometric_sum.
template <class Real>
PaddingMoments bernoulli_moments(std::int64_t cols, double d, int delta_bits, bool trailing) {
  const std::int64_t L = run_length(delta_bits), C = cols;
  const Real z = power(Real(1) - Real(d), L), dd = d, RC = Real(C), RL = Real(L);
  Real mean = 0, second = 0;
  if (dd > 0 && C >= 1) {
    // Single indicators and A·A at the same column (A(j,k)·A(j,k') = A(j, max k)), m = 1 .. ⌊(C − 1)/L⌋:
    // C − m·L columns j with j ≥ m·L, and 2m − 1 ordered pairs (k, k') with max m.
    const std::int64_t M = (C - 1) / L;
    mean += dd * cubic_geometric_sum(z, 1, M, {RC, -RL, 0, 0});
    second += dd * cubic_geometric_sum(z, 1, M, {-RC, 2 * RC + RL, -2 * RL, 0});  // (2m − 1)(C − mL)
  }
  if (dd > 0 && C >= 2) {
    // A(j,k)·A(j',k') with j < j' − k'·L: depends on s = k + k' only; the number of column pairs is
    // N(N+1)/2 with N = C − 1 − s·L >= 1, and there are s − 1 splits of s: 2·d²·Σ (s − 1)·z^s·N(N+1)/2.
    const Real a = RC - 1;
    const std::array<Real, 4> c{-a * (a + 1), a * (a + 1) + RL * (2 * a + 1), -(RL * (2 * a + 1) + RL * RL),
                                RL * RL};
    second += dd * dd * cubic_geometric_sum(z, 2, (C - 2) / L, c);
  }
  if (trailing && dd == 0) {
    // d = 0: every T(m) holds, m = 1..M: the sums of 1 and of 2m - 1.
    const Real M = Real(C / L);
    mean += M;
    second += M * M;
  } else if (trailing) {
    // T(m), m = 1 .. ⌊C/L⌋, and T·T.
    mean += cubic_geometric_sum(z, 1, C / L, {1, 0, 0, 0});
    second += cubic_geometric_sum(z, 1, C / L, {-1, 2, 0, 0});
    // A(j,k)·T(k'): column j must lie before the trailing block: C − s·L >= 1 columns j, s − 1 splits.
    if (C >= 1) second += 2 * dd * cubic_geometric_sum(z, 2, (C - 1) / L, {-RC, RC + RL, -RL, 0});
  }
  const Real var = second - mean * mean;
  return {double(mean), double(var < 0 ? 0 : var)};
}

}  // namespace

// With trailing padding every zero run costs ⌊g/L⌋ and the runs fill the row, so the padding is
// (C − K − R)/L, K the nonzeros and R the runs' remainders mod L: it stays within about K of ⌊C/L⌋,
// and its variance (about C·d where C·d is small: one nonzero moves it by about one) is a difference
// of two sums of about (C/L)². A long double kept no digit of it at C = 10^6, L = 2, d = 10^-12, and
// was 185 % off at d = 10^-9 (against the sums taken term by term in quad precision). Quad precision
// loses as many bits but has 49 more, and its sums here are O(log C) steps. Without trailing
// padding the sums are of about C·d·(C/L)², and the long double kept the variance to 4e-12 from
// C = 10^3 to 10^6, d = 10^-12 to 0.9, every delta width.
PaddingMoments exact_padding_bernoulli(std::int64_t cols, double d, int delta_bits, bool trailing) {
  require(cols >= 0, "cols must be non-negative");
  require(d >= 0.0 && d <= 1.0, "density must lie in [0, 1]");
  require(macko::valid_delta_bits(delta_bits), "delta bits must be 1, 2, 4 or 8");
  return trailing ? bernoulli_moments<Quad>(cols, d, delta_bits, true)
                  : bernoulli_moments<Real>(cols, d, delta_bits, false);
}

// With exactly k nonzeros the k + 1 zero runs (before each nonzero, and the trailing one) are
// exchangeable; P(run_0 ≥ m) = C(C − m, k)/C(C, k) and P(run_0 ≥ a, run_1 ≥ b) = C(C − a − b, k)/C(C, k).
// With trailing padding all k + 1 runs cost ⌊g/L⌋ and fill the row, so the padding is (C − k − R)/L
// with R = Σ r_i, r_i = g_i mod L, as in exact_padding_bernoulli; the variance, Var(R)/L², is then
// summed from the remainders' moments, O(L²) terms that cannot cancel by more than a factor of about
// k. The sums of ⌊g/L⌋ (the case without trailing padding, below) would be of about (C/L)² here and
// cancel: in long double they were 2e-5 off at C = 10^6, L = 2, k = 2, and gave 9.4e-6 where the
// variance is 0 (k = 1); in quad precision they were right but took 230 s at C = 2^31, against 3 s
// for the remainders.
namespace {
// The sums below walk a row term by term, each term a probability that shrinks at least by a fixed
// factor q per step times a weight that grows by at most s per step. Σ_{i>=0} (w + s·i)·q^i bounds
// what is left from the next term (weight w) on; once that is under a quarter of the sum's epsilon
// (below half an ulp), no later term can round the sum to another value, and the walk stops there
// instead of at the end of a row of up to 2^31 columns.
Real weighted_geometric(Real w, Real s, Real q) { return w / (1 - q) + s * q / ((1 - q) * (1 - q)); }
bool negligible(Real rest, Real sum) { return rest < sum * (std::numeric_limits<Real>::epsilon() / 4); }

PaddingMoments exact_k_trailing(std::int64_t C, std::int64_t k, std::int64_t L) {
  if (k == 0) return {double(C / L), 0.0};
  // P(g_0 = a) = C(C − a − 1, k − 1)/C(C, k), a = 0 .. C − k: k/C at 0, then times (C − a − k)/(C − a − 1).
  // Each step's factor is at most q1 = 1 − (k − 1)/(C − 1), and r <= L − 1 (k = 1: uniform, no stop).
  Real p = Real(k) / Real(C), m1 = 0, m2 = 0;
  const Real rest1 = k >= 2 ? weighted_geometric(Real(L - 1), 0, 1 - Real(k - 1) / Real(C - 1)) : 0;
  for (std::int64_t a = 0; a <= C - k; ++a) {
    const Real r = Real(a & (L - 1));
    m1 += p * r;
    m2 += p * r * r;
    if (a < C - k) p *= Real(C - a - k) / Real(C - a - 1);
    if (k >= 2 && negligible(p * rest1, m1) && negligible(p * rest1 * Real(L - 1), m2)) break;
  }
  // W(s) = Σ_{a+b=s} (a mod L)(b mod L): with s = n·L + t, the a ≡ α (mod L) up to s are n + 1 for
  // α ≤ t (b ≡ t − α) and n for α > t (b ≡ t − α + L), so W = (n + 1)·A(t) + n·B(t).
  std::vector<Real> A(static_cast<std::size_t>(L), 0), B(static_cast<std::size_t>(L), 0);
  for (std::int64_t t = 0; t < L; ++t)
    for (std::int64_t al = 0; al < L; ++al)
      (al <= t ? A[t] : B[t]) += Real(al <= t ? al * (t - al) : al * (t - al + L));
  auto W = [&](std::int64_t s) { return Real(s / L + 1) * A[s & (L - 1)] + Real(s / L) * B[s & (L - 1)]; };
  // E[r_0 r_1]: with k = 1 the two runs are g_0 and C − 1 − g_0, each g_0 = a with 1/C; with k >= 2,
  // P(g_0 = a, g_1 = b) = C(C − s − 2, k − 2)/C(C, k) for s = a + b = 0 .. C − k: k(k − 1)/(C(C − 1)) at 0,
  // then times (C − s − k)/(C − s − 2).
  Real m11 = 0;
  if (k == 1) {
    m11 = W(C - 1) / Real(C);
  } else {
    // Each step's factor is at most q2 = 1 − (k − 2)/(C − 2), and W(s) <= (s + 1)(L − 1)² (k = 2: no stop).
    Real q = Real(k) * Real(k - 1) / (Real(C) * Real(C - 1));
    const Real q2 = k >= 3 ? 1 - Real(k - 2) / Real(C - 2) : 1, w2 = Real(L - 1) * Real(L - 1);
    for (std::int64_t s = 0; s <= C - k; ++s) {
      m11 += q * W(s);
      if (s < C - k) q *= Real(C - s - k) / Real(C - s - 2);
      if (k >= 3 && negligible(q * w2 * weighted_geometric(Real(s + 2), 1, q2), m11)) break;
    }
  }
  const Real runs = Real(k + 1), RL = Real(L);
  const Real var_r = runs * (m2 - m1 * m1) + runs * Real(k) * (m11 - m1 * m1);
  return {double((Real(C - k) - runs * m1) / RL), double(std::max(var_r, Real(0)) / (RL * RL))};
}
}  // namespace

PaddingMoments exact_padding_exact_k(std::int64_t cols, std::int64_t k, int delta_bits, bool trailing) {
  require(cols >= 0 && k >= 0 && k <= cols, "need 0 <= k <= cols");
  require(macko::valid_delta_bits(delta_bits), "delta bits must be 1, 2, 4 or 8");
  const std::int64_t L = run_length(delta_bits), C = cols;
  if (trailing) return exact_k_trailing(C, k, L);
  if (k == 0) return {0.0, 0.0};
  // ratio(j) = C(C − j, k)/C(C, k), 0 once C − j < k, taken at j = m·L in one pass (no table of C
  // entries: 32 GiB at C = 2^31). Each step of j multiplies it by 1 − k/(C − j) <= 1 − k/C, so from
  // one m to the next by at most q0 = (1 − k/C)^L.
  Real e1 = 0, e2 = 0, cross = 0;  // E f(run0), E f(run0)², E f(run0) f(run1)
  Real ratio = 1;
  const Real q0 = power(1 - Real(k) / Real(C), L), rest0 = weighted_geometric(1, 0, q0);
  std::int64_t j = 0;
  for (std::int64_t m = 1; m * L <= C; ++m) {
    for (; j < m * L; ++j) ratio = j < C - k ? ratio * Real(C - k - j) / Real(C - j) : Real(0);
    if (ratio == 0) break;
    e1 += ratio;
    e2 += Real(2 * m - 1) * ratio;
    if (m >= 2) cross += Real(m - 1) * ratio;  // s = m
    const Real next = ratio * q0;              // bounds the term at m + 1
    if (negligible(next * rest0, e1) && negligible(next * weighted_geometric(Real(2 * m + 1), 2, q0), e2) &&
        negligible(next * weighted_geometric(Real(m), 1, q0), cross))
      break;
  }
  const Real r = Real(k);
  const Real mean = r * e1;
  const Real second = r * e2 + r * (r - 1) * cross;
  const Real var = second - mean * mean;
  return {double(mean), double(var < 0 ? 0 : var)};
}

double asymptotic_padding_per_row(std::int64_t cols, double d, int delta_bits) {
  const double z = run_probability(d, delta_bits);
  return z >= 1.0 ? 0.0 : double(cols) * d * z / (1.0 - z);
}

std::int64_t worst_padding_exact_k(std::int64_t cols, std::int64_t k, int delta_bits) {
  require(cols >= 0 && k >= 0 && k <= cols, "need 0 <= k <= cols");
  return k == 0 ? 0 : (cols - k) / run_length(delta_bits);
}

// ----- Crossovers -------------------------------------------------------------------------------
namespace {
using Fn = std::function<double(double)>;

// All roots of f on (lo, 1]: sign changes on a fine grid, each refined by TOMS 748.
std::vector<double> roots_of(const Fn& f, double lo = 1e-4, int grid = 4000) {
  std::vector<double> out;
  double a = lo, fa = f(a);
  for (int i = 1; i <= grid; ++i) {
    const double b = lo + (1.0 - lo) * double(i) / grid, fb = f(b);
    if (fb == 0.0) {
      out.push_back(b);
    } else if ((fa < 0) != (fb < 0) && fa != 0.0) {
      std::uintmax_t iters = 200;
      const auto tol = boost::math::tools::eps_tolerance<double>(50);
      const auto [x0, x1] = boost::math::tools::toms748_solve(f, a, b, fa, fb, tol, iters);
      out.push_back(0.5 * (x0 + x1));
    }
    a = b;
    fa = fb;
  }
  return out;
}

Crossover solve(std::string name, std::string scenario, const Fn& f, std::string claim = "",
                std::string source = "", double claimed = -1) {
  Crossover c{std::move(name), std::move(scenario), false, 0.0, std::move(claim), std::move(source), claimed};
  const auto r = roots_of(f);
  if (!r.empty()) {
    c.found = true;
    c.density = r.back();  // the largest: the break-even reached first when pruning from dense
  }
  return c;
}
}  // namespace

std::vector<Crossover> crossovers(const StorageConfig& cfg) {
  StorageConfig c = cfg;
  c.validate();
  const int vb = c.value_bits, db = c.delta_bits;
  const bool paper_cfg = vb == 16 && db == 4 && !c.shape.bounded();
  using T = std::tuple<std::string, std::string, double, int>;
  const T none{"", "", -1.0, 0};
  auto claim = [&](const char* text, const char* src, double v, int decimals) {
    return paper_cfg ? T{text, src, v, decimals} : none;
  };
  const char* scen_name[3] = {"best", "expected", "worst"};
  std::vector<Crossover> out;
  auto add = [&](const std::string& what, int s, const Fn& f, const T& cl) {
    Crossover x = solve(what, s < 0 ? "-" : scen_name[s], f, std::get<0>(cl), std::get<1>(cl), std::get<2>(cl));
    x.claimed_decimals = std::get<3>(cl);
    out.push_back(std::move(x));
  };
  // Every root search walks the same grid of densities, and with a shape each MACKO effd sums the
  // exact padding over the row (up to cols / 2^b_delta terms): computed once per density and delta
  // width, rows of 10^6 columns at 1-bit deltas take about a second instead of twenty.
  std::map<std::pair<int, double>, MackoEffd> memo;
  auto macko_at = [&c, &memo](int delta_bits, double d) -> const MackoEffd& {
    auto it = memo.find({delta_bits, d});
    if (it == memo.end()) {
      StorageConfig x = c;
      x.delta_bits = delta_bits;
      it = memo.emplace(std::pair{delta_bits, d}, macko_effd(d, x)).first;
    }
    return it->second;
  };
  auto scenario = [](const MackoEffd& e, int s) { return s == 0 ? e.best : s == 1 ? e.expected : e.worst; };
  auto m = [&](int s) { return [&, s](double d) { return scenario(macko_at(db, d), s); }; };
  auto fmt_at = [&c](Format f) { return [&c, f](double d) { return format_effd(f, d, c); }; };

  const T dense_claims[3] = {claim("best case beats dense up to d = 0.80", "macko-blog.txt, Best case", 0.80, 2),
                             claim("matches dense at density as high as 0.78", "macko-paper.txt §4.2", 0.78, 2),
                             claim("worst-case break-even at d = 0.75", "macko-blog.txt, Worst case", 0.75, 2)};
  const T csr16_claims[3] = {claim("beats CSR16 above d = 0.04 (best case)", "macko-blog.txt, table notes", 0.04, 2), none,
                             claim("beats CSR16 above d = 0.1 (worst case)", "macko-blog.txt, table notes", 0.1, 1)};
  const T bitmask_claims[3] = {none, claim("beats bitmask at d < 0.23 (Figure 2, expected)", "macko-paper.txt §3.2", 0.23, 2),
                               none};
  const T q8_claims[3] = {none, claim("matches 8-bit quantization at 60% sparsity", "macko-paper.txt §3.2", 0.40, 2), none};
  const T half_claims[3] = {claim("effd = 0.5 at d = 0.4 (best and expected)", "macko-blog.txt, table notes", 0.4, 1),
                            claim("effd = 0.5 at d = 0.4 (best and expected)", "macko-blog.txt, table notes", 0.4, 1),
                            claim("effd = 0.5 at d = 0.35 (worst)", "macko-blog.txt, table notes", 0.35, 2)};
  for (int s = 0; s < 3; ++s) {
    add("MACKO = dense", s, [&, s](double d) { return m(s)(d) - 1.0; }, dense_claims[s]);
    add("MACKO = CSR16", s, [&, s](double d) { return m(s)(d) - fmt_at(Format::csr16)(d); }, csr16_claims[s]);
    add("MACKO = CSR32", s, [&, s](double d) { return m(s)(d) - fmt_at(Format::csr32)(d); }, none);
    add("MACKO = bitmask", s, [&, s](double d) { return m(s)(d) - fmt_at(Format::bitmask)(d); }, bitmask_claims[s]);
    if (vb > 8) add("MACKO = Q8", s, [&, s](double d) { return m(s)(d) - 8.0 / vb; }, q8_claims[s]);
    add("MACKO = Q4", s, [&, s](double d) { return m(s)(d) - 4.0 / vb; }, none);
    add("MACKO effd = 0.5", s, [&, s](double d) { return m(s)(d) - 0.5; }, half_claims[s]);
  }
  add("CSR32 = dense", -1, [&](double d) { return fmt_at(Format::csr32)(d) - 1.0; },
      claim("CSR break-even at density 33.3%", "macko-blog.txt, Best case", 0.333, 3));
  if (vb > 8)
    add("CSR32 = Q8", -1, [&](double d) { return fmt_at(Format::csr32)(d) - 8.0 / vb; },
        claim("CSR matches 8-bit quantization at 83% sparsity", "macko-paper.txt §3.2", 0.17, 2));
  // Expected effd of neighbouring delta widths (paper Appendix C), same value width and shape.
  auto with_db = [&](int b) { return [&, b](double d) { return macko_at(b, d).expected; }; };
  const bool vb16 = vb == 16 && !c.shape.bounded();
  auto claim16 = [&](const char* text, const char* src, double v, int decimals) {
    return vb16 ? T{text, src, v, decimals} : none;
  };
  add("MACKO b_Δ=1 = dense", 1, [&](double d) { return with_db(1)(d) - 1.0; },
      claim16("b_Δ=1 beats dense at sparsity as low as 7%", "macko-paper.txt Appendix C", 0.93, 2));
  add("MACKO b_Δ=1 = b_Δ=2", 1, [&](double d) { return with_db(1)(d) - with_db(2)(d); },
      claim16("b_Δ=2 best for sparsity 15%–45% (upper density end)", "macko-paper.txt Appendix C", 0.85, 2));
  add("MACKO b_Δ=2 = b_Δ=4", 1, [&](double d) { return with_db(2)(d) - with_db(4)(d); },
      claim16("b_Δ=2 best for sparsity 15%–45% (lower density end)", "macko-paper.txt Appendix C", 0.55, 2));
  add("MACKO b_Δ=4 = b_Δ=8", 1, [&](double d) { return with_db(4)(d) - with_db(8)(d); },
      claim16("b_Δ=8 good above 95% sparsity", "macko-paper.txt Appendix C", 0.05, 2));
  return out;
}

std::string Crossover::verdict() const {
  if (claimed_density < 0) return "no claim";
  if (!found) return "DISAGREES: no crossover in (0, 1]";
  const double tol = 0.5 * std::pow(10.0, -claimed_decimals);
  return std::abs(density - claimed_density) <= tol + 1e-12 ? "agrees at printed precision"
                                                            : "DISAGREES";
}

// ----- Roofline ---------------------------------------------------------------------------------
RooflinePoint roofline(Format f, double d, const StorageConfig& c, double bandwidth) {
  require(c.shape.bounded(), "the roofline needs a shape (rows and cols)");
  require(bandwidth > 0, "bandwidth must be positive");
  const double dense_bytes = double(c.shape.rows) * double(c.shape.cols) * c.value_bits / 8.0;
  RooflinePoint p;
  p.matrix_bytes = format_effd(f, d, c) * dense_bytes;
  p.vector_bytes = double(c.shape.rows + c.shape.cols) * c.value_bits / 8.0;
  p.seconds = (p.matrix_bytes + p.vector_bytes) / bandwidth;
  p.speedup_vs_dense = (dense_bytes + p.vector_bytes) / (p.matrix_bytes + p.vector_bytes);
  return p;
}

std::vector<Shape> paper_shapes() {
  static const std::int64_t kShapes[][2] = {
      {4096, 4096},   {8192, 8192},   {8192, 29568},  {32000, 5120},  {32000, 8192},  {28672, 8192},
      {5120, 5120},   {5120, 13824},  {3584, 20480},  {4096, 11008},  {13824, 5120},  {18944, 3584},
      {14336, 4096},  {4096, 14336},  {8192, 28672},  {11008, 4096},  {32000, 4096},  {20480, 3584},
      {3584, 18944},  {21504, 7168},  {7168, 7168},   {28672, 7168},  {7168, 28672},  {27648, 9216},
      {9216, 9216},   {36864, 9216},  {9216, 36864},  {36864, 12288}, {12288, 12288}, {49152, 12288},
      {12288, 49152}};
  std::vector<Shape> out;
  for (const auto& s : kShapes) out.push_back({s[0], s[1]});
  return out;
}

}  // namespace warpsparse::analysis
