// GPU bitmap-tile SpMM against its fragment model (reference/bitmap/bitmap_spmm_model.hpp) and the
// double oracle. Tensor cores add in an order PTX does not specify, so the test is the derived
// bound (bitmap::ErrorBound, judged by bitmap::spmm_check), never bit equality: every output of the kernel and of the model is
// within the bound of the oracle, for every vector of batches 1-16 (odd ones too), parts 1 to many,
// fp16/bf16 in, 16-bit and fp32 out, beta = 0 with y poisoned with NaN, and the shapes that stress
// the tiling (rows and cols not multiples of 16, cols > 65535, empty rows, d = 1, d -> 0). Fresh
// random cases every run (rapidcheck prints the seed). Also reports how many outputs equal the
// model bit for bit (informative: a wrong fragment map fails the bound by orders of magnitude).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/bitmap/bitmap_spmm.hpp"
#include "kernels/common/cuda_check.hpp"
#include "proptests/gpu_props_common.hpp"
#include "proptests/stream_safety.hpp"
#include "reference/bitmap/bitmap_format.hpp"
#include "reference/bitmap/bitmap_schedule.hpp"
#include "reference/bitmap/bitmap_spmm_model.hpp"
#include "reference/sparse/spmv_common.hpp"

using namespace warpsparse;

