// The MACKO schedule policy (reference/macko/macko_policy.hpp), on the host: it returns only compiled,
// valid schedules; every compiled variant is one it returns for some matrix; each rule of
// docs/macko-schedule.md does what it says on the H100's facts; and the schedules it picks for the
// benchmark's big shapes are the ones the H100 measurements were taken with.
#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/patterns.hpp"
#include "proptests/prop_support.hpp"
#include "reference/macko/macko_policy.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

macko::MatrixStats shape(std::int64_t rows, std::int64_t cols, double density, int delta_bits = 4) {
  macko::MatrixStats m;
  m.rows = rows;
  m.cols = cols;
  m.density = density;
  m.delta_bits = delta_bits;
  return m;
}
macko::Schedule pick(std::int64_t rows, std::int64_t cols, double density, int batch = 1, int delta_bits = 4) {
  return macko::choose_schedule(shape(rows, cols, density, delta_bits), kH100, batch);
}

// rows x cols with a nonzero every `every` columns, from column every - 1 on: each gap is every - 1
// zeros, so the padding each delta width needs is known by hand.
SparseRows<float> strided(std::int64_t rows, std::int64_t cols, std::int32_t every) {
  SparseRows<float> a;
  a.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = every - 1; c < cols; c += every) a.push(static_cast<std::int32_t>(c), 1.0f + float(r % 7));
    a.end_row();
  }
  return a;
}

}  // namespace

TEST_CASE("the policy returns compiled, valid schedules, and every compiled variant but the sweeps' is one it returns") {
  std::set<int> used;
  const std::vector<std::int64_t> dims = {1, 7, 100, 700, 1000, 3000, 4096, 5000, 5120, 7168, 8192, 9216, 9504,
                                          12288, 20000, 21504, 28672, 36864, 49152, 50000, 70000};
  for (const int db : {1, 2, 4, 8})
    for (const int batch : {1, 2, 4, 8})
      for (const std::int64_t r : dims)
        for (const std::int64_t c : dims)
          for (const double d : {1.0, 0.8, 0.5, 0.3, 0.2, 0.15, 0.1, 0.05, 0.01, 0.0})
            for (const double saving : {0.0, 0.5}) {
              if (batch > 1 && db != 4) continue;  // batches are built for 4-bit deltas
              macko::MatrixStats m = shape(r, c, d, db);
              m.swizzle_saving8 = m.swizzle_saving4 = saving;
              const macko::Plan p = macko::plan_schedule(m, kH100, batch);
              INFO(r << " x " << c << " d = " << d << " db " << db << " batch " << batch << ": "
                     << macko::to_string(p.schedule));
              REQUIRE(p.schedule.valid(db));
              const int v = macko::compiled_variant(p.schedule, db);
              REQUIRE(v >= 0);
              REQUIRE(!p.why.empty());
              used.insert(v);
            }
  // Compiled only what a rule picks, or what a documented sweep measures (kSweepOnly).
  for (int v = 0; v < macko::kCompiledVariantCount; ++v) {
    INFO("compiled variant " << v << ": " << macko::to_string(macko::kCompiledVariants[v].schedule));
    CHECK(used.count(v) == (macko::kCompiledVariants[v].sweep_only ? 0u : 1u));
  }
}

TEST_CASE("schedule names: to_string and parse_schedule are inverses; bad names are refused by field") {
  for (const macko::CompiledVariant& v : macko::kCompiledVariants) {
    macko::Schedule s = v.schedule;
    s.warps_per_block = 12 * s.row_splits;
    s.blocks_per_sm = 3;
    CHECK(macko::parse_schedule(macko::to_string(s)) == s);
  }
  CHECK(macko::to_string({}) == "wpb=4/unroll=2/acc=1/prefetch=1/bpsm=0/elems=8/splits=1");
  CHECK(macko::to_string({.row_lanes = 16, .x_shared = true}) ==
        "wpb=4/unroll=2/acc=1/prefetch=1/bpsm=0/elems=8/splits=1/xs=1/lanes=16");
  CHECK(macko::parse_schedule("xs=1/wpb=16").x_shared);
  CHECK(macko::parse_schedule("").warps_per_block == 4);
  CHECK_THROWS_WITH(macko::parse_schedule("wpb=4/lanes"), Catch::Contains("'lanes' is not KEY=INTEGER"));
  CHECK_THROWS_WITH(macko::parse_schedule("wpb=4x"), Catch::Contains("'wpb=4x'"));
  CHECK_THROWS_WITH(macko::parse_schedule("warps=4"), Catch::Contains("'warps' is unknown"));
}

