// Notebook 5: the bandwidth roofline. Predicted SpMV time and speedup over dense for each format
// (paper §3.1), the bytes the MACKO warp model's access pattern touches (emulator sector counts),
// and — when GPU benchmark results exist under bench/results/<gpu>/*.csv — measured time against
// predicted and measured speedup vs density per shape (paper Figures 4/5).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/effd.hpp"
#include "analysis/patterns.hpp"
#include "notebooks_cpp/nb_common.hpp"
#include "reference/formats/macko.hpp"
#include "reference/models/macko_spmv_model.hpp"

namespace warpsparse::notebooks {

namespace {
namespace fs = std::filesystem;
using namespace analysis;

struct BenchRow {
  std::string file, gpu, kernel, pattern;
  std::int64_t rows = 0, cols = 0;
  int value_bits = 16, delta_bits = 4;  // from value_type / delta_bits when present
  double density = 0, median_us = 0, p10_us = 0, p90_us = 0, bytes = 0, gbps = 0, pct_copy_bw = 0;
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

double to_d(const std::string& s) {
  try {
    return s.empty() ? std::nan("") : std::stod(s);
  } catch (const std::exception&) {
    return std::nan("");
  }
}

// Reads every bench/results/<gpu>/*.csv; rows missing the needed columns are skipped and counted.
std::vector<BenchRow> read_bench(const std::string& dir, std::vector<std::string>& files, int& skipped) {
  std::vector<BenchRow> out;
  skipped = 0;
  if (!fs::is_directory(dir)) return out;
  std::vector<fs::path> paths;
  for (const auto& gpu : fs::directory_iterator(dir))
    if (gpu.is_directory())
      for (const auto& f : fs::directory_iterator(gpu.path()))
        if (f.path().extension() == ".csv") paths.push_back(f.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    files.push_back(path.string());
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) continue;
    const auto header = split_csv(line);
    std::map<std::string, std::size_t> col;
    for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
    auto get = [&](const std::vector<std::string>& f, const char* name) -> std::string {
      const auto it = col.find(name);
      return it != col.end() && it->second < f.size() ? f[it->second] : std::string();
    };
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto f = split_csv(line);
      BenchRow r;
      r.file = path.string();
      r.gpu = get(f, "gpu");
      if (r.gpu.empty()) r.gpu = path.parent_path().filename().string();
      r.kernel = get(f, "kernel");
      r.pattern = get(f, "pattern");
      const std::string vt = get(f, "value_type");
      r.value_bits = vt == "fp32" ? 32 : (vt == "int8" ? 8 : 16);
      const double db = to_d(get(f, "delta_bits"));
      if (std::isfinite(db) && (db == 1 || db == 2 || db == 4 || db == 8)) r.delta_bits = static_cast<int>(db);
      r.rows = static_cast<std::int64_t>(to_d(get(f, "rows")));
      r.cols = static_cast<std::int64_t>(to_d(get(f, "cols")));
      r.density = to_d(get(f, "density"));
      r.median_us = to_d(get(f, "median_us"));
      r.p10_us = to_d(get(f, "p10_us"));
      r.p90_us = to_d(get(f, "p90_us"));
      r.bytes = to_d(get(f, "bytes"));
      r.gbps = to_d(get(f, "gbps"));
      r.pct_copy_bw = to_d(get(f, "pct_copy_bw"));
      if (r.kernel.empty() || r.rows <= 0 || r.cols <= 0 || !std::isfinite(r.median_us) || !std::isfinite(r.density)) {
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
}  // namespace

std::string roofline(const Options& o) {
  Report rep("05_roofline", "Notebook 5 — roofline: predicted and measured SpMV time");
  rep.para(provenance(o));
  rep.para(fmt::format(
      "SpMV is bandwidth bound (macko-paper.txt §3.1: compute intensity about d/effd ≪ ops per byte), so the "
      "predicted time is (matrix bytes + vector bytes)/bandwidth with matrix bytes = effd·R·C·b_val/8 and vector bytes "
      "= (R + C)·b_val/8 (x read once, y written once). Bandwidth: {:.2f} TB/s (default: the measured H100 copy "
      "bandwidth, read + write; change with --bandwidth). The predicted speedup over dense is the ratio of bytes, "
      "which tends to 1/effd for large matrices (paper §6: 'theoretically 1.6× at sparsity 50%').",
      o.bandwidth / 1e12));
  const StorageConfig base;
  // Predicted speedup vs density for a few Appendix D shapes.
  const std::vector<Shape> shapes = {{4096, 4096}, {4096, 11008}, {11008, 4096}, {12288, 12288}, {36864, 12288}};
  Plot sp;
  sp.name = "predicted_speedup";
  sp.title = fmt::format("Predicted speedup over dense (roofline, {:.1f} TB/s, fp16)", o.bandwidth / 1e12);
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
  rep.table({"shape", "dense us", "MACKO d=0.7", "d=0.5", "d=0.3", "d=0.1"}, pt, "Predicted times and speedups.");

  // Emulated access pattern.
  rep.heading("Bytes of the real access pattern (warp emulator)");
  rep.para("The MACKO warp model (reference/models/macko_spmv_model.hpp) replays the kernel's loads on 32 emulated lanes "
           "and counts the 32-byte sectors each warp instruction touches. For a sample of rows of a 4096-column "
           "Bernoulli matrix, the sectors of the matrix arrays (values, deltas, row pointers) are compared with the "
           "stored bytes; x gathers are listed separately (they mostly hit L1/L2 on a GPU, so DRAM sees far fewer).");
  std::vector<std::vector<std::string>> em;
  const std::int64_t sample_rows = o.quick ? 16 : 64, C = 4096;
  for (const double d : {0.1, 0.3, 0.5, 0.7}) {
    const auto m = generate<half>({Pattern::bernoulli, d, 0.0}, sample_rows, C, o.seed);
    const auto a = encode_macko(m);
    std::vector<half> x(static_cast<std::size_t>(C), from_float<half>(1.0f));
    SpmvTraffic tr;
    (void)macko_spmv_model<half, half, half>(a, x, {}, 1.0f, 0.0f, macko::Schedule{}, &tr);
    const double stored = double(a.storage_bytes());
    const double touched = 32.0 * double(tr.values.sectors + tr.deltas.sectors + tr.row_ptr.sectors);
    const double val_bytes = double(a.values.size() * sizeof(half)), delta_bytes = double(a.deltas.size());
    em.push_back({num(d, 1), fmt::format("{:.0f}", stored), fmt::format("{:.0f}", touched), num(touched / stored, 3),
                  num(32.0 * double(tr.values.sectors) / val_bytes, 3), num(32.0 * double(tr.deltas.sectors) / delta_bytes, 3),
                  num(32.0 * double(tr.row_ptr.sectors) / double(a.row_ptr.bytes()), 1),
                  fmt::format("{:.0f}", 32.0 * double(tr.x.sectors)), fmt::format("{:.0f}", double(C) * 2)});
  }
  rep.table({"d", "stored bytes", "matrix sectors x 32 B", "touched / stored", "values", "deltas", "row pointers",
             "x gather sectors x 32 B", "x bytes (read once)"},
            em,
            fmt::format("{} rows x 4096 columns, fp16 values, 4-bit deltas; the values / deltas / row pointers columns "
                        "are touched/stored per array. A warp's value load (512 B) starts at a 16-byte aligned element "
                        "and its delta load (128 B) at a 4-byte aligned one, so a load usually straddles one more "
                        "32-byte sector than its size; each row also reads a whole sector for its two 4-byte row "
                        "pointers. The straddled sectors belong to the neighbouring load or row, so on a GPU they mostly hit L2: "
                        "the counts bound L2-to-SM traffic, while DRAM traffic stays near the stored bytes.",
                        sample_rows));

  // Measured results.
  rep.heading("Measured results");
  std::vector<std::string> files;
  int skipped = 0;
  const auto bench = read_bench(o.bench_dir, files, skipped);
  if (bench.empty()) {
    rep.para(fmt::format("No GPU benchmark results are present: nothing usable was found under `{}/<gpu>/*.csv`{}. "
                         "This report therefore shows predictions only. Run the GPU benchmarks (bench/) to produce "
                         "results with the columns gpu, kernel, rows, cols, density, pattern, median_us, p10_us, "
                         "p90_us, bytes, gbps, pct_copy_bw, then rebuild the reports.",
                         o.bench_dir,
                         files.empty() ? "" : fmt::format(" ({} file(s) read, {} row(s) unusable)", files.size(), skipped)));
    return rep.write(o.out_dir);
  }
  rep.para(fmt::format("{} measured rows from {} file(s) under `{}` ({} unusable rows skipped).", bench.size(),
                       files.size(), o.bench_dir, skipped));
  // Measured vs predicted.
  Plot mp;
  mp.name = "measured_vs_predicted";
  mp.title = "Measured median time vs roofline prediction";
  mp.xlabel = "predicted time (us)";
  mp.ylabel = "measured median time (us)";
  mp.logx = mp.logy = true;
  std::map<std::string, Series> by_kernel;
  double lo = 1e300, hi = 0;
  std::vector<std::vector<std::string>> mt;
  for (const auto& b : bench) {
    Format f;
    if (!kernel_format(b.kernel, f)) continue;
    StorageConfig c = base;
    c.shape = {b.rows, b.cols};
    c.value_bits = b.value_bits;
    c.delta_bits = b.delta_bits;
    const double pred_us = analysis::roofline(f, b.density, c, o.bandwidth).seconds * 1e6;
    auto& s = by_kernel[b.gpu + " " + b.kernel];
    s.title = b.gpu + " " + b.kernel;
    s.style = "errorbars";
    s.x.push_back(pred_us);
    s.y.push_back(b.median_us);
    s.ylo.push_back(std::isfinite(b.p10_us) ? b.p10_us : b.median_us);
    s.yhi.push_back(std::isfinite(b.p90_us) ? b.p90_us : b.median_us);
    lo = std::min({lo, pred_us, b.median_us});
    hi = std::max({hi, pred_us, b.median_us});
    if (mt.size() < 60)
      mt.push_back({b.gpu, b.kernel, fmt::format("{}x{}", b.rows, b.cols), num(b.density, 3), b.pattern,
                    num(b.median_us, 2), num(pred_us, 2), num(b.median_us / pred_us, 2),
                    std::isfinite(b.pct_copy_bw) ? num(b.pct_copy_bw, 1) : "-"});
  }
  int k = 0;
  for (auto& [name, s] : by_kernel) {
    s.extra = fmt::format("pt {} ps 0.8", 5 + k++ % 6);
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
  rep.figure(mp, "Each point one measured configuration (p10–p90 bars) against its roofline time. MACKO kernels are "
                 "predicted from the expected-case effd, cuSPARSE/CSR kernels from CSR32, cuBLAS/dense from dense.");
  rep.table({"gpu", "kernel", "shape", "density", "pattern", "measured us", "predicted us", "measured/predicted",
             "% copy bw"},
            mt, mt.size() >= 60 ? "First 60 rows." : "");
  // Speedup vs density per shape (Figures 4/5).
  Plot ss;
  ss.name = "measured_speedup";
  ss.title = "Measured speedup over the dense kernel (points) and the roofline (lines)";
  ss.xlabel = "sparsity";
  ss.ylabel = "speedup over dense";
  ss.logy = true;
  std::map<std::string, Series> pts;
  std::map<std::string, Shape> shape_of;
  for (const auto& b : bench) {
    Format f;
    if (!kernel_format(b.kernel, f) || f == Format::dense) continue;
    // The dense kernel on the same GPU and shape (its time does not depend on density): median of its rows.
    std::vector<double> dense_us;
    for (const auto& d : bench)
      if (d.gpu == b.gpu && d.rows == b.rows && d.cols == b.cols && is_dense_kernel(d.kernel)) dense_us.push_back(d.median_us);
    if (dense_us.empty()) continue;
    std::sort(dense_us.begin(), dense_us.end());
    const double dense = dense_us[dense_us.size() / 2];
    const std::string key = fmt::format("{} {} {}x{}", b.gpu, b.kernel, b.rows, b.cols);
    auto& s = pts[key];
    s.title = key;
    s.style = "points";
    shape_of[key] = {b.rows, b.cols};
    // Several schedules of one kernel at one density: keep the fastest.
    const double sparsity = 1 - b.density, speedup = dense / b.median_us;
    bool merged = false;
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (std::abs(s.x[i] - sparsity) < 1e-9) {
        s.y[i] = std::max(s.y[i], speedup);
        merged = true;
      }
    if (!merged) {
      s.x.push_back(sparsity);
      s.y.push_back(speedup);
    }
  }
  int j = 0;
  for (auto& [key, s] : pts) {
    std::vector<std::size_t> order(s.x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
    Series sorted = s;
    for (std::size_t i = 0; i < order.size(); ++i) {
      sorted.x[i] = s.x[order[i]];
      sorted.y[i] = s.y[order[i]];
    }
    sorted.style = "linespoints";
    sorted.extra = fmt::format("pt 7 ps 0.8 lc {}", j + 1);
    ss.series.push_back(sorted);
    if (key.find("macko") != std::string::npos || lower(key).find("macko") != std::string::npos) {
      StorageConfig c = base;
      c.shape = shape_of[key];
      Series line;
      line.title = "roofline " + fmt::format("{}x{}", c.shape.rows, c.shape.cols);
      for (double sp_ = 0.0; sp_ <= 0.95 + 1e-9; sp_ += 0.025) {
        line.x.push_back(sp_);
        line.y.push_back(analysis::roofline(Format::macko_expected, 1 - sp_, c, o.bandwidth).speedup_vs_dense);
      }
      line.extra = fmt::format("lw 1 dt 2 lc {}", j + 1);
      ss.series.push_back(line);
    }
    ++j;
  }
  if (ss.series.empty()) {
    rep.para("No dense-kernel rows share a GPU and shape with a sparse kernel, so no measured speedups can be formed.");
  } else {
    rep.figure(ss, "Measured speedup of each sparse kernel over the dense kernel on the same GPU and shape, by sparsity "
                   "(cf. paper Figures 4 and 5), with the MACKO roofline for that shape.");
  }
  return rep.write(o.out_dir);
}

}  // namespace warpsparse::notebooks
