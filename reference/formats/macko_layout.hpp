// MACKO storage layout: the single definition shared by the host encoder, the warp models and the
// CUDA kernels. Dependency-free (only <cstdint> and WS_HD) so nvcc and g++ include the same bytes.
//
// Format (macko-paper.txt §4.1, stored as in the paper's public implementation):
//   values[]  emitted elements in row-major order; padding elements are zero.
//   deltas[]  one b_Δ-bit field per emitted element: the number of zero columns skipped since the
//             previously emitted element of the same row (the row starts before column 0).
//             Packed 8/b_Δ per byte, lowest bits first.
//   row_ptr[] R+1 element offsets into values/deltas.
// A run of zeros longer than 2^b_Δ − 1 columns is broken by emitting a zero value ("padding")
// after every 2^b_Δ − 1 skipped columns. Padding after a row's last nonzero is not emitted.
// Both arrays are zero-padded at the end to a multiple of kAlignUnit(b_Δ) elements, which keeps
// every lane's vector load of values and deltas inside the arrays.
#pragma once
#include <cstdint>

#include "reference/common/hd.hpp"

namespace warpsparse::macko {

inline constexpr int kWarpLanes = 32;
// Elements each lane owns per step: 8 values (16 B of fp16) and 8 deltas.
inline constexpr int kElemsPerLane = 8;
inline constexpr int kElemsPerStep = kWarpLanes * kElemsPerLane;  // 256

WS_HD constexpr bool valid_delta_bits(int db) { return db == 1 || db == 2 || db == 4 || db == 8; }
WS_HD constexpr bool valid_value_bits(int vb) { return vb == 8 || vb == 16 || vb == 32; }

// Largest number of zero columns one delta can skip.
WS_HD constexpr int max_skip(int db) { return (1 << db) - 1; }
WS_HD constexpr int deltas_per_byte(int db) { return 8 / db; }

// Steps that share one 32-bit delta word per lane. For b_Δ = 4 a lane's 8 deltas are exactly one
// 32-bit word. For b_Δ < 4 one warp-wide load of 32-bit words (128 B) covers 4/b_Δ steps and the
// deltas are redistributed by shuffles (paper §4.4.1); for b_Δ = 8 each lane loads 64 bits a step.
WS_HD constexpr int steps_per_delta_load(int db) { return db >= 4 ? 1 : 4 / db; }
// Elements covered by one lane's delta load.
WS_HD constexpr int elems_per_delta_word(int db) { return db >= 4 ? kElemsPerLane : 32 / db; }
// Alignment unit of a warp's starting element (ROMA) and of the array lengths, in elements.
WS_HD constexpr int align_unit(int db) { return kElemsPerLane * steps_per_delta_load(db); }
// Elements one warp consumes per delta load: a "block" of steps_per_delta_load steps.
WS_HD constexpr int elems_per_block(int db) { return kElemsPerStep * steps_per_delta_load(db); }

WS_HD constexpr std::int64_t padded_length(std::int64_t emitted, int db) {
  const std::int64_t u = align_unit(db);
  return (emitted + u - 1) / u * u;
}
WS_HD constexpr std::int64_t delta_bytes(std::int64_t padded, int db) { return padded * db / 8; }

// Field access for element e of the delta array (lowest bits first).
// (Any integer type: the narrow kernels pass an unsigned 32-bit offset, so the division is a shift.)
template <class I>
WS_HD constexpr I delta_byte_index(I e, int db) { return e / static_cast<I>(deltas_per_byte(db)); }
WS_HD constexpr int delta_shift(std::int64_t e, int db) {
  return static_cast<int>(e % deltas_per_byte(db)) * db;
}
WS_HD constexpr unsigned extract_delta(std::uint32_t word, int index_in_word, int db) {
  return (word >> (index_in_word * db)) & static_cast<std::uint32_t>(max_skip(db));
}

// ROMA (reverse-offset memory alignment): a warp starts its row at the aligned offset at or
// before the row start, so every load is a full aligned vector; the elements in front of the row
// start belong to the previous row and are masked. A small object owns the trick so the model
// and the kernel compute it identically.
struct RowAligner {
  std::int64_t begin;          // first element of the row
  std::int64_t end;            // one past its last element
  std::int64_t aligned_begin;  // begin rounded down to align_unit
  WS_HD RowAligner(std::int64_t b, std::int64_t e, int db)
      : begin(b), end(e), aligned_begin(b - b % align_unit(db)) {}
  // Element offset e takes part in the row's dot product.
  WS_HD bool owns(std::int64_t e) const { return e >= begin && e < end; }
  // Elements loaded in front of the row (belonging to the previous row).
  WS_HD int leading_masked() const { return static_cast<int>(begin - aligned_begin); }
  // Row splits (Schedule::row_splits): warp j of the `splits` warps that share the row walks the
  // elements [split_start(j), split_start(j + 1)), masking those outside [begin, end) as usual.
  // split_start(0) is the ROMA start and split_start(splits) the row end; every other split point
  // is the row end or a multiple of kSplitUnit strictly inside the row, near an even share, so the
  // column a warp starts from is one entry of the split-base table (macko_split_bases, macko.hpp).
  WS_HD std::int64_t split_start(int j, int splits) const;
};

// Granularity of split points, in elements: one split-base table entry (4 bytes) per 256
// elements, 0.6 % of the 640 bytes those elements take at fp16 with 4-bit deltas. A multiple of
// every step and delta-word size, so a split starts like a row does.
inline constexpr int kSplitUnit = kElemsPerStep;

WS_HD std::int64_t RowAligner::split_start(int j, int splits) const {
  if (j <= 0) return aligned_begin;
  if (j >= splits) return end;
  const std::int64_t share = aligned_begin + (end - aligned_begin) * j / splits;
  std::int64_t p = (share + kSplitUnit - 1) / kSplitUnit * kSplitUnit;
  const std::int64_t first_inside = (begin / kSplitUnit + 1) * kSplitUnit;  // smallest multiple > begin
  if (p < first_inside) p = first_inside;
  return p < end ? p : end;
}

// Blocks launched on a persistent grid (Schedule::blocks_per_sm, x_shared): `blocks` is one block
// per `rows per block` rows, `cap` the most blocks that may run (the resident ones). The warps
// stride over the rows, so with b blocks the grid works in ceil(blocks / b) rounds; this is the
// fewest blocks that need no more rounds than `cap` blocks would, and every warp then gets the same
// number of rows, one less at most (the most blocks can leave the last round nearly empty).
WS_HD constexpr std::int64_t balanced_blocks(std::int64_t blocks, std::int64_t cap) {
  if (cap <= 0 || blocks <= cap) return blocks;
  const std::int64_t rounds = (blocks + cap - 1) / cap;
  return (blocks + rounds - 1) / rounds;
}

// Row units (rows, or row pairs with two rows per warp) that the busiest SM works through when
// `units` run on a persistent grid of balanced_blocks of `wpb`-warp blocks, `per_sm` of which fit
// an SM, on `sms` SMs. The block scheduler deals the launched blocks to the SMs in turn (run 112
// traced 1076 blocks as 20 SMs x 9 + 112 x 8), so SM 0 holds blocks 0, sms, 2 sms, ...: the lowest
// warps, which the stride hands the most units. 0 when nothing fits.
WS_HD constexpr std::int64_t busiest_sm_units(std::int64_t units, int wpb, std::int64_t per_sm, std::int64_t sms) {
  if (units <= 0 || wpb <= 0 || per_sm <= 0 || sms <= 0) return 0;
  const std::int64_t launched = balanced_blocks((units + wpb - 1) / wpb, per_sm * sms);
  const std::int64_t stride = launched * wpb;  // warps in the grid: unit u goes to warp u % stride
  std::int64_t sum = 0;
  for (std::int64_t b = 0; b < launched; b += sms)
    for (std::int64_t w = b * wpb; w < (b + 1) * wpb && w < units; ++w) sum += (units - w + stride - 1) / stride;
  return sum;
}

// Schedule of a MACKO SpMV kernel. The kernel and its warp model both take this struct; the
// fields that change arithmetic order (accumulators) are replayed exactly by the model, the
// others (unroll, warps per block) change only which loads are in flight.
struct Schedule {
  int delta_bits = 4;
  int warps_per_block = 4;
  // Blocks of steps whose loads are issued before their arithmetic (memory-level parallelism).
  int unroll_blocks = 2;
  // Independent fp32 accumulators per lane: element i of a lane's 8 goes to accumulator
  // i % lane_accumulators; they are summed (0+1, then +2, ...) before the warp reduction.
  int lane_accumulators = 1;
  // Software pipelining: the next group's loads are issued before this group's arithmetic.
  bool prefetch = false;
  // 0: one warp per row in the grid. k > 0: at most k blocks per SM, warps stride over the rows.
  // A persistent grid (this, or x_shared) launches balanced_blocks: the fewest blocks that need as
  // many rounds of rows as the most blocks would.
  int blocks_per_sm = 0;
  // Elements each lane owns per step (8: one 16-byte vector of values, the paper's layout). With
  // 4 or 2 (4-bit deltas only) a step covers 128 or 64 elements: the lanes of one x gather sit
  // 4 or 2 elements apart instead of 8, so a gather touches fewer 32-byte sectors, at the price of
  // one warp scan per 128 or 64 elements. The stored format is the same. Measured on the H100:
  // 4 is faster only at d <= 0.1 (with x through L1, and with x in shared memory on square-ish
  // matrices), 2 never (kernels/NOTES.md, runs of 2026-11-23 and run 72d).
  int lane_elems = kElemsPerLane;
  // Warps of one block that share a row (1, 2, 4 or 8): each walks a contiguous part of it
  // (RowAligner::split_start) from the column in the split-base table, reduces its lanes, and the
  // row's first warp adds the parts in order (part 0 + part 1, then + part 2, ...) before the
  // epilogue. It shortens the grid's last, part-empty round of long rows: on the H100, 2 splits
  // with 8 warps per block are 3-10 % faster on wide matrices (cols >= 3 rows, few long rows) and
  // tie or lose on tall ones; 4 splits lose everywhere (kernels/NOTES.md, runs 6, 15, 16).
  // gpu::default_schedule picks 2 splits for wide matrices whose x is too wide for x_shared.
  int row_splits = 1;
  // x staged in shared memory by each block before its warps gather from it (a persistent grid:
  // at most the resident blocks are launched, each reads x once). Only where the values come from
  // changes, so the warp model ignores it. Needs cols * 2 bytes of shared memory per block.
  // gpu::default_schedule picks it with 16 warps per block where cols >= rows (faster there in 46
  // of 54 measured cases, kernels/NOTES.md, runs 34-36), on tall matrices with 4 warps per block up
  // to 9216 columns and 16 above (runs 41, 76, 103, 106; narrower than 7168 columns above d = 0.15);
  // where cols >= rows and the grid's last round of rows is short, with rows split over two warps
  // (runs 45, 106); at d <= 0.15 on every matrix of >= 7168 columns (run 72d); with two rows per
  // warp on short rows (row_lanes, run 81). Up to 49152 columns (kXSharedDefaultMaxCols).
  bool x_shared = false;
  // Vectors multiplied at once (1, 2, 4 or 8): Y = alpha A X + beta Y with X of cols x batch and Y
  // of rows x batch, both row-major, so the batch values of one column of X are one vector load
  // (2, 4, 8 or 16 bytes at 16-bit values) and one gather serves every vector. Each vector keeps
  // its own lane_accumulators fp32 accumulators, summed and reduced exactly as with batch 1, so
  // column b of the result has the bits of a batch-1 product with x = column b of X. Batches of 3,
  // 5, 6 or 7 vectors run as the next width up with extra (finite) columns whose results are not
  // read. A batch reads the matrix once: macko-paper.txt §7 names it future work.
  int batch = 1;
  // x's copy in shared memory swizzled at batch 1 too (x_pack_slot; batches always are). It takes
  // 0.5-4 % longer on uniform and Bernoulli rows (more instructions per gather) and 15-28 % less
  // time on 2:4 and 4:8 rows, whose regular columns otherwise put 8 lanes of a gather in one bank
  // (H100, runs 60 and 63, kernels/NOTES.md). gpu::default_schedule_for sets it from the matrix
  // (macko::x_swizzle_pays counts the bank wavefronts a sample of rows' gathers take). Only where x
  // is read from changes, so the warp model ignores it. Needs x_shared; batches ignore it.
  bool x_swizzle = false;
  // Lanes that walk one row: 32 (a warp per row, the paper's kernel) or 16 (two rows per warp, one
  // per half). A half is a 16-lane warp of its own: every shuffle (scan, step total, delta
  // redistribution, reduction) stays inside it, so a row's bits do not depend on its neighbour; the
  // two halves step together until the longer row ends, the shorter one masked. Short rows then pay
  // the per-row start (row bounds, first loads) and the last, part-filled step once per two rows.
  // With one vector, one warp-wide part (row_splits = 1). Measured on the H100 (kernels/NOTES.md,
  // runs 80-82): with x in shared memory and 8 elements per lane, 2-14 % faster on tall matrices
  // whose rows hold <= ~700 nonzeros; slower on longer rows and on square and wide matrices.
  // gpu::default_schedule picks it for tall matrices of <= 9216 columns and <= 768 nonzeros per row.
  int row_lanes = kWarpLanes;

