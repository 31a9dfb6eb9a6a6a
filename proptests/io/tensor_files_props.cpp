// Tensor files (safetensors, .npy, .npz): what this project writes reads back bit for bit; a tensor
// read as matrix rows equals the matrix it was written from, in both orientations and both storage
// orders; MACKO, 2:4 and bitmap-tile matrices survive their safetensors form, and a bitmap file
// that breaks the format is refused naming file and array; every malformed header is an Error
// naming the file, the tensor and the field, refused before its data is touched (a header claiming
// 2^40 elements fails at once, in small memory). And the pruning rules: counts, order, ties.
#include <zip.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "proptests/generators.hpp"
#include "proptests/prop_support.hpp"
#include "reference/io/format_safetensors.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/tensor_file.hpp"
#include "reference/sparse/prune.hpp"
#include "reference/sparse24/sparse24_format.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;
using Catch::Contains;

namespace {

namespace fs = std::filesystem;

fs::path work_dir() {
  const fs::path d = fs::temp_directory_path() / ("ws_tensor_files_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

io::TensorOut out_of(std::string name, std::string dtype, std::vector<std::int64_t> shape, const std::vector<std::uint8_t>& b) {
  return {std::move(name), std::move(dtype), std::move(shape), b.size(),
          [&b](std::ostream& o) { o.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size())); }};
}

// A .npy file (format 1.0) of a rows x cols array in C or Fortran order.
std::vector<std::uint8_t> npy_bytes(const std::string& descr, bool fortran, std::int64_t rows, std::int64_t cols,
                                    const std::vector<std::uint8_t>& data) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (" +
                  std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  out += h;
  out.append(reinterpret_cast<const char*>(data.data()), data.size());
  return std::vector<std::uint8_t>(out.begin(), out.end());
}

void write_file(const fs::path& p, const std::vector<std::uint8_t>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

template <class T>
bool same_rows(const SparseRows<T>& a, const SparseRows<T>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col == b.col &&
         (a.val.empty() || std::memcmp(a.val.data(), b.val.data(), a.val.size() * sizeof(T)) == 0);
}

template <class T>
SparseRows<T> transposed(const SparseRows<T>& m) {
  const auto d = m.to_dense();
  SparseRows<T> t;
  t.cols = m.rows;
  for (std::int64_t c = 0; c < m.cols; ++c) {
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const T v = d[static_cast<std::size_t>(r * m.cols + c)];
      if (!is_zero(v)) t.push(static_cast<std::int32_t>(r), v);
    }
    t.end_row();
  }
  return t;
}

// The dense row-major bytes of a matrix with zeros where nothing is stored.
template <class T>
std::vector<T> dense_of(const SparseRows<T>& m) {
  return m.without_zeros().to_dense();
}

template <class T>
void tensor_roundtrip(const fs::path& dir, const std::string& dtype, const std::string& descr) {
  Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  RC_PRE(rec.rows * rec.cols <= (1 << 16));
  const SparseRows<T> m = build<T>(rec).without_zeros();
  const std::vector<T> d = dense_of(m);
  const auto b = bytes_of(d);
  // safetensors, with other tensors around it.
  const std::vector<std::uint8_t> pad = {1, 2, 3};
  const fs::path st = dir / "t.safetensors";
  io::write_safetensors(st.string(), {out_of("pad", "U8", {3}, pad), out_of("w", dtype, {m.rows, m.cols}, b)}, {{"k", "v"}});
  auto f = io::open_tensor_file(st.string());
  RC_ASSERT(f->metadata().at("k") == "v");
  const io::TensorInfo& t = f->find("w");
  const auto data = f->data(t);
  RC_ASSERT(std::vector<std::uint8_t>(data.begin(), data.end()) == b);
  RC_ASSERT(same_rows(io::tensor_rows<T>(t, data, false), m));
  RC_ASSERT(same_rows(io::tensor_rows<T>(t, data, true), transposed(m)));
  // .npy in C order and in Fortran order.
  const fs::path npy = dir / "t.npy";
  write_file(npy, npy_bytes(descr, false, m.rows, m.cols, b));
  auto fc = io::open_tensor_file(npy.string());
  RC_ASSERT(same_rows(io::tensor_rows<T>(fc->find(""), fc->data(fc->find("")), false), m));
  const std::vector<T> dt = dense_of(transposed(m));  // column-major bytes of m
  write_file(npy, npy_bytes(descr, true, m.rows, m.cols, bytes_of(dt)));
  auto ff = io::open_tensor_file(npy.string());
  RC_ASSERT(ff->find("").fortran_order);
  RC_ASSERT(same_rows(io::tensor_rows<T>(ff->find(""), ff->data(ff->find("")), false), m));
  RC_ASSERT(same_rows(io::tensor_rows<T>(ff->find(""), ff->data(ff->find("")), true), transposed(m)));
}

}  // namespace

