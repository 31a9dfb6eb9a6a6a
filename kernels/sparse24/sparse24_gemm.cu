// 2:4 sparse GEMM with mma.sp::ordered_metadata m16n8k32 (sm_80+): C = A·B, A compressed 2:4 along K.
//
// Schedule (reference/sparse24/sparse24_layout.hpp, replayed by reference/sparse24/sparse24_gemm_model.hpp):
//   * CTA tile BM × BN × 64, warps of 64 × WN, a kStages-deep cp.async pipeline of A (compressed),
//     B and swizzled metadata tiles in XOR-swizzled shared memory.
//   * Per 64-wide K tile each warp loads its metadata with one ldmatrix.x4 (one 32-bit word per
//     lane per m16 tile, covering both k32 steps), then per k32 step A fragments with ldmatrix.x4
//     and B fragments with ldmatrix.x4.trans, and issues (WM/16)·(WN/8) mma.sp with sparsity
//     selector 0 (first k32 step: lanes t0/t1 of each quad) or 1 (second: t2/t3).
//   * Ragged shapes: A is stored padded (128 rows, 64 columns); B rows >= K and columns >= N are
//     zero-filled by cp.async's src-size operand; C stores are masked per element.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/common/conversions.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/sparse24/sparse24_launch.hpp"
#include "reference/sparse24/sparse24_layout.hpp"

