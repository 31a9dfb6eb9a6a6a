// libFuzzer target: the MACKO file reader. Any input is either refused with an Error naming the file
// and a byte offset, or accepted; an accepted file validates, writes back to the same bytes, reads
// the same from a stream of unknown size (a pipe), and runs through the warp model. Each input is
// tried as given and with its checksum recomputed.
#include <variant>

#include "proptests/fuzz/fuzz_support.hpp"
#include "reference/io/macko_file.hpp"
#include "proptests/fuzz/read_both_ways.hpp"

using namespace warpsparse;

namespace {

void one(std::span<const std::uint8_t> bytes) {
  const auto r =
      io::read_both_ways<io::AnyMacko>(bytes, "fuzz.macko", fuzz::kBudget, io::read_macko, io::serialize_macko);
  fuzz::check(r.broken.empty(), r.broken);
  if (r.file) std::visit([](const auto& a) { fuzz::check_model(a); }, *r.file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  one({data, size});
  // A mutated file almost never keeps its checksum, which would stop nearly every input at byte 72:
  // the same bytes with the checksum recomputed reach the header and array checks behind it.
  if (const auto fixed = io::with_file_checksum({data, size}, io::kMackoChecksumOffset)) one(*fixed);
  return 0;
}
