// Runs the notebooks and writes an index page linking their reports.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "notebooks_cpp/nb_common.hpp"
#include "reference/common/error.hpp"
#include "ws_git_commit.h"

namespace warpsparse::notebooks {

namespace {

namespace fs = std::filesystem;

std::string escape(const std::string& s) {
  std::string o;
  for (const char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return o;
}

// The commit the report program was built from (ws_git_commit.h, as every program reports it).
std::string source_commit() {
  const std::string c = WS_GIT_COMMIT_BUILD;
  return c.empty() ? "unknown (not built from a git checkout)" : c;
}

// One line per GPU folder of the results: its programs' files and the newest run's date, taken from
// the UTC stamp in the file names (<program>_<YYYYMMDD>T<HHMMSS>Z[_<part>].csv).
std::string gpu_summary(const std::string& bench_dir) {
  std::error_code ec;
  if (!fs::is_directory(bench_dir, ec)) return "<li>none: " + escape(bench_dir) + " does not exist</li>";
  const std::regex stamp(R"(^(.+?)_(\d{8})T(\d{6})Z(?:_[a-z]+)?\.csv$)");
  std::map<std::string, std::map<std::string, std::pair<int, std::string>>> by;  // gpu -> program -> (files, newest)
  for (const auto& g : fs::directory_iterator(bench_dir, ec)) {
    if (!g.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(g.path(), ec)) {
      std::smatch m;
      const std::string name = f.path().filename().string();
      if (!std::regex_match(name, m, stamp)) continue;
      auto& e = by[g.path().filename().string()][m[1]];
      ++e.first;
      e.second = std::max(e.second, m[2].str());
    }
  }
  if (by.empty()) return "<li>none: no result files under " + escape(bench_dir) + "</li>";
  std::string out;
  for (const auto& [gpu, progs] : by) {
    std::string parts;
    for (const auto& [prog, e] : progs)
      parts += fmt::format("{}{} ({} files, newest {}-{}-{})", parts.empty() ? "" : "; ", prog, e.first,
                           e.second.substr(0, 4), e.second.substr(4, 2), e.second.substr(6, 2));
    out += "<li><b>" + escape(gpu) + "</b>: " + escape(parts) + "</li>\n";
  }
  return out;
}

}  // namespace

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
      {7, "EC-CSR storage against MACKO and CSR-32; padding against the EC-SpMV paper's Table 2", ec_storage},
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
    const fs::path p(path);
    nlohmann::json lead;
    std::ifstream(p.parent_path() / (p.stem().string() + ".json")) >> lead;
    items += fmt::format("<li><a href=\"{}\"><b>{}. {}</b></a> <span class=\"t\">({:.1f} s)</span><br><i>{}</i><br>{}</li>\n",
                         p.filename().string(), e.number, escape(e.title), s, escape(lead.value("question", "")),
                         escape(lead.value("answer", "")));
  }
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  const std::string index = (fs::path(o.out_dir) / "index.html").string();
  std::ofstream(index)
      << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>warpsparse reports</title><style>"
         "body{font-family:system-ui,Helvetica,Arial,sans-serif;max-width:1060px;margin:2em auto;padding:0 1em;color:#222;"
         "line-height:1.45}ol{padding-left:0;list-style:none}li{margin:0 0 1.1em}.t{color:#777;font-size:0.85em}"
         "dl{display:grid;grid-template-columns:max-content auto;gap:0.2em 1em}dt{font-weight:600}</style></head><body>"
         "<h1>warpsparse analysis reports</h1>\n<dl><dt>built</dt><dd>"
      << date << "</dd><dt>commit</dt><dd><code>" << escape(source_commit()) << "</code></dd><dt>seed</dt><dd>" << o.seed
      << (o.quick ? " (quick mode: 10x fewer Monte Carlo rows)" : "") << "</dd><dt>results read</dt><dd><code>"
      << escape(o.bench_dir) << "</code><ul>" << gpu_summary(o.bench_dir)
      << "</ul></dd></dl>\n<p>Each page opens with the question it answers and the answer; the figures' data, gnuplot "
         "scripts and every table as CSV are in the page's folder.</p>\n<ol>\n"
      << items << "</ol></body></html>\n";
  written.push_back(index);
  return written;
}

}  // namespace warpsparse::notebooks
