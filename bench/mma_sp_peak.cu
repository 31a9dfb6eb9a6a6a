// ws_mma_sp_peak: the issue ceiling of mma.sp::ordered_metadata m16n8k32 on this GPU, with no memory
// traffic at all, so the 2:4 GEMM kernels' TFLOP/s can be read against what the instruction itself
// allows (docs/sparse24-gemm.md).
//
// Each warp holds a kM × kN grid of fp32 accumulators (as a GEMM warp tile of 16·kM × 8·kN) and
// fragments built from its lane index, and issues, per loop trip, one k32 step of selector 0 and
// one of selector 1 over the grid. Two issue orders:
//   b_shared: column by column (consecutive mma.sp share B; A and metadata change), the order of
//             the pipelined mma.sp kernel's default tiles;
//   a_shared: row by row (consecutive mma.sp share A and the metadata word), the order of the
//             *_pipe_rows tiles and of cuSPARSE / CUTLASS SASS.
// Warps per SM sub-partition are set by the CTAs per SM (4 warps per CTA); configurations the
// register file cannot hold are reported as such, not run. Timing: CUDA events, 3 warm-up and 10
// timed launches, median with min and max.
// Clocks: NVML samples the SM clock over the timed launches, and CTA 0's clock64 span over the
// event time gives the clock the SM ran at. --heat-ms first runs dense cuBLAS bf16 GEMMs (random
// data) for that long, which pulls the board into its power cap, so the same loop can be timed at
// a lower SM clock: does its rate follow the clock?
//
// Output: one line per configuration on stdout, and a CSV under --out/<gpu>/ with the
// run metadata (GPU, clocks at start, CUDA version, commit) beside them.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_cli.hpp"
#include "bench/bench_common.hpp"

namespace {

template <int kSel>
__device__ __forceinline__ void mma_sp(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[4],
                                       std::uint32_t e) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, %13;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e),
        "n"(kSel));
}

// kAShared: row-by-row order (A and metadata shared by consecutive mma.sp), else column by column.
template <int kM, int kN, bool kAShared>
__global__ void __launch_bounds__(128) peak_kernel(int trips, float* out, long long* cycles) {
  const std::uint32_t lane = threadIdx.x & 31;
  std::uint32_t a[kM][4], b[kN][4], e[kM];
  // Small bf16 values (no overflow over any trip count): 0x3c00 + lane bits is ~2^-7.
#pragma unroll
  for (int i = 0; i < kM; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) a[i][r] = 0x3c003c00u + ((lane + i + r) & 7);
    e[i] = 0x44444444u;  // positions (0, 1) in every group: ordered and distinct
  }
#pragma unroll
  for (int j = 0; j < kN; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) b[j][r] = 0x3c003c00u + ((lane + j + 2 * r) & 7);
  float acc[kM][kN][4] = {};
  const long long t0 = clock64();
  // One k32 step over the accumulator grid in the chosen order.
  auto step = [&](auto selector) {
    constexpr int kSel = decltype(selector)::value;
#pragma unroll
    for (int outer = 0; outer < (kAShared ? kM : kN); ++outer)
#pragma unroll
      for (int inner = 0; inner < (kAShared ? kN : kM); ++inner) {
        const int i = kAShared ? outer : inner, j = kAShared ? inner : outer;
        mma_sp<kSel>(acc[i][j], a[i], b[j], e[i]);
      }
  };
  for (int t = 0; t < trips; ++t) {
    step(std::integral_constant<int, 0>{});
    step(std::integral_constant<int, 1>{});
  }
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kM; ++i)
#pragma unroll
    for (int j = 0; j < kN; ++j) s += acc[i][j][0] + acc[i][j][1] + acc[i][j][2] + acc[i][j][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

struct Row {
  std::string order;
  int m = 0, n = 0, warps_per_smsp = 0, regs = 0;
  bool fits = false;
  double us = 0, us_min = 0, us_max = 0, tflops = 0, cycles_per_mma_smsp = 0;
  double clock64_mhz = 0;  // CTA 0's clock64 span over the median event time
  warpsparse::bench::ClockStats clocks;
};

__global__ void fill_random(__nv_bfloat16* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;
    h ^= h >> 15;
    p[i] = __float2bfloat16_rn(static_cast<float>(h & 0xffff) / 65536.0f - 0.5f);
  }
}

