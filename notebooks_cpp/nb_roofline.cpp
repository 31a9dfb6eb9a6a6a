// Notebook 5: the bandwidth roofline. Predicted SpMV time and speedup over dense for each format
// (paper §3.1), the bytes the MACKO warp model's access pattern touches (emulator sector counts),
// and — when GPU benchmark results exist under bench/results/<gpu>/*.csv — measured time against
// predicted and measured speedup vs density per shape (paper Figures 4/5), on single-vector rows;
// rows of batched products (ws_bench_macko --batch) get their own section.
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/effd.hpp"
#include "analysis/patterns.hpp"
#include "notebooks_cpp/nb_common.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_policy.hpp"
#include "reference/macko/macko_spmv_model.hpp"

namespace warpsparse::notebooks {

namespace {
namespace fs = std::filesystem;
using namespace analysis;

struct BenchRow {
  std::string file, gpu, kernel, pattern, value_type;
  std::int64_t rows = 0, cols = 0;
  int batch = 1;                        // vectors per product; files from before --batch have no column: 1
  int value_bits = 16, delta_bits = 4;  // from value_type / delta_bits when present
  double density = 0, median_us = 0, p10_us = 0, p90_us = 0, bytes = 0, gbps = 0, pct_copy_bw = 0;
  double bandwidth = 0;  // bytes/s used to predict this row: the run's measured copy bandwidth
  bool bandwidth_measured = false;
};

// Reads bench/results/<gpu>/macko*.csv (ws_bench_macko's files; other programs' files are only
// counted in `others`); rows missing the needed columns are skipped and counted. Each row carries
// the copy bandwidth of its run's .meta.json, else of another run on the same GPU, else `fallback`.
std::vector<BenchRow> read_bench(const std::string& dir, double fallback, std::vector<std::string>& files,
                                 std::vector<std::string>& others, int& skipped) {
  using bench_results::to_d;
  std::vector<BenchRow> out;
  skipped = 0;
  const auto tables = bench_results::read_all(dir, "macko", &others);
  std::map<std::string, std::vector<double>> gpu_bw;  // per <gpu> folder, from every meta file
  std::vector<std::optional<double>> file_bw;
  for (const auto& t : tables) {
    file_bw.push_back(bench_results::meta_copy_bandwidth(t.path));
    if (file_bw.back()) gpu_bw[t.gpu_dir].push_back(*file_bw.back());
  }
  for (std::size_t ti = 0; ti < tables.size(); ++ti) {
    const auto& t = tables[ti];
    files.push_back(t.path.string());
    double bw = fallback;
    bool measured = false;
    if (file_bw[ti]) {
      bw = *file_bw[ti];
      measured = true;
    } else if (const auto it = gpu_bw.find(t.gpu_dir); it != gpu_bw.end()) {
      auto v = it->second;
      std::sort(v.begin(), v.end());
      bw = v[v.size() / 2];
      measured = true;
    }
    for (const auto& f : t.rows) {
      auto get = [&](const char* name) { return t.get(f, name); };
      BenchRow r;
      r.file = t.path.string();
      r.gpu = get("gpu");
      if (r.gpu.empty()) r.gpu = t.gpu_dir;
      r.kernel = get("kernel");
      r.pattern = get("pattern");
      const std::string vt = get("value_type");
      r.value_type = vt;
      r.value_bits = vt == "fp32" ? 32 : (vt == "int8" ? 8 : 16);
      const double nb = to_d(get("batch"));
      if (std::isfinite(nb)) r.batch = static_cast<int>(nb);
      const double db = to_d(get("delta_bits"));
      if (std::isfinite(db) && (db == 1 || db == 2 || db == 4 || db == 8)) r.delta_bits = static_cast<int>(db);
      r.rows = static_cast<std::int64_t>(to_d(get("rows")));
      r.cols = static_cast<std::int64_t>(to_d(get("cols")));
      r.density = to_d(get("density"));
      r.median_us = to_d(get("median_us"));
      r.p10_us = to_d(get("p10_us"));
      r.p90_us = to_d(get("p90_us"));
      r.bytes = to_d(get("bytes"));
      r.gbps = to_d(get("gbps"));
      r.pct_copy_bw = to_d(get("pct_copy_bw"));
      r.bandwidth = bw;
      r.bandwidth_measured = measured;
      if (r.kernel.empty() || r.rows <= 0 || r.cols <= 0 || r.batch < 1 || !std::isfinite(r.median_us) ||
          !std::isfinite(r.density)) {
        ++skipped;
        continue;
      }
      out.push_back(r);
    }
  }
  return out;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The format whose bytes a kernel moves, from its name; false when unknown.
bool kernel_format(const std::string& kernel, Format& f) {
  const std::string k = lower(kernel);
  if (k.find("macko") != std::string::npos) f = Format::macko_expected;
  else if (k.find("cublas") != std::string::npos || k.find("dense") != std::string::npos || k.find("gemv") != std::string::npos) f = Format::dense;
  else if (k.find("cusparse") != std::string::npos || k.find("csr") != std::string::npos) f = Format::csr32;
  else return false;
  return true;
}
bool is_dense_kernel(const std::string& kernel) {
  Format f;
  return kernel_format(kernel, f) && f == Format::dense;
}
// The uniform random pattern (exact nnz per row), the one the speedup figures draw.
bool uniform_pattern(const std::string& p) {
  const std::string q = lower(p);
  return q.empty() || q == "exact_nnz" || q == "uniform" || q == "random";
}
// A multiplot of n panels in two columns (one when n = 1): its layout and pixel size.
void two_column_grid(Plot& f, int n, int title_px, int panel_px) {
  const int cols = n <= 1 ? 1 : 2;
  const int prow = (n + cols - 1) / cols;
  f.layout = fmt::format("{},{}", prow, cols);
  f.width = cols == 1 ? 900 : 1200;
  f.height = title_px + panel_px * prow;
}

// MACKO against two streaming bounds measured in the same run (ws_bench_macko --kernels
// read,row_stream; bench/stream_baselines.hpp): each time over the coalesced read of the same bytes.
template <class Uniform>
void bounds_section(Report& rep, const std::vector<BenchRow>& bench, const Uniform& uniform) {
  struct Key {
    std::string file, gpu;
    std::int64_t rows, cols;
    double density;
    auto operator<=>(const Key&) const = default;
  };
  enum { kRead, kRowStream, kMacko };
  std::map<Key, std::array<double, 3>> cells;  // fastest median per kernel (MACKO: over its schedules)
  for (const auto& b : bench) {
    if (!uniform(b.pattern)) continue;
    const int k = b.kernel == "read" ? kRead : b.kernel == "row_stream" ? kRowStream : b.kernel == "macko" ? kMacko : -1;
    if (k < 0) continue;
    auto& v = cells.try_emplace(Key{b.file, b.gpu, b.rows, b.cols, b.density},
                                std::array<double, 3>{std::nan(""), std::nan(""), std::nan("")})
                  .first->second;
    if (!(v[k] <= b.median_us)) v[k] = b.median_us;
  }
  // gpu -> density -> shape (by element count) -> the three times; a later file replaces an earlier one.
  std::map<std::string, std::map<double, std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::array<double, 3>>,
                                 std::greater<>>>
      by;
  for (const auto& [key, v] : cells)
    if (std::isfinite(v[kRead]) && std::isfinite(v[kRowStream]) && std::isfinite(v[kMacko]))
      by[key.gpu][key.density][{key.rows * key.cols, key.rows, key.cols}] = v;
  if (by.empty()) return;
  rep.heading("MACKO against its own loads");
  rep.para(
      "Two bounds measured in the same runs as MACKO: `read` reads the MACKO arrays once, coalesced over the whole "
      "grid, and computes nothing; `row_stream` issues exactly the default schedule's loads (a warp per row, ROMA "
      "start, one group in flight) and XORs them instead of computing. Over the read, row_stream is what the access "
      "pattern costs; MACKO over row_stream is what its arithmetic (prefix sums, gathers, FMAs) adds on top.");
  int gi = 0;
  for (const auto& [gpu, dens] : by) {
    Plot f;
    f.name = figure_name("bounds", gi);
    ++gi;
    f.title = fmt::format("{}: time over a coalesced read of the same bytes", gpu);
    two_column_grid(f, static_cast<int>(dens.size()), 80, 420);
    std::vector<std::vector<std::string>> rows;
    bool first = true;
    for (const auto& [d, shapes] : dens) {
      Plot pn;
      pn.name = f.name;
      pn.title = fmt::format("d = {}", num(d, 2));
      pn.ylabel = "time / read time";
      pn.key = first ? "top left font ',10'" : "off";
      first = false;
      std::string tics = "set xtics rotate by -40 font ',9' (";
      Series rs{"row_stream (MACKO's loads only)", {}, {}, {}, {}, "linespoints", "pt 5 ps 0.9 lc rgb '#ff7f0e'"};
      Series mk{"MACKO", {}, {}, {}, {}, "linespoints", "pt 7 ps 1.0 lc rgb '#1f77b4'"};
      int i = 0;
      for (const auto& [shape, v] : shapes) {
        const auto [elems, r, c] = shape;
        tics += fmt::format("{}'{}x{}' {}", i ? ", " : "", r, c, i);
        rs.x.push_back(i);
        rs.y.push_back(v[kRowStream] / v[kRead]);
        mk.x.push_back(i);
        mk.y.push_back(v[kMacko] / v[kRead]);
        rows.push_back({num(d, 2), fmt::format("{}x{}", r, c), num(v[kRead], 1), num(v[kRowStream], 1),
                        num(v[kMacko], 1), num(v[kRowStream] / v[kRead], 2), num(v[kMacko] / v[kRowStream], 2)});
        ++i;
      }
      pn.extra = {tics + ")", "set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#555555' lw 1.2"};
      pn.xrange = fmt::format("[-0.5:{}]", i - 0.5);
      pn.yrange = "[0.9:*]";
      pn.series = {rs, mk};
      f.panels.push_back(pn);
    }
    rep.figure(f, fmt::format("{}: per shape and density, row_stream's and MACKO's median time divided by the read's "
                              "(1 = a coalesced read of the same bytes; the copy baseline lies within 2 % of it).",
                              gpu));
    rep.table({"d", "shape", "read (us)", "row_stream (us)", "MACKO (us)", "row_stream / read", "MACKO / row_stream"},
              rows, gpu + ": the times behind the figure (medians; MACKO's fastest swept schedule).");
  }
}

// The measured sections on single-vector rows (batch 1): time against the roofline, speedup over
// cuBLAS GEMV per shape, the other pattern families, and the streaming bounds.
void single_vector_sections(Report& rep, const std::vector<BenchRow>& bench, const StorageConfig& base,
                            std::map<std::string, std::pair<double, bool>>& gpu_bw) {
  if (bench.empty()) {
    rep.para("No single-vector (batch 1) rows are present, so only the batched section below has measurements.");
    return;
  }
  // Measured vs predicted.
  Plot mp;
  mp.name = "measured_vs_predicted";
  mp.title = "Measured median time vs roofline prediction (each GPU's measured copy bandwidth)";
  mp.xlabel = "predicted time (us)";
  mp.ylabel = "measured median time (us)";
  mp.logx = mp.logy = true;
  mp.key = "outside right top";
  mp.width = 1100;
  std::map<std::string, Series> by_kernel;
  struct Ratio {
    std::vector<double> r;
  };
  std::map<std::pair<std::string, std::string>, Ratio> ratios;
  double lo = 1e300, hi = 0;
  for (const auto& b : bench) {
    Format f;
    if (!kernel_format(b.kernel, f)) continue;
    StorageConfig c = base;
    c.shape = {b.rows, b.cols};
    c.value_bits = b.value_bits;
    c.delta_bits = b.delta_bits;
    const double pred_us = analysis::roofline(f, b.density, c, b.bandwidth).seconds * 1e6;
    auto& s = by_kernel[b.gpu + " " + b.kernel];
    s.title = b.gpu + " " + b.kernel;
    s.style = "errorbars";
    s.x.push_back(pred_us);
    s.y.push_back(b.median_us);
    s.ylo.push_back(std::isfinite(b.p10_us) ? b.p10_us : b.median_us);
    s.yhi.push_back(std::isfinite(b.p90_us) ? b.p90_us : b.median_us);
    lo = std::min({lo, pred_us, b.median_us});
    hi = std::max({hi, pred_us, b.median_us});
    ratios[{b.gpu, b.kernel}].r.push_back(b.median_us / pred_us);
  }
  int k = 0;
  for (auto& [name, s] : by_kernel) {
    s.extra = fmt::format("pt {} ps 0.9 lc {}", 5 + k % 6, k + 1);
    ++k;
    mp.series.push_back(s);
  }
  if (hi > 0) {
    Series diag;
    diag.title = "measured = predicted";
    diag.x = {lo * 0.8, hi * 1.25};
    diag.y = diag.x;
    diag.extra = "lw 1 dt 2 lc rgb 'black'";
    mp.series.push_back(diag);
  }
  rep.figure(mp, "Each point one measured configuration (p10–p90 bars) against its roofline time at that GPU's measured "
                 "copy bandwidth. MACKO kernels are predicted from the expected-case effd, cuSPARSE/CSR kernels from "
                 "CSR32, cuBLAS from dense.");
  {
    std::vector<std::vector<std::string>> rt;
    for (auto& [key, v] : ratios) {
      auto r = v.r;
      std::sort(r.begin(), r.end());
      rt.push_back({key.first, key.second, std::to_string(r.size()), num(r.front(), 2), num(r[r.size() / 2], 2),
                    num(r.back(), 2)});
    }
    rep.table({"gpu", "kernel", "rows", "min measured/predicted", "median", "max"}, rt,
              "Measured over predicted time per kernel (1.0: at the copy-bandwidth roofline).");
  }

  // Speedup over cuBLAS vs density, one panel per shape (paper Figures 4 and 5).
  enum Kind { k_macko, k_cusparse, k_csr, k_dense, k_other };
  auto kind_of = [](const std::string& kernel) {
    const std::string kk = lower(kernel);
    if (kk.find("macko") != std::string::npos) return k_macko;
    if (kk.find("cusparse") != std::string::npos) return k_cusparse;
    if (kk.find("csr") != std::string::npos) return k_csr;
    if (is_dense_kernel(kernel)) return k_dense;
    return k_other;
  };
  // cuBLAS time for a row: the dense row of the same GPU, shape, density and pattern, else the median of
  // that GPU and shape's dense rows (its time does not depend on density).
  auto dense_us_for = [&](const BenchRow& b) {
    std::vector<double> all;
    for (const auto& d : bench)
      if (d.gpu == b.gpu && d.rows == b.rows && d.cols == b.cols && kind_of(d.kernel) == k_dense) {
        if (std::abs(d.density - b.density) < 1e-9 && d.pattern == b.pattern && d.file == b.file) return d.median_us;
        all.push_back(d.median_us);
      }
    if (all.empty()) return std::nan("");
    std::sort(all.begin(), all.end());
    return all[all.size() / 2];
  };
  struct Cell {
    double speedup = 0, pct_bw = std::nan("");
  };
  // gpu -> shape -> kind -> density -> best cell (several schedules of one kernel: the fastest).
  std::map<std::string, std::map<std::pair<std::int64_t, std::int64_t>, std::map<int, std::map<double, Cell>>>> sp_;
  std::vector<std::vector<std::string>> fam;
  for (const auto& b : bench) {
    const Kind kd = kind_of(b.kernel);
    if (kd == k_dense || kd == k_other) continue;
    const double dus = dense_us_for(b);
    if (!std::isfinite(dus)) continue;
    const double speedup = dus / b.median_us;
    if (!uniform_pattern(b.pattern)) {
      if (kd == k_macko)
        fam.push_back({b.gpu, fmt::format("{}x{}", b.rows, b.cols), b.pattern, num(b.density, 2),
                       num(speedup, 2) + "x", std::isfinite(b.pct_copy_bw) ? num(b.pct_copy_bw, 1) + "%" : "-"});
      continue;
    }
    auto& cell = sp_[b.gpu][{b.rows, b.cols}][kd][b.density];
    if (speedup > cell.speedup) cell = {speedup, b.pct_copy_bw};
  }
  if (sp_.empty()) {
    rep.para("No cuBLAS rows share a GPU and shape with a sparse kernel, so no measured speedups can be formed.");
    return;
  }
  const char* kind_title[] = {"MACKO", "cuSPARSE CSR", "our CSR kernel"};
  const char* kind_style[] = {"pt 7 ps 1.1 lw 2 lc rgb '#1f77b4'", "pt 5 ps 0.9 lw 1.5 lc rgb '#d62728'",
                              "pt 9 ps 1.0 lw 1.5 lc rgb '#2ca02c'"};
  int gi = 0;
  for (const auto& [gpu, shapes_m] : sp_) {
    const double bw = gpu_bw[gpu].first;
    Plot mf;
    mf.name = figure_name("measured_speedup", gi);
    ++gi;
    mf.title = fmt::format("{}: speedup over cuBLAS GEMV vs density, uniform random, fp16 (roofline at {:.0f} GB/s)",
                           gpu, bw / 1e9);
    two_column_grid(mf, static_cast<int>(shapes_m.size()), 60, 400);
    bool first = true;
    for (const auto& [shape, by_kind] : shapes_m) {
      Plot pn;
      pn.name = mf.name;
      pn.title = fmt::format("{} x {}", shape.first, shape.second);
      pn.xlabel = "density";
      pn.ylabel = "speedup over cuBLAS";
      pn.logy = true;
      pn.xrange = "[0:1.02]";
      pn.key = first ? "top right font ',10'" : "off";
      pn.extra = {"set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#555555' lw 1.2",
                  "set xtics 0.1"};
      first = false;
      for (const auto& [kd, dens] : by_kind) {
        Series s;
        s.title = kind_title[kd];
        s.style = "linespoints";
        s.extra = kind_style[kd];
        for (const auto& [d, cell] : dens) {
          s.x.push_back(d);
          s.y.push_back(cell.speedup);
        }
        pn.series.push_back(s);
      }
      StorageConfig c = base;
      c.shape = {shape.first, shape.second};
      for (const Format f : {Format::macko_expected, Format::csr32}) {
        Series line;
        line.title = f == Format::csr32 ? "roofline CSR (32-bit)" : "roofline MACKO (expected effd)";
        for (int i = 1; i <= 50; ++i) {
          const double d = i / 50.0;
          line.x.push_back(d);
          line.y.push_back(analysis::roofline(f, d, c, bw).speedup_vs_dense);
        }
        line.extra = f == Format::csr32 ? "lw 1.2 dt 3 lc rgb '#d62728'" : "lw 1.5 dt 2 lc rgb '#1f77b4'";
        pn.series.push_back(line);
      }
      mf.panels.push_back(pn);
    }
    rep.figure(mf, fmt::format(
                       "{}: measured speedup of each sparse kernel over cuBLAS GEMV on the same shape (points; the "
                       "fastest schedule per density), against the roofline speedup — dense bytes over the format's "
                       "bytes, which tends to 1/effd (dashed). The grey line is parity with cuBLAS. Roofline ratios do "
                       "not depend on the bandwidth; the absolute predictions above use {:.0f} GB/s.",
                       gpu, bw / 1e9));
    // MACKO table: speedup over cuBLAS and % of copy bandwidth per shape x density.
    std::set<double, std::greater<>> dset;
    for (const auto& [shape, by_kind] : shapes_m)
      if (const auto it = by_kind.find(k_macko); it != by_kind.end())
        for (const auto& [d, cell] : it->second) dset.insert(d);
    if (dset.empty()) continue;
    std::vector<std::string> hdr = {"shape"};
    for (const double d : dset) hdr.push_back("d=" + num(d, 2));
    std::vector<std::vector<std::string>> mt;
    for (const auto& [shape, by_kind] : shapes_m) {
      const auto it = by_kind.find(k_macko);
      if (it == by_kind.end()) continue;
      std::vector<std::string> r = {fmt::format("{}x{}", shape.first, shape.second)};
      StorageConfig c = base;
      c.shape = {shape.first, shape.second};
      for (const double d : dset) {
        const auto ct = it->second.find(d);
        if (ct == it->second.end()) {
          r.push_back("-");
          continue;
        }
        const double pred = analysis::roofline(Format::macko_expected, d, c, bw).speedup_vs_dense;
        r.push_back(fmt::format("{:.2f}x (roofline {:.2f}x), {}", ct->second.speedup, pred,
                                std::isfinite(ct->second.pct_bw) ? num(ct->second.pct_bw, 0) + "% copy bw" : "-"));
      }
      mt.push_back(r);
    }
    rep.table(hdr, mt,
              fmt::format("{}: MACKO's measured speedup over cuBLAS GEMV (fastest schedule), the roofline speedup for the "
                          "same shape and density, and MACKO's effective bandwidth as % of the measured copy bandwidth "
                          "({:.0f} GB/s). Uniform random patterns with exact nnz.",
                          gpu, bw / 1e9));
  }
  if (!fam.empty())
    rep.table({"gpu", "shape", "pattern", "density", "MACKO speedup over cuBLAS", "% copy bw"}, fam,
              "MACKO on the other pattern families (not in the figure above).");
  bounds_section(rep, bench, uniform_pattern);
}


// Batched products (ws_bench_macko --batch: B vectors at once, x and y of B columns, the matrix read
// once): MACKO's speedup over cuBLAS at the same batch (GEMV at B = 1, GEMM with N = B above) against
// density, per shape, from the runs that measured a batch > 1; their own batch-1 rows give the B = 1
// line, so every point compares kernels of one run.
void batch_section(Report& rep, const std::vector<BenchRow>& measured) {
  rep.heading("Batched SpMV: several vectors at once");
  std::set<std::string> files;
  for (const auto& b : measured)
    if (b.batch > 1) files.insert(b.file);
  if (files.empty()) {
    rep.para("No results with batch > 1 are present (`ws_bench_macko --batch 1,2,4,8` measures them).");
    return;
  }
  struct Panel {
    std::string gpu;
    std::int64_t rows, cols;
    std::string value_type;
    auto operator<=>(const Panel&) const = default;
  };
  enum { kMacko, kCublas };
  using Times = std::map<Panel, std::map<int, std::map<double, std::array<double, 2>>>>;  // panel -> B -> d
  // Per file: the fastest MACKO schedule and the cuBLAS time of each point; then a later file's
  // points replace an earlier file's (files are read in time order).
  std::map<std::string, Times> by_file;
  for (const auto& b : measured) {
    if (!files.count(b.file) || !uniform_pattern(b.pattern)) continue;
    const bool macko = b.kernel == "macko";
    if (!macko && !is_dense_kernel(b.kernel)) continue;
    auto& v = by_file[b.file][{b.gpu, b.rows, b.cols, b.value_type}][b.batch]
                  .try_emplace(b.density, std::array<double, 2>{std::nan(""), std::nan("")})
                  .first->second;
    double& t = v[macko ? kMacko : kCublas];
    if (!(t <= b.median_us)) t = b.median_us;
  }
  Times times;
  for (const auto& [file, t] : by_file)
    for (const auto& [panel, batches] : t)
      for (const auto& [nb, dens] : batches)
        for (const auto& [d, v] : dens)
          if (std::isfinite(v[kMacko]) && std::isfinite(v[kCublas])) times[panel][nb][d] = v;
  // Only the shapes measured at some batch > 1.
  std::map<std::string, std::vector<std::pair<Panel, std::map<int, std::map<double, std::array<double, 2>>>>>> by_gpu;
  for (const auto& [panel, batches] : times)
    if (batches.rbegin()->first > 1) by_gpu[panel.gpu].push_back({panel, batches});
  rep.para("`ws_bench_macko --batch B` multiplies B vectors at once: x is cols x B and y rows x B, both row-major, "
           "so MACKO reads the matrix once for all B and gathers each column's B values in one load. The baseline "
           "at the same batch is cuBLAS GEMM with N = B (`cublas_gemm`; GEMV at B = 1). Each point is the fastest "
           "MACKO schedule of that batch over cuBLAS's time, both from the same run.");
  if (by_gpu.empty()) {
    rep.para("No batched MACKO row has a cuBLAS row of the same run, shape, density and batch beside it.");
    return;
  }
  const std::map<int, std::string> style = {{1, "pt 7 ps 1.0 lw 2 lc rgb '#1f77b4'"},
                                            {2, "pt 5 ps 0.9 lw 1.5 lc rgb '#ff7f0e'"},
                                            {4, "pt 9 ps 1.0 lw 1.5 lc rgb '#2ca02c'"},
                                            {8, "pt 11 ps 1.0 lw 1.5 lc rgb '#d62728'"}};
  int gi = 0;
  for (const auto& [gpu, panels] : by_gpu) {
    Plot f;
    f.name = figure_name("batched_speedup", gi);
    ++gi;
    f.title = fmt::format("{}: MACKO's speedup over cuBLAS with B vectors at once (GEMV at B = 1, GEMM with N = B)", gpu);
    two_column_grid(f, static_cast<int>(panels.size()), 60, 400);
    std::vector<std::vector<std::string>> rows;
    bool first = true;
    for (const auto& [panel, batches] : panels) {
      const std::string shape = fmt::format("{}x{}{}", panel.rows, panel.cols,
                                            panel.value_type.empty() || panel.value_type == "fp16"
                                                ? ""
                                                : " (" + panel.value_type + ")");
      Plot pn;
      pn.name = f.name;
      pn.title = fmt::format("{} x {}{}", panel.rows, panel.cols,
                             panel.value_type.empty() ? "" : ", " + panel.value_type);
      pn.xlabel = "density";
      pn.ylabel = "speedup over cuBLAS (same B)";
      pn.logy = true;
      pn.xrange = "[0:1.02]";
      pn.key = first ? "top right font ',10'" : "off";
      pn.extra = {"set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#555555' lw 1.2", "set xtics 0.1"};
      first = false;
      for (const auto& [nb, dens] : batches) {
        Series s;
        s.title = fmt::format("B = {}", nb);
        s.style = "linespoints";
        const auto st = style.find(nb);
        s.extra = st != style.end() ? st->second : "pt 13 ps 1.0 lw 1.5";
        for (const auto& [d, v] : dens) {
          s.x.push_back(d);
          s.y.push_back(v[kCublas] / v[kMacko]);
        }
        pn.series.push_back(s);
      }
      f.panels.push_back(pn);
      // The table: densities from dense to sparse, batches in order.
      std::set<double, std::greater<>> ds;
      for (const auto& [nb, dens] : batches)
        for (const auto& [d, v] : dens) ds.insert(d);
      for (const double d : ds)
        for (const auto& [nb, dens] : batches)
          if (const auto it = dens.find(d); it != dens.end())
            rows.push_back({shape, num(d, 2), std::to_string(nb), num(it->second[kMacko], 1),
                            num(it->second[kCublas], 1), num(it->second[kCublas] / it->second[kMacko], 2) + "x",
                            num(it->second[kMacko] / nb, 1)});
    }
    rep.figure(f, fmt::format("{}: per shape, MACKO's speedup over cuBLAS at the same number of vectors B, one line "
                              "per B (MACKO: the fastest schedule measured; uniform random pattern with exact nnz). "
                              "The grey line is parity with cuBLAS.",
                              gpu));
    rep.table({"shape", "density", "batch", "MACKO (us)", "cuBLAS (us)", "speedup", "MACKO us per vector"}, rows,
              gpu + ": the times behind the figure (medians); us per vector is MACKO's time over B.");
  }
}
}  // namespace

// Row timelines of MACKO launches (bench/ws_macko_trace: <gpu>/rowtrace_macko_<time>.csv, the summary
// per case, and ..._busy.csv, the rows in progress per 0.5 us of one launch): the newest file of each
// kind per GPU.
void trace_section(Report& rep, const std::string& dir) {
  using bench_results::to_d;
  rep.heading("Where a launch's time goes (row timelines)");
  const auto tables = bench_results::read_all(dir, "rowtrace_macko");
  std::map<std::string, const bench_results::Table*> summary, busy;  // per <gpu> folder: the newest file
  for (const auto& t : tables) (t.col.count("t_us") ? busy : summary)[t.gpu_dir] = &t;
  if (summary.empty() && busy.empty()) {
    rep.para("No row timelines are present (`ws_macko_trace` writes `<gpu>/rowtrace_macko_*.csv` under the results "
             "folder).");
    return;
  }
  rep.para("`ws_macko_trace` (bench/) runs the MACKO kernels built with a row trace: for each row, when its warp "
           "started it (before its bounds load) and when it stored the row's output. A warp's rows follow each other "
           "without gaps, so what a launch loses shows at its ends: the first rows (x's copy, the first trips) and "
           "the drain, the time between the median warp's last store and the last warp's, while fewer and fewer "
           "warps stream (docs/macko-kernel.md).");
  for (const auto& [gpu, t] : summary) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : t->rows) {
      auto f = [&](const char* c, int dec) { return num(to_d(t->get(r, c)), dec); };
      rows.push_back({t->get(r, "rows") + "x" + t->get(r, "cols"), t->get(r, "density"), t->get(r, "schedule"),
                      t->get(r, "warps"), f("event_us", 1), f("span_us", 1), f("first_row_us", 2), f("row_us", 2),
                      f("end_p50_us", 1), f("end_max_us", 1), f("drain_us", 1)});
    }
    rep.table({"shape", "d", "schedule", "warps", "launch us", "rows' span", "first row", "later rows", "warps end p50",
               "last warp ends", "drain"},
              rows,
              fmt::format("{} (`{}`): medians over the traced launches; times in us from the first row's start, "
                          "the launch timed as ws_bench_macko times it, trace off.",
                          gpu, t->path.filename().string()));
  }
  for (const auto& [gpu, t] : busy) {
    std::map<std::string, Series> by_case;
    for (const auto& r : t->rows) {
      const std::string key = t->get(r, "rows") + "x" + t->get(r, "cols") + " d=" + t->get(r, "density");
      Series& s = by_case[key];
      s.title = key;
      s.x.push_back(to_d(t->get(r, "t_us")));
      s.y.push_back(to_d(t->get(r, "rows_in_progress")));
    }
    Plot p;
    p.name = "row_timeline_" + gpu;
    p.title = "Rows in progress during one launch (" + gpu + ")";
    p.xlabel = "time since the first row started (us)";
    p.ylabel = "rows in progress";
    p.key = "bottom left";
    for (auto& [k, s] : by_case) {
      s.extra = "lw 1.5";
      p.series.push_back(std::move(s));
    }
    rep.figure(p, fmt::format("`{}`: a warp holds one row at a time (two with two rows per warp), so the plateau is "
                              "the resident warps; the fall at the end is the drain.",
                              t->path.filename().string()));
  }
}