TEST_CASE("safetensors and .npy written here read back bit for bit, as rows both ways round") {
  const fs::path dir = work_dir();
  ws_prop("F16", 150, [&] { tensor_roundtrip<half>(dir, "F16", "<f2"); });
  ws_prop("F32", 150, [&] { tensor_roundtrip<float>(dir, "F32", "<f4"); });
  ws_prop("I8", 100, [&] { tensor_roundtrip<std::int8_t>(dir, "I8", "|i1"); });
  // BF16 has no numpy type: safetensors only.
  ws_prop("BF16", 100, [&] {
    const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
    RC_PRE(rec.rows * rec.cols <= (1 << 16));
    const SparseRows<bfloat16> m = build<bfloat16>(rec).without_zeros();
    const auto b = bytes_of(dense_of(m));
    const fs::path st = dir / "b.safetensors";
    io::write_safetensors(st.string(), {out_of("w", "BF16", {m.rows, m.cols}, b)}, {});
    auto f = io::open_tensor_file(st.string());
    RC_ASSERT(same_rows(io::tensor_rows<bfloat16>(f->find("w"), f->data(f->find("w")), false), m));
  });
  fs::remove_all(dir);
}

TEST_CASE("an .npz archive (stored and deflated members) reads like its .npy files") {
  const fs::path dir = work_dir();
  SparseRows<float> m;
  m.cols = 5;
  m.push(1, 2.5f);
  m.end_row();
  m.push(0, -1.0f);
  m.push(4, 3.0f);
  m.end_row();
  const auto npy = npy_bytes("<f4", false, 2, 5, bytes_of(dense_of(m)));
  const fs::path npz = dir / "a.npz";
  int err = 0;
  zip_t* z = zip_open(npz.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z);
  for (const char* name : {"w.npy", "c.npy"}) {
    zip_source_t* s = zip_source_buffer(z, npy.data(), npy.size(), 0);
    const auto i = zip_file_add(z, name, s, ZIP_FL_OVERWRITE);
    REQUIRE(i >= 0);
    zip_set_file_compression(z, static_cast<zip_uint64_t>(i), std::string(name) == "c.npy" ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  REQUIRE(zip_close(z) == 0);
  auto f = io::open_tensor_file(npz.string());
  REQUIRE(f->tensors().size() == 2);
  for (const char* name : {"w", "c"}) CHECK(same_rows(io::tensor_rows<float>(f->find(name), f->data(f->find(name)), false), m));
  CHECK_THROWS_WITH(f->find("x"), Contains("a.npz: no tensor 'x'"));
  fs::remove_all(dir);
}

TEST_CASE("an element beyond a narrower value type's range is refused by position; inf is a value") {
  const fs::path dir = work_dir();
  const std::vector<float> dense = {std::numeric_limits<float>::infinity(), 0.0f, 1.0f, 0.0f, -2.0f, 1e5f};
  const fs::path npy = dir / "w.npy";
  write_file(npy, npy_bytes("<f4", false, 2, 3, bytes_of(dense)));
  auto f = io::open_tensor_file(npy.string());
  const io::TensorInfo& t = f->find("");
  CHECK(io::tensor_rows<float>(t, f->data(t), false).nnz() == 4);
  CHECK(io::tensor_rows<bfloat16>(t, f->data(t), false).nnz() == 4);
  CHECK_THROWS_WITH(io::tensor_rows<half>(t, f->data(t), false),
                    Contains("w.npy") && Contains("element (1, 2) = 100000 is beyond the range of fp16"));
  CHECK_THROWS_WITH(io::tensor_rows<half>(t, f->data(t), true), Contains("element (2, 1) = 100000"));
  fs::remove_all(dir);
}

TEST_CASE("MACKO, 2:4 and bitmap-tile matrices survive their safetensors form") {
  const fs::path dir = work_dir();
  ws_prop("MACKO, every value type and delta width", 150, [&] {
    const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
    const int db = *rc::gen::element(1, 2, 4, 8).as("delta bits");
    const auto vt = *rc::gen::element(ValueType::fp16, ValueType::bf16, ValueType::fp32, ValueType::int8).as("value type");
    dispatch_value_type(vt, [&](auto tag) {
      using T = decltype(tag);
      MackoParams p;
      p.delta_bits = db;
      const io::AnyMacko a = encode_macko(build<T>(rec), p);
      const fs::path st = dir / "m.safetensors";
      io::write_macko_safetensors(st.string(), a);
      auto f = io::open_tensor_file(st.string());
      RC_ASSERT(io::warpsparse_format(*f) == io::kMackoSafetensorsFormat);
      RC_ASSERT(io::serialize_macko(io::read_macko_safetensors(*f)) == io::serialize_macko(a));
    });
  });
  ws_prop("2:4", 60, [&] {
    const int rows = *rc::gen::inRange(1, 40).as("rows"), cols = *rc::gen::inRange(1, 90).as("cols");
    std::vector<half> d(static_cast<std::size_t>(rows * cols));
    for (auto& v : d) v = half(static_cast<float>(*rc::gen::inRange(-8, 9).as("value")) * 0.25f);
    const auto s = sparse24::compress<half>(sparse24::prune_2of4<half>(d, rows, cols), rows, cols);
    const fs::path st = dir / "s.safetensors";
    io::write_sparse24_safetensors(st.string(), s);
    auto f = io::open_tensor_file(st.string());
    const auto back = io::read_sparse24_safetensors<half>(*f);
    RC_ASSERT(back.rows == s.rows && back.cols == s.cols && back.meta == s.meta);
    RC_ASSERT(std::memcmp(back.values.data(), s.values.data(), s.values.size() * sizeof(half)) == 0);
  });
  ws_prop("bitmap tiles, every value type", 100, [&] {
    const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
    const auto vt = *rc::gen::element(ValueType::fp16, ValueType::bf16, ValueType::fp32).as("value type");
    dispatch_value_type(vt, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, std::int8_t>) {
        const Bitmap<T> b = encode_bitmap(build<T>(rec));
        const fs::path st = dir / "b.safetensors";
        io::write_bitmap_safetensors(st.string(), b);
        auto f = io::open_tensor_file(st.string());
        RC_ASSERT(io::warpsparse_format(*f) == io::kBitmapSafetensorsFormat);
        const auto back = std::get<Bitmap<T>>(io::read_bitmap_safetensors(*f));
        RC_ASSERT(back.rows == b.rows && back.cols == b.cols && back.bitmaps == b.bitmaps && back.tile_off == b.tile_off &&
                  back.row_base == b.row_base);
        // Bit patterns, not values (-0 and NaN); an empty matrix has no values and may have no buffer.
        RC_ASSERT(back.values.size() == b.values.size());
        // (A bool first: RC_ASSERT captures the expression, and its || does not short-circuit.)
        const bool same = b.values.empty() || std::memcmp(back.values.data(), b.values.data(), b.values.size() * sizeof(T)) == 0;
        RC_ASSERT(same);
      }
    });
  });
  fs::remove_all(dir);
}

