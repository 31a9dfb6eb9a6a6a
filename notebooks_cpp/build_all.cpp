// Runs the notebooks and writes an index page linking their reports.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "notebooks_cpp/nb_common.hpp"
#include "reference/common/error.hpp"

namespace warpsparse::notebooks {

std::vector<std::string> build_all(const Options& o) {
  struct Entry {
    int number;
    const char* title;
    std::string (*run)(const Options&);
  };
  const Entry entries[] = {
      {1, "The blog's storage table from the models, with Monte Carlo columns", storage_table},
      {2, "Paper Figure 2: effd vs density for all formats, with Monte Carlo points; crossovers", effd_figure2},
      {3, "Exact vs asymptotic vs Monte Carlo padding across row lengths", padding_row_length},
      {4, "Pattern families vs the uniform expectation", pattern_families},
      {5, "Roofline: predicted and measured SpMV time and speedup", roofline},
      {6, "2:4 sparse GEMM: warpsparse kernels vs cuSPARSELt and dense cuBLAS (measured)", sparse24},
  };
  // Every option is checked, and the output folder made, before the first notebook spends its time.
  require(std::isfinite(o.bandwidth) && o.bandwidth > 0,
          fmt::format("--bandwidth {} is not a positive number of bytes per second", o.bandwidth));
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  require(!ec && std::filesystem::is_directory(o.out_dir), o.out_dir + ": cannot create the output folder" +
                                                                 (ec ? ": " + ec.message() : std::string()));
  const std::string probe = (std::filesystem::path(o.out_dir) / ".write-test").string();
  require(static_cast<bool>(std::ofstream(probe)), o.out_dir + ": cannot write into the output folder");
  std::filesystem::remove(probe, ec);
  std::vector<std::string> written;
  std::string items;
  for (const auto& e : entries) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), e.number) == o.only.end()) continue;
    const auto t0 = std::chrono::steady_clock::now();
    fmt::print(stderr, "notebook {}: {} ...\n", e.number, e.title);
    const std::string path = e.run(o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(stderr, "notebook {}: {:.1f} s -> {}\n", e.number, s, path);
    written.push_back(path);
    const std::string name = std::filesystem::path(path).filename().string();
    items += fmt::format("<li><a href=\"{}\">{}. {}</a> ({:.1f} s)</li>\n", name, e.number, e.title, s);
  }
  const std::string index = (std::filesystem::path(o.out_dir) / "index.html").string();
  std::ofstream(index) << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>warpsparse reports"
                          "</title></head><body style=\"font-family:sans-serif;max-width:900px;margin:2em auto\">"
                          "<h1>warpsparse analysis reports</h1><ol style=\"list-style:none;padding:0\">\n"
                       << items << "</ol></body></html>\n";
  written.push_back(index);
  return written;
}

}  // namespace warpsparse::notebooks
