// Timing and run metadata shared by the benchmark programs (ws_bench_macko, ws_bench_sparse24).
//
// Method (see README.md):
//   - L2 flush: before every timed launch a kernel reads a buffer of at least twice the L2 size
//     (cudaDevAttrL2CacheSize), so the timed launch starts with none of its inputs in L2. A read
//     rather than a memset leaves no dirty lines whose write-back would overlap the timed launch.
//   - Timing: CUDA events around one launch at a time (flush, event, launch, event), after a
//     warm-up of untimed launches; median, p10, p90 of the samples.
//   - Ceiling: the device-to-device copy bandwidth measured at start (cudaMemcpyAsync of a large
//     buffer; bytes read + bytes written over the median time).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_stats.hpp"
#include "kernels/common/device_buffer.hpp"

namespace warpsparse::bench {

struct DeviceInfo {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_mem_bytes = 0;
  // Peak clocks from cudaDeviceGetAttribute (cudaDevAttrClockRate, cudaDevAttrMemoryClockRate).
  double max_sm_clock_mhz = 0, max_mem_clock_mhz = 0;
  // Clocks at start from NVML when libnvidia-ml.so.1 can be loaded at run time; 0 otherwise.
  double nvml_sm_clock_mhz = 0, nvml_mem_clock_mhz = 0;
  std::string clock_source;  // "nvml+attribute" or "attribute"
  int runtime_version = 0, driver_version = 0;
};

DeviceInfo query_device_info(int device = 0);
nlohmann::ordered_json to_json(const DeviceInfo& d);
std::string cuda_version_string(int v);  // 13000 -> "13.0"

// The commit this binary was built from: $WS_GIT_COMMIT if set (the device machine may have no
// .git), else the value captured at build time, else `git rev-parse` at run time, else "unknown".
std::string git_commit();
std::string utc_timestamp();         // 2026-11-22T01:54:54Z
std::string utc_timestamp_compact();  // 20261122T015454Z

// Reads a buffer of >= 2x L2 before each timed launch (see the file comment).
class L2Flusher {
 public:
  explicit L2Flusher(std::int64_t l2_bytes);
  void flush(cudaStream_t stream);
  std::int64_t bytes() const { return static_cast<std::int64_t>(buf_.bytes()); }

 private:
  gpu::DeviceBuffer<uint4> buf_;
  gpu::DeviceBuffer<std::uint32_t> sink_;
  unsigned blocks_ = 0;
};

// What the board ran at while a kernel was timed: NVML sampled from a host thread every few
// milliseconds over the timed launches (not the warm-up). At 8192^3 the 2:4 GEMMs pull the H100
// into its power cap about a second into a run and the SM clock falls from 1980 MHz (NOTES, run
// 50), so a TFLOP/s figure means little without the clock it was taken at. All NaN (samples = 0)
// when NVML cannot be loaded.
struct ClockStats {
  int samples = 0;
  double sm_mhz_median = std::numeric_limits<double>::quiet_NaN();
  double sm_mhz_min = std::numeric_limits<double>::quiet_NaN();
  double power_w_max = std::numeric_limits<double>::quiet_NaN();
  // Share of samples whose clock-event reasons include a power limit (software power cap,
  // hardware slowdown or power brake), in percent.
  double power_limited_pct = std::numeric_limits<double>::quiet_NaN();
};

// Polls NVML (loaded at run time, as in query_device_info) on its own thread between start() and
// stop(). One per program; cheap when idle.
class ClockSampler {
 public:
  explicit ClockSampler(int cuda_device, int period_ms = 5);
  ~ClockSampler();
  ClockSampler(const ClockSampler&) = delete;
  ClockSampler& operator=(const ClockSampler&) = delete;
  bool available() const;
  void start();
  ClockStats stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct TimingConfig {
  int warmup = 100;
  int iters = 200;
  bool flush_l2 = true;
  // Idle time before the warm-up, so the board's power reading (a running average) falls back
  // before this kernel starts; 0 = back to back with whatever ran before.
  int rest_ms = 0;
  // Least wall time of the warm-up, in ms: after `warmup` launches, flushed launches go on until it
  // has passed, so a series starts in the power state its own kernel sustains rather than the one
  // the kernels before it left; 0 = the launch count alone.
  int warmup_ms = 0;
};

struct Timed : Summary {
  ClockStats clocks;
};

// Times `launch` (which enqueues exactly one kernel or copy on `stream` and throws on error):
// optional rest, warm-up launches, then per timed launch: flush, event, launch, event. Returns
// microseconds, and the clocks over the timed launches when a sampler is given.
Timed time_launches(const std::function<void(cudaStream_t)>& launch, const TimingConfig& cfg,
                    L2Flusher& flusher, cudaStream_t stream, ClockSampler* sampler = nullptr);

// Median D2D copy bandwidth in GB/s (1e9 bytes/s), counting bytes read + bytes written.
double measure_copy_bandwidth(std::int64_t bytes, const TimingConfig& cfg, L2Flusher& flusher, cudaStream_t stream);

// Free device memory minus a safety margin; throws a clear Error if `need` bytes do not fit.
void require_device_memory(std::uint64_t need, const std::string& what);

// Opens OUT/<gpu name>/<prefix>_<UTC time>.csv and writes the .meta.json beside it.
std::unique_ptr<ResultWriter> open_results(const std::string& out, const DeviceInfo& d, const std::string& prefix,
                                           const nlohmann::ordered_json& meta);

// Prints the run header (GPU, clocks, versions, commit) on stderr and returns it as JSON.
nlohmann::ordered_json run_metadata(const DeviceInfo& d, double copy_gbps, const std::string& program,
                                    const std::string& args);

}  // namespace warpsparse::bench