TEST_CASE("is_compiled: the launch fields do not matter, the delta width does") {
  macko::Schedule s{.x_shared = true};
  for (const int wpb : {1, 4, 12, 16, 32}) {
    s.warps_per_block = wpb;
    CHECK(macko::is_compiled(s, 4));
  }
  CHECK(macko::is_compiled({}, 1));
  CHECK(macko::is_compiled({}, 8));
  CHECK_FALSE(macko::is_compiled(s, 2));                               // x in shared memory: 4-bit only
  CHECK_FALSE(macko::is_compiled({.lane_accumulators = 8}, 4));        // valid, not built
  CHECK_FALSE(macko::is_compiled({.lane_elems = 4}, 8));               // not valid for 8-bit deltas
  CHECK(macko::is_compiled({.x_shared = true, .x_swizzle = true, .batch = 4}, 4));  // batches always swizzle
}

TEST_CASE("occupancy: the H100's x_shared blocks per SM") {
  // 49 registers: 1792 per warp, 9 warps per sub-partition, 36 per SM.
  const macko::Rules& r = macko::rules_for(kH100);
  CHECK(macko::x_shared_blocks_per_sm(kH100, r, 7168, 4) == 9);
  CHECK(macko::x_shared_blocks_per_sm(kH100, r, 7168, 12) == 3);
  CHECK(macko::x_shared_blocks_per_sm(kH100, r, 12288, 16) == 2);
  // Shared memory limits it once x is wide: 49152 columns are 96 KiB, two blocks per SM.
  CHECK(macko::x_shared_blocks_per_sm(kH100, r, 49152, 4) == 2);
  CHECK(macko::x_shared_blocks_per_sm(kH100, r, 200000, 4) == 0);  // x does not fit a block
  CHECK(resident_blocks(kH100, 512, 64, 0) == 2);   // 32 warps of 64 registers per SM
  CHECK(resident_blocks(kH100, 1024, 64, 0) == 1);
  CHECK(resident_blocks(kH100, 1024, 65, 0) == 0);  // more registers than a block may hold
  CHECK(resident_blocks(kH100, 32, 0, 0) == 32);    // the block limit
  CHECK(resident_blocks(kH100, 2048, 16, 0) == 0);  // more threads than a block may have
}

TEST_CASE("busiest_sm_units is the most units any SM gets") {
  // Against dealing every unit: unit u to warp u % stride, warp w in block w / wpb, block b on SM
  // b % sms (blocks dealt to the SMs in turn).
  ws_prop("busiest_sm_units = max over SMs of the units dealt to them", 500, [] {
    const std::int64_t sms = *rc::gen::inRange<std::int64_t>(1, 20);
    const int wpb = *rc::gen::element(1, 2, 4, 12, 16);
    const std::int64_t per_sm = *rc::gen::inRange<std::int64_t>(1, 10);
    const std::int64_t units = *rc::gen::inRange<std::int64_t>(1, 3000);
    const std::int64_t launched = macko::balanced_blocks((units + wpb - 1) / wpb, per_sm * sms);
    const std::int64_t stride = launched * wpb;
    std::vector<std::int64_t> per(static_cast<std::size_t>(sms), 0);
    for (std::int64_t u = 0; u < units; ++u) ++per[static_cast<std::size_t>((u % stride) / wpb % sms)];
    RC_ASSERT(macko::busiest_sm_units(units, wpb, per_sm, sms) == *std::max_element(per.begin(), per.end()));
  });
  // The H100's two d = 0.3 block sizes on 7168-8192 columns (132 SMs; 9 blocks of 4 warps or 3 of 12
  // per SM): 21504 rows tie (x copied 3 times per SM instead of 9), 28672 rows load an SM of 12-warp
  // blocks with 28 more.
  CHECK(macko::busiest_sm_units(21504, 4, 9, 132) == 180);
  CHECK(macko::busiest_sm_units(21504, 12, 3, 132) == 180);
  CHECK(macko::busiest_sm_units(28672, 4, 9, 132) == 224);
  CHECK(macko::busiest_sm_units(28672, 12, 3, 132) == 252);
  CHECK(macko::busiest_sm_units(0, 4, 9, 132) == 0);
  CHECK(macko::busiest_sm_units(100, 4, 0, 132) == 0);
}

