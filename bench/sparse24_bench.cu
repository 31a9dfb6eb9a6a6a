// ws_bench_sparse24: 2:4 sparse GEMM against dense cuBLAS and cuSPARSELt, in one program and one
// run, with the same inputs, L2 flushed before every timed launch, CUDA events, medians.
//
// Problem: C (M x N) = A (M x K, 2:4 along K) * B (K x N), bf16 in and out, fp32 accumulation,
// row-major. M x K is a weight matrix (macko-paper.txt Appendix D shapes, rows x cols), N the
// token count. TFLOP/s counts the dense work, 2 M N K, for every kernel (as the targets do).
// Kernels: cublas_dense (cublasGemmEx on A with its zeros), cusparselt (optional, loaded at run
// time), and the warpsparse 2:4 kernels chosen by --ws-tiles (sparse24_hook.cpp).
// Every output is poisoned (NaN) before a checked run, scanned for non-finite values, and
// compared with a double-precision oracle on a sample of rows x columns.
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_cli.hpp"
#include "bench/bench_common.hpp"
#include "bench/cublas_check.hpp"
#include "analysis/effd.hpp"  // paper_shapes
#include "bench/gemm24_kernel.hpp"
#include "bench/matrix_file.hpp"
#include "reference/values/value_types.hpp"

using namespace warpsparse;
using namespace warpsparse::bench;

namespace {

constexpr const char* kCubes = "4096x4096x4096,8192x8192x8192";
constexpr const char* kQuickWeights = "4096x4096,12288x12288,28672x8192";
constexpr const char* kQuickTokens = "16,512,4096";
constexpr const char* kFullTokens = "16,128,512,2048,4096";


// --- inputs, generated on the device from a counter-based hash (no host round trip) --------------
__device__ __forceinline__ std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// A value in +-[0.25, 1): never zero, so the 2:4 pattern is exactly two nonzeros per group.
__device__ __forceinline__ float nonzero_value(std::uint64_t h) {
  const float mag = 0.25f + 0.75f * static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
  return (h & 1) ? -mag : mag;
}

// A: M x K row-major; in each aligned group of four along K, two positions (one of the six
// pairs, chosen by hash) hold values, the other two are zero.
__global__ void fill_a_24(__nv_bfloat16* a, std::int64_t m, std::int64_t k, std::uint64_t seed) {
  const std::int64_t groups = m * (k / 4);
  for (std::int64_t g = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; g < groups;
       g += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t h = mix64(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(g));
    constexpr unsigned char kPairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    const unsigned pick = static_cast<unsigned>(h % 6);
    for (int j = 0; j < 4; ++j) {
      const bool keep = j == kPairs[pick][0] || j == kPairs[pick][1];
      a[g * 4 + j] = __float2bfloat16_rn(keep ? nonzero_value(mix64(h + 0x1000 + j)) : 0.0f);
    }
  }
}

__global__ void fill_dense(__nv_bfloat16* b, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    b[i] = __float2bfloat16_rn(nonzero_value(mix64(seed * 0xD1B54A32D192ED03ull + static_cast<std::uint64_t>(i))));
}

__global__ void count_nonfinite(const __nv_bfloat16* c, std::int64_t n, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (!isfinite(__bfloat162float(c[i]))) ++local;
  if (local) atomicAdd(count, local);
}

unsigned grid_for(std::int64_t n) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 132 * 16));
}

