// Test runner shared by every property-test executable: Catch2 v2 with rapidcheck. Prints the
// rapidcheck seed (fresh each run unless RC_PARAMS names one) and the number of cases run.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "proptests/prop_support.hpp"

namespace warpsparse::proptest {
std::uint64_t& cases_run() {
  static std::uint64_t n = 0;
  return n;
}
std::uint64_t rc_seed() { return rc::detail::configuration().testParams.seed; }
std::string& current_property() {
  static std::string s;
  return s;
}
int scaled(int cases) {
  const char* s = std::getenv("WS_RC_SCALE");
  const double k = s ? std::atof(s) : 1.0;
  return std::max(1, static_cast<int>(cases * (k > 0 ? k : 1.0)));
}
}  // namespace warpsparse::proptest

int main(int argc, char** argv) {
  using namespace warpsparse::proptest;
  std::printf("rapidcheck seed: %llu (reproduce with RC_PARAMS=\"seed=%llu\")\n",
              static_cast<unsigned long long>(rc_seed()), static_cast<unsigned long long>(rc_seed()));
  const int rc = Catch::Session().run(argc, argv);
  std::printf("rapidcheck cases run: %llu\n", static_cast<unsigned long long>(cases_run()));
  return rc;
}
