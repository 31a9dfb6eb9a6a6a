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
//   bits). Each output sums n = cols_padded/2 kept products plus the zero initial accumulator in an
//   order the hardware does not specify; tensor cores may truncate (not round) when aligning and
//   adding, so we take the unit roundoff u = 2^-23 (one ulp) instead of 2^-24. For any summation
//   order with per-addition relative error ≤ u (Higham, Accuracy and Stability, §4.2):
//       |ĉ − c*| ≤ γ_n · Σ_k |a_ik||b_kj|,         γ_n = n·u / (1 − n·u).
//   The conversion to the output type adds u_out·|ĉ| (u_out = 2^-8 bf16, 2^-11 fp16, 0 fp32) and
//   at most half the smallest subnormal η_out in the gradual-underflow range:
//       |out − c*| ≤ u_out·|c*| + (1 + u_out)·γ_n·Σ|a||b| + η_out.
//   (|ĉ| ≤ |c*| + γ_n Σ|a||b|, and u_out·γ_n·Σ is folded into the (1 + u_out) factor.)
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/formats/sparse24.hpp"
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
    return uo * std::fabs(exact) + (1.0 + uo) * gamma(cols_padded / 2 + 1) * abs_dot + out_eta(out);
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
  const std::uint32_t a_base = 0, b_base = Sched::kAStageBytes,
                      e_base = Sched::kAStageBytes + Sched::kBStageBytes;

  for (int m0 = 0; m0 < m; m0 += Sched::kBM)
    for (int n0 = 0; n0 < n; n0 += Sched::kBN) {
      // Accumulators of every warp: [warp][mi][ni] lanes of 4 floats.
      std::vector<Lanes<MmaAcc4>> acc(static_cast<std::size_t>(Sched::kWarps * Sched::kMmaM * Sched::kMmaN),
                                      warp::broadcast(MmaAcc4{0.f, 0.f, 0.f, 0.f}));
      for (int kt = 0; kt < a.cols_padded / Sched::kBK; ++kt) {
        // The stage image, as the kernel's cp.async leaves it.
        warp::SharedImage smem(static_cast<std::size_t>(Sched::kStageBytes));
        for (int r = 0; r < Sched::kBM; ++r)
          for (int c = 0; c < Sched::kBK / 2; ++c) {
            const T v = a.values[static_cast<std::size_t>(m0 + r) * vcols + kt * (Sched::kBK / 2) + c];
            smem.store16(a_base + Sched::a_offset(r, c / 8) + 2 * (c % 8), bits_of(v));
          }
        for (int kk = 0; kk < Sched::kBK; ++kk)
          for (int c = 0; c < Sched::kBN; ++c) {
            const int gk = kt * Sched::kBK + kk, gn = n0 + c;
            const std::uint16_t v =
                (gk < k && gn < n) ? bits_of(b[static_cast<std::size_t>(gk) * ldb + gn]) : std::uint16_t{0};
            smem.store16(b_base + Sched::b_offset(kk, c / 8) + 2 * (c % 8), v);
          }
        const std::size_t e_first =
            (static_cast<std::size_t>(kt) * (a.rows_padded / kMetaBlockRows) + m0 / kMetaBlockRows) *
            kMetaBlockHalves;
        for (int i = 0; i < Sched::kEStageBytes / 2; ++i)
          smem.store16(e_base + 2u * static_cast<std::uint32_t>(i), meta_swizzled[e_first + static_cast<std::size_t>(i)]);

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
