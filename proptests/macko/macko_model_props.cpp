// The MACKO warp model against the double oracle (decode to rows, multiply in double), within the
// fp32 forward-error bound of each row's accumulation chain (SpmvBound with macko_chain_length,
// computed per row by check_spmv): every schedule (lane accumulators 1/2/4/8,
// delta bits 1/2/4/8; with and without trailing padding and 64-bit row pointers), value types fp16/bf16/fp32/int8, outputs fp16/bf16/fp32, alpha/beta
// including beta = 0 with NaN in y_old (must not leak). NaN/Inf matrix values must propagate as
// in the oracle. The emulator must report no fault (misaligned or out-of-bounds load, inactive
// lane read) for any case. On failure the case is written to ${build}/failures/.
//
// x is finite here on purpose: MACKO multiplies its padding zeros by x[col], so an Inf or NaN in
// x under a padding element gives NaN where the sparse oracle does not (a dense GEMV would too).
#include <utility>
#include <algorithm>
#include <vector>

#include "proptests/generators.hpp"
#include "proptests/spmv_cases.hpp"
#include "reference/macko/macko_x_banks.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

// One row of `cols` ones: every column stored, no padding.
SparseRows<half> dense_row(int cols) {
  SparseRows<half> m;
  m.cols = cols;
  for (int c = 0; c < cols; ++c) m.push(c, half(1.0f));
  m.end_row();
  return m;
}

template <class T, class TY>
void macko_property() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  MackoParams p;  // no option may change a product: pads are zeros, 64-bit pointers same offsets
  p.delta_bits = *gen_delta_bits();
  const macko::Schedule s = *gen_schedule(p.delta_bits).as("schedule");
  const Epilogue ep = gen_epilogue();
  p.emit_trailing_padding = *rc::gen::arbitrary<bool>().as("emit_trailing_padding");
  p.force_wide_row_pointers = *rc::gen::arbitrary<bool>().as("force_wide_row_pointers");
  p.align_rows = *rc::gen::arbitrary<bool>().as("align_rows");
  RC_TAG(to_string(rec.family));
  const std::string failure = macko_case<T, TY>(build<T>(rec), s, ep.alpha, ep.beta, rec.seed, p);
  RC_ASSERT(failure == "");
}

template <class T, class TY>
void macko_batch_property(std::initializer_list<int> batches) {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  MackoParams p;
  p.delta_bits = *gen_delta_bits();
  macko::Schedule s = *gen_schedule(p.delta_bits).as("schedule");
  s.batch = *rc::gen::elementOf(std::vector<int>(batches)).as("batch");
  s.row_lanes = macko::kWarpLanes;  // batches run a warp per row (Schedule::valid)
  const Epilogue ep = gen_epilogue();
  p.force_wide_row_pointers = *rc::gen::arbitrary<bool>().as("force_wide_row_pointers");
  RC_TAG(s.batch);
  const std::string failure = macko_batch_case<T, TY>(build<T>(rec), s, ep.alpha, ep.beta, rec.seed, p);
  RC_ASSERT(failure == "");
}

}  // namespace

TEST_CASE("MACKO warp model equals the oracle within the fp32 bound, without faults") {
  ws_prop("fp16 values, fp16 out", 1000, [] { macko_property<half, half>(); });
  ws_prop("fp16 values, fp32 out", 800, [] { macko_property<half, float>(); });
  ws_prop("bf16 values, bf16 out", 600, [] { macko_property<bfloat16, bfloat16>(); });
  ws_prop("fp32 values, fp32 out", 600, [] { macko_property<float, float>(); });
  ws_prop("int8 values, fp16 out", 500, [] { macko_property<std::int8_t, half>(); });
  ws_prop("int8 values, bf16 out", 300, [] { macko_property<std::int8_t, bfloat16>(); });
}

TEST_CASE("batched MACKO warp model: each vector has the bits of a batch-1 product, within the oracle bound") {
  ws_prop("fp16 values, fp16 out", 300, [] { macko_batch_property<half, half>({2, 4, 8}); });
  ws_prop("bf16 values, fp32 out", 200, [] { macko_batch_property<bfloat16, float>({2, 4, 8}); });
  ws_prop("fp32 values, fp32 out", 100, [] { macko_batch_property<float, float>({2, 4}); });
  ws_prop("int8 values, bf16 out", 100, [] { macko_batch_property<std::int8_t, bfloat16>({2, 4, 8}); });
}

