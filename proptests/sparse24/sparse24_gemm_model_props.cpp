// The warp-level model of the mma.sp GEMM kernel against the double oracle, within the derived
// bound (sparse24_gemm_model.hpp), on random ragged shapes for both schedules and both types.
#include <rapidcheck.h>

#include <random>

#include "proptests/prop_support.hpp"
#include "reference/sparse24/sparse24_gemm_model.hpp"

namespace ws = warpsparse;
namespace s24 = warpsparse::sparse24;
using warpsparse::proptest::ws_prop;

namespace {

struct Outcome {
  int violations = 0;
  double worst_ratio = 0.0;  // max |err| / bound
};

template <class Sched, class T>
Outcome run_model(int m, int n, int k, std::uint32_t seed, bool corrupt_swizzle = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (auto& v : a) v = ws::from_float<T>(u(rng));
  for (auto& v : b) v = ws::from_float<T>(u(rng));
  const auto s = s24::compress<T>(s24::prune_2of4<T>(a, m, k), m, k);
  auto meta = s24::swizzle_meta(s.meta, s.rows_padded, s.cols_padded);
  if (corrupt_swizzle) meta = s.meta;  // the plain order read as if it were swizzled
  std::vector<double> exact, abs_dot;
  s24::oracle_gemm(s, std::span<const T>(b), n, exact, abs_dot);
  // The kernel's B pitch rule: ldb a multiple of 8; the padding columns hold NaN and must not leak.
  const int ldb = static_cast<int>(warpsparse::round_up(n, 8)) + 8 * static_cast<int>(seed % 2);
  std::vector<T> b_pitched(static_cast<std::size_t>(k) * ldb, ws::from_float<T>(NAN));
  for (int r = 0; r < k; ++r)
    for (int j = 0; j < n; ++j)
      b_pitched[static_cast<std::size_t>(r) * ldb + j] = b[static_cast<std::size_t>(r) * n + j];
  const auto c = s24::gemm_model<Sched, T>(s, meta, b_pitched, n, ldb);
  Outcome o;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double bound = s24::ErrorBound::bound(exact[i], abs_dot[i], s.cols_padded, ws::ValueType::fp32);
    const double err = std::fabs(static_cast<double>(c[i]) - exact[i]);
    o.worst_ratio = std::max(o.worst_ratio, err / bound);
    if (!(err <= bound)) ++o.violations;
  }
  return o;
}

}  // namespace

TEST_CASE("GEMM warp model equals the double oracle within the bound", "[sparse24][model][prop]") {
  ws_prop("random ragged shapes", 100, [] {
    const int m = *rc::gen::inRange(1, 200).as("M");
    const int n = *rc::gen::inRange(1, 300).as("N");
    const int k = *rc::gen::inRange(1, 160).as("K");
    const auto seed = *rc::gen::arbitrary<std::uint32_t>().as("seed");
    const bool bf16 = *rc::gen::arbitrary<bool>().as("bf16");
    const bool large = *rc::gen::arbitrary<bool>().as("large schedule");
    Outcome o;
    if (bf16)
      o = large ? run_model<s24::ScheduleTall, ws::bfloat16>(m, n, k, seed)
                : run_model<s24::Schedule<128, 128, 64, 64, 4>, ws::bfloat16>(m, n, k, seed);
    else
      o = large ? run_model<s24::ScheduleTall, ws::half>(m, n, k, seed)
                : run_model<s24::Schedule<128, 128, 64, 64, 4>, ws::half>(m, n, k, seed);
    RC_ASSERT(o.violations == 0);
  });
}

