// Launch interface of the 2:4 sparse GEMM kernels, free of host-library headers so that the .cu
// compiles with nvcc alone. Typed front: sparse24_gemm.hpp (alignment rules are listed there).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "reference/common/error.hpp"
#include "reference/sparse24/sparse24_split.hpp"

namespace warpsparse::sparse24::gpu {

enum class Elem : std::uint8_t { kFp16 = 0, kBf16 = 1, kFp32 = 2 };

// The 2:4 kernels the library builds, one line each; the dispatch, the names, the benchmark's
// --ws-tiles keys and the GPU test's list all read this table (docs/sparse24-gemm.md says why these).
//   kHopperTallStore: the sm_90a wgmma.sp kernel (sparse24_wgmma.cu): a 256x128x64 tile, TMA +
//     mbarrier pipeline of 4 stages, one CTA per SM striding over the tiles, and a TMA-store
//     epilogue for 16-bit C with ldc % 8 == 0 and a 16-byte aligned base (other outputs take
//     kHopperTall's path).
//   kHopperTall: the same kernel with direct stores.
//   kHopperTallPair: kHopperTallStore launched in clusters of two CTAs on adjacent tiles of one
//     tile row, which multicast A to each other (A leaves L2 once per two tiles), where the
//     schedule allows (SplitPlan::clusters), and kHopperTallStore elsewhere.
//   kHopperSquareStore: the same kernel with a 128x128x64 tile (half a tall tile's work), for
//     problems whose tall tiles leave SMs idle.
//   kTallPipe: the mma.sp kernel (sparse24_gemm.cu; sm_80+): the 256x128x64 tile of ScheduleTall,
//     8 warps of 64x64, 3 cp.async stages, software-pipelined fragments.
//   kAuto (gemm()'s default): auto_tile() below.
// The wgmma.sp tiles' rows and columns are the Shape the kernel is instantiated with.
enum class Tile : std::uint8_t {
  kAuto,
  kHopperTallStore,
  kHopperTall,
  kHopperTallPair,
  kHopperSquareStore,
  kTallPipe
};

struct TileInfo {
  Tile tile;
  const char* key;          // --ws-tiles
  const char* kernel_name;  // the benchmark rows' kernel column
  const char* shape;        // tile, stages, issue
  bool wgmma;               // needs compute capability 9.0 (sm_90a)
  int rows, cols;           // the CTA's output tile
};
inline constexpr TileInfo kTiles[] = {
    {Tile::kHopperTallStore, "hopper_tall_store", "warpsparse_wgmma_sp_tall_tma_store",
     "wgmma.sp-256x128x64/s4/persistent/tma-store", true, kTallRows, kTileCols},
    {Tile::kHopperTall, "hopper_tall", "warpsparse_wgmma_sp_tall", "wgmma.sp-256x128x64/s4/persistent", true,
     kTallRows, kTileCols},
    {Tile::kHopperTallPair, "hopper_tall_pair", "warpsparse_wgmma_sp_tall_pair_tma_store",
     "wgmma.sp-256x128x64/s4/persistent/tma-store/pair", true, kTallRows, kTileCols},
    {Tile::kHopperSquareStore, "hopper_square_store", "warpsparse_wgmma_sp_square_tma_store",
     "wgmma.sp-128x128x64/s4/persistent/tma-store", true, kSquareRows, kTileCols},
    {Tile::kTallPipe, "tall_pipe", "warpsparse_mma_sp_tall_pipe", "256x128x64/s3/pipe", false, kTallRows,
     kTileCols},
};

// The tile gemm() runs for kAuto on an M x N x K product (K padded to `ktiles` tiles of 64) on the
// device `d`: the wgmma.sp kernel on a compute capability 9.0 device (K > 0: TMA cannot describe an
// empty B), with the rows choose_tile_rows picks and, for tall tiles, clusters of two where
// choose_pairs says; the mma.sp kernel elsewhere.
inline Tile auto_tile(const DeviceFacts& d, long long m, long long n, long long k, int ktiles) {
  if (d.cc_major != 9 || d.cc_minor != 0 || k <= 0) return Tile::kTallPipe;
  if (choose_tile_rows(m, n, k, ktiles, d) == kSquareRows) return Tile::kHopperSquareStore;
  return choose_pairs(m, n, k, ktiles, d) ? Tile::kHopperTallPair : Tile::kHopperTallStore;
}

// The table's line of a tile (not kAuto); throws Error otherwise.
inline const TileInfo& tile_info(Tile t) {
  for (const TileInfo& i : kTiles)
    if (i.tile == t) return i;
  throw Error("sparse24: no tile " + std::to_string(static_cast<int>(t)) + " is built");
}
inline bool is_wgmma(Tile t) { return t != Tile::kAuto && tile_info(t).wgmma; }
inline std::string to_string(Tile t) { return t == Tile::kAuto ? "auto" : tile_info(t).shape; }
// A tile by its key ("auto" included); throws Error listing the keys otherwise.
inline Tile parse_tile(const std::string& key) {
  if (key == "auto") return Tile::kAuto;
  std::string keys = "auto";
  for (const TileInfo& i : kTiles) {
    if (key == i.key) return i.tile;
    keys += std::string(", ") + i.key;
  }
  throw Error("unknown 2:4 tile '" + key + "' (built: " + keys + ")");
}

// Untyped launch description; every pointer is device memory.
struct GemmArgs {
  const void* a_values = nullptr;
  const std::uint16_t* a_meta = nullptr;  // swizzled
  int m = 0, k = 0, rows_padded = 0, cols_padded = 0;
  const void* b = nullptr;
  int n = 0, ldb = 0;
  void* c = nullptr;
  int ldc = 0;
  Elem in = Elem::kBf16;       // bf16 or fp16 (A and B)
  Elem out = Elem::kFp32;      // fp32, or the input type
  Tile tile = Tile::kAuto;
};

// Enqueues the mma.sp kernel on `stream` (asynchronous; launch errors are thrown).
void launch_gemm(const GemmArgs& args, cudaStream_t stream = nullptr);

// What the device reports for the mma.sp kernel of `tile` (not a wgmma.sp tile) with these types: registers
// and local (spill) bytes per thread from cudaFuncGetAttributes, dynamic shared memory, threads,
// and resident CTAs per SM from the occupancy calculator. The GPU test prints it next to TFLOP/s.
struct KernelInfo {
  int registers = 0, local_bytes = 0, smem_bytes = 0, threads = 0, ctas_per_sm = 0;
};
KernelInfo kernel_info(Tile tile, Elem in, Elem out);

// The sm_90a wgmma.sp kernel behind the wgmma tiles (called by launch_gemm after its checks).
void launch_gemm_wgmma(const GemmArgs& args, cudaStream_t stream);

// Runs one mma.sp::ordered_metadata m16n8k32 on one warp with the given per-lane registers (device
// pointers: a, b 32×4 words, c 32×4 floats, e 32 words; d receives 32×4 floats). The GPU test uses
// it to check the fragment tables of reference/warp/mma_sp.hpp on the hardware.
void probe_mma_sp(const std::uint32_t* a, const std::uint32_t* b, const float* c, const std::uint32_t* e,
                  int selector, Elem in, float* d);

}  // namespace warpsparse::sparse24::gpu
