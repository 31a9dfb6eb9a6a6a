// Host side of the MACKO SpMV kernels: upload, schedule dispatch, launches.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>

#include "kernels/macko_spmv.cuh"
#include "kernels/macko_spmv.hpp"

namespace warpsparse::gpu {

namespace {

template <class H> struct DeviceType;
template <> struct DeviceType<half> { using type = __half; };
template <> struct DeviceType<bfloat16> { using type = __nv_bfloat16; };
template <> struct DeviceType<float> { using type = float; };
template <class H> using device_t = typename DeviceType<H>::type;

// Compiled schedule variants. Every delta width gets the default; 4-bit deltas, the tuned path,
// get the sweep. Kept short: each is eight kernels to build (four value/output type pairs x
// 32/64-bit row pointers). One list (Compiled, below) drives both the dispatch and the error message.
//
// The compiled part of a schedule (launch parameters, warps per block and blocks per SM, left out):
// compared on every launch, named in the error message.
bool same_compiled(const macko::Schedule& a, const macko::Schedule& b) {
  return a.delta_bits == b.delta_bits && a.lane_accumulators == b.lane_accumulators &&
         a.unroll_blocks == b.unroll_blocks && a.prefetch == b.prefetch && a.lane_elems == b.lane_elems &&
         a.row_splits == b.row_splits && a.x_shared == b.x_shared && a.batch == b.batch && a.row_lanes == b.row_lanes &&
         (a.batch > 1 || a.x_swizzle == b.x_swizzle);  // batches always swizzle x in shared memory
}
std::string compiled_name(const macko::Schedule& s) {
  return "db=" + std::to_string(s.delta_bits) + "/acc=" + std::to_string(s.lane_accumulators) +
         "/unroll=" + std::to_string(s.unroll_blocks) + (s.prefetch ? "/prefetch" : "") +
         "/lane_elems=" + std::to_string(s.lane_elems) + "/row_splits=" + std::to_string(s.row_splits) +
         (s.x_shared ? "/x_shared" : "") + (s.x_swizzle ? "/x_swizzle" : "") +
         (s.batch > 1 ? "/batch=" + std::to_string(s.batch) : "") +
         (s.row_lanes != macko::kWarpLanes ? "/row_lanes=" + std::to_string(s.row_lanes) : "");
}

template <int DB, int ACC, int UNROLL, bool PF, int E = macko::kElemsPerLane, int SPLITS = 1, bool XS = false,
          int NB = 1, bool SWZ = false, int RL = macko::kWarpLanes>
struct Variant {
  static constexpr int kDb = DB, kAcc = ACC, kUnroll = UNROLL, kLaneElems = E, kSplits = SPLITS, kBatch = NB,
                       kRowLanes = RL;
  static constexpr bool kPrefetch = PF, kXShared = XS, kXSwizzle = SWZ;
  // The kernel's own compile-time schedule (its launch parameters are placeholders).
  static constexpr macko::Schedule schedule() {
    return detail::KernelConfig<DB, ACC, UNROLL, false, PF, E, SPLITS, XS, NB, SWZ, RL>::kSched;
  }
  static bool matches(const macko::Schedule& s) { return same_compiled(s, schedule()); }
  static std::string name() { return compiled_name(schedule()); }
};
// Measured on the H100 (kernels/NOTES.md): 4 elements per lane wins only at d <= 0.1 and 2 never,
// so only the 4-element default of low densities is built beside the 8-element sweep. Rows split
// over 2 warps (Schedule::row_splits) are built for the default schedule only, which takes them
// for wide matrices (default_schedule); 4 splits lost by 10-60 % (kernels/NOTES.md, run 6). x in
// shared memory with 2 splits (8 warps per block) serves the x_shared matrices whose last round of
// rows is short (default_schedule; runs 44-45). The same three x_shared kernels are built with x
// swizzled (Schedule::x_swizzle, for N:M-pruned matrices; runs 59-60).
// Two rows per warp (Schedule::row_lanes = 16; 8 or 4 elements per lane, x through L1 or in shared
// memory) for short rows. Batches of 2, 4 and 8 vectors (4-bit deltas): the default's loads with x
// through L1 (8, 4 and 2 elements per lane; split rows) and in shared memory (kernels/NOTES.md,
// "Batched MACKO").
template <int NB>
using BatchVariants =
    std::tuple<Variant<4, 1, 2, true, 8, 1, false, NB>, Variant<4, 1, 2, true, 4, 1, false, NB>,
               Variant<4, 1, 2, true, 2, 1, false, NB>, Variant<4, 1, 2, true, 8, 2, false, NB>,
               Variant<4, 1, 2, true, 8, 1, true, NB>, Variant<4, 1, 2, true, 4, 1, true, NB>,
               Variant<4, 1, 2, true, 2, 1, true, NB>>;
using Compiled = decltype(std::tuple_cat(
    std::tuple<Variant<4, 1, 1, false>, Variant<4, 1, 2, false>, Variant<4, 2, 2, false>, Variant<4, 1, 1, true>,
               Variant<4, 2, 1, true>, Variant<4, 1, 2, true>, Variant<4, 2, 2, true>, Variant<4, 1, 2, true, 4>,
               Variant<1, 1, 2, true>, Variant<2, 1, 2, true>, Variant<8, 1, 2, true>, Variant<4, 1, 2, true, 8, 2>,
               Variant<4, 1, 2, true, 8, 1, true>, Variant<4, 1, 2, true, 4, 1, true>,
               Variant<4, 1, 2, true, 8, 2, true>, Variant<4, 1, 2, true, 8, 1, true, 1, true>,
               Variant<4, 1, 2, true, 4, 1, true, 1, true>, Variant<4, 1, 2, true, 8, 2, true, 1, true>,
               Variant<4, 1, 2, true, 8, 1, false, 1, false, 16>, Variant<4, 1, 2, true, 4, 1, false, 1, false, 16>,
               Variant<4, 1, 2, true, 8, 1, true, 1, false, 16>, Variant<4, 1, 2, true, 4, 1, true, 1, false, 16>>{},
    BatchVariants<2>{}, BatchVariants<4>{}, BatchVariants<8>{}));

// Bytes of shared memory x takes (16-byte words: the block copies it with 16-byte cp.async).
constexpr std::size_t x_smem_bytes(std::int64_t cols, std::size_t elem_bytes) {
  return static_cast<std::size_t>((cols * static_cast<std::int64_t>(elem_bytes) + 15) / 16 * 16);
}

// Shared memory for x_shared launches: the dynamic size a block may ask for (the opt-in maximum less
// the kernel's static shared memory: the split kernels hold an array for the parts of their rows),
// to which the kernel's limit is raised, and the blocks of `threads` threads with `smem` bytes of x
// that fit on one SM (0 when x does not fit).
struct XsFit {
  std::size_t dyn_max = 0;
  int resident = 0;
};
template <class K>
XsFit xs_fit(K kernel, int dev, int threads, std::size_t smem) {
  int optin = 0;
  WS_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  cudaFuncAttributes fa{};
  WS_CUDA(cudaFuncGetAttributes(&fa, kernel));
  XsFit fit;
  fit.dyn_max = static_cast<std::size_t>(optin) - std::min<std::size_t>(fa.sharedSizeBytes, static_cast<std::size_t>(optin));
  if (smem > fit.dyn_max) return fit;
  WS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(fit.dyn_max)));
  WS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.resident, kernel, threads, smem));
  return fit;
}

