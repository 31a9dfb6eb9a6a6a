#include "reference/io/macko_file.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <limits>

namespace warpsparse::io {

static_assert(std::endian::native == std::endian::little, "the MACKO file writer assumes a little-endian host");

std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes, std::uint64_t h) {
  for (const std::uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

template <class U>
void put(std::vector<std::uint8_t>& out, std::size_t at, U v) {
  std::memcpy(out.data() + at, &v, sizeof(U));
}
template <class U>
U get(std::span<const std::uint8_t> b, std::size_t at) {
  U v;
  std::memcpy(&v, b.data() + at, sizeof(U));
  return v;
}

std::uint64_t checksum(std::span<const std::uint8_t> file) {
  const std::uint64_t h = fnv1a64(file.first(kMackoChecksumOffset));
  return fnv1a64(file.subspan(kMackoHeaderBytes), h);
}

// Offsets of the header fields (see macko_file.hpp).
enum Off : std::size_t {
  kVersion = 8, kValueType = 12, kDeltaBits = 13, kPtrWidth = 14, kReserved = 15, kRows = 16,
  kCols = 24, kNnz = 32, kEmitted = 40, kValuesCount = 48, kDeltaBytes = 56, kPtrCount = 64,
};

}  // namespace

template <class T>
std::vector<std::uint8_t> serialize_macko(const Macko<T>& m) {
  m.validate();
  const std::size_t vbytes = m.values.size() * sizeof(T);
  const std::size_t pw = m.row_ptr.wide ? 8 : 4;
  const std::size_t pbytes = static_cast<std::size_t>(m.row_ptr.size()) * pw;
  std::vector<std::uint8_t> out(kMackoHeaderBytes + vbytes + m.deltas.size() + pbytes, 0);
  std::memcpy(out.data(), kMackoMagic, sizeof kMackoMagic);
  put<std::uint32_t>(out, kVersion, kMackoVersion);
  put<std::uint8_t>(out, kValueType, static_cast<std::uint8_t>(Macko<T>::kValueType));
  put<std::uint8_t>(out, kDeltaBits, static_cast<std::uint8_t>(m.delta_bits));
  put<std::uint8_t>(out, kPtrWidth, static_cast<std::uint8_t>(pw));
  put<std::uint64_t>(out, kRows, static_cast<std::uint64_t>(m.rows));
  put<std::uint64_t>(out, kCols, static_cast<std::uint64_t>(m.cols));
  put<std::uint64_t>(out, kNnz, static_cast<std::uint64_t>(m.nnz));
  put<std::uint64_t>(out, kEmitted, static_cast<std::uint64_t>(m.emitted()));
  put<std::uint64_t>(out, kValuesCount, m.values.size());
  put<std::uint64_t>(out, kDeltaBytes, m.deltas.size());
  put<std::uint64_t>(out, kPtrCount, static_cast<std::uint64_t>(m.row_ptr.size()));
  std::size_t at = kMackoHeaderBytes;
  if (vbytes) std::memcpy(out.data() + at, m.values.data(), vbytes);
  at += vbytes;
  if (!m.deltas.empty()) std::memcpy(out.data() + at, m.deltas.data(), m.deltas.size());
  at += m.deltas.size();
  if (m.row_ptr.wide) std::memcpy(out.data() + at, m.row_ptr.wide_ptr.data(), pbytes);
  else std::memcpy(out.data() + at, m.row_ptr.narrow.data(), pbytes);
  put<std::uint64_t>(out, kMackoChecksumOffset, checksum(out));
  return out;
}

std::vector<std::uint8_t> serialize_macko(const AnyMacko& m) {
  return std::visit([](const auto& a) { return serialize_macko(a); }, m);
}

AnyMacko parse_macko(std::span<const std::uint8_t> b, const std::string& name) {
  auto fail = [&](std::size_t off, const char* field, const std::string& what) -> Error {
    return Error(fmt::format("{}: byte {}: {}: {}", name, off, field, what));
  };
  if (b.size() < kMackoHeaderBytes)
    throw fail(b.size(), "header", fmt::format("truncated: the file has {} bytes, the header needs {}", b.size(),
                                               kMackoHeaderBytes));
  if (std::memcmp(b.data(), kMackoMagic, sizeof kMackoMagic) != 0)
    throw fail(0, "magic", "not a MACKO file (expected \"WSMACKO\\0\")");
  const auto version = get<std::uint32_t>(b, kVersion);
  if (version != kMackoVersion)
    throw fail(kVersion, "version", fmt::format("unsupported version {} (this reader knows {})", version, kMackoVersion));
  const auto vt = get<std::uint8_t>(b, kValueType);
  if (vt > static_cast<std::uint8_t>(ValueType::int8))
    throw fail(kValueType, "value_type", fmt::format("unknown code {}", vt));
  const int db = get<std::uint8_t>(b, kDeltaBits);
  if (!macko::valid_delta_bits(db)) throw fail(kDeltaBits, "delta_bits", fmt::format("{} is not 1, 2, 4 or 8", db));
  const auto pw = get<std::uint8_t>(b, kPtrWidth);
  if (pw != 4 && pw != 8) throw fail(kPtrWidth, "row_ptr_width", fmt::format("{} is not 4 or 8", pw));
  if (get<std::uint8_t>(b, kReserved) != 0) throw fail(kReserved, "reserved", "must be 0");
  const auto rows = get<std::uint64_t>(b, kRows), cols = get<std::uint64_t>(b, kCols);
  const auto nnz = get<std::uint64_t>(b, kNnz), emitted = get<std::uint64_t>(b, kEmitted);
  const auto nvals = get<std::uint64_t>(b, kValuesCount), ndeltas = get<std::uint64_t>(b, kDeltaBytes);
  const auto nptr = get<std::uint64_t>(b, kPtrCount);
  // Every length is bounded by the file size before any arithmetic on it, so nothing overflows.
  const std::uint64_t size = b.size();
  if (rows >= size) throw fail(kRows, "rows", fmt::format("{} rows cannot fit in a {}-byte file", rows, size));
  if (cols > static_cast<std::uint64_t>(kMaxCols)) throw fail(kCols, "cols", fmt::format("{} exceeds 2^31 - 1", cols));
  if (nptr != rows + 1) throw fail(kPtrCount, "row_ptr_count", fmt::format("{}, expected rows + 1 = {}", nptr, rows + 1));
  if (emitted >= size * 8 + 1)
    throw fail(kEmitted, "emitted", fmt::format("{} elements cannot fit in a {}-byte file", emitted, size));
  if (nnz > emitted) throw fail(kNnz, "nnz", fmt::format("{} exceeds emitted = {}", nnz, emitted));
  const auto want_vals = static_cast<std::uint64_t>(macko::padded_length(static_cast<std::int64_t>(emitted), db));
  if (nvals != want_vals)
    throw fail(kValuesCount, "values_count",
               fmt::format("{}, expected {} (emitted {} padded to a multiple of {})", nvals, want_vals, emitted,
                           macko::align_unit(db)));
  const auto want_deltas = static_cast<std::uint64_t>(macko::delta_bytes(static_cast<std::int64_t>(nvals), db));
  if (ndeltas != want_deltas) throw fail(kDeltaBytes, "delta_bytes", fmt::format("{}, expected {}", ndeltas, want_deltas));
  if (pw == 4 && nvals > std::numeric_limits<std::uint32_t>::max())
    throw fail(kPtrWidth, "row_ptr_width", fmt::format("4-byte row pointers cannot address {} elements", nvals));
  const std::uint64_t vsize = value_bits(static_cast<ValueType>(vt)) / 8;
  const std::uint64_t voff = kMackoHeaderBytes, doff = voff + nvals * vsize, poff = doff + ndeltas;
  const std::uint64_t end = poff + nptr * pw;
  if (size < end) {
    const char* section = size < doff ? "values" : size < poff ? "deltas" : "row_ptr";
    throw fail(size, section, fmt::format("truncated: the file has {} bytes, the header declares {}", size, end));
  }
  if (size > end) throw fail(end, "payload", fmt::format("{} trailing bytes after the declared arrays", size - end));
  const std::uint64_t stored = get<std::uint64_t>(b, kMackoChecksumOffset), computed = checksum(b);
  if (stored != computed)
    throw fail(kMackoChecksumOffset, "checksum",
               fmt::format("mismatch: stored {:#018x}, computed {:#018x} (file corrupted)", stored, computed));

  return dispatch_value_type(static_cast<ValueType>(vt), [&](auto tag) -> AnyMacko {
    using T = decltype(tag);
    Macko<T> m;
    m.rows = static_cast<std::int64_t>(rows);
    m.cols = static_cast<std::int64_t>(cols);
    m.delta_bits = db;
    m.nnz = static_cast<std::int64_t>(nnz);
    m.values.resize(nvals);
    if (nvals) std::memcpy(m.values.data(), b.data() + voff, nvals * sizeof(T));
    m.deltas.assign(b.begin() + static_cast<std::ptrdiff_t>(doff), b.begin() + static_cast<std::ptrdiff_t>(poff));
    m.row_ptr.wide = pw == 8;
    if (m.row_ptr.wide) {
      m.row_ptr.wide_ptr.resize(nptr);
      std::memcpy(m.row_ptr.wide_ptr.data(), b.data() + poff, nptr * 8);
    } else {
      m.row_ptr.narrow.resize(nptr);
      std::memcpy(m.row_ptr.narrow.data(), b.data() + poff, nptr * 4);
    }
    const auto last = static_cast<std::uint64_t>(m.row_ptr[m.rows]);
    if (last != emitted)
      throw fail(poff + rows * pw, "row_ptr", fmt::format("row_ptr[rows] = {} differs from emitted = {}", last, emitted));
    try {
      m.validate();
    } catch (const Error& e) {
      throw Error(fmt::format("{}: byte {}: arrays: {}", name, voff, e.what()));
    }
    return m;
  });
}

void write_macko_file(const std::string& path, const AnyMacko& m) {
  const auto bytes = serialize_macko(m);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(fmt::format("{}: cannot open for writing", path));
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.flush();
  if (!f) throw Error(fmt::format("{}: write failed", path));
}

AnyMacko read_macko_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(fmt::format("{}: cannot open for reading", path));
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw Error(fmt::format("{}: read error", path));
  return parse_macko(bytes, path);
}

bool looks_like_macko(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char buf[sizeof kMackoMagic] = {};
  f.read(buf, sizeof buf);
  return f.gcount() == sizeof buf && std::memcmp(buf, kMackoMagic, sizeof buf) == 0;
}

ValueType value_type_of(const AnyMacko& m) {
  return std::visit([](const auto& a) { return std::decay_t<decltype(a)>::kValueType; }, m);
}

template std::vector<std::uint8_t> serialize_macko<half>(const Macko<half>&);
template std::vector<std::uint8_t> serialize_macko<bfloat16>(const Macko<bfloat16>&);
template std::vector<std::uint8_t> serialize_macko<float>(const Macko<float>&);
template std::vector<std::uint8_t> serialize_macko<std::int8_t>(const Macko<std::int8_t>&);

}  // namespace warpsparse::io
