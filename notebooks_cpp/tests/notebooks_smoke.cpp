// Notebooks 5 and 6 on synthetic bench/results folders, and the rules every report keeps (see CMakeLists.txt).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "notebooks_cpp/notebooks.hpp"
#include "notebooks_cpp/report.hpp"

namespace fs = std::filesystem;
using namespace warpsparse::notebooks;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// A fresh temporary folder per test case.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ws_notebooks_tests_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Options options(const fs::path& root) {
  Options o;
  o.out_dir = (root / "out").string();
  o.bench_dir = (root / "results").string();
  o.quick = true;
  o.bandwidth = 3.0e12;
  return o;
}

void write_macko(const fs::path& gpu_dir, bool with_meta) {
  fs::create_directories(gpu_dir);
  std::ofstream c(gpu_dir / "macko_20260101T000000Z.csv");
  c << "gpu,kernel,schedule,rows,cols,density,pattern,value_type,delta_bits,median_us,p10_us,p90_us,bytes,gbps,"
       "pct_copy_bw\n";
  for (const double d : {1.0, 0.5, 0.1}) {
    c << "Test GPU,cublas_gemv,,2048,2048," << d << ",exact_nnz,fp16,,10,9,11,8392704,839,42\n";
    c << "Test GPU,macko,wpb=4,2048,2048," << d << ",exact_nnz,fp16,4,"<< 12 * d + 1 << ",1,20,1,1,37\n";
    c << "Test GPU,cusparse_csr,,2048,2048," << d << ",exact_nnz,fp16,," << 30 * d + 2 << ",1,40,1,1,20\n";
    c << "Test GPU,csr_warp,wpb=8,2048,2048," << d << ",exact_nnz,fp16,," << 28 * d + 2 << ",1,40,1,1,21\n";
  }
  c << "Test GPU,macko,wpb=4,2048,2048,0.5,clustered,fp16,4,7,6,8,1,1,33\n";
  if (with_meta) std::ofstream(gpu_dir / "macko_20260101T000000Z.meta.json") << R"({"copy_gbps": 2000.0})";
}

void write_sparse24(const fs::path& gpu_dir) {
  fs::create_directories(gpu_dir);
  std::ofstream c(gpu_dir / "sparse24_20260101T000000Z.csv");
  c << "gpu,kernel,m,n,k,weight_shape,value_type,median_us,check\n";
  // 2*512^3 flops = 268435456: 268.435456 us is 1 TFLOP/s.
  c << "Test GPU,cublas_dense,512,512,512,cube,bf16,268.435456,pass\n";
  c << "Test GPU,cusparselt,512,512,512,cube,bf16,134.217728,pass\n";
  c << "Test GPU,warpsparse_wgmma_sp,512,512,512,cube,bf16,268.435456,pass\n";
  c << "Test GPU,cublas_dense,512,16,512,512x512,bf16,10,pass\n";
  c << "Test GPU,cusparselt,512,16,512,512x512,bf16,8,pass\n";
  c << "Test GPU,warpsparse_wgmma_sp,512,16,512,512x512,bf16,16,fail\n";
}

// Both programs' results for one GPU, as a real run leaves them.
Options both_programs(const std::string& name) {
  const fs::path root = scratch(name);
  write_macko(root / "results" / "Test_GPU", true);
  write_sparse24(root / "results" / "Test_GPU");
  return options(root);
}

