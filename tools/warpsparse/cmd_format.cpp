// encode, inspect, verify, plan and demo: the MACKO format commands of the warpsparse CLI.
#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>

#include "analysis/patterns.hpp"
#include "reference/io/format_safetensors.hpp"
#include "reference/io/input.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/matrix_market.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_policy.hpp"
#include "reference/macko/macko_verify.hpp"
#include "tools/warpsparse/commands.hpp"

namespace warpsparse::cli {

namespace {

using io::AnyMacko;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct FormatOptions {
  std::string value_type = "auto";
  int delta_bits = 4;
  bool align_rows = false;  // MackoParams::align_rows
  bool transpose = false;   // a tensor is [in, out] rather than [out, in]
};

void add_format_options(CLI::App* c, FormatOptions& o) {
  c->add_option("--value-type", o.value_type,
                "value type of the encoded matrix (auto: a tensor's own dtype; fp16 for MatrixMarket)")
      ->check(CLI::IsMember({"auto", "fp16", "bf16", "fp32", "int8"}))
      ->capture_default_str();
  c->add_option("--delta-bits", o.delta_bits, "bits per delta")->check(CLI::IsMember({1, 2, 4, 8}));
  c->add_flag("--align-rows", o.align_rows,
              "pad each row to a multiple of the ROMA unit with zeros, so rows start aligned (faster on the GPU)");
  c->add_flag("--transpose", o.transpose, "read a tensor as [in, out] (default [out, in], as torch's Linear stores it)");
}

// Encodes rows with the options, after checking what the encoding will take (the padding the rows'
// gaps imply is known before encoding) against the memory budget.
template <class T>
Macko<T> encode_within_budget(const SparseRows<T>& m, const MackoParams& p, const std::string& name) {
  const MackoSize size = macko_size(m, p);
  memory_budget().require(size.encode_bytes,
                          fmt::format("{}: encoding {} x {} with {}-bit deltas ({} nonzeros, {} elements with padding)", name,
                                      m.rows, m.cols, p.delta_bits, m.nnz(), size.emitted));
  return encode_macko(m, p);
}

// --value-type, with `fallback` for auto.
ValueType value_type_or(const FormatOptions& o, ValueType fallback) {
  return o.value_type == "auto" ? fallback : parse_value_type(o.value_type);
}

MackoParams params_of(const FormatOptions& o) {
  MackoParams p;
  p.delta_bits = o.delta_bits;
  p.align_rows = o.align_rows;
  return p;
}

// What an argument names, read once: a MACKO matrix as stored (a MACKO file, or a MACKO
// safetensors file) goes to on_macko(AnyMacko, label); any other matrix (a MatrixMarket file or
// stream, a tensor FILE[:NAME] of a safetensors/npy/npz file) to on_rows(SparseRows<T>, label),
// with T from --value-type (auto: the tensor's dtype, fp16 for MatrixMarket).
template <class OnMacko, class OnRows>
void read_input(const std::string& arg, const FormatOptions& o, OnMacko on_macko, OnRows on_rows) {
  const io::TensorSpec spec = arg == "-" ? io::TensorSpec{arg, ""} : io::split_tensor_spec(arg);
  if (arg != "-" && io::is_tensor_file(spec.file)) {
    auto f = io::open_tensor_file(spec.file, memory_budget());
    const std::string format = io::warpsparse_format(*f);
    if (format == io::kMackoSafetensorsFormat) return on_macko(io::read_macko_safetensors(*f, memory_budget()), spec.file);
    if (!format.empty())
      throw Error(spec.file + ": holds a warpsparse " + format + " matrix; this command takes a matrix, a tensor or a MACKO matrix");
    const io::TensorInfo& t = f->find(spec.tensor);
    // A dtype no matrix is read from falls back to fp16 here; tensor_rows then names it.
    const ValueType vt = value_type_or(o, t.dtype == io::DType::other ? ValueType::fp16 : io::value_type_of(t.dtype));
    return dispatch_value_type(vt, [&](auto tag) {
      using T = decltype(tag);
      SparseRows<T> rows = io::tensor_rows<T>(t, f->data(t), o.transpose, memory_budget());
      f->release(t);
      on_rows(std::move(rows), t.label());
    });
  }
  if (!spec.tensor.empty()) throw Error(spec.file + ": not a tensor file, so '" + spec.tensor + "' names nothing in it");
  io::Input in = io::open_input(spec.file);
  switch (io::sniff_format(in)) {
    case io::InputFormat::macko: return on_macko(io::read_macko(*in.stream, in.name, in.size, memory_budget()), in.name);
    case io::InputFormat::matrix_market: {
      if (o.transpose) throw Error("--transpose applies to tensors; " + in.name + " is a MatrixMarket file");
      const ValueType vt = value_type_or(o, ValueType::fp16);
      return dispatch_value_type(vt, [&](auto tag) {
        using T = decltype(tag);
        on_rows(io::read_matrix_market<T>(*in.stream, in.name, {}, memory_budget()), in.name);
      });
    }
    default:
      throw Error(in.name + ": not a matrix file (MACKO, MatrixMarket, safetensors, .npy or .npz)" +
                  std::string(in.size ? "" : "; tensor files are read with random access, so not from a pipe: save it to a file"));
  }
}

// The input as a MACKO matrix: as stored, or encoded with the options.
AnyMacko load_any(const std::string& arg, const FormatOptions& o) {
  std::optional<AnyMacko> out;
  read_input(
      arg, o, [&](AnyMacko m, const std::string&) { out = std::move(m); },
      [&](const auto& rows, const std::string& label) { out = encode_within_budget(rows, params_of(o), label); });
  return std::move(*out);
}

// Rows as a 2:4 matrix, after checking the dense copy and the compressed arrays against the memory
// budget; a group of four columns with three or four nonzeros is named (row, columns).
template <class T>
sparse24::Sparse24Matrix<T> sparse24_within_budget(const SparseRows<T>& m, const std::string& label) {
  constexpr std::int64_t kMaxSide = std::numeric_limits<int>::max() / 2;
  if (m.rows > kMaxSide || m.cols > kMaxSide)
    throw Error(fmt::format("{}: {} x {} is beyond the 2:4 format's int sides", label, m.rows, m.cols));
  const std::uint64_t dense = sat_mul(sat_mul(static_cast<std::uint64_t>(m.rows), static_cast<std::uint64_t>(m.cols)), sizeof(T));
  memory_budget().require(sat_mul(dense, 2), fmt::format("{}: 2:4 compression of {} x {}", label, m.rows, m.cols));
  const std::vector<T> d = m.to_dense();
  try {
    return sparse24::compress<T>(d, static_cast<int>(m.rows), static_cast<int>(m.cols));
  } catch (const Error& e) {
    throw Error(label + ": not 2:4: " + std::string(e.what()).substr(std::string("sparse24::compress: ").size()));
  }
}

// A float in JSON: a number, or "nan" / "inf" / "-inf" (JSON has no non-finite numbers).
nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

template <class T>
MackoVerifyResult verify_within_budget(const Macko<T>& a, std::uint64_t seed, const std::vector<int>& accumulators,
                                       int batch = 1, int row_lanes = macko::kWarpLanes) {
  memory_budget().require(macko_verify_bytes(a, batch), fmt::format("verifying a {} x {} matrix on {} vector(s) of {} columns",
                                                                    a.rows, a.cols, batch, a.cols));
  return macko_verify(a, seed, accumulators, batch, row_lanes);
}

template <class T>
double density(const Macko<T>& m) {
  return m.rows * m.cols == 0 ? 0.0 : double(m.nnz) / (double(m.rows) * double(m.cols));
}

template <class T>
nlohmann::json summary_json(const Macko<T>& m) {
  return {{"format", "macko"},
          {"value_type", std::string(to_string(Macko<T>::kValueType))},
          {"delta_bits", m.delta_bits},
          {"rows", m.rows},
          {"cols", m.cols},
          {"nnz", m.nnz},
          {"density", density(m)},
          {"emitted", m.emitted()},
          {"padding", m.padding()},
          {"padded_length", m.padded_length()},
          {"delta_bytes", m.deltas.size()},
          {"row_ptr_bits", m.row_ptr.wide ? 64 : 32},
          {"storage_bytes", m.storage_bytes()},
          {"effd", m.effective_density()}};
}

template <class T>
void print_summary(const Macko<T>& m) {
  fmt::print("shape          {} x {}\n", m.rows, m.cols);
  fmt::print("value type     {}, delta bits {}, row pointers {}-bit\n", to_string(Macko<T>::kValueType),
             m.delta_bits, m.row_ptr.wide ? 64 : 32);
  fmt::print("nnz            {} (density {:.6g})\n", m.nnz, density(m));
  fmt::print("emitted        {} (padding {} = {:.4g}% of nnz)\n", m.emitted(), m.padding(),
             m.nnz ? 100.0 * double(m.padding()) / double(m.nnz) : 0.0);
  fmt::print("padded length  {} values, {} delta bytes\n", m.padded_length(), m.deltas.size());
  fmt::print("storage        {} bytes, effd {:.6g}\n", m.storage_bytes(), m.effective_density());
}

template <class T>
void print_arrays(const Macko<T>& m) {
  fmt::print("values        ");
  for (const T v : m.values) fmt::print(" {}", to_float(v));
  fmt::print("\ndelta bytes   ");
  for (const auto b : m.deltas) fmt::print(" {:02x}", b);
  fmt::print("\nrow pointers  ");
  for (std::int64_t r = 0; r <= m.rows; ++r) fmt::print(" {}", m.row_ptr[r]);
  fmt::print("\n");
}

// The tensors of a file: name, dtype, shape, bytes (and its __metadata__).
void print_tensors(const io::TensorFile& f, bool json) {
  if (json) {
    nlohmann::json j;
    j["file"] = f.path();
    j["metadata"] = f.metadata();
    auto& ts = j["tensors"] = nlohmann::json::array();
    for (const auto& t : f.tensors())
      ts.push_back({{"name", t.name}, {"dtype", t.dtype_name}, {"shape", t.shape}, {"bytes", t.bytes}, {"file", t.file}});
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("file           {} ({} tensors)\n", f.path(), f.tensors().size());
  for (const auto& [k, v] : f.metadata()) fmt::print("metadata       {} = {}\n", k, v.substr(0, 100));
  for (const auto& t : f.tensors())
    fmt::print("  {:<48} {:<6} {:<18} {}\n", t.name.empty() ? "(the array)" : t.name, t.dtype_name, t.shape_string(),
               human_bytes(t.bytes));
}

// row_lanes: the lanes per row macko_verify ran with.
void report_verify(const MackoVerifyResult& v, int row_lanes = macko::kWarpLanes) {
  if (!v.fault.empty()) throw Error("verify: emulator finding (WarpFault): " + v.fault);
  fmt::print("verify         {} model run(s), {} lanes per row: max |error| {:.3g}, max error/bound {:.3g}, {} row "
             "failure(s)\n",
             v.schedules, row_lanes, v.check.max_error, v.check.max_bound_ratio, v.check.failures);
  if (v.check.overflows > 0)
    fmt::print("overflow       {} row result(s) overflowed where fp32 arithmetic or the output type must (not failures)\n",
               v.check.overflows);
  if (!v.check.ok()) throw Error("verify: model disagrees with the oracle: " + v.check.first_failure);
}

}  // namespace

void register_format_commands(CLI::App& app) {
  // encode
  {
    auto* c = app.add_subcommand("encode", "encode a matrix (MatrixMarket, or a tensor of a safetensors/npy/npz file) as "
                                           "MACKO or 2:4");
    // Option storage must outlive parsing: it is owned by the callback (CLI11 binds references).
    struct Args {
      FormatOptions o;
      std::string in, out, format = "macko";
    };
    auto args = std::make_shared<Args>();
    c->add_option("--format", args->format, "macko, or 2:4 (compressed values and metadata; every group of 4 "
                                            "columns may hold at most 2 nonzeros)")
        ->check(CLI::IsMember({"macko", "2:4"}))
        ->capture_default_str();
    add_format_options(c, args->o);
    c->add_option("IN", args->in, "MatrixMarket file (a file, a pipe, or -), or a tensor: FILE.safetensors:NAME, "
                                  "INDEX.json:NAME, FILE.npy, FILE.npz:NAME")
        ->required();
    c->add_option("OUT", args->out, "output: a MACKO file, or (ending in .safetensors) a safetensors file")->required();
    c->callback([args] {
      const bool to_safetensors = args->out.size() > 12 && args->out.ends_with(".safetensors");
      if (args->format == "2:4" && !to_safetensors)
        throw Error(args->out + ": a 2:4 matrix is written as safetensors: name the output *.safetensors");
      read_input(
          args->in, args->o,
          [](const AnyMacko&, const std::string& label) -> void {
            throw Error(label + ": is a MACKO matrix already (inspect or verify it)");
          },
          [&](const auto& rows, const std::string& label) {
            using T = typename std::decay_t<decltype(rows)>::value_type;
            if (args->format == "2:4") {
              const auto s = sparse24_within_budget(rows, label);
              io::write_sparse24_safetensors<T>(args->out, s, {{"source", label}});
              fmt::print("{}: 2:4 {}x{} (stored {}x{}), {} values, {} metadata words\n", args->out, s.rows, s.cols,
                         s.rows_padded, s.cols_padded, s.values.size(), s.meta.size());
              return;
            }
            const AnyMacko m = encode_within_budget(rows, params_of(args->o), label);
            if (to_safetensors) io::write_macko_safetensors(args->out, m, {{"source", label}});
            else io::write_macko_file(args->out, m);
            std::visit([&](const auto& a) {
              fmt::print("{}: {} {}x{}, nnz {}, emitted {}, effd {:.6g}\n", args->out, args->format, a.rows, a.cols, a.nnz,
                         a.emitted(), a.effective_density());
            }, m);
          });
    });
  }
  // inspect
  {
    auto* c = app.add_subcommand("inspect", "print a MACKO matrix's shape, padding and effective density (a MACKO file, or "
                                            "MACKO safetensors); for other tensor files, list their tensors");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto arrays = std::make_shared<bool>(false);
    c->add_option("FILE", *path, "MACKO file (a file, a pipe, or - for standard input), or a safetensors/npy/npz file")->required();
    c->add_flag("--json", *json, "print JSON");
    c->add_flag("--arrays", *arrays, "also print the decoded values, raw delta bytes and row pointers");
    c->callback([=] {
      std::optional<AnyMacko> stored;
      if (*path != "-" && io::is_tensor_file(*path)) {
        auto f = io::open_tensor_file(*path, memory_budget());
        if (io::warpsparse_format(*f) == io::kMackoSafetensorsFormat) {
          stored = io::read_macko_safetensors(*f, memory_budget());
        } else {
          print_tensors(*f, *json);
          return;
        }
      } else {
        io::Input in = io::open_input(*path);
        if (io::sniff_format(in) == io::InputFormat::matrix_market)
          throw Error(in.name + ": is a MatrixMarket file: inspect reads MACKO files (encode it first, or verify it)");
        stored = io::read_macko(*in.stream, in.name, in.size, memory_budget());
      }
      const AnyMacko& m = *stored;
      std::visit([&](const auto& a) {
        if (*json) {
          auto j = summary_json(a);
          j["file"] = *path;
          if (*arrays) {
            auto& v = j["values"] = nlohmann::json::array();
            for (const auto x : a.values) v.push_back(json_number(to_float(x)));
            j["delta_bytes_raw"] = a.deltas;
            auto& p = j["row_ptr"] = nlohmann::json::array();
            for (std::int64_t r = 0; r <= a.rows; ++r) p.push_back(a.row_ptr[r]);
          }
          fmt::print("{}\n", j.dump(2));
        } else {
          fmt::print("file           {}\n", *path);
          print_summary(a);
          if (*arrays) print_arrays(a);
        }
      }, m);
    });
  }
  // verify
  {
    auto* c = app.add_subcommand("verify", "run the MACKO warp model against the double oracle");
    auto o = std::make_shared<FormatOptions>();
    auto path = std::make_shared<std::string>();
    auto seed = std::make_shared<std::uint64_t>(1);
    auto batch = std::make_shared<int>(1);
    auto row_lanes = std::make_shared<int>(macko::kWarpLanes);
    add_format_options(c, *o);
    c->add_option("FILE_OR_MTX", *path, "MACKO file, or MatrixMarket file to encode first")->required();
    c->add_option("--seed", *seed, "seed of the random x")->transform(whole(0, INT64_MAX));
    c->add_option("--batch", *batch,
                  "vectors multiplied at once (1, 2, 4 or 8; Schedule::batch), each checked against its own oracle")
        ->check(CLI::IsMember({1, 2, 4, 8}));
    c->add_option("--row-lanes", *row_lanes,
                  "lanes per row: 32 (a warp per row) or 16 (two rows per warp; Schedule::row_lanes, one vector)")
        ->check(CLI::IsMember({16, 32}));
    c->callback([=] {
      if (*row_lanes != macko::kWarpLanes && *batch > 1)
        throw Error(fmt::format("verify: --row-lanes {} (two rows per warp) multiplies one vector; --batch {} needs "
                                "--row-lanes 32",
                                *row_lanes, *batch));
      const AnyMacko m = load_any(*path, *o);
      std::visit([&](const auto& a) {
        fmt::print("file           {}\n", *path);
        print_summary(a);
        if (*batch > 1) fmt::print("batch          {} vectors at once\n", *batch);
        report_verify(verify_within_budget(a, *seed, {1, 2, 4, 8}, *batch, *row_lanes), *row_lanes);
        fmt::print("ok\n");
      }, m);
    });
  }
  // plan
  {
    auto* c = app.add_subcommand("plan", "print the MACKO schedule that would run on a GPU for a matrix, and why");
    auto o = std::make_shared<FormatOptions>();
    auto path = std::make_shared<std::string>();
    auto gpu = std::make_shared<std::string>("h100");
    auto batch = std::make_shared<int>(1);
    auto json = std::make_shared<bool>(false);
    add_format_options(c, *o);
    c->add_option("FILE_OR_MTX", *path, "MACKO file, or MatrixMarket file to encode first")->required();
    std::string keys;
    for (const KnownGpu& g : kKnownGpus) keys += std::string(keys.empty() ? "" : ", ") + std::string(g.key);
    c->add_option("--gpu", *gpu, "the GPU to plan for: " + keys)->capture_default_str();
    c->add_option("--batch", *batch, "vectors multiplied at once (1, 2, 4 or 8)")->check(CLI::IsMember({1, 2, 4, 8}));
    c->add_flag("--json", *json, "print JSON");
    c->callback([=] {
      const DeviceFacts& facts = known_gpu(*gpu);
      const AnyMacko m = load_any(*path, *o);
      std::visit([&](const auto& a) {
        const macko::MatrixStats stats = macko::matrix_stats(a);
        const macko::Plan plan = macko::plan_schedule(stats, facts, *batch);
        const int variant = macko::compiled_variant(plan.schedule, a.delta_bits);
        if (*json) {
          nlohmann::json j = summary_json(a);
          j["file"] = *path;
          j["gpu"] = facts.name;
          j["rules_measured_on"] = macko::rules_for(facts).measured_on;
          j["batch"] = *batch;
          j["schedule"] = macko::to_string(plan.schedule);
          j["compiled_variant"] = variant;
          j["why"] = plan.why;
          fmt::print("{}\n", j.dump(2));
          return;
        }
        fmt::print("file           {}\n", *path);
        print_summary(a);
        fmt::print("gpu            {} ({} SMs; rules measured on the {})\n", facts.name, facts.sms,
                   macko::rules_for(facts).measured_on);
        fmt::print("schedule       {} (batch {}, compiled variant {} of macko::kCompiledVariants)\n",
                   macko::to_string(plan.schedule), *batch, variant);
        for (const std::string& why : plan.why) fmt::print("  because      {}\n", why);
      }, m);
    });
  }
  // demo
  {
    auto* c = app.add_subcommand("demo", "generate, encode and verify a matrix; print a summary");
    auto o = std::make_shared<FormatOptions>();
    auto rows = std::make_shared<std::int64_t>(512);
    auto cols = std::make_shared<std::int64_t>(4096);
    auto dens = std::make_shared<double>(0.5);
    auto seed = std::make_shared<std::uint64_t>(1);
    add_format_options(c, *o);
    c->add_option("--rows", *rows, "rows")->transform(whole(1, std::int64_t{1} << 24));
    c->add_option("--cols", *cols, "columns")->transform(whole(1, kMaxCols));
    c->add_option("--density", *dens, "fraction of nonzeros per row (exact_nnz pattern)")->check(fraction());
    c->add_option("--seed", *seed, "pattern and x seed")->transform(whole(0, INT64_MAX));
    c->callback([=] {
      dispatch_value_type(value_type_or(*o, ValueType::fp16), [&](auto tag) {
        using T = decltype(tag);
        analysis::PatternSpec spec;
        spec.kind = analysis::Pattern::exact_nnz;
        spec.density = *dens;
        const double row_nnz = std::ceil(*dens * static_cast<double>(*cols));
        memory_budget().require(static_cast<std::uint64_t>(row_nnz * static_cast<double>(*rows)) * (sizeof(T) + 4) +
                                    static_cast<std::uint64_t>(*rows + 1) * 8,
                                fmt::format("demo: generating {} x {} at density {}", *rows, *cols, *dens));
        const SparseRows<T> m = analysis::generate<T>(spec, *rows, *cols, *seed);
        const MackoParams p = params_of(*o);
        // Encoder throughput: best of 3 runs (one core).
        Macko<T> a;
        double enc = 1e300;
        for (int i = 0; i < 3; ++i) {
          const auto t0 = Clock::now();
          a = encode_within_budget(m, p, "demo");
          enc = std::min(enc, seconds_since(t0));
        }
        fmt::print("demo           exact_nnz, seed {}\n", *seed);
        print_summary(a);
        const MackoVerifyResult v = verify_within_budget(a, *seed, {1, 1, 1});  // three timed model runs
        report_verify(v);
        fmt::print("throughput     encoder {:.3g} nonzeros/s ({:.3g} matrix elements/s); warp model {:.3g} "
                   "stored elements/s (one core)\n",
                   double(a.nnz) / enc, double(a.rows) * double(a.cols) / enc,
                   double(a.emitted()) * double(v.schedules) / v.model_seconds);
        fmt::print("ok\n");
      });
    });
  }
}

}  // namespace warpsparse::cli
