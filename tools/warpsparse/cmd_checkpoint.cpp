// analyze and prune: a user's own checkpoint (safetensors, a sharded index, .npy, .npz), tensor by
// tensor, from mapped files.
#include <fmt/core.h>
#include <regex.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "analysis/checkpoint.hpp"
#include "notebooks_cpp/notebooks.hpp"
#include "reference/io/format_safetensors.hpp"
#include "reference/io/output_file.hpp"
#include "reference/io/tensor_file.hpp"
#include "reference/sparse/prune.hpp"
#include "tools/warpsparse/commands.hpp"

namespace warpsparse::cli {

namespace {

// A progress line on stderr: a bar redrawn in place on a terminal, a line per tenth otherwise.
class ProgressLine {
 public:
  explicit ProgressLine(std::string what) : what_(std::move(what)), tty_(isatty(STDERR_FILENO) != 0) {}
  void update(std::size_t done, std::size_t total, std::uint64_t bytes, std::uint64_t bytes_total, double seconds) {
    const double frac = bytes_total > 0 ? double(bytes) / double(bytes_total) : double(done) / double(std::max<std::size_t>(total, 1));
    const double eta = frac > 0 ? seconds * (1 - frac) / frac : 0;
    const int width = 24, fill = static_cast<int>(frac * width + 0.5);
    const std::string line = fmt::format("{} [{}{}] {}/{} tensors, {} of {}, {:.0f} s, ETA {:.0f} s", what_, std::string(fill, '='),
                                         std::string(width - fill, ' '), done, total, human_bytes(bytes), human_bytes(bytes_total),
                                         seconds, eta);
    if (tty_) {
      fmt::print(stderr, "\r{}   ", line);
      if (done == total) fmt::print(stderr, "\n");
    } else if (static_cast<int>(frac * 10) > last_tenth_ || done == total) {
      last_tenth_ = static_cast<int>(frac * 10);
      fmt::print(stderr, "{}\n", line);
    }
    std::fflush(stderr);
  }

 private:
  std::string what_;
  bool tty_;
  int last_tenth_ = -1;
};

void print_analysis_table(const analysis::CheckpointAnalysis& a) {
  fmt::print("{:<44} {:>14} {:<5} {:>7} {:>11} {:>4} {:>8} {:>8} {:>8} {:<9} {:>13}\n", "tensor", "shape", "dtype", "density",
             "rows p10-90", "N:M", "MACKO b4", "CSR32", "bitmask", "fewest", "H100 / H200");
  std::size_t skipped = 0;
  for (const auto& t : a.tensors) {
    if (!t.skipped.empty()) {
      ++skipped;
      continue;
    }
    const auto effd = [&](const std::string& f) {
      for (const auto& x : t.formats)
        if (x.format == f) return fmt::format("{:.3f}", x.effd);
      return std::string("-");
    };
    const std::string name = t.name.size() > 44 ? "..." + t.name.substr(t.name.size() - 41) : t.name;
    fmt::print("{:<44} {:>14} {:<5} {:>7.3f} {:>5.2f}-{:<5.2f} {:>4} {:>8} {:>8} {:>8} {:<9} {:>5.2f}x/{:.2f}x\n", name,
               fmt::format("{}x{}", t.rows, t.cols), t.dtype, t.density, t.row_density[1], t.row_density[3],
               t.nm.empty() ? "-" : t.nm, effd("macko-b4"), effd("csr32"), effd("bitmask"), t.best, t.speedup_h100,
               t.speedup_h200);
  }
  fmt::print("\ntotal over {} analysed tensors ({} skipped: not 2-D, or a dtype no matrix is read from):\n",
             a.tensors.size() - skipped, skipped);
  for (const auto& f : analysis::checkpoint_totals(a)) fmt::print("  {:<9} {:>12}  effd {:.4f}\n", f.format, human_bytes(f.bytes), f.effd);
  fmt::print("{} bytes of tensors in {:.1f} s on {} threads; predicted speedups: MACKO (4-bit deltas) over a dense "
             "GEMV, roofline with each GPU's measured copy bandwidth and latency\n",
             human_bytes(a.bytes_read), a.seconds, a.threads);
}

// ---- prune ----

// A tensor-name pattern: a POSIX extended regular expression (grep -E), matched anywhere in the
// name. Not std::regex: its backtracking takes exponential time on patterns such as '(.*)*x',
// while glibc matches a pattern without back-references in time linear in the name. So
// back-references are refused, and so is \d, which POSIX reads as a plain 'd'.
class NamePattern {
 public:
  NamePattern(const std::string& pattern, const std::string& option) {
    bool bracket = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const char ch = pattern[i];
      if (bracket) {
        if (ch == '[' && i + 1 < pattern.size() &&
            (pattern[i + 1] == ':' || pattern[i + 1] == '.' || pattern[i + 1] == '=')) {
          const std::size_t end = pattern.find(std::string{pattern[i + 1], ']'}, i + 2);
          i = end == std::string::npos ? pattern.size() : end + 1;
        } else if (ch == ']') {
          bracket = false;
        }
      } else if (ch == '[') {
        bracket = true;
        if (i + 1 < pattern.size() && pattern[i + 1] == '^') ++i;
        if (i + 1 < pattern.size() && pattern[i + 1] == ']') ++i;  // a leading ']' is a member
      } else if (ch == '\\' && i + 1 < pattern.size()) {
        const char next = pattern[++i];
        if (next >= '1' && next <= '9')
          throw Error(
              fmt::format("prune: {} '{}': back-references (\\{}) are not supported", option, pattern, next));
        if (next == 'd' || next == 'D')
          throw Error(fmt::format("prune: {} '{}': write [0-9] for \\d (POSIX extended regular expressions)",
                                  option, pattern));
      }
    }
    const int rc = regcomp(&re_, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      regerror(rc, &re_, why, sizeof why);
      throw Error(
          fmt::format("prune: {} '{}' is not a POSIX extended regular expression: {}", option, pattern, why));
    }
  }
  NamePattern(const NamePattern&) = delete;
  NamePattern& operator=(const NamePattern&) = delete;
  ~NamePattern() { regfree(&re_); }

