// The printed closed forms reproduce macko-blog.txt's storage table (16-bit values, 4-bit deltas)
// to its printed precision: each value within half a unit of its last printed digit. The table
// (analysis/seed_tables.hpp) is the seed's published data, transcribed; the models never read it.
#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/effd.hpp"
#include "analysis/seed_tables.hpp"

using namespace warpsparse::analysis;

namespace {
bool matches_printed(double ours, double printed, int decimals) {
  return std::abs(ours - printed) <= 0.5 * std::pow(10.0, -decimals) + 1e-12;
}
}  // namespace

TEST_CASE("closed forms reproduce the blog's storage table", "[closed-form][seeds]") {
  StorageConfig c;  // 16-bit values, 4-bit deltas, printed forms
  for (const auto& row : kBlogStorageTable) {
    const double d = row.density;
    INFO("density " << d);
    CHECK(matches_printed(format_effd(Format::csr32, d, c), row.csr32, kBlogCsrDecimals));
    CHECK(matches_printed(format_effd(Format::csr16, d, c), row.csr16, kBlogCsrDecimals));
    CHECK(matches_printed(format_effd(Format::macko_best, d, c), row.best, kBlogMackoDecimals));
    CHECK(matches_printed(format_effd(Format::macko_expected, d, c), row.expected, kBlogMackoDecimals));
    CHECK(matches_printed(format_effd(Format::macko_worst, d, c), row.worst, kBlogMackoDecimals));
  }
}

TEST_CASE("kept terms converge to the printed forms for large matrices", "[closed-form]") {
  StorageConfig big;
  big.shape = {49152, 12288};
  StorageConfig printed;
  for (const double d : {0.1, 0.5, 0.9}) {
    for (const Format f : all_formats()) {
      const double a = format_effd(f, d, big), b = format_effd(f, d, printed);
      INFO(format_name(f) << " d = " << d);
      CHECK(a >= b - 1e-3);  // kept terms only add storage (the exact finite-row padding is within 1e-3)
      CHECK(std::abs(a - b) < 5e-3);
    }
  }
}

TEST_CASE("root finding agrees with crossovers solved by hand", "[crossover]") {
  StorageConfig c;
  const auto xs = crossovers(c);
  auto find = [&](const std::string& name, const std::string& scen) {
    for (const auto& x : xs)
      if (x.name == name && x.scenario == scen) return x;
    FAIL("no crossover " << name << " / " << scen);
    return Crossover{};
  };
  // Linear cases: 1.25 d = 1; 1.25 (d + (1 − d)/16) = 1; 3 d = 1; 1.25 (d + (1 − d)/16) = 0.5;
  // 1.25 (d + (1 − d)/16) = 2 d.
  CHECK(find("MACKO = dense", "best").density == Approx(0.8).epsilon(1e-9));
  CHECK(find("MACKO = dense", "worst").density == Approx((0.8 - 1.0 / 16) / (15.0 / 16)).epsilon(1e-9));
  CHECK(find("CSR32 = dense", "-").density == Approx(1.0 / 3).epsilon(1e-9));
  CHECK(find("MACKO effd = 0.5", "worst").density == Approx((0.4 - 1.0 / 16) / (15.0 / 16)).epsilon(1e-9));
  CHECK(find("MACKO = CSR16", "worst").density == Approx(1.25 / 16 / (0.75 + 1.25 / 16)).epsilon(1e-9));
  // Expected vs CSR16: 1.25 (1 + z/(1 − z)) = 2, i.e. z = 0.375, d = 1 − 0.375^(1/16).
  CHECK(find("MACKO = CSR16", "expected").density == Approx(1 - std::pow(0.375, 1.0 / 16)).epsilon(1e-9));
  // The printed best case never meets CSR16 (1.25 d < 2 d for every d > 0), nor does the worst
  // case meet bitmask (its slope 1.25·15/16 exceeds 1 and it starts above).
  CHECK_FALSE(find("MACKO = CSR16", "best").found);
  CHECK_FALSE(find("MACKO = bitmask", "worst").found);
}

TEST_CASE("roofline speedup is the byte ratio and reaches the paper's 1.6x at 50% sparsity", "[roofline][seeds]") {
  StorageConfig c;
  c.shape = {36864, 12288};
  const auto dense = roofline(Format::dense, 0.5, c);
  const auto macko = roofline(Format::macko_expected, 0.5, c);
  CHECK(dense.speedup_vs_dense == Approx(1.0));
  // Dense GEMV at 3 TB/s: (R·C + R + C)·2 bytes.
  CHECK(dense.seconds == Approx((36864.0 * 12288 + 36864 + 12288) * 2 / kDefaultBandwidth));
  CHECK(macko.seconds < dense.seconds);
  // macko-paper.txt §6: "theoretically 1.6x speedup at sparsity 50%" (1/effd, effd = 0.625), to 2 digits.
  CHECK(std::abs(macko.speedup_vs_dense - 1.6) < 0.05);
  // Halving the bandwidth doubles every time and leaves the speedup.
  const auto slow = roofline(Format::macko_expected, 0.5, c, kDefaultBandwidth / 2);
  CHECK(slow.seconds == Approx(2 * macko.seconds));
  CHECK(slow.speedup_vs_dense == Approx(macko.speedup_vs_dense));
}
