// Generators of the property tests, collected in one place (STYLE.md: generators are values).
// A drawn matrix is a Recipe: a small printable value (family, shape, density, seed, zero runs,
// special values) from which build<T>() makes the matrix deterministically, so a counterexample
// prints as a recipe that can be rebuilt and saved to the corpus. Families:
//   bernoulli, exact_nnz  analysis/patterns at densities 1, 0.5, 0.1, 0.01, 0.001, 0 or any
//   ragged                row r holds a contiguous run whose length walks every residue mod 32
//   zero_runs             nonzeros separated by zero runs drawn from the delta-width edges
//                         {15,16,17,31,32,33} and 2^b-1, 2^b, 2^b+1 for b = 1, 2, 4, 8
//   all_zero              no nonzeros (optionally explicit stored +0/-0 entries)
//   one_row, one_col      1 x C and R x 1
//   wide                  1..3 rows of >= 2^16 columns
// `specials` sprinkles NaN, +Inf, -Inf and explicit -0.0 / +0.0 entries over the values
// (int8: explicit zeros only).
#pragma once
#include <rapidcheck.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "analysis/patterns.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_schedule.hpp"
#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse::proptest {

enum class Family { bernoulli, exact_nnz, ragged, zero_runs, all_zero, one_row, one_col, wide };

inline const char* to_string(Family f) {
  switch (f) {
    case Family::bernoulli: return "bernoulli";
    case Family::exact_nnz: return "exact_nnz";
    case Family::ragged: return "ragged";
    case Family::zero_runs: return "zero_runs";
    case Family::all_zero: return "all_zero";
    case Family::one_row: return "one_row";
    case Family::one_col: return "one_col";
    case Family::wide: return "wide";
  }
  return "?";
}

struct Recipe {
  Family family = Family::bernoulli;
  std::int64_t rows = 1;
  std::int64_t cols = 1;
  double density = 0.5;
  std::uint64_t seed = 0;
  std::vector<int> runs;  // zero_runs: zero-run lengths, cycled (row r starts at runs[r % n])
  bool specials = false;
};

inline void showValue(const Recipe& r, std::ostream& os) {
  os << "{family=" << to_string(r.family) << " rows=" << r.rows << " cols=" << r.cols << " density=" << r.density
     << " seed=" << r.seed << " runs=[";
  for (std::size_t i = 0; i < r.runs.size(); ++i) os << (i ? "," : "") << r.runs[i];
  os << "] specials=" << r.specials << "}";
}

inline constexpr double kDensities[] = {1.0, 0.5, 0.1, 0.01, 0.001, 0.0};
inline constexpr int kRunEdges[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 255, 256, 257};

inline rc::Gen<double> gen_density() {
  return rc::gen::oneOf(rc::gen::elementOf(std::vector<double>(std::begin(kDensities), std::end(kDensities))),
                        rc::gen::map(rc::gen::inRange(0, 1001), [](int k) { return k / 1000.0; }));
}

inline rc::Gen<Recipe> gen_recipe() {
  using namespace rc;
  return gen::exec([] {
    Recipe r;
    r.family = *gen::element(Family::bernoulli, Family::exact_nnz, Family::ragged, Family::zero_runs, Family::all_zero,
                             Family::one_row, Family::one_col, Family::wide);
    r.seed = *gen::arbitrary<std::uint64_t>();
    r.specials = *gen::weightedElement<bool>({{4, false}, {1, true}});
    r.density = *gen_density();
    r.rows = *gen::inRange<std::int64_t>(1, 41);
    r.cols = *gen::inRange<std::int64_t>(1, 601);
    switch (r.family) {
      case Family::ragged:
        r.rows = *gen::inRange<std::int64_t>(1, 70);
        break;
      case Family::zero_runs:
        r.cols = *gen::inRange<std::int64_t>(1, 2001);
        r.runs = *gen::container<std::vector<int>>(*gen::inRange(1, 7),
                                                    gen::elementOf(std::vector<int>(std::begin(kRunEdges), std::end(kRunEdges))));
        break;
      case Family::one_row: r.rows = 1; break;
      case Family::one_col: r.cols = 1; r.rows = *gen::inRange<std::int64_t>(1, 100); break;
      case Family::wide:
        r.rows = *gen::inRange<std::int64_t>(1, 4);
        r.cols = *gen::inRange<std::int64_t>(65536, 70001);
        r.density = *gen::element(0.0001, 0.001, 0.01);
        break;
      default: break;
    }
    return r;
  });
}

namespace detail {
template <class T>
T random_nonzero(std::mt19937_64& rng) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  T v;
  do v = from_float<T>(n(rng)); while (is_zero(v));
  return v;
}
}  // namespace detail

