// Host side of the EC-SpMV kernels: upload (validation, concatenated set arrays, plan tables) and
// the two launches.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/stream_scratch.hpp"
#include "kernels/ec/ec_spmv.cuh"
#include "kernels/ec/ec_spmv.hpp"
#include "reference/ec/ec_schedule.hpp"

namespace warpsparse::gpu {

namespace {
constexpr int kRowThreads = 256;
constexpr std::size_t kSetAlign = 16;  // bytes: the widest vector load

std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

std::string variant_list() {
  std::string s;
  for (const EcVariant& v : kEcVariants)
    s += (s.empty() ? "" : "; ") + std::string("G=") + std::to_string(v.group) + " v=" + std::to_string(v.vec) + " b=" +
         std::to_string(v.delta_bits);
  return s;
}
}  // namespace

template <class T>
DeviceEc<T> upload_ec(const Ec<T>& a, const ec::Plan& plan) {
  static_assert(sizeof(T) == 2, "the EC kernels take 16-bit values");
  a.validate();  // every walked column < cols: the kernel reads x without bounds checks
  if (const auto f = ec_plan_fault(a, plan)) throw Error("EC plan does not fit the matrix: " + *f);
  require(static_cast<int>(a.sets.size()) <= kEcMaxSets,
          "EC matrix has " + std::to_string(a.sets.size()) + " sets, the kernels take at most " + std::to_string(kEcMaxSets));
  DeviceEc<T> d;
  d.rows = a.rows;
  d.cols = a.cols;
  d.nnz = a.nnz;
  d.delta_bits = a.delta_bits;
  d.pieces = static_cast<std::int64_t>(plan.pieces.size());
  d.partials = plan.partials;

  // The sets' arrays end to end, each starting 16-byte aligned (the lanes' vector loads are aligned
  // to their size within a set).
  std::vector<T> values;
  std::vector<std::uint8_t> deltas;
  for (std::size_t si = 0; si < a.sets.size(); ++si) {
    const EcSet<T>& s = a.sets[si];
    if (s.steps() > 0) {
      const int v = ec_variant(s.group, s.vec, a.delta_bits);
      if (v < 0)
        throw Error("EC set " + std::to_string(si) + " (" + s.name() + ", v = " + std::to_string(s.vec) + ", " +
                    std::to_string(a.delta_bits) + "-bit deltas) has no compiled kernel; compiled: " + variant_list());
      d.sets.variant[si] = v;
    }
    values.resize(align_up(values.size() * sizeof(T), kSetAlign) / sizeof(T), from_float<T>(0.0f));
    deltas.resize(align_up(deltas.size(), kSetAlign), 0);
    d.sets.value_offset[si] = values.size();
    d.sets.delta_offset[si] = deltas.size();
    values.insert(values.end(), s.values.begin(), s.values.end());
    deltas.insert(deltas.end(), s.deltas.begin(), s.deltas.end());
  }
  std::vector<std::uint32_t> pieces;
  pieces.reserve(plan.pieces.size() * 4);
  for (const ec::Piece& pc : plan.pieces) pieces.insert(pieces.end(), {pc.step_begin, pc.step_end, pc.partial, pc.set});
  // Pieces come in set order (ec::make_plan), so each set's are one range.
  for (std::size_t i = 0; i < plan.pieces.size(); ++i) d.sets.piece_begin[plan.pieces[i].set + 1] = static_cast<std::int64_t>(i) + 1;
  for (int si = 1; si <= kEcMaxSets; ++si) d.sets.piece_begin[si] = std::max(d.sets.piece_begin[si], d.sets.piece_begin[si - 1]);

  const std::uint64_t need = values.size() * sizeof(T) + deltas.size() + plan.bytes();
  std::size_t free_b = 0, total_b = 0;
  WS_CUDA(cudaMemGetInfo(&free_b, &total_b));
  require(need <= free_b, "EC matrix needs " + std::to_string(need) + " bytes on the device, only " + std::to_string(free_b) +
                              " are free");
  d.values = DeviceBuffer<T>(values);
  d.deltas = DeviceBuffer<std::uint8_t>(deltas);
  d.piece_table = DeviceBuffer<std::uint32_t>(pieces);
  d.lane_start = DeviceBuffer<std::uint32_t>(plan.lane_start);
  d.row_part_ptr = DeviceBuffer<std::uint32_t>(plan.row_part_ptr);
  d.row_parts = DeviceBuffer<std::uint32_t>(plan.row_parts);
  return d;
}

template <class T, class TY>
void ec_spmv(const DeviceEc<T>& a, const T* x, TY* y, float alpha, float beta, cudaStream_t stream, float* partials) {
  if (a.rows == 0) return;
  using TD = device_t<T>;
  using TYD = device_t<TY>;
  // Written by kernel 1, read by kernel 2: the caller's, or this stream's own, so one matrix may run
  // on several streams at once and in CUDA graphs.
  const StreamScratch<float> scratch(partials != nullptr ? 0 : static_cast<std::size_t>(a.partials), stream);
  float* const partial_sums = partials != nullptr ? partials : scratch.get();
  ec_detail::for_each_set_launch(a, [&](const ec_detail::SetLaunch<TD>& s, auto variant) {
    ec_detail::ec_set_kernel<TD, decltype(variant)::value><<<s.grid, s.block, 0, stream>>>(
        s.pieces, s.first, s.last, s.lane_start, s.values, s.deltas, reinterpret_cast<const TD*>(x), partial_sums);
  });
  const std::int64_t blocks = std::min<std::int64_t>((a.rows + kRowThreads - 1) / kRowThreads, 0x7fffffff);
  ec_detail::ec_rows_kernel<TYD><<<dim3(static_cast<unsigned>(blocks)), dim3(kRowThreads), 0, stream>>>(
      a.row_part_ptr.get(), a.row_parts.get(), partial_sums, reinterpret_cast<TYD*>(y), a.rows, alpha, beta);
  WS_CUDA(cudaGetLastError());
}

template DeviceEc<half> upload_ec<half>(const Ec<half>&, const ec::Plan&);
template DeviceEc<bfloat16> upload_ec<bfloat16>(const Ec<bfloat16>&, const ec::Plan&);
template void ec_spmv<half, half>(const DeviceEc<half>&, const half*, half*, float, float, cudaStream_t, float*);
template void ec_spmv<half, float>(const DeviceEc<half>&, const half*, float*, float, float, cudaStream_t, float*);
template void ec_spmv<bfloat16, bfloat16>(const DeviceEc<bfloat16>&, const bfloat16*, bfloat16*, float, float, cudaStream_t, float*);
template void ec_spmv<bfloat16, float>(const DeviceEc<bfloat16>&, const bfloat16*, float*, float, float, cudaStream_t, float*);

}  // namespace warpsparse::gpu
