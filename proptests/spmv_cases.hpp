// One SpMV case, shared by the properties and the corpus replay: draw x (finite, from a seed)
// and y_old (NaN-poisoned when beta = 0), run a warp model, judge it with check_spmv against the
// oracle, and on failure dump the case to ${build}/failures/. Returns "" or the failure.
#pragma once
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "proptests/prop_support.hpp"
#include "reference/csr/csr_spmv_model.hpp"
#include "reference/macko/macko_spmv_model.hpp"
#include "reference/sparse/spmv_check.hpp"

namespace warpsparse::proptest {

template <class T>
using XOf = std::conditional_t<std::is_same_v<T, std::int8_t>, half, T>;

template <class TX, class TY>
void draw_vectors(std::uint64_t seed, std::int64_t cols, std::int64_t rows, float beta, std::vector<TX>& x,
                  std::vector<TY>& y_old) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  x.resize(static_cast<std::size_t>(cols));
  for (auto& v : x) v = from_float<TX>(u(rng));
  y_old.resize(static_cast<std::size_t>(rows));
  for (auto& v : y_old) v = from_float<TY>(u(rng));
  // With beta = 0 y_old is never read: poison it so a leak shows as NaN.
  if (beta == 0.0f)
    for (auto& v : y_old) v = from_float<TY>(std::nanf(""));
}

template <class T, class TX, class TY>
void dump(const SparseRows<T>& m, const std::vector<TX>& x, const std::vector<TY>& y, const std::vector<TY>& y_old,
          float alpha, float beta, const std::string& what) {
  FailureDump d;
  d.matrix(m);
  d.vector<TX>("x.txt", x);
  d.vector<TY>("y_model.txt", y);
  d.vector<TY>("y_old.txt", y_old);
  d.vector("y_oracle.txt", spmv_oracle<T, TX, TY>(m, x, y_old, double(alpha), double(beta)));
  d.note(what);
}

// The MACKO model under schedule s on m (encoded with the options in p) against the oracle.
template <class T, class TY>
std::string macko_case(const SparseRows<T>& m, const macko::Schedule& s, float alpha, float beta, std::uint64_t seed,
                       const MackoParams& p) {
  using TX = XOf<T>;
  const Macko<T> a = encode_macko(m, p);
  std::vector<TX> x;
  std::vector<TY> y_old, y;
  draw_vectors(seed, m.cols, m.rows, beta, x, y_old);
  try {
    y = macko_spmv_model<T, TX, TY>(a, x, y_old, alpha, beta, s);
  } catch (const warp::WarpFault& f) {
    dump(m, x, y, y_old, alpha, beta, std::string("MACKO emulator fault: ") + f.what());
    return std::string("MACKO emulator fault: ") + f.what();
  }
  const SpmvCheck c = check_spmv<T, TX, TY>(decode_macko(a), x, y_old, alpha, beta, y, [&](std::int64_t r) {
    return macko_chain_length(a.row_ptr[r + 1] - a.row_ptr[r], a.delta_bits, s);
  });
  if (!c.ok()) dump(m, x, y, y_old, alpha, beta, "MACKO model vs oracle: " + c.first_failure);
  return c.first_failure;
}

// The batched MACKO model (s.batch = B > 1 vectors, x and y row-major cols x B and rows x B)
// against B batch-1 runs of the same schedule: column b must have the bits of the batch-1 model on
// column b of x (Schedule::batch promises it), and the last column is judged against the oracle.
template <class T, class TY>
std::string macko_batch_case(const SparseRows<T>& m, const macko::Schedule& s, float alpha, float beta,
                             std::uint64_t seed, const MackoParams& p) {
  using TX = XOf<T>;
  const Macko<T> a = encode_macko(m, p);
  const int nb = s.batch;
  macko::Schedule s1 = s;
  s1.batch = 1;
  std::vector<std::vector<TX>> xs(static_cast<std::size_t>(nb));
  std::vector<std::vector<TY>> y_olds(static_cast<std::size_t>(nb));
  for (int b = 0; b < nb; ++b) draw_vectors(seed + static_cast<std::uint64_t>(b), m.cols, m.rows, beta, xs[b], y_olds[b]);
  const std::vector<TX> x = interleave_columns<TX>(xs);
  const std::vector<TY> y_old = interleave_columns<TY>(y_olds);
  std::vector<TY> y;
  try {
    y = macko_spmv_model<T, TX, TY>(a, x, y_old, alpha, beta, s);
  } catch (const warp::WarpFault& f) {
    dump(m, x, y, y_old, alpha, beta, std::string("batched MACKO emulator fault: ") + f.what());
    return std::string("batched MACKO emulator fault: ") + f.what();
  }
  for (int b = 0; b < nb; ++b) {
    const std::vector<TY> y1 = macko_spmv_model<T, TX, TY>(a, xs[b], y_olds[b], alpha, beta, s1);
    const std::vector<TY> col = batch_column<TY>(y, nb, b);
    for (std::int64_t r = 0; r < m.rows; ++r)
      if (std::memcmp(&col[r], &y1[r], sizeof(TY)) != 0) {
        const std::string what = "batch " + std::to_string(nb) + ", vector " + std::to_string(b) + ", row " +
                                 std::to_string(r) + ": batched model " + std::to_string(to_float(col[r])) +
                                 " != batch-1 model " + std::to_string(to_float(y1[r]));
        dump(m, xs[b], col, y_olds[b], alpha, beta, what);
        return what;
      }
    if (b + 1 < nb) continue;
    const SpmvCheck c = check_spmv<T, TX, TY>(decode_macko(a), xs[b], y_olds[b], alpha, beta, col, [&](std::int64_t r) {
      return macko_chain_length(a.row_ptr[r + 1] - a.row_ptr[r], a.delta_bits, s);
    });
    if (!c.ok()) {
      dump(m, xs[b], col, y_olds[b], alpha, beta, "batched MACKO model vs oracle: " + c.first_failure);
      return c.first_failure;
    }
  }
  return "";
}

// The CSR model (32- or 16-bit column indices) on m against the oracle.
template <class T, class TY>
std::string csr_case(const SparseRows<T>& m, bool narrow, float alpha, float beta, std::uint64_t seed) {
  using TX = XOf<T>;
  std::vector<TX> x;
  std::vector<TY> y_old, y;
  draw_vectors(seed, m.cols, m.rows, beta, x, y_old);
  try {
    if (narrow && m.cols <= 65536)
      y = csr_spmv_model<T, std::uint16_t, TX, TY>(encode_csr<T, std::uint16_t>(m), x, y_old, alpha, beta);
    else
      y = csr_spmv_model<T, std::int32_t, TX, TY>(encode_csr<T>(m), x, y_old, alpha, beta);
  } catch (const warp::WarpFault& f) {
    dump(m, x, y, y_old, alpha, beta, std::string("CSR emulator fault: ") + f.what());
    return std::string("CSR emulator fault: ") + f.what();
  }
  const SparseRows<T> nz = m.without_zeros();
  const SpmvCheck c = check_spmv<T, TX, TY>(nz, x, y_old, alpha, beta, y, [&](std::int64_t r) {
    return csr_chain_length(nz.row_ptr[r + 1] - nz.row_ptr[r]);
  });
  if (!c.ok()) dump(m, x, y, y_old, alpha, beta, "CSR model vs oracle: " + c.first_failure);
  return c.first_failure;
}

}  // namespace warpsparse::proptest
