// GPU EC-SpMV == its warp model (reference/ec/ec_spmv_model.hpp), bit for bit, in y and in the
// partial sums, for every compiled variant (gpu::kEcVariants): pieces clipped to 1-4 steps or not,
// alpha values, beta = 0 with y poisoned with NaN, fp16/bf16 in, 16-bit and fp32 out; the model
// also stays within the oracle's bound. Fresh random cases every run (rapidcheck prints the seed).
// Also the edge cases of docs/ec-spmv.md's test plan, and what upload_ec refuses. Matrices come
// with hand-made extractions (G = 2/4/8 units sharing whole steps of columns, the rest G = 1),
// laid out by ec_layout_blocks.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/ec/ec_spmv.hpp"
#include "proptests/ec/ec_cases.hpp"
#include "proptests/gpu_props_common.hpp"
#include "proptests/stream_safety.hpp"
#include "reference/ec/ec_format.hpp"
#include "reference/ec/ec_schedule.hpp"
#include "reference/ec/ec_spmv_model.hpp"
#include "reference/sparse/spmv_check.hpp"

#include "reference/ec/ec_encode.hpp"

using namespace warpsparse;

namespace {

using gpu_props::raw_bits;

// A recipe (ec_cases) and how the kernel is run on it.
struct Case : ec_cases::Recipe {
  Case(ec_cases::Recipe r = {}) : Recipe(std::move(r)) {}
  float alpha = 1, beta = 0;
};

void showValue(const Case& c, std::ostream& os) {
  ec_cases::showValue(c, os);
  os << " alpha=" << c.alpha << " beta=" << c.beta;
}

using ec_cases::Built;
using ec_cases::plan_of;

// The matrix of a case (ec_cases::build, never with specials: NaN payloads differ between host and
// GPU), its values drawn as this test always has (one N(0, 1) stream).
template <class T>
Built<T> build(const ec_cases::Recipe& c) {
  return ec_cases::build<T>(c, ec_cases::Values::one_stream);
}

// Runs the kernels and the model on one case: "" or the first differing bit (partials, then y), or
// the model leaving the oracle's bound. `ran` (optional) gets the variants the case ran.
template <class T, class TY>
std::string check_case(const Case& c, std::vector<int>* ran = nullptr) {
  const Built<T> b = build<T>(c);
  const Ec<T>& a = b.a;
  const ec::Plan plan = plan_of(a, c);
  std::mt19937_64 rng(c.seed ^ 0x2545f4914f6cdd1dull);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> x(static_cast<std::size_t>(c.cols));
  for (auto& v : x) v = from_float<T>(u(rng));
  std::vector<TY> y0(static_cast<std::size_t>(c.rows));
  for (auto& v : y0) v = from_float<TY>(c.beta == 0.0f ? std::nanf("") : u(rng));  // beta == 0 must not read y

  std::vector<float> model_partials;
  const std::vector<TY> model = ec_spmv_model<T, T, TY>(a, plan, x, y0, c.alpha, c.beta, nullptr, &model_partials);

  const gpu::DeviceEc<T> da = gpu::upload_ec(a, plan);
  gpu::DeviceBuffer<T> dx(x);
  gpu::DeviceBuffer<TY> dy(y0);
  gpu::DeviceBuffer<float> dpartials(static_cast<std::size_t>(da.partials));
  gpu::ec_spmv<T, TY>(da, dx.get(), dy.get(), c.alpha, c.beta, nullptr, dpartials.get());
  WS_CUDA(cudaDeviceSynchronize());
  const std::vector<TY> got = dy.download();
  const std::vector<float> partials = dpartials.download();

  auto where = [&](std::int64_t i) {
    // The piece of partial i: pieces are in partial order.
    const auto it = std::upper_bound(plan.pieces.begin(), plan.pieces.end(), static_cast<std::uint32_t>(i),
                                     [](std::uint32_t q, const ec::Piece& pc) { return q < pc.partial; });
    const ec::Piece& pc = *(it - 1);
    return "piece " + std::to_string(it - 1 - plan.pieces.begin()) + " (" + a.sets[pc.set].name() + ", " +
           std::to_string(a.delta_bits) + "-bit, steps " + std::to_string(pc.step_begin) + ".." + std::to_string(pc.step_end) +
           ")";
  };
  if (partials.size() != model_partials.size()) return "the kernel has " + std::to_string(partials.size()) + " partials";
  for (std::size_t i = 0; i < partials.size(); ++i)
    if (raw_bits(partials[i]) != raw_bits(model_partials[i]))
      return "partial " + std::to_string(i) + " of " + where(static_cast<std::int64_t>(i)) + ": kernel " +
             std::to_string(partials[i]) + " != model " + std::to_string(model_partials[i]);
  for (std::int64_t r = 0; r < c.rows; ++r)
    if (raw_bits(got[r]) != raw_bits(model[r]))
      return "row " + std::to_string(r) + ": kernel " + std::to_string(to_float(got[r])) + " != model " +
             std::to_string(to_float(model[r]));

  const SpmvCheck chk = check_spmv<T, T, TY>(decode_ec(a), x, y0, c.alpha, c.beta, model,
                                             [&](std::int64_t r) { return ec_chain_length(a, plan, r); });
  if (!chk.ok()) return "model vs oracle: " + chk.first_failure;

  if (ran)
    for (const EcSet<T>& s : a.sets)
      if (s.steps() > 0) ran->push_back(gpu::ec_variant(s.group, s.vec, a.delta_bits));
  return "";
}

// A random case; with `variant` >= 0 one that is sure to run that row of gpu::kEcVariants.
rc::Gen<Case> gen_case(int variant) {
  return rc::gen::exec([variant] {
    Case c;
    c.rows = *rc::gen::inRange<std::int64_t>(0, 90).as("rows");
    c.cols = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 900),
                             rc::gen::element<std::int64_t>(1, 127, 128, 129, 256, 257, 4100, 65537))
                  .as("cols");
    if (c.cols > 5000) c.rows = std::min<std::int64_t>(c.rows, 4);
    c.density = *rc::gen::element(1.0, 0.9, 0.5, 0.2, 0.05, 0.01, 0.001, 0.0).as("density");
    c.delta_bits = *rc::gen::element(4, 8).as("delta bits");
    c.units = *rc::gen::container<std::vector<int>>(*rc::gen::inRange(0, 5), rc::gen::element(2, 4, 8)).as("units");
    c.unit_density = *rc::gen::element(1.0, 0.7, 0.3, 0.08).as("unit density");
    c.empty_rows = *rc::gen::element(0.0, 0.0, 0.3).as("empty rows");
    c.last_col = *rc::gen::arbitrary<bool>().as("last column");
    c.clip = *rc::gen::container<std::vector<int>>(5, rc::gen::element(0, 0, 1, 2, 3, 4)).as("clip");
    c.alpha = *rc::gen::element(1.0f, -0.5f, 2.0f, 0.1f).as("alpha");
    c.beta = *rc::gen::element(0.0f, 0.0f, 1.0f, -0.75f).as("beta");
    c.seed = *rc::gen::arbitrary<std::uint64_t>().as("seed");
    c.encoder = variant < 0 && *rc::gen::weightedElement<bool>({{3, false}, {1, true}}).as("encode_ec");
    if (variant >= 0) {
      const gpu::EcVariant v = gpu::kEcVariants[static_cast<std::size_t>(variant)];
      c.delta_bits = v.delta_bits;
      if (v.group >= 2) {  // a dense unit of G rows fills at least one step
        c.rows = std::max<std::int64_t>(c.rows, v.group + *rc::gen::inRange<std::int64_t>(0, 20));
        c.cols = std::max<std::int64_t>(c.cols, 128);
        c.cols = std::min<std::int64_t>(c.cols, 4100);  // more rows now: keep the model quick
        c.units.insert(c.units.begin(), v.group);
        c.unit_density = 1.0;
      } else if (v.vec > 1) {  // G = 1 long: a dense row of at least one step (256 columns)
        c.rows = std::max<std::int64_t>(c.rows, 1);
        c.cols = std::max<std::int64_t>(c.cols, 256);
        c.units.clear();
        c.density = 1.0;
        c.empty_rows = 0.0;
      } else {  // G = 1 short: row 0 holds the last column, nothing else is long
        c.rows = std::max<std::int64_t>(c.rows, 1);
        c.cols = std::min<std::int64_t>(c.cols, 900);
        c.units.clear();
        c.density = std::min(c.density, 0.05);
        c.empty_rows = 0.0;
        c.last_col = true;
      }
    }
    return c;
  });
}

