#include "bench/matrix_gen.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <random>
#include <thread>

namespace warpsparse::bench {

namespace {
// SplitMix64 finaliser of (seed, stream, index): independent streams for values of row r.
std::uint64_t mix(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + index + 0x8CB92BA72F3D8DD7ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class T>
T nonzero_normal(std::mt19937_64& rng, std::normal_distribution<float>& n) {
  T v;
  do v = from_float<T>(n(rng)); while (is_zero(v));
  return v;
}

constexpr std::uint64_t kVectorStream = 2;
}  // namespace

int default_threads() {
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 4 : static_cast<int>(std::min(h, 64u));
}

void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t)>& body) {
  if (n <= 0) return;
  const int t = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, n)));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr err;
  std::mutex err_mu;
  auto worker = [&] {
    for (;;) {
      const std::int64_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(err_mu);
        if (!err) err = std::current_exception();
        next.store(n);
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < t; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (err) std::rethrow_exception(err);
}

template <class T>
std::int64_t RowBlocks<T>::nnz() const {
  std::int64_t s = 0;
  for (const auto& b : blocks) s += b.nnz();
  return s;
}

template <class T>
RowBlocks<T> generate_blocks(const analysis::PatternSpec& spec, std::int64_t rows, std::int64_t cols,
                             std::uint64_t seed, int threads) {
  require(rows >= 0 && cols >= 0 && cols <= kMaxCols, "bad shape for a generated matrix");
  RowBlocks<T> m;
  m.rows = rows;
  m.cols = cols;
  // Small blocks for load balance; the block size changes nothing in the matrix.
  const std::int64_t per_block = std::max<std::int64_t>(1, std::min<std::int64_t>(256, rows / (4 * threads) + 1));
  const std::int64_t nblocks = rows == 0 ? 0 : (rows + per_block - 1) / per_block;
  m.blocks.resize(static_cast<std::size_t>(nblocks));
  for (std::int64_t b = 0; b < nblocks; ++b) m.first_row.push_back(b * per_block);
  parallel_for(nblocks, threads, [&](std::int64_t b) {
    const std::int64_t r0 = b * per_block, r1 = std::min(rows, r0 + per_block);
    m.blocks[b] = analysis::generate_rows<T>(spec, r0, r1, cols, seed);
  });
  return m;
}

template <class T>
RowBlocks<T> to_blocks(SparseRows<T> rows, int threads) {
  RowBlocks<T> m;
  m.rows = rows.rows;
  m.cols = rows.cols;
  const std::int64_t per_block = std::max<std::int64_t>(1, std::min<std::int64_t>(256, m.rows / (4 * threads) + 1));
  for (std::int64_t r0 = 0; r0 < m.rows; r0 += per_block) {
    const std::int64_t r1 = std::min(m.rows, r0 + per_block);
    SparseRows<T> b;
    b.cols = m.cols;
    for (std::int64_t r = r0; r < r1; ++r) {
      for (std::int64_t k = rows.row_ptr[r]; k < rows.row_ptr[r + 1]; ++k) b.push(rows.col[k], rows.val[k]);
      b.end_row();
    }
    m.first_row.push_back(r0);
    m.blocks.push_back(std::move(b));
  }
  return m;
}

template <class T>
SparseRows<T> join_blocks(const RowBlocks<T>& m) {
  SparseRows<T> out;
  out.cols = m.cols;
  std::size_t n = 0;
  for (const auto& b : m.blocks) n += b.col.size();
  out.col.reserve(n);
  out.val.reserve(n);
  out.row_ptr.reserve(static_cast<std::size_t>(m.rows) + 1);
  for (const auto& b : m.blocks)
    for (std::int64_t r = 0; r < b.rows; ++r) {
      for (std::int64_t k = b.row_ptr[r]; k < b.row_ptr[r + 1]; ++k) out.push(b.col[k], b.val[k]);
      out.end_row();
    }
  return out;
}

template <class T>
std::vector<T> random_vector(std::int64_t n, std::uint64_t seed) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::mt19937_64 rng(mix(seed, kVectorStream, 0));
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (auto& e : v) e = nonzero_normal<T>(rng, dist);
  return v;
}

