// Warp-level model of the mma.sp 2:4 GEMM kernel (kernels/sparse24/sparse24_gemm.cu): C = A·B with
// A compressed 2:4 (rows_padded × cols_padded/2 values, swizzled metadata), B K × N row-major.
//
// The model replays the kernel's schedule (sparse24_layout.hpp: Schedule) per CTA tile, k tile and
// warp: it writes each stage's shared-memory image at the same swizzled offsets the kernel's
// cp.async writes (zero fill where the kernel zero-fills), loads metadata with ldmatrix.x4, A with
// ldmatrix.x4, B with ldmatrix.x4.trans at the lane addresses of the schedule, and issues
// mma.sp m16n8k32 with selector 0 for the first k32 step of a tile and 1 for the second.
//
// Error bound (model and kernel against the double oracle C* = decompress(A)·B):
//   Inputs are bf16/fp16 and the oracle multiplies the same values, so all error comes from the
//   fp32 accumulation and the final conversion. Each product a·b is exact in fp32 (≤ 22 significand
//   bits). PTX does not specify how an mma adds its products to the accumulator; we assume only
//   what measurements of NVIDIA tensor cores support (Fasi, Higham, Mikaitis, Pranesh, "Numerical
//   behavior of NVIDIA tensor cores", PeerJ CS 2021): one instruction adds its products and the
//   accumulator as a block, each term aligned to the largest and truncated, so each of the
//   t = 16 + 1 terms of an m16n8k32 sparse step loses less than one fp32 ulp of the largest term:
//   step error ≤ t·u·(|c| + Σ_step |a||b|), u = 2^-23 (an ulp, not half: truncation). Summing over
//   the s = cols_padded/32 steps, with |c| ≤ (1 + O(u)) Σ|a||b| of the earlier steps, gives
//       |ĉ − c*| ≤ γ_n · Σ_k |a_ik||b_kj|,   n = 17·s + 1,   γ_n = n·u / (1 − n·u),
//   which also covers any sequential fp32 summation order (Higham, Accuracy and Stability of
//   Numerical Algorithms, §4.2, needs only n ≥ K/2 + 1). The conversion to the output type adds
//   u_out·|ĉ| (u_out = 2^-8 bf16, 2^-11 fp16, 0 fp32) and at most half the smallest subnormal
//   η_out in the gradual-underflow range:
//       |out − c*| ≤ u_out·|c*| + (1 + u_out)·γ_n·Σ|a||b| + η_out.
//   (|ĉ| ≤ |c*| + γ_n Σ|a||b|, and u_out·γ_n·Σ is folded into the (1 + u_out) factor.)
//   For K = 8192 this is γ ≈ 5.2e-4 relative to Σ|a||b| with fp32 output; random data sit far
//   below it (errors add like a random walk), a wrong fragment or metadata map far above it.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/sparse24/sparse24_format.hpp"
#include "reference/values/value_types.hpp"
#include "reference/warp/ldmatrix.hpp"
#include "reference/warp/mma_sp.hpp"

namespace warpsparse::sparse24 {

// The derived bound above for one output element.
struct ErrorBound {
  static constexpr double kAccUnit = 0x1p-23;  // fp32 ulp: covers truncating accumulation
  static double gamma(int n) {
    const double nu = n * kAccUnit;
    return nu / (1.0 - nu);
  }
  static double out_unit(ValueType t) {
    switch (t) {
      case ValueType::bf16: return 0x1p-8;
      case ValueType::fp16: return 0x1p-11;
      default: return 0.0;
    }
  }
  static double out_eta(ValueType t) {
    switch (t) {
      case ValueType::bf16: return 0x1p-134;
      case ValueType::fp16: return 0x1p-25;
      default: return 0x1p-150;
    }
  }
  // exact = c*, abs_dot = Σ|a||b|, cols_padded = the padded K of A.
  static double bound(double exact, double abs_dot, int cols_padded, ValueType out) {
    const double uo = out_unit(out);
    return uo * std::fabs(exact) + (1.0 + uo) * gamma(17 * (cols_padded / 32) + 1) * abs_dot + out_eta(out);
  }
};

// The oracle: decompress A, multiply in double. Returns C* and Σ|a||b| (M × N each, row-major).
template <class T>
void oracle_gemm(const Sparse24Matrix<T>& a, std::span<const T> b, int n, std::vector<double>& exact,
                 std::vector<double>& abs_dot) {
  const int m = a.rows, k = a.cols;
  require(b.size() == static_cast<std::size_t>(k) * n, "oracle_gemm: B is not K x N");
  const std::vector<T> ad = decompress(a);
  exact.assign(static_cast<std::size_t>(m) * n, 0.0);
  abs_dot.assign(static_cast<std::size_t>(m) * n, 0.0);
  std::vector<double> bd(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) bd[i] = to_float(b[i]);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) {
      const double av = to_float(ad[static_cast<std::size_t>(i) * k + kk]);
      if (av == 0.0) continue;
      const double* brow = bd.data() + static_cast<std::size_t>(kk) * n;
      double* crow = exact.data() + static_cast<std::size_t>(i) * n;
      double* drow = abs_dot.data() + static_cast<std::size_t>(i) * n;
      for (int j = 0; j < n; ++j) {
        crow[j] += av * brow[j];
        drow[j] += std::fabs(av * brow[j]);
      }
    }
}