TEST_CASE("MACKO model with 16 lanes per row: 128-element steps on lanes 0-15, the same sum") {
  const Macko<half> a = encode_macko(dense_row(256));
  std::vector<half> x(256);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = half(float(i % 5) * 0.5f);
  const std::vector<float> y_old;
  macko::Schedule s;
  SpmvTraffic t32, t16;
  const auto y32 = macko_spmv_model<half, half, float>(a, x, y_old, 1.0f, 0.0f, s, &t32);
  s.row_lanes = 16;
  REQUIRE(s.elems_per_step() == 128);
  const auto y16 = macko_spmv_model<half, half, float>(a, x, y_old, 1.0f, 0.0f, s, &t16);
  CHECK(y16[0] == y32[0]);                         // small integers: exact in any order
  CHECK(t32.values.instructions == 1);
  CHECK(t16.values.instructions == 2);             // two steps of 16 lanes x 8 elements
  CHECK(t16.values.bytes_requested == t32.values.bytes_requested);
  CHECK(t16.x.instructions == 2 * t32.x.instructions);
  CHECK(t16.x.bytes_requested == t32.x.bytes_requested);  // 16 lanes per gather instead of 32
  // Two rows per warp: one part, one vector.
  s.row_splits = 2;
  s.warps_per_block = 8;
  CHECK_FALSE(s.valid());
  s.row_splits = 1;
  s.batch = 2;
  CHECK_FALSE(s.valid());
  s.batch = 1;
  s.row_lanes = 8;
  CHECK_FALSE(s.valid());
}

TEST_CASE("batched MACKO model loads: one gather per element slot, each a batch-wide vector") {
  const Macko<half> a = encode_macko(dense_row(256));
  std::vector<half> x(256 * 8);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = half(float(i % 8) * 0.25f);  // vector b holds b/4
  const std::vector<float> y_old;
  SpmvTraffic t;
  macko::Schedule s;
  s.batch = 8;
  const auto y = macko_spmv_model<half, half, float>(a, x, y_old, 1.0f, 0.0f, s, &t);
  REQUIRE(y.size() == 8);
  for (int b = 0; b < 8; ++b) CHECK(y[b] == 256.0f * float(b) * 0.25f);
  CHECK(t.x.instructions == 8);                  // as with one vector
  CHECK(t.x.bytes_requested == 8 * 32 * 16);     // 16 bytes per lane and gather
  CHECK(t.values.instructions == 1);             // the matrix is read once
  // x of the wrong length (cols, not cols x batch) is refused by name.
  const std::vector<half> x1(256, half(1.0f));
  CHECK_THROWS_WITH((macko_spmv_model<half, half, float>(a, x1, y_old, 1.0f, 0.0f, s)),
                    Catch::Contains("cols x batch"));
  s.batch = 3;
  CHECK_FALSE(s.valid());
}

