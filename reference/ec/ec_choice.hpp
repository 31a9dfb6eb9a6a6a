// MACKO or EC-SpMV for a matrix on a GPU: which one is predicted faster at batch 1, and why. A pure
// host function of what the matrix costs in each format (bytes one launch moves, EC's pieces and
// block sets) and the GPU's DeviceFacts, so `warpsparse plan` can say it for a GPU it does not
// have, and the same function can be checked against benchmark CSVs (analysis/format_choice.hpp),
// which carry exactly these inputs. It lives beside EC because EC is the format that has to earn
// its place against MACKO; it reads MACKO's encoded matrix but none of MACKO's schedule rules.
//
// The model (docs/ec-spmv.md, "Choosing MACKO or EC"): both kernels stream their bytes at one
// fraction of the copy bandwidth after the latency every memory-bound kernel pays; EC pays on top
// a fixed cost for its extra launches and a start per piece. Its coefficients are data per GPU
// (Rules), fitted on measured runs as the docs page says.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/common/memory_budget.hpp"
#include "reference/device/device_facts.hpp"
#include "reference/ec/ec_format.hpp"
#include "reference/ec/ec_schedule.hpp"
#include "reference/macko/macko_format.hpp"

namespace warpsparse::choice {

// The model's coefficients, as fitted on one GPU's runs. The H100's are what
// `warpsparse plan --check-results bench/results/NVIDIA_H100_80GB_HBM3` refits (analysis/
// format_choice.hpp): stream_fraction on its 596 batch-1 MACKO rows (each file's fastest per case),
// the EC terms on the 11 cases measured in both formats (macko_20261126T152503Z.csv, T152703Z.csv).
struct Rules {
  const char* measured_on = "NVIDIA H100 80GB HBM3";
  // Share of DeviceFacts::copy_bytes_per_s at which a launch's bytes stream once the latency is
  // paid. One value for both formats: EC's arrays are streamed the way MACKO's are (contiguous,
  // lane-interleaved vector loads), so what EC pays beyond its bytes is the two terms below.
  double stream_fraction = 0.9709;
  // What EC pays once per multiply beyond MACKO's latency: kernel 1 is one launch per block set,
  // each with its own ramp and tail, and kernel 2 adds the partials.
  double ec_launch_us = 12.38;
  // A warp's time to start one piece (its lane starts, then its first deltas, then its first
  // gathers: dependent memory trips), spread over the GPU's resident warps.
  double ec_piece_start_us = 1.610;
  // The largest relative error of the fitted EC times on those cases (10.4 %): a pick whose
  // predicted times are closer than this says so.
  double ec_fit_error = 0.11;
};
inline constexpr Rules kH100Rules{};

// The rules a GPU runs: the H100's everywhere until another GPU is measured (DeviceFacts carries
// each GPU's own bandwidth, latency and resident warps, so the H200 still gets its own times).
inline const Rules& rules_for(const DeviceFacts&) { return kH100Rules; }

// The nonzeros one EC block set holds, as a share of the matrix's.
struct SetShare {
  int group = 1;
  bool is_short = false;
  double share = 0;
};

// What a matrix costs in each format. bytes: what one launch moves, as ws_bench_macko counts it
// (the format's device arrays, x read and y written; macko_launch_bytes / ec_launch_bytes).
struct MackoCost {
  std::uint64_t bytes = 0;
  int delta_bits = 4;
  std::string schedule;  // the policy's schedule, named in the why lines only
};
struct EcCost {
  std::uint64_t bytes = 0;
  std::int64_t pieces = 0;  // warps of kernel 1 (ec::Plan::pieces on this GPU)
  int delta_bits = 8;
  std::vector<SetShare> sets;  // in the format's set order: G = 8, 4, 2, 1 long, 1 short
};
struct Inputs {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  MackoCost macko;
  EcCost ec;
};

enum class Format { macko, ec };
inline const char* to_string(Format f) { return f == Format::macko ? "macko" : "ec"; }

// Predicted times, the pick, and the reasons in the order they were weighed.
struct Choice {
  double macko_us = 0, ec_us = 0;
  Format pick = Format::macko;
  std::vector<std::string> why;
  // The slower format's predicted time over the pick's (>= 1).
  double margin() const {
    const double a = std::min(macko_us, ec_us), b = std::max(macko_us, ec_us);
    return a > 0 ? b / a : 1.0;
  }
};

// Bytes one MACKO launch moves: the three arrays (row pointers as stored), x and y.
template <class T>
std::uint64_t macko_launch_bytes(const Macko<T>& a) {
  return a.storage_bytes() + static_cast<std::uint64_t>(a.rows + a.cols) * sizeof(T);
}

// Bytes one EC launch moves with this plan: what upload_ec puts on the device (each set's values and
// deltas starting 16-byte aligned; 4 words per piece; lane starts; each row's partial list; the
// partials, written by kernel 1 and read by kernel 2), x and y.
template <class T>
std::uint64_t ec_launch_bytes(const Ec<T>& a, const ec::Plan& p) {
  constexpr std::uint64_t kAlign = 16;
  std::uint64_t values = 0, deltas = 0;
  for (const EcSet<T>& s : a.sets) {
    values = (values + kAlign - 1) / kAlign * kAlign + s.values.size() * sizeof(T);
    deltas = (deltas + kAlign - 1) / kAlign * kAlign + s.deltas.size();
  }
  const std::uint64_t tables = (p.pieces.size() * 4 + p.lane_start.size() + p.row_part_ptr.size() + p.row_parts.size() +
                                static_cast<std::uint64_t>(p.partials)) * 4;
  return values + deltas + tables + static_cast<std::uint64_t>(a.rows + a.cols) * sizeof(T);
}

// EC's cost from an encoded matrix and its plan for the GPU.
template <class T>
EcCost ec_cost(const Ec<T>& a, const ec::Plan& p) {
  EcCost e;
  e.bytes = ec_launch_bytes(a, p);
  e.pieces = static_cast<std::int64_t>(p.pieces.size());
  e.delta_bits = a.delta_bits;
  const EcStorage st = a.storage();
  for (std::size_t i = 0; i < a.sets.size(); ++i)
    e.sets.push_back({a.sets[i].group, a.sets[i].is_short,
                      a.nnz > 0 ? static_cast<double>(st.nnz_by_set[i]) / static_cast<double>(a.nnz) : 0.0});
  return e;
}

namespace choice_detail {
inline std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}
inline std::string bytes(double b) { return human_bytes(static_cast<std::uint64_t>(std::max(0.0, b))); }
// "G=8 0 %, G=4 35 %, ...", the sets in the format's order.
inline std::string shares(const std::vector<SetShare>& sets) {
  std::string s;
  for (const SetShare& x : sets)
    s += std::string(s.empty() ? "" : ", ") + "G=" + std::to_string(x.group) + (x.is_short ? " short" : x.group == 1 ? " long" : "") +
         " " + fixed(100 * x.share, 0) + " %";
  return s;
}
}  // namespace choice_detail

