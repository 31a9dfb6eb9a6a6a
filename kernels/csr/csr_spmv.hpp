// Host API of the plain CSR SpMV kernel of ours (the baseline next to cuSPARSE): one warp per
// row, fp32 accumulation. Its warp model is reference/csr/csr_spmv_model.hpp and the two give
// the same bits. Host code includes this header only; kernels/csr/csr_spmv.cu instantiates.
//   T  (matrix values and x): half or bfloat16 (host types of reference/values)
//   TY (y): half, bfloat16 or float
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/device_buffer.hpp"
#include "reference/csr/csr_format.hpp"

namespace warpsparse::gpu {

template <class T>
struct DeviceCsr {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<std::int32_t> row_ptr;  // rows + 1
  DeviceBuffer<std::int32_t> col;      // nnz
  DeviceBuffer<T> val;                 // nnz
  std::uint64_t bytes() const { return row_ptr.bytes() + col.bytes() + val.bytes(); }
};

// Checks the host matrix (row pointers non-decreasing and spanning [0, nnz], every column in
// [0, cols)) and copies it to the device.
template <class T>
DeviceCsr<T> upload_csr(const Csr<T, std::int32_t>& a);

// Launch shape only: it changes which warps share a block, never the arithmetic.
struct CsrSchedule {
  int warps_per_block = 8;
  constexpr bool valid() const { return warps_per_block >= 1 && warps_per_block <= 32; }
};

// y = alpha * A * x + beta * y (y is not read when beta == 0). x has cols, y rows elements.
template <class T, class TY>
void csr_spmv(const DeviceCsr<T>& a, const T* x, TY* y, float alpha, float beta,
              const CsrSchedule& sched = {}, cudaStream_t stream = nullptr);

}  // namespace warpsparse::gpu