TEST_CASE(
    "2:4 safetensors reader: unordered metadata or a nonzero in the padding is an Error naming file and "
    "array") {
  const fs::path dir = work_dir(), st = dir / "s.safetensors";
  // 3 x 6: columns 6..63 and rows 3..127 are padding.
  const std::vector<half> d = {half(1.0f), half(0.0f), half(2.0f), half(0.0f), half(0.0f), half(3.0f),
                               half(0.0f), half(4.0f), half(0.0f), half(5.0f), half(6.0f), half(0.0f),
                               half(7.0f), half(8.0f), half(0.0f), half(0.0f), half(0.0f), half(0.0f)};
  const auto good = sparse24::compress<half>(d, 3, 6);
  const auto read_back = [&](const sparse24::Sparse24Matrix<half>& s) {
    io::write_sparse24_safetensors(st.string(), s);
    auto f = io::open_tensor_file(st.string());
    return io::read_sparse24_safetensors<half>(*f);
  };
  CHECK(read_back(good).meta == good.meta);
  auto bad = good;
  bad.meta[0] = static_cast<std::uint16_t>((bad.meta[0] & 0xfff0u) | 0x5u);  // row 0 group 0: positions 1, 1
  CHECK_THROWS_WITH(read_back(bad),
                    Contains("s.safetensors: metadata: row 0 group 0: nibble 5 is not two ascending"));
  bad = good;
  bad.values[3] = half(9.0f);  // row 0 group 1 keeps columns 4 and 5 (ascending 0, 1 when empty): 5 is real
  CHECK_NOTHROW(read_back(bad));
  bad.values[4] = half(9.0f);  // row 0 group 2 keeps columns 8 and 9, past the 6 columns
  CHECK_THROWS_WITH(read_back(bad),
                    Contains("s.safetensors: values: row 0 group 2: a nonzero value at padding column 8"));
  bad = good;
  bad.values[static_cast<std::size_t>(5) * (good.cols_padded / 2)] = half(1.0f);
  CHECK_THROWS_WITH(read_back(bad),
                    Contains("values: row 5 group 0: a nonzero value at padding column 0 of a padding row"));
  fs::remove_all(dir);
}

