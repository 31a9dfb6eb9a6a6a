// Catch2 runner for GPU property tests: exits 77 (CTest: skipped) when no CUDA device is present.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "kernels/common/device_buffer.hpp"

int main(int argc, char** argv) {
  if (!warpsparse::gpu::device_available()) {
    std::fprintf(stderr, "SKIPPED: no CUDA device available; GPU property tests need one.\n");
    return 77;
  }
  // Thousands of fresh cases per property by default, however the program is started (CTest or
  // by hand on the GPU machine); RC_PARAMS set by the caller wins (e.g. fewer under the sanitizer).
  if (std::getenv("RC_PARAMS") == nullptr) setenv("RC_PARAMS", "max_success=1000", 1);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
    std::fprintf(stderr, "GPU: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  return Catch::Session().run(argc, argv);
}
