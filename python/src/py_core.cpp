// The host half of the Python facade (py_api.hpp): marshals plain arrays into the library's types
// and calls reference/, io and analysis/. No format or model logic lives here.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>
#include <tuple>
#include <sstream>
#include <type_traits>
#include <variant>

#include "analysis/checkpoint.hpp"
#include "analysis/effd.hpp"
#include "python/src/py_api.hpp"
#include "python/src/py_core_detail.hpp"
#include "reference/bitmap/bitmap_schedule.hpp"
#include "reference/csr/csr_format.hpp"
#include "reference/device/device_facts.hpp"
#include "reference/io/format_safetensors.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/matrix_market.hpp"
#include "reference/io/tensor_file.hpp"
#include "reference/macko/macko_policy.hpp"
#include "reference/macko/macko_verify.hpp"
#include "reference/sparse/prune.hpp"
#include "reference/sparse24/sparse24_gemm_model.hpp"
#include "ws_git_commit.h"

namespace warpsparse::py {

using namespace detail;

std::size_t elem_bytes(Elem e) {
  switch (e) {
    case Elem::i8: case Elem::u8: return 1;
    case Elem::f16: case Elem::bf16: case Elem::u16: return 2;
    case Elem::f32: case Elem::i32: case Elem::u32: return 4;
    case Elem::i64: case Elem::u64: case Elem::f64: return 8;
  }
  return 0;
}

std::string elem_name(Elem e) {
  static const char* const names[] = {"float16", "bf16", "float32", "int8", "uint8", "uint16",
                                      "int32", "int64", "uint32", "uint64", "float64"};
  return names[static_cast<int>(e)];
}

std::string version() { return std::string(PROJECT_VERSION_STRING) + " (" + WS_GIT_COMMIT_BUILD + ")"; }

namespace detail {

ValueType value_type_of(Elem e) {
  switch (e) {
    case Elem::f16: return ValueType::fp16;
    case Elem::bf16: case Elem::u16: return ValueType::bf16;
    case Elem::f32: return ValueType::fp32;
    case Elem::i8: return ValueType::int8;
    default:
      throw std::invalid_argument("dtype " + elem_name(e) +
                                  " is not a matrix value type (float16, float32, int8, or uint16 holding bf16 bits)");
  }
}

void require_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw FileNotFound(path + ": no such file");
}

std::int64_t element_count(const HostArray& a) {
  std::int64_t n = 1;
  for (const std::int64_t d : a.shape) n *= d;
  return n;
}

void require_matrix(const HostArray& a, const char* what) {
  if (a.shape.size() != 2)
    throw std::invalid_argument(std::string(what) + " must be a 2-D array, got " + std::to_string(a.shape.size()) +
                                "-D of shape " + shape_string(a.shape));
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace detail

namespace {

template <class T>
std::span<const T> host_span(const HostArray& a) {
  return {static_cast<const T*>(a.data), static_cast<std::size_t>(element_count(a))};
}

// A 2-D dense array as the value type it holds.
template <class F>
decltype(auto) with_dense(const HostArray& dense, F&& f) {
  require_matrix(dense, "a dense matrix");
  return dispatch_value_type(value_type_of(dense.elem), [&](auto zero) -> decltype(auto) {
    using T = decltype(zero);
    return f(host_span<T>(dense), dense.shape[0], dense.shape[1], zero);
  });
}

template <class T>
SparseRows<T> rows_of(std::span<const T> d, std::int64_t rows, std::int64_t cols) {
  return SparseRows<T>::from_dense(rows, cols, std::vector<T>(d.begin(), d.end()));
}

ValueType parse_or(const std::string& name, ValueType fallback) {
  return name.empty() ? fallback : parse_value_type(name);
}

template <class Variant>
std::string variant_value_type(const Variant& v) {
  return std::visit([](const auto& m) { return std::string(to_string(ValueTypeOf<typename std::decay_t<decltype(m)>::value_type>::value)); }, v);
}

}  // namespace

// ----- Rows --------------------------------------------------------------------------------------

std::int64_t Rows::rows() const { return std::visit([](const auto& r) { return r.rows; }, impl_->v); }
std::int64_t Rows::cols() const { return std::visit([](const auto& r) { return r.cols; }, impl_->v); }
std::int64_t Rows::nnz() const { return std::visit([](const auto& r) { return r.nnz(); }, impl_->v); }
std::string Rows::value_type() const { return variant_value_type(impl_->v); }
OwnedArray Rows::row_ptr() const {
  return std::visit([&](const auto& r) { return view(r.row_ptr, {r.rows + 1}, impl_); }, impl_->v);
}
OwnedArray Rows::col() const {
  return std::visit([&](const auto& r) { return view(r.col, {r.nnz()}, impl_); }, impl_->v);
}
OwnedArray Rows::val() const {
  return std::visit([&](const auto& r) { return view(r.val, {r.nnz()}, impl_); }, impl_->v);
}
OwnedArray Rows::to_dense() const {
  return std::visit([](const auto& r) { return own(r.to_dense(), {r.rows, r.cols}); }, impl_->v);
}

Rows rows_from_dense(const HostArray& dense) {
  return with_dense(dense, [](auto d, std::int64_t rows, std::int64_t cols, auto) {
    return Rows(std::make_shared<const Rows::Impl>(Rows::Impl{rows_of(d, rows, cols)}));
  });
}

// ----- MACKO -------------------------------------------------------------------------------------

namespace {
MackoParams params_of(const MackoOptions& o) {
  return {.delta_bits = o.delta_bits, .emit_trailing_padding = o.emit_trailing_padding,
          .force_wide_row_pointers = o.force_wide_row_pointers, .align_rows = o.align_rows};
}
Macko macko_of(io::AnyMacko m) { return Macko(std::make_shared<const Macko::Impl>(Macko::Impl{std::move(m)})); }
}  // namespace

std::int64_t Macko::rows() const { return std::visit([](const auto& m) { return m.rows; }, impl_->m); }
std::int64_t Macko::cols() const { return std::visit([](const auto& m) { return m.cols; }, impl_->m); }
std::int64_t Macko::nnz() const { return std::visit([](const auto& m) { return m.nnz; }, impl_->m); }
std::int64_t Macko::emitted() const { return std::visit([](const auto& m) { return m.emitted(); }, impl_->m); }
int Macko::delta_bits() const { return std::visit([](const auto& m) { return m.delta_bits; }, impl_->m); }
std::string Macko::value_type() const { return std::string(to_string(io::value_type_of(impl_->m))); }
bool Macko::wide_row_pointers() const { return std::visit([](const auto& m) { return m.row_ptr.wide; }, impl_->m); }
std::uint64_t Macko::storage_bytes() const { return std::visit([](const auto& m) { return m.storage_bytes(); }, impl_->m); }
double Macko::effective_density() const {
  return std::visit([](const auto& m) { return m.effective_density(); }, impl_->m);
}
OwnedArray Macko::values() const {
  return std::visit([&](const auto& m) { return view(m.values, {m.padded_length()}, impl_); }, impl_->m);
}
OwnedArray Macko::deltas() const {
  return std::visit([&](const auto& m) { return view(m.deltas, {static_cast<std::int64_t>(m.deltas.size())}, impl_); },
                    impl_->m);
}
OwnedArray Macko::row_ptr() const {
  return std::visit([&](const auto& m) {
    return m.row_ptr.wide ? view(m.row_ptr.wide_ptr, {m.rows + 1}, impl_) : view(m.row_ptr.narrow, {m.rows + 1}, impl_);
  }, impl_->m);
}
OwnedArray Macko::to_dense() const {
  return std::visit([](const auto& m) { return own(decode_macko(m).to_dense(), {m.rows, m.cols}); }, impl_->m);
}
Rows Macko::to_rows() const {
  return std::visit([](const auto& m) {
    return Rows(std::make_shared<const Rows::Impl>(Rows::Impl{decode_macko(m)}));
  }, impl_->m);
}

namespace {
// The delta width "auto" (0) resolved by the policy for the H100, then the encoding.
template <class T>
Macko encode_rows(const SparseRows<T>& r, const MackoOptions& o) {
  return macko_of(warpsparse::encode_macko(r, macko::resolve_delta_bits(r, params_of(o), kH100)));
}
}  // namespace

Macko encode_macko(const HostArray& dense, const MackoOptions& o) {
  return with_dense(dense, [&](auto d, std::int64_t rows, std::int64_t cols, auto) { return encode_rows(rows_of(d, rows, cols), o); });
}
Macko encode_macko(const Rows& rows, const MackoOptions& o) {
  return std::visit([&](const auto& r) { return encode_rows(r, o); }, rows.impl()->v);
}

// ----- CSR ---------------------------------------------------------------------------------------

std::int64_t Csr::rows() const { return std::visit([](const auto& m) { return m.rows; }, impl_->v); }
std::int64_t Csr::cols() const { return std::visit([](const auto& m) { return m.cols; }, impl_->v); }
std::int64_t Csr::nnz() const { return std::visit([](const auto& m) { return m.nnz(); }, impl_->v); }
int Csr::index_bits() const {
  return std::visit([](const auto& m) { return static_cast<int>(8 * sizeof(m.col[0])); }, impl_->v);
}
std::string Csr::value_type() const {
  return std::visit([](const auto& m) { return std::string(to_string(ValueTypeOf<std::decay_t<decltype(m.val[0])>>::value)); },
                    impl_->v);
}
std::uint64_t Csr::storage_bytes() const { return std::visit([](const auto& m) { return m.storage_bytes(); }, impl_->v); }
OwnedArray Csr::row_ptr() const {
  return std::visit([&](const auto& m) { return view(m.row_ptr, {m.rows + 1}, impl_); }, impl_->v);
}
OwnedArray Csr::col() const { return std::visit([&](const auto& m) { return view(m.col, {m.nnz()}, impl_); }, impl_->v); }
OwnedArray Csr::val() const { return std::visit([&](const auto& m) { return view(m.val, {m.nnz()}, impl_); }, impl_->v); }
OwnedArray Csr::to_dense() const {
  // CSR holds SparseRows' arrays with narrower indices: widen them back and let SparseRows lay out
  // the dense matrix.
  return std::visit([](const auto& m) {
    using T = std::decay_t<decltype(m.val[0])>;
    SparseRows<T> r;
    r.rows = m.rows;
    r.cols = m.cols;
    r.row_ptr.assign(m.row_ptr.begin(), m.row_ptr.end());
    r.col.assign(m.col.begin(), m.col.end());
    r.val = m.val;
    r.validate();
    return own(r.to_dense(), {m.rows, m.cols});
  }, impl_->v);
}

Csr encode_csr(const Rows& rows, int index_bits) {
  if (index_bits != 32 && index_bits != 16)
    throw std::invalid_argument("CSR index bits must be 32 or 16, got " + std::to_string(index_bits));
  return std::visit([&](const auto& r) {
    using T = typename std::decay_t<decltype(r)>::value_type;
    Csr::Impl impl = index_bits == 32 ? Csr::Impl{warpsparse::encode_csr<T, std::int32_t>(r)}
                                      : Csr::Impl{warpsparse::encode_csr<T, std::uint16_t>(r)};
    return Csr(std::make_shared<const Csr::Impl>(std::move(impl)));
  }, rows.impl()->v);
}
Csr encode_csr(const HostArray& dense, int index_bits) { return encode_csr(rows_from_dense(dense), index_bits); }

// ----- 2:4 ---------------------------------------------------------------------------------------

std::int64_t Sparse24::rows() const { return std::visit([](const auto& s) { return std::int64_t{s.rows}; }, impl_->v); }
std::int64_t Sparse24::cols() const { return std::visit([](const auto& s) { return std::int64_t{s.cols}; }, impl_->v); }
std::int64_t Sparse24::rows_padded() const {
  return std::visit([](const auto& s) { return std::int64_t{s.rows_padded}; }, impl_->v);
}
std::int64_t Sparse24::cols_padded() const {
  return std::visit([](const auto& s) { return std::int64_t{s.cols_padded}; }, impl_->v);
}
std::string Sparse24::value_type() const {
  return std::visit([](const auto& s) { return std::string(to_string(ValueTypeOf<std::decay_t<decltype(s.values[0])>>::value)); },
                    impl_->v);
}
OwnedArray Sparse24::values() const {
  return std::visit([&](const auto& s) { return view(s.values, {s.rows_padded, s.cols_padded / 2}, impl_); }, impl_->v);
}
OwnedArray Sparse24::metadata() const {
  return std::visit([&](const auto& s) {
    return view(s.meta, {s.rows_padded, s.cols_padded / sparse24::kColsPerMeta16}, impl_);
  }, impl_->v);
}
OwnedArray Sparse24::to_dense() const {
  return std::visit([](const auto& s) { return own(sparse24::decompress(s), {s.rows, s.cols}); }, impl_->v);
}

Sparse24 encode_sparse24(const HostArray& dense) {
  return with_dense(dense, [](auto d, std::int64_t rows, std::int64_t cols, auto zero) {
    using T = decltype(zero);
    if (rows > INT32_MAX || cols > INT32_MAX)
      throw std::invalid_argument("a 2:4 matrix has at most 2^31 - 1 rows and columns, got " +
                                  shape_string({rows, cols}));
    return Sparse24(std::make_shared<const Sparse24::Impl>(
        Sparse24::Impl{sparse24::compress<T>(d, static_cast<int>(rows), static_cast<int>(cols))}));
  });
}

// ----- bitmap tiles ------------------------------------------------------------------------------

std::int64_t Bitmap::rows() const { return std::visit([](const auto& b) { return b.rows; }, impl_->v); }
std::int64_t Bitmap::cols() const { return std::visit([](const auto& b) { return b.cols; }, impl_->v); }
std::int64_t Bitmap::nnz() const { return std::visit([](const auto& b) { return b.nnz(); }, impl_->v); }
std::string Bitmap::value_type() const { return variant_value_type(impl_->v); }
std::uint64_t Bitmap::storage_bytes() const { return std::visit([](const auto& b) { return b.storage_bytes(); }, impl_->v); }
double Bitmap::effective_density() const { return std::visit([](const auto& b) { return b.effective_density(); }, impl_->v); }
OwnedArray Bitmap::to_dense() const {
  return std::visit([](const auto& b) { return own(decode_bitmap(b).to_dense(), {b.rows, b.cols}); }, impl_->v);
}

Bitmap encode_bitmap(const HostArray& dense) {
  return with_dense(dense, [](auto d, std::int64_t rows, std::int64_t cols, auto zero) -> Bitmap {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, std::int8_t>) {
      throw std::invalid_argument("bitmap tiles hold float16, bfloat16 or float32 values, not int8");
    } else {
      return Bitmap(std::make_shared<const Bitmap::Impl>(Bitmap::Impl{warpsparse::encode_bitmap(rows_of(d, rows, cols))}));
    }
  });
}

// ----- pruning -----------------------------------------------------------------------------------

OwnedArray prune(const HostArray& dense, double density, const std::string& per, const std::string& nm) {
  if (per != "row" && per != "tensor") throw std::invalid_argument("per must be 'row' or 'tensor', got '" + per + "'");
  prune::require_density(density);  // given with nm too: a wrong value is a mistake either way
  prune::NM nmv;
  try {
    if (!nm.empty()) nmv = prune::parse_nm(nm);
  } catch (const Error& e) {
    throw std::invalid_argument(std::string("nm: ") + e.what());
  }
  const int n = nmv.n, m = nmv.m;
  return with_dense(dense, [&](auto d, std::int64_t rows, std::int64_t cols, auto zero) {
    using T = decltype(zero);
    std::vector<float> mag(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) mag[i] = prune::magnitude(to_float(d[i]));
    std::vector<std::uint8_t> keep(d.size());
    const auto row = [&](std::int64_t r) { return std::span(mag).subspan(static_cast<std::size_t>(r * cols), static_cast<std::size_t>(cols)); };
    const auto row_keep = [&](std::int64_t r) { return std::span(keep).subspan(static_cast<std::size_t>(r * cols), static_cast<std::size_t>(cols)); };
    if (m > 0) {
      for (std::int64_t r = 0; r < rows; ++r) prune::keep_n_of_m(row(r), n, m, row_keep(r));
    } else if (per == "tensor") {
      prune::keep_largest(mag, prune::kept_count(density, rows * cols), keep);
    } else {
      for (std::int64_t r = 0; r < rows; ++r) prune::keep_largest(row(r), prune::kept_count(density, cols), row_keep(r));
    }
    std::vector<T> out(d.begin(), d.end());
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!keep[i]) out[i] = from_float<T>(0.0f);
    return own(std::move(out), {rows, cols});
  });
}

