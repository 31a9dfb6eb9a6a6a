// warpsparse: the CLI over the formats, models, studies and benchmarks' results.
// Exit codes: 0 success, 1 bad input or options (one line on stderr: `warpsparse: error: ...`),
// 2 an internal error.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <new>
#include <string>

#include "reference/common/error.hpp"
#include "tools/warpsparse/commands.hpp"
#include "ws_git_commit.h"

namespace warpsparse::cli {
namespace {
MemoryBudget& budget_storage() {
  static MemoryBudget b = MemoryBudget::default_budget();
  return b;
}
}  // namespace
const MemoryBudget& memory_budget() { return budget_storage(); }
}  // namespace warpsparse::cli

namespace {

std::string version() {
  const std::string commit = WS_GIT_COMMIT_BUILD;
  return fmt::format("warpsparse {} (commit {}, {} build, CUDA kernels {})", WS_VERSION,
                     commit.empty() ? "unknown" : commit, WS_BUILD_TYPE, WS_WITH_CUDA ? "on" : "off");
}

int fail(const std::string& what, int code) {
  fmt::print(stderr, "warpsparse: error: {}\n", what);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpsparse;
  CLI::App app{"warpsparse: sparse kernels of pruned LLMs, their warp models and storage analysis"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version(), "print the version, commit, build type and whether CUDA kernels are built");
  app.add_option_function<std::string>(
      "--max-memory",
      [](const std::string& v) {
        try {
          cli::budget_storage() = {parse_bytes(v), "--max-memory " + v};
        } catch (const Error& e) {
          throw Error(std::string("--max-memory: ") + e.what());
        }
      },
      "the most memory a command may plan to use (bytes, or with K, M, G, T; default: a quarter of physical memory)");
  cli::register_format_commands(app);
  cli::register_analysis_commands(app);
  cli::register_checkpoint_commands(app);
  // A first word that is neither an option nor a command is named as such (CLI11 would say that a
  // subcommand is required).
  if (argc >= 2 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const auto* c : app.get_subcommands({})) {
      names += std::string(names.empty() ? "" : ", ") + c->get_name();
      known = known || c->get_name() == argv[1];
    }
    if (!known) return fail(fmt::format("unknown command '{}' (commands: {})", argv[1], names), 1);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (--help lists the options)", 1);
  } catch (const Error& e) {
    return fail(e.what(), 1);
  } catch (const std::bad_alloc&) {
    return fail("out of memory: an allocation the memory budget did not foresee failed (please report it)", 2);
  } catch (const std::exception& e) {
    return fail(std::string("internal: ") + e.what(), 2);
  }
  return 0;
}