// The predicted batch-1 times of MACKO and EC on the GPU with these rules, the faster one, and
// why. Throws Error for a GPU without a measured copy bandwidth (the model has no time scale there).
inline Choice choose(const Inputs& in, const DeviceFacts& d, const Rules& r) {
  using namespace choice_detail;
  require(d.copy_bytes_per_s > 0, "no measured copy bandwidth for the " + d.name + ": the MACKO-or-EC model has no time scale");
  const double rate_us = d.copy_bytes_per_s * r.stream_fraction / 1e6;  // bytes per microsecond
  const double warps = static_cast<double>(ec::resident_warps(d));
  const double pieces_us = static_cast<double>(in.ec.pieces) * r.ec_piece_start_us / warps;
  Choice c;
  c.macko_us = d.latency_us + static_cast<double>(in.macko.bytes) / rate_us;
  c.ec_us = d.latency_us + r.ec_launch_us + static_cast<double>(in.ec.bytes) / rate_us + pieces_us;
  c.pick = c.ec_us < c.macko_us ? Format::ec : Format::macko;

  const std::string rate = fixed(100 * r.stream_fraction, 1) + " % of the copy bandwidth (" + fixed(d.copy_bytes_per_s / 1e12, 2) +
                           " TB/s)";
  c.why.push_back("MACKO: " + bytes(double(in.macko.bytes)) + " (" + std::to_string(in.macko.delta_bits) +
                  "-bit deltas, x and y included) at " + rate + " + " + fixed(d.latency_us, 1) + " us latency = " +
                  fixed(c.macko_us, 1) + " us" + (in.macko.schedule.empty() ? "" : " (schedule " + in.macko.schedule + ")"));
  c.why.push_back("EC: " + bytes(double(in.ec.bytes)) + " (" + std::to_string(in.ec.delta_bits) +
                  "-bit deltas, plan tables included) at the same rate + " + fixed(d.latency_us, 1) + " us latency + " +
                  fixed(r.ec_launch_us, 1) + " us for its extra launches (one per block set, then the partials' sums) + " +
                  std::to_string(in.ec.pieces) + " pieces started at " + fixed(r.ec_piece_start_us, 2) + " us each over " +
                  std::to_string(ec::resident_warps(d)) + " resident warps (" + fixed(pieces_us, 1) + " us) = " + fixed(c.ec_us, 1) +
                  " us");
  if (in.nnz > 0) {
    const double per_nnz_m = double(in.macko.bytes) / double(in.nnz), per_nnz_e = double(in.ec.bytes) / double(in.nnz);
    c.why.push_back("EC holds " + (in.ec.sets.empty() ? std::string("?") : shares(in.ec.sets)) + " of the nonzeros: " +
                    fixed(per_nnz_e, 2) + " bytes per nonzero against MACKO's " + fixed(per_nnz_m, 2) +
                    " (rows sharing columns in G-row blocks share one delta per column; a G = 1 slot costs a delta and a value)");
  }
  // How far EC is from the break-even: the bytes it would have to save to pay for its fixed costs.
  const double fixed_us = r.ec_launch_us + pieces_us;
  const double even_bytes = double(in.macko.bytes) - fixed_us * rate_us;
  if (c.pick == Format::macko) {
    c.why.push_back(even_bytes <= 0 ? "EC's launches and piece starts alone (" + fixed(fixed_us, 1) + " us) exceed what MACKO spends on its bytes (" +
                                          fixed(c.macko_us - d.latency_us, 1) + " us)"
                                    : "EC would break even at " + bytes(even_bytes) + " (" +
                                          fixed(100 * (1 - even_bytes / std::max(1.0, double(in.ec.bytes))), 0) +
                                          " % fewer bytes than its own), its fixed costs being " + fixed(fixed_us, 1) + " us");
  } else {
    c.why.push_back("EC's " + fixed(100 * (1 - double(in.ec.bytes) / std::max(1.0, double(in.macko.bytes))), 0) +
                    " % fewer bytes than MACKO's outweigh its " + fixed(fixed_us, 1) + " us of launches and piece starts");
  }
  const Format other = c.pick == Format::macko ? Format::ec : Format::macko;
  c.why.push_back(std::string(to_string(c.pick)) + ": predicted " + fixed(c.margin(), 2) + "x faster than " + to_string(other) +
                  " (model fitted on the " + r.measured_on + ")");
  if (c.margin() < 1 + r.ec_fit_error)
    c.why.push_back("a close call: the model's EC times were up to " + fixed(100 * r.ec_fit_error, 0) +
                    " % off on the runs it was fitted on; measure both (ws_bench_macko --kernels macko,ec)");
  return c;
}

// The same with the GPU's own rules.
inline Choice choose(const Inputs& in, const DeviceFacts& d) { return choose(in, d, rules_for(d)); }

}  // namespace warpsparse::choice
