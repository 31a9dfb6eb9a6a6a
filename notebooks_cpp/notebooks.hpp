// The notebooks: C++ programs that compute, tabulate and draw, each writing one self-contained
// HTML report and a Markdown copy (see report.hpp). `warpsparse report` and the ws_notebooks
// program both call build_all.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/checkpoint.hpp"

namespace warpsparse::notebooks {

struct Options {
  std::string out_dir = "reports";
  std::string bench_dir = "bench/results";  // <gpu>/<program>_*.csv from the GPU benchmarks
  double bandwidth = 3.0e12;                // bytes/s; model-only roofline (measured rows use their .meta.json)
  std::uint64_t seed = 1;
  int threads = 2;
  bool quick = false;                       // smaller Monte Carlo samples
  std::vector<int> only;                    // notebook numbers to build (empty: all)
};

// Each returns the HTML path it wrote.
std::string storage_table(const Options& o);      // 1: the blog's storage table, models + Monte Carlo
std::string effd_figure2(const Options& o);       // 2: paper Figure 2 with Monte Carlo points, crossovers
std::string padding_row_length(const Options& o); // 3: exact vs asymptotic vs Monte Carlo across row lengths
std::string pattern_families(const Options& o);   // 4: structured patterns vs the uniform expectation
std::string roofline(const Options& o);           // 5: predicted vs measured SpMV time and speedup
std::string sparse24(const Options& o);           // 6: measured 2:4 GEMM kernels vs cuSPARSELt and cuBLAS
std::string ec_storage(const Options& o);         // 7: EC-CSR bytes vs MACKO and CSR-32; padding vs the EC paper's Table 2

// The headline results as Markdown, one table per kernel, from the newest accepted rows of one GPU
// folder of bench_dir (README.md carries this text; `warpsparse headline` prints or checks it).
std::string headline_markdown(const std::string& bench_dir, const std::string& gpu_dir = "NVIDIA_H100_80GB_HBM3");

// The page of `warpsparse analyze --out DIR`: one checkpoint's weights in each format; returns its path.
std::string checkpoint_report(const analysis::CheckpointAnalysis& a, const std::string& dir);

// Builds the selected notebooks plus an index.html linking them; returns the written HTML paths.
std::vector<std::string> build_all(const Options& o);

}  // namespace warpsparse::notebooks
