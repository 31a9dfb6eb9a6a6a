// fp16 / bf16 / int8 conversions against an independent bit-level round-to-nearest-even written
// here from the IEEE 754 definition (not from value_types.hpp): every 16-bit pattern round-trips,
// and float -> T equals the reference for random bits, exact ties, subnormals and overflow.
#include <bit>
#include <cmath>
#include <cstring>

#include "proptests/prop_support.hpp"
#include "reference/values/value_types.hpp"

using namespace warpsparse;

namespace {

// Rounds the fp32 with bits u to a binary format with `mb` mantissa bits and `eb` exponent bits,
// nearest-even, overflow to Inf, NaN to the canonical 0x7fff (CUDA). Works on the integer
// significand: value = m * 2^q0, target quantum 2^qt.
std::uint16_t ref_round(std::uint32_t u, int mb, int eb) {
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 31) << 15);
  const int exp = static_cast<int>((u >> 23) & 0xff);
  const std::uint32_t man = u & 0x7fffff;
  const std::uint32_t inf_bits = ((1u << eb) - 1) << mb;
  if (exp == 0xff) return man ? std::uint16_t{0x7fff} : static_cast<std::uint16_t>(sign | inf_bits);
  const int bias = (1 << (eb - 1)) - 1, emin = 1 - bias;
  const std::uint64_t m = exp ? (man | 0x800000u) : man;
  const int q0 = exp ? exp - 150 : -149;
  const int e = exp ? exp - 127 : -126;  // float subnormals sit below every target's normals
  const int qt = std::max(e, emin) - mb;
  const int shift = qt - q0;
  std::uint64_t r;
  if (shift <= 0) {
    r = m << -shift;  // cannot happen for 16-bit targets; kept for completeness
  } else if (shift >= 40) {
    r = 0;
  } else {
    r = m >> shift;
    const std::uint64_t rem = m & ((std::uint64_t{1} << shift) - 1), halfway = std::uint64_t{1} << (shift - 1);
    if (rem > halfway || (rem == halfway && (r & 1))) ++r;
  }
  std::uint64_t bits = r + (static_cast<std::uint64_t>(std::max(e, emin) - emin) << mb);
  if (bits >= inf_bits) bits = inf_bits;
  return static_cast<std::uint16_t>(sign | bits);
}
std::uint16_t ref_half(float f) { return ref_round(std::bit_cast<std::uint32_t>(f), 10, 5); }
std::uint16_t ref_bf16(float f) { return ref_round(std::bit_cast<std::uint32_t>(f), 7, 8); }

// Value of a 16-bit pattern from its fields (independent of Eigen's widening).
double ref_value(std::uint16_t h, int mb, int eb) {
  const int bias = (1 << (eb - 1)) - 1;
  const int exp = (h >> mb) & ((1 << eb) - 1);
  const int man = h & ((1 << mb) - 1);
  const double s = (h >> 15) ? -1.0 : 1.0;
  if (exp == (1 << eb) - 1) return man ? NAN : s * INFINITY;
  if (exp == 0) return s * std::ldexp(double(man), 1 - bias - mb);
  return s * std::ldexp(double(man | (1 << mb)), exp - bias - mb);
}

}  // namespace

TEST_CASE("the reference rounding agrees with hand-worked cases") {
  CHECK(ref_half(1.0f) == 0x3c00);
  CHECK(ref_half(65504.0f) == 0x7bff);
  CHECK(ref_half(65519.0f) == 0x7bff);
  CHECK(ref_half(65520.0f) == 0x7c00);                      // the tie to max rounds to even: Inf
  CHECK(ref_half(std::ldexp(1.0f, -24)) == 0x0001);          // smallest subnormal
  CHECK(ref_half(std::ldexp(1.0f, -25)) == 0x0000);          // tie with 0 goes to even (0)
  CHECK(ref_half(std::ldexp(3.0f, -26)) == 0x0001);          // above the tie
  CHECK(ref_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);   // tie, even below
  CHECK(ref_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie, even above
  CHECK(ref_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);
  CHECK(ref_bf16(std::bit_cast<float>(0x7f7fffffu)) == 0x7f80);  // FLT_MAX rounds to Inf
  CHECK(ref_bf16(std::bit_cast<float>(0x00010000u)) == 0x0001);  // bf16 subnormal
  CHECK(ref_bf16(-0.0f) == 0x8000);
}

TEST_CASE("every fp16 and bf16 bit pattern widens exactly and narrows back to itself") {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto u = static_cast<std::uint16_t>(b);
    const half h = from_bits<half>(u);
    const bfloat16 g = from_bits<bfloat16>(u);
    const double hv = ref_value(u, 10, 5), gv = ref_value(u, 7, 8);
    if (std::isnan(hv)) {
      REQUIRE(std::isnan(to_float(h)));
      REQUIRE(bits_of(to_half(to_float(h))) == 0x7fff);
    } else {
      REQUIRE(double(to_float(h)) == hv);
      REQUIRE(bits_of(to_half(to_float(h))) == u);
    }
    if (std::isnan(gv)) {
      REQUIRE(std::isnan(to_float(g)));
      REQUIRE(bits_of(to_bf16(to_float(g))) == 0x7fff);
    } else {
      REQUIRE(double(to_float(g)) == gv);
      REQUIRE(bits_of(to_bf16(to_float(g))) == u);
    }
  }
}

