// Reading the GPU benchmarks' results for the notebooks: bench/results/<gpu>/<program>_<stamp>.csv
// with a <program>_<stamp>.meta.json beside each (bench/README.md). Each notebook reads only its own
// program's files, chosen by file-name prefix, so one program's files never count against another's.
#pragma once
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace warpsparse::notebooks::bench_csv {

namespace fs = std::filesystem;

inline std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

inline double to_d(const std::string& s) {
  try {
    return s.empty() ? std::nan("") : std::stod(s);
  } catch (const std::exception&) {
    return std::nan("");
  }
}

struct Table {
  fs::path path;
  std::string gpu_dir;  // the <gpu> folder name
  std::map<std::string, std::size_t> col;
  std::vector<std::vector<std::string>> rows;
  std::string get(const std::vector<std::string>& r, const char* name) const {
    const auto it = col.find(name);
    return it != col.end() && it->second < r.size() ? r[it->second] : std::string();
  }
};

// All <dir>/<gpu>/<prefix>*.csv, sorted by path. `others` receives the .csv files of other programs
// (not matching the prefix), which the caller ignores but may list.
inline std::vector<Table> read_all(const std::string& dir, const std::string& prefix,
                                   std::vector<std::string>* others = nullptr) {
  std::vector<fs::path> paths;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  for (const auto& gpu : fs::directory_iterator(dir))
    if (gpu.is_directory())
      for (const auto& f : fs::directory_iterator(gpu.path())) {
        if (f.path().extension() != ".csv") continue;
        if (f.path().filename().string().rfind(prefix, 0) == 0) paths.push_back(f.path());
        else if (others) others->push_back(f.path().string());
      }
  std::sort(paths.begin(), paths.end());
  std::vector<Table> out;
  for (const auto& p : paths) {
    Table t;
    t.path = p;
    t.gpu_dir = p.parent_path().filename().string();
    std::ifstream in(p);
    std::string line;
    if (!std::getline(in, line)) continue;
    const auto header = split(line);
    for (std::size_t i = 0; i < header.size(); ++i) t.col[header[i]] = i;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '#') t.rows.push_back(split(line));
    out.push_back(std::move(t));
  }
  return out;
}

// The measured device copy bandwidth (bytes/s) from X.meta.json beside X.csv ("copy_gbps", GB/s).
inline std::optional<double> meta_copy_bandwidth(const fs::path& csv) {
  fs::path meta = csv;
  meta.replace_extension(".meta.json");
  std::ifstream in(meta);
  if (!in) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(in);
    if (j.contains("copy_gbps") && j["copy_gbps"].is_number()) {
      const double g = j["copy_gbps"].get<double>();
      if (std::isfinite(g) && g > 0) return g * 1e9;
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace warpsparse::notebooks::bench_csv
