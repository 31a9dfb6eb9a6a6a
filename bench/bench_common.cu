#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench/bench_common.hpp"
#include "kernels/common/device_facts.hpp"

#if __has_include("ws_git_commit.h")
#include "ws_git_commit.h"  // generated at build time by bench/cmake/git_commit.cmake
#endif
#ifndef WS_GIT_COMMIT_BUILD
#define WS_GIT_COMMIT_BUILD ""
#endif

namespace warpsparse::bench {

namespace {

// NVML through dlopen: the library comes with the driver, not the toolkit, and may be absent.
// Only the few entry points needed, with the types of the public NVML C API.
class Nvml {
 public:
  using Device = void*;
  static constexpr int kClockSm = 1, kClockMem = 2;  // NVML_CLOCK_SM, NVML_CLOCK_MEM
  // nvmlClocksEventReason* bits that mean a power limit: SwPowerCap, HwSlowdown, HwPowerBrakeSlowdown.
  static constexpr unsigned long long kPowerLimitReasons = 0x4ull | 0x8ull | 0x80ull;

  // Opens the library and finds the CUDA device's handle; ok() says whether both worked.
  explicit Nvml(int cuda_device) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return;
    auto init = sym<int (*)()>("nvmlInit_v2");
    shutdown_ = sym<int (*)()>("nvmlShutdown");
    auto by_pci = sym<int (*)(const char*, Device*)>("nvmlDeviceGetHandleByPciBusId_v2");
    auto by_index = sym<int (*)(unsigned, Device*)>("nvmlDeviceGetHandleByIndex_v2");
    auto count = sym<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
    clock_ = sym<ClockFn>("nvmlDeviceGetClockInfo");
    power_ = sym<PowerFn>("nvmlDeviceGetPowerUsage");
    reasons_ = sym<ReasonsFn>("nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons_) reasons_ = sym<ReasonsFn>("nvmlDeviceGetCurrentClocksThrottleReasons");  // older drivers
    char bus[64] = {};
    if (!init || !shutdown_ || !by_pci || !clock_ || cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess ||
        init() != 0)
      return;
    initialised_ = true;
    bool found = by_pci(bus, &dev_) == 0;
    unsigned n = 0;
    // One GPU in sight: it is ours, whatever the bus id format.
    if (!found && by_index && count && count(&n) == 0 && n == 1) found = by_index(0, &dev_) == 0;
    ok_ = found;
  }
  ~Nvml() {
    if (initialised_) shutdown_();
    if (lib_) dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ok() const { return ok_; }
  // Each returns a negative value (or no bits) when NVML cannot answer.
  double clock_mhz(int which) const {
    unsigned v = 0;
    return ok_ && clock_(dev_, which, &v) == 0 ? static_cast<double>(v) : -1.0;
  }
  double power_w() const {
    unsigned mw = 0;
    return ok_ && power_ && power_(dev_, &mw) == 0 ? mw / 1000.0 : -1.0;
  }
  bool has_reasons() const { return ok_ && reasons_; }
  unsigned long long reasons() const {
    unsigned long long r = 0;
    return has_reasons() && reasons_(dev_, &r) == 0 ? r : 0;
  }

 private:
  using ClockFn = int (*)(Device, int, unsigned*);
  using PowerFn = int (*)(Device, unsigned*);
  using ReasonsFn = int (*)(Device, unsigned long long*);
  template <class F>
  F sym(const char* name) const {
    return reinterpret_cast<F>(dlsym(lib_, name));
  }
  void* lib_ = nullptr;
  Device dev_ = nullptr;
  bool initialised_ = false, ok_ = false;
  int (*shutdown_)() = nullptr;
  ClockFn clock_ = nullptr;
  PowerFn power_ = nullptr;
  ReasonsFn reasons_ = nullptr;
};

__global__ void flush_read_kernel(const uint4* __restrict__ buf, std::int64_t n, std::uint32_t* sink) {
  std::uint32_t acc = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const uint4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // The buffer is zero, so this store never happens; the compiler cannot know that and keeps
  // every load.
  if (acc == 0x9e3779b9u) *sink = acc;
}

// The gate of time_launches: a counter in mapped pinned host memory that the host raises once a
// chunk of timed launches is enqueued, and a kernel that waits for it (or gives up after
// kGateMaxCycles, about a second, so a host that never raises it cannot hang the GPU).
constexpr int kGateChunk = 64;  // 64 x 4 stream entries: far below the launch queue's depth
constexpr long long kGateMaxCycles = 2000000000LL;

__global__ void hold_until(const volatile int* gate, int target, long long max_cycles) {
  const long long t0 = clock64();
  while (*gate < target && clock64() - t0 < max_cycles) {
  }
}

volatile int* timing_gate() {
  static int* host = [] {
    int* p = nullptr;
    WS_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&p), sizeof(int), cudaHostAllocMapped));
    *p = 0;
    return p;
  }();
  return host;
}