TEST_CASE("bitmap safetensors reader: a file that breaks the format is an Error naming file and array") {
  const fs::path dir = work_dir(), st = dir / "b.safetensors";
  // 20 x 40: 2 tile rows x 3 k tiles; a nonzero in each corner.
  SparseRows<half> m;
  m.cols = 40;
  for (int r = 0; r < 20; ++r) {
    if (r == 0 || r == 19) {
      m.push(0, half(1.5f));
      m.push(39, half(-2.0f));
    }
    m.end_row();
  }
  const Bitmap<half> good = encode_bitmap(m);
  // The arrays of `b` under `rows` x `cols`, written without the writer's validation.
  auto read = [&](const Bitmap<half>& b, const std::string& rows = "20", const std::string& cols = "40") {
    auto out = [](std::string name, std::string dtype, std::vector<std::int64_t> shape, const auto& v) {
      const std::uint64_t bytes = v.size() * sizeof(v[0]);
      return io::TensorOut{std::move(name), std::move(dtype), std::move(shape), bytes, [&v, bytes](std::ostream& o) {
                             o.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(bytes));
                           }};
    };
    io::write_safetensors(st.string(),
                          {out("values", "F16", {static_cast<std::int64_t>(b.values.size())}, b.values),
                           out("bitmaps", "U64", {static_cast<std::int64_t>(b.bitmaps.size() / 4), 4}, b.bitmaps),
                           out("tile_off", "U32", {static_cast<std::int64_t>(b.tile_off.size())}, b.tile_off),
                           out("row_base", "I64", {static_cast<std::int64_t>(b.row_base.size())}, b.row_base)},
                          {{"warpsparse.format", "bitmap"}, {"warpsparse.version", "1"}, {"value_type", "fp16"}, {"rows", rows},
                           {"cols", cols}});
    auto f = io::open_tensor_file(st.string());
    return io::read_bitmap_safetensors(*f);
  };
  CHECK(std::get<Bitmap<half>>(read(good)).values.size() == 4);
  Bitmap<half> b = good;
  b.bitmaps[0] |= std::uint64_t{1} << 63;  // one more set bit: tile_off and row_base disagree
  CHECK_THROWS_WITH(read(b), Contains(st.string() + ": tile_off[1]"));
  b = good;
  b.bitmaps.back() |= std::uint64_t{1} << 7;  // a bit in the last k tile's padding columns
  CHECK_THROWS_WITH(read(b), Contains("outside the 20x40 matrix"));
  b = good;
  b.values.pop_back();
  CHECK_THROWS_WITH(read(b), Contains("values has 3 elements, expected row_base[last] = 4"));
  b = good;
  b.values[1] = half(0.0f);
  CHECK_THROWS_WITH(read(b), Contains("values[1] is zero"));
  // Fields against arrays, checked before the arrays are copied.
  CHECK_THROWS_WITH(read(good, "40", "40"), Contains(st.string() + ":bitmaps: shape [6, 4], expected [9, 4] for 40 x 40"));
  CHECK_THROWS_WITH(read(good, "20", "80"), Contains(":bitmaps: shape [6, 4], expected [10, 4]"));
  CHECK_THROWS_WITH(read(good, "20", "-1"), Contains("__metadata__: cols = '-1' is not a whole number"));
  CHECK_THROWS_WITH(read(good, "20", "4294967296"), Contains("__metadata__: cols = '4294967296' is not a whole number"));
  fs::remove_all(dir);
}

