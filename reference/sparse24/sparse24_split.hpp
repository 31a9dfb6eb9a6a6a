// The wgmma.sp kernel's schedule (kernels/sparse24/sparse24_wgmma.cu): split-K and the CTA tile's
// rows, pure host rules, so CI tests them without a GPU.
#pragma once

#include <algorithm>

namespace warpsparse::sparse24::gpu {

// How the persistent grid's work units cover the output tiles. The kernel's min(units, SMs) CTAs
// stride over the units; the tiles are numbered in the kernel's order (cta_tile). The first `whole`
// tiles are one unit each (all K tiles, stored into C). The last `tail` tiles are cut into `parts`
// units each (the K tiles in near-even ranges), which write fp32 partials that a second kernel
// adds in part order.
struct SplitPlan {
  long long whole = 0;
  int tail = 0, parts = 1;
  long long units() const { return whole + static_cast<long long>(tail) * parts; }
  bool split() const { return parts > 1; }
};

// The tiles the grid does not fill: with T tiles on S SMs the last round holds T mod S tiles (all T
// when T < S), and in an unsplit round the other SMs idle. Cutting each of those tiles into P parts
// makes that round P times shorter: P as large as fills the SMs while each part keeps
// kMinPartKTiles K tiles and the partials (8 bytes per element and part: written, then read back)
// stay within A's bytes (about M·K). With T >= S the whole rounds run first and every CTA takes at
// most one tail unit.
// Measured on the H100 (bf16): with T < S, 4096 x 16 x 4096 went from 74 % to 108 % of cuSPARSELt
// with 8 parts, 4096 x 512 x 4096 from 77 % to 69 % with 2 (its partials: twice A's bytes).
inline constexpr int kMinPartKTiles = 4;
inline SplitPlan split_plan(long long m, long long n, long long k, int bm, int bn, int ktiles, int sms) {
  if (m <= 0 || n <= 0 || k <= 0 || sms <= 0 || ktiles <= 0) return {};
  const long long tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
  const long long tail = tiles % sms;
  const SplitPlan none{tiles, 0, 1};
  if (tail == 0) return none;
  const long long tile_elems = std::min<long long>(bm, m) * std::min<long long>(bn, n);
  const long long parts = std::min({sms / tail, static_cast<long long>(ktiles / kMinPartKTiles),
                                    (m * k) / (8 * tail * tile_elems)});
  if (parts < 2) return none;
  return {tiles - tail, static_cast<int>(tail), static_cast<int>(parts)};
}

// The CTA tile's rows: 256 (the tall tile) or 128 (the square one, 128 x 128). A square tile runs
// at about three quarters of a tall tile's rate (H100, the 31 weights at 2048 tokens: median 76 %,
// 71-85 %), so it pays only where tall tiles leave most SMs idle or pay heavily for split-K: with
// fewer tall tiles T than SMs S, it is chosen when split-K's partials are at least 1/6 of A's
// bytes, or when nothing is split and 2T <= S (so the square tiles still fit one round).
// Measured (H100, 31 weights x 16/128/512/2048 tokens): the better tile in 118 of 124 cases, at
// most 4.2 % slower than the better one in the other six.
inline constexpr int kTallRows = 256, kSquareRows = 128, kTileCols = 128;
inline int choose_tile_rows(long long m, long long n, long long k, int ktiles, int sms) {
  const SplitPlan tall = split_plan(m, n, k, kTallRows, kTileCols, ktiles, sms);
  const long long tiles = tall.whole + tall.tail;
  if (m <= 0 || n <= 0 || k <= 0 || tiles >= sms) return kTallRows;
  if (!tall.split()) return 2 * tiles <= sms ? kSquareRows : kTallRows;
  const long long partial_bytes = 8LL * tall.tail * tall.parts * std::min<long long>(kTallRows, m) *
                                  std::min<long long>(kTileCols, n);
  return 6 * partial_bytes >= m * k ? kSquareRows : kTallRows;
}

}  // namespace warpsparse::sparse24::gpu
