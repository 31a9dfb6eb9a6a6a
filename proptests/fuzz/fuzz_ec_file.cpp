// libFuzzer target: the EC file reader. Any input is either refused with an Error naming the file
// and a byte offset, or accepted; an accepted file validates, writes back to the same bytes, reads
// the same from a stream of unknown size (a pipe), decodes (no (row, column) twice), and for small
// shapes runs through the EC warp model (blocks whole, and one step per piece) within the oracle's
// bound. Each input is tried as given and with its checksum recomputed.
#include <random>
#include <variant>

#include "proptests/fuzz/fuzz_support.hpp"
#include "reference/ec/ec_schedule.hpp"
#include "reference/ec/ec_spmv_model.hpp"
#include "reference/io/ec_file.hpp"
#include "proptests/fuzz/read_both_ways.hpp"

using namespace warpsparse;

namespace {

template <class T>
void check_ec_model(const Ec<T>& a) {
  a.validate();
  // Both sides bounded: decode and the plan hold a vector per row, x holds cols entries.
  if (std::max<std::int64_t>(a.rows, 1) * std::max<std::int64_t>(a.cols, 1) > fuzz::kModelElements) return;
  const SparseRows<T> decoded = decode_ec(a);
  decoded.validate();
  fuzz::check(decoded.nnz() == a.nnz, "decode gives " + std::to_string(decoded.nnz()) + " nonzeros, the header says " +
                                          std::to_string(a.nnz));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<T> x(static_cast<std::size_t>(a.cols));
  for (auto& v : x) v = from_float<T>(u(rng));
  const std::vector<float> y_old;
  for (const int clip : {0, 1}) {
    const ec::Plan plan = ec::make_plan(a, std::vector<int>(a.sets.size(), clip));
    std::vector<float> y;
    try {
      y = ec_spmv_model<T, T, float>(a, plan, x, y_old, 1.0f, 0.0f);
    } catch (const warp::WarpFault& f) {
      fuzz::fail(std::string("EC warp model fault: ") + f.what());
    }
    const SpmvCheck c = check_spmv<T, T, float>(decoded, x, y_old, 1.0f, 0.0f, y,
                                                [&](std::int64_t r) { return ec_chain_length(a, plan, r); });
    fuzz::check(c.ok(), "EC warp model disagrees with the oracle: " + c.first_failure);
  }
}

void one(std::span<const std::uint8_t> bytes) {
  const auto r = io::read_both_ways<io::AnyEc>(bytes, "fuzz.ec", fuzz::kBudget, io::read_ec, io::serialize_ec);
  fuzz::check(r.broken.empty(), r.broken);
  if (r.file) std::visit([](const auto& a) { check_ec_model(a); }, *r.file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  one({data, size});
  // A mutated file almost never keeps its checksum, which would stop nearly every input at byte 48:
  // the same bytes with the checksum recomputed reach the descriptor and array checks behind it.
  if (const auto fixed = io::with_file_checksum({data, size}, io::kEcChecksumOffset)) one(*fixed);
  return 0;
}
