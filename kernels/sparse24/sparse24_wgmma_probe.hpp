// A probe of the wgmma.sp kernel's shared-memory layouts (sparse24_wgmma.cu), for the GPU test
// proptests/sparse24/wgmma_layout_gpu_props.cpp: one warpgroup loads a 64-row block of compressed
// A and a 64 × 128 stage of B with the kernel's tensor maps and TMA, reads its metadata words at
// the kernel's offsets, and issues the kernel's two wgmma.sp m64n128k32 (selector 0, then 1) on
// the kernel's descriptors (smem::WgmmaSpLayout). It returns the shared-memory image TMA wrote and
// the accumulators, which the test compares with the model's TMA placement and with a replay of
// the two instructions through the model's descriptor address map.
#pragma once
#include <cstdint>
#include <vector>

namespace warpsparse::sparse24::gpu {

inline constexpr int kProbeRows = 64;   // rows of A and of D (one m64 block)
inline constexpr int kProbeACols = 32;  // compressed columns of A (one 64-wide K tile)
inline constexpr int kProbeK = 64;      // rows of B
inline constexpr int kProbeN = 128;     // columns of B and D (two 64-column TMA boxes)

struct WgmmaProbe {
  std::vector<std::uint16_t> image;  // shared memory: A's 4 KB, then B's 16 KB, as 16-bit slots
  std::vector<float> d;              // kProbeRows × kProbeN, row-major
};

// a: kProbeRows × kProbeACols fp16 bit patterns, b: kProbeK × kProbeN fp16 (K × N, row-major),
// e: the 64 rows' metadata of the K tile in the swizzled order (4 blocks of 64 uint16). Needs a
// compute capability 9.0 device; throws Error otherwise.
WgmmaProbe wgmma_layout_probe(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b,
                              const std::vector<std::uint16_t>& e);

}  // namespace warpsparse::sparse24::gpu
