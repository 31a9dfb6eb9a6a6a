// The bitmap-tile tensor-core SpMM (docs/bitmap-spmm.md). One warp per (tile row, part), walking its
// k tiles in chunks of kChunk. A chunk's bitmaps, values and rows of X are each one contiguous range
// in global memory (values are stored tile after tile, X row-major), so the warp copies the next
// chunk into its own shared-memory stage with cp.async while it computes the current one: the bytes
// in flight sit in shared memory, not registers, and no load waits on another. Computing a tile:
// each lane finds its 8 elements by popcount (bitmap::lane_slots, the layout's one rule), reads
// them and its B fragments from shared memory, and issues one mma.m16n8k16 per group of 8 vectors
// into that group's running accumulator, so the k tiles are added in order.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/bitmap/bitmap_spmm.hpp"
#include "kernels/common/conversions.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_types.cuh"
#include "kernels/common/stream_scratch.hpp"
#include "reference/bitmap/bitmap_layout.hpp"

namespace warpsparse::gpu {
namespace bitmap_detail {

using namespace warpsparse::bitmap;

inline constexpr int kWarpsPerBlock = 4;
inline constexpr int kChunk = 8;  // k tiles per stage
// Values are copied from the 16-byte boundary at or before a chunk's first value, in whole 16-byte
// pieces: up to 7 elements in front and 7 past its end, which upload_bitmap pads the array for.
inline constexpr int kValueSlack = 8;
// The most shared memory a block asks for (the H100's and H200's opt-in limit): three stages per warp
// at d = 1 and batch 16 take 102 KiB.
inline constexpr int kMaxBlockSmem = 227 * 1024;

// Bytes of one stage: each warp's bitmaps and values, and the block's X rows (each a multiple of 16).
struct StageBytes {
  int bitmaps, x, values;
  __host__ __device__ int warp() const { return bitmaps + values; }
  __host__ __device__ int block() const { return x + kWarpsPerBlock * warp(); }
};
__host__ __device__ inline StageBytes stage_bytes(int batch, std::int64_t max_chunk_values) {
  const int x = (kChunk * kTile * batch * 2 + 15) / 16 * 16;
  const int v = static_cast<int>((max_chunk_values + 2 * kValueSlack) * 2 + 15) / 16 * 16;
  return StageBytes{kChunk * kSubtiles * 8, x, v};
}

template <class TD>
struct Args {
  const unsigned char* bitmaps;  // 32 bytes per tile
  const std::uint32_t* tile_off;
  const std::int64_t* row_base;
  const std::uint16_t* values;  // bits of TD
  const std::uint16_t* x;       // bits of TD, cols x batch
  std::int64_t rows, cols, tile_rows, k_tiles;
  int batch, parts;
  StageBytes stage;
};

template <class TD>
__device__ __forceinline__ void mma16816(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<TD, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// 16 bytes global -> shared, of which the first src_bytes are read and the rest zero-filled.
__device__ __forceinline__ void copy16(std::uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most N of this thread's committed copy groups are still in flight.
template <int N>
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void store_shared16(std::uint32_t dst, const std::uint16_t (&h)[8]) {
  const std::uint32_t w0 = h[0] | std::uint32_t{h[1]} << 16, w1 = h[2] | std::uint32_t{h[3]} << 16;
  const std::uint32_t w2 = h[4] | std::uint32_t{h[5]} << 16, w3 = h[6] | std::uint32_t{h[7]} << 16;
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w0), "r"(w1), "r"(w2), "r"(w3) : "memory");
}

// kLdsm: B = 8 NG exactly, whose X rows ldmatrix reads whole. kDecode = false is the benchmarks'
// bound (bitmap_spmm_without_decode): everything but finding each lane's elements.
template <class TD, class TYD, int NG, bool kLdsm, bool kDecode = true>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    bitmap_tiles_kernel(Args<TD> p, TYD* __restrict__ y, float* __restrict__ partials, float alpha, float beta) {
  extern __shared__ __align__(16) unsigned char smem[];
  // The block's warps take kWarpsPerBlock consecutive tile rows over the same part, so one copy of
  // each chunk's X rows serves them all (per warp, X would cost as many L2 bytes as the matrix at
  // B = 8); they step through the chunks together, a block barrier per chunk.
  const int lane = static_cast<int>(threadIdx.x & 31u), wib = static_cast<int>(threadIdx.x / 32);
  const int part = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.parts));
  const std::int64_t t = std::int64_t{blockIdx.x / static_cast<unsigned>(p.parts)} * kWarpsPerBlock + wib;
  const bool active = t < p.tile_rows;
  const std::int64_t kb = part_begin(part, p.parts, p.k_tiles), ke = part_begin(part + 1, p.parts, p.k_tiles);
  const std::int64_t rbase = active ? __ldg(p.row_base + t) : 0;
  const std::int64_t rcount = active ? __ldg(p.row_base + t + 1) - rbase : 0;
  const std::uint32_t* __restrict__ offs = p.tile_off + (active ? t : 0) * p.k_tiles;
  // A tile's first value relative to its tile row; k == k_tiles is the row's end.
  auto off = [&](std::int64_t k) -> std::int64_t {
    return active && k < p.k_tiles ? std::int64_t{__ldg(offs + k)} : rcount;
  };
  const std::uint32_t smem_s = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  auto x_stage = [&](int st) { return static_cast<std::uint32_t>(st * p.stage.block()); };
  auto warp_stage = [&](int st) { return static_cast<std::uint32_t>(st * p.stage.block() + p.stage.x + wib * p.stage.warp()); };
  const int g = lane >> 2, tq = lane & 3;
  const int xrow_bytes = 2 * p.batch;

