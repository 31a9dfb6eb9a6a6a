// mma.sp::ordered_metadata m16n8k32 on 32 emulated lanes: fragment maps are bijections, and for
// every valid ordered index pair at every row and group, with both sparsity selectors, D equals
// the product of the dense tile the spec's tables describe. The operands are packed here from the
// PTX ISA tables written out case by case, not from the model's coordinate functions.
#include <rapidcheck.h>

#include <array>
#include <cmath>
#include <random>

#include "proptests/prop_support.hpp"
#include "reference/warp/mma_sp.hpp"

namespace ws = warpsparse;
namespace wp = warpsparse::warp;
using warpsparse::proptest::ws_prop;

TEST_CASE("mma.sp fragment maps cover each tile exactly once", "[mma_sp]") {
  std::vector<int> a(16 * 16, 0), b(32 * 8, 0), c(16 * 8, 0);
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < 8; ++i) {
      const auto ac = wp::mma_sp_a_coord(l, i);
      ++a[static_cast<std::size_t>(ac.row * 16 + ac.col)];
      const auto bc = wp::mma_sp_b_coord(l, i);
      ++b[static_cast<std::size_t>(bc.row * 8 + bc.col)];
    }
    for (int i = 0; i < 4; ++i) {
      const auto cc = wp::mma_sp_cd_coord(l, i);
      ++c[static_cast<std::size_t>(cc.row * 8 + cc.col)];
    }
  }
  for (int h : a) REQUIRE(h == 1);
  for (int h : b) REQUIRE(h == 1);
  for (int h : c) REQUIRE(h == 1);
  for (int sel = 0; sel < 2; ++sel) {
    std::vector<int> m(16 * 8, 0);
    int lanes = 0;
    for (int l = 0; l < 32; ++l) {
      if (!wp::mma_sp_meta_lane(l, sel)) continue;
      ++lanes;
      for (int n = 0; n < 8; ++n) {
        const auto f = wp::mma_sp_meta_field(l, n);
        ++m[static_cast<std::size_t>(f.row * 8 + f.group)];
      }
    }
    CHECK(lanes == 16);
    for (int h : m) REQUIRE(h == 1);
  }
}