std::string roofline(const Options& o) {
  Report rep("05_roofline", "Notebook 5 — roofline: predicted and measured SpMV time");
  rep.para(provenance(o));
  rep.para(fmt::format(
      "SpMV is bandwidth bound (macko-paper.txt §3.1: compute intensity about d/effd ≪ ops per byte), so the "
      "predicted time is (matrix bytes + vector bytes)/bandwidth with matrix bytes = effd·R·C·b_val/8 and vector bytes "
      "= (R + C)·b_val/8 (x read once, y written once). The model part of this report (before 'Measured results') "
      "uses {:.2f} TB/s (--bandwidth; default: the measured H100 copy bandwidth, read + write); measured rows are "
      "predicted with their own GPU's measured copy bandwidth from the run's .meta.json. The predicted speedup over dense is the ratio of bytes, "
      "which tends to 1/effd for large matrices (paper §6: 'theoretically 1.6× at sparsity 50%').",
      o.bandwidth / 1e12));
  const StorageConfig base;
  // Predicted speedup vs density for a few Appendix D shapes.
  const std::vector<Shape> shapes = {{4096, 4096}, {4096, 11008}, {11008, 4096}, {12288, 12288}, {36864, 12288}};
  Plot sp;
  sp.name = "predicted_speedup";
  sp.title = "Predicted speedup over dense (roofline, fp16; a ratio of bytes, so the same at any bandwidth)";
  sp.xlabel = "sparsity";
  sp.ylabel = "speedup over dense";
  sp.logy = true;
  sp.xrange = "[0:0.95]";
  sp.key = "top left";
  for (const auto& s : shapes) {
    StorageConfig c = base;
    c.shape = s;
    Series m;
    m.title = fmt::format("MACKO expected {}x{}", s.rows, s.cols);
    for (double sparsity = 0.0; sparsity <= 0.95 + 1e-9; sparsity += 0.025) {
      m.x.push_back(sparsity);
      m.y.push_back(analysis::roofline(Format::macko_expected, 1 - sparsity, c, o.bandwidth).speedup_vs_dense);
    }
    m.extra = "lw 2";
    sp.series.push_back(m);
  }
  {
    StorageConfig c = base;
    c.shape = {12288, 12288};
    for (const Format f : {Format::csr32, Format::csr16, Format::macko_worst}) {
      Series s;
      s.title = format_name(f) + " 12288x12288";
      for (double sparsity = 0.0; sparsity <= 0.95 + 1e-9; sparsity += 0.025) {
        s.x.push_back(sparsity);
        s.y.push_back(analysis::roofline(f, 1 - sparsity, c, o.bandwidth).speedup_vs_dense);
      }
      s.extra = "lw 1.5 dt 2";
      sp.series.push_back(s);
    }
  }
  sp.extra = {"set arrow from 0,1 to 0.95,1 nohead lc rgb '#888888' dt 3"};
  rep.figure(sp, "Predicted speedup over dense vs sparsity (bytes moved only). Vector traffic matters only at high "
                 "sparsity and for small matrices.");
  std::vector<std::vector<std::string>> pt;
  for (const auto& s : shapes) {
    StorageConfig c = base;
    c.shape = s;
    const auto dn = analysis::roofline(Format::dense, 0.5, c, o.bandwidth);
    std::vector<std::string> r = {fmt::format("{}x{}", s.rows, s.cols), num(dn.seconds * 1e6, 1)};
    for (const double d : {0.7, 0.5, 0.3, 0.1}) {
      const auto m = analysis::roofline(Format::macko_expected, d, c, o.bandwidth);
      r.push_back(fmt::format("{:.1f} us ({:.2f}x)", m.seconds * 1e6, m.speedup_vs_dense));
    }
    pt.push_back(r);
  }
  rep.table({"shape", "dense us", "MACKO d=0.7", "d=0.5", "d=0.3", "d=0.1"}, pt,
            fmt::format("Predicted times at {:.2f} TB/s (--bandwidth) and speedups over dense.", o.bandwidth / 1e12));

  // Emulated access pattern.
  rep.heading("Bytes of the real access pattern (warp emulator)");
  rep.para("The MACKO warp model (reference/macko/macko_spmv_model.hpp) replays the kernel's loads on 32 emulated lanes "
           "and counts the 32-byte sectors each warp instruction touches. For a sample of rows of a 4096 x 4096 "
           "Bernoulli matrix, under the schedule the policy runs for that matrix on an H100 (macko::choose_schedule), "
           "the sectors of the matrix arrays (values, deltas, row pointers) are compared with the stored bytes; x "
           "gathers are listed separately (they mostly hit L1/L2 on a GPU, so DRAM sees far fewer).");
  std::vector<std::vector<std::string>> em;
  const std::int64_t sample_rows = o.quick ? 16 : 64, C = 4096;
  for (const double d : {0.1, 0.3, 0.5, 0.7}) {
    const auto m = generate<half>({Pattern::bernoulli, d, 0.0}, sample_rows, C, o.seed);
    const auto a = encode_macko(m);
    std::vector<half> x(static_cast<std::size_t>(C), from_float<half>(1.0f));
    macko::MatrixStats full = macko::matrix_stats(a);
    full.rows = C;  // the sample's rows stand for the whole 4096 x 4096 matrix
    const macko::Schedule runs = macko::choose_schedule(full, kH100);
    SpmvTraffic tr;
    (void)macko_spmv_model<half, half, half>(a, x, {}, 1.0f, 0.0f, runs, &tr);
    const double stored = double(a.storage_bytes());
    const double touched = 32.0 * double(tr.values.sectors + tr.deltas.sectors + tr.row_ptr.sectors);
    const double val_bytes = double(a.values.size() * sizeof(half)), delta_bytes = double(a.deltas.size());
    em.push_back({num(d, 1), macko::to_string(runs), fmt::format("{:.0f}", stored), fmt::format("{:.0f}", touched), num(touched / stored, 3),
                  num(32.0 * double(tr.values.sectors) / val_bytes, 3), num(32.0 * double(tr.deltas.sectors) / delta_bytes, 3),
                  num(32.0 * double(tr.row_ptr.sectors) / double(a.row_ptr.bytes()), 1),
                  fmt::format("{:.0f}", 32.0 * double(tr.x.sectors)), fmt::format("{:.0f}", double(C) * 2)});
  }
  rep.table({"d", "schedule", "stored bytes", "matrix sectors x 32 B", "touched / stored", "values", "deltas", "row pointers",
             "x gather sectors x 32 B", "x bytes (read once)"},
            em,
            fmt::format("{} rows x 4096 columns, fp16 values, 4-bit deltas; the values / deltas / row pointers columns "
                        "are touched/stored per array. A warp's value load (512 B) starts at a 16-byte aligned element "
                        "and its delta load (128 B) at a 4-byte aligned one, so a load usually straddles one more "
                        "32-byte sector than its size; each row also reads a whole sector for its two 4-byte row "
                        "pointers. The straddled sectors belong to the neighbouring load or row, so on a GPU they mostly hit L2: "
                        "the counts bound L2-to-SM traffic, while DRAM traffic stays near the stored bytes.",
                        sample_rows));

  // The x gathers per schedule: what lane_elems changes.
  rep.heading("x gathers by elements per lane (warp emulator)");
  rep.para("A gather instruction's cost in the L1 data path grows with the distinct 32-byte sectors and 128-byte "
           "lines its 32 lanes touch. With 8 elements per lane (the paper's layout) the lanes of one gather sit 8 "
           "elements apart; Schedule::lane_elems = 4 or 2 puts them 4 or 2 apart, at the price of a warp scan per "
           "128 or 64 elements. The warp model counts both per schedule on the same matrices. Measured on the H100 "
           "(docs/macko-schedule.md), the predicted saving did not turn into speed: E = 4 is 8-15% slower at d >= 0.3 and "
           "2-3% faster at d = 0.1, E = 2 is slower everywhere, so sectors per gather are not what limits the "
           "kernel; the default uses E = 4 only at d <= 0.15, and there not on long rows with x in shared "
           "memory, where 8 elements per lane were 10-17% faster.");
  std::vector<std::vector<std::string>> gx;
  for (const double d : {0.1, 0.3, 0.5, 0.7}) {
    const auto m = generate<half>({Pattern::bernoulli, d, 0.0}, sample_rows, C, o.seed);
    const auto a = encode_macko(m);
    std::vector<half> x(static_cast<std::size_t>(C), from_float<half>(1.0f));
    std::vector<std::string> row{num(d, 1)};
    for (const int e : {8, 4, 2}) {
      macko::Schedule s;
      s.lane_elems = e;
      SpmvTraffic tr;
      (void)macko_spmv_model<half, half, half>(a, x, {}, 1.0f, 0.0f, s, &tr);
      const double inst = double(tr.x.instructions);
      row.push_back(fmt::format("{:.1f} / {:.1f}", double(tr.x.sectors) / inst, double(tr.x.lines) / inst));
      row.push_back(num(double(tr.x.sectors) / double(a.nnz), 2));
    }
    gx.push_back(row);
  }
  rep.table({"d", "E=8 sectors / lines per gather", "E=8 sectors per nnz", "E=4 sectors / lines", "E=4 per nnz",
             "E=2 sectors / lines", "E=2 per nnz"},
            gx, fmt::format("{} rows x 4096 columns, fp16, 4-bit deltas, Bernoulli; per gather instruction and per "
                            "nonzero.", sample_rows));

  // Measured results.
  rep.heading("Measured results");
  std::vector<std::string> files, others;
  int skipped = 0;
  const auto measured = read_bench(o.bench_dir, o.bandwidth, files, others, skipped);
  // The row timelines have their own section (trace_section).
  std::erase_if(others, [](const std::string& f) { return fs::path(f).filename().string().rfind("rowtrace_macko", 0) == 0; });
  // Batched rows (B vectors at once) are timed against batched baselines and move B times the
  // vector bytes: they go to their own section, every other one reads single-vector rows only.
  std::vector<BenchRow> bench;
  for (const auto& b : measured)
    if (b.batch == 1) bench.push_back(b);
  const std::size_t batched = measured.size() - bench.size();
  const std::string others_note =
      others.empty() ? ""
                     : fmt::format(" {} CSV file(s) of other benchmark programs were ignored (this notebook reads only "
                                   "ws_bench_macko's `macko*.csv`; the 2:4 GEMM results are notebook 6's).",
                                   others.size());
  if (measured.empty()) {
    rep.para(fmt::format("No GPU benchmark results are present: nothing usable was found under `{}/<gpu>/macko*.csv`{}. "
                         "This report therefore shows predictions only. Run the GPU benchmarks (bench/) to produce "
                         "results with the columns gpu, kernel, rows, cols, density, pattern, median_us, p10_us, "
                         "p90_us, bytes, gbps, pct_copy_bw, then rebuild the reports.{}",
                         o.bench_dir,
                         files.empty() ? "" : fmt::format(" ({} file(s) read, {} row(s) unusable)", files.size(), skipped),
                         others_note));
    return rep.write(o.out_dir);
  }
  rep.para(fmt::format("{} measured rows from {} file(s) under `{}` ({} unusable rows skipped).{}{}", measured.size(),
                       files.size(), o.bench_dir, skipped,
                       batched ? fmt::format(" {} of them multiply several vectors at once (batch > 1): they appear "
                                             "only in the last section.",
                                             batched)
                               : "",
                       others_note));
  // The bandwidth each GPU's predictions use.
  std::map<std::string, std::pair<double, bool>> gpu_bw;
  for (const auto& b : measured) gpu_bw[b.gpu] = {b.bandwidth, b.bandwidth_measured};
  {
    std::vector<std::vector<std::string>> bt;
    for (const auto& [gpu, bw] : gpu_bw)
      bt.push_back({gpu, fmt::format("{:.0f} GB/s", bw.first / 1e9),
                    bw.second ? "measured device copy (copy_gbps in the run's .meta.json)"
                              : "no .meta.json with copy_gbps: --bandwidth (model default)"});
    rep.table({"gpu", "bandwidth used for its predictions", "source"}, bt,
              fmt::format("Every prediction for a measured row below uses its own GPU's measured copy bandwidth; only "
                          "the pure-model part above uses --bandwidth ({:.2f} TB/s).",
                          o.bandwidth / 1e12));
  }
  single_vector_sections(rep, bench, base, gpu_bw);
  batch_section(rep, measured);
  trace_section(rep, o.bench_dir);
  return rep.write(o.out_dir);
}

}  // namespace warpsparse::notebooks
