// The narrow C++ facade of the Python package: everything the bindings call, in plain standard
// types. The library (reference/, analysis/, kernels/) stays behind it in libws_py_core, so the
// pybind11 glue compiles against this header alone on any Python, without the library's
// dependencies (Eigen, fmt, nlohmann, libzip): python/build_ext.sh builds it on the GPU machine.
//
// Errors: a bad argument of the facade itself is std::invalid_argument (Python ValueError), a
// missing file FileNotFound (FileNotFoundError), and whatever the library refuses (a corrupt file,
// a matrix that breaks the format, a CUDA error) a std::runtime_error carrying the library's
// message (warpsparse.Error).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsparse::py {

// Element types that cross the boundary: the four value types (bf16 has no numpy dtype: a uint16
// array holds its bits), and the index and byte arrays of the formats.
enum class Elem : std::uint8_t { f16, bf16, f32, i8, u8, u16, i32, i64, u32, u64, f64 };
std::size_t elem_bytes(Elem e);
std::string elem_name(Elem e);

// A C-contiguous array the caller owns, read during the call only.
struct HostArray {
  const void* data = nullptr;
  Elem elem = Elem::f32;
  std::vector<std::int64_t> shape;
};

// An array the core hands out. Its bytes live as long as `owner` (the object it belongs to, or a
// buffer made for it), so the bindings wrap it without a copy. `strides` in bytes; empty: C order.
struct OwnedArray {
  void* data = nullptr;
  Elem elem = Elem::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  std::shared_ptr<const void> owner;
};

class FileNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string version();

// ----- matrices --------------------------------------------------------------------------------

