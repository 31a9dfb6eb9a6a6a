// 2:4 sparse GEMM for Hopper (sm_90a): wgmma.mma_async.sp, TMA loads, mbarrier pipeline.
//
// Same data as the mma.sp kernel: A compressed (padded 128 rows × 64 columns), metadata in the
// swizzled order of reference/sparse24/sparse24_layout.hpp, B K × N row-major, C masked. Checked on
// the H100 by sparse24_gemm_gpu_test (docs/sparse24-gemm.md).
//
// CTA: 3 warpgroups. Warpgroup 0 is the producer (one thread issues TMA for A and B and a bulk copy
// for the metadata of each stage, tracked by a "full" mbarrier with expected bytes); warpgroups 1
// and 2 are the consumers. Two tiles (Shape): 128 × 256, each consumer computing 64 rows × 256
// columns with wgmma.sp m64n256k32, and 256 × 128, each consumer computing 128 rows × 128 columns
// as two m64n128k32 accumulators (the faster one: fewer bytes per stage, see Shape). Per 64-wide K
// tile a consumer issues its wgmma.sp for the two k32 halves (selector 0 then 1) as one group; one
// group stays in flight while the next is issued, and a stage goes back to the producer through an
// "empty" mbarrier once the group that read it has completed.
// Every consumer thread arrives on a stage's empty barrier itself (count 256), so each thread's
// metadata read is released by its own arrive: with one arrive per warp, compute-sanitizer
// racecheck reported the reads against the next bulk copy into the stage; the per-thread release is
// racecheck-clean and no slower.
//
// Layout facts, confirmed on the H100 by the GPU test's wgmma.sp checks (PTX ISA §9.7.15 "Asynchronous
// warpgroup level matrix multiply-accumulate", §9.7.15.5.1 matrix descriptors). The numbers come
// from the model of these layouts, smem::WgmmaSpLayout (reference/sparse24/sparse24_smem_layout.hpp),
// whose address map proptests/sparse24/wgmma_smem_layout_props.cpp checks against TMA's placement;
// the static_asserts below pin them to the values confirmed on the device.
//   * wgmma.sp f16/bf16 metadata: warp w of the warpgroup supplies rows 16w..16w+15 with the same
//     per-lane word as mma.sp m16n8k32 (selector 0: lanes t0/t1 of each quad, 1: t2/t3), so a warp
//     reads its word with one 32-bit shared load at block + 4·lane (the ldmatrix.x1 order).
//   * A (compressed, K-major) with 64-byte swizzle: rows of 64 B, SBO = 512 B between 8-row groups,
//     the k32 step at +32 B inside the swizzle atom.
//   * B (MN-major) with 128-byte swizzle, TMA boxes of 64 columns × 64 rows: LBO = 8 KB between
//     64-column atoms, SBO = 1 KB between 8-row groups, the k32 step at +4 KB.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "kernels/common/conversions.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/common/stream_scratch.hpp"
#include "kernels/sparse24/sparse24_launch.hpp"
#include "kernels/sparse24/sparse24_wgmma_probe.hpp"
#include "reference/sparse24/sparse24_layout.hpp"
#include "reference/sparse24/sparse24_smem_layout.hpp"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WS_SPARSE24_WGMMA_ENABLED 1
#endif

