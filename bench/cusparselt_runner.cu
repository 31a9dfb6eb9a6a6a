// cuSPARSELt 2:4 GEMM baseline, loaded with dlopen at run time.
//
// Why dlopen: on the device machine cuSPARSELt exists only inside the Python package
// nvidia.cusparselt (lib/libcusparseLt.so.0, no plain .so link), and the programs are built on a
// machine without it. Loading at run time lets one binary run with or without the library; a
// missing or unloadable library prints "cuSPARSELt: not found, skipped".
//
// Where it looks, in order: $WS_CUSPARSELT_LIB (a file), the library found at configure time
// (WS_CUSPARSELT_LIBRARY_PATH), $WS_CUSPARSELT_DIR/lib/libcusparseLt.so.0, the nvidia.cusparselt
// package folders reported by `python3 -c ...` at run time, then plain "libcusparseLt.so.0"
// (LD_LIBRARY_PATH).
//
// The few declarations below follow the public cuSPARSELt C API (docs.nvidia.com/cuda/cusparselt,
// "cuSPARSELt Functions" and "Data Types"): enum values CUSPARSELT_SPARSITY_50_PERCENT = 0,
// CUSPARSE_COMPUTE_32F = 2, CUSPARSELT_MATMUL_ALG_DEFAULT = 0.
// The opaque objects are caller-allocated, fixed-size structs whose size grew across versions;
// we pass larger, 256-byte-aligned storage, which is safe because the library only ever reads
// and writes through the pointer within its own size. When the real header is available at
// build time (WS_HAVE_CUSPARSELT_HEADER), static_asserts pin the enum values and sizes to it.
#include <cusparse.h>  // cusparseStatus_t, cusparseOrder_t, cusparseOperation_t
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/gemm24_kernel.hpp"
#include "kernels/common/device_buffer.hpp"
#include "reference/common/error.hpp"

#if WS_HAVE_CUSPARSELT_HEADER
#include <cusparseLt.h>
#endif
#ifndef WS_CUSPARSELT_LIBRARY_PATH
#define WS_CUSPARSELT_LIBRARY_PATH ""
#endif

