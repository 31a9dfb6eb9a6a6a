// Subcommands of the warpsparse CLI. Each part of the project registers its own in its own file;
// main.cpp only collects them. A callback throws warpsparse::Error for bad input; main prints it
// on one line and exits 1.
#pragma once
#include <CLI/CLI.hpp>

namespace warpsparse::cli {

void register_format_commands(CLI::App& app);    // encode, inspect, verify, plan, demo (cmd_format.cpp)
void register_analysis_commands(CLI::App& app);  // effd, study, report                 (cmd_analysis.cpp)

}  // namespace warpsparse::cli
