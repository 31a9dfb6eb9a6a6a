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
// Padding elements a run of `gap` zero columns needs in front of the element that ends it: one
// after every max_skip(db) skipped columns (each padding element takes a column of the run itself).
WS_HD constexpr std::int64_t pads_for_gap(std::int64_t gap, int db) { return gap / (std::int64_t{max_skip(db)} + 1); }
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
// Bytes of shared memory that copy takes in elem_bytes-wide values, in whole 16-byte words (the
// block copies x with 16-byte cp.async).
WS_HD constexpr std::int64_t x_shared_bytes(std::int64_t cols, int batch, int elem_bytes) {
  return (x_shared_elems(cols, batch) * elem_bytes + 15) / 16 * 16;
}

static_assert(align_unit(4) == 8 && align_unit(2) == 16 && align_unit(1) == 32 && align_unit(8) == 8);
static_assert(elems_per_block(2) == 512, "paper §4.4.1: 128 B of 2-bit deltas cover two steps");
static_assert(kElemsPerLane * 16 / 8 == 16, "one lane's fp16 values are one 16-byte vector");

}  // namespace warpsparse::macko