// One 16-byte cp.async with zero fill: `bytes` from src[c.src..] (16-bit elements) to smem at c.smem.
// Faults like the hardware rule: 16-byte aligned destination and source, source inside the array.
template <class Copy>
void copy16(warp::SharedImage& smem, const Copy& c, std::span<const std::uint16_t> src, const char* what) {
  smem.check(c.smem, 16, -1, "cp.async destination");
  if (c.bytes < 0 || c.bytes > 16 || c.bytes % 2 != 0)
    throw warp::WarpFault(std::string("cp.async of '") + what + "' with src-size " + std::to_string(c.bytes));
  if (c.bytes > 0) {
    if (c.src < 0 || static_cast<std::size_t>(c.src) * 2 + static_cast<std::size_t>(c.bytes) > src.size_bytes())
      throw warp::WarpFault(std::string("cp.async reads past '") + what + "' at element " + std::to_string(c.src));
    if (c.src % 8 != 0)
      throw warp::WarpFault(std::string("cp.async source in '") + what + "' is not 16-byte aligned (element " +
                            std::to_string(c.src) + ")");
  }
  for (int h = 0; h < 8; ++h)
    smem.store16(c.smem + 2u * static_cast<std::uint32_t>(h),
                 2 * h < c.bytes ? src[static_cast<std::size_t>(c.src) + static_cast<std::size_t>(h)] : std::uint16_t{0});
}

