#include "kernels/common/device_facts.hpp"

#include <cuda_runtime.h>

#include <map>
#include <mutex>

#include "kernels/common/cuda_check.hpp"

namespace warpsparse::gpu {

const DeviceFacts& device_facts(int device) {
  if (device < 0) WS_CUDA(cudaGetDevice(&device));
  static std::mutex mutex;
  static std::map<int, DeviceFacts> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto it = cache.find(device);
  if (it != cache.end()) return it->second;
  cudaDeviceProp p{};
  WS_CUDA(cudaGetDeviceProperties(&p, device));
  DeviceFacts f;
  f.name = p.name;
  f.cc_major = p.major;
  f.cc_minor = p.minor;
  f.sms = p.multiProcessorCount;
  f.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  f.max_threads_per_block = p.maxThreadsPerBlock;
  f.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  f.regs_per_sm = p.regsPerMultiprocessor;
  f.regs_per_block = p.regsPerBlock;
  f.smem_per_sm = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
  f.smem_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
  f.smem_reserved_per_block = static_cast<std::int64_t>(p.reservedSharedMemPerBlock);
  // Memory measurements exist only for the GPUs this project has measured.
  for (const KnownGpu& g : kKnownGpus)
    if (g.facts->name == f.name) {
      f.copy_bytes_per_s = g.facts->copy_bytes_per_s;
      f.latency_us = g.facts->latency_us;
    }
  return cache.emplace(device, f).first->second;
}

}  // namespace warpsparse::gpu
