// libFuzzer target: the safetensors reader. Any input is refused with an Error naming the input,
// or accepted; then every small 2-D tensor is read as matrix rows both ways round, encoded and run
// through the warp model, and a MACKO safetensors file is read as a matrix and checked the same way.
#include "proptests/fuzz/fuzz_support.hpp"

using namespace warpsparse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<io::TensorFile> f;
  try {
    f = io::open_safetensors_bytes({data, size}, "fuzz.safetensors");
  } catch (const Error& e) {
    fuzz::check_message(e.what(), "fuzz.safetensors");
    return 0;
  }
  fuzz::check_tensor_file(*f);
  return 0;
}
