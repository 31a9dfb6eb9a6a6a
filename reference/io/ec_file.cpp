#include "reference/io/ec_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "reference/io/binary_stream.hpp"
#include "reference/io/output_file.hpp"

namespace warpsparse::io {

namespace {

// Offsets of the header fields (see ec_file.hpp).
enum Off : std::size_t {
  kVersion = 8, kValueType = 12, kDeltaBits = 13, kBaseBits = 14, kReserved = 15, kRows = 16, kCols = 24,
  kNnz = 32, kSetCount = 40, kReserved2 = 44,
};
// Offsets within a set descriptor.
enum DescOff : std::size_t {
  kGroup = 0, kVec = 1, kFlags = 2, kDescDeltaBits = 3, kDescReserved = 4, kBlocks = 8, kSteps = 16,
  kRowsBytes = 24, kStepPtrBytes = 32, kBaseBytes = 40, kDeltaBytes = 48, kValueBytes = 56,
};
constexpr std::uint64_t kArrays = 5;  // rows, step_ptr, bases, deltas, values
constexpr const char* kArrayNames[kArrays] = {"rows", "step_ptr", "bases", "deltas", "values"};
constexpr std::size_t kLengthField[kArrays] = {kRowsBytes, kStepPtrBytes, kBaseBytes, kDeltaBytes, kValueBytes};

int base_bits_for(std::uint64_t cols) { return cols <= 65536 ? 16 : 32; }

// The byte lengths of a set's arrays in the file, in file order.
template <class T>
std::array<std::uint64_t, kArrays> set_lengths(const EcSet<T>& s, int base_bits) {
  return {s.rows.size() * std::uint64_t{4}, s.step_ptr.size() * std::uint64_t{4},
          s.bases.size() * static_cast<std::uint64_t>(base_bits / 8), s.deltas.size(), s.values.size() * sizeof(T)};
}

// The header and the descriptors of a matrix, checksum included (the arrays are hashed, not copied).
template <class T>
std::vector<std::uint8_t> header_bytes(const Ec<T>& m) {
  m.validate();
  const int bb = m.base_bits();
  std::vector<std::uint8_t> out(kEcHeaderBytes + m.sets.size() * kEcSetDescBytes, 0);
  const std::span<std::uint8_t> h(out);
  std::memcpy(h.data(), kEcMagic, sizeof kEcMagic);
  store_le<std::uint32_t>(h, kVersion, kEcVersion);
  store_le<std::uint8_t>(h, kValueType, static_cast<std::uint8_t>(Ec<T>::kValueType));
  store_le<std::uint8_t>(h, kDeltaBits, static_cast<std::uint8_t>(m.delta_bits));
  store_le<std::uint8_t>(h, kBaseBits, static_cast<std::uint8_t>(bb));
  store_le<std::uint64_t>(h, kRows, static_cast<std::uint64_t>(m.rows));
  store_le<std::uint64_t>(h, kCols, static_cast<std::uint64_t>(m.cols));
  store_le<std::uint64_t>(h, kNnz, static_cast<std::uint64_t>(m.nnz));
  store_le<std::uint32_t>(h, kSetCount, static_cast<std::uint32_t>(m.sets.size()));
  for (std::size_t si = 0; si < m.sets.size(); ++si) {
    const EcSet<T>& s = m.sets[si];
    const auto d = h.subspan(kEcHeaderBytes + si * kEcSetDescBytes, kEcSetDescBytes);
    store_le<std::uint8_t>(d, kGroup, static_cast<std::uint8_t>(s.group));
    store_le<std::uint8_t>(d, kVec, static_cast<std::uint8_t>(s.vec));
    store_le<std::uint8_t>(d, kFlags, static_cast<std::uint8_t>(s.is_short ? 1 : 0));
    store_le<std::uint8_t>(d, kDescDeltaBits, static_cast<std::uint8_t>(m.delta_bits));
    store_le<std::uint64_t>(d, kBlocks, static_cast<std::uint64_t>(s.blocks()));
    store_le<std::uint64_t>(d, kSteps, static_cast<std::uint64_t>(s.steps()));
    const auto len = set_lengths(s, bb);
    for (std::uint64_t a = 0; a < kArrays; ++a) store_le<std::uint64_t>(d, kLengthField[a], len[a]);
  }
  return out;
}

// Calls emit(bytes) for each array of m in file order; 16-bit bases go through a small buffer.
template <class T, class Emit>
void for_each_array(const Ec<T>& m, Emit emit) {
  const bool narrow = m.base_bits() == 16;
  std::vector<std::uint16_t> b16;
  for (const EcSet<T>& s : m.sets) {
    emit(byte_span(s.rows.data(), s.rows.size() * 4));
    emit(byte_span(s.step_ptr.data(), s.step_ptr.size() * 4));
    if (narrow) {
      b16.assign(s.bases.begin(), s.bases.end());  // validate() holds every base below cols <= 65536
      emit(byte_span(b16.data(), b16.size() * 2));
    } else {
      emit(byte_span(s.bases.data(), s.bases.size() * 4));
    }
    emit(byte_span(s.deltas.data(), s.deltas.size()));
    emit(byte_span(s.values.data(), s.values.size() * sizeof(T)));
  }
}

// Header and descriptors with the checksum filled in.
template <class T>
std::vector<std::uint8_t> checksummed_header(const Ec<T>& m) {
  std::vector<std::uint8_t> h = header_bytes(m);
  std::uint64_t hash = file_checksum(h, kEcChecksumOffset);
  for_each_array(m, [&](std::span<const std::uint8_t> part) { hash = fnv1a64(part, hash); });
  store_le<std::uint64_t>(h, kEcChecksumOffset, hash);
  return h;
}

}  // namespace

template <class T>
std::vector<std::uint8_t> serialize_ec(const Ec<T>& m) {
  std::vector<std::uint8_t> out = checksummed_header(m);
  for_each_array(m, [&](std::span<const std::uint8_t> part) { out.insert(out.end(), part.begin(), part.end()); });
  return out;
}

std::vector<std::uint8_t> serialize_ec(const AnyEc& m) {
  return std::visit([](const auto& a) { return serialize_ec(a); }, m);
}

std::uint64_t ec_file_checksum(std::span<const std::uint8_t> file) { return file_checksum(file, kEcChecksumOffset); }

namespace {

// What the descriptors of a file say, checked: per set its shape and where its arrays start.
struct SetLayout {
  int group = 1, vec = 1;
  bool is_short = false;
  std::uint64_t blocks = 0, steps = 0;
  std::array<std::uint64_t, kArrays> bytes{}, at{};  // length and file offset of each array
};

// The first (row, column) held twice by m, as (set, value index) of its second occurrence in walk
// order (sets, blocks, rows of the block, lanes, slots) with a message; nothing when none. Each
// row's columns are gathered from the blocks that list it (the blocks of a row come from the row
// index arrays, so the memory is the largest row's nonzeros plus one entry per (block, row)).
template <class T>
std::optional<std::pair<EcFault, std::int64_t>> duplicate_fault(const Ec<T>& m) {
  struct Entry {
    std::uint32_t row, set, block, k;
  };
  std::vector<Entry> entries;
  for (std::size_t si = 0; si < m.sets.size(); ++si) {
    const EcSet<T>& s = m.sets[si];
    for (std::size_t i = 0; i < s.rows.size(); ++i)
      entries.push_back({s.rows[i], static_cast<std::uint32_t>(si), static_cast<std::uint32_t>(i / static_cast<std::size_t>(s.group)),
                         static_cast<std::uint32_t>(i % static_cast<std::size_t>(s.group))});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.row < b.row; });
  // Walks block (set, block) for its k-th row: f(column, value index) for each nonzero slot.
  auto walk = [&](const Entry& e, auto&& f) {
    const EcSet<T>& s = m.sets[e.set];
    s.walk_block(e.block, m.delta_bits, [&](std::int64_t, int, std::int64_t, std::int64_t p, unsigned, std::int64_t c) {
      const std::int64_t vi = p * s.group + e.k;
      if (!is_zero(s.values[static_cast<std::size_t>(vi)])) f(c, vi);
      return true;
    });
  };
  std::vector<std::int64_t> cols;
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t e = i;
    while (e < entries.size() && entries[e].row == entries[i].row) ++e;
    cols.clear();
    for (std::size_t k = i; k < e; ++k) walk(entries[k], [&](std::int64_t c, std::int64_t) { cols.push_back(c); });
    std::sort(cols.begin(), cols.end());
    const auto dup = std::adjacent_find(cols.begin(), cols.end());
    if (dup != cols.end()) {
      // Find both places again, in walk order.
      const std::int64_t col = *dup;
      std::optional<std::pair<std::uint32_t, std::uint32_t>> seen;  // set, block of the first
      std::optional<std::pair<EcFault, std::int64_t>> out;
      for (std::size_t k = i; k < e && !out; ++k)
        walk(entries[k], [&](std::int64_t c, std::int64_t vi) {
          if (c != col || out) return;
          if (!seen) {
            seen.emplace(entries[k].set, entries[k].block);
            return;
          }
          const EcSet<T>& s = m.sets[entries[k].set];
          out.emplace(EcFault{static_cast<int>(entries[k].set), "values", vi,
                              fmt::format("set {} ({}) block {} holds row {}, column {}, which set {} ({}) block {} holds "
                                          "already (a nonzero lies in exactly one block)",
                                          entries[k].set, s.name(), entries[k].block, entries[k].row, col, seen->first,
                                          m.sets[seen->first].name(), seen->second)},
                      vi);
        });
      if (out) return out;
    }
    i = e;
  }
  return std::nullopt;
}

}  // namespace