TEST_CASE("safetensors reader: every malformed header is an Error naming file, tensor and field") {
  auto file = [](const std::string& json, std::size_t data_bytes, std::int64_t claimed_len = -1) {
    const std::uint64_t n = claimed_len >= 0 ? static_cast<std::uint64_t>(claimed_len) : json.size();
    std::string b(reinterpret_cast<const char*>(&n), 8);
    b += json;
    b.append(data_bytes, '\0');
    return std::vector<std::uint8_t>(b.begin(), b.end());
  };
  auto parse = [](const std::vector<std::uint8_t>& b) { return io::parse_safetensors(b, "f.st"); };
  const std::string ok = R"({"w":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]}})";
  CHECK_NOTHROW(parse(file(ok, 12)));
  CHECK_THROWS_WITH(parse({1, 2, 3}), Contains("f.st: byte 0: header length: truncated"));
  CHECK_THROWS_WITH(parse(file(ok, 12, 1000)), Contains("f.st: byte 0: header length: 1000 bytes, but the file has only"));
  CHECK_THROWS_WITH(parse(file(ok, 12, std::int64_t{1} << 40)), Contains("above the format's limit of 100 MiB"));
  CHECK_THROWS_WITH(parse(file("[1]", 0)), Contains("does not start with '{'"));
  CHECK_THROWS_WITH(parse(file("{\"w\":", 0)), Contains("f.st: byte") && Contains("header: not valid JSON"));
  CHECK_THROWS_WITH(parse(file(ok, 11)), Contains("f.st: tensor 'w': data_offsets: [0, 12] reaches past the data (11 bytes"));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"F16","shape":[2,3],"data_offsets":[0,10]}})", 12)),
                    Contains("tensor 'w': data_offsets: [0, 10] holds 10 bytes, but shape [2, 3] of F16 needs 12"));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"Q3","shape":[2],"data_offsets":[0,2]}})", 2)), Contains("tensor 'w': dtype: unknown dtype 'Q3'"));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"F16","shape":[-2],"data_offsets":[0,2]}})", 2)), Contains("tensor 'w': shape"));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"F16","shape":[2]}})", 4)), Contains("tensor 'w': data_offsets: missing"));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"F16","shape":[1],"data_offsets":[2,0]}})", 4)), Contains("ends before it begins"));
  CHECK_THROWS_WITH(parse(file(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", 4)),
                    Contains("tensor 'b': data_offsets overlap those of tensor 'a'"));
  // An empty tensor between two that overlap hides them from a check of neighbours only.
  CHECK_THROWS_WITH(
      parse(file(
          R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},"e":{"dtype":"U8","shape":[0],"data_offsets":[2,2]},"c":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
          8)),
      Contains("tensor 'c': data_offsets overlap those of tensor 'a'"));
  CHECK_NOTHROW(parse(file(
      R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"e":{"dtype":"U8","shape":[0],"data_offsets":[2,2]},"c":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
      8)));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2)),
                    Contains("tensor 'w' is listed twice"));
  CHECK_THROWS_WITH(parse(file(R"({"__metadata__":{"k":3}})", 0)), Contains("__metadata__ 'k' is not a string"));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"F16","shape":[[[[1]]]],"data_offsets":[0,2]}})", 2)), Contains("nested deeper"));
  // 2^40 elements claimed over a few bytes: refused from the header, before any data is touched.
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"F16","shape":[1048576,1048576],"data_offsets":[0,2199023255552]}})", 16)),
                    Contains("tensor 'w': data_offsets: [0, 2199023255552] reaches past the data"));
  CHECK_THROWS_WITH(parse(file(R"({"w":{"dtype":"F16","shape":[16777216,16777216,16777216],"data_offsets":[0,2]}})", 2)),
                    Contains("more than 2^48"));
}

