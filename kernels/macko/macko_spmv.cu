// Host side of the MACKO SpMV kernels: upload, dispatch over the compiled variants, launches.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "kernels/common/device_facts.hpp"
#include "kernels/common/stream_scratch.hpp"
#include "kernels/macko/macko_spmv.cuh"
#include "kernels/macko/macko_spmv.hpp"

namespace warpsparse::gpu {

namespace {

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
  const auto optin = static_cast<std::size_t>(warpsparse::gpu::device_facts(dev).smem_per_block_optin);
  cudaFuncAttributes fa{};
  WS_CUDA(cudaFuncGetAttributes(&fa, kernel));
  XsFit fit;
  fit.dyn_max = optin - std::min<std::size_t>(fa.sharedSizeBytes, optin);
  if (smem > fit.dyn_max) return fit;
  WS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(fit.dyn_max)));
  WS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.resident, kernel, threads, smem));
  return fit;
}

// The arguments of one launch, whichever variant runs it.
template <class TD, class TYD>
struct LaunchArgs {
  bool wide;
  const TD* values;
  const std::uint8_t* deltas;
  const void* row_ptr;
  const TD* x;
  TYD* y;
  std::int64_t rows, cols;
  float alpha, beta;
  const std::int32_t* split_bases;
  detail::GridSplit grid;
  int warps_per_block, blocks_per_sm;
  cudaStream_t stream;
};

// Launches compiled variant I (a row of macko::kCompiledVariants) for DB-bit deltas.
template <int I, int DB, class TD, class TYD>
void launch_variant(const LaunchArgs<TD, TYD>& g) {
  using Narrow = detail::KernelConfig<I, DB, false>;
  using Wide = detail::KernelConfig<I, DB, true>;
  constexpr macko::Schedule kS = Narrow::kSched;
  auto kernel = [&] {
    if constexpr (Narrow::kXShared)
      return g.wide ? detail::macko_spmv_xs_kernel<Wide, TD, TYD> : detail::macko_spmv_xs_kernel<Narrow, TD, TYD>;
    else
      return g.wide ? detail::macko_spmv_kernel<Wide, TD, TYD> : detail::macko_spmv_kernel<Narrow, TD, TYD>;
  }();
  const int wpb = g.warps_per_block, blocks_per_sm = g.blocks_per_sm;
  const std::int64_t rows = g.rows, cols = g.cols;
  // Schedule::valid: the split count divides wpb.
  const int rows_per_block = wpb / kS.row_splits * kS.rows_per_warp();
  const int threads = 32 * wpb;
  const std::int64_t units = rows * g.grid.parts;  // grid splits: one warp per part of a row
  std::int64_t blocks = (units + rows_per_block - 1) / rows_per_block;
  std::int64_t cap = blocks;  // at most this many blocks: the resident ones on a persistent grid
  std::size_t smem = 0;
  int dev = 0, sms = 0;
  if (blocks_per_sm > 0 || kS.x_shared) {
    WS_CUDA(cudaGetDevice(&dev));
    sms = warpsparse::gpu::device_facts(dev).sms;
  }
  if constexpr (kS.x_shared) {
    // x in shared memory: every block copies it, so the grid is persistent (the resident blocks).
    smem = static_cast<std::size_t>(macko::x_shared_bytes(cols, kS.batch, sizeof(TD)));
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
                  std::to_string(cols) + " columns x batch " + std::to_string(kS.batch) + "), the device allows " +
                  std::to_string(fit.dyn_max) + " per block");
      require(fit.resident > 0, "MACKO schedule x_shared: no block of " + std::to_string(threads) + " threads fits");
      last = Shape{kptr, dev, threads, fit.resident, smem};
    }
    cap = std::int64_t{sms} * last.resident;
  }
  if (blocks_per_sm > 0)  // persistent grid: warps stride over the rows
    cap = std::min<std::int64_t>(cap, std::int64_t{sms} * blocks_per_sm);
  // A persistent grid works through the rows in rounds; with the most blocks that fit, the last
  // round can be nearly empty. balanced_blocks launches the fewest blocks that need as many rounds,
  // so every warp gets the same number of rows, one less at most (docs/macko-schedule.md has the
  // measurement). The bits do not change: a row's warp does the same work whichever warp it is.
  blocks = macko::balanced_blocks(blocks, cap);
  blocks = std::min<std::int64_t>(blocks, 0x7fffffff);  // more rows than that: the warps stride
  const dim3 grid(static_cast<unsigned>(blocks)), block(static_cast<unsigned>(threads));
  if constexpr (kS.x_shared)
    kernel<<<grid, block, smem, g.stream>>>(g.values, g.deltas, g.row_ptr, g.x, g.y, rows, cols, g.alpha, g.beta,
                                           g.split_bases);
  else
    kernel<<<grid, block, smem, g.stream>>>(g.values, g.deltas, g.row_ptr, g.x, g.y, rows, cols, g.alpha, g.beta,
                                           g.split_bases, g.grid);
}