template <class V, class TD, class TYD>
void launch_variant(bool wide, const TD* v, const std::uint8_t* d, const void* p, const TD* x, TYD* y,
                    std::int64_t rows, std::int64_t cols, float alpha, float beta, const std::int32_t* split_bases,
                    int wpb, int blocks_per_sm, cudaStream_t st) {
  using Narrow = detail::KernelConfig<V::kDb, V::kAcc, V::kUnroll, false, V::kPrefetch, V::kLaneElems, V::kSplits,
                                      V::kXShared, V::kBatch, V::kXSwizzle, V::kRowLanes>;
  using Wide = detail::KernelConfig<V::kDb, V::kAcc, V::kUnroll, true, V::kPrefetch, V::kLaneElems, V::kSplits,
                                    V::kXShared, V::kBatch, V::kXSwizzle, V::kRowLanes>;
  auto kernel = [&] {
    if constexpr (V::kXShared)
      return wide ? detail::macko_spmv_xs_kernel<Wide, TD, TYD> : detail::macko_spmv_xs_kernel<Narrow, TD, TYD>;
    else
      return wide ? detail::macko_spmv_kernel<Wide, TD, TYD> : detail::macko_spmv_kernel<Narrow, TD, TYD>;
  }();
  // Schedule::valid: the split count divides wpb.
  const int rows_per_block = wpb / V::kSplits * V::schedule().rows_per_warp();
  const int threads = 32 * wpb;
  std::int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  std::int64_t cap = blocks;  // at most this many blocks: the resident ones on a persistent grid
  std::size_t smem = 0;
  int dev = 0, sms = 0;
  if (blocks_per_sm > 0 || V::kXShared) {
    WS_CUDA(cudaGetDevice(&dev));
    WS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  }
  if constexpr (V::kXShared) {
    // x in shared memory: every block copies it, so the grid is persistent (the resident blocks).
    smem = x_smem_bytes(macko::x_shared_elems(cols, V::kBatch), sizeof(TD));
    // The shared-memory limit and the occupancy depend on the kernel, device, block size and x
    // size only: looked up once per launch shape, not on every call. The kernel's dynamic
    // shared-memory ceiling is raised to the most any x may take (xs_fit), so it never shrinks under
    // a launch of another thread.
    struct Shape {
      const void* kernel = nullptr;
      int dev = -1, threads = 0, resident = 0;
      std::size_t smem = 0;
    };
    thread_local Shape last;
    const auto* kptr = reinterpret_cast<const void*>(kernel);
    if (last.kernel != kptr || last.dev != dev || last.threads != threads || last.smem != smem) {
      const XsFit fit = xs_fit(kernel, dev, threads, smem);
      require(smem <= fit.dyn_max,
              "MACKO schedule x_shared: x needs " + std::to_string(smem) + " bytes of shared memory (" +
                  std::to_string(cols) + " columns x batch " + std::to_string(V::kBatch) + "), the device allows " +
                  std::to_string(fit.dyn_max) + " per block");
      require(fit.resident > 0, "MACKO schedule x_shared: no block of " + std::to_string(threads) + " threads fits");
      last = Shape{kptr, dev, threads, fit.resident, smem};
    }
    cap = std::int64_t{sms} * last.resident;
  }
  if (blocks_per_sm > 0)  // persistent grid: warps stride over the rows
    cap = std::min<std::int64_t>(cap, std::int64_t{sms} * blocks_per_sm);
  // A persistent grid works through the rows in rounds; with the most blocks that fit, the last
  // round can be nearly empty. balanced_blocks launches the fewest blocks that need as many rounds.
  // H100, runs 94 and 96 (kernels/NOTES.md): against the most blocks, over the 15 big Appendix D
  // shapes, +0.8 % on average at d = 0.5 / 0.3 (up to +3.8 %, 28672x7168 at d = 0.5; at worst
  // -0.5 %), +0.5 % at d = 1.0 / 0.1 (-3.8 % on 28672x8192 at d = 0.1, +2.9 % on 7168x28672), +0.3 %
  // on batches. The bits do not change: a row's warp does the same work whichever warp it is.
  blocks = macko::balanced_blocks(blocks, cap);
  blocks = std::min<std::int64_t>(blocks, 0x7fffffff);  // more rows than that: the warps stride
  kernel<<<dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(threads)), smem, st>>>(
      v, d, p, x, y, rows, cols, alpha, beta, split_bases);
}