// Keeps the GPU busy with dense bf16 GEMMs on random data for `ms` milliseconds (see the file
// comment); a no-op for ms = 0.
class Heater {
 public:
  explicit Heater(int ms) : ms_(ms) {
    if (ms_ == 0) return;
    a_ = warpsparse::gpu::DeviceBuffer<__nv_bfloat16>(std::size_t{kN} * kN);
    c_ = warpsparse::gpu::DeviceBuffer<__nv_bfloat16>(std::size_t{kN} * kN);
    fill_random<<<1024, 256>>>(a_.get(), std::size_t{kN} * kN);
    WS_CUDA(cudaGetLastError());
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) throw warpsparse::Error("cublasCreate failed");
  }
  ~Heater() {
    if (handle_) cublasDestroy(handle_);
  }
  void run() {
    if (ms_ == 0) return;
    const float one = 1.0f, zero = 0.0f;
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(ms_)) {
      for (int i = 0; i < 8; ++i)
        if (cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &one, a_.get(), CUDA_R_16BF, kN, a_.get(),
                         CUDA_R_16BF, kN, &zero, c_.get(), CUDA_R_16BF, kN, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
          throw warpsparse::Error("cublasGemmEx failed while heating");
      WS_CUDA(cudaDeviceSynchronize());
    }
  }

 private:
  static constexpr int kN = 8192;
  int ms_;
  warpsparse::gpu::DeviceBuffer<__nv_bfloat16> a_, c_;
  cublasHandle_t handle_ = nullptr;
};

template <int kM, int kN, bool kAShared>
Row measure(int sms, int warps_per_smsp, int trips, float* out, long long* cycles, Heater& heater,
            warpsparse::bench::ClockSampler& sampler) {
  auto kernel = peak_kernel<kM, kN, kAShared>;
  Row r;
  r.order = kAShared ? "a_shared" : "b_shared";
  r.m = kM;
  r.n = kN;
  r.warps_per_smsp = warps_per_smsp;
  cudaFuncAttributes attr{};
  WS_CUDA(cudaFuncGetAttributes(&attr, kernel));
  r.regs = attr.numRegs;
  int resident = 0;
  WS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, 128, 0));
  r.fits = resident >= warps_per_smsp;  // one CTA of 4 warps = one warp per sub-partition
  if (!r.fits) return r;
  const int blocks = sms * warps_per_smsp;
  heater.run();
  for (int w = 0; w < 3; ++w) kernel<<<blocks, 128>>>(trips, out, cycles);
  WS_CUDA(cudaGetLastError());
  WS_CUDA(cudaDeviceSynchronize());
  sampler.start();
  cudaEvent_t a, b;
  WS_CUDA(cudaEventCreate(&a));
  WS_CUDA(cudaEventCreate(&b));
  std::vector<float> times;
  for (int it = 0; it < 10; ++it) {
    WS_CUDA(cudaEventRecord(a));
    kernel<<<blocks, 128>>>(trips, out, cycles);
    WS_CUDA(cudaEventRecord(b));
    WS_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    WS_CUDA(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms);
  }
  r.clocks = sampler.stop();
  WS_CUDA(cudaEventDestroy(a));
  WS_CUDA(cudaEventDestroy(b));
  std::sort(times.begin(), times.end());
  const double ms = times[times.size() / 2];
  const double mmas = 2.0 * kM * kN * trips * 4.0 * blocks;  // per warp per trip: 2·kM·kN; 4 warps per CTA
  r.us = ms * 1e3;
  r.us_min = times.front() * 1e3;
  r.us_max = times.back() * 1e3;
  r.tflops = mmas * 8192.0 / (ms * 1e-3) / 1e12;  // m16n8k32: 2·16·8·32 flops (dense K counted)
  long long c0 = 0;
  WS_CUDA(cudaMemcpy(&c0, cycles, sizeof(c0), cudaMemcpyDeviceToHost));
  // CTA 0's clock64 span per mma.sp of its sub-partition, assuming its warps_per_smsp - 1 neighbours
  // ran beside it the whole time: a cross-check of the event time in SM clocks, not a measurement of
  // its own (with 3 warps per sub-partition on the H100 it disagrees with the event time).
  r.cycles_per_mma_smsp = static_cast<double>(c0) / (2.0 * kM * kN * trips * warps_per_smsp);
  // The last launch's span against the median time: close when the launches agree (us_min/us_max).
  r.clock64_mhz = static_cast<double>(c0) / r.us;
  return r;
}

