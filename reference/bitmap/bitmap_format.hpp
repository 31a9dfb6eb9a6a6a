// The bitmap-tile format on the host (layout: bitmap_layout.hpp): the matrix, its encoder from
// SparseRows, its decoder, structural validation and storage accounting.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "reference/bitmap/bitmap_layout.hpp"
#include "reference/common/error.hpp"
#include "reference/sparse/sparse_rows.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse {

template <class T>
struct Bitmap {
  using value_type = T;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::uint64_t> bitmaps;   // 4 per tile
  std::vector<std::uint32_t> tile_off;  // per tile
  std::vector<std::int64_t> row_base{0};  // tile rows + 1
  std::vector<T> values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  std::int64_t tile_rows() const { return bitmap::tile_rows(rows); }
  std::int64_t k_tiles() const { return bitmap::k_tiles(cols); }
  std::int64_t tiles() const { return tile_rows() * k_tiles(); }
  std::uint64_t storage_bytes() const {
    return values.size() * sizeof(T) + bitmaps.size() * 8 + tile_off.size() * 4 + row_base.size() * 8;
  }
  double effective_density() const {
    const double dense = static_cast<double>(rows) * static_cast<double>(cols) * sizeof(T);
    return dense == 0 ? 0.0 : static_cast<double>(storage_bytes()) / dense;
  }
  // The first broken invariant, named (array, index, what was expected), or nothing.
  std::optional<std::string> find_fault() const;
  void validate() const {
    if (const auto f = find_fault()) throw Error("bitmap matrix: " + *f);
  }
};

// 16 · cols values of one tile row are addressed with 32-bit tile offsets.
inline constexpr std::int64_t kBitmapMaxCols = (std::int64_t{1} << 32) / bitmap::kTile - bitmap::kTile;

namespace bitmap_detail {
template <class F>
void parallel_tile_rows(std::int64_t n, int threads, F&& f) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t t = std::min<std::int64_t>(n, threads > 0 ? threads : static_cast<int>(hw));
  if (t <= 1) {
    for (std::int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::thread> pool;
  for (std::int64_t w = 0; w < t; ++w)
    pool.emplace_back([&, w] {
      for (std::int64_t i = w; i < n; i += t) f(i);
    });
  for (auto& th : pool) th.join();
}
}  // namespace bitmap_detail

// Encodes m (entries that are zero under the zero rule are dropped). Deterministic: the bytes do
// not depend on `threads` (0 = all cores).
template <class T>
Bitmap<T> encode_bitmap(const SparseRows<T>& m, int threads = 0) {
  m.validate();
  require(m.cols <= kBitmapMaxCols, "bitmap format: " + std::to_string(m.cols) + " columns exceed " +
                                        std::to_string(kBitmapMaxCols) + " (32-bit tile offsets)");
  using namespace bitmap;
  Bitmap<T> a;
  a.rows = m.rows;
  a.cols = m.cols;
  const std::int64_t tr = a.tile_rows(), kt = a.k_tiles();
  a.bitmaps.assign(static_cast<std::size_t>(tr * kt * kSubtiles), 0);
  a.tile_off.assign(static_cast<std::size_t>(tr * kt), 0);
  a.row_base.assign(static_cast<std::size_t>(tr + 1), 0);
  std::vector<std::int64_t> row_count(static_cast<std::size_t>(tr), 0);
  // Pass 1: bitmaps, tile offsets and each tile row's count.
  bitmap_detail::parallel_tile_rows(tr, threads, [&](std::int64_t t) {
    std::uint64_t* bm = a.bitmaps.data() + t * kt * kSubtiles;
    for (std::int64_t r = t * kTile; r < std::min(m.rows, (t + 1) * kTile); ++r)
      for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
        if (is_zero(m.val[k])) continue;
        const int rr = static_cast<int>(r - t * kTile), c = m.col[k], cc = c % kTile;
        bm[(c / kTile) * kSubtiles + subtile_of(rr, cc)] |= std::uint64_t{1} << bit_of(rr, cc);
      }
    std::int64_t off = 0;
    for (std::int64_t k = 0; k < kt; ++k) {
      a.tile_off[static_cast<std::size_t>(t * kt + k)] = static_cast<std::uint32_t>(off);
      for (int s = 0; s < kSubtiles; ++s) off += popcount64(bm[k * kSubtiles + s]);
    }
    row_count[static_cast<std::size_t>(t)] = off;
  });
  for (std::int64_t t = 0; t < tr; ++t) a.row_base[t + 1] = a.row_base[t] + row_count[t];
  a.values.assign(static_cast<std::size_t>(a.row_base[tr]), from_float<T>(0.0f));
  // Pass 2: each value at the slot the lanes compute (the rank of its bit).
  bitmap_detail::parallel_tile_rows(tr, threads, [&](std::int64_t t) {
    const std::uint64_t* bm = a.bitmaps.data() + t * kt * kSubtiles;
    for (std::int64_t r = t * kTile; r < std::min(m.rows, (t + 1) * kTile); ++r)
      for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
        if (is_zero(m.val[k])) continue;
        const int rr = static_cast<int>(r - t * kTile), c = m.col[k], cc = c % kTile, s = subtile_of(rr, cc);
        const std::uint64_t* tb = bm + (c / kTile) * kSubtiles;
        const std::int64_t p =
            value_slot(tb, a.row_base[t] + a.tile_off[static_cast<std::size_t>(t * kt + c / kTile)], s, bit_of(rr, cc));
        a.values[static_cast<std::size_t>(p)] = m.val[k];
      }
  });
  return a;
}

