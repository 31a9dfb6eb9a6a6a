// Notebook 4: how far structured sparsity patterns push MACKO's padding from the uniform
// (Bernoulli) expectation, measured by the real encoder.
#include <map>

#include "analysis/effd.hpp"
#include "analysis/seed_tables.hpp"
#include "notebooks_cpp/nb_common.hpp"

namespace warpsparse::notebooks {

namespace {

// A ratio to the uniform expectation is resolvable only where a uniform sample of this size would
// show some padding: below a few expected elements, no sample can tell 1x from 1000x.
constexpr double kResolvableElements = 3.0;

}  // namespace

std::string pattern_families(const Options& o) {
  using namespace analysis;
  Report rep("04_pattern_families", "Notebook 4 — pattern families vs the uniform expectation");
  const std::int64_t R = 1000, C = 4096;
  const std::int64_t rows = o.quick ? std::max<std::int64_t>(20, R / 10) : R;
  const std::vector<double> dens = {0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7};
  // Two panels of at most six series each: the families that shape where zeros fall, and the
  // magnitude-pruned and N:M families.
  const std::vector<std::vector<Pattern>> groups = {
      {Pattern::bernoulli, Pattern::exact_nnz, Pattern::row_varying, Pattern::clustered},
      {Pattern::magnitude_row, Pattern::magnitude_matrix, Pattern::magnitude_heavy, Pattern::nm_2_4, Pattern::nm_4_8}};
  Plot p;
  p.name = "padding_per_nonzero";
  p.title = "Padding per nonzero by pattern family (4-bit deltas, 4096 columns; 95% intervals)";
  panels_in_a_row(p, 2, 600);
  std::vector<std::vector<std::string>> t;
  std::map<std::string, std::string> at03;  // family -> ratio to uniform at d = 0.3, with its interval
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Plot pn;
    pn.name = fmt::format("g{}", g);
    pn.title = g == 0 ? "where the zeros fall" : "magnitude pruning and N:M";
    pn.xlabel = "density d";
    pn.ylabel = "padding elements / nonzeros";
    pn.logy = true;
    pn.key = "top right";  // high padding sits at low density: the top right stays empty
    pn.xrange = "[0:0.75]";
    pn.yrange = "[1e-7:100]";  // a decade of headroom for the key
    Series uniform;
    uniform.title = "uniform expectation (exact model)";
    uniform.extra = "lw 2.5 lc rgb 'black'";
    for (double d = 0.02; d <= 0.75; d += 0.005) {
      uniform.x.push_back(d);
      uniform.y.push_back(exact_padding_bernoulli(C, d, 4).mean / (d * C));
    }
    pn.series.push_back(uniform);
    int lt = 1;
    for (const Pattern pat : groups[g]) {
      const bool nm = pat == Pattern::nm_2_4 || pat == Pattern::nm_4_8;
      const auto pts = study(o, pat, nm ? std::vector<double>{0.5} : dens, R, C);
      Series s;
      s.title = std::string(to_string(pat));
      s.style = "errorbars";
      s.extra = fmt::format("lt {} pt {} ps 1.1 lw 1.5", lt, 5 + 2 * (lt % 4));
      Series line;  // the same points joined, without a key entry
      line.extra = fmt::format("lt {} lw 1 dt 2", lt);
      ++lt;
      for (const auto& q : pts) {
        const double nnz_per_row = q.measured_density * double(C);
        const double per_nnz = nnz_per_row > 0 ? q.pad_mean / nnz_per_row : 0.0;
        const double lo = nnz_per_row > 0 ? q.pad_lo / nnz_per_row : 0.0, hi = nnz_per_row > 0 ? q.pad_hi / nnz_per_row : 0.0;
        s.x.push_back(q.measured_density);
        s.y.push_back(per_nnz);
        s.ylo.push_back(lo);
        s.yhi.push_back(hi);
        line.x.push_back(q.measured_density);
        line.y.push_back(per_nnz);
        // The uniform expectation of padding elements in this sample says whether a ratio is measurable.
        const double uni_rows = q.uniform_mean * double(rows);
        std::string ratio;
        if (uni_rows < kResolvableElements)
          ratio = fmt::format("below resolution (uniform expects {:.2g} padding elements in {} rows)", uni_rows, rows);
        else
          ratio = fmt::format("{:.2f} [{:.2f}, {:.2f}]", q.pad_mean / q.uniform_mean, q.pad_lo / q.uniform_mean,
                              q.pad_hi / q.uniform_mean);
        if (std::abs(q.density - 0.3) < 1e-9) at03[std::string(to_string(pat))] = ratio;
        t.push_back({std::string(to_string(pat)), num(q.density, 2), num(q.measured_density, 4),
                     fmt::format("{:.3e}", per_nnz), fmt::format("[{:.2e}, {:.2e}]", lo, hi),
                     fmt::format("{:.3e}", nnz_per_row > 0 ? q.uniform_mean / nnz_per_row : 0.0), ratio, num(q.effd, 4),
                     num(macko_expected_printed(q.measured_density, 16, 4), 4)});
      }
      pn.series.push_back(s);
      if (!nm) pn.series.push_back(line);
    }
    p.panels.push_back(pn);
  }
  std::string ratios;
  for (const auto& [fam, r] : at03) ratios += fmt::format("{}{} {}", ratios.empty() ? "" : "; ", fam, r);
  rep.lead("Do the zero patterns of pruned weights make MACKO pad more than the uniform (Bernoulli) model predicts?",
           "Yes where rows differ in density or zeros cluster, not where pruning is per row by magnitude. At d = 0.3 the "
           "padding relative to uniform rows of the same density (ratio [95% interval]) is: " + ratios +
           ". N:M patterns need no padding. The absolute padding stays small (see the effd columns), and above "
           "d = 0.5 uniform rows pad so rarely that a ratio is below what the sample can resolve.");
  rep.para(provenance(o));
  rep.para("The expected case assumes every entry is nonzero independently with probability d. Pruned weights are "
           "not like that: row densities vary, zeros cluster, N:M patterns cap every gap, and magnitude pruning "
           "follows the scale of input channels. Each family (analysis/patterns.hpp) is generated at several "
           "densities, encoded by the real encoder (4-bit deltas, 16-bit values, 4096 columns), and its padding "
           "per nonzero is compared with the uniform expectation: the exact Bernoulli model at the family's "
           "measured density.");
  rep.figure(p, "Padding per nonzero (log scale) with 95% intervals (quasi-Poisson: never negative, and above zero "
                "where no row padded). Points below the black line pad less than uniform rows of the same density.");
  const std::vector<std::string> header = {"family", "d requested", "d measured", "padding / nnz", "95% interval",
                                           "uniform / nnz", "ratio to uniform [95%]", "effd (encoder)",
                                           "effd (printed expected at measured d)"};
  std::vector<std::vector<std::string>> summary;
  for (const auto& r : t)
    if (r[1] == "0.10" || r[1] == "0.30" || r[1] == "0.50") summary.push_back(r);
  rep.table(header, summary,
            fmt::format("At d = 0.1, 0.3 and 0.5 (every family and density is in the CSV below). A ratio is shown only where uniform rows would show at least {:g} padding elements in the "
                        "sample. Family defaults: row_varying Beta with concentration 20; clustered mean zero run 2/d "
                        "(twice a Bernoulli row's); magnitude families with log-normal column (and row) scales of "
                        "log-sd 0.5.", kResolvableElements),
            "families_summary");
  rep.data("families", header, t, "Every family at every density");
  rep.para("Per-row magnitude pruning, Gaussian or heavy-tailed, stays at the uniform expectation even with column "
           "scales (independent columns with unequal probabilities barely change the run statistics); what raises "
           "padding is variation of density between rows (row_varying, and magnitude_matrix through its row scales) "
           "and clustering of zeros within a row.");

