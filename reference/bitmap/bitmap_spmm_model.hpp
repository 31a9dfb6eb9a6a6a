// Fragment-level model of the bitmap-tile tensor-core SpMM (kernels/bitmap/bitmap_spmm.cu):
// Y = alpha·A·X + beta·Y, X cols × B and Y rows × B row-major, B = Schedule::batch (1..16).
//
// One emulated warp per (tile row t, part p); the part owns k tiles [part_begin(p), part_begin(p+1)).
// For each k tile in order the lanes build their A fragment from the tile's bitmaps with
// lane_slots (the layout's one rule, the kernel's own function): register s of lane l holds tile
// elements (lane_row(l, s), lane_col(l, s, 0)) and (lane_row(l, s), lane_col(l, s, 1)), read from
// values[] where the bit is set and +0 where it is clear. For each group j of 8 vectors (8j..8j+7,
// n_groups(B) groups) the lanes load their B fragment from X (mma_b_coord: element (k0 + k, 8j + n);
// columns >= cols and vectors >= B read as +0) and issue mma.m16n8k16 (warp/mma.hpp) into group j's
// running accumulator. After the part's last tile each lane's accumulators are its fp32 partials
// (mma_cd_coord: row 16t + row, vector 8j + n; rows >= rows and vectors >= B are dropped). The
// parts of an output are added in fp32 in part order (s = p0; s = s + p1; ...; one part: s = p0),
// and the epilogue spmv_detail::epilogue gives y (y_old not read when beta == 0).
// The partials are laid out as the kernel's buffer: part p, output e = r·B + b at p·rows·B + e.
//
// Error bound (model and kernel against the double oracle y* = alpha·Σ a·x + beta·y_old):
//   Inputs are fp16/bf16 and the oracle multiplies the same values, so the error comes from the
//   fp32 accumulation, the parts' sum, the epilogue and the conversion to TY. As in
//   sparse24_gemm_model.hpp (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor
//   cores", PeerJ CS 2021): products are exact in fp32, and one mma adds its 16 products and the
//   accumulator as a block, each term aligned to the largest and truncated, so a step errs by at
//   most 17·u·(|c| + Σ_step |a||b|), u = 2^-23 (an ulp: truncation). A part of m k tiles then has
//       |ĉ_p − c_p| ≤ γ_n · Σ_p |a||b|,   n = 17·m + 1,   γ_n = n·u / (1 − n·u)
//   (the model rounds each step once, to nearest, well inside this). In SpmvBound's unit 2^-24,
//   γ_n at 2^-23 is γ_2n, and the parts' sequential fp32 sum adds parts − 1 roundings (each
//   (1 + δ), |δ| ≤ 2^-24) and the epilogue (alpha·, fma with beta) 2 more; the factors (1 + θ)
//   combine into one γ (Higham, Accuracy and Stability of Numerical Algorithms, Lemma 3.3):
//       chain k = 2·(17·m + 1) + parts − 1   (bound_chain in bitmap_schedule.hpp),
//       m = the longest part's k tiles (max_part_tiles),
//       |y − y*| ≤ (1 + u_out)·γ_(k+2)·abs_sum + u_out·|y*| + (terms + 2)·2^-126 + η_out,
//   abs_sum = |alpha|·Σ|a·x| + |beta·y_old|, u_out the unit roundoff of TY (2^-8 bf16, 2^-11 fp16,
//   2^-24 fp32: fp32 → fp32 is exact, a slack), η_out half its smallest subnormal step. The
//   2^-126 terms cover underflow: a bf16·bf16 product below fp32's range lost (< 2^-126 each, 16
//   per tile) and each step's result truncated in the subnormal range (< 2^-126 each), so terms =
//   17 per k tile, 17·m·parts ≥ 17·k_tiles. This is SpmvBound::bound with that chain and terms
//   (check_spmv with bound_chain counts the row's nonzeros as terms instead: it differs from this
//   only by multiples of 2^-126).
//   For cols = 16384 in one part (m = 1024) the relative bound is γ ≈ 2.1e-3 of abs_sum with fp32
//   output; random data sit far below it (errors add like a random walk), a wrong fragment map or
//   a wrong value far above it.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/bitmap/bitmap_format.hpp"
#include "reference/bitmap/bitmap_layout.hpp"
#include "reference/bitmap/bitmap_schedule.hpp"
#include "reference/common/error.hpp"
#include "reference/sparse/spmv_check.hpp"
#include "reference/sparse/spmv_common.hpp"
#include "reference/warp/mma.hpp"

