// MACKO format on the host: encoder, decoder and validation. Layout rules: macko_layout.hpp.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/macko/macko_layout.hpp"
#include "reference/sparse/sparse_rows.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse {

// Row pointers are 32-bit while the padded element count fits in uint32, 64-bit beyond.
struct RowPointers {
  bool wide = false;
  std::vector<std::uint32_t> narrow;
  std::vector<std::uint64_t> wide_ptr;

  std::int64_t operator[](std::int64_t r) const {
    return wide ? static_cast<std::int64_t>(wide_ptr[r]) : static_cast<std::int64_t>(narrow[r]);
  }
  std::int64_t size() const {
    return static_cast<std::int64_t>(wide ? wide_ptr.size() : narrow.size());
  }
  std::size_t bytes() const { return wide ? wide_ptr.size() * 8 : narrow.size() * 4; }
};

struct MackoParams {
  int delta_bits = 4;
  // Emit padding inside a row's trailing zero run too, as the paper's public implementation
  // does. Off by default: it costs storage and changes no product.
  bool emit_trailing_padding = false;
  // Use 64-bit row pointers even when 32 bits suffice (exercises the wide path in tests).
  bool force_wide_row_pointers = false;
  // Round each row's stored length up to a multiple of macko::align_unit (8 elements at 4-bit
  // deltas) with zero-valued elements placed at zero columns of the row (right after its last
  // element first, then in the gaps nearest its end), so that every row starts aligned and ROMA
  // masks nothing. A row whose length is a multiple of the warp's step (32 x 8 elements: exact-nnz
  // rows of LLM widths at d = 0.5) then takes exactly that many steps; a misaligned start adds a
  // whole, nearly empty step (docs/macko-kernel.md). Costs at most align_unit - 1 elements
  // per row; a row without enough zero columns (a dense row) keeps its length. Row-local, like the
  // rest.
  bool align_rows = false;
};

// Where a MACKO matrix breaks an invariant: the array and the index in it (an element of values or
// deltas, a row pointer), so that a file reader can name the byte.
struct MackoFault {
  enum class Array { shape, values, deltas, row_ptr } array;
  std::int64_t index;
  std::string what;
};

template <class T>
struct Macko {
  using value_type = T;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  int delta_bits = 4;
  std::int64_t nnz = 0;  // nonzeros of the source matrix
  RowPointers row_ptr;
  std::vector<T> values;              // padded_length(emitted) elements
  std::vector<std::uint8_t> deltas;   // delta_bytes(padded_length) bytes

  static constexpr ValueType kValueType = ValueTypeOf<T>::value;

  std::int64_t emitted() const { return row_ptr[rows]; }  // nonzeros + padding elements
  std::int64_t padding() const { return emitted() - nnz; }
  std::int64_t padded_length() const { return static_cast<std::int64_t>(values.size()); }

  unsigned delta(std::int64_t e) const {
    return (deltas[macko::delta_byte_index(e, delta_bits)] >> macko::delta_shift(e, delta_bits)) &
           static_cast<unsigned>(macko::max_skip(delta_bits));
  }
  // Bytes of the three arrays as stored.
  std::uint64_t storage_bytes() const {
    return values.size() * sizeof(T) + deltas.size() + row_ptr.bytes();
  }
  // Effective density: stored bits over the dense matrix's bits (macko-paper.txt §3).
  double effective_density() const {
    const double dense = static_cast<double>(rows) * static_cast<double>(cols) * sizeof(T);
    return dense == 0 ? 0.0 : static_cast<double>(storage_bytes()) / dense;
  }

  // The first broken structural invariant the kernels rely on, or none. Every offset and length is
  // checked against the arrays before any row is walked, and a row's walk stops at its own row
  // pointers, so a broken matrix is never read out of bounds.
  std::optional<MackoFault> find_fault() const;
  // Throws Error with find_fault()'s message.
  void validate() const {
    if (const auto f = find_fault()) throw Error(f->what);
  }
};

