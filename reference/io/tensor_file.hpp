// Tensor files a user's checkpoint comes in: safetensors (one file, or a sharded checkpoint through
// its model.safetensors.index.json), numpy .npy and .npz. Files are memory-mapped and every header
// is checked against the file (offsets, lengths, overlap, dtype sizes, shape products) before a data
// byte is touched; a tensor is read when asked for, and its pages can be dropped after use, so a
// checkpoint larger than memory is walked tensor by tensor. Host only.
//
// A tensor is named on the command line as FILE:NAME (safetensors, npz member, or the index file
// and a name); a .npy file holds one tensor, named by the file alone.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reference/common/memory_budget.hpp"
#include "reference/sparse/sparse_rows.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse::io {

// Element types a matrix can be read from (others are listed, and refused by name when read).
enum class DType : std::uint8_t { f16, bf16, f32, i8, other };
std::string_view to_string(DType d);
// The value type a tensor of this dtype encodes to by default (fp16, bf16, fp32, int8).
ValueType value_type_of(DType d);

struct TensorInfo {
  std::string name;        // "" for a .npy file
  std::string dtype_name;  // as the file spells it: "F16", "<f2", ...
  std::string safetensors_dtype;  // the same type as safetensors spells it ("" when it has none)
  DType dtype = DType::other;
  std::uint64_t item_bytes = 0;  // 0: a dtype this reader does not know the size of
  std::vector<std::int64_t> shape;
  bool fortran_order = false;  // npy: column-major data
  std::uint64_t offset = 0;    // of the first data byte, in `file`
  std::uint64_t bytes = 0;
  std::string file;            // the file (shard, or npz member) that holds it, for messages

  std::string label() const { return name.empty() ? file : file + ":" + name; }
  std::string shape_string() const;  // "[4096, 11008]"
  std::uint64_t elements() const;
};

// An open tensor file. The bytes it hands out live as long as it does.
class TensorFile {
 public:
  virtual ~TensorFile() = default;
  const std::string& path() const { return path_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // safetensors' __metadata__ (of the index file, or of the single file); empty for npy/npz.
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // The tensor called `name`; "" picks the only tensor, or the only 2-D one. Throws Error naming
  // the file and listing a few of its tensors otherwise.
  const TensorInfo& find(const std::string& name) const;
  // Its bytes (mapped; an npz member is decompressed, within `budget`).
  virtual std::span<const std::uint8_t> data(const TensorInfo& t) = 0;
  // Drops the tensor's pages from this process's memory (it can be read again).
  virtual void release(const TensorInfo& t) = 0;

 protected:
  std::string path_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

// Opens a .safetensors, .safetensors.index.json, .npy or .npz file (told apart by their first
// bytes). Regular files only: these formats need random access.
std::unique_ptr<TensorFile> open_tensor_file(const std::string& path, const MemoryBudget& budget = MemoryBudget::default_budget());

// Whether the file at `path` starts like one of the tensor formats (false for a missing file).
bool is_tensor_file(const std::string& path);

// "FILE:NAME" -> {FILE, NAME}; a path that exists as given is a file with no name (so a path may
// contain ':'); otherwise the split is at the first ':' whose left side is an existing file.
struct TensorSpec {
  std::string file, tensor;
};
TensorSpec split_tensor_spec(const std::string& arg);

// The parsers, on bytes in memory (the fuzz targets call these). `file` names the input in messages.
struct SafetensorsHeader {
  std::vector<TensorInfo> tensors;  // in file order of their data
  std::map<std::string, std::string> metadata;
  std::uint64_t data_start = 0;     // 8 + header length
};
SafetensorsHeader parse_safetensors(std::span<const std::uint8_t> file_bytes, const std::string& file);
// `head` holds the file's first bytes (at least the whole header), `file_size` its full length.
TensorInfo parse_npy(std::span<const std::uint8_t> head, std::uint64_t file_size, const std::string& file);
// A single safetensors file in memory, as a TensorFile.
std::unique_ptr<TensorFile> open_safetensors_bytes(std::span<const std::uint8_t> bytes, const std::string& file);
// A sharded checkpoint's index in memory; its shards come from `shards` (the index's folder joined
// with the shard's name -> the shard's bytes), and one not there is refused as a missing file.
std::unique_ptr<TensorFile> open_safetensors_index_bytes(
    std::span<const std::uint8_t> index_bytes, const std::string& index_path,
    const std::map<std::string, std::span<const std::uint8_t>>& shards);
// An npz archive in memory, its members parsed as .npy (names without ".npy").
std::unique_ptr<TensorFile> open_npz_bytes(std::span<const std::uint8_t> bytes, const std::string& file,
                                           const MemoryBudget& budget);

// A 2-D tensor as the rows of a matrix: [out, in] = rows x cols (transpose: [in, out]). Values
// convert to T as the value types do (rounding to nearest even; int8 takes only whole numbers in
// [-128, 127] and says which element is not; a finite element beyond a float T's range, which would
// round to inf, is refused by position); zeros (after conversion) are not stored. The
// nonzeros are counted first, and their memory checked against `budget`, before any is stored.
template <class T>
SparseRows<T> tensor_rows(const TensorInfo& t, std::span<const std::uint8_t> data, bool transpose,
                          const MemoryBudget& budget = MemoryBudget::default_budget());

// Element i of a tensor of a matrix dtype (F16, BF16, F32, I8) as a float, from its bytes.
float element_float(const TensorInfo& t, std::span<const std::uint8_t> data, std::uint64_t i);

// The matrix shape of a 2-D tensor (rows, cols) with `transpose`; throws Error naming the tensor
// otherwise, or when a side exceeds what the formats address.
std::pair<std::int64_t, std::int64_t> matrix_shape(const TensorInfo& t, bool transpose);

// Writing safetensors: the tensors in the order given, data following the header, the header
// padded with spaces to a multiple of 8 bytes. Each tensor's bytes come from `write`, which must
// write exactly `bytes` bytes (checked).
struct TensorOut {
  std::string name, dtype;  // dtype as safetensors spells it ("F16", "U8", "I64", ...)
  std::vector<std::int64_t> shape;
  std::uint64_t bytes = 0;
  std::function<void(std::ostream&)> write;
};
void write_safetensors(const std::string& path, const std::vector<TensorOut>& tensors,
                       const std::map<std::string, std::string>& metadata);
// The size in bytes of one element of a safetensors dtype; 0 when unknown.
std::uint64_t safetensors_item_bytes(const std::string& dtype);

}  // namespace warpsparse::io
