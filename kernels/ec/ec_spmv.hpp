// Host API of the EC-SpMV kernels (docs/ec-spmv.md, "Kernel"): upload a host Ec<T> with its plan
// (ec::make_plan) and run y = alpha*A*x + beta*y. Kernel 1 runs one warp per piece and stores each
// piece's G warp sums to a partials buffer; kernel 2 adds each row's partials in plan order and
// applies the epilogue. Bit for bit the warp model reference/ec/ec_spmv_model.hpp. Host code
// includes this header only; ec_spmv.cu instantiates.
//   T  (matrix values and x): half or bfloat16
//   TY (y): T or float
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "kernels/common/device_buffer.hpp"
#include "reference/ec/ec_format.hpp"
#include "reference/ec/ec_schedule.hpp"

namespace warpsparse::gpu {

// The compiled (G, v, delta bits) combinations: the one list that kernel 1's dispatch is generated
// from and that upload_ec checks a matrix against. For 16-bit values a set is G = 8, 4, 2 at v = 4,
// G = 1 long at v = 8, G = 1 short at v = 1 (ec::long_vec), each for 4- and 8-bit deltas.
struct EcVariant {
  int group, vec, delta_bits;
};
inline constexpr std::array<EcVariant, 10> kEcVariants{{{8, 4, 4}, {4, 4, 4}, {2, 4, 4}, {1, 8, 4}, {1, 1, 4},
                                                        {8, 4, 8}, {4, 4, 8}, {2, 4, 8}, {1, 8, 8}, {1, 1, 8}}};
// Its index in kEcVariants, or -1 when that combination is not compiled.
constexpr int ec_variant(int group, int vec, int delta_bits) {
  for (std::size_t i = 0; i < kEcVariants.size(); ++i)
    if (kEcVariants[i].group == group && kEcVariants[i].vec == vec && kEcVariants[i].delta_bits == delta_bits)
      return static_cast<int>(i);
  return -1;
}
static_assert(ec_variant(8, ec::long_vec(8, 2), 4) >= 0 && ec_variant(4, ec::long_vec(4, 2), 8) >= 0 &&
              ec_variant(2, ec::long_vec(2, 2), 4) >= 0 && ec_variant(1, ec::long_vec(1, 2), 8) >= 0,
              "the compiled list follows ec::long_vec for 16-bit values");

// Per-set descriptors: one launch of kernel 1 per set that has pieces. Offsets are in elements of the concatenated
// values buffer and bytes of the deltas buffer; each set starts 16-byte aligned in both.
inline constexpr int kEcMaxSets = 6;
struct EcDeviceSets {
  std::uint64_t value_offset[kEcMaxSets] = {};
  std::uint64_t delta_offset[kEcMaxSets] = {};
  int variant[kEcMaxSets] = {-1, -1, -1, -1, -1, -1};  // index in kEcVariants; -1: the set has no pieces
  std::int64_t piece_begin[kEcMaxSets + 1] = {};       // the set's pieces: [piece_begin[s], piece_begin[s + 1])
};

template <class T>
struct DeviceEc {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t pieces = 0, partials = 0;
  int delta_bits = 8;
  EcDeviceSets sets;
  DeviceBuffer<T> values;            // every set's values, each padded to 16 bytes
  DeviceBuffer<std::uint8_t> deltas;  // every set's deltas, each padded to 16 bytes
  DeviceBuffer<std::uint32_t> piece_table;  // 4 per piece: step_begin, step_end, partial, set
  DeviceBuffer<std::uint32_t> lane_start, row_part_ptr, row_parts;
  // Bytes one launch moves: the format's arrays, the plan's tables, and the `partials` fp32 sums
  // kernel 1 writes and kernel 2 reads (in the launch's scratch: kernels/common/stream_scratch.hpp).
  std::uint64_t bytes() const {
    return values.bytes() + deltas.bytes() + piece_table.bytes() + lane_start.bytes() + row_part_ptr.bytes() +
           row_parts.bytes() + static_cast<std::uint64_t>(partials) * sizeof(float);
  }
};

// Validates the matrix (every walked column < cols) and the plan against it (ec_plan_fault in
// reference/ec/ec_schedule.hpp), refuses a set with pieces whose (G, v, delta bits) is not in
// kEcVariants, and copies both to the device.
template <class T>
DeviceEc<T> upload_ec(const Ec<T>& a, const ec::Plan& plan);

// y = alpha * A * x + beta * y (y is not read when beta == 0). x has cols, y rows elements.
// partials: where kernel 1 writes its a.partials sums (to inspect them, as the GPU test does);
// nullptr: the stream's scratch.
template <class T, class TY>
void ec_spmv(const DeviceEc<T>& a, const T* x, TY* y, float alpha, float beta, cudaStream_t stream = nullptr,
             float* partials = nullptr);

}  // namespace warpsparse::gpu