// Runs the kernel's schedule on the emulated warp. `meta_swizzled` is swizzle_meta(a.meta, ...).
// B is K × N with leading dimension ldb (elements). Returns the fp32 accumulators, M × N.
template <class Sched, class T>
std::vector<float> gemm_model(const Sparse24Matrix<T>& a, std::span<const std::uint16_t> meta_swizzled,
                              std::span<const T> b, int n, int ldb) {
  using warp::Lanes;
  using warp::MmaAcc4;
  using warp::MmaReg4;
  constexpr bool kBf16 = std::is_same_v<T, bfloat16>;
  static_assert(kBf16 || std::is_same_v<T, half>, "mma.sp model: bf16 or fp16");
  const int m = a.rows, k = a.cols;
  require(ldb >= n && (k == 0 || b.size() >= static_cast<std::size_t>(k - 1) * ldb + n),
          "gemm_model: B is smaller than K x ldb");
  const int vcols = a.cols_padded / 2;
  std::vector<float> out(static_cast<std::size_t>(m) * n, 0.0f);
  // Global arrays as raw 16-bit words, as the kernel sees them.
  std::vector<std::uint16_t> a_words(a.values.size()), b_words(b.size());
  for (std::size_t i = 0; i < a.values.size(); ++i) a_words[i] = bits_of(a.values[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b_words[i] = bits_of(b[i]);
  const std::span<const std::uint16_t> a_bits(a_words), b_bits(b_words);
  const std::uint32_t a_base = 0, b_base = Sched::kAStageBytes,
                      e_base = Sched::kAStageBytes + Sched::kBStageBytes;

  for (int m0 = 0; m0 < m; m0 += Sched::kBM)
    for (int n0 = 0; n0 < n; n0 += Sched::kBN) {
      // Accumulators of every warp: [warp][mi][ni] lanes of 4 floats.
      std::vector<Lanes<MmaAcc4>> acc(static_cast<std::size_t>(Sched::kWarps * Sched::kMmaM * Sched::kMmaN),
                                      warp::broadcast(MmaAcc4{0.f, 0.f, 0.f, 0.f}));
      for (int kt = 0; kt < a.cols_padded / Sched::kBK; ++kt) {
        // The stage image, as the kernel's cp.async leaves it: the same copies, in any order
        // (their destinations are disjoint; the bank-conflict test checks they tile the stage).
        warp::SharedImage smem(static_cast<std::size_t>(Sched::kStageBytes));
        const int blocks_m = a.rows_padded / kMetaBlockRows;
        for (int i = 0; i < Sched::kAChunks; ++i)
          copy16(smem, Sched::a_copy(i, m0, kt, vcols, a.rows_padded), a_bits, "A values");
        for (int i = 0; i < Sched::kEChunks; ++i)
          copy16(smem, Sched::e_copy(i, m0, kt, blocks_m), meta_swizzled, "A metadata");
        for (int i = 0; i < Sched::kBChunks; ++i)
          copy16(smem, Sched::b_copy(i, n0, kt, k, n, ldb), b_bits, "B");

        for (int w = 0; w < Sched::kWarps; ++w) {
          const int wm = w / Sched::kWarpsN, wn = w % Sched::kWarpsN;
          const auto e = warp::ldmatrix<4>(smem, warp::per_lane([&](int l) {
            return e_base + Sched::e_ldsm_offset(l, wm * Sched::kWM / 16);
          }), false);
          for (int ks = 0; ks < 2; ++ks) {
            std::array<Lanes<MmaReg4>, Sched::kMmaM> af;
            std::array<Lanes<MmaReg4>, Sched::kMmaN> bf;
            for (int mi = 0; mi < Sched::kMmaM; ++mi)
              af[static_cast<std::size_t>(mi)] = warp::ldmatrix<4>(smem, warp::per_lane([&](int l) {
                return a_base + Sched::a_ldsm_offset(l, wm * Sched::kWM + 16 * mi, ks);
              }), false);
            for (int ni = 0; ni < Sched::kMmaN; ++ni)
              bf[static_cast<std::size_t>(ni)] = warp::ldmatrix<4>(smem, warp::per_lane([&](int l) {
                return b_base + Sched::b_ldsm_offset(l, wn * Sched::kWN + 8 * ni, ks);
              }), true);
            for (int mi = 0; mi < Sched::kMmaM; ++mi) {
              const Lanes<std::uint32_t> emi = warp::per_lane([&](int l) {
                return e[static_cast<std::size_t>(l)][static_cast<std::size_t>(mi)];
              });
              for (int ni = 0; ni < Sched::kMmaN; ++ni) {
                auto& c = acc[static_cast<std::size_t>((w * Sched::kMmaM + mi) * Sched::kMmaN + ni)];
                c = warp::mma_sp_m16n8k32(af[static_cast<std::size_t>(mi)], bf[static_cast<std::size_t>(ni)],
                                          c, emi, ks, kBf16);
              }
            }
          }
        }
      }
      // Epilogue: masked stores of the accumulators.
      for (int w = 0; w < Sched::kWarps; ++w) {
        const int wm = w / Sched::kWarpsN, wn = w % Sched::kWarpsN;
        for (int mi = 0; mi < Sched::kMmaM; ++mi)
          for (int ni = 0; ni < Sched::kMmaN; ++ni)
            for (int l = 0; l < warp::kWarpSize; ++l)
              for (int i = 0; i < 4; ++i) {
                const warp::FragCoord cc = warp::mma_sp_cd_coord(l, i);
                const int gm = m0 + wm * Sched::kWM + 16 * mi + cc.row;
                const int gn = n0 + wn * Sched::kWN + 8 * ni + cc.col;
                if (gm < m && gn < n)
                  out[static_cast<std::size_t>(gm) * n + gn] =
                      acc[static_cast<std::size_t>((w * Sched::kMmaM + mi) * Sched::kMmaN + ni)]
                         [static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
              }
      }
    }
  return out;
}

}  // namespace warpsparse::sparse24