TEST_CASE("GEMM warp model: shapes that are exact tile multiples and tiny edges", "[sparse24][model]") {
  for (auto [m, n, k] : {std::tuple{128, 256, 64}, {256, 256, 192}, {1, 1, 1}, {17, 9, 33}, {129, 257, 65}, {20, 30, 1000}, {300, 40, 70}}) {
    CAPTURE(m, n, k);
    const auto o = run_model<s24::Schedule<128, 256, 64, 64, 3>, ws::bfloat16>(m, n, k, 99u + static_cast<std::uint32_t>(m));
    CHECK(o.violations == 0);
    const auto o2 = run_model<s24::Schedule<128, 128, 64, 64, 4>, ws::half>(m, n, k, 7u + static_cast<std::uint32_t>(n));
    CHECK(o2.violations == 0);
    // 8 warps of 64×32 (Tile::kSmallW32Pipe's warp tiling).
    const auto o3 = run_model<s24::Schedule<128, 128, 64, 32, 4>, ws::bfloat16>(m, n, k, 11u + static_cast<std::uint32_t>(k));
    CHECK(o3.violations == 0);
    // 256×128 tile (Tile::kTallPipe): wraps rows past rows_padded when M mod 256 is in (0, 128].
    const auto o4 = run_model<s24::ScheduleTall, ws::half>(m, n, k, 13u + static_cast<std::uint32_t>(m));
    CHECK(o4.violations == 0);
  }
}

TEST_CASE("GEMM warp model: a wrong metadata order breaks the bound (the check can fail)",
          "[sparse24][model]") {
  const auto o = run_model<s24::Schedule<128, 128, 64, 64, 4>, ws::bfloat16>(64, 64, 128, 3u, /*corrupt_swizzle=*/true);
  CHECK(o.violations > 0);
  CHECK(o.worst_ratio > 1000.0);
}

TEST_CASE("GEMM warp model: all-zero A gives exact zeros", "[sparse24][model][edge]") {
  using T = ws::bfloat16;
  const int m = 40, n = 24, k = 70;  // n is a multiple of 8: B needs no pitch padding
  const std::vector<T> a(static_cast<std::size_t>(m) * k, T(0.f));
  std::vector<T> b(static_cast<std::size_t>(k) * n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& v : b) v = ws::to_bf16(u(rng));
  const auto s = s24::compress<T>(a, m, k);
  const auto meta = s24::swizzle_meta(s.meta, s.rows_padded, s.cols_padded);
  const auto c = s24::gemm_model<s24::Schedule<128, 128, 64, 64, 4>, T>(s, meta, b, n, n);
  for (float v : c) CHECK(v == 0.f);
}

TEST_CASE("GEMM warp model: a B pitch that is not a multiple of 8 breaks cp.async alignment",
          "[sparse24][model]") {
  using T = ws::half;
  const int m = 16, n = 12, k = 64;
  std::vector<T> a(static_cast<std::size_t>(m) * k, T(0.f)), b(static_cast<std::size_t>(k) * n, T(1.f));
  for (int r = 0; r < m; ++r) a[static_cast<std::size_t>(r) * k + 1] = T(2.f);
  const auto s = s24::compress<T>(a, m, k);
  const auto meta = s24::swizzle_meta(s.meta, s.rows_padded, s.cols_padded);
  CHECK_THROWS_WITH((s24::gemm_model<s24::Schedule<128, 128, 64, 64, 4>, T>(s, meta, b, n, n)), Catch::Contains("16-byte aligned"));
}

TEST_CASE("error bound: values and monotonicity", "[sparse24][bound]") {
  using B = s24::ErrorBound;
  CHECK(B::gamma(1) > 0x1p-23);
  CHECK(B::gamma(1) < 0x1p-22);
  CHECK(B::gamma(4097) > B::gamma(33));
  // bf16 output: half an ulp of the result dominates.
  CHECK(B::bound(1.0, 1.0, 64, ws::ValueType::bf16) > 0x1p-8);
  CHECK(B::bound(1.0, 1.0, 64, ws::ValueType::bf16) < 0x1p-8 + 1e-5);
  CHECK(B::bound(0.0, 0.0, 64, ws::ValueType::fp32) > 0.0);
}