TEST_CASE("the rules, one by one (H100)") {
  // Unknown shape, or 1- or 2-bit deltas: the default loads through L1.
  CHECK(pick(0, 0, 0.5) == macko::Schedule{});
  CHECK(pick(5000, 5000, 0.5, 1, 2) == macko::Schedule{});
  // x in shared memory where cols >= rows (16-warp blocks) and on tall matrices of <= 9216 columns
  // (4-warp blocks); rows of wide matrices past x_shared's reach split over 2 warps through L1.
  CHECK(pick(1000, 5000, 0.5) == macko::Schedule{.x_shared = true, .warps_per_block = 16});
  CHECK(pick(5001, 4500, 0.5) == macko::Schedule{.x_shared = true});
  CHECK(pick(2200, 49157, 0.5) == macko::Schedule{.row_splits = 2, .warps_per_block = 8});
  CHECK_FALSE(pick(60000, 50000, 0.5).x_shared);
  CHECK(pick(5001, 5000, 0.3).x_shared);  // 1500 nonzeros per row
  CHECK(pick(30000, 8192, 0.2).x_shared);
  CHECK(pick(50000, 5120, 0.2).x_shared);
  CHECK(pick(50000, 12288, 0.5) == macko::Schedule{.x_shared = true, .warps_per_block = 16});
  // Tall, 7168-9216 columns, above low density: 12-warp blocks where the busiest SM gets no more rows.
  CHECK(pick(21504, 7168, 0.3).warps_per_block == 12);
  CHECK(pick(28672, 7168, 0.3).warps_per_block == 4);  // 252 rows on the busiest SM against 224
  CHECK(pick(9504, 7168, 0.2).warps_per_block == 12);
  CHECK(pick(21504, 7168, 0.1).warps_per_block == 4);  // low density
  CHECK(pick(21504, 5120, 0.5).warps_per_block == 4);  // narrower than 7168 columns
  // Short rows on tall matrices: two rows per warp, x in shared memory, 4-warp blocks.
  for (const auto& [r, c, d, lanes] :
       {std::tuple{50000, 5120, 0.1, 16}, std::tuple{30000, 9216, 0.08, 16}, std::tuple{30000, 3584, 0.2, 16},
        std::tuple{3001, 700, 0.3, 16}, std::tuple{30000, 9216, 0.1, 32}, std::tuple{4096, 5120, 0.1, 32},
        std::tuple{4096, 28672, 0.02, 32}, std::tuple{30000, 12288, 0.05, 32}}) {
    const macko::Schedule s = pick(r, c, d);
    INFO(r << " x " << c << " at d = " << d);
    CHECK(s.row_lanes == lanes);
    if (lanes == 16) CHECK(s == macko::Schedule{.row_lanes = 16, .x_shared = true});
  }
  // Longer rows at 4 bits, tall, <= 8704 columns: two rows per warp where pairs walk 1/6 fewer load
  // groups, rows of 1025-1280 stored elements (3 groups of 512 alone, 5 halves of 256 in pairs).
  auto stored = [](std::int64_t rows, std::int64_t cols, double d, double row_elements) {
    macko::MatrixStats m = shape(rows, cols, d);
    m.row_elements = row_elements;
    return macko::plan_schedule(m, kH100);
  };
  CHECK(macko::two_rows_group_saving(1025, 4) == Approx(1.0 / 6));
  CHECK(macko::two_rows_group_saving(1280, 4) == Approx(1.0 / 6));
  CHECK(macko::two_rows_group_saving(1024, 4) == 0.0);
  CHECK(macko::two_rows_group_saving(1281, 4) == 0.0);
  CHECK(macko::two_rows_group_saving(1600, 4) == Approx(1.0 / 8));
  const macko::Plan window = stored(24576, 7168, 0.14, 1102);
  CHECK(window.schedule == macko::Schedule{.row_lanes = 16, .x_shared = true});
  CHECK(window.why.front().find("1102 stored elements, 17 % fewer load groups") != std::string::npos);
  CHECK(stored(24576, 8704, 0.13, 1280).schedule.row_lanes == 16);
  CHECK(stored(24576, 3584, 0.3, 1078).schedule.row_lanes == 16);
  CHECK(pick(24576, 7168, 0.15).row_lanes == 16);  // shape alone: 1075 nonzeros for the stored count
  for (const auto& [c, d, e] : {std::tuple{7168, 0.12, 988.0},     // 2 groups either way
                                std::tuple{8192, 0.15, 1327.0},    // 3 either way
                                std::tuple{8192, 0.2, 1685.0},     // 1/8 only
                                std::tuple{9216, 0.1, 1131.0}}) {  // 1/6, but 9216 columns
    INFO(c << " columns, " << e << " stored elements");
    CHECK(stored(24576, c, d, e).schedule.row_lanes == 32);
  }
  CHECK(stored(24576, 7168, 0.14, 1102).schedule == pick(24576, 7168, 0.14, 1, 8));  // the 8-bit rule too
  // Low density on 7168-49152 columns: x in shared memory, 8 elements per lane on every shape.
  for (const auto& [r, c, e, w] : {std::array<std::int64_t, 4>{50000, 9216, 8, 4},
                                   {50000, 12288, 8, 16},
                                   {8192, 28672, 8, 16},
                                   {12288, 12288, 8, 16},
                                   {9216, 11264, 8, 16}}) {
    const macko::Schedule s = pick(r, c, 0.1);
    INFO(r << " x " << c);
    CHECK(s.x_shared);
    CHECK(s.lane_elems == e);
    CHECK(s.warps_per_block == w);
  }
  // Under 7168 columns, rows > cols, rows past two-rows: x in shared memory, 8 elements, 4-warp blocks.
  const macko::Plan tall_low = macko::plan_schedule(shape(40000, 6000, 0.15), kH100);  // 900 nonzeros per row
  CHECK(tall_low.schedule == macko::Schedule{.x_shared = true});
  CHECK(tall_low.why.back().find("low density, tall, under 7168 columns") != std::string::npos);
  // Under 7168 columns, cols >= rows: x in shared memory, 8 elements per lane where the rows take one
  // round of the grid (2 x 132 16-warp blocks; at 4 elements 3 x 132); rows that take more alone and
  // one round in pairs run two rows per warp (below).
  const std::int64_t round6144 = macko::x_shared_resident_rows(kH100, macko::kH100Rules, 6144, 16);
  REQUIRE(round6144 == 2 * 132 * 16);
  REQUIRE(macko::x_shared_resident_rows(kH100, macko::kH100Rules, 6144, 16, 4) == 3 * 132 * 16);
  for (const auto& [r, c] :
       {std::pair<std::int64_t, std::int64_t>{1024, 4096}, {2048, 6144}, {round6144, 6144}})
    CHECK(pick(r, c, 0.1) == macko::Schedule{.x_shared = true, .warps_per_block = 16});
  const macko::Plan one_round = macko::plan_schedule(shape(round6144, 6144, 0.1), kH100);
  CHECK(one_round.why.back().find("4224 rows in one round of the grid's 4224") != std::string::npos);
  // cols >= rows, rows that take half the rounds of the grid in pairs that they take alone (one
  // against two: 4225-8448 rows at 16-warp blocks; two against four: 12673-16896; three against six),
  // of <= 2048 nonzeros: two rows per warp, x in shared memory, 16-warp blocks, at any density and
  // either delta width.
  const macko::Schedule pairs{.row_lanes = 16, .x_shared = true, .warps_per_block = 16};
  for (const auto& [r, c, d] : {std::tuple<std::int64_t, std::int64_t, double>{round6144 + 1, 6144, 0.1},
                                {5120, 5120, 0.1},
                                {7040, 7104, 0.05},
                                {2 * round6144, 8448, 0.2},
                                {8192, 22016, 0.05},
                                {5120, 5120, 0.4},
                                {3 * round6144 + 1, 12800, 0.1},
                                {14336, 14336, 0.05},
                                {4 * round6144, 16896, 0.12},
                                {24576, 24576, 0.05}}) {
    INFO(r << " x " << c << " at d = " << d);
    CHECK(pick(r, c, d) == pairs);
    CHECK(pick(r, c, d, 1, 8) == pairs);
  }
  const macko::Plan in_pairs = macko::plan_schedule(shape(5120, 5120, 0.1), kH100);
  CHECK(in_pairs.why.back().find("rows of 512 <= 2048 nonzeros: 5120 rows take 1 round of the grid's 4224 in "
                                 "pairs, 2 alone") != std::string::npos);
  CHECK(macko::plan_schedule(shape(14336, 14336, 0.05), kH100)
            .why.back()
            .find("14336 rows take 2 rounds of the grid's 4224 in pairs, 4 alone") != std::string::npos);
  CHECK(pick(2 * round6144 + 1, 8450, 0.1).row_lanes == 32);  // two rounds in pairs
  CHECK(pick(round6144, 8192, 0.1).row_lanes == 32);          // one round alone
  CHECK(pick(5120, 5120, 0.41).row_lanes == 32);              // 2099 nonzeros per row
  CHECK(pick(8192, 22016, 0.1).row_lanes == 32);              // 2202
  CHECK(pick(12288, 12288, 0.05).row_lanes == 32);            // three rounds alone, two in pairs
  CHECK(pick(3 * round6144, 12672, 0.05).row_lanes == 32);    // the same at exactly three rounds
  CHECK(pick(4 * round6144 + 1, 16897, 0.05).row_lanes == 32);  // five alone, three in pairs
  CHECK(pick(14336, 14336, 0.15).row_lanes == 32);              // 2150 nonzeros per row
  CHECK(pick(8000, 7999, 0.05).row_lanes == 16);              // tall: the tall two-rows rule
  CHECK(pick(1024, 4096, 0.2) ==
        macko::Schedule{.x_shared = true, .warps_per_block = 16});  // above low density
  // cols >= rows: rows split over two warps when the grid's last round of rows is less than half full
  // and half rows keep 2048 nonzeros (the grid holds 2 x 132 16-warp blocks of 20000 columns).
  const std::int64_t held = macko::x_shared_resident_rows(kH100, macko::kH100Rules, 20000, 16);
  REQUIRE(held == 2 * 132 * 16);
  const std::int64_t short_tail = held + held / 5, long_tail = held + held * 4 / 5;
  CHECK(pick(short_tail, 20000, 0.5) == macko::Schedule{.row_splits = 2, .x_shared = true, .warps_per_block = 16});
  CHECK(pick(long_tail, 20000, 0.5).row_splits == 1);
  CHECK(pick(held / 2, 20000, 0.5).row_splits == 1);   // one partial round
  CHECK(pick(short_tail, 20000, 0.15).row_splits == 1);  // low density: whole rows
  CHECK(pick(short_tail, 20000, 0.2).row_splits == 1);   // 2000 nonzeros per half row
}

