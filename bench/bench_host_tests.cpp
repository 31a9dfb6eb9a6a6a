// Host-only tests of the benchmark harness: percentiles, the CSV/JSON writer, the parallel
// encoders (which must give exactly what the reference encoders give on the whole matrix), and
// the output check of batched products.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/patterns.hpp"
#include "bench/bench_stats.hpp"
#include "bench/matrix_gen.hpp"
#include "bench/spmv_check.hpp"

using namespace warpsparse;
using namespace warpsparse::bench;

TEST_CASE("percentiles interpolate between closest ranks", "[stats]") {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  CHECK(percentile_sorted(v, 50) == 6.0);
  CHECK(percentile_sorted(v, 10) == 2.0);
  CHECK(percentile_sorted(v, 90) == 10.0);
  CHECK(percentile_sorted(v, 0) == 1.0);
  CHECK(percentile_sorted(v, 100) == 11.0);
  CHECK(percentile_sorted({1.0, 2.0}, 50) == 1.5);
  CHECK(percentile_sorted({1.0, 2.0, 3.0, 4.0}, 10) == Approx(1.3));
  CHECK(std::isnan(percentile_sorted({}, 50)));
}

TEST_CASE("summarize sorts its samples and reports order statistics", "[stats]") {
  const Summary s = summarize({5, 1, 4, 2, 3});
  CHECK(s.n == 5);
  CHECK(s.median == 3.0);
  CHECK(s.min == 1.0);
  CHECK(s.max == 5.0);
  CHECK(s.mean == 3.0);
  CHECK(s.p10 == Approx(1.4));
  CHECK(s.p90 == Approx(4.6));
  CHECK_THROWS_AS(summarize({}), Error);
  CHECK_THROWS_AS(summarize({1.0, std::nan("")}), Error);
}

