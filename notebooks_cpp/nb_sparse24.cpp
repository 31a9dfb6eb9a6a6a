// Notebook 6: the 2:4 sparse GEMM. Reads ws_bench_sparse24's bench/results/<gpu>/sparse24*.csv and
// compares, per GPU and case (M, N, K), dense cuBLAS bf16, cuSPARSELt and each warpsparse kernel in
// TFLOP/s (2MNK / median time), with each kernel's fraction of cuSPARSELt and the targets (wgmma.sp
// at kWgmmaTarget of cuSPARSELt on every case, mma.sp at 600 TFLOP/s on 8192^3); and,
// where ws_mma_sp_peak wrote mma_sp_peak*.csv into the same <gpu> folder, mma.sp's own ceiling.
#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "notebooks_cpp/nb_common.hpp"

namespace warpsparse::notebooks {

namespace {

// The 2:4 target: the faster warpsparse kernel at this share of cuSPARSELt's rate on every case of
// `ws_bench_sparse24 --full`, in the sustained and in the rested state. The figures' target line, the
// lead's count and the target table all read it.
constexpr double kWgmmaTarget = 0.95;

struct GemmRow {
  std::string gpu, kernel, weight_shape, value_type, check, file;
  std::int64_t m = 0, n = 0, k = 0;
  double median_us = 0, tflops = 0;
  double sm_mhz = 0;  // the series' median sampled SM clock (0: not recorded)
  int rest_ms = 0;    // ws_bench_sparse24 --rest-ms: 0 for the sustained state (bench/README.md, power state)
};

// The power state a row was measured in, as a heading suffix: results of the two states are never
// mixed in one table (at 8192^3 they differ by up to 20 % for the libraries).
std::string state_label(int rest_ms) {
  return rest_ms > 0 ? fmt::format("rested state ({} ms idle before each kernel, short series)", rest_ms)
                     : std::string("sustained state (series back to back)");
}

// Display order: the two baselines first, then our kernels by name.
int kernel_rank(const std::string& k) {
  if (k == "cublas_dense") return 0;
  if (k == "cusparselt") return 1;
  return 2;
}

// A benchmark case: the cubes (weight_shape "cube") as size^3, the LLM cases as weight M x K with N tokens
// (a 4096 x 4096 weight at N = 4096 is a different case from the 4096^3 cube, though the sizes agree).
bool is_cube(const GemmRow& r) {
  return r.m == r.n && r.n == r.k && (r.weight_shape == "cube" || r.weight_shape.empty());
}
std::string case_label(const GemmRow& r) {
  return is_cube(r) ? fmt::format("{}^3", r.m) : fmt::format("{}x{} n={}", r.m, r.k, r.n);
}

// One GPU and power state as the tables show it: its cases in order, each case's kernels from the
// newest run that measured the case.
struct StateCases {
  std::vector<std::string> cases;
  std::map<std::string, std::map<std::string, GemmRow>> at;  // case -> kernel -> row
};

// The warpsparse kernel a case counts (the target's): the fastest one that passed its check.
const GemmRow* best_warpsparse(const std::map<std::string, GemmRow>& byk) {
  const GemmRow* best = nullptr;
  for (const auto& [k, r] : byk)
    if (k.rfind("warpsparse", 0) == 0 && (r.check.empty() || r.check == "pass") &&
        (!best || r.tflops > best->tflops))
      best = &r;
  return best;
}

// Where one GPU has both power states: does each kernel's time follow the SM clock? Each point is a
// case measured in both, at (rested clock / sustained clock, sustained time / rested time) for the
// same kernel, so a kernel bound by its SMs' clock sits on the diagonal and one bound elsewhere
// (memory) on the horizontal line. Tokens (N) tell the series apart, cuSPARSELt and ours side by side.
void clock_section(Report& rep, const std::string& gpu, const StateCases& sus, const StateCases& rest,
                   int index) {
  // Series and table rows by token count, the cubes last.
  constexpr std::int64_t kCubes = std::numeric_limits<std::int64_t>::max();
  auto group_of = [](const GemmRow& r) { return is_cube(r) ? kCubes : r.n; };
  auto label_of = [](std::int64_t g) {
    return g == kCubes ? std::string("cubes") : fmt::format("N = {}", g);
  };
  struct Point {
    double clock, speed;
  };
  // side 0: cuSPARSELt, 1: ours; group -> points
  std::map<std::int64_t, std::vector<Point>> pts[2];
  std::map<std::int64_t, std::vector<double>> speeds[2];
  for (const auto& c : rest.cases) {
    const auto s_it = sus.at.find(c);
    if (s_it == sus.at.end()) continue;
    const auto& rk = rest.at.at(c);
    const auto& sk = s_it->second;
    // [side][state]: the row sustained (0) and rested (1)
    const GemmRow* row[2][2] = {{nullptr, nullptr}, {best_warpsparse(sk), best_warpsparse(rk)}};
    if (const auto a = sk.find("cusparselt"), b = rk.find("cusparselt"); a != sk.end() && b != rk.end()) {
      row[0][0] = &a->second;
      row[0][1] = &b->second;
    }
    for (int side = 0; side < 2; ++side) {
      const GemmRow* a = row[side][0];
      const GemmRow* b = row[side][1];
      if (!a || !b) continue;
      const std::int64_t g = group_of(*b);
      const double speed = a->median_us / b->median_us;
      speeds[side][g].push_back(speed);
      if (a->sm_mhz > 0 && b->sm_mhz > 0) pts[side][g].push_back({b->sm_mhz / a->sm_mhz, speed});
    }
  }
  if (speeds[0].empty() || speeds[1].empty()) return;
  rep.heading(gpu + ": does each kernel's time follow the SM clock?");
  rep.para(
      "The same cases in both power states: sustained (series back to back, the board at its power cap and "
      "the clock lowered) and rested (idle first, a short series at a higher clock). A kernel whose time is "
      "set by its SMs' clock runs faster rested in proportion to the clock; one set by memory does not. "
      "Where one kernel follows the clock and the other does not, its share of the other's rate differs "
      "between the states.");
  std::vector<std::int64_t> groups;  // ascending: the cubes last
  for (const auto& [g, v] : speeds[1]) groups.push_back(g);
  const char* colours[] = {"#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#8c564b"};
  Plot fig;
  fig.name = fmt::format("clock_scaling{}", index ? fmt::format("_{}", index) : "");
  fig.title = fmt::format("{}: time gained rested against the clock gained, case by case", gpu);
  fig.layout = "1,2";
  fig.width = 1400;
  fig.height = 650;
  double hi = 1.05;
  for (const auto& side : pts)
    for (const auto& [g, v] : side)
      for (const auto& p : v) hi = std::max({hi, p.clock, p.speed});
  hi = std::ceil(hi * 20.0) / 20.0 + 0.05;
  for (int side = 0; side < 2; ++side) {
    Plot p;
    p.title = side == 0 ? "cuSPARSELt" : "warpsparse (the kernel each case counts)";
    p.xlabel = "SM clock, rested / sustained";
    p.ylabel = "speed, rested / sustained (time ratio)";
    p.key = "top left";
    p.xrange = p.yrange = fmt::format("[0.85:{}]", hi);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const auto it = pts[side].find(groups[i]);
      if (it == pts[side].end()) continue;
      Series s;
      s.title = label_of(groups[i]);
      s.style = "points";
      s.extra = fmt::format("pt 7 ps 1.3 lc rgb '{}'", colours[i % 6]);
      for (const auto& q : it->second) {
        s.x.push_back(q.clock);
        s.y.push_back(q.speed);
      }
      p.series.push_back(s);
    }
    Series follows, ignores;
    follows.x = ignores.x = {0.85, hi};
    follows.y = {0.85, hi};
    ignores.y = {1.0, 1.0};
    follows.extra = "lw 1.2 dt 2 lc rgb '#444444'";
    ignores.extra = "lw 1.2 dt 3 lc rgb '#444444'";
    p.series.push_back(follows);
    p.series.push_back(ignores);
    fig.panels.push_back(p);
  }
  rep.figure(
      fig,
      "Each point: one case measured in both states, the kernel's own sampled SM clock and median time. "
      "Dashed diagonal: time follows the clock; dotted line at 1: time ignores it.");
  std::vector<std::vector<std::string>> t;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? std::nan("") : v[v.size() / 2];
  };
  for (const auto& g : groups) {
    std::vector<double> clocks;
    for (const auto& q : pts[1][g]) clocks.push_back(q.clock);
    t.push_back({label_of(g), std::to_string(speeds[1][g].size()),
                 clocks.empty() ? "-" : num(median(clocks), 2),
                 speeds[0].count(g) ? num(median(speeds[0][g]), 2) : "-", num(median(speeds[1][g]), 2)});
  }
  rep.table(
      {"tokens", "cases", "our clock, rested / sustained (median)", "cuSPARSELt speed, rested / sustained",
       "ours"},
      t,
      "Medians over the cases of each token count; speed is the sustained median time over the rested one.");
}

