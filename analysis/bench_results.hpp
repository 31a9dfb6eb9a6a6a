// Reading the GPU benchmarks' results: bench/results/<gpu>/<program>_<stamp>.csv with a
// <program>_<stamp>.meta.json beside each (bench/README.md), for the notebooks, and compare(), which
// checks a new run against the accepted one case by case, as a kernel library's regression check
// does. Readers select files by program prefix, so one program's files never count against
// another's. Host only.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsparse::analysis::bench_results {

namespace fs = std::filesystem;

// One CSV line split at commas outside double quotes (quotes removed).
std::vector<std::string> split(const std::string& line);
// A number, or NaN for an empty or unreadable field.
double to_d(const std::string& s);

struct Table {
  fs::path path;
  std::string gpu_dir;  // the <gpu> folder name
  std::map<std::string, std::size_t> col;
  std::vector<std::vector<std::string>> rows;
  std::string get(const std::vector<std::string>& r, const char* name) const {
    const auto it = col.find(name);
    return it != col.end() && it->second < r.size() ? r[it->second] : std::string();
  }
  // The program that wrote it: the file name before its "_<UTC time>" stem.
  std::string program() const;
};

// One results CSV; throws Error naming the file when it cannot be read or has no header.
Table read_table(const fs::path& csv);
// All <dir>/<gpu>/<prefix>*.csv, sorted by path. `others` receives the .csv files of other programs
// (not matching the prefix), which the caller ignores but may list.
std::vector<Table> read_all(const std::string& dir, const std::string& prefix, std::vector<std::string>* others = nullptr);
// The measured device copy bandwidth (bytes/s) from X.meta.json beside X.csv ("copy_gbps", GB/s).
std::optional<double> meta_copy_bandwidth(const fs::path& csv);
// The commit the run was built from ("commit" in X.meta.json beside X.csv); "" when not recorded.
std::string meta_commit(const fs::path& csv);

// --- comparing a run with a reference --------------------------------------------------------------
// How much slower than the reference a case's median may be before it is flagged, by who wrote the
// kernel and how long it runs. Measured on the H100 (docs/results.md): same-build repeats of MACKO
// cases differ by a median of 0.69 / 0.25 / 0.09 % and a p99 of 5.2 / 2.1 / 0.8 % below 20 us / from
// 20 to 100 us / above 100 us; vendor baselines by a p99 of 4.4 / 3.1 / 2.5 % (cuBLAS GEMV has two
// modes about 3 % apart); the 2:4 GEMMs by up to 3.3 % (ours) and 12 % (vendors') between runs, with
// the board's power state. These thresholds flag about 0.6 % of same-build repeats.
struct Tolerance {
  double rel;     // fraction of the reference median
  double abs_us;  // and at least this many microseconds
};
Tolerance tolerance(const std::string& program, const std::string& kernel, double reference_us);

struct CaseDelta {
  std::string program, key;  // the case: every column that names it
  double reference_us = 0, new_us = 0;
  std::string reference_file;
  Tolerance tol{};
  double ratio() const { return new_us / reference_us; }  // > 1: slower
  bool slower() const;                                    // beyond the tolerance
  bool faster() const;
};

struct Comparison {
  std::vector<CaseDelta> cases;   // every case found in both
  std::vector<std::string> unmatched;  // keys of the new run with no reference row
  std::vector<std::string> notes;      // e.g. the two runs' copy bandwidths differ
  int slower() const;
  int faster() const;
};

// Each case of `run` against the newest row of the same case among `reference` (files of the same
// program and GPU; a case measured under several schedules or tiles takes its fastest row, as the
// notebooks do). A case is named by its shape, density, pattern, types, batch, kernel and, for the 2:4
// GEMM, its rested/sustained series; not by the MACKO schedule, which the policy may change.
Comparison compare(const Table& run, const std::vector<Table>& reference);

}  // namespace warpsparse::analysis::bench_results