AnyEc read_ec(std::istream& in, const std::string& name, std::optional<std::uint64_t> size, const MemoryBudget& budget) {
  BinaryReader r(in, name);
  std::array<std::uint8_t, kEcHeaderBytes> h{};
  r.read_header(h, kEcMagic, "an EC file", kEcChecksumOffset);
  const std::span<const std::uint8_t> b(h);
  r.check_version(kVersion, kEcVersion);
  const ValueType vt = r.value_type(kValueType);  // an unknown code is refused there
  if (vt == ValueType::int8)
    throw r.fail(kValueType, "value_type", "int8 values are not part of EC-CSR (fp16, bf16 or fp32)");
  const int db = r.code(kDeltaBits, "delta_bits", [](int v) { return ec::valid_delta_bits(v); }, "4 or 8");
  const int bb = r.code(kBaseBits, "base_bits", [](int v) { return v == 16 || v == 32; }, "16 or 32");
  r.check_reserved<std::uint8_t>(kReserved);
  const auto rows = load_le<std::uint64_t>(b, kRows), cols = load_le<std::uint64_t>(b, kCols);
  const auto nnz = load_le<std::uint64_t>(b, kNnz);
  if (rows > std::numeric_limits<std::uint32_t>::max())
    throw r.fail(kRows, "rows", fmt::format("{} exceeds 2^32 - 1 (row indices are 32-bit)", rows));
  if (cols > static_cast<std::uint64_t>(kMaxCols)) throw r.fail(kCols, "cols", fmt::format("{} exceeds 2^31 - 1", cols));
  if (bb != base_bits_for(cols))
    throw r.fail(kBaseBits, "base_bits", fmt::format("{}, expected {} for {} columns (16 if cols <= 65536, else 32)", bb,
                                                   base_bits_for(cols), cols));
  const auto nsets = load_le<std::uint32_t>(b, kSetCount);
  if (nsets != 5 && nsets != 6)
    throw r.fail(kSetCount, "set_count", fmt::format("{}, expected 5 (G = 8, 4, 2, 1, 1 short) or 6 (G = 16 first)", nsets));
  r.check_reserved<std::uint32_t>(kReserved2);

  // The descriptors: complete, in the set order, lengths agreeing with the counts.
  std::vector<std::uint8_t> desc(nsets * kEcSetDescBytes);
  {
    const std::uint64_t n = r.read_some(desc.data(), desc.size());
    if (in.bad()) throw Error(name + ": read error");
    if (n != desc.size())
      throw r.fail(kEcHeaderBytes + n, fmt::format("set[{}]", n / kEcSetDescBytes),
                 fmt::format("truncated: the file ends in the set descriptors, which need {} bytes", kEcHeaderBytes + desc.size()));
  }
  const std::uint64_t vsize = value_bits(vt) / 8;
  const std::uint64_t payload_at = kEcHeaderBytes + desc.size();
  std::vector<SetLayout> sets(nsets);
  std::uint64_t at = payload_at, stored = 0, memory = 0, row_entries = 0;
  for (std::uint32_t si = 0; si < nsets; ++si) {
    const auto d = std::span<const std::uint8_t>(desc).subspan(si * kEcSetDescBytes, kEcSetDescBytes);
    const std::uint64_t dat = kEcHeaderBytes + si * kEcSetDescBytes;
    auto field = [&](const char* f) { return fmt::format("set[{}].{}", si, f); };
    SetLayout& s = sets[si];
    const bool last = si + 1 == nsets;
    const int want_g = last ? 1 : (1 << (nsets - 2)) >> si;
    const int want_v = last ? 1 : ec::long_vec(want_g, static_cast<int>(vsize));
    s.group = load_le<std::uint8_t>(d, kGroup);
    s.vec = load_le<std::uint8_t>(d, kVec);
    const auto flags = load_le<std::uint8_t>(d, kFlags);
    s.is_short = (flags & 1) != 0;
    if (s.group != want_g)
      throw r.fail(dat + kGroup, field("group"), fmt::format("G = {}, expected {} (sets go {}G = 1 long, G = 1 short)", s.group,
                                                           want_g, nsets == 6 ? "G = 16, 8, 4, 2, " : "G = 8, 4, 2, "));
    if (s.vec != want_v)
      throw r.fail(dat + kVec, field("vec"), fmt::format("v = {}, expected {} for G = {}{} in {}", s.vec, want_v, s.group,
                                                       last ? " short" : "", to_string(vt)));
    if (flags != (last ? 1 : 0))
      throw r.fail(dat + kFlags, field("flags"), fmt::format("{:#04x}, expected {:#04x} (bit 0 marks the last set, the short one)",
                                                           flags, last ? 1 : 0));
    if (load_le<std::uint8_t>(d, kDescDeltaBits) != db)
      throw r.fail(dat + kDescDeltaBits, field("delta_bits"),
                 fmt::format("{}, the header says {}", load_le<std::uint8_t>(d, kDescDeltaBits), db));
    if (load_le<std::uint32_t>(d, kDescReserved) != 0) throw r.fail(dat + kDescReserved, field("reserved"), "must be 0");
    s.blocks = load_le<std::uint64_t>(d, kBlocks);
    s.steps = load_le<std::uint64_t>(d, kSteps);
    if (s.blocks > std::numeric_limits<std::uint32_t>::max())
      throw r.fail(dat + kBlocks, field("blocks"), fmt::format("{} exceeds 2^32 - 1", s.blocks));
    if (s.steps > std::numeric_limits<std::uint32_t>::max())
      throw r.fail(dat + kSteps, field("steps"), fmt::format("{} exceeds 2^32 - 1 (step offsets are 32-bit)", s.steps));
    if (s.steps < s.blocks)
      throw r.fail(dat + kSteps, field("steps"), fmt::format("{} steps for {} blocks (each block has at least one)", s.steps, s.blocks));
    // Counts are below 2^32 and G, v at most 16 and 8, so none of these products overflows.
    const std::uint64_t slots = s.steps * ec::kLanes * static_cast<std::uint64_t>(s.vec);
    const std::array<std::uint64_t, kArrays> want = {
        s.blocks * static_cast<std::uint64_t>(s.group) * 4, (s.blocks + 1) * 4,
        s.blocks * ec::kLanes * static_cast<std::uint64_t>(bb / 8),
        static_cast<std::uint64_t>(ec::delta_bytes(static_cast<std::int64_t>(slots), db)),
        slots * static_cast<std::uint64_t>(s.group) * vsize};
    for (std::uint64_t a = 0; a < kArrays; ++a) {
      const auto len = load_le<std::uint64_t>(d, kLengthField[a]);
      if (len != want[a])
        throw r.fail(dat + kLengthField[a], field(kArrayNames[a]) + "_bytes",
                   fmt::format("{}, expected {} ({} blocks, {} steps)", len, want[a], s.blocks, s.steps));
      s.bytes[a] = len;
      s.at[a] = at;
      at += len;
    }
    stored += slots * static_cast<std::uint64_t>(s.group);
    row_entries += s.blocks * static_cast<std::uint64_t>(s.group);
    memory += s.bytes[0] + s.bytes[1] + s.blocks * ec::kLanes * 4 + s.bytes[3] + s.bytes[4];
  }
  if (nnz > stored) throw r.fail(kNnz, "nnz", fmt::format("{} exceeds the {} values the sets store", nnz, stored));
  const std::uint64_t end = at;
  // Which field a byte offset falls in (for truncation messages).
  r.declare_payload(end, [&](std::uint64_t off) -> std::string {
    for (std::uint32_t si = 0; si < nsets; ++si)
      for (std::uint64_t a = 0; a < kArrays; ++a)
        if (off < sets[si].at[a] + sets[si].bytes[a]) return fmt::format("set[{}].{}", si, kArrayNames[a]);
    return "payload";
  });
  r.check_size(size);
  // The arrays, and the duplicate check's (block, row) entries and largest row.
  budget.require(sat_add(memory, sat_add(row_entries * 16, nnz * 8)),
                 fmt::format("{}: {} x {} EC matrix of {} stored values", name, rows, cols, stored));

  return dispatch_value_type(vt, [&](auto tag) -> AnyEc {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::int8_t>) {
      throw Error("unreachable: int8 EC file");  // refused above
    } else {
      Ec<T> m;
      m.rows = static_cast<std::int64_t>(rows);
      m.cols = static_cast<std::int64_t>(cols);
      m.delta_bits = db;
      m.nnz = static_cast<std::int64_t>(nnz);
      // Each array is read straight into place.
      for (std::uint32_t si = 0; si < nsets; ++si) {
        const SetLayout& l = sets[si];
        EcSet<T> s;
        s.group = l.group;
        s.vec = l.vec;
        s.is_short = l.is_short;
        r.read_vector(s.rows, l.bytes[0] / 4, l.at[0]);
        r.read_vector(s.step_ptr, l.bytes[1] / 4, l.at[1]);
        if (bb == 16) {  // 16-bit bases, widened
          std::vector<std::uint16_t> narrow;
          r.read_vector(narrow, l.bytes[2] / 2, l.at[2]);
          s.bases.resize(narrow.size());
          for (std::size_t i = 0; i < narrow.size(); ++i)
            s.bases[i] = load_le<std::uint16_t>(byte_span(narrow.data(), narrow.size() * 2), i * 2);
        } else {
          r.read_vector(s.bases, l.bytes[2] / 4, l.at[2]);
        }
        r.read_vector(s.deltas, l.bytes[3], l.at[3]);
        r.read_vector(s.values, l.bytes[4] / sizeof(T), l.at[4]);
        m.sets.push_back(std::move(s));
      }
      r.check_end();
      r.check_checksum();
      // A fault of the arrays, at its byte: (set, array, index) through the layout.
      auto locate = [&](const EcFault& f) -> std::pair<std::uint64_t, std::string> {
        if (f.set < 0 || f.set >= static_cast<int>(nsets)) {
          if (f.what.find("nnz") != std::string::npos) return {kNnz, "nnz"};
          return {kRows, "header"};
        }
        const auto si = static_cast<std::uint32_t>(f.set);
        const auto i = static_cast<std::uint64_t>(std::max<std::int64_t>(f.index, 0));
        const std::uint64_t elem[kArrays] = {4, 4, static_cast<std::uint64_t>(bb / 8), 0, vsize};
        for (std::uint64_t a = 0; a < kArrays; ++a)
          if (f.array == kArrayNames[a]) {
            const std::uint64_t rel = a == 3 ? static_cast<std::uint64_t>(ec::delta_byte(static_cast<std::int64_t>(i), db))
                                             : i * elem[a];
            return {sets[si].at[a] + std::min(rel, sets[si].bytes[a]), fmt::format("set[{}].{}", si, kArrayNames[a])};
          }
        return {kEcHeaderBytes + si * kEcSetDescBytes, fmt::format("set[{}]", si)};
      };
      if (const auto f = m.find_fault()) {
        const auto [off, field] = locate(*f);
        throw r.fail(off, field, f->what);
      }
      if (const auto f = duplicate_fault(m)) {
        const auto [off, field] = locate(f->first);
        throw r.fail(off, field, f->first.what);
      }
      return m;
    }
  });
}

