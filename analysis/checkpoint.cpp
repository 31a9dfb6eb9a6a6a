#include "analysis/checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <ostream>
#include <thread>

#include "analysis/effd.hpp"
#include "reference/device/device_facts.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/sparse24/sparse24_format.hpp"

namespace warpsparse::analysis {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Roofline time of a memory-bound GEMV: its bytes (matrix, x read, y written) at the copy
// bandwidth, plus the latency every such kernel pays.
double roofline_us(std::uint64_t matrix_bytes, std::int64_t rows, std::int64_t cols, std::size_t value_bytes,
                   const DeviceFacts& g) {
  const double bytes = double(matrix_bytes) + double(rows + cols) * double(value_bytes);
  return g.latency_us + bytes / g.copy_bytes_per_s * 1e6;
}

template <class T>
void analyze_rows(TensorAnalysis& a, const SparseRows<T>& m) {
  const auto R = m.rows, C = m.cols;
  a.nnz = static_cast<std::uint64_t>(m.nnz());
  a.density = R * C == 0 ? 0.0 : double(a.nnz) / (double(R) * double(C));
  // Row densities, longest zero run, densest group of 4 and of 8 columns.
  std::vector<double> dens(static_cast<std::size_t>(R));
  GroupPeak per4(4), per8(8);
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t b = m.row_ptr[r], e = m.row_ptr[r + 1];
    dens[static_cast<std::size_t>(r)] = C == 0 ? 0.0 : double(e - b) / double(C);
    std::int32_t prev = -1;
    for (std::int64_t k = b; k < e; ++k) {
      const std::int32_t c = m.col[k];
      a.largest_gap = std::max<std::int64_t>(a.largest_gap, c - prev - 1);
      prev = c;
      per4.add(c);
      per8.add(c);
    }
    per4.end_row();
    per8.end_row();
    a.largest_gap = std::max<std::int64_t>(a.largest_gap, C - 1 - prev);
  }
  a.max_per_4 = per4.peak();
  a.max_per_8 = per8.peak();
  std::sort(dens.begin(), dens.end());
  const auto q = [&](double p) { return dens.empty() ? 0.0 : dens[static_cast<std::size_t>(p * double(dens.size() - 1) + 0.5)]; };
  a.row_density[0] = q(0), a.row_density[1] = q(0.1), a.row_density[2] = q(0.5), a.row_density[3] = q(0.9), a.row_density[4] = q(1);
  a.nm = a.max_per_4 <= 2 ? "2:4" : a.max_per_8 <= 4 ? "4:8" : "";

  const double dense = double(a.dense_bytes);
  auto add = [&](std::string f, std::uint64_t bytes, bool measured) {
    a.formats.push_back({std::move(f), bytes, dense == 0 ? 0.0 : double(bytes) / dense, measured});
  };
  add("dense", a.dense_bytes, true);
  std::uint64_t macko4 = 0;
  for (const int db : {2, 4, 8}) {
    MackoParams p;
    p.delta_bits = db;
    const Macko<T> enc = encode_macko(m, p);
    add("macko-b" + std::to_string(db), enc.storage_bytes(), true);
    if (db == 4) macko4 = enc.storage_bytes();
  }
  // CSR and bitmask from the storage models (effd.hpp) at the measured nonzero count: their sizes
  // follow from it exactly, with the same conventions as every other table of the project.
  StorageConfig sc;
  sc.value_bits = static_cast<int>(8 * sizeof(T));
  sc.shape = {R, C};
  const auto model = [&](Format f) { return static_cast<std::uint64_t>(std::llround(format_effd(f, a.density, sc) * dense)); };
  add("csr32", model(Format::csr32), false);
  if (C <= 65536) add("csr16", model(Format::csr16), false);
  add("bitmask", model(Format::bitmask), false);
  if (a.max_per_4 <= 2 && R <= std::numeric_limits<int>::max() / 2 && C <= std::numeric_limits<int>::max() / 2) {
    const auto s = sparse24::compress<T>(m.to_dense(), static_cast<int>(R), static_cast<int>(C));
    add("2:4", s.values.size() * sizeof(T) + s.meta.size() * 2, true);
  }
  a.best = std::min_element(a.formats.begin(), a.formats.end(), [](const FormatBytes& x, const FormatBytes& y) {
             return x.bytes < y.bytes;
           })->format;
  const auto speedup = [&](const DeviceFacts& g) {
    return roofline_us(a.dense_bytes, R, C, sizeof(T), g) / roofline_us(macko4, R, C, sizeof(T), g);
  };
  a.speedup_h100 = speedup(kH100);
  a.speedup_h200 = speedup(kH200);
}

