// libFuzzer target: the .npy reader, and the .npz reader (a zip of .npy files, through libzip) for
// inputs that start like a zip. Any input is refused with an Error naming the input, or accepted;
// then every small 2-D array is read as matrix rows both ways round (C and Fortran order meet here),
// encoded and run through the warp model.
#include <cstring>

#include "proptests/fuzz/fuzz_support.hpp"

using namespace warpsparse;

namespace {

// A .npy file in memory, as a TensorFile.
class NpyBytes : public io::TensorFile {
 public:
  NpyBytes(std::span<const std::uint8_t> b) : b_(b) {
    path_ = "fuzz.npy";
    tensors_.push_back(io::parse_npy(b, b.size(), path_));
  }
  std::span<const std::uint8_t> data(const io::TensorInfo& t) override { return b_.subspan(t.offset, t.bytes); }
  void release(const io::TensorInfo&) override {}

 private:
  std::span<const std::uint8_t> b_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool zip = size >= 2 && data[0] == 'P' && data[1] == 'K';
  const std::string name = zip ? "fuzz.npz" : "fuzz.npy";
  std::unique_ptr<io::TensorFile> f;
  try {
    if (zip) f = io::open_npz_bytes({data, size}, name, fuzz::kBudget);
    else f = std::make_unique<NpyBytes>(std::span<const std::uint8_t>(data, size));
  } catch (const Error& e) {
    fuzz::check_message(e.what(), name);
    return 0;
  }
  try {
    fuzz::check_tensor_file(*f);
  } catch (const Error& e) {
    // Only decompressing an npz member may still fail (a corrupt deflate stream, a CRC mismatch):
    // named by the member.
    fuzz::check(zip, std::string("an accepted .npy failed later: ") + e.what());
    fuzz::check_message(e.what(), name);
  }
  return 0;
}
