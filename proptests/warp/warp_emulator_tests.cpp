// The warp emulator against hand-worked cases of the CUDA C++ Programming Guide rules (shuffles
// with widths and member masks, ballot, faults on inactive lanes), the memory model (misaligned
// and out-of-bounds loads, sector and line counts), and properties: every shuffle equals a
// per-lane specification written here in segment/position form, and the shfl_up exclusive scan
// equals a sequential scan for every input and width.
#include <numeric>

#include "proptests/prop_support.hpp"
#include "reference/warp/memory.hpp"
#include "reference/warp/shuffle.hpp"

using namespace warpsparse;
using namespace warpsparse::warp;

namespace {
Lanes<int> ids100() { return per_lane([](int l) { return 100 + l; }); }
}  // namespace

TEST_CASE("shfl_sync: broadcast, per-segment source, srcLane taken modulo width") {
  const auto v = ids100();
  CHECK(shfl_sync(kFullMask, v, 5) == broadcast(105));
  const auto w8 = shfl_sync(kFullMask, v, 3, 8);
  for (int l = 0; l < 32; ++l) CHECK(w8[l] == 100 + (l / 8) * 8 + 3);
  CHECK(shfl_sync(kFullMask, v, 35) == broadcast(103));     // 35 mod 32
  const auto w4 = shfl_sync(kFullMask, v, 6, 4);            // 6 mod 4 = 2 within each segment
  for (int l = 0; l < 32; ++l) CHECK(w4[l] == 100 + (l / 4) * 4 + 2);
  CHECK(shfl_sync(kFullMask, v, 17, 1) == v);               // width 1: every lane reads itself
}

TEST_CASE("shfl_up / shfl_down keep their own value when the source leaves the segment") {
  const auto v = ids100();
  const auto up1 = shfl_up_sync(kFullMask, v, 1);
  CHECK(up1[0] == 100);
  for (int l = 1; l < 32; ++l) CHECK(up1[l] == 99 + l);
  const auto up2w4 = shfl_up_sync(kFullMask, v, 2, 4);
  const int want_up[8] = {100, 101, 100, 101, 104, 105, 104, 105};
  for (int l = 0; l < 8; ++l) CHECK(up2w4[l] == want_up[l]);
  const auto dn3w8 = shfl_down_sync(kFullMask, v, 3, 8);
  const int want_dn[8] = {103, 104, 105, 106, 107, 105, 106, 107};
  for (int l = 0; l < 8; ++l) CHECK(dn3w8[l] == want_dn[l]);
  CHECK(shfl_down_sync(kFullMask, v, 31)[0] == 131);
  CHECK(shfl_down_sync(kFullMask, v, 31)[1] == 101);
  CHECK(shfl_up_sync(kFullMask, v, 31, 16) == v);  // delta >= width: every lane keeps its value
  CHECK_THROWS_WITH(shfl_up_sync(kFullMask, v, 40), Catch::Contains("delta 40 >= 32"));  // guide and PTX disagree
  CHECK_THROWS_AS(shfl_down_sync(kFullMask, v, 32), WarpFault);
}

TEST_CASE("shfl_xor may read lower segments but not higher ones") {
  const auto v = ids100();
  const auto x1 = shfl_xor_sync(kFullMask, v, 1);
  for (int l = 0; l < 32; ++l) CHECK(x1[l] == 100 + (l ^ 1));
  const auto x16w16 = shfl_xor_sync(kFullMask, v, 16, 16);
  for (int l = 0; l < 16; ++l) CHECK(x16w16[l] == 100 + l);       // lane l^16 is in a later segment
  for (int l = 16; l < 32; ++l) CHECK(x16w16[l] == 100 + l - 16);  // earlier segment: allowed
  const auto x3w2 = shfl_xor_sync(kFullMask, v, 3, 2);
  CHECK(x3w2[0] == 100);  // 0^3 = 3, above segment [0,1]
  CHECK(x3w2[3] == 100);  // 3^3 = 0, a lower segment
  CHECK(x3w2[2] == 101);  // 2^3 = 1
}

TEST_CASE("member masks: lanes outside keep their value, reading an inactive lane faults") {
  const auto v = ids100();
  const auto up = shfl_up_sync(0x0000ffffu, v, 1);
  CHECK(up[0] == 100);
  for (int l = 1; l < 16; ++l) CHECK(up[l] == 99 + l);
  for (int l = 16; l < 32; ++l) CHECK(up[l] == 100 + l);
  CHECK_THROWS_AS(shfl_sync(0x1u, v, 1), WarpFault);
  CHECK_THROWS_WITH(shfl_down_sync(0x7fffffffu, v, 1), Catch::Contains("lane 30 reads lane 31"));
  CHECK_NOTHROW(shfl_down_sync(0xfffffffeu, v, 1));  // lane 0 did not take part: nothing reads it
  CHECK_THROWS_AS(shfl_xor_sync(0xfffffffeu, v, 1), WarpFault);  // lane 1 reads lane 0
  CHECK_THROWS_WITH(shfl_sync(kFullMask, v, 0, 3), Catch::Contains("width 3"));
  CHECK_THROWS_AS(shfl_up_sync(kFullMask, v, 1, 64), WarpFault);
  CHECK_THROWS_AS(shfl_up_sync(kFullMask, v, 1, 0), WarpFault);
}