TEST_CASE("x in shared memory: the swizzle is a bijection inside each row, dense batched gathers are conflict-free, 2:4 gathers half as conflicted") {
  for (const int nb : {2, 4, 8}) {
    const std::int64_t p = macko::x_packs_per_row(nb);
    REQUIRE(p * nb * 2 == 128);
    // Exhaustive over 64 rows of packs: each row's slots are a permutation of the row.
    for (std::int64_t row = 0; row < 64; ++row) {
      std::vector<int> seen(static_cast<std::size_t>(p), 0);
      for (std::int64_t c = row * p; c < (row + 1) * p; ++c) {
        const std::int64_t slot = macko::x_pack_slot(c, nb);
        REQUIRE(slot / p == row);
        ++seen[static_cast<std::size_t>(slot % p)];
      }
      for (const int n : seen) REQUIRE(n == 1);
    }
    REQUIRE(macko::x_shared_elems(1, nb) == p * nb);
    REQUIRE(macko::x_shared_elems(p + 1, nb) == 2 * p * nb);
    // A dense row (d = 1, 8 elements per lane): gather k of lane l reads column 8l + k. The lanes that
    // share one shared-memory wavefront (128 bytes: 128 / (2 nb) lanes) must hit distinct 16-byte
    // bank groups, i.e. distinct slots modulo p... for 16-byte packs; for smaller packs distinct slots.
    const int lanes_per_wavefront = static_cast<int>(128 / (2 * nb));
    for (int k = 0; k < 8; ++k)
      for (int first = 0; first < 32; first += lanes_per_wavefront) {
        std::vector<int> banks(static_cast<std::size_t>(p), 0);
        for (int l = first; l < first + lanes_per_wavefront && l < 32; ++l)
          ++banks[static_cast<std::size_t>(macko::x_pack_slot<std::int64_t>(8 * l + k, nb) % p)];
        for (const int n : banks) CHECK(n <= 1);
      }
  }
  // One vector: 16-byte chunks permuted inside each 128-byte row (64 columns), each chunk whole.
  for (std::int64_t row = 0; row < 64; ++row) {
    std::vector<int> seen(64, 0);
    for (std::int64_t c = row * 64; c < (row + 1) * 64; ++c) {
      const std::int64_t slot = macko::x_pack_slot(c, 1);
      REQUIRE(slot / 64 == row);
      REQUIRE(slot % 8 == c % 8);
      ++seen[static_cast<std::size_t>(slot % 64)];
    }
    for (const int n : seen) REQUIRE(n == 1);
  }
  CHECK(macko::x_shared_elems(1001, 1) == 1024);
  // A 2:4 row at d = 0.5: lane l's k-th element is column 16l + 2k + (0 or 1). Count the lanes whose
  // 4-byte words share a bank: 8 unswizzled (lanes l, l + 4, ...), at most 4 swizzled.
  auto worst_bank = [](auto slot_of) {
    int worst = 0;
    for (int k = 0; k < 8; ++k)
      for (int odd = 0; odd < 2; ++odd) {
        std::vector<std::vector<std::int64_t>> words(32);
        for (int l = 0; l < 32; ++l) {
          const std::int64_t w = slot_of(std::int64_t{16 * l + 2 * k + odd}) / 2;
          auto& b = words[static_cast<std::size_t>(w % 32)];
          if (std::find(b.begin(), b.end(), w) == b.end()) b.push_back(w);  // one word is a broadcast
        }
        for (const auto& b : words) worst = std::max(worst, static_cast<int>(b.size()));
      }
    return worst;
  };
  CHECK(worst_bank([](std::int64_t c) { return c; }) == 8);
  CHECK(worst_bank([](std::int64_t c) { return macko::x_pack_slot(c, 1); }) <= 4);
}

TEST_CASE("x gathers: uniform rows save about nothing swizzled, N:M rows save half; empty rows have no gathers") {
  namespace an = analysis;
  auto wavefronts = [](an::Pattern kind, double d, std::uint64_t seed) {
    const auto m = an::generate<half>(an::PatternSpec{kind, d, 0.0}, 64, 4096, seed);
    return macko::x_gather_wavefronts(encode_macko(m, MackoParams{}));
  };
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    // 2:4 at d = 0.5: 8 lanes per bank unswizzled, 4 swizzled (the test above), so half the wavefronts.
    const auto nm = wavefronts(an::Pattern::nm_2_4, 0.5, seed);
    CHECK(nm.gathers > 0);
    CHECK(nm.saving() > 0.4);
    CHECK(wavefronts(an::Pattern::nm_4_8, 0.5, seed).saving() > 0.25);
    // Uniform rows: the swizzle moves collisions around and saves about nothing.
    for (const double d : {0.1, 0.3, 0.5, 0.9}) {
      const auto u = wavefronts(an::Pattern::exact_nnz, d, seed);
      CHECK(u.gathers > 0);
      CHECK(std::abs(u.saving()) < 0.1);
    }
  }
  // Empty rows (narrow enough to need no padding) have no gathers and save nothing.
  SparseRows<half> empty;
  empty.cols = 10;
  for (int r = 0; r < 8; ++r) empty.end_row();
  const auto none = macko::x_gather_wavefronts(encode_macko(empty, MackoParams{}));
  CHECK(none.gathers == 0);
  CHECK(none.saving() == 0.0);
}

