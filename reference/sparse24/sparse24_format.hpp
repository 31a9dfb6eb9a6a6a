// 2:4 structured sparsity along K: compress, decompress, prune, and the metadata swizzle the
// mma.sp kernel reads. Storage layout and the spec citations: sparse24_layout.hpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/sparse/prune.hpp"
#include "reference/sparse24/sparse24_layout.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse::sparse24 {

template <class T>
struct Sparse24Matrix {
  int rows = 0, cols = 0;                // logical M × K
  int rows_padded = 0, cols_padded = 0;  // storage M × K (multiples of kRowAlign, kColAlign)
  std::vector<T> values;                 // rows_padded × cols_padded/2, row-major
  std::vector<std::uint16_t> meta;       // rows_padded × cols_padded/16, plain order

  T value(int row, int ccol) const {
    return values[static_cast<std::size_t>(row) * (cols_padded / 2) + ccol];
  }
  // Nibble of group `group` (= logical column / 4) of `row`.
  std::uint32_t nibble(int row, int group) const {
    const auto w = meta[static_cast<std::size_t>(meta_plain_index(row, group / 4, cols_padded))];
    return (w >> (4 * (group % 4))) & 0xfu;
  }
};

// Kept positions of one group of four: the nonzeros, completed with the lowest unused positions so
// that there are always two distinct ascending positions. Returns the number of nonzeros.
template <class T>
int group_positions(const T* g, int& lo, int& hi) {
  int pos[4];
  int n = 0;
  for (int i = 0; i < kGroup; ++i)
    if (!is_zero(g[i])) pos[n++] = i;
  if (n > kKeep) return n;
  const int nnz = n;
  for (int i = 0; i < kGroup && n < kKeep; ++i) {
    bool used = false;
    for (int j = 0; j < n; ++j) used |= pos[j] == i;
    if (!used) pos[n++] = i;
  }
  lo = pos[0] < pos[1] ? pos[0] : pos[1];
  hi = pos[0] < pos[1] ? pos[1] : pos[0];
  return nnz;
}

// Compresses a row-major rows × cols matrix that is 2:4 sparse along the columns. Throws Error
// naming the first (row-major) group with three or four nonzeros.
template <class T>
Sparse24Matrix<T> compress(std::span<const T> dense, int rows, int cols) {
  require(rows >= 0 && cols >= 0, "sparse24::compress: negative shape");
  require(dense.size() == static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols),
          "sparse24::compress: dense has " + std::to_string(dense.size()) + " elements, expected " +
              std::to_string(rows) + " x " + std::to_string(cols));
  Sparse24Matrix<T> s;
  s.rows = rows;
  s.cols = cols;
  s.rows_padded = static_cast<int>(round_up(rows, kRowAlign));
  s.cols_padded = static_cast<int>(round_up(cols, kColAlign));
  if (s.rows_padded == 0) s.rows_padded = kRowAlign;
  if (s.cols_padded == 0) s.cols_padded = kColAlign;
  const std::size_t vcols = static_cast<std::size_t>(s.cols_padded) / 2;
  s.values.assign(static_cast<std::size_t>(s.rows_padded) * vcols, T(0.0f));
  // Padding groups: positions (0, 1), zero values.
  s.meta.assign(static_cast<std::size_t>(s.rows_padded) * (s.cols_padded / kColsPerMeta16), 0x4444);
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < s.cols_padded / kGroup; ++j) {
      T g[kGroup] = {T(0.0f), T(0.0f), T(0.0f), T(0.0f)};
      for (int i = 0; i < kGroup; ++i) {
        const int c = kGroup * j + i;
        if (c < cols) g[i] = dense[static_cast<std::size_t>(r) * cols + c];
      }
      int lo = 0, hi = 1;
      const int nnz = group_positions(g, lo, hi);
      if (nnz > kKeep) {
        int third = 0, seen = 0;
        for (int i = 0; i < kGroup; ++i)
          if (!is_zero(g[i]) && ++seen == kKeep + 1) third = i;
        throw Error("sparse24::compress: row " + std::to_string(r) + " columns " +
                    std::to_string(kGroup * j) + ".." + std::to_string(kGroup * j + 3) + " hold " +
                    std::to_string(nnz) + " nonzeros (2:4 allows 2); first offending element at row " +
                    std::to_string(r) + ", column " + std::to_string(kGroup * j + third));
      }
      s.values[static_cast<std::size_t>(r) * vcols + 2 * j] = g[lo];
      s.values[static_cast<std::size_t>(r) * vcols + 2 * j + 1] = g[hi];
      auto& w = s.meta[static_cast<std::size_t>(meta_plain_index(r, j / 4, s.cols_padded))];
      const int shift = 4 * (j % 4);
      w = static_cast<std::uint16_t>((w & ~(0xfu << shift)) | (group_nibble(lo, hi) << shift));
    }
  }
  return s;
}