namespace warpsparse::bitmap {

// "Register s of a lane reads subtile s": the layout's lane map is the mma A fragment map, and
// the two elements of a register are the lane's bits lane_bit, lane_bit + 1 of subtile s.
constexpr bool lane_map_is_mma_a_fragment() {
  for (int l = 0; l < warp::kWarpSize; ++l)
    for (int s = 0; s < kSubtiles; ++s)
      for (int j = 0; j < 2; ++j) {
        const warp::FragCoord f = warp::mma_a_coord(l, 2 * s + j);
        const int r = lane_row(l, s), c = lane_col(l, s, j);
        if (f.row != r || f.col != c || subtile_of(r, c) != s || bit_of(r, c) != lane_bit(l) + j) return false;
      }
  return true;
}
static_assert(lane_map_is_mma_a_fragment(), "bitmap lane map differs from the mma.m16n8k16 A fragment");

// The derived bound above for one output element.
struct ErrorBound {
  // y_exact = y*, abs_sum = |alpha| Σ|a x| + |beta y_old|.
  template <class TY>
  static double bound(double y_exact, double abs_sum, std::int64_t max_part_tiles, int parts) {
    return SpmvBound{}.template bound<TY>(chain_of(max_part_tiles, parts), abs_sum, std::abs(y_exact),
                                          17 * max_part_tiles * parts);
  }
};

// Throws Error naming the first bad input of a product of a by x (and y_old when beta != 0).
template <class T, class TY>
void check_inputs(const Bitmap<T>& a, std::span<const T> x, std::span<const TY> y_old, float beta, const Schedule& s) {
  a.validate();
  if (const std::string f = schedule_fault(s, a.cols); !f.empty()) throw Error(f);
  const auto nb = static_cast<std::size_t>(s.batch);
  require(x.size() == static_cast<std::size_t>(a.cols) * nb,
          "bitmap SpMM: x has " + std::to_string(x.size()) + " elements, expected cols x batch = " +
              std::to_string(a.cols) + " x " + std::to_string(s.batch));
  require(beta == 0.0f || y_old.size() == static_cast<std::size_t>(a.rows) * nb,
          "bitmap SpMM: y_old has " + std::to_string(y_old.size()) + " elements, expected rows x batch = " +
              std::to_string(a.rows) + " x " + std::to_string(s.batch) + " (beta != 0 reads it)");
}

// Lane l's A fragment of tile (t, k), loaded as the kernel loads it: lane_slots relative to the
// tile row's first value, the upper element one slot after the lower when both are set.
template <class T>
warp::Lanes<warp::MmaReg4> a_fragment(const Bitmap<T>& a, std::int64_t t, std::int64_t k) {
  const std::size_t tile = static_cast<std::size_t>(t * a.k_tiles() + k);
  std::uint64_t bm[kSubtiles];
  for (int s = 0; s < kSubtiles; ++s) bm[s] = a.bitmaps[tile * kSubtiles + static_cast<std::size_t>(s)];
  const std::int64_t base = a.row_base[static_cast<std::size_t>(t)];
  auto value = [&](std::int64_t slot) {
    if (slot < 0 || base + slot >= a.nnz())
      throw warp::WarpFault("bitmap A fragment: tile " + std::to_string(tile) + " reads values[" +
                            std::to_string(base + slot) + "] of " + std::to_string(a.nnz()));
    return bits_of(a.values[static_cast<std::size_t>(base + slot)]);
  };
  return warp::per_lane([&](int l) {
    const auto sl = lane_slots(bm, a.tile_off[tile], l);
    warp::MmaReg4 r{};
    for (int s = 0; s < kSubtiles; ++s) {
      const std::uint16_t v0 = sl.lo[s] ? value(sl.first[s]) : std::uint16_t{0};
      const std::uint16_t v1 = sl.hi[s] ? value(sl.first[s] + (sl.lo[s] ? 1 : 0)) : std::uint16_t{0};
      r[static_cast<std::size_t>(s)] = warp::pack_pair(v0, v1);
    }
    return r;
  });
}

// Lane l's B fragment of k tile k and vector group j: X element (16k + row, 8j + n) at the lane's
// (row, n) = mma_b_coord, +0 outside the columns or the batch.
template <class T>
warp::Lanes<warp::MmaReg2> b_fragment(std::span<const T> x, std::int64_t cols, int batch, std::int64_t k, int j) {
  auto x_bits = [&](std::int64_t c, int v) {
    return c < cols && v < batch ? bits_of(x[static_cast<std::size_t>(c * batch + v)]) : std::uint16_t{0};
  };
  return warp::per_lane([&](int l) {
    warp::MmaReg2 r{};
    for (int h = 0; h < 2; ++h) {
      const warp::FragCoord lo = warp::mma_b_coord(l, 2 * h), hi = warp::mma_b_coord(l, 2 * h + 1);
      r[static_cast<std::size_t>(h)] = warp::pack_pair(x_bits(k * kTile + lo.row, kN * j + lo.col),
                                                       x_bits(k * kTile + hi.row, kN * j + hi.col));
    }
    return r;
  });
}

// Called on each mma's operands just before it is issued; the tests use it to show that a wrong
// fragment is caught by the bound. Empty: no change.
using FragmentTamper = std::function<void(warp::Lanes<warp::MmaReg4>& a, warp::Lanes<warp::MmaReg2>& b)>;

// The fp32 accumulators of every (part, output): parts·rows·B floats, part p's output r·B + b at
// p·rows·B + r·B + b (the kernel's partials buffer; with one part, what its epilogue reads).
template <class T>
std::vector<float> spmm_partials(const Bitmap<T>& a, std::span<const T> x, const Schedule& s,
                                 const FragmentTamper& tamper = {}) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, bfloat16>, "mma.m16n8k16 model: fp16 or bf16");
  check_inputs<T, float>(a, x, {}, 0.0f, s);
  constexpr bool kBf16 = std::is_same_v<T, bfloat16>;
  const int nb = s.batch, groups = n_groups(nb);
  const std::int64_t tr = a.tile_rows(), kt = a.k_tiles(), outputs = a.rows * nb;
  std::vector<float> partials(static_cast<std::size_t>(outputs * s.parts), 0.0f);
  for (std::int64_t t = 0; t < tr; ++t)
    for (int p = 0; p < s.parts; ++p) {
      std::vector<warp::Lanes<warp::MmaAcc4>> acc(static_cast<std::size_t>(groups),
                                                  warp::broadcast(warp::MmaAcc4{0.f, 0.f, 0.f, 0.f}));
      for (std::int64_t k = part_begin(p, s.parts, kt); k < part_begin(p + 1, s.parts, kt); ++k) {
        const auto af = a_fragment(a, t, k);
        for (int j = 0; j < groups; ++j) {
          auto al = af;
          auto bf = b_fragment(x, a.cols, nb, k, j);
          if (tamper) tamper(al, bf);
          acc[static_cast<std::size_t>(j)] = warp::mma_m16n8k16(al, bf, acc[static_cast<std::size_t>(j)], kBf16);
        }
      }
      for (int j = 0; j < groups; ++j)
        for (int l = 0; l < warp::kWarpSize; ++l)
          for (int i = 0; i < 4; ++i) {
            const warp::FragCoord cc = warp::mma_cd_coord(l, i);
            const std::int64_t r = t * kTile + cc.row;
            const int v = kN * j + cc.col;
            if (r < a.rows && v < nb)
              partials[static_cast<std::size_t>(p * outputs + r * nb + v)] =
                  acc[static_cast<std::size_t>(j)][static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
          }
    }
  return partials;
}

