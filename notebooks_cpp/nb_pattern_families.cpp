// Notebook 4: how far structured sparsity patterns push MACKO's padding from the uniform
// (Bernoulli) expectation, measured by the real encoder.
#include "analysis/effd.hpp"
#include "analysis/seed_tables.hpp"
#include "notebooks_cpp/nb_common.hpp"

namespace warpsparse::notebooks {

std::string pattern_families(const Options& o) {
  using namespace analysis;
  Report rep("04_pattern_families", "Notebook 4 — pattern families vs the uniform expectation");
  rep.para(provenance(o));
  rep.para("The expected case assumes every entry is nonzero independently with probability d. Pruned weights are "
           "not like that: row densities vary, zeros cluster, N:M patterns cap every gap, and magnitude pruning "
           "follows the scale of input channels. Each family (analysis/patterns.hpp) is generated at several "
           "densities, encoded by the real encoder (4-bit deltas, 16-bit values, 4096 columns), and its padding "
           "per nonzero is compared with the uniform expectation: the exact Bernoulli model at the family's "
           "measured density.");
  const std::int64_t R = 1000, C = 4096;
  const std::vector<double> dens = {0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7};
  const char* colors[] = {"#000000", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  Plot p;
  p.name = "padding_per_nonzero";
  p.title = "Padding per nonzero by pattern family (4-bit deltas, 4096 columns)";
  p.xlabel = "density d";
  p.ylabel = "padding elements / nonzeros";
  p.logy = true;
  p.key = "top right";
  p.xrange = "[0:0.75]";
  p.yrange = "[1e-6:10]";
  std::vector<std::vector<std::string>> t;
  int ci_ = 0;
  std::string at03;  // ratio to uniform at d = 0.3, per family
  Series uniform;
  uniform.title = "uniform expectation (exact model)";
  uniform.extra = "lw 2.5 lc rgb 'black'";
  for (double d = 0.02; d <= 0.75; d += 0.005) {
    uniform.x.push_back(d);
    uniform.y.push_back(exact_padding_bernoulli(C, d, 4).mean / (d * C));
  }
  p.series.push_back(uniform);
  for (const Pattern pat : all_patterns()) {
    const bool nm = pat == Pattern::nm_2_4 || pat == Pattern::nm_4_8;
    const auto pts = study(o, pat, nm ? std::vector<double>{0.5} : dens, R, C);
    Series s;
    s.title = std::string(to_string(pat));
    s.style = nm ? "points" : "linespoints";
    s.extra = fmt::format("lw 1.5 pt {} ps 0.9 lc rgb '{}'", 5 + ci_ % 4, colors[ci_ % 9]);
    ++ci_;
    for (const auto& q : pts) {
      const double per_nnz = q.nnz ? double(q.padding) / double(q.nnz) : 0.0;
      const double uni = q.measured_density > 0 ? q.uniform_mean / (q.measured_density * double(C)) : 0.0;
      if (per_nnz > 0) {
        s.x.push_back(q.measured_density);
        s.y.push_back(per_nnz);
      }
      if (std::abs(q.density - 0.3) < 1e-9 && uni > 0)
        at03 += fmt::format("{}{} {:.2f}x", at03.empty() ? "" : ", ", to_string(pat), per_nnz / uni);
      t.push_back({std::string(to_string(pat)), num(q.density, 2), num(q.measured_density, 4),
                   fmt::format("{:.3e}", per_nnz), fmt::format("{:.3e}", uni),
                   uni > 0 ? fmt::format("{:.2f}", per_nnz / uni) : "-", num(q.effd, 4),
                   num(macko_expected_printed(q.measured_density, 16, 4), 4)});
    }
    if (!s.x.empty()) p.series.push_back(s);
  }
  rep.figure(p, "Padding per nonzero (log scale). Points below the black line pad less than uniform rows of the same "
                "density; N:M patterns never leave a gap of 16 and need no padding at all (absent on a log axis).");
  rep.table({"family", "d requested", "d measured", "padding / nnz", "uniform / nnz", "ratio", "effd (encoder)",
             "effd (printed expected at measured d)"},
            t,
            "Family defaults: row_varying Beta with concentration 20; clustered mean zero run 2/d (twice a "
            "Bernoulli row's); magnitude families with log-normal column (and row) scales of log-sd 0.5.");

  rep.para("Padding relative to uniform rows of the same density at d = 0.3: " + at03 +
           ". Per-row magnitude pruning, Gaussian or heavy-tailed, stays at the uniform expectation even with "
           "column scales (independent columns with unequal probabilities barely change the run statistics); what "
           "raises padding is variation of density between rows (row_varying, and magnitude_matrix through its row "
           "scales) and clustering of zeros within a row. The ratios grow with density because uniform rows almost "
           "never contain 16 zeros in a row there, while the absolute padding stays small (see the effd columns).");

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
