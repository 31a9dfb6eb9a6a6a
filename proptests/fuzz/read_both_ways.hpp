// The binary readers' promise on any bytes (reference/io/macko_file.hpp, ec_file.hpp), for their fuzz
// targets: read as a file of known size and as a stream of unknown size (a pipe), the bytes are
// either refused both ways, each with an Error whose message starts with the input's name ("<name>:"),
// or accepted both ways; an accepted file writes back to the same bytes, and the stream's matrix
// writes the same. Host only.
#pragma once
#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/common/memory_budget.hpp"
#include "reference/io/binary_stream.hpp"

namespace warpsparse::io {

template <class Any>
struct BothWays {
  std::optional<Any> file;  // what the reader of known size accepted
  std::string broken;       // the first broken promise, in the order above; empty when none
};

// read(in, name, size, budget) reads one file (size: nothing for the pipe), as read_macko and
// read_ec do; serialize(m) gives its bytes.
template <class Any>
BothWays<Any> read_both_ways(std::span<const std::uint8_t> bytes, const std::string& file_name,
                             const MemoryBudget& budget, StreamReader<Any> read,
                             std::vector<std::uint8_t> (*serialize)(const Any&)) {
  BothWays<Any> out;
  std::optional<Any> pipe;
  std::string file_error, pipe_error;
  auto named = [&](const std::string& what, const std::string& name) {
    if (out.broken.empty() && what.rfind(name + ":", 0) != 0)
      out.broken = "error does not start with the input's name: " + what;
  };
  try {
    out.file = read_bytes(read, bytes, file_name, budget);
  } catch (const Error& e) {
    file_error = e.what();
    named(file_error, file_name);
  }
  if (!out.broken.empty()) return out;
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    pipe = read(in, "pipe", std::nullopt, budget);
  } catch (const Error& e) {
    pipe_error = e.what();
    named(pipe_error, "pipe");
  }
  if (!out.broken.empty()) return out;
  if (out.file.has_value() != pipe.has_value()) {
    out.broken = "the file and stream readers disagree: '" + file_error + "' vs '" + pipe_error + "'";
    return out;
  }
  if (!out.file) return out;
  const std::vector<std::uint8_t> written = serialize(*out.file);
  if (written != std::vector<std::uint8_t>(bytes.begin(), bytes.end()))
    out.broken = "accepted file does not write back as read";
  else if (serialize(*pipe) != written)
    out.broken = "the stream reader read a different matrix";
  return out;
}

}  // namespace warpsparse::io
