// ws_notebooks: builds the notebooks without the rest of the CLI (same as `warpsparse report`).
#include <CLI/CLI.hpp>
#include <filesystem>

#include "notebooks_cpp/nb_common.hpp"
#include "reference/common/error.hpp"

int main(int argc, char** argv) {
  warpsparse::notebooks::Options o;
  CLI::App app{"ws_notebooks: build the analysis notebooks (HTML + Markdown reports)"};
  app.add_option("--out", o.out_dir, "output directory");
  app.add_option("--bench-results", o.bench_dir, "GPU benchmark results directory");
  app.add_option("--bandwidth", o.bandwidth, "model-only roofline bandwidth, bytes/s (measured rows use their run's copy_gbps)");
  app.add_option("--seed", o.seed, "Monte Carlo seed");
  app.add_option("--only", o.only, "notebook numbers to build (1-7)");
  app.add_flag("--quick", o.quick, "10x fewer Monte Carlo rows");
  CLI11_PARSE(app, argc, argv);
  try {
    for (const auto& f : warpsparse::notebooks::build_all(o))
      fmt::print("{}\n", std::filesystem::absolute(f).string());
  } catch (const std::exception& e) {
    fmt::print(stderr, "ws_notebooks: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
