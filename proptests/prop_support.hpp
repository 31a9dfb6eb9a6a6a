// Running properties: ws_prop() checks a rapidcheck property inside a Catch2 SECTION with its
// own case count (scaled by WS_RC_SCALE), adds the count to the run's total (printed by main),
// and on failure names the seed that reproduces it. FailureDump writes what a failing case saw
// (matrix as MatrixMarket, x, both outputs, a reproduce note) to ${build}/failures/<property>/,
// overwriting on every failing evaluation so that the files left hold the shrunk case.
#pragma once
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <sstream>
#include <string>

#include "reference/io/matrix_market.hpp"
#include "reference/sparse/sparse_rows.hpp"

namespace warpsparse::proptest {

std::uint64_t& cases_run();       // defined in main.cpp
std::uint64_t rc_seed();          // the run's rapidcheck seed
std::string& current_property();  // name of the property being checked (for failure dumps)

int scaled(int cases);

// Two matrices equal bit for bit: shape, pattern and the stored bits of every value (so -0, NaN
// payloads and subnormals count). What every round-trip property compares.
template <class T>
bool same_bits(const SparseRows<T>& a, const SparseRows<T>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col == b.col &&
         a.val.size() == b.val.size() && (a.val.empty() || std::memcmp(a.val.data(), b.val.data(), a.val.size() * sizeof(T)) == 0);
}

class FailureDump {
 public:
  FailureDump() : dir_(std::filesystem::path(WS_FAILURE_DIR) / sanitize(current_property())) {
    std::filesystem::create_directories(dir_);
  }
  template <class T>
  void matrix(const SparseRows<T>& m) { io::write_matrix_market_file((dir_ / "matrix.mtx").string(), m); }
  template <class V>
  void vector(const std::string& file, std::span<const V> v) {
    std::ofstream f(dir_ / file);
    f.precision(9);
    for (const auto& e : v) f << to_float(e) << '\n';
  }
  void vector(const std::string& file, const std::vector<double>& v) {
    std::ofstream f(dir_ / file);
    f.precision(17);
    for (const auto e : v) f << e << '\n';
  }
  void note(const std::string& text) {
    std::ofstream f(dir_ / "case.txt");
    f << text << "\nrapidcheck seed: " << rc_seed() << "\nreproduce: RC_PARAMS=\"seed=" << rc_seed()
      << "\" (same test case; the files here are overwritten by each failing evaluation, so they hold the "
         "shrunk case)\n";
  }
  std::string dir() const { return dir_.string(); }

 public:
  static std::string sanitize(std::string s) {
    for (char& c : s)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
  }

 private:
  std::filesystem::path dir_;
};

template <class Testable>
void ws_prop(const std::string& name, int cases, Testable&& testable) {
  SECTION(name) {
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.maxSuccess = scaled(cases);
    // Each property gets its own stream, derived from the run's seed and its name, so that two
    // properties do not draw the same sequence of cases; RC_PARAMS="seed=N" still replays all.
    params.seed ^= std::hash<std::string>{}(name) * 0x9E3779B97F4A7C15ull;
    rc::detail::TestMetadata meta;
    meta.id = name;
    meta.description = name;
    current_property() = name;
    const auto result = rc::detail::checkTestable(std::forward<Testable>(testable), meta, params);
    if (result.template is<rc::detail::SuccessResult>()) {
      const auto& ok = result.template get<rc::detail::SuccessResult>();
      cases_run() += static_cast<std::uint64_t>(ok.numSuccess);
      if (!ok.distribution.empty()) {  // RC_TAG counts: evidence that the edge cases were hit
        std::cout << "- " << name << "\n";
        rc::detail::printResultMessage(result, std::cout);
        std::cout << "\n";
      }
      SUCCEED(name);
    } else {
      std::ostringstream ss;
      rc::detail::printResultMessage(result, ss);
      ss << "\nreproduce: RC_PARAMS=\"seed=" << rc_seed() << "\" with the same test case and WS_RC_SCALE";
      const std::filesystem::path dir = std::filesystem::path(WS_FAILURE_DIR) / FailureDump::sanitize(name);
      std::filesystem::create_directories(dir);
      std::ofstream(dir / "rapidcheck.txt") << ss.str() << "\n";  // counterexample + reproduce string
      INFO(ss.str());
      FAIL(name);
    }
  }
}

}  // namespace warpsparse::proptest
