// GPU test of the wgmma.sp kernel's shared-memory model (reference/sparse24/sparse24_smem_layout.hpp)
// on an sm_90 device, through the kernel's own probe (kernels/sparse24/sparse24_wgmma_probe.hpp):
//   1. TMA placement: every element of A (64-byte swizzle) and B (128-byte swizzle, both boxes)
//      sits in the shared-memory image where the model's tma_box_address puts it;
//   2. descriptor reads: the two wgmma.sp m64n128k32 on the kernel's descriptors and metadata words
//      give exactly the accumulators of a host replay that reads each element of A and B from that
//      image at the model's desc_address, with random valid metadata per row and group.
// The inputs are small integers, so every accumulator is exact in fp32 whatever the order of the
// sums; the identification runs (A holds element ids, or B its row or column index against a
// one-hot operand) make each output one element, so a wrong address shows as a wrong id.
// The metadata and the random operands are drawn from a fresh seed each run (printed on failure).
// Other devices: the program exits 77 (CTest: skipped), as without a GPU (gpu_main.cpp).
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/sparse24/sparse24_wgmma_probe.hpp"
#include "reference/sparse24/sparse24_smem_layout.hpp"
#include "reference/values/value_types.hpp"

namespace ws = warpsparse;
namespace s24 = warpsparse::sparse24;
namespace sm = warpsparse::sparse24::smem;
namespace g24 = warpsparse::sparse24::gpu;
using L = sm::WgmmaSpLayout;

namespace {

constexpr int kGroups = g24::kProbeK / s24::kGroup;  // 2:4 groups per row of the K tile

std::uint16_t f16(int v) { return ws::bits_of(ws::to_half(static_cast<float>(v))); }
float value(std::uint16_t bits) { return ws::to_float(ws::from_bits<ws::half>(bits)); }

struct Operands {
  std::vector<std::uint16_t> a, b;  // fp16 bits, row-major
  std::vector<std::uint32_t> nibble;  // per (row, group) of the K tile
};

// The metadata of the K tile in the swizzled order the kernel stages (sparse24_layout.hpp).
std::vector<std::uint16_t> stage_meta(const Operands& o) {
  std::vector<std::uint16_t> e(static_cast<std::size_t>(g24::kProbeRows / s24::kMetaBlockRows) * s24::kMetaBlockHalves, 0);
  for (int r = 0; r < g24::kProbeRows; ++r)
    for (int grp = 0; grp < kGroups; ++grp)
      e[static_cast<std::size_t>(s24::meta_swizzled_index(r, grp / 4, g24::kProbeRows))] |=
          static_cast<std::uint16_t>(o.nibble[static_cast<std::size_t>(r * kGroups + grp)] << (4 * (grp % 4)));
  return e;
}

// The model's TMA placement against the image (stage A at 0, B after it, both pattern aligned).
std::string check_image(const Operands& o, const std::vector<std::uint16_t>& image) {
  for (int r = 0; r < g24::kProbeRows; ++r)
    for (int cc = 0; cc < g24::kProbeACols; ++cc)
      if (image[L::a_tma_address(0, r, cc) / 2] != o.a[static_cast<std::size_t>(r * g24::kProbeACols + cc)])
        return "A (" + std::to_string(r) + ", " + std::to_string(cc) + ") is not where the model puts it";
  for (int k = 0; k < g24::kProbeK; ++k)
    for (int n = 0; n < g24::kProbeN; ++n)
      if (image[L::b_tma_address(L::kAM64Bytes, k, n) / 2] != o.b[static_cast<std::size_t>(k * g24::kProbeN + n)])
        return "B (" + std::to_string(k) + ", " + std::to_string(n) + ") is not where the model puts it";
  return {};
}

// The two wgmma.sp replayed on the image through the model's descriptors.
std::vector<double> replay(const Operands& o, const std::vector<std::uint16_t>& image) {
  std::vector<double> d(static_cast<std::size_t>(g24::kProbeRows) * g24::kProbeN, 0.0);
  for (int ks = 0; ks < L::kKSteps; ++ks) {
    const sm::Desc da = sm::decode_desc(L::a_desc(L::a_block(0, 0), ks));
    const sm::Desc db = sm::decode_desc(L::b_desc(L::kAM64Bytes, ks));
    for (int m = 0; m < g24::kProbeRows; ++m)
      for (int kc = 0; kc < 16; ++kc) {  // compressed columns of this step
        const int grp = 8 * ks + kc / 2;
        const std::uint32_t nib = o.nibble[static_cast<std::size_t>(m * kGroups + grp)];
        const int k = 4 * (kc / 2) + (kc % 2 ? s24::nibble_hi(nib) : s24::nibble_lo(nib));  // K inside the step
        const double a = value(image[sm::desc_address(da, sm::Major::kK, m, kc) / 2]);
        for (int n = 0; n < g24::kProbeN; ++n)
          d[static_cast<std::size_t>(m * g24::kProbeN + n)] += a * value(image[sm::desc_address(db, sm::Major::kMN, n, k) / 2]);
      }
  }
  return d;
}

void run(const std::string& name, const Operands& o) {
  INFO(name);
  const g24::WgmmaProbe p = g24::wgmma_layout_probe(o.a, o.b, stage_meta(o));
  REQUIRE(check_image(o, p.image) == "");
  const std::vector<double> want = replay(o, p.image);
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("D(" << i / g24::kProbeN << ", " << i % g24::kProbeN << ")");
    REQUIRE(static_cast<double>(p.d[i]) == want[i]);
  }
}

}  // namespace