  // Clustering sweep at d = 0.1 and the EC-SpMV measurement.
  rep.heading("How much clustering does real pruning show?");
  std::vector<std::vector<std::string>> cl;
  std::vector<std::pair<double, double>> sweep;  // (mean zero run, padding / nnz)
  for (const double mu : {10.0, 12.0, 14.0, 16.0, 20.0, 30.0, 40.0}) {
    const auto q = study(o, Pattern::clustered, {0.1}, R, C, 4, mu).front();
    const double per = double(q.padding) / double(q.nnz);
    sweep.emplace_back(mu, per);
    cl.push_back({num(mu, 0), num(q.measured_density, 4), pct(per, 2)});
  }
  rep.table({"mean zero run", "d measured", "padding / nnz"}, cl,
            "Clustered rows at d = 0.1 (90% sparsity), 4-bit deltas; a Bernoulli row's mean zero run is 1/d = 10.");
  std::vector<std::vector<std::string>> ec;
  for (const auto& e : kEcSpmvPaddingTable) {
    const double d = 1 - e.sparsity;
    const double u4 = run_probability(d, 4) / (1 - run_probability(d, 4));
    const double u8 = run_probability(d, 8) / (1 - run_probability(d, 8));
    ec.push_back({pct(e.sparsity, 0), fmt::format("{:.2f}%", e.ec_csr4_pct), pct(u4, 2),
                  fmt::format("{:.2f}%", e.ec_csr8_pct), fmt::format("{:.2g}%", 100 * u8)});
  }
  rep.table({"sparsity", "EC-CSR-4 measured", "uniform, 4-bit", "EC-CSR-8 measured", "uniform, 8-bit"}, ec,
            "ec-spmv-paper.txt §8.2 Table 2 (padding overhead on SparseGPT-pruned Llama2 matrices) against the "
            "uniform expectation z/(1−z) per nonzero with 2^b_Δ-column runs. EC-CSR's exact delta convention and "
            "overhead denominator are not stated in the seed, so this is a comparison of magnitudes.");
  // The mean zero run at which clustered rows match EC-SpMV's 90%-sparsity overhead (linear interpolation).
  const double target = kEcSpmvPaddingTable[2].ec_csr4_pct / 100.0;
  std::string match = "beyond the swept range";
  for (std::size_t i = 1; i < sweep.size(); ++i)
    if (sweep[i - 1].second <= target && target <= sweep[i].second) {
      const double f = (target - sweep[i - 1].second) / (sweep[i].second - sweep[i - 1].second);
      match = fmt::format("about {:.1f} columns ({:.2f}x the uniform 1/d = 10)",
                          sweep[i - 1].first + f * (sweep[i].first - sweep[i - 1].first),
                          (sweep[i - 1].first + f * (sweep[i].first - sweep[i - 1].first)) / 10.0);
    }
  rep.para("The measured overheads exceed the uniform expectation at every sparsity, relatively most at 70–80% "
           "sparsity where uniform rows almost never need padding: real pruned matrices are not Bernoulli. At 90% "
           "sparsity the clustered family reproduces the 4-bit figure with a mean zero run of " + match +
           ". That is one consistent reading, not a fit of the real matrices: the seed does not give their run-length "
           "distribution.");
  return rep.write(o.out_dir);
}

}  // namespace warpsparse::notebooks
