// Instantiations and launch of the plain CSR SpMV kernel (see csr_spmv.cuh, csr_spmv.hpp).
#include "kernels/csr/csr_spmv.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "kernels/csr/csr_spmv.cuh"

namespace warpsparse::gpu {

template <class T>
DeviceCsr<T> upload_csr(const Csr<T, std::int32_t>& a) {
  require(a.rows >= 0 && a.cols >= 0 && a.cols <= kMaxCols, "CSR: bad shape");
  require(static_cast<std::int64_t>(a.row_ptr.size()) == a.rows + 1, "CSR: row_ptr must have rows + 1 entries");
  require(a.col.size() == a.val.size(), "CSR: col and val lengths differ");
  require(a.row_ptr.front() == 0 && a.row_ptr.back() == a.nnz(), "CSR: row_ptr does not span [0, nnz]");
  // NOTE: plain loops with one throw at the end: these run over up to ~10^9 entries.
  std::int64_t bad_row = -1, bad_col = -1;
  for (std::int64_t r = 0; r < a.rows && bad_row < 0; ++r)
    if (a.row_ptr[r] > a.row_ptr[r + 1]) bad_row = r;
  require(bad_row < 0, "CSR: row_ptr decreases at row " + std::to_string(bad_row));
  for (std::size_t k = 0; k < a.col.size(); ++k)
    if (a.col[k] < 0 || a.col[k] >= a.cols) { bad_col = static_cast<std::int64_t>(k); break; }
  require(bad_col < 0, "CSR: column index out of range at element " + std::to_string(bad_col));

  DeviceCsr<T> d;
  d.rows = a.rows;
  d.cols = a.cols;
  d.nnz = a.nnz();
  d.row_ptr = DeviceBuffer<std::int32_t>(a.row_ptr);
  d.col = DeviceBuffer<std::int32_t>(a.col);
  d.val = DeviceBuffer<T>(a.val);
  return d;
}

template <class T, class TY>
void csr_spmv(const DeviceCsr<T>& a, const T* x, TY* y, float alpha, float beta, const CsrSchedule& sched,
              cudaStream_t stream) {
  require(sched.valid(), "CSR schedule: warps_per_block must lie in [1, 32]");
  if (a.rows == 0) return;
  using TV = device_t<T>;
  using TYD = device_t<TY>;
  const std::int64_t wpb = sched.warps_per_block;
  const std::int64_t blocks = (a.rows + wpb - 1) / wpb;
  require(blocks <= 0x7fffffff, "CSR SpMV: too many rows for one launch");
  csr_detail::csr_spmv_kernel<TV, TYD><<<static_cast<unsigned>(blocks), static_cast<unsigned>(wpb * 32), 0, stream>>>(
      a.row_ptr.get(), a.col.get(), reinterpret_cast<const TV*>(a.val.get()), reinterpret_cast<const TV*>(x),
      reinterpret_cast<TYD*>(y), a.rows, alpha, beta);
  WS_CUDA(cudaGetLastError());
}

template DeviceCsr<half> upload_csr<half>(const Csr<half, std::int32_t>&);
template DeviceCsr<bfloat16> upload_csr<bfloat16>(const Csr<bfloat16, std::int32_t>&);
#define WS_CSR_INST(T, TY) \
  template void csr_spmv<T, TY>(const DeviceCsr<T>&, const T*, TY*, float, float, const CsrSchedule&, cudaStream_t);
WS_CSR_INST(half, half)
WS_CSR_INST(half, bfloat16)
WS_CSR_INST(half, float)
WS_CSR_INST(bfloat16, half)
WS_CSR_INST(bfloat16, bfloat16)
WS_CSR_INST(bfloat16, float)
#undef WS_CSR_INST

}  // namespace warpsparse::gpu
