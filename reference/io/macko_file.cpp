#include "reference/io/macko_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>

#include "reference/io/input.hpp"

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
    return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(v[0]));
  };
  return {as_bytes(m.values), as_bytes(m.deltas), m.row_ptr.wide ? as_bytes(m.row_ptr.wide_ptr) : as_bytes(m.row_ptr.narrow)};
}

// The 80-byte header of a matrix, checksum included.
template <class T>
std::vector<std::uint8_t> header_bytes(const Macko<T>& m) {
  m.validate();
  std::vector<std::uint8_t> out(kMackoHeaderBytes, 0);
  std::memcpy(out.data(), kMackoMagic, sizeof kMackoMagic);
  put<std::uint32_t>(out, kVersion, kMackoVersion);
  put<std::uint8_t>(out, kValueType, static_cast<std::uint8_t>(Macko<T>::kValueType));
  put<std::uint8_t>(out, kDeltaBits, static_cast<std::uint8_t>(m.delta_bits));
  put<std::uint8_t>(out, kPtrWidth, static_cast<std::uint8_t>(m.row_ptr.wide ? 8 : 4));
  put<std::uint64_t>(out, kRows, static_cast<std::uint64_t>(m.rows));
  put<std::uint64_t>(out, kCols, static_cast<std::uint64_t>(m.cols));
  put<std::uint64_t>(out, kNnz, static_cast<std::uint64_t>(m.nnz));
  put<std::uint64_t>(out, kEmitted, static_cast<std::uint64_t>(m.emitted()));
  put<std::uint64_t>(out, kValuesCount, m.values.size());
  put<std::uint64_t>(out, kDeltaBytes, m.deltas.size());
  put<std::uint64_t>(out, kPtrCount, static_cast<std::uint64_t>(m.row_ptr.size()));
  std::uint64_t h = fnv1a64(std::span<const std::uint8_t>(out).first(kMackoChecksumOffset));
  for (const auto& part : array_bytes(m)) h = fnv1a64(part, h);
  put<std::uint64_t>(out, kMackoChecksumOffset, h);
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

namespace {

// Reads up to n bytes into dst, hashing them; returns how many it read (n unless the stream ended).
std::uint64_t read_hashed(std::istream& in, void* dst, std::uint64_t n, std::uint64_t& hash) {
  auto* p = static_cast<char*>(dst);
  std::uint64_t done = 0;
  while (done < n) {
    const auto chunk = static_cast<std::streamsize>(std::min<std::uint64_t>(n - done, std::uint64_t{1} << 30));
    in.read(p + done, chunk);
    const auto got = static_cast<std::uint64_t>(in.gcount());
    hash = fnv1a64(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(p + done), got), hash);
    done += got;
    if (got != static_cast<std::uint64_t>(chunk)) break;
  }
  return done;
}

}  // namespace

