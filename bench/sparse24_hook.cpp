// The warpsparse 2:4 kernels (kernels/sparse24) as Gemm24Kernels of ws_bench_sparse24.
//
// To add another kernel: derive from Gemm24Kernel (gemm24_kernel.hpp) — prepare() turns
// problem.a into the kernel's format untimed, run() enqueues one C = A B — and return it from
// make_warpsparse_gemm24_kernels(). The harness checks its output (NaN-poisoned first,
// non-finite scan, sampled double oracle) and times it next to cuBLAS and cuSPARSELt with the
// same inputs and the same L2 flush.
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/gemm24_kernel.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/sparse24/sparse24_gemm.hpp"

namespace warpsparse::bench {

namespace {

namespace s24 = warpsparse::sparse24;

// One 2:4 kernel of the library (kernels/sparse24: kTiles). Tile::kAuto runs the tile gemm() picks on
// this device for each problem, and is named after it. prepare() copies A to the host and compresses it with the
// reference encoder (values + ordered metadata), then uploads it: seconds for the largest weights,
// untimed.
class Sparse24Kernel final : public Gemm24Kernel {
 public:
  explicit Sparse24Kernel(s24::gpu::Tile tile) : tile_(tile) {}
  std::string name() const override { return s24::gpu::tile_info(resolved()).kernel_name; }
  void prepare(const Gemm24Problem& p, cudaStream_t stream) override {
    require(p.m <= 0x7fffffff && p.n <= 0x7fffffff && p.k <= 0x7fffffff, name() + ": int dimensions only");
    // The harness's B is contiguous (ldb = N); the kernel's 16-byte cp.async needs ldb % 8 == 0.
    require(p.n % 8 == 0, name() + ": N = " + std::to_string(p.n) + " is not a multiple of 8 (ldb = N)");
    WS_CUDA(cudaStreamSynchronize(stream));
    std::vector<bfloat16> dense(static_cast<std::size_t>(p.m * p.k));
    WS_CUDA(cudaMemcpy(dense.data(), p.a, dense.size() * sizeof(bfloat16), cudaMemcpyDeviceToHost));
    a_ = s24::gpu::upload(s24::compress<bfloat16>(dense, static_cast<int>(p.m), static_cast<int>(p.k)));
    p_ = p;
  }
  void run(cudaStream_t stream) override {
    const int n = static_cast<int>(p_.n);
    s24::gpu::gemm<bfloat16, bfloat16>(a_, static_cast<const bfloat16*>(p_.b), n, n, static_cast<bfloat16*>(p_.c), n,
                                       stream, tile_);
  }
  std::uint64_t device_bytes() const override { return a_.values.bytes() + a_.meta.bytes(); }

 private:
  s24::gpu::Tile resolved() const {
    if (tile_ != s24::gpu::Tile::kAuto) return tile_;
    return s24::gpu::auto_tile(warpsparse::gpu::device_facts(), p_.m, p_.n, p_.k > 0 ? p_.k : 1,
                               a_.cols_padded / s24::kColAlign);
  }
  s24::gpu::Tile tile_;
  s24::gpu::DeviceMatrix<bfloat16> a_;
  Gemm24Problem p_;
};

}  // namespace

std::vector<std::unique_ptr<Gemm24Kernel>> make_warpsparse_gemm24_kernels(const std::string& tiles) {
  std::vector<std::unique_ptr<Gemm24Kernel>> v;
  for (const auto& t : split_list(tiles)) v.push_back(std::make_unique<Sparse24Kernel>(s24::gpu::parse_tile(t)));
  return v;
}

std::vector<std::string> warpsparse_gemm24_tile_keys() {
  std::vector<std::string> keys{"auto"};
  for (const auto& t : s24::gpu::kTiles) keys.emplace_back(t.key);
  return keys;
}

}  // namespace warpsparse::bench
