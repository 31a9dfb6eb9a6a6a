// The bitmap-tile SpMM fragment model (reference/bitmap/bitmap_spmm_model.hpp) against the double
// oracle within its derived ErrorBound: the shared matrix recipes (NaN / Inf / -0 values among
// them), batches 1..16 (odd ones, one and two vector groups), 1..8 parts and one part per k tile,
// fp16 / bf16 values, outputs of the value type and fp32, alpha / beta including beta = 0 with
// NaN in y_old (must not be read). x is finite, as the kernel requires (a tile's zeros multiply it).
// The judge is shown to bite: one changed matrix value, a B fragment with its k halves swapped and
// an A fragment with registers 1 and 2 swapped are each outside the bound somewhere. Integer data
// give exact results, and the parts are added in part order.
#include <cmath>
#include <random>
#include <utility>

#include "proptests/generators.hpp"
#include "proptests/spmv_cases.hpp"
#include "reference/bitmap/bitmap_spmm_model.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;
namespace bm = warpsparse::bitmap;

namespace {

// X (cols × B) and y_old (rows × B), one seeded finite vector per column (y_old NaN when beta = 0).
template <class T, class TY>
void draw_batch(std::uint64_t seed, std::int64_t cols, std::int64_t rows, int nb, float beta, std::vector<T>& x,
                std::vector<TY>& y_old) {
  std::vector<std::vector<T>> xs(static_cast<std::size_t>(nb));
  std::vector<std::vector<TY>> ys(static_cast<std::size_t>(nb));
  for (int b = 0; b < nb; ++b)
    draw_vectors(seed + static_cast<std::uint64_t>(b), cols, rows, beta, xs[static_cast<std::size_t>(b)],
                 ys[static_cast<std::size_t>(b)]);
  x = interleave_columns<T>(xs);
  y_old = interleave_columns<TY>(ys);
}

// Batches 1..16 and parts 1..8 (at most the k tiles) or one per k tile, uniform over the whole
// range from the first case (inRange alone grows with rapidcheck's size: few batches above 8).
rc::Gen<int> gen_batch() { return rc::gen::resize(rc::kNominalSize, rc::gen::inRange(1, bm::kBatchMax + 1)); }
rc::Gen<int> gen_parts(std::int64_t k_tiles) {
  const int kt = static_cast<int>(std::max<std::int64_t>(1, k_tiles));
  return rc::gen::resize(rc::kNominalSize,
                         rc::gen::oneOf(rc::gen::inRange(1, std::min(kt, 8) + 1), rc::gen::just(kt)));
}

template <class T, class TY>
void model_property() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  const SparseRows<T> m = build<T>(rec);
  const Bitmap<T> a = encode_bitmap(m);
  bm::Schedule s;
  s.batch = *gen_batch().as("batch");
  s.parts = *gen_parts(a.k_tiles()).as("parts");
  const Epilogue ep = gen_epilogue();
  RC_TAG(to_string(rec.family));
  RC_TAG(s.batch > bm::kN ? "two vector groups" : "one vector group");
  RC_TAG(s.parts > 1 ? "several parts" : "one part");
  std::vector<T> x;
  std::vector<TY> y_old;
  draw_batch(rec.seed, m.cols, m.rows, s.batch, ep.beta, x, y_old);
  const std::vector<TY> y = bm::spmm_model<T, TY>(a, x, y_old, ep.alpha, ep.beta, s);
  const std::string failure = bm::spmm_check<T, TY>(a, x, y_old, ep.alpha, ep.beta, s, y);
  if (!failure.empty()) {
    FailureDump d;
    d.matrix(m);
    d.vector<T>("x.txt", x);
    d.vector<TY>("y_model.txt", y);
    d.vector<TY>("y_old.txt", y_old);
    d.note("bitmap model, " + s.name() + ", alpha " + std::to_string(ep.alpha) + ", beta " +
           std::to_string(ep.beta) + " (x and y are cols x B and rows x B row-major): " + failure);
  }
  RC_ASSERT(failure == "");
}

// A small matrix of density >= 0.5 with at least one nonzero, and x of magnitude 0.5..1 with
// random signs: any wrong term moves an output far beyond the bound.
template <class T>
struct Small {
  SparseRows<T> m;
  std::vector<T> x;
  bm::Schedule s;
};
template <class T>
Small<T> gen_small() {
  Small<T> c;
  const std::int64_t rows = *rc::gen::inRange<std::int64_t>(1, 41).as("rows");
  const std::int64_t cols = *rc::gen::inRange<std::int64_t>(16, 301).as("cols");
  const double d = *rc::gen::element(0.5, 0.75, 1.0).as("density");
  const auto seed = *rc::gen::arbitrary<std::uint64_t>().as("seed");
  c.m = analysis::generate<T>(analysis::PatternSpec{analysis::Pattern::bernoulli, d, 0.0}, rows, cols, seed);
  RC_PRE(c.m.nnz() > 0);
  c.s.batch = *gen_batch().as("batch");
  c.s.parts = *gen_parts(bm::k_tiles(cols)).as("parts");
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_real_distribution<float> mag(0.5f, 1.0f);
  c.x.resize(static_cast<std::size_t>(cols * c.s.batch));
  for (auto& v : c.x) v = from_float<T>(rng() % 2 ? mag(rng) : -mag(rng));
  return c;
}

