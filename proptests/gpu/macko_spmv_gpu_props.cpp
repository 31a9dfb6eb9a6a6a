// GPU MACKO SpMV == its warp model, bit for bit; and the model == the double oracle within the
// derived fp32 bound. Fresh random cases every run (rapidcheck prints the seed to replay).
#include <array>
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "analysis/patterns.hpp"
#include "proptests/gpu/gpu_props_common.hpp"
#include "kernels/macko_spmv.hpp"
#include "reference/models/macko_spmv_model.hpp"
#include "reference/models/spmv_check.hpp"

using namespace warpsparse;

namespace {

using gpu_props::raw_bits;

struct Case {
  std::int64_t rows, cols;
  analysis::PatternSpec spec;
  std::uint64_t seed;
  int delta_bits;
  macko::Schedule sched;
  bool trailing, wide;
  float alpha, beta;
  bool aligned = false;  // MackoParams::align_rows
  // 32-bit row pointers in the format, widened on upload to run the wide kernels (what a matrix of
  // more than gpu::kNarrowMaxElements stored elements gets).
  bool widen = false;
};

// Matrices built on purpose to hit the encoder's and ROMA's edges: row lengths of every residue
// modulo the alignment unit, zero runs around 2^b.
template <class T>
SparseRows<T> edge_matrix(std::int64_t rows, std::int64_t cols, int db, std::mt19937_64& rng) {
  SparseRows<T> m;
  m.cols = cols;
  std::normal_distribution<float> n(0.f, 1.f);
  const std::int64_t runs[] = {macko::max_skip(db) - 1, macko::max_skip(db), macko::max_skip(db) + 1,
                               2 * macko::max_skip(db) + 1, 2 * macko::max_skip(db) + 2, 0, 1};
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t c = static_cast<std::int64_t>(rng() % 3) - 1;
    const int mode = static_cast<int>(rng() % 4);
    while (true) {
      c += 1 + (mode == 0 ? 0 : runs[rng() % 7]);
      if (c >= cols || (mode == 3 && rng() % 50 == 0)) break;
      T v;
      do v = from_float<T>(n(rng)); while (is_zero(v));
      m.push(static_cast<std::int32_t>(c), v);
    }
    m.end_row();
  }
  return m;
}

template <class T, class TY>
void check_case(const Case& c) {
  std::mt19937_64 rng(c.seed);
  SparseRows<T> m = (c.spec.kind == analysis::Pattern::clustered && c.spec.param < 0)
                        ? edge_matrix<T>(c.rows, c.cols, c.delta_bits, rng)
                        : analysis::generate<T>(c.spec, c.rows, c.cols, c.seed);
  MackoParams p;
  p.delta_bits = c.delta_bits;
  p.emit_trailing_padding = c.trailing;
  p.force_wide_row_pointers = c.wide;
  p.align_rows = c.aligned;
  const Macko<T> a = encode_macko(m, p);

  // With Schedule::batch = B, x is cols x B and y rows x B (row-major).
  const int nb = c.sched.batch;
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> x(static_cast<std::size_t>(c.cols * nb));
  for (auto& v : x) v = from_float<T>(u(rng));
  std::vector<TY> y0(static_cast<std::size_t>(c.rows * nb));
  for (auto& v : y0) v = from_float<TY>(c.beta == 0.0f ? std::nanf("") : u(rng));  // beta==0 must not read y

  const std::vector<TY> model = macko_spmv_model<T, T, TY>(a, x, y0, c.alpha, c.beta, c.sched);

  auto da = gpu::upload_macko(a, c.widen ? 0 : gpu::kNarrowMaxElements);
  RC_ASSERT(da.wide == (c.wide || (c.widen && a.padded_length() > 0)));  // empty: nothing to widen for
  gpu::DeviceBuffer<T> dx(x);
  gpu::DeviceBuffer<TY> dy(y0);
  gpu::macko_spmv<T, TY>(da, dx.get(), dy.get(), c.alpha, c.beta, c.sched);
  WS_CUDA(cudaDeviceSynchronize());
  const std::vector<TY> got = dy.download();

  for (std::int64_t i = 0; i < c.rows * nb; ++i) {
    if (raw_bits(got[i]) != raw_bits(model[i])) {
      const std::int64_t r = i / nb;
      RC_FAIL("row " + std::to_string(r) + ", vector " + std::to_string(i % nb) + " of " + std::to_string(nb) +
              ": kernel " + std::to_string(to_float(got[i])) + " != model " +
              std::to_string(to_float(model[i])) + " (rows " + std::to_string(c.rows) + ", cols " +
              std::to_string(c.cols) + ", db " + std::to_string(c.delta_bits) + ", acc " +
              std::to_string(c.sched.lane_accumulators) + ", unroll " + std::to_string(c.sched.unroll_blocks) +
              ", lane elements " + std::to_string(c.sched.lane_elems) + ", row splits " +
              std::to_string(c.sched.row_splits) + ", x_shared " + std::to_string(c.sched.x_shared) + ", x_swizzle " +
              std::to_string(c.sched.x_swizzle) + ", row lanes " + std::to_string(c.sched.row_lanes) + ")");
    }
  }
  // Model vs oracle within the derived bound, every vector: the rule `warpsparse verify` and the
  // CPU properties use.
  const SparseRows<T> dec = decode_macko(a);
  for (int b = 0; b < nb; ++b) {
    const std::vector<T> xb = batch_column<T>(x, nb, b);
    const std::vector<TY> y0b = batch_column<TY>(y0, nb, b), mb = batch_column<TY>(model, nb, b);
    const SpmvCheck chk = check_spmv<T, T, TY>(dec, xb, y0b, c.alpha, c.beta, mb, [&](std::int64_t r) {
      return macko_chain_length(a.row_ptr[r + 1] - a.row_ptr[r], c.delta_bits, c.sched);
    });
    if (!chk.ok()) RC_FAIL("model vs oracle, vector " + std::to_string(b) + ": " + chk.first_failure);
  }
}

