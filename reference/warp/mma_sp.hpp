// mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.{bf16,f16}.{bf16,f16}.f32 on 32
// emulated lanes.
//
// Spec: PTX ISA 9.0, §9.7.14.6 "Multiply-and-Accumulate Instruction: mma.sp", §9.7.14.6.1
// "Sparse matrix storage", §9.7.14.6.2 "Matrix fragments for sparse mma.m16n8k32 with
// .f16/.bf16". groupID g = lane >> 2, threadID_in_group t = lane % 4.
//
// A (16 × 32 logical, stored compressed 16 × 16): 4 × .b32 registers, 8 elements a0..a7
//     element ai      row                 compressed column
//     a0,a1           g                   2t + i                (i = 0, 1)
//     a2,a3           g + 8               2t + (i - 2)
//     a4,a5           g                   2t + (i - 4) + 8
//     a6,a7           g + 8               2t + (i - 6) + 8
//   compressed column c holds the kept element of group c/2 (logical K 4*(c/2) .. +3) at the
//   lower (c even) or higher (c odd) metadata position.
// B (32 × 8): 4 × .b32, 8 elements b0..b7
//     bi              row (k) = 2t + (i % 2) + 8 * (i / 2)     column (n) = g
// C, D (16 × 8, f32): 4 × f32 c0..c3
//     ci              row = g + 8 * (i / 2)                    column = 2t + (i % 2)
// Metadata e (.b32) and sparsity selector s (0 or 1; figure "Sparse MMA metadata m16n8k32
// f16/bf16"): only lanes with t = 2s + p (p = 0, 1) are read; lane 4g + 2s + p supplies
//     bits [4j, 4j+4)      nibble of row g,     group 4p + j  (logical K 16p + 4j .. +3), j = 0..3
//     bits [16+4j, 20+4j)  nibble of row g + 8, group 4p + j
//   nibble = lo | hi << 2, lo < hi (::ordered_metadata); other lanes' e is ignored.
//
// Arithmetic: products of bf16/f16 values are exact in fp32; the hardware's accumulation order and
// intermediate rounding are not specified by PTX. The model sums the 16 kept products of each row
// and the accumulator exactly (double, exact for these magnitudes up to one rounding) and rounds
// once to fp32. Kernels are therefore compared to oracles within a bound (sparse24_gemm_model.hpp),
// never bit for bit.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "reference/values/value_types.hpp"
#include "reference/warp/lanes.hpp"
#include "reference/warp/mma_sp_metadata.hpp"

