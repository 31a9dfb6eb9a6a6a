// ldmatrix on the emulated shared image: the fragment table of PTX ISA §9.7.14.5.15 checked with
// self-describing elements, the 16-byte row rule, and bank-conflict freedom of the GEMM schedule.
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>

#include "proptests/prop_support.hpp"
#include "reference/sparse24/sparse24_layout.hpp"
#include "reference/warp/ldmatrix.hpp"

namespace wp = warpsparse::warp;
namespace s24 = warpsparse::sparse24;
using warpsparse::proptest::ws_prop;

TEST_CASE("ldmatrix lane/value map is a bijection with an inverse", "[ldmatrix]") {
  for (bool trans : {false, true}) {
    std::vector<int> hit(64, 0);
    for (int lane = 0; lane < 32; ++lane)
      for (int v = 0; v < 2; ++v) {
        const wp::MatrixCoord mc = wp::ldmatrix_coord(lane, v, trans);
        REQUIRE(mc.matrix == 0);
        ++hit[static_cast<std::size_t>(mc.row * 8 + mc.col)];
        const auto [l2, v2] = wp::ldmatrix_owner(0, mc.row, mc.col, trans);
        REQUIRE(l2 == lane);
        REQUIRE(v2 == v);
      }
    for (int h : hit) REQUIRE(h == 1);
  }
}

namespace {
// Places N 8x8 matrices at scattered 16-byte-aligned rows; element (i, r, c) holds i*64 + r*8 + c.
template <int N>
wp::Lanes<std::uint32_t> scatter_rows(wp::SharedImage& smem, std::vector<int> slots) {
  wp::Lanes<std::uint32_t> addr{};
  for (int l = 0; l < 32; ++l) {
    if (l < 8 * N) {
      addr[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(16 * slots[static_cast<std::size_t>(l)]);
      for (int c = 0; c < 8; ++c)
        smem.store16(addr[static_cast<std::size_t>(l)] + 2u * static_cast<std::uint32_t>(c),
                     static_cast<std::uint16_t>((l / 8) * 64 + (l % 8) * 8 + c));
    } else {
      addr[static_cast<std::size_t>(l)] = 0xdeadbeefu;  // ignored by .xN for these lanes
    }
  }
  return addr;
}

template <int N>
void check_ldmatrix_table() {
  // Appended, not "x" + std::string: GCC 12's -Wrestrict misfires on the insert that operator+ inlines.
  ws_prop(std::string("x").append(std::to_string(N)).append(" rows anywhere"), 100, [] {
    const int slots_total = 64;
    auto slots = *rc::gen::unique<std::vector<int>>(static_cast<std::size_t>(8 * N), rc::gen::inRange(0, slots_total));
    wp::SharedImage smem(16 * slots_total);
    const auto addr = scatter_rows<N>(smem, slots);
    for (bool trans : {false, true}) {
      const auto out = wp::ldmatrix<N>(smem, addr, trans);
      for (int t = 0; t < 32; ++t)
        for (int i = 0; i < N; ++i) {
          const std::uint32_t reg = out[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)];
          // PTX ISA ldmatrix fragment: lane t gets (row t/4, cols 2(t%4), 2(t%4)+1) of matrix i,
          // or with .trans (rows 2(t%4), 2(t%4)+1, col t/4).
          const int r0 = trans ? 2 * (t % 4) : t / 4, c0 = trans ? t / 4 : 2 * (t % 4);
          const int r1 = trans ? r0 + 1 : r0, c1 = trans ? c0 : c0 + 1;
          RC_ASSERT((reg & 0xffffu) == static_cast<std::uint32_t>(i * 64 + r0 * 8 + c0));
          RC_ASSERT((reg >> 16) == static_cast<std::uint32_t>(i * 64 + r1 * 8 + c1));
        }
    }
  });
}
}  // namespace

TEST_CASE("ldmatrix .x1/.x2/.x4 and .trans follow the PTX fragment table", "[ldmatrix][prop]") {
  check_ldmatrix_table<1>();
  check_ldmatrix_table<2>();
  check_ldmatrix_table<4>();
}

TEST_CASE("ldmatrix rejects rows that are not 16-byte aligned or leave shared memory", "[ldmatrix]") {
  wp::SharedImage smem(1024);
  for (int bad_lane : {0, 5, 7}) {
    auto addr = wp::per_lane([](int l) { return static_cast<std::uint32_t>(16 * l); });
    addr[static_cast<std::size_t>(bad_lane)] += 8;
    try {
      (void)wp::ldmatrix<1>(smem, addr, false);
      FAIL("misaligned row accepted");
    } catch (const wp::WarpFault& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("lane " + std::to_string(bad_lane)) &&
                                            Catch::Contains("16-byte aligned"));
    }
  }
  auto addr = wp::per_lane([](int l) { return static_cast<std::uint32_t>(16 * l); });
  addr[9] = 1024 - 8;  // lane 9 is used by .x2: its row would straddle the end
  CHECK_NOTHROW(wp::ldmatrix<1>(smem, addr, true));
  CHECK_THROWS_AS(wp::ldmatrix<2>(smem, addr, true), wp::WarpFault);
  addr[9] = 1024;
  CHECK_THROWS_WITH(wp::ldmatrix<2>(smem, addr, false), Catch::Contains("outside"));
}

