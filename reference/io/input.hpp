// Opening an input once, as a stream, so that pipes, FIFOs and process substitution work like
// files: the format is told from the first bytes, which are then handed back to the parser.
// Directories and devices are refused by name. Host only.
#pragma once
#include <cstdint>
#include <fstream>
#include <istream>
#include <memory>
#include <optional>
#include <streambuf>
#include <string>

namespace warpsparse::io {

// An open input: its stream, and its size when it is a regular file (pipes and FIFOs have none).
struct Input {
  std::string name;
  std::unique_ptr<std::istream> stream;
  std::optional<std::uint64_t> size;
};

// A file name the system can take whole: not empty, and without a NUL byte (which would end it
// early, so that another file is read or written). Throws Error naming it otherwise.
void require_file_name(const std::string& path);

// Opens `path` for reading ("-" is standard input); throws Error naming the path when it is missing,
// unreadable, a directory or a device.
Input open_input(const std::string& path);

// The formats this project reads.
enum class InputFormat { macko, ec, matrix_market, unknown };

// Reads the first bytes of in.stream, says which format they start, and replaces the stream with one
// that yields those bytes again followed by the rest, so the parser sees the whole input.
InputFormat sniff_format(Input& in);

// A stream over bytes in memory (the parsers' tests and fuzz targets).
class MemoryBuf : public std::streambuf {
 public:
  MemoryBuf(const void* data, std::size_t size) {
    char* p = const_cast<char*>(static_cast<const char*>(data));
    setg(p, p, p + size);
  }
};

}  // namespace warpsparse::io