TEST_CASE("8-bit deltas: the shape rules at 8 elements per lane where their kernel is built, else the default loads") {
  // Low density: x in shared memory as at 4-bit deltas, but 8 elements per lane (4 is not built).
  CHECK(pick(12288, 12288, 0.1, 1, 8) == macko::Schedule{.x_shared = true, .warps_per_block = 16});
  CHECK(pick(21504, 7168, 0.1, 1, 8) == macko::Schedule{.row_lanes = 16, .x_shared = true});
  // Two rows per warp on tall matrices up to 1152 nonzeros per row at 8 bits (768 at 4 bits).
  CHECK(pick(27648, 9216, 0.1, 1, 8) == macko::Schedule{.row_lanes = 16, .x_shared = true});
  CHECK(pick(27648, 9216, 0.1, 1, 4) == macko::Schedule{.x_shared = true});
  CHECK(pick(27648, 9216, 0.13, 1, 8) == macko::Schedule{.x_shared = true});  // 1198 nonzeros per row
  // No 8-bit kernel for grid splits, row splits or x through L1 at 4 elements: the default loads, said.
  CHECK(pick(1, 65536, 0.5, 1, 8) == macko::Schedule{});
  const macko::Plan split = macko::plan_schedule(shape(9216, 36864, 0.5, 8), kH100);
  CHECK(split.schedule == macko::Schedule{});
  CHECK(split.why.back().find("8-bit deltas: no kernel for") != std::string::npos);
  CHECK(pick(100, 60000, 0.1, 1, 8) == macko::Schedule{});
}

