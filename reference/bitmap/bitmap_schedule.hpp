// How the bitmap-tile SpMM kernel runs a matrix: the batch and how many parts each tile row's k
// tiles are split into. One warp owns one (tile row, part); with parts > 1 each part writes fp32
// partial sums and a second kernel adds a row's parts in part order (0 + 1, then + 2, ...) before
// the epilogue, so the result does not depend on which warp finishes first.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "reference/bitmap/bitmap_layout.hpp"
#include "reference/device/device_facts.hpp"
#include "reference/macko/macko_schedule.hpp"

namespace warpsparse::bitmap {

struct Schedule {
  int batch = 1;   // vectors: 1 .. kBatchMax
  int parts = 1;   // k-tile ranges per tile row: 1 .. k_tiles
  std::string name() const {
    return "bitmap_b" + std::to_string(batch) + "_p" + std::to_string(parts);
  }
};

// The thresholds of the rules (measured on the H100; the H200 runs the same table).
struct Rules {
  // Warps per SM the grid should offer: a warp keeps a few tiles' loads in flight, and about this
  // many warps per SM cover the memory latency.
  int warps_per_sm = 32;
  // A part keeps at least this many k tiles, so its partials (B floats per row) stay a small share
  // of the bytes it reads.
  int min_part_tiles = 16;
  // Batches of this many vectors or more may run here instead of MACKO's CUDA-core kernels: this
  // kernel's time follows its tiles (it is bound by the instructions that find each lane's elements,
  // nearly the same at any density), MACKO's follows its nonzeros and B. At B = 8 on 12288 x 12288
  // and 28672 x 8192 (H100, fp16) this kernel took 119 / 175 us at d = 0.5 and 114 / 168 at d = 0.3,
  // MACKO 134 / 191 and 92 / 127: equal near d = 0.45. At B = 2 and 4 MACKO (73-86 us) is always faster.
  int bitmap_min_batch = 5;
  double bitmap_min_density = 0.45;  // up to batch 8, where MACKO has kernels
  // A 2:4 weight held as a 2:4 matrix too runs batches of this many vectors or more on the 2:4 GEMM
  // (N padded to 16): MACKO's batch kernels fall behind on 2:4 rows, and the GEMM's time hardly grows
  // with N. H100, twelve shapes at d = 0.5 (archive: macko_20261127T063842Z.csv for MACKO, fp16,
  // sparse24_20261127T063930Z.csv for the GEMM, bf16): at B = 8 the GEMM
  // beat MACKO 1.5-3.6x everywhere; at B = 3-4 (MACKO's B = 4) it ran 0.74-2.95x MACKO's speed: 2-7 %
  // slower on 11008 x 4096, 12288^2 and 4096 x 11008 and 26 % on 4096^2 (20.4 against 15.1 us), up
  // to 6 % faster on the other shapes with x in shared memory, 2.1-3.0x where it is not.
  int sparse24_min_batch = 3;
  // ... and batches of 2 or more where MACKO's schedule for the batch gathers x through L1 (not
  // x_shared): there MACKO ran 2:4 rows 1.4-1.8x slower than unstructured rows of the
  // same density (4096 x 14336, 5120 x 13824, 7168 x 28672, 8192 x 28672 at B = 2 and 4), and at
  // B = 2 the GEMM took 95 / 105 us against MACKO's 147 / 169 on the last two. With x in shared
  // memory MACKO runs 2:4 rows faster than unstructured ones; at B = 2 it beat the GEMM on nine of
  // those ten shapes (not 5120 x 13824: 46.5 against 41.4 us).
  // Both apply at this density or more. The GEMM's time is that of half the columns whatever the weight's
  // density, MACKO's and this kernel's fall with the nonzeros or the tiles; only d = 0.5 was measured,
  // so a sparser matrix that happens to be 2:4 (any matrix with few nonzeros) keeps the other rules.
  double sparse24_min_density = 0.45;
};
inline constexpr Rules kRules{};

// Parts: enough warps for the GPU when the tile rows are few, none where they are many.
inline int choose_parts(std::int64_t rows, std::int64_t cols, const DeviceFacts& dev, const Rules& r = kRules) {
  const std::int64_t tr = tile_rows(rows), kt = k_tiles(cols);
  if (tr <= 0 || kt <= 0) return 1;
  const std::int64_t want = std::int64_t{dev.sms} * r.warps_per_sm;
  const std::int64_t by_warps = (want + tr - 1) / tr;
  const std::int64_t by_tiles = std::max<std::int64_t>(1, kt / r.min_part_tiles);
  return static_cast<int>(std::clamp<std::int64_t>(std::min(by_warps, by_tiles), 1, 1 << 16));
}
inline Schedule choose_schedule(std::int64_t rows, std::int64_t cols, int batch, const DeviceFacts& dev) {
  return Schedule{batch, choose_parts(rows, cols, dev)};
}

// Which kernel multiplies a matrix of this density by `batch` vectors: MACKO's CUDA-core batch
// kernels (compiled for 1, 2, 4 and 8 vectors; a batch in between runs at the next of them with
// zero vectors), this tensor-core kernel (any batch up to 16), or, for a 2:4 weight also held as a
// 2:4 matrix, the 2:4 GEMM; and why.
enum class BatchKernel { macko, bitmap, sparse24 };
struct BatchChoice {
  BatchKernel kernel = BatchKernel::macko;
  int macko_batch = 1;  // the MACKO batch that runs it (kernel == macko)
  std::string why;
};
inline const char* to_string(BatchKernel k) {
  return k == BatchKernel::macko ? "macko" : k == BatchKernel::bitmap ? "bitmap" : "sparse24";
}
// What the rule knows of the matrix beyond its density.
struct BatchFacts {
  bool sparse24 = false;     // 2:4 along the columns, and held as a 2:4 matrix too
  bool macko_x_l1 = false;   // MACKO's schedule for the batch gathers x through L1 (not x_shared)
};
inline BatchChoice choose_batch_kernel(double density, int batch, const BatchFacts& f = {}, const Rules& r = kRules) {
  BatchChoice c;
  if (batch < 1 || batch > kBatchMax) {
    c.why = "batch " + std::to_string(batch) + " is outside 1.." + std::to_string(kBatchMax);
    return c;
  }
  c.macko_batch = macko::batch_for(batch);
  const bool gemm_batch = batch >= r.sparse24_min_batch || (batch >= 2 && f.macko_x_l1);
  if (f.sparse24 && gemm_batch && density >= r.sparse24_min_density) {
    c.kernel = BatchKernel::sparse24;
    c.why = "a 2:4 weight at density " + std::to_string(density).substr(0, 5) + " >= " +
            std::to_string(r.sparse24_min_density).substr(0, 4) + ", batch " + std::to_string(batch) +
            (batch >= r.sparse24_min_batch
                 ? " >= " + std::to_string(r.sparse24_min_batch) +
                       ": the 2:4 GEMM, whose time hardly grows with N, beats MACKO's batch kernels on 2:4 rows"
                 : " with MACKO's x through L1, where its gathers of 2:4 rows are slow: the 2:4 GEMM");
  } else if (batch > macko::kMaxBatch) {
    c.kernel = BatchKernel::bitmap;
    c.why = "batch " + std::to_string(batch) + " > " + std::to_string(macko::kMaxBatch) + ": MACKO has no kernel for it";
  } else if (batch >= r.bitmap_min_batch && density >= r.bitmap_min_density) {
    c.kernel = BatchKernel::bitmap;
    c.why = "batch " + std::to_string(batch) + " >= " + std::to_string(r.bitmap_min_batch) + " at density " +
            std::to_string(density).substr(0, 5) + " >= " + std::to_string(r.bitmap_min_density).substr(0, 4) +
            ": tensor cores beat MACKO's " + std::to_string(c.macko_batch) + " FMAs per element";
  } else {
    c.why = batch < r.bitmap_min_batch
                ? "batch " + std::to_string(batch) + " < " + std::to_string(r.bitmap_min_batch) +
                      ": MACKO streams fewer instructions per tile than the tensor-core kernel"
                : "density " + std::to_string(density).substr(0, 5) + " < " +
                      std::to_string(r.bitmap_min_density).substr(0, 4) + ": MACKO's time falls with the nonzeros, " +
                      "the tensor-core kernel's with the tiles only";
    if (c.macko_batch != batch) c.why += "; batch " + std::to_string(batch) + " runs as " + std::to_string(c.macko_batch);
  }
  return c;
}

// The k tiles of the longest part.
inline std::int64_t max_part_tiles(std::int64_t cols, int parts) {
  const std::int64_t kt = k_tiles(cols);
  std::int64_t m = 0;
  for (int q = 0; q < parts; ++q) m = std::max(m, part_begin(q + 1, parts, kt) - part_begin(q, parts, kt));
  return m;
}
// The length of an fp32 (u = 2^-24) summation chain whose forward bound gamma covers the kernel's
// accumulation (derivation: bitmap_spmm_model.hpp): each mma adds 16 products and the accumulator
// as a block with truncation, 17 terms at u = 2^-23 each, i.e. 34 at 2^-24, plus one for the first
// tile; then parts - 1 additions of the parts. SpmvBound::bound adds the epilogue's two roundings.
inline std::int64_t chain_of(std::int64_t max_part_tiles, int parts) { return 2 * (17 * max_part_tiles + 1) + (parts - 1); }
inline std::int64_t bound_chain(std::int64_t cols, int parts) { return chain_of(max_part_tiles(cols, parts), parts); }

// The refusal, naming what is wrong, or the empty string.
inline std::string schedule_fault(const Schedule& s, std::int64_t cols) {
  if (s.batch < 1 || s.batch > kBatchMax)
    return "bitmap schedule: batch " + std::to_string(s.batch) + " outside 1.." + std::to_string(kBatchMax);
  const std::int64_t kt = std::max<std::int64_t>(1, k_tiles(cols));
  if (s.parts < 1 || s.parts > kt)
    return "bitmap schedule: " + std::to_string(s.parts) + " parts for " + std::to_string(kt) + " k tiles";
  return {};
}

}  // namespace warpsparse::bitmap