// kind: the batch-1 schedules, the batched ones, or batch 1 with two rows per warp only.
enum class Kind { one, batched, two_rows };
rc::Gen<Case> gen_case(bool big, Kind kind = Kind::one) {
  return rc::gen::exec([big, kind] {
    Case c;
    c.rows = *rc::gen::inRange<std::int64_t>(0, big ? 300 : 70).as("rows");
    c.cols = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 600), rc::gen::element<std::int64_t>(1, 7, 8, 9, 4096, 70000))
                  .as("cols");
    if (c.cols > 5000) c.rows = std::min<std::int64_t>(c.rows, 6);
    const auto kinds = analysis::all_patterns();
    c.spec.kind = *rc::gen::elementOf(kinds).as("pattern");
    c.spec.density = *rc::gen::element(1.0, 0.9, 0.5, 0.3, 0.1, 0.05, 0.01, 0.001, 0.0).as("density");
    if (*rc::gen::inRange(0, 4).as("edge") == 0) {  // hand-built edge rows (marked by param < 0)
      c.spec.kind = analysis::Pattern::clustered;
      c.spec.param = -1;
    }
    c.seed = *rc::gen::arbitrary<std::uint64_t>().as("seed");
    c.delta_bits = kind != Kind::one ? 4 : *rc::gen::element(1, 2, 4, 4, 4, 8).as("delta_bits");
    c.sched = gpu::default_schedule(c.delta_bits);
    if (kind == Kind::batched) {
      // The compiled batch variants (kernels/macko_spmv.cu, BatchVariants): lane elements, row
      // splits, x in shared memory; 2-byte alignment of a column's pack is the cols x batch layout's.
      c.sched.batch = *rc::gen::element(2, 4, 8).as("batch");
      const auto v = *rc::gen::element(std::tuple{8, 1, false}, std::tuple{4, 1, false}, std::tuple{2, 1, false},
                                       std::tuple{8, 2, false}, std::tuple{8, 1, true}, std::tuple{4, 1, true},
                                       std::tuple{2, 1, true})
                          .as("lane_elems/row_splits/x_shared");
      c.sched.lane_elems = std::get<0>(v);
      c.sched.row_splits = std::get<1>(v);
      c.sched.x_shared = std::get<2>(v);
      // x in shared memory holds cols x batch values: keep it within a block's shared memory.
      if (c.sched.x_shared) c.cols = std::min<std::int64_t>(c.cols, 90000 / c.sched.batch);
    } else if (kind == Kind::two_rows) {
      // The compiled two-rows-per-warp variants: the default loads, 8 or 4 elements per lane, x
      // through L1 or in shared memory.
      c.sched.row_lanes = 16;
      c.sched.lane_elems = *rc::gen::element(8, 4).as("lane elements");
      c.sched.x_shared = *rc::gen::arbitrary<bool>().as("x_shared");
    } else if (c.delta_bits == 4) {
      // The compiled 4-bit variants (kernels/macko_spmv.cu).
      const auto v =
          *rc::gen::element(std::tuple{1, 1, false, 8, 1, false}, std::tuple{1, 2, false, 8, 1, false},
                            std::tuple{2, 2, false, 8, 1, false}, std::tuple{1, 1, true, 8, 1, false},
                            std::tuple{2, 1, true, 8, 1, false}, std::tuple{1, 2, true, 8, 1, false},
                            std::tuple{2, 2, true, 8, 1, false}, std::tuple{1, 2, true, 4, 1, false},
                            std::tuple{1, 2, true, 8, 2, false}, std::tuple{1, 2, true, 8, 1, true},
                            std::tuple{1, 2, true, 4, 1, true}, std::tuple{1, 2, true, 8, 2, true})
               .as("acc/unroll/prefetch/lane_elems/row_splits/x_shared");
      c.sched.lane_accumulators = std::get<0>(v);
      c.sched.unroll_blocks = std::get<1>(v);
      c.sched.prefetch = std::get<2>(v);
      c.sched.lane_elems = std::get<3>(v);
      c.sched.row_splits = std::get<4>(v);
      c.sched.x_shared = std::get<5>(v);
      // Each x_shared kernel is also built with x swizzled (Schedule::x_swizzle).
      if (c.sched.x_shared) c.sched.x_swizzle = *rc::gen::arbitrary<bool>().as("x_swizzle");
    }
    c.sched.warps_per_block = c.sched.row_splits * *rc::gen::element(1, 2, 4, 8, 12).as("rows per block");
    c.sched.blocks_per_sm = *rc::gen::element(0, 0, 1, 4).as("blocks_per_sm (0: a warp per row)");
    c.trailing = *rc::gen::arbitrary<bool>().as("trailing padding");
    c.wide = *rc::gen::element(false, false, false, true).as("wide row pointers");
    c.widen = !c.wide && *rc::gen::element(false, false, false, true).as("widened on upload");
    c.aligned = *rc::gen::arbitrary<bool>().as("align_rows");
    c.alpha = *rc::gen::element(1.0f, -0.5f, 2.0f).as("alpha");
    c.beta = *rc::gen::element(0.0f, 0.0f, 1.0f, -0.75f).as("beta");
    return c;
  });
}

}  // namespace

