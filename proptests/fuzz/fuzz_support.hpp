// Shared by the reader fuzz targets: what a target checks beyond "no crash", and how it says that a
// check failed (an abort, which libFuzzer records as a crash and the corpus replay as a failure).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <variant>

#include "reference/common/memory_budget.hpp"
#include "reference/io/format_safetensors.hpp"
#include "reference/io/tensor_file.hpp"
#include "reference/macko/macko_verify.hpp"
#include "reference/sparse24/sparse24_format.hpp"

namespace warpsparse::fuzz {

// What a reader may plan to allocate under fuzzing: inputs that promise more are refused by the
// budget (that refusal is itself under test), which keeps every run far below libFuzzer's RSS limit.
inline const MemoryBudget kBudget{std::uint64_t{64} << 20, "fuzz budget"};

// The warp model runs on every accepted matrix up to this many elements (time per input stays in
// milliseconds).
inline constexpr std::int64_t kModelElements = std::int64_t{1} << 16;
// A matrix is encoded (and decoded, written and read back) up to this many stored elements: a
// 73-byte input (one nonzero at column 47 325 713, 2-bit deltas) asks for 16 M padding elements, 9 s
// per input under ASan for the three value types, which libFuzzer reports as a slow unit. Rows cost
// the same per row (row pointers, the model's warps): a 74-byte header of 4.94 M rows and 3 entries
// took 13 s, so the bound holds for rows too. Large encodings are the property tests'
// (proptests/macko).
inline constexpr std::int64_t kEncodeElements = std::int64_t{1} << 20;

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::abort();
}
inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// An Error from a reader must name the input first ("<name>:" then a line or byte offset).
inline void check_message(const std::string& what, const std::string& name) {
  check(what.rfind(name + ":", 0) == 0, "error does not start with the input's name: " + what);
}

// A matrix the readers accepted: it validates, and for small shapes the warp model equals the
// double-precision oracle within its bound for a few accumulator counts.
template <class T>
void check_model(const Macko<T>& a) {
  a.validate();
  // Both sides bounded: a 0 x 2^30 matrix has no elements but a 2^30-element x.
  if (std::max<std::int64_t>(a.rows, 1) * std::max<std::int64_t>(a.cols, 1) > kModelElements) return;
  const MackoVerifyResult r = macko_verify(a, 7, {1, 4});
  check(r.fault.empty(), "warp model fault: " + r.fault);
  check(r.check.ok(), "warp model disagrees with the oracle: " + r.check.first_failure);
}

// Every tensor of an accepted tensor file: a small 2-D one of a matrix dtype is read as rows (both
// orientations, which must be transposes of each other), encoded, and run through the model; a
// MACKO safetensors file is read as a matrix and run through the model; a bitmap-tile file is read,
// validated and decoded (its decode must round-trip through the encoder).
inline void check_tensor_file(io::TensorFile& f) {
  if (io::warpsparse_format(f) == io::kBitmapSafetensorsFormat) {
    try {
      std::visit([](const auto& b) {
        if (std::max<std::int64_t>(b.rows, 1) * std::max<std::int64_t>(b.cols, 1) > kModelElements) return;
        const auto rows = decode_bitmap(b);
        const auto again = encode_bitmap(rows, 1);
        check(again.bitmaps == b.bitmaps && again.tile_off == b.tile_off && again.row_base == b.row_base,
              "a bitmap file's decode does not encode back to it");
      }, io::read_bitmap_safetensors(f, kBudget));
    } catch (const Error& e) {
      check_message(e.what(), f.path());
    }
    return;
  }
  if (io::warpsparse_format(f) == io::kSparse24SafetensorsFormat) {
    // Whatever the reader accepts is a 2:4 matrix: its dense form compresses back to the same dense
    // form (bit for bit, but for the sign of a zero, which compress drops). Every value type is
    // tried; all but the file's are refused by name.
    const auto check_24 = [&](auto tag) {
      using T = decltype(tag);
      try {
        const auto s = io::read_sparse24_safetensors<T>(f, kBudget);
        if (std::int64_t{s.rows_padded} * s.cols_padded > kModelElements) return;
        const auto dense = sparse24::decompress(s);
        const auto again = sparse24::decompress(sparse24::compress<T>(dense, s.rows, s.cols));
        check(dense.size() == again.size(), "a 2:4 file's dense form does not compress back to its shape");
        for (std::size_t i = 0; i < dense.size(); ++i)
          check((is_zero(dense[i]) && is_zero(again[i])) || std::memcmp(&dense[i], &again[i], sizeof(T)) == 0,
                "a 2:4 file's dense form does not compress back to itself");
      } catch (const Error& e) {
        check_message(e.what(), f.path());
      }
    };
    check_24(half{});
    check_24(bfloat16{});
    check_24(float{});
    check_24(std::int8_t{});
    return;
  }
  if (io::warpsparse_format(f) == io::kMackoSafetensorsFormat) {
    try {
      const auto m = io::read_macko_safetensors(f, kBudget);
      std::visit([](const auto& a) { check_model(a); }, m);
    } catch (const Error& e) {
      check_message(e.what(), f.path());
    }
    return;
  }
  for (const auto& t : f.tensors()) {
    if (t.shape.size() != 2 || t.dtype == io::DType::other || t.elements() > static_cast<std::uint64_t>(kModelElements) ||
        std::max<std::int64_t>(t.shape[0], 1) * std::max<std::int64_t>(t.shape[1], 1) > kModelElements)
      continue;
    dispatch_value_type(io::value_type_of(t.dtype), [&](auto tag) {
      using T = decltype(tag);
      const auto data = f.data(t);
      const SparseRows<T> a = io::tensor_rows<T>(t, data, false, kBudget);
      const SparseRows<T> b = io::tensor_rows<T>(t, data, true, kBudget);
      a.validate();
      b.validate();
      check(a.nnz() == b.nnz() && a.rows == b.cols && a.cols == b.rows, "a tensor and its transpose differ in shape or nonzeros");
      const auto da = a.to_dense(), db = b.to_dense();
      for (std::int64_t r = 0; r < a.rows; ++r)
        for (std::int64_t c = 0; c < a.cols; ++c)
          check(std::memcmp(&da[static_cast<std::size_t>(r * a.cols + c)], &db[static_cast<std::size_t>(c * b.cols + r)], sizeof(T)) == 0,
                "a tensor and its transpose differ");
      check_model(encode_macko(a));
      f.release(t);
    });
  }
}

}  // namespace warpsparse::fuzz