namespace warpsparse::bench {

namespace {

constexpr std::size_t kOpaqueBytes = 64 * 1024;
struct alignas(256) Opaque {
  unsigned char data[kOpaqueBytes];
};

constexpr int kSparsity50 = 0;      // CUSPARSELT_SPARSITY_50_PERCENT
constexpr int kCompute32F = 2;      // CUSPARSE_COMPUTE_32F (cuSPARSELt's cusparseComputeType)
constexpr int kMatmulAlgDefault = 0;  // CUSPARSELT_MATMUL_ALG_DEFAULT

#if WS_HAVE_CUSPARSELT_HEADER
static_assert(kSparsity50 == CUSPARSELT_SPARSITY_50_PERCENT);
static_assert(kCompute32F == CUSPARSE_COMPUTE_32F);
static_assert(kMatmulAlgDefault == CUSPARSELT_MATMUL_ALG_DEFAULT);
static_assert(sizeof(cusparseLtHandle_t) <= kOpaqueBytes && sizeof(cusparseLtMatDescriptor_t) <= kOpaqueBytes &&
              sizeof(cusparseLtMatmulDescriptor_t) <= kOpaqueBytes &&
              sizeof(cusparseLtMatmulAlgSelection_t) <= kOpaqueBytes && sizeof(cusparseLtMatmulPlan_t) <= kOpaqueBytes);
#endif

using Status = cusparseStatus_t;
using H = const Opaque*;  // every "const cusparseLt*_t*" argument
using M = Opaque*;        // every mutable one

struct Api {
  void* lib = nullptr;
  std::string path;
  Status (*init)(M) = nullptr;
  Status (*destroy)(H) = nullptr;
  Status (*get_version)(H, int*) = nullptr;
  Status (*dense_init)(H, M, std::int64_t, std::int64_t, std::int64_t, std::uint32_t, cudaDataType,
                       cusparseOrder_t) = nullptr;
  Status (*structured_init)(H, M, std::int64_t, std::int64_t, std::int64_t, std::uint32_t, cudaDataType,
                            cusparseOrder_t, int) = nullptr;
  Status (*mat_destroy)(H) = nullptr;
  Status (*matmul_init)(H, M, cusparseOperation_t, cusparseOperation_t, H, H, H, H, int) = nullptr;
  Status (*alg_init)(H, M, H, int) = nullptr;
  Status (*alg_destroy)(H) = nullptr;  // optional: cuSPARSELt >= 0.8
  Status (*plan_init)(H, M, H, H) = nullptr;
  Status (*plan_destroy)(H) = nullptr;
  Status (*get_workspace)(H, H, std::size_t*) = nullptr;
  Status (*prune_check)(H, H, const void*, int*, cudaStream_t) = nullptr;
  Status (*compressed_size)(H, H, std::size_t*, std::size_t*) = nullptr;
  Status (*compress)(H, H, const void*, void*, void*, cudaStream_t) = nullptr;
  Status (*matmul)(H, H, const void*, const void*, const void*, const void*, const void*, void*, void*,
                   cudaStream_t*, std::int32_t) = nullptr;
  Status (*search)(H, M, const void*, const void*, const void*, const void*, const void*, void*, void*,
                   cudaStream_t*, std::int32_t) = nullptr;
  const char* (*error_string)(Status) = nullptr;  // optional: cuSPARSELt >= 0.8
  int version = 0;
};

std::vector<std::string> python_package_dirs() {
  std::vector<std::string> out;
  FILE* p = popen(
      "python3 -c \"import os, nvidia.cusparselt as m; "
      "print('\\n'.join(list(getattr(m, '__path__', None) or [os.path.dirname(m.__file__)])))\" 2>/dev/null",
      "r");
  if (!p) return out;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) {
    std::string s = buf;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty()) out.push_back(s);
  }
  pclose(p);
  return out;
}

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

// Loads once; on failure `why` says what was tried.
Api* load_api(std::string& why) {
  static Api api;
  static bool tried = false;
  static std::string failure;
  if (tried) {
    why = failure;
    return api.lib ? &api : nullptr;
  }
  tried = true;
  std::vector<std::string> candidates;
  if (const char* e = std::getenv("WS_CUSPARSELT_LIB"); e && *e) candidates.push_back(e);
  if (std::string(WS_CUSPARSELT_LIBRARY_PATH).size()) candidates.push_back(WS_CUSPARSELT_LIBRARY_PATH);
  if (const char* e = std::getenv("WS_CUSPARSELT_DIR"); e && *e) candidates.push_back(std::string(e) + "/lib/libcusparseLt.so.0");
  for (const auto& d : python_package_dirs()) candidates.push_back(d + "/lib/libcusparseLt.so.0");
  candidates.push_back("libcusparseLt.so.0");
  std::string tried_list;
  for (const auto& c : candidates) {
    void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* err = dlerror();
      tried_list += "\n    " + c + ": " + (err ? err : "dlopen failed");
      continue;
    }
    api.lib = lib;
    api.path = c;
    break;
  }
  if (!api.lib) {
    failure = "libcusparseLt.so.0 could not be loaded; tried:" + tried_list;
    why = failure;
    return nullptr;
  }
  std::string missing;
  auto need = [&](const char* name, auto& fn) {
    if (!bind(api.lib, name, fn)) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  need("cusparseLtInit", api.init);
  need("cusparseLtDestroy", api.destroy);
  need("cusparseLtGetVersion", api.get_version);
  need("cusparseLtDenseDescriptorInit", api.dense_init);
  need("cusparseLtStructuredDescriptorInit", api.structured_init);
  need("cusparseLtMatDescriptorDestroy", api.mat_destroy);
  need("cusparseLtMatmulDescriptorInit", api.matmul_init);
  need("cusparseLtMatmulAlgSelectionInit", api.alg_init);
  need("cusparseLtMatmulPlanInit", api.plan_init);
  need("cusparseLtMatmulPlanDestroy", api.plan_destroy);
  need("cusparseLtMatmulGetWorkspace", api.get_workspace);
  need("cusparseLtSpMMAPruneCheck", api.prune_check);
  need("cusparseLtSpMMACompressedSize", api.compressed_size);
  need("cusparseLtSpMMACompress", api.compress);
  need("cusparseLtMatmul", api.matmul);
  need("cusparseLtMatmulSearch", api.search);
  if (!missing.empty()) {
    failure = api.path + " lacks entry points this benchmark needs: " + missing;
    why = failure;
    dlclose(api.lib);
    api.lib = nullptr;
    return nullptr;
  }
  if (!bind(api.lib, "cusparseLtMatmulAlgSelectionDestroy", api.alg_destroy))
    bind(api.lib, "cusparseLtAlgSelectionDestroy", api.alg_destroy);
  bind(api.lib, "cusparseLtGetErrorString", api.error_string);
  return &api;
}

