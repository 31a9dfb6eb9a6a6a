// ws_bench_macko: MACKO SpMV against its baselines, in one program and one run.
//
// Kernels per case (same matrix, same x, y = A x with fp32 accumulation), at each --batch B
// (B vectors at once: x is cols x B and y rows x B, both row-major, as macko::Schedule::batch):
//   cublas_gemv   B = 1: cublasGemmEx on the dense matrix (fp16/bf16 in and out, CUBLAS_COMPUTE_32F)
//   cublas_gemm   B > 1: the same call with N = B
//   cusparse_csr  B = 1: cusparseSpMV on CSR (32-bit indices, fp16/bf16 values, CUDA_R_32F compute)
//   cusparse_spmm B > 1: cusparseSpMM (CSR_ALG3) on the same CSR, X and Y dense in row order
//   csr_warp      B = 1: our plain CSR kernel (kernels/csr/csr_spmv.hpp), one warp per row
//   macko         B = 1, 2, 4, 8: the MACKO kernel (kernels/macko/macko_spmv.hpp), one row per schedule swept
//   ec            B = 1: the EC-SpMV kernel (kernels/ec/ec_spmv.hpp) on the EC-CSR encoding of the same
//                 matrix (hierarchical extraction, --ec-delta-bits), clipped for this GPU (ec::make_plan)
//   bitmap        B = 1..16: the bitmap-tile tensor-core SpMM (kernels/bitmap/bitmap_spmm.hpp) on the bitmap
//                 encoding of the same matrix, the policy's part count (bitmap::choose_schedule) and any
//                 --bitmap-parts: where tensor cores take over from MACKO's FMAs as B grows
//   bitmap_nodecode  with bitmap: the same launches without finding each lane's elements (not
//                 checked): the bound of everything else, so bitmap - bitmap_nodecode is the decode
//   copy          B = 1: cudaMemcpyAsync D2D moving the MACKO case's bytes (read + write): the floor
//   read, row_stream*  B = 1: streaming bounds of the MACKO arrays (bench/stream_baselines.hpp)
//   ec_stream, ec_stream_x  B = 1: streaming bounds of the EC kernel on the `ec` case's upload and plan
//                 (kernels/ec/ec_stream.hpp): its loads in its order; the same with its x gathers
// Every output element is checked against a double-precision oracle of its own vector (computed on
// the host with threads, bench/spmv_check.hpp) before it is timed; see README.md for the method and
// the columns.
#include <cublas_v2.h>
#include <cusparse.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/patterns.hpp"
#include "bench/bench_cli.hpp"
#include "bench/bench_common.hpp"
#include "bench/stream_baselines.hpp"
#include "bench/cublas_check.hpp"
#include "analysis/effd.hpp"  // paper_shapes
#include "bench/matrix_file.hpp"
#include "bench/matrix_gen.hpp"
#include "bench/spmv_check.hpp"
#include "kernels/csr/csr_spmv.hpp"
#include "reference/common/parse_number.hpp"
#include "reference/sparse/spmv_common.hpp"
#include "kernels/bitmap/bitmap_spmm.hpp"
#include "kernels/common/device_facts.hpp"
#include "kernels/ec/ec_spmv.hpp"
#include "kernels/ec/ec_stream.hpp"
#include "kernels/macko/macko_spmv.hpp"
#include "reference/ec/ec_encode.hpp"
#include "reference/ec/ec_spmv_model.hpp"
#include "reference/macko/macko_policy.hpp"
#include "reference/macko/macko_spmv_model.hpp"  // macko_chain_length

using namespace warpsparse;
using namespace warpsparse::bench;

namespace {

constexpr const char* kQuickShapes = "4096x4096,12288x12288,28672x8192,36864x12288";
constexpr const char* kQuickDensities = "1.0,0.7,0.5,0.3,0.1,0.05";
constexpr const char* kFullDensities = "1.0,0.9,0.8,0.7,0.6,0.5,0.4,0.3,0.2,0.1,0.05";
constexpr const char* kQuickPatternShapes = "12288x12288";

void check_cusparse(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw Error(std::string(what) + ": " + cusparseGetErrorString(s));
}
#define WS_CUSPARSE(call) check_cusparse((call), #call)

struct Options : CommonOptions {
  std::string shapes, densities, patterns = "all", pattern_shapes;
  std::vector<std::string> matrices;  // --matrix FILE[:TENSOR], repeatable
  bool transpose = false;             // those tensors are [in, out]
  double pattern_density = 0.5;
  std::string value_types = "fp16";
  std::string delta_bits = "4";
  std::string warps_per_block, unroll_blocks, lane_accumulators, prefetch, blocks_per_sm, lane_elems, row_splits, x_shared,
      x_swizzle, row_lanes, grid_splits;
  std::string schedules = "policy";  // policy, all (every compiled variant), or names separated by ';'
  std::string kernels = "cublas_gemv,cusparse_csr,csr_warp,macko,copy,read";
  std::string ec_delta_bits = "8";  // EC-CSR delta widths (4, 8 or 4,8)
  std::string batch = "1";  // vectors per product (macko::Schedule::batch, bitmap::Schedule::batch)
  std::string bitmap_parts;  // part counts swept besides the policy's (empty: the policy's only)
  // MackoParams::align_rows of the MACKO encodings (a list: 0, 1 or 0,1). On by default: 0-5 % faster
  // on the 15 big shapes for at most 7 zero elements per row (docs/macko-kernel.md).
  std::string align_rows = "1";
  // cusparseSpMM with row-order X and Y: CSR_ALG3 is the one that meets the fp32 bound, and the
  // fastest by 4-230x (H100, CUDA 13.0, batches 2 and 8 on 4096^2 and 12288^2 at d = 0.5 and 0.1,
  // fp16 and bf16): the default, CSR_ALG1 and CSR_ALG2 exceed the bound on most of these cases, by
  // up to 29x, as if they summed in the output type.
  std::string spmm_alg = "csr_alg3";
  int csr_warps_per_block = 8;
  int threads = default_threads();
  bool host_only = false;
};

struct Case {
  std::int64_t rows, cols;
  analysis::PatternSpec spec;
  std::string matrix;  // a user's matrix (--matrix) instead of a generated one; spec unused

  std::string pattern() const { return matrix.empty() ? std::string(analysis::to_string(spec.kind)) : "file:" + matrix; }
};

std::string shape_str(std::int64_t r, std::int64_t c) { return std::to_string(r) + "x" + std::to_string(c); }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::vector<std::array<std::int64_t, 2>> parse_shapes(const std::string& s) {
  std::vector<std::array<std::int64_t, 2>> out;
  if (s == "all" || s == "paper") {
    for (const auto& p : analysis::paper_shapes()) out.push_back({p.rows, p.cols});
    return out;
  }
  for (const auto& item : split_list(s)) {
    const auto d = parse_dims(item);
    require(d.size() == 2, "a shape is ROWSxCOLS, got '" + item + "'");
    out.push_back({d[0], d[1]});
  }
  return out;
}

std::vector<double> parse_doubles(const std::string& s) {
  std::vector<double> out;
  for (const auto& item : split_list(s)) {
    const double v = to_number(item).value_or(-1);
    require(v >= 0.0 && v <= 1.0, "bad density '" + item + "' (expected a number in [0, 1])");
    out.push_back(v);
  }
  return out;
}

std::vector<int> parse_ints(const std::string& s, const char* what);

// --delta-bits: MACKO widths, "auto" standing for macko::kAutoDeltaBits (the width
// macko::choose_delta_bits picks for each matrix).
std::vector<int> parse_delta_bits(const std::string& s) {
  std::vector<int> out;
  for (const auto& item : split_list(s)) {
    const int db = item == "auto" ? macko::kAutoDeltaBits : parse_ints(item, "delta bits").at(0);
    require(db == macko::kAutoDeltaBits || macko::valid_delta_bits(db), "delta bits must be 1, 2, 4, 8 or auto, got '" + item + "'");
    out.push_back(db);
  }
  return out;
}

std::vector<int> parse_ints(const std::string& s, const char* what) {
  std::vector<int> out;
  for (const auto& item : split_list(s)) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    require(used == item.size(), std::string("bad ") + what + " '" + item + "'");
    out.push_back(v);
  }
  return out;
}