TEST_CASE("ballot_sync sets the bits of active lanes whose predicate holds") {
  const auto p = per_lane([](int l) { return l % 3 == 0; });
  CHECK(ballot_sync(0xffu, p) == 0b01001001u);
  CHECK(ballot_sync(kFullMask, p) == 0x49249249u);
  CHECK(ballot_sync(0u, p) == 0u);
}

TEST_CASE("shuffles equal a per-lane specification for every width, delta and mask") {
  using namespace warpsparse::proptest;
  ws_prop("shuffle rules", 3000, [] {
    const int width = 1 << *rc::gen::inRange(0, 6).as("log2 width");
    const auto vals = *rc::gen::container<std::vector<int>>(32, rc::gen::arbitrary<int>()).as("lane values");
    const unsigned delta = *rc::gen::inRange(0u, 40u).as("delta / lane mask");
    const int src = *rc::gen::inRange(0, 64).as("source lane");
    const std::uint32_t mask = *rc::gen::oneOf(rc::gen::just(kFullMask), rc::gen::arbitrary<std::uint32_t>()).as("member mask");
    Lanes<int> v{};
    std::copy(vals.begin(), vals.end(), v.begin());
    // Specification: lane = segment * width + position.
    auto spec = [&](auto source_pos) {  // source_pos(pos) -> source position or -1 (keep own)
      Lanes<int> out = v;
      bool fault = false;
      for (int l = 0; l < 32; ++l) {
        if (!((mask >> l) & 1u)) continue;
        const int seg = l / width, pos = l % width;
        const int sp = source_pos(pos, seg);
        if (sp < 0) continue;
        const int s = sp;  // absolute source lane
        if (!((mask >> s) & 1u)) fault = true; else out[l] = v[s];
      }
      return std::pair{out, fault};
    };
    auto run = [&](auto op, std::pair<Lanes<int>, bool> want) {
      if (want.second) {
        RC_ASSERT_THROWS_AS(op(), WarpFault);
      } else {
        RC_ASSERT(op() == want.first);
      }
    };
    run([&] { return shfl_sync(mask, v, src, width); },
        spec([&](int pos, int seg) { const int s = seg * width + src % width; return s == seg * width + pos ? -1 : s; }));
    if (delta >= 32) {
      RC_ASSERT_THROWS_AS(shfl_up_sync(mask, v, delta, width), WarpFault);
      RC_ASSERT_THROWS_AS(shfl_down_sync(mask, v, delta, width), WarpFault);
      return;
    }
    run([&] { return shfl_up_sync(mask, v, delta, width); },
        spec([&](int pos, int seg) { return pos >= int(delta) && delta > 0 ? seg * width + pos - int(delta) : -1; }));
    run([&] { return shfl_down_sync(mask, v, delta, width); },
        spec([&](int pos, int seg) { return pos + int(delta) < width && delta > 0 ? seg * width + pos + int(delta) : -1; }));
    run([&] { return shfl_xor_sync(mask, v, int(delta), width); }, spec([&](int pos, int seg) {
          const int lane = seg * width + pos, s = lane ^ (int(delta) & 31);
          return s / width > seg || s == lane ? -1 : s;  // later segments are not readable
        }));
  });
}

TEST_CASE("exclusive_scan_shfl_up equals a sequential exclusive scan within each segment") {
  using namespace warpsparse::proptest;
  ws_prop("scan", 3000, [] {
    const int width = 1 << *rc::gen::inRange(0, 6).as("log2 width");
    const auto vals = *rc::gen::container<std::vector<int>>(32, rc::gen::inRange(-1000000, 1000000)).as("lane values");
    Lanes<long long> v{};
    std::copy(vals.begin(), vals.end(), v.begin());
    const auto got = exclusive_scan_shfl_up(kFullMask, v, width);
    for (int seg = 0; seg < 32; seg += width) {
      long long run = 0;
      for (int l = seg; l < seg + width; ++l) {
        RC_ASSERT(got[l] == run);
        run += v[l];
      }
    }
  });
}

