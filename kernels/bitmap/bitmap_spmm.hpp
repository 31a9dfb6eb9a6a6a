// Host API of the bitmap-tile tensor-core SpMM (docs/bitmap-spmm.md): upload a host Bitmap<T> and
// run Y = alpha * A * X + beta * Y for a batch of 1-16 vectors with mma.m16n8k16 (fp32
// accumulation). Within the derived bound of the fragment model reference/bitmap/bitmap_spmm_model.hpp
// (tensor cores do not add in a specified order). Host code includes this header only.
//   T  (matrix values and X): half or bfloat16
//   TY (Y): T or float
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/device_buffer.hpp"
#include "reference/bitmap/bitmap_format.hpp"
#include "reference/bitmap/bitmap_schedule.hpp"

namespace warpsparse::gpu {

template <class T>
struct DeviceBitmap {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<std::uint64_t> bitmaps;
  DeviceBuffer<std::uint32_t> tile_off;
  DeviceBuffer<std::int64_t> row_base;
  DeviceBuffer<T> values;  // padded with a few zeros: the kernel copies whole 16-byte pieces
  std::int64_t max_chunk_values = 0;  // sizes the kernel's shared-memory stages
  // Bytes of the format's arrays, which one launch reads.
  std::uint64_t bytes() const { return values.bytes() + bitmaps.bytes() + tile_off.bytes() + row_base.bytes(); }
};

// Validates the host matrix (Bitmap::find_fault) and copies it to the device.
template <class T>
DeviceBitmap<T> upload_bitmap(const Bitmap<T>& a);

// Y = alpha * A * X + beta * Y (Y is not read when beta == 0). X is cols x B and Y rows x B, both
// row-major (element (c, b) at c * B + b), B = s.batch, as MACKO's batches. X must be finite: a
// tile's zeros are multiplied too, so an infinite x poisons the 16 rows of its tile (as a dense GEMM).
template <class T, class TY>
void bitmap_spmm(const DeviceBitmap<T>& a, const T* x, TY* y, float alpha, float beta, const bitmap::Schedule& s,
                 cudaStream_t stream = nullptr);

// For benchmarks only: the same launch without finding each lane's elements (the bitmaps stand in
// for the A fragments, so y is meaningless): what the copies, X fragments, mma and loop cost, the
// bound of the decode's share (bench kernel bitmap_nodecode).
template <class T>
void bitmap_spmm_without_decode(const DeviceBitmap<T>& a, const T* x, T* y, const bitmap::Schedule& s,
                                cudaStream_t stream = nullptr);

}  // namespace warpsparse::gpu