std::string variant_list() {
  std::string s;
  std::apply([&](auto... v) { ((s += (s.empty() ? "" : ", ") + decltype(v)::name()), ...); }, Compiled{});
  return s;
}

}  // namespace

namespace {
// Blocks of `wpb` warps of the 8-element fp16 x_shared kernel that fit one SM (registers and shared
// memory), and the SMs; {0, 0} when no device answers.
struct XsResident {
  std::int64_t per_sm = 0, sms = 0;
};
XsResident x_shared_resident(std::int64_t cols, int wpb) {
  const auto kernel = detail::macko_spmv_xs_kernel<detail::KernelConfig<4, 1, 2, false, true, macko::kElemsPerLane, 1, true>,
                                                   __half, __half>;
  try {
    int dev = 0, sms = 0;
    WS_CUDA(cudaGetDevice(&dev));
    WS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const XsFit fit = xs_fit(kernel, dev, 32 * wpb, x_smem_bytes(macko::x_shared_elems(cols, 1), sizeof(__half)));
    return {fit.resident, sms};
  } catch (const Error&) {
    return {};  // no device answers
  }
}
}  // namespace

std::int64_t x_shared_resident_rows(std::int64_t cols, int wpb) {
  const XsResident r = x_shared_resident(cols, wpb);
  return r.per_sm * r.sms * wpb;
}