std::string run_git_rev_parse() {
  FILE* p = popen("git rev-parse --short=12 HEAD 2>/dev/null", "r");
  if (!p) return {};
  char buf[64] = {};
  std::string out;
  if (fgets(buf, sizeof buf, p)) out = buf;
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string format_time(const char* fmt) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

}  // namespace

std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

DeviceInfo query_device_info(int device) {
  DeviceInfo d;
  d.device = device;
  WS_CUDA(cudaSetDevice(device));
  cudaDeviceProp prop{};
  WS_CUDA(cudaGetDeviceProperties(&prop, device));
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.global_mem_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  int v = 0;
  WS_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, device));
  d.l2_bytes = v;
  WS_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device));
  d.max_sm_clock_mhz = v / 1000.0;
  WS_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device));
  d.max_mem_clock_mhz = v / 1000.0;
  {
    const Nvml nvml(device);
    d.nvml_sm_clock_mhz = std::max(0.0, nvml.clock_mhz(Nvml::kClockSm));
    d.nvml_mem_clock_mhz = std::max(0.0, nvml.clock_mhz(Nvml::kClockMem));
  }
  d.clock_source = d.nvml_sm_clock_mhz > 0 ? "nvml+attribute" : "attribute";
  WS_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  WS_CUDA(cudaDriverGetVersion(&d.driver_version));
  return d;
}

nlohmann::ordered_json to_json(const DeviceInfo& d) {
  nlohmann::ordered_json j;
  j["gpu"] = d.name;
  j["device"] = d.device;
  j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  j["sm_count"] = d.sm_count;
  j["l2_bytes"] = d.l2_bytes;
  j["global_mem_bytes"] = d.global_mem_bytes;
  j["max_sm_clock_mhz"] = d.max_sm_clock_mhz;
  j["max_mem_clock_mhz"] = d.max_mem_clock_mhz;
  j["sm_clock_mhz_at_start"] = d.nvml_sm_clock_mhz;
  j["mem_clock_mhz_at_start"] = d.nvml_mem_clock_mhz;
  j["clock_source"] = d.clock_source;
  j["cuda_runtime"] = cuda_version_string(d.runtime_version);
  j["cuda_driver"] = cuda_version_string(d.driver_version);
  return j;
}

std::string git_commit() {
  if (const char* e = std::getenv("WS_GIT_COMMIT"); e && *e) return e;
  if (std::string(WS_GIT_COMMIT_BUILD).size() > 0) return WS_GIT_COMMIT_BUILD;
  const std::string r = run_git_rev_parse();
  return r.empty() ? "unknown" : r;
}

