// MACKO, 2:4 and bitmap-tile matrices as safetensors files, so that a Python user loads them with the
// safetensors package alone. The format's fields go into the header's __metadata__ (strings, as
// safetensors requires); the arrays are tensors (docs/formats.md has the table):
//   MACKO: __metadata__ warpsparse.format = "macko", warpsparse.version = "1", value_type,
//          delta_bits, rows, cols,
//          nnz, emitted; tensors values [padded_length] (F16/BF16/F32/I8), deltas [bytes] (U8),
//          row_ptr [rows + 1] (I64).
//   2:4:   __metadata__ warpsparse.format = "sparse24", warpsparse.version = "1", value_type, rows, cols,
//          rows_padded, cols_padded; tensors values [rows_padded, cols_padded / 2],
//          metadata [rows_padded, cols_padded / 16] (U16: four 4-bit group nibbles per word, group
//          g of a row in bits 4(g mod 4).., plain row-major order, see sparse24_layout.hpp).
//   bitmap: __metadata__ warpsparse.format = "bitmap", warpsparse.version = "1", value_type, rows, cols;
//          tensors values [nnz] (F16/BF16/F32), bitmaps [tiles, 4] (U64: the 8 x 8 subtiles' bits in
//          fragment order, bitmap_layout.hpp), tile_off [tiles] (U32), row_base [tile rows + 1] (I64).
// Readers check every field and array against the others before building the matrix, and the
// MACKO and bitmap readers then run the format's own validation. Host only.
#pragma once
#include <map>
#include <string>

#include "reference/bitmap/bitmap_format.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/tensor_file.hpp"
#include "reference/sparse24/sparse24_format.hpp"

namespace warpsparse::io {

// The metadata key that marks a file as one of these (prefixed: checkpoints carry their own
// "format" entry, e.g. "pt"), and its values.
inline constexpr char kFormatKey[] = "warpsparse.format";
inline constexpr char kMackoSafetensorsFormat[] = "macko";
inline constexpr char kSparse24SafetensorsFormat[] = "sparse24";
inline constexpr char kBitmapSafetensorsFormat[] = "bitmap";

// The safetensors dtype of a value type ("F16", "BF16", "F32", "I8").
std::string safetensors_dtype(ValueType t);

// `extra` adds metadata entries (e.g. the source tensor's name).
void write_macko_safetensors(const std::string& path, const AnyMacko& m, const std::map<std::string, std::string>& extra = {});
// The matrix of a file whose __metadata__ says warpsparse.format = macko.
AnyMacko read_macko_safetensors(TensorFile& f, const MemoryBudget& budget = MemoryBudget::default_budget());

template <class T>
void write_sparse24_safetensors(const std::string& path, const sparse24::Sparse24Matrix<T>& s,
                                const std::map<std::string, std::string>& extra = {});
template <class T>
sparse24::Sparse24Matrix<T> read_sparse24_safetensors(TensorFile& f, const MemoryBudget& budget = MemoryBudget::default_budget());

template <class T>
void write_bitmap_safetensors(const std::string& path, const Bitmap<T>& b, const std::map<std::string, std::string>& extra = {});
// A bitmap-tile file of any value type (fp16, bf16, fp32).
using AnyBitmap = std::variant<Bitmap<half>, Bitmap<bfloat16>, Bitmap<float>>;
AnyBitmap read_bitmap_safetensors(TensorFile& f, const MemoryBudget& budget = MemoryBudget::default_budget());

// The warpsparse.format a tensor file's __metadata__ names ("" when none).
std::string warpsparse_format(const TensorFile& f);

}  // namespace warpsparse::io