// ----- files -------------------------------------------------------------------------------------

void write_macko(const std::string& path, const Macko& m) { io::write_macko_file(path, m.impl()->m); }
void write_macko_safetensors(const std::string& path, const Macko& m, const std::map<std::string, std::string>& extra) {
  io::write_macko_safetensors(path, m.impl()->m, extra);
}
void write_sparse24_safetensors(const std::string& path, const Sparse24& s,
                                const std::map<std::string, std::string>& extra) {
  std::visit([&](const auto& a) { io::write_sparse24_safetensors(path, a, extra); }, s.impl()->v);
}

Macko read_macko(const std::string& path) {
  require_file(path);
  if (io::is_tensor_file(path)) {
    const auto f = io::open_tensor_file(path);
    return macko_of(io::read_macko_safetensors(*f));
  }
  return macko_of(io::read_macko_file(path));
}

void write_bitmap_safetensors(const std::string& path, const Bitmap& b, const std::map<std::string, std::string>& extra) {
  std::visit([&](const auto& a) { io::write_bitmap_safetensors(path, a, extra); }, b.impl()->v);
}

Bitmap read_bitmap(const std::string& path) {
  require_file(path);
  const auto f = io::open_tensor_file(path);
  return std::visit([](auto&& b) { return Bitmap(std::make_shared<const Bitmap::Impl>(Bitmap::Impl{std::move(b)})); },
                    io::read_bitmap_safetensors(*f));
}