namespace warpsparse::sparse24::gpu {
namespace {

using warpsparse::gpu::from_f32;

using L = smem::WgmmaSpLayout;  // shared-memory operand layouts: descriptors, TMA boxes, metadata words
constexpr int kBK = L::kBK;
constexpr int kThreads = 384;  // producer warpgroup + 2 consumer warpgroups
constexpr int kBBoxBytes = static_cast<int>(L::kBBoxBytes);  // one 64 × 64 TMA box of B
// The model's values are the ones confirmed on the H100; a model change that moves one must be
// confirmed there again before these change.
static_assert(kBK == 64 && L::kABoxCols == 32 && L::kASwizzle == smem::Swizzle::k64B && L::kALbo == 16 &&
                  L::kASbo == 512 && L::kAK32Step == 32 && L::kAM64Bytes == 64 * 64,
              "A: K-major, 64-byte swizzle, SBO 512 B, k32 step +32 B, m64 blocks 4 KB apart");
static_assert(L::kBBoxCols == 64 && L::kBBoxRows == 64 && L::kBSwizzle == smem::Swizzle::k128B &&
                  L::kBLbo == 8192 && L::kBSbo == 1024 && L::kBK32Step == 4096,
              "B: MN-major, 128-byte swizzle, 64 x 64 boxes, LBO 8 KB, SBO 1 KB, k32 step +4 KB");
static_assert(L::a_desc(L::a_block(0, 1), 1) == 0x8000002000010102ull && L::b_desc(0, 1) == 0x4000004002000100ull,
              "descriptor encoding (start, LBO, SBO >> 4; swizzle in bits 62-63)");
static_assert(L::meta_word_byte(5, 7) == 5 * 128 + 7 * 4, "metadata word of lane l in 16-row block b at 128 b + 4 l");
constexpr int kCBoxBytes = 64 * 64 * 2;   // one 64 × 64 box of C (TMA-store epilogue)

// The CTA tile: kTileM (256 or 128) rows × 128 columns. Each consumer warpgroup computes half of
// the rows as kTileM / 128 m64n128k32 accumulators. Because A is stored compressed (half of its K),
// a stage of the 256-row tile carries 16 KB of A + 16 KB of B + 2 KB of metadata = 34 KB, against
// 8 + 32 + 1 = 41 KB for a 128 × 256 tile of the same flops: 17 % fewer L2 bytes per flop. The
// 128-row tile (25 KB stages) halves the work of a tile, for problems whose 256-row tiles leave
// SMs idle or pay heavily for split-K (choose_tile_rows, reference/sparse24/sparse24_split.hpp).
template <int kTileM>
struct Shape {
  static_assert(kTileM == 128 || kTileM == 256, "the built CTA tiles: 256 or 128 rows");
  static constexpr int kBM = kTileM, kBN = kTileCols;
  static constexpr int kMBlocks = kBM / 128;             // m64 accumulators per consumer
  static constexpr int kAccRegs = kBN / 2;               // floats per m64nN accumulator and thread
  static constexpr int kABytes = kBM * L::kARowBytes;     // compressed A: 8 or 16 KB
  static constexpr int kBBytes = kBN / L::kBBoxCols * kBBoxBytes;  // 32 or 16 KB
  static constexpr int kEBytes = kBM / kMetaBlockRows * kMetaBlockHalves * 2;  // 1 or 2 KB
  static constexpr int kStageBytes = kABytes + kBBytes + kEBytes;
  // The TMA-store epilogue stages each consumer's outputs as 64 × 64 boxes with the 128-byte
  // swizzle (8 KB each): 64 KB for the CTA in both shapes, after the pipeline stages.
  static constexpr int kCBoxesPerConsumer = kMBlocks * (kBN / 64);
  static constexpr int kCBytes = 2 * kCBoxesPerConsumer * kCBoxBytes;
  // Shared memory of a kStages pipeline: stages, C staging (TMA store), alignment slack, barriers.
  static constexpr int smem_bytes(int stages, bool tma_store) {
    return stages * kStageBytes + (tma_store ? kCBytes : 0) + 1024 + 2 * stages * 8;
  }
  static_assert(kStageBytes % 1024 == 0, "swizzle atoms need 1 KB-aligned stages");
  // The descriptors carry no base offset: every swizzle pattern starts on its own boundary.
  static_assert(kABytes % smem::swizzle_pattern_bytes(L::kBSwizzle) == 0, "B's stage starts on a 1 KB pattern");
  static_assert(L::kAM64Bytes % smem::swizzle_pattern_bytes(L::kASwizzle) == 0 &&
                    L::kBBoxBytes % smem::swizzle_pattern_bytes(L::kBSwizzle) == 0,
                "m64 blocks of A and boxes of B start on their swizzle patterns");
  static_assert(kRowAlign % 128 == 0, "a consumer's 64·kMBlocks rows are all inside or all outside the padded rows");
};
constexpr int kMaxSmem = 227 * 1024;  // what an H100 CTA may use
static_assert(kColAlign == kBK, "storage padding of K matches the tile");

#if defined(WS_SPARSE24_WGMMA_ENABLED)
__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(std::uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(std::uint32_t bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, int phase) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(phase)
      : "memory");
}
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const CUtensorMap* map, int c0, int c1, std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// The same load into the same shared-memory offset of every CTA of the cluster in `mask`, each of
// whose barrier at `bar` receives the bytes.
__device__ __forceinline__ void tma_load_2d_multicast(std::uint32_t dst, const CUtensorMap* map, int c0,
                                                      int c1, std::uint32_t bar, std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
__device__ __forceinline__ std::uint32_t cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// An arrival on the barrier at the same offset in CTA `rank` of the cluster, with the default
// semantics (as CUTLASS's cluster barriers arrive): the consumer has waited for its wgmma group, so
// its reads of the stage are done. With `.release.cluster` the pair tile ran at half speed (H100).
__device__ __forceinline__ void mbar_arrive_remote(std::uint32_t bar, std::uint32_t rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}
// Every thread of the cluster: arrive, then wait for all the others.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// TMA store of one box from shared memory, tracked by the issuing thread's bulk group.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, std::uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(src)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until every committed bulk store has finished reading shared memory.
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
__device__ __forceinline__ void bulk_load(std::uint32_t dst, const void* src, int bytes, std::uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
// Barrier over the 128 threads of one consumer warpgroup (ids 1 and 2; 0 is __syncthreads).
__device__ __forceinline__ void warpgroup_bar(int id) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory");
}

// Accumulator operands of m64n128 (64 floats per thread) and m64n256 (128): the first 64 are shared.
#define WS_REGS_0_63 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WS_D64_REGS "{" WS_REGS_0_63 "}"
#define WS_D128_REGS "{" WS_REGS_0_63 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
#define WS_D64_OUTS \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define WS_D128_OUTS \
    WS_D64_OUTS, \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// wgmma.mma_async.sp m64nNk32 (N = 256 or 128) with A and B from shared-memory descriptors;
// scale_d = 0 starts a new accumulation. imm-scale-a = imm-scale-b = 1, imm-trans-a = 0 (K-major
// A), imm-trans-b = 1 (B is K × N with N contiguous, i.e. MN-major). The selector must be an
// immediate.
template <bool kBf16, int kSel, int kN>
__device__ __forceinline__ void wgmma_sp(float (&d)[kN / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                         std::uint32_t meta, int scale_d) {
  static_assert(kN == 256 || kN == 128);
  if constexpr (kN == 256 && kBf16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %131, 0;\n"
                 "wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.bf16.bf16 " WS_D128_REGS
                 ", %128, %129, %130, %132, p, 1, 1, 0, 1;\n}\n"
                 : WS_D128_OUTS
                 : "l"(desc_a), "l"(desc_b), "r"(meta), "r"(scale_d), "n"(kSel));
  } else if constexpr (kN == 256) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %131, 0;\n"
                 "wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.f16.f16 " WS_D128_REGS
                 ", %128, %129, %130, %132, p, 1, 1, 0, 1;\n}\n"
                 : WS_D128_OUTS
                 : "l"(desc_a), "l"(desc_b), "r"(meta), "r"(scale_d), "n"(kSel));
  } else if constexpr (kBf16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %67, 0;\n"
                 "wgmma.mma_async.sp.sync.aligned.m64n128k32.f32.bf16.bf16 " WS_D64_REGS
                 ", %64, %65, %66, %68, p, 1, 1, 0, 1;\n}\n"
                 : WS_D64_OUTS
                 : "l"(desc_a), "l"(desc_b), "r"(meta), "r"(scale_d), "n"(kSel));
  } else {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %67, 0;\n"
                 "wgmma.mma_async.sp.sync.aligned.m64n128k32.f32.f16.f16 " WS_D64_REGS
                 ", %64, %65, %66, %68, p, 1, 1, 0, 1;\n}\n"
                 : WS_D64_OUTS
                 : "l"(desc_a), "l"(desc_b), "r"(meta), "r"(scale_d), "n"(kSel));
  }
}