TEST_CASE(".npy reader: every malformed header is an Error naming file, byte and field") {
  auto parse = [](const std::vector<std::uint8_t>& b) { return io::parse_npy(b, b.size(), "a.npy"); };
  const std::vector<std::uint8_t> data(24, 0);
  CHECK_NOTHROW(parse(npy_bytes("<f4", false, 2, 3, data)));
  CHECK_THROWS_WITH(parse({1, 2, 3}), Contains("a.npy: byte 0: magic: not a .npy file"));
  CHECK_THROWS_WITH(parse(npy_bytes(">f4", false, 2, 3, data)), Contains("is big-endian"));
  CHECK_THROWS_WITH(parse(npy_bytes("<f4", false, 2, 4, data)), Contains("a.npy: byte 128: data: shape [2, 4] of <f4 needs 32 bytes, the file has 24"));
  CHECK_THROWS_WITH(parse(npy_bytes("<f4", false, 2, 2, data)), Contains("8 trailing bytes"));
  CHECK_THROWS_WITH(parse(npy_bytes("<f4', 'x': 1, 'y", false, 2, 3, data)), Contains("unexpected key 'x'"));
  // 2^40 elements claimed by a 100-byte file: refused from the header.
  CHECK_THROWS_WITH(parse(npy_bytes("<f2", false, 1 << 20, 1 << 20, data)),
                    Contains("shape [1048576, 1048576] of <f2 needs 2199023255552 bytes, the file has 24"));
  auto b = npy_bytes("<f4", false, 2, 3, data);
  b[8] = 0xff;
  b[9] = 0xff;
  CHECK_THROWS_WITH(parse(b), Contains("a.npy: byte 8: header length: 65535 bytes, past the end of the file"));
  // Version 2 puts a 4-byte length at byte 8: the header text, and the byte a message names, start at 12.
  auto v2 = npy_bytes("<f4', 'x': 1, 'y", false, 2, 3, data);
  v2[6] = 2;
  v2.insert(v2.begin() + 10, {0, 0});
  CHECK_THROWS_WITH(parse(v2), Contains("a.npy: byte 33: header: unexpected key 'x'"));
  v2[6] = 1;
  v2.erase(v2.begin() + 10, v2.begin() + 12);
  CHECK_THROWS_WITH(parse(v2), Contains("a.npy: byte 31: header: unexpected key 'x'"));
}

