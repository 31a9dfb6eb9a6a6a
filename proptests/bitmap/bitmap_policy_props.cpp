// Which kernel multiplies a batch (reference/bitmap/bitmap_schedule.hpp, choose_batch_kernel) and
// the bitmap kernel's parts (choose_parts): batches of 1 to 4 stay on MACKO at any density, 5 to 8
// go to the tensor-core kernel from Rules::bitmap_min_density on, 9 to 16 always (MACKO has no
// kernel); a MACKO batch is the next compiled one (1, 2, 4, 8) and its schedule compiles; a batch
// outside 1..16 is refused by name. Parts give few tile rows warps_per_sm warps per SM, keep
// min_part_tiles k tiles each (one part where the row has fewer), and many tile rows get one part.
// Expectations are written out here (numbers worked by hand, the rule as the header's comment
// states it), not called from the code under test.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "proptests/prop_support.hpp"
#include "reference/bitmap/bitmap_schedule.hpp"
#include "reference/macko/macko_policy.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;
namespace bm = warpsparse::bitmap;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The smallest compiled MACKO batch that holds b vectors (b <= 8), or MACKO's largest, 8.
int next_macko_batch(int b) {
  for (const int m : {1, 2, 4, 8})
    if (b <= m) return m;
  return 8;
}

const std::vector<double> kDensities = {0.0, 0.01, 0.1, 0.3, 0.44, 0.449999, 0.45, 0.450001, 0.5, 0.75, 1.0};

}  // namespace

TEST_CASE("the rule's thresholds are the measured ones") {
  // The crossing near d = 0.45 at B = 8, and B = 2 and 4 always MACKO's (the header's measurements).
  CHECK(bm::kRules.bitmap_min_batch == 5);
  CHECK(bm::kRules.bitmap_min_density == 0.45);
  CHECK(bm::kRules.warps_per_sm == 32);
  CHECK(bm::kRules.min_part_tiles == 16);
}

TEST_CASE("batches 1 to 4 run on MACKO at any density, at the next compiled batch") {
  for (const int b : {1, 2, 3, 4})
    for (const double d : kDensities) {
      const bm::BatchChoice c = bm::choose_batch_kernel(d, b);
      INFO("batch " << b << " density " << d << ": " << c.why);
      CHECK(c.kernel == bm::BatchKernel::macko);
      CHECK(c.macko_batch == (b == 3 ? 4 : b));
      CHECK(has(c.why, "batch " + std::to_string(b) + " < 5"));
      CHECK(has(c.why, "runs as") == (b == 3));
    }
  CHECK(has(bm::choose_batch_kernel(0.9, 3).why, "batch 3 runs as 4"));
}

TEST_CASE("batches 5 to 8 run on the bitmap kernel exactly from the minimum density on") {
  const double min_d = bm::kRules.bitmap_min_density;
  for (const int b : {5, 6, 7, 8}) {
    for (const double d : kDensities) {
      const bm::BatchChoice c = bm::choose_batch_kernel(d, b);
      INFO("batch " << b << " density " << d << ": " << c.why);
      CHECK((c.kernel == bm::BatchKernel::bitmap) == (d >= 0.45));
      CHECK(c.macko_batch == 8);
      CHECK(has(c.why, "density"));
    }
    // Just either side of the threshold.
    CHECK(bm::choose_batch_kernel(min_d, b).kernel == bm::BatchKernel::bitmap);
    CHECK(bm::choose_batch_kernel(std::nextafter(min_d, 0.0), b).kernel == bm::BatchKernel::macko);
  }
  CHECK(has(bm::choose_batch_kernel(0.1, 5).why, "batch 5 runs as 8"));
  CHECK(!has(bm::choose_batch_kernel(0.1, 8).why, "runs as"));
  CHECK(has(bm::choose_batch_kernel(0.5, 8).why, "MACKO's 8 FMAs"));
}

