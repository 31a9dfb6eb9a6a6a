// 2:4 sparse storage layout and the sparse GEMM schedule: the single definition shared by the host
// encoder, the warp model and the CUDA kernels. Dependency-free (only <cstdint> and WS_HD).
//
// Spec: PTX ISA 9.0, §9.7.14.6.1 "Sparse matrix storage" (2:4 structure, metadata, ordered
// metadata), §9.7.14.6.2 (mma.sp fragments for m16n8k32 .f16/.bf16, "Sparse MMA metadata"
// figure), §9.7.14.5.15 "ldmatrix".
//
// Logical A is M×K (row-major), 2:4 sparse along K: every group of 4 consecutive columns
// (k = 4j .. 4j+3) holds at most 2 nonzeros.
//
// values[]  rows_padded × cols_padded/2, row-major: the two kept elements of group j of row m at
//           compressed columns 2j (lower position) and 2j+1 (higher position).
// meta[]    rows_padded × cols_padded/16 uint16, row-major ("plain" order): one 4-bit nibble per
//           group, four groups per uint16, group j of a 16-column chunk in bits [4j, 4j+4).
//           Nibble = lo | hi << 2 with lo < hi the 2-bit positions of the kept elements
//           (mma.sp::ordered_metadata requires ascending order).
//             [0, 2.1, -8.9, 0] -> kept positions 1, 2 -> 0b10'01 = 0x9
//           Valid nibbles (lo < hi): 0x4 (0,1) 0x8 (0,2) 0xC (0,3) 0x9 (1,2) 0xD (1,3) 0xE (2,3).
// Padding: rows to a multiple of kRowAlign, columns to a multiple of kColAlign; padded groups keep
// positions (0,1) with zero values.
//
// Swizzled metadata (what the kernel reads). mma.sp m16n8k32 .f16/.bf16 takes 32 metadata bits
// from each thread of one pair per quad (§9.7.14.6.2, figure "Sparse MMA metadata m16n8k32
// f16/bf16"): with selector s, lanes 4g + 2s (first of the pair) and 4g + 2s + 1 (second) hold
//     bits [ 0,16): row g     of the 16-row fragment, logical K 16*p .. 16*p+15
//     bits [16,32): row g + 8 of the 16-row fragment, logical K 16*p .. 16*p+15
// where p = 0 for the first thread of the pair and p = 1 for the second. Using selector 0 for the
// k32 step at K offset 0 and selector 1 for the step at K offset 32, one 16×64 (rows × K) block
// gives each lane 4g + q exactly one word: rows g / g+8, K chunk q (16 columns). That is an 8×8
// b16 matrix in ldmatrix order (lane t receives row t/4, 32-bit column t%4), so we store each block
// as 128 contiguous bytes:
//
//   uint16 offset inside a block = g*8 + q*2 + h        (row = 16*mb + g + 8*h, K chunk = 4*kb + q)
//   block order                  = kb-major: block (kb, mb) at (kb * rows_padded/16 + mb) * 64
//
//   g (0..7)  block row = ldmatrix row      q (0..3)  K chunk in the block = ldmatrix 32-bit column
//   h (0..1)  low / high half of the word   lanes 4g+0,4g+1 use it with selector 0, 4g+2,4g+3 with 1
//
// kb-major puts the metadata of a CTA's 128 rows for one 64-wide K tile in 1 KB of contiguous
// memory (one cp.async burst per stage).
#pragma once
#include <cstdint>

#include "reference/common/hd.hpp"
#include "reference/warp/mma_sp_metadata.hpp"

