// What each weight of a checkpoint would cost in each sparse format, measured on the weight itself:
// `warpsparse analyze`. For every 2-D tensor: shape, dtype, density, the spread of its row
// densities, its longest zero run, whether it is N:M, and the bytes of MACKO (2-, 4- and 8-bit
// deltas, really encoded), CSR16/32, bitmask and 2:4 (really compressed, where it applies), with
// the MACKO speedup over a dense GEMV predicted for the H100 and the H200 by a roofline with the
// measured copy bandwidth and latency (DeviceFacts). Tensors are read one at a time from the mapped
// file and their pages dropped after, so the memory is that of the largest tensors in flight.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reference/common/memory_budget.hpp"
#include "reference/io/tensor_file.hpp"

namespace warpsparse::analysis {

struct FormatBytes {
  std::string format;  // macko-b2, macko-b4, macko-b8, csr32, csr16, bitmask, 2:4, dense
  std::uint64_t bytes = 0;
  double effd = 0;     // bytes / dense bytes
  bool measured = false;  // really encoded (MACKO, 2:4), or the storage model at the measured nnz (CSR, bitmask)
};

struct TensorAnalysis {
  std::string name, dtype, shape;
  std::int64_t rows = 0, cols = 0;
  std::string skipped;  // why it was not analysed; empty when it was
  std::uint64_t nnz = 0, dense_bytes = 0;
  double density = 0;
  double row_density[5] = {0, 0, 0, 0, 0};  // min, p10, median, p90, max
  std::int64_t largest_gap = 0;             // longest run of zero columns inside a row
  int max_per_4 = 0, max_per_8 = 0;         // most nonzeros in one group of 4 (8) columns
  std::string nm;                           // "2:4" or "4:8" when every group keeps to it (tightest first)
  std::vector<FormatBytes> formats;
  std::string best;                         // the format with the fewest bytes
  double speedup_h100 = 0, speedup_h200 = 0;  // MACKO (4-bit deltas) over dense, predicted
  double seconds = 0;
};

struct CheckpointAnalysis {
  std::string path;
  std::vector<TensorAnalysis> tensors;  // in the file's order
  int threads = 1;
  double seconds = 0;
  std::uint64_t bytes_read = 0;
};

struct AnalyzeProgress {
  std::size_t done = 0, total = 0;
  std::uint64_t bytes_done = 0, bytes_total = 0;
  double seconds = 0;
};

struct AnalyzeOptions {
  bool transpose = false;  // tensors are [in, out]
  int threads = 0;         // 0: every core
  MemoryBudget budget = MemoryBudget::default_budget();
  std::function<void(const AnalyzeProgress&)> progress;  // called after each tensor (from one thread at a time)
};

CheckpointAnalysis analyze_checkpoint(io::TensorFile& f, const AnalyzeOptions& o);
// One tensor (the library's unit; analyze_checkpoint runs it on every tensor).
TensorAnalysis analyze_tensor(io::TensorFile& f, const io::TensorInfo& t, bool transpose, const MemoryBudget& budget);

// Totals over the analysed tensors: dense bytes and each format's bytes (a format missing for a
// tensor counts as dense for it).
std::vector<FormatBytes> checkpoint_totals(const CheckpointAnalysis& a);

void write_analysis_csv(std::ostream& os, const CheckpointAnalysis& a);
nlohmann::json analysis_json(const CheckpointAnalysis& a);

}  // namespace warpsparse::analysis