// A fixed case for two of the four (values, output) pairs; `other` picks the other two, so a case
// run with both values of `other` covers all four without doubling the launches.
void check_types(const Case& c, bool other) {
  if (!other) {
    CHECK(check_case<half, half>(c) == "");
    CHECK(check_case<bfloat16, float>(c) == "");
  } else {
    CHECK(check_case<half, float>(c) == "");
    CHECK(check_case<bfloat16, bfloat16>(c) == "");
  }
}

constexpr ec_cases::Fixed fixed{4242};

}  // namespace

TEST_CASE("EC kernels equal their warp model bit for bit, every compiled variant", "[gpu][ec]") {
  for (int v = 0; v < static_cast<int>(gpu::kEcVariants.size()); ++v) {
    const gpu::EcVariant ev = gpu::kEcVariants[static_cast<std::size_t>(v)];
    INFO("compiled variant " << v << ": G=" << ev.group << " v=" << ev.vec << " b=" << ev.delta_bits);
    rc::prop("fp16 -> fp16, variant " + std::to_string(v), [v] {
      std::vector<int> ran;
      RC_ASSERT((check_case<half, half>(*gen_case(v), &ran)) == "");
      RC_ASSERT(std::find(ran.begin(), ran.end(), v) != ran.end());
    });
    rc::prop("bf16 -> fp32, variant " + std::to_string(v), [v] {
      std::vector<int> ran;
      RC_ASSERT((check_case<bfloat16, float>(*gen_case(v), &ran)) == "");
      RC_ASSERT(std::find(ran.begin(), ran.end(), v) != ran.end());
    });
  }
  rc::prop("fp16 -> fp16", [] { RC_ASSERT((check_case<half, half>(*gen_case(-1))) == ""); });
  rc::prop("fp16 -> fp32", [] { RC_ASSERT((check_case<half, float>(*gen_case(-1))) == ""); });
  rc::prop("bf16 -> bf16", [] { RC_ASSERT((check_case<bfloat16, bfloat16>(*gen_case(-1))) == ""); });
  rc::prop("bf16 -> fp32", [] { RC_ASSERT((check_case<bfloat16, float>(*gen_case(-1))) == ""); });
}