  // Copies chunk [k0, min(k0 + kChunk, ke)) into stage st: this warp's bitmaps and values ([vs, ve)
  // of its tile row), and with the other warps the chunk's X rows. Returns the chunk's first value's
  // index in the warp's stage values.
  auto issue = [&](std::int64_t k0, int st, std::int64_t vs, std::int64_t ve) -> int {
    const std::uint32_t dst = smem_s + warp_stage(st);
    const int n = static_cast<int>(min(k0 + kChunk, ke) - k0);
    if (active && lane < 2 * n) copy16(dst + 16u * lane, p.bitmaps + ((t * p.k_tiles + k0) * 32 + 16 * lane), 16);
    // X rows k0 * 16 .. + 16 n; rows past cols are zero-filled.
    const unsigned char* xsrc = reinterpret_cast<const unsigned char*>(p.x) + k0 * kTile * xrow_bytes;
    const std::uint32_t xdst = smem_s + x_stage(st);
    const int x_bytes = n * kTile * xrow_bytes;
    const int first_piece = 16 * static_cast<int>(threadIdx.x), step = 16 * kWarpsPerBlock * 32;
    if ((k0 + n) * kTile <= p.cols && x_bytes % 16 == 0) {
      for (int i = first_piece; i < x_bytes; i += step) copy16(xdst + static_cast<std::uint32_t>(i), xsrc + i, 16);
    } else {
      const int x_valid = static_cast<int>((min((k0 + n) * kTile, p.cols) - k0 * kTile) * xrow_bytes);
      for (int i = first_piece; i < x_bytes; i += step) {
        if (i + 16 <= x_valid) {
          copy16(xdst + static_cast<std::uint32_t>(i), xsrc + i, 16);
        } else {
          // The last piece of X, or past it: its elements, then zeros (a 16-byte copy would read
          // past the caller's array).
          std::uint16_t h[8];
#pragma unroll
          for (int e = 0; e < 8; ++e)
            h[e] = i + 2 * e < x_valid ? *reinterpret_cast<const std::uint16_t*>(xsrc + i + 2 * e) : std::uint16_t{0};
          store_shared16(xdst + static_cast<std::uint32_t>(i), h);
        }
      }
    }
    const std::int64_t a = (rbase + vs) & ~std::int64_t{kValueSlack - 1};
    const int v_bytes = active ? static_cast<int>(rbase + ve - a) * 2 : 0;
    const unsigned char* vsrc = reinterpret_cast<const unsigned char*>(p.values + a);
    const std::uint32_t vdst = dst + static_cast<std::uint32_t>(p.stage.bitmaps);
    for (int i = 16 * lane; i < v_bytes; i += 16 * 32) copy16(vdst + static_cast<std::uint32_t>(i), vsrc + i, 16);
    return static_cast<int>(rbase + vs - a);
  };

