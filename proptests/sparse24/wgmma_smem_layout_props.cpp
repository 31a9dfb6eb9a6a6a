// The shared-memory model of the wgmma.sp kernel (reference/sparse24/sparse24_smem_layout.hpp):
// the canonical layouts against PTX's worked examples, the descriptor encoding as a round trip,
// and for the kernel's own layout that the descriptors read every element of a stage exactly
// once, from where TMA wrote it (A: 64-byte swizzle; B: 128-byte swizzle, both k32 halves and
// every 64-column box), and that each lane's metadata word holds the nibbles wgmma.sp takes from
// it. Each check returns its first disagreement as text, so the same checks are also run on
// perturbed layouts (SBO off by 16, LBO and SBO swapped, the wrong swizzle or k32 step) and must
// fail there.
#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "proptests/prop_support.hpp"
#include "reference/sparse24/sparse24_smem_layout.hpp"
#include "reference/warp/mma_sp.hpp"

namespace s24 = warpsparse::sparse24;
namespace sm = warpsparse::sparse24::smem;
namespace wp = warpsparse::warp;
using warpsparse::proptest::ws_prop;
using L = sm::WgmmaSpLayout;

namespace {

// The kernel's two CTA tiles (kernels/sparse24/sparse24_wgmma.cu, Shape): BM × BN.
struct Tile {
  int bm, bn;
};
constexpr Tile kTiles[] = {{256, 128}, {128, 256}};

// Element addresses of a tile in row-major element order.
using AddressMap = std::vector<std::uint32_t>;

// Empty when `map` hits every 2-byte slot of [base, base + bytes) exactly once.
std::string bijection_onto(const AddressMap& map, std::uint32_t base, std::uint32_t bytes) {
  if (map.size() * 2 != bytes) return "the map has " + std::to_string(map.size()) + " elements for " + std::to_string(bytes) + " bytes";
  std::vector<int> hit(bytes / 2, 0);
  for (std::size_t i = 0; i < map.size(); ++i) {
    const std::uint32_t a = map[i];
    if (a < base || a >= base + bytes || (a - base) % 2 != 0)
      return "element " + std::to_string(i) + " at " + std::to_string(a) + " is outside the tile's bytes";
    if (++hit[(a - base) / 2] > 1) return "element " + std::to_string(i) + " shares address " + std::to_string(a);
  }
  return {};
}

std::string first_difference(const AddressMap& read, const AddressMap& written, int cols) {
  for (std::size_t i = 0; i < read.size(); ++i)
    if (read[i] != written[i])
      return "element (" + std::to_string(static_cast<int>(i) / cols) + ", " + std::to_string(static_cast<int>(i) % cols) +
             "): the descriptor reads " + std::to_string(read[i]) + ", TMA wrote " + std::to_string(written[i]);
  return {};
}

// Descriptor of A's m64 block (given its start) for k32 step ks; of B's stage for step ks.
using ADescFn = std::function<std::uint64_t(std::uint32_t a_block, int ks)>;
using BDescFn = std::function<std::uint64_t(std::uint32_t stage_b, int ks)>;
const ADescFn kernel_a_desc = [](std::uint32_t a_block, int ks) { return L::a_desc(a_block, ks); };
const BDescFn kernel_b_desc = [](std::uint32_t stage_b, int ks) { return L::b_desc(stage_b, ks); };

// A's stage (bm rows × kBK / 2 compressed columns) as the wgmma.sp issues read it: m64 block
// row / 64, step cc / 16, element (row % 64, cc % 16) of that descriptor's K-major operand.
AddressMap a_read_map(std::uint32_t stage_a, int bm, const ADescFn& desc) {
  AddressMap m;
  for (int row = 0; row < bm; ++row)
    for (int cc = 0; cc < L::kABoxCols; ++cc) {
      const sm::Desc d = sm::decode_desc(desc(L::a_block(stage_a, row / 64), cc / 16));
      m.push_back(sm::desc_address(d, sm::Major::kK, row % 64, cc % 16));
    }
  return m;
}
AddressMap a_tma_map(std::uint32_t stage_a, int bm) {
  AddressMap m;
  for (int row = 0; row < bm; ++row)
    for (int cc = 0; cc < L::kABoxCols; ++cc) m.push_back(L::a_tma_address(stage_a, row, cc));
  return m;
}
// B's stage (kBK rows of K × bn columns): step k / 32, element (n, k % 32) of the MN-major operand.
AddressMap b_read_map(std::uint32_t stage_b, int bn, const BDescFn& desc) {
  AddressMap m;
  for (int k = 0; k < L::kBK; ++k)
    for (int n = 0; n < bn; ++n)
      m.push_back(sm::desc_address(sm::decode_desc(desc(stage_b, k / 32)), sm::Major::kMN, n, k % 32));
  return m;
}
AddressMap b_tma_map(std::uint32_t stage_b, int bn) {
  AddressMap m;
  for (int k = 0; k < L::kBK; ++k)
    for (int n = 0; n < bn; ++n) m.push_back(L::b_tma_address(stage_b, k, n));
  return m;
}

// Both properties for one operand; empty when both hold.
std::string check_a(std::uint32_t stage_a, int bm, const ADescFn& desc) {
  const AddressMap read = a_read_map(stage_a, bm, desc);
  std::string e = bijection_onto(read, stage_a, static_cast<std::uint32_t>(bm * L::kARowBytes));
  if (e.empty()) e = first_difference(read, a_tma_map(stage_a, bm), L::kABoxCols);
  return e;
}
std::string check_b(std::uint32_t stage_b, int bn, const BDescFn& desc) {
  const AddressMap read = b_read_map(stage_b, bn, desc);
  std::string e = bijection_onto(read, stage_b, static_cast<std::uint32_t>(bn / L::kBBoxCols) * L::kBBoxBytes);
  if (e.empty()) e = first_difference(read, b_tma_map(stage_b, bn), bn);
  return e;
}

// The metadata word lane `lane` of the warp for 16-row block m16 loads (meta_word_byte), read as
// wgmma.sp reads it (mma.sp m16n8k32's figure): under selector s the lanes mma_sp_meta_lane picks
// give, per nibble, the row and the group of 4 logical columns of that k32 step. The stage holds
// the K tile's swizzled metadata blocks (sparse24_layout.hpp) for bm rows.
using MetaFn = std::function<std::uint32_t(int m16, int lane)>;
std::string check_meta(int bm, const MetaFn& word_byte) {
  std::vector<int> hit(static_cast<std::size_t>(bm / s24::kMetaBlockRows * L::kMetaBlockBytes / 4), 0);
  for (int m16 = 0; m16 < bm / s24::kMetaBlockRows; ++m16)
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint32_t byte = word_byte(m16, lane);
      if (byte % 4 != 0 || byte / 4 >= hit.size()) return "lane " + std::to_string(lane) + " reads outside the stage";
      ++hit[byte / 4];
      for (int s = 0; s < 2; ++s) {
        if (!wp::mma_sp_meta_lane(lane, s)) continue;
        for (int nib = 0; nib < 8; ++nib) {
          const wp::MetaField f = wp::mma_sp_meta_field(lane, nib);
          const s24::MetaCoord c = s24::meta_swizzled_coord(byte / 2 + nib / 4, bm);
          if (c.row != m16 * s24::kMetaBlockRows + f.row || 4 * c.chunk + nib % 4 != 8 * s + f.group)
            return "block " + std::to_string(m16) + " lane " + std::to_string(lane) + " nibble " + std::to_string(nib) +
                   ": holds row " + std::to_string(c.row) + " group " + std::to_string(4 * c.chunk + nib % 4);
        }
      }
    }
  for (int h : hit)
    if (h != 1) return "the lanes' words do not cover the stage's metadata once";
  return {};
}

