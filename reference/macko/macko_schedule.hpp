// MACKO SpMV schedules: the struct a kernel and its warp model both take, its name format, and the
// one table of the variants the CUDA library compiles. Dependency-free apart from the layout (nvcc
// includes it too). Which schedule runs for a matrix is macko_policy.hpp's choice; why each
// compiled variant exists is docs/macko-schedule.md.
#pragma once
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "reference/common/error.hpp"
#include "reference/macko/macko_layout.hpp"

namespace warpsparse::macko {

// The batches MACKO has kernels for (Schedule::batch), and the one that holds b vectors (1 <= b <= 8;
// the vectors past b are zero): the one list the schedule, the benchmark and the batch-kernel rule
// (bitmap::choose_batch_kernel) read.
inline constexpr int kMaxBatch = 8;
WS_HD constexpr bool valid_batch(int b) { return b == 1 || b == 2 || b == 4 || b == 8; }
WS_HD constexpr int batch_for(int b) { return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : kMaxBatch; }

// Schedule::grid_splits: at most kMaxGridSplits warps share a row (the row's last warp adds their
// parts, kMaxGridSplits / 32 per lane). Only matrices of at most kGridSplitMaxRows rows split, and a
// launch's scratch (a counter per row and rows x grid_splits x batch <= kGridSplitMaxParts fp32
// partials, at most 520 KiB) stays small: more rows already fill the GPU with one warp each.
inline constexpr int kMaxGridSplits = 1024;
inline constexpr std::int64_t kGridSplitMaxRows = 2048;
inline constexpr std::int64_t kGridSplitMaxParts = std::int64_t{1} << 17;

// Schedule of a MACKO SpMV kernel. The fields before warps_per_block are compiled into the kernel
// (kernel_key); the last two are launch parameters. The warp model replays the fields that change
// the arithmetic order (lane_accumulators, lane_elems, row_lanes, row_splits, batch) exactly; the
// others change only which loads are in flight or where x is read from. The delta width is the
// matrix's (Macko::delta_bits), not the schedule's: methods that depend on it take it.
struct Schedule {
  // Blocks of steps whose loads are issued before their arithmetic (memory-level parallelism).
  int unroll_blocks = 2;
  // Independent fp32 accumulators per lane: element i of a lane's elements goes to accumulator
  // i % lane_accumulators; they are summed (0 + 1, then + 2, ...) before the warp reduction.
  int lane_accumulators = 1;
  // Software pipelining: the next group's loads are issued before this group's arithmetic.
  bool prefetch = true;
  // Elements each lane owns per step: 8 (one 16-byte vector of fp16 values, the paper's layout), or
  // 4 / 2 with 4-bit deltas, which puts the lanes of one x gather 4 or 2 elements apart (fewer
  // sectors per gather at low density) at the price of one warp scan per 128 or 64 elements. The
  // stored format is the same.
  int lane_elems = kElemsPerLane;
  // Lanes that walk one row: 32 (a warp per row) or 16 (two rows per warp, one per half). A half is a
  // 16-lane warp of its own: every shuffle stays inside it, so a row's bits do not depend on its
  // neighbour; the halves step together until the longer row ends, the shorter one masked.
  int row_lanes = kWarpLanes;
  // Warps of one block that share a row (1, 2, 4 or 8): each walks a contiguous part of it
  // (RowAligner::split_start) from the column in the split-base table, reduces its lanes, and the
  // row's first warp adds the parts in order (part 0 + part 1, then + part 2, ...) before the
  // epilogue. It shortens a persistent grid's last, part-empty round of long rows.
  int row_splits = 1;
  // x staged in shared memory by each block before its warps gather from it (a persistent grid: at
  // most the resident blocks are launched, each copies x once). Needs x_shared_elems(cols, batch)
  // 16-bit words of shared memory per block.
  bool x_shared = false;
  // x's copy in shared memory swizzled (x_pack_slot) at batch 1; batches always swizzle, so it is
  // not part of a batched kernel's key. Needs x_shared.
  bool x_swizzle = false;
  // Vectors multiplied at once (1, 2, 4 or 8): Y = alpha A X + beta Y with X cols x batch and Y rows x
  // batch, both row-major, so one column's batch values are one vector load and one gather serves
  // every vector. Each vector keeps its own accumulators, summed and reduced exactly as with batch
  // 1, so column b of the result has the bits of a batch-1 product with x = column b of X.
  int batch = 1;
  // Warps anywhere in the grid that share one row (1, or 2 to kMaxGridSplits), for matrices with
  // fewer rows than the GPU has warps: warp j walks [split_start(j), split_start(j + 1)) of its row
  // as with row_splits, writes its reduced part to the launch's scratch, and the row's last warp to finish
  // (a per-row arrival counter) adds the parts in the order of grid_part_sum. The count is a launch
  // parameter: every count above 1 runs the same kernel (kernel_key). Needs row_splits = 1, 32 lanes
  // per row and x through L1, and fits the scratch limits (kGridSplitMaxRows, kGridSplitMaxParts).
  int grid_splits = 1;
  // Launch parameters. Warps per block (a multiple of row_splits); 0 blocks_per_sm: one warp per row
  // unit in the grid, k > 0: at most k blocks per SM, warps striding over the rows. A persistent
  // grid (this, or x_shared) launches balanced_blocks.
  int warps_per_block = 4;
  int blocks_per_sm = 0;