// --- dense cuBLAS baseline ------------------------------------------------------------------------
class CublasDense final : public Gemm24Kernel {
 public:
  CublasDense() { WS_CUBLAS(cublasCreate(&h_)); }
  ~CublasDense() override { cublasDestroy(h_); }
  std::string name() const override { return "cublas_dense"; }
  void prepare(const Gemm24Problem& p, cudaStream_t) override {
    require(p.m <= 0x7fffffff && p.n <= 0x7fffffff && p.k <= 0x7fffffff, "cuBLAS needs int dimensions");
    p_ = p;
  }
  void run(cudaStream_t stream) override {
    WS_CUBLAS(cublasSetStream(h_, stream));
    // Row-major C = A B is column-major C^T = B^T A^T: B is (N x K, ld N), A is (K x M, ld K).
    const int m = static_cast<int>(p_.m), n = static_cast<int>(p_.n), k = static_cast<int>(p_.k);
    WS_CUBLAS(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha_, p_.b, CUDA_R_16BF, n, p_.a, CUDA_R_16BF, k,
                           &beta_, p_.c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  int version() const {
    int v = 0;
    cublasGetVersion(h_, &v);
    return v;
  }

 private:
  cublasHandle_t h_ = nullptr;
  Gemm24Problem p_;
  float alpha_ = 1.0f, beta_ = 0.0f;
};

struct Options : CommonOptions {
  std::string sizes, weights, tokens;
  std::vector<std::string> matrices;  // --matrix FILE[:TENSOR]: a 2:4 weight of your own (M x K)
  bool transpose = false;
  std::string kernels = "cublas_dense,cusparselt,warpsparse";
  bool no_search = false;
  std::string ws_tiles = "auto";
  int sample_rows = 16, sample_cols = 64;
};

struct Case {
  std::int64_t m, n, k;
  std::string weight;  // "cube", ROWSxCOLS of the weight, or "file:FILE[:TENSOR]"
  std::string matrix;  // --matrix: the weight is read from it rather than drawn
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A weight read from a file must already be 2:4 along K (every group of 4 columns at most 2
// nonzeros, +-0 being zero): named otherwise, with the way to make it so.
void require_24(const std::vector<std::uint16_t>& bf16, std::int64_t m, std::int64_t k, const std::string& what) {
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t g = 0; g + 4 <= k; g += 4) {
      int nz = 0;
      for (int i = 0; i < 4; ++i) nz += (bf16[static_cast<std::size_t>(r * k + g + i)] & 0x7fff) != 0;
      if (nz > 2)
        throw Error(what + ": not 2:4: row " + std::to_string(r) + " columns " + std::to_string(g) + ".." + std::to_string(g + 3) +
                    " hold " + std::to_string(nz) + " nonzeros (warpsparse prune --nm 2:4 makes a checkpoint 2:4)");
    }
}

std::vector<Case> build_cases(const Options& o) {
  std::vector<Case> cases;
  for (const auto& s : split_list(o.sizes)) {
    const auto d = parse_dims(s);
    require(d.size() == 3, "a size is MxNxK, got '" + s + "'");
    cases.push_back({d[0], d[1], d[2], "cube"});
  }
  std::vector<std::array<std::int64_t, 2>> ws;
  if (o.weights == "paper" || o.weights == "all") {
    for (const auto& p : analysis::paper_shapes()) ws.push_back({p.rows, p.cols});
  } else {
    for (const auto& s : split_list(o.weights)) {
      const auto d = parse_dims(s);
      require(d.size() == 2, "a weight shape is ROWSxCOLS, got '" + s + "'");
      ws.push_back({d[0], d[1]});
    }
  }
  std::vector<std::int64_t> toks;
  for (const auto& t : split_list(o.tokens)) {
    const auto d = parse_dims(t);
    require(d.size() == 1, "bad token count '" + t + "'");
    toks.push_back(d[0]);
  }
  for (const auto& w : ws)
    for (const auto t : toks)
      cases.push_back({w[0], t, w[1], std::to_string(w[0]) + "x" + std::to_string(w[1]), ""});
  for (const auto& f : o.matrices) {
    const MatrixFileInfo info = matrix_file_info(f, o.transpose);
    for (const auto t : toks) cases.push_back({info.rows, t, info.cols, "file:" + f, f});
  }
  for (const auto& c : cases)
    require(c.k % 4 == 0, "K = " + std::to_string(c.k) + " is not a multiple of 4 (2:4 groups along K)");
  return cases;
}

struct Check {
  double max_abs = 0, max_rel = 0;
  unsigned long long nonfinite = 0;
  bool pass = true;
};

// Sampled oracle: rows and columns spread over the matrix (first and last included).
std::vector<std::int64_t> spread(std::int64_t n, int count) {
  std::vector<std::int64_t> v;
  if (n <= count) {
    for (std::int64_t i = 0; i < n; ++i) v.push_back(i);
    return v;
  }
  for (int i = 0; i < count; ++i) v.push_back(i * (n - 1) / (count - 1));
  return v;
}

struct Sample {
  std::vector<std::int64_t> rows, cols;
  std::vector<double> ref, abs_sum;  // rows x cols
};

Sample make_sample(const Gemm24Problem& p, const Options& o) {
  Sample s;
  s.rows = spread(p.m, o.sample_rows);
  s.cols = spread(p.n, o.sample_cols);
  std::vector<bfloat16> arow(static_cast<std::size_t>(p.k)), bcol(static_cast<std::size_t>(p.k));
  std::vector<std::vector<float>> bcols;
  for (const auto c : s.cols) {
    WS_CUDA(cudaMemcpy2D(bcol.data(), sizeof(bfloat16), static_cast<const bfloat16*>(p.b) + c, p.n * sizeof(bfloat16),
                         sizeof(bfloat16), p.k, cudaMemcpyDeviceToHost));
    std::vector<float> f(bcol.size());
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = to_float(bcol[i]);
    bcols.push_back(std::move(f));
  }
  for (const auto r : s.rows) {
    WS_CUDA(cudaMemcpy(arow.data(), static_cast<const bfloat16*>(p.a) + r * p.k, p.k * sizeof(bfloat16),
                       cudaMemcpyDeviceToHost));
    for (const auto& bc : bcols) {
      double acc = 0, abs = 0;
      for (std::int64_t i = 0; i < p.k; ++i) {
        const double prod = double(to_float(arow[i])) * double(bc[i]);
        acc += prod;
        abs += std::abs(prod);
      }
      s.ref.push_back(acc);
      s.abs_sum.push_back(abs);
    }
  }
  return s;
}

// Non-finite scan over all of C, then the sampled elements against the oracle within
// gamma_{2(K+2)} sum|a b| + u_bf16 |c| (any summation order; tensor-core accumulation may
// truncate, hence the factor 2).
Check check_output(const Gemm24Problem& p, const Sample& s, cudaStream_t stream) {
  Check c;
  gpu::DeviceBuffer<unsigned long long> count(1);
  WS_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), stream));
  const std::int64_t n = p.m * p.n;
  count_nonfinite<<<grid_for(n), 256, 0, stream>>>(static_cast<const __nv_bfloat16*>(p.c), n, count.get());
  WS_CUDA(cudaGetLastError());
  WS_CUDA(cudaMemcpyAsync(&c.nonfinite, count.get(), sizeof c.nonfinite, cudaMemcpyDeviceToHost, stream));
  WS_CUDA(cudaStreamSynchronize(stream));
  if (c.nonfinite) c.pass = false;
  const double u = std::ldexp(1.0, -24), u_out = std::ldexp(1.0, -8);
  const double kk = 2.0 * double(p.k + 2);
  const double gamma = kk * u / (1 - kk * u);
  std::vector<bfloat16> crow(static_cast<std::size_t>(p.n));
  double ymax = 0;
  std::size_t idx = 0;
  for (const auto r : s.rows) {
    WS_CUDA(cudaMemcpy(crow.data(), static_cast<const bfloat16*>(p.c) + r * p.n, p.n * sizeof(bfloat16),
                       cudaMemcpyDeviceToHost));
    for (const auto col : s.cols) {
      const double got = to_float(crow[col]);
      const double ref = s.ref[idx], bound = gamma * s.abs_sum[idx] + u_out * std::abs(ref) + 1e-30;
      ++idx;
      ymax = std::max(ymax, std::abs(ref));
      if (!std::isfinite(got)) {
        c.pass = false;
        continue;
      }
      const double err = std::abs(got - ref);
      c.max_abs = std::max(c.max_abs, err);
      if (err > bound) c.pass = false;
    }
  }
  c.max_rel = ymax > 0 ? c.max_abs / ymax : c.max_abs;
  return c;
}

