// EC test matrices with hand-made extractions, shared by the warp-model properties
// (ec_model_props.cpp) and the GPU test (ec_spmv_gpu_props.cpp): a printable recipe, the matrix
// and EC layout it builds (G = 2/4/8 units of rows sharing whole steps of columns, everything else
// G = 1, laid out by ec_layout_blocks, or encode_ec), and its plan. A recipe's seed gives the same
// matrix in both tests but for the values (see Values), so a printed counterexample replays.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <ostream>
#include <random>
#include <utility>
#include <vector>

#include "reference/ec/ec_encode.hpp"
#include "reference/ec/ec_format.hpp"
#include "reference/ec/ec_schedule.hpp"

namespace warpsparse::ec_cases {

// A printable recipe for a matrix and its extraction.
struct Recipe {
  std::int64_t rows = 1, cols = 1;
  double density = 0.1;       // of each row's G = 1 columns
  int delta_bits = 8;
  std::vector<int> units;     // G of each hand-made unit
  double unit_density = 1.0;  // column density a unit's shared columns are drawn with
  double empty_rows = 0.0;    // share of rows left empty
  bool last_col = false;      // row 0 gets a nonzero in the last column
  bool specials = false;      // NaN / +-Inf among the values (host only: NaN payloads differ between host and GPU)
  std::vector<int> clip;      // per set: 0 = one piece per block, else the longest piece in steps
  bool encoder = false;       // encode_ec instead of the hand-made extraction
  std::uint64_t seed = 0;
};

inline void showValue(const Recipe& r, std::ostream& os) {
  os << "{rows=" << r.rows << " cols=" << r.cols << " density=" << r.density << " bits=" << r.delta_bits << " units=[";
  for (std::size_t i = 0; i < r.units.size(); ++i) os << (i ? "," : "") << r.units[i];
  os << "] unit_density=" << r.unit_density << " empty_rows=" << r.empty_rows << " last_col=" << r.last_col
     << " specials=" << r.specials << " clip=[";
  for (std::size_t i = 0; i < r.clip.size(); ++i) os << (i ? "," : "") << r.clip[i];
  os << "] encoder=" << r.encoder << " seed=" << r.seed << "}";
}

// How build() draws the nonzero values from N(0, 1). The two tests drew them differently before
// they shared this builder, and a seed must keep its matrix: libstdc++'s normal_distribution
// makes two variates per draw of the engine and keeps the second, so one distribution for the
// whole matrix and a new one per value take different values from the same stream.
enum class Values {
  fresh_per_value,  // ec_model_props: a new distribution per value
  one_stream,       // ec_spmv_gpu_props: one distribution for the whole matrix
};

// A nonzero value from n; with `specials`, one in eight is NaN or +-Inf.
template <class T>
T nonzero_value(std::mt19937_64& rng, std::normal_distribution<float>& n, bool specials) {
  if (specials && rng() % 8 == 0) {
    const float inf = std::numeric_limits<float>::infinity();
    const float s[] = {std::nanf(""), inf, -inf};
    return from_float<T>(s[rng() % 3]);
  }
  T v;
  do v = from_float<T>(n(rng)); while (is_zero(v));
  return v;
}

template <class T>
struct Built {
  SparseRows<T> m;
  Ec<T> a;
};

// The matrix of a recipe and its EC layout. Units take distinct rows (a shuffled pool) and the
// longest prefix of their Bernoulli columns that fills whole steps (fill_long at v = 4); a unit
// that fills no step is dropped. Every other entry of a row is a G = 1 column.
template <class T>
Built<T> build(const Recipe& rec, Values values) {
  std::mt19937_64 rng(rec.seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<float> stream(0.0f, 1.0f);  // Values::one_stream
  const auto R = rec.rows;
  const auto C = rec.cols;
  ec::EcExtraction ex;
  ex.rows = R;
  ex.cols = C;
  std::vector<std::vector<std::int32_t>> unit_cols(static_cast<std::size_t>(R));  // per row: columns held by units
  std::vector<std::uint32_t> pool(static_cast<std::size_t>(R));
  std::iota(pool.begin(), pool.end(), 0u);
  std::shuffle(pool.begin(), pool.end(), rng);
  std::size_t next = 0;
  for (const int g : rec.units) {
    if (next + static_cast<std::size_t>(g) > pool.size()) break;
    std::vector<std::int32_t> cand;
    for (std::int64_t c = 0; c < C; ++c)
      if (u(rng) < rec.unit_density) cand.push_back(static_cast<std::int32_t>(c));
    // The self-filling prefix: fill_long's first guess for L assumes no padding slots, so a
    // prefix with padding may fill with another L; shrink until fill_long takes all of it.
    for (std::int64_t used; (used = ec::fill_long(cand, 4, rec.delta_bits, 1).used) != static_cast<std::int64_t>(cand.size());)
      cand.resize(static_cast<std::size_t>(used));
    if (cand.empty()) continue;
    ec::EcUnit unit;
    unit.group = g;
    for (int k = 0; k < g; ++k) {
      const std::uint32_t r = pool[next++];
      unit.rows.push_back(r);
      unit_cols[r] = cand;  // one unit per row here
    }
    unit.cols = cand;
    ex.blocks.push_back(std::move(unit));
  }
  ex.residual.resize(static_cast<std::size_t>(R));
  Built<T> b;
  b.m.cols = C;
  for (std::int64_t r = 0; r < R; ++r) {
    const bool empty = u(rng) < rec.empty_rows && unit_cols[r].empty() && !(r == 0 && rec.last_col);
    std::vector<std::int32_t> all = unit_cols[r];
    auto& res = ex.residual[static_cast<std::size_t>(r)];
    if (!empty)
      for (std::int64_t c = 0; c < C; ++c) {
        const bool in_unit = std::binary_search(unit_cols[r].begin(), unit_cols[r].end(), static_cast<std::int32_t>(c));
        const bool want = u(rng) < rec.density || (r == 0 && rec.last_col && c == C - 1);
        if (!in_unit && want) res.push_back(static_cast<std::int32_t>(c));
      }
    all.insert(all.end(), res.begin(), res.end());
    std::sort(all.begin(), all.end());
    for (const std::int32_t c : all) {
      std::normal_distribution<float> fresh(0.0f, 1.0f);
      b.m.push(c, nonzero_value<T>(rng, values == Values::one_stream ? stream : fresh, rec.specials));
    }
    b.m.end_row();
  }
  ec::EcParams p;
  p.delta_bits = rec.delta_bits;
  if (rec.encoder) {
    p.threads = 1;
    b.a = encode_ec(b.m, p);
    return b;
  }
  b.a = ec_layout_blocks(b.m, std::move(ex), p);
  return b;
}

// The plan of a recipe: its clip lengths, one per set (0 where the recipe has none).
template <class T>
ec::Plan plan_of(const Ec<T>& a, const Recipe& rec) {
  std::vector<int> clip(a.sets.size(), 0);
  for (std::size_t i = 0; i < clip.size() && i < rec.clip.size(); ++i) clip[i] = rec.clip[i];
  return ec::make_plan(a, clip);
}

// The fixed recipes of the edge cases, all with one seed: `constexpr Fixed recipe{12345};` then
// recipe(rows, cols, density, ...).
struct Fixed {
  std::uint64_t seed = 0;
  Recipe operator()(std::int64_t rows, std::int64_t cols, double density, std::vector<int> units = {},
                    double unit_density = 1.0, bool last_col = false, double empty_rows = 0.0) const {
    Recipe r;
    r.rows = rows;
    r.cols = cols;
    r.density = density;
    r.units = std::move(units);
    r.unit_density = unit_density;
    r.last_col = last_col;
    r.empty_rows = empty_rows;
    r.seed = seed;
    return r;
  }
};

}  // namespace warpsparse::ec_cases
