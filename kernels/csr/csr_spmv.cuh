// Device code of the plain CSR SpMV kernel. Every step mirrors reference/csr/csr_spmv_model.hpp:
//   - lanes 0 and 1 read row_ptr[r] and row_ptr[r + 1] (the model's gather with mask 0x3);
//   - lane l takes elements begin + l, begin + l + 32, ... (coalesced value and column loads);
//   - acc = fma(value, x[col], acc) in fp32, one rounding per step;
//   - butterfly reduction with shfl_xor 16, 8, 4, 2, 1 (each lane adds its partner's sum);
//   - epilogue __fmul_rn(alpha, acc), then __fmaf_rn(beta, y_old, .) when beta != 0, then one
//     rounding to the output type.
// NOTE: the explicit __fmaf_rn/__fadd_rn/__fmul_rn intrinsics keep nvcc from contracting or
// reassociating anything the model does not do, so kernel and model agree bit for bit.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/common/device_types.cuh"

namespace warpsparse::gpu::csr_detail {

inline constexpr unsigned kFullMask = 0xffffffffu;

// One warp per row; warps of a block take consecutive rows.
template <class TV, class TYD>
__global__ void csr_spmv_kernel(const std::int32_t* __restrict__ row_ptr,
                                const std::int32_t* __restrict__ col, const TV* __restrict__ val,
                                const TV* __restrict__ x, TYD* __restrict__ y, std::int64_t rows,
                                float alpha, float beta) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // uniform per warp: the shuffles below see full warps only

  std::int32_t p = 0;
  if (lane < 2) p = __ldg(row_ptr + row + lane);
  const std::int64_t begin = __shfl_sync(kFullMask, p, 0);
  const std::int64_t end = __shfl_sync(kFullMask, p, 1);

  float acc = 0.0f;
  for (std::int64_t k = begin + lane; k < end; k += 32) {
    const float v = to_f32(__ldg(val + k));
    const std::int32_t c = __ldg(col + k);
    acc = __fmaf_rn(v, to_f32(__ldg(x + c)), acc);
  }
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) acc = __fadd_rn(acc, __shfl_xor_sync(kFullMask, acc, off));

  if (lane == 0) store_epilogue(y + row, acc, alpha, beta);
}

}  // namespace warpsparse::gpu::csr_detail
