// Subcommands of the warpsparse CLI. Each part of the project registers its own in its own file;
// main.cpp only collects them. A callback throws warpsparse::Error for bad input; main prints it
// on one line and exits 1.
#pragma once
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

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

// One of a few whole numbers (bit widths, lane counts), written as digits or as a whole number
// such as 16.0 (rewritten to digits: add it with transform()). With `auto_value`, the word "auto"
// is taken too and rewritten to that value, which typed as a number is refused like any other.
inline CLI::Validator one_of(std::vector<std::int64_t> choices,
                             std::optional<std::int64_t> auto_value = std::nullopt) {
  std::vector<std::string> words;
  for (const std::int64_t c : choices) words.push_back(std::to_string(c));
  if (auto_value) words.emplace_back("auto");
  std::string names = words.front();
  for (std::size_t i = 1; i < words.size(); ++i) names += (i + 1 == words.size() ? " or " : ", ") + words[i];
  return CLI::Validator(
      [choices, auto_value, names](std::string& text) -> std::string {
        if (auto_value && text == "auto") {
          text = std::to_string(*auto_value);
          return {};
        }
        std::string digits = text;
        if (whole(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max())(digits)
                .empty() &&
            std::find(choices.begin(), choices.end(), std::stoll(digits)) != choices.end()) {
          text = digits;
          return {};
        }
        return "must be " + names + ", got " + text;
      },
      names);
}

void register_format_commands(CLI::App& app);    // encode, inspect, verify, plan, demo (cmd_format.cpp)
void register_analysis_commands(CLI::App& app);  // effd, study, report, headline, compare (cmd_analysis.cpp)
void register_checkpoint_commands(CLI::App& app);  // analyze, prune                      (cmd_checkpoint.cpp)

}  // namespace warpsparse::cli