bool has(const std::string& html, const char* text) { return html.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("notebooks 5 and 6 say plainly when the results folder is empty or missing") {
  const fs::path root = scratch("empty");
  auto o = options(root);
  SECTION("missing folder") {}
  SECTION("empty folder") { fs::create_directories(o.bench_dir); }
  SECTION("only the other program's files") { write_sparse24(root / "results" / "Test_GPU"); }
  const std::string h5 = slurp(roofline(o));
  CHECK(has(h5, "No GPU benchmark results are present"));
  CHECK_FALSE(has(h5, "row(s) unusable"));  // sparse24 files are not counted as unusable MACKO rows
  if (fs::exists(root / "results" / "Test_GPU")) {
    CHECK(has(h5, "other benchmark programs were ignored"));
    return;
  }
  const std::string h6 = slurp(sparse24(o));
  CHECK(has(h6, "No 2:4 GEMM results are present"));
}

TEST_CASE("notebook 5 predicts measured rows with the run's measured copy bandwidth") {
  const std::string h = slurp(roofline(both_programs("nb5")));
  CHECK(has(h, "13 measured rows from 1 file(s)"));
  CHECK(has(h, "(0 unusable rows skipped)"));
  CHECK(has(h, "1 CSV file(s) of other benchmark programs were ignored"));
  CHECK(has(h, "2000 GB/s"));
  CHECK(has(h, "measured device copy"));
  // MACKO at d = 0.5: 1.43x cuBLAS at 37% of copy bandwidth, in the summary table and the lead.
  const std::string md = slurp(fs::path(roofline(both_programs("nb5_md"))).replace_extension(".md"));
  CHECK(has(md, "| Test GPU | 0.50 | 1 | 1.43x | 1.43-1.43x | 37% |"));
  CHECK(has(md, "d = 0.50: 1.43x"));
  CHECK(has(md, "| Test GPU | clustered | 0.50 | 1 | 1.43x |"));  // other pattern families: their own table
}

TEST_CASE("notebook 5 sets MACKO against its read and row_stream bounds when a run measured them") {
  const fs::path root = scratch("nb5_bounds");
  const auto o = options(root);
  const fs::path g = root / "results" / "Test_GPU";
  write_macko(g, true);
  {
    std::ofstream c(g / "macko_20260102T000000Z.csv");
    c << "gpu,kernel,schedule,rows,cols,density,pattern,value_type,delta_bits,median_us,p10_us,p90_us,bytes,gbps,"
         "pct_copy_bw\n";
    c << "Test GPU,read,,4096,1024,0.5,exact_nnz,fp16,,10,9,11,1,1,90\n";
    c << "Test GPU,row_stream,wpb=4,4096,1024,0.5,exact_nnz,fp16,,12,11,13,1,1,80\n";
    c << "Test GPU,macko,wpb=8,4096,1024,0.5,exact_nnz,fp16,4,18,17,19,1,1,50\n";  // slower schedule
    c << "Test GPU,macko,wpb=4,4096,1024,0.5,exact_nnz,fp16,4,15,14,16,1,1,60\n";
    c << "Test GPU,macko,wpb=4,4096,1024,0.3,exact_nnz,fp16,4,9,8,10,1,1,60\n";  // no bounds at 0.3
  }
  const std::string md = slurp(fs::path(roofline(o)).replace_extension(".md"));
  CHECK(has(md, "MACKO against its own loads"));
  // read 10, row_stream 12, the fastest MACKO schedule 15: 1.20 over the read, 1.25 over row_stream.
  CHECK(has(md, "| 0.50 | 4096x1024 | 10.0 | 12.0 | 15.0 | 1.20 | 1.25 |"));
  CHECK_FALSE(has(md, "| 0.30 | 4096x1024 |"));
  // Without such rows (the first file alone) the section is left out.
  const std::string plain = slurp(fs::path(roofline(both_programs("nb5_no_bounds"))).replace_extension(".md"));
  CHECK_FALSE(has(plain, "MACKO against its own loads"));
}

TEST_CASE("notebook 5 keeps batched rows out of its single-vector sections and plots them on their own") {
  const fs::path root = scratch("nb5_batch");
  const auto o = options(root);
  const fs::path g = root / "results" / "Test_GPU";
  write_macko(g, true);  // no batch column: every row is batch 1
  // Without batched rows the section says so in one line.
  const std::string plain = slurp(fs::path(roofline(o)).replace_extension(".md"));
  CHECK(has(plain, "No results with batch > 1 are present"));
  {
    std::ofstream c(g / "macko_20260103T000000Z.csv");
    c << "gpu,kernel,schedule,rows,cols,batch,density,pattern,value_type,delta_bits,median_us,p10_us,p90_us,bytes,"
         "gbps,pct_copy_bw\n";
    c << "Test GPU,cublas_gemv,,4096,1024,1,0.5,exact_nnz,fp16,,20,19,21,1,1,50\n";
    c << "Test GPU,macko,wpb=4,4096,1024,1,0.5,exact_nnz,fp16,4,10,9,11,1,1,60\n";
    c << "Test GPU,cublas_gemm,,4096,1024,2,0.5,exact_nnz,fp16,,24,23,25,1,1,50\n";
    c << "Test GPU,macko,wpb=16,4096,1024,2,0.5,exact_nnz,fp16,4,30,29,31,1,1,40\n";  // slower schedule
    c << "Test GPU,macko,wpb=4,4096,1024,2,0.5,exact_nnz,fp16,4,12,11,13,1,1,60\n";
    c << "Test GPU,cublas_gemm,,4096,1024,8,0.5,exact_nnz,fp16,,20,19,21,1,1,50\n";
    c << "Test GPU,macko,wpb=4,4096,1024,8,0.5,exact_nnz,fp16,4,40,39,41,1,1,30\n";
    // At d = 0.1 only batch 8 ran: were it read as batch 1, the shape x density table would show 2.50x.
    c << "Test GPU,cublas_gemm,,4096,1024,8,0.1,exact_nnz,fp16,,20,19,21,1,1,50\n";
    c << "Test GPU,macko,wpb=4,4096,1024,8,0.1,exact_nnz,fp16,4,8,7,9,1,1,30\n";
  }
  const std::string md = slurp(fs::path(roofline(o)).replace_extension(".md"));
  CHECK(has(md, "22 measured rows from 2 file(s)"));
  CHECK(has(md, "7 of them multiply several vectors at once"));
  CHECK(has(md, "Batched SpMV: several vectors at once"));
  CHECK_FALSE(has(md, "No results with batch > 1"));
  // gpu, shape, density, batch, MACKO, cuBLAS, speedup, MACKO per vector (fastest schedule at batch 2).
  const std::string csv = slurp(fs::path(roofline(o)).replace_extension("") / "batched_per_shape.csv");
  CHECK(has(csv, "Test GPU,4096x1024,0.50,1,10.0,20.0,2.000,10.00"));
  CHECK(has(csv, "Test GPU,4096x1024,0.50,2,12.0,24.0,2.000,6.00"));
  CHECK(has(csv, "Test GPU,4096x1024,0.50,8,40.0,20.0,0.500,5.00"));
  CHECK(has(csv, "Test GPU,4096x1024,0.10,8,8.0,20.0,2.500,1.00"));
  // gpu, B, density, shapes, median, range: the summary on the page.
  CHECK(has(md, "| Test GPU | 8 | 0.10 | 1 | 2.50x | 2.50-2.50x |"));
  // The single-vector summary holds the batch-1 speedups only: the batch-8 2.50x at d = 0.1 is not there.
  const std::string single = slurp(fs::path(roofline(o)).replace_extension("") / "speedup_summary.csv");
  CHECK(has(single, "Test GPU,0.50,2,2.00x,1.43-2.00x"));
  CHECK_FALSE(has(single, "2.50x"));
  CHECK_FALSE(has(single, "0.50x"));
  // The batched figure; the 2048^2 shape, never batched, is not in it.
  CHECK(has(md, "batched_speedup.png"));
  CHECK_FALSE(has(csv, "2048x2048"));
}

TEST_CASE("notebook 5 tabulates and draws the newest row timelines, apart from the benchmark rows") {
  const fs::path root = scratch("nb5_trace");
  const auto o = options(root);
  const fs::path g = root / "results" / "Test_GPU";
  write_macko(g, true);
  const std::string plain = slurp(fs::path(roofline(o)).replace_extension(".md"));
  CHECK(has(plain, "No row timelines are present"));
  const char* header =
      "gpu,rows,cols,density,schedule,warps,launches,event_us,span_us,start_p50_us,start_max_us,first_row_us,row_us,"
      "gap_us,end_p10_us,end_p50_us,end_p90_us,end_max_us,drain_us,commit\n";
  std::ofstream(g / "rowtrace_macko_20260101T000000Z.csv")
      << header << "\"Test GPU\",512,256,0.5,\"old\",8,9,1,1,0,0,1,1,0,1,1,1,1,0,abc\n";
  std::ofstream(g / "rowtrace_macko_20260102T000000Z.csv")
      << header << "\"Test GPU\",4096,1024,0.3,\"x in smem\",64,9,50.6,46.2,0.26,0.64,9.92,7.97,0.1,38.4,42.1,43.6,46.2,4.1,abc\n";
  std::ofstream(g / "rowtrace_macko_20260102T000000Z_busy.csv")
      << "rows,cols,density,t_us,rows_in_progress\n4096,1024,0.3,0,60\n4096,1024,0.3,0.5,64\n4096,1024,0.3,1,3\n";
  const std::string md = slurp(fs::path(roofline(o)).replace_extension(".md"));
  CHECK(has(md, "Where a launch's time goes"));
  CHECK_FALSE(has(md, "No row timelines are present"));
  // The newest summary only: shape, d, schedule, warps, launch, span, first row, later rows, p50, last, drain.
  CHECK(has(md, "| 4096x1024 | 0.3 | x in smem | 64 | 50.6 | 46.2 | 9.92 | 7.97 | 42.1 | 46.2 | 4.1 |"));
  CHECK_FALSE(has(md, "| 512x256 |"));
  CHECK(has(md, "row_timeline_Test_GPU.png"));
  // Neither counted as MACKO rows nor as other programs' files.
  CHECK(has(md, "13 measured rows from 1 file(s)"));
  CHECK_FALSE(has(md, "other benchmark programs were ignored"));
}

TEST_CASE("notebook 5 falls back to --bandwidth without a meta file, and says so") {
  const fs::path root = scratch("nb5_nometa");
  auto o = options(root);
  o.bandwidth = 1.5e12;
  write_macko(root / "results" / "Test_GPU", false);
  const std::string h = slurp(roofline(o));
  CHECK(has(h, "1500 GB/s"));
  CHECK(has(h, "no .meta.json with copy_gbps"));
}

TEST_CASE("notebook 6 tabulates TFLOP/s and the fraction of cuSPARSELt per case") {
  const std::string h = slurp(sparse24(both_programs("nb6")));
  CHECK(has(h, "6 rows from 1 file(s)"));
  CHECK(has(h, "<td>512^3</td>"));
  CHECK(has(h, "<td>512x512 n=16</td>"));
  CHECK(has(h, "<td>1.0 (50%)</td>"));  // wgmma.sp at 1 TFLOP/s, cuSPARSELt at 2
  CHECK(has(h, "FAIL"));                // the failed row is marked in the table
  // and in both figures
  const fs::path dir = fs::path(sparse24(both_programs("nb6_fail"))).replace_extension("");
  CHECK(has(slurp(dir / "tflops.gp"), "FAILED its check"));
  CHECK(has(slurp(dir / "fraction_of_cusparselt.gp"), "FAILED its check"));
  // The 2:4 target counts every case: 512^3 at 50 %, and 512x512 n=16, whose only warpsparse row
  // failed its check, are both misses; no mma.sp row at 8192^3, so no mma.sp target.
  CHECK(has(h,
            "<td>warpsparse 2:4 &gt;= 95% of cuSPARSELt on every case</td><td>0 of 2 cases (lowest 50% at "
            "512^3)</td><td>not met</td>"));
  CHECK_FALSE(has(h, "mma.sp &gt;= 600"));
  CHECK_FALSE(has(h, "What mma.sp itself allows"));  // no ws_mma_sp_peak file: no ceiling section
}

TEST_CASE("notebook 6 sets the best mma.sp GEMM against ws_mma_sp_peak's ceiling of the same GPU") {
  const fs::path root = scratch("nb6_peak");
  const auto o = options(root);
  const fs::path g = root / "results" / "Test_GPU";
  write_sparse24(g);
  {
    std::ofstream c(g / "sparse24_20260102T000000Z.csv");
    c << "gpu,kernel,m,n,k,weight_shape,value_type,median_us,check\n";
    // 2*8192^3 flops = 1.0995e12: 2199.02 us is 500 TFLOP/s.
    c << "Test GPU,warpsparse_mma_sp_tall_pipe,8192,8192,8192,cube,bf16,2199.023255552,pass\n";
  }
  {
    std::ofstream c(g / "mma_sp_peak_20260102T000000Z.csv");
    c << "order,warp_tile_m16,warp_tile_n8,warps_per_smsp,registers,fits,us,tflops,cycles_per_mma_per_smsp\n";
    c << "b_shared,4,8,2,160,1,1,600,1\n";
    c << "a_shared,4,8,2,156,1,1,625,1\n";
    c << "b_shared,4,8,4,160,0,,,\n";  // did not fit: not drawn
  }
  const std::string md = slurp(fs::path(sparse24(o)).replace_extension(".md"));
  CHECK(has(md, "What mma.sp itself allows"));
  CHECK(has(md, "reaches 625 TFLOP/s"));
  CHECK(has(md, "the best GEMM at 8192^3 is 80% of that"));
}

// A 2:4 results file in root's Test_GPU folder with the columns of the power states written.
std::ofstream states_csv(const fs::path& root) {
  const fs::path g = root / "results" / "Test_GPU";
  fs::create_directories(g);
  std::ofstream c(g / "sparse24_20260103T000000Z.csv");
  c << "gpu,kernel,m,n,k,weight_shape,value_type,median_us,check,iters,rest_ms,sm_mhz_median\n";
  return c;
}

TEST_CASE("notebook 6 keeps rows of the rested and the sustained power state apart") {
  const fs::path root = scratch("nb6_states");
  const auto o = options(root);
  {
    std::ofstream c = states_csv(root);
    // 268.435456 us is 1 TFLOP/s at 512^3; the rested run is twice as fast.
    c << "Test GPU,cusparselt,512,512,512,cube,bf16,268.435456,pass,200,,1400\n";
    c << "Test GPU,cusparselt,512,512,512,cube,bf16,134.217728,pass,50,3000,1980\n";
  }
  const std::string h = slurp(sparse24(o));
  CHECK(has(h, "sustained state (series back to back)"));
  CHECK(has(h, "rested state (3000 ms idle before each kernel, short series)"));
  // Each state's table holds its own row: 1.0 and 2.0 TFLOP/s, never one overwriting the other.
  CHECK(has(h, "<td>1.0</td>"));
  CHECK(has(h, "<td>2.0</td>"));
}

TEST_CASE("notebook 6 sets each kernel's gain from sustained to rested against its clock's") {
  const fs::path root = scratch("nb6_clock");
  const auto o = options(root);
  std::ofstream c = states_csv(root);
  // Sustained at 1400 MHz; 8192 x 512 x 4096 is never measured rested: no pair, left out.
  c << "Test GPU,cusparselt,4096,512,4096,4096x4096,bf16,40,pass,200,,1400\n";
  c << "Test GPU,warpsparse_wgmma_sp_tall_tma_store,4096,512,4096,4096x4096,bf16,42,pass,200,,1400\n";
  c << "Test GPU,cusparselt,8192,512,4096,8192x4096,bf16,80,pass,200,,1400\n";
  c << "Test GPU,warpsparse_wgmma_sp_tall_tma_store,8192,512,4096,8192x4096,bf16,84,pass,200,,1400\n";
  SECTION("both power states") {
    // Rested at 1980 MHz (clock ratio 1.41): cuSPARSELt twice as fast, ours as fast as sustained.
    c << "Test GPU,cusparselt,4096,512,4096,4096x4096,bf16,20,pass,50,3000,1980\n";
    c << "Test GPU,warpsparse_wgmma_sp_tall_tma_store,4096,512,4096,4096x4096,bf16,42,pass,50,3000,1980\n";
    c.close();
    const std::string md = slurp(fs::path(sparse24(o)).replace_extension(".md"));
    CHECK(has(md, "Test GPU: does each kernel's time follow the SM clock?"));
    CHECK(has(md, "| N = 512 | 1 | 1.41 | 2.00 | 1.00 |"));
  }
  SECTION("one power state: no clock section") {
    c.close();
    const std::string md = slurp(fs::path(sparse24(o)).replace_extension(".md"));
    CHECK(has(md, "sustained state"));
    CHECK_FALSE(has(md, "follow the SM clock"));
  }
}

TEST_CASE("notebook 6 takes each case from the newest run that measured it, whole") {
  const fs::path root = scratch("nb6_newest");
  const auto o = options(root);
  const fs::path g = root / "results" / "Test_GPU";
  fs::create_directories(g);
  {
    std::ofstream c(g / "sparse24_20260104T000000Z.csv");
    c << "gpu,kernel,m,n,k,weight_shape,value_type,median_us,check\n";
    c << "Test GPU,cublas_dense,512,512,512,cube,bf16,268.435456,pass\n";  // 1 TFLOP/s
    c << "Test GPU,cusparselt,512,512,512,cube,bf16,134.217728,pass\n";    // 2
    c << "Test GPU,warpsparse_wgmma_sp_tall,512,512,512,cube,bf16,268.435456,pass\n";
    c << "Test GPU,cublas_dense,512,16,512,512x512,bf16,10,pass\n";
    c << "Test GPU,cusparselt,512,16,512,512x512,bf16,8,pass\n";
    c << "Test GPU,warpsparse_wgmma_sp_tall,512,16,512,512x512,bf16,8.2,pass\n";  // 98 %
  }
  {
    // A later run of one case, without cuBLAS, whose default kernel took the other tile.
    std::ofstream c(g / "sparse24_20260105T000000Z.csv");
    c << "gpu,kernel,m,n,k,weight_shape,value_type,median_us,check\n";
    c << "Test GPU,cusparselt,512,512,512,cube,bf16,67.108864,pass\n";                  // 4
    c << "Test GPU,warpsparse_wgmma_sp_square,512,512,512,cube,bf16,89.478485,pass\n";  // 3
  }
  const std::string h = slurp(sparse24(o));
  // 512^3 comes whole from the newer run: its tile, no cuBLAS and none of the older run's rows.
  CHECK(has(h,
            "<td>512^3</td><td>sparse24_20260105T000000Z.csv</td><td>-</td><td>4.0</td><td>3.0 "
            "(75%)</td><td>-</td>"));
  // The case the newer run did not measure keeps its older row.
  CHECK(has(h, "<td>512x512 n=16</td><td>sparse24_20260104T000000Z.csv</td>"));
  CHECK(has(h, "over 2 cases, at least 95% in 1"));
}

TEST_CASE("a report refuses an unreadable figure and keeps every table and zero") {
  const fs::path root = scratch("report_rules");
  Plot p;
  p.name = "many";
  for (int i = 0; i < 9; ++i) p.series.push_back(Series{fmt::format("s{}", i), {1, 2}, {1, 2}, {}, {}, "lines", ""});
  {
    Report r("crowded", "crowded");
    r.lead("q", "a");
    r.figure(p, "nine series");
    CHECK_THROWS_WITH(r.write(root.string()), Catch::Contains("at most 8: split it"));
  }
  p.series.resize(2);
  p.key = "outside right top";
  {
    Report r("squeezed", "squeezed");
    r.lead("q", "a");
    r.figure(p, "key outside");
    CHECK_THROWS_WITH(r.write(root.string()), Catch::Contains("squeezes it"));
  }
  {
    Report r("no_lead", "no lead");
    CHECK_THROWS_WITH(r.write(root.string()), Catch::Contains("has no lead"));
  }
  // A zero on a log axis is drawn at the floor and marked; every table is also a CSV.
  p.key = "top left";
  p.logy = true;
  p.series[0].y = {0.0, 2.0};
  Report r("kept", "kept");
  r.lead("What is kept?", "Zeros and every row.");
  r.figure(p, "a zero");
  r.table({"a", "b"}, {{"1", "x,y"}, {"2", "z"}, {"3", "w"}}, "three rows", "rows");
  const std::string h = slurp(r.write(root.string()));
  CHECK(has(slurp(root / "kept" / "many.gp"), "zero (at the axis floor)"));
  CHECK(has(h, "Zero values, drawn at the log axis's floor (open triangles): s0."));
  CHECK(has(slurp(root / "kept" / "many_zero.dat"), "1 0.5"));  // half the smallest positive value
  CHECK(slurp(root / "kept" / "rows.csv") == "a,b\n1,\"x,y\"\n2,z\n3,w\n");
  CHECK(has(h, "<td>w</td>"));
  CHECK(has(h, "href=\"kept/rows.csv\""));
  CHECK(has(h, "<b>Question.</b> What is kept?"));
  CHECK(has(slurp(root / "kept.json"), "\"question\": \"What is kept?\""));
}