std::string utc_timestamp() { return format_time("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_timestamp_compact() { return format_time("%Y%m%dT%H%M%SZ"); }

L2Flusher::L2Flusher(std::int64_t l2_bytes) {
  // At least 2x L2 and at least 64 MiB (in case the attribute reads 0).
  const std::int64_t bytes = std::max<std::int64_t>(2 * l2_bytes, std::int64_t{64} << 20);
  buf_ = gpu::DeviceBuffer<uint4>(static_cast<std::size_t>((bytes + 15) / 16));
  sink_ = gpu::DeviceBuffer<std::uint32_t>(1);
  WS_CUDA(cudaMemset(buf_.get(), 0, buf_.bytes()));
  WS_CUDA(cudaMemset(sink_.get(), 0, sink_.bytes()));
  WS_CUDA(cudaDeviceSynchronize());  // the memsets above run on the legacy stream
  blocks_ = static_cast<unsigned>(std::max(gpu::device_facts().sms, 1) * 4);
}

void L2Flusher::flush(cudaStream_t stream) {
  flush_read_kernel<<<blocks_, 512, 0, stream>>>(buf_.get(), static_cast<std::int64_t>(buf_.size()), sink_.get());
  WS_CUDA(cudaGetLastError());
}

struct ClockSampler::Impl {
  explicit Impl(int device, int period) : nvml(device), period_ms(period) {}
  Nvml nvml;
  int period_ms;
  std::thread worker;
  std::atomic<bool> running{false};
  std::vector<double> sm, power;
  int limited = 0, with_reasons = 0;
};

ClockSampler::ClockSampler(int cuda_device, int period_ms)
    : impl_(std::make_unique<Impl>(cuda_device, std::max(period_ms, 1))) {}
ClockSampler::~ClockSampler() {
  if (impl_->running) stop();
}
bool ClockSampler::available() const { return impl_->nvml.ok(); }

void ClockSampler::start() {
  if (impl_->running) stop();  // a timed loop that threw left it running
  Impl& m = *impl_;
  m.sm.clear();
  m.power.clear();
  m.limited = m.with_reasons = 0;
  if (!m.nvml.ok()) return;
  m.running = true;
  m.worker = std::thread([&m] {
    while (m.running) {
      const double mhz = m.nvml.clock_mhz(Nvml::kClockSm), w = m.nvml.power_w();
      if (mhz > 0) m.sm.push_back(mhz);
      if (w > 0) m.power.push_back(w);
      if (m.nvml.has_reasons()) {
        ++m.with_reasons;
        if (m.nvml.reasons() & Nvml::kPowerLimitReasons) ++m.limited;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(m.period_ms));
    }
  });
}

ClockStats ClockSampler::stop() {
  Impl& m = *impl_;
  if (m.running) {
    m.running = false;
    m.worker.join();
  }
  ClockStats c;
  c.samples = static_cast<int>(m.sm.size());
  if (!m.sm.empty()) {
    std::sort(m.sm.begin(), m.sm.end());
    c.sm_mhz_median = percentile_sorted(m.sm, 50);
    c.sm_mhz_min = m.sm.front();
  }
  if (!m.power.empty()) c.power_w_max = *std::max_element(m.power.begin(), m.power.end());
  if (m.with_reasons > 0) c.power_limited_pct = 100.0 * m.limited / m.with_reasons;
  return c;
}

Timed time_launches(const std::function<void(cudaStream_t)>& launch, const TimingConfig& cfg,
                    L2Flusher& flusher, cudaStream_t stream, ClockSampler* sampler) {
  require(cfg.iters >= 1 && cfg.warmup >= 0 && cfg.rest_ms >= 0 && cfg.warmup_ms >= 0,
          "timing needs iters >= 1, warmup >= 0, rest_ms >= 0 and warmup_ms >= 0");
  if (cfg.rest_ms > 0) {
    WS_CUDA(cudaStreamSynchronize(stream));
    std::this_thread::sleep_for(std::chrono::milliseconds(cfg.rest_ms));
  }
  const auto warm_start = std::chrono::steady_clock::now();
  for (int i = 0; i < cfg.warmup; ++i) {
    launch(stream);
    WS_CUDA(cudaGetLastError());
  }
  WS_CUDA(cudaStreamSynchronize(stream));
  // The timed-loop's work (flush, launch) in batches that double until one lasts a few ms, so the
  // host's checks of the clock leave only short gaps.
  const auto warm_until = warm_start + std::chrono::milliseconds(cfg.warmup_ms);
  for (int batch = 1; std::chrono::steady_clock::now() < warm_until;) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) {
      if (cfg.flush_l2) flusher.flush(stream);
      launch(stream);
      WS_CUDA(cudaGetLastError());
    }
    WS_CUDA(cudaStreamSynchronize(stream));
    if (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(5) && batch < (1 << 16)) batch *= 2;
  }
  std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(cfg.iters), nullptr);
  struct Guard {
    std::vector<cudaEvent_t>& e;
    ~Guard() {
      for (auto x : e)
        if (x) cudaEventDestroy(x);
    }
  } guard{ev};
  for (auto& e : ev) WS_CUDA(cudaEventCreate(&e));
  // The timed launches go in gated chunks: a one-thread kernel holds the stream until the host has
  // enqueued the whole chunk, so no host-side pause (a descheduled thread) can open a gap inside an
  // event pair. Without the gate, some long runs had a row or two whose p90 was 1.5-5x
  // its p10 (12288^2 d = 0.3 twice), on every kernel kind.
  volatile int* gate = timing_gate();
  int released = *gate;
  if (sampler) sampler->start();
  for (int first = 0; first < cfg.iters; first += kGateChunk) {
    const int target = released + 1;
    hold_until<<<1, 1, 0, stream>>>(gate, target, kGateMaxCycles);
    WS_CUDA(cudaGetLastError());
    for (int i = first; i < std::min(cfg.iters, first + kGateChunk); ++i) {
      if (cfg.flush_l2) flusher.flush(stream);
      WS_CUDA(cudaEventRecord(ev[2 * i], stream));
      launch(stream);
      WS_CUDA(cudaGetLastError());
      WS_CUDA(cudaEventRecord(ev[2 * i + 1], stream));
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *gate = released = target;  // the chunk is enqueued: let it run
  }
  const cudaError_t synced = cudaStreamSynchronize(stream);
  const ClockStats clocks = sampler ? sampler->stop() : ClockStats{};
  WS_CUDA(synced);
  std::vector<double> us(static_cast<std::size_t>(cfg.iters));
  for (int i = 0; i < cfg.iters; ++i) {
    float ms = 0;
    WS_CUDA(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    us[i] = static_cast<double>(ms) * 1000.0;
  }
  Timed t;
  static_cast<Summary&>(t) = summarize(std::move(us));
  t.clocks = clocks;
  return t;
}

double measure_copy_bandwidth(std::int64_t bytes, const TimingConfig& cfg, L2Flusher& flusher, cudaStream_t stream) {
  gpu::DeviceBuffer<std::uint8_t> src(static_cast<std::size_t>(bytes)), dst(static_cast<std::size_t>(bytes));
  WS_CUDA(cudaMemset(src.get(), 0x5a, src.bytes()));
  WS_CUDA(cudaDeviceSynchronize());
  const Summary s = time_launches(
      [&](cudaStream_t st) {
        WS_CUDA(cudaMemcpyAsync(dst.get(), src.get(), src.bytes(), cudaMemcpyDeviceToDevice, st));
      },
      cfg, flusher, stream);
  return 2.0 * static_cast<double>(bytes) / (s.median * 1e-6) / 1e9;
}

void require_device_memory(std::uint64_t need, const std::string& what) {
  std::size_t free_b = 0, total_b = 0;
  WS_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const std::uint64_t margin = std::uint64_t{512} << 20;
  const std::uint64_t usable = free_b > margin ? free_b - margin : 0;
  if (need > usable)
    throw Error(what + " needs " + std::to_string(need >> 20) + " MiB of device memory, but only " +
                std::to_string(free_b >> 20) + " MiB of " + std::to_string(total_b >> 20) +
                " MiB are free (512 MiB kept in reserve)");
}

std::unique_ptr<ResultWriter> open_results(const std::string& out, const DeviceInfo& d, const std::string& prefix,
                                           const nlohmann::ordered_json& meta) {
  const std::filesystem::path dir = std::filesystem::path(out) / sanitize_name(d.name);
  const std::string stem = prefix + "_" + utc_timestamp_compact();
  auto w = std::make_unique<ResultWriter>(dir, stem);
  std::ofstream(dir / (stem + ".meta.json")) << meta.dump(2) << '\n';
  std::fprintf(stderr, "# results: %s\n", w->csv_path().c_str());
  return w;
}

nlohmann::ordered_json run_metadata(const DeviceInfo& d, double copy_gbps, const std::string& program,
                                    const std::string& args) {
  nlohmann::ordered_json j;
  j["program"] = program;
  j["args"] = args;
  j["commit"] = git_commit();
  j["timestamp"] = utc_timestamp();
  j["device"] = to_json(d);
  j["copy_gbps"] = copy_gbps;
  j["l2_flush"] = "read of a >= 2x L2 buffer before every timed launch";
  std::fprintf(stderr, "# %s on %s (cc %d.%d, %d SMs, L2 %lld MiB, %lld MiB memory)\n", program.c_str(),
               d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, static_cast<long long>(d.l2_bytes >> 20),
               static_cast<long long>(d.global_mem_bytes >> 20));
  std::fprintf(stderr, "# clocks: SM %.0f MHz, memory %.0f MHz at start (%s; peak %.0f / %.0f MHz)\n",
               d.nvml_sm_clock_mhz, d.nvml_mem_clock_mhz, d.clock_source.c_str(), d.max_sm_clock_mhz,
               d.max_mem_clock_mhz);
  std::fprintf(stderr, "# CUDA runtime %s, driver %s, commit %s\n", cuda_version_string(d.runtime_version).c_str(),
               cuda_version_string(d.driver_version).c_str(), git_commit().c_str());
  if (copy_gbps > 0) std::fprintf(stderr, "# measured D2D copy bandwidth: %.1f GB/s (read + write)\n", copy_gbps);
  return j;
}

}  // namespace warpsparse::bench
