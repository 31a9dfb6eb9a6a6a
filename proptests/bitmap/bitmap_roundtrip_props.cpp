// Bitmap-tile format: decode(encode(M)) == M without its zeros, bit for bit, for fp16 / bf16 / fp32
// over the shared matrix recipes (shapes not multiples of 16, rows of >= 2^16 columns, empty rows,
// d = 1 down to 0, NaN / Inf / -0 values); the bytes do not depend on the encoder's thread count;
// find_fault names the array and index of a corrupted bitmap, tile offset, value array or a bit
// set outside the matrix; and the layout's lane map is the mma.m16n8k16 A fragment of the PTX
// tables, with lane_slots finding each lane's values where the encoder put them.
#include <cstring>
#include <random>

#include "proptests/generators.hpp"
#include "proptests/prop_support.hpp"
#include "reference/bitmap/bitmap_format.hpp"
#include "reference/bitmap/bitmap_spmm_model.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

template <class T>
bool same_bytes(const Bitmap<T>& a, const Bitmap<T>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.bitmaps == b.bitmaps && a.tile_off == b.tile_off &&
         a.row_base == b.row_base && a.values.size() == b.values.size() &&
         (a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(T)) == 0);
}

template <class T>
void roundtrip_property() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  RC_TAG(to_string(rec.family));
  RC_TAG(rec.rows % 16 ? "rows not a multiple of 16" : "rows a multiple of 16");
  RC_TAG(rec.cols % 16 ? "cols not a multiple of 16" : "cols a multiple of 16");
  const SparseRows<T> m = build<T>(rec);
  const Bitmap<T> a = encode_bitmap(m, 1);
  a.validate();
  const SparseRows<T> want = m.without_zeros();
  RC_ASSERT(same_bits(decode_bitmap(a), want));
  RC_ASSERT(a.nnz() == want.nnz());
  for (const int threads : {2, 7}) RC_ASSERT(same_bytes(encode_bitmap(m, threads), a));
}

// A matrix with at least one nonzero, from the recipes.
template <class T>
SparseRows<T> nonempty_matrix() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  const SparseRows<T> m = build<T>(rec).without_zeros();
  RC_PRE(m.nnz() > 0);
  return m;
}