TEST_CASE("MACKO kernel equals its warp model bit for bit", "[gpu][macko]") {
  rc::prop("fp16 -> fp16", [] { check_case<half, half>(*gen_case(false)); });
  rc::prop("fp16 -> fp32", [] { check_case<half, float>(*gen_case(false)); });
  rc::prop("bf16 -> bf16", [] { check_case<bfloat16, bfloat16>(*gen_case(false)); });
  rc::prop("bf16 -> fp32", [] { check_case<bfloat16, float>(*gen_case(true)); });
}

// Schedule::row_lanes = 16: two rows per warp, each half stepping until the longer row ends.
TEST_CASE("MACKO kernel with two rows per warp equals its warp model bit for bit", "[gpu][macko]") {
  rc::prop("fp16 -> fp16, 16 lanes per row", [] { check_case<half, half>(*gen_case(false, Kind::two_rows)); });
  rc::prop("fp16 -> fp32, 16 lanes per row", [] { check_case<half, float>(*gen_case(true, Kind::two_rows)); });
  rc::prop("bf16 -> bf16, 16 lanes per row", [] { check_case<bfloat16, bfloat16>(*gen_case(true, Kind::two_rows)); });
}

TEST_CASE("batched MACKO kernel equals its warp model bit for bit", "[gpu][macko]") {
  rc::prop("fp16 -> fp16, batch 2/4/8", [] { check_case<half, half>(*gen_case(false, Kind::batched)); });
  rc::prop("fp16 -> fp32, batch 2/4/8", [] { check_case<half, float>(*gen_case(false, Kind::batched)); });
  rc::prop("bf16 -> bf16, batch 2/4/8", [] { check_case<bfloat16, bfloat16>(*gen_case(true, Kind::batched)); });
  rc::prop("bf16 -> fp32, batch 2/4/8", [] { check_case<bfloat16, float>(*gen_case(false, Kind::batched)); });
}

