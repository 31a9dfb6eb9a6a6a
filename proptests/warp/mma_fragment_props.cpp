// mma.m16n8k16 .row.col f32 += {f16, bf16} on 32 emulated lanes: D equals A·B + C of the tiles the
// PTX ISA tables describe. The operands are packed here from the tables written out case by case
// (PTX ISA 9.0 §9.7.14.5.8), not from the emulator's coordinate functions; small integers make
// every sum exact in fp32. (The maps are mma.sp's, whose coverage mma_sp_fragment_props checks.)
#include <array>
#include <random>
#include <vector>

#include "proptests/prop_support.hpp"
#include "reference/warp/mma.hpp"

namespace ws = warpsparse;
namespace wp = warpsparse::warp;

namespace {

struct Problem {
  int a[16][16], b[16][8], c[16][8];
};

std::uint16_t bits16(int v, bool bf16) {
  return bf16 ? ws::bits_of(ws::to_bf16(static_cast<float>(v))) : ws::bits_of(ws::to_half(static_cast<float>(v)));
}

// The tables: A element ai row g (i = 0, 1, 4, 5) or g + 8, column 2t + (i & 1), + 8 for i >= 4;
// B element bi row 2t + (i & 1), + 8 for i >= 2, column g; C element ci row g, + 8 for i >= 2,
// column 2t + (i & 1). Two elements per 32-bit register, the lower-numbered in the low half.
void pack(const Problem& p, bool bf16, wp::Lanes<wp::MmaReg4>& a, wp::Lanes<wp::MmaReg2>& b, wp::Lanes<wp::MmaAcc4>& c) {
  for (int l = 0; l < 32; ++l) {
    const auto L = static_cast<std::size_t>(l);
    const int g = l >> 2, t = l % 4;
    a[L] = {0, 0, 0, 0};
    b[L] = {0, 0};
    for (int i = 0; i < 8; ++i) {
      int row = 0;
      switch (i) {
        case 0: case 1: case 4: case 5: row = g; break;
        default: row = g + 8; break;
      }
      const int col = 2 * t + (i % 2) + (i >= 4 ? 8 : 0);
      a[L][static_cast<std::size_t>(i / 2)] |= std::uint32_t(bits16(p.a[row][col], bf16)) << (16 * (i % 2));
    }
    for (int i = 0; i < 4; ++i) {
      const int k = 2 * t + (i % 2) + (i >= 2 ? 8 : 0);
      b[L][static_cast<std::size_t>(i / 2)] |= std::uint32_t(bits16(p.b[k][g], bf16)) << (16 * (i % 2));
    }
    c[L] = {static_cast<float>(p.c[g][2 * t]), static_cast<float>(p.c[g][2 * t + 1]),
            static_cast<float>(p.c[g + 8][2 * t]), static_cast<float>(p.c[g + 8][2 * t + 1])};
  }
}

}  // namespace

TEST_CASE("mma.m16n8k16: D = A·B + C of the tiles the PTX tables describe", "[mma]") {
  ws::proptest::ws_prop("random integer tiles, fp16 and bf16", 200, [] {
    const bool bf16 = *rc::gen::arbitrary<bool>().as("bf16");
    std::mt19937 rng(*rc::gen::arbitrary<std::uint32_t>().as("seed"));
    std::uniform_int_distribution<int> val(-7, 7);
    Problem p{};
    for (auto& row : p.a) for (auto& v : row) v = val(rng);
    for (auto& row : p.b) for (auto& v : row) v = val(rng);
    for (auto& row : p.c) for (auto& v : row) v = 16 * val(rng);
    wp::Lanes<wp::MmaReg4> a;
    wp::Lanes<wp::MmaReg2> b;
    wp::Lanes<wp::MmaAcc4> c;
    pack(p, bf16, a, b, c);
    const auto d = wp::mma_m16n8k16(a, b, c, bf16);
    for (int l = 0; l < 32; ++l) {
      const int g = l >> 2, t = l % 4;
      for (int i = 0; i < 4; ++i) {
        const int row = g + (i < 2 ? 0 : 8), n = 2 * t + (i % 2);
        long want = p.c[row][n];
        for (int k = 0; k < 16; ++k) want += long{p.a[row][k]} * p.b[k][n];
        RC_ASSERT(d[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)] == static_cast<float>(want));
      }
    }
  });
}