AnyEc parse_ec(std::span<const std::uint8_t> bytes, const std::string& name, const MemoryBudget& budget) {
  return read_bytes<AnyEc>(read_ec, bytes, name, budget);
}

void write_ec_file(const std::string& path, const AnyEc& any) {
  OutputFile f(path);  // parts written as they are: no copy of the file in memory
  std::visit(
      [&](const auto& m) {
        f.write(checksummed_header(m));
        for_each_array(m, [&](std::span<const std::uint8_t> part) { f.write(part); });
      },
      any);
  f.commit();
}

AnyEc read_ec_file(const std::string& path, const MemoryBudget& budget) {
  return read_path<AnyEc>(read_ec, path, budget);
}

std::uint64_t ec_file_bytes(const AnyEc& any) {
  return std::visit(
      [](const auto& m) {
        std::uint64_t n = kEcHeaderBytes + m.sets.size() * kEcSetDescBytes;
        for (const auto& s : m.sets)
          for (const auto len : set_lengths(s, m.base_bits())) n += len;
        return n;
      },
      any);
}

ValueType value_type_of(const AnyEc& m) {
  return std::visit([](const auto& a) { return std::decay_t<decltype(a)>::kValueType; }, m);
}

template std::vector<std::uint8_t> serialize_ec<half>(const Ec<half>&);
template std::vector<std::uint8_t> serialize_ec<bfloat16>(const Ec<bfloat16>&);
template std::vector<std::uint8_t> serialize_ec<float>(const Ec<float>&);

}  // namespace warpsparse::io