TEST_CASE("batched MACKO kernel: fixed edge cases and the default schedule", "[gpu][macko]") {
  auto run = [](std::int64_t rows, std::int64_t cols, double d, int batch, bool wide, macko::Schedule s) {
    s.batch = batch;
    Case c{rows, cols, {analysis::Pattern::bernoulli, d, 0}, 4321, 4, s, false, wide, 1.0f, 0.5f};
    check_case<half, half>(c);
  };
  for (const int nb : {2, 4, 8}) {
    run(1, 1, 1.0, nb, false, gpu::default_schedule(4, 1.0, 1, 1, nb));
    run(37, 100, 0.0, nb, false, gpu::default_schedule(4, 0.0, 37, 100, nb));  // every output written
    run(33, 1000, 1.0, nb, true, gpu::default_schedule(4, 1.0, 33, 1000, nb));
    run(1, 200000, 0.3, nb, false, gpu::default_schedule(4, 0.3, 1, 200000, nb));  // one long row, split
    run(5000, 3000, 0.1, nb, false, gpu::default_schedule(4, 0.1, 5000, 3000, nb));
    run(3000, 4099, 0.5, nb, false, gpu::default_schedule(4, 0.5, 3000, 4099, nb));
    // Every default the bench's shapes can ask for is compiled.
    for (const double d : {1.0, 0.5, 0.3, 0.1, 0.05})
      for (const auto& [r, k] : {std::pair<std::int64_t, std::int64_t>{12288, 12288}, {28672, 8192}, {4096, 4096},
                                  {8192, 28672}, {5120, 13824}, {32000, 5120}})
        REQUIRE(gpu::is_compiled(gpu::default_schedule(4, d, r, k, nb)));
  }
  // The rule (default_batch_schedule): shared memory while it fits two blocks at batches 2 and 4, at
  // batch 8 on dense-ish rows only; through L1 otherwise, with 4 elements per lane on dense-ish rows.
  for (const int nb : {2, 4}) {
    REQUIRE(gpu::default_schedule(4, 0.1, 28672, 8192, nb).x_shared);
    REQUIRE(gpu::default_schedule(4, 0.1, 28672, 8192, nb).warps_per_block == 16);
    REQUIRE_FALSE(gpu::default_schedule(4, 0.5, 4096, 28672, nb).x_shared);
  }
  REQUIRE_FALSE(gpu::default_schedule(4, 0.5, 12288, 12288, 8).x_shared);
  REQUIRE(gpu::default_schedule(4, 0.5, 12288, 12288, 8).lane_elems == 8);
  REQUIRE(gpu::default_schedule(4, 1.0, 12288, 12288, 8).x_shared);
  REQUIRE_FALSE(gpu::default_schedule(4, 1.0, 8192, 28672, 8).x_shared);
  REQUIRE(gpu::default_schedule(4, 1.0, 8192, 28672, 8).lane_elems == 4);
  REQUIRE(gpu::default_schedule(4, 0.5, 4096, 28672, 4).row_splits == 2);
  REQUIRE(gpu::default_schedule(4, 0.5, 4096, 28672, 8).row_splits == 1);
  // x must be aligned to one column's pack: an offset pointer is refused by name.
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.5, 0}, 4, 64, 1);
  auto da = gpu::upload_macko(encode_macko(m));
  gpu::DeviceBuffer<half> x(64 * 8 + 8);
  gpu::DeviceBuffer<half> y(4 * 8);
  macko::Schedule s = gpu::default_schedule(4, 0.5, 4, 64, 8);
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(da, x.get() + 1, y.get(), 1.f, 0.f, s)),
                      Catch::Contains("aligned to 16 bytes"));
  // x in shared memory larger than a block allows (cols x batch values) is refused, not truncated.
  const auto w = analysis::generate<half>({analysis::Pattern::bernoulli, 0.01, 0}, 2, 30000, 3);
  auto dw = gpu::upload_macko(encode_macko(w));
  gpu::DeviceBuffer<half> xw(30000 * 8);
  gpu::DeviceBuffer<half> yw(2 * 8);
  s.x_shared = true;
  s.lane_elems = 8;
  s.row_splits = 1;
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(dw, xw.get(), yw.get(), 1.f, 0.f, s)),
                      Catch::Contains("x_shared") && Catch::Contains("batch 8"));
  // A batch not built for these delta bits is refused by name.
  const auto m2 = encode_macko(m, MackoParams{2});
  auto d2 = gpu::upload_macko(m2);
  macko::Schedule s2 = gpu::default_schedule(2, 0.5, 4, 64, 4);
  REQUIRE_FALSE(gpu::is_compiled(s2));
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(d2, x.get(), y.get(), 1.f, 0.f, s2)), Catch::Contains("batch=4"));
}