// A random stage placement the kernel can produce: 1 KB aligned inside 227 KB.
std::uint32_t gen_stage_base(std::uint32_t bytes) {
  const int slots = static_cast<int>((227u * 1024u - bytes) / 1024u);
  return 1024u * static_cast<std::uint32_t>(*rc::gen::inRange(0, slots + 1).as("stage base / 1 KB"));
}

}  // namespace

TEST_CASE("canonical layouts match PTX's worked examples", "[sparse24][wgmma][layout]") {
  // PTX ISA §9.7.15.5.1.2.1.3, bf16 examples, "exact layout" strides in elements over
  // ((mn modes), (k modes)), with the LBO / SBO the text gives.
  struct Example {
    sm::Swizzle sw;
    int mn_shape[3], mn_stride[3], k_shape[2], k_stride[2];
    std::uint32_t lbo, sbo;
  };
  const Example examples[] = {
      {sm::Swizzle::kNone, {8, 1, 2}, {1, 8, 64}, {8, 2}, {8, 128}, 128 * 2, 64 * 2},
      {sm::Swizzle::k32B, {8, 2, 2}, {1, 8, 128}, {8, 2}, {16, 256}, 128 * 2, 256 * 2},
      {sm::Swizzle::k64B, {8, 4, 2}, {1, 8, 256}, {8, 2}, {32, 512}, 256 * 2, 512 * 2},
  };
  for (const Example& e : examples) {
    const int mn_total = e.mn_shape[0] * e.mn_shape[1] * e.mn_shape[2], k_total = e.k_shape[0] * e.k_shape[1];
    for (int mn = 0; mn < mn_total; ++mn)
      for (int k = 0; k < k_total; ++k) {
        const int a = mn % e.mn_shape[0], b = (mn / e.mn_shape[0]) % e.mn_shape[1], c = mn / (e.mn_shape[0] * e.mn_shape[1]);
        const int elems = a * e.mn_stride[0] + b * e.mn_stride[1] + c * e.mn_stride[2] + (k % e.k_shape[0]) * e.k_stride[0] +
                          (k / e.k_shape[0]) * e.k_stride[1];
        INFO("swizzle " << static_cast<int>(e.sw) << " mn " << mn << " k " << k);
        REQUIRE(sm::canonical_offset(sm::Major::kMN, e.sw, e.lbo, e.sbo, mn, k) == static_cast<std::uint32_t>(2 * elems));
      }
  }
  // Swizzle<B,4,3>: chunk bits 4..4+B XOR address bits 7..7+B.
  REQUIRE(sm::swizzle_address(3 * 128 + 5 * 16 + 6, sm::Swizzle::k128B) == 3 * 128 + ((5 ^ 3) * 16) + 6);
  REQUIRE(sm::swizzle_address(3 * 64 + 2 * 16, sm::Swizzle::k64B) == 3 * 64 + ((2 ^ 1) * 16));
  REQUIRE(sm::swizzle_address(1024 + 7 * 16, sm::Swizzle::kNone) == 1024 + 7 * 16);
}

