// RAII device memory for host code that launches kernels.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/common/cuda_check.hpp"

namespace warpsparse::gpu {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n == 0) return;
    std::size_t free_b = 0, total_b = 0;
    WS_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (n * sizeof(T) > free_b)
      throw Error("device allocation of " + std::to_string(n * sizeof(T)) + " bytes exceeds the " +
                  std::to_string(free_b) + " bytes free on the device");
    WS_CUDA(cudaMalloc(&p_, n * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& h) : DeviceBuffer(h.size()) { upload(h); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) { release(); p_ = o.p_; n_ = o.n_; o.p_ = nullptr; o.n_ = 0; }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  void upload(const std::vector<T>& h) {
    require(h.size() == n_, "upload size mismatch");
    if (n_) WS_CUDA(cudaMemcpy(p_, h.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (n_) WS_CUDA(cudaMemcpy(h.data(), p_, bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  void release() { if (p_) cudaFree(p_); p_ = nullptr; }
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace warpsparse::gpu
