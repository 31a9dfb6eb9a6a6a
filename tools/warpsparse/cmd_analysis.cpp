#include "tools/warpsparse/commands.hpp"
namespace warpsparse::cli { void register_analysis_commands(CLI::App&) {} }