template <class T>
std::optional<std::string> Bitmap<T>::find_fault() const {
  using namespace bitmap;
  if (rows < 0 || cols < 0) return "negative shape " + std::to_string(rows) + "x" + std::to_string(cols);
  if (cols > kBitmapMaxCols) return "cols = " + std::to_string(cols) + " exceeds " + std::to_string(kBitmapMaxCols);
  const std::int64_t tr = tile_rows(), kt = k_tiles();
  if (bitmaps.size() != static_cast<std::size_t>(tr * kt * kSubtiles))
    return "bitmaps has " + std::to_string(bitmaps.size()) + " words, expected 4 per tile = " +
           std::to_string(tr * kt * kSubtiles);
  if (tile_off.size() != static_cast<std::size_t>(tr * kt))
    return "tile_off has " + std::to_string(tile_off.size()) + " entries, expected " + std::to_string(tr * kt);
  if (row_base.size() != static_cast<std::size_t>(tr + 1))
    return "row_base has " + std::to_string(row_base.size()) + " entries, expected " + std::to_string(tr + 1);
  if (row_base[0] != 0) return "row_base[0] = " + std::to_string(row_base[0]) + ", expected 0";
  // Bits outside the matrix (the padding of the last tile row and k tile) must be clear.
  const int last_rows = static_cast<int>(rows - (tr - 1) * kTile), last_cols = static_cast<int>(cols - (kt - 1) * kTile);
  for (std::int64_t t = 0; t < tr; ++t) {
    std::int64_t off = 0;
    for (std::int64_t k = 0; k < kt; ++k) {
      const std::size_t tile = static_cast<std::size_t>(t * kt + k);
      if (tile_off[tile] != off)
        return "tile_off[" + std::to_string(tile) + "] = " + std::to_string(tile_off[tile]) + ", expected " +
               std::to_string(off) + " (the popcounts of the tiles before it in tile row " + std::to_string(t) + ")";
      for (int s = 0; s < kSubtiles; ++s) {
        const std::uint64_t w = bitmaps[tile * kSubtiles + static_cast<std::size_t>(s)];
        off += popcount64(w);
        if (t == tr - 1 || k == kt - 1)
          for (int b = 0; b < 64; ++b)
            if ((w >> b) & 1u) {
              const int r = sub_row0(s) + b / 8, c = sub_col0(s) + b % 8;
              if ((t == tr - 1 && r >= last_rows) || (k == kt - 1 && c >= last_cols))
                return "bitmaps[" + std::to_string(tile * kSubtiles + static_cast<std::size_t>(s)) + "] bit " +
                       std::to_string(b) + " marks row " + std::to_string(t * kTile + r) + ", column " +
                       std::to_string(k * kTile + c) + ", outside the " + std::to_string(rows) + "x" +
                       std::to_string(cols) + " matrix";
            }
      }
    }
    if (row_base[t + 1] - row_base[t] != off)
      return "row_base[" + std::to_string(t + 1) + "] - row_base[" + std::to_string(t) + "] = " +
             std::to_string(row_base[t + 1] - row_base[t]) + ", expected the tile row's " + std::to_string(off) +
             " set bits";
  }
  if (static_cast<std::int64_t>(values.size()) != row_base[tr])
    return "values has " + std::to_string(values.size()) + " elements, expected row_base[last] = " +
           std::to_string(row_base[tr]);
  // A set bit is a nonzero (the encoder drops zeros), so decode and encode are inverses.
  for (std::size_t i = 0; i < values.size(); ++i)
    if (is_zero(values[i])) return "values[" + std::to_string(i) + "] is zero: a set bit marks a nonzero";
  return std::nullopt;
}

template <class T>
SparseRows<T> decode_bitmap(const Bitmap<T>& a) {
  using namespace bitmap;
  a.validate();
  SparseRows<T> m;
  m.cols = a.cols;
  const std::int64_t kt = a.k_tiles();
  for (std::int64_t r = 0; r < a.rows; ++r) {
    const std::int64_t t = r / kTile;
    const int rr = static_cast<int>(r % kTile);
    for (std::int64_t k = 0; k < kt; ++k) {
      const std::size_t tile = static_cast<std::size_t>(t * kt + k);
      const std::uint64_t* tb = a.bitmaps.data() + tile * kSubtiles;
      for (int cc = 0; cc < kTile; ++cc) {
        const int s = subtile_of(rr, cc), b = bit_of(rr, cc);
        if (!((tb[s] >> b) & 1u)) continue;
        const std::int64_t p = value_slot(tb, a.row_base[t] + a.tile_off[tile], s, b);
        m.push(static_cast<std::int32_t>(k * kTile + cc), a.values[static_cast<std::size_t>(p)]);
      }
    }
    m.end_row();
  }
  return m;
}

}  // namespace warpsparse
