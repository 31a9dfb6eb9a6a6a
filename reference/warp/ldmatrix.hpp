// ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16 on an emulated shared-memory image.
//
// Spec: PTX ISA 9.0, §9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix".
//   * Each 8×8 b16 matrix is given by 8 row addresses; row r of matrix i comes from lane 8i + r
//     (.x1: lanes 0-7, .x2: lanes 0-15, .x4: lanes 0-31; other lanes' addresses are ignored).
//   * A row is 8 contiguous b16 = 16 bytes and its address must be 16-byte aligned.
//   * Fragment (no .trans): lane t, register i holds matrix i elements
//       (row t/4, col 2*(t%4)) in bits [0,16) and (row t/4, col 2*(t%4)+1) in bits [16,32).
//   * .trans: lane t, register i holds (row 2*(t%4), col t/4) low and (row 2*(t%4)+1, col t/4)
//     high — the same fragment of the transposed matrix.
//
//   lane t, value v (v = 2*i + half)  ->  matrix i, (row, col):
//     no .trans   (t/4,          2*(t%4) + half)
//     .trans      (2*(t%4)+half, t/4)
#pragma once
#include <array>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <utility>
#include <string>
#include <vector>

#include "reference/warp/lanes.hpp"

namespace warpsparse::warp {

// A shared-memory image: bytes at shared addresses [0, size).
class SharedImage {
 public:
  explicit SharedImage(std::size_t bytes) : bytes_(bytes, std::uint8_t{0}) {}
  std::size_t size() const { return bytes_.size(); }
  std::uint8_t* data() { return bytes_.data(); }
  const std::uint8_t* data() const { return bytes_.data(); }
  void store16(std::uint32_t addr, std::uint16_t v) {
    check(addr, 2, -1, "store");
    std::memcpy(bytes_.data() + addr, &v, 2);
  }
  std::uint16_t load16(std::uint32_t addr) const {
    check(addr, 2, -1, "load");
    std::uint16_t v;
    std::memcpy(&v, bytes_.data() + addr, 2);
    return v;
  }
  // Checks a `bytes`-wide access at `addr`: inside the image and aligned to `bytes`.
  void check(std::uint32_t addr, std::uint32_t bytes, int lane, const char* what) const {
    const std::string who = lane >= 0 ? " by lane " + std::to_string(lane) : std::string();
    if (static_cast<std::uint64_t>(addr) + bytes > bytes_.size())
      throw WarpFault(std::string("shared ") + what + " of " + std::to_string(bytes) + " bytes" + who +
                      " at " + hex(addr) + " is outside the " + std::to_string(bytes_.size()) +
                      "-byte shared image");
    if (addr % bytes != 0)
      throw WarpFault(std::string("shared ") + what + " of " + std::to_string(bytes) + " bytes" + who +
                      " at " + hex(addr) + " is not " + std::to_string(bytes) + "-byte aligned");
  }

 private:
  std::vector<std::uint8_t> bytes_;
};

struct MatrixCoord {
  int matrix, row, col;
};

// Which element of which 8×8 matrix lane `lane` receives as value v (= 2*register + half).
inline constexpr MatrixCoord ldmatrix_coord(int lane, int v, bool trans) {
  const int i = v / 2, half = v % 2;
  return trans ? MatrixCoord{i, 2 * (lane % 4) + half, lane / 4}
               : MatrixCoord{i, lane / 4, 2 * (lane % 4) + half};
}

// Inverse of ldmatrix_coord for one matrix: the (lane, value) that receives (row, col) of matrix i.
inline constexpr std::pair<int, int> ldmatrix_owner(int matrix, int row, int col, bool trans) {
  return trans ? std::pair<int, int>{4 * col + row / 2, 2 * matrix + row % 2}
               : std::pair<int, int>{4 * row + col / 2, 2 * matrix + col % 2};
}

// ldmatrix .xN (N = 1, 2, 4) {.trans}: addr[lane] is each lane's shared row address (bytes).
// All 32 lanes must be active (.sync.aligned). Throws WarpFault for a row that is misaligned or
// outside the image, naming the lane.
template <int N>
Lanes<std::array<std::uint32_t, N>> ldmatrix(const SharedImage& smem, const Lanes<std::uint32_t>& addr,
                                            bool trans) {
  static_assert(N == 1 || N == 2 || N == 4, "ldmatrix loads 1, 2 or 4 matrices");
  for (int l = 0; l < 8 * N; ++l) smem.check(addr[static_cast<std::size_t>(l)], 16, l, "ldmatrix row");
  Lanes<std::array<std::uint32_t, N>> out{};
  for (int t = 0; t < kWarpSize; ++t)
    for (int v = 0; v < 2 * N; ++v) {
      const MatrixCoord mc = ldmatrix_coord(t, v, trans);
      const std::uint32_t a = addr[static_cast<std::size_t>(8 * mc.matrix + mc.row)] + 2u * mc.col;
      const std::uint32_t e = smem.load16(a);
      auto& reg = out[static_cast<std::size_t>(t)][static_cast<std::size_t>(v / 2)];
      reg |= e << (16 * (v % 2));
    }
  return out;
}

// Bank conflicts of one ldmatrix: the spec serves 8 rows (128 bytes) per phase; a phase whose rows
// fall into fewer than 8 distinct 16-byte bank groups of the 128-byte bank period needs extra
// wavefronts. Returns the number of extra wavefronts over the minimum N.
template <int N>
int ldmatrix_extra_wavefronts(const Lanes<std::uint32_t>& addr) {
  int extra = 0;
  for (int i = 0; i < N; ++i) {
    int count[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int worst = 0;
    for (int r = 0; r < 8; ++r) {
      const int bank_group = static_cast<int>((addr[static_cast<std::size_t>(8 * i + r)] / 16) % 8);
      worst = std::max(worst, ++count[bank_group]);
    }
    extra += worst - 1;
  }
  return extra;
}

}  // namespace warpsparse::warp
