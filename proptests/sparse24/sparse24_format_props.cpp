// 2:4 compress / decompress / prune and the metadata swizzle: round trips, the nibble table, the
// error for over-full groups, and the swizzle as a bijection that feeds mma.sp the right word.
#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include "proptests/prop_support.hpp"
#include "reference/sparse/sparse_rows.hpp"
#include "reference/sparse24/sparse24_format.hpp"
#include "reference/sparse24/sparse24_split.hpp"
#include "reference/warp/ldmatrix.hpp"
#include "reference/warp/mma_sp.hpp"

namespace ws = warpsparse;
namespace s24 = warpsparse::sparse24;
using warpsparse::proptest::ws_prop;

namespace {

template <class T>
std::vector<T> random_dense(int rows, int cols) {
  const auto v = *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(rows) * cols,
                                                       rc::gen::inRange(-1000, 1001));
  std::vector<T> d(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) d[i] = ws::from_float<T>(static_cast<float>(v[i]) / 128.f);
  return d;
}

template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (ws::bits_of(x[i]) != ws::bits_of(y[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("the valid nibbles are exactly the six ascending pairs", "[sparse24][format]") {
  // Table of sparse24_layout.hpp: 0x4 (0,1) 0x8 (0,2) 0xC (0,3) 0x9 (1,2) 0xD (1,3) 0xE (2,3).
  const std::set<std::uint32_t> valid = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  for (std::uint32_t n = 0; n < 16; ++n) {
    CAPTURE(n);
    CHECK(s24::nibble_ordered(n) == (valid.count(n) == 1));
    if (s24::nibble_ordered(n)) CHECK(s24::group_nibble(s24::nibble_lo(n), s24::nibble_hi(n)) == n);
  }
}

TEST_CASE("blog example [0, 2.1, -8.9, 0] encodes as 0b1001", "[sparse24][format]") {
  using T = ws::bfloat16;
  std::vector<T> d = {T(0.f), ws::to_bf16(2.1f), ws::to_bf16(-8.9f), T(0.f)};
  const auto s = s24::compress<T>(d, 1, 4);
  CHECK(s.nibble(0, 0) == 0b1001u);
  CHECK(ws::bits_of(s.value(0, 0)) == ws::bits_of(ws::to_bf16(2.1f)));
  CHECK(ws::bits_of(s.value(0, 1)) == ws::bits_of(ws::to_bf16(-8.9f)));
  CHECK(s.rows_padded == s24::kRowAlign);
  CHECK(s.cols_padded == s24::kColAlign);
  // Second group of the same word sits in bits [4, 8).
  std::vector<T> d2(8, T(0.f));
  d2[4 + 3] = T(1.f);
  d2[4 + 0] = T(-1.f);
  const auto s2 = s24::compress<T>(d2, 1, 8);
  CHECK(s2.meta[0] == ((0xCu << 4) | 0x4u | 0x4400u));
}

TEST_CASE("all 16 nonzero patterns of a group: <= 2 round-trip with ordered indices, >= 3 throw",
          "[sparse24][format]") {
  using T = ws::half;
  for (int mask = 0; mask < 16; ++mask) {
    CAPTURE(mask);
    const int rows = 5, cols = 12, bad_row = 3, bad_group = 1;
    std::vector<T> d(rows * cols, T(0.f));
    for (int i = 0; i < 4; ++i)
      if (mask >> i & 1) d[bad_row * cols + 4 * bad_group + i] = T(static_cast<float>(i + 1));
    const int nnz = __builtin_popcount(static_cast<unsigned>(mask));
    if (nnz <= 2) {
      const auto s = s24::compress<T>(d, rows, cols);
      const std::uint32_t n = s.nibble(bad_row, bad_group);
      CHECK(s24::nibble_ordered(n));
      for (int i = 0; i < 4; ++i)
        if (mask >> i & 1) CHECK((s24::nibble_lo(n) == i || s24::nibble_hi(n) == i));
      CHECK(same_bits(s24::decompress(s), d));
    } else {
      try {
        (void)s24::compress<T>(d, rows, cols);
        FAIL("compress accepted a group with " << nnz << " nonzeros");
      } catch (const ws::Error& e) {
        const std::string msg = e.what();
        int third = -1, seen = 0;
        for (int i = 0; i < 4; ++i)
          if ((mask >> i & 1) && ++seen == 3) third = i;
        CHECK_THAT(msg, Catch::Contains("row 3, column " + std::to_string(4 * bad_group + third)));
      }
    }
  }
}

TEST_CASE("all-zero matrix compresses to (0,1) groups and zero values", "[sparse24][format][edge]") {
  using T = ws::bfloat16;
  const std::vector<T> d(7 * 9, T(0.f));
  const auto s = s24::compress<T>(d, 7, 9);
  for (auto w : s.meta) CHECK(w == 0x4444);
  for (auto v : s.values) CHECK(ws::is_zero(v));
  CHECK(same_bits(s24::decompress(s), d));
}

TEST_CASE("compress / decompress round trip on pruned random matrices", "[sparse24][format][prop]") {
  ws_prop("bf16 and fp16, ragged shapes", 100, [] {
    const int rows = *rc::gen::inRange(1, 40).as("rows");
    const int cols = *rc::gen::inRange(1, 150).as("cols");
    const bool bf16 = *rc::gen::arbitrary<bool>().as("bf16");
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const auto dense = random_dense<T>(rows, cols);
      const auto pruned = s24::prune_2of4<T>(dense, rows, cols);
      const auto s = s24::compress<T>(pruned, rows, cols);
      RC_ASSERT(s.values.size() == static_cast<std::size_t>(s.rows_padded) * s.cols_padded / 2);
      RC_ASSERT(s.meta.size() == static_cast<std::size_t>(s.rows_padded) * s.cols_padded / 16);
      for (int r = 0; r < s.rows_padded; ++r)
        for (int g = 0; g < s.cols_padded / 4; ++g) RC_ASSERT(s24::nibble_ordered(s.nibble(r, g)));
      RC_ASSERT(same_bits(s24::decompress(s), pruned));
    };
    if (bf16)
      run(ws::bfloat16{});
    else
      run(ws::half{});
  });
}

TEST_CASE("GroupPeak (plan's and analyze's 2:4 test) agrees with what compress accepts", "[sparse24][format][prop]") {
  ws_prop("random sparse rows, some groups with three or four nonzeros", 100, [] {
    const int rows = *rc::gen::inRange(1, 12).as("rows");
    const int cols = *rc::gen::inRange(1, 70).as("cols");
    const int keep_pct = *rc::gen::inRange(0, 101).as("density %");
    std::vector<ws::half> dense(static_cast<std::size_t>(rows) * cols, ws::half(0.0f));
    for (auto& v : dense)
      if (*rc::gen::inRange(0, 100) < keep_pct) v = ws::half(1.0f);
    const ws::SparseRows<ws::half> m = ws::SparseRows<ws::half>::from_dense(rows, cols, dense);
    ws::GroupPeak per4(s24::kGroup);
    int brute = 0;
    for (int r = 0; r < rows; ++r) {
      for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) per4.add(m.col[k]);
      per4.end_row();
      for (int g = 0; g * 4 < cols; ++g) {
        int n = 0;
        for (int c = 4 * g; c < std::min(cols, 4 * g + 4); ++c)
          n += !ws::is_zero(dense[static_cast<std::size_t>(r) * cols + c]);
        brute = std::max(brute, n);
      }
    }
    RC_ASSERT(per4.peak() == brute);
    bool accepted = true;
    try {
      s24::compress<ws::half>(dense, rows, cols);
    } catch (const ws::Error&) {
      accepted = false;
    }
    RC_ASSERT(accepted == (per4.peak() <= s24::kKeep));
  });
}

TEST_CASE("prune keeps the two largest magnitudes of each group", "[sparse24][format][prop]") {
  ws_prop("prune is 2:4, keeps the largest, and is idempotent", 100, [] {
    using T = ws::bfloat16;
    const int rows = *rc::gen::inRange(1, 20).as("rows");
    const int cols = *rc::gen::inRange(1, 70).as("cols");
    const auto dense = random_dense<T>(rows, cols);
    const auto p = s24::prune_2of4<T>(dense, rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int c0 = 0; c0 < cols; c0 += 4) {
        const int n = std::min(4, cols - c0);
        int kept = 0, nnz = 0;
        float min_kept = INFINITY, max_dropped = 0.f;
        for (int i = 0; i < n; ++i) {
          const std::size_t at = static_cast<std::size_t>(r) * cols + c0 + i;
          const float mag = std::fabs(ws::to_float(dense[at]));
          nnz += !ws::is_zero(dense[at]);
          if (!ws::is_zero(p[at])) {
            RC_ASSERT(ws::bits_of(p[at]) == ws::bits_of(dense[at]));
            ++kept;
            min_kept = std::min(min_kept, mag);
          } else {
            max_dropped = std::max(max_dropped, mag);
          }
        }
        RC_ASSERT(kept == std::min(2, nnz));
        RC_ASSERT(min_kept >= max_dropped);
      }
    RC_ASSERT(same_bits(s24::prune_2of4<T>(p, rows, cols), p));
  });
}

TEST_CASE("metadata swizzle is a bijection with an inverse", "[sparse24][swizzle]") {
  for (int rows_padded : {16, 128, 256})
    for (int cols_padded : {64, 128, 320}) {
      CAPTURE(rows_padded, cols_padded);
      const int chunks = cols_padded / 16;
      const auto total = static_cast<std::int64_t>(rows_padded) * chunks;
      std::vector<int> hit(static_cast<std::size_t>(total), 0);
      for (int r = 0; r < rows_padded; ++r)
        for (int c = 0; c < chunks; ++c) {
          const std::int64_t i = s24::meta_swizzled_index(r, c, rows_padded);
          REQUIRE(i >= 0);
          REQUIRE(i < total);
          ++hit[static_cast<std::size_t>(i)];
          const s24::MetaCoord mc = s24::meta_swizzled_coord(i, rows_padded);
          REQUIRE(mc.row == r);
          REQUIRE(mc.chunk == c);
        }
      for (int h : hit) REQUIRE(h == 1);
    }
}

TEST_CASE("one ldmatrix.x1 of a swizzled block gives every lane its mma.sp metadata word, both selectors",
          "[sparse24][swizzle]") {
  ws_prop("random metadata, every 16x64 block", 100, [] {
    using T = ws::bfloat16;
    const int rows = *rc::gen::inRange(1, 300).as("rows");
    const int cols = *rc::gen::inRange(1, 200).as("cols");
    const auto s = s24::compress<T>(s24::prune_2of4<T>(random_dense<T>(rows, cols), rows, cols), rows, cols);
    const auto sw = s24::swizzle_meta(s.meta, s.rows_padded, s.cols_padded);
    RC_ASSERT(s24::unswizzle_meta(sw, s.rows_padded, s.cols_padded) == s.meta);
    ws::warp::SharedImage smem(sw.size() * 2);
    for (std::size_t i = 0; i < sw.size(); ++i) smem.store16(static_cast<std::uint32_t>(2 * i), sw[i]);
    for (int kb = 0; kb < s.cols_padded / 64; ++kb)
      for (int mb = 0; mb < s.rows_padded / 16; ++mb) {
        const std::uint32_t block = static_cast<std::uint32_t>((kb * (s.rows_padded / 16) + mb) * 128);
        const auto e = ws::warp::ldmatrix<1>(smem, ws::warp::per_lane([&](int l) {
          return block + static_cast<std::uint32_t>(16 * (l % 8));
        }), false);
        for (int sel = 0; sel < 2; ++sel)
          for (int l = 0; l < 32; ++l) {
            if (!ws::warp::mma_sp_meta_lane(l, sel)) continue;
            for (int nib = 0; nib < 8; ++nib) {
              // The k32 step that uses selector `sel` starts at logical K 64*kb + 32*sel.
              const ws::warp::MetaField f = ws::warp::mma_sp_meta_field(l, nib);
              const int group = (64 * kb + 32 * sel) / 4 + f.group;
              const std::uint32_t got = (e[static_cast<std::size_t>(l)][0] >> (4 * nib)) & 0xfu;
              RC_ASSERT(got == s.nibble(16 * mb + f.row, group));
            }
          }
      }
  });
}

TEST_CASE("split-K: the tiles after the whole rounds are shared by groups of CTAs, K tiles in equal ranges",
          "[sparse24][split]") {
  using warpsparse::sparse24::gpu::split_plan;
  using warpsparse::sparse24::gpu::SplitPlan;
  auto plan = [](long long m, long long n, long long k) { return split_plan(m, n, k, 256, 128, static_cast<int>((k + 63) / 64), 132); };
  auto is = [](const SplitPlan& p, long long whole, int tail, int width, int groups) {
    return p.whole == whole && p.tail == tail && p.width == width && p.groups == groups;
  };
  // Fewer tiles than SMs, every tile in the tail, one column: equal parts. 4096 x 16 x 4096: 16
  // tiles of 64 K tiles, 132 / 16 = 8 parts; 4096 x 128 x 4096: the partials bound, 4096 * 4096 /
  // (8 * 256 * 128) = 64 tiles of partials, 4 parts a tile.
  CHECK(is(plan(4096, 16, 4096), 0, 16, 1, 128));
  CHECK(is(plan(4096, 128, 4096), 0, 16, 1, 64));
  // 4096 x 512 x 4096: 16 rows of 4 tiles; 16 slots a column leave one group per row: no split.
  CHECK(is(plan(4096, 512, 4096), 64, 0, 1, 0));
  // 12288 x 512 x 49152: 48 rows of 4, 33 rows in one round, 15 rows of 768 K tiles in the tail;
  // 33 groups of 4 CTAs, 349-350 K tiles each, ranges that cross rows.
  CHECK(is(plan(12288, 512, 49152), 132, 15, 4, 33));
  // K of 4096 (64 K tiles, under kStreamKMinKTiles): 11008 x 512 x 4096, 10 tail rows, 30 groups
  // (3 equal parts a tile).
  CHECK(is(plan(11008, 512, 4096), 132, 10, 4, 30));
  // 12 columns (1536 tokens) leave 11 groups, under kStreamKMinGroups: 12288 x 1536 x 12288, 4
  // tail rows of 192 K tiles, 8 groups (2 equal parts a tile).
  CHECK(is(plan(12288, 1536, 12288), 528, 4, 12, 8));
  // Where ranges across rows would leave fewer than two groups a row, equal parts may still fit:
  // 4096 x 512 x 11008, 16 rows of 4 tiles of 172 K tiles, 43 slots a column: 28 groups across
  // rows (15 slots for the crossings), 32 in equal parts (2 a tile).
  CHECK(is(plan(4096, 512, 11008), 0, 16, 4, 32));
  // The range arithmetic is 32-bit: a tail of 2^24 K tiles on 132 groups would pass 2^31 and is
  // not split; 2^23 is.
  CHECK(!plan(256, 16, 1LL << 30).split());
  CHECK(plan(256, 16, 1LL << 29).split());
  // 32 columns (4096 tokens): 132 is no multiple of 32, so the units are the last 20 tiles of
  // 28672 x 4096 x 8192 (3584 = 27 * 132 + 20), 6 parts each.
  CHECK(is(plan(28672, 4096, 8192), 3564, 20, 1, 120));
  // A full last round, or fewer than two groups per unit: nothing to gain.
  CHECK(is(plan(8448, 512, 4096), 132, 0, 1, 0));
  CHECK(!plan(32000, 512, 4096).split());  // 26 tail rows for 33 groups
  CHECK(!plan(1, 16, 448).split());        // 7 K tiles: one part of 4
  CHECK(is(plan(1, 16, 512), 0, 1, 1, 2));
  CHECK(!plan(0, 16, 512).split());
  // Random shapes and SM counts: the whole tiles are the whole rounds, the groups' ranges cover
  // each unit's K tiles once, in group order, each keeps 4 K tiles, a unit meets at least two
  // groups on average, no two segments share a slot, every tile is whole or in the tail once, and
  // the partials stay within A's bytes.
  ws_prop("random shapes and SM counts", 100, [] {
    const long long m = *rc::gen::inRange(1, 60000), n = *rc::gen::inRange(1, 9000), k = *rc::gen::inRange(1, 20000);
    const int sms = *rc::gen::inRange(1, 200), ktiles = static_cast<int>((k + 63) / 64);
    const SplitPlan p = split_plan(m, n, k, 256, 128, ktiles, sms);
    const long long tiles_m = (m + 255) / 256, tiles_n = (n + 127) / 128, tiles = tiles_m * tiles_n;
    RC_ASSERT(p.tiles_m == tiles_m);
    RC_ASSERT(p.tiles_n == tiles_n);
    RC_ASSERT(p.whole + p.tail_tiles() == tiles);
    RC_ASSERT(p.grid(sms) <= sms);
    std::vector<char> seen(static_cast<std::size_t>(tiles), 0);
    auto mark = [&](warpsparse::sparse24::TileCoord t) {
      RC_ASSERT(t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n);
      const std::size_t i = static_cast<std::size_t>(t.m * tiles_n + t.n);
      RC_ASSERT(!seen[i]);
      seen[i] = 1;
    };
    if (tiles <= 200000)
      for (long long pid = 0; pid < p.whole; ++pid) mark(p.whole_tile(static_cast<int>(pid)));
    // In clusters of two: each whole tile once, a cluster's two CTAs on adjacent columns of one row,
    // in every round, and the same number of whole tiles for both.
    if (tiles <= 200000 && p.clusters(2, sms)) {
      const long long grid = p.grid(sms);
      RC_ASSERT(grid % 2 == 0);
      std::vector<char> paired(static_cast<std::size_t>(tiles), 0);
      for (long long pid = 0; pid < p.whole; pid += 2) {
        const auto t0 = p.whole_tile(static_cast<int>(pid), 2),
                   t1 = p.whole_tile(static_cast<int>(pid + 1), 2);
        RC_ASSERT(pid + 1 < p.whole);
        RC_ASSERT(t0.m == t1.m && t0.n % 2 == 0 && t1.n == t0.n + 1);
        for (const auto& t : {t0, t1}) {
          RC_ASSERT(t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n);
          const std::size_t i = static_cast<std::size_t>(t.m * tiles_n + t.n);
          RC_ASSERT(!paired[i]);
          paired[i] = 1;
        }
      }
      RC_ASSERT(std::count(paired.begin(), paired.end(), 1) == p.whole);
      if (p.split()) RC_ASSERT(p.width % 2 == 0);
    }
    if (!p.split()) {
      RC_ASSERT(p.tail == 0);
      RC_ASSERT(p.slots() == 0);
      RC_ASSERT(p.grid(sms) == std::min<long long>(tiles, sms));
      return;
    }
    RC_ASSERT(p.whole == (tiles / sms) * sms);
    RC_ASSERT(p.width == 1 || (p.width == tiles_n && sms % tiles_n == 0));
    RC_ASSERT(p.groups >= 2 * p.tail);
    RC_ASSERT(static_cast<long long>(p.groups) * p.width <= sms);
    RC_ASSERT(p.begin(0) == 0);
    RC_ASSERT(p.begin(p.groups) == p.iterations());
    namespace g24 = warpsparse::sparse24::gpu;
    if (p.width == 1 || ktiles < g24::kStreamKMinKTiles || sms / p.width < g24::kStreamKMinGroups)
      RC_ASSERT(p.groups % p.tail == 0);
    for (int g = 0; g < p.groups; ++g) {
      RC_ASSERT(p.begin(g + 1) - p.begin(g) >= warpsparse::sparse24::gpu::kMinPartKTiles);
      RC_ASSERT(p.group_of(p.begin(g)) == g);
      RC_ASSERT(p.group_of(p.begin(g + 1) - 1) == g);
    }
    std::vector<char> slot_used(static_cast<std::size_t>(p.slots()), 0);
    for (int r = 0; r < p.tail; ++r) {
      const long long r0 = static_cast<long long>(r) * ktiles;
      for (int col = 0; col < p.width; ++col) {
        const auto t = p.tail_tile(r, col);
        if (tiles <= 200000) mark(t);
        if (p.width > 1) RC_ASSERT(t.n == col);  // a unit is a row: its tiles share A's rows
      }
      long long covered = r0;  // the groups' segments, in order, tile [r0, r0 + ktiles)
      for (int g = p.first_group(r); g <= p.last_group(r); ++g) {
        // covers() (both kernels' "stored directly") names exactly the units one group meets.
        RC_ASSERT(p.covers(p.begin(g), p.begin(g + 1), r) == (p.first_group(r) == p.last_group(r)));
        RC_ASSERT(std::max<long long>(p.begin(g), r0) == covered);
        covered = std::min<long long>(p.begin(g + 1), r0 + ktiles);
        for (int col = 0; col < p.width; ++col) {
          const int s = p.slot(col, g, r);
          RC_ASSERT(s >= 0);
          RC_ASSERT(s < p.slots());
          RC_ASSERT(!slot_used[static_cast<std::size_t>(s)]);
          slot_used[static_cast<std::size_t>(s)] = 1;
        }
      }
      RC_ASSERT(covered == r0 + ktiles);
    }
    RC_ASSERT(8LL * p.segments() * std::min(256LL, m) * std::min(128LL, n) <= m * k);
    RC_ASSERT(p.segments() <= p.slots());
    if (p.groups % p.tail == 0) RC_ASSERT(p.segments() == static_cast<long long>(p.groups) * p.width);
  });
}

TEST_CASE("the CTA tile's rows: square tiles where tall ones leave SMs idle or pay for split-K", "[sparse24][split]") {
  using warpsparse::sparse24::gpu::choose_tile_rows;
  auto rows = [](long long m, long long n, long long k,
                 const warpsparse::DeviceFacts& d = warpsparse::kH100) {
    return choose_tile_rows(m, n, k, static_cast<int>((k + 63) / 64), d);
  };
  // A round or more of tall tiles: tall.
  CHECK(rows(12288, 512, 12288) == 256);
  CHECK(rows(8192, 2048, 8192) == 256);
  // 16 tokens: split-K's partials are small against A (5120 x 16 x 5120: 6 parts, 15 % of A).
  CHECK(rows(5120, 16, 5120) == 256);
  CHECK(rows(12288, 16, 12288) == 256);
  // 128 tokens, one column (tile_time): 11008 x 4096 splits 43 tall tiles in 3 parts, short ones,
  // against 86 square tiles in one round: square (measured 32.3 us against 37.8). 9216² splits 36
  // tall tiles in 3 parts against 72 unsplit square ones, 12288² 48 in 2 against 96: tall (53.7
  // against 60.0 us, 81.2 against 83.4); 13824 x 5120, 54 in 2 against 108: square (41.9 against 48.2).
  CHECK(rows(11008, 128, 4096) == 128);
  CHECK(rows(9216, 128, 9216) == 256);
  CHECK(rows(12288, 128, 12288) == 256);
  CHECK(rows(13824, 128, 5120) == 128);
  CHECK(rows(8192, 128, 8192) == 128);
  CHECK(rows(12288, 128, 49152) == 256);
  CHECK(rows(9216, 128, 36864) == 256);
  // The busiest CTA's K tiles: its whole tiles, then its tail range.
  {
    using warpsparse::sparse24::gpu::split_plan;
    const auto tall = split_plan(9216, 128, 9216, 256, 128, 144, 132);
    const auto square = split_plan(9216, 128, 9216, 128, 128, 144, 132);
    CHECK((tall.groups == 108 && tall.cta_ktiles(132) == 48));
    CHECK((!square.split() && square.cta_ktiles(132) == 144));
    CHECK(split_plan(49152, 128, 12288, 256, 128, 192, 132).cta_ktiles(132) == 192 + 96);
  }
  // Several columns, split: tall once K passes 128 tiles (3584 x 512 x 20480: 86 % of cuSPARSELt
  // against the square tile's 73 %; 5120 x 256 x 13824: 109 % against 82 %), square below
  // (8192 x 256 x 8192: 87 % against 81 %).
  CHECK(rows(3584, 512, 20480) == 256);
  CHECK(rows(4096, 512, 14336) == 256);
  CHECK(rows(4096, 512, 11008) == 256);
  CHECK(rows(5120, 256, 13824) == 256);
  CHECK(rows(8192, 256, 8192) == 128);
  CHECK(rows(4096, 256, 4096) == 128);
  // 512 tokens, unsplit: 64 tall tiles, 128 square ones fit one round: square; 80 tall tiles: tall.
  CHECK(rows(4096, 512, 4096) == 128);
  CHECK(rows(5120, 512, 5120) == 256);
  // Degenerate shapes stay tall.
  CHECK(rows(0, 16, 512) == 256);
  CHECK(rows(16, 16, 0) == 256);
  // The H200's faster memory makes partials cheaper against the K loop (partial_byte_time): one
  // column of split tall tiles wins where the H100 takes square tiles. Measured on the H200, tall
  // against square: 13824 x 64 x 5120 37.5 against 41.9 us, 5120 x 32 x 5120 22.0 against 24.5,
  // 4096 x 64 x 11008 29.6 against 32.6; 9216 x 128 x 9216 stays tall, 11008 x 128 x 4096 square.
  using warpsparse::kH100;
  using warpsparse::kH200;
  using warpsparse::sparse24::gpu::partial_byte_time;
  CHECK(partial_byte_time(kH100) == warpsparse::sparse24::gpu::kTimePerPartialByte);
  CHECK(partial_byte_time(kH200) < partial_byte_time(kH100));
  for (const auto& [m, n, k] :
       {std::array<long long, 3>{13824, 64, 5120}, {5120, 32, 5120}, {4096, 64, 11008}}) {
    CHECK(rows(m, n, k, kH100) == 128);
    CHECK(rows(m, n, k, kH200) == 256);
  }
  CHECK(rows(9216, 128, 9216, kH200) == 256);
  CHECK(rows(11008, 128, 4096, kH200) == 128);
  // A GPU whose memory was not measured plans as the H100 does.
  warpsparse::DeviceFacts unknown = kH200;
  unknown.copy_bytes_per_s = 0;
  CHECK(rows(13824, 64, 5120, unknown) == 128);
}

TEST_CASE("clusters of two where tall tiles fill more than a round in two or four columns",
          "[sparse24][split]") {
  const auto& h100 = warpsparse::kH100;  // 132 SMs
  auto choose_pairs = [](long long m, long long n, long long k, const warpsparse::DeviceFacts& d) {
    return warpsparse::sparse24::gpu::choose_pairs(m, n, k, static_cast<int>((k + 63) / 64), d);
  };
  // 512 tokens (four columns): 36864 x 512 runs 576 tiles, 12288 x 512 192, 9216 x 512 144: pairs.
  CHECK(choose_pairs(36864, 512, 12288, h100));
  CHECK(choose_pairs(12288, 512, 12288, h100));
  CHECK(choose_pairs(9216, 512, 12288, h100));
  // 8192 x 512 fills one round (128 tiles), 4096 x 512 half of one: single CTAs.
  CHECK(!choose_pairs(8192, 512, 12288, h100));
  CHECK(!choose_pairs(4096, 512, 12288, h100));
  // Two columns (256 tokens) pair; an odd count (384) or more than four (2048) does not.
  CHECK(choose_pairs(36864, 256, 12288, h100));
  CHECK(!choose_pairs(36864, 384, 12288, h100));
  CHECK(!choose_pairs(36864, 2048, 12288, h100));
  CHECK(!choose_pairs(36864, 128, 12288, h100));
  CHECK(!choose_pairs(0, 512, 12288, h100));
  // 6145 x 385 x 449 on 98 SMs: 100 tiles in four columns, but 98 SMs are no multiple of four, so
  // the shared tail is single tiles and cannot pair.
  warpsparse::DeviceFacts d98 = h100;
  d98.sms = 98;
  CHECK(!choose_pairs(6145, 385, 449, d98));
  // Random shapes: pairs only where the schedule can run them (SplitPlan::clusters on every SM)
  // and the tiles outnumber the SMs.
  ws_prop("pairs only where the plan allows clusters of two", 100, [&] {
    const long long m = *rc::gen::inRange(1, 60000), n = *rc::gen::inRange(1, 700),
                    k = *rc::gen::inRange(1, 20000);
    warpsparse::DeviceFacts d = warpsparse::kH100;
    d.sms = 2 * *rc::gen::inRange(1, 100);
    if (!choose_pairs(m, n, k, d)) return;
    const auto p =
        warpsparse::sparse24::gpu::split_plan(m, n, k, 256, 128, static_cast<int>((k + 63) / 64), d.sms);
    RC_ASSERT(p.whole + p.tail_tiles() > d.sms);
    RC_ASSERT(p.tiles_n <= warpsparse::sparse24::gpu::kPairMaxCols);
    RC_ASSERT(p.clusters(2, d.sms));
  });
}