// Two 16-bit outputs, each rounded on its own as from_f32 does, as one 32-bit word (first in the low half).
template <class TOut>
__device__ __forceinline__ std::uint32_t pack_pair(float v0, float v1) {
  if constexpr (std::is_same_v<TOut, __half>) {
    const __half2 h = __floats2half2_rn(v0, v1);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(v0, v1);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
}
// Two adjacent outputs, each rounded on its own as from_f32 does, in one store (p 2-element aligned).
template <class TOut>
__device__ __forceinline__ void store_pair(TOut* p, float v0, float v1) {
  if constexpr (std::is_same_v<TOut, float>) *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
  else *reinterpret_cast<std::uint32_t*>(p) = pack_pair<TOut>(v0, v1);
}

// Visits this thread's accumulator values in pairs, the one definition of the fragment layout
// both epilogues use. Accumulator fragment of m64nN: warp w of the warpgroup holds rows 16w + g
// (+8) of each 64-row block b, columns 8j + 2t (+1); f(b, j, r, v0, v1) gets r = 16w + g + 8h.
template <int kMB, int kAccN, class F>
__device__ __forceinline__ void for_each_acc_pair(const float (&acc)[kMB][kAccN], int warp_in_wg, int g, F&& f) {
#pragma unroll
  for (int b = 0; b < kMB; ++b)
#pragma unroll
    for (int j = 0; j < kAccN / 4; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) f(b, j, warp_in_wg * 16 + g + 8 * h, acc[b][4 * j + 2 * h], acc[b][4 * j + 2 * h + 1]);
}
#endif  // WS_SPARSE24_WGMMA_ENABLED

// kTmaStore: 16-bit outputs leave through shared memory and TMA stores (which clip at M and N), so
// the consumers go on to the next tile while the stores drain. kTileM picks the tile (Shape).
// kCluster 2: the launch is in clusters of two CTAs on adjacent tiles of one tile row
// (SplitPlan::clusters); each producer loads half of the A rows both need and multicasts it, so
// A's bytes leave L2 once per cluster, and a stage is refilled only when the consumers of both CTAs
// are done with it (each consumer warp also arrives on the other CTA's empty barrier).
template <bool kBf16, class TOut, int kStages, bool kTmaStore, int kTileM, int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    sparse24_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b,
                          const __grid_constant__ CUtensorMap map_c, const std::uint16_t* __restrict__ e,
                          TOut* __restrict__ c, float* __restrict__ partials, int m, int n, int rows_padded,
                          int ldc, SplitPlan plan) {
#if defined(WS_SPARSE24_WGMMA_ENABLED)
  using S = Shape<kTileM>;
  constexpr int kBM = S::kBM, kBN = S::kBN, kMB = S::kMBlocks, kAccN = S::kAccRegs;
  extern __shared__ std::uint8_t smem_raw[];
  // Swizzled TMA destinations need 1 KB alignment.
  const std::uint32_t raw = smem_u32(smem_raw);
  const std::uint32_t base = (raw + 1023u) & ~1023u;
  const std::uint32_t c_stage = base + kStages * S::kStageBytes;  // kTmaStore only
  const std::uint32_t bars = c_stage + (kTmaStore ? S::kCBytes : 0);
  auto full_bar = [&](int s) { return bars + 8u * static_cast<std::uint32_t>(s); };
  auto empty_bar = [&](int s) { return bars + 8u * static_cast<std::uint32_t>(kStages + s); };
  auto stage_a = [&](int s) { return base + static_cast<std::uint32_t>(s * S::kStageBytes); };
  auto stage_b = [&](int s) { return stage_a(s) + S::kABytes; };
  auto stage_e = [&](int s) { return stage_b(s) + S::kBBytes; };

  const int tid = static_cast<int>(threadIdx.x);
  const int wg = tid / 128, lane = tid & 31, warp_in_wg = (tid / 32) % 4;
  const int ktiles = plan.ktiles;  // K padded to kBK: split_plan holds it for split and unsplit launches
  // Work units (SplitPlan, reference/sparse24/sparse24_split.hpp): this CTA's whole tiles (pid =
  // blockIdx.x, + gridDim.x, ... < whole: all K tiles, stored into C), then, for a CTA of a tail
  // group, the segments of its group's range: K tiles [kb, ke) of its tile of tail unit r, whose
  // fp32 partials go to `partials` (tile-local, kBM x kBN per slot) for sparse24_tail_kernel to add
  // in group order. slot -1: stored directly (a whole tile, or a tail tile one group covers alone).
  static_assert(kCluster == 1 || kCluster == 2, "clusters of one or two CTAs");
  const int whole = static_cast<int>(plan.whole), cta = static_cast<int>(blockIdx.x);
  const std::uint32_t rank = kCluster > 1 ? cluster_rank() : 0u;
  const int my_whole = cta < whole ? (whole - 1 - cta) / static_cast<int>(gridDim.x) + 1 : 0;
  const int col = cta % plan.width, grp = cta / plan.width;
  const bool sharer = plan.split() && grp < plan.groups;
  const int seg_b = sharer ? plan.begin(grp) : 0, seg_e = sharer ? plan.begin(grp + 1) : 0;
  const int seg_r0 = seg_b / ktiles;
  const int units = my_whole + (seg_e > seg_b ? (seg_e - 1) / ktiles - seg_r0 + 1 : 0);
  struct Unit {
    TileCoord tile;
    int kb, ke, slot;
  };
  auto unit_of = [&](int i) {
    if (i < my_whole)
      return Unit{plan.whole_tile(cta + i * static_cast<int>(gridDim.x), kCluster), 0, ktiles, -1};
    const int r = seg_r0 + (i - my_whole), r0 = r * ktiles;
    return Unit{plan.tail_tile(r, col), std::max(seg_b, r0) - r0, std::min(seg_e, r0 + ktiles) - r0,
                plan.covers(seg_b, seg_e, r) ? -1 : plan.slot(col, grp, r)};
  };
  const int blocks_m = rows_padded / kMetaBlockRows;

  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full_bar(s), 1);
      // One arrival per consumer thread, and one per consumer warp of the other CTA of a cluster.
      mbar_init(empty_bar(s), 2 * 128 + (kCluster - 1) * 8);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if constexpr (S::kBM > kRowAlign) {
    // The last tall tile of a matrix whose padded rows are an odd multiple of 128 has metadata for
    // its first consumer only (the producer clips the bulk copy), and its second consumer's A is
    // TMA's zero fill. That consumer still issues its wgmma.sp (skipping them in a branch makes
    // ptxas serialize every wgmma of the kernel) and its rows are never stored; its metadata slots
    // start as valid ordered pairs (every nibble 0b0100: positions 0 and 1) rather than whatever
    // shared memory held, and later hold an earlier tile's metadata.
    for (int i = tid; i < kStages * S::kEBytes / 4; i += kThreads) {
      const int s = i / (S::kEBytes / 4), w = i % (S::kEBytes / 4);
      asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(stage_e(s) + 4u * static_cast<std::uint32_t>(w)), "r"(0x44444444u)
                   : "memory");
    }
    // Generic-proxy writes must be ordered before the bulk copies (async proxy) that overwrite them.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();
  // The other CTA's barriers are initialised before anything multicasts or arrives on them, and
  // neither CTA leaves while the other may still do so.
  if constexpr (kCluster > 1) cluster_sync();

  // Each CTA runs its units in order (one tile each when the grid covers them all; with more, the
  // kernel is persistent, and the producer loads the next unit's first stages while the consumers
  // store the current one). `it` counts K tiles over all of this CTA's units: stage it % kStages,
  // barrier phase (it / kStages) & 1.
  if (wg == 0) {
    // Producer: registers go to the consumers.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0) {
      int it = 0;
      for (int u = 0; u < units; ++u) {
        const Unit w = unit_of(u);
        const TileCoord tile = w.tile;
        const int kb = w.kb, ke = w.ke;
        const int m0 = tile.m * kBM, n0 = tile.n * kBN;
        // Metadata exists for the padded rows only (a multiple of 128): the last tall tile may
        // have half of it. A's TMA box is zero-filled past the padded rows and always delivers
        // its full size.
        const int e_bytes = std::min(kBM, rows_padded - m0) / kMetaBlockRows * kMetaBlockHalves * 2;
        for (int kt = kb; kt < ke; ++kt, ++it) {
          const int s = it % kStages;
          if (it >= kStages) mbar_wait(empty_bar(s), ((it / kStages) - 1) & 1);
          mbar_expect_tx(full_bar(s), S::kABytes + S::kBBytes + e_bytes);
          if constexpr (kCluster > 1) {
            // This CTA's share of A's rows (map_a's box is kBM / kCluster rows), into both CTAs.
            constexpr int kShare = kBM / kCluster;
            tma_load_2d_multicast(stage_a(s) + rank * static_cast<std::uint32_t>(S::kABytes / kCluster),
                                  &map_a, kt * L::kABoxCols, m0 + kShare * static_cast<int>(rank),
                                  full_bar(s), static_cast<std::uint16_t>((1u << kCluster) - 1));
          } else {
            tma_load_2d(stage_a(s), &map_a, kt * L::kABoxCols, m0, full_bar(s));
          }
          for (int j = 0; j < kBN / L::kBBoxCols; ++j)
            tma_load_2d(stage_b(s) + static_cast<std::uint32_t>(j * kBBoxBytes), &map_b, n0 + L::kBBoxCols * j,
                        kt * L::kBBoxRows, full_bar(s));
          bulk_load(stage_e(s),
                    e + (static_cast<std::int64_t>(kt) * blocks_m + m0 / kMetaBlockRows) * kMetaBlockHalves, e_bytes,
                    full_bar(s));
        }
      }
    }
    if constexpr (kCluster > 1) cluster_sync();
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int cw = wg - 1;  // consumer rows m0 + (kBM / 2)·cw, as kMB blocks of 64
  const int g = lane >> 2, t4 = lane & 3;
  const bool pairs = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % (2 * sizeof(TOut)) == 0;
  float acc[kMB][kAccN];
