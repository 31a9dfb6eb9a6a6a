#include "analysis/ec_study.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <chrono>
#include <cmath>
#include <limits>

#include "analysis/intervals.hpp"
#include "reference/common/error.hpp"
#include "reference/ec/ec_encode.hpp"
#include "reference/macko/macko_format.hpp"

namespace warpsparse::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Student-t interval of the mean of xs; NaN bounds with a single value.
Estimate t_interval(const std::vector<double>& xs, double confidence) {
  const auto n = static_cast<double>(xs.size());
  Estimate e;
  double sum = 0;
  for (const double x : xs) sum += x;
  e.mean = sum / n;
  if (xs.size() < 2) {
    e.lo = e.hi = kNaN;
    return e;
  }
  double ss = 0;
  for (const double x : xs) ss += (x - e.mean) * (x - e.mean);
  const double sd = std::sqrt(ss / (n - 1));
  const boost::math::students_t t(n - 1);
  const double q = boost::math::quantile(boost::math::complement(t, (1 - confidence) / 2));
  const double half = q * sd / std::sqrt(n);
  e.lo = e.mean - half;
  e.hi = e.mean + half;
  return e;
}

// A count per matrix over a per-matrix denominator: quasi-Poisson interval (count_mean) of the mean
// count, divided by the mean denominator; the point estimate is the pooled ratio.
Estimate count_ratio(const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& denominators,
                     double confidence) {
  double sum = 0, sum_sq = 0, den = 0;
  for (const auto c : counts) {
    sum += double(c);
    sum_sq += double(c) * double(c);
  }
  for (const auto d : denominators) den += double(d);
  const auto n = static_cast<std::int64_t>(counts.size());
  const double mean_den = den / double(n);
  if (mean_den <= 0) return {0, 0, 0};
  const Bounds b = count_mean(sum, sum_sq, n, confidence);
  return {sum / den, b.lo / mean_den, b.hi / mean_den};
}

template <class T>
EcStudyRow study_typed(const PatternSpec& spec, std::int64_t rows, std::int64_t cols, int delta_bits, int samples,
                       std::uint64_t seed, int threads, double confidence) {
  std::vector<EcSample> out;
  out.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    const std::uint64_t s = sample_seed(seed, i);
    EcSample e = ec_sample(generate<T>(spec, rows, cols, s), delta_bits, threads);
    e.seed = s;
    out.push_back(e);
  }
  return ec_summarize(out, confidence);
}

}  // namespace

std::uint64_t csr32_bytes(std::int64_t rows, std::int64_t nnz, int value_bytes) {
  return static_cast<std::uint64_t>(nnz) * static_cast<std::uint64_t>(value_bytes + 4) +
         4 * static_cast<std::uint64_t>(rows + 1);
}

double ec_g1_bound(double padding_per_nnz, int value_bytes, int delta_bits) {
  return 1.0 - (1.0 + padding_per_nnz) * (value_bytes + delta_bits / 8.0) / (value_bytes + 4.0);
}

double EcSample::reduction() const {
  return csr32_bytes == 0 ? kNaN : 1.0 - double(ec_bytes) / double(csr32_bytes);
}

double EcSample::g1_bound() const {
  return csr32_bytes == 0 ? kNaN
                          : 1.0 - double(nnz + padding()) * (value_bytes + delta_bits / 8.0) / double(csr32_bytes);
}

std::int64_t EcSample::padding_in_groups() const {
  std::int64_t p = 0;
  for (int i = 0; i < kEcSetCount - 2; ++i)
    p += stored_by_set[static_cast<std::size_t>(i)] - nnz_by_set[static_cast<std::size_t>(i)];
  return p;
}

std::uint64_t sample_seed(std::uint64_t seed, int i) {
  return seed ^ (static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull);
}

template <class T>
EcSample ec_sample(const SparseRows<T>& m, int delta_bits, int threads) {
  require(threads >= 1, "threads must be at least 1");
  EcSample s;
  s.rows = m.rows;
  s.cols = m.cols;
  s.value_bytes = static_cast<int>(sizeof(T));
  s.delta_bits = delta_bits;
  ec::EcParams p;
  p.delta_bits = delta_bits;
  p.threads = threads;
  const auto t0 = std::chrono::steady_clock::now();
  const Ec<T> ec = encode_ec(m, p);
  s.encode_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const EcStorage st = ec.storage();
  require(static_cast<int>(st.nnz_by_set.size()) == kEcSetCount,
          "EC storage lists " + std::to_string(st.nnz_by_set.size()) + " sets; the study expects 5 (max_group 8)");
  s.nnz = st.nnz;
  s.stored_values = st.stored_values;
  s.gap_padding = st.gap_padding;
  s.align_padding = st.align_padding;
  for (int i = 0; i < kEcSetCount; ++i) {
    const auto& set = ec.sets[static_cast<std::size_t>(i)];
    s.nnz_by_set[static_cast<std::size_t>(i)] = st.nnz_by_set[static_cast<std::size_t>(i)];
    s.stored_by_set[static_cast<std::size_t>(i)] = set.slots() * set.group;
  }
  s.ec_bytes = st.total();
  MackoParams mp;
  mp.delta_bits = 4;
  s.macko_bytes = encode_macko(m.without_zeros(), mp).storage_bytes();
  s.csr32_bytes = csr32_bytes(m.rows, s.nnz, s.value_bytes);
  s.dense_bytes = static_cast<std::uint64_t>(m.rows) * static_cast<std::uint64_t>(m.cols) * sizeof(T);
  return s;
}

