// Launch interface of the 2:4 sparse GEMM kernels, free of host-library headers so that the .cu
// compiles with nvcc alone. Typed front: sparse24_gemm.hpp (alignment rules are listed there).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace warpsparse::sparse24::gpu {

enum class Elem : std::uint8_t { kFp16 = 0, kBf16 = 1, kFp32 = 2 };

// Which kernel configuration (sparse24_layout.hpp): kLarge = 128×256×64 tile, 8 warps, 3 stages
// (123 KB shared); kLargeDeep = the same with 4 stages (164 KB); kSmall = 128×128×64 tile,
// 4 warps, 4 stages (100 KB, two CTAs per SM).
// kHopper selects the sm_90a wgmma.sp kernel (sparse24_wgmma.cu; 128×256×64 tile, TMA + mbarrier
// pipeline, 4 stages, one CTA per output tile); kHopperPersistent the same kernel on one CTA per
// SM striding over the tiles; kHopperPersistentStore that with 3 stages and a TMA-store epilogue
// through 64 KB of shared memory (16-bit C with ldc % 8 == 0 and a 16-byte aligned base; other
// outputs take kHopperPersistent's path). kHopperTall / kHopperTallStore are the persistent
// kernel with a 256×128×64 tile (two m64n128k32 accumulators per consumer warpgroup; 34 KB stages,
// 17 % fewer L2 bytes per flop than 128×256), 4 stages, the second with the TMA-store epilogue
// (fp32 outputs and unaligned C take kHopperTall's path); kHopperTallStore is the fastest tile on
// the H100 (kernels/NOTES.md, runs 10-12). All wgmma.sp tiles need compute capability 9.0.
// kAuto (the default of gemm()) picks kHopperTallStore on a compute capability 9.0 device when
// K > 0, kTallPipe otherwise.
// The *Pipe tiles run the same schedules through the software-pipelined mma.sp kernel (fragments
// of the next k32 step loaded while the current one's mma.sp issue, one barrier per K tile,
// cp.async addresses computed once): kLargePipe / kLargeDeepPipe = kLarge / kLargeDeep;
// kSmallPipe = kSmall and kSmall3Pipe = the same with 3 stages (75 KB), both 2 CTAs per SM;
// kSmallW32Pipe = 128×128×64 with 8 warps of 64×32, 4 stages, 2 CTAs per SM (≤ 128 registers);
// kTallPipe / kTallDeepPipe = 256×128×64, 8 warps of 64×64, 3 / 4 stages (102 / 136 KB): fewer L2
// bytes per flop than 128×256 because A is stored compressed.
// *PipeSpread = kLargePipe / kSmallPipe / kTallPipe with the refill's cp.async spread over the
// first k32 step's n8 columns instead of issued at once.
enum class Tile : std::uint8_t {
  kLarge = 0,
  kSmall = 1,
  kLargeDeep = 2,
  kHopper = 3,
  kLargePipe = 4,
  kLargeDeepPipe = 5,
  kSmallPipe = 6,
  kSmall3Pipe = 7,
  kSmallW32Pipe = 8,
  kTallPipe = 9,
  kTallDeepPipe = 10,
  kLargePipeSpread = 11,
  kSmallPipeSpread = 12,
  kTallPipeSpread = 13,
  kHopperPersistent = 14,
  kHopperPersistentStore = 15,
  kHopperTall = 16,
  kHopperTallStore = 18,  // 17 was a 6-stage kHopperTall, slower than 4 stages (run 10); removed
  kAuto = 19,
  // 20-22: the 64x64 tiles issued row by row (run 33, 7-8 % slower); 23-28: 64x32 warp tiles at
  // 2-4 warps per scheduler (run 41, 12-28 % slower than kTallPipe); removed, kernels/NOTES.md
};

inline bool is_wgmma(Tile t) {
  return t == Tile::kHopper || t == Tile::kHopperPersistent || t == Tile::kHopperPersistentStore ||
         t == Tile::kHopperTall || t == Tile::kHopperTallStore;
}

inline std::string to_string(Tile t) {
  switch (t) {
    case Tile::kLarge: return "128x256x64/s3";
    case Tile::kLargeDeep: return "128x256x64/s4";
    case Tile::kHopper: return "wgmma.sp-128x256x64/s4";
    case Tile::kHopperPersistent: return "wgmma.sp-128x256x64/s4/persistent";
    case Tile::kHopperPersistentStore: return "wgmma.sp-128x256x64/s3/persistent/tma-store";
    case Tile::kHopperTall: return "wgmma.sp-256x128x64/s4/persistent";
    case Tile::kHopperTallStore: return "wgmma.sp-256x128x64/s4/persistent/tma-store";
    case Tile::kAuto: return "auto";
    case Tile::kLargePipe: return "128x256x64/s3/pipe";
    case Tile::kLargeDeepPipe: return "128x256x64/s4/pipe";
    case Tile::kSmallPipe: return "128x128x64/s4/pipe/2cta";
    case Tile::kSmall3Pipe: return "128x128x64/s3/pipe/2cta";
    case Tile::kSmallW32Pipe: return "128x128x64/s4/w64x32/pipe/2cta";
    case Tile::kTallPipe: return "256x128x64/s3/pipe";
    case Tile::kTallDeepPipe: return "256x128x64/s4/pipe";
    case Tile::kLargePipeSpread: return "128x256x64/s3/pipe+spread";
    case Tile::kSmallPipeSpread: return "128x128x64/s4/pipe+spread/2cta";
    case Tile::kTallPipeSpread: return "256x128x64/s3/pipe+spread";
    default: return "128x128x64/s4";
  }
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
  Tile tile = Tile::kLarge;
};

// Enqueues the mma.sp kernel on `stream` (asynchronous; launch errors are thrown).
void launch_gemm(const GemmArgs& args, cudaStream_t stream = nullptr);

// What the device reports for the mma.sp kernel of `tile` (not kHopper) with these types: registers
// and local (spill) bytes per thread from cudaFuncGetAttributes, dynamic shared memory, threads,
// and resident CTAs per SM from the occupancy calculator. The GPU test prints it next to TFLOP/s.
struct KernelInfo {
  int registers = 0, local_bytes = 0, smem_bytes = 0, threads = 0, ctas_per_sm = 0;
};
KernelInfo kernel_info(Tile tile, Elem in, Elem out);

// The sm_90a wgmma.sp kernel behind Tile::kHopper and kHopperPersistent (called by launch_gemm
// after its checks).
void launch_gemm_wgmma(const GemmArgs& args, cudaStream_t stream);

// Runs one mma.sp::ordered_metadata m16n8k32 on one warp with the given per-lane registers (device
// pointers: a, b 32×4 words, c 32×4 floats, e 32 words; d receives 32×4 floats). The GPU test uses
// it to check the fragment tables of reference/warp/mma_sp.hpp on the hardware.
void probe_mma_sp(const std::uint32_t* a, const std::uint32_t* b, const float* c, const std::uint32_t* e,
                  int selector, Elem in, float* d);

}  // namespace warpsparse::sparse24::gpu
