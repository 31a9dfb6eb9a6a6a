// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 on 32 emulated lanes: D = A·B + C
// with A 16 × 16 (row-major), B 16 × 8 (column-major), C and D 16 × 8 in fp32.
//
// Spec: PTX ISA 9.0, §9.7.14.5 "Matrix multiply-accumulate operation using mma instruction",
// §9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type".
// groupID g = lane >> 2, threadID_in_group t = lane % 4.
// A: 4 × .f16x2 registers, elements a0..a7 (low half of a register first)
//     a0,a1  row g      column 2t + (i & 1)      a4,a5  row g      column 2t + (i & 1) + 8
//     a2,a3  row g + 8  column 2t + (i & 1)      a6,a7  row g + 8  column 2t + (i & 1) + 8
//   the map of mma.sp's compressed A (mma_sp_a_coord), so register r holds row g (+ 8 when r is
//   odd) of the 8 × 8 quadrant of rows 8 (r & 1) .. +7 and columns 8 (r >> 1) .. +7.
// B: 2 × .f16x2 registers, b0..b3: row (k) 2t + (i & 1) + 8 (i >> 1), column (n) g; mma.sp's b0..b3.
// C, D: 4 × f32, c0..c3: row g + 8 (i >> 1), column 2t + (i & 1); as mma.sp.
//
// Arithmetic: as mma_sp.hpp — the products are exact, each output's 16 products and its
// accumulator are summed exactly and rounded once to fp32 (mma_block_sum). The hardware's order
// and intermediate rounding are not specified, so kernels are judged within a bound (the models'
// ErrorBound), never bit for bit.
#pragma once
#include <array>
#include <cstdint>

#include "reference/warp/mma_sp.hpp"

namespace warpsparse::warp {

// A: element i (0..7) of `lane` -> (row, column) of the 16 × 16 tile.
inline constexpr FragCoord mma_a_coord(int lane, int i) { return mma_sp_a_coord(lane, i); }
// B: element i (0..3) of `lane` -> (k, n) of the 16 × 8 tile.
inline constexpr FragCoord mma_b_coord(int lane, int i) { return mma_sp_b_coord(lane, i); }
// C/D: element i (0..3) of `lane` -> (row, n) of the 16 × 8 tile.
inline constexpr FragCoord mma_cd_coord(int lane, int i) { return mma_sp_cd_coord(lane, i); }

using MmaReg2 = std::array<std::uint32_t, 2>;

// Two 16-bit elements in one .f16x2 / .bf16x2 register, `lo` the lower-numbered element.
inline constexpr std::uint32_t pack_pair(std::uint16_t lo, std::uint16_t hi) {
  return std::uint32_t{lo} | std::uint32_t{hi} << 16;
}

// The decoded operands of one mma: A 16 × 16, B 16 × 8, C 16 × 8.
struct MmaTiles {
  std::array<std::array<float, 16>, 16> a{};
  std::array<std::array<float, 8>, 16> b{};
  std::array<std::array<float, 8>, 16> c{};
};

inline MmaTiles mma_gather(const Lanes<MmaReg4>& a, const Lanes<MmaReg2>& b, const Lanes<MmaAcc4>& c, bool is_bf16) {
  MmaTiles t;
  for (int l = 0; l < kWarpSize; ++l) {
    const auto L = static_cast<std::size_t>(l);
    for (int i = 0; i < 8; ++i) {
      const FragCoord ac = mma_a_coord(l, i);
      t.a[static_cast<std::size_t>(ac.row)][static_cast<std::size_t>(ac.col)] =
          element_of(a[L][static_cast<std::size_t>(i / 2)], i % 2, is_bf16);
    }
    for (int i = 0; i < 4; ++i) {
      const FragCoord bc = mma_b_coord(l, i);
      t.b[static_cast<std::size_t>(bc.row)][static_cast<std::size_t>(bc.col)] =
          element_of(b[L][static_cast<std::size_t>(i / 2)], i % 2, is_bf16);
      const FragCoord cc = mma_cd_coord(l, i);
      t.c[static_cast<std::size_t>(cc.row)][static_cast<std::size_t>(cc.col)] = c[L][static_cast<std::size_t>(i)];
    }
  }
  return t;
}

// D = A·B + C for one mma.m16n8k16 (see the arithmetic note above).
inline Lanes<MmaAcc4> mma_m16n8k16(const Lanes<MmaReg4>& a, const Lanes<MmaReg2>& b, const Lanes<MmaAcc4>& c,
                                   bool is_bf16) {
  const MmaTiles t = mma_gather(a, b, c, is_bf16);
  return mma_block_sum(t.a, t.b, t.c);
}

}  // namespace warpsparse::warp