// The first way in which `s` differs from anything compress writes, or nullopt: a padded shape or
// array size that does not fit the logical shape, a metadata nibble that is not two ascending
// positions (mma.sp would read it as some other pair), or a nonzero value in the padding (a column
// past `cols`, or a row past `rows`). Readers check it, so a corrupt file is an Error naming the
// array and the element, never a wrong product.
template <class T>
std::optional<std::string> find_fault(const Sparse24Matrix<T>& s) {
  const auto at = [](int r, int j) { return "row " + std::to_string(r) + " group " + std::to_string(j); };
  if (s.rows < 0 || s.cols < 0 || s.rows_padded < s.rows || s.cols_padded < s.cols ||
      s.rows_padded % kRowAlign != 0 || s.cols_padded % kColAlign != 0)
    return "padded shape " + std::to_string(s.rows_padded) + " x " + std::to_string(s.cols_padded) +
           " does not hold " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " in whole " +
           std::to_string(kRowAlign) + " x " + std::to_string(kColAlign) + " blocks";
  const auto rp = static_cast<std::size_t>(s.rows_padded);
  if (s.values.size() != rp * static_cast<std::size_t>(s.cols_padded / 2) ||
      s.meta.size() != rp * static_cast<std::size_t>(s.cols_padded / kColsPerMeta16))
    return "values or metadata: size differs from the padded shape";
  for (int r = 0; r < s.rows_padded; ++r)
    for (int j = 0; j < s.cols_padded / kGroup; ++j) {
      const std::uint32_t n = s.nibble(r, j);
      if (!nibble_ordered(n))
        return "metadata: " + at(r, j) + ": nibble " + std::to_string(n) + " is not two ascending positions";
      const int pos[2] = {nibble_lo(n), nibble_hi(n)};
      for (int e = 0; e < 2; ++e)
        if ((r >= s.rows || kGroup * j + pos[e] >= s.cols) && !is_zero(s.value(r, 2 * j + e)))
          return "values: " + at(r, j) + ": a nonzero value at padding column " +
                 std::to_string(kGroup * j + pos[e]) + (r >= s.rows ? " of a padding row" : "");
    }
  return std::nullopt;
}

// Inverse of compress: the logical rows × cols matrix (dropped positions are +0). A corrupt matrix
// (find_fault) is an Error, not a wrong product.
template <class T>
std::vector<T> decompress(const Sparse24Matrix<T>& s) {
  if (const auto fault = find_fault(s)) throw Error("sparse24::decompress: " + *fault);
  std::vector<T> d(static_cast<std::size_t>(s.rows) * s.cols, T(0.0f));
  for (int r = 0; r < s.rows; ++r)
    for (int j = 0; j < s.cols_padded / kGroup; ++j) {
      const std::uint32_t n = s.nibble(r, j);
      const int pos[2] = {nibble_lo(n), nibble_hi(n)};
      for (int e = 0; e < 2; ++e) {
        const int c = kGroup * j + pos[e];
        if (c < s.cols) d[static_cast<std::size_t>(r) * s.cols + c] = s.value(r, 2 * j + e);
      }
    }
  return d;
}

// Prunes any dense matrix to 2:4 along the columns: in each group of four keeps the two elements of
// largest magnitude (prune::keep_n_of_m: ties to the lower column, NaN counts as largest), zeroes the
// rest.
template <class T>
std::vector<T> prune_2of4(std::span<const T> dense, int rows, int cols) {
  require(dense.size() == static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols),
          "sparse24::prune_2of4: size mismatch");
  std::vector<T> out(dense.begin(), dense.end());
  std::vector<float> mag(static_cast<std::size_t>(cols));
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r) {
    T* row = out.data() + static_cast<std::size_t>(r) * cols;
    for (int c = 0; c < cols; ++c) mag[c] = prune::magnitude(to_float(row[c]));
    prune::keep_n_of_m(mag, kKeep, kGroup, keep);
    for (int c = 0; c < cols; ++c)
      if (!keep[c]) row[c] = T(0.0f);
  }
  return out;
}

// Plain metadata -> the swizzled order the kernel loads with ldmatrix (sparse24_layout.hpp).
inline std::vector<std::uint16_t> swizzle_meta(std::span<const std::uint16_t> plain, int rows_padded,
                                               int cols_padded) {
  require(rows_padded % kMetaBlockRows == 0 && cols_padded % kMetaBlockCols == 0,
          "sparse24::swizzle_meta: padded shape is not a multiple of 16 x 64");
  const int chunks = cols_padded / kColsPerMeta16;
  require(plain.size() == static_cast<std::size_t>(rows_padded) * chunks,
          "sparse24::swizzle_meta: size mismatch");
  std::vector<std::uint16_t> out(plain.size());
  for (int r = 0; r < rows_padded; ++r)
    for (int c = 0; c < chunks; ++c)
      out[static_cast<std::size_t>(meta_swizzled_index(r, c, rows_padded))] =
          plain[static_cast<std::size_t>(meta_plain_index(r, c, cols_padded))];
  return out;
}

inline std::vector<std::uint16_t> unswizzle_meta(std::span<const std::uint16_t> swizzled,
                                                 int rows_padded, int cols_padded) {
  require(swizzled.size() ==
              static_cast<std::size_t>(rows_padded) * (cols_padded / kColsPerMeta16),
          "sparse24::unswizzle_meta: size mismatch");
  std::vector<std::uint16_t> out(swizzled.size());
  for (std::size_t i = 0; i < swizzled.size(); ++i) {
    const MetaCoord mc = meta_swizzled_coord(static_cast<std::int64_t>(i), rows_padded);
    out[static_cast<std::size_t>(meta_plain_index(mc.row, mc.chunk, cols_padded))] = swizzled[i];
  }
  return out;
}

}  // namespace warpsparse::sparse24
