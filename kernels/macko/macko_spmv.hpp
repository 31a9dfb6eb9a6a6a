// Host API of the MACKO SpMV kernels: upload a host Macko<T> and run y = alpha*A*x + beta*y with one
// of the compiled schedules (macko::kCompiledVariants; macko::choose_schedule picks one for a matrix
// on a GPU). Host code includes this header only (no kernel source); macko_spmv.cu instantiates.
//   T  (matrix values and x): half or bfloat16 (fp16/bf16 host types of reference/values)
//   TY (y): half, bfloat16 or float
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "kernels/common/device_buffer.hpp"
#include "reference/macko/macko_format.hpp"
#include "reference/macko/macko_schedule.hpp"

namespace warpsparse::gpu {

// The narrow kernels (32-bit row pointers) form element offsets in int32 arithmetic, up to
// kNarrowMarginElements past a row end (a load group and a block; KernelConfig checks it), which
// takes fewer instructions per step than 64-bit offsets. A matrix of more than kNarrowMaxElements
// stored elements runs the wide kernels, with its row pointers widened on upload if need be.
inline constexpr int kNarrowMarginElements = 1 << 16;
inline constexpr std::int64_t kNarrowMaxElements =
    std::int64_t{std::numeric_limits<std::int32_t>::max()} - kNarrowMarginElements;

template <class T>
struct DeviceMacko {
  std::int64_t rows = 0, cols = 0, nnz = 0, emitted = 0;
  int delta_bits = 4;
  bool wide = false;  // 64-bit row pointers and element offsets (kNarrowMaxElements)
  DeviceBuffer<T> values;
  DeviceBuffer<std::uint8_t> deltas;
  DeviceBuffer<std::uint32_t> row_ptr32;
  DeviceBuffer<std::uint64_t> row_ptr64;
  // macko_split_bases (reference/macko/macko_format.hpp): read only by split-row schedules, one entry
  // per split part, so it is not counted in bytes().
  DeviceBuffer<std::int32_t> split_bases;
  // Bytes of the format's arrays, which one launch reads.
  std::uint64_t bytes() const {
    return values.bytes() + deltas.bytes() + row_ptr32.bytes() + row_ptr64.bytes();
  }
};

// Validates the host matrix (every decoded column < cols) and copies it to the device, with its
// split-base table. A matrix of more than narrow_max_elements stored elements runs the wide
// kernels (row pointers widened here if the format kept 32 bits); the GPU tests lower it to run
// that path on small matrices.
template <class T>
DeviceMacko<T> upload_macko(const Macko<T>& a, std::int64_t narrow_max_elements = kNarrowMaxElements);

// y = alpha * A * x + beta * y (y is not read when beta == 0). x has cols, y rows elements. With
// sched.batch = B > 1, x is cols x B and y rows x B, both row-major (element (c, b) at c * B + b):
// B vectors at once, each with the bits a batch-1 launch of the same schedule gives it.
// x must be aligned to 2B bytes (any cudaMalloc'd buffer is). A schedule that is not compiled for
// the matrix's delta width (macko::is_compiled) is refused by name.
template <class T, class TY>
void macko_spmv(const DeviceMacko<T>& a, const T* x, TY* y, float alpha, float beta,
                const macko::Schedule& sched, cudaStream_t stream = nullptr);

// Registers per thread of the kernels whose residency the schedule policy counts (fp16, 8 or 4
// elements per lane, x in shared memory, 32-bit offsets; at 8 elements one or two rows per warp), as
// compiled: macko::Rules holds them as data (x_shared_kernel_registers, x_shared_kernel_registers_elems4),
// and a GPU test compares them.
int macko_x_shared_kernel_registers(int lane_elems = macko::kElemsPerLane, int row_lanes = macko::kWarpLanes);
// That kernel's blocks of `warps_per_block` warps resident per SM with x of `cols` 16-bit columns, as
// the CUDA runtime's occupancy calculator counts them on the current device (0 when x does not fit):
// the GPU test compares macko::x_shared_blocks_per_sm, which the policy computes from DeviceFacts
// (for two rows per warp, the one-row kernel's count at 8 elements).
int macko_x_shared_resident_blocks(int warps_per_block, std::int64_t cols,
                                   int lane_elems = macko::kElemsPerLane, int row_lanes = macko::kWarpLanes);

#ifdef WS_MACKO_TRACE
// Only in the library built with WS_MACKO_TRACE (for bench/ws_macko_trace): a timeline of one launch.
struct RowTrace {
  unsigned long long t0_ns, t1_ns;  // %globaltimer at the row's start (before its bounds load) and after its store
  unsigned sm, warp;                // the SM, and the warp's index in the grid
};
// Launches after this call write one RowTrace per row to trace (rows entries, device memory);
// nullptr turns it off.
void set_macko_row_trace(RowTrace* trace);
#endif

}  // namespace warpsparse::gpu
