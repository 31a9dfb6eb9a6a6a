// The MACKO kernel on a matrix of more than 2^31 stored elements, against its warp model bit for
// bit. A program of its own: it needs about 6 GB of device memory and as much host memory, and says
// so by exiting 77 (CTest: skipped) where they are not free; under compute-sanitizer its launches
// over 5 GB would take most of a device session, so scripts/device_run.sh runs it only unsanitized.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "analysis/patterns.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/macko/macko_spmv.hpp"
#include "proptests/gpu_props_common.hpp"
#include "reference/macko/macko_policy.hpp"
#include "reference/macko/macko_spmv_model.hpp"
#include "reference/sparse/spmv_check.hpp"

using namespace warpsparse;

namespace {

using gpu_props::raw_bits;

// What the test holds at its peak, with room to spare: the device copy (about 6 GB) and the host
// copy it is built from.
constexpr std::size_t kNeedBytes = std::size_t{8} << 30;

}  // namespace

const char* ws_gpu_unsupported(const cudaDeviceProp&) {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || free_b < kNeedBytes)
    return "under 8 GiB of device memory free (the 2^31-element matrix needs about 6 GB)";
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) < kNeedBytes)
    return "under 8 GiB of host memory free (the matrix is built on the host first)";
  return nullptr;
}

// More than 2^31 stored elements: the wide kernels (row pointers widened on upload, 64-bit element
// offsets) on a real matrix, not a lowered threshold. The matrix repeats kDistinct rows of different
// densities; every row is padded to the ROMA unit (align_rows), so its elements start aligned
// wherever it sits and its result depends on its own bytes only. Row r's output must then have the
// bits of the warp model's output for distinct row r % kDistinct, computed on the small matrix and
// checked there against the double oracle. (Row and grid splits are left out: their split points are
// multiples of kSplitUnit in absolute offsets, so a row's parts differ between the two matrices.)
TEST_CASE("MACKO kernel past 2^31 stored elements equals its warp model bit for bit", "[gpu][macko][large]") {
  constexpr std::int64_t kDistinct = 61, kCols = 16384;
  constexpr std::int64_t kTarget = (std::int64_t{1} << 31) + (std::int64_t{1} << 24);  // stored elements
  SparseRows<half> small;
  small.cols = kCols;
  for (std::int64_t i = 0; i < kDistinct; ++i) {
    const double d = 0.02 + 0.88 * static_cast<double>(i) / (kDistinct - 1);
    const auto row = analysis::generate<half>({analysis::Pattern::bernoulli, d, 0}, 1, kCols, 9000 + i);
    for (std::int64_t k = 0; k < row.nnz(); ++k) small.push(row.col[k], row.val[k]);
    small.end_row();
  }
  MackoParams p;
  p.align_rows = true;
  const Macko<half> a = encode_macko(small, p);
  std::vector<std::int64_t> len(kDistinct), nz(kDistinct);
  std::int64_t cycle = 0;
  for (std::int64_t i = 0; i < kDistinct; ++i) {
    len[i] = a.row_ptr[i + 1] - a.row_ptr[i];
    REQUIRE(len[i] % macko::align_unit(4) == 0);  // every row starts aligned
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) nz[i] += is_zero(a.values[k]) ? 0 : 1;
    cycle += len[i];
  }
  // Whole cycles past kTarget, plus 7 rows: an odd row count leaves a two-rows warp a half idle.
  const std::int64_t rows = (kTarget + cycle - 1) / cycle * kDistinct + 7;
  Macko<half> big;
  big.rows = rows;
  big.cols = kCols;
  big.delta_bits = 4;
  big.row_ptr.narrow.reserve(static_cast<std::size_t>(rows + 1));
  big.row_ptr.narrow.push_back(0);
  std::int64_t total = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    total += len[r % kDistinct];
    big.nnz += nz[r % kDistinct];
    big.row_ptr.narrow.push_back(static_cast<std::uint32_t>(total));
  }
  REQUIRE(total > (std::int64_t{1} << 31));
  REQUIRE(total < (std::int64_t{1} << 32));  // 32-bit row pointers in the format, widened on upload
  big.values.resize(static_cast<std::size_t>(total));
  big.deltas.resize(static_cast<std::size_t>(total / 2));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t i = r % kDistinct, from = a.row_ptr[i], to = big.row_ptr[r];
    std::memcpy(&big.values[static_cast<std::size_t>(to)], &a.values[static_cast<std::size_t>(from)],
                static_cast<std::size_t>(len[i]) * sizeof(half));
    std::memcpy(&big.deltas[static_cast<std::size_t>(to / 2)], &a.deltas[static_cast<std::size_t>(from / 2)],
                static_cast<std::size_t>(len[i] / 2));
  }
  auto da = gpu::upload_macko(big);  // validates every element
  REQUIRE(da.wide);
  big = Macko<half>{};  // the host copy is no longer needed

  const SparseRows<half> dec = decode_macko(a);  // the oracle's copy of the distinct rows
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const float alpha = 1.0f, beta = 0.5f;
  for (const int nb : {1, 2}) {
    std::vector<half> x(static_cast<std::size_t>(kCols * nb)), y0s(static_cast<std::size_t>(kDistinct * nb));
    for (auto& v : x) v = half(u(rng));
    for (auto& v : y0s) v = half(u(rng));
    std::vector<half> y0(static_cast<std::size_t>(rows * nb));
    for (std::int64_t r = 0; r < rows; ++r)
      for (int b = 0; b < nb; ++b) y0[r * nb + b] = y0s[(r % kDistinct) * nb + b];
    gpu::DeviceBuffer<half> dx(x);
    // Every compiled variant of this batch that walks whole rows (row splits are left out: above).
    std::vector<macko::Schedule> scheds;
    for (const macko::CompiledVariant& v : macko::kCompiledVariants)
      if (v.schedule.batch == nb && v.schedule.row_parts() == 1 &&
          (v.delta_bits & macko::delta_bit(4)) != 0) {
        macko::Schedule sc = v.schedule;
        sc.warps_per_block = sc.x_shared ? 16 : 4;
        scheds.push_back(sc);
      }
    REQUIRE(scheds.size() >= 2u);
    for (const macko::Schedule& s : scheds) {
      INFO("batch " << nb << ", " << macko::to_string(s));
      const std::vector<half> want = macko_spmv_model<half, half, half>(a, x, y0s, alpha, beta, s);
      for (int b = 0; b < nb; ++b) {
        const SpmvCheck chk = check_spmv<half, half, half>(
            dec, batch_column<half>(x, nb, b), batch_column<half>(y0s, nb, b), alpha, beta,
            batch_column<half>(want, nb, b),
            [&](std::int64_t r) { return macko_chain_length(a.row_ptr[r + 1] - a.row_ptr[r], 4, s); });
        REQUIRE(chk.ok());
      }
      gpu::DeviceBuffer<half> dy(y0);
      gpu::macko_spmv<half, half>(da, dx.get(), dy.get(), alpha, beta, s);
      WS_CUDA(cudaDeviceSynchronize());
      const std::vector<half> got = dy.download();
      std::int64_t bad = 0, first = -1;
      for (std::int64_t k = 0; k < rows * nb; ++k)
        if (raw_bits(got[k]) != raw_bits(want[(k / nb % kDistinct) * nb + k % nb])) {
          if (first < 0) first = k;
          ++bad;
        }
      INFO("first mismatch at output " << first << " (row " << (first < 0 ? -1 : first / nb) << " of " << rows
                                       << ")");
      REQUIRE(bad == 0);
    }
  }
}
