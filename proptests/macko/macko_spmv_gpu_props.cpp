// GPU MACKO SpMV == its warp model, bit for bit, for every compiled variant (macko::kCompiledVariants);
// and the model == the double oracle within the derived fp32 bound. Fresh random cases every run
// (rapidcheck prints the seed to replay). Also: the device facts the schedule policy plans with are
// this device's.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <tuple>

#include "analysis/patterns.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/macko/macko_spmv.hpp"
#include "proptests/gpu_props_common.hpp"
#include "proptests/stream_safety.hpp"
#include "reference/macko/macko_policy.hpp"
#include "reference/macko/macko_spmv_model.hpp"
#include "reference/sparse/spmv_check.hpp"

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
              std::to_string(c.cols) + ", db " + std::to_string(c.delta_bits) + ", " + macko::to_string(c.sched) + ")");
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

// The policy's schedule for a shape on this device.
macko::Schedule policy(std::int64_t rows, std::int64_t cols, double density, int batch = 1, int delta_bits = 4) {
  macko::MatrixStats m;
  m.rows = rows;
  m.cols = cols;
  m.density = density;
  m.delta_bits = delta_bits;
  return macko::choose_schedule(m, gpu::device_facts(), batch);
}

// A case of compiled variant `variant` (a row of macko::kCompiledVariants), with a random delta width
// it is built for, block size and grid.
rc::Gen<Case> gen_case(int variant, bool big) {
  return rc::gen::exec([variant, big] {
    const macko::CompiledVariant& v = macko::kCompiledVariants[variant];
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
    std::vector<int> widths;
    for (const int db : {1, 2, 4, 8})
      if ((v.delta_bits & macko::delta_bit(db)) != 0) widths.push_back(db);
    c.delta_bits = *rc::gen::elementOf(widths).as("delta_bits");
    c.sched = v.schedule;
    // x in shared memory holds cols x batch values: keep it within a block's shared memory.
    if (c.sched.x_shared) c.cols = std::min<std::int64_t>(c.cols, 90000 / c.sched.batch);
    c.sched.warps_per_block = c.sched.row_splits * *rc::gen::element(1, 2, 4, 8, 12).as("rows per block");
    c.sched.blocks_per_sm = *rc::gen::element(0, 0, 1, 4).as("blocks_per_sm (0: a warp per row)");
    if (c.sched.grid_splits > 1) {  // any count the workspace holds, empty parts included
      const int want = *rc::gen::element(2, 3, 7, 32, 33, 100, macko::kMaxGridSplits).as("grid splits");
      c.sched.grid_splits = static_cast<int>(std::max<std::int64_t>(
          2, std::min<std::int64_t>(want, macko::kGridSplitMaxParts / std::max<std::int64_t>(c.rows * c.sched.batch, 1))));
    }
    c.trailing = *rc::gen::arbitrary<bool>().as("trailing padding");
    c.wide = *rc::gen::element(false, false, false, true).as("wide row pointers");
    c.widen = !c.wide && *rc::gen::element(false, false, false, true).as("widened on upload");
    c.aligned = *rc::gen::arbitrary<bool>().as("align_rows");
    c.alpha = *rc::gen::element(1.0f, -0.5f, 2.0f).as("alpha");
    c.beta = *rc::gen::element(0.0f, 0.0f, 1.0f, -0.75f).as("beta");
    return c;
  });
}
rc::Gen<Case> gen_any_case(bool big) {
  return rc::gen::mapcat(rc::gen::inRange(0, macko::kCompiledVariantCount).as("compiled variant"),
                         [big](int v) { return gen_case(v, big); });
}

}  // namespace

