// The EC-SpMV warp model (reference/ec/ec_spmv_model.hpp) against the double oracle on the decoded
// matrix, within the fp32 bound of each row's chain (check_spmv with ec_chain_length), without
// emulator faults: fp16/bf16/fp32 values, fp16/bf16/fp32 outputs, 4- and 8-bit deltas, pieces
// clipped to 1-4 steps or not at all, alpha/beta including beta = 0 with y_old NaN-poisoned. Also:
// the plan covers every stored slot once with the walked lane starts and lists each partial once;
// ec_plan_fault catches a broken plan; and the edge cases of docs/ec-spmv.md's test plan.
// Matrices come with hand-made extractions (G = 2/4/8 units of rows sharing whole steps of
// columns, everything else G = 1), laid out by ec_layout_blocks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "proptests/ec/ec_cases.hpp"
#include "proptests/prop_support.hpp"
#include "proptests/spmv_cases.hpp"
#include "reference/ec/ec_format.hpp"
#include "reference/ec/ec_schedule.hpp"
#include "reference/ec/ec_spmv_model.hpp"
#include "reference/sparse/spmv_check.hpp"

#include "reference/ec/ec_encode.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

// The matrices, plans and fixed recipes are ec_cases'; this test's values may be NaN / +-Inf.
using EcRecipe = ec_cases::Recipe;
using ec_cases::Built;
using ec_cases::plan_of;

template <class T>
Built<T> build(const EcRecipe& rec) {
  return ec_cases::build<T>(rec, ec_cases::Values::fresh_per_value);
}

rc::Gen<EcRecipe> gen_recipe() {
  using namespace rc;
  return gen::exec([] {
    EcRecipe r;
    r.rows = *gen::inRange<std::int64_t>(0, 70).as("rows");
    r.cols = *gen::oneOf(gen::inRange<std::int64_t>(1, 800), gen::element<std::int64_t>(1, 127, 128, 129, 255, 256, 257, 4100, 65537))
                  .as("cols");
    if (r.cols > 5000) r.rows = std::min<std::int64_t>(r.rows, 4);
    r.density = *gen::element(1.0, 0.9, 0.5, 0.2, 0.05, 0.01, 0.001, 0.0).as("density");
    r.delta_bits = *gen::element(4, 8).as("delta bits");
    r.units = *gen::container<std::vector<int>>(*gen::inRange(0, 5), gen::element(2, 4, 8)).as("units");
    r.unit_density = *gen::element(1.0, 0.7, 0.3, 0.08).as("unit density");
    r.empty_rows = *gen::element(0.0, 0.0, 0.3).as("empty rows");
    r.last_col = *gen::arbitrary<bool>().as("last column");
    r.specials = *gen::weightedElement<bool>({{5, false}, {1, true}}).as("specials");
    r.clip = *gen::container<std::vector<int>>(5, gen::element(0, 0, 1, 2, 3, 4)).as("clip");
    r.encoder = *gen::weightedElement<bool>({{3, false}, {1, true}}).as("encode_ec");
    r.seed = *gen::arbitrary<std::uint64_t>().as("seed");
    return r;
  });
}

struct Epilogue {
  float alpha = 1, beta = 0;
};
Epilogue gen_epilogue() {
  Epilogue e;
  e.alpha = *rc::gen::element(1.0f, -0.5f, 2.0f, 0.1f).as("alpha");
  e.beta = *rc::gen::element(0.0f, 0.0f, 1.0f, -0.75f).as("beta");
  return e;
}

