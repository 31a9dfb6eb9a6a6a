// Emulated global memory for warp models: arrays with a name, a base address, bounds and
// alignment checks, and a count of the 32-byte sectors and 128-byte lines each warp-wide access
// touches (the unit DRAM and L2 move). A fault names the array, the lane and the address.
#pragma once
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <span>
#include <string>
#include <type_traits>

#include "reference/warp/lanes.hpp"

namespace warpsparse::warp {

struct MemoryStats {
  std::uint64_t instructions = 0;     // warp-wide load instructions
  std::uint64_t bytes_requested = 0;  // bytes the active lanes asked for
  std::uint64_t sectors = 0;          // distinct 32-byte sectors per instruction, summed
  std::uint64_t lines = 0;            // distinct 128-byte lines per instruction, summed
  MemoryStats& operator+=(const MemoryStats& o) {
    instructions += o.instructions;
    bytes_requested += o.bytes_requested;
    sectors += o.sectors;
    lines += o.lines;
    return *this;
  }
};

inline std::size_t count_distinct(std::uint64_t* v, std::size_t n) {
  std::sort(v, v + n);
  return static_cast<std::size_t>(std::unique(v, v + n) - v);
}

// A read-only device array seen by the emulator. Base addresses are 256-byte aligned, as
// cudaMalloc guarantees.
template <class T>
class GlobalArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  GlobalArray(std::string name, std::span<const T> data, std::uint64_t base = 0x10000000)
      : name_(std::move(name)), data_(data), base_(base) {}

  const std::string& name() const { return name_; }
  std::uint64_t base() const { return base_; }
  std::uint64_t size_bytes() const { return data_.size_bytes(); }

  // Each lane in `active` loads a vector of N elements starting at element index idx[lane];
  // N*sizeof(T) must be 1, 2, 4, 8 or 16 bytes and the address must be aligned to it.
  template <int N>
  Lanes<std::array<T, N>> load(std::uint32_t active, const Lanes<std::int64_t>& idx,
                               MemoryStats* stats) const {
    constexpr std::uint64_t kBytes = N * sizeof(T);
    static_assert(kBytes == 1 || kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16,
                  "a vector load is 1, 2, 4, 8 or 16 bytes");
    Lanes<std::array<T, N>> out{};
    // Distinct sectors and lines of this instruction (at most 2 of each per lane).
    std::array<std::uint64_t, 2 * kWarpSize> sectors{}, lines{};
    std::size_t ns = 0, nl = 0;
    for (int l = 0; l < kWarpSize; ++l) {
      if (!lane_in(active, l)) continue;
      const std::int64_t i = idx[static_cast<std::size_t>(l)];
      const std::uint64_t addr = base_ + static_cast<std::uint64_t>(i) * sizeof(T);
      if (i < 0 || static_cast<std::uint64_t>(i) * sizeof(T) + kBytes > data_.size_bytes())
        throw WarpFault("out-of-bounds " + std::to_string(kBytes) + "-byte load of '" + name_ +
                        "' by lane " + std::to_string(l) + " at address " + hex(addr) +
                        " (element " + std::to_string(i) + ", array has " +
                        std::to_string(data_.size()) + " elements)");
      if (addr % kBytes != 0)
        throw WarpFault("misaligned " + std::to_string(kBytes) + "-byte load of '" + name_ +
                        "' by lane " + std::to_string(l) + " at address " + hex(addr));
      std::memcpy(out[static_cast<std::size_t>(l)].data(), data_.data() + i, kBytes);
      for (std::uint64_t a = addr / 32; a <= (addr + kBytes - 1) / 32; ++a) sectors[ns++] = a;
      for (std::uint64_t a = addr / 128; a <= (addr + kBytes - 1) / 128; ++a) lines[nl++] = a;
      if (stats) stats->bytes_requested += kBytes;
    }
    if (stats && active != 0) {
      stats->instructions += 1;
      stats->sectors += count_distinct(sectors.data(), ns);
      stats->lines += count_distinct(lines.data(), nl);
    }
    return out;
  }

  // Scalar gather: each active lane loads one element.
  Lanes<T> gather(std::uint32_t active, const Lanes<std::int64_t>& idx, MemoryStats* stats) const {
    const auto v = load<1>(active, idx, stats);
    Lanes<T> r{};
    for (int l = 0; l < kWarpSize; ++l) r[static_cast<std::size_t>(l)] = v[static_cast<std::size_t>(l)][0];
    return r;
  }

 private:
  std::string name_;
  std::span<const T> data_;
  std::uint64_t base_;
};

}  // namespace warpsparse::warp
