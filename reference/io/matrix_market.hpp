// MatrixMarket exchange format (NIST, "The Matrix Market Exchange Formats: Initial Design", 1996):
// reader into SparseRows<T> and writer. Supported: `matrix coordinate|array real|integer|pattern
// general`. Anything else (complex, symmetric, ...) is rejected with a message naming it.
//
// Reader rules, all enforced with warpsparse::Error naming "file:line: what":
//  - the header line is `%%MatrixMarket matrix <format> <field> <symmetry>` (case-insensitive);
//  - lines end in LF or CRLF and hold at most 1 MiB;
//  - comment lines (%) may follow the header; blank lines are skipped everywhere;
//  - shapes must be at least 1x1 and within MatrixMarketLimits (rows, cols, dense elements);
//  - coordinate: exactly `entries` lines of `i j [value]`, 1-based, in range, no duplicates;
//  - array: exactly rows*cols values in column-major order (only the nonzeros are kept);
//  - no trailing tokens on any line, no data after the last entry.
// Values are parsed as double and rounded once to fp32, then to T with CUDA's rounding
// (value_types.hpp); for int8 the value must be an integer in [-128, 127], and for the float types
// a number beyond T's range (one that would round to inf) is refused; "inf" itself is a value.
// Coordinate entries that are zero are kept as stored entries (the encoders drop them); array
// zeros are not stored. The writer emits `coordinate real general` (`integer` for int8) with
// values printed so that reading them back gives the same bits (NaN, inf and -inf spelled out).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

#include "reference/common/memory_budget.hpp"
#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse::io {

struct MatrixMarketLimits {
  std::int64_t max_rows = std::int64_t{1} << 24;  // row_ptr is 8 B per row; LLM weights have < 2^20 rows
  std::int64_t max_cols = kMaxCols;               // 32-bit column indices in every kernel
  std::int64_t max_dense_elements = std::int64_t{1} << 30;  // array format: values held in memory
};

// `name` is used in messages (the path, or "<stdin>"). A coordinate file's entries are checked
// against the memory budget from its header, an array file's nonzeros as they are read.
template <class T>
SparseRows<T> read_matrix_market(std::istream& in, const std::string& name, const MatrixMarketLimits& limits = {},
                                 const MemoryBudget& budget = MemoryBudget::default_budget());
template <class T>
SparseRows<T> read_matrix_market_file(const std::string& path, const MatrixMarketLimits& limits = {},
                                      const MemoryBudget& budget = MemoryBudget::default_budget());

template <class T>
void write_matrix_market(std::ostream& out, const SparseRows<T>& m);
template <class T>
void write_matrix_market_file(const std::string& path, const SparseRows<T>& m);

}  // namespace warpsparse::io
