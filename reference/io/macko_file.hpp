// MACKO file format (".macko"): one encoded matrix, little-endian, version 1.
//
//   offset size field
//        0    8 magic            "WSMACKO\0"
//        8    4 version          1
//       12    1 value_type       ValueType code (0 fp16, 1 bf16, 2 fp32, 3 int8)
//       13    1 delta_bits       1, 2, 4 or 8
//       14    1 row_ptr_width    4 or 8 (bytes per row pointer)
//       15    1 reserved         0
//       16    8 rows
//       24    8 cols
//       32    8 nnz              nonzeros of the source matrix
//       40    8 emitted          nonzeros + padding elements (= row_ptr[rows])
//       48    8 values_count     padded element count (multiple of align_unit(delta_bits))
//       56    8 delta_bytes      values_count * delta_bits / 8
//       64    8 row_ptr_count    rows + 1
//       72    8 checksum         FNV-1a 64 over bytes [0, 72) and the whole payload
//       80      payload          values (values_count * value bytes), deltas, row_ptr
//
// The reader checks, in order: the magic; the header is complete; version, codes and reserved
// byte; the lengths agree with each other and with the file size when it is known (truncated or
// trailing bytes); the arrays fit the memory budget; then it reads the arrays straight from the
// stream (a pipe works as a file does): truncation, trailing bytes, the checksum, row_ptr[rows] ==
// emitted, and Macko<T>::find_fault(). Every message names the file, the byte offset and the field.
#pragma once
#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "reference/common/memory_budget.hpp"
#include "reference/io/binary_stream.hpp"  // fnv1a64, file_checksum
#include "reference/macko/macko_format.hpp"

namespace warpsparse::io {

using AnyMacko = std::variant<Macko<half>, Macko<bfloat16>, Macko<float>, Macko<std::int8_t>>;

inline constexpr char kMackoMagic[8] = {'W', 'S', 'M', 'A', 'C', 'K', 'O', '\0'};
inline constexpr std::uint32_t kMackoVersion = 1;
inline constexpr std::size_t kMackoHeaderBytes = 80;
inline constexpr std::size_t kMackoChecksumOffset = 72;

template <class T>
std::vector<std::uint8_t> serialize_macko(const Macko<T>& m);
std::vector<std::uint8_t> serialize_macko(const AnyMacko& m);

// `name` is used in messages; `size`, when known, lets a truncated file be named before its arrays
// are read.
AnyMacko read_macko(std::istream& in, const std::string& name, std::optional<std::uint64_t> size,
                    const MemoryBudget& budget = MemoryBudget::default_budget());
AnyMacko parse_macko(std::span<const std::uint8_t> bytes, const std::string& name,
                     const MemoryBudget& budget = MemoryBudget::default_budget());

// Writes the header and the arrays as they are (no copy of the file in memory).
void write_macko_file(const std::string& path, const AnyMacko& m);
AnyMacko read_macko_file(const std::string& path, const MemoryBudget& budget = MemoryBudget::default_budget());

ValueType value_type_of(const AnyMacko& m);

}  // namespace warpsparse::io
