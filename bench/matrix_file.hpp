// A user's own matrix for the benchmarks (--matrix FILE[:TENSOR]): a tensor of a safetensors,
// index, .npy or .npz file, or a MatrixMarket file. Declared without the value types so that nvcc
// translation units can call it (matrix_file.cpp does the reading, with warpsparse::io).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace warpsparse::bench {

struct MatrixFileInfo {
  std::string label;  // FILE:TENSOR as named
  std::int64_t rows = 0, cols = 0;
};

// The shape, from the header alone (a MatrixMarket file: its size line).
MatrixFileInfo matrix_file_info(const std::string& spec, bool transpose);

// The matrix as bf16 bits, row-major (rows x cols), zeros included: the 2:4 benchmark's A.
std::vector<std::uint16_t> matrix_file_bf16(const std::string& spec, bool transpose, MatrixFileInfo& info);

}  // namespace warpsparse::bench
