#include "reference/io/format_safetensors.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <limits>
#include <ostream>

namespace warpsparse::io {

std::string safetensors_dtype(ValueType t) {
  switch (t) {
    case ValueType::fp16: return "F16";
    case ValueType::bf16: return "BF16";
    case ValueType::fp32: return "F32";
    case ValueType::int8: return "I8";
  }
  throw Error("invalid value type");
}

std::string warpsparse_format(const TensorFile& f) {
  const auto it = f.metadata().find(kFormatKey);
  return it == f.metadata().end() ? std::string() : it->second;
}

namespace {

template <class V>
TensorOut array_out(std::string name, std::string dtype, std::vector<std::int64_t> shape, const std::vector<V>& v) {
  const std::uint64_t bytes = v.size() * sizeof(V);
  return {std::move(name), std::move(dtype), std::move(shape), bytes, [&v, bytes](std::ostream& o) {
            o.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(bytes));
          }};
}

// A metadata field as a whole number in [lo, hi].
std::int64_t meta_int(const TensorFile& f, const std::string& key, std::int64_t lo, std::int64_t hi) {
  const auto it = f.metadata().find(key);
  if (it == f.metadata().end()) throw Error(f.path() + ": __metadata__: no \"" + key + "\"");
  std::int64_t v = 0;
  const auto& s = it->second;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi)
    throw Error(fmt::format("{}: __metadata__: {} = '{}' is not a whole number in [{}, {}]", f.path(), key, s.substr(0, 40), lo, hi));
  return v;
}

// The tensor `name`, checked to have `dtype` and `dims` dimensions.
const TensorInfo& array_in(const TensorFile& f, const std::string& name, const std::string& dtype, std::size_t dims) {
  const auto& ts = f.tensors();
  const auto it = std::find_if(ts.begin(), ts.end(), [&](const TensorInfo& t) { return t.name == name; });
  if (it == ts.end()) throw Error(f.path() + ": no tensor '" + name + "' (a warpsparse " + warpsparse_format(f) + " file holds it)");
  if (it->dtype_name != dtype) throw Error(f.path() + ":" + name + ": dtype " + it->dtype_name + ", expected " + dtype);
  if (it->shape.size() != dims)
    throw Error(fmt::format("{}:{}: shape {} has {} dimensions, expected {}", f.path(), name, it->shape_string(), it->shape.size(), dims));
  return *it;
}

template <class V>
std::vector<V> copy_of(TensorFile& f, const TensorInfo& t) {
  const auto d = f.data(t);
  std::vector<V> v(d.size() / sizeof(V));
  if (!v.empty()) std::memcpy(v.data(), d.data(), v.size() * sizeof(V));
  f.release(t);
  return v;
}

// The metadata every format's file starts from: `extra`, the format, its version, the value type.
std::map<std::string, std::string> format_metadata(const std::map<std::string, std::string>& extra, const char* format,
                                                   ValueType vt) {
  auto meta = extra;
  // Whole strings assigned, not C strings: GCC 12 warns (-Wrestrict, a false positive) on the
  // inlined copy of a literal into a map's string.
  meta.insert_or_assign(kFormatKey, std::string(format));
  meta.insert_or_assign("warpsparse.version", std::string("1"));
  meta.insert_or_assign("value_type", std::string(to_string(vt)));
  return meta;
}

// The __metadata__ value_type.
ValueType meta_value_type(const TensorFile& f) {
  const auto it = f.metadata().find("value_type");
  if (it == f.metadata().end()) throw Error(f.path() + ": __metadata__: no \"value_type\"");
  try {
    return parse_value_type(it->second);
  } catch (const Error& e) {
    throw Error(f.path() + ": __metadata__: value_type: " + e.what());
  }
}

void check_format(const TensorFile& f, const char* want) {
  const std::string got = warpsparse_format(f);
  if (got != want) throw Error(f.path() + ": __metadata__ " + kFormatKey + " is '" + got + "', expected '" + want + "'");
  if (meta_int(f, "warpsparse.version", 0, 1000) != 1) throw Error(f.path() + ": __metadata__ warpsparse.version: only version 1 is known");
}

}  // namespace

