#include "analysis/padding_study.hpp"
#include "analysis/intervals.hpp"

#include <fmt/core.h>

#include <atomic>
#include <boost/math/distributions/students_t.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <ostream>
#include <thread>

#include "analysis/effd.hpp"
#include "reference/common/error.hpp"
#include "reference/macko/macko_format.hpp"

namespace warpsparse::analysis {

namespace {

// Sums of squares reach rows x cols^2 (2^93 at the shape limits): 128-bit integers keep them exact.
__extension__ using Wide = __int128;

// Integer sums of one chunk: exact, so merging order cannot change a bit.
struct ChunkSums {
  std::int64_t rows = 0, nnz = 0, padding = 0;
  Wide pad_sq = 0;   // Σ P_r²
  Wide emit_sq = 0;  // Σ (k_r + P_r)²
  double seconds = 0;
};

// Elements a chunk of one density holds at most, generated (a little above the density, as
// run_chunk reserves) and encoded.
double generated_fraction(double density) { return std::min(1.0, density * 1.1 + 0.01); }

template <class T>
ChunkSums run_chunk(const StudyConfig& cfg, double density, std::int64_t r0, std::int64_t r1) {
  const auto t0 = std::chrono::steady_clock::now();
  PatternSpec spec = cfg.pattern;
  spec.density = density;
  // The same rows as generate_rows(spec, r0, r1, ...), with every nonzero set to 1: the encoder's
  // padding depends only on where the nonzeros are, and drawing values would double the cost.
  SparseRows<T> m;
  m.cols = cfg.cols;
  m.row_ptr.reserve(static_cast<std::size_t>(r1 - r0) + 1);
  const std::size_t guess = static_cast<std::size_t>(double(r1 - r0) * double(cfg.cols) * generated_fraction(density));
  m.col.reserve(guess);
  m.val.reserve(guess);
  const T one = from_float<T>(1.0f);
  for (std::int64_t r = r0; r < r1; ++r) {
    for (const auto c : pattern_row(spec, cfg.cols, cfg.seed, r)) m.push(c, one);
    m.end_row();
  }
  MackoParams p;
  p.delta_bits = cfg.delta_bits;
  p.emit_trailing_padding = cfg.trailing_padding;
  const Macko<T> enc = encode_macko(m, p);
  ChunkSums s;
  s.rows = r1 - r0;
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::int64_t k = m.row_ptr[r + 1] - m.row_ptr[r];  // generated values are never zero
    const std::int64_t e = enc.row_ptr[r + 1] - enc.row_ptr[r];
    const std::int64_t pad = e - k;
    s.nnz += k;
    s.padding += pad;
    s.pad_sq += Wide{pad} * pad;
    s.emit_sq += Wide{e} * e;
  }
  require(s.nnz == enc.nnz, "encoder nnz differs from the generated nonzeros");
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

ChunkSums run_chunk_any(const StudyConfig& cfg, double d, std::int64_t r0, std::int64_t r1) {
  switch (cfg.value_bits) {
    case 8: return run_chunk<std::int8_t>(cfg, d, r0, r1);
    case 32: return run_chunk<float>(cfg, d, r0, r1);
    default: return run_chunk<half>(cfg, d, r0, r1);
  }
}

// Mean, sample variance and half-width of a Student-t interval from integer sums.
struct Interval {
  double mean, var, half;
};
Interval interval(double sum, double sum_sq, std::int64_t n, double confidence) {
  const double mean = sum / double(n);
  if (n < 2) return {mean, 0.0, std::numeric_limits<double>::infinity()};
  const double var = std::max(0.0, (sum_sq - sum * mean) / double(n - 1));
  const boost::math::students_t t(double(n - 1));
  const double q = boost::math::quantile(boost::math::complement(t, (1.0 - confidence) / 2.0));
  return {mean, var, q * std::sqrt(var / double(n))};
}

}  // namespace

void StudyConfig::validate() const {
  require(!densities.empty(), "no densities to study");
  require_param(pattern);
  for (const double d : densities) require(d >= 0.0 && d <= 1.0, "densities must lie in [0, 1]");
  require(rows >= 1 && rows <= kMaxCols, "rows = " + std::to_string(rows) + ": a study needs 1 to 2^31 - 1 rows");
  require(cols >= 1 && cols <= kMaxCols, "cols = " + std::to_string(cols) + ": a study needs 1 to 2^31 - 1 columns");
  require(value_bits == 8 || value_bits == 16 || value_bits == 32, "value bits must be 8, 16 or 32");
  require(macko::valid_delta_bits(delta_bits), "delta bits must be 1, 2, 4 or 8");
  require(threads >= 1 && threads <= 256, "threads must be 1..256");
  require(chunk_rows >= 1, "chunk_rows must be positive");
  require_confidence(confidence);
}

std::int64_t StudyConfig::rows_per_chunk() const {
  return std::max<std::int64_t>(1, std::min(chunk_rows, (std::int64_t{1} << 22) / std::max<std::int64_t>(cols, 1)));
}

std::uint64_t StudyConfig::memory_bytes() const {
  double dmax = 0;
  for (const double d : densities) dmax = std::max(dmax, d);
  const double elems = double(std::min<std::int64_t>(rows_per_chunk(), rows)) * double(cols);
  const double value = value_bits / 8.0;
  const double generated = elems * generated_fraction(dmax) * (sizeof(std::int32_t) + value) + double(cols) * 4;
  const double encoded = elems * (value + 1.0);  // values and (at most a byte of) deltas per emitted element
  const double items = double(densities.size()) * std::ceil(double(rows) / double(rows_per_chunk()));
  const double total = double(std::min(threads, 256)) * (generated + encoded) + items * sizeof(ChunkSums);
  return total >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(total);
}

std::vector<double> default_densities(int n) {
  std::vector<double> d;
  // Weighted so that the ends are exactly 0.01 and 1 (0.01 + 0.99 * i / (n - 1) gives 0.9999999999999999).
  for (int i = 0; i < n; ++i) d.push_back(n == 1 ? 1.0 : (0.01 * double(n - 1 - i) + double(i)) / double(n - 1));
  return d;
}

std::vector<StudyPoint> run_padding_study(const StudyConfig& cfg) {
  cfg.validate();
  const std::int64_t per_chunk = cfg.rows_per_chunk();
  const std::int64_t chunks = (cfg.rows + per_chunk - 1) / per_chunk;
  const std::int64_t items = static_cast<std::int64_t>(cfg.densities.size()) * chunks;
  std::vector<ChunkSums> sums(static_cast<std::size_t>(items));
  std::atomic<std::int64_t> next{0}, done{0};
  std::exception_ptr failure;
  std::atomic<bool> failed{false};

  auto worker = [&] {
    for (;;) {
      const std::int64_t i = next.fetch_add(1);
      if (i >= items || failed.load()) return;
      const double d = cfg.densities[static_cast<std::size_t>(i / chunks)];
      const std::int64_t r0 = (i % chunks) * per_chunk, r1 = std::min(cfg.rows, r0 + per_chunk);
      try {
        sums[static_cast<std::size_t>(i)] = run_chunk_any(cfg, d, r0, r1);
      } catch (...) {
        if (!failed.exchange(true)) failure = std::current_exception();
        return;
      }
      done.fetch_add(1);
    }
  };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  const int nthreads = static_cast<int>(std::min<std::int64_t>(cfg.threads, std::max<std::int64_t>(items, 1)));
  for (int t = 1; t < nthreads; ++t) pool.emplace_back(worker);
  if (cfg.progress) {
    // The calling thread reports progress while the others work, then joins them in the work.
    std::thread reporter([&] {
      while (done.load() < items && !failed.load()) {
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double frac = double(done.load()) / double(items);
        fmt::print(stderr, "\rstudy padding [{}]: {:5.1f}% of {} densities x {} rows x {} cols, {:.1f} s   ",
                   to_string(cfg.pattern.kind), 100.0 * frac, cfg.densities.size(), cfg.rows, cfg.cols, el);
        std::fflush(stderr);
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
      }
    });
    worker();
    for (auto& t : pool) t.join();
    reporter.join();
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(stderr, "\rstudy padding [{}]: done, {} densities x {} rows x {} cols in {:.2f} s on {} threads\n",
               to_string(cfg.pattern.kind), cfg.densities.size(), cfg.rows, cfg.cols, el, nthreads);
  } else {
    worker();
    for (auto& t : pool) t.join();
  }
  if (failure) std::rethrow_exception(failure);

  std::vector<StudyPoint> out;
  const double R = double(cfg.rows), C = double(cfg.cols);
  for (std::size_t di = 0; di < cfg.densities.size(); ++di) {
    ChunkSums s;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const auto& x = sums[di * static_cast<std::size_t>(chunks) + static_cast<std::size_t>(c)];
      s.rows += x.rows;
      s.nnz += x.nnz;
      s.padding += x.padding;
      s.pad_sq += x.pad_sq;
      s.emit_sq += x.emit_sq;
      s.seconds += x.seconds;
    }
    StudyPoint p;
    p.density = cfg.densities[di];
    p.nnz = s.nnz;
    p.padding = s.padding;
    p.emitted = s.nnz + s.padding;
    p.measured_density = double(s.nnz) / (R * C);
    p.seconds = s.seconds;
    // Storage of the whole matrix as the encoder lays it out (chunks were encoded separately;
    // padding is per row, so only the array-end alignment and row-pointer count need the total).
    const std::int64_t padded = macko::padded_length(p.emitted, cfg.delta_bits);
    const std::uint64_t ptr_bytes = 4ull * static_cast<std::uint64_t>(cfg.rows + 1);
    p.storage_bytes = static_cast<std::uint64_t>(padded) * static_cast<std::uint64_t>(cfg.value_bits / 8) +
                      static_cast<std::uint64_t>(macko::delta_bytes(padded, cfg.delta_bits)) + ptr_bytes;
    const double dense_bytes = R * C * cfg.value_bits / 8.0;
    p.effd = double(p.storage_bytes) / dense_bytes;
    // Padding per row is a non-negative count that becomes rare at high density: its interval is
    // the quasi-Poisson one (analysis/intervals.hpp), never negative and not [0, 0] after no events.
    const Interval ip = interval(double(s.padding), double(s.pad_sq), s.rows, cfg.confidence);
    const Bounds pb = count_mean(double(s.padding), double(s.pad_sq), s.rows, cfg.confidence);
    p.pad_mean = ip.mean;
    p.pad_var = ip.var;
    p.pad_lo = pb.lo;
    p.pad_hi = pb.hi;
    const Interval ie = interval(double(p.emitted), double(s.emit_sq), s.rows, cfg.confidence);
    const double bits_per_emitted = cfg.value_bits + cfg.delta_bits;
    const double fixed_bits = 8.0 * double(p.storage_bytes) - double(p.emitted) * bits_per_emitted;
    auto effd_at = [&](double mean_emitted) { return (R * mean_emitted * bits_per_emitted + fixed_bits) / (dense_bytes * 8); };
    p.effd_lo = effd_at(ie.mean - ie.half);
    p.effd_hi = effd_at(ie.mean + ie.half);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (cfg.pattern.kind) {
      case Pattern::bernoulli:
        p.exact_mean = exact_padding_bernoulli(cfg.cols, p.density, cfg.delta_bits, cfg.trailing_padding).mean;
        break;
      case Pattern::exact_nnz:
        p.exact_mean = exact_padding_exact_k(cfg.cols, std::llround(p.density * C), cfg.delta_bits,
                                             cfg.trailing_padding).mean;
        break;
      default: p.exact_mean = nan;
    }
    p.uniform_mean = exact_padding_bernoulli(cfg.cols, p.measured_density, cfg.delta_bits, cfg.trailing_padding).mean;
    p.asymptotic_mean = asymptotic_padding_per_row(cfg.cols, p.density, cfg.delta_bits);
    out.push_back(p);
  }
  return out;
}