AnyMacko read_macko(std::istream& in, const std::string& name, std::optional<std::uint64_t> size,
                    const MemoryBudget& budget) {
  auto fail = [&](std::uint64_t off, const char* field, const std::string& what) -> Error {
    return Error(fmt::format("{}: byte {}: {}: {}", name, off, field, what));
  };
  std::array<std::uint8_t, kMackoHeaderBytes> h{};
  in.read(reinterpret_cast<char*>(h.data()), static_cast<std::streamsize>(h.size()));
  const auto got = static_cast<std::uint64_t>(in.gcount());
  if (in.bad()) throw Error(name + ": read error");
  if (got < sizeof kMackoMagic || std::memcmp(h.data(), kMackoMagic, sizeof kMackoMagic) != 0)
    throw fail(0, "magic", "not a MACKO file (it does not start with \"WSMACKO\\0\")");
  if (got < kMackoHeaderBytes)
    throw fail(got, "header", fmt::format("truncated: the file has {} bytes, the header needs {}", got, kMackoHeaderBytes));
  const std::span<const std::uint8_t> b(h);
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
  // Each count is bounded before any arithmetic on it (2^56 elements: far past any memory), so the
  // sizes below cannot overflow; the memory budget and the file size then decide.
  constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 56;
  if (rows >= kMaxCount) throw fail(kRows, "rows", fmt::format("{} is not a row count", rows));
  if (cols > static_cast<std::uint64_t>(kMaxCols)) throw fail(kCols, "cols", fmt::format("{} exceeds 2^31 - 1", cols));
  if (nptr != rows + 1) throw fail(kPtrCount, "row_ptr_count", fmt::format("{}, expected rows + 1 = {}", nptr, rows + 1));
  if (emitted >= kMaxCount) throw fail(kEmitted, "emitted", fmt::format("{} is not an element count", emitted));
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
  auto section = [&](std::uint64_t at) { return at < doff ? "values" : at < poff ? "deltas" : "row_ptr"; };
  if (size && *size < end)
    throw fail(*size, section(*size), fmt::format("truncated: the file has {} bytes, the header declares {}", *size, end));
  if (size && *size > end) throw fail(end, "payload", fmt::format("{} trailing bytes after the declared arrays", *size - end));
  budget.require(end - voff, fmt::format("{}: {} x {} MACKO matrix of {} stored elements", name, rows, cols, nvals));

  return dispatch_value_type(static_cast<ValueType>(vt), [&](auto tag) -> AnyMacko {
    using T = decltype(tag);
    Macko<T> m;
    m.rows = static_cast<std::int64_t>(rows);
    m.cols = static_cast<std::int64_t>(cols);
    m.delta_bits = db;
    m.nnz = static_cast<std::int64_t>(nnz);
    m.row_ptr.wide = pw == 8;
    std::uint64_t hash = fnv1a64(b.first(kMackoChecksumOffset));
    // Each array is read straight into place; a stream that ends early (a pipe, a file that shrank)
    // is reported where it ended.
    auto read_into = [&](void* dst, std::uint64_t at, std::uint64_t n) {
      if (in.bad()) throw Error(name + ": read error");
      const std::uint64_t got_bytes = read_hashed(in, dst, n, hash);
      if (got_bytes != n)
        throw fail(at + got_bytes, section(at + got_bytes),
                   fmt::format("truncated: the file ends at byte {}, the header declares {}", at + got_bytes, end));
    };
    m.values.resize(nvals);
    read_into(m.values.data(), voff, nvals * sizeof(T));
    m.deltas.resize(ndeltas);
    read_into(m.deltas.data(), doff, ndeltas);
    if (m.row_ptr.wide) {
      m.row_ptr.wide_ptr.resize(nptr);
      read_into(m.row_ptr.wide_ptr.data(), poff, nptr * 8);
    } else {
      m.row_ptr.narrow.resize(nptr);
      read_into(m.row_ptr.narrow.data(), poff, nptr * 4);
    }
    if (in.peek() != std::char_traits<char>::eof()) throw fail(end, "payload", "trailing bytes after the declared arrays");
    const std::uint64_t stored = get<std::uint64_t>(b, kMackoChecksumOffset);
    if (stored != hash)
      throw fail(kMackoChecksumOffset, "checksum",
                 fmt::format("mismatch: stored {:#018x}, computed {:#018x} (file corrupted)", stored, hash));
    const auto last = static_cast<std::uint64_t>(m.row_ptr[m.rows]);
    if (last != emitted)
      throw fail(poff + rows * pw, "row_ptr", fmt::format("row_ptr[rows] = {} differs from emitted = {}", last, emitted));
    if (const auto f = m.find_fault()) {
      using A = MackoFault::Array;
      const auto i = static_cast<std::uint64_t>(f->index);
      const std::uint64_t at = f->array == A::values ? voff + i * vsize
                               : f->array == A::deltas ? doff + i * static_cast<std::uint64_t>(db) / 8
                               : f->array == A::row_ptr ? poff + i * pw
                                                        : kRows;
      const char* field = f->array == A::values ? "values" : f->array == A::deltas ? "deltas"
                          : f->array == A::row_ptr ? "row_ptr" : "header";
      throw fail(at, field, f->what);
    }
    return m;
  });
}

AnyMacko parse_macko(std::span<const std::uint8_t> bytes, const std::string& name, const MemoryBudget& budget) {
  MemoryBuf buf(bytes.data(), bytes.size());
  std::istream in(&buf);
  return read_macko(in, name, bytes.size(), budget);
}

void write_macko_file(const std::string& path, const AnyMacko& any) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(fmt::format("{}: cannot open for writing", path));
  std::visit(
      [&](const auto& m) {
        const auto header = header_bytes(m);
        f.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
        for (const auto& part : array_bytes(m))
          f.write(reinterpret_cast<const char*>(part.data()), static_cast<std::streamsize>(part.size()));
      },
      any);
  f.flush();
  if (!f) throw Error(fmt::format("{}: write failed", path));
}

AnyMacko read_macko_file(const std::string& path, const MemoryBudget& budget) {
  Input in = open_input(path);
  return read_macko(*in.stream, in.name, in.size, budget);
}

ValueType value_type_of(const AnyMacko& m) {
  return std::visit([](const auto& a) { return std::decay_t<decltype(a)>::kValueType; }, m);
}

template std::vector<std::uint8_t> serialize_macko<half>(const Macko<half>&);
template std::vector<std::uint8_t> serialize_macko<bfloat16>(const Macko<bfloat16>&);
template std::vector<std::uint8_t> serialize_macko<float>(const Macko<float>&);
template std::vector<std::uint8_t> serialize_macko<std::int8_t>(const Macko<std::int8_t>&);

}  // namespace warpsparse::io