// Memory one tensor's analysis may hold, at most: its rows (every element nonzero), the largest
// MACKO encoding (2-bit deltas: up to four stored elements per column), a dense copy for 2:4, and
// per row (either side may be the rows) the counts and row pointers of the rows and of the encoding,
// which a tensor of no elements still allocates.
std::uint64_t tensor_work_bytes(const io::TensorInfo& t) {
  const std::uint64_t n = t.elements(), v = t.item_bytes;
  std::uint64_t sides = 1;
  for (const std::int64_t s : t.shape)
    sides = sat_add(sides, static_cast<std::uint64_t>(std::max<std::int64_t>(s, 0)));
  return sat_add(sat_add(sat_add(sat_mul(n, v + 4), sat_mul(n, 2 * (v + 1))), sat_mul(n, v)),
                 sat_mul(sides, 32));
}

}  // namespace

TensorAnalysis analyze_tensor(io::TensorFile& f, const io::TensorInfo& t, bool transpose, const MemoryBudget& budget) {
  const auto t0 = std::chrono::steady_clock::now();
  TensorAnalysis a;
  a.name = t.name.empty() ? std::filesystem::path(t.file).stem().string() : t.name;  // a .npy: its file's stem
  a.dtype = t.dtype_name;
  a.shape = t.shape_string();
  if (t.shape.size() != 2) {
    a.skipped = std::to_string(t.shape.size()) + "-D";
    return a;
  }
  if (t.dtype == io::DType::other) {
    a.skipped = "dtype " + t.dtype_name;
    return a;
  }
  std::tie(a.rows, a.cols) = io::matrix_shape(t, transpose);
  a.dense_bytes = t.bytes;
  budget.require(tensor_work_bytes(t), t.label() + ": analysing " + a.shape);
  dispatch_value_type(io::value_type_of(t.dtype), [&](auto tag) {
    using T = decltype(tag);
    const SparseRows<T> m = io::tensor_rows<T>(t, f.data(t), transpose, MemoryBudget::unlimited());
    f.release(t);
    analyze_rows(a, m);
  });
  a.seconds = seconds_since(t0);
  return a;
}

CheckpointAnalysis analyze_checkpoint(io::TensorFile& f, const AnalyzeOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckpointAnalysis out;
  out.path = f.path();
  const auto& ts = f.tensors();
  out.tensors.resize(ts.size());
  // Largest first, so that the last tensors in flight are small ones.
  std::vector<std::size_t> order(ts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ts[a].bytes > ts[b].bytes; });
  std::uint64_t largest = 0, total = 0;
  for (const auto& t : ts) {
    total += t.bytes;
    if (t.shape.size() == 2 && t.dtype != io::DType::other) largest = std::max(largest, tensor_work_bytes(t));
  }
  // As many threads as cores, and as the budget holds the largest tensors' work at once.
  int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (largest > 0) threads = static_cast<int>(std::min<std::uint64_t>(threads, std::max<std::uint64_t>(1, o.budget.bytes / largest)));
  threads = std::max(1, std::min<int>(threads, static_cast<int>(std::max<std::size_t>(1, ts.size()))));
  out.threads = threads;
  const MemoryBudget per_thread{o.budget.bytes / static_cast<std::uint64_t>(threads), o.budget.source};
  std::atomic<std::size_t> next{0};
  std::mutex mu;  // guards progress, the counters and failure
  std::size_t done = 0;
  std::uint64_t bytes_done = 0;
  std::exception_ptr failure;
  auto worker = [&] {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= order.size()) return;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (failure) return;
      }
      const std::size_t i = order[k];
      try {
        out.tensors[i] = analyze_tensor(f, ts[i], o.transpose, per_thread);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      bytes_done += ts[i].bytes;
      if (o.progress) o.progress({done, ts.size(), bytes_done, total, seconds_since(t0)});
    }
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < threads; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  out.bytes_read = total;
  out.seconds = seconds_since(t0);
  return out;
}

