// macko_probe: one shape, one density, a list of MACKO schedules, timed against cuBLAS GEMV in
// the same process, for tuning and for Nsight Compute (--ncu runs each kernel once, untimed).
// The full benchmark with every baseline and shape is bench/macko_bench.
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "analysis/patterns.hpp"
#include "kernels/macko_spmv.hpp"

using namespace warpsparse;
using hf = warpsparse::half;

#define CUBLAS_OK(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cublas error at %s\n", #x); std::exit(1); } } while (0)

namespace {
// Rows generated in parallel with the per-row deterministic generator.
SparseRows<hf> make_matrix(std::int64_t rows, std::int64_t cols, double d, std::uint64_t seed) {
  const int nt = std::max(1u, std::thread::hardware_concurrency());
  std::vector<SparseRows<hf>> parts(nt);
  std::vector<std::thread> th;
  for (int t = 0; t < nt; ++t)
    th.emplace_back([&, t] {
      const std::int64_t r0 = rows * t / nt, r1 = rows * (t + 1) / nt;
      SparseRows<hf> p;
      p.cols = cols;
      std::mt19937_64 rng(seed + 7 * t);
      std::normal_distribution<float> n(0.f, 1.f);
      for (std::int64_t r = r0; r < r1; ++r) {
        for (auto c : analysis::pattern_row({analysis::Pattern::exact_nnz, d, 0}, cols, seed, r)) {
          hf v;
          do v = to_half(n(rng)); while (is_zero(v));
          p.push(c, v);
        }
        p.end_row();
      }
      parts[t] = std::move(p);
    });
  for (auto& t : th) t.join();
  SparseRows<hf> m;
  m.cols = cols;
  for (auto& p : parts) {
    for (std::int64_t r = 0; r < p.rows; ++r) {
      for (std::int64_t k = p.row_ptr[r]; k < p.row_ptr[r + 1]; ++k) m.push(p.col[k], p.val[k]);
      m.end_row();
    }
  }
  return m;
}

struct Timer {
  gpu::DeviceBuffer<char> flush{std::size_t(256) << 20};
  cudaEvent_t a, b;
  Timer() { cudaEventCreate(&a); cudaEventCreate(&b); }
  template <class F>
  std::vector<float> run(F f, int warm, int iters) {
    for (int i = 0; i < warm; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < iters; ++i) {
      cudaMemsetAsync(flush.get(), i & 0xff, flush.bytes());  // evict the L2 (50 MB) before each launch
      cudaEventRecord(a);
      f();
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    return t;
  }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: macko_probe ROWS COLS DENSITY [--ncu] [SCHED...]  (SCHED = wpb:acc:unroll[:prefetch[:blocks_per_sm]])\n");
    return 2;
  }
  if (!gpu::device_available()) { std::fprintf(stderr, "no CUDA device\n"); return 77; }
  const std::int64_t R = std::atoll(argv[1]), C = std::atoll(argv[2]);
  const double d = std::atof(argv[3]);
  bool ncu = false;
  std::vector<macko::Schedule> scheds;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ncu")) { ncu = true; continue; }
    macko::Schedule s = gpu::default_schedule(4);
    int pf = 0;
    std::sscanf(argv[i], "%d:%d:%d:%d:%d", &s.warps_per_block, &s.lane_accumulators, &s.unroll_blocks, &pf,
                &s.blocks_per_sm);
    s.prefetch = pf != 0;
    scheds.push_back(s);
  }
  if (scheds.empty()) scheds.push_back(gpu::default_schedule(4));
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);

  const auto m = make_matrix(R, C, d, 42);
  const auto a = encode_macko(m);
  auto da = gpu::upload_macko(a);
  std::vector<hf> x(C);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = to_half(u(rng));
  gpu::DeviceBuffer<hf> dx(x), dy(R), dyb(R);
  // Dense copy for cuBLAS (column-major view: A^T stored row-major -> op T).
  std::vector<hf> dense(std::size_t(R) * C, to_half(0.f));
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) dense[std::size_t(r) * C + m.col[k]] = m.val[k];
  gpu::DeviceBuffer<hf> dA(dense);
  cublasHandle_t h;
  CUBLAS_OK(cublasCreate(&h));
  const float one = 1.f, zero = 0.f;
  auto cublas = [&] {
    CUBLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, int(R), 1, int(C), &one, dA.get(), CUDA_R_16F, int(C),
                           dx.get(), CUDA_R_16F, int(C), &zero, dyb.get(), CUDA_R_16F, int(R), CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
  };
  const int warm = ncu ? 1 : 50, iters = ncu ? 1 : 100;
  Timer tm;
  const auto tb = tm.run(cublas, warm, iters);
  const double dense_bytes = double(R) * C * 2 + C * 2 + R * 2;
  std::printf("%s | %lldx%lld d=%.2f emitted=%lld effd=%.4f\n", prop.name, (long long)R, (long long)C, d,
              (long long)a.emitted(), a.effective_density());
  std::printf("cublas_gemv        median %8.1f us  p10 %8.1f p90 %8.1f  %7.1f GB/s\n", tb[tb.size() / 2],
              tb[tb.size() / 10], tb[tb.size() * 9 / 10], dense_bytes / tb[tb.size() / 2] / 1e3);
  const double mbytes = double(a.storage_bytes()) + C * 2 + R * 2;
  for (const auto& s : scheds) {
    auto f = [&] { gpu::macko_spmv<hf, hf>(da, dx.get(), dy.get(), 1.f, 0.f, s); };
    const auto t = tm.run(f, warm, iters);
    // Cross-check against cuBLAS output (fp16 outputs, different summation order).
    const auto y1 = dy.download(), y2 = dyb.download();
    double maxd = 0;
    for (std::int64_t r = 0; r < R; ++r) maxd = std::max(maxd, double(std::abs(to_float(y1[r]) - to_float(y2[r]))));
    std::printf("macko wpb=%d acc=%d un=%d pf=%d bps=%d median %8.1f us  p10 %8.1f p90 %8.1f  %7.1f GB/s  speedup %.3fx  max|dy| %.3g\n",
                s.warps_per_block, s.lane_accumulators, s.unroll_blocks, int(s.prefetch), s.blocks_per_sm, t[t.size() / 2], t[t.size() / 10],
                t[t.size() * 9 / 10], mbytes / t[t.size() / 2] / 1e3, tb[tb.size() / 2] / t[t.size() / 2], maxd);
  }
  return 0;
}
