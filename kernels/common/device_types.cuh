// The device value types behind the host ones (reference/values), and the conversions to and from
// fp32 (conversions.cuh).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/conversions.cuh"
#include "reference/values/value_types.hpp"

namespace warpsparse::gpu {

// Host value types (Eigen::half, Eigen::bfloat16) are bit-compatible with the CUDA types.
template <class H> struct DeviceType { using type = H; };
template <> struct DeviceType<half> { using type = __half; };
template <> struct DeviceType<bfloat16> { using type = __nv_bfloat16; };
template <class H> using device_t = typename DeviceType<H>::type;
static_assert(sizeof(half) == sizeof(__half) && sizeof(bfloat16) == sizeof(__nv_bfloat16));

}  // namespace warpsparse::gpu
