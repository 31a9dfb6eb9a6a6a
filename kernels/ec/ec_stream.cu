// Streaming bounds of EC-SpMV's kernel 1 (ec_stream.hpp): the kernel's walk, launches and loads
// from ec_spmv.cuh, with the arithmetic replaced by an XOR of the loaded bits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/ec/ec_spmv.cuh"
#include "kernels/ec/ec_stream.hpp"

namespace warpsparse::gpu {

namespace {

// The raw bits of N 16-bit values, XORed 32 bits at a time: a few integer ops per step, and the
// compiler must keep every load that feeds them.
template <class T, int N>
__device__ __forceinline__ std::uint32_t fold_bits(const T (&v)[N]) {
  constexpr int kBytes = N * static_cast<int>(sizeof(T));
  if constexpr (kBytes % 4 == 0) {
    std::uint32_t w[kBytes / 4];
    __builtin_memcpy(w, v, kBytes);
    std::uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < kBytes / 4; ++i) acc ^= w[i];
    return acc;
  } else {
    static_assert(kBytes == 2, "a lane's values of one step are one 16-bit value or whole 32-bit words");
    std::uint16_t u = 0;
    __builtin_memcpy(&u, v, 2);
    return u;
  }
}

template <class W>
__device__ __forceinline__ std::uint32_t fold_word(W dw) {
  if constexpr (sizeof(W) == 8) return static_cast<std::uint32_t>(dw) ^ static_cast<std::uint32_t>(dw >> 32);
  else return static_cast<std::uint32_t>(dw);
}

// Kernel 1 of set variant I (ec_set_kernel) without its arithmetic. kGathers: each slot also walks
// its column and gathers x[col] into the fold (the kernel's __ldg), where the kernel would
// multiply. One word per warp goes to sink[its first piece].
template <class T, int I, bool kGathers>
__global__ void __launch_bounds__(32 * ec_detail::kSetWarpsPerBlock)
    ec_stream_kernel(const uint4* __restrict__ pieces, std::int64_t first, std::int64_t last,
                     const std::uint32_t* __restrict__ lane_start, const T* __restrict__ values,
                     const std::uint8_t* __restrict__ deltas, const T* __restrict__ x, std::uint32_t* __restrict__ sink) {
  constexpr EcVariant kV = kEcVariants[I];
  const int lane = static_cast<int>(threadIdx.x & 31);
  std::uint32_t acc = 0;
  std::int64_t mine = -1;  // the warp's first piece
  ec_detail::ec_for_each_piece(pieces, first, last, lane_start, lane, [&](std::int64_t w, const uint4& pc, std::uint32_t col) {
    if (mine < 0) mine = w;
    acc ^= pc.x ^ pc.y ^ pc.z ^ pc.w ^ col;
    ec_detail::ec_walk<kV.group, kV.vec, kV.delta_bits>(values, deltas, pc.x, pc.y, lane, [&](auto dw, const auto& v) {
      acc ^= fold_word(dw) ^ fold_bits(v);
      if constexpr (kGathers) {
#pragma unroll
        for (int i = 0; i < kV.vec; ++i) {
          const T xv = ec_detail::ec_gather<kV.delta_bits>(dw, i, col, x);
          std::uint16_t u = 0;
          __builtin_memcpy(&u, &xv, 2);
          acc ^= u;
        }
      }
    });
  });
  if (mine < 0) return;  // warp-uniform: a warp past the set's last piece
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) acc ^= __shfl_xor_sync(ec_detail::kFullMask, acc, off);
  if (lane == 0) sink[mine] = acc;
}

}  // namespace

template <class T>
void ec_stream(const DeviceEc<T>& a, EcStream what, const T* x, std::uint32_t* sink, cudaStream_t stream) {
  using TD = device_t<T>;
  require(what == EcStream::loads || x != nullptr, "ec_stream: the gathers need x");
  const auto* xd = reinterpret_cast<const TD*>(x);
  ec_detail::for_each_set_launch(a, [&](const ec_detail::SetLaunch<TD>& s, auto variant) {
    constexpr int kI = decltype(variant)::value;
    if (what == EcStream::gathers)
      ec_stream_kernel<TD, kI, true><<<s.grid, s.block, 0, stream>>>(s.pieces, s.first, s.last, s.lane_start, s.values,
                                                                     s.deltas, xd, sink);
    else
      ec_stream_kernel<TD, kI, false><<<s.grid, s.block, 0, stream>>>(s.pieces, s.first, s.last, s.lane_start, s.values,
                                                                      s.deltas, xd, sink);
  });
}

template void ec_stream<half>(const DeviceEc<half>&, EcStream, const half*, std::uint32_t*, cudaStream_t);
template void ec_stream<bfloat16>(const DeviceEc<bfloat16>&, EcStream, const bfloat16*, std::uint32_t*, cudaStream_t);

}  // namespace warpsparse::gpu
