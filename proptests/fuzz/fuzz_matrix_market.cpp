// libFuzzer target: the MatrixMarket reader, for three value types. Any input is refused with an
// Error naming the file and a line, or accepted; an accepted matrix writes and reads back to the
// same entries, encodes to MACKO when the budget allows (the encoder's size prediction is checked
// against what it emits), decodes to its nonzeros, and runs through the warp model.
#include <cmath>
#include <cstring>
#include <sstream>

#include "proptests/fuzz/fuzz_support.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/matrix_market.hpp"

using namespace warpsparse;

namespace {

template <class T>
bool same(const SparseRows<T>& a, const SparseRows<T>& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.row_ptr != b.row_ptr || a.col != b.col) return false;
  for (std::size_t k = 0; k < a.val.size(); ++k) {
    const float x = to_float(a.val[k]), y = to_float(b.val[k]);
    // The text format keeps every bit but NaN payloads.
    if (!(std::isnan(x) && std::isnan(y)) && std::memcmp(&a.val[k], &b.val[k], sizeof(T)) != 0) return false;
  }
  return true;
}

template <class T>
void one(const std::string& text, int delta_bits) {
  SparseRows<T> m;
  try {
    std::istringstream in(text);
    m = io::read_matrix_market<T>(in, "fuzz.mtx", {}, fuzz::kBudget);
  } catch (const Error& e) {
    fuzz::check_message(e.what(), "fuzz.mtx");
    return;
  }
  m.validate();
  std::ostringstream out;
  io::write_matrix_market(out, m);
  std::istringstream back_in(out.str());
  fuzz::check(same(io::read_matrix_market<T>(back_in, "written", {}, MemoryBudget::unlimited()), m),
              "write -> read changed the matrix");
  MackoParams p;
  p.delta_bits = delta_bits;
  const MackoSize size = macko_size(m, p);
  if (size.encode_bytes > fuzz::kBudget.bytes || size.padded > fuzz::kEncodeElements ||
      m.rows > fuzz::kEncodeElements)
    return;
  const Macko<T> a = encode_macko(m, p);
  fuzz::check(a.emitted() == size.emitted && a.padded_length() == size.padded, "macko_size mispredicted the encoding");
  fuzz::check(same(decode_macko(a), m.without_zeros()), "encode -> decode changed the nonzeros");
  const auto reread = io::parse_macko(io::serialize_macko(a), "encoded", MemoryBudget::unlimited());
  fuzz::check(io::serialize_macko(reread) == io::serialize_macko(a), "MACKO write -> read changed the file");
  fuzz::check_model(a);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const int delta_bits = 1 << (size % 4);  // 1, 2, 4, 8: a property of the input, so runs replay
  one<half>(text, delta_bits);
  one<float>(text, delta_bits);
  one<std::int8_t>(text, delta_bits);
  return 0;
}