TEST_CASE("the check can fail: a perturbed output is caught") {
  // Guards the guard: one flipped low bit in a long row exceeds nothing, but a wrong sign does.
  SparseRows<float> m;
  m.cols = 300;
  for (int c = 0; c < 300; c += 3) m.push(c, 0.5f + float(c) / 1000.0f);
  m.end_row();
  const std::vector<float> x(300, 1.0f), y_old;
  const Macko<float> a = encode_macko(m);
  macko::Schedule s;
  auto y = macko_spmv_model<float, float, float>(a, x, y_old, 1.0f, 0.0f, s);
  auto chain = [&](std::int64_t) { return macko_chain_length(a.emitted(), 4, s); };
  CHECK(check_spmv<float, float, float>(m, x, y_old, 1.0f, 0.0f, y, chain).ok());
  y[0] = std::nextafter(y[0], 1e30f);
  CHECK(check_spmv<float, float, float>(m, x, y_old, 1.0f, 0.0f, y, chain).ok());  // one ulp is within the bound
  y[0] = -y[0];
  CHECK_FALSE(check_spmv<float, float, float>(m, x, y_old, 1.0f, 0.0f, y, chain).ok());
  y[0] = std::nanf("");
  CHECK_FALSE(check_spmv<float, float, float>(m, x, y_old, 1.0f, 0.0f, y, chain).ok());
}

TEST_CASE("MACKO model loads: one dense 256-element fp16 row is one 512-byte value load and one 128-byte delta load") {
  const Macko<half> a = encode_macko(dense_row(256));
  REQUIRE(a.emitted() == 256);
  const std::vector<half> x(256, half(0.5f));
  const std::vector<float> y_old;
  SpmvTraffic t;
  macko::Schedule s;
  const auto y = macko_spmv_model<half, half, float>(a, x, y_old, 1.0f, 0.0f, s, &t);
  CHECK(y[0] == 128.0f);
  CHECK(t.values.instructions == 1);  // 8 fp16 per lane = one 16-byte vector
  CHECK(t.values.bytes_requested == 512);
  CHECK(t.values.sectors == 16);
  CHECK(t.values.lines == 4);
  CHECK(t.deltas.instructions == 1);  // 8 four-bit deltas per lane = one 32-bit word
  CHECK(t.deltas.sectors == 4);
  CHECK(t.row_ptr.bytes_requested == 8);
  CHECK(t.x.instructions == 8);  // one gather per element slot
}

TEST_CASE("MACKO row splits: the parts tile [aligned_begin, end) and start inside the row on the split unit") {
  // Exhaustive over row starts and lengths around the unit and every split count.
  constexpr std::int64_t kU = macko::kSplitUnit;
  int checked = 0;
  for (const int db : {1, 2, 4, 8})
    for (std::int64_t begin = 0; begin < 3 * kU; begin += 7)
      for (const std::int64_t len : {std::int64_t{0}, std::int64_t{1}, kU - 1, kU, kU + 1, 3 * kU + 5, 17 * kU + 3}) {
        const macko::RowAligner ra(begin, begin + len, db);
        for (const int s : {1, 2, 4, 8}) {
          std::int64_t prev = ra.split_start(0, s);
          REQUIRE(prev == ra.aligned_begin);
          REQUIRE(ra.split_start(s, s) == ra.end);
          for (int j = 1; j < s; ++j) {
            const std::int64_t p = ra.split_start(j, s);
            REQUIRE(p >= prev);  // parts are contiguous, possibly empty
            REQUIRE((p == ra.end || (p % kU == 0 && p > ra.begin && p < ra.end)));
            prev = p;
          }
          ++checked;
        }
      }
  CHECK(checked > 1000);
  // Long rows are shared evenly to within one unit.
  const macko::RowAligner ra(40, 40 + 6200, 4);
  for (int j = 1; j < 4; ++j)
    CHECK(std::llabs(ra.split_start(j, 4) - (ra.aligned_begin + (ra.end - ra.aligned_begin) * j / 4)) < kU);
}

