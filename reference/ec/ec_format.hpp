// EC-CSR on the host (ec-spmv-paper.txt §6; decisions in docs/ec-spmv.md): the format, its
// encoder from an extraction, its decoder, structural validation and storage accounting.
// Layout rules: ec_layout.hpp; how columns become lane chunks: ec_fill.hpp.
#pragma once
#include <algorithm>
#include <functional>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/ec/ec_fill.hpp"
#include "reference/ec/ec_layout.hpp"
#include "reference/ec/ec_types.hpp"
#include "reference/sparse/sparse_rows.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse {

// One block set: blocks of one granularity G and one lane width v. Block b owns steps
// [step_ptr[b], step_ptr[b+1]) of the set; a step is kLanes · v slots, so its values start at
// step · kLanes · v · G and its deltas at byte delta_byte(step · kLanes · v).
template <class T>
struct EcSet {
  int group = 1;          // G: rows per block
  int vec = 1;            // v: slots per lane and step
  bool is_short = false;  // the G = 1 short blocks (v = 1)
  std::vector<std::uint32_t> rows;      // G per block, distinct within a block
  std::vector<std::uint32_t> step_ptr{0};  // blocks + 1
  std::vector<std::uint32_t> bases;     // kLanes per block: each lane's first column
  std::vector<std::uint8_t> deltas;     // delta_bytes(slots)
  std::vector<T> values;                // slots · G

  std::int64_t blocks() const { return static_cast<std::int64_t>(step_ptr.size()) - 1; }
  std::int64_t steps() const { return step_ptr.back(); }
  std::int64_t step_slots() const { return std::int64_t{ec::kLanes} * vec; }
  std::int64_t slots() const { return steps() * step_slots(); }
  std::int64_t block_slots(std::int64_t b) const { return (std::int64_t{step_ptr[b + 1]} - step_ptr[b]) * step_slots(); }
  unsigned delta(std::int64_t p, int bits) const {
    return (deltas[static_cast<std::size_t>(ec::delta_byte(p, bits))] >> ec::delta_shift(p, bits)) &
           static_cast<unsigned>(ec::max_delta(bits));
  }
  std::string name() const { return "G=" + std::to_string(group) + (is_short ? " short" : group == 1 ? " long" : ""); }
  // Walks every lane of block b in slot order: f(block, lane, j, position, delta, column) with the
  // running column after the delta is added. Stops (and returns false) when f returns false.
  // The one walk that validation, storage accounting, the decoder and the file reader share.
  template <class F>
  bool walk_block(std::int64_t b, int bits, F&& f) const {
    const std::int64_t first = std::int64_t{step_ptr[b]} * step_slots();
    const std::int64_t L = (std::int64_t{step_ptr[b + 1]} - step_ptr[b]) * vec;
    for (int l = 0; l < ec::kLanes; ++l) {
      std::int64_t c = bases[static_cast<std::size_t>(b * ec::kLanes + l)];
      for (std::int64_t j = 0; j < L; ++j) {
        const std::int64_t p = first + ec::slot_position(j, l, vec);
        const unsigned d = delta(p, bits);
        c += d;
        if (!f(b, l, j, p, d, c)) return false;
      }
    }
    return true;
  }
  // The same over every block.
  template <class F>
  bool walk(int bits, F&& f) const {
    for (std::int64_t b = 0; b < blocks(); ++b)
      if (!walk_block(b, bits, f)) return false;
    return true;
  }
};

// Where an EC matrix breaks an invariant: the set, the array and the index in it.
struct EcFault {
  int set = -1;
  std::string array;
  std::int64_t index = 0;
  std::string what;
};

// What the stored slots are, in values (a G-block slot counts G), and bytes by array.
struct EcStorage {
  std::int64_t nnz = 0, stored_values = 0;
  std::int64_t gap_padding = 0;    // slots inserted for gaps wider than the delta range
  std::int64_t align_padding = 0;  // trailing slots of short blocks (delta 0)
  std::uint64_t value_bytes = 0, delta_bytes = 0, base_bytes = 0, row_bytes = 0, offset_bytes = 0, desc_bytes = 0;
  std::vector<std::int64_t> nnz_by_set;  // nonzeros held by each set
  std::int64_t padding() const { return gap_padding + align_padding; }
  std::uint64_t total() const { return value_bytes + delta_bytes + base_bytes + row_bytes + offset_bytes + desc_bytes; }
};

