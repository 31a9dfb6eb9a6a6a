// The CUDA half of the Python facade (py_api.hpp): device matrices that own their buffers, and
// launches on the caller's stream. The schedule is the policy's (macko::choose_schedule with the
// device's facts) unless the caller names one.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <type_traits>
#include <variant>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/bitmap/bitmap_spmm.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/macko/macko_spmv.hpp"
#include "kernels/sparse24/sparse24_gemm.hpp"
#include "python/src/py_api.hpp"
#include "python/src/py_core_detail.hpp"
#include "reference/macko/macko_policy.hpp"

namespace warpsparse::py {

using namespace detail;

bool cuda_built() { return true; }

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error of the next call
    return 0;
  }
  return n;
}

int cuda_current_device() {
  int d = 0;
  WS_CUDA(cudaGetDevice(&d));
  return d;
}

namespace {

// Makes `device` current for a launch and restores the caller's device after it.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    WS_CUDA(cudaGetDevice(&previous_));
    if (previous_ != device) WS_CUDA(cudaSetDevice(device));
  }
  ~DeviceGuard() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

cudaStream_t stream_of(std::uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

void require_elem(Elem got, Elem want, const char* what) {
  if (got != want)
    throw std::invalid_argument(std::string(what) + " must be " + elem_name(want) + ", got " + elem_name(got));
}

// Calls f(std::type_identity<TY>{}) for the output type `out` names: float32 or the matrix's T.
template <class T, class F>
void with_output_type(Elem out, const char* what, F&& f) {
  if (out == Elem::f32) return f(std::type_identity<float>{});
  if (out == elem_of<T>()) return f(std::type_identity<T>{});
  throw std::invalid_argument(std::string(what) + " must be float32 or the matrix's " + elem_name(elem_of<T>()) + ", got " +
                              elem_name(out));
}

int as_int(std::int64_t v, const char* what) {
  if (v < 0 || v > INT32_MAX) throw std::invalid_argument(std::string(what) + " = " + std::to_string(v) + " is out of range");
  return static_cast<int>(v);
}

}  // namespace

// ----- MACKO -------------------------------------------------------------------------------------

struct DeviceMacko::Impl {
  std::variant<gpu::DeviceMacko<half>, gpu::DeviceMacko<bfloat16>> d;
  int device = 0;
  std::map<int, macko::Schedule> policy;  // per compiled batch, chosen once at upload
};

DeviceMacko upload_macko(const Macko& m) {
  auto impl = std::make_shared<DeviceMacko::Impl>();
  impl->device = cuda_current_device();
  std::visit([&](const auto& a) {
    using T = typename std::decay_t<decltype(a)>::value_type;
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      const macko::MatrixStats stats = macko::matrix_stats(a);
      for (const int b : compiled_batches())
        impl->policy[b] = macko::choose_schedule(stats, gpu::device_facts(impl->device), b);
      impl->d = gpu::upload_macko(a);
    } else {
      throw std::invalid_argument("the MACKO kernels take fp16 or bf16 matrices, this one is " +
                                  std::string(to_string(a.kValueType)));
    }
  }, m.impl()->m);
  return DeviceMacko(std::move(impl));
}

std::int64_t DeviceMacko::rows() const { return std::visit([](const auto& d) { return d.rows; }, impl_->d); }
std::int64_t DeviceMacko::cols() const { return std::visit([](const auto& d) { return d.cols; }, impl_->d); }
std::string DeviceMacko::value_type() const { return impl_->d.index() == 0 ? "fp16" : "bf16"; }
int DeviceMacko::device() const { return impl_->device; }
std::uint64_t DeviceMacko::bytes() const { return std::visit([](const auto& d) { return d.bytes(); }, impl_->d); }

namespace {
const macko::Schedule& policy_schedule(const DeviceMacko::Impl& impl, int batch) {
  const auto it = impl.policy.find(batch);
  if (it == impl.policy.end()) {
    std::string list;
    for (const int b : compiled_batches()) list += (list.empty() ? "" : ", ") + std::to_string(b);
    throw std::invalid_argument("the MACKO kernels multiply " + list + " vectors at once, not " + std::to_string(batch) +
                                ": pad x with zero columns to the next of these");
  }
  return it->second;
}
}  // namespace