// The probe's kernel is built for sm_90a, which runs on compute capability 9.0 only.
const char* ws_gpu_unsupported(const cudaDeviceProp& p) {
  return p.major == 9 && p.minor == 0 ? nullptr : "the wgmma.sp probe needs a compute capability 9.0 device";
}

TEST_CASE("wgmma.sp reads A and B where the model says, from where TMA wrote them",
          "[sparse24][wgmma][layout][gpu]") {
  constexpr std::array<std::uint32_t, 6> kValid = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  const std::uint32_t first = std::random_device{}();
  for (std::uint32_t seed = first; seed != first + 4; ++seed) {
    std::mt19937 rng(seed);
    Operands base;
    base.nibble.resize(static_cast<std::size_t>(g24::kProbeRows) * kGroups);
    for (auto& nib : base.nibble) nib = kValid[rng() % kValid.size()];
    base.a.resize(static_cast<std::size_t>(g24::kProbeRows) * g24::kProbeACols);
    base.b.resize(static_cast<std::size_t>(g24::kProbeK) * g24::kProbeN);
    const auto fill_a = [&](Operands& o, auto f) {
      for (int m = 0; m < g24::kProbeRows; ++m)
        for (int cc = 0; cc < g24::kProbeACols; ++cc) o.a[static_cast<std::size_t>(m * g24::kProbeACols + cc)] = f16(f(m, cc));
    };
    const auto fill_b = [&](Operands& o, auto f) {
      for (int k = 0; k < g24::kProbeK; ++k)
        for (int n = 0; n < g24::kProbeN; ++n) o.b[static_cast<std::size_t>(k * g24::kProbeN + n)] = f16(f(k, n));
    };
    const std::string s = " (seed " + std::to_string(seed) + ")";
    Operands ids = base;  // A holds its element ids (exact in fp16), B picks column n % 64 of K
    fill_a(ids, [](int m, int cc) { return m * g24::kProbeACols + cc; });
    fill_b(ids, [](int k, int n) { return n % 64 == k ? 1 : 0; });
    run("A ids" + s, ids);
    Operands rows = base;  // row m of A keeps compressed column m % 32 only; B holds k + 1, then n + 1
    fill_a(rows, [](int m, int cc) { return cc == m % g24::kProbeACols ? 1 : 0; });
    fill_b(rows, [](int k, int) { return k + 1; });
    run("B rows" + s, rows);
    fill_b(rows, [](int, int n) { return n + 1; });
    run("B columns" + s, rows);
    Operands any = base;  // small random integers: sums stay exact in fp32
    fill_a(any, [&](int, int) { return static_cast<int>(rng() % 17) - 8; });
    fill_b(any, [&](int, int) { return static_cast<int>(rng() % 17) - 8; });
    run("random" + s, any);
  }
}
