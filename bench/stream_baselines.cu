// Streaming baselines for the MACKO benchmark (see stream_baselines.hpp).
#include <algorithm>

#include "bench/stream_baselines.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/common/ptx_loads.cuh"
#include "reference/macko/macko_layout.hpp"

namespace warpsparse::bench {
namespace {

// The MACKO kernel's own streaming loads (ld.global.nc.L1::no_allocate), so row_stream issues the
// same instructions.
using gpu::ld_stream16;
using gpu::ld_stream4;

// Grid-stride over the words of a then b, four loads in flight per thread before their XOR.
__global__ void read_stream_kernel(const uint4* __restrict__ a, std::int64_t na, const uint4* __restrict__ b,
                                   std::int64_t nb, std::uint32_t* sink) {
  const std::int64_t n = na + nb;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  auto word = [&](std::int64_t i) { return i < na ? ld_stream16(a + i) : ld_stream16(b + (i - na)); };
  std::uint32_t acc = 0;
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 v0 = word(i), v1 = word(i + stride), v2 = word(i + 2 * stride), v3 = word(i + 3 * stride);
    acc ^= v0.x ^ v0.y ^ v0.z ^ v0.w ^ v1.x ^ v1.y ^ v1.z ^ v1.w ^ v2.x ^ v2.y ^ v2.z ^ v2.w ^ v3.x ^ v3.y ^ v3.z ^ v3.w;
  }
  for (; i < n; i += stride) {
    const uint4 v = word(i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps every load; (almost) never stores
}

// The default schedule's loads (kernels/macko/macko_spmv.cuh, load_group with UNROLL = 2, prefetch).
constexpr int kRowStreamWarps = 4;
constexpr int kBlockElems = 32 * macko::kElemsPerLane;  // 256: one 16-byte vector per lane
constexpr int kGroupElems = 2 * kBlockElems;

struct RowGroup {
  std::uint32_t dw[2];
  uint4 vv[2];
};

// kInterleaved: the same elements in a block-interleaved layout (row_stream_il), each 256-element
// block's 512 value bytes followed by its 128 delta bytes in one buffer (values; deltas unused).
constexpr std::int64_t kInterleavedBlockBytes = 2 * kBlockElems + kBlockElems / 2;  // 640
template <bool kInterleaved = false>
__device__ __forceinline__ void load_row_group(RowGroup& g, std::int64_t g0, std::int64_t end, int lane,
                                               const std::uint16_t* values, const std::uint8_t* deltas) {
#pragma unroll
  for (int u = 0; u < 2; ++u) {
    const std::int64_t e = g0 + std::int64_t{u} * kBlockElems + macko::kElemsPerLane * lane;
    if constexpr (kInterleaved) {
      const auto* blk = reinterpret_cast<const std::uint8_t*>(values) + (e / kBlockElems) * kInterleavedBlockBytes;
      const std::int64_t w = e % kBlockElems;
      g.dw[u] = e < end ? ld_stream4(blk + 2 * kBlockElems + w / 2) : 0u;
      g.vv[u] = e < end ? ld_stream16(blk + 2 * w) : uint4{};
    } else {
      g.dw[u] = e < end ? ld_stream4(deltas + macko::delta_byte_index(e, 4)) : 0u;
      g.vv[u] = e < end ? ld_stream16(values + e) : uint4{};
    }
  }
}

__device__ __forceinline__ std::uint32_t fold(const RowGroup& g) {
  std::uint32_t a = 0;
#pragma unroll
  for (int u = 0; u < 2; ++u) a ^= g.dw[u] ^ g.vv[u].x ^ g.vv[u].y ^ g.vv[u].z ^ g.vv[u].w;
  return a;
}

// kAhead groups in flight while one is consumed: a ring of kAhead + 1 register groups, the loop
// unrolled over it so every index is static. kAhead = 1 is the MACKO kernel's own prefetch.
template <bool kWide, int kAhead, bool kInterleaved = false>
__global__ void __launch_bounds__(32 * kRowStreamWarps) row_stream_kernel(const std::uint16_t* __restrict__ values,
                                                                          const std::uint8_t* __restrict__ deltas,
                                                                          const void* __restrict__ row_ptr,
                                                                          std::int64_t rows, std::uint32_t* y) {
  const int lane = threadIdx.x & 31;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowStreamWarps + (threadIdx.x >> 5);
  if (row >= rows) return;  // warp-uniform
  std::uint64_t p = 0;
  if (lane < 2) {
    if constexpr (kWide) p = static_cast<const std::uint64_t*>(row_ptr)[row + lane];
    else p = static_cast<const std::uint32_t*>(row_ptr)[row + lane];
  }
  const auto begin = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, p, 0));
  const auto end = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, p, 1));
  const std::int64_t start = macko::RowAligner(begin, end, 4).aligned_begin;
  constexpr int kRing = kAhead + 1;
  std::uint32_t acc = 0;
  RowGroup g[kRing] = {};
