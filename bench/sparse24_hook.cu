// HOOK for the lead: the warpsparse 2:4 kernels enter ws_bench_sparse24 here.
//
// To plug a kernel in, write a class deriving from Gemm24Kernel (gemm24_kernel.hpp) whose
// prepare() compresses problem.a into the kernel's format (values + ordered metadata) and whose
// run() launches one C = A B, then return it from make_warpsparse_gemm24_kernels() below, e.g.
//
//   class Mma24Kernel final : public Gemm24Kernel {
//     std::string name() const override { return "warpsparse_mma_sp"; }
//     void prepare(const Gemm24Problem& p, cudaStream_t s) override { /* compress p.a, keep p */ }
//     void run(cudaStream_t s) override { /* sparse24::gemm(...) on s */ }
//   };
//   ... v.push_back(std::make_unique<Mma24Kernel>());
//
// and link the kernel library into ws_bench_sparse24 (bench/CMakeLists.txt). The harness then
// checks its output (poisoned first, non-finite scan, sampled double oracle) and times it next to
// cuBLAS and cuSPARSELt, with the same inputs and the same L2 flush.
#include "bench/gemm24_kernel.hpp"

namespace warpsparse::bench {

std::vector<std::unique_ptr<Gemm24Kernel>> make_warpsparse_gemm24_kernels() {
  std::vector<std::unique_ptr<Gemm24Kernel>> v;
  // HOOK(lead): v.push_back(std::make_unique<...>()); once kernels/sparse24 has its host API.
  return v;
}

}  // namespace warpsparse::bench