template <class T>
SparseRows<T> build(const Recipe& rec) {
  SparseRows<T> m;
  std::mt19937_64 rng(rec.seed ^ 0x5bd1e9955bd1e995ull);
  switch (rec.family) {
    case Family::bernoulli:
    case Family::exact_nnz:
    case Family::one_row:
    case Family::one_col:
    case Family::wide: {
      analysis::PatternSpec spec;
      spec.kind = rec.family == Family::exact_nnz ? analysis::Pattern::exact_nnz : analysis::Pattern::bernoulli;
      spec.density = rec.density;
      m = analysis::generate<T>(spec, rec.rows, rec.cols, rec.seed);
      break;
    }
    case Family::ragged: {
      m.cols = rec.cols;
      const std::int64_t span = std::min<std::int64_t>(rec.cols, 64);
      for (std::int64_t r = 0; r < rec.rows; ++r) {
        const std::int64_t len = static_cast<std::int64_t>((static_cast<std::uint64_t>(r) + rec.seed) % (span + 1));
        const std::int64_t start = static_cast<std::int64_t>((rec.seed / 7 + static_cast<std::uint64_t>(r) * 13) %
                                                             static_cast<std::uint64_t>(rec.cols - len + 1));
        for (std::int64_t c = start; c < start + len; ++c) m.push(static_cast<std::int32_t>(c), detail::random_nonzero<T>(rng));
        m.end_row();
      }
      break;
    }
    case Family::zero_runs: {
      m.cols = rec.cols;
      for (std::int64_t r = 0; r < rec.rows; ++r) {
        std::int64_t c = 0;
        for (std::size_t i = static_cast<std::size_t>(r);; ++i) {
          c += rec.runs[i % rec.runs.size()];
          if (c >= rec.cols) break;
          m.push(static_cast<std::int32_t>(c), detail::random_nonzero<T>(rng));
          ++c;
        }
        m.end_row();
      }
      break;
    }
    case Family::all_zero:
      m.cols = rec.cols;
      for (std::int64_t r = 0; r < rec.rows; ++r) m.end_row();
      break;
  }
  if (rec.specials) {
    // Replace about one value in eight, and add explicit zero entries into a copy of each row.
    std::vector<T> specials;
    if constexpr (std::is_same_v<T, std::int8_t>) {
      specials = {T(0)};
    } else {
      const float inf = std::numeric_limits<float>::infinity();
      specials = {from_float<T>(std::nanf("")), from_float<T>(inf), from_float<T>(-inf), from_float<T>(-0.0f),
                  from_float<T>(0.0f)};
    }
    std::uniform_int_distribution<std::size_t> pick(0, specials.size() - 1);
    for (auto& v : m.val)
      if (rng() % 8 == 0) v = specials[pick(rng)];
    if (rec.family == Family::all_zero) {  // stored zeros in an otherwise empty matrix
      SparseRows<T> z;
      z.cols = m.cols;
      for (std::int64_t r = 0; r < m.rows; ++r) {
        for (std::int64_t c = static_cast<std::int64_t>(rng() % 3); c < m.cols; c += 5)
          z.push(static_cast<std::int32_t>(c), rng() % 2 ? from_float<T>(-0.0f) : from_float<T>(0.0f));
        z.end_row();
      }
      m = z;
    }
  }
  return m;
}

// Schedules of the MACKO model: every delta width x accumulator count x lane elements x row splits,
// and 16 lanes per row (two rows per warp) where the row is one part.
// Any valid schedule for a matrix of `delta_bits`-bit deltas: the warp model takes them all, compiled
// or not (the GPU tests draw from macko::kCompiledVariants instead).
inline rc::Gen<macko::Schedule> gen_schedule(int delta_bits) {
  using namespace rc;
  return gen::exec([delta_bits] {
    macko::Schedule s;
    s.lane_accumulators = *gen::element(1, 2, 4, 8).as("lane accumulators");
    s.unroll_blocks = *gen::inRange(1, 9);
    if (delta_bits == 4) s.lane_elems = *gen::element(8, 4, 2).as("lane elements");
    s.row_splits = *gen::element(1, 1, 2, 4, 8).as("row splits");
    s.warps_per_block = s.row_splits == 1 ? *gen::element(1, 4, 8) : s.row_splits * *gen::element(1, 2, 4);
    if (s.row_splits == 1) s.row_lanes = *gen::element(32, 16).as("row lanes");
    return s;
  });
}
inline rc::Gen<int> gen_delta_bits() { return rc::gen::element(1, 2, 4, 8).as("delta bits"); }

// The alpha and beta of y = alpha A x + beta y (beta = 0 twice as often: y_old must then not be read).
struct Epilogue {
  float alpha = 1, beta = 0;
};
inline Epilogue gen_epilogue() {
  Epilogue e;
  e.alpha = *rc::gen::element(1.0f, -0.5f, 2.0f, 0.1f).as("alpha");
  e.beta = *rc::gen::element(0.0f, 0.0f, 1.0f, -0.75f).as("beta");
  return e;
}

}  // namespace warpsparse::proptest

namespace rc {
template <>
struct Arbitrary<warpsparse::proptest::Recipe> {
  static Gen<warpsparse::proptest::Recipe> arbitrary() { return warpsparse::proptest::gen_recipe(); }
};
}  // namespace rc

namespace warpsparse::macko {
inline void showValue(const Schedule& s, std::ostream& os) { os << to_string(s); }
}  // namespace warpsparse::macko