TEST_CASE("a tensor larger than the memory budget is refused before its rows are stored") {
  std::vector<float> d(4096, 1.0f);
  const auto b = bytes_of(d);
  const auto npy = npy_bytes("<f4", false, 64, 64, b);
  const io::TensorInfo t = io::parse_npy(npy, npy.size(), "big.npy");
  const MemoryBudget small{8192, "test"};
  CHECK_THROWS_WITH(io::tensor_rows<float>(t, std::span<const std::uint8_t>(npy).subspan(t.offset, t.bytes), false, small),
                    Contains("big.npy: 64 x 64 with 4096 nonzeros needs") && Contains("above the memory budget"));
}

TEST_CASE("a tensor of no elements but 2^31 - 1 rows is refused before its row counts are allocated") {
  for (const bool transpose : {false, true}) {
    const std::int64_t rows = transpose ? 0 : 2147483647, cols = transpose ? 2147483647 : 0;
    const std::vector<std::uint8_t> none;
    const auto npy = npy_bytes("<f4", false, rows, cols, none);
    const io::TensorInfo t = io::parse_npy(npy, npy.size(), "wide.npy");
    const MemoryBudget budget{std::uint64_t{1} << 30, "test"};
    CHECK_THROWS_WITH(
        io::tensor_rows<float>(t, std::span<const std::uint8_t>(npy).subspan(t.offset, t.bytes), transpose,
                               budget),
        Contains("wide.npy: the row pointers of 2147483647 rows") && Contains("above the memory budget"));
  }
}

TEST_CASE("a write that fails leaves the file it would have replaced as it was, and no partial file") {
  const fs::path dir = work_dir(), p = dir / "w.safetensors";
  const std::vector<std::uint8_t> w(8, 1);
  io::write_safetensors(p.string(), {out_of("a", "F16", {2, 2}, w)}, {});
  const auto before = io::open_tensor_file(p.string())->tensors().size();
  io::TensorOut bad = out_of("b", "F16", {2, 2}, w);
  bad.write = [](std::ostream& o) { o.write("xy", 2); };  // fewer bytes than declared
  CHECK_THROWS_WITH(io::write_safetensors(p.string(), {out_of("a", "F16", {2, 2}, w), bad}, {}),
                    Contains("b: wrote a different number of bytes than declared"));
  CHECK(io::open_tensor_file(p.string())->tensors().size() == before);
  CHECK_FALSE(fs::exists(dir / "w.safetensors.partial"));
  // Through a link, the file it names is replaced and the link stays.
  fs::create_symlink(p, dir / "link.safetensors");
  io::write_safetensors((dir / "link.safetensors").string(),
                        {out_of("a", "F16", {2, 2}, w), out_of("c", "F16", {2, 2}, w)}, {});
  CHECK(fs::is_symlink(dir / "link.safetensors"));
  CHECK(io::open_tensor_file(p.string())->tensors().size() == 2);
  CHECK_THROWS_WITH(
      io::write_safetensors((dir / "no" / "x.safetensors").string(), {out_of("a", "F16", {2, 2}, w)}, {}),
      Contains("no/x.safetensors: cannot open for writing"));
  fs::remove_all(dir);
}

