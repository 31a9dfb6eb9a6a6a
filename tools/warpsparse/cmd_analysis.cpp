// warpsparse effd | study | report | compare: the storage models, the Monte Carlo padding studies,
// the notebook reports (analysis/ and notebooks_cpp/), and new benchmark results against the
// accepted ones.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/bench_results.hpp"
#include "analysis/effd.hpp"
#include "analysis/padding_study.hpp"
#include "notebooks_cpp/notebooks.hpp"
#include "reference/common/error.hpp"
#include "reference/common/parse_number.hpp"
#include "reference/io/output_file.hpp"
#include "reference/sparse/sparse_rows.hpp"
#include "tools/warpsparse/commands.hpp"

namespace warpsparse::cli {

namespace {
using namespace warpsparse::analysis;

struct EffdOptions {
  double density = -1;
  int value_bits = 16;
  int delta_bits = 4;
  std::int64_t rows = 0, cols = 0;
  bool json = false, table = false, crossovers = false;
};

StorageConfig storage_config(const EffdOptions& o) {
  StorageConfig c;
  c.value_bits = o.value_bits;
  c.delta_bits = o.delta_bits;
  c.shape = {o.rows, o.cols};
  require((o.rows > 0) == (o.cols > 0), "give both --rows and --cols, or neither");
  c.validate();
  return c;
}

void print_effd_one(const EffdOptions& o) {
  require(o.density >= 0 && o.density <= 1, "--density must lie in [0, 1]");
  const StorageConfig c = storage_config(o);
  const MackoEffd m = macko_effd(o.density, c);
  if (o.json) {
    nlohmann::json j;
    j["density"] = o.density;
    j["value_bits"] = o.value_bits;
    j["delta_bits"] = o.delta_bits;
    j["rows"] = o.rows;
    j["cols"] = o.cols;
    j["negligible_terms"] = c.shape.bounded() ? "kept" : "dropped";
    j["macko"] = {{"best", m.best}, {"expected", m.expected}, {"worst", m.worst}};
    for (const Format f : all_formats()) j["formats"][format_name(f)] = format_effd(f, o.density, c);
    if (c.shape.bounded()) {
      const auto pad = exact_padding_bernoulli(o.cols, o.density, o.delta_bits);
      j["padding_per_row"] = {{"exact_mean", pad.mean},
                              {"exact_sd", std::sqrt(pad.variance)},
                              {"asymptotic", asymptotic_padding_per_row(o.cols, o.density, o.delta_bits)}};
      for (const Format f : {Format::dense, Format::macko_expected, Format::csr32, Format::csr16}) {
        const auto r = roofline(f, o.density, c);
        j["roofline_3TBps"][format_name(f)] = {{"us", r.seconds * 1e6}, {"speedup_vs_dense", r.speedup_vs_dense}};
      }
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("effective density at d = {} (b_val = {}, b_delta = {}, {})\n", o.density, o.value_bits, o.delta_bits,
             c.shape.bounded() ? fmt::format("{}x{}, negligible terms kept", o.rows, o.cols)
                               : std::string("negligible terms dropped, as printed"));
  fmt::print("  MACKO best      {:.5f}\n  MACKO expected  {:.5f}\n  MACKO worst     {:.5f}\n", m.best, m.expected,
             m.worst);
  for (const Format f : {Format::dense, Format::csr32, Format::csr16, Format::bitmask, Format::tiled_csl, Format::q8,
                         Format::q4})
    fmt::print("  {:<15} {:.5f}\n", format_name(f), format_effd(f, o.density, c));
  if (c.shape.bounded()) {
    const auto pad = exact_padding_bernoulli(o.cols, o.density, o.delta_bits);
    fmt::print("  padding per row: exact {:.4f} (sd {:.4f}), paper's C·d·z/(1-z) {:.4f}\n", pad.mean,
               std::sqrt(pad.variance), asymptotic_padding_per_row(o.cols, o.density, o.delta_bits));
    const auto rd = roofline(Format::dense, o.density, c), rm = roofline(Format::macko_expected, o.density, c);
    fmt::print("  roofline at {:.1f} TB/s: dense {:.2f} us, MACKO expected {:.2f} us ({:.2f}x)\n",
               kDefaultBandwidth / 1e12, rd.seconds * 1e6, rm.seconds * 1e6, rm.speedup_vs_dense);
  }
}

void print_table(const EffdOptions& o) {
  const StorageConfig c = storage_config(o);
  fmt::print("effective density (b_val = {}, b_delta = {}; {})\n", o.value_bits, o.delta_bits,
             c.shape.bounded() ? "negligible terms kept" : "negligible terms dropped");
  fmt::print("{:>7} {:>7} {:>7} {:>8} {:>9} {:>10} {:>14} {:>11}\n", "density", "CSR32", "CSR16", "bitmask", "Tiled-CSL",
             "MACKO best", "MACKO expected", "MACKO worst");
  for (int i = 10; i >= 1; --i) {
    const double d = i / 10.0;
    const MackoEffd m = macko_effd(d, c);
    fmt::print("{:>7.1f} {:>7.3f} {:>7.3f} {:>8.3f} {:>9.3f} {:>10.3f} {:>14.3f} {:>11.3f}\n", d,
               format_effd(Format::csr32, d, c), format_effd(Format::csr16, d, c), format_effd(Format::bitmask, d, c),
               format_effd(Format::tiled_csl, d, c), m.best, m.expected, m.worst);
  }
}

void print_crossovers(const EffdOptions& o) {
  const StorageConfig c = storage_config(o);
  const auto xs = analysis::crossovers(c);
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& x : xs)
      j.push_back({{"crossover", x.name},
                   {"scenario", x.scenario},
                   {"found", x.found},
                   {"density", x.found ? nlohmann::json(x.density) : nlohmann::json()},
                   {"claim", x.claim},
                   {"source", x.source},
                   {"claimed_density", x.claimed_density >= 0 ? nlohmann::json(x.claimed_density) : nlohmann::json()},
                   {"verdict", x.verdict()}});
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("crossover densities (b_val = {}, b_delta = {}), Boost.Math TOMS 748\n", o.value_bits, o.delta_bits);
  fmt::print("{:<22} {:<9} {:>9} {:>9}  {:>8}  {}\n", "crossover", "scenario", "density", "sparsity", "claimed",
             "verdict / claim (source)");
  for (const auto& x : xs) {
    const std::string dens = x.found ? fmt::format("{:.4f}", x.density) : "none";
    const std::string spars = x.found ? fmt::format("{:.1f}%", 100 * (1 - x.density)) : "-";
    const std::string claimed = x.claimed_density >= 0 ? fmt::format("{:.{}f}", x.claimed_density, x.claimed_decimals) : "-";
    fmt::print("{:<22} {:<9} {:>9} {:>9}  {:>8}  {}{}\n", x.name, x.scenario, dens, spars, claimed, x.verdict(),
               x.claim.empty() ? "" : fmt::format(" / \"{}\" ({})", x.claim, x.source));
  }
}

std::vector<double> parse_densities(const std::string& s) {
  std::vector<double> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    if (tok.empty()) continue;
    const auto v = to_number(tok);
    require(v && *v >= 0.0 && *v <= 1.0, "bad density '" + tok + "' in --densities (expected e.g. 0.1,0.5,0.9)");
    out.push_back(*v);
  }
  require(!out.empty(), "--densities is empty");
  return out;
}

}  // namespace

void register_analysis_commands(CLI::App& app) {
  // ---- effd ----
  auto eo = std::make_shared<EffdOptions>();
  auto* effd = app.add_subcommand("effd", "effective density of MACKO and the reference formats");
  auto* density =
      effd->add_option("--density,-d", eo->density, "matrix density d = nnz/(R·C)")->check(fraction());
  effd->add_option("--value-bits", eo->value_bits, "bits per value: 8, 16 or 32")
      ->transform(one_of({8, 16, 32}));
  effd->add_option("--delta-bits", eo->delta_bits, "bits per delta: 1, 2, 4 or 8")
      ->transform(one_of({1, 2, 4, 8}));
  effd->add_option("--rows", eo->rows, "rows (with --cols: keep row pointers, alignment, exact padding)")
      ->transform(whole(0, kMaxCols));
  effd->add_option("--cols", eo->cols, "columns")->transform(whole(0, kMaxCols));
  auto* effd_json =
      effd->add_flag("--json", eo->json, "machine-readable output (with --density or --crossovers)");
  auto* table = effd->add_flag("--table", eo->table, "print the storage table (densities 1.0 … 0.1)");
  auto* cross =
      effd->add_flag("--crossovers", eo->crossovers, "print the crossover densities and the seeds' claims");
  // Three outputs, one at a time: an option the chosen one would not read is refused.
  table->excludes(density)->excludes(cross)->excludes(effd_json);
  cross->excludes(density);
  effd->callback([eo] {
    if (eo->table) return print_table(*eo);
    if (eo->crossovers) return print_crossovers(*eo);
    require(eo->density >= 0, "give --density D, --table or --crossovers");
    print_effd_one(*eo);
  });

  // ---- study padding ----
  auto* study = app.add_subcommand("study", "Monte Carlo studies over the real encoder");
  study->require_subcommand(1);
  auto so = std::make_shared<StudyConfig>();
  auto pattern = std::make_shared<std::string>("bernoulli");
  auto dens = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto quiet = std::make_shared<bool>(false);
  auto* pad = study->add_subcommand("padding", "padding and effd per density: mean, CI, exact and asymptotic models");
  std::string families;
  for (const Pattern p : all_patterns())
    families += (families.empty() ? "" : ", ") + std::string(to_string(p));
  pad->add_option("--pattern", *pattern, "pattern family (" + families + ")");
  pad->add_option("--param", so->pattern.param, "family parameter (0: the family's default)");
  pad->add_option("--densities", *dens, "comma-separated densities (default: 20 from 0.01 to 1.0)");
  pad->add_option("--rows", so->rows, "rows per matrix")->transform(whole(1, kMaxCols));
  pad->add_option("--cols", so->cols, "columns")->transform(whole(1, kMaxCols));
  pad->add_option("--seed", so->seed, "random seed")->transform(whole(0, INT64_MAX));
  pad->add_option("--value-bits", so->value_bits, "8, 16 or 32")->transform(one_of({8, 16, 32}));
  pad->add_option("--delta-bits", so->delta_bits, "1, 2, 4 or 8")->transform(one_of({1, 2, 4, 8}));
  pad->add_option("--threads", so->threads, "worker threads (results do not depend on it)")->transform(whole(1, 256));
  pad->add_option("--confidence", so->confidence, "two-sided confidence level of the intervals");
  pad->add_flag("--trailing-padding", so->trailing_padding, "emit padding after a row's last nonzero too");
  pad->add_option("--out", *out, "write CSV here (default: stdout)");
  pad->add_flag("--json", *json, "JSON instead of CSV");
  pad->add_flag("--quiet", *quiet, "no progress line");
  pad->callback([=] {
    StudyConfig cfg = *so;
    cfg.pattern.kind = parse_pattern(*pattern);
    // A family that would ignore an option refuses it (require_param: --param); the N:M families
    // have one density.
    analysis::require_param(cfg.pattern, "--param");
    const bool nm = !pattern_takes_density(cfg.pattern.kind);
    require(!nm || dens->empty(),
            "--densities: the " + *pattern + " pattern keeps half of each group (density 0.5)");
    cfg.densities = nm              ? std::vector<double>{0.5}
                    : dens->empty() ? default_densities(20)
                                    : parse_densities(*dens);
    cfg.progress = !*quiet;
    cfg.validate();
    memory_budget().require(cfg.memory_bytes(), fmt::format("study padding over {} x {} with {} threads", cfg.rows,
                                                            cfg.cols, cfg.threads));
    const auto pts = run_padding_study(cfg);
    std::ostringstream os;
    if (*json) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& p : pts)
        j.push_back({{"pattern", std::string(to_string(cfg.pattern.kind))}, {"rows", cfg.rows}, {"cols", cfg.cols},
                     {"value_bits", cfg.value_bits}, {"delta_bits", cfg.delta_bits}, {"seed", cfg.seed},
                     {"density", p.density}, {"measured_density", p.measured_density}, {"nnz", p.nnz},
                     {"padding", p.padding}, {"storage_bytes", p.storage_bytes}, {"effd", p.effd},
                     {"effd_ci", {p.effd_lo, p.effd_hi}}, {"pad_per_row", p.pad_mean},
                     {"pad_ci", {p.pad_lo, p.pad_hi}}, {"pad_var", p.pad_var},
                     {"exact_pad_per_row", std::isnan(p.exact_mean) ? nlohmann::json() : nlohmann::json(p.exact_mean)},
                     {"uniform_pad_per_row", p.uniform_mean}, {"asymptotic_pad_per_row", p.asymptotic_mean},
                     {"confidence", cfg.confidence}});
      os << j.dump(2) << "\n";
    } else {
      write_study_csv(os, cfg, pts);
    }
    if (out->empty()) {
      std::cout << os.str();
    } else {
      io::write_file(*out, os.str());
      fmt::print(stderr, "wrote {}\n", *out);
    }
  });

  // ---- report ----
  auto ro = std::make_shared<notebooks::Options>();
  auto* report = app.add_subcommand("report", "build all notebooks (HTML + Markdown reports with figures)");
  report->add_option("--out", ro->out_dir, "output directory (default: reports/)");
  report->add_option("--bench-results", ro->bench_dir, "GPU benchmark results (default: bench/results)");
  report->add_option("--bandwidth", ro->bandwidth, "bandwidth for the model-only roofline, bytes/s (default 3.0e12: H100 copy); measured rows use their run's copy_gbps");
  report->add_option("--seed", ro->seed, "Monte Carlo seed")->transform(whole(0, INT64_MAX));
  report->add_flag("--quick", ro->quick, "smaller Monte Carlo samples (for smoke tests)");
  report->callback([ro] {
    const auto files = notebooks::build_all(*ro);
    fmt::print("reports written to {}:\n", std::filesystem::absolute(ro->out_dir).string());
    for (const auto& f : files) fmt::print("  {}\n", f);
  });

  // ---- headline ----
  struct HeadlineArgs {
    std::string results = "bench/results", gpu = "NVIDIA_H100_80GB_HBM3", check, update;
  };
  auto ha = std::make_shared<HeadlineArgs>();
  auto* head = app.add_subcommand("headline", "the headline results tables (Markdown) from the accepted benchmark results; "
                                              "--check or --update README.md's copy between its results markers");
  head->add_option("--results", ha->results, "accepted results, one folder per GPU")->capture_default_str();
  head->add_option("--gpu-dir", ha->gpu, "the GPU folder")->capture_default_str();
  auto* check =
      head->add_option("--check", ha->check, "fail unless this file's results block is the current text");
  head->add_option("--update", ha->update, "rewrite this file's results block")->excludes(check);
  head->callback([ha] {
    // A mistyped folder would otherwise write "no results" over the block.
    const std::filesystem::path dir = std::filesystem::path(ha->results) / ha->gpu;
    require(std::filesystem::is_directory(dir),
            dir.string() + ": no accepted results there (--results, --gpu-dir)");
    const std::string md = notebooks::headline_markdown(ha->results, ha->gpu);
    const std::string file = !ha->check.empty() ? ha->check : ha->update;
    if (file.empty()) {
      fmt::print("{}", md);
      return;
    }
    const std::string begin = "<!-- headline results: `warpsparse headline --update README.md` writes this block -->\n";
    const std::string end = "<!-- end of headline results -->";
    std::error_code ec;
    require(std::filesystem::is_regular_file(file, ec),
            file + ": not a regular file (or missing): the block lives in a file");
    require(std::filesystem::file_size(file, ec) <= (std::uintmax_t{64} << 20),
            file + ": over 64 MiB, not a README");
    std::ifstream in(file);
    require(static_cast<bool>(in), file + ": cannot open for reading");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    const auto b = text.find(begin), e = text.find(end);
    require(b != std::string::npos && e != std::string::npos && b < e,
            file + ": no results block (the lines '" + begin.substr(0, begin.size() - 1) + "' and '" + end + "')");
    const std::string current = text.substr(b + begin.size(), e - b - begin.size());
    if (!ha->check.empty()) {
      require(current == md, file + ": the headline results are not those of " + ha->results + "/" + ha->gpu +
                                 "; run `warpsparse headline --update " + file + "`");
      fmt::print("{}: headline results are current\n", file);
      return;
    }
    text.replace(b + begin.size(), e - b - begin.size(), md);
    io::write_file(file, text);
    fmt::print("{}: headline results updated\n", file);
  });

  // ---- compare ----
  struct CompareArgs {
    std::string run, results = "bench/results";
    std::vector<std::string> against;
    bool all = false;
  };
  auto ca = std::make_shared<CompareArgs>();
  auto* cmp = app.add_subcommand("compare",
                                 "a new benchmark results file against the accepted ones of the same GPU, case by case: "
                                 "flags every case slower than the measured run-to-run noise allows (exit 1)");
  cmp->add_option("RUN", ca->run, "the new results CSV (ws_bench_macko or ws_bench_sparse24)")->required();
  auto* results = cmp->add_option("--results", ca->results, "accepted results, one folder per GPU")
                      ->capture_default_str();
  cmp->add_option("--against", ca->against,
                  "compare with these CSV files instead (e.g. a base run of the same call)")
      ->excludes(results);
  cmp->add_flag("--all", ca->all, "print every case, not only those beyond the noise");
  cmp->callback([ca] {
    namespace br = analysis::bench_results;
    const br::Table run = br::read_table(ca->run);
    std::vector<br::Table> ref;
    if (!ca->against.empty()) {
      for (const auto& f : ca->against) {
        std::error_code ec;
        require(!std::filesystem::equivalent(f, ca->run, ec),
                f + ": is the run itself; --against takes other runs");
        ref.push_back(br::read_table(f));
      }
    } else {
      const std::filesystem::path dir = std::filesystem::path(ca->results) / run.gpu_dir;
      require(std::filesystem::is_directory(dir), dir.string() + ": no accepted results for this GPU (--results, --against)");
      for (auto& t : br::read_all(ca->results, run.program()))
        if (t.gpu_dir == run.gpu_dir) ref.push_back(std::move(t));
    }
    const br::Comparison c = br::compare(run, ref);
    fmt::print("{} ({} cases) against {} file(s): {} slower beyond noise, {} faster, {} within\n", ca->run,
               c.cases.size() + c.unmatched.size(), ref.size(), c.slower(), c.faster(),
               static_cast<int>(c.cases.size()) - c.slower() - c.faster());
    for (const auto& n : c.notes) fmt::print("note: {}\n", n);
    std::vector<double> ratios;
    for (const auto& d : c.cases) {
      ratios.push_back(d.ratio());
      if (!ca->all && !d.slower() && !d.faster()) continue;
      fmt::print("  {:7} {:>9.2f} us -> {:>9.2f} us  {:+6.2f} %  (noise: {:.1f} %, {:.1f} us)  {}  [{}]\n",
                 d.slower() ? "SLOWER" : d.faster() ? "faster" : "same", d.reference_us, d.new_us,
                 100 * (d.ratio() - 1), 100 * d.tol.rel, d.tol.abs_us, d.key, d.reference_file);
    }
    if (!ratios.empty()) {
      std::sort(ratios.begin(), ratios.end());
      fmt::print("median new/reference time {:.4f} (min {:.4f}, max {:.4f}) over {} matched cases\n",
                 ratios[ratios.size() / 2], ratios.front(), ratios.back(), ratios.size());
    }
    if (!c.unmatched.empty()) fmt::print("{} case(s) have no reference row (first: {})\n", c.unmatched.size(), c.unmatched.front());
    // Nothing matched is no comparison: a run named without its program and time (new_run.csv), a
    // reference of other cases or another program.
    require(!c.cases.empty(), ca->run + ": no case matched a reference row (program '" + run.program() +
                                  "', " + std::to_string(ref.size()) +
                                  " reference file(s)); name the run PROGRAM_TIME.csv as the "
                                  "benchmarks do, or give --against");
    if (c.slower() > 0)
      throw Error(ca->run + ": " + std::to_string(c.slower()) + " case(s) slower than the reference beyond the noise");
  });
}

}  // namespace warpsparse::cli