TEST_CASE("MACKO kernel equals its warp model bit for bit, every compiled variant", "[gpu][macko]") {
  // Every variant a few times (so none is left to chance), then random variants.
  for (int v = 0; v < macko::kCompiledVariantCount; ++v) {
    INFO("compiled variant " << v << ": " << macko::to_string(macko::kCompiledVariants[v].schedule));
    rc::prop("fp16 -> fp16, variant " + std::to_string(v), [v] { check_case<half, half>(*gen_case(v, false)); });
  }
  rc::prop("fp16 -> fp16", [] { check_case<half, half>(*gen_any_case(false)); });
  rc::prop("fp16 -> fp32", [] { check_case<half, float>(*gen_any_case(false)); });
  rc::prop("bf16 -> bf16", [] { check_case<bfloat16, bfloat16>(*gen_any_case(true)); });
  rc::prop("bf16 -> fp32", [] { check_case<bfloat16, float>(*gen_any_case(true)); });
}

TEST_CASE("the policy's device facts are this device's", "[gpu][macko]") {
  const DeviceFacts& d = gpu::device_facts();
  const macko::Rules& r = macko::rules_for(d);
  INFO(d.name);
  // The registers the rules count with are the compiled kernels', at 8 and at 4 elements per lane.
  CHECK(gpu::macko_x_shared_kernel_registers() == r.x_shared_kernel_registers);
  CHECK(gpu::macko_x_shared_kernel_registers(4) == r.x_shared_kernel_registers_elems4);
  INFO("two rows per warp: " << gpu::macko_x_shared_kernel_registers(macko::kElemsPerLane,
                                                                     macko::kWarpLanes / 2)
                             << " registers");
  // The host occupancy rules give the runtime's answer for the kernels the policy plans with.
  for (const int elems : {macko::kElemsPerLane, 4})
    for (const int wpb : {1, 2, 4, 8, 12, 16, 24, 32})
      for (const std::int64_t cols :
           {1, 1000, 4096, 7168, 9216, 12288, 20000, 36864, 49152, 60000, 100000, 120000}) {
        INFO(elems << " elements per lane, " << wpb << " warps per block, " << cols << " columns");
        CHECK(macko::x_shared_blocks_per_sm(d, r, cols, wpb, elems) ==
              gpu::macko_x_shared_resident_blocks(wpb, cols, elems));
        // Two rows per warp (8 elements): the policy counts the one-row kernel's blocks for pairs.
        if (elems == macko::kElemsPerLane)
          CHECK(macko::x_shared_blocks_per_sm(d, r, cols, wpb) ==
                gpu::macko_x_shared_resident_blocks(wpb, cols, elems, macko::kWarpLanes / 2));
      }
  // A known GPU's table entry is what the device reports.
  for (const KnownGpu& g : kKnownGpus)
    if (g.facts->name == d.name) {
      CHECK(g.facts->sms == d.sms);
      CHECK(g.facts->regs_per_sm == d.regs_per_sm);
      CHECK(g.facts->smem_per_sm == d.smem_per_sm);
      CHECK(g.facts->smem_per_block_optin == d.smem_per_block_optin);
      CHECK(g.facts->smem_reserved_per_block == d.smem_reserved_per_block);
      CHECK(g.facts->max_threads_per_sm == d.max_threads_per_sm);
      CHECK(g.facts->max_blocks_per_sm == d.max_blocks_per_sm);
    }
}

