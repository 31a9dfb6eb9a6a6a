// What the schedule policies need to know about a GPU, as data: SM count and the per-SM limits
// that decide how many blocks of a kernel are resident at once. The kernels library fills a
// DeviceFacts from the device it runs on (kernels/common/device_facts.hpp); the tables below let the
// host plan for a GPU it does not have (`warpsparse plan --gpu h100`). Host only, no CUDA.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "reference/common/error.hpp"
#include "reference/common/hd.hpp"

namespace warpsparse {

struct DeviceFacts {
  std::string name;          // as the device names itself, e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 9, cc_minor = 0;
  int sms = 132;
  // Per SM and per block (cudaDeviceProp's fields of the same meaning).
  int max_threads_per_sm = 2048;
  int max_threads_per_block = 1024;
  int max_blocks_per_sm = 32;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  std::int64_t smem_per_sm = 233472;           // 228 KiB
  std::int64_t smem_per_block_optin = 232448;  // 227 KiB: the most one block may ask for
  std::int64_t smem_reserved_per_block = 1024;
  // Allocation rules of compute capability 7.0-9.0: registers go to warps in units of 256 from each
  // of 4 sub-partitions' files; shared memory to blocks in units of 128 bytes.
  int reg_alloc_unit = 256;
  int sub_partitions = 4;
  int smem_alloc_unit = 128;
  // Memory, as measured (not the datasheet): a device-to-device copy's bandwidth, read + write
  // bytes per second, and the time a memory-bound kernel costs beyond its bytes at that rate (from
  // the accepted benchmark runs: cuBLAS GEMV on 4096 x 4096 fp16, L2 flushed: 18.6 us on the H100,
  // 14.9 us on the H200, against 11.2 / 7.8 us of copy time). For roofline predictions; 0 for a
  // GPU not measured.
  double copy_bytes_per_s = 0;
  double latency_us = 0;
};

// Blocks of `threads` threads, `regs` registers per thread and `smem` bytes of shared memory (static
// and dynamic together) that fit on one SM at once; 0 when one block does not fit. The rules of the
// occupancy calculator (a test compares them with CUDA's cuda_occupancy.h, and on the device with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor), with the default shared-memory carveout.
inline int resident_blocks(const DeviceFacts& d, int threads, int regs, std::int64_t smem) {
  if (threads <= 0 || threads > d.max_threads_per_block || regs < 0 || smem < 0) return 0;
  const int warps = (threads + 31) / 32;
  std::int64_t limit = std::min(d.max_blocks_per_sm, d.max_threads_per_sm / (32 * warps));
  if (regs > 0) {
    const std::int64_t per_warp = round_up(std::int64_t{regs} * 32, d.reg_alloc_unit);
    // A block's registers come from every sub-partition at once, so its warps count in whole rounds.
    if (per_warp * round_up(warps, d.sub_partitions) > d.regs_per_block) return 0;
    const std::int64_t warps_per_part = d.regs_per_sm / d.sub_partitions / per_warp;
    limit = std::min(limit, warps_per_part * d.sub_partitions / warps);
  }
  if (smem > d.smem_per_block_optin) return 0;
  limit = std::min(limit, d.smem_per_sm / round_up(smem + d.smem_reserved_per_block, d.smem_alloc_unit));
  return static_cast<int>(limit);
}

// The GPUs this project has measured. The H200 has the H100's SM (the same limits, 132 SMs); it
// differs in memory (141 GB of HBM3e at about 4.8 TB/s against 80 GB at 3.35 TB/s).
inline const DeviceFacts kH100{.name = "NVIDIA H100 80GB HBM3", .copy_bytes_per_s = 3.0e12, .latency_us = 7.4};
inline const DeviceFacts kH200{.name = "NVIDIA H200", .copy_bytes_per_s = 4.28e12, .latency_us = 7.1};

struct KnownGpu {
  std::string_view key;  // what `--gpu` takes
  const DeviceFacts* facts;
};
inline constexpr KnownGpu kKnownGpus[] = {{"h100", &kH100}, {"h200", &kH200}};

// The facts of a known GPU by key ("h100", "h200"); throws Error listing the keys otherwise.
inline const DeviceFacts& known_gpu(std::string_view key) {
  std::string keys;
  for (const KnownGpu& g : kKnownGpus) {
    if (g.key == key) return *g.facts;
    keys += std::string(keys.empty() ? "" : ", ") + std::string(g.key);
  }
  throw Error("unknown GPU '" + std::string(key) + "' (known: " + keys + ")");
}

}  // namespace warpsparse