TEST_CASE("batches 9 to 16 run on the bitmap kernel at any density") {
  for (int b = 9; b <= 16; ++b)
    for (const double d : kDensities) {
      const bm::BatchChoice c = bm::choose_batch_kernel(d, b);
      INFO("batch " << b << " density " << d << ": " << c.why);
      CHECK(c.kernel == bm::BatchKernel::bitmap);
      CHECK(c.why == "batch " + std::to_string(b) + " > 8: MACKO has no kernel for it");
    }
}

TEST_CASE("a 2:4 weight held as 2:4 runs batches of >= 3 vectors at d >= 0.45 on the 2:4 GEMM, others as without it") {
  CHECK(bm::kRules.sparse24_min_batch == 3);
  CHECK(bm::kRules.sparse24_min_density == 0.45);
  for (int b = 1; b <= bm::kBatchMax; ++b)
    for (const double d : kDensities) {
      const bm::BatchChoice with = bm::choose_batch_kernel(d, b, {.sparse24 = true}), without = bm::choose_batch_kernel(d, b);
      INFO("batch " << b << " density " << d << ": " << with.why);
      const bool gemm = b >= 3 && d >= 0.45;
      CHECK((with.kernel == bm::BatchKernel::sparse24) == gemm);
      if (!gemm) {
        CHECK(with.kernel == without.kernel);
        CHECK(with.why == without.why);
      } else {
        CHECK(has(with.why, "the 2:4 GEMM"));
      }
    }
  CHECK(std::string(bm::to_string(bm::BatchKernel::sparse24)) == "sparse24");
  // Where MACKO gathers x through L1, 2 vectors already take the GEMM; 1 never does, nor an
  // unstructured weight.
  for (const double d : kDensities) {
    const bool dense_enough = d >= 0.45;
    CHECK((bm::choose_batch_kernel(d, 2, {.sparse24 = true, .macko_x_l1 = true}).kernel == bm::BatchKernel::sparse24) ==
          dense_enough);
    CHECK(bm::choose_batch_kernel(d, 1, {.sparse24 = true, .macko_x_l1 = true}).kernel != bm::BatchKernel::sparse24);
    CHECK(bm::choose_batch_kernel(d, 2, {.macko_x_l1 = true}).kernel == bm::choose_batch_kernel(d, 2).kernel);
  }
  CHECK(has(bm::choose_batch_kernel(0.5, 2, {.sparse24 = true, .macko_x_l1 = true}).why, "x through L1"));
  // Out of range stays refused.
  CHECK(bm::choose_batch_kernel(0.5, 17, {.sparse24 = true}).kernel == bm::BatchKernel::macko);
}

TEST_CASE("the rules are data: other thresholds move the boundaries") {
  bm::Rules r;
  r.bitmap_min_batch = 3;
  r.bitmap_min_density = 0.2;
  for (int b = 1; b <= 8; ++b)
    for (const double d : kDensities) {
      INFO("batch " << b << " density " << d);
      CHECK((bm::choose_batch_kernel(d, b, {}, r).kernel == bm::BatchKernel::bitmap) == (b >= 3 && d >= 0.2));
    }
}

TEST_CASE("the MACKO batch is the next compiled one, and MACKO's policy compiles a schedule for it") {
  for (int b = 1; b <= bm::kBatchMax; ++b) {
    const bm::BatchChoice c = bm::choose_batch_kernel(0.3, b);
    INFO("batch " << b);
    CHECK(c.macko_batch == next_macko_batch(b));
    CHECK(c.macko_batch >= std::min(b, 8));
    CHECK(!c.why.empty());
    for (const std::int64_t n : {40, 4096, 12288})
      for (const double d : {0.05, 0.5, 0.9}) {
        macko::MatrixStats m;
        m.rows = n;
        m.cols = n;
        m.density = d;
        const macko::Plan p = macko::plan_schedule(m, kH100, c.macko_batch);
        CHECK(p.schedule.batch == c.macko_batch);
        CHECK(macko::compiled_variant(p.schedule, 4) >= 0);
      }
  }
}