std::string DeviceMacko::schedule(int batch) const { return macko::to_string(policy_schedule(*impl_, batch)); }
bool DeviceMacko::gathers_x_through_l1(int tokens) const {
  const auto it = impl_->policy.find(macko::batch_for(tokens));
  return it != impl_->policy.end() && !it->second.x_shared;
}

void DeviceMacko::spmv(const void* x, void* y, Elem x_elem, Elem y_elem, int batch, float alpha, float beta,
                       const std::string& schedule, std::uintptr_t stream) const {
  macko::Schedule s = policy_schedule(*impl_, batch);
  if (!schedule.empty()) {
    s = macko::parse_schedule(schedule);
    if (s.batch != batch)
      throw std::invalid_argument("schedule " + schedule + " multiplies " + std::to_string(s.batch) + " vectors, x holds " +
                                  std::to_string(batch));
  }
  const DeviceGuard guard(impl_->device);
  std::visit([&](const auto& d) {
    using T = std::remove_pointer_t<decltype(d.values.get())>;
    require_elem(x_elem, elem_of<T>(), "x");
    with_output_type<T>(y_elem, "y", [&](auto out) {
      using TY = typename decltype(out)::type;
      gpu::macko_spmv<T, TY>(d, static_cast<const T*>(x), static_cast<TY*>(y), alpha, beta, s, stream_of(stream));
    });
  }, impl_->d);
}

double DeviceMacko::time_launches(const void* x, void* y, Elem y_elem, int batch, int iters, std::uintptr_t stream) const {
  if (iters < 1) throw std::invalid_argument("iters must be at least 1");
  const Elem x_elem = impl_->d.index() == 0 ? Elem::f16 : Elem::bf16;
  spmv(x, y, x_elem, y_elem, batch, 1.f, 0.f, "", stream);  // warm-up, and the argument checks
  const DeviceGuard guard(impl_->device);
  cudaEvent_t start = nullptr, stop = nullptr;
  WS_CUDA(cudaEventCreate(&start));
  WS_CUDA(cudaEventCreate(&stop));
  WS_CUDA(cudaEventRecord(start, stream_of(stream)));
  for (int i = 0; i < iters; ++i) spmv(x, y, x_elem, y_elem, batch, 1.f, 0.f, "", stream);
  WS_CUDA(cudaEventRecord(stop, stream_of(stream)));
  WS_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  WS_CUDA(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return 1000.0 * ms / iters;
}

// ----- 2:4 ---------------------------------------------------------------------------------------

struct DeviceSparse24::Impl {
  std::variant<sparse24::gpu::DeviceMatrix<half>, sparse24::gpu::DeviceMatrix<bfloat16>> d;
  int device = 0;
};

DeviceSparse24 upload_sparse24(const Sparse24& s) {
  auto impl = std::make_shared<DeviceSparse24::Impl>();
  impl->device = cuda_current_device();
  std::visit([&](const auto& a) {
    using T = std::decay_t<decltype(a.values[0])>;
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      impl->d = sparse24::gpu::upload(a);
    } else {
      throw std::invalid_argument("the 2:4 kernels take fp16 or bf16 matrices, this one is " +
                                  std::string(to_string(ValueTypeOf<T>::value)));
    }
  }, s.impl()->v);
  return DeviceSparse24(std::move(impl));
}

std::int64_t DeviceSparse24::rows() const { return std::visit([](const auto& d) { return std::int64_t{d.rows}; }, impl_->d); }
std::int64_t DeviceSparse24::cols() const { return std::visit([](const auto& d) { return std::int64_t{d.cols}; }, impl_->d); }
std::string DeviceSparse24::value_type() const { return impl_->d.index() == 0 ? "fp16" : "bf16"; }
int DeviceSparse24::device() const { return impl_->device; }

void DeviceSparse24::gemm(const void* b, Elem b_elem, std::int64_t n, std::int64_t ldb, void* c, Elem c_elem,
                          std::int64_t ldc, const std::string& tile, std::uintptr_t stream) const {
  const sparse24::gpu::Tile t = sparse24::gpu::parse_tile(tile.empty() ? "auto" : tile);
  const DeviceGuard guard(impl_->device);
  std::visit([&](const auto& d) {
    using T = std::remove_pointer_t<decltype(d.values.get())>;
    require_elem(b_elem, elem_of<T>(), "B");
    const int ni = as_int(n, "n"), lb = as_int(ldb, "ldb"), lc = as_int(ldc, "ldc");
    with_output_type<T>(c_elem, "C", [&](auto out) {
      using TY = typename decltype(out)::type;
      sparse24::gpu::gemm<T, TY>(d, static_cast<const T*>(b), ni, lb, static_cast<TY*>(c), lc, stream_of(stream), t);
    });
  }, impl_->d);
}