// Whether exchanging subtiles 1 and 2 of every tile (rows 8-15 x columns 0-7 with rows 0-7 x
// columns 8-15) changes a row that exists: for some tile and g < 8, row g's columns 8-15 differ from
// row g + 8's columns 0-7, with row g or g + 8 inside the matrix. Otherwise (a row whose columns
// 8-15 are all zero, with no row 8 below it) the exchange moves only zeros and nothing can see it.
template <class T>
bool subtile_swap_visible(const SparseRows<T>& m) {
  const std::vector<T> d = m.to_dense();
  const auto at = [&](std::int64_t r, std::int64_t c) {
    return r < m.rows && c < m.cols ? to_float(d[static_cast<std::size_t>(r * m.cols + c)]) : 0.0f;
  };
  for (std::int64_t tr = 0; tr < m.rows; tr += 16)
    for (std::int64_t tc = 0; tc < m.cols; tc += 16)
      for (std::int64_t g = 0; g < 8; ++g)
        for (std::int64_t c = 0; c < 8; ++c)
          if ((tr + g < m.rows || tr + g + 8 < m.rows) && at(tr + g, tc + 8 + c) != at(tr + g + 8, tc + c))
            return true;
  return false;
}

// The judge's verdict on the model run with `tamper` applied to every mma's fragments; `visible`
// says which cases the tampering can change at all (others are discarded).
template <class T>
std::string tampered_verdict(const bm::FragmentTamper& tamper,
                             bool (*visible)(const SparseRows<T>&) = nullptr) {
  const Small<T> c = gen_small<T>();
  if (visible) RC_PRE(visible(c.m));
  const Bitmap<T> a = encode_bitmap(c.m);
  const std::vector<float> y_old;
  const std::vector<float> partials = bm::spmm_partials<T>(a, c.x, c.s, tamper);
  const std::vector<float> y = bm::spmm_finish<float>(partials, c.s.parts, y_old, 1.0f, 0.0f);
  return bm::spmm_check<T, float>(a, c.x, y_old, 1.0f, 0.0f, c.s, y);
}

}  // namespace

TEST_CASE("bitmap SpMM model equals the oracle within ErrorBound", "[bitmap]") {
  ws_prop("fp16 values, fp16 out", 500, [] { model_property<half, half>(); });
  ws_prop("fp16 values, fp32 out", 500, [] { model_property<half, float>(); });
  ws_prop("bf16 values, bf16 out", 500, [] { model_property<bfloat16, bfloat16>(); });
  ws_prop("bf16 values, fp32 out", 500, [] { model_property<bfloat16, float>(); });
}

TEST_CASE("the bound check catches a wrong value or a wrong fragment", "[bitmap]") {
  ws_prop("one matrix value changed by 8", 200, [] {
    const Small<half> c = gen_small<half>();
    Bitmap<half> a = encode_bitmap(c.m);
    Bitmap<half> changed = a;
    const std::size_t i = *rc::gen::inRange<std::size_t>(0, a.values.size()).as("value index");
    changed.values[i] = from_float<half>(to_float(a.values[i]) + 8.0f);
    const std::vector<float> y_old;
    const std::vector<float> y = bm::spmm_model<half, float>(changed, c.x, y_old, 1.0f, 0.0f, c.s);
    RC_ASSERT((bm::spmm_check<half, float>(a, c.x, y_old, 1.0f, 0.0f, c.s, y)) != "");
  });
  ws_prop("B fragment with b0b1 and b2b3 swapped (k rows 2t, 2t+1 read from 2t+8, 2t+9)", 200, [] {
    RC_ASSERT(tampered_verdict<bfloat16>([](warp::Lanes<warp::MmaReg4>&, warp::Lanes<warp::MmaReg2>& b) {
                for (auto& r : b) std::swap(r[0], r[1]);
              }) != "");
  });
  ws_prop("A fragment with registers 1 and 2 swapped (subtiles 1 and 2 exchanged)", 200, [] {
    RC_ASSERT(tampered_verdict<half>(
                  [](warp::Lanes<warp::MmaReg4>& a, warp::Lanes<warp::MmaReg2>&) {
                    for (auto& r : a) std::swap(r[1], r[2]);
                  },
                  subtile_swap_visible<half>) != "");
  });
  ws_prop("untampered, the same cases pass", 200, [] {
    RC_ASSERT(tampered_verdict<half>({}) == "");
  });
}