#pragma unroll
  for (int b = 0; b < kMB; ++b)
#pragma unroll
    for (int i = 0; i < kAccN; ++i) acc[b][i] = 0.f;

  // wgmma.sp is asynchronous: PTX puts its register operands (accumulators, A fragments) off
  // limits until the wait_group that retires it, and this kernel treats the metadata words the
  // same way (the PTX text does not name them; wrong results were seen
  // at speed, right ones under the sanitizers' serialised execution, when a word's register could
  // be rewritten while its wgmma.sp was in flight). The K loop is unrolled by two over two sets of
  // words, meta_a and meta_b: one K tile loads `cur` and issues its group; after the wait that
  // retires the previous group, an empty asm reads that group's words (`old`), so nvcc keeps each
  // word in place, without the copy a rotating meta_prev = meta needs, until its group is done.
  std::uint32_t meta_a[kMB] = {}, meta_b[kMB] = {};
  // Hands stage s back: to this CTA's producer, and in a cluster to the other CTA's, whose
  // multicast writes this CTA's copy too.
  auto release = [&](int s) __attribute__((always_inline)) {
    mbar_arrive(empty_bar(s));
    if constexpr (kCluster > 1) {
      __syncwarp();
      if (lane == 0) mbar_arrive_remote(empty_bar(s), rank ^ 1u);
    }
  };
  int it = 0;
  for (int u = 0; u < units; ++u) {
    const Unit w = unit_of(u);
    const TileCoord tile = w.tile;
    const int kb = w.kb, ke = w.ke;
    const int m0 = tile.m * kBM, n0 = tile.n * kBN;
    const int row0 = m0 + cw * (kBM / 2);  // this consumer's first row
    auto k_step = [&](int kt, std::uint32_t(&cur)[kMB], std::uint32_t(&old)[kMB]) __attribute__((always_inline)) {
      const int s = it % kStages;
      mbar_wait(full_bar(s), (it / kStages) & 1);
#pragma unroll
      for (int b = 0; b < kMB; ++b)
        asm volatile("ld.shared.u32 %0, [%1];\n"
                     : "=r"(cur[b])
                     : "r"(stage_e(s) + L::meta_word_byte((cw * kMB + b) * 4 + warp_in_wg, lane)));
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
      const std::uint64_t db0 = L::b_desc(stage_b(s), 0), db1 = L::b_desc(stage_b(s), 1);
#pragma unroll
      for (int b = 0; b < kMB; ++b) {
        const std::uint32_t a0 = L::a_block(stage_a(s), cw * kMB + b);
        const std::uint64_t da0 = L::a_desc(a0, 0), da1 = L::a_desc(a0, 1);
        wgmma_sp<kBf16, 0, kBN>(acc[b], da0, db0, cur[b], kt > kb ? 1 : 0);
        wgmma_sp<kBf16, 1, kBN>(acc[b], da1, db1, cur[b], 1);
      }
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      // Keep this K tile's wgmma group in flight while the next one is issued: wait only for
      // the previous group, then hand its stage back to the producer.
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
#pragma unroll
      for (int b = 0; b < kMB; ++b) asm volatile("" ::"r"(old[b]));  // the previous group has retired
      if (kt > kb) release((it - 1) % kStages);                      // this thread is done with that stage
      ++it;
    };
    int kt = kb;
    for (; kt + 1 < ke; kt += 2) {
      k_step(kt, meta_a, meta_b);
      k_step(kt + 1, meta_b, meta_a);
    }
    if (kt < ke) k_step(kt, meta_a, meta_b);
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
    for (int b = 0; b < kMB; ++b) asm volatile("" ::"r"(meta_a[b]), "r"(meta_b[b]));
    release((it - 1) % kStages);
    // Rows past the padded rows (the second consumer of a last tall tile) hold nothing to store.
    if (row0 >= rows_padded) continue;

    if (w.slot >= 0) {
      // A tail segment: its fp32 partial sums, tile-local, clipped at M and N.
      float* const pt = partials + static_cast<std::int64_t>(w.slot) * (kBM * kBN);
      for_each_acc_pair(acc, warp_in_wg, g, [&](int b, int j, int r, float v0, float v1) {
        const int lr = cw * (kBM / 2) + 64 * b + r, lc = 8 * j + 2 * t4;
        if (m0 + lr >= m || n0 + lc >= n) return;
        *reinterpret_cast<float2*>(pt + lr * kBN + lc) = make_float2(v0, v1);
      });
      continue;
    }

    // Epilogue: the accumulator pairs (for_each_acc_pair) go out through shared memory and TMA, or directly.
    if constexpr (kTmaStore) {
      static_assert(sizeof(TOut) == 2, "the TMA-store epilogue is for 16-bit outputs");
      // This warpgroup's previous stores must have read its staging boxes before they are rewritten.
      const std::uint32_t my_c = c_stage + static_cast<std::uint32_t>(cw * S::kCBoxesPerConsumer * kCBoxBytes);
      const bool issuer = (tid & 127) == 0;
      if (issuer) bulk_wait_read();
      warpgroup_bar(1 + cw);
      // Box (b, j / 8) holds rows 64b..64b+63, columns 64(j/8)..+63 as 64 rows of 128 B; 16-byte
      // chunk q of row r sits at chunk q ^ (r & 7) (the TMA 128-byte swizzle), so the 8 rows of
      // one store hit distinct banks.
      for_each_acc_pair(acc, warp_in_wg, g, [&](int b, int j, int r, float v0, float v1) {
        const int q = j % 8;
        const int box = b * (kBN / 64) + j / 8;
        const std::uint32_t addr =
            my_c + static_cast<std::uint32_t>(box * kCBoxBytes + r * 128 + ((q ^ (r & 7)) * 16) + t4 * 4);
        asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(pack_pair<TOut>(v0, v1)) : "memory");
      });
      // Generic-proxy writes must be visible to the async proxy before the TMA reads them.
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      warpgroup_bar(1 + cw);
      if (issuer) {
#pragma unroll
        for (int b = 0; b < kMB; ++b)
#pragma unroll
          for (int j = 0; j < kBN / 64; ++j)
            tma_store_2d(&map_c, my_c + static_cast<std::uint32_t>((b * (kBN / 64) + j) * kCBoxBytes), n0 + 64 * j,
                         row0 + 64 * b);
        bulk_commit();
      }
    } else {
      // The two adjacent columns go out as one 4-byte (8-byte for fp32) store when C's alignment allows.
      for_each_acc_pair(acc, warp_in_wg, g, [&](int b, int j, int r, float v0, float v1) {
        const int row = row0 + 64 * b + r;
        const int col = n0 + 8 * j + 2 * t4;
        if (row >= m) return;
        TOut* p = c + static_cast<std::int64_t>(row) * ldc + col;
        if (pairs && col + 1 < n) {
          store_pair(p, v0, v1);
        } else {
          if (col < n) p[0] = from_f32<TOut>(v0);
          if (col + 1 < n) p[1] = from_f32<TOut>(v1);
        }
      });
    }
  }
  if constexpr (kTmaStore) {
    // Shared memory must outlive the stores' reads of it.
    if ((tid & 127) == 0) bulk_wait_read();
  }
  if constexpr (kCluster > 1) cluster_sync();