  float acc[NG][4];
#pragma unroll
  for (int j = 0; j < NG; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[j][i] = 0.0f;

  if (kb < ke) {
    // Chunk c is [kb + c * kChunk, ...), in stage c % 2: chunk c + 1 is copied while chunk c is
    // computed. Its value range ends at end(c + 1), which was loaded a whole chunk earlier into one
    // of three registers that take turns (the loop is unrolled by three, so no register is moved
    // while its load is in flight: a move would wait for it).
    const std::int64_t chunks = (ke - kb + kChunk - 1) / kChunk;
    auto chunk_end = [&](std::int64_t c) { return off(min(kb + (c + 1) * kChunk, ke)); };
    std::int64_t e0 = chunk_end(0), e1 = chunk_end(1), e2 = 0;
    int first = issue(kb, 0, off(kb), e0);
    copy_commit();
    // end_c = end(c), end_next = end(c + 1); end(c + 2) is loaded into load_into.
    auto step = [&](std::int64_t c, const std::int64_t& end_c, const std::int64_t& end_next, std::int64_t& load_into) {
      const int st = static_cast<int>(c & 1);
      int first_next = 0;
      if (c + 1 < chunks) first_next = issue(kb + (c + 1) * kChunk, st ^ 1, end_c, end_next);
      copy_commit();
      load_into = chunk_end(c + 2);
      copy_wait<1>();
      __syncthreads();
      const ulonglong2* sbm2 = reinterpret_cast<const ulonglong2*>(smem + warp_stage(st));
      const std::uint16_t* sv = reinterpret_cast<const std::uint16_t*>(smem + warp_stage(st) + p.stage.bitmaps);
      const std::uint16_t* sx = reinterpret_cast<const std::uint16_t*>(smem + x_stage(st));
      const std::uint32_t sx_s = smem_s + x_stage(st);
      const int n = active ? static_cast<int>(min(kb + (c + 1) * kChunk, ke) - (kb + c * kChunk)) : 0;
      int base = first;
      // One tile: its A fragment from the bitmaps and values, its B fragments, the mma.
      auto tile = [&](int u) {
        const ulonglong2 b01 = sbm2[2 * u], b23 = sbm2[2 * u + 1];
        const std::uint64_t bm[kSubtiles] = {b01.x, b01.y, b23.x, b23.y};
        std::uint32_t a[kSubtiles];
        if constexpr (kDecode) {
          const LaneSlots<int> sl = lane_slots(bm, base, lane);
#pragma unroll
          for (int s = 0; s < kSubtiles; ++s) {
            const int f = sl.first[s];
            const std::uint32_t v0 = sl.lo[s] ? std::uint32_t{sv[f]} : 0u;
            const std::uint32_t v1 = sl.hi[s] ? std::uint32_t{sv[f + (sl.lo[s] ? 1 : 0)]} : 0u;
            a[s] = __byte_perm(v0, v1, 0x5410);
          }
          // lane_slots' running count past subtile 3, the same for every lane: the next tile's base.
          base = sl.end;
        } else {
          // The bound without finding the elements: the bitmaps stand in for the A fragment.
#pragma unroll
          for (int s = 0; s < kSubtiles; ++s) a[s] = static_cast<std::uint32_t>(bm[s]) ^ static_cast<std::uint32_t>(bm[s] >> 32);
        }
        if constexpr (kLdsm) {
          // X rows of exactly 8 NG vectors (16 NG bytes): ldmatrix.trans gives the B fragments,
          // rows k = lane % 16 of the tile, group j's 8 vectors at byte 16 j of the row.
          std::uint32_t b[2 * NG];
          const std::uint32_t row = sx_s + static_cast<std::uint32_t>((u * kTile + (lane & 15)) * 16 * NG);
          if constexpr (NG == 1) {
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                         : "=r"(b[0]), "=r"(b[1])
                         : "r"(row));
          } else {
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                         : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
                         : "r"(row + 16u * static_cast<std::uint32_t>(lane >> 4)));
          }
#pragma unroll
          for (int j = 0; j < NG; ++j) {
            const std::uint32_t bj[2] = {b[2 * j], b[2 * j + 1]};
            mma16816<TD>(acc[j], a, bj);
          }
        } else {
          // B fragment: X rows (k) 2tq, 2tq + 1 and 2tq + 8, 2tq + 9 of the tile, column (vector) 8j + g.
          const std::uint16_t* xr = sx + (u * kTile + 2 * tq) * p.batch;
#pragma unroll
          for (int j = 0; j < NG; ++j) {
            const int v = kN * j + g;
            std::uint32_t b[2] = {0u, 0u};
            if (v < p.batch) {
              b[0] = __byte_perm(xr[v], xr[p.batch + v], 0x5410);
              b[1] = __byte_perm(xr[8 * p.batch + v], xr[9 * p.batch + v], 0x5410);
            }
            mma16816<TD>(acc[j], a, b);
          }
        }
      };
      // Whole chunks unrolled: the scheduler interleaves the 8 tiles' independent work.
      if (n == kChunk) {
#pragma unroll
        for (int u = 0; u < kChunk; ++u) tile(u);
      } else {
        for (int u = 0; u < n; ++u) tile(u);
      }
      __syncthreads();  // the next step copies into the stage computed here
      first = first_next;
    };
    for (std::int64_t c = 0; c < chunks; c += 3) {
      step(c, e0, e1, e2);
      if (c + 1 < chunks) step(c + 1, e1, e2, e0);
      if (c + 2 < chunks) step(c + 2, e2, e0, e1);
    }
  }

  // C fragment: acc[j][i] is row g + 8 (i >> 1), vector 8j + 2tq + (i & 1).