// kernels/macko/macko_spmv.cuh, interior_pair: two interior 4-bit steps share one scan, their lane sums
// (each at most 8 increments of at most 16) in the two 16-bit halves of one int. The warp model
// scans each step on its own; this is the identity that makes the two agree.
TEST_CASE("one shfl_up scan of two 16-bit halves equals the two scans (MACKO interior_pair)") {
  using namespace warpsparse::proptest;
  // Whether the packed scan gives both steps' exclusive sums and totals.
  auto agrees = [](int width, const Lanes<int>& a, const Lanes<int>& b) {
    const Lanes<int> packed = per_lane([&](int l) { return a[l] | (b[l] << 16); });
    const auto ex = exclusive_scan_shfl_up(kFullMask, packed, width);
    const auto ea = exclusive_scan_shfl_up(kFullMask, a, width), eb = exclusive_scan_shfl_up(kFullMask, b, width);
    const Lanes<int> incl = per_lane([&](int l) { return ex[l] + packed[l]; });
    const auto total = shfl_sync(kFullMask, incl, width - 1, width);  // the kernel's step totals
    bool ok = true;
    for (int l = 0; l < 32; ++l) {
      const int last = l / width * width + width - 1;
      ok = ok && (ex[l] & 0xffff) == ea[l] && (ex[l] >> 16) == eb[l] && (total[l] & 0xffff) == ea[last] + a[last] &&
           (total[l] >> 16) == eb[last] + b[last];
    }
    return ok;
  };
  ws_prop("pair scan", 2000, [&] {
    const int width = *rc::gen::element(16, 32).as("lanes per row");
    const int max_local = *rc::gen::element(64, 128).as("largest lane sum (4 or 8 elements)");
    const auto lanes = rc::gen::container<std::vector<int>>(32, rc::gen::inRange(0, max_local + 1));
    const auto va = *lanes.as("first step"), vb = *lanes.as("second step");
    Lanes<int> a{}, b{};
    std::copy(va.begin(), va.end(), a.begin());
    std::copy(vb.begin(), vb.end(), b.begin());
    RC_ASSERT(agrees(width, a, b));
  });
  SECTION("every lane at the largest sum: totals of 4096, no carry between the halves") {
    CHECK(agrees(32, broadcast(128), broadcast(128)));
    CHECK(agrees(16, broadcast(128), broadcast(128)));
    CHECK_FALSE(agrees(32, broadcast(4096), broadcast(1)));  // halves that carry are caught
  }
}

TEST_CASE("global memory: bounds, alignment, sectors and lines") {
  std::vector<float> data(1024);
  std::iota(data.begin(), data.end(), 0.0f);
  const GlobalArray<float> g("data", data);
  MemoryStats st;
  // 32 lanes x 4 B consecutive: 128 B = 4 sectors, 1 line.
  const auto v = g.gather(kFullMask, per_lane([](int l) { return std::int64_t(l); }), &st);
  CHECK(v[7] == 7.0f);
  CHECK(st.instructions == 1);
  CHECK(st.sectors == 4);
  CHECK(st.lines == 1);
  CHECK(st.bytes_requested == 128);
  // 16-byte vectors, consecutive: 512 B = 16 sectors, 4 lines.
  st = {};
  const auto q = g.load<4>(kFullMask, per_lane([](int l) { return std::int64_t(4 * l); }), &st);
  CHECK(q[3][2] == 14.0f);
  CHECK(st.sectors == 16);
  CHECK(st.lines == 4);
  // Stride of 32 floats (128 B): every lane its own sector and line.
  st = {};
  g.gather(kFullMask, per_lane([](int l) { return std::int64_t(32 * l); }), &st);
  CHECK(st.sectors == 32);
  CHECK(st.lines == 32);
  // Same address from every lane: one sector.
  st = {};
  g.gather(kFullMask, broadcast(std::int64_t{9}), &st);
  CHECK(st.sectors == 1);
  // Inactive lanes neither load nor fault; an all-inactive load is no instruction.
  st = {};
  CHECK_NOTHROW(g.gather(0x1u, per_lane([](int l) { return l == 0 ? std::int64_t{0} : std::int64_t{-5}; }), &st));
  CHECK(st.sectors == 1);
  st = {};
  g.gather(0u, broadcast(std::int64_t{5000}), &st);
  CHECK(st.instructions == 0);
  // Faults name the array, the lane and the address.
  CHECK_THROWS_WITH(g.load<4>(kFullMask, per_lane([](int l) { return std::int64_t(4 * l + (l == 3 ? 1 : 0)); }), nullptr),
                    Catch::Contains("misaligned") && Catch::Contains("lane 3") && Catch::Contains("'data'"));
  CHECK_THROWS_WITH(g.load<2>(kFullMask, per_lane([](int l) { return l == 31 ? std::int64_t{1023} : std::int64_t{0}; }), nullptr),
                    Catch::Contains("out-of-bounds") && Catch::Contains("lane 31"));
  CHECK_THROWS_WITH(g.gather(kFullMask, per_lane([](int l) { return l == 2 ? std::int64_t{1024} : std::int64_t{0}; }), nullptr),
                    Catch::Contains("out-of-bounds") && Catch::Contains("0x10001000"));
  CHECK_THROWS_AS(g.gather(kFullMask, broadcast(std::int64_t{-1}), nullptr), WarpFault);
  // A 16-byte load of bytes must be 16-byte aligned.
  std::vector<std::uint8_t> bytes(64);
  const GlobalArray<std::uint8_t> gb("bytes", bytes);
  CHECK_NOTHROW(gb.load<16>(0x3u, per_lane([](int l) { return std::int64_t(16 * l); }), nullptr));
  CHECK_THROWS_AS(gb.load<16>(0x1u, broadcast(std::int64_t{8}), nullptr), WarpFault);
  CHECK_THROWS_AS(gb.load<4>(0x1u, broadcast(std::int64_t{62}), nullptr), WarpFault);
}