class CusparseLtKernel final : public Gemm24Kernel {
 public:
  CusparseLtKernel(Api* api, bool search) : api_(api), search_(search) {
    check(api_->init(&handle_), "cusparseLtInit");
    handle_ok_ = true;
    int v = 0;
    if (api_->get_version(&handle_, &v) == CUSPARSE_STATUS_SUCCESS) api_->version = v;
  }
  ~CusparseLtKernel() override {
    release();
    if (handle_ok_) api_->destroy(&handle_);
  }
  std::string name() const override { return "cusparselt"; }

  void prepare(const Gemm24Problem& p, cudaStream_t stream) override {
    release();
    p_ = p;
    const cusparseOrder_t row = CUSPARSE_ORDER_ROW;
    const cudaDataType bf = CUDA_R_16BF;
    const cusparseOperation_t nt = CUSPARSE_OPERATION_NON_TRANSPOSE;
    check(api_->structured_init(&handle_, &a_, p.m, p.k, p.k, 16, bf, row, kSparsity50),
          "cusparseLtStructuredDescriptorInit(A)");
    a_ok_ = true;
    check(api_->dense_init(&handle_, &b_, p.k, p.n, p.n, 16, bf, row), "cusparseLtDenseDescriptorInit(B)");
    b_ok_ = true;
    check(api_->dense_init(&handle_, &c_, p.m, p.n, p.n, 16, bf, row), "cusparseLtDenseDescriptorInit(C)");
    c_ok_ = true;
    check(api_->matmul_init(&handle_, &matmul_, nt, nt, &a_, &b_, &c_, &c_, kCompute32F),
          "cusparseLtMatmulDescriptorInit");
    check(api_->alg_init(&handle_, &alg_, &matmul_, kMatmulAlgDefault), "cusparseLtMatmulAlgSelectionInit");
    alg_ok_ = true;
    check(api_->plan_init(&handle_, &plan_, &matmul_, &alg_), "cusparseLtMatmulPlanInit");
    plan_ok_ = true;

    // The harness's A is 2:4 already; cuSPARSELt must agree (same direction, same groups).
    // The check sets the flag where it finds a broken group and leaves it otherwise (seen on the
    // H100: uncleared, it read back as whatever the memory held before), so it starts at 0.
    gpu::DeviceBuffer<int> valid(1);
    WS_CUDA(cudaMemsetAsync(valid.get(), 0, sizeof(int), stream));
    check(api_->prune_check(&handle_, &matmul_, p.a, valid.get(), stream), "cusparseLtSpMMAPruneCheck");
    int v = -1;
    WS_CUDA(cudaMemcpyAsync(&v, valid.get(), sizeof v, cudaMemcpyDeviceToHost, stream));
    WS_CUDA(cudaStreamSynchronize(stream));
    require(v == 0, "cuSPARSELt says A is not 2:4 sparse along K (prune check " + std::to_string(v) + ")");

    std::size_t csize = 0, cbuf = 0, ws = 0;
    check(api_->compressed_size(&handle_, &plan_, &csize, &cbuf), "cusparseLtSpMMACompressedSize");
    compressed_ = gpu::DeviceBuffer<std::uint8_t>(std::max<std::size_t>(csize, 1));
    gpu::DeviceBuffer<std::uint8_t> cbuffer(std::max<std::size_t>(cbuf, 1));
    check(api_->compress(&handle_, &plan_, p.a, compressed_.get(), cbuffer.get(), stream), "cusparseLtSpMMACompress");
    WS_CUDA(cudaStreamSynchronize(stream));
    check(api_->get_workspace(&handle_, &plan_, &ws), "cusparseLtMatmulGetWorkspace");
    workspace_ = gpu::DeviceBuffer<std::uint8_t>(std::max<std::size_t>(ws, 1));
    if (search_) {
      // Picks the fastest configuration by running the candidates (untimed, like a user would
      // once per shape); it may change the workspace size.
      cudaStream_t s = stream;
      check(api_->search(&handle_, &plan_, &alpha_, compressed_.get(), p.b, &beta_, p.c, p.c, workspace_.get(), &s, 1),
            "cusparseLtMatmulSearch");
      WS_CUDA(cudaStreamSynchronize(stream));
      check(api_->get_workspace(&handle_, &plan_, &ws), "cusparseLtMatmulGetWorkspace");
      if (ws > workspace_.size()) workspace_ = gpu::DeviceBuffer<std::uint8_t>(ws);
    }
  }

