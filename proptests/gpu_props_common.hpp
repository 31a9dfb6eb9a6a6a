// Helpers shared by the GPU property tests.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse::gpu_props {

// The stored bits of a 16- or 32-bit value: kernel and model must agree on these exactly.
template <class T>
std::uint32_t raw_bits(T v) {
  if constexpr (sizeof(T) == 2) return std::bit_cast<std::uint16_t>(v);
  else return std::bit_cast<std::uint32_t>(v);
}

}  // namespace warpsparse::gpu_props