TEST_CASE("MACKO kernel: fixed edge cases", "[gpu][macko]") {
  auto run = [](std::int64_t rows, std::int64_t cols, double d, int db, bool wide, int splits = 1) {
    Case c{rows, cols, {analysis::Pattern::bernoulli, d, 0}, 1234, db, gpu::default_schedule(db), false, wide, 1.0f, 0.0f};
    c.sched.row_splits = splits;
    c.sched.warps_per_block = 4 * splits;
    check_case<half, half>(c);
  };
  run(1, 1, 1.0, 4, false);          // one element
  run(37, 100, 0.0, 4, false);       // all-zero matrix: every output must be written (0)
  run(33, 1000, 1.0, 4, true);       // density 1, rows % 32 != 0, 64-bit row pointers
  run(1, 200000, 0.3, 4, false);     // a single very long row
  run(3, 70000, 0.001, 2, false);    // very sparse wide rows: padding dominates
  run(1000, 64, 0.5, 1, false);
  run(1000, 64, 0.5, 8, false);
  // The default schedule stages x in shared memory where cols >= rows and on tall matrices with
  // long enough rows, and splits each row over two warps where the matrix is wide (cols >= 3 rows)
  // and x is wider than the first rule allows.
  {
    Case c{300, 5000, {analysis::Pattern::bernoulli, 0.5, 0}, 77, 4, gpu::default_schedule(4, 0.5, 300, 5000),
           false, false, 1.0f, 0.5f};
    REQUIRE(c.sched.x_shared);
    REQUIRE(c.sched.row_splits == 1);
    check_case<half, half>(c);
    const std::int64_t cols = gpu::kXSharedDefaultMaxCols + 5;
    Case w{20, cols, {analysis::Pattern::bernoulli, 0.5, 0}, 78, 4, gpu::default_schedule(4, 0.5, 20, cols),
           false, false, 1.0f, 0.5f};
    REQUIRE_FALSE(w.sched.x_shared);
    REQUIRE(w.sched.row_splits == 2);
    check_case<half, half>(w);
    // Tall (<= kXSharedTallMaxCols columns): x in shared memory, 4-warp blocks.
    Case t{5001, 4500, {analysis::Pattern::bernoulli, 0.5, 0}, 79, 4, gpu::default_schedule(4, 0.5, 5001, 4500),
           false, false, 1.0f, 0.5f};
    REQUIRE(t.sched.x_shared);
    REQUIRE(t.sched.warps_per_block == 4);
    check_case<half, half>(t);
    REQUIRE(gpu::default_schedule(4, 0.3, 5001, 5000).x_shared);   // 1500 nonzeros per row (run 103)
    REQUIRE(gpu::default_schedule(4, 0.2, 30000, 8192).x_shared);  // >= kXSharedLowMinCols: any density
    REQUIRE(gpu::default_schedule(4, 0.2, 50000, 5120).x_shared);  // 1024 nonzeros per row (run 103)
    // Block size on tall matrices of >= kXSharedLowMinCols columns above kLowDensity: 12 warps where
    // the busiest SM gets no more rows than with 4 (macko::busiest_sm_units over this device's
    // resident blocks), else 4; 4 at low density and on narrower matrices.
    int sms = 0;
    REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
    for (const auto& [tr, tc] : {std::pair<std::int64_t, std::int64_t>{30000, 8192}, {50000, 5120}, {21504, 7168},
                                 {28672, 7168}, {5001, 4500}, {9504, 7168}}) {
      const auto busiest = [&, tc = tc, tr = tr](int warps) {
        const std::int64_t per_sm = gpu::x_shared_resident_rows(tc, warps) / (std::int64_t{sms} * warps);
        return macko::busiest_sm_units(tr, warps, per_sm, sms);
      };
      const int want = tc >= gpu::kXSharedLowMinCols && busiest(12) <= busiest(4) ? 12 : 4;
      INFO(tr << " x " << tc << ": busiest SM " << busiest(4) << " rows with 4-warp blocks, " << busiest(12) << " with 12");
      REQUIRE(gpu::default_schedule(4, 0.6, tr, tc).warps_per_block == want);
      REQUIRE(gpu::default_schedule(4, 0.1, tr, tc).warps_per_block == 4);
    }
    // Two full rounds of rows either way (72 rows per SM on the H100: 9 blocks of 4 warps or 3 of 12 a
    // round): 12-warp blocks, checked.
    Case t12{9504, 7168, {analysis::Pattern::bernoulli, 0.16, 0}, 81, 4, gpu::default_schedule(4, 0.16, 9504, 7168),
             false, false, 1.0f, 0.5f};
    if (sms == 132) REQUIRE(t12.sched.warps_per_block == 12);
    check_case<half, half>(t12);
    REQUIRE_FALSE(gpu::default_schedule(4, 0.3, 5000, 5001).warps_per_block == 4);  // not tall: 16-warp blocks
    // Short rows (<= kTwoRowsMaxNnz nonzeros) on tall matrices of <= kXSharedTallMaxCols columns: two
    // rows per warp, x in shared memory; longer rows, or square and wide matrices: one warp per row.
    for (const auto& [sr, sc, sd, lanes] :
         {std::tuple{50000, 5120, 0.1, 16}, std::tuple{30000, 9216, 0.08, 16}, std::tuple{30000, 3584, 0.2, 16},
          std::tuple{30000, 9216, 0.1, 32}, std::tuple{5120, 5120, 0.1, 32}, std::tuple{4096, 28672, 0.02, 32},
          std::tuple{30000, 12288, 0.05, 32}}) {
      const macko::Schedule sh = gpu::default_schedule(4, sd, sr, sc);
      INFO(sr << " x " << sc << " at d = " << sd);
      REQUIRE(sh.row_lanes == lanes);
      REQUIRE(gpu::is_compiled(sh));
      if (lanes == 16) REQUIRE((sh.x_shared && sh.lane_elems == 8 && sh.warps_per_block == 4));
    }
    Case two{3001, 700, {analysis::Pattern::bernoulli, 0.3, 0}, 80, 4, gpu::default_schedule(4, 0.3, 3001, 700),
             false, false, 1.0f, 0.5f};
    REQUIRE(two.sched.row_lanes == 16);
    check_case<half, half>(two);
    // Low density on >= kXSharedLowMinCols columns: x in shared memory, 8 elements per lane on long
    // rows (tall, or cols >= 3 rows), 4 on square-ish matrices.
    for (const auto& [lr, lc, le, lw] : {std::array<std::int64_t, 4>{50000, 9216, 8, 4}, {50000, 12288, 8, 16},
                                         {8192, 28672, 8, 16}, {12288, 12288, 4, 16}}) {
      const macko::Schedule low = gpu::default_schedule(4, 0.1, lr, lc);
      REQUIRE(low.x_shared);
      REQUIRE(low.lane_elems == le);
      REQUIRE(low.warps_per_block == lw);
      REQUIRE(gpu::is_compiled(low));
    }
    REQUIRE(gpu::default_schedule(4, 0.5, 50000, 12288).x_shared);  // tall, wider x: 16-warp blocks (run 106)
    REQUIRE(gpu::default_schedule(4, 0.5, 50000, 12288).warps_per_block == 16);
    REQUIRE_FALSE(gpu::default_schedule(4, 0.5, 60000, 50000).x_shared);  // x wider than kXSharedDefaultMaxCols
    // cols >= rows: rows split over two warps when the persistent grid's last round of rows is less
    // than kXSharedSplitTail full and half rows keep kXSharedMinWarpNnz nonzeros; whole rows
    // otherwise. (The split x_shared kernel itself is among the random schedules above.)
    const std::int64_t held = gpu::x_shared_resident_rows(20000, 16);
    REQUIRE(held > 0);
    const std::int64_t short_tail = held + held / 5, long_tail = held + held * 4 / 5;
    REQUIRE(gpu::default_schedule(4, 0.5, short_tail, 20000).row_splits == 2);
    REQUIRE(gpu::default_schedule(4, 0.5, short_tail, 20000).warps_per_block == 16);  // 8 rows per block
    REQUIRE(gpu::default_schedule(4, 0.5, long_tail, 20000).row_splits == 1);
    REQUIRE(gpu::default_schedule(4, 0.5, held / 2, 20000).row_splits == 1);   // one partial round
    REQUIRE(gpu::default_schedule(4, 0.15, short_tail, 20000).row_splits == 1);  // low density: whole rows
    REQUIRE(gpu::default_schedule(4, 0.2, short_tail, 20000).row_splits == 1);   // 2000 per half row
  }
  // Persistent grid of one warp per block and one block per SM: every warp owns dozens of rows in
  // turn, empty rows included (d = 0.01 on 64 columns leaves most rows empty).
  auto run_pipe = [](std::int64_t rows, std::int64_t cols, double d, int lane_elems, bool wide) {
    macko::Schedule s = gpu::default_schedule(4);
    s.lane_elems = lane_elems;
    s.warps_per_block = 1;
    s.blocks_per_sm = 1;
    Case c{rows, cols, {analysis::Pattern::bernoulli, d, 0}, 99, 4, s, false, wide, 2.0f, -0.75f};
    check_case<half, half>(c);
  };
  run_pipe(5000, 1000, 0.5, 8, false);
  run_pipe(5000, 64, 0.01, 8, true);
  run_pipe(3000, 3000, 0.1, 4, false);
  run(1, 200000, 0.3, 4, false, 2);  // the long row split over 2 warps
  run(33, 1000, 1.0, 4, true, 2);    // density 1 split over 2 warps, 64-bit row pointers
  run(37, 100, 0.0, 4, false, 2);    // all-zero: every part is empty, every output still written
}