namespace {
template <class S>
void check_schedule_conflict_free() {
  for (int ks = 0; ks < 2; ++ks) {
    for (int row0 = 0; row0 < S::kBM; row0 += 16) {
      const auto a = wp::per_lane([&](int l) { return S::a_ldsm_offset(l, row0, ks); });
      CHECK(wp::ldmatrix_extra_wavefronts<4>(a) == 0);
    }
    for (int col0 = 0; col0 < S::kBN; col0 += 8) {
      const auto b = wp::per_lane([&](int l) { return S::b_ldsm_offset(l, col0, ks); });
      CHECK(wp::ldmatrix_extra_wavefronts<4>(b) == 0);
    }
  }
  for (int mb0 = 0; mb0 < S::kBM / 16; mb0 += 4) {
    const auto e = wp::per_lane([&](int l) { return S::e_ldsm_offset(l, mb0); });
    CHECK(wp::ldmatrix_extra_wavefronts<4>(e) == 0);
  }
  // The swizzle is a permutation of the 16-byte chunks of each row.
  for (int r = 0; r < S::kBM; ++r) {
    std::vector<std::uint32_t> offs;
    for (int c = 0; c < 4; ++c) offs.push_back(S::a_offset(r, c));
    std::sort(offs.begin(), offs.end());
    for (int c = 0; c < 4; ++c) CHECK(offs[static_cast<std::size_t>(c)] == S::a_offset(r, 0) - (S::a_offset(r, 0) % 64) + 16u * c);
  }
  for (int k = 0; k < S::kBK; ++k) {
    std::vector<std::uint32_t> offs;
    for (int c = 0; c < S::kBN / 8; ++c) offs.push_back(S::b_offset(k, c));
    std::sort(offs.begin(), offs.end());
    for (int c = 0; c < S::kBN / 8; ++c)
      CHECK(offs[static_cast<std::size_t>(c)] == static_cast<std::uint32_t>(k * S::kBRowBytes + 16 * c));
  }
}
}  // namespace

namespace {
// The cp.async copies of one stage write every 16-byte chunk of the stage exactly once.
template <class S>
void check_copies_tile_stage() {
  std::vector<int> hit(S::kStageBytes / 16, 0);
  auto mark = [&](const typename S::Copy16& c) {
    REQUIRE(c.smem % 16 == 0);
    REQUIRE(c.smem < static_cast<std::uint32_t>(S::kStageBytes));
    ++hit[c.smem / 16];
  };
  for (int i = 0; i < S::kAChunks; ++i) mark(S::a_copy(i, 128, 3, 96, 1024));
  for (int i = 0; i < S::kBChunks; ++i) mark(S::b_copy(i, 256, 3, 1000, 1000, 1000));
  for (int i = 0; i < S::kEChunks; ++i) mark(S::e_copy(i, 128, 3, 16));
  for (int h : hit) REQUIRE(h == 1);
}
}  // namespace

TEST_CASE("grouped CTA rasterization visits every tile exactly once", "[schedule]") {
  for (int tiles_m : {1, 3, 8, 9, 17, 64})
    for (int tiles_n : {1, 2, 5, 32}) {
      CAPTURE(tiles_m, tiles_n);
      std::vector<int> hit(static_cast<std::size_t>(tiles_m * tiles_n), 0);
      for (int pid = 0; pid < tiles_m * tiles_n; ++pid) {
        const s24::TileCoord t = s24::cta_tile(pid, tiles_m, tiles_n);
        REQUIRE(t.m >= 0);
        REQUIRE(t.m < tiles_m);
        REQUIRE(t.n >= 0);
        REQUIRE(t.n < tiles_n);
        ++hit[static_cast<std::size_t>(t.m * tiles_n + t.n)];
      }
      for (int h : hit) REQUIRE(h == 1);
    }
}

TEST_CASE("the stage copies tile shared memory exactly once", "[schedule]") {
  check_copies_tile_stage<s24::Schedule<128, 256, 64, 64, 3>>();
  check_copies_tile_stage<s24::Schedule<128, 256, 64, 64, 4>>();
  check_copies_tile_stage<s24::Schedule<128, 128, 64, 64, 4>>();
  check_copies_tile_stage<s24::Schedule<128, 128, 64, 64, 3>>();
  check_copies_tile_stage<s24::Schedule<128, 128, 64, 32, 4>>();
  check_copies_tile_stage<s24::ScheduleTall>();
}