// One row of ws_mma_sp_peak (bench/mma_sp_peak.cu): mma.sp m16n8k32 on register operands only.
struct PeakRow {
  std::string order;
  int tile_m16 = 0, tile_n8 = 0, warps = 0;
  double tflops = 0;
};

// The latest ws_mma_sp_peak file of the <gpu> folder `gpu_dir`, rows that ran (fits = 1).
std::vector<PeakRow> read_peak(const std::string& bench_dir, const std::string& gpu_dir, std::string& file) {
  std::vector<PeakRow> out;
  const auto tables = bench_results::read_all(bench_dir, "mma_sp_peak");
  for (auto it = tables.rbegin(); it != tables.rend(); ++it) {
    if (it->gpu_dir != gpu_dir) continue;
    for (const auto& f : it->rows) {
      PeakRow r;
      r.order = it->get(f, "order");
      r.tile_m16 = static_cast<int>(bench_results::to_d(it->get(f, "warp_tile_m16")));
      r.tile_n8 = static_cast<int>(bench_results::to_d(it->get(f, "warp_tile_n8")));
      r.warps = static_cast<int>(bench_results::to_d(it->get(f, "warps_per_smsp")));
      r.tflops = bench_results::to_d(it->get(f, "tflops"));
      if (it->get(f, "fits") == "1" && std::isfinite(r.tflops) && r.tflops > 0) out.push_back(r);
    }
    file = it->path.string();
    break;
  }
  return out;
}