// One launcher per compiled variant and delta width (nullptr where that width is not built):
// launchers<TD, TYD>()[variant][log2(delta bits)].
template <class TD, class TYD>
using Launcher = void (*)(const LaunchArgs<TD, TYD>&);
template <class TD, class TYD, int I, int DB>
constexpr Launcher<TD, TYD> launcher_if_built() {
  if constexpr ((macko::kCompiledVariants[I].delta_bits & macko::delta_bit(DB)) != 0) return &launch_variant<I, DB, TD, TYD>;
  else return nullptr;
}
template <class TD, class TYD, std::size_t... I>
constexpr auto make_launchers(std::index_sequence<I...>) {
  return std::array<std::array<Launcher<TD, TYD>, 4>, sizeof...(I)>{
      {{launcher_if_built<TD, TYD, I, 1>(), launcher_if_built<TD, TYD, I, 2>(), launcher_if_built<TD, TYD, I, 4>(),
        launcher_if_built<TD, TYD, I, 8>()}...}};
}
template <class TD, class TYD>
constexpr auto kLaunchers = make_launchers<TD, TYD>(std::make_index_sequence<macko::kCompiledVariantCount>{});
constexpr int delta_index(int db) { return db == 1 ? 0 : db == 2 ? 1 : db == 4 ? 2 : 3; }

// The compiled schedules of one delta width, for the message that refuses another.
std::string variant_list(int delta_bits) {
  std::string s;
  for (const macko::CompiledVariant& v : macko::kCompiledVariants)
    if ((v.delta_bits & macko::delta_bit(delta_bits)) != 0) s += (s.empty() ? "" : "; ") + macko::to_string(v.schedule);
  return s;
}

}  // namespace

namespace {
// The kernels the policy plans persistent grids with: fp16, x in shared memory, 8 or 4 elements per
// lane, 32-bit offsets; at 8 elements also two rows per warp.
constexpr int kPlanned = macko::compiled_variant({.x_shared = true}, 4);
constexpr int kPlanned4 = macko::compiled_variant({.lane_elems = 4, .x_shared = true}, 4);
constexpr int kPlannedPairs =
    macko::compiled_variant({.row_lanes = macko::kWarpLanes / 2, .x_shared = true}, 4);
static_assert(kPlanned >= 0 && kPlanned4 >= 0 && kPlannedPairs >= 0);
constexpr auto kPlannedKernel = detail::macko_spmv_xs_kernel<detail::KernelConfig<kPlanned, 4, false>, __half, __half>;
constexpr auto kPlannedKernel4 =
    detail::macko_spmv_xs_kernel<detail::KernelConfig<kPlanned4, 4, false>, __half, __half>;
constexpr auto kPlannedKernelPairs =
    detail::macko_spmv_xs_kernel<detail::KernelConfig<kPlannedPairs, 4, false>, __half, __half>;
auto planned_kernel(int lane_elems, int row_lanes) {
  require((lane_elems == macko::kElemsPerLane || lane_elems == 4) &&
              (row_lanes == macko::kWarpLanes ||
               (row_lanes == macko::kWarpLanes / 2 && lane_elems == macko::kElemsPerLane)),
          "no planned x_shared kernel at " + std::to_string(lane_elems) + " elements per lane and " +
              std::to_string(row_lanes) + " lanes per row");
  if (row_lanes != macko::kWarpLanes) return kPlannedKernelPairs;
  return lane_elems == macko::kElemsPerLane ? kPlannedKernel : kPlannedKernel4;
}
}  // namespace

