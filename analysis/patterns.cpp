#include "analysis/patterns.hpp"

#include <algorithm>
#include <cmath>

namespace warpsparse::analysis {

namespace {
struct Name { Pattern p; std::string_view s; };
constexpr Name kNames[] = {
    {Pattern::bernoulli, "bernoulli"},       {Pattern::exact_nnz, "exact_nnz"},
    {Pattern::row_varying, "row_varying"},   {Pattern::clustered, "clustered"},
    {Pattern::nm_2_4, "2:4"},                {Pattern::nm_4_8, "4:8"},
    {Pattern::magnitude_row, "magnitude_row"}, {Pattern::magnitude_matrix, "magnitude_matrix"},
    {Pattern::magnitude_heavy, "magnitude_heavy"},
};

// Independent stream per (seed, row): SplitMix64 of both, so rows can be generated in any order.
std::mt19937_64 row_rng(std::uint64_t seed, std::int64_t row) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(row) + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::mt19937_64(z ^ (z >> 31));
}
}  // namespace

std::string_view to_string(Pattern p) {
  for (const auto& n : kNames)
    if (n.p == p) return n.s;
  return "?";
}

Pattern parse_pattern(std::string_view name) {
  std::string valid;
  for (const auto& n : kNames) {
    if (n.s == name) return n.p;
    valid += (valid.empty() ? "" : ", ") + std::string(n.s);
  }
  throw Error("unknown pattern '" + std::string(name) + "' (valid: " + valid + ")");
}

std::vector<Pattern> all_patterns() {
  std::vector<Pattern> v;
  for (const auto& n : kNames) v.push_back(n.p);
  return v;
}

std::vector<std::int32_t> pattern_row(const PatternSpec& spec, std::int64_t cols, std::uint64_t seed,
                                      std::int64_t row) {
  require(spec.density >= 0.0 && spec.density <= 1.0, "density must lie in [0, 1]");
  auto rng = row_rng(seed, row);
  std::vector<std::int32_t> out;
  switch (spec.kind) {
    case Pattern::bernoulli: {
      std::bernoulli_distribution b(spec.density);
      for (std::int64_t c = 0; c < cols; ++c)
        if (b(rng)) out.push_back(static_cast<std::int32_t>(c));
      return out;
    }
    case Pattern::exact_nnz: {
      const auto k = static_cast<std::int64_t>(std::llround(spec.density * double(cols)));
      // Selection sampling (Knuth's Algorithm S): k of cols, sorted, uniformly.
      std::int64_t need = k;
      for (std::int64_t c = 0; c < cols && need > 0; ++c) {
        std::uniform_int_distribution<std::int64_t> u(0, cols - c - 1);
        if (u(rng) < need) {
          out.push_back(static_cast<std::int32_t>(c));
          --need;
        }
      }
      return out;
    }
    default:
      throw Error("pattern '" + std::string(to_string(spec.kind)) + "' is not implemented yet");
  }
}

template <class T>
SparseRows<T> generate(const PatternSpec& spec, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  require(rows >= 0 && cols >= 0 && cols <= kMaxCols, "bad shape for a generated matrix");
  SparseRows<T> m;
  m.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto idx = pattern_row(spec, cols, seed, r);
    auto rng = row_rng(seed ^ 0xA5A5A5A5A5A5A5A5ull, r);
    std::normal_distribution<float> n(0.0f, 1.0f);
    for (const auto c : idx) {
      T v;
      do v = from_float<T>(n(rng)); while (is_zero(v));
      m.push(c, v);
    }
    m.end_row();
  }
  return m;
}

template SparseRows<half> generate<half>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);
template SparseRows<bfloat16> generate<bfloat16>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);
template SparseRows<float> generate<float>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);
template SparseRows<std::int8_t> generate<std::int8_t>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);

}  // namespace warpsparse::analysis