  constexpr bool operator==(const Schedule&) const = default;

  WS_HD constexpr int elems_per_step() const { return row_lanes * lane_elems; }
  // Parts each row is cut into (by the warps of one block, or across the grid).
  WS_HD constexpr int row_parts() const { return row_splits * grid_splits; }
  WS_HD constexpr int rows_per_warp() const { return kWarpLanes / row_lanes; }
  // Steps served by one delta load per lane, and the elements of that block.
  WS_HD constexpr int steps_per_block(int delta_bits) const {
    return lane_elems == kElemsPerLane ? steps_per_delta_load(delta_bits) : 1;
  }
  WS_HD constexpr int elems_per_block(int delta_bits) const { return elems_per_step() * steps_per_block(delta_bits); }
  // Elements of one load group (unroll_blocks blocks), the unit a warp walks a row in: at 4- and
  // 8-bit deltas and 8 elements per lane, 512 with one row per warp, 256 per row with two.
  WS_HD constexpr int elems_per_group(int delta_bits) const {
    return elems_per_block(delta_bits) * unroll_blocks;
  }
  // Elements (and bytes) of the delta field one lane loads per block.
  WS_HD constexpr int delta_load_elems(int delta_bits) const {
    return lane_elems == kElemsPerLane ? elems_per_delta_word(delta_bits) : lane_elems;
  }
  WS_HD constexpr int delta_load_bytes(int delta_bits) const { return delta_load_elems(delta_bits) * delta_bits / 8; }