namespace warpsparse::sparse24 {

inline constexpr int kGroup = 4;             // logical columns per group
inline constexpr int kKeep = 2;              // stored elements per group
inline constexpr int kColsPerMeta16 = 16;    // logical columns described by one uint16
inline constexpr int kRowAlign = 128;        // storage padding of M (a multiple of every BM)
inline constexpr int kColAlign = 64;         // storage padding of K (= the kernel's BK)
inline constexpr int kMetaBlockRows = 16;    // rows of one swizzled metadata block
inline constexpr int kMetaBlockCols = 64;    // logical K of one swizzled metadata block
inline constexpr int kMetaBlockHalves = 64;  // uint16 per block (128 bytes)

// The format stores the instruction's metadata nibbles as they are (reference/warp/mma_sp_metadata.hpp).
using warp::group_nibble;
using warp::nibble_hi;
using warp::nibble_lo;
using warp::nibble_ordered;

// Plain metadata index of (row, 16-column chunk).
WS_HD constexpr std::int64_t meta_plain_index(int row, int chunk, int cols_padded) {
  return static_cast<std::int64_t>(row) * (cols_padded / kColsPerMeta16) + chunk;
}

// Swizzled metadata index of (row, 16-column chunk); rows_padded is a multiple of 16.
WS_HD constexpr std::int64_t meta_swizzled_index(int row, int chunk, int rows_padded) {
  const int mb = row / kMetaBlockRows, r = row % kMetaBlockRows;
  const int g = r % 8, h = r / 8;
  const int kb = chunk / 4, q = chunk % 4;
  const std::int64_t block = static_cast<std::int64_t>(kb) * (rows_padded / kMetaBlockRows) + mb;
  return block * kMetaBlockHalves + g * 8 + q * 2 + h;
}

struct MetaCoord {
  int row;
  int chunk;
};

// Inverse of meta_swizzled_index.
WS_HD constexpr MetaCoord meta_swizzled_coord(std::int64_t index, int rows_padded) {
  const int blocks_m = rows_padded / kMetaBlockRows;
  const std::int64_t block = index / kMetaBlockHalves;
  const int in = static_cast<int>(index % kMetaBlockHalves);
  const int kb = static_cast<int>(block / blocks_m), mb = static_cast<int>(block % blocks_m);
  const int g = in / 8, q = (in % 8) / 2, h = in % 2;
  return MetaCoord{mb * kMetaBlockRows + g + 8 * h, kb * 4 + q};
}

struct TileCoord {
  int m, n;
};
// Grouped rasterization of CTA `pid` over a tiles_m × tiles_n grid: consecutive CTAs walk down a
// group of up to 8 tile rows before moving right, so the B column tiles they share stay in L2.
WS_HD constexpr TileCoord cta_tile(int pid, int tiles_m, int tiles_n) {
  constexpr int kGroupM = 8;
  const int width = kGroupM * tiles_n;
  const int first_m = (pid / width) * kGroupM;
  const int group_m = tiles_m - first_m < kGroupM ? tiles_m - first_m : kGroupM;
  return TileCoord{first_m + (pid % width) % group_m, (pid % width) / group_m};
}

// The CTA/warp schedule of the mma.sp kernel; the warp model replays it.
//   CTA tile BM × BN × BK (logical K), warps arranged (BM/WM) × (BN/WN), each warp WM × WN built
//   from (WM/16) × (WN/8) mma.sp m16n8k32 tiles, two k32 steps per BK = 64 (selector 0, then 1).
// Shared memory per stage (bytes):
//   A   BM rows × 64 B (32 compressed columns); 16-byte chunk c of row r at r*64 + (c ^ (r>>1 & 3))*16
//   B   BK rows × BN*2 B;                        chunk c of row k at k*BN*2 + (c ^ (k & 7))*16
//   E   BM/16 swizzled metadata blocks of 128 B, as in global memory
// NOTE: the XOR swizzles make every 8-address phase of ldmatrix hit 8 distinct 16-byte bank
// groups: A rows are 64 B apart (two rows share a 128-B bank period, so XOR with row/2), B rows are
// BN*2 B apart (all in the same banks, so XOR with k mod 8).
template <int BM_, int BN_, int WM_, int WN_, int Stages_>
struct Schedule {
  static constexpr int kBM = BM_, kBN = BN_, kBK = 64, kWM = WM_, kWN = WN_, kStages = Stages_;
  static constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMmaM = kWM / 16, kMmaN = kWN / 8;
  static constexpr int kARowBytes = kBK / 2 * 2;  // 32 compressed 16-bit columns
  static constexpr int kAStageBytes = kBM * kARowBytes;
  static constexpr int kBRowBytes = kBN * 2;
  static constexpr int kBStageBytes = kBK * kBRowBytes;
  static constexpr int kEStageBytes = kBM / kMetaBlockRows * kMetaBlockHalves * 2;
  static constexpr int kStageBytes = kAStageBytes + kBStageBytes + kEStageBytes;
  static constexpr int kSmemBytes = kStages * kStageBytes;