std::vector<Case> build_cases(const Options& o) {
  const auto shapes = o.shapes == "none" ? std::vector<std::array<std::int64_t, 2>>{} : parse_shapes(o.shapes);
  const auto densities = parse_doubles(o.densities);
  const auto pshapes = parse_shapes(o.pattern_shapes);
  std::vector<analysis::Pattern> families;
  if (o.patterns == "all") {
    for (const auto p : analysis::all_patterns())
      if (p != analysis::Pattern::exact_nnz) families.push_back(p);
  } else if (o.patterns != "none") {
    for (const auto& name : split_list(o.patterns)) families.push_back(analysis::parse_pattern(name));
  }
  std::vector<Case> cases;
  for (const auto& f : o.matrices) {
    const MatrixFileInfo info = matrix_file_info(f, o.transpose);
    cases.push_back({info.rows, info.cols, {analysis::Pattern::exact_nnz, 0.0, 0.0}, f});
  }
  for (const auto& s : shapes) {
    for (const double d : densities) cases.push_back({s[0], s[1], {analysis::Pattern::exact_nnz, d, 0.0}, ""});
    const bool with_families = std::find(pshapes.begin(), pshapes.end(), s) != pshapes.end();
    if (with_families)
      for (const auto f : families)
        if (f != analysis::Pattern::exact_nnz) cases.push_back({s[0], s[1], {f, o.pattern_density, 0.0}, ""});
  }
  return cases;
}

std::uint64_t case_seed(std::uint64_t seed, const Case& c) {
  // Each case is reproducible on its own, whatever else the run contains.
  std::uint64_t h = seed * 0x9E3779B97F4A7C15ull;
  for (const std::uint64_t v : {std::uint64_t(c.rows), std::uint64_t(c.cols), std::uint64_t(c.spec.kind),
                                std::uint64_t(std::llround(c.spec.density * 1e6))})
    h = (h ^ v) * 0x100000001B3ull + 0x632BE59BD9B4E019ull;
  return h;
}

// --- one measured kernel ---------------------------------------------------------------------------
struct Measured {
  std::string kernel, schedule;
  int delta_bits = 0;
  int batch = 1;
  Timed t;
  std::uint64_t bytes = 0;
  std::optional<Check> check;
  double effective_density = std::numeric_limits<double>::quiet_NaN();
};

struct Context {
  Options opt;
  DeviceInfo dev;
  DeviceFacts facts;  // what the schedule policy plans with (this device)
  double copy_gbps = 0;
  TimingConfig timing;
  std::unique_ptr<L2Flusher> flusher;
  std::unique_ptr<ClockSampler> sampler;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cusparseHandle_t cusparse = nullptr;
  std::unique_ptr<ResultWriter> writer;
  std::string commit, timestamp;
  std::vector<std::string> table;
  int failures = 0;
  std::map<std::string, bool> warned;
  std::vector<int> batches;  // --batch, in the order given, without repeats
  bool want(const std::string& k) const {
    const auto ks = split_list(opt.kernels);
    return std::find(ks.begin(), ks.end(), k) != ks.end();
  }
  // Either name of a vendor baseline selects it at every batch (one vector or several).
  bool want_cublas() const { return want("cublas_gemv") || want("cublas_gemm"); }
  bool want_cusparse() const { return want("cusparse_csr") || want("cusparse_spmm"); }
  // The EC kernel or one of its streaming bounds: all run on one encoding, upload and plan per case.
  bool want_ec() const { return want("ec") || want("ec_stream") || want("ec_stream_x"); }
  bool has_batch(int b) const { return std::find(batches.begin(), batches.end(), b) != batches.end(); }
  // Prints msg on stderr the first time `key` comes up; repeats (the same skip on every case) stay quiet.
  void note_once(const std::string& key, const std::string& msg) {
    if (warned[key]) return;
    warned[key] = true;
    std::fprintf(stderr, "%s\n", msg.c_str());
  }
  void note_once(const std::string& msg) { note_once(msg, msg); }
};

template <class T> constexpr cudaDataType cuda_type();
template <> constexpr cudaDataType cuda_type<warpsparse::half>() { return CUDA_R_16F; }
template <> constexpr cudaDataType cuda_type<bfloat16>() { return CUDA_R_16BF; }

// Fills y with NaN so an unwritten element fails the check.
template <class T>
void poison(gpu::DeviceBuffer<T>& y, cudaStream_t s) {
  WS_CUDA(cudaMemsetAsync(y.get(), 0xff, y.bytes(), s));
}

// Poisons y, runs once, checks every element against the oracle of its vector (one oracle per
// vector of the batch: y is rows x oracles.size()), then times.
// output_partials: see check_output.
template <class T>
Measured verify_and_time(Context& ctx, const std::string& kernel, gpu::DeviceBuffer<T>& y,
                         std::span<const Oracle> oracles, const std::function<std::int64_t(std::int64_t)>& chain,
                         const std::function<void(cudaStream_t)>& launch, double output_partials = 0) {
  Measured m;
  m.kernel = kernel;
  m.batch = static_cast<int>(oracles.size());
  poison(y, ctx.stream);
  launch(ctx.stream);
  WS_CUDA(cudaGetLastError());
  WS_CUDA(cudaStreamSynchronize(ctx.stream));
  m.check = check_output(y.download(), oracles, chain, output_partials);
  if (!m.check->pass) {
    ++ctx.failures;
    std::fprintf(stderr,
                 "  FAIL %s batch %d: max_abs_err %.3g, worst row %lld vector %lld (err/bound %.3g), %lld non-finite\n",
                 kernel.c_str(), m.batch, m.check->max_abs, static_cast<long long>(m.check->worst_row),
                 static_cast<long long>(m.check->worst_col), m.check->worst_ratio,
                 static_cast<long long>(m.check->nonfinite));
  }
  m.t = time_launches(launch, ctx.timing, *ctx.flusher, ctx.stream, ctx.sampler.get());
  return m;
}

// The MACKO schedules of one case and batch: by default the policy's choice (def); with --schedules
// all, every compiled variant for the matrix's delta width at this batch (launched with def's block
// size where it can be, else one row per block); with a list of names, those. The Cartesian product of
// the --warps-per-block ... --row-lanes lists is taken over each (a list left out keeps the value
// of the schedule it varies; --x-swizzle left out: the policy's swizzle rule on each schedule).
// Schedules that are not valid or have no kernel are skipped with a note on stderr, once per run.
std::vector<macko::Schedule> schedules_to_sweep(Context& ctx, const macko::Schedule& def, int delta_bits,
                                                const macko::MatrixStats& stats) {
  const Options& o = ctx.opt;
  std::vector<macko::Schedule> bases;
  if (o.schedules.empty() || o.schedules == "policy") {
    bases.push_back(def);
  } else if (o.schedules == "all") {
    for (const macko::CompiledVariant& v : macko::kCompiledVariants) {
      macko::Schedule s = v.schedule;
      if ((v.delta_bits & macko::delta_bit(delta_bits)) == 0 || s.batch != def.batch) continue;
      s.warps_per_block = def.warps_per_block % s.row_splits == 0 ? def.warps_per_block : s.row_splits;
      bases.push_back(s);
    }
  } else {
    for (const auto& name : split_list(o.schedules, ';')) {
      macko::Schedule s = macko::parse_schedule(name);
      s.batch = def.batch;
      bases.push_back(s);
    }
  }
  auto list = [](const std::string& s, int fallback, const char* what) {
    return s.empty() ? std::vector<int>{fallback} : parse_ints(s, what);
  };
  const macko::Rules& rules = macko::rules_for(ctx.facts);
  std::vector<macko::Schedule> out;
  for (const macko::Schedule& base : bases)
    for (const int wpb : list(o.warps_per_block, base.warps_per_block, "warps per block"))
      for (const int un : list(o.unroll_blocks, base.unroll_blocks, "unroll blocks"))
        for (const int acc : list(o.lane_accumulators, base.lane_accumulators, "lane accumulators"))
          for (const int pf : list(o.prefetch, int(base.prefetch), "prefetch"))
            for (const int bpsm : list(o.blocks_per_sm, base.blocks_per_sm, "blocks per SM"))
              for (const int e : list(o.lane_elems, base.lane_elems, "lane elements"))
                for (const int sp : list(o.row_splits, base.row_splits, "row splits"))
                  for (const int xs : list(o.x_shared, int(base.x_shared), "x shared"))
                    for (const int swz : list(o.x_swizzle, int(base.x_swizzle), "x swizzle"))
                      for (const int rl : list(o.row_lanes, base.row_lanes, "row lanes"))
                       for (const int gs : list(o.grid_splits, base.grid_splits, "grid splits")) {
                        macko::Schedule s = base;
                        s.grid_splits = gs;
                        s.warps_per_block = wpb;
                        s.unroll_blocks = un;
                        s.lane_accumulators = acc;
                        s.prefetch = pf != 0;
                        s.blocks_per_sm = bpsm;
                        s.lane_elems = e;
                        s.row_splits = sp;
                        s.x_shared = xs != 0;
                        s.row_lanes = rl;
                        s.x_swizzle = o.x_swizzle.empty() ? macko::swizzle_pays(stats, rules, s) : swz != 0;
                        const std::string what = "# skipped schedule " + macko::to_string(s) + " for " +
                                                 std::to_string(delta_bits) + "-bit deltas";
                        if (!s.valid(delta_bits)) ctx.note_once(what + ": not valid");
                        else if (!macko::is_compiled(s, delta_bits)) ctx.note_once(what + ": no kernel is built for it");
                        else if (!macko::grid_split_fits(s, stats.rows))
                          ctx.note_once(what + ": more grid-split parts than the workspace holds");
                        else if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
                      }
  return out;
}