// The model on one matrix and plan against the oracle; also the loads it counts (every value and
// every slot's x once, every delta byte once but a shared nibble byte twice). "" or the failure.
template <class T, class TY>
std::string model_case(const SparseRows<T>& m, const Ec<T>& a, const ec::Plan& plan, float alpha, float beta,
                       std::uint64_t seed) {
  using TX = T;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<TX> x(static_cast<std::size_t>(a.cols));
  for (auto& v : x) v = from_float<TX>(u(rng));
  std::vector<TY> y_old(static_cast<std::size_t>(a.rows));
  for (auto& v : y_old) v = from_float<TY>(beta == 0.0f ? std::nanf("") : u(rng));  // beta == 0 must not read y
  SpmvTraffic tr;
  std::vector<TY> y;
  try {
    y = ec_spmv_model<T, TX, TY>(a, plan, x, y_old, alpha, beta, &tr);
  } catch (const warp::WarpFault& f) {
    return std::string("EC emulator fault: ") + f.what();
  }
  const SparseRows<T> dec = decode_ec(a);
  if (dec.row_ptr != m.row_ptr || dec.col != m.col) return "decode_ec(a) does not give the matrix back";
  const SpmvCheck c = check_spmv<T, TX, TY>(dec, x, y_old, alpha, beta, y, [&](std::int64_t r) { return ec_chain_length(a, plan, r); });
  if (!c.ok()) {
    dump<T, TX, TY>(dec, x, y, y_old, alpha, beta, "EC model vs oracle: " + c.first_failure);
    return "model vs oracle: " + c.first_failure;
  }
  std::uint64_t value_bytes = 0, delta_bytes = 0, slots = 0;
  for (const EcSet<T>& s : a.sets) {
    value_bytes += s.values.size() * sizeof(T);
    delta_bytes += s.vec * a.delta_bits == 4 ? static_cast<std::uint64_t>(s.slots()) : s.deltas.size();
    slots += static_cast<std::uint64_t>(s.slots());
  }
  if (tr.values.bytes_requested != value_bytes || tr.deltas.bytes_requested != delta_bytes ||
      tr.x.bytes_requested != slots * sizeof(TX))
    return "traffic: values " + std::to_string(tr.values.bytes_requested) + " / " + std::to_string(value_bytes) + ", deltas " +
           std::to_string(tr.deltas.bytes_requested) + " / " + std::to_string(delta_bytes) + ", x " +
           std::to_string(tr.x.bytes_requested) + " / " + std::to_string(slots * sizeof(TX));
  if (tr.y.bytes_requested != static_cast<std::uint64_t>(a.rows) * sizeof(TY) * (beta != 0.0f ? 2 : 1))
    return "traffic: y " + std::to_string(tr.y.bytes_requested);
  return "";
}

template <class T, class TY>
void model_property() {
  const EcRecipe rec = *gen_recipe().as("recipe");
  const Epilogue ep = gen_epilogue();
  const Built<T> b = build<T>(rec);
  const ec::Plan plan = plan_of(b.a, rec);
  int largest = 0;  // the largest G that holds steps (0: no pieces)
  for (const EcSet<T>& s : b.a.sets)
    if (s.steps() > 0) largest = std::max(largest, s.group);
  RC_TAG("largest G " + std::to_string(largest));
  RC_ASSERT((model_case<T, TY>(b.m, b.a, plan, ep.alpha, ep.beta, rec.seed ^ 0x9e3779b97f4a7c15ull)) == "");
}

