#include "reference/io/binary_stream.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace warpsparse::io {

std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes, std::uint64_t h) {
  for (const std::uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::uint64_t file_checksum(std::span<const std::uint8_t> file, std::size_t checksum_offset) {
  if (file.size() < checksum_offset + 8) return fnv1a64(file.first(std::min(file.size(), checksum_offset)));
  return fnv1a64(file.subspan(checksum_offset + 8), fnv1a64(file.first(checksum_offset)));
}

std::optional<std::vector<std::uint8_t>> with_file_checksum(std::span<const std::uint8_t> file,
                                                            std::size_t checksum_offset) {
  if (file.size() < checksum_offset + 8) return std::nullopt;
  std::vector<std::uint8_t> fixed(file.begin(), file.end());
  store_le<std::uint64_t>(fixed, checksum_offset, file_checksum(fixed, checksum_offset));
  return fixed;
}

Error BinaryReader::fail(std::uint64_t off, std::string_view field, std::string_view what) const {
  return Error(fmt::format("{}: byte {}: {}: {}", name_, off, field, what));
}

void BinaryReader::read_header(std::span<std::uint8_t> header, std::span<const char> magic, std::string_view kind,
                               std::size_t checksum_offset) {
  in_.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header.size()));
  const auto got = static_cast<std::uint64_t>(in_.gcount());
  if (in_.bad()) throw Error(name_ + ": read error");
  if (got < magic.size() || std::memcmp(header.data(), magic.data(), magic.size()) != 0) {
    std::string shown;  // the magic as a C string literal shows it ("WSMACKO\0")
    for (const char c : magic) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
    throw fail(0, "magic", fmt::format("not {} (it does not start with \"{}\")", kind, shown));
  }
  if (got < header.size())
    throw fail(got, "header", fmt::format("truncated: the file has {} bytes, the header needs {}", got, header.size()));
  header_ = header;
  checksum_offset_ = checksum_offset;
  hash_ = fnv1a64(header.first(checksum_offset));
}

void BinaryReader::check_version(std::size_t at, std::uint32_t known) const {
  const auto version = load_le<std::uint32_t>(header_, at);
  if (version != known)
    throw fail(at, "version", fmt::format("unsupported version {} (this reader knows {})", version, known));
}

ValueType BinaryReader::value_type(std::size_t at) const {
  const auto vt = load_le<std::uint8_t>(header_, at);
  if (vt > static_cast<std::uint8_t>(ValueType::int8)) throw fail(at, "value_type", fmt::format("unknown code {}", vt));
  return static_cast<ValueType>(vt);
}

std::uint64_t BinaryReader::read_some(void* dst, std::uint64_t n) {
  auto* p = static_cast<char*>(dst);
  std::uint64_t done = 0;
  while (done < n) {
    const auto chunk = static_cast<std::streamsize>(std::min<std::uint64_t>(n - done, std::uint64_t{1} << 30));
    in_.read(p + done, chunk);
    const auto got = static_cast<std::uint64_t>(in_.gcount());
    hash_ = fnv1a64(byte_span(p + done, got), hash_);
    done += got;
    if (got != static_cast<std::uint64_t>(chunk)) break;
  }
  return done;
}

void BinaryReader::declare_payload(std::uint64_t end, std::function<std::string(std::uint64_t)> section) {
  end_ = end;
  section_ = std::move(section);
}

void BinaryReader::check_size(std::optional<std::uint64_t> size) {
  size_checked_ = size.has_value();
  if (size && *size < end_)
    throw fail(*size, section_(*size),
               fmt::format("truncated: the file has {} bytes, the header declares {}", *size, end_));
  if (size && *size > end_)
    throw fail(end_, "payload", fmt::format("{} trailing bytes after the declared arrays", *size - end_));
}

void BinaryReader::read_array(void* dst, std::uint64_t at, std::uint64_t n) {
  if (in_.bad()) throw Error(name_ + ": read error");
  const std::uint64_t got = read_some(dst, n);
  if (got != n)
    throw fail(at + got, section_(at + got),
               fmt::format("truncated: the file ends at byte {}, the header declares {}", at + got, end_));
}

void BinaryReader::check_end() {
  if (in_.peek() != std::char_traits<char>::eof())
    throw fail(end_, "payload", "trailing bytes after the declared arrays");
}

void BinaryReader::check_checksum() const {
  const auto stored = load_le<std::uint64_t>(header_, checksum_offset_);
  if (stored != hash_)
    throw fail(checksum_offset_, "checksum",
               fmt::format("mismatch: stored {:#018x}, computed {:#018x} (file corrupted)", stored, hash_));
}

}  // namespace warpsparse::io