struct Result {
  std::string kernel;
  Timed t;
  Check check;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ws_bench_sparse24: 2:4 bf16 GEMM — dense cuBLAS, cuSPARSELt and the warpsparse kernels"};
  Options o;
  add_common_options(app, o, std::string(kCubes) + " and weights " + kQuickWeights + " x tokens " + kQuickTokens,
                     std::string("cubes and all 31 weight shapes x tokens ") + kFullTokens);
  app.add_option("--sizes", o.sizes, "MxNxK list (plain GEMMs)");
  app.add_option("--weights", o.weights, "weight shapes ROWSxCOLS (M x K), or 'paper'; 'none' for none");
  app.add_option("--tokens", o.tokens, "token counts N for the weight shapes and the --matrix weights");
  app.add_option("--matrix", o.matrices,
                 "a 2:4 weight of your own as A (M x K), at each --tokens N (repeatable): FILE.safetensors:TENSOR, "
                 "INDEX.json:TENSOR, FILE.npy, FILE.npz:NAME or FILE.mtx");
  app.add_flag("--transpose", o.transpose, "the --matrix tensors are [in, out] (default [out, in])");
  app.add_option("--kernels", o.kernels, "subset of cublas_dense,cusparselt,warpsparse")->capture_default_str();
  std::string tile_keys;
  for (const auto& k : warpsparse_gemm24_tile_keys()) tile_keys += (tile_keys.empty() ? "" : ", ") + k;
  app.add_option("--ws-tiles", o.ws_tiles,
                 "warpsparse 2:4 kernels, by tile: " + tile_keys +
                     " (auto: the one sparse24::gpu::gemm picks on this GPU, named after it)")
      ->capture_default_str();
  app.add_flag("--no-search", o.no_search, "skip cusparseLtMatmulSearch (use the default configuration)");
  app.add_option("--sample-rows", o.sample_rows, "rows of C checked against the double oracle")->capture_default_str();
  app.add_option("--sample-cols", o.sample_cols, "columns of C checked against the double oracle")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    // With --matrix, the generated cases run only when asked for.
    if (o.sizes.empty()) o.sizes = o.matrices.empty() ? kCubes : "none";
    if (o.sizes == "none") o.sizes.clear();
    if (o.weights.empty()) o.weights = !o.matrices.empty() ? "none" : o.full ? "paper" : kQuickWeights;
    if (o.weights == "none") o.weights.clear();
    if (o.tokens.empty()) o.tokens = o.full ? kFullTokens : kQuickTokens;
    require(o.sample_rows >= 2 && o.sample_cols >= 2, "--sample-rows and --sample-cols must be >= 2");
    require_known(split_list(o.kernels), {"cublas_dense", "cusparselt", "warpsparse"}, "kernel");
    require_known(split_list(o.ws_tiles), warpsparse_gemm24_tile_keys(), "--ws-tiles entry");
    const auto cases = build_cases(o);
    std::fprintf(stderr, "# %zu cases, warmup %d (at least %d ms), iters %d, L2 flush %s\n", cases.size(),
                 o.warmup, o.warmup_ms, o.iters, o.no_flush ? "off" : "on");
    if (o.dry_run) {
      for (const auto& c : cases)
        std::printf("M=%lld N=%lld K=%lld (%s)\n", static_cast<long long>(c.m), static_cast<long long>(c.n),
                    static_cast<long long>(c.k), c.weight.c_str());
      return 0;
    }
    if (!gpu::device_available()) {
      std::fprintf(stderr, "ws_bench_sparse24: no CUDA device, nothing timed\n");
      return 77;
    }
    auto want = [&](const std::string& k) {
      const auto ks = split_list(o.kernels);
      return std::find(ks.begin(), ks.end(), k) != ks.end();
    };
    const DeviceInfo dev = query_device_info(0);
    const TimingConfig timing = o.timing();
    L2Flusher flusher(dev.l2_bytes);
    ClockSampler sampler(dev.device);
    if (!sampler.available()) std::fprintf(stderr, "# NVML not loadable: no clock or power samples\n");
    cudaStream_t stream = nullptr;
    WS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const double copy_gbps = measure_copy_bandwidth(std::int64_t{1} << 30, TimingConfig{10, 50, true}, flusher, stream);