namespace macko_detail {
// MackoParams::align_rows for the row stored in values/skips from index `first` on: adds zero
// elements at zero columns until the row's length is a multiple of align_unit, if the row has
// that many zero columns. Columns are taken right after the row's last element, then from the
// gaps nearest its end; the elements are re-sorted by column and their skips recomputed. Every
// gap only shrinks or splits, so no skip exceeds max_skip.
template <class T>
void align_row(std::vector<T>& values, std::vector<std::uint8_t>& skips, std::int64_t first, std::int64_t cols,
               int db, T zero) {
  const auto n = static_cast<std::int64_t>(values.size()) - first;
  const std::int64_t need = (macko::align_unit(db) - n % macko::align_unit(db)) % macko::align_unit(db);
  if (need == 0) return;
  std::vector<std::int64_t> col(static_cast<std::size_t>(n));
  std::int64_t c = -1;
  for (std::int64_t i = 0; i < n; ++i) col[static_cast<std::size_t>(i)] = c += skips[static_cast<std::size_t>(first + i)] + 1;
  std::vector<std::int64_t> extra;
  auto short_of = [&] { return static_cast<std::int64_t>(extra.size()) < need; };
  // Right after the last element (a column further on would open a gap the format may not span),
  const std::int64_t last = n > 0 ? col[static_cast<std::size_t>(n - 1)] : -1;
  for (std::int64_t cand = last + 1; cand < cols && short_of(); ++cand) extra.push_back(cand);
  // then inside the gaps, from the end backwards.
  std::int64_t i = n - 1;  // the stored element at or before the candidate column
  for (std::int64_t cand = last - 1; cand >= 0 && short_of(); --cand) {
    while (i >= 0 && col[static_cast<std::size_t>(i)] > cand) --i;
    if (i >= 0 && col[static_cast<std::size_t>(i)] == cand) continue;  // taken
    extra.push_back(cand);
  }
  if (static_cast<std::int64_t>(extra.size()) < need) return;  // too few zero columns: leave it
  std::vector<std::pair<std::int64_t, T>> row;
  row.reserve(static_cast<std::size_t>(n + need));
  for (std::int64_t k = 0; k < n; ++k) row.emplace_back(col[static_cast<std::size_t>(k)], values[static_cast<std::size_t>(first + k)]);
  for (const std::int64_t e : extra) row.emplace_back(e, zero);
  std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  values.resize(static_cast<std::size_t>(first));
  skips.resize(static_cast<std::size_t>(first));
  std::int64_t prev = -1;
  for (const auto& [cc, v] : row) {
    values.push_back(v);
    skips.push_back(static_cast<std::uint8_t>(cc - prev - 1));
    prev = cc;
  }
}
}  // namespace macko_detail

// The elements encode_macko(m, p) stores for row r, from the row's gaps without encoding: its
// nonzeros, a padding element per 2^b columns of each gap (and of the trailing run with
// emit_trailing_padding), and with align_rows the zeros up to a multiple of align_unit, where the
// row has that many zero columns left (align_row: each takes one).
template <class T>
std::int64_t macko_row_length(const SparseRows<T>& m, std::int64_t r, const MackoParams& p) {
  const int db = p.delta_bits;
  std::int64_t prev = -1, n = 0;
  for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
    if (is_zero(m.val[k])) continue;
    n += macko::pads_for_gap(m.col[k] - prev - 1, db) + 1;
    prev = m.col[k];
  }
  if (p.emit_trailing_padding) n += macko::pads_for_gap(m.cols - prev - 1, db);
  const std::int64_t unit = macko::align_unit(db), need = (unit - n % unit) % unit;
  if (p.align_rows && m.cols - n >= need) n += need;
  return n;
}

// What encode_macko(m, p) will store: the emitted elements (macko_row_length), the padded length,
// and the bytes of the arrays and of the encoder's working copies.
struct MackoSize {
  std::int64_t emitted = 0, padded = 0;
  std::uint64_t array_bytes = 0;  // values, deltas and row pointers as stored
  std::uint64_t encode_bytes = 0;  // what encode_macko holds at its peak
};
template <class T>
MackoSize macko_size(const SparseRows<T>& m, const MackoParams& p = {}) {
  require(macko::valid_delta_bits(p.delta_bits), "delta bits must be 1, 2, 4 or 8, got " + std::to_string(p.delta_bits));
  const int db = p.delta_bits;
  MackoSize s;
  for (std::int64_t r = 0; r < m.rows; ++r) s.emitted += macko_row_length(m, r, p);
  s.padded = macko::padded_length(s.emitted, db);
  const auto padded = static_cast<std::uint64_t>(s.padded);
  s.array_bytes = padded * sizeof(T) + static_cast<std::uint64_t>(macko::delta_bytes(s.padded, db)) +
                  static_cast<std::uint64_t>(m.rows + 1) * (padded > UINT32_MAX ? 8 : 4);
  s.encode_bytes = s.array_bytes + padded + static_cast<std::uint64_t>(m.rows + 1) * 8;  // skips, 64-bit pointers
  return s;
}