void write_macko_safetensors(const std::string& path, const AnyMacko& any, const std::map<std::string, std::string>& extra) {
  std::visit(
      [&](const auto& m) {
        using T = typename std::decay_t<decltype(m)>::value_type;
        m.validate();
        auto meta = format_metadata(extra, kMackoSafetensorsFormat, ValueTypeOf<T>::value);
        meta["delta_bits"] = std::to_string(m.delta_bits);
        meta["rows"] = std::to_string(m.rows);
        meta["cols"] = std::to_string(m.cols);
        meta["nnz"] = std::to_string(m.nnz);
        meta["emitted"] = std::to_string(m.emitted());
        std::vector<std::int64_t> ptr(static_cast<std::size_t>(m.rows) + 1);
        for (std::int64_t r = 0; r <= m.rows; ++r) ptr[static_cast<std::size_t>(r)] = m.row_ptr[r];
        write_safetensors(path,
                          {array_out("values", safetensors_dtype(ValueTypeOf<T>::value), {m.padded_length()}, m.values),
                           array_out("deltas", "U8", {static_cast<std::int64_t>(m.deltas.size())}, m.deltas),
                           array_out("row_ptr", "I64", {m.rows + 1}, ptr)},
                          meta);
      },
      any);
}

AnyMacko read_macko_safetensors(TensorFile& f, const MemoryBudget& budget) {
  check_format(f, kMackoSafetensorsFormat);
  const ValueType vt = meta_value_type(f);
  const int db = static_cast<int>(meta_int(f, "delta_bits", 1, 8));
  if (!macko::valid_delta_bits(db)) throw Error(fmt::format("{}: __metadata__: delta_bits = {} is not 1, 2, 4 or 8", f.path(), db));
  const std::int64_t rows = meta_int(f, "rows", 0, kMaxCols), cols = meta_int(f, "cols", 0, kMaxCols);
  const std::int64_t nnz = meta_int(f, "nnz", 0, std::int64_t{1} << 56);
  const TensorInfo& tv = array_in(f, "values", safetensors_dtype(vt), 1);
  const TensorInfo& td = array_in(f, "deltas", "U8", 1);
  const TensorInfo& tp = array_in(f, "row_ptr", "I64", 1);
  if (tp.shape[0] != rows + 1)
    throw Error(fmt::format("{}:row_ptr: {} entries, expected rows + 1 = {}", f.path(), tp.shape[0], rows + 1));
  budget.require(sat_add(sat_add(tv.bytes, td.bytes), tp.bytes * 2), fmt::format("{}: {} x {} MACKO matrix", f.path(), rows, cols));
  return dispatch_value_type(vt, [&](auto tag) -> AnyMacko {
    using T = decltype(tag);
    Macko<T> m;
    m.rows = rows;
    m.cols = cols;
    m.delta_bits = db;
    m.nnz = nnz;
    m.values = copy_of<T>(f, tv);
    m.deltas = copy_of<std::uint8_t>(f, td);
    const auto ptr = copy_of<std::int64_t>(f, tp);
    const auto padded = static_cast<std::int64_t>(m.values.size());
    for (std::size_t r = 0; r < ptr.size(); ++r)
      if (ptr[r] < 0 || ptr[r] > padded)
        throw Error(fmt::format("{}:row_ptr: row_ptr[{}] = {} lies outside [0, {}] (the values' length)", f.path(), r, ptr[r], padded));
    m.row_ptr.wide = padded > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max());
    if (m.row_ptr.wide) {
      m.row_ptr.wide_ptr.assign(ptr.begin(), ptr.end());
    } else {
      m.row_ptr.narrow.resize(ptr.size());
      for (std::size_t r = 0; r < ptr.size(); ++r) m.row_ptr.narrow[r] = static_cast<std::uint32_t>(ptr[r]);
    }
    if (const auto fault = m.find_fault()) throw Error(f.path() + ": " + fault->what);
    if (meta_int(f, "emitted", 0, std::int64_t{1} << 56) != m.emitted())
      throw Error(fmt::format("{}: __metadata__: emitted differs from row_ptr[rows] = {}", f.path(), m.emitted()));
    return m;
  });
}