  static_assert(kBM % kWM == 0 && kBN % kWN == 0, "warps tile the CTA");
  static_assert(kWM == 64, "one ldmatrix.x4 of metadata covers exactly 4 m16 tiles");
  static_assert(kWN % 16 == 0 && kBN % 64 == 0, "B rows hold >= 8 chunks for the k&7 swizzle");
  static_assert(kRowAlign % kBM == 0 || kBM % kRowAlign == 0, "BM divides the row padding or is a multiple of it");
  static_assert(kColAlign == kBK, "storage column padding equals BK");
  static_assert(kStages >= 2, "a pipeline needs two stages");
  static_assert(kThreads <= 1024, "CTA size");

  // One 16-byte cp.async of a stage: destination offset from the stage base (A at 0, B at
  // kAStageBytes, E after B), source element index from the operand's base pointer, and the bytes
  // read from global memory (the rest of the 16 is zero-filled). Thread t of the CTA issues
  // chunks t, t + kThreads, ... of each operand.
  struct Copy16 {
    std::uint32_t smem;
    std::int64_t src;
    int bytes;
  };
  static constexpr int kAChunks = kBM * kARowBytes / 16;
  static constexpr int kBChunksPerRow = kBRowBytes / 16;
  static constexpr int kBChunks = kBK * kBChunksPerRow;
  static constexpr int kEChunks = kEStageBytes / 16;

  // A: storage is padded to 128 rows (kRowAlign), so a BM <= 128 tile is always inside. A taller
  // tile (BM = 256) whose last rows pass rows_padded re-reads the tile's own rows instead
  // (row - (rows_padded - m0)): those rows are never stored, and real data keeps their metadata
  // valid (zero-filled metadata would be unordered, undefined for mma.sp::ordered_metadata).
  // vcols = cols_padded / 2.
  static constexpr bool kWrapRows = kRowAlign % kBM != 0;
  WS_HD static constexpr int a_src_row(int row, int m0, int rows_padded) {
    return !kWrapRows || m0 + row < rows_padded ? m0 + row : m0 + row - (rows_padded - m0);
  }
  WS_HD static constexpr Copy16 a_copy(int i, int m0, int kt, int vcols, int rows_padded) {
    const int row = i / (kARowBytes / 16), chunk = i % (kARowBytes / 16);
    return Copy16{a_offset(row, chunk),
                  static_cast<std::int64_t>(a_src_row(row, m0, rows_padded)) * vcols + kt * (kBK / 2) + chunk * 8, 16};
  }
  // B: rows >= k and columns >= n are zero-filled; a chunk that is entirely outside reads 0 bytes
  // from the base pointer (a valid address).
  WS_HD static constexpr Copy16 b_copy(int i, int n0, int kt, int k, int n, int ldb) {
    const int kk = i / kBChunksPerRow, chunk = i % kBChunksPerRow;
    const int gk = kt * kBK + kk, gn = n0 + chunk * 8;
    const int bytes = (gk < k && gn < n) ? 2 * (n - gn < 8 ? n - gn : 8) : 0;
    return Copy16{static_cast<std::uint32_t>(kAStageBytes) + b_offset(kk, chunk),
                  bytes > 0 ? static_cast<std::int64_t>(gk) * ldb + gn : 0, bytes};
  }
  // E: the CTA's BM/16 metadata blocks of K tile kt are contiguous (kb-major order).
  // A tall tile (kWrapRows) re-reads its own blocks past blocks_m, like A's rows.
  WS_HD static constexpr Copy16 e_copy(int i, int m0, int kt, int blocks_m) {
    constexpr int kChunksPerBlock = kMetaBlockHalves / 8;
    const int first = m0 / kMetaBlockRows, left = blocks_m - first;
    const int block = !kWrapRows || i / kChunksPerBlock < left ? i / kChunksPerBlock : i / kChunksPerBlock - left;
    return Copy16{static_cast<std::uint32_t>(kAStageBytes + kBStageBytes + 16 * i),
                  (static_cast<std::int64_t>(kt) * blocks_m + first + block) * kMetaBlockHalves + 8 * (i % kChunksPerBlock),
                  16};
  }