bool names(const std::optional<std::string>& fault, const std::string& what) {
  return fault && fault->find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("decode(encode(M)) == M without zeros bit for bit; bytes independent of threads", "[bitmap]") {
  ws_prop("fp16", 600, [] { roundtrip_property<half>(); });
  ws_prop("bf16", 400, [] { roundtrip_property<bfloat16>(); });
  ws_prop("fp32", 400, [] { roundtrip_property<float>(); });
}

TEST_CASE("hand-built edge shapes round-trip", "[bitmap]") {
  SECTION("all zero, with stored zeros; no rows; no columns") {
    SparseRows<half> z;
    z.cols = 37;
    for (int r = 0; r < 19; ++r) {
      z.push(r, from_float<half>(r % 2 ? -0.0f : 0.0f));
      z.end_row();
    }
    const Bitmap<half> a = encode_bitmap(z);
    CHECK(a.nnz() == 0);
    CHECK(a.tiles() == 2 * 3);
    CHECK(same_bits(decode_bitmap(a), z.without_zeros()));
    SparseRows<half> none;
    none.cols = 5;
    CHECK(same_bits(decode_bitmap(encode_bitmap(none)), none));
    SparseRows<half> narrow;
    for (int r = 0; r < 3; ++r) narrow.end_row();
    const Bitmap<half> an = encode_bitmap(narrow);
    CHECK(an.tiles() == 0);
    CHECK(same_bits(decode_bitmap(an), narrow));
  }
  SECTION("a dense 17 x 33 matrix: every bit of the inside set, none of the padding") {
    std::vector<bfloat16> d(17 * 33);
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = from_float<bfloat16>(1.0f + float(i));
    const auto m = SparseRows<bfloat16>::from_dense(17, 33, d);
    const Bitmap<bfloat16> a = encode_bitmap(m);
    CHECK(a.nnz() == 17 * 33);
    CHECK(same_bits(decode_bitmap(a), m));
    CHECK(a.bitmaps[0] == ~std::uint64_t{0});
    // Tile (1, 2): row 16 and column 32 only, so subtile 0 bit 0.
    CHECK(a.bitmaps[(1 * 3 + 2) * 4 + 0] == 1u);
    CHECK(a.bitmaps[(1 * 3 + 2) * 4 + 1] == 0u);
  }
}

TEST_CASE("find_fault names the array and index of a corruption", "[bitmap]") {
  ws_prop("a flipped bitmap bit inside the matrix breaks the next tile offset or the row's count", 300, [] {
    const SparseRows<half> m = nonempty_matrix<half>();
    Bitmap<half> a = encode_bitmap(m);
    // An element inside the matrix: its tile and bit.
    const std::int64_t r = *rc::gen::inRange<std::int64_t>(0, m.rows).as("row");
    const std::int64_t c = *rc::gen::inRange<std::int64_t>(0, m.cols).as("column");
    const std::int64_t t = r / 16, k = c / 16, kt = a.k_tiles();
    const int rr = static_cast<int>(r % 16), cc = static_cast<int>(c % 16);
    const std::size_t word = static_cast<std::size_t>((t * kt + k) * 4 + bitmap::subtile_of(rr, cc));
    a.bitmaps[word] ^= std::uint64_t{1} << bitmap::bit_of(rr, cc);
    const auto f = a.find_fault();
    if (k + 1 < kt) RC_ASSERT(names(f, "tile_off[" + std::to_string(t * kt + k + 1) + "]"));
    else RC_ASSERT(names(f, "row_base[" + std::to_string(t + 1) + "]"));
    RC_ASSERT_THROWS_AS(decode_bitmap(a), Error);
  });
  ws_prop("a changed tile offset", 300, [] {
    const SparseRows<half> m = nonempty_matrix<half>();
    Bitmap<half> a = encode_bitmap(m);
    const std::size_t tile = *rc::gen::inRange<std::size_t>(0, a.tile_off.size()).as("tile");
    a.tile_off[tile] += *rc::gen::inRange<std::uint32_t>(1, 5).as("delta");
    RC_ASSERT(names(a.find_fault(), "tile_off[" + std::to_string(tile) + "]"));
  });
  ws_prop("truncated values", 300, [] {
    const SparseRows<bfloat16> m = nonempty_matrix<bfloat16>();
    Bitmap<bfloat16> a = encode_bitmap(m);
    a.values.pop_back();
    RC_ASSERT(names(a.find_fault(), "values has " + std::to_string(a.values.size()) + " elements"));
  });
  ws_prop("a bit set in the padding outside the matrix", 300, [] {
    const SparseRows<float> m = build<float>(*rc::gen::arbitrary<Recipe>().as("matrix"));
    RC_PRE(m.rows % 16 != 0 || m.cols % 16 != 0);
    Bitmap<float> a = encode_bitmap(m);
    const std::int64_t tr = a.tile_rows(), kt = a.k_tiles();
    // A padding element: below the last row in the last tile row, or right of the last column in
    // the last k tile.
    const bool below = m.rows % 16 != 0 && (m.cols % 16 == 0 || *rc::gen::arbitrary<bool>().as("below"));
    std::int64_t r, c;
    if (below) {
      r = *rc::gen::inRange<std::int64_t>(m.rows, tr * 16).as("padding row");
      c = *rc::gen::inRange<std::int64_t>(0, kt * 16).as("column");
    } else {
      r = *rc::gen::inRange<std::int64_t>(0, tr * 16).as("row");
      c = *rc::gen::inRange<std::int64_t>(m.cols, kt * 16).as("padding column");
    }
    const int rr = static_cast<int>(r % 16), cc = static_cast<int>(c % 16), b = bitmap::bit_of(rr, cc);
    const std::size_t word = static_cast<std::size_t>(((r / 16) * kt + c / 16) * 4 + bitmap::subtile_of(rr, cc));
    a.bitmaps[word] |= std::uint64_t{1} << b;
    RC_ASSERT(names(a.find_fault(), "bitmaps[" + std::to_string(word) + "] bit " + std::to_string(b) + " marks row " +
                                        std::to_string(r) + ", column " + std::to_string(c)));
  });
}

TEST_CASE("the lane map is the mma.m16n8k16 A fragment: register s of a lane reads subtile s", "[bitmap]") {
  STATIC_REQUIRE(bitmap::lane_map_is_mma_a_fragment());
  // The PTX table (PTX ISA 9.0 §9.7.14.5.8), written out: element ai of lane 4g + t is row g for
  // i in {0, 1, 4, 5}, else g + 8; column 2t + (i & 1), + 8 for i >= 4. Register s holds a(2s), a(2s+1).
  for (int l = 0; l < 32; ++l)
    for (int s = 0; s < 4; ++s)
      for (int j = 0; j < 2; ++j) {
        const int g = l >> 2, t = l % 4, i = 2 * s + j;
        const int row = (i == 0 || i == 1 || i == 4 || i == 5) ? g : g + 8;
        const int col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
        CAPTURE(l, s, j);
        REQUIRE(bitmap::lane_row(l, s) == row);
        REQUIRE(bitmap::lane_col(l, s, j) == col);
        REQUIRE(bitmap::subtile_of(row, col) == s);
        REQUIRE(bitmap::bit_of(row, col) == bitmap::lane_bit(l) + j);
      }
}

TEST_CASE("lane_slots finds each lane's values at the slots the encoder fills", "[bitmap]") {
  ws_prop("random tile bitmaps", 500, [] {
    std::mt19937_64 rng(*rc::gen::arbitrary<std::uint64_t>().as("seed"));
    const int density_bits = *rc::gen::inRange(0, 4).as("and-ed words");  // 0: all set ... 3: ~1/8 set
    std::uint64_t bm[4];
    for (auto& w : bm) {
      w = ~std::uint64_t{0};
      for (int i = 0; i < density_bits; ++i) w &= rng();
    }
    const std::int64_t base = *rc::gen::inRange<std::int64_t>(0, 1 << 20).as("base");
    // The encoder's rule: the value of element (r, c) at value_slot(bm, base, subtile, bit).
    for (int l = 0; l < 32; ++l) {
      const auto sl = bitmap::lane_slots(bm, base, l);
      for (int s = 0; s < 4; ++s) {
        const int r = bitmap::lane_row(l, s);
        const int b0 = bitmap::bit_of(r, bitmap::lane_col(l, s, 0)), b1 = bitmap::bit_of(r, bitmap::lane_col(l, s, 1));
        RC_ASSERT(sl.lo[s] == bool((bm[s] >> b0) & 1u));
        RC_ASSERT(sl.hi[s] == bool((bm[s] >> b1) & 1u));
        if (sl.lo[s]) RC_ASSERT(sl.first[s] == bitmap::value_slot(bm, base, s, b0));
        if (sl.hi[s]) RC_ASSERT(sl.first[s] + (sl.lo[s] ? 1 : 0) == bitmap::value_slot(bm, base, s, b1));
      }
    }
  });
}