// The plan, checked from its definition rather than by ec_plan_fault: every step of every set is
// in exactly one piece, inside the piece's block; pieces are at most the clip length and a
// block's pieces differ by at most one step; each lane_start is the column the lane has reached;
// row_parts lists each (piece, k) once, under row rows[block·G + k], in piece order.
template <class T>
std::string plan_definition_fault(const Ec<T>& a, const ec::Plan& p) {
  std::vector<std::vector<int>> cover(a.sets.size());
  for (std::size_t si = 0; si < a.sets.size(); ++si) cover[si].assign(static_cast<std::size_t>(a.sets[si].steps()), 0);
  std::vector<std::pair<std::uint32_t, int>> partial_of;  // (piece, k) of each partial index
  std::vector<std::int64_t> seen(static_cast<std::size_t>(p.partials), -1);
  for (std::size_t q = 0; q < p.pieces.size(); ++q) {
    const ec::Piece& pc = p.pieces[q];
    if (pc.set >= a.sets.size()) return "piece " + std::to_string(q) + ": no set " + std::to_string(pc.set);
    const EcSet<T>& s = a.sets[pc.set];
    if (pc.block >= s.blocks()) return "piece " + std::to_string(q) + ": no block";
    if (pc.step_begin < s.step_ptr[pc.block] || pc.step_end > s.step_ptr[pc.block + 1] || pc.step_begin >= pc.step_end)
      return "piece " + std::to_string(q) + " leaves its block";
    if (p.clip_steps[pc.set] > 0 && pc.step_end - pc.step_begin > static_cast<std::uint32_t>(p.clip_steps[pc.set]))
      return "piece " + std::to_string(q) + " is longer than the clip";
    for (std::uint32_t st = pc.step_begin; st < pc.step_end; ++st) ++cover[pc.set][st];
    for (int k = 0; k < s.group; ++k) {
      const std::int64_t idx = std::int64_t{pc.partial} + k;
      if (idx >= p.partials || seen[static_cast<std::size_t>(idx)] >= 0) return "partial " + std::to_string(idx) + " reused";
      seen[static_cast<std::size_t>(idx)] = static_cast<std::int64_t>(q);
    }
    // The lanes' running columns: walk the block from its bases to the piece.
    const std::int64_t b0 = s.step_ptr[pc.block];
    for (int l = 0; l < ec::kLanes; ++l) {
      std::int64_t c = s.bases[std::size_t{pc.block} * ec::kLanes + static_cast<std::size_t>(l)];
      for (std::int64_t j = 0; j < (std::int64_t{pc.step_begin} - b0) * s.vec; ++j)
        c += s.delta(b0 * s.step_slots() + ec::slot_position(j, l, s.vec), a.delta_bits);
      if (p.lane_start[q * ec::kLanes + static_cast<std::size_t>(l)] != c) return "piece " + std::to_string(q) + " lane start";
    }
  }
  for (std::size_t si = 0; si < a.sets.size(); ++si)
    for (std::size_t st = 0; st < cover[si].size(); ++st)
      if (cover[si][st] != 1) return "set " + std::to_string(si) + " step " + std::to_string(st) + " covered " + std::to_string(cover[si][st]) + " times";
  // Piece lengths within a block differ by at most one.
  for (std::size_t q = 1; q < p.pieces.size(); ++q) {
    const ec::Piece &x = p.pieces[q - 1], &y = p.pieces[q];
    if (x.set == y.set && x.block == y.block) {
      const auto lx = x.step_end - x.step_begin, ly = y.step_end - y.step_begin;
      if (ly > lx || lx - ly > 1) return "pieces " + std::to_string(q - 1) + ", " + std::to_string(q) + " are unbalanced";
    }
  }
  std::vector<int> listed(static_cast<std::size_t>(p.partials), 0);
  for (std::int64_t r = 0; r < a.rows; ++r) {
    std::int64_t last = -1;
    for (std::uint32_t k = p.row_part_ptr[r]; k < p.row_part_ptr[r + 1]; ++k) {
      const std::uint32_t idx = p.row_parts[k];
      if (idx >= p.partials) return "row " + std::to_string(r) + " lists partial " + std::to_string(idx);
      ++listed[idx];
      const std::int64_t q = seen[idx];
      if (q < 0) return "partial " + std::to_string(idx) + " is stored by no piece";
      const ec::Piece& pc = p.pieces[static_cast<std::size_t>(q)];
      const EcSet<T>& s = a.sets[pc.set];
      if (s.rows[std::size_t{pc.block} * s.group + (idx - pc.partial)] != r) return "partial " + std::to_string(idx) + " is not row " + std::to_string(r) + "'s";
      if (q < last) return "row " + std::to_string(r) + " is not in piece order";
      last = q;
    }
  }
  for (std::size_t i = 0; i < listed.size(); ++i)
    if (listed[i] != 1) return "partial " + std::to_string(i) + " listed " + std::to_string(listed[i]) + " times";
  return "";
}