TEST_CASE("choose_delta_bits: 8 bits where they save more element slots than they cost, with x in shared memory") {
  // 100 x 5120 at d = 0.05: x in shared memory, 16-warp blocks, rows in 256-element steps at both
  // widths. A gap of 19 zeros costs a padding element at 4 bits: 256 nonzeros make 512 elements (2
  // steps, 512 slots) against 256 (1 step, 256 slots) at 8 bits.
  const macko::DeltaChoice wide = macko::choose_delta_bits(strided(100, 5120, 20), true, kH100);
  CHECK(wide.delta_bits == 8);
  CHECK(wide.slots4 == 100.0 * 512);
  CHECK(wide.slots8 == 100.0 * 256);
  CHECK(wide.why.find("8-bit deltas") == 0);
  // Gaps of 9 need no padding at 4 bits: the same 512 slots each way, and 8-bit slots cost more.
  const macko::DeltaChoice narrow = macko::choose_delta_bits(strided(100, 5120, 10), true, kH100);
  CHECK(narrow.delta_bits == 4);
  CHECK(narrow.slots4 == narrow.slots8);
  // Dense-ish rows: no padding either way.
  CHECK(macko::choose_delta_bits(strided(100, 5120, 2), true, kH100).delta_bits == 4);
  // x too wide for shared memory: the 8-bit rows would read x through L1, not measured to win.
  const macko::DeltaChoice l1 = macko::choose_delta_bits(strided(10, 60000, 20), true, kH100);
  CHECK(l1.delta_bits == 4);
  CHECK(l1.why.find("through L1") != std::string::npos);
  // resolve_delta_bits: "auto" takes the choice, a given width passes through.
  MackoParams auto_p{macko::kAutoDeltaBits};
  auto_p.align_rows = true;
  CHECK(macko::resolve_delta_bits(strided(100, 5120, 20), auto_p, kH100).delta_bits == 8);
  CHECK(macko::resolve_delta_bits(strided(100, 5120, 20), MackoParams{2}, kH100).delta_bits == 2);
  // Blocks of rows choose as the whole matrix does.
  const SparseRows<float> blocks[] = {strided(60, 5120, 20), strided(40, 5120, 20)};
  const macko::DeltaChoice joined = macko::choose_delta_bits(std::span<const SparseRows<float>>(blocks), 5120, true, kH100);
  CHECK(joined.slots4 == wide.slots4);
  CHECK(joined.slots8 == wide.slots8);
  // The weight: 1.28 on whole load groups where both widths walk two rows per warp (tall, rows of 683
  // nonzeros), 1.22 on steps where the 8-bit rows alone do (911 nonzeros: two rows at 8 bits only).
  const std::string both = macko::choose_delta_bits(strided(10000, 8192, 12), true, kH100).why;
  CHECK(both.find("walked (whole load groups, two rows per warp) against") != std::string::npos);
  CHECK(both.find(" x 1.28 ") != std::string::npos);
  const std::string eight_only = macko::choose_delta_bits(strided(10000, 8192, 9), true, kH100).why;
  CHECK(eight_only.find("walked against") != std::string::npos);
  CHECK(eight_only.find(" x 1.22 ") != std::string::npos);
  // Two rows per warp at both widths walk each row in 256-element load groups. Rows of 100 nonzeros
  // 17 columns apart (a padding element each at 4 bits), then `close` nonzeros 2 apart: 200 + close
  // elements at 4 bits, 100 + close at 8. close = 500: 700 against 600, 6 steps of 128 against 5 but
  // 3 groups each, so 4 bits; close = 100: 300 against 200, 2 groups against 1, so 8 bits.
  const auto mixed = [](std::int64_t close) {
    SparseRows<float> a;
    a.cols = 4096;
    for (std::int64_t r = 0; r < 10000; ++r) {
      std::int32_t c = 16;
      for (int k = 0; k < 100; ++k, c += 17) a.push(c, 1.0f + float(k % 5));
      for (std::int64_t k = 0; k < close; ++k, c += 2) a.push(c, 2.0f);
      a.end_row();
    }
    return a;
  };
  const macko::DeltaChoice step_only = macko::choose_delta_bits(mixed(500), true, kH100);
  CHECK(step_only.delta_bits == 4);
  CHECK(step_only.slots4 == step_only.slots8);
  const macko::DeltaChoice group_saved = macko::choose_delta_bits(mixed(100), true, kH100);
  CHECK(group_saved.delta_bits == 8);
  CHECK(group_saved.slots8 * 2 == group_saved.slots4);
  // Empty matrices and rows choose 4.
  CHECK(macko::choose_delta_bits(strided(0, 5120, 20), true, kH100).delta_bits == 4);
  CHECK(macko::choose_delta_bits(strided(10, 10, 20), false, kH100).delta_bits == 4);
}

