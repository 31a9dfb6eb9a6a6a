// Subcommands of the warpsparse CLI. Each part of the project registers its own in its own file;
// main.cpp only collects them. A callback throws warpsparse::Error for bad input; main prints it
// on one line and exits 1.
#pragma once
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "reference/common/memory_budget.hpp"
#include "reference/common/parse_number.hpp"

namespace warpsparse::cli {

// What the commands may plan to allocate: --max-memory, or a quarter of physical memory.
const MemoryBudget& memory_budget();

// A density or other fraction: a number in [0, 1]. CLI::Range lets NaN through (every comparison
// with it is false), which then surfaces far from the option that caused it.
inline CLI::Validator fraction() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const double v = to_number(text).value_or(-1);
        if (!(v >= 0.0 && v <= 1.0)) return "'" + text + "' is not a number in [0, 1]";
        return {};
      },
      "FRACTION in [0, 1]");
}

// A whole number in [lo, hi]. Digits, or a number such as 1e3 or 4096.0 that is exactly a whole
// number (rewritten to digits before CLI11 converts it: add it with transform(), not check()); anything else is named in the message,
// rather than reported by CLI11 as "could not convert" or as out of range.
inline CLI::Validator whole(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* b = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
        const char* e = text.data() + text.size();
        const auto [end, ec] = std::from_chars(b, e, v);
        if (ec == std::errc::result_out_of_range) return "'" + text + "' is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        if (ec != std::errc() || end != e) {
          const double d = to_number(text).value_or(0.5);
          if (!std::isfinite(d) || d != std::floor(d)) return "'" + text + "' is not a whole number";
          if (d < double(lo) || d > double(hi))
            return "'" + text + "' is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
          v = static_cast<std::int64_t>(d);
        }
        if (v < lo || v > hi) return "'" + text + "' is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        text = std::to_string(v);
        return {};
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

void register_format_commands(CLI::App& app);    // encode, inspect, verify, plan, demo (cmd_format.cpp)
void register_analysis_commands(CLI::App& app);  // effd, study, report, headline, compare (cmd_analysis.cpp)
void register_checkpoint_commands(CLI::App& app);  // analyze, prune                      (cmd_checkpoint.cpp)

}  // namespace warpsparse::cli