Sparse24 read_sparse24(const std::string& path) {
  require_file(path);
  const auto f = io::open_tensor_file(path);
  const auto vt = f->metadata().find("value_type");
  // Another format, or no value type: the reader's own checks (the format first) say so.
  if (io::warpsparse_format(*f) != io::kSparse24SafetensorsFormat || vt == f->metadata().end())
    (void)io::read_sparse24_safetensors<half>(*f);
  return dispatch_value_type(parse_value_type(vt->second), [&](auto zero) {
    using T = decltype(zero);
    return Sparse24(std::make_shared<const Sparse24::Impl>(Sparse24::Impl{io::read_sparse24_safetensors<T>(*f)}));
  });
}

Rows read_matrix_market(const std::string& path, const std::string& value_type) {
  require_file(path);
  return dispatch_value_type(parse_or(value_type, ValueType::fp16), [&](auto zero) {
    using T = decltype(zero);
    return Rows(std::make_shared<const Rows::Impl>(Rows::Impl{io::read_matrix_market_file<T>(path)}));
  });
}
void write_matrix_market(const std::string& path, const Rows& rows) {
  std::visit([&](const auto& r) { io::write_matrix_market_file(path, r); }, rows.impl()->v);
}

struct TensorFile::Impl {
  std::unique_ptr<io::TensorFile> f;
};

