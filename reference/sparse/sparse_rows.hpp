// SparseRows<T>: the canonical host input of every encoder: row-sorted, strictly increasing
// column indices, 64-bit row offsets. Pattern generators produce it, decoders give it back.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse {

// Column indices are 32-bit signed in every kernel; wider matrices are rejected up front.
inline constexpr std::int64_t kMaxCols = (std::int64_t{1} << 31) - 1;

template <class T>
struct SparseRows {
  using value_type = T;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> row_ptr{0};  // rows + 1 offsets
  std::vector<std::int32_t> col;
  std::vector<T> val;

  std::int64_t nnz() const { return static_cast<std::int64_t>(col.size()); }

  // Appends an entry to the last open row (call end_row() after each row).
  void push(std::int32_t c, T v) {
    col.push_back(c);
    val.push_back(v);
  }
  void end_row() {
    row_ptr.push_back(nnz());
    ++rows;
  }

  // Throws Error naming the first broken invariant.
  void validate() const {
    require(rows >= 0 && cols >= 0, "negative shape " + std::to_string(rows) + "x" + std::to_string(cols));
    require(cols <= kMaxCols, "cols = " + std::to_string(cols) + " exceeds 2^31 - 1");
    require(row_ptr.size() == static_cast<std::size_t>(rows) + 1, "row_ptr has " +
            std::to_string(row_ptr.size()) + " entries, expected rows + 1 = " + std::to_string(rows + 1));
    require(row_ptr.front() == 0 && row_ptr.back() == nnz(), "row_ptr does not span [0, nnz]");
    require(val.size() == col.size(), "col and val lengths differ");
    for (std::int64_t r = 0; r < rows; ++r) {
      // NOTE: test first, build the message only on failure (runs over every element).
      if (row_ptr[r] > row_ptr[r + 1]) throw Error("row_ptr decreases at row " + std::to_string(r));
      for (std::int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
        if (col[k] < 0 || col[k] >= cols) throw Error(
                "column " + std::to_string(col[k]) + " out of range in row " + std::to_string(r));
        if (k != row_ptr[r] && col[k] <= col[k - 1]) throw Error(
                "columns not strictly increasing in row " + std::to_string(r));
      }
    }
  }

  // Row-major dense copy (tests and small matrices only).
  std::vector<T> to_dense() const {
    std::vector<T> d(static_cast<std::size_t>(rows * cols), from_float<T>(0.0f));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) d[r * cols + col[k]] = val[k];
    return d;
  }

  // Drops entries that are zero under the zero rule (see value_types.hpp).
  SparseRows without_zeros() const {
    SparseRows out;
    out.cols = cols;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
        if (!is_zero(val[k])) out.push(col[k], val[k]);
      out.end_row();
    }
    return out;
  }

  static SparseRows from_dense(std::int64_t rows, std::int64_t cols, const std::vector<T>& d) {
    // Column indices are 32-bit: a wider matrix is refused, not stored with wrapped columns.
    require(rows >= 0 && cols >= 0 && cols <= kMaxCols,
            "dense matrix " + std::to_string(rows) + " x " + std::to_string(cols) +
                ": columns must be in [0, 2^31 - 1] (column indices are 32-bit)");
    const auto n = static_cast<std::uint64_t>(d.size()), c64 = static_cast<std::uint64_t>(cols);
    require(cols == 0 ? n == 0 : n % c64 == 0 && n / c64 == static_cast<std::uint64_t>(rows),
            "dense size does not match shape");
    SparseRows out;
    out.cols = cols;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < cols; ++c)
        if (!is_zero(d[r * cols + c])) out.push(static_cast<std::int32_t>(c), d[r * cols + c]);
      out.end_row();
    }
    return out;
  }
};

// The most nonzeros any row holds in one aligned group of `width` columns (N:M structure: 2:4
// when at most 2 per group of 4). Feed each row's nonzero columns in ascending order, then call
// end_row; any encoding that walks its rows can measure itself this way.
class GroupPeak {
 public:
  explicit GroupPeak(int width) : width_(width) {}
  void add(std::int64_t col) {
    if (col / width_ != group_) group_ = col / width_, run_ = 0;
    if (++run_ > peak_) peak_ = run_;
  }
  void end_row() { group_ = -1, run_ = 0; }
  int peak() const { return peak_; }

 private:
  int width_;
  std::int64_t group_ = -1;
  int run_ = 0, peak_ = 0;
};

}  // namespace warpsparse