#pragma unroll
  for (int j = 0; j < kAhead; ++j)
    if (start + std::int64_t{j} * kGroupElems < end) load_row_group<kInterleaved>(g[j], start + std::int64_t{j} * kGroupElems, end, lane, values, deltas);
  for (std::int64_t g0 = start; g0 < end; g0 += std::int64_t{kRing} * kGroupElems) {
#pragma unroll
    for (int j = 0; j < kRing; ++j) {
      const std::int64_t cur = g0 + std::int64_t{j} * kGroupElems;
      if (cur < end) {  // warp-uniform
        const std::int64_t nx = cur + std::int64_t{kAhead} * kGroupElems;
        if (nx < end) load_row_group<kInterleaved>(g[(j + kAhead) % kRing], nx, end, lane, values, deltas);
        acc ^= fold(g[j]);
      }
    }
  }
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) y[row] = acc;
}

}  // namespace

std::size_t macko_interleaved_bytes(std::int64_t elements) {
  return static_cast<std::size_t>((elements + kBlockElems - 1) / kBlockElems * kInterleavedBlockBytes);
}

std::uint64_t launch_read_stream(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes,
                                 std::uint32_t* sink, cudaStream_t stream) {
  const auto na = static_cast<std::int64_t>(a_bytes / 16), nb = static_cast<std::int64_t>(b_bytes / 16);
  const int sms = warpsparse::gpu::device_facts().sms;
  int per_sm = 0;
  WS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_stream_kernel, 512, 0));
  const std::int64_t want = (na + nb + 511) / 512;
  const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(want, std::int64_t{sms} * per_sm)));
  read_stream_kernel<<<blocks, 512, 0, stream>>>(static_cast<const uint4*>(a), na, static_cast<const uint4*>(b), nb, sink);
  WS_CUDA(cudaGetLastError());
  return 16 * static_cast<std::uint64_t>(na + nb);
}

void launch_macko_row_stream(const void* values, const std::uint8_t* deltas, const void* row_ptr, bool wide_row_ptr,
                             std::int64_t rows, std::uint32_t* y, int groups_ahead, cudaStream_t stream,
                             bool interleaved) {
  if (rows <= 0) return;
  const std::int64_t blocks = (rows + kRowStreamWarps - 1) / kRowStreamWarps;
  require(blocks <= 0x7fffffff, "row_stream: too many rows for one grid");
  require(groups_ahead == 1 || groups_ahead == 2 || groups_ahead == 4, "row_stream: groups ahead must be 1, 2 or 4");
  require(!interleaved || groups_ahead == 1, "row_stream: the interleaved layout runs one group ahead only");
  using K = void (*)(const std::uint16_t*, const std::uint8_t*, const void*, std::int64_t, std::uint32_t*);
  const K kernels[2][4] = {
      {row_stream_kernel<false, 1>, row_stream_kernel<false, 2>, row_stream_kernel<false, 4>, row_stream_kernel<false, 1, true>},
      {row_stream_kernel<true, 1>, row_stream_kernel<true, 2>, row_stream_kernel<true, 4>, row_stream_kernel<true, 1, true>}};
  const K kernel = kernels[wide_row_ptr ? 1 : 0][interleaved ? 3 : groups_ahead == 1 ? 0 : groups_ahead == 2 ? 1 : 2];
  kernel<<<static_cast<unsigned>(blocks), 32 * kRowStreamWarps, 0, stream>>>(static_cast<const std::uint16_t*>(values),
                                                                              deltas, row_ptr, rows, y);
  WS_CUDA(cudaGetLastError());
}

}  // namespace warpsparse::bench
