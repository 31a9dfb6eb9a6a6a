#include "analysis/format_choice.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "reference/common/error.hpp"

namespace warpsparse::analysis::format_choice {

namespace br = bench_results;
namespace fs = std::filesystem;

namespace {

// The value of "name=value" in a '/'-separated schedule field, or "".
std::string field(const std::string& schedule, const std::string& name) {
  std::size_t at = 0;
  while (at <= schedule.size()) {
    const std::size_t end = std::min(schedule.find('/', at), schedule.size());
    const std::string part = schedule.substr(at, end - at);
    if (part.size() > name.size() && part.compare(0, name.size() + 1, name + "=") == 0) return part.substr(name.size() + 1);
    at = end + 1;
  }
  return {};
}

const DeviceFacts* facts_named(const std::string& gpu) {
  for (const KnownGpu& g : kKnownGpus)
    if (g.facts->name == gpu) return g.facts;
  return nullptr;
}

// A case as the CSV names it, without the kernel.
using Key = std::tuple<std::string, std::int64_t, std::int64_t, double, std::string, std::string>;

struct Measured {
  double us = 0;
  const std::vector<std::string>* row = nullptr;
};

// Per case of one table: the fastest batch-1 row of `kernel` with a positive median and bytes.
std::map<Key, Measured> fastest(const br::Table& t, const std::string& kernel) {
  std::map<Key, Measured> out;
  for (const auto& r : t.rows) {
    if (t.get(r, "kernel") != kernel || t.get(r, "batch") != "1") continue;
    const double us = br::to_d(t.get(r, "median_us")), bytes = br::to_d(t.get(r, "bytes"));
    if (!(us > 0) || !(bytes > 0)) continue;
    const double density = std::round(br::to_d(t.get(r, "density")) * 1e6) / 1e6;
    const Key k{t.get(r, "gpu"), static_cast<std::int64_t>(br::to_d(t.get(r, "rows"))),
                static_cast<std::int64_t>(br::to_d(t.get(r, "cols"))), density, t.get(r, "pattern"), t.get(r, "value_type")};
    auto it = out.find(k);
    if (it == out.end() || us < it->second.us) out[k] = {us, &r};
  }
  return out;
}

std::uint64_t bytes_of(const br::Table& t, const std::vector<std::string>& r) {
  return static_cast<std::uint64_t>(br::to_d(t.get(r, "bytes")));
}

// Every paired case of the tables, predicted with `rules` when given, else with each GPU's own.
std::vector<Case> paired(const std::vector<br::Table>& tables, std::vector<std::string>* notes,
                         const choice::Rules* rules = nullptr) {
  std::vector<Case> out;
  std::set<std::string> unknown;
  for (const br::Table& t : tables) {
    const auto mackos = fastest(t, "macko");
    for (const auto& [k, e] : fastest(t, "ec")) {
      const std::string name = t.path.filename().string() + ": " + std::get<0>(k) + " " + std::to_string(std::get<1>(k)) + "x" +
                               std::to_string(std::get<2>(k)) + " " + std::get<4>(k);
      const auto m = mackos.find(k);
      if (m == mackos.end()) {
        if (notes) notes->push_back(name + ": an ec row without a macko row of the same case");
        continue;
      }
      const DeviceFacts* d = facts_named(std::get<0>(k));
      if (!d) {
        if (notes && unknown.insert(std::get<0>(k)).second)
          notes->push_back(std::get<0>(k) + ": no DeviceFacts for this GPU (reference/device/device_facts.hpp), its cases are left out");
        continue;
      }
      const auto ec = parse_ec_schedule(t.get(*e.row, "schedule"));
      if (!ec) {
        if (notes) notes->push_back(name + ": the ec row's schedule '" + t.get(*e.row, "schedule") + "' has no pieces or nnz shares");
        continue;
      }
      Case c;
      c.file = t.path.filename().string();
      std::tie(c.gpu, c.rows, c.cols, c.density, c.pattern, c.value_type) = k;
      c.in.rows = c.rows;
      c.in.cols = c.cols;
      c.in.nnz = static_cast<std::int64_t>(br::to_d(t.get(*e.row, "nnz")));
      c.in.macko.bytes = bytes_of(t, *m->second.row);
      c.in.macko.schedule = t.get(*m->second.row, "schedule");
      const double mdb = br::to_d(t.get(*m->second.row, "delta_bits"));
      if (std::isfinite(mdb)) c.in.macko.delta_bits = static_cast<int>(mdb);
      c.in.ec = *ec;
      c.in.ec.bytes = bytes_of(t, *e.row);
      c.macko_us = m->second.us;
      c.ec_us = e.us;
      c.predicted = rules ? choice::choose(c.in, *d, *rules) : choice::choose(c.in, *d);
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

std::optional<choice::EcCost> parse_ec_schedule(const std::string& schedule) {
  choice::EcCost e;
  const double pieces = br::to_d(field(schedule, "pieces"));
  const std::string shares = field(schedule, "nnz%");
  if (!(pieces >= 0) || shares.empty()) return std::nullopt;
  e.pieces = static_cast<std::int64_t>(pieces);
  const double db = br::to_d(field(schedule, "db"));
  if (std::isfinite(db)) e.delta_bits = static_cast<int>(db);
  // The sets in the format's order: descending G, then G = 1 long and G = 1 short.
  constexpr int kGroups[] = {8, 4, 2, 1, 1};
  std::size_t at = 0, i = 0;
  for (; at <= shares.size() && i < std::size(kGroups); ++i) {
    const std::size_t end = std::min(shares.find(':', at), shares.size());
    const double pct = br::to_d(shares.substr(at, end - at));
    if (!(pct >= 0)) return std::nullopt;
    e.sets.push_back({kGroups[i], i == std::size(kGroups) - 1, pct / 100});
    at = end + 1;
  }
  if (i != std::size(kGroups) || at <= shares.size()) return std::nullopt;
  return e;
}

double Case::loss() const {
  const double picked = predicted.pick == choice::Format::ec ? ec_us : macko_us;
  return picked / std::min(macko_us, ec_us) - 1;
}

int Check::right() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [](const Case& c) { return c.right(); }));
}
double Check::share_right() const { return cases.empty() ? 0.0 : double(right()) / double(cases.size()); }
double Check::worst_loss() const {
  double w = 0;
  for (const Case& c : cases) w = std::max(w, c.loss());
  return w;
}

std::vector<br::Table> read_results(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {br::read_table(path)};
  require(fs::is_directory(path, ec), path + ": no such results file or folder");
  // A <gpu> folder holds the CSVs themselves; a results root holds <gpu> folders.
  std::vector<fs::path> here;
  for (const auto& f : fs::directory_iterator(path))
    if (f.is_regular_file() && f.path().extension() == ".csv" && f.path().filename().string().rfind("macko_", 0) == 0)
      here.push_back(f.path());
  std::vector<br::Table> out;
  if (here.empty()) {
    out = br::read_all(path, "macko_");
  } else {
    std::sort(here.begin(), here.end());
    for (const auto& p : here) out.push_back(br::read_table(p));
  }
  require(!out.empty(), path + ": holds no ws_bench_macko results (macko_*.csv)");
  return out;
}

Check check(const std::vector<br::Table>& tables) {
  Check c;
  c.cases = paired(tables, &c.notes);
  std::set<std::string> gpus;
  for (const Case& k : c.cases) gpus.insert(k.gpu);
  for (const std::string& g : gpus)
    if (auto f = fit(tables, g, *facts_named(g))) c.fits.push_back(std::move(*f));
  return c;
}

std::optional<Fit> fit(const std::vector<br::Table>& tables, const std::string& gpu, const DeviceFacts& d) {
  if (!(d.copy_bytes_per_s > 0)) return std::nullopt;
  const double L = d.latency_us;
  auto us_of = [&](double bytes) { return bytes / d.copy_bytes_per_s * 1e6; };  // at the full copy bandwidth
  Fit f;
  f.gpu = gpu;
  // stream_fraction: t = L + x / fraction, x the bytes' time at the copy bandwidth; minimising the
  // squared relative error sum((L + a x) / t - 1)^2 over a = 1 / fraction gives a in closed form.
  std::vector<std::pair<double, double>> xt;  // (x, t) of each MACKO row
  for (const br::Table& t : tables)
    for (const auto& [k, m] : fastest(t, "macko"))
      if (std::get<0>(k) == gpu) xt.emplace_back(us_of(double(bytes_of(t, *m.row))), m.us);
  if (xt.empty()) return std::nullopt;
  double num = 0, den = 0;
  for (const auto& [x, t] : xt) num += x / t * (1 - L / t), den += x / t * (x / t);
  const double a = num / den;
  f.rules.stream_fraction = 1 / a;
  f.macko_rows = static_cast<int>(xt.size());
  std::vector<double> err;
  for (const auto& [x, t] : xt) err.push_back(std::abs((L + a * x) / t - 1));
  std::sort(err.begin(), err.end());
  f.macko_p95_error = err[static_cast<std::size_t>(0.95 * double(err.size() - 1) + 0.5)];
  // EC: t = L + a x + launch + q start, q = pieces per resident warp. Least squares on relative
  // error in (launch, start): the 2 x 2 normal equations.
  const double warps = static_cast<double>(ec::resident_warps(d));
  double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
  std::vector<std::tuple<double, double, double>> xqt;
  for (const Case& c : paired(tables, nullptr)) {
    if (c.gpu != gpu) continue;
    const double x = us_of(double(c.in.ec.bytes)), q = double(c.in.ec.pieces) / warps, t = c.ec_us;
    const double u = t - L - a * x, w = 1 / (t * t);
    s11 += w, s12 += w * q, s22 += w * q * q, b1 += w * u, b2 += w * q * u;
    xqt.emplace_back(x, q, t);
  }
  const double det = s11 * s22 - s12 * s12;
  if (xqt.size() < 2 || !(std::abs(det) > 1e-12 * s11 * s22)) return std::nullopt;
  f.rules.ec_launch_us = (b1 * s22 - b2 * s12) / det;
  f.rules.ec_piece_start_us = (s11 * b2 - s12 * b1) / det;
  f.ec_cases = static_cast<int>(xqt.size());
  f.rules.ec_fit_error = 0;
  for (const auto& [x, q, t] : xqt)
    f.rules.ec_fit_error =
        std::max(f.rules.ec_fit_error, std::abs((L + a * x + f.rules.ec_launch_us + q * f.rules.ec_piece_start_us) / t - 1));
  return f;
}

}  // namespace warpsparse::analysis::format_choice
