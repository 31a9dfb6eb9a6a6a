// compare() flags a case only when the new run is slower than the reference by more than its
// tolerance, names cases by what they measure (not by the MACKO schedule), takes the fastest row of
// a sweep and the newest reference file, and says which cases have no reference.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "analysis/bench_results.hpp"

using namespace warpsparse::analysis::bench_results;
namespace fs = std::filesystem;

namespace {

fs::path write(const fs::path& dir, const std::string& name, const std::string& body) {
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << "gpu,kernel,schedule,rows,cols,batch,density,pattern,value_type,delta_bits,median_us\n" << body;
  return p;
}

}  // namespace

TEST_CASE("compare: tolerances by kernel and time, fastest of a sweep, newest reference") {
  const fs::path dir = fs::temp_directory_path() / "ws_compare_test" / "GPU";
  fs::remove_all(dir.parent_path());
  // Two accepted files: the newer one holds the reference of every case it has.
  write(dir, "macko_20260101T000000Z.csv",
        "G,macko,a,1000,1000,1,0.5,exact_nnz,fp16,4,50\n"
        "G,cublas_gemv,,1000,1000,1,0.5,exact_nnz,fp16,,80\n");
  write(dir, "macko_20260102T000000Z.csv",
        "G,macko,a,1000,1000,1,0.5,exact_nnz,fp16,4,40\n"
        "G,macko,a,2000,1000,1,0.50,exact_nnz,fp16,4,200\n"
        "G,macko,a,3000,1000,1,0.5,exact_nnz,fp16,4,10\n");
  const fs::path run = write(dir, "macko_20260103T000000Z.csv",
                             "G,macko,b,1000,1000,1,0.5,exact_nnz,fp16,4,41.5\n"   // +3.75 %: beyond max(2 %, 1 us)
                             "G,macko,c,1000,1000,1,0.5,exact_nnz,fp16,4,39.0\n"   // the sweep's fastest row counts
                             "G,cublas_gemv,,1000,1000,1,0.5,exact_nnz,fp16,,82\n"  // +2.5 %: within 3 % for a vendor
                             "G,macko,a,2000,1000,1,0.5,exact_nnz,fp16,4,202.5\n"  // +1.25 %: within 1.5 % above 100 us
                             "G,macko,a,3000,1000,1,0.5,exact_nnz,fp16,4,10.9\n"   // +9 % but < 1 us: within
                             "G,macko,a,4000,1000,1,0.5,exact_nnz,fp16,4,10\n");   // no reference
  std::vector<Table> ref;
  for (const auto& f : {"macko_20260101T000000Z.csv", "macko_20260102T000000Z.csv"}) ref.push_back(read_table(dir / f));
  const Table t = read_table(run);
  CHECK(t.program() == "macko");
  Comparison c = compare(t, ref);
  CHECK(c.cases.size() == 4);
  CHECK(c.unmatched.size() == 1);
  CHECK(c.slower() == 0);  // 39.0 against 40 (the newer file): within, a little faster
  // The same run without its fastest row: 41.5 against 40 is flagged (40.9 would be within 1 us).
  const fs::path run2 = write(dir, "macko_20260104T000000Z.csv", "G,macko,b,1000,1000,1,0.5,exact_nnz,fp16,4,41.5\n");
  c = compare(read_table(run2), ref);
  REQUIRE(c.cases.size() == 1);
  CHECK(c.slower() == 1);
  CHECK(c.cases[0].reference_file == "macko_20260102T000000Z.csv");
  CHECK(c.cases[0].ratio() == Approx(41.5 / 40));
  // Faster beyond the noise is reported as faster, not slower.
  const fs::path run3 = write(dir, "macko_20260105T000000Z.csv", "G,cublas_gemv,,1000,1000,1,0.5,exact_nnz,fp16,,70\n");
  c = compare(read_table(run3), ref);
  CHECK(c.faster() == 1);
  CHECK(c.slower() == 0);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("compare: tolerances") {
  CHECK(tolerance("macko", "macko", 10).rel == Approx(0.03));
  CHECK(tolerance("macko", "macko", 50).rel == Approx(0.02));
  CHECK(tolerance("macko", "macko", 500).rel == Approx(0.015));
  CHECK(tolerance("macko", "cublas_gemv", 50).rel == Approx(0.03));
  CHECK(tolerance("macko", "copy", 500).abs_us == Approx(2.0));
  CHECK(tolerance("sparse24", "cusparselt", 500).rel == Approx(0.05));
}
