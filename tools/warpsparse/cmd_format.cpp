// encode, inspect, verify, plan and demo: the format commands of the warpsparse CLI (MACKO, EC-CSR,
// 2:4, bitmap tiles).
#include <fmt/core.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "analysis/format_choice.hpp"
#include "analysis/patterns.hpp"
#include "reference/bitmap/bitmap_schedule.hpp"
#include "reference/bitmap/bitmap_spmm_model.hpp"
#include "reference/ec/ec_choice.hpp"
#include "reference/ec/ec_encode.hpp"
#include "reference/ec/ec_schedule.hpp"
#include "reference/ec/ec_spmv_model.hpp"
#include "reference/io/ec_file.hpp"
#include "reference/io/format_safetensors.hpp"
#include "reference/io/input.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/matrix_market.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_policy.hpp"
#include "reference/macko/macko_verify.hpp"
#include "reference/sparse24/sparse24_layout.hpp"
#include "tools/warpsparse/commands.hpp"

namespace warpsparse::cli {

namespace {

using io::AnyEc;
using io::AnyMacko;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// --delta-bits auto, as FormatOptions holds it (0 already means "the format's default").
constexpr int kAutoDeltaBitsArg = -1;

struct FormatOptions {
  std::string value_type = "auto";
  int delta_bits = 0;       // 0: the format's default (MACKO 4, EC 8); kAutoDeltaBitsArg: MACKO's choose_delta_bits
  bool align_rows = false;  // MackoParams::align_rows
  bool transpose = false;   // a tensor is [in, out] rather than [out, in]
  int threads = 0;          // EC extraction threads (EcParams::threads; 0: every core)
};

void add_format_options(CLI::App* c, FormatOptions& o) {
  c->add_option("--value-type", o.value_type,
                "value type of the encoded matrix (auto: a tensor's own dtype; fp16 for MatrixMarket)")
      ->check(CLI::IsMember({"auto", "fp16", "bf16", "fp32", "int8"}))
      ->capture_default_str();
  c->add_option(
       "--delta-bits", o.delta_bits,
       "bits per delta (MACKO: 1, 2, 4, 8 or auto: the width the policy picks for one vector on an H100, "
       "default 4; EC: 4 or 8, default 8)")
      ->transform(one_of({1, 2, 4, 8}, kAutoDeltaBitsArg));
  c->add_flag("--align-rows", o.align_rows,
              "pad each row to a multiple of the ROMA unit with zeros, so rows start aligned (faster on the GPU)");
  c->add_flag("--transpose", o.transpose, "read a tensor as [in, out] (default [out, in], as torch's Linear stores it)");
}

// The options of EC encoding (a command that can encode EC-CSR).
void add_ec_options(CLI::App* c, FormatOptions& o) {
  c->add_option("--threads", o.threads, "EC extraction threads (default: every core; the encoding does not depend on it)")
      ->transform(whole(1, 256));
}

// Encodes rows with the options, after checking what the encoding will take (the padding the rows'
// gaps imply is known before encoding) against the memory budget.
template <class T>
Macko<T> encode_within_budget(const SparseRows<T>& m, MackoParams p, const std::string& name) {
  if (p.delta_bits == macko::kAutoDeltaBits) {
    const macko::DeltaChoice c = macko::choose_delta_bits(m, p.align_rows, kH100);
    fmt::print(stderr, "{}: {}\n", name, c.why);
    p.delta_bits = c.delta_bits;
  }
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
  p.delta_bits = o.delta_bits == kAutoDeltaBitsArg ? macko::kAutoDeltaBits : o.delta_bits != 0 ? o.delta_bits : 4;
  p.align_rows = o.align_rows;
  return p;
}

ec::EcParams ec_params_of(const FormatOptions& o) {
  if (o.delta_bits == kAutoDeltaBitsArg) throw Error("--delta-bits auto: EC-CSR deltas are 4 or 8 bits, chosen by you");
  if (o.delta_bits != 0 && !ec::valid_delta_bits(o.delta_bits))
    throw Error(fmt::format("--delta-bits {}: EC-CSR deltas are 4 or 8 bits", o.delta_bits));
  if (o.align_rows) throw Error("--align-rows applies to MACKO, not to EC-CSR");
  if (o.value_type == "int8") throw Error("--value-type int8: EC-CSR holds fp16, bf16 or fp32 values");
  ec::EcParams p;
  p.delta_bits = o.delta_bits != 0 ? o.delta_bits : 8;
  p.threads = o.threads;
  return p;
}

// What encode_ec holds at its peak, planned from the shape: the extraction's column bitsets
// (rows · ceil(cols / 64) words) and about three copies of the matrix (the input without zeros,
// the residuals, the layout's values and columns).
template <class T>
std::uint64_t ec_encode_bytes(const SparseRows<T>& m) {
  const auto rows = static_cast<std::uint64_t>(m.rows), cols = static_cast<std::uint64_t>(m.cols);
  const std::uint64_t matrix = sat_add(sat_mul(static_cast<std::uint64_t>(m.nnz()), 4 + sizeof(T)), sat_mul(rows + 1, 8));
  return sat_add(sat_mul(sat_mul(rows, (cols + 63) / 64), 8), sat_mul(matrix, 3));
}

// Encodes rows as EC-CSR after checking the budget; the extraction's progress goes to stderr once
// it has run for a second (small matrices print nothing).
template <class T>
Ec<T> encode_ec_within_budget(const SparseRows<T>& m, const ec::EcParams& p, const std::string& name) {
  memory_budget().require(ec_encode_bytes(m), fmt::format("{}: EC encoding of {} x {} with {}-bit deltas ({} nonzeros; "
                                                          "extraction bitsets of {} words per row)",
                                                          name, m.rows, m.cols, p.delta_bits, m.nnz(), (m.cols + 63) / 64));
  const auto t0 = Clock::now();
  return encode_ec(m, p, [t0](const std::string& line) {
    const double s = seconds_since(t0);
    if (s >= 1.0) fmt::print(stderr, "warpsparse: encode: {:.1f} s: {}\n", s, line);
  });
}

// The value types EC-CSR and bitmap tiles hold (fp16, bf16, fp32); int8 (from --value-type or a
// tensor's dtype) is refused by name.
template <class T>
constexpr bool kFloatValueType = !std::is_same_v<T, std::int8_t>;
[[noreturn]] inline void refuse_int8(const std::string& label, const char* format) {
  throw Error(label + ": int8 values: " + format + " holds fp16, bf16 or fp32 values (--value-type converts)");
}

// What an argument names, read once: a MACKO matrix as stored (a MACKO file, or a MACKO
// safetensors file) goes to on_macko(AnyMacko, label); any other matrix (a MatrixMarket file or
// stream, a tensor FILE[:NAME] of a safetensors/npy/npz file) to on_rows(SparseRows<T>, label),
// with T from --value-type (auto: the tensor's dtype, fp16 for MatrixMarket).
// An EC file goes to on_ec(AnyEc, label) and a bitmap-tile file to on_bitmap(AnyBitmap, label);
// without them, they are refused by name.
// The first given of the options that shape how a matrix is read (--value-type, --transpose) and,
// with `encoding`, how it is encoded (--delta-bits, --align-rows); nullptr when none is.
const char* shaping_option_given(const FormatOptions& o, bool encoding = true) {
  if (o.value_type != "auto") return "--value-type";
  if (o.transpose) return "--transpose";
  if (encoding && o.delta_bits != 0) return "--delta-bits";
  if (encoding && o.align_rows) return "--align-rows";
  return nullptr;
}

// A stored encoding keeps its own value type, deltas and layout, so the options that shape an
// encoding are refused for it rather than ignored: by read_input for MACKO and bitmap-tile files,
// by each on_ec for an EC file, since plan encodes MACKO from it (with --delta-bits and
// --align-rows, so `ec` leaves those two out there).
void refuse_encoding_options(const FormatOptions& o, const std::string& label, const std::string& kind,
                             bool ec = false) {
  if (const char* given = shaping_option_given(o, !ec))
    throw Error(fmt::format("{}: is a stored {} matrix, encoded already; {} applies to a matrix to encode",
                            label, kind, given));
}

// --delta-bits and --align-rows shape MACKO (and EC-CSR's deltas); the 2:4 and bitmap-tile formats
// have neither, so with them the options are refused rather than ignored.
void refuse_macko_options(const FormatOptions& o, const std::string& format) {
  if (o.delta_bits != 0) throw Error("--delta-bits applies to MACKO and EC-CSR, not to --format " + format);
  if (o.align_rows) throw Error("--align-rows applies to MACKO, not to --format " + format);
}

template <class OnMacko, class OnRows>
void read_input(const std::string& arg, const FormatOptions& o, OnMacko on_macko, OnRows on_rows,
                const std::function<void(AnyEc, const std::string&)>& on_ec = {},
                const std::function<void(io::AnyBitmap, const std::string&)>& on_bitmap = {}) {
  const io::TensorSpec spec = arg == "-" ? io::TensorSpec{arg, ""} : io::split_tensor_spec(arg);
  if (arg != "-" && io::is_tensor_file(spec.file)) {
    auto f = io::open_tensor_file(spec.file, memory_budget());
    const std::string format = io::warpsparse_format(*f);
    if (format == io::kMackoSafetensorsFormat) {
      refuse_encoding_options(o, spec.file, "MACKO");
      return on_macko(io::read_macko_safetensors(*f, memory_budget()), spec.file);
    }
    if (format == io::kBitmapSafetensorsFormat && on_bitmap) {
      refuse_encoding_options(o, spec.file, "bitmap-tile");
      return on_bitmap(io::read_bitmap_safetensors(*f, memory_budget()), spec.file);
    }
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
    case io::InputFormat::macko:
      refuse_encoding_options(o, in.name, "MACKO");
      return on_macko(io::read_macko(*in.stream, in.name, in.size, memory_budget()), in.name);
    case io::InputFormat::ec:
      if (!on_ec)
        throw Error(in.name +
                    ": is an EC-CSR matrix: this command reads MACKO matrices and matrices to encode "
                    "(inspect or verify it)");
      return on_ec(io::read_ec(*in.stream, in.name, in.size, memory_budget()), in.name);
    case io::InputFormat::matrix_market: {
      if (o.transpose) throw Error("--transpose applies to tensors; " + in.name + " is a MatrixMarket file");
      const ValueType vt = value_type_or(o, ValueType::fp16);
      return dispatch_value_type(vt, [&](auto tag) {
        using T = decltype(tag);
        on_rows(io::read_matrix_market<T>(*in.stream, in.name, {}, memory_budget()), in.name);
      });
    }
    default:
      throw Error(in.name + ": not a matrix file (MACKO, EC, MatrixMarket, safetensors, .npy or .npz)" +
                  std::string(in.size ? "" : "; tensor files are read with random access, so not from a pipe: save it to a file"));
  }
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

// A warp model's runs against the oracle (MACKO and EC alike): `runs` says what ran.
void report_check(const SpmvCheck& check, const std::string& fault, const std::string& runs) {
  if (!fault.empty()) throw Error("verify: emulator finding (WarpFault): " + fault);
  fmt::print("verify         {}: max |error| {:.3g}, max error/bound {:.3g}, {} row failure(s)\n", runs, check.max_error,
             check.max_bound_ratio, check.failures);
  if (check.overflows > 0)
    fmt::print("overflow       {} row result(s) overflowed where fp32 arithmetic or the output type must (not failures)\n",
               check.overflows);
  if (!check.ok()) throw Error("verify: model disagrees with the oracle: " + check.first_failure);
}

// row_lanes: the lanes per row macko_verify ran with.
void report_verify(const MackoVerifyResult& v, int row_lanes = macko::kWarpLanes) {
  report_check(v.check, v.fault, fmt::format("{} model run(s), {} lanes per row", v.schedules, row_lanes));
  // What the kernel's warps ask the memory system for, per warp-wide load: how many distinct 32-byte
  // sectors and 128-byte lines its lanes touch (the L1's work for x's gathers; caches not modelled).
  const auto per = [](const warp::MemoryStats& m) {
    return m.instructions == 0 ? std::string("none")
                               : fmt::format("{:.1f}/{:.1f}", double(m.sectors) / double(m.instructions),
                                             double(m.lines) / double(m.instructions));
  };
  const SpmvTraffic& t = v.traffic;
  fmt::print(
      "loads          per warp-wide load, sectors/lines: values {}, deltas {}, row_ptr {}, x {} ({} x "
      "loads)\n",
      per(t.values), per(t.deltas), per(t.row_ptr), per(t.x), t.x.instructions);
}

// ---- EC-CSR -------------------------------------------------------------------------------------

// The figures of docs/ec-spmv.md for an EC matrix: storage by array, padding against nnz and
// against stored values, the share of nonzeros per set, and the reduction against CSR-32 (values +
// a 32-bit column per nonzero + 32-bit row pointers).
template <class T>
struct EcFigures {
  EcStorage st;
  std::uint64_t csr32_bytes = 0;
  double reduction = 0, padding_per_nnz = 0, padding_per_stored = 0, density = 0;

  explicit EcFigures(const Ec<T>& a) : st(a.storage()) {
    const auto nnz = static_cast<std::uint64_t>(a.nnz);
    csr32_bytes = nnz * (sizeof(T) + 4) + (static_cast<std::uint64_t>(a.rows) + 1) * 4;
    reduction = 1.0 - double(st.total()) / double(csr32_bytes);
    padding_per_nnz = a.nnz ? double(st.padding()) / double(a.nnz) : 0.0;
    padding_per_stored = st.stored_values ? double(st.padding()) / double(st.stored_values) : 0.0;
    density = a.rows * a.cols == 0 ? 0.0 : double(a.nnz) / (double(a.rows) * double(a.cols));
  }
  double share(std::size_t set) const { return st.nnz ? double(st.nnz_by_set[set]) / double(st.nnz) : 0.0; }
};

// "G=8 0%, G=4 0%, G=2 12.5%, G=1 long 50%, G=1 short 37.5%"
template <class T>
std::string ec_shares(const Ec<T>& a, const EcFigures<T>& f) {
  std::string out;
  for (std::size_t i = 0; i < a.sets.size(); ++i)
    out += fmt::format("{}{} {:.3g}%", i ? ", " : "", a.sets[i].name(), 100.0 * f.share(i));
  return out;
}

template <class T>
nlohmann::json summary_json(const Ec<T>& a) {
  const EcFigures<T> f(a);
  nlohmann::json sets = nlohmann::json::array();
  for (std::size_t i = 0; i < a.sets.size(); ++i) {
    const EcSet<T>& s = a.sets[i];
    const std::int64_t stored = s.slots() * s.group;
    sets.push_back({{"name", s.name()}, {"group", s.group}, {"vec", s.vec}, {"short", s.is_short}, {"blocks", s.blocks()},
                    {"steps", s.steps()}, {"stored_values", stored}, {"nnz", f.st.nnz_by_set[i]},
                    {"padding", stored - f.st.nnz_by_set[i]}, {"nnz_share", f.share(i)}});
  }
  return {{"format", "ec"},
          {"value_type", std::string(to_string(Ec<T>::kValueType))},
          {"delta_bits", a.delta_bits},
          {"base_bits", a.base_bits()},
          {"rows", a.rows},
          {"cols", a.cols},
          {"nnz", a.nnz},
          {"density", f.density},
          {"stored_values", f.st.stored_values},
          {"padding", f.st.padding()},
          {"gap_padding", f.st.gap_padding},
          {"align_padding", f.st.align_padding},
          {"padding_per_nnz", f.padding_per_nnz},
          {"padding_per_stored", f.padding_per_stored},
          {"storage_bytes", f.st.total()},
          {"file_bytes", io::ec_file_bytes(a)},
          {"bytes", {{"values", f.st.value_bytes}, {"deltas", f.st.delta_bytes}, {"bases", f.st.base_bytes},
                     {"rows", f.st.row_bytes}, {"offsets", f.st.offset_bytes}, {"descriptors", f.st.desc_bytes}}},
          {"csr32_bytes", f.csr32_bytes},
          {"reduction_vs_csr32", f.reduction},
          {"effd", a.effective_density()},
          {"sets", sets}};
}

template <class T>
void print_summary(const Ec<T>& a) {
  const EcFigures<T> f(a);
  fmt::print("shape          {} x {}\n", a.rows, a.cols);
  fmt::print("value type     {}, delta bits {}, bases {}-bit (EC-CSR, {} sets)\n", to_string(Ec<T>::kValueType), a.delta_bits,
             a.base_bits(), a.sets.size());
  fmt::print("nnz            {} (density {:.6g})\n", a.nnz, f.density);
  fmt::print("stored         {} values (padding {} = {:.4g}% of nnz, {:.4g}% of stored: gap {}, alignment {})\n",
             f.st.stored_values, f.st.padding(), 100.0 * f.padding_per_nnz, 100.0 * f.padding_per_stored, f.st.gap_padding,
             f.st.align_padding);
  fmt::print("nnz share      {}\n", ec_shares(a, f));
  fmt::print("storage        {} bytes, effd {:.6g}; CSR-32 {} bytes, reduction {:.4g}%\n", f.st.total(), a.effective_density(),
             f.csr32_bytes, 100.0 * f.reduction);
}

// inspect: the set table and the storage by array.
template <class T>
void print_sets(const Ec<T>& a) {
  const EcFigures<T> f(a);
  fmt::print("{:<14} {:>3} {:>2} {:>10} {:>10} {:>13} {:>13} {:>13}\n", "set", "G", "v", "blocks", "steps", "stored", "nnz",
             "padding");
  for (std::size_t i = 0; i < a.sets.size(); ++i) {
    const EcSet<T>& s = a.sets[i];
    const std::int64_t stored = s.slots() * s.group;
    fmt::print("  {:<12} {:>3} {:>2} {:>10} {:>10} {:>13} {:>13} {:>13}\n", s.name(), s.group, s.vec, s.blocks(), s.steps(),
               stored, f.st.nnz_by_set[i], stored - f.st.nnz_by_set[i]);
  }
  fmt::print("bytes          values {}, deltas {}, bases {}, row indices {}, step offsets {}, descriptors {}; file {}\n",
             f.st.value_bytes, f.st.delta_bytes, f.st.base_bytes, f.st.row_bytes, f.st.offset_bytes, f.st.desc_bytes,
             io::ec_file_bytes(a));
}

template <class T>
void print_arrays(const Ec<T>& a) {
  for (const EcSet<T>& s : a.sets) {
    if (s.blocks() == 0) continue;
    fmt::print("set {}\n", s.name());
    fmt::print("  rows        ");
    for (const auto r : s.rows) fmt::print(" {}", r);
    fmt::print("\n  step_ptr    ");
    for (const auto p : s.step_ptr) fmt::print(" {}", p);
    fmt::print("\n  bases       ");
    for (const auto b : s.bases) fmt::print(" {}", b);
    fmt::print("\n  delta bytes ");
    for (const auto b : s.deltas) fmt::print(" {:02x}", b);
    fmt::print("\n  values      ");
    for (const T v : s.values) fmt::print(" {}", to_float(v));
    fmt::print("\n");
  }
}

template <class T>
void add_arrays_json(nlohmann::json& j, const Ec<T>& a) {
  for (std::size_t i = 0; i < a.sets.size(); ++i) {
    const EcSet<T>& s = a.sets[i];
    auto& js = j["sets"][i];
    js["row_indices"] = s.rows;
    js["step_ptr"] = s.step_ptr;
    js["bases"] = s.bases;
    js["delta_bytes_raw"] = s.deltas;
    auto& v = js["values"] = nlohmann::json::array();
    for (const T x : s.values) v.push_back(json_number(to_float(x)));
  }
}

// The EC model's runs against the double oracle: one per plan (blocks whole; clipped for the
// H100; clipped to one step per piece, so every row has many partials).
struct EcVerifyResult {
  SpmvCheck check;
  std::string fault;              // a WarpFault message, empty when none
  std::string decode_difference;  // decode vs the source (when given), empty when equal
  std::int64_t runs = 0;
  std::string plans;
};

// What ec_verify holds at once: the decoded rows (a vector per row while decoding), the source
// comparison, x, y and the oracle, and the largest plan (one piece per step).
template <class T>
std::uint64_t ec_verify_bytes(const Ec<T>& a) {
  const auto rows = static_cast<std::uint64_t>(a.rows), nnz = static_cast<std::uint64_t>(a.nnz);
  std::uint64_t plan = 0;
  for (const EcSet<T>& s : a.sets)
    plan = sat_add(plan, sat_mul(static_cast<std::uint64_t>(s.steps()),
                                 sizeof(ec::Piece) + 16 + ec::kLanes * 4 + 12 * static_cast<std::uint64_t>(s.group)));
  return sat_add(sat_add(sat_mul(nnz, 2 * (sizeof(T) + 8)), sat_mul(rows + 1, 24 + 8 + 4 + 4 + 8 + 4)),
                 sat_add(sat_mul(static_cast<std::uint64_t>(a.cols), sizeof(T)), plan));
}

// The first difference between decoded rows and the source's nonzeros (explicit zeros of the
// source are not stored), or "".
template <class T>
std::string rows_difference(const SparseRows<T>& decoded, const SparseRows<T>& source) {
  if (decoded.rows != source.rows || decoded.cols != source.cols)
    return fmt::format("shape {} x {}, the source is {} x {}", decoded.rows, decoded.cols, source.rows, source.cols);
  for (std::int64_t r = 0; r < source.rows; ++r) {
    std::int64_t k = decoded.row_ptr[r];
    for (std::int64_t i = source.row_ptr[r]; i < source.row_ptr[r + 1]; ++i) {
      if (is_zero(source.val[i])) continue;
      if (k == decoded.row_ptr[r + 1] || decoded.col[k] != source.col[i])
        return fmt::format("row {}: the source's nonzero at column {} decodes {}", r, source.col[i],
                           k == decoded.row_ptr[r + 1] ? "to nothing" : fmt::format("as column {}", decoded.col[k]));
      if (std::memcmp(&decoded.val[k], &source.val[i], sizeof(T)) != 0)
        return fmt::format("row {}, column {}: decodes to {}, the source holds {}", r, source.col[i], to_float(decoded.val[k]),
                           to_float(source.val[i]));
      ++k;
    }
    if (k != decoded.row_ptr[r + 1]) return fmt::format("row {}: decodes a column {} the source does not hold", r, decoded.col[k]);
  }
  return {};
}

// ----- bitmap tiles (reference/bitmap/) -------------------------------------------------------------

// Rows as bitmap tiles, after checking the arrays (values; 32 bitmap bytes, a 4-byte offset per
// tile) against the memory budget.
template <class T>
Bitmap<T> encode_bitmap_within_budget(const SparseRows<T>& m, const std::string& label) {
  const std::uint64_t tiles = sat_mul(static_cast<std::uint64_t>(bitmap::tile_rows(m.rows)),
                                      static_cast<std::uint64_t>(bitmap::k_tiles(m.cols)));
  memory_budget().require(sat_add(sat_mul(static_cast<std::uint64_t>(m.nnz()), sizeof(T)), sat_mul(tiles, 36)),
                          fmt::format("{}: bitmap tiles of {} x {}", label, m.rows, m.cols));
  return encode_bitmap(m);
}

template <class T>
nlohmann::json bitmap_json(const Bitmap<T>& b) {
  return {{"format", "bitmap"},
          {"value_type", to_string(ValueTypeOf<T>::value)},
          {"rows", b.rows},
          {"cols", b.cols},
          {"nnz", b.nnz()},
          {"tiles", b.tiles()},
          {"bytes", b.storage_bytes()},
          {"effd", b.effective_density()}};
}

template <class T>
void print_bitmap_summary(const Bitmap<T>& b) {
  fmt::print("format         bitmap tiles of 16 x 16, {} values\n", to_string(ValueTypeOf<T>::value));
  fmt::print("shape          {} x {}\n", b.rows, b.cols);
  fmt::print("nnz            {}\n", b.nnz());
  fmt::print("tiles          {} ({} tile rows x {} k tiles), {:.4g} nonzeros per tile\n", b.tiles(), b.tile_rows(),
             b.k_tiles(), b.tiles() ? static_cast<double>(b.nnz()) / static_cast<double>(b.tiles()) : 0.0);
  fmt::print("bytes          {} (values {}, bitmaps {}, tile offsets {}, row bases {})\n", b.storage_bytes(),
             b.values.size() * sizeof(T), b.bitmaps.size() * 8, b.tile_off.size() * 4, b.row_base.size() * 8);
  fmt::print("effd           {:.6g}\n", b.effective_density());
}

// The tensor-core fragment model (bitmap_spmm_model.hpp) against the double oracle on `batch`
// random vectors: one part and, where the k tiles allow, two (the kernel's split of long rows), into
// fp32 and into the value type. The model emulates mma.m16n8k16, which takes fp16 or bf16.
template <class T>
void verify_bitmap(const Bitmap<T>& b, std::uint64_t seed, int batch) {
  if constexpr (!std::is_same_v<T, half> && !std::is_same_v<T, bfloat16>) {
    throw Error(fmt::format("verify: {} bitmap tiles: the tensor-core model takes fp16 or bf16 values (--value-type)",
                            to_string(ValueTypeOf<T>::value)));
  } else {
    const std::uint64_t outputs = sat_mul(static_cast<std::uint64_t>(b.rows), static_cast<std::uint64_t>(batch));
    memory_budget().require(sat_add(sat_mul(static_cast<std::uint64_t>(b.cols) * batch, sizeof(T)), sat_mul(outputs, 2 * 8 + 4 * 2)),
                            fmt::format("verifying a {} x {} bitmap matrix on {} vector(s)", b.rows, b.cols, batch));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<T> x(static_cast<std::size_t>(b.cols) * static_cast<std::size_t>(batch));
    for (T& v : x) v = from_float<T>(u(rng));
    int runs = 0;
    for (const int parts : {1, 2}) {
      if (parts > std::max<std::int64_t>(1, b.k_tiles())) continue;
      const bitmap::Schedule sch{batch, parts};
      auto check = [&](auto out) {
        using TY = decltype(out);
        const std::string fault = bitmap::spmm_check<T, TY>(b, x, {}, 1.0f, 0.0f, sch, bitmap::spmm_model<T, TY>(b, x, {}, 1.0f, 0.0f, sch));
        if (!fault.empty())
          throw Error(fmt::format("verify: model ({} part(s), {} out) disagrees with the oracle: {}", parts,
                                  to_string(ValueTypeOf<TY>::value), fault));
      };
      check(float{});
      check(T{});
      runs += 2;
    }
    fmt::print("verify         {} model run(s) ({} vector(s); 1 and 2 parts; fp32 and {} out): every output within "
               "its bound\n",
               runs, batch, to_string(ValueTypeOf<T>::value));
  }
}

template <class T>
EcVerifyResult ec_verify(const Ec<T>& a, std::uint64_t seed, const SparseRows<T>* source = nullptr) {
  memory_budget().require(ec_verify_bytes(a), fmt::format("verifying a {} x {} EC matrix of {} stored values", a.rows, a.cols,
                                                          a.storage().stored_values));
  EcVerifyResult res;
  const SparseRows<T> decoded = decode_ec(a);  // independent path for the oracle
  if (source) res.decode_difference = rows_difference(decoded, *source);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<T> x(static_cast<std::size_t>(a.cols));
  for (auto& v : x) v = from_float<T>(u(rng));
  const std::vector<float> y_old;
  const std::vector<int> whole_blocks(a.sets.size(), 0), one_step(a.sets.size(), 1);
  for (const char* name : {"blocks whole", "clipped for the H100", "one step per piece"}) {
    // One plan at a time (the budget counts the largest).
    const ec::Plan plan = name[0] == 'b'   ? ec::make_plan(a, whole_blocks)
                          : name[0] == 'c' ? ec::make_plan(a, known_gpu("h100"))
                                           : ec::make_plan(a, one_step);
    res.plans += std::string(res.plans.empty() ? "" : ", ") + name;
    std::vector<float> y;
    try {
      y = ec_spmv_model<T, T, float>(a, plan, x, y_old, 1.0f, 0.0f);
    } catch (const warp::WarpFault& f) {
      res.fault = std::string(name) + ": " + f.what();
      return res;
    }
    ++res.runs;
    const SpmvCheck c = check_spmv<T, T, float>(decoded, x, y_old, 1.0f, 0.0f, y,
                                                [&](std::int64_t r) { return ec_chain_length(a, plan, r); });
    res.check.max_error = std::max(res.check.max_error, c.max_error);
    res.check.max_bound_ratio = std::max(res.check.max_bound_ratio, c.max_bound_ratio);
    res.check.overflows += c.overflows;
    if (!c.ok() && res.check.ok()) res.check.first_failure = std::string(name) + ": " + c.first_failure;
    res.check.failures += c.failures;
  }
  return res;
}

template <class T>
void report_ec_verify(const Ec<T>& a, std::uint64_t seed, const SparseRows<T>* source = nullptr) {
  const EcVerifyResult v = ec_verify(a, seed, source);
  if (source) {
    if (!v.decode_difference.empty()) throw Error("verify: decode(encode(M)) differs from M: " + v.decode_difference);
    fmt::print("decode         equals the source's {} nonzeros, bit for bit\n", a.nnz);
  }
  report_check(v.check, v.fault, fmt::format("{} EC model run(s) ({})", v.runs, v.plans));
}

// ---- plan: MACKO's schedule, EC's plan, and which is predicted faster ---------------------------

struct PlanArgs {
  FormatOptions o;
  std::string path, gpu = "h100", formats = "macko,ec", check;
  int batch = 1;
  bool json = false;
};

// The value types the EC kernels take (16-bit); the host format also holds fp32, which no kernel runs.
template <class T>
constexpr bool kEcKernelType = sizeof(T) == 2;

// EC as plan encodes it: the default 8-bit deltas (the width the chooser's model was fitted on);
// --delta-bits is MACKO's here.
ec::EcParams plan_ec_params(const PlanArgs& a) {
  ec::EcParams p;
  p.threads = a.o.threads;
  return p;
}

// Whether every row holds at most sparse24::kKeep nonzeros in each group of sparse24::kGroup
// columns: the weights the 2:4 GEMM takes (padding elements hold zeros and are not counted).
template <class T>
bool is_2of4(const Macko<T>& a) {
  GroupPeak per_group(sparse24::kGroup);
  for (std::int64_t r = 0; r < a.rows; ++r) {
    std::int64_t c = -1;
    for (std::int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      c += std::int64_t{a.delta(k)} + 1;
      if (!is_zero(a.values[k])) per_group.add(c);
    }
    per_group.end_row();
  }
  return per_group.peak() <= sparse24::kKeep;
}

// plan --batch B >= 2: which kernel multiplies the B vectors (MACKO's CUDA-core batch kernels, the
// bitmap-tile tensor-core SpMM, or the 2:4 GEMM for a 2:4 matrix: bitmap::choose_batch_kernel) and
// why; the bitmap kernel's schedule.
void plan_batch_kernel(const PlanArgs& a, const macko::MatrixStats& stats, const DeviceFacts& facts,
                       const bitmap::BatchChoice& bc, nlohmann::json& j) {
  const bool on_bitmap = bc.kernel == bitmap::BatchKernel::bitmap;
  const std::string schedule = on_bitmap ? bitmap::choose_schedule(stats.rows, stats.cols, a.batch, facts).name() : "";
  if (a.json) {
    nlohmann::json& k = j["batch_kernel"] = {{"kernel", bitmap::to_string(bc.kernel)}, {"why", bc.why}};
    if (on_bitmap)
      k["schedule"] = schedule;
    else if (bc.kernel == bitmap::BatchKernel::macko)
      k["macko_batch"] = bc.macko_batch;
    return;
  }
  if (on_bitmap)
    fmt::print("batch kernel   bitmap ({}: {}x{} bitmap tiles on tensor cores)\n", schedule, bitmap::kTile, bitmap::kTile);
  else if (bc.kernel == bitmap::BatchKernel::sparse24)
    fmt::print("batch kernel   sparse24 (the 2:4 GEMM on the {} vectors; for a layer that holds W as 2:4 too, as SparseLinear does)\n",
               a.batch);
  else if (bc.macko_batch != a.batch)
    fmt::print("batch kernel   macko (batch {} runs as {})\n", a.batch, bc.macko_batch);
  else
    fmt::print("batch kernel   macko (batch {})\n", a.batch);
  fmt::print("  because      {}\n", bc.why);
}

// Why plan leaves EC out for these arguments and values of type T, or "".
template <class T>
std::string ec_skip_reason(const PlanArgs& a) {
  if (a.formats == "macko") return "--formats macko";
  if (a.batch != 1) return fmt::format("EC multiplies one vector (--batch {})", a.batch);
  if (!kEcKernelType<T>)
    return fmt::format("{} values: the EC kernels take fp16 or bf16", to_string(ValueTypeOf<T>::value));
  return "";
}

// plan for one matrix: MACKO's schedule and why (for the batch MACKO runs: --batch rounded up to a
// compiled 1, 2, 4 or 8); at --batch >= 2 which kernel multiplies the batch; then, when EC can run
// it, EC's plan, both predicted times, the pick and why. make_ec() gives the EC matrix (encoding it
// only when called); nullptr where the value type has no EC kernel.
template <class T, class MakeEc>
void plan_formats(const PlanArgs& a, const Macko<T>& m, MakeEc make_ec) {
  const DeviceFacts& facts = known_gpu(a.gpu);
  const std::string skip = ec_skip_reason<T>(a);
  if (!skip.empty() && a.o.threads != 0)
    throw Error("--threads applies to EC's extraction, which plan skips here: " + skip);
  const macko::MatrixStats stats = macko::matrix_stats(m);
  if (a.batch < 1 || a.batch > bitmap::kBatchMax) throw Error("plan: " + bitmap::choose_batch_kernel(stats.density, a.batch).why);
  // MACKO's plan for the batch it runs, which the batch rule reads (its x path).
  const macko::Plan plan = macko::plan_schedule(stats, facts, macko::batch_for(a.batch));
  const bitmap::BatchChoice bc = bitmap::choose_batch_kernel(
      stats.density, a.batch, {.sparse24 = a.batch >= 2 && is_2of4(m), .macko_x_l1 = !plan.schedule.x_shared});
  const int variant = macko::compiled_variant(plan.schedule, m.delta_bits);
  nlohmann::json j;
  if (a.json) {
    j = summary_json(m);
    j["file"] = a.path;
    j["gpu"] = facts.name;
    j["rules_measured_on"] = macko::rules_for(facts).measured_on;
    j["batch"] = a.batch;
    j["schedule"] = macko::to_string(plan.schedule);
    j["compiled_variant"] = variant;
    j["why"] = plan.why;
  } else {
    fmt::print("file           {}\n", a.path);
    print_summary(m);
    fmt::print("gpu            {} ({} SMs; rules measured on the {})\n", facts.name, facts.sms, macko::rules_for(facts).measured_on);
    const std::string batch = bc.macko_batch == a.batch ? std::to_string(a.batch)
                              : a.batch > bc.macko_batch ? fmt::format("{}, MACKO's largest, for --batch {}", bc.macko_batch, a.batch)
                                                         : fmt::format("{} for --batch {}", bc.macko_batch, a.batch);
    fmt::print("schedule       {} (batch {}, compiled variant {} of macko::kCompiledVariants)\n", macko::to_string(plan.schedule),
               batch, variant);
    for (const std::string& why : plan.why) fmt::print("  because      {}\n", why);
  }
  if (a.batch >= 2) plan_batch_kernel(a, stats, facts, bc, j);
  if constexpr (kEcKernelType<T>) {
    if (skip.empty()) {
      const auto& e = make_ec();
      const ec::Plan ep = ec::make_plan(e, facts);
      choice::Inputs in;
      in.rows = m.rows;
      in.cols = m.cols;
      in.nnz = m.nnz;
      in.macko = {choice::macko_launch_bytes(m), m.delta_bits, macko::to_string(plan.schedule)};
      in.ec = choice::ec_cost(e, ep);
      const choice::Choice ch = choice::choose(in, facts);
      if (a.json) {
        j["macko_launch_bytes"] = in.macko.bytes;
        j["ec"] = summary_json(e);
        j["ec"]["launch_bytes"] = in.ec.bytes;
        j["ec"]["pieces"] = in.ec.pieces;
        j["predicted_us"] = {{"macko", ch.macko_us}, {"ec", ch.ec_us}};
        j["pick"] = choice::to_string(ch.pick);
        j["margin"] = ch.margin();
        j["pick_why"] = ch.why;
        j["choice_rules_measured_on"] = choice::rules_for(facts).measured_on;
      } else {
        const EcFigures<T> f(e);
        fmt::print("ec             {}-bit deltas, {} bytes per launch (x, y and the plan's tables included), {} pieces; "
                   "nnz share {}\n",
                   e.delta_bits, in.ec.bytes, in.ec.pieces, ec_shares(e, f));
        fmt::print("predicted      macko {:.1f} us, ec {:.1f} us (batch 1)\n", ch.macko_us, ch.ec_us);
        fmt::print("pick           {}\n", choice::to_string(ch.pick));
        for (const std::string& why : ch.why) fmt::print("  because      {}\n", why);
      }
    }
  }
  if (!skip.empty()) {
    if (a.json) {
      j["ec"] = nullptr;
      j["ec_not_planned"] = skip;
      if (a.formats != "macko") j["pick"] = "macko";  // the one format that runs it
    } else {
      fmt::print("ec             not planned: {}\n", skip);
    }
  }
  if (a.json) fmt::print("{}\n", j.dump(2));
}

// plan --check-results: the chooser against measured cases, and its rules refitted on them.
void print_choice_check(const std::string& path, bool json) {
  namespace fc = analysis::format_choice;
  const fc::Check c = fc::check(fc::read_results(path));
  if (c.cases.empty())
    throw Error(path + ": no case with both a macko and an ec row at batch 1 (ws_bench_macko --kernels macko,ec)" +
                (c.notes.empty() ? std::string() : "; " + c.notes.front()));
  if (json) {
    nlohmann::json j;
    auto& cs = j["cases"] = nlohmann::json::array();
    for (const fc::Case& k : c.cases)
      cs.push_back({{"file", k.file}, {"gpu", k.gpu}, {"rows", k.rows}, {"cols", k.cols}, {"density", k.density},
                    {"pattern", k.pattern}, {"value_type", k.value_type},
                    {"predicted_us", {{"macko", k.predicted.macko_us}, {"ec", k.predicted.ec_us}}},
                    {"measured_us", {{"macko", k.macko_us}, {"ec", k.ec_us}}}, {"pick", choice::to_string(k.predicted.pick)},
                    {"faster", choice::to_string(k.faster())}, {"right", k.right()}, {"loss", k.loss()}});
    j["right"] = c.right();
    j["share_right"] = c.share_right();
    j["worst_loss"] = c.worst_loss();
    j["target_met"] = c.target_met();
    j["notes"] = c.notes;
    auto& fs = j["refit"] = nlohmann::json::array();
    for (const fc::Fit& f : c.fits)
      fs.push_back({{"gpu", f.gpu}, {"stream_fraction", f.rules.stream_fraction}, {"ec_launch_us", f.rules.ec_launch_us},
                    {"ec_piece_start_us", f.rules.ec_piece_start_us}, {"ec_fit_error", f.rules.ec_fit_error},
                    {"macko_rows", f.macko_rows}, {"macko_p95_error", f.macko_p95_error}, {"ec_cases", f.ec_cases}});
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{:<68} {:>17} {:>17} {:<6} {:<6} {:>6}\n", "case", "predicted us", "measured us", "pick", "faster", "loss");
    for (const fc::Case& k : c.cases)
      fmt::print("{:<68} {:>7.1f} / {:>7.1f} {:>7.1f} / {:>7.1f} {:<6} {:<6} {:>5.1f}%\n",
                 fmt::format("{} {}x{} d={} {} {}", k.file, k.rows, k.cols, k.density, k.pattern, k.value_type),
                 k.predicted.macko_us, k.predicted.ec_us, k.macko_us, k.ec_us, choice::to_string(k.predicted.pick),
                 choice::to_string(k.faster()), 100 * k.loss());
    for (const std::string& n : c.notes) fmt::print("note           {}\n", n);
    fmt::print("right          {} of {} ({:.0f} %), worst loss {:.1f} % (target: >= 90 % right, loss <= 5 %)\n", c.right(),
               c.cases.size(), 100 * c.share_right(), 100 * c.worst_loss());
    for (const fc::Fit& f : c.fits)
      fmt::print("refit          {}: stream_fraction {:.4f} ({} MACKO rows, 95 % within {:.1f} %), ec_launch_us {:.2f}, "
                 "ec_piece_start_us {:.3f} ({} EC cases, largest error {:.1f} %)\n",
                 f.gpu, f.rules.stream_fraction, f.macko_rows, 100 * f.macko_p95_error, f.rules.ec_launch_us,
                 f.rules.ec_piece_start_us, f.ec_cases, 100 * f.rules.ec_fit_error);
  }
  if (!c.target_met())
    throw Error(fmt::format("plan --check-results: the faster format picked in {} of {} cases, worst loss {:.1f} %: the target "
                            "is >= 90 % and <= 5 %",
                            c.right(), c.cases.size(), 100 * c.worst_loss()));
}

}  // namespace

void register_format_commands(CLI::App& app) {
  // encode
  {
    auto* c = app.add_subcommand("encode", "encode a matrix (MatrixMarket, or a tensor of a safetensors/npy/npz file) as "
                                           "MACKO, EC-CSR, 2:4 or bitmap tiles");
    // Option storage must outlive parsing: it is owned by the callback (CLI11 binds references).
    struct Args {
      FormatOptions o;
      std::string in, out, format = "macko";
    };
    auto args = std::make_shared<Args>();
    c->add_option("--format", args->format, "macko; ec (EC-CSR: blocks of rows that share columns, docs/ec-spmv.md); 2:4 "
                                            "(compressed values and metadata; every group of 4 columns may hold at most 2 "
                                            "nonzeros); or bitmap (16 x 16 tiles for the batched tensor-core SpMM, "
                                            "docs/bitmap-spmm.md)")
        ->check(CLI::IsMember({"macko", "ec", "2:4", "bitmap"}))
        ->capture_default_str();
    add_format_options(c, args->o);
    add_ec_options(c, args->o);
    c->add_option("IN", args->in, "MatrixMarket file (a file, a pipe, or -), or a tensor: FILE.safetensors:NAME, "
                                  "INDEX.json:NAME, FILE.npy, FILE.npz:NAME")
        ->required();
    c->add_option("OUT", args->out, "output: a MACKO or EC file, or (ending in .safetensors) a safetensors file")->required();
    c->callback([args] {
      const bool to_safetensors = args->out.size() > 12 && args->out.ends_with(".safetensors");
      if ((args->format == "2:4" || args->format == "bitmap") && !to_safetensors)
        throw Error(args->out + ": a " + args->format + " matrix is written as safetensors: name the output *.safetensors");
      if (args->format == "ec" && to_safetensors)
        throw Error(args->out + ": an EC-CSR matrix is written as an EC file (.ec), not as safetensors");
      if (args->format != "ec" && args->o.threads != 0) throw Error("--threads applies to --format ec (the extraction)");
      if (args->format == "2:4" || args->format == "bitmap") refuse_macko_options(args->o, args->format);
      // The output replaces its file whole: written over the input, the source (and a checkpoint's
      // other tensors) would be gone.
      std::error_code same;
      if (std::filesystem::equivalent(io::split_tensor_spec(args->in).file, args->out, same))
        throw Error(args->out + ": is the input's file; encode writes a new file, so name another output");
      const std::optional<ec::EcParams> ecp =
          args->format == "ec" ? std::optional<ec::EcParams>(ec_params_of(args->o)) : std::nullopt;
      read_input(
          args->in, args->o,
          [](const AnyMacko&, const std::string& label) -> void {
            throw Error(label + ": is a MACKO matrix already (inspect or verify it)");
          },
          [&](const auto& rows, const std::string& label) {
            using T = typename std::decay_t<decltype(rows)>::value_type;
            if (ecp) {
              if constexpr (!kFloatValueType<T>) {
                refuse_int8(label, "EC-CSR");
              } else {
                const auto t0 = Clock::now();
                const Ec<T> a = encode_ec_within_budget(rows, *ecp, label);
                const double secs = seconds_since(t0);
                io::write_ec_file(args->out, a);
                const EcFigures<T> f(a);
                fmt::print("{}: ec {}x{}, nnz {}, stored {} (padding {:.4g}% of nnz), nnz share {}; {} bytes, effd {:.6g}, "
                           "reduction vs CSR-32 {:.4g}% ({}-bit deltas, {:.3g} s)\n",
                           args->out, a.rows, a.cols, a.nnz, f.st.stored_values, 100.0 * f.padding_per_nnz, ec_shares(a, f),
                           f.st.total(), a.effective_density(), 100.0 * f.reduction, a.delta_bits, secs);
              }
              return;
            }
            if (args->format == "bitmap") {
              if constexpr (!kFloatValueType<T>) {
                refuse_int8(label, "the bitmap-tile format");
              } else {
                const Bitmap<T> b = encode_bitmap_within_budget(rows, label);
                io::write_bitmap_safetensors<T>(args->out, b, {{"source", label}});
                fmt::print("{}: bitmap {}x{}, nnz {}, tiles {}, {} bytes, effd {:.6g}\n", args->out, b.rows, b.cols, b.nnz(),
                           b.tiles(), b.storage_bytes(), b.effective_density());
              }
              return;
            }
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
          },
          [](const AnyEc&, const std::string& label) { throw Error(label + ": is an EC-CSR matrix already (inspect or verify it)"); });
    });
  }
  // inspect
  {
    auto* c = app.add_subcommand("inspect", "print a MACKO, EC-CSR or bitmap-tile matrix's shape, padding and effective "
                                            "density (a MACKO or EC file, or MACKO or bitmap safetensors; for EC also its "
                                            "block sets and bytes by array); for other tensor files, list their tensors");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto arrays = std::make_shared<bool>(false);
    c->add_option("FILE", *path, "MACKO or EC file (a file, a pipe, or - for standard input), or a safetensors/npy/npz file")
        ->required();
    c->add_flag("--json", *json, "print JSON");
    c->add_flag("--arrays", *arrays, "also print the stored arrays: values and raw delta bytes, with the row pointers (MACKO) "
                                     "or each set's row indices, step offsets and bases (EC)");
    c->callback([=] {
      std::optional<AnyMacko> stored;
      if (*path != "-" && io::is_tensor_file(*path)) {
        auto f = io::open_tensor_file(*path, memory_budget());
        if (io::warpsparse_format(*f) == io::kMackoSafetensorsFormat) {
          stored = io::read_macko_safetensors(*f, memory_budget());
        } else if (io::warpsparse_format(*f) == io::kBitmapSafetensorsFormat) {
          if (*arrays)
            throw Error(*path +
                        ": holds a bitmap-tile matrix; --arrays prints a MACKO or EC matrix's arrays");
          std::visit([&](const auto& b) {
            if (*json) {
              auto j = bitmap_json(b);
              j["file"] = *path;
              fmt::print("{}\n", j.dump(2));
            } else {
              fmt::print("file           {}\n", *path);
              print_bitmap_summary(b);
            }
          }, io::read_bitmap_safetensors(*f, memory_budget()));
          return;
        } else {
          if (*arrays)
            throw Error(*path +
                        ": holds tensors, not a MACKO matrix; --arrays prints a MACKO or EC matrix's arrays");
          print_tensors(*f, *json);
          return;
        }
      } else {
        io::Input in = io::open_input(*path);
        const io::InputFormat format = io::sniff_format(in);
        if (format == io::InputFormat::matrix_market)
          throw Error(in.name + ": is a MatrixMarket file: inspect reads MACKO and EC files (encode it first, or verify it)");
        if (format == io::InputFormat::ec) {
          const AnyEc ec = io::read_ec(*in.stream, in.name, in.size, memory_budget());
          std::visit([&](const auto& a) {
            if (*json) {
              auto j = summary_json(a);
              j["file"] = *path;
              if (*arrays) add_arrays_json(j, a);
              fmt::print("{}\n", j.dump(2));
            } else {
              fmt::print("file           {}\n", *path);
              print_summary(a);
              print_sets(a);
              if (*arrays) print_arrays(a);
            }
          }, ec);
          return;
        }
        if (format == io::InputFormat::unknown)
          throw Error(in.name + ": byte 0: magic: not a MACKO or EC file (it starts with neither \"WSMACKO\\0\" nor "
                                "\"WSECCSR\\0\")");
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
    auto* c = app.add_subcommand("verify", "run the MACKO, EC or bitmap-tile model against the double oracle (a matrix to "
                                           "encode with --format ec or bitmap: also decode(encode(M)) == M)");
    auto o = std::make_shared<FormatOptions>();
    auto path = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("macko");
    auto seed = std::make_shared<std::uint64_t>(1);
    auto batch = std::make_shared<int>(1);
    auto row_lanes = std::make_shared<int>(macko::kWarpLanes);
    add_format_options(c, *o);
    add_ec_options(c, *o);
    c->add_option("FILE_OR_MTX", *path, "MACKO or EC file, bitmap safetensors, or a matrix to encode first (MatrixMarket, "
                                        "or a tensor)")
        ->required();
    c->add_option("--format", *format, "what a matrix is encoded as before verifying: macko, ec or bitmap (a MACKO, EC or "
                                       "bitmap file is verified as stored)")
        ->check(CLI::IsMember({"macko", "ec", "bitmap"}))
        ->capture_default_str();
    c->add_option("--seed", *seed, "seed of the random x")->transform(whole(0, INT64_MAX));
    c->add_option("--batch", *batch,
                  "vectors multiplied at once, each checked against its own oracle: MACKO 1, 2, 4 or 8 "
                  "(Schedule::batch); bitmap tiles 1 to 16")
        ->transform(whole(1, bitmap::kBatchMax));
    c->add_option(
         "--row-lanes", *row_lanes,
         "lanes per row: 32 (a warp per row) or 16 (two rows per warp; Schedule::row_lanes, one vector)")
        ->transform(one_of({16, 32}));
    c->callback([=] {
      if (*row_lanes != macko::kWarpLanes && *batch > 1)
        throw Error(fmt::format("verify: --row-lanes {} (two rows per warp) multiplies one vector; --batch {} needs "
                                "--row-lanes 32",
                                *row_lanes, *batch));
      const bool to_ec = *format == "ec", to_bitmap = *format == "bitmap";
      if (!to_ec && o->threads != 0) throw Error("--threads applies to --format ec (the extraction)");
      if (to_bitmap) refuse_macko_options(*o, *format);
      // A stored matrix is verified as it is stored: --format names an encoding to make.
      auto stored = [&](const std::string& label, const std::string& kind) {
        if (to_ec || to_bitmap)
          throw Error(label + ": is " + kind + " matrix; --format " + *format +
                      " applies to a matrix to encode");
      };
      const std::optional<ec::EcParams> ecp = to_ec ? std::optional<ec::EcParams>(ec_params_of(*o)) : std::nullopt;
      auto check_bitmap = [&](const auto& b, const std::string& label) {
        if (*row_lanes != macko::kWarpLanes) throw Error(label + ": --row-lanes applies to MACKO");
        fmt::print("file           {}\n", *path);
        print_bitmap_summary(b);
        verify_bitmap(b, *seed, *batch);
        fmt::print("ok\n");
      };
      auto verify_macko = [&](const auto& a) {
        if (!macko::valid_batch(*batch))
          throw Error(fmt::format("verify: --batch {}: MACKO multiplies 1, 2, 4 or 8 vectors, not '{}'", *batch, *batch));
        fmt::print("file           {}\n", *path);
        print_summary(a);
        if (*batch > 1) fmt::print("batch          {} vectors at once\n", *batch);
        report_verify(verify_within_budget(a, *seed, {1, 2, 4, 8}, *batch, *row_lanes), *row_lanes);
        fmt::print("ok\n");
      };
      // source: the matrix an EC encoding was made from (decode is compared with it), or null.
      auto verify_ec = [&](const auto& a, const SparseRows<typename std::decay_t<decltype(a)>::value_type>* source,
                           const std::string& label) {
        if (*batch != 1 || *row_lanes != macko::kWarpLanes)
          throw Error(label + ": --batch and --row-lanes apply to MACKO; the EC model multiplies one vector with a warp per piece");
        fmt::print("file           {}\n", *path);
        print_summary(a);
        report_ec_verify(a, *seed, source);
        fmt::print("ok\n");
      };
      read_input(
          *path, *o,
          [&](const AnyMacko& m, const std::string& label) {
            stored(label, "a MACKO");
            std::visit(verify_macko, m);
          },
          [&](const auto& rows, const std::string& label) {
            using T = typename std::decay_t<decltype(rows)>::value_type;
            if (to_bitmap) {
              if constexpr (!kFloatValueType<T>) {
                refuse_int8(label, "the bitmap-tile format");
              } else {
                const Bitmap<T> b = encode_bitmap_within_budget(rows, label);
                if (const std::string d = rows_difference(decode_bitmap(b), rows); !d.empty())
                  throw Error("verify: " + label + ": decode(encode(M)) differs from M: " + d);
                check_bitmap(b, label);
              }
              return;
            }
            if (!ecp) return verify_macko(encode_within_budget(rows, params_of(*o), label));
            if constexpr (!kFloatValueType<T>) {
              refuse_int8(label, "EC-CSR");
            } else {
              verify_ec(encode_ec_within_budget(rows, *ecp, label), &rows, label);
            }
          },
          [&](const AnyEc& m, const std::string& label) {
            stored(label, "an EC-CSR");
            refuse_encoding_options(*o, label, "EC-CSR");
            std::visit([&](const auto& a) { verify_ec(a, nullptr, label); }, m);
          },
          [&](const io::AnyBitmap& m, const std::string& label) {
            stored(label, "a bitmap-tile");
            std::visit([&](const auto& b) { check_bitmap(b, label); }, m);
          });
    });
  }
  // plan
  {
    auto* c = app.add_subcommand("plan", "print the MACKO schedule that would run on a GPU for a matrix (with --batch >= 2, "
                                         "also which kernel multiplies the batch: MACKO's or the bitmap-tile SpMM) and, "
                                         "beside it, EC-SpMV's plan, which of the two is predicted faster and why; or check those "
                                         "predictions on benchmark results (--check-results)");
    auto a = std::make_shared<PlanArgs>();
    add_format_options(c, a->o);
    add_ec_options(c, a->o);
    auto* file = c->add_option("FILE_OR_MTX", a->path, "MACKO or EC file, or a matrix to encode first (MatrixMarket, or a tensor)");
    std::string keys;
    for (const KnownGpu& g : kKnownGpus) keys += std::string(keys.empty() ? "" : ", ") + std::string(g.key);
    auto* gpu = c->add_option("--gpu", a->gpu, "the GPU to plan for: " + keys)->capture_default_str();
    auto* batch =
        c->add_option(
             "--batch", a->batch,
             "vectors multiplied at once; from 2 on, plan says which kernel multiplies them (MACKO's, "
             "compiled for 1, 2, 4 and 8, a batch in between running as the next of them, or the bitmap-tile "
             "tensor-core SpMM) and why; EC multiplies one")
            ->transform(whole(1, bitmap::kBatchMax));
    auto* formats =
        c->add_option("--formats", a->formats,
                      "macko,ec: both, and which is predicted faster (EC's extraction takes tens of "
                      "seconds on big matrices, its progress on stderr); macko: MACKO's schedule only")
            ->check(CLI::IsMember({"macko,ec", "ec,macko", "macko"}))
            ->capture_default_str();
    c->add_option("--check-results", a->check,
                  "instead of a matrix: ws_bench_macko results (a macko_*.csv, a <gpu> folder of "
                  "them, or a results root) whose cases have macko and ec rows; prints the "
                  "predicted pick against the measured faster format case by case, and the "
                  "chooser's coefficients refitted on them; exit 1 below 90 % right picks or "
                  "above a 5 % loss")
        ->excludes(file)
        ->excludes(gpu)  // the results name their GPUs
        ->excludes(batch)
        ->excludes(formats);
    c->add_flag("--json", a->json, "print JSON");
    c->callback([a] {
      if (!a->check.empty()) {
        const char* given = a->o.threads != 0 ? "--threads" : shaping_option_given(a->o);
        if (given)
          throw Error(std::string("plan --check-results: ") + given + " applies to a matrix to plan");
        return print_choice_check(a->check, a->json);
      }
      if (a->path.empty())
        throw Error("plan: name a matrix (FILE_OR_MTX), or results to check (--check-results)");
      read_input(
          a->path, a->o,
          [&](const AnyMacko& m, const std::string& label) {
            std::visit([&](const auto& mk) {
              using T = typename std::decay_t<decltype(mk)>::value_type;
              // EC is encoded from the matrix the MACKO file holds (decode drops its padding).
              if constexpr (kEcKernelType<T>)
                plan_formats(*a, mk, [&] { return encode_ec_within_budget(decode_macko(mk), plan_ec_params(*a), label); });
              else
                plan_formats(*a, mk, nullptr);
            }, m);
          },
          [&](const auto& rows, const std::string& label) {
            using T = typename std::decay_t<decltype(rows)>::value_type;
            if constexpr (kEcKernelType<T>)
              plan_formats(*a, encode_within_budget(rows, params_of(a->o), label),
                           [&] { return encode_ec_within_budget(rows, plan_ec_params(*a), label); });
            else
              plan_formats(*a, encode_within_budget(rows, params_of(a->o), label), nullptr);
          },
          [&](const AnyEc& m, const std::string& label) {
            refuse_encoding_options(a->o, label, "EC-CSR", true);
            if (a->o.threads != 0)
              throw Error(label +
                          ": holds EC-CSR already, so plan extracts nothing: --threads applies to a matrix "
                          "to encode");
            std::visit([&](const auto& e) {
              // MACKO is encoded from the matrix the EC file holds; EC runs as stored.
              plan_formats(*a, encode_within_budget(decode_ec(e), params_of(a->o), label), [&]() -> const auto& { return e; });
            }, m);
          });
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
      if (o->transpose) throw Error("demo: --transpose applies to tensors; demo generates its matrix");
      dispatch_value_type(value_type_or(*o, ValueType::fp16), [&](auto tag) {
        using T = decltype(tag);
        analysis::PatternSpec spec;
        spec.kind = analysis::Pattern::exact_nnz;
        spec.density = *dens;
        // exact_nnz rows: ceil(d · cols) nonzeros each (at most 2^31 · 2^24, so the product fits).
        const auto rows_u = static_cast<std::uint64_t>(*rows), cols_u = static_cast<std::uint64_t>(*cols);
        const std::uint64_t nnz =
            static_cast<std::uint64_t>(std::ceil(*dens * static_cast<double>(*cols))) * rows_u;
        memory_budget().require(nnz * (sizeof(T) + 4) + (rows_u + 1) * 8,
                                fmt::format("demo: generating {} x {} at density {}", *rows, *cols, *dens));
        // The check verify_within_budget makes after encoding, made here too, so a matrix too large
        // to verify is refused before the seconds of generating and encoding it.
        memory_budget().require(
            macko_verify_bytes<T>(rows_u, cols_u, nnz, 1),
            fmt::format("demo: verifying a {} x {} matrix at density {}", *rows, *cols, *dens));
        const SparseRows<T> m = analysis::generate<T>(spec, *rows, *cols, *seed);
        const MackoParams p = params_of(*o);
        // Encoder throughput: best of 3 runs (one core).
        Macko<T> a;
        double enc = 1e300;
        for (int i = 0; i < 3; ++i) {
          a = Macko<T>{};  // one encoding held at a time, as the budget check counts
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