template <class T>
Csr<T, std::int32_t> to_csr(const RowBlocks<T>& m, int threads) {
  const std::int64_t nnz = m.nnz();
  require(nnz <= std::numeric_limits<std::int32_t>::max(),
          "CSR with 32-bit indices holds at most 2^31 - 1 nonzeros, got " + std::to_string(nnz));
  Csr<T, std::int32_t> a;
  a.rows = m.rows;
  a.cols = m.cols;
  a.row_ptr.resize(static_cast<std::size_t>(m.rows) + 1);
  a.col.resize(static_cast<std::size_t>(nnz));
  a.val.resize(static_cast<std::size_t>(nnz));
  std::vector<std::int64_t> offset(m.blocks.size() + 1, 0);
  for (std::size_t b = 0; b < m.blocks.size(); ++b) offset[b + 1] = offset[b] + m.blocks[b].nnz();
  a.row_ptr[0] = 0;
  parallel_for(static_cast<std::int64_t>(m.blocks.size()), threads, [&](std::int64_t b) {
    const auto& blk = m.blocks[b];
    const std::int64_t off = offset[b];
    std::copy(blk.col.begin(), blk.col.end(), a.col.begin() + off);
    std::copy(blk.val.begin(), blk.val.end(), a.val.begin() + off);
    for (std::int64_t r = 0; r < blk.rows; ++r)
      a.row_ptr[m.first_row[b] + r + 1] = static_cast<std::int32_t>(off + blk.row_ptr[r + 1]);
  });
  return a;
}

template <class T>
Macko<T> to_macko(const RowBlocks<T>& m, const MackoParams& p, int threads) {
  const std::size_t nb = m.blocks.size();
  std::vector<Macko<T>> parts(nb);
  MackoParams block_params = p;
  block_params.force_wide_row_pointers = true;  // 64-bit offsets inside each part; narrowed below
  parallel_for(static_cast<std::int64_t>(nb), threads,
               [&](std::int64_t b) { parts[b] = encode_macko(m.blocks[b], block_params); });

  const int db = p.delta_bits;
  const int per_byte = macko::deltas_per_byte(db);
  std::vector<std::int64_t> offset(nb + 1, 0);
  Macko<T> out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.delta_bits = db;
  for (std::size_t b = 0; b < nb; ++b) {
    offset[b + 1] = offset[b] + parts[b].emitted();
    out.nnz += parts[b].nnz;
  }
  const std::int64_t emitted = offset[nb];
  const std::int64_t padded = macko::padded_length(emitted, db);
  out.values.assign(static_cast<std::size_t>(padded), from_float<T>(0.0f));
  out.deltas.assign(static_cast<std::size_t>(macko::delta_bytes(padded, db)), 0);
  std::vector<std::uint64_t> ptr(static_cast<std::size_t>(m.rows) + 1, 0);

  // Element e's delta lives in byte e / per_byte. A byte that straddles two parts is written
  // after the parallel pass, by one thread, so no byte has two writers.
  auto owns_byte = [&](std::int64_t byte, std::int64_t lo, std::int64_t hi) {
    return byte * per_byte >= lo && (byte + 1) * per_byte <= hi;
  };
  auto put = [&](std::int64_t e, unsigned d) {
    out.deltas[macko::delta_byte_index(e, db)] |= static_cast<std::uint8_t>(d << macko::delta_shift(e, db));
  };
  parallel_for(static_cast<std::int64_t>(nb), threads, [&](std::int64_t b) {
    const Macko<T>& part = parts[b];
    const std::int64_t lo = offset[b], hi = offset[b + 1];
    std::copy(part.values.begin(), part.values.begin() + (hi - lo), out.values.begin() + lo);
    for (std::int64_t k = 0; k < hi - lo; ++k)
      if (owns_byte((lo + k) / per_byte, lo, hi)) put(lo + k, part.delta(k));
    for (std::int64_t r = 0; r < part.rows; ++r)
      ptr[static_cast<std::size_t>(m.first_row[b] + r + 1)] = static_cast<std::uint64_t>(lo + part.row_ptr[r + 1]);
  });
  for (std::size_t b = 0; b < nb; ++b) {
    const std::int64_t lo = offset[b], hi = offset[b + 1];
    for (std::int64_t k = 0; k < hi - lo; ++k) {
      if (k >= per_byte && k < hi - lo - per_byte) k = hi - lo - per_byte;  // only the two ends can straddle
      if (!owns_byte((lo + k) / per_byte, lo, hi)) put(lo + k, parts[b].delta(k));
    }
  }
  out.row_ptr.wide = p.force_wide_row_pointers ||
                     padded > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max());
  if (out.row_ptr.wide) out.row_ptr.wide_ptr = std::move(ptr);
  else out.row_ptr.narrow.assign(ptr.begin(), ptr.end());
  return out;
}

