// Catch2 runner for GPU property tests: exits 77 (CTest: skipped) when no CUDA device is present, or
// when the program says the device cannot run its kernels (ws_gpu_unsupported).
#define CATCH_CONFIG_RUNNER
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "kernels/common/device_buffer.hpp"

// A test program whose kernels need more than a CUDA device defines this (a strong definition
// replaces the weak one): why device `p` cannot run it, or nullptr. The program then exits 77, so
// CTest reports it skipped rather than passed with nothing run.
__attribute__((weak)) const char* ws_gpu_unsupported(const cudaDeviceProp&) { return nullptr; }

int main(int argc, char** argv) {
  if (!warpsparse::gpu::device_available()) {
    std::fprintf(stderr, "SKIPPED: no CUDA device available; GPU property tests need one.\n");
    return 77;
  }
  // Thousands of fresh cases per property by default, however the program is started (CTest or
  // by hand on the GPU machine); RC_PARAMS set by the caller wins (e.g. fewer under the sanitizer).
  if (std::getenv("RC_PARAMS") == nullptr) setenv("RC_PARAMS", "max_success=1000", 1);
  cudaDeviceProp prop{};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    std::fprintf(stderr, "FAILED: cannot read the CUDA device's properties\n");
    return 1;
  }
  std::fprintf(stderr, "GPU: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor,
               prop.multiProcessorCount);
  if (const char* why = ws_gpu_unsupported(prop)) {
    std::fprintf(stderr, "SKIPPED: %s; this device is sm_%d%d.\n", why, prop.major, prop.minor);
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
