// Host-only pieces of the benchmark harness: summary statistics of timed samples and the result
// rows with their CSV and JSON-lines writers. No CUDA here, so the unit test needs no device.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>


#include "reference/common/error.hpp"

namespace warpsparse::bench {

// Percentile p in [0, 100] of sorted samples by linear interpolation between closest ranks
// (rank = p/100 * (n - 1); NumPy's default). NaN for no samples.
inline double percentile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  require(p >= 0.0 && p <= 100.0, "percentile must lie in [0, 100]");
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

struct Summary {
  std::size_t n = 0;
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, mean = 0;
};

inline Summary summarize(std::vector<double> samples) {
  require(!samples.empty(), "no samples to summarize");
  for (const double s : samples) require(std::isfinite(s), "non-finite timing sample");
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.n = samples.size();
  s.median = percentile_sorted(samples, 50);
  s.p10 = percentile_sorted(samples, 10);
  s.p90 = percentile_sorted(samples, 90);
  s.min = samples.front();
  s.max = samples.back();
  double sum = 0;
  for (const double v : samples) sum += v;
  s.mean = sum / static_cast<double>(samples.size());
  return s;
}

// One result row: ordered named fields. A missing value (baseline not run, no error measured)
// is empty in CSV and null in JSON.
using Value = std::variant<std::monostate, std::int64_t, double, std::string>;
struct Field {
  std::string key;
  Value value;
};
using Row = std::vector<Field>;

inline Value opt_double(double v) { return std::isfinite(v) ? Value{v} : Value{}; }

inline std::string csv_escape(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

inline std::string format_value(const Value& v) {
  struct Visit {
    std::string operator()(std::monostate) const { return {}; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      if (!std::isfinite(d)) return {};
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", d);
      return buf;
    }
    std::string operator()(const std::string& s) const { return csv_escape(s); }
  };
  return std::visit(Visit{}, v);
}

// Writes rows as CSV (header from the first row; every later row must have the same keys in
// the same order). Each row is flushed at once so a run cut off by a time limit keeps every
// finished row.
class ResultWriter {
 public:
  // Creates dir (and parents) and opens <dir>/<stem>.csv.
  ResultWriter(const std::filesystem::path& dir, const std::string& stem) {
    std::filesystem::create_directories(dir);
    csv_path_ = dir / (stem + ".csv");
    csv_.open(csv_path_);
    require(csv_.good(), "cannot open result file " + csv_path_.string());
  }
  void write(const Row& row) {
    // Check the whole row first: a rejected row leaves the files untouched.
    if (!keys_.empty()) {
      require(row.size() == keys_.size(), "result row has " + std::to_string(row.size()) +
                                              " fields, header has " + std::to_string(keys_.size()));
      for (std::size_t i = 0; i < row.size(); ++i)
        require(row[i].key == keys_[i], "result row field '" + row[i].key + "' where the header has '" + keys_[i] + "'");
    } else {
      for (std::size_t i = 0; i < row.size(); ++i) {
        keys_.push_back(row[i].key);
        csv_ << (i ? "," : "") << csv_escape(row[i].key);
      }
      csv_ << '\n';
    }
    for (std::size_t i = 0; i < row.size(); ++i) csv_ << (i ? "," : "") << format_value(row[i].value);
    csv_ << '\n';
    csv_.flush();
    ++rows_;
  }
  const std::filesystem::path& csv_path() const { return csv_path_; }
  std::size_t rows() const { return rows_; }

 private:
  std::filesystem::path csv_path_;
  std::ofstream csv_;
  std::vector<std::string> keys_;
  std::size_t rows_ = 0;
};

// "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3": letters, digits, '.', '-' kept.
inline std::string sanitize_name(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    if (keep) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? std::string("unknown_gpu") : out;
}

// Splits "a,b,c" (empty items dropped).
inline std::vector<std::string> split_list(std::string_view s, char sep = ',') {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(sep, start), s.size());
    std::string item(s.substr(start, end - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

// Throws unless every item of the list is one of `known` (names a misspelt --kernels entry).
inline void require_known(const std::vector<std::string>& items, const std::vector<std::string>& known,
                          const std::string& what) {
  for (const auto& i : items) {
    if (std::find(known.begin(), known.end(), i) != known.end()) continue;
    std::string k;
    for (const auto& n : known) k += (k.empty() ? "" : ", ") + n;
    throw Error("unknown " + what + " '" + i + "' (expected one of: " + k + ")");
  }
}

// "28672x8192" -> {28672, 8192}; "4096x4096x4096" -> three numbers.
inline std::vector<std::int64_t> parse_dims(std::string_view s) {
  std::vector<std::int64_t> out;
  const auto parts = split_list(s, 'x');
  require(!parts.empty() && parts.size() == static_cast<std::size_t>(std::count(s.begin(), s.end(), 'x')) + 1,
          "bad dimensions '" + std::string(s) + "' (expected e.g. 4096x4096)");
  for (const auto& p : parts) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(p, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    require(used == p.size() && v > 0, "bad dimension '" + p + "' in '" + std::string(s) + "'");
    out.push_back(v);
  }
  return out;
}

}  // namespace warpsparse::bench
