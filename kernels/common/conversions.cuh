// The conversions every kernel uses to and from its fp32 accumulators: round to nearest even, as the
// warp models' from_float does. CUDA types only (no host library), so every .cu can include it.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace warpsparse::gpu {

__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_f32(float v) { return v; }
template <class TY>
__device__ __forceinline__ TY from_f32(float v);
template <>
__device__ __forceinline__ __half from_f32<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ float from_f32<float>(float v) {
  return v;
}

// y = alpha*acc (+ beta*y_old when beta != 0; y is not read otherwise), one rounding to TY: the
// epilogue of every SpMV kernel, as spmv_detail::epilogue in the models.
template <class TY>
__device__ __forceinline__ void store_epilogue(TY* y, float acc, float alpha, float beta) {
  float out = __fmul_rn(alpha, acc);
  if (beta != 0.0f) out = __fmaf_rn(beta, to_f32(*y), out);
  *y = from_f32<TY>(out);
}

}  // namespace warpsparse::gpu
