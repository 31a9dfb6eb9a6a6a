// The headline results: one Markdown table per kernel from the newest accepted benchmark rows of one
// GPU, with the GPU, the dates and commits they came from. README.md carries this text between its
// results markers, and a test checks that it is what the results say.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "notebooks_cpp/nb_common.hpp"

namespace warpsparse::notebooks {

namespace {

using bench_results::Table;
using bench_results::to_d;
using Row = std::vector<std::string>;

// "2026-11-26 (d737283)" for each distinct date and commit of the rows used, oldest first.
std::string provenance(const std::vector<std::pair<const Table*, const Row*>>& used) {
  std::set<std::string> seen;
  std::string out;
  for (const auto& [t, r] : used) {
    std::string date = t->get(*r, "timestamp").substr(0, 10);
    std::string commit = t->get(*r, "commit").substr(0, 7);
    const std::string s = date + " (" + commit + ")";
    if (seen.insert(s).second) out += (out.empty() ? "" : ", ") + s;
  }
  return out;
}

std::string files_of(const std::vector<std::pair<const Table*, const Row*>>& used) {
  std::set<std::string> names;
  for (const auto& u : used) names.insert(u.first->path.filename().string());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out;
}

// The 15 Appendix D shapes of at least 12288^2 elements, in the order the benchmark lists them.
constexpr std::pair<int, int> kBigShapes[] = {{12288, 12288}, {28672, 8192}, {8192, 28672}, {36864, 12288},
                                              {21504, 7168},  {32000, 5120}, {7168, 28672}, {9216, 36864},
                                              {8192, 29568},  {32000, 8192}, {28672, 7168}, {27648, 9216},
                                              {36864, 9216},  {49152, 12288}, {12288, 49152}};

std::string macko_table(const std::vector<Table>& tables) {
  // Newest batch-1 fp16 uniform MACKO row per (shape, density), at 4-bit deltas or at the width the
  // policy picked (`--delta-bits auto`); the fastest if one file swept.
  std::map<std::tuple<int, int, std::string>, std::pair<const Table*, const Row*>> best;
  for (const Table& t : tables)
    for (const Row& r : t.rows) {
      const bool by_policy = t.get(r, "schedule").find("/deltas=auto") != std::string::npos;
      if (t.get(r, "kernel") != "macko" || t.get(r, "pattern") != "exact_nnz" || t.get(r, "value_type") != "fp16" ||
          (t.get(r, "delta_bits") != "4" && !by_policy))
        continue;
      const std::string batch = t.get(r, "batch");
      if (!batch.empty() && batch != "1") continue;
      const auto key = std::make_tuple(static_cast<int>(to_d(t.get(r, "rows"))), static_cast<int>(to_d(t.get(r, "cols"))),
                                       num(to_d(t.get(r, "density")), 2));
      const auto it = best.find(key);
      if (it != best.end() && it->second.first == &t && to_d(t.get(*it->second.second, "median_us")) <= to_d(t.get(r, "median_us")))
        continue;
      best[key] = {&t, &r};
    }
  const char* densities[] = {"1.00", "0.50", "0.30", "0.10"};
  std::string md = "| shape (rows x cols) | d = 1.0 | d = 0.5 | d = 0.3 | d = 0.1 |\n|---|---|---|---|---|\n";
  std::vector<std::pair<const Table*, const Row*>> used;
  int rows = 0;
  for (const auto& [r, c] : kBigShapes) {
    std::string line = fmt::format("| {} x {} |", r, c);
    bool any = false;
    for (const char* d : densities) {
      const auto it = best.find({r, c, d});
      if (it == best.end()) {
        line += " - |";
        continue;
      }
      any = true;
      used.push_back(it->second);
      const auto& [t, row] = it->second;
      const double sp = to_d(t->get(*row, "speedup_vs_cublas")), pct = to_d(t->get(*row, "pct_copy_bw"));
      const std::string bits = t->get(*row, "delta_bits");
      line += fmt::format(" {:.2f}x ({:.0f} %{}) |", sp, pct, bits == "4" ? "" : ", " + bits + "-bit");
    }
    if (any) {
      md += line + "\n";
      ++rows;
    }
  }
  if (rows == 0) return "";
  return md + fmt::format("\nSpeedup of MACKO SpMV over cuBLAS GEMV (fp16, one vector, rows of exactly d · cols "
                          "nonzeros, 4-bit deltas unless the cell names another width, the delta width and schedule "
                          "the policy picks), and in brackets its effective bytes' share of the measured copy "
                          "bandwidth; medians of 200 launches, L2 flushed, cuBLAS in the same run. {}; {}.\n",
                          provenance(used), files_of(used));
}

std::string sparse24_table(const std::vector<Table>& tables) {
  // The newest headline run: sustained rows (one call measures every kernel of a case) that time
  // the mma.sp kernel beside the wgmma.sp one. A newer rested run, or a `--full` run of the default
  // kernel alone, is the report's (notebook 6), not the headline's.
  const std::string wgmma_prefix = "warpsparse_wgmma_sp_", mma = "warpsparse_mma_sp_tall_pipe";
  auto sustained = [](const Table& t, const Row& r) { return rest_ms_of(t, r) == 0; };
  const auto newest = std::find_if(tables.rbegin(), tables.rend(), [&](const Table& t) {
    return std::any_of(t.rows.begin(), t.rows.end(),
                       [&](const Row& r) { return sustained(t, r) && t.get(r, "kernel") == mma; });
  });
  if (newest == tables.rend()) return "";
  const Table& t = *newest;
  struct Cell {
    std::map<std::string, double> tflops;
    const Row* any = nullptr;
  };
  // A case per (M, N, K, weight shape): the plain cubes come first, so a weight case of the same
  // M x N x K is not shown twice.
  std::vector<std::string> order;
  std::map<std::string, Cell> cases;
  std::map<std::string, std::string> mnk;
  for (const Row& r : t.rows) {
    if (!sustained(t, r)) continue;
    const std::string dims = t.get(r, "m") + " x " + t.get(r, "n") + " x " + t.get(r, "k");
    const std::string key = dims + "/" + t.get(r, "weight_shape");
    if (!cases.count(key)) {
      order.push_back(key);
      mnk[key] = dims;
    }
    Cell& c = cases[key];
    c.tflops[t.get(r, "kernel")] = to_d(t.get(r, "tflops"));
    c.any = &r;
  }
  // The wgmma.sp column: the one wgmma.sp kernel of a case, whichever tile the library picked for it
  // (the benchmark names the default run after its tile); a run that timed several shows none.
  std::string md =
      "| M x N x K | cuBLAS dense | cuSPARSELt | ours, wgmma.sp (% of cuSPARSELt) | ours, mma.sp |\n|---|---|---|---|---|\n";
  std::vector<std::pair<const Table*, const Row*>> used;
  std::set<std::string> shown;
  for (const auto& key : order) {
    if (!shown.insert(mnk[key]).second) continue;
    const Cell& c = cases[key];
    auto get = [&](const std::string& k) {
      const auto it = c.tflops.find(k);
      return it == c.tflops.end() ? std::string("-") : fmt::format("{:.0f}", it->second);
    };
    std::string wgmma;
    int wgmma_kernels = 0;
    for (const auto& [k, v] : c.tflops)
      if (k.starts_with(wgmma_prefix)) wgmma = k, ++wgmma_kernels;
    if (wgmma_kernels != 1) wgmma.clear();
    const auto lt = c.tflops.find("cusparselt"), ws = c.tflops.find(wgmma);
    const std::string pct = lt != c.tflops.end() && ws != c.tflops.end() ? fmt::format(" ({:.0f} %)", 100 * ws->second / lt->second) : "";
    md += fmt::format("| {} | {} | {} | {}{} | {} |\n", mnk[key], get("cublas_dense"), get("cusparselt"), get(wgmma), pct, get(mma));
    used.push_back({&t, c.any});
  }
  if (used.empty()) return "";
  const double warm_ms = to_d(t.get(*used.front().second, "warmup_ms"));  // absent before --warmup-ms
  const std::string warm =
      std::isfinite(warm_ms) && warm_ms > 0
          ? fmt::format(", each kernel warmed up by at least {:.0f} ms of its own launches", warm_ms)
          : "";
  return md + fmt::format(
                  "\n2:4 sparse GEMM, bf16, TFLOP/s (2MNK / median time, L2 flushed, back to back{}: the "
                  "sustained power state); wgmma.sp is the kernel `sparse24::gpu::gemm` runs on an H100, "
                  "mma.sp the one it runs before Hopper. {}; `{}`.\n",
                  warm, provenance(used), t.path.filename().string());
}

std::string csr_table(const std::vector<Table>& tables) {
  // Our CSR kernel against cuSPARSE, on four shapes, from the newest file that timed both.
  using Key = std::tuple<int, int, std::string>;
  std::map<Key, std::pair<const Table*, std::map<std::string, const Row*>>> cell;
  for (const Table& t : tables) {
    std::map<Key, std::map<std::string, const Row*>> here;
    for (const Row& r : t.rows) {
      const std::string k = t.get(r, "kernel");
      const std::string batch = t.get(r, "batch");
      if ((k != "csr_warp" && k != "cusparse_csr") || t.get(r, "pattern") != "exact_nnz" ||
          t.get(r, "value_type") != "fp16" || (!batch.empty() && batch != "1"))
        continue;
      here[{static_cast<int>(to_d(t.get(r, "rows"))), static_cast<int>(to_d(t.get(r, "cols"))),
            num(to_d(t.get(r, "density")), 2)}][k] = &r;
    }
    for (auto& [key, kernels] : here)
      if (kernels.size() == 2) cell[key] = {&t, kernels};
  }
  std::string md = "| shape | d | ours (us) | cuSPARSE (us) | ours / cuSPARSE time |\n|---|---|---|---|---|\n";
  std::vector<std::pair<const Table*, const Row*>> used;
  for (const auto& [r, c] : {std::pair{12288, 12288}, {28672, 8192}, {8192, 28672}, {36864, 12288}})
    for (const char* d : {"0.50", "0.10"}) {
      const auto it = cell.find({r, c, d});
      if (it == cell.end()) continue;
      const Table* t = it->second.first;
      const Row* ours = it->second.second.at("csr_warp");
      const Row* cus = it->second.second.at("cusparse_csr");
      const double a = to_d(t->get(*ours, "median_us")), b = to_d(t->get(*cus, "median_us"));
      md += fmt::format("| {} x {} | {} | {:.1f} | {:.1f} | {:.2f} |\n", r, c, d, a, b, a / b);
      used.push_back({t, ours});
    }
  if (used.empty()) return "";
  return md + fmt::format("\nThe plain CSR SpMV kernel (one warp per row, our baseline) against cuSPARSE's CSR SpMV "
                          "in the same run. {}; {}.\n",
                          provenance(used), files_of(used));
}

}  // namespace

std::string headline_markdown(const std::string& bench_dir, const std::string& gpu_dir) {
  auto of_gpu = [&](const char* program) {
    std::vector<Table> out;
    for (auto& t : bench_results::read_all(bench_dir, program))
      if (t.gpu_dir == gpu_dir && t.program() == program) out.push_back(std::move(t));
    return out;
  };
  const auto macko = of_gpu("macko");
  const auto s24 = of_gpu("sparse24");
  std::string gpu_name = gpu_dir;
  for (const auto* ts : {&macko, &s24})
    if (!ts->empty() && !ts->front().rows.empty()) gpu_name = ts->front().get(ts->front().rows.front(), "gpu");
  std::string md;
  const std::string m = macko_table(macko), s = sparse24_table(s24), c = csr_table(macko);
  if (!m.empty()) md += "**MACKO SpMV** (" + gpu_name + ")\n\n" + m + "\n";
  if (!s.empty()) md += "**2:4 sparse GEMM** (" + gpu_name + ")\n\n" + s + "\n";
  if (!c.empty()) md += "**CSR SpMV** (" + gpu_name + ")\n\n" + c + "\n";
  if (md.empty()) md = "No benchmark results for " + gpu_dir + " under " + bench_dir + ".\n";
  return md;
}

}  // namespace warpsparse::notebooks