int x_shared_tall_warps_per_block(std::int64_t rows, std::int64_t cols) {
  const XsResident small = x_shared_resident(cols, 4), large = x_shared_resident(cols, kXSharedTallLargeBlockWarps);
  const std::int64_t busiest_small = macko::busiest_sm_units(rows, 4, small.per_sm, small.sms);
  const std::int64_t busiest_large = macko::busiest_sm_units(rows, kXSharedTallLargeBlockWarps, large.per_sm, large.sms);
  return busiest_small > 0 && busiest_large > 0 && busiest_large <= busiest_small ? kXSharedTallLargeBlockWarps : 4;
}

// Batches (Schedule::batch > 1, 4-bit deltas). H100, run 53 (kernels/NOTES.md, "Batched MACKO"):
// 12288^2 and 28672x8192 at d = 1.0 / 0.5 / 0.1, batches 2 / 4 / 8, every combination of 8 / 4 / 2
// elements per lane, x through L1 or in shared memory, 4- or 16-warp blocks.
// - x in shared memory (swizzled packs) on 16-warp blocks, tall or wide, while two blocks fit (cols x
//   batch <= kXSharedDefaultMaxCols values): fastest, or within 0.5 %, in all 12 cases at batches 2
//   and 4, and up to 2.3x faster than x through L1 at d = 1 (dense gathers hit 32 L1 lines, but
//   distinct banks of the swizzled copy).
// - Batch 8: in shared memory only on dense-ish rows (d >= kBatchDenseDensity) and while x fits one
//   block (kXSharedBatchMaxBytes): 1.6-3x faster there at d = 1, but 2-17 % slower at d <= 0.5.
// - Otherwise x through L1 with 4-warp blocks; on dense-ish rows with batches of 4 or 8 the lanes
//   take 4 elements each, which halves the L1 lines one gather touches (1.3-1.8x faster at d = 1,
//   2-8 % slower at d = 0.5). Wide matrices (cols >= 3 rows) split rows over two warps as at batch 1
//   up to batch 4 (run 55, 8192x28672: 1-5 % faster at d = 0.5, a tie at 0.1), not at batch 8,
//   where the split kernel (70 registers) is 25 % (d = 0.5) to 65 % (d = 0.1) slower.
// 8 elements per lane elsewhere: 4 and 2 won no case with x in shared memory, nor through L1 at d <= 0.5.
// s: default_schedule's common fields (the batch-1 loads, 4-warp blocks).
static macko::Schedule default_batch_schedule(macko::Schedule s, double density, std::int64_t rows, std::int64_t cols) {
  const int batch = s.batch;
  if (s.delta_bits != 4 || rows <= 0) return s;
  const bool dense_rows = density >= kBatchDenseDensity;
  const std::int64_t x_bytes = macko::x_shared_elems(cols, batch) * 2;
  if ((batch <= 4 && cols * batch <= kXSharedDefaultMaxCols) ||
      (batch == 8 && dense_rows && x_bytes <= kXSharedBatchMaxBytes)) {
    s.warps_per_block = 16;
    s.x_shared = true;
    return s;
  }
  if (dense_rows && batch >= 4) {
    s.lane_elems = 4;
  } else if (cols >= 3 * rows && batch <= 4) {
    s.warps_per_block = 8;
    s.row_splits = 2;
  }
  return s;
}