template <class T>
void write_sparse24_safetensors(const std::string& path, const sparse24::Sparse24Matrix<T>& s,
                                const std::map<std::string, std::string>& extra) {
  auto meta = format_metadata(extra, kSparse24SafetensorsFormat, ValueTypeOf<T>::value);
  meta["rows"] = std::to_string(s.rows);
  meta["cols"] = std::to_string(s.cols);
  meta["rows_padded"] = std::to_string(s.rows_padded);
  meta["cols_padded"] = std::to_string(s.cols_padded);
  write_safetensors(path,
                    {array_out("values", safetensors_dtype(ValueTypeOf<T>::value), {s.rows_padded, s.cols_padded / 2}, s.values),
                     array_out("metadata", "U16", {s.rows_padded, s.cols_padded / sparse24::kColsPerMeta16}, s.meta)},
                    meta);
}

template <class T>
sparse24::Sparse24Matrix<T> read_sparse24_safetensors(TensorFile& f, const MemoryBudget& budget) {
  check_format(f, kSparse24SafetensorsFormat);
  const auto it = f.metadata().find("value_type");
  if (it == f.metadata().end() || it->second != to_string(ValueTypeOf<T>::value))
    throw Error(f.path() + ": __metadata__: value_type is not " + std::string(to_string(ValueTypeOf<T>::value)));
  sparse24::Sparse24Matrix<T> s;
  constexpr std::int64_t kMaxSide = std::numeric_limits<int>::max() / 2;
  s.rows = static_cast<int>(meta_int(f, "rows", 0, kMaxSide));
  s.cols = static_cast<int>(meta_int(f, "cols", 0, kMaxSide));
  s.rows_padded = static_cast<int>(meta_int(f, "rows_padded", 0, kMaxSide));
  s.cols_padded = static_cast<int>(meta_int(f, "cols_padded", 0, kMaxSide));
  const int want_rows = std::max(sparse24::kRowAlign, static_cast<int>(round_up(s.rows, sparse24::kRowAlign)));
  const int want_cols = std::max(sparse24::kColAlign, static_cast<int>(round_up(s.cols, sparse24::kColAlign)));
  if (s.rows_padded != want_rows || s.cols_padded != want_cols)
    throw Error(fmt::format("{}: __metadata__: padded shape {} x {}, expected {} x {} for {} x {}", f.path(), s.rows_padded,
                            s.cols_padded, want_rows, want_cols, s.rows, s.cols));
  const TensorInfo& tv = array_in(f, "values", safetensors_dtype(ValueTypeOf<T>::value), 2);
  const TensorInfo& tm = array_in(f, "metadata", "U16", 2);
  if (tv.shape[0] != s.rows_padded || tv.shape[1] != s.cols_padded / 2)
    throw Error(fmt::format("{}:values: shape {}, expected [{}, {}]", f.path(), tv.shape_string(), s.rows_padded, s.cols_padded / 2));
  if (tm.shape[0] != s.rows_padded || tm.shape[1] != s.cols_padded / sparse24::kColsPerMeta16)
    throw Error(fmt::format("{}:metadata: shape {}, expected [{}, {}]", f.path(), tm.shape_string(), s.rows_padded,
                            s.cols_padded / sparse24::kColsPerMeta16));
  budget.require(sat_add(tv.bytes, tm.bytes), f.path() + ": 2:4 matrix");
  s.values = copy_of<T>(f, tv);
  s.meta = copy_of<std::uint16_t>(f, tm);
  if (const auto fault = sparse24::find_fault(s)) throw Error(f.path() + ": " + *fault);
  return s;
}

template <class T>
void write_bitmap_safetensors(const std::string& path, const Bitmap<T>& b, const std::map<std::string, std::string>& extra) {
  b.validate();
  auto meta = format_metadata(extra, kBitmapSafetensorsFormat, ValueTypeOf<T>::value);
  meta["rows"] = std::to_string(b.rows);
  meta["cols"] = std::to_string(b.cols);
  write_safetensors(path,
                    {array_out("values", safetensors_dtype(ValueTypeOf<T>::value), {b.nnz()}, b.values),
                     array_out("bitmaps", "U64", {b.tiles(), bitmap::kSubtiles}, b.bitmaps),
                     array_out("tile_off", "U32", {b.tiles()}, b.tile_off),
                     array_out("row_base", "I64", {b.tile_rows() + 1}, b.row_base)},
                    meta);
}