template <class T>
Macko<T> encode_macko(const SparseRows<T>& m, const MackoParams& p = {}) {
  require(macko::valid_delta_bits(p.delta_bits),
          "delta bits must be 1, 2, 4 or 8, got " + std::to_string(p.delta_bits));
  m.validate();
  const int db = p.delta_bits;
  const std::int64_t step = std::int64_t{macko::max_skip(db)} + 1;

  Macko<T> out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.delta_bits = db;
  std::vector<std::uint64_t> ptr;
  ptr.reserve(static_cast<std::size_t>(m.rows) + 1);
  ptr.push_back(0);
  std::vector<std::uint8_t> skips;  // one per emitted element, packed below
  skips.reserve(m.val.size());
  out.values.reserve(m.val.size());
  const T zero = from_float<T>(0.0f);

  for (std::int64_t r = 0; r < m.rows; ++r) {
    std::int64_t prev = -1;  // the row starts before column 0
    auto emit_run_to = [&](std::int64_t c) {  // pad until column c is reachable from prev
      for (std::int64_t k = macko::pads_for_gap(c - prev - 1, db); k > 0; --k) {
        prev += step;
        out.values.push_back(zero);
        skips.push_back(static_cast<std::uint8_t>(macko::max_skip(db)));
      }
    };
    for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
      if (is_zero(m.val[k])) continue;
      const std::int64_t c = m.col[k];
      emit_run_to(c);
      out.values.push_back(m.val[k]);
      skips.push_back(static_cast<std::uint8_t>(c - prev - 1));
      prev = c;
      ++out.nnz;
    }
    if (p.emit_trailing_padding) emit_run_to(m.cols);
    if (p.align_rows) macko_detail::align_row(out.values, skips, static_cast<std::int64_t>(ptr.back()), m.cols, db, zero);
    ptr.push_back(out.values.size());
  }

  const std::int64_t emitted = static_cast<std::int64_t>(out.values.size());
  const std::int64_t padded = macko::padded_length(emitted, db);
  out.values.resize(static_cast<std::size_t>(padded), zero);
  out.deltas.assign(static_cast<std::size_t>(macko::delta_bytes(padded, db)), 0);
  for (std::int64_t e = 0; e < emitted; ++e)
    out.deltas[macko::delta_byte_index(e, db)] |=
        static_cast<std::uint8_t>(skips[e] << macko::delta_shift(e, db));

  out.row_ptr.wide = p.force_wide_row_pointers ||
                     padded > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max());
  if (out.row_ptr.wide) {
    out.row_ptr.wide_ptr = std::move(ptr);
  } else {
    out.row_ptr.narrow.assign(ptr.begin(), ptr.end());
  }
  return out;
}

