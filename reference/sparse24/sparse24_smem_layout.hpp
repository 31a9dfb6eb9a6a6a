// Shared-memory operand layouts of the wgmma.sp kernel (kernels/sparse24/sparse24_wgmma.cu): the
// wgmma matrix descriptor, the canonical layouts it addresses, where TMA puts the elements of a
// swizzled box, and the metadata word each lane hands to wgmma.sp. The kernel takes its descriptor
// constants from WgmmaSpLayout below; proptests/sparse24/wgmma_smem_layout_props.cpp checks that
// what TMA writes is where the descriptors read. Dependency-free (only <cstdint> and WS_HD, plus
// the 2:4 layout header) so nvcc includes it.
//
// Spec: PTX ISA 9.0, §9.7.15.5.1.2 "Shared Memory Matrix Layout" (swizzle atoms, leading and
// stride dimension byte offsets, canonical layouts), §9.7.15.5.1.2.2 "Matrix Descriptor Format",
// §9.7.15.6.1 "Sparse matrix storage" and §9.7.15.6.2.1 (sparse m64nNk32 .f16/.bf16 metadata:
// the same per-warp figure as mma.sp m16n8k32).
//
// Descriptor (64 bits): bits 0-13 start address, 16-29 leading dimension byte offset (LBO), 32-45
// stride dimension byte offset (SBO), each encoded as (x & 0x3FFFF) >> 4; bits 49-51 base offset;
// bits 62-63 swizzle mode (0 none, 1 128 B, 2 64 B, 3 32 B).
//
// Canonical layouts, 16-bit elements (T = 8 elements = 16 bytes, a core matrix is 8 rows × 16 B),
// W = the swizzle width in bytes (128, 64, 32), in CuTe notation over (MN index, K index):
//   K-major,  no swizzle  ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))
//   K-major,  W swizzle   ((8,m),(T,2k)) : ((W/16·T,SBO),(1,T))      LBO unused ("assumed 1")
//   MN-major, no swizzle  ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
//   MN-major, W swizzle   ((T,W/16,m),(8,k)) : ((1,T,LBO),(W/16·T,SBO))
// then Swizzle<B,4,3> with B = log2(W/16) over the byte address: the 16-byte chunk index (address
// bits 4..4+B) is XORed with the row inside the repeating pattern (bits 7..7+B). A swizzle atom is
// 8 rows of W bytes (W/16 × 8 chunks); the pattern repeats every 8·W bytes.
//
// Base offset: PTX defines it as 0 when each repeating pattern starts on an 8·W-byte boundary,
// which is what the XOR over absolute address bits above expresses. The kernel keeps every stage
// and operand 1 KB aligned, so it never sets one; the model does not cover a non-zero base offset.
//
// TMA (cuTensorMapEncodeTiled with CU_TENSOR_MAP_SWIZZLE_{32,64,128}B): a box whose rows are
// exactly W bytes is written row after row from the destination, with the same Swizzle<B,4,3> on
// the byte address. Both sides XOR the same address bits, so an element lands where the
// descriptor reads it exactly when the descriptor's canonical (unswizzled) offset of the element
// equals TMA's dense row-major offset; that is the property the kernel relies on.
#pragma once
#include <cstdint>

#include "reference/common/hd.hpp"
#include "reference/sparse24/sparse24_layout.hpp"