TEST_CASE("a sharded checkpoint's index: shards are names in its folder, and hold what it lists") {
  const fs::path dir = work_dir();
  const std::vector<std::uint8_t> w(8, 1);
  io::write_safetensors((dir / "s1.safetensors").string(), {out_of("a", "F16", {2, 2}, w)}, {});
  io::write_safetensors((dir / "s2.safetensors").string(), {out_of("b", "F32", {1, 2}, w)}, {});
  auto index = [&](const std::string& text) {
    std::ofstream(dir / "model.safetensors.index.json") << text;
    return io::open_tensor_file((dir / "model.safetensors.index.json").string());
  };
  const auto f = index(R"({"metadata":{"total_size":16},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})");
  CHECK(f->tensors().size() == 2);
  CHECK(f->find("b").dtype == io::DType::f32);
  CHECK_THROWS_WITH(index(R"({"weight_map":{"a":"../s1.safetensors"}})"), Contains("is not a file name in the index's folder"));
  CHECK_THROWS_WITH(index(R"({"weight_map":{"a":"s2.safetensors"}})"), Contains("weight_map lists 'a' in") && Contains("which does not hold it"));
  CHECK_THROWS_WITH(index(R"({"weight_map":{"a":"missing.safetensors"}})"), Contains("missing.safetensors: cannot open"));
  CHECK_THROWS_WITH(index(R"({"tensors":{}})"), Contains("not a safetensors index"));
  CHECK_THROWS_WITH(
      index(R"({"weight_map":{"a":"s1.safetensors","b":"s2.safetensors","a":"s2.safetensors"}})"),
      Contains("model.safetensors.index.json: weight_map: tensor 'a' is listed twice"));
  // The same name in another object is no duplicate.
  CHECK(index(R"({"metadata":{"a":"x"},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})")
            ->tensors()
            .size() == 2);
  fs::remove_all(dir);
}

TEST_CASE("magnitude pruning: counts, order and ties") {
  ws_prop("keep_largest keeps exactly the count, the largest, ties to the lower index", 300, [] {
    const auto v = *rc::gen::container<std::vector<int>>(rc::gen::inRange(-4, 5)).as("values (small, so ties are common)");
    const auto count = *rc::gen::inRange<std::int64_t>(0, static_cast<std::int64_t>(v.size()) + 2).as("count");
    std::vector<float> mag(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) mag[i] = prune::magnitude(float(v[i]));
    std::vector<std::uint8_t> keep(v.size());
    prune::keep_largest(mag, count, keep);
    std::int64_t kept = 0;
    for (const auto k : keep) kept += k;
    RC_ASSERT(kept == std::min<std::int64_t>(count, static_cast<std::int64_t>(v.size())));
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = 0; j < v.size(); ++j)
        if (keep[i] && !keep[j]) RC_ASSERT((mag[i] > mag[j] || (mag[i] == mag[j] && i < j)));
  });
  ws_prop("keep_n_of_m keeps min(n, group) per group, the largest", 300, [] {
    const auto v = *rc::gen::container<std::vector<int>>(rc::gen::inRange(-4, 5)).as("values");
    const int m = *rc::gen::element(4, 8).as("m"), n = *rc::gen::inRange(1, m).as("n");
    std::vector<float> mag(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) mag[i] = prune::magnitude(float(v[i]));
    std::vector<std::uint8_t> keep(v.size());
    prune::keep_n_of_m(mag, n, m, keep);
    for (std::size_t g = 0; g < v.size(); g += static_cast<std::size_t>(m)) {
      const std::size_t len = std::min<std::size_t>(static_cast<std::size_t>(m), v.size() - g);
      std::size_t kept = 0;
      for (std::size_t i = g; i < g + len; ++i) kept += keep[i];
      RC_ASSERT(kept == std::min<std::size_t>(static_cast<std::size_t>(n), len));
      for (std::size_t i = g; i < g + len; ++i)
        for (std::size_t j = g; j < g + len; ++j)
          if (keep[i] && !keep[j]) RC_ASSERT((mag[i] > mag[j] || (mag[i] == mag[j] && i < j)));
    }
  });
  CHECK(prune::magnitude(std::nanf("")) == INFINITY);  // never below a number
  CHECK(prune::kept_count(0.5, 11) == 6);
}