TEST_CASE("batched MACKO kernel: fixed edge cases, the policy's schedules", "[gpu][macko]") {
  auto run = [](std::int64_t rows, std::int64_t cols, double d, int batch, bool wide) {
    Case c{rows, cols, {analysis::Pattern::bernoulli, d, 0}, 4321, 4, policy(rows, cols, d, batch), false, wide, 1.0f, 0.5f};
    check_case<half, half>(c);
  };
  for (const int nb : {2, 4, 8}) {
    run(1, 1, 1.0, nb, false);
    run(37, 100, 0.0, nb, false);  // every output written
    run(33, 1000, 1.0, nb, true);
    run(1, 200000, 0.3, nb, false);  // one long row, split
    run(5000, 3000, 0.1, nb, false);
    run(3000, 4099, 0.5, nb, false);
    run(1000, 8192, 1.0, nb, false);  // batch 8: x in shared memory on dense rows
  }
  // x must be aligned to one column's pack: an offset pointer is refused by name.
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.5, 0}, 4, 64, 1);
  auto da = gpu::upload_macko(encode_macko(m));
  gpu::DeviceBuffer<half> x(64 * 8 + 8);
  gpu::DeviceBuffer<half> y(4 * 8);
  macko::Schedule s = policy(4, 64, 0.5, 8);
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(da, x.get() + 1, y.get(), 1.f, 0.f, s)),
                      Catch::Contains("aligned to 16 bytes"));
  // x in shared memory larger than a block allows (cols x batch values) is refused, not truncated.
  const auto w = analysis::generate<half>({analysis::Pattern::bernoulli, 0.01, 0}, 2, 30000, 3);
  auto dw = gpu::upload_macko(encode_macko(w));
  gpu::DeviceBuffer<half> xw(30000 * 8);
  gpu::DeviceBuffer<half> yw(2 * 8);
  s = {.x_shared = true, .batch = 8, .warps_per_block = 16};
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(dw, xw.get(), yw.get(), 1.f, 0.f, s)),
                      Catch::Contains("x_shared") && Catch::Contains("batch 8"));
  // A batch not built for these delta bits is refused by name.
  auto d2 = gpu::upload_macko(encode_macko(m, MackoParams{2}));
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(d2, x.get(), y.get(), 1.f, 0.f, macko::Schedule{.batch = 4})),
                      Catch::Contains("batch=4") && Catch::Contains("2-bit deltas"));
}

TEST_CASE("MACKO kernel: fixed edge cases, the policy's schedules", "[gpu][macko]") {
  // The policy's schedule for the shape, or one warp per row (x through L1) split over `splits` warps.
  auto run = [](std::int64_t rows, std::int64_t cols, double d, int db, bool wide, int splits = 0) {
    macko::Schedule s = policy(rows, cols, d, 1, db);
    if (splits > 0) s = {.row_splits = splits, .warps_per_block = 4 * splits};
    check_case<half, half>(Case{rows, cols, {analysis::Pattern::bernoulli, d, 0}, 1234, db, s, false, wide, 1.0f, 0.0f});
  };
  run(1, 1, 1.0, 4, false);          // one element
  run(37, 100, 0.0, 4, false);       // all-zero matrix: every output must be written (0)
  run(33, 1000, 1.0, 4, true);       // density 1, rows % 32 != 0, 64-bit row pointers
  run(1, 200000, 0.3, 4, false);     // a single very long row
  run(3, 70000, 0.001, 2, false);    // very sparse wide rows: padding dominates
  run(1000, 64, 0.5, 1, false);
  run(1000, 64, 0.5, 8, false);
  run(1000, 5000, 0.5, 4, false);    // x in shared memory, cols >= rows
  run(2200, 49157, 0.5, 4, false);   // x too wide for shared memory: rows split over 2 warps
  run(20, 49157, 0.5, 4, false);     // few long rows: each over many warps of the grid
  run(5001, 4500, 0.5, 4, false);    // tall: 4-warp blocks
  run(9504, 7168, 0.16, 4, false);   // tall, 7168 columns: 12-warp blocks where they do not add rows
  run(3001, 700, 0.3, 4, false);     // short rows: two rows per warp
  run(8000, 6000, 0.15, 4, false);   // low density through L1: 4 elements per lane
  run(3400, 20000, 0.5, 4, false);   // a short last round: rows split over 2 warps, x in shared memory
  run(1, 200000, 0.3, 4, false, 2);  // the long row split over 2 warps
  run(33, 1000, 1.0, 4, true, 2);    // density 1 split over 2 warps, 64-bit row pointers
  run(37, 100, 0.0, 4, false, 2);    // all-zero: every part is empty, every output still written
  // Persistent grid of one warp per block and one block per SM: every warp owns dozens of rows in
  // turn, empty rows included (d = 0.01 on 64 columns leaves most rows empty).
  auto run_pipe = [](std::int64_t rows, std::int64_t cols, double d, int lane_elems, bool wide) {
    const macko::Schedule s{.lane_elems = lane_elems, .warps_per_block = 1, .blocks_per_sm = 1};
    check_case<half, half>(Case{rows, cols, {analysis::Pattern::bernoulli, d, 0}, 99, 4, s, false, wide, 2.0f, -0.75f});
  };
  run_pipe(5000, 1000, 0.5, 8, false);
  run_pipe(5000, 64, 0.01, 8, true);
  run_pipe(3000, 3000, 0.1, 4, false);
}

