// The encoder's parameters and the extraction's result (ec_extract.hpp produces it, ec_format.hpp
// lays it out), apart so the format does not depend on how blocks were found.
#pragma once
#include <cstdint>
#include <vector>

#include "reference/ec/ec_layout.hpp"

namespace warpsparse::ec {

struct EcParams {
  int delta_bits = 8;   // 4 or 8 (padding slots depend on it, so extraction does)
  int max_group = 8;    // 8 (kernels) or 16 (host ablation); 1 disables pairing
  int min_steps = 1;    // a usable block fills >= min_steps steps (lanes · vec slots for G >= 2)
  int threads = 0;      // 0 = std::thread::hardware_concurrency()
  int candidates = 16;  // top-k candidates per unit per round (speed only: never changes the result)
  // Host-only layout knobs for toy cases (docs/ec-spmv.md test plan, "Paper toy": w = v = 2) of
  // the extraction alone; the format and the kernels use kLanes and vec = 4.
  int lanes = kLanes;   // w
  int vec = 4;          // v_G for G >= 2
};

// A block of G >= 2 rows: `rows` (G distinct matrix rows, the first pair member's, then the
// second's) share `cols` (ascending), and cols is exactly the columns of
// fill_long(cols, vec, delta_bits, min_steps, lanes) (fill_long(...).used == cols.size(), per_lane > 0).
struct EcUnit {
  int group = 0;
  std::vector<std::uint32_t> rows;
  std::vector<std::int32_t> cols;
  bool operator==(const EcUnit&) const = default;
};

struct EcExtraction {
  std::int64_t rows = 0, cols = 0;
  std::vector<EcUnit> blocks;                       // every G >= 2 block, in output order
  std::vector<std::vector<std::int32_t>> residual;  // per matrix row: its G = 1 columns, ascending
  // Per pairing level (log2(max_group) of them): rounds run (the last made no pair), pairs made,
  // wall seconds (pairing plus the level's output of blocks).
  std::vector<int> rounds;
  std::vector<std::int64_t> pairs;
  std::vector<double> seconds;
};

}  // namespace warpsparse::ec
