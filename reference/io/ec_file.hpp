// EC-CSR file format (".ec"): one encoded matrix (reference/ec/ec_format.hpp), little-endian,
// version 1. Modelled on the MACKO file (macko_file.hpp).
//
//   offset size field
//        0    8 magic            "WSECCSR\0"
//        8    4 version          1
//       12    1 value_type       ValueType code (0 fp16, 1 bf16, 2 fp32; 3 int8 is refused)
//       13    1 delta_bits       4 or 8
//       14    1 base_bits        16 if cols <= 65536, else 32 (Ec::base_bits())
//       15    1 reserved         0
//       16    8 rows             < 2^32 (row indices are 32-bit)
//       24    8 cols             <= 2^31 - 1
//       32    8 nnz              nonzeros of the source matrix
//       40    4 set_count        5 (G = 8, 4, 2, 1 long, 1 short) or 6 (G = 16 first: a host ablation)
//       44    4 reserved         0
//       48    8 checksum         FNV-1a 64 over bytes [0, 48), the set descriptors and the payload
//       56      set descriptors  set_count x 64 bytes, in set order
//               payload          per set, in set order: rows, step_ptr, bases, deltas, values
//
// Set descriptor s, at 56 + 64 s (64 bytes = Ec<T>::kSetDescBytes):
//
//   offset size field
//        0    1 group            G (rows per block): the set order's, see Ec<T>::find_fault
//        1    1 vec              v: slots per lane and step (ec::long_vec(G, value bytes); 1 if short)
//        2    1 flags            bit 0: the G = 1 short set (the last set); other bits 0
//        3    1 delta_bits       = the header's (a later per-set width changes no array)
//        4    4 reserved         0
//        8    8 blocks           < 2^32
//       16    8 steps            < 2^32, >= blocks (= step_ptr[blocks])
//       24    8 rows_bytes       blocks · G · 4             (uint32 row indices)
//       32    8 step_ptr_bytes   (blocks + 1) · 4           (uint32 step offsets)
//       40    8 base_bytes       blocks · 32 · base_bits/8  (uint16 or uint32 lane bases)
//       48    8 delta_bytes      steps · 32 · v · delta_bits / 8
//       56    8 value_bytes      steps · 32 · v · G · value bytes
//
// The reader checks, in order: the magic; the header is complete; version, codes and reserved
// bytes; the set descriptors are complete and agree with the set order, the header and each other;
// the lengths agree with the file size when it is known (truncated or trailing bytes); the arrays
// (and the reader's duplicate check) fit the memory budget; then it reads the arrays straight from
// the stream (a pipe works as a file does): truncation, trailing bytes, the checksum,
// Ec<T>::find_fault(), and that no (row, column) is held twice. Every message names the file, the
// byte offset and the field ("set[2].deltas" for an array or descriptor field of set 2).
#pragma once
#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "reference/common/memory_budget.hpp"
#include "reference/ec/ec_format.hpp"

namespace warpsparse::io {

using AnyEc = std::variant<Ec<half>, Ec<bfloat16>, Ec<float>>;

inline constexpr char kEcMagic[8] = {'W', 'S', 'E', 'C', 'C', 'S', 'R', '\0'};
inline constexpr std::uint32_t kEcVersion = 1;
inline constexpr std::size_t kEcHeaderBytes = 56;
inline constexpr std::size_t kEcChecksumOffset = 48;
inline constexpr std::size_t kEcSetDescBytes = 64;
static_assert(kEcSetDescBytes == Ec<float>::kSetDescBytes, "the storage accounting counts the file's descriptors");

template <class T>
std::vector<std::uint8_t> serialize_ec(const Ec<T>& m);
std::vector<std::uint8_t> serialize_ec(const AnyEc& m);

// The checksum an .ec file's bytes should carry (everything but the checksum field itself): for
// tests and fuzz targets that edit a file and want its deeper checks reached.
std::uint64_t ec_file_checksum(std::span<const std::uint8_t> file);

// `name` is used in messages; `size`, when known, lets a truncated file be named before its arrays
// are read.
AnyEc read_ec(std::istream& in, const std::string& name, std::optional<std::uint64_t> size,
              const MemoryBudget& budget = MemoryBudget::default_budget());
AnyEc parse_ec(std::span<const std::uint8_t> bytes, const std::string& name,
               const MemoryBudget& budget = MemoryBudget::default_budget());

// Writes the header, the descriptors and the arrays as they are (no copy of the file in memory).
void write_ec_file(const std::string& path, const AnyEc& m);
AnyEc read_ec_file(const std::string& path, const MemoryBudget& budget = MemoryBudget::default_budget());

// The size in bytes of the file write_ec_file writes.
std::uint64_t ec_file_bytes(const AnyEc& m);

ValueType value_type_of(const AnyEc& m);

}  // namespace warpsparse::io
