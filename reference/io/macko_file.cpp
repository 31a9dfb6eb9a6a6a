#include "reference/io/macko_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <limits>

#include "reference/io/binary_stream.hpp"
#include "reference/io/output_file.hpp"

namespace warpsparse::io {

namespace {

// Offsets of the header fields (see macko_file.hpp).
enum Off : std::size_t {
  kVersion = 8, kValueType = 12, kDeltaBits = 13, kPtrWidth = 14, kReserved = 15, kRows = 16,
  kCols = 24, kNnz = 32, kEmitted = 40, kValuesCount = 48, kDeltaBytes = 56, kPtrCount = 64,
};

}  // namespace

namespace {

// The three arrays of a matrix as bytes, in file order.
template <class T>
std::array<std::span<const std::uint8_t>, 3> array_bytes(const Macko<T>& m) {
  const auto as_bytes = [](const auto& v) {
    return byte_span(v.data(), v.size() * sizeof(v[0]));
  };
  return {as_bytes(m.values), as_bytes(m.deltas), m.row_ptr.wide ? as_bytes(m.row_ptr.wide_ptr) : as_bytes(m.row_ptr.narrow)};
}

// The 80-byte header of a matrix, checksum included.
template <class T>
std::vector<std::uint8_t> header_bytes(const Macko<T>& m) {
  m.validate();
  std::vector<std::uint8_t> out(kMackoHeaderBytes, 0);
  std::memcpy(out.data(), kMackoMagic, sizeof kMackoMagic);
  store_le<std::uint32_t>(out, kVersion, kMackoVersion);
  store_le<std::uint8_t>(out, kValueType, static_cast<std::uint8_t>(Macko<T>::kValueType));
  store_le<std::uint8_t>(out, kDeltaBits, static_cast<std::uint8_t>(m.delta_bits));
  store_le<std::uint8_t>(out, kPtrWidth, static_cast<std::uint8_t>(m.row_ptr.wide ? 8 : 4));
  store_le<std::uint64_t>(out, kRows, static_cast<std::uint64_t>(m.rows));
  store_le<std::uint64_t>(out, kCols, static_cast<std::uint64_t>(m.cols));
  store_le<std::uint64_t>(out, kNnz, static_cast<std::uint64_t>(m.nnz));
  store_le<std::uint64_t>(out, kEmitted, static_cast<std::uint64_t>(m.emitted()));
  store_le<std::uint64_t>(out, kValuesCount, m.values.size());
  store_le<std::uint64_t>(out, kDeltaBytes, m.deltas.size());
  store_le<std::uint64_t>(out, kPtrCount, static_cast<std::uint64_t>(m.row_ptr.size()));
  std::uint64_t h = file_checksum(out, kMackoChecksumOffset);
  for (const auto& part : array_bytes(m)) h = fnv1a64(part, h);
  store_le<std::uint64_t>(out, kMackoChecksumOffset, h);
  return out;
}

}  // namespace

template <class T>
std::vector<std::uint8_t> serialize_macko(const Macko<T>& m) {
  std::vector<std::uint8_t> out = header_bytes(m);
  for (const auto& part : array_bytes(m)) out.insert(out.end(), part.begin(), part.end());
  return out;
}

std::vector<std::uint8_t> serialize_macko(const AnyMacko& m) {
  return std::visit([](const auto& a) { return serialize_macko(a); }, m);
}

AnyMacko read_macko(std::istream& in, const std::string& name, std::optional<std::uint64_t> size,
                    const MemoryBudget& budget) {
  BinaryReader r(in, name);
  std::array<std::uint8_t, kMackoHeaderBytes> h{};
  r.read_header(h, kMackoMagic, "a MACKO file", kMackoChecksumOffset);
  const std::span<const std::uint8_t> b(h);
  r.check_version(kVersion, kMackoVersion);
  const ValueType vt = r.value_type(kValueType);
  const int db = r.code(kDeltaBits, "delta_bits", [](int v) { return macko::valid_delta_bits(v); }, "1, 2, 4 or 8");
  const auto pw = r.code(kPtrWidth, "row_ptr_width", [](int v) { return v == 4 || v == 8; }, "4 or 8");
  r.check_reserved<std::uint8_t>(kReserved);
  const auto rows = load_le<std::uint64_t>(b, kRows), cols = load_le<std::uint64_t>(b, kCols);
  const auto nnz = load_le<std::uint64_t>(b, kNnz), emitted = load_le<std::uint64_t>(b, kEmitted);
  const auto nvals = load_le<std::uint64_t>(b, kValuesCount), ndeltas = load_le<std::uint64_t>(b, kDeltaBytes);
  const auto nptr = load_le<std::uint64_t>(b, kPtrCount);
  // Each count is bounded before any arithmetic on it (2^56 elements: far past any memory), so the
  // sizes below cannot overflow; the memory budget and the file size then decide.
  constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 56;
  if (rows >= kMaxCount) throw r.fail(kRows, "rows", fmt::format("{} is not a row count", rows));
  if (cols > static_cast<std::uint64_t>(kMaxCols)) throw r.fail(kCols, "cols", fmt::format("{} exceeds 2^31 - 1", cols));
  if (nptr != rows + 1) throw r.fail(kPtrCount, "row_ptr_count", fmt::format("{}, expected rows + 1 = {}", nptr, rows + 1));
  if (emitted >= kMaxCount) throw r.fail(kEmitted, "emitted", fmt::format("{} is not an element count", emitted));
  if (nnz > emitted) throw r.fail(kNnz, "nnz", fmt::format("{} exceeds emitted = {}", nnz, emitted));
  const auto want_vals = static_cast<std::uint64_t>(macko::padded_length(static_cast<std::int64_t>(emitted), db));
  if (nvals != want_vals)
    throw r.fail(kValuesCount, "values_count",
               fmt::format("{}, expected {} (emitted {} padded to a multiple of {})", nvals, want_vals, emitted,
                           macko::align_unit(db)));
  const auto want_deltas = static_cast<std::uint64_t>(macko::delta_bytes(static_cast<std::int64_t>(nvals), db));
  if (ndeltas != want_deltas) throw r.fail(kDeltaBytes, "delta_bytes", fmt::format("{}, expected {}", ndeltas, want_deltas));
  if (pw == 4 && nvals > std::numeric_limits<std::uint32_t>::max())
    throw r.fail(kPtrWidth, "row_ptr_width", fmt::format("4-byte row pointers cannot address {} elements", nvals));
  const std::uint64_t vsize = value_bits(vt) / 8;
  const std::uint64_t voff = kMackoHeaderBytes, doff = voff + nvals * vsize, poff = doff + ndeltas;
  const std::uint64_t end = poff + nptr * pw;
  r.declare_payload(end, [&](std::uint64_t at) -> std::string { return at < doff ? "values" : at < poff ? "deltas" : "row_ptr"; });
  r.check_size(size);
  budget.require(end - voff, fmt::format("{}: {} x {} MACKO matrix of {} stored elements", name, rows, cols, nvals));

  return dispatch_value_type(vt, [&](auto tag) -> AnyMacko {
    using T = decltype(tag);
    Macko<T> m;
    m.rows = static_cast<std::int64_t>(rows);
    m.cols = static_cast<std::int64_t>(cols);
    m.delta_bits = db;
    m.nnz = static_cast<std::int64_t>(nnz);
    m.row_ptr.wide = pw == 8;
    // Each array is read straight into place.
    r.read_vector(m.values, nvals, voff);
    r.read_vector(m.deltas, ndeltas, doff);
    if (m.row_ptr.wide)
      r.read_vector(m.row_ptr.wide_ptr, nptr, poff);
    else
      r.read_vector(m.row_ptr.narrow, nptr, poff);
    r.check_end();
    r.check_checksum();
    const auto last = static_cast<std::uint64_t>(m.row_ptr[m.rows]);
    if (last != emitted)
      throw r.fail(poff + rows * pw, "row_ptr", fmt::format("row_ptr[rows] = {} differs from emitted = {}", last, emitted));
    if (const auto f = m.find_fault()) {
      using A = MackoFault::Array;
      const auto i = static_cast<std::uint64_t>(f->index);
      const std::uint64_t at = f->array == A::values ? voff + i * vsize
                               : f->array == A::deltas ? doff + i * static_cast<std::uint64_t>(db) / 8
                               : f->array == A::row_ptr ? poff + i * pw
                                                        : kRows;
      const char* field = f->array == A::values ? "values" : f->array == A::deltas ? "deltas"
                          : f->array == A::row_ptr ? "row_ptr" : "header";
      throw r.fail(at, field, f->what);
    }
    return m;
  });
}

AnyMacko parse_macko(std::span<const std::uint8_t> bytes, const std::string& name, const MemoryBudget& budget) {
  return read_bytes<AnyMacko>(read_macko, bytes, name, budget);
}

void write_macko_file(const std::string& path, const AnyMacko& any) {
  OutputFile f(path);  // parts written as they are: no copy of the file in memory
  std::visit(
      [&](const auto& m) {
        f.write(header_bytes(m));
        for (const auto& part : array_bytes(m)) f.write(part);
      },
      any);
  f.commit();
}

AnyMacko read_macko_file(const std::string& path, const MemoryBudget& budget) {
  return read_path<AnyMacko>(read_macko, path, budget);
}

ValueType value_type_of(const AnyMacko& m) {
  return std::visit([](const auto& a) { return std::decay_t<decltype(a)>::kValueType; }, m);
}

template std::vector<std::uint8_t> serialize_macko<half>(const Macko<half>&);
template std::vector<std::uint8_t> serialize_macko<bfloat16>(const Macko<bfloat16>&);
template std::vector<std::uint8_t> serialize_macko<float>(const Macko<float>&);
template std::vector<std::uint8_t> serialize_macko<std::int8_t>(const Macko<std::int8_t>&);

}  // namespace warpsparse::io