  // The schedule is well formed on its own (any delta width the kernel may meet).
  WS_HD constexpr bool valid() const {
    return warps_per_block >= 1 && warps_per_block <= 32 && unroll_blocks >= 1 && unroll_blocks <= 8 &&
           (lane_accumulators == 1 || lane_accumulators == 2 || lane_accumulators == 4 || lane_accumulators == 8) &&
           blocks_per_sm >= 0 && (lane_elems == kElemsPerLane || lane_elems == 4 || lane_elems == 2) &&
           (row_splits == 1 || row_splits == 2 || row_splits == 4 || row_splits == 8) &&
           valid_batch(batch) && (!x_swizzle || x_shared) &&
           warps_per_block % row_splits == 0 &&
           // a block's rows synchronise on named barriers 1..15
           (row_splits == 1 || warps_per_block / row_splits <= 15) &&
           (row_lanes == kWarpLanes || (row_lanes == 16 && row_splits == 1 && batch == 1)) &&
           grid_splits >= 1 && grid_splits <= kMaxGridSplits &&
           (grid_splits == 1 || (row_splits == 1 && row_lanes == kWarpLanes && !x_shared));
  }
  // ... and for a matrix of this delta width: fewer than 8 elements per lane need 4-bit deltas.
  WS_HD constexpr bool valid(int delta_bits) const {
    return valid() && valid_delta_bits(delta_bits) && (lane_elems == kElemsPerLane || delta_bits == 4);
  }
};

// Whether a matrix of `rows` rows runs schedule s within the grid-split scratch limits (always,
// without grid splits).
constexpr bool grid_split_fits(const Schedule& s, std::int64_t rows) {
  return s.grid_splits == 1 || (rows <= kGridSplitMaxRows && rows * s.grid_splits * s.batch <= kGridSplitMaxParts);
}

// The compiled part of a schedule: the launch parameters set to the smallest valid ones (a block of
// one row), and x_swizzle cleared where it names no separate kernel (batches always swizzle). Two
// schedules with the same key run the same kernel.
constexpr Schedule kernel_key(Schedule s) {
  s.warps_per_block = s.row_splits;
  if (s.grid_splits > 1) s.grid_splits = 2;
  s.blocks_per_sm = 0;
  if (s.batch > 1) s.x_swizzle = false;
  return s;
}

// Delta widths as a set (bit b for b-bit deltas).
inline constexpr unsigned delta_bit(int db) { return 1u << db; }
inline constexpr unsigned kEveryDeltaWidth = delta_bit(1) | delta_bit(2) | delta_bit(4) | delta_bit(8);
inline constexpr unsigned k4BitDeltas = delta_bit(4);

struct CompiledVariant {
  Schedule schedule;        // the compiled fields (its launch fields are not read)
  unsigned delta_bits;      // the widths it is built for
  bool sweep_only = false;  // built for measuring (`ws_bench_macko --schedules all`), not a rule's choice
};
inline constexpr bool kSweepOnly = true;

// Every MACKO kernel variant the CUDA library builds (each for fp16/bf16 values, an fp32 or 16-bit
// output, and 32- and 64-bit offsets: eight kernels a line). The kernel's dispatch, is_compiled,
// the GPU property tests' generators and the benchmark's sweeps all read this table, and the policy
// (macko_policy.hpp) picks only schedules it holds. Each line is one that choose_schedule returns for
// some matrix (a test checks it), or is marked kSweepOnly: a variant built for a documented
// measurement, e.g. {{.lane_elems = 4, .row_lanes = 16, .x_shared = true}, k4BitDeltas, kSweepOnly}.
// docs/macko-schedule.md gives the rule and the measurement behind each.
inline constexpr CompiledVariant kCompiledVariants[] = {
    // One vector, x read through L1.
    {{}, kEveryDeltaWidth},            // the default loads
    {{.lane_elems = 4}, k4BitDeltas},  // low density
    {{.row_splits = 2}, k4BitDeltas},  // wide matrices whose x is too wide for shared memory
    // One vector, x staged in shared memory.
    {{.x_shared = true}, k4BitDeltas | delta_bit(8)},
    // Low density, a round fewer than at 8 elements: the rows where that happened (4225-6336 on an
    // H100) take one round in pairs, which ran as fast or faster (docs/macko-schedule.md).
    {{.lane_elems = 4, .x_shared = true}, k4BitDeltas, kSweepOnly},
    {{.row_splits = 2, .x_shared = true}, k4BitDeltas},    // a short last round of long rows
    {{.x_shared = true, .x_swizzle = true}, k4BitDeltas},  // the same three for N:M rows, swizzled
    {{.lane_elems = 4, .x_shared = true, .x_swizzle = true}, k4BitDeltas, kSweepOnly},
    {{.row_splits = 2, .x_shared = true, .x_swizzle = true}, k4BitDeltas},
    // Two rows per warp: short rows on tall matrices, or where pairs take half the grid's rounds.
    {{.row_lanes = 16, .x_shared = true}, k4BitDeltas | delta_bit(8)},
    {{.grid_splits = 2}, k4BitDeltas},  // few long rows: each row over many warps of the grid
    // Batches of 2, 4 and 8 vectors.
    {{.x_shared = true, .batch = 2}, k4BitDeltas},
    {{.batch = 2}, k4BitDeltas},
    {{.row_splits = 2, .batch = 2}, k4BitDeltas},
    {{.x_shared = true, .batch = 4}, k4BitDeltas},
    {{.batch = 4}, k4BitDeltas},
    {{.lane_elems = 4, .batch = 4}, k4BitDeltas},  // dense-ish rows
    {{.row_splits = 2, .batch = 4}, k4BitDeltas},
    {{.x_shared = true, .batch = 8}, k4BitDeltas},
    {{.batch = 8}, k4BitDeltas},
    {{.lane_elems = 4, .batch = 8}, k4BitDeltas},
};
inline constexpr int kCompiledVariantCount = static_cast<int>(sizeof(kCompiledVariants) / sizeof(kCompiledVariants[0]));

// Index of the compiled variant that runs schedule s on a matrix of this delta width; -1 if none.
constexpr int compiled_variant(const Schedule& s, int delta_bits) {
  if (!s.valid(delta_bits)) return -1;
  const Schedule key = kernel_key(s);
  for (int i = 0; i < kCompiledVariantCount; ++i)
    if (kernel_key(kCompiledVariants[i].schedule) == key && (kCompiledVariants[i].delta_bits & delta_bit(delta_bits)) != 0)
      return i;
  return -1;
}
constexpr bool is_compiled(const Schedule& s, int delta_bits) { return compiled_variant(s, delta_bits) >= 0; }

// The table is what it says: every entry valid for its delta widths, no kernel twice.
constexpr bool compiled_table_is_well_formed() {
  for (int i = 0; i < kCompiledVariantCount; ++i) {
    const CompiledVariant& v = kCompiledVariants[i];
    const Schedule key = kernel_key(v.schedule);
    if (v.delta_bits == 0 || (v.delta_bits & ~kEveryDeltaWidth) != 0) return false;
    for (int db : {1, 2, 4, 8})
      if ((v.delta_bits & delta_bit(db)) != 0 && !key.valid(db)) return false;
    for (int j = 0; j < i; ++j)
      if (kernel_key(kCompiledVariants[j].schedule) == key && (kCompiledVariants[j].delta_bits & v.delta_bits) != 0)
        return false;
  }
  return true;
}
static_assert(compiled_table_is_well_formed());

// The schedule's name, as the benchmarks' result files and every error message spell it: the loads'
// and the launch's fields always, then the flags that are on ("xs=1", "swz=1"), 16 lanes per row,
// a batch above 1 and grid splits, e.g. "wpb=16/unroll=2/acc=1/prefetch=1/bpsm=0/elems=8/splits=1/xs=1".
inline std::string to_string(const Schedule& s) {
  auto f = [](const char* k, int v) { return std::string(k) + "=" + std::to_string(v); };
  std::string out = f("wpb", s.warps_per_block) + "/" + f("unroll", s.unroll_blocks) + "/" + f("acc", s.lane_accumulators) +
                    "/" + f("prefetch", s.prefetch) + "/" + f("bpsm", s.blocks_per_sm) + "/" + f("elems", s.lane_elems) +
                    "/" + f("splits", s.row_splits);
  if (s.x_shared) out += "/xs=1";
  if (s.x_swizzle) out += "/swz=1";
  if (s.row_lanes != kWarpLanes) out += "/" + f("lanes", s.row_lanes);
  if (s.batch != 1) out += "/" + f("batch", s.batch);
  if (s.grid_splits != 1) out += "/" + f("gsplits", s.grid_splits);
  return out;
}

// Reads a name to_string wrote, or any of its fields in any order (the others keep Schedule{}'s
// values); throws Error naming the field it cannot read. The result is not checked with valid().
inline Schedule parse_schedule(std::string_view name) {
  Schedule s;
  while (!name.empty()) {
    const std::size_t slash = name.find('/');
    const std::string_view item = name.substr(0, slash);
    name = slash == std::string_view::npos ? std::string_view{} : name.substr(slash + 1);
    const std::size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    int v = 0;
    const char* end = item.data() + item.size();
    const bool ok = eq != std::string_view::npos && eq + 1 < item.size() && [&] {
      const auto r = std::from_chars(item.data() + eq + 1, end, v);
      return r.ptr == end && r.ec == std::errc();
    }();
    require(ok, "schedule field '" + std::string(item) + "' is not KEY=INTEGER (an int)");
    if (key == "wpb") s.warps_per_block = v;
    else if (key == "unroll") s.unroll_blocks = v;
    else if (key == "acc") s.lane_accumulators = v;
    else if (key == "prefetch") s.prefetch = v != 0;
    else if (key == "bpsm") s.blocks_per_sm = v;
    else if (key == "elems") s.lane_elems = v;
    else if (key == "splits") s.row_splits = v;
    else if (key == "xs") s.x_shared = v != 0;
    else if (key == "swz") s.x_swizzle = v != 0;
    else if (key == "lanes") s.row_lanes = v;
    else if (key == "batch") s.batch = v;
    else if (key == "gsplits") s.grid_splits = v;
    else
      throw Error("schedule field '" + std::string(key) +
                  "' is unknown (wpb, unroll, acc, prefetch, bpsm, elems, splits, xs, swz, lanes, batch, gsplits)");
  }
  return s;
}

}  // namespace warpsparse::macko
