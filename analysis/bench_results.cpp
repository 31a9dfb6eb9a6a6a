#include "analysis/bench_results.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "reference/common/error.hpp"

namespace warpsparse::analysis::bench_results {

std::vector<std::string> split(const std::string& line) {
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

double to_d(const std::string& s) {
  try {
    return s.empty() ? std::nan("") : std::stod(s);
  } catch (const std::exception&) {
    return std::nan("");
  }
}

std::string Table::program() const {
  const std::string name = path.stem().string();
  // <program>_<yyyymmddThhmmssZ>[_suffix]: the program is everything before the time stamp.
  for (std::size_t i = name.find('_'); i != std::string::npos; i = name.find('_', i + 1))
    if (i + 16 <= name.size() && name[i + 9] == 'T' && name[i + 16] == 'Z') return name.substr(0, i);
  return name;
}

Table read_table(const fs::path& csv) {
  Table t;
  t.path = csv;
  t.gpu_dir = csv.parent_path().filename().string();
  std::ifstream in(csv);
  require(static_cast<bool>(in), csv.string() + ": cannot open for reading");
  std::string line;
  require(static_cast<bool>(std::getline(in, line)), csv.string() + ": empty, no header line");
  const auto header = split(line);
  for (std::size_t i = 0; i < header.size(); ++i) t.col[header[i]] = i;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') t.rows.push_back(split(line));
  return t;
}

std::vector<Table> read_all(const std::string& dir, const std::string& prefix, std::vector<std::string>* others) {
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
    Table t = read_table(p);
    if (!t.col.empty()) out.push_back(std::move(t));
  }
  return out;
}

namespace {
// X.meta.json beside X.csv, parsed; null when it is missing or not JSON (a run without one is valid).
nlohmann::json read_meta(const fs::path& csv) {
  fs::path meta = csv;
  meta.replace_extension(".meta.json");
  std::ifstream in(meta);
  if (!in) return nullptr;
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return nullptr;
  }
}
}  // namespace

std::optional<double> meta_copy_bandwidth(const fs::path& csv) {
  const auto j = read_meta(csv);
  if (j.is_object() && j.contains("copy_gbps") && j["copy_gbps"].is_number()) {
    const double g = j["copy_gbps"].get<double>();
    if (std::isfinite(g) && g > 0) return g * 1e9;
  }
  return std::nullopt;
}

std::string meta_commit(const fs::path& csv) {
  const auto j = read_meta(csv);
  return j.is_object() && j.contains("commit") && j["commit"].is_string() ? j["commit"].get<std::string>() : "";
}

Tolerance tolerance(const std::string& program, const std::string& kernel, double reference_us) {
  if (program == "sparse24") return {0.05, 1.0};
  if (program != "macko") return {0.05, 1.0};
  const bool vendor = kernel.rfind("cublas", 0) == 0 || kernel.rfind("cusparse", 0) == 0 || kernel == "copy";
  if (vendor) return {0.03, reference_us > 100 ? 2.0 : 1.0};
  if (reference_us < 20) return {0.03, 1.0};
  if (reference_us <= 100) return {0.02, 1.0};
  return {0.015, 2.0};
}

bool CaseDelta::slower() const {
  return new_us > reference_us + std::max(tol.rel * reference_us, tol.abs_us);
}
bool CaseDelta::faster() const {
  return new_us < reference_us - std::max(tol.rel * reference_us, tol.abs_us);
}
int Comparison::slower() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [](const CaseDelta& c) { return c.slower(); }));
}
int Comparison::faster() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [](const CaseDelta& c) { return c.faster(); }));
}

namespace {

// The columns that name a case, where a table has them (MACKO and 2:4 benchmarks alike).
constexpr const char* kKeyColumns[] = {"gpu",     "kernel", "rows",         "cols", "m",     "n",      "k",
                                       "batch",   "density", "pattern",     "value_type", "delta_bits",
                                       "weight_shape", "iters", "rest_ms"};

std::string key_of(const Table& t, const std::vector<std::string>& r) {
  std::string k;
  for (const char* c : kKeyColumns) {
    if (!t.col.count(c)) continue;
    std::string v = t.get(r, c);
    const double d = to_d(v);
    if (!v.empty() && std::isfinite(d) && (std::string(c) == "density" || std::string(c) == "rest_ms"))
      v = std::to_string(std::round(d * 1e6) / 1e6);  // 0.5 and 0.50 are one density
    if (!k.empty()) k += ' ';
    k.append(c).append("=").append(v);
  }
  return k;
}

// Per case key: the fastest median of one table (several schedules or tiles of one case).
std::map<std::string, double> fastest(const Table& t) {
  std::map<std::string, double> out;
  for (const auto& r : t.rows) {
    const double us = to_d(t.get(r, "median_us"));
    if (!std::isfinite(us) || us <= 0) continue;
    const std::string k = key_of(t, r);
    const auto it = out.find(k);
    if (it == out.end() || us < it->second) out[k] = us;
  }
  return out;
}

}  // namespace

Comparison compare(const Table& run, const std::vector<Table>& reference) {
  require(run.col.count("median_us") == 1, run.path.string() + ": no median_us column");
  Comparison out;
  const std::string program = run.program();
  // The reference: the newest file holding each case (files sort by time stamp).
  std::vector<const Table*> refs;
  for (const Table& t : reference)
    if (t.program() == program && t.path != run.path && t.col.count("median_us")) refs.push_back(&t);
  std::sort(refs.begin(), refs.end(), [](const Table* a, const Table* b) { return a->path.filename() < b->path.filename(); });
  std::map<std::string, std::pair<double, const Table*>> ref;
  for (const Table* t : refs)
    for (const auto& [k, us] : fastest(*t)) ref[k] = {us, t};
  for (const auto& [k, us] : fastest(run)) {
    const auto it = ref.find(k);
    if (it == ref.end()) {
      out.unmatched.push_back(k);
      continue;
    }
    CaseDelta d;
    d.program = program;
    d.key = k;
    d.reference_us = it->second.first;
    d.new_us = us;
    d.reference_file = it->second.second->path.filename().string();
    const auto kpos = k.find("kernel=");
    const std::string kernel = kpos == std::string::npos ? "" : k.substr(kpos + 7, k.find(' ', kpos) - kpos - 7);
    d.tol = tolerance(program, kernel, d.reference_us);
    out.cases.push_back(d);
  }
  // Runs on boards of different bandwidth are not comparable at these tolerances.
  const auto bw = meta_copy_bandwidth(run.path);
  for (const Table* t : refs) {
    const auto rb = meta_copy_bandwidth(t->path);
    if (bw && rb && std::abs(*bw / *rb - 1) > 0.003)
      out.notes.push_back(t->path.filename().string() + " measured a copy bandwidth of " +
                          std::to_string(static_cast<int>(std::round(*rb / 1e9))) + " GB/s, this run " +
                          std::to_string(static_cast<int>(std::round(*bw / 1e9))) +
                          ": another board or state; rerun the reference in the same call");
  }
  return out;
}

}  // namespace warpsparse::analysis::bench_results