// Sparse rows (reference/sparse/sparse_rows.hpp): what MatrixMarket files and tensors read into.
class Rows {
 public:
  struct Impl;
  explicit Rows(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::int64_t nnz() const;
  std::string value_type() const;
  OwnedArray row_ptr() const;  // int64, rows + 1
  OwnedArray col() const;      // int32
  OwnedArray val() const;
  OwnedArray to_dense() const;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

struct MackoOptions {
  int delta_bits = 4;  // 1, 2, 4, 8, or 0 (macko::kAutoDeltaBits): the width macko::choose_delta_bits picks (H100)
  bool align_rows = false;
  bool emit_trailing_padding = false;
  bool force_wide_row_pointers = false;
};

class Macko {
 public:
  struct Impl;
  explicit Macko(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::int64_t nnz() const;
  std::int64_t emitted() const;
  int delta_bits() const;
  std::string value_type() const;
  bool wide_row_pointers() const;
  std::uint64_t storage_bytes() const;
  double effective_density() const;
  OwnedArray values() const;
  OwnedArray deltas() const;   // uint8, packed
  OwnedArray row_ptr() const;  // uint32 or uint64
  OwnedArray to_dense() const;
  Rows to_rows() const;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

class Csr {
 public:
  struct Impl;
  explicit Csr(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::int64_t nnz() const;
  int index_bits() const;
  std::string value_type() const;
  std::uint64_t storage_bytes() const;
  OwnedArray row_ptr() const;  // int32
  OwnedArray col() const;      // int32 or uint16
  OwnedArray val() const;
  OwnedArray to_dense() const;

 private:
  std::shared_ptr<const Impl> impl_;
};

// 2:4 along the columns (reference/sparse24/sparse24_format.hpp).
class Sparse24 {
 public:
  struct Impl;
  explicit Sparse24(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::int64_t rows_padded() const;
  std::int64_t cols_padded() const;
  std::string value_type() const;
  OwnedArray values() const;    // rows_padded x cols_padded / 2
  OwnedArray metadata() const;  // uint16, rows_padded x cols_padded / 16, plain order
  OwnedArray to_dense() const;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Bitmap tiles (reference/bitmap/bitmap_format.hpp): 16 x 16 tiles, a 64-bit bitmap per 8 x 8
// subtile, the nonzeros in tensor-core fragment order; the batched SpMM's format.
class Bitmap {
 public:
  struct Impl;
  explicit Bitmap(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::int64_t nnz() const;
  std::string value_type() const;
  std::uint64_t storage_bytes() const;
  double effective_density() const;
  OwnedArray to_dense() const;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Dense input: float16, float32, int8, or uint16/bf16 (bf16 bits); 2-D, C order.
Rows rows_from_dense(const HostArray& dense);
Macko encode_macko(const HostArray& dense, const MackoOptions& o);
Macko encode_macko(const Rows& rows, const MackoOptions& o);
Csr encode_csr(const HostArray& dense, int index_bits);
Csr encode_csr(const Rows& rows, int index_bits);
Sparse24 encode_sparse24(const HostArray& dense);
Bitmap encode_bitmap(const HostArray& dense);
// Magnitude pruning (reference/sparse/prune.hpp) of a dense matrix: per row or per tensor to a
// density, or N of every M along each row when nm is "N:M". Returns the pruned copy.
OwnedArray prune(const HostArray& dense, double density, const std::string& per, const std::string& nm);

// ----- files -----------------------------------------------------------------------------------

void write_macko(const std::string& path, const Macko& m);  // .macko
void write_macko_safetensors(const std::string& path, const Macko& m, const std::map<std::string, std::string>& extra);
void write_sparse24_safetensors(const std::string& path, const Sparse24& s,
                                const std::map<std::string, std::string>& extra);
// A .macko file or a MACKO safetensors file (told apart by their first bytes).
Macko read_macko(const std::string& path);
Sparse24 read_sparse24(const std::string& path);
void write_bitmap_safetensors(const std::string& path, const Bitmap& b, const std::map<std::string, std::string>& extra);
Bitmap read_bitmap(const std::string& path);
Rows read_matrix_market(const std::string& path, const std::string& value_type);
void write_matrix_market(const std::string& path, const Rows& rows);

struct TensorEntry {
  std::string name, dtype, file;
  std::vector<std::int64_t> shape;
};

// A checkpoint's tensor file (safetensors, an index, .npy, .npz), memory-mapped.
class TensorFile {
 public:
  struct Impl;
  explicit TensorFile(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::string path() const;
  std::vector<TensorEntry> tensors() const;
  std::map<std::string, std::string> metadata() const;
  // The tensor's bytes as stored (F16, BF16 as uint16, F32, I8, U8, U16, I32, I64, F64), mapped:
  // no copy while the file is open.
  OwnedArray array(const std::string& name) const;
  // A 2-D tensor as matrix rows ([out, in]; transpose: [in, out]), converted to value_type ("" :
  // the tensor's own).
  Rows rows(const std::string& name, bool transpose, const std::string& value_type) const;

 private:
  std::shared_ptr<Impl> impl_;
};
TensorFile open_tensor_file(const std::string& path);

// ----- the warp model and the analyses ---------------------------------------------------------

struct VerifyReport {
  bool ok = false;
  double max_error = 0, max_bound_ratio = 0, model_seconds = 0;
  std::int64_t overflows = 0, failures = 0, schedules = 0;
  std::string first_failure, fault;
  // The model's warp-wide loads per array ("values", "deltas", "row_ptr", "x"): how many, and the
  // distinct 32-byte sectors and 128-byte lines they touch in all.
  struct Loads {
    std::uint64_t loads = 0, sectors = 0, lines = 0;
  };
  std::map<std::string, Loads> loads;
};
// The warp model of each accumulator count against the double oracle (macko_verify.hpp), within
// the machine's memory budget.
VerifyReport verify(const Macko& m, std::uint64_t seed, const std::vector<int>& accumulators, int batch, int row_lanes);

// The warp model's output, the kernel's bits: y = alpha A x + beta y_old for x of shape (cols,) or
// (cols, batch), under `schedule` (a name parse_schedule reads; "" : the default schedule at x's
// batch). y is fp32, or the x type when y_elem says so.
OwnedArray spmv_model(const Macko& m, const HostArray& x, const std::string& schedule, float alpha, float beta,
                      Elem y_elem, const HostArray* y_old);

// The double-precision oracle of a product and the forward error bound a result is judged by
// (reference/sparse/spmv_check.hpp for MACKO, sparse24::ErrorBound for 2:4), element by element,
// in the result's shape. MACKO: x as spmv_model takes it; the bound is the fp32 accumulation chain of
// `schedule` ("" : the default at x's batch) or, when chain > 0, a chain of that many additions
// (a dense product's). 2:4: b of shape (cols, n).
struct OracleBound {
  OwnedArray exact, bound;  // float64
};
OracleBound macko_oracle_bound(const Macko& m, const HostArray& x, const std::string& schedule, std::int64_t chain,
                               Elem y_elem);
OracleBound sparse24_oracle_bound(const Sparse24& s, const HostArray& b, Elem c_elem);

struct PlanInfo {
  std::string schedule;
  std::vector<std::string> why;
};
// The schedule the policy picks for this matrix on a known GPU ("h100", "h200").
PlanInfo plan(const Macko& m, const std::string& gpu, int batch);
// Batches the MACKO kernels are compiled for (macko::kCompiledVariants), ascending.
std::vector<int> compiled_batches();
// Which kernel multiplies a matrix of this density by `batch` vectors (bitmap::choose_batch_kernel):
// "macko" (at MACKO batch macko_batch), "bitmap", or, for a 2:4 weight held as 2:4 too (sparse24),
// "sparse24" (the 2:4 GEMM); and why. macko_x_l1: MACKO's schedule for the batch gathers x through
// L1 (DeviceMacko::gathers_x_through_l1).
struct BatchKernelChoice {
  std::string kernel;
  int macko_batch = 1;
  std::string why;
};
BatchKernelChoice batch_kernel(double density, int batch, bool sparse24 = false, bool macko_x_l1 = false);
// The largest batch the bitmap-tile kernel takes.
int bitmap_max_batch();

// Storage models (analysis/effd.hpp): every format's effective density at density d.
std::map<std::string, double> effd(double density, int value_bits, int delta_bits, std::int64_t rows, std::int64_t cols);
struct CrossoverRow {
  std::string name, scenario, claim, source, verdict;
  bool found = false;
  double density = 0;
};
std::vector<CrossoverRow> crossovers(int value_bits, int delta_bits, std::int64_t rows, std::int64_t cols);
// A checkpoint's analysis (analysis/checkpoint.hpp), as the JSON `warpsparse analyze` writes.
std::string analyze_json(const std::string& path, bool transpose, int threads);

// ----- CUDA (kernels/) -------------------------------------------------------------------------
// Pointers are device pointers; `stream` is a cudaStream_t as an integer (0: the legacy default
// stream). Without a CUDA build every call throws, and cuda_built() says so.

bool cuda_built();
int cuda_device_count();  // 0 without a device or a CUDA build
int cuda_current_device();

// A MACKO matrix on the device: owns its buffers (gpu::DeviceMacko), fp16 or bf16.
class DeviceMacko {
 public:
  struct Impl;
  explicit DeviceMacko(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::string value_type() const;
  int device() const;
  std::uint64_t bytes() const;
  // The schedule the policy picks on this device for `batch` vectors (macko::choose_schedule).
  std::string schedule(int batch) const;
  // Whether that schedule, for the MACKO batch that runs `tokens` vectors, gathers x through L1
  // rather than shared memory (false where MACKO has no kernel for it).
  bool gathers_x_through_l1(int tokens) const;
  // y (rows x batch) = alpha A x (cols x batch) + beta y, row-major; y_elem f32 or the value type.
  // schedule "": the policy's.
  void spmv(const void* x, void* y, Elem x_elem, Elem y_elem, int batch, float alpha, float beta,
            const std::string& schedule, std::uintptr_t stream) const;
  // Microseconds per launch of `iters` back-to-back launches from C++ (CUDA events), the baseline
  // the Python call overhead is measured against.
  double time_launches(const void* x, void* y, Elem y_elem, int batch, int iters, std::uintptr_t stream) const;

 private:
  std::shared_ptr<const Impl> impl_;
};
DeviceMacko upload_macko(const Macko& m);

// A 2:4 matrix on the device (sparse24::gpu::DeviceMatrix), fp16 or bf16.
class DeviceSparse24 {
 public:
  struct Impl;
  explicit DeviceSparse24(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::string value_type() const;
  int device() const;
  // C (rows x n, row pitch ldc elements) = A B (cols x n, row pitch ldb); c_elem f32 or the value
  // type; tile "": the library's choice (kTiles names otherwise).
  void gemm(const void* b, Elem b_elem, std::int64_t n, std::int64_t ldb, void* c, Elem c_elem, std::int64_t ldc,
            const std::string& tile, std::uintptr_t stream) const;

 private:
  std::shared_ptr<const Impl> impl_;
};
DeviceSparse24 upload_sparse24(const Sparse24& s);

// A bitmap-tile matrix on the device (gpu::DeviceBitmap), fp16 or bf16.
class DeviceBitmap {
 public:
  struct Impl;
  explicit DeviceBitmap(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::string value_type() const;
  int device() const;
  std::uint64_t bytes() const;
  // The length of the fp32 summation chain (u = 2^-24) whose forward bound covers the kernel's
  // sums at this batch on this device (bitmap::bound_chain of the policy's parts).
  std::int64_t bound_chain(int batch) const;
  // y (rows x batch) = alpha A x (cols x batch) + beta y, row-major, 1 <= batch <= bitmap_max_batch();
  // y_elem f32 or the value type.
  void spmm(const void* x, void* y, Elem x_elem, Elem y_elem, int batch, float alpha, float beta,
            std::uintptr_t stream) const;

 private:
  std::shared_ptr<const Impl> impl_;
};
DeviceBitmap upload_bitmap(const Bitmap& b);

// Device memory owned by a Python object (outputs the caller did not provide).
class DeviceAllocation {
 public:
  struct Impl;
  explicit DeviceAllocation(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  void* data() const;
  int device() const;

 private:
  std::shared_ptr<const Impl> impl_;
};
DeviceAllocation device_alloc(std::uint64_t bytes);
// Orders `to` after the work enqueued so far on `from` (an event; nothing when they are the same).
void stream_order(std::uintptr_t from, std::uintptr_t to);

}  // namespace warpsparse::py
