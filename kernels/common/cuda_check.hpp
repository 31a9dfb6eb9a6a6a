// The one CUDA error check of the kernels library and the programs on top of it.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "reference/common/error.hpp"

namespace warpsparse::gpu {

// Throws Error naming the call. A refused call also leaves its error as the runtime's last error; it
// is cleared here so that the next launch's cudaGetLastError() does not report it again (a sticky
// error stays either way).
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}
#define WS_CUDA(call) ::warpsparse::gpu::check_cuda((call), #call)

// True when a CUDA device is usable (GPU test programs exit 77 otherwise).
inline bool device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace warpsparse::gpu