TEST_CASE("every swizzle mode: a canonical operand is a bijection equal to TMA's box placement", "[sparse24][wgmma][layout][prop]") {
  ws_prop("K-major and MN-major, any number of atoms", 300, [] {
    const auto sw = static_cast<sm::Swizzle>(*rc::gen::inRange(1, 4).as("swizzle field (1: 128 B, 2: 64 B, 3: 32 B)"));
    const bool k_major = *rc::gen::arbitrary<bool>().as("K-major");
    const int groups = *rc::gen::inRange(1, 9).as("8-row groups per box");
    const int boxes = *rc::gen::inRange(1, 5).as("boxes");
    const int w = sm::swizzle_row_bytes(sw), cols = w / 2;  // a box row is one swizzle row
    const std::uint32_t box_bytes = static_cast<std::uint32_t>(8 * groups * w);
    const std::uint32_t base = 1024u * static_cast<std::uint32_t>(*rc::gen::inRange(0, 64).as("base / 1 KB"));
    AddressMap read, written;
    if (k_major) {  // boxes stacked along M: rows 8·groups·box ..; one descriptor covers them all
      const sm::Desc d{base, 16, static_cast<std::uint32_t>(8 * w), 0, sw};
      for (int r = 0; r < 8 * groups * boxes; ++r)
        for (int k = 0; k < cols; ++k) {
          read.push_back(sm::desc_address(d, sm::Major::kK, r, k));
          written.push_back(sm::tma_box_address(base, sw, cols, r, k));
        }
    } else {  // boxes side by side along N (LBO), K rows inside a box (SBO per 8 rows)
      const sm::Desc d{base, box_bytes, static_cast<std::uint32_t>(8 * w), 0, sw};
      for (int k = 0; k < 8 * groups; ++k)
        for (int n = 0; n < cols * boxes; ++n) {
          read.push_back(sm::desc_address(d, sm::Major::kMN, n, k));
          written.push_back(sm::tma_box_address(base + static_cast<std::uint32_t>(n / cols) * box_bytes, sw, cols, k, n % cols));
        }
    }
    RC_ASSERT(bijection_onto(read, base, box_bytes * static_cast<std::uint32_t>(boxes)) == "");
    RC_ASSERT(first_difference(read, written, k_major ? cols : cols * boxes) == "");
  });
}