// The bitmap schedules of one case and batch: the policy's (bitmap::choose_schedule), then each
// --bitmap-parts count. A count the matrix cannot take (more parts than k tiles) is skipped, not
// clamped, with a note once per run: a clamped count would repeat another row under a name the
// sweep did not ask for.
std::vector<bitmap::Schedule> bitmap_schedules(Context& ctx, std::int64_t rows, std::int64_t cols, int nb) {
  std::vector<bitmap::Schedule> out{bitmap::choose_schedule(rows, cols, nb, ctx.facts)};
  for (const int parts : parse_ints(ctx.opt.bitmap_parts, "bitmap parts")) {
    const bitmap::Schedule s{nb, parts};
    if (const std::string f = bitmap::schedule_fault(s, cols); !f.empty())
      ctx.note_once("# skipped --bitmap-parts " + std::to_string(parts) + ": " + f);
    else if (std::none_of(out.begin(), out.end(), [&](const bitmap::Schedule& o) { return o.parts == s.parts; }))
      out.push_back(s);
  }
  return out;
}

// cusparseSpMM's algorithm by its --cusparse-spmm-alg name.
cusparseSpMMAlg_t spmm_alg(const std::string& name) {
  if (name == "default") return CUSPARSE_SPMM_ALG_DEFAULT;
  if (name == "csr_alg1") return CUSPARSE_SPMM_CSR_ALG1;
  if (name == "csr_alg2") return CUSPARSE_SPMM_CSR_ALG2;
  if (name == "csr_alg3") return CUSPARSE_SPMM_CSR_ALG3;
  throw Error("unknown cuSPARSE SpMM algorithm '" + name + "' (expected default, csr_alg1, csr_alg2 or csr_alg3)");
}

// --- one case ------------------------------------------------------------------------------------
// cuSPARSE descriptors of one product, destroyed on every way out.
struct CusparseDescrs {
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  cusparseDnMatDescr_t mx = nullptr, my = nullptr;
  CusparseDescrs() = default;
  CusparseDescrs(const CusparseDescrs&) = delete;
  CusparseDescrs& operator=(const CusparseDescrs&) = delete;
  ~CusparseDescrs() {
    if (mat) cusparseDestroySpMat(mat);
    if (vx) cusparseDestroyDnVec(vx);
    if (vy) cusparseDestroyDnVec(vy);
    if (mx) cusparseDestroyDnMat(mx);
    if (my) cusparseDestroyDnMat(my);
  }
};

// One batch's device operands: x (cols x n) and y (rows x n), row-major (n = 1: plain vectors).
template <class T>
struct BatchIo {
  int n = 1;
  gpu::DeviceBuffer<T> x, y;
};

