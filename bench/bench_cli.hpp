// Command-line options both benchmark programs share (CLI11).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "bench/bench_common.hpp"

namespace warpsparse::bench {

struct CommonOptions {
  bool quick = false, full = false;
  int warmup = 100, iters = 200, rest_ms = 0, warmup_ms = 0;
  bool no_flush = false, dry_run = false;
  std::string out = "bench/results";
  std::uint64_t seed = 1;
  TimingConfig timing() const { return TimingConfig{warmup, iters, !no_flush, rest_ms, warmup_ms}; }
};

inline void add_common_options(CLI::App& app, CommonOptions& o, const std::string& quick_help,
                               const std::string& full_help) {
  auto* q = app.add_flag("--quick", o.quick, "quick subset (the default): " + quick_help);
  app.add_flag("--full", o.full, full_help)->excludes(q);
  app.add_option("--warmup", o.warmup, "untimed launches before timing (>= 100 for reported numbers)")
      ->capture_default_str()->check(CLI::Range(0, 1000000));
  app.add_option("--iters", o.iters, "timed launches (>= 200 for reported numbers)")
      ->capture_default_str()->check(CLI::Range(1, 1000000));
  app.add_option("--rest-ms", o.rest_ms,
                 "idle milliseconds before each kernel's warm-up, so the board's power reading falls back "
                 "(a short, rested measurement runs below the power cap; see bench/README.md)")
      ->capture_default_str()->check(CLI::Range(0, 600000));
  app.add_option("--warmup-ms", o.warmup_ms,
                 "least milliseconds of warm-up per kernel (flushed launches after --warmup), so each series "
                 "runs in its own kernel's sustained power state, whatever ran before it (bench/README.md)")
      ->capture_default_str()
      ->check(CLI::Range(0, 600000));
  app.add_flag("--no-flush", o.no_flush, "do not flush L2 between timed launches (warm-cache numbers)");
  app.add_option("--out", o.out, "results go to OUT/<gpu name>/")->capture_default_str();
  app.add_option("--seed", o.seed, "input seed (each case derives its own)")->capture_default_str();
  app.add_flag("--dry-run", o.dry_run, "list the cases and exit (no GPU needed)");
}

inline std::string command_line(int argc, char** argv) {
  std::string args;
  for (int i = 1; i < argc; ++i) {
    if (i > 1) args += ' ';
    args += argv[i];
  }
  return args;
}

}  // namespace warpsparse::bench