TEST_CASE("EC kernels: edge cases", "[gpu][ec]") {
  for (const int bits : {4, 8})
    for (const int clip : {0, 1, 3})
      for (const bool other : {false, true}) {
        // beta = 0 (y poisoned with NaN) on one pair of types, beta != 0 on the other.
        const float alpha = other ? -0.5f : 1.0f, beta = other ? 0.75f : 0.0f;
        auto run = [&](Case c, const char* what) {
          c.delta_bits = bits;
          c.clip.assign(5, clip);
          c.alpha = alpha;
          c.beta = beta;
          INFO(what << ", " << bits << "-bit deltas, clip " << clip << ", alpha " << alpha << ", beta " << beta);
          check_types(c, other);
        };
        run(fixed(37, 100, 0.0), "empty matrix: no pieces, every output written");
        run(fixed(0, 50, 0.5), "no rows");
        run(fixed(45, 300, 0.3, {}, 1.0, false, 0.4), "empty rows, rows % 32 != 0");
        run(fixed(33, 1001, 0.2, {2, 4, 8}, 0.7), "cols not a multiple of 128 or 256, G = 2/4/8 units");
        run(fixed(3, 65537, 0.01, {2}, 0.3, true), "65537 columns, a nonzero in the last column");
        run(fixed(2, 65537, 1.0, {}, 1.0, true), "65537 columns at d = 1");
        run(fixed(21, 777, 1.0, {8, 8, 4}), "d = 1: units of 8 and 4 rows, the rest G = 1");
        run(fixed(40, 5000, 0.0002, {}, 1.0, true), "d -> 0: at most a few nonzeros per row");
        run(fixed(16, 128, 1.0, {8, 4, 2, 2}), "units of exactly one step");
        run(fixed(20, 3000, 0.0, {2, 4, 8}, 0.08), "sparse units: padding slots for wide gaps");
        run(fixed(1, 1, 1.0), "one element");
        run(fixed(3000, 700, 0.05, {8, 8, 8, 4, 4, 2}), "3000 rows: thousands of pieces and rows");
      }
}

