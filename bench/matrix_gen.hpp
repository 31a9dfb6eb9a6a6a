// Fast host-side construction of benchmark matrices: rows generated in parallel, encoded to
// MACKO and CSR in parallel, plus the dense copy for cuBLAS and the double-precision oracle.
//
// Blocks of rows come from analysis::generate_rows (the pattern library's per-row generator,
// values included), so the matrix equals analysis::generate(spec, rows, cols, seed) whatever the
// thread count or block size.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/patterns.hpp"
#include "reference/csr/csr_format.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse::bench {

// Runs body(i) for i in [0, n) on `threads` threads; rethrows the first exception.
void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t)>& body);

int default_threads();

template <class T>
struct RowBlocks {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> first_row;  // first row of each block
  std::vector<SparseRows<T>> blocks;    // consecutive row ranges
  std::int64_t nnz() const;
};

// Rows already in memory (a user's matrix), cut into blocks as generate_blocks cuts them.
template <class T>
RowBlocks<T> to_blocks(SparseRows<T> rows, int threads);

// The whole matrix as one SparseRows (what a whole-matrix encoder such as EC's extraction takes).
template <class T>
SparseRows<T> join_blocks(const RowBlocks<T>& m);

// A --matrix FILE[:TENSOR] (bench/matrix_file.hpp), read as T.
template <class T>
RowBlocks<T> matrix_file_blocks(const std::string& spec, bool transpose, int threads);

template <class T>
RowBlocks<T> generate_blocks(const analysis::PatternSpec& spec, std::int64_t rows, std::int64_t cols,
                             std::uint64_t seed, int threads);

// n values drawn from N(0, 1), rounded to T, never zero.
template <class T>
std::vector<T> random_vector(std::int64_t n, std::uint64_t seed);

template <class T>
Csr<T, std::int32_t> to_csr(const RowBlocks<T>& m, int threads);

// Encodes each block with encode_macko and concatenates: a MACKO row's stored elements depend
// only on that row, so the result equals encode_macko of the whole matrix.
template <class T>
Macko<T> to_macko(const RowBlocks<T>& m, const MackoParams& p, int threads);

template <class T>
std::vector<T> to_dense(const RowBlocks<T>& m, int threads);  // row-major

// y = A x in double, and sum |a_ij x_j| per row (for error bounds).
struct Oracle {
  std::vector<double> y;
  std::vector<double> abs_sum;
  std::vector<std::int64_t> row_nnz;
};
template <class T>
Oracle spmv_oracle_parallel(const RowBlocks<T>& m, const std::vector<T>& x, int threads);

}  // namespace warpsparse::bench
