// The MACKO-or-EC chooser (reference/ec/ec_choice.hpp) against benchmark results: ws_bench_macko
// writes a `macko` and an `ec` row for each case it runs with `--kernels macko,ec`, with every
// input the chooser takes (bytes, nnz, shape; EC's pieces and nnz share per block set in its
// schedule field). check() pairs them, runs the chooser on the CSV's fields and says how often it
// picks the measured faster format and what a wrong pick costs; fit() refits the chooser's Rules on
// the same files, which is how the shipped coefficients were obtained (docs/ec-spmv.md). Host only.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/bench_results.hpp"
#include "reference/device/device_facts.hpp"
#include "reference/ec/ec_choice.hpp"

namespace warpsparse::analysis::format_choice {

// The EC figures of an `ec` row's schedule field, "db=8/pieces=99423/nnz%=0:35:50:13:2/enc_s=15.7":
// delta bits, pieces, and the share of nonzeros per set in the order G = 8, 4, 2, 1 long, 1 short
// (whole percents). nullopt when the pieces or the shares are missing or unreadable.
std::optional<choice::EcCost> parse_ec_schedule(const std::string& schedule);

// One case measured in both formats in one run (same GPU, shape, density, pattern, value type, batch 1).
struct Case {
  std::string file, gpu, pattern, value_type;
  std::int64_t rows = 0, cols = 0;
  double density = 0;
  choice::Inputs in;
  double macko_us = 0, ec_us = 0;  // measured medians (a sweep's fastest row)
  choice::Choice predicted;
  choice::Format faster() const { return ec_us < macko_us ? choice::Format::ec : choice::Format::macko; }
  bool right() const { return predicted.pick == faster(); }
  // The pick's measured time over the faster format's, minus 1: 0 when the pick is right.
  double loss() const;
};

// Rules refitted on one GPU's results: stream_fraction on its batch-1 MACKO rows (each file's
// fastest row per case), then ec_launch_us and ec_piece_start_us on its paired cases with that
// fraction fixed, both by least squares on relative error; ec_fit_error is the largest relative
// error of the refitted EC times.
struct Fit {
  std::string gpu;
  choice::Rules rules;  // measured_on is left at its default; `gpu` names the GPU
  int macko_rows = 0, ec_cases = 0;
  double macko_p95_error = 0;  // 95th percentile of |relative error| of the refitted MACKO times
};

struct Check {
  std::vector<Case> cases;
  std::vector<std::string> notes;  // rows left out, and why
  std::vector<Fit> fits;           // one per GPU with enough rows
  int right() const;
  double share_right() const;
  double worst_loss() const;
  bool target_met(double min_share = 0.9, double max_loss = 0.05) const {
    return !cases.empty() && share_right() >= min_share && worst_loss() <= max_loss;
  }
};

// ws_bench_macko's results (macko_*.csv) under a path: that CSV file, the CSVs of a <gpu> folder,
// or those of every <gpu> folder of a results root. Throws Error when it names none.
std::vector<bench_results::Table> read_results(const std::string& path);

// The chooser, with the shipped rules of each GPU (choice::rules_for), on every paired case of the
// tables; cases of a GPU without DeviceFacts (kKnownGpus) are left out with a note.
Check check(const std::vector<bench_results::Table>& tables);

// The rules refitted on the tables' rows of one GPU; nullopt without a MACKO row, or with fewer
// than two paired cases of different piece counts.
std::optional<Fit> fit(const std::vector<bench_results::Table>& tables, const std::string& gpu, const DeviceFacts& d);

}  // namespace warpsparse::analysis::format_choice
