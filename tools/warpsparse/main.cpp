// warpsparse: the CLI over the formats, models, studies and benchmarks.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "reference/common/error.hpp"
#include "tools/warpsparse/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"warpsparse: sparse kernels of pruned LLMs, their warp models and storage analysis"};
  app.require_subcommand(1);
  warpsparse::cli::register_format_commands(app);
  warpsparse::cli::register_analysis_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const warpsparse::Error& e) {
    fmt::print(stderr, "warpsparse: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "warpsparse: internal error: {}\n", e.what());
    return 2;
  }
  return 0;
}