namespace {
// The pipelined kernel issues thread t's copies as (first copy) + j·(pass stride): that must be
// exactly a_copy / b_copy / e_copy of chunk t + j·kThreads at every K tile, masks included.
template <class S>
void check_strided_copies() {
  static_assert(S::kStridedCopies);
  const int m0 = 256, vcols = 96;
  // rows_padded = m0 + 128 makes a 256-row tile wrap its last 128 rows (kWrapRows).
  for (int rows_padded : {m0 + 128, m0 + 256, 4096})
    for (int ldb : {1000, 1024})
      for (int n : {1000, 256 + 13, 2000})
        for (int k : {1, 70, 190, 192}) {
          const int n0 = n > S::kBN ? S::kBN : 0;
          const int blocks_m = rows_padded / 16;
          for (int tid = 0; tid < S::kThreads; ++tid) {
            CAPTURE(rows_padded, ldb, n, k, tid);
            const auto a0 = S::a_copy(tid, m0, 0, vcols, 0x7fffffff);
            const auto b0 = S::b_copy(tid, n0, 0, 0x7fffffff, n, ldb);
            const int a_row = tid / S::kAChunksPerRow, b_row = tid / S::kBChunksPerRow;
            for (int kt = 0; kt < 3; ++kt) {
              for (int j = 0; j < S::kAPasses; ++j) {
                const auto ref = S::a_copy(tid + j * S::kThreads, m0, kt, vcols, rows_padded);
                const int r = S::a_src_row(a_row + j * S::kAPassRows, m0, rows_padded);
                REQUIRE(r < rows_padded);
                REQUIRE(ref.smem == a0.smem + j * S::kAPassSmem);
                REQUIRE(ref.src == a0.src + kt * (S::kBK / 2) + static_cast<std::int64_t>(r - m0 - a_row) * vcols);
                REQUIRE(ref.bytes == 16);
              }
              for (int j = 0; j < S::kBPasses; ++j) {
                const auto ref = S::b_copy(tid + j * S::kThreads, n0, kt, k, n, ldb);
                const bool in = j * S::kBPassRows < k - b_row - kt * S::kBK && b0.bytes > 0;
                REQUIRE(ref.smem == b0.smem + j * S::kBPassSmem);
                REQUIRE(ref.bytes == (in ? b0.bytes : 0));
                if (in)
                  REQUIRE(ref.src == b0.src + static_cast<std::int64_t>(kt) * S::kBK * ldb +
                                         static_cast<std::int64_t>(j) * S::kBPassRows * ldb);
              }
              if (tid < S::kEChunks) {
                const auto ref = S::e_copy(tid, m0, kt, blocks_m);
                REQUIRE(ref.src == S::e_copy(tid, m0, 0, blocks_m).src + static_cast<std::int64_t>(kt) * blocks_m * 64);
                REQUIRE(ref.src + 8 <= static_cast<std::int64_t>(kt + 1) * blocks_m * 64);  // inside K tile kt's blocks
              }
            }
          }
        }
}
}  // namespace

TEST_CASE("strided stage copies equal the schedule's copies", "[schedule]") {
  check_strided_copies<s24::Schedule<128, 256, 64, 64, 3>>();
  check_strided_copies<s24::Schedule<128, 256, 64, 64, 4>>();
  check_strided_copies<s24::Schedule<128, 128, 64, 64, 4>>();
  check_strided_copies<s24::Schedule<128, 128, 64, 64, 3>>();
  check_strided_copies<s24::Schedule<128, 128, 64, 32, 4>>();
  check_strided_copies<s24::ScheduleTall>();
  check_strided_copies<s24::Schedule<256, 128, 64, 64, 4>>();
}

TEST_CASE("the GEMM schedule's ldmatrix addresses are bank-conflict free", "[ldmatrix][schedule]") {
  check_schedule_conflict_free<s24::Schedule<128, 256, 64, 64, 3>>();
  check_schedule_conflict_free<s24::Schedule<128, 128, 64, 64, 4>>();
  check_schedule_conflict_free<s24::Schedule<128, 128, 64, 64, 3>>();
  check_schedule_conflict_free<s24::Schedule<128, 128, 64, 32, 4>>();
  check_schedule_conflict_free<s24::ScheduleTall>();
  // Control: the same B access without the XOR swizzle is an 8-way conflict (the check can fail).
  const auto naive = wp::per_lane([](int l) { return static_cast<std::uint32_t>(l * 512); });
  CHECK(wp::ldmatrix_extra_wavefronts<4>(naive) == 4 * 7);
}