#endif  // WS_SPARSE24_WGMMA_ENABLED
}

// The layout probe (sparse24_wgmma_probe.hpp): one consumer warpgroup's view of one stage, built
// from the same tensor maps, TMA loads, metadata offsets, descriptors and wgmma_sp as the kernel.
constexpr int kProbeABytes = static_cast<int>(L::kAM64Bytes);
constexpr int kProbeBBytes = kProbeN / L::kBBoxCols * kBBoxBytes;
constexpr int kProbeSmem = kProbeABytes + kProbeBBytes + 1024 + 8;
static_assert(kProbeRows == 64 && kProbeACols == L::kABoxCols && kProbeK == kBK, "one m64 block, one K tile");

__global__ void __launch_bounds__(128, 1)
    wgmma_layout_probe_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                              const std::uint16_t* __restrict__ e, std::uint16_t* __restrict__ image, float* __restrict__ d) {
#if defined(WS_SPARSE24_WGMMA_ENABLED)
  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t stage_a = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t stage_b = stage_a + kProbeABytes;
  const std::uint32_t bar = stage_b + kProbeBBytes;
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid / 32;
  if (tid == 0) {
    mbar_init(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (tid == 0) {
    mbar_expect_tx(bar, kProbeABytes + kProbeBBytes);
    tma_load_2d(stage_a, &map_a, 0, 0, bar);
    for (int j = 0; j < kProbeN / L::kBBoxCols; ++j)
      tma_load_2d(stage_b + static_cast<std::uint32_t>(j * kBBoxBytes), &map_b, L::kBBoxCols * j, 0, bar);
  }
  mbar_wait(bar, 0);
  for (int i = tid; i < (kProbeABytes + kProbeBBytes) / 2; i += 128) {
    std::uint16_t v;
    asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(v) : "r"(stage_a + 2u * static_cast<std::uint32_t>(i)));
    image[i] = v;
  }
  // Warp w supplies rows 16w .. 16w + 15: the kernel's word of 16-row block w.
  const std::uint32_t meta = *reinterpret_cast<const std::uint32_t*>(
      reinterpret_cast<const std::uint8_t*>(e) + L::meta_word_byte(warp, lane));
  float acc[1][kProbeN / 2] = {};
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  const std::uint32_t a0 = L::a_block(stage_a, 0);
  wgmma_sp<false, 0, kProbeN>(acc[0], L::a_desc(a0, 0), L::b_desc(stage_b, 0), meta, 0);
  wgmma_sp<false, 1, kProbeN>(acc[0], L::a_desc(a0, 1), L::b_desc(stage_b, 1), meta, 1);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  const int t4 = lane & 3;
  for_each_acc_pair(acc, warp, lane >> 2, [&](int, int j, int r, float v0, float v1) {
    d[r * kProbeN + 8 * j + 2 * t4] = v0;
    d[r * kProbeN + 8 * j + 2 * t4 + 1] = v1;
  });
#endif  // WS_SPARSE24_WGMMA_ENABLED
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled encode_tiled() {
  static EncodeTiled fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<EncodeTiled>(p);
  });
  require(fn != nullptr, "sparse24 wgmma: cuTensorMapEncodeTiled is not available");
  return fn;
}