// ----- bitmap tiles ------------------------------------------------------------------------------

struct DeviceBitmap::Impl {
  std::variant<gpu::DeviceBitmap<half>, gpu::DeviceBitmap<bfloat16>> d;
  int device = 0;
};

DeviceBitmap upload_bitmap(const Bitmap& b) {
  auto impl = std::make_shared<DeviceBitmap::Impl>();
  impl->device = cuda_current_device();
  std::visit([&](const auto& a) {
    using T = typename std::decay_t<decltype(a)>::value_type;
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      impl->d = gpu::upload_bitmap(a);
    } else {
      throw std::invalid_argument("the bitmap-tile kernel takes fp16 or bf16 matrices, this one is " +
                                  std::string(to_string(ValueTypeOf<T>::value)));
    }
  }, b.impl()->v);
  return DeviceBitmap(std::move(impl));
}

std::int64_t DeviceBitmap::rows() const { return std::visit([](const auto& d) { return d.rows; }, impl_->d); }
std::int64_t DeviceBitmap::cols() const { return std::visit([](const auto& d) { return d.cols; }, impl_->d); }
std::string DeviceBitmap::value_type() const { return impl_->d.index() == 0 ? "fp16" : "bf16"; }
int DeviceBitmap::device() const { return impl_->device; }
std::uint64_t DeviceBitmap::bytes() const { return std::visit([](const auto& d) { return d.bytes(); }, impl_->d); }

namespace {
// The policy's schedule for `batch` vectors on the matrix's device (bitmap::choose_schedule).
bitmap::Schedule bitmap_schedule(const DeviceBitmap& a, int batch) {
  if (batch < 1 || batch > bitmap_max_batch())
    throw std::invalid_argument("the bitmap-tile kernel multiplies 1.." + std::to_string(bitmap_max_batch()) +
                                " vectors at once, not " + std::to_string(batch));
  return bitmap::choose_schedule(a.rows(), a.cols(), batch, gpu::device_facts(a.device()));
}
}  // namespace

std::int64_t DeviceBitmap::bound_chain(int batch) const {
  return bitmap::bound_chain(cols(), bitmap_schedule(*this, batch).parts);
}

void DeviceBitmap::spmm(const void* x, void* y, Elem x_elem, Elem y_elem, int batch, float alpha, float beta,
                        std::uintptr_t stream) const {
  const bitmap::Schedule s = bitmap_schedule(*this, batch);
  const DeviceGuard guard(impl_->device);
  std::visit([&](const auto& d) {
    using T = std::remove_pointer_t<decltype(d.values.get())>;
    require_elem(x_elem, elem_of<T>(), "x");
    with_output_type<T>(y_elem, "y", [&](auto out) {
      using TY = typename decltype(out)::type;
      gpu::bitmap_spmm<T, TY>(d, static_cast<const T*>(x), static_cast<TY*>(y), alpha, beta, s, stream_of(stream));
    });
  }, impl_->d);
}

// ----- allocations -------------------------------------------------------------------------------

struct DeviceAllocation::Impl {
  gpu::DeviceBuffer<std::uint8_t> buffer;
  int device = 0;
};

DeviceAllocation device_alloc(std::uint64_t bytes) {
  auto impl = std::make_shared<DeviceAllocation::Impl>();
  impl->device = cuda_current_device();
  impl->buffer = gpu::DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(bytes));
  return DeviceAllocation(std::move(impl));
}
void stream_order(std::uintptr_t from, std::uintptr_t to) {
  if (from == to) return;
  cudaEvent_t e = nullptr;
  WS_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  WS_CUDA(cudaEventRecord(e, stream_of(from)));
  WS_CUDA(cudaStreamWaitEvent(stream_of(to), e, 0));
  WS_CUDA(cudaEventDestroy(e));
}

void* DeviceAllocation::data() const { return impl_->buffer.get(); }
int DeviceAllocation::device() const { return impl_->device; }

}  // namespace warpsparse::py