template <class T>
void plan_property() {
  const EcRecipe rec = *gen_recipe().as("recipe");
  const Built<T> b = build<T>(rec);
  const ec::Plan p = plan_of(b.a, rec);
  RC_ASSERT(plan_definition_fault(b.a, p) == "");
  RC_ASSERT(!ec_plan_fault(b.a, p).has_value());
  if (p.pieces.empty()) return;
  // ec_plan_fault (which upload_ec relies on) catches each kind of damage.
  std::mt19937_64 rng(rec.seed);
  const std::size_t q = rng() % p.pieces.size();
  ec::Plan bad = p;
  bad.lane_start[q * ec::kLanes + rng() % ec::kLanes] += 1;
  RC_ASSERT(ec_plan_fault(b.a, bad).has_value());
  bad = p;
  bad.pieces.erase(bad.pieces.begin() + static_cast<std::ptrdiff_t>(q));
  bad.lane_start.erase(bad.lane_start.begin() + static_cast<std::ptrdiff_t>(q * ec::kLanes),
                       bad.lane_start.begin() + static_cast<std::ptrdiff_t>((q + 1) * ec::kLanes));
  RC_ASSERT(ec_plan_fault(b.a, bad).has_value());
  bad = p;
  bad.pieces[q].partial += 1;
  RC_ASSERT(ec_plan_fault(b.a, bad).has_value());
  bad = p;
  bad.pieces[q].step_end += 1;
  RC_ASSERT(ec_plan_fault(b.a, bad).has_value());
  // Two partials of one row swapped (out of order), or a partial moved to another row.
  for (std::int64_t r = 0; r < b.a.rows; ++r)
    if (p.row_part_ptr[r + 1] - p.row_part_ptr[r] >= 2) {
      bad = p;
      std::swap(bad.row_parts[p.row_part_ptr[r]], bad.row_parts[p.row_part_ptr[r] + 1]);
      RC_ASSERT(ec_plan_fault(b.a, bad).has_value());
      break;
    }
  for (std::int64_t r = 0; r + 1 < b.a.rows; ++r)
    if (p.row_part_ptr[r + 1] > p.row_part_ptr[r]) {
      bad = p;
      ++bad.row_part_ptr[r + 1];  // row r also takes the next listed partial, another row's
      RC_ASSERT(ec_plan_fault(b.a, bad).has_value());
      break;
    }
}

// Every value-type pair, both delta widths and clip lengths {none, 1, 3} on one matrix.
template <class T>
void edge_all(const EcRecipe& base, const char* what) {
  for (const int bits : {4, 8})
    for (const int clip : {0, 1, 3}) {
      EcRecipe rec = base;
      rec.delta_bits = bits;
      rec.clip.assign(5, clip);
      const Built<T> b = build<T>(rec);
      const ec::Plan plan = plan_of(b.a, rec);
      INFO(what << ", " << bits << "-bit deltas, clip " << clip);
      REQUIRE(plan_definition_fault(b.a, plan) == "");
      for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{-0.5f, 0.75f}}) {
        if constexpr (std::is_same_v<T, float>) {
          CHECK(model_case<T, float>(b.m, b.a, plan, alpha, beta, 7) == "");
        } else {
          CHECK(model_case<T, T>(b.m, b.a, plan, alpha, beta, 7) == "");
          CHECK(model_case<T, float>(b.m, b.a, plan, alpha, beta, 7) == "");
        }
      }
    }
}

void edge_cases_for_all_types(const EcRecipe& rec, const char* what) {
  edge_all<half>(rec, what);
  edge_all<bfloat16>(rec, what);
  edge_all<float>(rec, what);
}

constexpr ec_cases::Fixed recipe{12345};

}  // namespace

TEST_CASE("EC warp model equals the oracle within the fp32 bound, without faults") {
  ws_prop("fp16 values, fp16 out", 300, [] { model_property<half, half>(); });
  ws_prop("fp16 values, fp32 out", 200, [] { model_property<half, float>(); });
  ws_prop("bf16 values, bf16 out", 200, [] { model_property<bfloat16, bfloat16>(); });
  ws_prop("bf16 values, fp32 out", 150, [] { model_property<bfloat16, float>(); });
  ws_prop("fp32 values, fp32 out", 200, [] { model_property<float, float>(); });
}

TEST_CASE("EC plan covers every stored slot once, with the walked lane starts and each partial listed once") {
  ws_prop("fp16 plans", 300, [] { plan_property<half>(); });
  ws_prop("fp32 plans", 100, [] { plan_property<float>(); });
}

