// CSR with 32- or 16-bit column indices and 32-bit row pointers: the baseline formats of
// macko-paper.txt §3 (CSR32, CSR16) and the input of the cuSPARSE baseline.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse {

template <class T, class Index>
struct Csr {
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::uint16_t>);
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int32_t> row_ptr;
  std::vector<Index> col;
  std::vector<T> val;

  std::int64_t nnz() const { return static_cast<std::int64_t>(val.size()); }
  std::uint64_t storage_bytes() const {
    return val.size() * sizeof(T) + col.size() * sizeof(Index) + row_ptr.size() * 4;
  }
};

template <class T, class Index = std::int32_t>
Csr<T, Index> encode_csr(const SparseRows<T>& m) {
  m.validate();
  const SparseRows<T> nz = m.without_zeros();
  require(nz.nnz() <= std::numeric_limits<std::int32_t>::max(),
          "CSR with 32-bit row pointers holds at most 2^31 - 1 nonzeros, got " + std::to_string(nz.nnz()));
  if constexpr (std::is_same_v<Index, std::uint16_t>)
    require(m.cols <= 65536, "CSR16 needs cols <= 65536, got " + std::to_string(m.cols));
  Csr<T, Index> out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.row_ptr.assign(nz.row_ptr.begin(), nz.row_ptr.end());
  out.col.assign(nz.col.begin(), nz.col.end());
  out.val = nz.val;
  return out;
}

}  // namespace warpsparse
