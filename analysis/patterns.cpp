#include "analysis/patterns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <tuple>

namespace warpsparse::analysis {

namespace {
// Each family's name, and whether it reads the density and its parameter (the rest ignore them).
struct Name {
  Pattern p;
  std::string_view s;
  bool density, param;
};
constexpr Name kNames[] = {
    {Pattern::bernoulli, "bernoulli", true, false},
    {Pattern::exact_nnz, "exact_nnz", true, false},
    {Pattern::row_varying, "row_varying", true, true},
    {Pattern::clustered, "clustered", true, true},
    {Pattern::nm_2_4, "2:4", false, false},
    {Pattern::nm_4_8, "4:8", false, false},
    {Pattern::magnitude_row, "magnitude_row", true, true},
    {Pattern::magnitude_matrix, "magnitude_matrix", true, true},
    {Pattern::magnitude_heavy, "magnitude_heavy", true, true},
    {Pattern::row_blocked, "row_blocked", true, true},
    {Pattern::row_blocked_permuted, "row_blocked_permuted", true, true},
    {Pattern::column_clustered, "column_clustered", true, true},
    {Pattern::shifted_copies, "shifted_copies", true, false},
    {Pattern::zero_overlap, "zero_overlap", true, false},
};

const Name& name_of(Pattern p) {
  for (const auto& n : kNames)
    if (n.p == p) return n;
  throw Error("invalid pattern code");
}

// Independent stream per (seed, row): SplitMix64 of both, so rows can be generated in any order.
std::mt19937_64 row_rng(std::uint64_t seed, std::int64_t row) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(row) + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::mt19937_64(z ^ (z >> 31));
}

// A stream per (seed, tag, index) for draws that several rows share (a group's mask, a window's
// permutation, a column table): row_rng's mixing with other constants and the tag folded into the
// seed, so these streams stay apart from the rows' and from each other.
std::mt19937_64 shared_rng(std::uint64_t seed, std::uint64_t tag, std::int64_t index) {
  std::uint64_t z = (seed ^ tag) * 0xD1B54A32D192ED03ull + static_cast<std::uint64_t>(index) + 0x8CB92BA72F3D8DD7ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::mt19937_64(z ^ (z >> 31));
}
constexpr std::uint64_t kGroupMaskTag = 0x3C6EF372FE94F82Bull;   // row_blocked: group k's mask
constexpr std::uint64_t kWindowPermTag = 0xA54FF53A5F1D36F1ull;  // row_blocked_permuted: window w's rows
constexpr std::uint64_t kHotTag = 0x510E527FADE682D1ull;         // column_clustered: hot columns
constexpr std::uint64_t kBaseMaskTag = 0x9B05688C2B3E6C1Full;    // shifted_copies: the base mask
constexpr std::uint64_t kOwnerTag = 0x1F83D9ABFB41BD6Bull;       // zero_overlap: group k's owners

// Columns kept by one Bernoulli draw each, in column order. The index is written unconditionally
// and the count advanced by the draw: the same draws as an `if (b(rng)) push_back(c)` loop, without
// a branch the CPU mispredicts half the time near d = 0.5 (the studies' hot loop).
std::vector<std::int32_t> bernoulli_columns(double d, std::int64_t cols, std::mt19937_64& rng) {
  std::bernoulli_distribution b(d);
  std::vector<std::int32_t> out(static_cast<std::size_t>(cols));
  std::size_t n = 0;
  for (std::int64_t c = 0; c < cols; ++c) {
    const bool keep = b(rng);
    out[n] = static_cast<std::int32_t>(c);
    n += keep ? 1 : 0;
  }
  out.resize(n);
  return out;
}

// ----- Magnitude pruning ----------------------------------------------------------------------
// Weights w(r, c) = s_r · t_c · e(r, c): e is N(0, 1) (Student t with nu = 3 for the heavy
// family); t_c and s_r are log-normal column and row scales with log-sd sigma = param (default
// 0.5). Column scales stand in for the input-channel magnitudes that make real pruning masks
// non-uniform; without them, top-k of i.i.d. weights would just be exact_nnz again.
constexpr double kDefaultScaleSigma = 0.5;

struct ColumnScales {
  std::vector<double> log_t;        // log t_c
  double threshold_log = 0.0;       // magnitude_matrix: log of the global magnitude threshold
};

// Population threshold for magnitude_matrix: the theta with mean_c P(|s·t_c·e| > theta) = d,
// the expectation taken over e and the row scale s, with the realized column scales. So each
// row is independent of the others (rows can be generated in any order) and its expected
// density is d given the column scales. P(|s t e| > theta) = g(log theta − log t_c) with
// g(x) = E_u[erfc(exp(x − sigma u)/sqrt 2)], tabulated once and interpolated.
double matrix_threshold(const std::vector<double>& log_t, double d, double sigma) {
  constexpr int kGrid = 4001;
  constexpr double kLo = -12.0, kHi = 12.0;
  const double h = (kHi - kLo) / (kGrid - 1);
  std::vector<double> g(kGrid);
  constexpr int kQuad = 241;  // u on [-6, 6], trapezoid with normal weights
  for (int i = 0; i < kGrid; ++i) {
    const double x = kLo + h * i;
    double acc = 0.0, wsum = 0.0;
    for (int q = 0; q < kQuad; ++q) {
      const double u = -6.0 + 12.0 * q / (kQuad - 1);
      const double w = std::exp(-0.5 * u * u);
      acc += w * std::erfc(std::exp(x - sigma * u) / std::sqrt(2.0));
      wsum += w;
    }
    g[i] = acc / wsum;
  }
  auto g_at = [&](double x) {
    if (x <= kLo) return g.front();
    if (x >= kHi) return g.back();
    const double f = (x - kLo) / h;
    const auto i = static_cast<std::size_t>(f);
    const double t = f - double(i);
    return i + 1 < g.size() ? g[i] * (1 - t) + g[i + 1] * t : g.back();
  };
  auto kept = [&](double lt) {
    double s = 0.0;
    for (const double l : log_t) s += g_at(lt - l);
    return s / double(log_t.size()) - d;
  };
  std::uintmax_t iters = 200;
  const auto r = boost::math::tools::bisect(kept, kLo + 1.0, kHi - 1.0, boost::math::tools::eps_tolerance<double>(40), iters);
  return 0.5 * (r.first + r.second);
}

// Held by shared_ptr: clearing the cache (below) must not free a table another thread is reading.
std::shared_ptr<const ColumnScales> column_scales(std::uint64_t seed, std::int64_t cols, double sigma, bool matrix,
                                                  double d) {
  static std::mutex mu;
  static std::map<std::tuple<std::uint64_t, std::int64_t, double, bool, double>, std::shared_ptr<const ColumnScales>> cache;
  // The matrix-wide threshold is found on a table of log-scales over [-12, 12]: hence sigma <= 2
  // (require_param).
  const auto key = std::make_tuple(seed, cols, sigma, matrix, matrix ? d : 0.0);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto cs = std::make_shared<ColumnScales>();
  auto rng = row_rng(seed ^ 0x5DEECE66Dull, -1);  // a stream no row uses
  std::normal_distribution<double> n(0.0, 1.0);
  cs->log_t.resize(static_cast<std::size_t>(cols));
  for (auto& l : cs->log_t) l = sigma * n(rng);
  if (matrix && cols > 0 && d > 0.0 && d < 1.0) cs->threshold_log = matrix_threshold(cs->log_t, d, sigma);
  if (cache.size() > 256) cache.clear();  // studies sweep a few dozen keys; keep memory bounded
  return cache.emplace(key, std::move(cs)).first->second;
}

std::vector<std::int32_t> magnitude_row_indices(const PatternSpec& spec, std::int64_t cols, std::uint64_t seed,
                                                std::mt19937_64& rng) {
  const double d = spec.density;
  const double sigma = spec.param > 0 ? spec.param : kDefaultScaleSigma;
  const bool matrix = spec.kind == Pattern::magnitude_matrix;
  const auto cs_ptr = column_scales(seed, cols, sigma, matrix, d);
  const ColumnScales& cs = *cs_ptr;
  std::vector<double> score(static_cast<std::size_t>(cols));
  std::normal_distribution<double> n(0.0, 1.0);
  std::student_t_distribution<double> t3(3.0);
  const bool heavy = spec.kind == Pattern::magnitude_heavy;
  for (std::int64_t c = 0; c < cols; ++c) {
    const double e = heavy ? t3(rng) : n(rng);
    score[c] = std::log(std::abs(e) + 1e-300) + cs.log_t[c];
  }
  std::vector<std::int32_t> out;
  if (matrix) {
    const double log_s = sigma * n(rng);  // this row's scale
    if (d >= 1.0) {
      for (std::int64_t c = 0; c < cols; ++c) out.push_back(static_cast<std::int32_t>(c));
    } else if (d > 0.0) {
      for (std::int64_t c = 0; c < cols; ++c)
        if (score[c] + log_s > cs.threshold_log) out.push_back(static_cast<std::int32_t>(c));
    }
    return out;
  }
  // Per row: the k = round(d·C) largest |t_c e| (ties have probability zero).
  const auto k = static_cast<std::int64_t>(std::llround(d * double(cols)));
  std::vector<std::int32_t> idx(static_cast<std::size_t>(cols));
  for (std::int64_t c = 0; c < cols; ++c) idx[c] = static_cast<std::int32_t>(c);
  if (k < cols)
    std::nth_element(idx.begin(), idx.begin() + k, idx.end(),
                     [&](std::int32_t a, std::int32_t b) { return score[a] > score[b]; });
  idx.resize(static_cast<std::size_t>(k));
  std::sort(idx.begin(), idx.end());
  return idx;
}

// ----- Structured families -------------------------------------------------------------------
// Per-(seed, cols) tables, built once and shared by all rows as column_scales does, so that a
// matrix costs O(cols) once more, not per row. Held by shared_ptr: trimming the cache cannot free a
// table that a caller on another thread still reads.
struct HotColumns {
  std::vector<std::uint8_t> hot;  // column_clustered: 1 where the column is hot
  std::int64_t n_hot = 0;
};
struct BaseMask {
  std::vector<std::int32_t> cols;  // shifted_copies: the mask every row rotates
};

template <class Table, class Make>
std::shared_ptr<const Table> cached_table(std::uint64_t seed, std::int64_t cols, double param, Make make) {
  static std::mutex mu;
  static std::map<std::tuple<std::uint64_t, std::int64_t, double>, std::shared_ptr<const Table>> cache;
  const auto key = std::make_tuple(seed, cols, param);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::shared_ptr<const Table> t = std::make_shared<Table>(make());
  if (cache.size() > 256) cache.clear();  // studies sweep a few dozen keys; keep memory bounded
  cache.emplace(key, t);
  return t;
}

std::shared_ptr<const HotColumns> hot_columns(std::uint64_t seed, std::int64_t cols, double h) {
  return cached_table<HotColumns>(seed, cols, h, [&] {
    // One draw per column in column order: column c's state does not depend on cols.
    HotColumns t;
    auto rng = shared_rng(seed, kHotTag, 0);
    std::bernoulli_distribution b(h);
    t.hot.resize(static_cast<std::size_t>(cols));
    for (auto& x : t.hot) {
      x = b(rng) ? 1 : 0;
      t.n_hot += x;
    }
    return t;
  });
}

std::shared_ptr<const BaseMask> base_mask(std::uint64_t seed, std::int64_t cols, double d) {
  return cached_table<BaseMask>(seed, cols, d, [&] {
    auto rng = shared_rng(seed, kBaseMaskTag, 0);
    return BaseMask{bernoulli_columns(d, cols, rng)};
  });
}

std::int64_t row_group_size(const PatternSpec& spec) {
  return static_cast<std::int64_t>(spec.param > 0 ? spec.param : 8.0);  // range: require_param
}

// row_blocked(_permuted): the row's place in the grouped order, whose g-blocks are the groups.
// Unpermuted, that is the row itself; permuted, a random permutation of its window of 8·g rows
// (8 groups) sends it elsewhere in the window. Drawn per (seed, window), so each row is pure; the
// permutation costs O(g) per row, small next to the row's O(cols) draws.
std::int64_t row_blocked_slot(const PatternSpec& spec, std::uint64_t seed, std::int64_t row) {
  if (spec.kind != Pattern::row_blocked_permuted) return row;
  const std::int64_t w = 8 * row_group_size(spec), window = row / w;
  std::vector<std::int64_t> perm(static_cast<std::size_t>(w));
  std::iota(perm.begin(), perm.end(), window * w);
  auto rng = shared_rng(seed, kWindowPermTag, window);
  std::shuffle(perm.begin(), perm.end(), rng);
  return perm[static_cast<std::size_t>(row - window * w)];
}

std::vector<std::int32_t> column_clustered_row(const PatternSpec& spec, std::int64_t cols, std::uint64_t seed,
                                               std::mt19937_64& rng) {
  const double d = spec.density;
  const double h = spec.param > 0 ? spec.param : 0.1;  // at most 1 (require_param)
  std::vector<std::int32_t> out(static_cast<std::size_t>(cols));
  if (d >= 1.0) {
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  const auto t = hot_columns(seed, cols, h);
  // The realized hot fraction, not h: then the expected density given the columns is exactly d,
  // as magnitude_matrix's threshold is set from the realized column scales, and a mean over rows
  // converges to d rather than to d plus this seed's hot-fraction error times (p_hot − p_cold).
  const double hh = cols > 0 ? double(t->n_hot) / double(cols) : 0.0;
  double p_hot = std::min(1.0, 3.0 * d);
  if (hh * p_hot > d) p_hot = d / hh;
  const double p_cold = hh < 1.0 ? std::clamp((d - hh * p_hot) / (1.0 - hh), 0.0, 1.0) : 0.0;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::size_t n = 0;
  for (std::int64_t c = 0; c < cols; ++c) {
    const double p = t->hot[static_cast<std::size_t>(c)] ? p_hot : p_cold;
    const bool keep = u(rng) < p || p >= 1.0;  // one draw per column whatever p is
    out[n] = static_cast<std::int32_t>(c);
    n += keep ? 1 : 0;
  }
  out.resize(n);
  return out;
}

std::vector<std::int32_t> shifted_copies_row(const PatternSpec& spec, std::int64_t cols, std::uint64_t seed,
                                             std::mt19937_64& rng) {
  const auto base = base_mask(seed, cols, spec.density);
  if (cols < 2) return base->cols;  // no shift in [1, cols)
  const std::int64_t s = std::uniform_int_distribution<std::int64_t>(1, cols - 1)(rng);
  // Columns at or past cols − s wrap to the front; both halves stay sorted.
  const auto& b = base->cols;
  const auto split = std::lower_bound(b.begin(), b.end(), static_cast<std::int32_t>(cols - s));
  std::vector<std::int32_t> out;
  out.reserve(b.size());
  for (auto it = split; it != b.end(); ++it) out.push_back(static_cast<std::int32_t>(*it + s - cols));
  for (auto it = b.begin(); it != split; ++it) out.push_back(static_cast<std::int32_t>(*it + s));
  return out;
}

std::vector<std::int32_t> zero_overlap_row(const PatternSpec& spec, std::int64_t cols, std::uint64_t seed,
                                           std::int64_t row) {
  const double d = spec.density;
  std::vector<std::int32_t> out(static_cast<std::size_t>(d > 0.0 ? cols : 0));
  if (d <= 0.0) return out;
  // floor(1/d), nudged up so that a density written as 1/k in decimal gives k; capped so that the
  // conversion stays defined for tiny d (such groups leave every row all but empty anyway).
  const double inv = std::floor(1.0 / d + 1e-9);
  const std::int64_t k = inv >= 0x1p40 ? std::int64_t{1} << 40 : std::max<std::int64_t>(1, static_cast<std::int64_t>(inv));
  if (k == 1) {
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  // The group's owner of each column, the c-th draw of the group's stream: every row of the group
  // replays the same draws, so the rows partition the columns.
  auto rng = shared_rng(seed, kOwnerTag, row / k);
  std::uniform_int_distribution<std::int64_t> owner(0, k - 1);
  const std::int64_t me = row % k;
  std::size_t n = 0;
  for (std::int64_t c = 0; c < cols; ++c) {
    const bool keep = owner(rng) == me;
    out[n] = static_cast<std::int32_t>(c);
    n += keep ? 1 : 0;
  }
  out.resize(n);
  return out;
}
}  // namespace

std::string_view to_string(Pattern p) { return name_of(p).s; }

bool pattern_takes_density(Pattern p) { return name_of(p).density; }
bool pattern_takes_param(Pattern p) { return name_of(p).param; }

Pattern parse_pattern(std::string_view name) {
  std::string valid;
  for (const auto& n : kNames) {
    if (n.s == name) return n.p;
    valid += (valid.empty() ? "" : ", ") + std::string(n.s);
  }
  throw Error("unknown pattern '" + std::string(name) + "' (valid: " + valid + ")");
}

std::vector<Pattern> all_patterns() {
  std::vector<Pattern> v;
  for (const auto& n : kNames) v.push_back(n.p);
  return v;
}

// Every family's range for its parameter, and which families have none, in one place: the
// generators read it unchecked.
// pattern_row calls this for every row, so the message is formatted only on failure.
void require_param(const PatternSpec& spec, std::string_view option) {
  const double p = spec.param;
  const char* wrong = nullptr;  // what is wrong with the parameter, after "the <family> pattern"
  if (!std::isfinite(p) || p < 0.0) {
    wrong = "'s parameter must be finite and >= 0 (0: the family's default)";
  } else if (p > 0.0 && !pattern_takes_param(spec.kind)) {  // it would be ignored
    wrong = " has no parameter";
  } else if (p > 0.0) {  // 0: the family's default
    switch (spec.kind) {
      case Pattern::magnitude_row:
      case Pattern::magnitude_matrix:
      case Pattern::magnitude_heavy:
        if (p > 2.0) wrong = "'s parameter, the log-sd of the scales, must lie in (0, 2]";
        break;
      case Pattern::row_blocked:
      case Pattern::row_blocked_permuted:
        if (p < 1.0 || p > double(1 << 20) || p != std::floor(p))
          wrong = "'s parameter, the group size in rows, must be a whole number in [1, 2^20]";
        break;
      case Pattern::column_clustered:
        if (p > 1.0) wrong = "'s parameter, the hot share of the columns, must lie in (0, 1]";
        break;
      default:
        break;
    }
  }
  if (wrong)
    throw Error(fmt::format("{}: the {} pattern{}, got {:g}", option, to_string(spec.kind), wrong, p));
}

std::vector<std::int32_t> pattern_row(const PatternSpec& spec, std::int64_t cols, std::uint64_t seed,
                                      std::int64_t row) {
  require(spec.density >= 0.0 && spec.density <= 1.0, "density must lie in [0, 1]");
  require_param(spec);
  auto rng = row_rng(seed, row);
  std::vector<std::int32_t> out;
  switch (spec.kind) {
    case Pattern::bernoulli:
      return bernoulli_columns(spec.density, cols, rng);
    case Pattern::exact_nnz: {
      const auto k = static_cast<std::int64_t>(std::llround(spec.density * double(cols)));
      // Selection sampling (Knuth's Algorithm S): k of cols, sorted, uniformly.
      std::int64_t need = k;
      for (std::int64_t c = 0; c < cols && need > 0; ++c) {
        std::uniform_int_distribution<std::int64_t> u(0, cols - c - 1);
        if (u(rng) < need) {
          out.push_back(static_cast<std::int32_t>(c));
          --need;
        }
      }
      return out;
    }
    case Pattern::row_varying: {
      // Row density ~ Beta(a, b) with mean d and concentration a + b = param (default 20), drawn
      // as X/(X+Y) from two gamma variates; the row is then Bernoulli at that density.
      const double d = spec.density;
      double rd = d;
      if (d > 0.0 && d < 1.0) {
        const double conc = spec.param > 0 ? spec.param : 20.0;
        std::gamma_distribution<double> ga(d * conc, 1.0), gb((1.0 - d) * conc, 1.0);
        const double x = ga(rng), y = gb(rng);
        rd = x + y > 0 ? x / (x + y) : d;
      }
      return bernoulli_columns(rd, cols, rng);
    }
    case Pattern::clustered: {
      // Two-state Markov chain along the row (zero <-> nonzero). Zero runs are geometric with
      // mean mu = param (default 2/d: twice as long as a Bernoulli row's 1/d); the nonzero->zero
      // rate is set so the stationary density is d, and column 0 is drawn from the stationary
      // law, so every column is nonzero with probability exactly d. mu below (1 - d)/d would
      // need a rate above 1 and is raised to that minimum (alternating zeros and nonzeros).
      const double d = spec.density;
      if (d <= 0.0) return out;
      double mu = spec.param > 0 ? spec.param : 2.0 / d;
      mu = std::max({mu, (1.0 - d) / d, 1.0});
      const double p_zn = 1.0 / mu;                                 // zero -> nonzero
      const double p_nz = std::min(1.0, p_zn * (1.0 - d) / d);      // nonzero -> zero
      std::uniform_real_distribution<double> u(0.0, 1.0);
      bool nz = u(rng) < d;
      for (std::int64_t c = 0; c < cols; ++c) {
        if (nz) out.push_back(static_cast<std::int32_t>(c));
        const double p_switch = nz ? p_nz : p_zn;
        if (u(rng) < p_switch) nz = !nz;
      }
      return out;
    }
    case Pattern::nm_2_4:
    case Pattern::nm_4_8: {
      // N of every M consecutive columns, uniformly; a last partial group of g < M columns keeps
      // round(g·N/M). The density argument is ignored.
      const int n = spec.kind == Pattern::nm_2_4 ? 2 : 4, m = spec.kind == Pattern::nm_2_4 ? 4 : 8;
      for (std::int64_t g0 = 0; g0 < cols; g0 += m) {
        const int g = static_cast<int>(std::min<std::int64_t>(m, cols - g0));
        int need = g == m ? n : static_cast<int>(std::lround(double(g) * n / m));
        for (int i = 0; i < g && need > 0; ++i) {
          std::uniform_int_distribution<int> pick(0, g - i - 1);
          if (pick(rng) < need) {
            out.push_back(static_cast<std::int32_t>(g0 + i));
            --need;
          }
        }
      }
      return out;
    }
    case Pattern::magnitude_row:
    case Pattern::magnitude_heavy:
    case Pattern::magnitude_matrix:
      return magnitude_row_indices(spec, cols, seed, rng);
    case Pattern::row_blocked:
    case Pattern::row_blocked_permuted: {
      auto grng = shared_rng(seed, kGroupMaskTag, row_blocked_slot(spec, seed, row) / row_group_size(spec));
      return bernoulli_columns(spec.density, cols, grng);
    }
    case Pattern::column_clustered:
      return column_clustered_row(spec, cols, seed, rng);
    case Pattern::shifted_copies:
      return shifted_copies_row(spec, cols, seed, rng);
    case Pattern::zero_overlap:
      return zero_overlap_row(spec, cols, seed, row);
  }
  throw Error("unhandled pattern");
}

template <class T>
SparseRows<T> generate(const PatternSpec& spec, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  return generate_rows<T>(spec, 0, rows, cols, seed);
}

template <class T>
SparseRows<T> generate_rows(const PatternSpec& spec, std::int64_t row_begin, std::int64_t row_end,
                            std::int64_t cols, std::uint64_t seed) {
  require(row_begin >= 0 && row_begin <= row_end && cols >= 0 && cols <= kMaxCols,
          "bad shape for a generated matrix");
  SparseRows<T> m;
  m.cols = cols;
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    const auto idx = pattern_row(spec, cols, seed, r);
    auto rng = row_rng(seed ^ 0xA5A5A5A5A5A5A5A5ull, r);
    std::normal_distribution<float> n(0.0f, 1.0f);
    std::student_t_distribution<float> t3(3.0f);
    const bool heavy = spec.kind == Pattern::magnitude_heavy;
    for (const auto c : idx) {
      T v;
      do v = from_float<T>(heavy ? t3(rng) : n(rng)); while (is_zero(v));
      m.push(c, v);
    }
    m.end_row();
  }
  return m;
}

template SparseRows<half> generate<half>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);
template SparseRows<bfloat16> generate<bfloat16>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);
template SparseRows<float> generate<float>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);
template SparseRows<std::int8_t> generate<std::int8_t>(const PatternSpec&, std::int64_t, std::int64_t, std::uint64_t);
#define WS_INSTANTIATE_ROWS(T) \
  template SparseRows<T> generate_rows<T>(const PatternSpec&, std::int64_t, std::int64_t, std::int64_t, std::uint64_t);
WS_INSTANTIATE_ROWS(half)
WS_INSTANTIATE_ROWS(bfloat16)
WS_INSTANTIATE_ROWS(float)
WS_INSTANTIATE_ROWS(std::int8_t)
#undef WS_INSTANTIATE_ROWS

}  // namespace warpsparse::analysis