TEST_CASE("descriptor encoding round-trips and puts each field in its bits", "[sparse24][wgmma][layout][prop]") {
  ws_prop("encode then decode", 2000, [] {
    const auto field = [](const char* name) { return 16u * static_cast<std::uint32_t>(*rc::gen::inRange(0, 1 << 14).as(name)); };
    const std::uint32_t start = field("start"), lbo = field("LBO"), sbo = field("SBO");
    const auto sw = static_cast<sm::Swizzle>(*rc::gen::inRange(0, 4).as("swizzle field"));
    const std::uint64_t d = sm::encode_desc(start, lbo, sbo, sw);
    RC_ASSERT(sm::decode_desc(d) == (sm::Desc{start, lbo, sbo, 0, sw}));
    // Bits 14-15, 30-31, 46-61 (base offset included) stay clear.
    RC_ASSERT((d & 0x3fffc000c000c000ull) == 0u);
    RC_ASSERT(sm::encode_desc(start, 0, 0, sm::Swizzle::kNone) == start / 16);
    RC_ASSERT(sm::encode_desc(0, lbo, 0, sm::Swizzle::kNone) == std::uint64_t{lbo / 16} << 16);
    RC_ASSERT(sm::encode_desc(0, 0, sbo, sm::Swizzle::kNone) == std::uint64_t{sbo / 16} << 32);
  });
  // The kernel's descriptors decode to the layout's constants.
  const std::uint32_t stage = 5 * 1024;
  for (int ks = 0; ks < L::kKSteps; ++ks) {
    REQUIRE(sm::decode_desc(L::a_desc(L::a_block(stage, 1), ks)) ==
            (sm::Desc{stage + L::kAM64Bytes + static_cast<std::uint32_t>(ks) * L::kAK32Step, L::kALbo, L::kASbo, 0, L::kASwizzle}));
    REQUIRE(sm::decode_desc(L::b_desc(stage, ks)) ==
            (sm::Desc{stage + static_cast<std::uint32_t>(ks) * L::kBK32Step, L::kBLbo, L::kBSbo, 0, L::kBSwizzle}));
  }
}

TEST_CASE("wgmma.sp kernel: the descriptors read each element of a stage once, where TMA wrote it", "[sparse24][wgmma][layout][prop]") {
  ws_prop("A (64-byte swizzle) and B (128-byte swizzle), both tiles, any stage", 100, [] {
    const Tile t = kTiles[*rc::gen::inRange(0, 2).as("tile (0: 256 x 128, 1: 128 x 256)")];
    RC_TAG(t.bm);
    const std::uint32_t a_bytes = static_cast<std::uint32_t>(t.bm * L::kARowBytes);
    const std::uint32_t stage_a = gen_stage_base(a_bytes + static_cast<std::uint32_t>(t.bn / L::kBBoxCols) * L::kBBoxBytes);
    const std::string a = check_a(stage_a, t.bm, kernel_a_desc);
    RC_ASSERT(a == "");
    const std::string b = check_b(stage_a + a_bytes, t.bn, kernel_b_desc);  // B follows A in a stage
    RC_ASSERT(b == "");
  });
}

