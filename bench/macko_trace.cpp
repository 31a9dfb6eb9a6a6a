// ws_macko_trace: where a MACKO launch spends its time, row by row.
//
// The MACKO kernels built with WS_MACKO_TRACE (library ws_kernels_trace; the kernels every other
// program links have no trace code) write, for each row, %globaltimer when the row's warp starts it
// (before its bounds load) and after its output store, with the SM and the warp. Per case
// (uniform exact-nnz rows, fp16, 4-bit deltas, rows aligned as in ws_bench_macko, the default
// schedule) this program times --launches launches with the L2 flushed before each, as the
// benchmark does, and reads each launch's trace back. It prints, per case, the median over launches
// of:
//   event_us     the launch's time between CUDA events, trace off (the benchmark's gated timing)
//   span_us      last row end - first row start (the warps' own view of the launch)
//   start_p50/max  when the warps start their first row, after the first row start
//   first_row_us   median duration of a warp's first row (x copy, bounds and first group trips)
//   row_us         median duration of the other rows
//   gap_us         median time between a warp's row end and its next row start
//   end_p10/p50/p90/max  when the warps end their last row
//   drain_us       end_max - end_p50: the time the last half of the warps run alone
// and, for the median launch, the SMs grouped by how many warps they held (rows per SM, when their
// last row ended); it writes, per case, the summary (rowtrace_macko_<time>.csv) and the number of
// rows in progress per 0.5 us of the median launch (rowtrace_macko_<time>_busy.csv) under
// OUT/<gpu name with underscores>/, beside the benchmarks' files (notebook 5 draws the newest; the
// prefix keeps them apart from ws_bench_macko's macko_*.csv).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/patterns.hpp"
#include "bench/bench_common.hpp"
#include "bench/bench_stats.hpp"
#include "bench/matrix_gen.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/macko/macko_spmv.hpp"
#include "reference/macko/macko_policy.hpp"

#ifndef WS_MACKO_TRACE
#error "ws_macko_trace links the kernels built with WS_MACKO_TRACE (ws_kernels_trace)"
#endif

using namespace warpsparse;
using namespace warpsparse::bench;

namespace {

// q in [0, 1]; NaN for no samples (a warp with one row has no later rows).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, 100.0 * q);
}

struct LaunchStats {
  double span_us = 0, start_p50 = 0, start_max = 0, first_row_us = 0, row_us = 0, gap_us = 0,
         end_p10 = 0, end_p50 = 0, end_p90 = 0, end_max = 0;
  int warps = 0;
  std::vector<int> busy;  // rows in progress per bin
  // Per number of warps an SM held: SMs, rows per SM (mean), when the SM's last row ended (mean, max).
  struct SmGroup {
    int sms = 0;
    double rows = 0, end_mean = 0, end_max = 0;
  };
  std::map<int, SmGroup> by_sm_warps;
};
constexpr double kBinUs = 0.5;