namespace {

// One m16n8k32 problem in spec terms: compressed A (16 × 16), nibbles [row][group], B (32 × 8),
// C (16 × 8); V = int for small integers (exact in every order), float for values that round.
template <class V>
struct ProblemOf {
  V a[16][16];
  std::uint32_t nib[16][8];
  V b[32][8];
  V c[16][8];
};
using Problem = ProblemOf<int>;

std::uint16_t bits16(float v, bool bf16) {
  return bf16 ? ws::bits_of(ws::to_bf16(v)) : ws::bits_of(ws::to_half(v));
}

// PTX ISA "Matrix fragments for sparse mma.m16n8k32 with .f16/.bf16", A: row / column of ai.
void a_element(int lane, int i, int& row, int& col) {
  const int g = lane >> 2, t = lane % 4;
  switch (i) {
    case 0: case 1: row = g;     col = 2 * t + i;         break;
    case 2: case 3: row = g + 8; col = 2 * t + i - 2;     break;
    case 4: case 5: row = g;     col = 2 * t + i - 4 + 8; break;
    default:        row = g + 8; col = 2 * t + i - 6 + 8; break;
  }
}

template <class V>
void pack(const ProblemOf<V>& p, int sel, bool bf16, wp::Lanes<wp::MmaReg4>& a, wp::Lanes<wp::MmaReg4>& b,
          wp::Lanes<wp::MmaAcc4>& c, wp::Lanes<std::uint32_t>& e, std::uint32_t unused_meta) {
  for (int l = 0; l < 32; ++l) {
    const auto L = static_cast<std::size_t>(l);
    const int g = l >> 2, t = l % 4;
    a[L] = {0, 0, 0, 0};
    b[L] = {0, 0, 0, 0};
    for (int i = 0; i < 8; ++i) {
      int row = 0, col = 0;
      a_element(l, i, row, col);
      a[L][static_cast<std::size_t>(i / 2)] |= std::uint32_t(bits16(static_cast<float>(p.a[row][col]), bf16))
                                               << (16 * (i % 2));
      // B: row 2t + (i%2) for b0,b1; +8 for b2,b3; +16 for b4,b5; +24 for b6,b7; column g.
      const int k = 2 * t + (i % 2) + (i < 2 ? 0 : i < 4 ? 8 : i < 6 ? 16 : 24);
      b[L][static_cast<std::size_t>(i / 2)] |= std::uint32_t(bits16(static_cast<float>(p.b[k][g]), bf16))
                                               << (16 * (i % 2));
    }
    // C: c0,c1 at (g, 2t), (g, 2t+1); c2,c3 at (g+8, 2t), (g+8, 2t+1).
    c[L] = {static_cast<float>(p.c[g][2 * t]), static_cast<float>(p.c[g][2 * t + 1]),
            static_cast<float>(p.c[g + 8][2 * t]), static_cast<float>(p.c[g + 8][2 * t + 1])};
    // Metadata: lanes 4g + 2*sel + q; q = 0 covers groups 0-3 (K 0-15), q = 1 groups 4-7 (K 16-31);
    // low half row g, high half row g + 8.
    if (t / 2 == sel) {
      const int q = t % 2;
      std::uint32_t w = 0;
      for (int j = 0; j < 4; ++j) {
        w |= p.nib[g][4 * q + j] << (4 * j);
        w |= p.nib[g + 8][4 * q + j] << (16 + 4 * j);
      }
      e[L] = w;
    } else {
      e[L] = unused_meta;
    }
  }
}

// Row r of the dense 16 × 32 A that the compressed tile and its nibbles describe (low two bits: the
// first kept position of a group, high two: the second).
template <class V>
std::array<V, 32> dense_row(const ProblemOf<V>& p, int r) {
  std::array<V, 32> dense{};
  for (int grp = 0; grp < 8; ++grp) {
    dense[static_cast<std::size_t>(4 * grp) + (p.nib[r][grp] & 3u)] = p.a[r][2 * grp];
    dense[static_cast<std::size_t>(4 * grp) + (p.nib[r][grp] >> 2)] = p.a[r][2 * grp + 1];
  }
  return dense;
}

// Dense A times B, plus C, in exact integer arithmetic.
std::array<std::array<long, 8>, 16> expected(const Problem& p) {
  std::array<std::array<long, 8>, 16> d{};
  for (int r = 0; r < 16; ++r) {
    const auto dense = dense_row(p, r);
    for (int n = 0; n < 8; ++n) {
      long s = p.c[r][n];
      for (int k = 0; k < 32; ++k) s += static_cast<long>(dense[static_cast<std::size_t>(k)]) * p.b[k][n];
      d[static_cast<std::size_t>(r)][static_cast<std::size_t>(n)] = s;
    }
  }
  return d;
}

const std::uint32_t kValidNibbles[6] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};

Problem random_problem(std::mt19937& rng) {
  std::uniform_int_distribution<int> val(-7, 7), pick(0, 5);
  Problem p{};
  for (auto& row : p.a) for (auto& v : row) v = val(rng);
  for (auto& row : p.nib) for (auto& v : row) v = kValidNibbles[pick(rng)];
  for (auto& row : p.b) for (auto& v : row) v = val(rng);
  for (auto& row : p.c) for (auto& v : row) v = 16 * val(rng);
  return p;
}

void check_d(const Problem& p, const wp::Lanes<wp::MmaAcc4>& d) {
  const auto want = expected(p);
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = g + (i < 2 ? 0 : 8), col = 2 * t + (i % 2);
      REQUIRE(d[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)] ==
              static_cast<float>(want[static_cast<std::size_t>(row)][static_cast<std::size_t>(col)]));
    }
  }
}

}  // namespace