TEST_CASE("integer data: the model's result is exact for every batch and part count", "[bitmap]") {
  // 37 x 53 with every third element stored, small integers: every sum is exact in fp32.
  std::vector<half> d(37 * 53, from_float<half>(0.0f));
  for (std::size_t i = 0; i < d.size(); i += 3) d[i] = from_float<half>(float(static_cast<int>(i % 7) - 3));
  const auto m = SparseRows<half>::from_dense(37, 53, d);
  const Bitmap<half> a = encode_bitmap(m);
  for (const int nb : {1, 3, 8, 9, 16})
    for (const int parts : {1, 2, 4}) {
      CAPTURE(nb, parts);
      std::vector<half> x(static_cast<std::size_t>(53 * nb));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = from_float<half>(float(static_cast<int>(i % 5) - 2));
      std::vector<float> y_old(static_cast<std::size_t>(37 * nb));
      for (std::size_t i = 0; i < y_old.size(); ++i) y_old[i] = float(i % 4);
      const auto y = bm::spmm_model<half, float>(a, x, y_old, 2.0f, -1.0f, bm::Schedule{nb, parts});
      for (std::int64_t r = 0; r < 37; ++r)
        for (int b = 0; b < nb; ++b) {
          double want = 0;
          for (std::int64_t c = 0; c < 53; ++c)
            want += double(to_float(d[static_cast<std::size_t>(r * 53 + c)])) *
                    double(to_float(x[static_cast<std::size_t>(c * nb + b)]));
          const std::size_t e = static_cast<std::size_t>(r * nb + b);
          REQUIRE(y[e] == float(2.0 * want - double(y_old[e])));
        }
    }
}

TEST_CASE("the longest part is the ceiling share of the k tiles", "[bitmap]") {
  for (const std::int64_t cols : {1, 15, 16, 17, 100, 1000, 65537})
    for (const int parts : {1, 2, 3, 7, 64}) {
      if (parts > std::max<std::int64_t>(1, bm::k_tiles(cols))) continue;
      CAPTURE(cols, parts);
      CHECK(bm::max_part_tiles(cols, parts) == (bm::k_tiles(cols) + parts - 1) / parts);
    }
}

TEST_CASE("the parts of an output are added in part order, in fp32", "[bitmap]") {
  // 2^24 + 1 + 1: in order each 1 is lost (ties to even), another order would keep them.
  const std::vector<float> partials{0x1p24f, 1.0f, 1.0f};
  const std::vector<float> y_old;
  CHECK(bm::spmm_finish<float>(partials, 3, y_old, 1.0f, 0.0f)[0] == 0x1p24f);
  const std::vector<float> reversed{1.0f, 1.0f, 0x1p24f};
  CHECK(bm::spmm_finish<float>(reversed, 3, y_old, 1.0f, 0.0f)[0] == 0x1p24f + 2.0f);
}

TEST_CASE("the model refuses bad inputs by name", "[bitmap]") {
  SparseRows<half> m;
  m.cols = 40;
  for (int r = 0; r < 5; ++r) {
    m.push(r, from_float<half>(1.0f));
    m.end_row();
  }
  const Bitmap<half> a = encode_bitmap(m);
  const std::vector<half> x(40 * 2, from_float<half>(1.0f)), y_old(5 * 2, from_float<half>(0.0f));
  auto run = [&](std::span<const half> xx, std::span<const half> yy, float beta, bm::Schedule s) {
    return bm::spmm_model<half, half>(a, xx, yy, 1.0f, beta, s);
  };
  CHECK_THROWS_WITH(run(std::span(x).first(40), y_old, 0.0f, {2, 1}), Catch::Contains("cols x batch"));
  CHECK_THROWS_WITH(run(x, std::span(y_old).first(5), 1.0f, {2, 1}), Catch::Contains("y_old has 5 elements"));
  CHECK_NOTHROW(run(x, {}, 0.0f, {2, 1}));  // beta = 0: y_old is not read
  CHECK_THROWS_WITH(run(x, y_old, 0.0f, {2, 4}), Catch::Contains("4 parts for 3 k tiles"));
  CHECK_THROWS_WITH(run(x, y_old, 0.0f, {17, 1}), Catch::Contains("batch 17"));
  Bitmap<half> broken = a;
  broken.tile_off[1] = 7;
  CHECK_THROWS_WITH((bm::spmm_model<half, half>(broken, x, y_old, 1.0f, 0.0f, {2, 1})), Catch::Contains("tile_off[1]"));
}