#pragma unroll
  for (int j = 0; j < NG; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t r = t * kTile + g + 8 * (i >> 1);
      const int v = kN * j + 2 * tq + (i & 1);
      if (r >= p.rows || v >= p.batch) continue;
      const std::int64_t e = r * p.batch + v;
      if (p.parts > 1)
        partials[std::int64_t{part} * p.rows * p.batch + e] = acc[j][i];
      else
        store_epilogue(y + e, acc[j][i], alpha, beta);
    }
}

// The parts of each output, added in part order, then the epilogue.
template <class TY>
__global__ void __launch_bounds__(256)
    bitmap_parts_kernel(const float* __restrict__ partials, TY* __restrict__ y, std::int64_t n, int parts, float alpha,
                        float beta) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    float s = partials[e];
    for (int q = 1; q < parts; ++q) s = __fadd_rn(s, partials[std::int64_t{q} * n + e]);
    store_epilogue(y + e, s, alpha, beta);
  }
}

// Opts the kernel in to more than the 48 KiB of shared memory a block gets by default (stages of
// dense tiles at batch 16 need it), once per instantiation as the 2:4 kernels do, then launches it.
template <class TD, class TYD, int NG, bool kLdsm, bool kDecode>
void launch_tiles(dim3 grid, dim3 block, int smem, cudaStream_t stream, const Args<TD>& p, TYD* y, float* partials,
                  float alpha, float beta) {
  auto kernel = bitmap_tiles_kernel<TD, TYD, NG, kLdsm, kDecode>;
  static std::once_flag once;
  std::call_once(once, [&] {
    WS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxBlockSmem));
  });
  kernel<<<grid, block, static_cast<std::size_t>(smem), stream>>>(p, y, partials, alpha, beta);
}

}  // namespace bitmap_detail

template <class T>
DeviceBitmap<T> upload_bitmap(const Bitmap<T>& a) {
  a.validate();
  DeviceBitmap<T> d;
  d.rows = a.rows, d.cols = a.cols, d.nnz = a.nnz();
  const std::uint64_t need = a.storage_bytes() + 64;
  std::size_t free_b = 0, total_b = 0;
  WS_CUDA(cudaMemGetInfo(&free_b, &total_b));
  require(need <= free_b, "bitmap matrix needs " + std::to_string(need) + " bytes on the device, only " +
                              std::to_string(free_b) + " are free");
  // Never-empty arrays: a matrix with no tiles or no values still launches with valid pointers.
  auto nonempty = [](auto v) {
    if (v.empty()) v.resize(1);
    return v;
  };
  d.bitmaps = DeviceBuffer<std::uint64_t>(nonempty(a.bitmaps));
  d.tile_off = DeviceBuffer<std::uint32_t>(nonempty(a.tile_off));
  d.row_base = DeviceBuffer<std::int64_t>(a.row_base);
  std::vector<T> values = a.values;
  values.resize(values.size() + bitmap_detail::kValueSlack, from_float<T>(0.0f));
  d.values = DeviceBuffer<T>(values);
  // The most values any kChunk consecutive tiles of a tile row hold: every chunk a warp stages,
  // wherever its part starts, fits a stage sized for it.
  const std::int64_t kt = a.k_tiles();
  for (std::int64_t t = 0; t < a.tile_rows(); ++t) {
    const std::int64_t count = a.row_base[t + 1] - a.row_base[t];
    auto off = [&](std::int64_t k) { return k < kt ? std::int64_t{a.tile_off[t * kt + k]} : count; };
    for (std::int64_t k = 0; k < kt; ++k)
      d.max_chunk_values = std::max(d.max_chunk_values, off(std::min(k + bitmap_detail::kChunk, kt)) - off(k));
  }
  return d;
}

