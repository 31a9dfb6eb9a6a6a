// EC-SpMV kernels (device code). Their warp model is reference/ec/ec_spmv_model.hpp: same loads
// and fp32 roundings in the same order, so the outputs agree bit for bit. Layout rules come from
// reference/ec/ec_layout.hpp; the explicit __fmaf_rn / __fadd_rn / __fmul_rn keep nvcc from
// contracting or reassociating anything the model does not do.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_types.cuh"
#include "kernels/common/ptx_loads.cuh"
#include "kernels/ec/ec_spmv.hpp"
#include "reference/common/error.hpp"

namespace warpsparse::gpu::ec_detail {

inline constexpr unsigned kFullMask = 0xffffffffu;

// kB bytes from global memory read once (no L1 allocation), as raw bits.
template <int kB>
__device__ __forceinline__ void load_stream(void* dst, const void* src) {
  if constexpr (kB == 16) {
    const uint4 r = ld_stream16(src);
    __builtin_memcpy(dst, &r, 16);
  } else if constexpr (kB == 8) {
    const std::uint64_t r = ld_stream8(src);
    __builtin_memcpy(dst, &r, 8);
  } else if constexpr (kB == 4) {
    const std::uint32_t r = ld_stream4(src);
    __builtin_memcpy(dst, &r, 4);
  } else {
    static_assert(kB == 2, "a lane's value vector is 2, 4, 8 or 16 bytes");
    const auto r = static_cast<std::uint16_t>(ld_stream2(src));
    __builtin_memcpy(dst, &r, 2);
  }
}

// The lane's walk over steps [step_begin, step_end) of one piece of a G-row set at V slots per
// lane-step and DB-bit deltas, whose arrays start at vals / dels: step(dw, v) gets each step's
// delta word (slot i's delta in bits [i · DB, (i + 1) · DB), ec_gather) and its V · G values, in
// step order. Kernel 1 and its streaming bounds (ec_stream.cu) both walk with it, so a bound issues
// the kernel's own loads in the kernel's own order.
template <int G, int V, int DB, class T, class Step>
__device__ __forceinline__ void ec_walk(const T* __restrict__ vals, const std::uint8_t* __restrict__ dels,
                                        std::uint32_t step_begin, std::uint32_t step_end, int lane, Step&& step) {
  constexpr int kVals = V * G;                      // values per lane and step
  constexpr int kValBytes = kVals * static_cast<int>(sizeof(T));
  constexpr int kChunk = kValBytes < 16 ? kValBytes : 16;  // bytes per vector load
  constexpr int kDeltaBits = V * DB;                // delta bits per lane and step
  constexpr int kStepDeltaBytes = 32 * kDeltaBits / 8;
  using W = std::conditional_t<(kDeltaBits > 32), std::uint64_t, std::uint32_t>;
  static_assert(kValBytes % kChunk == 0);
  // Slot position p0 = (step · 32 + lane) · V: values at p0 · G, deltas at byte p0 · DB / 8.
  vals += (std::uint64_t{step_begin} * 32 + static_cast<unsigned>(lane)) * kVals;
  dels += std::uint64_t{step_begin} * kStepDeltaBytes + ((static_cast<unsigned>(lane) * kDeltaBits) >> 3);
  // At 4 bits per lane and step, lanes 2i and 2i + 1 share a byte and take the nibble of their parity.
  const int shift = kDeltaBits == 4 ? (lane & 1) * 4 : 0;
  // One step ahead: the next step's deltas and values are in flight while this step's gathers
  // and FMAs run, so a warp never waits for two dependent memory trips per step. Only when the
  // loads are issued changes, not the arithmetic: the warp model needs no change.
  auto load_step = [&](W& dw, T (&v)[kVals]) {
    if constexpr (kDeltaBits <= 8) dw = static_cast<W>(ld_stream1(dels)) >> shift;
    else if constexpr (kDeltaBits == 16) dw = static_cast<W>(ld_stream2(dels));
    else if constexpr (kDeltaBits == 32) dw = ld_stream4(dels);
    else dw = ld_stream8(dels);
#pragma unroll
    for (int c = 0; c < kValBytes / kChunk; ++c)
      load_stream<kChunk>(reinterpret_cast<char*>(v) + c * kChunk, reinterpret_cast<const char*>(vals) + c * kChunk);
    vals += 32 * kVals;
    dels += kStepDeltaBytes;
  };
  W dw_next = 0;
  T v_next[kVals];
  if (step_begin < step_end) load_step(dw_next, v_next);
  for (std::uint32_t s = step_begin; s < step_end; ++s) {
    const W dw = dw_next;
    T v[kVals];
#pragma unroll
    for (int i = 0; i < kVals; ++i) v[i] = v_next[i];
    if (s + 1 < step_end) load_step(dw_next, v_next);
    step(dw, v);
  }
}

// Slot i of a step whose delta word is dw: the lane's running column moves by the slot's delta,
// and x at the new column is read through the read-only path.
template <int DB, class W, class T>
__device__ __forceinline__ T ec_gather(W dw, int i, std::uint32_t& col, const T* __restrict__ x) {
  constexpr unsigned kMask = (1u << DB) - 1;
  col += static_cast<std::uint32_t>(dw >> (i * DB)) & kMask;
  return __ldg(x + col);
}

// One piece on one warp: steps [step_begin, step_end) of a G-row set at V slots per lane-step and
// DB-bit deltas, whose arrays start at vals / dels; col is the lane's running column before the
// piece. Lane 0 stores the G warp sums to out[0..G).
template <int G, int V, int DB, class T>
__device__ __forceinline__ void ec_piece(const T* __restrict__ vals, const std::uint8_t* __restrict__ dels,
                                         const T* __restrict__ x, std::uint32_t step_begin, std::uint32_t step_end,
                                         std::uint32_t col, int lane, float* __restrict__ out) {
  float acc[G];
#pragma unroll
  for (int k = 0; k < G; ++k) acc[k] = 0.0f;
  ec_walk<G, V, DB>(vals, dels, step_begin, step_end, lane, [&](auto dw, const auto& v) {
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const float xf = to_f32(ec_gather<DB>(dw, i, col, x));
#pragma unroll
      for (int k = 0; k < G; ++k) acc[k] = __fmaf_rn(to_f32(v[i * G + k]), xf, acc[k]);
    }
  });
#pragma unroll
  for (int k = 0; k < G; ++k)
#pragma unroll
    for (int off = 16; off >= 1; off >>= 1) acc[k] = __fadd_rn(acc[k], __shfl_xor_sync(kFullMask, acc[k], off));
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < G; ++k) out[k] = acc[k];
  }
}

