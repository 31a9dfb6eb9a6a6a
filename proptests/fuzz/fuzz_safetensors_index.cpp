// libFuzzer target: a sharded checkpoint's index (model.safetensors.index.json). The input is the
// index; its shards are a fixed set held in memory: two that together hold a small model, one that
// repeats a tensor of the first, and one whose header is cut short. Any index is refused with an
// Error naming the index or a shard, or accepted; an accepted checkpoint holds exactly the tensors
// of the shards its weight_map names, each in the shard the map says, and its small 2-D tensors are
// read as matrix rows both ways round, encoded and run through the warp model.
#include <cstring>
#include <map>
#include <set>

#include "proptests/fuzz/fuzz_support.hpp"

using namespace warpsparse;

namespace {

constexpr const char* kIndex = "ckpt/model.safetensors.index.json";

// A safetensors file: the header's length (8 bytes, little-endian), the header, then `data` bytes of
// finite 16-bit values taken in turn from `pattern`.
std::vector<std::uint8_t> shard(const std::string& header, std::size_t data,
                                std::initializer_list<std::uint16_t> pattern) {
  std::vector<std::uint8_t> b(8 + header.size() + data);
  for (int i = 0; i < 8; ++i)
    b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(header.size() >> (8 * i));
  std::memcpy(b.data() + 8, header.data(), header.size());
  const std::vector<std::uint16_t> p(pattern);
  for (std::size_t i = 0; i + 1 < data; i += 2)
    std::memcpy(b.data() + 8 + header.size() + i, &p[(i / 2) % p.size()], 2);
  return b;
}

struct Shards {
  std::map<std::string, std::vector<std::uint8_t>> bytes;
  std::map<std::string, std::span<const std::uint8_t>> spans;
  Shards() {
    // fp16 1, 0, -1.5, 0.5, 2, 0; bf16 the same values.
    bytes["ckpt/model-00001-of-00002.safetensors"] =
        shard(R"({"a.weight":{"dtype":"F16","shape":[3,5],"data_offsets":[0,30]},)"
              R"("a.bias":{"dtype":"F16","shape":[3],"data_offsets":[30,36]}})",
              36, {0x3C00, 0, 0xBE00, 0x3800, 0x4000, 0});
    bytes["ckpt/model-00002-of-00002.safetensors"] = shard(
        R"({"__metadata__":{"format":"pt"},"b.weight":{"dtype":"BF16","shape":[4,6],"data_offsets":[0,48]}})",
        48, {0x3F80, 0, 0xBFC0, 0x3F00, 0x4000, 0});
    bytes["ckpt/repeat.safetensors"] =
        shard(R"({"a.bias":{"dtype":"F16","shape":[3],"data_offsets":[0,6]}})", 6, {0x3C00});
    auto cut = shard(R"({"c.weight":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]}})", 8, {0x3C00});
    cut.resize(20);
    bytes["ckpt/cut.safetensors"] = cut;
    for (const auto& [p, b] : bytes) spans.emplace(p, b);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Shards shards;
  std::unique_ptr<io::TensorFile> f;
  try {
    f = io::open_safetensors_index_bytes({data, size}, kIndex, shards.spans);
  } catch (const Error& e) {
    // Named by the index or by a shard: every path here starts with the index's folder.
    const std::string what = e.what();
    fuzz::check(what.rfind("ckpt/", 0) == 0 && what.find(": ") != std::string::npos,
                "error names no file: " + what);
    return 0;
  }
  // The tensors are those of the shards named, once each, and each lives in its shard's bytes.
  std::set<std::string> files, names;
  for (const auto& t : f->tensors()) {
    fuzz::check(shards.spans.count(t.file) == 1, "a tensor from a file that is not a shard: " + t.file);
    fuzz::check(names.insert(t.name).second, "a tensor listed twice: " + t.name);
    const auto d = f->data(t);
    const auto s = shards.spans.at(t.file);
    fuzz::check(d.size() == t.bytes && d.data() >= s.data() && d.data() + d.size() <= s.data() + s.size(),
                "a tensor's bytes lie outside its shard: " + t.label());
    files.insert(t.file);
  }
  fuzz::check(!files.count("ckpt/cut.safetensors"), "a shard with a cut header was accepted");
  fuzz::check(
      !(files.count("ckpt/repeat.safetensors") && files.count("ckpt/model-00001-of-00002.safetensors")),
      "two shards holding one tensor were accepted");
  fuzz::check_tensor_file(*f);
  return 0;
}