TEST_CASE("grid splits: few rows of >= 8 split units over the grid's warps, 16 per SM, in >= 4 parts") {
  // As many parts as 16 warps per SM give (132 SMs), at most one per split unit and 1024 in all.
  CHECK(pick(1, 65536, 0.5) == macko::Schedule{.grid_splits = 128});
  CHECK(pick(1, 1048576, 0.5).grid_splits == 1024);
  CHECK(pick(33, 100000, 0.5).grid_splits == 64);
  CHECK(pick(300, 40000, 0.5).grid_splits == 7);
  CHECK(pick(8, 4096, 0.5).grid_splits == 8);
  // Whole rows: fewer than 8 units (the reduction costs more than it saves), fewer than 4 parts,
  // or rows enough for the GPU.
  CHECK(pick(8, 4096, 0.1).grid_splits == 1);
  CHECK(pick(1000, 8192, 0.5).grid_splits == 1);
  CHECK(pick(2200, 49157, 0.5).grid_splits == 1);
  // A matrix's padding counts: 491 nonzeros at d = 0.01 on 49157 columns take ~3000 4-bit elements.
  macko::MatrixStats padded = shape(20, 49157, 0.01);
  CHECK(macko::choose_schedule(padded, kH100).grid_splits == 1);
  padded.row_elements = 3000;
  CHECK(macko::choose_schedule(padded, kH100).grid_splits == 11);
  // Not 4-bit, batches: no grid-split kernel is built.
  CHECK(pick(1, 65536, 0.5, 1, 8).grid_splits == 1);
  CHECK(pick(1, 65536, 0.5, 2).grid_splits == 1);
}