  // The whole name, a NUL inside it included (REG_STARTEND bounds the match by length).
  bool found_in(const std::string& name) const {
    regmatch_t range{0, static_cast<regoff_t>(name.size())};
    return regexec(&re_, name.c_str(), 0, &range, REG_STARTEND) == 0;
  }

 private:
  regex_t re_{};
};

struct PruneArgs {
  std::string in, out, per = "row", nm, include = ".*", exclude = "embed|lm_head";
  double density = -1;
  bool transpose = false;
};

// The pruned bytes of one tensor, in C order: along rows of [out, in] (per row, per tensor or N:M
// within each row: `nm`, parsed once from --nm), the kept elements' bits unchanged, the rest zero.
std::vector<std::uint8_t> pruned_bytes(const PruneArgs& a, const prune::NM& nm, const io::TensorInfo& t,
                                       std::span<const std::uint8_t> data, std::int64_t& kept) {
  const auto shape = io::matrix_shape(t, a.transpose);
  const std::int64_t rows = shape.first, cols = shape.second;
  const std::size_t item = t.item_bytes;
  const bool row_major = t.fortran_order == a.transpose;
  // Byte offset of matrix element (r, c) in the source, and in the C-order output of the tensor's own shape.
  const auto src = [&](std::int64_t r, std::int64_t c) {
    return static_cast<std::size_t>(row_major ? r * cols + c : c * rows + r) * item;
  };
  const auto dst = [&](std::int64_t r, std::int64_t c) {
    return static_cast<std::size_t>(a.transpose ? c * rows + r : r * cols + c) * item;
  };
  const auto magnitude = [&](std::int64_t r, std::int64_t c) {
    return prune::magnitude(io::element_float(t, data, static_cast<std::uint64_t>(src(r, c) / item)));
  };
  std::vector<std::uint8_t> out(data.size(), 0);
  std::vector<float> mag;
  std::vector<std::uint8_t> keep;
  kept = 0;
  auto apply_row = [&](std::int64_t r, const std::uint8_t* mask) {
    for (std::int64_t c = 0; c < cols; ++c)
      if (mask[c]) {
        std::memcpy(out.data() + dst(r, c), data.data() + src(r, c), item);
        kept += magnitude(r, c) != 0;  // nonzeros kept (a group may keep a zero)
      }
  };
  if (a.per == "tensor" && a.nm.empty()) {
    mag.resize(static_cast<std::size_t>(rows * cols));
    keep.resize(mag.size());
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) mag[static_cast<std::size_t>(r * cols + c)] = magnitude(r, c);
    prune::keep_largest(mag, prune::kept_count(a.density, rows * cols), keep);
    for (std::int64_t r = 0; r < rows; ++r) apply_row(r, keep.data() + r * cols);
    return out;
  }
  const int n = nm.n, m = nm.m;
  mag.resize(static_cast<std::size_t>(cols));
  keep.resize(mag.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) mag[static_cast<std::size_t>(c)] = magnitude(r, c);
    if (m > 0) prune::keep_n_of_m(mag, n, m, keep);
    else prune::keep_largest(mag, prune::kept_count(a.density, cols), keep);
    apply_row(r, keep.data());
  }
  return out;
}

