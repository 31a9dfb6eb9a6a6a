// Host API of the MACKO SpMV kernels: upload a host Macko<T> and run y = alpha*A*x + beta*y.
// Host code includes this header only (no kernel source); kernels/macko_spmv.cu instantiates.
//   T  (matrix values and x): half or bfloat16 (fp16/bf16 host types of reference/values)
//   TY (y): half, bfloat16 or float
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "kernels/device_buffer.hpp"
#include "reference/formats/macko.hpp"
#include "reference/models/macko_x_banks.hpp"

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
  // macko_split_bases (reference/formats/macko.hpp): read only by split-row schedules, one entry
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

// The schedule the kernel uses for a matrix with these delta bits, density (nnz / (rows*cols)) and
// shape when the caller does not pick one (rows = 0: shape unknown, one warp per row). With 4-bit
// deltas it stages x in shared memory on every matrix of up to kXSharedDefaultMaxCols columns with 8
// elements per lane (where cols >= rows, and on tall matrices of kXSharedLowMinCols columns or more,
// at any density; on narrower tall ones above kLowDensity), 4-warp blocks on tall matrices of at
// most kXSharedTallMaxCols columns (12-warp blocks from kXSharedLowMinCols columns above kLowDensity
// where the busiest SM gets no more rows: x_shared_tall_warps_per_block) and 16-warp blocks
// otherwise (x_shared_warps_per_block); and at
// density <= kLowDensity on every matrix of kXSharedLowMinCols to kXSharedDefaultMaxCols columns.
// Tall matrices of at most kXSharedTallMaxCols columns whose rows hold at most kTwoRowsMaxNnz
// nonzeros run two rows per warp (Schedule::row_lanes = 16).
inline constexpr std::int64_t kXSharedDefaultMaxCols = 49152;
inline constexpr std::int64_t kXSharedTallMaxCols = 9216;
// Nonzeros a warp's part of a row keeps where rows are split over two warps (below).
inline constexpr double kXSharedMinWarpNnz = 2048;
// Block size of the batch-1 schedules with x in shared memory: 4 warps on tall matrices of at most
// kXSharedTallMaxCols columns (more blocks, each a small copy of x), 16 otherwise (H100, runs 34-43).
inline int x_shared_warps_per_block(std::int64_t rows, std::int64_t cols) {
  return rows > cols && cols <= kXSharedTallMaxCols ? 4 : 16;
}
// Above kLowDensity a tall matrix of kXSharedLowMinCols to kXSharedTallMaxCols columns takes blocks
// of kXSharedTallLargeBlockWarps warps instead of 4 where that gives the busiest SM no more rows
// (macko::busiest_sm_units over the resident blocks of each size; it queries the device, and keeps 4
// without one): the SM holds as many warps (36 on the H100), but copies x 3 times instead of 9.
// H100 (kernels/NOTES.md, sixteenth session): where the rows per SM tie, 12-warp blocks were -0.1 to
// +1.7 % against 4 on the tall shapes of 7168-9216 columns in runs 105, 117, 118 and 125 (21504x7168
// at d = 0.3: 49.7 -> 49.0 us in run 125), and 0.0 to +1.0 % on three shapes outside Appendix D (run
// 130); where they put more rows on the busiest SM (28672 rows: 252 against 224), -0.9 to -2.6 %. On
// narrower x the copies matter less and ties went both ways (18432x4608: -0.3 to -2.5 %; 32000x5120
// -0.6 to +1.6 %), so those keep 4 warps.
inline constexpr int kXSharedTallLargeBlockWarps = 12;
int x_shared_tall_warps_per_block(std::int64_t rows, std::int64_t cols);
// Where cols >= rows, the default splits rows over two warps (16-warp blocks, 8 rows) when the persistent
// grid's last round of rows is less than kXSharedSplitTail full (it queries the device for the
// resident blocks) and each half row still holds kXSharedMinWarpNnz nonzeros.
inline constexpr double kXSharedSplitTail = 0.5;
// At density <= kLowDensity lanes take 4 elements per step where x is read through L1, and x goes
// into shared memory on every matrix of kXSharedLowMinCols to kXSharedDefaultMaxCols columns, with
// 8 elements per lane on long rows (tall, or cols >= 3 rows).
inline constexpr double kLowDensity = 0.15;
// Short rows (density * cols at most this) on tall matrices of at most kXSharedTallMaxCols columns:
// two rows per warp with x in shared memory, 8 elements per lane, 4-warp blocks (runs 80-81).
inline constexpr double kTwoRowsMaxNnz = 768;
inline constexpr std::int64_t kXSharedLowMinCols = 7168;
inline constexpr double kBatchDenseDensity = 0.75;
inline constexpr std::int64_t kXSharedBatchMaxBytes = 196608;  // 12288 columns x 8 vectors x 2 bytes
// With batch > 1 (Schedule::batch, built for 4-bit deltas) x is in shared memory (swizzled packs,
// 16-warp blocks) while two blocks fit at batches 2 and 4, and at batch 8 on rows of density >=
// kBatchDenseDensity while one block fits (kXSharedBatchMaxBytes); otherwise through L1
// (kernels/macko_spmv.cu, default_batch_schedule; kernels/NOTES.md, "Batched MACKO").
macko::Schedule default_schedule(int delta_bits, double density = 0.5, std::int64_t rows = 0, std::int64_t cols = 0,
                                 int batch = 1);