namespace warpsparse::sparse24::gpu {
namespace {

using warpsparse::gpu::from_f32;

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global -> shared copy that reads `src_bytes` (0..16) and zero-fills the rest.
__device__ __forceinline__ void cp_async_16(std::uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// D += A·B for one m16n8k32 tile. Selector is an immediate (PTX requires a constant).
template <bool kBf16, int kSelector>
__device__ __forceinline__ void mma_sp(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[4],
                                       std::uint32_t e) {
  if constexpr (kBf16) {
    asm("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, %13;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e),
          "n"(kSelector));
  } else {
    asm("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, %13;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e),
          "n"(kSelector));
  }
}

// Stores the pair (v0, v1) at columns col, col+1 of `row`, masked by N; one wide store when both
// fit and the address is aligned for it.
template <class TOut>
__device__ __forceinline__ void store_pair(TOut* c, int ldc, int row, int col, int n, float v0, float v1) {
  TOut* p = c + static_cast<std::int64_t>(row) * ldc + col;
  if (col + 1 < n && (reinterpret_cast<std::uintptr_t>(p) % (2 * sizeof(TOut))) == 0) {
    if constexpr (std::is_same_v<TOut, float>) {
      *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
    } else if constexpr (std::is_same_v<TOut, __half>) {
      *reinterpret_cast<__half2*>(p) = __floats2half2_rn(v0, v1);
    } else {
      *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(v0, v1);
    }
  } else {
    if (col < n) p[0] = from_f32<TOut>(v0);
    if (col + 1 < n) p[1] = from_f32<TOut>(v1);
  }
}

// Epilogue shared by both kernels: the C/D fragment rows g, g+8, columns 2t, 2t+1 of each m16n8 tile.
template <class S, class TOut>
__device__ __forceinline__ void store_acc(const float (&acc)[S::kMmaM][S::kMmaN][4], TOut* c, int ldc, int m, int n,
                                          int row0, int col0, int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mi = 0; mi < S::kMmaM; ++mi)
#pragma unroll
    for (int ni = 0; ni < S::kMmaN; ++ni) {
      const int row = row0 + 16 * mi + g;
      const int col = col0 + 8 * ni + 2 * t;
      if (row < m) store_pair(c, ldc, row, col, n, acc[mi][ni][0], acc[mi][ni][1]);
      if (row + 8 < m) store_pair(c, ldc, row + 8, col, n, acc[mi][ni][2], acc[mi][ni][3]);
    }
}

template <class S>
__device__ __forceinline__ void zero_acc(float (&acc)[S::kMmaM][S::kMmaN][4]) {
#pragma unroll
  for (int mi = 0; mi < S::kMmaM; ++mi)
#pragma unroll
    for (int ni = 0; ni < S::kMmaN; ++ni)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[mi][ni][i] = 0.f;
}

// This thread's place: thread and lane index, warp row / column in the CTA, CTA tile origin.
struct CtaPlace {
  int tid, lane, wm, wn, m0, n0;
};
template <class S>
__device__ __forceinline__ CtaPlace cta_place(int m, int n) {
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid >> 5;
  const int tiles_m = (m + S::kBM - 1) / S::kBM, tiles_n = (n + S::kBN - 1) / S::kBN;
  const TileCoord tile = cta_tile(static_cast<int>(blockIdx.x), tiles_m, tiles_n);
  return CtaPlace{tid, tid & 31, warp / S::kWarpsN, warp % S::kWarpsN, tile.m * S::kBM, tile.n * S::kBN};
}

// The schedule (layouts, copies, fragments) of sparse24_layout.hpp, replayed by the warp model, issued
// in a software pipeline so the tensor pipe never waits on the barrier or on shared memory:
//   * one barrier per K tile, inside the second k32 step after its last B ldmatrix: every warp has
//     then finished reading stage kt, and tile kt+1 is published; the first fragments of tile
//     kt+1 (metadata, A, the first kLead B columns) are loaded right after it, under the step's
//     last kLead columns of mma.sp. Likewise the second step's A and first B columns are loaded
//     under the first step's last columns; the other B columns stream kLead columns ahead.
//   * so stage kt-1 is free at the top of iteration kt (all warps passed iteration kt-1's barrier
//     after their last read of it): its refill (tile kt+S-1) is issued first, overlapping the
//     barrier wait of this iteration.
//   * the cp.async addresses are computed once per thread (Schedule::kStridedCopies) and advanced by
//     a constant per K tile; only B's row mask (gk < k) is evaluated per pass.
// kMinBlocks is __launch_bounds__'s minimum CTAs per SM (2 caps registers at 65536 / (2·threads)).
template <class S, int kMinBlocks, bool kBf16, class TOut>
__global__ void __launch_bounds__(S::kThreads, kMinBlocks)
    sparse24_gemm_pipelined_kernel(const std::uint16_t* __restrict__ a, const std::uint16_t* __restrict__ e,
                                   const std::uint16_t* __restrict__ b, TOut* __restrict__ c, int m, int n, int k,
                                   int rows_padded, int cols_padded, int ldb, int ldc) {
  static_assert(S::kStridedCopies, "the pipelined kernel needs strided stage copies");
  extern __shared__ __align__(128) std::uint8_t smem[];
  const auto [tid, lane, wm, wn, m0, n0] = cta_place<S>(m, n);

  const std::uint32_t smem_base = smem_u32(smem);
  const int vcols = cols_padded / 2;
  const int blocks_m = rows_padded / kMetaBlockRows;
  const int ktiles = cols_padded / S::kBK;

  // Per-thread copy state: first chunk of each operand at K tile 0 (Schedule::a_copy / b_copy /
  // e_copy), advanced by one K tile per load. b_copy with k = INT_MAX gives the column mask only.
  // A tall tile wraps its rows past rows_padded per pass (Schedule::a_src_row).
  const auto a_cp = S::a_copy(tid, m0, 0, vcols, 0x7fffffff);
  const auto b_cp = S::b_copy(tid, n0, 0, 0x7fffffff, n, ldb);
  const auto e_cp = S::e_copy(tid < S::kEChunks ? tid : 0, m0, 0, blocks_m);
  const int a_row = tid / S::kAChunksPerRow;
  auto a_pass_off = [&](int j) {  // source offset of pass j from pass 0
    const int r = S::a_src_row(a_row + j * S::kAPassRows, m0, rows_padded) - (m0 + a_row);
    return static_cast<std::int64_t>(r) * vcols;
  };
  const std::uint16_t* a_src = a + a_cp.src;
  const std::uint16_t* b_src = b + b_cp.src;
  const std::uint16_t* e_src = e + e_cp.src;
  const std::int64_t b_pass_src = static_cast<std::int64_t>(S::kBPassRows) * ldb;
  const std::int64_t b_tile_src = static_cast<std::int64_t>(S::kBK) * ldb;
  const std::int64_t e_tile_src = static_cast<std::int64_t>(blocks_m) * kMetaBlockHalves;
  const int b_row = tid / S::kBChunksPerRow;  // row of the first B chunk inside the K tile
  int b_rows_left = k - b_row;                // rows of B at or below this thread's first row, tile 0

  // One K tile's copies in kCopyParts parts (part 0: A and metadata, part 1 + j: B pass j), then
  // advance_tile() moves the sources to the next K tile.
  constexpr int kCopyParts = 1 + S::kBPasses;
  auto load_part = [&](int stage, int part) {
    const std::uint32_t base = smem_base + static_cast<std::uint32_t>(stage * S::kStageBytes);
    if (part == 0) {
#pragma unroll
      for (int j = 0; j < S::kAPasses; ++j) cp_async_16(base + a_cp.smem + j * S::kAPassSmem, a_src + a_pass_off(j), 16);
      if (tid < S::kEChunks) cp_async_16(base + e_cp.smem, e_src, 16);
    } else {
      const int j = part - 1;
      const bool in = j * S::kBPassRows < b_rows_left && b_cp.bytes > 0;
      // NOTE: a chunk with no bytes keeps the base pointer, never an address past B.
      cp_async_16(base + b_cp.smem + j * S::kBPassSmem, in ? b_src + j * b_pass_src : b, in ? b_cp.bytes : 0);
    }
  };
  auto advance_tile = [&]() {
    a_src += S::kBK / 2;
    b_src += b_tile_src;
    e_src += e_tile_src;
    b_rows_left -= S::kBK;
  };
  auto load_tile = [&](int stage) {
#pragma unroll
    for (int p = 0; p < kCopyParts; ++p) load_part(stage, p);
    advance_tile();
  };

  float acc[S::kMmaM][S::kMmaN][4];
  zero_acc<S>(acc);

#pragma unroll
  for (int s = 0; s < S::kStages - 1; ++s) {
    if (s < ktiles) load_tile(s);
    cp_async_commit();
  }

  // Fragments: A of a k32 step is loaded whole before its first mma.sp; B is streamed, the n8
  // fragment ni + kLead loaded while row ni's mma.sp issue, so only ~kLead+1 B fragments are live
  // per step (full double buffering of a 64×64 warp tile spills at 255 registers).
  constexpr int kLead = S::kMmaN >= 8 ? 2 : 1;
  static_assert(S::kMmaN > kLead, "B streaming needs more n8 tiles than its lead");
  std::uint32_t meta[4], meta_next[4], af0[S::kMmaM][4], bf0[S::kMmaN][4], af1[S::kMmaM][4], bf1[S::kMmaN][4];
  auto stage_addr = [&](int st) { return smem_base + static_cast<std::uint32_t>(st * S::kStageBytes); };
  auto load_a = [&](std::uint32_t (&af)[S::kMmaM][4], int st, int ks) {
#pragma unroll
    for (int mi = 0; mi < S::kMmaM; ++mi)
      ldmatrix_x4(af[mi], stage_addr(st) + S::a_ldsm_offset(lane, wm * S::kWM + 16 * mi, ks));
  };
  auto load_b = [&](std::uint32_t (&bf)[4], int st, int ks, int ni) {
    ldmatrix_x4_trans(bf, stage_addr(st) + S::kAStageBytes + S::b_ldsm_offset(lane, wn * S::kWN + 8 * ni, ks));
  };
  auto load_meta = [&](std::uint32_t (&mt)[4], int st) {
    ldmatrix_x4(mt, stage_addr(st) + (S::kAStageBytes + S::kBStageBytes) + S::e_ldsm_offset(lane, wm * (S::kWM / 16)));
  };

  cp_async_wait<S::kStages - 2>();
  __syncthreads();
  load_meta(meta, 0);
  load_a(af0, 0, 0);
#pragma unroll
  for (int j = 0; j < kLead; ++j) load_b(bf0[j], 0, 0, j);

  int stage = 0;                      // stage of K tile kt
  int refill = S::kStages - 1;        // stage of K tile kt + kStages - 1
  for (int kt = 0; kt < ktiles; ++kt) {
    const bool refilling = kt + S::kStages - 1 < ktiles;
    if (refilling) load_tile(refill);
    cp_async_commit();
    const int next = stage + 1 == S::kStages ? 0 : stage + 1;

    // k32 step 0 of tile kt (selector 0); near its end, the first fragments of step 1.
#pragma unroll
    for (int ni = 0; ni < S::kMmaN; ++ni) {
      if (ni + kLead < S::kMmaN) load_b(bf0[ni + kLead], stage, 0, ni + kLead);
      if (ni == S::kMmaN - kLead) {
        load_a(af1, stage, 1);
#pragma unroll
        for (int j = 0; j < kLead; ++j) load_b(bf1[j], stage, 1, j);
      }
#pragma unroll
      for (int mi = 0; mi < S::kMmaM; ++mi) mma_sp<kBf16, 0>(acc[mi][ni], af0[mi], bf0[ni], meta[mi]);
    }
    // k32 step 1 (selector 1). After its last B read every warp is done with stage kt: the barrier
    // then also publishes tile kt+1 (kStages-2 younger cp.async groups may still be pending), whose
    // first fragments are loaded under the remaining mma.sp.
#pragma unroll
    for (int ni = 0; ni < S::kMmaN; ++ni) {
      if (ni + kLead < S::kMmaN) load_b(bf1[ni + kLead], stage, 1, ni + kLead);
      if (ni == S::kMmaN - kLead) {
        cp_async_wait<S::kStages - 2>();
        __syncthreads();
        if (kt + 1 < ktiles) {
          load_meta(meta_next, next);
          load_a(af0, next, 0);
#pragma unroll
          for (int j = 0; j < kLead; ++j) load_b(bf0[j], next, 0, j);
        }
      }
#pragma unroll
      for (int mi = 0; mi < S::kMmaM; ++mi) mma_sp<kBf16, 1>(acc[mi][ni], af1[mi], bf1[ni], meta[mi]);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) meta[i] = meta_next[i];
    stage = next;
    refill = refill + 1 == S::kStages ? 0 : refill + 1;
  }
  cp_async_wait<0>();
  store_acc<S>(acc, c, ldc, m, n, m0 + wm * S::kWM, n0 + wn * S::kWN, lane);
}

// Kernel variants: the schedule (tiles, stages, layouts) plus how it is issued.
// An mma.sp tile: its schedule (tiles, stages, layouts) and the minimum CTAs per SM it is built for.
template <class S_, int kMinBlocks_ = 1>
struct Variant {
  using S = S_;
  template <bool kBf16, class TOut>
  static constexpr auto kernel() {
    return sparse24_gemm_pipelined_kernel<S, kMinBlocks_, kBf16, TOut>;
  }
};

// Opt in to > 48 KB of dynamic shared memory, once per device and instantiation.
template <class V, bool kBf16, class TOut>
void configure_typed() {
  using S = typename V::S;
  auto kernel = V::template kernel<kBf16, TOut>();
  static std::atomic<std::uint64_t> configured{0};
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) throw Error(std::string("sparse24 gemm: cudaGetDevice: ") + cudaGetErrorString(err));
  const std::uint64_t bit = dev < 64 ? (1ull << dev) : 0;
  if (!(configured.load() & bit)) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes);
    if (err != cudaSuccess)
      throw Error(std::string("sparse24 gemm: cudaFuncSetAttribute: ") + cudaGetErrorString(err));
    configured.fetch_or(bit);
  }
}