TEST_CASE("wgmma.sp kernel: each lane's metadata word holds the nibbles wgmma.sp takes from it", "[sparse24][wgmma][layout]") {
  for (const Tile& t : kTiles) REQUIRE(check_meta(t.bm, L::meta_word_byte) == "");
  // The word is the swizzled metadata order's (sparse24_layout.hpp), read as 32 bits.
  for (int m16 = 0; m16 < 16; ++m16)
    for (int lane = 0; lane < 32; ++lane)
      REQUIRE(L::meta_word_byte(m16, lane) == 2 * s24::meta_swizzled_index(16 * m16 + lane / 4, lane % 4, 256));
}

TEST_CASE("the layout checks fail on perturbed layouts", "[sparse24][wgmma][layout]") {
  const std::uint32_t stage = 2048;
  const auto a_with = [](std::uint32_t lbo, std::uint32_t sbo, sm::Swizzle sw, std::uint32_t step) -> ADescFn {
    return [=](std::uint32_t block, int ks) { return sm::encode_desc(block + static_cast<std::uint32_t>(ks) * step, lbo, sbo, sw); };
  };
  const auto b_with = [](std::uint32_t lbo, std::uint32_t sbo, sm::Swizzle sw, std::uint32_t step) -> BDescFn {
    return [=](std::uint32_t stage_b, int ks) { return sm::encode_desc(stage_b + static_cast<std::uint32_t>(ks) * step, lbo, sbo, sw); };
  };
  for (const Tile& t : kTiles) {
    REQUIRE(check_a(stage, t.bm, a_with(L::kALbo, L::kASbo, L::kASwizzle, L::kAK32Step)) == "");  // the kernel's
    REQUIRE(check_a(stage, t.bm, a_with(L::kALbo, L::kASbo + 16, L::kASwizzle, L::kAK32Step)) != "");
    REQUIRE(check_a(stage, t.bm, a_with(L::kALbo, L::kASbo - 16, L::kASwizzle, L::kAK32Step)) != "");
    REQUIRE(check_a(stage, t.bm, a_with(L::kALbo, L::kASbo, sm::Swizzle::k128B, L::kAK32Step)) != "");
    REQUIRE(check_a(stage, t.bm, a_with(L::kALbo, L::kASbo, sm::Swizzle::k32B, L::kAK32Step)) != "");
    REQUIRE(check_a(stage, t.bm, a_with(L::kALbo, L::kASbo, L::kASwizzle, 16)) != "");
    REQUIRE(check_b(stage, t.bn, b_with(L::kBLbo, L::kBSbo, L::kBSwizzle, L::kBK32Step)) == "");  // the kernel's
    REQUIRE(check_b(stage, t.bn, b_with(L::kBLbo, L::kBSbo + 16, L::kBSwizzle, L::kBK32Step)) != "");
    REQUIRE(check_b(stage, t.bn, b_with(L::kBLbo + 16, L::kBSbo, L::kBSwizzle, L::kBK32Step)) != "");
    REQUIRE(check_b(stage, t.bn, b_with(L::kBSbo, L::kBLbo, L::kBSwizzle, L::kBK32Step)) != "");  // LBO and SBO swapped
    REQUIRE(check_b(stage, t.bn, b_with(L::kBLbo, L::kBSbo, sm::Swizzle::k64B, L::kBK32Step)) != "");
    REQUIRE(check_b(stage, t.bn, b_with(L::kBLbo, L::kBSbo, L::kBSwizzle, L::kBK32Step / 2)) != "");
    // Metadata: blocks of 64 B instead of 128, or the lanes of a quad swapped.
    REQUIRE(check_meta(t.bm, [](int m16, int lane) { return static_cast<std::uint32_t>(m16 * 64 + 4 * lane); }) != "");
    REQUIRE(check_meta(t.bm, [](int m16, int lane) { return L::meta_word_byte(m16, lane ^ 1); }) != "");
  }
}