int macko_x_shared_kernel_registers(int lane_elems, int row_lanes) {
  cudaFuncAttributes fa{};
  WS_CUDA(cudaFuncGetAttributes(&fa, planned_kernel(lane_elems, row_lanes)));
  return fa.numRegs;
}

int macko_x_shared_resident_blocks(int warps_per_block, std::int64_t cols, int lane_elems, int row_lanes) {
  int dev = 0;
  WS_CUDA(cudaGetDevice(&dev));
  const auto smem = static_cast<std::size_t>(macko::x_shared_bytes(cols, 1, 2));
  const XsFit fit = xs_fit(planned_kernel(lane_elems, row_lanes), dev, 32 * warps_per_block, smem);
  return smem <= fit.dyn_max ? fit.resident : 0;
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
  // The messages are built only on failure: this runs before every launch, and composing them
  // (the list of compiled schedules) cost more host time than the launch itself.
  const int variant = macko::compiled_variant(s, a.delta_bits);
  if (variant < 0)
    throw Error("MACKO schedule " + macko::to_string(s) + " is not compiled for " + std::to_string(a.delta_bits) +
                "-bit deltas" + (s.valid(a.delta_bits) ? "" : " (not valid)") + "; compiled: " + variant_list(a.delta_bits));
  if (a.rows == 0) return;
  if (reinterpret_cast<std::uintptr_t>(x) % (sizeof(T) * static_cast<std::size_t>(s.batch)) != 0)
    throw Error("MACKO batch " + std::to_string(s.batch) + ": x must be aligned to " +
                std::to_string(sizeof(T) * static_cast<std::size_t>(s.batch)) +
                " bytes (one column's values are one vector load)");
  if (!macko::grid_split_fits(s, a.rows)) {
    const std::int64_t parts = a.rows * s.grid_splits * s.batch;
    throw Error("MACKO schedule " + macko::to_string(s) + ": " + std::to_string(a.rows) + " rows x " +
                  std::to_string(s.grid_splits) + " grid splits x batch " + std::to_string(s.batch) + " = " +
                  std::to_string(parts) + " parts: grid splits serve at most " +
                  std::to_string(macko::kGridSplitMaxRows) + " rows and " + std::to_string(macko::kGridSplitMaxParts) +
                  " parts");
  }
  using TD = device_t<T>;
  using TYD = device_t<TY>;
  // Grid splits: the rows' reduced parts and their arrival counters, this stream's own (zeros when
  // the launch starts; the last part of each row sets its counter back to 0): stream_scratch.hpp.
  const bool split = s.grid_splits > 1;
  const StreamScratch<float> partials(split ? static_cast<std::size_t>(a.rows * s.grid_splits * s.batch) : 0, stream);
  const StreamScratch<unsigned> arrivals(split ? static_cast<std::size_t>(a.rows) : 0, stream, ScratchInit::zeroed);
  const LaunchArgs<TD, TYD> g{a.wide,
                              reinterpret_cast<const TD*>(a.values.get()),
                              a.deltas.get(),
                              a.wide ? static_cast<const void*>(a.row_ptr64.get()) : static_cast<const void*>(a.row_ptr32.get()),
                              reinterpret_cast<const TD*>(x),
                              reinterpret_cast<TYD*>(y),
                              a.rows,
                              a.cols,
                              alpha,
                              beta,
                              a.split_bases.get(),
                              detail::GridSplit{s.grid_splits, partials.get(), arrivals.get()},
                              s.warps_per_block,
                              s.blocks_per_sm,
                              stream};
  kLaunchers<TD, TYD>[static_cast<std::size_t>(variant)][delta_index(a.delta_bits)](g);
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