template <class T>
struct Ec {
  using value_type = T;
  std::int64_t rows = 0, cols = 0;
  int delta_bits = 8;
  std::int64_t nnz = 0;
  std::vector<EcSet<T>> sets;  // descending G, then the G = 1 long set, then the G = 1 short set

  static constexpr ValueType kValueType = ValueTypeOf<T>::value;
  // Bases are stored in 16 bits while every column fits (a matrix property, like MACKO's
  // row-pointer width).
  int base_bits() const { return cols <= 65536 ? 16 : 32; }
  static constexpr int kSetDescBytes = 64;  // G, v, flags, counts, array offsets (ec_file)

  EcStorage storage() const;
  std::uint64_t storage_bytes() const { return storage().total(); }
  double effective_density() const {
    const double dense = static_cast<double>(rows) * static_cast<double>(cols) * sizeof(T);
    return dense == 0 ? 0.0 : static_cast<double>(storage_bytes()) / dense;
  }
  std::optional<EcFault> find_fault() const;
  void validate() const {
    if (const auto f = find_fault()) throw Error(f->what);
  }
};

// The set order of every EC matrix: descending G up to max_group, then G = 1 long and short.
// Descriptors only: the arrays are empty.
template <class T>
std::vector<EcSet<T>> ec_empty_sets(int max_group) {
  std::vector<EcSet<T>> s;
  for (int g = max_group; g >= 1; g /= 2) {
    EcSet<T> set;
    set.group = g;
    set.vec = ec::long_vec(g, sizeof(T));
    s.push_back(std::move(set));
  }
  EcSet<T> sh;
  sh.group = 1;
  sh.vec = 1;
  sh.is_short = true;
  s.push_back(std::move(sh));
  return s;
}

namespace ec_detail {
struct PendingBlock {
  std::vector<std::uint32_t> rows;
  ec::Fill fill;
  std::int64_t first_col() const { return fill.col.empty() ? 0 : fill.col.front(); }
};

// The value of row r at column c (zero when absent): a binary search in the row.
template <class T>
T value_at(const SparseRows<T>& m, std::int64_t r, std::int32_t c) {
  const auto b = m.col.begin() + m.row_ptr[r], e = m.col.begin() + m.row_ptr[r + 1];
  const auto it = std::lower_bound(b, e, c);
  return it != e && *it == c ? m.val[static_cast<std::size_t>(it - m.col.begin())] : from_float<T>(0.0f);
}

template <class T>
void append_block(EcSet<T>& s, const PendingBlock& pb, const SparseRows<T>& m, int bits) {
  const int G = s.group, v = s.vec;
  const std::int64_t L = pb.fill.per_lane;
  const std::int64_t first = s.slots();
  s.step_ptr.push_back(static_cast<std::uint32_t>(s.steps() + L / v));
  s.rows.insert(s.rows.end(), pb.rows.begin(), pb.rows.end());
  const std::int64_t total = s.slots();
  s.values.resize(static_cast<std::size_t>(total * G), from_float<T>(0.0f));
  s.deltas.resize(static_cast<std::size_t>(ec::delta_bytes(total, bits)), 0);
  for (int l = 0; l < ec::kLanes; ++l) {
    s.bases.push_back(static_cast<std::uint32_t>(pb.fill.col[static_cast<std::size_t>(l * L)]));
    std::int64_t prev = pb.fill.col[static_cast<std::size_t>(l * L)];
    for (std::int64_t j = 0; j < L; ++j) {
      const std::size_t i = static_cast<std::size_t>(l * L + j);
      const std::int64_t p = first + ec::slot_position(j, l, v);
      const std::int32_t c = pb.fill.col[i];
      const auto d = static_cast<unsigned>(c - prev);
      prev = c;
      s.deltas[static_cast<std::size_t>(ec::delta_byte(p, bits))] |= static_cast<std::uint8_t>(d << ec::delta_shift(p, bits));
      if (pb.fill.real[i])
        for (int k = 0; k < G; ++k) s.values[static_cast<std::size_t>(p * G + k)] = value_at(m, pb.rows[static_cast<std::size_t>(k)], c);
    }
  }
}
}  // namespace ec_detail