macko::Schedule default_schedule(int delta_bits, double density, std::int64_t rows, std::int64_t cols, int batch) {
  macko::Schedule s;
  s.delta_bits = delta_bits;
  s.batch = batch;
  s.warps_per_block = 4;
  s.unroll_blocks = 2;
  s.lane_accumulators = 1;
  s.prefetch = true;  // measured best on the H200 for 4-bit deltas (kernels/NOTES.md)
  if (batch != 1) return default_batch_schedule(s, density, rows, cols);
  // Short rows on tall matrices: two rows per warp (Schedule::row_lanes = 16), each half a 16-lane
  // warp with 8 elements per lane (the 128-element step of 4 elements on 32 lanes, at twice the
  // bytes per load instruction), x in shared memory, 4-warp blocks. H100, run 81 (the 31 Appendix D
  // shapes at d = 0.2, 0.15, 0.1, 0.07, 0.05; sixteen schedules: x through L1 or in shared memory,
  // 4 or 8 elements per lane, 4- or 16-warp blocks, 32 or 16 lanes per row): on the 44 cases of tall
  // shapes of <= kXSharedTallMaxCols columns whose rows hold <= kTwoRowsMaxNnz nonzeros it is 0.4-11 %
  // faster than the rules below (mean 6.7 %; 32000x5120 at d = 0.1: 30.6 -> 28.2 us), except 27648x9216
  // at d = 0.07 (1.3 % slower); out of sample (run 82, d = 0.12 / 0.08 / 0.03) -2.6 to +14 %, mean
  // +8.9 % on the 33 cases it changes. Above ~800 nonzeros per row it loses up to 7 % on the
  // 7168-9216-column shapes, and at d >= 0.3 0.5-15 % on every tall shape (run 80). Square and wide
  // matrices keep one warp per row: two rows per warp cost up to 29 % on 9216^2, 12288^2 and the wide
  // shapes (5120^2-8192^2 gained 2-15 %; the line is not the rows' length, so no rule was made).
  if (delta_bits == 4 && rows > cols && cols <= kXSharedTallMaxCols &&
      density * static_cast<double>(cols) <= kTwoRowsMaxNnz) {
    s.x_shared = true;
    s.row_lanes = 16;
    s.warps_per_block = x_shared_warps_per_block(rows, cols);
    return s;
  }
  // H100, 2026-11-23: 4 elements per lane is 2-3% faster at d = 0.1 on all four quick shapes and
  // 8-15% slower at d >= 0.3 (kernels/NOTES.md). Run 72d corrected this for x in shared memory on
  // wide matrices (below).
  const bool low_density = delta_bits == 4 && density <= kLowDensity;
  if (low_density) s.lane_elems = 4;
  // Low density (run 72d: the 31 Appendix D shapes at d = 0.1 and 0.05, 32-bit offsets, x through
  // L1 or in shared memory, 4 or 8 elements per lane, 4- or 16-warp blocks): on every shape of
  // >= kXSharedLowMinCols columns the schedule below is the fastest of the eight, or within 2.5 % of
  // it. Against the rules that follow it is 3.8-17.5 % faster at d = 0.1 on the 15 such shapes it
  // changes (tall ones took x through L1: 28672x8192 39.1 -> 34.7 us; wide ones 4 elements per lane:
  // 8192x28672 40.9 -> 33.8 us), and at d = 0.05 up to 15.7 % faster, 1 % slower on 4096x14336.
  // Long rows take 8 elements per lane (tall matrices, and wide ones with cols >= 3 rows); square-ish
  // ones keep 4 (12288^2: 25.5 against 26.0 us). Blocks of 16 warps, of 4 on tall matrices of <=
  // kXSharedTallMaxCols columns. Narrower matrices keep the rules below: there no schedule won on
  // every shape (tall ones of 3584-5120 columns: x in shared memory won up to 11 % on 11008-14336
  // rows and lost up to 9 % on 32000).
  if (low_density && rows > 0 && cols >= kXSharedLowMinCols && cols <= kXSharedDefaultMaxCols) {
    s.x_shared = true;
    s.warps_per_block = x_shared_warps_per_block(rows, cols);
    if (rows > cols || cols >= 3 * rows) s.lane_elems = macko::kElemsPerLane;
    return s;
  }
  // x in shared memory on a persistent grid, up to the widest x measured (kXSharedDefaultMaxCols
  // columns, 96 KiB: two blocks per SM): where cols >= rows, and on tall matrices with 8 elements per
  // lane; 4-warp blocks on tall matrices of at most kXSharedTallMaxCols columns, 16-warp blocks
  // otherwise (x_shared_warps_per_block).
  // - cols >= rows (H100, run 34: the 15 Appendix D shapes with rows x cols >= 12288^2 at d = 0.5 /
  //   0.3 / 0.1, against x through L1): faster in 15 of 18 cases, by 10 % on 12288^2 and 12-23 % on
  //   the wide shapes at d = 0.1, and at most 4.4 % slower (9216x36864, d = 0.5).
  // - Tall matrices: run 34 found x in shared memory slower in 17 of 27 tall cases (up to 10 %,
  //   32000x5120). Since x's copy overlaps each warp's first loads (485d29d), with 4-warp blocks it
  //   beats x through L1 on the 8 tall Appendix D shapes of 7168-9216 columns at d = 0.5 (2-6 %) and
  //   0.3 (1-4 %), and loses where rows are short: 32000x5120 at d = 0.3 (+4 %, 1536 nonzeros per
  //   row) and every tall shape at d = 0.1 (4 elements per lane). 16-warp blocks lose to 4 there, and
  //   at 12288 columns 4-warp blocks lose 8-10 % (run 41). Run 43: 0.5-4 % faster at d = 1.0 / 0.7 on
  //   those shapes, 2-15 % on the 3584-5120-column ones. Run 76: at d = 0.2 0.9-7 % faster on all
  //   six tall shapes of 7168-9216 columns, so from kXSharedLowMinCols columns on it holds at every
  //   density. Narrower tall matrices then kept a test of >= 2048 nonzeros per row (x in shared
  //   memory lost 0.2-1.4 % on 32000 rows). Since balanced rounds (launch_variant) that test is gone:
  //   on the seven tall Appendix D shapes of 3584-5120 columns at d = 0.2 ... 0.5 (run 103, 717-2560
  //   nonzeros per row) x in shared memory is faster in 40 of 42 cases (+0.4 to +14.5 %; 32000x5120
  //   at d = 0.3 54.3 -> 53.7 us) and 0.3 / 0.9 % slower on 32000x4096 at d = 0.2 / 0.25. Shorter
  //   rows take the two-rows rule above.
  // - Tall matrices above kXSharedTallMaxCols columns: run 77 found x through L1 still 0.8-1.6 %
  //   faster at d = 0.7 / 1.0 on 12288 columns; with balanced rounds (run 106, same run) x in shared
  //   memory on 16-warp blocks is faster at every density measured: 36864x12288 +1.5 / +1.1 / +1.5 /
  //   +3.4 % and 49152x12288 +2.3 / +1.0 / +1.4 / +2.0 % at d = 1.0 / 0.7 / 0.5 / 0.3 (4-warp blocks
  //   lose 4-10 %).
  if (delta_bits == 4 && rows > 0 && cols <= kXSharedDefaultMaxCols &&
      (cols >= rows || s.lane_elems == macko::kElemsPerLane)) {
    s.x_shared = true;
    s.warps_per_block = x_shared_warps_per_block(rows, cols);
    // Tall matrices of kXSharedLowMinCols to kXSharedTallMaxCols columns above kLowDensity: 12-warp
    // blocks where they give the busiest SM no more rows than 4-warp blocks
    // (x_shared_tall_warps_per_block).
    if (s.warps_per_block == 4 && !low_density && cols >= kXSharedLowMinCols)
      s.warps_per_block = x_shared_tall_warps_per_block(rows, cols);
    // Where cols >= rows: the persistent grid works through the rows in rounds of the rows it holds
    // at once. When the last round is less than kXSharedSplitTail full, most warps idle for a long
    // row's time at the end; rows split over two warps halve that unit, which pays while each half
    // keeps kXSharedMinWarpNnz nonzeros. H100, runs 44-45 (8-warp blocks): the four Appendix D shapes
    // with such a tail (9216x36864, 9216^2, 5120^2, 5120x13824: 1.2-2.2 rounds) gain 2.5-8 % where
    // half rows hold >= 2560 nonzeros, tie at 2074-2304 and lose 4-9 % at 768-1382; shapes with a
    // fuller last round (7168^2, 12288^2) lose with splits. The blocks stay at 16 warps (8 rows):
    // both sizes hold 32 warps per SM by registers, but 16-warp blocks copy x half as often, and x of
    // 36864 columns (72 KiB) fits only three 8-warp blocks (24 warps). Run 106, same run, d = 1.0 /
    // 0.5 / 0.3: 9216x36864 +0.6 / +3.9 / +3.8 %, 5120x13824 +2.5 / +2.9 / +2.9 %, 9216^2 and 5120^2
    // +1.4 to +2.3 % at d = 1.0 / 0.5 (where they split); at d = 0.3, where they do not, -0.5 %.
    if (cols >= rows && s.lane_elems == macko::kElemsPerLane &&
        density * static_cast<double>(cols) >= 2 * kXSharedMinWarpNnz) {
      const std::int64_t held = x_shared_resident_rows(cols, s.warps_per_block);
      if (held > 0 && rows > held) {
        const double rounds = static_cast<double>(rows) / static_cast<double>(held);
        const double tail = rounds - std::floor(rounds);
        if (tail > 0 && tail < kXSharedSplitTail) s.row_splits = 2;
      }
    }
    return s;
  }
  // Wide matrices have few, long rows: the grid's last round of one-row warps runs part empty for
  // a whole (long) row's time. Two warps per row (8 per block) shorten that: 5-8 % faster on
  // 7168x28672, 8192x29568 and 12288x49152 at d = 0.5 / 0.3 / 1.0, a tie on 9216x36864, slower on
  // the tall shapes (H100, runs 6 and 15, kernels/NOTES.md). Built for 8 elements per lane only.
  // Since run 34 it serves only the wide matrices whose x is wider than the rule above allows.
  if (delta_bits == 4 && s.lane_elems == macko::kElemsPerLane && rows > 0 && cols >= 3 * rows) {
    s.warps_per_block = 8;
    s.row_splits = 2;
  }
  return s;
}

