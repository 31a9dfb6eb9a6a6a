// The occupancy rules of reference/device/device_facts.hpp (resident_blocks) against CUDA's own
// calculator, cuda_occupancy.h (a host-only header of the toolkit), for the H100's limits: every
// block size, register count and shared-memory size the policies may ask about. No GPU needed.
#include <cuda_occupancy.h>

#include "proptests/prop_support.hpp"
#include "reference/device/device_facts.hpp"

using namespace warpsparse;

namespace {

int cuda_says(const DeviceFacts& d, int threads, int regs, std::int64_t smem) {
  cudaOccDeviceProp p;
  p.computeMajor = d.cc_major;
  p.computeMinor = d.cc_minor;
  p.maxThreadsPerBlock = d.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  p.regsPerBlock = d.regs_per_block;
  p.regsPerMultiprocessor = d.regs_per_sm;
  p.warpSize = 32;
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerMultiprocessor = static_cast<size_t>(d.smem_per_sm);
  p.numSms = d.sms;
  p.sharedMemPerBlockOptin = static_cast<size_t>(d.smem_per_block_optin);
  p.reservedSharedMemPerBlock = static_cast<size_t>(d.smem_reserved_per_block);
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = d.max_threads_per_block;
  a.numRegs = regs;
  a.sharedSizeBytes = 0;
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  a.maxDynamicSharedSizeBytes = static_cast<size_t>(d.smem_per_block_optin);
  a.numBlockBarriers = 1;
  cudaOccDeviceState st;
  cudaOccResult r;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &st, threads, static_cast<size_t>(smem)) != CUDA_OCC_SUCCESS)
    return -1;
  return r.activeBlocksPerMultiprocessor;
}

}  // namespace

TEST_CASE("resident_blocks agrees with cuda_occupancy.h on the H100's limits") {
  int checked = 0;
  for (int threads = 32; threads <= 1024; threads += 32)
    for (const int regs : {0, 16, 24, 32, 40, 48, 49, 56, 64, 72, 80, 96, 128, 168, 200, 255})
      for (const std::int64_t smem : {0, 1, 1000, 4096, 14336, 24576, 49152, 73728, 98304, 115000, 196608, 232448}) {
        INFO(threads << " threads, " << regs << " registers, " << smem << " bytes of shared memory");
        REQUIRE(resident_blocks(kH100, threads, regs, smem) == cuda_says(kH100, threads, regs, smem));
        ++checked;
      }
  CHECK(checked > 5000);
}