// The layout of an extraction of m (m without zeros): each G >= 2 block and each row's G = 1
// residual (its long prefix at v = long_vec(1), the rest as a short block) placed per
// ec_layout.hpp. Blocks within a set are sorted by descending stored values, ties to the smaller
// first row, then the smaller first column, so the bytes are a function of the matrix and the
// parameters alone. encode_ec (ec_encode.hpp) is extraction followed by this.
template <class T>
Ec<T> ec_layout_blocks(const SparseRows<T>& m, ec::EcExtraction ex, const ec::EcParams& p = {},
                       ec::EcExtraction* stats = nullptr) {
  require(ec::valid_delta_bits(p.delta_bits), "EC delta bits must be 4 or 8, got " + std::to_string(p.delta_bits));
  require(p.max_group == 8 || p.max_group == 16, "EC max_group must be 8 or 16, got " + std::to_string(p.max_group));
  require(p.lanes == ec::kLanes && p.vec == 4, "the EC format lays out 32 lanes at v = 4 for G >= 2 (lanes and vec are "
                                                "extraction-only knobs)");
  require(ex.rows == m.rows && static_cast<std::int64_t>(ex.residual.size()) == m.rows,
          "EC extraction covers " + std::to_string(ex.residual.size()) + " rows of a matrix of " + std::to_string(m.rows));
  Ec<T> out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.delta_bits = p.delta_bits;
  out.nnz = m.nnz();
  out.sets = ec_empty_sets<T>(p.max_group);
  const int n_sets = static_cast<int>(out.sets.size());
  auto set_of = [&](int group, bool is_short) {
    for (int i = 0; i < n_sets; ++i)
      if (out.sets[i].group == group && out.sets[i].is_short == is_short) return i;
    throw Error("no EC set for G = " + std::to_string(group));
  };
  std::vector<std::vector<ec_detail::PendingBlock>> pending(static_cast<std::size_t>(n_sets));
  for (auto& u : ex.blocks) {
    const int si = set_of(u.group, false);
    ec::Fill f = ec::fill_long(u.cols, out.sets[si].vec, p.delta_bits, p.min_steps);
    require(f.per_lane > 0 && f.used == static_cast<std::int64_t>(u.cols.size()),
            "EC extraction returned a G = " + std::to_string(u.group) + " block of " + std::to_string(u.cols.size()) +
                " columns that does not fill whole steps");
    pending[static_cast<std::size_t>(si)].push_back({std::move(u.rows), std::move(f)});
  }
  const int long1 = set_of(1, false), short1 = set_of(1, true);
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const auto& res = ex.residual[static_cast<std::size_t>(r)];
    if (res.empty()) continue;
    ec::Fill lf = ec::fill_long(res, out.sets[long1].vec, p.delta_bits, 1);
    const auto used = static_cast<std::size_t>(lf.used);
    if (lf.per_lane > 0) pending[static_cast<std::size_t>(long1)].push_back({{static_cast<std::uint32_t>(r)}, std::move(lf)});
    if (used < res.size())
      pending[static_cast<std::size_t>(short1)].push_back(
          {{static_cast<std::uint32_t>(r)}, ec::fill_short(std::span(res).subspan(used), p.delta_bits)});
  }
  if (stats) {
    ex.residual.clear();  // the caller wants the statistics, not a second copy of the matrix
    for (auto& b : ex.blocks) b.cols.clear();
    *stats = std::move(ex);
  }
  for (int si = 0; si < n_sets; ++si) {
    auto& list = pending[static_cast<std::size_t>(si)];
    const int G = out.sets[si].group;
    std::sort(list.begin(), list.end(), [&](const auto& a, const auto& b) {
      const std::int64_t sa = a.fill.slots() * G, sb = b.fill.slots() * G;
      if (sa != sb) return sa > sb;
      if (a.rows.front() != b.rows.front()) return a.rows.front() < b.rows.front();
      return a.first_col() < b.first_col();
    });
    for (const auto& pb : list) ec_detail::append_block(out.sets[si], pb, m, p.delta_bits);
  }
  return out;
}

