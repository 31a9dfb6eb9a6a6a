// The page `warpsparse analyze --out DIR` writes: what each weight of a checkpoint costs in each
// sparse format, measured on the weights themselves (analysis/checkpoint.hpp), and the MACKO speedup
// the roofline predicts for each GPU.
#include <algorithm>

#include "notebooks_cpp/nb_common.hpp"
#include "notebooks_cpp/notebooks.hpp"
#include "reference/device/device_facts.hpp"

namespace warpsparse::notebooks {

std::string checkpoint_report(const analysis::CheckpointAnalysis& a, const std::string& dir) {
  Report rep("checkpoint", "Sparse formats on " + a.path);
  std::vector<const analysis::TensorAnalysis*> done;
  for (const auto& t : a.tensors)
    if (t.skipped.empty()) done.push_back(&t);
  const auto totals = analysis::checkpoint_totals(a);
  auto total_of = [&](const std::string& f) {
    const auto it = std::find_if(totals.begin(), totals.end(), [&](const auto& x) { return x.format == f; });
    return it == totals.end() ? 0.0 : it->effd;
  };
  rep.lead("Which format stores this checkpoint's weights in the fewest bytes, and what would MACKO gain over a dense "
           "GEMV?",
           fmt::format("{} of {} tensors are 2-D weights of a supported dtype; over them MACKO "
                       "(4-bit deltas) stores {:.1f} % of the dense bytes, CSR32 {:.1f} %, bitmask {:.1f} %. "
                       "Measured by encoding each weight ({} threads, {:.1f} s).",
                       done.size(), a.tensors.size(), 100 * total_of("macko-b4"), 100 * total_of("csr32"),
                       100 * total_of("bitmask"), a.threads, a.seconds));
  std::vector<std::vector<std::string>> trows;
  for (const auto& f : totals) trows.push_back({f.format, fmt::format("{:.3f}", double(f.bytes) / 1e9), fmt::format("{:.4f}", f.effd)});
  rep.table({"format", "GB", "effd (bytes / dense bytes)"}, trows, "Totals over the analysed tensors (a format that does "
                                                                   "not apply to a tensor counts it as dense).");
  // Figure 1: effd against density, one series per format.
  Plot p1;
  p1.name = "effd_vs_density";
  p1.title = "Bytes of each format over the dense bytes, per tensor";
  p1.xlabel = "tensor density";
  p1.ylabel = "effective density";
  p1.key = "top left";
  p1.xrange = "[0:1]";
  const char* styles[] = {"pt 7 ps 0.8", "pt 5 ps 0.8", "pt 9 ps 0.9", "pt 13 ps 0.9", "pt 11 ps 0.9", "pt 3 ps 1.0", "pt 1 ps 1.2"};
  int si = 0;
  for (const std::string f : {"macko-b2", "macko-b4", "macko-b8", "csr16", "csr32", "bitmask", "2:4"}) {
    Series s;
    s.title = f;
    s.style = "points";
    s.extra = styles[si++ % 7];
    for (const auto* t : done)
      for (const auto& fb : t->formats)
        if (fb.format == f) {
          s.x.push_back(t->density);
          s.y.push_back(fb.effd);
        }
    if (!s.x.empty()) p1.series.push_back(s);
  }
  rep.figure(p1, "Each point is one tensor in one format; below 1 the format is smaller than dense.");
  // Figure 2: predicted speedup per tensor size.
  Plot p2;
  p2.name = "predicted_speedup";
  p2.title = "MACKO (4-bit deltas) over a dense GEMV, predicted";
  p2.xlabel = "dense bytes of the tensor";
  p2.ylabel = "speedup";
  p2.logx = true;
  p2.key = "top left";
  const auto gpu_label = [](const char* name, const DeviceFacts& g) {
    return fmt::format("{} ({:.2f} TB/s, {:.1f} us)", name, g.copy_bytes_per_s / 1e12, g.latency_us);
  };
  Series h100{gpu_label("H100", kH100), {}, {}, {}, {}, "points", "pt 7 ps 0.9"};
  Series h200{gpu_label("H200", kH200), {}, {}, {}, {}, "points", "pt 5 ps 0.9"};
  for (const auto* t : done) {
    h100.x.push_back(double(t->dense_bytes));
    h100.y.push_back(t->speedup_h100);
    h200.x.push_back(double(t->dense_bytes));
    h200.y.push_back(t->speedup_h200);
  }
  p2.series = {h100, h200};
  rep.figure(p2, "Roofline: (latency + bytes / copy bandwidth) of the dense GEMV over that of MACKO, with each GPU's "
                 "measured copy bandwidth and latency; small tensors gain less because the latency does not shrink.");
  // Figure 3: row density spread.
  Plot p3;
  p3.name = "row_density";
  p3.title = "Row densities per tensor: median, with the 10th-90th percentile range";
  p3.xlabel = "tensor (file order)";
  p3.ylabel = "row density";
  p3.key = "top right";
  p3.yrange = "[0:1]";
  Series med{"median (bars: p10 to p90)", {}, {}, {}, {}, "errorbars", "pt 7 ps 0.6"};
  for (std::size_t i = 0; i < done.size(); ++i) {
    med.x.push_back(double(i));
    med.y.push_back(done[i]->row_density[2]);
    med.ylo.push_back(done[i]->row_density[1]);
    med.yhi.push_back(done[i]->row_density[3]);
  }
  p3.series = {med};
  rep.figure(p3, "Uniform rows (short bars) suit every format; rows of very different density make a per-row "
                 "format's work uneven across warps.");
  std::vector<std::vector<std::string>> rows;
  for (const auto* t : done) {
    const auto fb = [&](const std::string& f) {
      const auto it = std::find_if(t->formats.begin(), t->formats.end(), [&](const auto& x) { return x.format == f; });
      return it == t->formats.end() ? std::string("-") : fmt::format("{:.3f}", it->effd);
    };
    rows.push_back({t->name, t->shape, t->dtype, fmt::format("{:.3f}", t->density),
                    fmt::format("{:.2f}-{:.2f}", t->row_density[1], t->row_density[3]), t->nm.empty() ? "-" : t->nm,
                    fb("macko-b4"), fb("csr32"), fb("2:4"), t->best, fmt::format("{:.2f}x / {:.2f}x", t->speedup_h100, t->speedup_h200)});
  }
  rep.table({"tensor", "shape", "dtype", "density", "rows p10-p90", "N:M", "MACKO b4", "CSR32", "2:4", "fewest bytes",
             "predicted H100 / H200"},
            rows, "Every analysed tensor (effd columns: bytes over dense bytes). The full data: analysis.csv and analysis.json beside this page.");
  return rep.write(dir);
}

}  // namespace warpsparse::notebooks