TEST_CASE("MACKO kernel: grid splits, one matrix launched again and again", "[gpu][macko]") {
  // The arrival counters must be back at 0 after every launch: one upload, many launches with
  // different split counts (more parts than split units leaves parts empty), each bit-exact.
  for (const auto& [rows, cols, d] : {std::tuple{1, 65536, 0.5}, std::tuple{1, 1048576, 0.3}, std::tuple{33, 100000, 0.5},
                                      std::tuple{8, 4096, 0.5}, std::tuple{64, 8192, 0.1}, std::tuple{5, 3000, 0.0},
                                      std::tuple{2048, 700, 1.0}, std::tuple{3, 70000, 0.001}}) {
    const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, d, 0}, rows, cols, 4242);
    const Macko<half> a = encode_macko(m, MackoParams{4});
    auto da = gpu::upload_macko(a);
    std::mt19937_64 rng(rows * 7 + cols);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<half> x(static_cast<std::size_t>(cols)), y0(static_cast<std::size_t>(rows));
    for (auto& v : x) v = half(u(rng));
    for (auto& v : y0) v = half(u(rng));
    gpu::DeviceBuffer<half> dx(x);
    const macko::Schedule planned = policy(rows, cols, d);
    for (const int gs : {planned.grid_splits, 2, 1000, 7, 64, 2}) {
      const macko::Schedule s{.grid_splits = std::min<int>(gs, static_cast<int>(macko::kGridSplitMaxParts / rows))};
      if (s.grid_splits < 2) continue;
      INFO(rows << " x " << cols << " d = " << d << ": " << macko::to_string(s));
      const std::vector<half> want = macko_spmv_model<half, half, half>(a, x, y0, 1.5f, -0.5f, s);
      gpu::DeviceBuffer<half> dy(y0);
      gpu::macko_spmv<half, half>(da, dx.get(), dy.get(), 1.5f, -0.5f, s);
      const std::vector<half> got = dy.download();
      for (std::int64_t r = 0; r < rows; ++r) {
        INFO("row " << r);
        REQUIRE(raw_bits(got[r]) == raw_bits(want[r]));
      }
    }
  }
  // More parts than the scratch limits allow, or a matrix with too many rows, is refused by name.
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.5, 0}, 3000, 64, 1);
  auto da = gpu::upload_macko(encode_macko(m, MackoParams{4}));
  gpu::DeviceBuffer<half> x(64), y(3000);
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(da, x.get(), y.get(), 1.f, 0.f, macko::Schedule{.grid_splits = 2})),
                      Catch::Contains("gsplits=2") && Catch::Contains("serve at most"));
}

TEST_CASE("MACKO kernel: grid splits on two streams at once and from a CUDA graph", "[gpu][macko]") {
  // One matrix, two vectors: both launches' parts and arrival counters are live at once
  // (proptests/stream_safety.hpp); the graph clears its counters itself.
  constexpr std::int64_t rows = 33, cols = 100000;
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.5, 0}, rows, cols, 77);
  const auto da = std::make_shared<gpu::DeviceMacko<half>>(gpu::upload_macko(encode_macko(m, MackoParams{4})));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto make_job = [&](const char* name, int splits) {
    std::vector<half> x(static_cast<std::size_t>(cols));
    for (auto& v : x) v = half(u(rng));
    auto dx = std::make_shared<gpu::DeviceBuffer<half>>(x);
    auto dy = std::make_shared<gpu::DeviceBuffer<half>>(static_cast<std::size_t>(rows) * gpu_props::kStreamSlots);
    const macko::Schedule s{.grid_splits = splits};
    return gpu_props::StreamJob{
        name,
        [da, dx, dy, s, rows = rows](cudaStream_t st, int slot) {
          gpu::macko_spmv<half, half>(*da, dx->get(), gpu_props::slot_ptr(dy->get(), rows, slot), 1.f, 0.f, s, st);
        },
        [dy, rows = rows](int slot) { return gpu_props::slot_bytes(dy->get(), rows, slot); }};
  };
  const gpu_props::StreamJob j0 = make_job("64 grid splits", 64), j1 = make_job("100 grid splits", 100);
  const gpu_props::StreamJob larger = make_job("1000 grid splits", 1000);
  REQUIRE(gpu_props::check_streams_and_graph(j0, j1, [&](cudaStream_t st) { larger.launch(st, 0); }) == "");
}