namespace {

struct Case {
  std::int64_t rows = 1, cols = 1;
  double density = 0.5;
  int batch = 1, parts = 1;
  float alpha = 1, beta = 0;
  bool empty_rows = false;
  std::uint64_t seed = 1;
};

void showValue(const Case& c, std::ostream& os) {
  os << c.rows << "x" << c.cols << " d=" << c.density << " B=" << c.batch << " parts=" << c.parts
     << " alpha=" << c.alpha << " beta=" << c.beta << (c.empty_rows ? " empty_rows" : "") << " seed=" << c.seed;
}

template <class T>
SparseRows<T> random_matrix(const Case& c) {
  std::mt19937_64 rng(c.seed);
  std::bernoulli_distribution keep(c.density);
  std::normal_distribution<float> val(0.0f, 1.0f);
  SparseRows<T> m;
  m.cols = c.cols;
  for (std::int64_t r = 0; r < c.rows; ++r) {
    if (!(c.empty_rows && r % 3 == 1))
      for (std::int64_t k = 0; k < c.cols; ++k)
        if (keep(rng)) {
          T v = from_float<T>(val(rng));
          if (is_zero(v)) v = from_float<T>(1.0f);
          m.push(static_cast<std::int32_t>(k), v);
        }
    m.end_row();
  }
  return m;
}

struct Outcome {
  std::string failure;
  std::int64_t outputs = 0, equal_to_model = 0;
};

template <class T, class TY>
Outcome check_case(const Case& c) {
  const SparseRows<T> m = random_matrix<T>(c);
  const Bitmap<T> a = encode_bitmap(m);
  const bitmap::Schedule s{c.batch, c.parts};
  std::mt19937_64 rng(c.seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> x(static_cast<std::size_t>(c.cols * c.batch));
  for (auto& v : x) v = from_float<T>(u(rng));
  std::vector<TY> y0(static_cast<std::size_t>(c.rows * c.batch));
  for (auto& v : y0) v = from_float<TY>(c.beta == 0.0f ? std::nanf("") : u(rng));  // beta == 0 must not read y

  const std::vector<TY> model = bitmap::spmm_model<T, TY>(a, x, y0, c.alpha, c.beta, s);
  const gpu::DeviceBitmap<T> da = gpu::upload_bitmap(a);
  gpu::DeviceBuffer<T> dx(x);
  gpu::DeviceBuffer<TY> dy(y0);
  gpu::bitmap_spmm<T, TY>(da, dx.get(), dy.get(), c.alpha, c.beta, s);
  WS_CUDA(cudaDeviceSynchronize());
  const std::vector<TY> got = dy.download();

  Outcome o;
  if (const std::string f = bitmap::spmm_check<T, TY>(a, x, y0, c.alpha, c.beta, s, got); !f.empty()) o.failure = "kernel: " + f;
  else if (const std::string fm = bitmap::spmm_check<T, TY>(a, x, y0, c.alpha, c.beta, s, model); !fm.empty())
    o.failure = "model: " + fm;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ++o.outputs;
    if (gpu_props::raw_bits(got[i]) == gpu_props::raw_bits(model[i])) ++o.equal_to_model;
  }
  return o;
}

rc::Gen<Case> gen_case() {
  return rc::gen::exec([] {
    Case c;
    const int shape = *rc::gen::inRange(0, 5);
    c.rows = shape == 0 ? *rc::gen::inRange<std::int64_t>(1, 8) : *rc::gen::inRange<std::int64_t>(1, 200);
    c.cols = shape == 1 ? *rc::gen::inRange<std::int64_t>(1, 40) : *rc::gen::inRange<std::int64_t>(1, 1200);
    c.density = *rc::gen::element(1.0, 0.7, 0.5, 0.3, 0.1, 0.01);
    c.batch = *rc::gen::inRange(1, 17);
    const std::int64_t kt = bitmap::k_tiles(c.cols);
    c.parts = static_cast<int>(*rc::gen::inRange<std::int64_t>(1, std::min<std::int64_t>(kt, 9) + 1));
    c.alpha = *rc::gen::element(1.0f, -0.5f, 2.0f);
    c.beta = *rc::gen::element(0.0f, 1.0f, -0.75f);
    c.empty_rows = *rc::gen::arbitrary<bool>();
    c.seed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

template <class T, class TY>
void property(const char* name) {
  std::int64_t outputs = 0, equal = 0;
  rc::prop(name, [&] {
    const Case c = *gen_case();
    const Outcome o = check_case<T, TY>(c);
    outputs += o.outputs;
    equal += o.equal_to_model;
    RC_ASSERT(o.failure == "");
  });
  // Catch runs the test case once per property (rapidcheck's section each): report only the one that ran.
  if (outputs > 0)
    std::printf("%s: %lld of %lld outputs equal the model bit for bit\n", name, static_cast<long long>(equal),
                static_cast<long long>(outputs));
}

}  // namespace

TEST_CASE("bitmap SpMM kernel and model stay within the oracle's bound", "[gpu][bitmap]") {
  property<half, half>("fp16 -> fp16");
  property<half, float>("fp16 -> fp32");
  property<bfloat16, bfloat16>("bf16 -> bf16");
  property<bfloat16, float>("bf16 -> fp32");
}

TEST_CASE("bitmap SpMM edge shapes", "[gpu][bitmap]") {
  const std::vector<Case> cases = {
      {1, 65536 + 40, 0.5, 8, 64, 1, 0, false, 11},  // one row, cols > 65535, many parts
      {33, 100000, 0.1, 16, 40, 1, 1, false, 12},   // few rows, wide
      {17, 17, 1.0, 3, 1, 1, 0, false, 13},         // d = 1, one past a tile each way
      {64, 512, 0.001, 5, 4, 2, 0, true, 14},       // d -> 0, empty rows
      {48, 256, 0.0, 8, 2, 1, 0, false, 15},        // all zero: y = 0 exactly
      {31, 1000, 0.5, 1, 1, 1, 0, false, 16},       // batch 1
  };
  for (const Case& c : cases) {
    INFO(c.rows << "x" << c.cols << " d=" << c.density << " B=" << c.batch << " parts=" << c.parts);
    CHECK(check_case<half, half>(c).failure == "");
    CHECK(check_case<bfloat16, float>(c).failure == "");
  }
}

TEST_CASE("bitmap SpMM refuses a schedule it cannot run", "[gpu][bitmap]") {
  Case c{20, 40, 0.5, 4, 1, 1, 0, false, 3};
  const Bitmap<half> a = encode_bitmap(random_matrix<half>(c));
  const gpu::DeviceBitmap<half> da = gpu::upload_bitmap(a);
  gpu::DeviceBuffer<half> dx(static_cast<std::size_t>(40 * 17)), dy(static_cast<std::size_t>(20 * 17));
  auto run = [&](int batch, int parts) {
    gpu::bitmap_spmm<half, half>(da, dx.get(), dy.get(), 1, 0, bitmap::Schedule{batch, parts});
  };
  CHECK_THROWS_WITH(run(17, 1), Catch::Contains("batch 17"));
  CHECK_THROWS_WITH(run(4, 4), Catch::Contains("4 parts for 3 k tiles"));
}

TEST_CASE("bitmap SpMM in parts runs on two streams at once and from a CUDA graph", "[gpu][bitmap]") {
  // One matrix, two vector sets: both jobs' partials are live at once. Big enough that the two
  // streams' launches overlap on the device.
  const Case c{2048, 8192, 0.5, 8, 8, 1, 0, false, 21};
  const Bitmap<half> a = encode_bitmap(random_matrix<half>(c));
  const gpu::DeviceBitmap<half> da = gpu::upload_bitmap(a);
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto make_job = [&](const char* name, int batch, int parts) {
    std::vector<half> x(static_cast<std::size_t>(c.cols * batch));
    for (auto& v : x) v = from_float<half>(u(rng));
    auto dx = std::make_shared<gpu::DeviceBuffer<half>>(x);
    const std::size_t n = static_cast<std::size_t>(c.rows * batch);
    auto dy = std::make_shared<gpu::DeviceBuffer<float>>(n * gpu_props::kStreamSlots);
    const bitmap::Schedule s{batch, parts};
    return gpu_props::StreamJob{
        name,
        [&da, dx, dy, n, s](cudaStream_t st, int slot) {
          gpu::bitmap_spmm<half, float>(da, dx->get(), gpu_props::slot_ptr(dy->get(), n, slot), 1, 0, s, st);
        },
        [dy, n](int slot) { return gpu_props::slot_bytes(dy->get(), n, slot); }};
  };
  const gpu_props::StreamJob j0 = make_job("B = 8 in 4 parts", 8, 4), j1 = make_job("B = 16 in 8 parts", 16, 8);
  const gpu_props::StreamJob larger = make_job("B = 16 in 32 parts", 16, 32);
  REQUIRE(gpu_props::check_streams_and_graph(j0, j1, [&](cudaStream_t st) { larger.launch(st, 0); }) == "");
}