template <class V, bool kBf16, class TOut>
KernelInfo info_typed() {
  using S = typename V::S;
  configure_typed<V, kBf16, TOut>();
  auto kernel = V::template kernel<kBf16, TOut>();
  cudaFuncAttributes attr{};
  WS_CUDA(cudaFuncGetAttributes(&attr, kernel));
  KernelInfo info;
  info.registers = attr.numRegs;
  info.local_bytes = static_cast<int>(attr.localSizeBytes);
  info.smem_bytes = S::kSmemBytes;
  info.threads = S::kThreads;
  WS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info.ctas_per_sm, kernel, S::kThreads, S::kSmemBytes));
  return info;
}

template <class V, bool kBf16, class TOut>
void launch_typed(const GemmArgs& g, cudaStream_t stream) {
  using S = typename V::S;
  auto kernel = V::template kernel<kBf16, TOut>();
  configure_typed<V, kBf16, TOut>();
  cudaError_t err = cudaSuccess;
  const long long tiles = static_cast<long long>((g.m + S::kBM - 1) / S::kBM) * ((g.n + S::kBN - 1) / S::kBN);
  require(tiles < (1ll << 31), "sparse24 gemm: too many tiles");
  kernel<<<static_cast<unsigned>(tiles), S::kThreads, S::kSmemBytes, stream>>>(
      static_cast<const std::uint16_t*>(g.a_values), g.a_meta, static_cast<const std::uint16_t*>(g.b),
      static_cast<TOut*>(g.c), g.m, g.n, g.k, g.rows_padded, g.cols_padded, g.ldb, g.ldc);
  err = cudaGetLastError();
  if (err != cudaSuccess) throw Error(std::string("sparse24 gemm: launch: ") + cudaGetErrorString(err));
}