TEST_CASE("mma.sp m16n8k32: every ordered index pair at every row and group, both selectors",
          "[mma_sp][exhaustive]") {
  std::mt19937 rng(12345);
  for (bool bf16 : {true, false})
    for (int sel = 0; sel < 2; ++sel)
      for (std::uint32_t nibble : kValidNibbles)
        for (int row = 0; row < 16; ++row)
          for (int group = 0; group < 8; ++group) {
            CAPTURE(bf16, sel, nibble, row, group);
            Problem p = random_problem(rng);
            p.nib[row][group] = nibble;
            wp::Lanes<wp::MmaReg4> a, b;
            wp::Lanes<wp::MmaAcc4> c;
            wp::Lanes<std::uint32_t> e;
            // Lanes of the other pair carry garbage (unordered nibbles): the instruction ignores them.
            pack(p, sel, bf16, a, b, c, e, 0xffffffffu);
            check_d(p, wp::mma_sp_m16n8k32(a, b, c, e, sel, bf16));
          }
}

TEST_CASE("mma.sp::ordered_metadata rejects the 10 unordered nibbles and selectors other than 0/1",
          "[mma_sp]") {
  std::mt19937 rng(7);
  int rejected = 0;
  for (std::uint32_t nibble = 0; nibble < 16; ++nibble)
    for (int sel = 0; sel < 2; ++sel) {
      Problem p = random_problem(rng);
      p.nib[9][5] = nibble;
      wp::Lanes<wp::MmaReg4> a, b;
      wp::Lanes<wp::MmaAcc4> c;
      wp::Lanes<std::uint32_t> e;
      pack(p, sel, true, a, b, c, e, 0x44444444u);
      if (wp::nibble_ordered(nibble)) {
        check_d(p, wp::mma_sp_m16n8k32(a, b, c, e, sel, true));
      } else {
        CHECK_THROWS_AS(wp::mma_sp_m16n8k32(a, b, c, e, sel, true), wp::WarpFault);
        ++rejected;
      }
    }
  CHECK(rejected == 2 * 10);
  std::mt19937 rng2(8);
  const Problem p = random_problem(rng2);
  wp::Lanes<wp::MmaReg4> a, b;
  wp::Lanes<wp::MmaAcc4> c;
  wp::Lanes<std::uint32_t> e;
  pack(p, 0, true, a, b, c, e, 0x44444444u);
  CHECK_THROWS_AS(wp::mma_sp_m16n8k32(a, b, c, e, 2, true), wp::WarpFault);
}

TEST_CASE("mma.sp m16n8k32 with non-integer values rounds once to fp32", "[mma_sp][prop]") {
  // A and B are multiples of 1/64 in [-1, 1] (exact in bf16), C multiples of 2^-30 below 1: every
  // product and sum is exact in double, so the oracle is the real value rounded once, in any order,
  // while the fp32 result needs up to 36 bits and rounds, unlike the integer tiles above. Operands are
  // packed from the spec's tables (pack), and the dense A comes from the problem, not from the model.
  ws_prop("random bf16 tiles", 100, [] {
    const int sel = *rc::gen::inRange(0, 2).as("selector");
    const auto seed = *rc::gen::arbitrary<std::uint32_t>().as("seed");
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> val(-64, 64), pick(0, 5), acc(-(1 << 30), 1 << 30);
    ProblemOf<float> p{};
    for (auto& row : p.a)
      for (auto& v : row) v = static_cast<float>(val(rng)) / 64.f;
    for (auto& row : p.nib)
      for (auto& v : row) v = kValidNibbles[pick(rng)];
    for (auto& row : p.b)
      for (auto& v : row) v = static_cast<float>(val(rng)) / 64.f;
    for (auto& row : p.c)
      for (auto& v : row) v = std::ldexp(static_cast<float>(acc(rng)), -30);
    wp::Lanes<wp::MmaReg4> a, b;
    wp::Lanes<wp::MmaAcc4> c;
    wp::Lanes<std::uint32_t> e;
    pack(p, sel, true, a, b, c, e, 0xffffffffu);
    const auto d = wp::mma_sp_m16n8k32(a, b, c, e, sel, true);
    for (int l = 0; l < 32; ++l) {
      const int g = l >> 2, t = l % 4;
      for (int i = 0; i < 4; ++i) {
        const int row = g + (i < 2 ? 0 : 8), col = 2 * t + (i % 2);
        const auto dense = dense_row(p, row);
        double s = p.c[row][col];
        for (int k = 0; k < 32; ++k) s += double(dense[static_cast<std::size_t>(k)]) * p.b[k][col];
        RC_ASSERT(d[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)] == static_cast<float>(s));
      }
    }
  });
}