template <class T>
std::vector<T> to_dense(const RowBlocks<T>& m, int threads) {
  std::vector<T> d(static_cast<std::size_t>(m.rows * m.cols));
  parallel_for(static_cast<std::int64_t>(m.blocks.size()), threads, [&](std::int64_t b) {
    const auto& blk = m.blocks[b];
    T* base = d.data() + m.first_row[b] * m.cols;
    std::fill(base, base + blk.rows * m.cols, from_float<T>(0.0f));
    for (std::int64_t r = 0; r < blk.rows; ++r)
      for (std::int64_t k = blk.row_ptr[r]; k < blk.row_ptr[r + 1]; ++k) base[r * m.cols + blk.col[k]] = blk.val[k];
  });
  return d;
}

template <class T>
Oracle spmv_oracle_parallel(const RowBlocks<T>& m, const std::vector<T>& x, int threads) {
  require(static_cast<std::int64_t>(x.size()) == m.cols, "oracle: x has the wrong length");
  Oracle o;
  o.y.assign(static_cast<std::size_t>(m.rows), 0.0);
  o.abs_sum.assign(static_cast<std::size_t>(m.rows), 0.0);
  o.row_nnz.assign(static_cast<std::size_t>(m.rows), 0);
  parallel_for(static_cast<std::int64_t>(m.blocks.size()), threads, [&](std::int64_t b) {
    const auto& blk = m.blocks[b];
    for (std::int64_t r = 0; r < blk.rows; ++r) {
      double s = 0, a = 0;
      for (std::int64_t k = blk.row_ptr[r]; k < blk.row_ptr[r + 1]; ++k) {
        const double p = double(to_float(blk.val[k])) * double(to_float(x[blk.col[k]]));
        s += p;
        a += std::abs(p);
      }
      const auto g = static_cast<std::size_t>(m.first_row[b] + r);
      o.y[g] = s;
      o.abs_sum[g] = a;
      o.row_nnz[g] = blk.row_ptr[r + 1] - blk.row_ptr[r];
    }
  });
  return o;
}

#define WS_GEN_INST(T)                                                                                        \
  template struct RowBlocks<T>;                                                                               \
  template RowBlocks<T> to_blocks<T>(SparseRows<T>, int);                                                     \
  template SparseRows<T> join_blocks<T>(const RowBlocks<T>&);                                                 \
  template RowBlocks<T> generate_blocks<T>(const analysis::PatternSpec&, std::int64_t, std::int64_t,        \
                                           std::uint64_t, int);                                               \
  template std::vector<T> random_vector<T>(std::int64_t, std::uint64_t);                                      \
  template Csr<T, std::int32_t> to_csr<T>(const RowBlocks<T>&, int);                                          \
  template Macko<T> to_macko<T>(const RowBlocks<T>&, const MackoParams&, int);                                \
  template std::vector<T> to_dense<T>(const RowBlocks<T>&, int);                                              \
  template Oracle spmv_oracle_parallel<T>(const RowBlocks<T>&, const std::vector<T>&, int);
WS_GEN_INST(half)
WS_GEN_INST(bfloat16)
#undef WS_GEN_INST

}  // namespace warpsparse::bench