    // Kernels: dense baseline first (speedups are against it), then cuSPARSELt, then ours.
    std::vector<std::unique_ptr<Gemm24Kernel>> kernels;
    int cublas_version = 0;
    if (want("cublas_dense")) {
      auto k = std::make_unique<CublasDense>();
      cublas_version = k->version();
      kernels.push_back(std::move(k));
    }
    std::string cslt_status = "not requested";
    if (want("cusparselt")) {
      std::string why;
      auto k = make_cusparselt_kernel(!o.no_search, why);
      if (k) {
        cslt_status = cusparselt_description();
        kernels.push_back(std::move(k));
        std::fprintf(stderr, "# cuSPARSELt: %s\n", cslt_status.c_str());
      } else {
        cslt_status = "not found: " + why;
        std::fprintf(stderr, "cuSPARSELt: not found, skipped (%s)\n", why.c_str());
      }
    }
    if (want("warpsparse")) {
      auto ours = make_warpsparse_gemm24_kernels(o.ws_tiles);
      if (ours.empty()) std::fprintf(stderr, "# warpsparse 2:4 kernels: none selected (--ws-tiles)\n");
      for (auto& k : ours) kernels.push_back(std::move(k));
    }

    auto meta = run_metadata(dev, copy_gbps, "ws_bench_sparse24", command_line(argc, argv));
    meta["cublas_version"] = cublas_version;
    meta["cusparselt"] = cslt_status;
    meta["cusparselt_search"] = !o.no_search;
    meta["warmup"] = o.warmup;
    meta["iters"] = o.iters;
    meta["rest_ms"] = o.rest_ms;
    meta["warmup_ms"] = o.warmup_ms;
    meta["clock_samples"] = sampler.available() ? "NVML every 5 ms over the timed launches" : "none (NVML not loadable)";
    meta["oracle"] = "non-finite scan of all of C; double-precision oracle on sample_rows x sample_cols elements";
    const std::string commit = git_commit(), stamp = utc_timestamp();
    const auto writer_ptr = open_results(o.out, dev, "sparse24", meta);
    ResultWriter& writer = *writer_ptr;