namespace bitmap_detail {
template <bool kDecode, class T, class TY>
void run(const DeviceBitmap<T>& a, const T* x, TY* y, float alpha, float beta, const bitmap::Schedule& s,
         cudaStream_t stream) {
  if (const std::string f = bitmap::schedule_fault(s, a.cols); !f.empty()) throw Error(f);
  if (a.rows == 0) return;
  using TD = device_t<T>;
  using TYD = device_t<TY>;
  using namespace bitmap_detail;
  const std::int64_t tr = bitmap::tile_rows(a.rows), kt = bitmap::k_tiles(a.cols);
  const std::int64_t outputs = a.rows * s.batch;
  // The parts' fp32 partial sums, this launch's own (stream_scratch.hpp: safe on two streams and in
  // graphs).
  const StreamScratch<float> scratch(
      s.parts > 1 ? static_cast<std::size_t>(outputs) * static_cast<std::size_t>(s.parts) : 0, stream);
  float* const partials = scratch.get();
  const StageBytes stage = stage_bytes(s.batch, a.max_chunk_values);
  const int smem = 2 * stage.block();
  Args<TD> p{reinterpret_cast<const unsigned char*>(a.bitmaps.get()),
             a.tile_off.get(),
             a.row_base.get(),
             reinterpret_cast<const std::uint16_t*>(a.values.get()),
             reinterpret_cast<const std::uint16_t*>(x),
             a.rows,
             a.cols,
             tr,
             kt,
             s.batch,
             s.parts,
             stage};
  const std::int64_t blocks = (tr + kWarpsPerBlock - 1) / kWarpsPerBlock * s.parts;
  require(blocks <= 0x7fffffff, "bitmap SpMM: " + std::to_string(blocks) + " blocks exceed the grid limit");
  TYD* yd = reinterpret_cast<TYD*>(y);
  const dim3 grid(static_cast<unsigned>(std::max<std::int64_t>(blocks, 1))), block(kWarpsPerBlock * 32);
  require(smem <= kMaxBlockSmem, "bitmap SpMM: stages of " + std::to_string(smem) + " bytes per block exceed " +
                                     std::to_string(kMaxBlockSmem));
  if (s.batch == 8) launch_tiles<TD, TYD, 1, true, kDecode>(grid, block, smem, stream, p, yd, partials, alpha, beta);
  else if (s.batch == 16) launch_tiles<TD, TYD, 2, true, kDecode>(grid, block, smem, stream, p, yd, partials, alpha, beta);
  else if (bitmap::n_groups(s.batch) == 1)
    launch_tiles<TD, TYD, 1, false, kDecode>(grid, block, smem, stream, p, yd, partials, alpha, beta);
  else launch_tiles<TD, TYD, 2, false, kDecode>(grid, block, smem, stream, p, yd, partials, alpha, beta);
  WS_CUDA(cudaGetLastError());
  if (s.parts > 1) {
    const std::int64_t rb = std::min<std::int64_t>((outputs + 255) / 256, 4096);
    bitmap_parts_kernel<TYD><<<dim3(static_cast<unsigned>(rb)), dim3(256), 0, stream>>>(
        partials, yd, outputs, s.parts, alpha, beta);
    WS_CUDA(cudaGetLastError());
  }
}
}  // namespace bitmap_detail

template <class T, class TY>
void bitmap_spmm(const DeviceBitmap<T>& a, const T* x, TY* y, float alpha, float beta, const bitmap::Schedule& s,
                 cudaStream_t stream) {
  bitmap_detail::run<true>(a, x, y, alpha, beta, s, stream);
}

template <class T>
void bitmap_spmm_without_decode(const DeviceBitmap<T>& a, const T* x, T* y, const bitmap::Schedule& s,
                                cudaStream_t stream) {
  bitmap_detail::run<false>(a, x, y, 1.0f, 0.0f, s, stream);
}

template DeviceBitmap<half> upload_bitmap<half>(const Bitmap<half>&);
template DeviceBitmap<bfloat16> upload_bitmap<bfloat16>(const Bitmap<bfloat16>&);
template void bitmap_spmm<half, half>(const DeviceBitmap<half>&, const half*, half*, float, float,
                                      const bitmap::Schedule&, cudaStream_t);
template void bitmap_spmm<half, float>(const DeviceBitmap<half>&, const half*, float*, float, float,
                                       const bitmap::Schedule&, cudaStream_t);
template void bitmap_spmm<bfloat16, bfloat16>(const DeviceBitmap<bfloat16>&, const bfloat16*, bfloat16*, float, float,
                                              const bitmap::Schedule&, cudaStream_t);
template void bitmap_spmm<bfloat16, float>(const DeviceBitmap<bfloat16>&, const bfloat16*, float*, float, float,
                                           const bitmap::Schedule&, cudaStream_t);
template void bitmap_spmm_without_decode<half>(const DeviceBitmap<half>&, const half*, half*, const bitmap::Schedule&,
                                               cudaStream_t);
template void bitmap_spmm_without_decode<bfloat16>(const DeviceBitmap<bfloat16>&, const bfloat16*, bfloat16*,
                                                   const bitmap::Schedule&, cudaStream_t);

}  // namespace warpsparse::gpu