TEST_CASE("result writer: CSV quoting, empty missing values, fixed header", "[csv]") {
  const auto dir = std::filesystem::temp_directory_path() / "ws_bench_host_tests";
  std::filesystem::remove_all(dir);
  {
    ResultWriter w(dir / "gpu", "t");
    w.write({{"gpu", std::string("H100, \"SXM\"")}, {"rows", std::int64_t{4096}}, {"median_us", 12.5},
             {"speedup", Value{}}});
    w.write({{"gpu", std::string("x")}, {"rows", std::int64_t{1}}, {"median_us", opt_double(std::nan(""))},
             {"speedup", 2.0}});
    CHECK_THROWS_AS(w.write({{"gpu", std::string("x")}}), Error);
    CHECK_THROWS_AS(w.write({{"gpu", std::string("x")}, {"cols", std::int64_t{1}}, {"median_us", 1.0},
                             {"speedup", 2.0}}),
                    Error);
    CHECK(w.rows() == 2);
  }
  std::ifstream csv(dir / "gpu" / "t.csv");
  std::stringstream ss;
  ss << csv.rdbuf();
  CHECK(ss.str() == "gpu,rows,median_us,speedup\n\"H100, \"\"SXM\"\"\",4096,12.5,\nx,1,,2\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("names and lists", "[csv]") {
  CHECK(sanitize_name("NVIDIA H100 80GB HBM3") == "NVIDIA_H100_80GB_HBM3");
  CHECK(sanitize_name("  a//b  ") == "a_b");
  CHECK(sanitize_name("") == "unknown_gpu");
  CHECK(split_list("1.0, 0.5,,0.3") == std::vector<std::string>{"1.0", "0.5", "0.3"});
  CHECK(parse_dims("28672x8192") == std::vector<std::int64_t>{28672, 8192});
  CHECK_THROWS_AS(parse_dims("12x"), Error);
  CHECK_THROWS_AS(parse_dims("12xa"), Error);
  CHECK_NOTHROW(require_known({"a", "b"}, {"a", "b", "c"}, "kernel"));
  CHECK_THROWS_AS(require_known({"a", "d"}, {"a", "b"}, "kernel"), Error);
}

TEST_CASE("parallel encoders equal the reference encoders on the whole matrix", "[gen]") {
  for (const int db : {1, 2, 4, 8}) {
    for (const double d : {0.0, 0.03, 0.3, 1.0}) {
      for (const int threads : {1, 3, 8}) {
        const analysis::PatternSpec spec{analysis::Pattern::exact_nnz, d, 0.0};
        const std::int64_t rows = 37, cols = 301;
        const RowBlocks<half> m = generate_blocks<half>(spec, rows, cols, 7, threads);
        // Reassemble the whole matrix and encode it with the reference encoders.
        SparseRows<half> whole;
        whole.cols = cols;
        for (const auto& b : m.blocks)
          for (std::int64_t r = 0; r < b.rows; ++r) {
            for (std::int64_t k = b.row_ptr[r]; k < b.row_ptr[r + 1]; ++k) whole.push(b.col[k], b.val[k]);
            whole.end_row();
          }
        REQUIRE(whole.rows == rows);
        const auto ref_macko = encode_macko(whole, MackoParams{db});
        const auto got = to_macko(m, MackoParams{db}, threads);
        CHECK(got.values == ref_macko.values);
        CHECK(got.deltas == ref_macko.deltas);
        CHECK(got.row_ptr.narrow == ref_macko.row_ptr.narrow);
        CHECK(got.nnz == ref_macko.nnz);
        got.validate();
        const auto ref_csr = encode_csr<half>(whole);
        const auto csr = to_csr(m, threads);
        CHECK(csr.row_ptr == ref_csr.row_ptr);
        CHECK(csr.col == ref_csr.col);
        CHECK(csr.val == ref_csr.val);
        const auto dense = to_dense(m, threads);
        CHECK(dense == whole.to_dense());
      }
    }
  }
}

TEST_CASE("generated blocks equal analysis::generate", "[gen]") {
  for (const auto kind : {analysis::Pattern::exact_nnz, analysis::Pattern::bernoulli}) {
    const analysis::PatternSpec spec{kind, 0.3, 0.0};
    const auto whole = analysis::generate<half>(spec, 45, 70, 9);
    const auto blocks = generate_blocks<half>(spec, 45, 70, 9, 5);
    const auto csr = to_csr(blocks, 5);
    CHECK(csr.col == whole.col);
    CHECK(csr.val == whole.val);
  }
}

TEST_CASE("generated matrices do not depend on the thread count", "[gen]") {
  const analysis::PatternSpec spec{analysis::Pattern::exact_nnz, 0.5, 0.0};
  const auto a = to_csr(generate_blocks<bfloat16>(spec, 100, 64, 3, 1), 1);
  const auto b = to_csr(generate_blocks<bfloat16>(spec, 100, 64, 3, 7), 7);
  CHECK(a.col == b.col);
  CHECK(a.val == b.val);
  CHECK(a.nnz() == 100 * 32);
}

TEST_CASE("oracle matches a direct double dot product", "[gen]") {
  const analysis::PatternSpec spec{analysis::Pattern::exact_nnz, 0.4, 0.0};
  const auto m = generate_blocks<half>(spec, 20, 50, 11, 4);
  const auto x = random_vector<half>(50, 12);
  const auto o = spmv_oracle_parallel(m, x, 4);
  const auto dense = to_dense(m, 1);
  for (std::int64_t r = 0; r < 20; ++r) {
    double s = 0;
    for (std::int64_t c = 0; c < 50; ++c) s += double(to_float(dense[r * 50 + c])) * double(to_float(x[c]));
    CHECK(o.y[r] == Approx(s).epsilon(1e-12));
    CHECK(o.row_nnz[r] == 20);
  }
}

TEST_CASE("the batched check compares column b of a row-major y with the oracle of vector b", "[check]") {
  const analysis::PatternSpec spec{analysis::Pattern::exact_nnz, 0.5, 0.0};
  const std::int64_t rows = 30, cols = 40;
  const auto m = generate_blocks<half>(spec, rows, cols, 5, 3);
  constexpr int kB = 4;
  std::vector<std::vector<half>> xs;
  std::vector<Oracle> oracles;
  for (int b = 0; b < kB; ++b) {
    xs.push_back(random_vector<half>(cols, 100 + b));
    oracles.push_back(spmv_oracle_parallel(m, xs.back(), 3));
  }
  const auto x = interleave_columns<half>(xs);
  REQUIRE(x.size() == std::size_t(cols * kB));
  for (std::int64_t c = 0; c < cols; ++c)
    for (int b = 0; b < kB; ++b) CHECK(to_float(x[c * kB + b]) == to_float(xs[b][c]));

  // The exact products rounded to fp16, interleaved: within every row's bound.
  std::vector<half> y(static_cast<std::size_t>(rows * kB));
  for (std::int64_t r = 0; r < rows; ++r)
    for (int b = 0; b < kB; ++b) y[r * kB + b] = from_float<half>(static_cast<float>(oracles[b].y[r]));
  const auto chain = [](std::int64_t) { return std::int64_t{8}; };
  const Check ok = check_output(y, std::span<const Oracle>(oracles), chain);
  CHECK(ok.pass);
  CHECK(ok.nonfinite == 0);
  CHECK(ok.worst_ratio <= 1.0);
  // The first two vectors alone are a batch of two: a y laid out for four is refused.
  CHECK_THROWS_AS(check_output(y, std::span<const Oracle>(oracles.data(), 2), chain), Error);

  // Row 7 with its vectors 1 and 2 swapped (a transposed layout would do this everywhere): caught,
  // and named by row and vector.
  std::int64_t row = 7;
  while (std::abs(oracles[1].y[row] - oracles[2].y[row]) < 0.5) ++row;
  auto swapped = y;
  std::swap(swapped[row * kB + 1], swapped[row * kB + 2]);
  const Check bad = check_output(swapped, std::span<const Oracle>(oracles), chain);
  CHECK_FALSE(bad.pass);
  CHECK(bad.worst_row == row);
  CHECK((bad.worst_col == 1 || bad.worst_col == 2));

  // An unwritten element (NaN poison) fails and is located.
  auto poisoned = y;
  poisoned[11 * kB + 3] = from_float<half>(std::nanf(""));
  const Check nan = check_output(poisoned, std::span<const Oracle>(oracles), chain);
  CHECK_FALSE(nan.pass);
  CHECK(nan.nonfinite == 1);
  CHECK(nan.worst_row == 11);
  CHECK(nan.worst_col == 3);

  // Half of u_fp16 sum|a x| on one element: beyond the fp32 bound, within the one for partial sums
  // kept in the output type.
  auto partial = y;
  const double shift = 0.5 * std::ldexp(1.0, -11) * oracles[0].abs_sum[3];
  partial[3 * kB] = from_float<half>(static_cast<float>(oracles[0].y[3] + shift));
  CHECK_FALSE(check_output(partial, std::span<const Oracle>(oracles), chain).pass);
  CHECK(check_output(partial, std::span<const Oracle>(oracles), chain, 1.0).pass);

  // Batch 1 is the plain check: vector 0's column alone.
  std::vector<half> y0(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) y0[r] = y[r * kB];
  CHECK(check_output(y0, std::span<const Oracle>(oracles.data(), 1), chain).pass);
}