namespace warpsparse::sparse24::smem {

// The descriptor's swizzle field values.
enum class Swizzle : std::uint32_t { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };
// Which dimension is contiguous: K-major (imm-trans = 0) or MN-major (imm-trans = 1).
enum class Major { kK, kMN };

// log2 of the 16-byte chunks in a swizzled row (Swizzle<B,4,3>'s B): 3, 2, 1, or 0 without swizzle.
WS_HD constexpr int swizzle_log2_chunks(Swizzle s) {
  return s == Swizzle::k128B ? 3 : s == Swizzle::k64B ? 2 : s == Swizzle::k32B ? 1 : 0;
}
// Row width W of the swizzle atom in bytes (16 without swizzle: one core-matrix row).
WS_HD constexpr int swizzle_row_bytes(Swizzle s) { return 16 << swizzle_log2_chunks(s); }
// Bytes after which the XOR pattern repeats: 8 rows of W (1024, 512, 256; 128 without swizzle).
WS_HD constexpr int swizzle_pattern_bytes(Swizzle s) { return 8 * swizzle_row_bytes(s); }

// Swizzle<B,4,3> on a shared-memory byte address.
WS_HD constexpr std::uint32_t swizzle_address(std::uint32_t addr, Swizzle s) {
  const std::uint32_t mask = (1u << swizzle_log2_chunks(s)) - 1u;
  return addr ^ (((addr >> 7) & mask) << 4);
}

// matrix-descriptor-encode(x) of PTX.
WS_HD constexpr std::uint64_t desc_field(std::uint32_t x) { return static_cast<std::uint64_t>((x & 0x3ffff) >> 4); }

// The 64-bit descriptor; the kernel builds every descriptor with this function.
WS_HD constexpr std::uint64_t encode_desc(std::uint32_t start, std::uint32_t lbo, std::uint32_t sbo, Swizzle s) {
  return desc_field(start) | (desc_field(lbo) << 16) | (desc_field(sbo) << 32) | (static_cast<std::uint64_t>(s) << 62);
}

struct Desc {
  std::uint32_t start = 0, lbo = 0, sbo = 0;  // bytes (multiples of 16)
  std::uint32_t base_offset = 0;
  Swizzle swizzle = Swizzle::kNone;
  friend constexpr bool operator==(const Desc&, const Desc&) = default;
};
WS_HD constexpr Desc decode_desc(std::uint64_t d) {
  return Desc{static_cast<std::uint32_t>(d & 0x3fff) << 4, static_cast<std::uint32_t>((d >> 16) & 0x3fff) << 4,
              static_cast<std::uint32_t>((d >> 32) & 0x3fff) << 4, static_cast<std::uint32_t>((d >> 49) & 7),
              static_cast<Swizzle>(d >> 62)};
}

WS_HD constexpr std::uint32_t u32(int x) { return static_cast<std::uint32_t>(x); }

// Byte offset of 16-bit element (mn, k) from the descriptor's start in the canonical layout,
// before the swizzle. K-major: mn is the row (M or N), k the column along K; one instruction's K
// extent must fit the swizzled row (k < W / 2). MN-major: mn runs along the contiguous dimension.
WS_HD constexpr std::uint32_t canonical_offset(Major major, Swizzle s, std::uint32_t lbo, std::uint32_t sbo, int mn, int k) {
  const int w = swizzle_row_bytes(s);
  if (major == Major::kK) {
    const std::uint32_t k_core = s == Swizzle::kNone ? lbo : 16u;  // next 8 columns of K
    return u32(mn % 8) * u32(w) + u32(mn / 8) * sbo + u32(k % 8) * 2u + u32(k / 8) * k_core;
  }
  if (s == Swizzle::kNone) return u32(mn % 8) * 2u + u32(mn / 8) * sbo + u32(k % 8) * 16u + u32(k / 8) * lbo;
  const int chunks = w / 16;  // 16-byte chunks of one swizzled row
  return u32(mn % 8) * 2u + u32((mn / 8) % chunks) * 16u + u32(mn / (8 * chunks)) * lbo + u32(k % 8) * u32(w) + u32(k / 8) * sbo;
}

// Shared address from which a wgmma reading through descriptor d takes element (mn, k).
WS_HD constexpr std::uint32_t desc_address(const Desc& d, Major major, int mn, int k) {
  return swizzle_address(d.start + canonical_offset(major, d.swizzle, d.lbo, d.sbo, mn, k), d.swizzle);
}

// Shared address where TMA writes element (r, c) of a 16-bit box with `box_cols` columns (its
// inner dimension) at `dst`; the model covers rows of exactly one swizzle row (2·box_cols = W).
WS_HD constexpr std::uint32_t tma_box_address(std::uint32_t dst, Swizzle s, int box_cols, int r, int c) {
  return swizzle_address(dst + static_cast<std::uint32_t>((r * box_cols + c) * 2), s);
}

// The operand layouts of the wgmma.sp kernel, per pipeline stage. Every number is derived from
// the tile; the kernel static_asserts them against the values confirmed on the H100 by the GPU
// test, so a change here that moves them does not compile there.
struct WgmmaSpLayout {
  static constexpr int kBK = kColAlign;  // logical K per stage (64)
  static constexpr int kElemBytes = 2;
  static constexpr int kKSteps = kBK / 32;  // wgmma.sp m64nNk32 per K tile and m64 block