TEST_CASE("float to fp16 / bf16 rounds to nearest even like the reference") {
  using namespace warpsparse::proptest;
  ws_prop("random float bits", 20000, [] {
    const auto u = *rc::gen::arbitrary<std::uint32_t>().as("float bits");
    const float f = std::bit_cast<float>(u);
    RC_ASSERT(bits_of(to_half(f)) == ref_half(f));
    RC_ASSERT(bits_of(to_bf16(f)) == ref_bf16(f));
  });
  ws_prop("exact ties and their neighbours", 20000, [] {
    // A tie of T lies half a T-quantum above a T value; step +-1 fp32 ulp around it.
    const auto h = *rc::gen::inRange<std::uint32_t>(0, 0x7c00).as("fp16 bits (finite, positive)");
    const auto g = *rc::gen::inRange<std::uint32_t>(0, 0x7f80).as("bf16 bits (finite, positive)");
    const int step = *rc::gen::element(-1, 0, 1).as("fp32 ulps from the tie");
    const bool neg = *rc::gen::arbitrary<bool>().as("negative");
    const float hf = to_float(from_bits<half>(static_cast<std::uint16_t>(h)));
    const float hq = h < 0x0400 ? std::ldexp(1.0f, -24) : std::ldexp(1.0f, int((h >> 10) & 0x1f) - 15 - 10);
    float ht = hf + hq / 2;  // exact in fp32
    ht = std::bit_cast<float>(std::bit_cast<std::uint32_t>(ht) + static_cast<std::uint32_t>(step));
    const std::uint32_t gt = ((g << 16) + 0x8000u) + static_cast<std::uint32_t>(step);
    const float gf = std::bit_cast<float>(gt | (neg ? 0x80000000u : 0u));
    const float hs = neg ? -ht : ht;
    RC_ASSERT(bits_of(to_half(hs)) == ref_half(hs));
    RC_ASSERT(bits_of(to_bf16(gf)) == ref_bf16(gf));
  });
  ws_prop("subnormal and overflow ranges", 20000, [] {
    const int e = *rc::gen::element(-150, -149, -140, -133, -127, -126, -25, -24, -20, -15, -14, 15, 16, 127).as("exponent");
    const float mant = static_cast<float>(*rc::gen::inRange(0, 1 << 24).as("mantissa")) / float(1 << 23);
    const float f = std::ldexp(mant, e);
    RC_ASSERT(bits_of(to_half(f)) == ref_half(f));
    RC_ASSERT(bits_of(to_bf16(f)) == ref_bf16(f));
    RC_ASSERT(bits_of(to_half(-f)) == ref_half(-f));
  });
}

TEST_CASE("NaN narrows to the canonical 0x7fff, int8 rounds to even and saturates") {
  for (const std::uint32_t u : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fbfffffu, 0xffffffffu}) {
    CHECK(bits_of(to_half(std::bit_cast<float>(u))) == 0x7fff);
    CHECK(bits_of(to_bf16(std::bit_cast<float>(u))) == 0x7fff);
  }
  CHECK(from_float<std::int8_t>(2.5f) == 2);
  CHECK(from_float<std::int8_t>(3.5f) == 4);
  CHECK(from_float<std::int8_t>(-2.5f) == -2);
  CHECK(from_float<std::int8_t>(300.0f) == 127);
  CHECK(from_float<std::int8_t>(-300.0f) == -128);
  CHECK(from_float<std::int8_t>(NAN) == 0);
  CHECK(is_zero(from_float<half>(-0.0f)));
  CHECK_FALSE(is_zero(from_float<half>(NAN)));
  CHECK_FALSE(is_zero(from_bits<half>(0x0001)));  // subnormals are values
}
