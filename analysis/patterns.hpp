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
  // Structured families, for encoders that group rows by shared columns. Values stay independent
  // per row, and each row is still a pure function of (spec, cols, seed, row).
  //  * row_blocked: rows g·k .. g·k + g − 1 share one Bernoulli(d) column mask drawn from group k's
  //    own stream; param = g (default 8). The last group is short when g does not divide the rows.
  //  * row_blocked_permuted: the same groups and masks, but rows are dealt to the groups by a
  //    random permutation of each aligned window of 8·g rows (8 groups), drawn from (seed, window).
  //    pattern_row does not know the row count, so the permutation cannot span all rows; windows
  //    keep rows pure and still scatter each group's members, and every group is complete when 8·g
  //    divides the rows.
  //  * column_clustered: column c is hot with probability h = param (default 0.1, at most 1), the
  //    c-th draw of a per-seed stream (so independent of cols). Entries are nonzero with p_hot = min(1, 3d) in hot columns and with
  //    p_cold in cold ones, p_cold set from the realized hot fraction ĥ so that a row's expected
  //    density given the columns is exactly d: p_cold = (d − ĥ·p_hot) / (1 − ĥ). Where ĥ·p_hot
  //    would exceed d (only when ĥ > 1/3), p_hot drops to d / ĥ and cold columns stay empty.
  //  * shifted_copies: one Bernoulli(d) mask per (seed, cols); row r is that mask rotated by a shift
  //    s uniform in [1, cols), c → (c + s) mod cols. Every row has the mask's count; any overlap
  //    between rows is chance.
  //  * zero_overlap: rows in groups of k = max(1, floor(1/d)); each column goes to exactly one
  //    uniformly drawn row of each group, so a group's rows are disjoint and cover every column. A
  //    row's density is about 1/k, not d (1/3 at d = 0.3); d = 0 gives empty rows.
  row_blocked,
  row_blocked_permuted,
  column_clustered,
  shifted_copies,
  zero_overlap,
};

struct PatternSpec {
  Pattern kind = Pattern::bernoulli;
  double density = 0.5;
  double param = 0.0;  // family-specific (see Pattern); 0 picks the family's default
};

std::string_view to_string(Pattern p);
Pattern parse_pattern(std::string_view name);  // throws Error listing the valid names
std::vector<Pattern> all_patterns();
// Whether a family reads PatternSpec::density (N:M families are 0.5 whatever it says) and
// PatternSpec::param; the others ignore them.
bool pattern_takes_density(Pattern p);
bool pattern_takes_param(Pattern p);

// Throws Error, naming `option` (the caller's name for the parameter) and the family, unless
// spec.param is 0 (the default) or in the family's range; a family without a parameter takes only 0.
// pattern_row calls it.
void require_param(const PatternSpec& spec, std::string_view option = "param");

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