TEST_CASE("a batch outside 1..16 is refused by name") {
  for (const int b : {0, 17, -1, 100}) {
    const bm::BatchChoice c = bm::choose_batch_kernel(0.5, b);
    INFO(c.why);
    CHECK(c.why == "batch " + std::to_string(b) + " is outside 1..16");
  }
}

TEST_CASE("parts on the H100 (132 SMs, 32 warps each: 4224 warps), worked by hand") {
  struct Case {
    std::int64_t rows, cols;
    int parts;
  };
  const Case cases[] = {
      {4096, 4096, 16},           // 256 tile rows want 17 parts; 256 k tiles / 16 allow 16
      {12288, 12288, 6},          // 768 tile rows: 4224 / 768 = 5.5 -> 6
      {28672, 8192, 3},           // 1792 tile rows: 2.4 -> 3
      {4096, 12288, 17},          // 256 tile rows: 16.5 -> 17; 768 k tiles allow 48
      {16, 100, 1},               // 7 k tiles: fewer than one part's 16
      {16, 255, 1},               // 16 k tiles: one part
      {16, 512, 2},               // 32 k tiles: two parts of 16
      {16, 1 << 20, 4096},        // one tile row: 65536 k tiles / 16
      {16, 1 << 21, 4224},        // one tile row: 4224 warps, each part 31 k tiles
      {67584, 4096, 1},           // 4224 tile rows: one warp each fills the GPU
      {100000, 100000, 1},        // more tile rows than warps
      {67568, 4096, 2},           // 4223 tile rows: 1.0002 -> 2
      {0, 4096, 1},               // empty
      {4096, 0, 1},
  };
  for (const Case& c : cases) {
    INFO(c.rows << " x " << c.cols);
    CHECK(bm::choose_parts(c.rows, c.cols, kH100) == c.parts);
    const bm::Schedule s = bm::choose_schedule(c.rows, c.cols, 8, kH100);
    CHECK(s.batch == 8);
    CHECK(s.parts == c.parts);
    CHECK(s.name() == "bitmap_b8_p" + std::to_string(c.parts));
  }
  DeviceFacts small = kH100;
  small.sms = 10;  // 320 warps
  CHECK(bm::choose_parts(4096, 4096, small) == 2);   // 256 tile rows: 1.25 -> 2
  CHECK(bm::choose_parts(8192, 4096, small) == 1);   // 512 tile rows
  bm::Rules r;
  r.min_part_tiles = 64;
  CHECK(bm::choose_parts(4096, 4096, kH100, r) == 4);  // 256 k tiles / 64
}

TEST_CASE("parts fill the GPU where the k tiles allow, never split below min_part_tiles, one for many rows") {
  ws_prop("choose_parts", 2000, [] {
    const std::int64_t rows = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 2000),
                                              rc::gen::inRange<std::int64_t>(1, 200000)).as("rows");
    const std::int64_t cols = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 2000),
                                              rc::gen::inRange<std::int64_t>(1, 4000000)).as("cols");
    const int sms = *rc::gen::element(132, 10, 1).as("sms");
    DeviceFacts dev = kH100;
    dev.sms = sms;
    const std::int64_t tr = (rows + 15) / 16, kt = (cols + 15) / 16;
    const std::int64_t want = std::int64_t{sms} * 32;
    const int p = bm::choose_parts(rows, cols, dev);
    RC_ASSERT(p >= 1);
    RC_ASSERT(bm::schedule_fault(bm::Schedule{8, p}, cols).empty());
    if (kt < 32) {
      RC_ASSERT(p == 1);  // fewer than two parts' k tiles
      return;
    }
    RC_ASSERT(std::int64_t{p} * 16 <= kt);  // every part keeps 16 k tiles (the shortest has kt / p rounded down)
    RC_ASSERT(kt / p >= 16);
    if (tr >= want) RC_ASSERT(p == 1);
    if (std::int64_t{p} * 16 + 16 <= kt) {
      // The k tiles allowed another part, so the warps are enough, and one part fewer would not be.
      RC_ASSERT(std::int64_t{p} * tr >= want);
      RC_ASSERT(p == 1 || std::int64_t{p - 1} * tr < want);
    }
  });
}
