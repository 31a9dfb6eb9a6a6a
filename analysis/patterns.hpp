// Sparsity pattern generators shared by the studies, the property tests and the benchmarks.
// Every generator is a pure function of (spec, shape, seed): the same seed gives the same matrix
// whatever the thread count. Nonzero values are drawn from N(0, 1) (heavy-tailed families use
// Student t), rounded to T, and redrawn when they round to zero.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse::analysis {

enum class Pattern {
  bernoulli,         // each entry nonzero independently with probability d
  exact_nnz,         // exactly round(d * cols) nonzeros per row, uniformly placed
  row_varying,       // row density drawn from Beta with mean d (param = concentration a+b, default 20)
  clustered,         // two-state Markov chain along the row, mean zero-run length = param (default 2/d)
  nm_2_4,            // 2 of every 4 (density ignored: 0.5)
  nm_4_8,            // 4 of every 8
  // Magnitude families: w = s_row * t_col * e with log-normal row/column scales of log-sd param
  // (default 0.5); e ~ N(0, 1), or Student t (nu = 3) for magnitude_heavy.
  magnitude_row,     // Gaussian weights, keep the top d fraction per row by magnitude
  magnitude_matrix,  // Gaussian weights, keep |w| above the matrix-wide threshold whose expected kept fraction is d
  magnitude_heavy,   // Student-t (nu = 3) weights, top d fraction per row
};

struct PatternSpec {
  Pattern kind = Pattern::bernoulli;
  double density = 0.5;
  double param = 0.0;  // family-specific (see Pattern); 0 picks the family's default
};

std::string_view to_string(Pattern p);
Pattern parse_pattern(std::string_view name);  // throws Error listing the valid names
std::vector<Pattern> all_patterns();

// One row's sorted column indices (deterministic in (spec, cols, seed, row)).
std::vector<std::int32_t> pattern_row(const PatternSpec& spec, std::int64_t cols, std::uint64_t seed,
                                      std::int64_t row);

// A rows x cols matrix with values of type T.
template <class T>
SparseRows<T> generate(const PatternSpec& spec, std::int64_t rows, std::int64_t cols, std::uint64_t seed);

// Rows [row_begin, row_end) of generate(spec, ·, cols, seed), as a matrix of row_end − row_begin
// rows (row i of the result is row row_begin + i): studies generate and encode in chunks.
template <class T>
SparseRows<T> generate_rows(const PatternSpec& spec, std::int64_t row_begin, std::int64_t row_end,
                            std::int64_t cols, std::uint64_t seed);

}  // namespace warpsparse::analysis
