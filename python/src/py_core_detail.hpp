// Inside libws_py_core only: what the facade's opaque classes hold, and the helpers that hand the
// library's arrays out as OwnedArray without copying them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "python/src/py_api.hpp"
#include "reference/bitmap/bitmap_format.hpp"
#include "reference/csr/csr_format.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/sparse24/sparse24_format.hpp"

namespace warpsparse::py {

struct Rows::Impl {
  std::variant<SparseRows<half>, SparseRows<bfloat16>, SparseRows<float>, SparseRows<std::int8_t>> v;
};
struct Macko::Impl {
  io::AnyMacko m;
};
struct Csr::Impl {
  std::variant<warpsparse::Csr<half, std::int32_t>, warpsparse::Csr<half, std::uint16_t>,
               warpsparse::Csr<bfloat16, std::int32_t>, warpsparse::Csr<bfloat16, std::uint16_t>,
               warpsparse::Csr<float, std::int32_t>, warpsparse::Csr<float, std::uint16_t>,
               warpsparse::Csr<std::int8_t, std::int32_t>, warpsparse::Csr<std::int8_t, std::uint16_t>>
      v;
};
struct Sparse24::Impl {
  std::variant<sparse24::Sparse24Matrix<half>, sparse24::Sparse24Matrix<bfloat16>, sparse24::Sparse24Matrix<float>,
               sparse24::Sparse24Matrix<std::int8_t>>
      v;
};

struct Bitmap::Impl {
  std::variant<warpsparse::Bitmap<half>, warpsparse::Bitmap<bfloat16>, warpsparse::Bitmap<float>> v;
};

namespace detail {

template <class V> constexpr Elem elem_of();
template <> constexpr Elem elem_of<half>() { return Elem::f16; }
template <> constexpr Elem elem_of<bfloat16>() { return Elem::bf16; }
template <> constexpr Elem elem_of<float>() { return Elem::f32; }
template <> constexpr Elem elem_of<double>() { return Elem::f64; }
template <> constexpr Elem elem_of<std::int8_t>() { return Elem::i8; }
template <> constexpr Elem elem_of<std::uint8_t>() { return Elem::u8; }
template <> constexpr Elem elem_of<std::uint16_t>() { return Elem::u16; }
template <> constexpr Elem elem_of<std::int32_t>() { return Elem::i32; }
template <> constexpr Elem elem_of<std::int64_t>() { return Elem::i64; }
template <> constexpr Elem elem_of<std::uint32_t>() { return Elem::u32; }
template <> constexpr Elem elem_of<std::uint64_t>() { return Elem::u64; }

// An array inside an object the facade owns: the object keeps the bytes alive.
template <class V, class Owner>
OwnedArray view(const std::vector<V>& v, std::vector<std::int64_t> shape, const std::shared_ptr<Owner>& owner) {
  return {const_cast<V*>(v.data()), elem_of<V>(), std::move(shape), {}, owner};
}
// A new array: the vector moves into the owner, its bytes stay where they are.
template <class V>
OwnedArray own(std::vector<V>&& v, std::vector<std::int64_t> shape) {
  auto p = std::make_shared<std::vector<V>>(std::move(v));
  return {p->data(), elem_of<V>(), std::move(shape), {}, p};
}

ValueType value_type_of(Elem e);  // the value type a dense array holds; invalid_argument otherwise
void require_file(const std::string& path);
std::int64_t element_count(const HostArray& a);
void require_matrix(const HostArray& a, const char* what);
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace detail
}  // namespace warpsparse::py