TEST_CASE("batches: x in shared memory while it fits, else through L1 by the rows' density") {
  for (const int nb : {2, 4}) {
    CHECK(pick(28672, 8192, 0.1, nb) == macko::Schedule{.x_shared = true, .batch = nb, .warps_per_block = 16});
    CHECK_FALSE(pick(4096, 28672, 0.5, nb).x_shared);
    CHECK(pick(4096, 28672, 0.5, nb).row_splits == 2);
  }
  CHECK(pick(12288, 12288, 0.5, 8) == macko::Schedule{.batch = 8});
  CHECK(pick(12288, 12288, 1.0, 8).x_shared);
  CHECK(pick(8192, 28672, 1.0, 8) == macko::Schedule{.lane_elems = 4, .batch = 8});
  CHECK(pick(4096, 28672, 0.5, 8).row_splits == 1);
  CHECK(pick(100, 64, 0.5, 2, 2) == macko::Schedule{.batch = 2});  // not 4-bit: the default loads
  CHECK_FALSE(macko::is_compiled(pick(100, 64, 0.5, 2, 2), 2));   // ... which no batch kernel serves
}

TEST_CASE("x_swizzle: on where the sampled gathers collide in banks (N:M rows), in shared memory, one warp per row") {
  namespace an = analysis;
  for (const auto kind : {an::Pattern::nm_2_4, an::Pattern::nm_4_8, an::Pattern::exact_nnz}) {
    for (const auto& [rows, cols] :
         {std::pair<std::int64_t, std::int64_t>{3000, 4099}, {1000, 24000}, {20000, 1000}, {12000, 10000}}) {
      const auto m = an::generate<half>({kind, 0.5, 0}, rows, cols, 557);
      const macko::Schedule s = macko::choose_schedule(macko::matrix_stats(encode_macko(m)), kH100);
      const macko::Schedule by_shape = pick(rows, cols, 0.5);
      INFO(to_string(kind) << " " << rows << " x " << cols << ": " << macko::to_string(s));
      CHECK(macko::is_compiled(s, 4));
      if (kind == an::Pattern::exact_nnz) {
        CHECK(s == by_shape);
      } else {
        CHECK(s.x_shared);
        CHECK(s.x_swizzle);
        CHECK(s.row_lanes == 32);
        CHECK(s.warps_per_block == (rows > cols && cols <= 9216 ? 4 : 16));
      }
    }
  }
  // Batches always swizzle: the flag stays off.
  const auto nm = encode_macko(an::generate<half>({an::Pattern::nm_2_4, 0.5, 0}, 64, 4096, 7));
  CHECK_FALSE(macko::choose_schedule(macko::matrix_stats(nm), kH100, 2).x_swizzle);
  // x wider than x_shared allows: left in L1.
  macko::MatrixStats wide = shape(20, 60000, 0.5);
  wide.swizzle_saving8 = 0.5;
  CHECK_FALSE(macko::choose_schedule(wide, kH100).x_shared);
}