// The tensor map's swizzle for the model's (the same Swizzle<B,4,3> on both sides).
constexpr CUtensorMapSwizzle tma_swizzle(smem::Swizzle s) {
  switch (s) {
    case smem::Swizzle::k128B: return CU_TENSOR_MAP_SWIZZLE_128B;
    case smem::Swizzle::k64B: return CU_TENSOR_MAP_SWIZZLE_64B;
    case smem::Swizzle::k32B: return CU_TENSOR_MAP_SWIZZLE_32B;
    default: return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

// 2-D row-major 16-bit tensor [rows][cols] with row pitch `pitch` elements, box {box_cols, box_rows}.
CUtensorMap make_map(const void* ptr, int rows, int cols, int pitch, int box_cols, int box_rows, CUtensorMapSwizzle sw) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(pitch) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void*>(ptr), dims, strides, box,
                                    elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  require(r == CUDA_SUCCESS, "sparse24 wgmma: cuTensorMapEncodeTiled failed (" + std::to_string(static_cast<int>(r)) + ")");
  return map;
}

// Split-K's second pass: each output of a shared tail tile (blockIdx.x = r · width + col) is its
// segments' fp32 partial sums added in group order, then converted once. A block's threads lie over
// kCols columns (the fewest of 16, 32, 64, 128 that hold the tile's columns, so narrow tiles leave no
// thread idle) and kTailThreads / kCols rows; a thread takes its column of kTailOuts rows, that many
// rows apart, so a warp reads runs of min(kCols, 32) consecutive partials and writes runs of as
// many consecutive outputs. The unit's groups, tile and slot are worked out once per thread for all
// of its rows: with one output per thread those integer divisions, not the partials' bytes, set the
// kernel's time. Groups run outer and rows inner, so a group's loads for all of a thread's rows are
// in flight together. A tile that one group covered alone was stored by the GEMM kernel.
inline constexpr int kTailThreads = 256, kTailOuts = 8;
template <int kCols>
inline constexpr int kTailBlockRows = kTailThreads / kCols * kTailOuts;
template <class TOut, int kTileM, int kCols>
__global__ void __launch_bounds__(kTailThreads) sparse24_tail_kernel(const float* __restrict__ partials, TOut* __restrict__ c,
                                                                     int m, int n, int ldc, SplitPlan plan) {
  using S = Shape<kTileM>;
  constexpr int kTileElems = S::kBM * S::kBN, kRowStep = kTailThreads / kCols;
  static_assert(kCols <= S::kBN && kTailThreads % kCols == 0 && S::kBM % kTailBlockRows<kCols> == 0);
  const int r = static_cast<int>(blockIdx.x) / plan.width, col = static_cast<int>(blockIdx.x) % plan.width;
  const int g0 = plan.first_group(r);
  if (plan.covers(plan.begin(g0), plan.begin(g0 + 1), r)) return;
  const int g1 = plan.last_group(r);
  const TileCoord tile = plan.tail_tile(r, col);
  const int cc = static_cast<int>(threadIdx.x) % kCols, n0 = tile.n * S::kBN;
  if (cc >= n - n0) return;
  const int row0 =
      static_cast<int>(blockIdx.y) * kTailBlockRows<kCols> + static_cast<int>(threadIdx.x) / kCols;
  const int rows = m - tile.m * S::kBM;  // the tile's rows inside M
  const auto live = [&](int j) { return row0 + j * kRowStep < rows; };
  // Group g's partials of this position are slot(col, g0, r) + (g - g0): consecutive slots.
  const float* p =
      partials + static_cast<std::int64_t>(plan.slot(col, g0, r)) * kTileElems + row0 * S::kBN + cc;
  float s[kTailOuts];
#pragma unroll
  for (int j = 0; j < kTailOuts; ++j) s[j] = live(j) ? p[j * kRowStep * S::kBN] : 0.0f;
  for (int g = 1; g <= g1 - g0; ++g) {
    const float* q = p + static_cast<std::int64_t>(g) * kTileElems;
#pragma unroll
    for (int j = 0; j < kTailOuts; ++j)
      if (live(j)) s[j] = __fadd_rn(s[j], q[j * kRowStep * S::kBN]);
  }
  TOut* out = c + static_cast<std::int64_t>(tile.m * S::kBM + row0) * ldc + n0 + cc;
#pragma unroll
  for (int j = 0; j < kTailOuts; ++j)
    if (live(j)) out[static_cast<std::int64_t>(j) * kRowStep * ldc] = from_f32<TOut>(s[j]);
}

// The tail kernel's launch for a tile kCols columns wide or narrower.
template <class TOut, int kTileM, int kCols>
void launch_tail(const float* partials, const GemmArgs& g, const SplitPlan& plan, cudaStream_t stream) {
  const int tile_rows = static_cast<int>(std::min<long long>(Shape<kTileM>::kBM, g.m));
  const dim3 grid(static_cast<unsigned>(plan.tail_tiles()),
                  static_cast<unsigned>((tile_rows + kTailBlockRows<kCols> - 1) / kTailBlockRows<kCols>));
  sparse24_tail_kernel<TOut, kTileM, kCols>
      <<<grid, kTailThreads, 0, stream>>>(partials, static_cast<TOut*>(g.c), g.m, g.n, g.ldc, plan);
}

// A launch of `grid` CTAs of the GEMM kernel in clusters of `cluster` along x; `attr` holds the
// cluster's shape and must outlive the configuration's use.
cudaLaunchConfig_t cluster_launch(long long grid, int cluster, int smem_bytes, cudaStream_t stream,
                                  cudaLaunchAttribute& attr) {
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(grid));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

// The launch: one CTA per SM striding over the whole tiles, then the tail groups' segments
// (split_plan), their partials added by sparse24_tail_kernel. kCluster 2 launches clusters of two
// CTAs where the plan allows (SplitPlan::clusters), on as many SMs as hold whole clusters (a GPC
// with an odd number of free SMs leaves one idle), and the single-CTA kernel elsewhere.
template <bool kBf16, class TOut, int kStages, bool kTmaStore, int kTileM, int kCluster>
void launch_wgmma_typed(const GemmArgs& g, cudaStream_t stream) {
  using S = Shape<kTileM>;
  auto kernel = sparse24_wgmma_kernel<kBf16, TOut, kStages, kTmaStore, kTileM, kCluster>;
  constexpr int kSmemBytes = S::smem_bytes(kStages, kTmaStore);
  static_assert(kSmemBytes <= kMaxSmem, "the pipeline fits the shared memory of an H100 CTA");
  const int sms = warpsparse::gpu::device_facts().sms;
  static int cluster_sms = 0;  // SMs that hold whole clusters of kCluster CTAs of this kernel
  static std::once_flag once;
  std::call_once(once, [&] {
    WS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    if constexpr (kCluster > 1) {
      cudaLaunchAttribute attr{};
      const cudaLaunchConfig_t cfg =
          cluster_launch(sms / kCluster * kCluster, kCluster, kSmemBytes, nullptr, attr);
      int clusters = 0;
      WS_CUDA(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
      cluster_sms = std::min(sms / kCluster, clusters) * kCluster;
    }
  });
  // One CTA per SM, each striding over the units.
  const int launch_sms = kCluster > 1 ? cluster_sms : sms;
  const SplitPlan plan = split_plan(g.m, g.n, g.k, S::kBM, S::kBN, g.cols_padded / kBK, launch_sms);
  if constexpr (kCluster > 1) {
    if (launch_sms < kCluster || !plan.clusters(kCluster, launch_sms))
      return launch_wgmma_typed<kBf16, TOut, kStages, kTmaStore, kTileM, 1>(g, stream);
  }
  const CUtensorMap map_a = make_map(g.a_values, g.rows_padded, g.cols_padded / 2, g.cols_padded / 2,
                                     L::kABoxCols, S::kBM / kCluster, tma_swizzle(L::kASwizzle));
  // Rows >= K and columns >= N are outside the tensor: TMA fills them with zeros.
  const CUtensorMap map_b = make_map(g.b, g.k, g.n, g.ldb, L::kBBoxCols, L::kBBoxRows, tma_swizzle(L::kBSwizzle));
  // C as a TMA store target: rows >= M and columns >= N of a box are not written.
  CUtensorMap map_c{};
  if constexpr (kTmaStore) map_c = make_map(g.c, g.m, g.n, g.ldc, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
  const long long tiles = static_cast<long long>((g.m + S::kBM - 1) / S::kBM) * ((g.n + S::kBN - 1) / S::kBN);
  require(tiles <= 0x7fffffff / 2, "sparse24 wgmma: more than 2^30 output tiles");
  const long long grid = plan.grid(launch_sms);
  // The tail partials, this launch's own (stream_scratch.hpp: safe on two streams and in graphs).
  // Sized by slots(), not segments(): slot(col, g, r) = g + r needs no walk over the groups, and
  // leaves at most tail - 1 tiles a position unwritten.
  const warpsparse::gpu::StreamScratch<float> scratch(static_cast<std::size_t>(plan.slots()) * S::kBM * S::kBN, stream);
  float* const partials = scratch.get();
  if constexpr (kCluster > 1) {
    cudaLaunchAttribute attr{};
    const cudaLaunchConfig_t cfg = cluster_launch(grid, kCluster, kSmemBytes, stream, attr);
    WS_CUDA(cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, g.a_meta, static_cast<TOut*>(g.c), partials,
                               g.m, g.n, g.rows_padded, g.ldc, plan));
  } else {
    kernel<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(
        map_a, map_b, map_c, g.a_meta, static_cast<TOut*>(g.c), partials, g.m, g.n, g.rows_padded, g.ldc,
        plan);
  }
  WS_CUDA(cudaGetLastError());
  if (plan.split()) {
    static_assert(S::kBN == 128, "the tail kernel's column widths end at the tile's");
    const int cols = static_cast<int>(std::min<long long>(S::kBN, g.n));
    if (cols <= 16) launch_tail<TOut, kTileM, 16>(partials, g, plan, stream);
    else if (cols <= 32) launch_tail<TOut, kTileM, 32>(partials, g, plan, stream);
    else if (cols <= 64) launch_tail<TOut, kTileM, 64>(partials, g, plan, stream);
    else launch_tail<TOut, kTileM, 128>(partials, g, plan, stream);
    WS_CUDA(cudaGetLastError());
  }
}

// One configuration for both input types and every output type: the TMA-store epilogue is used
// only for 16-bit C with a 16-byte aligned base and row pitch; other outputs run the same tile,
// cluster and stage count with direct stores (the tall store tile's direct-store twin is kHopperTall's
// instantiation).
template <int kStages, bool kTmaStore, int kTileM, int kCluster = 1>
void launch_config(const GemmArgs& g, cudaStream_t stream) {
  const bool bf16 = g.in == Elem::kBf16;
  const bool tma_store = kTmaStore && g.out != Elem::kFp32 && g.ldc % 8 == 0 &&
                         reinterpret_cast<std::uintptr_t>(g.c) % 16 == 0;
  constexpr int kPlainStages = kTmaStore ? 4 : kStages;  // the direct-store twin of a store tile
  if (g.out == Elem::kFp32) {
    bf16 ? launch_wgmma_typed<true, float, kPlainStages, false, kTileM, kCluster>(g, stream)
         : launch_wgmma_typed<false, float, kPlainStages, false, kTileM, kCluster>(g, stream);
  } else if (tma_store) {
    if constexpr (kTmaStore) {
      bf16 ? launch_wgmma_typed<true, __nv_bfloat16, kStages, true, kTileM, kCluster>(g, stream)
           : launch_wgmma_typed<false, __half, kStages, true, kTileM, kCluster>(g, stream);
    }
  } else {
    bf16 ? launch_wgmma_typed<true, __nv_bfloat16, kPlainStages, false, kTileM, kCluster>(g, stream)
         : launch_wgmma_typed<false, __half, kPlainStages, false, kTileM, kCluster>(g, stream);
  }
}

}  // namespace

WgmmaProbe wgmma_layout_probe(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b,
                              const std::vector<std::uint16_t>& e) {
  require(a.size() == static_cast<std::size_t>(kProbeRows) * kProbeACols && b.size() == static_cast<std::size_t>(kProbeK) * kProbeN &&
              e.size() == static_cast<std::size_t>(kProbeRows / kMetaBlockRows) * kMetaBlockHalves,
          "sparse24 wgmma probe: operand sizes");
  const DeviceFacts& d = warpsparse::gpu::device_facts();
  require(d.cc_major == 9 && d.cc_minor == 0, "sparse24 wgmma probe: needs a compute capability 9.0 device");
  const warpsparse::gpu::DeviceBuffer<std::uint16_t> da(a), db(b), de(e);
  warpsparse::gpu::DeviceBuffer<std::uint16_t> dimage(static_cast<std::size_t>(kProbeABytes + kProbeBBytes) / 2);
  warpsparse::gpu::DeviceBuffer<float> dd(static_cast<std::size_t>(kProbeRows) * kProbeN);
  const CUtensorMap map_a = make_map(da.get(), kProbeRows, kProbeACols, kProbeACols, L::kABoxCols, kProbeRows,
                                     tma_swizzle(L::kASwizzle));
  const CUtensorMap map_b = make_map(db.get(), kProbeK, kProbeN, kProbeN, L::kBBoxCols, L::kBBoxRows, tma_swizzle(L::kBSwizzle));
  WS_CUDA(cudaFuncSetAttribute(wgmma_layout_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kProbeSmem));
  wgmma_layout_probe_kernel<<<1, 128, kProbeSmem>>>(map_a, map_b, de.get(), dimage.get(), dd.get());
  WS_CUDA(cudaGetLastError());
  WS_CUDA(cudaDeviceSynchronize());
  return WgmmaProbe{dimage.download(), dd.download()};
}


void launch_gemm_wgmma(const GemmArgs& g, cudaStream_t stream) {
  if (g.k == 0) {
    // TMA cannot describe an empty B; the product is zero.
    require(false, "sparse24 wgmma: K = 0 is not supported by the Hopper kernel");
  }
  switch (g.tile) {
    case Tile::kHopperTall: return launch_config<4, false, kTallRows>(g, stream);
    case Tile::kHopperTallStore: return launch_config<4, true, kTallRows>(g, stream);
    case Tile::kHopperTallPair:
      return launch_config<4, true, kTallRows, 2>(g, stream);
    case Tile::kHopperSquareStore: return launch_config<4, true, kSquareRows>(g, stream);
    default: require(false, "sparse24 wgmma: " + to_string(g.tile) + " is not a wgmma.sp tile");
  }
}

}  // namespace warpsparse::sparse24::gpu