TEST_CASE("MACKO kernel: x in shared memory", "[gpu][macko]") {
  // Schedule::x_shared (persistent grid): many rows per warp, odd column counts (the copy's tail),
  // a long row, and the all-zero matrix.
  auto run_xs = [](std::int64_t rows, std::int64_t cols, double d, int lane_elems) {
    macko::Schedule s = gpu::default_schedule(4);
    s.lane_elems = lane_elems;
    s.x_shared = true;
    Case c{rows, cols, {analysis::Pattern::bernoulli, d, 0}, 555, 4, s, false, false, 1.0f, 0.5f};
    check_case<half, half>(c);
  };
  run_xs(20000, 1001, 0.1, 4);
  run_xs(5000, 4099, 0.5, 8);
  run_xs(2, 60000, 0.3, 8);
  run_xs(37, 100, 0.0, 4);
  // The same with x swizzled (Schedule::x_swizzle), odd column counts included (the copy's tail).
  auto run_swz = [](std::int64_t rows, std::int64_t cols, double d, int lane_elems, int splits) {
    macko::Schedule s = gpu::default_schedule(4);
    s.lane_elems = lane_elems;
    s.row_splits = splits;
    s.warps_per_block = 8;
    s.x_shared = true;
    s.x_swizzle = true;
    Case c{rows, cols, {analysis::Pattern::nm_2_4, d, 0}, 556, 4, s, false, false, 1.0f, 0.5f};
    check_case<half, half>(c);
  };
  run_swz(3000, 4099, 0.5, 8, 1);
  run_swz(3000, 1001, 0.5, 4, 1);
  run_swz(500, 20000, 0.5, 8, 2);
  // default_schedule_for reads the matrix: 2:4 and 4:8 rows get x in shared memory, swizzled, also
  // on shapes whose rule keeps x in L1 (20000 x 1000, 12000 x 10000: tall); uniform rows keep the
  // shape rule's schedule, unswizzled. Its schedules are compiled and exact. 20000 x 1000 at d = 0.5
  // has short rows (500 nonzeros: two rows per warp by the shape rule); N:M rows there run one warp
  // per row, swizzled (no two-rows kernel is built swizzled).
  for (const auto kind : {analysis::Pattern::nm_2_4, analysis::Pattern::nm_4_8, analysis::Pattern::exact_nnz}) {
    for (const auto& [rows, cols] :
         {std::pair<std::int64_t, std::int64_t>{3000, 4099}, {300, 40000}, {20000, 1000}, {12000, 10000}}) {
      const auto m = analysis::generate<half>({kind, 0.5, 0}, rows, cols, 557);
      const macko::Schedule s = gpu::default_schedule_for(encode_macko(m));
      REQUIRE(gpu::is_compiled(s));
      if (kind == analysis::Pattern::exact_nnz) {
        REQUIRE_FALSE(s.x_swizzle);
        REQUIRE(s.x_shared == gpu::default_schedule(4, 0.5, rows, cols).x_shared);
        REQUIRE(s.row_lanes == (rows == 20000 ? 16 : 32));
      } else {
        REQUIRE(s.x_shared);
        REQUIRE(s.x_swizzle);
        REQUIRE(s.row_lanes == 32);
        if (rows == 20000) REQUIRE(s.warps_per_block == 4);   // x of <= kXSharedTallMaxCols columns
        if (rows == 12000) REQUIRE(s.warps_per_block == 16);  // wider
      }
      check_case<half, half>(Case{rows, cols, {kind, 0.5, 0}, 557, 4, s, false, false, 1.0f, 0.5f});
    }
  }
  // An x larger than a block's shared memory is refused by name, not truncated.
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.01, 0}, 2, 200000, 3);
  auto da = gpu::upload_macko(encode_macko(m));
  gpu::DeviceBuffer<half> x(200000);
  gpu::DeviceBuffer<half> y(2);
  macko::Schedule s = gpu::default_schedule(4);
  s.x_shared = true;
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(da, x.get(), y.get(), 1.f, 0.f, s)),
                      Catch::Contains("x_shared") && Catch::Contains("200000 columns"));
}

