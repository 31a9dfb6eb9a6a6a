// Catch2 runner for GPU property tests: exits 77 (CTest: skipped) when no CUDA device is present.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>

#include "kernels/device_buffer.hpp"

int main(int argc, char** argv) {
  if (!warpsparse::gpu::device_available()) {
    std::fprintf(stderr, "SKIPPED: no CUDA device available; GPU property tests need one.\n");
    return 77;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
    std::fprintf(stderr, "GPU: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  return Catch::Session().run(argc, argv);
}
