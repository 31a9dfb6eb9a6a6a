// The CUDA half of the facade in a build without nvcc: the package imports and says why a GPU call
// cannot run.
#include "python/src/py_api.hpp"

namespace warpsparse::py {

namespace {
[[noreturn]] void no_cuda() {
  throw std::runtime_error("warpsparse was built without CUDA (no nvcc at /usr/local/cuda when it was configured)");
}
}  // namespace

bool cuda_built() { return false; }
int cuda_device_count() { return 0; }
int cuda_current_device() { no_cuda(); }

struct DeviceMacko::Impl {};
DeviceMacko upload_macko(const Macko&) { no_cuda(); }
std::int64_t DeviceMacko::rows() const { no_cuda(); }
std::int64_t DeviceMacko::cols() const { no_cuda(); }
std::string DeviceMacko::value_type() const { no_cuda(); }
int DeviceMacko::device() const { no_cuda(); }
std::uint64_t DeviceMacko::bytes() const { no_cuda(); }
std::string DeviceMacko::schedule(int) const { no_cuda(); }
bool DeviceMacko::gathers_x_through_l1(int) const { no_cuda(); }
void DeviceMacko::spmv(const void*, void*, Elem, Elem, int, float, float, const std::string&, std::uintptr_t) const { no_cuda(); }
double DeviceMacko::time_launches(const void*, void*, Elem, int, int, std::uintptr_t) const { no_cuda(); }

struct DeviceSparse24::Impl {};
DeviceSparse24 upload_sparse24(const Sparse24&) { no_cuda(); }
std::int64_t DeviceSparse24::rows() const { no_cuda(); }
std::int64_t DeviceSparse24::cols() const { no_cuda(); }
std::string DeviceSparse24::value_type() const { no_cuda(); }
int DeviceSparse24::device() const { no_cuda(); }
void DeviceSparse24::gemm(const void*, Elem, std::int64_t, std::int64_t, void*, Elem, std::int64_t, const std::string&,
                          std::uintptr_t) const {
  no_cuda();
}

struct DeviceBitmap::Impl {};
DeviceBitmap upload_bitmap(const Bitmap&) { no_cuda(); }
std::int64_t DeviceBitmap::rows() const { no_cuda(); }
std::int64_t DeviceBitmap::cols() const { no_cuda(); }
std::string DeviceBitmap::value_type() const { no_cuda(); }
int DeviceBitmap::device() const { no_cuda(); }
std::uint64_t DeviceBitmap::bytes() const { no_cuda(); }
std::int64_t DeviceBitmap::bound_chain(int) const { no_cuda(); }
void DeviceBitmap::spmm(const void*, void*, Elem, Elem, int, float, float, std::uintptr_t) const { no_cuda(); }

struct DeviceAllocation::Impl {};
DeviceAllocation device_alloc(std::uint64_t) { no_cuda(); }
void* DeviceAllocation::data() const { no_cuda(); }
int DeviceAllocation::device() const { no_cuda(); }
void stream_order(std::uintptr_t, std::uintptr_t) { no_cuda(); }

}  // namespace warpsparse::py