TEST_CASE("MACKO kernel rejects a schedule that is not compiled", "[gpu][macko]") {
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.5, 0}, 4, 64, 1);
  auto da = gpu::upload_macko(encode_macko(m));
  gpu::DeviceBuffer<half> x(64);
  gpu::DeviceBuffer<half> y(4);
  macko::Schedule s = gpu::default_schedule(4);
  s.lane_accumulators = 8;
  s.unroll_blocks = 8;
  auto launch = [&] { gpu::macko_spmv<half, half>(da, x.get(), y.get(), 1.f, 0.f, s); };
  REQUIRE_FALSE(gpu::is_compiled(s));
  REQUIRE_THROWS_AS(launch(), Error);
  for (const double d : {1.0, 0.5, 0.1})
    for (const std::int64_t cols : {100, 1000}) REQUIRE(gpu::is_compiled(gpu::default_schedule(4, d, 100, cols)));
}

// More than 2^31 stored elements: the wide kernels (row pointers widened on upload, 64-bit element
// offsets) on a real matrix, not a lowered threshold. The matrix repeats kDistinct rows of different
// densities; every row is padded to the ROMA unit (align_rows), so its elements start aligned
// wherever it sits and its result depends on its own bytes only. Row r's output must then have the
// bits of the warp model's output for distinct row r % kDistinct, computed on the small matrix and
// checked there against the double oracle. (Row splits are left out: their split points are
// multiples of kSplitUnit in absolute offsets, so a row's parts differ between the two matrices.)
// Needs about 6 GB of device memory and 6 GB of host memory; skipped with a message on less.
TEST_CASE("MACKO kernel past 2^31 stored elements equals its warp model bit for bit", "[gpu][macko][large]") {
  constexpr std::int64_t kDistinct = 61, kCols = 16384;
  constexpr std::int64_t kTarget = (std::int64_t{1} << 31) + (std::int64_t{1} << 24);  // stored elements
  std::size_t free_b = 0, total_b = 0;
  WS_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < (std::size_t{8} << 30)) {
    WARN("skipped: " << free_b << " bytes of device memory free, the 2^31-element matrix needs about 6 GB");
    return;
  }
  SparseRows<half> small;
  small.cols = kCols;
  for (std::int64_t i = 0; i < kDistinct; ++i) {
    const double d = 0.02 + 0.88 * static_cast<double>(i) / (kDistinct - 1);
    const auto row = analysis::generate<half>({analysis::Pattern::bernoulli, d, 0}, 1, kCols, 9000 + i);
    for (std::int64_t k = 0; k < row.nnz(); ++k) small.push(row.col[k], row.val[k]);
    small.end_row();
  }
  MackoParams p;
  p.align_rows = true;
  const Macko<half> a = encode_macko(small, p);
  std::vector<std::int64_t> len(kDistinct), nz(kDistinct);
  std::int64_t cycle = 0;
  for (std::int64_t i = 0; i < kDistinct; ++i) {
    len[i] = a.row_ptr[i + 1] - a.row_ptr[i];
    REQUIRE(len[i] % macko::align_unit(4) == 0);  // every row starts aligned
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) nz[i] += is_zero(a.values[k]) ? 0 : 1;
    cycle += len[i];
  }
  // Whole cycles past kTarget, plus 7 rows: an odd row count leaves a two-rows warp a half idle.
  const std::int64_t rows = (kTarget + cycle - 1) / cycle * kDistinct + 7;
  Macko<half> big;
  big.rows = rows;
  big.cols = kCols;
  big.delta_bits = 4;
  big.row_ptr.narrow.reserve(static_cast<std::size_t>(rows + 1));
  big.row_ptr.narrow.push_back(0);
  std::int64_t total = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    total += len[r % kDistinct];
    big.nnz += nz[r % kDistinct];
    big.row_ptr.narrow.push_back(static_cast<std::uint32_t>(total));
  }
  REQUIRE(total > (std::int64_t{1} << 31));
  REQUIRE(total < (std::int64_t{1} << 32));  // 32-bit row pointers in the format, widened on upload
  big.values.resize(static_cast<std::size_t>(total));
  big.deltas.resize(static_cast<std::size_t>(total / 2));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t i = r % kDistinct, from = a.row_ptr[i], to = big.row_ptr[r];
    std::memcpy(&big.values[static_cast<std::size_t>(to)], &a.values[static_cast<std::size_t>(from)],
                static_cast<std::size_t>(len[i]) * sizeof(half));
    std::memcpy(&big.deltas[static_cast<std::size_t>(to / 2)], &a.deltas[static_cast<std::size_t>(from / 2)],
                static_cast<std::size_t>(len[i] / 2));
  }
  auto da = gpu::upload_macko(big);  // validates every element
  REQUIRE(da.wide);
  big = Macko<half>{};  // the host copy is no longer needed

  const SparseRows<half> dec = decode_macko(a);  // the oracle's copy of the distinct rows
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const float alpha = 1.0f, beta = 0.5f;
  for (const int nb : {1, 2}) {
    std::vector<half> x(static_cast<std::size_t>(kCols * nb)), y0s(static_cast<std::size_t>(kDistinct * nb));
    for (auto& v : x) v = half(u(rng));
    for (auto& v : y0s) v = half(u(rng));
    std::vector<half> y0(static_cast<std::size_t>(rows * nb));
    for (std::int64_t r = 0; r < rows; ++r)
      for (int b = 0; b < nb; ++b) y0[r * nb + b] = y0s[(r % kDistinct) * nb + b];
    gpu::DeviceBuffer<half> dx(x);
    std::vector<macko::Schedule> scheds;
    for (const auto& [xs, e, lanes] : {std::tuple{false, 8, 32}, std::tuple{true, 8, 32}, std::tuple{false, 4, 32},
                                       std::tuple{true, 8, 16}, std::tuple{false, 4, 16}}) {
      macko::Schedule s = gpu::default_schedule(4, 0.5, rows, kCols, nb);
      s.x_shared = xs;
      s.lane_elems = e;
      s.row_lanes = lanes;
      s.row_splits = 1;
      s.warps_per_block = xs ? 16 : 4;
      if (s.valid() && gpu::is_compiled(s)) scheds.push_back(s);
    }
    REQUIRE(scheds.size() == (nb == 1 ? 5u : 3u));
    for (const macko::Schedule& s : scheds) {
      INFO("batch " << nb << ", x_shared " << s.x_shared << ", lane elements " << s.lane_elems << ", row lanes "
                    << s.row_lanes);
      const std::vector<half> want = macko_spmv_model<half, half, half>(a, x, y0s, alpha, beta, s);
      for (int b = 0; b < nb; ++b) {
        const SpmvCheck chk = check_spmv<half, half, half>(
            dec, batch_column<half>(x, nb, b), batch_column<half>(y0s, nb, b), alpha, beta,
            batch_column<half>(want, nb, b),
            [&](std::int64_t r) { return macko_chain_length(a.row_ptr[r + 1] - a.row_ptr[r], 4, s); });
        REQUIRE(chk.ok());
      }
      gpu::DeviceBuffer<half> dy(y0);
      gpu::macko_spmv<half, half>(da, dx.get(), dy.get(), alpha, beta, s);
      WS_CUDA(cudaDeviceSynchronize());
      const std::vector<half> got = dy.download();
      std::int64_t bad = 0, first = -1;
      for (std::int64_t k = 0; k < rows * nb; ++k)
        if (raw_bits(got[k]) != raw_bits(want[(k / nb % kDistinct) * nb + k % nb])) {
          if (first < 0) first = k;
          ++bad;
        }
      INFO("first mismatch at output " << first << " (row " << (first < 0 ? -1 : first / nb) << " of " << rows << ")");
      REQUIRE(bad == 0);
    }
  }
}
