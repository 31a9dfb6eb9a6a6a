// A warp is data: 32 lane values plus a member mask, transformed by pure functions.
// Lanes<T> is one per-lane register.
#pragma once
#include <array>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace warpsparse::warp {

inline constexpr int kWarpSize = 32;
inline constexpr std::uint32_t kFullMask = 0xffffffffu;

template <class T>
using Lanes = std::array<T, kWarpSize>;

inline constexpr bool lane_in(std::uint32_t mask, int lane) { return (mask >> lane) & 1u; }

// Lanes<T> with every lane set to v.
template <class T>
constexpr Lanes<T> broadcast(T v) {
  Lanes<T> r{};
  r.fill(v);
  return r;
}

// Applies f(lane) -> T for every lane.
template <class F>
auto per_lane(F&& f) {
  using T = decltype(f(0));
  Lanes<T> r{};
  for (int l = 0; l < kWarpSize; ++l) r[l] = f(l);
  return r;
}

// A broken warp rule or memory rule found by the emulator (undefined behaviour on a GPU).
class WarpFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

}  // namespace warpsparse::warp
