// The launch contract of kernels that need scratch memory (kernels/common/stream_scratch.hpp),
// checked where a buffer kept by the library would break it: two jobs launched over and over on two
// streams at once, and a job captured into a CUDA graph and replayed after a larger launch (one that
// would have grown a kept buffer, freeing what the graph points to). Every output must equal the
// job's output when run alone, bit for bit: the kernels are deterministic for a fixed schedule.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/common/cuda_check.hpp"

namespace warpsparse::gpu_props {

struct StreamJob {
  std::string name;
  // Queues the job on `stream`, writing output slot `slot` (0 .. kStreamSlots - 1).
  std::function<void(cudaStream_t stream, int slot)> launch;
  // The bytes of output slot `slot` (after a device synchronization).
  std::function<std::vector<std::uint8_t>(int slot)> output;
};
inline constexpr int kStreamRounds = 6;
inline constexpr int kStreamSlots = kStreamRounds + 2;  // the lone run, the rounds, the graph

// A job's outputs as kStreamSlots slots of n elements in one device array: slot `slot`'s first
// element, and its bytes (after a device synchronization).
template <class T>
T* slot_ptr(T* slots, std::size_t n, int slot) {
  return slots + n * static_cast<std::size_t>(slot);
}
template <class T>
std::vector<std::uint8_t> slot_bytes(const T* slots, std::size_t n, int slot) {
  std::vector<std::uint8_t> out(n * sizeof(T));
  WS_CUDA(cudaMemcpy(out.data(), slot_ptr(slots, n, slot), out.size(), cudaMemcpyDeviceToHost));
  return out;
}

// "" when every output matched; else which job, round or graph differed. `larger` queues a launch
// that needs more scratch than job a.
inline std::string check_streams_and_graph(const StreamJob& a, const StreamJob& b,
                                           const std::function<void(cudaStream_t)>& larger) {
  a.launch(nullptr, 0);
  b.launch(nullptr, 0);
  WS_CUDA(cudaDeviceSynchronize());
  const std::vector<std::uint8_t> want_a = a.output(0), want_b = b.output(0);
  cudaStream_t s0 = nullptr, s1 = nullptr;
  WS_CUDA(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  WS_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  std::string fault;
  try {
    for (int r = 1; r <= kStreamRounds; ++r) {
      a.launch(s0, r);
      b.launch(s1, r);
    }
    WS_CUDA(cudaDeviceSynchronize());
    for (int r = 1; r <= kStreamRounds && fault.empty(); ++r) {
      if (a.output(r) != want_a) fault = a.name + " on stream 0 beside " + b.name + ", round " + std::to_string(r);
      else if (b.output(r) != want_b) fault = b.name + " on stream 1 beside " + a.name + ", round " + std::to_string(r);
    }
    const int g = kStreamSlots - 1;
    cudaGraph_t graph = nullptr;
    WS_CUDA(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
    a.launch(s0, g);
    WS_CUDA(cudaStreamEndCapture(s0, &graph));
    cudaGraphExec_t exec = nullptr;
    WS_CUDA(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    larger(s0);
    WS_CUDA(cudaStreamSynchronize(s0));
    for (int i = 0; i < 2; ++i) WS_CUDA(cudaGraphLaunch(exec, s0));
    WS_CUDA(cudaStreamSynchronize(s0));
    if (fault.empty() && a.output(g) != want_a) fault = a.name + " replayed from a CUDA graph after a larger launch";
    WS_CUDA(cudaGraphExecDestroy(exec));
    WS_CUDA(cudaGraphDestroy(graph));
  } catch (...) {
    cudaStreamDestroy(s0);
    cudaStreamDestroy(s1);
    throw;
  }
  WS_CUDA(cudaStreamDestroy(s0));
  WS_CUDA(cudaStreamDestroy(s1));
  return fault;
}

}  // namespace warpsparse::gpu_props