TEST_CASE("MACKO kernel: x in shared memory", "[gpu][macko]") {
  // Schedule::x_shared (persistent grid): many rows per warp, odd column counts (the copy's tail),
  // a long row, and the all-zero matrix; swizzled too, on N:M rows.
  auto run_xs = [](std::int64_t rows, std::int64_t cols, double d, int lane_elems, int splits, bool swizzle) {
    const macko::Schedule s{.lane_elems = lane_elems, .row_splits = splits, .x_shared = true, .x_swizzle = swizzle,
                            .warps_per_block = 8};
    const auto kind = swizzle ? analysis::Pattern::nm_2_4 : analysis::Pattern::bernoulli;
    check_case<half, half>(Case{rows, cols, {kind, d, 0}, 555, 4, s, false, false, 1.0f, 0.5f});
  };
  run_xs(20000, 1001, 0.1, 4, 1, false);
  run_xs(5000, 4099, 0.5, 8, 1, false);
  run_xs(2, 60000, 0.3, 8, 1, false);
  run_xs(37, 100, 0.0, 4, 1, false);
  run_xs(3000, 4099, 0.5, 8, 1, true);
  run_xs(3000, 1001, 0.5, 4, 1, true);
  run_xs(500, 20000, 0.5, 8, 2, true);
  // The policy on matrices whose gathers collide (N:M): x in shared memory, swizzled; exact.
  for (const auto kind : {analysis::Pattern::nm_2_4, analysis::Pattern::nm_4_8, analysis::Pattern::exact_nnz})
    for (const auto& [rows, cols] :
         {std::pair<std::int64_t, std::int64_t>{3000, 4099}, {300, 40000}, {20000, 1000}, {12000, 10000}}) {
      const auto m = analysis::generate<half>({kind, 0.5, 0}, rows, cols, 557);
      const macko::Schedule s = macko::choose_schedule(macko::matrix_stats(encode_macko(m)), gpu::device_facts());
      check_case<half, half>(Case{rows, cols, {kind, 0.5, 0}, 557, 4, s, false, false, 1.0f, 0.5f});
    }
  // An x larger than a block's shared memory is refused by name, not truncated.
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.01, 0}, 2, 200000, 3);
  auto da = gpu::upload_macko(encode_macko(m));
  gpu::DeviceBuffer<half> x(200000);
  gpu::DeviceBuffer<half> y(2);
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(da, x.get(), y.get(), 1.f, 0.f, macko::Schedule{.x_shared = true})),
                      Catch::Contains("x_shared") && Catch::Contains("200000 columns"));
}

TEST_CASE("MACKO kernel rejects a schedule that is not compiled", "[gpu][macko]") {
  const auto m = analysis::generate<half>({analysis::Pattern::bernoulli, 0.5, 0}, 4, 64, 1);
  auto da = gpu::upload_macko(encode_macko(m));
  gpu::DeviceBuffer<half> x(64);
  gpu::DeviceBuffer<half> y(4);
  const macko::Schedule s{.unroll_blocks = 8, .lane_accumulators = 8};
  REQUIRE_FALSE(macko::is_compiled(s, 4));
  REQUIRE_THROWS_WITH((gpu::macko_spmv<half, half>(da, x.get(), y.get(), 1.f, 0.f, s)),
                      Catch::Contains("is not compiled") && Catch::Contains("acc=8"));
}