template <class T>
void run_case(Context& ctx, const Case& c, std::size_t index, std::size_t total) {
  const Options& o = ctx.opt;
  const auto vt = std::string(to_string(ValueTypeOf<T>::value));
  const std::string label = "[" + std::to_string(index + 1) + "/" + std::to_string(total) + "] " +
                            shape_str(c.rows, c.cols) + " " + c.pattern() +
                            (c.matrix.empty() ? " d=" + fmt("%.2f", c.spec.density) : std::string()) + " " + vt;
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

  // Host side: generate, encode, oracle. Errors here (a pattern family not implemented yet)
  // skip the case.
  std::optional<RowBlocks<T>> m;
  std::string phases;  // seconds per host phase, for the progress line
  double last = 0;
  auto phase = [&](const char* name) {
    const double now = seconds();
    phases += std::string(phases.empty() ? "" : ", ") + name + " " + fmt("%.1f", now - last);
    last = now;
  };
  try {
    m = c.matrix.empty() ? generate_blocks<T>(c.spec, c.rows, c.cols, case_seed(o.seed, c), o.threads)
                         : matrix_file_blocks<T>(c.matrix, o.transpose, o.threads);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: skipped (%s)\n", label.c_str(), e.what());
    return;
  }
  phase("generate");
  const std::int64_t nnz = m->nnz();
  // One x per vector of the largest batch, each with its own oracle. Vector 0 keeps the seed the
  // single vector always had, so --batch 1 measures the products it measured before batches, and
  // vector b is the same in every batch that holds it.
  const int max_batch = *std::max_element(ctx.batches.begin(), ctx.batches.end());
  const std::uint64_t x_seed = case_seed(o.seed, c) ^ 0x5851F42D4C957F2Dull;
  std::vector<std::vector<T>> xs;
  std::vector<Oracle> oracles;
  for (int b = 0; b < max_batch; ++b) {
    xs.push_back(random_vector<T>(c.cols, x_seed ^ (static_cast<std::uint64_t>(b) * 0x9E3779B97F4A7C15ull)));
    oracles.push_back(spmv_oracle_parallel(*m, xs.back(), o.threads));
  }
  phase("oracle");
  const bool csr_fits = nnz <= std::numeric_limits<std::int32_t>::max();
  const bool want_csr_warp = ctx.want("csr_warp") && ctx.has_batch(1);
  std::optional<Csr<T, std::int32_t>> csr;
  if ((ctx.want_cusparse() || want_csr_warp) && csr_fits) csr = to_csr(*m, o.threads);
  phase("csr");
  std::vector<T> dense;
  if (ctx.want_cublas()) dense = to_dense(*m, o.threads);
  phase("dense");
  // The row_stream baselines: 1, 2 or 4 groups in flight, and one ahead on the interleaved copy.
  struct RowStream {
    const char* name;
    int ahead;
    bool interleaved;
  };
  static constexpr RowStream kRowStreams[] = {
      {"row_stream", 1, false}, {"row_stream2", 2, false}, {"row_stream4", 4, false}, {"row_stream_il", 1, true}};
  const bool any_row_stream = std::any_of(std::begin(kRowStreams), std::end(kRowStreams),
                                          [&](const RowStream& v) { return ctx.want(v.name); });
  // The streaming baselines read the matrix alone: they do not depend on the batch, so they run once, at batch 1.
  const bool want_streams = ctx.has_batch(1) && (ctx.want("copy") || ctx.want("read") || any_row_stream);
  std::vector<int> dbs = parse_delta_bits(o.delta_bits);
  std::vector<Macko<T>> mackos;
  // The schedule column's suffix of each entry of mackos: "/arows=1" for MackoParams::align_rows,
  // "/deltas=auto" where the width is choose_delta_bits'.
  std::vector<std::string> encoding;
  if (ctx.want("macko") || want_streams)
    for (const int db : dbs)
      for (const int al : parse_ints(o.align_rows, "align rows")) {
        MackoParams p{db};
        p.align_rows = al != 0;
        p = macko::resolve_delta_bits(std::span<const SparseRows<T>>(m->blocks), m->cols, p, ctx.facts);
        mackos.push_back(to_macko(*m, p, o.threads));
        encoding.push_back(std::string(p.align_rows ? "/arows=1" : "") + (db == macko::kAutoDeltaBits ? "/deltas=auto" : ""));
      }
  phase("macko");
  // EC-CSR and the bitmap format encode the whole matrix (EC pairs rows anywhere, a bitmap tile
  // spans 16 rows that a block may split), so the blocks are joined first, once for both.
  const bool want_ec = ctx.want_ec() && ctx.has_batch(1),
             want_bitmap = ctx.want("bitmap") || ctx.want("bitmap_nodecode");
  std::optional<SparseRows<T>> whole;
  if (want_ec || want_bitmap) whole = join_blocks(*m);
  m.reset();
  phase("join");
  // EC's rounds are reported as they finish: a big shape takes tens of seconds.
  std::vector<Ec<T>> ecs;
  std::vector<double> ec_seconds;
  if (want_ec) {
    for (const int db : parse_ints(o.ec_delta_bits, "EC delta bits")) {
      ec::EcParams ep;
      ep.delta_bits = db;
      ep.threads = o.threads;
      const auto e0 = std::chrono::steady_clock::now();
      ecs.push_back(encode_ec(*whole, ep, [&](const std::string& line) { std::fprintf(stderr, "  ec%d: %s\n", db, line.c_str()); }));
      ec_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count());
    }
  }
  phase("ec");
  // The bitmap encoding serves every batch: only the schedule depends on B.
  std::optional<Bitmap<T>> bm;
  double bitmap_seconds = 0;
  if (want_bitmap) {
    const auto e0 = std::chrono::steady_clock::now();
    bm = encode_bitmap(*whole, o.threads);
    bitmap_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
  }
  whole.reset();
  phase("bitmap");
  std::fprintf(stderr, "%s: nnz %lld, host prep %.1f s (%s)\n", label.c_str(), static_cast<long long>(nnz), seconds(),
               phases.c_str());
  if (o.host_only) return;

  // Device memory: everything below at once, as a conservative estimate. Every batch's x and y
  // stay allocated for the whole case.
  auto vec_bytes = [&](int nb) { return static_cast<std::uint64_t>(c.rows + c.cols) * static_cast<std::uint64_t>(nb) * sizeof(T); };
  std::uint64_t need = dense.size() * sizeof(T);
  for (const int nb : ctx.batches) need += vec_bytes(nb);
  if (csr) need += csr->storage_bytes() * 2;  // cuSPARSE's buffer is at most about its input
  std::uint64_t macko_max = 0;
  for (const auto& mk : mackos) macko_max = std::max<std::uint64_t>(macko_max, mk.storage_bytes());
  need += 2 * macko_max + vec_bytes(1);  // the matrix and the copy's two halves
  for (const auto& e : ecs) need = std::max<std::uint64_t>(need, e.storage_bytes() * 2 + vec_bytes(1));
  if (bm) {
    // The matrix and the fp32 partials of its largest part count (DeviceBitmap::partials).
    int parts = 1;
    for (const int nb : ctx.batches)
      for (const bitmap::Schedule& s : bitmap_schedules(ctx, c.rows, c.cols, nb)) parts = std::max(parts, s.parts);
    const int max_nb = *std::max_element(ctx.batches.begin(), ctx.batches.end());
    need += bm->storage_bytes() + (parts > 1 ? static_cast<std::uint64_t>(c.rows) * max_nb * parts * sizeof(float) : 0);
  }
  require_device_memory(need, label);

  const float alpha = 1.0f, beta = 0.0f;
  std::vector<BatchIo<T>> io;
  for (const int nb : ctx.batches)
    io.push_back({nb, gpu::DeviceBuffer<T>(interleave_columns<T>(std::span<const std::vector<T>>(xs.data(), nb))),
                  gpu::DeviceBuffer<T>(static_cast<std::size_t>(c.rows * nb))});
  xs.clear();
  auto oracles_of = [&](int nb) { return std::span<const Oracle>(oracles.data(), static_cast<std::size_t>(nb)); };
  std::vector<Measured> results;
  // Error bounds per row: the same for every vector of a batch (row_nnz does not depend on x).
  const std::vector<std::int64_t>& row_nnz = oracles.front().row_nnz;
  // Vendor kernels: any summation order, and tensor-core accumulation may truncate: 2(n + 2).
  auto vendor_chain = [&](std::int64_t r) { return 2 * (row_nnz[r] + 2); };
  // Our CSR kernel: one lane's fma chain over ceil(n/32) elements, then the 5-step butterfly.
  auto csr_chain = [&](std::int64_t r) { return (row_nnz[r] + 31) / 32 + 5; };

  if (ctx.want_cublas()) {
    gpu::DeviceBuffer<T> a_d(dense);
    dense.clear();
    dense.shrink_to_fit();
    require(c.rows <= 0x7fffffff && c.cols <= 0x7fffffff, "cuBLAS GEMV needs int dimensions");
    const int m_rows = static_cast<int>(c.rows), k_cols = static_cast<int>(c.cols);
    for (auto& b : io) {
      const int nb = b.n;
      // cuBLAS is column-major, and a row-major R x C matrix with leading dimension C is the
      // column-major C x R matrix, its transpose. So row-major A (rows x cols) is A^T with lda = cols.
      // One vector: y = (A^T)^T x (m = rows, n = 1), the call batch-1 runs always made. B vectors:
      // row-major X (cols x B) and Y (rows x B) are column-major X^T (B x cols) and Y^T (B x rows),
      // leading dimension B, and Y^T = (A X)^T = X^T A^T takes both operands as stored (no
      // transpose): m = B, n = rows, k = cols, X first.
      auto launch = [&](cudaStream_t) {
        if (nb == 1)
          WS_CUBLAS(cublasGemmEx(ctx.cublas, CUBLAS_OP_T, CUBLAS_OP_N, m_rows, 1, k_cols, &alpha, a_d.get(),
                                 cuda_type<T>(), k_cols, b.x.get(), cuda_type<T>(), k_cols, &beta, b.y.get(),
                                 cuda_type<T>(), m_rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        else
          WS_CUBLAS(cublasGemmEx(ctx.cublas, CUBLAS_OP_N, CUBLAS_OP_N, nb, m_rows, k_cols, &alpha, b.x.get(),
                                 cuda_type<T>(), nb, a_d.get(), cuda_type<T>(), k_cols, &beta, b.y.get(),
                                 cuda_type<T>(), nb, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      };
      // At N = 2 and 4 cublasGemmEx picks split-K kernels whose partial sums pass through the output
      // type: up to 1.4x (fp16) and 7.5x (bf16) the fp32 bound on some shapes (H100, cuBLAS 13.1), within the
      // bound that allows for it (check_output's output_partials). GEMV at N = 1 needs no allowance.
      Measured r = verify_and_time<T>(ctx, nb == 1 ? "cublas_gemv" : "cublas_gemm", b.y, oracles_of(nb), vendor_chain,
                                      launch, nb == 1 ? 0.0 : 1.0);
      r.bytes = a_d.bytes() + vec_bytes(nb);
      results.push_back(r);
    }
  }

  if (csr) {
    gpu::DeviceCsr<T> csr_d = gpu::upload_csr(*csr);
    if (ctx.want_cusparse())
      for (auto& b : io) {
        const int nb = b.n;
        CusparseDescrs d;  // fresh per batch: preprocessing belongs to the descriptors it was given
        WS_CUSPARSE(cusparseCreateCsr(&d.mat, c.rows, c.cols, nnz, csr_d.row_ptr.get(), csr_d.col.get(),
                                      csr_d.val.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_BASE_ZERO, cuda_type<T>()));
        std::size_t buf_bytes = 0;
        gpu::DeviceBuffer<std::uint8_t> buf;
        std::function<void(cudaStream_t)> launch;  // refers to d, buf and alg: all outlive it
        const cusparseSpMMAlg_t alg = spmm_alg(o.spmm_alg);
        // Preprocessing is untimed, as a library user would do it once per matrix.
        if (nb == 1) {
          WS_CUSPARSE(cusparseCreateDnVec(&d.vx, c.cols, b.x.get(), cuda_type<T>()));
          WS_CUSPARSE(cusparseCreateDnVec(&d.vy, c.rows, b.y.get(), cuda_type<T>()));
          WS_CUSPARSE(cusparseSpMV_bufferSize(ctx.cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.mat, d.vx, &beta,
                                              d.vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &buf_bytes));
          buf = gpu::DeviceBuffer<std::uint8_t>(std::max<std::size_t>(buf_bytes, 1));
          WS_CUSPARSE(cusparseSpMV_preprocess(ctx.cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.mat, d.vx, &beta,
                                              d.vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf.get()));
          launch = [&](cudaStream_t) {
            WS_CUSPARSE(cusparseSpMV(ctx.cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.mat, d.vx, &beta, d.vy,
                                     CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf.get()));
          };
        } else {
          // The batch layout as it is: X (cols x B) and Y (rows x B) in row order, leading dimension B.
          WS_CUSPARSE(cusparseCreateDnMat(&d.mx, c.cols, nb, nb, b.x.get(), cuda_type<T>(), CUSPARSE_ORDER_ROW));
          WS_CUSPARSE(cusparseCreateDnMat(&d.my, c.rows, nb, nb, b.y.get(), cuda_type<T>(), CUSPARSE_ORDER_ROW));
          WS_CUSPARSE(cusparseSpMM_bufferSize(ctx.cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                              CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.mat, d.mx, &beta, d.my,
                                              CUDA_R_32F, alg, &buf_bytes));
          buf = gpu::DeviceBuffer<std::uint8_t>(std::max<std::size_t>(buf_bytes, 1));
          WS_CUSPARSE(cusparseSpMM_preprocess(ctx.cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                              CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.mat, d.mx, &beta, d.my,
                                              CUDA_R_32F, alg, buf.get()));
          launch = [&](cudaStream_t) {
            WS_CUSPARSE(cusparseSpMM(ctx.cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     &alpha, d.mat, d.mx, &beta, d.my, CUDA_R_32F, alg,
                                     buf.get()));
          };
        }
        Measured r = verify_and_time<T>(ctx, nb == 1 ? "cusparse_csr" : "cusparse_spmm", b.y, oracles_of(nb),
                                        vendor_chain, launch);
        if (nb > 1) r.schedule = "alg=" + o.spmm_alg;
        r.bytes = csr_d.bytes() + vec_bytes(nb);
        results.push_back(r);
      }
    if (want_csr_warp) {
      auto& b = *std::find_if(io.begin(), io.end(), [](const BatchIo<T>& e) { return e.n == 1; });
      gpu::CsrSchedule sched;
      sched.warps_per_block = o.csr_warps_per_block;
      auto launch = [&](cudaStream_t s) { gpu::csr_spmv<T, T>(csr_d, b.x.get(), b.y.get(), alpha, beta, sched, s); };
      Measured r = verify_and_time<T>(ctx, "csr_warp", b.y, oracles_of(1), csr_chain, launch);
      r.schedule = "wpb=" + std::to_string(sched.warps_per_block);
      r.bytes = csr_d.bytes() + vec_bytes(1);
      results.push_back(r);
    }
  } else if (ctx.want_cusparse() || want_csr_warp) {
    std::fprintf(stderr, "  CSR baselines skipped: %lld nonzeros exceed 32-bit indices\n", static_cast<long long>(nnz));
  }

  for (const auto& mk : mackos) {
    if (ctx.want("macko")) {
      gpu::DeviceMacko<T> dm = gpu::upload_macko(mk);
      const macko::MatrixStats stats = macko::matrix_stats(mk);
      for (auto& b : io) {
        const int nb = b.n;
        if (!macko::valid_batch(nb)) continue;  // noted once in main
        const macko::Schedule def = macko::choose_schedule(stats, ctx.facts, nb);
        for (const macko::Schedule& s : schedules_to_sweep(ctx, def, mk.delta_bits, stats)) {
          const std::string ss = macko::to_string(s);  // valid and compiled (schedules_to_sweep)
          auto launch = [&](cudaStream_t st) { gpu::macko_spmv<T, T>(dm, b.x.get(), b.y.get(), alpha, beta, s, st); };
          // The model's own chain length for the row's stored elements (padding included), per vector.
          std::vector<std::int64_t> chains(static_cast<std::size_t>(c.rows));
          for (std::int64_t r = 0; r < c.rows; ++r)
            chains[r] = macko_chain_length(mk.row_ptr[r + 1] - mk.row_ptr[r], mk.delta_bits, s);
          const std::function<std::int64_t(std::int64_t)> macko_chain = [&chains](std::int64_t r) { return chains[r]; };
          try {
            Measured r = verify_and_time<T>(ctx, "macko", b.y, oracles_of(nb), macko_chain, launch);
            r.schedule = ss + encoding[static_cast<std::size_t>(&mk - mackos.data())];
            r.delta_bits = mk.delta_bits;
            r.bytes = dm.bytes() + vec_bytes(nb);
            r.effective_density = mk.effective_density();
            results.push_back(r);
          } catch (const Error& e) {
            // A schedule this case cannot run (e.g. x_shared with an x larger than shared memory):
            // report once, go on.
            ctx.note_once("macko " + std::to_string(mk.delta_bits) + " " + ss + " " + std::to_string(nb),
                          "  macko db=" + std::to_string(mk.delta_bits) + " " + ss + " batch " + std::to_string(nb) +
                              " skipped: " + e.what());
            WS_CUDA(cudaStreamSynchronize(ctx.stream));
          }
        }
      }
    }
    if (!want_streams || &mk != &mackos.front()) continue;
    if (ctx.want("read") || any_row_stream) {
      // Streaming bounds (bench/stream_baselines.hpp): the same arrays read once, coalesced, and
      // read in MACKO's own order (default schedule's loads) without its arithmetic.
      const gpu::DeviceMacko<T> dm = gpu::upload_macko(mk);
      gpu::DeviceBuffer<std::uint32_t> sink(static_cast<std::size_t>(std::max<std::int64_t>(c.rows, 1)));
      if (ctx.want("read")) {
        Measured r;
        r.kernel = "read";
        auto launch = [&](cudaStream_t st) {
          return launch_read_stream(dm.values.get(), dm.values.bytes(), dm.deltas.get(), dm.deltas.bytes(), sink.get(), st);
        };
        r.bytes = launch(ctx.stream);
        r.t = time_launches([&](cudaStream_t st) { launch(st); }, ctx.timing, *ctx.flusher, ctx.stream,
                            ctx.sampler.get());
        results.push_back(r);
      }
      for (const RowStream& v : kRowStreams) {
        if (!ctx.want(v.name) || mk.delta_bits != 4 || dm.rows == 0) continue;
        std::optional<gpu::DeviceBuffer<std::uint8_t>> il;
        if (v.interleaved) {
          const std::size_t il_bytes = macko_interleaved_bytes(static_cast<std::int64_t>(dm.values.bytes() / sizeof(T)));
          il.emplace(il_bytes);
          WS_CUDA(cudaMemset(il->get(), 0x3c, il_bytes));
          WS_CUDA(cudaDeviceSynchronize());
        }
        const void* src = v.interleaved ? static_cast<const void*>(il->get()) : static_cast<const void*>(dm.values.get());
        Measured r;
        r.kernel = v.name;
        r.schedule = "wpb=4/unroll=2/groups_ahead=" + std::to_string(v.ahead) + "/elems=8" +
                     (v.interleaved ? "/interleaved" : "");
        r.bytes = dm.bytes();
        const void* rp = dm.wide ? static_cast<const void*>(dm.row_ptr64.get()) : static_cast<const void*>(dm.row_ptr32.get());
        r.t = time_launches(
            [&](cudaStream_t st) {
              launch_macko_row_stream(src, dm.deltas.get(), rp, dm.wide, dm.rows, sink.get(), v.ahead, st, v.interleaved);
            },
            ctx.timing, *ctx.flusher, ctx.stream, ctx.sampler.get());
        results.push_back(r);
      }
      if (any_row_stream && mk.delta_bits != 4) {
        std::fprintf(stderr, "  row_stream skipped: it mirrors the 4-bit schedule only (delta bits %d)\n", mk.delta_bits);
      }
    }
    if (ctx.want("copy")) {
      // The copy moves as many bytes (read + written) as MACKO reads and writes for one vector.
      const std::uint64_t bytes = mk.storage_bytes() + vec_bytes(1);
      const std::size_t half_bytes = std::max<std::uint64_t>(bytes / 2, 16);
      gpu::DeviceBuffer<std::uint8_t> src(half_bytes), dst(half_bytes);
      WS_CUDA(cudaMemset(src.get(), 0x3c, half_bytes));
      WS_CUDA(cudaDeviceSynchronize());
      Measured r;
      r.kernel = "copy";
      r.bytes = 2 * half_bytes;
      r.t = time_launches(
          [&](cudaStream_t st) { WS_CUDA(cudaMemcpyAsync(dst.get(), src.get(), half_bytes, cudaMemcpyDeviceToDevice, st)); },
          ctx.timing, *ctx.flusher, ctx.stream, ctx.sampler.get());
      results.push_back(r);
    }
  }

  // EC at batch 1: the plan (clipping) is this GPU's; the upload tables count in its bytes. Its
  // streaming bounds (kernels/ec/ec_stream.hpp) run on the same upload and plan and report the same
  // bytes, so their pct_copy_bw reads against ec's.
  struct EcStreamKernel {
    const char* name;
    gpu::EcStream what;
  };
  static constexpr EcStreamKernel kEcStreams[] = {{"ec_stream", gpu::EcStream::loads}, {"ec_stream_x", gpu::EcStream::gathers}};
  for (std::size_t ei = 0; ei < ecs.size(); ++ei) {
    const Ec<T>& e = ecs[ei];
    BatchIo<T>* b1 = nullptr;
    for (auto& b : io)
      if (b.n == 1) b1 = &b;
    if (!b1) break;
    const ec::Plan plan = ec::make_plan(e, ctx.facts);
    const gpu::DeviceEc<T> de = gpu::upload_ec(e, plan);
    const std::string ec_sched = "db=" + std::to_string(e.delta_bits) + "/pieces=" + std::to_string(plan.pieces.size());
    if (ctx.want("ec")) {
      const std::function<std::int64_t(std::int64_t)> ec_chain = [&](std::int64_t r) { return ec_chain_length(e, plan, r); };
      auto launch = [&](cudaStream_t st) { gpu::ec_spmv<T, T>(de, b1->x.get(), b1->y.get(), alpha, beta, st); };
      Measured r = verify_and_time<T>(ctx, "ec", b1->y, oracles_of(1), ec_chain, launch);
      const EcStorage st = e.storage();
      std::string share;
      for (std::size_t si = 0; si < e.sets.size(); ++si)
        share += (si ? ":" : "") + fmt("%.0f", 100.0 * double(st.nnz_by_set[si]) / double(std::max<std::int64_t>(e.nnz, 1)));
      r.schedule = ec_sched + "/nnz%=" + share + "/enc_s=" + fmt("%.1f", ec_seconds[ei]);
      r.delta_bits = e.delta_bits;
      r.bytes = de.bytes() + vec_bytes(1);
      r.effective_density = e.effective_density();
      results.push_back(r);
    }
    gpu::DeviceBuffer<std::uint32_t> sink(static_cast<std::size_t>(std::max<std::int64_t>(de.pieces, 1)));
    for (const EcStreamKernel& k : kEcStreams) {
      if (!ctx.want(k.name) || de.pieces == 0) continue;
      Measured r;
      r.kernel = k.name;
      r.schedule = ec_sched;
      r.delta_bits = e.delta_bits;
      r.bytes = de.bytes() + vec_bytes(1);
      r.t = time_launches([&](cudaStream_t st) { gpu::ec_stream<T>(de, k.what, b1->x.get(), sink.get(), st); }, ctx.timing,
                          *ctx.flusher, ctx.stream, ctx.sampler.get());
      results.push_back(r);
    }
  }

  // The bitmap SpMM at every batch, on one upload. Its bound is the same for every row: the chain
  // covers every k tile of the longest part, stored or not (bitmap::bound_chain).
  if (bm) {
    const gpu::DeviceBitmap<T> dbm = gpu::upload_bitmap(*bm);
    const double bm_density = bm->effective_density();
    bm.reset();
    for (auto& b : io) {
      const int nb = b.n;
      for (const bitmap::Schedule& s : bitmap_schedules(ctx, c.rows, c.cols, nb)) {
        const std::int64_t chain = bitmap::bound_chain(c.cols, s.parts);
        const std::function<std::int64_t(std::int64_t)> bitmap_chain = [chain](std::int64_t) { return chain; };
        auto launch = [&](cudaStream_t st) { gpu::bitmap_spmm<T, T>(dbm, b.x.get(), b.y.get(), alpha, beta, s, st); };
        Measured r = verify_and_time<T>(ctx, "bitmap", b.y, oracles_of(nb), bitmap_chain, launch);
        r.schedule = s.name() + "/enc_s=" + fmt("%.1f", bitmap_seconds);
        // As MACKO's: the arrays and x and y; the fp32 partials of parts > 1 are not counted.
        r.bytes = dbm.bytes() + vec_bytes(nb);
        r.effective_density = bm_density;
        results.push_back(r);
        if (ctx.want("bitmap_nodecode")) {
          // The bound of everything but finding the elements (y is meaningless: not checked).
          Measured nd;
          nd.kernel = "bitmap_nodecode";
          nd.batch = nb;
          nd.schedule = r.schedule;
          nd.bytes = r.bytes;
          nd.t = time_launches([&](cudaStream_t st) { gpu::bitmap_spmm_without_decode<T>(dbm, b.x.get(), b.y.get(), s, st); },
                               ctx.timing, *ctx.flusher, ctx.stream, ctx.sampler.get());
          results.push_back(nd);
        }
      }
    }
  }

  // Rows, batch by batch, with speedups against the baselines of this case at the same batch.
  const double actual_density = double(nnz) / (double(c.rows) * double(c.cols));
  for (const int nb : ctx.batches) {
    const std::string cublas_name = nb == 1 ? "cublas_gemv" : "cublas_gemm";
    const std::string cusparse_name = nb == 1 ? "cusparse_csr" : "cusparse_spmm";
    double t_cublas = std::numeric_limits<double>::quiet_NaN(), t_cusparse = t_cublas;
    for (const auto& r : results) {
      if (r.batch != nb) continue;
      if (r.kernel == cublas_name) t_cublas = r.t.median;
      if (r.kernel == cusparse_name) t_cusparse = r.t.median;
    }
    const Measured *best_macko = nullptr, *best_bitmap = nullptr;
    std::map<std::string, double> by_kernel;
    for (const auto& r : results) {
      if (r.batch != nb) continue;
      const double gbps = double(r.bytes) / (r.t.median * 1e-6) / 1e9;
      Row row{{"gpu", ctx.dev.name},
              {"kernel", r.kernel},
              {"schedule", r.schedule},
              {"rows", std::int64_t{c.rows}},
              {"cols", std::int64_t{c.cols}},
              {"batch", std::int64_t{r.batch}},
              {"density", c.matrix.empty() ? c.spec.density : actual_density},
              {"actual_density", actual_density},
              {"pattern", c.pattern()},
              {"value_type", vt},
              {"delta_bits", r.delta_bits ? Value{std::int64_t{r.delta_bits}} : Value{}},
              {"nnz", std::int64_t{nnz}},
              {"median_us", r.t.median},
              {"p10_us", r.t.p10},
              {"p90_us", r.t.p90},
              {"bytes", static_cast<std::int64_t>(r.bytes)},
              {"gbps", gbps},
              {"pct_copy_bw", 100.0 * gbps / ctx.copy_gbps},
              {"speedup_vs_cublas", opt_double(t_cublas / r.t.median)},
              {"speedup_vs_cusparse", opt_double(t_cusparse / r.t.median)},
              {"max_abs_err", r.check ? opt_double(r.check->max_abs) : Value{}},
              {"max_rel_err", r.check ? opt_double(r.check->max_rel) : Value{}},
              {"check", std::string(r.check ? (r.check->pass ? "pass" : "FAIL") : "")},
              {"effective_density", opt_double(r.effective_density)},
              {"iters", std::int64_t{static_cast<std::int64_t>(r.t.n)}},
              {"sm_mhz_median", opt_double(r.t.clocks.sm_mhz_median)},
              {"power_w_max", opt_double(r.t.clocks.power_w_max)},
              {"power_limited_pct", opt_double(r.t.clocks.power_limited_pct)},
              {"commit", ctx.commit},
              {"timestamp", ctx.timestamp}};
      ctx.writer->write(row);
      if (r.kernel == "macko" && (!best_macko || r.t.median < best_macko->t.median)) best_macko = &r;
      if (r.kernel == "bitmap" && (!best_bitmap || r.t.median < best_bitmap->t.median)) best_bitmap = &r;
      if (!by_kernel.count(r.kernel)) by_kernel[r.kernel] = r.t.median;
      std::fprintf(stderr, "  %-13s %2d %-26s %9.1f us  %7.1f GB/s  %5.1f%% copy bw  %s\n", r.kernel.c_str(), r.batch,
                   r.schedule.c_str(), r.t.median, gbps, 100.0 * gbps / ctx.copy_gbps,
                   r.check ? (r.check->pass ? "ok" : "FAIL") : "");
    }
    if (best_macko) by_kernel["macko"] = best_macko->t.median;
    if (best_bitmap) by_kernel["bitmap"] = best_bitmap->t.median;
    auto cell = [&](const std::string& k) {
      const auto it = by_kernel.find(k);
      return it == by_kernel.end() ? std::string("       -") : fmt("%8.1f", it->second);
    };
    std::string line = shape_str(c.rows, c.cols);
    line.resize(std::max<std::size_t>(line.size(), 13), ' ');
    std::string pat = c.matrix.empty() ? c.pattern() : "file";  // the CSV names the file in full
    pat.resize(std::max<std::size_t>(pat.size(), 16), ' ');
    line += " " + pat + fmt(" %5.2f", c.matrix.empty() ? c.spec.density : actual_density) + " " + vt + fmt(" %5.0f", double(nb)) + " " + cell(cublas_name) + " " +
            cell(cusparse_name) + " " + cell("csr_warp") + " " + cell("macko") + " " + cell("ec") + " " + cell("bitmap") +
            " " + cell("copy");
    // The fastest MACKO and bitmap rows against cuBLAS, and their share of the copy bandwidth.
    auto versus = [&](const Measured* r) {
      if (!r) return std::string("          -       -");
      const double gbps = double(r->bytes) / (r->t.median * 1e-6) / 1e9;
      return fmt("  %8.2fx", t_cublas / r->t.median) + fmt("  %5.1f%%", 100.0 * gbps / ctx.copy_gbps);
    };
    if (best_macko || best_bitmap) line += versus(best_macko);
    if (best_bitmap) line += versus(best_bitmap);
    ctx.table.push_back(line);
  }
  std::fprintf(stderr, "%s: done in %.1f s\n", label.c_str(), seconds());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ws_bench_macko: MACKO SpMV vs cuBLAS GEMV, cuSPARSE CSR, our CSR kernel and a D2D copy; with --batch, "
               "B vectors at once vs cuBLAS GEMM and cuSPARSE SpMM, and the bitmap-tile tensor-core SpMM (bitmap)"};
  Options o;
  add_common_options(app, o,
                     std::string("shapes ") + kQuickShapes + ", densities " + kQuickDensities +
                         ", pattern families on " + kQuickPatternShapes,
                     "all 31 shapes of macko-paper.txt Appendix D, densities " + std::string(kFullDensities) +
                         ", pattern families on the quick shapes");
  app.add_option("--shapes", o.shapes, "ROWSxCOLS list, 'paper' for all 31, or 'none'");
  app.add_option("--matrix", o.matrices,
                 "a matrix of your own, benchmarked like the generated ones (repeatable): FILE.safetensors:TENSOR, "
                 "INDEX.json:TENSOR, FILE.npy, FILE.npz:NAME or FILE.mtx");
  app.add_flag("--transpose", o.transpose, "the --matrix tensors are [in, out] (default [out, in])");
  app.add_option("--densities", o.densities, "densities of the exact-nnz uniform pattern");
  app.add_option("--patterns", o.patterns, "pattern families run at --pattern-density: 'all', 'none' or a list")
      ->capture_default_str();
  app.add_option("--pattern-density", o.pattern_density, "density of the other pattern families")->capture_default_str();
  app.add_option("--pattern-shapes", o.pattern_shapes, "shapes that also run the pattern families");
  app.add_option("--value-types", o.value_types, "fp16, bf16 or both")->capture_default_str();
  app.add_option("--delta-bits", o.delta_bits,
                 "MACKO delta widths, e.g. 4 or 2,4,8; auto: the width macko::choose_delta_bits picks for each matrix")->capture_default_str();
  app.add_option("--ec-delta-bits", o.ec_delta_bits, "EC-CSR delta widths: 4, 8 or 4,8")->capture_default_str();
  app.add_option("--align-rows", o.align_rows,
                 "MACKO encodings: 1 (each row padded with zeros to a multiple of the ROMA unit, so rows start "
                 "aligned), 0 (the paper's encoder), or 0,1 (both, in one run)")
      ->capture_default_str();
  app.add_option("--schedules", o.schedules,
                 "MACKO schedules: 'policy' (what macko::choose_schedule picks on this GPU), 'all' (every compiled "
                 "variant for the case's delta width and batch), or schedule names separated by ';' (e.g. "
                 "'xs=1/wpb=16;elems=4'); the lists below vary each")
      ->capture_default_str();
  app.add_option("--warps-per-block", o.warps_per_block, "MACKO schedules: list swept (default: the schedule's)");
  app.add_option("--unroll-blocks", o.unroll_blocks, "MACKO schedules: list swept");
  app.add_option("--lane-accumulators", o.lane_accumulators, "MACKO schedules: list swept");
  app.add_option("--prefetch", o.prefetch, "MACKO schedules: 0,1 (software prefetch of the next group)");
  app.add_option("--lane-elems", o.lane_elems, "MACKO schedules: 8,4,2 elements per lane per step (4-bit deltas)");
  app.add_option("--blocks-per-sm", o.blocks_per_sm, "MACKO schedules: 0 (a warp per row) or k (persistent grid)");
  app.add_option("--x-shared", o.x_shared, "MACKO schedules: 0,1 (x staged in shared memory, persistent grid)");
  app.add_option("--x-swizzle", o.x_swizzle,
                 "MACKO schedules: 0,1 (x in shared memory swizzled at batch 1; needs x in shared memory). Left "
                 "out: on where x is in shared memory and the matrix's gathers collide in banks (N:M rows)");
  app.add_option("--grid-splits", o.grid_splits,
                 "MACKO schedules: warps of the grid sharing a row, e.g. 1,8,64 (1: none; > 1: x through L1, at most " +
                     std::to_string(macko::kGridSplitMaxRows) + " rows)");
  app.add_option("--row-lanes", o.row_lanes, "MACKO schedules: 32 (a warp per row) or 16 (two rows per warp)");
  app.add_option("--row-splits", o.row_splits, "MACKO schedules: 1 or 2 warps sharing a row (must divide the warps per block)");
  app.add_option("--kernels", o.kernels,
                 "subset of cublas_gemv,cusparse_csr,csr_warp,macko,ec,bitmap,copy,read,row_stream,row_stream2,row_stream4,row_stream_il,ec_stream,ec_stream_x,bitmap_nodecode (read: the MACKO arrays read once, coalesced; row_stream: MACKO's loads without its arithmetic, 2 / 4: with 2 / 4 groups in flight, _il: from a block-interleaved copy of the arrays; ec_stream: the EC kernel's loads in its order on ec's encoding and plan, without x or arithmetic, reported with ec's bytes; ec_stream_x: the same plus its x gathers; bitmap_nodecode: bitmap's launches without finding each lane's elements, timed, not checked); cublas_gemm and cusparse_spmm are other names of the two vendor baselines, each name selecting its library at every batch")->capture_default_str();
  app.add_option("--batch", o.batch,
                 "vectors per product, a list of 1 to 16 (e.g. 1,2,4,8,16): with B > 1, x is cols x B and y rows x B, "
                 "both row-major (element (i, b) at i*B + b); the baselines become cublas_gemm (cublasGemmEx, N = B) "
                 "and cusparse_spmm (cusparseSpMM, row-order dense X and Y); macko runs at 1, 2, 4 and 8, bitmap at "
                 "every batch, csr_warp, ec, copy, read, row_stream and ec_stream at batch 1 only, and every speedup "
                 "is against the baseline of the same batch")
      ->capture_default_str();
  app.add_option("--bitmap-parts", o.bitmap_parts,
                 "bitmap: part counts (k-tile ranges per tile row, bitmap::Schedule::parts) swept besides the policy's, "
                 "e.g. 1,2,4,8; a count above the matrix's k tiles is skipped with a note (default: the policy's only)");
  app.add_option("--cusparse-spmm-alg", o.spmm_alg, "cusparse_spmm's algorithm: default, csr_alg1, csr_alg2 or csr_alg3")
      ->capture_default_str();
  app.add_option("--csr-warps-per-block", o.csr_warps_per_block, "launch shape of our CSR kernel")->capture_default_str();
  app.add_option("--threads", o.threads, "host threads for generation and encoding")->capture_default_str();
  app.add_flag("--host-only", o.host_only, "generate, encode and compute the oracle only (no GPU; timing of the host side)");
  CLI11_PARSE(app, argc, argv);

  try {
    if (o.shapes.empty()) o.shapes = !o.matrices.empty() ? "none" : o.full ? "paper" : kQuickShapes;
    if (o.densities.empty()) o.densities = o.full ? kFullDensities : kQuickDensities;
    // The families run on the quick shapes in --full too: they ask how the pattern changes the
    // speed, which four shapes answer; the density sweep is what covers all 31.
    if (o.pattern_shapes.empty()) o.pattern_shapes = o.full ? kQuickShapes : kQuickPatternShapes;
    require(o.threads >= 1, "--threads must be >= 1");
    require_known(split_list(o.kernels), {"cublas_gemv", "cublas_gemm", "cusparse_csr", "cusparse_spmm", "csr_warp", "macko",
                   "ec", "bitmap", "copy", "read", "row_stream", "row_stream2", "row_stream4", "row_stream_il", "ec_stream",
                   "ec_stream_x", "bitmap_nodecode"},
                  "kernel");
    std::vector<int> batches;
    // 16: the bitmap kernel's widest batch (two n8 groups of the mma); the vendor baselines take any.
    for (const int b : parse_ints(o.batch, "batch")) {
      require(b >= 1 && b <= bitmap::kBatchMax, "a batch is 1 to 16 vectors, got " + std::to_string(b));
      if (std::find(batches.begin(), batches.end(), b) == batches.end()) batches.push_back(b);
    }
    require(!batches.empty(), "--batch needs at least one value");
    if (std::find(batches.begin(), batches.end(), 1) == batches.end())
      for (const auto& k : split_list(o.kernels))
        if (k == "csr_warp" || k == "copy" || k == "read" || k.rfind("row_stream", 0) == 0 || k.rfind("ec", 0) == 0)
          std::fprintf(stderr, "# note: %s runs at batch 1 only, which --batch leaves out\n", k.c_str());
    const auto kernel_list = split_list(o.kernels);
    if (std::find(kernel_list.begin(), kernel_list.end(), "macko") != kernel_list.end())
      for (const int b : batches)
        if (!macko::valid_batch(b))
          std::fprintf(stderr, "# note: macko has kernels for batches 1, 2, 4 and 8 only: batch %d runs without it\n", b);
    for (const int p : parse_ints(o.bitmap_parts, "bitmap parts")) require(p >= 1, "--bitmap-parts: a part count is >= 1");
    (void)spmm_alg(o.spmm_alg);  // a misspelt name stops the run before any case
    const std::vector<Case> cases = build_cases(o);
    const auto vts = split_list(o.value_types);
    for (const auto& v : vts) require(v == "fp16" || v == "bf16", "value type must be fp16 or bf16, got '" + v + "'");
    (void)parse_delta_bits(o.delta_bits);  // a bad width stops the run before any case
    std::string batch_list;
    for (const int b : batches) batch_list += (batch_list.empty() ? "" : ",") + std::to_string(b);
    std::fprintf(stderr, "# %zu cases x %zu value types, batch %s, warmup %d, iters %d, L2 flush %s\n", cases.size(),
                 vts.size(), batch_list.c_str(), o.warmup, o.iters, o.no_flush ? "off" : "on");
    if (o.dry_run) {
      for (const auto& c : cases)
        std::printf("%s %s %.2f\n", shape_str(c.rows, c.cols).c_str(), c.pattern().c_str(), c.spec.density);
      return 0;
    }

    Context ctx;
    ctx.opt = o;
    ctx.batches = batches;
    if (o.host_only) {
      std::size_t i = 0;
      for (const auto& c : cases)
        for (const auto& v : vts) {
          if (v == "fp16") run_case<warpsparse::half>(ctx, c, i, cases.size() * vts.size());
          else run_case<bfloat16>(ctx, c, i, cases.size() * vts.size());
          ++i;
        }
      return 0;
    }
    if (!gpu::device_available()) {
      std::fprintf(stderr, "ws_bench_macko: no CUDA device, nothing timed\n");
      return 77;
    }
    if (o.warmup < 100 || o.iters < 200)
      std::fprintf(stderr, "# note: warmup %d / iters %d are below the 100 / 200 the method asks for reported numbers\n",
                   o.warmup, o.iters);
    ctx.dev = query_device_info(0);
    ctx.facts = gpu::device_facts(0);
    ctx.timing = o.timing();
    ctx.flusher = std::make_unique<L2Flusher>(ctx.dev.l2_bytes);
    ctx.sampler = std::make_unique<ClockSampler>(ctx.dev.device);
    WS_CUDA(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
    WS_CUBLAS(cublasCreate(&ctx.cublas));
    WS_CUBLAS(cublasSetStream(ctx.cublas, ctx.stream));
    WS_CUSPARSE(cusparseCreate(&ctx.cusparse));
    WS_CUSPARSE(cusparseSetStream(ctx.cusparse, ctx.stream));
    // Ceiling: a 1 GiB copy (well past L2), median of a short timed series.
    ctx.copy_gbps = measure_copy_bandwidth(std::int64_t{1} << 30, TimingConfig{10, 50, true}, *ctx.flusher, ctx.stream);
    ctx.commit = git_commit();
    ctx.timestamp = utc_timestamp();
    auto meta = run_metadata(ctx.dev, ctx.copy_gbps, "ws_bench_macko", command_line(argc, argv));
    int cublas_ver = 0, cusparse_ver = 0;
    cublasGetVersion(ctx.cublas, &cublas_ver);
    cusparseGetVersion(ctx.cusparse, &cusparse_ver);
    meta["cublas_version"] = cublas_ver;
    meta["cusparse_version"] = cusparse_ver;
    meta["warmup"] = o.warmup;
    meta["warmup_ms"] = o.warmup_ms;
    meta["batches"] = batches;
    meta["iters"] = o.iters;
    meta["oracle"] = "double precision on the host over every row, one per vector of a batch; pass iff every element "
                     "is finite and within the fp32 forward error bound of its row";
    ctx.writer = open_results(o.out, ctx.dev, "macko", meta);

    std::size_t i = 0, errors = 0;
    for (const auto& c : cases)
      for (const auto& v : vts) {
        try {
          if (v == "fp16") run_case<warpsparse::half>(ctx, c, i, cases.size() * vts.size());
          else run_case<bfloat16>(ctx, c, i, cases.size() * vts.size());
        } catch (const std::exception& e) {
          ++errors;
          std::fprintf(stderr, "case %zu (%s) failed: %s\n", i + 1, shape_str(c.rows, c.cols).c_str(), e.what());
          // A sticky CUDA error poisons every later case: stop rather than report garbage.
          if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
            std::fprintf(stderr, "CUDA context is broken, stopping\n");
            break;
          }
        }
        ++i;
      }

    std::printf("# %s, copy %.0f GB/s, commit %s; times are median us, L2 flushed\n", ctx.dev.name.c_str(),
                ctx.copy_gbps, ctx.commit.c_str());
    std::printf("%-13s %-16s %5s %4s %5s %8s %8s %8s %8s %8s %8s %8s  %9s  %6s  %9s  %6s\n", "shape", "pattern", "d",
                "type", "batch", "cublas", "cusparse", "csr", "macko", "ec", "bitmap", "copy", "vs_cublas", "%copy",
                "bm_vs_cub", "bm_%cp");
    for (const auto& l : ctx.table) std::printf("%s\n", l.c_str());
    std::printf("# %zu rows in %s; %d check failures, %zu case errors\n", ctx.writer->rows(),
                ctx.writer->csv_path().c_str(), ctx.failures, errors);
    cublasDestroy(ctx.cublas);
    cusparseDestroy(ctx.cusparse);
    cudaStreamDestroy(ctx.stream);
    return (ctx.failures || errors) ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws_bench_macko: %s\n", e.what());
    return 1;
  }
}
