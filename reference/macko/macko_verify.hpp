// The MACKO warp model against the double-precision oracle, for one matrix: what `warpsparse verify`
// and the reader fuzzers run. Host only.
#pragma once
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/common/memory_budget.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_spmv_model.hpp"
#include "reference/sparse/spmv_check.hpp"

namespace warpsparse {

// x type of the verification: the value type for floating types, fp16 for int8 weights.
template <class T>
using MackoXOf = std::conditional_t<std::is_same_v<T, std::int8_t>, half, T>;

struct MackoVerifyResult {
  SpmvCheck check;
  std::string fault;  // a WarpFault message, empty when none
  double model_seconds = 0;
  std::int64_t schedules = 0;
  // The loads of the first schedule's run: every schedule makes the same ones, as the accumulator
  // count changes only where sums go.
  SpmvTraffic traffic;
};

// macko_verify's arguments (it checks them first; call it before macko_verify_bytes too), each
// named when it is not one the model runs: a batch of 1, 2, 4 or 8,
// 32 or 16 lanes per row (16: one vector), accumulator counts of 1, 2, 4 or 8, at least one.
inline void require_verify_args(int batch, int row_lanes, const std::vector<int>& accumulators) {
  require(macko::valid_batch(batch), "verify: the batch must be 1, 2, 4 or 8, not " + std::to_string(batch));
  require(row_lanes == macko::kWarpLanes || (row_lanes == 16 && batch == 1),
          "verify: lanes per row must be 32, or 16 with one vector; got " + std::to_string(row_lanes) +
              " with a batch of " + std::to_string(batch));
  require(!accumulators.empty(), "verify: no accumulator count given, so nothing would be checked");
  for (const int acc : accumulators)
    require(acc == 1 || acc == 2 || acc == 4 || acc == 8,
            "verify: accumulators per lane must be 1, 2, 4 or 8, not " + std::to_string(acc));
}

// What macko_verify holds at once, to be checked before calling it: the decoded rows, x
// (cols x batch) and one vector's copy of it, the outputs, the oracle and the model's row pointers.
// The shape alone decides it, so a command that generates its matrix can check before generating.
template <class T>
std::uint64_t macko_verify_bytes(std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz, int batch) {
  const auto nb = static_cast<std::uint64_t>(batch);
  return sat_add(sat_add(sat_mul(nnz, sizeof(T) + 4), sat_mul(cols, sat_mul(nb + 1, sizeof(MackoXOf<T>)))),
                 sat_mul(rows + 1, 8 * nb + 24));
}
template <class T>
std::uint64_t macko_verify_bytes(const Macko<T>& a, int batch) {
  return macko_verify_bytes<T>(static_cast<std::uint64_t>(a.rows), static_cast<std::uint64_t>(a.cols),
                               static_cast<std::uint64_t>(a.nnz), batch);
}

// The model of each schedule (one per accumulator count) on `batch` random vectors at once
// (Schedule::batch: x is cols x batch, row-major), every vector checked against its own oracle;
// row_lanes 16 walks two rows per warp (Schedule::row_lanes).
template <class T>
MackoVerifyResult macko_verify(const Macko<T>& a, std::uint64_t seed, const std::vector<int>& accumulators,
                               int batch = 1, int row_lanes = macko::kWarpLanes) {
  require_verify_args(batch, row_lanes, accumulators);
  using TX = MackoXOf<T>;
  const SparseRows<T> decoded = decode_macko(a);  // independent path for the oracle
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<TX> x(static_cast<std::size_t>(a.cols * batch));
  for (auto& v : x) v = from_float<TX>(u(rng));
  const std::vector<float> y_old;
  MackoVerifyResult res;
  for (const int acc : accumulators) {
    macko::Schedule s;
    s.lane_accumulators = acc;
    s.batch = batch;
    s.row_lanes = row_lanes;
    std::vector<float> y;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      y = macko_spmv_model<T, TX, float>(a, x, y_old, 1.0f, 0.0f, s,
                                         res.schedules == 0 ? &res.traffic : nullptr);
    } catch (const warp::WarpFault& f) {
      res.fault = "lane_accumulators=" + std::to_string(acc) + ": " + f.what();
      return res;
    }
    res.model_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++res.schedules;
    for (int b = 0; b < batch; ++b) {
      const std::vector<TX> xb = batch_column<TX>(x, batch, b);
      const std::vector<float> yb = batch_column<float>(y, batch, b);
      const SpmvCheck c = check_spmv<T, TX, float>(decoded, xb, y_old, 1.0f, 0.0f, yb, [&](std::int64_t r) {
        return macko_chain_length(a.row_ptr[r + 1] - a.row_ptr[r], a.delta_bits, s);
      });
      res.check.max_error = std::max(res.check.max_error, c.max_error);
      res.check.max_bound_ratio = std::max(res.check.max_bound_ratio, c.max_bound_ratio);
      res.check.overflows += c.overflows;
      if (!c.ok() && res.check.ok())
        res.check.first_failure = "lane_accumulators=" + std::to_string(acc) + ", vector " + std::to_string(b) +
                                  " of " + std::to_string(batch) + ": " + c.first_failure;
      res.check.failures += c.failures;
    }
  }
  return res;
}

}  // namespace warpsparse
