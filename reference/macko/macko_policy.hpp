// Which MACKO schedule runs for a matrix on a GPU: a pure host function of the matrix's statistics
// and the device's facts, so the CLI can say what would run where (`warpsparse plan`), the notebooks
// can model the schedule that really runs, and CI tests every rule without a GPU. Each rule's
// reason and measurement is in docs/macko-schedule.md; its thresholds are data, per GPU (Rules).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/device/device_facts.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_schedule.hpp"
#include "reference/macko/macko_x_banks.hpp"

namespace warpsparse::macko {

// The thresholds of the rules, as measured on one GPU (docs/macko-schedule.md, one section each).
struct Rules {
  const char* measured_on = "NVIDIA H100 80GB HBM3";
  // At or below this density x goes to shared memory at 8 elements per lane from low_min_cols columns
  // on, and below them on tall matrices and within one round of the grid; elsewhere lanes take 4.
  double low_density = 0.15;
  // The widest x staged in shared memory at batch 1 (96 KiB of fp16: two blocks per SM).
  std::int64_t x_shared_max_cols = 49152;
  // Tall matrices up to this many columns take 4-warp blocks (more, smaller copies of x).
  std::int64_t tall_max_cols = 9216;
  // From this many columns x is in shared memory at any density, and tall matrices above
  // low_density may take tall_large_block_warps-warp blocks.
  std::int64_t low_min_cols = 7168;
  int tall_large_block_warps = 12;
  // Tall matrices of at most tall_max_cols columns whose rows hold at most this many nonzeros run two
  // rows per warp; at 8-bit deltas up to two_rows_max_nnz_delta8, where two rows still won at 1147
  // nonzeros (by 11 %) and stopped winning from about 1300 (docs/macko-schedule.md, `two-rows`).
  double two_rows_max_nnz = 768;
  double two_rows_max_nnz_delta8 = 1152;
  // Longer rows at 4-bit deltas still run two rows per warp, up to two_rows_groups_max_cols columns,
  // where that saves at least this share of the load groups a warp walks (two_rows_group_saving):
  // rows of 1025-1280 stored elements save 1/6 and won 2.2-6.2 % in 42 cases on 3584-8704 columns;
  // 1/8 and 1/10 won at most 1.3 %; 9216 columns gained at most 2.4 % at 1/6 and lost up to 6.3 %
  // where pairs' longer rows passed 1280 (docs/macko-schedule.md, `two-rows`).
  double two_rows_min_group_saving = 0.15;
  std::int64_t two_rows_groups_max_cols = 8704;
  // Where cols >= rows, rows of at most this many nonzeros run two rows per warp where pairs take half
  // the rounds of the persistent grid that rows alone take (one against two: 4225-8448 rows at
  // 16-warp blocks on an H100 or H200; two against four: 12673-16896): there the balanced grid
  // launches as many warps for pairs as for single rows. On the H100 two rows were faster in all 30
  // fitted cases of one round against two (0.7-16 %; 8192 x 22016 lost 1 % at 2202 nonzeros) and
  // 14336² won at two against four; on an H200 in all 25 cases of two against four and three against
  // six, and in 10 of 11 changed picks out of sample. Where pairs take two rounds against three
  // (9216², 10240², 12288²), fewer warps, they mostly lost (docs/macko-schedule.md,
  // `two-rows-half-rounds`).
  double two_rows_half_rounds_max_nnz = 2048;
  // Where cols >= rows, rows are split over two warps when the persistent grid's last round is less
  // than split_tail full and each half row keeps split_min_warp_nnz nonzeros.
  double split_tail = 0.5;
  double split_min_warp_nnz = 2048;
  // Batches: x in shared memory at batch 8 only on rows at least this dense and while x fits one block.
  double batch_dense_density = 0.75;
  std::int64_t batch_x_shared_max_bytes = 196608;
  // x_swizzle pays when it saves this share of the sampled gathers' bank wavefronts.
  double swizzle_min_saving = 0.2;
  // Registers per thread of the kernel whose residency the persistent-grid rules count (fp16, 8
  // elements per lane, x in shared memory, 32-bit offsets) in this build for sm_90; a GPU test checks
  // it against the compiled kernel.
  int x_shared_kernel_registers = 49;
  // The same kernel at 4 elements per lane (the GPU test checks it too). No rule counts its rounds
  // since two rows per warp took the rows where it saved one; x_shared_resident_rows still gives them,
  // for the measurements that part the two kernels (docs/macko-schedule.md, `low-density-x-shared`).
  int x_shared_kernel_registers_elems4 = 40;
  // Few long rows: a row of at least grid_split_min_row_units split units (macko::kSplitUnit
  // elements) is cut over the warps of the grid (Schedule::grid_splits), as many as give
  // grid_split_warps_per_sm warps per SM, one unit each at least, where that makes
  // grid_split_min_parts parts or more. The parts' reduction costs about 2 us (three L2 round trips
  // more than a whole row), so short rows, or rows enough to fill the GPU, stay whole.
  int grid_split_warps_per_sm = 16;
  int grid_split_min_row_units = 8;
  int grid_split_min_parts = 4;
  // Delta width (choose_delta_bits): one element slot a warp walks at 8-bit deltas costs this many of
  // those at 4-bit deltas (more delta bytes per slot, and columns advanced element by element instead
  // of by SWAR sums). One row per warp, slots counted in whole steps; the slot ratio (8-bit slots over
  // 4-bit) comes in steps, since rows walk whole steps (H100, both widths timed: 2026-11-27 at
  // d = 0.2-0.05, 2026-12-06 at d = 0.07-0.2; docs/macko-schedule.md): on 2026-12-06 8 bits won, by
  // 1-18 %, all 22 cases at a ratio of 0.80 or less and lost 11 of 12 at 0.86 or more (up to 14 %);
  // at 0.83, 12288² won and three other shapes lost 2-10 %. So 1.22 takes 8 bits below 0.82 (the
  // earlier 1.3 gave up the wins at 0.80: 40 faster picks of 52 cases against 49). Where only the
  // 8-bit schedule runs two rows per warp (rows of 768-1152 nonzeros), the same: 8 bits won all four
  // cases at 0.80 and lost all six at 0.87-0.89 (by 5-9 %).
  double delta8_slot_cost = 1.22;
  // Where both widths run two rows per warp, slots are counted in whole load groups (256 elements
  // per row), the unit a pair walks: a step saved inside a group saves no time. On the 83 timed
  // cases of both widths at two rows (H100, 2026-11-27 to 2026-12-07), 8 bits won 34 of 37 at a
  // group ratio of 0.77 or less (the three lost by at most 1.5 %) and lost 43 of 46 at 0.8 or more
  // (the three won by at most 3 %). Counted in steps (the earlier weight 1.15), 12 of the 83 took
  // the slower width, by up to 9 %. 1.28 takes 8 bits below a group ratio of 0.78.
  double delta8_group_cost_two_rows = 1.28;
};
inline constexpr Rules kH100Rules{};

// The rules a GPU runs: the H100's for the H100 and the H200 (the same SM; no rule has been
// re-measured on the H200), and for any other GPU until one is measured there.
inline const Rules& rules_for(const DeviceFacts&) { return kH100Rules; }

// What the policy reads of a matrix.
struct MatrixStats {
  std::int64_t rows = 0, cols = 0;  // rows = 0: shape unknown (one warp per row, x through L1)
  double density = 0.5;             // nnz / (rows * cols)
  int delta_bits = 4;
  // Stored elements (nonzeros and padding) per row on average; 0: unknown, density x cols is used.
  double row_elements = 0;
  // Share of shared-memory bank wavefronts the x swizzle saves on a sample of the matrix's gathers,
  // at 8 and at 4 elements per lane (macko_x_banks.hpp); 0 where not sampled.
  double swizzle_saving8 = 0, swizzle_saving4 = 0;
};

// The statistics of an encoded matrix, its gathers sampled (a few hundred rows, well under a
// millisecond).
template <class T>
MatrixStats matrix_stats(const Macko<T>& a) {
  MatrixStats m;
  m.rows = a.rows;
  m.cols = a.cols;
  const double cells = static_cast<double>(a.rows) * static_cast<double>(a.cols);
  m.density = cells > 0 ? static_cast<double>(a.nnz) / cells : 0.0;
  m.delta_bits = a.delta_bits;
  m.row_elements = a.rows > 0 ? static_cast<double>(a.emitted()) / static_cast<double>(a.rows) : 0.0;
  m.swizzle_saving8 = x_gather_wavefronts(a, kElemsPerLane).saving();
  m.swizzle_saving4 = x_gather_wavefronts(a, 4).saving();
  return m;
}

// Stored elements per row: the matrix's own count where known, else its nonzeros (no padding).
inline double row_elements_or_nnz(const MatrixStats& m) {
  return m.row_elements > 0 ? m.row_elements : m.density * static_cast<double>(m.cols);
}

// The share of load groups (Schedule::elems_per_group, the unit a warp walks a row in)
// that two rows per warp save against one, on rows of `elements` stored elements: one row per warp
// walks ceil(n / g1) groups of g1 elements (512 at 4-bit deltas), two rows per warp walk each row in
// ceil(n / g2) groups of g2 = g1 / 2 on half the lanes, a warp's time per row being half of that.
// Rows of 1025-1280 elements walk 3 groups alone, 5 halves in pairs: 1/6 saved.
inline double two_rows_group_saving(double elements, int delta_bits) {
  const Schedule one{.x_shared = true}, two{.row_lanes = kWarpLanes / 2, .x_shared = true};
  const double g1 = one.elems_per_group(delta_bits), g2 = two.elems_per_group(delta_bits);
  const double alone = std::ceil(elements / g1), paired = std::ceil(elements / g2) / 2;
  return alone > 0 ? (alone - paired) / alone : 0.0;
}

// Blocks of `wpb` warps of the x_shared kernel (at `lane_elems` = 8 or 4 elements per lane) that one SM holds
// with x of `cols` 16-bit columns (0 when x does not fit a block), and the rows a persistent grid of
// them holds at once.
inline int x_shared_blocks_per_sm(const DeviceFacts& d, const Rules& r, std::int64_t cols, int wpb,
                                  int lane_elems = kElemsPerLane) {
  const int regs =
      lane_elems == kElemsPerLane ? r.x_shared_kernel_registers : r.x_shared_kernel_registers_elems4;
  return resident_blocks(d, 32 * wpb, regs, x_shared_bytes(cols, 1, 2));
}
inline std::int64_t x_shared_resident_rows(const DeviceFacts& d, const Rules& r, std::int64_t cols, int wpb,
                                           int lane_elems = kElemsPerLane) {
  return std::int64_t{x_shared_blocks_per_sm(d, r, cols, wpb, lane_elems)} * d.sms * wpb;
}

// Row units (rows, or row pairs with two rows per warp) that the busiest SM works through when
// `units` run on a persistent grid of balanced_blocks of `wpb`-warp blocks, `per_sm` of which fit an
// SM, on `sms` SMs. The block scheduler deals the launched blocks to the SMs in turn, so SM 0 holds
// blocks 0, sms, 2 sms, ...: the lowest warps, which the stride hands the most units. 0 when nothing
// fits.
constexpr std::int64_t busiest_sm_units(std::int64_t units, int wpb, std::int64_t per_sm, std::int64_t sms) {
  if (units <= 0 || wpb <= 0 || per_sm <= 0 || sms <= 0) return 0;
  const std::int64_t launched = balanced_blocks((units + wpb - 1) / wpb, per_sm * sms);
  const std::int64_t stride = launched * wpb;  // warps in the grid: unit u goes to warp u % stride
  std::int64_t sum = 0;
  for (std::int64_t b = 0; b < launched; b += sms)
    for (std::int64_t w = b * wpb; w < (b + 1) * wpb && w < units; ++w) sum += (units - w + stride - 1) / stride;
  return sum;
}

// Warps per block with x in shared memory at batch 1: 4 on tall matrices of at most tall_max_cols
// columns (more blocks, each a small copy of x), 16 otherwise.
inline int x_shared_block_warps(const MatrixStats& m, const Rules& r) {
  return m.rows > m.cols && m.cols <= r.tall_max_cols ? 4 : 16;
}

// Whether x_swizzle pays for schedule s on this matrix: x in shared memory at batch 1 (batches always
// swizzle), and the sampled gathers at s's elements per lane save enough bank wavefronts.
inline bool swizzle_pays(const MatrixStats& m, const Rules& r, const Schedule& s) {
  const double saving = s.lane_elems == kElemsPerLane ? m.swizzle_saving8 : m.swizzle_saving4;
  return s.x_shared && s.batch == 1 && saving >= r.swizzle_min_saving;
}

// Grid splits for a matrix of few long rows (Schedule::grid_splits, Rules::grid_split_*): 1 where
// the rows stay whole.
inline int grid_splits_for(const MatrixStats& m, const DeviceFacts& d, const Rules& r) {
  if (m.rows <= 0) return 1;
  const double elems = row_elements_or_nnz(m);
  const auto units = static_cast<std::int64_t>(elems / double{kSplitUnit});
  if (units < r.grid_split_min_row_units) return 1;
  const std::int64_t by_warps = std::int64_t{d.sms} * r.grid_split_warps_per_sm / m.rows;
  const Schedule s{.grid_splits = static_cast<int>(std::min({units, by_warps, std::int64_t{kMaxGridSplits}}))};
  return s.grid_splits >= r.grid_split_min_parts && grid_split_fits(s, m.rows) ? s.grid_splits : 1;
}

// A schedule and the rules that made it, in the order they applied.
struct Plan {
  Schedule schedule;
  std::vector<std::string> why;
};

namespace policy_detail {
inline std::string num(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Batches of 2, 4 and 8 vectors (4-bit deltas).
inline Plan plan_batch(const MatrixStats& m, const Rules& r, Plan p) {
  Schedule& s = p.schedule;
  if (m.delta_bits != 4 || m.rows <= 0) {
    p.why.push_back("batch " + std::to_string(s.batch) + ": the default loads, x through L1");
    return p;
  }
  const bool dense_rows = m.density >= r.batch_dense_density;
  const std::int64_t x_bytes = x_shared_bytes(m.cols, s.batch, 2);
  if ((s.batch <= 4 && m.cols * s.batch <= r.x_shared_max_cols) ||
      (s.batch == 8 && dense_rows && x_bytes <= r.batch_x_shared_max_bytes)) {
    s.warps_per_block = 16;
    s.x_shared = true;
    p.why.push_back("batch " + std::to_string(s.batch) + ": x (" + std::to_string(x_bytes) +
                    " bytes) in shared memory, swizzled, 16-warp blocks");
    return p;
  }
  if (dense_rows && s.batch >= 4) {
    s.lane_elems = 4;
    p.why.push_back("batch " + std::to_string(s.batch) + ", density >= " + num(r.batch_dense_density) +
                    ": x through L1, 4 elements per lane (half the L1 lines per gather)");
  } else if (m.cols >= 3 * m.rows && s.batch <= 4) {
    s.warps_per_block = 8;
    s.row_splits = 2;
    p.why.push_back("batch " + std::to_string(s.batch) + ", wide (cols >= 3 rows): x through L1, rows split over 2 warps");
  } else {
    p.why.push_back("batch " + std::to_string(s.batch) + ": x through L1, the default loads");
  }
  return p;
}
}  // namespace policy_detail

namespace policy_detail {
// The shape rules at batch 1 (batches: plan_batch), before the compiled check of plan_schedule.
inline Plan plan_rules(const MatrixStats& m, const DeviceFacts& d, int batch) {
  using policy_detail::num;
  const Rules& r = rules_for(d);
  Plan p;
  Schedule& s = p.schedule;  // the default loads: 4-warp blocks, two blocks of steps in flight, prefetch
  s.batch = batch;
  if (batch != 1) return policy_detail::plan_batch(m, r, p);
  // 4-bit deltas run every rule; 8-bit deltas the shape rules at 8 elements per lane, where their
  // kernel is built (x in shared memory, one or two rows per warp); 1- and 2-bit the default loads.
  const bool wide_deltas = m.delta_bits == 8;
  if ((m.delta_bits != 4 && !wide_deltas) || m.rows <= 0) {
    p.why.push_back(m.rows > 0 ? std::to_string(m.delta_bits) + "-bit deltas: the default loads, x through L1"
                               : "shape unknown: the default loads, x through L1");
    return p;
  }
  if (const int gs = wide_deltas ? 1 : grid_splits_for(m, d, r); gs > 1) {
    s.grid_splits = gs;
    p.why.push_back(std::to_string(m.rows) + " rows of >= " + std::to_string(r.grid_split_min_row_units) + " x " +
                    std::to_string(kSplitUnit) + " elements for " + std::to_string(d.sms) + " SMs: each row over " +
                    std::to_string(gs) + " warps of the grid, x through L1");
    return p;
  }
  const bool tall = m.rows > m.cols;
  auto blocks_for_x = [&] { return x_shared_block_warps(m, r); };
  const double row_nnz = m.density * static_cast<double>(m.cols);
  const double two_rows_max = wide_deltas ? r.two_rows_max_nnz_delta8 : r.two_rows_max_nnz;
  const bool short_rows = row_nnz <= two_rows_max;
  const double row_elems = row_elements_or_nnz(m);
  const double group_saving = wide_deltas ? 0.0 : two_rows_group_saving(row_elems, m.delta_bits);
  const bool saves_groups =
      m.cols <= r.two_rows_groups_max_cols && group_saving >= r.two_rows_min_group_saving;
  // Rounds of the persistent grid (x in shared memory) that `units` warps' worth of rows take.
  auto rounds_of = [](std::int64_t units, std::int64_t per_round) {
    return per_round > 0 ? (units + per_round - 1) / per_round : std::int64_t{0};
  };
  const std::int64_t round8 = x_shared_resident_rows(d, r, m.cols, blocks_for_x());
  const std::int64_t rounds8 = rounds_of(m.rows, round8);
  const std::int64_t pair_rounds8 = rounds_of((m.rows + 1) / 2, round8);
  const bool half_rounds_in_pairs = !tall && m.cols <= r.x_shared_max_cols && rounds8 > 1 &&
                                    2 * pair_rounds8 == rounds8 && row_nnz <= r.two_rows_half_rounds_max_nnz;
  const bool tall_pairs = tall && m.cols <= r.tall_max_cols && (short_rows || saves_groups);
  if (tall_pairs || half_rounds_in_pairs) {
    // Two rows per warp, x in shared memory; these tall matrices take 4-warp blocks (blocks_for_x).
    s.x_shared = true;
    s.row_lanes = kWarpLanes / 2;
    s.warps_per_block = blocks_for_x();
    const std::string where =
        tall_pairs
            ? "tall, <= " + std::to_string(short_rows ? r.tall_max_cols : r.two_rows_groups_max_cols) +
                  " columns, rows of " +
                  (short_rows ? num(std::round(row_nnz)) + " <= " + num(two_rows_max) + " nonzeros"
                              : num(std::round(row_elems)) + " stored elements, " +
                                    num(std::round(group_saving * 100)) + " % fewer load groups in pairs")
            : "cols >= rows, rows of " + num(std::round(row_nnz)) +
                  " <= " + num(r.two_rows_half_rounds_max_nnz) + " nonzeros: " + std::to_string(m.rows) +
                  " rows take " + std::to_string(pair_rounds8) + " round" + (pair_rounds8 > 1 ? "s" : "") +
                  " of the grid's " + std::to_string(round8) + " in pairs, " + std::to_string(rounds8) +
                  " alone";
    p.why.push_back(where + ": two rows per warp, x in shared memory, " + std::to_string(s.warps_per_block) +
                    "-warp blocks");
  } else {
    const bool low = m.density <= r.low_density;
    // From shared memory a gather costs its bank conflicts, not L1 lines, so there the 4-element walk
    // saves nothing and keeps its extra scan per 128 elements: low-density x in shared memory walks
    // 8 elements, long rows and square-ish alike (docs/macko-schedule.md).
    // Under low_min_cols columns the same holds on tall matrices whose rows the two-rows rule leaves
    // (14-24 % faster than x through L1 at 4 elements), and where cols >= rows and the rows fit one
    // round of the persistent grid. The rows past that round took 4 elements (whose kernel holds
    // three blocks per SM to two, a round fewer at 4225-6336 rows) until pairs took them in one
    // round (two-rows-half-rounds, above): as fast or faster, so no rows under 7168 columns reach here
    // past one round at low density.
    const bool wide_cols = m.cols >= r.low_min_cols;
    const bool one_round = m.cols >= m.rows && rounds8 == 1;
    const bool low_x_shared = low && m.cols <= r.x_shared_max_cols && (wide_cols || tall || one_round);
    if (low && !wide_deltas && !low_x_shared) {
      s.lane_elems = 4;
      p.why.push_back("density <= " + num(r.low_density) + ": 4 elements per lane");
    }
    if (low_x_shared) {
      s.x_shared = true;
      s.warps_per_block = blocks_for_x();
      std::string where;
      if (wide_cols)
        where = std::to_string(r.low_min_cols) + "-" + std::to_string(r.x_shared_max_cols) + " columns";
      else if (tall)
        where = "tall, under " + std::to_string(r.low_min_cols) + " columns";
      else
        where = std::to_string(m.rows) + " rows in one round of the grid's " + std::to_string(round8);
      p.why.push_back("low density, " + where + ": x in shared memory, " + std::to_string(s.warps_per_block) +
                      "-warp blocks, " + std::to_string(s.lane_elems) + " elements per lane");
    } else if (m.cols <= r.x_shared_max_cols && (m.cols >= m.rows || s.lane_elems == kElemsPerLane)) {
      s.x_shared = true;
      s.warps_per_block = blocks_for_x();
      p.why.push_back(std::string("x of <= ") + std::to_string(r.x_shared_max_cols) + " columns" +
                      (tall ? ", tall" : ", cols >= rows") + ": x in shared memory, " +
                      std::to_string(s.warps_per_block) + "-warp blocks");
      if (s.warps_per_block == 4 && !low && m.cols >= r.low_min_cols) {
        const int large = r.tall_large_block_warps;
        const int per4 = x_shared_blocks_per_sm(d, r, m.cols, 4), per_large = x_shared_blocks_per_sm(d, r, m.cols, large);
        const std::int64_t busiest4 = busiest_sm_units(m.rows, 4, per4, d.sms);
        const std::int64_t busiest_large = busiest_sm_units(m.rows, large, per_large, d.sms);
        if (busiest4 > 0 && busiest_large > 0 && busiest_large <= busiest4) {
          s.warps_per_block = large;
          p.why.push_back(std::to_string(large) + "-warp blocks: the busiest SM gets " + std::to_string(busiest_large) +
                          " rows (4-warp blocks: " + std::to_string(busiest4) + ") and x is copied " +
                          std::to_string(per_large) + " times per SM instead of " + std::to_string(per4));
        }
      }
      if (m.cols >= m.rows && s.lane_elems == kElemsPerLane && row_nnz >= 2 * r.split_min_warp_nnz) {
        const std::int64_t held = x_shared_resident_rows(d, r, m.cols, s.warps_per_block);
        if (held > 0 && m.rows > held) {
          const double rounds = static_cast<double>(m.rows) / static_cast<double>(held);
          const double tail = rounds - std::floor(rounds);
          if (tail > 0 && tail < r.split_tail) {
            s.row_splits = 2;
            p.why.push_back("the grid holds " + std::to_string(held) + " rows: the last of " + num(std::ceil(rounds)) +
                            " rounds is " + num(std::round(tail * 100)) + " % full, so rows are split over 2 warps");
          }
        }
      }
    } else if (s.lane_elems == kElemsPerLane && m.cols >= 3 * m.rows) {
      s.warps_per_block = 8;
      s.row_splits = 2;
      p.why.push_back("wide (cols >= 3 rows), x wider than " + std::to_string(r.x_shared_max_cols) +
                      " columns: x through L1, rows split over 2 warps of 8-warp blocks");
    } else {
      p.why.push_back("x through L1");
    }
  }
  // Rows whose gathers collide in shared-memory banks (N:M patterns) get x swizzled, in shared memory
  // even where the shape rule left x in L1; one warp per row (no two-rows kernel is built swizzled).
  if (m.cols > r.x_shared_max_cols) return p;
  Schedule xs = s;
  if (!xs.x_shared) {
    xs.x_shared = true;
    xs.warps_per_block = blocks_for_x();
    xs.row_splits = 1;
  }
  xs.x_swizzle = true;
  xs.row_lanes = kWarpLanes;
  if (swizzle_pays(m, r, xs) && is_compiled(xs, m.delta_bits)) {
    s = xs;
    const double saving = xs.lane_elems == kElemsPerLane ? m.swizzle_saving8 : m.swizzle_saving4;
    p.why.push_back("sampled gathers collide in shared-memory banks: the swizzle saves " + num(std::round(saving * 100)) +
                    " % of the wavefronts, so x is in shared memory, swizzled, one warp per row");
  }
  return p;
}

}  // namespace policy_detail

// The schedule for a matrix with these statistics on this GPU, multiplying `batch` vectors at once,
// and why. Every batch-1 schedule it returns is compiled (is_compiled): a rule's pick without a
// kernel for the matrix's delta width (8-bit deltas have x-in-shared-memory kernels at 8 elements per
// lane only) falls back to the default loads. Batch kernels take 4-bit deltas only.
inline Plan plan_schedule(const MatrixStats& m, const DeviceFacts& d, int batch = 1) {
  require(valid_batch(batch), "a MACKO schedule multiplies 1, 2, 4 or 8 vectors, not " +
                                  std::to_string(batch) +
                                  " (bitmap::choose_batch_kernel says how other batches run)");
  Plan p = policy_detail::plan_rules(m, d, batch);
  if (batch == 1 && !is_compiled(p.schedule, m.delta_bits)) {  // batches: 4-bit kernels only (plan_batch)
    p.why.push_back(std::to_string(m.delta_bits) + "-bit deltas: no kernel for " + to_string(p.schedule) +
                    ", so the default loads, x through L1");
    p.schedule = Schedule{.batch = batch};
  }
  return p;
}

inline Schedule choose_schedule(const MatrixStats& m, const DeviceFacts& d, int batch = 1) {
  return plan_schedule(m, d, batch).schedule;
}

// The delta width to encode a matrix with (4 or 8), for one vector on this GPU, and why. A wider
// delta needs no padding elements in gaps of 16-255 zeros, so at low density a row stores fewer
// elements (d = 0.1: 18 % fewer), but each element carries 8 delta bits instead of 4 and its column
// costs more instructions. A warp walks a row in whole steps of its schedule, and two rows per warp
// walk in whole load groups, so what decides is the element slots walked: per row, its stored length
// from its ROMA start rounded up to whole units of the width's own schedule (plan_schedule): steps,
// or load groups where both widths run two rows per warp; summed over the rows, the 8-bit slots
// weighted by Rules::delta8_slot_cost (load groups: delta8_group_cost_two_rows). 8 only where its
// schedule keeps x in shared memory (the kernels measured). A choice for one vector: MACKO's batch
// kernels are built for 4-bit deltas only.
struct DeltaChoice {
  int delta_bits = 4;
  double slots4 = 0, slots8 = 0;  // element slots walked (8-bit: before the weight)
  std::string why;
};
// The matrix may come as consecutive blocks of rows (all of `cols` columns), as the benchmark holds it.
template <class T>
DeltaChoice choose_delta_bits(std::span<const SparseRows<T>> blocks, std::int64_t cols, bool align_rows,
                              const DeviceFacts& d) {
  const Rules& r = rules_for(d);
  DeltaChoice c;
  // Per row, its stored length at 4 and at 8 bits (macko_row_length: what encode_macko makes).
  std::int64_t nnz = 0;
  std::vector<std::int64_t> len4, len8;
  MackoParams p4{4}, p8{8};
  p4.align_rows = p8.align_rows = align_rows;
  for (const SparseRows<T>& a : blocks) {
    for (const T& v : a.val) nnz += is_zero(v) ? 0 : 1;
    for (std::int64_t row = 0; row < a.rows; ++row) {
      len4.push_back(macko_row_length(a, row, p4));
      len8.push_back(macko_row_length(a, row, p8));
    }
  }
  const auto rows = static_cast<std::int64_t>(len4.size());
  const auto schedule = [&](int db, const std::vector<std::int64_t>& len) {
    std::int64_t emitted = 0;
    for (const std::int64_t n : len) emitted += n;
    MatrixStats m;
    m.rows = rows;
    m.cols = cols;
    const double cells = static_cast<double>(rows) * static_cast<double>(cols);
    m.density = cells > 0 ? static_cast<double>(nnz) / cells : 0.0;
    m.delta_bits = db;
    m.row_elements = rows > 0 ? static_cast<double>(emitted) / static_cast<double>(rows) : 0.0;
    return plan_schedule(m, d).schedule;
  };
  const Schedule s4 = schedule(4, len4), s8 = schedule(8, len8);
  // Both widths at two rows per warp: slots in whole load groups (Schedule::elems_per_group), the
  // unit a pair walks; else in whole steps. Where only the 8-bit schedule shares its warps (rows too long
  // for 4-bit two-rows), its steps are weighed against one-row 4-bit steps.
  const bool both_two_rows = s4.row_lanes < kWarpLanes && s8.row_lanes < kWarpLanes;
  const auto slots = [&](int db, const std::vector<std::int64_t>& len, const Schedule& sched) {
    const std::int64_t step = std::int64_t{sched.row_lanes} * sched.lane_elems, unit = align_unit(db);
    const std::int64_t walk = both_two_rows ? sched.elems_per_group(db) : step;
    double total = 0;
    std::int64_t start = 0;
    for (const std::int64_t n : len) {
      const std::int64_t from = start % unit;  // ROMA: the warp starts at the row start rounded down
      total += static_cast<double>((from + n + walk - 1) / walk * walk);
      start += n;
    }
    return total;
  };
  c.slots4 = slots(4, len4, s4);
  c.slots8 = slots(8, len8, s8);
  const double weight = both_two_rows ? r.delta8_group_cost_two_rows : r.delta8_slot_cost;
  const std::string walked_in = both_two_rows ? "load groups" : "steps";
  const std::string counted = both_two_rows ? " (whole load groups, two rows per warp)" : "";
  const double cost8 = c.slots8 * weight;
  const auto pct = [](double v) { return std::to_string(static_cast<long long>(std::llround(v * 100))) + " %"; };
  if (!s8.x_shared) {
    c.why = "4-bit deltas: 8-bit deltas would read x through L1 here (" + to_string(s8) + ")";
  } else if (cost8 < c.slots4) {
    c.delta_bits = 8;
    c.why = "8-bit deltas: " + policy_detail::num(std::round(c.slots8)) + " element slots walked" + counted +
            " x " + policy_detail::num(weight) + " against " + policy_detail::num(std::round(c.slots4)) +
            " at 4-bit (" + pct(cost8 / c.slots4) + "): fewer padding elements and " + walked_in;
  } else {
    c.why = "4-bit deltas: " + policy_detail::num(std::round(c.slots4)) + " element slots walked" + counted +
            " against " + policy_detail::num(std::round(c.slots8)) + " x " + policy_detail::num(weight) +
            " at 8-bit";
  }
  return c;
}
template <class T>
DeltaChoice choose_delta_bits(const SparseRows<T>& a, bool align_rows, const DeviceFacts& d) {
  return choose_delta_bits(std::span<const SparseRows<T>>(&a, 1), a.cols, align_rows, d);
}

// MackoParams::delta_bits = kAutoDeltaBits asks for choose_delta_bits' width; resolve_delta_bits
// puts it in (other widths pass through). Encoders that take "auto" (the CLI, Python, the
// benchmark) resolve it here, before encode_macko.
inline constexpr int kAutoDeltaBits = 0;
template <class T>
MackoParams resolve_delta_bits(std::span<const SparseRows<T>> blocks, std::int64_t cols, MackoParams p,
                               const DeviceFacts& d) {
  if (p.delta_bits == kAutoDeltaBits) p.delta_bits = choose_delta_bits(blocks, cols, p.align_rows, d).delta_bits;
  return p;
}
template <class T>
MackoParams resolve_delta_bits(const SparseRows<T>& a, MackoParams p, const DeviceFacts& d) {
  return resolve_delta_bits(std::span<const SparseRows<T>>(&a, 1), a.cols, p, d);
}

}  // namespace warpsparse::macko