std::vector<FormatBytes> checkpoint_totals(const CheckpointAnalysis& a) {
  std::vector<std::string> names;
  std::map<std::string, std::uint64_t> sum;
  std::uint64_t dense = 0;
  for (const auto& t : a.tensors) {
    if (!t.skipped.empty()) continue;
    dense += t.dense_bytes;
    for (const auto& f : t.formats)
      if (std::find(names.begin(), names.end(), f.format) == names.end()) names.push_back(f.format);
  }
  for (const auto& t : a.tensors) {
    if (!t.skipped.empty()) continue;
    for (const auto& n : names) {
      const auto it = std::find_if(t.formats.begin(), t.formats.end(), [&](const FormatBytes& f) { return f.format == n; });
      sum[n] += it == t.formats.end() ? t.dense_bytes : it->bytes;
    }
  }
  std::vector<FormatBytes> out;
  for (const auto& n : names) out.push_back({n, sum[n], dense == 0 ? 0.0 : double(sum[n]) / double(dense), true});
  return out;
}

namespace {
const std::vector<std::string> kCsvFormats = {"dense", "macko-b2", "macko-b4", "macko-b8", "csr32", "csr16", "bitmask", "2:4"};
}

void write_analysis_csv(std::ostream& os, const CheckpointAnalysis& a) {
  os << "tensor,dtype,rows,cols,skipped,nnz,density,row_density_min,row_density_p10,row_density_median,"
        "row_density_p90,row_density_max,largest_zero_run,max_nnz_per_4,max_nnz_per_8,nm,best";
  for (const auto& f : kCsvFormats) os << ",bytes_" << f;
  os << ",speedup_h100,speedup_h200\n";
  for (const auto& t : a.tensors) {
    os << fmt::format("\"{}\",{},{},{},{},{},{:.6g}", t.name, t.dtype, t.rows, t.cols, t.skipped, t.nnz, t.density);
    for (const double d : t.row_density) os << fmt::format(",{:.6g}", d);
    os << fmt::format(",{},{},{},{},{}", t.largest_gap, t.max_per_4, t.max_per_8, t.nm, t.best);
    for (const auto& name : kCsvFormats) {
      const auto it = std::find_if(t.formats.begin(), t.formats.end(), [&](const FormatBytes& f) { return f.format == name; });
      os << "," << (it == t.formats.end() ? std::string() : std::to_string(it->bytes));
    }
    os << fmt::format(",{:.4g},{:.4g}\n", t.speedup_h100, t.speedup_h200);
  }
}

nlohmann::json analysis_json(const CheckpointAnalysis& a) {
  nlohmann::json j;
  j["file"] = a.path;
  j["threads"] = a.threads;
  j["seconds"] = a.seconds;
  j["prediction"] = "MACKO (4-bit deltas) over a dense GEMV: (latency + bytes / copy bandwidth) of each, with the "
                    "measured copy bandwidth and latency of each GPU";
  auto& ts = j["tensors"] = nlohmann::json::array();
  for (const auto& t : a.tensors) {
    nlohmann::json e = {{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}};
    if (!t.skipped.empty()) {
      e["skipped"] = t.skipped;
      ts.push_back(e);
      continue;
    }
    e["rows"] = t.rows;
    e["cols"] = t.cols;
    e["nnz"] = t.nnz;
    e["density"] = t.density;
    e["row_density"] = {{"min", t.row_density[0]}, {"p10", t.row_density[1]}, {"median", t.row_density[2]},
                        {"p90", t.row_density[3]}, {"max", t.row_density[4]}};
    e["largest_zero_run"] = t.largest_gap;
    e["max_nnz_per_4"] = t.max_per_4;
    e["max_nnz_per_8"] = t.max_per_8;
    e["nm"] = t.nm;
    e["best"] = t.best;
    for (const auto& f : t.formats) e["formats"][f.format] = {{"bytes", f.bytes}, {"effd", f.effd}, {"encoded", f.measured}};
    e["predicted_speedup"] = {{"h100", t.speedup_h100}, {"h200", t.speedup_h200}};
    e["seconds"] = t.seconds;
    ts.push_back(e);
  }
  for (const auto& f : checkpoint_totals(a)) j["totals"][f.format] = {{"bytes", f.bytes}, {"effd", f.effd}};
  return j;
}

}  // namespace warpsparse::analysis
