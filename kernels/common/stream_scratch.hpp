// Scratch device memory for one launch whose work is split into parts (split-K of the 2:4 GEMM, the
// bitmap SpMM's parts, MACKO's grid splits): the parts' partial sums, written by one kernel and added
// by a second or by the last part to arrive, and MACKO's arrival counters. One
// buffer kept by the library and grown on demand fails both ways users run layers: two streams at
// once would share it, and a CUDA graph captured with it replays into freed memory once a later,
// larger launch has grown it. So:
//   - eager launches use a buffer of their stream's own, kept between launches (the stream orders
//     them, so reuse is safe) and grown in the stream's order (the old one is freed after the
//     launches queued before);
//   - a launch inside a stream capture allocates and frees in the capture: CUDA turns both into the
//     graph's own memory nodes, which live as long as the graph.
// Eager launches keep their buffer rather than allocating around every launch, which cost about
// 1 us on the smallest split launches (measurements: docs/sparse24-gemm.md, split-K).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernels/common/cuda_check.hpp"

namespace warpsparse::gpu {

namespace scratch_detail {
// The library's pool on the current device, created on first eager use: the streams' buffers come
// from it, so they can be freed in stream order. It keeps what it has allocated (release threshold:
// all), and does not let one stream wait on another to reuse memory (internal dependencies off).
inline cudaMemPool_t device_pool(int dev) {
  constexpr int kMaxDevices = 64;
  static cudaMemPool_t pools[kMaxDevices] = {};
  require(dev >= 0 && dev < kMaxDevices, "stream scratch: device " + std::to_string(dev) + " out of range");
  if (pools[dev] == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t p = nullptr;
    WS_CUDA(cudaMemPoolCreate(&p, &props));
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    WS_CUDA(cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep));
    int no = 0;
    WS_CUDA(cudaMemPoolSetAttribute(p, cudaMemPoolReuseAllowInternalDependencies, &no));
    pools[dev] = p;  // kept for the process's life: destroying it at exit races CUDA's own teardown
  }
  return pools[dev];
}

// At least `bytes` of the stream's own buffer (a second one for zeroed scratch). Streams are told
// apart by cudaStreamGetId, which a later stream never reuses (a handle may be). A stream's buffers
// are kept for the process's life, as CUDA gives no word of a stream's end: the largest split
// launch's partials (at most tens of MB) per stream that ever ran one, so a program that makes a
// new stream for every call grows without bound (torch and most servers reuse a few streams).
inline void* stream_buffer(cudaStream_t stream, std::size_t bytes, bool zeroed) {
  struct Buffer {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  static std::mutex m;
  static std::unordered_map<unsigned long long, Buffer> buffers[2];
  unsigned long long id = 0;
  WS_CUDA(cudaStreamGetId(stream, &id));
  int dev = 0;
  WS_CUDA(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(m);
  Buffer& b = buffers[zeroed ? 1 : 0][id];
  if (b.bytes < bytes) {
    void* p = nullptr;
    WS_CUDA(cudaMallocFromPoolAsync(&p, bytes, device_pool(dev), stream));
    if (zeroed) WS_CUDA(cudaMemsetAsync(p, 0, bytes, stream));
    if (b.p != nullptr) WS_CUDA(cudaFreeAsync(b.p, stream));  // after the launches queued before
    b = {p, bytes};
  }
  return b.p;
}
}  // namespace scratch_detail

// Zeroed: the memory holds zeros when the launch starts, and the launch leaves zeros behind (MACKO's
// arrival counters, which the last part of each row sets back to 0), so a kept buffer is cleared
// once, when it is allocated, and a captured one by a memset in the graph.
enum class ScratchInit { none, zeroed };

template <class T>
class StreamScratch {
 public:
  // n elements for the work queued on `stream` while this object lives. A launch takes at most one
  // scratch of each ScratchInit: two of one kind on one stream are the same memory. Launches from
  // several host threads on one stream at once are not supported (their order on the stream is not
  // defined either).
  StreamScratch(std::size_t n, cudaStream_t stream, ScratchInit init = ScratchInit::none) : stream_(stream) {
    if (n == 0) return;
    require(n <= std::numeric_limits<std::size_t>::max() / sizeof(T), "stream scratch: size overflows");
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    WS_CUDA(cudaStreamIsCapturing(stream, &capture));
    captured_ = capture == cudaStreamCaptureStatusActive;
    void* p = nullptr;
    const bool zeroed = init == ScratchInit::zeroed;
    if (captured_) {
      WS_CUDA(cudaMallocAsync(&p, n * sizeof(T), stream));  // the graph's own memory, whatever the pool
      if (zeroed) WS_CUDA(cudaMemsetAsync(p, 0, n * sizeof(T), stream));
    } else {
      p = scratch_detail::stream_buffer(stream, n * sizeof(T), zeroed);
    }
    p_ = static_cast<T*>(p);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  ~StreamScratch() {
    if (captured_ && p_ != nullptr) cudaFreeAsync(p_, stream_);
  }
  T* get() const { return p_; }

 private:
  cudaStream_t stream_;
  T* p_ = nullptr;
  bool captured_ = false;
};

}  // namespace warpsparse::gpu