  // Strided issue (the pipelined kernel): thread t copies chunks t + j·kThreads, j < k*Passes.
  // When kStridedCopies holds, chunk i + kThreads lies k*PassRows rows below chunk i in the same
  // swizzle phase (pass rows are a multiple of the XOR period 8), so a thread evaluates a_copy /
  // b_copy once and adds the constant strides below (checked against a_copy / b_copy in
  // proptests/sparse24/ldmatrix_props.cpp). NOTE: b_copy's row mask (gk < k) is then applied per pass.
  static constexpr int kAChunksPerRow = kARowBytes / 16;
  static constexpr int kAPasses = kAChunks / kThreads, kAPassRows = kThreads / kAChunksPerRow;
  static constexpr int kBPasses = kBChunks / kThreads, kBPassRows = kThreads / kBChunksPerRow;
  static constexpr bool kStridedCopies = kAChunks % kThreads == 0 && kThreads % kAChunksPerRow == 0 &&
                                         kAPassRows % 8 == 0 && kBChunks % kThreads == 0 &&
                                         kThreads % kBChunksPerRow == 0 && kBPassRows % 8 == 0 &&
                                         kEChunks <= kThreads;
  static constexpr std::uint32_t kAPassSmem = static_cast<std::uint32_t>(kAPassRows * kARowBytes);
  static constexpr std::uint32_t kBPassSmem = static_cast<std::uint32_t>(kBPassRows * kBRowBytes);

  WS_HD static constexpr std::uint32_t a_offset(int row, int chunk) {
    return static_cast<std::uint32_t>(row * kARowBytes + ((chunk ^ ((row >> 1) & 3)) << 4));
  }
  WS_HD static constexpr std::uint32_t b_offset(int k, int chunk) {
    return static_cast<std::uint32_t>(k * kBRowBytes + ((chunk ^ (k & 7)) << 4));
  }
  // Byte offset lane `lane` passes to ldmatrix.x4 for the A fragment of the m16 tile starting at
  // row `row0` of the CTA tile, k32 step `ks` (0/1): matrices (rows 0-7, ccols 0-7),
  // (rows 8-15, ccols 0-7), (rows 0-7, ccols 8-15), (rows 8-15, ccols 8-15) -> a0a1, a2a3, a4a5, a6a7.
  WS_HD static constexpr std::uint32_t a_ldsm_offset(int lane, int row0, int ks) {
    return a_offset(row0 + (lane & 7) + 8 * ((lane >> 3) & 1), 2 * ks + (lane >> 4));
  }
  // ldmatrix.x4.trans for the B fragment of the n8 tile at column `col0`, k32 step `ks`: matrix j
  // covers k rows 8j .. 8j+7 -> register j = {b_2j, b_2j+1}.
  WS_HD static constexpr std::uint32_t b_ldsm_offset(int lane, int col0, int ks) {
    return b_offset(32 * ks + lane, col0 / 8);
  }
  // ldmatrix.x4 for the metadata of the 4 m16 tiles starting at m16 block `mb0` of the CTA tile.
  WS_HD static constexpr std::uint32_t e_ldsm_offset(int lane, int mb0) {
    return static_cast<std::uint32_t>((mb0 + (lane >> 3)) * kMetaBlockHalves * 2 + (lane & 7) * 16);
  }
};

// The shipped configuration (kernels/sparse24: Tile::kTallPipe): 8 warps (4×2 of 64×64), a
// 256×128×64 tile, 3 stages (102 KB). The compressed A costs half of B per row, so a tall tile moves
// ~17% fewer bytes per flop from L2 than 128×256 (34 KB vs 41 KB per 4.2 MFLOP). The tests check the
// layout rules on other tile shapes too.
using ScheduleTall = Schedule<256, 128, 64, 64, 3>;

}  // namespace warpsparse::sparse24
