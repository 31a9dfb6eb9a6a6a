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

// A panel of speedup over cuBLAS against density (log scale), with the parity line.
Plot speedup_panel(const std::string& name, const std::string& title, const std::string& ylabel) {
  Plot pn;
  pn.name = name;
  pn.title = title;
  pn.xlabel = "density d";
  pn.ylabel = ylabel;
  pn.logy = true;
  pn.xrange = "[0:1.02]";
  pn.key = "top right";
  pn.extra = {"set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#555555' lw 1.2", "set xtics 0.1"};
  return pn;
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
      pn.key = first ? "below" : "off";
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
// lead_numbers receives the summary rows (gpu, density, shapes, median, range, % copy bw, cuSPARSE)
// that the page's lead quotes.
void single_vector_sections(Report& rep, const std::vector<BenchRow>& bench, const StorageConfig& base,
                            std::map<std::string, std::pair<double, bool>>& gpu_bw,
                            std::vector<std::vector<std::string>>& lead_numbers) {
  if (bench.empty()) {
    rep.para("No single-vector (batch 1) rows are present, so only the batched section below has measurements.");
    return;
  }
  // Measured vs predicted.
  // One panel per GPU, one series per kernel.
  Plot mp;
  mp.name = "measured_vs_predicted";
  mp.title = "Measured median time vs roofline prediction (each GPU's measured copy bandwidth)";
  std::map<std::string, std::map<std::string, Series>> by_kernel;
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
    auto& s = by_kernel[b.gpu][b.kernel];
    s.title = b.kernel;
    s.style = "errorbars";
    s.x.push_back(pred_us);
    s.y.push_back(b.median_us);
    s.ylo.push_back(std::isfinite(b.p10_us) ? b.p10_us : b.median_us);
    s.yhi.push_back(std::isfinite(b.p90_us) ? b.p90_us : b.median_us);
    lo = std::min({lo, pred_us, b.median_us});
    hi = std::max({hi, pred_us, b.median_us});
    ratios[{b.gpu, b.kernel}].r.push_back(b.median_us / pred_us);
  }
  panels_in_a_row(mp, by_kernel.size(), 600);
  for (auto& [gpu, kernels] : by_kernel) {
    Plot pn;
    pn.name = "mp";
    pn.title = gpu;
    pn.xlabel = "predicted time (us)";
    pn.ylabel = "measured median time (us)";
    pn.logx = pn.logy = true;
    pn.key = "top left";
    int k = 0;
    for (auto& [name, s] : kernels) {
      s.extra = fmt::format("lt {} pt {} ps 0.8", k % 7 + 1, 5 + 2 * (k % 4));
      ++k;
      pn.series.push_back(s);
    }
    Series diag;
    diag.title = "measured = predicted";
    diag.x = {lo * 0.8, hi * 1.25};
    diag.y = diag.x;
    diag.extra = "lw 1 dt 2 lc rgb 'black'";
    pn.series.push_back(diag);
    mp.panels.push_back(pn);
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

  // Speedup over cuBLAS vs density (paper Figures 4 and 5).
  enum Kind { k_macko, k_cusparse, k_csr, k_dense, k_other };
  auto kind_of = [](const std::string& kernel) {
    const std::string kk = lower(kernel);
    if (kk.find("macko") != std::string::npos) return k_macko;
    if (kk.find("cusparse") != std::string::npos) return k_cusparse;
    if (kk.find("csr") != std::string::npos) return k_csr;
    if (is_dense_kernel(kernel)) return k_dense;
    return k_other;
  };
  // cuBLAS time for a row: the dense row of the same file, shape, density and pattern, else the median of
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
  // One case (GPU, shape, pattern, kernel kind, density) is often measured by several runs: each run
  // gives its fastest schedule; the case shows the newest run's value with the spread over runs.
  struct Case {
    std::string gpu, pattern;
    std::int64_t rows, cols;
    int kind;
    double density;
    auto operator<=>(const Case&) const = default;
  };
  struct PerFile {
    double speedup = 0, pct_bw = std::nan("");
  };
  std::map<Case, std::map<std::string, PerFile>> runs;  // case -> file (names sort by time) -> best
  for (const auto& b : bench) {
    const Kind kd = kind_of(b.kernel);
    if (kd == k_dense || kd == k_other) continue;
    const double dus = dense_us_for(b);
    if (!std::isfinite(dus)) continue;
    auto& cell = runs[{b.gpu, uniform_pattern(b.pattern) ? "uniform" : b.pattern, b.rows, b.cols, kd, b.density}][b.file];
    if (dus / b.median_us > cell.speedup) cell = {dus / b.median_us, b.pct_copy_bw};
  }
  if (runs.empty()) {
    rep.para("No cuBLAS rows share a GPU and shape with a sparse kernel, so no measured speedups can be formed.");
    return;
  }
  struct Reduced {
    double speedup, pct_bw, lo, hi;
    int n;
    std::string file;
  };
  auto reduce = [](const std::map<std::string, PerFile>& f) {
    const auto& newest = *f.rbegin();
    Reduced r{newest.second.speedup, newest.second.pct_bw, INFINITY, 0, static_cast<int>(f.size()),
              fs::path(newest.first).filename().string()};
    for (const auto& [file, v] : f) {
      r.lo = std::min(r.lo, v.speedup);
      r.hi = std::max(r.hi, v.speedup);
    }
    return r;
  };
  // gpu -> shape -> kind -> density -> reduced, uniform pattern only (the figure); every case to CSV.
  std::map<std::string, std::map<std::pair<std::int64_t, std::int64_t>, std::map<int, std::map<double, Reduced>>>> sp_;
  std::vector<std::vector<std::string>> all_cases;
  const char* kind_name[] = {"MACKO", "cuSPARSE CSR", "our CSR kernel"};
  for (const auto& [c, files] : runs) {
    const Reduced r = reduce(files);
    if (c.pattern == "uniform") sp_[c.gpu][{c.rows, c.cols}][c.kind][c.density] = r;
    all_cases.push_back({c.gpu, fmt::format("{}x{}", c.rows, c.cols), c.pattern, kind_name[c.kind], num(c.density, 2),
                         num(r.speedup, 3), num(r.lo, 3), num(r.hi, 3), std::to_string(r.n),
                         std::isfinite(r.pct_bw) ? num(r.pct_bw, 1) : "", r.file,
                         bench_results::meta_commit(files.rbegin()->first)});
  }
  // Shapes fall into at most four groups by weight count, so a figure shows one line per group (the
  // median over its shapes, bars from the slowest to the fastest) instead of a panel per shape.
  auto group_of = [](std::int64_t elems) { return elems < 20'000'000 ? 0 : elems < 60'000'000 ? 1 : elems < 150'000'000 ? 2 : 3; };
  Plot mf;
  mf.name = "measured_speedup";
  mf.title = "MACKO's measured speedup over cuBLAS GEMV vs density (uniform random rows, fp16, batch 1)";
  panels_in_a_row(mf, sp_.size(), 600);
  std::vector<std::vector<std::string>> summary;  // gpu, density: MACKO median [range] over shapes, % copy bw
  for (const auto& [gpu, shapes_m] : sp_) {
    const double bw = gpu_bw[gpu].first;
    std::array<std::map<double, std::vector<double>>, 4> grp;
    std::array<std::pair<std::int64_t, std::int64_t>, 4> grp_range;
    std::array<int, 4> grp_n{};
    grp_range.fill({INT64_MAX, 0});
    std::map<double, std::vector<double>> csp, all_m, pct_m;
    std::vector<std::int64_t> elems;
    for (const auto& [shape, by_kind] : shapes_m) {
      const std::int64_t e = shape.first * shape.second;
      if (const auto it = by_kind.find(k_macko); it != by_kind.end()) {
        const int g = group_of(e);
        ++grp_n[g];
        grp_range[g] = {std::min(grp_range[g].first, e), std::max(grp_range[g].second, e)};
        elems.push_back(e);
        for (const auto& [d, r] : it->second) {
          grp[g][d].push_back(r.speedup);
          all_m[d].push_back(r.speedup);
          if (std::isfinite(r.pct_bw)) pct_m[d].push_back(r.pct_bw);
        }
      }
      if (const auto it = by_kind.find(k_cusparse); it != by_kind.end())
        for (const auto& [d, r] : it->second) csp[d].push_back(r.speedup);
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? std::nan("") : v[v.size() / 2];
    };
    Plot pn = speedup_panel("ms", gpu, "speedup over cuBLAS GEMV");
    for (int g = 0; g < 4; ++g) {
      if (!grp_n[g]) continue;
      Series s, line;
      s.title = fmt::format("MACKO, {} shape{} of {:.0f}-{:.0f}M weights", grp_n[g], grp_n[g] > 1 ? "s" : "",
                            double(grp_range[g].first) / 1e6, double(grp_range[g].second) / 1e6);
      s.style = "errorbars";
      s.extra = fmt::format("lt {} pt {} ps 1.1 lw 1.5", g + 1, 5 + 2 * g);
      line.extra = fmt::format("lt {} lw 1.5", g + 1);
      for (const auto& [d, v] : grp[g]) {
        s.x.push_back(d);
        s.y.push_back(median(v));
        s.ylo.push_back(*std::min_element(v.begin(), v.end()));
        s.yhi.push_back(*std::max_element(v.begin(), v.end()));
        line.x.push_back(d);
        line.y.push_back(median(v));
      }
      pn.series.push_back(s);
      pn.series.push_back(line);
    }
    if (!csp.empty()) {
      Series c;
      c.title = "cuSPARSE CSR, median over shapes";
      c.style = "linespoints";
      c.extra = "lt 8 pt 4 ps 0.9 lw 1.5 dt 3";
      for (const auto& [d, v] : csp) {
        c.x.push_back(d);
        c.y.push_back(median(v));
      }
      pn.series.push_back(c);
    }
    if (!elems.empty()) {
      std::sort(elems.begin(), elems.end());
      // The roofline of the median-sized shape: dense bytes over MACKO's expected bytes.
      std::pair<std::int64_t, std::int64_t> mid{};
      for (const auto& [shape, by_kind] : shapes_m)
        if (shape.first * shape.second == elems[elems.size() / 2]) mid = shape;
      StorageConfig c = base;
      c.shape = {mid.first, mid.second};
      Series line;
      line.title = fmt::format("roofline, MACKO expected effd ({}x{})", mid.first, mid.second);
      for (int i = 1; i <= 50; ++i) {
        line.x.push_back(i / 50.0);
        line.y.push_back(analysis::roofline(Format::macko_expected, i / 50.0, c, bw).speedup_vs_dense);
      }
      line.extra = "lt 7 lw 1.5 dt 2";
      pn.series.push_back(line);
    }
    mf.panels.push_back(pn);
    for (const auto& [d, v] : all_m) {
      auto sorted = v;
      std::sort(sorted.begin(), sorted.end());
      summary.push_back({gpu, num(d, 2), std::to_string(v.size()), num(median(v), 2) + "x",
                         fmt::format("{:.2f}-{:.2f}x", sorted.front(), sorted.back()),
                         pct_m[d].empty() ? "-" : num(median(pct_m[d]), 0) + "%",
                         csp[d].empty() ? "-" : num(median(csp[d]), 2) + "x"});
    }
  }
  rep.main_figure(mf, "Per GPU: MACKO's speedup over cuBLAS GEMV on the same shape, one line per group of shapes by "
                      "weight count (the median over the group's shapes; bars from its slowest to its fastest shape), "
                      "cuSPARSE CSR's median, and the roofline speedup (dense bytes over MACKO's expected bytes) of the "
                      "median-sized shape. Each shape's value is its newest run's fastest schedule. The grey line is "
                      "parity with cuBLAS.");
  lead_numbers = summary;
  rep.table({"gpu", "density", "shapes", "MACKO median speedup", "range over shapes", "median % of copy bw",
             "cuSPARSE median speedup"},
            summary, "The numbers behind the main figure (uniform random rows, batch 1); per shape and run in the CSV below.",
            "speedup_summary");
  rep.data("speedup_per_case",
           {"gpu", "shape", "pattern", "kernel", "density", "speedup (newest run)", "slowest run", "fastest run", "runs",
            "% copy bw (newest)", "newest file", "its commit"},
           all_cases,
           "Every measured case (shape, pattern, kernel, density) with its newest run, the spread over runs and the "
           "file it came from");
  // The other pattern families: one row per (GPU, pattern, density), the median over shapes.
  std::map<std::tuple<std::string, std::string, double>, std::vector<double>> fam;
  for (const auto& [c, files] : runs)
    if (c.pattern != "uniform" && c.kind == k_macko) fam[{c.gpu, c.pattern, c.density}].push_back(reduce(files).speedup);
  if (!fam.empty()) {
    std::vector<std::vector<std::string>> ft;
    for (auto& [k, v] : fam) {
      std::sort(v.begin(), v.end());
      ft.push_back({std::get<0>(k), std::get<1>(k), num(std::get<2>(k), 2), std::to_string(v.size()),
                    num(v[v.size() / 2], 2) + "x", fmt::format("{:.2f}-{:.2f}x", v.front(), v.back())});
    }
    rep.table({"gpu", "pattern", "density", "shapes", "MACKO median speedup over cuBLAS", "range over shapes"}, ft,
              "MACKO on the other pattern families (newest run per shape; each shape in the CSV above).",
              "pattern_families");
  }
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
  // One panel per GPU, one line per B: the median over the shapes measured at that batch, bars from
  // the slowest shape to the fastest.
  Plot f;
  f.name = "batched_speedup";
  f.title = "MACKO's speedup over cuBLAS with B vectors at once (GEMV at B = 1, GEMM with N = B)";
  panels_in_a_row(f, by_gpu.size(), 600);
  std::vector<std::vector<std::string>> summary, rows;
  for (const auto& [gpu, panels] : by_gpu) {
    std::map<int, std::map<double, std::vector<double>>> by_b;  // B -> d -> speedups over shapes
    for (const auto& [panel, batches] : panels) {
      const std::string shape = fmt::format("{}x{}{}", panel.rows, panel.cols,
                                            panel.value_type.empty() || panel.value_type == "fp16"
                                                ? ""
                                                : " (" + panel.value_type + ")");
      for (const auto& [nb, dens] : batches)
        for (const auto& [d, v] : dens) {
          by_b[nb][d].push_back(v[kCublas] / v[kMacko]);
          rows.push_back({gpu, shape, num(d, 2), std::to_string(nb), num(v[kMacko], 1), num(v[kCublas], 1),
                          num(v[kCublas] / v[kMacko], 3), num(v[kMacko] / nb, 2)});
        }
    }
    Plot pn = speedup_panel("bs", fmt::format("{} ({} shapes)", gpu, panels.size()), "speedup over cuBLAS (same B)");
    int lt = 1;
    for (const auto& [nb, dens] : by_b) {
      Series s, line;
      s.title = fmt::format("B = {}", nb);
      s.style = "errorbars";
      s.extra = fmt::format("lt {} pt {} ps 1.1 lw 1.5", lt, 5 + 2 * (lt % 4));
      line.extra = fmt::format("lt {} lw 1.5", lt);
      ++lt;
      for (auto [d, v] : dens) {
        std::sort(v.begin(), v.end());
        const double med = v[v.size() / 2];
        s.x.push_back(d);
        s.y.push_back(med);
        s.ylo.push_back(v.front());
        s.yhi.push_back(v.back());
        line.x.push_back(d);
        line.y.push_back(med);
        summary.push_back({gpu, std::to_string(nb), num(d, 2), std::to_string(v.size()), num(med, 2) + "x",
                           fmt::format("{:.2f}-{:.2f}x", v.front(), v.back())});
      }
      pn.series.push_back(s);
      pn.series.push_back(line);
    }
    f.panels.push_back(pn);
  }
  rep.figure(f, "Per GPU, MACKO's speedup over cuBLAS at the same number of vectors B, one line per B: the median over "
                "the shapes measured at that batch, bars from the slowest to the fastest shape (MACKO: the fastest "
                "schedule of the newest run; uniform random pattern with exact nnz). The grey line is parity.");
  rep.table({"gpu", "B", "density", "shapes", "median speedup", "range over shapes"}, summary,
            "The numbers behind the figure; every shape's times are in the CSV below.", "batched_summary");
  rep.data("batched_per_shape", {"gpu", "shape", "density", "B", "MACKO us", "cuBLAS us", "speedup", "MACKO us per vector"},
           rows, "Each shape, density and batch: medians of the newest run");
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
    // One panel per density, one line per shape, so that no panel holds more than a reader can tell apart.
    std::map<std::string, std::map<std::string, Series>> by_density;
    for (const auto& r : t->rows) {
      Series& s = by_density[t->get(r, "density")][t->get(r, "rows") + "x" + t->get(r, "cols")];
      s.title = t->get(r, "rows") + "x" + t->get(r, "cols");
      s.x.push_back(to_d(t->get(r, "t_us")));
      s.y.push_back(to_d(t->get(r, "rows_in_progress")));
    }
    Plot p;
    p.name = "row_timeline_" + gpu;
    p.title = "Rows in progress during one launch (" + gpu + ")";
    panels_in_a_row(p, by_density.size(), 560);
    for (auto& [d, cases] : by_density) {
      Plot pn;
      pn.name = "rt";
      pn.title = "d = " + d;
      pn.xlabel = "time since the first row started (us)";
      pn.ylabel = "rows in progress";
      pn.key = "below";
      pn.yrange = "[0:*]";
      int lt = 1;
      for (auto& [k, s] : cases) {
        s.extra = fmt::format("lt {} lw 1.5", lt++);
        pn.series.push_back(std::move(s));
      }
      p.panels.push_back(pn);
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
  sp.xlabel = "density d";
  sp.ylabel = "speedup over dense";
  sp.logy = true;
  sp.xrange = "[0.05:1]";
  sp.key = "top right";
  // One shape: the MACKO lines of all the table's shapes lie within a line's width of each other.
  for (const auto& s : {shapes[3]}) {
    StorageConfig c = base;
    c.shape = s;
    Series m;
    m.title = fmt::format("MACKO expected {}x{}", s.rows, s.cols);
    for (int i = 2; i <= 40; ++i) {
      const double d = i / 40.0;
      m.x.push_back(d);
      m.y.push_back(analysis::roofline(Format::macko_expected, d, c, o.bandwidth).speedup_vs_dense);
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
      for (int i = 2; i <= 40; ++i) {
        const double d = i / 40.0;
        s.x.push_back(d);
        s.y.push_back(analysis::roofline(f, d, c, o.bandwidth).speedup_vs_dense);
      }
      s.extra = "lw 1.5 dt 2";
      sp.series.push_back(s);
    }
  }
  sp.extra = {"set arrow from 0.05,1 to 1,1 nohead lc rgb '#888888' dt 3"};
  rep.figure(sp, "Predicted speedup over dense vs density (bytes moved only) for 12288x12288; the table below "
                 "gives the other shapes, whose MACKO lines lie within a line's width of this one. Vector traffic "
                 "matters only at low density and for small matrices.");
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
    rep.lead("How fast is MACKO SpMV against cuBLAS GEMV at each density, and how close does it come to the bandwidth "
             "roofline?",
             "No GPU benchmark results are present, so this page shows the roofline predictions only.");
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
  std::vector<std::vector<std::string>> lead_rows;
  single_vector_sections(rep, bench, base, gpu_bw, lead_rows);
  // The lead quotes each GPU's MACKO median speedup at d = 0.5, 0.3 and 0.1 and its median % of copy bandwidth.
  std::map<std::string, std::string> per_gpu;
  for (const auto& r : lead_rows)
    if (r[1] == "0.50" || r[1] == "0.30" || r[1] == "0.10")
      per_gpu[r[0]] += fmt::format("{}d = {}: {} (shapes {}; {} of copy bandwidth)", per_gpu[r[0]].empty() ? "" : ", ",
                                   r[1], r[3], r[4], r[5]);
  std::string answer;
  for (const auto& [gpu, text] : per_gpu) answer += fmt::format("{}{}: {}", answer.empty() ? "" : ". ", gpu, text);
  rep.lead("How fast is MACKO SpMV against cuBLAS GEMV at each density, and how close does it come to the bandwidth "
           "roofline?",
           answer.empty() ? "No measured speedups are present; the predictions below stand alone."
                          : "MACKO's median speedup over cuBLAS GEMV on the measured shapes (uniform random rows, "
                            "fp16, batch 1) — " + answer + ". The roofline (dense bytes over MACKO's bytes) bounds "
                            "these from above; the main figure shows both.");
  batch_section(rep, measured);
  trace_section(rep, o.bench_dir);
  return rep.write(o.out_dir);
}

}  // namespace warpsparse::notebooks