template <class T>
std::optional<EcFault> Ec<T>::find_fault() const {
  auto fault = [](int set, std::string array, std::int64_t index, std::string what) {
    return EcFault{set, std::move(array), index, std::move(what)};
  };
  if (!ec::valid_delta_bits(delta_bits))
    return fault(-1, "header", 0, "delta_bits = " + std::to_string(delta_bits) + " is not 4 or 8");
  if (rows < 0 || cols < 0 || cols > kMaxCols || rows > std::int64_t{UINT32_MAX})
    return fault(-1, "header", 0, "bad shape " + std::to_string(rows) + "x" + std::to_string(cols));
  if (nnz < 0) return fault(-1, "header", 0, "negative nnz " + std::to_string(nnz));
  // The set order is part of the format (the kernel's partial sums are added in it).
  int expect_group = static_cast<int>(sets.size()) >= 2 ? 1 << (static_cast<int>(sets.size()) - 2) : 0;
  if (sets.size() != 5 && sets.size() != 6)
    return fault(-1, "header", 0, std::to_string(sets.size()) + " block sets, expected 5 (G = 8, 4, 2, 1, 1 short) or 6");
  std::int64_t nonzero = 0;
  for (int si = 0; si < static_cast<int>(sets.size()); ++si) {
    const EcSet<T>& s = sets[static_cast<std::size_t>(si)];
    const bool last = si + 1 == static_cast<int>(sets.size());
    const int want_g = last ? 1 : expect_group >> si;
    const int want_v = last ? 1 : ec::long_vec(want_g, sizeof(T));
    const std::string where = "set " + std::to_string(si) + " (" + s.name() + ")";
    if (s.group != want_g || s.vec != want_v || s.is_short != last)
      return fault(si, "header", 0, where + ": G = " + std::to_string(s.group) + ", v = " + std::to_string(s.vec) +
                                        ", expected G = " + std::to_string(want_g) + ", v = " + std::to_string(want_v));
    if (s.step_ptr.empty() || s.step_ptr[0] != 0) return fault(si, "step_ptr", 0, where + ": step_ptr must start at 0");
    const std::int64_t nb = s.blocks();
    for (std::int64_t b = 0; b < nb; ++b)
      if (s.step_ptr[b + 1] <= s.step_ptr[b])
        return fault(si, "step_ptr", b + 1, where + ": block " + std::to_string(b) + " has no steps (step_ptr[" +
                                                std::to_string(b + 1) + "] = " + std::to_string(s.step_ptr[b + 1]) + ")");
    const std::int64_t slots = s.slots();
    if (static_cast<std::int64_t>(s.rows.size()) != nb * s.group)
      return fault(si, "rows", 0, where + ": " + std::to_string(s.rows.size()) + " row indices for " + std::to_string(nb) + " blocks");
    if (static_cast<std::int64_t>(s.bases.size()) != nb * ec::kLanes)
      return fault(si, "bases", 0, where + ": " + std::to_string(s.bases.size()) + " bases for " + std::to_string(nb) + " blocks");
    if (static_cast<std::int64_t>(s.values.size()) != slots * s.group)
      return fault(si, "values", 0, where + ": " + std::to_string(s.values.size()) + " values, expected " + std::to_string(slots * s.group));
    if (static_cast<std::int64_t>(s.deltas.size()) != ec::delta_bytes(slots, delta_bits))
      return fault(si, "deltas", 0, where + ": " + std::to_string(s.deltas.size()) + " delta bytes, expected " +
                                        std::to_string(ec::delta_bytes(slots, delta_bits)));
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(s.rows.size()); ++i) {
      if (s.rows[i] >= rows)
        return fault(si, "rows", i, where + ": row index " + std::to_string(s.rows[i]) + " >= rows " + std::to_string(rows));
      for (std::int64_t k = i / s.group * s.group; k < i; ++k)
        if (s.rows[k] == s.rows[i])
          return fault(si, "rows", i, where + ": block " + std::to_string(i / s.group) + " lists row " + std::to_string(s.rows[i]) + " twice");
    }
    // Walk every lane: columns stay in [0, cols), the first delta is 0.
    std::optional<EcFault> bad;
    s.walk(delta_bits, [&](std::int64_t b, int l, std::int64_t j, std::int64_t p, unsigned d, std::int64_t c) {
      const std::string at = where + ": block " + std::to_string(b) + " lane " + std::to_string(l);
      int held = 0;
      for (int k = 0; k < s.group; ++k) held += is_zero(s.values[static_cast<std::size_t>(p * s.group + k)]) ? 0 : 1;
      nonzero += held;
      if (j == 0 && d != 0) bad = fault(si, "deltas", p, at + " starts with delta " + std::to_string(d) + ", expected 0");
      else if (c >= cols) bad = fault(si, "deltas", p, at + " reaches column " + std::to_string(c) + " >= cols " + std::to_string(cols));
      // Only a short block's trailing slots repeat a column (delta 0), and they hold zeros.
      else if (j > 0 && d == 0 && (!s.is_short || held != 0))
        bad = fault(si, "deltas", p, at + " slot " + std::to_string(j) + ": delta 0 " +
                                         (s.is_short ? "on a slot holding a value" : "inside a long block"));
      // A real column of a G-block holds a value in every row; padding holds none.
      else if (held != 0 && held != s.group)
        bad = fault(si, "values", p * s.group, at + " slot " + std::to_string(j) + " holds " + std::to_string(held) + " of its " +
                                                   std::to_string(s.group) + " rows' values (all or none)");
      return !bad;
    });
    if (bad) return bad;
  }
  if (nonzero != nnz)
    return fault(-1, "header", 0, "header nnz " + std::to_string(nnz) + " differs from the " + std::to_string(nonzero) + " nonzero values stored");
  return std::nullopt;
}