template <class T>
std::optional<MackoFault> Macko<T>::find_fault() const {
  using A = MackoFault::Array;
  auto fault = [](A array, std::int64_t index, std::string what) { return MackoFault{array, index, std::move(what)}; };
  if (!macko::valid_delta_bits(delta_bits))
    return fault(A::shape, 0, "delta_bits = " + std::to_string(delta_bits) + " is not 1, 2, 4 or 8");
  if (rows < 0 || cols < 0 || cols > kMaxCols)
    return fault(A::shape, 0, "bad shape " + std::to_string(rows) + "x" + std::to_string(cols));
  if (row_ptr.size() != rows + 1)
    return fault(A::row_ptr, 0, "row_ptr has " + std::to_string(row_ptr.size()) + " entries, expected rows + 1 = " +
                                    std::to_string(rows + 1));
  if (row_ptr[0] != 0) return fault(A::row_ptr, 0, "row_ptr[0] = " + std::to_string(row_ptr[0]) + ", expected 0");
  // Row pointers first: non-decreasing, so every one lies in [0, row_ptr[rows]] = [0, emitted].
  // NOTE: hot loops test first and build the message only on failure (this runs over every row and
  // element of matrices with ~10^9 entries in the benchmarks).
  for (std::int64_t r = 0; r < rows; ++r) {
    if (row_ptr[r + 1] > row_ptr[rows])
      return fault(A::row_ptr, r + 1, "row_ptr[" + std::to_string(r + 1) + "] = " + std::to_string(row_ptr[r + 1]) +
                                          " lies past row_ptr[rows] = " + std::to_string(row_ptr[rows]));
    if (row_ptr[r] > row_ptr[r + 1])
      return fault(A::row_ptr, r + 1, "row_ptr[" + std::to_string(r + 1) + "] = " + std::to_string(row_ptr[r + 1]) +
                                          " is below row_ptr[" + std::to_string(r) + "] = " + std::to_string(row_ptr[r]));
  }
  if (!row_ptr.wide && padded_length() > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
    return fault(A::row_ptr, 0, "32-bit row pointers cannot address " + std::to_string(padded_length()) + " elements");
  if (padded_length() != macko::padded_length(emitted(), delta_bits))
    return fault(A::values, padded_length(),
                 "values has " + std::to_string(padded_length()) + " elements, expected " +
                     std::to_string(macko::padded_length(emitted(), delta_bits)) + " for " + std::to_string(emitted()) +
                     " emitted elements (row_ptr[rows])");
  if (static_cast<std::int64_t>(deltas.size()) != macko::delta_bytes(padded_length(), delta_bits))
    return fault(A::deltas, 0, "deltas has " + std::to_string(deltas.size()) + " bytes, expected " +
                                   std::to_string(macko::delta_bytes(padded_length(), delta_bits)));
  std::int64_t nonzero = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t c = -1;
    for (std::int64_t k = row_ptr[r], e = row_ptr[r + 1]; k < e; ++k) {
      c += std::int64_t{delta(k)} + 1;
      if (c >= cols)
        return fault(A::deltas, k, "row " + std::to_string(r) + ": element " + std::to_string(k) + " decodes to column " +
                                       std::to_string(c) + " >= cols " + std::to_string(cols));
      if (!is_zero(values[k])) ++nonzero;
    }
  }
  if (nonzero != nnz)
    return fault(A::shape, 0, "header nnz " + std::to_string(nnz) + " differs from the " + std::to_string(nonzero) +
                                  " nonzero values stored");
  return std::nullopt;
}

// Split-base table of Schedule::row_splits: entry k is the column of the last element before
// element k * kSplitUnit within the row holding that element (-1 when it is the row's first);
// entries whose element lies in no row are 0. The kernels and the warp model read their split
// starts from it; the model also checks each entry against its own running column.
template <class T>
std::vector<std::int32_t> macko_split_bases(const Macko<T>& a) {
  constexpr std::int64_t kU = macko::kSplitUnit;
  std::vector<std::int32_t> t(static_cast<std::size_t>((a.padded_length() + kU - 1) / kU), 0);
  for (std::int64_t r = 0; r < a.rows; ++r) {
    const std::int64_t b = a.row_ptr[r], e = a.row_ptr[r + 1];
    std::int64_t next = (b + kU - 1) / kU * kU;  // next multiple of the unit inside the row
    std::int64_t c = -1;
    for (std::int64_t k = b; k < e; ++k) {
      if (k == next) {
        t[static_cast<std::size_t>(k / kU)] = static_cast<std::int32_t>(c);
        next += kU;
      }
      c += std::int64_t{a.delta(k)} + 1;
    }
  }
  return t;
}

// Decoder: an independent path from the arrays back to rows (the oracle's input). Padding
// elements are dropped; every decoded column is range-checked.
template <class T>
SparseRows<T> decode_macko(const Macko<T>& a) {
  a.validate();
  SparseRows<T> out;
  out.cols = a.cols;
  for (std::int64_t r = 0; r < a.rows; ++r) {
    std::int64_t c = -1;
    for (std::int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      c += std::int64_t{a.delta(k)} + 1;
      if (!is_zero(a.values[k])) out.push(static_cast<std::int32_t>(c), a.values[k]);
    }
    out.end_row();
  }
  return out;
}

}  // namespace warpsparse