void run_prune(const PruneArgs& a) {
  const bool by_density = a.density >= 0;
  if (by_density == !a.nm.empty()) throw Error("prune: give --density D or --nm N:M (one of them)");
  prune::NM nm;  // {0, 0}: by density
  try {
    if (!a.nm.empty()) nm = prune::parse_nm(a.nm);
  } catch (const Error& e) {
    throw Error(std::string("prune: --nm ") + e.what());
  }
  if (!a.out.ends_with(".safetensors")) throw Error(a.out + ": prune writes safetensors: name the output *.safetensors");
  const NamePattern include(a.include, "--include"), exclude(a.exclude, "--exclude");
  auto f = io::open_tensor_file(a.in, memory_budget());
  const std::string stem = std::filesystem::path(a.in).stem().string();
  std::vector<io::TensorOut> outs;
  std::vector<const io::TensorInfo*> pruned;
  std::uint64_t largest = 0, total = 0;
  for (const auto& t : f->tensors()) {
    const std::string name = t.name.empty() ? stem : t.name;
    const std::string& dtype = t.safetensors_dtype;
    if (dtype.empty()) throw Error(t.label() + ": dtype " + t.dtype_name + " has no safetensors equivalent");
    const bool prune_it =
        t.shape.size() == 2 &&
        (t.dtype == io::DType::f16 || t.dtype == io::DType::bf16 || t.dtype == io::DType::f32) &&
        include.found_in(name) && !(a.exclude.size() && exclude.found_in(name));
    if (prune_it) {
      pruned.push_back(&t);
      largest = std::max(largest, t.bytes + t.elements() * 5);  // output copy, magnitudes, mask
    }
    total += t.bytes;
    // A Fortran-order .npy that is not pruned is still written in C order.
    std::vector<std::int64_t> shape = t.shape;
    outs.push_back({name, dtype, shape, t.bytes, {}});
  }
  if (pruned.empty()) throw Error(a.in + ": no tensor to prune (2-D F16/BF16/F32, matching --include and not --exclude)");
  memory_budget().require(largest, a.in + ": pruning its largest tensor");
  ProgressLine progress("prune");
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t done = 0;
  std::uint64_t bytes_done = 0;
  std::int64_t kept_total = 0, elems_total = 0;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const io::TensorInfo& t = f->tensors()[i];
    const bool prune_it = std::find(pruned.begin(), pruned.end(), &t) != pruned.end();
    outs[i].write = [&, prune_it](std::ostream& os) {
      const auto data = f->data(t);
      if (prune_it) {
        std::int64_t kept = 0;
        const auto bytes = pruned_bytes(a, nm, t, data, kept);
        kept_total += kept;
        elems_total += static_cast<std::int64_t>(t.elements());
        os.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      } else if (t.fortran_order && t.shape.size() == 2) {
        // C order for the output: element (i, j) of shape [R, C] from the column-major source.
        const std::size_t item = t.item_bytes;
        const auto R = t.shape[0], C = t.shape[1];
        std::vector<std::uint8_t> row(static_cast<std::size_t>(C) * item);
        for (std::int64_t r = 0; r < R; ++r) {
          for (std::int64_t c = 0; c < C; ++c)
            std::memcpy(row.data() + c * item, data.data() + static_cast<std::size_t>(c * R + r) * item, item);
          os.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
        }
      } else {
        require(!t.fortran_order || t.shape.size() < 2, t.label() + ": a Fortran-order array of more than 2 dimensions");
        os.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
      }
      f->release(t);
      bytes_done += t.bytes;
      progress.update(++done, outs.size(), bytes_done, total,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    };
  }
  std::map<std::string, std::string> meta = f->metadata();
  meta["warpsparse.pruned"] =
      a.nm.empty() ? fmt::format("magnitude, per {}, density {}", a.per, a.density) : fmt::format("magnitude, {} along rows", a.nm);
  io::write_safetensors(a.out, outs, meta);
  fmt::print("{}: {} tensors, {} pruned ({}), kept {} nonzeros of {} elements (density {:.4f})\n", a.out, outs.size(), pruned.size(),
             meta["warpsparse.pruned"], kept_total, elems_total, elems_total ? double(kept_total) / double(elems_total) : 0.0);
}

}  // namespace