  WS_HD constexpr int elems_per_step() const { return row_lanes * lane_elems; }
  WS_HD constexpr int rows_per_warp() const { return kWarpLanes / row_lanes; }
  // Steps served by one delta load per lane, and the elements of that block.
  WS_HD constexpr int steps_per_block() const { return lane_elems == kElemsPerLane ? steps_per_delta_load(delta_bits) : 1; }
  WS_HD constexpr int elems_per_block() const { return elems_per_step() * steps_per_block(); }
  // Elements (and bytes) of the delta field one lane loads per block.
  WS_HD constexpr int delta_load_elems() const {
    return lane_elems == kElemsPerLane ? elems_per_delta_word(delta_bits) : lane_elems;
  }
  WS_HD constexpr int delta_load_bytes() const { return delta_load_elems() * delta_bits / 8; }

  WS_HD constexpr bool valid() const {
    return valid_delta_bits(delta_bits) && warps_per_block >= 1 && warps_per_block <= 32 &&
           unroll_blocks >= 1 && unroll_blocks <= 8 &&
           (lane_accumulators == 1 || lane_accumulators == 2 || lane_accumulators == 4 ||
            lane_accumulators == 8) &&
           blocks_per_sm >= 0 &&
           (lane_elems == kElemsPerLane || ((lane_elems == 4 || lane_elems == 2) && delta_bits == 4)) &&
           (row_splits == 1 || row_splits == 2 || row_splits == 4 || row_splits == 8) &&
           (batch == 1 || batch == 2 || batch == 4 || batch == 8) && (!x_swizzle || x_shared) &&
           warps_per_block % row_splits == 0 &&
           // a block's rows synchronise on named barriers 1..15
           (row_splits == 1 || warps_per_block / row_splits <= 15) &&
           (row_lanes == kWarpLanes || (row_lanes == 16 && row_splits == 1 && batch == 1));
  }
};

// x in shared memory (Schedule::x_shared): column c's value(s) sit at slot x_pack_slot(c, B), an
// XOR swizzle inside each 128-byte row of x's copy. Regular columns otherwise put the lanes of one
// gather in the same banks:
// - B = 1: lane l of a 2:4 row at d = 0.5 owns columns 16l .. 16l + 15, so a gather reads 2-byte
//   words 32 bytes apart and lanes l, l + 4, l + 8 ... share a bank (8-way). The 16-byte chunks of
//   a row are permuted by the row's index, which halves that (a test counts it) and keeps every
//   chunk whole, so the copy stays one 16-byte cp.async per chunk.
// - B > 1: column c's pack of B 16-bit values (2B bytes) is one slot of the 64/B in a row, permuted
//   by the row's index: at high density the lanes of one gather read columns lane_elems apart, and
//   unswizzled the packs of 8 lanes (B = 8: 16 bytes each, one quarter warp per wavefront) would all
//   fall in the same four banks.
// At batch 1 the kernel swizzles only with Schedule::x_swizzle (it costs uniform rows 0.5-4 %).
// The kernel alone reads this layout (the warp model reads x as given), so it changes no result.
WS_HD constexpr int x_packs_per_row(int batch) { return 64 / batch; }
template <class I>
WS_HD constexpr I x_pack_slot(I c, int batch) {
  if (batch == 1) return c ^ (((c >> 6) & 7) << 3);
  const I p = static_cast<I>(x_packs_per_row(batch));
  return c ^ ((c / p) & (p - 1));
}
// 16-bit elements the block's copy of x takes: whole 128-byte rows (the swizzle stays inside one).
WS_HD constexpr std::int64_t x_shared_elems(std::int64_t cols, int batch) {
  const std::int64_t p = x_packs_per_row(batch);
  return (cols + p - 1) / p * p * batch;
}

static_assert(align_unit(4) == 8 && align_unit(2) == 16 && align_unit(1) == 32 && align_unit(8) == 8);
static_assert(elems_per_block(2) == 512, "paper §4.4.1: 128 B of 2-bit deltas cover two steps");
static_assert(kElemsPerLane * 16 / 8 == 16, "one lane's fp16 values are one 16-byte vector");

}  // namespace warpsparse::macko