TEST_CASE("EC kernels: one matrix on two streams at once and from a CUDA graph", "[gpu][ec]") {
  // Both launches' partial sums are live at once (proptests/stream_safety.hpp).
  Case c = fixed(2000, 6000, 0.3, {8, 4, 2}, 0.5);
  c.clip.assign(5, 2);
  const Built<half> b = build<half>(c);
  const ec::Plan plan = plan_of(b.a, c);
  const auto da = std::make_shared<gpu::DeviceEc<half>>(gpu::upload_ec(b.a, plan));
  const std::int64_t rows = c.rows;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto make_job = [&](const char* name) {
    std::vector<half> x(static_cast<std::size_t>(c.cols));
    for (auto& v : x) v = half(u(rng));
    auto dx = std::make_shared<gpu::DeviceBuffer<half>>(x);
    auto dy = std::make_shared<gpu::DeviceBuffer<float>>(static_cast<std::size_t>(rows) * gpu_props::kStreamSlots);
    return gpu_props::StreamJob{
        name,
        [da, dx, dy, rows](cudaStream_t st, int slot) {
          gpu::ec_spmv<half, float>(*da, dx->get(), gpu_props::slot_ptr(dy->get(), rows, slot), 1.0f, 0.0f, st);
        },
        [dy, rows](int slot) { return gpu_props::slot_bytes(dy->get(), rows, slot); }};
  };
  const gpu_props::StreamJob j0 = make_job("x0"), j1 = make_job("x1");
  REQUIRE(gpu_props::check_streams_and_graph(j0, j1, [&](cudaStream_t st) { j1.launch(st, 0); }) == "");
}

TEST_CASE("EC kernels: a second launch on the same upload gives the same bits", "[gpu][ec]") {
  Case c = fixed(200, 2000, 0.2, {8, 4, 2}, 0.5);
  c.clip.assign(5, 2);
  const Built<half> b = build<half>(c);
  const ec::Plan plan = plan_of(b.a, c);
  const auto da = gpu::upload_ec(b.a, plan);
  std::vector<half> x(static_cast<std::size_t>(c.cols), half(0.25f));
  for (std::size_t i = 0; i < x.size(); i += 3) x[i] = half(-1.5f);
  gpu::DeviceBuffer<half> dx(x);
  gpu::DeviceBuffer<float> y1(static_cast<std::size_t>(c.rows)), y2(static_cast<std::size_t>(c.rows));
  gpu::ec_spmv<half, float>(da, dx.get(), y1.get(), 1.0f, 0.0f);
  gpu::ec_spmv<half, float>(da, dx.get(), y2.get(), 1.0f, 0.0f);
  WS_CUDA(cudaDeviceSynchronize());
  const std::vector<float> a1 = y1.download(), a2 = y2.download();
  const std::vector<float> model = ec_spmv_model<half, half, float>(b.a, plan, x, {}, 1.0f, 0.0f);
  for (std::size_t r = 0; r < a1.size(); ++r) {
    INFO("row " << r);
    REQUIRE(raw_bits(a1[r]) == raw_bits(model[r]));
    REQUIRE(raw_bits(a2[r]) == raw_bits(model[r]));
  }
}

TEST_CASE("upload_ec refuses a plan that does not fit and a set without a compiled kernel", "[gpu][ec]") {
  const Built<half> b = build<half>(fixed(20, 600, 0.3, {4}));
  ec::Plan plan = ec::make_plan(b.a, std::vector<int>(b.a.sets.size(), 2));
  REQUIRE(!plan.pieces.empty());
  plan.lane_start[5] += 1;
  REQUIRE_THROWS_WITH((gpu::upload_ec(b.a, plan)), Catch::Contains("EC plan does not fit") && Catch::Contains("lane 5"));
  // G = 16 exists only as a host ablation (EcParams::max_group = 16): no kernel.
  SparseRows<half> m;
  m.cols = 128;
  ec::EcExtraction ex;
  ex.rows = 16;
  ex.cols = 128;
  ec::EcUnit unit;
  unit.group = 16;
  for (std::uint32_t r = 0; r < 16; ++r) {
    for (int col = 0; col < 128; ++col) m.push(col, half(1.0f));
    m.end_row();
    unit.rows.push_back(r);
  }
  for (int col = 0; col < 128; ++col) unit.cols.push_back(col);
  ex.blocks.push_back(unit);
  ex.residual.resize(16);
  ec::EcParams p;
  p.max_group = 16;
  const Ec<half> a16 = ec_layout_blocks(m, ex, p);
  REQUIRE_THROWS_WITH((gpu::upload_ec(a16, ec::make_plan(a16, std::vector<int>(a16.sets.size(), 0)))),
                      Catch::Contains("G=16") && Catch::Contains("no compiled kernel"));
}