    std::vector<std::string> table;
    int failures = 0, errors = 0;
    for (std::size_t ci = 0; ci < cases.size(); ++ci) {
      const Case& c = cases[ci];
      const std::string label = "[" + std::to_string(ci + 1) + "/" + std::to_string(cases.size()) + "] M=" +
                                std::to_string(c.m) + " N=" + std::to_string(c.n) + " K=" + std::to_string(c.k);
      try {
        const std::uint64_t need = (c.m * c.k + c.k * c.n + c.m * c.n) * sizeof(bfloat16) + c.m * c.k;  // + compressed A
        require_device_memory(need, label);
        gpu::DeviceBuffer<bfloat16> a(static_cast<std::size_t>(c.m * c.k)), b(static_cast<std::size_t>(c.k * c.n)),
            cbuf(static_cast<std::size_t>(c.m * c.n));
        const std::uint64_t seed = o.seed * 1000003ull + static_cast<std::uint64_t>(c.m * 31 + c.n * 7 + c.k);
        if (c.matrix.empty()) {
          fill_a_24<<<grid_for(c.m * c.k / 4), 256, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(a.get()), c.m, c.k, seed);
        } else {
          MatrixFileInfo info;
          const std::vector<std::uint16_t> host = matrix_file_bf16(c.matrix, o.transpose, info);
          require_24(host, c.m, c.k, c.matrix);
          WS_CUDA(cudaMemcpyAsync(a.get(), host.data(), host.size() * 2, cudaMemcpyHostToDevice, stream));
        }
        fill_dense<<<grid_for(c.k * c.n), 256, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(b.get()), c.k * c.n, seed + 1);
        WS_CUDA(cudaGetLastError());
        WS_CUDA(cudaStreamSynchronize(stream));
        const Gemm24Problem p{c.m, c.n, c.k, a.get(), b.get(), cbuf.get()};
        const Sample sample = make_sample(p, o);
        std::vector<Result> results;
        auto skipped = [&](const Gemm24Kernel& k, const Error& e) {
          std::fprintf(stderr, "  %s skipped: %s\n", k.name().c_str(), e.what());
          WS_CUDA(cudaStreamSynchronize(stream));
        };
        // Every kernel's set-up runs before any is timed. Set up just before its own series, a kernel
        // met the power state its set-up left (cuSPARSELt's search keeps the GPU busy, our host-side
        // compression leaves it idle), and a short series (512 tokens: tens of ms) kept that state.
        std::vector<bool> ready(kernels.size(), false);
        for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
          try {
            kernels[ki]->prepare(p, stream);
            ready[ki] = true;
          } catch (const Error& e) {
            skipped(*kernels[ki], e);
          }
        }
        WS_CUDA(cudaStreamSynchronize(stream));
        for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
          if (!ready[ki]) continue;
          auto& k = kernels[ki];
          try {
            WS_CUDA(cudaMemsetAsync(cbuf.get(), 0xff, cbuf.bytes(), stream));  // NaN in bf16
            k->run(stream);
            WS_CUDA(cudaGetLastError());
            WS_CUDA(cudaStreamSynchronize(stream));
            Result r;
            r.kernel = k->name();
            r.check = check_output(p, sample, stream);
            if (!r.check.pass) {
              ++failures;
              std::fprintf(stderr, "  FAIL %s: max_abs_err %.3g, %llu non-finite\n", r.kernel.c_str(), r.check.max_abs,
                           r.check.nonfinite);
            }
            r.t = time_launches([&](cudaStream_t s) { k->run(s); }, timing, flusher, stream, &sampler);
            results.push_back(r);
          } catch (const Error& e) {
            skipped(*k, e);
          }
        }
        double t_dense = std::numeric_limits<double>::quiet_NaN(), t_cslt = t_dense;
        for (const auto& r : results) {
          if (r.kernel == "cublas_dense") t_dense = r.t.median;
          if (r.kernel == "cusparselt") t_cslt = r.t.median;
        }
        const double flop = 2.0 * double(c.m) * double(c.n) * double(c.k);
        std::string line = fmt("%6.0f", double(c.m)) + fmt(" %6.0f", double(c.n)) + fmt(" %6.0f", double(c.k));
        std::map<std::string, double> tf;
        for (const auto& r : results) {
          const double tflops = flop / (r.t.median * 1e-6) / 1e12;
          tf[r.kernel] = tflops;
          writer.write({{"gpu", dev.name},
                        {"kernel", r.kernel},
                        {"m", std::int64_t{c.m}},
                        {"n", std::int64_t{c.n}},
                        {"k", std::int64_t{c.k}},
                        {"weight_shape", c.weight},
                        {"value_type", std::string("bf16")},
                        {"median_us", r.t.median},
                        {"p10_us", r.t.p10},
                        {"p90_us", r.t.p90},
                        {"tflops", tflops},
                        {"speedup_vs_cublas", opt_double(t_dense / r.t.median)},
                        {"pct_of_cusparselt", opt_double(100.0 * t_cslt / r.t.median)},
                        {"max_abs_err", opt_double(r.check.max_abs)},
                        {"max_rel_err", opt_double(r.check.max_rel)},
                        {"check", std::string(r.check.pass ? "pass" : "FAIL")},
                        {"iters", std::int64_t{static_cast<std::int64_t>(r.t.n)}},
                        {"rest_ms", std::int64_t{o.rest_ms}},
                        {"warmup_ms", std::int64_t{o.warmup_ms}},
                        {"sm_mhz_median", opt_double(r.t.clocks.sm_mhz_median)},
                        {"sm_mhz_min", opt_double(r.t.clocks.sm_mhz_min)},
                        {"power_w_max", opt_double(r.t.clocks.power_w_max)},
                        {"power_limited_pct", opt_double(r.t.clocks.power_limited_pct)},
                        {"commit", commit},
                        {"timestamp", stamp}});
          std::fprintf(stderr,
                       "  %-18s %10.1f us  %7.1f TFLOP/s  %s  (SM %.0f MHz median, %.0f min; %.0f W max; "
                       "%.0f%% power-limited)\n",
                       r.kernel.c_str(), r.t.median, tflops, r.check.pass ? "ok" : "FAIL", r.t.clocks.sm_mhz_median,
                       r.t.clocks.sm_mhz_min, r.t.clocks.power_w_max, r.t.clocks.power_limited_pct);
        }
        for (const char* k : {"cublas_dense", "cusparselt"})
          line += tf.count(k) ? fmt(" %9.1f", tf[k]) : std::string("         -");
        for (const auto& r : results)
          if (r.kernel != "cublas_dense" && r.kernel != "cusparselt")
            line += " " + r.kernel + fmt("=%.1f", tf[r.kernel]);
        table.push_back(line);
        std::fprintf(stderr, "%s (%s) done\n", label.c_str(), c.weight.c_str());
      } catch (const std::exception& e) {
        ++errors;
        std::fprintf(stderr, "%s failed: %s\n", label.c_str(), e.what());
        if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
          std::fprintf(stderr, "CUDA context is broken, stopping\n");
          break;
        }
      }
    }
    std::printf("# %s; TFLOP/s = 2MNK/t (median, L2 flushed); commit %s\n", dev.name.c_str(), commit.c_str());
    std::printf("%6s %6s %6s %9s %9s  others\n", "M", "N", "K", "cublas", "cusparselt");
    for (const auto& l : table) std::printf("%s\n", l.c_str());
    std::printf("# %zu rows in %s; %d check failures, %d case errors\n", writer.rows(), writer.csv_path().c_str(),
                failures, errors);
    kernels.clear();
    cudaStreamDestroy(stream);
    return (failures || errors) ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws_bench_sparse24: %s\n", e.what());
    return 1;
  }
}