// Kernel 1's warps over a set's pieces [first, last), each warp striding by the grid's warps:
// piece(w, pc, col) with the piece's index w, its table entry pc = {step_begin, step_end, partial,
// set} (the same 16 bytes on every lane) and the lane's start column.
template <class Piece>
__device__ __forceinline__ void ec_for_each_piece(const uint4* __restrict__ pieces, std::int64_t first, std::int64_t last,
                                                  const std::uint32_t* __restrict__ lane_start, int lane, Piece&& piece) {
  const std::int64_t warps = std::int64_t{gridDim.x} * (blockDim.x >> 5);
  for (std::int64_t w = first + std::int64_t{blockIdx.x} * (blockDim.x >> 5) + (threadIdx.x >> 5); w < last; w += warps) {
    const uint4 pc = __ldg(pieces + w);
    const std::uint32_t col = __ldg(lane_start + w * 32 + lane);
    piece(w, pc, col);
  }
}

// Kernel 1's block: this many warps, one piece each.
inline constexpr int kSetWarpsPerBlock = 8;

// Kernel 1, one launch per set: warps stride over the set's pieces [first, last). Each variant of
// kEcVariants is its own kernel, so each gets the registers it needs: one kernel switching over
// all of them would give every piece the register count (and occupancy) of the largest, G = 8.
// T: __half or __nv_bfloat16 (values and x); values / deltas point at the set's arrays.
template <class T, int I>
__global__ void __launch_bounds__(32 * kSetWarpsPerBlock)
    ec_set_kernel(const uint4* __restrict__ pieces, std::int64_t first, std::int64_t last,
                  const std::uint32_t* __restrict__ lane_start, const T* __restrict__ values,
                  const std::uint8_t* __restrict__ deltas, const T* __restrict__ x, float* __restrict__ partials) {
  constexpr EcVariant kV = kEcVariants[I];
  const int lane = static_cast<int>(threadIdx.x & 31);
  ec_for_each_piece(pieces, first, last, lane_start, lane, [&](std::int64_t, const uint4& pc, std::uint32_t col) {
    ec_piece<kV.group, kV.vec, kV.delta_bits>(values, deltas, x, pc.x, pc.y, col, lane, partials + pc.z);
  });
}