// The second pass: each output's parts added in part order in fp32, then the epilogue.
template <class TY>
std::vector<TY> spmm_finish(std::span<const float> partials, int parts, std::span<const TY> y_old, float alpha,
                            float beta) {
  const std::size_t n = partials.size() / static_cast<std::size_t>(parts);
  std::vector<TY> y(n);
  for (std::size_t e = 0; e < n; ++e) {
    float s = partials[e];
    for (int q = 1; q < parts; ++q) s = s + partials[static_cast<std::size_t>(q) * n + e];
    y[e] = spmv_detail::epilogue<TY>(s, alpha, beta, y_old, static_cast<std::int64_t>(e));
  }
  return y;
}

// The model: Y (rows × B) = alpha·A·X + beta·y_old, as the kernel computes it.
template <class T, class TY>
std::vector<TY> spmm_model(const Bitmap<T>& a, std::span<const T> x, std::span<const TY> y_old, float alpha,
                           float beta, const Schedule& s) {
  check_inputs(a, x, y_old, beta, s);
  const std::vector<float> partials = spmm_partials(a, x, s);
  return spmm_finish<TY>(partials, s.parts, y_old, alpha, beta);
}

// The double oracle of every output (rows × B, row-major), and the abs_sum of its bound.
struct SpmmOracle {
  std::vector<double> exact, abs_sum;
};
template <class T, class TY>
SpmmOracle spmm_oracle(const Bitmap<T>& a, std::span<const T> x, std::span<const TY> y_old, float alpha, float beta,
                       int batch) {
  check_inputs(a, x, y_old, beta, Schedule{batch, 1});
  const SparseRows<T> m = decode_bitmap(a);
  SpmmOracle o;
  o.exact.resize(static_cast<std::size_t>(a.rows * batch));
  o.abs_sum.resize(o.exact.size());
  for (int b = 0; b < batch; ++b) {
    const std::vector<T> xb = batch_column<T>(x, batch, b);
    const std::vector<TY> yb = beta != 0.0f ? batch_column<TY>(y_old, batch, b) : std::vector<TY>{};
    const std::vector<double> want = spmv_oracle<T, T, TY>(m, xb, yb, double(alpha), double(beta));
    for (std::int64_t r = 0; r < a.rows; ++r) {
      const std::size_t e = static_cast<std::size_t>(r * batch + b);
      const double beta_y_old = beta != 0.0f ? double(beta) * double(to_float(yb[static_cast<std::size_t>(r)])) : 0.0;
      o.exact[e] = want[static_cast<std::size_t>(r)];
      o.abs_sum[e] = spmv_row_bound<TY>(m, std::span<const T>(xb), r, double(alpha), beta_y_old, 0, want[r]).abs_sum;
    }
  }
  return o;
}

