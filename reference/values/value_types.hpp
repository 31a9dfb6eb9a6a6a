// Host value types and their bit-exact conversions.
//
// fp16 and bf16 use Eigen::half and Eigen::bfloat16. Conversions from float round to nearest even,
// exactly as CUDA's __float2half_rn / __float2bfloat16_rn, with one pinned difference handled
// here: for NaN inputs CUDA returns the canonical NaN (0x7fff for both types) while Eigen keeps
// the payload; we follow CUDA so host and device bits agree for every input.
#pragma once
#include <Eigen/Core>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "reference/common/error.hpp"

namespace warpsparse {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

enum class ValueType : std::uint8_t { fp16 = 0, bf16 = 1, fp32 = 2, int8 = 3 };

constexpr int value_bits(ValueType t) {
  switch (t) {
    case ValueType::fp16: return 16;
    case ValueType::bf16: return 16;
    case ValueType::fp32: return 32;
    case ValueType::int8: return 8;
  }
  return 0;
}

inline std::string_view to_string(ValueType t) {
  switch (t) {
    case ValueType::fp16: return "fp16";
    case ValueType::bf16: return "bf16";
    case ValueType::fp32: return "fp32";
    case ValueType::int8: return "int8";
  }
  return "?";
}

inline ValueType parse_value_type(std::string_view s) {
  if (s == "fp16") return ValueType::fp16;
  if (s == "bf16") return ValueType::bf16;
  if (s == "fp32") return ValueType::fp32;
  if (s == "int8") return ValueType::int8;
  throw Error("unknown value type '" + std::string(s) + "' (expected fp16, bf16, fp32 or int8)");
}

// Bits of a 16-bit type, and the type from bits.
inline std::uint16_t bits_of(half h) { return std::bit_cast<std::uint16_t>(h); }
inline std::uint16_t bits_of(bfloat16 b) { return std::bit_cast<std::uint16_t>(b); }
template <class T>
inline T from_bits(std::uint16_t u) { return std::bit_cast<T>(u); }

// float -> fp16, round to nearest even (CUDA __float2half_rn).
inline half to_half(float f) {
  if (std::isnan(f)) return from_bits<half>(0x7fff);
  return half(f);
}
// float -> bf16, round to nearest even (CUDA __float2bfloat16_rn).
inline bfloat16 to_bf16(float f) {
  if (std::isnan(f)) return from_bits<bfloat16>(0x7fff);
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  u += 0x7fffu + ((u >> 16) & 1u);  // RNE on the dropped 16 bits; Inf stays Inf
  return from_bits<bfloat16>(static_cast<std::uint16_t>(u >> 16));
}

// Exact widening conversions.
inline float to_float(half h) { return static_cast<float>(h); }
inline float to_float(bfloat16 b) { return std::bit_cast<float>(std::uint32_t(bits_of(b)) << 16); }
inline float to_float(float f) { return f; }
inline float to_float(std::int8_t i) { return static_cast<float>(i); }

// Converts a float to T with CUDA's rounding (int8: round to nearest even, saturating).
template <class T>
inline T from_float(float f);
template <>
inline half from_float<half>(float f) { return to_half(f); }
template <>
inline bfloat16 from_float<bfloat16>(float f) { return to_bf16(f); }
template <>
inline float from_float<float>(float f) { return f; }
template <>
inline std::int8_t from_float<std::int8_t>(float f) {
  if (std::isnan(f)) return 0;
  float r = std::nearbyint(f);
  if (r > 127.f) r = 127.f;
  if (r < -128.f) r = -128.f;
  return static_cast<std::int8_t>(r);
}

// The zero rule of every format here: +0 and -0 are zero (dropped, decoded as +0);
// NaN, Inf and subnormals are values and are kept.
template <class T>
inline bool is_zero(T v) { return to_float(v) == 0.0f; }

template <class T> struct ValueTypeOf;
template <> struct ValueTypeOf<half> { static constexpr ValueType value = ValueType::fp16; };
template <> struct ValueTypeOf<bfloat16> { static constexpr ValueType value = ValueType::bf16; };
template <> struct ValueTypeOf<float> { static constexpr ValueType value = ValueType::fp32; };
template <> struct ValueTypeOf<std::int8_t> { static constexpr ValueType value = ValueType::int8; };

// Calls f(T{}) with the C++ type for a runtime ValueType.
template <class F>
decltype(auto) dispatch_value_type(ValueType t, F&& f) {
  switch (t) {
    case ValueType::fp16: return f(half{});
    case ValueType::bf16: return f(bfloat16{});
    case ValueType::fp32: return f(float{});
    case ValueType::int8: return f(std::int8_t{});
  }
  throw Error("invalid value type code");
}

}  // namespace warpsparse