namespace warpsparse::warp {

struct FragCoord {
  int row, col;
};

// A fragment: element i (0..7) of `lane` -> (row, compressed column) of the 16 × 16 A tile.
inline constexpr FragCoord mma_sp_a_coord(int lane, int i) {
  const int g = lane >> 2, t = lane & 3;
  return FragCoord{g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
}
// B fragment: element i (0..7) of `lane` -> (k, n) of the 32 × 8 B tile.
inline constexpr FragCoord mma_sp_b_coord(int lane, int i) {
  const int g = lane >> 2, t = lane & 3;
  return FragCoord{2 * t + (i & 1) + 8 * (i >> 1), g};
}
// C/D fragment: element i (0..3) of `lane` -> (row, n) of the 16 × 8 tile.
inline constexpr FragCoord mma_sp_cd_coord(int lane, int i) {
  const int g = lane >> 2, t = lane & 3;
  return FragCoord{g + 8 * (i >> 1), 2 * t + (i & 1)};
}

// Metadata: whether `lane` supplies metadata under `selector`, and for bit field `nibble`
// (0..7, bits [4*nibble, 4*nibble+4)) which row and which group (0..7) of the tile it describes.
inline constexpr bool mma_sp_meta_lane(int lane, int selector) { return ((lane & 3) >> 1) == selector; }
struct MetaField {
  int row, group;
};
inline constexpr MetaField mma_sp_meta_field(int lane, int nibble) {
  const int g = lane >> 2, p = lane & 1;
  return MetaField{g + 8 * (nibble >> 2), 4 * p + (nibble & 3)};
}

inline float element_of(std::uint32_t reg, bool hi, bool is_bf16) {
  const auto b = static_cast<std::uint16_t>(hi ? reg >> 16 : reg & 0xffffu);
  return is_bf16 ? to_float(from_bits<bfloat16>(b)) : to_float(from_bits<half>(b));
}

using MmaReg4 = std::array<std::uint32_t, 4>;
using MmaAcc4 = std::array<float, 4>;

// The decoded operands of one mma.sp: A as a dense 16 × 32 tile, B 32 × 8, C 16 × 8.
struct MmaSpTiles {
  std::array<std::array<float, 32>, 16> a{};
  std::array<std::array<float, 8>, 32> b{};
  std::array<std::array<float, 8>, 16> c{};
};

// Gathers the operands from the lanes per the tables above. Throws WarpFault for an unordered
// metadata nibble (undefined under ::ordered_metadata) or a selector other than 0/1.
inline MmaSpTiles mma_sp_gather(const Lanes<MmaReg4>& a, const Lanes<MmaReg4>& b, const Lanes<MmaAcc4>& c,
                                const Lanes<std::uint32_t>& e, int selector, bool is_bf16) {
  if (selector != 0 && selector != 1)
    throw WarpFault("mma.sp m16n8k32 .f16/.bf16: sparsity selector " + std::to_string(selector) +
                    " is not 0 or 1");
  MmaSpTiles t;
  std::array<std::array<int, 8>, 16> nib{};  // [row][group]
  for (int l = 0; l < kWarpSize; ++l) {
    if (!mma_sp_meta_lane(l, selector)) continue;
    for (int n = 0; n < 8; ++n) {
      const MetaField f = mma_sp_meta_field(l, n);
      const std::uint32_t v = (e[static_cast<std::size_t>(l)] >> (4 * n)) & 0xfu;
      if (!nibble_ordered(v))
        throw WarpFault("mma.sp::ordered_metadata: lane " + std::to_string(l) + " metadata " +
                        hex(e[static_cast<std::size_t>(l)]) + " nibble " + std::to_string(n) +
                        " = " + std::to_string(v) + " is not an ascending pair of distinct positions");
      nib[static_cast<std::size_t>(f.row)][static_cast<std::size_t>(f.group)] = static_cast<int>(v);
    }
  }
  for (int l = 0; l < kWarpSize; ++l) {
    const auto L = static_cast<std::size_t>(l);
    for (int i = 0; i < 8; ++i) {
      const FragCoord ac = mma_sp_a_coord(l, i);
      const int group = ac.col / 2;
      const int n = nib[static_cast<std::size_t>(ac.row)][static_cast<std::size_t>(group)];
      const int pos = (ac.col % 2) ? nibble_hi(static_cast<std::uint32_t>(n))
                                   : nibble_lo(static_cast<std::uint32_t>(n));
      t.a[static_cast<std::size_t>(ac.row)][static_cast<std::size_t>(4 * group + pos)] =
          element_of(a[L][static_cast<std::size_t>(i / 2)], i % 2, is_bf16);
      const FragCoord bc = mma_sp_b_coord(l, i);
      t.b[static_cast<std::size_t>(bc.row)][static_cast<std::size_t>(bc.col)] =
          element_of(b[L][static_cast<std::size_t>(i / 2)], i % 2, is_bf16);
    }
    for (int i = 0; i < 4; ++i) {
      const FragCoord cc = mma_sp_cd_coord(l, i);
      t.c[static_cast<std::size_t>(cc.row)][static_cast<std::size_t>(cc.col)] = c[L][static_cast<std::size_t>(i)];
    }
  }
  return t;
}

// D = A·B + C on decoded 16 × K, K × 8 and 16 × 8 tiles, scattered to the lanes' C/D fragments:
// each output's K products and its accumulator summed in double, rounded once to fp32 (the
// arithmetic note above). The dense mma (mma.hpp) shares it.
template <std::size_t K>
Lanes<MmaAcc4> mma_block_sum(const std::array<std::array<float, K>, 16>& a, const std::array<std::array<float, 8>, K>& b,
                             const std::array<std::array<float, 8>, 16>& c) {
  Lanes<MmaAcc4> d{};
  for (int l = 0; l < kWarpSize; ++l)
    for (int i = 0; i < 4; ++i) {
      const FragCoord cc = mma_sp_cd_coord(l, i);
      const auto row = static_cast<std::size_t>(cc.row), n = static_cast<std::size_t>(cc.col);
      double s = c[row][n];
      for (std::size_t k = 0; k < K; ++k) s += static_cast<double>(a[row][k]) * static_cast<double>(b[k][n]);
      d[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)] = static_cast<float>(s);
    }
  return d;
}

// D = A·B + C for one mma.sp m16n8k32 (see the arithmetic note above).
inline Lanes<MmaAcc4> mma_sp_m16n8k32(const Lanes<MmaReg4>& a, const Lanes<MmaReg4>& b,
                                      const Lanes<MmaAcc4>& c, const Lanes<std::uint32_t>& e,
                                      int selector, bool is_bf16) {
  const MmaSpTiles t = mma_sp_gather(a, b, c, e, selector, is_bf16);
  return mma_block_sum(t.a, t.b, t.c);
}

}  // namespace warpsparse::warp