// What one launch of a set kernel takes: its grid, its pieces and the set's arrays.
template <class TD>
struct SetLaunch {
  dim3 grid, block;
  std::int64_t first = 0, last = 0;  // the set's pieces
  const uint4* pieces = nullptr;
  const std::uint32_t* lane_start = nullptr;
  const TD* values = nullptr;
  const std::uint8_t* deltas = nullptr;
};

// Host side: kernel 1's launches, one per set that has pieces, one warp per piece in blocks of
// kSetWarpsPerBlock. launch(s, std::integral_constant<int, I>) launches the set's variant I of
// kEcVariants (chosen at run time, so each variant's kernel is instantiated here); ec_spmv and the
// streaming bounds launch with it, so both run the same grids.
template <class T, class Launch>
void for_each_set_launch(const DeviceEc<T>& a, Launch&& launch) {
  using TD = device_t<T>;
  for (int si = 0; si < kEcMaxSets; ++si) {
    SetLaunch<TD> s;
    s.first = a.sets.piece_begin[si];
    s.last = a.sets.piece_begin[si + 1];
    if (s.last <= s.first) continue;
    const std::int64_t blocks = std::min<std::int64_t>((s.last - s.first + kSetWarpsPerBlock - 1) / kSetWarpsPerBlock, 0x7fffffff);
    s.grid = dim3(static_cast<unsigned>(blocks));
    s.block = dim3(32 * kSetWarpsPerBlock);
    s.pieces = reinterpret_cast<const uint4*>(a.piece_table.get());
    s.lane_start = a.lane_start.get();
    s.values = reinterpret_cast<const TD*>(a.values.get()) + a.sets.value_offset[si];
    s.deltas = a.deltas.get() + a.sets.delta_offset[si];
    const int variant = a.sets.variant[si];
    const bool launched = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return ((variant == static_cast<int>(I) && (launch(s, std::integral_constant<int, static_cast<int>(I)>{}), true)) || ...);
    }(std::make_index_sequence<kEcVariants.size()>{});
    require(launched, "EC set kernel " + std::to_string(variant) + " is not compiled");
    WS_CUDA(cudaGetLastError());
  }
}

// Kernel 2: one thread per row adds the row's partials in plan order, then the epilogue as MACKO's:
// __fmul_rn(alpha, s), __fmaf_rn(beta, y, .) when beta != 0 (y not read otherwise), one rounding.
template <class TY>
__global__ void __launch_bounds__(256)
    ec_rows_kernel(const std::uint32_t* __restrict__ row_part_ptr, const std::uint32_t* __restrict__ row_parts,
                   const float* __restrict__ partials, TY* __restrict__ y, std::int64_t rows, float alpha, float beta) {
  const std::int64_t threads = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t r = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; r < rows; r += threads) {
    const std::uint32_t b = row_part_ptr[r], e = row_part_ptr[r + 1];
    float s = 0.0f;
    for (std::uint32_t i = b; i < e; ++i) s = __fadd_rn(s, partials[row_parts[i]]);
    store_epilogue(y + r, s, alpha, beta);
  }
}

}  // namespace warpsparse::gpu::ec_detail