// Judges y (the model's or the kernel's) against the oracle by ErrorBound. A finite oracle needs a
// finite y within the bound, or the infinity of its sign where |y*| + bound reaches TY's largest
// value (the conversion may overflow); a NaN or infinite oracle (NaN or Inf among A's values)
// needs NaN or that infinity. x must be finite (the kernel multiplies a tile's zeros too).
// Returns "" or the first failure, naming the output.
template <class T, class TY>
std::string spmm_check(const Bitmap<T>& a, std::span<const T> x, std::span<const TY> y_old, float alpha, float beta,
                       const Schedule& s, std::span<const TY> y) {
  const SpmmOracle o = spmm_oracle(a, x, y_old, alpha, beta, s.batch);
  require(y.size() == o.exact.size(), "spmm_check: y has " + std::to_string(y.size()) + " elements, expected " +
                                          std::to_string(o.exact.size()));
  const std::int64_t m = max_part_tiles(a.cols, s.parts);
  const double top = double(to_float(std::numeric_limits<TY>::max()));
  for (std::size_t e = 0; e < y.size(); ++e) {
    const double got = double(to_float(y[e])), want = o.exact[e];
    const double bound = ErrorBound::bound<TY>(want, o.abs_sum[e], m, s.parts);
    bool ok;
    if (!std::isfinite(want)) ok = std::isnan(got) || got == want;
    else if (!std::isfinite(got)) ok = std::abs(want) + bound >= top && got == (want > 0 ? INFINITY : -INFINITY);
    else ok = std::abs(got - want) <= bound;
    if (!ok)
      return "row " + std::to_string(e / static_cast<std::size_t>(s.batch)) + ", vector " +
             std::to_string(e % static_cast<std::size_t>(s.batch)) + ": got " + std::to_string(got) + ", oracle " +
             std::to_string(want) + ", error " + std::to_string(std::abs(got - want)) + " exceeds bound " +
             std::to_string(bound);
  }
  return "";
}

}  // namespace warpsparse::bitmap