  // A: compressed (kBK / 2 columns), K-major, TMA boxes {kBK / 2 columns, BM rows}, one swizzle
  // row per matrix row. The 8 rows of a core-matrix group are one swizzle pattern (SBO); the
  // second k32 step starts 16 compressed columns (32 B) into the rows.
  static constexpr Swizzle kASwizzle = Swizzle::k64B;
  static constexpr int kABoxCols = kBK / 2;
  static constexpr int kARowBytes = kABoxCols * kElemBytes;
  static constexpr std::uint32_t kALbo = 16;  // unused for K-major swizzled layouts; PTX: "assumed 1"
  static constexpr std::uint32_t kASbo = 8 * kARowBytes;
  static constexpr std::uint32_t kAK32Step = 16 * kElemBytes;
  static constexpr std::uint32_t kAM64Bytes = 64 * kARowBytes;  // one m64 block of rows
  static_assert(kARowBytes == swizzle_row_bytes(kASwizzle), "a TMA row of A is one swizzle row");

  // B: K × N (N contiguous), MN-major, TMA boxes {64 columns, kBK rows} side by side. A box is one
  // column of swizzle atoms: 64 columns = one 128-byte row; LBO steps to the next box (the next 64
  // columns), SBO to the next 8 rows of K, the second k32 step 32 rows down.
  static constexpr Swizzle kBSwizzle = Swizzle::k128B;
  static constexpr int kBBoxCols = 64, kBBoxRows = kBK;
  static constexpr int kBRowBytes = kBBoxCols * kElemBytes;
  static constexpr std::uint32_t kBBoxBytes = static_cast<std::uint32_t>(kBBoxRows * kBRowBytes);
  static constexpr std::uint32_t kBLbo = kBBoxBytes;
  static constexpr std::uint32_t kBSbo = 8 * kBRowBytes;
  static constexpr std::uint32_t kBK32Step = 32 * kBRowBytes;
  static_assert(kBRowBytes == swizzle_row_bytes(kBSwizzle), "a TMA row of B is one swizzle row");

  // Start of m64 block `m64` of A (stage rows 64·m64 ..), and the descriptors of that block and
  // of B for k32 step ks.
  WS_HD static constexpr std::uint32_t a_block(std::uint32_t stage_a, int m64) {
    return stage_a + static_cast<std::uint32_t>(m64 * static_cast<int>(kAM64Bytes));
  }
  WS_HD static constexpr std::uint64_t a_desc(std::uint32_t a_block, int ks) {
    return encode_desc(a_block + static_cast<std::uint32_t>(ks) * kAK32Step, kALbo, kASbo, kASwizzle);
  }
  WS_HD static constexpr std::uint64_t b_desc(std::uint32_t stage_b, int ks) {
    return encode_desc(stage_b + static_cast<std::uint32_t>(ks) * kBK32Step, kBLbo, kBSbo, kBSwizzle);
  }
  // Where TMA puts compressed column cc of stage row `row` of A, and element (k, n) of B's stage.
  WS_HD static constexpr std::uint32_t a_tma_address(std::uint32_t stage_a, int row, int cc) {
    return tma_box_address(stage_a, kASwizzle, kABoxCols, row, cc);
  }
  WS_HD static constexpr std::uint32_t b_tma_address(std::uint32_t stage_b, int k, int n) {
    return tma_box_address(stage_b + static_cast<std::uint32_t>(n / kBBoxCols) * kBBoxBytes, kBSwizzle, kBBoxCols, k,
                           n % kBBoxCols);
  }

  // Metadata: warp w of a warpgroup supplies rows 16w .. 16w+15 of its m64 block with the word
  // of mma.sp m16n8k32 (sparse24_layout.hpp): lane 4g + q holds rows g and g + 8, K chunk q (16
  // logical columns) of the K tile, read under selector q / 2. In a stage's metadata (swizzled
  // blocks of 16 rows, 128 B each) that word is at 4·lane of block m16 = 4·m64 + w.
  static constexpr int kMetaBlockBytes = kMetaBlockHalves * 2;
  WS_HD static constexpr std::uint32_t meta_word_byte(int m16, int lane) {
    return static_cast<std::uint32_t>(m16 * kMetaBlockBytes + 4 * lane);
  }
};

}  // namespace warpsparse::sparse24::smem