template <class V>
KernelInfo info_schedule(Elem in, Elem out) {
  const bool bf16 = in == Elem::kBf16;
  if (out == Elem::kFp32) return bf16 ? info_typed<V, true, float>() : info_typed<V, false, float>();
  return bf16 ? info_typed<V, true, __nv_bfloat16>() : info_typed<V, false, __half>();
}

template <class V>
void launch_schedule(const GemmArgs& g, cudaStream_t stream) {
  const bool bf16 = g.in == Elem::kBf16;
  if (g.out == Elem::kFp32) {
    bf16 ? launch_typed<V, true, float>(g, stream) : launch_typed<V, false, float>(g, stream);
  } else if (bf16) {
    launch_typed<V, true, __nv_bfloat16>(g, stream);
  } else {
    launch_typed<V, false, __half>(g, stream);
  }
}

template <bool kBf16, int kSel>
__global__ void probe_kernel(const std::uint32_t* a, const std::uint32_t* b, const float* c, const std::uint32_t* e,
                             float* d) {
  const int l = static_cast<int>(threadIdx.x);
  std::uint32_t ar[4], br[4];
  float acc[4];
  for (int i = 0; i < 4; ++i) {
    ar[i] = a[4 * l + i];
    br[i] = b[4 * l + i];
    acc[i] = c[4 * l + i];
  }
  mma_sp<kBf16, kSel>(acc, ar, br, e[l]);
  for (int i = 0; i < 4; ++i) d[4 * l + i] = acc[i];
}