void write_study_csv(std::ostream& os, const StudyConfig& cfg, const std::vector<StudyPoint>& pts) {
  os << "pattern,rows,cols,value_bits,delta_bits,seed,density,measured_density,nnz,padding,emitted,"
        "storage_bytes,effd,effd_lo,effd_hi,pad_per_row,pad_var,pad_lo,pad_hi,exact_pad_per_row,"
        "uniform_pad_per_row,asymptotic_pad_per_row,confidence\n";
  for (const auto& p : pts)
    os << fmt::format("{},{},{},{},{},{},{:.6g},{:.8g},{},{},{},{},{:.8g},{:.8g},{:.8g},{:.8g},{:.8g},{:.8g},{:.8g},{:.8g},{:.8g},{:.8g},{}\n",
                      to_string(cfg.pattern.kind), cfg.rows, cfg.cols, cfg.value_bits, cfg.delta_bits, cfg.seed,
                      p.density, p.measured_density, p.nnz, p.padding, p.emitted, p.storage_bytes, p.effd,
                      p.effd_lo, p.effd_hi, p.pad_mean, p.pad_var, p.pad_lo, p.pad_hi, p.exact_mean,
                      p.uniform_mean, p.asymptotic_mean, cfg.confidence);
}

}  // namespace warpsparse::analysis