LaunchStats analyse(const std::vector<gpu::RowTrace>& tr) {
  LaunchStats s;
  unsigned long long t_min = ~0ull, t_max = 0;
  for (const auto& r : tr) {
    require(r.t1_ns >= r.t0_ns && r.t0_ns != 0, "trace: a row was not written (or ends before it starts)");
    t_min = std::min(t_min, r.t0_ns);
    t_max = std::max(t_max, r.t1_ns);
  }
  auto us = [&](unsigned long long t) { return static_cast<double>(t - t_min) * 1e-3; };
  s.span_us = us(t_max);
  // Rows per warp in start order.
  std::map<unsigned, std::vector<const gpu::RowTrace*>> by_warp;
  for (const auto& r : tr) by_warp[r.warp].push_back(&r);
  std::vector<double> starts, ends, first, rest, gaps;
  for (auto& [w, rows] : by_warp) {
    std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->t0_ns < b->t0_ns; });
    starts.push_back(us(rows.front()->t0_ns));
    ends.push_back(us(rows.back()->t1_ns));
    first.push_back(static_cast<double>(rows.front()->t1_ns - rows.front()->t0_ns) * 1e-3);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      rest.push_back(static_cast<double>(rows[i]->t1_ns - rows[i]->t0_ns) * 1e-3);
      gaps.push_back(static_cast<double>(static_cast<long long>(rows[i]->t0_ns) - static_cast<long long>(rows[i - 1]->t1_ns)) * 1e-3);
    }
  }
  s.warps = static_cast<int>(by_warp.size());
  s.start_p50 = quantile(starts, 0.5);
  s.start_max = quantile(starts, 1.0);
  s.first_row_us = quantile(first, 0.5);
  s.row_us = quantile(rest, 0.5);
  s.gap_us = quantile(gaps, 0.5);
  s.end_p10 = quantile(ends, 0.1);
  s.end_p50 = quantile(ends, 0.5);
  s.end_p90 = quantile(ends, 0.9);
  s.end_max = quantile(ends, 1.0);
  struct Sm {
    std::set<unsigned> warps;
    int rows = 0;
    double end = 0;
  };
  std::map<unsigned, Sm> sms;
  for (const auto& r : tr) {
    Sm& m = sms[r.sm];
    m.warps.insert(r.warp);
    m.rows += 1;
    m.end = std::max(m.end, us(r.t1_ns));
  }
  for (const auto& [id, m] : sms) {
    auto& g = s.by_sm_warps[static_cast<int>(m.warps.size())];
    g.sms += 1;
    g.rows += m.rows;
    g.end_mean += m.end;
    g.end_max = std::max(g.end_max, m.end);
  }
  for (auto& [w, g] : s.by_sm_warps) {
    g.rows /= g.sms;
    g.end_mean /= g.sms;
  }
  s.busy.assign(static_cast<std::size_t>(s.span_us / kBinUs) + 1, 0);
  std::vector<int> delta(s.busy.size() + 1, 0);
  for (const auto& r : tr) {
    delta[static_cast<std::size_t>(us(r.t0_ns) / kBinUs)] += 1;
    delta[static_cast<std::size_t>(us(r.t1_ns) / kBinUs)] -= 1;
  }
  int cur = 0;
  for (std::size_t i = 0; i < s.busy.size(); ++i) s.busy[i] = cur += delta[i];
  return s;
}

}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"ws_macko_trace: a row-by-row timeline of MACKO launches (default schedules)"};
  std::string shapes = "21504x7168,32000x5120", densities = "0.3", out = "bench/results";
  int launches = 9, warmup = 20, x_shared = -1;
  std::uint64_t seed = 1;
  app.add_option("--shapes", shapes, "ROWSxCOLS list")->capture_default_str();
  app.add_option("--densities", densities, "densities of the exact-nnz uniform rows")->capture_default_str();
  app.add_option("--launches", launches, "traced launches per case (L2 flushed before each)")->capture_default_str();
  app.add_option("--warmup", warmup, "untraced launches first")->capture_default_str();
  app.add_option("--x-shared", x_shared, "-1: the default schedule; 0 / 1: with x through L1 / in shared memory")
      ->capture_default_str();
  app.add_option("--seed", seed, "input seed")->capture_default_str();
  app.add_option("--out", out, "results go to OUT/<gpu name>/")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  require(launches >= 1 && warmup >= 0, "--launches must be >= 1 and --warmup >= 0");
  if (!gpu::device_available()) {
    std::fprintf(stderr, "ws_macko_trace: no CUDA device, nothing traced\n");
    return 77;
  }

  const DeviceInfo dev = query_device_info();
  L2Flusher flusher(dev.l2_bytes);
  cudaStream_t st = nullptr;
  const std::string stamp = utc_timestamp_compact();
  const std::filesystem::path dir = std::filesystem::path(out) / sanitize_name(dev.name);
  std::filesystem::create_directories(dir);
  const auto sum_path = dir / ("rowtrace_macko_" + stamp + ".csv");
  const auto busy_path = dir / ("rowtrace_macko_" + stamp + "_busy.csv");
  std::ofstream sum(sum_path), busy(busy_path);
  sum << "gpu,rows,cols,density,schedule,warps,launches,event_us,span_us,start_p50_us,start_max_us,first_row_us,row_us,"
         "gap_us,end_p10_us,end_p50_us,end_p90_us,end_max_us,drain_us,commit\n";
  busy << "rows,cols,density,t_us,rows_in_progress\n";
  std::fprintf(stderr, "%s, commit %s\n", dev.name.c_str(), git_commit().c_str());
  std::printf("%-12s %5s %6s %8s %8s %9s %9s %9s %7s %7s %8s %8s %8s %8s %8s\n", "shape", "d", "warps", "event", "span",
              "start50", "startmax", "first", "row", "gap", "end10", "end50", "end90", "endmax", "drain");

  for (const auto& shape : split_list(shapes)) {
    const auto dims = parse_dims(shape);
    require(dims.size() == 2, "a shape is ROWSxCOLS, got '" + shape + "'");
    for (const auto& ds : split_list(densities)) {
      const double d = std::stod(ds);
      analysis::PatternSpec spec;
      spec.kind = analysis::Pattern::exact_nnz;
      spec.density = d;
      const auto blocks = generate_blocks<half>(spec, dims[0], dims[1], seed, default_threads());
      MackoParams p{4};
      p.align_rows = true;
      const Macko<half> mk = to_macko(blocks, p, default_threads());
      const gpu::DeviceMacko<half> dm = gpu::upload_macko(mk);
      gpu::DeviceBuffer<half> x(random_vector<half>(dims[1], seed ^ 0x5851F42D4C957F2Dull));
      gpu::DeviceBuffer<half> y(static_cast<std::size_t>(dims[0]));
      gpu::DeviceBuffer<gpu::RowTrace> trace(static_cast<std::size_t>(dims[0]));
      const macko::MatrixStats stats = macko::matrix_stats(mk);
      macko::Schedule s = macko::choose_schedule(stats, gpu::device_facts());
      if (x_shared >= 0 && (x_shared != 0) != s.x_shared) {
        s.x_shared = x_shared != 0;
        s.warps_per_block = s.x_shared ? macko::x_shared_block_warps(stats, macko::rules_for(gpu::device_facts())) : 4;
        s.row_splits = 1;
      }
      require(macko::is_compiled(s, mk.delta_bits), "the schedule asked for is not compiled");
      auto launch = [&](cudaStream_t stream) { gpu::macko_spmv<half, half>(dm, x.get(), y.get(), 1.0f, 0.0f, s, stream); };
      // The launch's time as the benchmark takes it (gated events, L2 flushed), with the trace off.
      gpu::set_macko_row_trace(nullptr);
      TimingConfig tc;
      tc.warmup = warmup;
      tc.iters = std::max(50, launches);
      const double event_us = time_launches(launch, tc, flusher, st).median;
      gpu::set_macko_row_trace(trace.get());
      std::vector<LaunchStats> runs;
      std::vector<gpu::RowTrace> host(static_cast<std::size_t>(dims[0]));
      for (int i = 0; i < launches; ++i) {
        WS_CUDA(cudaMemset(trace.get(), 0, trace.bytes()));
        flusher.flush(st);
        launch(st);
        WS_CUDA(cudaStreamSynchronize(st));
        WS_CUDA(cudaMemcpy(host.data(), trace.get(), trace.bytes(), cudaMemcpyDeviceToHost));
        runs.push_back(analyse(host));
      }
      gpu::set_macko_row_trace(nullptr);
      // The median launch by span gives the busy curve and the SM groups; the summary takes each field's median.
      std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.span_us < b.span_us; });
      auto med = [&](double LaunchStats::* f) {
        std::vector<double> v;
        for (const auto& r : runs) v.push_back(r.*f);
        return quantile(v, 0.5);
      };
      const LaunchStats& mid = runs[runs.size() / 2];
      const double drain = med(&LaunchStats::end_max) - med(&LaunchStats::end_p50);
      const std::string sched = std::string(s.x_shared ? "x in smem" : "x via L1") + "/wpb=" +
                                std::to_string(s.warps_per_block) + "/lanes=" + std::to_string(s.row_lanes) +
                                "/splits=" + std::to_string(s.row_splits) + "/elems=" + std::to_string(s.lane_elems);
      std::printf("%-12s %5.3f %6d %8.1f %8.1f %9.2f %9.2f %9.2f %7.2f %7.2f %8.1f %8.1f %8.1f %8.1f %8.1f  %s\n",
                  shape.c_str(), d, mid.warps, event_us, med(&LaunchStats::span_us),
                  med(&LaunchStats::start_p50), med(&LaunchStats::start_max), med(&LaunchStats::first_row_us),
                  med(&LaunchStats::row_us), med(&LaunchStats::gap_us), med(&LaunchStats::end_p10),
                  med(&LaunchStats::end_p50), med(&LaunchStats::end_p90), med(&LaunchStats::end_max), drain,
                  sched.c_str());
      for (const auto& [w, g] : mid.by_sm_warps)
        std::printf("    SMs holding %3d warps: %3d SMs, %7.1f rows each, last row ends at %6.1f us (mean) / %6.1f (max)\n", w,
                    g.sms, g.rows, g.end_mean, g.end_max);
      std::fflush(stdout);
      sum << '"' << dev.name << "\"," << dims[0] << ',' << dims[1] << ',' << d << ",\"" << sched << "\"," << mid.warps
          << ',' << launches << ',' << event_us << ',' << med(&LaunchStats::span_us) << ','
          << med(&LaunchStats::start_p50) << ',' << med(&LaunchStats::start_max) << ','
          << med(&LaunchStats::first_row_us) << ',' << med(&LaunchStats::row_us) << ',' << med(&LaunchStats::gap_us)
          << ',' << med(&LaunchStats::end_p10) << ',' << med(&LaunchStats::end_p50) << ','
          << med(&LaunchStats::end_p90) << ',' << med(&LaunchStats::end_max) << ',' << drain << ',' << git_commit()
          << '\n';
      for (std::size_t i = 0; i < mid.busy.size(); ++i)
        busy << dims[0] << ',' << dims[1] << ',' << d << ',' << static_cast<double>(i) * kBinUs << ',' << mid.busy[i]
             << '\n';
    }
  }
  std::fprintf(stderr, "wrote %s and %s\n", sum_path.string().c_str(), busy_path.string().c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "ws_macko_trace: %s\n", e.what());
  return 1;
}