bool is_compiled(const macko::Schedule& s) {
  return s.valid() && std::apply([&](auto... v) { return (decltype(v)::matches(s) || ...); }, Compiled{});
}

template <class T>
DeviceMacko<T> upload_macko(const Macko<T>& a, std::int64_t narrow_max_elements) {
  require(narrow_max_elements <= kNarrowMaxElements,
          "narrow_max_elements " + std::to_string(narrow_max_elements) + " exceeds what the narrow kernels address (" +
              std::to_string(kNarrowMaxElements) + ")");
  a.validate();  // every decoded column < cols: the kernel reads x without bounds checks
  DeviceMacko<T> d;
  d.rows = a.rows;
  d.cols = a.cols;
  d.nnz = a.nnz;
  d.emitted = a.emitted();
  d.delta_bits = a.delta_bits;
  d.wide = a.row_ptr.wide || a.padded_length() > narrow_max_elements;
  const std::vector<std::int32_t> split_bases = macko_split_bases(a);  // for Schedule::row_splits > 1
  const std::uint64_t widened = d.wide && !a.row_ptr.wide ? a.row_ptr.narrow.size() * 4 : 0;
  const std::uint64_t need = a.storage_bytes() + split_bases.size() * sizeof(std::int32_t) + widened;
  std::size_t free_b = 0, total_b = 0;
  WS_CUDA(cudaMemGetInfo(&free_b, &total_b));
  require(need <= free_b, "MACKO matrix needs " + std::to_string(need) + " bytes on the device, only " +
                              std::to_string(free_b) + " are free");
  d.values = DeviceBuffer<T>(a.values);
  d.deltas = DeviceBuffer<std::uint8_t>(a.deltas);
  d.split_bases = DeviceBuffer<std::int32_t>(split_bases);
  if (a.row_ptr.wide) d.row_ptr64 = DeviceBuffer<std::uint64_t>(a.row_ptr.wide_ptr);
  else if (d.wide) d.row_ptr64 = DeviceBuffer<std::uint64_t>(std::vector<std::uint64_t>(a.row_ptr.narrow.begin(), a.row_ptr.narrow.end()));
  else d.row_ptr32 = DeviceBuffer<std::uint32_t>(a.row_ptr.narrow);
  return d;
}