TensorFile open_tensor_file(const std::string& path) {
  require_file(path);
  return TensorFile(std::make_shared<TensorFile::Impl>(TensorFile::Impl{io::open_tensor_file(path)}));
}
std::string TensorFile::path() const { return impl_->f->path(); }
std::vector<TensorEntry> TensorFile::tensors() const {
  std::vector<TensorEntry> out;
  for (const io::TensorInfo& t : impl_->f->tensors()) out.push_back({t.name, t.dtype_name, t.file, t.shape});
  return out;
}
std::map<std::string, std::string> TensorFile::metadata() const { return impl_->f->metadata(); }

OwnedArray TensorFile::array(const std::string& name) const {
  const io::TensorInfo& t = impl_->f->find(name);
  static const std::map<std::string, Elem> kElems = {
      {"F16", Elem::f16}, {"BF16", Elem::u16}, {"F32", Elem::f32}, {"F64", Elem::f64}, {"I8", Elem::i8},
      {"U8", Elem::u8},   {"U16", Elem::u16},  {"I32", Elem::i32}, {"I64", Elem::i64}, {"U32", Elem::u32}, {"U64", Elem::u64}};
  const auto e = kElems.find(t.safetensors_dtype);
  if (e == kElems.end())
    throw std::invalid_argument(t.label() + ": dtype " + t.dtype_name + " has no array type here");
  const std::span<const std::uint8_t> bytes = impl_->f->data(t);
  OwnedArray a{const_cast<std::uint8_t*>(bytes.data()), e->second, t.shape, {}, impl_};
  if (t.fortran_order) {  // column-major .npy data: the same bytes, strides reversed
    std::int64_t stride = static_cast<std::int64_t>(elem_bytes(e->second));
    for (const std::int64_t d : t.shape) {
      a.strides.push_back(stride);
      stride *= d;
    }
  }
  return a;
}

