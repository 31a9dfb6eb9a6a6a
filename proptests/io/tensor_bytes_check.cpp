// Used by numpy_roundtrip.py: prints nothing and exits 0 when tensor FILE[:NAME] holds exactly the
// bytes of EXPECTED (the array in C order, as numpy's tobytes() writes it), else names the
// difference and exits 1.
//   tensor_bytes_check FILE[:NAME] EXPECTED.bin
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/io/tensor_file.hpp"

int main(int argc, char** argv) {
  using namespace warpsparse;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FILE[:NAME] EXPECTED.bin\n", argv[0]);
    return 2;
  }
  try {
    const io::TensorSpec spec = io::split_tensor_spec(argv[1]);
    auto f = io::open_tensor_file(spec.file);
    const io::TensorInfo& t = f->find(spec.tensor);
    const auto data = f->data(t);
    std::vector<std::uint8_t> got(data.begin(), data.end());
    if (t.fortran_order && t.shape.size() == 2) {  // to C order
      const auto R = static_cast<std::size_t>(t.shape[0]), C = static_cast<std::size_t>(t.shape[1]), w = t.item_bytes;
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < C; ++c) std::memcpy(&got[(r * C + c) * w], &data[(c * R + r) * w], w);
    }
    std::ifstream in(argv[2], std::ios::binary);
    const std::vector<std::uint8_t> want{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (got != want) {
      std::size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      std::fprintf(stderr, "%s: %zu bytes read, %zu expected; first difference at byte %zu\n", argv[1], got.size(), want.size(), i);
      return 1;
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