TEST_CASE("MACKO persistent grids: balanced_blocks keeps the rounds, is the fewest such blocks, and evens the rows") {
  // Exhaustive over small grids; units (rows or row pairs) are dealt to the warps' slots round-robin
  // (slot = unit % stride), as in the kernel's loop.
  int checked = 0;
  for (std::int64_t cap = 1; cap <= 40; ++cap)
    for (std::int64_t blocks = 1; blocks <= 400; ++blocks) {
      const std::int64_t b = macko::balanced_blocks(blocks, cap);
      const auto rounds = [&](std::int64_t n) { return (blocks + n - 1) / n; };
      if (blocks <= cap) {
        REQUIRE(b == blocks);
        continue;
      }
      REQUIRE(b >= 1);
      REQUIRE(b <= cap);
      REQUIRE(rounds(b) == rounds(cap));                  // no more rounds than the most blocks
      REQUIRE((b == 1 || rounds(b - 1) > rounds(cap)));    // and no fewer blocks would do
      for (const std::int64_t groups : {1, 4, 16})
        for (const std::int64_t short_by : {std::int64_t{0}, groups - 1}) {
          const std::int64_t units = blocks * groups - short_by, stride = b * groups;
          const std::int64_t most = (units + stride - 1) / stride, least = units / stride;
          REQUIRE(most == rounds(cap));
          REQUIRE(most - least <= 1);
        }
      ++checked;
    }
  CHECK(checked > 10000);
  CHECK(macko::balanced_blocks(5376, 1188) == 1076);  // 21504 rows, 4-warp blocks, 9 per SM x 132 SMs
  CHECK(macko::balanced_blocks(1000, 0) == 1000);     // no cap known: unchanged
}

TEST_CASE("MACKO row splits: the split-base table holds the running column; split rows match the oracle") {
  // Rows of ~1400 elements starting at odd offsets, 4-bit deltas with padding.
  SparseRows<half> m;
  m.cols = 6000;
  std::mt19937 rng(7);
  for (int r = 0; r < 5; ++r) {
    for (int c = r; c < 6000; c += 1 + static_cast<int>(rng() % 7)) m.push(c, half(0.25f + float(rng() % 8) / 8.0f));
    m.end_row();
  }
  const Macko<half> a = encode_macko(m);
  const std::vector<std::int32_t> t = macko_split_bases(a);
  REQUIRE(static_cast<std::int64_t>(t.size()) == (a.padded_length() + macko::kSplitUnit - 1) / macko::kSplitUnit);
  for (std::int64_t r = 0; r < a.rows; ++r) {  // independent decode of every entry inside the row
    std::int64_t c = -1;
    for (std::int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      if (k % macko::kSplitUnit == 0) CHECK(t[static_cast<std::size_t>(k / macko::kSplitUnit)] == c);
      c += a.delta(k) + 1;
    }
  }
  std::vector<half> x(6000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = half(float(int(i % 13) - 6) / 4.0f);
  const std::vector<float> y_old;
  macko::Schedule s;
  const auto y1 = macko_spmv_model<half, half, float>(a, x, y_old, 1.0f, 0.0f, s);
  // Splits over the warps of a block, then over warps of the grid (grid_part_sum's order; 100 parts
  // of rows 6 split units long leaves most of them empty).
  for (const auto& [row_splits, grid_splits] : {std::pair{2, 1}, {4, 1}, {8, 1}, {1, 2}, {1, 3}, {1, 6}, {1, 100}}) {
    s.row_splits = row_splits;
    s.grid_splits = grid_splits;
    s.warps_per_block = 8;
    const int splits = s.row_parts();
    INFO(macko::to_string(s));
    SpmvTraffic tr;
    const auto ys = macko_spmv_model<half, half, float>(a, x, y_old, 1.0f, 0.0f, s, &tr);
    auto chain = [&](std::int64_t) { return macko_chain_length(a.emitted(), 4, s); };
    CHECK(check_spmv<half, half, float>(m, x, y_old, 1.0f, 0.0f, ys, chain).ok());
    std::uint64_t loads = 0;  // row bounds once per row, one table load per non-empty part after the first
    for (std::int64_t r = 0; r < a.rows; ++r) {
      const macko::RowAligner ra(a.row_ptr[r], a.row_ptr[r + 1], 4);
      ++loads;
      for (int j = 1; j < splits; ++j) loads += ra.split_start(j, splits) < ra.split_start(j + 1, splits) ? 1 : 0;
    }
    CHECK(loads > static_cast<std::uint64_t>(a.rows));
    CHECK(tr.row_ptr.instructions == loads);
    for (std::size_t r = 0; r < y1.size(); ++r) CHECK(std::abs(ys[r] - y1[r]) <= 1e-3f * (1.0f + std::abs(y1[r])));
  }
}