template <class T>
EcStorage Ec<T>::storage() const {
  EcStorage st;
  st.nnz = nnz;
  for (const EcSet<T>& s : sets) {
    std::int64_t held = 0;
    s.walk(delta_bits, [&](std::int64_t, int, std::int64_t, std::int64_t p, unsigned d, std::int64_t) {
      bool any = false;
      for (int k = 0; k < s.group; ++k) any |= !is_zero(s.values[static_cast<std::size_t>(p * s.group + k)]);
      // A padding slot with delta 0 repeats a column (a short block's tail, an idle lane's base);
      // any other padding slot bridges a gap wider than the delta range.
      if (any) held += s.group;
      else if (d == 0) st.align_padding += s.group;
      else st.gap_padding += s.group;
      return true;
    });
    st.nnz_by_set.push_back(held);
    st.stored_values += s.slots() * s.group;
    st.value_bytes += static_cast<std::uint64_t>(s.values.size()) * sizeof(T);
    st.delta_bytes += s.deltas.size();
    st.base_bytes += s.bases.size() * static_cast<std::uint64_t>(base_bits() / 8);
    st.row_bytes += s.rows.size() * 4;
    st.offset_bytes += s.step_ptr.size() * 4;
    st.desc_bytes += kSetDescBytes;
  }
  return st;
}

// Decoder: an independent path from the arrays back to rows. Padding (zero values) is dropped;
// a (row, column) held twice is an error.
template <class T>
SparseRows<T> decode_ec(const Ec<T>& a) {
  a.validate();
  std::vector<std::vector<std::pair<std::int32_t, T>>> rows(static_cast<std::size_t>(a.rows));
  for (const EcSet<T>& s : a.sets)
    s.walk(a.delta_bits, [&](std::int64_t b, int, std::int64_t, std::int64_t p, unsigned, std::int64_t c) {
      for (int k = 0; k < s.group; ++k) {
        const T v = s.values[static_cast<std::size_t>(p * s.group + k)];
        if (!is_zero(v)) rows[s.rows[static_cast<std::size_t>(b * s.group + k)]].emplace_back(static_cast<std::int32_t>(c), v);
      }
      return true;
    });
  SparseRows<T> out;
  out.cols = a.cols;
  for (std::int64_t r = 0; r < a.rows; ++r) {
    auto& row = rows[static_cast<std::size_t>(r)];
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t i = 0; i < row.size(); ++i) {
      require(i == 0 || row[i].first != row[i - 1].first,
              "EC matrix holds row " + std::to_string(r) + ", column " + std::to_string(row[i].first) + " twice");
      out.push(row[i].first, row[i].second);
    }
    out.end_row();
  }
  return out;
}

}  // namespace warpsparse