template EcSample ec_sample<half>(const SparseRows<half>&, int, int);
template EcSample ec_sample<bfloat16>(const SparseRows<bfloat16>&, int, int);
template EcSample ec_sample<float>(const SparseRows<float>&, int, int);

EcStudyRow ec_summarize(const std::vector<EcSample>& samples, double confidence) {
  require(!samples.empty(), "an EC study needs at least one sample");
  require_confidence(confidence);
  const EcSample& f = samples.front();
  EcStudyRow r;
  r.rows = f.rows;
  r.cols = f.cols;
  r.delta_bits = f.delta_bits;
  r.value_type = f.value_bytes == 4 ? ValueType::fp32 : ValueType::fp16;
  r.samples = static_cast<int>(samples.size());
  r.seed = f.seed;
  r.confidence = confidence;
  r.per_sample = samples;
  std::vector<std::int64_t> nnz, stored, pad, gap, align, group_pad;
  std::vector<double> red, mred, effd, meffd, ceffd, bpn, mbpn, cbpn, bound, secs;
  std::array<std::vector<double>, kEcSetCount> shares;
  double nnz_sum = 0, dense_sum = 0, ge2 = 0;
  for (const EcSample& s : samples) {
    require(s.rows == f.rows && s.cols == f.cols && s.value_bytes == f.value_bytes && s.delta_bits == f.delta_bits,
            "EC study samples of different configurations");
    nnz.push_back(s.nnz);
    stored.push_back(s.stored_values);
    pad.push_back(s.padding());
    gap.push_back(s.gap_padding);
    align.push_back(s.align_padding);
    group_pad.push_back(s.padding_in_groups());
    nnz_sum += double(s.nnz);
    const double dense = double(s.dense_bytes), k = double(s.nnz);
    dense_sum += double(s.rows) * double(s.cols);
    red.push_back(s.reduction());
    mred.push_back(s.csr32_bytes == 0 ? kNaN : 1.0 - double(s.macko_bytes) / double(s.csr32_bytes));
    effd.push_back(dense == 0 ? kNaN : double(s.ec_bytes) / dense);
    meffd.push_back(dense == 0 ? kNaN : double(s.macko_bytes) / dense);
    ceffd.push_back(dense == 0 ? kNaN : double(s.csr32_bytes) / dense);
    bpn.push_back(k == 0 ? kNaN : double(s.ec_bytes) / k);
    mbpn.push_back(k == 0 ? kNaN : double(s.macko_bytes) / k);
    cbpn.push_back(k == 0 ? kNaN : double(s.csr32_bytes) / k);
    bound.push_back(s.g1_bound());
    secs.push_back(s.encode_seconds);
    double held_ge2 = 0;
    for (int i = 0; i < kEcSetCount; ++i) {
      const double sh = k == 0 ? kNaN : double(s.nnz_by_set[static_cast<std::size_t>(i)]) / k;
      shares[static_cast<std::size_t>(i)].push_back(sh);
      if (i < 3) held_ge2 += sh;
    }
    ge2 += held_ge2;
  }
  const double n = double(samples.size());
  r.nnz_mean = nnz_sum / n;
  r.measured_density = dense_sum == 0 ? 0 : nnz_sum / dense_sum;
  r.pad_per_nnz = count_ratio(pad, nnz, confidence);
  r.pad_per_stored = count_ratio(pad, stored, confidence);
  r.gap_per_nnz = count_ratio(gap, nnz, confidence);
  r.align_per_nnz = count_ratio(align, nnz, confidence);
  r.group_pad_per_nnz = count_ratio(group_pad, nnz, confidence);
  r.reduction = t_interval(red, confidence);
  r.macko_reduction = t_interval(mred, confidence);
  r.effd = t_interval(effd, confidence);
  r.macko_effd = t_interval(meffd, confidence);
  r.csr32_effd = t_interval(ceffd, confidence);
  r.bytes_per_nnz = t_interval(bpn, confidence);
  r.macko_bytes_per_nnz = t_interval(mbpn, confidence);
  r.csr32_bytes_per_nnz = t_interval(cbpn, confidence);
  for (int i = 0; i < kEcSetCount; ++i)
    r.share[static_cast<std::size_t>(i)] = t_interval(shares[static_cast<std::size_t>(i)], confidence);
  r.g1_bound = t_interval(bound, confidence);
  r.g_ge2_share = ge2 / n;
  double sec = 0;
  for (const double x : secs) sec += x;
  r.encode_seconds = sec / n;
  return r;
}

EcStudyRow ec_study(const PatternSpec& spec, std::int64_t rows, std::int64_t cols, int delta_bits, ValueType value_type,
                    int samples, std::uint64_t seed, int threads, double confidence) {
  require(samples >= 1, "an EC study needs at least one sample");
  require(rows >= 1 && cols >= 1, "an EC study needs a non-empty shape");
  require(delta_bits == 4 || delta_bits == 8, "EC delta bits must be 4 or 8, got " + std::to_string(delta_bits));
  EcStudyRow r;
  switch (value_type) {
    case ValueType::fp16: r = study_typed<half>(spec, rows, cols, delta_bits, samples, seed, threads, confidence); break;
    case ValueType::bf16: r = study_typed<bfloat16>(spec, rows, cols, delta_bits, samples, seed, threads, confidence); break;
    case ValueType::fp32: r = study_typed<float>(spec, rows, cols, delta_bits, samples, seed, threads, confidence); break;
    default: throw Error("an EC study takes fp16, bf16 or fp32 values, not " + std::string(to_string(value_type)));
  }
  r.spec = spec;
  r.value_type = value_type;
  r.seed = seed;
  return r;
}

}  // namespace warpsparse::analysis