  void run(cudaStream_t stream) override {
    cudaStream_t s = stream;
    check(api_->matmul(&handle_, &plan_, &alpha_, compressed_.get(), p_.b, &beta_, p_.c, p_.c, workspace_.get(), &s, 1),
          "cusparseLtMatmul");
  }

  std::uint64_t device_bytes() const override { return compressed_.bytes() + workspace_.bytes(); }

 private:
  void check(Status s, const char* what) const {
    if (s == CUSPARSE_STATUS_SUCCESS) return;
    std::string msg = std::string(what) + " failed with status " + std::to_string(static_cast<int>(s));
    if (api_->error_string) msg += std::string(" (") + api_->error_string(s) + ")";
    throw Error(msg);
  }
  void release() {
    if (plan_ok_) api_->plan_destroy(&plan_);
    if (alg_ok_ && api_->alg_destroy) api_->alg_destroy(&alg_);
    if (a_ok_) api_->mat_destroy(&a_);
    if (b_ok_) api_->mat_destroy(&b_);
    if (c_ok_) api_->mat_destroy(&c_);
    plan_ok_ = alg_ok_ = a_ok_ = b_ok_ = c_ok_ = false;
    compressed_ = {};
    workspace_ = {};
  }

  Api* api_;
  bool search_;
  Opaque handle_{}, a_{}, b_{}, c_{}, matmul_{}, alg_{}, plan_{};
  bool handle_ok_ = false, a_ok_ = false, b_ok_ = false, c_ok_ = false, alg_ok_ = false, plan_ok_ = false;
  Gemm24Problem p_;
  gpu::DeviceBuffer<std::uint8_t> compressed_, workspace_;
  float alpha_ = 1.0f, beta_ = 0.0f;
};

}  // namespace

std::unique_ptr<Gemm24Kernel> make_cusparselt_kernel(bool search, std::string& why) {
  Api* api = load_api(why);
  if (!api) return nullptr;
  try {
    return std::make_unique<CusparseLtKernel>(api, search);
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
}

std::string cusparselt_description() {
  std::string why;
  Api* api = load_api(why);
  if (!api) return "not found";
  return api->path + (api->version ? " (version " + std::to_string(api->version) + ")" : "");
}

}  // namespace warpsparse::bench
