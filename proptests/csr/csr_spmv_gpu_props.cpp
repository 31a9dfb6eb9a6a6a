// GPU CSR SpMV (kernels/csr/csr_spmv.hpp) == its warp model (reference/csr/csr_spmv_model.hpp),
// bit for bit; and the model == the double oracle within the fp32 bound of its chains.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <bit>
#include <cmath>
#include <random>

#include "analysis/patterns.hpp"
#include "proptests/gpu_props_common.hpp"
#include "kernels/csr/csr_spmv.hpp"
#include "reference/csr/csr_spmv_model.hpp"
#include "reference/sparse/spmv_check.hpp"

using namespace warpsparse;

namespace {

using gpu_props::raw_bits;

struct Case {
  std::int64_t rows, cols;
  analysis::PatternSpec spec;
  std::uint64_t seed;
  int warps_per_block;
  float alpha, beta;
};

template <class T, class TY>
void check_case(const Case& c) {
  std::mt19937_64 rng(c.seed);
  const SparseRows<T> m = analysis::generate<T>(c.spec, c.rows, c.cols, c.seed);
  const Csr<T, std::int32_t> a = encode_csr<T>(m);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> x(static_cast<std::size_t>(c.cols));
  for (auto& v : x) v = from_float<T>(u(rng));
  std::vector<TY> y0(static_cast<std::size_t>(c.rows));
  for (auto& v : y0) v = from_float<TY>(c.beta == 0.0f ? std::nanf("") : u(rng));  // beta == 0 must not read y

  const std::vector<TY> model = csr_spmv_model<T, std::int32_t, T, TY>(a, x, y0, c.alpha, c.beta);

  const auto da = gpu::upload_csr(a);
  gpu::DeviceBuffer<T> dx(x);
  gpu::DeviceBuffer<TY> dy(y0);
  gpu::CsrSchedule s;
  s.warps_per_block = c.warps_per_block;
  gpu::csr_spmv<T, TY>(da, dx.get(), dy.get(), c.alpha, c.beta, s);
  WS_CUDA(cudaDeviceSynchronize());
  const std::vector<TY> got = dy.download();
  for (std::int64_t r = 0; r < c.rows; ++r)
    if (raw_bits(got[r]) != raw_bits(model[r]))
      RC_FAIL("row " + std::to_string(r) + ": kernel " + std::to_string(to_float(got[r])) + " != model " +
              std::to_string(to_float(model[r])) + " (rows " + std::to_string(c.rows) + ", cols " +
              std::to_string(c.cols) + ", wpb " + std::to_string(c.warps_per_block) + ")");

  const SpmvCheck chk = check_spmv<T, T, TY>(m, x, y0, c.alpha, c.beta, model, [&](std::int64_t r) {
    return csr_chain_length(m.row_ptr[r + 1] - m.row_ptr[r]);
  });
  if (!chk.ok()) RC_FAIL("model vs oracle: " + chk.first_failure);
}

rc::Gen<Case> gen_case() {
  return rc::gen::exec([] {
    Case c;
    c.rows = *rc::gen::inRange<std::int64_t>(0, 200).as("rows");
    c.cols = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 400), rc::gen::element<std::int64_t>(1, 31, 32, 33, 5000))
                  .as("cols");
    c.spec.kind = *rc::gen::element(analysis::Pattern::bernoulli, analysis::Pattern::exact_nnz).as("pattern");
    c.spec.density = *rc::gen::element(1.0, 0.5, 0.1, 0.01, 0.0).as("density");
    c.seed = *rc::gen::arbitrary<std::uint64_t>().as("seed");
    c.warps_per_block = *rc::gen::element(1, 3, 8, 32).as("warps_per_block");
    c.alpha = *rc::gen::element(1.0f, -0.5f, 2.0f).as("alpha");
    c.beta = *rc::gen::element(0.0f, 0.0f, 1.0f, -0.75f).as("beta");
    return c;
  });
}

}  // namespace

TEST_CASE("CSR kernel equals its warp model bit for bit", "[gpu][csr]") {
  rc::prop("fp16 -> fp16", [] { check_case<half, half>(*gen_case()); });
  rc::prop("fp16 -> fp32", [] { check_case<half, float>(*gen_case()); });
  rc::prop("bf16 -> bf16", [] { check_case<bfloat16, bfloat16>(*gen_case()); });
}

TEST_CASE("CSR kernel: fixed edge cases", "[gpu][csr]") {
  check_case<half, half>({1, 1, {analysis::Pattern::bernoulli, 1.0, 0}, 1, 8, 1.0f, 0.0f});
  check_case<half, half>({37, 100, {analysis::Pattern::bernoulli, 0.0, 0}, 2, 8, 1.0f, 0.0f});  // all rows empty
  check_case<half, half>({1, 100000, {analysis::Pattern::bernoulli, 0.5, 0}, 3, 8, 1.0f, 0.0f});  // one long row
  check_case<bfloat16, float>({33, 1000, {analysis::Pattern::exact_nnz, 1.0, 0}, 4, 5, 1.0f, 1.0f});
}
