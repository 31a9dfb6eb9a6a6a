// libFuzzer target: telling an input's format from its first bytes, as the CLI does for files and
// pipes alike (io::sniff_format). Whatever the bytes, the stream handed on after sniffing yields
// exactly them, read back in pieces of every size up to 64 KiB, sized or not; then the reader of
// the format named reads that stream, and accepts it or refuses it with an Error naming the input.
#include <istream>
#include <string_view>
#include <variant>

#include "proptests/fuzz/fuzz_support.hpp"
#include "reference/io/ec_file.hpp"
#include "reference/io/input.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/matrix_market.hpp"

using namespace warpsparse;

namespace {

constexpr const char* kName = "fuzz.in";

// An istream over bytes in memory that owns its buffer, as io::Input holds streams.
class MemoryStream : public std::istream {
 public:
  MemoryStream(const std::uint8_t* data, std::size_t size) : std::istream(nullptr), buf_(data, size) {
    rdbuf(&buf_);
  }

 private:
  io::MemoryBuf buf_;
};

io::Input input(const std::uint8_t* data, std::size_t size, bool sized) {
  io::Input in;
  in.name = kName;
  in.stream = std::make_unique<MemoryStream>(data, size);
  if (sized) in.size = size;
  return in;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  io::InputFormat format = io::InputFormat::unknown;
  for (const bool sized : {false, true}) {
    io::Input in = input(data, size, sized);
    format = io::sniff_format(in);
    // Pieces of 1, 3, 7, 15, ... bytes, growing past the sniffed prefix and the 64 KiB refill.
    std::string back;
    std::vector<char> piece;
    for (std::size_t n = 1; in.stream->good(); n = n < 65536 ? n * 2 + 1 : n) {
      piece.resize(n);
      in.stream->read(piece.data(), static_cast<std::streamsize>(n));
      back.append(piece.data(), static_cast<std::size_t>(in.stream->gcount()));
    }
    fuzz::check(!in.stream->bad(), "the sniffed stream failed");
    // A string_view, not memcmp: an empty input may come as a null pointer.
    fuzz::check(back == std::string_view(reinterpret_cast<const char*>(data), size),
                "the stream after sniffing does not yield the input's bytes");
  }
  io::Input in = input(data, size, false);
  fuzz::check(io::sniff_format(in) == format, "the format depends on whether the size is known");
  try {
    switch (format) {
      case io::InputFormat::macko:
        std::visit([](const auto& a) { fuzz::check_model(a); },
                   io::read_macko(*in.stream, in.name, in.size, fuzz::kBudget));
        break;
      case io::InputFormat::ec:
        std::visit([](const auto& a) { a.validate(); },
                   io::read_ec(*in.stream, in.name, in.size, fuzz::kBudget));
        break;
      case io::InputFormat::matrix_market:
        io::read_matrix_market<half>(*in.stream, in.name, {}, fuzz::kBudget).validate();
        break;
      case io::InputFormat::unknown:
        break;
    }
  } catch (const Error& e) {
    fuzz::check_message(e.what(), kName);
  }
  return 0;
}