Rows TensorFile::rows(const std::string& name, bool transpose, const std::string& value_type) const {
  const io::TensorInfo& t = impl_->f->find(name);
  // A dtype no matrix is read from falls back to fp16 here; tensor_rows then names the tensor and it.
  const ValueType vt =
      parse_or(value_type, t.dtype == io::DType::other ? ValueType::fp16 : io::value_type_of(t.dtype));
  return dispatch_value_type(vt, [&](auto zero) {
    using T = decltype(zero);
    return Rows(std::make_shared<const Rows::Impl>(Rows::Impl{io::tensor_rows<T>(t, impl_->f->data(t), transpose)}));
  });
}

// ----- the warp model ----------------------------------------------------------------------------

namespace {

// x holding a number of vectors the model does not multiply at once (the oracle takes any count
// from 1 on, given the chain).
std::invalid_argument batch_error(const HostArray& x, std::int64_t b) {
  return std::invalid_argument("x of shape " + shape_string(x.shape) + " holds " + std::to_string(b) +
                               " vectors; the model multiplies 1, 2, 4 or 8 at once");
}

// x of shape (cols,) or (cols, batch) in the x type the model takes for this matrix.
template <class T>
std::span<const MackoXOf<T>> x_of(const warpsparse::Macko<T>& a, const HostArray& x, int& batch) {
  using TX = MackoXOf<T>;
  if (x.shape.empty() || x.shape.size() > 2 || x.shape[0] != a.cols)
    throw std::invalid_argument("x must have shape (cols,) or (cols, batch) with cols = " + std::to_string(a.cols) +
                                ", got " + shape_string(x.shape));
  const ValueType want = ValueTypeOf<TX>::value;
  if (value_type_of(x.elem) != want)
    throw std::invalid_argument("x of a " + std::string(to_string(a.kValueType)) + " matrix must be " +
                                std::string(to_string(want)) + ", got " + elem_name(x.elem));
  const std::int64_t b = x.shape.size() == 2 ? x.shape[1] : 1;
  if (b < 1 || b > std::numeric_limits<int>::max()) throw batch_error(x, b);
  batch = static_cast<int>(b);
  return host_span<TX>(x);
}

// The schedule of a model call on `batch` vectors: the named one (which must multiply as many), or
// the default one at that batch.
macko::Schedule schedule_of(const std::string& name, int batch) {
  macko::Schedule s;
  // Without a valid batch there is no schedule (the model, the default chain).
  if (name.empty() && !macko::valid_batch(batch))
    throw std::invalid_argument("a schedule multiplies 1, 2, 4 or 8 vectors at once, not " +
                                std::to_string(batch));
  if (!name.empty()) s = macko::parse_schedule(name);
  else s.batch = batch;
  if (s.batch != batch)
    throw std::invalid_argument("schedule " + macko::to_string(s) + " multiplies " + std::to_string(s.batch) +
                                " vectors, x holds " + std::to_string(batch));
  return s;
}

// The element types a model's output, or its bound, may be for inputs of type TX: float32, or TX
// itself (bf16 as "bf16" or numpy's uint16); refused by name otherwise.
template <class TX>
void require_output_elem(Elem e, const char* what) {
  bool ok = e == Elem::f32;
  if constexpr (std::is_same_v<TX, half>) ok = ok || e == Elem::f16;
  if constexpr (std::is_same_v<TX, bfloat16>) ok = ok || e == Elem::bf16 || e == Elem::u16;
  if (!ok)
    throw std::invalid_argument(std::string(what) + " is float32 or the input type " +
                                std::string(to_string(ValueTypeOf<TX>::value)) + ", got " + elem_name(e));
}

std::vector<std::int64_t> result_shape(const HostArray& x, std::int64_t rows) {
  std::vector<std::int64_t> shape = x.shape;
  shape[0] = rows;
  return shape;
}

}  // namespace

