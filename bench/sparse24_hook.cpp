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

#include "bench/gemm24_kernel.hpp"
#include "bench/bench_stats.hpp"
#include "kernels/sparse24/sparse24_gemm.hpp"

namespace warpsparse::bench {

namespace {

namespace s24 = warpsparse::sparse24;

// --ws-tiles keys, the kernels they select and their result names (the first four as before).
struct TileKey {
  const char* key;
  s24::gpu::Tile tile;
  const char* name;
};
constexpr TileKey kTileKeys[] = {
    {"large", s24::gpu::Tile::kLarge, "warpsparse_mma_sp"},
    {"large_deep", s24::gpu::Tile::kLargeDeep, "warpsparse_mma_sp_s4"},
    {"small", s24::gpu::Tile::kSmall, "warpsparse_mma_sp_small"},
    {"hopper", s24::gpu::Tile::kHopper, "warpsparse_wgmma_sp"},
    {"hopper_persistent", s24::gpu::Tile::kHopperPersistent, "warpsparse_wgmma_sp_persistent"},
    {"hopper_store", s24::gpu::Tile::kHopperPersistentStore, "warpsparse_wgmma_sp_persistent_tma_store"},
    {"hopper_tall", s24::gpu::Tile::kHopperTall, "warpsparse_wgmma_sp_tall"},
    {"hopper_tall_store", s24::gpu::Tile::kHopperTallStore, "warpsparse_wgmma_sp_tall_tma_store"},
    {"large_pipe", s24::gpu::Tile::kLargePipe, "warpsparse_mma_sp_large_pipe"},
    {"large_deep_pipe", s24::gpu::Tile::kLargeDeepPipe, "warpsparse_mma_sp_large_deep_pipe"},
    {"small_pipe", s24::gpu::Tile::kSmallPipe, "warpsparse_mma_sp_small_pipe"},
    {"small3_pipe", s24::gpu::Tile::kSmall3Pipe, "warpsparse_mma_sp_small3_pipe"},
    {"small_w32_pipe", s24::gpu::Tile::kSmallW32Pipe, "warpsparse_mma_sp_small_w32_pipe"},
    {"tall_pipe", s24::gpu::Tile::kTallPipe, "warpsparse_mma_sp_tall_pipe"},
    {"tall_deep_pipe", s24::gpu::Tile::kTallDeepPipe, "warpsparse_mma_sp_tall_deep_pipe"},
    {"large_pipe_spread", s24::gpu::Tile::kLargePipeSpread, "warpsparse_mma_sp_large_pipe_spread"},
    {"small_pipe_spread", s24::gpu::Tile::kSmallPipeSpread, "warpsparse_mma_sp_small_pipe_spread"},
    {"tall_pipe_spread", s24::gpu::Tile::kTallPipeSpread, "warpsparse_mma_sp_tall_pipe_spread"},
};

// mma.sp (or the experimental wgmma.sp) kernel with one tile configuration. prepare() copies A to
// the host and compresses it with the reference encoder (values + ordered metadata), then
// uploads it: seconds for the largest weights, untimed.
class Sparse24Kernel final : public Gemm24Kernel {
 public:
  explicit Sparse24Kernel(s24::gpu::Tile tile) : tile_(tile) {}
  std::string name() const override {
    for (const auto& k : kTileKeys)
      if (k.tile == tile_) return k.name;
    return "warpsparse_?";
  }
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
  s24::gpu::Tile tile_;
  s24::gpu::DeviceMatrix<bfloat16> a_;
  Gemm24Problem p_;
};

}  // namespace

std::vector<std::unique_ptr<Gemm24Kernel>> make_warpsparse_gemm24_kernels(const std::string& tiles) {
  std::vector<std::unique_ptr<Gemm24Kernel>> v;
  for (const auto& t : split_list(tiles)) {
    bool found = false;
    for (const auto& k : kTileKeys)
      if (t == k.key) {
        v.push_back(std::make_unique<Sparse24Kernel>(k.tile));
        found = true;
      }
    require(found, "unknown 2:4 tile '" + t + "'");
  }
  return v;
}

std::vector<std::string> warpsparse_gemm24_tile_keys() {
  std::vector<std::string> keys;
  for (const auto& k : kTileKeys) keys.emplace_back(k.key);
  return keys;
}

}  // namespace warpsparse::bench