template <class T, class TY>
void macko_spmv(const DeviceMacko<T>& a, const T* x, TY* y, float alpha, float beta,
                const macko::Schedule& s, cudaStream_t stream) {
  require(s.valid(), "invalid MACKO schedule");
  require(s.delta_bits == a.delta_bits, "schedule delta bits " + std::to_string(s.delta_bits) +
                                            " differ from the matrix's " + std::to_string(a.delta_bits));
  if (a.rows == 0) return;
  require(reinterpret_cast<std::uintptr_t>(x) % (sizeof(T) * static_cast<std::size_t>(s.batch)) == 0,
          "MACKO batch " + std::to_string(s.batch) + ": x must be aligned to " +
              std::to_string(sizeof(T) * static_cast<std::size_t>(s.batch)) + " bytes (one column's values are one vector load)");
  using TD = device_t<T>;
  using TYD = device_t<TY>;
  const auto* v = reinterpret_cast<const TD*>(a.values.get());
  const auto* xd = reinterpret_cast<const TD*>(x);
  auto* yd = reinterpret_cast<TYD*>(y);
  const void* p = a.wide ? static_cast<const void*>(a.row_ptr64.get()) : static_cast<const void*>(a.row_ptr32.get());
  const std::uint8_t* d = a.deltas.get();
  bool launched = false;
  std::apply(
      [&](auto... vars) {
        auto one = [&](auto var) {
          using V = decltype(var);
          if (launched || !V::matches(s)) return;
          launch_variant<V>(a.wide, v, d, p, xd, yd, a.rows, a.cols, alpha, beta, a.split_bases.get(),
                            s.warps_per_block, s.blocks_per_sm, stream);
          launched = true;
        };
        (one(vars), ...);
      },
      Compiled{});
  require(launched, "schedule " + compiled_name(s) + " is not compiled; compiled: " + variant_list());
  WS_CUDA(cudaGetLastError());
}

#ifdef WS_MACKO_TRACE
void set_macko_row_trace(RowTrace* trace) { WS_CUDA(cudaMemcpyToSymbol(detail::g_row_trace, &trace, sizeof trace)); }
#endif

template DeviceMacko<half> upload_macko<half>(const Macko<half>&, std::int64_t);
template DeviceMacko<bfloat16> upload_macko<bfloat16>(const Macko<bfloat16>&, std::int64_t);
template void macko_spmv<half, half>(const DeviceMacko<half>&, const half*, half*, float, float, const macko::Schedule&, cudaStream_t);
template void macko_spmv<half, float>(const DeviceMacko<half>&, const half*, float*, float, float, const macko::Schedule&, cudaStream_t);
template void macko_spmv<bfloat16, bfloat16>(const DeviceMacko<bfloat16>&, const bfloat16*, bfloat16*, float, float, const macko::Schedule&, cudaStream_t);
template void macko_spmv<bfloat16, float>(const DeviceMacko<bfloat16>&, const bfloat16*, float*, float, float, const macko::Schedule&, cudaStream_t);

}  // namespace warpsparse::gpu