VerifyReport verify(const Macko& m, std::uint64_t seed, const std::vector<int>& accumulators, int batch, int row_lanes) {
  require_verify_args(batch, row_lanes, accumulators);
  return std::visit([&](const auto& a) {
    MemoryBudget::default_budget().require(macko_verify_bytes(a, batch),
                                           "verifying a " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix");
    const MackoVerifyResult r = macko_verify(a, seed, accumulators, batch, row_lanes);
    VerifyReport v{.ok = r.fault.empty() && r.check.ok(),
                   .max_error = r.check.max_error,
                   .max_bound_ratio = r.check.max_bound_ratio,
                   .model_seconds = r.model_seconds,
                   .overflows = r.check.overflows,
                   .failures = r.check.failures,
                   .schedules = r.schedules,
                   .first_failure = r.check.first_failure,
                   .fault = r.fault,
                   .loads = {}};  // filled below
    for (const auto& [name, st] :
         {std::pair{"values", r.traffic.values}, std::pair{"deltas", r.traffic.deltas},
          std::pair{"row_ptr", r.traffic.row_ptr}, std::pair{"x", r.traffic.x}})
      v.loads[name] = {.loads = st.instructions, .sectors = st.sectors, .lines = st.lines};
    return v;
  }, m.impl()->m);
}

OwnedArray spmv_model(const Macko& m, const HostArray& x, const std::string& schedule, float alpha, float beta,
                      Elem y_elem, const HostArray* y_old) {
  return std::visit([&](const auto& a) {
    using T = typename std::decay_t<decltype(a)>::value_type;
    using TX = MackoXOf<T>;
    int batch = 1;
    const auto xs = x_of(a, x, batch);
    const macko::Schedule s = schedule_of(schedule, batch);
    const auto run = [&](auto y_zero) {
      using TY = decltype(y_zero);
      std::span<const TY> old;
      if (y_old != nullptr) {
        if (y_old->elem != y_elem || y_old->shape != result_shape(x, a.rows))
          throw std::invalid_argument("y must be " + elem_name(y_elem) + " of shape " + shape_string(result_shape(x, a.rows)));
        old = host_span<TY>(*y_old);
      }
      return own(macko_spmv_model<T, TX, TY>(a, xs, old, alpha, beta, s), result_shape(x, a.rows));
    };
    require_output_elem<TX>(y_elem, "y of the model");
    return y_elem == Elem::f32 ? run(float{}) : run(TX{});
  }, m.impl()->m);
}

OracleBound macko_oracle_bound(const Macko& m, const HostArray& x, const std::string& schedule, std::int64_t chain,
                               Elem y_elem) {
  return std::visit([&](const auto& a) {
    using T = typename std::decay_t<decltype(a)>::value_type;
    using TX = MackoXOf<T>;
    if (chain < 0)
      throw std::invalid_argument("chain must be 0 (each row's own) or positive, got " +
                                  std::to_string(chain));
    require_output_elem<TX>(y_elem, "out_dtype");
    // Any number of vectors with a chain given; the rows' own chains need the schedule's batch.
    int batch = 1;
    const auto xs = x_of(a, x, batch);
    const macko::Schedule s =
        chain > 0 && schedule.empty() ? macko::Schedule{} : schedule_of(schedule, batch);
    MemoryBudget::default_budget().require(
        sat_mul(sat_mul(static_cast<std::uint64_t>(a.rows), static_cast<std::uint64_t>(batch)),
                2 * sizeof(double)),
        "the oracle of " + std::to_string(batch) + " vectors");
    const SparseRows<T> rows = decode_macko(a);
    std::vector<double> exact(static_cast<std::size_t>(a.rows * batch)), bound(exact.size());
    const std::vector<float> no_y;
    for (int v = 0; v < batch; ++v) {
      const std::vector<TX> xv = batch_column<TX>(xs, batch, v);
      const std::span<const TX> xspan(xv);
      const std::vector<double> want = spmv_oracle<T, TX, float>(rows, xv, no_y, 1.0, 0.0);
      for (std::int64_t r = 0; r < a.rows; ++r) {
        const std::int64_t k_chain = chain > 0 ? chain : macko_chain_length(a.row_ptr[r + 1] - a.row_ptr[r], a.delta_bits, s);
        const auto i = static_cast<std::size_t>(r * batch + v);
        exact[i] = want[static_cast<std::size_t>(r)];
        bound[i] = y_elem == Elem::f32 ? spmv_row_bound<float>(rows, xspan, r, 1.0, 0.0, k_chain, exact[i]).bound
                                       : spmv_row_bound<TX>(rows, xspan, r, 1.0, 0.0, k_chain, exact[i]).bound;
      }
    }
    return OracleBound{own(std::move(exact), result_shape(x, a.rows)), own(std::move(bound), result_shape(x, a.rows))};
  }, m.impl()->m);
}

OracleBound sparse24_oracle_bound(const Sparse24& s, const HostArray& b, Elem c_elem) {
  return std::visit([&](const auto& a) {
    using T = std::decay_t<decltype(a.values[0])>;
    if (b.shape.size() != 2 || b.shape[0] != a.cols)
      throw std::invalid_argument("B must have shape (cols, n) with cols = " + std::to_string(a.cols) + ", got " +
                                  shape_string(b.shape));
    if (value_type_of(b.elem) != ValueTypeOf<T>::value)
      throw std::invalid_argument("B must hold the matrix's value type " + std::string(to_string(ValueTypeOf<T>::value)));
    if (b.shape[1] > std::numeric_limits<int>::max())
      throw std::invalid_argument("B has " + std::to_string(b.shape[1]) +
                                  " columns, more than the GEMM's int n");
    const int n = static_cast<int>(b.shape[1]);
    MemoryBudget::default_budget().require(
        sat_mul(sat_mul(static_cast<std::uint64_t>(a.rows), static_cast<std::uint64_t>(n)),
                3 * sizeof(double)),
        "the oracle of a " + std::to_string(a.rows) + " x " + std::to_string(n) + " product");
    std::vector<double> exact, abs_dot;
    sparse24::oracle_gemm<T>(a, host_span<T>(b), n, exact, abs_dot);
    require_output_elem<T>(c_elem, "out_dtype");
    const ValueType out = c_elem == Elem::f32 ? ValueType::fp32 : ValueTypeOf<T>::value;
    std::vector<double> bound(exact.size());
    for (std::size_t i = 0; i < exact.size(); ++i)
      bound[i] = sparse24::ErrorBound::bound(exact[i], abs_dot[i], a.cols_padded, out);
    const std::vector<std::int64_t> shape{a.rows, n};
    return OracleBound{own(std::move(exact), shape), own(std::move(bound), shape)};
  }, s.impl()->v);
}

PlanInfo plan(const Macko& m, const std::string& gpu, int batch) {
  return std::visit([&](const auto& a) {
    const macko::Plan p = macko::plan_schedule(macko::matrix_stats(a), known_gpu(gpu), batch);
    return PlanInfo{macko::to_string(p.schedule), p.why};
  }, m.impl()->m);
}

BatchKernelChoice batch_kernel(double density, int batch, bool sparse24, bool macko_x_l1) {
  if (!(density >= 0.0 && density <= 1.0)) throw std::invalid_argument("density must be in [0, 1], got " + std::to_string(density));
  if (batch < 1 || batch > bitmap::kBatchMax)
    throw std::invalid_argument("batch must be in 1.." + std::to_string(bitmap::kBatchMax) + ", got " + std::to_string(batch));
  const bitmap::BatchChoice c = bitmap::choose_batch_kernel(density, batch, {.sparse24 = sparse24, .macko_x_l1 = macko_x_l1});
  return {bitmap::to_string(c.kernel), c.macko_batch, c.why};
}
int bitmap_max_batch() { return bitmap::kBatchMax; }

std::vector<int> compiled_batches() {
  std::vector<int> out;
  for (const macko::CompiledVariant& v : macko::kCompiledVariants)
    if (std::find(out.begin(), out.end(), v.schedule.batch) == out.end()) out.push_back(v.schedule.batch);
  std::sort(out.begin(), out.end());
  return out;
}

// ----- analyses ----------------------------------------------------------------------------------

namespace {
analysis::StorageConfig storage_config(int value_bits, int delta_bits, std::int64_t rows, std::int64_t cols) {
  analysis::StorageConfig c;
  c.value_bits = value_bits;
  c.delta_bits = delta_bits;
  c.shape = {rows, cols};
  c.validate();
  return c;
}
}  // namespace

std::map<std::string, double> effd(double density, int value_bits, int delta_bits, std::int64_t rows, std::int64_t cols) {
  const analysis::StorageConfig c = storage_config(value_bits, delta_bits, rows, cols);
  std::map<std::string, double> out;
  for (const analysis::Format f : analysis::all_formats()) out[analysis::format_name(f)] = analysis::format_effd(f, density, c);
  return out;
}

std::vector<CrossoverRow> crossovers(int value_bits, int delta_bits, std::int64_t rows, std::int64_t cols) {
  std::vector<CrossoverRow> out;
  for (const analysis::Crossover& x : analysis::crossovers(storage_config(value_bits, delta_bits, rows, cols)))
    out.push_back({x.name, x.scenario, x.claim, x.source, x.verdict(), x.found, x.density});
  return out;
}

std::string analyze_json(const std::string& path, bool transpose, int threads) {
  require_file(path);
  const auto f = io::open_tensor_file(path);
  analysis::AnalyzeOptions o;
  o.transpose = transpose;
  o.threads = threads;
  return analysis::analysis_json(analysis::analyze_checkpoint(*f, o)).dump();
}

}  // namespace warpsparse::py