// Rows the x_shared persistent grid holds at once (one warp per row, `warps_per_block`-warp blocks)
// for an x of `cols` columns on the current device; 0 when no device answers or nothing fits.
std::int64_t x_shared_resident_rows(std::int64_t cols, int warps_per_block);

// Whether a kernel is built for this schedule (macko_spmv rejects the others, naming those built).
// blocks_per_sm and warps_per_block are launch parameters: any valid value is served.
bool is_compiled(const macko::Schedule& s);

// default_schedule for this matrix: its delta bits, density and shape, and then its gathers. Where
// x sits in shared memory at batch 1 and the sampled gathers of rows would collide in banks without
// the swizzle (N:M-pruned rows; macko::x_swizzle_pays, a few hundred rows on the host, well under a
// millisecond), x_swizzle is set. Such rows also move x into shared memory where the shape rule
// kept it in L1 (x of at most kXSharedDefaultMaxCols columns; 16-warp blocks above
// kXSharedTallMaxCols columns, 4-warp ones below): through L1 the same collisions made 2:4 and 4:8
// rows 9-26 % slower than uniform ones, while x in shared memory swizzled ran 1.48-1.65x over
// cuBLAS on the tall shapes the shape rule leaves in L1 (H100, run 65, kernels/NOTES.md).
template <class T>
macko::Schedule default_schedule_for(const Macko<T>& a, int batch = 1) {
  const double cells = static_cast<double>(a.rows) * static_cast<double>(a.cols);
  const macko::Schedule s = default_schedule(a.delta_bits, cells > 0 ? static_cast<double>(a.nnz) / cells : 0.0,
                                             a.rows, a.cols, batch);
  if (batch != 1) return s;
  macko::Schedule xs = s;
  if (!xs.x_shared) {
    if (a.cols > kXSharedDefaultMaxCols) return s;
    xs.x_shared = true;
    xs.warps_per_block = x_shared_warps_per_block(a.rows, a.cols);
    xs.row_splits = 1;
  }
  xs.x_swizzle = true;
  // Two rows per warp are built unswizzled: rows whose gathers collide (N:M) keep one warp per row,
  // swizzled, as measured in runs 63-66.
  xs.row_lanes = macko::kWarpLanes;
  return is_compiled(xs) && macko::x_swizzle_pays(a, xs) ? xs : s;
}

// y = alpha * A * x + beta * y (y is not read when beta == 0). x has cols, y rows elements. With
// sched.batch = B > 1, x is cols x B and y rows x B, both row-major (element (c, b) at c * B + b):
// B vectors at once, each with the bits a batch-1 launch of the same schedule gives it.
// x must be aligned to 2B bytes (any cudaMalloc'd buffer is).
template <class T, class TY>
void macko_spmv(const DeviceMacko<T>& a, const T* x, TY* y, float alpha, float beta,
                const macko::Schedule& sched, cudaStream_t stream = nullptr);

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
