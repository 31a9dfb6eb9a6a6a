// Host API of the 2:4 sparse GEMM kernels: C (M × N) = A (M × K, 2:4 along K, compressed) · B (K × N).
// Row-major A, B, C; bf16 or fp16 inputs, fp32 accumulation, bf16 / fp16 / fp32 output.
//
// Alignment rules (checked by launch_gemm, Error otherwise):
//   * A comes from upload(): values and swizzled metadata padded to multiples of 128 rows and
//     64 columns (reference/sparse24/sparse24_layout.hpp), so any M and K work.
//   * B: any N and K; ldb >= N, ldb a multiple of 8 and B 16-byte aligned (cp.async moves 16-byte
//     chunks; columns >= N and rows >= K are zero-filled). Pad a B with odd N to ldb = round_up(N, 8).
//   * C: any ldc >= N and any alignment of 2 (16-bit) / 4 (fp32) bytes; only the M × N block is
//     written.
// Usage:
//   auto a = sparse24::gpu::upload(sparse24::compress<bfloat16>(dense, M, K));
//   sparse24::gpu::gemm(a, d_b, N, ldb, d_c, ldc);            // bf16 × bf16 -> C type
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/common/device_buffer.hpp"
#include "kernels/sparse24/sparse24_launch.hpp"
#include "reference/sparse24/sparse24_format.hpp"
#include "reference/values/value_types.hpp"

namespace warpsparse::sparse24::gpu {

inline Elem elem_of(ValueType t) {
  switch (t) {
    case ValueType::fp16: return Elem::kFp16;
    case ValueType::bf16: return Elem::kBf16;
    case ValueType::fp32: return Elem::kFp32;
    default: throw Error("sparse24 gemm: unsupported value type " + std::string(warpsparse::to_string(t)));
  }
}

template <class T>
struct DeviceMatrix {
  int rows = 0, cols = 0, rows_padded = 0, cols_padded = 0;
  warpsparse::gpu::DeviceBuffer<T> values;
  warpsparse::gpu::DeviceBuffer<std::uint16_t> meta;  // swizzled order
};

template <class T>
DeviceMatrix<T> upload(const Sparse24Matrix<T>& s) {
  DeviceMatrix<T> d;
  d.rows = s.rows;
  d.cols = s.cols;
  d.rows_padded = s.rows_padded;
  d.cols_padded = s.cols_padded;
  d.values = warpsparse::gpu::DeviceBuffer<T>(s.values);
  d.meta = warpsparse::gpu::DeviceBuffer<std::uint16_t>(swizzle_meta(s.meta, s.rows_padded, s.cols_padded));
  return d;
}

// B (K × N, contiguous row-major) copied to the pitch the kernel needs, ldb = round_up(N, 8);
// padding columns are zero. Returns the pitched copy; `ldb` receives the pitch.
template <class T>
std::vector<T> pitch_b(std::span<const T> b, int k, int n, int& ldb) {
  require(b.size() == static_cast<std::size_t>(k) * static_cast<std::size_t>(n), "pitch_b: B is not K x N");
  ldb = static_cast<int>(round_up(n, 8));
  std::vector<T> out(static_cast<std::size_t>(k) * ldb, T(0.0f));
  for (int r = 0; r < k; ++r)
    for (int j = 0; j < n; ++j)
      out[static_cast<std::size_t>(r) * ldb + j] = b[static_cast<std::size_t>(r) * n + j];
  return out;
}

template <class T, class TOut>
void gemm(const DeviceMatrix<T>& a, const T* b, int n, int ldb, TOut* c, int ldc,
          cudaStream_t stream = nullptr, Tile tile = Tile::kAuto) {
  GemmArgs g;
  g.a_values = a.values.get();
  g.a_meta = a.meta.get();
  g.m = a.rows;
  g.k = a.cols;
  g.rows_padded = a.rows_padded;
  g.cols_padded = a.cols_padded;
  g.b = b;
  g.n = n;
  g.ldb = ldb;
  g.c = c;
  g.ldc = ldc;
  g.in = elem_of(ValueTypeOf<T>::value);
  g.out = elem_of(ValueTypeOf<TOut>::value);
  g.tile = tile;
  launch_gemm(g, stream);
}

}  // namespace warpsparse::sparse24::gpu
