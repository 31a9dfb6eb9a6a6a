// The interface every kernel of ws_bench_sparse24 implements: dense cuBLAS, cuSPARSELt, and the
// warpsparse 2:4 kernels (kernels/sparse24/, plugged in through sparse24_hook.cpp).
// One problem: C = A B with A row-major M x K bf16, 2:4 sparse along K (each aligned group of
// four holds at most two nonzeros), B row-major K x N bf16, C row-major M x N bf16, fp32
// accumulation, alpha = 1, beta = 0.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warpsparse::bench {

struct Gemm24Problem {
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;  // device, M x K, row-major, 2:4 along K
  const void* b = nullptr;  // device, K x N, row-major
  void* c = nullptr;        // device, M x N, row-major (the harness poisons and checks it)
};

class Gemm24Kernel {
 public:
  virtual ~Gemm24Kernel() = default;
  virtual std::string name() const = 0;
  // Untimed set-up for one problem: compress A, allocate workspace, pick a configuration.
  // Throws warpsparse::Error when the problem is not supported (the case skips this kernel).
  virtual void prepare(const Gemm24Problem& p, cudaStream_t stream) = 0;
  // Timed: enqueues exactly C = A B for the prepared problem on `stream`; throws on error.
  virtual void run(cudaStream_t stream) = 0;
  // Extra bytes this kernel keeps on the device after prepare (compressed A, workspace).
  virtual std::uint64_t device_bytes() const { return 0; }
};

// cuSPARSELt, loaded at run time (cusparselt_runner.cu). Returns nullptr and fills `why` when
// the library cannot be loaded.
std::unique_ptr<Gemm24Kernel> make_cusparselt_kernel(bool search, std::string& why);
std::string cusparselt_description();  // where it was loaded from, and its version

// HOOK: the warpsparse 2:4 kernels (sparse24_hook.cpp), one per tile key in the list
// (warpsparse_gemm24_tile_keys(): "auto" and the keys of kernels/sparse24's kTiles).
std::vector<std::unique_ptr<Gemm24Kernel>> make_warpsparse_gemm24_kernels(const std::string& tiles);
// Every tile key make_warpsparse_gemm24_kernels accepts.
std::vector<std::string> warpsparse_gemm24_tile_keys();

}  // namespace warpsparse::bench