// Calls f.template operator()<Variant>() for an mma.sp tile; false for a wgmma.sp tile or an unknown value.
template <class F>
bool visit_mma_sp_tile(Tile t, F&& f) {
  switch (t) {
    case Tile::kTallPipe: f.template operator()<Variant<ScheduleTall>>(); return true;
    default: return false;
  }
}

}  // namespace

KernelInfo kernel_info(Tile tile, Elem in, Elem out) {
  require(in == Elem::kBf16 || in == Elem::kFp16, "sparse24 kernel_info: inputs must be bf16 or fp16");
  require(out == Elem::kFp32 || out == in, "sparse24 kernel_info: output must be fp32 or the input type");
  KernelInfo info;
  const bool known = visit_mma_sp_tile(tile, [&]<class V>() { info = info_schedule<V>(in, out); });
  require(known, "sparse24 kernel_info: not an mma.sp tile");
  return info;
}

void launch_gemm(const GemmArgs& g, cudaStream_t stream) {
  require(g.in == Elem::kBf16 || g.in == Elem::kFp16, "sparse24 gemm: inputs must be bf16 or fp16");
  require(g.out == Elem::kFp32 || g.out == g.in, "sparse24 gemm: output must be fp32 or the input type");
  require(g.m >= 0 && g.n >= 0 && g.k >= 0, "sparse24 gemm: negative shape");
  require(g.rows_padded % kRowAlign == 0 && g.rows_padded >= g.m && g.cols_padded % kColAlign == 0 &&
              g.cols_padded >= g.k,
          "sparse24 gemm: A is not padded to 128 rows x 64 columns (use sparse24::compress + upload)");
  if (g.ldb < g.n || g.ldb % 8 != 0)  // the message is built only on failure: this runs before every launch
    throw Error("sparse24 gemm: ldb must be >= N and a multiple of 8 (got ldb=" + std::to_string(g.ldb) +
                ", N=" + std::to_string(g.n) + ")");
  require(reinterpret_cast<std::uintptr_t>(g.b) % 16 == 0 && reinterpret_cast<std::uintptr_t>(g.a_values) % 16 == 0 &&
              reinterpret_cast<std::uintptr_t>(g.a_meta) % 16 == 0,
          "sparse24 gemm: A values, metadata and B must be 16-byte aligned");
  require(g.ldc >= g.n, "sparse24 gemm: ldc must be >= N");
  if (g.m == 0 || g.n == 0) return;
  // One device's facts (read once per device) serve kAuto and the wgmma.sp tiles: the wgmma.sp
  // library is built for sm_90a, which runs on compute capability 9.0 only.
  Tile tile = g.tile;
  if (tile == Tile::kAuto || is_wgmma(tile)) {
    const DeviceFacts& d = warpsparse::gpu::device_facts();
    if (tile == Tile::kAuto) tile = auto_tile(d, g.m, g.n, g.k, g.cols_padded / kColAlign);
    if (is_wgmma(tile)) {
      require(d.cc_major == 9 && d.cc_minor == 0,
              "sparse24 gemm: the wgmma.sp tiles need a compute capability 9.0 device");
      GemmArgs w = g;
      w.tile = tile;
      launch_gemm_wgmma(w, stream);
      return;
    }
  }
  const bool known = visit_mma_sp_tile(tile, [&]<class V>() { launch_schedule<V>(g, stream); });
  require(known, "sparse24 gemm: unknown tile");
}

void probe_mma_sp(const std::uint32_t* a, const std::uint32_t* b, const float* c, const std::uint32_t* e,
                  int selector, Elem in, float* d) {
  require(selector == 0 || selector == 1, "probe_mma_sp: selector must be 0 or 1");
  const bool bf16 = in == Elem::kBf16;
  if (bf16 && selector == 0) probe_kernel<true, 0><<<1, 32>>>(a, b, c, e, d);
  if (bf16 && selector == 1) probe_kernel<true, 1><<<1, 32>>>(a, b, c, e, d);
  if (!bf16 && selector == 0) probe_kernel<false, 0><<<1, 32>>>(a, b, c, e, d);
  if (!bf16 && selector == 1) probe_kernel<false, 1><<<1, 32>>>(a, b, c, e, d);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throw Error(std::string("probe_mma_sp: launch: ") + cudaGetErrorString(err));
}

}  // namespace warpsparse::sparse24::gpu
