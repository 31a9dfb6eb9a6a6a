// libFuzzer target: the MACKO file reader. Any input is either refused with an Error naming the file
// and a byte offset, or accepted; an accepted file validates, writes back to the same bytes, reads
// the same from a stream of unknown size (a pipe), and runs through the warp model. Each input is
// tried as given and with its checksum recomputed.
#include <cstring>
#include <sstream>
#include <variant>

#include "proptests/fuzz/fuzz_support.hpp"
#include "reference/io/macko_file.hpp"

using namespace warpsparse;

namespace {

void one(std::span<const std::uint8_t> bytes) {
  const auto* data = bytes.data();
  const std::size_t size = bytes.size();
  std::optional<io::AnyMacko> file, pipe;
  std::string file_error, pipe_error;
  try {
    file = io::parse_macko(bytes, "fuzz.macko", fuzz::kBudget);
  } catch (const Error& e) {
    file_error = e.what();
    fuzz::check_message(file_error, "fuzz.macko");
  }
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    pipe = io::read_macko(in, "pipe", std::nullopt, fuzz::kBudget);
  } catch (const Error& e) {
    pipe_error = e.what();
    fuzz::check_message(pipe_error, "pipe");
  }
  fuzz::check(file.has_value() == pipe.has_value(),
              "the file and stream readers disagree: '" + file_error + "' vs '" + pipe_error + "'");
  if (!file) return;
  const auto written = io::serialize_macko(*file);
  fuzz::check(written == std::vector<std::uint8_t>(bytes.begin(), bytes.end()), "accepted file does not write back as read");
  fuzz::check(io::serialize_macko(*pipe) == written, "the stream reader read a different matrix");
  std::visit([](const auto& a) { fuzz::check_model(a); }, *file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  one({data, size});
  // A mutated file almost never keeps its checksum, which would stop nearly every input at byte 72:
  // the same bytes with the checksum recomputed reach the header and array checks behind it.
  if (size >= io::kMackoHeaderBytes) {
    std::vector<std::uint8_t> fixed(data, data + size);
    const std::span<const std::uint8_t> all(fixed);
    const std::uint64_t h = io::fnv1a64(all.subspan(io::kMackoHeaderBytes),
                                        io::fnv1a64(all.first(io::kMackoChecksumOffset)));
    std::memcpy(fixed.data() + io::kMackoChecksumOffset, &h, sizeof h);
    one(fixed);
  }
  return 0;
}