// The schedules the H100 measurements of docs/macko-kernel.md were taken with (the benchmark's rows
// record them), for the 15 big shapes of macko-paper.txt Appendix D: the policy must still pick them.
TEST_CASE("the big Appendix D shapes keep the measured schedules (H100)") {
  struct Want {
    std::int64_t rows, cols;
    int wpb05, wpb01;       // warps per block at d = 0.5 and 0.1
    int lanes01;            // lanes per row at d = 0.1
    int splits05;           // row splits at d = 0.5
  };
  const Want want[] = {{12288, 12288, 16, 16, 32, 1}, {28672, 8192, 4, 4, 32, 1},  {8192, 28672, 16, 16, 32, 1},
                       {36864, 12288, 16, 16, 32, 1}, {21504, 7168, 12, 4, 16, 1}, {32000, 5120, 4, 4, 16, 1},
                       {7168, 28672, 16, 16, 32, 1},  {9216, 36864, 16, 16, 32, 2}, {8192, 29568, 16, 16, 32, 1},
                       {32000, 8192, 12, 4, 32, 1},   {28672, 7168, 4, 4, 16, 1},  {27648, 9216, 12, 4, 32, 1},
                       {36864, 9216, 12, 4, 32, 1},   {49152, 12288, 16, 16, 32, 1}, {12288, 49152, 16, 16, 32, 1}};
  for (const Want& w : want) {
    INFO(w.rows << " x " << w.cols);
    const macko::Schedule s05 = pick(w.rows, w.cols, 0.5), s01 = pick(w.rows, w.cols, 0.1);
    CHECK(s05.x_shared);
    CHECK(s05.lane_elems == 8);
    CHECK(s05.warps_per_block == w.wpb05);
    CHECK(s05.row_splits == w.splits05);
    CHECK(s01.x_shared);
    CHECK(s01.warps_per_block == w.wpb01);
    CHECK(s01.row_lanes == w.lanes01);
    CHECK(s01.lane_elems == 8);
  }
}