int run(int argc, char** argv) {
  CLI::App app{"mma.sp m16n8k32 issue ceiling (bf16 in, fp32 accumulate), no memory traffic"};
  int trips = 4096;
  std::string out_dir = "bench/results", tiles = "4x8,4x4,2x4";
  int heat_ms = 0, warps_min = 1, warps_max = 4;
  app.add_option("--tiles", tiles, "warp tiles (m16 x n8 mma.sp) to run")->capture_default_str();
  app.add_option("--warps", warps_min, "fewest warps per sub-partition")->check(CLI::Range(1, 4))->capture_default_str();
  app.add_option("--max-warps", warps_max, "most warps per sub-partition")->check(CLI::Range(1, 4))->capture_default_str();
  app.add_option("--heat-ms", heat_ms, "dense cuBLAS GEMMs for this long before each configuration (0: none)")
      ->check(CLI::Range(0, 60000))
      ->capture_default_str();
  app.add_option("--trips", trips, "loop trips per warp (each: 2·M·N mma.sp)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--out", out_dir, "result folder (files go to OUT/<gpu name>/)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (!warpsparse::gpu::device_available()) {
    std::fprintf(stderr, "ws_mma_sp_peak: no CUDA device; nothing measured\n");
    return 77;
  }
  cudaDeviceProp prop{};
  WS_CUDA(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 8) {
    std::fprintf(stderr, "ws_mma_sp_peak: mma.sp needs compute capability 8.0+, the device has %d.%d\n",
                 prop.major, prop.minor);
    return 77;
  }
  const int sms = prop.multiProcessorCount;
  // At most 4 CTAs of 128 threads per SM are launched.
  warpsparse::gpu::DeviceBuffer<float> out(static_cast<std::size_t>(128) * sms * 4);
  warpsparse::gpu::DeviceBuffer<long long> cycles(static_cast<std::size_t>(sms) * 4);
  namespace wb = warpsparse::bench;
  const wb::DeviceInfo dev = wb::query_device_info(0);
  auto meta = wb::run_metadata(dev, 0.0, "ws_mma_sp_peak", wb::command_line(argc, argv));
  meta["trips"] = trips;
  meta["heat_ms"] = heat_ms;
  meta["copy_gbps"] = nullptr;  // not measured: this program moves no data
  meta["l2_flush"] = "none: the kernel reads no memory";
  const auto writer = wb::open_results(out_dir, dev, "mma_sp_peak", meta);
  Heater heater(heat_ms);
  wb::ClockSampler sampler(dev.device);
  std::printf("%-9s %5s %15s %5s %10s %10s %18s %9s %9s %8s\n", "order", "tile", "warps/sub-part.", "regs", "us",
              "TFLOP/s", "cycles/mma/SMSP", "NVML MHz", "clk64 MHz", "pwr-lim%");
  auto emit = [&](const Row& r) {
    if (r.fits)
      std::printf("%-9s %2dx%-2d %15d %5d %10.1f %10.1f %18.2f %9.0f %9.0f %8.0f\n", r.order.c_str(), r.m, r.n,
                  r.warps_per_smsp, r.regs, r.us, r.tflops, r.cycles_per_mma_smsp, r.clocks.sm_mhz_median,
                  r.clock64_mhz, r.clocks.power_limited_pct);
    else
      std::printf("%-9s %2dx%-2d %15d %5d %10s\n", r.order.c_str(), r.m, r.n, r.warps_per_smsp, r.regs,
                  "does not fit");
    writer->write({{"order", r.order},
                   {"warp_tile_m16", std::int64_t{r.m}},
                   {"warp_tile_n8", std::int64_t{r.n}},
                   {"warps_per_smsp", std::int64_t{r.warps_per_smsp}},
                   {"registers", std::int64_t{r.regs}},
                   {"fits", std::int64_t{r.fits ? 1 : 0}},
                   {"us", r.fits ? wb::Value{r.us} : wb::Value{}},
                   {"us_min", r.fits ? wb::Value{r.us_min} : wb::Value{}},
                   {"us_max", r.fits ? wb::Value{r.us_max} : wb::Value{}},
                   {"tflops", r.fits ? wb::Value{r.tflops} : wb::Value{}},
                   {"cycles_per_mma_per_smsp", r.fits ? wb::Value{r.cycles_per_mma_smsp} : wb::Value{}},
                   {"clock64_mhz", r.fits ? wb::Value{r.clock64_mhz} : wb::Value{}},
                   {"sm_mhz_median", wb::opt_double(r.clocks.sm_mhz_median)},
                   {"power_limited_pct", wb::opt_double(r.clocks.power_limited_pct)}});
  };
  const auto tile_list = wb::split_list(tiles);
  wb::require_known(tile_list, {"4x8", "4x4", "2x4"}, "--tiles entry");
  auto want = [&](const char* t) { return std::find(tile_list.begin(), tile_list.end(), t) != tile_list.end(); };
  for (int w = warps_min; w <= warps_max; ++w) {
    if (want("4x8")) {
      emit(measure<4, 8, false>(sms, w, trips, out.get(), cycles.get(), heater, sampler));
      emit(measure<4, 8, true>(sms, w, trips, out.get(), cycles.get(), heater, sampler));
    }
    if (want("4x4")) {
      emit(measure<4, 4, false>(sms, w, trips, out.get(), cycles.get(), heater, sampler));
      emit(measure<4, 4, true>(sms, w, trips, out.get(), cycles.get(), heater, sampler));
    }
    if (want("2x4")) {
      emit(measure<2, 4, false>(sms, w, trips, out.get(), cycles.get(), heater, sampler));
      emit(measure<2, 4, true>(sms, w, trips, out.get(), cycles.get(), heater, sampler));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws_mma_sp_peak: %s\n", e.what());
    return 1;
  }
}