TEST_CASE("EC warp model: edge cases") {
  edge_cases_for_all_types(recipe(37, 100, 0.0), "empty matrix (no pieces, every output written)");
  edge_cases_for_all_types(recipe(0, 50, 0.5), "no rows");
  edge_cases_for_all_types(recipe(45, 300, 0.3, {}, 1.0, false, 0.4), "empty rows, rows % 32 != 0");
  edge_cases_for_all_types(recipe(33, 1001, 0.2, {2, 4, 8}, 0.7), "cols not a multiple of 128 or 256, G = 2/4/8 units");
  {
    const Built<half> b = build<half>(recipe(3, 65537, 0.01, {2}, 0.3, true));
    REQUIRE(b.a.base_bits() == 32);
    REQUIRE(b.m.col[static_cast<std::size_t>(b.m.row_ptr[1] - 1)] == 65536);  // row 0's last column
  }
  edge_cases_for_all_types(recipe(3, 65537, 0.01, {2}, 0.3, true), "65537 columns, a nonzero in the last column");
  edge_cases_for_all_types(recipe(2, 65537, 1.0, {}, 1.0, true), "65537 columns at d = 1");
  edge_cases_for_all_types(recipe(21, 777, 1.0, {8, 8, 4}), "d = 1: units of 8 and 4 rows, the rest G = 1");
  edge_cases_for_all_types(recipe(40, 5000, 0.0002, {}, 1.0, true), "d -> 0: at most a few nonzeros per row");
  edge_cases_for_all_types(recipe(16, 128, 1.0, {8, 4, 2, 2}), "units of exactly one step");
  edge_cases_for_all_types(recipe(20, 3000, 0.0, {2, 4, 8}, 0.08), "sparse units: padding slots for wide gaps");
  edge_cases_for_all_types(recipe(1, 1, 1.0), "one element");
  // One nonzero per row (d -> 0): each row a short block of one column and 31 repeats.
  {
    EcRecipe r = recipe(50, 997, 0.0);
    for (std::int64_t rows : {1, 33}) {
      r.rows = rows;
      Built<half> b = build<half>(r);
      SparseRows<half> m;
      m.cols = r.cols;
      for (std::int64_t i = 0; i < rows; ++i) {
        m.push(static_cast<std::int32_t>((i * 389) % r.cols), half(1.0f + static_cast<float>(i)));
        m.end_row();
      }
      ec::EcExtraction ex;
      ex.rows = rows;
      ex.cols = r.cols;
      for (std::int64_t i = 0; i < rows; ++i) ex.residual.push_back({m.col[static_cast<std::size_t>(i)]});
      const Ec<half> a = ec_layout_blocks(m, ex, {});
      REQUIRE(a.sets.back().blocks() == rows);
      const ec::Plan plan = ec::make_plan(a, std::vector<int>(a.sets.size(), 1));
      CHECK(model_case<half, half>(m, a, plan, 1.0f, 0.0f, 3) == "");
      CHECK(model_case<half, float>(m, a, plan, 2.0f, -1.0f, 3) == "");
    }
  }
  // The plan of a device's clipping rule (C_G from the H100's facts) is a plan like any other.
  {
    const Built<half> b = build<half>(recipe(64, 4096, 0.3, {8, 4, 2}));
    const ec::Plan plan = ec::make_plan(b.a, kH100);
    CHECK(plan_definition_fault(b.a, plan) == "");
    CHECK(model_case<half, half>(b.m, b.a, plan, 1.0f, 0.5f, 11) == "");
  }
}

TEST_CASE("EC chain length: longest piece, butterfly, one add per partial") {
  const Built<half> b = build<half>(recipe(8, 2048, 1.0, {8}));
  const ec::Plan whole = ec::make_plan(b.a, std::vector<int>(b.a.sets.size(), 0));
  const ec::Plan clipped = ec::make_plan(b.a, std::vector<int>(b.a.sets.size(), 1));
  // Each row: one G = 8 block of 16 steps at v = 4 (2048 columns), no G = 1 columns.
  REQUIRE(b.a.sets[0].blocks() == 1);
  REQUIRE(b.a.sets[0].steps() == 16);
  for (std::int64_t r = 0; r < 8; ++r) {
    CHECK(ec_chain_length(b.a, whole, r) == 16 * 4 + 5 + 0 + 1);
    CHECK(ec_chain_length(b.a, clipped, r) == 4 + 5 + 15 + 1);
  }
  const Built<half> e = build<half>(recipe(3, 10, 0.0));
  CHECK(ec_chain_length(e.a, ec::make_plan(e.a, std::vector<int>(e.a.sets.size(), 0)), 1) == 0);
}