// Notebook 6's section on the instruction's own ceiling: the peak rows of this GPU's folder beside
// the best mma.sp GEMM at 8192^3 (`best` TFLOP/s, 0 when not measured).
void peak_section(Report& rep, const Options& o, const std::string& gpu, const std::string& gpu_dir, double best,
                  int index) {
  std::string file;
  const auto peak = read_peak(o.bench_dir, gpu_dir, file);
  if (peak.empty()) return;
  rep.para(fmt::format(
      "What mma.sp itself allows on this GPU (`{}`, ws_mma_sp_peak): each warp issues nothing but mma.sp "
      "m16n8k32 on register operands over a grid of m16 x n8 accumulators (the GEMM's warp tile), one k32 step "
      "with each sparsity selector per loop trip, no memory traffic, no barrier. Two issue orders: column by column "
      "(consecutive mma.sp share B, as our pipelined kernel issues them) and row by row (they share A and the "
      "metadata word).",
      file));
  Plot pp;
  pp.name = fmt::format("mma_sp_ceiling{}", index ? fmt::format("_{}", index) : "");
  pp.title = fmt::format("{}: mma.sp m16n8k32 alone (register operands) against the GEMM", gpu);
  pp.xlabel = "warps per SM sub-partition";
  pp.ylabel = "TFLOP/s (2·16·8·32 per mma.sp)";
  pp.key = "below";
  pp.width = 1100;
  pp.height = 700;
  pp.xrange = "[0.5:4.5]";
  pp.yrange = "[0:*]";
  pp.extra = {"set xtics 1"};
  std::map<std::string, Series> by;
  const char* colours[] = {"#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#8c564b"};
  for (const auto& r : peak) {
    // One colour per warp tile; row order (a_shared) solid, column order (b_shared) dashed.
    const std::string key = fmt::format("{:03d}x{:03d} {}", 16 * r.tile_m16, 8 * r.tile_n8, r.order);
    auto& s = by[key];
    s.title = fmt::format("warp tile {}x{}, {}", 16 * r.tile_m16, 8 * r.tile_n8,
                          r.order == "a_shared" ? "row order" : "column order");
    s.x.push_back(r.warps);
    s.y.push_back(r.tflops);
  }
  int i = 0;
  for (auto& [key, s] : by) {
    s.style = "linespoints";
    s.extra = fmt::format("lw 2 pt 7 lc rgb '{}'{}", colours[(i / 2) % 6], i % 2 ? " dt 2" : "");
    pp.series.push_back(s);
    ++i;
  }
  if (best > 0) {
    Series g;
    g.title = fmt::format("best mma.sp GEMM at 8192^3 ({:.0f})", best);
    g.x = {0.5, 4.5};
    g.y = {best, best};
    g.extra = "lw 1.5 dt 3 lc rgb '#000000'";
    pp.series.push_back(g);
  }
  Series t;
  t.title = "mma.sp target (600)";
  t.x = {0.5, 4.5};
  t.y = {600, 600};
  t.extra = "lw 1.5 dt 4 lc rgb '#d62728'";
  pp.series.push_back(t);
  rep.figure(pp, "Each line: one warp tile and issue order, against the warps each SM sub-partition runs (the "
                 "register file decides which fit). Horizontal lines: the fastest mma.sp GEMM at 8192^3 in the "
                 "results above, and the 600 TFLOP/s target.");
  double tile64 = 0;
  for (const auto& r : peak)
    if (r.tile_m16 == 4 && r.tile_n8 == 8 && r.warps == 2) tile64 = std::max(tile64, r.tflops);
  if (tile64 > 0 && best > 0)
    rep.para(fmt::format("With the pipelined kernel's 64x64 warp tile and two warps per sub-partition the instruction "
                         "alone reaches {:.0f} TFLOP/s (the faster order); the best GEMM at 8192^3 is {} of that. "
                         "The two need not run at one clock: on the H100 the loop stays below the board's power cap "
                         "(1935-1980 MHz) while the GEMM at 8192^3 runs under it (about 1700 MHz), and per clock the "
                         "GEMM is the faster (docs/sparse24-gemm.md), so this ratio is not headroom.",
                         tile64, pct(best / tile64, 0)));
}

}  // namespace