AnyBitmap read_bitmap_safetensors(TensorFile& f, const MemoryBudget& budget) {
  check_format(f, kBitmapSafetensorsFormat);
  const ValueType vt = meta_value_type(f);
  if (vt == ValueType::int8) throw Error(f.path() + ": __metadata__: value_type int8: bitmap tiles hold fp16, bf16 or fp32");
  const std::int64_t rows = meta_int(f, "rows", 0, kMaxCols), cols = meta_int(f, "cols", 0, kBitmapMaxCols);
  const std::int64_t tile_rows = bitmap::tile_rows(rows), tiles = tile_rows * bitmap::k_tiles(cols);
  const TensorInfo& tv = array_in(f, "values", safetensors_dtype(vt), 1);
  const TensorInfo& tb = array_in(f, "bitmaps", "U64", 2);
  const TensorInfo& to = array_in(f, "tile_off", "U32", 1);
  const TensorInfo& tr = array_in(f, "row_base", "I64", 1);
  if (tb.shape[0] != tiles || tb.shape[1] != bitmap::kSubtiles)
    throw Error(fmt::format("{}:bitmaps: shape {}, expected [{}, {}] for {} x {}", f.path(), tb.shape_string(), tiles,
                            bitmap::kSubtiles, rows, cols));
  if (to.shape[0] != tiles)
    throw Error(fmt::format("{}:tile_off: {} entries, expected one per tile = {}", f.path(), to.shape[0], tiles));
  if (tr.shape[0] != tile_rows + 1)
    throw Error(fmt::format("{}:row_base: {} entries, expected tile rows + 1 = {}", f.path(), tr.shape[0], tile_rows + 1));
  budget.require(sat_add(sat_add(tv.bytes, tb.bytes), sat_add(to.bytes, tr.bytes)),
                 fmt::format("{}: {} x {} bitmap-tile matrix", f.path(), rows, cols));
  return dispatch_value_type(vt, [&](auto tag) -> AnyBitmap {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::int8_t>) {
      throw Error(f.path() + ": int8 bitmap tiles");  // refused above
    } else {
      Bitmap<T> b;
      b.rows = rows;
      b.cols = cols;
      b.values = copy_of<T>(f, tv);
      b.bitmaps = copy_of<std::uint64_t>(f, tb);
      b.tile_off = copy_of<std::uint32_t>(f, to);
      b.row_base = copy_of<std::int64_t>(f, tr);
      if (const auto fault = b.find_fault()) throw Error(f.path() + ": " + *fault);
      return b;
    }
  });
}

template void write_bitmap_safetensors(const std::string&, const Bitmap<half>&, const std::map<std::string, std::string>&);
template void write_bitmap_safetensors(const std::string&, const Bitmap<bfloat16>&, const std::map<std::string, std::string>&);
template void write_bitmap_safetensors(const std::string&, const Bitmap<float>&, const std::map<std::string, std::string>&);

template void write_sparse24_safetensors(const std::string&, const sparse24::Sparse24Matrix<half>&, const std::map<std::string, std::string>&);
template void write_sparse24_safetensors(const std::string&, const sparse24::Sparse24Matrix<bfloat16>&, const std::map<std::string, std::string>&);
template void write_sparse24_safetensors(const std::string&, const sparse24::Sparse24Matrix<float>&, const std::map<std::string, std::string>&);
template void write_sparse24_safetensors(const std::string&, const sparse24::Sparse24Matrix<std::int8_t>&, const std::map<std::string, std::string>&);
template sparse24::Sparse24Matrix<half> read_sparse24_safetensors(TensorFile&, const MemoryBudget&);
template sparse24::Sparse24Matrix<bfloat16> read_sparse24_safetensors(TensorFile&, const MemoryBudget&);
template sparse24::Sparse24Matrix<float> read_sparse24_safetensors(TensorFile&, const MemoryBudget&);
template sparse24::Sparse24Matrix<std::int8_t> read_sparse24_safetensors(TensorFile&, const MemoryBudget&);

}  // namespace warpsparse::io
