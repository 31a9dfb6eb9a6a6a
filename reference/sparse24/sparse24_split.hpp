// Split-K for the wgmma.sp kernel (kernels/sparse24/sparse24_wgmma.cu): a pure host rule, so CI
// tests it without a GPU.
#pragma once

namespace warpsparse::sparse24::gpu {

// Split-K for the wgmma.sp kernel: with fewer output tiles than SMs (few tokens N, or few rows M)
// most of the GPU would idle, so each tile's K tiles are cut into parts, as many as fill the SMs
// while each keeps kMinPartKTiles K tiles and the parts' fp32 partials (written, then read by the
// second kernel that adds them in part order: 8·M·N·parts bytes) stay within A's bytes (about M·K).
// Measured on the H100 (bf16): 4096 x 16 x 4096 went from 74 % to 108 % of cuSPARSELt with 8 parts,
// 4096 x 512 x 4096 from 77 % to 69 % with 2 (its partials: twice A's bytes). 1: no split.
inline constexpr int kMinPartKTiles = 4;
inline int split_k_parts(int tiles, int ktiles, int sms, int n, int k) {
  if (tiles <= 0 || tiles >= sms || n <= 0) return 1;
  const int by_sms = sms / tiles, by_k = ktiles / kMinPartKTiles, by_bytes = k / (8 * n);
  const int parts = by_sms < by_k ? (by_sms < by_bytes ? by_sms : by_bytes) : (by_k < by_bytes ? by_k : by_bytes);
  return parts > 1 ? parts : 1;
}

}  // namespace warpsparse::sparse24::gpu