std::string sparse24(const Options& o) {
  Report rep("06_sparse24", "Notebook 6 — 2:4 sparse GEMM: warpsparse kernels against cuSPARSELt and dense cuBLAS");
  const std::string question = "How fast are warpsparse's 2:4 sparse GEMM kernels against cuSPARSELt and dense cuBLAS, "
                               "case by case?";
  rep.para("C = A·B with A (M×K) 2:4 sparse along K, B (K×N) dense, bf16 in, fp32 accumulate. Throughput is counted "
           "as 2·M·N·K / median time for every kernel, sparse or dense (the dense-equivalent rate, so a sparse kernel "
           "can exceed the dense peak). Rows come from ws_bench_sparse24 (bench/): L2 flushed before every timed "
           "launch, CUDA events, medians of the timed launches.");
  std::vector<std::string> others;
  const auto tables = bench_results::read_all(o.bench_dir, "sparse24", &others);
  std::vector<GemmRow> rows;
  int skipped = 0;
  for (const auto& t : tables)
    for (const auto& f : t.rows) {
      GemmRow r;
      r.file = t.path.string();
      r.gpu = t.get(f, "gpu");
      if (r.gpu.empty()) r.gpu = t.gpu_dir;
      r.kernel = t.get(f, "kernel");
      r.weight_shape = t.get(f, "weight_shape");
      r.value_type = t.get(f, "value_type");
      r.check = t.get(f, "check");
      r.m = static_cast<std::int64_t>(bench_results::to_d(t.get(f, "m")));
      r.n = static_cast<std::int64_t>(bench_results::to_d(t.get(f, "n")));
      r.k = static_cast<std::int64_t>(bench_results::to_d(t.get(f, "k")));
      r.median_us = bench_results::to_d(t.get(f, "median_us"));
      r.sm_mhz = bench_results::to_d(t.get(f, "sm_mhz_median"));
      if (!std::isfinite(r.sm_mhz) || r.sm_mhz <= 0) r.sm_mhz = 0;
      r.rest_ms = rest_ms_of(t, f);
      if (r.kernel.empty() || r.m <= 0 || r.n <= 0 || r.k <= 0 || !std::isfinite(r.median_us) || r.median_us <= 0) {
        ++skipped;
        continue;
      }
      r.tflops = 2.0 * double(r.m) * double(r.n) * double(r.k) / (r.median_us * 1e-6) / 1e12;
      rows.push_back(r);
    }
  if (rows.empty()) {
    rep.lead(question, "No 2:4 GEMM results are present, so this page has nothing to show.");
    rep.para(fmt::format("No 2:4 GEMM results are present: nothing usable was found under `{}/<gpu>/sparse24*.csv`{}. "
                         "Run ws_bench_sparse24 (bench/) on a GPU to produce results with the columns gpu, kernel, m, "
                         "n, k, median_us (and weight_shape, value_type, check), then rebuild the reports.",
                         o.bench_dir,
                         tables.empty() ? ""
                                        : fmt::format(" ({} file(s) read, {} row(s) unusable)", tables.size(), skipped)));
    return rep.write(o.out_dir);
  }
  rep.para(fmt::format("{} rows from {} file(s) under `{}` ({} unusable rows skipped; other programs' CSV files are "
                       "ignored).",
                       rows.size(), tables.size(), o.bench_dir, skipped));
  int failed = 0;
  for (const auto& r : rows) failed += !r.check.empty() && r.check != "pass";
  if (failed)
    rep.para(fmt::format("{} row(s) did not pass the benchmark's correctness check; they are marked FAIL in the "
                         "tables below.",
                         failed));

  // One section per GPU and power state, the sustained state first.
  std::set<std::pair<std::string, int>> groups;
  for (const auto& r : rows) groups.insert({r.gpu, r.rest_ms});
  std::string answer;
  int gi = 0;
  std::map<std::pair<std::string, int>, StateCases> states;
  for (const auto& [gpu, rest_ms] : groups) {
    rep.heading(gpu + ", " + state_label(rest_ms));
    // Each case from the newest run of this GPU and state that measured it, all of that run's kernels
    // and nothing from older runs: a fraction of cuSPARSELt is only meaningful within one run
    // (cuSPARSELt moves by several percent between runs), a benchmark split over several calls
    // (a rested --full) keeps every part, and a kernel since removed or renamed (the default
    // wgmma.sp kernel is named after the tile it picked) shows only where no newer run replaced it.
    // Cases in order of first appearance; baselines first.
    std::map<std::string, std::string> newest;  // case -> newest file holding it
    for (const auto& r : rows)
      if (r.gpu == gpu && r.rest_ms == rest_ms) {
        std::string& n = newest[case_label(r)];
        n = std::max(n, r.file);
      }
    StateCases& state = states[{gpu, rest_ms}];
    std::vector<std::string>& cases = state.cases;
    auto& at = state.at;
    std::vector<std::string> kernels;
    for (const auto& r : rows) {
      if (r.gpu != gpu || r.rest_ms != rest_ms || r.file != newest[case_label(r)]) continue;
      const std::string c = case_label(r);
      if (std::find(cases.begin(), cases.end(), c) == cases.end()) cases.push_back(c);
      if (std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end()) kernels.push_back(r.kernel);
      at[c][r.kernel] = r;
    }
    std::stable_sort(kernels.begin(), kernels.end(), [](const std::string& a, const std::string& b) {
      return kernel_rank(a) != kernel_rank(b) ? kernel_rank(a) < kernel_rank(b) : a < b;
    });
    const bool have_lt = std::find(kernels.begin(), kernels.end(), "cusparselt") != kernels.end();
    const int nk = static_cast<int>(kernels.size());
    std::string xtics = "set xtics rotate by 30 right (";
    for (std::size_t i = 0; i < cases.size(); ++i) xtics += fmt::format("{}\"{}\" {}", i ? ", " : "", cases[i], i);
    xtics += ")";
    const char* colours[] = {"#7f7f7f", "#000000", "#1f77b4", "#2ca02c", "#d62728", "#9467bd",
                             "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#aec7e8"};
    const char* points[] = {"5", "7", "9", "11", "13", "15", "4", "6"};
    const double slot = 0.8 / nk;  // width of one kernel's slot within a case
    // Figure 1: TFLOP/s per case (points, log scale: small-N cases are far below the big ones).
    Plot tp;
    tp.name = figure_name("tflops", gi);
    tp.title = fmt::format("{}: 2:4 GEMM throughput per case (bf16, 2MNK / median time)", gpu);
    tp.xlabel = "";
    tp.ylabel = "TFLOP/s";
    tp.logy = true;
    tp.key = "top right";  // the log axis leaves a decade above the fastest case
    tp.width = 1200;
    tp.height = 680;
    tp.xrange = fmt::format("[-0.6:{}]", double(cases.size()) - 0.4);
    tp.extra = {xtics, "set bmargin 7", "unset mxtics"};
    // Figure 2: fraction of cuSPARSELt (grouped bars, linear).
    Plot fp = tp;
    fp.name = figure_name("fraction_of_cusparselt", gi);
    fp.title = fmt::format("{}: each kernel's throughput as a fraction of cuSPARSELt", gpu);
    fp.ylabel = "fraction of cuSPARSELt";
    fp.logy = false;
    fp.key = "top left";
    fp.yrange = "[0:2.2]";  // headroom above the bars for the key
    fp.extra.push_back("set style fill solid 0.85 border -1");
    ++gi;
    // The fraction chart leaves cuSPARSELt out (it is 1 by definition), so its bars are re-spaced.
    const int nf = have_lt ? nk - 1 : nk;
    const double fslot = 0.8 / std::max(nf, 1);
    fp.extra.push_back(fmt::format("set boxwidth {} absolute", fslot * 0.9));
    int jf = 0;
    for (int j = 0; j < nk; ++j) {
      Series s, fr;
      s.title = fr.title = kernels[static_cast<std::size_t>(j)];
      s.style = "points";
      s.extra = fmt::format("pt {} ps 1.5 lc rgb '{}'", points[j % 8], colours[j % 12]);
      fr.style = "boxes";
      fr.extra = fmt::format("lc rgb '{}'", colours[j % 12]);
      const double off = (j - (nk - 1) / 2.0) * slot;
      const double foff = (jf - (nf - 1) / 2.0) * fslot;
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& byk = at[cases[i]];
        const auto it = byk.find(kernels[static_cast<std::size_t>(j)]);
        if (it == byk.end()) continue;
        s.x.push_back(double(i) + off);
        s.y.push_back(it->second.tflops);
        if (const auto lt = byk.find("cusparselt"); lt != byk.end()) {
          fr.x.push_back(double(i) + foff);
          fr.y.push_back(it->second.tflops / lt->second.tflops);
        }
      }
      tp.series.push_back(s);
      if (kernels[static_cast<std::size_t>(j)] != "cusparselt") {
        fp.series.push_back(fr);
        ++jf;
      }
    }
    // Rows that failed their correctness check, marked in both figures as in the table.
    Series fail_t, fail_f;
    fail_t.title = fail_f.title = "FAILED its check";
    fail_t.style = fail_f.style = "points";
    fail_t.extra = fail_f.extra = "pt 2 ps 3 lw 3 lc rgb '#b00020'";
    for (int j = 0; j < nk; ++j)
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& byk = at[cases[i]];
        const auto it = byk.find(kernels[static_cast<std::size_t>(j)]);
        if (it == byk.end() || it->second.check.empty() || it->second.check == "pass") continue;
        fail_t.x.push_back(double(i) + (j - (nk - 1) / 2.0) * slot);
        fail_t.y.push_back(it->second.tflops);
        if (const auto lt = byk.find("cusparselt"); lt != byk.end() && kernels[static_cast<std::size_t>(j)] != "cusparselt") {
          const int lt_index = static_cast<int>(std::find(kernels.begin(), kernels.end(), "cusparselt") - kernels.begin());
          const int jj = j - (have_lt && j > lt_index ? 1 : 0);  // the fraction chart's slot of kernel j
          fail_f.x.push_back(double(i) + (jj - (nf - 1) / 2.0) * fslot);
          fail_f.y.push_back(it->second.tflops / lt->second.tflops);
        }
      }
    if (!fail_t.x.empty()) tp.series.push_back(fail_t);
    if (!fail_f.x.empty()) fp.series.push_back(fail_f);
    for (const double level : {1.0, kWgmmaTarget}) {
      Series h;
      h.title = level == 1.0 ? "parity with cuSPARSELt" : "target (" + pct(kWgmmaTarget, 0) + ")";
      h.x = {-0.6, double(cases.size()) - 0.4};
      h.y = {level, level};
      h.extra = level == 1.0 ? "lw 1.2 dt 2 lc rgb '#444444'" : "lw 1.5 dt 3 lc rgb '#d62728'";
      fp.series.push_back(h);
    }
    rep.figure(tp, "TFLOP/s of every kernel for each case (M×K weight, N tokens; cubes as size^3). Log scale: the "
                   "N=16 cases are memory bound and far below the large ones.");
    if (have_lt)
      rep.figure(
          fp, "Throughput as a fraction of cuSPARSELt on the same case (1.0: parity; dotted: the target, " +
                  pct(kWgmmaTarget, 0) + " on every case).");
    else
      rep.para("cuSPARSELt is not in these results (the benchmark skips it when the library is not found), so no "
               "fractions of it can be formed.");
    // Table: TFLOP/s and fraction of cuSPARSELt.
    // The run each row comes from: named once when one run holds them all, else per row.
    std::set<std::string> row_files;
    std::string a_path;  // one row's file, the only one when one_run
    for (const auto& c : cases)
      for (const auto& [k, row] : at[c]) {
        row_files.insert(std::filesystem::path(row.file).filename().string());
        a_path = row.file;
      }
    const bool one_run = row_files.size() == 1;
    std::vector<std::string> hdr = {"case"};
    if (!one_run) hdr.push_back("run");
    for (const auto& k : kernels) hdr.push_back(k + (have_lt && k != "cusparselt" ? " TFLOP/s (of cuSPARSELt)" : " TFLOP/s"));
    std::vector<std::vector<std::string>> t;
    std::vector<std::pair<double, std::string>> fracs;  // best passing warpsparse kernel / cuSPARSELt, case
    for (const auto& c : cases) {
      const auto& byk = at[c];
      std::string file;
      for (const auto& [k, row] : byk) file = std::max(file, std::filesystem::path(row.file).filename().string());
      std::vector<std::string> r = {c};
      if (!one_run) r.push_back(file);
      const auto lt = byk.find("cusparselt");
      for (const auto& k : kernels) {
        const auto it = byk.find(k);
        if (it == byk.end()) {
          r.push_back("-");
          continue;
        }
        std::string cell = num(it->second.tflops, 1);
        if (lt != byk.end() && k != "cusparselt")
          cell += " (" + pct(it->second.tflops / lt->second.tflops, 0) + ")";
        if (!it->second.check.empty() && it->second.check != "pass") cell += " FAIL";
        r.push_back(cell);
      }
      t.push_back(r);
      if (const GemmRow* best = best_warpsparse(byk); best && lt != byk.end())
        fracs.push_back({best->tflops / lt->second.tflops, c});
    }
    if (!fracs.empty()) {
      std::sort(fracs.begin(), fracs.end());
      const auto met = fracs.end() - std::lower_bound(fracs.begin(), fracs.end(),
                                                      std::make_pair(kWgmmaTarget, std::string()));
      answer += fmt::format(
          "{}{}, {}: the faster warpsparse kernel reaches a median {} of cuSPARSELt over {} cases, "
          "at least {} in {} (lowest {} at {}, highest {} at {})",
          answer.empty() ? "" : "; ", gpu, rest_ms > 0 ? "rested" : "sustained",
          pct(fracs[fracs.size() / 2].first, 0), fracs.size(), pct(kWgmmaTarget, 0), met,
          pct(fracs.front().first, 0), fracs.front().second, pct(fracs.back().first, 0), fracs.back().second);
    }
    rep.table(hdr, t,
              "Cases as in the figures (size^3: the square cubes; W x K n=N: an Appendix D weight of W rows and K "
              "columns times N tokens). TFLOP/s = 2MNK / median time; in brackets the fraction of cuSPARSELt's TFLOP/s "
              "on the same case." +
                  (one_run ? fmt::format(" All rows come from `{}` (commit {}).", *row_files.begin(),
                                         bench_results::meta_commit(a_path).empty() ? "not recorded"
                                                                                     : bench_results::meta_commit(a_path))
                           : std::string()));
    // The targets (stated for the H100; shown for whatever GPU measured them). The 2:4 target counts
    // every case with cuSPARSELt beside a warpsparse kernel in this table: a case whose kernels all
    // failed their check, or whose best kernel is below the target, is a miss.
    std::vector<std::vector<std::string>> tg;
    if (have_lt) {
      int with_lt = 0;
      for (const auto& c : cases)
        with_lt += at[c].count("cusparselt") > 0 &&
                   std::any_of(at[c].begin(), at[c].end(),
                               [](const auto& k) { return k.first.rfind("warpsparse", 0) == 0; });
      const auto met =
          std::count_if(fracs.begin(), fracs.end(), [](const auto& f) { return f.first >= kWgmmaTarget; });
      if (with_lt > 0)
        tg.push_back(
            {fmt::format("warpsparse 2:4 >= {} of cuSPARSELt on every case", pct(kWgmmaTarget, 0)),
             fmt::format("{} of {} cases{}", met, with_lt,
                         fracs.empty() ? std::string()
                                       : fmt::format(" (lowest {} at {})", pct(fracs.front().first, 0),
                                                     fracs.front().second)),
             met == with_lt ? "met" : "not met"});
    }
    {
      double best = 0;
      std::string which;
      for (const auto& [k, r] : at["8192^3"])
        if (k.rfind("warpsparse_mma_sp", 0) == 0 && (r.check.empty() || r.check == "pass") && r.tflops > best) {
          best = r.tflops;
          which = k;
        }
      if (!which.empty())
        tg.push_back({"mma.sp >= 600 TFLOP/s at 8192^3", fmt::format("{:.0f} TFLOP/s ({})", best, which),
                      best >= 600 ? "met" : "not met"});
    }
    if (!tg.empty())
      rep.table({"target", "measured", "status"}, tg,
                "The targets are stated for the H100; this table applies them to the GPU that produced these rows.");
    double best_mma = 0;
    for (const auto& [k, r] : at["8192^3"])
      if (k.rfind("warpsparse_mma_sp", 0) == 0 && (r.check.empty() || r.check == "pass"))
        best_mma = std::max(best_mma, r.tflops);
    std::string gpu_dir;  // the results folder of this GPU's rows (ws_mma_sp_peak writes there too)
    for (const auto& r : rows)
      if (r.gpu == gpu) {
        gpu_dir = std::filesystem::path(r.file).parent_path().filename().string();
        break;
      }
    if (rest_ms == 0) peak_section(rep, o, gpu, gpu_dir, best_mma, gi - 1);
  }
  // Each GPU measured in both power states: the sustained state against its first rested one.
  int ci = 0;
  for (const auto& [key, sus] : states)
    if (key.second == 0)
      for (const auto& [rkey, rest] : states)
        if (rkey.first == key.first && rkey.second > 0) {
          clock_section(rep, key.first, sus, rest, ci++);
          break;
        }
  rep.lead(question, (answer.empty() ? std::string("No case has cuSPARSELt beside a warpsparse kernel") : answer) +
                         (failed ? fmt::format(". {} row(s) failed their correctness check and are marked FAIL in "
                                               "figures and tables",
                                               failed)
                                 : std::string()) +
                         ".");
  return rep.write(o.out_dir);
}

}  // namespace warpsparse::notebooks
