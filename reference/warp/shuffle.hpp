// Warp shuffles and votes with the rules of the CUDA C++ Programming Guide ("Warp Shuffle
// Functions", "Warp Vote Functions"):
//  - width must be a power of two in [1, 32]; lanes form segments of `width` lanes;
//  - shfl: source = segment base + (srcLane mod width);
//  - shfl_up: source = lane − delta; if that leaves the segment, the lane keeps its own value;
//  - shfl_down: source = lane + delta; if that leaves the segment, the lane keeps its own value;
//  - shfl_xor: source = lane XOR laneMask; a source above the segment's last lane returns the
//    lane's own value (lower segments may be read);
//  - shfl_up/shfl_down with delta >= 32 fault: the guide says the lane keeps its value, but PTX
//    shfl.sync uses only bits [4:0] of delta (so 40 acts as 8); a model must not depend on either;
//  - every lane named in `mask` must execute the call, and a lane that reads from a lane not in
//    `mask` gets an undefined value: the emulator throws WarpFault naming both lanes.
// Lanes outside `mask` keep their input value (they did not execute the shuffle).
#pragma once
#include <bit>

#include "reference/warp/lanes.hpp"

namespace warpsparse::warp {

namespace detail {
inline void check_width(int width, const char* op) {
  if (width < 1 || width > kWarpSize || !std::has_single_bit(static_cast<unsigned>(width)))
    throw WarpFault(std::string(op) + ": width " + std::to_string(width) +
                    " is not a power of two in [1, 32]");
}
// Reads v[src] for lane `lane` under `mask`, or faults if src did not take part.
template <class T>
T read_lane(const Lanes<T>& v, std::uint32_t mask, int lane, int src, const char* op) {
  if (!lane_in(mask, src))
    throw WarpFault(std::string(op) + ": lane " + std::to_string(lane) + " reads lane " +
                    std::to_string(src) + ", which is not in member mask " + hex(mask));
  return v[static_cast<std::size_t>(src)];
}
template <class T, class SrcFn>
Lanes<T> shuffle(std::uint32_t mask, const Lanes<T>& v, int width, const char* op, SrcFn src_of) {
  check_width(width, op);
  Lanes<T> out = v;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!lane_in(mask, l)) continue;
    const int seg = l & ~(width - 1);
    const int src = src_of(l, seg);
    if (src != l) out[static_cast<std::size_t>(l)] = read_lane(v, mask, l, src, op);
  }
  return out;
}
}  // namespace detail

// __shfl_sync with a per-lane source lane.
template <class T>
Lanes<T> shfl_sync(std::uint32_t mask, const Lanes<T>& v, const Lanes<int>& src_lane,
                   int width = kWarpSize) {
  return detail::shuffle(mask, v, width, "shfl_sync", [&](int l, int seg) {
    return seg + (src_lane[static_cast<std::size_t>(l)] & (width - 1));
  });
}
// __shfl_sync with the same source lane for every lane (a broadcast within each segment).
template <class T>
Lanes<T> shfl_sync(std::uint32_t mask, const Lanes<T>& v, int src_lane, int width = kWarpSize) {
  return shfl_sync(mask, v, broadcast(src_lane), width);
}

namespace detail {
inline void check_delta(unsigned delta, const char* op) {
  if (delta >= static_cast<unsigned>(kWarpSize))
    throw WarpFault(std::string(op) + ": delta " + std::to_string(delta) +
                    " >= 32 (the guide keeps the value, PTX uses delta mod 32)");
}
}  // namespace detail

template <class T>
Lanes<T> shfl_up_sync(std::uint32_t mask, const Lanes<T>& v, unsigned delta, int width = kWarpSize) {
  detail::check_delta(delta, "shfl_up_sync");
  return detail::shuffle(mask, v, width, "shfl_up_sync", [&](int l, int seg) {
    const int src = l - static_cast<int>(delta);
    return src < seg ? l : src;
  });
}

template <class T>
Lanes<T> shfl_down_sync(std::uint32_t mask, const Lanes<T>& v, unsigned delta,
                        int width = kWarpSize) {
  detail::check_delta(delta, "shfl_down_sync");
  return detail::shuffle(mask, v, width, "shfl_down_sync", [&](int l, int seg) {
    const int src = l + static_cast<int>(delta);
    return src >= seg + width ? l : src;
  });
}

template <class T>
Lanes<T> shfl_xor_sync(std::uint32_t mask, const Lanes<T>& v, int lane_mask, int width = kWarpSize) {
  return detail::shuffle(mask, v, width, "shfl_xor_sync", [&](int l, int seg) {
    const int src = (l ^ lane_mask) & (kWarpSize - 1);
    return src >= seg + width ? l : src;
  });
}

// __ballot_sync: bit l is set when lane l is in mask and its predicate is true.
inline std::uint32_t ballot_sync(std::uint32_t mask, const Lanes<bool>& pred) {
  std::uint32_t r = 0;
  for (int l = 0; l < kWarpSize; ++l)
    if (lane_in(mask, l) && pred[static_cast<std::size_t>(l)]) r |= 1u << l;
  return r;
}

// Exclusive prefix sum by the 5-step shfl_up ladder of macko-paper.txt Algorithm 1, within
// segments of `width` lanes. The arithmetic is T's own (+), in the kernel's order.
template <class T>
Lanes<T> exclusive_scan_shfl_up(std::uint32_t mask, const Lanes<T>& local, int width = kWarpSize) {
  Lanes<T> acc = local;
  for (int off = 1; off < width; off <<= 1) {
    const Lanes<T> up = shfl_up_sync(mask, acc, static_cast<unsigned>(off), width);
    for (int l = 0; l < kWarpSize; ++l)
      if (lane_in(mask, l) && (l & (width - 1)) >= off)
        acc[static_cast<std::size_t>(l)] = acc[static_cast<std::size_t>(l)] + up[static_cast<std::size_t>(l)];
  }
  Lanes<T> out = local;
  for (int l = 0; l < kWarpSize; ++l)
    if (lane_in(mask, l))
      out[static_cast<std::size_t>(l)] = acc[static_cast<std::size_t>(l)] - local[static_cast<std::size_t>(l)];
  return out;
}

}  // namespace warpsparse::warp