void register_checkpoint_commands(CLI::App& app) {
  // ---- analyze ----
  {
    struct Args {
      std::string path, out;
      bool transpose = false, json = false;
      int threads = 0;
    };
    auto a = std::make_shared<Args>();
    auto* c = app.add_subcommand("analyze", "every 2-D weight of a checkpoint in every sparse format: density, row "
                                            "spread, N:M, bytes of MACKO/CSR/bitmask/2:4 (encoded), predicted speedups");
    c->add_option("CKPT", a->path, "a .safetensors file, a sharded checkpoint's model.safetensors.index.json, .npy or .npz")->required();
    c->add_option("--out", a->out, "also write analysis.csv, analysis.json and checkpoint.html (with figures) into this folder");
    c->add_flag("--json", a->json, "print JSON instead of the table");
    c->add_flag("--transpose", a->transpose, "tensors are [in, out] (default [out, in], as torch's Linear stores them)");
    c->add_option("--threads", a->threads, "worker threads (default: every core, as far as the memory budget allows)")
        ->transform(whole(1, 1024));
    c->callback([a] {
      auto f = io::open_tensor_file(a->path, memory_budget());
      if (!a->out.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(a->out, ec);
        require(!ec && std::filesystem::is_directory(a->out), a->out + ": cannot create the output folder");
      }
      analysis::AnalyzeOptions o;
      o.transpose = a->transpose;
      o.threads = a->threads;
      o.budget = memory_budget();
      ProgressLine progress("analyze");
      o.progress = [&](const analysis::AnalyzeProgress& p) { progress.update(p.done, p.total, p.bytes_done, p.bytes_total, p.seconds); };
      const analysis::CheckpointAnalysis r = analysis::analyze_checkpoint(*f, o);
      if (a->json) fmt::print("{}\n", analysis::analysis_json(r).dump(2));
      else print_analysis_table(r);
      if (!a->out.empty()) {
        const std::filesystem::path dir(a->out);
        io::OutputFile csv((dir / "analysis.csv").string());
        analysis::write_analysis_csv(csv.stream(), r);
        csv.commit();
        io::write_file((dir / "analysis.json").string(), analysis::analysis_json(r).dump(2) + "\n");
        const std::string html = notebooks::checkpoint_report(r, a->out);
        fmt::print(stderr, "wrote {}, analysis.csv and analysis.json\n", html);
      }
    });
  }
  // ---- prune ----
  {
    auto a = std::make_shared<PruneArgs>();
    auto* c = app.add_subcommand(
        "prune",
        "magnitude pruning of a checkpoint's 2-D weights (per row, per tensor, or N:M), written as safetensors with zeros in "
        "place. Magnitude only: activation-aware methods (Wanda, SparseGPT) need calibration data and are not implemented");
    c->add_option("IN", a->in, "a .safetensors file, a sharded checkpoint's index .json, .npy or .npz")->required();
    c->add_option("OUT", a->out, "the pruned checkpoint, one .safetensors file")->required();
    c->add_option("--density", a->density, "fraction of each row's (or tensor's) elements to keep")->check(fraction());
    auto* per = c->add_option("--per", a->per, "row or tensor: where the --density threshold is taken")
                    ->check(CLI::IsMember({"row", "tensor"}))
                    ->capture_default_str();
    c->add_option("--nm", a->nm,
                  "N:M instead of --density: keep the N largest of every M consecutive columns (2:4, 4:8)")
        ->excludes(per);
    c->add_option("--include", a->include,
                  "prune tensors whose name matches this POSIX extended regular expression (grep -E)")
        ->capture_default_str();
    c->add_option("--exclude", a->exclude, "but not those matching this one ('' excludes none)")->capture_default_str();
    c->add_flag("--transpose", a->transpose, "tensors are [in, out]: rows (and N:M groups) run along the first dimension");
    c->callback([a] { run_prune(*a); });
  }
}

}  // namespace warpsparse::cli
