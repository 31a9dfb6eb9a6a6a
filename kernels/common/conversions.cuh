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

}  // namespace warpsparse::gpu
