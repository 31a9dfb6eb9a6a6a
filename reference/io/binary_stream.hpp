// The binary stream mechanism shared by the MACKO and EC file readers and writers
// (macko_file.hpp, ec_file.hpp): little-endian fields at byte offsets, the FNV-1a 64 checksum over
// a file less its checksum field, reading a fixed header and then arrays straight from a stream
// (a pipe works as a file does), and the messages that name the file, the byte offset and the
// field: "<file>: byte <offset>: <field>: <what>". The file layouts themselves stay with each
// format. Little-endian hosts only (asserted). Host only.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/common/memory_budget.hpp"
#include "reference/io/input.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse::io {

static_assert(std::endian::native == std::endian::little, "the binary file readers and writers assume a little-endian host");

// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3), continuing from h.
std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes,
                      std::uint64_t h = 0xcbf29ce484222325ull);

// The checksum a file's bytes should carry when its 8-byte checksum field at `checksum_offset` ends
// its header: FNV-1a 64 over [0, checksum_offset) and everything after the field (a file too short
// for the field: over the bytes before it).
std::uint64_t file_checksum(std::span<const std::uint8_t> file, std::size_t checksum_offset);

// The bytes with their checksum field recomputed (nothing if they end before the field): tests and
// fuzz targets that edit a file use it to reach the checks behind the checksum.
std::optional<std::vector<std::uint8_t>> with_file_checksum(std::span<const std::uint8_t> file,
                                                            std::size_t checksum_offset);

// A little-endian field of type U at byte `at` of `bytes`; the field must lie inside them.
template <class U>
U load_le(std::span<const std::uint8_t> bytes, std::size_t at) {
  if (at > bytes.size() || bytes.size() - at < sizeof(U)) throw Error("binary field read past the end of its bytes");
  U v;
  std::memcpy(&v, bytes.data() + at, sizeof(U));
  return v;
}
template <class U>
void store_le(std::span<std::uint8_t> bytes, std::size_t at, U v) {
  if (at > bytes.size() || bytes.size() - at < sizeof(U)) throw Error("binary field written past the end of its bytes");
  std::memcpy(bytes.data() + at, &v, sizeof(U));
}

// An object's bytes (arrays are written as they are in memory).
inline std::span<const std::uint8_t> byte_span(const void* p, std::size_t n) {
  return {static_cast<const std::uint8_t*>(p), n};
}

// Reads a file of a fixed header and arrays from a stream, hashing what it reads, and words its
// refusals. The order of use: read_header, then declare_payload, check_size (when the size is
// known), read_array for each array in file order, check_end and check_checksum.
class BinaryReader {
 public:
  // `name` is used in messages (and must outlive the reader).
  BinaryReader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  // "<name>: byte <off>: <field>: <what>".
  Error fail(std::uint64_t off, std::string_view field, std::string_view what) const;

  // Reads header.size() bytes: refuses a stream that does not start with `magic` ("not <kind> (it
  // does not start with ...)", kind e.g. "a MACKO file") or ends within the header. The checksum
  // starts over the header's bytes before its 8-byte checksum field at `checksum_offset`.
  void read_header(std::span<std::uint8_t> header, std::span<const char> magic, std::string_view kind,
                   std::size_t checksum_offset);

  // Fields of the header read: the version must be the one this reader knows, a value type a known
  // ValueType code (the field "value_type"), an 8-bit code one that ok(code) accepts ("<code> is not
  // <expected>"), a reserved field 0.
  void check_version(std::size_t at, std::uint32_t known) const;
  ValueType value_type(std::size_t at) const;
  template <class Ok>
  std::uint8_t code(std::size_t at, std::string_view field, Ok ok, std::string_view expected) const {
    const auto v = load_le<std::uint8_t>(header_, at);
    if (!ok(v)) throw fail(at, field, std::to_string(v) + " is not " + std::string(expected));
    return v;
  }
  template <class U>
  void check_reserved(std::size_t at) const {
    if (load_le<U>(header_, at) != 0) throw fail(at, "reserved", "must be 0");
  }

  // Reads up to n bytes into dst, hashing them; returns how many it read (n unless the stream ended).
  std::uint64_t read_some(void* dst, std::uint64_t n);

  // Where the declared arrays end, and which field a byte offset before that falls in (truncation
  // messages).
  void declare_payload(std::uint64_t end, std::function<std::string(std::uint64_t)> section);
  // A known file size must be the declared one: truncated or trailing bytes.
  void check_size(std::optional<std::uint64_t> size);
  // Reads n bytes at file offset `at` into dst; a stream that ends early (a pipe, a file that shrank)
  // is reported where it ended.
  void read_array(void* dst, std::uint64_t at, std::uint64_t n);
  // Reads `count` elements at file offset `at` into v. Where check_size saw the file's size, the
  // header's counts are known to be there and v is sized once; from a stream of unknown size (a pipe)
  // v grows piece by piece (64 MiB) as the bytes arrive, so a header that promises more than the
  // stream holds is refused where the stream ends, having allocated at most one piece beyond it.
  template <class T>
  void read_vector(std::vector<T>& v, std::uint64_t count, std::uint64_t at) {
    const std::uint64_t piece =
        size_checked_ ? count : std::max<std::uint64_t>(1, (std::uint64_t{64} << 20) / sizeof(T));
    v.clear();
    for (std::uint64_t done = 0; done < count;) {
      const std::uint64_t n = std::min(piece, count - done);
      v.resize(static_cast<std::size_t>(done + n));
      read_array(v.data() + done, at + done * sizeof(T), n * sizeof(T));
      done += n;
    }
  }
  // Nothing may follow the declared arrays.
  void check_end();
  // The header's checksum field must be the hash of what was read.
  void check_checksum() const;

 private:
  std::istream& in_;
  const std::string& name_;
  std::span<const std::uint8_t> header_;
  std::size_t checksum_offset_ = 0;
  std::uint64_t hash_ = 0;
  std::uint64_t end_ = 0;
  bool size_checked_ = false;
  std::function<std::string(std::uint64_t)> section_;
};

// A format's reader (read_macko, read_ec): the stream, the name for messages, the size when known.
template <class Any>
using StreamReader = Any (*)(std::istream&, const std::string&, std::optional<std::uint64_t>, const MemoryBudget&);

// The reader over bytes in memory (a file of known size).
template <class Any>
Any read_bytes(StreamReader<Any> read, std::span<const std::uint8_t> bytes, const std::string& name,
               const MemoryBudget& budget) {
  MemoryBuf buf(bytes.data(), bytes.size());
  std::istream in(&buf);
  return read(in, name, bytes.size(), budget);
}

// The reader over a path, opened once as a stream (open_input: "-", pipes and FIFOs work).
template <class Any>
Any read_path(StreamReader<Any> read, const std::string& path, const MemoryBudget& budget) {
  Input in = open_input(path);
  return read(*in.stream, in.name, in.size, budget);
}

}  // namespace warpsparse::io
