// Storage models: effective density (effd = stored bits / dense bits, macko-paper.txt §3, eq. 2)
// of MACKO and the reference formats, the exact finite-row padding model of this repository's
// MACKO encoder, crossover densities, and a bandwidth roofline.
//
// Two flavours of every closed form:
//   * "printed": the negligible terms dropped, as macko-paper.txt eqs. 4–10 print them;
//   * "kept": for a given R×C, row pointers ((R+1)·32 bits), array-end alignment of the MACKO
//     value and delta arrays (macko::padded_length), and — for MACKO's expected and worst case —
//     the exact finite-row padding instead of the infinite-row limit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace warpsparse::analysis {

// A matrix shape; rows == 0 or cols == 0 means "unbounded" (printed model, negligible terms dropped).
struct Shape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  bool bounded() const { return rows > 0 && cols > 0; }
};

struct StorageConfig {
  int value_bits = 16;  // b_val: 8, 16 or 32
  int delta_bits = 4;   // b_Δ: 1, 2, 4 or 8
  Shape shape;          // unbounded: printed forms
  std::int64_t tile_rows = 128;  // Tiled-CSL tile (paper §3.2: "at least 128×64")
  std::int64_t tile_cols = 64;
  void validate() const;  // throws Error
};

// MACKO's three scenarios (paper §4.2).
struct MackoEffd {
  double best = 0, expected = 0, worst = 0;
};

// z = (1 − d)^(2^b_Δ): the probability that 2^b_Δ consecutive entries are all zero.
double run_probability(double density, int delta_bits);

// Printed forms (eqs. 8–10).
double macko_best_printed(double d, int value_bits, int delta_bits);
double macko_expected_printed(double d, int value_bits, int delta_bits);
double macko_worst_printed(double d, int value_bits, int delta_bits);

// Printed when cfg.shape is unbounded, kept otherwise.
MackoEffd macko_effd(double d, const StorageConfig& cfg);

enum class Format { dense, csr32, csr16, bitmask, tiled_csl, q8, q4, macko_best, macko_expected, macko_worst };
std::string format_name(Format f);
std::vector<Format> all_formats();
double format_effd(Format f, double d, const StorageConfig& cfg);

// ----- Exact finite-row padding model -------------------------------------------------------
// Padding elements the encoder emits in one row of C columns: for every nonzero, ⌊g/2^b_Δ⌋ where
// g is the zero run in front of it (the run from column 0 counts: the row starts before column
// 0); the run after the last nonzero costs nothing unless trailing padding is emitted.
struct PaddingMoments {
  double mean = 0;
  double variance = 0;
};
// Entries nonzero independently with probability d.
PaddingMoments exact_padding_bernoulli(std::int64_t cols, double d, int delta_bits, bool trailing = false);
// Exactly k nonzeros, all C(C, k) placements equally likely.
PaddingMoments exact_padding_exact_k(std::int64_t cols, std::int64_t k, int delta_bits, bool trailing = false);
// The paper's infinite-row term per row: C · d · z/(1 − z).
double asymptotic_padding_per_row(std::int64_t cols, double d, int delta_bits);
// Largest padding a row with k ≥ 1 nonzeros can need: ⌊(C − k)/2^b_Δ⌋ (every zero counted).
std::int64_t worst_padding_exact_k(std::int64_t cols, std::int64_t k, int delta_bits);

// ----- Crossovers -------------------------------------------------------------------------------
struct Crossover {
  std::string name;       // what equals what
  std::string scenario;   // best / expected / worst / "-"
  bool found = false;     // false: no root in (0, 1]
  double density = 0;     // the root
  std::string claim;      // what the seeds say ("" if nothing)
  std::string source;     // where
  double claimed_density = -1;  // the claim as a density (<0: none)
  int claimed_decimals = 2;     // digits the claim is printed with
  // "agrees at printed precision" (within half a unit of the claim's last digit), "DISAGREES…",
  // or "no claim".
  std::string verdict() const;
};
// The crossover densities (vs dense, CSR16, CSR32, bitmask, Q8, Q4, effd = 0.5, and between
// delta widths) for one value width, by bracketing root finding (Boost.Math TOMS 748).
std::vector<Crossover> crossovers(const StorageConfig& cfg);

// ----- Roofline ---------------------------------------------------------------------------------
inline constexpr double kDefaultBandwidth = 3.0e12;  // measured H100 copy bandwidth, bytes/s (read+write)

struct RooflinePoint {
  double matrix_bytes = 0;  // stored matrix
  double vector_bytes = 0;  // x read once, y written once
  double seconds = 0;       // (matrix + vector) / bandwidth
  double speedup_vs_dense = 0;
};
RooflinePoint roofline(Format f, double d, const StorageConfig& cfg, double bandwidth = kDefaultBandwidth);

// The paper's LLM shapes (macko-paper.txt Appendix D), as {rows, cols}.
std::vector<Shape> paper_shapes();

}  // namespace warpsparse::analysis
